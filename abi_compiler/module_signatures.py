"""The calling convention of every function a module exports (`abi-sig show`, `abi-sig
diff`; docs/formats.md, "Reading a module's calling convention").

A module is MLIR text (any dialects), MLIR bytecode (`abi_compiler.bytecode`) or a
compiled `.vmfb` (read through IREE's runtime, the ``iree`` extra). Each function's
signature is the one model (`abi_compiler.model.Signature`), taken from

* its V1 ``iree.abi`` reflection (``source`` ``"iree.abi"``), else
* its legacy ``f`` + ``sip`` pair, mapped to the same records
  (`model.signature_from_legacy`; ``"legacy"``), else
* its function type: each argument and result one record of its type, positional
  (``"type"``; shown with ``  (no reflection)``). In a `.vmfb` that is the type IREE's
  ``iree.abi.declaration`` names, or else only what the VM calling convention says
  (``i32``/``i64``/``f32``/``f64`` values and references, ``?``).

MLIR text is read as carried text (docs/carried-text.md): only function headers are
parsed, never bodies, so ops of any dialect may stand in them. The exported functions are
those of SPEC §2 (`passes/structure.py`, `is_exported`); in a TensorFlow saved model a
function is listed under its exported name. `caller_visible` tells the functions a caller
calls from those the compiler made for itself (``$async`` variants, the VM's ``__init``).

Importing this module imports no xDSL; reading MLIR text does (`read_functions`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from abi_compiler import bytecode
from abi_compiler.attribute_names import (
    ABI_CALL,
    ABI_DECLARATION,
    IREE_ABI,
    RAW,
    REFLECTION,
    SIP,
)
from abi_compiler.call_model import OriginalCall
from abi_compiler.codecs.call_json import decode_call
from abi_compiler.codecs.json_abi import decode_json, format_declaration
from abi_compiler.codecs.raw import decode_raw
from abi_compiler.codecs.sip import decode_sip
from abi_compiler.errors import AbiError
from abi_compiler.model import (
    Argument,
    Leaf,
    Node,
    Scalar,
    Signature,
    Unknown,
    ValueType,
    signature_from_legacy,
)
from abi_compiler.text import lexer

Source = Literal["iree.abi", "legacy", "type"]

#: What ends the line of a function shown from its type (SPEC §9.1).
NO_REFLECTION = "  (no reflection)"


@dataclass(frozen=True, slots=True)
class FunctionSignature:
    """One exported function: its name, its signature and where that came from."""

    name: str
    signature: Signature
    source: Source
    #: The original call of a framework's function (`abi.call`), when it has one.
    call: OriginalCall | None = None

    @property
    def caller_visible(self) -> bool:
        return caller_visible(self.name)

    def line(self) -> str:
        """``main(tensor<?x4xf32>, x: i32) -> (tensor<4xf32>)``: the function as `abi-sig
        show` prints it."""
        suffix = NO_REFLECTION if self.source == "type" else ""
        return f"{self.name}{format_declaration(self.signature)}{suffix}"


# `global$<name>$get` / `global$<name>$set`: the accessors IREE exports for a public
# `ml_program.global` (TensorFlow variables).
_GLOBAL_ACCESSOR = re.compile(r"global\$.*\$(?:get|set)")


def caller_visible(name: str) -> bool:
    """Whether a caller calls the function ``name``, as opposed to what IREE's compiler
    exports for itself: the VM's ``__init``/``__deinit``, the ``$async`` variant of a
    function (coarse-fences ABI, torch input), a global's accessors."""
    return not (
        name.startswith("__") or name.endswith("$async") or _GLOBAL_ACCESSOR.fullmatch(name)
    )


