"""Regenerates tests/frontends/inputs/ from the models of `models.py` with the frontends:
`<name>.mlir` is what the frontend's `to_mlir` gives, `<name>.json` the call the compiled
function takes (by its records, the adapter's `arguments` applied to the example call)
and what the framework itself returned for it (`values.py` encodes both).

Generated with these versions, each command in a virtual environment that has the
framework (and abi-compiler installed from this tree):

    torch 2.13.0+cpu, iree-turbine 3.9.0, iree-base-compiler 3.13.0:
        python -m tests.frontends.generate torch
    onnx 1.23.2, iree-base-compiler 3.13.0:
        python -m tests.frontends.generate onnx
    tensorflow-cpu 2.21.0, iree-base-compiler 3.13.0:
        python -m tests.frontends.generate tf
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.frontends.generate import models
from tests.frontends.generate.values import encode

INPUTS = Path(__file__).resolve().parent.parent / "inputs"


def _write(name: str, mlir: str, function: str, call: Any, results: Any) -> None:
    args, kwargs = call
    (INPUTS / f"{name}.mlir").write_text(mlir, encoding="utf-8")
    record = {"function": function, "args": encode(list(args)), "kwargs": encode(kwargs)}
    record["results"] = encode(results)
    text = json.dumps(record, sort_keys=True) + "\n"
    (INPUTS / f"{name}.json").write_text(text, encoding="utf-8")


def generate_torch() -> None:
    import torch

    from abi_compiler.frontends import torch as torch_frontend

    module, args, kwargs = models.torch_mlp()
    program = torch_frontend.program(torch.export.export(module, args, kwargs))
    assert program.adapter is not None
    with torch.no_grad():
        results = module(*args, **kwargs)
    _write(
        "torch_mlp",
        program.mlir,
        program.function,
        program.adapter.arguments(args, kwargs),
        results,
    )


def generate_onnx() -> None:
    import onnx.reference

    from abi_compiler.frontends import onnx as onnx_frontend

    model = models.onnx_classifier()
    program = onnx_frontend.program(model)
    inputs = models.onnx_inputs()
    names = [output.name for output in model.graph.output]
    outputs = onnx.reference.ReferenceEvaluator(model).run(None, inputs)
    results = dict(zip(names, outputs, strict=True))
    _write("onnx_classifier", program.mlir, program.function, ((), inputs), results)


def generate_tf() -> None:
    import tensorflow as tf

    from abi_compiler.frontends import tf as tf_frontend

    with tempfile.TemporaryDirectory() as directory:
        models.tf_signature(Path(directory))
        program = tf_frontend.program(directory)
        signature = tf.saved_model.load(directory).signatures["serving_default"]
        inputs = models.tf_inputs()
        outputs = signature(**{name: tf.constant(value) for name, value in inputs.items()})
        results = {name: value.numpy() for name, value in outputs.items()}
    _write("tf_signature", program.mlir, program.function, ((), inputs), results)


GENERATORS = {"torch": generate_torch, "onnx": generate_onnx, "tf": generate_tf}

if __name__ == "__main__":
    for framework in sys.argv[1:] or sorted(GENERATORS):
        GENERATORS[framework]()
