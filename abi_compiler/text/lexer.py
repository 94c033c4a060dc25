"""MLIR's lexical grammar: the one reader of MLIR text in abi-compiler that every other
reader goes through (carried text, headers, symbol references, aliases, locations,
resources, the type cache; docs/carried-text.md). No xDSL import.

The rules are those of MLIR's lexer (`mlir/lib/AsmParser/Lexer.cpp`), and of its parser
where the parser reads characters itself:

* whitespace is space, tab, `\\n` and `\\r`: `\\r\\n` and CR-only line ends are line ends;
* a comment runs from `//` to the next `\\n` or `\\r`;
* a string literal runs from `"` to the next `"` not escaped, on one line (`\\n`, `\\v`
  and `\\f` end it in error); its escapes are `\\"`, `\\\\`, `\\n`, `\\t` and `\\XX`,
  any other is `StringEscapeError` (MLIR rejects it wherever it stands);
* identifiers: bare `[A-Za-z_][A-Za-z0-9_$.]*` (keywords and op names are bare
  identifiers); `@` and a bare identifier or a string (symbol references); `#`, `!`, `%`
  and `^` and a suffix id, `[0-9]+` or `[A-Za-z_$.-][A-Za-z0-9_$.-]*`;
* numbers, `->`, `...`, one-character punctuation, `{-#` and `#-}` (resource sections);
* a dialect body, `#name<…>` or `!name<…>` with the `<` right after the name, is read as
  MLIR's `parseDialectSymbolBody` reads it: `<>`, `()`, `[]` and `{}` nest and must
  match, strings are lexed, `->` is one token, and nothing else is special — `//` is
  text there, not a comment;
* the `<…>` of a builtin type or attribute (`tensor<…>`, `dense<…>`, `affine_set<…>`,
  an op's properties `<{…}>`) is ordinary tokens: `group_end` pairs a `<` that follows
  a name (or a `]`, or precedes a `{`) with the `>` that closes it, and takes `>=`, `<=`
  and a `>` inside `(…)` for the comparisons they are.

Everything is linear in the text. A string is skipped with `str.find` (a 128 MB hex
constant is one string literal): the patterns below see a long string, or one with
escapes, as its opening quote only, and `string_end` finds its end.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

# -- Lexemes: the one home of every pattern of MLIR's lexical grammar ---------------------

#: A character that continues a bare identifier.
BARE_ID_CHAR = r"[A-Za-z0-9_$.]"
#: A character that continues a suffix id.
SUFFIX_ID_CHAR = r"[A-Za-z0-9_$.\-]"
#: Where a bare identifier (a keyword: `loc`, `module`) ends: no character continues it.
BARE_ID_END = rf"(?!{BARE_ID_CHAR})"
#: A character of an identifier or of its sigil (`%`, `@`, `#`, `!`, `^`): a keyword right
#: after one is part of that identifier, not a keyword.
ID_TOKEN_CHAR = r"[A-Za-z0-9_$.%@#!^\-]"
#: A bare identifier (keywords, op names in custom form, dictionary keys, type names).
BARE_ID = rf"[A-Za-z_]{BARE_ID_CHAR}*"
#: A suffix id that is not a number (a name the printer does not give itself).
NAMED_SUFFIX_ID = rf"[A-Za-z_$.\-]{SUFFIX_ID_CHAR}*"
#: What follows `#`, `!`, `%` and `^`.
SUFFIX_ID = rf"(?:[0-9]+|{NAMED_SUFFIX_ID})"
#: A complete string literal, as MLIR's lexer reads one (unrolled: linear, each
#: character matched one way only). For validating a literal; scanning skips strings with
#: `string_end`.
STRING_LITERAL = r'"[^"\\\n\v\f]*(?:\\(?:["nt\\]|[0-9A-Fa-f]{2})[^"\\\n\v\f]*)*"'
#: One escape of a string literal.
STRING_ESCAPE = r'\\(?:["nt\\]|[0-9A-Fa-f]{2})'
#: A string short and plain enough to be one match (longer ones: `string_end`).
SHORT_STRING = r'"[^"\\\n\v\f]{0,128}"'
#: A comment, to its line end.
COMMENT = r"//[^\n\r]*"
#: What opens a dialect body: `#name<`, `!name<`.
DIALECT_BODY_START = rf"#{SUFFIX_ID}<|!{SUFFIX_ID}<"
#: An op name in custom form: a bare identifier with a dot (`func.func`).
OP_NAME = rf"[A-Za-z_][A-Za-z0-9_$]*\.{BARE_ID_CHAR}*"
_NUMBER = r"0x[0-9A-Fa-f]+|[0-9]+(?:\.[0-9]*(?:[eE][-+]?[0-9]+)?)?"

BARE_IDENTIFIER = re.compile(BARE_ID)
NAMED_SUFFIX_IDENTIFIER = re.compile(NAMED_SUFFIX_ID)
#: `%name` (an SSA value).
SSA_NAME = re.compile("%" + SUFFIX_ID)
#: `#name` / `!name`: an alias, or a dialect attribute or type name.
ALIAS_NAME = re.compile("[#!]" + SUFFIX_ID)
#: An alias definition: `#name =` or `!name =`.
ALIAS_DEFINITION = re.compile(rf"([#!]{SUFFIX_ID})[ \t\r\n]*=")
#: A symbol reference, `@name` or the opening of `@"name"`.
SYMBOL_REFERENCE = re.compile(rf'@(?:{BARE_ID}|")')
STRING = re.compile(STRING_LITERAL)
_ESCAPE = re.compile(STRING_ESCAPE)
#: A string literal of printable ASCII without escapes (its text is what it says).
PLAIN_STRING = re.compile(r'"[ !#-\[\]-~]*"')
#: Whitespace (no comment), as a run.
SPACES = re.compile(r"[ \t\r\n]*")
#: A decimal integer literal, with its sign.
SIGNED_DECIMAL = re.compile(r"-?[0-9]+")
#: The dimensions of a ranked builtin shaped type written without blanks, each `?` or a
#: decimal and its `x` (`?x8x` in `tensor<?x8xf32>`; `0x8` is MLIR's `0`, `x`, `8`).
DIMENSIONS = re.compile(r"(?:(?:\?|[0-9]+)x)*")

# -- Tokens ---------------------------------------------------------------------------------

BARE = 1  # bare identifier or keyword
AT = 2  # symbol reference (`@f`, `@"f"`)
HASH = 3  # `#…`
BANG = 4  # `!…`
PERCENT = 5  # `%…`
CARET = 6  # `^…`
STRING_TOKEN = 7
NUMBER = 8
PUNCT = 9  # `->`, `...`, and one character of `:,(){}[]<>=+*?|-`
BODY = 10  # a dialect body `<…>`, right after its HASH or BANG token
META_BEGIN = 11  # `{-#`
META_END = 12  # `#-}`
OTHER = 13  # a character MLIR's lexer rejects (only a dialect body may hold one)
COMMENT_TOKEN = 14  # only with ``comments=True``

_BLANK = r"[ \t\r\n]*"
_TOKEN_BODY = (
    rf'({SHORT_STRING})|(")'  # 1, 2
    rf'|(@{BARE_ID})|(@")'  # 3, 4
    rf"|([#!]{SUFFIX_ID})(<?)"  # 5, 6
    rf"|(%{SUFFIX_ID})|(\^{SUFFIX_ID})"  # 7, 8
    rf"|({BARE_ID})"  # 9
    rf"|({_NUMBER})"  # 10
    r"|(->|\.\.\.|[:,(){}\[\]<>=+*?|\-])"  # 11
    r"|([^ \t\r\n])"  # 12
)
# Outside dialect bodies: comments (1) and resource sections (2, 3) first, then the
# groups above (shifted by 3).
_TOKEN = re.compile(rf"{_BLANK}(?:({COMMENT})|(\{{-#)|(#-\}})|{_TOKEN_BODY})")
_PRETTY_TOKEN = re.compile(rf"{_BLANK}(?:{_TOKEN_BODY})")

# Group number -> kind (`_TOKEN`: three groups before the shared ones).
_KINDS = {
    1: STRING_TOKEN,
    2: STRING_TOKEN,
    3: AT,
    4: AT,
    5: HASH,
    6: HASH,
    7: PERCENT,
    8: CARET,
    9: BARE,
    10: NUMBER,
    11: PUNCT,
    12: OTHER,
}


class LexError(Exception):
    """Text that MLIR's lexer or parser rejects before any grammar applies: an
    unbalanced dialect body or bracket, an unterminated resource section."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(f"{message} at offset {offset}")
        self.message = message
        self.offset = offset


