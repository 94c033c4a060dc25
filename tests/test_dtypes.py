"""The element type table (`abi_compiler.dtypes`): every scalar arrays cross IREE's
runtime with, spelled the same way by MLIR, numpy and IREE wherever the project reads
or writes one."""

from __future__ import annotations

import math

import ml_dtypes  # (registers numpy's `bfloat16`)
import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, Signedness
from xdsl.parser import Parser

from abi_compiler import dtypes
from abi_compiler.dtypes import ELEMENT_TYPES, ElementType
from abi_compiler.ir.attribute_text import AttributeTexts
from abi_compiler.model import Scalar, Unknown
from abi_compiler.passes.structure import value_type

# The table, written out: MLIR spelling -> (numpy dtype, HAL type of an argument buffer).
TABLE = {
    "i1": ("bool", "BOOL_8"),
    "i8": ("int8", "SINT_8"),
    "i16": ("int16", "SINT_16"),
    "i32": ("int32", "SINT_32"),
    "i64": ("int64", "SINT_64"),
    "si8": ("int8", "SINT_8"),
    "si16": ("int16", "SINT_16"),
    "si32": ("int32", "SINT_32"),
    "si64": ("int64", "SINT_64"),
    "ui8": ("uint8", "UINT_8"),
    "ui16": ("uint16", "UINT_16"),
    "ui32": ("uint32", "UINT_32"),
    "ui64": ("uint64", "UINT_64"),
    "f16": ("float16", "FLOAT_16"),
    "f32": ("float32", "FLOAT_32"),
    "f64": ("float64", "FLOAT_64"),
    "bf16": ("bfloat16", "BFLOAT_16"),
}

ROWS = list(ELEMENT_TYPES.values())


def _id(row: ElementType) -> str:
    return dtypes.scalar_name(row.scalar)


def test_the_table() -> None:
    assert {
        dtypes.scalar_name(scalar): (row.numpy, row.hal) for scalar, row in ELEMENT_TYPES.items()
    } == TABLE


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_mlir_spelling_round_trips(row: ElementType) -> None:
    """The scalar's name is the MLIR element type it is read from, and printed as."""
    context = Context()
    context.load_dialect(Builtin)
    parsed = Parser(context, dtypes.scalar_name(row.scalar)).parse_type()
    assert value_type(parsed) == row.scalar
    assert AttributeTexts().type(parsed) == dtypes.scalar_name(row.scalar)


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_numpy_spelling_round_trips(row: ElementType) -> None:
    """The numpy dtype is one of the scalar's width, read back as the scalar (a signed
    record as the signless one, which is what MLIR frontends write)."""
    dtype = np.dtype(row.numpy)
    assert dtypes.numpy_dtype_name(row.scalar) == row.numpy == dtype.name
    assert 8 * dtype.itemsize == max(8, row.scalar.width)
    back = dtypes.scalar_for_numpy(dtype.name, dtype.kind, dtype.itemsize)
    kind = "i" if row.scalar.kind == "si" else row.scalar.kind
    assert back == Scalar(kind, row.scalar.width)


def test_numpy_dtypes_without_a_scalar() -> None:
    assert dtypes.scalar_for_numpy("complex64", "c", 8) is None
    assert dtypes.scalar_for_numpy("float8_e4m3fn", "V", 1) is None


def test_jax_element_types() -> None:
    """The JAX frontend reads an aval's dtype through the table (and float8 as JAX writes
    its types, `f8`)."""
    pytest.importorskip("jax")
    from abi_compiler.frontends import jax

    for row in ROWS:
        dtype = np.dtype(row.numpy)
        assert jax._element(dtype) == dtypes.scalar_for_numpy(
            dtype.name, dtype.kind, dtype.itemsize
        )
    assert jax._element(np.complex64) == Unknown()
    assert jax._element(ml_dtypes.float8_e4m3fn) == Scalar("f", 8)


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_hal_element_types(row: ElementType) -> None:
    """IREE's HAL element types of the row exist and have the scalar's width."""
    runtime = pytest.importorskip("iree.runtime")
    for name in (row.hal, *row.hal_results):
        getattr(runtime.HalElementType, name)
        assert int(name.rsplit("_", 1)[1]) == max(8, row.scalar.width)
    assert row.hal in row.hal_results


def test_signedness_kinds() -> None:
    """Every signedness xDSL knows has its scalar kind."""
    assert {s.name for s in Signedness} == set(dtypes.SIGNEDNESS_KINDS)
    assert sorted(dtypes.SIGNEDNESS_KINDS.values()) == ["i", "si", "ui"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("si8", (-128, 127)),
        ("ui8", (0, 255)),
        ("i8", (-128, 255)),
        ("i64", (-(2**63), 2**64 - 1)),
        ("i1", (0, 1)),
    ],
)
def test_int_range(name: str, expected: tuple[int, int]) -> None:
    kind, width = name.rstrip("0123456789"), int(name.lstrip("isu"))
    assert dtypes.int_range(Scalar(kind, width)) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("row", [row for row in ROWS if row.values == "float"], ids=_id)
def test_float_limits(row: ElementType) -> None:
    """A double at the limit becomes infinite in the type (round to nearest, ties to
    even), the double below it does not; f64 has none."""
    limit = dtypes.float_limit(row.scalar)
    if row.scalar.width == 64:
        assert limit == math.inf
        return
    dtype = np.dtype(getattr(ml_dtypes, row.numpy, row.numpy))
    with np.errstate(over="ignore"):
        assert np.isinf(np.array([limit, -limit]).astype(dtype)).all()
    below = math.nextafter(limit, 0)
    if row.scalar.kind == "bf":
        # numpy converts a double to bfloat16 through float32, which rounds this one up
        # to the limit; from float32 the rule holds.
        below = float(np.nextafter(np.float32(limit), np.float32(0)))
        assert np.isfinite(np.float32(below).astype(dtype))
    else:
        assert np.isfinite(np.float64(below).astype(dtype))


def test_taken_dtypes() -> None:
    """The dtypes taken as they are, written out (tests/calling/test_acceptance.py pins
    both sides of the caller to them)."""
    taken = {dtypes.scalar_name(s): sorted(dtypes.taken_dtypes(s)) for s in ELEMENT_TYPES}
    assert taken["i1"] == ["bool"]
    assert taken["i8"] == ["int8", "uint8"]
    assert taken["si16"] == ["int16"]
    assert taken["ui64"] == ["uint64"]
    assert taken["bf16"] == ["bfloat16"]
    raw = {s: dtypes.taken_dtypes(s, raw=True) for s in ELEMENT_TYPES}
    assert {dtypes.scalar_name(s) for s in ELEMENT_TYPES if raw[s] != dtypes.taken_dtypes(s)} == {
        "i8"
    }
    assert raw[Scalar("i", 8)] == {"int8", "uint8", "bool"}
    # Every dtype named is one numpy knows, of the element type's width.
    for scalar in ELEMENT_TYPES:
        for name in dtypes.taken_dtypes(scalar, raw=True):
            assert np.dtype(getattr(ml_dtypes, name, name)).name == name
            if name in dtypes.NUMPY_KINDS:
                kind, size = dtypes.NUMPY_KINDS[name]
                assert (np.dtype(name).kind, np.dtype(name).itemsize) == (kind, size)


def test_buffer_formats() -> None:
    """A memoryview's struct format names the numpy kind of its elements."""
    for code, kind in dtypes.BUFFER_FORMAT_KINDS.items():
        assert np.dtype(code).kind == kind, code
