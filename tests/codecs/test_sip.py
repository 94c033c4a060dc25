"""Structured index path signatures `sip` (docs/spec.md §6) and their readable form (docs/spec.md §9)."""

from __future__ import annotations

import pytest

from abi_compiler.codecs.sip import decode_sip, encode_sip, format_sip
from abi_compiler.model import (
    Argument,
    Dict,
    Leaf,
    Node,
    Scalar,
    Sequence,
    Signature,
    SipSignature,
    signature_from_index_paths,
)


def leaf(index: int) -> Leaf:
    return Leaf(None, index)


def test_spec_example() -> None:
    # inputs [0] -> 0, [1] -> 1, result [] -> 0
    sig = SipSignature(Sequence("list", (leaf(0), leaf(1))), leaf(0))
    assert encode_sip(sig) == "I12!S9!k0_0k1_1R3!_0"
    assert decode_sip("I12!S9!k0_0k1_1R3!_0") == sig
    assert format_sip(sig.inputs) == ":[\n  0=raw(0),\n  1=raw(1),\n],\n"
    assert format_sip(sig.results) == "=raw(0),\n"


def test_spec_example_from_index_paths() -> None:
    i32 = Scalar("i", 32)
    built = signature_from_index_paths([([0], i32), ([1], i32)], [([], i32)])
    assert encode_sip(built.sip_roots()) == "I12!S9!k0_0k1_1R3!_0"


@pytest.mark.parametrize(
    "sig",
    [
        SipSignature(None, None),
        SipSignature(Sequence("list", ()), Dict(())),
        SipSignature(Sequence("list", (None, None)), Sequence("tuple", ())),
    ],
)
def test_empty_roots_are_empty_spans(sig: SipSignature) -> None:
    assert encode_sip(sig) == "I1!R1!"


def test_empty_root_prints_nothing() -> None:
    sig = decode_sip("I1!R1!")
    assert (format_sip(sig.inputs), format_sip(sig.results)) == ("", "")


def test_empty_structure_that_is_the_root_prints_open_and_close() -> None:
    # docs/spec.md §9's visitor: entering prints `:[`/`:{` and a newline, closing `]`/`}`, `,` and
    # a newline (at the root's empty indent), also when nothing is in between.
    sig = decode_sip("I4!S1!R4!D1!")
    assert format_sip(sig.inputs) == ":[\n],\n"
    assert format_sip(sig.results) == ":{\n},\n"
    assert format_sip(Sequence("list", (None, None))) == ":[\n],\n"


def test_decode_empty_roots() -> None:
    assert decode_sip("I1!R1!") == SipSignature(None, None)


def test_explicit_empty_root_structure_decodes_as_written() -> None:
    assert decode_sip("I4!S1!R4!D1!") == SipSignature(Sequence("list", ()), Dict(()))


def test_dict_root_sorted_by_bytes() -> None:
    # Byte-wise order: 'B' < 'a' < 'b' (uppercase first).
    sig = SipSignature(Dict.sorted([("b", leaf(0)), ("a", leaf(1)), ("B", leaf(2))]), None)
    text = "I23!D19!K2!B_2K2!a_1K2!b_0R1!"
    assert encode_sip(sig) == text
    assert decode_sip(text) == sig
    assert format_sip(sig.inputs) == ":{\n  B=raw(2),\n  a=raw(1),\n  b=raw(0),\n},\n"


def test_dict_keys_may_be_any_utf8() -> None:
    sig = SipSignature(Dict.sorted([("", leaf(0)), ("é", leaf(1)), ("k!K3!", leaf(2))]), None)
    text = encode_sip(sig)
    assert text == "I27!D23!K1!_0K6!k!K3!_2K3!é_1R1!"
    assert decode_sip(text) == sig
    assert decode_sip(text.encode()) == sig


def test_nested_structures_and_gaps() -> None:
    inputs = Sequence(
        "list",
        (
            Dict((("x", leaf(0)), ("y", Sequence("list", (None, leaf(1)))))),
            None,
            leaf(2),
        ),
    )
    results = Sequence("tuple", (leaf(1), Sequence("tuple", (leaf(0),))))
    sig = SipSignature(inputs, results)
    text = "I32!S28!k0D18!K2!x_0K2!yS5!k1_1k2_2R18!S14!k0_1k1S5!k0_0"
    assert encode_sip(sig) == text
    assert decode_sip(text) == sig
    assert format_sip(inputs) == (
        ":[\n  0:{\n    x=raw(0),\n    y:[\n      1=raw(1),\n    ],\n  },\n  2=raw(2),\n],\n"
    )
    assert format_sip(results) == ":[\n  0=raw(1),\n  1:[\n    0=raw(0),\n  ],\n],\n"


def test_nested_empty_structures_are_kept() -> None:
    sig = SipSignature(Sequence("list", (Sequence("list", ()), leaf(0))), None)
    assert encode_sip(sig) == "I14!S10!k0S1!k1_0R1!"
    assert decode_sip("I14!S10!k0S1!k1_0R1!") == sig
    assert format_sip(sig.inputs) == ":[\n  0:[\n  ],\n  1=raw(0),\n],\n"


def test_decoded_sequences_are_lists_in_inputs_and_tuples_in_results() -> None:
    # As docs/spec.md §3.2 builds them from index paths.
    sig = decode_sip("I8!S5!k0_0R8!S5!k0_0")
    assert sig.inputs == Sequence("list", (leaf(0),))
    assert sig.results == Sequence("tuple", (leaf(0),))


def test_unsorted_keys_are_accepted() -> None:
    sig = decode_sip("I12!S9!k1_0k0_1R1!")
    assert sig.inputs == Sequence("list", (leaf(1), leaf(0)))
    assert encode_sip(sig) == "I12!S9!k0_1k1_0R1!"
    sig = decode_sip("I17!D13!K2!b_0K2!a_1R1!")
    assert sig.inputs == Dict((("a", leaf(1)), ("b", leaf(0))))


def test_all_named_arguments_make_a_dict_root() -> None:
    x = Leaf(Scalar("i", 32), 0)
    y = Leaf(Scalar("i", 32), 1)
    sig = Signature((Argument(0, y, "y"), Argument(1, x, "x")), ())
    assert encode_sip(sig.sip_roots()) == "I17!D13!K2!x_0K2!y_1R1!"


@pytest.mark.parametrize(
    ("node", "text"),
    [
        (None, ""),
        (leaf(3), "=raw(3),\n"),
        (Sequence("tuple", (None, leaf(0))), ":[\n  1=raw(0),\n],\n"),
        (Dict((("k", Dict((("m", leaf(0)),))),)), ":{\n  k:{\n    m=raw(0),\n  },\n},\n"),
    ],
)
def test_format(node: Node | None, text: str) -> None:
    assert format_sip(node) == text
