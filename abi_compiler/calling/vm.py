"""Python values ↔ IREE VM values, by the records of a function (docs/calling.md,
"Values"). A `Marshal` (one per loaded module: its device, `convert`, `results`) builds
for each record the converter that pushes its packed value (`abi_compiler.runtime.pack`'s
output) onto a VM list, the one that reads it back from the VM's result list, and, for
functions IREE's own argument packer can take, the one that checks its arrays first.
Each converter is a named function below, bound to its record's data with
`functools.partial`; which one a record gets is chosen by its kind (`record_kind`:
gap, structure, scalar, ndarray, list, unknown) in one table per direction (`PUSHERS`,
`READERS`, `FLAT_READERS`, `CHECKERS`), as IREE's `FunctionInvoker` keeps its converters
by record type. The dtype rules (which arrays a record takes, integer ranges, float
overflow, the HAL element types of results) are `abi_compiler.dtypes`'s. Every problem
is the caller's side's one value-path error, `abi_compiler.calling.mismatch.Mismatch`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any, Literal

from abi_compiler.calling.iree_runtime import binding, np, rt
from abi_compiler.calling.mismatch import (
    Mismatch,
    describe,
    type_name,
)
from abi_compiler.calling.vm_arrays import (
    IN_PLACE_MIN_BYTES,
    BufferView,
    DeviceArray,
    Element,
    VmList,
    capsule_of,
    checked_view,
    dynamic_hal_type,
    element_for,
    element_type_name,
    exports_to_host,
    host_array,
    host_reader,
    host_value,
    in_place_view,
    mapped_array,
    reads_in_place,
    record_name,
    sub_list,
    to_host,
    view_at,
    view_dtype,
)
from abi_compiler.dtypes import (
    scalar_name,
)
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
# Record kinds: which converter a record gets.
# --------------------------------------------------------------------------------------

RecordKind = Literal["gap", "structure", "scalar", "ndarray", "list", "unknown"]


def value_kind(t: ValueType | None) -> RecordKind:
    """The kind of a leaf's type: `"unknown"` also for untyped SIP leaves (None) and the
    raw signature's opaque references."""
    if isinstance(t, Scalar):
        return "scalar"
    if isinstance(t, NDArray):
        return "ndarray"
    if isinstance(t, ListRef):
        return "list"
    return "unknown"


def record_kind(node: Node | None) -> RecordKind:
    """The kind of a record: a gap (None), a structure, or its leaf's `value_kind`."""
    if node is None:
        return "gap"
    if isinstance(node, Leaf):
        return value_kind(node.type)
    return "structure"


def _record_of(node: Node | None) -> Any:
    """What a converter builder is given: a leaf's type, else the node (or None)."""
    return node.type if isinstance(node, Leaf) else node


def _items(node: Sequence | Dict) -> tuple[list[Node | None], list[IndexPathComponent]]:
    """A structure's items in record order and the key of each (its position in a
    sequence, its name in a dict)."""
    if isinstance(node, Sequence):
        return list(node.items), list(range(len(node.items)))
    return [child for _, child in node.items], [key for key, _ in node.items]


Pusher = Callable[[Any, Any], None]  # (VmVariantList, value) -> None
Reader = Callable[[Any, int], Any]  # (VmVariantList, index) -> value
FlatReader = Callable[[Any, int, list[Any]], None]  # (VmVariantList, index, leaves)
Checker = Callable[[Any], Any]  # packed value -> packed value, arrays checked
#: Per result leaf given as a torch tensor: (DLPack capsule -> tensor, None where its dtype
#: is another; host array -> tensor, for a buffer read the long way).
TensorReaders = dict[int, tuple[Callable[[Any], Any], Callable[[Any], Any]]]

_ARG_MEMORY = int(rt.MemoryType.DEVICE_LOCAL)
_ARG_USAGE = int(rt.BufferUsage.DEFAULT | rt.BufferUsage.MAPPING)  # as IREE's invoker


