"""The V1 `iree.abi` JSON (IREE's Function ABI, "Reflection": docs/formats.md#upstream-documents;
docs/spec.md §4, §9).

``{"a":[<record per root argument>],"r":[<result records>],"v":1}`` where a record is

* ``"i<bits>"``, ``"f<bits>"``, ``"bf16"``, ``"unknown"``: a scalar or unmapped value;
* ``null``: an untyped value (``Leaf(None, …)``; IREE's runtime converts it dynamically)
  wherever a record stands, except in a sequence, where it is a gap;
* ``["ndarray", <element>, <rank>, <dim>...]``: a tensor; rank ``null`` (no dims) when
  unranked, a dim ``null`` when dynamic;
* ``["py_homogeneous_list", <element>]``: a `!util.list<T>`;
* ``["slist", <record or null>...]``, ``["stuple", ...]``: sequences, ``null`` a gap;
* ``["sdict", ["<key>", <record>]...]``: a dict, keys sorted;
* ``["named", "<name>", <record>]``: a named argument (root of ``a`` only).

Decoding validates every record kind and reports the byte offset of the offending value.
The fast path is `json.loads` (C) plus a walk over the result; only when the walk finds
a problem is the text re-scanned to turn the value's path into an offset.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any, Literal, NoReturn

from abi_compiler.errors import AbiError
from abi_compiler.model import (
    MAX_STRUCTURE_DEPTH,
    Argument,
    Dict,
    Leaf,
    ListRef,
    NDArray,
    Node,
    Scalar,
    Sequence,
    Signature,
    Unknown,
    ValueType,
)

# A record as Python's json module sees it: a string, None or a list.
Record = Any

# Nesting bound for records: keeps the validating walk (and the error-path re-scan)
# away from Python's recursion limit on hostile input. One level above the deepest value
# the passes accept, for the `named` record around it: what they write decodes.
MAX_JSON_DEPTH = MAX_STRUCTURE_DEPTH + 1
# MLIR's integer width limit; widths are written without leading zeros.
MAX_SCALAR_WIDTH = 16_777_215

_SCALAR_RECORD = re.compile(r"([if])([1-9][0-9]*)")

# ------------------------------------------------------------------------------------
# Encoding.
# ------------------------------------------------------------------------------------


def _scalar_record(t: Scalar) -> str:
    if t.width < 1:
        return "unknown"
    if t.kind in ("i", "si", "ui"):
        return f"i{t.width}"  # docs/spec.md §4.1: any signedness
    if t.kind == "f":
        return f"f{t.width}"
    return "bf16" if t.width == 16 else "unknown"


def record_for_type(t: ValueType | None) -> Record:
    """The record of a leaf type (docs/spec.md §4.1); ``None`` (untyped leaf) is ``null``."""
    if type(t) is Scalar:
        return _scalar_record(t)
    if type(t) is NDArray:
        element = t.element
        element_record = (
            _scalar_record(element) if type(element) is Scalar else record_for_type(element)
        )
        dims = t.dims
        if dims is None:
            return ["ndarray", element_record, None]
        return ["ndarray", element_record, len(dims), *dims]
    if type(t) is ListRef:
        return ["py_homogeneous_list", record_for_type(t.element)]
    return None if t is None else "unknown"


def record_for_node(node: Node | None) -> Record:
    """The record of a structure node; ``None`` (a gap) is ``null``."""
    if type(node) is Leaf:
        return record_for_type(node.type)
    if type(node) is Sequence:
        record: list[Any] = ["slist" if node.kind == "list" else "stuple"]
        record.extend([record_for_node(item) for item in node.items])
        return record
    if type(node) is Dict:
        record = ["sdict"]
        record.extend([[key, record_for_node(item)] for key, item in node.items])
        return record
    return None


def _argument_record(argument: Argument) -> Record:
    record = record_for_node(argument.node)
    if argument.name is None:
        return record
    return ["named", argument.name, record]


@functools.lru_cache(maxsize=1 << 10)  # pure; large modules repeat signatures
def encode_json(sig: Signature) -> str:
    """The ``iree.abi`` value: exactly docs/spec.md §4.2's compact, sorted, ASCII form."""
    document = {
        "a": [_argument_record(argument) for argument in sig.arguments],
        "r": [record_for_node(node) for node in sig.results],
        "v": 1,
    }
    return json.dumps(document, separators=(",", ":"), sort_keys=True, ensure_ascii=True)


