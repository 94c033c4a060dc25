"""The garbage-collector tuning of `abi-opt` (`abi_compiler.commands.opt_main.collector_phase`):
a library run (`Pipeline`, which leaves the collector alone) against `abi-opt`'s
pipeline (the same with ``phase=collector_phase``) on the same generated module (bench_pipelines.py's generator), each
run in a fresh child process, alternately; CPU seconds of the run itself, median.

    python bench/bench_collector.py [functions] [repeats]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_pipelines

CHILD = """
import io, sys, time
from abi_compiler.pipeline import SourceFile
from abi_compiler.pipeline.run import Pipeline
from abi_compiler.commands.opt_main import collector_phase
phase = collector_phase if sys.argv[2] == "cli" else None
text = open(sys.argv[1]).read()
pipeline = Pipeline.parse("iree-abi-v1", phase=phase)
start = time.process_time()
diagnostics = pipeline.run(SourceFile(sys.argv[1], text), io.StringIO())
print(time.process_time() - start, len(diagnostics))
"""


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    structured, _, _ = bench_pipelines.generate(count, seed=1)
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "module.mlir"
        path.write_text(structured)
        times: dict[str, list[float]] = {"library": [], "cli": []}
        for _ in range(repeats):
            for kind in times:
                done = subprocess.run(
                    [sys.executable, "-c", CHILD, str(path), kind],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                seconds, errors = done.stdout.split()
                assert errors == "0", done.stdout
                times[kind].append(float(seconds))
    library, cli = (statistics.median(times[k]) for k in ("library", "cli"))
    print(f"{count} functions, iree-abi-v1, CPU s (median of {repeats}):")
    print(f"  library (collector untouched): {library:.2f}  {times['library']}")
    print(f"  abi-opt (collector tuned):     {cli:.2f}  {times['cli']}")
    print(f"  library / abi-opt: {library / cli:.2f}")


if __name__ == "__main__":
    main()
