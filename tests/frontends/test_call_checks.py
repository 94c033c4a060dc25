"""What a function's original call (`abi.call`) checks beyond its records, without a
framework (docs/calling.md#what-the-original-call-checks): the sign and range of integer
values (the records are signless: `i8` takes int8 and uint8 alike, the call says which
one the framework takes), the
relations between dynamic dims, unknown keywords. The torch, ONNX and JAX frontends
write the `OriginalCall` from their programs (test_torch.py, test_onnx.py, test_jax.py
run them with the frameworks); here the calls are written by hand, and called through
`CallPlan` directly or through a module compiled from MLIR text that carries them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from abi_compiler.call_model import (
    Array,
    Container,
    Dim,
    DimConstraint,
    OriginalCall,
    Symbol,
)
from abi_compiler.calling.dims import DimRelations, LeafDims
from abi_compiler.calling.leaf_values import leaf_packer
from abi_compiler.calling.marshal import pack_call, unexpected_keyword
from abi_compiler.calling.original_call import CallPlan
from abi_compiler.codecs.call_json import decode_call, encode_call
from abi_compiler.codecs.json_abi import decode_json
from abi_compiler.errors import AbiError
from abi_compiler.model import leaves
from tests.calling.conftest import mlir_string, needs_iree
from tests.calling.helpers import compile_quietly

np = pytest.importorskip("numpy")

INT_DTYPES = [f"{sign}int{width}" for sign in ("", "u") for width in (8, 16, 32, 64)]


def int_range(dtype: str) -> tuple[int, int]:
    """Written here, independently of the code under test."""
    width = int(dtype.removeprefix("u").removeprefix("int"))
    if dtype.startswith("u"):
        return 0, 2**width - 1
    return -(2 ** (width - 1)), 2 ** (width - 1) - 1


# -- the calls -------------------------------------------------------------------------

# f(x: (b,), pair: {"y": (b, 4), "z": (2*b,)}, *, w: (c,)) with b in [2, 10].
TWO_B: Dim = ((2, ("b",)),)
RELATED = OriginalCall(
    positional=(
        Array(0, "float32", ("b",)),
        Container(
            "dict", (Array(1, "float32", ("b", 4)), Array(2, "float32", (TWO_B,))), ("y", "z")
        ),
    ),
    keywords=(("w", Array(3, "float32", ("c",))),),
    result=Array(0, "float32", ("b",)),
    symbols=(Symbol("b", 2, 10), Symbol("c", 0, None)),
)
RELATED_ABI = (
    '{"a":[["ndarray","f32",1,null],'
    '["sdict",["y",["ndarray","f32",2,null,4]],["z",["ndarray","f32",1,null]]],'
    '["named","w",["ndarray","f32",1,null]]],"r":[["ndarray","f32",1,null]],"v":1}'
)

# g(a: (a,), b: (b,)) with the constraint a >= b.
CONSTRAINED = OriginalCall(
    positional=(Array(0, "float32", ("a",)), Array(1, "float32", ("b",))),
    keywords=(),
    result=Array(0, "float32", ("a",)),
    symbols=(Symbol("a"), Symbol("b")),
    constraints=(DimConstraint(((1, ("a",)), (-1, ("b",))), ">=", "a >= b"),),
)
CONSTRAINED_ABI = (
    '{"a":[["ndarray","f32",1,null],["ndarray","f32",1,null]],"r":[["ndarray","f32",1,null]],"v":1}'
)

# add(x: (b,), y: (b,)) -> (b,): both tensor<?xf32> in the records.
SHARED = OriginalCall(
    positional=(Array(0, "float32", ("b",)), Array(1, "float32", ("b",))),
    keywords=(),
    result=Array(0, "float32", ("b",)),
    symbols=(Symbol("b", 1, None),),
)

# h(x: (b,), y: bfloat16 (b,)) -> x.
WITH_BF16 = OriginalCall(
    positional=(Array(0, "float32", ("b",)), Array(1, "bfloat16", ("b",))),
    keywords=(),
    result=Array(0, "float32", ("b",)),
    symbols=(Symbol("b"),),
)


def int_call(dtype: str, rank: int) -> OriginalCall:
    """f(x) -> x for one array x of ``dtype`` and ``rank`` dynamic dims."""
    array = Array(0, dtype, (None,) * rank)
    return OriginalCall((array,), (), array)


# -- through CallPlan directly -----------------------------------------------------------


def relations_of(call: OriginalCall) -> Callable[[list[tuple[str, tuple[Dim, ...]]]], Any]:
    """The relations of ``call``'s symbols as a loaded module checks them."""

    def relations(found: list[tuple[str, tuple[Dim, ...]]]) -> Any:
        leaves = tuple(LeafDims(path, dims) for path, dims in found)
        return DimRelations(call.symbols, leaves, call.constraints).check

    return relations