class StringEscapeError(LexError):
    """An escape MLIR's lexer does not know in a string literal (`\\zz`): text no
    reader of MLIR accepts, wherever it stands (a carried body too)."""

    def __init__(self, offset: int) -> None:
        super().__init__("unknown escape in string literal", offset)


def scanner(pattern: re.Pattern[str], text: str, pos: int = 0, end: int | None = None) -> Any:
    """``pattern``'s scanner over ``text[pos:end]``: its `search`/`match` continue where
    the last match ended (restarted to skip a string or a group)."""
    return pattern.scanner(text, pos, len(text) if end is None else end)  # type: ignore[attr-defined]


def tokens(
    text: str,
    start: int = 0,
    end: int | None = None,
    *,
    pretty: bool = False,
    comments: bool = False,
) -> Iterator[tuple[int, int, int]]:
    """(kind, start, end) of each token of ``text[start:end]``, whitespace and comments
    left out (comments as `COMMENT_TOKEN` tokens with ``comments``). A dialect body is one
    `BODY` token after its `HASH`/`BANG` (``pretty``: lex the inside of one, where `//`
    is text). A string not closed on its line ends at the line end; one with an escape
    MLIR does not know raises `StringEscapeError`."""
    end = len(text) if end is None else end
    pattern = _PRETTY_TOKEN if pretty else _TOKEN
    shift = 0 if pretty else 3
    pos = start
    walk = scanner(pattern, text, pos, end)
    while (match := walk.match()) is not None:
        index = match.lastindex
        assert index is not None
        if index <= shift:
            if index == 1:
                if comments:
                    yield COMMENT_TOKEN, match.start(1), match.end()
            elif index == 2:
                yield META_BEGIN, match.start(2), match.end()
            else:
                yield META_END, match.start(3), match.end()
            continue
        group = index - shift
        kind = _KINDS[group]
        if group == 2 or group == 4:
            # A string literal (or `@"…"`) whose end needs `string_end`.
            close = string_end(text, match.end() - 1, end)
            yield kind, match.start(index), close
            walk = scanner(pattern, text, close, end)
        elif group == 6:
            # `#name` / `!name`, then maybe a dialect body.
            token_start = match.start(index - 1)
            name_end = match.start(index)
            if text[token_start] == "!":
                kind = BANG
            yield kind, token_start, name_end
            if match.end() > name_end:
                close = dialect_body_end(text, name_end, end)
                yield BODY, name_end, close
                walk = scanner(pattern, text, close, end)
        else:
            yield kind, match.start(index), match.end()


