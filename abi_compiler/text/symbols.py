"""Symbol references in MLIR text (docs/spec.md §8.6): which symbols a text refers to
(`symbol_references`), which functions its ops call or take as a value (`called_symbols`),
and the text with references redirected (`rename_symbols`). Each reads the references of
the symbol table the text is in: not in strings or comments, and not inside a nested
symbol table's region (a nested `module @x {…}` resolves its own names). The driver plans
which carried ops must be parsed with the first two and prints renamed carried text with
the third."""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator, Mapping
from typing import Any

from abi_compiler.text import lexer
from abi_compiler.text.lexer import (
    AT,
    BANG,
    BARE,
    BODY,
    COMMENT,
    DIALECT_BODY_START,
    HASH,
    SHORT_STRING,
    STRING_TOKEN,
    Cursor,
    LexError,
    group_end,
    skip_blank,
    string_end,
)

#: Ops that are symbol tables of their own (MLIR's `SymbolTable` trait): a flat symbol
#: reference inside their region names one of their own symbols.
SYMBOL_TABLE_OPS = frozenset(
    (
        "module",
        "builtin.module",
        "gpu.module",
        "spirv.module",
        "hal.executable",
        "hal.executable.source",
        "hal.executable.variant",
        "stream.executable",
        "flow.executable",
    )
)
_TABLES = "|".join(re.escape(name) for name in sorted(SYMBOL_TABLE_OPS, key=len, reverse=True))
_REFERENCE = lexer.SYMBOL_REFERENCE.pattern
_PLAIN_SYMBOLS = re.compile(rf'{SHORT_STRING}|"|{COMMENT}|{DIALECT_BODY_START}|{_REFERENCE}')
# … and the symbol tables' op names, for a text that spells one (`str.find` says).
_SYMBOLS = re.compile(
    rf'"(?:{_TABLES})"(?=[ \t\r\n]*\()|{_PLAIN_SYMBOLS.pattern}'
    rf"|(?<!{lexer.ID_TOKEN_CHAR})(?:{_TABLES}){lexer.BARE_ID_END}"
)
# Inside a dialect body: no comments, and no ops.
_BODY_SYMBOLS = re.compile(rf'{SHORT_STRING}|"|{DIALECT_BODY_START}|{_REFERENCE}')


def _has_table(text: str, start: int, end: int) -> bool:
    """Whether the text may hold a symbol table op (every name holds one of these)."""
    return text.find("module", start, end) >= 0 or text.find("executable", start, end) >= 0


def _symbol_tokens(
    text: str, start: int, end: int, *, body: bool = False
) -> Iterator[tuple[int, int, str]]:
    """(start, end, name) of each symbol reference (`@name`, `@"name"`) of the symbol
    table the text is in: not in strings or comments, and not inside the region of a
    nested symbol table (`module @x {…}`)."""
    if body:
        pattern = _BODY_SYMBOLS
    else:
        pattern = _SYMBOLS if _has_table(text, start, end) else _PLAIN_SYMBOLS
    scanner = lexer.scanner(pattern, text, start, end)
    while (match := scanner.search()) is not None:
        token = match.group()
        char = token[0]
        if char == "@":
            if token == '@"':
                close = string_end(text, match.start() + 1, end)
                name = lexer.unquote(text[match.start() + 1 : close])
                if name is not None:
                    yield match.start(), close, name
                scanner = lexer.scanner(pattern, text, close, end)
            else:
                yield match.start(), match.end(), token[1:]
        elif char == "#" or char == "!":
            close = lexer.dialect_body_end(text, match.end() - 1, end)
            yield from _symbol_tokens(text, match.end(), close - 1, body=True)
            scanner = lexer.scanner(pattern, text, close, end)
        elif char == '"':
            if token == '"':
                scanner = lexer.scanner(pattern, text, string_end(text, match.start(), end), end)
            elif len(token) > 2 and token[1:-1] in SYMBOL_TABLE_OPS:
                scanner = yield from _outside_region(text, match.end(), end, pattern)
        elif char != "/":
            scanner = yield from _outside_region(text, match.end(), end, pattern)


