"""The arguments a call updates in place (`abi.call`'s ``updates``: a torch program's
mutated inputs; docs/calling.md, "Inputs the program updates in place").

The compiled function returns each updated argument's new value as a result leaf the
original result does not show; the caller's side writes it into the array the caller
passed, so that the call behaves as the program does:

* `update_target` checks, when the arguments are bound (before the call), that the value
  given can take the new value: a numpy array or a CPU torch tensor whose memory the call
  sends as it is (not converted to another dtype, not read-only), or an IREE
  `DeviceArray` (with ``results="device"``), whose elements are each its own memory
  (not a broadcast view, where one write would land on several elements). Anything else
  is a `Mismatch`;
* `check_targets` refuses two updated arguments whose memory overlaps: one array, two
  views of one base that share an element, two `DeviceArray`s over one buffer, a
  `DeviceArray` and a host view of its memory;
* `write_back`, after the call: a host array gets the values (`np.copyto`; a torch
  tensor through the numpy array sharing its memory); a `DeviceArray` is rebound to the
  result's buffer view, without a copy (the same object holds the new values) — the
  buffer it already had when the module aliases the result into the argument
  (`iree.abi.output`, written by the torch frontend: IREE wrote it in place).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from abi_compiler.calling.iree_runtime import np, rt
from abi_compiler.calling.mismatch import Mismatch, type_name
from abi_compiler.errors import AbiError

__all__ = ["check_targets", "update_target", "write_back"]

_WHY = "the program updates this input in place"


def update_target(value: Any, converted: Any, dtype: Any, device_results: bool) -> Any:
    """The array the new value of an updated argument is written into: ``converted``
    (what the call sends for ``value``) when it is ``value``'s own memory; a `Mismatch`
    otherwise. ``dtype``: the numpy dtype the call records for it (None: any);
    ``device_results``: the module returns `DeviceArray`s."""
    if isinstance(value, rt.DeviceArray):
        if not device_results:
            raise Mismatch(
                f"got a DeviceArray, which a module loaded with results='numpy' cannot "
                f"update in place ({_WHY}): load it with results='device', or pass a "
                "numpy array"
            )
        return value
    if isinstance(value, np.ndarray):
        if not value.flags.writeable:
            raise Mismatch(f"got a read-only numpy array, which the call cannot update ({_WHY})")
        if not _same_memory(converted, _interface(value), value.shape, value.strides):
            raise Mismatch(
                f"expected an array of dtype {dtype} the call can write into ({_WHY}), got "
                f"{value.dtype.name}: the call would send a converted copy"
            )
        _check_distinct_elements(value)
        return value
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        strides = tuple(stride * value.element_size() for stride in value.stride())
        if (
            value.device.type != "cpu"
            or value.is_conj()
            or value.is_neg()
            or not _same_memory(converted, value.data_ptr(), tuple(value.shape), strides)
        ):
            raise Mismatch(
                f"got a torch.Tensor whose memory the call cannot write ({_WHY}): pass a "
                f"CPU tensor of dtype {dtype}"
            )
        _check_distinct_elements(converted)
        return converted
    raise Mismatch(
        f"expected an array the call can update in place ({_WHY}: a numpy array, a torch "
        f"tensor or a DeviceArray), got {type_name(value)}"
    )


def _check_distinct_elements(array: Any) -> None:
    """A `Mismatch` for an array some of whose elements share memory (a stride of 0, as
    ``np.broadcast_to`` or ``torch.expand`` make, or strides that meet): the new values
    of those elements would be written into one place (eager torch refuses the same)."""
    if _elements_overlap(array):
        raise Mismatch(
            f"got an array whose elements share memory (byte strides {list(array.strides)} for "
            f"shape {list(array.shape)}: a broadcast or overlapping view), which the call "
            f"cannot update ({_WHY}): pass an array of its own, e.g. a copy"
        )


# The most elements whose addresses `_elements_overlap` lists when strides alone cannot
# tell (an exotic view); a bigger such array counts as overlapping.
_LISTED_ELEMENTS = 1 << 22


def _elements_overlap(array: Any) -> bool:
    """Whether two elements of a numpy array share a byte. Strides alone answer for every
    view numpy or torch makes (each axis, in order of stride, steps past everything the
    smaller ones span); other strides are answered by listing the addresses."""
    axes = sorted(
        (abs(stride), size)
        for size, stride in zip(array.shape, array.strides, strict=True)
        if size > 1
    )
    span = array.itemsize  # the bytes the axes so far cover
    for stride, size in axes:
        if stride < span:
            break
        span += stride * (size - 1)
    else:
        return False
    if array.size > _LISTED_ELEMENTS:
        return True
    offsets = np.zeros((), np.int64)
    for size, stride in zip(array.shape, array.strides, strict=True):
        offsets = np.add.outer(offsets, np.arange(size, dtype=np.int64) * stride)
    ordered = np.sort(offsets, axis=None)
    return bool((np.diff(ordered) < array.itemsize).any())


def _interface(array: Any) -> int:
    return int(array.__array_interface__["data"][0])


def _same_memory(converted: Any, address: int, shape: Any, strides: Any) -> bool:
    """Whether ``converted`` is a writable numpy array over the memory at ``address`` with
    that shape and those strides (in bytes)."""
    return (
        isinstance(converted, np.ndarray)
        and converted.flags.writeable
        and _interface(converted) == address
        and converted.shape == tuple(shape)
        and converted.strides == tuple(strides)
    )


def check_targets(targets: Sequence[Any], names: Sequence[str]) -> None:
    """`AbiError` for two updated arguments whose memory overlaps (one array, views of one
    base sharing an element, `DeviceArray`s over one buffer): the program would write
    both, the call could keep only one value."""
    memories = [_memory(target) for target in targets]
    for later in range(1, len(targets)):
        for earlier in range(later):
            if _share(memories[earlier], memories[later]):
                raise AbiError(
                    f"{names[later]}: the same memory as {names[earlier]}, and the program "
                    "updates both in place: pass separate arrays"
                )


# The work `np.shares_memory` may do to prove two arrays disjoint; past it they count as
# overlapping (strided views whose bounds interleave).
_OVERLAP_WORK = 100_000


def _memory(target: Any) -> Any:
    """What `check_targets` compares of an updated argument: a host array's memory; a
    `DeviceArray`'s as bytes mapped to the host (the addresses its buffer has there), or
    its HAL buffer where the device's memory cannot be mapped."""
    if not isinstance(target, rt.DeviceArray):
        return target
    view = target._buffer_view
    try:
        mapped = view.map()
        return mapped, mapped.asarray([view.byte_length], np.dtype(np.uint8))
    except Exception:  # memory the host cannot map: its buffer is all there is to compare
        return view.get_buffer()


