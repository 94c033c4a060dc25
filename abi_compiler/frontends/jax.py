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
unsigned).

JAX is an optional dependency: importing this module without it raises an ImportError
that says what to install. The rewriting uses the MLIR Python bindings that ship with
jaxlib, so the text is printed by MLIR itself, locations and all.
"""

from __future__ import annotations

import contextlib
import dataclasses
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
    Container,
    Dim,
    DimConstraint,
    NoneLeaf,
    OriginalCall,
    Symbol,
    Terms,
    Unused,
)
from abi_compiler.codecs.call_json import encode_call, format_terms
from abi_compiler.codecs.jax_paths import parse_arg_info
from abi_compiler.codecs.json_abi import encode_json
from abi_compiler.dtypes import scalar_for_numpy
from abi_compiler.errors import AbiError
from abi_compiler.frontends import Program
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

__all__ = ["mark_nonexpanding_broadcasts", "program", "to_mlir"]

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
    exported: Any, convention: _Convention, platform: str, refused: list[str] | None = None
) -> tuple[str, OriginalCall | None]:
    """The module text with the structure written on `@main` (and its original call,
    unless effect tokens cross its boundary: IREE cannot load such a module), and that
    call. The diagnostics of `mark_nonexpanding_broadcasts` go to ``refused``."""
    text = exported.mlir_module()
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)
        found = mark_nonexpanding_broadcasts(module)
        rows_as_index_select(module)
        merges_as_collapse(module)
        flatten_dot_generals(module)
        constant_index_as_slice(module)
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
                entries = {
                    named.name: named.attr for named in ir.DictAttr(main.attributes[REFLECTION])
                }
            entries[ABI_CALL] = ir.StringAttr.get(encode_call(call))
            main.attributes[REFLECTION] = ir.DictAttr.get(entries)
        return module.operation.get_asm(enable_debug_info=True), call


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
    return _rewrite(exported, _convention(exported), CPU)[0]


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


GATHER = "stablehlo.gather"


def rows_as_index_select(module: Any) -> int:
    """Rewrite each `stablehlo.gather` that takes whole rows of a static table by a
    dynamic number of indices (`jnp.take(table, ids, axis=0)`, flax `Embed` on a batch of
    symbolic size) as `stablehlo.torch_index_select` of the indices clamped to the rows:
    IREE 3.13's gather lowering reshapes to a static shape and refuses a dynamic one
    (`'stablehlo.reshape' op result #0 must be statically shaped`), its index-select
    lowering does not. Gather clamps each start index into the table, hence the clamp; a
    trailing index vector of size 1 is dropped by `tensor.collapse_shape`. Returns how
    many gathers were rewritten; any other gather is left as it is."""
    from jax._src.lib.mlir.dialects import hlo

    found: list[Any] = []

    def visit(op: Any) -> Any:
        if op.operation.name == GATHER and _takes_rows(op.operation, hlo):
            found.append(op.operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for op in found:
        with op.location:
            at = ir.InsertionPoint(op)
            table = ir.RankedTensorType(op.operands[0].type)
            indices = op.operands[1]
            indices_type = ir.RankedTensorType(indices.type)
            element = indices_type.element_type
            low, high = _scalar(element, 0, at), _scalar(element, table.shape[0] - 1, at)
            clamped = ir.Operation.create(
                "stablehlo.clamp", results=[indices_type], operands=[low, indices, high], ip=at
            ).results[0]
            batch = hlo.GatherDimensionNumbers(op.attributes["dimension_numbers"])
            if batch.index_vector_dim < indices_type.rank:  # a trailing vector of size 1
                rank = indices_type.rank - 1
                groups = [[i] for i in range(rank - 1)] + [[rank - 1, rank]]
                clamped = ir.Operation.create(
                    "tensor.collapse_shape",
                    results=[ir.RankedTensorType.get(indices_type.shape[:-1], element)],
                    operands=[clamped],
                    attributes={"reassociation": ir.Attribute.parse(str(groups))},
                    ip=at,
                ).results[0]
            i64 = ir.IntegerType.get_signless(64)
            select = ir.Operation.create(
                "stablehlo.torch_index_select",
                results=[op.results[0].type],
                operands=[op.operands[0], clamped],
                attributes={
                    "dim": ir.IntegerAttr.get(i64, 0),
                    "batch_dims": ir.IntegerAttr.get(i64, 0),
                },
                ip=at,
            )
        op.results[0].replace_all_uses_with(select.results[0])
        op.erase()
    return len(found)


DYNAMIC_RESHAPE = "stablehlo.dynamic_reshape"


def merges_as_collapse(module: Any) -> int:
    """Rewrite each `stablehlo.dynamic_reshape` that merges adjacent dimensions, one of
    them dynamic, into one (a dense layer on `(b, 7, 16)` reshapes to `(b*7, 16)`) as
    `tensor.collapse_shape`: IREE 3.13 refuses the op (`failed to legalize operation
    'stablehlo.dynamic_reshape'`), and lowers the collapse. The groups are read from the
    static sizes (`_collapse_groups`); a reshape they do not determine — no dynamic result
    dimension, several, or no merge — is left as it is. Returns how many were rewritten."""
    found: list[tuple[Any, list[list[int]]]] = []

    def visit(op: Any) -> Any:
        if op.operation.name == DYNAMIC_RESHAPE:
            operand = ir.RankedTensorType(op.operation.operands[0].type)
            result = ir.RankedTensorType(op.operation.results[0].type)
            groups = _collapse_groups(_sizes(operand), _sizes(result))
            if groups is not None:
                found.append((op.operation, groups))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for op, groups in found:
        collapsed = ir.Operation.create(
            "tensor.collapse_shape",
            results=[op.results[0].type],
            operands=[op.operands[0]],
            attributes={"reassociation": ir.Attribute.parse(str(groups))},
            loc=op.location,
            ip=ir.InsertionPoint(op),
        )
        op.results[0].replace_all_uses_with(collapsed.results[0])
        op.erase()
    return len(found)


DYNAMIC_GATHER = "stablehlo.dynamic_gather"


def constant_index_as_slice(module: Any) -> int:
    """Rewrite each `stablehlo.dynamic_gather` that takes one constant index of one static
    dimension from an input with dynamic dimensions (`x[:, 0]` on `(b, 8, 32)`, the first
    token BERT-style pooling takes) as `tensor.extract_slice` of that index: IREE 3.13
    refuses the op (`failed to legalize operation 'stablehlo.dynamic_gather'`) and lowers
    the slice. The index is clamped into the dimension, as gather clamps it. Returns how
    many were rewritten; any other form is left as it is."""
    from jax._src.lib.mlir.dialects import hlo

    found: list[tuple[Any, int, int]] = []

    def visit(op: Any) -> Any:
        if op.operation.name == DYNAMIC_GATHER:
            taken = _constant_index(op.operation, hlo)
            if taken is not None:
                found.append((op.operation, *taken))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for op, dim, at_index in found:
        with op.location:
            at = ir.InsertionPoint(op)
            operand = op.operands[0]
            operand_type = ir.RankedTensorType(operand.type)
            dynamic = ir.ShapedType.get_dynamic_size()
            sizes: list[Any] = []
            static_sizes: list[int] = []
            for d in range(operand_type.rank):
                if d == dim:
                    static_sizes.append(1)
                elif operand_type.is_dynamic_dim(d):
                    static_sizes.append(dynamic)
                    sizes.append(_dim_size(operand, d, at))
                else:
                    static_sizes.append(operand_type.shape[d])
            offsets = [at_index if d == dim else 0 for d in range(operand_type.rank)]
            sliced = ir.Operation.create(
                "tensor.extract_slice",
                results=[op.results[0].type],
                operands=[operand, *sizes],
                attributes={
                    "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 0, len(sizes), 0]),
                    "static_offsets": ir.DenseI64ArrayAttr.get(offsets),
                    "static_sizes": ir.DenseI64ArrayAttr.get(static_sizes),
                    "static_strides": ir.DenseI64ArrayAttr.get([1] * operand_type.rank),
                },
                ip=at,
            )
        op.results[0].replace_all_uses_with(sliced.results[0])
        op.erase()
    return len(found)


def _constant_index(op: Any, hlo: Any) -> tuple[int, int] | None:
    """(the dimension, the index clamped into it) when a dynamic gather takes one constant
    index of one static dimension of an input with dynamic dimensions, whole along every
    other dimension (its result is the input without that dimension)."""
    operand = ir.RankedTensorType(op.operands[0].type)
    indices = op.operands[1]
    result = ir.RankedTensorType(op.results[0].type)
    if operand.has_static_shape:
        return None
    value = _constant_int(indices)
    if value is None:
        return None
    numbers = hlo.GatherDimensionNumbers(op.attributes["dimension_numbers"])
    indices_type = ir.RankedTensorType(indices.type)
    if (
        indices_type.shape != [1]
        or numbers.index_vector_dim != 0
        or list(numbers.start_index_map) != list(numbers.collapsed_slice_dims)
        or len(list(numbers.start_index_map)) != 1
        or list(numbers.operand_batching_dims)
        or list(numbers.offset_dims) != list(range(operand.rank - 1))
    ):
        return None
    (dim,) = list(numbers.start_index_map)
    if operand.is_dynamic_dim(dim):
        return None
    kept = [d for d in range(operand.rank) if d != dim]
    wanted = [None if operand.is_dynamic_dim(d) else operand.shape[d] for d in kept]
    if _sizes(result) != wanted:
        return None
    return dim, min(max(value, 0), operand.shape[dim] - 1)


def _constant_int(value: Any) -> int | None:
    """The one integer of a one-element tensor that is a `stablehlo.constant`, or that
    constant broadcast or reshaped (how JAX writes the index of `x[:, 0]`); None else."""
    while isinstance(value, ir.OpResult) and value.owner.name in (
        "stablehlo.broadcast_in_dim",
        "stablehlo.reshape",
    ):
        value = value.owner.operands[0]
    if not isinstance(value, ir.OpResult) or value.owner.name != "stablehlo.constant":
        return None
    values = ir.DenseIntElementsAttr(value.owner.attributes["value"])
    if values.is_splat:
        return int(ir.IntegerAttr(values.get_splat_value()).value)
    return int(values[0]) if len(values) == 1 else None


DOT_GENERAL = "stablehlo.dot_general"


def flatten_dot_generals(module: Any) -> int:
    """Rewrite each `stablehlo.dot_general` of an input with a dynamic dimension by a
    static weight that contracts the input's last dimensions with the weight's first (a
    dense layer on `(b, 7, 16)`, flax `DenseGeneral`'s `(16, 2, 8)` heads and `(2, 8, 16)`
    output projection; no batch dimensions) as a product of two matrices:
    `tensor.collapse_shape` of the input to `(rows, K)`, the weight reshaped to `(K, N)`,
    their `dot_general`, and `tensor.expand_shape` back to the result's shape. IREE 3.13
    flattens such an op itself with a `stablehlo.dynamic_reshape` it then cannot legalize;
    it lowers the collapse and the expand. Returns how many were rewritten."""
    from jax._src.lib.mlir.dialects import hlo

    found: list[tuple[Any, int]] = []

    def visit(op: Any) -> Any:
        if op.operation.name == DOT_GENERAL:
            contracted = _dense_on_rows(op.operation, hlo)
            if contracted:
                found.append((op.operation, contracted))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for op, contracted in found:
        with op.location:
            _flatten_dot_general(op, contracted, hlo)
    return len(found)


def _flatten_dot_general(op: Any, contracted: int, hlo: Any) -> None:
    at = ir.InsertionPoint(op)
    lhs, rhs = op.operands[0], op.operands[1]
    lhs_type = ir.RankedTensorType(lhs.type)
    rhs_type = ir.RankedTensorType(rhs.type)
    result_type = ir.RankedTensorType(op.results[0].type)
    rows = lhs_type.rank - contracted
    inner = _product(rhs_type.shape[:contracted])
    outer = _product(rhs_type.shape[contracted:])
    dynamic = ir.ShapedType.get_dynamic_size()
    flat = lhs
    if lhs_type.rank > 2:
        lhs_groups = str([list(range(rows)), list(range(rows, lhs_type.rank))])
        flat = ir.Operation.create(
            "tensor.collapse_shape",
            results=[ir.RankedTensorType.get([dynamic, inner], lhs_type.element_type)],
            operands=[lhs],
            attributes={"reassociation": ir.Attribute.parse(lhs_groups)},
            ip=at,
        ).results[0]
    if rhs_type.rank != 2:
        rhs = ir.Operation.create(
            "stablehlo.reshape",
            results=[ir.RankedTensorType.get([inner, outer], rhs_type.element_type)],
            operands=[rhs],
            ip=at,
        ).results[0]
    attributes = {name: op.attributes[name] for name in op.attributes}
    attributes["dot_dimension_numbers"] = hlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=[],
        rhs_batching_dimensions=[],
        lhs_contracting_dimensions=[1],
        rhs_contracting_dimensions=[0],
    )
    product = ir.Operation.create(
        DOT_GENERAL,
        results=[ir.RankedTensorType.get([dynamic, outer], result_type.element_type)],
        operands=[flat, rhs],
        attributes=attributes,
        ip=at,
    ).results[0]
    if result_type.rank == 2:
        op.results[0].replace_all_uses_with(product)
        op.erase()
        return
    sizes = [_dim_size(lhs, dim, at) for dim in range(rows) if lhs_type.is_dynamic_dim(dim)]
    static = [
        dynamic if result_type.is_dynamic_dim(d) else result_type.shape[d]
        for d in range(result_type.rank)
    ]
    result_groups = str([list(range(rows)), list(range(rows, result_type.rank))])
    expanded = ir.Operation.create(
        "tensor.expand_shape",
        results=[op.results[0].type],
        operands=[product, *sizes],
        attributes={
            "reassociation": ir.Attribute.parse(result_groups),
            "static_output_shape": ir.DenseI64ArrayAttr.get(static),
        },
        ip=at,
    )
    op.results[0].replace_all_uses_with(expanded.results[0])
    op.erase()


def _dim_size(value: Any, dim: int, at: Any) -> Any:
    """The size of dimension ``dim`` of the tensor ``value``, as an `index` made at ``at``."""
    index = ir.IndexType.get()
    position = ir.Operation.create(
        "arith.constant",
        results=[index],
        attributes={"value": ir.IntegerAttr.get(index, dim)},
        ip=at,
    ).results[0]
    return ir.Operation.create(
        "tensor.dim", results=[index], operands=[value, position], ip=at
    ).results[0]


def _product(sizes: Any) -> int:
    product = 1
    for size in sizes:
        product *= size
    return product


def _dense_on_rows(op: Any, hlo: Any) -> int:
    """How many trailing dimensions of its input a dot_general contracts, when it is a
    dense layer on an input with a dynamic dimension: a static weight, no batch
    dimensions, the input's last k dimensions (static) contracted in order with the
    weight's first k, and more than one dimension in the rows or in the weight's rest
    (a product of two matrices needs no rewrite). 0 otherwise."""
    lhs = ir.RankedTensorType(op.operands[0].type)
    rhs = ir.RankedTensorType(op.operands[1].type)
    numbers = hlo.DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
    lhs_contracting = list(numbers.lhs_contracting_dimensions)
    k = len(lhs_contracting)
    if (
        not rhs.has_static_shape
        or list(numbers.lhs_batching_dimensions)
        or list(numbers.rhs_batching_dimensions)
        or k == 0
        or lhs_contracting != list(range(lhs.rank - k, lhs.rank))
        or list(numbers.rhs_contracting_dimensions) != list(range(k))
        or any(lhs.is_dynamic_dim(d) for d in lhs_contracting)
        or not any(lhs.is_dynamic_dim(d) for d in range(lhs.rank - k))
        or (lhs.rank - k == 1 and k == 1 and rhs.rank == 2)
    ):
        return 0
    return k


def _sizes(t: Any) -> list[int | None]:
    return [None if t.is_dynamic_dim(i) else t.shape[i] for i in range(t.rank)]


def _collapse_groups(operand: list[int | None], result: list[int | None]) -> list[list[int]] | None:
    """The operand dimensions each result dimension is the product of, when ``result``
    has exactly one dynamic dimension: the static ones before it are matched from the
    left, those after it from the right, each by exact products of static operand sizes,
    and the dynamic one is what is left between, holding a dynamic operand dimension.
    None when that does not work out, or nothing is merged."""
    if result.count(None) != 1 or len(result) >= len(operand):
        return None
    middle = result.index(None)
    left = _static_groups(operand, result[:middle], 0, 1)
    right = _static_groups(operand, result[middle + 1 :][::-1], len(operand) - 1, -1)
    if left is None or right is None:
        return None
    start = left[-1][-1] + 1 if left else 0
    stop = right[-1][-1] if right else len(operand)
    between = list(range(start, stop))
    if not between or all(operand[i] is not None for i in between):
        return None
    return [*left, between, *[group[::-1] for group in right[::-1]]]


def _static_groups(
    operand: list[int | None], sizes: list[int | None], start: int, step: int
) -> list[list[int]] | None:
    """Groups of static operand dimensions from ``start`` going ``step``, each of the
    product of the next size of ``sizes`` (None when one cannot be made)."""
    groups: list[list[int]] = []
    at = start
    for size in sizes:
        group: list[int] = []
        product = 1
        while not group or product < (size or 0):
            if not 0 <= at < len(operand) or operand[at] is None:
                return None
            product *= operand[at]  # type: ignore[operator]
            group.append(at)
            at += step
        if product != size:
            return None
        groups.append(group)
    return groups


def _scalar(element: Any, value: int, at: Any) -> Any:
    """A `stablehlo.constant` 0-d tensor of the integer type ``element``, made at ``at``."""
    scalar = ir.RankedTensorType.get([], element)
    attr = ir.DenseElementsAttr.get_splat(scalar, ir.IntegerAttr.get(element, value))
    made = ir.Operation.create(
        "stablehlo.constant", results=[scalar], attributes={"value": attr}, ip=at
    )
    return made.results[0]


def _takes_rows(op: Any, hlo: Any) -> bool:
    """Whether a gather takes whole rows of a static table (dimension 0) at indices of a
    dynamic shape, one index per row: the result is the indices' shape, then the rows'."""
    table = ir.RankedTensorType(op.operands[0].type)
    indices = ir.RankedTensorType(op.operands[1].type)
    if not table.has_static_shape or table.rank < 1 or indices.has_static_shape:
        return False
    numbers = hlo.GatherDimensionNumbers(op.attributes["dimension_numbers"])
    vector = numbers.index_vector_dim
    if vector == indices.rank - 1 and indices.shape[-1] == 1:
        batch_shape = list(indices.shape[:-1])
    elif vector == indices.rank:
        batch_shape = list(indices.shape)
    else:
        return False
    if (
        list(numbers.start_index_map) != [0]
        or list(numbers.collapsed_slice_dims) != [0]
        or list(numbers.operand_batching_dims)
        or list(numbers.start_indices_batching_dims)
        or list(numbers.offset_dims)
        != list(range(len(batch_shape), len(batch_shape) + table.rank - 1))
        or list(ir.DenseI64ArrayAttr(op.attributes["slice_sizes"])) != [1, *table.shape[1:]]
    ):
        return False
    result = ir.RankedTensorType(op.results[0].type)
    return list(result.shape) == batch_shape + list(table.shape[1:])


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
    """An aval's dims as `abi.call` keeps them."""
    return tuple(_dim(size) for size in aval.shape)


def _dtype_name(aval: Any) -> str:
    return np.dtype(aval.dtype).name


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
            return Container("dataclass", children, fields, name)
        return Container("node", children, fields, name)
    if entries and all(isinstance(key, tree_util.DictKey) for key in entries):
        dict_keys = tuple(key.key for key in entries)
        if all(isinstance(key, (str, int)) for key in dict_keys):
            return Container("dict", children, dict_keys, name)
    return Container("node", children, (), name)


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
    return Program(text, MAIN, call)
