"""Carried text: the parts of an MLIR module that no pass reads are not parsed into IR but
kept as their source text and printed back byte for byte (SPEC §8.6).

The ABI is a property of function signatures. `scan` finds, with a small lexical scanner
(strings, comments and brackets; linear, no MLIR grammar), the top-level items of one
input chunk: alias definitions, `{-# … #-}` resource sections, the module op and each op
in its body, and for every `func.func` its header (signature and attributes), its body
region and what follows it (`loc(…)`). The driver then hands xDSL a *masked* copy of the
text — carried parts replaced by spaces, so every offset (and diagnostic position) stays
that of the original file — in which only headers and the bodies a pass must rewrite are
left to parse. Locations (`loc(…)`) are masked everywhere xDSL parses: they often name
aliases defined after the module, which xDSL cannot read, and `abi-opt` does not print
locations of parsed ops anyway.

What is carried prints as it was written, except that comments are dropped (as MLIR's
printer drops them) and references to a symbol a pass renamed are redirected
(`rename_symbols`, whole tokens only, never inside strings).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

_COMMENT = r"//[^\n]*"
# Token patterns see a long string, or one with escapes, as its opening quote only:
# `string_end` skips the rest with `str.find` (a 128 MB hex constant is one string; a
# regex would step through it). A short plain string is one token (`_SHORT_STRING`), so
# the tokenizer need not restart after it.
_SHORT_STRING = r'"[^"\\\n]{0,128}"'
_BRACKETS = re.compile(rf'{_SHORT_STRING}|"|{_COMMENT}|[(){{}}\[\]]')
# A location: `loc(` not preceded by an identifier character or a sigil (`@loc(` is a
# call of a function named loc).
_LOC = r"(?<![\w$.@%#!^])loc\("
_LOCS = re.compile(rf'"|{_COMMENT}|{_LOC}')
_HEADER = re.compile(
    rf'{_SHORT_STRING}|"|{_COMMENT}|->|{_LOC}|%[A-Za-z0-9_$.\-]+|\battributes\b|[(){{}}\[\]<>,]'
)
# Top level: a line break at bracket depth 0 may start a new item.
_TOP = re.compile(rf'{_SHORT_STRING}|"|{_COMMENT}|\{{-#|[(){{}}\[\]]|\n')
_SYMBOL_REF = re.compile(rf'"|{_COMMENT}|@(?:"|[A-Za-z_][A-Za-z0-9_$.\-]*)')
_COMMENT_LINE = re.compile(rf'"|[ \t]*{_COMMENT}')
_ALIAS = re.compile(r"[#!][A-Za-z_][A-Za-z0-9_$.\-]*[ \t]*=")
# What an op starts with: its name, a generic op's quoted name, or its results.
_OP_START = re.compile(
    r'[A-Za-z_][A-Za-z0-9_$\-]*\.[A-Za-z_]|"[A-Za-z_]|%[A-Za-z0-9_$.\-]+[ \t]*[:,=]'
)
# What starts a top-level item: an op, `module`, an alias definition, a resource section.
_ITEM_START = re.compile(rf"{_OP_START.pattern}|(?:builtin\.)?module\b|{_ALIAS.pattern}|\{{-#")
# MLIR's bare identifier: a symbol name printed without quotes.
BARE_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")
# An op name, or a symbol name as read (leniently: with `-`, as the scanner's tokens).
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$.\-]*")
_KEYWORD = re.compile(r"[a-z_]+\b")
_MODULE = re.compile(r"(?:builtin\.)?module\b")
_FUNC = re.compile(r"func\.func\b")
# Signature text that describes a structured value (SPEC §3.1): a tuple, a dict, an
# ND-array of references.
# (`!iree.list` too: wrap-entry-points respells it in every body it parses.)
_STRUCTURED_TYPE = re.compile(r"tuple<|!abi\.dict<|tensor<(?:[0-9?]+x)*!|!iree\.list<")
# Body text that works with structured values.
_STRUCTURED_BODY = ("tuple<", "!abi.", "abi.tuple.", "abi.dict.", "abi.ref_array.", "!iree.list<")
_TYPE_ALIAS_USE = re.compile(r"![A-Za-z_][A-Za-z0-9_$.\-]*")


def _scanner(pattern: re.Pattern[str], text: str, pos: int = 0, end: int | None = None) -> Any:
    """``pattern``'s scanner over ``text[pos:end]`` (its `search` finds the next token and
    continues from there; a tokenizer restarts it to skip a string)."""
    return pattern.scanner(text, pos, len(text) if end is None else end)  # type: ignore[attr-defined]


class ScanError(Exception):
    """The text does not have the shape the scanner understands (unbalanced brackets, a
    generic-form module, …): the driver then parses the whole chunk as before."""


@dataclass(slots=True)
class FuncText:
    """Where the parts of one top-level `func.func` are (offsets into the chunk text)."""

    start: int
    end: int
    #: Start of the body region's `{`; None for a declaration.
    body_start: int | None
    #: End of the body region (after its `}`).
    body_end: int | None
    #: The name of each argument as written (without `%`).
    arg_names: list[str] = field(default_factory=list[str])
    #: The `loc(…)` range written after each argument, if any.
    arg_locs: list[tuple[int, int] | None] = field(default_factory=list["tuple[int, int] | None"])
    #: Every `loc(…)` range in the header (argument locations included).
    header_locs: list[tuple[int, int]] = field(default_factory=list["tuple[int, int]"])
    #: The range of `attributes {…}` (the function's attribute dictionary), if written.
    attributes: tuple[int, int] | None = None


@dataclass(slots=True)
class OpText:
    """A top-level op other than `func.func`, carried whole."""

    start: int
    end: int
    #: The symbol it defines (custom form `dialect.op [keywords] @name …`), if any.
    symbol: str | None


@dataclass(slots=True)
class ModuleText:
    """The explicit `module` op: its header, body and what follows its `}`."""

    start: int
    body_start: int
    body_end: int
    end: int
    #: The `attributes {…}` range of the header, if any.
    attributes: tuple[int, int] | None
    header_locs: list[tuple[int, int]]


@dataclass(slots=True)
class Layout:
    """The top-level items of one chunk, in text order."""

    text: str
    module: ModuleText | None
    #: Alias definitions and resource sections outside the module: (start, end).
    prologue: list[tuple[int, int]]
    epilogue: list[tuple[int, int]]
    #: Ops of the module body (or of the implicit module), in order.
    ops: list[FuncText | OpText]
    #: Type alias name (with `!`) -> its definition text.
    type_aliases: dict[str, str]


def match_close(text: str, pos: int) -> int:
    """The end of the bracket group opening at ``pos`` (`(`, `[` or `{`), skipping
    strings and comments. Raises ScanError when it is not closed."""
    depth = 0
    scanner = _scanner(_BRACKETS, text, pos)
    while (match := scanner.search()) is not None:
        token = match.group()
        char = token[0]
        if token == '"':
            scanner = _scanner(_BRACKETS, text, string_end(text, match.start()))
        elif char == '"' or char == "/":
            continue  # a short string or a comment
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return int(match.end())
    raise ScanError(f"unbalanced bracket at offset {pos}")


def _skip_blank(text: str, pos: int, end: int) -> int:
    """The first position at or after ``pos`` that is not whitespace or a comment."""
    while pos < end:
        char = text[pos]
        if char.isspace():
            pos += 1
        elif text.startswith("//", pos):
            newline = text.find("\n", pos)
            pos = end if newline < 0 else newline + 1
        else:
            break
    return min(pos, end)


def _significant_end(text: str, start: int, end: int) -> int:
    """``end`` moved back over trailing whitespace and comment-only lines."""
    while True:
        while end > start and text[end - 1].isspace():
            end -= 1
        line_start = text.rfind("\n", start, end) + 1
        line_start = max(line_start, start)
        if text[line_start:end].lstrip().startswith("//") and line_start > start:
            end = line_start
            continue
        return end


def split_items(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The extents of the items (ops, alias definitions, resource sections) between
    ``start`` and ``end``: an item starts at the first significant character of a line at
    bracket depth 0 and runs to the next."""
    starts: list[int] = []
    depth = 0
    pos = _skip_blank(text, start, end)
    if pos < end:
        starts.append(pos)
    scanner = _scanner(_TOP, text, pos, end)
    while (match := scanner.search()) is not None:
        token = match.group()
        if token == '"':
            scanner = _scanner(_TOP, text, string_end(text, match.start(), end), end)
        elif token == "\n":
            if depth == 0:
                following = _skip_blank(text, match.end(), end)
                # A line that does not start an item continues the last one (a header
                # written over several lines: `-> (…)`, `attributes {…}` on their own).
                if (
                    following < end
                    and following > starts[-1]
                    and _ITEM_START.match(text, following)
                ):
                    starts.append(following)
                    scanner = _scanner(_TOP, text, following, end)
        elif token == "{-#":
            close = text.find("#-}", match.end(), end)
            if close < 0:
                raise ScanError("unterminated resource section")
            scanner = _scanner(_TOP, text, close + 3, end)
        elif token in "([{":
            depth += 1
        elif token in ")]}":
            depth -= 1
            if depth < 0:
                raise ScanError(f"unbalanced '{token}' at offset {match.start()}")
    if depth != 0:
        raise ScanError("unbalanced brackets")
    bounds = [*starts, end]
    return [(s, _significant_end(text, s, e)) for s, e in itertools.pairwise(bounds)]


