"""Source positions of parsed IR, for `file:line:col` diagnostics (docs/spec.md §11): the parser
side.

xDSL's parser does not record where an operation came from, so `abi-opt` parses with
`LocatingParser`, which writes the start offset of every operation (and of every named
block argument) into a `LocationTable` (`abi_compiler.ir.location_table`, which also
holds what passes use: `inherit_location`). Offsets are plain integers into the whole
input file; they become `line:col` only when a diagnostic is printed
(`abi_compiler.pipeline.run_diagnostics.SourceFile.line_col`), so parsing stays linear however many operations the file holds.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects.builtin import (
    LocationAttr,
    ModuleOp,
    NameLoc,
    StringAttr,
    UnknownLoc,
    UnregisteredOp,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.ir.core import AttributeInvT
from xdsl.parser import UnresolvedOperand
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Span

from abi_compiler.ir.location_table import LocationTable
from abi_compiler.text_to_ir.type_cache import TypeCachingParser

_ENTIRE_INPUT = "Could not parse entire input!"  # xDSL's message
#: Without an implicit module (`--no-implicit-module`), at the op that is not the one module.
IMPLICIT_MODULE_REFUSED = (
    "builtin.module operation expected: without an implicit module the input is one builtin.module"
)


@functools.cache
def is_isolated(op_type: type[Operation]) -> bool:
    """Whether ops of this class are `IsolatedFromAbove` (an unregistered op is not)."""
    return op_type.has_trait(IsolatedFromAbove, value_if_unregistered=False)


class LocatingParser(TypeCachingParser):
    """xDSL's MLIR parser, recording where each operation and block argument starts
    (and parsing each distinct type text once, `abi_compiler.text_to_ir.type_cache`).

    ``base`` is the offset of ``text`` inside the whole file (non-zero for the chunks of
    ``--split-input-file``), so recorded offsets are file offsets.
    """

    def __init__(
        self, ctx: Any, text: str, name: str, *, table: LocationTable, base: int = 0
    ) -> None:
        super().__init__(ctx, text, name)
        self._table = table
        self._base = base
        # Uses of values not defined yet, in order: (name, span of the first use).
        self._forward_uses: list[tuple[str, Span]] = []
        # Location aliases used before their definition: the location object standing
        # in for each use -> the alias name (resolved once the whole text is parsed).
        self._later_aliases: dict[int, tuple[LocationAttr, str]] = {}

    def parse_optional_symbol_name(self) -> StringAttr | None:
        # xDSL decodes a quoted name's bytes unchecked (`@"\FF"`, which MLIR takes): its
        # UnicodeDecodeError was the diagnostic, at the op.
        start = self.pos
        try:
            return super().parse_optional_symbol_name()
        except UnicodeDecodeError as error:
            byte = error.object[error.start]
            self.raise_error(f"symbol name is not valid UTF-8 (byte 0x{byte:02x})", start, self.pos)

    def parse_operation(self) -> Operation:
        start = self._base + self.pos
        forward_mark = len(self._forward_uses)
        try:
            op = super().parse_operation()
        except Exception as error:
            # Errors without a span (attribute verifiers run while parsing) are located at
            # the innermost operation being parsed.
            if getattr(error, "abi_op_offset", None) is None:
                error.abi_op_offset = start  # type: ignore[attr-defined]
            raise
        self._table.record(op, start)
        if is_isolated(type(op)):
            self._check_defined(forward_mark)
        return op

    def resolve_operand(
        self, operand: UnresolvedOperand, type: AttributeInvT
    ) -> SSAValue[AttributeInvT]:
        name = operand.operand_name
        if name not in self.ssa_values and name not in self.forward_ssa_references:
            self._forward_uses.append((name, operand.span))
        return super().resolve_operand(operand, type)

    def _check_defined(self, mark: int) -> None:
        """As MLIR does at the end of an isolated region: a value used in it must be
        defined in it, so a use still unresolved is an error at that use (xDSL would
        report it at the end of the input, or resolve it to a value of the same name in
        a later function)."""
        for name, span in self._forward_uses[mark:]:
            if name in self.forward_ssa_references:
                self.raise_error("use of undeclared SSA value name", span)
        del self._forward_uses[mark:]

    #: With carried text (`carried_ir`): why the body at an offset (of this parser's
    #: text) is parsed at all, for the error about an op that cannot be.
    explain: Callable[[int], str | None] | None = None
    #: Without carried text: the option that made every body parsed (`--parse-all`),
    #: if one did (else the text has a shape the scanner does not know).
    full_parse_option: str | None = None

    def operation_type(self, name: str) -> type[Operation]:
        op_type = self.ctx.get_optional_op(name, dialect_stack=self.dialect_stack)
        # xDSL points after the name; point at the name itself (a generic op's name is
        # the string literal just before).
        content = self.lexer.input.content
        end = self.pos
        start = content.rfind(name, 0, end)
        span = Span(start, start + len(name), self.lexer.input) if start >= 0 else None
        generic = start > 0 and content[start - 1] == '"'
        known = op_type is not None and not issubclass(op_type, UnregisteredOp)
        if known or (op_type is not None and generic):
            return op_type  # type: ignore[return-value]
        if generic:
            self.raise_error(
                f"Operation {name} is not registered (--allow-unregistered-dialect "
                "accepts it in generic form)",
                span,
            )
        form = f'("{name}"(…) : (…) -> (…))'
        if self.explain is None:
            hint = f"write it in generic form {form} with --allow-unregistered-dialect"
            if self.full_parse_option is not None:
                hint += f", or leave out {self.full_parse_option} to carry the body as text"
        else:
            why = self.explain(max(start, 0))
            hint = f"write it in generic form {form}"
            if why is not None:
                hint = f"the body is parsed because {why}; {hint}"
        self.raise_error(
            f"Operation {name} is not registered and its custom syntax cannot be parsed: {hint}",
            span,
        )

    def external_resources_reason(self) -> str:
        if self.full_parse_option is not None:
            return f"{self.full_parse_option} parses the file whole"
        return "the file has a shape abi-opt does not carry as text, so it is parsed whole"

    def ssa_defined(self, name: str, values: Sequence[SSAValue], span: Span) -> None:
        for value in values:
            if isinstance(value, BlockArgument):
                self._table.record(value, self._base + span.start)

    def location_alias_before_definition(self, name: str, span: Span) -> LocationAttr:
        """As MLIR, a location alias may be used before its definition: an unknown
        location stands in for it, and argument names are read through the definition
        once the text is parsed (`_record_argument_names`). `abi-opt` prints no
        location of a parsed op, so nothing else needs it."""
        standing_in = UnknownLoc()
        self._later_aliases[id(standing_in)] = (standing_in, name)
        return standing_in

    def _location_name(self, location: Attribute | None) -> str | None:
        """The name of a name location (docs/spec.md §3.3), through aliases used before their
        definition; None for any other location."""
        for _ in range(len(self._later_aliases) + 1):
            if isinstance(location, NameLoc):
                return location.desc.data
            later = self._later_aliases.get(id(location))
            if later is None or later[0] is not location:
                return None
            location = self.attribute_aliases.get(later[1])
        return None

    def _record_argument_names(self, module: ModuleOp) -> None:
        """The name location of each argument of every top-level function with a body
        (xDSL keeps it on the entry block's arguments), for the passes
        (`abi_compiler.ir.argument_names`). Functions without any are not recorded."""
        for op in module.body.block.ops:
            if isinstance(op, FuncOp) and op.body.blocks:
                names = [self._location_name(arg.location) for arg in op.args]
                if any(name is not None for name in names):
                    self._table.argument_names.record(op, names)

    def parse_located_module(
        self, allow_implicit_module: bool = True, *, ops_carried: bool = False
    ) -> ModuleOp:
        """`parse_module`; an implicit module is located at its first operation.
        ``ops_carried``: the text's operations are all masked out (carried text, headers
        built without xDSL), so an implicit module with none left is an empty one.
        Without ``allow_implicit_module`` the input must be one `builtin.module` (aliases
        and resource sections beside it): another top-level op is an error at that op.
        (xDSL's own check dropped every op after the module, and refused aliases.)"""
        try:
            module = self.parse_module(True)
        except ParseError as error:
            # xDSL's check at the end of the input: a value never defined, at its first use.
            if error.msg.startswith("values used but not defined"):
                self._check_defined(0)
            if not (
                ops_carried
                and allow_implicit_module
                and error.msg == _ENTIRE_INPUT
                and self.pos == len(self.lexer.input.content)
            ):
                if error.msg == _ENTIRE_INPUT:
                    # Say what was not understood.
                    found = error.span.text.strip()
                    found = f"'{found}'" if found else "the end of the input"
                    raise ParseError(
                        error.span,
                        "Could not parse entire input: expected an operation, an alias "
                        f"definition or a resource section, found {found}",
                    ) from None
                raise
            module = ModuleOp([])
        if not allow_implicit_module and self._table.offset_of(module) is None:
            self._refuse_implicit(module)
        self._record_argument_names(module)
        if self._table.offset_of(module) is None:
            first = module.body.block.first_op
            first_offset = self._table.offset_of(first) if first is not None else None
            self._table.record(module, self._base if first_offset is None else first_offset)
        return module

    def _refuse_implicit(self, module: ModuleOp) -> None:
        """``module`` was made by the parser around the input's top-level ops: an error
        at the first op that is not the one `builtin.module`."""
        ops = list(module.body.block.ops)
        if len(ops) > 1 and isinstance(ops[0], ModuleOp):
            culprit: Operation | None = ops[1]
        else:
            culprit = ops[0] if ops else None
        offset = None if culprit is None else self._table.offset_of(culprit)
        self.raise_error(IMPLICIT_MODULE_REFUSED, 0 if offset is None else offset - self._base)
