"""The `util` dialect: the subset of IREE's util dialect the V1 ABI needs.

`!util.list<T>` is a list reference; `!util.list<?>` holds variant elements. Types and ops
use IREE 3.13's textual form, so modules this tool writes can be fed to IREE's own compiler.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IndexTypeConstr
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    result_def,
    traits_def,
)
from xdsl.irdl.declarative_assembly_format import (
    CustomDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    irdl_custom_directive,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryAllocEffect, MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException


@irdl_attr_definition
class VariantType(ParametrizedAttribute, TypeAttribute):
    """`?` inside a list type: an element of any type (IREE's `!util.variant`).

    Written `?` as a list element (`!util.list<?>`); on its own it prints as
    `!util.variant`, as in IREE.
    """

    name = "util.variant"


# A dataclass itself, as xDSL's own attribute bases are: otherwise `element_type` is no
# dataclass field of the subclasses, and every list type compares equal to every other.
@dataclass(frozen=True, init=False)
class ListTypeBase(ParametrizedAttribute, TypeAttribute):
    """What `!util.list<T>` and its legacy spelling `!iree.list<T>` share: one element
    type, written `<T>`, or `<?>` for variant elements."""

    element_type: TypeAttribute

    def __init__(self, element_type: Attribute | None = None) -> None:
        super().__init__(VariantType() if element_type is None else element_type)

    @property
    def is_variant(self) -> bool:
        return isinstance(self.element_type, VariantType)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        return [parse_list_element(parser)]

    def print_parameters(self, printer: Printer) -> None:
        print_list_element(printer, self.element_type)


@irdl_attr_definition(init=False)  # type checkers: the __init__ is ListTypeBase's
class ListType(ListTypeBase):
    """A list reference `!util.list<T>`; `!util.list<?>` has variant elements.

    Runtime form: an `iree_vm_list`. Tuples and structures cross the V1 ABI boundary as
    `!util.list<?>` (`wrap-entry-points`); homogeneous lists as `!util.list<T>`. A list is a
    mutable reference: the ops on it declare memory effects (alloc, read, write), so
    they are not folded, merged or reordered like pure values.
    """

    name = "util.list"


def parse_list_element(parser: AttrParser) -> Attribute:
    """`<?>` or `<T>`."""
    with parser.in_angle_brackets():
        if parser.parse_optional_punctuation("?") is not None:
            return VariantType()
        return parser.parse_type()


def print_list_element(printer: Printer, element: Attribute) -> None:
    with printer.in_angle_brackets():
        if isinstance(element, VariantType):
            printer.print_string("?")
        else:
            printer.print_attribute(element)


def is_list_element_compatible(list_type: ListType, value_type: Attribute) -> bool:
    """A variant list holds any value; a typed list exactly its element type."""
    return list_type.is_variant or list_type.element_type == value_type


def implied_element_type(list_type: Attribute) -> Attribute | None:
    """The element type the short form `: !util.list<T>` implies, if any."""
    if isinstance(list_type, ListType) and not list_type.is_variant:
        return list_type.element_type
    return None


@irdl_custom_directive
class ListTypeArrow(CustomDirective):
    """A list type and the element type it gets or sets, the element type spelled out
    with an arrow unless the list type implies it (IREE's ListTypeGet/ListTypeSet).

    `!util.list<i32>` implies `i32`; `!util.list<?>` implies nothing. The arrow form
    always parses and is printed only when needed. Subclasses say which side of the
    list type the element type goes on.
    """

    list_type: TypeDirective
    element_type: TypeDirective

    ELEMENT_FIRST: ClassVar[bool]
    """`T -> !util.list<?>` when true, `!util.list<?> -> T` when false."""
    MISSING_ARROW: ClassVar[str]
    """The parse error when a variant list type has no element type."""

    def parse(self, parser: Parser, state: ParsingState) -> None:
        start = parser.pos
        first = parser.parse_type()
        end = parser.pos
        list_type: Attribute
        element_type: Attribute
        if parser.parse_optional_punctuation("->") is not None:
            second = parser.parse_type()
            list_type, element_type = (second, first) if self.ELEMENT_FIRST else (first, second)
        elif (implied := implied_element_type(first)) is not None:
            list_type, element_type = first, implied
        else:
            parser.raise_error(self.MISSING_ARROW, start, end)
        self.list_type.set(state, (list_type,))
        self.element_type.set(state, (element_type,))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        (list_type,) = self.list_type.get(op)
        (element_type,) = self.element_type.get(op)
        state.print_whitespace(printer)
        if implied_element_type(list_type) == element_type:
            printer.print_attribute(list_type)
        elif self.ELEMENT_FIRST:
            printer.print_attribute(element_type)
            printer.print_string(" -> ")
            printer.print_attribute(list_type)
        else:
            printer.print_attribute(list_type)
            printer.print_string(" -> ")
            printer.print_attribute(element_type)


class ListTypeGet(ListTypeArrow):
    """The list type, then `-> T` unless the list type implies `T` (IREE's ListTypeGet)."""

    ELEMENT_FIRST = False
    MISSING_ARROW = "expected '-> <result type>' after a variant list type"


class ListTypeSet(ListTypeArrow):
    """The list type, preceded by `T ->` unless it implies `T` (IREE's ListTypeSet)."""

    ELEMENT_FIRST = True
    MISSING_ARROW = "expected '<value type> -> <list type>' to set a variant list"


@irdl_op_definition
class ListCreateOp(IRDLOperation):
    """Creates a new empty list.

    The list starts with size 0; `initial_capacity`, when given, is a hint for how many
    elements will be stored (it does not change the size, `util.list.resize` does).
    The V1 wrapper builds result structures with it.
    """

    name = "util.list.create"

    initial_capacity = opt_operand_def(IndexTypeConstr)
    result = result_def(ListType)

    traits = traits_def(MemoryAllocEffect())

    assembly_format = "($initial_capacity^)? attr-dict `:` type($result)"

    def __init__(
        self,
        result_type: ListType | None = None,
        initial_capacity: SSAValue | Operation | None = None,
    ) -> None:
        super().__init__(
            operands=[[] if initial_capacity is None else [initial_capacity]],
            result_types=[ListType() if result_type is None else result_type],
        )


@irdl_op_definition
class ListSizeOp(IRDLOperation):
    """Returns the current size of the list in elements.

    The size is the number of slots, set or not: `util.list.resize` changes it,
    `util.list.set` does not.
    """

    name = "util.list.size"

    list = operand_def(ListType)
    result = result_def(IndexTypeConstr)

    traits = traits_def(MemoryReadEffect())

    assembly_format = "$list attr-dict `:` type($list)"

    def __init__(self, list_value: SSAValue | Operation) -> None:
        super().__init__(operands=[list_value], result_types=[IndexType()])


@irdl_op_definition
class ListResizeOp(IRDLOperation):
    """Resizes the list to `new_size` elements.

    Growing adds null elements at the end; shrinking drops elements from the end.
    """

    name = "util.list.resize"

    list = operand_def(ListType)
    new_size = operand_def(IndexTypeConstr)

    traits = traits_def(MemoryWriteEffect())

    assembly_format = "$list `,` $new_size attr-dict `:` type($list)"

    def __init__(self, list_value: SSAValue | Operation, new_size: SSAValue | Operation) -> None:
        super().__init__(operands=[list_value, new_size])


@irdl_op_definition
class ListGetOp(IRDLOperation):
    """Returns the element at `index` in the list.

    On a typed list `!util.list<T>` the result has type `T` and the type is implied in
    the textual form (`util.list.get %m[%i] : !util.list<i32>`); on a variant list it is
    spelled out (`util.list.get %l[%i] : !util.list<?> -> !hal.buffer_view`) and the
    runtime checks the stored element's type. Reading past the end is a runtime error.
    """

    name = "util.list.get"

    list = operand_def(ListType)
    index = operand_def(IndexTypeConstr)
    result = result_def()

    traits = traits_def(MemoryReadEffect())

    custom_directives = (ListTypeGet,)
    assembly_format = (
        "$list `[` $index `]` attr-dict `:` custom<ListTypeGet>(type($list), type($result))"
    )

    def __init__(
        self,
        list_value: SSAValue | Operation,
        index: SSAValue | Operation,
        result_type: Attribute | None = None,
    ) -> None:
        """`result_type` may be omitted for a typed list (it is the element type)."""
        if result_type is None:
            list_type = SSAValue.get(list_value).type
            result_type = implied_element_type(list_type)
            if result_type is None:
                raise ValueError("util.list.get on a variant list needs a result type")
        super().__init__(operands=[list_value, index], result_types=[result_type])

    def verify_(self) -> None:
        list_type = self.list.type
        assert isinstance(list_type, ListType)
        if not is_list_element_compatible(list_type, self.result.type):
            raise VerifyException(
                f"result type {self.result.type} does not match the element type "
                f"{list_type.element_type} of {list_type}"
            )


@irdl_op_definition
class ListSetOp(IRDLOperation):
    """Sets the element at `index` in the list to `value`.

    On a typed list `!util.list<T>` the value must have type `T` and the type is implied
    in the textual form (`util.list.set %m[%i], %x : !util.list<i32>`); on a variant list
    it is spelled out (`util.list.set %l[%i], %v : !hal.buffer_view -> !util.list<?>`).
    Writing past the end is a runtime error: `util.list.resize` first.
    """

    name = "util.list.set"

    list = operand_def(ListType)
    index = operand_def(IndexTypeConstr)
    value = operand_def()

    traits = traits_def(MemoryWriteEffect())

    custom_directives = (ListTypeSet,)
    assembly_format = "$list `[` $index `]` `,` $value attr-dict `:` custom<ListTypeSet>(type($list), type($value))"

    def __init__(
        self,
        list_value: SSAValue | Operation,
        index: SSAValue | Operation,
        value: SSAValue | Operation,
    ) -> None:
        super().__init__(operands=[list_value, index, value])

    def verify_(self) -> None:
        list_type = self.list.type
        assert isinstance(list_type, ListType)
        if not is_list_element_compatible(list_type, self.value.type):
            raise VerifyException(
                f"value type {self.value.type} does not match the element type "
                f"{list_type.element_type} of {list_type}"
            )


Util = Dialect(
    "util",
    [ListCreateOp, ListSizeOp, ListResizeOp, ListGetOp, ListSetOp],
    [VariantType, ListType],
)
