"""Calling compiled IREE modules with nested Python values (docs/spec.md §10.1).

    from abi_compiler import iree as abi_iree

    module = abi_iree.compile(mlir_text)              # abi-opt -p iree-abi-v1, iree-compile
    module = abi_iree.load("model.vmfb")              # or a module compiled elsewhere
    module.update({"w": w, "lr": 0.1}, steps=3)

`load` puts a compiled module (a `.vmfb` path or its bytes) on a local CPU device and
exposes each exported function as a `Function`, which marshals by the function's
reflection:

* ``iree.abi`` (V1): `abi_compiler.runtime.pack` binds and checks the Python values
  against the records, the packed values are turned into VM values (structures and
  `py_homogeneous_list` into VM lists, arrays into buffer views, `"unknown"` values
  dynamically), the VM runs, its results are read back by the result records and
  `abi_compiler.runtime.unpack` re-assembles them;
* legacy ``f`` + ``sip`` (no ``iree.abi``): the same through `pack_legacy` /
  `unpack_legacy`, leaves typed by the raw signature;
* neither: a flat positional call, every value converted dynamically.

Arrays are checked before anything reaches the VM: rank and static dims by `pack`, the
element type here. A numpy array (an object with `__array__`, a memoryview) must have
the record's dtype (for a signless integer record also the unsigned dtype of the same
width; for `i8` also bool); nested lists and Python numbers are converted when their
values fit (ints into integer or float records, floats into float records only; a
finite value must stay finite: ``argument 0[1]: value 1e+300 does not fit in f32``).
``convert=True`` converts any numeric array instead
(float64 into an f32 slot, as IREE's own invoker does silently). Every problem is an
`AbiError` naming the argument path and what the value must be, e.g. ``argument 0['w']:
expected float32[2,4], got float64[2,4] (convert=True converts it)``.

`compile` runs an abi-opt pipeline in-process and IREE's compiler (`iree-compile` from
`iree-base-compiler`) for the local CPU, and returns the loaded module; a failure of
either is a `CompileError` carrying that tool's diagnostics.

docs/calling.md is the reference for users.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, NoReturn

try:
    import ml_dtypes
    import numpy as np
    from iree import runtime as _rt
    from iree.runtime import _binding
except ImportError as _error:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        "abi_compiler.iree needs IREE's Python runtime (iree-base-runtime 3.13, with numpy "
        "and ml_dtypes): pip install 'abi-compiler[iree]'"
    ) from _error

from abi_compiler.calling.marshal import (
    Mismatch,
    describe,
    describe_shaped,
    torch_array,
)
from abi_compiler.dtypes import ELEMENT_TYPES, int_range, numpy_dtype_name, scalar_name
from abi_compiler.model import (
    Dict,
    IndexPathComponent,
    Leaf,
    ListRef,
    NDArray,
    Node,
    Scalar,
    Sequence,
    Signature,
    ValueType,
)
from abi_compiler.signatures.module_signatures import caller_visible

__all__ = ["ResultsMode", "caller_visible"]

ResultsMode = Literal["numpy", "device"]

# --------------------------------------------------------------------------------------
# Errors with a value path, built on the way out as in abi_compiler.runtime.
# --------------------------------------------------------------------------------------


# The one value-path error of the caller's side (`abi_compiler.runtime.Mismatch`).
_Misfit = Mismatch


def _count(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _type_name(value: object) -> str:
    return "None" if value is None else type(value).__name__


# --------------------------------------------------------------------------------------
# Element types: record ↔ numpy dtype ↔ HAL element type.
# --------------------------------------------------------------------------------------

_E = _rt.HalElementType


@dataclass(frozen=True)
class _Element:
    """How arrays of one element type cross the boundary."""

    record: str  # "f32"
    dtype: np.dtype[Any]  # host dtype: arguments are converted to it, results read as it
    hal_type: Any  # HalElementType of argument buffers
    accepted: frozenset[np.dtype[Any]]  # array dtypes taken as they are (same bytes)
    returned: frozenset[int]  # HalElementType values a result buffer may carry
    kind: Literal["bool", "int", "float"]
    low: int = 0  # integer records: the values nested lists may hold
    high: int = 0


def _dtype(name: Any) -> np.dtype[Any]:
    return np.dtype(name)


def _values(*element_types: Any) -> frozenset[int]:
    """Buffer views report their element type as a plain int."""
    return frozenset(int(element_type) for element_type in element_types)


def _element_for(t: ValueType | None) -> _Element | None:
    """The element of an array of ``t``; None when numpy (or IREE) has no dtype for it."""
    row = ELEMENT_TYPES.get(t) if isinstance(t, Scalar) else None
    if row is None:
        return None
    scalar = row.scalar
    dtype = _dtype(ml_dtypes.bfloat16 if scalar.kind == "bf" else row.numpy)
    hal_type = getattr(_E, row.hal)
    returned = _values(*(getattr(_E, name) for name in row.hal_results))
    record = scalar_name(scalar)
    if scalar.kind in ("f", "bf"):
        return _Element(record, dtype, hal_type, frozenset({dtype}), returned, "float")
    if scalar.width == 1:
        return _Element(record, dtype, hal_type, frozenset({dtype}), returned, "bool", 0, 1)
    low, high = int_range(scalar)
    accepted = {dtype}
    if scalar.kind == "i":
        # Signless (what MLIR frontends use): either interpretation of the bits, as
        # abi_compiler.runtime takes scalars; bool arrays are bytes of 0 and 1.
        accepted.add(_dtype(numpy_dtype_name(Scalar("ui", scalar.width))))
        accepted |= {_dtype(np.bool_)} if scalar.width == 8 else set()
    return _Element(record, dtype, hal_type, frozenset(accepted), returned, "int", low, high)


# Nested-list data: numpy's inferred kind → the element kinds it may fill unconverted.
_FITS = {
    "b": ("bool", "int", "float"),
    "i": ("bool", "int", "float"),  # bool: 0 and 1 only (the range check)
    "u": ("bool", "int", "float"),
    "f": ("float",),
}


# --------------------------------------------------------------------------------------
# Python → VM (arguments). A pusher appends one packed value to a VM list.
# --------------------------------------------------------------------------------------

Pusher = Callable[[Any, Any], None]  # (VmVariantList, value) -> None
Reader = Callable[[Any, int], Any]  # (VmVariantList, index) -> value
Checker = Callable[[Any], Any]  # packed value -> packed value, arrays checked
FlatReader = Callable[[Any, int, list[Any]], None]  # (VmVariantList, index, leaves)

_ARG_MEMORY = int(_rt.MemoryType.DEVICE_LOCAL)
_ARG_USAGE = int(_rt.BufferUsage.DEFAULT | _rt.BufferUsage.MAPPING)  # as IREE's invoker
_VmList = _rt.VmVariantList
_BufferView = _rt.HalBufferView
_DeviceArray = _rt.DeviceArray


class _ResultArray(_rt.DeviceArray):
    """A device-resident result (``results="device"``): IREE's `DeviceArray`, whose
    shape is read from its buffer view instead of by a transfer to the host."""

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._buffer_view.shape)


class _Marshal:
    """Builds the pushers and readers of one loaded module's functions."""

    def __init__(self, device: Any, convert: bool, results: ResultsMode) -> None:
        self.device = device
        self.allocator = device.allocator
        self.convert = convert
        self.results = results
        self.invoke_context = _binding.InvokeContext(device)

    # -- arguments through IREE's packer ------------------------------------------------
    #
    # IREE's `ArgumentPacker` (C++) builds the VM argument list about twice as fast as
    # the pushers below, but implements only part of the grammar and converts array
    # dtypes silently. A function whose records it implements gets it: `pack` binds and
    # checks the values, `checker` checks (or converts) the arrays in the packed values,
    # and the packer is given records that read those packed values (a structure is a
    # list in record order, so `sdict` becomes `slist`; names are bound already).

    def iree_packer(self, signature: Signature) -> tuple[Any, list[Checker | None]] | None:
        records = [_iree_record(argument.node) for argument in signature.arguments]
        if any(record is None for record in records):
            return None
        packer = _binding.ArgumentPacker(_binding._invoke_statics, records)
        return packer, [self.checker(argument.node) for argument in signature.arguments]

    def checker(self, node: Node | None) -> Checker | None:
        """Checks the arrays below ``node`` in its packed value (None: nothing to check);
        returns the value, arrays replaced where converted."""
        if isinstance(node, Leaf):
            if isinstance(node.type, NDArray):
                element = _element_for(node.type.element)
                assert element is not None  # _iree_record took it
                return _array_checker(element, self.convert, describe(node.type))
            if isinstance(node.type, Scalar) and node.type.kind == "i":
                return _signed_checker(node.type.width)
            return None
        if not isinstance(node, (Sequence, Dict)):
            return None
        items = node.items if isinstance(node, Sequence) else tuple(c for _, c in node.items)
        keys: list[IndexPathComponent] = (
            list(range(len(items))) if isinstance(node, Sequence) else [k for k, _ in node.items]
        )
        checks = [
            (position, keys[position], check)
            for position, item in enumerate(items)
            if (check := self.checker(item)) is not None
        ]
        if not checks:
            return None

        def check_structure(value: Any) -> Any:
            for position, key, check in checks:
                try:
                    value[position] = check(value[position])  # `pack` made the list
                except _Misfit as misfit:
                    misfit.reversed_path.append(key)
                    raise
            return value

        return check_structure

    # -- arguments ----------------------------------------------------------------------

    def pusher(self, node: Node | None) -> Pusher:
        if node is None:
            return _push_gap
        if isinstance(node, Leaf):
            return self.value_pusher(node.type)
        if isinstance(node, Sequence):
            keys: list[IndexPathComponent] = list(range(len(node.items)))
            pushers = [self.pusher(item) for item in node.items]
        else:
            keys = [key for key, _ in node.items]
            pushers = [self.pusher(child) for _, child in node.items]
        return _structure_pusher(keys, pushers)

    def value_pusher(self, t: ValueType | None) -> Pusher:
        if isinstance(t, Scalar):
            return _push_float if t.kind in ("f", "bf") else _push_int
        if isinstance(t, NDArray):
            if isinstance(t.element, ListRef):
                return self.ref_array_pusher(t.element)
            return self.array_pusher(t)
        if isinstance(t, ListRef):
            return _list_pusher(self.value_pusher(t.element))
        return self.push_dynamic  # "unknown", untyped SIP leaves, legacy references

    def ref_array_pusher(self, element: ListRef) -> Pusher:
        """docs/spec.md §8.3: `pack` gives ``[values in C order, dims]``; the VM takes a list of
        the two lists."""
        push_values = _list_pusher(self.value_pusher(element))
        push_dims = _list_pusher(_push_int)
        return _structure_pusher([0, 1], [push_values, push_dims])

    def array_pusher(self, array: NDArray) -> Pusher:
        element = _element_for(array.element)
        expected = describe(array)
        allocate, device, convert = self.allocator.allocate_buffer_copy, self.device, self.convert
        if element is None:
            # The record does not say which element type (`"unknown"`: complex, index,
            # opaque): an array goes as a buffer view of its own dtype, which the VM
            # checks when the function imports it.
            record = _record_name(array.element)
            push_dynamic = self.push_dynamic

            def push_unsupported(lst: Any, value: Any) -> None:
                value = _host_value(value)
                if isinstance(value, (_BufferView, _DeviceArray, np.ndarray)):
                    push_dynamic(lst, value)
                    return
                raise _Misfit(
                    f"expected an array (element type {record}), got {_type_name(value)}: "
                    "nested lists say nothing of its element type"
                )

            return push_unsupported
        dtype, accepted, hal_type = element.dtype, element.accepted, element.hal_type

        def push_array(lst: Any, value: Any) -> None:
            if type(value) is np.ndarray and (value.dtype is dtype or value.dtype in accepted):
                array = value  # the common case, first
            elif isinstance(value, (_BufferView, _DeviceArray)):
                lst.push_ref(_checked_view(value, element, expected))
                return
            else:
                array = _host_array(value, element, convert, expected)
            try:
                view = allocate(_ARG_MEMORY, _ARG_USAGE, device, array, hal_type)
            except ValueError:  # not C-contiguous (rare: checked only when it happens)
                view = allocate(
                    _ARG_MEMORY, _ARG_USAGE, device, np.ascontiguousarray(array), hal_type
                )
            lst.push_ref(view)

        return push_array

    def push_dynamic(self, lst: Any, value: Any) -> None:
        """`"unknown"` (and untyped) values: VM lists, buffer views and VM references as
        they are; arrays as buffer views of their own dtype; Python numbers; sequences as
        VM lists of dynamic values."""
        value = _host_value(value)
        if isinstance(value, _VmList):
            lst.push_list(value)
        elif isinstance(value, _BufferView):
            lst.push_ref(value)
        elif isinstance(value, _DeviceArray):
            lst.push_ref(value._buffer_view)
        elif isinstance(value, _rt.VmRef):
            lst.push_ref(value)
        elif isinstance(value, (bool, int, np.integer, np.bool_)):
            lst.push_int(int(value))
        elif isinstance(value, (float, np.floating)):
            lst.push_float(float(value))
        elif isinstance(value, np.ndarray):
            hal_type = _dynamic_hal_type(value.dtype)
            if hal_type is None:
                raise _Misfit(f"no IREE element type for an array of {value.dtype}")
            lst.push_ref(
                self.allocator.allocate_buffer_copy(
                    _ARG_MEMORY, _ARG_USAGE, self.device, np.ascontiguousarray(value), hal_type
                )
            )
        elif isinstance(value, (list, tuple)):
            sub = _VmList(len(value))
            for index, item in enumerate(value):
                try:
                    self.push_dynamic(sub, item)
                except _Misfit as misfit:
                    misfit.reversed_path.append(index)
                    raise
            lst.push_list(sub)
        else:
            raise _Misfit(
                "expected a value the VM can take (a VM list, buffer view, array, number or "
                f"sequence of those), got {_type_name(value)}"
            )

    # -- results ------------------------------------------------------------------------

    def reader(self, node: Node | None) -> Reader:
        if node is None:
            return _read_variant  # a gap: the VM holds a null reference (None)
        if isinstance(node, Leaf):
            return self.value_reader(node.type)
        items = [child for _, child in node.items] if isinstance(node, Dict) else node.items
        keys = [key for key, _ in node.items] if isinstance(node, Dict) else None
        return _structure_reader([self.reader(item) for item in items], keys)

    def flat_reader(self, node: Node | None) -> FlatReader:
        """Reads a result record's value into a flat list by leaf index (the original
        call rebuilds its structure from that, `CallPlan.rebuild`)."""
        if node is None:
            return _skip_gap
        if isinstance(node, Leaf):
            read, index = self.value_reader(node.type), node.index

            def read_leaf(lst: Any, position: int, out: list[Any]) -> None:
                out[index] = read(lst, position)

            return read_leaf
        items = [child for _, child in node.items] if isinstance(node, Dict) else node.items
        keys: list[IndexPathComponent] = (
            [key for key, _ in node.items] if isinstance(node, Dict) else list(range(len(items)))
        )
        readers = [self.flat_reader(item) for item in items]
        count = len(readers)

        def read_structure(lst: Any, position: int, out: list[Any]) -> None:
            sub = _sub_list(lst, position, count)
            done = 0
            try:
                for read in readers:
                    read(sub, done, out)
                    done += 1
            except _Misfit as misfit:
                misfit.reversed_path.append(keys[done])
                raise

        return read_structure

    def value_reader(self, t: ValueType | None) -> Reader:
        if isinstance(t, Scalar):
            return _int_reader(t) if t.kind in ("i", "si", "ui") and t.width > 1 else _read_variant
        if isinstance(t, NDArray):
            if isinstance(t.element, ListRef):
                values = _list_reader(self.value_reader(t.element))
                return _structure_reader([values, _list_reader(_read_variant)], None)
            return self.array_reader(t)
        if isinstance(t, ListRef):
            return _list_reader(self.value_reader(t.element))
        return self.read_dynamic

    def array_reader(self, array: NDArray) -> Reader:
        element = _element_for(array.element)
        expected = describe(array)
        host = self.results == "numpy"
        device = self.device
        if element is None:
            return self.read_dynamic
        dtype, returned = element.dtype, element.returned

        def read_array(lst: Any, index: int) -> Any:
            view = _view_at(lst, index, expected)
            if view.element_type not in returned:
                raise _Misfit(
                    f"expected {expected}, the VM returned element type "
                    f"{_element_type_name(view.element_type)}"
                )
            if host:
                return _to_host(view, dtype, device)
            return _ResultArray(device, view, implicit_host_transfer=True, override_dtype=dtype)

        return read_array

    def read_dynamic(self, lst: Any, index: int) -> Any:
        value = lst.get_variant(index)
        if not isinstance(value, _rt.VmRef):
            return value
        view = value.deref(_BufferView, True)
        if view is not None:
            dtype = _view_dtype(view)
            if self.results == "numpy" and dtype is not None:
                return _to_host(view, dtype, self.device)
            return _ResultArray(self.device, view, implicit_host_transfer=True)
        if value.isinstance(_VmList):
            sub = value.deref(_VmList)
            return [self.read_dynamic(sub, i) for i in range(len(sub))]
        return value


