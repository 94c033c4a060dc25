"""End to end (docs/spec.md §10.1): every function of functions.mlir, lowered by both pipelines,
compiled with iree-compile and called through `abi_compiler.iree` with nested Python
values; the results are compared exactly (type, dtype, shape, values).

The two pipelines differ where the legacy ABI carries less: the raw signature has no
i1 (code 4 is sint8), names are dropped when a SIP root mixes them with positions, and
empty structures are gaps of the SIP root.
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import numpy as np

from .conftest import needs_iree

needs_iree()

import ml_dtypes  # noqa: E402

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.calling import vm  # noqa: E402

from .conftest import CountingContext  # noqa: E402


def same(actual: Any, expected: Any, where: str = "result") -> None:
    """Equal values of the same Python types; arrays of the same dtype and shape."""
    if isinstance(expected, np.ndarray):
        assert isinstance(actual, np.ndarray), f"{where}: {actual!r}"
        assert actual.dtype == expected.dtype, f"{where}: {actual.dtype} != {expected.dtype}"
        assert actual.shape == expected.shape, f"{where}: {actual.shape} != {expected.shape}"
        assert np.array_equal(actual, expected), f"{where}: {actual} != {expected}"
        return
    assert type(actual) is type(expected), f"{where}: {actual!r} is not a {type(expected)}"
    if isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected), f"{where}: {actual!r} != {expected!r}"
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            same(a, e, f"{where}[{i}]")
    elif isinstance(expected, dict):
        assert list(actual) == list(expected), f"{where}: keys {list(actual)}"
        for key in expected:
            same(actual[key], expected[key], f"{where}[{key!r}]")
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def is_v1(module: abi_iree.Module) -> bool:
    return module["nested"].convention == "v1"


def test_conventions(v1: abi_iree.Module, legacy: abi_iree.Module) -> None:
    names = [
        "elements", "shapes", "scalars", "nested", "paths", "lists", "list_in_tuple",
        "named", "empty", "ref_array", "all_named",
    ]  # fmt: skip
    assert v1.function_names == names
    assert legacy.function_names == names
    assert {v1[name].convention for name in names} == {"v1"}
    # @ref_array carries its own iree.abi (a hand-written wrapper): V1 in both modules.
    assert {name: legacy[name].convention for name in names} == {
        **{name: "legacy" for name in names},
        "ref_array": "v1",
    }


def test_every_element_type(lowered: abi_iree.Module) -> None:
    got = lowered.elements(
        np.array([True, False]),
        np.array([1, -2], np.int8),
        [3, 4],
        np.array([5, 6], np.int32),
        [7, 2**40],
        np.array([1.5, 2], np.float16),
        [1.5, 2.0],
        np.array([1.5, 0.1]),
        np.array([1.5, 2], ml_dtypes.bfloat16),
    )
    # Legacy: the raw signature calls an i1 tensor sint8 (docs/spec.md §5), so it comes back so.
    i1 = np.array([False, False]) if is_v1(lowered) else np.array([0, 0], np.int8)
    same(
        got,
        (
            i1,
            np.array([2, -4], np.int8),
            np.array([6, 8], np.int16),
            np.array([10, 12], np.int32),
            np.array([14, 2**41], np.int64),
            np.array([3, 4], np.float16),
            np.array([3, 4], np.float32),
            np.array([3, 0.2]),
            np.array([3, 4], ml_dtypes.bfloat16),
        ),
    )


def test_dynamic_dims_rank_0_and_zero_size(lowered: abi_iree.Module) -> None:
    matrix = np.arange(12, dtype=np.float32).reshape(4, 3)
    got = lowered.shapes(matrix, 1.25, np.zeros(0, np.int32))
    same(got, (matrix * 2, np.array(2.5), np.zeros(0, np.int32)))
    # Nested lists and a numpy scalar work as well.
    got = lowered.shapes([[1.0, 2.0, 3.0]], np.float64(0.5), [])
    same(got, (np.array([[2, 4, 6]], np.float32), np.array(1.0), np.zeros(0, np.int32)))


def test_scalars(lowered: abi_iree.Module) -> None:
    got = lowered.scalars(True, -3, 300, 7, 2**40, 1.25, 0.1)
    flag: bool | int = True if is_v1(lowered) else 1  # legacy: sint8 (docs/spec.md §5)
    same(got, (flag, -3, 300, 14, 2**41, 2.5, 0.2))
    got = lowered.scalars(False, 255, 2**16 - 1, 2**32 - 1, 2**64 - 1, -0.5, -1e300)
    flag = False if is_v1(lowered) else 0
    same(got, (flag, -1, -1, -2, -2, -1.0, -2e300))


def test_structures_nested_three_deep(lowered: abi_iree.Module) -> None:
    values = np.array([1, 2, 3], np.int32)
    got = lowered.nested(({"a": ([1.0, 2.5], 3), "b": 0.5}, values))
    same(got, (values, {"x": (3, np.array([2, 5], np.float32)), "y": 0.5}))
    # A signless i32 takes either interpretation of its bits; it comes back signed.
    got = lowered.nested(({"a": ([1.0, 2.5], 2**32 - 1), "b": 0.5}, values))
    same(got[1]["x"][0], -1)


class AB(NamedTuple):
    b: float
    a: Any


@dataclasses.dataclass
class ABData:
    a: Any
    b: float


def test_dicts_from_namedtuples_and_dataclasses(lowered: abi_iree.Module) -> None:
    """An `sdict` argument takes an object whose fields are exactly its keys (docs/spec.md §10)."""
    values = np.array([1, 2], np.int32)
    expected = (values, {"x": (3, np.array([2, 5], np.float32)), "y": 0.5})
    same(lowered.nested((AB(b=0.5, a=([1.0, 2.5], 3)), values)), expected)
    same(lowered.nested((ABData(a=([1.0, 2.5], 3), b=0.5), values)), expected)


def test_index_paths_slist_gap_and_dict_results(lowered: abi_iree.Module) -> None:
    d = np.array([10, 20], np.float32)
    got = lowered.paths({"w": [[1.0, 2.0], [3.0, 4.0]]}, 5, (1.5, None, d))
    same(got, {"n": 5, "sum": np.array([14, 26], np.float32)})


def test_lists_in_and_out(lowered: abi_iree.Module) -> None:
    """`!util.list<i32>` ↔ a list of ints; `!util.list<?>` takes and returns anything the
    VM holds (numbers, arrays, nested lists)."""
    got = lowered.lists((4, 5, 6), [1, 2.5, np.arange(3.0), [7, [np.int32(8)]]])
    same(got, ([4, 5, 6], [1, 2.5, np.arange(3.0), [7, [8]]], 4))
    same(lowered.lists([9], []), ([9], [], 9))


def test_list_inside_a_structure(lowered: abi_iree.Module) -> None:
    same(lowered.list_in_tuple(([1.5, 2.5], 3)), (3, [1.5, 2.5]))
    same(lowered.list_in_tuple(([], 0)), (0, []))


def test_named_arguments(v1: abi_iree.Module, legacy: abi_iree.Module) -> None:
    x, bias = [1.0, 2.0, 3.0], np.ones(3, np.float32)
    expected = (np.array([2, 3, 4], np.float32), 4)
    same(v1.named(x, bias=bias, steps=4), expected)
    same(v1.named(x, steps=4, bias=bias), expected)
    same(v1.named(x, bias, 4), expected)  # named slots may be filled positionally
    # The legacy SIP root of a function with positional and named arguments is a
    # sequence: the names are gone (abi-opt warns).
    same(legacy.named(x, bias, 4), expected)


def test_all_named_arguments(lowered: abi_iree.Module) -> None:
    """Legacy: every argument named makes the SIP input root a dict (keywords)."""
    same(lowered.all_named(b=3, a=[1.0, 2.0]), (3, np.array([1, 2], np.float32)))


def test_empty_structures(v1: abi_iree.Module, legacy: abi_iree.Module) -> None:
    same(v1.empty((), 3, {}), ())
    same(v1.empty([], 3, {}), ())
    # Legacy: empty structures have no leaves, so they are gaps of the SIP root.
    assert legacy.empty(None, 3) is None


def test_ref_array(lowered: abi_iree.Module) -> None:
    """An ND-array of lists travels as its values and its dims (docs/spec.md §8.3)."""
    same(lowered.ref_array([[1, 2], [3]]), ([[1, 2], [3]], 2))
    same(lowered.ref_array(np.array([[4], []], dtype=object)), ([[4], []], 2))


def test_flat_functions_without_reflection(flat: abi_iree.Module) -> None:
    assert flat["flat"].convention == "flat"
    got = flat.flat(np.array([1.5, 2.5], np.float32), 7, [1, [2.5]])
    same(got, (np.array([3, 5], np.float32), 7, [1, [2.5]]))
    assert flat.nothing() is None


def test_results_on_the_device(v1_vmfb: bytes) -> None:
    module = abi_iree.load(v1_vmfb, results="device", device="local-sync")
    got = module.nested(({"a": ([1.0, 2.5], 3), "b": 0.5}, np.array([1, 2], np.int32)))
    assert isinstance(got[0], vm.rt.DeviceArray)
    assert got[0].shape == (2,)
    same(got[0].to_host(), np.array([1, 2], np.int32))
    same(got[1]["x"][1].to_host(), np.array([2, 5], np.float32))
    # A device array goes back in without a copy to the host.
    again = module.nested(({"a": (got[1]["x"][1], 1), "b": 0.0}, got[0]))
    same(again[1]["x"][1].to_host(), np.array([4, 10], np.float32))


def test_convert_opts_into_dtype_conversion(v1_vmfb: bytes) -> None:
    module = abi_iree.load(v1_vmfb, convert=True)
    got = module.shapes(np.ones((1, 3)), np.float32(2), np.zeros(0, np.int64))
    same(got, (np.full((1, 3), 2, np.float32), np.array(4.0), np.zeros(0, np.int32)))
    # Floats into an integer array truncate, as numpy's astype does.
    got = module.nested(({"a": (np.array([1, 2]), 3), "b": 0.5}, [1.9, -2.7]))
    same(got, (np.array([1, -2], np.int32), {"x": (3, np.array([2, 4], np.float32)), "y": 0.5}))


def test_array_likes(lowered: abi_iree.Module) -> None:
    """Objects with `__array__` and memoryviews of the record's element type are arrays;
    infinities and NaNs in float data pass as they are (only a finite value that would
    become infinite is refused, tests/calling/test_bad_calls.py)."""

    class ArrayLike:
        def __init__(self, array: Any) -> None:
            self.array = array

        def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
            return self.array

    matrix = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = lowered.shapes(ArrayLike(matrix), 1.0, memoryview(np.zeros(0, np.int32)))
    same(got, (matrix * 2, np.array(2.0), np.zeros(0, np.int32)))
    got = lowered.shapes(memoryview(matrix), 1.0, [])
    same(got[0], matrix * 2)
    got = lowered.shapes([[np.inf, -np.inf, 3.4e38]], 1.0, [])
    same(got[0], np.array([[np.inf, -np.inf, np.inf]], np.float32))


def test_load_from_a_path(tmp_path: Any, v1_vmfb: bytes) -> None:
    path = tmp_path / "functions.vmfb"
    path.write_bytes(v1_vmfb)
    module = abi_iree.load(path, device="local-sync")
    same(module.scalars(False, 1, 2, 3, 4, 0.5, 0.25), (False, 1, 2, 6, 8, 1.0, 0.5))
    assert repr(module["named"]) == (
        "<abi_compiler.iree.Function @named"
        "(tensor<3xf32>, bias: tensor<3xf32>, steps: i32) -> (tensor<3xf32>, i32)>"
    )


def test_every_call_invokes_the_vm_once(v1: abi_iree.Module) -> None:
    function = v1["list_in_tuple"]
    counting = CountingContext(function._context)
    function._context = counting
    try:
        function(([1.0], 2))
    finally:
        function._context = counting.context
    assert counting.calls == 1


def test_non_contiguous_arrays(lowered: abi_iree.Module) -> None:
    """Strided views are copied to contiguous buffers, whichever way the argument list is
    built (@shapes: IREE's packer; @elements: this module's, for its f16/bf16)."""
    strided = np.arange(12, dtype=np.float32).reshape(2, 6)[:, ::2]
    got = lowered.shapes(strided, 1.0, np.zeros(0, np.int32))
    same(got[0], strided * 2)
    pairs = np.arange(4, dtype=np.float32)[::2]
    got = lowered.elements(
        [True, True], [1, 2], [1, 2], [1, 2], [1, 2], [1, 2], pairs, [1.0, 2.0], [1.0, 2.0]
    )
    same(got[6], np.array([0, 4], np.float32))


def test_unknown_values_pass_through(v1: abi_iree.Module) -> None:
    """VM lists, buffer views and device arrays go into a `!util.list<?>` as they are."""
    rt = vm.rt
    inner = rt.VmVariantList(2)
    inner.push_int(5)
    inner.push_float(0.5)
    view = v1._marshal.allocator.allocate_buffer_copy(
        vm._ARG_MEMORY,
        vm._ARG_USAGE,
        v1.device,
        np.array([1, 2], np.int16),
        rt.HalElementType.SINT_16,
    )
    device_array = rt.DeviceArray(v1.device, view, implicit_host_transfer=True)
    got = v1.lists([1], [inner, view, device_array, True, np.float32(0.25)])
    same(got[1], [[5, 0.5], np.array([1, 2], np.int16), np.array([1, 2], np.int16), 1, 0.25])
