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

`program(exported)` adds the `CallAdapter` that `abi_compiler.iree.compile(exported)` puts
in front of the compiled `main`: it takes the original call — `main(*args, **kwargs)` with
the original pytrees, unused arguments accepted and ignored — checks its structure, shapes
and dtypes against the export (errors name the original path:
`argument params['dense']: expected a dict with keys ['bias', 'kernel'], got keys
['bias']`), the ranges of Python ints by the avals' dtypes and the relations between
symbolic dims (`abi_compiler.frontends.dims`, read from the avals and their scope's
constraints), passes the platform index, and rebuilds the original result pytree (same
containers, namedtuples, `None` where JAX returned `None`) with numpy arrays of the
avals' dtypes at the leaves (an unsigned result reads from its signless record as
unsigned).

JAX is an optional dependency: importing this module without it raises an ImportError
that says what to install. The rewriting uses the MLIR Python bindings that ship with
jaxlib, so the text is printed by MLIR itself, locations and all.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

try:
    from jax import tree_util
    from jax._src.interpreters import mlir as jax_mlir
    from jax._src.lib.mlir import ir
except ImportError as _error:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        "abi_compiler.frontends.jax needs JAX (jax and jaxlib, 0.4.14 or newer): "
        "pip install 'abi-compiler[jax]'"
    ) from _error

import numpy as np

from abi_compiler.attribute_names import ABI_INDEX_PATH, IREE_ABI, JAX_ARG_INFO
from abi_compiler.calling.marshal import int_misfit, torch_array, unexpected_keyword, value_shape
from abi_compiler.codecs.jax_paths import parse_arg_info
from abi_compiler.codecs.json_abi import encode_json
from abi_compiler.dtypes import scalar_for_numpy
from abi_compiler.errors import AbiError
from abi_compiler.frontends import Program
from abi_compiler.frontends.dims import Constraint, Dim, DimExpr, DimRelations, LeafDims
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

__all__ = ["JaxCallAdapter", "mark_nonexpanding_broadcasts", "program", "to_mlir"]

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


def _element(dtype: Any) -> ValueType:
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


def _with_path(attrs: Any, path: IndexPath) -> Any:
    entries = {named.name: named.attr for named in ir.DictAttr(attrs)}
    entries[ABI_INDEX_PATH] = _path_attr(path)
    return ir.DictAttr.get(entries)


def _main_function(module: Any) -> Any:
    for op in module.body.operations:
        if "sym_name" in op.attributes and ir.StringAttr(op.attributes["sym_name"]).value == MAIN:
            return op
    raise ValueError("the export's module has no @main")


def _rewrite(
    exported: Any, convention: _Convention, refused: list[str] | None = None
) -> tuple[str, tuple[str | None, ...]]:
    """The module text with the structure written on `@main`, and each `@main`
    argument's name location (None where it has none). The diagnostics of
    `mark_nonexpanding_broadcasts` go to ``refused``."""
    text = exported.mlir_module()
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)
        found = mark_nonexpanding_broadcasts(module)
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
        return module.operation.get_asm(enable_debug_info=True), names


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
    names: list[str | None] = []
    for attrs, location in zip(main.arg_attrs, locations, strict=True):
        entries = {named.name: named.attr for named in ir.DictAttr(attrs)}
        info = entries.get(JAX_ARG_INFO)
        names.append(ir.StringAttr(info).value if info is not None else location)
    return tuple(names)


def to_mlir(exported: Any) -> str:
    """The MLIR text of ``exported``'s module with its calling convention written on
    `@main` (see the module's documentation): run it through `abi-opt -p iree-abi-v1`."""
    return _rewrite(exported, _convention(exported))[0]


# --------------------------------------------------------------------------------------
# Rewrites for what IREE 3.13 cannot lower from a shape-polymorphic export
# (docs/calling.md, "Shape polymorphism").
# --------------------------------------------------------------------------------------

