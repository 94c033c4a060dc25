"""The legacy raw function signature `f` (IREE's legacy "Raw Function ABI":
docs/formats.md#upstream-documents; docs/spec.md §5, §9).

``I<len>!<inputs>R<len>!<results>``, one component per flat value:

* ``B`` span: a buffer (ranked tensor): optional ``t<code>`` then ``d<dim>`` per dim,
  ``d-1`` for a dynamic dim;
* ``S`` span: a scalar, optional ``t<code>``;
* ``O1!``: a reference object (lists, ND-arrays of reference type, docs/spec.md §8.3);
* ``U1!``: a type the raw ABI does not recognize.

Scalar type codes: 0 float32 (the default, never written), 1 float16, 2 float64,
3 bfloat16, 4..7 sint8..sint64, 8..11 uint8..uint64.
"""

from __future__ import annotations

import functools
import re

from abi_compiler.codecs.lexical import (
    IntegerComponent,
    SignatureBuilder,
    SignatureParser,
    SpanComponent,
    describe,
)
from abi_compiler.errors import AbiError
from abi_compiler.model import (
    MAX_RAW_DIM,
    FlatSignature,
    ListRef,
    NDArray,
    Scalar,
    Unknown,
    ValueType,
)

# Index = code. Codes 4..7 decode to signless integers (what MLIR frontends use).
_CODE_TYPES: tuple[Scalar, ...] = (
    Scalar("f", 32),
    Scalar("f", 16),
    Scalar("f", 64),
    Scalar("bf", 16),
    Scalar("i", 8),
    Scalar("i", 16),
    Scalar("i", 32),
    Scalar("i", 64),
    Scalar("ui", 8),
    Scalar("ui", 16),
    Scalar("ui", 32),
    Scalar("ui", 64),
)
_CODE_NAMES: tuple[str, ...] = (
    "float32",
    "float16",
    "float64",
    "bfloat16",
    "sint8",
    "sint16",
    "sint32",
    "sint64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
)
_FLOAT32 = 0

# docs/spec.md §5: signless i1 and i8 share code 4. Deliberate difference: si/ui get their
# codes (IREE wrote U for them).
_SCALAR_CODES: dict[Scalar, int] = {
    Scalar("f", 32): 0,
    Scalar("f", 16): 1,
    Scalar("f", 64): 2,
    Scalar("bf", 16): 3,
    Scalar("i", 1): 4,
    Scalar("i", 8): 4,
    Scalar("i", 16): 5,
    Scalar("i", 32): 6,
    Scalar("i", 64): 7,
    Scalar("si", 8): 4,
    Scalar("si", 16): 5,
    Scalar("si", 32): 6,
    Scalar("si", 64): 7,
    Scalar("ui", 8): 8,
    Scalar("ui", 16): 9,
    Scalar("ui", 32): 10,
    Scalar("ui", 64): 11,
}

_REF_OBJECT = SignatureBuilder().span("O").text()  # O1!
_UNRECOGNIZED = SignatureBuilder().span("U").text()  # U1!


def scalar_code(t: ValueType) -> int | None:
    """The scalar type code of ``t``, or ``None`` when it has none."""
    return _SCALAR_CODES.get(t) if isinstance(t, Scalar) else None


def raw_recognized(t: ValueType) -> bool:
    """Whether ``t`` has a raw encoding other than ``U1!`` (passes warn otherwise, §5)."""
    return _encode_type(t) != _UNRECOGNIZED


def _buffer_dims_recognized(dims: tuple[int | None, ...]) -> bool:
    return all(dim is None or 0 <= dim <= MAX_RAW_DIM for dim in dims)


def _encode_type(t: ValueType) -> str:
    """The component of one flat value."""
    try:
        return _encode_type_cached(t)
    except TypeError:  # a hand-built value type holding a list is not hashable
        return _encode_value_type(t)


# A signature's types repeat, and value types are frozen (hashable) model objects.
@functools.lru_cache(maxsize=1 << 12)
def _encode_type_cached(t: ValueType) -> str:
    return _encode_value_type(t)


