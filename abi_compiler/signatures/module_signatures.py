"""The calling convention of every function a module exports (`abi-sig show`, `abi-sig
diff`; docs/formats.md, "Reading a module's calling convention").

A module is MLIR text (any dialects), MLIR bytecode (`abi_compiler.text.bytecode`) or a
compiled `.vmfb` (read through IREE's runtime, the ``iree`` extra). Each function's
signature is the one model (`abi_compiler.model.Signature`), taken from

* its V1 ``iree.abi`` reflection (``source`` ``"iree.abi"``), else
* its legacy ``f`` + ``sip`` pair, mapped to the same records
  (`model.signature_from_legacy`; ``"legacy"``), else
* in MLIR text, the structure `abi-opt -p materialize-iree-abi` reads (JAX pytree paths,
  index paths, `abi.name`) where it says more than the type (``"structure"``; shown with
  ``  (from JAX paths, no reflection)``), else
* its function type: each argument and result one record of its type, positional
  (``"type"``; shown with ``  (no reflection)``). In a `.vmfb` that is the type IREE's
  ``iree.abi.declaration`` names, or else only what the VM calling convention says
  (``i32``/``i64``/``f32``/``f64`` values and references, ``?``).

MLIR text is read as carried text (docs/carried-text.md): only function headers are
parsed, never bodies, so ops of any dialect may stand in them. The exported functions are
those of docs/spec.md §2 (`passes/structure.py`, `is_exported`); in a TensorFlow saved model a
function is listed under its exported name. `caller_visible` tells the functions a caller
calls from those the compiler made for itself (``$async`` variants, the VM's ``__init``).

Importing this module imports no xDSL; reading MLIR text does (`read_functions`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass
from typing import Any, Literal

from abi_compiler.attribute_names import (
    ABI_CALL,
    ABI_DECLARATION,
    ABI_GENERATION,
    ABI_PROVENANCE,
    ABI_STATE,
    IREE_ABI,
    RAW,
    REFLECTION,
    SIP,
)
from abi_compiler.call_model import OriginalCall
from abi_compiler.codecs.call_json import decode_call
from abi_compiler.codecs.generation_json import GenerationRecord, decode_generation
from abi_compiler.codecs.json_abi import (
    decode_json,
    format_declaration,
    format_leaf_type,
    record_for_type,
)
from abi_compiler.codecs.lexical import printable
from abi_compiler.codecs.provenance_json import Provenance, decode_provenance
from abi_compiler.codecs.raw import decode_raw
from abi_compiler.codecs.sip import decode_sip
from abi_compiler.codecs.state_json import StateGlobal, decode_state, format_state
from abi_compiler.errors import AbiError
from abi_compiler.model import (
    Argument,
    Dict,
    Leaf,
    ListRef,
    NDArray,
    Node,
    Scalar,
    Sequence,
    Signature,
    Unknown,
    ValueType,
    children,
    leaves,
    signature_from_legacy,
)
from abi_compiler.text import bytecode, lexer

Source = Literal["iree.abi", "legacy", "type", "structure"]

#: What ends the line of a function shown from its type (docs/spec.md §9.1).
NO_REFLECTION = "  (no reflection)"
#: … and of one shown from the structure `abi-opt` reads (``origin``: JAX paths, index
#: paths), before any pass wrote its reflection.
FROM_STRUCTURE = "  (from {origin}, no reflection)"


@dataclass(frozen=True, slots=True)
class FunctionSignature:
    """One exported function: its name, its signature and where that came from."""

    name: str
    signature: Signature
    source: Source
    #: For ``source`` ``"structure"``: what the structure was read from.
    origin: str | None = None
    #: The original call of a framework's function (`abi.call`), when it has one.
    call: OriginalCall | None = None
    #: How the module was made (`abi.provenance`), when it says.
    provenance: Provenance | None = None
    #: The module state it reads or writes (`abi.state`, or its `abi.call`'s), when it
    #: uses any.
    state: tuple[StateGlobal, ...] | None = None
    #: The language model's generation job (`abi.generation`), when it records one.
    generation: GenerationRecord | None = None

    @property
    def caller_visible(self) -> bool:
        return caller_visible(self.name)

    def line(self) -> str:
        """``main(tensor<?x4xf32>, x: i32) -> (tensor<4xf32>)``: the function as `abi-sig
        show` prints it."""
        suffix = NO_REFLECTION if self.source == "type" else ""
        if self.source == "structure":
            suffix = FROM_STRUCTURE.format(origin=self.origin)
        return f"{self.name}{format_declaration(self.signature)}{suffix}"


# `global$<name>$get` / `global$<name>$set`: the accessors IREE exports for a public
# `ml_program.global` (TensorFlow variables).
_GLOBAL_ACCESSOR = re.compile(r"global\$.*\$(?:get|set)")
# The functions IREE's VM reserves for a module's own life cycle.
_VM_FUNCTIONS = frozenset({"__init", "__deinit", "__notify"})


def caller_visible(name: str) -> bool:
    """Whether a caller calls the function ``name``, as opposed to what IREE's compiler
    exports for itself: the VM's ``__init``/``__deinit``/``__notify``, the ``$async``
    variant of a function (coarse-fences ABI, torch input), a global's accessors. Any
    other name is a caller's, whatever it starts with (TensorFlow exports ``__call__``)."""
    return not (
        name in _VM_FUNCTIONS or name.endswith("$async") or _GLOBAL_ACCESSOR.fullmatch(name)
    )


