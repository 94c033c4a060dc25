"""Generation from a JAX decode step that takes and returns its KV cache (a pytree),
exported with the cache donated (`jax.jit(step, donate_argnums=…)`): the compiled
module's greedy loop gives JAX's own tokens, with the cache kept on the device between
calls (``results="device"``: device arrays out, passed back in as they are, never copied
to the host). The donation itself is dropped with a warning (IREE would write the result
into the caller's array: docs/calling.md, "Generation"). Skips without JAX."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from tests.calling.conftest import needs_iree

needs_iree()
jax = pytest.importorskip("jax")

import jax.numpy as jnp  # noqa: E402
from jax import export  # noqa: E402

from abi_compiler import iree as abi_iree  # noqa: E402

VOCAB, WIDTH, CACHE = 50, 16, 32


def _params() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    shapes = {"emb": (VOCAB, WIDTH), "wq": (WIDTH, WIDTH), "wk": (WIDTH, WIDTH)}
    shapes |= {"wv": (WIDTH, WIDTH), "out": (WIDTH, VOCAB)}
    return {
        name: rng.standard_normal(shape).astype(np.float32) * 0.5 for name, shape in shapes.items()
    }


def step(params: dict[str, Any], cache: dict[str, Any], token: Any, pos: Any) -> Any:
    """One token of a one-layer attention decoder with a static KV cache."""
    x = params["emb"][token]
    q, k, v = x @ params["wq"], x @ params["wk"], x @ params["wv"]
    cache = {"k": cache["k"].at[pos].set(k), "v": cache["v"].at[pos].set(v)}
    scores = jnp.where(jnp.arange(CACHE) <= pos, cache["k"] @ q, -1e9)
    hidden = x + jax.nn.softmax(scores) @ cache["v"]
    return cache, jnp.argmax(hidden @ params["out"]).astype(jnp.int32)


def _empty_cache() -> dict[str, np.ndarray]:
    return {"k": np.zeros((CACHE, WIDTH), np.float32), "v": np.zeros((CACHE, WIDTH), np.float32)}


def test_a_donated_cache_stays_on_the_device(monkeypatch: pytest.MonkeyPatch) -> None:
    params = _params()
    jitted = jax.jit(step, donate_argnums=(1,))
    exported = export.export(jitted)(params, _empty_cache(), np.int32(3), np.int32(0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = abi_iree.compile(exported, results="device")
    dropped = [str(item.message) for item in caught if "tf.aliasing_output" in str(item.message)]
    assert len(dropped) == 1 and "cache['k'] (argument 5 → result 0)" in dropped[0]

    cache: Any = {key: jnp.asarray(value) for key, value in _empty_cache().items()}
    token: Any = np.int32(3)
    expected = []
    for position in range(16):
        cache, token = jitted(params, cache, token, np.int32(position))
        expected.append(int(token))

    from iree.runtime import DeviceArray

    copies: list[object] = []
    to_host = DeviceArray.to_host
    monkeypatch.setattr(DeviceArray, "to_host", lambda self: copies.append(self) or to_host(self))
    cache, token = _empty_cache(), np.int32(3)
    tokens, returned_tokens, returned_caches = [], [], []
    for position in range(16):
        cache, token = module.main(params, cache, token, np.int32(position))
        returned_tokens.append(token)
        returned_caches += [cache["k"], cache["v"]]
        tokens.append(int(np.asarray(token.to_host())))
    assert tokens == expected
    # Only the tokens were copied to the host; the cache went back in as device arrays.
    assert [id(item) for item in copies] == [id(item) for item in returned_tokens]
    assert all(isinstance(item, DeviceArray) for item in returned_caches)