# ------------------------------------------------------------------------------------
# Decoding.
# ------------------------------------------------------------------------------------


class _JsonObject:
    """A JSON object as decoded (pairs in text order, so duplicate keys stay visible)."""

    __slots__ = ("pairs",)

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        self.pairs = pairs


class _Invalid(Exception):
    """A validation failure; ``path`` locates the offending value (innermost first)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.path: list[int | str] = []


_DECODER = json.JSONDecoder(object_pairs_hook=_JsonObject)
_SKIPPER = json.JSONDecoder()
_WHITESPACE = re.compile(r"[ \t\n\r]*")

_SCALAR_CACHE: dict[str, ValueType] = {
    name: Scalar("f" if name[0] == "f" else "i", int(name[1:]))
    for name in ("i1", "i8", "i16", "i32", "i64", "f16", "f32", "f64")
}
_SCALAR_CACHE["bf16"] = Scalar("bf", 16)
_SCALAR_CACHE["unknown"] = Unknown()

_VALUE_RECORD = (
    'a value type record (i<bits>, f<bits>, bf16, "unknown", ndarray or py_homogeneous_list)'
)


def _quoted(text: str) -> str:
    """A JSON string as error messages quote it (long ones shortened)."""
    if len(text) > 40:
        text = text[:37] + "..."
    return json.dumps(text)


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if value is True or value is False:
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return f"the string {_quoted(value)}"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _fail(message: str, *path: int | str) -> NoReturn:
    error = _Invalid(message)
    error.path.extend(reversed(path))
    raise error


def _scalar_or_unknown(record: str) -> ValueType:
    known = _SCALAR_CACHE.get(record)
    if known is not None:
        return known
    match = _SCALAR_RECORD.fullmatch(record)
    if match is None:
        _fail(
            f'unknown type record {_quoted(record)} (expected i<bits>, f<bits>, bf16 or "unknown")'
        )
    digits = match.group(2)
    if len(digits) > len(str(MAX_SCALAR_WIDTH)) or int(digits) > MAX_SCALAR_WIDTH:
        _fail(f"bit width of {_quoted(record)} out of range (at most {MAX_SCALAR_WIDTH})")
    return Scalar("i" if match.group(1) == "i" else "f", int(digits))


class _RecordDecoder:
    """Turns the records of one side (``a`` or ``r``) into nodes, numbering leaves."""

    __slots__ = ("next_index",)

    def __init__(self) -> None:
        self.next_index = 0

    def node(self, record: Record, depth: int) -> Node:
        cls = type(record)
        if cls is str:
            t = _SCALAR_CACHE.get(record)
            if t is None:
                t = _scalar_or_unknown(record)
        elif record is None:
            t = None  # IREE's Function ABI: a null (untyped) value; a gap inside a sequence
        elif cls is not list:
            _fail(f"expected a type record (a string or an array), got {_json_kind(record)}")
        else:
            if depth > MAX_JSON_DEPTH:
                _fail(f"records nested deeper than {MAX_JSON_DEPTH} levels")
            kind = record[0] if record else None
            if kind == "ndarray":
                t = self.ndarray(record, depth)
            elif kind == "slist" or kind == "stuple":
                return self.sequence(record, "list" if kind == "slist" else "tuple", depth)
            elif kind == "sdict":
                return self.dict(record, depth)
            elif kind == "py_homogeneous_list":
                t = self.value_type(record, depth)
            elif kind == "named":
                _fail('a named record is only allowed at the root of "a"')
            else:
                _unknown_kind(record)
        index = self.next_index
        self.next_index = index + 1
        return Leaf(t, index)

    def sequence(self, record: list[Any], kind: Literal["list", "tuple"], depth: int) -> Sequence:
        items: list[Node | None] = []
        append = items.append
        depth += 1
        for position in range(1, len(record)):
            item = record[position]
            if item is None:
                append(None)
                continue
            try:
                append(self.node(item, depth))
            except _Invalid as error:
                error.path.append(position)
                raise
        return Sequence(kind, tuple(items))

    def dict(self, record: list[Any], depth: int) -> Dict:
        items: list[tuple[str, Node]] = []
        previous: str | None = None
        depth += 1
        for position in range(1, len(record)):
            entry = record[position]
            if type(entry) is not list or len(entry) != 2 or type(entry[0]) is not str:
                _fail('expected an sdict entry ["<key>", <record>]', position)
            key = entry[0]
            # Code point order is UTF-8 byte order (dict_key_order), surrogates included.
            if previous is not None and key <= previous:
                if key == previous:
                    _fail(f"duplicate sdict key {_quoted(key)}", position, 0)
                _fail(f"sdict keys must be sorted: {_quoted(key)} is out of order", position, 0)
            previous = key
            try:
                items.append((key, self.node(entry[1], depth)))
            except _Invalid as error:
                error.path.extend((1, position))
                raise
        return Dict(tuple(items))

    def value_type(self, record: Record, depth: int) -> ValueType:
        """The type of a leaf record, or of an ndarray / list element."""
        if type(record) is str:
            return _scalar_or_unknown(record)
        if type(record) is not list or not record:
            _fail(f"expected {_VALUE_RECORD}, got {_json_kind(record)}")
        if depth > MAX_JSON_DEPTH:
            _fail(f"records nested deeper than {MAX_JSON_DEPTH} levels")
        kind = record[0]
        if kind == "ndarray":
            return self.ndarray(record, depth)
        if kind == "py_homogeneous_list":
            if len(record) != 2:
                _fail("a py_homogeneous_list record has exactly one element type")
            return ListRef(self.element(record, depth))
        if kind in ("slist", "stuple", "sdict", "named"):
            _fail(f"expected {_VALUE_RECORD}, got {_quoted(kind)}")
        _unknown_kind(record)

    def element(self, record: list[Any], depth: int) -> ValueType:
        try:
            return self.value_type(record[1], depth + 1)
        except _Invalid as error:
            error.path.append(1)
            raise

    def ndarray(self, record: list[Any], depth: int) -> NDArray:
        size = len(record)
        if size < 3:
            _fail("an ndarray record needs an element type and a rank")
        element = _SCALAR_CACHE.get(record[1]) if type(record[1]) is str else None
        if element is None:
            element = self.element(record, depth)
        rank = record[2]
        if rank is None:
            if size > 3:
                _fail("an unranked ndarray (rank null) has no dims", 3)
            return NDArray(element, None)
        if type(rank) is not int or rank < 0:
            _fail(
                f"expected an ndarray rank (a non-negative integer or null), got {_json_kind(rank)}",
                2,
            )
        if size - 3 != rank:
            _fail(f"ndarray rank {rank} does not match its {size - 3} dims")
        dims = tuple(record[3:])
        for position, dim in enumerate(dims, 3):
            if dim is not None and (type(dim) is not int or dim < 0):
                _fail(
                    f"expected an ndarray dim (a non-negative integer or null), got {_json_kind(dim)}",
                    position,
                )
        return NDArray(element, dims)


def _unknown_kind(record: list[Any]) -> NoReturn:
    if not record:
        _fail("empty record array (expected a record kind first)")
    kind = record[0]
    if type(kind) is not str:
        _fail(f"expected a record kind string, got {_json_kind(kind)}", 0)
    _fail(f"unknown record kind {_quoted(kind)}", 0)


def _decode_arguments(records: list[Any]) -> tuple[Argument, ...]:
    decoder = _RecordDecoder()
    arguments: list[Argument] = []
    names: set[str] = set()
    for key, record in enumerate(records):
        try:
            if type(record) is list and record and record[0] == "named":
                if len(record) != 3 or type(record[1]) is not str:
                    _fail('a named record is ["named", "<name>", <record>]')
                name = record[1]
                if name in names:
                    _fail(f"duplicate argument name {_quoted(name)}", 1)
                names.add(name)
                try:
                    node = decoder.node(record[2], 2)
                except _Invalid as error:
                    error.path.append(2)
                    raise
                arguments.append(Argument(key, node, name))
            else:
                arguments.append(Argument(key, decoder.node(record, 1)))
        except _Invalid as error:
            error.path.extend((key, "a"))
            raise
    return tuple(arguments)


def _decode_results(records: list[Any]) -> tuple[Node, ...]:
    decoder = _RecordDecoder()
    results: list[Node] = []
    for position, record in enumerate(records):
        try:
            results.append(decoder.node(record, 1))
        except _Invalid as error:
            error.path.extend((position, "r"))
            raise
    return tuple(results)


def _decode_document(document: Any) -> Signature:
    if not isinstance(document, _JsonObject):
        _fail(
            f'expected a JSON object {{"a": [...], "r": [...], "v": 1}}, got {_json_kind(document)}'
        )
    fields: dict[str, Any] = {}
    for key, value in document.pairs:
        if key in fields:
            _fail(f"duplicate key {_quoted(key)}", key)
        if key not in ("a", "r", "v"):
            _fail(f'unexpected key {_quoted(key)} (expected "a", "r" and "v")', key)
        fields[key] = value
    for key in ("a", "r", "v"):
        if key not in fields:
            _fail(f"missing key {_quoted(key)}")
    version = fields["v"]
    if type(version) is not int:
        _fail(f"expected version 1, got {_json_kind(version)}", "v")
    if version != 1:
        _fail(f"unsupported version {version} (expected 1)", "v")
    for key in ("a", "r"):
        if type(fields[key]) is not list:
            _fail(
                f"expected an array of records for {_quoted(key)}, got {_json_kind(fields[key])}",
                key,
            )
    return Signature(_decode_arguments(fields["a"]), _decode_results(fields["r"]))


# Pure, and its result immutable: passes validate every `iree.abi` they find or wrote,
# and a large module repeats the same texts (errors are raised again, never cached).
@functools.lru_cache(maxsize=1 << 10)
def decode_json(text: str | bytes) -> Signature:
    """Parse an ``iree.abi`` value; `AbiError` with the byte offset on malformed text.

    Argument keys are the record positions; leaves are numbered in natural order, the
    arguments and the results separately from 0.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise AbiError("invalid UTF-8", offset=error.start) from None
    try:
        document = _DECODER.decode(text)
    except json.JSONDecodeError as error:
        raise AbiError(f"invalid JSON: {error.msg}", offset=_byte_offset(text, error.pos)) from None
    except RecursionError:
        raise AbiError(
            f"records nested deeper than {MAX_JSON_DEPTH} levels",
            offset=_byte_offset(text, _too_deep_offset(text)),
        ) from None
    except ValueError as error:  # an integer beyond Python's digit limit
        raise AbiError(
            f"invalid JSON: {error}", offset=_byte_offset(text, _long_number_offset(text))
        ) from None
    try:
        return _decode_document(document)
    except _Invalid as error:
        error.path.reverse()
        try:
            position = _locate(text, error.path)
        except RecursionError:  # pathologically deep siblings: give up on precision
            position = 0
        raise AbiError(error.message, offset=_byte_offset(text, position)) from None


