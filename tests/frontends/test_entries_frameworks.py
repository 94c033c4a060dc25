"""Several framework functions in one module (`abi_compiler.iree.compile({name: …})`,
docs/calling.md): two JAX exports, a JAX export and an MLIR text, a SavedModel's two
signatures — each function called with its original values, compared with the
framework's own call. Skips without the framework (run in the frameworks' venv)."""

from __future__ import annotations

from collections import namedtuple
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.calling.conftest import needs_iree
from tests.calling.helpers import compile_quietly as _compile

needs_iree()

ROOT = Path(__file__).resolve().parents[2]
Pair = namedtuple("Pair", ["w", "b"])


def _jax_exports() -> tuple[Any, Any, Any, Any]:
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    from jax import export

    def predict(params: Pair, x: Any, *, scale: Any) -> dict[str, Any]:
        return {"y": (x @ params.w + params.b) * scale, "none": None}

    def train_step(params: Pair, x: Any) -> tuple[Pair, Any]:
        loss = jnp.sum((x @ params.w + params.b) ** 2)
        return Pair(params.w - 0.1 * loss, params.b - 0.1), loss

    params = Pair(np.ones((4, 3), np.float32), np.arange(3, dtype=np.float32))
    x = np.arange(8, dtype=np.float32).reshape(2, 4) / 8
    e1 = export.export(jax.jit(predict))(params, x, scale=np.float32(2))
    e2 = export.export(jax.jit(train_step))(params, x)
    return e1, e2, params, x


def _same(got: Any, expected: Any) -> None:
    if expected is None:
        assert got is None
    elif isinstance(expected, dict):
        assert list(got) == list(expected)
        for key in expected:
            _same(got[key], expected[key])
    elif isinstance(expected, tuple):
        assert type(got).__name__ == type(expected).__name__ and len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            _same(g, e)
    else:
        np.testing.assert_allclose(got, np.asarray(expected), rtol=1e-6)


def test_two_jax_exports_in_one_module() -> None:
    e1, e2, params, x = _jax_exports()
    module = _compile({"predict": e1, "train_step": e2})
    assert module.function_names == ["predict", "train_step"]
    scale = np.float32(2)
    _same(module.predict(params, x, scale=scale), e1.call(params, x, scale=scale))
    _same(module.train_step(params, x), e2.call(params, x))


def test_a_jax_export_and_an_mlir_text_in_one_module() -> None:
    e1, _, params, x = _jax_exports()
    text = (ROOT / "examples" / "jax_predict_v1.mlir").read_text()
    module = _compile({"predict": e1, "legacy": text})
    assert module.function_names == ["predict", "legacy"]
    scale = np.float32(3)
    _same(module.predict(params, x, scale=scale), e1.call(params, x, scale=scale))
    old = {"dense": {"bias": np.ones(3, np.float32), "kernel": np.ones((4, 3), np.float32)}}
    xs = np.arange(32, dtype=np.float32).reshape(8, 4)
    np.testing.assert_allclose(module.legacy(old, xs), xs @ old["dense"]["kernel"] + 1)


@pytest.fixture(scope="module")
def two_signatures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("tensorflow")
    from tests.frontends.generate import models

    directory = tmp_path_factory.mktemp("tf") / "two"
    models.tf_two_signatures(directory)
    return directory


def _tf_expected(directory: Path, signature: str, inputs: dict[str, Any]) -> dict[str, Any]:
    import tensorflow as tf

    function = tf.saved_model.load(str(directory)).signatures[signature]
    result = function(**{name: tf.constant(value) for name, value in inputs.items()})
    return {name: value.numpy() for name, value in result.items()}


@pytest.mark.parametrize("signatures", [["serving_default", "score"], "all"])
def test_a_saved_models_signatures_share_its_variables(
    two_signatures: Path, signatures: Any
) -> None:
    module = _compile(two_signatures, signatures=signatures)
    assert {"serving_default", "score"} <= set(module.function_names)
    x = np.arange(8, dtype=np.float32).reshape(2, 4) / 8
    y = np.ones((2, 3), np.float32)
    for name, inputs in [("serving_default", {"x": x}), ("score", {"x": x, "y": y})]:
        got = module[name](**inputs)
        expected = _tf_expected(two_signatures, name, inputs)
        assert sorted(got) == sorted(expected)
        for key, value in expected.items():
            np.testing.assert_allclose(got[key], value, rtol=1e-6)
    text = _tf_text(two_signatures)
    assert text.count("ml_program.global ") == 1


def _tf_text(directory: Path) -> str:
    from abi_compiler.frontends import tf as tf_frontend

    return tf_frontend.to_mlir(directory, signatures=["serving_default", "score"])


def test_a_saved_model_signature_as_an_entry(two_signatures: Path) -> None:
    from abi_compiler.frontends import program

    e1, _, _, x = _jax_exports()
    module = _compile(
        {"predict": e1, "score": program(two_signatures, signature="score")},
    )
    assert module.function_names == ["predict", "session_initializer", "score"]
    inputs = {"x": x, "y": np.ones((2, 3), np.float32)}
    expected = _tf_expected(two_signatures, "score", inputs)
    np.testing.assert_allclose(module.score(**inputs)["loss"], expected["loss"], rtol=1e-6)