class _ResultArray(rt.DeviceArray):
    """A device-resident result (``results="device"``): IREE's `DeviceArray`, whose
    shape is read from its buffer view instead of by a transfer to the host."""

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._buffer_view.shape)

    # DLPack (docs/calling.md, "Arrays"): the numpy array of `to_host` — the buffer's own
    # memory, mapped, on a local CPU device (torch and JAX then share it), a copy on a GPU.
    def __dlpack__(self, **options: Any) -> Any:
        return to_host(self._buffer_view, self.dtype, self._device).__dlpack__(**options)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)  # kDLCPU: the array is given from host memory

    # IREE's maps the buffer into an array that is valid only while this object lives
    # (the array does not hold the buffer); this one's array holds it (`mapped_array`).
    def _map_to_host(self) -> tuple[Any, Any]:
        array = mapped_array(self._buffer_view, self._get_raw_dtype())
        if self._override_dtype is not None and self._override_dtype != array.dtype:
            array = array.astype(self._override_dtype)
        return array.base.mapping, array


class Marshal:
    """The converters of one loaded module's functions: ``pusher``/``value_pusher``
    (arguments), ``reader``/``value_reader``/``flat_reader`` (results), ``checker`` and
    ``iree_packer`` (arguments through IREE's packer), each built by the table of its
    direction; and the device side they share (also bound into the converters)."""

    __slots__ = (
        "allocate",
        "allocator",
        "convert",
        "device",
        "exports",
        "host",
        "in_place",
        "invoke_context",
        "push_dynamic",
        "read_dynamic",
        "results",
    )

    def __init__(self, device: Any, convert: bool, results: ResultsMode) -> None:
        self.device = device
        self.allocator = device.allocator
        self.allocate = device.allocator.allocate_buffer_copy
        self.convert = convert
        self.results = results
        self.host = results == "numpy"  # results read into host numpy arrays
        self.invoke_context = binding.InvokeContext(device)
        #: The device reads aligned host arrays in place (`vm_arrays.in_place_view`).
        self.in_place = reads_in_place(device)
        #: Result buffers are read through DLPack as host memory (`vm_arrays.host_reader`).
        self.exports = self.host and self.in_place and exports_to_host(device)
        #: `"unknown"` values (and every value of a function without reflection).
        self.push_dynamic: Pusher = partial(push_dynamic, self)
        self.read_dynamic: Reader = partial(read_dynamic, self)

    def pusher(self, node: Node | None, raw: bool = False) -> Pusher:
        """Pushes the packed value of ``node`` onto a VM list."""
        return PUSHERS[record_kind(node)](self, _record_of(node), raw)

    def value_pusher(self, t: ValueType | None, raw: bool = False) -> Pusher:
        """Pushes a leaf value of ``t`` (``raw``: typed by the raw signature, legacy)."""
        return PUSHERS[value_kind(t)](self, t, raw)

    def reader(self, node: Node | None) -> Reader:
        """Reads the value of ``node`` from a VM list (structures as lists, for `unpack`)."""
        return READERS[record_kind(node)](self, _record_of(node))

    def value_reader(self, t: ValueType | None) -> Reader:
        return READERS[value_kind(t)](self, t)

    def flat_reader(self, node: Node | None, tensors: TensorReaders | None = None) -> FlatReader:
        """Reads a result record's value into a flat list by leaf index (the original
        call rebuilds its structure from that, `CallPlan.rebuild`); ``tensors``: the
        leaves the call gives as torch tensors, each read straight from its buffer
        (`TensorInto`; only leaves of records `reads_tensors` takes)."""
        return FLAT_READERS[record_kind(node)](self, node, tensors or {})

    def reads_tensors(self, t: ValueType | None) -> bool:
        """Whether a result leaf of ``t`` can be read straight as a framework's tensor
        (`flat_reader`'s ``tensors``): a host array of a known element type, from a
        device that exports its buffers as host memory."""
        return self.exports and isinstance(t, NDArray) and element_for(t.element) is not None

    # -- arguments through IREE's packer ------------------------------------------------
    #
    # IREE's `ArgumentPacker` (C++) builds the VM argument list about twice as fast as
    # the pushers, but implements only part of the grammar and converts array dtypes
    # silently. A function whose records it implements gets it: `pack` binds and checks
    # the values, `checker` checks (or converts) the arrays in the packed values, and the
    # packer is given records that read those packed values (a structure is a list in
    # record order, so `sdict` becomes `slist`; names are bound already).

    def iree_packer(self, signature: Signature) -> tuple[Any, list[Checker | None]] | None:
        records = [_iree_record(argument.node) for argument in signature.arguments]
        if any(record is None for record in records):
            return None
        packer = binding.ArgumentPacker(binding._invoke_statics, records)
        return packer, [self.checker(argument.node) for argument in signature.arguments]

    def sender(self, t: ValueType | None) -> Checker | None:
        """What a checked argument leaf of ``t`` is sent as (`ArrayConverter.send`: an
        aligned host array as a buffer view of its own memory); None where every value
        is sent as it is (not an array of a known element type, a device that cannot
        read host memory in place, or a module returning device arrays)."""
        if not (self.in_place and self.host) or not isinstance(t, NDArray):
            return None  # (device results: one could be a view of the caller's memory)
        element = element_for(t.element)
        if element is None:
            return None
        if t.dims is not None and all(dim is not None for dim in t.dims):
            size = element.dtype.itemsize * math.prod(dim for dim in t.dims if dim is not None)
            if size < IN_PLACE_MIN_BYTES:
                return None  # always copied: no cost per call
        return ArrayConverter(self, element, describe(t)).send

    def checker(self, node: Node | None) -> Checker | None:
        """Checks the arrays below ``node`` in its packed value (None: nothing to check);
        returns the value, arrays replaced where converted."""
        return CHECKERS[record_kind(node)](self, _record_of(node))


