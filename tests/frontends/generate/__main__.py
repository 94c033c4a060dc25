"""Regenerates tests/frontends/inputs/ from the models of `models.py` with the frontends:
`<name>.mlir` is what the frontend's `to_mlir` gives (the function's structure and its
original call, `abi.call`), `<name>.json` the example call, as the framework's function
takes it, and what the framework itself returned for it (`values.py` encodes both).

Generated with these versions, each command in a virtual environment that has the
framework (and abi-compiler installed from this tree):

    torch 2.13.0+cpu, iree-turbine 3.9.0, iree-base-compiler 3.13.0:
        python -m tests.frontends.generate torch
    the same, with transformers 5.x:
        python -m tests.frontends.generate torch_outputs
    onnx 1.23.2, iree-base-compiler 3.13.0:
        python -m tests.frontends.generate onnx
    tensorflow-cpu 2.21.0, iree-base-compiler 3.13.0:
        python -m tests.frontends.generate tf
    jax 0.10.2, flax 0.12.8, optax 0.2.8:
        python -m tests.frontends.generate jax
"""

from __future__ import annotations

import json
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

from tests.frontends.generate import models
from tests.frontends.generate.values import encode

INPUTS = Path(__file__).resolve().parent.parent / "inputs"
ROOT = INPUTS.parent.parent.parent


def _write(name: str, mlir: str, function: str, call: Any, results: Any) -> None:
    args, kwargs = call
    # Source locations relative to the repository (and the installed packages' to their
    # site-packages), so the file does not depend on where it was generated.
    mlir = mlir.replace(str(ROOT) + "/", "").replace(
        sysconfig.get_paths()["purelib"] + "/", "site-packages/"
    )
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
    with torch.no_grad():
        results = module(*args, **kwargs)
    _write("torch_mlp", program.mlir, program.function, (args, kwargs), results)


def generate_torch_outputs() -> None:
    import torch

    from abi_compiler.frontends import torch as torch_frontend

    module, args, kwargs, dynamic_shapes = models.torch_outputs()
    exported = torch.export.export(module, args, kwargs, dynamic_shapes=dynamic_shapes)
    program = torch_frontend.program(exported, external_bytes=None)
    with torch.no_grad():
        results = module(*args, **kwargs)
    _write("torch_outputs", program.mlir, program.function, (args, kwargs), results)


def generate_jax() -> None:

    from abi_compiler.frontends import jax as jax_frontend

    exported, args, kwargs = models.jax_train_step()
    program = jax_frontend.program(exported)
    results = exported.call(*args, **kwargs)
    _write("jax_train_step", program.mlir, program.function, (args, kwargs), results)


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
        # TensorFlow's order of a signature's outputs varies from process to process
        # (string hashing); the compiled call gives them sorted.
        results = {name: outputs[name].numpy() for name in sorted(outputs)}
    _write("tf_signature", program.mlir, program.function, ((), inputs), results)


GENERATORS = {
    "jax": generate_jax,
    "torch": generate_torch,
    "torch_outputs": generate_torch_outputs,
    "onnx": generate_onnx,
    "tf": generate_tf,
}

if __name__ == "__main__":
    for framework in sys.argv[1:] or sorted(GENERATORS):
        GENERATORS[framework]()