def _scan_header(text: str, start: int, end: int, *, with_arguments: bool) -> FuncText:
    """Find the body region of the op at ``start`` and, for a function, its arguments'
    names and locations."""
    func = FuncText(start, end, None, None)
    depth = 0
    in_arguments = False
    arguments_seen = False
    after_attributes = False
    attributes_at = start
    scanner = _scanner(_HEADER, text, start, end)
    while (match := scanner.search()) is not None:
        token = match.group()
        first = token[0]
        if token == '"':
            scanner = _scanner(_HEADER, text, string_end(text, match.start(), end), end)
            continue
        if first == '"':
            continue  # a short string
        if token.startswith("//") or token == "->":
            continue
        if token == "loc(":
            close = match_close(text, match.end() - 1)
            func.header_locs.append((match.start(), close))
            if in_arguments and depth == 1 and func.arg_locs:
                func.arg_locs[-1] = (match.start(), close)
            scanner = _scanner(_HEADER, text, close, end)
            continue
        if first == "%":
            if in_arguments and depth == 1:
                func.arg_names.append(token[1:])
                func.arg_locs.append(None)
            continue
        if token == "attributes":
            if depth == 0:
                after_attributes = True
                attributes_at = match.start()
            continue
        if first == "{" and depth == 0:
            if after_attributes:
                after_attributes = False
                close = match_close(text, match.start())
                func.attributes = (attributes_at, close)
                scanner = _scanner(_HEADER, text, close, end)
                continue
            func.body_start = match.start()
            # The item is balanced and this `{` opens at depth 0: when the item ends with
            # a `}`, that one closes the body (nothing but a `loc(…)` or a comment may
            # follow a function's body), and the body need not be scanned again.
            if text[end - 1] == "}" and end - 1 > match.start():
                func.body_end = end
            else:
                func.body_end = match_close(text, match.start())
            return func
        if first in "([{<":
            if first == "(" and depth == 0 and with_arguments and not arguments_seen:
                in_arguments = arguments_seen = True
            depth += 1
        elif first in ")]}>":
            depth -= 1
            if depth < 0:
                raise ScanError(f"unbalanced '{token}' at offset {match.start()}")
            if depth == 0:
                in_arguments = False
    return func


