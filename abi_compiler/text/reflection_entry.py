"""One more `iree.reflection` entry on every exported function of a module's text, as
written: what `compile_vmfb` records of a module it compiles (`abi.provenance`,
docs/formats.md) is added to the lowered text just before iree-compile reads it, without
parsing the module again (the text of a model with its weights can be hundreds of MB).

The entry goes first in the function's `iree.reflection = {…}` dictionary, or in a new
one at the start of its `attributes {…}`, or in a new `attributes {…}` after its
signature. A function that already has the entry keeps its own (a module compiled again
keeps the record of what it was made from).
"""

from __future__ import annotations

from collections.abc import Callable

from abi_compiler.attribute_names import REFLECTION
from abi_compiler.text import carry, lexer

__all__ = ["add_reflection_entries", "add_reflection_entry", "update_reflection_entries"]


def add_reflection_entry(text: str, key: str, value: str) -> str:
    """``text`` with ``key = "<value>"`` in the reflection of each public top-level
    `func.func` or `util.func` with a body (the functions IREE exports)."""
    return add_reflection_entries(text, key, lambda name: value)


def add_reflection_entries(text: str, key: str, value_of: Callable[[str], str | None]) -> str:
    """``text`` with ``key = "<value_of(name)>"`` in the reflection of each exported
    function ``name`` for which ``value_of`` gives a value."""
    inserts: list[tuple[int, str]] = []
    for op in carry.functions(carry.scan(text)):
        if op.body_start is None:
            continue
        if op.visibility not in (None, "public") or not op.plain:
            continue
        value = None if op.name is None else value_of(op.name)
        if value is None:
            continue
        entry = f"{key} = {lexer.quote(value)}"
        if op.attributes is None:
            inserts.append((op.signature_end, f" attributes {{{REFLECTION} = {{{entry}}}}}"))
            continue
        found = _reflection(text, *op.attributes)
        if found is None:
            open_at = text.index("{", op.attributes[0])
            close = op.attributes[1] - 1
            rest = "" if lexer.is_blank(text[open_at + 1 : close]) else ", "
            inserts.append((open_at + 1, f"{REFLECTION} = {{{entry}}}{rest}"))
            continue
        start, end = found
        if _has_key(text, start, end, key):
            continue
        rest = "" if lexer.is_blank(text[start + 1 : end - 1]) else ", "
        inserts.append((start + 1, entry + rest))
    for position, piece in sorted(inserts, reverse=True):
        text = text[:position] + piece + text[position:]
    return text


def update_reflection_entries(text: str, key: str, update: Callable[[str, str], str | None]) -> str:
    """``text`` with the string entry ``key`` of each exported function ``name``'s
    reflection replaced by ``update(name, value)`` where that gives a value (None: kept
    as it is, as is an entry that is not a string MLIR reads)."""
    replaced: list[tuple[int, int, str]] = []
    for op in carry.functions(carry.scan(text)):
        if op.body_start is None or op.attributes is None or op.name is None:
            continue
        if op.visibility not in (None, "public") or not op.plain:
            continue
        found = _reflection(text, *op.attributes)
        if found is None:
            continue
        for item, value_start, value_end in lexer.dictionary_items(text, found[0], found[1] - 1):
            if _unquoted(item) != key:
                continue
            written = text[value_start:value_end].rstrip()
            value = lexer.unquote(written)
            new = None if value is None else update(op.name, value)
            if new is not None:
                replaced.append((value_start, value_start + len(written), lexer.quote(new)))
    for start, end, piece in sorted(replaced, reverse=True):
        text = text[:start] + piece + text[end:]
    return text


def _reflection(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The range of the `iree.reflection` dictionary in the attributes ``[start, end)``."""
    open_at = text.index("{", start)
    for key, value_start, _ in lexer.dictionary_items(text, open_at, end - 1):
        if _unquoted(key) == REFLECTION and text.startswith("{", value_start):
            return value_start, lexer.group_end(text, value_start)
    return None


def _has_key(text: str, start: int, end: int, key: str) -> bool:
    return any(
        _unquoted(item) == key for item, _, _ in lexer.dictionary_items(text, start, end - 1)
    )


def _unquoted(key: str) -> str:
    """A dictionary key as MLIR reads it (a quoted key's string)."""
    return (lexer.unquote(key) or key) if key.startswith('"') else key