def string_end(text: str, quote_at: int, end: int | None = None) -> int:
    """The end of the string literal whose opening quote is at ``quote_at``: after its
    closing quote; at its line end (or ``end``) when it is not closed there. Every
    reader of text skips strings through here: an escape MLIR does not know raises
    `StringEscapeError` (`check_escapes`)."""
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
            close += 1
            break
        pos = close + 1
    for stop in "\n\v\f":
        if (found := text.find(stop, quote_at, close)) >= 0:
            close = found
    check_escapes(text, quote_at, close)
    return close


def check_escapes(text: str, quote_at: int, close: int) -> None:
    """Raise `StringEscapeError` at the first escape of the string literal
    ``text[quote_at:close]`` that MLIR does not know (``\\"``, ``\\\\``, ``\\n``,
    ``\\t`` and two hex digits are all it knows). A string without a backslash is one
    `str.find`, one with escapes one match (a long constant is one string)."""
    pos = text.find("\\", quote_at + 1, close)
    if pos < 0:
        return
    valid = STRING.match(text, quote_at, close)
    if valid is not None and valid.end() == close:
        return
    while pos >= 0:
        escape = _ESCAPE.match(text, pos, close)
        if escape is None:
            raise StringEscapeError(pos)
        pos = text.find("\\", escape.end(), close)