def _share(first: Any, second: Any) -> bool:
    first, second = _bytes_of(first), _bytes_of(second)
    if isinstance(first, rt.HalBuffer) and isinstance(second, rt.HalBuffer):
        return bool(first == second)  # (equal: one buffer)
    if not isinstance(first, np.ndarray) or not isinstance(second, np.ndarray):
        return False  # device memory the host cannot map, and a host array
    try:
        # (numpy's stubs allow only its two special values; it takes any work bound)
        return bool(np.shares_memory(first, second, max_work=_OVERLAP_WORK))  # type: ignore[arg-type]
    except np.exceptions.TooHardError:
        return True


def _bytes_of(memory: Any) -> Any:
    return memory[1] if isinstance(memory, tuple) else memory


def write_back(target: Any, new: Any, where: str) -> None:
    """Writes ``new`` (a result leaf: a host array, or a `DeviceArray` with
    ``results="device"``) into ``target`` (`update_target`'s)."""
    if isinstance(target, rt.DeviceArray):
        assert isinstance(new, rt.DeviceArray)  # `update_target` asked for device results
        target._buffer_view = new._buffer_view
        target._override_dtype = new._override_dtype
        target._mapped_memory = None  # a host view of the previous buffer
        target._host_array = None
        return
    if isinstance(new, rt.DeviceArray):
        new = new.to_host()
    if new.shape != target.shape or new.dtype.itemsize != target.dtype.itemsize:
        raise AbiError(
            f"{where}: the module returned its new value as {new.dtype.name}{list(new.shape)}, "
            f"which does not fit the {target.dtype.name}{list(target.shape)} given"
        )
    if new.dtype != target.dtype:
        new = new.view(target.dtype)  # the record's bits (a signless integer, uint8 as i8)
    np.copyto(target, new)