def plan_of(call: OriginalCall, abi: str, relations: Any = None) -> CallPlan:
    """``call`` (written and read back as `abi.call` is) with records ``abi``: each leaf
    checked by its record as `abi_compiler.runtime.pack` checks it."""
    signature = decode_json(abi)
    by_index = {leaf.index: leaf for arg in signature.arguments for leaf in leaves(arg.node)}
    return CallPlan(
        decode_call(encode_call(call)),
        signature,
        lambda array: leaf_packer(by_index[array.index].type, False),
        relations=relations_of(call) if relations is None else relations,
    )


def error_of(call: Callable[..., Any], *args: Any, **kwargs: Any) -> str | None:
    try:
        call(*args, **kwargs)
    except AbiError as error:
        return str(error)
    return None


def test_unknown_keywords_are_named_with_the_valid_ones() -> None:
    f32 = '["ndarray","f32",0]'
    abi = f'{{"a":[{f32},["named","mask",{f32}],["named","ids",{f32}]],"r":[],"v":1}}'
    leaf = Array(0, "float32", ())
    call = OriginalCall(
        (leaf,),
        (("mask", Array(1, "float32", ())), ("ids", Array(2, "float32", ()))),
        Container("tuple", ()),
    )
    plan = plan_of(call, abi)
    assert error_of(lambda *a, **k: plan.arguments(a, k), 1, mask=1, ids=1, other=2) == (
        "argument 'other': unexpected keyword argument (keywords: 'mask', 'ids')"
    )
    alone = plan_of(
        OriginalCall((leaf,), (), Container("tuple", ())), f'{{"a":[{f32}],"r":[],"v":1}}'
    )
    assert error_of(lambda *a, **k: alone.arguments(a, k), 1, other=2) == (
        "argument 'other': unexpected keyword argument (it takes no keywords)"
    )
    # The same wording as the records' (abi_compiler.runtime.pack).
    assert error_of(lambda *a, **k: pack_call(abi, a, k), 1, mask=1, ids=1, other=2) == (
        "argument 'other': unexpected keyword argument (keywords: 'mask', 'ids')"
    )
    assert str(unexpected_keyword("z", ["x", "y"])) == (
        "argument 'z': unexpected keyword argument (keywords: 'x', 'y')"
    )


def test_related_dims_name_their_values() -> None:
    """The arrays with symbolic dims reach the relations with the paths errors name."""
    found: list[list[tuple[str, tuple[Dim, ...]]]] = []

    def relations(leaves: list[tuple[str, tuple[Dim, ...]]]) -> Any:
        found.append(leaves)
        return relations_of(RELATED)(leaves)

    plan_of(RELATED, RELATED_ABI, relations)
    assert found == [
        [
            ("argument 0", ("b",)),
            ("argument 1['y']", ("b", 4)),
            ("argument 1['z']", (TWO_B,)),
            ("argument 'w'", ("c",)),
        ]
    ]


# -- through a compiled module -----------------------------------------------------------


def function_text(name: str, call: OriginalCall | None, types: list[str], paths: list[str]) -> str:
    """func.func @name(…) -> its first argument, with ``call`` as its `abi.call`."""
    arguments = ", ".join(
        f"%a{i}: {t} {{abi.index_path = {p}}}"
        for i, (t, p) in enumerate(zip(types, paths, strict=True))
    )
    attributes = (
        ""
        if call is None
        else f' attributes {{iree.reflection = {{abi.call = "{mlir_string(encode_call(call))}"}}}}'
    )
    return (
        f"func.func @{name}({arguments}) -> ({types[0]} {{abi.index_path = []}}){attributes} {{\n"
        f"  return %a0 : {types[0]}\n}}\n"
    )


