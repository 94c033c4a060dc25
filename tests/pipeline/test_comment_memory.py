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


# `abi-sig show`'s reading (the function headers, and the structure `materialize-iree-abi`
# gives them) of a module of a few functions and many comment lines, in a child process
# (a fresh interpreter: nothing from other tests counted). The positions of the functions
# were a list of every line's start (~36 bytes a line: ~10x the text for `//ab` lines).
_SHOW_PEAK = """
import sys, tracemalloc
from abi_compiler.signatures import module_signatures
lines = int(sys.argv[1])
data = (b"module {\\n  func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\\n" + b"//ab\\n" * lines
        + b"    return %a : tensor<2xf32>\\n  }\\n}\\n")
module_signatures.read_module(b"module {}", "warm.mlir")
tracemalloc.start()
[function] = module_signatures.read_module(data, "comments.mlir")
assert function.name == "f", function
print(tracemalloc.get_traced_memory()[1], len(data))
"""


def test_signatures_of_a_module_of_many_comment_lines_keep_no_memory_per_line() -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _SHOW_PEAK, str(LINES)],
        capture_output=True,
        text=True,
        check=True,
    )
    peak, size = (int(word) for word in done.stdout.split())
    # The text, its decoded copy and the pipeline's masked copy and output; was ~10x.
    assert peak < 5 * size + 2_000_000, peak / size


def test_line_col_of_offsets_in_any_order() -> None:
    import random

    text = "a\nbé\n\n// c\r\nd" * 50
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]

    def expected(offset: int) -> tuple[int, int]:
        line = sum(1 for s in starts if s <= offset)
        start = starts[line - 1]
        return line, len(text[start:offset].encode("utf-8")) + 1

    offsets = list(range(len(text) + 1)) * 2
    random.Random(7).shuffle(offsets)
    source = SourceFile("t.mlir", text)
    assert [source.line_col(o) for o in offsets] == [expected(o) for o in offsets]
    assert source.position(len(text)) == f"t.mlir:{expected(len(text))[0]}:{expected(len(text))[1]}"
