"""The `abi` dialect: this project's structured types, ops and attributes (SPEC §8.3–§8.4)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, StringAttr
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


@irdl_attr_definition
class DictType(ParametrizedAttribute, TypeAttribute):
    """`!abi.dict<"k0": T0, "k1": T1, …>`: a structure with named slots.

    Keys are quoted so any string works and must be unique. The type keeps the order it
    was written in; at the ABI boundary its slots are in byte-wise sorted key order
    (SPEC §3.1), see `sorted_entries`.
    """

    name = "abi.dict"

    keys: ArrayAttr[StringAttr]
    types: ArrayAttr[Attribute]

    def __init__(self, entries: Sequence[tuple[str, Attribute]]) -> None:
        super().__init__(
            ArrayAttr([StringAttr(key) for key, _ in entries]),
            ArrayAttr([value for _, value in entries]),
        )

    @property
    def entries(self) -> list[tuple[str, Attribute]]:
        return [(key.data, value) for key, value in zip(self.keys, self.types, strict=True)]

    def sorted_entries(self) -> list[tuple[str, Attribute]]:
        return sorted(self.entries, key=lambda entry: entry[0].encode("utf-8", "surrogatepass"))

    def verify(self) -> None:
        if len(self.keys) != len(self.types):
            raise VerifyException("!abi.dict needs one type per key")
        seen: set[str] = set()
        for key in self.keys:
            if key.data in seen:
                raise VerifyException(f"duplicate key '{key.data}' in !abi.dict")
            seen.add(key.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        def parse_entry() -> tuple[str, Attribute]:
            key = parser.parse_str_literal(" as a quoted !abi.dict key")
            parser.parse_punctuation(":")
            return key, parser.parse_type()

        entries = parser.parse_comma_separated_list(parser.Delimiter.ANGLE, parse_entry)
        return [
            ArrayAttr([StringAttr(key) for key, _ in entries]),
            ArrayAttr([value for _, value in entries]),
        ]

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            for i, (key, value) in enumerate(self.entries):
                if i:
                    printer.print_string(", ")
                printer.print_string_literal(key)
                printer.print_string(": ")
                printer.print_attribute(value)


Abi = Dialect("abi", [], [DictType])
