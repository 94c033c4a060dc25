"""JSON ↔ the values of a call (docs/serving.md, "Values as JSON"), and the JSON Schema of
a request and a result (docs/serving.md, "Schemas"), without IREE or Ray: functions as
`read_module` describes them, built here from the original call's model."""

from __future__ import annotations

import base64
import collections
import dataclasses
import types
from typing import Any

import pytest

from abi_compiler.call_model import Array, Constant, Container, NoneLeaf, OriginalCall, Unused
from abi_compiler.codecs.json_abi import decode_json
from abi_compiler.errors import AbiError
from abi_compiler.serve.schema import request_schema, result_schema
from abi_compiler.signatures.module_signatures import FunctionSignature

np = pytest.importorskip("numpy")

from abi_compiler.serve.json_values import (  # noqa: E402
    decode_array,
    encode_array,
    encode_value,
    read_request,
)

F32 = '["ndarray","f32",1,2]'
ABI = (
    f'{{"a":[["sdict",["b",{F32}],["w",{F32}]],["stuple",{F32},{F32}],{F32},'
    f'["named","mask",{F32}]],"r":[{F32}],"v":1}}'
)
# f(params: {"w", "b"}, pair: Pair(a, b), 3 (specialized), table: {0: x}, *, mask)
CALL = OriginalCall(
    positional=(
        Container("dict", (Array(1, "float32", (2,)), Array(0, "float32", (2,))), ("w", "b")),
        Container(
            "namedtuple", (Array(2, "float32", (2,)), Array(3, "float32", (2,))), ("a", "b"), "Pair"
        ),
        Constant(3, "int"),
        Container("dict", (Array(4, "float32", (2,)),), (0,)),
    ),
    keywords=(("mask", Unused("float32", (2,))),),
    result=Container("tuple", (Array(0, "float32", ("n",)), NoneLeaf())),
    labels=("params", "pair", None, "table"),
)
FUNCTION = FunctionSignature("f", decode_json(ABI), "v1", call=CALL)
RECORDS = FunctionSignature("g", decode_json(ABI), "v1")


def _bytes(array: Any) -> dict[str, Any]:
    return {
        "dtype": array.dtype.name,
        "shape": list(array.shape),
        "data": base64.b64encode(array.tobytes()).decode(),
    }


def test_a_request_becomes_the_call() -> None:
    x = np.array([1.5, -2.0], np.float32)
    request = read_request(
        {
            "args": [{"w": [1, 2], "b": _bytes(x)}, {"a": [0, 1], "b": [2, 3]}, 3, {"0": [4, 5]}],
            "kwargs": {"mask": [0, 0]},
        },
        FUNCTION,
    )
    params, pair, constant, table = request.args
    assert params["w"] == [1, 2] and params["b"].dtype == np.float32
    np.testing.assert_array_equal(params["b"], x)
    assert isinstance(pair, types.SimpleNamespace) and (pair.a, pair.b) == ([0, 1], [2, 3])
    assert constant == 3 and table == {0: [4, 5]}  # the integer key, not its string
    assert request.kwargs == {"mask": [0, 0]} and request.encoding == "lists"
    by_position = read_request({"args": [{}, [[0, 1], [2, 3]], 3, {}]}, FUNCTION)
    assert by_position.args[1] == [[0, 1], [2, 3]]  # a namedtuple by position


def test_a_request_by_the_records_alone() -> None:
    x = np.arange(2, dtype=np.float32)
    request = read_request({"args": [{"b": _bytes(x)}, [[1, 2], _bytes(x)], [0, 1]]}, RECORDS)
    np.testing.assert_array_equal(request.args[0]["b"], x)
    np.testing.assert_array_equal(request.args[1][1], x)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"args": [{"w": [1, 2], "b": {"dtype": "float32", "shape": [2], "data": "!!"}}]},
            "argument params['b']: \"data\": not base64",
        ),
        (
            {"args": [{}, {"a": {"dtype": "float32", "shape": [-1], "data": ""}, "b": 1}]},
            'argument pair.a: "shape": expected a list of sizes (integers >= 0), got [-1]',
        ),
        (
            {"args": [{}, {"a": 1, "c": 2}]},
            "argument pair: expected the fields 'a', 'b' of Pair, got keys 'a', 'c'",
        ),
        (
            {
                "args": [
                    {},
                    [[0, 1], [2, 3]],
                    3,
                    {"0": {"dtype": "float32", "shape": [1], "data": 5}},
                ]
            },
            'argument table[0]: "data": expected a base64 string, got a number',
        ),
        ({"kwargs": []}, '"kwargs": expected an object of keyword values, got an array'),
        ("text", 'expected a JSON object {"args": [...], "kwargs": {...}}, got a string'),
    ],
)
def test_a_request_that_is_not_one(body: Any, message: str) -> None:
    with pytest.raises(AbiError) as error:
        read_request(body, FUNCTION)
    assert str(error.value) == message


