"""A function whose original call (`abi.call`) updates an argument in place (``updates``:
the argument leaf and the result leaf holding its new value, as the torch frontend
records a mutated input; docs/calling.md, "Inputs the program updates in place"),
compiled from MLIR text: the caller's array holds the new value after each call, the
original result leaves the new value out, and what cannot take the new value is refused
before the call. No framework needed."""

from __future__ import annotations

import dataclasses
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


# two(a, b, x) -> (a + x) + (b + x), and a += x, b += x in place; dup(a) -> (a, a).
TWO_CALL = OriginalCall(
    (Array(0, F, (3,)), Array(1, F, (3,)), Array(2, F, (3,))),
    (),
    Array(0, F, (3,)),
    labels=("a", "b", "x"),
    updates=((0, 1), (1, 2)),
)
TWO_TEXT = f"""
func.func @two(%a: tensor<3xf32> {{abi.index_path = [0], iree.abi.output = 1 : index}},
               %b: tensor<3xf32> {{abi.index_path = [1], iree.abi.output = 2 : index}},
               %x: tensor<3xf32> {{abi.index_path = [2]}})
    -> (tensor<3xf32> {{abi.index_path = [0]}}, tensor<3xf32> {{abi.index_path = [1]}},
        tensor<3xf32> {{abi.index_path = [2]}})
    attributes {{iree.reflection = {{abi.call = "{mlir_string(encode_call(TWO_CALL))}"}}}} {{
  %na = arith.addf %a, %x : tensor<3xf32>
  %nb = arith.addf %b, %x : tensor<3xf32>
  %s = arith.addf %na, %nb : tensor<3xf32>
  return %s, %na, %nb : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}}
func.func @dup(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {{
  return %a, %a : tensor<3xf32>, tensor<3xf32>
}}
"""


@pytest.fixture(scope="module")
def two_vmfb() -> bytes:
    return compile_quietly(TWO_TEXT, vmfb=True)


def ones() -> Any:
    return np.ones(3, np.float32)


OVERLAPPING = (
    "got an array whose elements share memory (byte strides [0] for shape [3]: a "
    "broadcast or overlapping view), which the call cannot update (the program updates "
    "this input in place): pass an array of its own, e.g. a copy"
)


def test_an_array_whose_elements_share_memory_is_refused(two_vmfb: bytes) -> None:
    """Three elements over one float: the call would write three new values into it."""
    module = abi_iree.load(two_vmfb)
    base = np.zeros(1, np.float32)
    broadcast = np.lib.stride_tricks.as_strided(base, (3,), (0,))
    assert broadcast.flags.writeable
    assert error(module.two, broadcast, np.zeros(3, np.float32), ones()) == (
        f"argument a: {OVERLAPPING}"
    )
    assert not base.any()
    # Strides that meet without a 0: elements 0 and 2 of a (3,) view stepping 1.5 floats
    # (6 bytes) do not, but a (2, 2) view with strides (4, 4) shares element [0, 1]/[1, 0].
    square = np.lib.stride_tricks.as_strided(np.zeros(3, np.float32), (3,), (4,))
    module.two(square, np.zeros(3, np.float32), ones())  # its own memory: accepted
    np.testing.assert_array_equal(square, ones())


def test_strides_that_meet_are_found_by_listing_addresses() -> None:
    from abi_compiler.calling.updates import _elements_overlap

    floats = np.zeros(16, np.float32)
    # Axes that interleave (strides 12 and 8 bytes over 2 x 3 elements): 0, 8, 16, 12,
    # 20, 28 — disjoint, though the larger stride does not step past the smaller's span.
    assert not _elements_overlap(np.lib.stride_tricks.as_strided(floats, (2, 3), (12, 8)))
    # 0, 8, 16, 8, 16, 24: two elements at 8.
    assert _elements_overlap(np.lib.stride_tricks.as_strided(floats, (2, 3), (8, 8)))
    assert _elements_overlap(np.lib.stride_tricks.as_strided(floats, (2,), (2,)))  # halves
    assert not _elements_overlap(floats.reshape(4, 4)[:, ::-2])
    assert not _elements_overlap(np.broadcast_to(floats[:1], (1, 1)))


def test_a_broadcast_torch_tensor_is_refused(two_vmfb: bytes) -> None:
    torch = pytest.importorskip("torch")
    module = abi_iree.load(two_vmfb)
    expanded = torch.zeros(1).expand(3)
    assert error(module.two, expanded, torch.zeros(3), torch.ones(3)) == (
        f"argument a: {OVERLAPPING}"
    )
    assert expanded.tolist() == [0.0, 0.0, 0.0]


