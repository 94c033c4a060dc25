"""The Open Inference Protocol (KServe v2, as Triton speaks it) for a compiled function
(docs/serving.md, "Open Inference Protocol"): each function is a model; each array of
its original call (`abi.call`, else its `iree.abi` records) is a named tensor, named by
its path (``x``, ``state.params['w']``, ``0[1]`` for an unnamed positional argument;
results ``logits``, ``0``, ``1['z']``, or ``result`` for a lone array). An infer
request's tensors are put back into the call's structure; the result's arrays are its
output tensors. Tensor data is JSON (flat, row-major) or the binary extension's bytes
(``binary_data_size``, ``Inference-Header-Content-Length``)."""

from __future__ import annotations

import json
import math
import types
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from abi_compiler.call_model import Array, CallNode, Constant, Container, NoneLeaf, Unused
from abi_compiler.calling.mismatch import Field, format_path
from abi_compiler.calling.original_call import path_component
from abi_compiler.dtypes import ELEMENT_TYPES, numpy_dtype_name
from abi_compiler.errors import AbiError
from abi_compiler.model import Dict, IndexPathComponent, Leaf, NDArray, Node, Scalar, Sequence
from abi_compiler.serve.json_values import decode_array
from abi_compiler.signatures.module_signatures import FunctionSignature

__all__ = ["DATATYPES", "Tensor", "infer", "model_metadata", "read_infer_request"]

#: numpy dtype name → the protocol's datatype.
DATATYPES = {
    "bool": "BOOL",
    **{f"uint{w}": f"UINT{w}" for w in (8, 16, 32, 64)},
    **{f"int{w}": f"INT{w}" for w in (8, 16, 32, 64)},
    "float16": "FP16",
    "float32": "FP32",
    "float64": "FP64",
    "bfloat16": "BF16",
}
_DTYPES = {datatype: name for name, datatype in DATATYPES.items()}


@dataclass(frozen=True)
class Tensor:
    """One tensor of a model's metadata: its name (path), datatype and shape (-1:
    dynamic)."""

    name: str
    datatype: str
    shape: list[int]
    node: Any = None

    def metadata(self) -> dict[str, Any]:
        return {"name": self.name, "datatype": self.datatype, "shape": self.shape}


def _result_name(path: list[IndexPathComponent]) -> str:
    """An output's name: ``result`` for a lone array, else its path from the result's
    first key, written bare (``logits``, ``0``, ``1['z']``)."""
    return _root_name(path[0], path[1:]) if path else "result"


def _root_name(first: IndexPathComponent, rest: list[IndexPathComponent]) -> str:
    """A tensor's name: its path as the errors write it, without the side."""
    text = format_path("", 0, rest)[2:]  # the rest of the path, without a root
    return f"{first}{text}"


def _tensor(name: str, dtype: str | None, dims: Any, node: Any) -> Tensor:
    datatype = DATATYPES.get(dtype or "", "BYTES")
    shape = [d if isinstance(d, int) else -1 for d in dims] if dims is not None else [-1]
    return Tensor(name, datatype, shape, node)


def _call_leaves(
    node: CallNode, path: list[IndexPathComponent]
) -> Iterator[tuple[list[IndexPathComponent], CallNode]]:
    if isinstance(node, Container):
        for position, child in enumerate(node.children):
            yield from _call_leaves(child, [*path, path_component(node, position)])
    elif isinstance(node, (Array, Unused)):
        yield path, node


def _record_leaves(
    node: Node | None, path: list[IndexPathComponent]
) -> Iterator[tuple[list[IndexPathComponent], Leaf]]:
    if isinstance(node, Leaf):
        yield path, node
    elif isinstance(node, Sequence):
        for position, item in enumerate(node.items):
            yield from _record_leaves(item, [*path, position])
    elif isinstance(node, Dict):
        for key, item in node.items:
            yield from _record_leaves(item, [*path, key])


