"""`abi-compile`: a framework's model (or MLIR) to a `.vmfb` from the command line, through
the frontends (`abi_compiler.frontends`; docs/abi-compile.md).

    abi-compile INPUT… -o OUT.vmfb [--signature NAME]… [--target CPU] [--emit-mlir]

Each INPUT is read by its content (`detect`): MLIR bytecode (its magic number), a torch
program saved by `torch.export.save` (a zip archive), MLIR text (no NUL byte), an ONNX
model (a `.onnx` file, or a protobuf that starts with ONNX's `ir_version` field), a
SavedModel directory (it holds `saved_model.pb`), else a serialized JAX export (the bytes
of `Exported.serialize()`, a flatbuffer: only JAX can tell). A framework input goes
through its frontend; every module is lowered with `-p iree-abi-v1`. One input without a
name is compiled whole (a SavedModel with all its `--signature`s); `NAME=INPUT`, or
several inputs, make one module with one function per input (`frontends.entries.link`),
named NAME (or the function's own name).

Diagnostics as `abi-opt`'s: `<file>:<line>:<col>: error: …` for a located problem,
`abi-compile: error: …` otherwise, exit status 1, no traceback, no output file. A framework
that is not installed is a one-line error naming the extra to install.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import re
import shutil
import stat
import sys
import tempfile
import traceback
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from abi_compiler.commands import output

PROG = "abi-compile"
TRACEBACK_ENV = "ABI_COMPILE_TRACEBACK"
_BYTECODE_MAGIC = b"ML\xefR"
_ZIP_MAGIC = b"PK\x03\x04"
#: What `pip install` needs for each input kind.
EXTRAS = {
    "onnx": "abi-compiler[onnx]",
    "torch": "abi-compiler[torch]",
    "jax": "abi-compiler[jax]",
    "tf": "abi-compiler[tf]",
}
_KIND_NAMES = {
    "onnx": "an ONNX model",
    "torch": "a torch program",
    "jax": "a serialized JAX export",
    "tf": "a SavedModel",
}
DESCRIPTION = """\
Compile models to one IREE module (.vmfb) whose functions take the model's original call.

