"""`unpack` (docs/spec.md §10): re-assembling results per the `r` records of `iree.abi`."""

from __future__ import annotations

from typing import Any

import pytest

from abi_compiler.runtime import unpack
from tests.calling.helpers import abi, error_of

# --------------------------------------------------------------------------------------
# Result arity: 0 → None, 1 → the value, more → a tuple.
# --------------------------------------------------------------------------------------


def test_no_results_is_none() -> None:
    assert unpack(abi([], []), []) is None


def test_one_result_is_the_value() -> None:
    assert unpack(abi([], ["i32"]), [3]) == 3
    assert unpack(abi([], [["ndarray", "f32", 1, 2]]), [[1.0, 2.0]]) == [1.0, 2.0]


def test_several_results_are_a_tuple() -> None:
    assert unpack(abi([], ["i32", "f32", ["ndarray", "f32", 0]]), [1, 2, 3.0]) == (1, 2.0, 3.0)


def test_result_count_must_match() -> None:
    assert error_of(unpack, abi([], []), [1]) == "expected 0 results, got 1"
    assert error_of(unpack, abi([], ["i32"]), []) == "expected 1 result, got 0"
    assert error_of(unpack, abi([], ["i32", "i32"]), [1, 2, 3]) == "expected 2 results, got 3"


def test_results_must_be_a_sequence() -> None:
    assert error_of(unpack, abi([], ["i32"]), 3) == "expected a sequence of results, got int"
    assert error_of(unpack, abi([], ["i32"]), "3") == "expected a sequence of results, got str"


# --------------------------------------------------------------------------------------
# Inlined single structured result (docs/spec.md §4.2): the results are its items.
# --------------------------------------------------------------------------------------


def test_inlined_stuple() -> None:
    text = abi([], [["stuple", ["ndarray", "f32", 1, 4], ["ndarray", "f32", 1, 4]]])
    a, b = [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]
    result = unpack(text, [a, b])
    assert result == (a, b)
    assert type(result) is tuple


def test_inlined_slist() -> None:
    result = unpack(abi([], [["slist", "i32", "i32"]]), (1, 2))
    assert result == [1, 2]
    assert type(result) is list


def test_inlined_sdict() -> None:
    text = abi([], [["sdict", ["a", "i32"], ["b", "f32"]]])
    assert unpack(text, [1, 2.0]) == {"a": 1, "b": 2.0}
    assert list(unpack(text, [1, 2.0])) == ["a", "b"]


def test_inlined_single_item_structure() -> None:
    assert unpack(abi([], [["stuple", "i32"]]), [4]) == (4,)
    assert unpack(abi([], [["stuple"]]), []) == ()


def test_inlined_count_must_match() -> None:
    text = abi([], [["stuple", "i32", "i32"]])
    assert error_of(unpack, text, [1]) == "expected 2 results, got 1"
    assert error_of(unpack, text, [1, 2, 3]) == "expected 2 results, got 3"


def test_inlined_item_errors_are_inside_result_0() -> None:
    text = abi([], [["sdict", ["a", "i32"], ["b", "f32"]]])
    assert error_of(unpack, text, [1, "x"]) == "result 0['b']: expected a float (f32), got str"


def test_py_homogeneous_list_result_is_not_inlined() -> None:
    assert unpack(abi([], [["py_homogeneous_list", "i32"]]), [[1, 2]]) == [1, 2]


# --------------------------------------------------------------------------------------
# Nested structures: sdict → dict, slist → list, stuple → tuple.
# --------------------------------------------------------------------------------------

NESTED = abi(
    [],
    [
        ["stuple", "i32", ["slist", "f32", None]],
        ["sdict", ["k", ["stuple", "i32"]], ["m", ["sdict"]]],
    ],
)


def test_nested_structures() -> None:
    result = unpack(NESTED, [[1, [2, None]], [[3], []]])
    assert result == ((1, [2.0, None]), {"k": (3,), "m": {}})
    first, second = result
    assert type(first) is tuple and type(first[1]) is list
    assert type(second["k"]) is tuple


@pytest.mark.parametrize(
    ("results", "message"),
    [
        ([[1], [[3], []]], "result 0: expected a sequence of 2 values, got 1"),
        (
            [[1, [2, 0]], [[3], []]],
            "result 0[1][1]: expected None (a gap in the structure), got int",
        ),
        (
            [[1, [2, None]], {"k": [3], "m": []}],
            "result 1: expected a sequence of 2 values, got dict",
        ),
        ([[1, [2, None]], [[3.5], []]], "result 1['k'][0]: expected an int (i32), got float"),
        ([[1, [2, None]], [[3], [0]]], "result 1['m']: expected a sequence of 0 values, got 1"),
    ],
)
def test_nested_errors(results: Any, message: str) -> None:
    assert error_of(unpack, NESTED, results) == message


# --------------------------------------------------------------------------------------
# Leaves.
# --------------------------------------------------------------------------------------


def test_result_leaves_are_checked() -> None:
    assert error_of(unpack, abi([], ["i8"]), [1000]) == "result 0: value 1000 does not fit in i8"
    assert error_of(unpack, abi([], ["i32", ["ndarray", "f32", 1, 2]]), [1, [1.0]]) == (
        "result 1: expected float32[2], got lists of shape [1]"
    )
    assert unpack(abi([], ["f32"]), [1]) == 1.0
    assert unpack(abi([], ["i1"]), [1]) is True


def test_result_arrays_pass_through() -> None:
    np = pytest.importorskip("numpy")
    array = np.ones((2, 3), np.float32)
    assert unpack(abi([], [["ndarray", "f32", 2, None, 3]]), [array]) is array


def test_reference_array_result() -> None:
    text = abi([], [["ndarray", ["py_homogeneous_list", "i32"], 2, None, 2]])
    packed = [[[1], [2], [3, 4], []], [2, 2]]
    assert unpack(text, [packed]) == [[[1], [2]], [[3, 4], []]]
    assert unpack(text, [[[], [0, 2]]]) == []
    scalar = abi([], [["ndarray", ["py_homogeneous_list", "i32"], 0]])
    assert unpack(scalar, [[[[5]], []]]) == [5]


def test_reference_array_result_errors() -> None:
    text = abi([], [["ndarray", ["py_homogeneous_list", "i32"], 2, None, 2]])
    assert error_of(unpack, text, [[[[1], [2]], [1, 3]]]) == (
        "result 0[1]: expected the dims [?,2], got [1,3]"
    )
    assert error_of(unpack, text, [[[[1], [2]], [1, 2, 3]]]) == (
        "result 0[1]: expected the dims [?,2], got [1,2,3]"
    )
    assert error_of(unpack, text, [[[[1], [2]], [2, 2]]]) == (
        "result 0[0]: expected a sequence of 4 values, got 2"
    )
    assert error_of(unpack, text, [[[[1], [2]], [1, -2]]]) == (
        "result 0[1]: expected a dim (a non-negative int), got -2"
    )
    assert error_of(unpack, text, [[[[1], [2]], 2]]) == (
        "result 0[1]: expected a sequence of dims, got int"
    )
    assert error_of(unpack, text, [[[[1], ["x"]], [1, 2]]]) == (
        "result 0[0][1][0]: expected an int (i32), got str"
    )
    assert error_of(unpack, text, [[[[1], [2]]]]) == (
        "result 0: expected a sequence of 2 values, got 1"
    )
