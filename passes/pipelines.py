"""The named pipelines of SPEC §8.5, as passes that run their member passes in order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from abi_compiler.passes.registry import PASSES, PIPELINES


class _Pipeline(ModulePass):
    members: ClassVar[tuple[str, ...]] = ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for member in self.members:
            PASSES[member].load()().apply(ctx, op)


@dataclass(frozen=True)
class IreeAbiV1Pipeline(_Pipeline):
    """materialize-iree-abi, then wrap-entry-points: the V1 native convention."""

    name = "iree-abi-v1"
    members = PIPELINES["iree-abi-v1"]


@dataclass(frozen=True)
class IreeAbiLegacyPipeline(_Pipeline):
    """flatten-signatures, materialize-raw-abi, materialize-sip-abi: the legacy V0 ABIs."""

    name = "iree-abi-legacy"
    members = PIPELINES["iree-abi-legacy"]