def _symbol_of(text: str, start: int, end: int) -> str | None:
    """The symbol a custom-form op defines: `name [keyword …] @symbol`."""
    match = _NAME.match(text, start, end)
    if match is None:
        return None
    pos = match.end()
    while True:
        pos = _skip_blank(text, pos, end)
        if text.startswith("@", pos):
            return _symbol_token(text, pos + 1, end)
        keyword = _KEYWORD.match(text, pos, end)
        if keyword is None:
            return None
        pos = keyword.end()


def _symbol_token(text: str, pos: int, end: int) -> str | None:
    if text.startswith('"', pos):
        return unquote(text[pos : string_end(text, pos, end)])
    bare = _NAME.match(text, pos, end)
    return None if bare is None else bare.group()


def unquote(literal: str) -> str:
    """The text of a string literal (escapes `\\"`, `\\\\`, `\\n`, `\\t`, `\\XX`)."""
    body = literal[1:-1]
    if "\\" not in body:
        return body
    out = bytearray()
    i = 0
    raw = body.encode("utf-8")
    while i < len(raw):
        if raw[i] == 0x5C and i + 1 < len(raw):
            nxt = chr(raw[i + 1])
            if nxt in '"\\':
                out.append(raw[i + 1])
                i += 2
            elif nxt == "n":
                out.append(10)
                i += 2
            elif nxt == "t":
                out.append(9)
                i += 2
            else:
                out += bytes.fromhex(body.encode()[i + 1 : i + 3].decode())
                i += 3
        else:
            out.append(raw[i])
            i += 1
    return out.decode("utf-8", "replace")