DYNAMIC_BROADCAST = "stablehlo.dynamic_broadcast_in_dim"
_FILE_LINE_COL = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')


def mark_nonexpanding_broadcasts(module: Any) -> list[str]:
    """Write ``known_nonexpanding_dimensions`` on each `stablehlo.dynamic_broadcast_in_dim`
    of a JAX export, naming its operand's dynamic dimensions: IREE 3.13 lowers the op only
    when it knows whether each dynamic dimension expands.

    Sound for JAX's lowering: `jax.lax.broadcast_in_dim` (and every lowering rule that
    broadcasts) admits an operand dimension only when it is the constant 1 or symbolically
    equal to its result dimension (`core.definitely_equal`), so a dynamic (symbolic)
    operand dimension always has its result dimension's size at run time. A chain of two
    such ops is first composed into one, as IREE's own canonicalization would do (which
    drops the marks). An op that maps a dynamic operand dimension to a static result
    dimension — never from JAX's lowering — is left as it is and described in the list
    returned: ``file:line:col: error: …`` lines, with the fix."""
    ops: list[Any] = []

    def visit(op: Any) -> Any:
        if op.operation.name == DYNAMIC_BROADCAST:
            ops.append(op.operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    refused: list[str] = []
    for op in ops:
        op = _compose_broadcasts(op)
        operand = ir.RankedTensorType(op.operands[0].type)
        result = ir.RankedTensorType(op.results[0].type)
        dims = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]))
        expanding = _dims_attribute(op, "known_expanding_dimensions")
        nonexpanding = _dims_attribute(op, "known_nonexpanding_dimensions")
        marks = set(nonexpanding)
        for i in range(operand.rank):
            if not operand.is_dynamic_dim(i) or i in expanding or i in nonexpanding:
                continue
            if not result.is_dynamic_dim(dims[i]):
                refused.append(
                    f"{_file_line_col(op.location)}: error: {DYNAMIC_BROADCAST} broadcasts "
                    f"dimension {i} of {operand}, dynamic, to dimension {dims[i]} of "
                    f"{result}, static: it expands when the operand's size is 1 at run time, "
                    "and IREE 3.13 lowers the op only when it knows whether each dynamic "
                    "dimension expands (JAX's own lowering never writes this); export with "
                    "static shapes (no jax.export.symbolic_shape) to compile it"
                )
                continue
            marks.add(i)
        if marks != set(nonexpanding):
            op.attributes["known_nonexpanding_dimensions"] = ir.DenseI64ArrayAttr.get(sorted(marks))
    return refused


def _compose_broadcasts(op: Any) -> Any:
    """``op``, or, when its operand is itself a dynamic broadcast, one op broadcasting that
    broadcast's operand straight to ``op``'s result (which replaces ``op``)."""
    source = op.operands[0]
    if not isinstance(source, ir.OpResult) or source.owner.name != DYNAMIC_BROADCAST:
        return op
    inner = source.owner
    if _dims_attribute(inner, "known_expanding_dimensions"):
        return op  # what the producer knew would be lost
    outer_dims = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]))
    inner_dims = list(ir.DenseI64ArrayAttr(inner.attributes["broadcast_dimensions"]))
    composed = ir.Operation.create(
        DYNAMIC_BROADCAST,
        results=[op.results[0].type],
        operands=[inner.operands[0], op.operands[1]],
        attributes={
            "broadcast_dimensions": ir.DenseI64ArrayAttr.get([outer_dims[d] for d in inner_dims])
        },
        loc=op.location,
        ip=ir.InsertionPoint(op),
    )
    op.results[0].replace_all_uses_with(composed.results[0])
    op.erase()
    return composed


def _dims_attribute(op: Any, name: str) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes[name])) if name in op.attributes else []


