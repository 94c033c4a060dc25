"""The parsing stages of a run: what xDSL is given of a chunk, parsed with source
positions (docs/spec.md §8.6, §11).

With carried text, `parse_carried` defines the chunk's aliases
(`abi_compiler.text_to_ir.text_values`), builds the headers it can
(`abi_compiler.text_to_ir.headers`), parses the rest from the text masked once
(`abi_compiler.pipeline.plan`) and attaches the carried text to the module
(`carried_ir.attach`). `parse_whole` parses a chunk as it is (`--parse-all`, or a chunk
the scanner does not know). Errors are located `Failure`s.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.utils.exceptions import DiagnosticException, MultipleSpansParseError, ParseError

from abi_compiler.ir.location_table import LocationTable
from abi_compiler.pipeline.locating_parser import IMPLICIT_MODULE_REFUSED, LocatingParser
from abi_compiler.pipeline.plan import Plan, masked_ranges
from abi_compiler.pipeline.run_diagnostics import Diagnostic, Failure
from abi_compiler.text import carry
from abi_compiler.text.carry import OpText, ScanError
from abi_compiler.text_to_ir import carried_ir
from abi_compiler.text_to_ir.carried_ir import Carried
from abi_compiler.text_to_ir.headers import HeaderReader, read_headers
from abi_compiler.text_to_ir.text_values import TextAttr, TextValueParser, define_aliases


class Chunk:
    """One chunk of an input file: its text, where it starts in the file, the file's name
    (offsets in diagnostics are file offsets)."""

    def __init__(self, name: str, text: str, base: int) -> None:
        self.name = name
        self.text = text
        self.base = base


def parse_carried(
    ctx: Context,
    chunk: Chunk,
    plan: Plan,
    carried: Carried,
    table: LocationTable,
    *,
    implicit_module: bool,
) -> ModuleOp | None:
    """The chunk's aliases defined, the headers built, the masked text of ``plan``
    parsed, and ``carried`` attached to it; None when the parsed module does not match
    the layout (the caller then parses the whole chunk)."""
    layout = plan.layout
    if not implicit_module and layout.module is None and layout.ops:
        # Ops outside one `module` (carried, so xDSL never sees them): the first one
        # that is not the module is the error.
        first = layout.ops[0]
        is_module = isinstance(first, OpText) and first.functions is not None
        culprit = layout.ops[1] if is_module and len(layout.ops) > 1 else first
        raise Failure(Diagnostic("error", IMPLICIT_MODULE_REFUSED, chunk.base + culprit.start))
    try:
        parser = TextValueParser(ctx, layout.text)
        for alias in layout.aliases:
            if alias.location:
                # A location alias used as a value (`{k = #loc3}`, `#x = [#loc3]`) is kept
                # as written (its definition is carried).
                parser.attribute_aliases[alias.name] = TextAttr(StringAttr(alias.name))
        define_aliases(
            parser,
            [(a.name, a.start, a.value_start, a.end) for a in layout.aliases if not a.location],
        )
    except ParseError as error:
        raise _failure(error, chunk) from None
    carried.aliases = parser.attribute_aliases
    read_headers(carried, HeaderReader(ctx, carried.aliases), table, chunk.base)
    plan.masked = carry.mask(layout.text, masked_ranges(layout, carried.parsed, carried.headers))
    try:
        module = _parse(ctx, chunk, plan.masked, table, carried, implicit_module)
    except Failure as failure:
        # Module attributes xDSL cannot read (`#hal.device.target<…> : !hal.device`): the
        # module header is then printed as written.
        attributes = layout.module.attributes if layout.module is not None else None
        offset = failure.diagnostic.offset
        if (
            attributes is None
            or offset is None
            or not attributes[0] <= offset - chunk.base < attributes[1]
        ):
            raise
        masked = carry.mask(plan.masked, [attributes])
        carried.module_header_kept = True
        module = _parse(ctx, chunk, masked, table, carried, implicit_module)
    try:
        carried_ir.attach(module, carried)
    except ScanError:
        return None
    carried_ir.record_argument_names(module, carried, table)
    if layout.module is None and layout.ops:
        # An implicit module is located at its first operation, which xDSL may not have
        # seen (carried, or a header built without it).
        table.record(module, chunk.base + layout.ops[0].start)
    return module


def parse_whole(
    ctx: Context,
    chunk: Chunk,
    table: LocationTable,
    *,
    implicit_module: bool,
    option: str | None = None,
) -> ModuleOp:
    """The chunk parsed whole by xDSL (with source positions); ``option``: the flag that
    asked for it (`--parse-all`), if one did, for diagnostics."""
    return _parse(ctx, chunk, chunk.text, table, None, implicit_module, option)


def _parse(
    ctx: Context,
    chunk: Chunk,
    text: str,
    table: LocationTable,
    carried: Carried | None,
    implicit_module: bool,
    option: str | None = None,
) -> ModuleOp:
    parser: LocatingParser | None = None
    try:
        parser = LocatingParser(ctx, text, chunk.name, table=table, base=chunk.base)
        if carried is not None:
            parser.explain = carried.reason_at
            parser.attribute_aliases.update(carried.aliases)
        else:
            parser.full_parse_option = option
        return parser.parse_located_module(
            implicit_module, ops_carried=carried is not None and bool(carried.layout.ops)
        )
    except ParseError as error:
        raise _failure(error, chunk) from None
    except RecursionError:
        # Past xdsl_fixes.RECURSION_LIMIT: at the token where parsing gave up.
        position = chunk.base + (parser.pos if parser is not None else 0)
        raise Failure(Diagnostic("error", "input nested too deeply", position)) from None
    except MemoryError as error:
        # E.g. `dense<0> : tensor<4294967296xi8>`: xDSL stores every element of a splat.
        # At the operation being parsed.
        offset = getattr(error, "abi_op_offset", None)
        if offset is None:
            offset = chunk.base + (parser.pos if parser is not None else 0)
        raise Failure(Diagnostic("error", "out of memory while parsing", offset)) from None
    except (DiagnosticException, ValueError) as error:
        # Attribute and type verifiers run while parsing and carry no span.
        offset = getattr(error, "abi_op_offset", None)
        if offset is None:
            offset = chunk.base + (parser.pos if parser is not None else 0)
        raise Failure(Diagnostic("error", str(error), offset)) from None


def _failure(error: ParseError, chunk: Chunk) -> Failure:
    """The located diagnostic of a parse error (offsets in ``chunk``)."""
    notes: tuple[Diagnostic, ...] = ()
    if isinstance(error, MultipleSpansParseError):
        notes = tuple(
            Diagnostic("note", message or error.ref_text or "", chunk.base + span.start)
            for span, message in error.refs
        )
    return Failure(Diagnostic("error", error.msg, chunk.base + error.span.start, notes))
