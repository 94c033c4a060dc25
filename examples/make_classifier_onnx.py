"""Writes examples/classifier.onnx, the small ONNX model the README compiles with
`abi-compile`: `logits = features @ weights + bias` and `probabilities = softmax(logits)`
for a batch of any size, with fixed weights (no randomness: the file is the same on every
run). Run with onnx installed (`pip install onnx`):

    python examples/make_classifier_onnx.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def classifier() -> onnx.ModelProto:
    weights = (np.arange(12, dtype=np.float32).reshape(4, 3) - 6.0) / 8.0
    bias = np.array([0.25, -0.5, 0.125], dtype=np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["features", "weights"], ["product"]),
            helper.make_node("Add", ["product", "bias"], ["logits"]),
            helper.make_node("Softmax", ["logits"], ["probabilities"], axis=-1),
        ],
        "classify",
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", 4])],
        [
            helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 3]),
            helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["batch", 3]),
        ],
        initializer=[
            numpy_helper.from_array(weights, "weights"),
            numpy_helper.from_array(bias, "bias"),
        ],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="abi-compiler"
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("classifier.onnx")
    onnx.save(classifier(), target)
