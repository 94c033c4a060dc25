"""Element types and host arrays on the VM side: each element type's numpy dtype and
IREE HAL element type (a row of `abi_compiler.dtypes.ELEMENT_TYPES`), the host arrays an
argument record takes (converted and range-checked by the element type's rules), and the
buffer views a result record reads (docs/calling.md, "Values"). Every problem is a
`Mismatch` (`abi_compiler.calling.mismatch`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, NoReturn

from abi_compiler.calling.iree_runtime import ml_dtypes, np, rt
from abi_compiler.calling.leaf_values import torch_array
from abi_compiler.calling.mismatch import (
    Mismatch,
    describe_shaped,
    plural,
    type_name,
)
from abi_compiler.dtypes import (
    ELEMENT_TYPES,
    NESTED_LIST_FITS,
    ValueKind,
    array_acceptance,
    int_range,
    scalar_name,
    taken_dtypes,
)
from abi_compiler.model import (
    Scalar,
    ValueType,
)

VmList = rt.VmVariantList
BufferView = rt.HalBufferView
DeviceArray = rt.DeviceArray


# --------------------------------------------------------------------------------------
# Element types: a row of `abi_compiler.dtypes.ELEMENT_TYPES` with numpy's and IREE's
# objects for its names.
# --------------------------------------------------------------------------------------

_E = rt.HalElementType
_BF16 = np.dtype(ml_dtypes.bfloat16)


@dataclass(frozen=True, slots=True)
class Element:
    """How arrays of one element type cross the boundary."""

    scalar: Scalar
    record: str  # "f32"
    dtype: np.dtype[Any]  # host dtype: arguments are converted to it, results read as it
    hal_type: Any  # HalElementType of argument buffers
    accepted: frozenset[np.dtype[Any]]  # array dtypes taken as they are (`taken_dtypes`)
    returned: frozenset[int]  # HalElementType values a result buffer may carry
    values: ValueKind  # what nested lists must hold (`NESTED_LIST_FITS`)
    raw: bool  # a record of the raw signature (legacy `f`): its own `taken_dtypes`
    low: int = 0  # integer records: the values nested lists may hold (`int_range`)
    high: int = 0


def _numpy_dtype(name: str) -> np.dtype[Any]:
    return _BF16 if name == "bfloat16" else np.dtype(name)


def _make_element(scalar: Scalar, raw: bool) -> Element:
    row = ELEMENT_TYPES[scalar]
    accepted = frozenset(_numpy_dtype(name) for name in taken_dtypes(scalar, raw=raw))
    # Buffer views report their element type as a plain int.
    returned = frozenset(int(getattr(_E, name)) for name in row.hal_results)
    low, high = int_range(scalar) if row.values != "float" else (0, 0)
    return Element(
        scalar,
        scalar_name(scalar),
        _numpy_dtype(row.numpy),
        getattr(_E, row.hal),
        accepted,
        returned,
        row.values,
        raw,
        low,
        high,
    )


_ELEMENTS = {
    (scalar, raw): _make_element(scalar, raw) for scalar in ELEMENT_TYPES for raw in (False, True)
}


def element_for(t: ValueType | None, raw: bool = False) -> Element | None:
    """The element of an array of ``t`` (``raw``: a record of the raw signature); None
    when numpy (or IREE) has no dtype for it."""
    return _ELEMENTS.get((t, raw)) if isinstance(t, Scalar) else None


# --------------------------------------------------------------------------------------
# Arrays: host values and buffer views checked by the element type's rules
# (`abi_compiler.dtypes`).
# --------------------------------------------------------------------------------------


def record_name(t: ValueType | None) -> str:
    if isinstance(t, Scalar):
        return scalar_name(t)
    return "unknown"


def host_value(value: Any) -> Any:
    """A torch tensor as the numpy array sharing its memory (`runtime.torch_array`);
    any other value as it is."""
    if type(value) is np.ndarray:
        return value
    try:
        array = torch_array(value)
    except TypeError as error:
        raise Mismatch(f"expected an array, got {error}") from None
    return value if array is None else array


def _dunder_array(value: Any, expected: str) -> Any:
    """``np.asarray(value)`` for a value with a dtype of its own, refused when its
    ``__array__`` raises or gives no array, or an array of another shape than the value's
    ``.shape`` (which `pack` checked against the record: the VM would be sent dims no
    check saw)."""
    try:
        array = np.asarray(value)
    except Exception as error:  # whatever the object's __array__ raises
        raise Mismatch(
            f"expected {expected}, {type(value).__name__}.__array__() raised "
            f"{type(error).__name__}: {error}"
        ) from None
    shape = getattr(value, "shape", None)
    if type(shape) is tuple and shape != array.shape:
        raise Mismatch(
            f"expected {expected}, got {type(value).__name__} of shape "
            f"[{','.join(map(str, shape))}] whose __array__() is "
            f"{describe_shaped(array, array.shape)}"
        )
    return array


def host_array(value: Any, element: Element, convert: bool, expected: str) -> Any:
    """A numpy array of ``element``'s dtype (or one it takes as it is) for ``value``."""
    value = host_value(value)
    if isinstance(value, memoryview) or (
        not isinstance(value, (list, tuple)) and hasattr(value, "__array__")
    ):  # a dtype of its own (a memoryview's is its format)
        array = _dunder_array(value, expected)
        if array.dtype in element.accepted:
            return array
        got = describe_shaped(array, array.shape)
        dtype = array.dtype
        acceptance = array_acceptance(element.scalar, dtype.name, dtype.kind, raw=element.raw)
        if acceptance == "refused":
            raise Mismatch(f"expected {expected}, got {got}")
        if convert:
            return array.astype(element.dtype)
        raise Mismatch(f"expected {expected}, got {got} (convert=True converts it)")
    # Nested lists or a Python number (rank and dims already checked by `pack`).
    try:
        data = np.array(value)
    except (ValueError, TypeError, OverflowError):
        raise Mismatch(f"expected {expected}, got non-numeric values") from None
    kind = data.dtype.kind
    if data.size == 0:
        return np.zeros(data.shape, element.dtype)
    fits = NESTED_LIST_FITS.get(kind)
    if fits is None:
        # Ints beyond int64 (and floats with them): numbers numpy keeps as objects.
        if kind == "O" and element.values == "float" and _all_numbers(data):
            return _finite_floats(data, element)
        if kind == "O" and _all_ints(data):
            return _wide_ints(data, element)
        raise Mismatch(f"expected {expected}, got non-numeric values")
    if kind == "f" and element.values == "int" and _int_lists(value):
        # Ints numpy holds as doubles: int64 and uint64 values mixed ([0, 2**64 - 1]).
        return _wide_ints(np.array(value, dtype=object), element)
    if convert:
        return data.astype(element.dtype)
    if element.values not in fits:
        raise Mismatch(
            f"expected {expected}, got {data.dtype.name} values (convert=True converts it)"
        )
    if element.values == "float":
        return _finite_floats(data, element)
    if kind != "b":
        low, high = int(data.min()), int(data.max())
        if low < element.low or high > element.high:
            _does_not_fit(data, (data < element.low) | (data > element.high), element)
    return data.astype(element.dtype)


