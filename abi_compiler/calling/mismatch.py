"""The caller's side's one value-path error and how its messages describe values.

Every converter of `abi_compiler.calling` (the pure packing of `marshal` and
`leaf_values`, the VM converters of `vm` and `vm_arrays`, the original call's
`original_call` and `call_leaves`) raises `Mismatch` for a value that does not fit; each
container level on the way out adds its key to the mismatch's path (`Mismatch.reversed_path`,
appended to in place, so paths cost nothing unless something is wrong), and the level that
knows the root turns it into the `AbiError` users see with `Mismatch.error` (``argument
'x'[0]['b']: expected float32[2,4], got int64[2]``; docs/calling.md, "Values"). The
helpers below write the parts of those messages, and check a structure's shape (a
sequence of n values, a dict with exactly these keys).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from collections.abc import Sequence as SequenceABC
from typing import Any, cast

from abi_compiler.dtypes import (
    BUFFER_FORMAT_KINDS,
    NUMERIC_KINDS,
    numpy_dtype_name,
    scalar_for_numpy,
    scalar_name,
)
from abi_compiler.errors import AbiError
from abi_compiler.model import (
    Dict,
    IndexPathComponent,
    Leaf,
    ListRef,
    NDArray,
    Node,
    Scalar,
    Sequence,
    ValueType,
)


def plural(count: int, noun: str) -> str:
    """``1 value``, ``2 values``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


# --------------------------------------------------------------------------------------
# Errors: converters raise `Mismatch`; each container level adds its key on the way out,
# so paths cost nothing unless something is wrong.
# --------------------------------------------------------------------------------------


class Mismatch(Exception):
    """A value that does not fit: ``message``, and the path to it from its root, which
    each level adds on the way out (``reversed_path``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.reversed_path: list[IndexPathComponent] = []

    def inside(self, *path: IndexPathComponent) -> Mismatch:
        """The one way a level adds to the path: the value that does not fit is at ``path``
        (outermost first) inside the value this level checks. Returns the mismatch, to
        re-raise."""
        self.reversed_path.extend(reversed(path))
        return self

    def error(self, side: str, root: IndexPathComponent) -> AbiError:
        """The `AbiError`: ``<side> <root><path>: <message>``."""
        path = format_path(side, root, self.reversed_path[::-1])
        return AbiError(f"{path}: {self.message}")


class Field(str):
    """A path component that is an attribute (a namedtuple's or dataclass's field):
    written ``.name``."""

    __slots__ = ()


class Label(str):
    """A root that is a parameter's name: written as it is (``argument params``)."""

    __slots__ = ()


def format_path(side: str, root: IndexPathComponent, path: SequenceABC[IndexPathComponent]) -> str:
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


def type_name(value: object) -> str:
    return "None" if value is None else type(value).__name__


def show_int(number: int) -> str:
    """An int for a message: Python refuses to print one of more than 4300 digits."""
    bits = abs(number).bit_length()
    if bits > 4096:
        return f"{'-' if number < 0 else ''}<an integer of {bits} bits>"
    return str(number)


def show_value(value: object) -> str:
    """A caller's value for a message: its ``repr``, an int of more than 4300 digits by
    `show_int`, and a value whose ``repr`` Python refuses (one holding such an int) by
    its type."""
    if isinstance(value, int) and not isinstance(value, bool):
        return show_int(value)
    try:
        return repr(value)
    except ValueError:  # "Exceeds the limit (4300 digits) for integer string conversion"
        return f"a {type_name(value)} (too long to show)"


def keys_text(keys: SequenceABC[object]) -> str:
    return ", ".join(show_value(key) for key in keys)


# The most keys a message lists (a dict of thousands of keys would flood it).
KEYS_SHOWN = 16


def keys_list(keys: SequenceABC[object]) -> str:
    """``['bias', 'kernel']``; a long list is cut (``…, and 990 more``)."""
    shown = ", ".join(show_value(key) for key in keys[:KEYS_SHOWN])
    if len(keys) > KEYS_SHOWN:
        shown += f", … and {len(keys) - KEYS_SHOWN} more"
    return f"[{shown}]"


def dims_text(dims: SequenceABC[int | None]) -> str:
    """``[2,?,4]``: dims as in ``float32[2,?,4]``."""
    return "[" + ",".join("?" if dim is None else show_int(dim) for dim in dims) + "]"


