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

Every figure is CPU time per call (`time.process_time`). A second table puts the
``torch_dict`` model beside the engines a user would call instead, single thread, in
the same rounds: ONNX Runtime's `InferenceSession.run` on its ONNX export
(`torch.onnx.export`; numpy in and out), eager torch, ours on `local-sync` with numpy
in and out (``results="numpy"``) and with torch tensors in and out, and the
floor: IREE's `VmContext.invoke` on prebuilt argument and result lists (no conversion at
all). A third, ours with a 4 MiB argument aligned (read in place) and unaligned (copied):
docs/calling.md, "Arguments read in place". Each figure is the best round; each ratio
is per round (min / median / max).

    python bench/bench_call.py [--calls 500] [--rounds 7] [--output bench/RESULTS_call.md]
    python bench/bench_call.py --engines-only  # the engines table alone
    python bench/bench_call.py --phases  # where one call of ours goes, phase by phase
    python bench/bench_call.py --floors  # the dict model under each of FLAG_VARIANTS
    python bench/bench_call.py --touches  # ours after one read of a torch tensor

Needs JAX, flax, optax, torch and iree-turbine; onnxruntime for its row. Not part of
the test suite.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import itertools
import os
import platform
import statistics
import sys
import time
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


def _dict_model() -> tuple[DictModel, torch.Tensor, Any]:
    """The dict model (seeded), its argument ``x`` [8, 16] and its exported program."""
    torch.manual_seed(0)
    model = DictModel().eval()
    x = torch.randn(8, 16)
    return model, x, torch.export.export(model, ({"x": x},))


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


def _floor(function: Any, xn: np.ndarray) -> Callable[[], Any]:
    """IREE's `VmContext.invoke` of the dict model's ``function`` on an argument list built
    once (and a fresh result list): no conversion at all."""
    context, vm_function = function._context, function.vm_function
    arguments = rt.VmVariantList(1)
    arguments.push_list(function._vm_arguments([[xn]], True).get_as_list(0))

    def floor() -> Any:
        results = rt.VmVariantList(2)
        context.invoke(vm_function, arguments, results)
        return results

    return floor


def _onnx_run(model: torch.nn.Module, x: torch.Tensor, expected: Any) -> Callable[[], Any] | None:
    """ONNX Runtime's `run` of the dict model (single thread, numpy in and out), its
    results checked against ``expected``; None (and why, printed) without onnxruntime."""
    try:
        import onnxruntime
    except ImportError as error:
        print(f"ONNX Runtime: cannot run ({error})")
        return None
    stream = io.BytesIO()
    torch.onnx.export(
        model, ({"x": x}, {}), stream, input_names=["x"], output_names=["y", "h"], dynamo=False
    )
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(
        stream.getvalue(), options, providers=["CPUExecutionProvider"]
    )
    xn = x.numpy()
    _same(dict(zip(["y", "h"], session.run(None, {"x": xn}), strict=True)), expected)
    return lambda: session.run(None, {"x": xn})


def engines_case() -> dict[str, Callable[[], Any]]:
    """The dict model called by each engine, numpy in and out unless named torch."""
    torch.set_num_threads(1)
    model, x, program = _dict_model()
    xn = x.numpy()
    vmfb = abi_iree.compile_vmfb(program)
    as_numpy = abi_iree.load(vmfb, device="local-sync", results="numpy").main
    as_torch = abi_iree.load(vmfb, device="local-sync").main
    cases: dict[str, Callable[[], Any]] = {
        "ours, numpy": lambda: as_numpy({"x": xn}),
        "ours, torch": lambda: as_torch({"x": x}),
        "IREE invoke, prebuilt lists (floor)": _floor(as_numpy, xn),
        "eager torch": lambda: model({"x": x}),
    }
    run = _onnx_run(model, x, as_numpy({"x": xn}))
    if run is not None:
        cases["ONNX Runtime run"] = run
    return cases


#: iree-compile flags given after `compile_flags`' (`--floors`): the dict model as
#: main compiled it before reusable command buffers and the data-tiling threshold, and
#: with each of the two changes alone.
FLAG_VARIANTS: dict[str, tuple[str, ...]] = {
    "data-tiled, recorded per call": (
        "--iree-hal-indirect-command-buffers=false",
        "--iree-opt-generalize-matmul=false",
        "--iree-opt-data-tiling=true",
    ),
    "data-tiled, reusable": ("--iree-opt-generalize-matmul=false", "--iree-opt-data-tiling=true"),
    "not data-tiled, recorded per call": ("--iree-hal-indirect-command-buffers=false",),
    "not data-tiled, reusable (compile_flags)": (),
}


