"""Every pass and named pipeline of abi-compiler: the one table `abi-opt` reads (and its
`--help`). Passes are imported lazily: start-up time matters.

A named pipeline (docs/spec.md §8.5) is its member passes in order. The driver runs the members
as separate passes (verified in between); `pipeline_pass` also gives it a pass class of
its own, so that it is a pass like any other for xDSL's pass machinery and for
`abi-opt`'s option checking (it takes no options).
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass


@dataclass(frozen=True)
class PassEntry:
    """A pass: the module and class that define it, and its one-line summary."""

    module: str
    cls: str
    summary: str

    def load(self) -> type[ModulePass]:
        return getattr(importlib.import_module(self.module), self.cls)


@dataclass(frozen=True)
class PipelineEntry:
    """A named pipeline: its member passes in order, and its one-line summary."""

    passes: tuple[str, ...]
    summary: str

    @property
    def spec(self) -> str:
        """The pipeline as `-p` text: its members, comma-separated."""
        return ",".join(self.passes)


PASSES: dict[str, PassEntry] = {
    "materialize-iree-abi": PassEntry(
        "abi_compiler.passes.materialize",
        "MaterializeIreeAbiPass",
        "Write the V1 `iree.abi` JSON reflection of every exported function.",
    ),
    "materialize-raw-abi": PassEntry(
        "abi_compiler.passes.materialize",
        "MaterializeRawAbiPass",
        "Write the legacy raw signature `fv`/`f` of every exported function.",
    ),
    "materialize-sip-abi": PassEntry(
        "abi_compiler.passes.materialize",
        "MaterializeSipAbiPass",
        "Write the legacy structured index path signature `abi`/`sipv`/`sip`.",
    ),
    "flatten-signatures": PassEntry(
        "abi_compiler.passes.flatten_signatures",
        "FlattenSignaturesPass",
        "Lower structured signatures to leaves with `abi.index_path` (legacy convention).",
    ),
    "wrap-entry-points": PassEntry(
        "abi_compiler.passes.wrap_entry_points",
        "WrapEntryPointsPass",
        "Wrap structured exports in V1 `!util.list<?>` entry points.",
    ),
}

PIPELINES: dict[str, PipelineEntry] = {
    "iree-abi-v1": PipelineEntry(
        ("materialize-iree-abi", "wrap-entry-points"),
        "Pipeline: materialize-iree-abi,wrap-entry-points (IREE's V1 native convention).",
    ),
    "iree-abi-legacy": PipelineEntry(
        ("flatten-signatures", "materialize-raw-abi", "materialize-sip-abi"),
        "Pipeline: flatten-signatures,materialize-raw-abi,materialize-sip-abi "
        "(the legacy flat convention).",
    ),
}


class PipelinePass(ModulePass):
    """Runs the member passes of a named pipeline in order (no verification in between:
    `abi-opt` expands a pipeline into its members and verifies after each)."""

    members: ClassVar[tuple[str, ...]] = ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for member in self.members:
            PASSES[member].load()().apply(ctx, op)


@functools.cache
def pipeline_pass(name: str) -> type[ModulePass]:
    """The pass class of the pipeline ``name``: a frozen dataclass without options, like
    every pass (one class per pipeline, so that `-p` option errors name the pipeline)."""
    entry = PIPELINES[name]
    namespace = {"name": name, "members": entry.passes, "__doc__": entry.summary}
    class_name = "".join(part.title() for part in name.split("-")) + "Pipeline"  # IreeAbiV1Pipeline
    cls = type(class_name, (PipelinePass,), namespace)
    return dataclass(frozen=True)(cls)
