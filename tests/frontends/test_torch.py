"""`abi_compiler.frontends.torch` and `abi_compiler.iree.compile(program)` on real
`torch.export` programs, and torch tensors at the leaves of any call. Skipped without
torch and iree-turbine (the `torch` extra); test_generated.py covers the same MLP's MLIR
without them."""

from __future__ import annotations

import collections
import re
import warnings
from typing import Any

import pytest

from tests.calling.conftest import needs_iree

needs_iree()
torch = pytest.importorskip("torch")
pytest.importorskip("iree.turbine")

import numpy as np  # noqa: E402

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.codecs.call_json import decode_call  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402
from abi_compiler.frontends import torch as torch_frontend  # noqa: E402
from tests.calling.helpers import compile_quietly as _compile  # noqa: E402
from tests.frontends.generate import models  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore::FutureWarning"),  # torch's own pytree API
    pytest.mark.filterwarnings("ignore::DeprecationWarning:iree.turbine"),  # numpy 2 __array__
]


@pytest.fixture(scope="module")
def mlp() -> tuple[Any, tuple[Any, ...], dict[str, Any], abi_iree.Module]:
    module, args, kwargs = models.torch_mlp()
    return module, args, kwargs, _compile(torch.export.export(module, args, kwargs))


def assert_same_tree(got: Any, expected: Any) -> None:
    """Same containers (types, dict key order) and tensors of the same dtype and values.
    A namedtuple comes back as a type of the same name and fields (rebuilt from the
    module's `abi.call`, unless the caller gave its own)."""
    if hasattr(expected, "_fields"):
        assert type(got).__name__ == type(expected).__name__ and got._fields == expected._fields
    else:
        assert type(got) is type(expected)
    if isinstance(expected, torch.Tensor):
        assert got.dtype == expected.dtype and got.shape == expected.shape
        torch.testing.assert_close(got, expected.detach())
    elif isinstance(expected, dict):
        assert list(got) == list(expected)
        for key in expected:
            assert_same_tree(got[key], expected[key])
    elif isinstance(expected, (list, tuple)):
        assert len(got) == len(expected)
        for item, want in zip(got, expected, strict=True):
            assert_same_tree(item, want)
    else:
        assert got == expected


def test_the_original_call_returns_the_original_tree(mlp: Any) -> None:
    module, args, kwargs, compiled = mlp
    assert compiled.function_names == ["main"]
    with torch.no_grad():
        expected = module(*args, **kwargs)
    assert_same_tree(compiled.main(*args, **kwargs), expected)
    # Other inputs than the example's.
    other_args = (
        {"features": torch.randn(2, 4)},
        (torch.randn(3), torch.tensor([5, -1, 7], dtype=torch.int32)),
        2,
    )
    other_kwargs = {
        "mask": torch.tensor([False, True, True]),
        "ids": torch.tensor([0, 9, 200], dtype=torch.uint8),
    }
    with torch.no_grad():
        expected = module(*other_args, **other_kwargs)
    assert_same_tree(compiled.main(*other_args, **other_kwargs), expected)


def test_numpy_leaves_work_too(mlp: Any) -> None:
    module, args, kwargs, compiled = mlp
    as_numpy = ({"features": args[0]["features"].numpy()}, tuple(t.numpy() for t in args[1]), 2)
    result = compiled.main(*as_numpy, **{name: value.numpy() for name, value in kwargs.items()})
    with torch.no_grad():
        assert_same_tree(result, module(*args, **kwargs))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda a, k: ((a[0], a[1], 3), k),
            "argument steps: expected 2 (the value the program was exported with), got 3",
        ),
        (
            lambda a, k: (({"features": a[0]["features"], "other": 1}, a[1], 2), k),
            "argument x: expected a dict with keys ['features'], got keys ['features', 'other']",
        ),
        (
            lambda a, k: ((a[0], (a[1][0], a[1][1].long()), 2), k),
            "argument pair[1]: expected int32[3], got int64[3] (convert=True converts it)",
        ),
        (
            lambda a, k: (a, {**k, "mask": torch.ones(4, dtype=torch.bool)}),
            "argument 'mask': expected bool[3], got bool[4]",
        ),
        (lambda a, k: (a[:2], k), "argument steps: missing value"),
        (lambda a, k: (a, {"mask": k["mask"]}), "argument 'ids': missing value"),
    ],
)
def test_calls_that_do_not_fit(mlp: Any, change: Any, message: str) -> None:
    _, args, kwargs, compiled = mlp
    new_args, new_kwargs = change(args, kwargs)
    with pytest.raises(AbiError) as error:
        compiled.main(*new_args, **new_kwargs)
    assert str(error.value) == message


