"""MLIR bytecode input: recognise it, and turn it into MLIR text.

TensorFlow's importer (`iree-import-tf`) and `mlir-opt --emit-bytecode` write modules in
MLIR's binary format, which starts with the magic bytes ``ML\\xefR``. abi-compiler reads
MLIR text, so `to_text` converts bytecode with the MLIR Python bindings IREE's compiler
package ships (`iree.compiler.ir`, from the ``iree`` extra). Dialects that context does
not know (`tf`, `tf_saved_model`, …) are allowed: their ops come out in generic form,
which abi-compiler carries as text. Locations are kept (JAX writes argument names as
name locations), so positions in later diagnostics are positions in that text — what
``iree-opt --mlir-print-debuginfo FILE`` prints.

IREE's bytecode reader is native code, and corrupted bytecode can crash it (a segfault,
or ``LLVM ERROR`` and an abort): it runs in a child process, as `iree-compile` does, so
that a crash is a `BytecodeError` that names the stage, never the end of the caller's
process (docs/formats.md, "Reading bytecode"). The child is this module run as a program
(by `abi_compiler.child.run`): bytecode on its standard input, the text on its standard
output.

Corrupted bytecode can also send the reader into a loop that never ends: the child has a
CPU-time limit (`cpu_limit`, ``RLIMIT_CPU``, set by the child with
`abi_compiler.child.limit_cpu`) and a wall-clock limit far above it (`wall_limit`); past
either it is killed (docs/formats.md, "Reading bytecode").

No xDSL import: `abi-sig` and `abi-opt` ask `is_bytecode` of every input.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import math
import os
import sys
from typing import Any

from abi_compiler import child

MAGIC = b"ML\xefR"

#: The message when the bindings are missing (the caller prefixes ``<file>: error: ``).
NEEDS_IREE = (
    "input is MLIR bytecode: install abi-compiler[iree] to read it, or convert it to text "
    "with iree-opt"
)

#: What every message about bytecode IREE does not read starts with.
CANNOT_READ = "cannot read MLIR bytecode"

# The child's exit status for bytecode it refused with a diagnostic (on its stderr).
_REFUSED = 3

#: The environment variable that sets the CPU seconds IREE's reader may use.
CPU_SECONDS_ENV = "ABI_BYTECODE_CPU_SECONDS"
#: The default CPU-time limit: this many seconds …
CPU_SECONDS_BASE = 60.0
#: … plus this many per MB (2**20 bytes) of input. Reading and printing took 0.3 s of CPU
#: per MB for a module of 500 000 ops, 0.01 s per MB for a 64 MB constant.
CPU_SECONDS_PER_MB = 10.0
#: The wall-clock limit: this many times the CPU-time limit, …
WALL_FACTOR = 10.0
#: … plus this many seconds (starting Python and importing IREE, on a loaded machine).
WALL_SECONDS_BASE = 60.0

# The command that runs the child (a test may replace it).
_CHILD = [sys.executable, "-m", "abi_compiler.text.bytecode"]


class BytecodeError(Exception):
    """Bytecode that cannot be turned into text; ``message`` follows ``<file>: error: ``."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def is_bytecode(data: bytes) -> bool:
    """Whether ``data`` is an MLIR bytecode file (by its magic number)."""
    return data.startswith(MAGIC)


def _bindings_installed() -> bool:
    try:
        return importlib.util.find_spec("iree.compiler") is not None
    except (ImportError, ValueError):
        return False


def cpu_limit(size: int) -> float:
    """The CPU seconds IREE's reader may use on ``size`` bytes of bytecode: the value of
    ``ABI_BYTECODE_CPU_SECONDS`` when it is set, else 60 s plus 10 s per MB; a
    `BytecodeError` when the variable is not a positive number."""
    setting = os.environ.get(CPU_SECONDS_ENV)
    if setting is None:
        return CPU_SECONDS_BASE + CPU_SECONDS_PER_MB * size / 2**20
    try:
        seconds = float(setting)
    except ValueError:
        seconds = math.nan
    if not (0 < seconds < math.inf):
        raise BytecodeError(
            f"{CPU_SECONDS_ENV}={setting!r} is not a positive number of seconds (the CPU "
            "time IREE's bytecode reader may use)"
        )
    return seconds


