"""Compiling for IREE from Python: `lower` runs a pipeline of this project in-process,
`compile_vmfb` then `iree-compile` (a child process) for the targets asked for
(`abi_compiler.devices.targets`: a portable CPU level by default), and `compile` loads
the result (`abi_compiler.calling.modules.load`); a framework's object goes
through its frontend first (docs/calling.md, "Compiling and loading")."""

from __future__ import annotations

import os
import re
import tempfile
import warnings
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Sequence as SequenceABC
from typing import Any

from abi_compiler import child
from abi_compiler.attribute_names import (
    ABI_PARAMETERS,
    ABI_PROVENANCE,
    PARAMETER_SCOPE,
)
from abi_compiler.calling.mismatch import type_name
from abi_compiler.calling.modules import Module, compiled_here, load, save_parameters
from abi_compiler.calling.original_call import TypeSource
from abi_compiler.calling.vm import ResultsMode
from abi_compiler.codecs.provenance_json import (
    InputRecord,
    Provenance,
    TargetRecord,
    encode_provenance,
)
from abi_compiler.devices.targets import (
    FORMS,
    Target,
    executable_targets,
    parse_targets,
    portable_target,
    target_flags,
)
from abi_compiler.errors import AbiError, CompileError
from abi_compiler.frontends import frontend_name
from abi_compiler.frontends import program as frontend_program
from abi_compiler.frontends.iree_tools import report as _report
from abi_compiler.frontends.iree_tools import run_tool
from abi_compiler.frontends.linalg_rewrites import ACTIVATION_PRODUCT, DATA_TILING_HINT
from abi_compiler.progress import progress_for
from abi_compiler.versions import package_version

__all__ = [
    "COMPILE_FLAGS",
    "DATA_TILING_FLAGS",
    "DIRECT_COMMAND_BUFFERS",
    "HOST_LOOP_OPS",
    "HOST_TARGET",
    "compile",
    "compile_flags",
    "compile_vmfb",
    "lower",
    "plain_flags",
    "resolve_targets",
    "without_activation_hints",
]

# --------------------------------------------------------------------------------------
# Compiling: abi-opt in-process, then iree-compile.
# --------------------------------------------------------------------------------------

_GENERALIZE = "--iree-opt-generalize-matmul=true"

COMPILE_FLAGS: tuple[str, ...] = (
    # IREE demotes f64 to f32 by default; values must come back as they were.
    "--iree-input-demote-f64-to-f32=false",
    # Contractions as linalg.generic (IREE's -O2 default, off at its default -O0): a
    # one-row product (each `linear` of a decode step) is compiled as the matrix-vector
    # product it is, not as a matmul tiled for many rows; a decode step takes about half
    # the time (docs/calling.md#compiler-flags).
    _GENERALIZE,
)
"""The flags `compile` gives iree-compile after the targets' (`target_flags`), for a
module without data-tiling hints and without host loops (`compile_flags`)."""

#: What a module with host loops is compiled with besides (`compile_flags`): IREE 3.13 can
#: record a command buffer with no binding slots whose copy_buffer still reads slot 0
#: (OUT_OF_RANGE at call time) for a loop that starts from a constant the function also
#: returns (a flax init beside a constant step): docs/calling.md#compiler-flags.
DIRECT_COMMAND_BUFFERS = "--iree-hal-indirect-command-buffers=false"

#: The ops of a loop on the host, as their names appear in MLIR text (custom or generic
#: form): a text that names one, or MLIR bytecode (not read), is compiled with
#: `DIRECT_COMMAND_BUFFERS`. A name inside a string only costs the per-call speed of
#: IREE's reusable command buffers, never a wrong call.
HOST_LOOP_OPS: tuple[bytes, ...] = (
    b"stablehlo.while",
    b"mhlo.while",
    b"scf.while",
    b"scf.for",
    b"scf.parallel",
    b"affine.for",
    b"affine.parallel",
    b"cf.br",
    b"cf.cond_br",
    b"cf.switch",
    b"tosa.while_loop",
    b"torch.prim.Loop",
)

#: What replaces the generalization for a module that carries the data-tiling hint: a
#: generalized product loses its hint, and every contraction would then be data-tiled
#: (which IREE 3.13 cannot compile for some), so generalizing is turned off outright (an
#: ``--iree-opt-level=O2`` in `extra_args` would otherwise turn it on).
DATA_TILING_FLAGS = ("--iree-opt-generalize-matmul=false", "--iree-opt-data-tiling=true")