def test_to_mlir_writes_the_structure() -> None:
    module, args, kwargs = models.torch_mlp()
    text = torch_frontend.to_mlir(torch.export.export(module, args, kwargs))
    assert "abi.index_path = [1, 0]" in text and '{abi.index_path = ["mask"]}' in text
    assert "!torch." not in text and " torch." not in text  # lowered to builtin tensors
    # Parameters and the buffer are constants inside, not arguments.
    assert text.count("tensor<2x4xf32> {abi.index_path") == 1


def counter() -> Any:
    class Counter(torch.nn.Module):  # type: ignore[name-defined,misc]
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("count", torch.zeros(1))

        def forward(self, x: Any) -> Any:
            self.count.add_(1)  # in place: the program is made functional first
            return x * self.count

    return Counter()


def test_a_mutated_buffer_is_module_state() -> None:
    compiled = _compile(torch.export.export(counter(), (torch.ones(2),)))
    assert compiled.main(torch.ones(2)).tolist() == [1.0, 1.0]
    assert compiled.main(torch.ones(2)).tolist() == [2.0, 2.0]
    # What it reads and writes is recorded, in `abi.state` and in its original call's
    # `state` alike (docs/formats.md, "The state a function uses").
    (used,) = compiled.main.state or []
    assert (used.dtype, used.shape, used.reads, used.writes) == ("float32", (1,), True, True)
    call = decode_call(compiled.main.reflection["abi.call"])
    assert call.state == (used,)


class Dtypes(torch.nn.Module):  # type: ignore[name-defined,misc]
    def forward(self, z: Any, x: Any, flags: Any) -> Any:
        return (
            torch.view_as_real(z),
            torch.view_as_complex(torch.stack([x, x + 1], -1)),
            x.to(torch.bfloat16) * 2,
            x.half() + 1,
            x.double() * 3,
            (x * 100).to(torch.int8),
            (x * 100).to(torch.int16),
            flags.logical_not(),
        )


def test_dtypes() -> None:
    z = torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex64)
    x = torch.tensor([1.0, -0.5])
    flags = torch.tensor([True, False])
    compiled = _compile(torch.export.export(Dtypes(), (z, x, flags)))
    assert_same_tree(compiled.main(z, x, flags), Dtypes()(z, x, flags))
    with pytest.raises(
        AbiError, match=r"^argument z: expected an array of complex64, got complex128$"
    ):
        compiled.main(z.to(torch.complex128), x, flags)


class Dynamic(torch.nn.Module):  # type: ignore[name-defined,misc]
    def forward(self, x: Any) -> Any:
        return {"sum": x.sum(0), "rows": [x[0], x[-1]]}


def test_dynamic_shapes() -> None:
    batch = torch.export.Dim("batch")
    program = torch.export.export(Dynamic(), (torch.ones(3, 2),), dynamic_shapes=({0: batch},))
    compiled = _compile(program)
    for rows in (2, 5):
        x = torch.arange(rows * 2, dtype=torch.float32).reshape(rows, 2)
        assert_same_tree(compiled.main(x), Dynamic()(x))


class Float8(torch.nn.Module):  # type: ignore[name-defined,misc]
    def forward(self, x: Any) -> Any:
        return x.float()


def test_a_dtype_iree_cannot_take_is_an_error_before_compiling() -> None:
    program = torch.export.export(Float8(), (torch.ones(2, dtype=torch.float8_e4m3fn),))
    with pytest.raises(AbiError, match=r"^argument 0: dtype torch.float8_e4m3fn is not supported"):
        torch_frontend.to_mlir(program)


# -- torch tensors at the leaves of any call (abi_compiler.runtime / abi_compiler.iree) --

LEAVES = """
func.func @scale(%x: tensor<2x2xf32>, %h: tensor<2xbf16>) -> (tensor<2x2xf32>, tensor<2xbf16>) {
  %y = arith.addf %x, %x : tensor<2x2xf32>
  func.return %y, %h : tensor<2x2xf32>, tensor<2xbf16>
}
"""


