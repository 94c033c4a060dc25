"""The legacy `iree` dialect spellings of IREE's legacy signature document:
`!iree.list<T>` and `!iree.tuple<…>`."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

from abi_compiler.dialects.util import ListTypeBase


@irdl_attr_definition(init=False)  # type checkers: the __init__ is ListTypeBase's
class IreeListType(ListTypeBase):
    """`!iree.list<T>`: the legacy spelling of `!util.list<T>`.

    Same meaning everywhere; `wrap-entry-points` rewrites it to
    `!util.list<T>`.
    """

    name = "iree.list"


@irdl_attr_definition
class IreeTupleType(ParametrizedAttribute, TypeAttribute):
    """`!iree.tuple<T0, T1, …>`: the composite tuple of IREE's legacy signature document.

    For example the ND-array of reference type
    `!iree.tuple<!util.list<T>, !util.list<index>>` (see `abi.ref_array.to_lists`).
    """

    name = "iree.tuple"

    types: ArrayAttr[TypeAttribute]

    def __init__(self, types: Sequence[Attribute]) -> None:
        super().__init__(ArrayAttr(types))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        types = parser.parse_comma_separated_list(parser.Delimiter.ANGLE, parser.parse_type)
        return [ArrayAttr(types)]

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_list(self.types, printer.print_attribute)


Iree = Dialect("iree", [], [IreeListType, IreeTupleType])
