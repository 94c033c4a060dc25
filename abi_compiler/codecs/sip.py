"""Legacy structured index path signatures `sip` (IREE's legacy "Structured Index Path
ABI": docs/formats.md#upstream-documents; docs/spec.md §6, §9).

``I<len>!<structured value>R<len>!<structured value>`` where a structured value is

* ``_<index>``: a leaf, the flat (raw) index of the value;
* ``S`` span of ``k<key> <value>`` pairs: a sequence;
* ``D`` span of ``K<len>!<key bytes> <value>`` pairs: a dict.

An empty root (no leaves) is the empty span: ``I1!``, ``R1!``. Keys are written sorted
(numerically / byte-wise). Decoded leaves have no type (``Leaf(None, index)``); decoded
input sequences are lists and result sequences tuples, as docs/spec.md §3.2 builds them from
index paths.
"""

from __future__ import annotations

import re
from typing import Literal

from abi_compiler.codecs.lexical import (
    IntegerComponent,
    SignatureParser,
    SpanComponent,
    describe,
    printable,
    span_component,
)
from abi_compiler.errors import AbiError
from abi_compiler.model import (
    MAX_SEQUENCE_KEY,
    MAX_STRUCTURE_DEPTH,
    Dict,
    Leaf,
    Node,
    Sequence,
    SipSignature,
    children,
)

# Nesting bound: keeps decoding away from Python's recursion limit on hostile input. One
# level above the deepest value the passes accept, for the root sequence or dict around
# it: what they write decodes.
MAX_SIP_DEPTH = MAX_STRUCTURE_DEPTH + 1
# Sequence keys are at most model.MAX_SEQUENCE_KEY: gaps are materialised as ``None`` items,
# so an unbounded key would let ``S12!k999999999_0`` allocate gigabytes.
# `k<key>_<index>` with the key within MAX_SEQUENCE_KEY and the index within 64 bits.
_KEY_AND_LEAF = re.compile(rb"k([0-9]{1,6})_([0-9]{1,18})(?![0-9])")
_KEY_SPAN = re.compile(rb"K([1-9][0-9]{0,3})!")
_LEAF = re.compile(rb"_([0-9]{1,18})(?![0-9])")


# ------------------------------------------------------------------------------------
# Encoding.
# ------------------------------------------------------------------------------------


def _has_children(node: Node | None) -> bool:
    if isinstance(node, Sequence):
        return any(item is not None for item in node.items)
    if isinstance(node, Dict):
        return bool(node.items)
    return node is not None


# Components are written as strings into lists, spans through `span_component` (the
# length rule); the tags are the constants below.


def _encode_node(node: Node, parts: list[str]) -> None:
    if isinstance(node, Leaf):
        parts.append(f"_{node.index}")
        return
    inner: list[str] = []
    if isinstance(node, Sequence):
        for key, item in enumerate(node.items):
            if item is None:
                continue
            if isinstance(item, Leaf):  # inlined: most items are leaves
                inner.append(f"k{key}_{item.index}")
            else:
                inner.append(f"k{key}")
                _encode_node(item, inner)
        parts.append(span_component("S", "".join(inner)))
    else:
        for name, child in node.items:
            inner.append(span_component("K", name))
            if isinstance(child, Leaf):
                inner.append(f"_{child.index}")
            else:
                _encode_node(child, inner)
        parts.append(span_component("D", "".join(inner)))


