"""Name locations read from carried text (SPEC §3.3, §8.6): what `loc(…)` names, without
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

import re
from collections.abc import Iterable

from abi_compiler.text.carry import string_end, unquote

# `loc(` and what follows it, up to the first significant character.
_LOC_OPEN = re.compile(r"loc\s*\(\s*")
# A location alias definition, up to the `loc(` of its value.
_ALIAS_DEFINITION = re.compile(r"(#[A-Za-z_][A-Za-z0-9_$.\-]*)\s*=\s*(?=loc\s*\()")
_ALIAS_USE = re.compile(r"#[A-Za-z_][A-Za-z0-9_$.\-]*")
# What may follow the name string of a name location (a file location has `:`).
_AFTER_NAME = re.compile(r"\s*([()])")

# A chain of aliases longer than this is a cycle (`#a = loc(#b)`, `#b = loc(#a)`).
_MAX_ALIAS_CHAIN = 64


class LocationAliases:
    """The location alias definitions of one chunk: ``#name`` -> the offset of its
    `loc(` in the text. ``items`` are the (start, end) ranges of the chunk's top-level
    alias definitions and resource sections (`carry.Layout.prologue`/`epilogue`)."""

    def __init__(self, text: str, items: Iterable[tuple[int, int]]) -> None:
        self.text = text
        self._items = list(items)
        self._starts: dict[str, int] | None = None

    def get(self, name: str) -> int | None:
        if self._starts is None:
            self._starts = {}
            for start, end in self._items:
                match = _ALIAS_DEFINITION.match(self.text, start, end)
                if match is not None:
                    self._starts.setdefault(match.group(1), match.end())
        return self._starts.get(name)


def location_name(text: str, start: int, aliases: LocationAliases) -> str | None:
    """The name of the location whose `loc(` is at ``start`` of ``text``, read through
    ``aliases``; None when it is not a name location."""
    for _ in range(_MAX_ALIAS_CHAIN):
        opening = _LOC_OPEN.match(text, start)
        if opening is None:
            return None
        pos = opening.end()
        if text.startswith('"', pos):
            close = string_end(text, pos)
            if close - 1 <= pos or not text.startswith('"', close - 1):
                return None  # not closed on its line
            after = _AFTER_NAME.match(text, close)
            if after is None:
                return None  # `"file":line:col`, or not a location
            return unquote(text[pos:close])
        alias = _ALIAS_USE.match(text, pos)
        if alias is None:
            return None
        found = aliases.get(alias.group())
        if found is None:
            return None
        text, start = aliases.text, found
    return None
