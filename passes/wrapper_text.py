"""The V1 wrappers of `wrap-entry-points` written as text (SPEC §8.2), byte for byte as
xDSL's printer prints the wrapper the pass builds as IR.

`wrap_entry_points.write_wrapper` decides which ops a wrapper has and in which order,
through a `WrapperOps`; `TextOps` is the one that writes each op as a line of text
instead of building it. Everything about the text is here: the SSA names (what xDSL's
printer gives: an argument its name hint, with `_<n>` after a repeated one, every other
value the next number), each op's custom form, the function header and its attribute
dictionary. Types and attributes are printed by an xDSL `Printer` (`AttributeTexts`,
each type object once), so they read exactly as in the rest of the output.

Building the IR stays the reference: `wrap-entry-points` builds it whenever it is not
the last pass, under `--print-ir-after-all`, and with its option ``ir-wrappers``;
`tests/lowering/test_wrapper_text.py` compares both writers on generated modules.
"""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO
from typing import NamedTuple

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FunctionType,
    IndexType,
    IntegerType,
    NoneAttr,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute, ParametrizedAttribute, SSAValue
from xdsl.printer import Printer
from xdsl.utils.mlir_lexer import MLIRLexer

from abi_compiler.dialects.hal import BufferViewType
from abi_compiler.dialects.util import ListType, implied_element_type


class AttributeTexts:
    """Types, attribute dictionaries and symbol names as ``printer`` prints them (a new
    `Printer` by default). The printer's own output is not touched: each text is printed
    into a string of its own. A type's text is made once per type object: the types a
    wrapper uses most (tensors, integers, lists and types without parameters) are put
    together here as xDSL prints them, any other type is printed by ``printer``."""

    def __init__(self, printer: Printer | None = None) -> None:
        self.printer = Printer() if printer is None else printer
        # id -> (the type, kept alive so that its id is not reused; its text)
        self._types: dict[int, tuple[Attribute, str]] = {}
        self._bare: dict[type[Attribute], str] = {}  # types without parameters, by class

    def _capture(self, write: Callable[[Printer], None]) -> str:
        printer = self.printer
        stream, capture = printer.stream, StringIO()
        printer.stream = capture
        try:
            write(printer)
        finally:
            printer.stream = stream
        return capture.getvalue()

    def type(self, type: Attribute) -> str:
        known = self._types.get(id(type))
        if known is not None and known[0] is type:
            return known[1]
        text = self._compose(type)
        self._types[id(type)] = (type, text)
        return text

    def _compose(self, type: Attribute) -> str:
        """What xDSL's printer prints for ``type`` (`TensorType.print_builtin`,
        `IntegerType.print_builtin`, `ListType.print_parameters`)."""
        cls = type.__class__
        if cls is TensorType and isinstance(type.encoding, NoneAttr):
            dims = "".join(
                ("?" if d == DYNAMIC_INDEX else f"{d:d}") + "x" for d in type.get_shape()
            )
            return f"tensor<{dims}{self.type(type.element_type)}>"
        if cls is IntegerType:
            return _SIGNEDNESS[type.signedness.data] + f"{type.width.data:d}"
        if cls is ListType:
            element = "?" if type.is_variant else self.type(type.element_type)
            return f"!util.list<{element}>"
        if isinstance(type, ParametrizedAttribute) and not type.parameters:
            bare = self._bare.get(cls)
            if bare is None:
                bare = self._bare[cls] = self._capture(lambda p: p.print_attribute(type))
            return bare
        return self._capture(lambda p: p.print_attribute(type))

    def op_attributes(self, attributes: dict[str, Attribute]) -> str:
        """` attributes {…}` of a function header (empty without attributes)."""
        return self._capture(lambda p: p.print_op_attributes(attributes, print_keyword=True))

    def symbol(self, name: str) -> str:
        """`@name`, or `@"…"` when the name is not a bare identifier."""
        if MLIRLexer.bare_identifier_regex.fullmatch(name) is not None:
            return "@" + name
        return self._capture(lambda p: p.print_symbol_name(name))


class Value(NamedTuple):
    """A value of the wrapper being written: its printed name (`%3`) and its type."""

    name: str
    type: Attribute