def unquote(literal: str) -> str | None:
    """The text of a string literal (with its quotes); None when it is not one MLIR's
    lexer accepts (an unknown escape, not closed), or when its bytes are not UTF-8 (no
    name abi-compiler gives or reads: xDSL reports such a literal where it reads one)."""
    if len(literal) < 2 or literal[0] != '"' or literal[-1] != '"':
        return None
    body = literal[1:-1]
    if "\\" not in body:
        return None if '"' in body or "\n" in body else body
    if STRING.fullmatch(literal) is None:
        return None
    out = bytearray()
    pos = 0
    for match in _ESCAPE.finditer(body):
        out += body[pos : match.start()].encode("utf-8", "surrogateescape")
        escape = match.group()[1:]
        out += _SIMPLE_ESCAPES.get(escape) or bytes.fromhex(escape)
        pos = match.end()
    out += body[pos:].encode("utf-8", "surrogateescape")
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        return None


_SIMPLE_ESCAPES = {'"': b'"', "\\": b"\\", "n": b"\n", "t": b"\t"}


def quote(name: str) -> str:
    """A string literal for ``name`` as MLIR prints one: a backslash doubled, a quote and
    every byte outside printable ASCII as a backslash and two hex digits (each UTF-8 byte
    through one table, in C: a multi-MB tokenizer is quoted in a blink)."""
    data = name.encode("utf-8", "surrogateescape")
    return '"' + data.decode("latin-1").translate(_QUOTED_BYTES) + '"'


# What `quote` writes for each byte (as the latin-1 character of that code).
_QUOTED_BYTES = {
    byte: "\\\\"
    if byte == 0x5C
    else chr(byte)
    if 0x20 <= byte < 0x7F and byte != 0x22
    else f"\\{byte:02X}"
    for byte in range(256)
}


def symbol_text(name: str) -> str:
    """``@name`` as MLIR prints a symbol reference: bare when it is a bare identifier,
    else a string literal."""
    return "@" + (name if BARE_IDENTIFIER.fullmatch(name) else quote(name))


def symbol_name(token: str) -> str | None:
    """The name a symbol reference token (`@f`, `@"f"`) refers to; None when its string
    is not one MLIR accepts."""
    if token.startswith('@"'):
        return unquote(token[1:])
    return token[1:]


# -- Groups ---------------------------------------------------------------------------------
#
# The views below find only what a reader needs (brackets, line ends, symbol references)
# and what may hold one without being one (strings, comments, dialect bodies, resource
# sections); `re` skips everything else in C. Each alternative starts with a literal
# character, never a class (`\(|\)`, not `[()]`), and holds no capture group: only then
# does `re` look for the next match by its first characters (three to five times faster).


def literals(chars: str) -> str:
    """A pattern of alternatives, one per character of ``chars``."""
    return "|".join(re.escape(char) for char in chars)


# Brackets, and what may hold one that is no bracket.
_GROUP_VIEW = rf'{SHORT_STRING}|"|{COMMENT}|\{{-#|#-\}}|{DIALECT_BODY_START}|{literals("(){}[]")}'
GROUPS = re.compile(_GROUP_VIEW)
#: `GROUPS` and line ends (item boundaries).
LINES = re.compile(rf"{_GROUP_VIEW}|{literals(chr(13) + chr(10))}")
_BODY_VIEW = re.compile(rf'{SHORT_STRING}|"|->|{literals("<>(){}[]")}')
_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<"}
#: The characters `Nesting.bracket` takes.
BRACKETS = frozenset("<>()[]{}")
# A character that ends a name (a bare identifier) or a `]`: a `<` right after one opens.
_NAME_END = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$.]")


