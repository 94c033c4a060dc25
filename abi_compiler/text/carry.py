"""Carried text: the parts of an MLIR module that no pass reads are not parsed into IR but
kept as their source text and printed back byte for byte (docs/spec.md §8.6).

The ABI is a property of function signatures. `scan` finds, reading the text by MLIR's
lexical rules (`abi_compiler.text.lexer`), the top-level items of one input chunk: alias
definitions, `{-# … #-}` resource sections, the module op and each op in its body, and
for every `func.func` its header (name, arguments with their types, attributes and
locations, results, function attributes), its body region and what follows it
(`loc(…)`). The driver then hands xDSL a *masked* copy of the text — carried parts
replaced by spaces, so every offset (and diagnostic position) stays that of the original
file — in which only headers and the bodies a pass must rewrite are left to parse.
Locations are masked where MLIR has them (the trailing `loc(…)` of an op, an argument
or a block argument: `locations`), never inside an attribute or a type: they often name
aliases defined after the module, which xDSL cannot read, and `abi-opt` does not print
locations of parsed ops anyway.

What is carried prints as it was written, except that comments are dropped (as MLIR's
printer drops them) and references to a symbol a pass renamed are redirected
(`abi_compiler.text.symbols`: whole symbol tokens, never inside strings or comments,
and never inside a nested symbol table — a nested `module @x {…}` resolves its own
names). The tokens are read with `lexer.tokens` and `lexer.Cursor`.

Sections: the items of a chunk and the parts of each function header (`scan`), the
locations MLIR reads as locations and the comments (`locations`, `comments`), what
printing does to carried text (`drop_comments`, `one_line`, `indented`), masking and
whether a function works with structured values.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from abi_compiler.text import lexer, structured_types
from abi_compiler.text.lexer import (
    AT,
    BANG,
    BARE,
    BODY,
    BRACKETS,
    COMMENT,
    DIALECT_BODY_START,
    HASH,
    OP_NAME,
    PUNCT,
    SHORT_STRING,
    STRING_TOKEN,
    SUFFIX_ID,
    Cursor,
    LexError,
    group_end,
    skip_blank,
    string_end,
    tokens,
)


class ScanError(Exception):
    """The text does not have the shape the scanner understands (unbalanced brackets, a
    generic-form module, …): the driver then parses the whole chunk as before."""


@dataclass(slots=True)
class ArgText:
    """One argument (or result) of a `func.func` header, as written."""

    #: Where it starts: its `%`, or its type in a declaration (or a result).
    start: int
    #: Its name without `%` (None in a declaration, and for a result).
    name: str | None
    type: tuple[int, int]
    #: Its attribute dictionary `{…}`, if written.
    attributes: tuple[int, int] | None = None
    #: Its location `loc(…)`, if written.
    loc: tuple[int, int] | None = None


@dataclass(slots=True)
class FuncText:
    """Where the parts of one top-level `func.func` are (offsets into the chunk text)."""

    start: int
    end: int
    #: Start of the body region's `{`; None for a declaration.
    body_start: int | None = None
    #: End of the body region (after its `}`).
    body_end: int | None = None
    #: The function's name as MLIR reads it (None: a string literal MLIR rejects).
    name: str | None = None
    #: The `@name` token.
    name_span: tuple[int, int] = (0, 0)
    #: `private`, `public` or `nested`, if written.
    visibility: str | None = None
    args: list[ArgText] = field(default_factory=list[ArgText])
    #: The results after `->` (None: no `->`), and whether they are in parentheses.
    results: list[ArgText] | None = None
    results_parenthesized: bool = False
    #: End of the signature: after the arguments' `)` or the last result.
    signature_end: int = 0
    #: The range of `attributes {…}` (the function's attribute dictionary), if written.
    attributes: tuple[int, int] | None = None
    #: The locations MLIR reads as locations: each argument's, and the function's own
    #: `loc(…)` after its body (or after a declaration).
    header_locs: list[tuple[int, int]] = field(default_factory=list["tuple[int, int]"])
    #: Whether an argument or result type spells a structured value (docs/spec.md §3.1).
    structured: bool = False
    #: The type aliases (`!name`) the argument and result types use.
    type_alias_uses: frozenset[str] = frozenset()
    #: False when the header is not as MLIR writes one (xDSL then reads it, and says
    #: what is wrong): only its body and locations are known.
    plain: bool = True

    @property
    def arg_names(self) -> list[str]:
        """The name of each argument as written (without `%`)."""
        return [arg.name or "" for arg in self.args]

    @property
    def arg_locs(self) -> list[tuple[int, int] | None]:
        """The `loc(…)` range written after each argument, if any."""
        return [arg.loc for arg in self.args]


@dataclass(slots=True)
class OpText:
    """A top-level op other than `func.func`, carried whole."""

    start: int
    end: int
    #: The symbol it defines (custom form `dialect.op [keywords] @name …`, or a generic
    #: op's `sym_name`), if any.
    symbol: str | None
    #: A nested module (custom form): the functions of its body.
    functions: list[FuncText] | None = None


@dataclass(slots=True)
class ModuleText:
    """The explicit `module` op: its header, body and what follows its `}`."""

    start: int
    body_start: int
    body_end: int
    end: int
    #: The `attributes {…}` range of the header, if any.
    attributes: tuple[int, int] | None
    #: Its location, after the body.
    header_locs: list[tuple[int, int]]


@dataclass(slots=True)
class AliasText:
    """A top-level alias definition `#name = …` / `!name = …`."""

    start: int
    end: int
    #: With its `#` or `!`.
    name: str
    #: Where the aliased attribute or type starts.
    value_start: int
    #: A location alias (`#loc3 = loc(…)`): MLIR lets a location alias be used before
    #: its definition; no other.
    location: bool


@dataclass(slots=True)
class Layout:
    """The top-level items of one chunk, in text order."""

    text: str
    module: ModuleText | None
    #: Alias definitions and resource sections printed before the module: (start, end).
    prologue: list[tuple[int, int]]
    #: … and after it.
    epilogue: list[tuple[int, int]]
    #: Ops of the module body (or of the implicit module), in order.
    ops: list[FuncText | OpText]
    #: Type alias name (with `!`) -> its definition text.
    type_aliases: dict[str, str]
    #: Every alias definition, in text order.
    aliases: list[AliasText] = field(default_factory=list[AliasText])
    #: The type aliases that stand for a structured type (directly or through others).
    structured_aliases: set[str] = field(default_factory=set[str])


# -- Items ----------------------------------------------------------------------------------

_ID_END = lexer.BARE_ID_END
_MODULE = re.compile(rf"(?:builtin\.)?module{_ID_END}")
_FUNC = re.compile(rf"func\.func{_ID_END}")
# IREE's function op (`util.func`: what its input pipelines make of a `func.func`), carried
# whole as an `OpText`; its header reads as a `func.func` header does (`functions`).
_UTIL_FUNC = re.compile(rf"util\.func{_ID_END}")
_GENERIC_OP = rf"{SHORT_STRING}[ \t]*\("
# What an op starts with: its name, a generic op's quoted name, or its results.
_OP_START = re.compile(
    rf"(?:{OP_NAME}|(?:builtin\.)?module){_ID_END}|{_GENERIC_OP}|%{SUFFIX_ID}[ \t]*[:,=]"
)
# What starts a top-level item on a new line: an op, an alias definition, a resource
# section.
_ITEM_START = re.compile(rf"{_OP_START.pattern}|{lexer.ALIAS_DEFINITION.pattern}|\{{-#")
# What starts another op on the same line, after a `}` or `)` that closes at depth 0
# (`} func.func @b(…) {`).
_NEXT_OP = re.compile(rf"(?:{OP_NAME}|(?:builtin\.)?module)[ \t\r\n]|{_GENERIC_OP}")
_VISIBILITIES = frozenset(("private", "public", "nested"))
# Item boundaries: line ends and groups (`lexer.LINES`), and a function or a module that
# starts on the line of another op.
_ITEMS = re.compile(rf"{lexer.LINES.pattern}|(?:func\.func|(?:builtin\.)?module)(?=[ \t\r\n])")


def split_items(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The extents of the items (ops, alias definitions, resource sections) between
    ``start`` and ``end``: an item starts at the first significant token of a line
    outside any group, at an op that follows a group closed on the same line
    (`} func.func @b(…) {`), or at a `func.func` or `module` after blanks on the line of
    another op; it runs to the next. Raises LexError for unbalanced text."""
    starts: list[int] = []
    pos = skip_blank(text, start, end)
    if pos < end:
        starts.append(pos)
    lines = _ITEMS
    scanner = lexer.scanner(lines, text, pos, end)
    while (match := scanner.search()) is not None:
        token = match.group()
        char = token[0]
        if char in "fmb":
            # `func.func` or `module` after blanks on the line of another op
            # (`func.func private @d(i32) -> i32  func.func @f() {`): an op of its own.
            at = match.start()
            if at > starts[-1] and text[at - 1] in " \t":
                starts.append(at)
        elif char == "\n" or char == "\r":
            following = skip_blank(text, match.end(), end)
            # A line that does not start an item continues the last one (a header
            # written over several lines: `-> (…)`, `attributes {…}` on their own).
            if following < end and following > starts[-1] and _ITEM_START.match(text, following):
                starts.append(following)
                scanner = lexer.scanner(lines, text, following, end)
            elif following > match.end():
                # The blank and comment lines up to `following` start no item either (each
                # of their line ends finds the same `following`): continue after them, not
                # at the next line end — skipping the rest again at each of n comment
                # lines took time quadratic in n.
                scanner = lexer.scanner(lines, text, following, end)
        elif char in "([{":
            if token == "{-#":
                if match.start() > starts[-1]:
                    starts.append(match.start())
                scanner = lexer.scanner(
                    lines, text, lexer.metadata_end(text, match.start(), end), end
                )
                continue
            # A group is skipped whole (its line ends start no item).
            close = group_end(text, match.start(), end)
            following = close
            while following < end and text[following] in " \t":
                following += 1
            if char != "[" and _NEXT_OP.match(text, following, end):
                starts.append(following)
            scanner = lexer.scanner(lines, text, following, end)
        elif char in ")]}":
            raise LexError(f"unbalanced '{char}'", match.start())
        elif char == '"':
            if token == '"':
                scanner = lexer.scanner(lines, text, string_end(text, match.start(), end), end)
        elif (after := lexer.skip(text, match, end)) is not None:
            scanner = lexer.scanner(lines, text, after, end)
    bounds = [*starts, end]
    return [(s, _significant_end(text, s, e)) for s, e in itertools.pairwise(bounds)]


