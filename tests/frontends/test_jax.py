"""`abi_compiler.frontends.jax` and `abi_compiler.iree.compile(exported)` (docs/spec.md §3.4):
live JAX functions exported with `jax.export`, compiled, and called with the original
call — keyword arguments by keyword, unused arguments, `None` leaves — returning the
original pytree, compared with what JAX itself returns.

Skips when JAX (or IREE) is not installed (tests/frontends/test_jax_import.py runs
without it).
"""

from __future__ import annotations

import dataclasses
import re
from collections import namedtuple
from typing import Any

import numpy as np
import pytest

from abi_compiler.call_model import Array, Container, Unused
from abi_compiler.codecs.call_json import decode_call
from abi_compiler.errors import AbiError

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
from jax import export  # noqa: E402

from abi_compiler.frontends import jax as jax_frontend  # noqa: E402
from tests.calling.helpers import compile_quietly as _compile  # noqa: E402

Pair = namedtuple("Pair", ["w", "b"])


def _export(fun: Any, *args: Any, **kwargs: Any) -> Any:
    return export.export(jax.jit(fun))(*args, **kwargs)


def _assert_same(got: Any, expected: Any, what: str = "result") -> None:
    """The same pytree (containers, namedtuples of the same name and fields, None) with
    numpy leaves equal to JAX's."""
    if hasattr(expected, "_fields"):
        assert (type(got).__name__, got._fields) == (type(expected).__name__, expected._fields)
    else:
        assert type(got) is type(expected) or (
            isinstance(got, np.ndarray) and isinstance(expected, jax.Array)
        ), f"{what}: {type(got).__name__} for {type(expected).__name__}"
    if expected is None:
        return
    if isinstance(expected, dict):
        assert list(got) == list(expected), what
        for key in expected:
            _assert_same(got[key], expected[key], f"{what}[{key!r}]")
    elif isinstance(expected, (tuple, list)):
        assert len(got) == len(expected), what
        for i, (g, e) in enumerate(zip(got, expected, strict=True)):
            _assert_same(g, e, f"{what}[{i}]")
    else:
        np.testing.assert_allclose(got, np.asarray(expected), rtol=1e-5, atol=1e-6, err_msg=what)
        assert got.dtype == np.asarray(expected).dtype, what


def f32(*shape: int, start: float = 0.0) -> np.ndarray:
    count = int(np.prod(shape)) if shape else 1
    return (np.arange(count, dtype=np.float32) * 0.25 + start).reshape(shape)


def everything(
    params: dict[str, Any], xs: list[Any], pair: Pair, unused: Any, *, scale: Any, **kwargs: Any
) -> Any:
    """Dicts, a list, a namedtuple, an unused argument, a keyword-only parameter and
    `**kwargs` in; a dict holding a list, a namedtuple, `None` and an empty tuple out."""
    y = xs[0] @ params["dense"]["kernel"] + params["dense"]["bias"]
    return {
        "y": [y * scale, kwargs["w"] + 1],
        "pair": Pair(w=pair.w * 2, b=None),
        "empty": (),
        "sum": xs[1].sum(),
    }


ARGS = (
    {"dense": {"kernel": f32(4, 2), "bias": f32(2, start=1.0)}, "unused_weight": f32(3)},
    [f32(3, 4, start=-1.0), f32(5)],
    Pair(w=f32(2, 2), b=f32(2)),
    f32(6),
)
KWARGS = {"scale": np.float32(0.5), "w": f32(3, start=2.0), "extra": f32(1)}


@pytest.fixture(scope="module")
def everything_export() -> Any:
    return _export(everything, *ARGS, **KWARGS)


@pytest.fixture(scope="module")
def everything_module(everything_export: Any) -> Any:
    return _compile(everything_export)