def _finite_floats(data: Any, element: Element) -> Any:
    """Nested-list ``data`` (numbers) in a float record's dtype: a finite value that
    becomes infinite there does not fit (as `pack` says of a scalar, by the record's
    `abi_compiler.dtypes.float_limit`). Checked on the converted array itself: numpy
    converts a double to bfloat16 through float32, so a double just below bf16's limit
    becomes infinite too."""
    if data.dtype.kind == "O":
        doubles = np.array([_double(item) for item in data.flat]).reshape(data.shape)
        finite = np.array([_is_finite(item) for item in data.flat]).reshape(data.shape)
    else:
        doubles, finite = data, np.isfinite(data)
    with np.errstate(over="ignore"):
        converted = doubles.astype(element.dtype)
    overflow = np.isinf(converted) & finite
    if overflow.any():
        _does_not_fit(data, overflow, element)
    return converted


def _double(number: Any) -> float:
    try:
        return float(number)
    except OverflowError:  # an int beyond the doubles (copysign would convert it too)
        return math.inf if number > 0 else -math.inf


def _is_finite(number: Any) -> bool:
    return isinstance(number, int) or math.isfinite(number)


def _does_not_fit(data: Any, bad: Any, element: Element) -> NoReturn:
    """The error for the first element of the nested lists ``data`` where ``bad`` is
    true, located at that element."""
    position = int(np.argmax(bad))
    value = data.flat[position]
    if isinstance(value, (float, np.floating)):
        shown = repr(float(value))
    else:
        bits = abs(int(value)).bit_length()
        # (str() refuses an int of more than 4300 digits)
        shown = str(int(value)) if bits < 4096 else ""
        if not shown or len(shown) > 100:
            shown = f"{'-' if value < 0 else ''}<an integer of {bits} bits>"
    mismatch = Mismatch(f"value {shown} does not fit in {element.record}")
    index = [int(axis) for axis in np.unravel_index(position, data.shape)]
    mismatch.inside(*index)
    raise mismatch