def _record_name(t: ValueType | None) -> str:
    if isinstance(t, Scalar):
        return scalar_name(t)
    return "unknown"


def _push_int(lst: Any, value: Any) -> None:
    # `pack` made it an int (a bool for i1) that fits its record in one interpretation;
    # the VM takes 64 bits and truncates to the width, so only the top of ui64 wraps.
    value = int(value)
    lst.push_int(value if value <= _INT64_MAX else value - (1 << 64))


_INT64_MAX = (1 << 63) - 1


def _push_float(lst: Any, value: Any) -> None:
    lst.push_float(value)


def _skip_gap(lst: Any, index: int, out: list[Any]) -> None:
    return None


def _push_gap(lst: Any, value: Any) -> None:
    # `pack` checked that a gap holds None. IREE's Python binding cannot append a null
    # reference, so the slot gets an empty list; wrappers never read gaps (docs/spec.md §8.2).
    lst.push_list(_VmList(0))


# The records IREE's ArgumentPacker implements (its InvokeStatics).
_IREE_SCALARS = frozenset({"i8", "i16", "i32", "i64", "f32", "f64"})
_IREE_ARRAYS = frozenset({"i1", "i8", "i16", "i32", "i64", "f32", "f64"})


def _iree_record(node: Node | None) -> Any:
    """The record IREE's packer reads ``node``'s packed value with, or None."""
    if isinstance(node, Leaf):
        t = node.type
        if isinstance(t, Scalar) and t.kind in ("i", "f"):
            name = scalar_name(t)
            return name if name in _IREE_SCALARS else None
        if isinstance(t, NDArray) and isinstance(t.element, Scalar) and t.element.kind in "if":
            name = scalar_name(t.element)
            if name not in _IREE_ARRAYS:
                return None
            return ["ndarray", name, *((None,) if t.dims is None else (len(t.dims), *t.dims))]
        return None
    if node is None:
        return None  # a gap: IREE's packer has no null
    items = node.items if isinstance(node, Sequence) else tuple(c for _, c in node.items)
    records = [_iree_record(item) for item in items]
    if any(record is None for record in records):
        return None
    return ["slist", *records]


