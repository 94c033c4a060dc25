"""The prompt in one call, and what it costs the steps after it: transformers' export
recipe with a dynamic prompt length (`TorchExportableModuleForDecoderOnlyLM(...).export(
..., dynamic_shapes=...)`, what `Module.generate` feeds a whole prompt to) against the
recipe with one token per call (today's decode), on bench_generate.py's Llama (4 layers,
hidden 256, vocab 2000, random weights).

Per round, engines interleaved, CPU time (`time.process_time`), best round:

* prefill: a ``--prompt``-token prompt in one call of the compiled dynamic module (``main``,
  every row's logits, and ``main_prefill``, the last row's, compiled beside them with
  ``generation=True``), what `Module.generate` calls for it (its whole chunks of 128
  tokens to ``main_chunk``, the same at a static length, the rest to ``main_prefill``),
  against
  the same compiled without the prompt's attention rewrite (`torch_rewrites.prompt_attention`:
  IREE's attention op), eager torch's forward over the same prompt (the dynamic program's `ep.module()`, one
  intra-op thread), and against the same prompt fed token by token to the compiled
  one-token module;
* decode: ``--tokens`` greedy steps after it, one token per call: with the prompt
  function itself, with the step function compiled beside it on the same cache
  (``{"main": dynamic, "step": one_token}``, ``shared_state=True``: what generation
  uses), and with the one-token module alone (today's decode); the tokens checked equal;
* ``--variant NAME=FLAGS`` (repeatable): the prompt and step functions compiled again with
  these iree-compile flags added (space-separated, after `COMPILE_FLAGS`: a later flag
  wins), a prefill row and a decode row of their own, in the same rounds;
  ``--no-attention-op`` leaves out the row without the prompt's attention rewrite (its
  compile and its 80 ms a round).

Ratios are per round (min / median / max over the rounds) against "one call" (prefill)
and "one token" (decode), and of the prefill function and of what generate calls against
eager and token by token.
``--softmax-op`` adds a row of the prefill function compiled with the prompt's softmax
as IREE's op (`aten._safe_softmax`, as before it was written out).
``--untiled-attention`` adds the pair (and its prefill function) compiled without the
data-tiling hint on the attention's products (`linalg_rewrites.hint_activation_products`
off): prefill rows of its prefill function and of what generate calls, each compared with
its hinted counterpart in the tables below the first, and decode rows of its prompt and
step functions.
``--compare-compile`` also compiles the pair without the prefill function (``compile_vmfb``
for the host, weights inline) and reports both compile times and `.vmfb` sizes.

    python bench/bench_generate_prompt.py [--cache 256] [--prompt 128] [--tokens 32]
        [--rounds 5] [--device local-sync] [--variant NAME=FLAGS ...] [--no-attention-op]
        [--compare-compile] [--softmax-op] [--untiled-attention] [--output FILE]

Needs torch, transformers and iree-turbine. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_generate import _model

#: The prefill row of ``--untiled-attention``.
UNTILED = "one call, the prefill function, attention untiled"
UNTILED_FEEDS = "what generate calls, attention untiled"


def _rounds(rounds: int, engines: dict[str, Callable[[], Any]]) -> dict[str, list[float]]:
    """Each engine's CPU time in each round, the engines interleaved within a round."""
    times: dict[str, list[float]] = {name: [] for name in engines}
    for _ in range(rounds):
        for name, run in engines.items():
            start = time.process_time()
            run()
            times[name].append(time.process_time() - start)
    return times


def _spread(values: list[float], bases: list[float]) -> str:
    """min / median / max of ``values`` ÷ ``bases``, round by round."""
    ratios = [value / base for value, base in zip(values, bases, strict=True)]
    return f"{min(ratios):.3f} / {statistics.median(ratios):.3f} / {max(ratios):.3f}"


def _feeds(job: Any, length: int) -> list[tuple[str, int, int]]:
    """The calls `Module.generate` makes for a prompt of ``length`` tokens
    (`generation/loop.py`), as (function, start, end): its whole chunks to the chunk
    function, the rest, if any, to the prefill function."""
    size = job.chunk_length
    whole = length // size * size if job.chunk_function and size else 0
    calls = [(job.chunk_function, start, start + size) for start in range(0, whole, size or 1)]
    if whole < length:
        calls.append((job.prefill_function, whole, length))
    return calls


def _in_words(job: Any, calls: list[tuple[str, int, int]]) -> str:
    """``2 x @main_chunk + @main_prefill``."""
    names = [name for name, _, _ in calls]
    chunks = names.count(job.chunk_function)
    return " + ".join(
        [
            *([f"{chunks} x @{job.chunk_function}"] if chunks else []),
            *(f"@{name}" for name in names if name != job.chunk_function),
        ]
    )