def module_text() -> str:
    parts = []
    for dtype in INT_DTYPES:
        width = int(dtype.removeprefix("u").removeprefix("int"))
        for rank in range(3):
            t = f"tensor<{'?x' * rank}i{width}>"
            parts.append(function_text(f"{dtype}_{rank}", int_call(dtype, rank), [t], ["[0]"]))
    float_array = Array(0, "float32", (None,))
    parts.append(
        function_text(
            "float32_1", OriginalCall((float_array,), (), float_array), ["tensor<?xf32>"], ["[0]"]
        )
    )
    parts.append(
        function_text(
            "related",
            RELATED,
            ["tensor<?xf32>", "tensor<?x4xf32>", "tensor<?xf32>", "tensor<?xf32>"],
            ["[0]", '[1, "y"]', '[1, "z"]', '["w"]'],
        )
    )
    parts.append(function_text("constrained", CONSTRAINED, ["tensor<?xf32>"] * 2, ["[0]", "[1]"]))
    parts.append(
        function_text("with_bf16", WITH_BF16, ["tensor<?xf32>", "tensor<?xbf16>"], ["[0]", "[1]"])
    )
    # Records only: the signless i64 takes either reading of the bits.
    parts.append(function_text("records_i64", None, ["tensor<2xi64>"], ["[0]"]))
    parts.append(
        "func.func @add(%x: tensor<?xf32> {abi.index_path = [0]}, "
        "%y: tensor<?xf32> {abi.index_path = [1]}) -> (tensor<?xf32> {abi.index_path = []})"
        f' attributes {{iree.reflection = {{abi.call = "{mlir_string(encode_call(SHARED))}"}}}} {{\n'
        "  %z = arith.addf %x, %y : tensor<?xf32>\n"
        "  return %z : tensor<?xf32>\n}\n"
    )
    return "".join(parts)


@pytest.fixture(scope="module")
def vmfb() -> bytes:
    needs_iree()
    return compile_quietly(module_text(), vmfb=True)


@pytest.fixture(scope="module")
def module(vmfb: bytes) -> Any:
    from abi_compiler import iree as abi_iree

    return abi_iree.load(vmfb)


@pytest.fixture(scope="module")
def converting(vmfb: bytes) -> Any:
    from abi_compiler import iree as abi_iree

    return abi_iree.load(vmfb, convert=True)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_ranges_of_every_dtype(module: Any, dtype: str) -> None:
    low, high = int_range(dtype)
    for rank, fits in [
        (0, low),
        (0, high),
        (0, 0),
        (1, [low, high]),
        (1, (high,)),
        (2, [[low], [high]]),
    ]:
        got = module[f"{dtype}_{rank}"](fits)
        # Read back in the framework's dtype, whatever the bits' sign.
        assert got.dtype == np.dtype(dtype) and got.tolist() == (
            list(fits) if isinstance(fits, tuple) else fits
        ), fits
    scalar, vector, matrix = (module[f"{dtype}_{rank}"] for rank in range(3))
    assert error_of(scalar, high + 1) == f"argument 0: value {high + 1} does not fit in {dtype}"
    assert error_of(scalar, low - 1) == f"argument 0: value {low - 1} does not fit in {dtype}"
    assert error_of(vector, [0, high + 1]) == (
        f"argument 0[1]: value {high + 1} does not fit in {dtype}"
    )
    assert error_of(matrix, [[0, 0], [low - 1, 0]]) == (
        f"argument 0[1][0]: value {low - 1} does not fit in {dtype}"
    )


def test_the_issue_examples(module: Any) -> None:
    # 2**31 is -2147483648 as int32 bits, [200] is [-56] as int8 bits: both refused.
    assert error_of(module["int32_0"], 2**31) == (
        "argument 0: value 2147483648 does not fit in int32"
    )
    assert error_of(module["int8_1"], [200]) == "argument 0[0]: value 200 does not fit in int8"
    assert error_of(module["uint8_1"], [-1]) == "argument 0[0]: value -1 does not fit in uint8"


def test_non_integer_dtypes_are_the_records_business(module: Any) -> None:
    # No range check by the call for float32: the records refuse what their f32 cannot
    # hold, in their words.
    got = module["float32_1"]([1000, 0.5])
    assert got.dtype == np.float32 and got.tolist() == [1000.0, 0.5]
    assert error_of(module["float32_1"], [1e300]) == (
        "argument 0[0]: value 1e+300 does not fit in f32"
    )


