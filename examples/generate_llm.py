"""Text in, text out from one `.vmfb`: export a transformers causal LM with transformers'
own recipe (`TorchExportableModuleForDecoderOnlyLM`: a static KV cache in the module's
buffers) twice — a prompt of any length in one call, and one token a call — compile both
as two functions on one cache with the tokenizer and the generation config recorded in
the module, then generate text from the `.vmfb` alone in a child process where torch and
transformers cannot be imported (`module.generate`, streamed; in a session, continuing a
conversation). The text is checked against `tokenizer.decode(model.generate(...,
do_sample=False))`. A tiny model with seeded random weights and a byte-level BPE
tokenizer trained here on a few sentences (nothing downloaded); with transformers,
tokenizers and iree-turbine installed:

    python examples/generate_llm.py                  # tiny Llama
    python examples/generate_llm.py --model gpt2 --out /tmp/gpt2.vmfb
    abi-generate /tmp/gpt2.vmfb "Le café"            # the same from the command line

(docs/calling.md, "Generating text").
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

# What runs on the server: abi_compiler, numpy, IREE's runtime and tokenizers only.
SERVER = """
import importlib.abc, json, sys

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "transformers"):
            raise ImportError(f"{name} is not installed on this server")
        return None

sys.meta_path.insert(0, Refuse())

from abi_compiler import iree as abi_iree
from abi_compiler.errors import AbiError

vmfb, prompt, new_tokens = sys.argv[1], sys.argv[2], int(sys.argv[3])
module = abi_iree.load(vmfb)
pieces = []
for piece in module.generate(prompt, max_new_tokens=new_tokens, stream=True):
    pieces.append(piece)  # (a server would send each piece as it comes)
text = module.generate(prompt, max_new_tokens=new_tokens)
assert "".join(pieces) == text
chat = module.session()  # a KV cache of its own: one conversation
turns = [{"role": "user", "content": prompt}]
answer = chat.generate(messages=turns, max_new_tokens=8)
turns += [{"role": "assistant", "content": answer}, {"role": "user", "content": "Encore ?"}]
again = chat.generate(messages=turns, max_new_tokens=8)  # only the new turn is fed
assert again == module.generate(messages=turns, max_new_tokens=8)
try:
    module.generate(prompt * 100)
except AbiError as error:
    print(error, file=sys.stderr)
print(json.dumps({"text": text, "finish_reason": text.finish_reason}))
"""

TEXT = [
    "The quick brown fox jumps over the lazy dog.",
    "Le café est très chaud, et la crème brûlée aussi.",
    "日本語のテキスト、中文文本 🙂🚀",
]

CHAT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}"
    "<|{{ message['role'] }}|>{{ message['content'] }}{{ eos_token }}"
    "{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def tokenizer() -> Any:
    """A byte-level BPE tokenizer learnt from `TEXT`, as a transformers tokenizer with a
    chat template (ids 0 and 1: `<s>` and `</s>`)."""
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    learnt = Tokenizer(models.BPE())
    learnt.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    learnt.decoder = decoders.ByteLevel()
    learnt.train_from_iterator(
        TEXT,
        trainers.BpeTrainer(
            vocab_size=300,
            special_tokens=["<s>", "</s>"],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        ),
    )
    learnt.add_tokens(["<|user|>", "<|assistant|>"])  # (the chat template's markers)
    wrapped = transformers.PreTrainedTokenizerFast(
        tokenizer_object=learnt, bos_token="<s>", eos_token="</s>"
    )
    wrapped.chat_template = CHAT_TEMPLATE
    return wrapped


def tiny_model(kind: str, vocab_size: int = 97) -> Any:
    """A tiny `LlamaForCausalLM` or `GPT2LMHeadModel` with seeded random weights (end of
    sequence: id 1), set up for the static cache the export recipe needs."""
    import torch
    import transformers

    torch.manual_seed(0)
    if kind == "llama":
        config = transformers.LlamaConfig(
            vocab_size=vocab_size,
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            max_position_embeddings=64,
            bos_token_id=0,
            eos_token_id=1,
        )
        model = transformers.LlamaForCausalLM(config)
    else:
        config = transformers.GPT2Config(
            vocab_size=vocab_size,
            n_embd=32,
            n_layer=2,
            n_head=4,
            n_positions=64,
            initializer_range=0.3,
            bos_token_id=0,
            eos_token_id=1,
        )
        model = transformers.GPT2LMHeadModel(config)
    model.eval()
    model.generation_config.cache_implementation = "static"
    model.generation_config.use_cache = True
    return model


def export(model: Any, cache: int) -> dict[str, Any]:
    """transformers' export recipe twice: ``main`` takes a prompt of 1 to ``cache`` tokens
    in one call, ``step`` one token a call."""
    import torch
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM

    recipe = TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=cache)
    seq = torch.export.Dim("seq", min=1, max=cache)
    prompt = recipe.export(
        input_ids=torch.tensor([[1, 2]], dtype=torch.long),
        cache_position=torch.tensor([0, 1], dtype=torch.long),
        dynamic_shapes={"input_ids": {1: seq}, "cache_position": {0: seq}},
    )
    step = recipe.export(
        input_ids=torch.tensor([[1]], dtype=torch.long),
        cache_position=torch.tensor([0], dtype=torch.long),
    )
    return {"main": prompt, "step": step}


def generate_without_torch(vmfb: Path, prompt: str, new_tokens: int) -> dict[str, Any]:
    """`module.generate` from the `.vmfb` in a child process that cannot import torch or
    transformers; what it says of a prompt past the cache is printed."""
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", SERVER, str(vmfb), prompt, str(new_tokens)],
        capture_output=True,
        text=True,
        cwd=root,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the server failed:\n{done.stderr}")
    said = done.stderr.strip().splitlines()
    print("a prompt past the cache:", said[-1] if said else "not refused")
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=["llama", "gpt2"], default="llama")
    parser.add_argument("--cache", type=int, default=64, help="max_cache_len")
    parser.add_argument("--new-tokens", type=int, default=16)
    parser.add_argument("--out", type=Path, help="where to write the .vmfb (default: a temp dir)")
    options = parser.parse_args(argv)

    import torch

    from abi_compiler import iree as abi_iree

    words = tokenizer()
    prompt = "Le café"
    ids = words.encode(prompt)
    if len(ids) + options.new_tokens > options.cache:
        parser.error("the prompt and the new tokens do not fit in --cache")
    model = tiny_model(options.model, len(words))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abi_iree.CompileWarning)
        vmfb = abi_iree.compile_vmfb(
            export(model, options.cache),
            shared_state=True,  # the two functions on one KV cache
            tokenizer=words,
            generation_config=model.generation_config,
        )
    with torch.no_grad():
        out = model.generate(
            torch.tensor([ids]),
            attention_mask=torch.ones(1, len(ids), dtype=torch.long),
            max_new_tokens=options.new_tokens,
            do_sample=False,
        )
    want = words.decode(out[0, len(ids) :], skip_special_tokens=True)

    with tempfile.TemporaryDirectory() as directory:
        path = options.out or Path(directory) / "model.vmfb"
        path.write_bytes(vmfb)
        got = generate_without_torch(path, prompt, options.new_tokens)
    print(f"{options.model}: .vmfb of {len(vmfb)} bytes, the tokenizer inside")
    print("generate():     ", repr(want))
    print(".vmfb, no torch:", repr(got["text"]), f"({got['finish_reason']})")
    if got["text"] != want:
        print("the texts differ", file=sys.stderr)
        return 1
    print("the texts match")
    return 0


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", UserWarning)  # torch.export on transformers' code
        sys.exit(main())