def _file_line_col(location: Any) -> str:
    """The first ``file:line:col`` of an MLIR location (JAX writes the user's frame
    inside name and call-site locations), else ``<jax export>``."""
    match = _FILE_LINE_COL.search(str(location))
    if match is None:
        return "<jax export>"
    return f"{match.group(1)}:{match.group(2)}:{match.group(3)}"


# --------------------------------------------------------------------------------------
# The call adapter.
# --------------------------------------------------------------------------------------


def _describe(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, Mapping):
        return f"a dict with keys {_keys_text(value)}"
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return f"a {type(value).__name__}"
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of {len(value)}"
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if shape is not None and dtype is not None:
        try:
            name = np.dtype(dtype).name
        except TypeError:  # not a numpy dtype (a framework's own)
            name = str(dtype)
        return f"{name}[{','.join(map(str, shape))}]"
    return type(value).__name__


def _keys_text(keys: Any) -> str:
    """``['bias', 'kernel']``, ``[0, 1]``: a dict's keys, sorted (strings first)."""
    ordered = sorted(keys, key=lambda key: (not isinstance(key, str), str(key)))
    return "[" + ", ".join(repr(key) for key in ordered) + "]"


def _key_text(key: Any) -> str:
    return f"[{key!r}]"


# --------------------------------------------------------------------------------------
# Symbolic dimensions: JAX's `_DimExpr` → `abi_compiler.frontends.dims`.
# --------------------------------------------------------------------------------------

#: JAX's dimension variables are at least 1 ("Expected value >= 1 for dimension
#: variable"); an upper bound is a constraint.
_SYMBOL_LOW = 1


def _dim_expr(expr: Any) -> DimExpr | None:
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
    return DimExpr(tuple(terms))


def _dim(size: Any) -> Dim:
    """One dimension of an aval: its size, its variable, or an expression."""
    if isinstance(size, (int, np.integer)):
        return int(size)
    expr = _dim_expr(size)
    if expr is None:
        return None
    if len(expr.terms) == 1 and expr.terms[0][0] == 1 and len(expr.terms[0][1]) == 1:
        return expr.terms[0][1][0]
    return expr


def _constraints(avals: tuple[Any, ...]) -> tuple[Constraint, ...]:
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
            text = str(getattr(constraint, "debug_str", "") or f"{expr} {relation} 0")
            found.append(Constraint(expr, relation, text))
    return tuple(found)


# --------------------------------------------------------------------------------------
# The call adapter.
# --------------------------------------------------------------------------------------


