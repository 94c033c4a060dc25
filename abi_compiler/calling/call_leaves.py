"""The converters of an original call (`abi.call`) on a loaded function: each argument
leaf checked by its record and the framework's dtype as it is packed, each result leaf made
the framework's value (a torch tensor, a numpy array in the framework's dtype), the dims'
relations checked: the `CallPlan` a `Function` calls with (docs/calling.md, "What the
original call checks"). `plan` builds it; `abi_compiler.calling.modules` holds the modules."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from abi_compiler.call_model import Array, Unused
from abi_compiler.calling.dims import DimRelations, LeafDims
from abi_compiler.calling.iree_runtime import np
from abi_compiler.calling.leaf_values import MAX_RANK, leaf_packer
from abi_compiler.calling.mismatch import Mismatch, describe_shaped, show_int, type_name
from abi_compiler.calling.original_call import (
    CallPlan,
    Unflatten,
)
from abi_compiler.calling.updates import update_target
from abi_compiler.calling.value_ranges import ranged
from abi_compiler.calling.vm import Marshal, ResultsMode
from abi_compiler.calling.vm_arrays import element_for, host_value
from abi_compiler.dtypes import numpy_dtype_name, scalar_for_numpy
from abi_compiler.errors import AbiError
from abi_compiler.model import (
    Leaf,
    NDArray,
    Node,
    Scalar,
    Sequence,
    Signature,
    ValueType,
)

__all__ = ["leaves_of", "plan"]


def plan(
    call: Any,
    signature: Signature,
    marshal: Marshal,
    module: Any,  # the loaded `Module`: its result mode and types
    checked: bool,
    unflatten: Unflatten | None = None,
) -> CallPlan:
    """The `CallPlan` of a function's original call: each argument leaf checked by its
    record as `pack` would, and (``checked``: for IREE's packer) its array checked as
    `Marshal.checker` does — a numpy array of the record's dtype and dims passes at
    once; each result leaf as the framework gives it, the result built by the
    framework's own ``unflatten`` when there is one (`Module.unflatten`). An argument
    with value ranges has its values checked too (`value_ranges.ranged`)."""
    by_index = {
        leaf.index: leaf for argument in signature.arguments for leaf in leaves_of(argument.node)
    }
    results = {leaf.index: leaf for node in signature.results for leaf in leaves_of(node)}

    def leaf(array: Array) -> Callable[[Any], Any]:
        _check_dtype(array.dtype)
        found = by_index.get(array.index)
        if found is None:
            raise AbiError(f"abi.call: the records have no argument leaf {array.index}")
        check = marshal.checker(found) if checked else None
        if _is_key(array.dtype):
            assert array.dtype is not None
            data = _leaf_converter(found.type, KEY_DATA, marshal.convert, check)
            return _key_leaf(array.dtype, data)
        converter = _leaf_converter(found.type, array.dtype, marshal.convert, check)
        if not array.ranges:
            return converter
        element = element_for(found.type.element) if isinstance(found.type, NDArray) else None
        dtype = element.dtype if element is not None else None
        return ranged(array.ranges, converter, dtype, marshal.device)

    def unused(node: Unused) -> Callable[[Any], Any] | None:
        # JAX checks an argument it dropped as any other (dtype, rank, dims): the value is
        # checked as if the records had its leaf.
        if node.dtype is None:
            return None
        _check_dtype(node.dtype)
        if _is_key(node.dtype):
            data = _leaf_converter(_unused_record(node), KEY_DATA, marshal.convert, None)
            return _key_leaf(node.dtype, data)
        return _leaf_converter(_unused_record(node), node.dtype, marshal.convert, None)

    tensors: dict[int, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {}

    def result(array: Array) -> Callable[[Any], Any] | None:
        _check_dtype(array.dtype)
        found = results.get(array.index)
        t = found.type if found else None
        transform = _result_leaf(array, t, call.tensor, module.results)
        tensor = _tensor_reader(array, t, call.tensor, module.results)
        if tensor is not None and transform is not None and marshal.reads_tensors(t):
            # Read as the tensor (`vm.TensorInto`; a buffer read the long way made one by
            # the transform): nothing left to do.
            tensors[array.index] = (tensor, transform)
            return None
        return transform

    def relations(leaves: list[tuple[str, tuple[Any, ...]]]) -> Callable[[Any], None]:
        found = tuple(LeafDims(path, dims) for path, dims in leaves)
        return DimRelations(call.symbols, found, call.constraints).check

    def target(array: Array) -> Callable[[Any, Any], Any]:
        device = module.results == "device"
        return lambda value, converted: update_target(value, converted, array.dtype, device)

    def send(array: Array) -> Callable[[Any], Any] | None:
        found = by_index.get(array.index)
        return marshal.sender(found.type) if found is not None else None

    made = CallPlan(
        call, signature, leaf, result, module.types, relations, unused, unflatten, target, send
    )
    made.tensor_readers = tensors
    return made


def _check_dtype(name: str | None) -> None:
    """`AbiError` for a recorded dtype no array of numbers has: numpy's object and void
    dtypes (``"O"``, ``"V8"``: their buffers hold addresses of Python objects, or no
    numbers). ml_dtypes' floats (``bfloat16``, ``float8_e4m3fn``) are of kind ``V`` too,
    with scalar types of their own: they are numbers."""
    dtype = _numpy_dtype(name) if name is not None else None
    if dtype is not None and (dtype.kind == "O" or dtype.hasobject or dtype.type is np.void):
        raise AbiError(f"abi.call: dtype {name!r} is not an array element type")


def _leaf_converter(
    t: ValueType | None, dtype: str | None, convert: bool, check: Callable[[Any], Any] | None
) -> Callable[[Any], Any]:
    """The converter of an argument leaf of record ``t`` whose framework dtype is
    ``dtype``: as `pack` converts it, then ``check`` (IREE's packer's array check)."""
    packer = leaf_packer(t, convert)
    if dtype is not None and not _typed_record(t):
        packer = _dtype_check(dtype)  # "unknown" (complex): the dtype is the call's
    slow = packer if check is None else (lambda value: check(packer(value)))
    wanted = _signed_dtype(dtype, t)
    if wanted is not None:
        slow = _signed_leaf(wanted, slow, convert)
    return _fast_array(t, slow, wanted)


def _unused_record(node: Unused) -> NDArray | None:
    """The record an argument the export dropped would have: its dtype's scalar and its
    dims (a symbolic one dynamic); None for a dtype no record names (complex)."""
    assert node.dtype is not None
    try:
        dtype = np.dtype(KEY_DATA if _is_key(node.dtype) else node.dtype)
    except TypeError:
        return None
    scalar = scalar_for_numpy(dtype.name, dtype.kind, dtype.itemsize)
    if scalar is None:
        return None
    dims = node.dims
    return NDArray(
        scalar, None if dims is None else tuple(d if isinstance(d, int) else None for d in dims)
    )


def _fast_array(
    t: ValueType | None, slow: Callable[[Any], Any], wanted: np.dtype[Any] | None = None
) -> Callable[[Any], Any]:
    """``slow`` behind the common case: a numpy array of the record's dtype (or one it
    takes as it is; ``wanted``: that one only) and dims, which every check would pass
    unchanged; or a plain CPU torch tensor whose `.numpy()` (the array sharing its
    memory, which `torch_array` would give too) is one. Any other value, a tensor that
    requires grad or has the conjugate or negative bit included, takes ``slow``."""
    element = element_for(t.element) if isinstance(t, NDArray) else None
    if element is None or not isinstance(t, NDArray) or t.dims is None:
        return slow
    dtype, accepted, rank = element.dtype, element.accepted, len(t.dims)
    if wanted is not None:
        dtype, accepted = wanted, frozenset({wanted})
    static = tuple((axis, size) for axis, size in enumerate(t.dims) if size is not None)
    # Every dim static: the shape is compared whole (a tuple compare, no generator).
    whole = tuple(t.dims) if len(static) == rank else None

    def fast(value: Any) -> Any:
        if type(value) is not np.ndarray:
            torch = sys.modules.get("torch")
            if torch is None or type(value) is not torch.Tensor:
                return slow(value)
            try:
                array = value.numpy()  # a plain CPU tensor's own memory
            except (RuntimeError, TypeError):
                return slow(value)
        else:
            array = value
        if array.dtype is dtype or array.dtype in accepted:
            shape = array.shape
            if shape == whole or (
                len(shape) == rank and all(shape[axis] == size for axis, size in static)
            ):
                return array
        return slow(value)

    return fast


def _signed_dtype(dtype: str | None, t: ValueType | None) -> np.dtype[Any] | None:
    """The framework's integer dtype of a leaf whose record is a signless integer of its
    width (which takes either interpretation of the bits): values are checked against
    that dtype instead. None otherwise."""
    scalar = t.element if isinstance(t, NDArray) else t
    if dtype is None or not isinstance(scalar, Scalar) or scalar.kind != "i" or scalar.width < 8:
        return None
    wanted = _numpy_dtype(dtype)
    if wanted is None or wanted.kind not in "iu" or wanted.itemsize * 8 != scalar.width:
        return None
    return wanted


def _numpy_dtype(name: Any) -> np.dtype[Any] | None:
    """The numpy dtype of a recorded dtype name or of a value's ``dtype`` attribute; None
    for one numpy does not know (the reflection is the file's, the value the caller's)."""
    try:
        return np.dtype(name)
    except (TypeError, ValueError):  # (a lone surrogate: UnicodeEncodeError)
        return None


def _signed_leaf(
    wanted: np.dtype[Any], slow: Callable[[Any], Any], convert: bool
) -> Callable[[Any], Any]:
    """An integer leaf of the framework's dtype ``wanted`` behind a signless record: an
    array of the other signedness (same width) is refused (``convert=True`` casts it;
    other dtypes are the record's business), Python ints
    must be in ``wanted``'s range — the framework refuses them otherwise."""
    info = np.iinfo(wanted)
    low, high = int(info.min), int(info.max)
    # The record's words name its signless dtype (``int8[3]``): a refusal names the
    # framework's (``uint8[3]``), the dtype the caller knows.
    record = numpy_dtype_name(Scalar("i", wanted.itemsize * 8))

    def own_words(mismatch: Mismatch) -> Mismatch:
        if wanted.name != record and mismatch.message.startswith(f"expected {record}["):
            mismatch.message = f"expected {wanted.name}{mismatch.message[9 + len(record) :]}"
            mismatch.args = (mismatch.message,)
        return mismatch

    def check(value: Any) -> Any:
        value = host_value(value)
        dtype = getattr(value, "dtype", None)
        if dtype is not None and not isinstance(value, (list, tuple)):
            try:
                found = np.dtype(dtype)
            except TypeError:  # no dtype numpy knows (a class's descriptor): the record's
                return slow(value)  # words refuse it
            if found.kind in "iu" and found != wanted and found.itemsize == wanted.itemsize:
                if not convert:
                    got = describe_shaped(value, tuple(np.shape(value)))
                    raise Mismatch(
                        f"expected an array of {wanted.name}, got {got} (convert=True converts it)"
                    )
                value = np.asarray(value).astype(wanted)
        else:
            _int_range(value, low, high, wanted.name)
        try:
            return slow(value)
        except Mismatch as mismatch:
            raise own_words(mismatch) from None

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
                except Mismatch as mismatch:
                    mismatch.inside(position)
                    raise
        elif (
            isinstance(item, (int, np.integer))
            and not isinstance(item, (bool, np.bool_))
            and not low <= int(item) <= high
        ):
            raise Mismatch(f"value {show_int(int(item))} does not fit in {name}")

    walk(value, 0)


def _typed_record(t: ValueType | None) -> bool:
    return isinstance(t, Scalar) or (isinstance(t, NDArray) and isinstance(t.element, Scalar))


def _dtype_check(dtype: str) -> Callable[[Any], Any]:
    """An array of a dtype its record cannot name (complex): the dtype is checked."""

    def check(value: Any) -> Any:
        value = host_value(value)
        found = _numpy_dtype(getattr(value, "dtype", None))
        if found is not None and found.name == dtype:
            return value
        got = found.name if found is not None else type_name(value)
        raise Mismatch(f"expected an array of {dtype}, got {got}")

    return check


def leaves_of(node: Node | None) -> list[Leaf]:
    if node is None:
        return []
    if isinstance(node, Leaf):
        return [node]
    items = node.items if isinstance(node, Sequence) else tuple(c for _, c in node.items)
    return [found for item in items for found in leaves_of(item)]


def _result_leaf(
    array: Array, t: ValueType | None, tensor: str, results: ResultsMode | None
) -> Callable[[Any], Any] | None:
    """How a result array becomes the framework's value (None: as it is): a torch tensor
    for torch (when torch can be imported and ``results`` is not given), else the numpy
    array in the framework's dtype (an unsigned integer keeps its dtype although its
    record has no sign)."""
    if results == "device":
        return None
    if _is_key(array.dtype):
        assert array.dtype is not None
        return _key_result(array.dtype)
    view = _result_view(array, t)
    if tensor == "torch" and results is None:
        torch = _torch()
        if torch is not None:
            return _torch_result(torch, view, array.dtype == "bfloat16")
    if view is None:
        return None
    return lambda value: value.view(view) if type(value) is np.ndarray else value


def _result_view(array: Array, t: ValueType | None) -> np.dtype[Any] | None:
    """The framework's integer dtype a result array of record ``t`` is viewed as (an
    unsigned integer keeps its dtype although its record has no sign); None: as read."""
    element = element_for(t.element) if isinstance(t, NDArray) else None
    if element is None or array.dtype is None or array.dtype == element.dtype.name:
        return None
    wanted = _numpy_dtype(array.dtype)
    if (
        wanted is not None
        and wanted.kind in "iub"
        and element.dtype.kind in "iub"
        and wanted.itemsize == element.dtype.itemsize
    ):
        return wanted
    return None


def _tensor_reader(
    array: Array, t: ValueType | None, tensor: str, results: ResultsMode | None
) -> Callable[[Any], Any] | None:
    """For a result torch gives as a plain tensor (its dtype the record's own, not
    bfloat16, not a key): the tensor of a DLPack capsule of its buffer
    (`torch.from_dlpack`, no copy), None where the tensor's dtype is not the one
    ``from_numpy`` would give (the caller then reads it as an array). None otherwise."""
    element = element_for(t.element) if isinstance(t, NDArray) else None
    if (
        tensor != "torch"
        or results is not None
        or element is None
        or _is_key(array.dtype)
        or array.dtype == "bfloat16"
        or element.dtype.kind not in "biufc"
        or _result_view(array, t) is not None
    ):
        return None
    torch = _torch()
    if torch is None:
        return None
    from_dlpack = torch.from_dlpack
    wanted = torch.from_numpy(np.empty(0, element.dtype)).dtype

    def read(capsule: Any) -> Any:
        value = from_dlpack(capsule)
        return value if value.dtype is wanted else None

    return read


# --------------------------------------------------------------------------------------
# JAX's typed PRNG keys (`jax.random.key`, dtype ``key<fry>``): the module takes and
# returns a key array's data (`jax.random.key_data`: uint32, the key's dims and the
# implementation's own trailing dims), the call the keys (docs/calling.md, "JAX typed PRNG keys").
# --------------------------------------------------------------------------------------

#: The dtype of key data.
KEY_DATA = "uint32"

#: The PRNG implementation of each key dtype's tag, as `jax.random.wrap_key_data` names it.
KEY_IMPLEMENTATIONS = {"fry": "threefry2x32", "rbg": "rbg", "urbg": "unsafe_rbg"}


def _is_key(dtype: str | None) -> bool:
    return dtype is not None and dtype.startswith("key<")


def _key_leaf(dtype: str, data: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """An argument recorded as a typed key of ``dtype``: a key array of that dtype is
    passed as its data; anything else (key data, what a caller without JAX holds) is
    checked as data by ``data``."""

    def convert(value: Any) -> Any:
        found = str(getattr(value, "dtype", ""))
        if found.startswith("key<"):
            if found != dtype:
                raise Mismatch(f"expected a {dtype} key array, got a {found} one")
            # A key array exists, so JAX is imported.
            value = np.asarray(sys.modules["jax"].random.key_data(value))
        return data(value)

    return convert


def _key_result(dtype: str) -> Callable[[Any], Any]:
    """A result recorded as a typed key of ``dtype``: the key array
    (`jax.random.wrap_key_data`) when JAX can be imported, else its data (uint32)."""
    implementation = KEY_IMPLEMENTATIONS.get(dtype[4:-1])
    jax = _jax() if implementation is not None else None
    if jax is None:
        return _as_uint32
    wrap = jax.random.wrap_key_data

    def to_key(value: Any) -> Any:
        if type(value) is not np.ndarray:
            return value
        # (The record is a signless i32: its buffer reads as int32.)
        return wrap(value.view(np.uint32), impl=implementation)

    return to_key


def _as_uint32(value: Any) -> Any:
    """Key data as JAX holds it: uint32."""
    return value.view(np.uint32) if type(value) is np.ndarray else value


def _jax() -> Any:
    try:
        import jax
    except ImportError:
        return None
    return jax


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        return None
    return torch


def _torch_result(torch: Any, view: Any, bfloat16: bool) -> Callable[[Any], Any]:
    from_numpy = torch.from_numpy
    if view is None and not bfloat16:

        def plain(value: Any) -> Any:  # the common case, without the tests below
            return from_numpy(value) if type(value) is np.ndarray else value

        return plain

    def to_tensor(value: Any) -> Any:
        if type(value) is not np.ndarray:
            return value
        if view is not None:
            value = value.view(view)
        if bfloat16:
            return from_numpy(value.view(np.int16)).view(torch.bfloat16)
        return from_numpy(value)

    return to_tensor