# --------------------------------------------------------------------------------------
# The converters of arrays and integers, which run once per value: methods of a record's
# converter object. (A bound method is called as fast as the closures these were; the
# same code as functions bound by `functools.partial`, as the converters of structures
# and lists are, measured 1.23-1.31x as long for an array's `check`, 1.18x for an
# integer's `read`, 1.01-1.06x for an array's `push` and `read`.)
# --------------------------------------------------------------------------------------


class ArrayConverter:
    """An `ndarray` record of a known element type, on a module's device: `push` (an
    argument), `check` (an argument IREE's packer pushes), `read` (a result).
    ``expected`` describes the record, for errors."""

    __slots__ = (
        "accepted",
        "allocate",
        "convert",
        "device",
        "dtype",
        "element",
        "element_type",
        "expected",
        "hal_type",
        "host",
        "host_read",
        "in_place",
        "returned",
    )

    def __init__(self, marshal: Marshal, element: Element, expected: str) -> None:
        self.element, self.expected = element, expected
        self.dtype, self.accepted = element.dtype, element.accepted
        self.hal_type, self.returned = element.hal_type, element.returned
        self.device, self.allocate = marshal.device, marshal.allocate
        self.convert, self.host = marshal.convert, marshal.host
        self.in_place, self.element_type = marshal.in_place, int(element.hal_type)
        #: A result buffer view → its host array (`vm_arrays.host_reader`).
        self.host_read = host_reader(marshal.device if marshal.exports else None, self.dtype)

    def send(self, value: Any) -> Any:
        """A checked argument as the VM is given it: a host array of the element's own
        dtype that the device can read in place as a buffer view of its memory (no
        copy: `in_place_view`); any other value as it is (`push`, or IREE's packer,
        copies it)."""
        if (
            type(value) is np.ndarray
            and value.nbytes >= IN_PLACE_MIN_BYTES
            and value.dtype is self.dtype
        ):
            view = in_place_view(self.device, value, self.element_type)
            if view is not None:
                return view
        return value

    def push(self, lst: Any, value: Any) -> None:
        """A buffer view of the element's dtype, copied to the device (a value of another
        dtype checked, or converted, by `host_array`); an IREE buffer view or
        `DeviceArray` as it is, its element type checked."""
        if type(value) is np.ndarray and (
            value.dtype is self.dtype or value.dtype in self.accepted
        ):
            array = value  # the common case, first
        elif isinstance(value, (BufferView, DeviceArray)):
            lst.push_ref(checked_view(value, self.element, self.expected))
            return
        else:
            array = host_array(value, self.element, self.convert, self.expected)
        try:
            view = self.allocate(_ARG_MEMORY, _ARG_USAGE, self.device, array, self.hal_type)
        except ValueError:  # not C-contiguous (rare: checked only when it happens)
            array = np.ascontiguousarray(array)
            view = self.allocate(_ARG_MEMORY, _ARG_USAGE, self.device, array, self.hal_type)
        lst.push_ref(view)

    def check(self, value: Any) -> Any:
        """`push`'s checks without the push: the value, converted where it is."""
        if type(value) is np.ndarray and (
            value.dtype is self.dtype or value.dtype in self.accepted
        ):
            return value
        if isinstance(value, (BufferView, DeviceArray)):
            checked_view(value, self.element, self.expected)
            return value
        return host_array(value, self.element, self.convert, self.expected)

    def read(self, lst: Any, index: int) -> Any:
        """A buffer view of an element type the element reads, as a host numpy array
        (mapped where it can be) or, with ``results="device"``, a `DeviceArray`."""
        view = view_at(lst, index, self.expected)
        if view.element_type not in self.returned:
            raise Mismatch(
                f"expected {self.expected}, the VM returned element type "
                f"{element_type_name(view.element_type)}"
            )
        if self.host:
            return to_host(view, self.dtype, self.device)
        return _ResultArray(
            self.device, view, implicit_host_transfer=True, override_dtype=self.dtype
        )