def test_to_mlir_writes_the_structure(everything_export: Any) -> None:
    text = jax_frontend.to_mlir(everything_export)
    main = next(line for line in text.splitlines() if "func.func public @main(" in line)
    # Unused leaves (`unused_weight`, `pair.b`, `unused`, `extra`) are not in the module.
    # (JAX versions differ in the other attributes: `mhlo.layout_mode` in 0.4.30.)
    arguments = re.findall(r"%arg\d+: tensor<[^>]*> \{abi\.index_path = \[[^\]]*\]", main)
    assert arguments == [
        '%arg0: tensor<2xf32> {abi.index_path = [0, "dense", "bias"]',
        '%arg1: tensor<4x2xf32> {abi.index_path = [0, "dense", "kernel"]',
        "%arg2: tensor<3x4xf32> {abi.index_path = [1, 0]",
        "%arg3: tensor<5xf32> {abi.index_path = [1, 1]",
        "%arg4: tensor<2x2xf32> {abi.index_path = [2, 0]",
        '%arg5: tensor<f32> {abi.index_path = ["scale"]',
        '%arg6: tensor<3xf32> {abi.index_path = ["w"]',
    ]
    abi = re.search(r'iree\.abi = "([^"]*)"', main)
    assert abi is not None
    assert abi.group(1).replace("\\22", '"') == (
        '{"a":[["sdict",["dense",["sdict",["bias",["ndarray","f32",1,2]],'
        '["kernel",["ndarray","f32",2,4,2]]]]],'
        '["slist",["ndarray","f32",2,3,4],["ndarray","f32",1,5]],'
        '["stuple",["ndarray","f32",2,2,2]],'
        '["named","scale",["ndarray","f32",0]],["named","w",["ndarray","f32",1,3]]],'
        '"r":[["sdict",["pair",["stuple",["ndarray","f32",2,2,2]]],["sum",["ndarray","f32",0]],'
        '["y",["slist",["ndarray","f32",2,3,2],["ndarray","f32",1,3]]]]],"v":1}'
    )
    # The original call beside it: what the records cannot say.
    entry = re.search(r'iree\.reflection = \{abi\.call = "([^"]*)"\}', main)
    assert entry is not None
    call = decode_call(entry.group(1).replace("\\22", '"'))
    assert [name for name, _ in call.keywords] == ["extra", "scale", "w"]
    assert call.labels == ("params", "xs", "pair", None)
    assert call.positional[0] == Container(
        "dict",
        (
            Container(
                "dict",
                (Array(0, "float32", (2,)), Array(1, "float32", (4, 2))),
                ("bias", "kernel"),
            ),
            Unused("float32", (3,)),
        ),
        ("dense", "unused_weight"),
    )
    assert call.tensor == "jax" and call.symbols == () and call.fixed == ()


