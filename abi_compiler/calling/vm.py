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
import os
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping
from collections.abc import Sequence as SequenceABC
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

from abi_compiler.attribute_names import ABI_CALL, IREE_ABI, RAW, SIP
from abi_compiler.call_model import Array
from abi_compiler.calling.marshal import (
    MAX_RANK,
    Mismatch,
    _show_int,
    describe,
    describe_shaped,
    leaf_packer,
    pack_call,
    pack_legacy,
    torch_array,
    unpack,
    unpack_legacy,
)
from abi_compiler.calling.original_call import CallPlan, TypeSource
from abi_compiler.codecs.call_json import decode_call
from abi_compiler.codecs.json_abi import decode_json, format_declaration
from abi_compiler.codecs.raw import decode_raw, format_raw
from abi_compiler.codecs.sip import decode_sip
from abi_compiler.dtypes import ELEMENT_TYPES, int_range, numpy_dtype_name, scalar_name
from abi_compiler.errors import AbiError
from abi_compiler.frontends import frontend_name
from abi_compiler.frontends import program as frontend_program
from abi_compiler.frontends.dims import Constraint, DimExpr, DimRelations, LeafDims
from abi_compiler.frontends.iree_tools import CompileError, CompileWarning, run_tool
from abi_compiler.frontends.iree_tools import report as _report
from abi_compiler.model import (
    Dict,
    FlatSignature,
    IndexPathComponent,
    Leaf,
    ListRef,
    NDArray,
    Node,
    Scalar,
    Sequence,
    Signature,
    SipSignature,
    ValueType,
    leaf_paths,
)
from abi_compiler.signatures.module_signatures import caller_visible

__all__ = [
    "COMPILE_FLAGS",
    "PARAMETER_SCOPE",
    "CompileError",
    "CompileWarning",
    "Function",
    "Module",
    "caller_visible",
    "compile",
    "compile_vmfb",
    "load",
    "lower",
    "parameter_index",
    "save_parameters",
]

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


# --------------------------------------------------------------------------------------
# Functions.
# --------------------------------------------------------------------------------------

Convention = Literal["v1", "legacy", "flat"]


