"""A `jax.export.Exported` → MLIR whose `main` takes the original call (docs/spec.md §3.4).

The text of an export (`exported.mlir_module()`) names each flat argument and result by
its pytree path (docs/spec.md §3.3), but cannot say everything: tuple or list, which arguments
were keywords, `None` leaves and empty containers (JAX writes no value for them),
arguments JAX dropped as unused. The `Exported` object has it all: `in_tree` (the
`(args, kwargs)` pytree of the call), `out_tree`, `module_kept_var_idx` (which flat
arguments the module takes), `in_avals`/`out_avals`, `platforms` and `ordered_effects`.

`to_mlir(exported)` writes that structure onto the module's public `@main`: an
`abi.index_path` on every argument and result (docs/spec.md §3.2) and the `iree.abi` it implies
(docs/spec.md §4), so that `-p iree-abi-v1` gives `main` these roots and records:

* the platform index of a multi-platform export and the effect tokens first (positional);
* each positional parameter with a leaf the module takes: a positional root, in order;
* each keyword argument with such a leaf: a `named` root, after them (JAX's sorted order);
* `tuple`, namedtuple → `stuple`; `list` → `slist`; a dict with string keys → `sdict`;
  any other pytree node (a dict with other keys, a registered class) → `stuple` of its
  children in JAX's order; a `None` leaf, an empty container and an unused argument have
  no record (a container that holds nothing else is left out too).

Results: the same mapping from `out_tree`, one root node (a single array result is a
leaf; docs/spec.md §4.2 inlines a structure).

`program(exported)` also writes the original call (`abi.call`, docs/formats.md) that a
module compiled from it (`abi_compiler.iree.compile(exported)`, or its `.vmfb` loaded
anywhere) gives `main`: it takes the original call — `main(*args, **kwargs)` with
the original pytrees, unused arguments checked as JAX checks them and dropped — checks its structure, shapes
and dtypes against the export (errors name the original path:
`argument params['dense']: expected a dict with keys ['bias', 'kernel'], got keys
['bias']`), the ranges of Python ints by the avals' dtypes and the relations between
symbolic dims (`abi_compiler.calling.dims`, read from the avals and their scope's
constraints), passes the platform index, and rebuilds the original result pytree (same
containers, namedtuples, `None` where JAX returned `None`) with numpy arrays of the
avals' dtypes at the leaves (an unsigned result reads from its signless record as
unsigned). In memory (`compile(exported)`), the result is built by the export's own
`out_tree` (`Program.unflatten`): the exporter's classes with their static fields, as
`Exported.call` returns them; a dataclass's static fields of JSON values are recorded in
`abi.call` for a caller's class loaded from a file.

JAX is an optional dependency: importing this module without it raises an ImportError
that says what to install. The rewriting uses the MLIR Python bindings that ship with
jaxlib, so the text is printed by MLIR itself, locations and all.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

try:
    import jax
    from jax import tree_util
    from jax._src.interpreters import mlir as jax_mlir
    from jax._src.lib.mlir import ir
except ImportError as _error:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        "abi_compiler.frontends.jax needs JAX (jax and jaxlib, 0.4.14 or newer): "
        "pip install 'abi-compiler[jax]'"
    ) from _error

import numpy as np

from abi_compiler.attribute_names import (
    ABI_CALL,
    ABI_INDEX_PATH,
    IREE_ABI,
    JAX_ARG_INFO,
    REFLECTION,
)
from abi_compiler.call_model import (
    Array,
    CallNode,
    Constant,
    Container,
    Dim,
    DimConstraint,
    NoneLeaf,
    OriginalCall,
    Symbol,
    Terms,
    Unused,
)
from abi_compiler.codecs.call_json import constant, encode_call, format_terms
from abi_compiler.codecs.jax_paths import parse_arg_info
from abi_compiler.codecs.json_abi import encode_json
from abi_compiler.dtypes import scalar_for_numpy
from abi_compiler.errors import AbiError
from abi_compiler.frontends import Program
from abi_compiler.frontends.jax_bounds import bound_indexing
from abi_compiler.frontends.jax_rewrites import for_iree, mark_nonexpanding_broadcasts
from abi_compiler.frontends.pytree import record_order
from abi_compiler.model import (
    Argument,
    Dict,
    IndexPath,
    IndexPathComponent,
    Leaf,
    NDArray,
    Node,
    Scalar,
    Sequence,
    Signature,
    Unknown,
    ValueType,
)
from abi_compiler.text import carry
from abi_compiler.text.name_locations import LocationAliases, location_name

__all__ = ["mark_nonexpanding_broadcasts", "program", "result_unflatten", "to_mlir"]

# The attributes written on `@main` (docs/spec.md §3.2, §7: a bare `iree.abi` is moved into
# `iree.reflection` by the pipeline).
MAIN = "main"
# The platform `abi_compiler.iree` compiles for.
CPU = "cpu"


# --------------------------------------------------------------------------------------
# Pytrees: JAX's treedefs as skeletons whose leaves are their flat indices.
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Slot:
    """A leaf of a skeleton: its flat index in the treedef."""

    index: int


def _skeleton(treedef: Any) -> Any:
    """The pytree ``treedef`` describes, with a `_Slot` at each leaf."""
    return tree_util.tree_unflatten(treedef, [_Slot(i) for i in range(treedef.num_leaves)])


def _children(node: Any) -> list[tuple[Any, Any]] | None:
    """The children of a pytree node with the key each has in the original (an int for
    sequences and registered nodes, the dict key for dicts); None for a leaf or None."""
    if node is None or isinstance(node, _Slot):
        return None
    if isinstance(node, Mapping):
        return list(node.items())
    if isinstance(node, (tuple, list)):
        return list(enumerate(node))
    flat, _ = tree_util.tree_flatten(node, is_leaf=lambda x: x is not node)
    return list(enumerate(flat))


def _kind(node: Any) -> str:
    """How a node's record is written: "list", "tuple" or "dict"."""
    if isinstance(node, list):
        return "list"
    if isinstance(node, Mapping) and all(isinstance(key, str) for key in node):
        return "dict"
    return "tuple"


