"""Where xDSL (0.74) reads or prints MLIR text differently from MLIR, and the fixes
(docs/xdsl-fixes.md lists each, with its upstream issue or a report). Most are methods of
subclasses — `FixedLexer`, `FixedParser` (the base of the pipeline's parsers) and
`FixedPrinter` (the base of its printer) — and change nothing for text parsed or printed
with xDSL's own classes. The rest are members of xDSL classes that xDSL itself calls on a
run's IR (`_PATCHES`: the symbol lookup, a string literal's bytes, a dense attribute's
elements) and the recursion limit: `applied()` installs them for the length of a run,
under one lock, each answering as xDSL's own outside a run's thread, and restores them
afterwards. `FIXED_MEMBERS` names every xDSL member a fix replaces or overrides
(`tests/xdsl_boundary/test_xdsl_fixes.py` pins their source).
"""

from __future__ import annotations

import math
import re
import struct
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, NoReturn, cast

from xdsl.context import Context
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    BytesAttr,
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    Float80Type,
    Float128Type,
    FloatAttr,
    FloatData,
    FloatNonfiniteBehavior,
    IndexType,
    IntegerAttr,
    IntegerType,
    ReducedPrecisionFloatType,
    Signedness,
    StringAttr,
    SymbolRefAttr,
    UnregisteredAttr,
    f64,
    i1,
    i64,
)
from xdsl.ir import Attribute, Operation
from xdsl.parser import AttrParser, Parser
from xdsl.parser.generic_parser import ParserState
from xdsl.printer import Printer
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.hints import isa
from xdsl.utils.lexer import Input, Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken, MLIRTokenKind, StringLiteral

from abi_compiler.text import lexer
from abi_compiler.xdsl_boundary import symbol_cache
from abi_compiler.xdsl_boundary.xdsl_compat import (
    HookedParser,
    HookedPrinter,
    SymbolLookup,
    nearest_symbol_table,
)

RECURSION_LIMIT = 10_000

_ORIGINAL_LEX_STRING_LITERAL = MLIRLexer._lex_string_literal  # pyright: ignore[reportPrivateUsage]
_ESCAPE = re.compile(lexer.STRING_ESCAPE)
# xDSL's `"(?:[^"\\\n\v\f]+|\\(?:…))*"` nests a `+` in a `*`: on a literal with no closing
# quote the regex engine tries every split of the text, exponential in its length (30
# characters took minutes). The same language, unrolled so that each character can be
# matched one way only: linear.
_STRING_LITERAL = lexer.STRING


def _unknown_escape(text: str, start_pos: int) -> int | None:
    """The offset of the first backslash in the string literal at ``start_pos`` that
    starts no valid escape, if the literal is otherwise closed on its line."""
    position = start_pos + 1
    bad: int | None = None
    while position < len(text):
        char = text[position]
        if char == '"':
            return bad
        if char in "\n\v\f":
            return None
        if char == "\\":
            match = _ESCAPE.match(text, position)
            if match is None:
                if bad is None:
                    bad = position
                position += 1
                continue
            position = match.end()
            continue
        position += 1
    return None


def _lex_string_literal(self: MLIRLexer, start_pos: int) -> Any:
    try:
        token = _ORIGINAL_LEX_STRING_LITERAL(self, start_pos)
    except ParseError:
        # xDSL reports an unknown escape as a missing closing quote; say what it is.
        bad = _unknown_escape(self.input.content, start_pos)
        if bad is None:
            raise
        raise ParseError(
            Span(bad, bad + 2, self.input), "unknown escape in string literal"
        ) from None
    if token.kind is not MLIRTokenKind.BYTES_LIT:
        return token
    try:
        StringLiteral.from_span(token.span).bytes_contents.decode("utf-8")
    except UnicodeDecodeError:
        return token
    return type(token)(MLIRTokenKind.STRING_LIT, token.span)


# -- String literals in bulk -------------------------------------------------------------
#
# xDSL decodes a string literal escape by escape and prints one byte per `print_string`
# call (about 5 s per MB of string). The same results, with the work done by `re` and
# `bytes.translate`.

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


def _bytes_contents(self: StringLiteral) -> bytes:
    try:
        return _BYTES_ESCAPE.sub(_unescape, self.text[1:-1].encode())
    except _UnknownEscape:
        # An escape the lexer did not check: xDSL's decoder says what is wrong with it.
        return cast(bytes, _ORIGINAL_BYTES_CONTENTS.fget(self))


def _print_bytes_literal(self: Printer, bytestring: bytes) -> None:
    self.print_string('"' + bytestring.decode("latin-1").translate(_PRINTED_BYTES) + '"')


# -- Dense arrays ------------------------------------------------------------------------


