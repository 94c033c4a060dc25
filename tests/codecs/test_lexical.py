"""The lexical layer (docs/formats.md#components-the-lexical-layer-of-f-and-sip): integer
and span components, builder and parser."""

from __future__ import annotations

import pytest

from abi_compiler.codecs.lexical import (
    IntegerComponent,
    SignatureBuilder,
    SignatureParser,
    SpanComponent,
    span_component,
)
from abi_compiler.errors import AbiError


def components(text: str | bytes) -> list[tuple[str, object]]:
    """(tag, value or contents) for every top-level component."""
    out: list[tuple[str, object]] = []
    for component in SignatureParser(text):
        if isinstance(component, IntegerComponent):
            out.append((component.tag, component.value))
        else:
            out.append((component.tag, component.contents))
    return out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("_0", [("_", 0)]),
        ("d-1", [("d", -1)]),
        ("k12z3", [("k", 12), ("z", 3)]),
        ("d007", [("d", 7)]),  # the grammar allows leading zeros
        ("d-0", [("d", 0)]),
        ("X1!", [("X", b"")]),  # empty span: the length counts the '!'
        ("B3!t6", [("B", b"t6")]),
        ("I6!S3!t6R1!", [("I", b"S3!t6"), ("R", b"")]),
        ("A01!", [("A", b"")]),  # leading zeros in a length
        ("d9223372036854775807", [("d", 2**63 - 1)]),
        ("d-9223372036854775808", [("d", -(2**63))]),
        ("", []),
    ],
)
def test_components(text: str, expected: list[tuple[str, object]]) -> None:
    assert components(text) == expected


def test_span_length_counts_utf8_bytes() -> None:
    # "é" is two bytes: length 3 = 2 bytes + '!'
    assert components("K3!éK1!") == [("K", "é".encode()), ("K", b"")]
    assert SignatureBuilder().span("K", "é").text() == "K3!é"
    assert span_component("K", "é") == "K3!é"
    assert span_component("I", "") == "I1!"
    # A lone surrogate (a key read from invalid UTF-8) counts its surrogatepass bytes.
    assert span_component("K", "\udcff") == "K4!\udcff"


def test_nested_spans_keep_absolute_offsets() -> None:
    outer = SignatureParser("I8!S5!k0_3R1!").next()
    assert isinstance(outer, SpanComponent)
    assert (outer.offset, outer.start, outer.end) == (0, 3, 10)
    inner = outer.parser().next()
    assert isinstance(inner, SpanComponent)
    assert (inner.tag, inner.offset, inner.start, inner.end) == ("S", 3, 6, 10)
    key, leaf = list(inner.parser())
    assert key == IntegerComponent("k", 0, 6)
    assert leaf == IntegerComponent("_", 3, 8)


def test_parser_expect_helpers() -> None:
    parser = SignatureParser("I1!R1!")
    assert parser.expect_span("I", "the inputs").contents == b""
    assert parser.expect_span("R", "the results").contents == b""
    parser.expect_end("the results")
    assert parser.at_end


def test_builder() -> None:
    inner = SignatureBuilder().integer("k", 0).integer("_", 0).integer("k", 1).integer("_", 1)
    built = SignatureBuilder().span("I", SignatureBuilder().span("S", inner)).span("R")
    assert built.text() == "I12!S9!k0_0k1_1R1!"
    assert built.encoded() == b"I12!S9!k0_0k1_1R1!"
    assert SignatureBuilder().integer("d", -1).span("B", b"d4").raw("O1!").text() == "d-1B3!d4O1!"


@pytest.mark.parametrize("tag", ["A", "", "ab", "!", "1"])
def test_builder_rejects_bad_integer_tags(tag: str) -> None:
    with pytest.raises(AbiError, match="invalid integer component tag"):
        SignatureBuilder().integer(tag, 0)


@pytest.mark.parametrize("tag", ["a", "_", "", "AB"])
def test_builder_rejects_bad_span_tags(tag: str) -> None:
    with pytest.raises(AbiError, match="invalid span component tag"):
        SignatureBuilder().span(tag, "")


def test_builder_rejects_non_utf8_contents() -> None:
    with pytest.raises(AbiError, match="span contents are not valid UTF-8"):
        SignatureBuilder().span("K", b"a\xff")


@pytest.mark.parametrize(
    ("text", "message", "offset"),
    [
        ("!", "expected a component tag ('_', a-z or A-Z), got '!'", 0),
        ("_0 ", "expected a component tag ('_', a-z or A-Z), got byte 0x20", 2),
        ("\xe9", "expected a component tag ('_', a-z or A-Z), got byte 0xc3", 0),
        ("d", "expected decimal digits after integer tag 'd'", 1),
        ("dx", "expected decimal digits after integer tag 'd'", 1),
        ("d-", "expected decimal digits after integer tag 'd'", 2),
        ("d--1", "expected decimal digits after integer tag 'd'", 2),
        ("B", "expected a span length after span tag 'B'", 1),
        ("B!", "expected a span length after span tag 'B'", 1),
        ("B12", "expected '!' after the span length", 3),
        ("B1x", "expected '!' after the span length", 2),
        ("B0!", "span length must be at least 1 (it counts the '!')", 1),
        ("B5!d1", "span length 5 runs past the end of the enclosing text (3 bytes left)", 1),
        ("d99999999999999999999", "integer out of range (more than 64 bits)", 1),
        ("d9223372036854775808", "integer out of range (more than 64 bits)", 1),
        ("B99999999999999999999!", "integer out of range (more than 64 bits)", 1),
    ],
)
def test_lexical_errors(text: str, message: str, offset: int) -> None:
    with pytest.raises(AbiError) as caught:
        list(SignatureParser(text))
    assert caught.value.message == message
    assert caught.value.offset == offset
    assert str(caught.value) == f"{message} (at offset {offset})"


def test_nested_span_cannot_run_past_its_parent() -> None:
    # I4!B5! : the B span claims 4 content bytes but its parent ends after 'B5!'.
    outer = SignatureParser("I4!B5!d1d2").next()
    assert isinstance(outer, SpanComponent)
    with pytest.raises(AbiError) as caught:
        outer.parser().next()
    assert (
        caught.value.message
        == "span length 5 runs past the end of the enclosing text (1 bytes left)"
    )
    assert caught.value.offset == 4


def test_expect_errors() -> None:
    with pytest.raises(AbiError) as caught:
        SignatureParser("").expect_span("I", "the inputs span 'I'")
    assert (caught.value.message, caught.value.offset) == (
        "unexpected end of signature, expected the inputs span 'I'",
        0,
    )
    with pytest.raises(AbiError) as caught:
        SignatureParser("d1").expect_span("I", "the inputs span 'I'")
    assert caught.value.message == "expected the inputs span 'I', got integer component 'd'"
    with pytest.raises(AbiError) as caught:
        SignatureParser("R1!").expect_span("I", "the inputs span 'I'")
    assert caught.value.message == "expected the inputs span 'I', got span component 'R'"
    parser = SignatureParser("I1!x")
    parser.next()
    with pytest.raises(AbiError) as caught:
        parser.expect_end("the inputs")
    assert (caught.value.message, caught.value.offset) == (
        "unexpected trailing text after the inputs",
        3,
    )
    with pytest.raises(AbiError, match="unexpected end of signature, expected a component"):
        SignatureParser("").next()