@dataclass(frozen=True)
class _Pruned:
    """A pytree node with the leaves the module takes: ``kind`` "leaf" (``index``: flat
    index in the treedef) or a structure (``items``: (key in the compiled structure, key
    in the original, child))."""

    kind: str
    index: int = -1
    items: tuple[tuple[IndexPathComponent, Any, _Pruned], ...] = ()


def _prune(node: Any, kept: Callable[[int], bool]) -> _Pruned | None:
    """``node`` without `None`, empty containers and leaves not kept; None when nothing
    is left. Sequences are renumbered, dicts keep their keys."""
    if isinstance(node, _Slot):
        return _Pruned("leaf", node.index) if kept(node.index) else None
    children = _children(node)
    if not children:
        return None
    kind = _kind(node)
    items: list[tuple[IndexPathComponent, Any, _Pruned]] = []
    for key, child in children:
        pruned = _prune(child, kept)
        if pruned is not None:
            items.append((key if kind == "dict" else len(items), key, pruned))
    return _Pruned(kind, items=tuple(items)) if items else None


def _leaf_paths(node: _Pruned, prefix: IndexPath) -> list[tuple[int, IndexPath]]:
    """(flat index in the treedef, index path) of every leaf below ``node``."""
    if node.kind == "leaf":
        return [(node.index, prefix)]
    return [found for key, _, child in node.items for found in _leaf_paths(child, (*prefix, key))]


def _model(node: _Pruned, types: Callable[[int], tuple[ValueType, int]]) -> Node:
    """The ABI model node of ``node``; ``types`` gives a leaf's value type and its
    position among the module's values."""
    if node.kind == "leaf":
        value_type, position = types(node.index)
        return Leaf(value_type, position)
    children = [(key, _model(child, types)) for key, _, child in node.items]
    if node.kind == "dict":
        return Dict.sorted([(str(key), child) for key, child in children])
    return Sequence("list" if node.kind == "list" else "tuple", tuple(c for _, c in children))


# --------------------------------------------------------------------------------------
# Value types of the export's avals (as `passes.structure.value_type` reads the types
# JAX writes for them).
# --------------------------------------------------------------------------------------


