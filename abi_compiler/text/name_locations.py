"""Name locations read from carried text (docs/spec.md §3.3, §8.6): what `loc(…)` names, without
parsing anything else.

A name location is `loc("<name>")`, or `loc("<name>"(<child location>))` with a child;
written in place or through a location alias, `loc(#loc3)` with `#loc3 = loc(…)`
defined anywhere at the top level of the file (MLIR allows a location alias to be used
before its definition). Every other location — `loc(unknown)`, `loc("file":1:2)`,
`loc(callsite(…))`, `loc(fused[…])` — names nothing.

`LocationAliases` indexes a chunk's location alias definitions by name, and
`location_name` reads one `loc(…)` text through them. Only the definitions an argument's
location refers to are read.
"""

from __future__ import annotations

from collections.abc import Iterable

from abi_compiler.text import lexer

# A chain of aliases longer than this is a cycle (`#a = loc(#b)`, `#b = loc(#a)`).
_MAX_ALIAS_CHAIN = 64


class LocationAliases:
    """The location alias definitions of one chunk: ``#name`` -> the offset of its
    `loc` in the text. ``items`` are the (start, end) ranges of the chunk's top-level
    alias definitions and resource sections (`carry.Layout.prologue`/`epilogue`)."""

    def __init__(self, text: str, items: Iterable[tuple[int, int]]) -> None:
        self.text = text
        self._items = list(items)
        self._starts: dict[str, int] | None = None

    def get(self, name: str) -> int | None:
        if self._starts is None:
            self._starts = {}
            for start, end in self._items:
                match = lexer.ALIAS_DEFINITION.match(self.text, start, end)
                if match is not None and match.group(1)[0] == "#":
                    value = lexer.skip_blank(self.text, match.end(), end)
                    if _open(self.text, value) is not None:
                        self._starts.setdefault(match.group(1), value)
        return self._starts.get(name)


def _open(text: str, pos: int) -> int | None:
    """After `loc (` at ``pos`` (and the blanks that follow), if it is there."""
    word = lexer.BARE_IDENTIFIER.match(text, pos)
    if word is None or word.group() != "loc":
        return None
    paren = lexer.skip_blank(text, pos + 3)
    if not text.startswith("(", paren):
        return None
    return lexer.skip_blank(text, paren + 1)


def location_name(text: str, start: int, aliases: LocationAliases) -> str | None:
    """The name of the location whose `loc` is at ``start`` of ``text``, read through
    ``aliases``; None when it is not a name location."""
    for _ in range(_MAX_ALIAS_CHAIN):
        pos = _open(text, start)
        if pos is None:
            return None
        if text.startswith('"', pos):
            close = lexer.string_end(text, pos)
            following = lexer.skip_blank(text, close)
            if not text.startswith(("(", ")"), following):
                return None  # `"file":line:col`, or not a location
            return lexer.unquote(text[pos:close])
        alias = lexer.ALIAS_NAME.match(text, pos)
        if alias is None or text[pos] != "#":
            return None
        found = aliases.get(alias.group())
        if found is None:
            return None
        text, start = aliases.text, found
    return None