def plain_flags(text: bytes) -> tuple[str, ...]:
    """The flags for the module ``text`` (MLIR text or bytecode) without data tiling:
    `COMPILE_FLAGS`, and `DIRECT_COMMAND_BUFFERS` where it has a host loop
    (`HOST_LOOP_OPS`) or is bytecode. A module without one keeps IREE's reusable
    command buffers, recorded once where it is loaded and replayed by each call with its
    own buffers bound (docs/calling.md#compiler-flags)."""
    if text.startswith(_BYTECODE_MAGIC) or any(op in text for op in HOST_LOOP_OPS):
        return (*COMPILE_FLAGS, DIRECT_COMMAND_BUFFERS)
    return COMPILE_FLAGS


def compile_flags(text: bytes) -> tuple[str, ...]:
    """The flags for the module ``text`` (MLIR text or bytecode): `plain_flags`; where it
    carries IREE's data-tiling hint (`frontends.linalg_rewrites.DATA_TILING_HINT`, which
    the torch frontend writes), with IREE's data tiling in place of the generalization: the
    hinted products (a `linear`'s, with its weight packed once where it is loaded) are
    data-tiled, the others compiled as before (where iree-compile fails with these,
    `compile_vmfb` compiles again without the hints of the products of two activations,
    then with `plain_flags`). docs/calling.md#compiler-flags."""
    plain = plain_flags(text)
    if DATA_TILING_HINT.encode() not in text:
        return plain
    return (*(flag for flag in plain if flag != _GENERALIZE), *DATA_TILING_FLAGS)


# An attribute dictionary that holds the mark of a hinted product of two activations.
_MARKED_ATTRIBUTES = re.compile(
    rb"\{[^{}]*\b" + re.escape(ACTIVATION_PRODUCT.encode()) + rb"\b[^{}]*\}"
)
_HINT_ENTRY = re.compile(rb",?\s*\b" + re.escape(DATA_TILING_HINT.encode()) + rb"\b(?!\.)")


def without_activation_hints(text: bytes) -> bytes:
    """The MLIR text ``text`` without `DATA_TILING_HINT` on the products of two
    activations (those marked `frontends.linalg_rewrites.ACTIVATION_PRODUCT`), the
    weights' products keeping theirs: what `compile_vmfb` compiles where iree-compile
    fails on the data-tiled module (docs/calling.md#compiler-flags)."""

    def unhinted(found: re.Match[bytes]) -> bytes:
        entries = _HINT_ENTRY.sub(b"", found.group(0)[1:-1]).strip().lstrip(b",").strip()
        return b"{" + entries + b"}"

    return _MARKED_ATTRIBUTES.sub(unhinted, text)


