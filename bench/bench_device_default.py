"""Where `local-task` starts to beat `local-sync`: wall-clock time per call of compiled
modules of growing weights on both local CPU drivers, to place `load`'s default
(`abi_compiler.calling.placement.LOCAL_TASK_BYTES`; docs/calling.md, "Devices and
targets").

Each case is one module loaded twice from the same `.vmfb` (``device="local-sync"`` and
``device="local-task"``, IREE's default topology: a worker per core). The cases:

* ``mlp-SIZE``: a decode-like chain, 4 bias-free `torch.nn.Linear(h, h)` products of one
  row (``h`` from the weights' SIZE: 4 h² floats), torch.export'ed and compiled as
  `abi_iree.compile` does (`cpu:host`, the weights inline);
* ``llama``: the decode step of bench_generate.py's Llama (4 layers, hidden 256, vocab
  2000, cache 256; one token a call, its KV cache in the module).

Rounds interleave the cases and the two devices; a round times ``--calls`` calls of each
(`time.perf_counter`: the time a caller waits, which a second thread can shorten, unlike
CPU time) after a warm-up. The table gives the module's bytes (`.vmfb` size: what
`load` decides by), each device's best time per call, and task ÷ sync per round (min /
median / max): below 1, `local-task` is faster.

    python bench/bench_device_default.py [--sizes 0.25,1,4,16,64,256] [--llama]
        [--rounds 7] [--calls 50]

Needs torch (transformers for ``--llama``). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

DEVICES = ("local-sync", "local-task")


def _mlp(megabytes: float) -> tuple[bytes, Callable[[Any], Callable[[], Any]]]:
    import torch

    from abi_compiler import iree as abi_iree

    width = int(math.sqrt(megabytes * 2**20 / 16))
    torch.manual_seed(0)
    model = torch.nn.Sequential(*(torch.nn.Linear(width, width, bias=False) for _ in range(4)))
    program = torch.export.export(model.eval(), (torch.zeros(1, width),))
    vmfb = abi_iree.compile_vmfb(program, target="cpu:host")
    row = np.ones((1, width), dtype=np.float32)

    def call(module: Any) -> Callable[[], Any]:
        return lambda: module.main(row)

    return vmfb, call


def _llama() -> tuple[bytes, Callable[[Any], Callable[[], Any]]]:
    import bench_generate

    from abi_compiler import iree as abi_iree

    program = bench_generate._export(bench_generate._model("bench"), 256)
    vmfb = abi_iree.compile_vmfb(program, target="cpu:host")
    token, position = np.array([[5]], dtype=np.int64), np.array([20], dtype=np.int64)

    def call(module: Any) -> Callable[[], Any]:
        session = module.session()
        return lambda: session.main(input_ids=token, cache_position=position)

    return vmfb, call


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="0.25,1,4,16,64,256", help="MiB of weights")
    parser.add_argument("--llama", action="store_true", help="add bench_generate's Llama step")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=50)
    args = parser.parse_args()

    from abi_compiler import iree as abi_iree

    made: dict[str, tuple[bytes, Callable[[Any], Callable[[], Any]]]] = {}
    for size in (float(text) for text in args.sizes.split(",") if text):
        made[f"mlp-{size:g}"] = _mlp(size)
    if args.llama:
        made["llama"] = _llama()
    calls: dict[tuple[str, str], Callable[[], Any]] = {}
    for name, (vmfb, call) in made.items():
        for device in DEVICES:
            calls[name, device] = call(abi_iree.load(vmfb, device=device, results="numpy"))
    for call in calls.values():  # warm-up: first touches of the weights
        for _ in range(3):
            call()
    times: dict[tuple[str, str], list[float]] = {key: [] for key in calls}
    load_start = os.getloadavg()[0]
    for _ in range(args.rounds):
        for key, call in calls.items():
            start = time.perf_counter()
            for _ in range(args.calls):
                call()
            times[key].append((time.perf_counter() - start) / args.calls)
    versions = ", ".join(
        f"{package} {metadata.version(package)}" for package in ("iree-base-runtime", "torch")
    )
    print(
        f"`python bench/bench_device_default.py {' '.join(sys.argv[1:])}`: {args.rounds} "
        f"interleaved rounds of {args.calls} calls, wall-clock per call; "
        f"{platform.machine()}, {os.cpu_count()} CPUs, {versions}; load average "
        f"{load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end.\n"
    )
    print("| case | module MiB | local-sync best ms | local-task best ms | task ÷ sync per round |")
    print("| --- | --- | --- | --- | --- |")
    for name, (vmfb, _) in made.items():
        sync, task = times[name, "local-sync"], times[name, "local-task"]
        ratios = [t / s for t, s in zip(task, sync, strict=True)]
        spread = " / ".join(
            f"{value:.2f}" for value in (min(ratios), statistics.median(ratios), max(ratios))
        )
        print(
            f"| {name} | {len(vmfb) / 2**20:.2f} | {min(sync) * 1e3:.3f} | "
            f"{min(task) * 1e3:.3f} | {spread} |"
        )
    return 0


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sys.exit(main())
