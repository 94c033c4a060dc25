"""Where a compiled module came from: the `abi.provenance` reflection entry
(docs/formats.md, "Where a module came from: `abi.provenance`").

`compile_vmfb`, `compile` and `abi-compile` write it on every exported function, beside
`abi.call`: this project's version, IREE's compiler's, the target and the flags given to
iree-compile, and per input its frontend, its framework's versions and the sha256 of what
was read (the file, or the serialized program). JSON as `abi.call` is written: compact,
keys sorted, `"v": 1`. Pure: no xDSL, no framework.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, NoReturn

from abi_compiler.errors import AbiError

__all__ = [
    "InputRecord",
    "Provenance",
    "decode_provenance",
    "encode_provenance",
    "format_provenance",
]

#: What an input's sha256 is of: a file as read (a directory: every file, see
#: `tree_sha256` in `abi_compiler.frontends.provenance`), a framework's serialized program
#: (`Exported.serialize()`, `torch.export.save`, `ModelProto.SerializeToString()`), or
#: MLIR text given as a string; ``"graph"``: a torch program `torch.export.save` refuses,
#: by its graph and tensors (`abi_compiler.frontends.provenance`).
InputKind = Literal["file", "program", "graph", "text"]
_KINDS = ("file", "program", "graph", "text")


@dataclass(frozen=True, slots=True)
class InputRecord:
    """One input of the module: the function ``entry`` it became (None: the module's
    only input), the ``frontend`` that read it (``"jax"``, ``"torch"``, ``"onnx"``,
    ``"tf"``, or ``"mlir"``), the framework ``versions`` it ran with ((distribution,
    version) pairs), and the ``sha256`` of the ``kind`` of thing read."""

    entry: str | None
    frontend: str
    versions: tuple[tuple[str, str], ...]
    sha256: str
    kind: InputKind


@dataclass(frozen=True, slots=True)
class Provenance:
    """How a module was made."""

    abi_compiler: str
    iree_compiler: str
    target: str
    flags: tuple[str, ...]
    inputs: tuple[InputRecord, ...]


def encode_provenance(provenance: Provenance) -> str:
    document = {
        "abi-compiler": provenance.abi_compiler,
        "iree-compiler": provenance.iree_compiler,
        "target": provenance.target,
        "flags": list(provenance.flags),
        "inputs": [
            {
                "entry": item.entry,
                "frontend": item.frontend,
                "versions": dict(item.versions),
                "sha256": item.sha256,
                "kind": item.kind,
            }
            for item in provenance.inputs
        ],
        "v": 1,
    }
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _fail(message: str) -> NoReturn:
    raise AbiError(f"abi.provenance: {message}")


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str):
        _fail(f"{where} must be a string")
    return value


def _members(obj: Any, names: set[str], where: str) -> dict[str, Any]:
    if not isinstance(obj, dict):
        _fail(f"{where} must be an object")
    if set(obj) != names:
        _fail(f"{where}: members {sorted(obj)}, expected {sorted(names)}")
    return obj


def decode_provenance(text: str | bytes) -> Provenance:
    """The `Provenance` of an `abi.provenance` entry; an `AbiError` for anything else."""
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as error:
        _fail(f"not JSON: {error}")
    top = _members(
        document, {"abi-compiler", "iree-compiler", "target", "flags", "inputs", "v"}, "entry"
    )
    if type(top["v"]) is not int or top["v"] != 1:
        _fail(f"unsupported version {top['v']!r} (expected 1)")
    flags = top["flags"]
    if not isinstance(flags, list):
        _fail("flags must be a list")
    if not isinstance(top["inputs"], list):
        _fail("inputs must be a list")
    inputs = []
    for position, item in enumerate(top["inputs"]):
        where = f"inputs[{position}]"
        item = _members(item, {"entry", "frontend", "versions", "sha256", "kind"}, where)
        entry = item["entry"]
        if entry is not None:
            entry = _str(entry, f"{where}.entry")
        versions = item["versions"]
        if not isinstance(versions, dict):
            _fail(f"{where}.versions must be an object")
        kind = _str(item["kind"], f"{where}.kind")
        if kind not in _KINDS:
            _fail(f"{where}.kind must be one of {', '.join(_KINDS)}, not {kind!r}")
        inputs.append(
            InputRecord(
                entry,
                _str(item["frontend"], f"{where}.frontend"),
                tuple((_str(k, where), _str(v, f"{where}.versions")) for k, v in versions.items()),
                _str(item["sha256"], f"{where}.sha256"),
                kind,  # type: ignore[arg-type]
            )
        )
    return Provenance(
        _str(top["abi-compiler"], "abi-compiler"),
        _str(top["iree-compiler"], "iree-compiler"),
        _str(top["target"], "target"),
        tuple(_str(flag, "flags") for flag in flags),
        tuple(inputs),
    )


def format_provenance(provenance: Provenance) -> list[str]:
    """The lines `abi-sig show --provenance` prints."""
    lines = [
        f"made by abi-compiler {provenance.abi_compiler} with IREE's compiler "
        f"{provenance.iree_compiler}, target {provenance.target}",
        f"iree-compile flags: {' '.join(provenance.flags) if provenance.flags else '(none)'}",
    ]
    for item in provenance.inputs:
        versions = ", ".join(f"{name} {version}" for name, version in sorted(item.versions))
        entry = f"{item.entry}: " if item.entry is not None else ""
        read = {
            "file": "file",
            "program": "serialized program",
            "graph": "program's graph and tensors",
            "text": "MLIR text",
        }[item.kind]
        lines.append(
            f"input: {entry}{item.frontend}"
            + (f" ({versions})" if versions else "")
            + f", sha256 of the {read} {item.sha256}"
        )
    return lines