def _signed_checker(width: int) -> Checker:
    """A signless integer above the signed range (`pack` takes either interpretation):
    the same bits as a signed value, which is what IREE's packer converts."""
    highest, wrap = (1 << (width - 1)) - 1, 1 << width
    return lambda value: value if value <= highest else value - wrap


def _array_checker(element: _Element, convert: bool, expected: str) -> Checker:
    dtype, accepted = element.dtype, element.accepted

    def check_array(value: Any) -> Any:
        if type(value) is np.ndarray and (value.dtype is dtype or value.dtype in accepted):
            return value
        if isinstance(value, (_BufferView, _DeviceArray)):
            _checked_view(value, element, expected)
            return value
        return _host_array(value, element, convert, expected)

    return check_array


def _structure_pusher(keys: list[IndexPathComponent], pushers: list[Pusher]) -> Pusher:
    """A packed structure (a list in record order, from `pack`) → a VM list."""
    count = len(pushers)

    def push_structure(lst: Any, value: Any) -> None:
        sub = _VmList(count)
        done = 0
        try:
            for push, item in zip(pushers, value, strict=True):
                push(sub, item)
                done += 1
        except _Misfit as misfit:
            misfit.reversed_path.append(keys[done])
            raise
        lst.push_list(sub)

    return push_structure


