"""The deployment path: a model's `.vmfb` written by `compile_vmfb(obj)` where the
framework is installed, then loaded and called in a process where the framework cannot be
imported (a `sys.meta_path` finder refuses jax, flax, optax, torch, onnx and
tensorflow), with the model's original values; the results have the original structure
and the framework's numbers. Each framework's case is skipped where it is not installed
(tests/frontends/test_generated.py covers the same models from committed MLIR)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.calling.conftest import needs_iree
from tests.calling.helpers import compile_quietly

needs_iree()

from tests.frontends.generate import models  # noqa: E402
from tests.frontends.generate.values import encode  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

SERVER = """
import importlib.abc, json, sys

BLOCKED = ("jax", "jaxlib", "flax", "optax", "torch", "onnx", "tensorflow")


class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{name} is not installed on this server")
        return None


sys.meta_path.insert(0, Refuse())
for name in list(sys.modules):
    if name.split(".")[0] in BLOCKED:
        del sys.modules[name]

from abi_compiler import iree as abi_iree
from tests.frontends.generate.values import assert_same, decode

vmfb, example = sys.argv[1], json.loads(open(sys.argv[2]).read())
module = abi_iree.load(vmfb)
got = module[example["function"]](*decode(example["args"]), **decode(example["kwargs"]))
assert_same(got, decode(example["results"]))
print("loaded:", sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED))
"""


def _serve(vmfb: bytes, function: str, args: Any, kwargs: Any, results: Any) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "model.vmfb"
        path.write_bytes(vmfb)
        example = Path(directory) / "example.json"
        record = {
            "function": function,
            "args": encode(list(args)),
            "kwargs": encode(kwargs),
            "results": encode(results),
        }
        example.write_text(json.dumps(record), encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-c", SERVER, str(path), str(example)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "loaded: []"


def _vmfb(obj: Any) -> bytes:
    return compile_quietly(obj, vmfb=True)


def test_jax_training_step() -> None:
    pytest.importorskip("jax")
    pytest.importorskip("flax")
    pytest.importorskip("optax")
    exported, args, kwargs = models.jax_train_step()
    results = exported.call(*args, **kwargs)
    _serve(_vmfb(exported), "main", args, kwargs, results)


def test_torch_module() -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("iree.turbine")
    module, args, kwargs = models.torch_mlp()
    with torch.no_grad():
        results = module(*args, **kwargs)
    _serve(_vmfb(torch.export.export(module, args, kwargs)), "main", args, kwargs, results)


def test_onnx_model() -> None:
    reference = pytest.importorskip("onnx.reference")
    model = models.onnx_classifier()
    inputs = models.onnx_inputs()
    outputs = reference.ReferenceEvaluator(model).run(None, inputs)
    results = dict(zip([output.name for output in model.graph.output], outputs, strict=True))
    _serve(_vmfb(model), "classifier", (), inputs, results)


def test_tf_saved_model(tmp_path: Path) -> None:
    tf = pytest.importorskip("tensorflow")
    models.tf_signature(tmp_path)
    inputs = models.tf_inputs()
    signature = tf.saved_model.load(str(tmp_path)).signatures["serving_default"]
    outputs = signature(**{name: tf.constant(value) for name, value in inputs.items()})
    # TensorFlow's order of a signature's outputs varies from process to process (string
    # hashing); the compiled call gives them sorted.
    results = {name: outputs[name].numpy() for name in sorted(outputs)}
    _serve(_vmfb(tmp_path), "serving_default", (), inputs, results)
