"""The compiled decode step of bench_generate.py's Llama alone, by iree-compile flags:
the step (transformers' export recipe, one token, the KV cache in the module) compiled by
`abi_iree.compile_vmfb` with each set of flags added after `COMPILE_FLAGS` (a later flag
wins), each `.vmfb` timed by `iree-benchmark-module` (``--device=local-sync``, token 5 at
position 20), the sets interleaved round by round. The figure is the benchmark's CPU
time per call; ratios to the first set are per round (min / median / max).

    python bench/bench_step_flags.py [--cache 256] [--rounds 9]
        [--sets base,off,O3,reassociate,aggressive,transposes,ukernels,no-data-tiling]

``base`` is `COMPILE_FLAGS` as they are; ``off`` takes back the one flag added for speed
(``--iree-opt-generalize-matmul=false``). Needs torch and transformers. Not part of the
test suite.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

SETS: dict[str, list[str]] = {
    "base": [],
    "off": ["--iree-opt-generalize-matmul=false"],
    "O3": ["--iree-opt-level=O3", "--iree-opt-strip-assertions=false"],
    "reassociate": ["--iree-llvmcpu-reassociate-fp-reductions=true"],
    "aggressive": ["--iree-dispatch-creation-enable-aggressive-fusion=true"],
    "transposes": ["--iree-opt-aggressively-propagate-transposes=true"],
    "horizontal": ["--iree-dispatch-creation-enable-fuse-horizontal-contractions=true"],
    "ukernels": ["--iree-llvmcpu-enable-ukernels=mmt4d"],
    "no-data-tiling": ["--iree-opt-data-tiling=false"],
    # Command buffers recorded per call, as every module was before `plain_flags`.
    "direct": ["--iree-hal-indirect-command-buffers=false"],
    "indirect": ["--iree-hal-indirect-command-buffers=true"],
}
_TIME = re.compile(r"BM_main/process_time/real_time\s+([\d.]+) ms\s+([\d.]+) ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--sets", default="base,off,O3,reassociate,aggressive,transposes")
    args = parser.parse_args()

    import bench_generate

    from abi_compiler import iree as abi_iree

    program = bench_generate._export(bench_generate._model("bench"), args.cache)
    tool = str(Path(sys.executable).with_name("iree-benchmark-module"))
    folder = tempfile.mkdtemp(prefix="bench-step-")
    paths: dict[str, str] = {}
    for name in args.sets.split(","):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            data = abi_iree.compile_vmfb(program, extra_args=SETS[name])
        paths[name] = os.path.join(folder, f"{name}.vmfb")
        Path(paths[name]).write_bytes(data)
    times: dict[str, list[float]] = {name: [] for name in paths}
    for _ in range(args.rounds):
        for name, path in paths.items():
            output = subprocess.run(
                [
                    tool,
                    f"--module={path}",
                    "--device=local-sync",
                    "--function=main",
                    "--input=1x1xi64=5",
                    "--input=1xi64=20",
                    "--benchmark_min_time=0.2s",
                ],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            found = _TIME.search(output)
            assert found is not None, output
            times[name].append(float(found.group(2)))
    first = next(iter(times))
    print(f"| flags (cache {args.cache}) | CPU ms min | median | ÷ {first} per round |")
    print("| --- | --- | --- | --- |")
    for name, values in times.items():
        ratios = [a / b for a, b in zip(values, times[first], strict=True)]
        spread = f"{min(ratios):.2f} / {statistics.median(ratios):.2f} / {max(ratios):.2f}"
        flags = " ".join(SETS[name]) or "`COMPILE_FLAGS`"
        print(
            f"| {name}: {flags} | {min(values):.3f} | {statistics.median(values):.3f} | {spread} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
