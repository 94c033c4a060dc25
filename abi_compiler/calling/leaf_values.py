"""Leaf values: the converters `pack` and `unpack` check (and normalize) one leaf value
with, by its type: ints and floats in range, arrays of the right dtype and shape (numpy
arrays, torch tensors, objects with ``__array__``, memoryviews and nested lists), reference
arrays and lists (docs/calling.md, "`abi_compiler.runtime`: value rules and errors").
numpy is never imported. Every problem is a `Mismatch` (`abi_compiler.calling.mismatch`).
"""

from __future__ import annotations

import math
import numbers
import operator
import struct
import sys
from collections.abc import Callable
from collections.abc import Sequence as SequenceABC
from typing import Any, cast

from abi_compiler.calling.mismatch import (
    Mismatch,
    buffer_kind,
    describe_shaped,
    describe_type,
    dims_text,
    is_sequence,
    sequence_of,
    show_int,
    type_name,
)
from abi_compiler.dtypes import (
    NUMPY_KINDS,
    array_acceptance,
    float_limit,
    int_range,
    numpy_dtype_name,
    scalar_name,
    taken_dtypes,
    takes_bools,
)
from abi_compiler.model import (
    ListRef,
    NDArray,
    Scalar,
    ValueType,
)

Converter = Callable[[Any], Any]


def leaf_packer(
    value_type: ValueType | None, convert: bool, *, raw: bool = False
) -> Callable[[Any], Any]:
    """The converter `pack` (``raw``: `pack_legacy`, a leaf typed by the raw signature)
    checks (and normalizes) one leaf value of ``value_type`` with; it raises `Mismatch`."""
    return value_converter(value_type, unpacking=False, opaque_refs=raw, convert=convert)


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
            raise Mismatch(f"{expected}, got bool (convert=True converts it)")
        else:
            try:
                number = int(operator.index(value))
            except TypeError:
                if not _is_bool_scalar(value):
                    raise Mismatch(f"{expected}, got {type_name(value)}") from None
                number = int(bool(value))
        if not lowest <= number <= highest:
            raise Mismatch(f"value {show_int(number)} does not fit in {name}")
        return bool(number) if scalar.width == 1 else number

    return convert_int


def _float_converter(scalar: Scalar, convert: bool, raw: bool) -> Converter:
    name = scalar_name(scalar)
    limit = float_limit(scalar)
    bools = convert or takes_bools(scalar, raw=raw)

    def too_large(value: Any, number: float) -> Mismatch:
        shown = show_int(value) if isinstance(value, int) else repr(number)
        return Mismatch(f"value {shown} does not fit in {name}")

    def convert_float(value: Any) -> float:
        cls = type(value)
        if cls is float:
            if -limit < value < limit or not math.isfinite(value):
                return cast(float, value)
            raise too_large(value, value)
        if cls is not int:
            if cls is bool or _is_bool_scalar(value):  # (numpy's bool is no `numbers.Real`)
                if not bools:
                    raise Mismatch(
                        f"expected a float ({name}), got bool (convert=True converts it)"
                    )
                return float(bool(value))
            if not isinstance(value, numbers.Real):
                raise Mismatch(f"expected a float ({name}), got {type_name(value)}")
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

    def wrong(value: Any, hint: str = "") -> Mismatch:
        got = describe_shaped(value, tuple(getattr(value, "shape", ())))
        return Mismatch(f"expected {expected}, got {got}{hint}")

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
            raise Mismatch(
                f"cannot convert an array of dtype {getattr(dtype, 'name', dtype)} to "
                f"{wanted}: {error}"
            ) from None

    def check_buffer(view: memoryview) -> Any:
        """A memoryview's elements have a type too (its struct ``format``)."""
        kind = buffer_kind(view)
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
            raise Mismatch(f"expected {expected}, got ragged nested lists")
        if len(shape) == MAX_RANK:  # also a list that contains itself
            raise Mismatch(f"expected {expected}, got lists nested deeper than {MAX_RANK} levels")
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
        raise Mismatch(f"expected {expected}, got lists of shape {dims_text(shape)}")
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


def host_tensor(value: Any, expected: str) -> Any:
    """`torch_array` for a leaf converter: its refusal is a mismatch."""
    try:
        return torch_array(value)
    except TypeError as error:
        raise Mismatch(f"expected {expected}, got {error}") from None


def _shape_attribute(value: Any, expected: str) -> Any:
    """A value's ``.shape`` (None: it has none); a mismatch when reading it raises."""
    try:
        return getattr(value, "shape", None)
    except Exception as error:  # whatever the object raises
        raise Mismatch(
            f"expected {expected}, {type_name(value)}.shape raised {type(error).__name__}: {error}"
        ) from None


def array_shape(
    value: Any, expected: str, dims: tuple[int | None, ...] | None = None
) -> tuple[int, ...]:
    shape = _shape_attribute(value, expected)
    if shape is not None and not isinstance(value, (list, tuple)):
        try:
            return tuple(int(dim) for dim in shape)
        except (TypeError, ValueError):
            raise Mismatch(f"expected {expected}, got {type_name(value)}") from None
    if isinstance(value, (list, tuple)):
        return _nested_list_shape(value, dims, expected)
    if isinstance(value, numbers.Number):
        return ()
    raise Mismatch(f"expected {expected}, got {type_name(value)}")


