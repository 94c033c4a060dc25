"""An importer's output that has lost the structure a frontend would have kept
(docs/structure.md, "Importers' output").

IREE's ONNX importer (`iree-import-onnx`), its TensorFlow importer (`iree-import-tf`) and
the torch importers (iree-turbine's text, torch-mlir's FX importer) write no names and no
structure on a function: an ONNX graph's input and output names, a signature's, a torch
program's argument tree and keyword arguments are gone, and `-p iree-abi-v1` can only
make the function positional and flat. `abi_compiler.frontends` (and `abi-compile`) read
them from the model itself. Lowering such a module is not wrong — so it is one warning,
at the first function that shows the importer's marks, naming what keeps the structure:

* `torch.onnx_meta.*` attributes on the function: IREE's ONNX importer;
* a `!torch.vtensor` argument or result: a torch importer;
* a public `@session_initializer()` next to it: IREE's TensorFlow importer (TensorFlow's
  saved-model lowering writes one).

A function that already has an `iree.abi` (a frontend's output), or whose structure is
read from index paths or JAX paths, is no such output.
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from abi_compiler.attribute_names import IREE_ABI
from abi_compiler.dialects.torch import ValueTensorType
from abi_compiler.ir import diagnostics
from abi_compiler.passes.reflection import reflection_entries
from abi_compiler.passes.structure import functions, structure_source

ONNX_META = "torch.onnx_meta."
TF_INITIALIZER = "session_initializer"

#: Importer → (what marks its output, what keeps the structure).
_ADVICE = {
    "onnx": (
        "IREE's ONNX importer (its 'torch.onnx_meta' attributes)",
        "the graph's input and output names",
        "`abi-compile model.onnx` (or abi_compiler.frontends.onnx) keeps them",
    ),
    "torch": (
        "a torch importer (iree-turbine, torch-mlir: '!torch.vtensor' values)",
        "the program's argument structure and keyword arguments",
        "`abi-compile program.pt2` (or abi_compiler.frontends.torch) keeps them",
    ),
    "tf": (
        "IREE's TensorFlow importer (its '@session_initializer')",
        "the signature's input and output names",
        "`abi-compile saved_model_dir` (or abi_compiler.frontends.tf) keeps them",
    ),
}


def warn_importer_output(module: ModuleOp, exported: Iterable[FuncOp]) -> None:
    """One warning for a module whose exported functions come from an importer that
    dropped their structure (see the module's documentation)."""
    tf_importer = any(
        func.sym_name.data == TF_INITIALIZER
        and func.sym_visibility is None
        and not func.function_type.inputs.data
        and not func.function_type.outputs.data
        for func in functions(module)
    )
    for func in exported:
        if func.sym_name.data == TF_INITIALIZER or not _unstructured(func):
            continue
        importer = _importer(func, tf_importer)
        if importer is None:
            continue
        marks, lost, remedy = _ADVICE[importer]
        diagnostics.warn_once(
            f"function {func.sym_name.data} looks like the output of {marks}, which drops "
            f"{lost}: it is lowered positional and flat. {remedy}",
            func,
        )
        return


def _unstructured(func: FuncOp) -> bool:
    if IREE_ABI in func.attributes or IREE_ABI in reflection_entries(func):
        return False
    return structure_source(func) is None


def _importer(func: FuncOp, tf_importer: bool) -> str | None:
    if any(name.startswith(ONNX_META) for name in func.attributes):
        return "onnx"
    types = [*func.function_type.inputs.data, *func.function_type.outputs.data]
    if any(isinstance(t, ValueTensorType) for t in types):
        return "torch"
    if tf_importer:
        return "tf"
    return None
