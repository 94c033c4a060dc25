"""`abi-compile`: a framework's model (or MLIR) to a `.vmfb` from the command line, through
the frontends (`abi_compiler.frontends`; docs/abi-compile.md).

    abi-compile INPUT… -o OUT.vmfb [--signature NAME]… [--target DEVICE]… [--emit-mlir]
                [--import MODULE]… [--parameters ARCHIVE] [--tokenizer TOKENIZER_JSON]
                [--generation-config JSON] [--shared-state] [-q]

Each INPUT is read by its content (`detect`): MLIR bytecode (its magic number), a torch
program saved by `torch.export.save` (a zip archive), MLIR text (no NUL byte), an ONNX
model (a `.onnx` file, or a protobuf that starts with ONNX's `ir_version` field), a
SavedModel directory (it holds `saved_model.pb`), else a serialized JAX export (the bytes
of `Exported.serialize()`, a flatbuffer: only JAX can tell). A framework input goes
through its frontend; every module is lowered with `-p iree-abi-v1`. One input without a
name is compiled whole (a SavedModel with all its `--signature`s); `NAME=INPUT`, or
several inputs, make one module with one function per input (`frontends.entries.link`),
named NAME (or the function's own name). A model file is read as data (a `.pt2` through
`frontends.torch_archive`, a SavedModel's loading ops checked first: docs/abi-compile.md,
"What is read"); `--import MODULE` imports the user's own module first. A `.vmfb` is
named as a compiled module, not a model.

Diagnostics as `abi-opt`'s: `<file>:<line>:<col>: error: …` for a located problem,
`abi-compile: error: …` otherwise, exit status 1, no traceback, no output file. A framework
that is not installed is a one-line error naming the extra to install.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
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
from typing import Any

from abi_compiler.commands import output, status
from abi_compiler.commands.status import UsageError
from abi_compiler.devices.targets import parse_targets, portable_target
from abi_compiler.errors import AbiError
from abi_compiler.progress import Progress, progress_for

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
module with one function each.

A model file is data: nothing in it is run. A .pt2's sample inputs are never read; its
weights and constants are read as tensor bytes or with torch.load(weights_only=True);
pickled objects, TorchScript objects, modules its tree specs name and size expressions
that are not arithmetic are refused. A SavedModel whose restore or init ops would act
outside the model (write a file, print, call Python) is refused; ONNX external data is
read only from the model's folder. Your own pytree classes: --import MODULE."""
EPILOG = """\
examples:
  abi-compile model.onnx -o model.vmfb
  abi-compile saved_model/ --signature serving_default --signature score -o model.vmfb
  abi-compile predict=predict.jax train_step=train.jax -o model.vmfb
  abi-compile model.pt2 --emit-mlir -o model.mlir
  abi-compile step.jax --import mymodel.registrations -o step.vmfb

The frameworks are optional: pip install 'abi-compiler[onnx]' (or [torch], [jax], [tf]).
docs/abi-compile.md in abi-compiler's repository describes the command."""


@dataclass
class _Input:
    #: The function's name (``NAME=``), or None.
    name: str | None
    #: The input as the command line names it (in messages).
    path: str
    kind: str
    #: Where it is read: ``path``, or the copy of a pipe's bytes (`_spooled`).
    source: str


