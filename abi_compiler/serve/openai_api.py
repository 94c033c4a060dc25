"""OpenAI-compatible text generation for a served module that records a generation job
(`abi.generation`, `abi.tokenizer`; docs/serving.md, "Language models"):
``POST /v1/completions``, ``POST /v1/chat/completions`` (``"stream": true`` as server-sent
events) and ``GET /v1/models``, on `abi_compiler.generation` (`Module.generate`,
`Session.generate`).

A request does not need what an earlier request left on a replica: a completion is
generated from an empty cache, a chat from its messages. A replica keeps the sessions of
its last few conversations, keyed by the messages including the reply it gave; a chat
request whose messages continue one of them (the conversation so far, then new messages)
goes on in that session, whose cache already holds the conversation's tokens.

Errors have OpenAI's shape, ``{"error": {"message", "type", "param", "code"}}`` (``type``
``invalid_request_error`` for a 4xx, ``server_error`` for a 5xx), in a stream too; a
module without a generation job answers these routes 404 in that shape."""

from __future__ import annotations

import hashlib
import itertools
import json
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from abi_compiler.errors import AbiError
from abi_compiler.serve.endpoints import (
    ModuleEndpoints,
    Response,
    json_response,
    parse_json,
)

__all__ = [
    "FINISH_REASONS",
    "Conversations",
    "InvalidRequest",
    "TextGeneration",
    "add_text_generation",
    "openai_error",
]

#: The OpenAI routes: each path and its method.
ROUTES = {"v1/completions": "POST", "v1/chat/completions": "POST", "v1/models": "GET"}

#: The generation's finish reason → OpenAI's (the cache's end is a length).
FINISH_REASONS = {"eos": "stop", "stop": "stop", "length": "length", "cache": "length"}

#: The request members that are read; others OpenAI defines are refused when set to what
#: this server does not do, ignored when they do not change the text (``user``).
_COMMON = (
    "model",
    "max_tokens",
    "temperature",
    "top_p",
    "top_k",
    "seed",
    "stop",
    "stream",
    "n",
    "user",
)
_COMPLETION = (*_COMMON, "prompt", "echo", "logprobs")
_CHAT = (*_COMMON, "messages", "max_completion_tokens", "logprobs")

_ids = itertools.count(1)


class InvalidRequest(AbiError):
    """A request this server cannot answer as asked (400), naming the request member
    at fault (``param``, OpenAI's error member; None: none in particular)."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


def error_object(
    status: int, message: str, param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    """OpenAI's error object: ``type`` ``invalid_request_error`` for a 4xx status,
    ``server_error`` for a 5xx."""
    kind = "server_error" if status >= 500 else "invalid_request_error"
    return {"message": message, "type": kind, "param": param, "code": code}


def openai_error(
    status: int,
    message: str,
    param: str | None = None,
    code: str | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    """An error response in OpenAI's shape, ``{"error": {…}}`` (`error_object`)."""
    response = json_response(status, {"error": error_object(status, message, param, code)})
    response.headers.update(headers or {})
    return response


def _refused(error: AbiError) -> Response:
    """The 400 of a request ``error`` refuses (the member it names, if any)."""
    return openai_error(400, str(error), error.param if isinstance(error, InvalidRequest) else None)


def _key(messages: list[Any]) -> str:
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()


class Conversations:
    """The sessions of the last ``size`` conversations, by the messages they hold."""

    def __init__(self, module: Any, size: int = 4) -> None:
        self.module = module
        self.size = size
        self.sessions: OrderedDict[str, Any] = OrderedDict()
        #: How many chat requests went on in a held session (a test's and a log's view).
        self.reused = 0

    def take(self, messages: list[Any]) -> Any:
        """The session holding the conversation ``messages`` continues (its messages up
        to the last reply), taken out of the pool; else a new one."""
        for end in range(len(messages) - 1, 0, -1):
            session = self.sessions.pop(_key(messages[:end]), None)
            if session is not None:
                self.reused += 1
                return session
        return self.module.session()

    def keep(self, messages: list[Any], session: Any) -> None:
        """Hold ``session``, whose cache holds ``messages`` (with the reply), for the
        next request of the conversation; the least recent one goes when full."""
        self.sessions[_key(messages)] = session
        while len(self.sessions) > self.size:
            _, oldest = self.sessions.popitem(last=False)
            oldest.close()


