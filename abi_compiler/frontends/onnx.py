"""An ONNX model → MLIR whose function takes the graph's inputs by name (docs/spec.md §3.4).

    from abi_compiler import iree as abi_iree

    module = abi_iree.compile(Path("model.onnx"))      # or an onnx.ModelProto
    module.main(input_ids=ids, attention_mask=mask)    # {"logits": …}: outputs by name

The MLIR comes from IREE's ONNX importer (`iree.compiler.extras.onnx_importer`, what
`iree-import-onnx` runs; a model file is loaded, checked and shape-inferred by the same
code as the tool's). The importer names the function after the graph (`main` when the
graph has no name) and drops the input and output names; they are written back here:
each graph input (initializers excluded) is a `named` root by its ONNX name, in graph
order, and the results are one `sdict` by output name, returned as a dict in the graph's
output order. The torch-dialect body is lowered to builtin tensors by IREE's own ONNX and
torch pipelines (`iree_ir.lower_torch`).

Results come back as numpy arrays of the graph's output types (an unsigned output is
read as the unsigned dtype, although its record, `i<w>`, has no sign).

Needs ``pip install 'abi-compiler[onnx]'`` (onnx, and IREE's compiler for the importer).
"""

from __future__ import annotations

import os
from typing import Any, TypeAlias

try:
    import numpy as np
    import onnx
    from iree.compiler import ir
    from iree.compiler.extras import onnx_importer
except ImportError as _error:  # pragma: no cover - exercised without onnx installed
    raise ImportError(
        "abi_compiler.frontends.onnx needs onnx and IREE's compiler: "
        "pip install 'abi-compiler[onnx]'"
    ) from _error

from abi_compiler.call_model import Array, CallNode, Container
from abi_compiler.frontends import Program, quiet
from abi_compiler.frontends.index_checks import insert_index_checks
from abi_compiler.frontends.iree_ir import (
    annotate,
    find_function,
    import_error,
    leaf_types,
    lower_torch,
)
from abi_compiler.frontends.pytree import original_call, structure

__all__ = ["program", "to_mlir"]

ModelSource: TypeAlias = "onnx.ModelProto | str | os.PathLike[str]"


def to_mlir(model: ModelSource) -> str:
    """The MLIR text of ``model`` (a `ModelProto` or a path to a `.onnx` file) with its
    input and output names written on the function."""
    return program(model).mlir


def program(model: ModelSource) -> Program:
    """`to_mlir`, with the function's name and the adapter that returns the outputs as
    a dict in the graph's order."""
    try:
        proto = _load(model)
    except (OSError, TypeError):  # no such file; not a model
        raise
    except Exception as error:  # onnx's checker, shape inference and protobuf errors
        raise import_error("ONNX import", error) from error
    if not proto.graph.name:
        proto.graph.name = "main"
    try:
        with quiet():
            model_info = onnx_importer.ModelInfo(proto)
            graph = model_info.main_graph
            imported = model_info.create_module(context=ir.Context()).operation
            onnx_importer.NodeImporter.define_function(graph, imported).import_all()
            imported.verify()
    except Exception as error:  # the importer raises its own types, and MLIRError
        raise import_error("ONNX import", error) from error
    insert_index_checks(imported, list(graph.input_map))
    module = lower_torch(imported, onnx=True)

    name = proto.graph.name
    func = find_function(module, name)
    keywords: dict[str, CallNode] = {
        input_name: _array(position, info.type)
        for position, (input_name, info) in enumerate(graph.input_map.items())
    }
    outputs = list(proto.graph.output)
    result = Container(
        "dict",
        tuple(_array(position, output.type) for position, output in enumerate(outputs)),
        tuple(output.name for output in outputs),
    )
    argument_types, result_types = leaf_types(func)
    found = structure([], keywords, result, argument_types, result_types)
    call = original_call([], keywords, result, found)
    annotate(func, found, call)
    return Program(str(module), name, call)


def _array(index: int, type_proto: Any) -> Array:
    """An input or output of the graph: its numpy dtype and dims (a named dim is a
    symbol, an unknown one None)."""
    if not type_proto.HasField("tensor_type"):
        return Array(index, None, None)
    tensor = type_proto.tensor_type
    dtype = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type)).name
    if not tensor.HasField("shape"):
        return Array(index, dtype, None)
    dims: list[int | str | None] = []
    for dim in tensor.shape.dim:
        if dim.HasField("dim_value"):
            dims.append(dim.dim_value)
        else:
            dims.append(dim.dim_param or None)
    return Array(index, dtype, tuple(dims))


def _load(model: ModelSource) -> onnx.ModelProto:
    """The model, checked and shape-inferred as `iree-import-onnx` does."""
    if isinstance(model, onnx.ModelProto):
        copy = onnx.ModelProto()
        copy.CopyFrom(model)
        copy.graph.name = copy.graph.name or "main"  # ONNX's checker wants a name
        onnx.checker.check_model(copy)
        return onnx.shape_inference.infer_shapes(copy, data_prop=True)
    if not isinstance(model, (str, os.PathLike)):
        raise TypeError(f"expected an onnx.ModelProto or a path, got {type(model).__name__}")
    from iree.compiler.tools.import_onnx.__main__ import load_onnx_model, parse_arguments

    return load_onnx_model(parse_arguments([os.fspath(model)]))
