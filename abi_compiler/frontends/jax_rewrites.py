"""Rewrites of a JAX export for what IREE 3.13 cannot lower or run (docs/calling.md,
"Shape polymorphism" and "Compiler flags").

`abi_compiler.frontends.jax` runs `for_iree(module)` on the export's module (the MLIR
Python bindings that ship with jaxlib) before writing its calling convention. Each
rewrite below turns an op IREE 3.13 refuses into ops it lowers, computing the same
values, and leaves every other op as it is. Each has a section of its own, headed by the
upstream gap it works around: when IREE lowers the op itself, delete that section and
its line in `for_iree` (the helpers in "Shared" serve more than one).

JAX is an optional dependency, as for `abi_compiler.frontends.jax`.
"""

from __future__ import annotations

import re
from typing import Any

try:
    from jax._src.lib.mlir import ir
except ImportError as _error:  # pragma: no cover - as abi_compiler.frontends.jax
    raise ImportError(
        "abi_compiler.frontends.jax_rewrites needs JAX (jax and jaxlib, 0.4.14 or newer): "
        "pip install 'abi-compiler[jax]'"
    ) from _error


def for_iree(module: Any) -> list[str]:
    """Run every rewrite on ``module`` (an `ir.Module`, in place), in this order; the
    ``file:line:col: error: …`` lines of what `mark_nonexpanding_broadcasts` leaves as
    it is (IREE 3.13 cannot compile those)."""
    refused = mark_nonexpanding_broadcasts(module)
    drop_replicated_shardings(module)
    signless_main(module)
    rows_as_index_select(module)
    merges_as_collapse(module)
    flatten_dot_generals(module)
    constant_index_as_slice(module)
    loop_constants_behind_barriers(module)
    return refused


# --------------------------------------------------------------------------------------
# Shardy's sharding constraints on one device. JAX writes `sdy.mesh @empty_mesh` and
# `sdy.sharding_constraint %x <@empty_mesh, [{}]>` around a typed PRNG key's data
# (`jax.random.key`, `jax.random.split`): IREE 3.13 has no `sdy` dialect (`Dialect `sdy'
# not found for custom op 'sdy.mesh'`).
# --------------------------------------------------------------------------------------

SHARDING_CONSTRAINT = "sdy.sharding_constraint"
MESH = "sdy.mesh"


def drop_replicated_shardings(module: Any) -> int:
    """Drop each `sdy.sharding_constraint` on a mesh with no axes (a value replicated on
    the one device there is: the op returns its operand), then each `sdy.mesh` with no
    axes once no op names one. A constraint on a mesh with axes, or any other Shardy op,
    is left as it is (IREE refuses it: a module for several devices). Returns how many
    constraints were dropped."""
    constraints: list[Any] = []
    meshes: list[Any] = []
    others = 0

    def visit(op: Any) -> Any:
        nonlocal others
        name = op.operation.name
        if name == SHARDING_CONSTRAINT and _on_empty_mesh(op.operation):
            constraints.append(op.operation)
        elif name == MESH and _no_axes(op.operation):
            meshes.append(op.operation)
        elif name.startswith("sdy."):
            others += 1
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for op in constraints:
        op.results[0].replace_all_uses_with(op.operands[0])
        op.erase()
    if not others:
        for op in meshes:
            op.erase()
    return len(constraints)


def _on_empty_mesh(op: Any) -> bool:
    """A constraint on a mesh with no axes (`<@empty_mesh, [{?}, {}]>` over a mesh of
    `<[]>`): whatever its dims say, there is no axis to shard over. Read from the
    sharding's text: jaxlib's bindings have no Shardy attribute class."""
    sharding = str(op.attributes["sharding"])
    match = re.match(r"#sdy\.sharding<@([\w$.]+),", sharding)
    if match is None or op.operands[0].type != op.results[0].type:
        return False
    module = op
    while module.parent is not None:
        module = module.parent
    for candidate in module.regions[0].blocks[0].operations:
        if candidate.operation.name == MESH:
            symbol = ir.StringAttr(candidate.operation.attributes["sym_name"]).value
            if symbol == match.group(1):
                return _no_axes(candidate.operation)
    return False


