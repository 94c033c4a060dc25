"""The `abi` dialect: this project's structured types, ops and attributes.

Function bodies use the ops to build and take apart structured values (builtin `tuple`,
`!abi.dict`, ND-arrays of references); the lowering passes fold them away. The attributes
`abi.index_path` and `abi.name` describe where a flat value sits in a signature's
structure (docs/formats.md); `abi_compiler.dialects.verify_dialect_attributes` checks them
against `ATTRIBUTES`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntegerAttr,
    StringAttr,
    TensorType,
    TupleType,
)
from xdsl.ir import (
    Attribute,
    Dialect,
    Operation,
    ParametrizedAttribute,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    IRDLOperation,
    MessageConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import MemoryAllocEffect, MemoryReadEffect, Pure
from xdsl.utils.exceptions import VerifyException

from abi_compiler.attribute_names import ABI_INDEX_PATH, ABI_NAME
from abi_compiler.dialects.attributes import (
    INDEX_PATH_VALUE,
    ON_ARGUMENTS,
    ON_ARGUMENTS_AND_RESULTS,
    STRING_VALUE,
    DialectAttributeDef,
)
from abi_compiler.dialects.iree import IreeListType
from abi_compiler.dialects.util import ListType, VariantType
from abi_compiler.model import dict_key_order

INDEX_PATH = ABI_INDEX_PATH
NAME = ABI_NAME


@irdl_attr_definition
class DictType(ParametrizedAttribute, TypeAttribute):
    """`!abi.dict<"k0": T0, "k1": T1, …>`: a structure with named slots.

    Keys are quoted so any string works and must be unique. The type keeps the order it
    was written in; at the ABI boundary its slots are in byte-wise sorted key order
    (docs/formats.md), see `sorted_entries`.
    """

    name = "abi.dict"

    keys: ArrayAttr[StringAttr]
    types: ArrayAttr[TypeAttribute]

    def __init__(self, entries: Sequence[tuple[str, Attribute]]) -> None:
        super().__init__(
            ArrayAttr([StringAttr(key) for key, _ in entries]),
            ArrayAttr([value for _, value in entries]),
        )

    @property
    def entries(self) -> list[tuple[str, Attribute]]:
        return [(key.data, value) for key, value in zip(self.keys, self.types, strict=True)]

    def sorted_entries(self) -> list[tuple[str, Attribute]]:
        """The slots in the ABI's key order (`abi_compiler.model.dict_key_order`)."""
        return sorted(self.entries, key=lambda entry: dict_key_order(entry[0]))

    def type_of(self, key: str) -> Attribute | None:
        """The type of slot ``key``, or None if there is no such slot."""
        for entry_key, value in self.entries:
            if entry_key == key:
                return value
        return None

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


# --------------------------------------------------------------------------------------
# Tuples and dicts (docs/spec.md §8.4).
# --------------------------------------------------------------------------------------


def _type_list(types: Sequence[Attribute]) -> str:
    return "(" + ", ".join(str(type) for type in types) + ")"


@irdl_op_definition
class TuplePackOp(IRDLOperation):
    """Builds a tuple from its elements.

    The operands are the elements in order; the result type is the builtin
    `tuple<...>` of their types. The lowering passes replace the tuple by its elements.
    """

    name = "abi.tuple.pack"

    elements = var_operand_def()
    result = result_def(TupleType)

    traits = traits_def(Pure())

    assembly_format = "$elements attr-dict `:` functional-type($elements, $result)"

    def __init__(self, elements: Sequence[SSAValue | Operation]) -> None:
        """The result type is `tuple<...>` of the elements' types."""
        types = [SSAValue.get(element).type for element in elements]
        result_type = TupleType(ArrayAttr(cast(list[TypeAttribute], types)))
        super().__init__(operands=[elements], result_types=[result_type])

    def verify_(self) -> None:
        result_type = self.result.type
        assert isinstance(result_type, TupleType)
        if tuple(self.elements.types) != result_type.types.data:
            raise VerifyException(
                f"result type {result_type} does not match the element types "
                f"{_type_list(self.elements.types)}"
            )


