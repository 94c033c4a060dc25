"""CPU time per generated token: a compiled `.vmfb` of transformers' export recipe
(`TorchExportableModuleForDecoderOnlyLM`, a static KV cache in the module's buffers)
stepped one token per call, against the engines a user would pick instead for the same
exported program, all in one process, single thread:

* ``ort``: ONNX Runtime on an ONNX export of the same program (`torch.onnx.export`,
  dynamo) as a decode step whose KV cache is inputs and outputs (the program's mutated
  buffers lifted out of its graph: ONNX has no state), stepped by hand, the new cache of
  one step fed to the next (`intra_op_num_threads=1`);
* ``aoti``: AOTInductor (`torch._inductor.aoti_compile_and_package` of the same
  `ExportedProgram`, loaded by `aoti_load_package`; the cache stays in its constants);
* ``compile``: `torch.compile(ep.module())` (mode ``default``; ``--compile-modes`` adds
  others such as ``max-autotune-no-cudagraphs``);
* ``eager``: `ep.module()` (the program's eager interpreter: hundreds of ATen calls a step,
  a baseline of Python, not of kernels).

Each round generates ``--tokens`` tokens greedily after a ``--prompt``-token prompt (one
call per token, `cache_position` counting up) with each engine, engines interleaved
round by round (every engine restarts from an empty cache each round), after one
untimed warm-up of each (where torch.compile compiles). The figures are
CPU time (`time.process_time`) of the whole loop divided by its calls: the best round in
ms, and the ratio engine ÷ ours of each round (min / median / max over rounds). Every
engine's tokens are checked equal to ours (a row whose tokens differ is marked). An
engine that cannot run (a package missing, an export or compile that fails) gets a row
saying why.

``--config real`` is SmolLM2-135M's shape (30 layers, hidden 576, 9 heads / 3 KV heads,
intermediate 1536, vocab 49152, tied embeddings, random weights): there the weights, not
the call, dominate, and the table adds the memory-bandwidth floor: the bytes of weights a
token reads (every matrix once; the embedding's one row aside, which the tied `lm_head`
reads whole) ÷ the machine's copy bandwidth, measured in the same run (single-threaded
`numpy.copyto` of 256 MiB per CPU second, counted as bytes read + bytes written, as
STREAM's copy does).

    python bench/bench_generate.py [--config bench|real] [--caches 256,1024]
        [--rounds 5] [--tokens 64] [--engines ours,ort,aoti,compile,eager]
        [--device local-sync[,local-task]] [--clock cpu|wall] [--variant NAME=FLAGS ...]
        [--index-checks]
        [--output bench/RESULTS_generate.md]

``--device`` takes a comma-separated list: the first is ours, each other adds a row
``ours (DEVICE)`` (the same step loaded on that driver). ``--clock wall`` times the loops
by the wall clock (`time.perf_counter`) instead of CPU time: what a caller waits, which
a second thread of ``local-task`` can shorten (and CPU time counts twice).

``--index-checks`` adds ``ours (no index checks)``: the same step compiled without the
bounds checks the module runs itself; its ratio to ours is what the checks cost.

Needs torch, transformers and iree-turbine; onnxruntime and onnxscript for ``ort``. Not
part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable
from functools import partial
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

CONFIGS = {
    "bench": {
        "vocab_size": 2000,
        "hidden_size": 256,
        "intermediate_size": 512,
        "num_hidden_layers": 4,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
    },
    "real": {  # SmolLM2-135M's shape
        "vocab_size": 49152,
        "hidden_size": 576,
        "intermediate_size": 1536,
        "num_hidden_layers": 30,
        "num_attention_heads": 9,
        "num_key_value_heads": 3,
        "tie_word_embeddings": True,
    },
}
DESCRIBED = {
    "bench": "Llama 4 layers, hidden 256, 4 heads / 2 KV heads, intermediate 512, vocab 2000",
    "real": "SmolLM2-135M's shape: Llama 30 layers, hidden 576, 9 heads / 3 KV heads, "
    "intermediate 1536, vocab 49152, tied embeddings",
}
ENGINES = {
    "ours": "`abi_iree.compile(program)`",
    "ort": "ONNX Runtime (`torch.onnx.export` of the step, KV cache in/out)",
    "aoti": "AOTInductor (`aoti_compile_and_package`)",
    "compile": "`torch.compile(ep.module())`",
    "eager": "eager `ep.module()`",
}

Step = Callable[[np.ndarray, np.ndarray], Any]  # (input_ids, cache_position) -> logits


def _model(config: str) -> Any:
    import torch
    import transformers

    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(
        transformers.LlamaConfig(max_position_embeddings=2048, **CONFIGS[config])
    ).eval()
    model.generation_config.cache_implementation = "static"
    model.generation_config.use_cache = True
    return model


def _greedy(step: Step, prompt: list[int], tokens: int) -> list[int]:
    out: list[int] = []
    for position in range(len(prompt) + tokens - 1):
        token = prompt[position] if position < len(prompt) else out[-1]
        logits = step(np.array([[token]], dtype=np.int64), np.array([position], dtype=np.int64))
        if position >= len(prompt) - 1:
            out.append(int(np.asarray(logits)[0, -1].argmax()))
    return out


# Each engine's maker: (exported program, device) -> a function making a fresh step
# (from an empty cache). A maker raises when its engine cannot run here.


def _ours(program: Any, device: str, extra_args: tuple[str, ...] = ()) -> Callable[[], Step]:
    from abi_compiler import iree as abi_iree

    module = abi_iree.compile(program, device=device, results="numpy", extra_args=extra_args)
    session = module.session()

    def fresh() -> Step:
        session.reset()
        return lambda i, p: session.main(input_ids=i, cache_position=p)

    return fresh


def _unchecked(program: Any, device: str) -> Callable[[], Step]:
    """Ours compiled without the bounds checks the module runs itself (the frontend's
    `insert_index_checks` replaced for that compile only): with ``--index-checks``, its
    row's ratio is what the checks cost per token."""
    from abi_compiler.frontends import torch as torch_frontend

    checks = torch_frontend.insert_index_checks
    torch_frontend.insert_index_checks = lambda *_: 0  # type: ignore[assignment]
    try:
        return _ours(program, device)
    finally:
        torch_frontend.insert_index_checks = checks


