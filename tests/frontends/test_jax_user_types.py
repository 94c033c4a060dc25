"""`abi-compile --import MODULE` (docs/abi-compile.md#what-is-read): a serialized JAX export
whose pytrees hold the user's own classes (a namedtuple registered with
`jax.export.register_namedtuple_serialization`) is read once the module that registers
them is imported; without it the error is JAX's reason, the class and the option."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("jax")

from abi_compiler.commands.compile_main import main

#: One module per test: a class JAX registered stays registered in the process.
MODULES = {"missing": "abi_test_user_points_a", "imported": "abi_test_user_points_b"}

REGISTER = """\
import collections
from jax import export

Point = collections.namedtuple("Point", "x y")
export.register_namedtuple_serialization(Point, serialized_name="{module}.Point")
"""

EXPORT = """\
import sys
import jax
import jax.numpy as jnp
from jax import export
from {module} import Point

def step(p):
    return Point(p.x + 1, p.y * 2)

exported = export.export(jax.jit(step))(Point(jnp.ones(3), jnp.ones(3)))
open(sys.argv[1], "wb").write(exported.serialize())
"""


def _export_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str) -> Path:
    """The export, made in another process (this one has not registered `Point`)."""
    (tmp_path / f"{module}.py").write_text(REGISTER.format(module=module))
    path = tmp_path / "step.jax"
    subprocess.run(
        [sys.executable, "-c", textwrap.dedent(EXPORT.format(module=module)), path],
        env={**os.environ, "PYTHONPATH": os.fspath(tmp_path)},
        check=True,
    )
    monkeypatch.syspath_prepend(os.fspath(tmp_path))
    return path


def test_a_user_class_needs_its_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    module = MODULES["missing"]
    export_file = _export_file(tmp_path, monkeypatch, module)
    assert module not in sys.modules
    out = tmp_path / "step.mlir"
    assert main([os.fspath(export_file), "--emit-mlir", "-o", os.fspath(out)]) == 1
    assert capsys.readouterr().err == (
        f"abi-compile: error: '{export_file}': cannot read the serialized JAX export: "
        f"Cannot deserialize a PyTreeDef containing an unregistered type `{module}.Point`. "
        "Use `export.register_pytree_node_serialization` or "
        "`export.register_namedtuple_serialization`.\n"
        f"abi-compile: note: import the module that registers {module}.Point first: "
        "--import MODULE\n"
    )
    assert not out.exists()


def test_import_registers_the_user_class(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    module = MODULES["imported"]
    export_file = _export_file(tmp_path, monkeypatch, module)
    out = tmp_path / "step.mlir"
    args = [os.fspath(export_file), "--import", module, "--emit-mlir", "-o", os.fspath(out)]
    assert main(args) == 0
    assert capsys.readouterr().err == ""
    assert module in sys.modules
    assert "func.func @main(" in out.read_text()


OPTAX_REGISTRATIONS = """\
import optax
from jax import export

for state in (optax.ScaleByAdamState, optax.EmptyState):
    export.register_namedtuple_serialization(state, serialized_name=f"optax.{state.__name__}")
"""

OPTAX_EXPORT = """\
import sys
import jax
import jax.numpy as jnp
import optax
from jax import export
import abi_test_optax_registrations

optimizer = optax.adam(1e-3)
params = {"w": jnp.ones(3)}

def step(params, state):
    updates, state = optimizer.update(jax.tree.map(jnp.ones_like, params), state, params)
    return optax.apply_updates(params, updates), state

exported = export.export(jax.jit(step))(params, optimizer.init(params))
open(sys.argv[1], "wb").write(exported.serialize())
"""


def test_import_registers_optax_states(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An optimizer step's export: its state (`ScaleByAdamState`, `EmptyState`) is read
    once the user's module registers optax's classes."""
    pytest.importorskip("optax")
    (tmp_path / "abi_test_optax_registrations.py").write_text(OPTAX_REGISTRATIONS)
    path = tmp_path / "step.jax"
    subprocess.run(
        [sys.executable, "-c", OPTAX_EXPORT, path],
        env={**os.environ, "PYTHONPATH": os.fspath(tmp_path)},
        check=True,
    )
    monkeypatch.syspath_prepend(os.fspath(tmp_path))
    out = tmp_path / "step.mlir"
    args = [os.fspath(path), "--emit-mlir", "-o", os.fspath(out)]
    if "abi_test_optax_registrations" not in sys.modules:
        assert main(args) == 1
        assert "unregistered type `optax.ScaleByAdamState`" in capsys.readouterr().err
    assert main([*args, "--import", "abi_test_optax_registrations"]) == 0
    assert capsys.readouterr().err == ""
    assert "func.func @main(" in out.read_text()