def _parse_float_array_element(parser: AttrParser, type: AnyFloat) -> bytes:
    token = parser._current_token  # pyright: ignore[reportPrivateUsage]
    start = token.span.start
    content = parser.lexer.input.content
    if token.kind is MLIRTokenKind.MINUS and _HEX_AHEAD.match(content, token.span.end):
        end = _end_of_literal(content, start, len(content))
        _literal_error(
            parser, "hexadecimal float literal should not have a leading minus", start, end
        )
    if token.kind is MLIRTokenKind.INTEGER_LIT and token.text[:2] in ("0x", "0X"):
        parser._consume_token()  # pyright: ignore[reportPrivateUsage]
        bits = int(token.text, 16)
        if bits >= 1 << type.bitwidth:
            _literal_error(
                parser, "hexadecimal float constant out of range for type", start, token.span.end
            )
    else:
        bits = float_bits(parser.parse_float(), type)
    return bits.to_bytes(type.compile_time_size, "little")


def _parse_builtin_densearray_attr(self: AttrParser) -> DenseArrayBase | None:
    """xDSL's `array<type: …>` parser, with a float array's elements stored as bit
    patterns (a hexadecimal element is one, as in MLIR; xDSL rejected it)."""
    start = self.pos
    self.parse_characters("<", " in dense array")
    element_type = self.parse_attribute()
    if not isinstance(element_type, AnyFloat) or isinstance(
        element_type, Float80Type | Float128Type
    ):
        self._resume_from(start)  # pyright: ignore[reportPrivateUsage]
        return _ORIGINAL_DENSE_ARRAY(self)
    if self.parse_optional_punctuation(">"):
        return DenseArrayBase(element_type, BytesAttr(b""))
    self.parse_characters(":", " in dense array")
    elements = self.parse_comma_separated_list(
        self.Delimiter.NONE, lambda: _parse_float_array_element(self, element_type)
    )
    self.parse_characters(">", " in dense array")
    return DenseArrayBase(element_type, BytesAttr(b"".join(elements)))


def _print_dense_array(self: DenseArrayBase, printer: Printer) -> None:
    element_type = self.elt_type
    if not isinstance(element_type, AnyFloat) or isinstance(
        element_type, Float80Type | Float128Type
    ):
        return cast(None, _ORIGINAL_DENSE_ARRAY_PRINT(self, printer))
    size = element_type.compile_time_size
    data = self.data.data
    printer.print_string("array<")
    printer.print_attribute(element_type)
    if data:
        items = (
            format_float(int.from_bytes(data[i : i + size], "little"), element_type)
            for i in range(0, len(data), size)
        )
        printer.print_string(": " + ", ".join(items))
    printer.print_string(">")


# -- Resource handles --------------------------------------------------------------------


def _parse_dialect_resource_handle(
    self: AttrParser, dialect_name: str, interface: OpAsmDialectInterface
) -> str:
    """xDSL's `_parse_dialect_resource_handle`, with a handle kept as written. xDSL keeps
    resource blobs in the dialect object, for the whole process, and renamed a handle an
    earlier parse had declared (the second `--split-input-file` chunk's `blob1` became
    `blob1_0`, whose blob its `{-# dialect_resources #-}` section never filled: it was
    printed without one). Each parse declares its own handles afresh."""
    key = self.parse_identifier(" for resource handle")
    if (dialect_name, key) not in self.dialect_resources:
        interface._blob_storage[key] = ""  # pyright: ignore[reportPrivateUsage]
        self.dialect_resources.add((dialect_name, key))
    return key


# -- Float bit patterns ------------------------------------------------------------------
#
# A float attribute's value is a Python float (a double), and xDSL converts between a
# type's bits and that double with `struct`, which quiets signalling NaNs and (for f16)
# drops NaN payloads, or with its reduced-precision decoders, which map every NaN to one.
# `float_value` and `float_bits` are inverse for every bit pattern of the supported
# types: a NaN's sign and payload are carried in the double's sign and top mantissa bits
# (the double itself is never computed with).

_IEEE_FIELDS: dict[type[Attribute], tuple[int, int]] = {
    Float16Type: (5, 10),
    BFloat16Type: (8, 7),
    Float32Type: (8, 23),
}
_DOUBLE_MANTISSA = (1 << 52) - 1


class UnsupportedFloatType(Exception):
    """f80 and f128: xDSL has no bit-level representation for them."""


def _double_bits(value: float) -> int:
    return int.from_bytes(struct.pack("<d", value), "little")


def _double(bits: int) -> float:
    return float(struct.unpack("<d", bits.to_bytes(8, "little"))[0])


def _ieee_fields(type: Attribute) -> tuple[int, int] | None:
    """(exponent bits, mantissa bits) of a type whose all-ones exponent encodes infinity
    and NaNs with payloads, as in IEEE 754; None for other encodings."""
    fields = _IEEE_FIELDS.get(type.__class__)
    if fields is not None:
        return fields
    if isinstance(type, ReducedPrecisionFloatType):
        semantics = type.SEMANTICS
        if semantics.nonfinite is FloatNonfiniteBehavior.IEEE:
            return semantics.exponent_bits, semantics.mantissa_bits
    return None