# ------------------------------------------------------------------------------------
# Error locations (slow path: only when decoding fails).
# ------------------------------------------------------------------------------------


def _byte_offset(text: str, position: int) -> int:
    if text.isascii():
        return position
    return len(text[:position].encode("utf-8", "surrogatepass"))


def _skip_whitespace(text: str, position: int) -> int:
    match = _WHITESPACE.match(text, position)
    return match.end() if match else position


def _skip_value(text: str, position: int) -> int:
    """The position after the (already validated) JSON value at ``position``, plus any
    whitespace and one separating comma."""
    _, position = _SKIPPER.raw_decode(text, position)
    position = _skip_whitespace(text, position)
    if position < len(text) and text[position] == ",":
        position = _skip_whitespace(text, position + 1)
    return position


def _locate(text: str, path: list[int | str]) -> int:
    """The position of the value at ``path`` (array indices and object keys) in a text
    that `json` accepted. For a repeated object key, the last occurrence (the one a
    duplicate-key error is about)."""
    position = _skip_whitespace(text, 0)
    for component in path:
        position = _skip_whitespace(text, position + 1)  # past '[' or '{'
        if isinstance(component, int):
            for _ in range(component):
                position = _skip_value(text, position)
            continue
        found = position
        while position < len(text) and text[position] == '"':
            key, position = _SKIPPER.raw_decode(text, position)
            position = _skip_whitespace(text, position)
            position = _skip_whitespace(text, position + 1)  # past ':'
            if key == component:
                found = position
            position = _skip_value(text, position)
        position = found
    return position


