"""Hostile values and signatures for the runtime marshalling (docs/design.md#hostile-input):
every failure is an `AbiError`, and no input makes `pack`/`unpack` loop or allocate without
bound."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from abi_compiler.calling.leaf_values import MAX_EMPTY_LISTS, MAX_RANK
from abi_compiler.calling.marshal import (
    pack,
    pack_legacy,
    unpack,
    unpack_legacy,
)
from tests.calling.helpers import abi, error_of

REF_ARRAY = ["ndarray", ["py_homogeneous_list", "i32"], 2, None, None]


def self_containing() -> list[Any]:
    value: list[Any] = []
    value.append(value)
    return value


def deeply_nested(levels: int) -> list[Any]:
    root: list[Any] = []
    current = root
    for _ in range(levels):
        inner: list[Any] = []
        current.append(inner)
        current = inner
    return root


def circular_mapping() -> dict[str, Any]:
    document: dict[str, Any] = {"r": [], "v": 1}
    document["a"] = [document]
    return document


@pytest.mark.parametrize(
    ("record", "value", "message"),
    [
        (
            ["ndarray", "f32", None],
            self_containing(),
            f"argument 0: expected a float32 array of any rank, got lists nested deeper than {MAX_RANK} levels",
        ),
        (
            ["ndarray", "f32", 1, None],
            self_containing(),
            f"argument 0: expected float32[?], got lists nested deeper than {MAX_RANK} levels",
        ),
        (
            ["ndarray", "f32", None],
            deeply_nested(MAX_RANK + 1),
            f"argument 0: expected a float32 array of any rank, got lists nested deeper than {MAX_RANK} levels",
        ),
        ("i32", 10**5000, "argument 0: value <an integer of 16610 bits> does not fit in i32"),
        ("f32", -(10**5000), "argument 0: value -<an integer of 16610 bits> does not fit in f32"),
    ],
    ids=["self-unranked", "self-ranked", "too-deep", "huge-int", "huge-int-float"],
)
def test_hostile_values(record: Any, value: Any, message: str) -> None:
    assert error_of(pack, abi([record]), value) == message


def test_aliased_rows_cost_their_own_size() -> None:
    # 10 levels of a 10-item row repeated: 10**10 elements spelled with 100 list slots.
    row: list[Any] = [0] * 10
    for _ in range(9):
        row = [row] * 10
    assert pack(abi([["ndarray", "f32", None]]), row)[0] is row
    assert error_of(pack, abi([["ndarray", "f32", 1, None]]), row) == (
        "argument 0: expected float32[?], got lists of shape [10,10,10,10,10,10,10,10,10,10]"
    )


def test_empty_reference_array_with_huge_dims() -> None:
    text = abi([], [REF_ARRAY])
    assert unpack(text, [[[], [MAX_EMPTY_LISTS, 0]]]) == [[]] * MAX_EMPTY_LISTS
    assert error_of(unpack, text, [[[], [10**8, 0]]]) == (
        f"result 0: an empty reference array of shape [100000000,0] would unpack to more "
        f"than {MAX_EMPTY_LISTS} nested lists"
    )
    assert unpack(text, [[[], [0, 10**8]]]) == []
    assert error_of(unpack, text, [[[], [10**5000, 0]]]).startswith(
        "result 0: an empty reference array of shape [<an integer of 16610 bits>,0]"
    )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pack(b'{"a":["\xff"],"r":[],"v":1}'), "invalid UTF-8 (at offset 7)"),
        (lambda: pack(b"\xff"), "invalid UTF-8 (at offset 0)"),
        (
            lambda: pack({"a": [object()], "r": [], "v": 1}),
            "the iree.abi mapping is not JSON data: Object of type object is not JSON serializable",
        ),
        (
            lambda: pack(circular_mapping()),
            "the iree.abi mapping is not JSON data: Circular reference detected",
        ),
        (
            lambda: pack({"a": deeply_nested(100_000), "r": [], "v": 1}),
            "the iree.abi mapping is not JSON data: maximum recursion depth exceeded "
            "while encoding a JSON object",
        ),
        (
            lambda: pack('{"a":[["ndarray","f32",1,' + "9" * 5000 + ']],"r":[],"v":1}'),
            "invalid JSON: Exceeds the limit (4300 digits) for integer string conversion: "
            "value has 5000 digits; use sys.set_int_max_str_digits() to increase the limit "
            "(at offset 25)",
        ),
        (
            lambda: pack_legacy(123, "I1!R1!"),
            "expected a raw signature f (str, bytes or FlatSignature), got int",
        ),
        (
            lambda: pack_legacy("I1!R1!", ["I1!R1!"]),
            "expected a sip signature (str, bytes or SipSignature), got list",
        ),
        (
            lambda: unpack_legacy(None, None, []),
            "expected a raw signature f (str, bytes or FlatSignature), got None",
        ),
        (
            lambda: pack_legacy(b"I1!R1!", b"\xff"),
            "expected a component tag ('_', a-z or A-Z), got byte 0xff (at offset 0)",
        ),
        (
            lambda: pack_legacy(b"\xff", b"I1!R1!"),
            "expected a component tag ('_', a-z or A-Z), got byte 0xff (at offset 0)",
        ),
        (
            lambda: pack_legacy("I" + "9" * 5000 + "!", "I1!R1!"),
            "integer out of range (more than 64 bits) (at offset 1)",
        ),
    ],
)
def test_hostile_signatures(call: Callable[[], Any], message: str) -> None:
    assert error_of(call) == message