def _encode_value_type(t: ValueType) -> str:
    if isinstance(t, NDArray):
        if isinstance(t.element, ListRef):
            return _REF_OBJECT  # docs/spec.md §8.3: an ND-array of reference type is an object
        code = scalar_code(t.element)
        if code is None or t.dims is None or not _buffer_dims_recognized(t.dims):
            return _UNRECOGNIZED
        body = SignatureBuilder()
        if code != _FLOAT32:
            body.integer("t", code)
        for dim in t.dims:
            body.integer("d", -1 if dim is None else dim)
        return SignatureBuilder().span("B", body).text()
    if isinstance(t, Scalar):
        code = scalar_code(t)
        if code is None:
            return _UNRECOGNIZED
        body = SignatureBuilder()
        if code != _FLOAT32:
            body.integer("t", code)
        return SignatureBuilder().span("S", body).text()
    if isinstance(t, ListRef):
        return _REF_OBJECT
    return _UNRECOGNIZED


def encode_raw(sig: FlatSignature) -> str:
    """The ``f`` attribute value, e.g. ``I1!R1!`` for a function without values."""
    inputs = "".join(_encode_type(t) for t in sig.inputs)
    results = "".join(_encode_type(t) for t in sig.results)
    return SignatureBuilder().span("I", inputs).span("R", results).text()


_REF_OBJECT_TYPE = ListRef(Unknown())
_UNKNOWN_TYPE = Unknown()
# Fast paths for well-formed buffer and scalar contents (bounded digit counts keep the
# values in range); anything else goes through the component-wise parse for its error.
_BUFFER_BODY = re.compile(rb"(?:t([0-9]{1,2}))?((?:d(?:-1|[0-9]{1,10}))*)")
_SCALAR_BODY = re.compile(rb"(?:t([0-9]{1,2}))?")
_DIM = re.compile(rb"d(-?[0-9]+)")
# One well-formed type component. The declared length is compared with the match
# afterwards: a greedy body that runs past its length falls back to the slow parse.
_TYPE_COMPONENT = re.compile(
    rb"B([0-9]{1,4})!(?:t([0-9]{1,2}))?((?:d(?:-1|[0-9]{1,9}))*)|S([0-9])!(?:t([0-9]{1,2}))?|O1!|U1!"
)


def decode_raw(text: str | bytes) -> FlatSignature:
    """Parse an ``f`` value; `AbiError` with the byte offset on malformed text."""
    parser = SignatureParser(text)
    inputs = _decode_types(parser.expect_span("I", "the inputs span 'I'"))
    results = _decode_types(parser.expect_span("R", "the results span 'R'"))
    parser.expect_end("the results span")
    return FlatSignature(inputs, results)


def _decode_types(span: SpanComponent) -> tuple[ValueType, ...]:
    fast = _decode_types_quickly(span.data, span.start, span.end)
    if fast is not None:
        return fast
    found: list[ValueType] = []
    for component in span.parser():
        tag = component.tag
        if type(component) is not SpanComponent:
            raise AbiError(
                f"expected a type span ('B', 'S', 'O' or 'U'), got {describe(component)}",
                offset=component.offset,
            )
        if tag == "B":
            found.append(_decode_buffer(component))
        elif tag == "S":
            found.append(_decode_scalar(component))
        elif tag == "O":
            _expect_empty(component, "a reference object span 'O'")
            found.append(_REF_OBJECT_TYPE)
        elif tag == "U":
            _expect_empty(component, "an unrecognized type span 'U'")
            found.append(_UNKNOWN_TYPE)
        else:
            raise AbiError(
                f"expected a type span ('B', 'S', 'O' or 'U'), got {describe(component)}",
                offset=component.offset,
            )
    return tuple(found)


def _decode_types_quickly(data: bytes, start: int, end: int) -> tuple[ValueType, ...] | None:
    """The types of a well-formed span, or ``None`` to let the component-wise parse
    find the error."""
    found: list[ValueType] = []
    position = start
    while position < end:
        match = _TYPE_COMPONENT.match(data, position, end)
        if match is None:
            return None
        length, code, dims_text, scalar_length, scalar_code = match.groups()
        size = match.end() - position
        first = data[position]
        if first == 0x42:  # 'B'
            code_value = 0 if code is None else int(code)
            if int(length) != size - 1 - len(length) or code_value >= len(_CODE_TYPES):
                return None
            dims = tuple([None if dim == b"-1" else int(dim) for dim in _DIM.findall(dims_text)])
            found.append(NDArray(_CODE_TYPES[code_value], dims))
        elif first == 0x53:  # 'S'
            code_value = 0 if scalar_code is None else int(scalar_code)
            if int(scalar_length) != size - 2 or code_value >= len(_CODE_TYPES):
                return None
            found.append(_CODE_TYPES[code_value])
        else:
            found.append(_REF_OBJECT_TYPE if first == 0x4F else _UNKNOWN_TYPE)
        position = match.end()
    return tuple(found)


