"""The dtype acceptance table (`abi_compiler.dtypes`, docs/calling.md "Arrays") pinned for
both halves of the caller's side: `pack` (`abi_compiler.calling.marshal`, pure) and the VM
marshalling (`abi_compiler.calling.vm`, which checks again what it pushes). For each
element type's record and each numpy dtype an array is taken as it is, converted (only
with ``convert=True``; otherwise an error saying so) or refused; a record of the raw
signature (legacy `f`) has its own column. The table is written out here, so neither
side can drift from it nor from the other."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from typing import Any

import pytest

from abi_compiler import dtypes
from abi_compiler.calling.leaf_values import leaf_packer
from abi_compiler.calling.mismatch import Mismatch
from abi_compiler.dtypes import ELEMENT_TYPES
from abi_compiler.errors import AbiError
from abi_compiler.model import NDArray, Scalar

from .conftest import mlir_string, needs_iree
from .helpers import compile_quietly

np = pytest.importorskip("numpy")
ml_dtypes = pytest.importorskip("ml_dtypes")

# The dtypes an array is taken as, without a conversion, by each record: its own, and for
# a signless integer the unsigned one of its width too.
TAKEN = {
    "i1": {"bool"},
    **{f"i{w}": {f"int{w}", f"uint{w}"} for w in (8, 16, 32, 64)},
    **{f"si{w}": {f"int{w}"} for w in (8, 16, 32, 64)},
    **{f"ui{w}": {f"uint{w}"} for w in (8, 16, 32, 64)},
    "f16": {"float16"},
    "f32": {"float32"},
    "f64": {"float64"},
    "bf16": {"bfloat16"},
}
# The raw signature's i8 stands for i1 too (it writes an i1 tensor as sint8).
TAKEN_RAW = {**TAKEN, "i8": {"int8", "uint8", "bool"}}
# Numbers: converted to any record's dtype (astype) with convert=True.
NUMBERS = [
    "bool",
    *(f"{sign}int{w}" for sign in ("", "u") for w in (8, 16, 32, 64)),
    "float16",
    "float32",
    "float64",
    "longdouble",
    "bfloat16",
    "complex64",
    "complex128",
]
# Not numbers, or numbers numpy knows only through another package and the ABI has no
# type for: refused, also with convert=True.
OTHERS = ["<U1", "object", "datetime64[s]", "float8_e4m3fn"]

RECORDS = sorted(dtypes.scalar_name(scalar) for scalar in ELEMENT_TYPES)


def expected(record: str, dtype: str, raw: bool) -> str:
    if np.dtype(_numpy(dtype)).name in (TAKEN_RAW if raw else TAKEN)[record]:
        return "taken"
    return "converted" if dtype in NUMBERS else "refused"


def _numpy(name: str) -> Any:
    return getattr(ml_dtypes, name) if name in ("bfloat16", "float8_e4m3fn") else name


def scalar_of(record: str) -> Scalar:
    kind = record.rstrip("0123456789")
    return Scalar(kind, int(record[len(kind) :]))  # type: ignore[arg-type]


def array_of(dtype: str) -> Any:
    if dtype == "<U1":
        return np.array(["a", "b"])
    if dtype == "object":
        return np.array([1, 2], dtype=object)
    return np.zeros(2, _numpy(dtype))


def outcome(check: Callable[[Any, bool], Any], value: Any) -> str:
    """What ``check(value, convert)`` does: takes the value, converts it (refused with the
    hint without ``convert``), or refuses it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (complex → real)
        try:
            check(value, False)
        except AbiError as error:
            converts = str(error).endswith("(convert=True converts it)")
            try:
                check(value, True)
            except AbiError:
                return "refused" if not converts else "converted, but convert=True fails"
            return "converted" if converts else "converted without a hint"
        return "taken"


def pack_check(scalar: Scalar, raw: bool) -> Callable[[Any, bool], Any]:
    """`pack`'s check of an array leaf (`pack_legacy`'s with ``raw``)."""

    def check(value: Any, convert: bool) -> Any:
        try:
            return leaf_packer(NDArray(scalar, (2,)), convert, raw=raw)(value)
        except Exception as error:  # the value-path error, as `pack` reports it
            raise AbiError(str(error)) from None

    return check


def vm_check(scalar: Scalar, raw: bool) -> Callable[[Any, bool], Any]:
    """The VM marshalling's check of an array it pushes (a buffer view of the record's
    element type), by itself."""
    needs_iree()
    from abi_compiler.calling import vm

    def check(value: Any, convert: bool) -> Any:
        marshal = vm.Marshal(_device(), convert, "numpy")
        lst = vm.VmList(1)
        try:
            marshal.value_pusher(NDArray(scalar, (2,)), raw)(lst, value)
        except Mismatch as misfit:
            raise AbiError(misfit.message) from None
        return lst

    return check


