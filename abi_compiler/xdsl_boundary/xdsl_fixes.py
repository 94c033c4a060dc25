"""The fixes of xDSL (0.74) put together for a run (docs/xdsl-fixes.md, "How the fixes are
applied"): each kind has its module — `defects` (xDSL wrong by its own terms),
`mlir_compat` (xDSL reads what MLIR accepts differently), `speedups` (the same results,
faster) — and this one composes them. Most are methods of subclasses, `FixedLexer`,
`FixedParser` (the base of the pipeline's parsers) and `FixedPrinter` (the base of its
printer), and change nothing for text parsed or printed with xDSL's own classes. The
rest are members of xDSL classes that xDSL itself calls on a run's IR (`_PATCHES`: the
symbol lookup, a string literal's bytes, a dense attribute's elements) and the
recursion limit: `applied()` installs them for the length of a run, under one lock, each
answering as xDSL's own outside a run's thread, and restores them afterwards.
`FIXED_MEMBERS` names every xDSL member a fix replaces or overrides
(`tests/xdsl_boundary/test_xdsl_fixes.py` pins their source).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, DenseIntOrFPElementsAttr, UnregisteredAttr
from xdsl.ir import Attribute
from xdsl.parser import AttrParser, Parser
from xdsl.parser.generic_parser import ParserState
from xdsl.printer import Printer
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken, StringLiteral

from abi_compiler.xdsl_boundary import defects, mlir_compat, speedups
from abi_compiler.xdsl_boundary.mlir_compat import RECURSION_LIMIT
from abi_compiler.xdsl_boundary.xdsl_compat import HookedParser, HookedPrinter

# -- The fixed lexer, parser and printer -------------------------------------------------


class FixedLexer(MLIRLexer):
    """xDSL's lexer, with linear string literals and a literal whose bytes are valid UTF-8
    a string (`defects`), unknown escapes named (`mlir_compat`), and comments skipped in
    bounded runs (`speedups`)."""

    _unescaped_characters_regex = defects.STRING_LITERAL
    _consume_whitespace = speedups.consume_whitespace

    def _lex_string_literal(self, start_pos: int) -> MLIRToken:
        try:
            token = super()._lex_string_literal(start_pos)
        except ParseError:
            error = mlir_compat.unknown_escape_error(self.input, start_pos)
            if error is None:
                raise
            raise error from None
        return defects.utf8_string_token(token)


class FixedParser(HookedParser):
    """xDSL's parser with the fixes that are parser methods (all of them `defects`: float
    and dense literals, dense arrays, resource handles, external resources), lexing with
    `FixedLexer`."""

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>") -> None:
        # xDSL's parser lexes its first token on construction, with xDSL's lexer: its
        # string pattern backtracks exponentially on an unclosed literal (`"aaa…` as the
        # first token hung a run; docs/xdsl-fixes.md, "Unterminated strings"), so it gets
        # no text; `FixedLexer` gets the input.
        super().__init__(ctx, "", name)
        text = input.decode("utf-8") if isinstance(input, bytes) else input
        self._parser_state = ParserState(FixedLexer(Input(text, name)))

    def _parse_external_resources(self) -> None:
        defects.refuse_external_resources(self, self.external_resources_reason())

    def external_resources_reason(self) -> str:
        """Why the file's `external_resources` section reached xDSL's parser."""
        return "the text is parsed whole"

    parse_dense_int_or_fp_elements_attr = defects.parse_dense_int_or_fp_elements_attr
    parse_optional_builtin_int_or_float_attr = defects.parse_optional_builtin_int_or_float_attr
    _parse_builtin_densearray_attr = defects.parse_builtin_densearray_attr
    _parse_dialect_resource_handle = defects.parse_dialect_resource_handle


class FixedPrinter(HookedPrinter):
    """xDSL's printer with the fixes that are printer methods: floats as their bits, dense
    float arrays, dialect bodies as written (`defects`), string literals in bulk
    (`speedups`)."""

    print_float = defects.print_float
    print_bytes_literal = speedups.print_bytes_literal

    def print_attribute(self, attribute: Attribute) -> None:
        # (By name first: `isinstance` of an ABC costs, and this runs for every attribute
        # and type printed.)
        if (
            attribute.name == defects.UNREGISTERED
            and isinstance(attribute, UnregisteredAttr)
            and "\n" in attribute.value.data
        ):
            defects.print_dialect_body(attribute, self)
            return
        if isinstance(attribute, DenseArrayBase):
            defects.print_dense_array(attribute, self)
            return
        super().print_attribute(attribute)


# -- What is changed for the duration of a run -------------------------------------------

#: Whether the current thread (context) is inside `applied()`: the replaced members
#: behave as xDSL's own everywhere else.
_IN_RUN: ContextVar[bool] = ContextVar("abi_compiler_in_run", default=False)


def _in_runs(fixed: Callable[..., Any], original: Callable[..., Any]) -> Callable[..., Any]:
    """``fixed`` in a run's thread, ``original`` (xDSL's) in every other."""

    def member(*args: Any) -> Any:
        return fixed(*args) if _IN_RUN.get() else original(*args)

    member.__name__ = getattr(fixed, "__name__", "member")
    member.__module__ = __name__
    return member


#: (class, member, replacement): members of xDSL classes the run's IR or xDSL's static
#: calls need fixed, whoever calls them; each is xDSL's own outside a run's thread.
_PATCHES: tuple[tuple[type, str, Any], ...] = (
    (
        SymbolTable,
        "lookup_symbol",
        staticmethod(_in_runs(mlir_compat.lookup_symbol, mlir_compat.XDSL_LOOKUP)),
    ),
    (
        StringLiteral,
        "bytes_contents",
        property(_in_runs(speedups.bytes_contents, speedups.XDSL_BYTES_CONTENTS)),
    ),
    *(
        (DenseIntOrFPElementsAttr, name, _in_runs(fixed, speedups.XDSL_DENSE_MEMBERS[name]))
        for name, fixed in speedups.DENSE_MEMBERS.items()
    ),
)
_MISSING = object()
_lock = threading.RLock()
_depth = 0
_saved: list[tuple[type, str, Any]] = []
_saved_limit = 0


@contextmanager
def applied() -> Iterator[None]:
    """Within the block, the fixes that cannot be subclass methods are in force for the
    current thread and the recursion limit is at least `RECURSION_LIMIT`; afterwards every
    member and the limit are what they were. Blocks may nest, and run in several threads:
    the outermost one installs and restores, under one lock. While installed, the members
    are visible to every thread but answer as xDSL's own outside a run's thread; the
    raised recursion limit is the one change another thread sees (docs/xdsl-fixes.md)."""
    global _depth, _saved_limit
    token = _IN_RUN.set(True)
    with _lock:
        if _depth == 0:
            _saved[:] = [
                (owner, name, owner.__dict__.get(name, _MISSING)) for owner, name, _ in _PATCHES
            ]
            for owner, name, value in _PATCHES:
                setattr(owner, name, value)
            _saved_limit = sys.getrecursionlimit()
            if _saved_limit < RECURSION_LIMIT:
                sys.setrecursionlimit(RECURSION_LIMIT)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                for owner, name, original in reversed(_saved):
                    if original is _MISSING:
                        delattr(owner, name)
                    else:
                        setattr(owner, name, original)
                _saved.clear()
                sys.setrecursionlimit(_saved_limit)
        _IN_RUN.reset(token)


#: Every xDSL member a fix replaces (`_PATCHES`) or overrides in a subclass, for the
#: canary test: its source is pinned.
FIXED_MEMBERS: tuple[tuple[type, str], ...] = (
    *((owner, name) for owner, name, _ in _PATCHES),
    (MLIRLexer, "_lex_string_literal"),
    (MLIRLexer, "_unescaped_characters_regex"),
    (MLIRLexer, "_consume_whitespace"),
    (Parser, "__init__"),
    (AttrParser, "parse_dense_int_or_fp_elements_attr"),
    (AttrParser, "parse_optional_builtin_int_or_float_attr"),
    (AttrParser, "_parse_builtin_densearray_attr"),
    (AttrParser, "_parse_dialect_resource_handle"),
    (Parser, "_parse_external_resources"),
    (Printer, "print_float"),
    (Printer, "print_bytes_literal"),
    (Printer, "print_attribute"),
    (DenseArrayBase, "print_builtin"),
)