def _is_key(dtype: Any) -> bool:
    """A typed PRNG key's extended dtype (``key<fry>``, as `jax.random.key` makes): not
    numpy's. The module holds a key array as its data (`jax.random.key_data`: ``uint32``,
    the key's shape and the implementation's own trailing dims)."""
    return str(dtype).startswith("key<")


@functools.cache
def _key_data_dims(dtype: Any) -> tuple[int, ...]:
    """The trailing dims a key of ``dtype`` has as data: ``(2,)`` for threefry."""
    return tuple(jax.eval_shape(jax.random.key_data, jax.ShapeDtypeStruct((), dtype)).shape)


def _element(dtype: Any) -> ValueType:
    if _is_key(dtype):
        dtype = np.dtype(np.uint32)
    dtype = np.dtype(dtype)
    scalar = scalar_for_numpy(dtype.name, dtype.kind, dtype.itemsize)
    if scalar is not None:
        return scalar
    if dtype.name.startswith("float8"):  # (ml_dtypes' kind "V"): as JAX writes f8 types
        return Scalar("f", dtype.itemsize * 8)
    return Unknown()


def _aval_type(aval: Any) -> ValueType:
    """A `ShapedArray`'s value type: symbolic dims are dynamic."""
    dims = tuple(d if isinstance(d, int) else None for d in aval.shape)
    if _is_key(aval.dtype):
        dims += _key_data_dims(aval.dtype)
    return NDArray(_element(aval.dtype), dims)


# --------------------------------------------------------------------------------------
# The export's calling convention.
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Convention:
    """What `to_mlir` writes and the adapter needs, read from an `Exported`."""

    #: Index path of each `@main` argument and result, in order.
    argument_paths: tuple[IndexPath, ...]
    result_paths: tuple[IndexPath, ...]
    signature: Signature
    #: The pruned positional parameters and keyword arguments (None: nothing kept).
    positional: tuple[_Pruned | None, ...]
    keywords: tuple[tuple[str, _Pruned], ...]
    result: _Pruned | None
    #: Special leading arguments of `@main` (platform index, tokens) and token results.
    platform_index: bool
    tokens: int


def _platforms(exported: Any) -> tuple[str, ...]:
    found = getattr(exported, "platforms", None)
    if found is None:  # JAX before 0.4.27
        found = exported.lowering_platforms
    return tuple(found)


def _convention(exported: Any) -> _Convention:
    args, kwargs = _skeleton(exported.in_tree)
    kept_indices = set(exported.module_kept_var_idx)
    in_avals = tuple(exported.in_avals)
    out_avals = tuple(exported.out_avals)
    platform_index = len(_platforms(exported)) > 1
    tokens = len(exported.ordered_effects)
    specials = int(platform_index) + tokens
    # Each kept flat argument's position among `@main`'s arguments.
    position = {index: specials + k for k, index in enumerate(sorted(exported.module_kept_var_idx))}
    positional = tuple(_prune(arg, kept_indices.__contains__) for arg in args)
    keywords = tuple(
        (str(key), pruned)
        for key, value in kwargs.items()
        if (pruned := _prune(value, kept_indices.__contains__)) is not None
    )
    argument_paths: list[IndexPath] = [(k,) for k in range(specials)]
    arguments: list[Argument] = []
    if platform_index:
        arguments.append(Argument(0, Leaf(NDArray(Scalar("i", 32), ()), 0)))
    arguments += [Argument(k, Leaf(Unknown(), k)) for k in range(int(platform_index), specials)]
    by_position: dict[int, IndexPath] = {}

    def argument_type(index: int) -> tuple[ValueType, int]:
        return _aval_type(in_avals[index]), position[index]

    for p, pruned in enumerate(positional):
        if pruned is None:
            continue
        key = specials + p
        for index, path in _leaf_paths(pruned, (key,)):
            by_position[position[index]] = path
        arguments.append(Argument(len(arguments), _model(pruned, argument_type)))
    for name, pruned in keywords:
        for index, path in _leaf_paths(pruned, (name,)):
            by_position[position[index]] = path
        arguments.append(Argument(len(arguments), _model(pruned, argument_type), name))
    argument_paths += [by_position[p] for p in range(specials, specials + len(position))]

    result = _prune(_skeleton(exported.out_tree), lambda index: True)
    result_paths: list[IndexPath] = [(k,) for k in range(tokens)]
    prefix: IndexPath = (tokens,) if tokens else ()
    results: tuple[Node, ...] = ()
    if result is not None:
        result_paths += [path for _, path in _leaf_paths(result, prefix)]

        def result_type(index: int) -> tuple[ValueType, int]:
            return _aval_type(out_avals[index]), tokens + index

        root = _model(result, result_type)
        if tokens:
            token_leaves = tuple(Leaf(Unknown(), k) for k in range(tokens))
            root = Sequence("tuple", (*token_leaves, root))
        results = (root,)
    elif tokens:
        results = (Sequence("tuple", tuple(Leaf(Unknown(), k) for k in range(tokens))),)
    return _Convention(
        tuple(argument_paths),
        tuple(result_paths),
        Signature(tuple(arguments), results),
        positional,
        keywords,
        result,
        platform_index,
        tokens,
    )


