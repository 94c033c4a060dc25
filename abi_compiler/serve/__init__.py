"""Compiled modules served over HTTP on Ray Serve (docs/serving.md): `app(path, …)` is the
Ray Serve application of a `.vmfb`, `abi-serve` runs it. The HTTP API itself — JSON ↔ the
original call (`json_values`), the schemas (`schema`), the Open Inference Protocol
(`inference_protocol`), the routes (`endpoints`) — is plain Python, used without Ray."""

from __future__ import annotations

import os
from typing import Any

__all__ = ["app"]


def app(path: str | os.PathLike[str], **options: Any) -> Any:
    """The Ray Serve application of the compiled module at ``path``
    (`abi_compiler.serve.deployment.app`: ``replicas``, ``name``, ``max_body``, …);
    needs ``ray[serve]`` (the ``serve`` extra)."""
    from abi_compiler.serve.deployment import app as build

    return build(path, **options)