def _eager(program: Any, device: str) -> Callable[[], Step]:
    import torch

    def fresh() -> Step:
        module = program.module()

        def step(i: Any, p: Any) -> Any:
            with torch.no_grad():
                return module(input_ids=torch.from_numpy(i), cache_position=torch.from_numpy(p))

        return step

    return fresh


def _compiled(mode: str) -> Callable[[Any, str], Callable[[], Step]]:
    def make(program: Any, device: str) -> Callable[[], Step]:
        import torch

        module = program.module()
        compiled = torch.compile(module, mode=mode, dynamic=False)
        buffers = {name: value.clone() for name, value in module.named_buffers()}

        def fresh() -> Step:
            with torch.no_grad():
                for name, value in module.named_buffers():
                    value.copy_(buffers[name])

            def step(i: Any, p: Any) -> Any:
                with torch.no_grad():
                    return compiled(
                        input_ids=torch.from_numpy(i), cache_position=torch.from_numpy(p)
                    )

            return step

        return fresh

    return make


def _aoti(program: Any, device: str) -> Callable[[], Step]:
    import torch
    from torch._inductor import aoti_compile_and_package, aoti_load_package

    folder = tempfile.mkdtemp(prefix="bench-aoti-")
    path = aoti_compile_and_package(program, package_path=os.path.join(folder, "step.pt2"))

    def fresh() -> Step:
        runner = aoti_load_package(path)  # a new loader: its constants (the cache) fresh

        def step(i: Any, p: Any) -> Any:
            with torch.no_grad():
                return runner(input_ids=torch.from_numpy(i), cache_position=torch.from_numpy(p))

        return step

    return fresh


