"""The legacy spelling of lists: `!iree.list<T>`, which older IREE frontends write, is
`!util.list<T>` in the V1 convention (docs/spec.md §8.2). `wrap-entry-points` respells a
whole module before it wraps anything (`respell_legacy_lists`)."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Attribute, Data, ParametrizedAttribute
from xdsl.rewriter import Rewriter

from abi_compiler.dialects.iree import IreeListType
from abi_compiler.dialects.util import ListType
from abi_compiler.identity import IdentityCache


def util_list_spelling(attr: Attribute, seen: IdentityCache[Attribute] | None = None) -> Attribute:
    """`attr` with every `!iree.list<T>` spelled `!util.list<T>` (docs/spec.md §8.2); the same
    object when nothing changes. ``seen`` remembers the answer for each object looked at
    (parsed IR shares its attribute objects: each distinct type or dictionary text is
    parsed once)."""
    if _holds_no_type(attr):
        return attr  # (most of what a module holds: tensor dims, element types, …)
    cache = IdentityCache[Attribute]() if seen is None else seen
    return cache.answer(lambda: _respelled(attr, cache), attr)


# Per attribute class: True when none of its values holds a type or attribute that
# `_respelled` could change: data other than arrays and dictionaries (integers, strings,
# …), attributes without parameters (`f32`, `index`, …), integer types and numbers.
_HOLD_NO_TYPE: dict[type[Attribute], bool] = {}
_SCALARS = (IntegerType, IntegerAttr, FloatAttr)


def _holds_no_type(attr: Attribute) -> bool:
    cls = attr.__class__
    known = _HOLD_NO_TYPE.get(cls)
    if known is None:
        if issubclass(cls, Data):
            known = not issubclass(cls, (ArrayAttr, DictionaryAttr))
        elif issubclass(cls, ParametrizedAttribute):
            definition = cls.get_irdl_definition()
            known = cls in _SCALARS or (definition is not None and not definition.parameters)
        else:
            known = False
        _HOLD_NO_TYPE[cls] = known
    return known


def _respelled(attr: Attribute, seen: IdentityCache[Attribute]) -> Attribute:
    if isinstance(attr, IreeListType):
        return ListType(util_list_spelling(attr.element_type, seen))
    if attr.__class__ is TensorType:
        # (Its shape is integers: only the element type and the encoding can change.)
        assert isinstance(attr, TensorType)
        element = util_list_spelling(attr.element_type, seen)
        encoding = util_list_spelling(attr.encoding, seen)
        if element is not attr.element_type or encoding is not attr.encoding:
            return TensorType.new([attr.shape, element, encoding])
    elif isinstance(attr, ParametrizedAttribute):
        params = [util_list_spelling(p, seen) for p in attr.parameters]
        if any(new is not old for new, old in zip(params, attr.parameters, strict=True)):
            return type(attr).new(params)
    elif isinstance(attr, ArrayAttr):
        items = [util_list_spelling(item, seen) for item in attr.data]
        if any(new is not old for new, old in zip(items, attr.data, strict=True)):
            return ArrayAttr(items)
    elif isinstance(attr, DictionaryAttr):
        entries = {key: util_list_spelling(value, seen) for key, value in attr.data.items()}
        if any(entries[key] is not value for key, value in attr.data.items()):
            return DictionaryAttr(entries)
    return attr


def respell_legacy_lists(module: ModuleOp) -> None:
    """Rewrite `!iree.list<T>` to `!util.list<T>` everywhere, in place (ops keep their
    identity, and so their source locations)."""
    seen: IdentityCache[Attribute] = IdentityCache()
    for op in module.walk():
        for table in (op.properties, op.attributes):
            for name, attr in list(table.items()):
                new = util_list_spelling(attr, seen)
                if new is not attr:
                    table[name] = new
        for result in list(op.results):
            new = util_list_spelling(result.type, seen)
            if new is not result.type:
                Rewriter.replace_value_with_new_type(result, new)
        for region in op.regions:
            for block in region.blocks:
                for arg in list(block.args):
                    new = util_list_spelling(arg.type, seen)
                    if new is not arg.type:
                        Rewriter.replace_value_with_new_type(arg, new)