@pytest.fixture(scope="module")
def leaves() -> tuple[abi_iree.Module, abi_iree.Module]:
    vmfb = abi_iree.compile_vmfb(LEAVES)
    return abi_iree.load(vmfb), abi_iree.load(vmfb, convert=True)


def test_torch_tensors_are_taken_where_arrays_are(leaves: Any) -> None:
    module, _ = leaves
    x = torch.arange(4, dtype=torch.float32, requires_grad=True).reshape(2, 2)
    h = torch.tensor([1.5, -2.0], dtype=torch.bfloat16)
    y, back = module.scale(x, h)
    np.testing.assert_array_equal(y, [[0, 2], [4, 6]])
    assert back.dtype.name == "bfloat16" and back.astype(np.float32).tolist() == [1.5, -2.0]
    # A transposed (non-contiguous) view is read in its logical order.
    y, _ = module.scale(x.detach().t(), h)
    np.testing.assert_array_equal(y, [[0, 4], [2, 6]])


def test_convert_works_for_torch_tensors(leaves: Any) -> None:
    module, converting = leaves
    x = torch.ones(2, 2, dtype=torch.float64)
    h = torch.ones(2, dtype=torch.bfloat16)
    with pytest.raises(
        AbiError,
        match=r"^argument 0: expected float32\[2,2\], got float64\[2,2\] \(convert=True converts it\)$",
    ):
        module.scale(x, h)
    y, _ = converting.scale(x, h)
    np.testing.assert_array_equal(y, [[2, 2], [2, 2]])


def test_unsupported_torch_dtypes_are_refused_before_the_vm(leaves: Any) -> None:
    module, _ = leaves
    x = torch.ones(2, 2).to(torch.float8_e4m3fn)
    with pytest.raises(
        AbiError,
        match=r"^argument 0: expected float32\[2,2\], got a torch.Tensor of dtype torch.float8_e4m3fn, which IREE cannot take$",
    ):
        module.scale(x, torch.ones(2, dtype=torch.bfloat16))


def test_flat_functions_take_torch_tensors() -> None:
    source = "func.func @twice(%x: tensor<?xi32>) -> tensor<?xi32> {\n  %y = arith.addi %x, %x : tensor<?xi32>\n  func.return %y : tensor<?xi32>\n}\n"
    module = abi_iree.load(abi_iree.compile_vmfb(source, pipeline=None))
    assert isinstance(module.twice, abi_iree.Function) and module.twice.convention == "flat"
    assert module.twice(torch.tensor([1, 2], dtype=torch.int32)).tolist() == [2, 4]


def test_turbines_own_module_lists_main_without_its_async_variant() -> None:
    from iree.turbine import aot

    module, args, kwargs = models.torch_mlp()
    vmfb = aot.export(torch.export.export(module, args, kwargs)).compile(save_to=None)
    loaded = abi_iree.load(bytes(vmfb.map_memory()))
    assert loaded.vm_module.function_names == ["main$async", "main", "__init"]
    assert loaded.function_names == ["main"] and "main$async" not in loaded
    with pytest.raises(KeyError, match=r"exports no function 'main\$async'"):
        loaded["main$async"]  # what function_names hides is not reachable by name


# -- what torch checks, checked before the VM from the module's abi.call (the cases of
# -- docs/calling.md#what-the-original-call-checks, through the loaded original call) ---


class Add(torch.nn.Module):  # type: ignore[name-defined,misc]
    def forward(self, x: Any, y: Any) -> Any:
        return x + y