#: The target `compile` compiles for by default: this machine's CPU, since the module is
#: loaded here (`compile_vmfb`'s default, for a file that is shipped: `portable_target`).
HOST_TARGET = "cpu:host"


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
    target: str | SequenceABC[str] | None = None,
    extra_args: SequenceABC[str] = (),
    name: str = "<source>",
    inputs: SequenceABC[InputRecord] | None = None,
    progress: bool | None = None,
    parameters: Mapping[str, Any] | None = None,
    archive_name: str | None = None,
    tokenizer: Any = None,
    generation_config: Any = None,
    generation: bool | None = None,
    shared_state: bool = False,
    **options: Any,
) -> bytes:
    """`lower` (skipped when ``pipeline`` is None), then iree-compile for ``target``: a
    device (``"cpu:x86-64-v3"``, ``"cpu:host"``, ``"cpu:aarch64-linux-android:generic"``,
    ``"cuda:sm_80"``, ``"rocm:gfx942"``, ``"vulkan"``, ``"metal"``, ``"vmvx"``) or a
    sequence of them (one module, an executable per target); by default a portable CPU
    level of this machine's architecture (`portable_target`: ``cpu:x86-64-v3`` on x86-64),
    since a `.vmfb` is a file that is shipped (docs/calling.md, "Devices and targets").
    Returns the `.vmfb` bytes.

    ``source`` may be a framework's object (``options`` go to its frontend's `program`):
    the function keeps the original call in its reflection (`abi.call`), which `load`
    reads; a torch program's weights stay in the module (`external_bytes=None`, unless
    given), so that the `.vmfb` is whole. Or a mapping ``{name: source}``: one module,
    one function per entry named by its key (`abi_compiler.frontends.entries`), ``options``
    going to the frontend of each framework object.

    Every exported function records how the module was made in its reflection
    (`abi.provenance`, docs/formats.md): versions, ``target`` and the executable targets
    iree-compile resolved it to (CPU and features, GPU architecture), the iree-compile
    flags and ``inputs`` (by default, read from ``source``: `abi_compiler.frontends.provenance`).

    ``progress``: a stage (import, lower, iree-compile) that runs longer than a couple of
    seconds shows a status line with its elapsed time on standard error — by default
    (None) when standard error is a terminal; False never, True always
    (`abi_compiler.progress`).

    ``parameters`` (name → array) are named parameters the text reads
    (`#flow.parameter.named<"model"::"<name>">`), which iree-compile embeds in the module;
    a torch program's big weights go that way (docs/calling.md, "Big weights"). With
    ``archive_name`` they stay out of it: the module names that archive (`abi.parameters`),
    which the caller writes beside the `.vmfb` and `load` finds there.

    ``tokenizer`` (a transformers tokenizer, a `tokenizers.Tokenizer` or a
    `tokenizer.json` path) and ``generation_config`` (a transformers `GenerationConfig`,
    a mapping or a `generation_config.json` path) record a language model's generation
    job in the module (`abi.generation`, `abi.tokenizer`: docs/formats.md), which
    `Module.generate` runs; ``generation=True`` records it without either (token ids in
    and out), False never. An `AbiError` when no function does the job or the
    tokenizer's vocabulary does not fit the model's. ``shared_state``: the entries of a
    mapping share their mutable globals of one name (`abi_compiler.frontends.entries`):
    ``{"main": prompt_program, "step": step_program}`` on one KV cache."""
    # Checked before a frontend runs: a str would be its characters, each a flag.
    if isinstance(extra_args, (str, bytes)) or not isinstance(extra_args, Iterable):
        raise TypeError(f"extra_args must be a sequence of str, not {type_name(extra_args)}")
    extra_args = tuple(extra_args)
    for arg in extra_args:
        if not isinstance(arg, str):
            raise TypeError(f"extra_args must be a sequence of str, not of {type_name(arg)}")
    if target is None:
        target = portable_target()
    if not isinstance(target, str) and (
        not isinstance(target, Iterable) or not all(isinstance(item, str) for item in target)
    ):
        raise TypeError(f"target must be a str or a sequence of str, not {type_name(target)}")
    targets = parse_targets(target)
    stages = progress_for("abi_compiler.iree", progress)
    if inputs is None:
        inputs = _records(source)
    if isinstance(source, Mapping):
        gathered: dict[str, Any] = {}
        with stages.stage("import and lower"):
            generating = _generating(generation, tokenizer, generation_config)
            source = _linked(source, pipeline, options, gathered, shared_state, generating)
        pipeline, parameters = None, {**gathered, **(parameters or {})}
    elif frontend_name(source) is not None:
        with stages.stage(f"import ({frontend_name(source)})"):
            program = frontend_program(source, **options)
        # A torch program's big weights leave the text as named parameters, which
        # iree-compile embeds from an archive: the `.vmfb` is whole, without the hex text.
        source, parameters = program.mlir, {**program.parameters, **(parameters or {})}
    elif options:
        raise TypeError(f"frontend options ({', '.join(options)}) need a framework object")
    if not isinstance(source, (str, bytes, os.PathLike)):
        raise TypeError(
            "expected MLIR text, bytes, a path, a mapping of them or a framework object "
            f"(abi_compiler.frontends), got {type_name(source)}"
        )
    if pipeline is None:
        if isinstance(source, os.PathLike):
            with open(source, "rb") as stream:
                text = stream.read()
        else:
            text = source.encode("utf-8") if isinstance(source, str) else source
    else:
        with stages.stage("lower"):
            text = lower(source, pipeline, name=name).encode("utf-8")
    _check_function_names(text)
    try:
        from iree.compiler.tools.binaries import find_tool
    except ImportError as error:
        raise ImportError(
            "abi_compiler.iree.compile needs IREE's compiler (iree-base-compiler 3.13): "
            "pip install 'abi-compiler[iree]'"
        ) from error
    device_flags = [*target_flags(targets), *_target_arguments(extra_args)]
    resolved = resolve_targets(targets, device_flags, find_tool("iree-compile"))
    chosen, plain = compile_flags(text), plain_flags(text)
    with tempfile.TemporaryDirectory(prefix="abi-compile-") as folder:
        embedding: list[str] = []
        if archive_name is not None and not text.startswith(_BYTECODE_MAGIC):
            text = _with_entry(text, ABI_PARAMETERS, archive_name)
        elif parameters:
            archive = os.path.join(folder, EMBEDDED_ARCHIVE)
            with stages.stage("write the weights"):
                save_parameters(parameters, archive)
            embedding = _embedding_flags(archive)
        if not text.startswith(_BYTECODE_MAGIC):
            text = _with_state(text)
        if _generating(generation, tokenizer, generation_config):
            text = _with_generation(text, tokenizer, generation_config)

        def run(text: bytes, own: tuple[str, ...]) -> bytes:
            flags = [*target_flags(targets), *own, *extra_args, *embedding]
            source = text
            if inputs is not None and not text.startswith(_BYTECODE_MAGIC):
                recorded = [_recorded_flag(flag, folder) for flag in flags]
                source = _with_provenance(text, targets, resolved, recorded, inputs)
            command = [find_tool("iree-compile"), *flags, "-", "-o", "-"]
            with stages.stage("iree-compile"):
                return run_tool(command, source, "iree-compile")

        # Each try made where the one before fails (IREE 3.13's data tiling fails on some
        # hinted products): the chosen flags; then the products of two activations without
        # their hints, the weights' kept; then without data tiling (as before the hints: a
        # bool `where` fused after a weight's product, `linalg.pack` refuses its padding).
        tries = [(text, chosen)]
        marked = ACTIVATION_PRODUCT.encode() in text and not text.startswith(_BYTECODE_MAGIC)
        if chosen != plain and marked:
            unhinted = without_activation_hints(text)
            tries.append((unhinted, compile_flags(unhinted)))
        if chosen != plain:
            tries.append((text, plain))
        for number, (source, flags) in enumerate(tries, 1):
            try:
                vmfb = run(source, flags)
                break
            except CompileError:
                if number == len(tries):
                    raise
    compiled_here(vmfb)
    return vmfb


