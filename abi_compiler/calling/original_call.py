"""Calling a compiled function with its original call (docs/calling.md, "From a
framework's object"): an `OriginalCall` (the `abi.call` entry) read together with the
function's `iree.abi` records.

`CallPlan.arguments(args, kwargs)` walks the caller's values once, along the original
structure: containers are checked against it (namedtuples and dataclasses by their
fields, so any object with those fields will do), `None`, unused and specialized values
are checked and dropped, and each array goes through the converter of its record (the
leaf checks of `abi_compiler.runtime.pack`, given by the caller), landing at its leaf
index. The records' structures are then filled from those leaves — the packed form
`pack` gives — and shared symbolic dimensions and their bounds are checked, before
anything reaches the VM. `CallPlan.results(values)` reads the records' values back into
the original structure: the framework's containers (rebuilt types — a transformers
`ModelOutput` as a dict that indexes as one —, or the caller's own classes given by name,
with the static fields the file recorded), dicts in the framework's key order, `None`
leaves; or, given the framework's own unflatten (a JAX export's `out_tree`), what it
builds of the arrays in flatten order.

Pure: no numpy, no framework; every error is an `AbiError` with the value path of
`abi_compiler.runtime` (``argument 0['w']``, ``argument state.params``).
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import keyword
import sys
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Sequence as SequenceABC
from typing import Any

from abi_compiler.call_model import (
    Array,
    CallNode,
    Constant,
    Container,
    Dim,
    NoneLeaf,
    OriginalCall,
    Unused,
)
from abi_compiler.calling.marshal import value_shape
from abi_compiler.calling.mismatch import (
    Field,
    Label,
    Mismatch,
    format_path,
    plural,
    show_value,
    type_name,
)
from abi_compiler.codecs.call_json import constant_value
from abi_compiler.errors import AbiError
from abi_compiler.model import Dict, IndexPathComponent, Leaf, Node, Sequence, Signature

__all__ = ["CallPlan", "Relations", "TypeSource", "TypesError", "Unflatten"]

Converter = Callable[[Any], Any]
#: The framework's own unflatten of a result: its arrays in flatten order → the result.
Unflatten = Callable[[list[Any]], Any]
#: What `load(…, types=…)` takes: classes (by their ``__name__``) or a mapping by name.
TypeSource = Iterable[type] | Mapping[str, type] | None
#: Given the arrays with symbolic dims (path as errors name it, dims), the check of a
#: call's shapes for them (raising `AbiError`).
Relations = Callable[[list[tuple[str, tuple[Dim, ...]]]], Callable[[list[tuple[int, ...]]], None]]

_NOT_SEQUENCES = (str, bytes, bytearray, memoryview)
_DROP = object()


# --------------------------------------------------------------------------------------
# The records' side: leaf index ↔ place in the packed roots.
# --------------------------------------------------------------------------------------

# A template of a packed value: a leaf index, None (a gap) or a tuple of templates.
Template = Any


def _template(node: Node | None) -> Template:
    if node is None:
        return None
    if isinstance(node, Leaf):
        return node.index
    items = node.items if isinstance(node, Sequence) else tuple(c for _, c in node.items)
    return tuple(_template(item) for item in items)


def _fill(template: Template, flat: list[Any]) -> Any:
    if type(template) is int:
        return flat[template]
    if template is None:
        return None
    return [_fill(item, flat) for item in template]


def _packer(roots: list[Template]) -> Callable[[list[Any]], list[Any]]:
    """The packed roots of the flat leaves (`_fill` of each root), the walk over the
    templates done once: a leaf root, or a structure of leaves only, read by index; one
    root (the common case) without a loop over the roots."""
    fills: list[Callable[[list[Any]], Any]] = []
    for template in roots:
        indices = _leaf_indices(template)
        if type(template) is int:
            fills.append(functools.partial(_at, template))
        elif indices is not None:
            fills.append(functools.partial(_at_each, indices))
        else:
            fills.append(functools.partial(_fill, template))
    if len(roots) != 1:
        return lambda flat: [fill(flat) for fill in fills]
    (root,), fill = roots, fills[0]
    indices = _leaf_indices(root)
    if type(root) is int:
        return lambda flat: [flat[root]]
    if indices is not None:
        return lambda flat: [[flat[index] for index in indices]]
    return lambda flat: [fill(flat)]


def _leaf_indices(template: Template) -> list[int] | None:
    """The leaf indices of a structure of leaves only; None for anything else."""
    if type(template) is int or template is None:
        return None
    return list(template) if all(type(item) is int for item in template) else None


def _at(index: int, flat: list[Any]) -> Any:
    return flat[index]


def _at_each(indices: list[int], flat: list[Any]) -> list[Any]:
    return [flat[index] for index in indices]


def _leaf_dict(
    keys: SequenceABC[Any], indices: list[int], transforms: list[Callable[[Any], Any] | None]
) -> Callable[[list[Any]], Any]:
    """A plain dict result whose values are leaves (each its flat value, or the leaf's
    transform of it: a tensor): one comprehension, no getter called per item."""
    if all(transform is None for transform in transforms):
        plain = list(zip(keys, indices, strict=True))
        return lambda flat: {key: flat[index] for key, index in plain}
    triples = [
        (key, index, transform or _same)
        for key, index, transform in zip(keys, indices, transforms, strict=True)
    ]
    return lambda flat: {key: transform(flat[index]) for key, index, transform in triples}


def _same(value: Any) -> Any:
    return value


def _scatter(template: Template, value: Any, out: list[Any]) -> None:
    if type(template) is int:
        out[template] = value
    elif template is not None:
        for item, part in zip(template, value, strict=True):
            _scatter(item, part, out)


def _indices(template: Template) -> list[int]:
    if type(template) is int:
        return [template]
    if template is None:
        return []
    return [index for item in template for index in _indices(item)]


def result_templates(signature: Signature) -> list[Template]:
    """One template per value the VM's result readers give (the items of an inlined
    structured result, else one per result)."""
    if signature.inlined_result:
        root = signature.results[0]
        assert isinstance(root, (Sequence, Dict))
        items = root.items if isinstance(root, Sequence) else tuple(c for _, c in root.items)
        return [_template(item) for item in items]
    return [_template(node) for node in signature.results]


# --------------------------------------------------------------------------------------
# Types for results.
# --------------------------------------------------------------------------------------


def own_types(types: TypeSource) -> dict[str, type]:
    """The caller's classes by recorded name (`load(…, types=…)`): classes, matched by
    ``__name__``, or a mapping of names to classes; a `TypeError` for anything else
    (where it was an AttributeError at the first call that rebuilt a result)."""
    if types is None:
        return {}
    if isinstance(types, Mapping):
        found = dict(types)
        for name, cls in found.items():
            if not isinstance(name, str) or not callable(cls):
                raise TypeError(
                    f"types: expected a mapping of recorded names to classes, got "
                    f"{type(name).__name__} -> {type(cls).__name__}"
                )
        return found
    if isinstance(types, (str, bytes)) or not isinstance(types, Iterable):
        raise TypeError(
            f"types: expected classes or a mapping of recorded names to classes, got "
            f"{type(types).__name__}"
        )
    classes = list(types)
    for cls in classes:
        if not isinstance(cls, type):
            raise TypeError(f"types: expected classes, got {type(cls).__name__}")
    return {cls.__name__: cls for cls in classes}


def _identifier(name: str) -> str:
    name = name.rsplit(".", 1)[-1]
    return name if name.isidentifier() and not keyword.iskeyword(name) else "Record"


# Rebuilt types, shared by every plan of the process (a type per name and fields).
_REBUILT: dict[tuple[str, str, tuple[str, ...]], type] = {}


def _rebuilt(kind: str, name: str, fields: tuple[str, ...]) -> type:
    key = (kind, name, fields)
    cached = _REBUILT.get(key)
    if cached is not None:
        return cached
    made: type
    if kind == "namedtuple":
        made = collections.namedtuple(_identifier(name), fields, rename=True)  # type: ignore[misc,no-redef]
    else:
        safe = [
            f if f.isidentifier() and not keyword.iskeyword(f) else f"_{i}"
            for i, f in enumerate(fields)
        ]
        for position, (field, name_made) in enumerate(zip(fields, safe, strict=True)):
            if name_made in safe[:position]:
                raise AbiError(
                    f"abi.call: {kind} {name!r}: field {field!r} would be named {name_made!r}, "
                    "as another field is"
                )
        made = dataclasses.make_dataclass(_identifier(name), safe, frozen=True)
    made.__qualname__ = made.__name__
    made.__module__ = "abi_compiler.calling.original_call.rebuilt"
    _REBUILT[key] = made
    return made


class _RebuiltOutput(collections.OrderedDict):
    """A transformers ``ModelOutput`` rebuilt from a file (`_model_output_type`): a dict of
    its fields that are not None, in order, which also gives every field as an attribute
    (None for one it does not hold as a key); an int or slice indexes `to_tuple()`, as
    transformers' own class does."""

    _fields: tuple[str, ...] = ()

    def __init__(self, **values: Any) -> None:
        super().__init__()
        for name in self._fields:
            setattr(self, name, values.get(name))

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self._fields and value is not None:
            super().__setitem__(name, value)
        object.__setattr__(self, name, value)

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        if key in self._fields:
            object.__setattr__(self, key, value)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return super().__getitem__(key)
        return self.to_tuple()[key]

    def to_tuple(self) -> tuple[Any, ...]:
        """The values of the keys (the fields that are not None), in order."""
        return tuple(super(_RebuiltOutput, self).__getitem__(key) for key in self.keys())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({fields})"


