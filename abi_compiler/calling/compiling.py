"""Compiling for IREE from Python: `lower` runs a pipeline of this project in-process,
`compile_vmfb` then `iree-compile` (a child process) for the local CPU, and `compile`
loads the result (`abi_compiler.calling.modules.load`); a framework's object goes
through its frontend first (docs/calling.md, "Compiling and loading")."""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping
from collections.abc import Sequence as SequenceABC
from typing import Any

from abi_compiler.calling.modules import Module, compiled_here, load
from abi_compiler.calling.original_call import TypeSource
from abi_compiler.calling.vm import ResultsMode, _type_name
from abi_compiler.errors import AbiError
from abi_compiler.frontends import frontend_name
from abi_compiler.frontends import program as frontend_program
from abi_compiler.frontends.iree_tools import CompileError, run_tool
from abi_compiler.frontends.iree_tools import report as _report

__all__ = ["COMPILE_FLAGS", "compile", "compile_vmfb", "lower"]

# --------------------------------------------------------------------------------------
# Compiling: abi-opt in-process, then iree-compile.
# --------------------------------------------------------------------------------------

COMPILE_FLAGS: tuple[str, ...] = (
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    # IREE demotes f64 to f32 by default; values must come back as they were.
    "--iree-input-demote-f64-to-f32=false",
)
"""The flags `compile` gives iree-compile, besides ``--iree-llvmcpu-target-cpu``."""


def lower(
    source: str | bytes | os.PathLike[str],
    pipeline: str = "iree-abi-v1",
    *,
    name: str = "<source>",
) -> str:
    """Run the pipeline ``pipeline`` (`abi-opt -p` text) on MLIR text (or a file) with the
    pipeline library (`abi_compiler.pipeline.run_pipeline`) and return the output. Errors
    raise `CompileError` with the located diagnostics; a text source is named ``name``
    in them, a file by its path. Warnings become one `CompileWarning`."""
    from abi_compiler.pipeline import PipelineError, PipelineWarning, run_pipeline

    if isinstance(source, os.PathLike):
        name = os.fspath(source)
        with open(source, "rb") as stream:
            source = stream.read()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", PipelineWarning)
            text = run_pipeline(source, pipeline, name=name)
    except PipelineError as error:
        lines = [line for item in error.diagnostics for line in item.lines("abi-opt")]
        raise CompileError("abi-opt", "".join(line + "\n" for line in lines)) from None
    found = [str(item.message) for item in caught if issubclass(item.category, PipelineWarning)]
    for item in caught:
        if not issubclass(item.category, PipelineWarning):
            warnings.warn_explicit(item.message, item.category, item.filename, item.lineno)
    _report("abi-opt", False, "".join(line + "\n" for line in found))
    return text


def compile_vmfb(
    source: str | bytes | os.PathLike[str] | Mapping[str, object] | object,
    pipeline: str | None = "iree-abi-v1",
    *,
    target: str = "host",
    extra_args: SequenceABC[str] = (),
    name: str = "<source>",
    **options: Any,
) -> bytes:
    """`lower` (skipped when ``pipeline`` is None), then iree-compile for the local CPU
    ``target`` (an LLVM CPU name; ``"host"`` is this machine's, which also keeps IREE
    from warning about a generic CPU). Returns the `.vmfb` bytes.

    ``source`` may be a framework's object (``options`` go to its frontend's `program`):
    the function keeps the original call in its reflection (`abi.call`), which `load`
    reads; a torch program's weights stay in the module (`external_bytes=None`, unless
    given), so that the `.vmfb` is whole. Or a mapping ``{name: source}``: one module,
    one function per entry named by its key (`abi_compiler.frontends.entries`), ``options``
    going to the frontend of each framework object."""
    # Checked before a frontend runs: a str would be its characters, each a flag.
    if isinstance(extra_args, (str, bytes)) or not isinstance(extra_args, Iterable):
        raise TypeError(f"extra_args must be a sequence of str, not {_type_name(extra_args)}")
    extra_args = tuple(extra_args)
    for arg in extra_args:
        if not isinstance(arg, str):
            raise TypeError(f"extra_args must be a sequence of str, not of {_type_name(arg)}")
    if not isinstance(target, str):
        raise TypeError(f"target must be a str, not {_type_name(target)}")
    if isinstance(source, Mapping):
        source = _linked(source, pipeline, options)
        pipeline = None
    elif frontend_name(source) is not None:
        if frontend_name(source) == "torch":
            options.setdefault("external_bytes", None)
        source = frontend_program(source, **options).mlir
    elif options:
        raise TypeError(f"frontend options ({', '.join(options)}) need a framework object")
    if not isinstance(source, (str, bytes, os.PathLike)):
        raise TypeError(
            "expected MLIR text, bytes, a path, a mapping of them or a framework object "
            f"(abi_compiler.frontends), got {_type_name(source)}"
        )
    if pipeline is None:
        if isinstance(source, os.PathLike):
            with open(source, "rb") as stream:
                text = stream.read()
        else:
            text = source.encode("utf-8") if isinstance(source, str) else source
    else:
        text = lower(source, pipeline, name=name).encode("utf-8")
    _check_function_names(text)
    try:
        from iree.compiler.tools.binaries import find_tool
    except ImportError as error:
        raise ImportError(
            "abi_compiler.iree.compile needs IREE's compiler (iree-base-compiler 3.13): "
            "pip install 'abi-compiler[iree]'"
        ) from error
    command = [
        find_tool("iree-compile"),
        *COMPILE_FLAGS,
        f"--iree-llvmcpu-target-cpu={target}",
        *extra_args,
        "-",
        "-o",
        "-",
    ]
    vmfb = run_tool(command, text, "iree-compile")
    compiled_here(vmfb)
    return vmfb