def opens_angle(text: str, pos: int, end: int) -> bool:
    """Whether the `<` at ``pos`` opens a group: right after a name or a `]`
    (`tensor<`, `distinct[0]<`), or before a `{` (properties `<{`); not `<=`."""
    if text.startswith("=", pos + 1):
        return False
    if pos > 0 and text[pos - 1] in _NAME_END:
        return True
    after = skip_blank(text, pos + 1, end)
    return text.startswith("{", after) and not text.startswith("{-#", after)


class Nesting:
    """The groups open at one point of a walk over MLIR text: the one bracket walker of
    the text readers. A reader that pairs brackets (`group_end` of a `<`, `value_end`,
    carried text's type and symbol readers) feeds it each bracket it meets outside
    strings, comments and dialect bodies, whether it walks `tokens` or a view of
    brackets, and reads `stack`.

    A `<` opens a group when `opens_angle` says so, and a `>` closes one only when the
    innermost group is a `<` and it is no `>=`: other `<` and `>` are comparisons
    (`(d0 - 3 >= 0)`). `(`, `[` and `{` always open, and a closing bracket must close the
    innermost group. (Inside a dialect body MLIR's rule is simpler, every `<` opens and
    every `>` closes: `dialect_body_end`.)"""

    __slots__ = ("end", "stack", "text")

    def __init__(self, text: str, end: int) -> None:
        self.text = text
        self.end = end
        self.stack: list[str] = []

    def bracket(self, pos: int) -> int:
        """Take the bracket at ``pos`` (one of `BRACKETS`): 1 when it opened a group, -1
        when it closed one, 0 for a `<` or `>` that is a comparison. Raises LexError at
        a closing bracket that is not the innermost group's."""
        text = self.text
        char = text[pos]
        stack = self.stack
        if char == "<":
            if opens_angle(text, pos, self.end):
                stack.append("<")
                return 1
            return 0
        if char == ">":
            if stack and stack[-1] == "<" and not text.startswith("=", pos + 1):
                stack.pop()
                return -1
            return 0
        if char == "(" or char == "[" or char == "{":
            stack.append(char)
            return 1
        if not stack or stack.pop() != _CLOSERS[char]:
            raise LexError(f"unbalanced '{char}'", pos)
        return -1


def dialect_body_end(text: str, pos: int, end: int | None = None) -> int:
    """The end of the dialect body whose `<` is at ``pos`` (after its `>`). Raises
    LexError when its brackets do not match. MLIR's `parseDialectSymbolBody` rule, not
    `Nesting`'s: every `<` opens and every `>` closes (a `->` is skipped)."""
    end = len(text) if end is None else end
    stack: list[str] = []
    walk = scanner(_BODY_VIEW, text, pos, end)
    while (match := walk.search()) is not None:
        token = match.group()
        char = token[0]
        if token == '"':
            walk = scanner(_BODY_VIEW, text, string_end(text, match.start(), end), end)
        elif char == '"' or token == "->":
            continue
        elif char in "<([{":
            stack.append(char)
        elif not stack or stack.pop() != _CLOSERS[char]:
            raise LexError(f"unbalanced '{char}' in a dialect body", match.start())
        elif not stack:
            return int(match.end())
    raise LexError("unterminated dialect body", pos)


