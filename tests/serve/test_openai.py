"""The OpenAI-compatible routes of a served language model without Ray (docs/serving.md,
"Language models"): the MLIR model of tests/generation with a tokenizer trained there;
every answer equal to `module.generate(…)`, streaming as server-sent events, a
conversation going on in the session a replica held, and bad requests (a prompt longer
than the cache among them) refused with 400."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from tests.calling.conftest import needs_iree
from tests.generation import fixtures

needs_iree()
pytest.importorskip("tokenizers")
pytest.importorskip("jinja2")

from abi_compiler import iree as abi_iree  # noqa: E402
from abi_compiler.generation import GenerationJob  # noqa: E402
from abi_compiler.serve.endpoints import ModuleEndpoints, Response  # noqa: E402
from abi_compiler.serve.module_file import load_endpoints, read_functions  # noqa: E402
from abi_compiler.serve.openai_api import TextGeneration  # noqa: E402


def compiled_language_model(folder: Path) -> Path:
    """The MLIR language model of tests/generation compiled with its tokenizer."""
    tokenizer = fixtures.train_tokenizer()
    fixtures.save_tokenizer(tokenizer, folder / "tokenizer")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abi_iree.CompileWarning)
        data = abi_iree.compile_vmfb(
            fixtures.mlir_model(tokenizer.get_vocab_size()),
            pipeline=None,
            tokenizer=folder / "tokenizer" / "tokenizer.json",
            generation_config={"max_new_tokens": 8},
        )
    path = folder / "lm.vmfb"
    path.write_bytes(data)
    return path


@pytest.fixture(scope="module")
def vmfb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compiled_language_model(tmp_path_factory.mktemp("openai"))


@pytest.fixture
def endpoints(vmfb: Path) -> ModuleEndpoints:
    return load_endpoints(str(vmfb), read_functions(vmfb), "lm")


@pytest.fixture(scope="module")
def module(vmfb: Path) -> Any:
    return abi_iree.load(vmfb)


def test_a_replica_loads_on_the_default_device(endpoints: ModuleEndpoints) -> None:
    """A replica takes `load`'s default device: ``local-sync`` for a module this small."""
    assert repr(endpoints.module.device) == "local-sync"


def post(endpoints: ModuleEndpoints, path: str, body: Any) -> Response:
    return endpoints.handle("POST", path, json.dumps(body).encode())


def _events(response: Response) -> list[Any]:
    assert response.content_type == "text/event-stream"
    data = b"".join(response.body)  # type: ignore[arg-type]
    events = [line[len(b"data: ") :] for line in data.split(b"\n\n") if line]
    assert events[-1] == b"[DONE]"
    return [json.loads(event) for event in events[:-1]]


def test_a_completion_is_the_modules_generate(endpoints: ModuleEndpoints, module: Any) -> None:
    response = post(
        endpoints,
        "/v1/completions",
        {"model": "lm", "prompt": "The quick", "max_tokens": 6, "temperature": 0},
    )
    assert response.status == 200, response.body
    answer = response.json()
    expected = module.generate("The quick", max_new_tokens=6, do_sample=False)
    assert answer["object"] == "text_completion" and answer["model"] == "lm"
    assert answer["choices"] == [
        {"index": 0, "text": str(expected), "finish_reason": "length", "logprobs": None}
    ]
    prompt = len(GenerationJob.of(module).encode("The quick"))
    assert answer["usage"] == {
        "prompt_tokens": prompt,
        "completion_tokens": 6,
        "total_tokens": prompt + 6,
    }


def test_a_streamed_completion_gives_the_same_text(endpoints: ModuleEndpoints, module: Any) -> None:
    response = post(
        endpoints,
        "/v1/completions",
        {"prompt": "The quick", "max_tokens": 6, "temperature": 0, "stream": True},
    )
    events = _events(response)
    assert "".join(e["choices"][0]["text"] for e in events) == str(
        module.generate("The quick", max_new_tokens=6, do_sample=False)
    )
    assert [e["choices"][0]["finish_reason"] for e in events][-1] == "length"
    assert all(e["choices"][0]["finish_reason"] is None for e in events[:-1])


MESSAGES = [{"role": "user", "content": "hello there!"}]


def test_a_chat_and_its_next_turn_in_the_held_session(
    endpoints: ModuleEndpoints, module: Any
) -> None:
    first = post(
        endpoints, "/v1/chat/completions", {"messages": MESSAGES, "max_tokens": 5, "temperature": 0}
    )
    assert first.status == 200, first.body
    reply = first.json()["choices"][0]["message"]
    assert reply == {
        "role": "assistant",
        "content": str(module.generate(messages=MESSAGES, max_new_tokens=5, do_sample=False)),
    }
    turns = [*MESSAGES, reply, {"role": "user", "content": "the lazy dog"}]
    routes = _routes(endpoints)
    second = post(
        endpoints, "/v1/chat/completions", {"messages": turns, "max_tokens": 5, "temperature": 0}
    )
    assert routes.conversations.reused == 1  # the replica's session went on
    fresh = module.generate(messages=turns, max_new_tokens=5, do_sample=False)  # re-prefilled
    assert second.json()["choices"][0]["message"]["content"] == str(fresh)


def test_a_streamed_chat(endpoints: ModuleEndpoints, module: Any) -> None:
    events = _events(
        post(
            endpoints,
            "/v1/chat/completions",
            {"messages": MESSAGES, "max_tokens": 5, "temperature": 0, "stream": True},
        )
    )
    assert events[0]["object"] == "chat.completion.chunk"
    assert events[0]["choices"][0]["delta"] == {"role": "assistant"}
    text = "".join(e["choices"][0]["delta"].get("content", "") for e in events)
    assert text == str(module.generate(messages=MESSAGES, max_new_tokens=5, do_sample=False))