# Strings unrolled: a per-character alternation `(?:[^"\\]|\\.)*` keeps a regex frame per
# character.
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
_LONG_NUMBER = re.compile(r"-?[0-9]{1000,}")


def _too_deep_offset(text: str) -> int:
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return match.start()
        elif token in "]}":
            depth -= 1
    return 0


def _long_number_offset(text: str) -> int:
    match = _LONG_NUMBER.search(text)
    return match.start() if match else 0


# ------------------------------------------------------------------------------------
# Declaration form (docs/spec.md §9).
# ------------------------------------------------------------------------------------


def _declare_type(t: ValueType | None) -> str:
    if isinstance(t, Scalar):
        name = _scalar_record(t)
        return "?" if name == "unknown" else name
    if isinstance(t, NDArray):
        element = _declare_type(t.element)
        if t.dims is None:
            return f"tensor<*x{element}>"
        if not t.dims:
            return f"tensor<{element}>"
        dims = "x".join("?" if dim is None else str(dim) for dim in t.dims)
        return f"tensor<{dims}x{element}>"
    if isinstance(t, ListRef):
        return f"list<{_declare_type(t.element)}>"
    return "?"


def _declare_items(node: Sequence | Dict) -> list[str]:
    if isinstance(node, Sequence):
        return [_declare_node(item) for item in node.items]
    return [f"{key}: {_declare_node(item)}" for key, item in node.items]


