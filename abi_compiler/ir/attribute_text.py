"""Types, attributes and `func.func` headers as text, byte for byte as xDSL's printer
prints them (docs/carried-text.md#how-headers-are-read): what the printer of a run
writes for every parsed function's header (`print_function`: the header as text, the
body by the printer) and what
`wrap-entry-points` writes its wrappers with (`passes/wrapper_text.py`).

The kinds a module holds most (tensor and integer types, types without parameters,
strings, integers, arrays, dictionaries) are put together here as xDSL's `print_builtin`
methods print them; anything else is printed by the run's printer itself, so that every
text reads as in the rest of the output. `tests/lowering/test_wrapper_text.py` compares
both on generated modules and on every module of the lit suite.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from io import StringIO

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
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

from abi_compiler.dtypes import SIGNEDNESS_KINDS
from abi_compiler.text import lexer


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
        `IntegerType.print_builtin`; a type without parameters printed once per class).
        (Exact classes: `isinstance` against xDSL's generic classes is slow.)"""
        if type(attr) is TensorType and type(attr.encoding) is NoneAttr:
            dims = "".join(
                ("?" if d == DYNAMIC_INDEX else f"{d:d}") + "x" for d in attr.get_shape()
            )
            return f"tensor<{dims}{self.type(attr.element_type)}>"
        if type(attr) is IntegerType:
            return _SIGNEDNESS[attr.signedness.data] + f"{attr.width.data:d}"
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
        name = key if lexer.BARE_IDENTIFIER.fullmatch(key) else self.string(key)
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
        if lexer.BARE_IDENTIFIER.fullmatch(name) is not None:
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
        # (The header's texts are as the printer prints them, indentation included: a
        # line break inside an attribute is not indented twice.)
        printer.print_string("func.func" + texts.function_header(op), indent=0)
        if op.body.blocks:
            printer.print_string(" ", indent=0)
            printer.print_region(op.body, False, False)
    finally:
        printer.exit_scope()
    return True


_FUNC_RESERVED = frozenset({"sym_name", "function_type", "sym_visibility", "arg_attrs"})
_REMEMBERED_STRING = 64  # longer literals (reflection JSON) are seldom repeated
_I1 = IntegerType(1)
_SIGNEDNESS = {signedness: SIGNEDNESS_KINDS[signedness.name] for signedness in Signedness}