def _ort(program: Any, device: str) -> Callable[[], Step]:
    """ONNX has no state: the program's graph (which takes its buffers and returns the
    mutated ones first) is wrapped as a module taking the cache and returning the logits
    and the new cache, exported to ONNX and stepped with the cache fed back."""
    import onnxruntime
    import torch

    # The buffers the step writes (the program keeps in-place ops; its functional form
    # names them), and every input of its graph in order.
    functional = program.run_decompositions({})
    mutated = list(functional.graph_signature.buffers_to_mutate.values())
    specs = program.graph_signature.input_specs
    state, constants = program.state_dict, program.constants

    class CacheInOut(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.graph = program.graph_module
            for index, spec in enumerate(specs):
                if spec.target is not None and spec.target not in mutated:
                    value = state.get(spec.target, constants.get(spec.target))
                    self.register_buffer(f"w{index}", value.detach().clone())

        def forward(self, input_ids: Any, cache_position: Any, *cache: Any) -> Any:
            given = {name: value.clone() for name, value in zip(mutated, cache, strict=True)}
            users = iter((input_ids, cache_position))
            arguments = [
                next(users)
                if spec.target is None
                else given.get(spec.target, getattr(self, f"w{index}", None))
                for index, spec in enumerate(specs)
            ]
            logits = self.graph(*arguments)
            logits = logits[0] if isinstance(logits, (tuple, list)) else logits
            return (logits, *[given[name] for name in mutated])

    zeros = [state.get(name, constants.get(name)).detach().clone() for name in mutated]
    wrapper = CacheInOut().eval()
    names = [f"cache{index}" for index in range(len(mutated))]
    onnx_program = torch.onnx.export(
        wrapper,
        (torch.tensor([[1]]), torch.tensor([0]), *zeros),
        input_names=["input_ids", "cache_position", *names],
        output_names=["logits", *[f"new_{name}" for name in names]],
        dynamo=True,
        verbose=False,
    )
    path = os.path.join(tempfile.mkdtemp(prefix="bench-ort-"), "step.onnx")
    onnx_program.save(path, external_data=True)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    initial = [value.numpy() for value in zeros]

    def fresh() -> Step:
        cache = list(initial)

        def step(i: Any, p: Any) -> Any:
            feeds = {"input_ids": i, "cache_position": p, **dict(zip(names, cache, strict=True))}
            logits, *cache[:] = session.run(None, feeds)
            return logits

        return step

    return fresh


def _weight_bytes(model: Any) -> int:
    """Bytes of weights one token reads: every parameter once, less the embedding table
    but for one row (unless tied: then the `lm_head` reads it whole)."""
    total = sum(p.numel() * p.element_size() for p in model.parameters())
    embedding = model.get_input_embeddings().weight
    if model.config.tie_word_embeddings:
        return total  # the table counted once: read whole by the lm_head
    return total - embedding.numel() * embedding.element_size() + embedding[0].nbytes


def _copy_bandwidth(megabytes: int = 256, repeats: int = 5) -> float:
    """Bytes per CPU second of a single-threaded copy (read + write counted, as STREAM),
    best of ``repeats``."""
    source = np.ones(megabytes << 18, dtype=np.float32)
    target = np.empty_like(source)
    best = float("inf")
    for _ in range(repeats):  # CPU time, as the engines': time off the CPU is not counted
        start = time.process_time()
        np.copyto(target, source)
        best = min(best, time.process_time() - start)
    return 2 * source.nbytes / best


def _export(model: Any, cache: int) -> Any:
    import torch
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM

    return TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=cache).export(
        input_ids=torch.tensor([[1]], dtype=torch.long),
        cache_position=torch.tensor([0], dtype=torch.long),
    )


