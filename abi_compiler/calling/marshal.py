"""Runtime marshalling: Python values ↔ the argument and result lists of a function
(docs/spec.md §10), with IREE's runtime semantics (its `FunctionInvoker` and
`ArgumentPacker`). `pack(abi, *args, **kwargs)` binds Python values to the root records
of an `iree.abi` JSON and returns one value per record (a structure as a nested list of
its items in record order, the shape the V1 wrapper's `!util.list<?>` arguments take);
`unpack(abi, results)` re-assembles the results; `pack_legacy` / `unpack_legacy` do the
same by the legacy `f` + `sip` pair. numpy is never imported. The value rules and every
error are in docs/calling.md ("`abi_compiler.runtime`: value rules and errors").
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import numbers
import operator
import struct
import sys
from collections.abc import Callable, Mapping
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass
from typing import Any, cast

from abi_compiler.dtypes import (
    BUFFER_FORMAT_KINDS,
    NUMERIC_KINDS,
    NUMPY_KINDS,
    array_acceptance,
    float_limit,
    int_range,
    numpy_dtype_name,
    scalar_for_numpy,
    scalar_name,
    taken_dtypes,
    takes_bools,
)
from abi_compiler.errors import AbiError
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
    leaves,
    slots,
)

__all__ = [
    "pack",
    "pack_call",
    "pack_legacy",
    "unexpected_keyword",
    "unpack",
    "unpack_legacy",
    "value_shape",
]

AbiSource = str | bytes | Mapping[str, Any] | Signature
"""An `iree.abi` JSON text, the dict `json.loads` makes of it, or a decoded `Signature`."""

Converter = Callable[[Any], Any]

# --------------------------------------------------------------------------------------
# Errors: converters raise `_Mismatch`; each container level adds its key on the way out,
# so paths cost nothing unless something is wrong.
# --------------------------------------------------------------------------------------


class _Mismatch(Exception):
    """A value that does not fit: ``message``, and the path to it from its root, which
    each level adds on the way out (``reversed_path``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.reversed_path: list[IndexPathComponent] = []

    def error(self, side: str, root: IndexPathComponent) -> AbiError:
        """The `AbiError`: ``<side> <root><path>: <message>``."""
        return _error(side, root, self)


class Field(str):
    """A path component that is an attribute (a namedtuple's or dataclass's field):
    written ``.name``."""

    __slots__ = ()


class Label(str):
    """A root that is a parameter's name: written as it is (``argument params``)."""

    __slots__ = ()


def _format_path(side: str, root: IndexPathComponent, path: SequenceABC[IndexPathComponent]) -> str:
    """`argument 'x'[0]['b']`, `argument 0[1]`, `result 0`, `argument state.params`."""
    if isinstance(root, Label):
        text = f"{side} {root}"
    else:
        text = f"{side} {root!r}" if isinstance(root, str) else f"{side} {root}"
    for component in path:
        if isinstance(component, Field):
            text += f".{component}"
        else:
            text += f"[{component!r}]" if isinstance(component, str) else f"[{component}]"
    return text


# The one value-path error of the caller's side: `abi_compiler.iree` and
# `abi_compiler.calling.original_call` raise and extend it too.
Mismatch = _Mismatch
format_path = _format_path


def leaf_packer(
    value_type: ValueType | None, convert: bool, *, raw: bool = False
) -> Callable[[Any], Any]:
    """The converter `pack` (``raw``: `pack_legacy`, a leaf typed by the raw signature)
    checks (and normalizes) one leaf value of ``value_type`` with; it raises `Mismatch`."""
    return _value_converter(value_type, unpacking=False, opaque_refs=raw, convert=convert)


def _error(side: str, root: IndexPathComponent, mismatch: _Mismatch) -> AbiError:
    path = _format_path(side, root, mismatch.reversed_path[::-1])
    return AbiError(f"{path}: {mismatch.message}")


def _type_name(value: object) -> str:
    return "None" if value is None else type(value).__name__


def _show_int(number: int) -> str:
    """An int for a message: Python refuses to print one of more than 4300 digits."""
    bits = abs(number).bit_length()
    if bits > 4096:
        return f"{'-' if number < 0 else ''}<an integer of {bits} bits>"
    return str(number)


def _values(count: int) -> str:
    return f"{count} value" if count == 1 else f"{count} values"


def _keys_text(keys: SequenceABC[object]) -> str:
    return ", ".join(repr(key) for key in keys)


# The most keys a message lists (a dict of thousands of keys would flood it).
_KEYS_SHOWN = 16


def _keys_list(keys: SequenceABC[object]) -> str:
    """``['bias', 'kernel']``; a long list is cut (``…, and 990 more``)."""
    shown = ", ".join(repr(key) for key in keys[:_KEYS_SHOWN])
    if len(keys) > _KEYS_SHOWN:
        shown += f", … and {len(keys) - _KEYS_SHOWN} more"
    return f"[{shown}]"


def _dims_text(dims: SequenceABC[int | None]) -> str:
    """``[2,?,4]``: dims as in ``float32[2,?,4]``."""
    return "[" + ",".join("?" if dim is None else _show_int(dim) for dim in dims) + "]"


def _describe_type(value_type: ValueType | None) -> str:
    """What a leaf value of ``value_type`` must be, for messages: ``float32[2,?]``, ``an
    int (i32)``, ``a sequence``, …"""
    if isinstance(value_type, Scalar):
        name = scalar_name(value_type)
        if value_type.kind in ("f", "bf"):
            return f"a float ({name})"
        return f"a bool ({name})" if name == "i1" else f"an int ({name})"
    if isinstance(value_type, NDArray):
        element = value_type.element
        dims = value_type.dims
        if isinstance(element, Scalar):
            name = numpy_dtype_name(element)
            return f"a {name} array of any rank" if dims is None else f"{name}{_dims_text(dims)}"
        kind = "a reference array" if isinstance(element, ListRef) else "an array"
        return f"{kind} of any rank" if dims is None else f"{kind} of shape {_dims_text(dims)}"
    if isinstance(value_type, ListRef):
        return "a sequence"
    return "a value"


def describe(node: Node | ValueType | None) -> str:
    """What a value of ``node`` (a structure or a leaf's type) must be, as every call
    error says it: ``a dict with keys ['bias', 'kernel']``, ``a sequence of 2 values``,
    ``float32[2,4]``, ``None (a gap in the structure)``."""
    if node is None:
        return "None (a gap in the structure)"
    if isinstance(node, Leaf):
        return _describe_type(node.type)
    if isinstance(node, Sequence):
        return f"a sequence of {_values(len(node.items))}"
    if isinstance(node, Dict):
        keys = [key for key, _ in node.items]
        return f"a dict with keys {_keys_list(keys)}" if keys else "a dict with no keys"
    return _describe_type(node)


def describe_shaped(value: Any, shape: tuple[int, ...]) -> str:
    """What an array-like value of ``shape`` is, as call errors say it: ``float64[4,2]``,
    ``lists of shape [4,2]``, ``float`` (a number)."""
    dims = _dims_text(shape)
    dtype = getattr(value, "dtype", None)
    if dtype is not None:
        name = getattr(dtype, "name", None)
        kind = getattr(dtype, "kind", "")
        numeric = kind in NUMERIC_KINDS or name == "bfloat16"
        text = (
            name
            if isinstance(name, str) and (numeric or not kind)
            else getattr(dtype, "str", dtype)
        )
        if isinstance(text, str):
            order = getattr(dtype, "byteorder", "=")
            endian = {">": "big-endian ", "<": "little-endian "}.get(order, "")
            return f"{endian}{text}{dims}"
        # A `dtype` that is no dtype (an object's repr would put its address in the message)
        return f"{_type_name(value)} of shape {dims}" if shape else _type_name(value)
    if isinstance(value, memoryview):
        kind = _buffer_kind(value)
        if kind is None:
            return f"a memoryview of format {value.format!r} and shape {dims}"
        scalar = scalar_for_numpy("", kind, value.itemsize)
        assert scalar is not None  # (the kinds of `_FORMAT_KINDS`)
        return f"{numpy_dtype_name(scalar)}{dims}"
    if isinstance(value, (list, tuple)):
        return f"lists of shape {dims}"
    if not shape:
        return _type_name(value)
    return f"{_type_name(value)} of shape {dims}"


# --------------------------------------------------------------------------------------
# Shared checks.
# --------------------------------------------------------------------------------------

_NOT_SEQUENCES = (str, bytes, bytearray, memoryview)


def _is_sequence(value: object) -> bool:
    cls = type(value)
    if cls is list or cls is tuple:
        return True
    return isinstance(value, SequenceABC) and not isinstance(value, _NOT_SEQUENCES)


def _sequence_of(value: Any, count: int) -> SequenceABC[Any]:
    if not _is_sequence(value):
        raise _Mismatch(f"expected a sequence of {_values(count)}, got {_type_name(value)}")
    if len(value) != count:
        raise _Mismatch(f"expected a sequence of {_values(count)}, got {len(value)}")
    return cast(SequenceABC[Any], value)


def _mapping_values(value: Any, keys: tuple[str, ...]) -> list[Any]:
    """The values of a mapping with exactly ``keys``, in that order; a namedtuple or a
    dataclass instance whose fields are exactly ``keys`` stands for one (docs/spec.md §10: JAX's
    `.field` paths come from such objects)."""
    if type(value) is dict and len(value) == len(keys):
        try:
            return [value[key] for key in keys]
        except KeyError:
            pass  # diagnosed below
    expected = f"a dict with keys {_keys_list(keys)}" if keys else "a dict with no keys"
    if not isinstance(value, Mapping):
        fields = _fields(value)
        if fields is None:
            raise _Mismatch(f"expected {expected}, got {_type_name(value)}")
        if sorted(fields) != sorted(keys):
            got = f"{_type_name(value)} with fields {_keys_list(fields)}"
            raise _Mismatch(f"expected {expected}, got {got}{_key_difference(keys, fields)}")
        return [getattr(value, key) for key in keys]
    if len(value) != len(keys) or any(key not in value for key in keys):
        got = f"keys {_keys_list(list(value))}" if len(value) else "no keys"
        raise _Mismatch(f"expected {expected}, got {got}{_key_difference(keys, list(value))}")
    return [value[key] for key in keys]


def _fields(value: Any) -> tuple[str, ...] | None:
    """The field names of a namedtuple or a dataclass instance (None for other values)."""
    fields = getattr(type(value), "_fields", None)
    if isinstance(value, tuple) and isinstance(fields, tuple):
        return fields
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return tuple(field.name for field in dataclasses.fields(value))
    return None


def _key_difference(expected: SequenceABC[str], got: SequenceABC[object]) -> str:
    """What a cut key list may hide: `` (missing 'b'; unexpected 'c')``."""
    if len(expected) <= _KEYS_SHOWN and len(got) <= _KEYS_SHOWN:
        return ""
    given = set(got)
    missing = [key for key in expected if key not in given]
    known = set(expected)
    extra = [key for key in got if key not in known]
    parts = [f"missing {_keys_list(missing)}"] if missing else []
    parts += [f"unexpected {_keys_list(extra)}"] if extra else []
    return f" ({'; '.join(parts)})" if parts else ""


def _check_gap(value: Any) -> None:
    if value is not None:
        raise _Mismatch(f"expected None (a gap in the structure), got {_type_name(value)}")


# --------------------------------------------------------------------------------------
# Leaf values.
# --------------------------------------------------------------------------------------


def _is_bool_scalar(value: Any) -> bool:
    """A numpy bool (which has no ``__index__``)."""
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    return kind == "b" and getattr(value, "shape", None) == ()


def _is_bool(value: Any) -> bool:
    return type(value) is bool or _is_bool_scalar(value)


def _int_converter(scalar: Scalar, convert: bool, raw: bool) -> Converter:
    name = scalar_name(scalar)
    lowest, highest = int_range(scalar)
    expected = f"expected a bool ({name})" if scalar.width == 1 else f"expected an int ({name})"
    bools = convert or takes_bools(scalar, raw=raw)

    def convert_int(value: Any) -> Any:
        if type(value) is int:
            number = value
        elif not bools and _is_bool(value):
            raise _Mismatch(f"{expected}, got bool (convert=True converts it)")
        else:
            try:
                number = int(operator.index(value))
            except TypeError:
                if not _is_bool_scalar(value):
                    raise _Mismatch(f"{expected}, got {_type_name(value)}") from None
                number = int(bool(value))
        if not lowest <= number <= highest:
            raise _Mismatch(f"value {_show_int(number)} does not fit in {name}")
        return bool(number) if scalar.width == 1 else number

    return convert_int


def _float_converter(scalar: Scalar, convert: bool, raw: bool) -> Converter:
    name = scalar_name(scalar)
    limit = float_limit(scalar)
    bools = convert or takes_bools(scalar, raw=raw)

    def too_large(value: Any, number: float) -> _Mismatch:
        shown = _show_int(value) if isinstance(value, int) else repr(number)
        return _Mismatch(f"value {shown} does not fit in {name}")

    def convert_float(value: Any) -> float:
        cls = type(value)
        if cls is float:
            if -limit < value < limit or not math.isfinite(value):
                return cast(float, value)
            raise too_large(value, value)
        if cls is not int:
            if cls is bool or _is_bool_scalar(value):  # (numpy's bool is no `numbers.Real`)
                if not bools:
                    raise _Mismatch(
                        f"expected a float ({name}), got bool (convert=True converts it)"
                    )
                return float(bool(value))
            if not isinstance(value, numbers.Real):
                raise _Mismatch(f"expected a float ({name}), got {_type_name(value)}")
        try:
            number = float(value)
        except OverflowError:
            raise too_large(value, math.inf) from None
        if -limit < number < limit or (not math.isfinite(number) and cls is not int):
            return number
        raise too_large(value, number)

    return convert_float


def _scalar_converter(scalar: Scalar, convert: bool, raw: bool) -> Converter:
    if scalar.kind in ("f", "bf"):
        return _float_converter(scalar, convert, raw)
    return _int_converter(scalar, convert, raw)


def _buffer_kind(view: memoryview) -> str | None:
    """The dtype kind of a memoryview's elements (None: not numbers)."""
    code = view.format.lstrip("@=<>!")
    return BUFFER_FORMAT_KINDS.get(code) if len(code) == 1 else None


def _dtype_checker(element: Scalar, convert: bool, expected: str, raw: bool = False) -> Converter:
    """An array with a ``dtype`` must hold ``element``'s values (the dtypes
    `abi_compiler.dtypes.taken_dtypes` names; ``raw``: a leaf of the raw signature);
    ``convert=True`` casts one of other numbers with ``astype`` instead
    (`array_acceptance`). Values without a dtype (nested lists, numbers) pass.
    ``expected`` describes the whole array (`describe`)."""
    wanted = numpy_dtype_name(element)
    taken = taken_dtypes(element, raw=raw)
    # (kind, itemsize) of the dtypes taken as they are, looked up first (the common case:
    # ``dtype.name`` is slow, read only when this misses). Each kind letter is the
    # interpreter's own one-character string (`chr`), the object numpy's ``dtype.kind``
    # gives: the lookup compares it by identity, ~5% of a leaf's check faster than
    # an equal string from a module's constants.
    taken_kinds = frozenset(
        (chr(ord(kind)), size)
        for kind, size in (NUMPY_KINDS[name] for name in taken if name in NUMPY_KINDS)
    )

    def wrong(value: Any, hint: str = "") -> _Mismatch:
        got = describe_shaped(value, tuple(getattr(value, "shape", ())))
        return _Mismatch(f"expected {expected}, got {got}{hint}")

    def check(value: Any) -> Any:
        dtype = getattr(value, "dtype", None)
        if dtype is None:
            if type(value) is memoryview:
                return check_buffer(value)
            return value
        kind = getattr(dtype, "kind", None)
        if (kind, getattr(dtype, "itemsize", None)) in taken_kinds:
            return value
        if kind is None:  # a dtype of another library than numpy's: its ``astype`` decides
            acceptance = "converted"
        else:
            acceptance = array_acceptance(element, getattr(dtype, "name", ""), kind, raw=raw)
        if acceptance == "taken":
            return value
        if acceptance == "refused":  # strings, objects: nothing converts
            raise wrong(value)
        if not convert:
            raise wrong(value, " (convert=True converts it)")
        try:
            return value.astype(wanted)
        except Exception as error:  # numpy raises TypeError, ValueError, …
            raise _Mismatch(
                f"cannot convert an array of dtype {getattr(dtype, 'name', dtype)} to "
                f"{wanted}: {error}"
            ) from None

    def check_buffer(view: memoryview) -> Any:
        """A memoryview's elements have a type too (its struct ``format``)."""
        kind = _buffer_kind(view)
        if kind is None:
            raise wrong(view)
        if (kind, view.itemsize) in taken_kinds:
            return view
        if not convert:
            raise wrong(view, " (convert=True converts it)")
        return _buffer_values(view)  # numbers without a dtype, converted by value

    return check


def _buffer_values(view: memoryview) -> Any:
    """A memoryview's elements as nested lists (`tolist`, which has no half floats:
    those are read with `struct`)."""
    try:
        return view.tolist()
    except NotImplementedError:
        values = [value for (value,) in struct.iter_unpack(view.format, view.tobytes())]
        return _reshape(values, view.shape or ())


def _passthrough(value: Any) -> Any:
    return value


# The deepest nested lists read as an array (numpy's own limit on dimensions).
MAX_RANK = 64


def _nested_list_shape(
    value: list[Any] | tuple[Any, ...], dims: tuple[int | None, ...] | None, expected: str
) -> tuple[int, ...]:
    """The shape of rectangular nested lists/tuples.

    ``dims`` are given for a reference array (docs/spec.md §8.3), whose elements are lists
    themselves: the descent stops at its rank, and a zero-size dim, which hides the dims
    below it, lets those be the static dims (or 0)."""
    shape: list[int] = []
    level: list[Any] = [value]
    while dims is None or len(shape) < len(dims):
        nested = [isinstance(item, (list, tuple)) for item in level]
        if not any(nested):
            break
        size = len(level[0]) if nested[0] else -1
        if not all(nested) or any(len(item) != size for item in level):
            raise _Mismatch(f"expected {expected}, got ragged nested lists")
        if len(shape) == MAX_RANK:  # also a list that contains itself
            raise _Mismatch(f"expected {expected}, got lists nested deeper than {MAX_RANK} levels")
        shape.append(size)
        # A list that appears several times on one level (``[row] * n``) has the same
        # shape each time: looked into once, so aliased input costs its own size only.
        distinct = {id(item): item for item in level}
        level = [element for item in distinct.values() for element in item]
        if not level:
            if dims is not None:
                shape.extend(0 if dim is None else dim for dim in dims[len(shape) :])
            break
    if dims is not None and len(shape) < len(dims):
        raise _Mismatch(f"expected {expected}, got lists of shape {_dims_text(shape)}")
    return tuple(shape)


def torch_array(value: Any) -> Any:
    """A `torch.Tensor` as the numpy array that shares its memory (a CPU tensor is not
    copied; one on another device is copied to the host), or None when ``value`` is not
    a torch tensor. A bfloat16 tensor becomes an `ml_dtypes.bfloat16` array; a dtype
    numpy has no counterpart for (float8, quantized, complex32) raises TypeError, since
    IREE cannot take it either. torch is never imported: a value can only be a torch tensor
    when torch is loaded."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(value, torch.Tensor):
        return None
    tensor = value.detach()
    if tensor.device.type != "cpu":
        tensor = tensor.cpu()
    tensor = tensor.resolve_conj().resolve_neg()
    if tensor.dtype == torch.bfloat16:
        import ml_dtypes

        return tensor.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    try:
        return tensor.numpy()
    except TypeError:  # torch: "Got unsupported ScalarType …"
        raise TypeError(f"a torch.Tensor of dtype {tensor.dtype}, which IREE cannot take") from None


def _host_tensor(value: Any, expected: str) -> Any:
    """`torch_array` for a leaf converter: its refusal is a mismatch."""
    try:
        return torch_array(value)
    except TypeError as error:
        raise _Mismatch(f"expected {expected}, got {error}") from None


def _shape_attribute(value: Any, expected: str) -> Any:
    """A value's ``.shape`` (None: it has none); a mismatch when reading it raises."""
    try:
        return getattr(value, "shape", None)
    except Exception as error:  # whatever the object raises
        raise _Mismatch(
            f"expected {expected}, {_type_name(value)}.shape raised {type(error).__name__}: {error}"
        ) from None


def _array_shape(
    value: Any, expected: str, dims: tuple[int | None, ...] | None = None
) -> tuple[int, ...]:
    shape = _shape_attribute(value, expected)
    if shape is not None and not isinstance(value, (list, tuple)):
        try:
            return tuple(int(dim) for dim in shape)
        except (TypeError, ValueError):
            raise _Mismatch(f"expected {expected}, got {_type_name(value)}") from None
    if isinstance(value, (list, tuple)):
        return _nested_list_shape(value, dims, expected)
    if isinstance(value, numbers.Number):
        return ()
    raise _Mismatch(f"expected {expected}, got {_type_name(value)}")


def _dunder_array(value: Any, expected: str) -> tuple[Any, tuple[int, ...]]:
    """A value `_array_shape` refused: if it is an array only through ``__array__``, the
    array it gives and its shape (looked for only then: no cost for other arrays);
    otherwise the refusal again."""
    array = _as_array(value, expected)
    return array, _array_shape(array, expected)


def _as_array(value: Any, expected: str) -> Any:
    """An object that is an array only through ``__array__`` (no ``.shape``): the array it
    gives, which is then checked and passed on (no numpy import here)."""
    if (
        _shape_attribute(value, expected) is None
        and not isinstance(value, (list, tuple))
        and hasattr(value, "__array__")
    ):
        try:
            return value.__array__()
        except Exception as error:  # whatever the object raises
            raise _Mismatch(
                f"expected {expected}, {_type_name(value)}.__array__() raised "
                f"{type(error).__name__}: {error}"
            ) from None
    return value


def _check_shape(
    value: Any, shape: tuple[int, ...], dims: tuple[int | None, ...] | None, expected: str
) -> None:
    if dims is None:
        return
    if len(shape) != len(dims) or any(
        dim is not None and dim != size for dim, size in zip(dims, shape, strict=True)
    ):
        raise _Mismatch(f"expected {expected}, got {describe_shaped(value, shape)}")


def _ndarray_checker(array: NDArray, dtype: Converter | None) -> Converter:
    """Rank and static dims; ``dtype`` (packing) checks or converts the element type."""
    dims = array.dims
    expected = _describe_type(array)
    finish = dtype or _passthrough
    if dims is None:

        def convert_unranked(value: Any) -> Any:
            tensor = _host_tensor(value, expected)
            if tensor is not None:
                value = tensor
            try:
                _array_shape(value, expected)
            except _Mismatch:
                value, _ = _dunder_array(value, expected)
            return finish(value)

        return convert_unranked
    rank = len(dims)
    static = tuple((axis, dim) for axis, dim in enumerate(dims) if dim is not None)

    def convert(value: Any) -> Any:
        shape = _shape_attribute(value, expected)
        # fast path for numpy: a plain tuple of ints
        if type(shape) is not tuple or not all(type(size) is int for size in shape):
            tensor = _host_tensor(value, expected)  # a torch.Size is not a plain tuple
            if tensor is not None:
                value = tensor
            try:
                shape = _array_shape(value, expected)
            except _Mismatch:
                value, shape = _dunder_array(value, expected)
        if len(shape) != rank:
            _check_shape(value, shape, dims, expected)
        for axis, dim in static:
            if shape[axis] != dim:
                _check_shape(value, shape, dims, expected)
        return finish(value)

    return convert


def _flatten(nested: Any, shape: tuple[int, ...]) -> list[Any]:
    level = [nested]
    for _ in shape:
        level = [element for item in level for element in item]
    return level


def _multi_index(position: int, shape: tuple[int, ...]) -> list[int]:
    index: list[int] = []
    for size in reversed(shape):
        position, rest = divmod(position, size)
        index.append(rest)
    return index[::-1]


def _convert_elements(
    elements: SequenceABC[Any], shape: tuple[int, ...], convert: Converter
) -> list[Any]:
    out: list[Any] = []
    append = out.append
    try:
        for element in elements:
            append(convert(element))
    except _Mismatch as mismatch:
        mismatch.reversed_path.extend(reversed(_multi_index(len(out), shape)))
        raise
    return out


def _ref_array_packer(array: NDArray, element: Converter) -> Converter:
    """docs/spec.md §8.3: an ND-array of reference type travels as [values, dims]."""
    dims = array.dims
    expected = _describe_type(array)

    def convert(value: Any) -> list[Any]:
        if hasattr(value, "shape") and hasattr(value, "tolist"):
            shape = _array_shape(value, expected)
            nested = value.tolist()
        elif dims is None:
            raise _Mismatch(
                "expected an array with a shape (an unranked reference array cannot be "
                f"nested lists), got {_type_name(value)}"
            )
        else:
            shape = _array_shape(value, expected, dims)
            nested = value
        _check_shape(value, shape, dims, expected)
        values = _convert_elements(_flatten(nested, shape), shape, element)
        return [values, list(shape)]

    return convert


def _dim(value: Any) -> int:
    try:
        dim = int(operator.index(value))
    except TypeError:
        raise _Mismatch(f"expected a dim (a non-negative int), got {_type_name(value)}") from None
    if dim < 0:
        raise _Mismatch(f"expected a dim (a non-negative int), got {_show_int(dim)}")
    return dim


def _reshape(flat: list[Any], shape: tuple[int, ...]) -> Any:
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return flat
    stride = len(flat) // shape[0] if shape[0] else 0
    return [_reshape(flat[i * stride : (i + 1) * stride], shape[1:]) for i in range(shape[0])]


# The most nested lists an empty reference array (some dim 0) unpacks to.
MAX_EMPTY_LISTS = 1 << 20


def _ref_array_unpacker(array: NDArray, element: Converter) -> Converter:
    """[values, dims] → nested lists of the unpacked values (rank 0: the value)."""
    dims = array.dims
    expected = f"the dims {_dims_text(dims)}" if dims is not None else ""

    def convert(value: Any) -> Any:
        values, sizes = _sequence_of(value, 2)
        try:
            if not _is_sequence(sizes):
                raise _Mismatch(f"expected a sequence of dims, got {_type_name(sizes)}")
            shape = tuple(_dim(size) for size in sizes)
            if dims is not None and (
                len(shape) != len(dims)
                or any(d is not None and d != n for d, n in zip(dims, shape, strict=True))
            ):
                raise _Mismatch(f"expected {expected}, got {_dims_text(shape)}")
        except _Mismatch as mismatch:
            mismatch.reversed_path.append(1)
            raise
        count = 1
        for size in shape:
            count *= size
        if count == 0:
            # No values, but the nested lists of the dims before the first 0 would still
            # be built: [10**8, 0] is 10**8 empty lists from a few bytes.
            lists = 1
            for size in shape:
                if size == 0:
                    break
                lists *= size
                if lists > MAX_EMPTY_LISTS:
                    raise _Mismatch(
                        f"an empty reference array of shape {_dims_text(shape)} would "
                        f"unpack to more than {MAX_EMPTY_LISTS} nested lists"
                    )
        try:
            # Paths follow the packed form: the position in the flat values list.
            converted = _convert_elements(_sequence_of(values, count), (count,), element)
        except _Mismatch as mismatch:
            mismatch.reversed_path.append(0)
            raise
        return _reshape(converted, shape)

    return convert


def _list_converter(element: Converter) -> Converter:
    """`py_homogeneous_list`: any length, every element checked."""

    def convert(value: Any) -> list[Any]:
        if not _is_sequence(value):
            raise _Mismatch(f"expected a sequence, got {_type_name(value)}")
        out: list[Any] = []
        append = out.append
        try:
            for item in value:
                append(element(item))
        except _Mismatch as mismatch:
            mismatch.reversed_path.append(len(out))  # the element that failed
            raise
        return out

    return convert


def _value_converter(
    value_type: ValueType | None, *, unpacking: bool, opaque_refs: bool, convert: bool = False
) -> Converter:
    """Check (and normalize) one leaf value of type ``value_type``; ``convert`` (packing
    only) converts bools to numbers and arrays to the record's dtype instead of refusing
    them."""
    # A leaf of the raw signature (``opaque_refs``) has its own dtype rules: its `i8`
    # stands for `i1` too (`abi_compiler.dtypes.taken_dtypes`).
    if isinstance(value_type, Scalar):
        return _scalar_converter(value_type, convert, opaque_refs)
    if isinstance(value_type, NDArray):
        element_type = value_type.element
        if isinstance(element_type, ListRef):
            element = _value_converter(
                element_type, unpacking=unpacking, opaque_refs=False, convert=convert
            )
            if unpacking:
                return _ref_array_unpacker(value_type, element)
            return _ref_array_packer(value_type, element)
        dtype = (
            _dtype_checker(element_type, convert, _describe_type(value_type), raw=opaque_refs)
            if isinstance(element_type, Scalar) and not unpacking
            else None
        )
        return _ndarray_checker(value_type, dtype)
    if isinstance(value_type, ListRef) and not opaque_refs:
        return _list_converter(
            _value_converter(
                value_type.element, unpacking=unpacking, opaque_refs=False, convert=convert
            )
        )
    return _passthrough  # Unknown, untyped, or an opaque legacy reference


# --------------------------------------------------------------------------------------
# Structures (V1): nested values ↔ nested lists.
# --------------------------------------------------------------------------------------


def _convert_items(
    converters: list[Converter], keys: SequenceABC[IndexPathComponent], items: SequenceABC[Any]
) -> list[Any]:
    out: list[Any] = []
    append = out.append
    try:
        for convert, item in zip(converters, items, strict=True):
            append(convert(item))
    except _Mismatch as mismatch:
        mismatch.reversed_path.append(keys[len(out)])  # the item that failed
        raise
    return out


def _gap(value: Any) -> None:
    _check_gap(value)
    return None


def _pack_converter(node: Node | None, convert: bool) -> Converter:
    """Python value → the record's packed form (nested lists)."""
    if node is None:
        return _gap
    if isinstance(node, Leaf):
        return _value_converter(node.type, unpacking=False, opaque_refs=False, convert=convert)
    if isinstance(node, Sequence):
        converters = [_pack_converter(item, convert) for item in node.items]
        keys = range(len(converters))
        count = len(converters)
        return lambda value: _convert_items(converters, keys, _sequence_of(value, count))
    dict_keys = tuple(key for key, _ in node.items)
    dict_converters = [_pack_converter(child, convert) for _, child in node.items]
    return lambda value: _convert_items(
        dict_converters, dict_keys, _mapping_values(value, dict_keys)
    )


def _unpack_converter(node: Node | None) -> Converter:
    """Packed form (nested lists) → Python value: list, tuple or dict per record."""
    if node is None:
        return _gap
    if isinstance(node, Leaf):
        return _value_converter(node.type, unpacking=True, opaque_refs=False)
    converters = [_unpack_converter(item) for _, item in slots(node)]
    count = len(converters)
    if isinstance(node, Sequence):
        keys = range(count)
        if node.kind == "tuple":
            return lambda value: tuple(_convert_items(converters, keys, _sequence_of(value, count)))
        return lambda value: _convert_items(converters, keys, _sequence_of(value, count))
    dict_keys = tuple(key for key, _ in node.items)
    return lambda value: dict(
        zip(
            dict_keys,
            _convert_items(converters, dict_keys, _sequence_of(value, count)),
            strict=True,
        )
    )


# --------------------------------------------------------------------------------------
# Binding call arguments to root slots.
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Slots:
    """The root slots of a call: a label per slot (its position, or its name), which
    slots positional values fill, and which names keywords fill."""

    labels: tuple[IndexPathComponent, ...]
    positional: int
    by_name: Mapping[str, int]
    #: What slot ``i`` takes (`describe`), for the message of a missing value.
    expected: Callable[[int], str]

    def bind(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> list[Any]:
        if len(args) > self.positional:
            count = self.positional
            noun = "argument" if count == 1 else "arguments"
            raise AbiError(
                f"argument {count}: unexpected positional argument "
                f"(the function takes {count} positional {noun})"
            )
        values: list[Any] = list(args)
        if len(values) == len(self.labels) and not kwargs:
            return values
        values.extend([_MISSING] * (len(self.labels) - len(values)))
        for name, value in kwargs.items():
            slot = self.by_name.get(name)
            if slot is None:
                names = [key for key, _ in sorted(self.by_name.items(), key=lambda e: e[1])]
                raise unexpected_keyword(name, names)
            if values[slot] is not _MISSING:
                raise AbiError(f"argument {name!r}: given both positionally and by keyword")
            values[slot] = value
        for label, value in zip(self.labels, values, strict=True):
            if value is _MISSING:  # (identity only: arrays do not compare to a sentinel)
                expected = self.expected(self.labels.index(label))
                path = _format_path("argument", label, ())
                raise AbiError(f"{path}: missing value, expected {expected}")
        return values


_MISSING = object()


def unexpected_keyword(name: str, keywords: SequenceABC[str]) -> AbiError:
    """The error for a keyword argument ``name`` that is none of ``keywords`` (in the
    function's order), worded the same for every function (records and frontends'
    adapters): ``argument 'z': unexpected keyword argument (keywords: 'x', 'y')``."""
    takes = f"keywords: {_keys_text(keywords)}" if keywords else "it takes no keywords"
    return AbiError(f"argument {name!r}: unexpected keyword argument ({takes})")


def value_shape(value: Any) -> tuple[int, ...] | None:
    """The shape of an array value as the records read it (a ``.shape``, a torch tensor,
    nested lists, a number, an object with ``__array__``); None where they refuse it."""
    try:
        tensor = _host_tensor(value, "an array")
        if tensor is not None:
            value = tensor
        try:
            return _array_shape(value, "an array")
        except _Mismatch:
            return _dunder_array(value, "an array")[1]
    except _Mismatch:
        return None


def _convert_roots(
    side: str,
    labels: SequenceABC[IndexPathComponent],
    converters: list[Converter],
    values: SequenceABC[Any],
) -> list[Any]:
    out = []
    for label, convert, value in zip(labels, converters, values, strict=True):
        try:
            out.append(convert(value))
        except _Mismatch as mismatch:
            raise _error(side, label, mismatch) from None
    return out


def _results_list(results: Any, expected: int) -> SequenceABC[Any]:
    if not _is_sequence(results):
        raise AbiError(f"expected a sequence of results, got {_type_name(results)}")
    if len(results) != expected:
        noun = "result" if expected == 1 else "results"
        raise AbiError(f"expected {expected} {noun}, got {len(results)}")
    return cast(SequenceABC[Any], results)


def _collect(values: list[Any]) -> Any:
    """0 results → None, 1 → the value, more → a tuple (as IREE's FunctionInvoker)."""
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return tuple(values)


# --------------------------------------------------------------------------------------
# V1: `iree.abi`.
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _CallPlan:
    slots: _Slots
    packers: list[Converter]
    converting_packers: list[Converter]  # pack(..., convert=True)
    result_labels: tuple[int, ...]
    unpackers: list[Converter]
    inlined_items: int | None  # item count of an inlined structured result


def _call_plan(signature: Signature) -> _CallPlan:
    labels: list[IndexPathComponent] = []
    by_name: dict[str, int] = {}
    for position, argument in enumerate(signature.arguments):
        labels.append(position if argument.name is None else argument.name)
        if argument.name is not None:
            by_name[argument.name] = position
    nodes = [argument.node for argument in signature.arguments]
    slots = _Slots(tuple(labels), len(labels), by_name, lambda slot: describe(nodes[slot]))
    packers = [_pack_converter(argument.node, False) for argument in signature.arguments]
    converting = [_pack_converter(argument.node, True) for argument in signature.arguments]
    unpackers = [_unpack_converter(node) for node in signature.results]
    inlined_items = None
    if signature.inlined_result:
        root = signature.results[0]
        assert isinstance(root, (Sequence, Dict))
        inlined_items = len(root.items)
    return _CallPlan(
        slots, packers, converting, tuple(range(len(signature.results))), unpackers, inlined_items
    )


def pack(abi: AbiSource, /, *args: Any, convert: bool = False, **kwargs: Any) -> list[Any]:
    """Bind ``args``/``kwargs`` to the root records of ``abi`` and pack them: one value
    per record, structures as nested lists of their items in record order. With
    ``convert=True``, bools are accepted for numbers and arrays of another dtype are cast
    (``astype``) instead of refused. (An argument named ``convert`` cannot be given by
    keyword here: `pack_call` takes the keywords as a dict.)"""
    return pack_call(abi, args, kwargs, convert=convert)


def pack_call(
    abi: AbiSource,
    args: SequenceABC[Any],
    kwargs: Mapping[str, Any],
    *,
    convert: bool = False,
) -> list[Any]:
    """`pack` with the call's positional values and keywords given as they are: any
    argument name (``convert``, ``abi``, ``self``, a Python keyword) is a keyword."""
    plan = _v1_plan(abi)
    values = plan.slots.bind(tuple(args), kwargs)
    packers = plan.converting_packers if convert else plan.packers
    return _convert_roots("argument", plan.slots.labels, packers, values)


def unpack(abi: AbiSource, results: SequenceABC[Any]) -> Any:
    """Re-assemble a function's results per the `r` records of ``abi``: an inlined
    structured result from its items; `sdict` → dict, `slist` → list, `stuple` → tuple;
    0 results → None, 1 → the value, more → a tuple."""
    plan = _v1_plan(abi)
    if plan.inlined_items is not None:
        items = _results_list(results, plan.inlined_items)
        return _convert_roots("result", (0,), plan.unpackers, (items,))[0]
    values = _results_list(results, len(plan.unpackers))
    return _collect(_convert_roots("result", plan.result_labels, plan.unpackers, values))


# --------------------------------------------------------------------------------------
# Legacy: raw `f` + SIP `sip`.
# --------------------------------------------------------------------------------------

Scatter = Callable[[Any, list[Any]], None]
Gather = Callable[[SequenceABC[Any]], Any]


def _scatter(node: Node | None, types: tuple[ValueType, ...], converting: bool) -> Scatter:
    """Python value → its leaves, each written to its flat index."""
    if node is None:
        return lambda value, flat: _check_gap(value)
    if isinstance(node, Leaf):
        index = node.index
        convert = _value_converter(
            types[index], unpacking=False, opaque_refs=True, convert=converting
        )

        def scatter_leaf(value: Any, flat: list[Any]) -> None:
            flat[index] = convert(value)

        return scatter_leaf
    keyed = slots(node)
    keys = [key for key, _ in keyed]
    scatters = [_scatter(child, types, converting) for _, child in keyed]
    dict_keys = tuple(str(key) for key in keys) if isinstance(node, Dict) else None

    def scatter_structure(value: Any, flat: list[Any]) -> None:
        if dict_keys is None:
            items: SequenceABC[Any] = _sequence_of(value, len(scatters))
        else:
            items = _mapping_values(value, dict_keys)
        done = 0
        try:
            for scatter, item in zip(scatters, items, strict=True):
                scatter(item, flat)
                done += 1
        except _Mismatch as mismatch:
            mismatch.reversed_path.append(keys[done])
            raise

    return scatter_structure


def _gather(node: Node | None, types: tuple[ValueType, ...]) -> Gather:
    """Flat results → the value at ``node``: sequences as tuples (§3.2), dicts as dicts."""
    if node is None:
        return lambda flat: None
    if isinstance(node, Leaf):
        index = node.index
        convert = _value_converter(types[index], unpacking=True, opaque_refs=True)
        return lambda flat: convert(flat[index])
    keyed = slots(node)
    keys = [key for key, _ in keyed]
    gathers = [_gather(child, types) for _, child in keyed]

    def gather_items(flat: SequenceABC[Any]) -> list[Any]:
        out: list[Any] = []
        append = out.append
        try:
            for gather in gathers:
                append(gather(flat))
        except _Mismatch as mismatch:
            mismatch.reversed_path.append(keys[len(out)])
            raise
        return out

    if isinstance(node, Dict):
        return lambda flat: dict(zip(keys, gather_items(flat), strict=True))
    return lambda flat: tuple(gather_items(flat))


@dataclass(frozen=True)
class _LegacyPlan:
    slots: _Slots
    scatters: list[Scatter]
    converting_scatters: list[Scatter]  # pack_legacy(..., convert=True)
    input_count: int
    result_labels: tuple[IndexPathComponent, ...]
    gathers: list[Gather]
    result_count: int
    collect: bool  # a sequence results root collects like several results


def _root_children(root: Node | None) -> list[tuple[IndexPathComponent, Node | None]]:
    if root is None:
        return []
    if isinstance(root, Leaf):
        return [(0, root)]
    return slots(root)


def _check_leaf_indices(side: str, root: Node | None, count: int) -> None:
    found = sorted(leaf.index for leaf in leaves(root)) if root is not None else []
    if found != list(range(count)):
        raise AbiError(f"sip {side} leaf indices {found} do not match the {count} raw {side} of f")


def _describe_legacy(node: Node | None, types: tuple[ValueType, ...]) -> str:
    """`describe` for a SIP node, whose leaves are typed by the raw signature."""
    if isinstance(node, Leaf):
        return _describe_type(types[node.index])
    return describe(node)


def _first_leaf_index(node: Node | None, otherwise: int) -> int:
    found = leaves(node) if node is not None else []
    return min((leaf.index for leaf in found), default=otherwise)


def _legacy_plan(flat: FlatSignature, sip: SipSignature) -> _LegacyPlan:
    _check_leaf_indices("inputs", sip.inputs, len(flat.inputs))
    _check_leaf_indices("results", sip.results, len(flat.results))
    inputs = _root_children(sip.inputs)
    if isinstance(sip.inputs, Dict):
        # Named arguments may also be given positionally, in the function's argument
        # order (as in V1, where that is the record order): the order of each argument's
        # first raw index; an empty structure (no leaves) after the others, by key.
        inputs.sort(key=lambda item: _first_leaf_index(item[1], len(flat.inputs)))
        labels = tuple(key for key, _ in inputs)
        by_name = {str(key): i for i, key in enumerate(labels)}
    else:
        labels = tuple(key for key, _ in inputs)
        by_name = {}

    def expected(slot: int) -> str:
        return _describe_legacy(inputs[slot][1], flat.inputs)

    slots = _Slots(labels, len(labels), by_name, expected)
    scatters = [_scatter(child, flat.inputs, False) for _, child in inputs]
    converting = [_scatter(child, flat.inputs, True) for _, child in inputs]
    results = _root_children(sip.results)
    if isinstance(sip.results, Dict):
        gathers = [_gather(sip.results, flat.results)]
        result_labels: tuple[IndexPathComponent, ...] = ()
    else:
        gathers = [_gather(child, flat.results) for _, child in results]
        result_labels = tuple(key for key, _ in results)
    return _LegacyPlan(
        slots,
        scatters,
        converting,
        len(flat.inputs),
        result_labels,
        gathers,
        len(flat.results),
        isinstance(sip.results, Sequence),
    )


def pack_legacy(
    f: str | bytes | FlatSignature,
    sip: str | bytes | SipSignature,
    /,
    *args: Any,
    convert: bool = False,
    **kwargs: Any,
) -> list[Any]:
    """Bind ``args``/``kwargs`` to the SIP input root (a sequence root binds positional
    values; a dict root's named arguments are given by keyword or positionally, in
    argument order) and return the flat leaf list, each leaf at its raw index and
    checked against its raw type. ``convert`` as for `pack`."""
    plan = _legacy_plan_for(f, sip)
    values = plan.slots.bind(args, kwargs)
    flat: list[Any] = [None] * plan.input_count
    scatters = plan.converting_scatters if convert else plan.scatters
    for label, scatter, value in zip(plan.slots.labels, scatters, values, strict=True):
        try:
            scatter(value, flat)
        except _Mismatch as mismatch:
            raise _error("argument", label, mismatch) from None
    return flat


def unpack_legacy(
    f: str | bytes | FlatSignature, sip: str | bytes | SipSignature, results: SequenceABC[Any]
) -> Any:
    """Rebuild the SIP result structure from the flat result list: a sequence root gives
    a tuple (several results), a dict root a dict, a leaf root the value, an empty root
    None."""
    plan = _legacy_plan_for(f, sip)
    flat = _results_list(results, plan.result_count)
    if not plan.result_labels:  # empty, or a dict root
        try:
            return plan.gathers[0](flat) if plan.gathers else None
        except _Mismatch as mismatch:
            key = mismatch.reversed_path.pop()
            raise _error("result", key, mismatch) from None
    values = []
    for label, gather in zip(plan.result_labels, plan.gathers, strict=True):
        try:
            values.append(gather(flat))
        except _Mismatch as mismatch:
            raise _error("result", label, mismatch) from None
    return tuple(values) if plan.collect else values[0]


# --------------------------------------------------------------------------------------
# Decoding and plan caches. Texts are decoded once (LRU by text); plans are cached by the
# model objects they are built from: by identity first (a runtime passes the same decoded
# signature on every call, and hashing a large frozen model costs as much as planning),
# then by value (frozen, hashable dataclasses: an equal signature decoded again finds the
# plan too).
# --------------------------------------------------------------------------------------


class _PlanCache:
    """Plans keyed by the model objects they are built from. Bounded: emptied when full,
    as the text caches below. The identity table holds its objects, so an id is never
    reused while it is cached."""

    def __init__(self, limit: int = 256) -> None:
        self._by_identity: dict[tuple[int, ...], tuple[tuple[Any, ...], Any]] = {}
        self._by_value: dict[tuple[Any, ...], Any] = {}
        self._limit = limit

    def get(self, objects: tuple[Any, ...], build: Callable[..., Any]) -> Any:
        ids = tuple(map(id, objects))
        entry = self._by_identity.get(ids)
        if entry is not None and all(map(operator.is_, entry[0], objects)):
            return entry[1]
        try:
            plan = self._by_value.get(objects)
        except TypeError:  # a hand-built model holding lists is not hashable: no caching
            return build(*objects)
        if plan is None:
            plan = build(*objects)
            if len(self._by_value) >= self._limit:
                self._by_value.clear()
            self._by_value[objects] = plan
        if len(self._by_identity) >= self._limit:
            self._by_identity.clear()
        self._by_identity[ids] = (objects, plan)
        return plan


_v1_plans = _PlanCache()
_legacy_plans = _PlanCache()


@functools.lru_cache(maxsize=256)
def _decode_json_text(text: str) -> Signature:
    from abi_compiler.codecs.json_abi import decode_json

    return decode_json(text)


@functools.lru_cache(maxsize=256)
def _decode_raw_text(text: str | bytes) -> FlatSignature:
    from abi_compiler.codecs.raw import decode_raw

    return decode_raw(text)


@functools.lru_cache(maxsize=256)
def _decode_sip_text(text: str | bytes) -> SipSignature:
    from abi_compiler.codecs.sip import decode_sip

    return decode_sip(text)


def _signature(abi: AbiSource) -> Signature:
    if isinstance(abi, Signature):
        return abi
    if isinstance(abi, bytes):
        try:
            abi = abi.decode("utf-8")
        except UnicodeDecodeError as error:
            raise AbiError("invalid UTF-8", offset=error.start) from None
    if isinstance(abi, str):
        return _decode_json_text(abi)
    if isinstance(abi, Mapping):
        try:
            text = json.dumps(abi, separators=(",", ":"), sort_keys=True)
        except (TypeError, ValueError, RecursionError) as error:
            # Not JSON data: another type, a circular reference, nesting too deep.
            raise AbiError(f"the iree.abi mapping is not JSON data: {error}") from None
        return _decode_json_text(text)
    raise AbiError(f"expected an iree.abi JSON text, dict or Signature, got {_type_name(abi)}")


_text_plans: dict[str, _CallPlan] = {}  # the common case: the same text on every call
_MAX_TEXT_PLANS = 256


def _v1_plan(abi: AbiSource) -> _CallPlan:
    if type(abi) is str:
        plan = _text_plans.get(abi)
        if plan is not None:
            return plan
    plan = cast(_CallPlan, _v1_plans.get((_signature(abi),), _call_plan))
    if type(abi) is str:
        if len(_text_plans) >= _MAX_TEXT_PLANS:
            _text_plans.clear()
        _text_plans[abi] = plan
    return plan


_text_legacy_plans: dict[tuple[str | bytes, str | bytes], _LegacyPlan] = {}


def _legacy_plan_for(
    f: str | bytes | FlatSignature, sip: str | bytes | SipSignature
) -> _LegacyPlan:
    if not isinstance(f, (str, bytes, FlatSignature)):
        raise AbiError(
            f"expected a raw signature f (str, bytes or FlatSignature), got {_type_name(f)}"
        )
    if not isinstance(sip, (str, bytes, SipSignature)):
        raise AbiError(
            f"expected a sip signature (str, bytes or SipSignature), got {_type_name(sip)}"
        )
    if isinstance(f, (str, bytes)) and isinstance(sip, (str, bytes)):
        plan = _text_legacy_plans.get((f, sip))
        if plan is None:
            plan = _cached_legacy_plan(_decode_raw_text(f), _decode_sip_text(sip))
            if len(_text_legacy_plans) >= _MAX_TEXT_PLANS:
                _text_legacy_plans.clear()
            _text_legacy_plans[(f, sip)] = plan
        return plan
    flat = f if isinstance(f, FlatSignature) else _decode_raw_text(f)
    structure = sip if isinstance(sip, SipSignature) else _decode_sip_text(sip)
    return _cached_legacy_plan(flat, structure)


def _cached_legacy_plan(flat: FlatSignature, structure: SipSignature) -> _LegacyPlan:
    return cast(_LegacyPlan, _legacy_plans.get((flat, structure), _legacy_plan))
