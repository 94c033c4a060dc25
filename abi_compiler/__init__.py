"""abi-compiler: callable ABIs for MLIR functions (docs/design.md maps the package).

`run_pipeline(text, "iree-abi-v1")` runs a pass pipeline on MLIR text and returns the
output (errors: `PipelineError`, warnings: `PipelineWarning`); it is imported on first
use, so that importing the package (or its xDSL-free core: `model`, `codecs`,
`runtime`) does not load xDSL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from abi_compiler.pipeline import (
        Diagnostic,
        Pipeline,
        PipelineError,
        PipelineWarning,
        run_pipeline,
    )

__all__ = ["Diagnostic", "Pipeline", "PipelineError", "PipelineWarning", "run_pipeline"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from abi_compiler import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module 'abi_compiler' has no attribute '{name}'")
