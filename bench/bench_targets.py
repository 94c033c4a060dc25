"""CPU time per decode call of a Llama step compiled for each CPU target: `cpu:host`
against the portable levels `x86-64-v2`, `x86-64-v3` and `x86-64-v4` (on x86-64; `generic`
elsewhere), for the tiny Llama of `examples/generate_llm.py` (cache 64) and the 4-layer one
of `bench/bench_generate.py` (cache 256) — what decided `compile_vmfb`'s default target
(docs/calling.md, "Devices and targets").

Each module is loaded on ``local-sync``; each round makes ``--calls`` decode calls (one
token, its position counting up) with each module in turn, the targets interleaved round
by round; the figure is CPU time (`time.process_time`) per call, best round, and its ratio
to ``host``'s. The logits of one call are compared with ``host``'s (largest difference).

    python bench/bench_targets.py [--rounds 7] [--calls 48]

Needs torch, transformers and iree-turbine. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "examples"), str(ROOT / "bench")]


def _targets() -> list[str]:
    if platform.machine().lower() in ("x86_64", "amd64"):
        return ["cpu:host", "cpu:x86-64-v2", "cpu:x86-64-v3", "cpu:x86-64-v4"]
    return ["cpu:host", "cpu:generic"]


def _step(module: Any, position: int) -> Any:
    return module.main(
        input_ids=np.array([[position % 90]], dtype=np.int64),
        cache_position=np.array([position], dtype=np.int64),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=48)
    args = parser.parse_args()
    import bench_generate
    import generate_llm

    from abi_compiler import iree as abi_iree

    targets = _targets()
    models = [
        ("tiny Llama", generate_llm.tiny_model("llama"), 64),
        ("4-layer Llama", bench_generate._model(), 256),
    ]
    for label, model, cache in models:
        program = generate_llm.export(model, cache)
        modules = {}
        for target in targets:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", abi_iree.CompileWarning)
                vmfb = abi_iree.compile_vmfb(program, target=target)
            modules[target] = abi_iree.load(vmfb, device="local-sync", results="numpy")
        best = dict.fromkeys(targets, float("inf"))
        for _ in range(args.rounds):
            for target in targets:
                start = time.process_time()
                for position in range(args.calls):
                    _step(modules[target], position)
                elapsed = (time.process_time() - start) / args.calls
                best[target] = min(best[target], elapsed)
        host = np.asarray(_step(modules["cpu:host"], 0))
        print(f"{label}:")
        for target in targets:
            difference = float(np.max(np.abs(np.asarray(_step(modules[target], 0)) - host)))
            print(
                f"  {target}: {best[target] * 1e3:.3f} ms/call, "
                f"{best[target] / best['cpu:host']:.2f}x host, largest difference {difference:.1e}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
