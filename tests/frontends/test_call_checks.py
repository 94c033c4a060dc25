"""What a framework's call adapter checks beyond the records, without the framework
(issue 29): the sign and range of integer values (the records are signless: `i8` takes
int8 and uint8 alike), the relations between dynamic dims, unknown keywords. The torch
and ONNX frontends give `TreeAdapter` these facts (test_torch.py, test_onnx.py run them
with the frameworks); here the trees are written by hand."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from abi_compiler.calling.marshal import (
    dtype_int_range,
    int_misfit,
    unexpected_keyword,
    value_shape,
)
from abi_compiler.errors import AbiError
from abi_compiler.frontends.dims import DimExpr
from abi_compiler.frontends.pytree import Tree, TreeAdapter

INT_DTYPES = [f"{sign}int{width}" for sign in ("", "u") for width in (8, 16, 32, 64)]


def _needs_iree() -> None:
    """Skip a test that compiles when IREE's runtime or compiler is missing."""
    pytest.importorskip("iree.runtime")
    pytest.importorskip("iree.compiler")


def adapter_for(dtype: str, **options: Any) -> TreeAdapter:
    """f(x) for one array x of ``dtype``."""
    return TreeAdapter([Tree("leaf", dtype=dtype)], {}, Tree("leaf"), **options)


def error_of(adapter: TreeAdapter, *args: Any, convert: bool = False, **kwargs: Any) -> str | None:
    try:
        adapter.arguments(args, kwargs, convert=convert)
    except AbiError as error:
        return str(error)
    return None


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_ranges_of_every_dtype(dtype: str) -> None:
    low, high = dtype_int_range(dtype) or (0, 0)
    width = int(dtype.removeprefix("u").removeprefix("int"))
    if dtype.startswith("u"):
        assert (low, high) == (0, 2**width - 1)
    else:
        assert (low, high) == (-(2 ** (width - 1)), 2 ** (width - 1) - 1)
    adapter = adapter_for(dtype)
    for fits in (low, high, 0, [low, high], [[low], [high]], (high,)):
        assert error_of(adapter, fits) is None, fits
    assert error_of(adapter, high + 1) == f"argument 0: value {high + 1} does not fit in {dtype}"
    assert error_of(adapter, low - 1) == f"argument 0: value {low - 1} does not fit in {dtype}"
    assert error_of(adapter, [0, high + 1]) == (
        f"argument 0[1]: value {high + 1} does not fit in {dtype}"
    )
    assert error_of(adapter, [[0, 0], [low - 1, 0]]) == (
        f"argument 0[1][0]: value {low - 1} does not fit in {dtype}"
    )


def test_the_issue_examples() -> None:
    # 2**31 is -2147483648 as int32 bits, [200] is [-56] as int8 bits: both refused.
    assert error_of(adapter_for("int32"), 2**31) == (
        "argument 0: value 2147483648 does not fit in int32"
    )
    assert error_of(adapter_for("int8"), [200]) == "argument 0[0]: value 200 does not fit in int8"
    assert error_of(adapter_for("uint8"), [-1]) == "argument 0[0]: value -1 does not fit in uint8"


def test_non_integer_dtypes_are_the_records_business() -> None:
    assert dtype_int_range("float32") is None and dtype_int_range("bool") is None
    assert error_of(adapter_for("float32"), [1e300]) is None  # the records refuse it
    assert adapter_for("float32").positional[0].plain
    assert not adapter_for("int8").positional[0].plain


def test_arrays_of_the_other_signedness() -> None:
    np = pytest.importorskip("numpy")
    adapter = adapter_for("int32")
    unsigned = np.array([2**31, 0], np.uint32)
    assert error_of(adapter, unsigned) == (
        "argument 0: expected an array of int32, got uint32[2] (convert=True converts it)"
    )
    args, _ = adapter.arguments((unsigned,), {}, convert=True)
    assert args[0].dtype == np.int32
    # The right dtype goes as it is; another width is the records' to refuse.
    same = np.array([1, 2], np.int32)
    assert adapter.arguments((same,), {})[0][0] is same
    assert error_of(adapter, np.array([1], np.int64)) is None
    assert error_of(adapter_for("uint8"), np.array([-1], np.int8)) == (
        "argument 0: expected an array of uint8, got int8[1] (convert=True converts it)"
    )


def test_int_misfit_and_value_shape() -> None:
    # Ragged lists are checked too (the records refuse them anyway).
    assert int_misfit([1, [2, 300]], "int8") == ([1, 1], "value 300 does not fit in int8")
    assert int_misfit([[1, 2], [3, 300]], "int8") == ([1, 1], "value 300 does not fit in int8")
    assert int_misfit([1.5, True, "x", 2**70], "uint64") == (
        [3],
        "value 1180591620717411303424 does not fit in uint64",
    )
    assert int_misfit([2**64 - 1], "uint64") is None
    assert int_misfit([1000], "float32") is None
    row: list[Any] = [0, 1]
    assert int_misfit([row] * 3, "int8") is None  # a repeated row is looked into once
    looped: list[Any] = []
    looped.append(looped)
    assert int_misfit(looped, "int8") is None
    assert value_shape([[1, 2], [3, 4]]) == (2, 2)
    assert value_shape(5) == ()
    assert value_shape("text") is None
    assert value_shape([[1], [2, 3]]) is None