def _outside_region(
    text: str, pos: int, end: int, pattern: re.Pattern[str]
) -> Generator[tuple[int, int, str], None, Any]:
    """`_symbol_tokens` of what precedes the region of the symbol-table op whose name ends
    at ``pos``; the scanner that continues after the region."""
    region = _table_region(text, pos, end)
    if region is None:
        return lexer.scanner(pattern, text, pos, end)
    yield from _symbol_tokens(text, pos, region[0])
    return lexer.scanner(pattern, text, region[1], end)


def _table_region(text: str, pos: int, end: int) -> tuple[int, int] | None:
    """The region of the symbol-table op whose name ends at ``pos`` (its references are
    its own), or None when it has none (the word was no op name). What comes before the
    region (the op's name, attributes, properties) is the outer table's."""
    cursor = Cursor(text, pos, end)
    while cursor.kind:
        if cursor.keyword("attributes"):
            cursor.next()
            if cursor.braces() is None:
                return None
            continue
        if cursor.punct("{"):
            return cursor.start, group_end(text, cursor.start, end)
        if cursor.punct("<"):  # a generic op's properties
            cursor.jump(group_end(text, cursor.start, end))
            continue
        if cursor.punct("(") or cursor.punct("["):
            if text.startswith("{", skip_blank(text, cursor.stop, end)):
                cursor.next()  # a generic op's `({`: the region is next
                continue
            cursor.jump(group_end(text, cursor.start, end))
            continue
        if cursor.kind in (AT, BARE, STRING_TOKEN, HASH, BANG, BODY):
            cursor.next()
            continue
        return None
    return None


def symbol_references(text: str, start: int = 0, end: int | None = None) -> set[str]:
    """The root names of the symbol references (`@name`, `@"name"`) in a text, of the
    symbol table it is in."""
    end = len(text) if end is None else end
    if text.find("@", start, end) < 0:
        return set()
    try:
        return {name for _, _, name in _symbol_tokens(text, start, end)}
    except LexError:
        return set()


#: Ops whose symbol operand is a function they call or take as a value: when that
#: function's signature changes, the op must be rewritten (its body parsed).
CALL_OPS = frozenset(("call", "func.call", "util.call", "constant", "func.constant"))


def called_symbols(text: str, start: int, end: int) -> set[str]:
    """The functions the ops of a text call or take as a value (`call @f(…)`,
    `func.constant @f`, a generic op's `callee = @f`), and the attribute aliases in those
    places (`callee = #c`, with their `#`): references for which an op must be rewritten,
    unlike a reference in another attribute (`{foo.r = @f}`), which is redirected in the
    text."""
    found: set[str] = set()
    before: tuple[int, int, int] = (0, start, start)
    try:
        cursor = Cursor(text, start, end)
        while cursor.kind:
            if (cursor.kind == BARE and cursor.value in SYMBOL_TABLE_OPS) or (
                cursor.kind == STRING_TOKEN and cursor.value[1:-1] in SYMBOL_TABLE_OPS
            ):
                # A nested symbol table resolves the names in its region.
                region = _table_region(text, cursor.stop, end)
                if region is not None:
                    found |= called_symbols(text, cursor.stop, region[0])
                    cursor.jump(region[1])
                    continue
            if cursor.kind == AT or cursor.kind == HASH:
                kind, previous_start, previous_stop = cursor.previous
                previous = text[previous_start:previous_stop]
                if (kind == BARE and previous in CALL_OPS) or (
                    previous == "="
                    and before[0] == BARE
                    and text[before[1] : before[2]] == "callee"
                ):
                    name = lexer.symbol_name(cursor.value) if cursor.kind == AT else cursor.value
                    if name is not None:
                        found.add(name)
            before = cursor.previous
            cursor.next()
    except LexError:
        return symbol_references(text, start, end)
    return found


def rename_symbols(text: str, renames: Mapping[str, str]) -> str:
    """``text`` with every symbol reference to a key of ``renames`` redirected (in the
    symbol table the text is in)."""
    if not renames or "@" not in text:
        return text
    pieces: list[str] = []
    pos = 0
    for start, end, name in _symbol_tokens(text, 0, len(text)):
        new = renames.get(name)
        if new is not None:
            pieces.append(text[pos:start])
            pieces.append(lexer.symbol_text(new))
            pos = end
    pieces.append(text[pos:])
    return "".join(pieces)