class IntConverter:
    """An integer scalar record wider than a bool: `read` (a result), `check` (a signless
    argument IREE's packer pushes)."""

    __slots__ = ("highest", "mask", "sign", "wrap")

    def __init__(self, t: Scalar) -> None:
        self.wrap = 1 << t.width
        self.mask = self.wrap - 1
        self.highest = (1 << (t.width - 1)) - 1
        self.sign = 0 if t.kind == "ui" else 1 << (t.width - 1)

    def read(self, lst: Any, index: int) -> Any:
        """The VM keeps narrow integers in 32-bit registers without extending their sign,
        so the bits are re-read at the record's width, signed unless the record is `ui`."""
        value = lst.get_variant(index)
        if type(value) is not int:
            return value  # `unpack` says what is wrong
        value &= self.mask
        return value - self.wrap if self.sign and value & self.sign else value

    def check(self, value: Any) -> Any:
        """A signless value above the signed range (`pack` takes either interpretation):
        the same bits as a signed value, which is what IREE's packer converts."""
        return value if value <= self.highest else value - self.wrap


# --------------------------------------------------------------------------------------
# Python → VM (arguments): a pusher appends one packed value to a VM list.
# --------------------------------------------------------------------------------------


def push_int(lst: Any, value: Any) -> None:
    """An integer scalar. `pack` made it an int (a bool for i1) that fits its record in
    one interpretation; the VM takes 64 bits and truncates to the width, so only the top
    of ui64 wraps."""
    value = int(value)
    lst.push_int(value if value <= _INT64_MAX else value - (1 << 64))


_INT64_MAX = (1 << 63) - 1


def push_float(lst: Any, value: Any) -> None:
    """A float scalar (the VM has no narrower float scalars)."""
    lst.push_float(value)


def push_gap(lst: Any, value: Any) -> None:
    """A gap (`pack` checked that it holds None). IREE's Python binding cannot append a
    null reference, so the slot gets an empty list; wrappers never read gaps
    (docs/spec.md §8.2)."""
    lst.push_list(VmList(0))


