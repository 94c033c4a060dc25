"""Start-up time of `abi-opt` against `xdsl-opt` on a tiny module (issue 2: within 1.2x).

Run: `python tests/driver/startup_time.py [runs]`. Not a pytest test (timing is noisy);
prints the median wall time of each tool and the ratio.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

TINY = "func.func @f(%a: i32) -> i32 {\n  func.return %a : i32\n}\n"


def _tool(name: str) -> str:
    return os.path.join(os.path.dirname(sys.executable), name)


def median_seconds(command: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(TINY)
    try:
        xdsl = median_seconds([_tool("xdsl-opt"), f.name], runs)
        abi = median_seconds([_tool("abi-opt"), f.name], runs)
    finally:
        os.unlink(f.name)
    print(f"xdsl-opt {xdsl * 1000:.0f} ms, abi-opt {abi * 1000:.0f} ms, ratio {abi / xdsl:.2f}")


if __name__ == "__main__":
    main()
