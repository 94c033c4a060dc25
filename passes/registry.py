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
        "abi_compiler.passes.materialize", "MaterializeIreeAbiPass",
        "Write the V1 `iree.abi` JSON reflection of every exported function (SPEC §4).",
    ),
    "materialize-raw-abi": PassEntry(
        "abi_compiler.passes.materialize", "MaterializeRawAbiPass",
        "Write the legacy raw signature `fv`/`f` of every exported function (SPEC §5).",
    ),
    "materialize-sip-abi": PassEntry(
        "abi_compiler.passes.materialize", "MaterializeSipAbiPass",
        "Write the legacy structured index path signature `abi`/`sipv`/`sip` (SPEC §6).",
    ),
}

# Named pipelines (SPEC §8.5). Lowering passes are added as they land.
PIPELINES: dict[str, tuple[str, str]] = {}


def pass_factories() -> dict[str, Callable[[], type[ModulePass]]]:
    return {name: entry.load for name, entry in PASSES.items()}
