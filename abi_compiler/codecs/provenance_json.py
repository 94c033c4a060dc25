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
    "TargetRecord",
    "decode_provenance",
    "encode_provenance",
    "format_provenance",
    "format_target",
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
class TargetRecord:
    """One executable target of the module, as iree-compile resolved it: its ``backend``
    (``llvm-cpu``, ``vmvx``, ``cuda``, ``rocm``, ``vulkan-spirv``, ``metal-spirv``), its
    executable ``format`` (``embedded-elf-x86_64``, ``cuda-nvptx-fb``, …), and where they
    apply the LLVM ``cpu``, the CPU ``features`` it needs (LLVM's names, sorted), the LLVM
    ``triple`` and the GPU ``arch``."""

    backend: str
    format: str
    cpu: str | None = None
    features: tuple[str, ...] = ()
    triple: str | None = None
    arch: str | None = None


@dataclass(frozen=True, slots=True)
class Provenance:
    """How a module was made: ``target`` as given (targets joined by ``,``) and
    ``targets`` as iree-compile resolved them (none in a module made before they were
    recorded)."""

    abi_compiler: str
    iree_compiler: str
    target: str
    flags: tuple[str, ...]
    inputs: tuple[InputRecord, ...]
    targets: tuple[TargetRecord, ...] = ()


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
    if provenance.targets:
        document["targets"] = [
            {
                "backend": item.backend,
                "format": item.format,
                "cpu": item.cpu,
                "features": list(item.features),
                "triple": item.triple,
                "arch": item.arch,
            }
            for item in provenance.targets
        ]
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
    names = {"abi-compiler", "iree-compiler", "target", "flags", "inputs", "v"}
    if isinstance(document, dict) and "targets" in document:
        names.add("targets")  # (absent from a module made before targets were recorded)
    top = _members(document, names, "entry")
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
        _targets(top.get("targets", [])),
    )


def _optional_str(value: Any, where: str) -> str | None:
    return None if value is None else _str(value, where)


def _targets(items: Any) -> tuple[TargetRecord, ...]:
    if not isinstance(items, list):
        _fail("targets must be a list")
    found = []
    for position, item in enumerate(items):
        where = f"targets[{position}]"
        item = _members(item, {"backend", "format", "cpu", "features", "triple", "arch"}, where)
        if not isinstance(item["features"], list):
            _fail(f"{where}.features must be a list")
        found.append(
            TargetRecord(
                _str(item["backend"], f"{where}.backend"),
                _str(item["format"], f"{where}.format"),
                _optional_str(item["cpu"], f"{where}.cpu"),
                tuple(_str(feature, f"{where}.features") for feature in item["features"]),
                _optional_str(item["triple"], f"{where}.triple"),
                _optional_str(item["arch"], f"{where}.arch"),
            )
        )
    return tuple(found)


def format_target(record: TargetRecord) -> str:
    """One target as `abi-sig show` prints it: ``llvm-cpu (embedded-elf-x86_64), cpu
    x86-64-v3``, ``cuda (cuda-nvptx-fb), arch sm_80``, ``vmvx (vmvx-bytecode-fb)``."""
    text = f"{record.backend} ({record.format})"
    if record.cpu is not None:
        text += f", cpu {record.cpu}"
    if record.arch is not None:
        text += f", arch {record.arch}"
    return text


def format_provenance(provenance: Provenance) -> list[str]:
    """The lines `abi-sig show --provenance` prints."""
    lines = [
        f"made by abi-compiler {provenance.abi_compiler} with IREE's compiler "
        f"{provenance.iree_compiler}, target {provenance.target}",
        f"iree-compile flags: {' '.join(provenance.flags) if provenance.flags else '(none)'}",
    ]
    for target in provenance.targets:
        lines.append(f"target: {format_target(target)}")
        if target.triple is not None:
            lines.append(f"  triple: {target.triple}")
        if target.features:
            lines.append(f"  cpu features: {' '.join(target.features)}")
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