class TextOps:
    """`wrap_entry_points.WrapperOps` writing the wrapper as text, one line per op, for
    a function printed at ``indent`` (its ops one level deeper)."""

    def __init__(self, texts: AttributeTexts, indent: str = "  ") -> None:
        self.texts = texts
        self.indent = indent
        self.args: list[Value] = []
        self.lines: list[str] = []
        self._next_number = 0
        self._hints: dict[str, int] = {}

    def _number(self, type: Attribute) -> Value:
        value = Value(f"%{self._next_number}", type)
        self._next_number += 1
        return value

    def _named(self, name: str | None, type: Attribute) -> Value:
        """As xDSL's printer names a value with this name hint (`SSAValue.name_hint`
        drops a `_<n>` suffix; a repeated hint gets `_<count>`)."""
        hint = SSAValue.extract_valid_name(name)
        if not hint:
            return self._number(type)
        count = self._hints.get(hint, 0)
        self._hints[hint] = count + 1
        return Value(f"%{hint}_{count}" if count else f"%{hint}", type)

    def _result(self, type: Attribute, text: str) -> Value:
        value = self._number(type)
        self.lines.append(f"{value.name} = {text}")
        return value

    def _types(self, types: list[Attribute]) -> str:
        return ", ".join(map(self.texts.type, types))

    def _dims(self, dims: list[Value]) -> str:
        return "{" + ", ".join(dim.name for dim in dims) + "}" if dims else ""

    # -- WrapperOps ----------------------------------------------------------------------

    def arguments(self, types: list[Attribute], names: list[str | None]) -> list[Value]:
        hints = [*names[: len(types)], *[None] * (len(types) - len(names))]
        self.args = [self._named(name, type) for name, type in zip(hints, types, strict=True)]
        return self.args

    def type_of(self, value: Value) -> Attribute:
        return value.type

    def index(self, value: int) -> Value:
        return self._result(_INDEX, f"arith.constant {value} : index")

    def list_get(self, lst: Value, index: Value, type: Attribute) -> Value:
        return self._result(
            type, f"util.list.get {lst.name}[{index.name}] : {self._element(lst.type, type, False)}"
        )

    def buffer_view_dim(self, view: Value, axis: int) -> Value:
        t = self.texts.type(view.type)
        return self._result(_INDEX, f"hal.buffer_view.dim<{view.name} : {t}>[{axis}] : index")

    def tensor_import(self, view: Value, type: Attribute, dims: list[Value]) -> Value:
        t = self.texts.type
        return self._result(
            type,
            f"hal.tensor.import {view.name} : {t(view.type)} -> {t(type)}{self._dims(dims)}",
        )

    def ref_array_from_lists(self, lists: Value, type: Attribute) -> Value:
        t = self.texts.type
        return self._result(
            type, f"abi.ref_array.from_lists {lists.name} : {t(lists.type)} -> {t(type)}"
        )

    def ref_array_to_lists(self, value: Value) -> Value:
        t = self.texts.type
        return self._result(
            _VARIANT_LIST,
            f"abi.ref_array.to_lists {value.name} : {t(value.type)} -> {t(_VARIANT_LIST)}",
        )

    def list_create(self, size: Value) -> Value:
        return self._result(
            _VARIANT_LIST, f"util.list.create {size.name} : {self.texts.type(_VARIANT_LIST)}"
        )

    def list_resize(self, lst: Value, size: Value) -> None:
        self.lines.append(f"util.list.resize {lst.name}, {size.name} : {self.texts.type(lst.type)}")

    def list_set(self, lst: Value, index: Value, value: Value) -> None:
        self.lines.append(
            f"util.list.set {lst.name}[{index.name}], {value.name} : "
            + self._element(lst.type, value.type, True)
        )

    def tensor_dim(self, value: Value, index: Value) -> Value:
        return self._result(
            _INDEX, f"tensor.dim {value.name}, {index.name} : {self.texts.type(value.type)}"
        )

    def tensor_export(self, value: Value, dims: list[Value]) -> Value:
        t = self.texts.type
        return self._result(
            _BUFFER_VIEW,
            f"hal.tensor.export {value.name} : {t(value.type)}{self._dims(dims)} -> "
            + t(_BUFFER_VIEW),
        )

    def call(self, callee: str, operands: list[Value], types: list[Attribute]) -> list[Value]:
        results = [self._number(type) for type in types]
        names = ", ".join(value.name for value in results)
        self.lines.append(
            (f"{names} = " if results else "")
            + f"func.call {self.texts.symbol(callee)}({', '.join(v.name for v in operands)})"
            + f" : ({self._types([v.type for v in operands])}) -> {self._outputs(types)}"
        )
        return results

    def return_(self, values: list[Value]) -> None:
        if not values:
            self.lines.append("func.return")
            return
        self.lines.append(
            f"func.return {', '.join(v.name for v in values)} : "
            + self._types([v.type for v in values])
        )

    # -- the function --------------------------------------------------------------------

    def function(
        self,
        name: str,
        result_types: list[Attribute],
        attributes: dict[str, Attribute],
    ) -> str:
        """The `func.func` with the arguments and ops written so far, from `func.func`
        to its closing brace (the text xDSL prints for it at ``indent``)."""
        t = self.texts.type
        args = ", ".join(f"{arg.name}: {t(arg.type)}" for arg in self.args)
        outputs = ""
        if len(result_types) == 1:
            outputs = f" -> {t(result_types[0])}"
        elif result_types:
            outputs = f" -> ({self._types(result_types)})"
        body = "\n" + self.indent + "  "
        return (
            f"func.func {self.texts.symbol(name)}({args}){outputs}"
            + self.texts.op_attributes(attributes)
            + " {"
            + body
            + body.join(self.lines)
            + "\n"
            + self.indent
            + "}"
        )

    # -- helpers -------------------------------------------------------------------------

    def _element(self, list_type: Attribute, element: Attribute, element_first: bool) -> str:
        """A list type with the element type it gets or sets (`util` dialect's
        `ListTypeGet` / `ListTypeSet`): the arrow only when the list type does not imply
        the element type."""
        t = self.texts.type
        if implied_element_type(list_type) == element:
            return t(list_type)
        if element_first:
            return f"{t(element)} -> {t(list_type)}"
        return f"{t(list_type)} -> {t(element)}"

    def _outputs(self, types: list[Attribute]) -> str:
        """The results of a function type: `()`, one type, or a parenthesized list (one
        function type in parentheses too)."""
        if len(types) == 1 and not isinstance(types[0], FunctionType):
            return self.texts.type(types[0])
        return f"({self._types(types)})"


_SIGNEDNESS = {Signedness.SIGNLESS: "i", Signedness.SIGNED: "si", Signedness.UNSIGNED: "ui"}
_INDEX = IndexType()
_VARIANT_LIST = ListType()
_BUFFER_VIEW = BufferViewType()
