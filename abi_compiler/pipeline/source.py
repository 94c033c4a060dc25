"""An input's text as a run reads it (no xDSL): MLIR bytecode turned into text, UTF-8
checked, a byte order mark dropped, an empty input refused. The command line reads its
input through here before it loads anything else."""

from __future__ import annotations

from abi_compiler.pipeline.run_diagnostics import Diagnostic, PipelineError, SourceFile
from abi_compiler.text import bytecode, lexer


def read_source(data: bytes, name: str) -> SourceFile:
    """Input bytes as a `SourceFile`: MLIR bytecode as the text IREE's bindings print for
    it (`abi_compiler.text.bytecode`), else UTF-8 (a byte order mark is not part of the text:
    positions are counted after it, as an editor shows them), not empty; otherwise a
    `PipelineError`."""
    if bytecode.is_bytecode(data):  # e.g. from iree-import-tf
        try:
            data = bytecode.to_text(data).encode("utf-8")
        except bytecode.BytecodeError as error:
            raise PipelineError([Diagnostic("error", error.message, file=name)]) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        prefix = SourceFile(name, data[: error.start].decode("utf-8"))
        diagnostic = Diagnostic(
            "error",
            f"input is not valid UTF-8 (byte 0x{data[error.start]:02x})",
            len(prefix.text),
        )
        raise PipelineError([diagnostic.located(prefix)]) from None
    return checked_source(name, text.removeprefix("\ufeff"))


def checked_source(name: str, text: str) -> SourceFile:
    """``text`` as a `SourceFile`; a `PipelineError` when it is empty (nothing but
    whitespace and comments)."""
    if lexer.is_blank(text):
        raise PipelineError([Diagnostic("error", f"input '{name}' is empty")])
    return SourceFile(name, text)
