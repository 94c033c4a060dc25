"""Per-call overhead of `abi_compiler.iree` against IREE's own `FunctionInvoker`.

Two functions, compiled once (`abi-opt -p iree-abi-v1`, then iree-compile for the host
CPU) and loaded twice on the same local CPU device, once through each invoker:

* ``dict8``: a dict of 8 ``tensor<4xf32>`` plus an ``i32`` and an ``f32`` scalar; returns
  a tensor and the i32 (a V1 wrapper that reads the dict from a ``!util.list<?>``);
* ``flat4``: 4 ``tensor<4xf32>`` → 1 tensor (no wrapper).

The bodies are one addition, so the time is marshalling and the VM call. IREE's invoker
returns `DeviceArray`s without touching their data; this project's returns numpy arrays
by default. Both are measured, and IREE's invoker is also measured with ``.to_host()`` on
its results (the same output as ours). Rounds alternate the invokers; each figure is the
best round's time per call, and each ratio is ours / IREE's in the same run.

    python bench/bench_iree_invoker.py [--calls 2000] [--rounds 7]
        [--device local-task --device local-sync] [--output bench/RESULTS_iree.md]

Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import timeit
from collections.abc import Callable
from typing import Any

import numpy as np
from iree import runtime as rt

from abi_compiler import iree as abi_iree

KEYS = [f"t{i}" for i in range(8)]
DICT = "!abi.dict<" + ", ".join(f'"{k}": tensor<4xf32>' for k in KEYS) + ">"
SOURCE = (
    f"func.func @dict8(%d: {DICT}, %n: i32, %s: f32) -> (tensor<4xf32>, i32) {{\n"
    + "".join(f'  %{k} = abi.dict.get %d["{k}"] : {DICT} -> tensor<4xf32>\n' for k in KEYS)
    + "  %sum = arith.addf %t0, %t7 : tensor<4xf32>\n"
    + "  func.return %sum, %n : tensor<4xf32>, i32\n}\n"
    + "func.func @flat4(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>,"
    + " %d: tensor<4xf32>) -> tensor<4xf32> {\n"
    + "  %sum = arith.addf %a, %d : tensor<4xf32>\n"
    + "  func.return %sum : tensor<4xf32>\n}\n"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls per round")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument(
        "--device",
        action="append",
        help="a HAL device (repeatable; default: local-task and local-sync)",
    )
    parser.add_argument("--output", help="write the results as markdown to this file")
    args = parser.parse_args()

    vmfb = abi_iree.compile_vmfb(SOURCE)
    devices = args.device or ["local-task", "local-sync"]
    lines = [
        "# `abi_compiler.iree` per-call overhead vs IREE's `FunctionInvoker`",
        "",
        f"`python bench/bench_iree_invoker.py --calls {args.calls} --rounds {args.rounds}`"
        f"; Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, "
        f"iree-base-runtime {_iree_version()}, load average {os.getloadavg()[0]:.1f} at the "
        "start. Best round, microseconds per call; ratio = ours / IREE's invoker in the same "
        "run.",
    ]
    for device in devices:
        best = measure(vmfb, device, args.calls, args.rounds)
        lines += [
            "",
            f"## device `{device}`",
            "",
            "| call | µs/call | ratio to IREE's invoker | ratio to IREE's invoker + to_host |",
            "| --- | ---: | ---: | ---: |",
        ]
        for name, seconds in best.items():
            function = name.split()[0]
            base = best[f"{function} IREE invoker"]
            base_host = best[f"{function} IREE invoker + to_host"]
            lines.append(
                f"| {name} | {seconds * 1e6:.1f} | {seconds / base:.2f} "
                f"| {seconds / base_host:.2f} |"
            )
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as stream:
            stream.write(text)


def measure(vmfb: bytes, device: str, calls: int, rounds: int) -> dict[str, float]:
    ours = abi_iree.load(vmfb, device=device)
    ours_device = abi_iree.load(vmfb, device=device, results="device")
    config = rt.Config(device=rt.get_device(device))
    context = rt.SystemContext(config=config)
    context.add_vm_module(rt.VmModule.copy_buffer(context.instance, vmfb))
    theirs = context.modules.module

    tensors = {k: np.arange(4, dtype=np.float32) + i for i, k in enumerate(KEYS)}
    flat = [tensors[k] for k in KEYS[:4]]

    def host(value: Any) -> Any:
        return tuple(host(v) for v in value) if isinstance(value, tuple) else value.to_host()

    dict_iree, flat_iree = theirs.dict8, theirs.flat4
    dict_ours, flat_ours = ours.dict8, ours.flat4
    dict_dev, flat_dev = ours_device.dict8, ours_device.flat4

    def dict8_host_iree() -> Any:
        result = dict_iree(tensors, 3, 1.5)
        return result[0].to_host(), result[1]

    # Same answers first.
    expected = tensors["t0"] + tensors["t7"]
    got = dict_ours(tensors, 3, 1.5)
    assert np.array_equal(got[0], expected) and got[1] == 3, got
    assert np.array_equal(dict8_host_iree()[0], expected)
    assert np.array_equal(flat_ours(*flat), flat_iree(*flat).to_host())

    cases: dict[str, Callable[[], Any]] = {
        "dict8 IREE invoker": lambda: dict_iree(tensors, 3, 1.5),
        "dict8 IREE invoker + to_host": dict8_host_iree,
        "dict8 abi_compiler.iree": lambda: dict_ours(tensors, 3, 1.5),
        "dict8 abi_compiler.iree results=device": lambda: dict_dev(tensors, 3, 1.5),
        "flat4 IREE invoker": lambda: flat_iree(*flat),
        "flat4 IREE invoker + to_host": lambda: flat_iree(*flat).to_host(),
        "flat4 abi_compiler.iree": lambda: flat_ours(*flat),
        "flat4 abi_compiler.iree results=device": lambda: flat_dev(*flat),
    }
    best = {name: float("inf") for name in cases}
    for _ in range(rounds):
        for name, call in cases.items():
            seconds = timeit.timeit(call, number=calls) / calls
            best[name] = min(best[name], seconds)

    return best


def _iree_version() -> str:
    from importlib.metadata import version

    return version("iree-base-runtime")


if __name__ == "__main__":
    main()