def _significant_end(text: str, start: int, end: int) -> int:
    """``end`` moved back over trailing whitespace and comment-only lines."""
    while True:
        while end > start and text[end - 1] in " \t\r\n":
            end -= 1
        line_start = _line_start(text, start, end)
        if line_start > start and text[line_start:end].lstrip(" \t").startswith("//"):
            end = line_start
            continue
        return end


def _line_start(text: str, start: int, end: int) -> int:
    """Where the line holding ``end`` starts (after a `\n` or `\r`), not before ``start``.
    Looked for in windows that double: `rfind` of a line end the line does not hold
    (`\r` in a file of `\n`s) would run back to ``start`` at every line, which made
    thousands of comment lines after an item take quadratic time."""
    window = 128
    while True:
        low = max(start, end - window)
        found = max(text.rfind("\n", low, end), text.rfind("\r", low, end))
        if found >= 0:
            return found + 1
        if low == start:
            return start
        window *= 2


_STRUCTURED_NAMES = structured_types.STRUCTURED_DIALECT_TYPES
# The element types of a tensor of references.
_REFERENCE_NAMES = structured_types.REFERENCE_TYPES


def _type(cursor: Cursor, func: FuncText) -> tuple[int, int]:
    """Read the type at the cursor (up to a `,`, `)`, `{`, `loc(…)` or `attributes` at
    its own level) and note what it uses in ``func``."""
    text = cursor.text
    start = cursor.start
    nesting = lexer.Nesting(text, cursor.end)
    stack = nesting.stack
    owners: list[str] = []  # the name before each open group's `<` ("" for the others)
    while cursor.kind:
        kind = cursor.kind
        if kind == PUNCT:
            if cursor.stop - cursor.start == 1:
                char = text[cursor.start]
                if not stack and char in ",){":
                    break
                if char in BRACKETS:
                    try:
                        change = nesting.bracket(cursor.start)
                    except LexError as error:
                        raise ScanError(f"{error.args[0]} at offset {cursor.start}") from None
                    if change > 0:
                        previous_kind, previous_start, previous_stop = cursor.previous
                        owner = (
                            char == "<" and previous_kind == BARE and previous_stop == cursor.start
                        )
                        owners.append(text[previous_start:previous_stop] if owner else "")
                    elif change < 0:
                        owners.pop()
        elif kind == BANG:
            name = cursor.value
            if name.startswith(_STRUCTURED_NAMES) or (
                # A tensor of references (docs/spec.md §8.3), or of an alias that may be one; a
                # tensor of another dialect's type (`!quant.uniform<…>`) is a leaf.
                owners and owners[-1] == "tensor" and (name in _REFERENCE_NAMES or "." not in name)
            ):
                func.structured = True
            elif "." not in name:
                func.type_alias_uses |= {name}
        elif kind == BARE:
            if not stack and (cursor.keyword("attributes") or cursor.location() is not None):
                break
            if cursor.keyword("tuple") and text.startswith("<", cursor.stop):
                func.structured = True
        cursor.next()
    if stack or cursor.start == start:
        raise ScanError(f"not a type at offset {start}")
    return start, cursor.previous[2]


