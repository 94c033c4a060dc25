"""Where xDSL (0.74) reads what MLIR accepts differently, and what the run does instead
(docs/xdsl-fixes.md: each entry marked *MLIR compatibility*): an unknown escape in a
string literal is named at its backslash, deeply nested types parse (the recursion
limit), and a symbol lookup starts from the nearest registered symbol table.
`xdsl_fixes` puts them in the fixed lexer and in `applied()`.
"""

from __future__ import annotations

import re

from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
from xdsl.ir import Operation
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input, Span

from abi_compiler.text import lexer
from abi_compiler.xdsl_boundary import symbol_cache
from abi_compiler.xdsl_boundary.xdsl_compat import SymbolLookup

# -- Nesting depth -----------------------------------------------------------------------

#: Python's recursion limit within a run (docs/xdsl-fixes.md, "Nesting depth"): xDSL
#: parses, compares and prints types recursively, several frames per level, so the default
#: limit (1 000) stops it at a `tuple` nesting of about 140; MLIR has no such limit.
RECURSION_LIMIT = 10_000


# -- Unknown escapes ---------------------------------------------------------------------

_ESCAPE = re.compile(lexer.STRING_ESCAPE)


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


def unknown_escape_error(input: Input, start_pos: int) -> ParseError | None:
    """The error MLIR reports for the string literal at ``start_pos`` when it holds an
    escape MLIR does not know: "unknown escape in string literal" at the backslash (xDSL
    reports a missing closing quote at the opening one; docs/xdsl-fixes.md, "Unknown
    escapes"). None when the literal has no such escape."""
    bad = _unknown_escape(input.content, start_pos)
    if bad is None:
        return None
    return ParseError(Span(bad, bad + 2, input), "unknown escape in string literal")


# -- Symbol lookups ----------------------------------------------------------------------

#: xDSL's `SymbolTable.lookup_symbol`, taken before any run replaces it.
XDSL_LOOKUP: SymbolLookup = SymbolTable.lookup_symbol


def nearest_symbol_table(op: Operation) -> Operation | None:
    """``op`` or its closest ancestor that is a symbol table; ops of unknown dialects are
    not (as in MLIR: xDSL's `UnregisteredOp.has_trait` claims every trait, so a
    `func.call` inside a `"stablehlo.while"` region was looked up in that region;
    docs/xdsl-fixes.md, "Symbol lookups")."""
    anchor: Operation | None = op
    while anchor is not None and not anchor.has_trait(SymbolTable, value_if_unregistered=False):
        anchor = anchor.parent_op()
    return anchor


def lookup_symbol(op: Operation, name: str | StringAttr | SymbolRefAttr) -> Operation | None:
    """xDSL's `SymbolTable.lookup_symbol`, from the nearest registered symbol table,
    through the tables `symbol_cache` holds while a run verifies (docs/xdsl-fixes.md,
    "Symbol lookups while verifying")."""
    anchor = nearest_symbol_table(op)
    if anchor is None:
        return XDSL_LOOKUP(op, name)
    return symbol_cache.lookup(anchor, name, XDSL_LOOKUP)