def _check_supported(type: Attribute) -> None:
    if isinstance(type, Float80Type | Float128Type):
        raise UnsupportedFloatType(type.name)


def float_bits(value: float, type: AnyFloat) -> int:
    """The bit pattern of ``value`` in ``type``: rounded to nearest, ties to even, a value
    too large for the type becomes infinity (or what the type has instead), and a NaN
    keeps the sign and payload `float_value` put in it."""
    _check_supported(type)
    if isinstance(type, Float64Type):
        return _double_bits(value)
    if math.isnan(value):
        fields = _ieee_fields(type)
        if fields is None:  # one NaN per sign, or none: xDSL's encoder knows which
            assert isinstance(type, ReducedPrecisionFloatType)
            return type.encode_bits(value)
        exponent_bits, mantissa_bits = fields
        double = _double_bits(value)
        payload = (double & _DOUBLE_MANTISSA) >> (52 - mantissa_bits)
        if payload == 0:  # the payload does not fit: the type's quiet NaN
            payload = 1 << (mantissa_bits - 1)
        return (
            (double >> 63) << (exponent_bits + mantissa_bits)
            | ((1 << exponent_bits) - 1) << mantissa_bits
            | payload
        )
    try:
        raw = type.pack((value,))
    except OverflowError:  # struct refuses what rounds to infinity; MLIR rounds
        raw = type.pack((math.copysign(math.inf, value),))
    return int.from_bytes(raw, "little")


def float_value(bits: int, type: AnyFloat) -> float:
    """The Python float that stands for the bit pattern ``bits`` of ``type`` (the
    inverse of `float_bits`)."""
    _check_supported(type)
    if isinstance(type, Float64Type):
        return _double(bits)
    fields = _ieee_fields(type)
    if fields is not None:
        exponent_bits, mantissa_bits = fields
        exponent = (bits >> mantissa_bits) & ((1 << exponent_bits) - 1)
        payload = bits & ((1 << mantissa_bits) - 1)
        if exponent == (1 << exponent_bits) - 1 and payload:
            sign = (bits >> (exponent_bits + mantissa_bits)) & 1
            return _double(sign << 63 | 0x7FF << 52 | payload << (52 - mantissa_bits))
    value = next(iter(type.iter_unpack(bits.to_bytes(type.compile_time_size, "little"))))
    if math.isnan(value) and isinstance(type, ReducedPrecisionFloatType):
        semantics = type.SEMANTICS
        if semantics.has_sign and (bits >> semantics.sign_shift) & 1:
            return -math.nan
        return math.nan
    return value


def _decimal_forms(value: float, type: AnyFloat) -> Iterator[str]:
    # MLIR's form first (six digits after the point), then enough digits for the type.
    short = f"{value:.5e}"
    yield short.replace("e", "0e", 1)
    if isinstance(type, Float32Type):
        yield f"{value:.9g}".replace("e", "E")
    elif isinstance(type, Float64Type):
        yield f"{value:.17g}".replace("e", "E")
    else:
        yield repr(value)


def format_float(bits: int, type: AnyFloat) -> str:
    """MLIR text for the bit pattern ``bits`` of ``type`` that parses back to the same
    bits: a decimal literal when one does, otherwise the bits in hexadecimal, as MLIR
    prints infinities and NaNs (`0xFF800000`)."""
    value = float_value(bits, type)
    if math.isfinite(value):
        for text in _decimal_forms(value, type):
            if "." in text and float_bits(float(text), type) == bits:
                return text
    return f"0x{bits:0{(type.bitwidth + 3) // 4}X}"


# -- Float attributes --------------------------------------------------------------------


def float_attr(bits: int, type: AnyFloat) -> FloatAttr:
    """The `FloatAttr` holding the bit pattern ``bits`` of ``type``. Built with `new`:
    `FloatAttr.__init__` passes the value through `struct`, which quiets NaNs."""
    attr: FloatAttr = FloatAttr.new((FloatData(float_value(bits, type)), type))
    return attr


class ExtendedFloatLiteral(float):
    """An f80 or f128 float attribute's value as read: xDSL stores a float attribute as a
    Python float (a double), which cannot hold every f80/f128 value (`1.0e4000 : f80`,
    the bits of `0x7FFF8000000000000000 : f80`), so the literal is kept and printed as
    written. The float is the nearest double (±inf beyond its range)."""

    text: str

    def __new__(cls, value: float, text: str) -> ExtendedFloatLiteral:
        literal = super().__new__(cls, value)
        literal.text = text
        return literal


# (exponent bits, explicit leading bit) of the two types whose values xDSL cannot hold.
_EXTENDED_FIELDS: dict[type[Attribute], tuple[int, int, bool]] = {
    Float80Type: (15, 64, True),
    Float128Type: (15, 112, False),
}


