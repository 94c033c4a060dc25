"""The driver keeps the cyclic garbage collector paused while passes run and freezes the
IR afterwards (`opt_main.AbiOptMain._process_chunk`): that is only sound when the passes
free what they erase by reference counting. Every op they erase must leave no reference
cycle behind (`decompose.discard`)."""

from __future__ import annotations

import gc
from collections import Counter
from pathlib import Path

import pytest
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from tests.lowering.helpers import apply_passes, parse

EXAMPLE = Path(__file__).parents[2] / "examples" / "structured.mlir"

# A call to a structured function, nested tuples and dicts taken apart and rebuilt, a
# structured value passed through: every kind of op decompose erases or replaces.
CALLS = """\
func.func private @inner(%p: tuple<i32, !abi.dict<"k": f32, "a": i64>>) -> tuple<i32, f32> {
  %x = abi.tuple.get %p[0] : tuple<i32, !abi.dict<"k": f32, "a": i64>> -> i32
  %d = abi.tuple.get %p[1] : tuple<i32, !abi.dict<"k": f32, "a": i64>> -> !abi.dict<"k": f32, "a": i64>
  %k = abi.dict.get %d["k"] : !abi.dict<"k": f32, "a": i64> -> f32
  %r = abi.tuple.pack %x, %k : (i32, f32) -> tuple<i32, f32>
  func.return %r : tuple<i32, f32>
}
func.func @outer(%p: tuple<i32, !abi.dict<"k": f32, "a": i64>>) -> (tuple<i32, f32>, tuple<i32, !abi.dict<"k": f32, "a": i64>>) {
  %r = func.call @inner(%p) : (tuple<i32, !abi.dict<"k": f32, "a": i64>>) -> tuple<i32, f32>
  func.return %r, %p : tuple<i32, f32>, tuple<i32, !abi.dict<"k": f32, "a": i64>>
}
"""

IR_TYPES = (Operation, SSAValue, Block, Region, Attribute)


@pytest.mark.parametrize("pipeline", ["iree-abi-v1", "iree-abi-legacy"])
@pytest.mark.parametrize("source", ["example", "calls"])
def test_passes_leave_no_cyclic_garbage(pipeline: str, source: str) -> None:
    text = EXAMPLE.read_text() if source == "example" else CALLS
    module = parse(text)
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        apply_passes(module, [pipeline])
        gc.collect()
        garbage = Counter(type(o).__name__ for o in gc.garbage if isinstance(o, IR_TYPES))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert garbage == Counter()
