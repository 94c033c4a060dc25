"""What the torch, ONNX and TensorFlow frontends do to a module held by IREE's MLIR
Python bindings (`iree.compiler.ir`, from the ``iree-base-compiler`` package, which
iree-turbine and IREE's ONNX importer build their modules with).

* `lower_torch`: torch-dialect functions → builtin tensors and linalg, by IREE's own
  torch input pipeline (`torch-to-iree`), run by ``iree-opt`` in a child process (a
  crash of it is a `CompileError`). iree-compile would run that pipeline itself,
  but it only finishes the conversion in functions it turns into its own ABI (`util.func`
  with a `$async` variant), never in a function marked `iree.abi.stub` — which is what
  `wrap-entry-points` makes of the exported function. So the frontend runs it first, on
  a function with builtin tensors at its boundary.
* `leaf_types`: the `abi_compiler.model` value type of each argument and result of a
  function, read by the project's own type mapping (`passes.structure.value_type`).
* `annotate`: writes a `Structure` (`abi.index_path` on every argument and result, the
  `iree.abi` JSON) on a function.
"""

from __future__ import annotations

import io
from typing import Any

from abi_compiler.attribute_names import (
    ABI_CALL,
    ABI_INDEX_PATH,
    ABI_OUTPUT,
    ABI_STUB,
    IREE_ABI,
    REFLECTION,
)
from abi_compiler.call_model import OriginalCall
from abi_compiler.codecs.call_json import encode_call
from abi_compiler.errors import AbiError, CompileError
from abi_compiler.frontends.iree_tools import run_tool
from abi_compiler.frontends.pytree import Structure
from abi_compiler.model import IndexPath, ValueType

try:
    from iree.compiler import ir
    from iree.compiler.tools.binaries import find_tool
except ImportError as _error:  # pragma: no cover - the frontends' own errors name their extra
    raise ImportError(
        "abi_compiler.frontends needs IREE's compiler (iree-base-compiler 3.13): "
        "pip install 'abi-compiler[iree]'"
    ) from _error

__all__ = [
    "annotate",
    "find_function",
    "functions",
    "import_error",
    "leaf_types",
    "lower_torch",
    "write_call",
    "write_index_paths",
    "write_outputs",
]

# `torch-func-backend-type-conversion` gives the functions builtin tensors at their
# boundary; `torch-to-iree` is iree-compile's torch input pipeline; its last pass,
# the finalizing type conversion, runs on `util.func` only, so it runs again on
# `func.func` here.
_TORCH_PASSES = (
    "torch-func-backend-type-conversion,torch-to-iree,"
    "func.func(torch-finalizing-backend-type-conversion)"
)
_TORCH_PIPELINE = f"builtin.module({_TORCH_PASSES})"
# ONNX functions first become torch ones (what iree-compile does for ONNX input).
_ONNX_PIPELINE = f"builtin.module(torch-onnx-to-torch-backend-pipeline,{_TORCH_PASSES})"


def functions(module: Any) -> list[Any]:
    """The top-level `func.func` operations of a module (an `ir.Module` or its op)."""
    op = module.operation
    return [
        item for item in op.regions[0].blocks[0].operations if item.operation.name == "func.func"
    ]


def find_function(module: Any, name: str) -> Any:
    for func in functions(module):
        if ir.StringAttr(func.attributes["sym_name"]).value == name:
            return func
    raise ValueError(f"the imported module has no function @{name}")


def lower_torch(module: Any, *, onnx: bool = False) -> Any:
    """``module`` with every torch-dialect function lowered to builtin tensors: a new
    `ir.Module` (in a context of its own).

    The pipeline runs in ``iree-opt``, in a child process (``module`` goes there and back
    as MLIR bytecode, locations kept): a crash of IREE's lowering is a `CompileError`
    naming the pipeline, never the caller's process lost. IREE's torch pipeline turns
    every function not marked `iree.abi.stub` into its own ABI: the mark keeps it off
    them while the pipeline runs."""
    op = module.operation
    marked = []
    with op.context:
        for func in functions(module):
            if ABI_STUB not in func.attributes:
                func.attributes[ABI_STUB] = ir.UnitAttr.get()
                marked.append(ir.StringAttr(func.attributes["sym_name"]).value)
    buffer = io.BytesIO()
    op.write_bytecode(buffer)
    for func in functions(module):  # the caller's module as it was
        if ir.StringAttr(func.attributes["sym_name"]).value in marked:
            del func.attributes[ABI_STUB]
    pipeline = _ONNX_PIPELINE if onnx else _TORCH_PIPELINE
    stage = "IREE ONNX input pipeline" if onnx else "IREE torch input pipeline"
    command = [find_tool("iree-opt"), f"--pass-pipeline={pipeline}", "--emit-bytecode", "-"]
    # A context of its own: resource names parsed into the first would be renamed.
    lowered = ir.Module.parse(run_tool(command, buffer.getvalue(), stage), ir.Context())
    with lowered.context:
        for func in functions(lowered):
            if ir.StringAttr(func.attributes["sym_name"]).value in marked:
                del func.attributes[ABI_STUB]
    return lowered