def test_unknown_keywords_are_named_with_the_valid_ones() -> None:
    adapter = TreeAdapter([Tree("leaf")], {"mask": Tree("leaf"), "ids": Tree("leaf")}, Tree("leaf"))
    assert error_of(adapter, 1, mask=1, ids=1, other=2) == (
        "argument 'other': unexpected keyword argument (keywords: 'mask', 'ids')"
    )
    assert error_of(adapter_for("int8"), 1, other=2) == (
        "argument 'other': unexpected keyword argument (it takes no keywords)"
    )
    # The same wording as the records' (abi_compiler.runtime.pack).
    assert str(unexpected_keyword("z", ["x", "y"])) == (
        "argument 'z': unexpected keyword argument (keywords: 'x', 'y')"
    )


# -- dims ------------------------------------------------------------------------------

# f(x: (b,), pair: (y: (b, 4), z: (2*b,)), *, w: (c,)) with b in [2, 10].
TWO_B = DimExpr(((2, ("b",)),))
RELATED = TreeAdapter(
    [
        Tree("leaf", dims=("b",)),
        Tree("dict", (Tree("leaf", dims=("b", 4)), Tree("leaf", dims=(TWO_B,))), ("y", "z")),
    ],
    {"w": Tree("leaf", dims=("c",))},
    Tree("leaf"),
    symbols=(("b", 2, 10), ("c", 0, None)),
)


def shaped(*shape: int) -> Any:
    np = pytest.importorskip("numpy")
    return np.zeros(shape, np.float32)


def test_related_dims() -> None:
    assert [leaf.path for leaf in RELATED.relations.leaves] == [
        "argument 0",
        "argument 1['y']",
        "argument 1['z']",
        "argument 'w'",
    ]
    good = (shaped(3), {"y": shaped(3, 4), "z": shaped(6)})
    assert error_of(RELATED, *good, w=shaped(7)) is None
    assert error_of(RELATED, shaped(3), {"y": shaped(5, 4), "z": shaped(6)}, w=shaped(1)) == (
        "argument 1['y']: dimension 0 is 5, but argument 0 has 3 in dimension 0 for the same "
        "symbol 'b'"
    )
    assert error_of(RELATED, shaped(3), {"y": shaped(3, 4), "z": shaped(7)}, w=shaped(1)) == (
        "argument 1['z']: dimension 0 is 7, but 2*b is 6 (b is 3 from dimension 0 of argument 0)"
    )
    assert error_of(RELATED, shaped(11), {"y": shaped(11, 4), "z": shaped(22)}, w=shaped(1)) == (
        "argument 0: dimension 0 is 11, but symbol 'b' is at most 10"
    )
    # Nested lists and torch-like values are measured as the records measure them.
    assert error_of(RELATED, [0.0] * 3, {"y": [[0.0] * 4] * 2, "z": shaped(6)}, w=[]) == (
        "argument 1['y']: dimension 0 is 2, but argument 0 has 3 in dimension 0 for the same "
        "symbol 'b'"
    )


def test_shared_dims_through_a_compiled_module() -> None:
    # Both arguments of `add` are tensor<?xf32>: the records take lengths 3 and 5, and
    # the compiled code reads 3 floats past the shorter buffer. The adapter refuses.
    _needs_iree()
    np = pytest.importorskip("numpy")
    from abi_compiler import iree as abi_iree

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abi_iree.CompileWarning)
        module = abi_iree.compile(
            "func.func @main(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {\n"
            "  %z = arith.addf %x, %y : tensor<?xf32>\n"
            "  func.return %z : tensor<?xf32>\n}\n"
        )
    adapter = TreeAdapter(
        [Tree("leaf", dims=("b",)), Tree("leaf", dims=("b",))],
        {},
        Tree("leaf"),
        symbols=(("b", 1, None),),
    )
    module.adapt("main", adapter)
    x = np.arange(3, dtype=np.float32)
    assert module.main(x, x).tolist() == [0.0, 2.0, 4.0]
    with pytest.raises(AbiError) as error:
        module.main(x, np.arange(5, dtype=np.float32))
    assert str(error.value) == (
        "argument 1: dimension 0 is 5, but argument 0 has 3 in dimension 0 for the same symbol 'b'"
    )


def test_lists_of_ints_beyond_int64_reach_64_bit_records() -> None:
    # numpy makes doubles of [0, 2**64 - 2] (int64 and uint64 values mixed): a uint64
    # list the adapters pass on, which the records took for floats.
    _needs_iree()
    np = pytest.importorskip("numpy")
    from abi_compiler import iree as abi_iree

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abi_iree.CompileWarning)
        module = abi_iree.compile(
            "func.func @f(%x: tensor<2xi64>) -> tensor<2xi64> {\n"
            "  func.return %x : tensor<2xi64>\n}\n"
        )
    assert module.f([0, 2**64 - 2]).view(np.uint64).tolist() == [0, 2**64 - 2]
    assert module.f([-1, 2**63]).tolist() == [-1, -(2**63)]  # signless: either reading
    for value, message in [
        ([0, 2**64], "argument 0[1]: value 18446744073709551616 does not fit in i64"),
        ([0, -(2**63) - 1], "argument 0[1]: value -9223372036854775809 does not fit in i64"),
        ([0.5, 2**64 - 1], "argument 0: expected int64[2], got float64 values"),
    ]:
        with pytest.raises(AbiError) as error:
            module.f(value)
        assert str(error.value).startswith(message), str(error.value)