def _scan_function(text: str, start: int, end: int) -> FuncText:
    """The parts of the `func.func` item ``text[start:end]``; of a header MLIR would
    reject, only its body and locations (`FuncText.plain` is False)."""
    try:
        return _function(text, start, end)
    except ScanError:
        return _malformed_function(text, start, end)


def _malformed_function(text: str, start: int, end: int) -> FuncText:
    """The body of a function whose header does not read: the first `{` outside any
    group that does not follow `attributes`; and its trailing locations."""
    func = FuncText(start, end, plain=False)
    cursor = Cursor(text, start, end)
    cursor.next()  # `func.func`
    if cursor.kind == BARE and cursor.value in _VISIBILITIES:
        cursor.next()
    if cursor.kind == AT:
        func.name_span = (cursor.start, cursor.stop)
        func.name = lexer.symbol_name(cursor.value)
    while cursor.kind:
        if cursor.keyword("attributes"):
            cursor.next()
            cursor.braces()
            continue
        if cursor.punct("{"):
            func.body_start = cursor.start
            func.body_end = group_end(text, cursor.start, end)
            cursor.jump(func.body_end)
            break
        if cursor.kind == PUNCT and cursor.value in ("(", "["):
            cursor.jump(group_end(text, cursor.start, end))
            continue
        cursor.next()
    func.header_locs = locations(text, start, func.body_start or end)
    if func.body_end is not None:
        func.header_locs += locations(text, func.body_end, end)
    return func


