"""What a compiled module records of its inputs (`abi.provenance`, docs/formats.md "Where a
module came from"): per input, the frontend that read it, its framework's versions, and
the sha256 of what was read — the file as it is on disk (a SavedModel directory: every
file, `tree_sha256`), or the framework's own serialization of an object given in memory
(`Exported.serialize()`, `torch.export.save`, `ModelProto.SerializeToString()`), or MLIR
text as given. Versions come from the installed distributions; nothing is imported that
the caller's object did not already bring.
"""

from __future__ import annotations

import hashlib
import io
import os
import sys
from typing import Any

from abi_compiler.codecs.provenance_json import InputKind, InputRecord
from abi_compiler.frontends import frontend_name
from abi_compiler.versions import package_version

__all__ = ["FRAMEWORKS", "file_record", "input_record", "tree_sha256"]

#: The distributions whose versions are recorded for each frontend (the first of a
#: group that is installed: TensorFlow is `tensorflow` or `tensorflow-cpu`).
FRAMEWORKS: dict[str, tuple[tuple[str, ...], ...]] = {
    "jax": (("jax",), ("jaxlib",)),
    "torch": (("torch",), ("iree-turbine",)),
    "onnx": (("onnx",),),
    "tf": (("tensorflow", "tensorflow-cpu", "tensorflow-macos"),),
    "mlir": (),
}

_BLOCK = 1 << 20


def versions(frontend: str) -> tuple[tuple[str, str], ...]:
    """The (distribution, version) pairs recorded for ``frontend``."""
    found: list[tuple[str, str]] = []
    for group in FRAMEWORKS.get(frontend, ()):
        for name in group:
            version = package_version(name)
            if version != "unknown":
                found.append((name, version))
                break
        else:
            found.append((group[0], "unknown"))
    return tuple(sorted(found))


def _file_sha256(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while block := stream.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def tree_sha256(folder: str | os.PathLike[str]) -> str:
    """The sha256 of a directory: over its regular files in sorted order of their paths
    relative to it (``/``-separated), of each path's UTF-8 bytes, a NUL, the file's own
    sha256 (hex) and a newline. Symbolic links are followed as the frontend reads them."""
    digest = hashlib.sha256()
    paths: list[str] = []
    for root, folders, files in os.walk(folder, followlinks=True):
        folders.sort()
        for name in files:
            paths.append(os.path.relpath(os.path.join(root, name), folder))
    for relative in sorted(path.replace(os.sep, "/") for path in paths):
        own = _file_sha256(os.path.join(folder, relative))
        digest.update(relative.encode("utf-8", "surrogateescape") + b"\0" + own.encode() + b"\n")
    return digest.hexdigest()


def file_record(path: str | os.PathLike[str], frontend: str, entry: str | None) -> InputRecord:
    """The record of an input read from ``path`` (a file, or a SavedModel directory)."""
    sha = tree_sha256(path) if os.path.isdir(path) else _file_sha256(path)
    return InputRecord(entry, frontend, versions(frontend), sha, "file")


def input_record(source: object, entry: str | None = None) -> InputRecord | None:
    """The record of a source `compile_vmfb` was given: a framework object, a path, or
    MLIR text (``str``/``bytes``); None for anything else (which compiling refuses)."""
    frontend = frontend_name(source)
    if frontend is None:
        if isinstance(source, os.PathLike):
            return file_record(source, "mlir", entry) if os.path.isfile(source) else None
        if isinstance(source, str):
            data = source.encode("utf-8", "surrogatepass")
        elif isinstance(source, (bytes, bytearray, memoryview)):
            data = bytes(source)
        else:
            return None
        return InputRecord(entry, "mlir", (), hashlib.sha256(data).hexdigest(), "text")
    if isinstance(source, (str, os.PathLike)):  # an ONNX file, a SavedModel directory
        return file_record(source, frontend, entry)
    sha, kind = _program_sha256(frontend, source)
    return InputRecord(entry, frontend, versions(frontend), sha, kind)


def _program_sha256(frontend: str, source: Any) -> tuple[str, InputKind]:
    if frontend == "jax":
        try:
            data = bytes(source.serialize())
        except Exception:  # a pytree class JAX cannot serialize (not registered)
            return _jax_graph_sha256(source), "graph"
    elif frontend == "onnx":
        data = source.SerializeToString()
    elif frontend == "torch":
        torch = sys.modules["torch"]  # the program's own framework, already imported
        stream = io.BytesIO()
        try:
            torch.export.save(source, stream)
        except Exception:  # a pytree class torch cannot serialize (not registered)
            return _graph_sha256(source), "graph"
        data = stream.getvalue()
    else:  # pragma: no cover - every other frontend reads a path
        raise TypeError(f"no serialization for a {frontend} object")
    return hashlib.sha256(data).hexdigest(), "program"


def _graph_sha256(program: Any) -> str:
    """The sha256 of a torch program that `torch.export.save` refuses: over its graph's
    Python code (UTF-8), then each tensor of its state dict and constants in sorted name
    order, as the name, a NUL, the dtype and shape as text, a NUL and the bytes."""
    digest = hashlib.sha256(str(program.graph_module.code).encode("utf-8"))
    tensors = {**program.state_dict, **getattr(program, "constants", {})}
    for name in sorted(tensors):
        tensor = tensors[name]
        if not hasattr(tensor, "detach"):
            continue  # a script object: its name alone
        array = tensor.detach().cpu().contiguous()
        digest.update(f"{name}\0{array.dtype}{tuple(array.shape)}\0".encode())
        digest.update(array.view(-1).view(sys.modules["torch"].uint8).numpy().tobytes())
    return digest.hexdigest()


def _jax_graph_sha256(exported: Any) -> str:
    """The sha256 of a JAX export that `Exported.serialize()` refuses: over its StableHLO
    module (`mlir_module_serialized`), then its input and output avals as text, each
    followed by a newline."""
    digest = hashlib.sha256(bytes(exported.mlir_module_serialized))
    for aval in (*exported.in_avals, *exported.out_avals):
        digest.update(f"{aval}\n".encode())
    return digest.hexdigest()
