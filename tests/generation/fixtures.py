"""What the generation tests share (and the tests of other architectures import): a
byte-level BPE tokenizer trained here on a small text with the `tokenizers` package
(nothing downloaded; accents, CJK and emoji span several byte tokens), wrapped as a
transformers tokenizer with a chat template; tiny decoder-only models with seeded random
weights; transformers' export recipe with a dynamic sequence length (the whole prompt in
one call); and `generate` run in a child process that cannot import torch or
transformers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

#: The text the test tokenizer learns from (accents, CJK, emoji: multi-byte characters).
CORPUS = [
    "The quick brown fox jumps over the lazy dog.",
    "Le café est très chaud, naïve élève à la crème brûlée.",
    "日本語のテキストと中文文本，还有한국어 텍스트。",
    "Emoji 🙂🚀🎉 and symbols like ∑, π and € appear here.",
    "user: hello there! assistant: hi, how can I help you today?",
]

#: Special tokens, in id order from 0.
SPECIAL_TOKENS = ["<s>", "</s>", "<pad>"]
BOS, EOS, PAD = 0, 1, 2

#: A chat template in transformers' style (Jinja), with a generation prompt.
CHAT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}"
    "<|{{ message['role'] }}|>{{ message['content'] }}{{ eos_token }}"
    "{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
)

#: The cache length of the test models.
CACHE = 64


#: What torch.export and transformers warn of on the way (not what the tests are about):
#: `pytestmark = [pytest.mark.filterwarnings(w) for w in FRAMEWORK_WARNINGS]`.
FRAMEWORK_WARNINGS = ("ignore::FutureWarning", "ignore::DeprecationWarning", "ignore::UserWarning")


def needs_the_recipe() -> Any:
    """Skip the calling test module without IREE, torch, iree-turbine, transformers' export
    recipe or `tokenizers` (each module calls it before importing abi_compiler.iree);
    torch."""
    import pytest

    from tests.calling.conftest import needs_iree

    needs_iree()
    torch = pytest.importorskip("torch")
    pytest.importorskip("iree.turbine.aot")
    pytest.importorskip("transformers.integrations.executorch")
    pytest.importorskip("tokenizers")
    return torch


def train_tokenizer(vocab_size: int = 320) -> Any:
    """A byte-level BPE `tokenizers.Tokenizer` (a BOS added to each text), trained on
    `CORPUS`; `<|user|>`-style role markers are added tokens."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(CORPUS * 4, trainer)
    tokenizer.add_tokens(["<|user|>", "<|assistant|>", "<|system|>"])
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A", special_tokens=[("<s>", BOS)]
    )
    return tokenizer


def transformers_tokenizer(tokenizer: Any) -> Any:
    """``tokenizer`` as a transformers tokenizer, with the chat template."""
    import transformers

    wrapped = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>", pad_token="<pad>"
    )
    wrapped.chat_template = CHAT_TEMPLATE
    return wrapped


def tiny_llama(vocab_size: int, positions: int = 128) -> Any:
    """A tiny `LlamaForCausalLM` with seeded random weights, its end of sequence `EOS`,
    set up for the recipe's static cache (of at most ``positions``)."""
    import torch
    import transformers

    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=vocab_size,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=positions,
        bos_token_id=BOS,
        eos_token_id=EOS,
    )
    return prepared(transformers.LlamaForCausalLM(config))


def prepared(model: Any) -> Any:
    """``model`` in eval mode, with the static cache transformers' recipe exports."""
    model.eval()
    model.generation_config.cache_implementation = "static"
    model.generation_config.use_cache = True
    return model


def export_prompt_recipe(model: Any, cache: int = CACHE) -> Any:
    """transformers' recipe with a dynamic sequence length: a prompt of 1 to ``cache``
    tokens in one call, then one token per call."""
    import torch
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM

    seq = torch.export.Dim("seq", min=1, max=cache)
    recipe = TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=cache)
    return recipe.export(
        input_ids=torch.tensor([[1, 2]], dtype=torch.long),
        cache_position=torch.tensor([0, 1], dtype=torch.long),
        dynamic_shapes={"input_ids": {1: seq}, "cache_position": {0: seq}},
    )


def export_step_recipe(model: Any, cache: int = CACHE) -> Any:
    """transformers' recipe with one token per call (the step after the prompt)."""
    import torch
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM

    recipe = TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=cache)
    return recipe.export(
        input_ids=torch.tensor([[1]], dtype=torch.long),
        cache_position=torch.tensor([0], dtype=torch.long),
    )