def _wide_ints(data: Any, element: Element) -> Any:
    """An object array of ints (numpy has no integer dtype for all of them) for an integer
    record: each in the record's range (a signless one: either interpretation), as the
    record's dtype with the same bits."""
    if element.values != "int":
        raise Mismatch(f"expected {element.record} values, got integers")
    outside = np.frompyfunc(lambda item: not element.low <= item <= element.high, 1, 1)(data)
    if outside.astype(bool).any():
        _does_not_fit(data, outside.astype(bool), element)
    info = np.iinfo(element.dtype)
    wrap = 1 << (8 * element.dtype.itemsize)
    flat = [item - wrap if item > info.max else item for item in data.flat]
    return np.array(flat, dtype=element.dtype).reshape(data.shape)


def _int_lists(value: Any) -> bool:
    """Whether nested lists (or a number) hold Python ints only."""
    if isinstance(value, (list, tuple)):
        return all(_int_lists(item) for item in value)
    return isinstance(value, int) and not isinstance(value, bool)


def _all_ints(data: Any) -> bool:
    return all(isinstance(item, int) for item in data.flat)


def _all_numbers(data: Any) -> bool:
    return all(isinstance(item, (int, float)) for item in data.flat)


def checked_view(value: Any, element: Element, expected: str) -> Any:
    """A buffer view (or IREE `DeviceArray`) argument: its element type must match."""
    view = value._buffer_view if isinstance(value, DeviceArray) else value
    if view.element_type not in element.returned:
        raise Mismatch(
            f"expected {expected}, got a buffer view of element type "
            f"{element_type_name(view.element_type)}"
        )
    return view


def element_type_name(element_type: int) -> str:
    """`FLOAT_64` for a buffer view's element type (its number if IREE has no name)."""
    try:
        return str(_E(element_type).name)
    except ValueError:
        return str(element_type)


def dynamic_hal_type(dtype: np.dtype[Any]) -> Any:
    from iree.runtime.dtypes import map_dtype_to_hal_element_type

    return map_dtype_to_hal_element_type(dtype)


def view_dtype(view: Any) -> np.dtype[Any] | None:
    try:
        return np.dtype(_E.map_to_dtype(view.element_type))
    except (TypeError, ValueError, KeyError, RuntimeError):
        return None


def view_at(lst: Any, index: int, expected: str = "an array") -> Any:
    try:
        view = lst.get_as_object(index, BufferView)
    except ValueError:  # not a reference
        view = None
    if view is None:
        raise Mismatch(f"expected {expected}, the VM returned {type_name(lst.get_variant(index))}")
    return view