def describe_type(value_type: ValueType | None) -> str:
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
            return f"a {name} array of any rank" if dims is None else f"{name}{dims_text(dims)}"
        kind = "a reference array" if isinstance(element, ListRef) else "an array"
        return f"{kind} of any rank" if dims is None else f"{kind} of shape {dims_text(dims)}"
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
        return describe_type(node.type)
    if isinstance(node, Sequence):
        return f"a sequence of {plural(len(node.items), 'value')}"
    if isinstance(node, Dict):
        keys = [key for key, _ in node.items]
        return f"a dict with keys {keys_list(keys)}" if keys else "a dict with no keys"
    return describe_type(node)


def describe_shaped(value: Any, shape: tuple[int, ...]) -> str:
    """What an array-like value of ``shape`` is, as call errors say it: ``float64[4,2]``,
    ``lists of shape [4,2]``, ``float`` (a number)."""
    dims = dims_text(shape)
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
        return f"{type_name(value)} of shape {dims}" if shape else type_name(value)
    if isinstance(value, memoryview):
        kind = buffer_kind(value)
        if kind is None:
            return f"a memoryview of format {value.format!r} and shape {dims}"
        scalar = scalar_for_numpy("", kind, value.itemsize)
        assert scalar is not None  # (the kinds of `_FORMAT_KINDS`)
        return f"{numpy_dtype_name(scalar)}{dims}"
    if isinstance(value, (list, tuple)):
        return f"lists of shape {dims}"
    if not shape:
        return type_name(value)
    return f"{type_name(value)} of shape {dims}"


def buffer_kind(view: memoryview) -> str | None:
    """The dtype kind of a memoryview's elements (None: not numbers)."""
    code = view.format.lstrip("@=<>!")
    return BUFFER_FORMAT_KINDS.get(code) if len(code) == 1 else None


# --------------------------------------------------------------------------------------
# Shared checks.
# --------------------------------------------------------------------------------------

_NOT_SEQUENCES = (str, bytes, bytearray, memoryview)


def is_sequence(value: object) -> bool:
    cls = type(value)
    if cls is list or cls is tuple:
        return True
    return isinstance(value, SequenceABC) and not isinstance(value, _NOT_SEQUENCES)


def sequence_of(value: Any, count: int) -> SequenceABC[Any]:
    if not is_sequence(value):
        raise Mismatch(f"expected a sequence of {plural(count, 'value')}, got {type_name(value)}")
    if len(value) != count:
        raise Mismatch(f"expected a sequence of {plural(count, 'value')}, got {len(value)}")
    return cast(SequenceABC[Any], value)


def mapping_values(value: Any, keys: tuple[str, ...]) -> list[Any]:
    """The values of a mapping with exactly ``keys``, in that order; a namedtuple or a
    dataclass instance whose fields are exactly ``keys`` stands for one (docs/spec.md §10: JAX's
    `.field` paths come from such objects)."""
    if type(value) is dict and len(value) == len(keys):
        try:
            return [value[key] for key in keys]
        except KeyError:
            pass  # diagnosed below
    expected = f"a dict with keys {keys_list(keys)}" if keys else "a dict with no keys"
    if not isinstance(value, Mapping):
        fields = field_names(value)
        if fields is None:
            raise Mismatch(f"expected {expected}, got {type_name(value)}")
        if sorted(fields) != sorted(keys):
            got = f"{type_name(value)} with fields {keys_list(fields)}"
            raise Mismatch(f"expected {expected}, got {got}{key_difference(keys, fields)}")
        return [getattr(value, key) for key in keys]
    if len(value) != len(keys) or any(key not in value for key in keys):
        got = f"keys {keys_list(list(value))}" if len(value) else "no keys"
        raise Mismatch(f"expected {expected}, got {got}{key_difference(keys, list(value))}")
    return [value[key] for key in keys]


def field_names(value: Any) -> tuple[str, ...] | None:
    """The field names of a namedtuple or a dataclass instance (None for other values)."""
    fields = getattr(type(value), "_fields", None)
    if isinstance(value, tuple) and isinstance(fields, tuple):
        return fields
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return tuple(field.name for field in dataclasses.fields(value))
    return None


def key_difference(expected: SequenceABC[str], got: SequenceABC[object]) -> str:
    """What a cut key list may hide: `` (missing 'b'; unexpected 'c')``."""
    if len(expected) <= KEYS_SHOWN and len(got) <= KEYS_SHOWN:
        return ""
    given = set(got)
    missing = [key for key in expected if key not in given]
    known = set(expected)
    extra = [key for key in got if key not in known]
    parts = [f"missing {keys_list(missing)}"] if missing else []
    parts += [f"unexpected {keys_list(extra)}"] if extra else []
    return f" ({'; '.join(parts)})" if parts else ""


def check_gap(value: Any) -> None:
    if value is not None:
        raise Mismatch(f"expected None (a gap in the structure), got {type_name(value)}")