class JaxCallAdapter:
    """The original call of an exported JAX function ↔ the compiled `main`'s records
    (`abi_compiler.frontends.CallAdapter`).

    Each leaf the module takes is checked against its aval, as JAX's own call checks it:
    rank and static dims, the exact dtype (``convert=True`` casts another numeric one),
    Python ints (and nested lists of them) in the dtype's range — the records are
    signless, `i8` taking int8 and uint8 alike —, and the relations between symbolic
    dims (`abi_compiler.frontends.dims`). Integer results come back in their avals'
    dtypes (a `uint8` result is read from its signless `i8` record as uint8)."""

    def __init__(
        self, exported: Any, convention: _Convention, names: tuple[str | None, ...], platform: str
    ) -> None:
        args, kwargs = _skeleton(exported.in_tree)
        self._args: tuple[Any, ...] = tuple(args)
        self._kwargs: dict[str, Any] = dict(kwargs)
        self._in_avals = tuple(exported.in_avals)
        self._out_avals = tuple(exported.out_avals)
        self._kept = frozenset(exported.module_kept_var_idx)
        self._out_tree = exported.out_tree
        self._convention = convention
        platforms = _platforms(exported)
        self._platform = np.int32(platforms.index(platform)) if convention.platform_index else None
        self._labels = self._parameter_labels(names)
        self.relations, self._related = self._dim_relations()

    def _parameter_labels(self, names: tuple[str | None, ...]) -> tuple[str, ...]:
        """What an error calls each positional parameter: its name in the export's
        locations (`params`), else `args[<i>]`."""
        specials = int(self._convention.platform_index) + self._convention.tokens
        kept = sorted(self._kept)
        labels = []
        for p, pruned in enumerate(self._convention.positional):
            label = f"args[{p}]"
            if pruned is not None:
                first = _leaf_paths(pruned, ())[0][0]
                name = names[specials + kept.index(first)]
                if name is not None:
                    with contextlib.suppress(AbiError):  # not a path: `args[<i>]`
                        label = parse_arg_info(name)[0]
            labels.append(label)
        return tuple(labels)

    def _dim_relations(self) -> tuple[DimRelations, dict[int, int]]:
        """The relations between the kept leaves' symbolic dims, and each related leaf's
        position among `DimRelations.leaves` by its flat index."""
        paths: dict[int, str] = {}
        for p, expected in enumerate(self._args):
            _leaf_texts(expected, f"argument {self._labels[p]}", paths)
        for key, expected in self._kwargs.items():
            _leaf_texts(expected, f"argument {key}", paths)
        leaves: list[LeafDims] = []
        related: dict[int, int] = {}
        symbols: set[str] = set()
        for index in sorted(paths):
            aval = self._in_avals[index]
            if index not in self._kept or all(isinstance(d, int) for d in aval.shape):
                continue
            dims = tuple(_dim(size) for size in aval.shape)
            for dim in dims:
                if isinstance(dim, str):
                    symbols.add(dim)
                elif isinstance(dim, DimExpr):
                    symbols |= dim.symbols
            related[index] = len(leaves)
            leaves.append(LeafDims(paths[index], dims))
        bounds = tuple((name, _SYMBOL_LOW, None) for name in sorted(symbols))
        kept_avals = tuple(self._in_avals[index] for index in related)
        return DimRelations(bounds, tuple(leaves), _constraints(kept_avals)), related

    # -- arguments -----------------------------------------------------------------------

    def arguments(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], *, convert: bool = False
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        for name in kwargs:
            if name not in self._kwargs:
                raise unexpected_keyword(name, list(self._kwargs))
        if len(args) != len(self._args):
            raise AbiError(f"expected {len(self._args)} positional arguments, got {len(args)}")
        for name in self._kwargs:
            if name not in kwargs:
                raise AbiError(f"argument {name!r}: missing value")
        leaves: dict[int, Any] = {}
        for p, (expected, value) in enumerate(zip(self._args, args, strict=True)):
            self._check(expected, value, f"argument {self._labels[p]}", leaves, convert)
        for key, expected in self._kwargs.items():
            self._check(expected, kwargs[key], f"argument {key}", leaves, convert)
        if self._related:
            shapes: list[Any] = [()] * len(self._related)
            for index, slot in self._related.items():
                shapes[slot] = np.shape(leaves[index])
            self.relations.check(shapes)
        call: list[Any] = []
        if self._platform is not None:
            call.append(self._platform)
        for pruned in self._convention.positional:
            if pruned is not None:
                call.append(_compiled_value(pruned, leaves))
        named = {key: _compiled_value(pruned, leaves) for key, pruned in self._convention.keywords}
        return tuple(call), named

    def _check(
        self, expected: Any, value: Any, path: str, leaves: dict[int, Any], convert: bool
    ) -> None:
        """The structure of ``value`` against the skeleton ``expected``; every leaf the
        module takes checked against its aval into ``leaves`` (by flat index)."""
        if isinstance(expected, _Slot):
            if expected.index in self._kept:
                aval = self._in_avals[expected.index]
                leaves[expected.index] = _checked_leaf(aval, value, path, convert)
            return
        if expected is None:
            if value is not None:
                raise AbiError(f"{path}: expected None, got {_describe(value)}")
            return
        if isinstance(expected, Mapping):
            if not isinstance(value, Mapping):
                raise AbiError(f"{path}: expected {_describe(expected)}, got {_describe(value)}")
            if set(value) != set(expected):
                raise AbiError(
                    f"{path}: expected {_describe(expected)}, got keys {_keys_text(value)}"
                )
            for key, child in expected.items():
                self._check(child, value[key], path + _key_text(key), leaves, convert)
            return
        if isinstance(expected, (tuple, list)):
            fits = isinstance(value, (tuple, list)) and len(value) == len(expected)
            if hasattr(expected, "_fields") and not isinstance(value, type(expected)):
                fits = False
            if not fits:
                raise AbiError(f"{path}: expected {_describe(expected)}, got {_describe(value)}")
            fields = getattr(expected, "_fields", None)
            for i, (child, item) in enumerate(zip(expected, value, strict=True)):
                where = f"{path}.{fields[i]}" if fields else f"{path}[{i}]"
                self._check(child, item, where, leaves, convert)
            return
        # Another registered pytree node: the same class, then its children.
        if type(value) is not type(expected):
            raise AbiError(f"{path}: expected a {type(expected).__name__}, got {_describe(value)}")
        expected_children = _children(expected) or []
        value_children = _children(value) or []
        if len(value_children) != len(expected_children):
            raise AbiError(
                f"{path}: expected a {type(expected).__name__} of {len(expected_children)} "
                f"children, got {len(value_children)}"
            )
        for (key, child), (_, item) in zip(expected_children, value_children, strict=True):
            self._check(child, item, f"{path}[{key}]", leaves, convert)

    # -- results ---------------------------------------------------------------------------

    def results(self, value: Any) -> Any:
        leaves: dict[int, Any] = {}
        if self._convention.result is not None:
            _collect(self._convention.result, value, leaves)
        count = self._out_tree.num_leaves
        return tree_util.tree_unflatten(
            self._out_tree, [_signed_as(leaves[i], self._out_avals[i]) for i in range(count)]
        )