def push_unsupported(marshal: Marshal, record: str, lst: Any, value: Any) -> None:
    """An `ndarray` whose record does not say which element type (`"unknown"`: complex,
    index, opaque): an array goes as a buffer view of its own dtype, which the VM checks
    when the function imports it."""
    value = host_value(value)
    if isinstance(value, (BufferView, DeviceArray, np.ndarray)):
        push_dynamic(marshal, lst, value)
        return
    raise Mismatch(
        f"expected an array (element type {record}), got {type_name(value)}: "
        "nested lists say nothing of its element type"
    )


def push_structure(
    keys: list[IndexPathComponent], pushers: list[Pusher], lst: Any, value: Any
) -> None:
    """A packed structure (a list in record order, from `pack`) → a VM list."""
    sub = VmList(len(pushers))
    done = 0
    try:
        for push, item in zip(pushers, value, strict=True):
            push(sub, item)
            done += 1
    except Mismatch as mismatch:
        mismatch.inside(keys[done])
        raise
    lst.push_list(sub)


def push_list(push_element: Pusher, lst: Any, value: Any) -> None:
    """`py_homogeneous_list`: a sequence (checked by `pack`) → a VM list."""
    sub = VmList(len(value))
    done = 0
    try:
        for item in value:
            push_element(sub, item)
            done += 1
    except Mismatch as mismatch:
        mismatch.inside(done)
        raise
    lst.push_list(sub)


def push_dynamic(marshal: Marshal, lst: Any, value: Any) -> None:
    """`"unknown"` (and untyped) values: VM lists, buffer views and VM references as
    they are; arrays as buffer views of their own dtype; Python numbers; sequences as
    VM lists of dynamic values."""
    value = host_value(value)
    if isinstance(value, VmList):
        lst.push_list(value)
    elif isinstance(value, BufferView):
        lst.push_ref(value)
    elif isinstance(value, DeviceArray):
        lst.push_ref(value._buffer_view)
    elif isinstance(value, rt.VmRef):
        lst.push_ref(value)
    elif isinstance(value, (bool, int, np.integer, np.bool_)):
        lst.push_int(int(value))
    elif isinstance(value, (float, np.floating)):
        lst.push_float(float(value))
    elif isinstance(value, np.ndarray):
        hal_type = dynamic_hal_type(value.dtype)
        if hal_type is None:
            raise Mismatch(f"no IREE element type for an array of {value.dtype}")
        lst.push_ref(
            marshal.allocate(
                # (`np.ascontiguousarray` would make a 0-d array 1-d)
                _ARG_MEMORY,
                _ARG_USAGE,
                marshal.device,
                np.asarray(value, order="C"),
                hal_type,
            )
        )
    elif isinstance(value, (list, tuple)):
        sub = VmList(len(value))
        for index, item in enumerate(value):
            try:
                push_dynamic(marshal, sub, item)
            except Mismatch as mismatch:
                mismatch.inside(index)
                raise
        lst.push_list(sub)
    else:
        raise Mismatch(
            "expected a value the VM can take (a VM list, buffer view, array, number or "
            f"sequence of those), got {type_name(value)}"
        )


# The pusher of each record kind: (marshal, the record, raw) → the pusher bound to it.


def _gap_pusher(marshal: Marshal, node: None, raw: bool) -> Pusher:
    return push_gap


def _structure_pusher(marshal: Marshal, node: Sequence | Dict, raw: bool) -> Pusher:
    items, keys = _items(node)
    return partial(push_structure, keys, [marshal.pusher(item, raw) for item in items])


def _scalar_pusher(marshal: Marshal, t: Scalar, raw: bool) -> Pusher:
    return push_float if t.kind in ("f", "bf") else push_int


def _ndarray_pusher(marshal: Marshal, t: NDArray, raw: bool) -> Pusher:
    if isinstance(t.element, ListRef):
        # docs/spec.md §8.3: `pack` gives ``[values in C order, dims]``; the VM takes a
        # list of the two lists.
        values = partial(push_list, marshal.value_pusher(t.element, raw))
        return partial(push_structure, [0, 1], [values, partial(push_list, push_int)])
    element = element_for(t.element, raw)
    if element is None:
        return partial(push_unsupported, marshal, record_name(t.element))
    return ArrayConverter(marshal, element, describe(t)).push


