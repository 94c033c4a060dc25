"""The decoder-only architectures transformers exports with its own recipe
(`TorchExportableModuleForDecoderOnlyLM`, a static KV cache in the module's buffers), each
from a tiny config with seeded random weights (nothing is downloaded), ready for the
recipe's programs (tests/generation/fixtures.py exports them: one token a call, and a
prompt of any length up to the cache a call). tests/frontends/test_architectures.py
compiles them with the test tokenizer; bench/bench_architectures.py times them. Importing
this module imports no framework.

Each config is 2 layers of hidden width 32, 4 query heads on 2 key/value heads (GPT-2: 4
heads), a vocabulary of `VOCAB` (or a tokenizer's) and positions up to `CACHE`, with what
sets the family apart: GPT-2's learned positions and biases, Qwen2's q/k/v biases,
Mistral's sliding window, Phi-3's fused projections (and, as `phi3-longrope`, LongRoPE),
Gemma's scaled embeddings and tanh GELU, Gemma 2's soft-capping and alternating sliding
windows, Gemma 3's q/k norms and two RoPEs, Qwen3's q/k norms. A window of `WINDOW`
positions is shorter than `PROMPT` (and the tests' prompt), so the prompt and the
generation both cross it. The special tokens are the test tokenizer's.
"""

from __future__ import annotations

from typing import Any

from tests.generation import fixtures

CACHE = fixtures.CACHE
VOCAB = 160
WINDOW = 8
NEW_TOKENS = 32
PROMPT = [3, 14, 15, 92, 65, 35, 89, 79, 32, 38, 46, 26]

ARCHITECTURES = (
    "llama",
    "gpt2",
    "qwen2",
    "mistral",
    "phi3",
    "phi3-longrope",
    "gemma",
    "gemma2",
    "gemma3",
    "qwen3",
)


def _config(name: str, vocab: int, positions: int = CACHE) -> Any:
    import transformers as t

    tokens = {
        "bos_token_id": fixtures.BOS,
        "eos_token_id": fixtures.EOS,
        "pad_token_id": fixtures.PAD,
    }
    common: dict[str, Any] = {
        "vocab_size": vocab,
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "max_position_embeddings": positions,
        "initializer_range": 0.2,
        **tokens,
    }
    gemma = {**common, "head_dim": 8}
    # The initializations at which each Gemma says more than a token or two over and over.
    gemma2 = {**gemma, "initializer_range": 0.02}
    if name == "llama":
        return t.LlamaConfig(**common)
    if name == "gpt2":
        return t.GPT2Config(
            vocab_size=vocab, n_embd=32, n_layer=2, n_head=4, n_positions=positions,
            initializer_range=0.5, **tokens,
        )  # fmt: skip
    if name == "qwen2":
        return t.Qwen2Config(**common)
    if name == "mistral":
        return t.MistralConfig(**common, sliding_window=WINDOW)
    if name == "phi3":
        return t.Phi3Config(**common)
    if name == "phi3-longrope":
        # Positions past 48 would take the long factors; the tests stop at 44: there
        # transformers' recipe program, run eagerly, already parts from `generate`.
        head = 32 // 4
        rope = {
            "rope_type": "longrope",
            "rope_theta": 10000.0,
            "short_factor": [1.0] * (head // 2),
            "long_factor": [1.5, 2.0, 3.0, 4.0][: head // 2],
            "original_max_position_embeddings": 48,
        }
        return t.Phi3Config(**common, original_max_position_embeddings=48, rope_parameters=rope)
    if name == "gemma":
        return t.GemmaConfig(**{**gemma, "initializer_range": 0.5})
    if name == "gemma2":
        return t.Gemma2Config(**gemma2, sliding_window=WINDOW)
    if name == "gemma3":
        layers = ["sliding_attention", "full_attention"]
        return t.Gemma3TextConfig(**gemma2, sliding_window=WINDOW, layer_types=layers)
    if name == "qwen3":
        return t.Qwen3Config(**gemma)
    raise ValueError(f"no architecture {name!r}: one of {', '.join(ARCHITECTURES)}")


def tiny_model(name: str, vocab: int = VOCAB, positions: int = CACHE) -> Any:
    """The eager causal LM of architecture ``name`` (one of `ARCHITECTURES`), seeded,
    in eval mode, set up for the recipe's static cache (of at most ``positions``);
    ``vocab`` token ids (that of a tokenizer to record with it), the test tokenizer's
    special tokens."""
    import torch
    import transformers

    torch.manual_seed(0)
    config = _config(name, vocab, positions)
    return fixtures.prepared(transformers.AutoModelForCausalLM.from_config(config))


def greedy_steps(step: Any, prompt: list[int] = PROMPT) -> list[int]:
    """`NEW_TOKENS` greedy tokens after ``prompt`` from ``step(input_ids,
    cache_position)`` (numpy int64 arrays in, logits out) one token a call: the prompt's,
    then each new one's."""
    import numpy as np

    tokens: list[int] = []
    for position in range(len(prompt) + NEW_TOKENS - 1):
        token = prompt[position] if position < len(prompt) else tokens[-1]
        logits = step(np.array([[token]], dtype=np.int64), np.array([position], dtype=np.int64))
        if position >= len(prompt) - 1:
            tokens.append(int(np.asarray(logits)[0, -1].argmax()))
    return tokens