def _path_attr(path: IndexPath) -> Any:
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get(
        [ir.StringAttr.get(c) if isinstance(c, str) else ir.IntegerAttr.get(i64, c) for c in path]
    )


def _entries(attrs: Any) -> dict[str, Any]:
    """The attributes of a dictionary attribute, by name (the bindings' `DictAttr` is
    indexed, not iterated)."""
    dictionary = ir.DictAttr(attrs)
    return {dictionary[i].name: dictionary[i].attr for i in range(len(dictionary))}


def _with_path(attrs: Any, path: IndexPath) -> Any:
    entries = _entries(attrs)
    entries[ABI_INDEX_PATH] = _path_attr(path)
    return ir.DictAttr.get(entries)


def _main_function(module: Any) -> Any:
    for op in module.body.operations:
        if "sym_name" in op.attributes and ir.StringAttr(op.attributes["sym_name"]).value == MAIN:
            return op
    raise ValueError("the export's module has no @main")


def _rewrite(
    exported: Any, convention: _Convention, platform: str, refused: list[str] | None = None
) -> tuple[str, OriginalCall | None]:
    """The module text with the structure written on `@main` (and its original call,
    unless effect tokens cross its boundary: IREE cannot load such a module), and that
    call. The diagnostics of `for_iree` (`abi_compiler.frontends.jax_rewrites`) go to ``refused``."""
    text = exported.mlir_module()
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)
        found = for_iree(module)
        bound_indexing(module)
        if refused is not None:
            refused.extend(found)
        main = _main_function(module)
        arguments = list(main.arguments)
        if len(arguments) != len(convention.argument_paths):
            raise ValueError(
                f"@main takes {len(arguments)} arguments, the Exported object describes "
                f"{len(convention.argument_paths)}"
            )
        names = _argument_names(text, main)
        main.arg_attrs = ir.ArrayAttr.get(
            [
                _with_path(a, p)
                for a, p in zip(main.arg_attrs, convention.argument_paths, strict=True)
            ]
        )
        main.result_attrs = ir.ArrayAttr.get(
            [
                _with_path(a, p)
                for a, p in zip(main.result_attrs, convention.result_paths, strict=True)
            ]
        )
        main.attributes[IREE_ABI] = ir.StringAttr.get(encode_json(convention.signature))
        call = None
        if not convention.tokens and (
            not convention.platform_index or platform in _platforms(exported)
        ):
            call = _original_call(exported, convention, names, platform)
            entries = {}
            if REFLECTION in main.attributes:
                entries = _entries(main.attributes[REFLECTION])
            entries[ABI_CALL] = ir.StringAttr.get(encode_call(call))
            main.attributes[REFLECTION] = ir.DictAttr.get(entries)
        return str(module.operation.get_asm(enable_debug_info=True)), call