# Most types in one match: a name, then a `<…>` holding no string, bracket, comment,
# `->` (its `>` closes nothing) or deeper group than one (`tensor<?x8xf32>`,
# `tensor<4x!util.list<?>>`); where MLIR's rules and these agree, and what follows is
# what may follow a type. Others are read token by token (`_type`).
_SIMPLE_TYPE_CHAR = r'(?:[^<>"(){}\[\]/-]|-(?!>))'
_SIMPLE_TYPE = re.compile(
    rf"(?:{lexer.BARE_ID}|!{SUFFIX_ID})"
    rf"(?:<(?:{_SIMPLE_TYPE_CHAR}|<{_SIMPLE_TYPE_CHAR}*>)*>)?"
)
_AFTER_TYPE = re.compile(rf"[,){{]|(?:loc|attributes){_ID_END}|\Z")
# In a simple type's text (no strings): what makes it structured, and type alias names.
_STRUCTURED_TYPE = re.compile(
    rf"{structured_types.STRUCTURED_BUILTIN_TYPE}<"
    rf"|!(?:{'|'.join(re.escape(n[1:]) for n in _STRUCTURED_NAMES)})(?!{lexer.SUFFIX_ID_CHAR})"
    rf"|tensor<[^<>]*!(?:{'|'.join(re.escape(n[1:]) for n in sorted(_REFERENCE_NAMES))}"
    rf"|[A-Za-z0-9_$\-]+)(?!{lexer.SUFFIX_ID_CHAR})"
)
_TYPE_NAME = re.compile("!" + SUFFIX_ID)
_WORD = re.compile(lexer.BARE_ID)


def _type_at(text: str, pos: int, end: int, func: FuncText) -> tuple[int, int]:
    """The type at ``pos`` (noted in ``func`` as `_type` notes it): its range."""
    simple = _SIMPLE_TYPE.match(text, pos, end)
    if simple is not None and _AFTER_TYPE.match(text, skip_blank(text, simple.end(), end), end):
        _note_type(simple.group(), func)
        return pos, simple.end()
    return _type(Cursor(text, pos, end), func)


def _note_type(written: str, func: FuncText) -> None:
    """Note in ``func`` what the simple type ``written`` (no strings) uses."""
    if _STRUCTURED_TYPE.search(written):
        func.structured = True
    if "!" in written and (
        aliases := {name for name in _TYPE_NAME.findall(written) if "." not in name}
    ):
        func.type_alias_uses |= aliases


def _location_at(text: str, pos: int, end: int) -> int | None:
    """The end of the `loc(…)` at ``pos``, if one is there."""
    if not text.startswith("loc", pos) or _ID_CHAR.match(text, pos + 3):
        return None
    paren = skip_blank(text, pos + 3, end)
    return group_end(text, paren, end) if text.startswith("(", paren) else None


_ID_CHAR = re.compile(lexer.BARE_ID_CHAR)


def _attributes_at(text: str, pos: int, end: int) -> tuple[int, int] | None:
    """The `attributes {…}` at ``pos``, if there."""
    if not text.startswith("attributes", pos) or _ID_CHAR.match(text, pos + 10):
        return None
    brace = skip_blank(text, pos + 10, end)
    if not text.startswith("{", brace):
        raise ScanError(f"'attributes' without a dictionary at offset {pos}")
    return pos, group_end(text, brace, end)


# Most values of a header in one match: `%name: T {…}` (or `T {…}`) with a simple type
# (`_SIMPLE_TYPE`) and a dictionary holding no group of braces and no string with an
# escape, up to the `,` or `)` after it. Others are read a part at a time.
_BLANK_RUN = r"[ \t\r\n]*"
_SIMPLE_DICT = r'\{(?:[^{}"/]|"[^"\\\n\v\f]*")*\}'
_SIMPLE_ARGUMENT = re.compile(
    rf"%({SUFFIX_ID}){_BLANK_RUN}:{_BLANK_RUN}({_SIMPLE_TYPE.pattern})"
    rf"(?:{_BLANK_RUN}({_SIMPLE_DICT}))?{_BLANK_RUN}(?=[,)])"
)
_SIMPLE_RESULT = re.compile(
    rf"({_SIMPLE_TYPE.pattern})(?:{_BLANK_RUN}({_SIMPLE_DICT}))?{_BLANK_RUN}(?=[,)])"
)


