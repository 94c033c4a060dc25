"""The passes stage of a run: each pass applied in order, the module verified after each
as its contract allows (`abi_compiler.passes.contract`), the last one possibly deferring
the ops it builds to the printer. Errors a pass raises (`AbiError`) become located
`Failure`s; its warnings become `Diagnostic`s."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.exceptions import DiagnosticException

from abi_compiler.errors import AbiError
from abi_compiler.ir import changes, diagnostics
from abi_compiler.ir.location_table import LocationTable, tracking
from abi_compiler.passes.contract import BodyAccess, OpsBefore, contract_of
from abi_compiler.pipeline.run_diagnostics import Diagnostic, Failure
from abi_compiler.pipeline.timing import Timer
from abi_compiler.pipeline.verify import Verifier

#: Called after a pass with its name and the module (`--print-ir-after-all`).
Dump = Callable[[str, ModuleOp], None]


def body_access(passes: Sequence[ModulePass]) -> BodyAccess:
    """The most any of ``passes`` needs of function bodies; a pass that does not state
    it needs every body."""
    order = [BodyAccess.SIGNATURES, BodyAccess.STRUCTURED, BodyAccess.ALL]
    needed = BodyAccess.SIGNATURES
    for item in passes:
        access = contract_of(item).body_access
        if order.index(access) > order.index(needed):
            needed = access
    return needed


def located(error: AbiError, table: LocationTable, module: ModuleOp) -> Failure:
    """A pass's error at the IR object it names (the module when it names none)."""
    offset = table.locate(error.op, error.where)
    return Failure(
        Diagnostic("error", error.message, table.offset_of(module) if offset is None else offset)
    )


def apply_passes(
    ctx: Context,
    module: ModuleOp,
    passes: Sequence[ModulePass],
    *,
    table: LocationTable,
    verifier: Verifier,
    timer: Timer,
    warnings: list[Diagnostic],
    dump: Dump | None = None,
    defer_last: bool = True,
) -> OpsBefore | None:
    """Run ``passes`` on ``module``. The last one runs through its contract's `prepare`
    when ``defer_last`` (and no ``dump`` asks for the module after it): the ops it
    defers to printing are returned. Warnings are appended to ``warnings``, also when a
    pass fails."""

    def after_pass(
        previous: ModulePass | None, module: ModuleOp, next_pass: ModulePass | None
    ) -> None:
        recorded = changes.stop()
        if previous is not None:
            timer.charge(previous.name)
        # A pass that declares `preserves_validity` (it only adds reflection entries to
        # functions, which no verifier reads) cannot break the IR: not verified again.
        # One that declares `reports_changes` has only what it reports verified.
        contract = contract_of(previous) if previous is not None else None
        if contract is not None and not contract.preserves_validity:
            if contract.reports_changes and recorded is not None and not recorded.everything:
                verifier.changed(module, recorded.operations)
            else:
                verifier.module(module)
        if previous is not None and dump is not None:
            dump(previous.name, module)
            timer.charge(None)  # printing the dump is not the next pass's time
        if next_pass is not None:
            changes.start()

    deferred: OpsBefore | None = None
    with diagnostics.collect() as sink, tracking(table):
        try:
            *head, last = passes or (None,)
            if last is None or dump is not None or not defer_last:
                # The dump after the last pass shows everything it adds.
                PassPipeline(tuple(passes), after_pass).apply(ctx, module)
            else:
                PassPipeline(tuple(head), after_pass).apply(ctx, module)
                changes.start()
                deferred = contract_of(last).prepare(ctx, module)
                after_pass(last, module, None)
        except AbiError as error:
            raise located(error, table, module) from None
        except DiagnosticException as error:
            raise Failure(Diagnostic("error", str(error), table.offset_of(module))) from None
        finally:
            changes.stop()  # a pass that failed leaves its recording
            for warning in sink.warnings:
                offset = table.locate(warning.op, warning.where)
                warnings.append(
                    Diagnostic(
                        "warning",
                        warning.message,
                        table.offset_of(module) if offset is None else offset,
                    )
                )
    return deferred