class Function:
    """An exported function of a loaded module, called with Python values.

    ``convention`` says how it marshals: ``"v1"`` (by its ``iree.abi`` reflection),
    ``"legacy"`` (by ``f`` + ``sip``) or ``"flat"`` (no reflection: positional values
    converted dynamically). ``signature`` is the decoded reflection (a `Signature`, a
    ``(FlatSignature, SipSignature)`` pair, or None)."""

    def __init__(self, module: Module, vm_function: Any) -> None:
        self.module = module
        self.vm_function = vm_function
        self.name: str = vm_function.name
        self.reflection: dict[str, str] = dict(vm_function.reflection)
        self._context = module.context
        marshal = module._marshal
        self._convert = marshal.convert
        abi = self.reflection.get(IREE_ABI)
        f, sip = self.reflection.get(RAW), self.reflection.get(SIP)
        self.signature: Signature | tuple[FlatSignature, SipSignature] | None = None
        try:
            if abi is not None:
                self.convention: Convention = "v1"
                self._setup_v1(abi, decode_json(abi), marshal)
            elif f is not None and sip is not None:
                self.convention = "legacy"
                self._setup_legacy(f, sip, decode_raw(f), decode_sip(sip), marshal)
            else:
                self.convention = "flat"
                self._push_any = marshal.push_dynamic
                self._read_any = marshal.read_dynamic
        except AbiError as error:
            raise AbiError(f"function @{self.name}: malformed reflection: {error}") from None

    def _setup_v1(self, abi: str, signature: Signature, marshal: _Marshal) -> None:
        self.signature = signature
        self._abi = abi
        self._labels: list[IndexPathComponent] = [
            argument.name if argument.name is not None else position
            for position, argument in enumerate(signature.arguments)
        ]
        self._pushers = [marshal.pusher(argument.node) for argument in signature.arguments]
        self._iree_packer = marshal.iree_packer(signature)
        self._invoke_context = marshal.invoke_context
        if signature.inlined_result:
            root = signature.results[0]
            assert isinstance(root, (Sequence, Dict))
            items = root.items if isinstance(root, Sequence) else tuple(c for _, c in root.items)
            keys = (
                list(range(len(items)))
                if isinstance(root, Sequence)
                else [key for key, _ in root.items]
            )
            self._readers = [marshal.reader(item) for item in items]
            self._result_paths: list[tuple[IndexPathComponent, list[IndexPathComponent]]] = [
                (0, [key]) for key in keys
            ]
        else:
            self._readers = [marshal.reader(node) for node in signature.results]
            self._result_paths = [(i, []) for i in range(len(signature.results))]
        self._call = self._call_v1
        call = self.reflection.get(ABI_CALL)
        if call is not None:
            checked = self._iree_packer is not None  # else the pushers check the arrays
            self._plan = _plan(decode_call(call), signature, marshal, self.module, checked)
            roots: tuple[Node | None, ...] = signature.results
            if signature.inlined_result:
                root = signature.results[0]
                assert isinstance(root, (Sequence, Dict))
                roots = (
                    root.items if isinstance(root, Sequence) else tuple(c for _, c in root.items)
                )
            self._flat_readers = [marshal.flat_reader(node) for node in roots]
            self._result_count = sum(len(_leaves(node)) for node in signature.results)
            self._call = self._call_original

    def _setup_legacy(
        self, f: str, sip: str, flat: FlatSignature, structure: SipSignature, marshal: _Marshal
    ) -> None:
        self.signature = (flat, structure)
        self._f, self._sip = f, sip
        self._pushers = [marshal.value_pusher(t) for t in flat.inputs]
        self._readers = [marshal.value_reader(t) for t in flat.results]
        self._input_paths = _leaf_locations(structure.inputs, len(flat.inputs))
        self._result_paths = _leaf_locations(structure.results, len(flat.results))
        self._call = self._call_legacy

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        if self.convention == "flat":
            return self._call_flat(args, kwargs)
        return self._call(args, kwargs)

    def __repr__(self) -> str:
        return f"<abi_compiler.iree.Function @{self.name}{self.declaration}>"

    @property
    def declaration(self) -> str:
        """The signature in readable form: ``(tensor<?x4xf32>, x: i32) -> (…)`` for V1,
        the raw form for the legacy ABI, ``(…)`` without reflection."""
        if isinstance(self.signature, Signature):
            return format_declaration(self.signature)
        if isinstance(self.signature, tuple):
            return format_raw(self.signature[0])
        return "(...)"

    # -- the three conventions ---------------------------------------------------------

    def _call_v1(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        packed = pack_call(self._abi, args, kwargs, convert=self._convert)
        return unpack(
            self._abi,
            self._read(self._invoke(self._vm_arguments(packed, True), len(self._readers))),
        )

    def _call_original(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The original call (`abi.call`): the plan checks every leaf as it packs it."""
        plan = self._plan
        packed = plan.arguments(args, kwargs)
        results = self._invoke(self._vm_arguments(packed, False), len(self._readers))
        flat: list[Any] = [None] * self._result_count
        done = 0
        try:
            for read in self._flat_readers:
                read(results, done, flat)
                done += 1
        except _Misfit as misfit:
            root, path = self._result_paths[done]
            misfit.reversed_path.extend(reversed(path))
            raise misfit.error("result", root) from None
        return plan.rebuild(flat)

    def _vm_arguments(self, packed: list[Any], check: bool) -> Any:
        """The VM argument list of packed roots; ``check``: arrays not yet checked."""
        labels = self._labels
        done = 0
        if self._iree_packer is not None:
            packer, checkers = self._iree_packer
            if check:
                try:
                    for check_root in checkers:
                        if check_root is not None:
                            packed[done] = check_root(packed[done])
                        done += 1
                except _Misfit as misfit:
                    raise misfit.error("argument", labels[done]) from None
            return packer.pack(self._invoke_context, packed, {})
        arguments = _VmList(len(packed))
        try:
            for push, value in zip(self._pushers, packed, strict=True):
                push(arguments, value)
                done += 1
        except _Misfit as misfit:
            raise misfit.error("argument", labels[done]) from None
        return arguments

    def _call_legacy(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        flat = pack_legacy(self._f, self._sip, *args, convert=self._convert, **kwargs)
        arguments = _VmList(len(flat))
        done = 0
        try:
            for push, value in zip(self._pushers, flat, strict=True):
                push(arguments, value)
                done += 1
        except _Misfit as misfit:
            root, path = self._input_paths[done]
            misfit.reversed_path.extend(reversed(path))
            raise misfit.error("argument", root) from None
        results = self._invoke(arguments, len(self._readers))
        return unpack_legacy(self._f, self._sip, self._read(results))

    def _call_flat(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if kwargs:
            name = next(iter(kwargs))
            raise AbiError(
                f"argument {name!r}: unexpected keyword argument (@{self.name} has no "
                "reflection: arguments are positional)"
            )
        arguments = _VmList(len(args))
        for position, value in enumerate(args):
            try:
                self._push_any(arguments, value)
            except _Misfit as misfit:
                raise misfit.error("argument", position) from None
        results = self._invoke(arguments, None)
        values = []
        for index in range(len(results)):
            try:
                values.append(self._read_any(results, index))
            except _Misfit as misfit:  # pragma: no cover - dynamic reads do not misfit
                raise misfit.error("result", index) from None
        if not values:
            return None
        return values[0] if len(values) == 1 else tuple(values)

    def _invoke(self, arguments: Any, expected: int | None) -> Any:
        results = _VmList(expected or 1)
        self._context.invoke(self.vm_function, arguments, results)
        if expected is not None and len(results) != expected:
            raise AbiError(
                f"@{self.name}: the VM returned {_count(len(results), 'result')}, its "
                f"reflection describes {expected}"
            )
        return results

    def _read(self, results: Any) -> list[Any]:
        values: list[Any] = []
        try:
            for index, read in enumerate(self._readers):
                values.append(read(results, index))
        except _Misfit as misfit:
            root, path = self._result_paths[len(values)]
            misfit.reversed_path.extend(reversed(path))
            raise misfit.error("result", root) from None
        return values


def _plan(
    call: Any, signature: Signature, marshal: _Marshal, module: Module, checked: bool
) -> CallPlan:
    """The `CallPlan` of a function's original call: each argument leaf checked by its
    record as `pack` would, and (``checked``: for IREE's packer) its array checked as
    `_Marshal.checker` does — a numpy array of the record's dtype and dims passes at
    once; each result leaf as the framework gives it."""
    by_index = {
        leaf.index: leaf for argument in signature.arguments for leaf in _leaves(argument.node)
    }
    results = {leaf.index: leaf for node in signature.results for leaf in _leaves(node)}

    def leaf(array: Array) -> Callable[[Any], Any]:
        found = by_index.get(array.index)
        if found is None:
            raise AbiError(f"abi.call: the records have no argument leaf {array.index}")
        convert = leaf_packer(found.type, marshal.convert)
        if array.dtype is not None and not _typed_record(found.type):
            convert = _dtype_check(array.dtype)  # "unknown" (complex): the dtype is the call's
        check = marshal.checker(found) if checked else None
        slow = convert if check is None else (lambda value: check(convert(value)))
        wanted = _signed_dtype(array.dtype, found.type)
        if wanted is not None:
            slow = _signed_leaf(wanted, slow, marshal.convert)
        return _fast_array(found.type, slow, wanted)

    def result(array: Array) -> Callable[[Any], Any] | None:
        found = results.get(array.index)
        return _result_leaf(array, found.type if found else None, call.tensor, module.results)

    def relations(leaves: list[tuple[str, tuple[Any, ...]]]) -> Callable[[Any], None]:
        return DimRelations(
            tuple((s.name, s.low if s.low is not None else 0, s.high) for s in call.symbols),
            tuple(LeafDims(path, tuple(_dim(dim) for dim in dims)) for path, dims in leaves),
            tuple(Constraint(DimExpr(c.terms), c.relation, c.text) for c in call.constraints),
        ).check

    return CallPlan(call, signature, leaf, result, module.types, relations)


def _dim(dim: Any) -> Any:
    """A dim of `abi.call` as `DimRelations` relates it: terms become a `DimExpr`."""
    return DimExpr(dim) if isinstance(dim, tuple) else dim


def _fast_array(
    t: ValueType | None, slow: Callable[[Any], Any], wanted: np.dtype[Any] | None = None
) -> Callable[[Any], Any]:
    """``slow`` behind the common case: a numpy array of the record's dtype (or one it
    takes as it is; ``wanted``: that one only) and dims, which every check would pass
    unchanged."""
    element = _element_for(t.element) if isinstance(t, NDArray) else None
    if element is None or not isinstance(t, NDArray) or t.dims is None:
        return slow
    dtype, accepted, rank = element.dtype, element.accepted, len(t.dims)
    if wanted is not None:
        dtype, accepted = wanted, frozenset({wanted})
    static = tuple((axis, size) for axis, size in enumerate(t.dims) if size is not None)

    def fast(value: Any) -> Any:
        if type(value) is np.ndarray and (value.dtype is dtype or value.dtype in accepted):
            shape = value.shape
            if len(shape) == rank and all(shape[axis] == size for axis, size in static):
                return value
        return slow(value)

    return fast


def _signed_dtype(dtype: str | None, t: ValueType | None) -> np.dtype[Any] | None:
    """The framework's integer dtype of a leaf whose record is a signless integer of its
    width (which takes either interpretation of the bits): values are checked against
    that dtype instead. None otherwise."""
    scalar = t.element if isinstance(t, NDArray) else t
    if dtype is None or not isinstance(scalar, Scalar) or scalar.kind != "i" or scalar.width < 8:
        return None
    wanted = np.dtype(dtype)
    if wanted.kind not in "iu" or wanted.itemsize * 8 != scalar.width:
        return None
    return wanted


def _signed_leaf(
    wanted: np.dtype[Any], slow: Callable[[Any], Any], convert: bool
) -> Callable[[Any], Any]:
    """An integer leaf of the framework's dtype ``wanted`` behind a signless record: an
    array of the other signedness (same width) is refused (``convert=True`` casts it;
    other dtypes are the record's business), Python ints
    must be in ``wanted``'s range — the framework refuses them otherwise."""
    info = np.iinfo(wanted)
    low, high = int(info.min), int(info.max)

    def check(value: Any) -> Any:
        value = _host_value(value)
        dtype = getattr(value, "dtype", None)
        if dtype is not None and not isinstance(value, (list, tuple)):
            found = np.dtype(dtype)
            if found.kind in "iu" and found != wanted and found.itemsize == wanted.itemsize:
                if not convert:
                    got = describe_shaped(value, tuple(np.shape(value)))
                    raise _Misfit(
                        f"expected an array of {wanted.name}, got {got} (convert=True converts it)"
                    )
                value = np.asarray(value).astype(wanted)
        else:
            _int_range(value, low, high, wanted.name)
        return slow(value)

    return check


def _int_range(value: Any, low: int, high: int, name: str) -> None:
    """Python ints (nested lists of them) outside ``[low, high]``: the first one found.
    A list repeated by reference is looked into once, and none deeper than `MAX_RANK`
    (a list that holds itself): the records refuse those."""
    seen: set[int] = set()

    def walk(item: Any, depth: int) -> None:
        if isinstance(item, (list, tuple)):
            if depth >= MAX_RANK or id(item) in seen:
                return
            seen.add(id(item))
            for position, child in enumerate(item):
                try:
                    walk(child, depth + 1)
                except _Misfit as misfit:
                    misfit.reversed_path.append(position)
                    raise
        elif (
            isinstance(item, (int, np.integer))
            and not isinstance(item, (bool, np.bool_))
            and not low <= int(item) <= high
        ):
            raise _Misfit(f"value {_show_int(int(item))} does not fit in {name}")

    walk(value, 0)


def _typed_record(t: ValueType | None) -> bool:
    return isinstance(t, Scalar) or (isinstance(t, NDArray) and isinstance(t.element, Scalar))


def _dtype_check(dtype: str) -> Callable[[Any], Any]:
    """An array of a dtype its record cannot name (complex): the dtype is checked."""

    def check(value: Any) -> Any:
        value = _host_value(value)
        found = getattr(value, "dtype", None)
        if found is not None and np.dtype(found).name == dtype:
            return value
        got = np.dtype(found).name if found is not None else _type_name(value)
        raise _Misfit(f"expected an array of {dtype}, got {got}")

    return check


def _leaves(node: Node | None) -> list[Leaf]:
    if node is None:
        return []
    if isinstance(node, Leaf):
        return [node]
    items = node.items if isinstance(node, Sequence) else tuple(c for _, c in node.items)
    return [found for item in items for found in _leaves(item)]


def _result_leaf(
    array: Array, t: ValueType | None, tensor: str, results: ResultsMode | None
) -> Callable[[Any], Any] | None:
    """How a result array becomes the framework's value (None: as it is): a torch tensor
    for torch (when torch can be imported and ``results`` is not given), else the numpy
    array in the framework's dtype (an unsigned integer keeps its dtype although its
    record has no sign)."""
    if results == "device":
        return None
    element = _element_for(t.element) if isinstance(t, NDArray) else None
    view: np.dtype[Any] | None = None
    if element is not None and array.dtype is not None and array.dtype != element.dtype.name:
        wanted = np.dtype(array.dtype)
        same_bits = wanted.itemsize == element.dtype.itemsize
        if wanted.kind in "iub" and element.dtype.kind in "iub" and same_bits:
            view = wanted
    if tensor == "torch" and results is None:
        torch = _torch()
        if torch is not None:
            return _torch_result(torch, view, array.dtype == "bfloat16")
    if view is None:
        return None
    return lambda value: value.view(view) if type(value) is np.ndarray else value


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        return None
    return torch


def _torch_result(torch: Any, view: Any, bfloat16: bool) -> Callable[[Any], Any]:
    from_numpy = torch.from_numpy

    def to_tensor(value: Any) -> Any:
        if type(value) is not np.ndarray:
            return value
        if view is not None:
            value = value.view(view)
        if bfloat16:
            return from_numpy(value.view(np.int16)).view(torch.bfloat16)
        return from_numpy(value)

    return to_tensor


def _leaf_locations(
    root: Node | None, count: int
) -> list[tuple[IndexPathComponent, list[IndexPathComponent]]]:
    """For each flat index, the root key and the rest of the SIP path of its leaf."""
    found: list[tuple[IndexPathComponent, list[IndexPathComponent]]] = [
        (index, []) for index in range(count)
    ]
    if root is None:
        return found
    for path, leaf in leaf_paths(root):
        if 0 <= leaf.index < count:
            found[leaf.index] = (path[0], list(path[1:])) if path else (0, [])
    return found


# --------------------------------------------------------------------------------------
# Modules.
# --------------------------------------------------------------------------------------


class Module:
    """A compiled module loaded on a device: ``module.<name>`` and ``module["<name>"]``
    are its exported functions (`Function`)."""

    def __init__(
        self,
        vm_module: Any,
        *,
        device: Any,
        convert: bool,
        results: ResultsMode | None,
        types: TypeSource = None,
        vmfb: bytes | None = None,
        parameters: Any = None,
    ) -> None:
        if results not in (None, "numpy", "device"):
            raise ValueError(f"results must be 'numpy' or 'device', not {results!r}")
        self.vm_module = vm_module
        self.device = device
        self.instance = _instance()
        hal_module = _rt.create_hal_module(self.instance, device)
        # The index of the module's named parameters (`load`), and the host arrays it was
        # built from, when it was.
        self.parameters = parameters
        self.parameter_buffers: Mapping[str, Any] | None = None
        modules = [hal_module, vm_module]
        if parameters is not None:
            provider = parameters.create_provider(scope=PARAMETER_SCOPE)
            modules.insert(1, _rt.create_io_parameters_module(self.instance, provider))
        self.context = _rt.VmContext(self.instance, modules)
        #: None: results as the framework gives them (`abi.call`), numpy arrays otherwise.
        self.results = results
        #: The caller's own classes for rebuilt results (`load(…, types=…)`).
        self.types = types
        self._vmfb = vmfb
        self._marshal = _Marshal(device, convert, results or "numpy")
        self._functions: dict[str, Function] = {}

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the `.vmfb` this module was loaded from to ``path``."""
        if self._vmfb is None:
            raise ValueError("this module was not loaded from .vmfb bytes")
        with open(path, "wb") as stream:
            stream.write(self._vmfb)

    @property
    def vmfb(self) -> bytes:
        """The `.vmfb` bytes this module was loaded from."""
        if self._vmfb is None:
            raise ValueError("this module was not loaded from .vmfb bytes")
        return self._vmfb

    @property
    def name(self) -> str:
        return str(self.vm_module.name)

    @property
    def function_names(self) -> list[str]:
        """The functions a caller calls: the exports without those IREE's compiler adds
        for itself (`caller_visible`), which are not reachable by name either
        (``module["main$async"]`` is a `KeyError`; `vm_module` still has them)."""
        return [name for name in self.vm_module.function_names if caller_visible(name)]

    def __getitem__(self, name: str) -> Function:
        function = self._functions.get(name)
        if function is None:
            vm_function = self.vm_module.lookup_function(name) if caller_visible(name) else None
            if vm_function is None:
                raise KeyError(f"module '{self.name}' exports no function '{name}'")
            function = self._functions[name] = Function(self, vm_function)
        return function

    def __getattr__(self, name: str) -> Function:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError as error:
            raise AttributeError(str(error.args[0])) from None

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.function_names

    def __iter__(self) -> Iterator[str]:
        return iter(self.function_names)

    def __repr__(self) -> str:
        return f"<abi_compiler.iree.Module '{self.name}' on {self.device}>"


_instance_lock = threading.Lock()
_shared_instance: Any = None


def _instance() -> Any:
    """One VM instance for every module this process loads."""
    global _shared_instance
    with _instance_lock:
        if _shared_instance is None:
            _shared_instance = _rt.VmInstance()
        return _shared_instance


# The scope of the parameters a frontend leaves out of the text
# (`#flow.parameter.named<"model"::"<name>">`).
PARAMETER_SCOPE = "model"


def parameter_index(parameters: Any) -> Any:
    """An IREE `ParameterIndex` of ``parameters``: an IREE parameter archive (an `.irpa`
    path, mapped), or a mapping of name → array (its bytes, not copied)."""
    index = _rt.ParameterIndex()
    if isinstance(parameters, (str, os.PathLike)):
        index.load(os.fspath(parameters))
        return index
    if not isinstance(parameters, Mapping):
        raise TypeError(
            f"expected an .irpa path or a mapping of names to arrays, got {_type_name(parameters)}"
        )
    for name, array in parameters.items():
        index.add_buffer(name, array)
    return index


def save_parameters(parameters: Mapping[str, Any], path: str | os.PathLike[str]) -> None:
    """Write ``parameters`` (name → array, as `Program.parameters`) as an IREE parameter
    archive, which `load(…, parameters=path)` maps."""
    parameter_index(parameters).create_archive_file(os.fspath(path))


def load(
    module: str | os.PathLike[str] | bytes | bytearray | memoryview,
    *,
    device: Any = "local-task",
    convert: bool = False,
    results: ResultsMode | None = None,
    types: TypeSource = None,
    parameters: str | os.PathLike[str] | Mapping[str, Any] | None = None,
) -> Module:
    """Load a compiled module (a `.vmfb` path, or its bytes) on ``device``: a HAL driver
    name or device URI (``"local-task"``, the multi-threaded local CPU, by default;
    ``"local-sync"`` runs on the calling thread) or an `iree.runtime.HalDevice`.

    ``convert=True`` lets array arguments of another numeric dtype be converted to the
    record's (otherwise an `AbiError`). Results are numpy arrays (a torch model's are
    `torch.Tensor`s when torch can be imported); ``results="numpy"`` gives numpy arrays
    always, ``results="device"`` IREE `DeviceArray`s. A function with an original call
    (`abi.call`) rebuilds namedtuples and dataclasses as types of the recorded name and
    fields, or as the caller's own ``types`` (classes, matched by ``__name__``, or a
    mapping by recorded name). Nothing the file names is imported. ``parameters`` are the
    parameters a module reads by name (`#flow.parameter.named<"model"::"<name>">`): an IREE
    parameter archive (`.irpa` path) or a mapping of name → array (`Program.parameters`)."""
    if isinstance(module, (str, os.PathLike)):
        with open(module, "rb") as stream:
            data: Any = stream.read()
    elif isinstance(module, (bytes, bytearray, memoryview)):
        data = bytes(module)
    else:
        raise TypeError(f"expected a .vmfb path or bytes, got {_type_name(module)}")
    hal_device = _rt.get_device(device) if isinstance(device, str) else device
    vm_module = _rt.VmModule.copy_buffer(_instance(), data)
    index = None if parameters is None else parameter_index(parameters)
    loaded = Module(
        vm_module,
        device=hal_device,
        convert=convert,
        results=results,
        types=types,
        vmfb=data,
        parameters=index,
    )
    # The module reads its parameters from these host arrays (not copied) while it lives.
    loaded.parameter_buffers = parameters if isinstance(parameters, Mapping) else None
    return loaded


# --------------------------------------------------------------------------------------
# Compiling: abi-opt in-process, then iree-compile.
# --------------------------------------------------------------------------------------

COMPILE_FLAGS: tuple[str, ...] = (
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    # IREE demotes f64 to f32 by default; values must come back as they were.
    "--iree-input-demote-f64-to-f32=false",
)
"""The flags `compile` gives iree-compile, besides ``--iree-llvmcpu-target-cpu``."""


def lower(
    source: str | bytes | os.PathLike[str],
    pipeline: str = "iree-abi-v1",
    *,
    name: str = "<source>",
) -> str:
    """Run the pipeline ``pipeline`` (`abi-opt -p` text) on MLIR text (or a file) with the
    pipeline library (`abi_compiler.pipeline.run_pipeline`) and return the output. Errors
    raise `CompileError` with the located diagnostics; a text source is named ``name``
    in them, a file by its path. Warnings become one `CompileWarning`."""
    from abi_compiler.pipeline import PipelineError, PipelineWarning, run_pipeline

    if isinstance(source, os.PathLike):
        name = os.fspath(source)
        with open(source, "rb") as stream:
            source = stream.read()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", PipelineWarning)
            text = run_pipeline(source, pipeline, name=name)
    except PipelineError as error:
        lines = [line for item in error.diagnostics for line in item.lines("abi-opt")]
        raise CompileError("abi-opt", "".join(line + "\n" for line in lines)) from None
    found = [str(item.message) for item in caught if issubclass(item.category, PipelineWarning)]
    for item in caught:
        if not issubclass(item.category, PipelineWarning):
            warnings.warn_explicit(item.message, item.category, item.filename, item.lineno)
    _report("abi-opt", False, "".join(line + "\n" for line in found))
    return text


def compile_vmfb(
    source: str | bytes | os.PathLike[str] | Mapping[str, object] | object,
    pipeline: str | None = "iree-abi-v1",
    *,
    target: str = "host",
    extra_args: SequenceABC[str] = (),
    name: str = "<source>",
    **options: Any,
) -> bytes:
    """`lower` (skipped when ``pipeline`` is None), then iree-compile for the local CPU
    ``target`` (an LLVM CPU name; ``"host"`` is this machine's, which also keeps IREE
    from warning about a generic CPU). Returns the `.vmfb` bytes.

    ``source`` may be a framework's object (``options`` go to its frontend's `program`):
    the function keeps the original call in its reflection (`abi.call`), which `load`
    reads; a torch program's weights stay in the module (`external_bytes=None`, unless
    given), so that the `.vmfb` is whole. Or a mapping ``{name: source}``: one module,
    one function per entry named by its key (`abi_compiler.frontends.entries`), ``options``
    going to the frontend of each framework object."""
    if isinstance(source, Mapping):
        source = _linked(source, pipeline, options)
        pipeline = None
    elif frontend_name(source) is not None:
        if frontend_name(source) == "torch":
            options.setdefault("external_bytes", None)
        source = frontend_program(source, **options).mlir
    elif options:
        raise TypeError(f"frontend options ({', '.join(options)}) need a framework object")
    if not isinstance(source, (str, bytes, os.PathLike)):
        raise TypeError(
            "expected MLIR text, bytes, a path, a mapping of them or a framework object "
            f"(abi_compiler.frontends), got {_type_name(source)}"
        )
    if pipeline is None:
        if isinstance(source, os.PathLike):
            with open(source, "rb") as stream:
                text = stream.read()
        else:
            text = source.encode("utf-8") if isinstance(source, str) else source
    else:
        text = lower(source, pipeline, name=name).encode("utf-8")
    try:
        from iree.compiler.tools.binaries import find_tool
    except ImportError as error:
        raise ImportError(
            "abi_compiler.iree.compile needs IREE's compiler (iree-base-compiler 3.13): "
            "pip install 'abi-compiler[iree]'"
        ) from error
    command = [
        find_tool("iree-compile"),
        *COMPILE_FLAGS,
        f"--iree-llvmcpu-target-cpu={target}",
        *extra_args,
        "-",
        "-o",
        "-",
    ]
    return run_tool(command, text, "iree-compile")


def compile(
    source: str | bytes | os.PathLike[str] | Mapping[str, object] | object,
    pipeline: str | None = "iree-abi-v1",
    *,
    target: str = "host",
    extra_args: SequenceABC[str] = (),
    name: str = "<source>",
    device: Any = "local-task",
    convert: bool = False,
    results: ResultsMode | None = None,
    types: TypeSource = None,
    **options: Any,
) -> Module:
    """MLIR text (or a file) → a loaded `Module`: `compile_vmfb`, then `load`.

    ``source`` may also be a framework's object (`abi_compiler.frontends`: a
    `jax.export.Exported`, a `torch.export.ExportedProgram`, an ONNX model, a SavedModel
    directory): its function then takes the original call and returns the original
    result, exactly as the `.vmfb` of `compile_vmfb` loaded by `load`, which is what this
    is (a torch program's big weights go beside the module, as named parameters: see
    docs/calling.md, "Big weights"); ``options`` go to its frontend's `program` (a
    SavedModel's ``signature`` or ``signatures``, a JAX export's ``platform``). A mapping
    ``{name: source}`` of any of these gives one module with one function per entry, named
    by its key (a link error is an `AbiError`)."""
    parameters: dict[str, Any] = {}
    if not isinstance(source, Mapping) and frontend_name(source) is not None:
        program = frontend_program(source, **options)
        source, options, parameters = program.mlir, {}, program.parameters
    vmfb = compile_vmfb(
        source, pipeline, target=target, extra_args=extra_args, name=name, **options
    )
    return load(
        vmfb,
        device=device,
        convert=convert,
        results=results,
        types=types,
        parameters=parameters or None,
    )


def _linked(sources: Mapping[str, object], pipeline: str | None, options: dict[str, Any]) -> str:
    """A mapping of sources → one lowered module (`abi_compiler.frontends.entries`)."""
    from abi_compiler.frontends.entries import lower_entries

    def lower_one(entry: Any, entry_pipeline: str, entry_name: str) -> str:
        return lower(entry, entry_pipeline, name=entry_name)

    return lower_entries(sources, pipeline, lower_one, **options)
