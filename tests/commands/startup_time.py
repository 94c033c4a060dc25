"""Start-up time of `abi-opt` against `xdsl-opt` on a tiny module (bench/README.md: within 1.2x).

Run: `python tests/commands/startup_time.py [runs]`. Not a pytest test (timing is noisy).
The two tools run alternately; it prints the median wall-clock and CPU (user + system)
time of each and the ratios. CPU time is the steadier number on a loaded machine.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

TINY = "func.func @f(%a: i32) -> i32 {\n  func.return %a : i32\n}\n"


def _tool(name: str) -> str:
    return os.path.join(os.path.dirname(sys.executable), name)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(command: list[str]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), _cpu()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - wall, _cpu() - cpu


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(TINY)
    samples: dict[str, list[tuple[float, float]]] = {"xdsl-opt": [], "abi-opt": []}
    try:
        for _ in range(runs):
            for tool, times in samples.items():
                times.append(measure([_tool(tool), f.name]))
    finally:
        os.unlink(f.name)
    wall = {tool: statistics.median(t[0] for t in times) for tool, times in samples.items()}
    cpu = {tool: statistics.median(t[1] for t in times) for tool, times in samples.items()}
    for tool in samples:
        print(f"{tool:9} wall {wall[tool] * 1000:4.0f} ms   cpu {cpu[tool] * 1000:4.0f} ms")
    print(
        f"ratio     wall {wall['abi-opt'] / wall['xdsl-opt']:.2f}      "
        f"cpu {cpu['abi-opt'] / cpu['xdsl-opt']:.2f}"
    )


if __name__ == "__main__":
    main()
