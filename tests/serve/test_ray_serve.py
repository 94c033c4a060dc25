"""A compiled module on Ray Serve (docs/serving.md), on a local Ray instance on the
loopback started once for this module: 2 replicas answer concurrent clients exactly as
the direct call; bad requests get 4xx and the replicas go on; a replica killed during
load comes back, requests in flight get an HTTP error or a right answer, never a hang.
Request counts are modest (the bench, bench/bench_serve.py, measures at scale)."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.calling.conftest import needs_iree

needs_iree()
pytest.importorskip("ray.serve", reason="Ray Serve is not installed (the serve extra)")
pytest.importorskip("psutil", reason="psutil (a Ray dependency) finds the replicas")

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.serve import app  # noqa: E402
from abi_compiler.serve.json_values import encode_value  # noqa: E402
from tests.serve.helpers import compiled, direct_result, structured_request  # noqa: E402
from tests.serve.ray_harness import (  # noqa: E402
    REQUEST_SECONDS,
    Server,
    kill,
    serving,
    wait_for_replicas,
)

NAME = "model"


@pytest.fixture(scope="module")
def vmfb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path, _ = compiled(tmp_path_factory.mktemp("ray_serve"))
    return path


@pytest.fixture(scope="module")
def language_model(tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    """The MLIR language model of tests/generation with its tokenizer (None without
    `tokenizers` and `jinja2`)."""
    try:
        import jinja2  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError:
        return None
    from tests.serve.test_openai import compiled_language_model

    return compiled_language_model(tmp_path_factory.mktemp("ray_lm"))


@pytest.fixture(scope="module")
def server(vmfb: Path, language_model: Path | None) -> Iterator[Server]:
    with serving(app(vmfb, replicas=2, cpus_per_replica=1), NAME) as found:
        if language_model is not None:  # a second application, under a prefix
            from ray import serve

            serve.run(
                app(language_model, name="lm", cpus_per_replica=0.5), name="lm", route_prefix="/lm"
            )
        wait_for_replicas(NAME, 2, 120)
        yield found


@pytest.fixture(scope="module")
def module(vmfb: Path) -> Any:
    return abi_iree.load(vmfb, results="numpy")


def _expected(module: Any, request: dict[str, Any]) -> Any:
    return {"result": encode_value(direct_result(module, request))}


def test_two_replicas_answer_concurrent_clients_as_the_direct_call(
    server: Server, module: Any
) -> None:
    requests = [structured_request(step, 1 + step % 5, 0.25 * step) for step in range(48)]

    def ask(request: dict[str, Any]) -> tuple[int, Any]:
        return server.json("POST", "/v1/functions/main", request)

    with ThreadPoolExecutor(8) as clients:
        answers = list(clients.map(ask, requests, timeout=10 * REQUEST_SECONDS))
    assert [status for status, _ in answers] == [200] * len(requests)
    for request, (_, answer) in zip(requests, answers, strict=True):
        assert answer == _expected(module, request)


def test_bad_requests_are_4xx_and_the_replicas_go_on(server: Server) -> None:
    bad = structured_request(1, 2, 1.0)
    bad["args"][0]["params"]["w"] = [1.0]
    cases: list[tuple[str, Any, int, str]] = [
        ("/v1/functions/main", bad, 400, "argument state.params['w']: expected float32[2]"),
        ("/v1/functions/main", {"args": [1]}, 400, "argument 1: missing value"),
        ("/v1/functions/nope", {}, 404, "module 'model' serves no function 'nope'"),
        ("/v1/functions/main", b"{", 400, "malformed JSON in the request"),
        ("/v1/functions/checked", {"args": [-3]}, 500, "the module failed in @checked"),
    ]
    for path, body, status, message in cases:
        got, data = server.request("POST", path, body)
        assert got == status and json.loads(data)["error"].startswith(message), data
    assert server.json("POST", "/v1/functions/checked", {"args": [1]}) == (200, {"result": 2})


def test_a_gigabyte_body_is_refused_unread(server: Server) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=REQUEST_SECONDS)
    try:
        connection.putrequest("POST", "/v1/functions/main")
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Content-Length", str(2**30))
        connection.endheaders()
        connection.send(b"[" * 65536)  # the first 64 KiB of a gigabyte never sent
        response = connection.getresponse()
        assert response.status == 413
        assert json.loads(response.read())["error"].startswith("the request body is over the limit")
    finally:
        connection.close()
    assert server.json("POST", "/v1/functions/checked", {"args": [2]}) == (200, {"result": 3})


def test_open_inference_protocol_over_http(server: Server) -> None:
    status, metadata = server.json("GET", "/v2/models/checked")
    assert status == 200 and metadata["inputs"] == [{"name": "0", "datatype": "INT32", "shape": []}]
    request = {"inputs": [{"name": "0", "datatype": "INT32", "shape": [], "data": [9]}]}
    status, answer = server.json("POST", "/v2/models/checked/infer", request)
    assert status == 200
    assert answer["outputs"] == [{"name": "result", "datatype": "INT32", "shape": [], "data": [10]}]


def test_a_replica_killed_during_load_comes_back(server: Server, module: Any) -> None:
    victims = wait_for_replicas(NAME, 2, 60)
    requests = [structured_request(step, 2, 0.5) for step in range(64)]
    started = []

    def ask(index: int) -> tuple[int, Any]:
        started.append(index)
        if index == 8:
            kill(victims[0])  # while the other clients' requests are in flight
        return server.request("POST", "/v1/functions/main", requests[index])

    with ThreadPoolExecutor(6) as clients:
        answers = list(clients.map(ask, range(len(requests)), timeout=20 * REQUEST_SECONDS))
    failed = 0
    for request, (status, data) in zip(requests, answers, strict=True):
        if status == 200:
            assert json.loads(data) == _expected(module, request)  # never a wrong answer
        else:
            assert status == 0 or status >= 500, (status, data)  # an HTTP error, not a hang
            failed += 1
    assert failed < len(requests)
    back = wait_for_replicas(NAME, 2, 180, gone=victims[0])
    assert victims[0] not in back
    assert server.json("POST", "/v1/functions/checked", {"args": [5]}) == (200, {"result": 6})


def test_a_language_model_over_http(server: Server, language_model: Path | None) -> None:
    if language_model is None:
        pytest.skip("tokenizers and jinja2 (the generate extra) are not installed")
    lm = abi_iree.load(language_model)
    conversations = [
        [{"role": "user", "content": text}] for text in ("hi", "the quick fox", "café", "dog")
    ]

    def ask(messages: list[Any]) -> tuple[int, Any]:
        body = {"messages": messages, "max_tokens": 4, "temperature": 0}
        return server.json("POST", "/lm/v1/chat/completions", body)

    with ThreadPoolExecutor(4) as clients:
        answers = list(clients.map(ask, conversations, timeout=10 * REQUEST_SECONDS))
    for messages, (status, answer) in zip(conversations, answers, strict=True):
        assert status == 200, answer
        expected = lm.generate(messages=messages, max_new_tokens=4, do_sample=False)
        assert answer["choices"][0]["message"]["content"] == str(expected)
    status, data = server.request(
        "POST",
        "/lm/v1/completions",
        {"prompt": "The quick", "max_tokens": 5, "temperature": 0, "stream": True},
    )
    events = [line[6:] for line in data.split(b"\n\n") if line]
    assert status == 200 and events[-1] == b"[DONE]"
    text = "".join(json.loads(e)["choices"][0]["text"] for e in events[:-1])
    assert text == str(lm.generate("The quick", max_new_tokens=5, do_sample=False))
    status, answer = server.json("POST", "/lm/v1/completions", {"prompt": "fox " * 200})
    assert status == 400 and answer["error"]["message"].startswith("the prompt (")
    assert answer["error"]["type"] == "invalid_request_error"
    assert server.json("POST", "/lm/v1/completions", {"prompt": "fox", "max_tokens": 1})[0] == 200
