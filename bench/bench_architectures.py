"""CPU time per generated token of each decoder-only architecture of
tests/frontends/architectures.py (tiny configs: 2 layers, hidden 32, vocabulary 160,
cache 64): the compiled `.vmfb` of transformers' one-token recipe program against eager
torch (one intra-op thread) stepping the same exported program (`ep.module()`).

Each round runs the greedy loop of the tests (a 12-token prompt one token a call, then 32
new tokens, `cache_position` counting up) with each engine, the engines interleaved round
by round; the figure is CPU time (`time.process_time`, the `local-sync` device runs on the
calling thread) of the whole loop divided by its calls, best round. The tokens of the two
engines are checked equal.

    python bench/bench_architectures.py [--rounds 5] [--only llama,gemma2]
        [--device local-sync]

Needs torch, transformers and iree-turbine. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import functools
import platform
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.frontends import architectures
from tests.generation import fixtures


def _eager_step(torch: Any, module: Any, ids: Any, positions: Any) -> Any:
    with torch.no_grad():
        step = module(input_ids=torch.from_numpy(ids), cache_position=torch.from_numpy(positions))
    return step.numpy()


def _compiled_step(module: Any, ids: Any, positions: Any) -> Any:
    return module.main(input_ids=ids, cache_position=positions)


def _best_per_call(
    engines: dict[str, Callable[[Any, Any], Any]], rounds: int
) -> tuple[dict[str, float], dict[str, list[int]]]:
    """The best CPU seconds per call of each engine's greedy loop over ``rounds``
    interleaved rounds, and the tokens each gave."""
    calls = len(architectures.PROMPT) + architectures.NEW_TOKENS - 1
    best = dict.fromkeys(engines, float("inf"))
    tokens: dict[str, list[int]] = {}
    for _ in range(rounds):
        for name, step in engines.items():
            start = time.process_time()
            tokens[name] = architectures.greedy_steps(step)
            best[name] = min(best[name], (time.process_time() - start) / calls)
    return best, tokens


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", help="comma-separated architectures (default: all)")
    parser.add_argument("--device", default="local-sync")
    args = parser.parse_args()

    import torch

    from abi_compiler import iree as abi_iree

    torch.set_num_threads(1)
    names = args.only.split(",") if args.only else list(architectures.ARCHITECTURES)
    lines = [
        f"`{args.device}`, torch 1 thread; CPU time per call, best of {args.rounds} "
        f"interleaved rounds. {platform.processor() or platform.machine()}, "
        f"torch {torch.__version__}.",
        "",
        "| architecture | eager ms/token | compiled ms/token | compiled / eager |",
        "| --- | --- | --- | --- |",
    ]
    for name in names:
        program = fixtures.export_step_recipe(architectures.tiny_model(name))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compiled = abi_iree.compile(program, device=args.device)
        engines = {
            "eager": functools.partial(_eager_step, torch, program.module()),
            "compiled": functools.partial(_compiled_step, compiled),
        }
        best, tokens = _best_per_call(engines, args.rounds)
        if tokens["eager"] != tokens["compiled"]:
            print(f"{name}: the tokens differ", file=sys.stderr)
            return 1
        ratio = best["compiled"] / best["eager"]
        line = (
            f"| {name} | {best['eager'] * 1e3:.2f} | {best['compiled'] * 1e3:.2f} | {ratio:.2f} |"
        )
        print(line, flush=True)
        lines.append(line)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sys.exit(main())