def _error_of(function: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(AbiError) as error:
        function(*args, **kwargs)
    return str(error.value)


def test_a_shared_dim_and_its_bounds() -> None:
    batch = torch.export.Dim("batch", min=2, max=10)
    program = torch.export.export(
        Add(), (torch.ones(3), torch.ones(3)), dynamic_shapes=({0: batch}, {0: batch})
    )
    symbol = "batch"  # the Dim's name, not torch's symbol (s0, s77, …)
    compiled = _compile(program)
    x = torch.arange(4, dtype=torch.float32)
    assert_same_tree(compiled.main(x, x), Add()(x, x))
    for args, message in [
        (
            (torch.ones(3), torch.ones(5)),
            f"argument y: dimension 0 is 5, but argument x has 3 in dimension 0 for the "
            f"same symbol {symbol!r}",
        ),
        (
            (torch.ones(11), torch.ones(11)),
            f"argument x: dimension 0 is 11, but symbol {symbol!r} is at most 10",
        ),
    ]:
        assert _error_of(compiled.main, *args) == message
        with pytest.raises(Exception):  # noqa: B017 - torch refuses it too (its guards)
            program.module()(*args)
    # torch takes sizes 0 and 1 whatever a lower bound of 2 says (0/1 specialization).
    for size in (0, 1):
        assert compiled.main(torch.ones(size), torch.ones(size)).shape == (size,)
    above_two = torch.export.export(
        Add(),
        (torch.ones(4), torch.ones(4)),
        dynamic_shapes=({0: torch.export.Dim("b", min=3)}, {0: torch.export.Dim("b", min=3)}),
    )
    symbol = "b"
    assert _error_of(_compile(above_two).main, torch.ones(2), torch.ones(2)) == (
        f"argument x: dimension 0 is 2, but symbol {symbol!r} is at least 3"
    )
    with pytest.raises(Exception):  # noqa: B017 - as torch
        above_two.module()(torch.ones(2), torch.ones(2))


def test_a_derived_dim() -> None:
    class Pair(torch.nn.Module):  # type: ignore[name-defined,misc]
        def forward(self, x: Any, y: Any) -> Any:
            return x[: y.shape[0]] + y, x

    rows = torch.export.Dim("rows", min=1, max=8)
    program = torch.export.export(
        Pair(), (torch.ones(6), torch.ones(3)), dynamic_shapes=({0: 2 * rows}, {0: rows})
    )
    compiled = _compile(program)
    x, y = torch.arange(8, dtype=torch.float32), torch.ones(4)
    assert_same_tree(compiled.main(x, y), Pair()(x, y))
    message = _error_of(compiled.main, torch.ones(8), torch.ones(3))
    assert message == (
        "argument x: dimension 0 is 8, but 2*rows is 6 (rows is 3 from dimension 0 of argument y)"
    )
    with pytest.raises(Exception):  # noqa: B017 - torch refuses it too
        program.module()(torch.ones(8), torch.ones(3))


class Increment(torch.nn.Module):  # type: ignore[name-defined,misc]
    def forward(self, x: Any) -> Any:
        return x + 1


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "int64"])
def test_integer_inputs_are_checked_by_their_torch_dtype(dtype: str) -> None:
    torch_dtype = getattr(torch, dtype)
    program = torch.export.export(Increment(), (torch.zeros(2, dtype=torch_dtype),))
    compiled = _compile(program)
    info = np.iinfo(dtype)
    low, high = int(info.min), int(info.max)
    got = compiled.main([low, high - 1])
    assert got.dtype == torch_dtype and got.tolist() == [low + 1, high]
    assert _error_of(compiled.main, [0, high + 1]) == (
        f"argument x[1]: value {high + 1} does not fit in {dtype}"
    )
    assert _error_of(compiled.main, [low - 1, 0]) == (
        f"argument x[0]: value {low - 1} does not fit in {dtype}"
    )
    other = ("u" + dtype) if not dtype.startswith("u") else dtype[1:]
    if hasattr(np, other):
        wrong = np.zeros(2, other)
        assert _error_of(compiled.main, wrong) == (
            f"argument x: expected an array of {dtype}, got {other}[2] (convert=True converts it)"
        )


class Pair(torch.nn.Module):  # type: ignore[name-defined,misc]
    def forward(self, x: Any) -> Any:
        return (x * 2, None)


Halves = collections.namedtuple("Halves", ["low", "missing", "high"])


class Split(torch.nn.Module):  # type: ignore[name-defined,misc]
    def forward(self, x: Any) -> Any:
        return {"halves": Halves(x[:2] + 1, None, x[2:] - 1), "none": None}


@pytest.mark.parametrize("model", [Pair(), Split()], ids=["tuple", "namedtuple"])
def test_none_outputs_are_restored(model: Any) -> None:
    x = torch.arange(4, dtype=torch.float32)
    program = torch.export.export(model, (x,))
    compiled = _compile(program)
    assert_same_tree(compiled.main(x), model(x))
    # The compiled function returns the tensors only.
    assert "None" not in compiled["main"].declaration


