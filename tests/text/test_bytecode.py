"""MLIR bytecode input (`abi_compiler.text.bytecode`), for `abi-opt` and `abi-sig`: with IREE's
compiler package, real bytecode made here by `iree-opt --emit-bytecode` reads as its text;
without it (hidden from the import system in a subprocess), the error says what the file
is and both ways out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from abi_compiler.signatures.module_signatures import ReadError, read_module
from abi_compiler.text import bytecode

SOURCE = """
module @jit_step attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xf32> {jax.arg_info = "params['w']"}, %arg1: tensor<?x4xf32> {jax.arg_info = "x"}) -> (tensor<?x3xf32> {jax.result_info = "result"}) {
    %0 = "stablehlo.dot"(%arg1, %arg0) : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    return %0 : tensor<?x3xf32>
  }
  func.func private @helper(%a: i32) -> i32 {
    %0 = "tf.Identity"(%a) : (i32) -> i32
    return %0 : i32
  }
}
"""

NEEDS_IREE = (
    "input is MLIR bytecode: install abi-compiler[iree] to read it, or convert it to text "
    "with iree-opt"
)


@pytest.fixture(scope="module")
def module_bytecode(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SOURCE as bytecode, written by IREE's `iree-opt` (the IREE this project tests with)."""
    pytest.importorskip("iree.compiler")
    from iree.compiler.tools.binaries import find_tool

    folder = tmp_path_factory.mktemp("bytecode")
    (folder / "step.mlir").write_text(SOURCE)
    subprocess.run(
        [
            find_tool("iree-opt"),
            "--allow-unregistered-dialect",
            "--emit-bytecode",
            "step.mlir",
            "-o",
            "step.mlirbc",
        ],
        cwd=folder,
        check=True,
    )
    return folder / "step.mlirbc"


def run(
    module: str, *args: str, cwd: Path, hide_iree: bool = False
) -> subprocess.CompletedProcess[bytes]:
    """``python -m <module> args`` in ``cwd``; ``hide_iree``: as if IREE's compiler package
    were not installed."""
    hide = "import sys; sys.modules['iree.compiler'] = None; " if hide_iree else "import sys; "
    code = hide + f"from {module} import main; sys.exit(main({list(args)!r}))"
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, check=False, timeout=120
    )


def test_magic() -> None:
    assert bytecode.is_bytecode(b"ML\xefR\x06")
    assert not bytecode.is_bytecode(b"module {}")
    assert not bytecode.is_bytecode(b"ML\xef")


def test_to_text(module_bytecode: Path) -> None:
    data = module_bytecode.read_bytes()
    assert bytecode.is_bytecode(data)
    text = bytecode.to_text(data)
    # IREE prints it: registered dialects in custom form, the others generic, locations
    # kept (JAX's argument names are locations).
    assert (
        "func.func public @main(%arg0: tensor<4x3xf32> {jax.arg_info = \"params['w']\"} loc("
        in text
    )
    assert '"tf.Identity"(%arg0) : (i32) -> i32 loc(' in text


def test_show_reads_bytecode_as_its_text(module_bytecode: Path) -> None:
    from_bytecode = read_module(module_bytecode.read_bytes(), "step.mlirbc")
    assert from_bytecode == read_module(SOURCE.encode(), "step.mlir")
    assert [function.line() for function in from_bytecode] == [
        "main(dict{w: tensor<4x3xf32>}, tensor<?x4xf32>) -> (tensor<?x3xf32>)"
        "  (from JAX paths, no reflection)"
    ]


def test_abi_opt_reads_bytecode(module_bytecode: Path) -> None:
    done = run(
        "abi_compiler.commands.opt_main",
        "-p",
        "iree-abi-v1",
        module_bytecode.name,
        "-o",
        "v1.mlir",
        cwd=module_bytecode.parent,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    lowered = read_module((module_bytecode.parent / "v1.mlir").read_bytes(), "v1.mlir")
    assert [function.line() for function in lowered] == [
        "main(dict{w: tensor<4x3xf32>}, tensor<?x4xf32>) -> (tensor<?x3xf32>)"
    ]


def test_broken_bytecode(tmp_path: Path) -> None:
    pytest.importorskip("iree.compiler")
    (tmp_path / "broken.mlirbc").write_bytes(b"ML\xefR\x06 not bytecode")
    message = "broken.mlirbc: error: cannot read MLIR bytecode: "
    done = run("abi_compiler.commands.opt_main", "broken.mlirbc", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (1, b"")
    assert done.stderr.decode().startswith(message)
    with pytest.raises(ReadError) as caught:
        read_module((tmp_path / "broken.mlirbc").read_bytes(), "broken.mlirbc")
    (line,) = caught.value.lines("abi-sig")
    assert line.startswith(message)
    assert "\n" not in line


def test_without_iree(tmp_path: Path) -> None:
    # Only the magic number is read before IREE's bindings are asked.
    (tmp_path / "model.mlirbc").write_bytes(b"ML\xefR\x06MLIR19.0.0git\x00")
    expected = f"model.mlirbc: error: {NEEDS_IREE}\n".encode()
    opt = run("abi_compiler.commands.opt_main", "model.mlirbc", cwd=tmp_path, hide_iree=True)
    assert (opt.returncode, opt.stdout, opt.stderr) == (1, b"", expected)
    show = run(
        "abi_compiler.commands.sig_main", "show", "model.mlirbc", cwd=tmp_path, hide_iree=True
    )
    assert (show.returncode, show.stdout, show.stderr) == (1, b"", expected)
    (tmp_path / "model.mlir").write_text(SOURCE)
    diff = run(
        "abi_compiler.commands.sig_main",
        "diff",
        "model.mlir",
        "model.mlirbc",
        cwd=tmp_path,
        hide_iree=True,
    )
    assert (diff.returncode, diff.stdout, diff.stderr) == (2, b"", expected)
    assert bytecode.NEEDS_IREE == NEEDS_IREE
