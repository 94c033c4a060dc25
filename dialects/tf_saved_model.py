"""The `tf_saved_model` attributes TensorFlow's importer writes, recognised by name.

They are discardable attributes; the passes read them (SPEC §3.2, §6) and
`verify_tf_saved_model_attributes` checks their shape and placement:

* `tf_saved_model.semantics` (unit, on the module): the module is a saved model;
* `tf_saved_model.exported_names` (array of strings, on an op such as `func.func`): the
  names the function is exported under;
* `tf_saved_model.index_path` (array of integers and strings, on arguments and results):
  the value's path in the signature's structure;
* `tf_saved_model.bound_input` (symbol reference, on arguments): a variable bound by
  TensorFlow, which must be resolved before ABI processing (SPEC §2).
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr, SymbolRefAttr, UnitAttr
from xdsl.ir import Dialect, Operation

from abi_compiler.dialects.attributes import (
    AttributeVerifyException,
    placed_attributes,
    verify_index_path,
)

INDEX_PATH = "tf_saved_model.index_path"
EXPORTED_NAMES = "tf_saved_model.exported_names"
SEMANTICS = "tf_saved_model.semantics"
BOUND_INPUT = "tf_saved_model.bound_input"


def verify_tf_saved_model_attributes(op: Operation) -> None:
    """Check the `tf_saved_model.*` attributes of ``op`` and of its arguments/results.

    Raises an `AttributeVerifyException` (a `VerifyException`) that says which op and
    which argument/result.
    """
    for name, value, where in placed_attributes(op):
        if name == INDEX_PATH:
            if where is None:
                raise AttributeVerifyException(
                    f"{INDEX_PATH} is only valid on function arguments and results", op
                )
            verify_index_path(INDEX_PATH, value, op, where)
        elif name == EXPORTED_NAMES:
            if where is not None:
                raise AttributeVerifyException(
                    f"{EXPORTED_NAMES} is only valid on an operation, not on its {where[0]}s",
                    op,
                    where,
                )
            if not isinstance(value, ArrayAttr) or not all(
                isinstance(item, StringAttr) for item in value.data
            ):
                raise AttributeVerifyException(f"{EXPORTED_NAMES} must be an array of strings", op)
        elif name == SEMANTICS:
            if where is not None or not isinstance(op, ModuleOp):
                raise AttributeVerifyException(f"{SEMANTICS} is only valid on a module", op, where)
            if not isinstance(value, UnitAttr):
                raise AttributeVerifyException(f"{SEMANTICS} must be a unit attribute", op)
        elif name == BOUND_INPUT:
            if where is None or where[0] != "argument":
                raise AttributeVerifyException(
                    f"{BOUND_INPUT} is only valid on function arguments", op, where
                )
            if not isinstance(value, SymbolRefAttr):
                raise AttributeVerifyException(
                    f"{BOUND_INPUT} must be a symbol reference", op, where
                )


TfSavedModel = Dialect("tf_saved_model", [], [])