def _model_output_type(name: str, fields: tuple[str, ...]) -> type:
    key = ("model_output", name, fields)
    cached = _REBUILT.get(key)
    if cached is not None:
        return cached
    safe = tuple(f for f in fields if f.isidentifier() and not keyword.iskeyword(f))
    made = type(_identifier(name), (_RebuiltOutput,), {"_fields": safe, "__slots__": ()})
    made.__qualname__ = made.__name__
    made.__module__ = "abi_compiler.calling.original_call.rebuilt"
    _REBUILT[key] = made
    return made


def _missing_fields(cls: Any, given: SequenceABC[str]) -> list[str]:
    """The fields a dataclass ``cls`` (or a `functools.partial` of one) needs in its
    ``__init__`` beyond ``given`` and what the partial supplies: the static fields of a
    flax struct (``apply_fn``, ``tx``), which are not values of the call."""
    supplied: set[str] = set(given)
    while isinstance(cls, functools.partial):
        supplied.update(cls.keywords)
        if cls.args:
            return []  # positional values: the caller knows the order
        cls = cls.func
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        return []
    return [
        field.name
        for field in dataclasses.fields(cls)
        if field.init
        and field.name not in supplied
        and field.default is dataclasses.MISSING
        and field.default_factory is dataclasses.MISSING
    ]