def _list_pusher(push_element: Pusher) -> Pusher:
    """`py_homogeneous_list`: a sequence (checked by `pack`) → a VM list."""

    def push_list(lst: Any, value: Any) -> None:
        sub = _VmList(len(value))
        done = 0
        try:
            for item in value:
                push_element(sub, item)
                done += 1
        except _Misfit as misfit:
            misfit.reversed_path.append(done)
            raise
        lst.push_list(sub)

    return push_list


def _host_value(value: Any) -> Any:
    """A torch tensor as the numpy array sharing its memory (`runtime.torch_array`);
    any other value as it is."""
    if type(value) is np.ndarray:
        return value
    try:
        array = torch_array(value)
    except TypeError as error:
        raise _Misfit(f"expected an array, got {error}") from None
    return value if array is None else array


def _host_array(value: Any, element: _Element, convert: bool, expected: str) -> Any:
    """A numpy array of ``element``'s dtype (or one it accepts) for ``value``."""
    value = _host_value(value)
    if isinstance(value, memoryview) or (
        not isinstance(value, (list, tuple)) and hasattr(value, "__array__")
    ):  # a dtype of its own (a memoryview's is its format)
        array = np.asarray(value)
        if array.dtype in element.accepted:
            return array
        got = describe_shaped(array, array.shape)
        if not _numeric(array.dtype):
            raise _Misfit(f"expected {expected}, got {got}")
        if convert:
            return array.astype(element.dtype)
        raise _Misfit(f"expected {expected}, got {got} (convert=True converts it)")
    # Nested lists or a Python number (rank and dims already checked by `pack`).
    try:
        data = np.array(value)
    except (ValueError, TypeError, OverflowError):
        raise _Misfit(f"expected {expected}, got non-numeric values") from None
    kind = data.dtype.kind
    if data.size == 0:
        return np.zeros(data.shape, element.dtype)
    if kind not in _FITS:
        # Ints beyond int64 (and floats with them): numbers numpy keeps as objects.
        if kind == "O" and element.kind == "float" and _all_numbers(data):
            return _finite_floats(data, element)
        if kind == "O" and _all_ints(data):
            return _wide_ints(data, element)
        raise _Misfit(f"expected {expected}, got non-numeric values")
    if kind == "f" and element.kind == "int" and _int_lists(value):
        # Ints numpy holds as doubles: int64 and uint64 values mixed ([0, 2**64 - 1]).
        return _wide_ints(np.array(value, dtype=object), element)
    if convert:
        return data.astype(element.dtype)
    if element.kind not in _FITS[kind]:
        raise _Misfit(
            f"expected {expected}, got {data.dtype.name} values (convert=True converts it)"
        )
    if element.kind == "float":
        return _finite_floats(data, element)
    if kind != "b":
        low, high = int(data.min()), int(data.max())
        if low < element.low or high > element.high:
            _does_not_fit(data, (data < element.low) | (data > element.high), element)
    return data.astype(element.dtype)


