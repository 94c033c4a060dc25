"""xDSL interpreter implementations of the `util`, `abi` and `hal` ops, so lowered
functions can be run in tests (`xdsl.interpreter.Interpreter`).

Value representation:

* `!util.list<…>` (and `!iree.list<…>`): a Python `list`, shared by reference like an
  `iree_vm_list`; new slots from `util.list.resize` hold `None`.
* builtin `tuple<…>`: a Python `tuple`; `!abi.dict<…>`: a Python `dict` whose insertion
  order is the sorted key order.
* `index` and integers: Python `int`.
* tensors are opaque here (`hal.tensor.import` / `hal.tensor.export` pass the value
  through), except that their shape is read (`hal.buffer_view.dim`, the import's shape
  check) from a `.shape` attribute (numpy arrays, xDSL's `ShapedArray`) or, for nested
  Python lists, from the nesting.
* an ND-array of references (`tensor<2x3x!util.list<i32>>`): nested Python lists, one
  level per dimension, in row-major order; a rank-0 array is its single element.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from xdsl.dialects.builtin import TensorType
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.utils.exceptions import InterpretationError

from abi_compiler.dialects import abi, hal, util


def _list_index(values: list[Any], index: int, op_name: str) -> int:
    if not 0 <= index < len(values):
        raise InterpretationError(
            f"{op_name}: index {index} is out of range for a list of size {len(values)}"
        )
    return index


@register_impls
class UtilFunctions(InterpreterFunctions):
    """`util.list.*` on Python lists."""

    @impl(util.ListCreateOp)
    def run_list_create(
        self, interpreter: Interpreter, op: util.ListCreateOp, args: tuple[Any, ...]
    ) -> tuple[list[Any]]:
        return ([],)

    @impl(util.ListSizeOp)
    def run_list_size(
        self, interpreter: Interpreter, op: util.ListSizeOp, args: tuple[list[Any]]
    ) -> tuple[int]:
        return (len(args[0]),)

    @impl(util.ListResizeOp)
    def run_list_resize(
        self, interpreter: Interpreter, op: util.ListResizeOp, args: tuple[list[Any], int]
    ) -> tuple[()]:
        values, new_size = args
        if new_size < 0:
            raise InterpretationError(f"util.list.resize: negative size {new_size}")
        del values[new_size:]
        values.extend([None] * (new_size - len(values)))
        return ()

    @impl(util.ListGetOp)
    def run_list_get(
        self, interpreter: Interpreter, op: util.ListGetOp, args: tuple[list[Any], int]
    ) -> tuple[Any]:
        values, index = args
        return (values[_list_index(values, index, op.name)],)

    @impl(util.ListSetOp)
    def run_list_set(
        self, interpreter: Interpreter, op: util.ListSetOp, args: tuple[list[Any], int, Any]
    ) -> tuple[()]:
        values, index, value = args
        values[_list_index(values, index, op.name)] = value
        return ()


@register_impls
class AbiFunctions(InterpreterFunctions):
    """`abi.*` on Python tuples, dicts and nested lists."""

    @impl(abi.TuplePackOp)
    def run_tuple_pack(
        self, interpreter: Interpreter, op: abi.TuplePackOp, args: tuple[Any, ...]
    ) -> tuple[tuple[Any, ...]]:
        return (tuple(args),)

    @impl(abi.TupleGetOp)
    def run_tuple_get(
        self, interpreter: Interpreter, op: abi.TupleGetOp, args: tuple[tuple[Any, ...]]
    ) -> tuple[Any]:
        return (args[0][op.index.value.data],)

    @impl(abi.DictPackOp)
    def run_dict_pack(
        self, interpreter: Interpreter, op: abi.DictPackOp, args: tuple[Any, ...]
    ) -> tuple[dict[str, Any]]:
        dict_type = op.result.type
        assert isinstance(dict_type, abi.DictType)
        keys = [key for key, _ in dict_type.sorted_entries()]
        return (dict(zip(keys, args, strict=True)),)

    @impl(abi.DictGetOp)
    def run_dict_get(
        self, interpreter: Interpreter, op: abi.DictGetOp, args: tuple[dict[str, Any]]
    ) -> tuple[Any]:
        return (args[0][op.key.data],)

    @impl(abi.RefArrayToListsOp)
    def run_ref_array_to_lists(
        self, interpreter: Interpreter, op: abi.RefArrayToListsOp, args: tuple[Any]
    ) -> tuple[list[Any]]:
        array_type = op.array.type
        assert isinstance(array_type, TensorType)
        values, dims = _flatten(args[0], array_type.get_shape(), op.name)
        return ([values, dims],)

    @impl(abi.RefArrayFromListsOp)
    def run_ref_array_from_lists(
        self, interpreter: Interpreter, op: abi.RefArrayFromListsOp, args: tuple[list[Any]]
    ) -> tuple[Any]:
        array_type = op.result.type
        assert isinstance(array_type, TensorType)
        lists = args[0]
        if len(lists) != 2 or not all(isinstance(item, list) for item in lists):
            raise InterpretationError(
                f"{op.name}: expected a list of two lists (values, dims), got {lists!r}"
            )
        values, dims = lists
        shape = array_type.get_shape()
        if len(dims) != len(shape) or any(
            static >= 0 and static != dim for static, dim in zip(shape, dims, strict=True)
        ):
            raise InterpretationError(f"{op.name}: dims {dims} do not match {array_type}")
        if math.prod(dims) != len(values):
            raise InterpretationError(
                f"{op.name}: dims {dims} hold {math.prod(dims)} elements, "
                f"but the values list has {len(values)}"
            )
        return (_nest(values, dims),)


def _flatten(array: Any, shape: Sequence[int], op_name: str) -> tuple[list[Any], list[int]]:
    """The elements of a nested-list array of rank ``len(shape)`` in row-major order, and
    its dims (dynamic dims of ``shape`` are read from the nesting)."""
    dims: list[int] = []
    level: list[Any] = [array]
    for static in shape:
        if not level:  # an earlier dimension is 0: nothing left to measure
            size = max(static, 0)
        else:
            size = len(level[0]) if isinstance(level[0], (list, tuple)) else -1
        if any(not isinstance(row, (list, tuple)) or len(row) != size for row in level):
            raise InterpretationError(f"{op_name}: the array is not a nested list of {shape}")
        if static >= 0 and static != size:
            raise InterpretationError(f"{op_name}: dimension {len(dims)} is {size}, not {static}")
        dims.append(size)
        level = [item for row in level for item in row]
    return level, dims


def _nest(values: Sequence[Any], dims: Sequence[int]) -> Any:
    """Row-major ``values`` as nested lists of ``dims`` (rank 0: the single element)."""
    if not dims:
        return values[0]
    if len(dims) == 1:
        return list(values)
    stride = math.prod(dims[1:])
    return [_nest(values[i * stride : (i + 1) * stride], dims[1:]) for i in range(dims[0])]


def tensor_shape(value: Any) -> tuple[int, ...] | None:
    """The shape of a tensor value: its `.shape` (numpy arrays, xDSL's `ShapedArray`), or
    the nesting of a nested Python list; None if it cannot be told."""
    shape = getattr(value, "shape", None)
    if shape is not None:
        return tuple(int(dim) for dim in shape)
    if not isinstance(value, (list, tuple)):
        return None
    dims: list[int] = []
    while isinstance(value, (list, tuple)):
        dims.append(len(value))
        if not value:
            break
        value = value[0]
    return tuple(dims)


@register_impls
class HalFunctions(InterpreterFunctions):
    """`hal.*`: a buffer view is the tensor value itself."""

    @impl(hal.TensorImportOp)
    def run_tensor_import(
        self, interpreter: Interpreter, op: hal.TensorImportOp, args: tuple[Any, ...]
    ) -> tuple[Any]:
        value, *dynamic_dims = args
        target_type = op.target.type
        assert isinstance(target_type, TensorType)
        shape = tensor_shape(value)
        if shape is not None:
            dynamic = iter(dynamic_dims)
            expected = tuple(next(dynamic) if dim < 0 else dim for dim in target_type.get_shape())
            if shape != expected:
                raise InterpretationError(
                    f"{op.name}: buffer view of shape {list(shape)} does not match "
                    f"{target_type} with dims {list(expected)}"
                )
        return (value,)

    @impl(hal.TensorExportOp)
    def run_tensor_export(
        self, interpreter: Interpreter, op: hal.TensorExportOp, args: tuple[Any, ...]
    ) -> tuple[Any]:
        return (args[0],)

    @impl(hal.BufferViewDimOp)
    def run_buffer_view_dim(
        self, interpreter: Interpreter, op: hal.BufferViewDimOp, args: tuple[Any]
    ) -> tuple[int]:
        shape = tensor_shape(args[0])
        index = op.index.value.data
        if shape is None or index >= len(shape):
            raise InterpretationError(f"{op.name}: no dimension {index} in {args[0]!r}")
        return (shape[index],)


ALL_FUNCTIONS: tuple[type[InterpreterFunctions], ...] = (
    UtilFunctions,
    AbiFunctions,
    HalFunctions,
)
"""Register each with `Interpreter.register_implementations(cls())`."""
