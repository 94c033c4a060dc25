"""The `tf_saved_model` attributes TensorFlow's importer writes, recognised by name.

They are discardable attributes (`tf_saved_model.index_path`, `exported_names`,
`semantics`, `bound_input`); `abi_compiler.passes.structure` verifies them where they are read.
"""

from __future__ import annotations

from xdsl.ir import Dialect

INDEX_PATH = "tf_saved_model.index_path"
EXPORTED_NAMES = "tf_saved_model.exported_names"
SEMANTICS = "tf_saved_model.semantics"
BOUND_INPUT = "tf_saved_model.bound_input"

TfSavedModel = Dialect("tf_saved_model", [], [])
