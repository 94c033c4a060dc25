"""The last stage of a run: the module printed, with its carried text (docs/spec.md §8.6) put back
and the wrappers a deferred last pass builds printed in place (docs/design.md, memory
management)."""

from __future__ import annotations

import io
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import TextIO

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Dialect, Operation
from xdsl.printer import Printer

from abi_compiler.ir.attribute_text import AttributeTexts, print_function
from abi_compiler.passes.contract import OpsBefore
from abi_compiler.pipeline.locating_parser import is_isolated
from abi_compiler.text import carry, symbols
from abi_compiler.text.carry import FuncText, Layout
from abi_compiler.text.lexer import symbol_text
from abi_compiler.text_to_ir.carried_ir import Carried, CarriedFunction, carried_index
from abi_compiler.xdsl_boundary.symbol_cache import cached_symbol_lookups
from abi_compiler.xdsl_boundary.xdsl_fixes import FixedPrinter


@dataclass(frozen=True)
class Wrappers:
    """The ops a deferred last pass puts before top-level ops (`AbiPass.prepare`), and
    how to build one: ``build(top)`` builds the op before ``top`` with
    ``ops_before``, inserts and verifies it (None when there is none); ``write(top,
    printer)`` gives its text instead when the pass writes it (`OpsBefore.text`; None:
    build it). Both raise located errors."""

    ops_before: OpsBefore
    build: Callable[[Operation], Operation | None]
    write: Callable[[Operation, Printer], str | None]


