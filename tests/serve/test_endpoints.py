"""The HTTP API of a served module without Ray (docs/serving.md): `ModuleEndpoints` over a
module compiled here — JSON ↔ the original call, answers equal to the direct call, every
bad request's status and message, a fault inside the module (500) after which it goes on
serving, the body limit (`read_body`), and the Open Inference Protocol."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.calling.conftest import needs_iree

needs_iree()

import numpy as np  # noqa: E402

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.serve.endpoints import (  # noqa: E402
    BodyTooLarge,
    ModuleEndpoints,
    Response,
    read_body,
)
from abi_compiler.serve.json_values import encode_value  # noqa: E402
from tests.serve.helpers import compiled, direct_result, structured_request  # noqa: E402


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleEndpoints, Any]:
    path, functions = compiled(tmp_path_factory.mktemp("serve"))
    module = abi_iree.load(path, results="numpy", mmap=True)
    return ModuleEndpoints(module, functions, "model"), module


def post(endpoints: ModuleEndpoints, path: str, body: Any) -> Response:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return endpoints.handle("POST", path, data)


def test_every_answer_equals_the_direct_call(served: tuple[ModuleEndpoints, Any]) -> None:
    endpoints, module = served
    for step, rows, scale in [(5, 3, 0.5), (0, 1, 2.0), (-7, 8, -1.25)]:
        request = structured_request(step, rows, scale)
        response = post(endpoints, "/v1/functions/main", request)
        assert response.status == 200, response.body
        expected = encode_value(direct_result(module, request))
        assert response.json() == {"result": expected}
    state = post(endpoints, "/v1/functions/main", structured_request(5, 3, 0.5)).json()
    assert state["result"] == [
        {"step": 6, "params": {"w": [1.0, 5.0], "b": [3.0, 4.0]}},
        {"z": [[2.5, 3.0], [3.5, 4.0], [4.5, 5.0]], "a": None},
    ]


def test_arrays_as_bytes_both_ways(served: tuple[ModuleEndpoints, Any]) -> None:
    endpoints, _ = served
    request = structured_request(1, 2, 1.0)
    x = np.array([[1.5, -2], [0.25, 8]], np.float32)
    request["args"][3] = {
        "dtype": "float32",
        "shape": [2, 2],
        "data": base64.b64encode(x.tobytes()).decode(),
    }
    request["encoding"] = "base64"
    result = post(endpoints, "/v1/functions/main", request).json()["result"]
    z = result[1]["z"]
    assert z["dtype"] == "float32" and z["shape"] == [2, 2]
    np.testing.assert_array_equal(
        np.frombuffer(base64.b64decode(z["data"]), np.float32).reshape(2, 2), x
    )
    assert result[0]["step"] == {"dtype": "int32", "shape": [], "data": "AgAAAA=="}


def _bad(request: dict[str, Any], *path: Any, value: Any) -> dict[str, Any]:
    target: Any = request
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return request


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (
            _bad(structured_request(1, 2, 1.0), "args", 0, "params", "w", value=[1.0, 2.0, 3.0]),
            400,
            "argument state.params['w']: expected float32[2], got lists of shape [3]",
        ),
        (
            _bad(structured_request(1, 2, 1.0), "args", 0, "params", value={"w": [1.0, 2.0]}),
            400,
            "argument state.params: expected a dict with keys ['b', 'w'], got keys ['w']",
        ),
        (
            _bad(structured_request(1, 2, 1.0), "args", 0, value={"step": 1}),
            400,
            "argument state: expected the fields 'step', 'params' of State, got keys 'step'",
        ),
        (
            _bad(
                structured_request(1, 2, 1.0),
                "args",
                3,
                value={
                    "dtype": "int32",
                    "shape": [2, 2],
                    "data": base64.b64encode(bytes(16)).decode(),
                },
            ),
            400,
            "argument x: expected float32[?,2], got int32[2,2]",
        ),
        (
            _bad(
                structured_request(1, 2, 1.0),
                "args",
                3,
                value={"dtype": "float32", "shape": [2, 2], "data": "AAAA"},
            ),
            400,
            'argument x: "data": 3 bytes, the shape [2, 2] of float32 takes 16',
        ),
        (
            _bad(
                structured_request(1, 2, 1.0),
                "args",
                3,
                value={"dtype": "object", "shape": [1], "data": ""},
            ),
            400,
            'argument x: "dtype": expected one of ',
        ),
        (
            _bad(structured_request(1, 2, 1.0), "args", 2, value=3),
            400,
            "argument 2: expected 2 (the value the program was exported with), got 3",
        ),
        (
            _bad(structured_request(1, 2, 1.0), "kwargs", value={}),
            400,
            "argument 'scale': missing value",
        ),
        (
            _bad(structured_request(1, 2, 1.0), "kwargs", "bias", value=1.0),
            400,
            "argument 'bias': unexpected keyword argument (keywords: 'scale')",
        ),
        ({"args": [], "options": 1}, 400, "unknown member 'options' in the request"),
        ({"args": {}}, 400, '"args": expected an array of the positional values, got an object'),
        ([1, 2], 400, 'expected a JSON object {"args": [...], "kwargs": {...}}, got an array'),
        (
            {**structured_request(1, 2, 1.0), "encoding": "hex"},
            400,
            '"encoding": expected "lists" or "base64", got \'hex\'',
        ),
        (b"{not json", 400, "malformed JSON in the request: "),
        (b"\xff\xfe", 400, "malformed JSON in the request: "),
    ],
)
def test_a_bad_request_is_400_with_the_path(
    served: tuple[ModuleEndpoints, Any], body: Any, status: int, message: str
) -> None:
    endpoints, _ = served
    response = post(endpoints, "/v1/functions/main", body)
    assert response.status == status
    assert response.json()["error"].startswith(message), response.json()["error"]
    # the module goes on serving
    assert post(endpoints, "/v1/functions/checked", {"args": [1]}).json() == {"result": 2}


def test_unknown_functions_and_routes(served: tuple[ModuleEndpoints, Any]) -> None:
    endpoints, _ = served
    response = post(endpoints, "/v1/functions/nope", {"args": []})
    assert (response.status, response.json()) == (
        404,
        {"error": "module 'model' serves no function 'nope' (its functions: main, checked)"},
    )
    assert endpoints.handle("GET", "/v1/nothing", b"").status == 404
    wrong = endpoints.handle("GET", "/v1/functions/main", b"")
    assert (wrong.status, wrong.headers) == (405, {"Allow": "POST"})
    assert endpoints.handle("GET", "/v2/models/nope", b"").status == 404


def test_a_fault_in_the_module_is_500_and_the_module_goes_on(
    served: tuple[ModuleEndpoints, Any],
) -> None:
    endpoints, _ = served
    response = post(endpoints, "/v1/functions/checked", {"args": [-1]})
    assert response.status == 500
    assert response.json()["error"].startswith("the module failed in @checked: ")
    assert "x must not be negative" in response.json()["error"]
    assert post(endpoints, "/v1/functions/checked", {"args": [41]}).json() == {"result": 42}


def test_the_listing_and_openapi_page(served: tuple[ModuleEndpoints, Any]) -> None:
    endpoints, _ = served
    listing = endpoints.handle("GET", "/v1/functions", b"").json()
    assert [f["name"] for f in listing["functions"]] == ["main", "checked"]
    checked = listing["functions"][1]
    assert checked["request"]["properties"]["args"]["prefixItems"][0]["x-dtype"] == "int32"
    document = endpoints.handle("GET", "/openapi.json", b"").json()
    assert sorted(document["paths"]) == [
        "/v1/functions",
        "/v1/functions/checked",
        "/v1/functions/main",
        "/v2/models/{name}",
        "/v2/models/{name}/infer",
    ]
    post_main = document["paths"]["/v1/functions/main"]["post"]
    assert (
        post_main["requestBody"]["content"]["application/json"]["schema"]
        == (listing["functions"][0]["request"])
    )
    page = endpoints.handle("GET", "/docs", b"")
    assert page.content_type == "text/html" and b"./openapi.json" in page.body  # type: ignore[operator]


def _chunks(sizes: list[int], taken: list[int]) -> AsyncIterator[bytes]:
    async def chunks() -> AsyncIterator[bytes]:
        for size in sizes:
            taken.append(size)
            yield b"x" * size

    return chunks()


def test_read_body_refuses_a_large_body_unread() -> None:
    taken: list[int] = []
    with pytest.raises(BodyTooLarge):
        asyncio.run(read_body(_chunks([10] * 100, taken), str(2**30), 100))
    assert taken == []  # the declared length is enough
    with pytest.raises(BodyTooLarge):
        asyncio.run(read_body(_chunks([40] * 100, taken), None, 100))
    assert taken == [40, 40, 40]  # (no length: read up to the limit, not further)
    assert asyncio.run(read_body(_chunks([40, 60], []), "100", 100)) == b"x" * 100


# -- the Open Inference Protocol ---------------------------------------------------------

INPUTS = [
    {"name": "state.step", "datatype": "INT32", "shape": [], "data": [5]},
    {"name": "state.params['w']", "datatype": "FP32", "shape": [2], "data": [1, 2]},
    {"name": "state.params['b']", "datatype": "FP32", "shape": [2], "data": [3, 4]},
    {"name": "x", "datatype": "FP32", "shape": [3, 2], "data": [0, 1, 2, 3, 4, 5]},
    {"name": "4", "datatype": "FP32", "shape": [4], "data": [0, 0, 0, 0]},
    {"name": "scale", "datatype": "FP32", "shape": [], "data": [0.5]},
]


def test_model_metadata_names_each_leaf_by_its_path(served: tuple[ModuleEndpoints, Any]) -> None:
    endpoints, _ = served
    metadata = endpoints.handle("GET", "/v2/models/main", b"").json()
    assert metadata["inputs"] == [
        {"name": "state.step", "datatype": "INT32", "shape": []},
        {"name": "state.params['w']", "datatype": "FP32", "shape": [2]},
        {"name": "state.params['b']", "datatype": "FP32", "shape": [2]},
        {"name": "x", "datatype": "FP32", "shape": [-1, 2]},
        {"name": "4", "datatype": "FP32", "shape": [4]},
        {"name": "scale", "datatype": "FP32", "shape": []},
    ]
    assert [o["name"] for o in metadata["outputs"]] == [
        "0.step",
        "0.params['w']",
        "0.params['b']",
        "1['z']",
    ]
    assert endpoints.handle("GET", "/v2/models/main/ready", b"").json() == {"ready": True}


def test_infer_equals_the_direct_call(served: tuple[ModuleEndpoints, Any]) -> None:
    endpoints, _ = served
    response = post(endpoints, "/v2/models/main/infer", {"id": "7", "inputs": INPUTS})
    assert response.status == 200, response.body
    assert response.json() == {
        "model_name": "main",
        "model_version": "1",
        "id": "7",
        "outputs": [
            {"name": "0.step", "datatype": "INT32", "shape": [], "data": [6]},
            {"name": "0.params['w']", "datatype": "FP32", "shape": [2], "data": [1.0, 2.0]},
            {"name": "0.params['b']", "datatype": "FP32", "shape": [2], "data": [3.0, 4.0]},
            {
                "name": "1['z']",
                "datatype": "FP32",
                "shape": [3, 2],
                "data": [0.0, 0.5, 1.0, 1.5, 2.0, 2.5],
            },
        ],
    }


def test_infer_with_binary_tensors(served: tuple[ModuleEndpoints, Any]) -> None:
    endpoints, _ = served
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    inputs = [dict(item) for item in INPUTS]
    inputs[3] = {
        "name": "x",
        "datatype": "FP32",
        "shape": [3, 2],
        "parameters": {"binary_data_size": 24},
    }
    outputs = [{"name": "1['z']", "parameters": {"binary_data": True}}]
    header = json.dumps({"inputs": inputs, "outputs": outputs}).encode()
    response = endpoints.handle(
        "POST",
        "/v2/models/main/infer",
        header + x.tobytes(),
        {"inference-header-content-length": str(len(header))},
    )
    assert response.status == 200, response.body
    assert isinstance(response.body, bytes)
    length = int(response.headers["Inference-Header-Content-Length"])
    head = json.loads(response.body[:length])
    assert head["outputs"] == [
        {
            "name": "1['z']",
            "datatype": "FP32",
            "shape": [3, 2],
            "parameters": {"binary_data_size": 24},
        }
    ]
    np.testing.assert_array_equal(
        np.frombuffer(response.body[length:], np.float32), x.reshape(-1) / 2
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda inputs: inputs[:-1], "input 'scale': missing"),
        (
            lambda inputs: [*inputs, {**inputs[0], "name": "y"}],
            "unknown input 'y' (the inputs of main: ",
        ),
        (
            lambda inputs: [{**inputs[0], "datatype": "FP8"}, *inputs[1:]],
            "input 'state.step': datatype 'FP8' is not one of ",
        ),
        (
            lambda inputs: [*inputs[:3], {**inputs[3], "shape": [2, 2]}, *inputs[4:]],
            "input 'x': 6 elements, its shape [2, 2] takes 4",
        ),
        (
            lambda inputs: [*inputs[:3], {**inputs[3], "datatype": "INT32"}, *inputs[4:]],
            "argument x: expected float32[?,2], got int32[3,2]",
        ),
        (lambda inputs: [inputs[0], *inputs], "input 'state.step' given twice"),
    ],
)
def test_a_bad_infer_request_is_400(
    served: tuple[ModuleEndpoints, Any], change: Any, message: str
) -> None:
    endpoints, _ = served
    response = post(endpoints, "/v2/models/main/infer", {"inputs": change(INPUTS)})
    assert response.status == 400
    assert response.json()["error"].startswith(message), response.json()["error"]