def _softmax_op(build: Any, scores: Any, dims: list[str], element: str) -> Any:
    """The prompt's softmax as `aten._safe_softmax` (IREE's `linalg.softmax`)."""
    from abi_compiler.frontends.torch_rewrites import _vtensor

    return build.op(
        "torch.aten._safe_softmax", _vtensor(dims, element), scores, build.integer(3), build.none()
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", type=int, default=256)
    parser.add_argument("--prompt", type=int, default=128)
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--device", default="local-sync")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=FLAGS")
    parser.add_argument("--no-attention-op", action="store_true")
    parser.add_argument("--compare-compile", action="store_true")
    parser.add_argument("--softmax-op", action="store_true")
    parser.add_argument("--untiled-attention", action="store_true")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()

    import torch
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM

    from abi_compiler import iree as abi_iree
    from abi_compiler.frontends import torch as torch_frontend
    from abi_compiler.frontends import torch_rewrites
    from abi_compiler.generation import GenerationJob

    torch.set_num_threads(1)
    model = _model("bench")
    cache, length = args.cache, args.prompt
    seq = torch.export.Dim("seq", min=1, max=cache)
    dynamic = TorchExportableModuleForDecoderOnlyLM(
        model, batch_size=1, max_cache_len=cache
    ).export(
        input_ids=torch.tensor([[1, 2]], dtype=torch.long),
        cache_position=torch.tensor([0, 1], dtype=torch.long),
        dynamic_shapes={"input_ids": {1: seq}, "cache_position": {0: seq}},
    )
    single = TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=cache).export(
        input_ids=torch.tensor([[1]], dtype=torch.long),
        cache_position=torch.tensor([0], dtype=torch.long),
    )

    def pair(**options: Any) -> Any:
        """The prompt and step functions on one cache, compiled and loaded."""
        return abi_iree.compile(
            {"main": dynamic, "step": single},
            device=args.device,
            results="numpy",
            shared_state=True,
            **options,
        )

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # What generation compiles: the prompt function and the step function on one
        # cache, and the prompt's prefill function beside them (`generation=True`).
        started = time.perf_counter()
        shared_vmfb = abi_iree.compile_vmfb(
            {"main": dynamic, "step": single},
            target="cpu:host",
            shared_state=True,
            generation=True,
        )
        compiled = {"with the prefill function": (time.perf_counter() - started, shared_vmfb)}
        shared = abi_iree.load(shared_vmfb, device=args.device, results="numpy")
        if args.compare_compile:
            started = time.perf_counter()
            without = abi_iree.compile_vmfb(
                {"main": dynamic, "step": single}, target="cpu:host", shared_state=True
            )
            compiled["without it"] = (time.perf_counter() - started, without)
        variants = {}
        for variant in args.variant:
            name, _, flags = variant.partition("=")
            variants[name] = pair(extra_args=flags.split())
        softmax_op = None
        if args.softmax_op:  # the prompt's softmax as IREE's op (before it was written out)
            with mock.patch.object(torch_rewrites, "_safe_softmax", _softmax_op):
                softmax_op = pair(generation=True)
        untiled = None
        if args.untiled_attention:  # the attention's products without the data-tiling hint
            with mock.patch.object(torch_frontend, "hint_activation_products", lambda m: 0):
                untiled = pair(generation=True)
        step_module = abi_iree.compile(single, device=args.device, results="numpy")
        # Before the prompt's attention rewrite: IREE's attention op for its many rows.
        unrewritten = None
        if not args.no_attention_op:
            with mock.patch.object(torch_rewrites, "prompt_attention", lambda module: 0):
                unrewritten = abi_iree.compile(dynamic, device=args.device, results="numpy")
    prompt_module = shared
    eager = dynamic.module()
    prompt = np.array([[(7 * i + 3) % 2000 for i in range(length)]], dtype=np.int64)
    positions = np.arange(length, dtype=np.int64)

    def one_call() -> Any:
        return prompt_module.main(input_ids=prompt, cache_position=positions)

    def prefill_call() -> Any:
        return prompt_module.main_prefill(input_ids=prompt, cache_position=positions)

    job = GenerationJob.of(prompt_module)

    feeds = _feeds(job, length)

    def generate_feeds(module: Any = prompt_module) -> Any:
        # What `Module.generate` calls for the prompt.
        for name, start, end in feeds:
            out = module[name](input_ids=prompt[:, start:end], cache_position=positions[start:end])
        return out

    def attention_op() -> Any:
        assert unrewritten is not None
        return unrewritten.main(input_ids=prompt, cache_position=positions)

    def variant_call(module: Any) -> Callable[[], Any]:
        return lambda: module.main(input_ids=prompt, cache_position=positions)

    def eager_forward() -> Any:
        with torch.no_grad():
            return eager(
                input_ids=torch.from_numpy(prompt), cache_position=torch.from_numpy(positions)
            )

    def token_by_token() -> Any:
        for i in range(length):
            out = step_module.main(
                input_ids=prompt[:, i : i + 1], cache_position=positions[i : i + 1]
            )
        return out

    np.testing.assert_allclose(one_call()[0, -1], token_by_token()[0, -1], rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(prefill_call()[0, -1], one_call()[0, -1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(generate_feeds(), prefill_call(), rtol=1e-4, atol=1e-5)
    prefill_engines = {
        "one call": one_call,
        "one call, the prefill function": prefill_call,
        f"what generate calls ({_in_words(job, feeds)})": generate_feeds,
    }
    if softmax_op is not None:
        prefill_engines["one call, the prefill function, IREE's softmax op"] = lambda: (
            softmax_op.main_prefill(input_ids=prompt, cache_position=positions)
        )
    if untiled is not None:
        prefill_engines[UNTILED] = lambda: untiled.main_prefill(
            input_ids=prompt, cache_position=positions
        )
        prefill_engines[UNTILED_FEEDS] = lambda: generate_feeds(untiled)
        np.testing.assert_allclose(generate_feeds(untiled), generate_feeds(), rtol=1e-4, atol=1e-5)
    for name, module in variants.items():
        prefill_engines[f"one call ({name})"] = variant_call(module)
    if unrewritten is not None:
        prefill_engines["one call, IREE's attention op (no prompt rewrite)"] = attention_op
    prefill_engines |= {"eager forward": eager_forward, "token by token": token_by_token}
    for name, run in prefill_engines.items():
        if name.startswith("one call, the prefill function,"):
            np.testing.assert_allclose(prefill_call(), run(), rtol=1e-4, atol=1e-5)
        elif name.startswith("one call") and name != "one call, the prefill function":
            np.testing.assert_allclose(one_call(), run(), rtol=1e-4, atol=1e-5)
    prefill = _rounds(args.rounds, prefill_engines)

    def decode(module: Any, function: str) -> list[int]:
        # The prompt in one call (or token by token) is not timed here: only the steps.
        first = module.main if module is not step_module else None
        logits = first(input_ids=prompt, cache_position=positions) if first else token_by_token()
        tokens = [int(np.asarray(logits)[0, -1].argmax())]
        start = time.process_time()
        for step in range(args.tokens - 1):
            logits = module[function](
                input_ids=np.array([[tokens[-1]]], dtype=np.int64),
                cache_position=np.array([length + step], dtype=np.int64),
            )
            tokens.append(int(np.asarray(logits)[0, -1].argmax()))
        decode.elapsed = time.process_time() - start  # type: ignore[attr-defined]
        return tokens

    engines = {
        "the prompt function (dynamic length)": (prompt_module, "main"),
        "the step function (shared cache)": (prompt_module, "step"),
        **{f"the step function ({name})": (module, "step") for name, module in variants.items()},
        **(
            {
                "the prompt function (attention untiled)": (untiled, "main"),
                "the step function (attention untiled)": (untiled, "step"),
            }
            if untiled
            else {}
        ),
        "one token": (step_module, "main"),
    }
    steps: dict[str, list[float]] = {name: [] for name in engines}
    found: dict[str, list[int]] = {}
    for _ in range(args.rounds):
        for name, (module, function) in engines.items():
            found[name] = decode(module, function)
            steps[name].append(decode.elapsed / (args.tokens - 1))  # type: ignore[attr-defined]
    if len({tuple(tokens) for tokens in found.values()}) != 1:
        print("the decoded tokens differ", file=sys.stderr)
        return 1
    lines = [
        "# The prompt in one call, and the steps after it",
        "",
        f"Llama 4 layers, hidden 256, 4 heads, 2 KV heads, vocab 2000; cache {cache}, prompt "
        f"{length}, {args.tokens} tokens; `{args.device}`, torch 1 thread; CPU time, best of "
        f"{args.rounds} interleaved rounds. {platform.processor() or platform.machine()}, "
        f"torch {torch.__version__}.",
        "",
        "| prefill of the prompt | best ms | one call / it (best) | one call / it per round "
        "(min / median / max) |",
        "| --- | --- | --- | --- |",
    ]
    for name in prefill_engines:
        best = min(prefill[name])
        spread = _spread(prefill["one call"], prefill[name])
        lines.append(
            f"| {name} | {best * 1e3:.2f} | {min(prefill['one call']) / best:.3f} | {spread} |"
        )
    # Each of the two against eager, token by token, and itself without the attention's hint.
    for function, untiled_row in (
        ("the prefill function", UNTILED),
        ("what generate calls", UNTILED_FEEDS),
    ):
        base = next(v for name, v in prefill.items() if function in name)
        lines += [
            "",
            f"| {function} / | per round (min / median / max) |",
            "| --- | --- |",
            *(
                f"| {name} | {_spread(base, prefill[name])} |"
                for name in ("eager forward", "token by token", untiled_row)
                if name in prefill
            ),
        ]
    if compiled:
        lines += [
            "",
            "| compiled (`compile_vmfb`, `cpu:host`) | s | `.vmfb` bytes |",
            "| --- | --- | --- |",
        ]
        lines += [
            f"| {name} | {seconds:.1f} | {len(vmfb)} |"
            for name, (seconds, vmfb) in compiled.items()
        ]
    lines += [
        "",
        "| decode, per token | best ms | / the one-token module (best) | per round "
        "(min / median / max) |",
        "| --- | --- | --- | --- |",
    ]
    for name in engines:
        best = min(steps[name])
        spread = _spread(steps[name], steps["one token"])
        lines.append(
            f"| {name} | {best * 1e3:.3f} | {best / min(steps['one token']):.2f} | {spread} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sys.exit(main())