def _typed_values(
    text: str, pos: int, end: int, func: FuncText, *, arguments: bool
) -> tuple[list[ArgText], int]:
    """The `(…)` list of arguments or results at ``pos`` (after its `(`): each with its
    range, attributes and location; and the position after the `)`."""
    values: list[ArgText] = []
    simple = _SIMPLE_ARGUMENT if arguments else _SIMPLE_RESULT
    first = 2 if arguments else 1
    pos = skip_blank(text, pos, end)
    while not text.startswith(")", pos):
        value_start = pos
        if (match := simple.match(text, pos, end)) is not None:
            _note_type(match.group(first), func)
            attributes = match.span(first + 1) if match.start(first + 1) >= 0 else None
            values.append(
                ArgText(
                    value_start,
                    match.group(1) if arguments else None,
                    match.span(first),
                    attributes,
                )
            )
            pos = match.end()
            if text.startswith(",", pos):
                pos = skip_blank(text, pos + 1, end)
                if text.startswith(")", pos):
                    raise ScanError(f"a trailing ',' at offset {pos}")
            continue
        name = None
        if arguments and text.startswith("%", pos):
            match = lexer.SSA_NAME.match(text, pos, end)
            if match is None:
                raise ScanError(f"not an argument at offset {pos}")
            name = match.group()[1:]
            pos = skip_blank(text, match.end(), end)
            if not text.startswith(":", pos):
                raise ScanError(f"an argument without a type at offset {value_start}")
            pos = skip_blank(text, pos + 1, end)
        value = ArgText(value_start, name, _type_at(text, pos, end, func))
        pos = skip_blank(text, value.type[1], end)
        if text.startswith("{", pos):
            brace = group_end(text, pos, end)
            value.attributes = (pos, brace)
            pos = skip_blank(text, brace, end)
        if arguments and (close := _location_at(text, pos, end)) is not None:
            value.loc = (pos, close)
            func.header_locs.append(value.loc)
            pos = skip_blank(text, close, end)
        values.append(value)
        if text.startswith(",", pos):
            pos = skip_blank(text, pos + 1, end)
            if text.startswith(")", pos):
                raise ScanError(f"a trailing ',' at offset {pos}")
        elif not text.startswith(")", pos):
            raise ScanError(f"unexpected text at offset {pos}")
    return values, pos + 1


def _function(text: str, start: int, end: int) -> FuncText:
    func = FuncText(start, end)
    op_name = _UTIL_FUNC.match(text, start) or _FUNC.match(text, start)
    pos = skip_blank(text, start if op_name is None else op_name.end(), end)
    word = _WORD.match(text, pos, end)
    if word is not None and word.group() in _VISIBILITIES:
        func.visibility = word.group()
        pos = skip_blank(text, word.end(), end)
    name = lexer.SYMBOL_REFERENCE.match(text, pos, end)
    if name is None:
        raise ScanError(f"a function without a name at offset {start}")
    name_end = string_end(text, pos + 1, end) if name.group() == '@"' else name.end()
    func.name_span = (pos, name_end)
    func.name = lexer.symbol_name(text[pos:name_end])
    pos = skip_blank(text, name_end, end)
    if not text.startswith("(", pos):
        raise ScanError(f"a function without arguments at offset {start}")
    func.args, pos = _typed_values(text, pos + 1, end, func, arguments=True)
    func.signature_end = pos
    pos = skip_blank(text, pos, end)
    if text.startswith("->", pos):
        pos = skip_blank(text, pos + 2, end)
        if text.startswith("(", pos):
            func.results_parenthesized = True
            results, pos = _typed_values(text, pos + 1, end, func, arguments=False)
        else:
            result = _type_at(text, pos, end, func)
            results, pos = [ArgText(pos, None, result)], result[1]
        func.results = results
        func.signature_end = pos
        pos = skip_blank(text, pos, end)
    if (attributes := _attributes_at(text, pos, end)) is not None:
        func.attributes = attributes
        pos = skip_blank(text, attributes[1], end)
    if text.startswith("{", pos):
        func.body_start = pos
        # The item is balanced and this `{` opens at depth 0: when the item ends with a
        # `}`, that one closes the body (only a `loc(…)` may follow a function's body),
        # and the body need not be scanned again.
        if text[end - 1] == "}" and end - 1 > pos:
            func.body_end = end
        else:
            func.body_end = group_end(text, pos, end)
        pos = skip_blank(text, func.body_end, end)
    while pos < end:
        close = _location_at(text, pos, end)
        if close is None:
            raise ScanError(f"unexpected text after a function at offset {pos}")
        func.header_locs.append((pos, close))
        pos = skip_blank(text, close, end)
    return func


