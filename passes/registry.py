"""Every pass and named pipeline of abi-compiler, imported lazily (start-up time matters)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.passes import ModulePass


@dataclass(frozen=True)
class PassEntry:
    module: str
    cls: str
    summary: str

    def load(self) -> type[ModulePass]:
        return getattr(importlib.import_module(self.module), self.cls)


PASSES: dict[str, PassEntry] = {
    "materialize-iree-abi": PassEntry(
        "abi_compiler.passes.materialize",
        "MaterializeIreeAbiPass",
        "Write the V1 `iree.abi` JSON reflection of every exported function (SPEC §4).",
    ),
    "materialize-raw-abi": PassEntry(
        "abi_compiler.passes.materialize",
        "MaterializeRawAbiPass",
        "Write the legacy raw signature `fv`/`f` of every exported function (SPEC §5).",
    ),
    "materialize-sip-abi": PassEntry(
        "abi_compiler.passes.materialize",
        "MaterializeSipAbiPass",
        "Write the legacy structured index path signature `abi`/`sipv`/`sip` (SPEC §6).",
    ),
    "flatten-signatures": PassEntry(
        "abi_compiler.passes.flatten_signatures",
        "FlattenSignaturesPass",
        "Lower structured signatures to leaves with `abi.index_path` (legacy, SPEC §8.1).",
    ),
    "wrap-entry-points": PassEntry(
        "abi_compiler.passes.wrap_entry_points",
        "WrapEntryPointsPass",
        "Wrap structured exports in V1 `!util.list<?>` entry points (SPEC §8.2).",
    ),
    "iree-abi-v1": PassEntry(
        "abi_compiler.passes.pipelines",
        "IreeAbiV1Pipeline",
        "Pipeline: materialize-iree-abi,wrap-entry-points (SPEC §8.5).",
    ),
    "iree-abi-legacy": PassEntry(
        "abi_compiler.passes.pipelines",
        "IreeAbiLegacyPipeline",
        "Pipeline: flatten-signatures,materialize-raw-abi,materialize-sip-abi (SPEC §8.5).",
    ),
}

# Named pipelines (SPEC §8.5): registered above as passes that run their members.
PIPELINES: dict[str, tuple[str, ...]] = {
    "iree-abi-v1": ("materialize-iree-abi", "wrap-entry-points"),
    "iree-abi-legacy": ("flatten-signatures", "materialize-raw-abi", "materialize-sip-abi"),
}


def pass_factories() -> dict[str, Callable[[], type[ModulePass]]]:
    return {name: entry.load for name, entry in PASSES.items()}