class TextGeneration:
    """The OpenAI routes of one module (its `GenerationJob` read when the routes are
    added: a module without one gets none)."""

    def __init__(self, endpoints: ModuleEndpoints) -> None:
        from abi_compiler.generation import GenerationJob

        self.endpoints = endpoints
        self.module = endpoints.module
        self.job = GenerationJob.of(self.module)
        self.name = endpoints.name
        self.conversations = Conversations(self.module)

    # -- requests --------------------------------------------------------------------------

    def _options(self, request: Mapping[str, Any], allowed: tuple[str, ...]) -> dict[str, Any]:
        """The generation's options from an OpenAI request; an `AbiError` for a request
        this server cannot answer as asked."""
        unknown = sorted(set(request) - set(allowed) - {"messages", "prompt"})
        if unknown:
            raise InvalidRequest(f"unsupported member {unknown[0]!r} in the request", unknown[0])
        model = request.get("model")
        if model is not None and model != self.name:
            raise InvalidRequest(
                f"model {model!r} is not served here (this server serves {self.name!r})", "model"
            )
        if request.get("n", 1) != 1:
            raise InvalidRequest('"n": only one choice per request is generated (n = 1)', "n")
        if request.get("logprobs") not in (None, False, 0):
            raise InvalidRequest('"logprobs": not supported', "logprobs")
        if request.get("echo"):
            raise InvalidRequest('"echo": not supported', "echo")
        options: dict[str, Any] = {}
        limit = request.get("max_completion_tokens", request.get("max_tokens"))
        if limit is not None:
            options["max_new_tokens"] = limit
        temperature = request.get("temperature")
        if temperature is not None:
            if (
                not isinstance(temperature, (int, float))
                or isinstance(temperature, bool)
                or temperature < 0
            ):
                raise InvalidRequest(
                    f'"temperature": expected a number >= 0, got {temperature!r}', "temperature"
                )
            options["do_sample"] = temperature > 0  # (0: greedy, as OpenAI's)
            if temperature > 0:
                options["temperature"] = float(temperature)
        for name in ("top_p", "top_k", "seed"):
            if request.get(name) is not None:
                options[name] = request[name]
        stop = request.get("stop")
        if stop is not None:
            options["stop"] = [stop] if isinstance(stop, str) else stop
        return options

    def completions(self, key: str, body: bytes, headers: Mapping[str, str]) -> Response:
        try:
            return self._completion(body)
        except AbiError as error:
            return _refused(error)

    def chat(self, key: str, body: bytes, headers: Mapping[str, str]) -> Response:
        try:
            return self._chat(body)
        except AbiError as error:
            return _refused(error)

    def _completion(self, body: bytes) -> Response:
        request = _object(parse_json(body))
        prompt = request.get("prompt")
        if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], str):
            prompt = prompt[0]
        if not isinstance(prompt, str):
            raise InvalidRequest('"prompt": expected a string', "prompt")
        options = self._options(request, _COMPLETION)

        def prompt_tokens() -> int:  # (counted under the endpoints' lock, as the module runs)
            return len(self.job.encode(prompt))

        return self._answer(
            lambda stream: self.module.generate(prompt, stream=stream, **options),
            request.get("stream", False),
            "text_completion",
            prompt_tokens,
        )

    def _chat(self, body: bytes) -> Response:
        request = _object(parse_json(body))
        messages = request.get("messages")
        if not isinstance(messages, list) or not messages:
            raise InvalidRequest(
                '"messages": expected a list of {"role", "content"} objects', "messages"
            )
        options = self._options(request, _CHAT)

        def prompt_tokens() -> int:
            return len(self.job.encode(self.job.render(messages), special_tokens=False))

        conversations = self.conversations

        def generate(stream: bool) -> Any:
            session = conversations.take(messages)
            try:
                found = session.generate(messages=messages, stream=stream, **options)
            except BaseException:
                session.close()
                raise
            return found, session

        return self._answer(
            generate, request.get("stream", False), "chat.completion", prompt_tokens, messages
        )

    # -- answers ---------------------------------------------------------------------------

    def _answer(
        self,
        generate: Any,
        stream: Any,
        kind: str,
        prompt_tokens: Callable[[], int],
        messages: list[Any] | None = None,
    ) -> Response:
        if not isinstance(stream, bool):
            raise InvalidRequest(f'"stream": expected true or false, got {stream!r}', "stream")
        identity = f"{'chatcmpl' if messages is not None else 'cmpl'}-{next(_ids)}"
        created = int(time.time())
        if stream:
            return Response(
                200,
                self._events(generate, kind, identity, created, messages),
                "text/event-stream",
                {"Cache-Control": "no-cache"},
            )
        with self.endpoints.lock:
            try:
                prompt = prompt_tokens()
                found = generate(False)
            except AbiError:
                raise
            except Exception as error:  # IREE's runtime, the tokenizer
                return openai_error(500, f"the module failed: {' '.join(str(error).split())}")
            text, session = found if messages is not None else (found, None)
            if session is not None and messages is not None:
                reply = {"role": "assistant", "content": str(text)}
                self.conversations.keep([*messages, reply], session)
        reason = FINISH_REASONS[text.finish_reason]
        if messages is not None:
            choice: dict[str, Any] = {
                "index": 0,
                "message": {"role": "assistant", "content": str(text)},
                "finish_reason": reason,
            }
        else:
            choice = {"index": 0, "text": str(text), "finish_reason": reason, "logprobs": None}
        completion = len(text.token_ids)
        return json_response(
            200,
            {
                "id": identity,
                "object": kind,
                "created": created,
                "model": self.name,
                "choices": [choice],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                },
            },
        )

    def _events(
        self, generate: Any, kind: str, identity: str, created: int, messages: list[Any] | None
    ) -> Iterator[bytes]:
        """Server-sent events: a chunk per text piece, one with the finish reason, then
        ``[DONE]``; an error met on the way is an ``error`` event (the status was sent)."""
        chunk_kind = "chat.completion.chunk" if messages is not None else "text_completion"

        def event(delta: dict[str, Any], reason: str | None) -> bytes:
            if messages is not None:
                choice: dict[str, Any] = {"index": 0, "delta": delta, "finish_reason": reason}
            else:
                choice = {
                    "index": 0,
                    "text": delta.get("content", ""),
                    "finish_reason": reason,
                    "logprobs": None,
                }
            payload = {
                "id": identity,
                "object": chunk_kind,
                "created": created,
                "model": self.name,
                "choices": [choice],
            }
            return b"data: " + json.dumps(payload, separators=(",", ":")).encode() + b"\n\n"

        with self.endpoints.lock:
            try:
                found = generate(True)
                pieces, session = found if messages is not None else (found, None)
                if messages is not None:
                    yield event({"role": "assistant"}, None)
                text = []
                for piece in pieces:
                    text.append(piece)
                    yield event({"content": piece}, None)
                if session is not None and messages is not None:
                    reply = {"role": "assistant", "content": "".join(text)}
                    self.conversations.keep([*messages, reply], session)
                yield event({}, FINISH_REASONS[pieces.finish_reason])
            except AbiError as error:
                yield _error_event(error_object(400, str(error)))
            except Exception as error:
                message = " ".join(str(error).split())
                yield _error_event(error_object(500, f"the module failed: {message}"))
        yield b"data: [DONE]\n\n"

    def models(self, key: str, body: bytes, headers: Mapping[str, str]) -> Response:
        return json_response(
            200,
            {
                "object": "list",
                "data": [{"id": self.name, "object": "model", "owned_by": "abi-compiler"}],
            },
        )


