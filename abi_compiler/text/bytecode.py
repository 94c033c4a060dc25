"""MLIR bytecode input: recognise it, and turn it into MLIR text.

TensorFlow's importer (`iree-import-tf`) and `mlir-opt --emit-bytecode` write modules in
MLIR's binary format, which starts with the magic bytes ``ML\\xefR``. abi-compiler reads
MLIR text, so `to_text` converts bytecode with the MLIR Python bindings IREE's compiler
package ships (`iree.compiler.ir`, from the ``iree`` extra). Dialects that context does
not know (`tf`, `tf_saved_model`, …) are allowed: their ops come out in generic form,
which abi-compiler carries as text. Locations are kept (JAX writes argument names as
name locations), so positions in later diagnostics are positions in that text — what
``iree-opt --mlir-print-debuginfo FILE`` prints.

No xDSL import: `abi-sig` and `abi-opt` ask `is_bytecode` of every input.
"""

from __future__ import annotations

MAGIC = b"ML\xefR"

#: The message when the bindings are missing (the caller prefixes ``<file>: error: ``).
NEEDS_IREE = (
    "input is MLIR bytecode: install abi-compiler[iree] to read it, or convert it to text "
    "with iree-opt"
)


class BytecodeError(Exception):
    """Bytecode that cannot be turned into text; ``message`` follows ``<file>: error: ``."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def is_bytecode(data: bytes) -> bool:
    """Whether ``data`` is an MLIR bytecode file (by its magic number)."""
    return data.startswith(MAGIC)


def to_text(data: bytes) -> str:
    """The MLIR text of a bytecode module, with its locations; `BytecodeError` when IREE's
    bindings are not installed or do not read it."""
    try:
        from iree.compiler import ir
    except ImportError:
        raise BytecodeError(NEEDS_IREE) from None
    with ir.Context() as context:
        context.allow_unregistered_dialects = True
        try:
            module = ir.Module.parse(data)
        except ir.MLIRError as error:
            raise BytecodeError(f"cannot read MLIR bytecode: {_first_message(error)}") from None
        # Parsing verified the module: print it as is, locations included.
        text: str = module.operation.get_asm(enable_debug_info=True, assume_verified=True)
    return text


def _first_message(error: Exception) -> str:
    """The first diagnostic of an `MLIRError` (its text otherwise), on one line."""
    diagnostics = getattr(error, "error_diagnostics", None) or []
    message = str(diagnostics[0].message) if diagnostics else str(error)
    return " ".join(message.split())
