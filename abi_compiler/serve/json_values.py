"""JSON ↔ the values of a compiled function's original call (docs/serving.md, "Values as
JSON"): a request's ``{"args": […], "kwargs": {…}}`` read by the function's recorded call
(`abi.call`, else its `iree.abi` records) into the Python values `Function.__call__`
takes, and a result written back as JSON.

Guided by the records only where JSON cannot say what a value is (a JSON object is an
array in the ``{"dtype", "shape", "data"}`` form where the call has an array, a
namedtuple's or dataclass's fields where it has one, a dict elsewhere); what the values
must be — dtypes, shapes, keys, counts — is checked by the function's own call plan, so
a wrong value gets the same `AbiError`, with the same path, as from Python."""

from __future__ import annotations

import base64
import binascii
import dataclasses
import math
import types
from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

import numpy as np

from abi_compiler.call_model import Array, CallNode, Constant, NoneLeaf, Unused
from abi_compiler.calling.mismatch import Field, Label, Mismatch, keys_text, type_name
from abi_compiler.dtypes import ELEMENT_TYPES
from abi_compiler.errors import AbiError
from abi_compiler.model import Dict, IndexPathComponent, Leaf, Node, Sequence
from abi_compiler.signatures.module_signatures import FunctionSignature

__all__ = [
    "ARRAY_FORM_KEYS",
    "DTYPES",
    "Encoding",
    "Request",
    "decode_array",
    "encode_array",
    "encode_value",
    "read_request",
]

#: The keys of an array given as its bytes.
ARRAY_FORM_KEYS = frozenset({"dtype", "shape", "data"})

#: The dtypes an array may have as its bytes: the element types IREE's runtime takes, and
#: the complex types a result may hold (numpy names; ``bfloat16`` from ml_dtypes).
DTYPES = frozenset({t.numpy for t in ELEMENT_TYPES.values()} | {"complex64", "complex128"})

#: How a response writes its arrays: nested lists (numbers), or each as its bytes.
Encoding = Literal["lists", "base64"]

#: The members a function request may have.
_REQUEST_KEYS = ("args", "kwargs", "encoding")

#: What a node of the records or of the original call is (None: unknown, any value).
Described: TypeAlias = "CallNode | Node | None"


@dataclasses.dataclass(frozen=True)
class Request:
    """A function request read: the call's values and how the result is to be written."""

    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    encoding: Encoding


def read_request(body: object, function: FunctionSignature) -> Request:
    """The call a request's JSON ``body`` makes of ``function``; an `AbiError` for a body
    that is not a request, or a value that is not a value of its kind (an array's bytes
    that do not fill its shape), with the argument's path."""
    if not isinstance(body, dict):
        raise AbiError(
            f'expected a JSON object {{"args": [...], "kwargs": {{...}}}}, got {_json_kind(body)}'
        )
    unknown = sorted(set(body) - set(_REQUEST_KEYS))
    if unknown:
        raise AbiError(
            f"unknown member {unknown[0]!r} in the request (its members: "
            f"{', '.join(map(repr, _REQUEST_KEYS))})"
        )
    args, kwargs = body.get("args", []), body.get("kwargs", {})
    if not isinstance(args, list):
        raise AbiError(
            f'"args": expected an array of the positional values, got {_json_kind(args)}'
        )
    if not isinstance(kwargs, dict):
        raise AbiError(f'"kwargs": expected an object of keyword values, got {_json_kind(kwargs)}')
    encoding = body.get("encoding", "lists")
    if encoding not in ("lists", "base64"):
        raise AbiError(f'"encoding": expected "lists" or "base64", got {encoding!r}')
    positional, keywords, labels = _roots(function)
    values = []
    for position, value in enumerate(args):
        label = labels[position] if position < len(labels) else position
        node = positional[position] if position < len(positional) else None
        if node is None and position >= len(positional):
            extra = position - len(positional)
            names = list(keywords)
            node = keywords[names[extra]] if extra < len(names) else None
        values.append(_argument(node, value, label))
    named = {
        name: _argument(keywords.get(name), value, Label(name)) for name, value in kwargs.items()
    }
    return Request(tuple(values), named, encoding)


def _roots(
    function: FunctionSignature,
) -> tuple[list[Described], dict[str, Described], list[IndexPathComponent]]:
    """The nodes of the positional and keyword roots, and the positional roots' labels."""
    call = function.call
    if call is not None:
        labels = call.labels or (None,) * len(call.positional)
        return (
            list(call.positional),
            dict(call.keywords),
            [Label(label) if label is not None else i for i, label in enumerate(labels)],
        )
    arguments = function.signature.arguments
    untyped = function.source == "type"  # no reflection: positional values, nothing known
    positional: list[Described] = [None if untyped else a.node for a in arguments if a.name is None]
    keywords: dict[str, Described] = {a.name: a.node for a in arguments if a.name is not None}
    return positional, keywords, list(range(len(positional)))


def _argument(node: Described, value: Any, label: IndexPathComponent) -> Any:
    try:
        return _value(node, value)
    except Mismatch as mismatch:
        raise mismatch.error("argument", label) from None


