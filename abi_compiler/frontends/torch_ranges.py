"""The values an exported program's integer inputs may take, found in its graph: where the
program indexes a buffer with an input's values (an `index_copy` into a KV cache at
``arange(n) + cache_position[0]``, an `embedding` of ``input_ids``), the values that stay
inside the buffer. IREE 3.13 lowers those indexings to gathers and scatters with no bounds
check (eager torch refuses an index out of range; the compiled module read or wrote outside
the buffer: wrong numbers, or a crash of the calling process), so the frontend records the
ranges in the original call (`abi_compiler.call_model.ValueRange`) and a call checks them
before the VM runs (docs/calling.md, "What the original call checks").

The analysis follows each integer input through the ops that move its values or add a
constant to them, exactly: every integer tensor it reaches is known as
``input.flat[positions] + offsets``, two integer tensors of its shape (the ops applied to
the positions and offsets as to the values), and constants as themselves (``arange``, a
number). Any other op (a product, a value from two inputs, a dynamic shape) stops it: the
input is then not bounded by what follows, never bounded wrongly. An input of dynamic
shape (a prompt of any length: ``input_ids: int64[1,seq]``) is followed as a whole, as
``input + offset`` for one constant offset, through the ops that keep every one of its
values (`_KEEP_EVERY_VALUE`, conversions, the addition of a number): an indexing then bounds
all its elements alike. Needs torch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from abi_compiler.call_model import ValueRange

__all__ = ["INDEXING", "value_ranges"]

aten = torch.ops.aten

# A tensor of at most this many elements is followed (an index, a position); larger ones
# (activations) never are.
_MAX_ELEMENTS = 1 << 16

# Ops that move values (or keep them: an integer dtype conversion) without computing new
# ones: applied to the positions and offsets with the same other operands.
_MOVES = {
    aten.view.default,
    aten._unsafe_view.default,
    aten.reshape.default,
    aten.unsqueeze.default,
    aten.squeeze.default,
    aten.squeeze.dim,
    aten.squeeze.dims,
    aten.expand.default,
    aten.permute.default,
    aten.transpose.int,
    aten.t.default,
    aten.select.int,
    aten.slice.Tensor,
    aten.clone.default,
    aten.alias.default,
    aten.detach.default,
    aten.lift_fresh_copy.default,
    aten.flatten.using_ints,
    aten.contiguous.default,
}
# Conversions, which keep an integer's value when the result is an integer type (a
# narrower type wraps a value that does not fit it: the range, stated on the input, then
# refuses more than the program would, never less).
_CONVERSIONS = {
    aten._to_copy.default,
    aten.to.dtype,
    aten.to.dtype_layout,
    aten.to.device,
    aten._assert_tensor_metadata.default,
}

#: The ops that index a buffer with an operand: op -> (buffer operand, index operand,
#: dim operand or None for dim 0). `index_put` and `index` take a list of indices, one
#: per leading dim (`_indexings`).
INDEXING: dict[Any, tuple[int, int, int | None]] = {
    aten.index_copy.default: (0, 2, 1),
    aten.index_copy_.default: (0, 2, 1),
    aten.index_select.default: (0, 2, 1),
    aten.embedding.default: (0, 1, None),
    aten.gather.default: (0, 2, 1),
    aten.scatter.src: (0, 2, 1),
    aten.scatter.value: (0, 2, 1),
    aten.scatter_add.default: (0, 2, 1),
    aten.scatter.reduce: (0, 2, 1),
    aten.scatter.value_reduce: (0, 2, 1),
}
_INDEX_LISTS = {
    aten.index_put.default,
    aten.index_put_.default,
    aten.index.Tensor,
    aten._unsafe_index.Tensor,
    aten._unsafe_index_put.default,
}
# Of those, the ones whose IREE lowering takes a negative index from the end, as eager
# torch does (`table[idx]` with -1 gave the last row). IREE's `index_put` writes nothing
# for -1 (eager torch writes the last row), and its `index_select` and `gather` crashed
# the process for -1 (eager torch refuses it): those take [0, size) only.
_FROM_THE_END = {aten.index.Tensor}


# Of the moves, those that keep every value of their operand (only reshaped, reordered or
# repeated): what bounds their result bounds every element of an input of dynamic shape.
_KEEP_EVERY_VALUE = _MOVES - {aten.select.int, aten.slice.Tensor}


class _Whole:
    """An integer tensor of dynamic shape whose values are those of ``input`` plus
    ``offset`` (each of the input's values at least once)."""

    __slots__ = ("name", "offset")

    def __init__(self, name: str, offset: int) -> None:
        self.name, self.offset = name, offset


class _Input:
    """An integer tensor whose values are ``input.flat[positions] + offsets``."""

    __slots__ = ("name", "offsets", "positions")

    def __init__(self, name: str, positions: torch.Tensor, offsets: torch.Tensor) -> None:
        self.name, self.positions, self.offsets = name, positions, offsets


def value_ranges(exported: torch.export.ExportedProgram) -> dict[str, tuple[ValueRange, ...]]:
    """The value ranges of the program's user inputs, by placeholder name: each input
    whose values index a buffer (directly or through `_MOVES`, `_CONVERSIONS` and the
    addition of constants), bounded so that every index stays inside it."""
    user_inputs = set(exported.graph_signature.user_inputs)
    known: dict[Any, Any] = {}
    # Per input: flat position -> [low, high] (None: unbounded so far).
    bounds: dict[str, dict[int, list[int | None]]] = {}
    counts: dict[str, int] = {}
    for node in exported.graph.nodes:
        if node.op == "placeholder":
            value = node.meta.get("val")
            if node.name in user_inputs and _followed(value):
                count = counts[node.name] = value.numel()
                positions = torch.arange(count, dtype=torch.int64).reshape(value.shape)
                known[node] = _Input(node.name, positions, torch.zeros_like(positions))
            elif node.name in user_inputs and _dynamic_integers(value):
                counts[node.name] = -1
                known[node] = _Whole(node.name, 0)
            continue
        if node.op != "call_function":
            continue
        for index, lowest, highest in _indexings(node):
            found = known.get(index)
            if isinstance(found, _Input):
                _bound(bounds.setdefault(found.name, {}), found, lowest, highest)
            elif isinstance(found, _Whole):
                # Every element alike: the one bound is kept at position -1.
                every = bounds.setdefault(found.name, {}).setdefault(-1, [None, None])
                _narrow(every, lowest - found.offset, highest - found.offset)
        value = node.meta.get("val")
        if isinstance(known.get(node.args[0] if node.args else None), _Whole):
            whole = _whole_transfer(node, known)
            if whole is not None and _dynamic_integers(value):
                known[node] = whole
            continue
        try:
            result = _transfer(node, known)
        except Exception:  # an op the tensors of positions cannot take: not followed
            result = None
        if result is not None and _followed(value) and _same_shape(result, value):
            known[node] = result
    return {
        name: (ValueRange(found[-1][0], found[-1][1]),)
        if counts[name] == -1
        else _grouped(found, counts[name])
        for name, found in bounds.items()
        if found
    }


def _dynamic_integers(value: Any) -> bool:
    """An integer tensor with a dynamic dim (followed as a whole: `_Whole`)."""
    if not isinstance(value, torch.Tensor) or value.dtype.is_floating_point:
        return False
    if value.dtype.is_complex or value.dtype == torch.bool:
        return False
    return not all(isinstance(size, int) for size in value.shape)


def _whole_transfer(node: Any, known: dict[Any, Any]) -> _Whole | None:
    """The value of ``node`` whose first operand is followed as a whole, or None: kept by
    the ops that keep every value and by integer conversions, offset by the addition or
    subtraction of a number."""
    target, args, kwargs = node.target, node.args, node.kwargs
    source = known[args[0]]
    if target in _KEEP_EVERY_VALUE or target in _CONVERSIONS:
        return source
    if target in (aten.add.Tensor, aten.add.Scalar, aten.sub.Tensor, aten.sub.Scalar):
        alpha = kwargs.get("alpha", 1)
        if len(args) != 2 or type(args[1]) is not int or type(alpha) is not int:
            return None
        sign = -1 if target in (aten.sub.Tensor, aten.sub.Scalar) else 1
        offset = source.offset + sign * alpha * args[1]
        return _Whole(source.name, offset) if abs(offset) <= _MAX_OFFSET else None
    return None


def _followed(value: Any) -> bool:
    """An integer tensor of static shape, small enough to follow."""
    if not isinstance(value, torch.Tensor) or value.dtype.is_floating_point:
        return False
    if value.dtype.is_complex or value.dtype == torch.bool:
        return False
    if not all(isinstance(size, int) for size in value.shape):
        return False
    return value.numel() <= _MAX_ELEMENTS


def _same_shape(result: Any, value: torch.Tensor) -> bool:
    shape = result.positions.shape if isinstance(result, _Input) else result.shape
    return tuple(shape) == tuple(value.shape)


def _indexings(node: Any) -> list[tuple[Any, int, int]]:
    """The (index operand, lowest and highest index it may hold) triples of an indexing
    op: ``[0, size)`` of the dim it indexes, ``[-size, size)`` where negative indices
    count from the end (`_FROM_THE_END`)."""
    return [
        (index, -size if node.target in _FROM_THE_END else 0, size - 1)
        for index, size in _indexed_dims(node)
    ]


def _indexed_dims(node: Any) -> list[tuple[Any, int]]:
    """The (index operand, size of the dim it indexes) pairs of an indexing op."""
    args = node.args
    spec = INDEXING.get(node.target)
    found: list[tuple[Any, int]] = []
    if spec is not None:
        buffer, index, dim = spec
        shape = _shape(args[buffer]) if len(args) > max(buffer, index) else None
        axis = args[dim] if dim is not None and len(args) > dim else 0
        if shape is not None and isinstance(axis, int) and -len(shape) <= axis < len(shape):
            size = shape[axis]
            if isinstance(size, int):
                found.append((args[index], size))
    elif node.target in _INDEX_LISTS and len(args) >= 2:
        shape = _shape(args[0])
        indices = args[1]
        if shape is not None and isinstance(indices, (list, tuple)):
            for axis, index in enumerate(indices):
                if index is not None and axis < len(shape) and isinstance(shape[axis], int):
                    found.append((index, shape[axis]))
    return found


def _shape(node: Any) -> tuple[Any, ...] | None:
    value = node.meta.get("val") if hasattr(node, "meta") else None
    return tuple(value.shape) if isinstance(value, torch.Tensor) else None


def _transfer(node: Any, known: dict[Any, Any]) -> Any:
    """The value of ``node`` as `value_ranges` knows it, or None."""
    target, args, kwargs = node.target, node.args, node.kwargs
    if (
        target is aten.arange.default
        or target is aten.arange.start
        or target is (aten.arange.start_step)
    ):
        if all(type(arg) is int and abs(arg) <= _MAX_OFFSET for arg in args):
            return _small(torch.arange(*args, dtype=torch.int64))
        return None
    if target in _MOVES:
        return _moved(target, args, kwargs, known)
    if target in _CONVERSIONS:
        source = known.get(args[0]) if args else None
        return source if _integer_result(node) else None
    if target is aten.copy.default and len(args) >= 2:
        # The destination's shape, filled with the source's values.
        source = known.get(args[1])
        shape = _shape(args[0])
        if source is None or shape is None:
            return None
        return _apply(source, lambda t: t.expand(shape).clone())
    if target in (aten.add.Tensor, aten.add.Scalar, aten.sub.Tensor, aten.sub.Scalar):
        alpha = kwargs.get("alpha", 1)
        if type(alpha) is not int or len(args) != 2:
            return None
        if target in (aten.sub.Tensor, aten.sub.Scalar):
            alpha = -alpha
        left, right = (_operand(arg, known) for arg in args)
        if left is None or right is None:
            return None
        if isinstance(left, _Input) and isinstance(right, _Input):
            return None
        if isinstance(right, _Input):  # constant - input: a negated input, not followed
            if alpha != 1:
                return None
            left, right = right, left
        if isinstance(left, _Input):
            positions, offsets, addend = torch.broadcast_tensors(
                left.positions, left.offsets, right
            )
            return _small(_Input(left.name, positions.clone(), offsets + alpha * addend))
        return _small(left + alpha * right)
    return None


# Offsets and constants are followed while they stay this small: their sums never wrap
# int64 (a bound from a wrapped sum would be wrong).
_MAX_OFFSET = 1 << 48


def _small(value: Any) -> Any:
    """``value`` (a followed input or a constant), or None when a number in it is beyond
    `_MAX_OFFSET`."""
    numbers = value.offsets if isinstance(value, _Input) else value
    if numbers.numel() and int(numbers.abs().max()) > _MAX_OFFSET:
        return None
    return value


def _operand(arg: Any, known: dict[Any, Any]) -> Any:
    """An operand as `_transfer` knows it: a followed value, a constant tensor (an int),
    or None."""
    if type(arg) is int:
        return torch.tensor(arg, dtype=torch.int64) if abs(arg) <= _MAX_OFFSET else None
    return known.get(arg)


def _moved(target: Any, args: Any, kwargs: Any, known: dict[Any, Any]) -> Any:
    source = known.get(args[0]) if args else None
    if source is None:
        return None
    rest = args[1:]
    if not all(_static(arg) for arg in rest) or not all(_static(v) for v in kwargs.values()):
        return None
    return _apply(source, lambda t: target(t, *rest, **kwargs))


def _static(arg: Any) -> bool:
    """An operand that is no tensor and no symbolic size."""
    if isinstance(arg, (list, tuple)):
        return all(_static(item) for item in arg)
    return arg is None or type(arg) in (int, bool, float) or isinstance(arg, torch.memory_format)


def _apply(source: Any, op: Callable[[torch.Tensor], torch.Tensor]) -> Any:
    if isinstance(source, _Input):
        return _Input(source.name, op(source.positions), op(source.offsets))
    return op(source)


def _integer_result(node: Any) -> bool:
    return _followed(node.meta.get("val"))


def _bound(found: dict[int, list[int | None]], value: _Input, lowest: int, highest: int) -> None:
    """Every ``input.flat[p] + o`` of ``value`` in ``[lowest, highest]``: ``lowest - o <=
    input.flat[p] <= highest - o`` for each pair, narrowing what ``found`` holds."""
    positions = value.positions.reshape(-1).tolist()
    offsets = value.offsets.reshape(-1).tolist()
    for position, offset in zip(positions, offsets, strict=True):
        _narrow(found.setdefault(position, [None, None]), lowest - offset, highest - offset)


def _narrow(bound: list[int | None], low: int, high: int) -> None:
    """``bound`` ([low, high], None: unbounded so far) narrowed to ``[low, high]``."""
    bound[0] = low if bound[0] is None else max(bound[0], low)
    bound[1] = high if bound[1] is None else min(bound[1], high)


def _grouped(found: dict[int, list[int | None]], count: int) -> tuple[ValueRange, ...]:
    """The bounds of the input's ``count`` elements as ranges: one for every element when
    they all have the same, else one per distinct bound with the positions it holds for."""
    groups: dict[tuple[int | None, int | None], list[int]] = {}
    for position in sorted(found):
        low, high = found[position]
        groups.setdefault((low, high), []).append(position)
    if len(groups) == 1 and len(found) == count:
        ((low, high),) = groups
        return (ValueRange(low, high),)
    return tuple(
        ValueRange(low, high, tuple(positions)) for (low, high), positions in groups.items()
    )
