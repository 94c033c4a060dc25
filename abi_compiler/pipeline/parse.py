"""The parsing stages of a run: what xDSL is given of a chunk, parsed with source
positions (SPEC §8.6, §11).

With carried text, `parse_carried` parses the masked text of a plan
(`abi_compiler.pipeline.plan`; the headers `abi_compiler.pipeline.headers` built are
masked too) and attaches the carried text to the module (`carried_ir.attach`). `parse_whole` parses a chunk as it is (`--parse-all`,
or a chunk the scanner does not know). Errors are located `Failure`s.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException, MultipleSpansParseError, ParseError

from abi_compiler.ir.location_table import LocationTable
from abi_compiler.pipeline import carried_ir
from abi_compiler.pipeline.carried_ir import Carried
from abi_compiler.pipeline.diagnostics import Diagnostic, Failure
from abi_compiler.pipeline.locations import LocatingParser
from abi_compiler.pipeline.plan import Plan
from abi_compiler.text import carry
from abi_compiler.text.carry import ScanError


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
    """The masked text of ``plan`` parsed, and ``carried`` attached to it; None when the
    parsed module does not match the layout (the caller then parses the whole chunk)."""
    layout = plan.layout
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
    ctx: Context, chunk: Chunk, table: LocationTable, *, implicit_module: bool
) -> ModuleOp:
    """The chunk parsed whole by xDSL (with source positions)."""
    return _parse(ctx, chunk, chunk.text, table, None, implicit_module)


def _parse(
    ctx: Context,
    chunk: Chunk,
    text: str,
    table: LocationTable,
    carried: Carried | None,
    implicit_module: bool,
) -> ModuleOp:
    parser: LocatingParser | None = None
    try:
        parser = LocatingParser(ctx, text, chunk.name, table=table, base=chunk.base)
        if carried is not None:
            parser.explain = carried.reason_at
        return parser.parse_located_module(
            implicit_module, ops_carried=carried is not None and bool(carried.layout.ops)
        )
    except ParseError as error:
        notes: tuple[Diagnostic, ...] = ()
        if isinstance(error, MultipleSpansParseError):
            notes = tuple(
                Diagnostic("note", message or error.ref_text or "", chunk.base + span.start)
                for span, message in error.refs
            )
        raise Failure(
            Diagnostic("error", error.msg, chunk.base + error.span.start, notes)
        ) from None
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