def _finite_floats(data: Any, element: _Element) -> Any:
    """Nested-list ``data`` (numbers) in a float record's dtype: a finite value that
    becomes infinite there does not fit (as `pack` says of a scalar)."""
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
    except OverflowError:  # an int beyond the doubles
        return math.copysign(math.inf, number)


def _is_finite(number: Any) -> bool:
    return isinstance(number, int) or math.isfinite(number)


def _does_not_fit(data: Any, bad: Any, element: _Element) -> NoReturn:
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
            shown = f"<an integer of {bits} bits>"
    misfit = _Misfit(f"value {shown} does not fit in {element.record}")
    index = [int(axis) for axis in np.unravel_index(position, data.shape)]
    misfit.reversed_path.extend(reversed(index))
    raise misfit


def _wide_ints(data: Any, element: _Element) -> Any:
    """An object array of ints (numpy has no integer dtype for all of them) for an integer
    record: each in the record's range (a signless one: either interpretation), as the
    record's dtype with the same bits."""
    if element.kind != "int":
        raise _Misfit(f"expected {element.record} values, got integers")
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


_BF16 = _dtype(ml_dtypes.bfloat16)


def _numeric(dtype: np.dtype[Any]) -> bool:
    return dtype.kind in "biuf" or dtype == _BF16


