"""Adopting TensorFlow saved-model exports (docs/spec.md §6), done by both lowering passes.

The runtime-visible function takes its single exported name, `tf_saved_model.index_path`
becomes `abi.index_path` (flat order kept), `tf_saved_model.*` attributes go, public
functions without exported names (or with `exported_names = []`, which TensorFlow exports
under no name) become private, every use of a renamed symbol is redirected, and the
module loses `tf_saved_model.semantics`. An empty exported name (`[""]`) is an error.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.dialects.func import CallOp, FuncOp
from xdsl.ir import Attribute, Operation
from xdsl.traits import SymbolTable

from abi_compiler.attribute_names import ABI_INDEX_PATH
from abi_compiler.dialects import tf_saved_model
from abi_compiler.errors import AbiError
from abi_compiler.identity import IdentityCache
from abi_compiler.ir import changes
from abi_compiler.passes.structure import (
    check_bound_inputs,
    compact_value_attrs,
    functions,
)

_PREFIX = "tf_saved_model."


def _adopt_value_attrs(attrs: ArrayAttr[DictionaryAttr] | None) -> ArrayAttr[DictionaryAttr] | None:
    if attrs is None:
        return None
    adopted = []
    for attr in attrs.data:
        entries = {}
        for key, value in attr.data.items():
            if key == tf_saved_model.INDEX_PATH:
                entries[ABI_INDEX_PATH] = value
            elif not key.startswith(_PREFIX):
                entries[key] = value
        adopted.append(DictionaryAttr(dict(sorted(entries.items()))))
    return compact_value_attrs(ArrayAttr(adopted))


def rename_functions(module: ModuleOp, renames: list[tuple[FuncOp, str]]) -> None:
    """Rename each function and redirect every use of its symbol to it — `func.call`s and
    any other op's attributes or properties (`tf_saved_model.session_initializer
    {initializers = [@f]}`, a generic `func.constant @f`), also inside arrays and
    dictionaries — in one walk of the module (a walk per function would make a pass
    quadratic in the module size). The uses are those of the module's symbol table: a
    nested symbol table (a nested `builtin.module`) resolves its own names, and is left
    alone."""
    redirected: dict[str, StringAttr] = {}
    for func, new_name in renames:
        redirected[func.sym_name.data] = StringAttr(new_name)
        func.sym_name = StringAttr(new_name)
    if not redirected:
        return
    changes.changed_everything()  # uses anywhere in the module are redirected
    # Parsed IR shares its attribute objects (one per distinct text): each is looked at
    # once.
    seen: IdentityCache[Attribute | None] = IdentityCache()
    for op in _table_ops(module):
        if isinstance(op, CallOp):
            callee = op.callee
            new = redirected.get(callee.root_reference.data)
            if new is not None:
                op.callee = SymbolRefAttr(new, callee.nested_references)
            continue
        for table in (op.attributes, op.properties):
            for key, value in list(table.items()):
                if isinstance(value, (SymbolRefAttr, ArrayAttr, DictionaryAttr)):
                    found, replaced = seen.get(value)
                    if not found:
                        replaced = seen.put(_redirect(value, redirected), value)
                    if replaced is not None:
                        table[key] = replaced


def _table_ops(table: Operation) -> Iterator[Operation]:
    """The ops inside ``table`` whose flat symbol references resolve in it: all but those
    inside a nested symbol table (whose own attributes are still the outer table's)."""
    stack = [table]
    while stack:
        for region in stack.pop().regions:
            for block in region.blocks:
                for op in block.ops:
                    yield op
                    if not op.has_trait(SymbolTable, value_if_unregistered=False):
                        stack.append(op)


def _redirect(attr: Attribute, redirected: dict[str, StringAttr]) -> Attribute | None:
    """``attr`` with every symbol reference to a renamed function redirected; None when
    nothing in it changes."""
    if isinstance(attr, SymbolRefAttr):
        new = redirected.get(attr.root_reference.data)
        return None if new is None else SymbolRefAttr(new, attr.nested_references)
    if isinstance(attr, ArrayAttr):
        items = [_redirect(item, redirected) for item in attr.data]
        if all(item is None for item in items):
            return None
        return ArrayAttr(
            [old if new is None else new for old, new in zip(attr.data, items, strict=True)]
        )
    if isinstance(attr, DictionaryAttr):
        entries = {key: _redirect(value, redirected) for key, value in attr.data.items()}
        if all(value is None for value in entries.values()):
            return None
        return DictionaryAttr(
            {key: attr.data[key] if new is None else new for key, new in entries.items()}
        )
    return None


def symbol_names(module: ModuleOp) -> set[str]:
    names = set()
    for op in module.body.ops:
        name = op.properties.get("sym_name") or op.attributes.get("sym_name")
        if isinstance(name, StringAttr):
            names.add(name.data)
    return names


def adopt_saved_model_exports(module: ModuleOp) -> None:
    if tf_saved_model.SEMANTICS not in module.attributes:
        return
    changes.changed_everything()
    taken = symbol_names(module)
    renames: list[tuple[FuncOp, str]] = []
    for func in functions(module):
        names = func.attributes.get(tf_saved_model.EXPORTED_NAMES)
        if names is not None:
            check_bound_inputs(func)
            if not isinstance(names, ArrayAttr) or not all(
                isinstance(name, StringAttr) for name in names.data
            ):
                raise AbiError(
                    f"{tf_saved_model.EXPORTED_NAMES} must be an array of strings", op=func
                )
            if len(names.data) > 1:
                raise AbiError("Multiple exported names not supported yet", op=func)
            if not names.data and (
                func.sym_visibility is None or func.sym_visibility.data == "public"
            ):
                # TensorFlow exports the function under no name: not exported.
                func.sym_visibility = StringAttr("private")
            if names.data:
                exported = names.data[0].data
                if not exported:
                    raise AbiError(
                        f"{tf_saved_model.EXPORTED_NAMES} must not contain an empty name",
                        op=func,
                    )
                if exported != func.sym_name.data:
                    if exported in taken:
                        raise AbiError(f"symbol @{exported} already exists", op=func)
                    taken.discard(func.sym_name.data)
                    renames.append((func, exported))
                    taken.add(exported)
            del func.attributes[tf_saved_model.EXPORTED_NAMES]
        elif func.sym_visibility is None or func.sym_visibility.data == "public":
            func.sym_visibility = StringAttr("private")
        func.arg_attrs = _adopt_value_attrs(func.arg_attrs)
        func.res_attrs = _adopt_value_attrs(func.res_attrs)
    rename_functions(module, renames)
    del module.attributes[tf_saved_model.SEMANTICS]
