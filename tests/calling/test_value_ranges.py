"""An argument's value ranges (the ``ranges`` of an `abi.call` array,
docs/formats.md): checked on the host before the VM runs, an `AbiError` naming the
argument, the value, where it is and the range (docs/calling.md, "What the original call
checks"). A function compiled from MLIR text whose reflection carries the ranges a torch
export of a decoder with a KV cache gets: token ids in [0, 96], the cache position's first
element in [0, 29] (a step of 3 positions into a cache of 32)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.calling.conftest import mlir_string, needs_iree
from tests.calling.helpers import compile_quietly

needs_iree()

import numpy as np  # noqa: E402

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.call_model import Array, OriginalCall, ValueRange  # noqa: E402
from abi_compiler.codecs.call_json import encode_call  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402

CALL = OriginalCall(
    positional=(),
    keywords=(
        ("input_ids", Array(0, "int64", (1, 3), (ValueRange(0, 96),))),
        ("cache_position", Array(1, "int64", (3,), (ValueRange(0, 29, (0,)),))),
    ),
    result=Array(0, "int64", (1, 3)),
    tensor="numpy",
)

TEXT = f"""
func.func @main(%ids: tensor<1x3xi64> {{abi.index_path = ["input_ids"]}},
                %pos: tensor<3xi64> {{abi.index_path = ["cache_position"]}})
    -> (tensor<1x3xi64> {{abi.index_path = [0]}})
    attributes {{iree.reflection = {{abi.call = "{mlir_string(encode_call(CALL))}"}}}} {{
  %row = tensor.expand_shape %pos [[0, 1]] output_shape [1, 3] : tensor<3xi64> into tensor<1x3xi64>
  %sum = arith.addi %ids, %row : tensor<1x3xi64>
  return %sum : tensor<1x3xi64>
}}
"""

TAIL = ": the compiled module indexes a buffer with it"


@pytest.fixture(scope="module")
def vmfb() -> bytes:
    return compile_quietly(TEXT, vmfb=True)


def _call(module: Any, ids: Any, positions: Any) -> Any:
    return module.main(input_ids=ids, cache_position=positions)


def test_values_in_range_pass(vmfb: bytes) -> None:
    module = abi_iree.load(vmfb)
    got = _call(module, np.array([[0, 96, 5]]), np.array([29, 30, 31]))
    np.testing.assert_array_equal(got, [[29, 126, 36]])
    # Only the first position is bounded: the others may be anything.
    got = _call(module, [[1, 2, 3]], [0, -5, 10**9])
    np.testing.assert_array_equal(got, [[1, -3, 10**9 + 3]])


@pytest.mark.parametrize(
    ("ids", "positions", "message"),
    [
        (
            [[1, 2, 3]],
            [-1, 0, 1],
            "argument 'cache_position': value -1 at [0] is outside [0, 29]",
        ),
        (
            [[1, 2, 3]],
            [30, 31, 32],
            "argument 'cache_position': value 30 at [0] is outside [0, 29]",
        ),
        (
            [[1, 2, 3]],
            [10**6, 0, 0],
            "argument 'cache_position': value 1000000 at [0] is outside [0, 29]",
        ),
        ([[1, 97, 3]], [0, 1, 2], "argument 'input_ids': value 97 at [0, 1] is outside [0, 96]"),
        ([[1, 2, -4]], [0, 1, 2], "argument 'input_ids': value -4 at [0, 2] is outside [0, 96]"),
        (
            np.array([[1, 2, 2**40]], np.int64),
            [0, 1, 2],
            "argument 'input_ids': value 1099511627776 at [0, 2] is outside [0, 96]",
        ),
    ],
)
def test_values_out_of_range_are_refused(
    vmfb: bytes, ids: Any, positions: Any, message: str
) -> None:
    module = abi_iree.load(vmfb)
    with pytest.raises(AbiError) as caught:
        _call(module, ids, positions)
    assert str(caught.value) == message + TAIL


def test_converted_values_are_checked(vmfb: bytes) -> None:
    """``convert=True`` converts first (int32 to the record's int64), then checks."""
    module = abi_iree.load(vmfb, convert=True)
    with pytest.raises(AbiError, match=r"value 32 at \[0\] is outside \[0, 29\]"):
        _call(module, np.array([[1, 2, 3]], np.int32), np.array([32, 0, 0], np.int32))


def test_device_arrays_are_read_back_and_checked(vmfb: bytes) -> None:
    """A device array (`results="device"` gives them; IREE's `asdevicearray` makes one) is
    read back to the host for the check."""
    from iree import runtime as rt

    module = abi_iree.load(vmfb, results="device")
    device = rt.get_device("local-task")
    ids = rt.asdevicearray(device, np.array([[1, 2, 3]], np.int64))
    bad = rt.asdevicearray(device, np.array([40, 0, 0], np.int64))
    with pytest.raises(AbiError, match=r"value 40 at \[0\] is outside \[0, 29\]"):
        _call(module, ids, bad)
    good = rt.asdevicearray(device, np.array([4, 0, 0], np.int64))
    np.testing.assert_array_equal(np.asarray(_call(module, ids, good)), [[5, 2, 3]])


def _checked(ranges: tuple[ValueRange, ...], value: Any) -> Any:
    from abi_compiler.calling.mismatch import Mismatch
    from abi_compiler.calling.value_ranges import ranged

    try:
        return ranged(ranges, lambda v: v, None, None)(value)
    except Mismatch as mismatch:
        return mismatch.message.split(":")[0]


@pytest.mark.parametrize(
    ("ranges", "value", "verdict"),
    [
        # Bounds beyond the dtype: every value inside, or none.
        ((ValueRange(-5, 300),), np.array([0, 255], np.uint8), None),
        ((ValueRange(2**63 - 1, None),), np.array([5], np.uint64), "value 5 at [0] is outside"),
        ((ValueRange(None, -1),), np.array([0], np.uint8), "value 0 at [0] is outside"),
        (
            (ValueRange(0, 3),),
            np.array([2**64 - 1], np.uint64),
            "value 18446744073709551615 at [0] is outside [0, 3]",
        ),
        # Unbounded sides; a scalar; elements past the value's end; an empty array.
        ((ValueRange(None, 3),), np.int64(-(2**63)), None),
        ((ValueRange(0, None),), np.int64(-1), "value -1 is outside [0, inf)"),
        ((ValueRange(0, 3, (5,)),), np.array([9, 9]), None),
        ((ValueRange(0, 3),), np.zeros((0, 2), np.int64), None),
        ((ValueRange(0, 3, (1,)), ValueRange(None, 0, (0,))), [1, 2], "value 1 at [0]"),
        # The first element outside, by its position in the row-major order.
        ((ValueRange(0, 3),), [[0, 1], [7, 8]], "value 7 at [1, 0] is outside [0, 3]"),
        # Not integers: left to the leaf's own checks.
        ((ValueRange(0, 3),), np.array([9.0]), None),
    ],
)
def test_the_check_at_the_edges(
    ranges: tuple[ValueRange, ...], value: Any, verdict: str | None
) -> None:
    got = _checked(ranges, value)
    if verdict is None:
        assert got is value
    else:
        assert isinstance(got, str) and got.startswith(verdict)