def _leaf_texts(expected: Any, path: str, paths: dict[int, str]) -> None:
    """The path `JaxCallAdapter._check` names each leaf of the skeleton ``expected`` by."""
    if isinstance(expected, _Slot):
        paths[expected.index] = path
    elif isinstance(expected, Mapping):
        for key, child in expected.items():
            _leaf_texts(child, path + _key_text(key), paths)
    elif isinstance(expected, (tuple, list)):
        fields = getattr(expected, "_fields", None)
        for i, child in enumerate(expected):
            _leaf_texts(child, f"{path}.{fields[i]}" if fields else f"{path}[{i}]", paths)
    elif expected is not None:
        for key, child in _children(expected) or []:
            _leaf_texts(child, f"{path}[{key}]", paths)


def _checked_leaf(aval: Any, value: Any, path: str, convert: bool) -> Any:
    """``value`` for a leaf of ``aval``: its shape against the aval's, its dtype exactly
    the aval's (or cast, with ``convert``), a Python int in range. A torch tensor becomes
    the numpy array sharing its memory, an object with only ``__array__`` its array."""
    dtype = aval.dtype
    if type(value) is np.ndarray:  # the common case, first
        shape = value.shape
    else:
        value = _array_value(aval, value, path)
        shape = value_shape(value)
        if shape is None:
            return value  # the records say what is wrong with it
    if len(shape) != len(aval.shape) or any(
        isinstance(d, int) and d != s for d, s in zip(aval.shape, shape, strict=True)
    ):
        raise AbiError(f"{path}: expected {_expected(aval)}, got {_describe_shape(value, shape)}")
    if type(value) is np.ndarray and value.dtype == dtype:
        return value
    expected = _expected(aval)
    dtype = np.dtype(dtype)
    found = getattr(value, "dtype", None)
    if found is not None:
        try:
            found = np.dtype(found)
        except TypeError:  # a framework's own dtype (TensorFlow's): its array's
            if not hasattr(value, "__array__"):
                raise AbiError(f"{path}: expected {expected}, got {_describe(value)}") from None
            value = np.asarray(value)
            found = value.dtype
        if found != dtype:
            numeric = found.kind in "biuf" or found.name == "bfloat16"
            if convert and numeric:
                return np.asarray(value).astype(dtype)
            hint = " (convert=True converts it)" if numeric else ""
            raise AbiError(f"{path}: expected {expected}, got {_describe(value)}{hint}")
        return value
    misfit = int_misfit(value, dtype.name)
    if misfit is not None:
        index, message = misfit
        raise AbiError(f"{path}{''.join(f'[{i}]' for i in index)}: {message}")
    return value