#: `func.func [keywords] @name` at the start of a function item; group 1 is the name.


#: `func.func [keywords] @name` at the start of a function item; group 1 is the name.
FUNC_NAME = re.compile(r'func\.func\s+(?:[a-z]+\s+)*@("[^"\n]*"|[A-Za-z_][A-Za-z0-9_$.\-]*)')


def function_name(text: str, item: FuncText) -> str | None:
    """The name of the function ``item`` defines, as written (unquoted)."""
    match = FUNC_NAME.match(text, item.start, item.end)
    if match is None:
        return None
    name = match.group(1)
    return unquote(name) if name.startswith('"') else name


def scan(text: str) -> Layout:
    """The top-level layout of one chunk. Raises ScanError for shapes it does not know."""
    items = split_items(text, 0, len(text))
    aliases: list[tuple[int, int]] = []
    ops: list[tuple[int, int]] = []
    for start, end in items:
        if text.startswith("{-#", start) or _ALIAS.match(text, start):
            aliases.append((start, end))
        else:
            ops.append((start, end))
    type_aliases = {
        text[s : text.index("=", s)].strip(): text[text.index("=", s) + 1 : e]
        for s, e in aliases
        if text.startswith("!", s)
    }
    module: ModuleText | None = None
    if len(ops) == 1 and _MODULE.match(text, ops[0][0]):
        start, end = ops[0]
        header = _scan_header(text, start, end, with_arguments=False)
        if header.body_start is None or header.body_end is None:
            raise ScanError("module without a body")
        attributes = _attribute_dict(text, start, header.body_start)
        module = ModuleText(
            start, header.body_start, header.body_end, end, attributes, header.header_locs
        )
        ops = split_items(text, header.body_start + 1, header.body_end - 1)
    elif any(_MODULE.match(text, s) for s, _ in ops):
        raise ScanError("a module among other top-level ops")
    prologue = [a for a in aliases if module is None or a[0] < module.start]
    epilogue = [a for a in aliases if a not in prologue]
    if module is None and ops:
        # Implicit module: aliases after its first op print after it.
        prologue = [a for a in aliases if a[0] < ops[0][0]]
        epilogue = [a for a in aliases if a[0] > ops[0][0]]
    layout_ops: list[FuncText | OpText] = []
    for start, end in ops:
        if _FUNC.match(text, start):
            layout_ops.append(_scan_header(text, start, end, with_arguments=True))
        elif text.startswith('"builtin.module"', start):
            raise ScanError("generic-form module")
        elif not _OP_START.match(text, start):
            raise ScanError(f"not an operation at offset {start}")
        else:
            layout_ops.append(OpText(start, end, _symbol_of(text, start, end)))
    return Layout(text, module, prologue, epilogue, layout_ops, type_aliases)