class ModulePrinter(FixedPrinter):
    """xDSL's printer (with `xdsl_fixes`), printing carried text where the IR has none
    (`carried`) and the ops a deferred last pass builds (`wrappers`).

    Each deferred wrapper is printed right before the top-level op it belongs to, as if
    it were in the module, and dropped. Names of a printed isolated top-level op are
    forgotten (nothing outside it can refer to its values), so the printer holds one
    function's at a time."""

    def __init__(
        self,
        stream: TextIO,
        *,
        carried: Carried | None = None,
        wrappers: Wrappers | None = None,
        generic: bool = False,
        debuginfo: bool = False,
    ) -> None:
        super().__init__(stream=stream, print_generic_format=generic, print_debuginfo=debuginfo)
        self.output = stream
        self.carried = carried
        self.wrappers = wrappers
        self._renames: dict[str, str] | None = None
        # Wrapper shape -> its text around its name and callee (`_template`).
        self._templates: dict[Hashable, tuple[str, str]] = {}
        self._module: ModuleOp | None = None
        # Types, attributes and function headers as text
        # (docs/carried-text.md#how-headers-are-read).
        self._texts = AttributeTexts(self)
        self._wrappers_as_text = False

    def print_module(self, module: ModuleOp, loaded_dialects: Iterable[Dialect]) -> None:
        """The whole output of a chunk: aliases and resources before the module, the
        module, what follows its `}`, the dialect resources, aliases after it."""
        carried = self.carried
        if carried is not None:
            write_items(self.output, carried.layout, carried.layout.prologue, self.renames())
        self._module = module
        # A wrapper's text numbers its values from 0, as in a fresh scope: not when a
        # top-level op has results (the printer numbers a function's values after those).
        self._wrappers_as_text = not any(op.results for op in module.body.block.ops)
        with cached_symbol_lookups():
            self.print_op(module)
        if carried is not None and carried.layout.module is not None:
            layout = carried.layout
            assert layout.module is not None
            self.print_string(
                carry.drop_comments(layout.text[layout.module.body_end : layout.module.end]),
                indent=0,
            )
        self.print_metadata(loaded_dialects)
        self.output.write("\n")
        if carried is not None:
            write_items(self.output, carried.layout, carried.layout.epilogue, self.renames())

    def print_op(self, op: Operation) -> None:
        module, carried = self._module, self.carried
        if module is None:
            super().print_op(op)
            return
        if op is module and carried is not None and carried.module_header_kept:
            layout = carried.layout
            assert layout.module is not None
            self.print_string(layout.text[layout.module.start : layout.module.body_start].rstrip())
            self.print_string(" ")
            self.print_region(module.body, print_empty_block=False)
            return
        if op.parent is not module.body.block:
            super().print_op(op)
            return
        if self.wrappers is not None:
            self._print_wrapper(op, self.wrappers)
        # (A function printed from carried text named no value.)
        if not self.print_carried(op):
            # A parsed function: its header as text, its body by xDSL's printer.
            if not (isinstance(op, FuncOp) and print_function(self, op, self._texts)):
                super().print_op(op)
            self._forget(op)

    def _print_wrapper(self, op: Operation, wrappers: Wrappers) -> None:
        """The deferred wrapper of ``op``, if it has one. The first wrapper of each shape
        is written as text by the pass (``wrappers.write``: valid by construction, not
        verified) or built (and verified, by ``wrappers.build``) and printed; the others
        of that shape are its text with their own names (one per distinct signature)."""
        shape = wrappers.ops_before.shape(op)
        if shape is not None and (template := self._templates.get(shape[0])) is not None:
            head, call = template
            self.print_string(
                f"func.func {symbol_text(shape[1])}({head}func.call {symbol_text(shape[2])}({call}",
                indent=0,
            )
            self.print_new_line()
            return
        text = wrappers.write(op, self) if self._wrappers_as_text else None
        if text is None:
            wrapper = wrappers.build(op)
            if wrapper is None:
                return
            stream, capture = self.stream, io.StringIO()
            self.stream = capture
            try:
                super().print_op(wrapper)
            finally:
                self.stream = stream
            text = capture.getvalue()
            self._forget(wrapper)
            block = wrapper.parent_block()
            if block is not None:
                block.detach_op(wrapper)
        self.print_string(text, indent=0)
        self.print_new_line()
        if shape is not None:
            parts = _template(text, shape[1], shape[2])
            if parts is not None:
                self._templates[shape[0]] = parts

    def _forget(self, op: Operation) -> None:
        if is_isolated(type(op)):
            self.forget_names(op)

    def renames(self) -> dict[str, str]:
        if self._renames is None:
            self._renames = {} if self.carried is None else self.carried.renames()
        return self._renames

    def print_carried(self, op: Operation) -> bool:
        """Print ``op`` from its text if it has one; False when it is ordinary IR."""
        carried = self.carried
        if carried is None:
            return False
        index = carried_index(op, carried)
        if index is not None:
            item = carried.carried_ops[index]
            self._write_text(carried.layout.text[item.start : item.end])
            return True
        if isinstance(op, FuncOp) and op in carried.functions:
            self._print_function(op, carried.functions[op])
            return True
        return False

    def _write_text(self, text: str) -> None:
        text = symbols.rename_symbols(carry.drop_comments(text), self.renames())
        if self.carried is not None and self.carried.layout.module is None:
            # Ops of an implicit module were written at the top level, and are printed
            # inside `builtin.module {`: one level deeper, like the ops printed from IR
            # (not inside a dialect body or a string: their text is their value).
            text = carry.indented(text, "  ")
        self.print_string(text, indent=0)

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
            self.print_string(symbols.rename_symbols(signature, self.renames()), indent=0)
            # (Texts of attributes are as the printer prints them, indentation included.)
            self.print_string(self._texts.op_attributes(op.attributes), indent=0)
        else:
            self._print_signature(op, item, text)
        if tail < item.end:
            self.print_string(" ")
            self._write_text(text[tail : item.end])

    def _print_signature(self, op: FuncOp, item: FuncText, text: str) -> None:
        """The arguments, results and attributes from the IR, with the argument names
        and locations of the original (the carried body still refers to its arguments)."""
        texts = self._texts
        inputs = op.function_type.inputs.data
        arg_attrs = op.arg_attrs.data if op.arg_attrs is not None else (None,) * len(inputs)
        declaration = item.body_start is None
        arguments = []
        for i, (type, attrs) in enumerate(zip(inputs, arg_attrs, strict=True)):
            argument = (
                texts.type(type) if declaration else f"%{item.arg_names[i]}: {texts.type(type)}"
            )
            if attrs is not None:
                argument += texts.op_attributes(attrs.data, keyword=False)
            location = item.arg_locs[i] if i < len(item.arg_locs) else None
            if location is not None:
                argument += " " + text[location[0] : location[1]]
            arguments.append(argument)
        self.print_string(
            f"({', '.join(arguments)}){texts.func_outputs(op)}{texts.function_attributes(op)}",
            indent=0,
        )


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
            symbols.rename_symbols(carry.drop_comments(layout.text[start:end]), renames or {})
        )
        stream.write("\n")


def _template(text: str, name: str, callee: str) -> tuple[str, str] | None:
    """A printed wrapper split around its own name and its callee's: (what follows
    `func.func @name(` up to `func.call @callee(`, what follows that); None when either
    is not found exactly once."""
    head = f"func.func {symbol_text(name)}("
    call = f"func.call {symbol_text(callee)}("
    if not text.startswith(head) or text.count(head) != 1 or text.count(call) != 1:
        return None
    before, after = text[len(head) :].split(call)
    return before, after