def test_arrays_of_the_other_signedness(module: Any, converting: Any) -> None:
    unsigned = np.array([2**31, 0], np.uint32)
    assert error_of(module["int32_1"], unsigned) == (
        "argument 0: expected an array of int32, got uint32[2] (convert=True converts it)"
    )
    got = converting["int32_1"](unsigned)
    assert got.dtype == np.int32 and got.tolist() == [-(2**31), 0]
    # The right dtype goes as it is (the plan's packed root is the caller's array);
    # another width is the records' to refuse.
    same = np.array([1, 2], np.int32)
    assert module["int32_1"]._plan.arguments((same,), {})[0] is same
    assert error_of(module["int32_1"], np.array([1], np.int64)) == (
        "argument 0: expected int32[?], got int64[1] (convert=True converts it)"
    )
    assert converting["int32_1"](np.array([1], np.int64)).tolist() == [1]
    assert error_of(module["uint8_1"], np.array([-1], np.int8)) == (
        "argument 0: expected an array of uint8, got int8[1] (convert=True converts it)"
    )
    assert converting["uint8_1"](np.array([-1], np.int8)).tolist() == [255]


def test_nested_lists_of_ints(module: Any) -> None:
    # Ragged lists are checked too (the records refuse them anyway).
    assert error_of(module["int8_1"], [1, [2, 300]]) == (
        "argument 0[1][1]: value 300 does not fit in int8"
    )
    assert error_of(module["int8_2"], [[1, 2], [3, 300]]) == (
        "argument 0[1][1]: value 300 does not fit in int8"
    )
    # Floats, bools and strings are the records' to refuse; an int beyond them is first.
    assert error_of(module["uint64_1"], [1.5, True, "x", 2**70]) == (
        "argument 0[3]: value 1180591620717411303424 does not fit in uint64"
    )
    assert error_of(module["uint64_1"], [1.5, True, 2]) == (
        # (the framework's dtype: the records' i64 is signless)
        "argument 0: expected uint64[?], got float64 values (convert=True converts it)"
    )
    assert module["uint64_1"]([2**64 - 1]).tolist() == [2**64 - 1]
    assert module["float32_1"]([1000]).tolist() == [1000.0]
    row: list[Any] = [0, 1]
    assert module["int8_2"]([row] * 3).tolist() == [[0, 1]] * 3


def test_ints_that_would_crash_the_caller(module: Any) -> None:
    """An AbiError, never another exception: an int of more than 4300 digits (which
    str() refuses), a list that holds itself (checked by the call, then refused by the
    records)."""
    assert error_of(module["int8_1"], [0, 10**5000]) == (
        "argument 0[1]: value <an integer of 16610 bits> does not fit in int8"
    )
    looped: list[Any] = []
    looped.append(looped)
    assert error_of(module["int8_1"], looped) == (
        "argument 0: expected int8[?], got lists nested deeper than 64 levels"
    )


@pytest.fixture(params=["plan", "module"])
def related(request: pytest.FixtureRequest) -> Callable[..., Any]:
    """`RELATED` called through `CallPlan` alone, or through the compiled module."""
    if request.param == "plan":
        plan = plan_of(RELATED, RELATED_ABI)
        return lambda *args, **kwargs: plan.arguments(args, kwargs)
    module: Any = request.getfixturevalue("module")
    function: Callable[..., Any] = module["related"]
    return function


def shaped(*shape: int) -> Any:
    return np.zeros(shape, np.float32)


def test_related_dims(related: Callable[..., Any]) -> None:
    good = (shaped(3), {"y": shaped(3, 4), "z": shaped(6)})
    assert error_of(related, *good, w=shaped(7)) is None
    assert error_of(related, shaped(3), {"y": shaped(5, 4), "z": shaped(6)}, w=shaped(1)) == (
        "argument 1['y']: dimension 0 is 5, but argument 0 has 3 in dimension 0 for the same "
        "symbol 'b'"
    )
    assert error_of(related, shaped(3), {"y": shaped(3, 4), "z": shaped(7)}, w=shaped(1)) == (
        "argument 1['z']: dimension 0 is 7, but 2*b is 6 (b is 3 from dimension 0 of argument 0)"
    )
    assert error_of(related, shaped(11), {"y": shaped(11, 4), "z": shaped(22)}, w=shaped(1)) == (
        "argument 0: dimension 0 is 11, but symbol 'b' is at most 10"
    )
    assert error_of(related, shaped(1), {"y": shaped(1, 4), "z": shaped(2)}, w=shaped(1)) == (
        "argument 0: dimension 0 is 1, but symbol 'b' is at least 2"
    )
    # A static dim is the records' (their words, before the relations).
    assert error_of(related, shaped(3), {"y": shaped(3, 5), "z": shaped(6)}, w=shaped(1)) == (
        "argument 1['y']: expected float32[?,4], got float32[3,5]"
    )


