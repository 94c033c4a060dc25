"""Bad calls (docs/spec.md §10, §10.1): each is an `AbiError` naming the argument path, raised
before anything reaches the VM (the module's context counts invocations)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from .conftest import needs_iree

needs_iree()

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.calling import vm  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402

from .conftest import CountingContext  # noqa: E402
from .helpers import PARAMETER_TEXT  # noqa: E402

ones = np.ones((2, 3), np.float32)
pair = np.ones(2, np.float32)
ints = np.array([1, 2], np.int32)
good_nested = {"a": (pair, 3), "b": 0.5}

Call = Callable[[abi_iree.Module], Any]


class Shaped:
    """An array through ``__array__`` with a ``.shape`` and ``.dtype`` of its own, which
    need not agree with the array it gives (nor give one)."""

    def __init__(self, shape: tuple[int, ...], array: Any) -> None:
        self.shape, self.dtype, self.array = shape, np.dtype(np.float32), array

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        if isinstance(self.array, Exception):
            raise self.array
        return self.array


# (id, call, message): calls that both pipelines reject with the same message.
BOTH: list[tuple[str, Call, str]] = [
    (
        "too-few",
        lambda m: m.shapes(ones, 1.0),
        "argument 2: missing value, expected int32[0]",
    ),
    (
        "too-many",
        lambda m: m.shapes(ones, 1.0, [], 4),
        "argument 3: unexpected positional argument (the function takes 3 positional arguments)",
    ),
    (
        "wrong-rank",
        lambda m: m.shapes(np.ones(3, np.float32), 1.0, []),
        "argument 0: expected float32[?,3], got float32[3]",
    ),
    (
        "wrong-static-dim",
        lambda m: m.shapes(np.ones((2, 4), np.float32), 1.0, []),
        "argument 0: expected float32[?,3], got float32[2,4]",
    ),
    (
        "float64-for-f32",
        lambda m: m.shapes(np.ones((2, 3)), 1.0, []),
        "argument 0: expected float32[?,3], got float64[2,3] (convert=True converts it)",
    ),
    (
        "non-numeric-array",
        lambda m: m.shapes([["a", "b", "c"]], 1.0, []),
        "argument 0: expected float32[?,3], got non-numeric values",
    ),
    (
        "string-array",
        lambda m: m.shapes(np.array([["a", "b", "c"]]), 1.0, []),
        "argument 0: expected float32[?,3], got <U1[1,3]",
    ),
    (
        "wrong-rank-0",
        lambda m: m.shapes(ones, [1.0], []),
        "argument 1: expected float64[], got lists of shape [1]",
    ),
    (
        "deep-dtype",
        lambda m: m.nested(({"a": (ints, 3), "b": 0.5}, ints)),
        "argument 0[0]['a'][0]: expected float32[2], got int32[2] (convert=True converts it)",
    ),
    (
        "float-data-for-i32",
        lambda m: m.nested((good_nested, [1.5, 2.0])),
        "argument 0[1]: expected int32[?], got float64 values (convert=True converts it)",
    ),
    (
        "int-out-of-range",
        lambda m: m.elements([True, False], [1, 300], *[[1, 2]] * 7),
        "argument 1[1]: value 300 does not fit in i8",
    ),
    (
        "float-out-of-range-list",
        lambda m: m.shapes([[1.0, 2.0, 3.0], [1e300, 0.0, 0.0]], 1.0, []),
        "argument 0[1][0]: value 1e+300 does not fit in f32",
    ),
    (
        "int-out-of-range-for-float-list",
        lambda m: m.shapes([[1.0, 2.0, 3.0], [0.0, 10**40, 0.0]], 1.0, []),
        "argument 0[1][1]: value 10000000000000000000000000000000000000000 does not fit in f32",
    ),
    (
        # an int beyond the doubles (an OverflowError before the fix)
        "int-beyond-doubles-for-float-list",
        lambda m: m.shapes([[1.0, 2.0, 3.0], [0.0, 0.0, -(10**400)]], 1.0, []),
        "argument 0[1][2]: value -<an integer of 1329 bits> does not fit in f32",
    ),
    (
        # `pack` read the .shape, the VM would get what __array__ gives
        "shape-that-lies",
        lambda m: m.shapes(Shaped((2, 3), np.ones((2, 4), np.float32)), 1.0, []),
        "argument 0: expected float32[?,3], got Shaped of shape [2,3] whose __array__() is "
        "float32[2,4]",
    ),
    (
        "dunder-array-that-raises-with-a-shape",
        lambda m: m.shapes(Shaped((2, 3), RuntimeError("no data")), 1.0, []),
        "argument 0: expected float32[?,3], Shaped.__array__() raised RuntimeError: no data",
    ),
    (
        "dunder-array-that-gives-no-array",
        lambda m: m.shapes(Shaped((2, 3), None), 1.0, []),
        "argument 0: expected float32[?,3], Shaped.__array__() raised ValueError: "
        "object __array__ method not producing an array",
    ),
    (
        "float-out-of-range-scalar",
        lambda m: m.scalars(True, 1, 1, 1, 1, 1e300, 1.0),
        "argument 5: value 1e+300 does not fit in f32",
    ),
    (
        "float64-memoryview",
        lambda m: m.shapes(memoryview(np.ones((1, 3))), 1.0, []),
        "argument 0: expected float32[?,3], got float64[1,3] (convert=True converts it)",
    ),
    (
        "wrong-dict-key",
        lambda m: m.nested(({"a": (pair, 3), "c": 0.5}, ints)),
        "argument 0[0]: expected a dict with keys ['a', 'b'], got keys ['a', 'c']",
    ),
    (
        "extra-dict-key",
        lambda m: m.nested(({"a": (pair, 3), "b": 0.5, "c": 1}, ints)),
        "argument 0[0]: expected a dict with keys ['a', 'b'], got keys ['a', 'b', 'c']",
    ),
    (
        "short-tuple",
        lambda m: m.nested(({"a": (pair,), "b": 0.5}, ints)),
        "argument 0[0]['a']: expected a sequence of 2 values, got 1",
    ),
    (
        "scalar-type",
        lambda m: m.nested(({"a": (pair, "3"), "b": 0.5}, ints)),
        "argument 0[0]['a'][1]: expected an int (i32), got str",
    ),
    (
        "gap-not-none",
        lambda m: m.paths({"w": [pair, pair]}, 1, (1.5, 2, pair)),
        "argument 2[1]: expected None (a gap in the structure), got int",
    ),
    (
        "dict-for-list",
        lambda m: m.paths({"w": {"x": pair}}, 1, (1.5, None, pair)),
        "argument 0['w']: expected a sequence of 2 values, got dict",
    ),
    (
        "unknown-keyword",
        lambda m: m.all_named(a=pair, b=1, c=2),
        "argument 'c': unexpected keyword argument (keywords: 'a', 'b')",
    ),
    (
        "missing-keyword",
        lambda m: m.all_named(a=pair),
        "argument 'b': missing value, expected an int (i32)",
    ),
]

# Calls whose message differs by convention (V1 records, legacy raw types).
V1_ONLY: list[tuple[str, Call, str]] = [
    (
        "int-for-i1-array",  # legacy: the raw signature calls it sint8
        lambda m: m.elements([2, 0], *[[1, 2]] * 8),
        "argument 0[0]: value 2 does not fit in i1",
    ),
    (
        "list-element",
        lambda m: m.lists(["x"], []),
        "argument 0[0]: expected an int (i32), got str",
    ),
    (
        "list-in-structure-element",
        lambda m: m.list_in_tuple(([1.5, "x"], 1)),
        "argument 0[0][1]: expected a float (f32), got str",
    ),
    (
        "unknown-value",
        lambda m: m.lists([1], [1, [object()]]),
        "argument 1[1][0]: expected a value the VM can take (a VM list, buffer view, "
        "array, number or sequence of those), got object",
    ),
    (
        "named-missing",
        lambda m: m.named(pair, bias=pair),
        "argument 'steps': missing value, expected an int (i32)",
    ),
    (
        "named-twice",
        lambda m: m.named(pair, pair, 1, steps=2),
        "argument 'steps': given both positionally and by keyword",
    ),
    (
        "ref-array-dims",
        lambda m: m.ref_array([[1], [2], [3]]),
        "argument 0: expected a reference array of shape [2], got lists of shape [3]",
    ),
    (
        "ref-array-element",
        lambda m: m.ref_array([[1], ["x"]]),
        "argument 0[1][0]: expected an int (i32), got str",
    ),
    (
        "array-without-element-type",
        lambda m: m.lists([1], [np.array(["a"])]),
        "argument 1[0]: no IREE element type for an array of <U1",
    ),
    (
        "buffer-view-element-type",
        lambda m: m.nested(({"a": (bad_view(m), 3), "b": 0.5}, ints)),
        "argument 0[0]['a'][0]: expected float32[2], got a buffer view of element type SINT_32",
    ),
]
LEGACY_ONLY: list[tuple[str, Call, str]] = [
    (
        "named-dropped",
        lambda m: m.named(pair, bias=pair, steps=1),
        "argument 'bias': unexpected keyword argument (it takes no keywords)",
    ),
    (
        "unknown-value",
        lambda m: m.lists([1], [1, [object()]]),
        "argument 1[1][0]: expected a value the VM can take (a VM list, buffer view, "
        "array, number or sequence of those), got object",
    ),
]


def bad_view(module: abi_iree.Module) -> Any:
    """An i32 buffer view, for an f32 slot."""
    return module._marshal.allocator.allocate_buffer_copy(
        vm._ARG_MEMORY,
        vm._ARG_USAGE,
        module.device,
        np.array([1, 2], np.int32),
        vm.rt.HalElementType.SINT_32,
    )


@pytest.fixture
def counted(request: pytest.FixtureRequest) -> Iterator[tuple[abi_iree.Module, list[Any]]]:
    """A module whose functions count their VM invocations."""
    module: abi_iree.Module = request.getfixturevalue(request.param)
    counters = []
    for name in module.function_names:
        if name in ("malformed", "records_for_two", "i64_for_i32"):  # test_malformed_reflection
            continue
        function = module[name]
        counters.append((function, function._context))
        function._context = CountingContext(function._context)
    yield module, [function._context for function, _ in counters]
    for function, context in counters:
        function._context = context


def check(module: abi_iree.Module, contexts: list[Any], call: Call, message: str) -> None:
    with pytest.raises(AbiError) as caught:
        call(module)
    assert str(caught.value) == message
    assert sum(context.calls for context in contexts) == 0, "the VM was called"


@pytest.mark.parametrize("counted", ["v1", "legacy"], indirect=True)
@pytest.mark.parametrize(("call", "message"), [c[1:] for c in BOTH], ids=[c[0] for c in BOTH])
def test_rejected_by_both(
    counted: tuple[abi_iree.Module, list[Any]], call: Call, message: str
) -> None:
    check(*counted, call, message)


@pytest.mark.parametrize("counted", ["v1"], indirect=True)
@pytest.mark.parametrize(("call", "message"), [c[1:] for c in V1_ONLY], ids=[c[0] for c in V1_ONLY])
def test_rejected_by_v1(
    counted: tuple[abi_iree.Module, list[Any]], call: Call, message: str
) -> None:
    check(*counted, call, message)


@pytest.mark.parametrize("counted", ["legacy"], indirect=True)
@pytest.mark.parametrize(
    ("call", "message"), [c[1:] for c in LEGACY_ONLY], ids=[c[0] for c in LEGACY_ONLY]
)
def test_rejected_by_legacy(
    counted: tuple[abi_iree.Module, list[Any]], call: Call, message: str
) -> None:
    check(*counted, call, message)


@pytest.mark.parametrize("counted", ["flat"], indirect=True)
def test_flat_functions_take_no_keywords(counted: tuple[abi_iree.Module, list[Any]]) -> None:
    check(
        *counted,
        lambda m: m.flat(pair, 1, [], x=1),
        "argument 'x': unexpected keyword argument (@flat has no reflection: arguments "
        "are positional)",
    )
    check(
        *counted,
        lambda m: m.flat(pair, 1, {1: 2}),
        "argument 2: expected a value the VM can take (a VM list, buffer view, array, "
        "number or sequence of those), got dict",
    )


def test_unknown_function(v1: abi_iree.Module) -> None:
    with pytest.raises(KeyError, match="exports no function 'missing'"):
        v1["missing"]
    with pytest.raises(AttributeError, match="exports no function 'missing'"):
        _ = v1.missing
    assert "named" in v1 and "missing" not in v1
    assert not hasattr(v1, "missing")
    # An AbiError too, naming what the module has.
    with pytest.raises(AbiError) as caught:
        _ = v1.missing
    names = ", ".join(v1.function_names)
    assert str(caught.value) == (
        f"the module exports no function 'missing' (its functions: {names})"
    )


@pytest.mark.parametrize(
    ("data", "seems"),
    [
        (
            b"PK\x03\x04\x14\x00" + bytes(24) + b"model/archive_format",
            "a ZIP archive, not a compiled module (a torch.export .pt2 program?)",
        ),
        (b"ML\xefR\x00\x01\x02", "MLIR bytecode, not a compiled module"),
        (b"  module {\n  func.func @f() {\n  }\n}\n", "MLIR text, not a compiled module"),
    ],
)
def test_loading_a_model_instead_of_a_module(data: bytes, seems: str) -> None:
    with pytest.raises(AbiError) as caught:
        abi_iree.load(data)
    assert str(caught.value) == (
        f"cannot load the compiled module: the file is {seems}: compile it first "
        "(abi-compile FILE -o model.vmfb, or abi_compiler.iree.compile_vmfb)"
    )


def test_malformed_reflection(flat: abi_iree.Module) -> None:
    with pytest.raises(AbiError) as caught:
        flat["malformed"]
    assert str(caught.value) == (
        'function @malformed: malformed reflection: missing key "r" (at offset 0)'
    )
    # Records of another number of arguments than the VM function takes: every call was
    # the VM's own ValueError ("input list and function mismatch").
    with pytest.raises(AbiError) as caught:
        flat["records_for_two"]
    assert str(caught.value) == (
        "function @records_for_two: malformed reflection: the records describe 2 arguments, "
        "the VM function takes 1"
    )
    # ... or of another kind (the VM's RuntimeError: FAILED_PRECONDITION)
    with pytest.raises(AbiError) as caught:
        flat["i64_for_i32"]
    assert str(caught.value) == (
        "function @i64_for_i32: malformed reflection: argument 0: the records describe an "
        "i64, the VM function takes an i32"
    )


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("int_for_array", (1,), "result 0: expected float32[2], the VM returned int"),
        (
            "i32_for_f32",
            ([1, 2],),
            "result 0: expected float32[2], the VM returned element type SINT_32",
        ),
        (
            "too_few_results",
            (1,),
            "@too_few_results: the VM returned 1 result, its reflection describes 2",
        ),
        ("short_list", ([5], 1), "result 0: expected a list of 2 values, the VM returned 1"),
        ("int_for_list", (1,), "result 0: expected a list of 1 value, the VM returned int"),
    ],
)
def test_results_that_do_not_match_the_reflection(
    flat: abi_iree.Module, name: str, args: tuple[Any, ...], message: str
) -> None:
    with pytest.raises(AbiError) as caught:
        flat[name](*args)
    assert str(caught.value) == message


@pytest.mark.parametrize("counted", ["flat"], indirect=True)
def test_arrays_numpy_has_no_dtype_for(counted: tuple[abi_iree.Module, list[Any]]) -> None:
    check(
        *counted,
        lambda m: m.i4_array([1, 2]),
        "argument 0: expected an array (element type i4), got list: nested lists say "
        "nothing of its element type",
    )


@pytest.mark.parametrize("counted", ["flat"], indirect=True)
def test_a_dim_beyond_int64(counted: tuple[abi_iree.Module, list[Any]]) -> None:
    """A reflection whose dim IREE's packer cannot read (a std::bad_cast from its C++ when
    the function was looked up) binds by the pushers, which refuse every value."""
    check(
        *counted,
        lambda m: m.dim_beyond_int64(pair),
        "argument 0: expected float32[9223372036854775808], got float32[2]",
    )


def test_a_buffer_view_fills_any_array_slot(flat: abi_iree.Module) -> None:
    view = bad_view(flat)  # i32 data, passed as they are to an i4 slot
    got = flat.i4_array(view)
    assert got.dtype == np.int32 and got.tolist() == [1, 2]


def test_a_module_of_named_parameters_loaded_without_them() -> None:
    """IREE's own error is a `ValueError` naming its `io_parameters` module: the caller
    is told what to pass instead."""
    vmfb = abi_iree.compile_vmfb(PARAMETER_TEXT)
    with pytest.raises(AbiError) as error:
        abi_iree.load(vmfb)
    assert str(error.value) == (
        "the module reads named parameters (weights kept out of the .vmfb): load it with "
        "parameters= (an .irpa path or a mapping of name to array)"
    )
    module = abi_iree.load(vmfb, parameters={"w": np.arange(4, dtype=np.float32)})
    assert module.main(np.ones(4, np.float32)).tolist() == [1.0, 2.0, 3.0, 4.0]


def test_a_module_that_crashes_the_runtime_in_the_child_is_an_abi_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`load` first creates the context of a module it did not compile in a child process
    (a byte flipped in a module's executable crashed IREE's runtime with SIGSEGV in the
    caller's process). The child here crashes as such a module makes it crash."""
    from abi_compiler.calling import child_load

    vmfb = abi_iree.compile_vmfb(
        PARAMETER_TEXT.replace('#flow.parameter.named<"model"::"w">', "dense<1.0>")
    )
    monkeypatch.setattr(
        child_load, "_CHILD", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"
    )
    # Compiled in this process: trusted, no child.
    assert abi_iree.load(vmfb).main(np.ones(4, np.float32)).tolist() == [2.0] * 4
    copy = bytes(bytearray(vmfb))  # the same bytes: still compiled here
    abi_iree.load(copy)
    with pytest.raises(AbiError) as error:
        abi_iree.load(vmfb, isolate=True)
    assert str(error.value) == (
        "cannot load the compiled module: IREE's runtime crashed (SIGSEGV) creating its "
        "context in a child process; the module is corrupted, or not built for this machine "
        "(load(…, isolate=False) skips this check)"
    )


def test_a_module_from_a_file_is_tried_in_a_child(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    from abi_compiler.calling import child_load

    vmfb = abi_iree.compile_vmfb(PARAMETER_TEXT)
    path = tmp_path / "model.vmfb"
    path.write_bytes(vmfb)
    # The real child: a whole module loads (it needs its parameters: refused in the child
    # by IREE, which this process then reports as it would without the child).
    with pytest.raises(AbiError, match="reads named parameters"):
        abi_iree.load(path)
    weights = {"w": np.arange(4, dtype=np.float32)}
    assert abi_iree.load(path, parameters=weights).main(np.ones(4, np.float32)).tolist() == [
        1.0,
        2.0,
        3.0,
        4.0,
    ]
    monkeypatch.setattr(
        child_load, "_CHILD", "import os, signal; os.kill(os.getpid(), signal.SIGABRT)"
    )
    with pytest.raises(AbiError, match=r"crashed \(SIGABRT\)"):
        abi_iree.load(path, parameters=weights)
    assert (
        abi_iree.load(path, parameters=weights, isolate=False)
        .main(np.ones(4, np.float32))
        .tolist()[0]
        == 1.0
    )
