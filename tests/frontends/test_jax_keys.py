"""JAX's typed PRNG keys (`jax.random.key`, dtype `key<fry>`) and unsigned arrays inside
structures, through `compile` (docs/calling.md, "JAX typed PRNG keys"): a key array is passed as its data
and returned as a key array; key data (what a caller without JAX holds) is taken too; a
key of another implementation is refused. Skips without JAX or IREE."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
pytest.importorskip("iree.runtime")
from jax import export  # noqa: E402

from abi_compiler.errors import AbiError  # noqa: E402
from tests.calling.helpers import compile_quietly as _compile  # noqa: E402


def _split_and_noise(key: Any, x: Any) -> Any:
    first, second = jax.random.split(key)
    return first, x + jax.random.normal(second, x.shape)


def _same_keys(got: Any, expected: Any) -> None:
    assert str(got.dtype) == str(expected.dtype)
    np.testing.assert_array_equal(
        np.asarray(jax.random.key_data(got)), np.asarray(jax.random.key_data(expected))
    )


@pytest.mark.parametrize("implementation", ["threefry2x32", "rbg", "unsafe_rbg"])
def test_typed_key_in_and_out(implementation: str) -> None:
    key = jax.random.key(7, impl=implementation)
    x = jnp.arange(3, dtype=jnp.float32)
    exported = export.export(jax.jit(_split_and_noise))(key, x)
    main = _compile(exported).main
    got_key, got_x = main(key, np.arange(3, dtype=np.float32))
    expected_key, expected_x = exported.call(key, x)
    _same_keys(got_key, expected_key)
    np.testing.assert_allclose(got_x, np.asarray(expected_x), rtol=1e-6)
    # Key data (uint32, the key's dims and the implementation's own) is a key too.
    data = np.asarray(jax.random.key_data(key))
    again_key, again_x = main(data, np.arange(3, dtype=np.float32))
    _same_keys(again_key, expected_key)
    np.testing.assert_array_equal(again_x, got_x)


def test_key_of_another_implementation_is_refused() -> None:
    key = jax.random.key(0)
    exported = export.export(jax.jit(_split_and_noise))(key, jnp.zeros(3, jnp.float32))
    main = _compile(exported).main
    with pytest.raises(AbiError) as raised:
        main(jax.random.key(0, impl="rbg"), np.zeros(3, np.float32))
    assert str(raised.value) == ("argument key: expected a key<fry> key array, got a key<rbg> one")
    with pytest.raises(AbiError) as raised:
        main(np.zeros(4, np.uint32), np.zeros(3, np.float32))
    assert str(raised.value) == "argument key: expected uint32[2], got uint32[4]"


def test_keys_in_a_structure() -> None:
    keys = jax.random.split(jax.random.key(3), 4)

    def fold(state: dict[str, Any]) -> dict[str, Any]:
        folded = jax.vmap(jax.random.fold_in)(state["keys"], state["step"])
        return {"keys": folded, "step": state["step"] + 1}

    state = {"keys": keys, "step": jnp.arange(4, dtype=jnp.uint32)}
    exported = export.export(jax.jit(fold))(state)
    got = _compile(exported).main({"keys": keys, "step": np.arange(4, dtype=np.uint32)})
    expected = exported.call(state)
    _same_keys(got["keys"], expected["keys"])
    assert got["keys"].shape == (4,)
    assert got["step"].dtype == np.uint32
    np.testing.assert_array_equal(got["step"], np.asarray(expected["step"]))


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "uint32"])
def test_unsigned_arrays_in_a_dict(dtype: str) -> None:
    """A dict holding unsigned arrays (a uint8 image in a batch) compiles: @main takes
    and returns them signless."""

    def scale(batch: dict[str, Any]) -> dict[str, Any]:
        return {"image": batch["image"] + 1, "mean": jnp.mean(batch["image"] / 255.0)}

    image = np.arange(12, dtype=dtype).reshape(3, 4)
    exported = export.export(jax.jit(scale))({"image": jnp.asarray(image)})
    got = _compile(exported).main({"image": image})
    expected = exported.call({"image": jnp.asarray(image)})
    assert got["image"].dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got["image"], np.asarray(expected["image"]))
    np.testing.assert_allclose(got["mean"], np.asarray(expected["mean"]), rtol=1e-6)


def test_flax_nnx_dropout_step() -> None:
    """A flax nnx model with dropout: its state holds a typed key (`RngKey`) and a uint32
    count (`RngCount`), both updated by the step."""
    nnx = pytest.importorskip("flax.nnx")

    class Model(nnx.Module):  # type: ignore[misc,name-defined]
        def __init__(self, rngs: Any) -> None:
            self.linear = nnx.Linear(4, 3, rngs=rngs)
            self.dropout = nnx.Dropout(0.5, rngs=rngs)

        def __call__(self, x: Any) -> Any:
            return self.dropout(self.linear(x))

    graphdef, state = nnx.split(Model(nnx.Rngs(0)))

    def step(state: Any, x: Any) -> Any:
        model = nnx.merge(graphdef, state)
        y = model(x)
        return y, nnx.split(model)[1]

    x = jnp.ones((2, 4), jnp.float32)
    exported = export.export(jax.jit(step))(state, x)
    main = _compile(exported).main
    for _ in range(3):  # the count and key go round, as a training loop passes them
        with warnings.catch_warnings():
            # nnx deprecates reading a Variable's `.value`: the call reads none.
            warnings.simplefilter("error", DeprecationWarning)
            got_y, got_state = main(state, np.ones((2, 4), np.float32))
        expected_y, expected_state = exported.call(state, x)
        np.testing.assert_allclose(got_y, np.asarray(expected_y), rtol=1e-6)
        assert type(got_state) is type(expected_state)
        got_leaves = jax.tree_util.tree_leaves(got_state)
        expected_leaves = jax.tree_util.tree_leaves(expected_state)
        assert len(got_leaves) == len(expected_leaves) == 4
        for g, e in zip(got_leaves, expected_leaves, strict=True):
            if jnp.issubdtype(e.dtype, jax.dtypes.prng_key):
                _same_keys(g, e)
            else:
                np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-6)
        state = expected_state