#: The file name of the archive of a program's weights that iree-compile embeds (in a
#: temporary folder; the provenance records the flags with this name alone).
EMBEDDED_ARCHIVE = "weights.irpa"


def _embedding_flags(archive: str) -> list[str]:
    """iree-compile's flags that embed every parameter of ``archive`` in the module, as
    inline constants (no size limit: a `.vmfb` is then the one file a caller loads)."""
    return [
        f"--iree-parameter-import={PARAMETER_SCOPE}={archive}",
        f"--iree-parameter-import-maximum-size={2**63 - 1}",
    ]


def _recorded_flag(flag: str, folder: str) -> str:
    return flag.replace(folder + os.sep, "")


_BYTECODE_MAGIC = b"ML\xefR"


def _records(source: object) -> list[InputRecord]:
    """What the module is made of, for its provenance: each entry of a mapping, or the
    one source."""
    from abi_compiler.frontends.provenance import input_record

    pairs = source.items() if isinstance(source, Mapping) else [(None, source)]
    found = [input_record(entry, None if key is None else str(key)) for key, entry in pairs]
    return [record for record in found if record is not None]


def _with_provenance(
    text: bytes,
    targets: SequenceABC[Target],
    resolved: tuple[TargetRecord, ...],
    flags: SequenceABC[str],
    inputs: SequenceABC[InputRecord],
) -> bytes:
    """The lowered text with its `abi.provenance` on every exported function."""
    provenance = Provenance(
        package_version(),
        package_version("iree-base-compiler"),
        ",".join(str(target) for target in targets),
        tuple(flags),
        tuple(inputs),
        resolved,
    )
    return _with_entry(text, ABI_PROVENANCE, encode_provenance(provenance))


def _with_entry(text: bytes, key: str, value: str) -> bytes:
    """The text with the reflection entry ``key`` on every exported function (an
    unreadable text is left as it is: iree-compile then says what is wrong with it)."""
    from abi_compiler.text import carry
    from abi_compiler.text.reflection_entry import add_reflection_entry

    try:
        return add_reflection_entry(text.decode("utf-8"), key, value).encode("utf-8")
    except (UnicodeDecodeError, carry.ScanError):
        return text


def _with_state(text: bytes) -> bytes:
    """The text with the state each exported function uses (its mutable globals) in its
    reflection, `abi.state` and its `abi.call`'s ``state``, and the accessors through which
    a session's state moves (`abi_compiler.text.state`);
    an unreadable text as it is."""
    from abi_compiler.text import carry
    from abi_compiler.text.state import with_state, with_state_accessors

    try:
        decoded = text.decode("utf-8")
        recorded = with_state_accessors(with_state(decoded))
        return text if recorded is decoded else recorded.encode("utf-8")
    except (UnicodeDecodeError, carry.ScanError):
        return text