def _static_value(node: Constant) -> Any:
    """A recorded static field's value (a non-finite float is recorded by its repr)."""
    if node.text is not None and node.type == "float":
        try:
            return float(node.text)
        except ValueError:
            return node.value
    return node.value


class TypesError(AbiError):
    """A class given by `load(…, types=…)` that cannot be built from the file's values."""


def _array_order(node: CallNode) -> list[Array]:
    """The arrays of ``node`` depth first: the framework's flatten order."""
    if isinstance(node, Array):
        return [node]
    if isinstance(node, Container):
        return [found for child in node.children for found in _array_order(child)]
    return []


# --------------------------------------------------------------------------------------
# The plan.
# --------------------------------------------------------------------------------------


class CallPlan:
    """The original call ``call`` of a function with records ``signature``.

    ``leaf(array)`` gives the converter of an argument array (raising
    `abi_compiler.runtime.Mismatch`); ``leaf_result(array)`` the function that turns
    a result array into the framework's value (None: as it is); ``types`` are the
    caller's own classes for results; ``relations(leaves)`` gives the check of the
    dynamic dims of the arrays ``leaves`` (their paths and dims, in call order), which
    takes their shapes; ``unused(node)`` the check of a value for an argument the export
    dropped (None: any value), whose result is not passed on. ``target(array)`` gives, for
    an argument the call updates in place (``call.updates``), the function of the value
    given and what its converter made of it that returns the array the new value is
    written into (raising `Mismatch` when there is none:
    `abi_compiler.calling.updates.update_target`). ``send(array)`` gives, for an
    argument the call does not update, what its checked value is handed to the VM as
    (None: as it is; `Marshal.sender`: an aligned host array as a buffer view of its own
    memory); an updated argument is always sent as checked (copied, then written back)."""

    def __init__(
        self,
        call: OriginalCall,
        signature: Signature,
        leaf: Callable[[Array], Converter],
        leaf_result: Callable[[Array], Converter | None] | None = None,
        types: TypeSource = None,
        relations: Relations | None = None,
        unused: Callable[[Unused], Converter | None] | None = None,
        unflatten: Unflatten | None = None,
        target: Callable[[Array], Callable[[Any, Any], Any]] | None = None,
        send: Callable[[Array], Converter | None] | None = None,
    ) -> None:
        self.call = call
        #: Per result leaf (index) given as a framework tensor that the caller's side
        #: reads straight from the VM's buffer, whose transform ``leaf_result`` left
        #: to that reader: what makes the tensor of its DLPack capsule (None where it
        #: cannot) and of a host array (set by whoever builds the plan).
        self.tensor_readers: dict[int, tuple[Converter, Converter]] = {}
        self._send = send
        #: (leaf, what it is sent as) for each argument leaf with a `send`.
        self._senders: list[tuple[int, Converter]] = []
        self._target = target
        self._updated = {argument for argument, _ in call.updates}
        #: The path of each argument leaf the call updates (``argument 'cache'``).
        self.updated_paths: dict[int, str] = {}
        if self._updated and target is None:
            raise AbiError(
                "abi.call: the call updates arguments in place, which this caller cannot"
            )
        self._unused = unused
        self._types = own_types(types)
        self._leaf = leaf
        self._leaf_result = leaf_result
        self._roots = [_template(argument.node) for argument in signature.arguments]
        self._count = len([i for t in self._roots for i in _indices(t)])
        self._results = result_templates(signature)
        self._result_count = len([i for t in self._results for i in _indices(t)])
        given: list[int] = []
        self._fixed: list[tuple[int, Any]] = []
        for index, value in call.fixed:
            given.append(index)
            try:
                self._fixed.append((index, leaf(Array(index, None, None))(value)))
            except Mismatch as mismatch:
                raise AbiError(f"abi.call: fixed leaf {index}: {mismatch.message}") from None
        self._related: list[tuple[int, str, tuple[Dim, ...]]] = []  # leaf, path, dims
        labels = call.labels or (None,) * len(call.positional)
        self._labels: list[IndexPathComponent] = [
            Label(label) if label is not None else position for position, label in enumerate(labels)
        ]
        self._positional = [
            self._argument(node, label, given)
            for node, label in zip(call.positional, self._labels, strict=True)
        ]
        self._keywords = {name: self._argument(node, name, given) for name, node in call.keywords}
        self._names = [name for name, _ in call.keywords]
        if sorted(given) != list(range(self._count)):
            raise AbiError(
                f"abi.call: its arrays are leaves {sorted(given)}, the records have {self._count}"
            )
        #: The flat argument leaves before a call fills them: the fixed ones in place.
        self._blank: list[Any] = [None] * self._count
        for index, value in self._fixed:
            self._blank[index] = value
        self._pack = _packer(self._roots)
        self._check_shapes: Callable[[list[tuple[int, ...]]], None] | None = None
        if self._related and relations is not None:
            self._check_shapes = relations([(path, dims) for _, path, dims in self._related])
        result_leaves: list[int] = []
        self._rebuild = self._result(call.result, result_leaves)
        result_leaves += [written for _, written in call.updates]
        if sorted(result_leaves) != list(range(self._result_count)):
            raise AbiError(
                f"abi.call: its results are leaves {sorted(result_leaves)}, the records have "
                f"{self._result_count}"
            )
        if unflatten is not None:
            self._rebuild = self._unflattened(unflatten)

    # -- arguments ------------------------------------------------------------------------

    def arguments(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> list[Any]:
        """The packed roots (as `abi_compiler.runtime.pack` gives them) of the original
        call ``f(*args, **kwargs)``."""
        return self.bind(args, kwargs, send=False)[0]

    def bind(
        self, args: tuple[Any, ...], kwargs: Mapping[str, Any], send: bool = True
    ) -> tuple[list[Any], list[Any], list[Any]]:
        """`arguments`, per entry of ``call.updates`` the array its new value is written
        into (the ``target`` of the value given), and the host arrays sent in place.
        ``send``: each leaf, once checked, as the VM is to be given it (``send(array)``:
        a host array the device reads in place, as a buffer view of its memory)."""
        if kwargs or self._keywords or len(args) != len(self._positional):
            args, kwargs = self._normalized(args, kwargs)
        flat = self._blank.copy()  # the fixed leaves in place
        for label, convert, value in zip(self._labels, self._positional, args, strict=True):
            try:
                convert(value, flat)
            except Mismatch as mismatch:
                raise mismatch.error("argument", label) from None
        for name, convert in self._keywords.items():
            if name not in kwargs:
                raise AbiError(f"argument {name!r}: missing value")
            try:
                convert(kwargs[name], flat)
            except Mismatch as mismatch:
                raise mismatch.error("argument", name) from None
        if self._check_shapes is not None:
            self._check_shapes([_shape(flat[index]) for index, _, _ in self._related])
        targets = [flat[argument] for argument, _ in self.call.updates] if self._updated else []
        sent: list[Any] = []
        if send and self._senders:
            for index, sender in self._senders:
                value = flat[index]
                flat[index] = sender(value)
                if flat[index] is not value:
                    sent.append(value)
        return self._pack(flat), targets, sent

    def _normalized(
        self, args: tuple[Any, ...], kwargs: Mapping[str, Any]
    ) -> tuple[tuple[Any, ...], Mapping[str, Any]]:
        """The positional values and keywords of a call that gives keywords, or not
        exactly the positional values: extra positional values named by their keyword
        (each unexpected or missing value an `AbiError`)."""
        count = len(self._positional)
        if self.call.by_name:
            args, kwargs = self._by_name(args, kwargs)
        if len(args) > count and self.call.keyword_only:
            raise AbiError(
                f"argument {count}: unexpected positional argument (the function takes "
                f"{count} positional argument{'' if count == 1 else 's'})"
            )
        if len(args) > count:
            extra = args[count:]
            if len(extra) > len(self._names):
                position = count + len(self._names)
                raise AbiError(
                    f"argument {position}: unexpected positional argument (the function takes "
                    f"{position} positional argument{'' if position == 1 else 's'})"
                )
            for name in self._names[: len(extra)]:
                if name in kwargs:
                    raise AbiError(f"argument {name!r}: given both positionally and by keyword")
            kwargs = {**dict(zip(self._names, extra, strict=False)), **kwargs}
            args = args[:count]
        unexpected = [name for name in kwargs if name not in self._keywords]
        if unexpected:
            # A keyword no parameter has comes before a missing value (`f(x=…, z=…)`
            # names `z`, not the positional `x`).
            unknown = [name for name in unexpected if name not in self._labels]
            if unknown or len(args) >= count:
                names = ", ".join(repr(n) for n in self._names)
                takes = f"keywords: {names}" if names else "it takes no keywords"
                name = (unknown or unexpected)[0]
                raise AbiError(f"argument {name!r}: unexpected keyword argument ({takes})")
        if len(args) < count:
            raise AbiError(f"{format_path('argument', self._labels[len(args)], ())}: missing value")
        return args, kwargs

    def _by_name(
        self, args: tuple[Any, ...], kwargs: Mapping[str, Any]
    ) -> tuple[tuple[Any, ...], Mapping[str, Any]]:
        """``args`` and ``kwargs`` with the positional parameters given by keyword (their
        labels) moved to their positions, as Python binds a positional-or-keyword
        parameter; each filled once."""
        labels = [str(label) for label in self._labels]
        for name in labels[: len(args)]:
            if name in kwargs:
                raise AbiError(f"argument {name!r}: given both positionally and by keyword")
        named = [name for name in labels[len(args) :] if name in kwargs]
        if not named:
            return args, kwargs
        given = list(args)
        for name in labels[len(args) :]:
            if name not in kwargs:
                break  # the first one missing is reported as missing
            given.append(kwargs[name])
        rest = {name: value for name, value in kwargs.items() if name not in labels[: len(given)]}
        return tuple(given), rest

    def _argument(
        self, node: CallNode, root: IndexPathComponent, given: list[int]
    ) -> Callable[[Any, list[Any]], None]:
        """The converter of one root: checks a value, puts its leaves in ``flat``."""
        return self._node(node, given, [root])

    def _node(
        self, node: CallNode, given: list[int], path: list[IndexPathComponent]
    ) -> Callable[[Any, list[Any]], None]:
        if isinstance(node, Array):
            index = node.index
            given.append(index)
            convert = self._leaf(node)
            if any(not isinstance(dim, int) and dim is not None for dim in node.dims or ()):
                assert node.dims is not None
                where = format_path("argument", path[0], path[1:])
                self._related.append((index, where, node.dims))

            if index in self._updated:
                assert self._target is not None
                target = self._target(node)
                self.updated_paths[index] = format_path("argument", path[0], path[1:])

                def updated(value: Any, flat: list[Any]) -> None:
                    flat[index] = target(value, convert(value))

                return updated

            sender = self._send(node) if self._send is not None else None
            if sender is not None:
                self._senders.append((index, sender))

            def array(value: Any, flat: list[Any]) -> None:
                flat[index] = convert(value)

            return array
        if isinstance(node, Unused):
            check = self._unused(node) if self._unused is not None else None
            if check is None:
                return _ignore

            def unused(value: Any, flat: list[Any]) -> None:
                check(value)  # the framework checks it as any other argument

            return unused
        if isinstance(node, NoneLeaf):
            return _none
        if isinstance(node, Constant):
            return _constant(node)
        children = [
            self._node(child, given, [*path, path_component(node, position)])
            for position, child in enumerate(node.children)
        ]
        keys = [path_component(node, position) for position in range(len(node.children))]
        return _container(node, children, keys)

    # -- results -----------------------------------------------------------------------

    def results(self, values: SequenceABC[Any]) -> Any:
        """The original result of the values the VM's result readers gave."""
        flat: list[Any] = [None] * self._result_count
        for template, value in zip(self._results, values, strict=True):
            _scatter(template, value, flat)
        return self._rebuild(flat)

    def rebuild(self, flat: list[Any], sent: SequenceABC[Any] = ()) -> Any:
        """The original result of the result leaves, by their index in the records.
        ``sent``: the arguments sent in place (`bind`); a result array in the memory of
        one (a function returning an argument as it is) is copied, so that a result
        never shares the memory of what the caller passed."""
        if sent:
            _unshare(flat, sent)
        return self._rebuild(flat)

    def _unflattened(self, unflatten: Unflatten) -> Callable[[list[Any]], Any]:
        """The result as the framework's own ``unflatten`` gives it from the arrays."""
        getters = [self._result(array, []) for array in _array_order(self.call.result)]
        return lambda flat: unflatten([get(flat) for get in getters])

    def _result(self, node: CallNode, leaves: list[int]) -> Callable[[list[Any]], Any]:
        if isinstance(node, Array):
            index = node.index
            leaves.append(index)
            transform = None if self._leaf_result is None else self._leaf_result(node)
            if transform is None:
                return lambda flat: flat[index]
            return lambda flat: transform(flat[index])
        if isinstance(node, Constant):
            value = constant_value(node)
            return lambda flat: value
        if not isinstance(node, Container):
            return lambda flat: None
        children = [self._result(child, leaves) for child in node.children]
        kind, keys = node.kind, node.keys
        own = self._types.get(node.name) if node.name is not None else None
        if kind == "list":
            return lambda flat: [child(flat) for child in children]
        if kind == "dict" and own is None and all(isinstance(c, Array) for c in node.children):
            arrays = [c for c in node.children if isinstance(c, Array)]
            leaf_result = self._leaf_result
            return _leaf_dict(
                keys,
                [array.index for array in arrays],
                [None if leaf_result is None else leaf_result(array) for array in arrays],
            )
        if kind == "dict":
            if own is not None:
                return lambda flat: own({k: c(flat) for k, c in zip(keys, children, strict=True)})
            return lambda flat: {k: c(flat) for k, c in zip(keys, children, strict=True)}
        fields = tuple(str(key) for key in keys)
        if kind == "model_output":
            cls = own or _model_output_type(node.name or "ModelOutput", fields)
            return lambda flat: cls(**{n: c(flat) for n, c in zip(fields, children, strict=True)})
        static = {name: _static_value(value) for name, value in node.static}
        if own is not None and fields and kind in ("dataclass", "node"):
            missing = _missing_fields(own, (*fields, *static))
            if missing:
                listed = ", ".join(missing)
                given = ", ".join(f"{name}=…" for name in missing)
                raise TypesError(
                    f"types: {node.name} takes the fields {listed}, which are not values of "
                    f"the call (static fields the file does not hold); give them "
                    f"with types={{{node.name!r}: functools.partial({node.name}, {given})}}"
                )
        if kind == "namedtuple" or (kind == "node" and own is not None and not fields):
            cls = own or _rebuilt("namedtuple", node.name or "Record", fields)
            return lambda flat: cls(*[child(flat) for child in children])
        if kind in ("dataclass", "node") and fields:
            if own is None:
                cls = _rebuilt("dataclass", node.name or "Record", fields)
                names = [f.name for f in dataclasses.fields(cls)]
            else:
                cls, names = own, list(fields)
                if static:
                    return lambda flat: cls(
                        **{n: c(flat) for n, c in zip(names, children, strict=True)}, **static
                    )
            return lambda flat: cls(**{n: c(flat) for n, c in zip(names, children, strict=True)})
        return lambda flat: tuple([child(flat) for child in children])


def _unshare(flat: list[Any], sent: SequenceABC[Any]) -> None:
    """Each host array (or torch tensor) of ``flat`` whose data lies in the memory of a
    host array of ``sent``, replaced by a copy."""
    spans = [
        (start, start + array.nbytes)
        for array in sent
        for start in (array.__array_interface__["data"][0],)
    ]
    for position, value in enumerate(flat):
        interface = getattr(value, "__array_interface__", None)
        if interface is not None:
            address = interface["data"][0]
            if any(start <= address < end for start, end in spans):
                flat[position] = value.copy()
        elif callable(getattr(value, "data_ptr", None)):  # a tensor read from its buffer
            address = value.data_ptr()
            if any(start <= address < end for start, end in spans):
                flat[position] = value.clone()


def _shape(value: Any) -> tuple[int, ...]:
    """A packed leaf's shape: its ``.shape``, or, for a value the records' packer passes on
    as it is (nested lists, beside a record IREE's packer cannot take), the shape the
    records read in it."""
    shape = getattr(value, "shape", None)
    if shape is None:
        shape = value_shape(value)
    return () if shape is None else tuple(int(size) for size in shape)


def path_component(node: Container, position: int) -> IndexPathComponent:
    """The path component of a container's child: a field (``.name``), a key, or a
    position (as the errors write paths)."""
    if node.kind in ("namedtuple", "dataclass") or (node.kind == "node" and node.keys):
        return Field(str(node.keys[position]))
    if node.kind in ("dict", "model_output"):
        return node.keys[position]
    return position


def _ignore(value: Any, flat: list[Any]) -> None:
    return None


def _none(value: Any, flat: list[Any]) -> None:
    if value is not None:
        raise Mismatch(f"expected None, got {type_name(value)}")


def _constant(node: Constant) -> Callable[[Any, list[Any]], None]:
    shown = node.text if node.text is not None else show_value(node.value)

    def constant(value: Any, flat: list[Any]) -> None:
        if type(value).__name__ == node.type and (
            show_value(value) == node.text if node.text is not None else value == node.value
        ):
            return
        raise Mismatch(
            f"expected {shown} (the value the program was exported with), got {show_value(value)}"
        )

    return constant


def _describe(node: Container) -> str:
    count = len(node.children)
    if node.kind == "dict":
        return f"a dict with keys {keys_text(node.keys)}"
    if node.kind == "model_output":
        keys = [
            key
            for key, child in zip(node.keys, node.children, strict=True)
            if not isinstance(child, NoneLeaf)
        ]
        return f"a {node.name} with keys {keys}"
    if node.kind in ("tuple", "list"):
        return f"a {node.kind} of {plural(count, 'value')}"
    article = "an" if (node.name or "x")[0] in "AEIOUaeiou" else "a"
    if node.keys:
        return f"{article} {node.name} with fields {list(node.keys)}"
    return f"{article} {node.name} of {plural(count, 'value')}"


def keys_text(keys: Iterable[Any]) -> str:
    """``['a', 'b']``; keys that are not strings with their types, ``[1, 2] (int)``, so
    that ``1`` and ``'1'`` are told apart."""
    shown = {key: key if isinstance(key, str) else show_value(key) for key in keys}
    found = sorted(shown, key=shown.__getitem__)
    text = "[" + ", ".join(repr(key) if isinstance(key, str) else shown[key] for key in found) + "]"
    others = sorted({type(key).__name__ for key in found if not isinstance(key, str)})
    return f"{text} ({', '.join(others)})" if others else text


def _container(
    node: Container,
    children: list[Callable[[Any, list[Any]], None]],
    keys: list[IndexPathComponent],
) -> Callable[[Any, list[Any]], None]:
    count = len(children)
    pairs = list(zip(keys, children, strict=True))

    def walk(items: Iterable[Any], flat: list[Any]) -> None:
        done = 0
        try:
            for child, item in zip(children, items, strict=True):
                child(item, flat)
                done += 1
        except Mismatch as mismatch:
            mismatch.inside(keys[done])
            raise

    if node.kind == "dict":
        key_set = set(node.keys)

        def mapping(value: Any, flat: list[Any]) -> None:
            if type(value) is dict:  # the common case: no ABC check
                if len(value) != count or value.keys() != key_set:
                    raise Mismatch(f"expected {_describe(node)}, got keys {keys_text(value)}")
            elif not isinstance(value, Mapping):
                raise Mismatch(f"expected {_describe(node)}, got {type_name(value)}")
            elif len(value) != count or not all(key in value for key in key_set):
                raise Mismatch(f"expected {_describe(node)}, got keys {keys_text(value)}")
            for key, child in pairs:
                try:
                    child(value[key], flat)
                except Mismatch as mismatch:
                    mismatch.inside(key)
                    raise

        return mapping
    if node.kind == "model_output":
        return _model_output_argument(node, pairs, walk)
    fields = [str(key) for key in node.keys]
    by_position = node.kind in ("tuple", "list", "namedtuple") or not fields

    def sequence(value: Any, flat: list[Any]) -> None:
        if fields and (not isinstance(value, (tuple, list)) or hasattr(value, "_fields")):
            items = _registered_children(value, fields) if node.kind == "node" else None
            if items is None:
                try:
                    items = [getattr(value, name) for name in fields]
                except AttributeError:
                    raise Mismatch(f"expected {_describe(node)}, got {type_name(value)}") from None
            walk(items, flat)
            return
        if (
            not by_position
            or isinstance(value, _NOT_SEQUENCES)
            or not isinstance(value, SequenceABC)
        ):
            raise Mismatch(f"expected {_describe(node)}, got {type_name(value)}")
        if len(value) != count:
            raise Mismatch(
                f"expected {_describe(node)}, got a {type_name(value)} of {plural(len(value), 'value')}"
            )
        walk(value, flat)

    return sequence


def _registered_children(value: Any, fields: list[str]) -> list[Any] | None:
    """The children of a JAX pytree node read as JAX flattens it, when JAX is imported and
    its keys are ``fields`` (None otherwise: read as attributes). A flax nnx `Variable`'s
    ``.value`` is deprecated (reading it warns on every call); its flattening is not."""
    jax = sys.modules.get("jax")
    if jax is None or type(value) in (dict, list, tuple):
        return None
    try:
        children, _ = jax.tree_util.tree_flatten_with_path(value, is_leaf=lambda x: x is not value)
    except Exception:  # whatever a registered flatten raises: read as attributes
        return None
    names = [getattr(path[0], "name", None) if len(path) == 1 else None for path, _ in children]
    return [child for _, child in children] if names == fields else None


def _model_output_argument(
    node: Container,
    pairs: list[tuple[IndexPathComponent, Callable[[Any, list[Any]], None]]],
    walk: Callable[[Iterable[Any], list[Any]], None],
) -> Callable[[Any, list[Any]], None]:
    """A ``ModelOutput`` argument: a mapping with exactly its keys (the fields that are
    not None), or an object with its fields."""
    keys = [str(key) for key in node.keys]
    held = {
        key
        for key, child in zip(node.keys, node.children, strict=True)
        if not isinstance(child, NoneLeaf)
    }

    def model_output(value: Any, flat: list[Any]) -> None:
        if isinstance(value, Mapping):
            if set(value) != held:
                raise Mismatch(f"expected {_describe(node)}, got keys {sorted(map(str, value))}")
            for key, child in pairs:
                try:
                    child(value.get(key), flat)
                except Mismatch as mismatch:
                    mismatch.inside(key)
                    raise
            return
        try:
            items = [getattr(value, key) for key in keys]
        except AttributeError:
            raise Mismatch(f"expected {_describe(node)}, got {type_name(value)}") from None
        walk(items, flat)

    return model_output
