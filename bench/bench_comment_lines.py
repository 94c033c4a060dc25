"""Comment lines after a function: `abi-opt -p iree-abi-v1` on one small module followed
by N `//` lines, today vs the `abi-opt` of an earlier commit (``--before``, default
562832c, the last commit whose scanner skipped the rest of the comments again at each
line end), run from a `git archive` of it with the same installed dependencies (as
`bench_carried.py` does).

For each N (5 000 to 160 000 lines, doubling; the old tool up to ``--before-max``, 20 000
by default: its time at 40 000 lines is minutes) both run interleaved ``--repeat`` times
with the same module without comments (median CPU seconds of the child). The figures are
ratios taken in the same run: before / today at each N, and for each tool the time the
lines add (time at N minus time with none) at 2N over that at N: about 2 for linear time,
4 for quadratic. The module with the lines before the function is measured too (it was
linear already).

Usage: ``python bench/bench_comment_lines.py [--repeat N] [--before COMMIT]``; figures in
bench/RESULTS.md. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_carried import run_tree_command, tree_at, write
from bench_pipelines import machine, measure_together, tool

BEFORE = "562832c"
SIZES = (5000, 10000, 20000, 40000, 80000, 160000)

_FUNCTION = (
    "module {\n"
    "  func.func @f(%a: tensor<4xf32>, %b: tuple<i32, i32>) -> tensor<4xf32> {\n"
    "    return %a : tensor<4xf32>\n"
    "  }\n"
    "}\n"
)


def module(lines: int, after: bool) -> str:
    """`_FUNCTION` with ``lines`` comment lines after it (``after``) or before it."""
    comments = "".join(f"// comment line {i} with some words in it\n" for i in range(lines))
    return _FUNCTION + comments if after else comments + _FUNCTION


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", default=BEFORE, help="'' for none")
    parser.add_argument("--before-max", type=int, default=20000)
    args = parser.parse_args()
    abi_opt = tool("abi-opt")
    print(f"# bench_comment_lines on {machine()}\n")
    with tempfile.TemporaryDirectory() as work:
        before = tree_at(args.before, work) if args.before else None
        for after in (True, False):
            print(f"## comment lines {'after' if after else 'before'} the function")
            seconds: dict[str, dict[int, float]] = {"today": {}, "before": {}}
            for lines in SIZES:
                path = write(work, f"comments-{lines}.mlir", module(lines, after))
                bare = write(work, "no-comments.mlir", module(0, after))
                commands = {
                    "today": [abi_opt, path, "-p", "iree-abi-v1"],
                    "today-0": [abi_opt, bare, "-p", "iree-abi-v1"],
                }
                if before is not None and lines <= args.before_max:
                    commands["before"] = run_tree_command(before, [path, "-p", "iree-abi-v1"])
                    commands["before-0"] = run_tree_command(before, [bare, "-p", "iree-abi-v1"])
                measured = measure_together(commands, args.repeat)
                row = []
                for key in ("today", "before"):
                    if key in measured:
                        total, bare_time = measured[key].cpu, measured[f"{key}-0"].cpu
                        seconds[key][lines] = total - bare_time
                        row.append(f"{key} {total:6.2f} s ({total - bare_time:+6.2f} s)")
                if "before" in measured:
                    ratio = measured["before"].cpu / measured["today"].cpu
                    row.append(f"before/today {ratio:5.1f}x")
                print(f"  {lines:6} lines: " + ", ".join(row))
            for key, added in seconds.items():
                steps = [f"{added[2 * n] / added[n]:.2f}" for n in SIZES if 2 * n in added]
                if steps:
                    print(f"  {key}: time the lines add at 2N / at N = {', '.join(steps)}")
            print()


if __name__ == "__main__":
    main()
