"""A TensorFlow SavedModel signature → MLIR whose function takes the signature's inputs
by name (docs/spec.md §3.4).

    from abi_compiler import iree as abi_iree
    from abi_compiler.frontends import tf as tf_frontend

    module = abi_iree.compile(Path("saved_model_dir"))          # "serving_default"
    module.serving_default(input_ids=ids, attention_mask=mask)  # {"logits": …, …}
    text = tf_frontend.to_mlir("saved_model_dir", signature="classify")

The import is `iree-import-tf`'s (IREE's `iree-tools-tf`), made in-process with the same
TensorFlow calls: the SavedModel is converted as a V1 model with the signature as its one
exported name, then lowered by TensorFlow's `tf-lower-to-mlprogram-and-hlo` pipeline to
StableHLO, with variables as `ml_program` globals. That lowering drops the saved-model
attributes, and with them the input and output names; they are read from the converted
module first (`tf_saved_model.index_path`, docs/spec.md §3.2) and written back on the lowered
function as `abi.index_path`, from which `-p iree-abi-v1` makes each input a `named` root
and the outputs one `sdict` (returned as a dict). The function is named after the
signature.

Needs TensorFlow 2.14 or newer (``pip install tensorflow-cpu``; tested with 2.21) and
IREE's compiler (``pip install 'abi-compiler[iree]'``).
"""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import Sequence
from typing import Any

try:
    from iree.compiler import ir
    from tensorflow.mlir.experimental import convert_saved_model_v1, run_pass_pipeline
except ImportError as _error:  # pragma: no cover - exercised without TensorFlow installed
    raise ImportError(
        "abi_compiler.frontends.tf needs TensorFlow 2.14 or newer and IREE's compiler: "
        "pip install tensorflow-cpu 'abi-compiler[iree]'"
    ) from _error

from abi_compiler.attribute_names import TF_EXPORTED_NAMES, TF_INDEX_PATH
from abi_compiler.call_model import Array, Container, OriginalCall
from abi_compiler.dtypes import numpy_dtype_name
from abi_compiler.errors import AbiError
from abi_compiler.frontends import Program
from abi_compiler.frontends.iree_ir import (
    find_function,
    functions,
    leaf_types,
    write_call,
    write_index_paths,
)
from abi_compiler.model import IndexPath, NDArray, Scalar

__all__ = ["program", "to_mlir"]

# What `iree-import-tf` runs after the conversion.
_LOWERING = "tf-lower-to-mlprogram-and-hlo"


def to_mlir(
    saved_model_dir: str | os.PathLike[str],
    signature: str = "serving_default",
    *,
    signatures: Sequence[str] | str | None = None,
) -> str:
    """The MLIR text of the SavedModel's ``signature`` (or of its ``signatures``, see
    `program`), its inputs and outputs named by `abi.index_path`."""
    return program(saved_model_dir, signature, signatures=signatures).mlir


def program(
    saved_model_dir: str | os.PathLike[str],
    signature: str = "serving_default",
    *,
    signatures: Sequence[str] | str | None = None,
) -> Program:
    """`to_mlir`, and the function's name (the signature's).

    ``signatures`` (a list of names, or ``"all"`` for every signature of the SavedModel)
    puts several signatures in one module, each a function named after it, sharing the
    variables (one global each); the `Program`'s function is then the first of them."""
    path = os.fspath(saved_model_dir)
    names = _signature_names(path, signature, signatures)
    _check_loading(path)
    converted = _convert(path, names)
    context = ir.Context()
    context.allow_unregistered_dialects = True  # TensorFlow's dialects
    parsed = ir.Module.parse(converted, context)
    paths = {name: _signature_paths(parsed, name) for name in names}
    # `iree-import-tf` renames the `__inference_<name>_<n>` functions it exports.
    renamed = re.sub(r"func @__inference_(.+)_[0-9]+\(", r"func @\1(", converted)
    lowered = run_pass_pipeline(renamed, _LOWERING, show_debug_info=False)
    module = ir.Module.parse(lowered, ir.Context())
    calls: dict[str, OriginalCall | None] = {}
    for name, (argument_paths, result_paths) in paths.items():
        func = find_function(module, name)
        write_index_paths(func, argument_paths, result_paths)
        call = _original_call(func, argument_paths, result_paths)
        if call is not None:
            write_call(func, call)
        calls[name] = call
    return Program(str(module), names[0], calls[names[0]])