def _list_pusher(marshal: Marshal, t: ListRef, raw: bool) -> Pusher:
    return partial(push_list, marshal.value_pusher(t.element, raw))


def _unknown_pusher(marshal: Marshal, t: ValueType | None, raw: bool) -> Pusher:
    return marshal.push_dynamic


PUSHERS: dict[RecordKind, Callable[[Marshal, Any, bool], Pusher]] = {
    "gap": _gap_pusher,
    "structure": _structure_pusher,
    "scalar": _scalar_pusher,
    "ndarray": _ndarray_pusher,
    "list": _list_pusher,
    "unknown": _unknown_pusher,
}


# --------------------------------------------------------------------------------------
# Arguments through IREE's packer: a checker checks (or converts) the arrays of a packed
# value, which IREE's packer then reads.
# --------------------------------------------------------------------------------------


def check_structure(checks: list[tuple[int, IndexPathComponent, Checker]], value: Any) -> Any:
    """A packed structure (a list `pack` made): each item that has a check, checked in
    place."""
    for position, key, check in checks:
        try:
            value[position] = check(value[position])
        except Mismatch as mismatch:
            mismatch.inside(key)
            raise
    return value


# The checker of each record kind (None: nothing to check).


def _no_checker(marshal: Marshal, record: Any) -> Checker | None:
    return None


def _scalar_checker(marshal: Marshal, t: Scalar) -> Checker | None:
    if t.kind != "i":
        return None
    return IntConverter(t).check


def _ndarray_checker(marshal: Marshal, t: NDArray) -> Checker | None:
    element = element_for(t.element)
    assert element is not None  # _iree_record took it
    return ArrayConverter(marshal, element, describe(t)).check


def _structure_checker(marshal: Marshal, node: Sequence | Dict) -> Checker | None:
    items, keys = _items(node)
    checks = [
        (position, keys[position], check)
        for position, item in enumerate(items)
        if (check := marshal.checker(item)) is not None
    ]
    return partial(check_structure, checks) if checks else None


CHECKERS: dict[RecordKind, Callable[[Marshal, Any], Checker | None]] = {
    "gap": _no_checker,
    "structure": _structure_checker,
    "scalar": _scalar_checker,
    "ndarray": _ndarray_checker,
    "list": _no_checker,  # (IREE's packer takes no lists: `_iree_record`)
    "unknown": _no_checker,
}


# The records IREE's ArgumentPacker implements (its InvokeStatics).
_IREE_SCALARS = frozenset({"i8", "i16", "i32", "i64", "f32", "f64"})
_IREE_ARRAYS = frozenset({"i1", "i8", "i16", "i32", "i64", "f32", "f64"})


_INT64_MAX = 2**63 - 1


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
            if t.dims is not None and any(dim is not None and dim > _INT64_MAX for dim in t.dims):
                return None  # the packer reads dims as int64 (a std::bad_cast beyond)
            return ["ndarray", name, *((None,) if t.dims is None else (len(t.dims), *t.dims))]
        return None
    if node is None:
        return None  # a gap: IREE's packer has no null
    items = node.items if isinstance(node, Sequence) else tuple(c for _, c in node.items)
    records = [_iree_record(item) for item in items]
    if any(record is None for record in records):
        return None
    return ["slist", *records]


# --------------------------------------------------------------------------------------
# VM → Python (results): a reader reads the value at an index of a VM list.
# --------------------------------------------------------------------------------------


def read_variant(lst: Any, index: int) -> Any:
    """A value as the VM holds it: a float scalar, a gap (a null reference: None)."""
    return lst.get_variant(index)


