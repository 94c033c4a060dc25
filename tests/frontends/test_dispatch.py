"""`abi_compiler.frontends`: picking a frontend by the object's type, importing no
framework."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from abi_compiler.frontends import frontend_name, program


def _instance(module: str, name: str) -> object:
    return type(name, (), {"__module__": module})()


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (_instance("jax._src.export._export", "Exported"), "jax"),
        (_instance("torch.export.exported_program", "ExportedProgram"), "torch"),
        (_instance("onnx.onnx_ml_pb2", "ModelProto"), "onnx"),
        (Path("model.onnx"), "onnx"),
        ("model.onnx", "onnx"),  # a one-line str ending in .onnx: that file
        ("dir/model.onnx", "onnx"),
        ("// model.onnx\nmodule {}", None),  # MLIR text
        ("module {}", None),
        (b"module {}", None),
        (Path("model.mlir"), None),
        (_instance("mypackage", "Exported"), None),
    ],
)
def test_frontend_name(obj: object, expected: str | None) -> None:
    assert frontend_name(obj) == expected


def test_saved_model_directory(tmp_path: Path) -> None:
    assert frontend_name(tmp_path) is None
    (tmp_path / "saved_model.pb").write_bytes(b"")
    assert frontend_name(tmp_path) == "tf"
    # A str naming a SavedModel directory is that directory, any other str MLIR text.
    assert frontend_name(os.fspath(tmp_path)) == "tf"
    assert frontend_name(os.fspath(tmp_path / "other")) is None


def test_program_refuses_other_objects() -> None:
    with pytest.raises(TypeError, match="got int"):
        program(3)


@pytest.mark.parametrize(
    ("frontend", "hidden", "extra"),
    [
        ("torch", "torch", "pip install 'abi-compiler[torch]'"),
        ("onnx", "onnx", "pip install 'abi-compiler[onnx]'"),
        ("tf", "tensorflow", "pip install tensorflow-cpu 'abi-compiler[iree]'"),
    ],
)
def test_a_missing_framework_names_the_extra(frontend: str, hidden: str, extra: str) -> None:
    # In a fresh interpreter where the framework cannot be imported.
    code = (
        f"import sys; sys.modules[{hidden!r}] = None\n"
        f"try:\n    import abi_compiler.frontends.{frontend}\n"
        "except ImportError as error:\n    print(error)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip().endswith(extra), done.stdout + done.stderr