def _value(node: Described, value: Any) -> Any:
    """``value`` (JSON) as the Python value the call takes where ``node`` is."""
    if isinstance(node, (Array, Unused, Leaf)) or node is None:
        if isinstance(value, dict) and set(value) == ARRAY_FORM_KEYS:
            return decode_array(value)
        return value
    if isinstance(node, (NoneLeaf, Constant)):
        return value
    if isinstance(node, Sequence):
        return _items(node.items, value)
    if isinstance(node, Dict):
        return _members(dict(node.items), value)
    if node.kind in ("dict", "model_output"):
        return _members(dict(zip(node.keys, node.children, strict=True)), value)
    fields = [str(key) for key in node.keys] if node.kind != "tuple" else []
    if fields and isinstance(value, dict):
        if sorted(value) != sorted(fields):
            raise Mismatch(
                f"expected the fields {keys_text(fields)} of {node.name or node.kind}, got "
                f"keys {keys_text(list(value))}"
            )
        children = dict(zip(fields, node.children, strict=True))
        return types.SimpleNamespace(**_members(children, value, fields=True))
    return _items(node.children, value)


def _items(children: tuple[Described, ...], value: Any) -> Any:
    if not isinstance(value, list) or len(value) != len(children):
        return value  # (the call plan says what it expected)
    found = []
    for position, (child, item) in enumerate(zip(children, value, strict=True)):
        try:
            found.append(_value(child, item))
        except Mismatch as mismatch:
            raise mismatch.inside(position) from None
    return found


def _members(children: Mapping[Any, Described], value: Any, fields: bool = False) -> Any:
    """A JSON object's members under the recorded keys (a dict's integer key is written
    as its decimal string in JSON); a member no key names is kept for the call plan to
    refuse. ``fields``: the keys are a namedtuple's or dataclass's fields (``.name`` in a
    path)."""
    if not isinstance(value, dict):
        return value
    by_text: dict[str, IndexPathComponent] = {str(key): key for key in children}
    found: dict[Any, Any] = {}
    for text, item in value.items():
        key: IndexPathComponent = by_text.get(text, text)  # type: ignore[assignment]
        try:
            found[key] = _value(children.get(key), item) if key in children else item
        except Mismatch as mismatch:
            raise mismatch.inside(Field(key) if fields else key) from None
    return found


def decode_array(value: Mapping[str, Any]) -> Any:
    """An array given as its bytes: ``{"dtype": "float32", "shape": [2, 3], "data":
    base64}``, the data little-endian in row-major order; a `Mismatch` for anything else."""
    dtype, shape, data = value["dtype"], value["shape"], value["data"]
    if not isinstance(dtype, str) or dtype not in DTYPES:
        raise Mismatch(f'"dtype": expected one of {", ".join(sorted(DTYPES))}, got {dtype!r}')
    if not isinstance(shape, list) or not all(
        isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape
    ):
        raise Mismatch(f'"shape": expected a list of sizes (integers >= 0), got {shape!r}')
    if not isinstance(data, str):
        raise Mismatch(f'"data": expected a base64 string, got {_json_kind(data)}')
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise Mismatch('"data": not base64') from None
    element = _numpy_dtype(dtype)
    count = math.prod(shape)
    if len(raw) != count * element.itemsize:
        raise Mismatch(
            f'"data": {len(raw)} bytes, the shape {shape} of {dtype} takes '
            f"{count * element.itemsize}"
        )
    array = np.frombuffer(bytearray(raw), element).reshape(shape)
    return array if element.isnative else array.astype(element.newbyteorder("="))


def _numpy_dtype(name: str) -> Any:
    """The dtype of ``name``, little-endian (as the data is)."""
    if name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    little = np.dtype(name).newbyteorder("<")
    return little if little != np.dtype(name) else np.dtype(name)


def encode_array(array: Any) -> dict[str, Any]:
    """An array as its bytes (`decode_array`'s form)."""
    array = np.asarray(array)
    name = array.dtype.name
    little = (
        array.astype(array.dtype.newbyteorder("<"), copy=False) if name != "bfloat16" else array
    )
    data = base64.b64encode(np.ascontiguousarray(little).tobytes()).decode("ascii")
    return {"dtype": name, "shape": list(array.shape), "data": data}


def encode_value(value: Any, encoding: Encoding = "lists") -> Any:
    """A result as JSON: an array as nested lists of numbers (or as its bytes with
    ``"base64"``, and always for complex numbers, NaN and infinities, which JSON's numbers
    cannot hold); a tuple or list as an array; a dict, namedtuple, dataclass or model
    output as an object (keys as strings); None as null."""
    if isinstance(value, (np.ndarray, np.generic)):
        if encoding == "base64" or not _fits_json(value):
            return encode_array(value)
        if value.dtype.kind == "V" or value.dtype.name == "float16":  # bfloat16, float16
            value = np.asarray(value, np.float32)
        return value.tolist()
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else encode_array(np.float64(value))
    if hasattr(value, "_fields"):  # a namedtuple
        return {
            name: encode_value(item, encoding)
            for name, item in zip(value._fields, value, strict=True)
        }
    if isinstance(value, Mapping):
        return {str(key): encode_value(item, encoding) for key, item in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: encode_value(getattr(value, f.name), encoding)
            for f in dataclasses.fields(value)
        }
    if isinstance(value, (tuple, list)):
        return [encode_value(item, encoding) for item in value]
    array = np.asarray(value)  # a framework's tensor or IREE's device array
    if array.dtype.hasobject:
        raise AbiError(f"cannot write a result of type {type_name(value)} as JSON")
    return encode_value(array, encoding)


def _fits_json(array: Any) -> bool:
    kind = array.dtype.kind
    if kind == "c":
        return False
    if kind in "fV":
        return bool(np.isfinite(np.asarray(array, np.float64)).all())
    return True


def _json_kind(value: object) -> str:
    """A JSON value's kind, for messages."""
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    kinds = {
        dict: "an object",
        list: "an array",
        str: "a string",
        int: "a number",
        float: "a number",
    }
    return kinds.get(type(value), type_name(value))