def test_compile_takes_the_original_call(everything_export: Any) -> None:
    module = _compile(everything_export)
    got = module.main(*ARGS, **KWARGS)
    _assert_same(got, jax.jit(everything)(*ARGS, **KWARGS))
    # The unused arguments are accepted whatever their values.
    other = (ARGS[0] | {"unused_weight": f32(3, start=9.0)}, ARGS[1], ARGS[2], f32(6, start=5.0))
    _assert_same(module.main(*other, **KWARGS), jax.jit(everything)(*ARGS, **KWARGS))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda a, k: (
                ({"dense": {"bias": a[0]["dense"]["bias"]}, "unused_weight": f32(3)}, *a[1:]),
                k,
            ),
            "argument params['dense']: expected a dict with keys ['bias', 'kernel'], got keys ['bias']",
        ),
        (
            lambda a, k: ((a[0], [f32(4, 3), a[1][1]], *a[2:]), k),
            "argument xs[0]: expected float32[3,4], got float32[4,3]",
        ),
        (
            lambda a, k: ((a[0], a[1], (f32(2, 2),), a[3]), k),
            "argument pair: expected a Pair with fields ['w', 'b'], got a tuple of 1 value",
        ),
        (
            lambda a, k: (a, k | {"scale": np.float64(0.5)}),
            "argument 'scale': expected float32[], got float64[] (convert=True converts it)",
        ),
        (
            lambda a, k: (a[:3], k),
            "argument 3: missing value",
        ),
        (
            lambda a, k: (a, {"scale": k["scale"], "w": k["w"]}),
            "argument 'extra': missing value",
        ),
        (  # `exported.call` takes its keywords by keyword only
            lambda a, k: ((*a, k["scale"]), {"w": k["w"], "extra": k["extra"]}),
            "argument 4: unexpected positional argument (the function takes 4 positional "
            "arguments)",
        ),
    ],
)
def test_a_call_that_does_not_fit_names_the_path(
    everything_module: Any, change: Any, message: str
) -> None:
    module = everything_module
    args, kwargs = change(ARGS, KWARGS)
    with pytest.raises(AbiError) as raised:
        module.main(*args, **kwargs)
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda a: ({**a[0], "unused_weight": f32(4)}, *a[1:]),
            "argument params['unused_weight']: expected float32[3], got float32[4]",
        ),
        (
            lambda a: (*a[:3], f32(6).astype(np.int32)),
            "argument 3: expected float32[6], got int32[6] (convert=True converts it)",
        ),
    ],
)
def test_an_unused_argument_is_checked_as_jax_checks_it(
    everything_export: Any, everything_module: Any, change: Any, message: str
) -> None:
    args = change(ARGS)
    with pytest.raises(ValueError, match="mismatch"):
        everything_export.call(*args, **KWARGS)  # JAX refuses it too
    with pytest.raises(AbiError) as raised:
        everything_module.main(*args, **KWARGS)
    assert str(raised.value) == message


def test_single_array_and_none_results() -> None:
    module = _compile(_export(lambda x: jnp.sin(x) * 2, f32(2, 3)))
    _assert_same(module.main(f32(2, 3)), jnp.sin(f32(2, 3)) * 2)
    only_none = _compile(_export(lambda x: (None, {"a": x + 1}), f32(3)))
    _assert_same(only_none.main(f32(3)), (None, {"a": f32(3) + 1}))


def test_empty_tuple_first_is_rebuilt() -> None:
    """`((), x)` — the text path keeps it flat; the Exported object says it."""
    fun = lambda x: ((), x + 1)  # noqa: E731
    exported = _export(fun, f32(3))
    _assert_same(_compile(exported).main(f32(3)), jax.jit(fun)(f32(3)))


def test_shape_polymorphism() -> None:
    (b,) = export.symbolic_shape("b")
    fun = lambda x, y: {"scaled": x * y.sum(), "rows": [x.sum(axis=1)]}  # noqa: E731
    exported = export.export(jax.jit(fun))(
        jax.ShapeDtypeStruct((b, 4), jnp.float32), jax.ShapeDtypeStruct((3,), jnp.float32)
    )
    module = _compile(exported)
    for rows in (1, 5):
        x, y = f32(rows, 4), f32(3, start=1.0)
        _assert_same(module.main(x, y), jax.jit(fun)(x, y))


def test_multi_platform_passes_the_cpu_index() -> None:
    fun = lambda x: jnp.cos(x) + 1  # noqa: E731
    exported = export.export(jax.jit(fun), platforms=("cuda", "cpu"))(f32(4))
    _assert_same(_compile(exported).main(f32(4)), jax.jit(fun)(f32(4)))
    with pytest.raises(
        ValueError, match=r"the export is for the platforms \['cuda', 'cpu'\], not 'tpu'"
    ):
        jax_frontend.program(exported, platform="tpu")