#: The alignment IREE's local devices need to read a host allocation in place.
IN_PLACE_ALIGNMENT = 64
#: The smallest array read in place: below, a copy costs less than finding out whether
#: the array can be read in place (about 1 µs to read its address) and checking the
#: call's results against it (docs/calling.md, "Arguments read in place").
IN_PLACE_MIN_BYTES = 1 << 16


def in_place_view(device: Any, array: Any, element_type: int) -> Any:
    """A buffer view of ``array``'s own memory (no copy), or None where the device cannot
    read it so or a copy is cheaper: a C-contiguous, writable host array of at least
    `IN_PLACE_MIN_BYTES` aligned to `IN_PLACE_ALIGNMENT`, whose DLPack dtype is
    ``element_type``. The view keeps the
    array alive; the array must not change while the call reads it (calls are
    synchronous). A read-only array is copied (DLPack cannot mark memory read-only)."""
    if array.nbytes < IN_PLACE_MIN_BYTES:
        return None
    flags = array.flags
    if (
        not (flags.c_contiguous and flags.writeable)
        or array.__array_interface__["data"][0] % IN_PLACE_ALIGNMENT
    ):
        return None
    try:
        view = device.from_dlpack_capsule(array.__dlpack__())
    except (BufferError, TypeError, ValueError, IndexError, RuntimeError):
        return None  # a dtype DLPack has no code for, a device that cannot import
    return view if view.element_type == element_type else None


def reads_in_place(device: Any) -> bool:
    """Whether ``device`` reads an aligned host array in place (`in_place_view`): IREE's
    local CPU devices do; the answer is the device's own, probed once."""
    raw = np.zeros(IN_PLACE_MIN_BYTES + IN_PLACE_ALIGNMENT, np.uint8)
    start = -raw.__array_interface__["data"][0] % IN_PLACE_ALIGNMENT
    probe = raw[start : start + IN_PLACE_MIN_BYTES]
    view = in_place_view(device, probe, int(_E.UINT_8))
    if view is None:
        return False
    try:
        mapped = view.map().asarray(view.shape, probe.dtype)
    except RuntimeError:  # not host visible
        return False
    return bool(mapped.__array_interface__["data"][0] == probe.__array_interface__["data"][0])


class _MappedBuffer:
    """The owner of a mapped result array's memory (the array's ``base``): it holds the
    buffer view and its mapping, so that the buffer lives as long as any array of its
    memory. (The array IREE's mapping gives does not keep the buffer alive: once the
    call's result list is gone, the buffer is freed and its memory reused by the next
    allocation in the process, on any thread.)"""

    __slots__ = ("__array_interface__", "mapping", "view")

    def __init__(self, view: Any, mapping: Any, array: np.ndarray[Any, Any]) -> None:
        self.view, self.mapping = view, mapping
        self.__array_interface__ = array.__array_interface__


def mapped_array(view: Any, dtype: Any) -> Any:
    """The buffer of ``view`` mapped as a numpy array of ``dtype`` that keeps the buffer
    alive (its ``base`` a `_MappedBuffer`); a `RuntimeError` where the host cannot map it."""
    mapping = view.map()
    array = np.asarray(_MappedBuffer(view, mapping, mapping.asarray(view.shape, dtype)))
    # (an array interface names an extension dtype, bfloat16, only by its size: `|V2`)
    return array if array.dtype == dtype else array.view(dtype)


#: The largest result copied out of its buffer (`host_reader`); from this size, a result
#: is the buffer's memory mapped (docs/calling.md, "Arrays").
COPIED_RESULT_MAX_BYTES = 1 << 16
#: DLPack's device code of host memory (``kDLCPU``).
_DL_CPU = 1
#: The buffer `exports_to_host` probes a device with (a result's memory and usage).
_RESULT_MEMORY = int(rt.MemoryType.DEVICE_LOCAL)
_RESULT_USAGE = int(rt.BufferUsage.DEFAULT | rt.BufferUsage.MAPPING)


