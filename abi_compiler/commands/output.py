"""Output files, standard streams and signals for the command-line tools (`abi-opt`,
`abi-sig`): what happens to the bytes once a run has produced them.

Standard library only (no xDSL), so that the console entry points can guard the import
of the driver itself.

* `-o FILE` is written in place, as `mlir-opt` writes it: opened (through a symbolic link,
  onto a device or a pipe) only once the whole output is ready, so an error leaves the
  target untouched and no file is created. An existing file keeps its inode, owner and
  permissions; a new one gets `0666 & ~umask`. A target with no write permission bit is
  refused even for root (`mlir-opt` would overwrite it). If writing fails half way, or
  one of SIGTERM, SIGHUP, SIGQUIT or SIGINT arrives while the file is written, a file the
  run created is removed and an existing one is truncated to empty: never a partial file.
  No temporary file is ever created next to the target. An output that is one of the
  run's inputs (the same file by device and inode: the same path, a symbolic link to it,
  a hard link, or a file inside an input directory) is refused before any work
  (`check_not_input`), as a compiler refuses it: writing it would destroy the input.
* Standard streams: a stream closed at start-up (`>&-`, `2>&-`, `<&-`) is reopened on
  /dev/null so that no file the run opens takes its descriptor, and remembered:
  reading a closed stdin or writing to a closed stdout is a one-line error (exit 1);
  with stderr closed diagnostics are dropped (never written to stdout) and the exit
  status is the run's. A write error on stdout (`> /dev/full`) is a one-line error,
  exit 1; on stderr it is ignored (there is nowhere to report it).
* Ctrl-C before the driver is ready (while xDSL is imported) exits with 130, silently
  (`abi_compiler.commands.status.run_console`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from types import FrameType
from typing import IO, NoReturn, TextIO

#: The signals that remove a partly written output file before the process dies.
CLEANUP_SIGNALS = tuple(
    getattr(signal, name)
    for name in ("SIGTERM", "SIGHUP", "SIGQUIT", "SIGINT")
    if hasattr(signal, name)
)

_CHUNK = 1 << 16

#: Standard descriptors (0, 1, 2) that were closed when the process started.
closed_streams: set[int] = set()


class StreamError(Exception):
    """A standard stream or output file that cannot be used: ``message`` is the text after
    ``<prog>: error: ``."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def reopen_closed_streams() -> None:
    """Point every closed standard descriptor at /dev/null and remember it (see the module
    docstring). Call once, first thing."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            closed_streams.add(fd)
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    if 0 in closed_streams or sys.stdin is None:
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 (lives as long as the process)
    if 1 in closed_streams or sys.stdout is None:
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    if 2 in closed_streams or sys.stderr is None:
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115


def read_stdin() -> bytes:
    """All of standard input, or a `StreamError` when it is closed or unreadable."""
    if 0 in closed_streams:
        raise StreamError("could not read standard input: it is closed")
    try:
        return sys.stdin.buffer.read()
    except OSError as error:
        raise StreamError(f"could not read standard input: {error.strerror or error}") from None


def check_stdout() -> None:
    """A `StreamError` when standard output is closed (checked before any work)."""
    if 1 in closed_streams:
        raise StreamError("could not write to standard output: it is closed")


def write_stdout(write: Callable[[TextIO], object]) -> None:
    """Run ``write(sys.stdout)`` and flush; a write error is a `StreamError` (a reader
    that went away is still `BrokenPipeError`, which callers treat as a quiet end)."""
    check_stdout()
    try:
        write(sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        forget_stdout_buffer()
        raise StreamError(
            f"could not write to standard output: {error.strerror or error}"
        ) from None


def write_stderr(text: str) -> None:
    """Print one diagnostic line; dropped when stderr is closed or cannot be written."""
    if 2 in closed_streams:
        return
    try:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def flush_standard_streams() -> bool:
    """Flush stdout and stderr before `os._exit`; False when stdout could not be written
    (stderr errors are ignored)."""
    ok = True
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        ok = False
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    return ok


def forget_stdout_buffer() -> None:
    # What could not be written must not be retried by the interpreter's final flush.
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


# -- output files -------------------------------------------------------------------------


def _unwritable(path: str, code: int) -> StreamError:
    return StreamError(f"could not open output file '{path}': {os.strerror(code)}")


def check_output_file(path: str) -> None:
    """Fail early (before any work) for an output path that cannot be written, without
    creating anything: a directory, a missing directory, a read-only file or directory,
    a name too long for its file system."""
    try:
        info = os.stat(path)  # through symbolic links
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise _unwritable(path, error.errno or errno.EIO) from None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise _unwritable(path, errno.EISDIR)
        if stat.S_ISREG(info.st_mode) and (
            not info.st_mode & 0o222 or not os.access(path, os.W_OK)
        ):
            raise _unwritable(path, errno.EACCES)
        return
    target = os.path.realpath(path)  # a dangling link is created where it points
    parent = os.path.dirname(target) or "."
    if not os.path.isdir(parent):
        raise _unwritable(path, errno.ENOENT)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise _unwritable(path, errno.EACCES)
    try:
        limit = os.pathconf(parent, "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = 255
    if len(os.fsencode(os.path.basename(target))) > limit:
        raise _unwritable(path, errno.ENAMETOOLONG)


def check_not_input(path: str, inputs: Sequence[str]) -> None:
    """A `StreamError` when the output ``path`` is one of ``inputs`` or a file inside an
    input directory (the same file by device and inode, through symbolic and hard links):
    ``the output 'PATH' is the input`` (``… is the input 'INPUT'`` when named otherwise).
    Nothing to check for an output that does not exist yet."""
    try:
        target = os.stat(path)
    except OSError:
        return
    key = (target.st_dev, target.st_ino)
    for item in inputs:
        try:
            info = os.stat(item)
        except OSError:
            continue
        if (info.st_dev, info.st_ino) == key or (stat.S_ISDIR(info.st_mode) and _holds(item, key)):
            named = "" if item == path else f" '{item}'"
            raise StreamError(f"the output '{path}' is the input{named}")


def _holds(folder: str, key: tuple[int, int]) -> bool:
    """Whether a file under ``folder`` (symbolic links followed) has the device and inode
    ``key``."""
    for parent, _, names in os.walk(folder, followlinks=True):
        for name in names:
            try:
                info = os.stat(os.path.join(parent, name))
            except OSError:
                continue
            if (info.st_dev, info.st_ino) == key:
                return True
    return False


def write_output_file(path: str, source: IO[bytes]) -> None:
    """Copy ``source`` (UTF-8 bytes, from its current position) into ``path`` in place;
    see the module docstring for what a failure or a signal leaves behind."""
    existed = os.path.exists(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    except OSError as error:
        raise _unwritable(path, error.errno or errno.EIO) from None
    regular = stat.S_ISREG(os.fstat(fd).st_mode)
    undo = _Undo(path, fd, created=not existed) if regular else None
    try:
        with _cleanup_on_signal(undo):
            while True:
                block = source.read(_CHUNK)
                if not block:
                    break
                data = memoryview(block)
                while data:
                    data = data[os.write(fd, data) :]
            os.close(fd)
            fd = -1
    except OSError as error:
        if undo is not None:
            undo.run()
        raise StreamError(
            f"could not write output file '{path}': {error.strerror or error}"
        ) from None
    except BaseException:
        if undo is not None:
            undo.run()
        raise
    finally:
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)


class _Undo:
    """Takes back a partly written regular file: removes it when the run created it,
    truncates it otherwise (its name, link and permissions stay)."""

    def __init__(self, path: str, fd: int, created: bool) -> None:
        self.path = os.path.realpath(path)
        self.fd = fd
        self.created = created

    def run(self) -> None:
        with contextlib.suppress(OSError):
            if self.created:
                os.unlink(self.path)
            else:
                os.ftruncate(self.fd, 0)


@contextlib.contextmanager
def _cleanup_on_signal(undo: _Undo | None) -> Iterator[None]:
    """While the output file is written, a terminating signal first takes it back, then
    ends the process as the signal would have (default disposition, re-raised)."""
    if undo is None:
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> NoReturn:
        undo.run()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        raise SystemExit(128 + signum)  # not reached unless the signal is blocked

    previous = {}
    try:
        for signum in CLEANUP_SIGNALS:
            previous[signum] = signal.signal(signum, handler)
    except ValueError:  # not the main thread: no handlers can be installed
        pass
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)
