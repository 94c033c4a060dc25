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

from abi_compiler.frontends import Program, quiet
from abi_compiler.frontends.dims import Dim
from abi_compiler.frontends.iree_ir import (
    annotate,
    find_function,
    import_error,
    leaf_types,
    lower_torch,
)
from abi_compiler.frontends.pytree import Tree, TreeAdapter, structure

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
    module = lower_torch(imported, onnx=True)

    name = proto.graph.name
    func = find_function(module, name)
    keywords = {
        input_name: Tree("leaf", dtype=_dtype_name(info.type), dims=_dims(info.type))
        for input_name, info in graph.input_map.items()
    }
    outputs = [(output.name, _numpy_dtype(output.type)) for output in proto.graph.output]
    result = Tree(
        "dict",
        tuple(Tree("leaf", meta=dtype) for _, dtype in outputs),
        tuple(n for n, _ in outputs),
    )
    argument_types, result_types = leaf_types(func)
    annotate(func, structure([], keywords, result, argument_types, result_types))
    return Program(str(module), name, TreeAdapter([], keywords, result, _output))


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


def _numpy_dtype(type_proto: Any) -> Any:
    if not type_proto.HasField("tensor_type"):
        return None
    return onnx.helper.tensor_dtype_to_np_dtype(type_proto.tensor_type.elem_type)


def _dtype_name(type_proto: Any) -> str | None:
    """The numpy name of an input's element type (the adapter checks the sign and range
    of an integer one: its record, `i<w>`, takes either)."""
    dtype = _numpy_dtype(type_proto)
    return None if dtype is None else np.dtype(dtype).name


def _dims(type_proto: Any) -> tuple[Dim, ...] | None:
    """An input's dims: a size, the name of a ``dim_param`` (inputs with the same name
    have the same size, as ONNX defines it, and the compiled code reads them so), or
    None (unknown); None for an input without a shape."""
    if not type_proto.HasField("tensor_type") or not type_proto.tensor_type.HasField("shape"):
        return None
    dims: list[Dim] = []
    for dim in type_proto.tensor_type.shape.dim:
        if dim.HasField("dim_value"):
            dims.append(int(dim.dim_value))
        elif dim.HasField("dim_param") and dim.dim_param:
            dims.append(dim.dim_param)
        else:
            dims.append(None)
    return tuple(dims)


def _output(value: Any, tree: Tree) -> Any:
    """A result array in its ONNX dtype: an unsigned output comes back as the signed
    dtype of its `i<w>` record, with the same bits."""
    dtype = tree.meta
    if (
        dtype is not None
        and isinstance(value, np.ndarray)
        and value.dtype != dtype
        and value.dtype.kind in "iu"
        and np.dtype(dtype).kind in "iu"
    ):
        return value.view(dtype)
    return value