def _expected(aval: Any) -> str:
    """``float32[2,b]``: what a leaf of ``aval`` must be, for messages."""
    return f"{np.dtype(aval.dtype).name}[{','.join(map(str, aval.shape))}]"


def _array_value(aval: Any, value: Any, path: str) -> Any:
    """A torch tensor as the numpy array sharing its memory, an object that is an array
    only through ``__array__`` as that array; any other value as it is."""
    try:
        tensor = torch_array(value)
    except TypeError as error:
        raise AbiError(f"{path}: expected {_expected(aval)}, got {error}") from None
    if tensor is not None:
        return tensor
    if (
        not hasattr(value, "shape")
        and not isinstance(value, (list, tuple))
        and hasattr(value, "__array__")
    ):
        try:
            return np.asarray(value)
        except Exception as error:  # whatever the object raises
            raise AbiError(
                f"{path}: expected {_expected(aval)}, {type(value).__name__}.__array__() "
                f"raised {type(error).__name__}: {error}"
            ) from None
    return value


def _describe_shape(value: Any, shape: tuple[int, ...]) -> str:
    if hasattr(value, "dtype"):
        return _describe(value)
    return f"lists of shape [{','.join(map(str, shape))}]" if shape else type(value).__name__


def _signed_as(value: Any, aval: Any) -> Any:
    """A result array in its aval's dtype: the records are signless, so an unsigned
    result reads as the signed dtype of its width (the same bits)."""
    dtype = np.dtype(aval.dtype)
    view = getattr(value, "_buffer_view", None)
    if view is not None and not isinstance(value, np.ndarray):
        # A device array (``results="device"``): the same buffer, read as the aval's dtype.
        found = np.dtype(value.dtype)
        if found != dtype and found.kind in "iu" and dtype.kind in "iu":
            return type(value)(value._device, view, True, dtype)
        return value
    if not isinstance(value, np.ndarray):
        return value
    same_width = value.dtype.itemsize == dtype.itemsize
    if value.dtype != dtype and value.dtype.kind in "iu" and dtype.kind in "iu" and same_width:
        return value.view(dtype)
    return value


def _compiled_value(node: _Pruned, leaves: Mapping[int, Any]) -> Any:
    """The compiled argument of ``node``: the checked kept ``leaves`` (by flat index), in
    containers the records take (a list for a sequence, a dict for a dict)."""
    if node.kind == "leaf":
        return leaves[node.index]
    if node.kind == "dict":
        return {key: _compiled_value(child, leaves) for key, _, child in node.items}
    return [_compiled_value(child, leaves) for _, _, child in node.items]


def _collect(node: _Pruned, value: Any, leaves: dict[int, Any]) -> None:
    """The result leaves of the compiled result ``value`` (as `runtime.unpack` gives it:
    dicts, lists, tuples) by flat index."""
    if node.kind == "leaf":
        leaves[node.index] = value
        return
    for key, _, child in node.items:
        _collect(child, value[key], leaves)


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
    text, names = _rewrite(exported, convention, refused)
    if refused:
        from abi_compiler.frontends.iree_tools import CompileError

        raise CompileError("frontend", "".join(line + "\n" for line in refused))
    return Program(text, MAIN, JaxCallAdapter(exported, convention, names, platform))