def _extended_value(bits: int, type: AnyFloat) -> float:
    """The double nearest to the f80/f128 bit pattern ``bits``."""
    exponent_bits, mantissa_bits, explicit = _EXTENDED_FIELDS[type.__class__]
    sign = -1.0 if bits >> (exponent_bits + mantissa_bits) & 1 else 1.0
    exponent = (bits >> mantissa_bits) & ((1 << exponent_bits) - 1)
    mantissa = bits & ((1 << mantissa_bits) - 1)
    fraction_bits = mantissa_bits - 1 if explicit else mantissa_bits
    fraction = mantissa & ((1 << fraction_bits) - 1)
    if exponent == (1 << exponent_bits) - 1:
        return sign * (math.nan if fraction else math.inf)
    bias = (1 << (exponent_bits - 1)) - 1
    if not explicit:
        mantissa |= (1 << mantissa_bits) if exponent else 0
    power = max(exponent, 1) - bias - fraction_bits
    try:
        return sign * math.ldexp(mantissa, power)
    except OverflowError:
        return sign * math.inf


def _extended_float_text(value: float, type: AnyFloat) -> str:
    """MLIR text for a double in an f80/f128 attribute (every double is exact there):
    decimal, or the bits of an infinity or a quiet NaN in hexadecimal."""
    if math.isfinite(value):
        return f"{value:.17e}"
    exponent_bits, mantissa_bits, explicit = _EXTENDED_FIELDS[type.__class__]
    bits = ((1 << exponent_bits) - 1) << mantissa_bits
    if explicit:
        bits |= 1 << (mantissa_bits - 1)  # f80's integer bit
    if math.isnan(value):
        bits |= 1 << (mantissa_bits - 1 - explicit)  # the quiet bit
    if math.copysign(1.0, value) < 0:
        bits |= 1 << (exponent_bits + mantissa_bits)
    return f"0x{bits:0{(type.bitwidth + 3) // 4}X}"


def _print_float(self: Printer, value: float, type: AnyFloat) -> None:
    if isinstance(type, Float80Type | Float128Type):
        text = getattr(value, "text", None)
        if text is None:  # a value a pass made
            text = _extended_float_text(value, type)
        self.print_string(text)
        return
    self.print_string(format_float(float_bits(value, type), type))


_HEX_AHEAD = re.compile(r"\s*0[xX]")


def _literal_error(parser: AttrParser, message: str, start: int, end: int) -> NoReturn:
    raise ParseError(Span(start, end, parser.lexer.input), message)


def _parse_optional_builtin_int_or_float_attr(
    self: AttrParser,
) -> IntegerAttr | FloatAttr | None:
    """xDSL's `parse_optional_builtin_int_or_float_attr` (`<number> [: <type>]`), with a
    hexadecimal literal of a float type read as the type's bit pattern (and checked
    against its width), and errors at the literal."""
    if (boolean := self.try_parse_builtin_boolean_attr()) is not None:
        return boolean
    token = self._current_token
    start = token.span.start
    content = self.lexer.input.content
    hexadecimal = token.kind is MLIRTokenKind.INTEGER_LIT and token.text[:2] in ("0x", "0X")
    negative_hex = token.kind is MLIRTokenKind.MINUS and bool(
        _HEX_AHEAD.match(content, token.span.end)
    )
    if (value := self.parse_optional_number()) is None:
        return None
    end = _end_of_literal(content, start, self._current_token.span.start)
    if self._current_token.kind is not MLIRTokenKind.COLON:
        if isinstance(value, float):
            return FloatAttr(value, f64)
        try:
            return IntegerAttr(value, i64)
        except VerifyException as error:  # at the literal, not at the op holding it
            _literal_error(self, str(error), start, end)
    type = self._parse_attribute_type()
    if isinstance(type, AnyFloat):
        if negative_hex:
            _literal_error(
                self, "hexadecimal float literal should not have a leading minus", start, end
            )
        if isinstance(type, Float80Type | Float128Type):
            # Kept as written: a double cannot hold every f80/f128 value.
            text = re.sub(r"\s+", "", content[start:end])
            if hexadecimal:
                assert isinstance(value, int)
                if value >= 1 << type.bitwidth:
                    _literal_error(
                        self, "hexadecimal float constant out of range for type", start, end
                    )
                return FloatAttr(ExtendedFloatLiteral(_extended_value(value, type), text), type)
            return FloatAttr(ExtendedFloatLiteral(_to_float(value), text), type)
        if negative_hex:
            _literal_error(
                self, "hexadecimal float literal should not have a leading minus", start, end
            )
        if hexadecimal:
            assert isinstance(value, int)
            if value >= 1 << type.bitwidth:
                _literal_error(self, "hexadecimal float constant out of range for type", start, end)
            return float_attr(value, type)
        return float_attr(float_bits(_to_float(value), type), type)
    if isa(type, IntegerType | IndexType):
        if isinstance(value, float):
            self.raise_error("Floating point value is not valid for integer type.")
        if isinstance(type, IndexType) and not -(1 << 63) <= value < 1 << 63:
            # xDSL takes any integer for an index; MLIR's index attributes hold 64 bits.
            _literal_error(self, "integer constant out of range for index", start, end)
        try:
            return IntegerAttr(value, type)
        except VerifyException as error:
            _literal_error(self, str(error), start, end)
    self.raise_error("Invalid type given for integer or float attribute.")