# A public function's definition in MLIR text: its name, bare or quoted.
_PUBLIC_FUNCTION = re.compile(
    r'^\s*(?:func\.func|util\.func)\s+(?:public\s+)?@("(?:[^"\\]|\\.)*"|[\w$.-]+)', re.MULTILINE
)


def reserved_name_error(name: str) -> str | None:
    """Why a module cannot export a function ``name`` (None: it can): the names that
    `caller_visible` says are IREE's own. A module exporting one does not load (the VM's
    life-cycle functions) or exports a function no caller reaches."""
    if caller_visible(name):
        return None
    return (
        f"the function name '{name}' is one IREE reserves (the VM's __init, __deinit and "
        "__notify, a function's $async variant, a global's global$<name>$get/$set "
        "accessors): the module would not load, or nobody could call the function; give "
        "it another name"
    )


def reserved_functions(text: str) -> list[str]:
    """The public functions of MLIR ``text`` whose names IREE reserves
    (`reserved_name_error`), in order."""
    found = []
    for match in _PUBLIC_FUNCTION.finditer(text):
        name = match.group(1)
        if name.startswith('"'):
            name = name[1:-1]
        if not caller_visible(name):
            found.append(name)
    return found


class ReadError(Exception):
    """A module that cannot be read. ``position`` is ``file:line:col`` or ``file`` (None
    for a problem with no input position: the diagnostic then starts with the tool's
    name); ``notes`` are (position, message) pairs printed after it."""

    def __init__(
        self,
        message: str,
        position: str | None = None,
        notes: SequenceABC[tuple[str | None, str]] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.position = position
        self.notes = tuple(notes)

    def lines(self, prog: str) -> list[str]:
        """The diagnostic lines (docs/spec.md §11): the error, then its notes, each on one
        line (a name in the message keeps a line break it holds as ``\\n``)."""
        found = [f"{self.position or prog}: error: {printable(self.message)}"]
        found += [f"{where or prog}: note: {printable(message)}" for where, message in self.notes]
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
    #: Its symbol name, when ``name`` is another (a saved model's exported name).
    symbol: str | None = None


# --------------------------------------------------------------------------------------
# Reading an input.
# --------------------------------------------------------------------------------------


def is_vmfb(data: bytes) -> bool:
    """A compiled IREE module: a FlatBuffer with IREE's file identifier, or the ZIP
    archive `iree-compile` wraps it in."""
    return data[4:8] == b"IREE" or data.startswith(ZIP_MAGIC)


ZIP_MAGIC = b"PK\x03\x04"


def is_vmfb_archive(head: bytes) -> bool:
    """Of ZIP archives, the one `iree-compile` wraps a module in: its first member is
    `module.fb` (a torch archive's first member is in a folder)."""
    if not head.startswith(ZIP_MAGIC) or len(head) < 30:
        return False
    length = int.from_bytes(head[26:28], "little")
    return head[30 : 30 + length] == b"module.fb"


def not_a_module(data: bytes) -> str | None:
    """What a file that is no compiled module seems to be, for a message: a torch program
    (a ZIP archive that is not IREE's), MLIR bytecode or text; None for an IREE module or
    bytes it cannot name."""
    if data[4:8] == b"IREE" or is_vmfb_archive(data[:64]):
        return None
    if data.startswith(ZIP_MAGIC):
        return "a ZIP archive, not a compiled module (a torch.export .pt2 program?)"
    if bytecode.is_bytecode(data):
        return "MLIR bytecode, not a compiled module"
    head = data[:256].lstrip()
    if head.startswith((b"module", b"func.func", b"#loc", b"builtin.module", b"util.func")):
        return "MLIR text, not a compiled module"
    return None


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
    found = [
        _signature(function.name, function.reflection, function.types, function.position)
        for function in functions
        if function.exported
    ]
    if any(function.source == "type" for function in found):
        found = _with_structure(data, name, found)
    if b"mutable" in data:
        symbols = {f.name: f.symbol or f.name for f in functions if f.exported}
        found = _with_text_state(data, symbols, found)
    return found


def _with_text_state(
    data: bytes, symbols: dict[str, str], found: list[FunctionSignature]
) -> list[FunctionSignature]:
    """``found`` with the state each function of MLIR text uses where its reflection
    records none, read from the text as compiling it would record it
    (`abi_compiler.text.state`): before `compile_vmfb`, MLIR says what a `.vmfb` of it
    will (``symbols``: each function's symbol name, by its name). Text the scanner does
    not read has none."""
    from abi_compiler.text import carry, lexer
    from abi_compiler.text.state import function_state

    try:
        used = function_state(data.decode("utf-8").removeprefix("\ufeff"))
    except (UnicodeDecodeError, carry.ScanError, lexer.LexError):
        return found
    return [
        dataclasses.replace(f, state=tuple(used[symbols[f.name]]))
        if f.state is None and symbols.get(f.name) in used
        else f
        for f in found
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
    """`_signature_of`, with the state the function uses: its `abi.state`, or its
    `abi.call`'s ``state``; where both record it, they must agree."""
    found = _signature_of(name, reflection, types, position)
    if ABI_GENERATION in reflection:
        job = _decoded(name, reflection, ABI_GENERATION, position)
        found = dataclasses.replace(found, generation=job)
    recorded = found.call.state if found.call is not None and found.call.state else None
    if ABI_STATE not in reflection:
        return found if recorded is None else dataclasses.replace(found, state=recorded)
    state = tuple(_decoded(name, reflection, ABI_STATE, position))
    if recorded is not None and recorded != state:
        raise ReadError(
            f"@{name}: reflection '{ABI_CALL}' and '{ABI_STATE}' record different state: "
            f"{format_state(list(recorded))}; {format_state(list(state))}",
            position,
        )
    return dataclasses.replace(found, state=state)


def _signature_of(
    name: str, reflection: dict[str, str | None], types: Signature, position: str
) -> FunctionSignature:
    """The function's signature from its reflection (V1, else legacy), else its type
    (``types``, whose leaves also give the reflection's leaves their `Leaf.element`)."""
    made = (
        _decoded(name, reflection, ABI_PROVENANCE, position)
        if ABI_PROVENANCE in reflection
        else None
    )
    if IREE_ABI in reflection:
        call = _decoded(name, reflection, ABI_CALL, position) if ABI_CALL in reflection else None
        signature = _decoded(name, reflection, IREE_ABI, position)
        return FunctionSignature(
            name, _elements_by_root(signature, types), "iree.abi", call=call, provenance=made
        )
    if RAW in reflection and SIP in reflection:
        flat = _decoded(name, reflection, RAW, position)
        sip = _decoded(name, reflection, SIP, position)
        try:
            signature = signature_from_legacy(flat, sip)
        except AbiError as error:
            raise ReadError(f"@{name}: malformed reflection 'sip': {error}", position) from None
        return FunctionSignature(
            name, _elements_by_index(signature, types), "legacy", provenance=made
        )
    return FunctionSignature(name, types, "type", provenance=made)


# --------------------------------------------------------------------------------------
# Element types the records do not name (`Leaf.element`): from the function type.
# --------------------------------------------------------------------------------------


def _with_element(node: Node | None, typed: Node | None) -> Node | None:
    """``node`` with the element spelling of ``typed`` when both are leaves of one record
    (the function type says the same value the record does), or the whole type's
    spelling when the record is "unknown" (the legacy `f` has no name for an f8 tensor)."""
    if not isinstance(node, Leaf) or not isinstance(typed, Leaf) or typed.element is None:
        return node
    if record_for_type(node.type) == record_for_type(typed.type):
        return Leaf(node.type, node.index, typed.element)
    if isinstance(node.type, Unknown):
        return Leaf(node.type, node.index, format_leaf_type(typed))
    return node


def _elements_by_root(signature: Signature, types: Signature) -> Signature:
    """A V1 signature's root leaves with the element types of the function's own
    arguments and results at the same positions (of the function a caller calls: its
    structures are lists there, whose items the type does not describe)."""
    arguments = list(signature.arguments)
    for i, (argument, typed) in enumerate(zip(arguments, types.arguments, strict=False)):
        node = _with_element(argument.node, typed.node)
        arguments[i] = Argument(
            argument.key, argument.node if node is None else node, argument.name
        )
    results = list(signature.results)
    only = results[0] if len(results) == 1 else None
    if isinstance(only, Sequence) and len(only.items) == len(types.results):
        # A single structured result is returned inlined: its items are the results.
        items = (_with_element(i, t) for i, t in zip(only.items, types.results, strict=True))
        results = [Sequence(only.kind, tuple(items))]
    elif isinstance(only, Dict) and len(only.items) == len(types.results):
        entries = zip(only.items, types.results, strict=True)
        results = [Dict(tuple((key, _with_element(i, t) or i) for (key, i), t in entries))]
    elif len(results) == len(types.results):
        results = [_with_element(r, t) or r for r, t in zip(results, types.results, strict=True)]
    return Signature(tuple(arguments), tuple(results))


def _elements_by_index(signature: Signature, types: Signature) -> Signature:
    """A legacy signature's leaves with the element types of the flat arguments and
    results they index (`f` describes the function's own flat values)."""
    argument_leaves = {
        leaf.index: leaf for argument in types.arguments for leaf in leaves(argument.node)
    }
    result_leaves = {leaf.index: leaf for node in types.results for leaf in leaves(node)}

    def spelled(node: Node, typed: dict[int, Leaf]) -> Node:
        if isinstance(node, Leaf):
            return _with_element(node, typed.get(node.index)) or node
        if isinstance(node, Sequence):
            items = tuple(None if i is None else spelled(i, typed) for i in node.items)
            return Sequence(node.kind, items)
        return Dict(tuple((key, spelled(item, typed)) for key, item in node.items))

    return Signature(
        tuple(
            Argument(a.key, spelled(a.node, argument_leaves), a.name) for a in signature.arguments
        ),
        tuple(spelled(node, result_leaves) for node in signature.results),
    )


_DECODERS: dict[str, Callable[[str], Any]] = {
    ABI_CALL: decode_call,
    ABI_PROVENANCE: decode_provenance,
    ABI_STATE: decode_state,
    ABI_GENERATION: decode_generation,
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
    its header alone: bodies are carried, never parsed (docs/spec.md §8.6). ``name`` names the
    input in diagnostics; `ReadError` for text that is not a module.

    Read by the pipeline library with no passes (`Pipeline.read`: the carried-text
    scanner, the header reader and the locating parser)."""
    from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, StringAttr
    from xdsl.dialects.func import FuncOp
    from xdsl.ir import Attribute

    from abi_compiler.dialects import tf_saved_model
    from abi_compiler.passes import structure
    from abi_compiler.pipeline import Options, Pipeline, PipelineError
    from abi_compiler.pipeline.run_diagnostics import one_line
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
    spellings: dict[Attribute, str | None] = {}

    def element(type: Attribute) -> str | None:
        """How the module spells a leaf's element type (the type itself for a scalar or
        an unknown type; None for a list, whose items the records describe)."""
        if type not in spellings:
            value = structure.value_type(type)
            if isinstance(value, ListRef):
                spellings[type] = None
            elif isinstance(value, NDArray):
                inner = getattr(type, "element_type", None)
                spellings[type] = structure.type_text(inner) if inner is not None else None
            else:
                spellings[type] = structure.type_text(type)
        return spellings[type]

    def spelled(type: Attribute, node: Node) -> Node:
        """``node`` (the structure of ``type``) with each leaf's `Leaf.element`."""
        items = structure.type_items(type)
        if isinstance(node, Leaf):
            return Leaf(node.type, node.index, element(type))
        assert items is not None  # node_for_type made a structure of it
        inner = [spelled(t, n) for (_, t), (_, n) in zip(items, children(node), strict=True)]
        if isinstance(node, Sequence):
            return Sequence(node.kind, tuple(inner))
        return Dict(tuple((key, n) for (key, _), n in zip(node.items, inner, strict=True)))

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
        bare = func.attributes.get(IREE_ABI)  # a frontend's, docs/spec.md §7
        if bare is not None:
            reflection[IREE_ABI] = bare.data if isinstance(bare, StringAttr) else None
        entries = func.attributes.get(REFLECTION)
        if isinstance(entries, DictionaryAttr):
            for key, value in entries.data.items():
                reflection[key] = value.data if isinstance(value, StringAttr) else None
        try:
            counter = [0]
            arguments = tuple(
                Argument(i, spelled(t, structure.node_for_type(t, counter, ("argument", i))))
                for i, t in enumerate(func.function_type.inputs.data)
            )
            counter = [0]
            results = tuple(
                spelled(t, structure.node_for_type(t, counter, ("result", i)))
                for i, t in enumerate(func.function_type.outputs)
            )
        except AbiError as error:  # a structure nested too deeply
            where = "" if error.where is None else f"{error.where[0]} {error.where[1]}: "
            raise ReadError(f"@{func.sym_name.data}: {where}{error}", position) from None
        found.append(
            HeaderFunction(
                symbol,
                position,
                structure.is_exported(func, saved_model),
                reflection,
                Signature(arguments, results),
                None if symbol == func.sym_name.data else func.sym_name.data,
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
    # IREE's runtime verifies the module as it loads it; what it refuses comes back as
    # one of several Python exceptions (`IndexError` among them), and a name or
    # reflection entry that is not UTF-8 as the bindings' `RuntimeError`.
    try:
        module = runtime.VmModule.copy_buffer(runtime.VmInstance(), data)
    except Exception as error:
        raise ReadError(f"cannot load the compiled module: {_one_line(error)}", name) from None
    try:
        names = list(module.function_names)
        functions = [module.lookup_function(function) for function in names]
        reflections: list[dict[str, str | None]] = [dict(f.reflection) for f in functions]
        shown = [repr(function) for function in functions]
    except Exception as error:
        if isinstance(error, RuntimeError) and "conversion error" in str(error):
            message = "a function name or reflection entry in it is not valid UTF-8"
        else:
            message = _one_line(error)
        raise ReadError(f"cannot read the compiled module: {message}", name) from None
    # IREE's declarations of the functions, read in one go: the types of those without
    # reflection, the element types the records do not name for the others.
    declared = _declared_signatures([reflection.get(ABI_DECLARATION) for reflection in reflections])
    found = []
    for function, reflection, signature, text in zip(
        names, reflections, declared, shown, strict=True
    ):
        if signature is None:
            if _signature_source(reflection) == "type":
                signature = _calling_convention_signature(function, text, name)
            else:
                signature = _NO_TYPES  # the reflection says it all
        found.append(_signature(function, reflection, signature, name))
    return found


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())


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


# --------------------------------------------------------------------------------------
# Functions without reflection: the structure `abi-opt` would read.
# --------------------------------------------------------------------------------------


def _with_structure(
    data: bytes, name: str, found: list[FunctionSignature]
) -> list[FunctionSignature]:
    """``found`` with each function shown from its type replaced by the signature
    `abi-opt -p materialize-iree-abi` gives it (from JAX pytree paths, `abi.index_path`
    or `tf_saved_model.index_path`), where that differs from its type's: source
    ``"structure"``. A module the pass refuses keeps its types (the pass's diagnostics
    are `abi-opt`'s to give)."""
    import warnings

    from abi_compiler.pipeline import PipelineError, PipelineWarning, run_pipeline

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PipelineWarning)
            text = run_pipeline(
                data, "materialize-iree-abi", name=name, allow_unregistered_dialect=True
            )
        materialized = {f.name: f for f in read_functions(text, name) if f.exported}
    except (PipelineError, ReadError):
        return found
    origin = _structure_origin(data)
    shown: list[FunctionSignature] = []
    for function in found:
        header = materialized.get(function.name)
        abi = None if header is None else header.reflection.get(IREE_ABI)
        if function.source == "type" and abi is not None:
            try:
                signature = decode_json(abi)
            except AbiError:
                signature = function.signature
            if format_declaration(signature) != format_declaration(function.signature):
                function = FunctionSignature(function.name, signature, "structure", origin)
        shown.append(function)
    return shown


def _structure_origin(data: bytes) -> str:
    """What a module's structure is read from, as `abi-sig show` names it."""
    if b"jax.result_info" in data or b"jax.arg_info" in data:
        return "JAX paths"
    if b"index_path" in data:
        return "index paths"
    return "abi.name"