def _check_function_names(text: bytes) -> None:
    """An `AbiError` for a module (text; bytecode is not looked into) that would export a
    function under a name IREE reserves (`reserved_name_error`)."""
    from abi_compiler.signatures.module_signatures import reserved_functions, reserved_name_error

    if text.startswith(b"ML\xefR"):
        return
    reserved = reserved_functions(text.decode("utf-8", "replace"))
    if reserved:
        raise AbiError(str(reserved_name_error(reserved[0])))


def compile(
    source: str | bytes | os.PathLike[str] | Mapping[str, object] | object,
    pipeline: str | None = "iree-abi-v1",
    *,
    target: str = "host",
    extra_args: SequenceABC[str] = (),
    name: str = "<source>",
    device: Any = "local-task",
    convert: bool = False,
    results: ResultsMode | None = None,
    types: TypeSource = None,
    **options: Any,
) -> Module:
    """MLIR text (or a file) → a loaded `Module`: `compile_vmfb`, then `load`.

    ``source`` may also be a framework's object (`abi_compiler.frontends`: a
    `jax.export.Exported`, a `torch.export.ExportedProgram`, an ONNX model, a SavedModel
    directory): its function then takes the original call and returns the original
    result, exactly as the `.vmfb` of `compile_vmfb` loaded by `load`, which is what this
    is (a torch program's big weights go beside the module, as named parameters: see
    docs/calling.md, "Big weights"; its container classes are the program's own, as
    ``types``, unless given); ``options`` go to its frontend's `program` (a
    SavedModel's ``signature`` or ``signatures``, a JAX export's ``platform``). A mapping
    ``{name: source}`` of any of these gives one module with one function per entry, named
    by its key (a link error is an `AbiError`); its torch programs' big weights go beside
    it too, one parameter for the entries that share a weight."""
    parameters: dict[str, Any] = {}
    if isinstance(source, Mapping):
        # Torch entries keep big weights out of the text here too, one parameter per name
        # and bytes (`lower_entries`): the module is loaded with them.
        source, pipeline, options = _linked(source, pipeline, options, parameters), None, {}
    elif frontend_name(source) is not None:
        program = frontend_program(source, **options)
        source, options, parameters = program.mlir, {}, program.parameters
        if types is None and program.types:
            types = program.types
    vmfb = compile_vmfb(
        source, pipeline, target=target, extra_args=extra_args, name=name, **options
    )
    return load(
        vmfb,
        device=device,
        convert=convert,
        results=results,
        types=types,
        parameters=parameters or None,
    )


def _linked(
    sources: Mapping[str, object],
    pipeline: str | None,
    options: dict[str, Any],
    parameters: dict[str, Any] | None = None,
) -> str:
    """A mapping of sources → one lowered module (`abi_compiler.frontends.entries`); with
    ``parameters``, the entries' named parameters are gathered there."""
    from abi_compiler.frontends.entries import lower_entries

    def lower_one(entry: Any, entry_pipeline: str, entry_name: str) -> str:
        return lower(entry, entry_pipeline, name=entry_name)

    return lower_entries(sources, pipeline, lower_one, parameters=parameters, **options)