@irdl_op_definition
class TupleGetOp(IRDLOperation):
    """Returns one element of a tuple.

    `index` counts from 0 and must be in range; the result type is the element's type.
    """

    name = "abi.tuple.get"

    tuple = operand_def(TupleType)
    index = prop_def(IntegerAttr[IndexType])
    result = result_def()

    traits = traits_def(Pure())

    assembly_format = "$tuple `[` $index `]` attr-dict `:` type($tuple) `->` type($result)"

    def __init__(self, tuple_value: SSAValue | Operation, index: int) -> None:
        """The result type is the element's type."""
        tuple_type = SSAValue.get(tuple_value).type
        if not isinstance(tuple_type, TupleType) or not 0 <= index < len(tuple_type.types):
            raise ValueError(f"no element {index} in {tuple_type}")
        super().__init__(
            operands=[tuple_value],
            properties={"index": IntegerAttr(index, IndexType())},
            result_types=[tuple_type.types.data[index]],
        )

    def verify_(self) -> None:
        tuple_type = self.tuple.type
        assert isinstance(tuple_type, TupleType)
        index = self.index.value.data
        if not 0 <= index < len(tuple_type.types):
            raise VerifyException(f"index {index} is out of range for {tuple_type}")
        element_type = tuple_type.types.data[index]
        if self.result.type != element_type:
            raise VerifyException(
                f"result type {self.result.type} does not match element {index} of "
                f"{tuple_type}: {element_type}"
            )


@irdl_op_definition
class DictPackOp(IRDLOperation):
    """Builds a dict from its values.

    The operands are the values of the slots in byte-wise sorted key order (the order
    the dict has at the ABI boundary), whatever order the result type lists
    its keys in; each operand's type is its slot's type.
    """

    name = "abi.dict.pack"

    values = var_operand_def()
    result = result_def(DictType)

    traits = traits_def(Pure())

    assembly_format = "$values attr-dict `:` functional-type($values, $result)"

    def __init__(self, values: Sequence[SSAValue | Operation], result_type: DictType) -> None:
        """``values`` in the sorted key order of ``result_type``."""
        super().__init__(operands=[values], result_types=[result_type])

    def verify_(self) -> None:
        dict_type = self.result.type
        assert isinstance(dict_type, DictType)
        entries = dict_type.sorted_entries()
        if len(entries) != len(self.values):
            raise VerifyException(
                f"expected {len(entries)} values for {dict_type} (one per slot, in sorted key "
                f"order), got {len(self.values)}"
            )
        for i, ((key, slot_type), value) in enumerate(zip(entries, self.values, strict=True)):
            if value.type != slot_type:
                raise VerifyException(
                    f'value {i} has type {value.type} but slot "{key}" of {dict_type} '
                    f"(the {_ordinal(i)} in sorted key order) has type {slot_type}"
                )


def _ordinal(i: int) -> str:
    n = i + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@irdl_op_definition
class DictGetOp(IRDLOperation):
    """Returns the value of one slot of a dict.

    The key must be one of the dict type's keys; the result type is the slot's type.
    """

    name = "abi.dict.get"

    dict = operand_def(DictType)
    key = prop_def(StringAttr)
    result = result_def()

    traits = traits_def(Pure())

    assembly_format = "$dict `[` $key `]` attr-dict `:` type($dict) `->` type($result)"

    def __init__(self, dict_value: SSAValue | Operation, key: str) -> None:
        """The result type is the slot's type."""
        dict_type = SSAValue.get(dict_value).type
        slot_type = dict_type.type_of(key) if isinstance(dict_type, DictType) else None
        if slot_type is None:
            raise ValueError(f'no key "{key}" in {dict_type}')
        super().__init__(
            operands=[dict_value],
            properties={"key": StringAttr(key)},
            result_types=[slot_type],
        )

    def verify_(self) -> None:
        dict_type = self.dict.type
        assert isinstance(dict_type, DictType)
        key = self.key.data
        slot_type = dict_type.type_of(key)
        if slot_type is None:
            raise VerifyException(f'key "{key}" is not in {dict_type}')
        if self.result.type != slot_type:
            raise VerifyException(
                f'result type {self.result.type} does not match slot "{key}" of '
                f"{dict_type}: {slot_type}"
            )