_NUMBER = re.compile(r"-?\s*(?:0[xX][0-9a-fA-F]+|[0-9]+(?:\.[0-9]*(?:[eE][+-]?[0-9]+)?)?)")


def _end_of_literal(content: str, start: int, following: int) -> int:
    match = _NUMBER.match(content, start, following)
    return following if match is None else match.end()


def _to_float(value: int | float) -> float:
    try:
        return float(value)
    except OverflowError:  # an integer beyond the doubles rounds to infinity
        return math.copysign(math.inf, value)


# -- Dense elements ----------------------------------------------------------------------
#
# A `DenseIntOrFPElementsAttr` keeps its elements as raw little-endian bytes. A splat
# (one value for every element, `dense<1.0> : tensor<100000000xf32>`) is kept as the
# bytes of that one value, as MLIR keeps it: xDSL would store every element. Such a
# *compact splat* is recognised by its data holding one element while its type has
# another number of them; the hooked methods below expand it only when a caller asks
# for the values.

#: Literals with more elements than this print as one hexadecimal string, as in MLIR.
HEX_THRESHOLD = 100
_HEX_CHUNK = 1 << 20


def _element_size(type: Attribute) -> int | None:
    """Bytes per element of a dense literal's element type; None when xDSL cannot
    store it (f80, f128, integers wider than 64 bits)."""
    if isinstance(type, ComplexType):
        part = _element_size(type.element_type)
        return None if part is None else 2 * part
    if isinstance(type, Float80Type | Float128Type):
        return None
    if isinstance(type, IntegerType) and type.width.data > 64:
        return None
    size: int = cast(Any, type).compile_time_size
    return size


def _element_count(attr: DenseIntOrFPElementsAttr) -> int:
    return math.prod(attr.get_shape())


def is_compact_splat(attr: DenseIntOrFPElementsAttr) -> bool:
    """Whether ``attr`` holds one element's bytes for a type with another count."""
    size = _element_size(attr.get_element_type())
    return size is not None and len(attr.data.data) == size and _element_count(attr) != 1


def _expanded(attr: DenseIntOrFPElementsAttr) -> bytes:
    data = attr.data.data
    return data * _element_count(attr) if is_compact_splat(attr) else data


def _dense_len(self: DenseIntOrFPElementsAttr) -> int:
    if is_compact_splat(self):
        return _element_count(self)
    return cast(int, _ORIGINAL_DENSE["__len__"](self))


def _dense_is_splat(self: DenseIntOrFPElementsAttr) -> bool:
    """Every element has the same bit pattern (`-0.0` is not `0.0`, NaNs are compared
    by their bits), as MLIR decides."""
    if is_compact_splat(self):
        return True
    size = _element_size(self.get_element_type())
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


def _format_element(raw: bytes | memoryview, type: Attribute) -> str:
    """MLIR text of one element from its stored bytes."""
    if isinstance(type, ComplexType):
        half = len(raw) // 2
        real = _format_element(raw[:half], type.element_type)
        imaginary = _format_element(raw[half:], type.element_type)
        return f"({real},{imaginary})"
    bits = int.from_bytes(raw, "little")
    if isinstance(type, IndexType):
        return str(bits - (1 << 64) if bits >> 63 else bits)
    if isinstance(type, IntegerType):
        width = type.width.data
        if width == 1:
            return "true" if bits & 1 else "false"
        bits &= (1 << width) - 1
        if type.signedness.data is not Signedness.UNSIGNED and bits >> (width - 1):
            bits -= 1 << width
        return str(bits)
    return format_float(bits, cast(AnyFloat, type))


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
    size = _element_size(element_type)
    if size is None:
        return cast(None, _ORIGINAL_DENSE["print_without_type"](self, printer))
    data = memoryview(self.data.data)
    count = len(self)
    printer.print_string("dense<")
    if count == 0:
        pass
    elif _dense_is_splat(self):
        printer.print_string(_format_element(data[:size], element_type))
    elif count > HEX_THRESHOLD and element_type != i1:
        printer.print_string('"0x')
        for start in range(0, len(data), _HEX_CHUNK):
            printer.print_string(data[start : start + _HEX_CHUNK].hex().upper())
        printer.print_string('"')
    else:
        items = [
            _format_element(data[start : start + size], element_type)
            for start in range(0, len(data), size)
        ]
        shape = self.get_shape() if self.shape_is_complete else (count,)
        _print_nested(printer, items, shape)
    printer.print_string(">")