def _argument_names(text: str, main: Any) -> tuple[str | None, ...]:
    """The name of each `@main` argument as the export writes it: its `jax.arg_info`
    (JAX before 0.4.14), else its name location, read from the text as `abi-opt` reads
    it (the MLIR bindings of older jaxlibs do not give block arguments' locations).
    None where there is neither."""
    count = len(list(main.arguments))
    locations: list[str | None] = [None] * count
    try:
        layout = carry.scan(text)
    except carry.ScanError:
        layout = None
    if layout is not None:
        aliases = LocationAliases(text, layout.prologue + layout.epilogue)
        for item in layout.ops:
            if (
                isinstance(item, carry.FuncText)
                and item.name == MAIN
                and item.visibility in (None, "public")
            ):
                found = [
                    None if at is None else location_name(text, at[0], aliases)
                    for at in item.arg_locs
                ]
                if len(found) == count:
                    locations = found
                break
        wrapped = next(
            (
                item
                for item in layout.ops
                if isinstance(item, carry.FuncText) and item.name == _WRAPPED_MAIN
            ),
            None,
        )
        if wrapped is not None:
            # A shape-polymorphic export's `@main` (its arguments `loc(unknown)`) calls the
            # function with the names after the dimension variables it computes.
            for position, argument in enumerate(_wrapped_call_arguments(main)):
                if argument is not None and locations[argument] is None:
                    at = wrapped.arg_locs[position] if position < len(wrapped.arg_locs) else None
                    if at is not None:
                        locations[argument] = location_name(text, at[0], aliases)
    names: list[str | None] = []
    for attrs, location in zip(main.arg_attrs, locations, strict=True):
        info = _entries(attrs).get(JAX_ARG_INFO)
        names.append(ir.StringAttr(info).value if info is not None else location)
    return tuple(names)


# The function a shape-polymorphic export's `@main` calls with its arguments.
_WRAPPED_MAIN = "_wrapped_jax_export_main"


def _wrapped_call_arguments(main: Any) -> list[int | None]:
    """Per operand of `@main`'s call of `_WRAPPED_MAIN`, the `@main` argument it is (None:
    a value computed there, a dimension variable); empty without such a call."""
    for op in main.regions[0].blocks[0].operations:
        operation = op.operation
        if operation.name != "func.call" or "callee" not in operation.attributes:
            continue
        if ir.FlatSymbolRefAttr(operation.attributes["callee"]).value != _WRAPPED_MAIN:
            continue
        return [_argument_number(value) for value in operation.operands]
    return []


def _argument_number(value: Any) -> int | None:
    try:
        return int(ir.BlockArgument(value).arg_number)
    except ValueError:  # (the result of an op)
        return None


def to_mlir(exported: Any) -> str:
    """The MLIR text of ``exported``'s module with its calling convention written on
    `@main` (see the module's documentation): run it through `abi-opt -p iree-abi-v1`."""
    return _rewrite(exported, _convention(exported), CPU)[0]


# --------------------------------------------------------------------------------------
# Symbolic dimensions: JAX's `_DimExpr` → `abi_compiler.call_model.Dim`.
# --------------------------------------------------------------------------------------

#: JAX's dimension variables are at least 1 ("Expected value >= 1 for dimension
#: variable"); an upper bound is a constraint.
_SYMBOL_LOW = 1


def _dim_expr(expr: Any) -> Terms | None:
    """A JAX dimension expression as a polynomial of its variables; None where it has
    another operation (``floordiv``, ``mod``, ``max``…), which is then not checked."""
    try:
        terms = []
        for term, coefficient in expr._sorted_terms:
            symbols: list[str] = []
            for factor, power in term._factors:
                if factor.operation is not None or not isinstance(factor.var, str):
                    return None
                symbols += [factor.var] * int(power)
            terms.append((int(coefficient), tuple(symbols)))
    except (AttributeError, TypeError, ValueError):  # another JAX's internals
        return None
    return tuple(terms)


def _dim(size: Any) -> Dim:
    """One dimension of an aval: its size, its variable, or an expression."""
    if isinstance(size, (int, np.integer)):
        return int(size)
    expr = _dim_expr(size)
    if expr is None:
        return None
    if len(expr) == 1 and expr[0][0] == 1 and len(expr[0][1]) == 1:
        return expr[0][1][0]
    return expr


