"""A `DenseIntOrFPElementsAttr` as its stored bytes: the size of an element, whether an
attribute is a compact splat, one element's MLIR text, and a hexadecimal literal decoded
in pieces. What the dense-literal parser (`defects`) and the dense attributes' accessors
and printer (`speedups`) share (docs/xdsl-fixes.md, "Splats" and "Float constants").

A `DenseIntOrFPElementsAttr` keeps its elements as raw little-endian bytes. A splat (one
value for every element, `dense<1.0> : tensor<100000000xf32>`) is kept as the bytes of
that one value, as MLIR keeps it: xDSL would store every element. Such a *compact splat*
is recognised by its data holding one element while its type has another number of
them; the accessors of `speedups` expand it only when a caller asks for the values.
"""

from __future__ import annotations

import math
from typing import Any, cast

from xdsl.dialects.builtin import (
    AnyFloat,
    ComplexType,
    DenseIntOrFPElementsAttr,
    Float80Type,
    Float128Type,
    IndexType,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

from abi_compiler.xdsl_boundary.bit_patterns import format_float

#: Characters of a hexadecimal literal's text decoded, or bytes printed, at a time: a
#: large constant is never held twice as text.
HEX_CHUNK = 1 << 20


def element_size(type: Attribute) -> int | None:
    """Bytes per element of a dense literal's element type; None when xDSL cannot
    store it (f80, f128, integers wider than 64 bits)."""
    if isinstance(type, ComplexType):
        part = element_size(type.element_type)
        return None if part is None else 2 * part
    if isinstance(type, Float80Type | Float128Type):
        return None
    if isinstance(type, IntegerType) and type.width.data > 64:
        return None
    size: int = cast(Any, type).compile_time_size
    return size


def element_count(attr: DenseIntOrFPElementsAttr) -> int:
    """The number of elements ``attr``'s type has."""
    return math.prod(attr.get_shape())


def is_compact_splat(attr: DenseIntOrFPElementsAttr) -> bool:
    """Whether ``attr`` holds one element's bytes for a type with another count."""
    size = element_size(attr.get_element_type())
    return size is not None and len(attr.data.data) == size and element_count(attr) != 1


def format_element(raw: bytes | memoryview, type: Attribute) -> str:
    """MLIR text of one element from its stored bytes."""
    if isinstance(type, ComplexType):
        half = len(raw) // 2
        real = format_element(raw[:half], type.element_type)
        imaginary = format_element(raw[half:], type.element_type)
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


def hex_bytes(text: str, start: int, end: int) -> bytes:
    """The bytes of the hexadecimal digits ``text[start:end]`` (an even number of them),
    decoded piece by piece. Raises ValueError when one is not a hexadecimal digit."""
    data = bytearray((end - start) // 2)
    for offset in range(start, end, 2 * HEX_CHUNK):
        piece = text[offset : min(offset + 2 * HEX_CHUNK, end)]
        index = (offset - start) // 2
        data[index : index + len(piece) // 2] = bytes.fromhex(piece)
    return bytes(data)