def _hex_blob(parser: AttrParser, token: MLIRToken) -> bytes:
    """The bytes of a `"0x…"` literal, decoded piece by piece from the input (a large
    constant is never copied as text)."""
    span = token.span
    content = parser.lexer.input.content
    start, end = span.start + 1, span.end - 1
    if content.find("\\", start, end) != -1:  # escapes: decode the literal first
        text = StringLiteral.from_span(span).bytes_contents.decode("latin-1")
        content, start, end = text, 0, len(text)
    if content[start : start + 2] not in ("0x", "0X") or (end - start) % 2:
        _literal_error(
            parser, "expected string containing hex digits starting with `0x`", span.start, span.end
        )
    start += 2
    data = bytearray((end - start) // 2)
    try:
        for offset in range(start, end, 2 * _HEX_CHUNK):
            piece = content[offset : min(offset + 2 * _HEX_CHUNK, end)]
            index = (offset - start) // 2
            data[index : index + len(piece) // 2] = bytes.fromhex(piece)
    except ValueError:
        _literal_error(
            parser, "expected string containing hex digits starting with `0x`", span.start, span.end
        )
    return bytes(data)


def _encode_element(parser: AttrParser, element: Any, type: Attribute, size: int) -> bytes:
    """The stored bytes of one literal element (`AttrParser._TensorLiteralElement`)."""
    span: Span = element.span
    value = element.value
    if isinstance(type, ComplexType):
        if not isinstance(value, tuple):
            _literal_error(
                parser, "expected a complex literal `(real, imaginary)`", span.start, span.end
            )
        if isinstance(type.element_type, AnyFloat) and "0x" in span.text.lower():
            _literal_error(
                parser,
                "hexadecimal parts of a complex literal are not supported",
                span.start,
                span.end,
            )
        half = size // 2
        parts = cast(tuple[Any, Any], value)
        return b"".join(
            _encode_scalar(parser, part, span, type.element_type, half, hexadecimal=False)
            for part in parts
        )
    if isinstance(value, tuple):
        _literal_error(
            parser,
            "unexpected complex literal for a non-complex element type",
            span.start,
            span.end,
        )
    text = span.text.lstrip("-").lstrip()
    hexadecimal = text[:2] in ("0x", "0X")
    if hexadecimal and element.is_negative and isinstance(type, AnyFloat):
        _literal_error(
            parser,
            "hexadecimal float literal should not have a leading minus",
            span.start,
            span.end,
        )
    return _encode_scalar(parser, value, span, type, size, hexadecimal)


def _encode_scalar(
    parser: AttrParser,
    value: Any,
    span: Span,
    type: Attribute,
    size: int,
    hexadecimal: bool,
) -> bytes:
    if isinstance(type, AnyFloat):
        if isinstance(value, bool):
            _literal_error(parser, "expected floating point literal", span.start, span.end)
        if hexadecimal:
            if value >= 1 << type.bitwidth:
                _literal_error(
                    parser, "hexadecimal float constant out of range for type", span.start, span.end
                )
            bits = value
        else:
            bits = float_bits(_to_float(value), type)
        return int(bits).to_bytes(size, "little")
    if isinstance(value, float):
        _literal_error(parser, "expected integer value", span.start, span.end)
    if isinstance(type, IndexType):
        if isinstance(value, bool):
            _literal_error(
                parser, "Boolean values are only allowed for i1 types", span.start, span.end
            )
        width = 64
        if not -(1 << 63) <= value < 1 << 63:
            _literal_error(parser, "integer constant out of range for index", span.start, span.end)
    else:
        assert isinstance(type, IntegerType)
        width = type.width.data
        if isinstance(value, bool) and width != 1:
            _literal_error(
                parser, "Boolean values are only allowed for i1 types", span.start, span.end
            )
        if type.signedness.data is Signedness.UNSIGNED and value < 0:
            _literal_error(parser, "Expected non-negative integer values", span.start, span.end)
        try:
            type.verify_value(int(value))
        except VerifyException as error:
            _literal_error(parser, str(error), span.start, span.end)
    return (int(value) & ((1 << width) - 1)).to_bytes(size, "little")


def _parse_dense_int_or_fp_elements_attr(self: AttrParser, type: Any) -> DenseIntOrFPElementsAttr:
    """xDSL's `parse_dense_int_or_fp_elements_attr` (`dense<…> : type`, or `dense<…>`
    when the type is known), building the stored bytes directly: a hexadecimal element
    of a float type is its bit pattern; a splat stays one element; errors are located
    at the element."""
    self.parse_punctuation("<", " in dense attribute")
    blob: bytes | None = None
    blob_token: MLIRToken | None = None
    literal: tuple[list[Any], list[int]] | None = None
    if self.parse_optional_punctuation(">") is None:
        token = self._current_token
        if token.kind in (MLIRTokenKind.STRING_LIT, MLIRTokenKind.BYTES_LIT):
            blob_token = self._consume_token()
        else:
            literal = self._parse_tensor_literal()
        self.parse_punctuation(">", " in dense attribute")
    type_start = self.pos
    if type is None:
        self.parse_punctuation(":", " in dense attribute")
        type_start = self.pos
        type = self._parse_dense_literal_type()
    element_type = type.element_type
    size = _element_size(element_type)
    if size is None:
        self.raise_error(
            f"dense literals of {element_type} elements are not supported",
            type_start,
            self.pos,
        )
    count = math.prod(type.get_shape())
    if blob_token is not None:
        blob = _hex_blob(self, blob_token)
        if len(blob) == size:  # a splat
            data = blob if count else b""
        elif len(blob) == count * size:
            data = blob
        else:
            _literal_error(
                self,
                f"elements hex data size is invalid for provided type: '{type}'",
                blob_token.span.start,
                blob_token.span.end,
            )
    elif literal is None:
        if count != 0:
            self.raise_error("Expected at least one element in the dense literal, but got None")
        data = b""
    else:
        elements, shape = literal
        if shape and list(type.get_shape()) != shape:
            self.raise_error(
                f"Shape mismatch in dense literal. Expected {list(type.get_shape())} "
                f"shape from the type, but got {shape} shape."
            )
        encoded = [_encode_element(self, e, element_type, size) for e in elements]
        if not shape and not count:
            encoded = []
        data = b"".join(encoded)
    return DenseIntOrFPElementsAttr(type, BytesAttr(data))


# -- Symbol lookups ----------------------------------------------------------------------

_xdsl_lookup: SymbolLookup = SymbolTable.lookup_symbol


def lookup_symbol(op: Operation, name: str | StringAttr | SymbolRefAttr) -> Operation | None:
    """xDSL's `SymbolTable.lookup_symbol`, from the nearest registered symbol table,
    through the tables `symbol_cache` holds while a run verifies."""
    anchor = nearest_symbol_table(op)
    if anchor is None:
        return _xdsl_lookup(op, name)
    return symbol_cache.lookup(anchor, name, _xdsl_lookup)


_ORIGINAL_DENSE_ARRAY = AttrParser._parse_builtin_densearray_attr  # pyright: ignore[reportPrivateUsage]
_ORIGINAL_DENSE_ARRAY_PRINT = DenseArrayBase.print_builtin
_ORIGINAL_BYTES_CONTENTS = StringLiteral.__dict__["bytes_contents"]
_DENSE_HOOKS: dict[str, Any] = {
    "__len__": _dense_len,
    "is_splat": _dense_is_splat,
    "get_values": _dense_values,
    "iter_values": _dense_iter_values,
    "get_attrs": _dense_attrs,
    "iter_attrs": _dense_iter_attrs,
    "print_without_type": _dense_print_without_type,
}
_ORIGINAL_DENSE: dict[str, Any] = {
    name: getattr(DenseIntOrFPElementsAttr, name) for name in _DENSE_HOOKS
}


# -- The fixed lexer, parser and printer --------------------------------------------------


class FixedLexer(MLIRLexer):
    """xDSL's lexer, with linear string literals, unknown escapes named, and a literal
    whose bytes are valid UTF-8 a string (not a bytes literal)."""

    _unescaped_characters_regex = _STRING_LITERAL
    _lex_string_literal = _lex_string_literal

    def _consume_whitespace(self) -> None:
        # xDSL's pattern, one repeated group over a run of comments, keeps hundreds of
        # bytes per line until it ends; and MLIR ends a comment at `\r` too.
        self.pos = lexer.skip_blank(self.input.content, self.pos)


class FixedParser(HookedParser):
    """xDSL's parser with the fixes above that are parser methods (float and dense
    literals, dense arrays, resource handles), lexing with `FixedLexer`."""

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>") -> None:
        # xDSL's parser lexes its first token on construction, with xDSL's lexer: its
        # string pattern backtracks exponentially on an unclosed literal (`"aaa…` as the
        # first token hung a run), so it gets no text; `FixedLexer` gets the input.
        super().__init__(ctx, "", name)
        text = input.decode("utf-8") if isinstance(input, bytes) else input
        self._parser_state = ParserState(FixedLexer(Input(text, name)))

    def _parse_external_resources(self) -> None:
        # xDSL raises NotImplementedError: a located error instead (carried text keeps
        # these sections as written).
        self.raise_error(
            f"external_resources cannot be read here: {self.external_resources_reason()}, "
            "and xDSL reads only dialect resources"
        )

    def external_resources_reason(self) -> str:
        """Why the file's `external_resources` section reached xDSL's parser."""
        return "the text is parsed whole"

    parse_dense_int_or_fp_elements_attr = _parse_dense_int_or_fp_elements_attr
    parse_optional_builtin_int_or_float_attr = _parse_optional_builtin_int_or_float_attr
    _parse_builtin_densearray_attr = _parse_builtin_densearray_attr
    _parse_dialect_resource_handle = _parse_dialect_resource_handle


_UNREGISTERED = UnregisteredAttr.name


def _print_dialect_body(attribute: UnregisteredAttr, printer: Printer) -> None:
    """A dialect attribute or type kept as text, its line breaks as written."""
    printer.print_string("!" if attribute.is_type.data else "#")
    name = attribute.attr_name.data
    if attribute.is_opaque.data:
        printer.print_string(f"{name.replace('.', '<', 1)}{attribute.value.data}>", indent=0)
    else:
        printer.print_string(f"{name}<{attribute.value.data}>", indent=0)


class FixedPrinter(HookedPrinter):
    """xDSL's printer with the fixes above that are printer methods (floats as their
    bits, dense float arrays, string literals in bulk)."""

    print_float = _print_float
    print_bytes_literal = _print_bytes_literal

    def print_attribute(self, attribute: Attribute) -> None:
        # (By name first: `isinstance` of an ABC costs, and this runs for every attribute
        # and type printed.)
        if (
            attribute.name == _UNREGISTERED
            and isinstance(attribute, UnregisteredAttr)
            and "\n" in attribute.value.data
        ):
            _print_dialect_body(attribute, self)
            return
        if isinstance(attribute, DenseArrayBase):
            _print_dense_array(attribute, self)
            return
        super().print_attribute(attribute)


# -- What is changed for the duration of a run --------------------------------------------

#: Whether the current thread (context) is inside `applied()`: the replaced members
#: behave as xDSL's own everywhere else.
_IN_RUN: ContextVar[bool] = ContextVar("abi_compiler_in_run", default=False)


def _in_runs(fixed: Callable[..., Any], original: Callable[..., Any]) -> Callable[..., Any]:
    """``fixed`` in a run's thread, ``original`` (xDSL's) in every other."""

    def member(*args: Any) -> Any:
        return fixed(*args) if _IN_RUN.get() else original(*args)

    member.__name__ = getattr(fixed, "__name__", "member")
    member.__module__ = __name__
    return member


_ORIGINAL_BYTES_CONTENTS_GET = cast(property, _ORIGINAL_BYTES_CONTENTS).fget
assert _ORIGINAL_BYTES_CONTENTS_GET is not None

#: (class, member, replacement): members of xDSL classes the run's IR or xDSL's static
#: calls need fixed, whoever calls them; each is xDSL's own outside a run's thread.
_PATCHES: tuple[tuple[type, str, Any], ...] = (
    (SymbolTable, "lookup_symbol", staticmethod(_in_runs(lookup_symbol, _xdsl_lookup))),
    (
        StringLiteral,
        "bytes_contents",
        property(_in_runs(_bytes_contents, _ORIGINAL_BYTES_CONTENTS_GET)),
    ),
    *(
        (DenseIntOrFPElementsAttr, name, _in_runs(hook, _ORIGINAL_DENSE[name]))
        for name, hook in _DENSE_HOOKS.items()
    ),
)
_MISSING = object()
_lock = threading.RLock()
_depth = 0
_saved: list[tuple[type, str, Any]] = []
_saved_limit = 0


@contextmanager
def applied() -> Iterator[None]:
    """Within the block, the fixes that cannot be subclass methods are in force for the
    current thread and the recursion limit is at least `RECURSION_LIMIT`; afterwards every
    member and the limit are what they were. Blocks may nest, and run in several threads:
    the outermost one installs and restores, under one lock. While installed, the members
    are visible to every thread but answer as xDSL's own outside a run's thread; the
    raised recursion limit is the one change another thread sees (docs/xdsl-fixes.md)."""
    global _depth, _saved_limit
    token = _IN_RUN.set(True)
    with _lock:
        if _depth == 0:
            _saved[:] = [
                (owner, name, owner.__dict__.get(name, _MISSING)) for owner, name, _ in _PATCHES
            ]
            for owner, name, value in _PATCHES:
                setattr(owner, name, value)
            _saved_limit = sys.getrecursionlimit()
            if _saved_limit < RECURSION_LIMIT:
                sys.setrecursionlimit(RECURSION_LIMIT)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                for owner, name, original in reversed(_saved):
                    if original is _MISSING:
                        delattr(owner, name)
                    else:
                        setattr(owner, name, original)
                _saved.clear()
                sys.setrecursionlimit(_saved_limit)
        _IN_RUN.reset(token)


#: Every xDSL member a fix replaces (`_PATCHES`) or overrides in a subclass, for the
#: canary test: its source is pinned.
FIXED_MEMBERS: tuple[tuple[type, str], ...] = (
    *((owner, name) for owner, name, _ in _PATCHES),
    (MLIRLexer, "_lex_string_literal"),
    (MLIRLexer, "_unescaped_characters_regex"),
    (Parser, "__init__"),
    (AttrParser, "parse_dense_int_or_fp_elements_attr"),
    (AttrParser, "parse_optional_builtin_int_or_float_attr"),
    (AttrParser, "_parse_builtin_densearray_attr"),
    (AttrParser, "_parse_dialect_resource_handle"),
    (Parser, "_parse_external_resources"),
    (Printer, "print_float"),
    (Printer, "print_bytes_literal"),
    (Printer, "print_attribute"),
    (DenseArrayBase, "print_builtin"),
)