def test_registered_dataclass_is_a_tuple_of_its_children() -> None:
    @dataclasses.dataclass
    class State:
        step: Any
        weights: Any

    jax.tree_util.register_dataclass(State, data_fields=["step", "weights"], meta_fields=[])

    fun = lambda s: State(step=s.step + 1, weights=s.weights * 2)  # noqa: E731
    state = State(step=np.int32(3), weights=f32(2))
    exported = _export(fun, state)
    text = jax_frontend.to_mlir(exported)
    assert (
        "{\\22a\\22:[[\\22stuple\\22,[\\22ndarray\\22,\\22i32\\22,0],[\\22ndarray\\22,\\22f32\\22,1,2]]]"
        in text
    )
    # Rebuilt as a frozen dataclass of the same name and fields, or as the caller's class.
    got = _compile(exported).main(state)
    assert type(got).__name__ == "State" and dataclasses.fields(got)[0].name == "step"
    from abi_compiler import iree as abi_iree

    got = abi_iree.load(_compile(exported).vmfb, types=[State]).main(state)
    assert isinstance(got, State)
    expected = jax.jit(fun)(state)
    _assert_same(got.step, expected.step)
    _assert_same(got.weights, expected.weights)


@pytest.mark.parametrize("device", ["local-task", "local-sync"])
def test_flax_train_state_init(device: str) -> None:
    """A flax init returning a whole `TrainState` (params, adam state, the constant `step`)
    compiles and calls like `exported.call` (docs/calling.md#compiler-flags)."""
    linen = pytest.importorskip("flax.linen")
    optax = pytest.importorskip("optax")
    train_state = pytest.importorskip("flax.training.train_state")
    model = linen.Dense(4)
    x = f32(2, 3)

    def init(rng: Any) -> Any:
        return train_state.TrainState.create(
            apply_fn=model.apply, params=model.init(rng, x), tx=optax.adam(1e-3)
        )

    key = jax.random.PRNGKey(0)
    exported = export.export(jax.jit(init))(key)
    got = _compile(exported, device=device).main(key)
    got_leaves = jax.tree_util.tree_leaves(got)
    expected_leaves = jax.tree_util.tree_leaves(exported.call(key))
    assert (
        len(got_leaves) == len(expected_leaves) == 8
    )  # step, params (2), adam's count, mu (2), nu (2)
    for i, (g, e) in enumerate(zip(got_leaves, expected_leaves, strict=True)):
        _assert_same(g, e, f"leaf {i}")
    # The same init from a typed key (`jax.random.key`): the module takes its key data.
    typed_key = jax.random.key(0)
    typed = export.export(jax.jit(init))(typed_key)
    got = _compile(typed, device=device).main(typed_key)
    for i, (g, e) in enumerate(zip(jax.tree_util.tree_leaves(got), expected_leaves, strict=True)):
        _assert_same(g, e, f"typed key: leaf {i}")


@pytest.mark.parametrize("returns", ["step", "train_state"])
def test_a_flax_init_of_two_layers_returning_a_constant_step(returns: str) -> None:
    """The docs' own case (docs/calling.md#compiler-flags): a two-layer flax init returning
    `(params, jnp.zeros((), jnp.int32))`, or a `TrainState` with optax's adam, whose
    constant 0 is also where the threefry PRNG's loop starts. It failed at the call
    (`OUT_OF_RANGE; indirect buffer reference slot 0`) with every compiler flag; the JAX
    frontend starts each loop from a value of its own (`loop_constants_behind_barriers`)."""
    linen = pytest.importorskip("flax.linen")
    optax = pytest.importorskip("optax")
    train_state = pytest.importorskip("flax.training.train_state")

    class MLP(linen.Module):  # type: ignore[misc,name-defined]
        @linen.compact
        def __call__(self, x: Any) -> Any:
            return linen.Dense(3)(linen.relu(linen.Dense(4)(x)))

    def init(rng: Any) -> Any:
        params = MLP().init(rng, jnp.zeros((1, 2)))["params"]
        if returns == "step":
            return params, jnp.zeros((), jnp.int32)
        return train_state.TrainState.create(
            apply_fn=MLP().apply, params=params, tx=optax.adam(1e-3)
        )

    key = jax.random.PRNGKey(0)
    exported = export.export(jax.jit(init))(key)
    expected_leaves = jax.tree_util.tree_leaves(exported.call(key))
    got_leaves = jax.tree_util.tree_leaves(_compile(exported).main(key))
    assert len(got_leaves) == len(expected_leaves) == (5 if returns == "step" else 14)
    for i, (g, e) in enumerate(zip(got_leaves, expected_leaves, strict=True)):
        _assert_same(g, e, f"leaf {i}")


