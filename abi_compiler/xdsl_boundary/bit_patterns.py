"""The bit patterns of xDSL's float types, and MLIR text for them: what the fixes of float
literals (`defects`) and the printing of dense elements (`dense_elements`, `speedups`)
share (docs/xdsl-fixes.md, "Float constants").

A float attribute's value is a Python float (a double), and xDSL converts between a
type's bits and that double with `struct`, which quiets signalling NaNs and (for f16)
drops NaN payloads, or with its reduced-precision decoders, which map every NaN to one.
`float_value` and `float_bits` are inverse for every bit pattern of the supported
types: a NaN's sign and payload are carried in the double's sign and top mantissa bits
(the double itself is never computed with). A double cannot hold every f80 or f128
value: an attribute of those types keeps its literal (`ExtendedFloatLiteral`).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterator

from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    Float80Type,
    Float128Type,
    FloatAttr,
    FloatData,
    FloatNonfiniteBehavior,
    ReducedPrecisionFloatType,
)
from xdsl.ir import Attribute

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


def extended_value(bits: int, type: AnyFloat) -> float:
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


def extended_float_text(value: float, type: AnyFloat) -> str:
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


def to_float(value: int | float) -> float:
    """A literal's number as a float."""
    try:
        return float(value)
    except OverflowError:  # an integer beyond the doubles rounds to infinity
        return math.copysign(math.inf, value)