def _attribute_dict(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The range of `attributes {…}` in an op header, if present."""
    scanner = _scanner(_HEADER, text, start, end)
    while (match := scanner.search()) is not None:
        if match.group() == '"':
            scanner = _scanner(_HEADER, text, string_end(text, match.start(), end), end)
        elif match.group() == "attributes":
            brace = text.find("{", match.end(), end)
            if brace < 0:
                return None
            return match.start(), match_close(text, brace)
    return None


def locations(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Every `loc(…)` range between ``start`` and ``end`` (not inside strings/comments)."""
    found: list[tuple[int, int]] = []
    scanner = _scanner(_LOCS, text, start, end)
    while (match := scanner.search()) is not None:
        if match.group() == '"':
            scanner = _scanner(_LOCS, text, string_end(text, match.start(), end), end)
        elif match.group() == "loc(":
            close = match_close(text, match.end() - 1)
            found.append((match.start(), close))
            scanner = _scanner(_LOCS, text, close, end)
    return found


def _symbol_tokens(text: str, start: int, end: int) -> Iterator[tuple[int, int, str]]:
    """(start, end, name) of each symbol reference (`@name`, `@"name"`)."""
    scanner = _scanner(_SYMBOL_REF, text, start, end)
    while (match := scanner.search()) is not None:
        token = match.group()
        if token == '"':
            scanner = _scanner(_SYMBOL_REF, text, string_end(text, match.start(), end), end)
        elif token == '@"':
            close = string_end(text, match.start() + 1, end)
            yield match.start(), close, unquote(text[match.start() + 1 : close])
            scanner = _scanner(_SYMBOL_REF, text, close, end)
        elif token.startswith("@"):
            yield match.start(), match.end(), token[1:]


def symbol_references(text: str, start: int = 0, end: int | None = None) -> set[str]:
    """The root names of the symbol references (`@name`, `@"name"`) in a text."""
    end = len(text) if end is None else end
    if text.find("@", start, end) < 0:
        return set()
    return {name for _, _, name in _symbol_tokens(text, start, end)}


def rename_symbols(text: str, renames: Mapping[str, str]) -> str:
    """``text`` with every symbol reference to a key of ``renames`` redirected."""
    if not renames or "@" not in text:
        return text
    pieces: list[str] = []
    pos = 0
    for start, end, name in _symbol_tokens(text, 0, len(text)):
        new = renames.get(name)
        if new is not None:
            pieces.append(text[pos:start])
            pieces.append(symbol_text(new))
            pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


def string_end(text: str, quote_at: int, end: int | None = None) -> int:
    """The end of the string literal whose opening quote is at ``quote_at``: after its
    closing quote, or at the end of its line when it is not closed there (MLIR strings
    do not span lines)."""
    end = len(text) if end is None else end
    pos = quote_at + 1
    while True:
        close = text.find('"', pos, end)
        if close < 0:
            close = end
            break
        backslashes = 0
        while text[close - 1 - backslashes] == "\\":
            backslashes += 1
        if backslashes % 2 == 0:
            break
        pos = close + 1
    newline = text.find("\n", quote_at, close)
    return newline if newline >= 0 else min(close + 1, end)


def symbol_text(name: str) -> str:
    """``@name`` as MLIR prints a symbol reference: bare when it is an identifier, else a
    string literal."""
    return "@" + (name if BARE_IDENTIFIER.fullmatch(name) else quote(name))


def quote(name: str) -> str:
    """A string literal for ``name`` as MLIR prints one: a backslash doubled, a quote and
    every byte outside printable ASCII as a backslash and two hex digits."""
    out = []
    for byte in name.encode("utf-8"):
        char = chr(byte)
        if char == "\\":
            out.append("\\\\")
        elif 0x20 <= byte < 0x7F and char != '"':
            out.append(char)
        else:
            out.append(f"\\{byte:02X}")
    return '"' + "".join(out) + '"'


def drop_comments(text: str) -> str:
    """``text`` without its comments (and without lines that held only a comment)."""
    if "//" not in text:
        return text
    pieces: list[str] = []
    pos = 0
    scanner = _scanner(_COMMENT_LINE, text)
    while (match := scanner.search()) is not None:
        if match.group() == '"':
            scanner = _scanner(_COMMENT_LINE, text, string_end(text, match.start()))
            continue
        pieces.append(text[pos : match.start()])
        pos = match.end()
    pieces.append(text[pos:])
    stripped = "".join(pieces)
    return "\n".join(
        line
        for line, original in zip(stripped.split("\n"), text.split("\n"), strict=True)
        if line.strip() or not original.strip()
    )


def mask(text: str, ranges: Iterable[tuple[int, int]]) -> str:
    """``text`` with each range replaced by as many spaces (offsets are kept)."""
    pieces: list[str] = []
    pos = 0
    for start, end in sorted(ranges):
        start, end = max(start, pos), min(end, len(text))
        if end <= start:
            continue
        pieces.append(text[pos:start])
        pieces.append(" " * (end - start))
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


def has_structured_signature(text: str, func: FuncText, type_aliases: Mapping[str, str]) -> bool:
    """Whether a function's header spells a structured type (directly or through a type
    alias): a pass that lowers structures must rewrite its body."""
    end = func.end if func.body_start is None else func.body_start
    header = text[func.start : end]
    if _STRUCTURED_TYPE.search(header):
        return True
    return any(
        _STRUCTURED_TYPE.search(type_aliases[name])
        for name in set(_TYPE_ALIAS_USE.findall(header))
        if name in type_aliases
    )


def has_structured_body(text: str, func: FuncText) -> bool:
    """Whether a body works with structured values (`abi` ops, tuple or dict types)."""
    if func.body_start is None or func.body_end is None:
        return False
    return any(text.find(word, func.body_start, func.body_end) >= 0 for word in _STRUCTURED_BODY)
