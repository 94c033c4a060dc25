"""`abi_compiler.frontends.tf` and `abi_compiler.iree.compile(saved_model_dir)` on a real
SavedModel, compared with TensorFlow's own call of the signature. Skipped without
TensorFlow."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

from tests.calling.conftest import needs_iree

needs_iree()
tf = pytest.importorskip("tensorflow")

import numpy as np  # noqa: E402

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402
from abi_compiler.frontends import tf as tf_frontend  # noqa: E402
from tests.frontends.generate import models  # noqa: E402


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("tf") / "classifier"
    models.tf_signature(directory)
    return directory


def test_the_signature_by_name(saved_model: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        module = abi_iree.compile(saved_model)
    assert module.function_names == ["session_initializer", "serving_default"]
    inputs = models.tf_inputs()
    result = module.serving_default(**inputs)
    signature = tf.saved_model.load(str(saved_model)).signatures["serving_default"]
    expected = signature(**{name: tf.constant(value) for name, value in inputs.items()})
    assert sorted(result) == sorted(expected) == ["logits", "total"]
    for name, value in expected.items():
        np.testing.assert_allclose(result[name], value.numpy(), rtol=1e-6)


def test_an_unknown_signature_is_an_error(saved_model: Path) -> None:
    with pytest.raises(
        AbiError, match=r"cannot import signature 'predict'|has no signature 'predict'"
    ):
        tf_frontend.to_mlir(saved_model, signature="predict")


def test_to_mlir_names_the_function_after_the_signature(saved_model: Any) -> None:
    text = tf_frontend.to_mlir(saved_model)
    assert (
        'func.func @serving_default(%arg0: tensor<2x4xi32> {abi.index_path = ["attention_mask"]}'
        in text
    )


def test_a_str_naming_a_saved_model_directory_is_that_directory(saved_model: Path) -> None:
    module = abi_iree.compile(str(saved_model))
    inputs = models.tf_inputs()
    expected = abi_iree.compile(saved_model).serving_default(**inputs)
    result = module.serving_default(**inputs)
    assert sorted(result) == sorted(expected)
    for name in expected:
        np.testing.assert_array_equal(result[name], expected[name])
