"""The interpreter implementations of the util, abi and hal ops (dialects/interpreter.py)."""

from __future__ import annotations

from typing import Any

import pytest
from xdsl.interpreter import Interpreter
from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.func import FuncFunctions
from xdsl.utils.exceptions import InterpretationError

from abi_compiler.dialects.interpreter import ALL_FUNCTIONS, tensor_shape
from tests.dialects.helpers import parse


def run(text: str, *args: Any) -> tuple[Any, ...]:
    """Call `@f` of the module ``text`` with ``args``."""
    interpreter = Interpreter(parse(text))
    interpreter.register_implementations(FuncFunctions())
    interpreter.register_implementations(ArithFunctions())
    for functions in ALL_FUNCTIONS:
        interpreter.register_implementations(functions())
    return interpreter.call_op("f", args)


def test_list_create_resize_set_get_size() -> None:
    text = """
    func.func @f(%x: i32) -> (!util.list<?>, i32, index) {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %l = util.list.create %c2 : !util.list<?>
      util.list.resize %l, %c2 : !util.list<?>
      util.list.set %l[%c0], %x : i32 -> !util.list<?>
      %y = util.list.get %l[%c0] : !util.list<?> -> i32
      %n = util.list.size %l : !util.list<?>
      return %l, %y, %n : !util.list<?>, i32, index
    }
    """
    assert run(text, 7) == ([7, None], 7, 2)


def test_list_resize_shrinks_and_lists_are_references() -> None:
    text = """
    func.func @f(%l: !util.list<i32>) -> index {
      %c1 = arith.constant 1 : index
      util.list.resize %l, %c1 : !util.list<i32>
      %n = util.list.size %l : !util.list<i32>
      return %n : index
    }
    """
    values = [1, 2, 3]
    assert run(text, values) == (1,)
    assert values == [1]


def test_list_get_out_of_range() -> None:
    text = """
    func.func @f(%l: !util.list<i32>) -> i32 {
      %c3 = arith.constant 3 : index
      %x = util.list.get %l[%c3] : !util.list<i32>
      return %x : i32
    }
    """
    with pytest.raises(InterpretationError, match="index 3 is out of range for a list of size 2"):
        run(text, [1, 2])


def test_list_set_out_of_range() -> None:
    text = """
    func.func @f(%l: !util.list<i32>, %x: i32) {
      %c0 = arith.constant 0 : index
      util.list.set %l[%c0], %x : !util.list<i32>
      return
    }
    """
    with pytest.raises(InterpretationError, match="out of range"):
        run(text, [], 1)


def test_tuple_pack_get() -> None:
    text = """
    func.func @f(%a: i32, %b: f32) -> (tuple<i32, f32>, f32) {
      %t = abi.tuple.pack %a, %b : (i32, f32) -> tuple<i32, f32>
      %x = abi.tuple.get %t[1] : tuple<i32, f32> -> f32
      return %t, %x : tuple<i32, f32>, f32
    }
    """
    assert run(text, 1, 2.5) == ((1, 2.5), 2.5)


def test_dict_pack_in_sorted_key_order_and_get() -> None:
    text = """
    func.func @f(%a: i32, %b: f32) -> (!abi.dict<"m": f32, "k": i32>, i32) {
      %d = abi.dict.pack %a, %b : (i32, f32) -> !abi.dict<"m": f32, "k": i32>
      %x = abi.dict.get %d["k"] : !abi.dict<"m": f32, "k": i32> -> i32
      return %d, %x : !abi.dict<"m": f32, "k": i32>, i32
    }
    """
    packed, value = run(text, 1, 2.5)
    assert packed == {"k": 1, "m": 2.5}
    assert list(packed) == ["k", "m"]
    assert value == 1


REF_ARRAY_ROUND_TRIP = """
func.func @f(%arr: tensor<2x?x!util.list<i32>>) -> (!util.list<?>, tensor<2x?x!util.list<i32>>) {
  %l = abi.ref_array.to_lists %arr : tensor<2x?x!util.list<i32>> -> !util.list<?>
  %back = abi.ref_array.from_lists %l : !util.list<?> -> tensor<2x?x!util.list<i32>>
  return %l, %back : !util.list<?>, tensor<2x?x!util.list<i32>>
}
"""


