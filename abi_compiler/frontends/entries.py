"""Several entry points in one module (docs/calling.md, "Several functions in one
module"): a mapping ``{name: source}`` → one MLIR module whose exported function ``name``
is each source's function, called as that source's function is.

Each source is lowered on its own first (a framework object through its frontend, MLIR
text or bytecode through the pipeline), so that every function carries its own
reflection (`iree.reflection`: the `iree.abi` records, and what a frontend adds); then
`link` puts the lowered modules together as text, with the scanner that carries bodies
(`abi_compiler.text.carry`):

* the entry's function is renamed to its key, and the references to it are redirected;
* the other top-level symbols (private functions, globals, nested modules) keep their
  names unless another entry (or a key) took them first; then they are renamed
  ``<key>_<name>`` (``_2``, ``_3``, … appended while that is taken too), and every
  reference in that entry's symbol table follows (`rename_symbols`: nested symbol
  tables keep their own names);
* alias definitions (`#map = …`, `!t = …`, location aliases `#loc3 = loc(…)`) of
  different entries are renamed apart the same way (``#loc3_2``), and their uses follow;
  each stays on its side of the module (before it or after it);
* the builtin resource blobs (`{-# dialect_resources: {builtin: {key: "0x…"}} #-}`, used
  as `dense_resource<key>`) of different entries are renamed apart the same way
  (``key_2``) unless they hold the same bytes, and their uses follow; the linked module
  has one resource section, and a clash left (another dialect's resource of one name and
  other bytes) is an error, never a module that computes with the wrong blob;
* the module's attributes are those every entry that sets them agrees on (a JAX export's
  `mhlo.num_partitions`, …); its name and location are dropped;
* with ``shared_state``, a mutable global (`util.global … mutable @name`) of a later entry
  that an earlier entry defines as well, with the same text, is that entry's: one global
  both functions read and write (a language model's prompt and step functions on one KV
  cache); the same name with another type or initial value is an error.

A function's attributes (its `iree.reflection` dictionary among them) are carried as
written: renaming touches symbol references and alias names only, never a string.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from abi_compiler.attribute_names import PARAMETER_SCOPE
from abi_compiler.errors import AbiError
from abi_compiler.frontends import Program, frontend_name
from abi_compiler.text import carry, lexer, resources
from abi_compiler.text.symbols import rename_symbols

__all__ = ["Entry", "link", "lower_entries"]


@dataclass(frozen=True)
class Entry:
    """One lowered module to link."""

    #: The exported function's name in the linked module (None: the function's own).
    key: str | None
    #: The module's MLIR text, lowered (its functions carry their reflection).
    text: str
    #: The function the entry's call reaches; None: the module's one public function.
    function: str | None = None
    #: What the source is called in errors (a file's path, ``<source>``).
    name: str = "<source>"


def link(entries: Sequence[Entry], *, shared_state: bool = False) -> str:
    """One module of the ``entries``' modules, each entry's function exported as its key
    (see the module's documentation); ``shared_state``: the entries' mutable globals of
    one name are one. Raises `AbiError` for a text the scanner cannot split, an entry with
    no public function (or several, and no ``function`` named), keys that repeat, and
    shared globals that differ."""
    if not entries:
        raise AbiError("no entries to link")
    layouts = [_layout(entry) for entry in entries]
    functions = [
        _entry_function(entry, layout) for entry, layout in zip(entries, layouts, strict=True)
    ]
    keys = [
        entry.key if entry.key is not None else function
        for entry, function in zip(entries, functions, strict=True)
    ]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise AbiError(f"entry names repeat: {', '.join(repeated)}")

    used_symbols = set(keys)
    used_aliases: set[str] = set()
    resource_renames, resource_section = _resources(entries, layouts)
    prologue: list[str] = []
    body: list[str] = []
    epilogue: list[str] = []
    attributes: list[list[tuple[str, str]]] = []
    # With shared_state: the mutable globals defined so far, by name → their text.
    state: dict[str, str] = {}
    for entry, key, layout, function, handles in zip(
        entries, keys, layouts, functions, resource_renames, strict=True
    ):
        text = layout.text
        symbols = {function: key}
        shared: set[tuple[int, int]] = set()
        for op in layout.ops:
            name = op.name if isinstance(op, carry.FuncText) else op.symbol
            if name is None or name == function:
                continue
            if name in state and _is_mutable_global(op, text):
                symbols[name] = name
                shared.add((op.start, op.end))
                continue
            symbols[name] = _fresh(name, key + "_" + name, used_symbols)
        aliases: dict[str, str] = {}
        for alias in layout.aliases:
            sigil, name = alias.name[0], alias.name[1:]
            aliases[alias.name] = sigil + _fresh(
                name, f"{name}_{len(attributes) + 1}", used_aliases
            )

        # Only what changes: most entries keep most names, and their text is not scanned.
        symbols = {old: new for old, new in symbols.items() if old != new}
        aliases = {old: new for old, new in aliases.items() if old != new}

        def renamed(start: int, end: int) -> str:
            piece = rename_symbols(text[start:end], symbols)  # noqa: B023
            piece = resources.rename_handles(piece, handles)  # noqa: B023
            return _rename_aliases(piece, aliases)  # noqa: B023

        # Each alias stays on its side of the module: a location alias used inside another
        # location (`loc(callsite(#loc4 at #loc5))`) must be defined before that use; only
        # a whole `loc(#loc4)` of an op may come before its definition.
        before = set(layout.prologue)
        for alias in layout.aliases:
            side = prologue if (alias.start, alias.end) in before else epilogue
            side.append(renamed(alias.start, alias.end))
        for op in layout.ops:
            piece = renamed(op.start, op.end)
            if (op.start, op.end) in shared:
                name = _symbol_of(op)
                if piece != state[name]:
                    raise AbiError(
                        f"{entry.name}: entry '{key}' defines the shared global @{name} "
                        f"otherwise than an earlier entry: {piece.splitlines()[0]} vs. "
                        f"{state[name].splitlines()[0]}"
                    )
                continue
            if shared_state and _is_mutable_global(op, text):
                state[symbols.get(_symbol_of(op), _symbol_of(op))] = piece
            body.append("  " + piece)
        module = layout.module
        if module is not None and module.attributes is not None:
            try:
                attributes.append(_attribute_items(renamed(*module.attributes)))
            except lexer.LexError as error:
                raise AbiError(
                    f"{entry.name}: cannot link this module: its attributes: {error}"
                ) from None
        else:
            attributes.append([])
    merged = _merge_attributes(attributes)
    header = "module"
    if merged:
        header += " attributes {" + ", ".join(f"{k} = {v}" if v else k for k, v in merged) + "}"
    lines = [*prologue, header + " {", *body, "}", *epilogue]
    if resource_section:
        lines.append(resource_section)
    return "\n".join(lines) + "\n"


# A mutable global's op (`util.global private mutable @name …`).
_MUTABLE_GLOBAL = re.compile(r"util\.global\s+(?:(?:private|public|nested)\s+)?mutable\b")


def _is_mutable_global(op: carry.FuncText | carry.OpText, text: str) -> bool:
    return (
        isinstance(op, carry.OpText)
        and op.symbol is not None
        and bool(_MUTABLE_GLOBAL.match(text, op.start))
    )


def _symbol_of(op: carry.FuncText | carry.OpText) -> str:
    """The symbol a (global's) op defines."""
    return (op.name if isinstance(op, carry.FuncText) else op.symbol) or ""


def _resources(
    entries: Sequence[Entry], layouts: Sequence[carry.Layout]
) -> tuple[list[dict[str, str]], str]:
    """The renames of each entry's builtin resource keys (`dense_resource<key>` blobs),
    and the one resource section of the linked module.

    A key another entry defined with other bytes is renamed ``<key>_<n>`` (n the entry's
    number, then ``_2``, … while taken), its uses follow: an exporter names blobs by
    shape and dtype (iree-turbine: `torch_tensor_3_4_torch.float32`), so two models'
    weights of one shape have one key. A key defined with the same bytes is one blob for
    both. A clash left (another dialect's resource, whose uses the linker cannot know) is
    an `AbiError`: MLIR would keep one of the two blobs, and an entry would compute with
    the other's data."""
    merged: dict[tuple[str, str, str], tuple[str, str]] = {}  # → (value, entry name)
    used: set[str] = set()
    renames: list[dict[str, str]] = []
    for number, (entry, layout) in enumerate(zip(entries, layouts, strict=True), start=1):
        text = layout.text
        found: list[resources.Resource] = []
        for start, end in [*layout.prologue, *layout.epilogue]:
            if text.startswith("{-#", start):
                try:
                    found += resources.entries(text, start, end)
                except (resources.ResourceError, lexer.LexError) as error:
                    raise AbiError(
                        f"{entry.name}: cannot link this module: its resource section: {error}"
                    ) from None
        entry_renames: dict[str, str] = {}
        own: dict[tuple[str, str, str], str] = {}
        for item in found:
            value = text[item.value_span[0] : item.value_span[1]]
            key = item.key
            written = own.get((item.group, item.dialect, key))
            if written is not None:
                if written != value:
                    raise AbiError(
                        f"{entry.name}: cannot link this module: its {item.group} "
                        f"'{item.dialect}' resource '{key}' is defined twice, with other bytes"
                    )
                continue  # (the same bytes again: the blob already kept)
            own[(item.group, item.dialect, key)] = value
            if (item.group, item.dialect) == ("dialect_resources", "builtin"):
                kept = merged.get((item.group, item.dialect, key))
                if kept is None or kept[0] != value:
                    key = _fresh(key, f"{key}_{number}", used)
                if key != item.key:
                    entry_renames[item.key] = key
            kept = merged.get((item.group, item.dialect, key))
            if kept is not None and kept[0] != value:
                raise AbiError(
                    f"{entry.name}: cannot link this module: its {item.group} "
                    f"'{item.dialect}' resource '{key}' has other bytes than that of "
                    f"{kept[1]}, and one module holds one resource of a name"
                )
            merged[(item.group, item.dialect, key)] = (value, entry.name)
        renames.append(entry_renames)
    return renames, _resource_section(merged)


def _resource_section(merged: Mapping[tuple[str, str, str], tuple[str, str]]) -> str:
    """One `{-# … #-}` section of ``merged`` ((group, dialect, key) → (value, …)), as
    MLIR prints one."""
    if not merged:
        return ""
    groups: dict[str, dict[str, list[str]]] = {}
    for (group, dialect, key), (value, _) in merged.items():
        groups.setdefault(group, {}).setdefault(dialect, []).append(
            f"      {resources.key_text(key)}: {value}"
        )
    blocks = []
    for group, dialects in groups.items():
        inner = [
            f"    {dialect}: {{\n" + ",\n".join(items) + "\n    }"
            for dialect, items in dialects.items()
        ]
        blocks.append(f"  {group}: {{\n" + ",\n".join(inner) + "\n  }")
    return "{-#\n" + ",\n".join(blocks) + "\n#-}"


def _layout(entry: Entry) -> carry.Layout:
    try:
        return carry.scan(entry.text)
    except (carry.ScanError, lexer.LexError) as error:  # (an unknown escape in a string)
        raise AbiError(f"{entry.name}: cannot link this module: {error}") from None


def _entry_function(entry: Entry, layout: carry.Layout) -> str:
    funcs = [op for op in layout.ops if isinstance(op, carry.FuncText) and op.name is not None]
    public = [f.name for f in funcs if f.visibility in (None, "public") and f.name is not None]
    if entry.function is not None:
        if entry.function not in public:
            raise AbiError(f"{entry.name}: the module exports no function '{entry.function}'")
        return entry.function
    if len(public) != 1:
        found = ", ".join(public) if public else "none"
        raise AbiError(
            f"{entry.name}: entry '{entry.key or entry.name}' must export one function, "
            f"the module exports {len(public)} ({found})"
        )
    return public[0]


def _fresh(name: str, candidate: str, used: set[str]) -> str:
    """``name`` if no one took it, else ``candidate`` (then ``candidate_2``, …)."""
    chosen = name
    if chosen in used:
        chosen = candidate
        number = 2
        while chosen in used:
            chosen = f"{candidate}_{number}"
            number += 1
    used.add(chosen)
    return chosen


def _rename_aliases(text: str, renames: Mapping[str, str]) -> str:
    """``text`` with every use (and definition) of an alias of ``renames`` renamed:
    `#name`/`!name` tokens, also inside dialect bodies; never in a string."""
    if not any(name in text for name in renames):
        return text
    pieces: list[str] = []
    pos = 0
    for start, end in _alias_tokens(text, 0, len(text), pretty=False):
        new = renames.get(text[start:end])
        if new is not None:
            pieces.append(text[pos:start])
            pieces.append(new)
            pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


def _alias_tokens(text: str, start: int, end: int, *, pretty: bool) -> Iterator[tuple[int, int]]:
    for kind, token_start, token_end in lexer.tokens(text, start, end, pretty=pretty):
        if kind == lexer.HASH or kind == lexer.BANG:
            yield token_start, token_end
        elif kind == lexer.BODY:
            yield from _alias_tokens(text, token_start + 1, token_end - 1, pretty=True)


def _attribute_items(text: str) -> list[tuple[str, str]]:
    """The items of an `attributes {…}` text: (key, value text; empty for a unit
    attribute)."""
    open_at = text.index("{")
    close = lexer.group_end(text, open_at) - 1
    return [
        (key, text[start:end].strip())
        for key, start, end in lexer.dictionary_items(text, open_at, close)
    ]


def _merge_attributes(per_entry: list[list[tuple[str, str]]]) -> list[tuple[str, str]]:
    """The module attributes no two entries disagree on, in first-seen order."""
    values: dict[str, set[str]] = {}
    order: list[tuple[str, str]] = []
    for items in per_entry:
        for key, value in items:
            if key not in values:
                values[key] = set()
                order.append((key, value))
            values[key].add(value)
    return [(key, value) for key, value in order if len(values[key]) == 1]


# --------------------------------------------------------------------------------------
# A mapping of sources → one lowered module.
# --------------------------------------------------------------------------------------

Lower = Callable[[Any, str, str], str]


def lower_entries(
    sources: Mapping[str, object],
    pipeline: str | None,
    lower: Lower,
    *,
    parameters: dict[str, Any] | None = None,
    shared_state: bool = False,
    **options: Any,
) -> str:
    """Lower every source of ``sources`` (a framework object, a frontend's `Program`, MLIR
    text, bytes or a path) with ``lower(source, pipeline, name)`` and `link` them; the
    frontend ``options`` go to every framework object's frontend. Returns the linked text;
    each entry's original call travels in its function's reflection (`abi.call`).

    Without ``parameters`` a torch program keeps its weights in the module (the linked
    text is all there is). With a dict, the programs' named parameters
    (`Program.parameters`) are gathered in it (`merge_parameters`) and the text reads them.
    ``shared_state`` goes to `link`."""
    from abi_compiler.frontends import program as frontend_program

    if not sources:
        raise ValueError("the mapping of entries is empty")
    entries: list[Entry] = []
    for key, source in sources.items():
        if not isinstance(key, str) or not key:
            raise TypeError(f"entry names must be non-empty strings, got {key!r}")
        function: str | None = None
        name = f"<{key}>"
        kind = frontend_name(source)
        if kind is not None:
            entry_options = dict(options)
            if kind == "torch" and parameters is None:
                entry_options.setdefault("external_bytes", None)
            source = frontend_program(source, **entry_options)
        if isinstance(source, Program):
            function = source.function
            if source.parameters:
                if parameters is None:
                    raise ValueError(
                        f"entry '{key}': its program keeps weights out of the module "
                        "(Program.parameters), which a .vmfb alone cannot carry: make it "
                        "with external_bytes=None, or compile the mapping with compile()"
                    )
                source = merge_parameters(key, source.mlir, source.parameters, parameters)
            else:
                source = source.mlir
        elif isinstance(source, os.PathLike):
            name = os.fspath(source)
        if not isinstance(source, (str, bytes, os.PathLike)):
            raise TypeError(
                f"entry '{key}': expected MLIR text, bytes, a path, a frontend's Program or a "
                f"framework object (abi_compiler.frontends), got {type(source).__name__}"
            )
        text = _read_text(source) if pipeline is None else lower(source, pipeline, name)
        entries.append(Entry(key, text, function, name))
    return link(entries, shared_state=shared_state)


def merge_parameters(key: str, text: str, found: Mapping[str, Any], merged: dict[str, Any]) -> str:
    """Add the named parameters ``found`` of entry ``key`` (name → host array) to
    ``merged``, and return its ``text`` reading them there. A name already in ``merged``
    with the same bytes is one parameter for both (the weights two entries of one model
    share); with other bytes, the entry's parameter is renamed `<key>/<name>` (the first
    free name) in its text; the renames are made in one pass (a parameter renamed to
    the name of another of the entry's is not renamed again with it)."""
    import numpy as np

    renames: dict[str, str] = {}
    for name, array in found.items():
        wanted = name
        kept = merged.get(wanted)
        while kept is not None and not (
            kept.dtype == array.dtype and kept.shape == array.shape and np.array_equal(kept, array)
        ):
            wanted = f"{key}/{name}" if wanted == name else f"{wanted}'"
            kept = merged.get(wanted)
        merged[wanted] = array
        if wanted != name:
            renames[_parameter(name)] = _parameter(wanted)
    if not renames:
        return text
    pattern = re.compile("|".join(re.escape(old) for old in renames))
    return pattern.sub(lambda match: renames[match.group()], text)


def _parameter(name: str) -> str:
    """The attribute by which a module reads the named parameter ``name``."""
    return f"#flow.parameter.named<{lexer.quote(PARAMETER_SCOPE)}::{lexer.quote(name)}>"


def _read_text(source: str | bytes | os.PathLike[str]) -> str:
    if isinstance(source, os.PathLike):
        with open(source, "rb") as stream:
            source = stream.read()
    if isinstance(source, bytes):
        try:
            return source.decode("utf-8")
        except UnicodeDecodeError:
            raise AbiError("MLIR bytecode is linked after a pipeline lowers it") from None
    return source
