"""Property tests for the codecs: round trips on each encoding's canonical subset of the
model, and hostile input that must either decode or raise `AbiError`, quickly."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any
from unittest.mock import patch

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abi_compiler.codecs import raw as raw_codec
from abi_compiler.codecs import sip as sip_codec
from abi_compiler.codecs.json_abi import decode_json, encode_json, format_declaration
from abi_compiler.codecs.lexical import IntegerComponent, SignatureBuilder, SignatureParser
from abi_compiler.codecs.raw import decode_raw, encode_raw, format_raw
from abi_compiler.codecs.sip import decode_sip, encode_sip, format_sip
from abi_compiler.errors import AbiError
from abi_compiler.model import (
    MAX_RAW_DIM,
    Argument,
    Dict,
    FlatSignature,
    Leaf,
    ListRef,
    NDArray,
    Node,
    Scalar,
    Sequence,
    Signature,
    SipSignature,
    Unknown,
    ValueType,
    dict_key_order,
)

PROPERTY = settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Generous: a decoder that hangs or goes quadratic on small input blows through it. CPU
# time of this process, not wall time: other jobs on a loaded machine do not count.
TIME_BOUND_SECONDS = 2.0

DECODERS: dict[str, Callable[[str | bytes], object]] = {
    "raw": decode_raw,
    "sip": decode_sip,
    "json": decode_json,
}

# ------------------------------------------------------------------------------------
# Model strategies.
# ------------------------------------------------------------------------------------

keys = st.text(max_size=6)
dims = st.one_of(st.none(), st.integers(0, 2**40))


def renumber(node: Node | None, counter: list[int]) -> Node | None:
    """The same tree with leaves numbered in natural order from ``counter[0]``."""
    if node is None:
        return None
    if isinstance(node, Leaf):
        index = counter[0]
        counter[0] += 1
        return Leaf(node.type, index)
    if isinstance(node, Sequence):
        return Sequence(node.kind, tuple(renumber(item, counter) for item in node.items))
    items = [(key, renumber(item, counter)) for key, item in node.items]
    return Dict(tuple((key, item) for key, item in items if item is not None))


def sorted_unique(pairs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    unique = dict(pairs)
    return sorted(unique.items(), key=lambda pair: dict_key_order(pair[0]))


# JSON: the records name signless integers, floats and bf16 only.
json_scalars = st.one_of(
    st.builds(Scalar, st.sampled_from(["i", "f"]), st.integers(1, 200)),
    st.just(Scalar("bf", 16)),
)
json_types: st.SearchStrategy[ValueType] = st.recursive(
    st.one_of(json_scalars, st.just(Unknown())),
    lambda inner: st.one_of(
        st.builds(
            NDArray,
            inner,
            st.one_of(st.none(), st.tuples() | st.lists(dims, max_size=4).map(tuple)),
        ),
        st.builds(ListRef, inner),
    ),
    max_leaves=3,
)


def json_nodes(leaf_types: st.SearchStrategy[ValueType]) -> st.SearchStrategy[Node]:
    return st.recursive(
        st.builds(Leaf, leaf_types, st.just(0)),
        lambda inner: st.one_of(
            st.builds(
                Sequence,
                st.sampled_from(["list", "tuple"]),
                st.lists(st.one_of(st.none(), inner), max_size=4).map(tuple),
            ),
            st.lists(st.tuples(keys, inner), max_size=4).map(
                lambda pairs: Dict(tuple(sorted_unique(pairs)))
            ),
        ),
        max_leaves=5,
    )


JSON_NODES = json_nodes(json_types)


@st.composite
def json_signatures(draw: st.DrawFn) -> Signature:
    nodes = JSON_NODES
    raw_arguments = draw(st.lists(st.tuples(nodes, st.one_of(st.none(), keys)), max_size=4))
    counter = [0]
    arguments: list[Argument] = []
    names: set[str] = set()
    for key, (node, name) in enumerate(raw_arguments):
        if name is not None and name in names:
            name = None
        if name is not None:
            names.add(name)
        renumbered = renumber(node, counter)
        assert renumbered is not None
        arguments.append(Argument(key, renumbered, name))
    counter = [0]
    results = tuple(renumber(node, counter) for node in draw(st.lists(nodes, max_size=3)))
    return Signature(tuple(arguments), tuple(n for n in results if n is not None))


# Raw: what decoding gives back (float32, signless sint codes, uint codes, bf16, f16/f64).
raw_scalars = st.sampled_from(
    [Scalar("f", w) for w in (16, 32, 64)]
    + [Scalar("bf", 16)]
    + [Scalar("i", w) for w in (8, 16, 32, 64)]
    + [Scalar("ui", w) for w in (8, 16, 32, 64)]
)
raw_types = st.one_of(
    raw_scalars,
    st.builds(
        NDArray,
        raw_scalars,
        st.lists(st.one_of(st.none(), st.integers(0, MAX_RAW_DIM)), max_size=5).map(tuple),
    ),
    st.just(ListRef(Unknown())),
    st.just(Unknown()),
)
raw_signatures = st.builds(
    FlatSignature,
    st.lists(raw_types, max_size=6).map(tuple),
    st.lists(raw_types, max_size=6).map(tuple),
)


# SIP: untyped leaves with distinct indices, no trailing gaps, non-empty roots.
def sip_nodes(kind: str) -> st.SearchStrategy[Node]:
    def sequence(items: list[Node | None]) -> Sequence:
        while items and items[-1] is None:
            items = items[:-1]
        return Sequence(kind, tuple(items))  # type: ignore[arg-type]

    return st.recursive(
        st.builds(Leaf, st.none(), st.just(0)),
        lambda inner: st.one_of(
            st.lists(st.one_of(st.none(), inner), max_size=4).map(sequence),
            st.lists(st.tuples(keys, inner), max_size=4).map(
                lambda pairs: Dict(tuple(sorted_unique(pairs)))
            ),
        ),
        max_leaves=6,
    )


def is_nonempty(node: Node) -> bool:
    if isinstance(node, Leaf):
        return True
    if isinstance(node, Sequence):
        return any(item is not None for item in node.items)
    return bool(node.items)


SIP_NODES = {"list": sip_nodes("list"), "tuple": sip_nodes("tuple")}


@st.composite
def sip_roots(draw: st.DrawFn, kind: str) -> Node | None:
    node = draw(st.one_of(st.none(), SIP_NODES[kind]))
    if node is None or not is_nonempty(node):
        return None
    count = len(list(_leaves(node)))
    indices = draw(st.permutations(range(count)))
    spare = draw(st.integers(0, 3))  # indices need not be dense
    return _assign(node, iter(index * (1 + spare) for index in indices))


def _leaves(node: Node) -> list[Leaf]:
    if isinstance(node, Leaf):
        return [node]
    items = node.items if isinstance(node, Sequence) else [item for _, item in node.items]
    return [leaf for item in items if item is not None for leaf in _leaves(item)]


def _assign(node: Node, indices: Any) -> Node:
    if isinstance(node, Leaf):
        return Leaf(None, next(indices))
    if isinstance(node, Sequence):
        return Sequence(
            node.kind,
            tuple(None if item is None else _assign(item, indices) for item in node.items),
        )
    return Dict(tuple((key, _assign(item, indices)) for key, item in node.items))


sip_signatures = st.builds(SipSignature, sip_roots("list"), sip_roots("tuple"))

# ------------------------------------------------------------------------------------
# Round trips.
# ------------------------------------------------------------------------------------


@PROPERTY
@given(json_signatures())
def test_json_round_trip(sig: Signature) -> None:
    text = encode_json(sig)
    assert text.isascii()
    assert decode_json(text) == sig
    assert json.loads(text)["v"] == 1
    format_declaration(sig)


@PROPERTY
@given(raw_signatures)
def test_raw_round_trip(sig: FlatSignature) -> None:
    text = encode_raw(sig)
    assert decode_raw(text) == sig
    assert format_raw(decode_raw(text)) == format_raw(sig)


@PROPERTY
@given(sip_signatures)
def test_sip_round_trip(sig: SipSignature) -> None:
    text = encode_sip(sig)
    assert decode_sip(text) == sig
    assert decode_sip(text.encode("utf-8", "surrogatepass")) == sig
    format_sip(sig.inputs)
    format_sip(sig.results)


components = st.lists(
    st.one_of(
        st.tuples(st.sampled_from("_abdkz"), st.integers(-(2**63), 2**63 - 1)),
        st.tuples(st.sampled_from("ABIKRSZ"), st.text(max_size=8)),
    ),
    max_size=6,
)


@PROPERTY
@given(components)
def test_lexical_round_trip(parts: list[tuple[str, int | str]]) -> None:
    builder = SignatureBuilder()
    for tag, value in parts:
        if isinstance(value, int):
            builder.integer(tag, value)
        else:
            builder.span(tag, value)
    parsed: list[tuple[str, int | str]] = []
    for component in SignatureParser(builder.text()):
        if isinstance(component, IntegerComponent):
            parsed.append((component.tag, component.value))
        else:
            parsed.append((component.tag, component.contents.decode("utf-8", "surrogatepass")))
    assert parsed == parts


# ------------------------------------------------------------------------------------
# Hostile input: decode or AbiError, within the time bound, never anything else.
# ------------------------------------------------------------------------------------


def decode_or_reject(name: str, text: str | bytes) -> None:
    start = time.process_time()
    try:
        DECODERS[name](text)
    except AbiError as error:
        assert error.offset is not None
        size = len(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
        assert 0 <= error.offset <= size
    assert time.process_time() - start < TIME_BOUND_SECONDS


signature_alphabet = st.sampled_from([*'IRBSOUDKkdt_-0123456789!{}[],:" nul', "é"])
lexical_text = st.text(signature_alphabet, max_size=40)


@PROPERTY
@given(st.sampled_from(sorted(DECODERS)), st.one_of(st.text(max_size=60), lexical_text))
def test_random_text(name: str, text: str) -> None:
    decode_or_reject(name, text)


@PROPERTY
@given(st.sampled_from(sorted(DECODERS)), st.binary(max_size=60))
def test_random_bytes(name: str, data: bytes) -> None:
    decode_or_reject(name, data)


def mutate(text: str, data: st.DataObject) -> str:
    """Insert, delete or replace a few characters of a valid encoding."""
    for _ in range(data.draw(st.integers(1, 3))):
        position = data.draw(st.integers(0, len(text)))
        action = data.draw(st.sampled_from(["insert", "delete", "replace"]))
        char = data.draw(signature_alphabet)
        if action == "insert":
            text = text[:position] + char + text[position:]
        elif action == "delete":
            text = text[:position] + text[position + 1 :]
        else:
            text = text[:position] + char + text[position + 1 :]
    return text


@PROPERTY
@given(st.data())
def test_mutated_encodings(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(DECODERS)))
    if name == "raw":
        text = encode_raw(data.draw(raw_signatures))
    elif name == "sip":
        text = encode_sip(data.draw(sip_signatures))
    else:
        text = encode_json(data.draw(json_signatures()))
    decode_or_reject(name, mutate(text, data))


json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-5, 2**70),
        st.floats(allow_nan=True),
        st.sampled_from(
            [
                "i32",
                "f16",
                "bf16",
                "unknown",
                "ndarray",
                "slist",
                "stuple",
                "sdict",
                "named",
                "py_homogeneous_list",
                "i0",
                "x",
            ]
        ),
        st.text(max_size=4),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(st.text(max_size=3), inner, max_size=3),
    ),
    max_leaves=10,
)


@PROPERTY
@given(st.lists(json_values, max_size=4), st.lists(json_values, max_size=3), json_values)
def test_random_json_documents(a: list[Any], r: list[Any], v: Any) -> None:
    # Well-formed JSON with random records: exercises every validation path.
    document = {"a": a, "r": r, "v": v}
    text = json.dumps(document)
    decode_or_reject("json", text)
    try:
        sig = decode_json(text)
    except AbiError:
        return
    # What validates re-encodes to the same document.
    assert json.loads(encode_json(sig)) == json.loads(text)


# ------------------------------------------------------------------------------------
# The fast paths for well-formed raw and SIP input agree with the component-wise parse.
# ------------------------------------------------------------------------------------

NEVER = re.compile(rb"(?!)")


def outcome(decoder: Callable[[str | bytes], object], text: str) -> object:
    try:
        return decoder(text)
    except AbiError as error:
        return (error.message, error.offset)


def slow_outcome(name: str, text: str) -> object:
    if name == "raw":
        with (
            patch.object(raw_codec, "_decode_types_quickly", lambda *_: None),
            patch.object(raw_codec, "_BUFFER_BODY", NEVER),
            patch.object(raw_codec, "_SCALAR_BODY", NEVER),
        ):
            return outcome(decode_raw, text)
    with (
        patch.object(sip_codec, "_KEY_AND_LEAF", NEVER),
        patch.object(sip_codec, "_KEY_SPAN", NEVER),
    ):
        return outcome(decode_sip, text)


@PROPERTY
@given(st.data())
def test_fast_paths_agree_with_the_component_parse(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(["raw", "sip"]))
    if name == "raw":
        text = encode_raw(data.draw(raw_signatures))
    else:
        text = encode_sip(data.draw(sip_signatures))
    if data.draw(st.booleans()):
        text = mutate(text, data)
    assert outcome(DECODERS[name], text) == slow_outcome(name, text)
