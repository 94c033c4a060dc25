"""Discardable dialect attributes (`abi.name`, `tf_saved_model.index_path`, …), declared
like ODS records: one `DialectAttributeDef` holds the name, where the attribute may sit,
what its value must be and its documentation. Verification and the reference docs are
both generated from these records.

xDSL has no hook for dialect attributes (MLIR's `verifyOperationAttribute` /
`verifyRegionArgAttribute`), so each dialect module lists its definitions in `ATTRIBUTES`
and `abi_compiler.dialects.verify_dialect_attributes` checks them all in one walk of a
module (`placed_attributes`, `verify_placed_attributes`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import VerifyException

from abi_compiler.model import INDEX_PATH_COMPONENT_MESSAGE

Where = tuple[str, int] | None
"""Where an attribute sits: on a function `("argument", i)` / `("result", i)`, or on the
operation itself (`None`) — the convention of `abi_compiler.errors.AbiError`."""


class AttributeVerifyException(VerifyException):
    """A misplaced or malformed dialect attribute: ``op`` carries it, ``where`` says
    whether on the op itself (``None``) or on one of its arguments/results."""

    def __init__(self, message: str, op: Operation, where: Where = None) -> None:
        super().__init__(message)
        self.message = message
        self.op = op
        self.where = where


@dataclass(frozen=True)
class Placement:
    """Where a dialect attribute may sit; ``text`` completes "only valid on …"."""

    text: str
    allows: Callable[[Operation, Where], bool]


ON_ARGUMENTS = Placement(
    "function arguments", lambda op, where: where is not None and where[0] == "argument"
)
ON_ARGUMENTS_AND_RESULTS = Placement(
    "function arguments and results", lambda op, where: where is not None
)
ON_OPERATIONS = Placement("operations", lambda op, where: where is None)
ON_MODULES = Placement("modules", lambda op, where: where is None and isinstance(op, ModuleOp))


@dataclass(frozen=True)
class ValueConstraint:
    """What a dialect attribute's value must be; ``text`` completes "must be …".
    ``check`` returns None if the value is fine, or the error message."""

    text: str
    check: Callable[[str, Attribute], str | None]


def instance_of(*kinds: type[Attribute], text: str) -> ValueConstraint:
    return ValueConstraint(
        text, lambda name, value: None if isinstance(value, kinds) else f"{name} must be {text}"
    )


def _array_of_strings(name: str, value: Attribute) -> str | None:
    if isinstance(value, ArrayAttr) and all(isinstance(item, StringAttr) for item in value.data):
        return None
    return f"{name} must be an array of strings"


def is_index_path_component(component: Attribute) -> bool:
    """A string (dict key) or an integer (sequence key); `true`/`false` (`i1`) are booleans,
    not keys (xDSL reads `true` as the integer -1)."""
    return isinstance(component, StringAttr) or (
        isinstance(component, IntegerAttr)
        and isinstance(component.type, IntegerType)
        and component.type.width.data > 1
    )


def _index_path(name: str, value: Attribute) -> str | None:
    if not isinstance(value, ArrayAttr):
        return f"{name} must be an array of strings and integers"
    if not all(is_index_path_component(component) for component in value.data):
        return INDEX_PATH_COMPONENT_MESSAGE
    return None


STRING_VALUE = instance_of(StringAttr, text="a string")
ARRAY_OF_STRINGS_VALUE = ValueConstraint("an array of strings", _array_of_strings)
INDEX_PATH_VALUE = ValueConstraint(
    "an array of strings (dict keys) and integers (sequence keys)", _index_path
)


@dataclass(frozen=True)
class DialectAttributeDef:
    """One discardable dialect attribute: its name, where it may sit, what its value
    must be, and its documentation (first line: summary)."""

    name: str
    placement: Placement
    value: ValueConstraint
    doc: str

    def verify(self, value: Attribute, op: Operation, where: Where) -> None:
        if not self.placement.allows(op, where):
            raise AttributeVerifyException(
                f"{self.name} is only valid on {self.placement.text}", op, where
            )
        if (message := self.value.check(self.name, value)) is not None:
            raise AttributeVerifyException(message, op, where)


def placed_attributes(op: Operation) -> Iterator[tuple[str, Attribute, Where]]:
    """Every discardable attribute of ``op`` and, for a `func.func`, of its arguments and
    results, with where it sits."""
    for name, value in op.attributes.items():
        yield name, value, None
    if isinstance(op, FuncOp):
        for side, dictionaries in (("argument", op.arg_attrs), ("result", op.res_attrs)):
            if dictionaries is None:
                continue
            for i, dictionary in enumerate(dictionaries.data):
                if isinstance(dictionary, DictionaryAttr):
                    for name, value in dictionary.data.items():
                        yield name, value, (side, i)


def by_name(defs: Sequence[DialectAttributeDef]) -> dict[str, DialectAttributeDef]:
    return {definition.name: definition for definition in defs}


def verify_placed_attributes(
    op: Operation,
    placed: Sequence[tuple[str, Attribute, Where]],
    defs: dict[str, DialectAttributeDef],
    passed: set[tuple[str, int, type[Operation], str | None]] | None = None,
) -> None:
    """Check the attributes ``placed`` on ``op`` (and on its arguments/results, as
    `placed_attributes` lists them) that ``defs`` declare; others are left alone. Raises
    `AttributeVerifyException`. ``passed`` remembers the checks that passed: a check
    depends only on the attribute's name and value, the op's class and whether the
    attribute sits on the op, an argument or a result (the caller keeps the values alive
    while it is used)."""
    for name, value, where in placed:
        if (definition := defs.get(name)) is not None:
            if passed is None:
                definition.verify(value, op, where)
                continue
            key = (name, id(value), type(op), None if where is None else where[0])
            if key not in passed:
                definition.verify(value, op, where)
                passed.add(key)