def floors_case() -> dict[str, Callable[[], Any]]:
    """Per `FLAG_VARIANTS` entry, the dict model's floor (IREE's invoke on prebuilt lists)
    and our numpy call, beside ONNX Runtime's run."""
    torch.set_num_threads(1)
    model, x, program = _dict_model()
    xn = x.numpy()
    with torch.no_grad():
        expected = model({"x": x})
    cases: dict[str, Callable[[], Any]] = {}
    for name, flags in FLAG_VARIANTS.items():
        vmfb = abi_iree.compile_vmfb(program, extra_args=flags)
        function = abi_iree.load(vmfb, device="local-sync", results="numpy").main
        _same(function({"x": xn}), expected)
        cases[f"floor, {name}"] = _floor(function, xn)
        cases[f"ours, numpy, {name}"] = lambda function=function: function({"x": xn})
    run = _onnx_run(model, x, expected)
    if run is not None:
        cases["ONNX Runtime run"] = run
    return cases


def touches_case() -> dict[str, Callable[[], Any]]:
    """Our numpy call right after one read of a torch tensor (and the reads alone): what
    going through torch at all costs the rest of a call (`--touches`)."""
    _, x, program = _dict_model()
    xn = x.numpy()
    vmfb = abi_iree.compile_vmfb(program)
    as_numpy = abi_iree.load(vmfb, device="local-sync", results="numpy").main
    reads: dict[str, Callable[[], Any]] = {
        "x.shape": lambda: x.shape,
        "x.numpy()": x.numpy,
        "the 8 reads the checks need": lambda: (
            x.dtype,
            x.shape,
            x.stride(),
            x.requires_grad,
            x.is_conj(),
            x.is_neg(),
            x.device.type,
            x.data_ptr(),
        ),
    }
    cases: dict[str, Callable[[], Any]] = {
        "ours, numpy": lambda: as_numpy({"x": xn}),
        "ours, torch": lambda: as_numpy({"x": x}),
    }
    for name, read in reads.items():
        cases[f"{name}, then ours, numpy"] = lambda read=read: (read(), as_numpy({"x": xn}))
        cases[f"{name} alone"] = read
    return cases


def phases(calls: int) -> list[str]:
    """Markdown rows: the dict model's call (ours, numpy and torch) timed phase by phase
    inside the call itself (`time.perf_counter_ns` between the steps `_call_original`
    takes: bind and check, the VM argument list, invoke, reading the results, the
    rebuild, freeing the lists), median and 10th percentile of ``calls`` calls."""
    _, x, program = _dict_model()
    vmfb = abi_iree.compile_vmfb(program)
    clock = time.perf_counter_ns
    rows = []
    for name, results, value in (("numpy", "numpy", x.numpy()), ("torch", None, x)):
        function = abi_iree.load(vmfb, device="local-sync", results=results).main
        plan, args = function._plan, ({"x": value},)
        spans: list[list[int]] = [[] for _ in range(7)]
        for _ in range(calls):
            t0 = clock()
            packed, _, sent = plan.bind(args, {})
            t1 = clock()
            arguments = function._vm_arguments(packed, False)
            t2 = clock()
            vm_results = function._invoke(arguments, len(function._readers))
            t3 = clock()
            flat: list[Any] = [None] * function._result_count
            for position, read in enumerate(function._flat_readers):
                read(vm_results, position, flat)
            t4 = clock()
            plan.rebuild(flat, sent)
            t5 = clock()
            del vm_results, arguments, packed
            t6 = clock()
            function(*args)
            t7 = clock()
            steps = itertools.pairwise((t0, t1, t2, t3, t4, t5, t6))
            for span, (a, b) in zip(spans[:6], steps, strict=True):
                span.append(b - a)
            spans[6].append(t7 - t6)
        cells = []
        for span in spans:
            span.sort()
            cells.append(f"{span[len(span) // 2] / 1e3:.2f} ({span[len(span) // 10] / 1e3:.2f})")
        rows.append(f"| ours, {name} | " + " | ".join(cells) + " |")
    return rows


def big_argument_case() -> dict[str, Callable[[], Any]]:
    """f(x) = x.sum() on 4 MiB: aligned (sent in place) and unaligned (copied)."""
    program = torch.export.export(SumModel(), (torch.zeros(1024, 1024),))
    function = abi_iree.load(
        abi_iree.compile_vmfb(program), device="local-sync", results="numpy"
    ).main
    aligned = torch.rand(1024, 1024).numpy()  # torch aligns to 64 bytes
    raw = np.empty(1024 * 1024 + 1, np.float32)
    offset = 1 if aligned.__array_interface__["data"][0] % 64 == 0 else 0
    unaligned = raw[offset : offset + 1024 * 1024].reshape(1024, 1024)
    if unaligned.__array_interface__["data"][0] % 64 == 0:
        unaligned = raw[1 - offset : 1 - offset + 1024 * 1024].reshape(1024, 1024)
    unaligned[...] = aligned
    return {
        "4 MiB argument, aligned (in place)": lambda: function(aligned),
        "4 MiB argument, unaligned (copied)": lambda: function(unaligned),
    }


class SumModel(torch.nn.Module):
    def forward(self, x: Any) -> Any:
        return x.sum()


def _cpu_seconds(function: Callable[[], Any], calls: int) -> float:
    """CPU seconds per call (time off the CPU, on a loaded machine, not counted)."""
    return timeit.Timer(function, timer=time.process_time).timeit(calls) / calls


def _spread(values: list[float]) -> str:
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


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


