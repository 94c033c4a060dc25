"""Per-call cost of a framework's model called with its original call, against what a
user of IREE alone writes for the same model: IREE's own `FunctionInvoker` on the flat
arrays, `.to_host()` on its results, and the framework's own unflatten back to the
original structure (`jax.tree_util.tree_unflatten`, `torch.utils._pytree.tree_unflatten`).

Two models, in one process, rounds interleaved:

* ``jax_train_step``: the flax + optax training step of tests/frontends/generate/models.py
  (a `TrainState` with optax's `ScaleByAdamState`/`EmptyState` and a batch dict in; the
  new state and a metrics dict holding `None` out). Ours: ``load(compile_vmfb(exported))``
  called with ``(state, batch)``, numpy results. Theirs: iree-compile on
  ``exported.mlir_module()`` (flat `main`), the invoker on the kept flat leaves (numpy).
* ``torch_dict``: ``{"x": [8, 16]} -> {"y": …, "h": …}`` through two linear layers.
  Ours: ``load(compile_vmfb(program))`` with torch tensors in and out. Theirs:
  iree-turbine's `.vmfb` (flat `main`), the invoker on the flat numpy arrays,
  ``torch.from_numpy`` on the host results and torch's unflatten.

    python bench/bench_call.py [--calls 500] [--rounds 7] [--output bench/RESULTS_call.md]

Needs JAX, flax, optax, torch and iree-turbine. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import sys
import timeit
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import numpy as np
import torch
from iree import runtime as rt
from iree.turbine import aot
from torch.utils import _pytree as torch_pytree

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from abi_compiler import iree as abi_iree
from tests.frontends.generate import models

warnings.filterwarnings("ignore")


def _invoker(vmfb: bytes) -> Any:
    context = rt.SystemContext(config=rt.Config("local-task"))
    vm_module = rt.VmModule.copy_buffer(context.instance, vmfb)
    context.add_vm_module(vm_module)
    return context.modules[vm_module.name]["main"]


def _host(values: Any) -> list[Any]:
    if not isinstance(values, (list, tuple)):
        values = [values]
    return [value.to_host() for value in values]


def jax_case() -> tuple[Callable[[], Any], Callable[[], Any]]:
    exported, args, kwargs = models.jax_train_step()
    ours = abi_iree.load(abi_iree.compile_vmfb(exported)).main
    leaves = jax.tree_util.tree_leaves((args, kwargs))
    flat_in = [
        np.asarray(leaf, aval.dtype) for leaf, aval in zip(leaves, exported.in_avals, strict=True)
    ]
    kept = [flat_in[i] for i in sorted(exported.module_kept_var_idx)]
    # Both sides get numpy arrays (what a server holds), in the original structure.
    args, kwargs = jax.tree_util.tree_unflatten(exported.in_tree, flat_in)
    theirs = _invoker(abi_iree.compile_vmfb(exported.mlir_module(), None))
    out_tree = exported.out_tree

    def baseline() -> Any:
        return jax.tree_util.tree_unflatten(out_tree, _host(theirs(*kept)))

    def call() -> Any:
        return ours(*args, **kwargs)

    _same(call(), baseline())
    return call, baseline


class DictModel(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.up = torch.nn.Linear(16, 32)
        self.down = torch.nn.Linear(32, 16)

    def forward(self, inputs: dict[str, Any]) -> dict[str, Any]:
        hidden = torch.relu(self.up(inputs["x"]))
        return {"y": self.down(hidden), "h": hidden}


def torch_case() -> tuple[Callable[[], Any], Callable[[], Any]]:
    torch.manual_seed(0)
    model = DictModel().eval()
    args = ({"x": torch.randn(8, 16)},)
    program = torch.export.export(model, args)
    ours = abi_iree.load(abi_iree.compile_vmfb(program)).main
    theirs = _invoker(aot.export(program).compile(save_to=None).map_memory())
    flat = [leaf.numpy() for leaf in torch_pytree.tree_leaves(args)]
    out_spec = program.call_spec.out_spec

    def baseline() -> Any:
        leaves = [torch.from_numpy(array) for array in _host(theirs(*flat))]
        return torch_pytree.tree_unflatten(leaves, out_spec)

    def call() -> Any:
        return ours(*args)

    _same(call(), baseline())
    return call, baseline


def _leaves(value: Any) -> list[Any]:
    """The array leaves, without a framework's registry (our results' types are rebuilt)."""
    if value is None:
        return []
    if dataclasses.is_dataclass(value):
        fields = [f.name for f in dataclasses.fields(value) if f.metadata.get("pytree_node", True)]
        return [leaf for name in fields for leaf in _leaves(getattr(value, name))]
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in _leaves(value[key])]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def _same(got: Any, expected: Any) -> None:
    got_leaves = _leaves(got)
    expected_leaves = _leaves(expected)
    assert len(got_leaves) == len(expected_leaves)
    for a, b in zip(got_leaves, expected_leaves, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=500, help="calls per round")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--output", help="write the results as markdown to this file")
    options = parser.parse_args()
    cases = {"jax_train_step": jax_case(), "torch_dict": torch_case()}
    best = {(name, side): float("inf") for name in cases for side in ("ours", "theirs")}
    for _ in range(options.rounds):  # interleaved: every case and side in every round
        for name, (ours, theirs) in cases.items():
            for side, function in (("ours", ours), ("theirs", theirs)):
                seconds = timeit.timeit(function, number=options.calls) / options.calls
                best[name, side] = min(best[name, side], seconds)
    load = os.getloadavg()[0]
    lines = [
        "# Per call: the original call through `abi_compiler.iree` vs IREE's invoker + "
        "`.to_host()` + the framework's unflatten",
        "",
        f"`python bench/bench_call.py --calls {options.calls} --rounds {options.rounds}`; "
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, "
        f"jax {jax.__version__}, torch {torch.__version__}, load average {load:.1f} at the "
        "end. Best round of each; device `local-task`; both sides in one process, rounds "
        "interleaved.",
        "",
        "| model | ours (loaded `.vmfb`, original call) | IREE invoker + to_host + unflatten | ratio |",
        "| --- | --- | --- | --- |",
    ]
    for name in cases:
        ours_time, theirs_time = best[name, "ours"], best[name, "theirs"]
        lines.append(
            f"| `{name}` | {ours_time * 1e6:.0f} µs | {theirs_time * 1e6:.0f} µs | "
            f"{ours_time / theirs_time:.2f} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if options.output:
        Path(options.output).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
