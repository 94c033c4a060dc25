"""Compile and call time of a `torch.export` program through `abi_compiler.iree.compile`
against iree-turbine's own path and IREE's own invoker, in the same run.

Two programs: ``mlp``, the MLP of tests/frontends/generate/models.py (a dict, a tuple, a
specialized number and two keyword tensors in; a dict holding a tuple holding a list,
and a namedtuple, out), and ``wide``, ``{"x": [64, 256]} → {"y": …, "h": …}`` through
256 → 1024 → 256 linear layers.

* compile: ``abi_iree.compile(program)`` (turbine's import, IREE's torch pipeline,
  `abi-opt -p iree-abi-v1`, iree-compile, load) against turbine's
  ``aot.export(program).compile(save_to=None)`` and loading its `.vmfb`; best of
  ``--compile-rounds``, alternating.
* call: ours — ``module.main(*args, **kwargs)`` with the torch values, returning the
  program's own pytree of torch tensors — against IREE's `FunctionInvoker` called
  with numpy arrays (``.to_host()`` on its results, the same host data), on our
  module (the call by its records) and on turbine's (its flat ``main``); best round of
  ``--calls`` calls, rounds alternating.

    python bench/bench_frontends.py [--calls 300] [--rounds 5] [--compile-rounds 3]
        [--output bench/RESULTS_frontends.md]

Needs torch and iree-turbine (the `torch` extra). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import timeit
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from iree import runtime as rt
from iree.turbine import aot

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from abi_compiler import iree as abi_iree
from tests.frontends.generate import models

warnings.filterwarnings("ignore", category=FutureWarning)
warnings.filterwarnings("ignore", category=DeprecationWarning)


class Wide(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.up = torch.nn.Linear(256, 1024)
        self.down = torch.nn.Linear(1024, 256)

    def forward(self, inputs: dict[str, Any]) -> dict[str, Any]:
        hidden = torch.relu(self.up(inputs["x"]))
        return {"y": self.down(hidden), "h": hidden}


def programs() -> dict[str, tuple[Any, tuple[Any, ...], dict[str, Any]]]:
    torch.manual_seed(0)
    mlp, args, kwargs = models.torch_mlp()
    wide = Wide().eval()
    return {"mlp": (mlp, args, kwargs), "wide": (wide, ({"x": torch.randn(64, 256)},), {})}


def _numpy(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().numpy()
    if isinstance(value, dict):
        return {key: _numpy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_numpy(item) for item in value]
    if isinstance(value, tuple):
        return tuple(_numpy(item) for item in value)
    return value


def _host(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _host(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_host(item) for item in value]
    return value.to_host() if hasattr(value, "to_host") else value


def _iree_function(vmfb: Any) -> Any:
    context = rt.SystemContext(config=rt.Config("local-task"))
    context.add_vm_module(rt.VmModule.copy_buffer(context.instance, vmfb))
    return context.modules.module["main"]


def _best(functions: dict[str, Callable[[], Any]], number: int, rounds: int) -> dict[str, float]:
    best = {name: float("inf") for name in functions}
    for _ in range(rounds):
        for name, call in functions.items():
            best[name] = min(best[name], timeit.timeit(call, number=number) / number)
    return best


def measure(name: str, entry: Any, args: argparse.Namespace) -> list[str]:
    module, call_args, call_kwargs = entry
    program = torch.export.export(module, call_args, call_kwargs)
    ours_compile = theirs_compile = float("inf")
    ours: Any = None
    theirs_vmfb: Any = None
    for _ in range(args.compile_rounds):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", abi_iree.CompileWarning)
            ours = abi_iree.compile(program)
        ours_compile = min(ours_compile, time.perf_counter() - start)
        start = time.perf_counter()
        theirs_vmfb = aot.export(program).compile(save_to=None)
        theirs_main = _iree_function(theirs_vmfb.map_memory())
        theirs_compile = min(theirs_compile, time.perf_counter() - start)

    # Our module's call by its records, with numpy values, for IREE's invoker on the same
    # module (the numbers torch specialized have no record); turbine's main takes the
    # flat tensors.
    assert ours is not None
    record_args = _numpy(tuple(a for a in call_args if not isinstance(a, (int, float))))
    record_kwargs = _numpy(call_kwargs)
    ours_by_iree = _iree_function(abi_iree.compile_vmfb(adapter_source(program)))
    flat = [
        leaf.numpy()
        for leaf in torch.utils._pytree.tree_leaves((call_args, call_kwargs))
        if isinstance(leaf, torch.Tensor)
    ]
    with torch.no_grad():
        expected = _numpy(module(*call_args, **call_kwargs))
    np.testing.assert_allclose(
        _leaves(_numpy(ours.main(*call_args, **call_kwargs)))[0],
        _leaves(expected)[0],
        rtol=1e-4,
        atol=1e-5,
    )
    best = _best(
        {
            "ours": lambda: ours.main(*call_args, **call_kwargs),
            "iree_ours": lambda: _host(ours_by_iree(*record_args, **record_kwargs)),
            "iree_turbine": lambda: _host(theirs_main(*flat)),
        },
        args.calls,
        args.rounds,
    )
    return [
        f"| `{name}` | {ours_compile:.2f} s | {theirs_compile:.2f} s | "
        f"{ours_compile / theirs_compile:.2f} | {best['ours'] * 1e6:.0f} µs | "
        f"{best['iree_ours'] * 1e6:.0f} µs | {best['ours'] / best['iree_ours']:.2f} | "
        f"{best['iree_turbine'] * 1e6:.0f} µs | {best['ours'] / best['iree_turbine']:.2f} |"
    ]


def adapter_source(program: Any) -> str:
    from abi_compiler.frontends import torch as torch_frontend

    return torch_frontend.to_mlir(program)


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300, help="calls per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--compile-rounds", type=int, default=3)
    parser.add_argument("--output", help="write the results as markdown to this file")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    lines = [
        "# torch.export programs: `abi_compiler.iree.compile` vs iree-turbine and IREE's invoker",
        "",
        f"`python bench/bench_frontends.py --calls {args.calls} --rounds {args.rounds} "
        f"--compile-rounds {args.compile_rounds}`; Python {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} CPUs, torch {torch.__version__}, "
        f"iree-base-runtime {_version('iree-base-runtime')}, "
        f"iree-turbine {_version('iree-turbine')}, load average {load:.1f} at the start. "
        "Best round; ratios are ours / theirs in the same run; device `local-task`.",
        "",
        "| program | compile: ours | turbine `aot.export().compile()` + load | ratio "
        "| call: ours (torch in, pytree of torch out) | IREE invoker, our module "
        "| ratio | IREE invoker, turbine's module | ratio |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, entry in programs().items():
        lines += measure(name, entry, args)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")


def _version(package: str) -> str:
    from importlib.metadata import version

    return version(package)


if __name__ == "__main__":
    main()
