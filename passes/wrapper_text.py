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

from collections.abc import Callable, Mapping, Sequence
from io import StringIO
from typing import NamedTuple

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    Signedness,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, ParametrizedAttribute, SSAValue, TypeAttribute
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
        self._strings: dict[str, str] = {}

    def _capture(self, write: Callable[[Printer], None]) -> str:
        printer = self.printer
        stream, capture = printer.stream, StringIO()
        printer.stream = capture
        try:
            write(printer)
        finally:
            printer.stream = stream
        return capture.getvalue()

    def type(self, attr: Attribute) -> str:
        """What xDSL's printer prints for the type ``attr``."""
        known = self._types.get(id(attr))
        if known is not None and known[0] is attr:
            return known[1]
        text = self._compose(attr)
        self._types[id(attr)] = (attr, text)
        return text

    def _compose(self, attr: Attribute) -> str:
        """What xDSL's printer prints for the type ``attr`` (`TensorType.print_builtin`,
        `IntegerType.print_builtin`, `ListType.print_parameters`). (Exact classes, as
        `isinstance` against xDSL's generic classes is slow.)"""
        if type(attr) is TensorType and type(attr.encoding) is NoneAttr:
            dims = "".join(
                ("?" if d == DYNAMIC_INDEX else f"{d:d}") + "x" for d in attr.get_shape()
            )
            return f"tensor<{dims}{self.type(attr.element_type)}>"
        if type(attr) is IntegerType:
            return _SIGNEDNESS[attr.signedness.data] + f"{attr.width.data:d}"
        if type(attr) is ListType:
            element = "?" if attr.is_variant else self.type(attr.element_type)
            return f"!util.list<{element}>"
        if isinstance(attr, ParametrizedAttribute) and not attr.parameters:
            bare = self._bare.get(type(attr))
            if bare is None:
                bare = self._bare[type(attr)] = self._capture(lambda p: p.print_attribute(attr))
            return bare
        return self._capture(lambda p: p.print_attribute(attr))

    def attribute(self, attr: Attribute) -> str:
        """What xDSL's printer prints for ``attr``: strings, integers, arrays,
        dictionaries and types put together here (`StringAttr`, `IntegerAttr`,
        `ArrayAttr`, `DictionaryAttr` `print_builtin`), anything else printed."""
        if type(attr) is StringAttr:
            return self.string(attr.data)
        if type(attr) is IntegerAttr:
            if attr.type == _I1:
                return "true" if attr.value.data else "false"
            return f"{attr.value.data:d} : {self.type(attr.type)}"
        if type(attr) is ArrayAttr:
            return "[" + ", ".join(map(self.attribute, attr.data)) + "]"
        if type(attr) is DictionaryAttr:
            return self.dictionary(attr.data)
        if isinstance(attr, TypeAttribute):
            return self.type(attr)
        return self._capture(lambda p: p.print_attribute(attr))

    def dictionary(self, entries: Mapping[str, Attribute]) -> str:
        """`{a = 1 : i64, b}` (`Printer.print_attr_dict`: a unit value is its key)."""
        return "{" + ", ".join(self._entry(key, value) for key, value in entries.items()) + "}"

    def _entry(self, key: str, value: Attribute) -> str:
        name = key if MLIRLexer.bare_identifier_regex.fullmatch(key) else self.string(key)
        return name if value.__class__ is UnitAttr else f"{name} = {self.attribute(value)}"

    def string(self, text: str) -> str:
        """A string literal (`Printer.print_string_literal`); short ones remembered."""
        known = self._strings.get(text)
        if known is None:
            known = self._capture(lambda p: p.print_string_literal(text))
            if len(text) <= _REMEMBERED_STRING:
                self._strings[text] = known
        return known

    def op_attributes(self, attributes: Mapping[str, Attribute], keyword: bool = True) -> str:
        """` attributes {…}` of a function header, ` {…}` of an argument or result
        without ``keyword`` (`Printer.print_op_attributes`); empty without attributes."""
        if not attributes:
            return ""
        return (" attributes " if keyword else " ") + self.dictionary(attributes)

    def symbol(self, name: str) -> str:
        """`@name`, or `@"…"` when the name is not a bare identifier."""
        if MLIRLexer.bare_identifier_regex.fullmatch(name) is not None:
            return "@" + name
        return "@" + self.string(name)

    def value_names(self, values: Sequence[SSAValue]) -> list[str]:
        """The printer's names of ``values`` (`%x`), given now if they have none: the
        printer then uses them for the rest of the scope."""
        names: list[str] = []
        self._capture(lambda p: names.extend(f"%{p.print_ssa_value(v)}" for v in values))
        return names

    def function_header(self, op: FuncOp) -> str:
        """What `FuncOp.print` writes before the function's region: ` [visibility]
        @name(%arg: T {…}, …) -> … attributes {…}` (`print_func_op_like`, not variadic;
        a declaration's function type). The arguments get their names from the
        printer (`value_names`), which keeps them for the body."""
        visibility = f" {op.sym_visibility.data}" if op.sym_visibility else ""
        attrs = self.function_attributes(op)
        name = self.symbol(op.sym_name.data)
        if not op.body.blocks:
            return f"{visibility} {name}{self.type(op.function_type)}{attrs}"
        args = op.body.blocks[0].args
        names = self.value_names(args)
        arg_attrs = op.arg_attrs.data if op.arg_attrs is not None else [None] * len(args)
        arguments = ", ".join(
            f"{arg_name}: {self.type(arg.type)}"
            + (self.op_attributes(attrs.data, keyword=False) if attrs is not None else "")
            for arg_name, arg, attrs in zip(names, args, arg_attrs, strict=False)  # (as xDSL)
        )
        return f"{visibility} {name}({arguments}){self.func_outputs(op)}{attrs}"

    def function_attributes(self, op: FuncOp) -> str:
        """` attributes {…}` of a function header (`print_func_op_like`: the attributes
        but those named like its properties)."""
        attributes = op.attributes
        if any(key in _FUNC_RESERVED for key in attributes):
            attributes = {k: v for k, v in attributes.items() if k not in _FUNC_RESERVED}
        return self.op_attributes(attributes)

    def func_outputs(self, op: FuncOp) -> str:
        """` -> T`, ` -> (T, U)`, ` -> (T {…})` (`_print_func_outputs`)."""
        outputs = op.function_type.outputs.data
        if not outputs:
            return ""
        res_attrs = op.res_attrs
        if res_attrs is None:
            items = [self.type(t) for t in outputs]
        else:
            items = [
                self.type(t) + self.op_attributes(attrs.data, keyword=False)
                for t, attrs in zip(outputs, res_attrs.data, strict=True)
            ]
        if len(outputs) > 1 or res_attrs is not None:
            return f" -> ({', '.join(items)})"
        return f" -> {items[0]}"


