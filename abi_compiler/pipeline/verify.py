"""Verification, as `mlir-opt` does it: after parsing and after every pass (docs/spec.md §11).

Op by op (linear, so that the failing op is known), then the dialects' discardable
attributes (`abi.*`, `tf_saved_model.*`), which xDSL's verifier does not see. Carried
bodies are text and are not verified; headers `abi_compiler.text_to_ir.headers` built are
valid by construction. After a pass that reports its changes
(`abi_compiler.ir.changes`), only the module op itself and the reported functions are
verified again (docs/design.md). A failure is a located `Failure`.
"""

from __future__ import annotations

from collections.abc import Iterable, Set

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import DiagnosticException

from abi_compiler.dialects import verify_dialect_attributes
from abi_compiler.ir.location_table import LocationTable
from abi_compiler.pipeline.run_diagnostics import Diagnostic, Failure
from abi_compiler.text_to_ir.carried_ir import Carried
from abi_compiler.xdsl_boundary.symbol_cache import cached_symbol_lookups


class Verifier:
    """Verifies one chunk's IR; ``carried`` says which functions are text."""

    def __init__(self, table: LocationTable, carried: Carried | None) -> None:
        self._table = table
        self._carried_functions: Set[Operation] = (
            carried.functions.keys() if carried is not None else frozenset()
        )
        # A header `headers.HeaderReader` built is valid by construction: the types and
        # attributes xDSL parsed, put together as xDSL's `func.func` parser does, with an
        # empty entry block of the argument types.
        self._built: Set[Operation] = (
            frozenset(carried.headers.values()) if carried is not None else frozenset()
        )

    def module(self, module: ModuleOp) -> None:
        """Everything."""
        with cached_symbol_lookups():
            self._ops(module, self._built)
        self._attributes(module)

    def changed(self, module: ModuleOp, operations: Iterable[Operation]) -> None:
        """The module op itself (its symbol table) and the top-level ``operations`` a
        pass reported it changed."""
        kept = [op for op in operations if op.parent is module.body.block]
        with cached_symbol_lookups():
            try:
                module.verify(verify_nested_ops=False)
            except (DiagnosticException, ValueError) as error:
                raise self._failure(str(error), self._table.locate(module)) from None
            for op in kept:
                self._ops(op)
        for op in kept:
            self._attributes(op)

    def new(self, op: Operation) -> None:
        """An op a deferred pass built in place (a wrapper)."""
        self._ops(op)
        self._attributes(op)

    def _ops(self, root: Operation, built: Set[Operation] = frozenset()) -> None:
        carried = self._carried_functions
        for op in root.walk():
            try:
                if op not in built:
                    op.verify(verify_nested_ops=False)
                if op not in carried:  # a carried body is text: not verified
                    _verify_blocks(op)
            except (DiagnosticException, ValueError) as error:
                raise self._failure(str(error), self._table.locate(op)) from None

    def _attributes(self, root: Operation) -> None:
        try:
            verify_dialect_attributes(root)
        except DiagnosticException as error:
            # AttributeVerifyException carries the op and ("argument" | "result", i).
            offset = self._table.locate(getattr(error, "op", None), getattr(error, "where", None))
            raise self._failure(
                str(error), self._table.locate(root) if offset is None else offset
            ) from None

    @staticmethod
    def _failure(message: str, offset: int | None) -> Failure:
        return Failure(Diagnostic("error", message, offset))


def _verify_blocks(op: Operation) -> None:
    # The part of xDSL's Block.verify that is not about internal consistency.
    for region in op.regions:
        if (
            len(region.blocks) == 1
            and region.block.first_op is None
            and not op.has_trait(NoTerminator)
        ):
            raise DiagnosticException(
                f"Operation {op.name} contains empty block in single-block region "
                "that expects at least a terminator"
            )
