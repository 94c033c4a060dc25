"""Where the output goes: `-o` is written in place once the run has succeeded (through
links, onto devices and pipes, permissions kept, never a partial file, nothing left behind
on a signal); closed or full standard streams and an early Ctrl-C in both tools.

The driver runs as the other driver tests run it (this interpreter, `-m`), or as the
console script installed with this interpreter (never an `abi-opt` found on PATH), and
nothing here can hang the test run: every process has a timeout,
and the FIFO's reader is released even when the driver never opens the FIFO."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path

import pytest

GOOD = "func.func @f() {\n  func.return\n}\n"
BAD = "func.func @f( {\n"
TIMEOUT = 120  # seconds; the driver needs about one on an idle machine


def _script(name: str) -> str:
    """The console script ``name`` installed with this interpreter (not found on PATH:
    the tests run the project's own tools, whatever else PATH holds)."""
    return os.path.join(sysconfig.get_path("scripts"), name)


def _abi_opt(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "abi_compiler.commands.opt_main", *args],
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
    assert received == ["builtin.module {\n  func.func @f() {\n    func.return\n  }\n}\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


# -- docs/cli.md#diagnostics-output-files-and-signals: `-o` written in place, as mlir-opt does

WARNS = "func.func @f(%a: index) -> index {\n  func.return %a : index\n}\n"
# What `abi-opt` prints for GOOD (function bodies are carried as text).
OUTPUT = "builtin.module {\n  func.func @f() {\n    func.return\n  }\n}\n"


def _default_signals() -> None:
    """In a child about to be signalled: the signals these tests send back to their
    default dispositions. A background job starts with SIGINT and SIGQUIT ignored,
    `nohup` ignores SIGHUP, some CI runners ignore SIGINT, and a child inherits all that
    (Python then installs no KeyboardInterrupt handler either)."""
    for name in ("SIGTERM", "SIGHUP", "SIGQUIT", "SIGINT"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)


def _input(tmp_path: Path, text: str = GOOD) -> str:
    path = tmp_path / "in.mlir"
    path.write_text(text)
    return str(path)


def _names(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir())


def test_symlink_is_written_through(tmp_path: Path) -> None:
    (tmp_path / "target.mlir").write_text("old\n")
    (tmp_path / "link.mlir").symlink_to("target.mlir")
    result = _abi_opt(_input(tmp_path), "-o", str(tmp_path / "link.mlir"))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "link.mlir").is_symlink()
    assert (tmp_path / "target.mlir").read_text() == OUTPUT
    assert _names(tmp_path) == ["in.mlir", "link.mlir", "target.mlir"]


def test_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    (tmp_path / "link.mlir").symlink_to("target.mlir")
    result = _abi_opt(_input(tmp_path), "-o", str(tmp_path / "link.mlir"))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "link.mlir").is_symlink()
    assert (tmp_path / "target.mlir").read_text() == OUTPUT


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o666])
def test_permissions_and_inode_are_kept(tmp_path: Path, mode: int) -> None:
    out = tmp_path / "out.mlir"
    out.write_text("old\n")
    out.chmod(mode)
    inode = out.stat().st_ino
    result = _abi_opt(_input(tmp_path), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(out.stat().st_mode) == mode
    assert out.stat().st_ino == inode
    assert out.read_text() == OUTPUT


def test_new_file_gets_the_umask_mode(tmp_path: Path) -> None:
    out = tmp_path / "out.mlir"
    tool = _script("abi-opt")
    script = f"import os, sys; os.umask(0o027); os.execv({tool!r}, [{tool!r}, {_input(tmp_path)!r}, '-o', {str(out)!r}])"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o640


def test_read_only_target_is_not_overwritten(tmp_path: Path) -> None:
    # Refused even for root (who could open it): the file says it is not to be written.
    out = tmp_path / "out.mlir"
    out.write_text("keep\n")
    out.chmod(0o444)
    result = _abi_opt(_input(tmp_path), "-o", str(out))
    assert result.returncode == 1
    assert (
        result.stderr == f"abi-opt: error: could not open output file '{out}': Permission denied\n"
    )
    assert out.read_text() == "keep\n"
    assert _names(tmp_path) == ["in.mlir", "out.mlir"]


@pytest.mark.parametrize("length", [200, 242, 255])
def test_long_output_names(tmp_path: Path, length: int) -> None:
    out = tmp_path / ("n" * length)
    result = _abi_opt(_input(tmp_path), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert out.read_text() == OUTPUT


def test_name_too_long_is_an_early_error(tmp_path: Path) -> None:
    out = tmp_path / ("n" * 256)
    result = _abi_opt(_input(tmp_path), "-o", str(out))
    assert result.returncode == 1
    assert (
        result.stderr == f"abi-opt: error: could not open output file '{out}': File name too long\n"
    )
    assert _names(tmp_path) == ["in.mlir"]


def test_dev_stdout_writes_to_standard_output(tmp_path: Path) -> None:
    redirected = tmp_path / "redirected.mlir"
    with redirected.open("w") as stdout:
        result = subprocess.run(
            [_script("abi-opt"), _input(tmp_path), "-o", "/dev/stdout"],
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            stdin=subprocess.DEVNULL,
        )
    assert result.returncode == 0, result.stderr
    assert redirected.read_text() == OUTPUT
    assert os.path.islink("/dev/stdout") or not os.path.isfile("/dev/stdout")


def test_error_leaves_the_existing_target_untouched(tmp_path: Path) -> None:
    out = tmp_path / "out.mlir"
    out.write_text("keep\n")
    result = _abi_opt(_input(tmp_path, BAD), "-o", str(out))
    assert result.returncode == 1
    assert out.read_text() == "keep\n"
    assert _names(tmp_path) == ["in.mlir", "out.mlir"]


# A run that is killed while its output file is written takes the file back: the signal
# is sent by the source the output is copied from, half way through.
_SIGNAL_SCRIPT = """
import io, os, signal, sys
from abi_compiler.commands import output

class Source(io.BytesIO):
    def read(self, size=-1):
        text = super().read(size)
        if self.tell() > 100_000:
            os.kill(os.getpid(), getattr(signal, sys.argv[2]))
        return text

output.write_output_file(sys.argv[1], Source(b"x" * 1_000_000))
print("survived")
"""


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP", "SIGQUIT", "SIGINT"])
@pytest.mark.parametrize("existing", [False, True])
def test_signal_while_writing_leaves_no_partial_file(
    tmp_path: Path, name: str, existing: bool
) -> None:
    out = tmp_path / "out.mlir"
    if existing:
        out.write_text("old\n")
    result = subprocess.run(
        [sys.executable, "-c", _SIGNAL_SCRIPT, str(out), name],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=_default_signals,
    )
    assert result.returncode == -getattr(signal, name), result.stderr
    assert "survived" not in result.stdout
    assert result.stderr == ""
    if existing:
        assert out.read_text() == ""  # truncated: never a partial file
        assert _names(tmp_path) == ["out.mlir"]
    else:
        assert _names(tmp_path) == []


# A run signalled while the pipeline works (before any output exists) leaves nothing
# beside the target. The signal is sent from inside the run, by a hook this test puts
# on `Pipeline.run`: no sleep races the process, on a fast machine or a loaded one.
_WORKING_SIGNAL_SCRIPT = """
import os, signal, sys
from abi_compiler.commands import console
from abi_compiler.pipeline.run import Pipeline

work = Pipeline.run
number = getattr(signal, sys.argv[1])

def signalled_run(self, *args, **kwargs):
    os.kill(os.getpid(), number)
    return work(self, *args, **kwargs)

Pipeline.run = signalled_run
sys.argv = ["abi-opt", *sys.argv[2:]]
console.abi_opt()
"""


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP", "SIGQUIT", "SIGINT"])
def test_signal_while_working_leaves_nothing_behind(tmp_path: Path, name: str) -> None:
    source = "".join(
        f"func.func @f{i}(%a: tuple<i32, f32>) {{\n  func.return\n}}\n" for i in range(30)
    )
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            _WORKING_SIGNAL_SCRIPT,
            name,
            _input(tmp_path, source),
            "-p",
            "iree-abi-v1",
            "-o",
            str(tmp_path / "out.mlir"),
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=_default_signals,
    )
    assert "Traceback" not in result.stderr
    assert result.returncode in (-getattr(signal, name), 130), result.stderr
    assert _names(tmp_path) == ["in.mlir"]


# -- closed and full standard streams, Ctrl-C -------------------------------------------


def _shell(command: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``command`` in a shell whose PATH starts with this interpreter's scripts."""
    path = os.pathsep.join([sysconfig.get_path("scripts"), os.environ.get("PATH", "")])
    return subprocess.run(
        ["sh", "-c", command],
        env={**os.environ, "PATH": path},
        capture_output=True,
        text=True,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize(
    ("command", "status", "stdout", "stderr"),
    [
        (
            "abi-opt in.mlir >&-",
            1,
            "",
            "abi-opt: error: could not write to standard output: it is closed\n",
        ),
        (
            "abi-opt in.mlir -o - >&-",
            1,
            "",
            "abi-opt: error: could not write to standard output: it is closed\n",
        ),
        ("abi-opt in.mlir -o out.mlir >&- 2>&-", 0, "", ""),
        ("abi-opt <&-", 1, "", "abi-opt: error: could not read standard input: it is closed\n"),
        (
            "abi-opt in.mlir >/dev/full",
            1,
            "",
            "abi-opt: error: could not write to standard output: No space left on device\n",
        ),
        (
            "abi-opt in.mlir -o /dev/full",
            1,
            "",
            "abi-opt: error: could not write output file '/dev/full': No space left on device\n",
        ),
        # stderr closed: the warning is dropped, not written into the MLIR; exit 0
        ("abi-opt warns.mlir -p materialize-raw-abi 2>&-", 0, "MLIR", ""),
        ("abi-opt warns.mlir -p materialize-raw-abi 2>/dev/full", 0, "MLIR", ""),
        ("abi-opt bad.mlir 2>&-", 1, "", ""),
        (
            "abi-sig raw 'I1!R1!' >&-",
            1,
            "",
            "abi-sig: error: could not write to standard output: it is closed\n",
        ),
        (
            "abi-sig raw - <&-",
            1,
            "",
            "abi-sig: error: could not read standard input: it is closed\n",
        ),
        (
            "abi-sig raw 'I1!R1!' >/dev/full",
            1,
            "",
            "abi-sig: error: could not write to standard output: No space left on device\n",
        ),
        ("abi-sig raw 'I1!R1!' 2>&-", 0, "() -> ()\n", ""),
        ("abi-sig raw 'I1!' 2>&-", 1, "", ""),
    ],
)
def test_closed_and_full_streams(
    tmp_path: Path, command: str, status: int, stdout: str, stderr: str
) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    _input(tmp_path)
    (tmp_path / "warns.mlir").write_text(WARNS)
    (tmp_path / "bad.mlir").write_text(BAD)
    result = _shell(command, tmp_path)
    assert result.returncode == status
    if stdout == "MLIR":
        assert result.stdout.startswith("builtin.module {\n  func.func @f(%a: index)")
        assert "warning" not in result.stdout
    else:
        assert result.stdout == stdout
    assert result.stderr == stderr


@pytest.mark.parametrize("tool", [["abi-opt", "-"], ["abi-sig", "raw", "-"]])
def test_ctrl_c_while_reading_is_quiet(tool: list[str]) -> None:
    process = subprocess.Popen(
        [_script(tool[0]), *tool[1:]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_default_signals,
    )
    assert process.stdin is not None
    # More than a pipe holds: when this write returns, the tool has started reading its
    # standard input, and it goes on waiting for the end that never comes.
    process.stdin.write(b"// comment\n" * (1 << 16))
    process.stdin.flush()
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=TIMEOUT)
    assert (process.returncode, stderr) == (130, b"")


# Ctrl-C while the driver (and xDSL) is still being imported: the console entry imports
# it inside the guard. (The interpreter's own start-up, before any project code runs,
# is out of reach.)
_IMPORT_INTERRUPT_SCRIPT = """
import os, signal, sys
from abi_compiler.commands import status

def run():
    os.kill(os.getpid(), signal.SIGINT)
    import abi_compiler.commands.opt_main
    return 0

sys.exit(status.interrupted_quietly(run))
"""


def test_ctrl_c_while_importing_is_quiet() -> None:
    result = subprocess.run(
        [sys.executable, "-c", _IMPORT_INTERRUPT_SCRIPT],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=_default_signals,
    )
    assert (result.returncode, result.stderr) == (130, "")
