"""`abi_compiler.frontends.onnx` and `abi_compiler.iree.compile(model)` on real ONNX
models, compared with ONNX's reference evaluator. Skipped without onnx (the `onnx`
extra)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

from tests.iree.conftest import needs_iree

needs_iree()
pytest.importorskip("onnx")

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import onnx.reference  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.errors import AbiError  # noqa: E402
from abi_compiler.frontends import onnx as onnx_frontend  # noqa: E402
from tests.frontends.generate import models  # noqa: E402


def _compile(model: Any) -> abi_iree.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return abi_iree.compile(model)


def _reference(model: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    names = [output.name for output in model.graph.output]
    return dict(zip(names, onnx.reference.ReferenceEvaluator(model).run(None, inputs), strict=True))


@pytest.fixture(scope="module")
def classifier(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path, abi_iree.Module]:
    model = models.onnx_classifier()
    path = tmp_path_factory.mktemp("onnx") / "classifier.onnx"
    onnx.save(model, str(path))
    return model, path, _compile(path)


def test_inputs_by_name_outputs_by_name(classifier: Any) -> None:
    model, _, module = classifier
    assert module.function_names == ["classifier"]
    inputs = models.onnx_inputs()
    result = module.classifier(**inputs)
    expected = _reference(model, inputs)
    assert list(result) == ["logits", "total"]  # the graph's output order
    for name in expected:
        np.testing.assert_allclose(result[name], expected[name], rtol=1e-6)
    # In graph order, the inputs can be given positionally too; the batch is dynamic.
    more = {
        "input_ids": np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4),
        "attention_mask": np.ones((3, 4), np.int64),
    }
    result = module.classifier(more["input_ids"], more["attention_mask"])
    np.testing.assert_allclose(result["logits"], _reference(model, more)["logits"], rtol=1e-6)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"input_ids": np.ones((2, 4), np.float32)}, "argument 'attention_mask': missing value"),
        (
            {
                "input_ids": np.ones((2, 4), np.float32),
                "attention_mask": np.ones((2, 4), np.int64),
                "x": 1,
            },
            "argument 'x': unexpected keyword argument (keywords: 'input_ids', 'attention_mask')",
        ),
        (
            {"input_ids": np.ones((2, 5), np.float32), "attention_mask": np.ones((2, 4), np.int64)},
            "argument 'input_ids': expected float32[?,4], got float32[2,5]",
        ),
    ],
)
def test_calls_that_do_not_fit(classifier: Any, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(AbiError) as error:
        classifier[2].classifier(**kwargs)
    assert str(error.value) == message


def test_a_model_proto_and_a_path_give_the_same_mlir(classifier: Any) -> None:
    model, path, _ = classifier
    text = onnx_frontend.to_mlir(model)
    assert text == onnx_frontend.to_mlir(path) == onnx_frontend.to_mlir(str(path))
    assert 'func.func @classifier(%arg0: tensor<?x4xf32> {abi.index_path = ["input_ids"]}' in text


def test_unnamed_graphs_give_main_and_unsigned_outputs_keep_their_dtype() -> None:
    graph = helper.make_graph(
        [helper.make_node("Add", ["pixels", "pixels"], ["doubled"])],
        "",
        [helper.make_tensor_value_info("pixels", TensorProto.UINT8, [3])],
        [helper.make_tensor_value_info("doubled", TensorProto.UINT8, [3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    module = _compile(model)
    assert module.function_names == ["main"]
    result = module.main(pixels=np.array([1, 100, 200], np.uint8))
    assert result["doubled"].dtype == np.uint8
    assert result["doubled"].tolist() == [2, 200, 144]  # wraps, as uint8 does