def _scan_module(text: str, start: int, end: int) -> ModuleText:
    cursor = Cursor(text, start, end)
    cursor.next()  # `module`
    if cursor.kind == AT:
        cursor.next()
    attributes = None
    if cursor.keyword("attributes"):
        keyword = cursor.start
        cursor.next()
        span = cursor.braces()
        if span is None:
            raise ScanError(f"'attributes' without a dictionary at offset {keyword}")
        attributes = (keyword, span[1])
    if not cursor.punct("{"):
        raise ScanError("module without a body")
    body_start = cursor.start
    # As for a function: the item is balanced, so a last `}` closes the body.
    body_end = (
        end if text[end - 1] == "}" and end - 1 > body_start else group_end(text, body_start, end)
    )
    cursor.jump(body_end)
    locations: list[tuple[int, int]] = []
    while cursor.kind:
        close = cursor.location()
        if close is None:
            raise ScanError(f"unexpected text after a module at offset {cursor.start}")
        locations.append((cursor.start, close))
        cursor.jump(close)
    return ModuleText(start, body_start, body_end, end, attributes, locations)


def _symbol_of(text: str, start: int, end: int) -> str | None:
    """The symbol an op defines: `name [keyword | "keyword" …] @symbol` in custom form,
    `sym_name = "…"` in a generic op's properties or attributes."""
    cursor = Cursor(text, start, end)
    if cursor.kind == STRING_TOKEN:
        return _generic_symbol(text, start, end)
    if cursor.kind != BARE:
        return None
    cursor.next()
    while cursor.kind == BARE or cursor.kind == STRING_TOKEN:
        cursor.next()
    return lexer.symbol_name(cursor.value) if cursor.kind == AT else None


def _generic_symbol(text: str, start: int, end: int) -> str | None:
    if text.find("sym_name", start, end) < 0:
        return None
    cursor = Cursor(text, start, end)
    nesting = lexer.Nesting(text, end)
    stack = nesting.stack
    while cursor.kind:
        if cursor.kind == PUNCT:
            if cursor.stop - cursor.start == 1 and text[cursor.start] in BRACKETS:
                try:
                    nesting.bracket(cursor.start)
                except LexError:
                    return None  # unbalanced: the parser says where
        elif cursor.keyword("sym_name") and stack in (["{"], ["<", "{"]):
            cursor.next()
            if cursor.punct("="):
                cursor.next()
                if cursor.kind == STRING_TOKEN:
                    return lexer.unquote(cursor.value)
            continue
        cursor.next()
    return None


def scan(text: str) -> Layout:
    """The top-level layout of one chunk. Raises ScanError for shapes it does not know."""
    try:
        return _scan(text)
    except lexer.StringEscapeError:
        raise  # no parser reads it either: an error, not a shape to parse otherwise
    except LexError as error:
        raise ScanError(str(error)) from None


def _scan(text: str) -> Layout:
    aliases: list[AliasText] = []
    sections: list[tuple[int, int]] = []  # resource sections
    ops: list[tuple[int, int]] = []
    for start, end in split_items(text, 0, len(text)):
        if text.startswith("{-#", start):
            sections.append((start, end))
        elif (alias := lexer.ALIAS_DEFINITION.match(text, start)) is not None:
            value_start = skip_blank(text, alias.end(), end)
            cursor = Cursor(text, value_start, end)
            location = cursor.location() is not None
            aliases.append(AliasText(start, end, alias.group(1), value_start, location))
        else:
            ops.append((start, end))
    module: ModuleText | None = None
    if len(ops) == 1 and _MODULE.match(text, ops[0][0]):
        module = _scan_module(text, *ops[0])
        ops = split_items(text, module.body_start + 1, module.body_end - 1)
    elif len(ops) == 1 and text.startswith('"builtin.module"', ops[0][0]):
        raise ScanError("generic-form module")
    layout_ops: list[FuncText | OpText] = []
    for start, end in ops:
        if _FUNC.match(text, start):
            layout_ops.append(_scan_function(text, start, end))
        elif not _OP_START.match(text, start):
            raise ScanError(f"not an operation at offset {start}")
        else:
            op = OpText(start, end, _symbol_of(text, start, end))
            if _MODULE.match(text, start):
                op.functions = _nested_functions(text, start, end)
            layout_ops.append(op)
    outside = sorted([(a.start, a.end) for a in aliases] + sections)
    if module is not None:
        prologue = [item for item in outside if item[0] < module.start]
    else:
        # An implicit module: what is defined between its ops prints before it, except
        # location aliases and resource sections (which may come after their uses).
        first = ops[0][0] if ops else len(text)
        late = {(a.start, a.end) for a in aliases if a.location} | set(sections)
        prologue = [item for item in outside if item[0] < first or item not in late]
    epilogue = [item for item in outside if item not in prologue]
    type_aliases = {a.name: text[a.value_start : a.end] for a in aliases if a.name[0] == "!"}
    layout = Layout(text, module, prologue, epilogue, layout_ops, type_aliases, aliases)
    layout.structured_aliases = _structured_aliases(text, aliases)
    return layout