def read_dynamic(marshal: Marshal, lst: Any, index: int) -> Any:
    """An `"unknown"` (or untyped) value: buffer views as arrays of their own element
    type, VM lists as lists of dynamic values, numbers and other references as they are."""
    value = lst.get_variant(index)
    if not isinstance(value, rt.VmRef):
        return value
    view = value.deref(BufferView, True)
    if view is not None:
        dtype = view_dtype(view)
        if marshal.host and dtype is not None:
            return to_host(view, dtype, marshal.device)
        return _ResultArray(marshal.device, view, implicit_host_transfer=True)
    if value.isinstance(VmList):
        sub = value.deref(VmList)
        return [read_dynamic(marshal, sub, i) for i in range(len(sub))]
    return value


def read_structure(
    readers: list[Reader], keys: list[IndexPathComponent], lst: Any, index: int
) -> list[Any]:
    """A VM list of the structure's items → the packed structure (a list in record
    order, for `unpack`)."""
    sub = sub_list(lst, index, len(readers))
    out: list[Any] = []
    try:
        for position, read in enumerate(readers):
            out.append(read(sub, position))
    except Mismatch as mismatch:
        mismatch.inside(keys[len(out)])
        raise
    return out


def read_list(read_element: Reader, lst: Any, index: int) -> list[Any]:
    """`py_homogeneous_list`: a VM list of any length → a list."""
    sub = sub_list(lst, index, None)
    out: list[Any] = []
    try:
        for position in range(len(sub)):
            out.append(read_element(sub, position))
    except Mismatch as mismatch:
        mismatch.inside(len(out))
        raise
    return out


# The reader of each record kind: (marshal, the record) → the reader bound to it.


def _gap_reader(marshal: Marshal, node: None) -> Reader:
    return read_variant  # the VM holds a null reference: None


def _structure_reader(marshal: Marshal, node: Sequence | Dict) -> Reader:
    items, keys = _items(node)
    return partial(read_structure, [marshal.reader(item) for item in items], keys)


def _scalar_reader(marshal: Marshal, t: Scalar) -> Reader:
    if t.kind in ("f", "bf") or t.width == 1:
        return read_variant
    return IntConverter(t).read


def _ndarray_reader(marshal: Marshal, t: NDArray) -> Reader:
    if isinstance(t.element, ListRef):
        # docs/spec.md §8.3: a list of [values in C order, dims].
        values = partial(read_list, marshal.value_reader(t.element))
        return partial(read_structure, [values, partial(read_list, read_variant)], [0, 1])
    element = element_for(t.element)
    if element is None:
        return marshal.read_dynamic
    return ArrayConverter(marshal, element, describe(t)).read


def _list_reader(marshal: Marshal, t: ListRef) -> Reader:
    return partial(read_list, marshal.value_reader(t.element))


def _unknown_reader(marshal: Marshal, t: ValueType | None) -> Reader:
    return marshal.read_dynamic


READERS: dict[RecordKind, Callable[[Marshal, Any], Reader]] = {
    "gap": _gap_reader,
    "structure": _structure_reader,
    "scalar": _scalar_reader,
    "ndarray": _ndarray_reader,
    "list": _list_reader,
    "unknown": _unknown_reader,
}


# Flat readers (the original call): each leaf's value lands at its leaf index.


def skip_gap(lst: Any, index: int, out: list[Any]) -> None:
    """A gap: nothing to read."""
    return None


class LeafInto:
    """A leaf of a result read for the original call: its value (``read``, the leaf's
    `READERS` reader) lands at its leaf index. (A method, not a function bound by
    `partial`: it runs once per result leaf, and measured ~20 ns faster so.)"""

    __slots__ = ("index", "read")

    def __init__(self, read: Reader, index: int) -> None:
        self.read, self.index = read, index

    def read_into(self, lst: Any, position: int, out: list[Any]) -> None:
        out[self.index] = self.read(lst, position)


def read_structure_into(
    readers: list[FlatReader],
    keys: list[IndexPathComponent],
    lst: Any,
    position: int,
    out: list[Any],
) -> None:
    """A structure: each item's leaves from the VM list of its items."""
    sub = sub_list(lst, position, len(readers))
    done = 0
    try:
        for read in readers:
            read(sub, done, out)
            done += 1
    except Mismatch as mismatch:
        mismatch.inside(keys[done])
        raise