def _constraints(avals: tuple[Any, ...]) -> tuple[DimConstraint, ...]:
    """The explicit constraints (``symbolic_shape(…, constraints=[…])``) of the scopes of
    the avals' symbolic dims; an equality JAX has already substituted into the avals
    names a variable no value binds, and is not checked again."""
    scopes: dict[int, Any] = {}
    for aval in avals:
        for size in aval.shape:
            scope = getattr(size, "scope", None)
            if scope is not None:
                scopes.setdefault(id(scope), scope)
    found = []
    for scope in scopes.values():
        for constraint in getattr(scope, "_explicit_constraints", ()):
            expr = _dim_expr(getattr(constraint, "diff", None))
            cmp = str(getattr(constraint, "cmp", ""))
            if expr is None or not cmp.endswith(("GEQ", "EQ")):
                continue
            relation: Literal[">=", "=="] = ">=" if cmp.endswith("GEQ") else "=="
            text = str(getattr(constraint, "debug_str", "") or f"{format_terms(expr)} {relation} 0")
            found.append(DimConstraint(expr, relation, text))
    return tuple(found)


def _dims(aval: Any) -> tuple[Dim, ...]:
    """An aval's dims as `abi.call` keeps them (a typed key's: as its data)."""
    dims = tuple(_dim(size) for size in aval.shape)
    return dims + _key_data_dims(aval.dtype) if _is_key(aval.dtype) else dims


def _dtype_name(aval: Any) -> str:
    """The dtype `abi.call` records: numpy's name, or a typed key's (``key<fry>``)."""
    return str(aval.dtype) if _is_key(aval.dtype) else np.dtype(aval.dtype).name


def _call_node(node: Any, leaf: Callable[[int], CallNode]) -> CallNode:
    """The original-call node of a skeleton node; ``leaf`` gives a slot's node."""
    if isinstance(node, _Slot):
        return leaf(node.index)
    if node is None:
        return NoneLeaf()
    if isinstance(node, Mapping):
        keys = tuple(node)
        if not all(isinstance(key, (str, int)) for key in keys):
            raise AbiError(f"a dict with keys {list(keys)!r}: only str and int keys are recorded")
        children = tuple(_call_node(child, leaf) for child in node.values())
        return Container(
            "dict", children, keys, None if type(node) is dict else type(node).__name__
        )
    if isinstance(node, tuple) and hasattr(node, "_fields"):
        children = tuple(_call_node(child, leaf) for child in node)
        return Container("namedtuple", children, tuple(node._fields), type(node).__name__)
    if isinstance(node, (tuple, list)):
        items = tuple(_call_node(child, leaf) for child in node)
        return Container("list", items) if isinstance(node, list) else Container("tuple", items)
    # Another registered node: its children with their keys.
    flat, _ = tree_util.tree_flatten_with_path(node, is_leaf=lambda x: x is not node)
    children = tuple(_call_node(child, leaf) for _, child in flat)
    entries = [key_path[0] for key_path, _ in flat]
    name = type(node).__name__
    if entries and all(isinstance(key, tree_util.GetAttrKey) for key in entries):
        fields = tuple(key.name for key in entries)
        if dataclasses.is_dataclass(node):
            return Container("dataclass", children, fields, name, _static(node, fields))
        return Container("node", children, fields, name)
    if entries and all(isinstance(key, tree_util.DictKey) for key in entries):
        dict_keys = tuple(key.key for key in entries)
        if all(isinstance(key, (str, int)) for key in dict_keys):
            return Container("dict", children, dict_keys, name)
    return Container("node", children, (), name)


def _static(node: Any, fields: tuple[str, ...]) -> tuple[tuple[str, Constant], ...]:
    """The static (meta) fields of a dataclass pytree node whose values a file can hold:
    numbers, strings, bools and None (a function, an optimizer, is not recorded)."""
    found = []
    for field in dataclasses.fields(node):
        if field.name in fields or not field.init:
            continue
        value = getattr(node, field.name, None)
        if value is None or type(value) in (bool, int, float, str):
            found.append((field.name, constant(value)))
    return tuple(found)


