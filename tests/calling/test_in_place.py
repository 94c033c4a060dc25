"""Arguments the local device reads in place (docs/calling.md, "Arguments read in place"):
an aligned, writable, C-contiguous host array of the record's dtype goes to the VM as a
buffer view of its own memory instead of a copy; anything else is copied as before; a
result that the function returns as its argument is still a copy of its own."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from tests.calling.conftest import mlir_string, needs_iree
from tests.calling.helpers import compile_quietly

needs_iree()

import numpy as np  # noqa: E402

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.call_model import Array, Container, OriginalCall  # noqa: E402
from abi_compiler.calling.iree_runtime import rt  # noqa: E402
from abi_compiler.calling.vm_arrays import (  # noqa: E402
    IN_PLACE_ALIGNMENT,
    in_place_view,
    reads_in_place,
)
from abi_compiler.codecs.call_json import encode_call  # noqa: E402


def _call(dims: tuple[int, ...]) -> OriginalCall:
    return OriginalCall(
        positional=(Array(0, "float32", dims),),
        keywords=(),
        result=Container("tuple", (Array(0, "float32", dims), Array(1, "float32", dims))),
    )


# f(x[4, 4096]) -> (x, x + x): the first result is the argument as it is (64 KiB: the
# smallest array read in place).
CALL = _call((4, 4096))
TEXT = f"""
func.func @main(%x: tensor<4x4096xf32> {{abi.index_path = [0]}})
    -> (tensor<4x4096xf32> {{abi.index_path = [0]}}, tensor<4x4096xf32> {{abi.index_path = [1]}})
    attributes {{iree.reflection = {{abi.call = "{mlir_string(encode_call(CALL))}"}}}} {{
  %twice = arith.addf %x, %x : tensor<4x4096xf32>
  return %x, %twice : tensor<4x4096xf32>, tensor<4x4096xf32>
}}
"""


COUNT = 4 * 4096
VALUES = np.arange(COUNT, dtype=np.float32).reshape(4, 4096)


def _at(offset: int, dtype: Any = np.float32, count: int = COUNT) -> Any:
    """0, 1, … as ``[4, count // 4]`` at ``offset`` bytes past an `IN_PLACE_ALIGNMENT`
    boundary."""
    size = np.dtype(dtype).itemsize
    raw = np.zeros(count * size + 2 * IN_PLACE_ALIGNMENT, np.uint8)
    start = -raw.__array_interface__["data"][0] % IN_PLACE_ALIGNMENT + offset
    array = raw[start : start + count * size].view(dtype).reshape(4, count // 4)
    array[...] = np.arange(count).reshape(4, count // 4)
    return array


def _address(array: Any) -> int:
    return int(array.__array_interface__["data"][0])


@pytest.fixture(scope="module", params=["local-sync", "local-task"])
def module(request: Any) -> Any:
    return abi_iree.load(compile_quietly(TEXT, vmfb=True), device=request.param)


def test_an_aligned_array_is_sent_as_a_view_of_its_memory(module: Any) -> None:
    x = _at(0)
    packed, _, sent = module.main._plan.bind((x,), {})
    view = packed[0]
    assert isinstance(view, rt.HalBufferView)
    assert _address(view.map().asarray(view.shape, np.dtype(np.float32))) == _address(x)
    assert len(sent) == 1 and sent[0] is x
    same, twice = module.main(x)
    np.testing.assert_array_equal(twice, 2 * VALUES)
    # The argument returned as it is comes back as an array of its own.
    np.testing.assert_array_equal(same, x)
    assert not np.shares_memory(same, x)
    x[0, 0] = 100
    assert same[0, 0] == 0


@pytest.mark.parametrize(
    "make",
    [
        lambda: _at(16),  # not aligned
        lambda: _at(0) + 0,  # a fresh array: numpy's own alignment
    ],
    ids=["unaligned", "fresh"],
)
def test_only_aligned_memory_is_sent_in_place(module: Any, make: Any) -> None:
    x = make()
    aligned = _address(x) % IN_PLACE_ALIGNMENT == 0
    _, _, sent = module.main._plan.bind((x,), {})
    assert len(sent) == int(aligned)
    same, twice = module.main(x)
    np.testing.assert_array_equal(twice, 2 * x)
    np.testing.assert_array_equal(same, x)
    assert not np.shares_memory(same, x)


def test_read_only_and_strided_arrays_are_copied(module: Any) -> None:
    read_only = _at(0)
    read_only.flags.writeable = False
    raw = _at(0, np.float32)
    strided = np.lib.stride_tricks.as_strided(raw, (4, 4096), (0, 4))  # not C-contiguous
    for x in (read_only, strided):
        _, _, sent = module.main._plan.bind((x,), {})
        assert sent == []
        same, _ = module.main(x)
        np.testing.assert_array_equal(same, x)


def test_another_dtype_is_converted_not_sent() -> None:
    module = abi_iree.load(compile_quietly(TEXT, vmfb=True), convert=True)
    x = _at(0, np.float64)
    _, _, sent = module.main._plan.bind((x,), {})
    # What may go in place is the converted copy, never the caller's float64 memory.
    assert all(array.dtype == np.float32 and not np.shares_memory(array, x) for array in sent)
    same, twice = module.main(x)
    assert same.dtype == np.float32
    np.testing.assert_array_equal(twice, 2 * VALUES)


def test_the_local_devices_read_in_place() -> None:
    for name in ("local-sync", "local-task"):
        assert reads_in_place(rt.get_device(name))


def test_in_place_view_refuses_what_it_cannot_wrap() -> None:
    device = rt.get_device("local-sync")
    f32 = int(rt.HalElementType.FLOAT_32)
    assert in_place_view(device, _at(4), f32) is None  # unaligned
    assert in_place_view(device, _at(0), int(rt.HalElementType.SINT_32)) is None
    assert in_place_view(device, _at(0, count=COUNT - 4), f32) is None  # below 64 KiB
    view = in_place_view(device, _at(0), f32)
    assert view is not None and list(view.shape) == [4, 4096]


def test_a_cpu_tensor_is_sent_in_place_and_a_negative_view_as_its_values(module: Any) -> None:
    torch = pytest.importorskip("torch")
    x = torch.arange(COUNT, dtype=torch.float32).reshape(4, 4096)  # torch aligns to 64 bytes
    _, _, sent = module.main._plan.bind((x,), {})
    assert len(sent) == 1 and np.shares_memory(sent[0], x.numpy())
    for tensor in (x._neg_view(), x.requires_grad_(True) * 1):
        same, twice = module.main(tensor)
        expected = tensor.detach().resolve_neg().numpy()
        np.testing.assert_array_equal(same, expected)
        np.testing.assert_array_equal(twice, 2 * expected)


def test_a_record_smaller_than_the_threshold_never_looks() -> None:
    """A static record below `IN_PLACE_MIN_BYTES` is always copied: its plan has no
    sender, so its calls pay nothing for in-place arguments."""
    small = TEXT.replace("4x4096xf32", "4x16xf32").replace("(4, 4096)", "(4, 16)")
    small = small.replace(
        mlir_string(encode_call(CALL)),
        mlir_string(encode_call(_call((4, 16)))),
    )
    for text, senders in ((small, 0), (TEXT, 1)):
        function = abi_iree.load(compile_quietly(text, vmfb=True)).main
        assert len(function._plan._senders) == senders


def test_a_module_returning_device_arrays_copies_its_arguments() -> None:
    """With ``results="device"`` a result is not checked against the arguments' memory,
    so no argument is read in place."""
    function = abi_iree.load(compile_quietly(TEXT, vmfb=True), results="device").main
    assert function._plan._senders == []
    same, _ = function(_at(0))
    np.testing.assert_array_equal(same.to_host(), VALUES)


# The same function as a torch program's (its results torch tensors).
TORCH_TEXT = TEXT.replace(
    mlir_string(encode_call(CALL)),
    mlir_string(encode_call(dataclasses.replace(CALL, tensor="torch"))),
)


@pytest.fixture(scope="module")
def torch_module() -> Any:
    pytest.importorskip("torch")
    return abi_iree.load(compile_quietly(TORCH_TEXT, vmfb=True), device="local-sync")


def test_a_torch_result_is_a_tensor_of_its_own_buffer(torch_module: Any) -> None:
    import torch

    x = torch.from_numpy(_at(0))
    assert x.data_ptr() % IN_PLACE_ALIGNMENT == 0  # (read in place)
    same, twice = torch_module.main(x)
    assert type(same) is torch.Tensor and type(twice) is torch.Tensor
    # The argument returned as it is: a copy, not the caller's memory (also when read
    # as a tensor straight from the buffer).
    assert same.data_ptr() != x.data_ptr()
    torch.testing.assert_close(same, x)
    torch.testing.assert_close(twice, x + x)
    twice.add_(1)  # writable, and the call's own
    torch.testing.assert_close(torch_module.main(x)[1], x + x)
    torch.testing.assert_close(twice, x + x + 1)


def test_a_buffer_whose_tensor_has_another_dtype_is_read_the_long_way(
    torch_module: Any,
) -> None:
    # (a signless i32 record given a UINT_32 buffer: DLPack would make a uint32 tensor;
    # the leaf's is int32, the array's bits as `from_numpy` gives them)
    import torch

    from abi_compiler.calling import call_leaves
    from abi_compiler.calling.vm import ArrayConverter, TensorInto
    from abi_compiler.calling.vm_arrays import element_for
    from abi_compiler.model import NDArray, Scalar

    record = NDArray(Scalar("i", 32), (2,))
    leaf = Array(0, "int32", (2,))
    marshal = torch_module._marshal
    tensor = call_leaves._tensor_reader(leaf, record, "torch", None)
    finish = call_leaves._result_leaf(leaf, record, "torch", None)
    assert tensor is not None and finish is not None and marshal.reads_tensors(record)
    element = element_for(record.element)
    assert element is not None
    converter = ArrayConverter(marshal, element, "int32[2]")
    device = marshal.device
    view = device.allocator.allocate_buffer_copy(
        int(rt.MemoryType.DEVICE_LOCAL),
        int(rt.BufferUsage.DEFAULT | rt.BufferUsage.MAPPING),
        device,
        np.array([1, 2**32 - 1], np.uint32),
        int(rt.HalElementType.UINT_32),
    )
    results = rt.VmVariantList(1)
    results.push_ref(view)
    out: list[Any] = [None]
    TensorInto(converter, 0, tensor, finish).read_into(results, 0, out)
    assert type(out[0]) is torch.Tensor and out[0].dtype == torch.int32
    assert out[0].tolist() == [1, -1]