def _gap_flat_reader(marshal: Marshal, node: None, tensors: TensorReaders) -> FlatReader:
    return skip_gap


def _structure_flat_reader(
    marshal: Marshal, node: Sequence | Dict, tensors: TensorReaders
) -> FlatReader:
    items, keys = _items(node)
    readers = [marshal.flat_reader(item, tensors) for item in items]
    return partial(read_structure_into, readers, keys)


#: What reading a result buffer the short way may raise (then read the long way, by the
#: converter's `read`, which raises its `Mismatch` or copies): not a reference, not host
#: visible, no DLPack code for its element type.
_SHORT_WAY_ERRORS = (ValueError, RuntimeError, BufferError, TypeError)


class HostArrayInto:
    """`LeafInto` of a host array result (`ArrayConverter.read` with ``host``), in one
    frame: the buffer view, its element type checked, read as a host array by the
    record's `vm_arrays.host_reader` (a copy of a small buffer, a mapping of a large
    one, each holding what it reads). Anything else (not a buffer view, another element
    type, a buffer the host cannot map) takes the converter's own `read`."""

    __slots__ = ("converter", "host_read", "index", "returned")

    def __init__(self, converter: ArrayConverter, index: int) -> None:
        self.converter, self.index = converter, index
        self.host_read, self.returned = converter.host_read, converter.returned

    def read_into(self, lst: Any, position: int, out: list[Any]) -> None:
        try:
            view = lst.get_as_object(position, BufferView)
            if view is not None and view.element_type in self.returned:
                out[self.index] = self.host_read(view)
                return
        except _SHORT_WAY_ERRORS:
            pass
        out[self.index] = self.converter.read(lst, position)


class TensorInto:
    """`HostArrayInto` of a result the call gives as a torch tensor: the tensor made
    from the buffer's DLPack capsule (``tensor``; it holds the buffer, no copy). A
    buffer whose tensor would have another dtype, or anything `HostArrayInto` reads
    the long way, is read as the host array and made the tensor by ``finish``."""

    __slots__ = ("converter", "device", "finish", "index", "returned", "tensor")

    def __init__(
        self,
        converter: ArrayConverter,
        index: int,
        tensor: Callable[[Any], Any],
        finish: Callable[[Any], Any],
    ) -> None:
        self.converter, self.index, self.tensor, self.finish = converter, index, tensor, finish
        self.device, self.returned = converter.device, converter.returned

    def read_into(self, lst: Any, position: int, out: list[Any]) -> None:
        try:
            view = lst.get_as_object(position, BufferView)
            if view is not None and view.element_type in self.returned:
                tensor = self.tensor(capsule_of(self.device, view))
                if tensor is not None:
                    out[self.index] = tensor
                    return
        except _SHORT_WAY_ERRORS:
            pass
        out[self.index] = self.finish(self.converter.read(lst, position))


def _leaf_flat_reader(marshal: Marshal, node: Leaf, tensors: TensorReaders) -> FlatReader:
    read = marshal.value_reader(node.type)
    converter = getattr(read, "__self__", None)
    tensor = tensors.get(node.index)
    if type(converter) is ArrayConverter and converter.host and read == converter.read:
        if tensor is not None:
            return TensorInto(converter, node.index, *tensor).read_into
        return HostArrayInto(converter, node.index).read_into
    if tensor is not None:  # (`Marshal.reads_tensors` took a record this does not read)
        raise AssertionError(f"result leaf {node.index}: no tensor reader for {node.type}")
    return LeafInto(read, node.index).read_into


# (Given the node, not a leaf's type: a leaf's value lands at its index.)
FLAT_READERS: dict[RecordKind, Callable[[Marshal, Any, TensorReaders], FlatReader]] = {
    "gap": _gap_flat_reader,
    "structure": _structure_flat_reader,
    "scalar": _leaf_flat_reader,
    "ndarray": _leaf_flat_reader,
    "list": _leaf_flat_reader,
    "unknown": _leaf_flat_reader,
}
