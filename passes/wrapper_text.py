"""The V1 wrappers of `wrap-entry-points` written as text (docs/spec.md §8.2), byte for byte as
xDSL's printer prints the wrapper the pass builds as IR.

`wrap_entry_points.write_wrapper` decides which ops a wrapper has and in which order,
through a `WrapperOps`; `TextOps` is the one that writes each op as a line of text
instead of building it. Everything about the text is here: the SSA names (what xDSL's
printer gives: an argument its name hint, with `_<n>` after a repeated one, every other
value the next number), each op's custom form and the function around them. Types,
attributes and the function's name are written by `abi_compiler.ir.attribute_text`
(`AttributeTexts`, with the run's printer), so they read exactly as in the rest of the
output.

Building the IR stays the reference: `wrap-entry-points` builds it whenever it is not
the last pass, under `--print-ir-after-all`, and with its option ``ir-wrappers``;
`tests/lowering/test_wrapper_text.py` compares both writers on generated modules.
"""

from __future__ import annotations

from typing import NamedTuple

from xdsl.dialects.builtin import FunctionType, IndexType
from xdsl.ir import Attribute, SSAValue

from abi_compiler.dialects.hal import BufferViewType
from abi_compiler.dialects.util import ListType, implied_element_type
from abi_compiler.ir.attribute_text import AttributeTexts


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
        self._list = texts.type(VARIANT_LIST)
        self._buffer_view = texts.type(BUFFER_VIEW)

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
            VARIANT_LIST,
            f"abi.ref_array.to_lists {value.name} : {value.text} -> {self._list}",
            self._list,
        )

    def list_create(self, size: Value) -> Value:
        return self._result(
            VARIANT_LIST, f"util.list.create {size.name} : {self._list}", self._list
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
            BUFFER_VIEW,
            f"hal.tensor.export {value.name} : {value.text}{self._dims(dims)} -> "
            + self._buffer_view,
            self._buffer_view,
        )

    def tensor_alias(self, value: Value, view: Value, dims: list[Value]) -> Value:
        return self._result(
            value.type,
            f"hal.tensor.alias {value.name} : {value.text}{self._dims(dims)} to "
            f"{view.name} : {view.text}",
            value.text,
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
        if lst.type is not VARIANT_LIST and implied_element_type(lst.type) == element.type:
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


_INDEX = IndexType()
#: The type of every list a wrapper takes apart or builds, one object (`wrap_entry_points`
#: uses it too), so that `TextOps._element` tells it by identity.
VARIANT_LIST = ListType()
BUFFER_VIEW = BufferViewType()