def _record_dtype(leaf: Leaf) -> tuple[str | None, Any]:
    value = leaf.type
    if isinstance(value, NDArray):
        element = value.element
        if isinstance(element, Scalar) and element in ELEMENT_TYPES:
            return numpy_dtype_name(element), value.dims
        return None, value.dims
    if isinstance(value, Scalar) and value in ELEMENT_TYPES:
        return numpy_dtype_name(value), ()
    return None, None


def inputs(function: FunctionSignature) -> list[Tensor]:
    """The model's input tensors, in call order."""
    call = function.call
    found = []
    if call is not None:
        labels = call.labels or (None,) * len(call.positional)
        roots: list[tuple[IndexPathComponent, CallNode]] = [
            (label if label is not None else position, node)
            for position, (label, node) in enumerate(zip(labels, call.positional, strict=True))
        ]
        roots += list(call.keywords)
        for root, node in roots:
            for path, leaf in _call_leaves(node, []):
                assert isinstance(leaf, (Array, Unused))
                found.append(_tensor(_root_name(root, path), leaf.dtype, leaf.dims, leaf))
        return found
    position = 0
    for argument in function.signature.arguments:
        label: IndexPathComponent = argument.name if argument.name is not None else position
        position += argument.name is None
        for where, record in _record_leaves(argument.node, []):
            dtype, dims = _record_dtype(record)
            found.append(_tensor(_root_name(label, where), dtype, dims, record))
    return found


def outputs(function: FunctionSignature) -> list[Tensor]:
    """The model's output tensors, in the result's order."""
    call = function.call
    if call is not None:
        return [
            _tensor(_result_name(path), leaf.dtype, leaf.dims, leaf)
            for path, leaf in _call_leaves(call.result, [])
            if isinstance(leaf, (Array, Unused))
        ]
    found = []
    for path, leaf in _result_record_leaves(function):
        dtype, dims = _record_dtype(leaf)
        found.append(_tensor(_result_name(path), dtype, dims, leaf))
    return found


def _result_record_leaves(
    function: FunctionSignature,
) -> Iterator[tuple[list[IndexPathComponent], Leaf]]:
    results = function.signature.results
    if function.signature.inlined_result or len(results) == 1:
        yield from _record_leaves(results[0], [])
    else:
        for position, node in enumerate(results):
            yield from _record_leaves(node, [position])


def model_metadata(function: FunctionSignature, platform: str) -> dict[str, Any]:
    """``GET /v2/models/<name>``."""
    return {
        "name": function.name,
        "versions": ["1"],
        "platform": platform,
        "inputs": [t.metadata() for t in inputs(function)],
        "outputs": [t.metadata() for t in outputs(function)],
    }


@dataclass(frozen=True)
class InferRequest:
    """An infer request read: the call's values, and which outputs are wanted (all when
    empty) with whether each goes back as bytes."""

    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    request_id: str | None
    wanted: dict[str, bool]
    binary_default: bool


def read_infer_request(
    body: bytes, header_length: int | None, function: FunctionSignature
) -> InferRequest:
    """An infer request (JSON, or the binary extension's JSON header of ``header_length``
    bytes followed by the tensors' bytes) as the function's call; an `AbiError` for a
    malformed one."""
    header = body if header_length is None else body[:header_length]
    if header_length is not None and not 0 <= header_length <= len(body):
        raise AbiError(f"Inference-Header-Content-Length {header_length} is not within the body")
    try:
        request = json.loads(header)
    except (ValueError, UnicodeDecodeError):
        raise AbiError("malformed JSON in the request") from None
    if not isinstance(request, dict) or not isinstance(request.get("inputs"), list):
        raise AbiError('expected a JSON object with "inputs": [...]')
    binary = memoryview(body)[len(header) :]
    given: dict[str, Any] = {}
    for item in request["inputs"]:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise AbiError('each of "inputs" must be an object with a "name"')
        name = item["name"]
        if name in given:
            raise AbiError(f"input {name!r} given twice")
        array, used = _input_array(item, binary)
        binary = binary[used:]
        given[name] = array
    if len(binary):
        raise AbiError(f"{len(binary)} bytes after the last binary input")
    tensors = inputs(function)
    known = {t.name for t in tensors}
    for name in given:
        if name not in known:
            raise AbiError(
                f"unknown input {name!r} (the inputs of {function.name}: "
                f"{', '.join(sorted(known)) or 'none'})"
            )
    for tensor in tensors:
        if tensor.name not in given:
            raise AbiError(f"input {tensor.name!r}: missing")
    args, kwargs = _call_values(function, given)
    wanted: dict[str, bool] = {}
    parameters = request.get("parameters") or {}
    binary_default = bool(isinstance(parameters, dict) and parameters.get("binary_data_output"))
    for item in request.get("outputs") or []:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise AbiError('each of "outputs" must be an object with a "name"')
        options = item.get("parameters") or {}
        wanted[item["name"]] = bool(
            options.get("binary_data", binary_default) if isinstance(options, dict) else False
        )
    names = {t.name for t in outputs(function)}
    for name in wanted:
        if name not in names:
            raise AbiError(f"unknown output {name!r} (the outputs: {', '.join(sorted(names))})")
    request_id = request.get("id")
    return InferRequest(
        args, kwargs, request_id if isinstance(request_id, str) else None, wanted, binary_default
    )


