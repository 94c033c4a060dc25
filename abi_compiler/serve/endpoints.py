"""The HTTP API of a served module as plain Python (docs/serving.md): a request's method,
path, headers and body → a `Response`, for each route (`/v1/functions`, the Open Inference
Protocol's `/v2/…`, the OpenAPI page). The Ray Serve deployment (`abi_compiler.serve.app`)
only reads the body (`read_body`, with its limit) and hands it here, so what a request
becomes is tested without Ray.

A wrong call is 400 with the `AbiError`'s message (which names the argument's path), a
fault inside the module 500; the module is called by one request at a time per replica
(its default state is one VM context)."""

from __future__ import annotations

import html
import json
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from abi_compiler.errors import AbiError
from abi_compiler.serve import inference_protocol, schema
from abi_compiler.serve.json_values import encode_value, read_request
from abi_compiler.signatures.module_signatures import FunctionSignature

__all__ = ["DEFAULT_MAX_BODY", "BodyTooLarge", "ModuleEndpoints", "Response", "read_body"]

#: The largest request body read (bytes); a larger one is refused (413) unread.
DEFAULT_MAX_BODY = 64 * 2**20

PLATFORM = "abi-compiler_iree"


@dataclass
class Response:
    """An HTTP response: a status, a body (bytes, or server-sent events as they come)
    and its content type."""

    status: int
    body: bytes | Iterator[bytes]
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)

    def json(self) -> Any:
        """The body as JSON (a test's view)."""
        assert isinstance(self.body, bytes)
        return json.loads(self.body)


def json_response(status: int, value: Any) -> Response:
    return Response(status, json.dumps(value, separators=(",", ":")).encode("utf-8"))


def error_response(status: int, message: str) -> Response:
    return json_response(status, {"error": message})


class BodyTooLarge(Exception):
    """A request body over the limit: refused before it is read whole."""


async def read_body(chunks: AsyncIterator[bytes], content_length: str | None, limit: int) -> bytes:
    """A request's body from its chunks; `BodyTooLarge` as soon as its declared length
    or what came so far is over ``limit`` (the rest is never read)."""
    if content_length is not None:
        try:
            declared = int(content_length)
        except ValueError:
            declared = -1
        if declared > limit:
            raise BodyTooLarge(declared)
    body = bytearray()
    async for chunk in chunks:
        body += chunk
        if len(body) > limit:
            raise BodyTooLarge(len(body))
    return bytes(body)


Route = Callable[[str, bytes, Mapping[str, str]], Response]