def test_ref_array_to_lists_and_back() -> None:
    array = [[[1], [2], [3]], [[4], [5], [6]]]
    lists, back = run(REF_ARRAY_ROUND_TRIP, array)
    assert lists == [[[1], [2], [3], [4], [5], [6]], [2, 3]]
    assert back == array


def test_ref_array_to_lists_rejects_ragged_arrays() -> None:
    with pytest.raises(InterpretationError, match="not a nested list"):
        run(REF_ARRAY_ROUND_TRIP, [[[1]], [[2], [3]]])


def test_ref_array_to_lists_rejects_static_dim_mismatch() -> None:
    with pytest.raises(InterpretationError, match="dimension 0 is 1, not 2"):
        run(REF_ARRAY_ROUND_TRIP, [[[1]]])


def test_ref_array_with_a_zero_dim() -> None:
    text = """
    func.func @f(%arr: tensor<0x3x!util.list<i32>>) -> (!util.list<?>, tensor<0x3x!util.list<i32>>) {
      %l = abi.ref_array.to_lists %arr : tensor<0x3x!util.list<i32>> -> !util.list<?>
      %back = abi.ref_array.from_lists %l : !util.list<?> -> tensor<0x3x!util.list<i32>>
      return %l, %back : !util.list<?>, tensor<0x3x!util.list<i32>>
    }
    """
    assert run(text, []) == ([[], [0, 3]], [])


def test_ref_array_rank_0_is_its_element() -> None:
    text = """
    func.func @f(%arr: tensor<!util.list<i32>>) -> (!util.list<?>, tensor<!util.list<i32>>) {
      %l = abi.ref_array.to_lists %arr : tensor<!util.list<i32>> -> !util.list<?>
      %back = abi.ref_array.from_lists %l : !util.list<?> -> tensor<!util.list<i32>>
      return %l, %back : !util.list<?>, tensor<!util.list<i32>>
    }
    """
    assert run(text, [1, 2]) == ([[[1, 2]], []], [1, 2])


FROM_LISTS = """
func.func @f(%l: !util.list<?>) -> tensor<2x?x!util.list<i32>> {
  %arr = abi.ref_array.from_lists %l : !util.list<?> -> tensor<2x?x!util.list<i32>>
  return %arr : tensor<2x?x!util.list<i32>>
}
"""


@pytest.mark.parametrize(
    ("lists", "message"),
    [
        ([[1, 2]], "expected a list of two lists"),
        ([[1, 2], [2]], r"dims \[2\] do not match"),
        ([[1, 2], [3, 1]], r"dims \[3, 1\] do not match"),
        ([[1, 2, 3], [2, 1]], r"dims \[2, 1\] hold 2 elements, but the values list has 3"),
    ],
)
def test_ref_array_from_lists_checks_dims(lists: list[Any], message: str) -> None:
    with pytest.raises(InterpretationError, match=message):
        run(FROM_LISTS, lists)


HAL = """
func.func @f(%bv: !hal.buffer_view) -> (index, tensor<?x2xf32>, !hal.buffer_view) {
  %d0 = hal.buffer_view.dim<%bv : !hal.buffer_view>[0] : index
  %t = hal.tensor.import %bv : !hal.buffer_view -> tensor<?x2xf32>{%d0}
  %out = hal.tensor.export %t : tensor<?x2xf32>{%d0} -> !hal.buffer_view
  return %d0, %t, %out : index, tensor<?x2xf32>, !hal.buffer_view
}
"""


def test_hal_import_export_are_identity() -> None:
    value = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    assert run(HAL, value) == (3, value, value)


def test_hal_import_checks_the_shape() -> None:
    with pytest.raises(InterpretationError, match=r"shape \[1, 3\] does not match"):
        run(HAL, [[1.0, 2.0, 3.0]])


def test_buffer_view_dim_beyond_rank() -> None:
    text = """
    func.func @f(%bv: !hal.buffer_view) -> index {
      %d = hal.buffer_view.dim<%bv : !hal.buffer_view>[1] : index
      return %d : index
    }
    """
    with pytest.raises(InterpretationError, match="no dimension 1"):
        run(text, [1.0])


class _Shaped:
    shape = (2, 5)


def test_tensor_shape_reads_shape_attribute_or_nesting() -> None:
    assert tensor_shape(_Shaped()) == (2, 5)
    assert tensor_shape([[1, 2, 3]]) == (1, 3)
    assert tensor_shape([]) == (0,)
    assert tensor_shape(1.0) is None
