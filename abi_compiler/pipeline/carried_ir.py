"""Carried text in the IR: what `abi-opt` parses of a chunk, and how carried text is put
back when the module is printed (SPEC §8.6; the text side is `carry`).

* `parsed_items` decides which bodies xDSL parses: only where the pipeline's passes must
  rewrite them (`BodyAccess`); `prepare` defines the chunk's aliases, builds the headers
  `headers.HeaderReader` can, and returns the text xDSL parses, masked once.
* `attach` links the parsed module to the layout: every `func.func` whose body was not
  parsed is recorded with its text, and every carried top-level op becomes a `CarriedOp`
  (a `CarriedSymbolOp` when it defines a symbol, so that passes see the name as taken).
* `CarriedPrinter` (mixed into the driver's printer) prints a carried function's header
  from the IR — its original text when no pass changed it — and its body as written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TextIO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr, UnregisteredAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation
from xdsl.irdl import IRDLOperation, irdl_op_definition, opt_prop_def, prop_def, traits_def
from xdsl.printer import Printer
from xdsl.traits import SymbolOpInterface

from abi_compiler.ir import xdsl_compat
from abi_compiler.passes.contract import BodyAccess
from abi_compiler.pipeline.headers import HeaderReader
from abi_compiler.pipeline.locations import LocationTable
from abi_compiler.pipeline.text_values import TextValueParser, define_aliases
from abi_compiler.text import carry
from abi_compiler.text.carry import FuncText, Layout, OpText, ScanError


@irdl_op_definition
class CarriedOp(IRDLOperation):
    """A top-level op kept as its source text (never registered: only the driver makes
    them, and only the driver's printer prints them)."""

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


def prepare(ctx: Context, carried: Carried, table: LocationTable, base: int) -> str:
    """Define the chunk's aliases (into ``carried.aliases``), build the headers of the
    carried functions that `headers.HeaderReader` can (into ``carried.headers``), and
    return the text xDSL parses: the chunk with every carried range masked. Raises
    ParseError (offsets in the chunk) for an alias definition xDSL rejects."""
    layout = carried.layout
    text = layout.text
    parser = TextValueParser(ctx, text)
    define_aliases(
        parser,
        [(a.name, a.start, a.value_start, a.end) for a in layout.aliases if not a.location],
    )
    carried.aliases = parser.attribute_aliases
    reader = HeaderReader(ctx, carried.aliases)
    for index, item in enumerate(layout.ops):
        if isinstance(item, FuncText) and index not in carried.parsed:
            func = reader.read(text, item, table, base)
            if func is not None:
                carried.headers[index] = func
        elif isinstance(item, OpText) and item.functions and index not in carried.parsed:
            functions = [reader.read(text, inner, table, base) for inner in item.functions]
            built = [func for func in functions if func is not None]
            name = None if item.symbol is None else StringAttr(item.symbol)
            carried.nested[index] = ModuleOp(built, sym_name=name)
            table.record(carried.nested[index], base + item.start)
            for func, inner in zip(functions, item.functions, strict=True):
                if func is not None:
                    carried.functions[func] = CarriedFunction(
                        inner, dict(func.properties), dict(func.attributes)
                    )
    return carry.mask(text, masked_ranges(carried))


def masked_ranges(carried: Carried) -> list[tuple[int, int]]:
    """What xDSL does not see of the chunk: alias definitions and resource sections
    (defined or carried), carried ops and bodies, headers already built, and every
    location and comment of what it parses."""
    layout = carried.layout
    text = layout.text
    ranges = [*layout.prologue, *layout.epilogue]
    # What lies between items is blanks and comments: masked whole (xDSL's lexer ends a
    # comment at `\n` only).
    items = [*layout.prologue, *layout.epilogue]
    if layout.module is not None:
        module = layout.module
        ranges.append((module.body_end, module.end))
        items.append((module.start, module.end))
        ranges += _gaps(
            module.body_start + 1, [(op.start, op.end) for op in layout.ops], module.body_end - 1
        )
    else:
        items += [(op.start, op.end) for op in layout.ops]
    ranges += _gaps(0, sorted(items), len(text))
    for index, item in enumerate(layout.ops):
        if index in carried.parsed:
            ranges += carry.locations(text, item.start, item.end)
            ranges += carry.comments(text, item.start, item.end)
        elif isinstance(item, OpText) or index in carried.headers:
            ranges.append((item.start, item.end))
        else:
            ranges += item.header_locs
            if item.body_start is None or item.body_end is None:
                ranges += carry.comments(text, item.start, item.end)
            else:
                ranges += carry.comments(text, item.start, item.body_start)
                ranges.append((item.body_start + 1, item.body_end - 1))
                ranges += carry.comments(text, item.body_end, item.end)
    return ranges


def _gaps(start: int, items: list[tuple[int, int]], end: int) -> list[tuple[int, int]]:
    """The ranges between ``start``, the (sorted) ``items`` and ``end``."""
    bounds = [start, *(bound for item in items for bound in item), end]
    return [(bounds[i], bounds[i + 1]) for i in range(0, len(bounds), 2)]


def parsed_items(layout: Layout, access: BodyAccess) -> dict[int, str]:
    """Which items xDSL parses whole (index into ``layout.ops``), with the reason."""
    text = layout.text
    if access is BodyAccess.SIGNATURES:
        return {}
    if access is BodyAccess.ALL:
        return {i: "every body is parsed" for i in range(len(layout.ops))}
    parsed: dict[int, str] = {}
    structured: set[str] = set()
    for index, item in enumerate(layout.ops):
        if not isinstance(item, FuncText):
            continue
        name = item.name
        if carry.has_structured_signature(layout, item):
            parsed[index] = f"the signature of @{name} holds structured values"
            if name is not None:
                structured.add(name)
        elif carry.has_structured_body(text, item):
            parsed[index] = f"the body of @{name} works with structured values"
    if structured:
        # An op must be rewritten when it calls one of them, directly or through an
        # attribute alias; any other reference is redirected in the text.
        through: dict[str, set[str]] = {}
        for alias in layout.aliases:
            if not alias.location and alias.name[0] == "#":
                names = carry.symbol_references(text, alias.value_start, alias.end)
                if names & structured:
                    through[alias.name] = names & structured
        for index, item in enumerate(layout.ops):
            if index in parsed:
                continue
            used: set[str] = set()
            if through or carry.symbol_references(text, item.start, item.end) & structured:
                for name in carry.called_symbols(text, item.start, item.end):
                    used |= through.get(name, set()) if name[0] == "#" else {name} & structured
            if used:
                callee = sorted(used)[0]
                who = f"@{item.name}" if isinstance(item, FuncText) else "this operation"
                parsed[index] = f"{who} uses @{callee}, whose signature is flattened"
    return parsed


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
    for index, item in enumerate(layout.ops):
        op = by_index.get(index)
        if op is None and (header := carried.headers.get(index)) is not None:
            _insert_after(block, previous, header)
            op = header
        if op is None:
            assert isinstance(item, OpText)
            carried_op = carried.nested.get(index) or _carried_op(index, item)
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


def _insert_after(block: Block, previous: Operation | None, op: Operation) -> None:
    """Insert ``op`` after ``previous`` (first in the block when None)."""
    if previous is not None:
        block.insert_op_after(op, previous)
    elif block.first_op is None:
        block.add_op(op)
    else:
        block.insert_op_before(op, block.first_op)


def _carried_op(index: int, item: OpText) -> Operation:
    marker = StringAttr(str(index))
    if item.symbol is None:
        return CarriedOp.create(properties={"index": marker})
    return CarriedSymbolOp.create(properties={"index": marker, "sym_name": StringAttr(item.symbol)})


def carried_index(op: Operation) -> int | None:
    if isinstance(op, CarriedOp | CarriedSymbolOp):
        marker = op.properties["index"]
        assert isinstance(marker, StringAttr)
        return int(marker.data)
    return None


class CarriedPrinter(xdsl_compat.HookedPrinter):
    """xDSL's printer, printing carried text where the IR has none."""

    carried: Carried | None = None
    _renames: dict[str, str] | None = None

    def print_attribute(self, attribute: Attribute) -> None:
        if isinstance(attribute, UnregisteredAttr) and "\n" in attribute.value.data:
            # The body of a dialect attribute or type is its text: a line break in it
            # is not indented again (xDSL's printer would).
            self.print_string("!" if attribute.is_type.data else "#")
            name = attribute.attr_name.data
            if attribute.is_opaque.data:
                self.print_string(f"{name.replace('.', '<', 1)}{attribute.value.data}>", indent=0)
            else:
                self.print_string(f"{name}<{attribute.value.data}>", indent=0)
            return
        super().print_attribute(attribute)

    def renames(self) -> dict[str, str]:
        if self._renames is None:
            self._renames = {} if self.carried is None else self.carried.renames()
        return self._renames

    def print_carried(self, op: Operation) -> bool:
        """Print ``op`` from its text if it has one; False when it is ordinary IR."""
        carried = self.carried
        if carried is None:
            return False
        index = carried_index(op)
        if index is None and isinstance(op, ModuleOp) and op.parent is not None:
            index = next((i for i, stand_in in carried.nested.items() if stand_in is op), None)
        if index is not None:
            item = carried.carried_ops[index]
            self._write_text(carried.layout.text[item.start : item.end])
            return True
        if isinstance(op, FuncOp) and op in carried.functions:
            self._print_function(op, carried.functions[op])
            return True
        return False

    def _write_text(self, text: str) -> None:
        self.print_string(carry.rename_symbols(carry.drop_comments(text), self.renames()), indent=0)

    def _print_function(self, op: FuncOp, function: CarriedFunction) -> None:
        assert self.carried is not None
        text = self.carried.layout.text
        item = function.text
        if dict(op.properties) == function.properties and dict(op.attributes) == (
            function.attributes
        ):
            self._write_text(text[item.start : item.end])
            return
        # What follows the attributes, as written: the body and its `loc(…)`, or a
        # declaration's `loc(…)`.
        tail = item.body_start
        if tail is None:
            trailing = [start for start, _ in item.header_locs if start >= item.signature_end]
            tail = trailing[0] if trailing else item.end
        self.print_string("func.func")
        if op.sym_visibility is not None:
            self.print_string(f" {op.sym_visibility.data}")
        self.print_string(" ")
        self.print_symbol_name(op.sym_name.data)
        if item.plain and all(
            op.properties.get(key) == function.properties.get(key)
            for key in ("function_type", "arg_attrs", "res_attrs")
        ):
            # The signature did not change (reflection added, a rename, the visibility):
            # the name from the IR, the signature as written (the carried body spells its
            # types as the header does; one written over several lines on one), the new
            # attributes.
            signature = carry.one_line(text[item.name_span[1] : item.signature_end])
            self.print_string(carry.rename_symbols(signature, self.renames()), indent=0)
            self.print_op_attributes(op.attributes, print_keyword=True)
        else:
            self._print_signature(op, item, text)
        if tail < item.end:
            self.print_string(" ")
            self._write_text(text[tail : item.end])

    def _print_signature(self, op: FuncOp, item: FuncText, text: str) -> None:
        """The arguments, results and attributes from the IR, with the argument names
        and locations of the original (the carried body still refers to its arguments)."""
        self.print_string("(")
        inputs = op.function_type.inputs.data
        arg_attrs = op.arg_attrs.data if op.arg_attrs is not None else (None,) * len(inputs)
        declaration = item.body_start is None
        for i, (type, attrs) in enumerate(zip(inputs, arg_attrs, strict=True)):
            if i:
                self.print_string(", ")
            if not declaration:
                self.print_string(f"%{item.arg_names[i]}: ")
            self.print_attribute(type)
            if attrs is not None and attrs.data:
                self.print_op_attributes(attrs.data)
            location = item.arg_locs[i] if i < len(item.arg_locs) else None
            if location is not None:
                self.print_string(" " + text[location[0] : location[1]])
        self.print_string(")")
        print_outputs(self, op)
        self.print_op_attributes(
            op.attributes,
            reserved_attr_names=("sym_name", "function_type", "sym_visibility", "arg_attrs"),
            print_keyword=True,
        )


def print_outputs(printer: Printer, op: FuncOp) -> None:
    """` -> …` of a function header, as xDSL's `func.func` printer writes it."""
    xdsl_compat.print_func_outputs(printer, op.function_type.outputs.data, op.res_attrs)


def write_items(
    stream: TextIO,
    layout: Layout,
    items: list[tuple[int, int]],
    renames: Mapping[str, str] | None = None,
) -> None:
    """Alias definitions and resource sections, each on its own line (with references to
    a renamed function redirected)."""
    for start, end in items:
        stream.write(
            carry.rename_symbols(carry.drop_comments(layout.text[start:end]), renames or {})
        )
        stream.write("\n")
