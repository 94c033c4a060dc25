"""A run of a pass pipeline over MLIR text, as a library: scan, plan what to parse, read
headers, parse, verify, run the passes, print (`abi_compiler.pipeline.run`). The command
line (`abi_compiler.driver`) and library users (`abi_compiler.iree`, the frontends,
tests) call it.

    from abi_compiler.pipeline import run_pipeline
    text = run_pipeline(mlir_text, "iree-abi-v1", name="model.mlir")
"""

from abi_compiler.pipeline.diagnostics import (
    Diagnostic,
    PipelineError,
    PipelineWarning,
    SourceFile,
)
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