def _all_ints(data: Any) -> bool:
    return all(isinstance(item, int) for item in data.flat)


def _all_numbers(data: Any) -> bool:
    return all(isinstance(item, (int, float)) for item in data.flat)


def _checked_view(value: Any, element: _Element, expected: str) -> Any:
    """A buffer view (or IREE `DeviceArray`) argument: its element type must match."""
    view = value._buffer_view if isinstance(value, _DeviceArray) else value
    if view.element_type not in element.returned:
        raise _Misfit(
            f"expected {expected}, got a buffer view of element type "
            f"{_element_type_name(view.element_type)}"
        )
    return view


def _element_type_name(element_type: int) -> str:
    """`FLOAT_64` for a buffer view's element type (its number if IREE has no name)."""
    try:
        return str(_E(element_type).name)
    except ValueError:
        return str(element_type)


def _dynamic_hal_type(dtype: np.dtype[Any]) -> Any:
    from iree.runtime.dtypes import map_dtype_to_hal_element_type

    return map_dtype_to_hal_element_type(dtype)


def _view_dtype(view: Any) -> np.dtype[Any] | None:
    try:
        return np.dtype(_E.map_to_dtype(view.element_type))
    except (TypeError, ValueError, KeyError, RuntimeError):
        return None


def _view_at(lst: Any, index: int, expected: str = "an array") -> Any:
    try:
        view = lst.get_as_object(index, _BufferView)
    except ValueError:  # not a reference
        view = None
    if view is None:
        raise _Misfit(f"expected {expected}, the VM returned {_type_name(lst.get_variant(index))}")
    return view


