"""Where xDSL (0.74) is wrong by its own terms, and the fixes (docs/xdsl-fixes.md: each
entry marked *defect*, with its upstream issue or a report ready to file): string
literals (UTF-8, unterminated), float constants kept as their bits (scalar attributes,
dense arrays, dense literals), resource handles, the line breaks of a dialect body, and
`external_resources`. `xdsl_fixes` puts them in the fixed lexer, parser and printer.
"""

from __future__ import annotations

import math
import re
from typing import Any, NoReturn, cast

from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import (
    AnyFloat,
    BytesAttr,
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float80Type,
    Float128Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
    UnregisteredAttr,
    f64,
    i64,
)
from xdsl.ir import Attribute
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.hints import isa
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRToken, MLIRTokenKind, StringLiteral

from abi_compiler.text import lexer
from abi_compiler.xdsl_boundary.bit_patterns import (
    ExtendedFloatLiteral,
    extended_float_text,
    extended_value,
    float_attr,
    float_bits,
    format_float,
    to_float,
)
from abi_compiler.xdsl_boundary.dense_elements import element_size, hex_bytes

# -- String literals ---------------------------------------------------------------------

#: The string literal pattern of the fixed lexer
#: (docs/xdsl-fixes.md, "Unterminated strings"). xDSL's `"(?:[^"\\\n\v\f]+|\\(?:…))*"`
#: nests a `+` in a `*`: on a literal with no closing quote the regex engine tries every
#: split of the text, exponential in its length (30 characters took minutes). The same
#: language, unrolled so that each character can be matched one way only: linear.
STRING_LITERAL = lexer.STRING


def utf8_string_token(token: MLIRToken) -> MLIRToken:
    """``token``, except that a bytes literal whose bytes are valid UTF-8 is a string
    literal (docs/xdsl-fixes.md, "Non-ASCII strings"): xDSL's lexer makes any literal with
    an escape and non-ASCII bytes a bytes literal, so `"é"`, which xDSL prints as
    `"\\C3\\A9"`, did not read back as a string."""
    if token.kind is not MLIRTokenKind.BYTES_LIT:
        return token
    try:
        StringLiteral.from_span(token.span).bytes_contents.decode("utf-8")
    except UnicodeDecodeError:
        return token
    return type(token)(MLIRTokenKind.STRING_LIT, token.span)


# -- Float constants: scalar attributes --------------------------------------------------
#
# docs/xdsl-fixes.md, "Float constants" (upstream: xdslproject/xdsl#3370, #3827, #1971):
# a hexadecimal literal of a float type is a bit pattern, and every float keeps its bits.


def print_float(self: Printer, value: float, type: AnyFloat) -> None:
    """xDSL's `Printer.print_float`, printing the bits of ``value`` (`format_float`): a
    decimal only when it reads back to the same bits; an f80 or f128 literal as read."""
    if isinstance(type, Float80Type | Float128Type):
        text = getattr(value, "text", None)
        if text is None:  # a value a pass made
            text = extended_float_text(value, type)
        self.print_string(text)
        return
    self.print_string(format_float(float_bits(value, type), type))


_HEX_AHEAD = re.compile(r"\s*0[xX]")


def _literal_error(parser: AttrParser, message: str, start: int, end: int) -> NoReturn:
    raise ParseError(Span(start, end, parser.lexer.input), message)