def _no_axes(mesh: Any) -> bool:
    """An `sdy.mesh` of no axes (`#sdy.mesh<[]>`): one device."""
    return str(mesh.attributes["mesh"]) == "#sdy.mesh<[]>"


# --------------------------------------------------------------------------------------
# Unsigned tensors at the boundary of `@main`. A structured entry point's wrapper (the V1
# wrapper `wrap-entry-points` writes, which reads `@main`'s arguments out of lists) imports
# each array with `hal.tensor.import … -> tensor<2xui32>`: IREE 3.13's stablehlo input
# converts unsigned types to signless ones inside stablehlo ops but not in that op ("failed
# to legalize operation 'hal.tensor.import' that was explicitly marked illegal"), so a dict
# holding a `uint8` image or a flax nnx `RngCount` (`uint32`) did not compile.
# --------------------------------------------------------------------------------------

BITCAST = "stablehlo.bitcast_convert"


def signless_main(module: Any) -> int:
    """Make `@main` take and return signless tensors where it took unsigned ones: each
    such argument is cast back to its unsigned type at entry and each such result to
    signless before the return (`stablehlo.bitcast_convert`, the same bits; the records
    are signless already and `abi.call` keeps the unsigned dtype). Returns how many
    arguments and results changed."""
    main = next(
        (
            op
            for op in module.body.operations
            if op.operation.name == "func.func"
            and ir.StringAttr(op.operation.attributes["sym_name"]).value == "main"
        ),
        None,
    )
    if main is None:
        return 0
    main = main.operation
    with main.location:
        return _make_signless(main)


def _make_signless(main: Any) -> int:
    function_type = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
    inputs, results = list(function_type.inputs), list(function_type.results)
    block = main.regions[0].blocks[0]
    changed = 0
    for position, argument in enumerate(block.arguments):
        signless = _signless(argument.type)
        if signless is None:
            continue
        unsigned = argument.type
        cast = ir.Operation.create(
            BITCAST,
            results=[unsigned],
            operands=[argument],
            ip=ir.InsertionPoint.at_block_begin(block),
        )
        argument.replace_all_uses_except(cast.results[0], cast)
        argument.set_type(signless)
        inputs[position] = signless
        changed += 1
    for inner in main.regions[0].blocks:
        terminator = inner.operations[len(inner.operations) - 1].operation
        if terminator.name != "func.return":
            continue
        for position, value in enumerate(terminator.operands):
            signless = _signless(value.type)
            if signless is None:
                continue
            cast = ir.Operation.create(
                BITCAST, results=[signless], operands=[value], ip=ir.InsertionPoint(terminator)
            )
            terminator.operands[position] = cast.results[0]
            results[position] = signless
            changed += 1
    if changed:
        main.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))
    return changed


def _signless(t: Any) -> Any:
    """The signless type of a ranked tensor of unsigned integers; None for another type."""
    try:
        tensor = ir.RankedTensorType(t)
        element = ir.IntegerType(tensor.element_type)
    except ValueError:  # not a ranked tensor of integers
        return None
    if not element.is_unsigned:
        return None
    return ir.RankedTensorType.get(
        tensor.shape, ir.IntegerType.get_signless(element.width), tensor.encoding
    )


# --------------------------------------------------------------------------------------
# Shared: the sizes of a ranked tensor.
# --------------------------------------------------------------------------------------


def _sizes(t: Any) -> list[int | None]:
    return [None if t.is_dynamic_dim(i) else t.shape[i] for i in range(t.rank)]


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


