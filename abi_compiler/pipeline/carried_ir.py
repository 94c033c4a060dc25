"""Carried text in the IR: what `abi-opt` parses of a chunk, and how carried text is put
back when the module is printed (SPEC §8.6; the text side is `carry`).

* `plan` decides what xDSL parses: headers always, bodies only where the pipeline's passes
  must rewrite them (`BodyAccess`), and returns the masked text.
* `attach` links the parsed module to the layout: every `func.func` whose body was not
  parsed is recorded with its text, and every carried top-level op becomes a `CarriedOp`
  (a `CarriedSymbolOp` when it defines a symbol, so that passes see the name as taken).
* `CarriedPrinter` (mixed into the driver's printer) prints a carried function's header
  from the IR — its original text when no pass changed it — and its body as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TextIO

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation
from xdsl.irdl import IRDLOperation, irdl_op_definition, opt_prop_def, prop_def, traits_def
from xdsl.printer import Printer
from xdsl.traits import SymbolOpInterface

from abi_compiler.ir import xdsl_compat
from abi_compiler.passes.contract import BodyAccess
from abi_compiler.pipeline.headers import HeaderReader
from abi_compiler.pipeline.locations import LocationTable
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
    """A parsed `func.func` header whose body is text."""

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


def plan(layout: Layout, access: BodyAccess) -> tuple[str, dict[int, str]]:
    """The masked text xDSL parses, and which items are parsed whole (with the reason)."""
    text = layout.text
    parsed = _parsed_items(layout, access)
    ranges: list[tuple[int, int]] = []
    for start, end in layout.prologue:
        if text.startswith("{-#", start) or _is_location_alias(text, start):
            ranges.append((start, end))
    ranges += layout.epilogue
    if layout.module is not None:
        module = layout.module
        ranges += module.header_locs
        ranges.append((module.body_end, module.end))
    for index, item in enumerate(layout.ops):
        if index in parsed:
            ranges += carry.locations(text, item.start, item.end)
        elif isinstance(item, OpText):
            ranges.append((item.start, item.end))
        else:
            ranges += item.header_locs
            if item.body_start is not None and item.body_end is not None:
                ranges.append((item.body_start + 1, item.body_end - 1))
                ranges.append((item.body_end, item.end))
    return carry.mask(text, ranges), parsed


def read_headers(
    carried: Carried, masked: str, reader: HeaderReader, table: LocationTable, base: int
) -> str:
    """Build the headers of the carried functions that `reader` takes (into
    ``carried.headers``) and return ``masked`` with those functions masked whole."""
    ranges = []
    for index, item in enumerate(carried.layout.ops):
        if isinstance(item, FuncText) and index not in carried.parsed:
            func = reader.read(masked, item, table, base)
            if func is not None:
                carried.headers[index] = func
                ranges.append((item.start, item.end))
    return carry.mask(masked, ranges) if ranges else masked


def alias_names(layout: Layout) -> set[str]:
    """The names (with `#`/`!`) of the aliases a chunk defines."""
    text = layout.text
    return {
        text[start : text.index("=", start)].strip()
        for start, _ in layout.prologue + layout.epilogue
        if not text.startswith("{-#", start)
    }


_LOCATION_ALIAS = re.compile(r"#[A-Za-z0-9_$.\-]+[ \t]*=[ \t]*loc\(")


def _is_location_alias(text: str, start: int) -> bool:
    return _LOCATION_ALIAS.match(text, start) is not None


def _parsed_items(layout: Layout, access: BodyAccess) -> dict[int, str]:
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
        name = _function_name(text, item)
        if carry.has_structured_signature(text, item, layout.type_aliases):
            parsed[index] = f"the signature of @{name} holds structured values"
            if name is not None:
                structured.add(name)
        elif carry.has_structured_body(text, item):
            parsed[index] = f"the body of @{name} works with structured values"
    if structured:
        for index, item in enumerate(layout.ops):
            if index in parsed:
                continue
            used = carry.symbol_references(text, item.start, item.end) & structured
            if used:
                callee = sorted(used)[0]
                who = (
                    f"@{_function_name(text, item)}"
                    if isinstance(item, FuncText)
                    else "this operation"
                )
                parsed[index] = f"{who} uses @{callee}, whose signature is flattened"
    return parsed


_FUNC_NAME = re.compile(r'func\.func\s+(?:[a-z]+\s+)*@("[^"\n]*"|[A-Za-z_][A-Za-z0-9_$.\-]*)')


def _function_name(text: str, item: FuncText) -> str | None:
    match = _FUNC_NAME.match(text, item.start, item.end)
    if match is None:
        return None
    name = match.group(1)
    return carry.unquote(name) if name.startswith('"') else name


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
            carried_op = _carried_op(index, item)
            carried.carried_ops[index] = item
            _insert_after(block, previous, carried_op)
            previous = carried_op
            continue
        if isinstance(item, FuncText):
            if not isinstance(op, FuncOp):
                raise ScanError("a func.func did not parse as one")
            carried.original_names[op] = op.sym_name.data
            if index not in carried.parsed and item.body_start is not None:
                if not op.body.blocks:  # `{ }` parses as no block: it is a definition
                    op.body.add_block(Block())
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
        assert item.body_start is not None
        if dict(op.properties) == function.properties and dict(op.attributes) == (
            function.attributes
        ):
            self._write_text(text[item.start : item.end])
            return
        signature_end = item.body_start if item.attributes is None else item.attributes[0]
        name = _FUNC_NAME.match(text, item.start, signature_end)
        if (
            name is not None
            and all(
                op.properties.get(key) == function.properties.get(key)
                for key in ("function_type", "arg_attrs", "res_attrs")
            )
            and "\n" not in text[item.start : signature_end].rstrip()
        ):
            # The signature did not change (reflection added, a rename, the visibility):
            # the name from the IR, the one-line signature as written (a header written
            # over several lines is printed from the IR, on one), the new attributes.
            self.print_string("func.func")
            if op.sym_visibility is not None:
                self.print_string(f" {op.sym_visibility.data}")
            self.print_string(" ")
            self.print_symbol_name(op.sym_name.data)
            self._write_text(text[name.end() : signature_end].rstrip())
            self.print_op_attributes(op.attributes, print_keyword=True)
            self.print_string(" ")
            self._write_text(text[item.body_start : item.end])
            return
        self.print_string("func.func")
        if op.sym_visibility is not None:
            self.print_string(f" {op.sym_visibility.data}")
        self.print_string(" ")
        self.print_symbol_name(op.sym_name.data)
        self.print_string("(")
        inputs = op.function_type.inputs.data
        arg_attrs = op.arg_attrs.data if op.arg_attrs is not None else (None,) * len(inputs)
        for i, (type, attrs) in enumerate(zip(inputs, arg_attrs, strict=True)):
            if i:
                self.print_string(", ")
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
        self.print_string(" ")
        self._write_text(text[item.body_start : item.end])


def print_outputs(printer: Printer, op: FuncOp) -> None:
    """` -> …` of a function header, as xDSL's `func.func` printer writes it."""
    xdsl_compat.print_func_outputs(printer, op.function_type.outputs.data, op.res_attrs)


def write_items(stream: TextIO, layout: Layout, items: list[tuple[int, int]]) -> None:
    """Alias definitions and resource sections, each on its own line."""
    for start, end in items:
        stream.write(carry.drop_comments(layout.text[start:end]))
        stream.write("\n")