def wall_limit(cpu_seconds: float) -> float:
    """The wall-clock seconds a child with a CPU-time limit of ``cpu_seconds`` may take."""
    return WALL_FACTOR * cpu_seconds + WALL_SECONDS_BASE


def to_text(data: bytes) -> str:
    """The MLIR text of a bytecode module, with its locations; `BytecodeError` when IREE's
    bindings are not installed, refuse it, crash on it, or do not finish within the
    limits (`cpu_limit`, `wall_limit`; read in a child process)."""
    if not _bindings_installed():
        raise BytecodeError(NEEDS_IREE)
    cpu_seconds = cpu_limit(len(data))
    wall_seconds = wall_limit(cpu_seconds)
    # The folder that holds the `abi_compiler` package (this file is abi_compiler/text/…).
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        [package_root, *filter(None, [environment.get("PYTHONPATH")])]
    )
    try:
        stdout = child.run(
            [*_CHILD, repr(cpu_seconds)], data, wall_seconds=wall_seconds, env=environment
        ).stdout
    except child.ChildFailed as ended:
        raise BytecodeError(_failure(ended, cpu_seconds)) from None
    try:
        return stdout.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BytecodeError(
            f"{CANNOT_READ}: IREE printed it as text that is not valid UTF-8 "
            f"(byte 0x{stdout[error.start]:02x})"
        ) from None


def _failure(ended: child.ChildFailed, cpu_seconds: float) -> str:
    """Why the child did not give the text: it refused the bytecode, ran past one of its
    limits, or crashed."""
    if ended.timed_out:
        assert ended.wall_seconds is not None
        return (
            f"{CANNOT_READ}: IREE's reader did not finish within "
            f"{_seconds(ended.wall_seconds)} of wall-clock time, the bound that goes with its "
            f"CPU-time limit of {_seconds(cpu_seconds)} ({_limit_rule()}); {_raise_it()}"
        )
    if ended.status == _REFUSED:
        return _one_line(ended.errors) or f"{CANNOT_READ}: IREE's reader refused it"
    if ended.out_of_cpu:
        outer = child.process_cpu_limit()
        if outer is not None and outer < cpu_seconds:
            return (
                f"{CANNOT_READ}: IREE's reader did not finish within the CPU-time limit of "
                f"every process here (ulimit -t: {_seconds(outer)}); the bytecode may be "
                "corrupted, or raise that limit"
            )
        return (
            f"{CANNOT_READ}: IREE's reader did not finish within its CPU-time limit of "
            f"{_seconds(cpu_seconds)} ({_limit_rule()}); {_raise_it()}"
        )
    assert ended.status is not None
    return f"{CANNOT_READ}: {_crash(ended.status, ended.errors)}"


def _seconds(seconds: float) -> str:
    return f"{seconds:.3g} s" if seconds < 10 else f"{seconds:.0f} s"


def _limit_rule() -> str:
    """How the CPU-time limit was set."""
    setting = os.environ.get(CPU_SECONDS_ENV)
    if setting is not None:
        return f"{CPU_SECONDS_ENV}={setting}"
    return f"{CPU_SECONDS_BASE:g} s plus {CPU_SECONDS_PER_MB:g} s per MB of input"


def _raise_it() -> str:
    return f"the bytecode may be corrupted, or set {CPU_SECONDS_ENV} higher to allow more"


