"""Legacy structured index path signatures `sip` (seed 000 "Structured Index Path ABI",
SPEC §6, §9).

``I<len>!<structured value>R<len>!<structured value>`` where a structured value is

* ``_<index>``: a leaf, the flat (raw) index of the value;
* ``S`` span of ``k<key> <value>`` pairs: a sequence;
* ``D`` span of ``K<len>!<key bytes> <value>`` pairs: a dict.

An empty root (no leaves) is the empty span: ``I1!``, ``R1!``. Keys are written sorted
(numerically / byte-wise). Decoded leaves have no type (``Leaf(None, index)``); decoded
input sequences are lists and result sequences tuples, as SPEC §3.2 builds them from
index paths.
"""

from __future__ import annotations

from typing import Literal

from abi_compiler.codecs.lexical import (
    IntegerComponent,
    SignatureParser,
    SpanComponent,
    as_signature_bytes,
    describe,
)
from abi_compiler.errors import AbiError
from abi_compiler.model import Dict, Leaf, Node, Sequence, SipSignature, children

# Nesting bound: keeps decoding away from Python's recursion limit on hostile input.
MAX_SIP_DEPTH = 100
# The largest sequence key decoding accepts: gaps are materialised as ``None`` items,
# so an unbounded key would let ``S12!k999999999_0`` allocate gigabytes.
MAX_SEQUENCE_KEY = 2**20


# ------------------------------------------------------------------------------------
# Encoding.
# ------------------------------------------------------------------------------------


def _has_children(node: Node | None) -> bool:
    if isinstance(node, Sequence):
        return any(item is not None for item in node.items)
    if isinstance(node, Dict):
        return bool(node.items)
    return node is not None


def _encode_key(key: str) -> str:
    size = len(key) if key.isascii() else len(as_signature_bytes(key))
    return f"K{size + 1}!{key}"


def _encode_node(node: Node, parts: list[str]) -> None:
    if isinstance(node, Leaf):
        parts.append(f"_{node.index}")
        return
    inner: list[str] = []
    if isinstance(node, Sequence):
        for key, item in enumerate(node.items):
            if item is not None:
                inner.append(f"k{key}")
                _encode_node(item, inner)
        tag = "S"
    else:
        for key, item in node.items:
            inner.append(_encode_key(key))
            _encode_node(item, inner)
        tag = "D"
    body = "".join(inner)
    size = len(body) if body.isascii() else len(as_signature_bytes(body))
    parts.append(f"{tag}{size + 1}!{body}")


def _encode_root(tag: str, node: Node | None) -> str:
    if node is None or not _has_children(node):
        return f"{tag}1!"  # SPEC §6: an empty structure at the root is the empty span
    parts: list[str] = []
    _encode_node(node, parts)
    body = "".join(parts)
    size = len(body) if body.isascii() else len(as_signature_bytes(body))
    return f"{tag}{size + 1}!{body}"


def encode_sip(s: SipSignature) -> str:
    """The ``sip`` attribute value, e.g. ``I12!S9!k0_0k1_1R3!_0``."""
    return _encode_root("I", s.inputs) + _encode_root("R", s.results)


# ------------------------------------------------------------------------------------
# Decoding.
# ------------------------------------------------------------------------------------