def test_a_model_output_with_none_fields() -> None:
    # A transformers `ModelOutput` leaves its None fields out of its pytree: they come
    # back as None attributes of the rebuilt class.
    outputs = pytest.importorskip("transformers.modeling_outputs")

    class Encoder(torch.nn.Module):  # type: ignore[name-defined,misc]
        def forward(self, x: Any) -> Any:
            return outputs.BaseModelOutputWithPooling(
                last_hidden_state=x * 2, pooler_output=None, hidden_states=(x + 1,)
            )

    x = torch.ones(2, 3)
    got = _compile(torch.export.export(Encoder(), (x,))).main(x)
    expected = Encoder()(x)
    assert type(got) is type(expected) and list(got.keys()) == list(expected.keys())
    assert got.pooler_output is None and got.attentions is None
    assert_same_tree(got.to_tuple(), expected.to_tuple())


def test_a_constant_output_other_than_none_is_refused() -> None:
    class Constant(torch.nn.Module):  # type: ignore[name-defined,misc]
        def forward(self, x: Any) -> Any:
            return x + 1, 3

    program = torch.export.export(Constant(), (torch.ones(2),))
    with pytest.raises(AbiError, match=r"^result: the program returns the constant 3, "):
        abi_iree.compile(program)


def test_a_crash_of_iree_torch_lowering_is_a_compile_error() -> None:
    class TimesTwo(torch.nn.Module):  # type: ignore[name-defined,misc]
        def forward(self, a: Any) -> Any:
            return a * 2  # the located line

    program = torch.export.export(TimesTwo(), (torch.ones(3, dtype=torch.int8),))
    with pytest.raises(abi_iree.CompileError) as caught:
        abi_iree.compile(program)  # IREE 3.13 crashes (SIGSEGV) here, in iree-opt
    assert caught.value.stage == "IREE torch input pipeline"
    first, crash = caught.value.diagnostics.splitlines()
    line = TimesTwo.forward.__code__.co_firstlineno + 1
    assert first == (
        f"{__file__}:{line}:0: error: unimplemented: for conversion to byte or char type "
        "dstOriginalDtype has to be passed to convertScalarToDtype"
    )
    assert crash.startswith("iree-opt: crashed (SIG")


def test_a_failure_of_the_turbine_import_is_a_compile_error() -> None:
    class Branch(torch.nn.Module):  # type: ignore[name-defined,misc]
        def forward(self, x: Any) -> Any:
            return torch.cond(x.sum() > 0, lambda x: x + 1, lambda x: x - 1, (x,))

    program = torch.export.export(Branch(), (torch.ones(3),))
    with pytest.raises(abi_iree.CompileError) as caught:
        abi_iree.compile(program)
    assert caught.value.stage == "iree-turbine import"
    assert caught.value.diagnostics == (
        "Higher-order operation 'cond' not implemented in the FxImporter (tried "
        "'_import_hop_cond')\n"
    )


class ScaledCounter(torch.nn.Module):  # type: ignore[name-defined,misc]
    """A parameter (iree-turbine's numpy `__array__` DeprecationWarning) and a mutated
    buffer (torch's `LeafSpec` FutureWarning when the program is made functional)."""

    def __init__(self) -> None:
        super().__init__()
        self.scale = torch.nn.Parameter(torch.full((2,), 3.0))
        self.register_buffer("count", torch.zeros(1))

    def forward(self, x: Any) -> Any:
        self.count.add_(1)
        return x * self.count * self.scale


def test_the_frameworks_deprecation_warnings_stay_inside() -> None:
    program = torch.export.export(ScaledCounter(), (torch.ones(2),))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        filters = list(warnings.filters)
        compiled = abi_iree.compile(program)
        assert warnings.filters == filters  # `quiet` is scoped to the lowering
    assert [f"{item.category.__name__}: {item.message}" for item in caught] == []
    assert compiled.main(torch.ones(2)).tolist() == [3.0, 3.0]


