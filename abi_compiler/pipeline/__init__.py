"""A run of a pass pipeline over MLIR text, as a library: scan, plan what to parse, read
headers, parse, verify, run the passes, print (`abi_compiler.pipeline.run`). The command
line (`abi_compiler.commands`) and library users (`abi_compiler.iree`, the frontends,
tests) call it.

    from abi_compiler.pipeline import run_pipeline
    text = run_pipeline(mlir_text, "iree-abi-v1", name="model.mlir")

The run's names are imported on first use (they load xDSL); the diagnostics' are not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from abi_compiler.pipeline.run_diagnostics import (
    Diagnostic,
    PipelineError,
    PipelineWarning,
    SourceFile,
)

if TYPE_CHECKING:
    from abi_compiler.pipeline.run import Options, Pipeline, run_pipeline

__all__ = [
    "Diagnostic",
    "Options",
    "Pipeline",
    "PipelineError",
    "PipelineWarning",
    "SourceFile",
    "run_pipeline",
]

_LAZY = frozenset({"Options", "Pipeline", "run_pipeline"})


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from abi_compiler.pipeline import run

        return getattr(run, name)
    raise AttributeError(f"module 'abi_compiler.pipeline' has no attribute '{name}'")