def _table(cases: dict[str, Callable[[], Any]], base: str, calls: int, rounds: int) -> str:
    """Markdown rows: each case's median and best µs per call (CPU time) over ``rounds``
    interleaved rounds, and its ratio to ``base`` per round (min / median / max)."""
    seconds: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, function in cases.items():
            seconds[name].append(_cpu_seconds(function, calls))
    lines = [
        f"| case | median µs | best µs | ÷ {base} per round (min / median / max) |",
        "| --- | --- | --- | --- |",
    ]
    for name, values in seconds.items():
        ratios = [a / b for a, b in zip(values, seconds[base], strict=True)]
        lines.append(
            f"| {name} | {statistics.median(values) * 1e6:.2f} | {min(values) * 1e6:.2f} | "
            f"{_spread(ratios)} |"
        )
    return "\n".join(lines) + f"\n\nload average {os.getloadavg()[0]:.1f} at the end"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=500, help="calls per round")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--output", help="write the results as markdown to this file")
    parser.add_argument(
        "--engines-only",
        action="store_true",
        help="only the dict model beside other engines (no compile of the other cases)",
    )
    parser.add_argument(
        "--phases",
        action="store_true",
        help="only the phases of ours on the dict model (µs per call, median and 10th percentile)",
    )
    parser.add_argument(
        "--floors",
        action="store_true",
        help="only the dict model compiled with each of FLAG_VARIANTS: IREE's invoke and ours",
    )
    parser.add_argument(
        "--touches",
        action="store_true",
        help="only ours (numpy) after one read of a torch tensor, and the reads alone",
    )
    options = parser.parse_args()
    if options.floors or options.touches:
        table = floors_case() if options.floors else touches_case()
        base = "ONNX Runtime run" if "ONNX Runtime run" in table else "ours, numpy"
        print(_table(table, base, options.calls, options.rounds))
        return
    if options.phases:
        print(
            "| call | bind + checks | VM argument list | invoke | read results | rebuild | "
            "free lists | whole call |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        print("\n".join(phases(options.calls)))
        return
    if options.engines_only:
        cases: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {}
        big: dict[str, Callable[[], Any]] = {}
    else:
        cases = {"jax_train_step": jax_case(), "torch_dict": torch_case()}
        big = big_argument_case()
    engines = engines_case()
    best = {(name, side): float("inf") for name in cases for side in ("ours", "theirs")}
    rounds: dict[str, list[float]] = {name: [] for name in (*engines, *big)}
    for _ in range(options.rounds):  # interleaved: every case and side in every round
        for name, (ours, theirs) in cases.items():
            for side, function in (("ours", ours), ("theirs", theirs)):
                seconds = _cpu_seconds(function, options.calls)
                best[name, side] = min(best[name, side], seconds)
        for name, function in engines.items():
            rounds[name].append(_cpu_seconds(function, options.calls))
        for name, function in big.items():
            rounds[name].append(_cpu_seconds(function, max(1, options.calls // 50)))
    load = os.getloadavg()[0]
    lines = [
        "# Per call: the original call through `abi_compiler.iree` vs IREE's invoker + "
        "`.to_host()` + the framework's unflatten",
        "",
        f"`python bench/bench_call.py --calls {options.calls} --rounds {options.rounds}`; "
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, "
        f"jax {jax.__version__}, torch {torch.__version__}, load average {load:.1f} at the "
        "end. CPU time per call (`time.process_time`), best round of each; device "
        "`local-task`; both sides in one process, rounds interleaved.",
        "",
    ]
    if cases:
        lines += [
            "| model | ours (loaded `.vmfb`, original call) | IREE invoker + to_host + "
            "unflatten | ratio |",
            "| --- | --- | --- | --- |",
        ]
    for name in cases:
        ours_time, theirs_time = best[name, "ours"], best[name, "theirs"]
        lines.append(
            f"| `{name}` | {ours_time * 1e6:.0f} µs | {theirs_time * 1e6:.0f} µs | "
            f"{ours_time / theirs_time:.2f} |"
        )
    base = "ONNX Runtime run" if "ONNX Runtime run" in rounds else "ours, numpy"
    lines += [
        "",
        "## The dict model beside other engines (single thread, `local-sync`)",
        "",
        f"| engine | best µs/call | ÷ {base} per round (min / median / max) |",
        "| --- | --- | --- |",
    ]
    for name in engines:
        ratios = [a / b for a, b in zip(rounds[name], rounds[base], strict=True)]
        lines.append(f"| {name} | {min(rounds[name]) * 1e6:.1f} | {_spread(ratios)} |")
    torch_ratio = [a / b for a, b in zip(rounds["ours, torch"], rounds["ours, numpy"], strict=True)]
    lines += [
        "",
        f"Ours with torch tensors ÷ ours with numpy arrays, per round: {_spread(torch_ratio)}.",
    ]
    if big:
        lines += ["", "| one argument of 4 MiB, `x.sum()` | best µs/call |", "| --- | --- |"]
        lines += [f"| {name} | {min(rounds[name]) * 1e6:.1f} |" for name in big]
    text = "\n".join(lines) + "\n"
    print(text)
    if options.output:
        Path(options.output).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
