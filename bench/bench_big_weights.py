"""Peak memory and time to compile a torch program with big weights: `abi_compiler.iree.compile`
with the weights left out of the text (the default: an IREE parameter provider) and with
every weight inside it (``external_bytes=None``: the text path), against iree-turbine +
iree-compile (``aot.export(program).compile(save_to=None)``: the weights inline, as
bytecode resources).

The model is a stack of bias-free 4096 × 4096 linear layers (64 MiB each) with ReLUs, as
many as ``--megabytes`` asks for, called on a (4, 4096) batch. Each way runs in its own
process, which first does the same with a 1 MiB model (imports and first use are not
counted), then builds and exports the model, compiles it, loads it, checks one call
against eager, and reports its wall time from the start of compiling and the peak resident
memory of itself and of its largest child (iree-compile runs as a child of
`abi_iree.compile`; turbine's compiler runs in-process and starts iree-lld).

    python bench/bench_big_weights.py [--megabytes 1024] [--ways ours,text,turbine]
        [--output bench/RESULTS_big_weights.md]

Needs torch and iree-turbine. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYER = 4096
WAYS = {
    "ours": "`abi_iree.compile(program)` (weights in a parameter provider)",
    "text": "`abi_iree.compile` with every weight in the text",
    "turbine": "turbine `aot.export(program).compile()` + load",
}


def _model(megabytes: int) -> tuple[object, object]:
    import torch

    width = LAYER if megabytes else 512  # 0: one 1 MiB layer, to warm up
    layers = max(1, megabytes * (1 << 20) // (width * width * 4))
    torch.manual_seed(0)
    stack = []
    for _ in range(layers):
        stack += [torch.nn.Linear(width, width, bias=False), torch.nn.ReLU()]
    model = torch.nn.Sequential(*stack).eval()
    with torch.no_grad():
        for layer in model:
            if isinstance(layer, torch.nn.Linear):
                layer.weight.mul_(2.0)  # keep the activations' scale through the stack
    return model, torch.randn(4, width)


def run_one(way: str, megabytes: int, *, warm: bool = False) -> dict[str, float]:
    """One way, in this process: build, export, compile, load, check."""
    import numpy as np
    import torch

    sys.path.insert(0, str(ROOT))
    from abi_compiler import iree as abi_iree
    from abi_compiler.frontends import torch as torch_frontend

    warnings.simplefilter("ignore")
    if not warm:
        # The same way once on a tiny model first: imports and first-use set-up are not
        # counted.
        run_one(way, 0, warm=True)
    model, x = _model(megabytes)
    program = torch.export.export(model, (x,))
    parameters = sum(p.numel() * p.element_size() for p in model.parameters())
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    if way == "ours":
        module = abi_iree.compile(program)
        call = module.main
    elif way == "text":
        found = torch_frontend.program(program, external_bytes=None)
        vmfb = abi_iree.compile_vmfb(found.mlir)
        module = abi_iree.load(vmfb, types=found.types)  # the original call is in the .vmfb
        call = module.main
    else:
        from iree import runtime as rt
        from iree.turbine import aot

        binary = aot.export(program).compile(save_to=None)
        context = rt.SystemContext(config=rt.Config("local-task"))
        context.add_vm_module(rt.VmModule.copy_buffer(context.instance, binary.map_memory()))
        turbine_main = context.modules.module["main"]

        def call(value: object) -> object:
            return torch.from_numpy(turbine_main(value.numpy()).to_host())  # type: ignore[attr-defined]

    seconds = time.perf_counter() - start
    with torch.no_grad():
        expected = model(x).numpy()
    got = np.asarray(call(x))
    np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-3 * float(abs(expected).max()))
    return {
        "parameters": parameters,
        "seconds": seconds,
        "rss_before": before * 1024,
        "rss_self": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "rss_children": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=int, default=1024)
    parser.add_argument("--ways", default=",".join(WAYS))
    parser.add_argument("--output")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # run one way in this process
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.megabytes)))
        return
    load = os.getloadavg()[0]
    gib = 1 << 30
    lines = [
        "# Big weights: peak memory and time to compile",
        "",
        f"`python bench/bench_big_weights.py --megabytes {args.megabytes}`; Python "
        f"{platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, load "
        f"average {load:.1f} at the start. One process per way; time from the start of "
        "compiling to a loaded module; peak resident memory of the process (the model, its "
        "export and the compile) and of its largest child (iree-compile, iree-lld; Linux "
        "counts in a child's peak the parent's size when it was spawned, so that column is "
        "at least the parent's).",
        "",
        "| way | parameters | compile + load | peak memory: process | before compiling "
        "| peak memory: largest child |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for way in args.ways.split(","):
        process = subprocess.run(
            [sys.executable, __file__, "--megabytes", str(args.megabytes), "--one", way],
            capture_output=True,
            text=True,
            check=False,
        )
        if process.returncode != 0:
            lines.append(f"| {WAYS[way]} | failed: {process.stderr.strip().splitlines()[-1]} |")
            print(lines[-1], flush=True)
            continue
        found = json.loads(process.stdout.strip().splitlines()[-1])
        lines.append(
            f"| {WAYS[way]} | {found['parameters'] / gib:.2f} GiB | {found['seconds']:.1f} s | "
            f"{found['rss_self'] / gib:.2f} GiB | {found['rss_before'] / gib:.2f} GiB | "
            f"{found['rss_children'] / gib:.2f} GiB |"
        )
        print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
