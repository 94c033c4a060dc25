"""The error types of abi-compiler: `AbiError`, the one error of the ABI (docs/spec.md §9): a
message plus where it happened; and `CompileError`, a failed compilation (a step of
`abi_compiler.iree.compile`, or of a frontend).

Codecs locate errors by string offset; passes attach the IR object (an operation, or an
argument/result position of a function) and the driver turns that into `file:line:col`.
"""

from __future__ import annotations

from typing import Any


class AbiError(Exception):
    """An ABI problem: malformed signature text, a bad structure, a bad value.

    * ``offset``: byte/character offset into the text being decoded, when decoding.
    * ``where``: what the error is about inside a function signature, as
      ``("argument", i)`` or ``("result", i)``; passes map it to an IR location.
    * ``op``: the IR operation the error is located at (set by passes; opaque here so
      that this module stays free of xDSL imports).
    """

    def __init__(
        self,
        message: str,
        *,
        offset: int | None = None,
        where: tuple[str, int] | None = None,
        op: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.where = where
        self.op = op

    def __str__(self) -> str:
        if self.offset is not None:
            return f"{self.message} (at offset {self.offset})"
        return self.message


class CompileError(Exception):
    """`compile` (or a frontend) failed: ``stage`` names the step that failed, and
    ``diagnostics`` its diagnostics (``file:line:col: error: …`` lines where the tool
    gives a location).

    The stages: ``"abi-opt"`` and ``"iree-compile"``; in a frontend, ``"iree-turbine
    import"`` (torch), ``"ONNX import"``, and IREE's own lowering of their output,
    ``"IREE torch input pipeline"`` / ``"IREE ONNX input pipeline"`` (run by ``iree-opt``
    in a child process: a crash of it is this error, not the caller's). A known upstream
    defect is named in a ``note:`` line."""

    def __init__(self, stage: str, diagnostics: str) -> None:
        super().__init__(f"{stage} failed:\n{diagnostics}")
        self.stage = stage
        self.diagnostics = diagnostics
