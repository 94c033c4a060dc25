"""Shared machinery for verifying discardable dialect attributes (`abi.*`,
`tf_saved_model.*`): the error type, where an attribute sits, index path shapes.

xDSL has no hook for dialect attributes (MLIR's `verifyOperationAttribute` /
`verifyRegionArgAttribute`), so each dialect module exposes a `verify_*_attributes(op)`
function and `abi_compiler.dialects.verify_dialect_attributes` walks a module once.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, IntegerType, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import VerifyException

INDEX_PATH_COMPONENT_MESSAGE = "each index path component must be a string or integer"
"""SPEC §3.2's message for a bad component; the structure pass uses the same words."""


class AttributeVerifyException(VerifyException):
    """A misplaced or malformed dialect attribute.

    ``op`` is the operation carrying it; ``where`` is ``("argument", i)`` or
    ``("result", i)`` when it sits on a function argument or result (the convention of
    `abi_compiler.errors.AbiError`), ``None`` when it is an attribute of ``op`` itself.
    """

    def __init__(self, message: str, op: Operation, where: tuple[str, int] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.op = op
        self.where = where


Placement = tuple[str, int] | None
"""Where an attribute sits: on a function `("argument", i)` / `("result", i)`, or on the
operation itself (`None`)."""


def placed_attributes(op: Operation) -> Iterator[tuple[str, Attribute, Placement]]:
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


def is_index_path(value: Attribute) -> bool:
    """An array whose components are integers (sequence keys) or strings (dict keys)."""
    return isinstance(value, ArrayAttr) and all(
        is_index_path_component(component) for component in value.data
    )


def is_index_path_component(component: Attribute) -> bool:
    return isinstance(component, StringAttr) or (
        isinstance(component, IntegerAttr) and isinstance(component.type, IntegerType)
    )


def verify_index_path(name: str, value: Attribute, op: Operation, where: Placement) -> None:
    if not isinstance(value, ArrayAttr):
        raise AttributeVerifyException(
            f"{name} must be an array of strings and integers", op, where
        )
    if not is_index_path(value):
        raise AttributeVerifyException(INDEX_PATH_COMPONENT_MESSAGE, op, where)