class _Decoder:
    __slots__ = ("indices", "sequence_kind")

    def __init__(self, sequence_kind: Literal["list", "tuple"]) -> None:
        self.sequence_kind: Literal["list", "tuple"] = sequence_kind
        self.indices: set[int] = set()

    def root(self, span: SpanComponent, what: str) -> Node | None:
        parser = span.parser()
        if parser.at_end:
            return None
        node = self.value(parser.next(), 1)
        parser.expect_end(f"the structured value of the {what} span")
        return node

    def value(self, component: IntegerComponent | SpanComponent, depth: int) -> Node:
        if isinstance(component, IntegerComponent):
            if component.tag != "_":
                raise AbiError(
                    "expected a structured value ('_' index, 'S' or 'D' span), "
                    f"got {describe(component)}",
                    offset=component.offset,
                )
            index = component.value
            if index < 0:
                raise AbiError(f"negative raw index {index}", offset=component.offset + 1)
            if index in self.indices:
                raise AbiError(f"duplicate raw index {index}", offset=component.offset + 1)
            self.indices.add(index)
            return Leaf(None, index)
        if component.tag not in ("S", "D"):
            raise AbiError(
                "expected a structured value ('_' index, 'S' or 'D' span), "
                f"got {describe(component)}",
                offset=component.offset,
            )
        if depth > MAX_SIP_DEPTH:
            raise AbiError(
                f"structure nested deeper than {MAX_SIP_DEPTH} levels", offset=component.offset
            )
        if component.tag == "S":
            return self.sequence(component, depth)
        return self.dict(component, depth)

    def _child(self, parser: SignatureParser, depth: int) -> Node:
        if parser.at_end:
            raise AbiError(
                "unexpected end of span, expected the structured value of a key",
                offset=parser.offset,
            )
        return self.value(parser.next(), depth + 1)

    def sequence(self, span: SpanComponent, depth: int) -> Sequence:
        found: dict[int, Node] = {}
        parser = span.parser()
        while not parser.at_end:
            key = parser.next()
            if not isinstance(key, IntegerComponent) or key.tag != "k":
                raise AbiError(
                    f"expected a sequence key 'k', got {describe(key)}", offset=key.offset
                )
            if not 0 <= key.value <= MAX_SEQUENCE_KEY:
                raise AbiError(
                    f"sequence key {key.value} out of range (expected 0..{MAX_SEQUENCE_KEY})",
                    offset=key.offset + 1,
                )
            if key.value in found:
                raise AbiError(f"duplicate sequence key {key.value}", offset=key.offset + 1)
            found[key.value] = self._child(parser, depth)
        width = max(found, default=-1) + 1
        items: list[Node | None] = [None] * width
        for key_value, child in found.items():
            items[key_value] = child
        return Sequence(self.sequence_kind, tuple(items))

    def dict(self, span: SpanComponent, depth: int) -> Dict:
        found: dict[str, Node] = {}
        parser = span.parser()
        while not parser.at_end:
            key = parser.next()
            if not isinstance(key, SpanComponent) or key.tag != "K":
                raise AbiError(
                    f"expected a dict key span 'K', got {describe(key)}", offset=key.offset
                )
            try:
                name = key.contents.decode("utf-8", "surrogatepass")
            except UnicodeDecodeError as error:
                raise AbiError(
                    "dict key is not valid UTF-8", offset=key.start + error.start
                ) from None
            if name in found:
                raise AbiError(f"duplicate dict key {name!r}", offset=key.offset)
            found[name] = self._child(parser, depth)
        return Dict.sorted(list(found.items()))


def decode_sip(text: str | bytes) -> SipSignature:
    """Parse a ``sip`` value; `AbiError` with the byte offset on malformed text.

    Keys may come in any order (IREE's parser accepted that too); a key given twice, or
    a raw index used twice on one side, is an error.
    """
    parser = SignatureParser(text)
    inputs_span = parser.expect_span("I", "the inputs span 'I'")
    results_span = parser.expect_span("R", "the results span 'R'")
    parser.expect_end("the results span")
    inputs = _Decoder("list").root(inputs_span, "inputs")
    results = _Decoder("tuple").root(results_span, "results")
    return SipSignature(inputs, results)


# ------------------------------------------------------------------------------------
# Readable form (SPEC §9), as IREE's SipSignatureParser::ToStringVisitor printed it.
# ------------------------------------------------------------------------------------


def _format_node(node: Node, indent: str, out: list[str]) -> None:
    if isinstance(node, Leaf):
        out.append(f"=raw({node.index}),\n")
        return
    opening, closing = (":[\n", "]") if isinstance(node, Sequence) else (":{\n", "}")
    out.append(opening)
    inner = indent + "  "
    for key, child in children(node):
        out.append(f"{inner}{key}")
        _format_node(child, inner, out)
    out.append(f"{indent}{closing},\n")


def format_sip(node: Node | None) -> str:
    """One side of a SIP signature: ``":[\\n  0=raw(0),\\n  1=raw(1),\\n],\\n"`` for the
    inputs ``[0] -> 0, [1] -> 1``. An empty root prints nothing — also a structure
    without children, which the encoding writes as the empty span too."""
    if node is None or not _has_children(node):
        return ""
    out: list[str] = []
    _format_node(node, "", out)
    return "".join(out)
