"""The raw function signature `f` (docs/spec.md §5) and its readable form (docs/spec.md §9)."""

from __future__ import annotations

import pytest

from abi_compiler.codecs.raw import decode_raw, encode_raw, format_raw, raw_recognized
from abi_compiler.model import (
    MAX_RAW_DIM,
    FlatSignature,
    ListRef,
    NDArray,
    Scalar,
    Unknown,
    ValueType,
)

F32 = Scalar("f", 32)


def one(t: ValueType) -> str:
    """The component ``t`` encodes to."""
    text = encode_raw(FlatSignature((t,), ()))
    assert text.endswith("R1!")
    return text[text.index("!") + 1 : -3]


# Every scalar code, as a scalar and as a buffer element (docs/spec.md §5 mapping).
SCALARS = [
    (Scalar("f", 32), "", "float32"),
    (Scalar("f", 16), "t1", "float16"),
    (Scalar("f", 64), "t2", "float64"),
    (Scalar("bf", 16), "t3", "bfloat16"),
    (Scalar("i", 8), "t4", "sint8"),
    (Scalar("i", 16), "t5", "sint16"),
    (Scalar("i", 32), "t6", "sint32"),
    (Scalar("i", 64), "t7", "sint64"),
    (Scalar("ui", 8), "t8", "uint8"),
    (Scalar("ui", 16), "t9", "uint16"),
    (Scalar("ui", 32), "t10", "uint32"),
    (Scalar("ui", 64), "t11", "uint64"),
]


@pytest.mark.parametrize(("scalar", "code", "name"), SCALARS)
def test_scalar_codes(scalar: Scalar, code: str, name: str) -> None:
    scalar_text = f"S{len(code) + 1}!{code}"
    buffer_text = f"B{len(code) + 6}!{code}d2d-1"
    assert one(scalar) == scalar_text
    assert one(NDArray(scalar, (2, None))) == buffer_text
    sig = FlatSignature((scalar, NDArray(scalar, (2, None))), ())
    assert decode_raw(encode_raw(sig)) == sig
    assert format_raw(sig) == f"({name}, Buffer<{name}[2x?]>) -> ()"


@pytest.mark.parametrize(
    ("scalar", "text"),
    [
        (Scalar("i", 1), "S3!t4"),  # signless i1 and i8 share code 4
        (Scalar("si", 8), "S3!t4"),  # deliberate difference: si/ui use their codes
        (Scalar("si", 16), "S3!t5"),
        (Scalar("si", 32), "S3!t6"),
        (Scalar("si", 64), "S3!t7"),
    ],
)
def test_scalar_aliases(scalar: Scalar, text: str) -> None:
    assert one(scalar) == text
    assert raw_recognized(scalar)


def test_float32_code_is_never_written_but_accepted() -> None:
    assert one(F32) == "S1!"
    assert decode_raw("I6!S3!t0R8!B5!t0d1") == FlatSignature((F32,), (NDArray(F32, (1,)),))


@pytest.mark.parametrize(
    "t",
    [
        Unknown(),
        Scalar("i", 3),
        Scalar("i", 128),
        Scalar("ui", 1),
        Scalar("si", 1),
        Scalar("f", 8),
        Scalar("f", 80),
        Scalar("bf", 8),
        NDArray(F32, None),  # unranked
        NDArray(Scalar("i", 3), (4,)),  # element does not map
        NDArray(Unknown(), (4,)),
        NDArray(NDArray(F32, (1,)), (4,)),
        NDArray(F32, (MAX_RAW_DIM + 1,)),  # a dim above 2^31-1
        NDArray(F32, (-2,)),
    ],
)
def test_unrecognized_types(t: ValueType) -> None:
    assert one(t) == "U1!"
    assert not raw_recognized(t)
    assert format_raw(FlatSignature((), (t,))) == "() -> (!UNKNOWN!)"


@pytest.mark.parametrize(
    "t",
    [
        ListRef(Unknown()),
        ListRef(Scalar("i", 32)),
        NDArray(ListRef(Scalar("i", 32)), (2, 3)),  # ND-array of reference type, docs/spec.md §8.3
        NDArray(ListRef(Unknown()), None),
    ],
)
def test_reference_objects(t: ValueType) -> None:
    assert one(t) == "O1!"
    assert raw_recognized(t)
    assert format_raw(FlatSignature((t,), ())) == "(RefObject<?>) -> ()"


def test_largest_dim_is_recognized() -> None:
    t = NDArray(F32, (MAX_RAW_DIM, 0))
    assert one(t) == f"B{len(str(MAX_RAW_DIM)) + 4}!d{MAX_RAW_DIM}d0"
    assert raw_recognized(t)


# docs/spec.md §5 examples.
@pytest.mark.parametrize(
    ("text", "t", "readable"),
    [
        ("B1!", NDArray(F32, ()), "Buffer<float32[]>"),
        (
            "B13!t2d-1d128d64",
            NDArray(Scalar("f", 64), (None, 128, 64)),
            "Buffer<float64[?x128x64]>",
        ),
        ("S3!t6", Scalar("i", 32), "sint32"),
        ("O1!", ListRef(Unknown()), "RefObject<?>"),
        ("U1!", Unknown(), "!UNKNOWN!"),
    ],
)
def test_spec_examples(text: str, t: ValueType, readable: str) -> None:
    assert one(t) == text
    signature = f"I{len(text) + 1}!{text}R1!"
    assert decode_raw(signature) == FlatSignature((t,), ())
    assert format_raw(decode_raw(signature)) == f"({readable}) -> ()"


def test_empty_function() -> None:
    assert encode_raw(FlatSignature((), ())) == "I1!R1!"
    assert decode_raw("I1!R1!") == FlatSignature((), ())
    assert format_raw(FlatSignature((), ())) == "() -> ()"


def test_spec_readable_example() -> None:
    text = "I23!O1!B11!d-1d128d64S3!t6R17!B13!t11d32d-1d64"
    sig = decode_raw(text)
    assert sig == FlatSignature(
        (ListRef(Unknown()), NDArray(F32, (None, 128, 64)), Scalar("i", 32)),
        (NDArray(Scalar("ui", 64), (32, None, 64)),),
    )
    assert encode_raw(sig) == text
    assert format_raw(sig) == (
        "(RefObject<?>, Buffer<float32[?x128x64]>, sint32) -> (Buffer<uint64[32x?x64]>)"
    )


def test_decode_accepts_bytes() -> None:
    assert decode_raw(b"I6!S3!t6R1!") == FlatSignature((Scalar("i", 32),), ())