def _original_call(
    exported: Any, convention: _Convention, names: tuple[str | None, ...], platform: str
) -> OriginalCall:
    """The export's original call, its arrays numbered by `@main`'s records."""
    args, kwargs = _skeleton(exported.in_tree)
    in_avals, out_avals = tuple(exported.in_avals), tuple(exported.out_avals)
    kept = frozenset(exported.module_kept_var_idx)
    specials = int(convention.platform_index) + convention.tokens
    position = {index: specials + k for k, index in enumerate(sorted(kept))}
    arguments = record_order([argument.node for argument in convention.signature.arguments])
    results = record_order(convention.signature.results)
    symbols: set[str] = set()
    related: list[Any] = []

    def argument(index: int) -> CallNode:
        aval = in_avals[index]
        if index not in kept:
            return Unused(_dtype_name(aval), _dims(aval))
        dims = _dims(aval)
        for dim in dims:
            if isinstance(dim, str):
                symbols.add(dim)
            elif isinstance(dim, tuple):
                symbols.update(symbol for _, names in dim for symbol in names)
        if any(not isinstance(dim, int) for dim in dims):
            related.append(aval)
        return Array(arguments[position[index]], _dtype_name(aval), dims)

    def result(index: int) -> CallNode:
        aval = out_avals[index]
        return Array(results[convention.tokens + index], _dtype_name(aval), _dims(aval))

    fixed: tuple[tuple[int, int], ...] = ()
    if convention.platform_index:
        fixed = ((arguments[0], _platforms(exported).index(platform)),)
    positional = tuple(_call_node(node, argument) for node in args)
    keywords = tuple((str(key), _call_node(node, argument)) for key, node in kwargs.items())
    return OriginalCall(
        positional,
        keywords,
        _call_node(_skeleton(exported.out_tree), result),
        "jax",
        _parameter_labels(convention, names, len(args), kept),
        tuple(Symbol(name, _SYMBOL_LOW, None) for name in sorted(symbols)),
        fixed,
        _constraints(tuple(related)),
        # `exported.call` takes its keywords by keyword only (a value given positionally
        # changes the call's tree) and its positional parameters by position only.
        keyword_only=True,
    )


def _parameter_labels(
    convention: _Convention, names: tuple[str | None, ...], count: int, kept: frozenset[int]
) -> tuple[str | None, ...]:
    """What an error calls each positional parameter: its name in the export's
    locations (`params`), else its position. A name two parameters share is `*args`'
    (its items' locations are `xs[0]`, `xs[1]`, …): those are called by position."""
    specials = int(convention.platform_index) + convention.tokens
    order = sorted(kept)
    labels: list[str | None] = []
    for p in range(count):
        label = None
        pruned = convention.positional[p] if p < len(convention.positional) else None
        if pruned is not None:
            first = _leaf_paths(pruned, ())[0][0]
            name = names[specials + order.index(first)]
            if name is not None:
                with contextlib.suppress(AbiError):  # not a path: by position
                    root = parse_arg_info(name)[0]
                    if root not in ("args", "kwargs") and root.isidentifier():
                        label = root
        labels.append(label)
    return tuple(None if labels.count(label) > 1 else label for label in labels)


def program(exported: Any, *, platform: str = CPU) -> Program:
    """The `Program` of ``exported``: `to_mlir`'s text and the adapter that takes the
    original call. A multi-platform export is called with the platform index of
    ``platform`` (IREE compiles for the local CPU: ``"cpu"``)."""
    if exported.ordered_effects:
        raise ValueError(
            "the export has ordered effects, which thread !stablehlo.token values through "
            "@main: IREE cannot load a module with a token at its boundary (to_mlir writes "
            "its text all the same)"
        )
    platforms = _platforms(exported)
    if len(platforms) > 1 and platform not in platforms:
        raise ValueError(f"the export is for the platforms {list(platforms)}, not {platform!r}")
    convention = _convention(exported)
    refused: list[str] = []
    text, call = _rewrite(exported, convention, platform, refused)
    if refused:
        from abi_compiler.errors import CompileError

        raise CompileError("frontend", "".join(line + "\n" for line in refused))
    return Program(text, MAIN, call, unflatten=result_unflatten(exported) if call else None)


def result_unflatten(exported: Any) -> Callable[[list[Any]], Any]:
    """The export's own unflatten of its result (`Program.unflatten`): its ``out_tree``,
    which holds the exporter's classes with their static fields, of the result arrays in
    flatten order."""
    out_tree = exported.out_tree

    def unflatten(leaves: list[Any]) -> Any:
        return tree_util.tree_unflatten(out_tree, leaves)

    return unflatten