def test_two_updated_inputs_over_one_memory_are_refused(two_vmfb: bytes) -> None:
    module = abi_iree.load(two_vmfb)
    base = np.zeros(6, np.float32)
    same = (
        "argument b: the same memory as argument a, and the program updates both in "
        "place: pass separate arrays"
    )
    assert error(module.two, base[:3], base[:3], ones()) == same
    assert error(module.two, base[:3], base[2:5], ones()) == same  # one shared element
    assert error(module.two, base[1:6:2], base[::-2], ones()) == same  # reversed
    assert not base.any()
    # Views of one base that share no element are separate memory.
    module.two(base[0:6:2], base[1:6:2], ones())
    np.testing.assert_array_equal(base, np.ones(6, np.float32))


def test_two_device_arrays_over_one_buffer_are_refused(two_vmfb: bytes) -> None:
    """A function returning its input twice gives two `DeviceArray`s over one buffer:
    the program's two updates would land in it, and one would be lost."""
    module = abi_iree.load(two_vmfb, results="device")
    first, second = module.dup(np.arange(3, dtype=np.float32))
    assert first is not second
    assert error(module.two, first, second, ones()) == (
        "argument b: the same memory as argument a, and the program updates both in "
        "place: pass separate arrays"
    )
    # A host view of a DeviceArray's memory is that memory too.
    assert error(module.two, first, first.to_host(), ones()) == (
        "argument b: the same memory as argument a, and the program updates both in "
        "place: pass separate arrays"
    )
    np.testing.assert_array_equal(first.to_host(), [0, 1, 2])
    other = module.dup(np.arange(3, dtype=np.float32))[0]
    module.two(first, other, ones())
    np.testing.assert_array_equal(first.to_host(), [1, 2, 3])
    np.testing.assert_array_equal(other.to_host(), [1, 2, 3])


# step as a pure function (no update in place), and the in-place one without its abi.call.
PURE_CALL = dataclasses.replace(CALL, updates=())
PURE_TEXT = f"""
func.func @step(%cache: tensor<2x3xf32> {{abi.index_path = [0]}},
                %delta: tensor<2x3xf32> {{abi.index_path = [1]}})
    -> (tensor<2x3xf32> {{abi.index_path = []}})
    attributes {{iree.reflection = {{abi.call = "{mlir_string(encode_call(PURE_CALL))}"}}}} {{
  %new = arith.addf %cache, %delta : tensor<2x3xf32>
  %twice = arith.addf %new, %new : tensor<2x3xf32>
  return %twice : tensor<2x3xf32>
}}
"""
NO_CALL_TEXT = TEXT.replace(
    f'attributes {{iree.reflection = {{abi.call = "{mlir_string(encode_call(CALL))}"}}}} ', ""
)


def test_diff_says_what_changed_once(
    vmfb: bytes, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """`abi-sig diff` of the in-place and the pure version: the update, once (was also
    `result: kind tuple -> tensor`: the caller of the original call receives the
    result alone either way); of the version without its `abi.call`: breaking (was
    identical, exit 0), as its result is now the records' tuple."""
    from abi_compiler.commands import sig_main

    assert "abi.call" not in NO_CALL_TEXT
    (tmp_path / "step.vmfb").write_bytes(vmfb)
    (tmp_path / "pure.vmfb").write_bytes(compile_quietly(PURE_TEXT, vmfb=True))
    (tmp_path / "bare.vmfb").write_bytes(compile_quietly(NO_CALL_TEXT, vmfb=True))
    capsys.readouterr()

    def diff(old: str, new: str) -> tuple[int, list[str]]:
        status = sig_main.main(["diff", str(tmp_path / old), str(tmp_path / new)])
        return status, capsys.readouterr().out.splitlines()

    assert diff("step.vmfb", "pure.vmfb") == (1, ["breaking: step: argument 0: updates yes -> no"])
    assert diff("pure.vmfb", "step.vmfb") == (1, ["breaking: step: argument 0: updates no -> yes"])
    assert diff("step.vmfb", "bare.vmfb") == (
        1,
        [
            "breaking: step: result: kind tensor<2x3xf32> -> tuple",
            "breaking: step: original call removed (cache: float32[2,3], delta: "
            "float32[2,3]) -> float32[2,3], updating cache in place",
        ],
    )
    assert diff("step.vmfb", "step.vmfb") == (0, [])
