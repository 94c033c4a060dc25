"""Generation with a KV cache, deployed as one `.vmfb`: export a transformers causal LM with
transformers' own recipe (`TorchExportableModuleForDecoderOnlyLM`: a static KV cache in
the module's buffers, updated by each call), compile it to a `.vmfb`, then generate from
the `.vmfb` alone in a child process where torch cannot be imported: one call per token,
`cache_position` counting up, the cache kept inside the module between calls (in a session:
`module.session()`, one cache per conversation, the weights shared). The tokens
are checked against `model.generate(..., do_sample=False)`. A tiny model with seeded
random weights (nothing downloaded); with transformers and iree-turbine installed:

    python examples/generate_llm.py                  # tiny Llama
    python examples/generate_llm.py --model gpt2 --out /tmp/gpt2.vmfb

(docs/calling.md, "Generation with a KV cache (torch)").
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

# What runs on the server: numpy and abi_compiler only (torch refused on import).
SERVER = """
import importlib.abc, json, sys

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "torch":
            raise ImportError("torch is not installed on this server")
        return None

sys.meta_path.insert(0, Refuse())

import numpy as np
from abi_compiler import iree as abi_iree
from abi_compiler.errors import AbiError

vmfb, prompt, new_tokens = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
cache = int(sys.argv[4])
module = abi_iree.load(vmfb)
conversation = module.session()  # a KV cache of its own (one per conversation), weights shared
tokens = []
for position in range(len(prompt) + new_tokens - 1):
    token = prompt[position] if position < len(prompt) else tokens[-1]
    logits = conversation.main(
        input_ids=np.array([[token]], dtype=np.int64),
        cache_position=np.array([position], dtype=np.int64),
    )
    if position >= len(prompt) - 1:
        tokens.append(int(np.asarray(logits)[0, -1].argmax()))
conversation.close()
# A position past the cache is refused before the module runs (its cache write has no
# bounds check of its own).
try:
    module.main(input_ids=np.array([[0]]), cache_position=np.array([cache]))
except AbiError as error:
    print(error, file=sys.stderr)
print(json.dumps(tokens))
"""


def tiny_model(kind: str) -> Any:
    """A tiny `LlamaForCausalLM` or `GPT2LMHeadModel` with seeded random weights, set up
    for the static cache the export recipe needs."""
    import torch
    import transformers

    torch.manual_seed(0)
    if kind == "llama":
        config = transformers.LlamaConfig(
            vocab_size=97,
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            max_position_embeddings=64,
        )
        model = transformers.LlamaForCausalLM(config)
    else:
        config = transformers.GPT2Config(
            vocab_size=97,
            n_embd=32,
            n_layer=2,
            n_head=4,
            n_positions=64,
            initializer_range=0.3,
            bos_token_id=0,
            eos_token_id=0,
        )
        model = transformers.GPT2LMHeadModel(config)
    model.eval()
    model.generation_config.cache_implementation = "static"
    model.generation_config.use_cache = True
    return model


def export(model: Any, cache: int) -> Any:
    """transformers' export recipe: one token and its position per call."""
    import torch
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM

    recipe = TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=cache)
    return recipe.export(
        input_ids=torch.tensor([[1]], dtype=torch.long),
        cache_position=torch.tensor([0], dtype=torch.long),
    )


def generate_without_torch(vmfb: Path, prompt: list[int], new_tokens: int, cache: int) -> list[int]:
    """The greedy loop from the `.vmfb` in a child process that cannot import torch; what
    it says of a call past the cache is printed."""
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", SERVER, str(vmfb), json.dumps(prompt), str(new_tokens), str(cache)],
        capture_output=True,
        text=True,
        cwd=root,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the server failed:\n{done.stderr}")
    said = done.stderr.strip().splitlines()
    print("a call past the cache:", said[-1] if said else "not refused")
    tokens: list[int] = json.loads(done.stdout.strip().splitlines()[-1])
    return tokens


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=["llama", "gpt2"], default="llama")
    parser.add_argument("--cache", type=int, default=32, help="max_cache_len")
    parser.add_argument("--new-tokens", type=int, default=16)
    parser.add_argument("--out", type=Path, help="where to write the .vmfb (default: a temp dir)")
    options = parser.parse_args(argv)

    import torch

    from abi_compiler import iree as abi_iree

    prompt = [3, 14, 15, 9, 26]
    if len(prompt) + options.new_tokens > options.cache:
        parser.error("the prompt and the new tokens do not fit in --cache")
    model = tiny_model(options.model)
    program = export(model, options.cache)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abi_iree.CompileWarning)
        vmfb = abi_iree.compile_vmfb(program)
    with torch.no_grad():
        out = model.generate(
            torch.tensor([prompt]),
            max_new_tokens=options.new_tokens,
            min_new_tokens=options.new_tokens,
            do_sample=False,
        )
    want = [int(token) for token in out[0, len(prompt) :]]

    with tempfile.TemporaryDirectory() as directory:
        path = options.out or Path(directory) / "model.vmfb"
        path.write_bytes(vmfb)
        got = generate_without_torch(path, prompt, options.new_tokens, options.cache)
    print(f"{options.model}: .vmfb of {len(vmfb)} bytes")
    print("generate():  ", want)
    print(".vmfb, no torch:", got)
    if got != want:
        print("the tokens differ", file=sys.stderr)
        return 1
    print("the tokens match")
    return 0


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", UserWarning)  # torch.export on transformers' code
        sys.exit(main())
