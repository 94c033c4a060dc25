"""Compile time and per-call time against eager of each family of the zoo
(tests/frontends/zoo.py: BERT, GPT-2, Llama, T5 from transformers; a shape-polymorphic
flax MLP with LayerNorms), in one process.

* export: ``torch.export.export(model, (), kwargs)`` / ``jax.export.export(jit(apply))``.
* compile: ``abi_iree.compile(exported)`` (the frontend, `abi-opt -p iree-abi-v1`,
  iree-compile, load); best of ``--compile-rounds``.
* call: ``module.main(*args, **kwargs)`` — the original call, returning the original
  structure (a `ModelOutput` of torch tensors; a numpy array for flax) — against the
  eager model (``model(**kwargs)`` under ``torch.no_grad()``; the jitted flax
  ``apply``, blocked until ready); best round of ``--calls`` calls, rounds interleaved.
  Each result is first checked against eager (rtol 1e-4).

    python bench/bench_zoo.py [--size small] [--calls 50] [--rounds 5] [--compile-rounds 1]
        [--device local-sync] [--threads 1] [--families bert,gpt2,...]
        [--output bench/RESULTS_zoo.md]

One thread each by default (IREE's `local-sync` runs on the calling thread, torch gets one
intra-op thread): on a loaded machine, torch's two threads were 5–10× slower than one.

Needs torch, transformers and iree-turbine, and jax and flax. Not part of the test suite.
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from abi_compiler import iree as abi_iree
from tests.frontends import zoo

warnings.filterwarnings("ignore", category=FutureWarning)
warnings.filterwarnings("ignore", category=DeprecationWarning)
warnings.filterwarnings("ignore", category=UserWarning)


def _first_array(value: Any) -> np.ndarray:
    """The first tensor of a result (a `ModelOutput`'s first field, or the array)."""
    if hasattr(value, "keys"):
        value = value[next(iter(value.keys()))]
    if hasattr(value, "detach"):
        value = value.detach().numpy()
    return np.asarray(value)


def _blocking(call: Callable[[], Any]) -> Callable[[], Any]:
    """``call`` that waits for a JAX result to be computed."""

    def run() -> Any:
        result = call()
        ready = getattr(result, "block_until_ready", None)
        return ready() if ready is not None else result

    return run


def measure(name: str, args: argparse.Namespace) -> str:

    model = zoo.FAMILIES[name](args.size)
    start = time.perf_counter()
    exported = model.export()
    export_time = time.perf_counter() - start
    compile_time = float("inf")
    compiled: Any = None
    for _ in range(args.compile_rounds):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", abi_iree.CompileWarning)
            compiled = abi_iree.compile(exported, device=args.device)
        compile_time = min(compile_time, time.perf_counter() - start)
    call_args, call_kwargs = model.args, model.kwargs
    np.testing.assert_allclose(
        _first_array(compiled.main(*call_args, **call_kwargs)),
        _first_array(model.eager(*call_args, **call_kwargs)),
        rtol=1e-4,
        atol=1e-5,
    )
    calls = {
        "ours": lambda: compiled.main(*call_args, **call_kwargs),
        "eager": _blocking(lambda: model.eager(*call_args, **call_kwargs)),
    }
    best = {key: float("inf") for key in calls}
    for _ in range(args.rounds):
        for key, call in calls.items():
            best[key] = min(best[key], timeit.timeit(call, number=args.calls) / args.calls)
    return (
        f"| `{name}` | {model.framework} | {model.parameters / 1e6:.2f} M | "
        f"{export_time:.2f} s | {compile_time:.2f} s | {best['ours'] * 1e3:.2f} ms | "
        f"{best['eager'] * 1e3:.2f} ms | {best['ours'] / best['eager']:.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="small", choices=sorted(zoo.SIZES))
    parser.add_argument("--calls", type=int, default=50, help="calls per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--compile-rounds", type=int, default=1)
    parser.add_argument("--families", default=",".join(zoo.FAMILIES))
    parser.add_argument(
        "--device", default="local-sync", help="IREE device (local-sync: the calling thread)"
    )
    parser.add_argument("--threads", type=int, default=1, help="torch's intra-op threads")
    parser.add_argument("--output", help="write the results as markdown to this file")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    load = os.getloadavg()[0]
    hidden, layers, heads, length, batch, vocab = zoo.SIZES[args.size]
    lines = [
        "# The zoo: compile time, and per-call time against eager",
        "",
        f"`python bench/bench_zoo.py --size {args.size} --calls {args.calls} "
        f"--rounds {args.rounds} --compile-rounds {args.compile_rounds} "
        f"--device {args.device} --threads {args.threads}`; "
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, "
        f"torch {_version('torch')}, transformers {_version('transformers')}, "
        f"jax {_version('jax')}, iree-base-compiler {_version('iree-base-compiler')}, "
        f"load average {load:.1f} at the start. Size `{args.size}`: width {hidden}, "
        f"{layers} layers, {heads} heads, batch {batch} × {length} tokens, vocabulary "
        f"{vocab}. Best round; IREE device `{args.device}`; eager is torch on the CPU (no "
        f"grad, {args.threads} intra-op thread(s)) or the jitted flax function.",
        "",
        "| family | framework | parameters | export | compile | call: ours | call: eager | ratio |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name in args.families.split(","):
        lines.append(measure(name, args))
        print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")


def _version(package: str) -> str:
    from importlib.metadata import version

    return version(package)


if __name__ == "__main__":
    main()
