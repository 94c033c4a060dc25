"""Carried text in the IR (docs/spec.md §8.6; the text side is `abi_compiler.text.carry`).

`attach` links the module parsed from the masked text (`abi_compiler.pipeline.plan`) to
the chunk's layout: every `func.func` whose body was not parsed (and every declaration)
is recorded with its text, every carried top-level op becomes a `CarriedOp` (a
`CarriedSymbolOp` when it defines a symbol, so that passes see the name as taken), and a
nested module carried whole is stood in for by a `builtin.module` holding its functions'
headers. `Carried` is what the printer (`abi_compiler.pipeline.printing`) needs to put
the text back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation
from xdsl.irdl import IRDLOperation, irdl_op_definition, opt_prop_def, prop_def, traits_def
from xdsl.traits import SymbolOpInterface

from abi_compiler.ir.location_table import LocationTable
from abi_compiler.text import name_locations
from abi_compiler.text.carry import FuncText, Layout, OpText, ScanError


@irdl_op_definition
class CarriedOp(IRDLOperation):
    """A top-level op kept as its source text (never registered: only the driver makes
    them, and only the pipeline's printer prints them)."""

    name = "abi_opt.carried"
    index = prop_def(Attribute)


@irdl_op_definition
class CarriedSymbolOp(IRDLOperation):
    """A carried top-level op that defines a symbol."""

    name = "abi_opt.carried_symbol"
    index = prop_def(Attribute)
    sym_name = opt_prop_def(StringAttr)
    traits = traits_def(SymbolOpInterface())


@dataclass(slots=True)
class CarriedFunction:
    """A parsed `func.func` header whose body is text (or a declaration, whose trailing
    `loc(…)` is text)."""

    text: FuncText
    #: Properties and attributes right after parsing: when they are unchanged at print
    #: time, the header is printed as written.
    properties: dict[str, Attribute]
    attributes: dict[str, Attribute]


@dataclass
class Carried:
    """Everything the driver keeps about one chunk's carried text."""

    layout: Layout
    #: Index into `layout.ops` -> why its body is parsed (for diagnostics).
    parsed: dict[int, str]
    functions: dict[FuncOp, CarriedFunction] = field(default_factory=dict)
    carried_ops: dict[int, OpText] = field(default_factory=dict)
    #: Name of each top-level function right after parsing.
    original_names: dict[Operation, str] = field(default_factory=dict)
    #: The module header is printed as written (its attributes did not parse).
    module_header_kept: bool = False
    #: Index into `layout.ops` -> the `func.func` `headers.HeaderReader` built for it
    #: (its whole text is masked: xDSL does not see it).
    headers: dict[int, FuncOp] = field(default_factory=dict)
    #: The chunk's aliases (`#name`/`!name` -> what it stands for), defined before the
    #: chunk is parsed.
    aliases: dict[str, Attribute] = field(default_factory=dict)
    #: Index into `layout.ops` of a nested module carried whole -> the `builtin.module`
    #: that stands for it in the IR, holding the headers of its functions (passes see
    #: them as they see a parsed nested module's; it prints as written).
    nested: dict[int, ModuleOp] = field(default_factory=dict)

    def reason_at(self, offset: int) -> str | None:
        """Why the body holding ``offset`` (relative to the chunk) had to be parsed."""
        for index, why in self.parsed.items():
            item = self.layout.ops[index]
            if item.start <= offset < item.end:
                return why
        return None

    def renames(self) -> dict[str, str]:
        """Old name -> new name of every top-level function a pass renamed."""
        found: dict[str, str] = {}
        for op, old in self.original_names.items():
            if isinstance(op, FuncOp) and op.parent is not None and op.sym_name.data != old:
                found[old] = op.sym_name.data
        return found


def attach(module: ModuleOp, carried: Carried) -> None:
    """Link the module parsed from the masked text to the layout. Raises ScanError when
    they do not correspond (the driver then parses everything)."""
    layout = carried.layout
    block = module.body.block
    parsed_ops = list(block.ops)
    expected = [
        (i, item)
        for i, item in enumerate(layout.ops)
        if (isinstance(item, FuncText) and i not in carried.headers) or i in carried.parsed
    ]
    if len(parsed_ops) != len(expected):
        raise ScanError("parsed ops do not match the layout")
    previous: Operation | None = None
    by_index = dict(zip((i for i, _ in expected), parsed_ops, strict=True))
    functions = {item.name for item in layout.ops if isinstance(item, FuncText)}
    for index, item in enumerate(layout.ops):
        op = by_index.get(index)
        if op is None and (header := carried.headers.get(index)) is not None:
            _insert_after(block, previous, header)
            op = header
        if op is None:
            assert isinstance(item, OpText)
            carried_op = carried.nested.get(index) or _carried_op(
                index, item, functions, layout.text
            )
            carried.carried_ops[index] = item
            _insert_after(block, previous, carried_op)
            previous = carried_op
            continue
        if isinstance(item, FuncText):
            if not isinstance(op, FuncOp):
                raise ScanError("a func.func did not parse as one")
            carried.original_names[op] = op.sym_name.data
            if index not in carried.parsed:
                if item.body_start is not None and not op.body.blocks:
                    op.body.add_block(Block())  # `{ }` parses as no block: a definition
                carried.functions[op] = CarriedFunction(
                    item, dict(op.properties), dict(op.attributes)
                )
        previous = op


def record_argument_names(module: ModuleOp, carried: Carried, table: LocationTable) -> None:
    """Tell ``table`` where to read the name location of each top-level function's
    arguments (docs/spec.md §3.3): the `loc(…)` after each argument in the text, resolved through
    the chunk's location aliases — read only for the functions a pass asks about
    (`abi_compiler.ir.argument_names`). Right after `attach`, whose ops follow the
    layout one to one."""
    layout = carried.layout
    aliases = name_locations.LocationAliases(layout.text, layout.prologue + layout.epilogue)
    for item, op in zip(layout.ops, module.body.block.ops, strict=True):
        if isinstance(item, FuncText) and isinstance(op, FuncOp) and any(item.arg_locs):
            table.argument_names.record_reader(op, _names_reader(item, aliases))


def _names_reader(
    item: FuncText, aliases: name_locations.LocationAliases
) -> Callable[[], tuple[str | None, ...]]:
    def read() -> tuple[str | None, ...]:
        return tuple(
            None if at is None else name_locations.location_name(aliases.text, at[0], aliases)
            for at in item.arg_locs
        )

    return read


def _insert_after(block: Block, previous: Operation | None, op: Operation) -> None:
    """Insert ``op`` after ``previous`` (first in the block when None)."""
    if previous is not None:
        block.insert_op_after(op, previous)
    elif block.first_op is None:
        block.add_op(op)
    else:
        block.insert_op_before(op, block.first_op)


def _carried_op(index: int, item: OpText, functions: set[str | None], text: str) -> Operation:
    """The stand-in of a carried op, a symbol when it defines one. The custom form's
    `dialect.op @name` is a guess: next to a `func.func @name` it is a reference to the
    function (`iree_codegen.dispatch_config @f {…}`), not a second definition."""
    marker = StringAttr(str(index))
    op: Operation
    symbol = item.symbol
    if symbol in functions and not text.startswith('"', item.start):
        symbol = None
    if symbol is None:
        op = CarriedOp.create(properties={"index": marker})
    else:
        op = CarriedSymbolOp.create(properties={"index": marker, "sym_name": StringAttr(symbol)})
    return op


def carried_index(op: Operation, carried: Carried | None = None) -> int | None:
    """The index into the layout's ops of a carried op (or, with ``carried``, of a
    nested module's stand-in); None for any other op."""
    if carried is not None and isinstance(op, ModuleOp) and op.parent is not None:
        return next((i for i, stand_in in carried.nested.items() if stand_in is op), None)
    if isinstance(op, CarriedOp | CarriedSymbolOp):
        marker = op.properties["index"]
        assert isinstance(marker, StringAttr)
        return int(marker.data)
    return None