class TwoCounters(torch.nn.Module):  # type: ignore[name-defined,misc]
    """Two updated buffers of one shape and dtype, registered in the other order than
    their names sort, and a third of another shape, not in the state dict."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("steps", torch.tensor([10.0, 20.0]))
        self.register_buffer("calls", torch.tensor([1.0, 2.0]))
        self.register_buffer("seen", torch.zeros(3), persistent=False)

    def forward(self, x: Any) -> Any:
        self.steps.add_(x)
        self.calls.add_(1)
        self.seen.add_(x.sum())
        return self.steps * 100 + self.calls


def test_the_state_is_named_after_its_buffers() -> None:
    """The globals iree-turbine makes of updated buffers (`__auto.constant_2_torch.float32`,
    `…$1`) are named after the buffers: what `abi-sig show` prints and `abi-sig diff`
    compares. Each name holds its own buffer: its initial value is that buffer's."""
    program = torch.export.export(TwoCounters(), (torch.ones(2),))
    compiled = _compile(program)
    names = [(g.name, g.shape) for g in compiled.main.state or []]
    assert names == [("steps", (2,)), ("calls", (2,)), ("seen", (3,))]
    eager = TwoCounters()
    for _ in range(2):
        assert compiled.main(torch.ones(2)).tolist() == eager(torch.ones(2)).tolist()
    text = torch_frontend.to_mlir(program)
    for name, values in (("steps", [10.0, 20.0]), ("calls", [1.0, 2.0])):
        found = re.search(rf"util\.global private mutable @{name} = dense_resource<([^>]+)>", text)
        assert found is not None, name
        blob = re.search(rf'{re.escape(found.group(1))}: "0x04000000([0-9A-Fa-f]+)"', text)
        assert blob is not None, name
        assert bytes.fromhex(blob.group(1)) == np.array(values, np.float32).tobytes(), name


class Gated(torch.nn.Module):
    def forward(self, x: Any, state: Any, *, gate: Any) -> Any:
        return x * gate + state


def test_parameters_keep_their_names_and_take_keywords_as_eager(tmp_path: Any) -> None:
    """`forward(self, x, state, *, gate)` is called as eager torch calls it: `x` and
    `state` by position or by name, `gate` by name only; `inspect.signature`, `abi-sig
    show` and messages name them (it was `main(arg0, arg1, /, *, gate)`). A `.pt2` read
    back gives the same call (its `forward_arg_names`)."""
    import inspect

    from abi_compiler.frontends import torch_archive

    x, state, gate = torch.ones(2), torch.full((2,), 2.0), torch.full((2,), 3.0)
    program = torch.export.export(Gated(), (x, state), {"gate": gate})
    compiled = _compile(program)
    want = Gated()(x, state, gate=gate)
    for args, kwargs in [
        ((x, state), {"gate": gate}),
        ((x,), {"state": state, "gate": gate}),
        ((), {"x": x, "state": state, "gate": gate}),
        ((), {"gate": gate, "state": state, "x": x}),
    ]:
        torch.testing.assert_close(compiled.main(*args, **kwargs), want)
    assert str(inspect.signature(compiled.main)) == (
        "(x: 'numpy.typing.ArrayLike', state: 'numpy.typing.ArrayLike', *, "
        "gate: 'numpy.typing.ArrayLike') -> 'numpy.typing.NDArray[numpy.float32]'"
    )
    assert "Called as main(x: float32[2], state: float32[2], *, gate: float32[2])" in (
        compiled.main.__doc__ or ""
    )
    for args, kwargs, message in [
        (
            (x, state, gate),
            {},
            "argument 2: unexpected positional argument (the function takes 2 positional "
            "arguments)",
        ),
        (
            (x,),
            {"x": x, "state": state, "gate": gate},
            "argument 'x': given both positionally and by keyword",
        ),
        ((), {"state": state, "gate": gate}, "argument x: missing value"),
        (
            (x, state),
            {"gate": gate, "other": x},
            "argument 'other': unexpected keyword argument (keywords: 'gate')",
        ),
        (
            (x, state.double()),
            {"gate": gate},
            "argument state: expected float32[2], got float64[2] (convert=True converts it)",
        ),
    ]:
        with pytest.raises(AbiError) as error:
            compiled.main(*args, **kwargs)
        assert str(error.value) == message
    torch.export.save(program, tmp_path / "gated.pt2")
    read_back = torch_frontend.program(torch_archive.load(str(tmp_path / "gated.pt2"))).call
    assert read_back == torch_frontend.program(program).call
    assert read_back is not None and read_back.labels == ("x", "state") and read_back.by_name