# What iree-compile resolves a set of targets to (`resolve_targets`), by its flags.
_RESOLVED: dict[tuple[str, ...], tuple[TargetRecord, ...]] = {}

# A function with one dispatch: iree-compile materializes the targets' executable
# targets for it (`--compile-to=flow`, about 0.2 s).
_PROBE = (
    b"func.func @probe(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
    b"  %b = arith.addf %a, %a : tensor<4xf32>\n"
    b"  return %b : tensor<4xf32>\n}\n"
)

# The prefixes of `extra_args` that change what a target resolves to (only those: a dump
# flag, say, would write the probe's files where the caller's go).
_TARGET_OPTIONS = (
    "--iree-hal-target-",
    "--iree-hal-local-target-",
    "--iree-llvmcpu-target-",
    "--iree-cuda-target",
    "--iree-rocm-target",
    "--iree-vulkan-target",
    "--iree-metal-target",
)


def _target_arguments(extra_args: SequenceABC[str]) -> list[str]:
    return [arg for arg in extra_args if arg.startswith(_TARGET_OPTIONS)]


def resolve_targets(
    targets: SequenceABC[Target], flags: SequenceABC[str], tool: str
) -> tuple[TargetRecord, ...]:
    """What iree-compile (``tool``) makes of ``targets`` given ``flags`` (theirs, and the
    caller's that bear on them): each executable target's format, CPU and features, GPU
    architecture, read from its output for a one-dispatch function (once per process
    for the same flags). An `AbiError` naming the accepted forms for a target LLVM or
    IREE does not know (an unknown CPU name, GPU architecture or triple)."""
    key = tuple(flags)
    found = _RESOLVED.get(key)
    if found is not None:
        return found
    named = ", ".join(repr(str(target)) for target in targets)
    command = [tool, *flags, "--compile-to=flow", "-", "-o", "-"]
    try:
        done = child.run(command, _PROBE)
        warned = done.stderr.decode("utf-8", "replace")
    except child.ChildFailed as ended:
        warned = ended.errors
        said = [line for line in warned.splitlines() if "error" in line.lower()]
        reason = said[0].split("error: ")[-1].strip() if said else ended.reason
        if "is not a recognized processor" not in warned:
            raise AbiError(
                f"target {named}: iree-compile refused it ({reason}): expected {FORMS}"
            ) from None
    if "is not a recognized processor" in warned:
        unknown = warned.split("'")[1] if warned.count("'") >= 2 else "the CPU"
        raise AbiError(f"target {named}: LLVM does not know the CPU '{unknown}': expected {FORMS}")
    found = executable_targets(done.stdout.decode("utf-8", "replace"))
    for target in targets:
        records = [record for record in found if record.backend == target.backend]
        if not records or (target.device != "local" and records[0].arch is None):
            raise AbiError(
                f"target '{target}': iree-compile knows no {target.kind} architecture "
                f"{target.name!r}: expected {FORMS}"
            )
    _RESOLVED[key] = found
    return found


def _generating(generation: bool | None, tokenizer: Any, generation_config: Any) -> bool:
    """Whether `compile_vmfb` records a generation job (``generation``; None: when a
    tokenizer or generation config is given)."""
    if generation is None:
        return tokenizer is not None or generation_config is not None
    return bool(generation)