def outside_values(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """The matches of ``pattern`` in ``text`` that are not in a string or a dialect body
    (whose text is their value). ``pattern`` is a view that also matches what opens
    those: `SHORT_STRING`, a lone `"` and `DIALECT_BODY_START`, which are skipped."""
    end = len(text)
    walk = scanner(pattern, text, 0, end)
    while (match := walk.search()) is not None:
        token = match.group()
        char = token[0]
        if char == '"':
            if token == '"':
                walk = scanner(pattern, text, string_end(text, match.start(), end), end)
            continue
        if (char == "#" or char == "!") and token[-1] == "<":
            walk = scanner(pattern, text, dialect_body_end(text, match.end() - 1, end), end)
            continue
        yield match


def skip(text: str, match: re.Match[str], end: int) -> int | None:
    """Where a view's scan continues after ``match`` (a match of `GROUPS` or `LINES`)
    when it is a string, a dialect body or a resource section; None for any other
    token."""
    token = match.group()
    char = token[0]
    if token == '"':
        return string_end(text, match.start(), end)
    if char == "#" or char == "!":
        if token[-1] == "<" and token != "#-}":
            return dialect_body_end(text, match.end() - 1, end)
        return None
    if token == "{-#":
        return metadata_end(text, match.start(), end)
    return None


def group_end(text: str, pos: int, end: int | None = None) -> int:
    """The end of the group whose `(`, `[`, `{` or `<` is at ``pos`` (after its closing
    bracket), skipping strings, comments and dialect bodies. Raises LexError when it is
    not closed."""
    end = len(text) if end is None else end
    if text[pos] == "<":
        return _angle_end(text, pos, end)
    depth = 0
    search = scanner(GROUPS, text, pos, end).search
    while (match := search()) is not None:
        token = match.group()
        char = token[0]
        if char == "(" or char == "[" or char == "{":
            if token == "{-#":
                search = scanner(GROUPS, text, metadata_end(text, match.start(), end), end).search
                continue
            depth += 1
        elif char == ")" or char == "]" or char == "}":
            depth -= 1
            if depth == 0:
                return int(match.end())
            if depth < 0:
                break
        elif char == '"':
            if len(token) == 1:
                search = scanner(GROUPS, text, string_end(text, match.start(), end), end).search
        elif (char == "#" or char == "!") and token[-1] == "<":  # a dialect body
            # (Not a comment that ends in `<`: `// CHECK: #foo<`.)
            close = dialect_body_end(text, match.end() - 1, end)
            search = scanner(GROUPS, text, close, end).search
    raise LexError(f"unbalanced '{text[pos]}'", pos)


_ANGLE_VIEW = re.compile(
    rf'{SHORT_STRING}|"|{COMMENT}|{DIALECT_BODY_START}|->|{literals("<>()[]{}")}'
)


def _angle_end(text: str, pos: int, end: int) -> int:
    """`group_end` of a `<` (which opens, whatever precedes it): `Nesting` fed by a view
    of the brackets (the hot path of the type cache: `re` skips the rest in C)."""
    nesting = Nesting(text, end)
    stack = nesting.stack
    stack.append("<")
    walk = scanner(_ANGLE_VIEW, text, pos + 1, end)
    while (match := walk.search()) is not None:
        token = match.group()
        char = token[0]
        if char == '"':
            if len(token) == 1:
                walk = scanner(_ANGLE_VIEW, text, string_end(text, match.start(), end), end)
        elif char == "#" or char == "!":
            walk = scanner(_ANGLE_VIEW, text, dialect_body_end(text, match.end() - 1, end), end)
        elif char == "/" or token == "->":
            continue
        else:
            try:
                change = nesting.bracket(match.start())
            except LexError:
                break
            if change < 0 and not stack:
                return int(match.end())
    raise LexError("unbalanced '<'", pos)


def metadata_end(text: str, pos: int, end: int | None = None) -> int:
    """The end of the resource section `{-# … #-}` at ``pos`` (strings and comments in
    it skipped: a `#-}` inside a string does not end it). Raises LexError when it is not
    closed."""
    end = len(text) if end is None else end
    walk = scanner(GROUPS, text, pos + 3, end)
    while (match := walk.search()) is not None:
        token = match.group()
        if token == "#-}":
            return int(match.end())
        if token == '"':
            walk = scanner(GROUPS, text, string_end(text, match.start(), end), end)
    raise LexError("unterminated resource section", pos)


#: Whitespace and up to 256 comments. A comment must run to its line end here:
#: `//[^\n\r]*` alone could end anywhere and let the next repetition's `//` start inside
#: it, which made a line of many slashes backtrack exponentially when the match fails.
#: Bounded: over a run of repetitions the regular expression engine keeps hundreds of
#: bytes per repetition until the match ends (14 MB of comment lines took 1.7 GB).
_BLANK_RUN = re.compile(rf"[ \t\r\n]*(?:{COMMENT}(?:[\r\n]|\Z)[ \t\r\n]*){{0,256}}")


def skip_blank(text: str, pos: int, end: int | None = None) -> int:
    """The first position at or after ``pos`` that is not whitespace or a comment (in
    runs of at most 256 comments: memory is constant, whatever the number of lines)."""
    end = len(text) if end is None else end
    if pos < end and text[pos] not in _BLANK_STARTS:
        return pos
    while True:
        match = _BLANK_RUN.match(text, pos, end)
        assert match is not None
        if match.end() == pos:
            return pos
        pos = match.end()


def is_blank(text: str, start: int = 0) -> bool:
    """Whether ``text[start:]`` is whitespace and comments only."""
    return skip_blank(text, start) == len(text)


_BLANK_STARTS = frozenset(" \t\r\n/")


def value_end(text: str, pos: int, end: int | None = None, stops: str = ",}") -> int:
    """Where the attribute or type value at ``pos`` ends: at the first token of
    ``stops`` (one-character punctuation) outside any group, or at ``end``. Raises
    LexError for unbalanced text."""
    end = len(text) if end is None else end
    nesting = Nesting(text, end)
    stack = nesting.stack
    for kind, start, stop in tokens(text, pos, end):
        if kind == PUNCT and stop - start == 1:
            char = text[start]
            if not stack and char in stops:
                return start
            if char in BRACKETS:
                nesting.bracket(start)
    if stack:
        raise LexError("unbalanced brackets", pos)
    return end


# -- A cursor over tokens ---------------------------------------------------------------


class Cursor:
    """The tokens of ``text[pos:end]``, one at a time, with jumps ahead."""

    __slots__ = ("_tokens", "end", "kind", "previous", "start", "stop", "text")

    def __init__(self, text: str, pos: int, end: int) -> None:
        self.text = text
        self.end = end
        self.previous = (PUNCT, pos, pos)
        self._tokens = tokens(text, pos, end)
        self.kind = 0
        self.start = self.stop = pos
        self._read()

    def _read(self) -> None:
        token = next(self._tokens, None)
        if token is None:
            self.kind, self.start, self.stop = 0, self.end, self.end
        else:
            self.kind, self.start, self.stop = token

    def next(self) -> None:
        self.previous = (self.kind, self.start, self.stop)
        self._read()

    def jump(self, pos: int) -> None:
        """Continue at ``pos`` (after a group skipped whole)."""
        self.previous = (PUNCT, pos - 1, pos)
        self._tokens = tokens(self.text, pos, self.end)
        self._read()

    @property
    def value(self) -> str:
        return self.text[self.start : self.stop]

    def punct(self, char: str) -> bool:
        return self.kind == PUNCT and self.text[self.start : self.stop] == char

    def keyword(self, word: str) -> bool:
        return self.kind == BARE and self.text[self.start : self.stop] == word

    def location(self) -> int | None:
        """The end of the `loc(…)` at the cursor (`loc`, blanks, a group), if it is one."""
        if not self.keyword("loc"):
            return None
        paren = skip_blank(self.text, self.stop, self.end)
        if not self.text.startswith("(", paren):
            return None
        return group_end(self.text, paren, self.end)

    def braces(self) -> tuple[int, int] | None:
        """The `{…}` at the cursor, if any (the cursor moves after it)."""
        if not self.punct("{"):
            return None
        close = group_end(self.text, self.start, self.end)
        span = (self.start, close)
        self.jump(close)
        return span


def dictionary_items(text: str, open_at: int, close: int) -> list[tuple[str, int, int]]:
    """The items of the attribute dictionary `{…}` whose `{` is at ``open_at`` and `}` at
    ``close``: each key as written (a quoted key keeps its quotes) and where its value
    starts and ends (an empty range for a unit attribute)."""
    items: list[tuple[str, int, int]] = []
    pos = open_at + 1
    while True:
        pos = skip_blank(text, pos, close)
        if pos >= close:
            return items
        stop = value_end(text, pos, close, stops="=,")
        key = text[pos:stop].strip()
        start = end = stop
        if text.startswith("=", stop):
            start = skip_blank(text, stop + 1, close)
            end = stop = value_end(text, start, close)
        items.append((key, start, end))
        pos = stop + 1 if text.startswith(",", stop) else stop