def _input_array(item: dict[str, Any], binary: memoryview) -> tuple[Any, int]:
    name, datatype, shape = item["name"], item.get("datatype"), item.get("shape")
    if datatype not in _DTYPES:
        raise AbiError(
            f"input {name!r}: datatype {datatype!r} is not one of {', '.join(sorted(_DTYPES))}"
        )
    if not isinstance(shape, list) or not all(
        isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape
    ):
        raise AbiError(f"input {name!r}: expected a shape of sizes (integers >= 0), got {shape!r}")
    dtype = _DTYPES[datatype]
    parameters = item.get("parameters") or {}
    size = parameters.get("binary_data_size") if isinstance(parameters, dict) else None
    if size is not None:
        if not isinstance(size, int) or not 0 <= size <= len(binary):
            raise AbiError(f"input {name!r}: binary_data_size {size!r} is not within the body")
        import base64

        form = {"dtype": dtype, "shape": shape, "data": base64.b64encode(binary[:size]).decode()}
        try:
            return decode_array(form), size
        except Exception as error:
            raise AbiError(f"input {name!r}: {getattr(error, 'message', error)}") from None
    data = item.get("data")
    if not isinstance(data, list):
        raise AbiError(f'input {name!r}: expected "data" (a list of the elements)')
    flat = np.asarray(data).reshape(-1) if data else np.zeros(0)
    if flat.dtype.kind not in "biuf":
        raise AbiError(f'input {name!r}: expected numbers in "data"')
    if flat.size != math.prod(shape):
        raise AbiError(
            f"input {name!r}: {flat.size} elements, its shape {shape} takes {math.prod(shape)}"
        )
    return _typed(flat, dtype, name).reshape(shape), 0


def _typed(flat: Any, dtype: str, name: str) -> Any:
    if dtype == "bfloat16":
        import ml_dtypes

        return flat.astype(ml_dtypes.bfloat16)
    typed = flat.astype(dtype)
    if flat.dtype.kind == "f" and np.dtype(dtype).kind in "iu" and not np.array_equal(typed, flat):
        raise AbiError(f"input {name!r}: {dtype} data holds a number that is not an integer")
    return typed