class ModuleEndpoints:
    """The routes of one loaded module (``module``: an `abi_compiler.iree.Module`) whose
    functions ``functions`` were read from its file (`read_module`, as `abi-sig show`
    reads them); ``name`` titles its pages."""

    def __init__(self, module: Any, functions: list[FunctionSignature], name: str) -> None:
        self.module = module
        self.name = name
        self.functions = {f.name: f for f in functions if f.caller_visible}
        self.lock = threading.Lock()
        #: Further routes by (method, first path segments) (the OpenAI API's).
        self.extra: dict[tuple[str, str], Route] = {}
        #: The paths a further API owns, each with the answer, in that API's error shape, to
        #: a request no route of `extra` takes (another method; a module that lacks what
        #: the API needs): a function of the request's method.
        self.owned: dict[str, Callable[[str], Response]] = {}
        #: The error shape of those paths (`error_response`'s elsewhere).
        self.error_shapes: dict[str, Callable[[int, str], Response]] = {}

    def too_large(self, path: str, limit: int) -> Response:
        """The 413 of a request to ``path`` whose body is over ``limit``, in the error
        shape of the API that owns the path."""
        shape = self.error_shapes.get("/".join(p for p in path.split("/") if p), error_response)
        return shape(413, f"the request body is over the limit of {limit} bytes")

    def handle(
        self, method: str, path: str, body: bytes, headers: Mapping[str, str] | None = None
    ) -> Response:
        headers = headers or {}
        parts = [p for p in path.split("/") if p]
        try:
            return self._route(method, parts, body, headers)
        except AbiError as error:
            return error_response(400, str(error))

    def _route(
        self, method: str, parts: list[str], body: bytes, headers: Mapping[str, str]
    ) -> Response:
        key = "/".join(parts)
        route = self.extra.get((method, key))
        if route is not None:
            return route(key, body, headers)
        owned = self.owned.get(key)
        if owned is not None:
            return owned(method)
        if parts[:2] == ["v1", "functions"]:
            if len(parts) == 2:
                return self._allow(method, "GET") or json_response(200, self.listing())
            if len(parts) == 3:
                return self._allow(method, "POST") or self.call(parts[2], body)
        if parts == ["openapi.json"]:
            return self._allow(method, "GET") or json_response(200, self.openapi())
        if parts == ["docs"]:
            return self._allow(method, "GET") or Response(200, _docs_page(self.name), "text/html")
        if parts and parts[0] == "v2":
            return self._v2(method, parts[1:], body, headers)
        return error_response(404, f"no route /{key}")

    @staticmethod
    def _allow(method: str, allowed: str) -> Response | None:
        if method == allowed:
            return None
        return Response(
            405,
            json.dumps({"error": f"method {method} not allowed: {allowed}"}).encode(),
            headers={"Allow": allowed},
        )

    def function(self, name: str) -> FunctionSignature:
        function = self.functions.get(name)
        if function is None:
            raise NotFound(
                f"module '{self.name}' serves no function '{name}' (its functions: "
                f"{', '.join(self.functions) or 'none'})"
            )
        return function

    # -- /v1/functions ---------------------------------------------------------------

    def listing(self) -> dict[str, Any]:
        return {
            "module": self.name,
            "functions": [schema.function_schemas(f) for f in self.functions.values()],
        }

    def openapi(self) -> dict[str, Any]:
        """The OpenAPI document: each function's path with its schemas, and the other
        routes (the Open Inference Protocol's, the OpenAI ones) by name."""
        document = schema.openapi_document(self.name, list(self.functions.values()))
        others = [("get", "v2/models/{name}"), ("post", "v2/models/{name}/infer")]
        others += [(method.lower(), key) for method, key in self.extra]
        for method, key in others:
            document["paths"].setdefault(f"/{key}", {})[method] = {
                "summary": _SUMMARIES[key],
                "responses": {"200": {"description": "see docs/serving.md"}},
            }
        return document

    def call(self, name: str, body: bytes) -> Response:
        try:
            function = self.function(name)
        except NotFound as error:
            return error_response(404, str(error))
        value = parse_json(body)
        request = read_request(value, function)
        result = self.invoke(name, request.args, request.kwargs)
        if isinstance(result, Response):
            return result
        return json_response(200, {"result": encode_value(result, request.encoding)})

    def invoke(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The module's function called, one call at a time: its result, the 400 of an
        `AbiError` (the call does not fit), or the 500 of any other failure (IREE's
        runtime reporting a fault in the module); the replica goes on either way."""
        try:
            with self.lock:
                return self.module[name](*args, **kwargs)
        except AbiError as error:
            return error_response(400, str(error))
        except Exception as error:
            message = " ".join(str(error).split())
            return error_response(500, f"the module failed in @{name}: {message}")

    # -- the Open Inference Protocol ---------------------------------------------------

    def _v2(
        self, method: str, parts: list[str], body: bytes, headers: Mapping[str, str]
    ) -> Response:
        if not parts:
            return self._allow(method, "GET") or json_response(
                200, {"name": PLATFORM, "version": "2", "extensions": ["binary_tensor_data"]}
            )
        if parts[0] == "health" and len(parts) == 2 and parts[1] in ("live", "ready"):
            return self._allow(method, "GET") or json_response(200, {parts[1]: True})
        if parts[0] != "models" or len(parts) < 2:
            return error_response(404, f"no route /v2/{'/'.join(parts)}")
        try:
            function = self.function(parts[1])
        except NotFound as error:
            return error_response(404, str(error))
        rest = parts[2:]
        if rest[:1] == ["versions"] and len(rest) >= 2 and rest[1] == "1":
            rest = rest[2:]
        if not rest:
            return self._allow(method, "GET") or json_response(
                200, inference_protocol.model_metadata(function, PLATFORM)
            )
        if rest == ["ready"]:
            return self._allow(method, "GET") or json_response(200, {"ready": True})
        if rest == ["infer"]:
            return self._allow(method, "POST") or self.infer(function, body, headers)
        return error_response(404, f"no route /v2/{'/'.join(parts)}")

    def infer(
        self, function: FunctionSignature, body: bytes, headers: Mapping[str, str]
    ) -> Response:
        length = headers.get("inference-header-content-length")
        header_length = None
        if length is not None:
            try:
                header_length = int(length)
            except ValueError:
                raise AbiError(
                    f"Inference-Header-Content-Length {length!r} is not a number"
                ) from None
        request = inference_protocol.read_infer_request(body, header_length, function)
        result = self.invoke(function.name, request.args, request.kwargs)
        if isinstance(result, Response):
            return result
        response, tail = inference_protocol.infer(function, request, result)
        text = json.dumps(response, separators=(",", ":")).encode("utf-8")
        if not tail:
            return Response(200, text)
        return Response(
            200,
            text + tail,
            "application/octet-stream",
            {"Inference-Header-Content-Length": str(len(text))},
        )


_SUMMARIES = {
    "v2/models/{name}": "Open Inference Protocol: a function as a model, its tensors by path",
    "v2/models/{name}/infer": "Open Inference Protocol: call a function",
    "v1/completions": "OpenAI-compatible completion (stream: server-sent events)",
    "v1/chat/completions": "OpenAI-compatible chat completion (stream: server-sent events)",
    "v1/models": "OpenAI-compatible list of models",
}


class NotFound(AbiError):
    """A function the module does not serve (404)."""


def parse_json(body: bytes) -> Any:
    """A request body's JSON; an `AbiError` (400) for one that is not."""
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as error:
        raise AbiError(f"malformed JSON in the request: {error}") from None


def _docs_page(title: str) -> bytes:
    """The OpenAPI page: Swagger UI over ``/openapi.json`` (its script from a CDN, as
    FastAPI's page loads it)."""
    return f"""<!DOCTYPE html>
<html><head><title>{html.escape(title)}</title>
<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({{url: "./openapi.json", dom_id: "#swagger-ui"}});</script>
</body></html>
""".encode()