def parse_optional_builtin_int_or_float_attr(
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
                return FloatAttr(ExtendedFloatLiteral(extended_value(value, type), text), type)
            return FloatAttr(ExtendedFloatLiteral(to_float(value), text), type)
        if negative_hex:
            _literal_error(
                self, "hexadecimal float literal should not have a leading minus", start, end
            )
        if hexadecimal:
            assert isinstance(value, int)
            if value >= 1 << type.bitwidth:
                _literal_error(self, "hexadecimal float constant out of range for type", start, end)
            return float_attr(value, type)
        return float_attr(float_bits(to_float(value), type), type)
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


# -- Float constants: dense arrays -------------------------------------------------------
#
# docs/xdsl-fixes.md, "Float constants": xDSL rejected a hexadecimal element of a float
# `array<…>` and stored the elements through `struct`; here they are bit patterns.

#: xDSL's own, for the arrays these fixes leave to it (integers, f80, f128).
_XDSL_DENSE_ARRAY = AttrParser._parse_builtin_densearray_attr  # pyright: ignore[reportPrivateUsage]
_XDSL_DENSE_ARRAY_PRINT = DenseArrayBase.print_builtin


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


def parse_builtin_densearray_attr(self: AttrParser) -> DenseArrayBase | None:
    """xDSL's `array<type: …>` parser, with a float array's elements stored as bit
    patterns (a hexadecimal element is one, as in MLIR; xDSL rejected it)."""
    start = self.pos
    self.parse_characters("<", " in dense array")
    element_type = self.parse_attribute()
    if not isinstance(element_type, AnyFloat) or isinstance(
        element_type, Float80Type | Float128Type
    ):
        self._resume_from(start)  # pyright: ignore[reportPrivateUsage]
        return _XDSL_DENSE_ARRAY(self)
    if self.parse_optional_punctuation(">"):
        return DenseArrayBase(element_type, BytesAttr(b""))
    self.parse_characters(":", " in dense array")
    elements = self.parse_comma_separated_list(
        self.Delimiter.NONE, lambda: _parse_float_array_element(self, element_type)
    )
    self.parse_characters(">", " in dense array")
    return DenseArrayBase(element_type, BytesAttr(b"".join(elements)))


def print_dense_array(self: DenseArrayBase, printer: Printer) -> None:
    """xDSL's `DenseArrayBase.print_builtin`, with a float array's elements printed as
    their bits (`format_float`)."""
    element_type = self.elt_type
    if not isinstance(element_type, AnyFloat) or isinstance(
        element_type, Float80Type | Float128Type
    ):
        return cast(None, _XDSL_DENSE_ARRAY_PRINT(self, printer))
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


# -- Float constants: dense literals -----------------------------------------------------
#
# The stored bytes built directly from the literal: a hexadecimal element of a float type
# is its bit pattern, a splat stays one element (docs/xdsl-fixes.md, "Splats"), and
# errors are located at the element.


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
    try:
        return hex_bytes(content, start + 2, end)
    except ValueError:
        _literal_error(
            parser, "expected string containing hex digits starting with `0x`", span.start, span.end
        )


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
            bits = float_bits(to_float(value), type)
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


def parse_dense_int_or_fp_elements_attr(self: AttrParser, type: Any) -> DenseIntOrFPElementsAttr:
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
    size = element_size(element_type)
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


# -- Resource handles --------------------------------------------------------------------


def parse_dialect_resource_handle(
    self: AttrParser, dialect_name: str, interface: OpAsmDialectInterface
) -> str:
    """xDSL's `_parse_dialect_resource_handle`, with a handle kept as written
    (docs/xdsl-fixes.md, "Resource handles"). xDSL keeps resource blobs in the dialect
    object, for the whole process, and renamed a handle an earlier parse had declared
    (the second `--split-input-file` chunk's `blob1` became `blob1_0`, whose blob its
    `{-# dialect_resources #-}` section never filled: it was printed without one). Each
    parse declares its own handles afresh."""
    key = self.parse_identifier(" for resource handle")
    if (dialect_name, key) not in self.dialect_resources:
        interface._blob_storage[key] = ""  # pyright: ignore[reportPrivateUsage]
        self.dialect_resources.add((dialect_name, key))
    return key


# -- External resources ------------------------------------------------------------------


def refuse_external_resources(parser: Parser, reason: str) -> NoReturn:
    """A located error for a file-level `{-# external_resources … #-}` section, which
    xDSL's parser meets with NotImplementedError (docs/xdsl-fixes.md, "External
    resources"); ``reason`` says why the section reached xDSL's parser (carried text
    keeps such sections as written)."""
    parser.raise_error(
        f"external_resources cannot be read here: {reason}, and xDSL reads only dialect resources"
    )


# -- Line breaks in dialect bodies -------------------------------------------------------

#: The name of `UnregisteredAttr`, compared before the (costlier) `isinstance`.
UNREGISTERED = UnregisteredAttr.name


def print_dialect_body(attribute: UnregisteredAttr, printer: Printer) -> None:
    """A dialect attribute or type kept as text, its line breaks as written: xDSL's
    printer indents every line break it prints, so each round trip added spaces to the
    value (docs/xdsl-fixes.md, "Line breaks in dialect bodies")."""
    printer.print_string("!" if attribute.is_type.data else "#")
    name = attribute.attr_name.data
    if attribute.is_opaque.data:
        printer.print_string(f"{name.replace('.', '<', 1)}{attribute.value.data}>", indent=0)
    else:
        printer.print_string(f"{name}<{attribute.value.data}>", indent=0)