def _routes(endpoints: ModuleEndpoints) -> TextGeneration:
    route = endpoints.extra[("POST", "v1/chat/completions")]
    routes = route.__self__  # type: ignore[attr-defined]
    assert isinstance(routes, TextGeneration)
    return routes


@pytest.mark.parametrize(
    ("path", "body", "message", "param"),
    [
        ("/v1/completions", {"prompt": "fox " * 200}, "the prompt (", None),
        (
            "/v1/completions",
            {"prompt": "fox", "n": 2},
            '"n": only one choice per request is generated (n = 1)',
            "n",
        ),
        (
            "/v1/completions",
            {"prompt": "fox", "model": "gpt"},
            "model 'gpt' is not served here (this server serves 'lm')",
            "model",
        ),
        ("/v1/completions", {"prompt": 5}, '"prompt": expected a string', "prompt"),
        (
            "/v1/completions",
            {"prompt": "fox", "temperature": -1},
            '"temperature": expected a number >= 0, got -1',
            "temperature",
        ),
        (
            "/v1/completions",
            {"prompt": "fox", "best_of": 2},
            "unsupported member 'best_of' in the request",
            "best_of",
        ),
        (
            "/v1/chat/completions",
            {"messages": []},
            '"messages": expected a list of {"role", "content"} objects',
            "messages",
        ),
        ("/v1/chat/completions", [1], "expected a JSON object", None),
        ("/v1/completions", "{", "malformed JSON in the request", None),
    ],
)
def test_a_bad_request_is_400_in_openais_shape(
    endpoints: ModuleEndpoints, path: str, body: Any, message: str, param: str | None
) -> None:
    response = (
        endpoints.handle("POST", path, body.encode())
        if isinstance(body, str)
        else post(endpoints, path, body)
    )
    assert response.status == 400
    error = response.json()["error"]
    assert sorted(error) == ["code", "message", "param", "type"], error
    assert error["message"].startswith(message), error
    assert (error["type"], error["param"], error["code"]) == ("invalid_request_error", param, None)
    assert post(endpoints, "/v1/completions", {"prompt": "fox", "max_tokens": 1}).status == 200


def test_an_error_in_a_stream_is_an_event_in_openais_shape(endpoints: ModuleEndpoints) -> None:
    """The status was sent (200) before the prompt was read: the error is an event."""
    response = post(endpoints, "/v1/completions", {"prompt": "fox " * 200, "stream": True})
    assert response.status == 200
    (event,) = _events(response)
    error = event["error"]
    assert error["message"].startswith("the prompt ("), error
    assert (error["type"], error["param"], error["code"]) == ("invalid_request_error", None, None)


def test_a_body_over_the_limit_is_413_in_the_shape_of_its_path(
    endpoints: ModuleEndpoints,
) -> None:
    """(What the deployment answers before it reads the rest of the body.)"""
    message = "the request body is over the limit of 10 bytes"
    assert endpoints.too_large("/v1/chat/completions", 10).json() == {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        }
    }
    assert endpoints.too_large("/v1/functions/main", 10).json() == {"error": message}


def test_a_fault_in_the_module_is_a_server_error_in_openais_shape(
    endpoints: ModuleEndpoints, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What IREE's runtime raises (not an `AbiError`) is a 500 of type ``server_error``,
    and an event of that shape in a stream."""

    class Faulting:
        def generate(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("a trap\nin the module")

    monkeypatch.setattr(_routes(endpoints), "module", Faulting())
    response = post(endpoints, "/v1/completions", {"prompt": "fox"})
    assert response.status == 500
    assert response.json() == {
        "error": {
            "message": "the module failed: a trap in the module",
            "type": "server_error",
            "param": None,
            "code": None,
        }
    }
    streamed = post(endpoints, "/v1/completions", {"prompt": "fox", "stream": True})
    assert _events(streamed) == [response.json()]


def test_another_method_is_405_in_openais_shape(endpoints: ModuleEndpoints) -> None:
    response = endpoints.handle("GET", "/v1/completions", b"")
    assert (response.status, response.headers) == (405, {"Allow": "POST"})
    assert response.json() == {
        "error": {
            "message": "method GET not allowed: POST",
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        }
    }


def test_models_and_a_module_without_a_job(endpoints: ModuleEndpoints, tmp_path: Path) -> None:
    paths = endpoints.handle("GET", "/openapi.json", b"").json()["paths"]
    assert paths["/v1/chat/completions"]["post"]["summary"].startswith("OpenAI-compatible chat")
    listed = endpoints.handle("GET", "/v1/models", b"").json()
    assert listed["data"] == [{"id": "lm", "object": "model", "owned_by": "abi-compiler"}]
    path = tmp_path / "plain.vmfb"
    path.write_bytes(abi_iree.compile_vmfb("func.func @f(%x: i32) -> i32 { return %x : i32 }"))
    plain = load_endpoints(str(path), read_functions(path), "plain")
    message = (
        "module 'plain' records no generation job ('abi.generation'): it answers no OpenAI "
        "request (compile the model with its tokenizer: abi-compile --tokenizer)"
    )
    for method, route in (
        ("POST", "/v1/completions"),
        ("POST", "/v1/chat/completions"),
        ("GET", "/v1/models"),
    ):
        response = plain.handle(method, route, b'{"prompt": "fox"}')
        assert response.status == 404
        assert response.json() == {
            "error": {
                "message": message,
                "type": "invalid_request_error",
                "param": None,
                "code": None,
            }
        }
    # (the module's own API keeps its shape)
    assert plain.handle("POST", "/v1/functions/g", b"{}").json() == {
        "error": "module 'plain' serves no function 'g' (its functions: f)"
    }