def test_flax_model() -> None:
    linen = pytest.importorskip("flax.linen")

    class MLP(linen.Module):  # type: ignore[misc,name-defined]
        @linen.compact
        def __call__(self, x: Any) -> Any:
            return linen.Dense(3)(linen.relu(linen.Dense(16)(x)))

    model = MLP()
    x = f32(2, 8, start=-1.0)
    variables = model.init(jax.random.PRNGKey(0), x)
    exported = _export(model.apply, variables, x)
    _assert_same(_compile(exported).main(variables, x), model.apply(variables, x))


def test_ordered_effects_are_refused_by_program() -> None:
    from jax._src import core, effects
    from jax._src.interpreters import mlir

    @dataclasses.dataclass(frozen=True)
    class InOrder(effects.Effect):
        pass

    effect = InOrder()
    for registry in (effects.lowerable_effects, effects.ordered_effects):
        registry.add_type(InOrder)
    doubled = core.Primitive("doubled_in_order_test")
    doubled.def_effectful_abstract_eval(lambda aval: (aval, {effect}))

    def lower(ctx: Any, a: Any) -> Any:
        ctx.set_tokens_out(mlir.TokenSet({effect: ctx.tokens_in.get(effect)}))
        return [mlir.hlo.add(a, a)]

    mlir.register_lowering(doubled, lower)
    exported = _export(lambda x: doubled.bind(x), f32(3))
    text = jax_frontend.to_mlir(exported)
    main = next(line for line in text.splitlines() if "func.func public @main(" in line)
    assert re.search(r"%arg0: !stablehlo\.token \{abi\.index_path = \[0\], jax\.token = true", main)
    with pytest.raises(ValueError, match="IREE cannot load a module with a token at its boundary"):
        jax_frontend.program(exported)


# -- what JAX checks, checked before the VM from the module's abi.call (the cases of
# -- docs/calling.md#what-the-original-call-checks, through the loaded original call) ----


