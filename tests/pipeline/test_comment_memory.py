"""Memory per top-level comment line is a few bytes (issue: 14 MB of `// …` lines took
1.7 GB, ~580 bytes a line). Regular expressions that repeat a group over a run of
comments keep state per repetition until the match ends (the scanner's blank pattern,
xDSL's whitespace pattern); `lexer.skip_blank` matches bounded runs instead. Measured
with `tracemalloc` (deterministic: allocations, not the process's resident size)."""

from __future__ import annotations

import io
import tracemalloc

from abi_compiler.pipeline import Pipeline
from abi_compiler.pipeline.run_diagnostics import SourceFile
from abi_compiler.text import lexer

LINES = 200_000
FUNCTION = "func.func @f(%a: tuple<i32, f32>) -> i32 {\n  %0 = abi.tuple.get %a[0] : tuple<i32, f32> -> i32\n  return %0 : i32\n}\n"


def peak_bytes(run: object) -> int:
    tracemalloc.start()
    try:
        run()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_run_over_many_comment_lines_keeps_no_memory_per_line() -> None:
    pipeline = Pipeline.parse("iree-abi-v1")
    pipeline.run(SourceFile("warm.mlir", FUNCTION), io.StringIO())  # dialects loaded
    text = "// x\n" * LINES + FUNCTION
    source = SourceFile("comments.mlir", text)
    found: list[object] = []
    peak = peak_bytes(lambda: found.extend(pipeline.run(source, io.StringIO())))
    assert found == []
    # The text and the masked copy xDSL parses (one byte per character each), and what
    # does not depend on the number of lines; was more than 600 bytes a line.
    assert peak < 3 * len(text) + 4_000_000, peak / LINES


def test_skip_blank_keeps_no_memory_per_line() -> None:
    text = "// x\n  //y\r" * LINES + "z"
    assert lexer.skip_blank(text, 0) == len(text) - 1
    assert not lexer.is_blank(text)
    assert lexer.is_blank(text[:-1])
    assert peak_bytes(lambda: lexer.skip_blank(text, 0)) < 100_000
