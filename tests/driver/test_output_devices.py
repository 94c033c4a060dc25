"""`-o` to a device or a pipe writes in place: `abi-opt -o /dev/null` must never replace
/dev/null with a regular file (the temporary-file-and-rename of SPEC §11's "no partial
output" applies to regular files only).

The driver runs as the other driver tests run it (this interpreter, `-m`), never a bare
`abi-opt` from PATH, and nothing here can hang the test run: every process has a timeout,
and the FIFO's reader is released even when the driver never opens the FIFO."""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

GOOD = "func.func @f() {\n  func.return\n}\n"
BAD = "func.func @f( {\n"
TIMEOUT = 120  # seconds; the driver needs about one on an idle machine


def _abi_opt(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "abi_compiler.driver.opt_main", *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=TIMEOUT,
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


def _release_reader(fifo: Path) -> None:
    """Unblock a reader still waiting in `open` on ``fifo`` (the driver never opened it):
    open the write end without blocking and close it at once, so the reader sees EOF."""
    with contextlib.suppress(OSError):  # no reader waiting any more: nothing to release
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def test_fifo_receives_the_output(tmp_path: Path) -> None:
    input_file = tmp_path / "in.mlir"
    input_file.write_text(GOOD)
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    received: list[str] = []
    # A daemon thread: should it ever stay blocked, it cannot keep the interpreter alive.
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()), daemon=True)
    reader.start()
    try:
        result = _abi_opt(str(input_file), "-o", str(fifo))
    finally:
        # The driver has exited: whatever it wrote is in the pipe, so the reader only
        # needs EOF, which releasing gives it even if the driver never opened the FIFO.
        deadline = time.monotonic() + TIMEOUT
        while reader.is_alive() and time.monotonic() < deadline:
            _release_reader(fifo)
            reader.join(timeout=0.1)
    assert not reader.is_alive()
    assert result.returncode == 0, result.stderr
    # The function is carried as written (GOOD is not indented).
    assert received == ["builtin.module {\n  func.func @f() {\n  func.return\n}\n}\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
