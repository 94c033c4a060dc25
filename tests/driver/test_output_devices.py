"""`-o` to a device or a pipe writes in place: `abi-opt -o /dev/null` must never replace
/dev/null with a regular file (the temporary-file-and-rename of SPEC §11's "no partial
output" applies to regular files only)."""

from __future__ import annotations

import os
import stat
import subprocess
import threading
from pathlib import Path

import pytest

GOOD = "func.func @f() {\n  func.return\n}\n"
BAD = "func.func @f( {\n"


def _abi_opt(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["abi-opt", *args], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )


@pytest.mark.parametrize("source", [GOOD, BAD])
def test_dev_null_stays_a_device(tmp_path: Path, source: str) -> None:
    if not stat.S_ISCHR(os.stat(os.devnull).st_mode):
        pytest.skip("/dev/null is not a character device on this machine")
    input_file = tmp_path / "in.mlir"
    input_file.write_text(source)
    result = _abi_opt(str(input_file), "-o", os.devnull)
    assert result.returncode == (0 if source == GOOD else 1)
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_fifo_receives_the_output(tmp_path: Path) -> None:
    input_file = tmp_path / "in.mlir"
    input_file.write_text(GOOD)
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    result = _abi_opt(str(input_file), "-o", str(fifo))
    reader.join(timeout=30)
    assert result.returncode == 0, result.stderr
    # The function is carried as written (GOOD is not indented).
    assert received == ["builtin.module {\n  func.func @f() {\n  func.return\n}\n}\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