def dunder_array(value: Any, expected: str) -> tuple[Any, tuple[int, ...]]:
    """A value `array_shape` refused: if it is an array only through ``__array__``, the
    array it gives and its shape (looked for only then: no cost for other arrays);
    otherwise the refusal again."""
    array = _as_array(value, expected)
    return array, array_shape(array, expected)


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
            raise Mismatch(
                f"expected {expected}, {type_name(value)}.__array__() raised "
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
        raise Mismatch(f"expected {expected}, got {describe_shaped(value, shape)}")


def _ndarray_checker(array: NDArray, dtype: Converter | None) -> Converter:
    """Rank and static dims; ``dtype`` (packing) checks or converts the element type."""
    dims = array.dims
    expected = describe_type(array)
    finish = dtype or _passthrough
    if dims is None:

        def convert_unranked(value: Any) -> Any:
            tensor = host_tensor(value, expected)
            if tensor is not None:
                value = tensor
            try:
                array_shape(value, expected)
            except Mismatch:
                value, _ = dunder_array(value, expected)
            return finish(value)

        return convert_unranked
    rank = len(dims)
    static = tuple((axis, dim) for axis, dim in enumerate(dims) if dim is not None)

    def convert(value: Any) -> Any:
        shape = _shape_attribute(value, expected)
        # fast path for numpy: a plain tuple of ints
        if type(shape) is not tuple or not all(type(size) is int for size in shape):
            tensor = host_tensor(value, expected)  # a torch.Size is not a plain tuple
            if tensor is not None:
                value = tensor
            try:
                shape = array_shape(value, expected)
            except Mismatch:
                value, shape = dunder_array(value, expected)
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
    except Mismatch as mismatch:
        mismatch.inside(*_multi_index(len(out), shape))
        raise
    return out


def _ref_array_packer(array: NDArray, element: Converter) -> Converter:
    """docs/spec.md §8.3: an ND-array of reference type travels as [values, dims]."""
    dims = array.dims
    expected = describe_type(array)

    def convert(value: Any) -> list[Any]:
        if hasattr(value, "shape") and hasattr(value, "tolist"):
            shape = array_shape(value, expected)
            nested = value.tolist()
        elif dims is None:
            raise Mismatch(
                "expected an array with a shape (an unranked reference array cannot be "
                f"nested lists), got {type_name(value)}"
            )
        else:
            shape = array_shape(value, expected, dims)
            nested = value
        _check_shape(value, shape, dims, expected)
        values = _convert_elements(_flatten(nested, shape), shape, element)
        return [values, list(shape)]

    return convert


def _dim(value: Any) -> int:
    try:
        dim = int(operator.index(value))
    except TypeError:
        raise Mismatch(f"expected a dim (a non-negative int), got {type_name(value)}") from None
    if dim < 0:
        raise Mismatch(f"expected a dim (a non-negative int), got {show_int(dim)}")
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
    expected = f"the dims {dims_text(dims)}" if dims is not None else ""

    def convert(value: Any) -> Any:
        values, sizes = sequence_of(value, 2)
        try:
            if not is_sequence(sizes):
                raise Mismatch(f"expected a sequence of dims, got {type_name(sizes)}")
            shape = tuple(_dim(size) for size in sizes)
            if dims is not None and (
                len(shape) != len(dims)
                or any(d is not None and d != n for d, n in zip(dims, shape, strict=True))
            ):
                raise Mismatch(f"expected {expected}, got {dims_text(shape)}")
        except Mismatch as mismatch:
            mismatch.inside(1)
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
                    raise Mismatch(
                        f"an empty reference array of shape {dims_text(shape)} would "
                        f"unpack to more than {MAX_EMPTY_LISTS} nested lists"
                    )
        try:
            # Paths follow the packed form: the position in the flat values list.
            converted = _convert_elements(sequence_of(values, count), (count,), element)
        except Mismatch as mismatch:
            mismatch.inside(0)
            raise
        return _reshape(converted, shape)

    return convert


def _list_converter(element: Converter) -> Converter:
    """`py_homogeneous_list`: any length, every element checked."""

    def convert(value: Any) -> list[Any]:
        if not is_sequence(value):
            raise Mismatch(f"expected a sequence, got {type_name(value)}")
        out: list[Any] = []
        append = out.append
        try:
            for item in value:
                append(element(item))
        except Mismatch as mismatch:
            mismatch.inside(len(out))  # the element that failed
            raise
        return out

    return convert


def value_converter(
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
            element = value_converter(
                element_type, unpacking=unpacking, opaque_refs=False, convert=convert
            )
            if unpacking:
                return _ref_array_unpacker(value_type, element)
            return _ref_array_packer(value_type, element)
        dtype = (
            _dtype_checker(element_type, convert, describe_type(value_type), raw=opaque_refs)
            if isinstance(element_type, Scalar) and not unpacking
            else None
        )
        return _ndarray_checker(value_type, dtype)
    if isinstance(value_type, ListRef) and not opaque_refs:
        return _list_converter(
            value_converter(
                value_type.element, unpacking=unpacking, opaque_refs=False, convert=convert
            )
        )
    return _passthrough  # Unknown, untyped, or an opaque legacy reference