def _original_call(
    func: Any, argument_paths: tuple[IndexPath, ...], result_paths: tuple[IndexPath, ...]
) -> OriginalCall | None:
    """The signature's call: its inputs by name (in the signature's order), its outputs
    a dict in the signature's order. None when a path is not a plain name (the records
    alone then describe the call)."""
    names = [path[0] for path in argument_paths if len(path) == 1]
    outputs = [path[0] for path in result_paths if len(path) == 1]
    if len(names) != len(argument_paths) or len(outputs) != len(result_paths):
        return None
    if not all(isinstance(name, str) for name in [*names, *outputs]):
        return None
    argument_types, result_types = leaf_types(func)
    keywords = tuple(
        (str(name), _array(index, t))
        for index, (name, t) in enumerate(zip(names, argument_types, strict=True))
    )
    # TensorFlow's order of a signature's outputs varies from process to process (it
    # follows string hashing): the call returns them sorted, the records' order too.
    types = dict(zip(map(str, outputs), result_types, strict=True))
    names_sorted = sorted(types)
    result = Container(
        "dict",
        tuple(_array(rank, types[name]) for rank, name in enumerate(names_sorted)),
        tuple(names_sorted),
    )
    return OriginalCall((), keywords, result, "tf")


def _array(index: int, t: Any) -> Array:
    if isinstance(t, NDArray) and isinstance(t.element, Scalar):
        return Array(index, numpy_dtype_name(t.element), t.dims)
    return Array(index, None, None)


def _signature_names(
    path: str, signature: str, signatures: Sequence[str] | str | None
) -> list[str]:
    if signatures is None:
        return [signature]
    if isinstance(signatures, str):
        if signatures != "all":
            raise ValueError(f"signatures must be a list of names or 'all', not {signatures!r}")
        found = _all_signatures(path)
        if not found:
            raise AbiError(f"{path}: the SavedModel has no signatures")
        return found
    names = list(signatures)
    if not names or not all(isinstance(name, str) and name for name in names):
        raise ValueError(f"signatures must be a non-empty list of names, got {signatures!r}")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(f"signatures repeat: {', '.join(repeated)}")
    return names


def _all_signatures(path: str) -> list[str]:
    """The signature names of the SavedModel's `serve` meta graph, sorted."""
    meta_graph = _serve_meta_graph(path)
    if meta_graph is None:
        return []
    return sorted(name for name in meta_graph.signature_def if not name.startswith("__"))


def _serve_meta_graph(path: str) -> Any:
    """The SavedModel's `serve` meta graph (a `MetaGraphDef`: protobuf, read as data), or
    None."""
    from tensorflow.core.protobuf import saved_model_pb2

    proto = saved_model_pb2.SavedModel()
    try:
        with open(os.path.join(path, "saved_model.pb"), "rb") as stream:
            proto.ParseFromString(stream.read())
    except (OSError, ValueError) as error:
        raise AbiError(f"{path}: cannot read the SavedModel: {error}") from None
    for meta_graph in proto.meta_graphs:
        if "serve" in meta_graph.meta_info_def.tags:
            return meta_graph
    return None


#: The stateful ops that may run while a SavedModel loads: they touch only the model's own
#: state (variables, tables, random generators, the restore from `variables/`) or call
#: functions, which are checked in turn.
_LOADING_OPS = re.compile(
    r"NoOp|VarHandleOp|VarIsInitializedOp|\w*Variable\w*|Assign\w*|ReadVariableOp"
    r"|DestroyResourceOp|DisableCopyOnRead|RestoreV2|RestoreSlice|Restore|\w*Table\w*"
    r"|\w*Random\w*|TruncatedNormal|Multinomial|RngSkip|RngReadAndSkip|Placeholder\w*"
    r"|\w*PartitionedCall|If|While|Case|StatelessIf|StatelessWhile|StatelessCase"
)