def _device() -> Any:
    from iree import runtime

    return runtime.get_device("local-sync")


SIDES = {"pack": pack_check, "vm": vm_check}


@pytest.mark.parametrize("raw", [False, True], ids=["v1", "raw"])
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("record", RECORDS)
def test_array_dtypes(record: str, side: str, raw: bool) -> None:
    scalar = scalar_of(record)
    check = SIDES[side](scalar, raw)
    got = {dtype: outcome(check, array_of(dtype)) for dtype in NUMBERS + OTHERS}
    assert got == {dtype: expected(record, dtype, raw) for dtype in NUMBERS + OTHERS}
    # The table itself says the same.
    for dtype in NUMBERS + OTHERS:
        numpy_dtype = np.dtype(_numpy(dtype))
        acceptance = dtypes.array_acceptance(scalar, numpy_dtype.name, numpy_dtype.kind, raw=raw)
        assert acceptance == got[dtype], dtype


# Memoryviews: their struct format is their dtype (read without numpy by `pack`).
FORMATS = "?bBhHiIlLqQefd"


@pytest.mark.parametrize("raw", [False, True], ids=["v1", "raw"])
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("record", RECORDS)
def test_memoryviews(record: str, side: str, raw: bool) -> None:
    check = SIDES[side](scalar_of(record), raw)
    for code in FORMATS:
        if code == "e":  # (`cast` has no half floats)
            view = memoryview(np.zeros(2, np.float16))
        else:
            view = memoryview(bytes(2 * np.dtype(code).itemsize)).cast(code)
        assert view.format == code
        assert outcome(check, view) == expected(record, np.dtype(code).name, raw), code
    assert outcome(check, memoryview(b"ab").cast("c")) == "refused"


@pytest.mark.parametrize("raw", [False, True], ids=["v1", "raw"])
@pytest.mark.parametrize("record", RECORDS)
def test_python_bools(record: str, raw: bool) -> None:
    """A scalar record takes a bool as it is where its arrays take bool arrays."""
    scalar = scalar_of(record)
    takes = "bool" in (TAKEN_RAW if raw else TAKEN)[record]
    assert dtypes.takes_bools(scalar, raw=raw) == takes

    def check(value: Any, convert: bool) -> Any:
        try:
            return leaf_packer(scalar, convert, raw=raw)(value)
        except Exception as error:
            raise AbiError(str(error)) from None

    for value in (True, np.True_):
        assert outcome(check, value) == ("taken" if takes else "converted")


@pytest.mark.parametrize("record", RECORDS)
def test_nested_lists(record: str) -> None:
    """Values without a dtype (the VM converts them, `pack` passes them on): bools fill
    any record, ints any record (within its range: 0 and 1 for i1), floats float
    records only (`abi_compiler.dtypes.NESTED_LIST_FITS`)."""
    scalar = scalar_of(record)
    check = vm_check(scalar, False)
    floats = dtypes.ELEMENT_TYPES[scalar].values == "float"
    assert outcome(check, [True, False]) == "taken"
    assert outcome(check, [1, 0]) == "taken"
    assert outcome(check, [1.5, 0.0]) == ("taken" if floats else "converted")
    assert outcome(check, ["a", "b"]) == "refused"
    if record == "i1":
        with pytest.raises(AbiError, match=r"^value 2 does not fit in i1$"):
            check([2, 0], False)
    else:
        assert outcome(check, [2, 0]) == "taken"


def test_a_bool_array_for_an_i8_record_of_the_original_call() -> None:
    """The original call (`abi.call`) of a signless i8 leaf without a dtype of its own
    takes what the records take: no bool array (its fast path took one, through the
    raw signature's column)."""
    needs_iree()
    from abi_compiler.call_model import Array, OriginalCall
    from abi_compiler.codecs.call_json import encode_call

    array = Array(0, None, (2,))
    call = mlir_string(encode_call(OriginalCall((array,), (), array)))
    abi = mlir_string(
        json.dumps({"a": [["ndarray", "i8", 1, 2]], "r": [["ndarray", "i8", 1, 2]], "v": 1})
    )
    text = "".join(
        f"func.func @{name}(%a: tensor<2xi8>) -> tensor<2xi8> attributes "
        f'{{iree.reflection = {{iree.abi = "{abi}"{extra}}}}} {{\n  return %a : tensor<2xi8>\n}}\n'
        for name, extra in [("records", ""), ("original", f', abi.call = "{call}"')]
    )
    module = compile_quietly(text, pipeline=None)
    for name in ("records", "original"):
        with pytest.raises(AbiError) as error:
            module[name](np.array([True, False]))
        assert str(error.value) == (
            "argument 0: expected int8[2], got bool[2] (convert=True converts it)"
        ), name
        assert module[name](np.array([1, 255], np.uint8)).tolist() == [1, -1]
        assert module[name](np.array([True, False]).astype(np.int8)).tolist() == [1, 0]
