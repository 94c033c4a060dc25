"""Parse each distinct type text once.

MLIR text repeats its types: every op spells out its operand and result types, and the
`abi` ops repeat a whole structured type (`abi.tuple.get %t[0] : tuple<…> -> …`). xDSL
parses every occurrence again (≈ 100 µs for one `tensor<…>`), which is most of the parse
time of a large module. `TypeCachingParser` remembers the type parsed from each type text
and, when the same text comes again, returns the same (immutable) type object and skips
the text. The first occurrence of a text is read by `type_reader.TypeReader` when it is
one of the ABI's types (the object xDSL would build), else by xDSL.

Safety: the extent of a type's text is found by MLIR's lexical rules
(`abi_compiler.text.lexer`: a name, then its dialect body or its balanced `<…>` group). A parse result is only cached
when the real parser consumed exactly that extent, so a cached text is one the parser
has shown it reads as a whole, and a type's meaning does not depend on where it is
written. Anything else (function types, a token the lexer is not at the end of, texts the
scanner does not understand) is parsed as usual; errors are reported by xDSL's own parse
of the first occurrence.
"""

from __future__ import annotations

from typing import Any

from xdsl.ir import TypeAttribute
from xdsl.utils.mlir_lexer import MLIRTokenKind

from abi_compiler.text import lexer
from abi_compiler.text_to_ir.text_values import TextValueParser
from abi_compiler.text_to_ir.type_reader import TypeReader

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
    """End of the type text starting at ``start`` (a name, optionally followed by its
    dialect body or a balanced `<…>` group), or None when it does not have that shape or
    is not a type (a bare word other than `PARAMETRIZED_BUILTIN_TYPES` before `<`)."""
    if text.startswith("!", start):
        match = lexer.ALIAS_NAME.match(text, start)
        if match is None:
            return None
        if not text.startswith("<", match.end()):
            return match.end()
        try:
            return lexer.dialect_body_end(text, match.end())
        except lexer.LexError:
            return None
    match = lexer.BARE_IDENTIFIER.match(text, start)
    if match is None:
        return None
    pos = match.end()
    if not text.startswith("<", pos):
        return pos
    if match.group() not in PARAMETRIZED_BUILTIN_TYPES:
        return None
    try:
        return lexer.group_end(text, pos)
    except lexer.LexError:
        return None


class TypeCachingParser(TextValueParser):
    """xDSL's parser, parsing each distinct type text once."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._types: dict[str, TypeAttribute] = {}
        self._type_reader = TypeReader(self.ctx)
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
        parsed = self._type_reader.read_type(key)
        if parsed is not None:
            self._types[key] = parsed
            self.resume_at(end)
            return parsed
        parsed = super().parse_optional_type()
        if parsed is not None:
            following = self.pos
            if following == end or (following > end and text[end:following].isspace()):
                self._types[key] = parsed
        return parsed