def functions(layout: Layout) -> list[FuncText]:
    """The top-level functions of ``layout``, in order: each `func.func` item, and each
    `util.func` op (IREE's function op, carried whole) read as one: its header has the
    same parts (a tied result, `-> %x` or `-> (%x as T)`, reads as a result type);
    one the scanner cannot read, only by its body (`FuncText.plain` is False)."""
    found: list[FuncText] = []
    for op in layout.ops:
        if isinstance(op, FuncText):
            found.append(op)
        elif _UTIL_FUNC.match(layout.text, op.start):
            found.append(_scan_function(layout.text, op.start, op.end))
    return found


def _nested_functions(text: str, start: int, end: int) -> list[FuncText]:
    """The functions of the nested module ``text[start:end]`` (carried whole, but its
    functions are there: passes see them, as they see a parsed nested module's)."""
    try:
        module = _scan_module(text, start, end)
        items = split_items(text, module.body_start + 1, module.body_end - 1)
    except (ScanError, LexError):
        return []
    return [_scan_function(text, s, e) for s, e in items if _FUNC.match(text, s)]


def _structured_aliases(text: str, aliases: list[AliasText]) -> set[str]:
    """The type aliases whose type is structured, directly or through other aliases."""
    uses: dict[str, set[str]] = {}
    structured: set[str] = set()
    for alias in aliases:
        if alias.name[0] != "!":
            continue
        probe = FuncText(alias.start, alias.end)
        try:
            _type(Cursor(text, alias.value_start, alias.end), probe)
        except (ScanError, LexError):
            continue
        if probe.structured:
            structured.add(alias.name)
        uses[alias.name] = set(probe.type_alias_uses)
    changed = True
    while changed:
        changed = False
        for name, used in uses.items():
            if name not in structured and used & structured:
                structured.add(name)
                changed = True
    return structured


# -- Locations ------------------------------------------------------------------------------

# A `loc(…)` after one of these is an attribute (`[loc(…)]`, `{a = loc(…)}`, `<loc(…)>`),
# not the location of an op or an argument.
_VALUE_BEFORE = frozenset("=[,(<{:")


_LOCATIONS = re.compile(rf'{SHORT_STRING}|"|{COMMENT}|{DIALECT_BODY_START}|loc')
_WORD_CHARS = frozenset(c for c in map(chr, range(128)) if re.fullmatch(lexer.ID_TOKEN_CHAR, c))


