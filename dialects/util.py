"""The `util` dialect: the subset of IREE's util dialect the V1 ABI needs.

`!util.list<T>` is a list reference; `!util.list<?>` holds variant elements. Its textual
form is IREE's, so modules this tool writes can be fed to IREE's own compiler.
"""

from __future__ import annotations

from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer


@irdl_attr_definition
class VariantType(ParametrizedAttribute, TypeAttribute):
    """`?` inside a list type: an element of any type (IREE's `!util.variant`)."""

    name = "util.variant"


@irdl_attr_definition
class ListType(ParametrizedAttribute, TypeAttribute):
    """A list reference `!util.list<T>`; `!util.list<?>` has variant elements.

    Runtime form: an `iree_vm_list`. Tuples and structures cross the V1 ABI boundary as
    `!util.list<?>` (SPEC §8.2); homogeneous lists as `!util.list<T>`.
    """

    name = "util.list"

    element_type: Attribute

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


Util = Dialect("util", [], [VariantType, ListType])