def _crash(status: int, errors: str) -> str:
    """What a child that did not finish says: ``LLVM ERROR: …`` when LLVM said it, else
    the signal that ended it (or its exit status)."""
    said = [line for line in errors.splitlines() if line.startswith("LLVM ERROR:")]
    if said:
        return f"IREE's reader stopped: {_one_line(said[0])}"
    if status < 0:
        return f"IREE's reader crashed ({child.exit_reason(status)})"
    last = _one_line(errors.strip().splitlines()[-1]) if errors.strip() else ""
    return f"IREE's reader failed (exit status {status}{': ' + last if last else ''})"


def _one_line(text: str) -> str:
    return " ".join(text.split())


# --------------------------------------------------------------------------------------
# The child: bytecode in, text out.
# --------------------------------------------------------------------------------------


def _read(data: bytes) -> bytes:
    """The text of a bytecode module, as IREE's bindings print it; `BytecodeError` for a
    module they refuse."""
    try:
        from iree.compiler import ir
    except ImportError:
        raise BytecodeError(NEEDS_IREE) from None
    with ir.Context() as context:
        context.allow_unregistered_dialects = True
        try:
            module = ir.Module.parse(data)
        except ir.MLIRError as error:
            raise BytecodeError(f"{CANNOT_READ}: {_first_message(error)}") from None
        except RuntimeError:
            # The bindings could not make a Python string of IREE's message: it quotes
            # the file's producer string, which is not UTF-8. The same file with `?`
            # for each of those bytes gets the same message, which they can.
            raise BytecodeError(_refusal_with_producer(ir, data)) from None
        # Parsing verified the module: print it as is, locations included.
        text: bytes = module.operation.get_asm(
            binary=True, enable_debug_info=True, assume_verified=True
        )
    return text


def _refusal_with_producer(ir: Any, data: bytes) -> str:
    """Why IREE refuses ``data`` whose producer string is not UTF-8."""
    producer = _producer(data)
    if producer is None or _is_utf8(producer):
        return f"{CANNOT_READ}: IREE refused it with a message that is not valid UTF-8"
    start = data.index(producer, len(MAGIC))
    readable = bytes(byte if byte < 0x80 else ord("?") for byte in producer)
    shown = producer.decode("utf-8", "backslashreplace")
    said = f"its producer string is not valid UTF-8: {shown}"
    try:
        ir.Module.parse(data[:start] + readable + data[start + len(producer) :])
    except ir.MLIRError as error:
        return f"{CANNOT_READ}: {_first_message(error)} ({said})"
    except RuntimeError:
        pass
    return f"{CANNOT_READ}: {said}"


def _producer(data: bytes) -> bytes | None:
    """The producer string of a bytecode file (after the magic number and the version, a
    variable-length integer whose first byte's trailing zeros count its further bytes),
    or None when the file ends first."""
    if len(data) <= len(MAGIC):
        return None
    first = data[len(MAGIC)]
    size = 9 if first == 0 else (first & -first).bit_length()
    start = len(MAGIC) + size
    end = data.find(b"\0", start)
    return None if end < 0 else data[start:end]


def _is_utf8(text: bytes) -> bool:
    try:
        text.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _first_message(error: Exception) -> str:
    """The first diagnostic of an `MLIRError` (its text otherwise), on one line."""
    try:
        diagnostics = getattr(error, "error_diagnostics", None) or []
        message = str(diagnostics[0].message) if diagnostics else str(error)
    except RuntimeError:  # a message that is not UTF-8
        return "IREE's message about it is not valid UTF-8"
    return _one_line(message)


def _child_main() -> int:
    data = sys.stdin.buffer.read()
    # IREE imported first: the limit counts the reader's time, not the import's.
    with contextlib.suppress(ImportError):
        importlib.import_module("iree.compiler.ir")
    if len(sys.argv) > 1:
        child.limit_cpu(float(sys.argv[1]))
    try:
        text = _read(data)
    except BytecodeError as error:
        sys.stderr.write(error.message + "\n")
        return _REFUSED
    sys.stdout.buffer.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(_child_main())
