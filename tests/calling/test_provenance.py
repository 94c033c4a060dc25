"""What a compiled module records of how it was made (`abi.provenance`, docs/formats.md):
every field, for MLIR text, an MLIR file, an ONNX model in memory and as a file, a mapping
of entries and `abi-compile`; read back by `abi-sig show --provenance` (the framework
frontends' records: tests/frontends/test_provenance_frameworks.py)."""

from __future__ import annotations

import dataclasses
import hashlib
import subprocess
import sys
from pathlib import Path

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
from abi_compiler.versions import package_version  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CLASSIFIER = ROOT / "examples" / "classifier.onnx"
TEXT = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  func.return %x : tensor<4xf32>\n}\n"
FLAGS = (*target_flags(parse_targets("cpu:host")), *COMPILE_FLAGS)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _made(module: object, function: str) -> Provenance:
    """Its provenance without the resolved targets (this machine's CPU and features:
    tests/calling/test_targets.py checks them)."""
    made = decode_provenance(module[function].reflection["abi.provenance"])  # type: ignore[index]
    assert made.targets[0].backend == "llvm-cpu"
    return dataclasses.replace(made, targets=())


def test_mlir_text() -> None:
    module = compile_quietly(TEXT, extra_args=["--iree-opt-level=O2"])
    assert _made(module, "f") == Provenance(
        package_version(),
        package_version("iree-base-compiler"),
        "cpu:host",
        (*FLAGS, "--iree-opt-level=O2"),
        (InputRecord(None, "mlir", (), _sha(TEXT.encode()), "text"),),
    )


def test_mlir_file_and_onnx_model(tmp_path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    path = tmp_path / "f.mlir"
    path.write_text(TEXT)
    model = onnx.load(str(CLASSIFIER))
    module = compile_quietly({"f": path, "classify": model})
    made = _made(module, "f")
    assert made == _made(module, "classify")  # the module's record, on every function
    assert made.inputs == (
        InputRecord("f", "mlir", (), _sha(path.read_bytes()), "file"),
        InputRecord(
            "classify",
            "onnx",
            (("onnx", package_version("onnx")),),
            _sha(model.SerializeToString()),
            "program",
        ),
    )


def test_abi_compile_records_the_files_it_read(tmp_path: Path) -> None:
    out = tmp_path / "c.vmfb"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "abi_compiler.commands.compile_main",
            f"classify={CLASSIFIER}",
            *("-o", str(out), "--target", "vmvx"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    shown = subprocess.run(
        [sys.executable, "-m", "abi_compiler.commands.sig_main", "show", "--provenance", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[2:] == [
        "provenance:",
        f"  made by abi-compiler {package_version()} with IREE's compiler "
        f"{package_version('iree-base-compiler')}, target vmvx",
        "  iree-compile flags: "
        + " ".join(
            (
                "--iree-hal-target-device=local",
                "--iree-hal-local-target-device-backends=vmvx",
                *COMPILE_FLAGS,
            )
        ),
        "  target: vmvx (vmvx-bytecode-fb)",
        f"  input: classify: onnx (onnx {package_version('onnx')}), sha256 of the file "
        + _sha(CLASSIFIER.read_bytes()),
    ]
