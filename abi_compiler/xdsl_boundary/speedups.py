"""Where xDSL (0.74) is slow on large input, and the same results faster
(docs/xdsl-fixes.md: each entry marked *speed-up*): string literals decoded and printed
in bulk, comments skipped in bounded runs, and a splat kept as its one element (the
accessors of `DenseIntOrFPElementsAttr` that expand it on demand, and its printer).
`xdsl_fixes` puts them in the fixed lexer and printer and, for members xDSL calls on a
run's IR, in `applied()`. (Symbol lookups while verifying: `symbol_cache`.)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, cast

from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    i1,
)
from xdsl.printer import Printer
from xdsl.utils.mlir_lexer import MLIRLexer, StringLiteral

from abi_compiler.text import lexer
from abi_compiler.xdsl_boundary.dense_elements import (
    HEX_CHUNK,
    element_count,
    element_size,
    format_element,
    is_compact_splat,
)

# -- Long strings ------------------------------------------------------------------------
#
# xDSL decodes a string literal escape by escape and prints one byte per `print_string`
# call (about 5 s per MB of string). The same results, with the work done by `re` and
# `bytes.translate` (docs/xdsl-fixes.md, "Long strings").

_BYTES_ESCAPE = re.compile(rb'\\(?:(["nt\\])|([0-9A-Fa-f]{2})|)')
_SIMPLE_ESCAPES = {b'"': b'"', b"n": b"\n", b"t": b"\t", b"\\": b"\\"}
# Every byte as MLIR prints it inside a string literal: printable ASCII as itself except
# `"` and `\`, everything else as `\XX`.
_PRINTED_BYTES = [
    "\\\\"
    if byte == 0x5C
    else f"\\{byte:02X}"
    if byte < 0x20 or byte > 0x7E or byte == 0x22
    else chr(byte)
    for byte in range(256)
]


class _UnknownEscape(Exception):
    pass


def _unescape(match: re.Match[bytes]) -> bytes:
    simple, hexadecimal = match.groups()
    if simple is not None:
        return _SIMPLE_ESCAPES[simple]
    if hexadecimal is None:
        raise _UnknownEscape
    return bytes((int(hexadecimal, 16),))


def bytes_contents(self: StringLiteral) -> bytes:
    """xDSL's `StringLiteral.bytes_contents`: the literal's bytes, its escapes decoded by
    one `re.sub`."""
    try:
        return _BYTES_ESCAPE.sub(_unescape, self.text[1:-1].encode())
    except _UnknownEscape:
        # An escape the lexer did not check: xDSL's decoder says what is wrong with it.
        return XDSL_BYTES_CONTENTS(self)


def print_bytes_literal(self: Printer, bytestring: bytes) -> None:
    """xDSL's `Printer.print_bytes_literal`, the bytes escaped by one `str.translate`."""
    self.print_string('"' + bytestring.decode("latin-1").translate(_PRINTED_BYTES) + '"')


#: xDSL's `StringLiteral.bytes_contents` (its getter), taken before any run replaces it.
XDSL_BYTES_CONTENTS = cast(
    Callable[[StringLiteral], bytes], StringLiteral.__dict__["bytes_contents"].fget
)


# -- Comments ----------------------------------------------------------------------------


def consume_whitespace(self: MLIRLexer) -> None:
    """xDSL's `MLIRLexer._consume_whitespace`, in bounded runs (`lexer.skip_blank`;
    docs/xdsl-fixes.md, "Comments"). xDSL's pattern, one repeated group over a run of
    comments, keeps hundreds of bytes per line until it ends; and MLIR ends a comment at
    `\\r` too."""
    self.pos = lexer.skip_blank(self.input.content, self.pos)


# -- Splats ------------------------------------------------------------------------------
#
# docs/xdsl-fixes.md, "Splats": a compact splat (`dense_elements`) answers every
# accessor as the full attribute would; it is expanded only for a caller that asks for
# the values.

#: Literals with more elements than this print as one hexadecimal string, as in MLIR.
HEX_THRESHOLD = 100


def _expanded(attr: DenseIntOrFPElementsAttr) -> bytes:
    data = attr.data.data
    return data * element_count(attr) if is_compact_splat(attr) else data