def locations(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Every location MLIR reads as one between ``start`` and ``end``: the trailing
    `loc(…)` of an op, an argument or a block argument. A `loc(…)` that is an attribute
    (in an array, a dictionary, a dialect body) is a value, and not among them."""
    found: list[tuple[int, int]] = []
    if text.find("loc", start, end) < 0:
        return found
    comment_starts: dict[int, int] = {}  # end -> start of each comment passed
    walk = lexer.scanner(_LOCATIONS, text, start, end)
    while (match := walk.search()) is not None:
        token = match.group()
        char = token[0]
        if char == '"':
            if len(token) == 1:
                walk = lexer.scanner(_LOCATIONS, text, string_end(text, match.start(), end), end)
            continue
        if char == "#" or char == "!":
            close = lexer.dialect_body_end(text, match.end() - 1, end)
            walk = lexer.scanner(_LOCATIONS, text, close, end)
            continue
        if char == "/":
            comment_starts[match.end()] = match.start()
            continue
        # The keyword `loc`, then blanks and a `(`.
        pos = match.start()
        if (pos > start and text[pos - 1] in _WORD_CHARS) or _ID_CHAR.match(text, pos + 3):
            continue
        paren = skip_blank(text, pos + 3, end)
        if not text.startswith("(", paren):
            continue
        close = group_end(text, paren, end)
        # What precedes it, past blanks and comments (`k = // c⏎ loc(…)` is a value).
        before = pos - 1
        while before >= start:
            if text[before] in " \t\r\n":
                before -= 1
            elif before + 1 in comment_starts:
                before = comment_starts[before + 1] - 1
            else:
                break
        if before < start or text[before] not in _VALUE_BEFORE:
            found.append((pos, close))
        walk = lexer.scanner(_LOCATIONS, text, close, end)
    return found


def comments(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Every comment between ``start`` and ``end`` (`//` in a string or a dialect body
    is none). xDSL's lexer ends a comment at `\\n` only, so the text it parses has them
    masked (a CR-only file would be one comment to it)."""
    if text.find("//", start, end) < 0:
        return []
    return [
        (token_start, token_end)
        for kind, token_start, token_end in tokens(text, start, end, comments=True)
        if kind == lexer.COMMENT_TOKEN
    ]


# -- Comments -------------------------------------------------------------------------------

_COMMENTS = re.compile(rf'{SHORT_STRING}|"|{DIALECT_BODY_START}|{COMMENT}')


def drop_comments(text: str) -> str:
    """``text`` without its comments (a line that held only a comment goes whole);
    `//` in a string or a dialect body is no comment."""
    if "//" not in text:
        return text
    pieces: list[str] = []
    pos = 0
    for match in lexer.outside_values(_COMMENTS, text):
        # The comment, and the blanks before it; with its line end when it is alone on
        # its line.
        cut = match.start()
        while cut > pos and text[cut - 1] in " \t":
            cut -= 1
        after = match.end()
        if cut == 0 or text[cut - 1] in "\r\n":
            after += 2 if text.startswith("\r\n", after) else int(after < len(text))
        pieces.append(text[pos:cut])
        pos = after
    pieces.append(text[pos:])
    return "".join(pieces)


def one_line(text: str) -> str:
    """``text`` without its comments and on one line: each run of blanks that holds a line
    break becomes one space (not in a string, nor in a dialect body, whose text is its
    value)."""
    text = drop_comments(text)
    if "\n" not in text and "\r" not in text:
        return text
    pieces: list[str] = []
    pos = 0
    for _, start, end in tokens(text):
        gap = text[pos:start]
        pieces.append(" " if "\n" in gap or "\r" in gap else gap)
        pieces.append(text[start:end])
        pos = end
    pieces.append(text[pos:].rstrip(" \t\r\n"))
    return "".join(pieces)


_LINE_BREAKS = re.compile(rf'{SHORT_STRING}|"|{DIALECT_BODY_START}|\r\n|\r|\n')


def indented(text: str, indent: str) -> str:
    """``text`` with ``indent`` after each line break that a line with something on it
    follows (blank lines stay empty); not inside a dialect body, whose text is its value,
    nor a string (which may hold a `\\r`)."""
    pieces: list[str] = []
    pos = 0
    for match in lexer.outside_values(_LINE_BREAKS, text):
        after = match.end()
        if after < len(text) and text[after] not in "\r\n":
            pieces.append(text[pos:after])
            pieces.append(indent)
            pos = after
    pieces.append(text[pos:])
    return "".join(pieces)


# -- Masking and structure ------------------------------------------------------------------


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


def has_structured_signature(layout: Layout, func: FuncText) -> bool:
    """Whether a function's header spells a structured type (directly or through a type
    alias): a pass that lowers structures must rewrite its body."""
    return func.structured or not func.type_alias_uses.isdisjoint(layout.structured_aliases)


# Body text that works with structured values, found with `str.find` and confirmed by
# its tokens.
_STRUCTURED_OPS = structured_types.STRUCTURED_OP_PREFIXES
_STRUCTURED_BODY = (
    f"{structured_types.STRUCTURED_BUILTIN_TYPE}<",
    structured_types.ABI_TYPE_PREFIX,
    *_STRUCTURED_OPS,
    *(f"{name}<" for name in _STRUCTURED_NAMES if not name.startswith("!abi.")),
)


def has_structured_body(text: str, func: FuncText) -> bool:
    """Whether a body works with structured values (`abi` ops, tuple or dict types)."""
    if func.body_start is None or func.body_end is None:
        return False
    start, end = func.body_start, func.body_end
    if not any(text.find(word, start, end) >= 0 for word in _STRUCTURED_BODY):
        return False
    try:
        for kind, token_start, token_end in tokens(text, start, end):
            token = text[token_start:token_end]
            if kind == BARE:
                if token.startswith(_STRUCTURED_OPS) or (
                    token == structured_types.STRUCTURED_BUILTIN_TYPE
                    and text.startswith("<", token_end)
                ):
                    return True
            elif kind == BANG:
                if token.startswith(structured_types.ABI_TYPE_PREFIX) or (
                    token in _STRUCTURED_NAMES
                ):
                    return True
            elif kind == STRING_TOKEN and token[1:].startswith(_STRUCTURED_OPS):
                return True
    except LexError:
        return True
    return False


def _body_alias_uses(text: str, start: int, end: int, wanted: set[str]) -> set[str]:
    found: set[str] = set()
    for kind, token_start, token_end in tokens(text, start, end, pretty=True):
        if kind in (HASH, BANG):
            name = text[token_start:token_end]
            if name in wanted:
                found.add(name)
        elif kind == BODY:
            found |= _body_alias_uses(text, token_start + 1, token_end - 1, wanted)
    return found
