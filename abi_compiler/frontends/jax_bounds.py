"""StableHLO's own answer for an index out of bounds, spelled out for IREE: a JAX export's
gathers clamp each start index into the operand, and its scatters skip an update whose
window leaves the operand (the StableHLO semantics XLA implements, which JAX computes
with: `t[i]` with `i` past the end reads the last row, `t.at[i].set(v)` writes nothing).
IREE 3.13 lowers both to loads and stores with no bounds check: a gather read outside the
operand (wrong numbers), a scatter wrote outside it (a crash of the calling process).

`bound_indexing(module)`, run by `abi_compiler.frontends.jax` after `jax_rewrites.for_iree`,
writes the clamp before each gather (`stablehlo.clamp` of the start indices to ``[0,
dim - slice size]``) and sends each scatter window that would leave the operand into a
padding the scatter writes instead (the operand padded past its end by the window in
each scattered dim, the index of a window out of bounds moved there, the result sliced
back): JAX's values, and no access outside a buffer (docs/calling.md, "What the original
call checks"). `dynamic_slice` and `dynamic_update_slice`, which IREE clamps itself, are
left as they are.

JAX is an optional dependency, as for `abi_compiler.frontends.jax`.
"""

from __future__ import annotations

from typing import Any

# Imported by `abi_compiler.frontends.jax` only, after its own check that JAX is there.
from jax._src.lib.mlir import ir

__all__ = ["bound_indexing"]

GATHER = "stablehlo.gather"
SCATTER = "stablehlo.scatter"


def bound_indexing(module: Any) -> int:
    """Clamp every gather's start indices and keep every scatter's windows inside its
    operand (see the module docstring), in place. Returns how many ops were bounded; a
    gather or scatter of a dynamic shape is left as it is (IREE's lowering of those
    takes the indices clamped already: `jax_rewrites.rows_as_index_select`)."""
    found: list[Any] = []

    def visit(op: Any) -> Any:
        if op.operation.name in (GATHER, SCATTER) and _static(op.operation):
            found.append(op.operation)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for op in found:
        if op.name == GATHER:
            _clamp_gather(op)
        else:
            _pad_scatter(op)
    return len(found)


def _static(op: Any) -> bool:
    types = [*(value.type for value in op.operands), *(value.type for value in op.results)]
    return all(isinstance(t, ir.RankedTensorType) and t.has_static_shape for t in types)


def _clamp_gather(op: Any) -> None:
    """``start_indices`` of a gather clamped to ``[0, dim - slice size]`` of the operand
    dim each component indexes (`start_index_map`)."""
    from jax._src.lib.mlir.dialects import hlo

    operand = ir.RankedTensorType(op.operands[0].type)
    numbers = hlo.GatherDimensionNumbers(op.attributes["dimension_numbers"])
    sizes = list(ir.DenseI64ArrayAttr(op.attributes["slice_sizes"]))
    highs = [operand.shape[dim] - sizes[dim] for dim in numbers.start_index_map]
    with op.location:
        at = ir.InsertionPoint(op)
        indices = op.operands[1]
        low = _filled(indices, [0] * len(highs), numbers.index_vector_dim, at)
        high = _filled(indices, highs, numbers.index_vector_dim, at)
        clamped = ir.Operation.create(
            "stablehlo.clamp", results=[indices.type], operands=[low, indices, high], ip=at
        )
    op.operands[1] = clamped.results[0]


def _pad_scatter(op: Any) -> None:
    """A scatter whose windows out of bounds land in a padding: each scattered dim of the
    operands padded past its end by the window's size there, each index component out of
    ``[0, dim - window]`` replaced by ``dim`` (its window then lies in the padding), the
    results sliced back to the operands' shape."""
    from jax._src.lib.mlir.dialects import hlo

    count = len(op.results)
    operands = list(op.operands[:count])
    indices = op.operands[count]
    updates = list(op.operands[count + 1 :])
    shape = list(ir.RankedTensorType(operands[0].type).shape)
    update_shape = list(ir.RankedTensorType(updates[0].type).shape)
    numbers = hlo.ScatterDimensionNumbers(op.attributes["scatter_dimension_numbers"])
    inserted = set(numbers.inserted_window_dims) | set(numbers.input_batching_dims)
    window: list[int] = []
    update_dims = iter(numbers.update_window_dims)
    for dim in range(len(shape)):
        window.append(1 if dim in inserted else update_shape[next(update_dims)])
    scattered = list(numbers.scattered_dims_to_operand_dims)
    pads = [window[dim] if dim in scattered else 0 for dim in range(len(shape))]
    with op.location:
        at = ir.InsertionPoint(op)
        padded = [_pad(value, pads, at) for value in operands]
        highs = [shape[dim] - window[dim] for dim in scattered]
        ends = [shape[dim] for dim in scattered]
        vector = numbers.index_vector_dim
        element = ir.RankedTensorType(indices.type).element_type
        low = _filled(indices, [0] * len(highs), vector, at)
        high = _filled(indices, highs, vector, at)
        end = _filled(indices, ends, vector, at)
        mask_type = ir.RankedTensorType.get(
            ir.RankedTensorType(indices.type).shape, ir.IntegerType.get_signless(1)
        )
        below = _compare(indices, low, "LT", mask_type, element, at)
        above = _compare(indices, high, "GT", mask_type, element, at)
        outside = ir.Operation.create(
            "stablehlo.or", results=[mask_type], operands=[below, above], ip=at
        ).results[0]
        moved = ir.Operation.create(
            "stablehlo.select", results=[indices.type], operands=[outside, end, indices], ip=at
        ).results[0]
        scatter = ir.Operation.create(
            SCATTER,
            results=[value.type for value in padded],
            operands=[*padded, moved, *updates],
            attributes={name: op.attributes[name] for name in op.attributes},
            regions=1,
            ip=at,
        )
        # The update computation moves over as it is.
        op.regions[0].blocks[0].append_to(scatter.regions[0])
        results = [
            _slice(result, shape, original.type, at)
            for result, original in zip(scatter.results, op.results, strict=True)
        ]
    for old, new in zip(op.results, results, strict=True):
        old.replace_all_uses_with(new)
    op.erase()