class ReadError(Exception):
    """A module that cannot be read. ``position`` is ``file:line:col`` or ``file`` (None
    for a problem with no input position: the diagnostic then starts with the tool's
    name); ``notes`` are (position, message) pairs printed after it."""

    def __init__(
        self,
        message: str,
        position: str | None = None,
        notes: Sequence[tuple[str | None, str]] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.position = position
        self.notes = tuple(notes)

    def lines(self, prog: str) -> list[str]:
        """The diagnostic lines (SPEC §11): the error, then its notes."""
        found = [f"{self.position or prog}: error: {self.message}"]
        found += [f"{where or prog}: note: {message}" for where, message in self.notes]
        return found


@dataclass(frozen=True, slots=True)
class HeaderFunction:
    """What a module's text says about one top-level `func.func`: its name (the exported
    name in a saved model), where it is (``file:line:col``), whether it is exported, its
    reflection entries (None for an entry that is not a string) and the signature of its
    function type."""

    name: str
    position: str
    exported: bool
    reflection: dict[str, str | None]
    types: Signature


# --------------------------------------------------------------------------------------
# Reading an input.
# --------------------------------------------------------------------------------------


def is_vmfb(data: bytes) -> bool:
    """A compiled IREE module: a FlatBuffer with IREE's file identifier, or the ZIP
    archive `iree-compile` wraps it in."""
    return data[4:8] == b"IREE" or data.startswith(b"PK\x03\x04")


def read_module(data: bytes, name: str) -> list[FunctionSignature]:
    """The exported functions of a module file's contents, in the module's order (``name``
    names the file in diagnostics); `ReadError` when it cannot be read."""
    if is_vmfb(data):
        return read_vmfb(data, name)
    if bytecode.is_bytecode(data):
        try:
            data = bytecode.to_text(data).encode("utf-8")
        except bytecode.BytecodeError as error:
            raise ReadError(error.message, name) from None
    functions = read_functions(data, name)
    seen: dict[str, str] = {}
    for function in functions:
        if function.name in seen:  # MLIR's verifier says so; the header reader does not
            raise ReadError(
                f"redefinition of symbol named '{function.name}'",
                function.position,
                [(seen[function.name], "see existing symbol definition here")],
            )
        seen[function.name] = function.position
    return [
        _signature(function.name, function.reflection, function.types, function.position)
        for function in functions
        if function.exported
    ]


def _signature_source(reflection: dict[str, str | None]) -> Source:
    if IREE_ABI in reflection:
        return "iree.abi"
    if RAW in reflection and SIP in reflection:
        return "legacy"
    return "type"


def _signature(
    name: str, reflection: dict[str, str | None], types: Signature, position: str
) -> FunctionSignature:
    """The function's signature from its reflection (V1, else legacy), else its type."""
    if IREE_ABI in reflection:
        call = _decoded(name, reflection, ABI_CALL, position) if ABI_CALL in reflection else None
        signature = _decoded(name, reflection, IREE_ABI, position)
        return FunctionSignature(name, signature, "iree.abi", call)
    if RAW in reflection and SIP in reflection:
        flat = _decoded(name, reflection, RAW, position)
        sip = _decoded(name, reflection, SIP, position)
        try:
            return FunctionSignature(name, signature_from_legacy(flat, sip), "legacy")
        except AbiError as error:
            raise ReadError(f"@{name}: malformed reflection 'sip': {error}", position) from None
    return FunctionSignature(name, types, "type")


_DECODERS: dict[str, Callable[[str], Any]] = {
    ABI_CALL: decode_call,
    IREE_ABI: decode_json,
    RAW: decode_raw,
    SIP: decode_sip,
}


def _decoded(name: str, reflection: dict[str, str | None], key: str, position: str) -> Any:
    """The decoded reflection entry ``key`` of function ``name``; `ReadError` at
    ``position`` when it does not decode."""
    value = reflection[key]
    try:
        if value is None:
            raise AbiError("not a string")
        return _DECODERS[key](value)
    except AbiError as error:
        raise ReadError(f"@{name}: malformed reflection '{key}': {error}", position) from None


# --------------------------------------------------------------------------------------
# MLIR text: the function headers.
# --------------------------------------------------------------------------------------


def read_functions(data: str | bytes, name: str) -> list[HeaderFunction]:
    """Every top-level `func.func` of an MLIR module (text, or its UTF-8 bytes), read from
    its header alone: bodies are carried, never parsed (SPEC §8.6). ``name`` names the
    input in diagnostics; `ReadError` for text that is not a module.

    Read by the pipeline library with no passes (`Pipeline.read`: the carried-text
    scanner, the header reader and the locating parser)."""
    from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, StringAttr
    from xdsl.dialects.func import FuncOp

    from abi_compiler.dialects import tf_saved_model
    from abi_compiler.passes import structure
    from abi_compiler.pipeline import Options, Pipeline, PipelineError
    from abi_compiler.pipeline.diagnostics import one_line
    from abi_compiler.pipeline.source import checked_source, read_source

    # No passes: headers parsed, bodies carried. Any dialect (also where the pipeline
    # parses a whole module because the scanner does not know its shape).
    try:
        if isinstance(data, bytes):
            source = read_source(data, name)
        else:
            source = checked_source(name, data.removeprefix("\ufeff"))
        module, table = Pipeline((), Options(allow_unregistered_dialect=True)).read(source)
    except PipelineError as error:
        diagnostic = error.diagnostics[0]
        raise ReadError(
            one_line(diagnostic.message),
            diagnostic.position or diagnostic.file,
            [(note.position or note.file, one_line(note.message)) for note in diagnostic.notes],
        ) from None
    saved_model = structure.is_saved_model(module)
    found: list[HeaderFunction] = []
    for func in module.body.ops:
        if not isinstance(func, FuncOp):
            continue
        offset = table.offset_of(func)
        position = name if offset is None else source.position(offset)
        symbol = func.sym_name.data
        exported_names = func.attributes.get(tf_saved_model.EXPORTED_NAMES)
        if saved_model and isinstance(exported_names, ArrayAttr):
            names = [n.data for n in exported_names.data if isinstance(n, StringAttr)]
            if len(names) == 1:
                symbol = names[0]
        reflection: dict[str, str | None] = {}
        bare = func.attributes.get(IREE_ABI)  # a frontend's, SPEC §7
        if bare is not None:
            reflection[IREE_ABI] = bare.data if isinstance(bare, StringAttr) else None
        entries = func.attributes.get(REFLECTION)
        if isinstance(entries, DictionaryAttr):
            for key, value in entries.data.items():
                reflection[key] = value.data if isinstance(value, StringAttr) else None
        counter = [0]
        arguments = tuple(
            Argument(i, structure.node_for_type(t, counter))
            for i, t in enumerate(func.function_type.inputs.data)
        )
        counter = [0]
        results = tuple(structure.node_for_type(t, counter) for t in func.function_type.outputs)
        found.append(
            HeaderFunction(
                symbol,
                position,
                structure.is_exported(func, saved_model),
                reflection,
                Signature(arguments, results),
            )
        )
    return found


# --------------------------------------------------------------------------------------
# Compiled modules (.vmfb).
# --------------------------------------------------------------------------------------

NEEDS_RUNTIME = (
    "input is a compiled IREE module: install abi-compiler[iree] (IREE's runtime) to read it"
)

# IREE's declaration of a function it gave its own ABI: `sync func @f(%input0: T, …) ->
# (%output0: T, …)` (`async` for the coarse-fences model).
_DECLARATION = re.compile(r"(?:a?sync )?func @[^(]*\((?P<arguments>.*)\) -> \((?P<results>.*)\)")
_VALUE_NAME = re.compile(rf"{lexer.SSA_NAME.pattern}\s*:\s*")
# The VM calling convention's value codes (`0rIi_r`: version 0, arguments, `_`, results).
_CALLING_CONVENTION_TYPES: dict[str, ValueType] = {
    "i": Scalar("i", 32),
    "I": Scalar("i", 64),
    "f": Scalar("f", 32),
    "F": Scalar("f", 64),
    "r": Unknown(),
}


_NO_TYPES = Signature((), ())


def read_vmfb(data: bytes, name: str) -> list[FunctionSignature]:
    """The functions of a compiled module, in the module's order."""
    try:
        from iree import runtime
    except ImportError:
        raise ReadError(NEEDS_RUNTIME, name) from None
    try:
        module = runtime.VmModule.copy_buffer(runtime.VmInstance(), data)
    except (RuntimeError, ValueError) as error:
        message = " ".join(str(error).split())
        raise ReadError(f"cannot load the compiled module: {message}", name) from None
    functions = [module.lookup_function(name) for name in module.function_names]
    reflections: list[dict[str, str | None]] = [dict(f.reflection) for f in functions]
    # Only functions without reflection are shown from their types: IREE's declaration
    # of them, read in one go.
    untyped = [
        i for i, reflection in enumerate(reflections) if _signature_source(reflection) == "type"
    ]
    declared = _declared_signatures([reflections[i].get(ABI_DECLARATION) for i in untyped])
    types = dict(zip(untyped, declared, strict=True))
    found = []
    for i, (function, reflection) in enumerate(zip(functions, reflections, strict=True)):
        signature = types.get(i, _NO_TYPES)  # not read: the reflection says it all
        if signature is None:
            signature = _calling_convention_signature(function.name, repr(function), name)
        found.append(_signature(function.name, reflection, signature, name))
    return found


def _declared_signatures(declarations: list[str | None]) -> list[Signature | None]:
    """The types each of IREE's ``iree.abi.declaration`` texts names (None where there is
    none, or where its text is not a function declaration)."""
    headers: list[str | None] = []
    for declaration in declarations:
        match = None if declaration is None else _DECLARATION.fullmatch(declaration)
        if match is None:
            headers.append(None)
            continue
        results = _VALUE_NAME.sub("", match["results"])
        headers.append(f"({match['arguments']}) -> ({results})")
    written = [(i, header) for i, header in enumerate(headers) if header is not None]
    found: list[Signature | None] = [None] * len(headers)
    if not written:
        return found
    try:
        text = "".join(f"func.func @f{i}{header} {{\n}}\n" for i, header in written)
        for (i, _), function in zip(written, read_functions(text, "<declarations>"), strict=True):
            found[i] = function.types
    except ReadError:  # one of them is not MLIR xDSL reads: each on its own
        for i, header in written:
            try:
                (function,) = read_functions(f"func.func @f{header} {{\n}}\n", "<declaration>")
                found[i] = function.types
            except ReadError:
                pass
    return found


def _calling_convention_signature(function_name: str, shown: str, name: str) -> Signature:
    """The signature the VM calling convention gives (``shown`` is the function's repr,
    ``<VmFunction f(0rIi_r), reflection = {…}>``, the only place IREE's Python runtime
    shows it)."""
    prefix = f"<VmFunction {function_name}("
    end = shown.find(")", len(prefix))
    convention = shown[len(prefix) : end] if shown.startswith(prefix) and end > 0 else ""
    inputs, separator, outputs = convention[1:].partition("_")
    if not convention.startswith("0") or not separator:
        raise ReadError(f"@{function_name}: unknown VM calling convention {convention!r}", name)

    def nodes(codes: str) -> list[Node]:
        types = [_CALLING_CONVENTION_TYPES.get(code, Unknown()) for code in codes if code != "v"]
        return [Leaf(t, i) for i, t in enumerate(types)]

    arguments = tuple(Argument(i, node) for i, node in enumerate(nodes(inputs)))
    return Signature(arguments, tuple(nodes(outputs)))
