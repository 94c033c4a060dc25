"""The model families people bring, built from tiny configs with random weights (nothing is
downloaded), each with the call it is exported for.

One function per family returns a `ZooModel`: the eager model, the call's arguments, and
`export()` — the framework object `abi_compiler.iree.compile` takes. ``size`` picks the
config: ``"tiny"`` (what tests/frontends/test_zoo.py compiles) or ``"small"`` (what
bench/bench_zoo.py times). Imports are inside the functions: each family needs only its
own framework (torch + transformers, or jax + flax).

    python -m tests.frontends.zoo            # exports every family and prints its size
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# Per size: (hidden width, layers, heads, sequence length, batch, vocabulary).
SIZES = {"tiny": (32, 2, 2, 8, 2, 64), "small": (256, 4, 4, 64, 4, 1000)}


@dataclass
class ZooModel:
    """One family's model and the call it is exported for."""

    family: str
    #: "torch" or "jax".
    framework: str
    #: The eager call: ``eager(*args, **kwargs)`` gives the reference result.
    eager: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    #: Builds the framework object (`torch.export.export(...)`, `jax.export.export(...)`).
    exporter: Callable[[], Any] = lambda: None
    #: Other calls of the same shapes (or, for a shape-polymorphic export, other shapes).
    other_calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = field(default_factory=list)
    #: Number of parameters.
    parameters: int = 0

    def export(self) -> Any:
        return self.exporter()


# --------------------------------------------------------------------------------------
# transformers (torch)
# --------------------------------------------------------------------------------------