INPUT is an ONNX model, a SavedModel directory, a serialized JAX export (the bytes of
jax.export's Exported.serialize(), any file name), a torch program saved by
torch.export.save (.pt2), or MLIR text or bytecode; each is lowered with
`abi-opt -p iree-abi-v1`. NAME=INPUT names the input's function; several inputs make one
module with one function each."""
EPILOG = """\
examples:
  abi-compile model.onnx -o model.vmfb
  abi-compile saved_model/ --signature serving_default --signature score -o model.vmfb
  abi-compile predict=predict.jax train_step=train.jax -o model.vmfb
  abi-compile model.pt2 --emit-mlir -o model.mlir

The frameworks are optional: pip install 'abi-compiler[onnx]' (or [torch], [jax], [tf]).
docs/abi-compile.md in abi-compiler's repository describes the command."""


class UsageError(Exception):
    """A problem with the command line or an input: `abi-compile: error: <message>`."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


@dataclass
class _Input:
    #: The function's name (``NAME=``), or None.
    name: str | None
    #: The input as the command line names it (in messages).
    path: str
    kind: str
    #: Where it is read: ``path``, or the copy of a pipe's bytes (`_spooled`).
    source: str


def _parser() -> _ArgumentParser:
    parser = _ArgumentParser(
        prog=PROG,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add("inputs", nargs="+", metavar="INPUT", help="a model or MLIR file, or NAME=INPUT")
    add("-o", "--output-file", help="the .vmfb (or with --emit-mlir the MLIR; '-': stdout)")
    add(
        "--signature",
        action="append",
        default=[],
        metavar="NAME",
        help="a SavedModel signature to compile (repeatable; default: serving_default)",
    )
    add(
        "--target",
        default="host",
        metavar="CPU",
        help="the LLVM CPU to compile for (default: host, this machine's)",
    )
    add("--emit-mlir", action="store_true", help="write the lowered MLIR instead of compiling")
    return parser


def detect(path: str, shown: str | None = None) -> str:
    """The kind of the input at ``path``: ``"mlir"``, ``"onnx"``, ``"tf"``, ``"torch"``
    or ``"jax"`` (see the module's documentation). Raises `UsageError` for a path that
    cannot be read (named ``shown``, by default ``path``)."""
    if shown is not None and shown != path:
        try:
            return detect(path)
        except UsageError as error:
            raise UsageError(error.message.replace(f"'{path}'", f"'{shown}'")) from None
    if os.path.isdir(path):
        if os.path.isfile(os.path.join(path, "saved_model.pb")):
            return "tf"
        raise UsageError(f"'{path}' is a directory without saved_model.pb (not a SavedModel)")
    try:
        with open(path, "rb") as stream:
            head = stream.read(64)
    except OSError as error:
        raise UsageError(f"could not open input file '{path}': {error.strerror or error}") from None
    if head.startswith(_BYTECODE_MAGIC):
        return "mlir"
    if head.startswith(_ZIP_MAGIC):
        return "torch"
    if path.endswith(".onnx") or _onnx_head(head):
        return "onnx"
    if not head:
        raise UsageError(f"'{path}' is empty")
    if _is_text(path):
        return "mlir"
    return "jax"


def _onnx_head(head: bytes) -> bool:
    """Whether the bytes start as an ONNX `ModelProto` does: field 1 (`ir_version`, a
    varint, 3 or more) and then another field's tag. A JAX flatbuffer starts with a
    little-endian root offset instead (high bytes zero)."""
    return (
        len(head) >= 3
        and head[0] == 0x08
        and 3 <= head[1] < 0x80
        and head[2] in (0x12, 0x1A, 0x22, 0x2A, 0x32, 0x3A, 0x42, 0x52, 0x5A, 0x62, 0x72)
    )


def _is_text(path: str) -> bool:
    """Text has no NUL byte (a JAX flatbuffer's offsets always do): a text file with a
    byte that is not UTF-8 is still MLIR, whose reader says where
    (`file:4:3: error: input is not valid UTF-8 (byte 0xff)`), not a JAX export."""
    with open(path, "rb") as stream:
        data = stream.read()
    return b"\x00" not in data


def _spooled(path: str, folder: str) -> str:
    """A pipe or a device (`<(…)`, a FIFO, /dev/stdin), whose bytes can be read only
    once, copied into ``folder`` (its copy is what is read, as often as needed); any other
    path as it is."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return path  # `detect` says why
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return path
    copy = os.path.join(folder, f"{len(os.listdir(folder))}-{os.path.basename(path)}")
    try:
        with open(path, "rb") as stream, open(copy, "wb") as spool:
            shutil.copyfileobj(stream, spool)
    except OSError as error:
        raise UsageError(f"could not open input file '{path}': {error.strerror or error}") from None
    return copy


def _inputs(arguments: Sequence[str], folder: str) -> list[_Input]:
    inputs: list[_Input] = []
    for argument in arguments:
        name: str | None = None
        path = argument
        if not os.path.exists(argument) and "=" in argument:
            name, path = argument.split("=", 1)
            if not name:
                raise UsageError(f"'{argument}': the function's name before '=' is empty")
        source = _spooled(path, folder)
        inputs.append(_Input(name, path, detect(source, path), source))
    return inputs


_FRAMEWORKS = {"onnx": "onnx", "torch": "torch", "jax": "JAX", "tf": "TensorFlow"}


def _needs(kind: str, path: str) -> UsageError:
    what = f"is {_KIND_NAMES[kind]}; reading it"
    if kind == "jax":  # told by elimination: only JAX can read the flatbuffer
        what = (
            "is not MLIR, an ONNX model, a SavedModel or a torch program; "
            "reading it as a serialized JAX export"
        )
    return UsageError(f"'{path}' {what} needs {_FRAMEWORKS[kind]}: pip install '{EXTRAS[kind]}'")


def _program(item: _Input, signatures: list[str]) -> Any:
    """The frontend's `Program` for a framework input (the path itself for MLIR)."""
    if item.kind == "mlir":
        return item.source
    from abi_compiler.errors import AbiError
    from abi_compiler.frontends.iree_tools import CompileError

    try:
        if item.kind == "onnx":
            onnx_frontend = importlib.import_module("abi_compiler.frontends.onnx")

            return onnx_frontend.program(item.source)
        if item.kind == "tf":
            os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
            tf_frontend = importlib.import_module("abi_compiler.frontends.tf")

            if item.name is not None and len(signatures) > 1:
                raise UsageError(
                    f"'{item.name}={item.path}' names one function: give one --signature"
                )
            return tf_frontend.program(item.path, signatures=signatures or ["serving_default"])
        if item.kind == "torch":
            import torch

            torch_frontend = importlib.import_module("abi_compiler.frontends.torch")

            try:
                exported = _load_torch_program(torch, item.source)
            except Exception as error:  # torch raises its own types for a bad archive
                raise UsageError(f"'{item.path}': cannot load the torch program: {error}") from None
            # Every weight inside the text: the `.vmfb` is the one file a caller loads
            # (the frontend's default leaves big ones out as named parameters).
            return torch_frontend.program(exported, external_bytes=None)
        from jax import export

        jax_frontend = importlib.import_module("abi_compiler.frontends.jax")

        with open(item.source, "rb") as stream:
            data = stream.read()
        try:
            exported = export.deserialize(bytearray(data))
        except Exception as error:  # a flatbuffer that is not one: any exception
            raise UsageError(
                f"'{item.path}' is not MLIR, an ONNX model, a SavedModel, a torch program "
                f"or a serialized JAX export ({type(error).__name__} when read as one)"
            ) from None
        return jax_frontend.program(exported)
    except ImportError:
        raise _needs(item.kind, item.path) from None
    except UsageError:
        raise
    except AbiError as error:
        raise UsageError(f"'{item.path}': {error}") from None
    except CompileError as error:  # a frontend's tool: a message, or located diagnostics
        diagnostics = error.diagnostics.strip("\n")
        joined = (
            ": " if "\n" not in diagnostics and not _DIAGNOSTIC_LINE.match(diagnostics) else "\n"
        )
        raise UsageError(f"'{item.path}': {error.stage} failed{joined}{diagnostics}") from None
    except Exception as error:  # the frameworks' own exception types
        raise UsageError(
            f"'{item.path}': cannot read {_KIND_NAMES[item.kind]}: {type(error).__name__}: {error}"
        ) from None


def _load_torch_program(torch: Any, path: str) -> Any:
    """`torch.export.load` without its log lines on stderr: given the open file (torch
    warns of a name that does not end in .pt2), its logger caught (it logs the traceback
    of a bad archive as a warning, then raises an error that points at that warning: the
    error raised here is the logged one)."""
    import logging

    class Caught(logging.Handler):
        def __init__(self) -> None:
            super().__init__(logging.WARNING)
            self.errors: list[BaseException] = []

        def emit(self, record: logging.LogRecord) -> None:
            if record.exc_info and record.exc_info[1] is not None:
                self.errors.append(record.exc_info[1])

    logger = logging.getLogger("torch.export")
    caught, handlers, propagate = Caught(), logger.handlers, logger.propagate
    logger.handlers, logger.propagate = [caught], False  # (torch's own handler is here)
    try:
        with open(path, "rb") as stream:
            return torch.export.load(stream)
    except Exception:
        if caught.errors:
            raise caught.errors[0] from None
        raise
    finally:
        logger.handlers, logger.propagate = handlers, propagate


def _lower(source: Any, name: str) -> str:
    from abi_compiler.pipeline import run_pipeline

    if isinstance(source, str):
        with open(source, "rb") as stream:
            data: str | bytes = stream.read()
    else:
        data = source.mlir
    return run_pipeline(data, "iree-abi-v1", name=name)


def _text(inputs: list[_Input], signatures: list[str]) -> str:
    """The lowered module of every input."""
    from abi_compiler.errors import AbiError
    from abi_compiler.frontends.entries import Entry, link
    from abi_compiler.signatures.module_signatures import reserved_functions, reserved_name_error

    if signatures and not any(item.kind == "tf" for item in inputs):
        raise UsageError("--signature applies to a SavedModel input, and there is none")
    for item in inputs:
        reserved = None if item.name is None else reserved_name_error(item.name)
        if reserved is not None:
            raise UsageError(f"'{item.name}={item.path}': {reserved}")
    programs = [_program(item, signatures) for item in inputs]
    if len(inputs) == 1 and inputs[0].name is None:
        text = _lower(programs[0], inputs[0].path)
    else:
        entries = []
        for item, program in zip(inputs, programs, strict=True):
            function = None if isinstance(program, str) else program.function
            entries.append(Entry(item.name, _lower(program, item.path), function, item.path))
        try:
            text = link(entries)
        except AbiError as error:
            raise UsageError(str(error)) from None
    reserved_names = reserved_functions(text)
    if reserved_names:
        raise UsageError(f"'{inputs[0].path}': {reserved_name_error(reserved_names[0])}")
    return text


def run(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    path: str | None = args.output_file
    if path is None and not args.emit_mlir:
        raise UsageError("the output file is missing: -o OUT.vmfb")
    if path is None or path == "-":
        output.check_stdout()
        path = None
    else:
        output.check_output_file(path)
    with tempfile.TemporaryDirectory(prefix="abi-compile-") as folder:
        inputs = _inputs(args.inputs, folder)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                text = _text(inputs, args.signature)
                data = text.encode("utf-8") if args.emit_mlir else _compile(text, args.target)
            finally:
                _print_warnings(caught)
    if path is None:
        output.write_stdout(lambda stream: _write_binary(stream, data))
    else:
        output.write_output_file(path, io.BytesIO(data))
    return 0


class _CompileFailed(Exception):
    """iree-compile failed: its diagnostics, as it printed them."""


def _compile(text: str, target: str) -> bytes:
    try:
        from abi_compiler import iree as abi_iree

        return abi_iree.compile_vmfb(text, None, target=target)
    except ImportError:
        raise UsageError(
            "compiling needs IREE's compiler and runtime: pip install 'abi-compiler[iree]'"
        ) from None
    except abi_iree.CompileError as error:
        raise _CompileFailed(error.diagnostics) from None


def _write_binary(stream: Any, data: bytes) -> None:
    stream.flush()
    stream.buffer.write(data)
    stream.buffer.flush()


def _print_warnings(caught: list[warnings.WarningMessage]) -> None:
    from abi_compiler.pipeline.run_diagnostics import PipelineWarning

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for item in caught:
        message = item.message
        if isinstance(message, PipelineWarning):
            for line in message.diagnostic.lines(PROG):
                output.write_stderr(line)
        elif type(message).__name__ == "CompileWarning" or os.path.abspath(
            item.filename
        ).startswith(package):
            for line in str(message).splitlines():
                output.write_stderr(line if ": warning: " in line else f"{PROG}: warning: {line}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; every failure is a message on stderr and exit status 1."""
    try:
        return run(argv)
    except UsageError as error:
        for line in _error_lines(error.message):
            output.write_stderr(line)
    except output.StreamError as error:
        output.write_stderr(f"{PROG}: error: {error.message}")
    except BrokenPipeError:
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except KeyboardInterrupt:
        return 130
    except _CompileFailed as error:
        diagnostics = str(error)
        for line in diagnostics.rstrip("\n").splitlines():
            output.write_stderr(line)
        if ": error: " not in diagnostics:
            output.write_stderr(f"{PROG}: error: iree-compile failed")
    except Exception as error:
        from abi_compiler.pipeline.run_diagnostics import PipelineError

        if isinstance(error, PipelineError):
            for diagnostic in error.diagnostics:
                for line in diagnostic.lines(PROG):
                    output.write_stderr(line)
        else:
            if os.environ.get(TRACEBACK_ENV):
                traceback.print_exc()
            hint = (
                "" if os.environ.get(TRACEBACK_ENV) else f" (set {TRACEBACK_ENV}=1 for a traceback)"
            )
            for line in _error_lines(f"internal error: {type(error).__name__}: {error}{hint}"):
                output.write_stderr(line)
    return 1


_DIAGNOSTIC_LINE = re.compile(r"\S.*?: (error|warning|note|remark): ")


def _error_lines(message: str) -> list[str]:
    """The lines of an error whose message may span several (a framework's, the
    diagnostics of a frontend's tool): the first `abi-compile: error: …`; after it, a
    diagnostic line (`file:line:col: error: …`) and a tool's source excerpt (indented)
    as they are, any other line a note."""
    first, *rest = message.strip("\n").splitlines() or [""]
    lines = [f"{PROG}: error: {first}"]
    for line in rest:
        if not line.strip():
            continue
        if _DIAGNOSTIC_LINE.match(line) or line[0].isspace():
            lines.append(line)
        else:
            lines.append(f"{PROG}: note: {line.removeprefix('note: ')}")
    return lines


if __name__ == "__main__":
    output.run_console(main)