def _check_loading(path: str) -> None:
    """Refuse a SavedModel whose loading would act outside the model. TensorFlow's loader
    (`convert_saved_model_v1` creates a session) runs the meta graph's restore op and
    init op (`saver_def.restore_op_name`, `saved_model_main_op`, `legacy_init_op`,
    `__saved_model_init_op`): graph ops, no Python (a SavedModel holds no pickles, and
    `PyFunc` cannot run without the process that defined it). Those ops and every op
    they depend on or call must be stateless or in `_LOADING_OPS`: a `WriteFile`,
    `PrintV2`, `SaveV2` or `PyFunc` there is refused before TensorFlow loads anything."""
    from tensorflow.python.framework import op_def_registry

    meta_graph = _serve_meta_graph(path)
    if meta_graph is None:
        return  # TensorFlow's own error follows
    graph = meta_graph.graph_def
    nodes = {node.name: node for node in graph.node}
    library = {function.signature.name: function for function in graph.library.function}
    roots = [meta_graph.saver_def.restore_op_name]
    for key in ("saved_model_main_op", "legacy_init_op"):
        if key in meta_graph.collection_def:
            roots += meta_graph.collection_def[key].node_list.value
    if "__saved_model_init_op" in meta_graph.signature_def:
        init = meta_graph.signature_def["__saved_model_init_op"]
        roots += [tensor.name for tensor in init.outputs.values()]
    pending = [root.lstrip("^").split(":")[0] for root in roots if root]
    seen: set[str] = set()
    called: list[str] = []

    def check(node: Any, where: str) -> None:
        op_def = op_def_registry.get(node.op)
        if op_def is None or (op_def.is_stateful and not _LOADING_OPS.fullmatch(node.op)):
            raise AbiError(
                f"{path}: the SavedModel runs {node.op} ('{node.name}'{where}) when it is "
                "loaded, which could act outside the model: abi-compile runs only ops that "
                "restore and initialize the model's own variables and tables"
            )
        for value in node.attr.values():
            called.extend(
                [value.func.name] if value.HasField("func") else [f.name for f in value.list.func]
            )

    while pending:
        name = pending.pop()
        if name in seen or name not in nodes:
            continue
        seen.add(name)
        check(nodes[name], "")
        pending.extend(source.lstrip("^").split(":")[0] for source in nodes[name].input)
    done: set[str] = set()
    while called:
        function_name = called.pop()
        if function_name in done or function_name not in library:
            continue
        done.add(function_name)
        for node in library[function_name].node_def:  # a function runs all its stateful ops
            check(node, f" in function {function_name}")


def _convert(path: str, signatures: Sequence[str]) -> str:
    """TensorFlow's V1 SavedModel conversion, with the defaults `iree-import-tf` gives
    the parameters newer TensorFlow versions added."""
    parameters = inspect.signature(convert_saved_model_v1).parameters
    extra: dict[str, Any] = {}
    if "include_variables_in_initializers" in parameters:
        extra["include_variables_in_initializers"] = False
    if "upgrade_legacy" in parameters:
        extra["upgrade_legacy"] = False
    if "lift_variables" in parameters:
        extra["lift_variables"] = True
    try:
        return str(
            convert_saved_model_v1(
                path,
                exported_names=",".join(signatures),
                tags="serve",
                show_debug_info=False,
                **extra,
            )
        )
    except Exception as error:  # TensorFlow raises its own (and ValueError) types
        names = ", ".join(repr(name) for name in signatures)
        raise AbiError(f"{path}: cannot import signature {names}: {error}") from None


def _signature_paths(
    module: Any, signature: str
) -> tuple[tuple[IndexPath, ...], tuple[IndexPath, ...]]:
    """The index paths of the exported function's inputs (variables, which the lowering
    turns into globals, left out) and results."""
    for func in functions(module):
        if TF_EXPORTED_NAMES not in func.attributes:
            continue
        names = ir.ArrayAttr(func.attributes[TF_EXPORTED_NAMES])
        if signature not in [ir.StringAttr(name).value for name in names]:
            continue
        arguments = [
            _path(attrs) for attrs in _value_attrs(func, "arg_attrs") if TF_INDEX_PATH in attrs
        ]
        results = [_path(attrs) for attrs in _value_attrs(func, "res_attrs")]
        return tuple(arguments), tuple(results)
    raise AbiError(f"the SavedModel has no signature {signature!r}")


def _value_attrs(func: Any, name: str) -> list[Any]:
    if name not in func.attributes:
        return []
    return [ir.DictAttr(attrs) for attrs in ir.ArrayAttr(func.attributes[name])]


def _path(attrs: Any) -> IndexPath:
    components: list[int | str] = []
    for component in ir.ArrayAttr(attrs[TF_INDEX_PATH]):
        if isinstance(component, ir.StringAttr):
            components.append(component.value)
        else:
            components.append(ir.IntegerAttr(component).value)
    return tuple(components)