def _error_of(function: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(AbiError) as raised:
        function(*args, **kwargs)
    return str(raised.value)


@pytest.mark.parametrize(("dtype", "values"), [("uint8", [200, 255]), ("uint32", [2**31, 7])])
def test_unsigned_results_keep_their_sign(dtype: str, values: list[int]) -> None:
    # The records are signless (`i8`); the result is read as the aval's dtype.
    exported = _export(lambda x: (x, x[0]), jax.ShapeDtypeStruct((2,), dtype))
    array, scalar = _compile(exported).main(np.array(values, dtype))
    assert array.dtype == np.dtype(dtype) and array.tolist() == values
    assert scalar.dtype == np.dtype(dtype) and int(scalar) == values[0]


def test_python_ints_must_fit_the_dtype() -> None:
    int32 = _compile(_export(lambda x: x + 1, jax.ShapeDtypeStruct((), jnp.int32)))
    assert _error_of(int32.main, 2**31) == "argument x: value 2147483648 does not fit in int32"
    int8 = _compile(_export(lambda x: x, jax.ShapeDtypeStruct((1,), jnp.int8)))
    assert _error_of(int8.main, [200]) == "argument x[0]: value 200 does not fit in int8"
    assert _error_of(int8.main, np.array([200], np.uint8)) == (
        "argument x: expected an array of int8, got uint8[1] (convert=True converts it)"
    )
    uint8 = _compile(_export(lambda x: x, jax.ShapeDtypeStruct((2,), jnp.uint8)))
    assert uint8.main([255, 0]).tolist() == [255, 0]
    assert _error_of(uint8.main, [0, -1]) == "argument x[1]: value -1 does not fit in uint8"


def _pair_export(x_shape: str, y_shape: str, constraints: tuple[str, ...] = ()) -> Any:
    """f(x, y) with symbolic shapes. JAX writes no names on `@main`'s arguments then (its
    `@main` computes the dimension variables and calls `_wrapped_jax_export_main`, whose
    arguments have them): the names are read there (messages said `argument 1`)."""
    scope = export.SymbolicScope(constraints)
    x_dims = export.symbolic_shape(x_shape, scope=scope)
    y_dims = export.symbolic_shape(y_shape, scope=scope)
    return _export(
        lambda x, y: (x * 2, y * 3),
        jax.ShapeDtypeStruct(x_dims, jnp.float32),
        jax.ShapeDtypeStruct(y_dims, jnp.float32),
    )


def test_a_shared_symbolic_dim() -> None:
    exported = _pair_export("b", "b, 2")
    module = _compile(exported)
    x, y = f32(3), f32(3, 2)
    _assert_same(module.main(x, y), exported.call(x, y))
    assert jax_frontend.program(exported).call.labels == ("x", "y")
    assert _error_of(module.main, x, f32(5, 2)) == (
        "argument y: dimension 0 is 5, but argument x has 3 in dimension 0 for the same symbol 'b'"
    )
    with pytest.raises(ValueError):  # JAX refuses the same call
        exported.call(x, f32(5, 2))
    assert _error_of(module.main, f32(0), f32(0, 2)) == (
        "argument x: dimension 0 is 0, but symbol 'b' is at least 1"
    )
    # A keyword no parameter has is named, before the positional values it lacks (was
    # `argument x: missing value`); a positional parameter given by keyword is missing.
    assert _error_of(module.main, x=x, z=y) == (
        "argument 'z': unexpected keyword argument (it takes no keywords)"
    )
    assert _error_of(module.main, z=y) == (
        "argument 'z': unexpected keyword argument (it takes no keywords)"
    )
    assert _error_of(module.main, x=x, y=y) == "argument x: missing value"
    assert _error_of(module.main, x, y, z=y) == (
        "argument 'z': unexpected keyword argument (it takes no keywords)"
    )


def test_symbolic_dims_with_constraints_and_expressions() -> None:
    exported = _pair_export("a, b", "2*b", constraints=("a >= b", "a <= 8"))
    module = _compile(exported)
    good = (f32(4, 3), f32(6))
    _assert_same(module.main(*good), exported.call(*good))
    for args, message in [
        (
            (f32(4, 3), f32(8)),
            "argument y: dimension 0 is 8, but 2*b is 6 (b is 3 from dimension 1 of argument x)",
        ),
        (
            (f32(2, 3), f32(6)),
            "argument x: symbol 'b' is 3 from dimension 1, which breaks the constraint "
            "'a >= b' (a is 2 from dimension 0 of argument x)",
        ),
        (
            (f32(9, 3), f32(6)),
            "argument x: symbol 'a' is 9 from dimension 0, which breaks the constraint 'a <= 8'",
        ),
    ]:
        assert _error_of(module.main, *args) == message
        with pytest.raises(ValueError):  # JAX refuses each of them
            exported.call(*args)


def test_the_items_of_star_args_are_named_by_position() -> None:
    """`*xs` gives each of its items the location `xs[k]`: the name `xs` is no one
    parameter's, and a message naming it would not say which (the campaign of
    tests/frontends/campaign_jax.py found `argument xs` for both)."""

    def f(scale: Any, *xs: Any) -> Any:
        return [scale * x.sum() for x in xs]

    exported = _export(f, f32(), f32(2), f32(3))
    assert jax_frontend.program(exported).call.labels == ("scale", None, None)
    module = _compile(exported)
    assert _error_of(module.main, f32(), f32(2), f32(4)) == (
        "argument 2: expected float32[3], got float32[4]"
    )
    assert _error_of(module.main, f32(1), f32(2), f32(3)) == (
        "argument scale: expected float32[], got float32[1]"
    )
    # One item alone: its name says which it is.
    one = _export(f, f32(), f32(2))
    assert jax_frontend.program(one).call.labels == ("scale", "xs")