def _parser() -> status.ArgumentParser:
    parser = status.ArgumentParser(
        prog=PROG,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add("inputs", nargs="+", metavar="INPUT", help="a model or MLIR file, or NAME=INPUT")
    add(
        "-o",
        "--output-file",
        help="the .vmfb (or with --emit-mlir the MLIR; '-': stdout); never one of the inputs",
    )
    add(
        "--signature",
        action="append",
        default=[],
        metavar="NAME",
        help="a SavedModel signature to compile (repeatable; default: serving_default)",
    )
    add(
        "--target",
        action="append",
        default=[],
        metavar="DEVICE",
        help="a device to compile for, repeatable (one module, an executable per target): "
        "cpu:CPU (cpu:host, this machine's), cpu:TRIPLE:CPU, cuda:ARCH, rocm:ARCH, vulkan, "
        f"metal, vmvx (default: {portable_target()}, a portable CPU level)",
    )
    add("--emit-mlir", action="store_true", help="write the lowered MLIR instead of compiling")
    add(
        "--parameters",
        metavar="ARCHIVE",
        help="write a torch program's big weights to this IREE parameter archive (.irpa) "
        "beside the module, which names it (load finds it there), instead of inside the .vmfb",
    )
    add(
        "--tokenizer",
        metavar="TOKENIZER_JSON",
        help="record a language model's generation job and this tokenizer (its "
        "tokenizer.json; the chat template from the tokenizer_config.json beside it) in the "
        "module, for abi-generate and Module.generate",
    )
    add(
        "--shared-state",
        action="store_true",
        help="with several inputs: their mutable globals of one name are one (a language "
        "model's prompt function and one-token step on one KV cache)",
    )
    add(
        "--generation-config",
        metavar="JSON",
        help="record the end-of-sequence ids and default settings of this "
        "generation_config.json with the generation job",
    )
    add(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress: by default a stage (import, lower, iree-compile) that runs longer "
        "than a couple of seconds shows its elapsed time on a terminal's stderr",
    )
    add(
        "--import",
        action="append",
        default=[],
        metavar="MODULE",
        dest="imports",
        help="import MODULE (your own code, found on PYTHONPATH) before reading the inputs, "
        "so that the pytree classes it registers apply (repeatable)",
    )
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
    if _is_vmfb(head):
        raise UsageError(
            f"'{path}' is a compiled module, not a model: load it with "
            "abi_compiler.iree.load, or list its functions with abi-sig show"
        )
    if head.startswith(_ZIP_MAGIC):
        return "torch"
    if path.endswith(".onnx") or _onnx_head(head):
        return "onnx"
    if not head:
        raise UsageError(f"'{path}' is empty")
    if _is_text(path):
        return "mlir"
    return "jax"


def _is_vmfb(head: bytes) -> bool:
    """An IREE module (`.vmfb`): a FlatBuffer with IREE's file identifier, or the ZIP
    archive `iree-compile` wraps it in."""
    from abi_compiler.signatures.module_signatures import is_vmfb_archive

    return head[4:8] == b"IREE" or is_vmfb_archive(head)


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
        if "\x00" in path:  # (not from a shell; Python's os functions raise ValueError)
            shown = path.replace("\x00", "\\x00")
            raise UsageError(f"could not open input file '{shown}': a path has no NUL character")
        source = _spooled(path, folder)
        inputs.append(_Input(name, path, detect(source, path), source))
    return inputs


#: JAX's reason for an export whose pytree holds a class this process has not registered.
_JAX_UNREGISTERED = re.compile(r"unregistered type `([^`]+)`")
_FRAMEWORKS = {"onnx": "onnx", "torch": "torch", "jax": "JAX", "tf": "TensorFlow"}


def _needs(kind: str, path: str, error: ImportError) -> UsageError:
    """The message for an input whose framework, or a module it needs, is missing: names
    that module (jax reads a serialized export with `flatbuffers`, which it does not
    install itself) and the extra that installs it."""
    what = f"is {_KIND_NAMES[kind]}; reading it"
    if kind == "jax":  # told by elimination: only JAX can read the flatbuffer
        what = (
            "is not MLIR, an ONNX model, a SavedModel or a torch program; "
            "reading it as a serialized JAX export"
        )
    missing = _missing_module(error)
    module = f" (no module named '{missing}')" if missing else ""
    return UsageError(
        f"'{path}' {what} needs {_FRAMEWORKS[kind]}{module}: pip install '{EXTRAS[kind]}'"
    )


def _missing_module(error: BaseException | None) -> str | None:
    """The name of the module whose import failed, from ``error`` or what it was raised
    from (jax re-raises a missing `flatbuffers` as a plain `ImportError` without one)."""
    while error is not None:
        if isinstance(error, ImportError) and error.name:
            return error.name
        error = error.__cause__ or error.__context__
    return None


def _program(item: _Input, signatures: list[str], inline: bool) -> Any:
    """The frontend's `Program` for a framework input (the path itself for MLIR); with
    ``inline``, a torch program keeps every weight in its text (`--emit-mlir`), else its
    big weights are named parameters, which iree-compile embeds."""
    if item.kind == "mlir":
        return item.source
    from abi_compiler.errors import AbiError, CompileError

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
            torch_frontend = importlib.import_module("abi_compiler.frontends.torch")
            torch_archive = importlib.import_module("abi_compiler.frontends.torch_archive")

            exported = torch_archive.load(item.source)  # as data: no pickle, no import
            if inline:
                return torch_frontend.program(exported, external_bytes=None)
            return torch_frontend.program(exported)
        from jax import export

        jax_frontend = importlib.import_module("abi_compiler.frontends.jax")

        with open(item.source, "rb") as stream:
            data = stream.read()
        try:
            exported = export.deserialize(bytearray(data))
        except ImportError:  # a module JAX reads the flatbuffer with: not a wrong input
            raise
        except Exception as error:  # a flatbuffer that is not one: any exception
            unregistered = _JAX_UNREGISTERED.search(str(error))
            if unregistered is not None:  # an export whose tree holds the user's class
                raise UsageError(
                    f"'{item.path}': cannot read the serialized JAX export: {error}\n"
                    f"import the module that registers {unregistered.group(1)} first: "
                    "--import MODULE"
                ) from None
            raise UsageError(
                f"'{item.path}' is not MLIR, an ONNX model, a SavedModel, a torch program "
                f"or a serialized JAX export ({type(error).__name__} when read as one)"
            ) from None
        return jax_frontend.program(exported)
    except ImportError as error:
        raise _needs(item.kind, item.path, error) from None
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


def _lower(source: Any, name: str) -> str:
    from abi_compiler.pipeline import run_pipeline

    if isinstance(source, str):
        with open(source, "rb") as stream:
            data: str | bytes = stream.read()
    else:
        data = source.mlir
    return run_pipeline(data, "iree-abi-v1", name=name)


def _text(
    inputs: list[_Input],
    signatures: list[str],
    stages: Progress,
    parameters: dict[str, Any] | None,
    shared_state: bool = False,
) -> str:
    """The lowered module of every input; the named parameters its text reads (a torch
    program's big weights) are gathered in ``parameters`` (`merge_parameters`: one per
    name and bytes, `<NAME>/<name>` for a clash); None: every weight stays in the text.
    ``shared_state``: the inputs' mutable globals of one name are one (`link`)."""
    from abi_compiler.errors import AbiError
    from abi_compiler.frontends.entries import Entry, link, merge_parameters
    from abi_compiler.signatures.module_signatures import reserved_functions, reserved_name_error

    if signatures and not any(item.kind == "tf" for item in inputs):
        raise UsageError("--signature applies to a SavedModel input, and there is none")
    for item in inputs:
        reserved = None if item.name is None else reserved_name_error(item.name)
        if reserved is not None:
            raise UsageError(f"'{item.name}={item.path}': {reserved}")
    programs = []
    for item in inputs:
        with stages.stage(f"import {item.path}" if item.kind != "mlir" else f"read {item.path}"):
            program = _program(item, signatures, parameters is None)
        if parameters is not None and not isinstance(program, str) and program.parameters:
            key = item.name or program.function
            mlir = merge_parameters(key, program.mlir, program.parameters, parameters)
            program = dataclasses.replace(program, mlir=mlir, parameters={})
        programs.append(program)
    if len(inputs) == 1 and inputs[0].name is None:
        with stages.stage("lower"):
            text = _lower(programs[0], inputs[0].path)
    else:
        entries = []
        for item, program in zip(inputs, programs, strict=True):
            function = None if isinstance(program, str) else program.function
            with stages.stage(f"lower {item.path}"):
                lowered = _lower(program, item.path)
            entries.append(Entry(item.name, lowered, function, item.path))
        try:
            text = link(entries, shared_state=shared_state)
        except AbiError as error:
            raise UsageError(str(error)) from None
    reserved_names = reserved_functions(text)
    if reserved_names:
        raise UsageError(f"'{inputs[0].path}': {reserved_name_error(reserved_names[0])}")
    return text


def run(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    try:
        targets = list(args.target) or [portable_target()]
        parse_targets(targets)  # (before any input is read)
    except AbiError as error:
        raise UsageError(str(error)) from None
    path: str | None = args.output_file
    if path is None and not args.emit_mlir:
        raise UsageError("the output file is missing: -o OUT.vmfb")
    if path is None or path == "-":
        output.check_stdout()
        path = None
    else:
        output.check_output_file(path)
    archive: str | None = args.parameters
    if archive is not None:
        output.check_output_file(archive)
        same = path is not None and os.path.abspath(archive) == os.path.abspath(path)
        try:
            output.check_not_input(archive, [] if path is None else [path])
        except output.StreamError:
            same = True
        if same:
            raise UsageError(f"the parameters '{archive}' and the output are one file")
    with tempfile.TemporaryDirectory(prefix="abi-compile-") as folder:
        inputs = _inputs(args.inputs, folder)
        if path is not None:
            output.check_not_input(path, [item.path for item in inputs])
        if archive is not None:
            try:
                output.check_not_input(archive, [item.path for item in inputs])
            except output.StreamError as error:
                raise UsageError(error.message.replace("the output", "the parameters")) from None
        _import(args.imports)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                stages = progress_for(PROG, False if args.quiet else None)
                inline = args.emit_mlir and archive is None
                parameters: dict[str, Any] | None = None if inline else {}
                text = _text(inputs, args.signature, stages, parameters, args.shared_state)
                if args.emit_mlir:
                    data = text.encode("utf-8")
                else:
                    with stages.stage("iree-compile"):
                        data = _compile(
                            text,
                            targets,
                            _records(inputs),
                            parameters or {},
                            archive,
                            args.tokenizer,
                            args.generation_config,
                        )
            finally:
                _print_warnings(caught)
    if archive is not None:
        _write_archive(archive, parameters or {})
    if path is None:
        output.write_stdout(lambda stream: _write_binary(stream, data))
    else:
        output.write_output_file(path, io.BytesIO(data))
    return 0


def _write_archive(path: str, parameters: dict[str, Any]) -> None:
    """The weights of `--parameters`, written whole (a temporary name beside, renamed);
    with none to write, a warning and no file."""
    if not parameters:
        output.write_stderr(
            f"{PROG}: warning: no weights to write to '{path}': the module holds every "
            "weight of its inputs (--parameters takes a torch program's big weights)"
        )
        return
    from abi_compiler.calling.modules import save_parameters

    folder, name = os.path.split(os.path.abspath(path))
    written = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    # Created as any output file is (0666 less the umask), then written by IREE.
    os.close(os.open(written, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666))
    try:
        save_parameters(parameters, written)
        os.replace(written, path)
    finally:
        if os.path.exists(written):
            os.unlink(written)


def _import(modules: list[str]) -> None:
    """Import each ``--import`` module (the user's code, run as they asked)."""
    for name in modules:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as error:
            raise UsageError(f"--import {name}: {error}") from None
        except (Exception, SystemExit) as error:  # the module's own code failed
            raise UsageError(f"--import {name}: {type(error).__name__}: {error}") from None


class _CompileFailed(Exception):
    """iree-compile failed: its diagnostics, as it printed them."""


def _records(inputs: list[_Input]) -> list[Any]:
    """What the module records of its inputs (`abi.provenance`): each file as read."""
    from abi_compiler.frontends.provenance import file_record

    return [file_record(item.source, item.kind, item.name) for item in inputs]


def _compile(
    text: str,
    target: list[str],
    records: list[Any],
    parameters: dict[str, Any],
    archive: str | None,
    tokenizer: str | None = None,
    generation_config: str | None = None,
) -> bytes:
    for given in (tokenizer, generation_config):
        if given is not None and not os.path.isfile(given):
            raise UsageError(f"cannot read '{given}': no such file")
    try:
        from abi_compiler import iree as abi_iree

        return abi_iree.compile_vmfb(
            text,
            None,
            target=target,
            inputs=records,
            progress=False,
            parameters=parameters,
            archive_name=None if archive is None or not parameters else os.path.basename(archive),
            tokenizer=tokenizer,
            generation_config=generation_config,
        )
    except ImportError as error:
        if "tokenizers" in str(error):
            raise UsageError(str(error)) from None
        raise UsageError(
            "compiling needs IREE's compiler and runtime: pip install 'abi-compiler[iree]'"
        ) from None
    except abi_iree.CompileError as error:
        raise _CompileFailed(error.diagnostics) from None
    # A target LLVM or IREE does not know, no generation job to record, a tokenizer that
    # does not fit the model.
    except AbiError as error:
        raise UsageError(str(error)) from None


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
    """Run the command; every failure is a message on stderr and exit status 1 (Ctrl-C:
    130; `status.finish`)."""
    return status.finish(PROG, lambda: run(argv), usage=_error_lines, internal=_failed)


def _failed(error: Exception) -> int:
    """The exit status of a run that raised ``error`` (not a usage error): iree-compile's
    or abi-opt's diagnostics, or the report of a defect of ours, on stderr."""
    if isinstance(error, BrokenPipeError):
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    elif isinstance(error, _CompileFailed):
        diagnostics = str(error)
        for line in diagnostics.rstrip("\n").splitlines():
            output.write_stderr(line)
        if ": error: " not in diagnostics:
            output.write_stderr(f"{PROG}: error: iree-compile failed")
    else:
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
    return status.FAILED


_DIAGNOSTIC_LINE = re.compile(r"\S.*?: (error|warning|note|remark): ")


def _error_lines(message: str) -> list[str]:
    """The lines of an error whose message may span several (a framework's, the
    diagnostics of a frontend's tool): the first `abi-compile: error: …`; after it, a
    diagnostic line (`file:line:col: error: …`) and the tool's source excerpt below it
    (indented) as they are, any other line a note (an indented line of a framework's
    message too: ONNX's checker breaks its sentences at a node's fields)."""
    first, *rest = message.strip("\n").splitlines() or [""]
    lines = [f"{PROG}: error: {first}"]
    excerpt = False  # (after a diagnostic line, until a note)
    for line in rest:
        if not line.strip():
            continue
        if _DIAGNOSTIC_LINE.match(line):
            excerpt = True
            lines.append(line)
        elif excerpt and line[0].isspace():
            lines.append(line)
        else:
            excerpt = False
            lines.append(f"{PROG}: note: {line.strip().removeprefix('note: ')}")
    return lines


if __name__ == "__main__":
    status.run_console(main)
