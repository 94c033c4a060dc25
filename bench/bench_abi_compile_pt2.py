"""`abi-compile model.pt2 -o model.vmfb` (one file, weights inside) against iree-turbine +
iree-compile on the same `.pt2` (`torch.export.load`, `aot.export(program).compile(
save_to=…)`), and `abi-compile --parameters` (weights beside, in an `.irpa`): each a whole
process, wall time and peak resident memory (the process and what it waited for,
`os.wait4`), in interleaved rounds in one run (the machine is noisy: the ratio of the
medians is the figure).

The model is a stack of bias-free 4096 × 4096 linear layers (64 MiB each) with ReLUs, as
many as ``--megabytes`` asks for, saved with `torch.export.save` once per size.

    python bench/bench_abi_compile_pt2.py [--megabytes 256,1024] [--rounds 3]
        [--output bench/RESULTS_abi_compile_pt2.md]

Needs torch and iree-turbine. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MAKE = """
import sys, torch
megabytes, path, width = int(sys.argv[1]), sys.argv[2], 4096
torch.manual_seed(0)
stack = []
for _ in range(max(1, megabytes * (1 << 20) // (width * width * 4))):
    stack += [torch.nn.Linear(width, width, bias=False), torch.nn.ReLU()]
model = torch.nn.Sequential(*stack).eval()
torch.export.save(torch.export.export(model, (torch.randn(4, width),)), path)
"""

TURBINE = """
import sys, warnings
warnings.simplefilter("ignore")
import torch
from iree.turbine import aot
aot.export(torch.export.load(sys.argv[1])).compile(save_to=sys.argv[2])
"""

WAYS = {
    "abi-compile": "`abi-compile model.pt2 -o model.vmfb` (weights inside)",
    "abi-compile --parameters": "`abi-compile model.pt2 -o model.vmfb --parameters model.irpa`",
    "turbine": "iree-turbine `aot.export(torch.export.load(…)).compile(save_to=…)`",
}


def _command(way: str, model: Path, folder: Path) -> list[str]:
    scripts = Path(sys.executable).parent
    if way == "turbine":
        return [sys.executable, "-c", TURBINE, str(model), str(folder / "turbine.vmfb")]
    command = [str(scripts / "abi-compile"), str(model), "-o", str(folder / "ours.vmfb"), "-q"]
    if way == "abi-compile --parameters":
        command += ["--parameters", str(folder / "ours.irpa")]
    return command


def _run(command: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (bytes) of a command run to its end."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    error = process.stderr.read().decode() if process.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed: {error}")
    return seconds, usage.ru_maxrss * 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", default="256,1024")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ways", default=",".join(WAYS))
    parser.add_argument("--output")
    args = parser.parse_args()
    ways = args.ways.split(",")
    lines = [
        "# `abi-compile` of a `.pt2` with big weights, against iree-turbine + iree-compile",
        "",
        f"`python bench/bench_abi_compile_pt2.py --megabytes {args.megabytes} --rounds "
        f"{args.rounds}`; Python {platform.python_version()}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start. Whole "
        "processes, interleaved rounds; the median of each way and its ratio to turbine's "
        "median.",
        "",
        "| weights | way | wall time (median, min–max) | ratio to turbine | peak memory |",
        "| --- | --- | --- | --- | --- |",
    ]
    with tempfile.TemporaryDirectory(prefix="bench-pt2-") as name:
        folder = Path(name)
        for megabytes in (int(part) for part in args.megabytes.split(",")):
            model = folder / f"model{megabytes}.pt2"
            subprocess.run([sys.executable, "-c", MAKE, str(megabytes), str(model)], check=True)
            for way in ways:  # a first run of each, not counted (caches, page cache)
                _run(_command(way, model, folder))
            found: dict[str, list[tuple[float, int]]] = {way: [] for way in ways}
            for _ in range(args.rounds):
                for way in ways:
                    found[way].append(_run(_command(way, model, folder)))
            base = statistics.median(seconds for seconds, _ in found["turbine"])
            for way in ways:
                times = [seconds for seconds, _ in found[way]]
                peak = max(rss for _, rss in found[way])
                lines.append(
                    f"| {megabytes} MiB | {WAYS[way]} | {statistics.median(times):.1f} s "
                    f"({min(times):.1f}–{max(times):.1f}) | "
                    f"{statistics.median(times) / base:.2f} | {peak / (1 << 30):.2f} GiB |"
                )
                print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
