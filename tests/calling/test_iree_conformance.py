"""Conformance with IREE's own packer (`iree.runtime._binding.ArgumentPacker`): the same
values packed by `pack` and by IREE give the same structure (docs/spec.md §10).

Skipped when `iree-base-runtime` is not installed. Only records IREE's packer accepts are
compared: it rejects `py_homogeneous_list`, `i1`/`f16`/`bf16` scalars, `null` and
`"unknown"` in arguments, takes `named` slots by keyword only, and never checks ndarray
rank or dims; those rules are tested against our own semantics in test_pack.py.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

rt = pytest.importorskip("iree.runtime")
np = pytest.importorskip("numpy")

from iree.runtime import _binding as iree_binding  # noqa: E402

from abi_compiler.errors import AbiError  # noqa: E402
from abi_compiler.runtime import pack  # noqa: E402

DTYPES = {
    "i1": np.bool_,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    "f32": np.float32,
    "f64": np.float64,
}
SCALARS = ["i8", "i16", "i32", "i64", "f32", "f64"]


@pytest.fixture(scope="module")
def device() -> Any:
    rt.VmInstance()  # must exist before packing, or arrays silently pack as null
    return rt.get_device("local-sync")


def iree_pack(device: Any, records: list[Any], args: list[Any], kwargs: dict[str, Any]) -> Any:
    packer = iree_binding.ArgumentPacker(iree_binding._invoke_statics, records)
    return packer.pack(iree_binding.InvokeContext(device), args, kwargs)


def from_vm_list(device: Any, vm_list: Any) -> list[Any]:
    """A VmVariantList as nested Python lists; buffer views as host numpy arrays."""
    out = []
    for index in range(len(vm_list)):
        value = vm_list.get_variant(index)
        if isinstance(value, iree_binding.VmRef):
            if value.isinstance(iree_binding.VmVariantList):
                value = from_vm_list(device, value.deref(iree_binding.VmVariantList))
            elif value.isinstance(iree_binding.HalBufferView):
                view = value.deref(iree_binding.HalBufferView)
                value = rt.DeviceArray(device, view, implicit_host_transfer=True).to_host()
        out.append(value)
    return out


def as_iree_would(record: Any, value: Any) -> Any:
    """Our packed value with leaves as IREE stores them: arrays converted to the record's
    dtype, f32 scalars rounded to single precision."""
    if isinstance(record, str):
        return float(np.float32(value)) if record == "f32" else value
    kind = record[0]
    if kind == "named":
        return as_iree_would(record[2], value)
    if kind == "ndarray":
        return np.asarray(value, dtype=DTYPES[record[1]])
    if kind == "sdict":
        return [as_iree_would(r, v) for (_, r), v in zip(record[1:], value, strict=True)]
    return [as_iree_would(r, v) for r, v in zip(record[1:], value, strict=True)]


def same_packed(ours: Any, theirs: Any) -> bool:
    if isinstance(ours, np.ndarray):
        return (
            isinstance(theirs, np.ndarray)
            and ours.shape == theirs.shape
            and ours.dtype == theirs.dtype
            and bool(np.array_equal(ours, theirs))
        )
    if isinstance(ours, list):
        return (
            isinstance(theirs, list)
            and len(ours) == len(theirs)
            and all(same_packed(o, t) for o, t in zip(ours, theirs, strict=True))
        )
    return type(ours) is type(theirs) and ours == theirs


def check_conformance(
    device: Any, records: list[Any], args: list[Any], kwargs: dict[str, Any]
) -> None:
    text = json.dumps({"a": records, "r": [], "v": 1}, separators=(",", ":"), sort_keys=True)
    # IREE's packer coerces freely (a bool for an i32): ours with convert=True does too.
    packed = pack(text, *args, convert=True, **kwargs)
    ours = [as_iree_would(r, v) for r, v in zip(records, packed, strict=True)]
    theirs = from_vm_list(device, iree_pack(device, records, args, kwargs))
    assert same_packed(ours, theirs), (ours, theirs)


# --------------------------------------------------------------------------------------
# Fixed cases.
# --------------------------------------------------------------------------------------

CASES = [
    pytest.param(["i32", "f32", "i64", "f64"], [1, 2.5, -3, 4], {}, id="scalars"),
    pytest.param(["i32", "f32"], [True, 3], {}, id="scalar-coercions"),
    pytest.param(
        [["ndarray", "f32", 2, None, 4], "i32"],
        [np.arange(8, dtype=np.float32).reshape(2, 4), 7],
        {},
        id="spec-4.2-example",
    ),
    pytest.param([["ndarray", "f32", 1, 3]], [[1.0, 2.0, 3.0]], {}, id="nested-list-array"),
    pytest.param([["ndarray", "i32", 2, 2, 2]], [[[1, 2], [3, 4]]], {}, id="nested-list-int-array"),
    pytest.param([["ndarray", "f64", 0]], [1.5], {}, id="rank-0"),
    pytest.param([["ndarray", "i1", 1, 3]], [np.array([True, False, True])], {}, id="i1-array"),
    pytest.param([["ndarray", "f32", None]], [np.ones((2, 3), np.float32)], {}, id="unranked"),
    pytest.param(
        [["slist", "i32", ["stuple", "f32", ["ndarray", "i8", 1, 2]]]],
        [[1, (2.0, np.array([3, 4], np.int8))]],
        {},
        id="nested-sequences",
    ),
    pytest.param(
        [["sdict", ["a", "i32"], ["b", ["slist", "f64", "f64"]], ["c", ["ndarray", "f32", 1, 1]]]],
        [{"c": [1.0], "b": (0.5, 1.5), "a": 2}],
        {},
        id="sdict-key-order",
    ),
    pytest.param(
        ["i32", ["named", "x", ["sdict", ["k", "i64"]]], ["named", "y", "f32"]],
        [1],
        {"y": 2.0, "x": {"k": 5}},
        id="named-by-keyword",
    ),
    pytest.param([["slist"], ["sdict"], ["stuple"]], [[], {}, ()], {}, id="empty-structures"),
    pytest.param([["slist", "i32", "i32"]], [range(2)], {}, id="sequence-protocol"),
]


@pytest.mark.parametrize(("records", "args", "kwargs"), CASES)
def test_packs_like_iree(
    device: Any, records: list[Any], args: list[Any], kwargs: dict[str, Any]
) -> None:
    check_conformance(device, records, args, kwargs)


REJECTED = [
    pytest.param(["i32"], [], {}, id="missing"),
    pytest.param(["i32"], [1, 2], {}, id="too-many-positional"),
    pytest.param(["i32"], [1], {"z": 2}, id="unknown-keyword"),
    pytest.param(["i32"], [1.5], {}, id="float-for-int"),
    pytest.param(["i8"], [300], {}, id="int-out-of-range"),
    pytest.param([["slist", "i32", "i32"]], [[1]], {}, id="short-sequence"),
    pytest.param([["stuple", "i32", "i32"]], [[1, 2, 3]], {}, id="long-sequence"),
    pytest.param([["slist", "i32"]], ["a"], {}, id="string-for-sequence"),
    pytest.param([["sdict", ["a", "i32"]]], [[1]], {}, id="list-for-sdict"),
    pytest.param([["sdict", ["a", "i32"]]], [{"a": 1, "b": 2}], {}, id="extra-key"),
    pytest.param([["sdict", ["a", "i32"], ["b", "i32"]]], [{"a": 1}], {}, id="missing-key"),
    pytest.param([["ndarray", "f32", 1, 2]], ["ab"], {}, id="string-for-array"),
]


@pytest.mark.parametrize(("records", "args", "kwargs"), REJECTED)
def test_rejects_what_iree_rejects(
    device: Any, records: list[Any], args: list[Any], kwargs: dict[str, Any]
) -> None:
    with pytest.raises((ValueError, RuntimeError)):
        iree_pack(device, records, args, kwargs)
    text = json.dumps({"a": records, "r": [], "v": 1})
    with pytest.raises(AbiError):
        pack(text, *args, **kwargs)


# --------------------------------------------------------------------------------------
# Random records IREE accepts, with matching values.
# --------------------------------------------------------------------------------------


def scalar_value(record: str) -> st.SearchStrategy[Any]:
    if record.startswith("f"):
        return st.floats(allow_nan=False, allow_infinity=False, width=32) | st.integers(-1000, 1000)
    width = int(record[1:])
    return st.integers(-(2 ** (width - 1)), 2 ** (width - 1) - 1)


def array_value(dtype: str, shape: tuple[int, ...]) -> st.SearchStrategy[Any]:
    count = math.prod(shape)
    elements = st.lists(st.integers(-100, 100), min_size=count, max_size=count)
    numpy_arrays = elements.map(lambda flat: np.array(flat).astype(DTYPES[dtype]).reshape(shape))
    if dtype == "i1" or 0 in shape[:-1]:
        return numpy_arrays

    def nested(flat: list[int], dims: tuple[int, ...]) -> Any:
        if not dims:
            return flat[0]
        stride = math.prod(dims[1:])
        return [nested(flat[i * stride : (i + 1) * stride], dims[1:]) for i in range(dims[0])]

    return numpy_arrays | elements.map(lambda flat: nested(flat, shape))


@st.composite
def record_and_value(draw: st.DrawFn, depth: int = 0) -> tuple[Any, Any]:
    kinds = ["scalar", "ndarray"] + (["slist", "stuple", "sdict"] if depth < 3 else [])
    kind = draw(st.sampled_from(kinds))
    record: Any
    if kind == "scalar":
        scalar = draw(st.sampled_from(SCALARS))
        return scalar, draw(scalar_value(scalar))
    if kind == "ndarray":
        dtype = draw(st.sampled_from(sorted(DTYPES)))
        shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
        dims = [d if draw(st.booleans()) else None for d in shape]
        ranked = draw(st.integers(0, 4)) > 0
        record = ["ndarray", dtype, len(dims), *dims] if ranked else ["ndarray", dtype, None]
        return record, draw(array_value(dtype, shape))
    count = draw(st.integers(0, 3))
    if kind == "sdict":
        keys = sorted(
            draw(st.lists(st.text("abcxyz", min_size=1, max_size=3), unique=True, max_size=3))
        )
        items = [draw(record_and_value(depth + 1)) for _ in keys]
        record = ["sdict", *([k, r] for k, (r, _) in zip(keys, items, strict=True))]
        return record, {k: v for k, (_, v) in zip(keys, items, strict=True)}
    items = [draw(record_and_value(depth + 1)) for _ in range(count)]
    container = draw(st.sampled_from([list, tuple]))
    return [kind, *(r for r, _ in items)], container(v for _, v in items)


@st.composite
def calls(draw: st.DrawFn) -> tuple[list[Any], list[Any], dict[str, Any]]:
    arguments = draw(st.lists(record_and_value(), max_size=4))
    names = draw(st.lists(st.text("pqrs", min_size=1, max_size=2), unique=True, max_size=4))
    named_count = draw(st.integers(0, min(len(arguments), len(names))))
    first_named = len(arguments) - named_count
    records: list[Any] = []
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for position, (record, value) in enumerate(arguments):
        if position < first_named:
            records.append(record)
            args.append(value)
        else:
            name = names[position - first_named]
            records.append(["named", name, record])
            kwargs[name] = value
    return records, args, kwargs


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(calls())
def test_random_calls_pack_like_iree(
    device: Any, call: tuple[list[Any], list[Any], dict[str, Any]]
) -> None:
    check_conformance(device, *call)
