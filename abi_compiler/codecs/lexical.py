"""The lexical layer of the mangled signatures (IREE's legacy signature document:
docs/formats.md#upstream-documents; docs/spec.md §5 and §6).

A signature is a sequence of *components*:

* an **integer component**: a tag (``_`` or ``a``-``z``), an optional ``-`` and decimal
  digits, e.g. ``d-1``, ``_0``, ``k12``;
* a **span component**: a tag (``A``-``Z``), a decimal length, ``!``, then the contents.
  The length counts the contents' UTF-8 **bytes plus one** for the ``!``, so an empty
  span is ``X1!``. Spans nest: the contents of a span are themselves components (or, for
  SIP's ``K`` spans, arbitrary bytes).

`span_component` writes a span (the one place that applies the length rule),
`SignatureBuilder` writes components through it; `SignatureParser` is a cursor that reads
them.
Offsets are byte offsets into the UTF-8 text and every error is an `AbiError` naming the
offset and what was expected there (docs/spec.md §9: never a hang, never a silent truncation —
IREE's C++ parser could do both).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple, TypeVar

from abi_compiler.errors import AbiError

# Integers are bounded to 64-bit signed values: IREE read them into C integers, and the
# bound keeps Python's int() away from pathological digit strings.
MAX_INTEGER_DIGITS = 19
MIN_INTEGER = -(2**63)
MAX_INTEGER = 2**63 - 1

_COMPONENT = re.compile(rb"([_a-z])(-?[0-9]+)|([A-Z])([0-9]+)!")
_INTEGER_TAGS = frozenset("_abcdefghijklmnopqrstuvwxyz")
_SPAN_TAGS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def as_signature_bytes(text: str | bytes) -> bytes:
    """The UTF-8 bytes of a signature (lone surrogates survive, as in `Dict` keys)."""
    if isinstance(text, bytes):
        return text
    return text.encode("utf-8", "surrogatepass")


def describe_byte(value: int) -> str:
    """A byte as error messages show it: ``'x'`` for printable ASCII, else ``0xNN``."""
    if 0x20 < value < 0x7F:
        return repr(chr(value))
    return f"byte 0x{value:02x}"


class IntegerComponent(NamedTuple):
    """``<tag><value>``; ``offset`` is where the tag is."""

    tag: str
    value: int
    offset: int


class SpanComponent(NamedTuple):
    """``<tag><length>!<contents>``; contents are ``data[start:end]``."""

    tag: str
    offset: int
    start: int
    end: int
    data: bytes

    def __repr__(self) -> str:
        return f"SpanComponent({self.tag!r}, offset={self.offset}, contents={self.contents!r})"

    @property
    def contents(self) -> bytes:
        return self.data[self.start : self.end]

    def parser(self) -> SignatureParser:
        """A cursor over the contents (offsets stay relative to the whole signature)."""
        return SignatureParser(self.data, self.start, self.end)


Component = IntegerComponent | SpanComponent
_ComponentT = TypeVar("_ComponentT", IntegerComponent, SpanComponent)


class SignatureParser:
    """A cursor over the components of ``data[start:end]``.

    `next` returns one component and advances; iterating yields components until the
    end. Every call either consumes input or raises, so loops over a parser terminate.
    """

    __slots__ = ("data", "end", "offset")

    def __init__(self, data: str | bytes, start: int = 0, end: int | None = None) -> None:
        self.data = as_signature_bytes(data)
        self.offset = start
        self.end = len(self.data) if end is None else end

    @property
    def at_end(self) -> bool:
        return self.offset >= self.end

    def __iter__(self) -> Iterator[Component]:
        while self.offset < self.end:
            yield self.next()

    def next(self) -> Component:
        """Read the component at the cursor."""
        data, offset = self.data, self.offset
        match = _COMPONENT.match(data, offset, self.end)
        if match is None:
            raise self._diagnose()
        integer_digits, span_digits = match.group(2, 4)
        if integer_digits is not None:
            self.offset = match.end()
            if len(integer_digits) < MAX_INTEGER_DIGITS:
                value = int(integer_digits)
            else:
                value = _bounded_integer(integer_digits, offset + 1)
            return IntegerComponent(chr(data[offset]), value, offset)
        if len(span_digits) < MAX_INTEGER_DIGITS:
            length = int(span_digits)
        else:
            length = _bounded_integer(span_digits, offset + 1)
        if length < 1:
            raise AbiError("span length must be at least 1 (it counts the '!')", offset=offset + 1)
        bang = match.end() - 1
        end = bang + length
        if end > self.end:
            raise AbiError(
                f"span length {length} runs past the end of the enclosing text "
                f"({self.end - bang} bytes left)",
                offset=offset + 1,
            )
        self.offset = end
        return SpanComponent(chr(data[offset]), offset, bang + 1, end, data)

    def _diagnose(self) -> AbiError:
        """Explain why no component starts at the cursor."""
        data, offset, end = self.data, self.offset, self.end
        if offset >= end:
            return AbiError("unexpected end of signature, expected a component", offset=offset)
        tag = data[offset]
        position = offset + 1
        if tag == 0x5F or 0x61 <= tag <= 0x7A:  # '_' or a-z: an integer component
            if position < end and data[position] == 0x2D:  # '-'
                position += 1
            return AbiError(
                f"expected decimal digits after integer tag {chr(tag)!r}", offset=position
            )
        if 0x41 <= tag <= 0x5A:  # A-Z: a span component
            while position < end and 0x30 <= data[position] <= 0x39:
                position += 1
            if position == offset + 1:
                return AbiError(
                    f"expected a span length after span tag {chr(tag)!r}", offset=position
                )
            return AbiError("expected '!' after the span length", offset=position)
        return AbiError(
            f"expected a component tag ('_', a-z or A-Z), got {describe_byte(tag)}",
            offset=offset,
        )

    def expect(self, kind: type[_ComponentT], tag: str, what: str) -> _ComponentT:
        """Read a component of the given kind and tag; ``what`` names it in the error."""
        offset = self.offset
        if offset >= self.end:
            raise AbiError(f"unexpected end of signature, expected {what}", offset=offset)
        component = self.next()
        if not isinstance(component, kind) or component.tag != tag:
            raise AbiError(f"expected {what}, got {describe(component)}", offset=offset)
        return component

    def expect_span(self, tag: str, what: str) -> SpanComponent:
        """Read a span with the given tag; ``what`` names it in the error."""
        return self.expect(SpanComponent, tag, what)

    def expect_end(self, what: str) -> None:
        """Fail unless the cursor is at the end; ``what`` names what must end here."""
        if self.offset < self.end:
            raise AbiError(f"unexpected trailing text after {what}", offset=self.offset)


def describe(component: Component) -> str:
    """How error messages name a component."""
    if isinstance(component, IntegerComponent):
        return f"integer component {component.tag!r}"
    return f"span component {component.tag!r}"


def _bounded_integer(digits: bytes, offset: int) -> int:
    negative = digits.startswith(b"-")
    if len(digits) - negative > MAX_INTEGER_DIGITS:
        raise AbiError("integer out of range (more than 64 bits)", offset=offset)
    value = int(digits)
    if not MIN_INTEGER <= value <= MAX_INTEGER:
        raise AbiError("integer out of range (more than 64 bits)", offset=offset)
    return value


def span_component(tag: str, contents: str) -> str:
    """The span component ``tag`` around ``contents``: the length counts the contents'
    UTF-8 bytes plus one for the '!' (docs/spec.md §5). Every span the encoders write is made
    here (the SIP encoder calls it directly: a `SignatureBuilder` per nested value made
    it 1.4-2.5 times slower); ``tag`` is not checked (`SignatureBuilder.span` does)."""
    size = len(contents) if contents.isascii() else len(as_signature_bytes(contents))
    return f"{tag}{size + 1}!{contents}"


class SignatureBuilder:
    """Writes components; `text` returns the signature. Spans are written by
    `span_component`, so the span length rule lives there alone.

    ``SignatureBuilder().span("I", SignatureBuilder().integer("_", 0)).text()`` is
    ``"I3!_0"``.
    """

    __slots__ = ("_parts",)

    def __init__(self) -> None:
        self._parts: list[str] = []

    def integer(self, tag: str, value: int) -> SignatureBuilder:
        if tag not in _INTEGER_TAGS:
            raise AbiError(f"invalid integer component tag {tag!r} (expected '_' or a-z)")
        self._parts.append(f"{tag}{value}")
        return self

    def span(self, tag: str, contents: str | bytes | SignatureBuilder = "") -> SignatureBuilder:
        if tag not in _SPAN_TAGS:
            raise AbiError(f"invalid span component tag {tag!r} (expected A-Z)")
        if isinstance(contents, SignatureBuilder):
            contents = "".join(contents._parts)
        elif isinstance(contents, bytes):
            try:
                contents = contents.decode("utf-8", "surrogatepass")
            except UnicodeDecodeError as error:
                raise AbiError("span contents are not valid UTF-8", offset=error.start) from None
        self._parts.append(span_component(tag, contents))
        return self

    def raw(self, text: str) -> SignatureBuilder:
        """Append already-encoded components."""
        self._parts.append(text)
        return self

    def text(self) -> str:
        return "".join(self._parts)

    def encoded(self) -> bytes:
        return as_signature_bytes(self.text())


# C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(text: str) -> str:
    """``text`` with its control characters as Python escapes (``\\n``, ``\\x01``,
    ``\\u2028``): a name or key in a readable form (`abi-sig`) stays on its line, one
    line per function or finding, whatever the module names."""
    return _UNPRINTABLE.sub(lambda match: match.group().encode("unicode_escape").decode(), text)
