"""CPU time per generated token: a compiled `.vmfb` of transformers' export recipe
(`TorchExportableModuleForDecoderOnlyLM`, a static KV cache in the module's buffers)
stepped one token per call, against eager torch (one intra-op thread) stepping the same
exported program (`ep.module()`), on a mid-size Llama config (4 layers, hidden 256, 4
heads, 2 KV heads, vocab 2000) with random weights, for each cache length.

Each round generates ``--tokens`` tokens greedily after a ``--prompt``-token prompt
(one call per token, `cache_position` counting up) with each engine, the engines
interleaved round by round; the figure is CPU time (`time.process_time`) of the whole
loop divided by its calls, best round. The tokens of the two engines are checked equal.
A cache copied per step, or attention over all of it, would show as a ratio growing
with the cache length (the positions reached are the same for every cache).

    python bench/bench_generate.py [--caches 256,1024,2048] [--rounds 5] [--tokens 64]
        [--device local-sync] [--output bench/RESULTS_generate.md] [--index-checks]

With ``--index-checks`` the two engines are the compiled step with the bounds checks the
module runs itself (`abi_compiler.frontends.index_checks`) and the same step compiled
without them (the frontend's `insert_index_checks` replaced for that compile only): what
the checks cost per token. The two are interleaved call by call (each position of each
round calls both, in alternating order, with the same inputs), and the figure is the sum
over positions of each call's best CPU time over the rounds, per call: the load of a
shared machine moves both alike.

Needs torch, transformers and iree-turbine. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _model() -> Any:
    import torch
    import transformers

    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=2000,
        hidden_size=256,
        intermediate_size=512,
        num_hidden_layers=4,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
    )
    model = transformers.LlamaForCausalLM(config).eval()
    model.generation_config.cache_implementation = "static"
    model.generation_config.use_cache = True
    return model


def _greedy(step: Callable[[Any, Any], Any], prompt: list[int], tokens: int) -> list[int]:
    out: list[int] = []
    for position in range(len(prompt) + tokens - 1):
        token = prompt[position] if position < len(prompt) else out[-1]
        logits = step(np.array([[token]], dtype=np.int64), np.array([position], dtype=np.int64))
        if position >= len(prompt) - 1:
            out.append(int(np.asarray(logits)[0, -1].argmax()))
    return out


def _paired(
    first: Any, second: Any, prompt: list[int], tokens: int, rounds: int
) -> tuple[float, float] | None:
    """Two compiled steps called position by position with the same inputs (the first's
    greedy tokens), in alternating order: the sum over positions of each one's best CPU
    time over ``rounds``, per call; None when their tokens differ."""
    calls = len(prompt) + tokens - 1
    best = [[float("inf")] * calls, [float("inf")] * calls]
    engines = (first, second)
    for round_number in range(rounds):
        out: list[int] = []
        for position in range(calls):
            token = prompt[position] if position < len(prompt) else out[-1]
            ids = np.array([[token]], dtype=np.int64)
            at = np.array([position], dtype=np.int64)
            picked: list[int] = []
            order = (0, 1) if (position + round_number) % 2 == 0 else (1, 0)
            for which in order:
                start = time.process_time()
                logits = engines[which].main(input_ids=ids, cache_position=at)
                best[which][position] = min(best[which][position], time.process_time() - start)
                picked.append(int(np.asarray(logits)[0, -1].argmax()))
            if picked[0] != picked[1]:
                return None
            if position >= len(prompt) - 1:
                out.append(picked[0])
    return sum(best[0]) / calls, sum(best[1]) / calls


def _without_index_checks(program: Any, device: str) -> Any:
    """``program`` compiled without the bounds checks the module runs itself."""
    from abi_compiler import iree as abi_iree
    from abi_compiler.frontends import torch as torch_frontend

    checks = torch_frontend.insert_index_checks
    torch_frontend.insert_index_checks = lambda *_: 0  # type: ignore[assignment]
    try:
        return abi_iree.compile(program, device=device)
    finally:
        torch_frontend.insert_index_checks = checks


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--caches", default="256,1024,2048")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--prompt", type=int, default=8)
    parser.add_argument("--device", default="local-sync")
    parser.add_argument("--output", type=Path)
    parser.add_argument("--index-checks", action="store_true")
    args = parser.parse_args()

    import torch
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM

    from abi_compiler import iree as abi_iree

    torch.set_num_threads(1)
    model = _model()
    prompt = [(7 * i + 3) % 2000 for i in range(args.prompt)]
    calls = args.prompt + args.tokens - 1
    lines = [
        "# Per generated token: compiled `.vmfb` vs eager `ep.module()`",
        "",
        f"Llama 4 layers, hidden 256, 4 heads, 2 KV heads, vocab 2000; prompt {args.prompt}, "
        f"{args.tokens} tokens; `{args.device}`, torch 1 thread; CPU time per call, best of "
        f"{args.rounds} interleaved rounds. {platform.processor() or platform.machine()}, "
        f"torch {torch.__version__}.",
        "",
        "| cache | eager ms/token | compiled ms/token | compiled / eager |"
        if not args.index_checks
        else "| cache | unchecked ms/token | checked ms/token | checked / unchecked |",
        "| --- | --- | --- | --- |",
    ]
    for cache in (int(text) for text in args.caches.split(",")):
        program = TorchExportableModuleForDecoderOnlyLM(
            model, batch_size=1, max_cache_len=cache
        ).export(
            input_ids=torch.tensor([[1]], dtype=torch.long),
            cache_position=torch.tensor([0], dtype=torch.long),
        )
        eager_module = program.module()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compiled = abi_iree.compile(program, device=args.device)
            unchecked = _without_index_checks(program, args.device) if args.index_checks else None

        def eager(
            i: Any, p: Any, eager_module: Any = eager_module, unchecked: Any = unchecked
        ) -> Any:
            if unchecked is not None:
                return unchecked.main(input_ids=i, cache_position=p)
            with torch.no_grad():
                return eager_module(
                    input_ids=torch.from_numpy(i), cache_position=torch.from_numpy(p)
                ).numpy()

        def iree(i: Any, p: Any, compiled: Any = compiled) -> Any:
            return compiled.main(input_ids=i, cache_position=p)

        if unchecked is not None:
            both = _paired(unchecked, compiled, prompt, args.tokens, args.rounds)
            if both is None:
                print(f"cache {cache}: the tokens differ", file=sys.stderr)
                return 1
            line = (
                f"| {cache} | {both[0] * 1e3:.3f} | {both[1] * 1e3:.3f} | {both[1] / both[0]:.3f} |"
            )
            print(line, flush=True)
            lines.append(line)
            continue
        best = {"eager": float("inf"), "compiled": float("inf")}
        tokens: dict[str, list[int]] = {}
        for _ in range(args.rounds):
            for name, step in (("eager", eager), ("compiled", iree)):
                start = time.process_time()
                tokens[name] = _greedy(step, prompt, args.tokens)
                best[name] = min(best[name], (time.process_time() - start) / calls)
        if tokens["eager"] != tokens["compiled"]:
            print(f"cache {cache}: the tokens differ", file=sys.stderr)
            return 1
        ratio = best["compiled"] / best["eager"]
        line = (
            f"| {cache} | {best['eager'] * 1e3:.2f} | {best['compiled'] * 1e3:.2f} | {ratio:.2f} |"
        )
        print(line, flush=True)
        lines.append(line)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sys.exit(main())