# --------------------------------------------------------------------------------------
# ND-arrays of reference type (docs/spec.md §8.3).
# --------------------------------------------------------------------------------------

# A tensor of lists is an ND-array of references (docs/spec.md §3.1, §8.3).
RefArrayConstr = MessageConstraint(
    TensorType.constr(base(ListType) | base(IreeListType)),
    "expected a ranked tensor of !util.list or !iree.list elements",
)

VariantListConstr = MessageConstraint(ListType(VariantType()), "expected !util.list<?>")


@irdl_op_definition
class RefArrayToListsOp(IRDLOperation):
    """Converts an ND-array of references to the lists that carry it across the ABI.

    The result is a `!util.list<?>` holding exactly two lists: first a
    `!util.list<T>` with the array's elements in C (row-major) order, then a
    `!util.list<index>` with its dimension sizes. It is the runtime form of IREE's Function ABI's
    `!iree.tuple<!util.list<T>, !util.list<index>>`.
    """

    name = "abi.ref_array.to_lists"

    array = operand_def(RefArrayConstr)
    result = result_def(VariantListConstr)

    traits = traits_def(MemoryAllocEffect())

    assembly_format = "$array attr-dict `:` type($array) `->` type($result)"

    def __init__(self, array: SSAValue | Operation) -> None:
        super().__init__(operands=[array], result_types=[ListType(VariantType())])


@irdl_op_definition
class RefArrayFromListsOp(IRDLOperation):
    """Rebuilds an ND-array of references from the lists that carry it across the ABI.

    The operand is a `!util.list<?>` as `abi.ref_array.to_lists` makes it: the values
    `!util.list<T>` in C (row-major) order, then the dims `!util.list<index>`. The
    result type gives the element type and rank. At run time the op fails unless the
    operand holds exactly those two lists, the dims list has one entry per dimension of
    the result type, every static dimension equals its entry, and the product of the
    dims equals the number of values; dynamic dimensions take their size from the dims
    list.
    """

    name = "abi.ref_array.from_lists"

    lists = operand_def(VariantListConstr)
    result = result_def(RefArrayConstr)

    traits = traits_def(MemoryReadEffect())

    assembly_format = "$lists attr-dict `:` type($lists) `->` type($result)"

    def __init__(self, lists: SSAValue | Operation, result_type: TensorType) -> None:
        super().__init__(operands=[lists], result_types=[result_type])


# --------------------------------------------------------------------------------------
# Attributes.
# --------------------------------------------------------------------------------------


ATTRIBUTES = (
    DialectAttributeDef(
        INDEX_PATH,
        ON_ARGUMENTS_AND_RESULTS,
        INDEX_PATH_VALUE,
        """Where a flat value sits in the function's original structure.

        Written by `flatten-signatures` on every argument and result of an exported
        function it changes, read by `materialize-sip-abi` and
        `materialize-iree-abi` to rebuild the structure. Example:
        `{abi.index_path = [0, "k"]}` is slot `"k"` of the dict passed as argument 0.
        """,
    ),
    DialectAttributeDef(
        NAME,
        ON_ARGUMENTS,
        STRING_VALUE,
        """The name of a named (keyword) argument.

        Names are unique within a function, and named arguments follow all positional
        ones (checked by the passes that read them).
        """,
    ),
)
"""The `abi` dialect's discardable attributes."""


Abi = Dialect(
    "abi",
    [
        TuplePackOp,
        TupleGetOp,
        DictPackOp,
        DictGetOp,
        RefArrayToListsOp,
        RefArrayFromListsOp,
    ],
    [DictType],
)