# --------------------------------------------------------------------------------------
# Dynamic broadcasts: whether each dynamic dimension expands.
# IREE 3.13 lowers `stablehlo.dynamic_broadcast_in_dim` only when it knows, for each
# dynamic operand dimension, whether it expands; upstream:
# https://github.com/openxla/stablehlo/issues/2833 (the lowering to linalg fails with
# dynamic shapes) and https://github.com/iree-org/iree/pull/24941 (IREE lowering it
# when a dimension may be 1).
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
# Gathers of whole rows by a dynamic number of indices.
# IREE 3.13's `stablehlo.gather` lowering reshapes the indices to a static shape and
# refuses a dynamic one: `'stablehlo.reshape' op result #0 must be statically shaped`.
# No upstream issue names this form; its index-select lowering takes it.
# --------------------------------------------------------------------------------------

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


def _scalar(element: Any, value: int, at: Any) -> Any:
    """A `stablehlo.constant` 0-d tensor of the integer type ``element``, made at ``at``."""
    scalar = ir.RankedTensorType.get([], element)
    attr = ir.DenseElementsAttr.get_splat(scalar, ir.IntegerAttr.get(element, value))
    made = ir.Operation.create(
        "stablehlo.constant", results=[scalar], attributes={"value": attr}, ip=at
    )
    return made.results[0]


# --------------------------------------------------------------------------------------
# Dynamic reshapes that merge dimensions.
# IREE 3.13 refuses `stablehlo.dynamic_reshape`: `failed to legalize operation
# 'stablehlo.dynamic_reshape' that was explicitly marked illegal`; upstream:
# https://github.com/iree-org/iree/pull/24940 (lowering dynamic_reshape).
# --------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------
# Dense layers on an input with a dynamic dimension.
# IREE 3.13 flattens such a `stablehlo.dot_general` itself with a
# `stablehlo.dynamic_reshape` it then cannot legalize (`failed to legalize operation
# 'stablehlo.dynamic_reshape' that was explicitly marked illegal`); upstream:
# https://github.com/iree-org/iree/pull/24940 (lowering dynamic_reshape).
# --------------------------------------------------------------------------------------

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


def _product(sizes: Any) -> int:
    product = 1
    for size in sizes:
        product *= size
    return product


# --------------------------------------------------------------------------------------
# Dynamic gathers of one constant index.
# IREE 3.13 refuses `stablehlo.dynamic_gather`: `failed to legalize operation
# 'stablehlo.dynamic_gather' that was explicitly marked illegal`; upstream:
# https://github.com/iree-org/iree/issues/14913.
# --------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------
# Loops that start from a constant the function also returns.
# IREE 3.13 keeps one copy of a constant: when a function returns it and a
# `stablehlo.while` starts from it (JAX's `fori_loop` counter, 0, in the threefry
# PRNG of every `flax` init, beside a returned `jnp.zeros((), jnp.int32)` or optax's
# `count`), the loop is handed the function's result buffer, and the call fails in
# IREE's runtime: `OUT_OF_RANGE; indirect buffer reference slot 0 is out range of the
# declared binding capacity of the command buffer 0; while invoking native function
# hal.command_buffer.copy_buffer` (a null buffer copied; with or without indirect
# command buffers). docs/calling.md, "Compiler flags".
# --------------------------------------------------------------------------------------

WHILE = "stablehlo.while"
BARRIER = "stablehlo.optimization_barrier"


def loop_constants_behind_barriers(module: Any) -> int:
    """Pass each operand of a `stablehlo.while` that a `stablehlo.constant` makes through
    a `stablehlo.optimization_barrier` of its own (the same value), so that IREE starts
    the loop from a value of the loop's own, not from a constant it also returns.
    Returns how many operands were so passed."""
    found: list[tuple[Any, int]] = []

    def visit(op: Any) -> Any:
        if op.operation.name == WHILE:
            for index, operand in enumerate(op.operation.operands):
                if isinstance(operand, ir.OpResult) and operand.owner.name == "stablehlo.constant":
                    found.append((op.operation, index))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for op, index in found:
        operand = op.operands[index]
        with op.location:
            barrier = ir.Operation.create(
                BARRIER, results=[operand.type], operands=[operand], ip=ir.InsertionPoint(op)
            )
        op.operands[index] = barrier.results[0]
    return len(found)
