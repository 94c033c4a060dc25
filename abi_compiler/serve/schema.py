"""JSON Schema of a compiled function's request and result, from the facts `abi-sig show`
and `abi-sig stub` print (`read_module`'s `FunctionSignature`: the original call
`abi.call`, else the `iree.abi` records), and the OpenAPI document of a served module
(docs/serving.md, "Schemas"). Pure: no numpy, no IREE."""

from __future__ import annotations

from typing import Any

from abi_compiler.call_model import Array, CallNode, Constant, NoneLeaf, Unused
from abi_compiler.dtypes import ELEMENT_TYPES, int_range, numpy_dtype_name
from abi_compiler.model import Dict, Leaf, ListRef, NDArray, Node, Scalar, Sequence, ValueType
from abi_compiler.signatures.module_signatures import FunctionSignature

__all__ = ["function_schemas", "openapi_document", "request_schema", "result_schema"]

JSON = dict[str, Any]

_SCALARS = {t.numpy: t.scalar for t in ELEMENT_TYPES.values()}


def request_schema(function: FunctionSignature) -> JSON:
    """The schema of ``POST /v1/functions/<name>``'s body."""
    call = function.call
    if call is not None:
        positional = [_call_node(node, "argument") for node in call.positional]
        keywords = {name: _call_node(node, "argument") for name, node in call.keywords}
    else:
        arguments = function.signature.arguments
        untyped = function.source == "type"
        positional = [{} if untyped else _record(a.node) for a in arguments if a.name is None]
        keywords = {a.name: _record(a.node) for a in arguments if a.name is not None}
    args: JSON = {"type": "array", "minItems": len(positional)}
    if positional:
        args["prefixItems"] = positional
    args["maxItems"] = len(positional) + len(keywords)
    return {
        "type": "object",
        "properties": {
            "args": args,
            "kwargs": {
                "type": "object",
                "properties": keywords,
                "additionalProperties": False,
            },
            "encoding": {"enum": ["lists", "base64"], "default": "lists"},
        },
        "additionalProperties": False,
    }


def result_schema(function: FunctionSignature) -> JSON:
    """The schema of a call's JSON result (`json_values.encode_value`)."""
    call = function.call
    if call is not None:
        return _call_node(call.result, "result")
    results = function.signature.results
    if function.signature.inlined_result or len(results) == 1:
        return _record(results[0])
    if not results:
        return {"type": "null"}
    return _tuple([_record(node) for node in results])


def function_schemas(function: FunctionSignature) -> JSON:
    """What ``GET /v1/functions`` says of one function."""
    return {
        "name": function.name,
        "declaration": function.line(),
        "request": request_schema(function),
        "result": result_schema(function),
    }


def openapi_document(title: str, functions: list[FunctionSignature]) -> JSON:
    """The OpenAPI 3.1 document of a served module: one path per function."""
    error = {
        "description": "the error",
        "content": {
            "application/json": {
                "schema": {"type": "object", "properties": {"error": {"type": "string"}}}
            }
        },
    }
    paths: JSON = {
        "/v1/functions": {
            "get": {
                "summary": "The functions with the schemas of their requests and results",
                "responses": {"200": {"description": "the functions"}},
            }
        }
    }
    for function in functions:
        paths[f"/v1/functions/{function.name}"] = {
            "post": {
                "summary": f"{function.line()}",
                "operationId": f"call_{function.name}",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": request_schema(function)}},
                },
                "responses": {
                    "200": {
                        "description": "the result",
                        "content": {"application/json": {"schema": result_schema(function)}},
                    },
                    "400": error,
                    "413": error,
                    "500": error,
                },
            }
        }
    return {"openapi": "3.1.0", "info": {"title": title, "version": "1"}, "paths": paths}


def _call_node(node: CallNode, side: str) -> JSON:
    if isinstance(node, (Array, Unused)):
        return _array(node.dtype, node.dims)
    if isinstance(node, NoneLeaf):
        return {"type": "null"}
    if isinstance(node, Constant):
        if node.text is None:
            return {"const": node.value, "description": f"fixed {node.type} (specialized)"}
        return {"description": f"fixed {node.type}: {node.text}"}
    children = [_call_node(child, side) for child in node.children]
    keys = [str(key) for key in node.keys]
    if node.kind == "model_output":
        held = [
            (k, c)
            for k, c, n in zip(keys, children, node.children, strict=True)
            if not isinstance(n, NoneLeaf)
        ]
        return _object([k for k, _ in held], [c for _, c in held], node.name)
    if node.kind == "dict" or (keys and node.kind != "tuple"):
        fields = _object(keys, children, node.name)
        if node.kind == "namedtuple" and side == "argument":
            return {"anyOf": [fields, _tuple(children)], "title": node.name}
        return fields
    return _tuple(children)


def _record(node: Node | None) -> JSON:
    if node is None:
        return {"type": "null"}
    if isinstance(node, Leaf):
        return _value_type(node.type)
    if isinstance(node, Sequence):
        return _tuple([_record(item) for item in node.items])
    if isinstance(node, Dict):
        return _object([k for k, _ in node.items], [_record(c) for _, c in node.items], None)
    return {}


def _value_type(value: ValueType | None) -> JSON:
    if isinstance(value, Scalar):
        return _element(numpy_dtype_name(value) if value in ELEMENT_TYPES else None)
    if isinstance(value, NDArray):
        element = value.element
        dtype = (
            numpy_dtype_name(element)
            if isinstance(element, Scalar) and element in ELEMENT_TYPES
            else None
        )
        return _array(dtype, value.dims)
    if isinstance(value, ListRef):
        return {"type": "array", "items": _value_type(value.element)}
    return {}


def _tuple(children: list[JSON]) -> JSON:
    schema: JSON = {"type": "array", "minItems": len(children), "maxItems": len(children)}
    if children:
        schema["prefixItems"] = children
    return schema


def _object(keys: list[str], children: list[JSON], title: str | None) -> JSON:
    schema: JSON = {
        "type": "object",
        "properties": dict(zip(keys, children, strict=True)),
        "required": keys,
        "additionalProperties": False,
    }
    if title is not None:
        schema["title"] = title
    return schema


def _element(dtype: str | None) -> JSON:
    scalar = _SCALARS.get(dtype) if dtype is not None else None
    if dtype == "bool":
        return {"type": "boolean"}
    if scalar is not None and scalar.kind in ("i", "si", "ui"):
        low, high = int_range(scalar)
        return {"type": "integer", "minimum": low, "maximum": high}
    return {"type": "number"}


def _array(dtype: str | None, dims: tuple[Any, ...] | None) -> JSON:
    """An array: nested lists of its elements, or its bytes (`json_values.decode_array`)."""
    nested = _element(dtype)
    for dim in reversed(dims or ()):
        nested = {"type": "array", "items": nested}
        if isinstance(dim, int):
            nested["minItems"] = nested["maxItems"] = dim
    if dims is None:
        nested = {}
    as_bytes: JSON = {
        "type": "object",
        "properties": {
            "dtype": {"const": dtype} if dtype is not None else {"type": "string"},
            "shape": {"type": "array", "items": {"type": "integer", "minimum": 0}},
            "data": {"type": "string", "contentEncoding": "base64"},
        },
        "required": ["dtype", "shape", "data"],
        "additionalProperties": False,
    }
    schema: JSON = {"anyOf": [nested, as_bytes]}
    if dtype is not None:
        schema["x-dtype"] = dtype
    if dims is not None:
        schema["x-shape"] = [
            d if isinstance(d, int) else (d if isinstance(d, str) else None) for d in dims
        ]
    return schema
