"""One signature with many leaves: `flatten-signatures` and `wrap-entry-points` must be
linear in the number of leaves (before: one block-argument insertion per leaf made them
quadratic, 20 000 leaves 8 s, 40 000 over 19 s).

For each size the module is one exported function whose two arguments are tuples of
``n/2`` `i32` leaves each (plus a scalar). Every figure is a ratio of measurements from the
same run, each command run ``--repeat`` times interleaved with its baseline (median):

* pass / floor: `abi-opt -p <pass>` on the module vs `abi-opt` parsing and printing that
  pass's OUTPUT with no passes (the floor of docs/spec.md §12);
* scaling: pass time at 2n leaves / pass time at n (linear: about 2; quadratic: about 4),
  and the same for the floor.

Times are CPU seconds (user + system) of the child from `os.wait4`. Usage:

    python bench/bench_many_leaves.py              # 10 000, 20 000, 40 000 leaves, 3 repeats
    python bench/bench_many_leaves.py --quick      # 5 000, 10 000 leaves, 1 repeat
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

PASSES = ("flatten-signatures", "wrap-entry-points")


def module_text(leaves: int) -> str:
    half = "tuple<" + ", ".join(["i32"] * (leaves // 2)) + ">"
    return f"func.func @f(%p: {half}, %x: f32, %q: {half}) -> f32 {{\n  func.return %x : f32\n}}\n"


def cpu_seconds(command: list[str]) -> float:
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    stderr = process.stderr.read().decode() if process.stderr else ""
    if status != 0:
        sys.exit(f"failed ({status}): {' '.join(command)}\n{stderr}")
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=None)
    args = parser.parse_args()
    sizes = [5_000, 10_000] if args.quick else [10_000, 20_000, 40_000]
    repeat = args.repeat or (1 if args.quick else 3)
    abi_opt = str(Path(sys.executable).with_name("abi-opt"))
    times: dict[tuple[str, int], tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as work:
        for leaves in sizes:
            source = Path(work, f"in{leaves}.mlir")
            source.write_text(module_text(leaves))
            for name in PASSES:
                output = Path(work, f"{name}{leaves}.mlir")
                subprocess.run([abi_opt, str(source), "-p", name, "-o", str(output)], check=True)
                pass_runs, floor_runs = [], []
                for _ in range(repeat):
                    pass_runs.append(cpu_seconds([abi_opt, str(source), "-p", name]))
                    floor_runs.append(cpu_seconds([abi_opt, str(output)]))
                times[name, leaves] = (statistics.median(pass_runs), statistics.median(floor_runs))
                p, f = times[name, leaves]
                print(
                    f"{name:20} {leaves:6} leaves: pass {p:6.2f} s  floor {f:6.2f} s  pass/floor {p / f:5.2f}"
                )
    for name in PASSES:
        for small, large in itertools.pairwise(sizes):
            (p1, f1), (p2, f2) = times[name, small], times[name, large]
            print(
                f"{name:20} {large}/{small}: pass x{p2 / p1:4.2f}  floor x{f2 / f1:4.2f} "
                f"(leaves x{large / small:.0f})"
            )


if __name__ == "__main__":
    main()