Point = collections.namedtuple("Point", ["x", "y"])


@dataclasses.dataclass
class State:
    step: Any
    note: Any


def test_results_as_json() -> None:
    value = (
        Point(np.float32(1.5), np.array([[1, 2]], np.int64)),
        State(np.array(True), None),
        {0: [np.float16(0.5)], "k": "text"},
        3,
    )
    assert encode_value(value) == [
        {"x": 1.5, "y": [[1, 2]]},
        {"step": True, "note": None},
        {"0": [0.5], "k": "text"},
        3,
    ]


@pytest.mark.parametrize(
    "array",
    [
        np.array([1.0, np.nan], np.float32),
        np.array([np.inf]),
        np.array([1 + 2j], np.complex64),
    ],
)
def test_what_json_numbers_cannot_hold_goes_as_bytes(array: Any) -> None:
    encoded = encode_value(array)
    assert encoded == encode_array(array)
    np.testing.assert_array_equal(decode_array(encoded), array)


def test_bytes_round_trip_every_dtype() -> None:
    for dtype in ["bool", "int8", "uint16", "int32", "uint64", "float16", "float64"]:
        array = np.arange(6).reshape(2, 3).astype(dtype)
        back = decode_array(encode_value(array, "base64"))
        assert back.dtype == array.dtype and back.shape == (2, 3)
        np.testing.assert_array_equal(back, array)


def test_the_request_schema_follows_the_call() -> None:
    schema = request_schema(FUNCTION)
    args = schema["properties"]["args"]
    assert (args["minItems"], args["maxItems"]) == (4, 5)
    params, pair, constant, table = args["prefixItems"]
    assert params["required"] == ["w", "b"] and params["additionalProperties"] is False
    w = params["properties"]["w"]
    assert w["x-dtype"] == "float32" and w["x-shape"] == [2]
    assert w["anyOf"][0] == {
        "type": "array",
        "items": {"type": "number"},
        "minItems": 2,
        "maxItems": 2,
    }
    assert w["anyOf"][1]["required"] == ["dtype", "shape", "data"]
    assert pair["title"] == "Pair" and len(pair["anyOf"]) == 2  # fields, or by position
    assert constant == {"const": 3, "description": "fixed int (specialized)"}
    assert list(table["properties"]) == ["0"]
    assert list(schema["properties"]["kwargs"]["properties"]) == ["mask"]


def test_the_result_schema_follows_the_call() -> None:
    schema = result_schema(FUNCTION)
    assert schema["prefixItems"][1] == {"type": "null"}
    assert schema["prefixItems"][0]["x-shape"] == ["n"]


def test_the_schemas_by_the_records_alone() -> None:
    schema = request_schema(RECORDS)
    prefix = schema["properties"]["args"]["prefixItems"]
    assert prefix[0]["required"] == ["b", "w"]
    assert prefix[1]["prefixItems"][0]["x-dtype"] == "float32"
    assert list(schema["properties"]["kwargs"]["properties"]) == ["mask"]
    assert result_schema(RECORDS)["x-dtype"] == "float32"


def test_an_accepted_request_validates_against_its_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    body = {
        "args": [{"w": [1, 2], "b": [3, 4]}, {"a": [0, 1], "b": [2, 3]}, 3, {"0": [4, 5]}],
        "kwargs": {"mask": [0, 0]},
    }
    read_request(body, FUNCTION)
    jsonschema.validate(body, request_schema(FUNCTION))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(
            {**body, "args": [{"w": [1, 2, 3], "b": [3, 4]}]}, request_schema(FUNCTION)
        )