def _dense_len(self: DenseIntOrFPElementsAttr) -> int:
    if is_compact_splat(self):
        return element_count(self)
    return cast(int, XDSL_DENSE_MEMBERS["__len__"](self))


def _dense_is_splat(self: DenseIntOrFPElementsAttr) -> bool:
    """Every element has the same bit pattern (`-0.0` is not `0.0`, NaNs are compared
    by their bits), as MLIR decides."""
    if is_compact_splat(self):
        return True
    size = element_size(self.get_element_type())
    data = memoryview(self.data.data)
    if size is None or len(data) < size:
        return False
    return data[size:] == data[:-size]


def _dense_values(self: DenseIntOrFPElementsAttr) -> Any:
    return self.get_element_type().unpack(_expanded(self), len(self))


def _dense_iter_values(self: DenseIntOrFPElementsAttr) -> Any:
    return self.get_element_type().iter_unpack(_expanded(self))


def _dense_attrs(self: DenseIntOrFPElementsAttr) -> Any:
    element_type = self.get_element_type()
    if isinstance(element_type, IntegerType | IndexType):
        return IntegerAttr.unpack(element_type, _expanded(self), len(self))
    if isinstance(element_type, AnyFloat):
        return FloatAttr.unpack(element_type, _expanded(self), len(self))
    raise NotImplementedError()


def _dense_iter_attrs(self: DenseIntOrFPElementsAttr) -> Any:
    element_type = self.get_element_type()
    if isinstance(element_type, IntegerType | IndexType):
        return IntegerAttr.iter_unpack(element_type, _expanded(self))
    if isinstance(element_type, AnyFloat):
        return FloatAttr.iter_unpack(element_type, _expanded(self))
    raise NotImplementedError()


def _print_nested(printer: Printer, items: list[str], shape: Sequence[int]) -> None:
    if len(shape) <= 1:
        printer.print_string("[" + ", ".join(items) + "]")
        return
    step = len(items) // shape[0]
    printer.print_string("[")
    for index in range(shape[0]):
        if index:
            printer.print_string(", ")
        _print_nested(printer, items[index * step : (index + 1) * step], shape[1:])
    printer.print_string("]")


def _dense_print_without_type(self: DenseIntOrFPElementsAttr, printer: Printer) -> None:
    """`dense<…>` from the stored bytes: a splat as its one element, more than
    `HEX_THRESHOLD` elements as a hexadecimal string (printed in pieces: a large constant
    is never held twice as text), otherwise the nested list. Every element prints so
    that it parses back to the same bits."""
    element_type = self.get_element_type()
    size = element_size(element_type)
    if size is None:
        return cast(None, XDSL_DENSE_MEMBERS["print_without_type"](self, printer))
    data = memoryview(self.data.data)
    count = len(self)
    printer.print_string("dense<")
    if count == 0:
        pass
    elif _dense_is_splat(self):
        printer.print_string(format_element(data[:size], element_type))
    elif count > HEX_THRESHOLD and element_type != i1:
        printer.print_string('"0x')
        for start in range(0, len(data), HEX_CHUNK):
            printer.print_string(data[start : start + HEX_CHUNK].hex().upper())
        printer.print_string('"')
    else:
        items = [
            format_element(data[start : start + size], element_type)
            for start in range(0, len(data), size)
        ]
        shape = self.get_shape() if self.shape_is_complete else (count,)
        _print_nested(printer, items, shape)
    printer.print_string(">")


#: The members of `DenseIntOrFPElementsAttr` a run replaces (`xdsl_fixes.applied`), by name.
DENSE_MEMBERS: dict[str, Callable[..., Any]] = {
    "__len__": _dense_len,
    "is_splat": _dense_is_splat,
    "get_values": _dense_values,
    "iter_values": _dense_iter_values,
    "get_attrs": _dense_attrs,
    "iter_attrs": _dense_iter_attrs,
    "print_without_type": _dense_print_without_type,
}
#: xDSL's own members of those names, taken before any run replaces them.
XDSL_DENSE_MEMBERS: dict[str, Any] = {
    name: getattr(DenseIntOrFPElementsAttr, name) for name in DENSE_MEMBERS
}
