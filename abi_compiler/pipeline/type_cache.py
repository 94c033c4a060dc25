"""Parse each distinct type text once.

MLIR text repeats its types: every op spells out its operand and result types, and the
`abi` ops repeat a whole structured type (`abi.tuple.get %t[0] : tuple<…> -> …`). xDSL
parses every occurrence again (≈ 100 µs for one `tensor<…>`), which is most of the parse
time of a large module. `TypeCachingParser` remembers the type parsed from each type text
and, when the same text comes again, returns the same (immutable) type object and skips
the text.

Safety: the extent of a type's text is found by a small scanner (an identifier, then a
balanced `<…>` group, skipping `->` and quoted strings). A parse result is only cached
when the real parser consumed exactly that extent, so a cached text is one the parser
has shown it reads as a whole, and a type's meaning does not depend on where it is
written. Anything else (function types, a token the lexer is not at the end of, texts the
scanner does not understand) is parsed as usual; errors are reported by xDSL's own parse
of the first occurrence.
"""

from __future__ import annotations

import re
from typing import Any

from xdsl.ir import TypeAttribute
from xdsl.utils.mlir_lexer import MLIRTokenKind

from abi_compiler.pipeline.xdsl_fixes import FixedParser

_NAME = re.compile(r"!?[A-Za-z_][A-Za-z0-9_$.]*")
_SPECIAL = re.compile(r'->|[<>"]')
# Unrolled (`[^"\\\n]*(?:\\.[^"\\\n]*)*`), not `(?:[^"\\\n]|\\.)*`: Python's regex engine
# keeps a backtracking frame per repetition of a group, so the alternation cost ~120 bytes
# per character of a string (gigabytes for a large `dense<"0x…">` literal).
_STRING_END = re.compile(r'[^"\\\n]*(?:\\.[^"\\\n]*)*"')
# The builtin types spelled with a bare word and a `<…>` group. Other bare words followed
# by `<` are attributes (`dense<…>`, `array<…>`, `dense_resource<…>`, `affine_map<…>`,
# `sparse<…>`, `strided<…>`, `opaque<…>`), which xDSL's attribute parser offers to the type
# parser first: scanning their text as a type's would read a whole constant, for nothing.
PARAMETRIZED_BUILTIN_TYPES = frozenset(("tensor", "vector", "memref", "complex", "tuple"))
_CACHED_KINDS = frozenset((MLIRTokenKind.BARE_IDENT, MLIRTokenKind.EXCLAMATION_IDENT))
# Types nested deeper than this are parsed without the cache: `type_extent` scans a type's
# whole text, so consulting the cache at every level of a deep nesting would cost depth x
# length (hostile input: 20 000 unclosed `tuple<` took 23 s, mostly scanning).
MAX_CACHED_NESTING = 8


def type_extent(text: str, start: int) -> int | None:
    """End of the type text starting at ``start`` (a name, optionally followed by a
    balanced `<…>` group), or None when it does not have that shape or is not a type (a
    bare word other than `PARAMETRIZED_BUILTIN_TYPES` before `<`)."""
    match = _NAME.match(text, start)
    if match is None:
        return None
    pos = match.end()
    if not text.startswith("<", pos):
        return pos
    if text[start] != "!" and match.group() not in PARAMETRIZED_BUILTIN_TYPES:
        return None
    depth = 0
    while (special := _SPECIAL.search(text, pos)) is not None:
        token = special.group()
        pos = special.end()
        if token == "<":
            depth += 1
        elif token == ">":
            depth -= 1
            if depth == 0:
                return pos
        elif token == '"':
            string = _STRING_END.match(text, pos)
            if string is None:
                return None
            pos = string.end()
    return None


class TypeCachingParser(FixedParser):
    """xDSL's parser, parsing each distinct type text once."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._types: dict[str, TypeAttribute] = {}
        self._type_nesting = 0

    def parse_optional_type(self) -> TypeAttribute | None:
        self._type_nesting += 1
        try:
            return self._parse_optional_type_cached()
        finally:
            self._type_nesting -= 1

    def _parse_optional_type_cached(self) -> TypeAttribute | None:
        token = self.current_token
        lexer = self.lexer
        if (
            token.kind not in _CACHED_KINDS
            or lexer.pos != token.span.end
            or self._type_nesting > MAX_CACHED_NESTING
        ):
            return super().parse_optional_type()
        text = lexer.input.content
        start = token.span.start
        end = type_extent(text, start)
        if end is None:
            return super().parse_optional_type()
        key = text[start:end]
        cached = self._types.get(key)
        if cached is not None:
            self.resume_at(end)
            return cached
        parsed = super().parse_optional_type()
        if parsed is not None:
            following = self.pos
            if following == end or (following > end and text[end:following].isspace()):
                self._types[key] = parsed
        return parsed
