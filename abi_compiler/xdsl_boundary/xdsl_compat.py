"""The project's one use of what xDSL (0.74) does not promise for reading IR: private names
and internal attributes, given public names here. Every other module of `abi_compiler/`,
`dialects/` and `passes/` uses xDSL's public names only (the fixes of xDSL aside:
`defects`, `mlir_compat`, `speedups`, put together by `xdsl_fixes`):
`tests/xdsl_boundary/test_xdsl_names.py` checks that, and that each name used here still
exists with the parameters relied on, so an xDSL upgrade that changes one fails there,
by name.

Hooks, public names for the private ones the rest of the project needs:

* `HookedParser`, the base of `type_cache.TypeCachingParser` and
  `locating_parser.LocatingParser`: `current_token`, `dialect_stack` (the parser state),
  `resume_at` (`_resume_from`), and two methods to override: `operation_type` (xDSL's
  `Parser._get_op_by_name`) and `ssa_defined` (after `Parser._register_ssa_definition`);
* `HookedPrinter`, the base of `xdsl_fixes.FixedPrinter` (and so of the run's printer): `print_new_line`
  (`Printer._print_new_line`) and `forget_names` (the printer's `_blocks` and
  `_ssa_values`);
* `check_pass_option` and `pass_option_text` (`arg_spec._convert_arg_to_type`,
  `ArgSpec._spec_parameter_type_str`), for the driver's pass options;
* `set_block_arguments` (`Block._args`), for `passes/decompose.py`: the one name of this
  module passes import;
* `BUILTIN_FLOAT_TYPES` and `BUILTIN_INTEGER_TYPE` (`AttrParser._builtin_float_types`,
  `AttrParser._builtin_integer_type_regex`): the builtin number types by name, as xDSL's
  parser reads them, for `text_to_ir/type_reader.py`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

from xdsl.dialects.builtin import (
    LocationAttr,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Block, BlockArgument, Operation, SSAValue, TypeAttribute
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.arg_spec import (
    ArgSpec,
    _convert_arg_to_type,  # pyright: ignore[reportPrivateUsage]
)
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRToken, MLIRTokenKind

# -- Symbol lookups ----------------------------------------------------------------------

#: xDSL's `SymbolTable.lookup_symbol`, and anything that stands in for it.
SymbolLookup: TypeAlias = Callable[[Operation, str | StringAttr | SymbolRefAttr], Operation | None]


# -- Public names for the rest of the project ---------------------------------------------
#
# Every other module of the project uses xDSL through its public names only
# (tests/xdsl_boundary/test_xdsl_names.py checks that, and that every private name used here
# still exists with the parameters relied on). What they need beyond those is here.


class HookedParser(Parser):
    """xDSL's `Parser`, with what the driver's parsers (`type_cache.TypeCachingParser`,
    `locations.LocatingParser`) use of its internals under public names: the current
    token, the dialect stack, resuming at an offset, and three methods to override,
    `operation_type`, `ssa_defined` and `location_alias_before_definition`."""

    @property
    def current_token(self) -> MLIRToken:
        """The next token, not consumed yet."""
        return self._parser_state.current_token

    @property
    def dialect_stack(self) -> list[str]:
        """The dialects whose ops may be written without their prefix here."""
        return self._parser_state.dialect_stack

    def resume_at(self, pos: int) -> None:
        """Continue parsing at offset ``pos`` of the input (skipping what is before)."""
        self._resume_from(pos)

    def operation_type(self, name: str) -> type[Operation]:
        """The class of the op called ``name``, for every op the parser reads (xDSL's
        `Parser._get_op_by_name`, which an override may call through `super()`)."""
        return super()._get_op_by_name(name)

    def _get_op_by_name(self, name: str) -> type[Operation]:
        return self.operation_type(name)

    def ssa_defined(self, name: str, values: Sequence[SSAValue], span: Span) -> None:
        """Called after the parser defined ``values`` under the name ``name`` (written at
        ``span``); does nothing by default."""

    def _register_ssa_definition(self, name: str, values: Sequence[SSAValue], span: Span) -> None:
        super()._register_ssa_definition(name, values, span)
        self.ssa_defined(name, values, span)

    def location_alias_before_definition(self, name: str, span: Span) -> LocationAttr:
        """The location for `loc(#name)` (or a child `#name` inside a location) when
        ``name`` is not defined yet, written at ``span``. MLIR allows location aliases
        to be used before their definition (printers put them at the end of the file);
        xDSL does not: by default this is xDSL's error."""
        self.raise_error(f"undefined symbol alias '{name}'", span)

    def _parse_location(self) -> LocationAttr:
        token = self._current_token
        if token.kind == MLIRTokenKind.HASH_IDENT and token.text not in self.attribute_aliases:
            self._consume_token(MLIRTokenKind.HASH_IDENT)
            return self.location_alias_before_definition(token.text, token.span)
        return super()._parse_location()


class HookedPrinter(Printer):
    """xDSL's `Printer`, with a line break at the current indentation and a way to forget
    the names it gave, under public names."""

    def print_new_line(self) -> None:
        """A line break, then the current indentation."""
        self._print_new_line()

    def forget_names(self, op: Operation) -> None:
        """Forget the names of the blocks and values in ``op`` and of its results (the
        printer keeps every name it gave for the rest of the module). Only for an op
        whose values nothing printed later can use (one isolated from above)."""
        for inner in op.walk():
            for region in inner.regions:
                for block in region.blocks:
                    self._blocks.pop(block, None)
                    for arg in block.args:
                        self._ssa_values.pop(arg, None)
            for result in inner.results:
                self._ssa_values.pop(result, None)


def check_pass_option(value: Any, hint: Any) -> None:
    """Raise `ValueError` when ``value`` (the values of one option of an `ArgSpec`) does
    not convert to the type ``hint``, as xDSL converts pass options."""
    _convert_arg_to_type(value, hint)


def pass_option_text(value: Any) -> str:
    """The values of one option of an `ArgSpec`, as written in a pipeline."""
    return ",".join(ArgSpec._spec_parameter_type_str(v) for v in value)  # pyright: ignore[reportPrivateUsage]


def set_block_arguments(block: Block, arguments: Sequence[BlockArgument]) -> None:
    """Make ``arguments`` (arguments of ``block``: kept ones and new ones, in their new
    order) the argument list of ``block`` in one step, numbered. xDSL has no bulk form of
    `Block.insert_arg`/`erase_arg` (each renumbers every later argument: one call per
    argument is quadratic); this is what they do, once."""
    for index, arg in enumerate(arguments):
        arg.index = index
    block._args = tuple(arguments)  # pyright: ignore[reportPrivateUsage]


# -- Builtin number types ------------------------------------------------------------------

#: The builtin float types by their name (`f32`, `bf16`, `f8E4M3FN`, …), the objects xDSL's
#: parser answers for them.
BUILTIN_FLOAT_TYPES: Mapping[str, TypeAttribute] = AttrParser._builtin_float_types  # pyright: ignore[reportPrivateUsage]
#: xDSL's pattern of a builtin integer type's name (`i32`, `si8`, `ui64`; group 1: the width).
BUILTIN_INTEGER_TYPE: re.Pattern[str] = AttrParser._builtin_integer_type_regex  # pyright: ignore[reportPrivateUsage]