def _with_generation(text: bytes, tokenizer: Any, generation_config: Any) -> bytes:
    """The text with the generation job of its function that computes logits
    (`abi_compiler.frontends.generation_job`); bytecode is refused."""
    from abi_compiler.frontends.generation_job import with_generation

    if text.startswith(_BYTECODE_MAGIC):
        raise AbiError("cannot record a generation job in MLIR bytecode: give the text")
    return with_generation(text.decode("utf-8"), tokenizer, generation_config).encode("utf-8")


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
    target: str | SequenceABC[str] = HOST_TARGET,
    extra_args: SequenceABC[str] = (),
    name: str = "<source>",
    device: Any = None,
    convert: bool = False,
    results: ResultsMode | None = None,
    types: TypeSource = None,
    progress: bool | None = None,
    tokenizer: Any = None,
    generation_config: Any = None,
    generation: bool | None = None,
    shared_state: bool = False,
    **options: Any,
) -> Module:
    """MLIR text (or a file) → a loaded `Module`: `compile_vmfb`, then `load` (on
    ``device``: by default the best the module and this machine share). ``target`` is
    this machine's CPU (``"cpu:host"``) by default, since the module runs here; any of
    `compile_vmfb`'s targets may be given.

    ``source`` may also be a framework's object (`abi_compiler.frontends`: a
    `jax.export.Exported`, a `torch.export.ExportedProgram`, an ONNX model, a SavedModel
    directory): its function then takes the original call and returns the original
    result, exactly as the `.vmfb` of `compile_vmfb` loaded by `load`, which is what this
    is (a torch program's big weights go beside the module, as named parameters: see
    docs/calling.md, "Big weights"; its container classes are the program's own, as
    ``types``, unless given; a JAX export's result is built by its own ``out_tree``, as
    `Exported.call` builds it, unless ``types`` are given); ``options`` go to its frontend's `program` (a
    SavedModel's ``signature`` or ``signatures``, a JAX export's ``platform``). A mapping
    ``{name: source}`` of any of these gives one module with one function per entry, named
    by its key (a link error is an `AbiError`); its torch programs' big weights go beside
    it too, one parameter for the entries that share a weight. ``tokenizer``,
    ``generation_config``, ``generation`` and ``shared_state`` as `compile_vmfb`."""
    parameters: dict[str, Any] = {}
    inputs = _records(source)
    unflatten: dict[str, Callable[[list[Any]], Any]] = {}
    if isinstance(source, Mapping):
        if types is None:
            unflatten = _entry_unflattens(source)
        # Torch entries keep big weights out of the text here too, one parameter per name
        # and bytes (`lower_entries`): the module is loaded with them.
        with progress_for("abi_compiler.iree", progress).stage("import and lower"):
            generating = _generating(generation, tokenizer, generation_config)
            source = _linked(source, pipeline, options, parameters, shared_state, generating)
        pipeline, options = None, {}
    elif frontend_name(source) is not None:
        with progress_for("abi_compiler.iree", progress).stage(f"import ({frontend_name(source)})"):
            program = frontend_program(source, **options)
        source, options, parameters = program.mlir, {}, program.parameters
        if types is None and program.types:
            types = program.types
        if types is None and program.unflatten is not None:
            unflatten[program.function] = program.unflatten
    vmfb = compile_vmfb(
        source,
        pipeline,
        target=target,
        extra_args=extra_args,
        name=name,
        inputs=inputs,
        progress=progress,
        tokenizer=tokenizer,
        generation_config=generation_config,
        generation=generation,
        **options,
    )
    module = load(
        vmfb,
        device=device,
        convert=convert,
        results=results,
        types=types,
        parameters=parameters or None,
    )
    module.unflatten.update(unflatten)
    return module


def _entry_unflattens(sources: Mapping[str, object]) -> dict[str, Callable[[list[Any]], Any]]:
    """The framework's own unflatten of each entry's result that has one (a JAX export's,
    or a `Program`'s), by entry name."""
    from abi_compiler.frontends import Program

    found: dict[str, Callable[[list[Any]], Any]] = {}
    for key, entry in sources.items():
        if isinstance(entry, Program) and entry.unflatten is not None:
            found[str(key)] = entry.unflatten
        elif frontend_name(entry) == "jax":
            from abi_compiler.frontends.jax import result_unflatten

            found[str(key)] = result_unflatten(entry)
    return found


def _linked(
    sources: Mapping[str, object],
    pipeline: str | None,
    options: dict[str, Any],
    parameters: dict[str, Any] | None = None,
    shared_state: bool = False,
    generating: bool = False,
) -> str:
    """A mapping of sources → one lowered module (`abi_compiler.frontends.entries`); with
    ``parameters``, the entries' named parameters are gathered there. ``generating`` with
    ``shared_state``: each torch prompt program gets its prefill function beside it
    (`abi_compiler.frontends.generation_job.with_prefill_entries`)."""
    from abi_compiler.frontends.entries import lower_entries

    if generating and shared_state:
        from abi_compiler.frontends.generation_job import with_prefill_entries

        sources = with_prefill_entries(sources)

    def lower_one(entry: Any, entry_pipeline: str, entry_name: str) -> str:
        return lower(entry, entry_pipeline, name=entry_name)

    return lower_entries(
        sources, pipeline, lower_one, parameters=parameters, shared_state=shared_state, **options
    )