def test_related_dims_of_nested_lists(module: Any) -> None:
    """Nested lists are measured as the records measure them."""
    related = module["related"]
    got = related([0.0, 1.0, 2.0], {"y": [[0.0] * 4] * 3, "z": shaped(6)}, w=[])
    assert got.dtype == np.float32 and got.tolist() == [0.0, 1.0, 2.0]
    assert error_of(related, [0.0] * 3, {"y": [[0.0] * 4] * 2, "z": shaped(6)}, w=[]) == (
        "argument 1['y']: dimension 0 is 2, but argument 0 has 3 in dimension 0 for the same "
        "symbol 'b'"
    )


def test_related_dims_of_nested_lists_beside_bfloat16(module: Any) -> None:
    ml_dtypes = pytest.importorskip("ml_dtypes")
    y = np.zeros(3, ml_dtypes.bfloat16)
    assert module["with_bf16"]([0.0, 1.0, 2.0], y).tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("caller", ["plan", "module"])
def test_constraints(request: pytest.FixtureRequest, caller: str) -> None:
    if caller == "plan":
        plan = plan_of(CONSTRAINED, CONSTRAINED_ABI)

        def call(*args: Any) -> Any:
            return plan.arguments(args, {})

    else:
        call = request.getfixturevalue("module")["constrained"]
    assert error_of(call, shaped(5), shaped(3)) is None
    assert error_of(call, shaped(3), shaped(3)) is None
    assert error_of(call, shaped(3), shaped(5)) == (
        "argument 1: symbol 'b' is 5 from dimension 0, which breaks the constraint 'a >= b' "
        "(a is 3 from dimension 0 of argument 0)"
    )


def test_shared_dims_through_a_compiled_module(module: Any) -> None:
    # Both arguments of `add` are tensor<?xf32>: the records take lengths 3 and 5, and
    # the compiled code reads 3 floats past the shorter buffer. The call refuses.
    x = np.arange(3, dtype=np.float32)
    assert module.add(x, x).tolist() == [0.0, 2.0, 4.0]
    assert error_of(module.add, x, np.arange(5, dtype=np.float32)) == (
        "argument 1: dimension 0 is 5, but argument 0 has 3 in dimension 0 for the same symbol 'b'"
    )
    assert error_of(module.add, shaped(0), shaped(0)) == (
        "argument 0: dimension 0 is 0, but symbol 'b' is at least 1"
    )


def test_lists_of_ints_beyond_int64_reach_64_bit_records(module: Any) -> None:
    # numpy makes doubles of [0, 2**64 - 2] (int64 and uint64 values mixed): a uint64
    # list, which the records once took for floats.
    records = module["records_i64"]
    assert records([0, 2**64 - 2]).view(np.uint64).tolist() == [0, 2**64 - 2]
    assert records([-1, 2**63]).tolist() == [-1, -(2**63)]  # signless: either reading
    for value, message in [
        ([0, 2**64], "argument 0[1]: value 18446744073709551616 does not fit in i64"),
        # (str() refuses an int of more than 4300 digits: no ValueError escapes)
        ([0, -(10**5000)], "argument 0[1]: value -<an integer of 16610 bits> does not fit in i64"),
        ([0, -(2**63) - 1], "argument 0[1]: value -9223372036854775809 does not fit in i64"),
        ([0.5, 2**64 - 1], "argument 0: expected int64[2], got float64 values"),
    ]:
        message_found = error_of(records, value)
        assert message_found is not None and message_found.startswith(message), message_found
    # The original call says which reading: uint64 takes 2**64 - 2 and gives it back,
    # int64 refuses it.
    got = module["uint64_1"]([0, 2**64 - 2])
    assert got.dtype == np.uint64 and got.tolist() == [0, 2**64 - 2]
    assert error_of(module["int64_1"], [0, 2**64 - 2]) == (
        "argument 0[1]: value 18446744073709551614 does not fit in int64"
    )
    assert error_of(module["uint64_1"], [0, -1]) == (
        "argument 0[1]: value -1 does not fit in uint64"
    )
