"""Where xDSL 0.74 parses MLIR text differently from MLIR, and the fix `abi-opt` installs
before it parses (`install`).

* **Non-ASCII strings.** MLIR's `StringAttr` holds bytes, and its printer escapes every
  byte outside printable ASCII: `"é"` prints as `"\\C3\\A9"`. xDSL prints the same way,
  but its lexer returns a literal that has an escape and non-ASCII bytes as a
  `BYTES_LIT`, which the attribute parser turns into a `BytesAttr`. So print → parse →
  print is not stable: `abi.name = "é"` stops being a string after one round trip, and an
  `abi.index_path` with a non-ASCII dict key (`flatten-signatures` writes those) no
  longer reads as a path. `install` makes a literal whose bytes are valid UTF-8 a
  `STRING_LIT` (a `StringAttr`); only literals that are not UTF-8 stay `BYTES_LIT`.
* **Unterminated strings.** xDSL's string literal regex backtracks exponentially on a
  literal without its closing quote (a 30-character one took minutes); `install` gives it
  an equivalent linear one.
* **Unknown escapes.** xDSL reports `"\\q"` as "End of file reached before closing string
  literal" at the opening quote; `install` reports MLIR's "unknown escape in string
  literal" at the backslash.
* **Nesting depth.** xDSL parses, compares and prints types recursively (several Python
  frames per level), so Python's default recursion limit (1000) stops it at a `tuple`
  nesting of about 140. `install` raises the limit to `RECURSION_LIMIT`: about 1 400
  levels parse (the passes accept `model.MAX_STRUCTURE_DEPTH` levels in exported
  signatures; `abi-opt` reports deeper input as "input nested too deeply"). Measured on
  CPython 3.11 with the default 8 MB stack and a limit of 100 000: 5 000 nested tuples
  parse and print, 8 000 overflow the C stack; 10 000 frames stay far below that.

The changes are process-wide and idempotent. Tests that parse text in-process call
`install` too.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind, StringLiteral

RECURSION_LIMIT = 10_000

_ORIGINAL_LEX_STRING_LITERAL = MLIRLexer._lex_string_literal  # pyright: ignore[reportPrivateUsage]
_ESCAPE = re.compile(r'\\(?:["nt\\]|[0-9A-Fa-f]{2})')
# xDSL's `"(?:[^"\\\n\v\f]+|\\(?:…))*"` nests a `+` in a `*`: on a literal with no closing
# quote the regex engine tries every split of the text, exponential in its length (30
# characters took minutes). The same language, unrolled so that each character can be
# matched one way only: linear.
_STRING_LITERAL = re.compile(r'"[^"\\\n\v\f]*(?:\\(?:["nt\\]|[0-9A-Fa-f]{2})[^"\\\n\v\f]*)*"')


def _unknown_escape(text: str, start_pos: int) -> int | None:
    """The offset of the first backslash in the string literal at ``start_pos`` that
    starts no valid escape, if the literal is otherwise closed on its line."""
    position = start_pos + 1
    bad: int | None = None
    while position < len(text):
        char = text[position]
        if char == '"':
            return bad
        if char in "\n\v\f":
            return None
        if char == "\\":
            match = _ESCAPE.match(text, position)
            if match is None:
                if bad is None:
                    bad = position
                position += 1
                continue
            position = match.end()
            continue
        position += 1
    return None


def _lex_string_literal(self: MLIRLexer, start_pos: int) -> Any:
    try:
        token = _ORIGINAL_LEX_STRING_LITERAL(self, start_pos)
    except ParseError:
        # xDSL reports an unknown escape as a missing closing quote; say what it is.
        bad = _unknown_escape(self.input.content, start_pos)
        if bad is None:
            raise
        raise ParseError(
            Span(bad, bad + 2, self.input), "unknown escape in string literal"
        ) from None
    if token.kind is not MLIRTokenKind.BYTES_LIT:
        return token
    try:
        StringLiteral.from_span(token.span).bytes_contents.decode("utf-8")
    except UnicodeDecodeError:
        return token
    return type(token)(MLIRTokenKind.STRING_LIT, token.span)


def install() -> None:
    """Make valid UTF-8 string literals parse as `StringAttr`s, lex string literals in
    linear time, name unknown escapes, and raise the recursion limit to `RECURSION_LIMIT`
    (never lower it)."""
    MLIRLexer._lex_string_literal = _lex_string_literal  # type: ignore[method-assign]  # pyright: ignore[reportPrivateUsage]
    MLIRLexer._unescaped_characters_regex = _STRING_LITERAL  # pyright: ignore[reportPrivateUsage]
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