def _filled(indices: Any, values: list[int], vector_dim: int, at: Any) -> Any:
    """A constant of the indices' type holding ``values[k]`` at position ``k`` of the
    index vector dim (every element ``values[0]`` when the vector is implicit)."""
    indices_type = ir.RankedTensorType(indices.type)
    element = indices_type.element_type
    shape = list(indices_type.shape)
    if vector_dim >= len(shape):
        flat = [values[0]] * _count(shape)
    else:
        flat = []
        for position in range(_count(shape)):
            flat.append(values[_coordinate(position, shape, vector_dim)])
    attr = ir.DenseElementsAttr.get(_array(flat, element), type=indices_type)
    return ir.Operation.create(
        "stablehlo.constant", results=[indices_type], attributes={"value": attr}, ip=at
    ).results[0]


def _count(shape: list[int]) -> int:
    total = 1
    for size in shape:
        total *= size
    return total


def _coordinate(position: int, shape: list[int], dim: int) -> int:
    """The coordinate along ``dim`` of the row-major ``position`` in ``shape``."""
    inner = _count(shape[dim + 1 :])
    return (position // inner) % shape[dim]


def _array(flat: list[int], element: Any) -> Any:
    import numpy as np

    width = ir.IntegerType(element).width
    unsigned = ir.IntegerType(element).is_unsigned
    dtype = np.dtype(f"{'u' if unsigned else 'i'}{max(width, 8) // 8}")
    if width == 1:
        dtype = np.dtype(np.bool_)
    return np.array(flat, dtype=dtype)


def _compare(left: Any, right: Any, direction: str, mask_type: Any, element: Any, at: Any) -> Any:
    kind = "UNSIGNED" if ir.IntegerType(element).is_unsigned else "SIGNED"
    return ir.Operation.create(
        "stablehlo.compare",
        results=[mask_type],
        operands=[left, right],
        attributes={
            "comparison_direction": ir.Attribute.parse(
                f"#stablehlo<comparison_direction {direction}>"
            ),
            "compare_type": ir.Attribute.parse(f"#stablehlo<comparison_type {kind}>"),
        },
        ip=at,
    ).results[0]


def _pad(value: Any, pads: list[int], at: Any) -> Any:
    """``value`` padded past its end by ``pads`` (its element type's zero)."""
    value_type = ir.RankedTensorType(value.type)
    if not any(pads):
        return value
    element = value_type.element_type
    scalar = ir.RankedTensorType.get([], element)
    zero = ir.Operation.create(
        "stablehlo.constant",
        results=[scalar],
        attributes={"value": ir.Attribute.parse(f"dense<{_zero(element)}> : {scalar}")},
        ip=at,
    ).results[0]
    shape = [size + pad for size, pad in zip(value_type.shape, pads, strict=True)]
    zeros = [0] * len(shape)
    return _shaped(
        "stablehlo.pad",
        [value, zero],
        ir.RankedTensorType.get(shape, element),
        {"edge_padding_low": zeros, "edge_padding_high": pads, "interior_padding": zeros},
        at,
    )


def _zero(element: Any) -> str:
    if isinstance(element, ir.IntegerType):
        return "false" if ir.IntegerType(element).width == 1 else "0"
    if isinstance(element, ir.ComplexType):
        return "(0.0, 0.0)"
    return "0.0"


def _slice(value: Any, shape: list[int], result_type: Any, at: Any) -> Any:
    if list(ir.RankedTensorType(value.type).shape) == shape:
        return value
    starts, strides = [0] * len(shape), [1] * len(shape)
    return _shaped(
        "stablehlo.slice",
        [value],
        result_type,
        {"start_indices": starts, "limit_indices": shape, "strides": strides},
        at,
    )


def _shaped(
    name: str, operands: list[Any], result: Any, dims: dict[str, list[int]], at: Any
) -> Any:
    """One op ``name`` whose attributes are lists of dims (`DenseI64ArrayAttr`)."""
    attributes: dict[str, Any] = {
        key: ir.DenseI64ArrayAttr.get(values) for key, values in dims.items()
    }
    return ir.Operation.create(
        name, results=[result], operands=operands, attributes=attributes, ip=at
    ).results[0]
