"""A library run leaves its host process as it found it (docs/xdsl-fixes.md, "How the
fixes are applied"): the garbage collector's frozen objects and enabled state, xDSL's
classes as another thread sees them while a run is working, and the pipeline's own
context. Only the command line tunes the collector (`abi_compiler.commands.opt_main.collector_phase`)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from dataclasses import dataclass
from io import StringIO
from typing import Any, ClassVar

import pytest
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    ModuleOp,
    TensorType,
    f32,
)
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.traits import SymbolTable
from xdsl.utils.lexer import Input, Span
from xdsl.utils.mlir_lexer import StringLiteral

from abi_compiler.pipeline import SourceFile
from abi_compiler.pipeline.dialects import register_dialects
from abi_compiler.pipeline.run import Pipeline

EXAMPLE = (
    "func.func @f(%a: tuple<tensor<2xf32>, i32>, %b: i32) -> i32 {\n  func.return %b : i32\n}\n"
)

_GC_PROBE = textwrap.dedent(
    """
    import gc, sys
    import abi_compiler
    kept = [[i] for i in range(5000)]
    gc.freeze()
    if sys.argv[1] == "disabled":
        gc.disable()


    def state():
        # (Frozen objects are in no generation: `get_objects` does not list them.)
        tracked = {id(o) for o in gc.get_objects()}
        return sum(id(k) not in tracked for k in kept), gc.isenabled()


    before = state()
    text = "func.func @f(%a: tuple<tensor<2xf32>, i32>) -> i32 {\\n"
    text += "  %b = abi.tuple.get %a[1] : tuple<tensor<2xf32>, i32> -> i32\\n"
    text += "  func.return %b : i32\\n}\\n"
    for pipeline in ("iree-abi-v1", "iree-abi-legacy"):
        abi_compiler.run_pipeline(text, pipeline)
        abi_compiler.run_pipeline(text, pipeline, parse_all=True)
    print(before == state(), before[0] == len(kept))
    """
)


@pytest.mark.parametrize("state", ["enabled", "disabled"])
def test_a_run_leaves_the_collector_as_it_was(state: str) -> None:
    """A host that froze its own objects (and enabled or disabled the collector) finds
    the same frozen count and the same state after `run_pipeline`."""
    done = subprocess.run(
        [sys.executable, "-c", _GC_PROBE, state], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["True", "True"], done.stdout + done.stderr


def _differing_ir() -> dict[str, Any]:
    """Objects to ask what a run fixes: a symbol lookup from inside an unknown dialect's
    op and a splat test on `[0.0, -0.0]` (answered differently inside a run), a string
    literal's bytes (the same answer, faster) and a dense attribute's length."""
    ctx = Context(allow_unregistered=True)
    register_dialects(ctx)
    module = Parser(
        ctx,
        "func.func private @g() {\n  func.return\n}\n"
        "func.func private @h() {\n"
        '  "foo.region"() ({\n    func.call @g() : () -> ()\n  }) : () -> ()\n'
        "  func.return\n}\n",
    ).parse_module()
    call = next(op for op in module.walk() if isinstance(op, func.CallOp))
    text = '"\\C3\\A9"'
    literal = StringLiteral.from_span(Span(0, len(text), Input(text, "probe")))
    assert literal is not None
    signed_zeros = DenseIntOrFPElementsAttr.from_list(TensorType(f32, [2]), [0.0, -0.0])
    return {"call": call, "literal": literal, "zeros": signed_zeros, "module": module}


def _answers(ir: dict[str, Any]) -> list[Any]:
    return [
        SymbolTable.lookup_symbol(ir["call"], "g"),
        ir["literal"].bytes_contents,
        ir["zeros"].is_splat(),
        len(ir["zeros"]),
    ]


@dataclass(frozen=True)
class _Wait(ModulePass):
    """A pass that holds its run until the test lets it go."""

    name: ClassVar[str] = "wait"
    entered: ClassVar[threading.Event] = threading.Event()
    release: ClassVar[threading.Event] = threading.Event()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _Wait.entered.set()
        assert _Wait.release.wait(60)


def test_xdsl_is_xdsls_own_for_other_threads_during_a_run() -> None:
    ir = _differing_ir()
    before = _answers(ir)
    # The members a run fixes do answer differently inside a run (else this test proves
    # nothing).
    from abi_compiler.xdsl_boundary import xdsl_fixes

    with xdsl_fixes.applied():
        inside = _answers(ir)
    assert inside[0] is not None and before[0] is None
    assert inside[2] is False and before[2] is True

    pipeline = Pipeline([_Wait()])
    failures: list[object] = []

    def run() -> None:
        try:
            failures.extend(pipeline.run(SourceFile("in.mlir", EXAMPLE), StringIO()))
        except BaseException as error:  # reported by the main thread
            failures.append(error)
        finally:
            _Wait.entered.set()

    _Wait.entered.clear()
    _Wait.release.clear()
    worker = threading.Thread(target=run)
    worker.start()
    try:
        assert _Wait.entered.wait(60)
        during = _answers(ir)
    finally:
        _Wait.release.set()
        worker.join(60)
    assert not failures
    assert during == before
    assert _answers(ir) == before


class _WatchedContext(Context):
    """A context that records every attribute set on it after construction."""

    writes: ClassVar[list[str]] = []

    def __setattr__(self, name: str, value: Any) -> None:
        _WatchedContext.writes.append(name)
        super().__setattr__(name, value)


def test_a_run_does_not_change_the_pipelines_context() -> None:
    pipeline = Pipeline()
    pipeline.ctx.__class__ = _WatchedContext
    _WatchedContext.writes.clear()
    assert pipeline.run(SourceFile("in.mlir", EXAMPLE), StringIO()) == []
    assert _WatchedContext.writes == []
    assert not pipeline.ctx.allow_unregistered
