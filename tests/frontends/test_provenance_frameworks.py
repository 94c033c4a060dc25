"""`abi.provenance` of modules compiled from each framework's object (docs/formats.md,
"Where a module came from"): every field — versions, target, flags, and per input the
frontend, the framework's versions and the sha256 of the framework's own serialization
(the directory's files for a SavedModel). Each case skips without its framework."""

from __future__ import annotations

import dataclasses
import hashlib
import io
from pathlib import Path

import numpy as np
import pytest

from tests.calling.conftest import needs_iree
from tests.calling.helpers import compile_quietly

needs_iree()

from abi_compiler.calling.compiling import COMPILE_FLAGS  # noqa: E402
from abi_compiler.codecs.provenance_json import (  # noqa: E402
    InputRecord,
    Provenance,
    decode_provenance,
)
from abi_compiler.devices.targets import parse_targets, target_flags  # noqa: E402
from abi_compiler.frontends.provenance import tree_sha256  # noqa: E402
from abi_compiler.versions import package_version  # noqa: E402

FLAGS = (*target_flags(parse_targets("cpu:host")), *COMPILE_FLAGS)


def _made(module: object, function: str = "main") -> Provenance:
    """Its provenance without the resolved targets (this machine's CPU and features:
    tests/calling/test_targets.py checks them)."""
    made = decode_provenance(module[function].reflection["abi.provenance"])  # type: ignore[index]
    assert made.targets[0].backend == "llvm-cpu"
    return dataclasses.replace(made, targets=())


def _expected(*inputs: InputRecord) -> Provenance:
    return Provenance(
        package_version(), package_version("iree-base-compiler"), "cpu:host", FLAGS, inputs
    )


def test_jax() -> None:
    jax = pytest.importorskip("jax")
    from jax import export

    exported = export.export(jax.jit(lambda x: x * 2))(np.ones(3, np.float32))
    sha = hashlib.sha256(bytes(exported.serialize())).hexdigest()
    versions = (("jax", package_version("jax")), ("jaxlib", package_version("jaxlib")))
    assert _made(compile_quietly(exported)) == _expected(
        InputRecord(None, "jax", versions, sha, "program")
    )


def test_torch_and_its_serialization_is_reproducible() -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("iree.turbine")

    class Scale(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x * 2

    program = torch.export.export(Scale(), (torch.ones(3),))
    shas = set()
    for _ in range(2):
        stream = io.BytesIO()
        torch.export.save(program, stream)
        shas.add(hashlib.sha256(stream.getvalue()).hexdigest())
    assert len(shas) == 1
    versions = (
        ("iree-turbine", package_version("iree-turbine")),
        ("torch", package_version("torch")),
    )
    module = compile_quietly({"double": program})
    assert _made(module, "double") == _expected(
        InputRecord("double", "torch", versions, shas.pop(), "program")
    )


def test_tensorflow_saved_model(tmp_path: Path) -> None:
    pytest.importorskip("tensorflow")
    from tests.frontends.generate import models

    directory = tmp_path / "classifier"
    models.tf_signature(directory)
    module = compile_quietly(directory)
    made = _made(module, "serving_default")
    distribution = next(
        name
        for name in ("tensorflow", "tensorflow-cpu", "tensorflow-macos")
        if package_version(name) != "unknown"
    )
    assert made == _expected(
        InputRecord(
            None,
            "tf",
            ((distribution, package_version(distribution)),),
            tree_sha256(directory),
            "file",
        )
    )


def test_a_torch_program_torch_cannot_save_is_hashed_by_its_graph() -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("iree.turbine")
    from collections import namedtuple

    from abi_compiler.frontends.provenance import input_record

    Halves = namedtuple("Halves", ["low", "high"])  # not registered with torch's pytree

    class Split(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.scale = torch.nn.Parameter(torch.full((4,), 3.0))

        def forward(self, x: torch.Tensor) -> Halves:
            return Halves(x[:2] * self.scale[:2], x[2:])

    program = torch.export.export(Split(), (torch.ones(4),))
    with pytest.raises(NotImplementedError):
        torch.export.save(program, io.BytesIO())
    record = input_record(program)
    assert record is not None and record.kind == "graph"
    digest = hashlib.sha256(str(program.graph_module.code).encode("utf-8"))
    digest.update(b"scale\0torch.float32(4,)\0" + np.full(4, 3.0, np.float32).tobytes())
    assert record.sha256 == digest.hexdigest()
    assert _made(compile_quietly(program)).inputs == (record,)


def test_a_jax_export_jax_cannot_serialize_is_hashed_by_its_module() -> None:
    jax = pytest.importorskip("jax")
    from jax import export

    from abi_compiler.frontends.provenance import input_record

    class State:  # a pytree node JAX's serialization does not know
        def __init__(self, count: object) -> None:
            self.count = count

    jax.tree_util.register_pytree_node(State, lambda s: ((s.count,), None), lambda _, c: State(*c))
    exported = export.export(jax.jit(lambda s: State(s.count + 1)))(State(np.int32(1)))
    with pytest.raises(ValueError, match="unregistered type"):
        exported.serialize()
    record = input_record(exported)
    assert record is not None and record.kind == "graph"
    digest = hashlib.sha256(bytes(exported.mlir_module_serialized))
    digest.update(b"int32[]\nint32[]\n")
    assert record.sha256 == digest.hexdigest()