def _to_host(view: Any, dtype: np.dtype[Any], device: Any) -> Any:
    """The result buffer as a host numpy array: mapped where the buffer is host visible
    (local CPU devices), copied otherwise (as IREE's `DeviceArray.to_host`)."""
    try:
        return view.map().asarray(view.shape, dtype)
    except RuntimeError:
        return _DeviceArray(
            device, view, implicit_host_transfer=True, override_dtype=dtype
        ).to_host()


def _read_variant(lst: Any, index: int) -> Any:
    return lst.get_variant(index)


def _int_reader(t: Scalar) -> Reader:
    """An integer result as its record reads it: the VM keeps narrow integers in 32-bit
    registers without extending their sign, so the bits are re-read at the width (signed
    unless the record is `ui`)."""
    wrap = 1 << t.width
    mask, sign = wrap - 1, (0 if t.kind == "ui" else 1 << (t.width - 1))

    def read_int(lst: Any, index: int) -> Any:
        value = lst.get_variant(index)
        if type(value) is not int:
            return value  # `unpack` says what is wrong
        value &= mask
        return value - wrap if sign and value & sign else value

    return read_int


def _sub_list(lst: Any, index: int, count: int | None) -> Any:
    value = lst.get_variant(index)
    if not (isinstance(value, _rt.VmRef) and value.isinstance(_VmList)):
        wanted = "a list" if count is None else f"a list of {_count(count, 'value')}"
        raise _Misfit(f"expected {wanted}, the VM returned {_type_name(value)}")
    sub = value.deref(_VmList)
    if count is not None and len(sub) != count:
        raise _Misfit(f"expected a list of {_count(count, 'value')}, the VM returned {len(sub)}")
    return sub


def _structure_reader(readers: list[Reader], keys: list[str] | None) -> Reader:
    """A VM list → the packed structure (a list in record order, for `unpack`)."""
    count = len(readers)

    def read_structure(lst: Any, index: int) -> list[Any]:
        sub = _sub_list(lst, index, count)
        out: list[Any] = []
        try:
            for position, read in enumerate(readers):
                out.append(read(sub, position))
        except _Misfit as misfit:
            misfit.reversed_path.append(len(out) if keys is None else keys[len(out)])
            raise
        return out

    return read_structure


def _list_reader(read_element: Reader) -> Reader:
    def read_list(lst: Any, index: int) -> list[Any]:
        sub = _sub_list(lst, index, None)
        out: list[Any] = []
        try:
            for position in range(len(sub)):
                out.append(read_element(sub, position))
        except _Misfit as misfit:
            misfit.reversed_path.append(len(out))
            raise
        return out

    return read_list