def generation_programs(model: Any, cache: int = CACHE) -> dict[str, Any]:
    """The two programs `Module.generate` runs best: the prompt program (``main``, a prompt
    of any length) and the step program (``step``, one token)."""
    return {"main": export_prompt_recipe(model, cache), "step": export_step_recipe(model, cache)}


def compile_for_generation(
    model: Any, tokenizer: Any, cache: int = CACHE, programs: dict[str, Any] | None = None
) -> bytes:
    """The `.vmfb` of ``programs`` (by default `generation_programs`) on one KV cache,
    with the tokenizer and the model's generation config recorded."""
    import warnings

    from abi_compiler import iree as abi_iree

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vmfb: bytes = abi_iree.compile_vmfb(
            programs or generation_programs(model, cache),
            shared_state=True,
            tokenizer=tokenizer,
            generation_config=model.generation_config,
        )
    return vmfb


def spy_on_feeds(monkeypatch: Any) -> list[tuple[int, str]]:
    """The calls the generation loop makes from now on (pytest's ``monkeypatch``), as
    (tokens fed, function called), in order."""
    from abi_compiler.generation import loop

    fed: list[tuple[int, str]] = []
    feed = loop._Run._feed

    def spy(run: Any, tokens: list[int], function: Any) -> Any:
        fed.append((len(tokens), function.name))
        return feed(run, tokens, function)

    monkeypatch.setattr(loop._Run, "_feed", spy)
    return fed


def hf_generate(model: Any, ids: list[int], new_tokens: int) -> list[int]:
    """The new tokens of transformers' greedy `generate` (stopping at the model's end of
    sequence, as `Module.generate` does)."""
    import torch

    with torch.no_grad():
        out = model.generate(
            torch.tensor([ids]),
            attention_mask=torch.ones(1, len(ids), dtype=torch.long),
            max_new_tokens=new_tokens,
            do_sample=False,
        )
    return [int(token) for token in out[0, len(ids) :]]


#: The variable naming another Python for `generate_without_torch`'s child (a venv with only
#: `pip install 'abi-compiler[generate]'`, not editable): the six architectures' text from
#: the package as a user installs it.
GENERATE_ONLY_PYTHON = "ABI_GENERATE_ONLY_PYTHON"

# What runs where torch and transformers are refused on import (the finder goes in before
# anything else is imported): the arguments are the `.vmfb` path and a JSON list of calls,
# each keyword arguments of `Module.generate`; it prints one JSON object: the
# [text or token ids, finish_reason] of each call, where abi_compiler came from and the
# environment's prefix.
WITHOUT_TORCH = """
import importlib.abc, sys

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "transformers"):
            raise ImportError(f"{name} is not installed here")
        return None

sys.meta_path.insert(0, Refuse())
import json

import abi_compiler
from abi_compiler import iree as abi_iree

module = abi_iree.load(sys.argv[1])
found = []
for call in json.loads(sys.argv[2]):
    out = module.generate(**call)
    found.append([out if isinstance(out, str) else list(out), out.finish_reason])
assert "torch" not in sys.modules and "transformers" not in sys.modules
print(json.dumps({"found": found, "abi_compiler": abi_compiler.__file__, "prefix": sys.prefix}))
"""


def generate_without_torch(vmfb: Path, calls: list[dict[str, Any]]) -> list[list[Any]]:
    """`Module.generate(**call)` for each call, in a child process that cannot import
    torch or transformers: [text or token ids, finish_reason] each. The child is this
    Python on this checkout, or, where `GENERATE_ONLY_PYTHON` names one, that Python in
    isolated mode (`-I`: neither this checkout nor ``PYTHONPATH``) beside the `.vmfb`,
    which must import the abi_compiler installed in its environment."""
    other = os.environ.get(GENERATE_ONLY_PYTHON)
    command = [other, "-I"] if other else [sys.executable]
    done = subprocess.run(
        [*command, "-c", WITHOUT_TORCH, str(vmfb.resolve()), json.dumps(calls)],
        capture_output=True,
        text=True,
        cwd=vmfb.parent if other else ROOT,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"the child ({command[0]}) failed:\n{done.stderr}")
    said = json.loads(done.stdout.strip().splitlines()[-1])
    if other and not Path(said["abi_compiler"]).resolve().is_relative_to(
        Path(said["prefix"]).resolve()
    ):
        raise AssertionError(f"{other} imported {said['abi_compiler']}, not its installed one")
    found: list[list[Any]] = said["found"]
    return found


# --------------------------------------------------------------------------------------
# A language model written in MLIR (no framework): what CI compiles.
# --------------------------------------------------------------------------------------