def _encode_root(tag: str, node: Node | None) -> str:
    parts: list[str] = []
    # docs/spec.md §6: an empty structure at the root is the empty span.
    if node is not None and _has_children(node):
        _encode_node(node, parts)
    return span_component(tag, "".join(parts))


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
        tag = component.tag
        if tag == "_" and type(component) is IntegerComponent:
            index = component.value
            if index < 0:
                raise AbiError(f"negative raw index {index}", offset=component.offset + 1)
            indices = self.indices
            if index in indices:
                raise AbiError(f"duplicate raw index {index}", offset=component.offset + 1)
            indices.add(index)
            return Leaf(None, index)
        if type(component) is not SpanComponent or tag not in ("S", "D"):
            raise AbiError(
                "expected a structured value ('_' index, 'S' or 'D' span), "
                f"got {describe(component)}",
                offset=component.offset,
            )
        if depth > MAX_SIP_DEPTH:
            raise AbiError(
                f"structure nested deeper than {MAX_SIP_DEPTH} levels", offset=component.offset
            )
        if tag == "S":
            return self.sequence(component, depth + 1)
        return self.dict(component, depth + 1)

    def sequence(self, span: SpanComponent, depth: int) -> Sequence:
        found: dict[int, Node] = {}
        parser = span.parser()
        data, end = parser.data, parser.end
        indices = self.indices
        while parser.offset < end:
            # Fast path for the common `k<key>_<index>` pair (a leaf in a sequence).
            pair = _KEY_AND_LEAF.match(data, parser.offset, end)
            if pair is not None:
                key_value, index = int(pair.group(1)), int(pair.group(2))
                if key_value not in found and index not in indices:
                    indices.add(index)
                    found[key_value] = Leaf(None, index)
                    parser.offset = pair.end()
                    continue
            key = parser.expect(IntegerComponent, "k", "a sequence key 'k'")
            key_value = key.value
            if not 0 <= key_value <= MAX_SEQUENCE_KEY:
                raise AbiError(
                    f"sequence key {key_value} out of range (expected 0..{MAX_SEQUENCE_KEY})",
                    offset=key.offset + 1,
                )
            if key_value in found:
                raise AbiError(f"duplicate sequence key {key_value}", offset=key.offset + 1)
            found[key_value] = self.value(_next_value(parser), depth)
        width = max(found, default=-1) + 1
        if width == len(found) and all(key == i for i, key in enumerate(found)):
            return Sequence(self.sequence_kind, tuple(found.values()))  # dense, in order
        items: list[Node | None] = [None] * width
        for key_value, child in found.items():
            items[key_value] = child
        return Sequence(self.sequence_kind, tuple(items))

    def dict(self, span: SpanComponent, depth: int) -> Dict:
        found: dict[str, Node] = {}
        in_order = True
        previous = b""
        parser = span.parser()
        data, end = parser.data, parser.end
        indices = self.indices
        while parser.offset < end:
            # Fast path for the common `K<len>!<ASCII key>_<index>` pair (a leaf in a dict).
            head = _KEY_SPAN.match(data, parser.offset, end)
            if head is not None:
                key_end = head.end() + int(head.group(1)) - 1
                leaf = _LEAF.match(data, key_end, end) if key_end < end else None
                if leaf is not None:
                    raw_key = data[head.end() : key_end]
                    index = int(leaf.group(1))
                    if raw_key.isascii() and index not in indices:
                        name = raw_key.decode("ascii")
                        if name not in found:
                            if found and raw_key < previous:
                                in_order = False
                            previous = raw_key
                            indices.add(index)
                            found[name] = Leaf(None, index)
                            parser.offset = leaf.end()
                            continue
            key = parser.expect_span("K", "a dict key span 'K'")
            raw_key = key.contents
            try:
                name = raw_key.decode("utf-8", "surrogatepass")
            except UnicodeDecodeError as error:
                raise AbiError(
                    "dict key is not valid UTF-8", offset=key.start + error.start
                ) from None
            if name in found:
                shown = name if len(name) <= 40 else name[:37] + "..."
                raise AbiError(f"duplicate dict key {shown!r}", offset=key.offset)
            if in_order and found and raw_key < previous:
                in_order = False
            previous = raw_key
            found[name] = self.value(_next_value(parser), depth)
        if in_order:  # UTF-8 bytes order is the model's key order (dict_key_order)
            return Dict(tuple(found.items()))
        return Dict.sorted(list(found.items()))


def _next_value(parser: SignatureParser) -> IntegerComponent | SpanComponent:
    """The structured value after a key."""
    if parser.offset >= parser.end:
        raise AbiError(
            "unexpected end of span, expected the structured value of a key",
            offset=parser.offset,
        )
    return parser.next()


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
# Readable form (docs/spec.md §9), as IREE's SipSignatureParser::ToStringVisitor printed it.
# ------------------------------------------------------------------------------------


def _format_node(node: Node, indent: str, out: list[str]) -> None:
    if isinstance(node, Leaf):
        out.append(f"=raw({node.index}),\n")
        return
    opening, closing = (":[\n", "]") if isinstance(node, Sequence) else (":{\n", "}")
    out.append(opening)
    inner = indent + "  "
    for key, child in children(node):
        out.append(f"{inner}{printable(str(key))}")
        _format_node(child, inner, out)
    out.append(f"{indent}{closing},\n")


def format_sip(node: Node | None) -> str:
    """One side of a SIP signature: ``":[\\n  0=raw(0),\\n  1=raw(1),\\n],\\n"`` for the
    inputs ``[0] -> 0, [1] -> 1``. An empty root (``None``: the empty span ``I1!``)
    prints nothing; a root whose value is an empty structure (``I4!S1!``) prints its
    opening and closing lines, as IREE's ``ToStringVisitor`` does (docs/spec.md §9)."""
    if node is None:
        return ""
    out: list[str] = []
    _format_node(node, "", out)
    return "".join(out)