def print_function(printer: Printer, op: FuncOp, texts: AttributeTexts) -> bool:
    """Print ``op`` as ``printer.print_op(op)`` does, its header written by ``texts``
    (`AttributeTexts.function_header`) and its body by ``printer``; False (nothing
    printed) when the printer prints generic form or locations, or has a message for the
    op (then `print_op` should)."""
    if printer.print_generic_format or printer.print_debuginfo:
        return False
    if op in printer.diagnostic.op_messages:
        return False
    printer.enter_scope()  # (a function is isolated from above)
    try:
        printer.print_string("func.func" + texts.function_header(op))
        if op.body.blocks:
            printer.print_string(" ", indent=0)
            printer.print_region(op.body, False, False)
    finally:
        printer.exit_scope()
    return True


class Value(NamedTuple):
    """A value of the wrapper being written: its printed name (`%3`), its type and the
    type's text."""

    name: str
    type: Attribute
    text: str


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
        self._index = texts.type(_INDEX)
        self._list = texts.type(_VARIANT_LIST)
        self._buffer_view = texts.type(_BUFFER_VIEW)

    def _number(self, type: Attribute, text: str | None = None) -> Value:
        number = self._next_number
        self._next_number = number + 1
        return Value(f"%{number}", type, self.texts.type(type) if text is None else text)

    def _named(self, name: str | None, type: Attribute) -> Value:
        """As xDSL's printer names a value with this name hint (`SSAValue.name_hint`
        drops a `_<n>` suffix; a repeated hint gets `_<count>`)."""
        hint = SSAValue.extract_valid_name(name)
        if not hint:
            return self._number(type)
        count = self._hints.get(hint, 0)
        self._hints[hint] = count + 1
        return Value(f"%{hint}_{count}" if count else f"%{hint}", type, self.texts.type(type))

    def _result(self, type: Attribute, line: str, text: str | None = None) -> Value:
        """A value of ``type`` (whose text is ``text`` when given) defined by ``line``."""
        value = self._number(type, text)
        self.lines.append(f"{value.name} = {line}")
        return value

    @staticmethod
    def _dims(dims: list[Value]) -> str:
        return "{" + ", ".join(dim.name for dim in dims) + "}" if dims else ""

    # -- WrapperOps ----------------------------------------------------------------------

    def arguments(self, types: list[Attribute], names: list[str | None]) -> list[Value]:
        hints = [*names[: len(types)], *[None] * (len(types) - len(names))]
        self.args = [self._named(name, type) for name, type in zip(hints, types, strict=True)]
        return self.args

    def type_of(self, value: Value) -> Attribute:
        return value.type

    def index(self, value: int) -> Value:
        return self._result(_INDEX, f"arith.constant {value} : index", self._index)

    def list_get(self, lst: Value, index: Value, type: Attribute) -> Value:
        result = self._number(type)
        self.lines.append(
            f"{result.name} = util.list.get {lst.name}[{index.name}] : "
            + self._element(lst, result, element_first=False)
        )
        return result

    def buffer_view_dim(self, view: Value, axis: int) -> Value:
        return self._result(
            _INDEX, f"hal.buffer_view.dim<{view.name} : {view.text}>[{axis}] : index", self._index
        )

    def tensor_import(self, view: Value, type: Attribute, dims: list[Value]) -> Value:
        result = self._number(type)
        self.lines.append(
            f"{result.name} = hal.tensor.import {view.name} : {view.text} -> "
            f"{result.text}{self._dims(dims)}"
        )
        return result

    def ref_array_from_lists(self, lists: Value, type: Attribute) -> Value:
        result = self._number(type)
        self.lines.append(
            f"{result.name} = abi.ref_array.from_lists {lists.name} : {lists.text} -> "
            + result.text
        )
        return result

    def ref_array_to_lists(self, value: Value) -> Value:
        return self._result(
            _VARIANT_LIST,
            f"abi.ref_array.to_lists {value.name} : {value.text} -> {self._list}",
            self._list,
        )

    def list_create(self, size: Value) -> Value:
        return self._result(
            _VARIANT_LIST, f"util.list.create {size.name} : {self._list}", self._list
        )

    def list_resize(self, lst: Value, size: Value) -> None:
        self.lines.append(f"util.list.resize {lst.name}, {size.name} : {lst.text}")

    def list_set(self, lst: Value, index: Value, value: Value) -> None:
        self.lines.append(
            f"util.list.set {lst.name}[{index.name}], {value.name} : "
            + self._element(lst, value, element_first=True)
        )

    def tensor_dim(self, value: Value, index: Value) -> Value:
        return self._result(
            _INDEX, f"tensor.dim {value.name}, {index.name} : {value.text}", self._index
        )

    def tensor_export(self, value: Value, dims: list[Value]) -> Value:
        return self._result(
            _BUFFER_VIEW,
            f"hal.tensor.export {value.name} : {value.text}{self._dims(dims)} -> "
            + self._buffer_view,
            self._buffer_view,
        )

    def call(self, callee: str, operands: list[Value], types: list[Attribute]) -> list[Value]:
        results = [self._number(type) for type in types]
        names = ", ".join(value.name for value in results)
        self.lines.append(
            (f"{names} = " if results else "")
            + f"func.call {self.texts.symbol(callee)}({', '.join(v.name for v in operands)})"
            + f" : ({', '.join(v.text for v in operands)}) -> {_outputs(results)}"
        )
        return results

    def return_(self, values: list[Value]) -> None:
        if not values:
            self.lines.append("func.return")
            return
        self.lines.append(
            f"func.return {', '.join(v.name for v in values)} : "
            + ", ".join(v.text for v in values)
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
        args = ", ".join(f"{arg.name}: {arg.text}" for arg in self.args)
        outputs = ""
        if len(result_types) == 1:
            outputs = f" -> {t(result_types[0])}"
        elif result_types:
            outputs = f" -> ({', '.join(map(t, result_types))})"
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

    @staticmethod
    def _element(lst: Value, element: Value, element_first: bool) -> str:
        """A list type with the element type it gets or sets (`util` dialect's
        `ListTypeGet` / `ListTypeSet`): the arrow only when the list type does not imply
        the element type (a variant list, `!util.list<?>`, implies none)."""
        if lst.type is not _VARIANT_LIST and implied_element_type(lst.type) == element.type:
            return lst.text
        if element_first:
            return f"{element.text} -> {lst.text}"
        return f"{lst.text} -> {element.text}"


def _outputs(results: list[Value]) -> str:
    """The results of a function type: `()`, one type, or a parenthesized list (one
    function type in parentheses too)."""
    if len(results) == 1 and not isinstance(results[0].type, FunctionType):
        return results[0].text
    return f"({', '.join(value.text for value in results)})"


_FUNC_RESERVED = frozenset({"sym_name", "function_type", "sym_visibility", "arg_attrs"})
_REMEMBERED_STRING = 64  # longer literals (reflection JSON) are seldom repeated
_I1 = IntegerType(1)
_SIGNEDNESS = {Signedness.SIGNLESS: "i", Signedness.SIGNED: "si", Signedness.UNSIGNED: "ui"}
_INDEX = IndexType()
_VARIANT_LIST = ListType()
_BUFFER_VIEW = BufferViewType()