def _token_call(size: str, seed: int) -> dict[str, Any]:
    """``input_ids`` and an ``attention_mask`` with padding at the end of the last row."""
    import torch

    _, _, _, length, batch, vocab = SIZES[size]
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, vocab, (batch, length), generator=generator)
    mask = torch.ones(batch, length, dtype=torch.long)
    mask[-1, length - length // 3 :] = 0
    return {"input_ids": ids, "attention_mask": mask}


def _torch_model(
    family: str, model: Any, size: str, extra: Callable[[dict[str, Any]], dict[str, Any]]
) -> ZooModel:
    import torch

    model.eval()
    kwargs = extra(_token_call(size, 1))
    others = [((), extra(_token_call(size, seed))) for seed in (2, 3)]

    def eager(*args: Any, **kwargs: Any) -> Any:
        with torch.no_grad():
            return model(*args, **kwargs)

    return ZooModel(
        family,
        "torch",
        eager,
        (),
        kwargs,
        lambda: torch.export.export(model, (), kwargs),
        others,
        sum(p.numel() for p in model.parameters()),
    )


def _seed() -> None:
    import torch

    torch.manual_seed(0)


def bert(size: str = "tiny", attention: str = "sdpa") -> ZooModel:
    """A BERT-style encoder (`BertModel`: embeddings, encoder, pooler)."""
    from transformers import BertConfig, BertModel

    hidden, layers, heads, length, _, vocab = SIZES[size]
    _seed()
    config = BertConfig(
        vocab_size=vocab,
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=4 * hidden,
        max_position_embeddings=2 * length,
        attn_implementation=attention,
    )
    return _torch_model("bert", BertModel(config), size, lambda call: call)


def gpt2(size: str = "tiny", attention: str = "sdpa") -> ZooModel:
    """A GPT-2-style decoder with its LM head (`GPT2LMHeadModel`), no cache."""
    from transformers import GPT2Config, GPT2LMHeadModel

    hidden, layers, heads, length, _, vocab = SIZES[size]
    _seed()
    config = GPT2Config(
        vocab_size=vocab,
        n_embd=hidden,
        n_layer=layers,
        n_head=heads,
        n_positions=2 * length,
        bos_token_id=0,
        eos_token_id=0,
        attn_implementation=attention,
    )
    return _torch_model(
        "gpt2", GPT2LMHeadModel(config), size, lambda call: {**call, "use_cache": False}
    )


def llama(size: str = "tiny", attention: str = "sdpa") -> ZooModel:
    """A Llama-style decoder (`LlamaForCausalLM`: RoPE, RMSNorm, grouped-query
    attention, SwiGLU), no cache."""
    from transformers import LlamaConfig, LlamaForCausalLM

    hidden, layers, heads, length, _, vocab = SIZES[size]
    _seed()
    config = LlamaConfig(
        vocab_size=vocab,
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=max(1, heads // 2),
        intermediate_size=3 * hidden,
        max_position_embeddings=2 * length,
        attn_implementation=attention,
    )
    return _torch_model(
        "llama", LlamaForCausalLM(config), size, lambda call: {**call, "use_cache": False}
    )


def t5(size: str = "tiny", attention: str = "eager") -> ZooModel:
    """A T5-style encoder–decoder with its LM head (`T5ForConditionalGeneration`), the
    decoder given its input ids, no cache."""
    from transformers import T5Config, T5ForConditionalGeneration

    hidden, layers, heads, length, _, vocab = SIZES[size]
    _seed()
    config = T5Config(
        vocab_size=vocab,
        d_model=hidden,
        d_kv=hidden // heads,
        d_ff=4 * hidden,
        num_layers=layers,
        num_heads=heads,
        attn_implementation=attention,
    )

    def with_decoder(call: dict[str, Any]) -> dict[str, Any]:
        decoder = call["input_ids"][:, : max(2, length // 2)]
        return {**call, "decoder_input_ids": decoder, "use_cache": False}

    return _torch_model("t5", T5ForConditionalGeneration(config), size, with_decoder)


# --------------------------------------------------------------------------------------
# flax (JAX)
# --------------------------------------------------------------------------------------


def flax_layer_norm(size: str = "tiny") -> ZooModel:
    """A flax MLP with LayerNorms, exported shape-polymorphic in the batch
    (`symbolic_shape("b, <width>")`)."""
    import flax.linen as nn
    import jax
    import numpy as np
    from jax import export

    hidden, layers, _, _, batch, _ = SIZES[size]

    class Model(nn.Module):
        @nn.compact
        def __call__(self, x: Any) -> Any:
            for _ in range(layers):
                x = nn.LayerNorm()(nn.gelu(nn.Dense(hidden)(x)))
            return nn.Dense(hidden)(x)

    model = Model()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, hidden), dtype=np.float32)
    params = model.init(jax.random.PRNGKey(0), x)
    apply = jax.jit(model.apply)

    def exporter() -> Any:
        b = export.symbolic_shape("b")[0]
        spec = jax.ShapeDtypeStruct((b, hidden), np.float32)
        return export.export(apply)(params, spec)

    others = [
        ((params, rng.standard_normal((n, hidden), dtype=np.float32)), {}) for n in (1, batch + 3)
    ]
    count = sum(int(np.size(leaf)) for leaf in jax.tree_util.tree_leaves(params))
    return ZooModel("flax_layer_norm", "jax", apply, (params, x), {}, exporter, others, count)


def flax_encoder(size: str = "tiny") -> ZooModel:
    """A BERT-shaped flax encoder — token and position embeddings, blocks of masked
    multi-head self-attention and a GELU MLP with LayerNorms, first-token pooling —
    exported shape-polymorphic in the batch (`symbolic_shape("b, <length>")`), returning a
    dict of the hidden states and the pooled output."""
    import flax.linen as nn
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import export

    hidden, layers, heads, length, batch, vocab = SIZES[size]

    class Block(nn.Module):
        @nn.compact
        def __call__(self, x: Any, mask: Any) -> Any:
            x = nn.LayerNorm()(x + nn.MultiHeadDotProductAttention(num_heads=heads)(x, mask=mask))
            return nn.LayerNorm()(x + nn.Dense(hidden)(nn.gelu(nn.Dense(4 * hidden)(x))))

    class Encoder(nn.Module):
        @nn.compact
        def __call__(self, input_ids: Any, attention_mask: Any) -> Any:
            positions = self.param("positions", nn.initializers.normal(0.02), (length, hidden))
            x = nn.Embed(vocab, hidden)(input_ids) + positions
            mask = nn.make_attention_mask(attention_mask, attention_mask)
            for _ in range(layers):
                x = Block()(x, mask)
            return {"hidden": x, "pooled": jnp.tanh(nn.Dense(hidden)(x[:, 0]))}

    def tokens(n: int, seed: int) -> tuple[Any, Any]:
        rng = np.random.default_rng(seed)
        ids = rng.integers(0, vocab, (n, length)).astype(np.int32)
        mask = np.ones((n, length), np.int32)
        mask[-1, length - length // 3 :] = 0
        return ids, mask

    model = Encoder()
    ids, mask = tokens(batch, 0)
    params = model.init(jax.random.PRNGKey(0), ids, mask)
    apply = jax.jit(model.apply)

    def exporter() -> Any:
        spec = jax.ShapeDtypeStruct(export.symbolic_shape(f"b, {length}"), np.int32)
        return export.export(apply)(params, spec, spec)

    others = [((params, *tokens(n, n)), {}) for n in (1, batch + 1)]
    count = sum(int(np.size(leaf)) for leaf in jax.tree_util.tree_leaves(params))
    return ZooModel("flax_encoder", "jax", apply, (params, ids, mask), {}, exporter, others, count)


#: Every family, by name.
FAMILIES: dict[str, Callable[..., ZooModel]] = {
    "bert": bert,
    "gpt2": gpt2,
    "llama": llama,
    "t5": t5,
    "flax_layer_norm": flax_layer_norm,
    "flax_encoder": flax_encoder,
}


if __name__ == "__main__":
    for name, build in FAMILIES.items():
        for size in SIZES:
            zoo_model = build(size)
            zoo_model.export()
            print(f"{name} {size}: {zoo_model.parameters} parameters, exported")
