"""A function whose original call (`abi.call`) updates an argument in place (``updates``:
the argument leaf and the result leaf holding its new value, as the torch frontend
records a mutated input; docs/calling.md, "Inputs the program updates in place"),
compiled from MLIR text: the caller's array holds the new value after each call, the
original result leaves the new value out, and what cannot take the new value is refused
before the call. No framework needed."""

from __future__ import annotations

from typing import Any

import pytest

from tests.calling.conftest import mlir_string, needs_iree
from tests.calling.helpers import compile_quietly

needs_iree()

import numpy as np  # noqa: E402

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.call_model import Array, OriginalCall  # noqa: E402
from abi_compiler.codecs.call_json import encode_call  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402

F = "float32"
# step(cache, delta) -> (cache + delta) * 2, and cache += delta in place.
CALL = OriginalCall(
    (Array(0, F, (2, 3)), Array(1, F, (2, 3))),
    (),
    Array(0, F, (2, 3)),
    labels=("cache", "delta"),
    updates=((0, 1),),
)
TEXT = f"""
func.func @step(%cache: tensor<2x3xf32> {{abi.index_path = [0], iree.abi.output = 1 : index}},
                %delta: tensor<2x3xf32> {{abi.index_path = [1]}})
    -> (tensor<2x3xf32> {{abi.index_path = [0]}}, tensor<2x3xf32> {{abi.index_path = [1]}})
    attributes {{iree.reflection = {{abi.call = "{mlir_string(encode_call(CALL))}"}}}} {{
  %new = arith.addf %cache, %delta : tensor<2x3xf32>
  %twice = arith.addf %new, %new : tensor<2x3xf32>
  return %twice, %new : tensor<2x3xf32>, tensor<2x3xf32>
}}
"""


@pytest.fixture(scope="module")
def vmfb() -> bytes:
    return compile_quietly(TEXT, vmfb=True)


def delta(step: int) -> Any:
    return np.arange(6, dtype=np.float32).reshape(2, 3) + step


def test_the_callers_array_is_written_after_each_call(vmfb: bytes) -> None:
    module = abi_iree.load(vmfb)
    cache = np.zeros((2, 3), np.float32)
    want = np.zeros((2, 3), np.float32)
    for step in range(3):
        out = module.step(cache, delta(step))
        want += delta(step)
        np.testing.assert_array_equal(out, want * 2)  # the result alone: not a tuple
        np.testing.assert_array_equal(cache, want)


def test_a_strided_view_is_written_through_its_strides(vmfb: bytes) -> None:
    module = abi_iree.load(vmfb)
    wide = np.zeros((2, 6), np.float32)
    view = wide[:, ::2]
    module.step(view, delta(1))
    np.testing.assert_array_equal(wide[:, ::2], delta(1))
    assert not wide[:, 1::2].any()


def test_a_device_array_is_written_in_place(vmfb: bytes) -> None:
    """With ``results="device"``, IREE writes the new value into the buffer of the
    `DeviceArray` given for the updated argument (`iree.abi.output`: the wrapper's
    `hal.tensor.alias`): the same object, and a host view of it taken before the call,
    show it."""
    module = abi_iree.load(vmfb, results="device")
    state = module.step(np.zeros((2, 3), np.float32), delta(0))  # delta(0) * 2
    kept, before = state, state.to_host()
    module.step(state, delta(1))
    assert state is kept
    np.testing.assert_array_equal(state.to_host(), delta(0) * 2 + delta(1))
    np.testing.assert_array_equal(before, delta(0) * 2 + delta(1))
    # A host array given to the same module is written from the device result.
    cache = np.ones((2, 3), np.float32)
    module.step(cache, delta(2))
    np.testing.assert_array_equal(cache, 1 + delta(2))


def error(function: Any, *args: Any) -> str:
    with pytest.raises(AbiError) as caught:
        function(*args)
    return str(caught.value)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            [[0.0] * 3] * 2,
            "argument cache: expected an array the call can update in place (the program "
            "updates this input in place: a numpy array, a torch tensor or a DeviceArray), "
            "got list",
        ),
        (
            np.float32(0),
            "argument cache: expected float32[2,3], got float32[]",
        ),
    ],
)
def test_a_value_that_cannot_take_the_new_value(vmfb: bytes, value: Any, message: str) -> None:
    assert error(abi_iree.load(vmfb).step, value, delta(0)) == message


def test_a_read_only_or_converted_array_is_refused_before_the_call(vmfb: bytes) -> None:
    module = abi_iree.load(vmfb, convert=True)
    frozen = np.zeros((2, 3), np.float32)
    frozen.flags.writeable = False
    assert error(module.step, frozen, delta(0)) == (
        "argument cache: got a read-only numpy array, which the call cannot update (the "
        "program updates this input in place)"
    )
    doubles = np.zeros((2, 3), np.float64)
    assert error(module.step, doubles, delta(0)) == (
        "argument cache: expected an array of dtype float32 the call can write into (the "
        "program updates this input in place), got float64: the call would send a "
        "converted copy"
    )
    assert not doubles.any()


def test_a_device_array_needs_device_results(vmfb: bytes) -> None:
    import iree.runtime as rt

    module = abi_iree.load(vmfb)
    array = rt.asdevicearray(module.device, np.zeros((2, 3), np.float32))
    assert error(module.step, array, delta(0)) == (
        "argument cache: got a DeviceArray, which a module loaded with results='numpy' "
        "cannot update in place (the program updates this input in place): load it with "
        "results='device', or pass a numpy array"
    )


def test_a_caller_that_cannot_update_refuses_the_call() -> None:
    """A `CallPlan` built without the means to write back (no ``target``) refuses a call
    that updates arguments, rather than dropping the update."""
    from abi_compiler.calling.original_call import CallPlan
    from abi_compiler.codecs.json_abi import decode_json

    signature = decode_json(
        '{"a":[["ndarray","f32",2,2,3],["ndarray","f32",2,2,3]],'
        '"r":[["stuple",["ndarray","f32",2,2,3],["ndarray","f32",2,2,3]]],"v":1}'
    )
    with pytest.raises(AbiError) as caught:
        CallPlan(CALL, signature, lambda array: lambda value: value)
    assert str(caught.value) == (
        "abi.call: the call updates arguments in place, which this caller cannot"
    )


def test_show_says_what_the_call_updates(
    vmfb: bytes, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from abi_compiler.commands import sig_main

    path = tmp_path / "step.vmfb"
    path.write_bytes(vmfb)
    assert sig_main.main(["show", str(path)]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert shown[1:-1] == [
        "  called as step(cache: float32[2,3], delta: float32[2,3]) -> float32[2,3]",
        "  updates in place: cache",
    ]
    assert shown[-1].startswith("targets: llvm-cpu (embedded-elf-")
    assert sig_main.main(["show", "--format", "json", str(path)]) == 0
    assert '"updates": "cache"' in capsys.readouterr().out
