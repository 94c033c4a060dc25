"""A result read into a host numpy array by mapping its buffer (local CPU devices,
``results="numpy"``) keeps that buffer alive: the array's values stay the call's after
the call's result list is gone and later calls allocate their own results (the defect
behind about 1 in 500 wrong answers when serving: a freed result buffer reused by the
next allocation in the process, on any thread). A small result is a copy the array owns
(`vm_arrays.host_reader`), a large one mapped."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from tests.calling.helpers import compile_quietly
from tests.generation import fixtures

pytest.importorskip("iree.runtime")

import numpy as np

from abi_compiler import iree as abi_iree
from abi_compiler.calling.iree_runtime import ml_dtypes, rt
from abi_compiler.calling.vm_arrays import (
    COPIED_RESULT_MAX_BYTES,
    exports_to_host,
    host_reader,
    to_host,
)

VOCABULARY = 323


@pytest.fixture(scope="module")
def vmfb() -> bytes:
    """The MLIR language model of tests/generation (logits of a token and its position;
    a result whose buffer the runtime allocates per call, as a model's logits)."""
    data: bytes = compile_quietly(fixtures.mlir_model(VOCABULARY), pipeline=None, vmfb=True)
    return data


@pytest.fixture(scope="module")
def language_model(vmfb: bytes) -> Any:
    return abi_iree.load(vmfb, device="local-sync")


def _logits(module: Any, ids: list[int]) -> Any:
    return module.main(
        input_ids=np.asarray([ids], np.int64), cache_position=np.arange(len(ids), dtype=np.int64)
    )


def test_a_mapped_result_outlives_later_calls(language_model: Any) -> None:
    first = _logits(language_model, [5, 6, 7])[0, -1]  # (a view of the result, as generate's)
    expected = first.copy()
    gc.collect()
    later = [_logits(language_model, [9, 9, 9])[0, -1].copy() for _ in range(8)]
    # Allocations of the result's size, as a server's other threads make at any time.
    others = [np.full(first.nbytes * 3, 7, np.uint8) for _ in range(256)]
    np.testing.assert_array_equal(first, expected)
    assert int(np.argmax(first)) == fixtures.rule_tokens([5, 6, 7], 1, VOCABULARY)[0]
    assert int(np.argmax(later[-1])) == fixtures.rule_tokens([9, 9, 9], 1, VOCABULARY)[0]
    assert all((other == 7).all() for other in others)


def _buffer(device: Any, values: Any, element_type: Any = rt.HalElementType.SINT_32) -> Any:
    return device.allocator.allocate_buffer_copy(
        memory_type=rt.MemoryType.DEVICE_LOCAL,
        allowed_usage=rt.BufferUsage.DEFAULT | rt.BufferUsage.MAPPING,
        device=device,
        buffer=values,
        element_type=element_type,
    )


def _holds(array: Any, view: Any) -> bool:
    owner = array.base
    while owner is not None and getattr(owner, "view", None) is not view:
        owner = getattr(owner, "base", None)
    return owner is not None


def test_the_mapped_array_holds_its_buffer_view() -> None:
    device = rt.get_device("local-sync")
    view = _buffer(device, np.arange(8, dtype=np.int32))
    array = to_host(view, np.dtype(np.int32), device)
    assert _holds(array, view), "the mapped array does not hold its buffer view"
    del view
    gc.collect()
    np.testing.assert_array_equal(array, np.arange(8, dtype=np.int32))
    assert array.flags.writeable


@pytest.mark.parametrize("driver", ["local-sync", "local-task"])
def test_local_devices_export_their_buffers_as_host_memory(driver: str) -> None:
    assert exports_to_host(rt.get_device(driver))


def test_a_small_result_is_a_copy_the_array_owns() -> None:
    device = rt.get_device("local-sync")
    view = _buffer(device, np.arange(8, dtype=np.int32).reshape(2, 4))
    array = host_reader(device, np.dtype(np.int32))(view)
    assert array.flags.owndata and array.flags.writeable and array.dtype == np.int32
    del view
    gc.collect()
    np.testing.assert_array_equal(array, np.arange(8, dtype=np.int32).reshape(2, 4))


def test_a_small_result_reads_as_the_records_dtype() -> None:
    # (a signless i32 record reads a UINT_32 buffer as int32, the same bits)
    device = rt.get_device("local-sync")
    view = _buffer(device, np.array([1, 2**32 - 1], np.uint32), rt.HalElementType.UINT_32)
    array = host_reader(device, np.dtype(np.int32))(view)
    assert array.dtype == np.int32
    np.testing.assert_array_equal(array, [1, -1])


def test_a_result_above_the_copy_limit_is_mapped() -> None:
    device = rt.get_device("local-sync")
    values = np.arange(COPIED_RESULT_MAX_BYTES // 4 + 1, dtype=np.int32)
    view = _buffer(device, values)
    array = host_reader(device, np.dtype(np.int32))(view)
    assert _holds(array, view) and array.flags.writeable
    np.testing.assert_array_equal(array, values)


def test_from_a_device_that_does_not_export_a_result_is_mapped() -> None:
    device = rt.get_device("local-sync")
    view = _buffer(device, np.arange(8, dtype=np.int32))
    array = host_reader(None, np.dtype(np.int32))(view)
    assert _holds(array, view)
    np.testing.assert_array_equal(array, np.arange(8, dtype=np.int32))


def test_a_dtype_numpys_dlpack_lacks_is_mapped() -> None:
    device = rt.get_device("local-sync")
    bits = np.arange(8, dtype=np.int16)
    view = _buffer(device, bits, rt.HalElementType.BFLOAT_16)
    array = host_reader(device, np.dtype(ml_dtypes.bfloat16))(view)
    assert _holds(array, view) and array.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(array.view(np.int16), bits)


def test_a_device_result_read_on_the_host_outlives_it(vmfb: bytes) -> None:
    # (results="device": IREE's `DeviceArray` maps its buffer when read as numpy; the
    # array outlives the `DeviceArray` and later calls)
    module = abi_iree.load(vmfb, device="local-sync", results="device")
    first = np.asarray(_logits(module, [5, 6, 7]))[0, -1]
    expected = first.copy()
    gc.collect()
    later = [np.asarray(_logits(module, [9, 9, 9]))[0, -1].copy() for _ in range(8)]
    others = [np.full(first.nbytes * 3, 7, np.uint8) for _ in range(256)]
    np.testing.assert_array_equal(first, expected)
    assert int(np.argmax(later[-1])) == fixtures.rule_tokens([9, 9, 9], 1, VOCABULARY)[0]
    assert all((other == 7).all() for other in others)