def _call_values(
    function: FunctionSignature, given: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    call = function.call
    if call is not None:
        labels = call.labels or (None,) * len(call.positional)
        args = tuple(
            _build(node, label if label is not None else position, [], given)
            for position, (label, node) in enumerate(zip(labels, call.positional, strict=True))
        )
        kwargs = {name: _build(node, name, [], given) for name, node in call.keywords}
        return args, kwargs
    positional: list[Any] = []
    named: dict[str, Any] = {}
    for argument in function.signature.arguments:
        if argument.name is None:
            positional.append(_build_record(argument.node, len(positional), [], given))
        else:
            named[argument.name] = _build_record(argument.node, argument.name, [], given)
    return tuple(positional), named


def _build(
    node: CallNode, root: IndexPathComponent, path: list[IndexPathComponent], given: dict[str, Any]
) -> Any:
    if isinstance(node, (Array, Unused)):
        return given[_root_name(root, path)]
    if isinstance(node, NoneLeaf):
        return None
    if isinstance(node, Constant):
        return node.value
    children = [
        _build(child, root, [*path, path_component(node, position)], given)
        for position, child in enumerate(node.children)
    ]
    if node.kind in ("dict", "model_output"):
        return {
            key: child
            for key, child, n in zip(node.keys, children, node.children, strict=True)
            if node.kind == "dict" or not isinstance(n, NoneLeaf)
        }
    if node.keys and node.kind != "tuple":
        return types.SimpleNamespace(**dict(zip(map(str, node.keys), children, strict=True)))
    return children


def _build_record(
    node: Node | None,
    root: IndexPathComponent,
    path: list[IndexPathComponent],
    given: dict[str, Any],
) -> Any:
    if isinstance(node, Leaf):
        return given[_root_name(root, path)]
    if isinstance(node, Sequence):
        return [_build_record(item, root, [*path, i], given) for i, item in enumerate(node.items)]
    if isinstance(node, Dict):
        return {key: _build_record(item, root, [*path, key], given) for key, item in node.items}
    return None


def infer(
    function: FunctionSignature, request: InferRequest, result: Any
) -> tuple[dict[str, Any], bytes]:
    """The infer response of ``result`` (the call's value): its JSON, and the bytes of
    the outputs asked for as binary data (appended after the JSON)."""
    found = []
    tail = bytearray()
    for tensor in outputs(function):
        if request.wanted and tensor.name not in request.wanted:
            continue
        value = _output_value(function, tensor, result)
        if value is None:
            continue
        array = np.asarray(value)
        datatype = DATATYPES.get(array.dtype.name)
        if datatype is None:
            raise AbiError(
                f"output {tensor.name!r}: dtype {array.dtype.name} has no datatype in the protocol"
            )
        item: dict[str, Any] = {
            "name": tensor.name,
            "datatype": datatype,
            "shape": list(array.shape),
        }
        if request.wanted.get(tensor.name, request.binary_default):
            data = np.ascontiguousarray(array).tobytes()
            item["parameters"] = {"binary_data_size": len(data)}
            tail += data
        else:
            shown = (
                array.astype(np.float32) if array.dtype.name in ("bfloat16", "float16") else array
            )
            values = shown.reshape(-1).tolist()
            if any(isinstance(v, float) and not math.isfinite(v) for v in values):
                raise AbiError(
                    f"output {tensor.name!r} holds NaN or infinity, which JSON cannot: ask for "
                    "it as binary data"
                )
            item["data"] = values
        found.append(item)
    response: dict[str, Any] = {"model_name": function.name, "model_version": "1", "outputs": found}
    if request.request_id is not None:
        response["id"] = request.request_id
    return response, bytes(tail)


def _output_value(function: FunctionSignature, tensor: Tensor, result: Any) -> Any:
    """The value of output ``tensor`` in the call's ``result`` (None: a None leaf)."""
    call = function.call
    if call is not None:
        return _pick(call.result, result, [], tensor.name)
    for path, _ in _result_record_leaves(function):
        if _result_name(path) == tensor.name:
            value = result
            for key in path:
                if value is None:
                    return None
                value = value[key]
            return value
    return None  # pragma: no cover - the names are the result's


def _pick(node: CallNode, value: Any, path: list[IndexPathComponent], name: str) -> Any:
    if isinstance(node, (Array, Unused)):
        return value if _result_name(path) == name else None
    if not isinstance(node, Container) or value is None:
        return None
    for position, child in enumerate(node.children):
        key = path_component(node, position)
        if isinstance(key, Field):
            item = getattr(value, str(key), None)
        elif node.kind == "model_output":
            item = value.get(key) if hasattr(value, "get") else getattr(value, str(key), None)
        else:
            item = value[key]
        found = _pick(child, item, [*path, key], name)
        if found is not None:
            return found
    return None
