"""A compiled module on Ray Serve (docs/serving.md): `app` reads the module's functions
once (as `abi-sig show` reads them) and returns an application of one deployment whose
replicas each load the module (its `.vmfb` and `.irpa` mapped, so that replicas on one
machine share the weights' pages) and answer HTTP through `ModuleEndpoints`."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from ray import serve
from starlette.requests import Request
from starlette.responses import Response as StarletteResponse
from starlette.responses import StreamingResponse

from abi_compiler.serve.endpoints import (
    DEFAULT_MAX_BODY,
    BodyTooLarge,
    ModuleEndpoints,
    Response,
    read_body,
)
from abi_compiler.serve.module_file import load_endpoints, read_functions

__all__ = ["ModuleServer", "app"]


@serve.deployment
class ModuleServer:
    """One replica: the module loaded once, its routes (`ModuleEndpoints`)."""

    def __init__(
        self,
        path: str,
        functions: Any,
        name: str,
        max_body: int,
        device: str | None,
        mmap: bool,
    ) -> None:
        self.endpoints: ModuleEndpoints = load_endpoints(path, functions, name, device, mmap)
        self.max_body = max_body

    async def __call__(self, request: Request) -> StarletteResponse:
        path = request.url.path
        root = request.scope.get("root_path") or ""
        if root and path.startswith(root):
            path = path[len(root) :]
        try:
            body = await read_body(
                request.stream(), request.headers.get("content-length"), self.max_body
            )
        except BodyTooLarge:
            return _starlette(self.endpoints.too_large(path, self.max_body))
        response = await asyncio.to_thread(
            self.endpoints.handle, request.method, path, body, request.headers
        )
        return _starlette(response)

    def pid(self) -> int:
        """The replica's process (tests stop one to see it come back)."""
        return os.getpid()


def _starlette(response: Response) -> StarletteResponse:
    if isinstance(response.body, bytes):
        return StarletteResponse(
            response.body,
            status_code=response.status,
            media_type=response.content_type,
            headers=response.headers,
        )
    return StreamingResponse(
        response.body,
        status_code=response.status,
        media_type=response.content_type,
        headers=response.headers,
    )


def app(
    path: str | os.PathLike[str],
    *,
    replicas: int = 1,
    name: str | None = None,
    max_body: int = DEFAULT_MAX_BODY,
    device: str | None = None,
    cpus_per_replica: float = 1.0,
    max_ongoing_requests: int = 8,
    mmap: bool = True,
) -> Any:
    """A Ray Serve application serving the compiled module at ``path`` (a `.vmfb`; its
    named parameters from the `.irpa` beside it, as `load` finds them) with ``replicas``
    replicas: run it with ``serve.run(app(...))``. ``name`` names the deployment and
    titles the API (the file's stem by default); a request body over ``max_body`` bytes
    is refused (413) unread; ``device`` is each replica's IREE device (by default
    `load`'s: ``local-sync``, one thread per replica, for a module under 256 MiB,
    ``local-task`` from there); ``mmap=False`` reads the `.vmfb` into each replica instead of
    mapping it. An unreadable module is an `AbiError` here, before Ray."""
    if replicas < 1:
        raise ValueError(f"replicas must be at least 1, got {replicas}")
    path = os.path.abspath(os.fspath(path))
    functions = read_functions(path)
    name = name or os.path.splitext(os.path.basename(path))[0]
    server: Any = ModuleServer  # (a Ray Serve `Deployment`)
    deployment = server.options(
        name=name,
        num_replicas=replicas,
        max_ongoing_requests=max_ongoing_requests,
        ray_actor_options={"num_cpus": cpus_per_replica},
    )
    return deployment.bind(path, functions, name, max_body, device, mmap)