def _spread(values: list[float]) -> str:
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", choices=sorted(CONFIGS), default="bench")
    parser.add_argument("--caches", default="256,1024")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--prompt", type=int, default=8)
    parser.add_argument("--engines", default="ours,ort,aoti,compile,eager")
    parser.add_argument("--compile-modes", default="default")
    parser.add_argument("--device", default="local-sync")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        help="NAME=FLAGS: a row of ours compiled with these iree-compile flags added "
        "(space-separated), e.g. 'before=--iree-opt-generalize-matmul=false'",
    )
    parser.add_argument("--output", type=Path)
    parser.add_argument(
        "--index-checks",
        action="store_true",
        help="add a row of ours compiled without the module's own index checks",
    )
    args = parser.parse_args()
    devices = args.device.split(",")
    clock = time.process_time if args.clock == "cpu" else time.perf_counter

    import torch

    torch.set_num_threads(1)
    model = _model(args.config)
    vocab = CONFIGS[args.config]["vocab_size"]
    prompt = [(7 * i + 3) % vocab for i in range(args.prompt)]
    calls = args.prompt + args.tokens - 1
    makers: dict[str, Callable[[Any, str], Callable[[], Step]]] = {}
    for engine in args.engines.split(","):
        if engine == "compile":
            for mode in args.compile_modes.split(","):
                makers[f"compile ({mode})"] = _compiled(mode)
        else:
            makers[engine] = {"ours": _ours, "ort": _ort, "aoti": _aoti, "eager": _eager}[engine]
        if engine == "ours":
            if args.index_checks:
                makers["ours (no index checks)"] = _unchecked
            for device in devices[1:]:
                makers[f"ours ({device})"] = lambda program, _, on=device: _ours(program, on)
            for variant in args.variant:
                name, _, flags = variant.partition("=")
                makers[f"ours ({name})"] = partial(_ours, extra_args=tuple(flags.split()))
    versions = [f"torch {torch.__version__}"]
    for package in ("onnxruntime", "iree-base-runtime", "iree-base-compiler", "transformers"):
        try:
            versions.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{package} missing")
    lines = [
        "## Per generated token: " + DESCRIBED[args.config],
        "",
        f"`python bench/bench_generate.py {' '.join(sys.argv[1:])}`: prompt {args.prompt}, "
        f"{args.tokens} tokens greedy; ours on `{devices[0]}`, torch and ONNX Runtime 1 "
        f"thread; {'CPU' if args.clock == 'cpu' else 'wall-clock'} "
        f"time per call; {args.rounds} interleaved rounds. "
        f"{platform.machine()}, {os.cpu_count()} CPUs, {', '.join(versions)}; load average "
        f"{os.getloadavg()[0]:.1f} at the start.",
        "",
    ]
    if args.config == "real":
        weights = _weight_bytes(model)
        bandwidth = _copy_bandwidth()
        floor = weights / bandwidth
        lines += [
            f"Weights read per token {weights / 2**20:.0f} MiB; copy bandwidth "
            f"{bandwidth / 1e9:.1f} GB/s (measured at the start of this run); floor "
            f"{floor * 1e3:.1f} ms/token.",
            "",
        ]
    lines += [
        "| cache | engine | best ms/token | engine ÷ ours per round (min / median / max) "
        "| same tokens |",
        "| --- | --- | --- | --- | --- |",
    ]
    print("\n".join(lines), flush=True)
    for cache in (int(text) for text in args.caches.split(",")):
        program = _export(model, cache)
        fresh: dict[str, Callable[[], Step]] = {}
        failed: dict[str, str] = {}
        for name, make in makers.items():
            start = time.perf_counter()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fresh[name] = make(program, devices[0])
            except Exception as error:  # an engine that cannot run says why
                traceback.print_exc()
                failed[name] = f"{type(error).__name__}: {str(error).splitlines()[0][:160]}"
            print(f"cache {cache}: {name} ready in {time.perf_counter() - start:.0f} s", flush=True)
        for make_step in fresh.values():  # first calls (torch.compile compiles) not timed
            _greedy(make_step(), prompt, 2)
        times: dict[str, list[float]] = {name: [] for name in fresh}
        tokens: dict[str, list[int]] = {}
        for _ in range(args.rounds):
            for name, make_step in fresh.items():
                step = make_step()
                start = clock()
                tokens[name] = _greedy(step, prompt, args.tokens)
                times[name].append((clock() - start) / calls)
        rows = []
        for name in makers:
            if name in failed:
                rows.append(f"| {cache} | {name} | — | could not run: {failed[name]} | — |")
                continue
            ratios = (
                [t / o for t, o in zip(times[name], times["ours"], strict=True)]
                if "ours" in times
                else []
            )
            same = "yes" if tokens[name] == tokens.get("ours", tokens[name]) else "**no**"
            best = min(times[name])
            extra = ""
            if args.config == "real":
                extra = f" ({best / floor:.2f}× the floor)"
            rows.append(
                f"| {cache} | {name} | {best * 1e3:.2f}{extra} | "
                f"{_spread(ratios) if ratios else '—'} | {same} |"
            )
        print("\n".join(rows), flush=True)
        lines += rows
    lines.append("")
    lines.append(f"Load average {os.getloadavg()[0]:.1f} at the end.")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        with args.output.open("a", encoding="utf-8") as stream:
            stream.write(text + "\n")
    return 0


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sys.exit(main())