def _error_event(error: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps({"error": error}).encode() + b"\n\n"


def _object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidRequest("expected a JSON object")
    return value


def add_text_generation(endpoints: ModuleEndpoints) -> TextGeneration | None:
    """The OpenAI routes on ``endpoints`` when its module records a generation job (None:
    it records none, or `abi_compiler.generation` cannot run here: their paths then
    answer 404, saying why); another method on their paths is a 405, in OpenAI's shape."""
    for path in ROUTES:
        endpoints.error_shapes[path] = openai_error
    reason = None
    if all(function.generation is None for function in endpoints.functions.values()):
        reason = (
            f"module '{endpoints.name}' records no generation job ('abi.generation'): it "
            "answers no OpenAI request (compile the model with its tokenizer: abi-compile "
            "--tokenizer)"
        )
    else:
        try:
            from abi_compiler.generation import GenerationJob

            GenerationJob.of(endpoints.module)
        except (AbiError, ImportError) as error:
            reason = f"module '{endpoints.name}' cannot generate text here: {error}"
    if reason is not None:
        for path in ROUTES:
            endpoints.owned[path] = lambda method: openai_error(404, reason)
        return None
    routes = TextGeneration(endpoints)
    endpoints.extra[("POST", "v1/completions")] = routes.completions
    endpoints.extra[("POST", "v1/chat/completions")] = routes.chat
    endpoints.extra[("GET", "v1/models")] = routes.models
    for path, allowed in ROUTES.items():
        endpoints.owned[path] = _not_allowed(allowed)
    return routes


def _not_allowed(allowed: str) -> Callable[[str], Response]:
    def answer(method: str) -> Response:
        message = f"method {method} not allowed: {allowed}"
        return openai_error(405, message, headers={"Allow": allowed})

    return answer