class _Exported:
    """A DLPack capsule of a result buffer (`HalDevice.create_dlpack_capsule`, which holds
    the buffer until the capsule's consumer lets it go), handed to a consumer that takes
    an object with ``__dlpack__`` rather than a capsule (`np.from_dlpack`)."""

    __slots__ = ("capsule",)

    def __init__(self, capsule: Any) -> None:
        self.capsule = capsule

    def __dlpack__(self, **options: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (_DL_CPU, 0)


def exports_to_host(device: Any) -> bool:
    """Whether a buffer of ``device`` exported through DLPack is the host memory its
    mapping reads (IREE's local CPU devices): the answer is the device's own, probed
    once by comparing the two addresses (nothing is read through the exported one)."""
    probe = np.zeros(16, np.int32)
    try:
        view = device.allocator.allocate_buffer_copy(
            _RESULT_MEMORY, _RESULT_USAGE, device, probe, int(_E.INT_32)
        )
        mapped = view.map().asarray(view.shape, probe.dtype)
        exported = np.from_dlpack(_Exported(capsule_of(device, view)))
    except (BufferError, TypeError, ValueError, RuntimeError):
        return False
    return bool(mapped.__array_interface__["data"][0] == exported.__array_interface__["data"][0])


def host_reader(device: Any, dtype: np.dtype[Any]) -> Callable[[Any], Any]:
    """How a result buffer view whose element type reads as ``dtype`` becomes a host
    numpy array, chosen once per record: where ``device`` (None: not) exports its
    buffers as host memory (`exports_to_host`) and numpy has a DLPack code for
    ``dtype``, a result below `COPIED_RESULT_MAX_BYTES` is copied out of its exported
    memory (the array owns its copy: cheaper than a mapping that holds the buffer) and a
    larger one mapped (`mapped_array`); otherwise every result is mapped. Either way the
    array is writable and outlives the call's buffers. Raises what DLPack raises (the
    caller then reads the value the long way)."""
    if device is None or dtype.kind not in "biufc":  # (ml_dtypes' floats: no DLPack code)
        return partial(mapped_array, dtype=dtype)
    create, from_dlpack = device.create_dlpack_capsule, np.from_dlpack  # (per result: bound)

    def read(view: Any) -> Any:
        if view.byte_length > COPIED_RESULT_MAX_BYTES:
            return mapped_array(view, dtype)
        array = from_dlpack(_Exported(create(view, _DL_CPU, 0))).copy()
        return array if array.dtype is dtype else array.view(dtype)

    return read


def capsule_of(device: Any, view: Any) -> Any:
    """A DLPack capsule of the result ``view`` for a framework's ``from_dlpack`` (the
    tensor then holds the buffer: no copy)."""
    return device.create_dlpack_capsule(view, _DL_CPU, 0)


def to_host(view: Any, dtype: np.dtype[Any], device: Any) -> Any:
    """The result buffer as a host numpy array: mapped where the buffer is host visible
    (local CPU devices; the array keeps the buffer alive, `mapped_array`), copied
    otherwise (as IREE's `DeviceArray.to_host`)."""
    try:
        return mapped_array(view, dtype)
    except RuntimeError:
        return DeviceArray(
            device, view, implicit_host_transfer=True, override_dtype=dtype
        ).to_host()


def sub_list(lst: Any, index: int, count: int | None) -> Any:
    value = lst.get_variant(index)
    if not (isinstance(value, rt.VmRef) and value.isinstance(VmList)):
        wanted = "a list" if count is None else f"a list of {plural(count, 'value')}"
        raise Mismatch(f"expected {wanted}, the VM returned {type_name(value)}")
    sub = value.deref(VmList)
    if count is not None and len(sub) != count:
        raise Mismatch(f"expected a list of {plural(count, 'value')}, the VM returned {len(sub)}")
    return sub
