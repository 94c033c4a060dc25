"""The zoo's tiny models (tests/frontends/zoo.py) compiled with `abi_compiler.iree.compile`
and called with their original call: the result is eager's, in eager's structure
(transformers' `ModelOutput` class and keys; a JAX array for flax), for the exported call
and for other inputs. Each family skips when its framework is absent (torch +
transformers + iree-turbine, or jax + flax)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.calling.conftest import needs_iree
from tests.calling.helpers import compile_quietly as _compile
from tests.frontends import zoo

needs_iree()

pytestmark = [
    pytest.mark.filterwarnings("ignore::FutureWarning"),  # torch's own pytree API
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),  # numpy 2 __array__ in turbine
    pytest.mark.filterwarnings("ignore::UserWarning"),  # transformers' config notes
]

TORCH_CASES = [
    ("bert", "sdpa"),
    ("bert", "eager"),
    ("gpt2", "sdpa"),
    ("gpt2", "eager"),
    ("llama", "sdpa"),
    ("t5", "eager"),
]


def _assert_same_output(got: Any, expected: Any) -> None:
    """Same `ModelOutput` class, same keys in the same order, tensors equal within rtol
    1e-4 (atol 1e-5 for values near 0)."""
    import torch

    assert type(got) is type(expected)
    assert list(got.keys()) == list(expected.keys())
    for key in expected:
        want = expected[key]
        assert isinstance(want, torch.Tensor), key
        assert got[key].dtype == want.dtype and got[key].shape == want.shape, key
        torch.testing.assert_close(got[key], want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(("family", "attention"), TORCH_CASES, ids=lambda v: str(v))
def test_transformers_family_returns_eager_output(family: str, attention: str) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("iree.turbine")
    pytest.importorskip("transformers")
    model = zoo.FAMILIES[family]("tiny", attention=attention)
    compiled = _compile(model.export())
    for args, kwargs in [(model.args, model.kwargs), *model.other_calls]:
        _assert_same_output(compiled.main(*args, **kwargs), model.eager(*args, **kwargs))


def test_shape_polymorphic_flax_model_returns_jax_values() -> None:
    pytest.importorskip("jax")
    pytest.importorskip("flax")
    for got, expected in _jax_calls(zoo.flax_layer_norm("tiny")):
        expected = np.asarray(expected)
        assert got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def _jax_calls(model: zoo.ZooModel) -> list[tuple[Any, Any]]:
    """(compiled, JAX's) result of each call of a JAX family."""
    compiled = _compile(model.export())
    calls = [(model.args, model.kwargs), *model.other_calls]
    return [(compiled.main(*a, **k), model.eager(*a, **k)) for a, k in calls]


def test_shape_polymorphic_flax_encoder_returns_jax_values() -> None:
    """Embeddings, masked attention, MLPs and pooling on a batch of symbolic size: the
    JAX frontend's rewrites for IREE 3.13 (docs/calling.md, "Shape polymorphism")."""
    pytest.importorskip("jax")
    pytest.importorskip("flax")
    for got, expected in _jax_calls(zoo.flax_encoder("tiny")):
        assert sorted(got) == sorted(expected) == ["hidden", "pooled"]
        for key in expected:
            np.testing.assert_allclose(
                np.asarray(got[key]), np.asarray(expected[key]), rtol=1e-4, atol=1e-5
            )
