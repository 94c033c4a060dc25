"""The `tf_saved_model` attributes TensorFlow's importer writes.

Only its discardable attributes are declared (no types or ops): the passes read them
(docs/formats.md) and `abi_compiler.dialects.verify_dialect_attributes` checks their
placement and values against `ATTRIBUTES`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import SymbolRefAttr, UnitAttr
from xdsl.ir import Dialect

from abi_compiler.attribute_names import (
    TF_BOUND_INPUT,
    TF_EXPORTED_NAMES,
    TF_INDEX_PATH,
    TF_SEMANTICS,
)
from abi_compiler.dialects.attributes import (
    ARRAY_OF_STRINGS_VALUE,
    INDEX_PATH_VALUE,
    ON_ARGUMENTS,
    ON_ARGUMENTS_AND_RESULTS,
    ON_MODULES,
    ON_OPERATIONS,
    DialectAttributeDef,
    instance_of,
)

INDEX_PATH = TF_INDEX_PATH
EXPORTED_NAMES = TF_EXPORTED_NAMES
SEMANTICS = TF_SEMANTICS
BOUND_INPUT = TF_BOUND_INPUT

ATTRIBUTES = (
    DialectAttributeDef(
        SEMANTICS,
        ON_MODULES,
        instance_of(UnitAttr, text="a unit attribute"),
        """Marks the module as a TensorFlow saved model.

        Only functions with `tf_saved_model.exported_names` are exported; the
        lowering passes remove the attribute once they have adopted every export.
        """,
    ),
    DialectAttributeDef(
        EXPORTED_NAMES,
        ON_OPERATIONS,
        ARRAY_OF_STRINGS_VALUE,
        """The names a function is exported under.

        The lowering passes rename the function to its single exported name; more than
        one is an error for them.
        """,
    ),
    DialectAttributeDef(
        INDEX_PATH,
        ON_ARGUMENTS_AND_RESULTS,
        INDEX_PATH_VALUE,
        """Where a flat value sits in the function's structure, as TensorFlow wrote it.

        Read by every pass to rebuild the structure; the lowering passes
        rewrite it to `abi.index_path`.
        """,
    ),
    DialectAttributeDef(
        BOUND_INPUT,
        ON_ARGUMENTS,
        instance_of(SymbolRefAttr, text="a symbol reference"),
        """A variable bound to the argument by TensorFlow.

        Every pass rejects it: bound inputs must be resolved before ABI processing.
        """,
    ),
)
"""The `tf_saved_model` attributes this project reads."""


TfSavedModel = Dialect("tf_saved_model", [], [])