#: The MLIR model's next token after token ``t`` at position ``p``: ``(7t + 3p + 5) % V``
#: (its logits fall off linearly around it: ``-|v - next| / 2``).
RULE = (7, 3, 5)

_MLIR_MODEL = """
func.func @main(%ids: tensor<1x?xi64>, %pos: tensor<?xi64>) -> tensor<1x?x{V}xf32>
    attributes {{iree.reflection = {{iree.abi = "{abi}", abi.call = "{call}"}}}} {{
  %c1 = arith.constant 1 : index
  %n = tensor.dim %ids, %c1 : tensor<1x?xi64>
  %empty = tensor.empty(%n) : tensor<1x?x{V}xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(b, s, v) -> (b, s)>,
      affine_map<(b, s, v) -> (s)>, affine_map<(b, s, v) -> (b, s, v)>],
      iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%ids, %pos : tensor<1x?xi64>, tensor<?xi64>) outs(%empty : tensor<1x?x{V}xf32>) {{
  ^bb0(%t: i64, %p: i64, %o: f32):
    %v = linalg.index 2 : index
    %vi = arith.index_cast %v : index to i64
    %a = arith.constant {A} : i64
    %b = arith.constant {B} : i64
    %c = arith.constant {C} : i64
    %size = arith.constant {V} : i64
    %at = arith.muli %t, %a : i64
    %bp = arith.muli %p, %b : i64
    %sum = arith.addi %at, %bp : i64
    %sum2 = arith.addi %sum, %c : i64
    %next = arith.remsi %sum2, %size : i64
    %d = arith.subi %vi, %next : i64
    %ad = math.absi %d : i64
    %f = arith.sitofp %ad : i64 to f32
    %half = arith.constant -0.5 : f32
    %l = arith.mulf %f, %half : f32
    linalg.yield %l : f32
  }} -> tensor<1x?x{V}xf32>
  return %r : tensor<1x?x{V}xf32>
}}
"""


def mlir_model(vocabulary: int, cache: int = CACHE, position_ranges: bool = True) -> str:
    """The MLIR text of a model of ``vocabulary`` tokens and a cache of ``cache`` whose
    function records the original call transformers' recipe gives (``input_ids``,
    ``cache_position`` by keyword, their ranges and the prompt's length symbol;
    ``position_ranges=False``: no range of the positions, as the torch frontend records
    the recipe's program of a dynamic prompt length)."""
    from abi_compiler.call_model import Array, OriginalCall, Symbol, ValueRange
    from abi_compiler.codecs.call_json import encode_call

    call = OriginalCall(
        (),
        (
            ("input_ids", Array(0, "int64", (1, "seq"), (ValueRange(0, vocabulary - 1),))),
            (
                "cache_position",
                Array(1, "int64", ("seq",), (ValueRange(0, cache - 1),) if position_ranges else ()),
            ),
        ),
        Array(0, "float32", (1, "seq", vocabulary)),
        symbols=(Symbol("seq", 1, cache),),
    )
    abi = json.dumps(
        {
            "a": [
                ["named", "input_ids", ["ndarray", "i64", 2, 1, None]],
                ["named", "cache_position", ["ndarray", "i64", 1, None]],
            ],
            "r": [["ndarray", "f32", 3, 1, None, vocabulary]],
            "v": 1,
        },
        separators=(",", ":"),
    )
    a, b, c = RULE
    return _MLIR_MODEL.format(
        V=vocabulary, A=a, B=b, C=c, abi=_mlir_string(abi), call=_mlir_string(encode_call(call))
    )


def _mlir_string(text: str) -> str:
    return text.replace("\\", "\\5C").replace('"', "\\22")


def rule_tokens(
    ids: list[int], count: int, vocabulary: int, eos: tuple[int, ...] = ()
) -> list[int]:
    """The MLIR model's greedy tokens after ``ids`` (positions from 0), at most
    ``count``, ending before an id of ``eos``."""
    a, b, c = RULE
    found: list[int] = []
    token, position = ids[-1], len(ids) - 1
    while len(found) < count:
        token = (a * token + b * position + c) % vocabulary
        if token in eos:
            break
        found.append(token)
        position += 1
    return found


def save_tokenizer(tokenizer: Any, folder: Path, chat_template: str | None = CHAT_TEMPLATE) -> Path:
    """``tokenizer`` saved as transformers saves one: `tokenizer.json`, and beside it a
    `tokenizer_config.json` with the special tokens and the chat template."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "tokenizer.json"
    tokenizer.save(str(path))
    config: dict[str, Any] = {"bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>"}
    if chat_template is not None:
        config["chat_template"] = chat_template
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return path