def _expect_empty(span: SpanComponent, what: str) -> None:
    if span.start != span.end:
        raise AbiError(f"{what} must be empty", offset=span.start)


def _element_code(component: IntegerComponent) -> Scalar:
    code = component.value
    if not 0 <= code < len(_CODE_TYPES):
        raise AbiError(
            f"unknown scalar type code {code} (expected 0..11)", offset=component.offset + 1
        )
    return _CODE_TYPES[code]


def _decode_buffer(span: SpanComponent) -> NDArray:
    match = _BUFFER_BODY.fullmatch(span.data, span.start, span.end)
    if match is not None:
        code, dims_text = match.groups()
        code_value = 0 if code is None else int(code)
        raw_dims = _DIM.findall(dims_text)
        # Up to 9 digits is always <= MAX_RAW_DIM; 10 digits may not be.
        if code_value < len(_CODE_TYPES) and not any(len(dim) == 10 for dim in raw_dims):
            dims = tuple([None if dim == b"-1" else int(dim) for dim in raw_dims])
            return NDArray(_CODE_TYPES[code_value], dims)
    return _decode_buffer_slowly(span)


def _decode_buffer_slowly(span: SpanComponent) -> NDArray:
    element = _CODE_TYPES[_FLOAT32]
    dims: list[int | None] = []
    first = True
    for component in span.parser():
        if isinstance(component, IntegerComponent) and component.tag == "t" and first:
            element = _element_code(component)
        elif isinstance(component, IntegerComponent) and component.tag == "d":
            dim = component.value
            if dim == -1:
                dims.append(None)
            elif 0 <= dim <= MAX_RAW_DIM:
                dims.append(dim)
            else:
                raise AbiError(
                    f"invalid dim {dim} (expected -1 or 0..{MAX_RAW_DIM})",
                    offset=component.offset + 1,
                )
        else:
            expected = "an element type 't' or a dim 'd'" if first else "a dim 'd'"
            raise AbiError(
                f"expected {expected} in a buffer span, got {describe(component)}",
                offset=component.offset,
            )
        first = False
    return NDArray(element, tuple(dims))


def _decode_scalar(span: SpanComponent) -> Scalar:
    match = _SCALAR_BODY.fullmatch(span.data, span.start, span.end)
    if match is not None:
        code = match.group(1)
        code_value = 0 if code is None else int(code)
        if code_value < len(_CODE_TYPES):
            return _CODE_TYPES[code_value]
    parser = span.parser()
    if parser.at_end:
        return _CODE_TYPES[_FLOAT32]
    component = parser.next()
    if not isinstance(component, IntegerComponent) or component.tag != "t":
        raise AbiError(
            f"expected an element type 't' in a scalar span, got {describe(component)}",
            offset=component.offset,
        )
    parser.expect_end("the scalar's element type")
    return _element_code(component)


# ------------------------------------------------------------------------------------
# Readable form (docs/spec.md §9), as IREE's RawSignatureParser::ToString printed it.
# ------------------------------------------------------------------------------------


def _format_type(t: ValueType) -> str:
    if isinstance(t, NDArray) and not isinstance(t.element, ListRef):
        code = scalar_code(t.element)
        if code is None or t.dims is None or not _buffer_dims_recognized(t.dims):
            return "!UNKNOWN!"
        dims = "x".join("?" if dim is None else str(dim) for dim in t.dims)
        return f"Buffer<{_CODE_NAMES[code]}[{dims}]>"
    if isinstance(t, Scalar):
        code = scalar_code(t)
        return "!UNKNOWN!" if code is None else _CODE_NAMES[code]
    if isinstance(t, (ListRef, NDArray)):
        return "RefObject<?>"
    return "!UNKNOWN!"


def format_raw(sig: FlatSignature) -> str:
    """``(RefObject<?>, Buffer<float32[?x128x64]>, sint32) -> (Buffer<uint64[32x?x64]>)``:
    what the raw encoding of ``sig`` says, in IREE's debugging form."""
    inputs = ", ".join(_format_type(t) for t in sig.inputs)
    results = ", ".join(_format_type(t) for t in sig.results)
    return f"({inputs}) -> ({results})"
