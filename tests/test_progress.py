"""`abi_compiler.progress`: a stage longer than the delay shows a status line with its
elapsed time, rewritten in place and ended with the time it took; a short stage, a stream
that is not a terminal and `--quiet` show nothing. The ticker is driven by events, not by
sleeping: the stage's block waits for the first status line."""

from __future__ import annotations

import io
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from abi_compiler.progress import Progress, progress_for

ROOT = Path(__file__).resolve().parent.parent


class Terminal(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.first_line = threading.Event()

    def write(self, text: str) -> int:
        written = super().write(text)
        self.first_line.set()
        return written

    def isatty(self) -> bool:
        return True


def _clock(times: list[float]) -> Iterator[float]:
    yield from times


def test_a_long_stage_shows_its_elapsed_time() -> None:
    stream = Terminal()
    ticks = _clock([0.0, 2.5, 3.25])
    progress = Progress("abi-compile", stream, delay=0, interval=3600, clock=lambda: next(ticks))
    with progress.stage("iree-compile"):
        assert stream.first_line.wait(60)
    assert (
        stream.getvalue()
        == "\rabi-compile: iree-compile... 2.5 s\rabi-compile: iree-compile 3.2 s \n"
    )


def test_a_short_stage_shows_nothing() -> None:
    stream = Terminal()
    progress = Progress("abi-compile", stream, delay=3600)
    with progress.stage("lower"):
        pass
    assert stream.getvalue() == ""


def test_an_error_in_a_stage_goes_through() -> None:
    stream = Terminal()
    with pytest.raises(ValueError, match="boom"), Progress("p", stream, delay=3600).stage("x"):
        raise ValueError("boom")
    assert stream.getvalue() == ""


def test_shown_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert progress_for("p", None).stream is None
    assert progress_for("p", True).stream is sys.stderr
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert progress_for("p", None).stream is sys.stderr
    assert progress_for("p", False).stream is None


def test_abi_compile_takes_quiet(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            *(sys.executable, "-m", "abi_compiler.commands.compile_main", "--quiet"),
            *("--emit-mlir", str(ROOT / "examples" / "structured.mlir")),
            *("-o", str(tmp_path / "out.mlir")),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert "func.func @swap(" in (tmp_path / "out.mlir").read_text()