def _declare_node(node: Node | None) -> str:
    if node is None:
        return "None"
    if isinstance(node, Leaf):
        return "None" if node.type is None else _declare_type(node.type)
    items = ", ".join(_declare_items(node))
    if isinstance(node, Sequence):
        return f"{'list' if node.kind == 'list' else 'tuple'}[{items}]"
    return f"dict{{{items}}}"


def format_value(node: Node | None) -> str:
    """One record in the declaration form: ``tensor<2x?xf32>``, ``dict{k: i32}``, ``None``
    for an untyped value or a gap."""
    return _declare_node(node)


def format_value_type(t: ValueType | None) -> str:
    """A leaf type in the declaration form (``f32``, ``tensor<4xf32>``, ``list<?>``)."""
    return "None" if t is None else _declare_type(t)


def format_leaf_type(leaf: Leaf) -> str:
    """A leaf's type in the declaration form with its element type as the module spells
    it (`Leaf.element`: ``tensor<4xf8E4M3FN>``, ``complex<f32>``) where that is known."""
    t, element = leaf.type, leaf.element
    if element is None or isinstance(t, ListRef):
        return format_value_type(t)
    if isinstance(t, NDArray):
        if t.dims is None:
            return f"tensor<*x{element}>"
        return f"tensor<{''.join(('?' if d is None else str(d)) + 'x' for d in t.dims)}{element}>"
    return element


def format_declaration(sig: Signature) -> str:
    """``(tensor<?x4xf32>, x: i32) -> (tensor<4xf32>, tensor<4xf32>)``: the signature as a
    Python-like declaration; an inlined single structured result prints its items."""
    arguments = ", ".join(
        _declare_node(argument.node)
        if argument.name is None
        else f"{argument.name}: {_declare_node(argument.node)}"
        for argument in sig.arguments
    )
    only = sig.results[0] if len(sig.results) == 1 else None
    if isinstance(only, (Sequence, Dict)):  # inlined (docs/spec.md §4.2)
        results = ", ".join(_declare_items(only))
    else:
        results = ", ".join(_declare_node(node) for node in sig.results)
    return f"({arguments}) -> ({results})"