def import_error(stage: str, error: Exception) -> CompileError:
    """The `CompileError` of a framework's import (iree-turbine's, IREE's ONNX importer)
    that raised ``error``: its message, which for an `MLIRError` holds the located
    diagnostics."""
    text = str(error).rstrip("\n") or type(error).__name__
    return CompileError(stage, text + "\n")


def leaf_types(func: Any) -> tuple[list[ValueType], list[ValueType]]:
    """The value types of ``func``'s arguments and results."""
    from xdsl.context import Context
    from xdsl.parser import Parser

    from abi_compiler.passes.structure import value_type

    function_type = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    context = Context()

    def read(types: Any) -> list[ValueType]:
        return [value_type(Parser(context, str(t)).parse_type()) for t in types]

    return read(function_type.inputs), read(function_type.results)


def annotate(func: Any, found: Structure, call: OriginalCall | None = None) -> None:
    """Write ``found`` on ``func``: `abi.index_path` on every argument and result (other
    attributes kept) and the `iree.abi` JSON; and ``call``, the original call, as the
    `abi.call` entry of its `iree.reflection`."""
    write_index_paths(func, found.argument_paths, found.result_paths)
    with func.context:
        func.attributes[IREE_ABI] = ir.StringAttr.get(found.abi)
    if call is not None:
        write_call(func, call)


def write_call(func: Any, call: OriginalCall) -> None:
    """``call`` as the `abi.call` entry of ``func``'s `iree.reflection` (other entries
    kept)."""
    with func.context:
        entries = {}
        if REFLECTION in func.attributes:
            for attr in ir.DictAttr(func.attributes[REFLECTION]):
                entries[attr.name] = attr.attr
        entries[ABI_CALL] = ir.StringAttr.get(encode_call(call))
        func.attributes[REFLECTION] = ir.DictAttr.get(entries)


def write_index_paths(
    func: Any, argument_paths: tuple[IndexPath, ...], result_paths: tuple[IndexPath, ...]
) -> None:
    """`abi.index_path` on every argument and result of ``func`` (other attributes
    kept); a count that disagrees with the function type is an `AbiError`."""
    function_type = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    counts = (len(function_type.inputs), len(function_type.results))
    if counts != (len(argument_paths), len(result_paths)):
        raise AbiError(
            f"the imported function takes {counts[0]} values and returns {counts[1]}, the "
            f"model describes {len(argument_paths)} and {len(result_paths)}"
        )
    with func.context:
        func.attributes["arg_attrs"] = _with_paths(func, "arg_attrs", argument_paths)
        func.attributes["res_attrs"] = _with_paths(func, "res_attrs", result_paths)


def write_outputs(func: Any, outputs: dict[int, int]) -> None:
    """`iree.abi.output = <result>` on each argument of ``func`` in ``outputs`` (argument
    → the result stored into its buffer: `wrap-entry-points` writes the
    `hal.tensor.alias`); other attributes kept."""
    if not outputs:
        return
    with func.context:
        existing = ir.ArrayAttr(func.attributes["arg_attrs"])
        index = ir.IndexType.get()
        dicts = []
        for position in range(len(existing)):
            entries = {attr.name: attr.attr for attr in ir.DictAttr(existing[position])}
            if position in outputs:
                entries[ABI_OUTPUT] = ir.IntegerAttr.get(index, outputs[position])
            dicts.append(ir.DictAttr.get(entries))
        func.attributes["arg_attrs"] = ir.ArrayAttr.get(dicts)


def _with_paths(func: Any, name: str, paths: tuple[IndexPath, ...]) -> Any:
    existing = ir.ArrayAttr(func.attributes[name]) if name in func.attributes else None
    i64 = ir.IntegerType.get_signless(64)
    dicts = []
    for position, path in enumerate(paths):
        entries = {}
        if existing is not None:
            for attr in ir.DictAttr(existing[position]):
                entries[attr.name] = attr.attr
        entries[ABI_INDEX_PATH] = ir.ArrayAttr.get(
            [
                ir.StringAttr.get(key) if isinstance(key, str) else ir.IntegerAttr.get(i64, key)
                for key in path
            ]
        )
        dicts.append(ir.DictAttr.get(entries))
    return ir.ArrayAttr.get(dicts)
