"""Corrupted MLIR bytecode and compiled modules (`.vmfb`) never crash `abi-opt` or
`abi-sig` nor print a traceback: each is a one-line diagnostic naming the file and what
could not be read, exit status 1 (`abi-sig diff`: 2, an unreadable input).

IREE's bytecode reader is native code that a corrupted file can crash (a segfault) or
abort (``LLVM ERROR``): `abi_compiler.text.bytecode` runs it in a child process. The
mutations pinned here were found by `tests/hardening/bytecode_campaign.py` (bytecode)
and by flipping each byte of a compiled module (`.vmfb`); they are specific to the IREE
this project pins (3.13), whose `iree-opt` and `iree-compile` write the base files. Each
test checks the byte it changes first, so a different base file fails loudly rather
than testing nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from abi_compiler.text import bytecode
from tests.calling.helpers import compile_quietly
from tests.hardening.bytecode_campaign import base_bytecode, mutate


def run(module: str, *args: str, cwd: Path, stdin: bytes = b"") -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        check=False,
        timeout=300,
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def changed(data: bytes, offset: int, before: int, after: int) -> bytes:
    assert data[offset] == before, "the base file is not the one the mutation was found on"
    return data[:offset] + bytes([after]) + data[offset + 1 :]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The campaign's base module, as bytecode (``m.mlirbc``) and as text (``m.mlir``)."""
    pytest.importorskip("iree.compiler")
    folder = tmp_path_factory.mktemp("corrupted")
    base_bytecode(folder)
    return folder


def test_a_crash_of_the_bytecode_reader_is_a_diagnostic(folder: Path) -> None:
    # Campaign seed 955: byte 469 = 0x88 makes IREE's reader dereference a bad pointer.
    data = (folder / "m.mlirbc").read_bytes()
    mutated = changed(data, 469, 0x04, 0x88)
    assert mutate(data, 955) == (mutated, "byte 469 = 0x88")
    (folder / "crash.mlirbc").write_bytes(mutated)
    message = "cannot read MLIR bytecode: IREE's reader crashed (SIGSEGV)"
    assert run("abi_compiler.commands.opt_main", "crash.mlirbc", cwd=folder) == (
        1,
        "",
        f"crash.mlirbc: error: {message}\n",
    )
    assert run("abi_compiler.commands.opt_main", "-", cwd=folder, stdin=mutated) == (
        1,
        "",
        f"<stdin>: error: {message}\n",
    )
    show = run("abi_compiler.commands.sig_main", "show", "crash.mlirbc", cwd=folder)
    assert show == (1, "", f"crash.mlirbc: error: {message}\n")
    diff = run("abi_compiler.commands.sig_main", "diff", "m.mlir", "crash.mlirbc", cwd=folder)
    assert diff == (2, "", f"crash.mlirbc: error: {message}\n")
    # The library: an error, the caller's process goes on.
    with pytest.raises(bytecode.BytecodeError) as caught:
        bytecode.to_text(mutated)
    assert caught.value.message == message


def test_an_abort_of_the_bytecode_reader_keeps_llvm_s_words(folder: Path) -> None:
    # Campaign seed 1578: byte 376 = 0xf0 makes a size IREE's reader aborts on.
    data = (folder / "m.mlirbc").read_bytes()
    mutated = changed(data, 376, 0x07, 0xF0)
    assert mutate(data, 1578) == (mutated, "byte 376 = 0xf0")
    (folder / "abort.mlirbc").write_bytes(mutated)
    expected = (
        "abort.mlirbc: error: cannot read MLIR bytecode: IREE's reader stopped: LLVM ERROR: "
        "SmallVector unable to grow. Requested capacity (13607906063) is larger than "
        "maximum value for size type (4294967295)\n"
    )
    assert run("abi_compiler.commands.opt_main", "abort.mlirbc", cwd=folder) == (1, "", expected)
    assert run("abi_compiler.commands.sig_main", "show", "abort.mlirbc", cwd=folder) == (
        1,
        "",
        expected,
    )


def test_what_a_crashed_reader_said() -> None:
    # LLVM's words when it said any, else the signal (or the exit status).
    assert bytecode._crash(-6, "free(): corrupted unsorted chunks\n") == (
        "IREE's reader crashed (SIGABRT)"
    )
    assert bytecode._crash(7, "something\nlast words\n") == (
        "IREE's reader failed (exit status 7: last words)"
    )


