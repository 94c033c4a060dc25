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
process (docs/formats.md, "Reading a module's calling convention: `abi-sig show`"). The child is this module run as a program:
bytecode on its standard input, the text on its standard output.

No xDSL import: `abi-sig` and `abi-opt` ask `is_bytecode` of every input.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
from typing import Any

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


def to_text(data: bytes) -> str:
    """The MLIR text of a bytecode module, with its locations; `BytecodeError` when IREE's
    bindings are not installed, refuse it, or crash on it (read in a child process)."""
    if not _bindings_installed():
        raise BytecodeError(NEEDS_IREE)
    # The folder that holds the `abi_compiler` package (this file is abi_compiler/text/…).
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        [package_root, *filter(None, [environment.get("PYTHONPATH")])]
    )
    done = subprocess.run(
        [sys.executable, "-m", "abi_compiler.text.bytecode"],
        input=data,
        capture_output=True,
        env=environment,
        check=False,
    )
    if done.returncode == 0:
        try:
            return done.stdout.decode("utf-8")
        except UnicodeDecodeError as error:
            raise BytecodeError(
                f"{CANNOT_READ}: IREE printed it as text that is not valid UTF-8 "
                f"(byte 0x{done.stdout[error.start]:02x})"
            ) from None
    errors = done.stderr.decode("utf-8", "replace")
    if done.returncode == _REFUSED:
        raise BytecodeError(_one_line(errors) or f"{CANNOT_READ}: IREE's reader refused it")
    raise BytecodeError(f"{CANNOT_READ}: {_crash(done.returncode, errors)}")


def _crash(status: int, errors: str) -> str:
    """What a child that did not finish says: ``LLVM ERROR: …`` when LLVM said it, else
    the signal that ended it (or its exit status)."""
    said = [line for line in errors.splitlines() if line.startswith("LLVM ERROR:")]
    if said:
        return f"IREE's reader stopped: {_one_line(said[0])}"
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"IREE's reader crashed ({name})"
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
    try:
        text = _read(sys.stdin.buffer.read())
    except BytecodeError as error:
        sys.stderr.write(error.message + "\n")
        return _REFUSED
    sys.stdout.buffer.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(_child_main())
