"""JAX exports as JAX writes them (docs/spec.md §3.3), compiled and called without JAX: the
files tests/jax_exports/generate.py wrote with JAX 0.10.2 go through
`abi_compiler.iree.compile` (`-p iree-abi-v1`, then iree-compile), and the compiled
`main` is called with the pytrees the function was traced with; the results are JAX's
own (saved next to each export: `in<i>`/`out<i>` in JAX's flat leaf order).

The text path gives the structure the text can say: dicts (namedtuple fields as dict
keys), argument sequences as lists, result sequences as tuples, every parameter
positional. Skips when IREE's compiler or runtime is missing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("iree.compiler")
pytest.importorskip("iree.runtime")

from abi_compiler import iree as abi_iree
from tests.calling.helpers import compile_quietly as _compile

INPUTS = Path(__file__).resolve().parents[1] / "jax_exports"


def _load(case: str) -> tuple[str, list[np.ndarray], list[np.ndarray]]:
    data = np.load(INPUTS / f"{case}.npz")
    inputs = [data[f"in{i}"] for i in range(sum(k.startswith("in") for k in data.files))]
    outputs = [data[f"out{i}"] for i in range(sum(k.startswith("out") for k in data.files))]
    return (INPUTS / f"{case}.mlir").read_text(encoding="utf-8"), inputs, outputs


def _assert_tree(got: Any, expected: Any, what: str = "result") -> None:
    """Same containers, same keys, same values (float32, to rounding)."""
    if isinstance(expected, dict):
        assert isinstance(got, dict), f"{what}: {type(got).__name__}"
        assert sorted(got) == sorted(expected), what
        for key in expected:
            _assert_tree(got[key], expected[key], f"{what}[{key!r}]")
    elif isinstance(expected, (tuple, list)):
        assert type(got) is type(expected), f"{what}: {type(got).__name__}"
        assert len(got) == len(expected), what
        for i, (g, e) in enumerate(zip(got, expected, strict=True)):
            _assert_tree(g, e, f"{what}[{i}]")
    else:
        got = np.asarray(got)
        assert got.dtype == expected.dtype and got.shape == expected.shape, what
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, err_msg=what)


def test_train_step() -> None:
    text, (bias, kernel, scale, x), (g_kernel, g_bias, loss) = _load("train_step")
    module = _compile(text)
    got = module.main({"dense": {"kernel": kernel, "bias": bias}, "scale": scale}, x)
    _assert_tree(got, {"grads": (g_kernel, g_bias), "loss": loss})


def test_lists_and_tuples() -> None:
    text, (a, b, t0, t1, t2), (s, p, total, diff) = _load("containers")
    got = _compile(text).main([a, b], [t0, t1, t2])
    _assert_tree(got, ((s, p), (total, diff)))


def test_namedtuple_fields_are_dict_keys() -> None:
    text, (w, b, x), (out_w, out_b) = _load("named")
    got = _compile(text).main({"w": w, "b": b}, x)
    _assert_tree(got, {"w": out_w, "b": out_b})


def test_keywords_are_positional_in_the_text() -> None:
    """`f(x, unused, *, scale, **kwargs)`: `unused` is not in the export; `scale` and
    `kwargs` (`kwargs['w']`) are positional roots after `x`; the trailing `None` result
    leaves a 1-tuple."""
    text, (x, _unused, scale, w), (y,) = _load("keywords")
    got = _compile(text).main(x, scale, {"w": w})
    _assert_tree(got, (y,))


def test_single_array_result() -> None:
    text, (x,), (y,) = _load("single")
    _assert_tree(_compile(text).main(x), y)


def test_shape_polymorphic_wrapped_main() -> None:
    text, (x, y), (rows, scaled) = _load("shape_poly")
    module = _compile(text)
    _assert_tree(module.main(x, y), {"rows": rows, "scaled": scaled})
    # Another size of the polymorphic dimension.
    x2 = np.arange(8, dtype=np.float32).reshape(2, 4)
    got = module.main(x2, y)
    _assert_tree(got, {"rows": x2.sum(axis=1), "scaled": x2 * y.sum()})


def test_multi_platform_takes_the_platform_index_first() -> None:
    text, (x,), (y,) = _load("multi_platform")
    _assert_tree(_compile(text).main(np.int32(0), x), y)  # 0: "cpu", the first platform


def test_flax_model() -> None:
    text, (b0, k0, b1, k1, x), (y,) = _load("flax_mlp")
    variables = {
        "params": {"Dense_0": {"bias": b0, "kernel": k0}, "Dense_1": {"bias": b1, "kernel": k1}}
    }
    _assert_tree(_compile(text).main(variables, [x]), y)


@pytest.mark.parametrize("device", ["local-task", "local-sync"])
def test_flax_init_returns_params_beside_a_constant_scalar(device: str) -> None:
    """A flax init's nested params beside a constant int32 scalar (a `TrainState`'s
    `step`): without `--iree-hal-indirect-command-buffers=false` in `COMPILE_FLAGS`,
    IREE 3.13 compiles it but the call fails with OUT_OF_RANGE in copy_buffer
    (docs/calling.md#compiler-flags)."""
    text, (rng,), (bias, kernel, step) = _load("flax_init")
    got = _compile(text, device=device).main(rng)
    _assert_tree(got, ({"params": {"bias": bias, "kernel": kernel}}, step))


def test_dropped_leaf_keeps_the_flat_signature() -> None:
    """`f(x) = ((), x + 1)`: the text says `result[1]` only; the function stays flat and
    returns its one array."""
    text, (x,), (y,) = _load("dropped_leaf")
    with pytest.warns(abi_iree.CompileWarning, match=r"the result paths leave a gap at \[0\]"):
        module = abi_iree.compile(text)
    _assert_tree(module.main(x), y)


# --------------------------------------------------------------------------------------
# Donation (docs/spec.md §3.3): `jax.jit(step, donate_argnums=0)` marks each leaf of `params`
# with `tf.aliasing_output`.
# --------------------------------------------------------------------------------------


def _step(b: np.ndarray, w: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The donated step in numpy (tests/jax_exports/generate.py: `donated_step`)."""
    y = x @ w + b
    g = 2 * y
    return b - 0.01 * g.sum(axis=0), w - 0.01 * (x.T @ g), (y * y).sum()


def _train(
    call: Any, b: Any, w: Any, x: np.ndarray, steps: int
) -> list[tuple[Any, Any, np.ndarray, np.ndarray]]:
    """Run ``steps`` steps feeding each result back (device arrays); returns, per step,
    the arrays passed in and copies of their values when they were passed."""
    passed = []
    expected_b, expected_w = np.asarray(b), np.asarray(w)
    for _ in range(steps):
        passed.append((b, w, np.asarray(b).copy(), np.asarray(w).copy()))
        b, w, loss = call(b, w, x)
        expected_b, expected_w, expected_loss = _step(expected_b, expected_w, x)
        np.testing.assert_allclose(np.asarray(b), expected_b, rtol=1e-4)
        np.testing.assert_allclose(np.asarray(w), expected_w, rtol=1e-4)
        np.testing.assert_allclose(np.asarray(loss), expected_loss, rtol=1e-4)
    return passed


def _changed(passed: list[tuple[Any, Any, np.ndarray, np.ndarray]]) -> bool:
    return any(
        not (np.array_equal(np.asarray(b), b0) and np.array_equal(np.asarray(w), w0))
        for b, w, b0, w0 in passed
    )


def test_donated_step_never_changes_the_callers_arrays() -> None:
    text, (b, w, x), outputs = _load("donated_step")
    with pytest.warns(abi_iree.CompileWarning) as caught:
        module = abi_iree.compile(text, results="device")
    # One warning for the function, naming each donated leaf.
    assert [str(item.message) for item in caught] == [
        "<source>:9:3: warning: tf.aliasing_output dropped from 2 arguments: params['b'] "
        "(argument 0 → result 0), params['w'] (argument 1 → result 1): IREE would write each "
        "result into the caller's array"
    ]

    def call(b: Any, w: Any, x: np.ndarray) -> tuple[Any, Any, Any]:
        new, loss = module.main({"b": b, "w": w}, x)
        return new["b"], new["w"], loss

    first = call(b, w, x)
    for got, expected in zip((first[0], first[1], first[2]), outputs, strict=True):
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-5)
    assert not _changed(_train(call, b, w, x, steps=3))


def test_iree_writes_donated_results_into_the_callers_arrays() -> None:
    """Why the V1 pipeline drops the marker: compiled as exported (no pipeline), IREE
    3.13 writes the new parameters into the device arrays passed in."""
    text, (b, w, x), _ = _load("donated_step")
    module = _compile(text, pipeline=None, results="device")
    assert _changed(_train(lambda b, w, x: module.main(b, w, x), b, w, x, steps=3))