def test_a_producer_string_that_is_not_utf8(folder: Path) -> None:
    # IREE's message about a file it refuses quotes the producer string; the bindings
    # cannot make a Python string of it when it is not UTF-8 (was `internal error:
    # RuntimeError`).
    data = (folder / "m.mlirbc").read_bytes()
    assert data[5:18] == b"MLIR24.0.0git"
    mutated = changed(data, 17, ord("t"), 0xF4)[:300]
    (folder / "producer.mlirbc").write_bytes(mutated)
    expected = (
        "producer.mlirbc: error: cannot read MLIR bytecode: attempting to parse 369 bytes "
        "when only 155 remain (its producer string is not valid UTF-8: MLIR24.0.0gi\\xf4)\n"
    )
    assert run("abi_compiler.commands.opt_main", "producer.mlirbc", cwd=folder) == (1, "", expected)
    assert run("abi_compiler.commands.sig_main", "show", "producer.mlirbc", cwd=folder) == (
        1,
        "",
        expected,
    )
    # Read as it is, the file only has a producer string that is not UTF-8: no error.
    (folder / "producer-only.mlirbc").write_bytes(changed(data, 17, ord("t"), 0xF4))
    done = run("abi_compiler.commands.sig_main", "show", "producer-only.mlirbc", cwd=folder)
    assert done == (0, "main() -> ()\n", "")


# -- compiled modules --------------------------------------------------------------------

SOURCE = """
func.func @main(%a: tensor<4xf32>, %t: tuple<tensor<2xf32>, i32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
"""


@pytest.fixture(scope="module")
def vmfb(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    # (vmvx: the same bytes on every machine, its provenance names no CPU features)
    return compile_quietly(SOURCE, "iree-abi-v1", vmfb=True, target="vmvx")


CORRUPTIONS = pytest.mark.parametrize(
    ("offset", "before", "after", "message"),
    [
        # IREE's verifier refuses it (a global out of range; was a traceback).
        (1245, 0x85, 0x05, "cannot load the compiled module: Error creating vm module from"),
        # ... or a NotImplementedError.
        (384, 0x30, 0x31, "cannot load the compiled module: Error creating vm module from"),
        # A name IREE's bindings cannot make a Python string of (was a RuntimeError).
        (
            360,
            0x6D,
            0xFF,
            "cannot read the compiled module: a function name or reflection entry in it is "
            "not valid UTF-8",
        ),
        # IREE's message about it quotes bytes that are not UTF-8 (was a UnicodeDecodeError).
        (285, 0x70, 0xF0, "cannot load the compiled module: 'utf-8' codec can't decode"),
    ],
)


@CORRUPTIONS
def test_a_corrupted_vmfb(
    vmfb: bytes, tmp_path: Path, offset: int, before: int, after: int, message: str
) -> None:
    (tmp_path / "m.vmfb").write_bytes(vmfb)
    (tmp_path / "bad.vmfb").write_bytes(changed(vmfb, offset, before, after))
    status, out, err = run("abi_compiler.commands.sig_main", "show", "bad.vmfb", cwd=tmp_path)
    assert (status, out) == (1, "")
    assert err.startswith(f"bad.vmfb: error: {message}")
    assert err.count("\n") == 1
    assert run("abi_compiler.commands.sig_main", "diff", "m.vmfb", "bad.vmfb", cwd=tmp_path) == (
        2,
        "",
        err,
    )


@CORRUPTIONS
@pytest.mark.parametrize("given", ["bytes", "path"])
def test_loading_a_corrupted_vmfb(
    vmfb: bytes, tmp_path: Path, given: str, offset: int, before: int, after: int, message: str
) -> None:
    """`load` (and the functions' lookup) says what `abi-sig show` says, as an `AbiError`:
    IREE's own ValueError, IndexError, NotImplementedError, UnicodeDecodeError or
    RuntimeError before. From a path too, where `load` reads every function's reflection
    for the parameter archive the module names (`abi.parameters`; was nanobind's
    RuntimeError for an entry that is not UTF-8)."""
    from abi_compiler import iree as abi_iree
    from abi_compiler.errors import AbiError

    data = changed(vmfb, offset, before, after)
    (tmp_path / "bad.vmfb").write_bytes(data)
    with pytest.raises(AbiError) as caught:
        module = abi_iree.load(data if given == "bytes" else tmp_path / "bad.vmfb")
        for name in module.function_names:
            module[name]
    assert str(caught.value).startswith(message)


def test_loading_corrupted_parameters(vmfb: bytes, tmp_path: Path) -> None:
    """An `.irpa` IREE's parser refuses is an `AbiError` (IREE's ValueError, IndexError or
    NotImplementedError before), a missing one Python's `FileNotFoundError` (as a missing
    `.vmfb`; IREE's ValueError before), and an object array is no parameter (its buffer
    would hand the module the addresses of Python objects)."""
    import numpy as np

    from abi_compiler import iree as abi_iree
    from abi_compiler.errors import AbiError

    (tmp_path / "zeros.irpa").write_bytes(bytes(100))
    with pytest.raises(AbiError) as caught:
        abi_iree.load(vmfb, parameters=tmp_path / "zeros.irpa")
    assert str(caught.value).startswith(
        f"cannot load the parameters '{tmp_path / 'zeros.irpa'}': Could not parse parameter "
        "file index: "
    )
    with pytest.raises(FileNotFoundError):
        abi_iree.load(vmfb, parameters=tmp_path / "missing.irpa")
    with pytest.raises(TypeError) as refused:
        abi_iree.load(vmfb, parameters={"w": np.array([None, 1], dtype=object)})
    assert str(refused.value) == "parameter 'w': expected an array of numbers, got object"
