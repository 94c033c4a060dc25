"""Re-verification after a pass that reports its changes (`abi_compiler.ir.changes`): the
driver verifies the module op and the reported functions; a pass that reports nothing,
or everything, is verified in full."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import FunctionType, ModuleOp, f32
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation

from abi_compiler.commands.opt_main import AbiOptMain
from abi_compiler.ir import changes
from abi_compiler.passes import registry
from abi_compiler.passes.contract import AbiPass
from abi_compiler.passes.structure import functions
from abi_compiler.pipeline.verify import Verifier

SOURCE = """\
func.func @first(%a: i32) -> i32 {
  func.return %a : i32
}
func.func @second(%a: i32) -> i32 {
  func.return %a : i32
}
"""


def _break(func: FuncOp) -> None:
    """Declare an f32 result the body does not return: the return op no longer verifies."""
    func.function_type = FunctionType.from_lists(func.function_type.inputs.data, [f32])


@dataclass(frozen=True)
class BreakReported(AbiPass):
    name = "test-break-reported"
    reports_changes: ClassVar[bool] = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        second = list(functions(op))[1]
        _break(second)
        changes.changed(second)


@dataclass(frozen=True)
class BreakUnreported(AbiPass):
    """Breaks a function it does not report, but does not claim to report changes."""

    name = "test-break-unreported"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _break(list(functions(op))[1])


@dataclass(frozen=True)
class BreakAndReportEverything(AbiPass):
    name = "test-break-everything"
    reports_changes: ClassVar[bool] = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _break(list(functions(op))[1])
        changes.changed(next(iter(functions(op))))
        changes.changed_everything()


@dataclass(frozen=True)
class DuplicateSymbol(AbiPass):
    """Adds (and reports) a second @first: the module's symbol table is checked."""

    name = "test-duplicate-symbol"
    reports_changes: ClassVar[bool] = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        first = next(iter(functions(op)))
        clone = first.clone()
        op.body.block.add_op(clone)
        changes.changed(clone)


@dataclass(frozen=True)
class TouchReported(AbiPass):
    """Reports a function without breaking anything."""

    name = "test-touch-reported"
    reports_changes: ClassVar[bool] = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        changes.changed(next(iter(functions(op))))


RETURN_MISMATCH = (
    "Expected arguments to have the same types as the function output types: "
    "expected [f32], got [i32]"
)


@pytest.fixture(autouse=True)
def _test_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    passes = dict(registry.PASSES)
    for cls in (
        BreakReported,
        BreakUnreported,
        BreakAndReportEverything,
        DuplicateSymbol,
        TouchReported,
    ):
        passes[cls.name] = registry.PassEntry(__name__, cls.__name__, "test")
    monkeypatch.setattr(registry, "PASSES", passes)


def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], pipeline: str) -> tuple[int, str, str]:
    source = tmp_path / "in.mlir"
    source.write_text(SOURCE)
    capsys.readouterr()
    status = AbiOptMain.main([str(source), "-p", pipeline])
    captured = capsys.readouterr()
    return status, captured.out, captured.err.replace(str(source), "in.mlir")


@pytest.mark.parametrize(
    "pipeline", ["test-break-reported", "test-break-unreported", "test-break-everything"]
)
def test_a_broken_function_is_found(
    pipeline: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(tmp_path, capsys, pipeline) == (1, "", f"in.mlir:5:3: error: {RETURN_MISMATCH}\n")


def test_the_symbol_table_is_verified(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(tmp_path, capsys, "test-duplicate-symbol")
    assert (status, out) == (1, "")
    assert err == 'in.mlir:1:1: error: Redefinition of symbol "first"\n'


def test_reported_functions_verify_and_print(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(tmp_path, capsys, "test-touch-reported,test-touch-reported")
    assert (status, err) == (0, "")
    assert (
        out
        == "builtin.module {\n"
        + "".join(
            f"  func.func @{name}(%a: i32) -> i32 {{\n    func.return %a : i32\n  }}\n"
            for name in ("first", "second")
        )
        + "}\n"
    )


def test_no_recording_outlives_a_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(tmp_path, capsys, "test-break-reported")
    assert changes.stop() is None


def test_only_reported_functions_are_walked_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    walked: list[str] = []
    verify_ops = Verifier._ops

    def record(self: Verifier, root: Operation, *rest: Any) -> None:
        walked.append(root.name if isinstance(root, ModuleOp) else root.sym_name.data)
        verify_ops(self, root, *rest)

    monkeypatch.setattr(Verifier, "_ops", record)
    assert run(tmp_path, capsys, "test-touch-reported")[0] == 0
    assert walked == ["builtin.module", "first"]
    walked.clear()
    assert run(tmp_path, capsys, "test-break-everything")[0] == 1
    assert walked == ["builtin.module", "builtin.module"]
