"""`last_logits_program` (docs/design.md, "Generation"): a prompt program
cut to its last position's logits gives the full program's last row; the cut follows
row-wise ops (Gemma's soft-capping) back to the final linear and refuses anything else
(None). `static_length_program`: the cut program at a static prompt length (a chunk)
computes what it computes and writes the same state. Torch only (no IREE): skipped
without torch."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")

from abi_compiler.frontends.torch_last_logits import (  # noqa: E402
    last_logits_program,
    static_length_program,
)

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")

VOCABULARY = 11


class _Model(torch.nn.Module):  # type: ignore[misc]
    """An embedding, a cache of the positions' rows, a mix over the prompt's rows, then
    the logits made by ``head`` from the final linear's."""

    def __init__(self, head: Any) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.embed = torch.nn.Embedding(VOCABULARY, 8)
        self.lm_head = torch.nn.Linear(8, VOCABULARY)
        self.register_buffer("cache", torch.zeros(16, 8))
        self.head = head

    def forward(self, input_ids: Any, cache_position: Any) -> Any:
        hidden = self.embed(input_ids)
        self.cache.index_copy_(0, cache_position, hidden[0])
        mixed = hidden + torch.cumsum(hidden, dim=1)  # (each row depends on the earlier)
        return self.head(self.lm_head(mixed))


def _export(model: Any, length: int = 3) -> Any:
    seq = torch.export.Dim("seq", min=1, max=16)
    dynamic = {"input_ids": {1: seq}, "cache_position": {0: seq}}
    return torch.export.export(
        model,
        (),
        {"input_ids": torch.arange(length)[None], "cache_position": torch.arange(length)},
        dynamic_shapes=dynamic if length > 1 else None,
    )


def _soft_capped(logits: Any) -> Any:
    return torch.tanh(logits / 30.0) * 30.0


@pytest.mark.parametrize("head", [lambda logits: logits, _soft_capped], ids=["plain", "capped"])
def test_the_last_row_of_the_full_program(head: Any) -> None:
    exported = _export(_Model(head))
    cut = last_logits_program(exported, "input_ids")
    assert cut is not None
    ids, positions = torch.tensor([[3, 1, 4, 1, 5]]), torch.arange(5)
    every = exported.module()(input_ids=ids, cache_position=positions)
    last = cut.module()(input_ids=ids, cache_position=positions)
    assert every.shape == (1, 5, VOCABULARY) and last.shape == (1, 1, VOCABULARY)
    torch.testing.assert_close(last, every[:, -1:], rtol=1e-6, atol=1e-6)
    # The program's state is still written (the cache's rows of the prompt).
    assert cut.graph_signature.buffers_to_mutate
    # The original program is left as it was.
    assert exported.module()(input_ids=ids, cache_position=positions).shape == (1, 5, VOCABULARY)


@pytest.mark.parametrize(
    ("head", "why"),
    [
        (lambda logits: torch.cumsum(logits, dim=1), "an op across the rows"),
        (lambda logits: torch.softmax(logits, dim=-1), "an op not known row-wise"),
        (lambda logits: logits + logits.flip(1), "another operand with the rows"),
    ],
)
def test_what_is_not_cut(head: Any, why: str) -> None:
    assert last_logits_program(_export(_Model(head)), "input_ids") is None, why


def test_a_step_or_another_argument_is_not_cut() -> None:
    model = _Model(lambda logits: logits)
    assert last_logits_program(_export(model, length=1), "input_ids") is None  # one token
    assert last_logits_program(_export(model), "tokens") is None  # no such argument


def test_the_cut_program_at_a_static_length() -> None:
    cut = last_logits_program(_export(_Model(lambda logits: logits)), "input_ids")
    assert cut is not None
    chunk = static_length_program(cut, "input_ids", "cache_position", 4)
    assert chunk is not None
    shapes = {
        node.name: tuple(node.meta["val"].shape)
        for node in chunk.graph.nodes
        if node.name in ("input_ids", "cache_position")
    }
    assert shapes == {"input_ids": (1, 4), "cache_position": (4,)}
    assert chunk.graph_signature.buffers_to_mutate == cut.graph_signature.buffers_to_mutate
    ids, positions = torch.tensor([[3, 1, 4, 1]]), torch.arange(5, 9)
    dynamic, static = cut.module(), chunk.module()
    torch.testing.assert_close(
        static(input_ids=ids, cache_position=positions),
        dynamic(input_ids=ids, cache_position=positions),
        rtol=0,
        atol=0,
    )
    # (the state written: the cache rows of the chunk's positions)
    torch.testing.assert_close(static.cache, dynamic.cache, rtol=0, atol=0)
    assert static.cache[5:9].abs().sum() > 0


def test_what_has_no_static_length_program() -> None:
    model = _Model(lambda logits: logits)
    cut = last_logits_program(_export(model), "input_ids")
    assert static_length_program(cut, "input_ids", "cache_position", 17) is None  # past 16
    assert static_length_program(cut, "input_ids", "positions", 4) is None  # no such argument
    step = _export(model, length=1)  # (a static length already)
    assert static_length_program(step, "input_ids", "cache_position", 4) is None


def test_a_program_torch_cannot_export_again_gets_no_chunk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where torch.export fails at the static length, the program gets no chunk function
    (the prompt then goes to the prefill function), with a warning saying why."""
    cut = last_logits_program(_export(_Model(lambda logits: logits)), "input_ids")

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("data-dependent branch\nmore detail")

    monkeypatch.setattr(torch.export, "export", refuse)
    with pytest.warns(UserWarning) as caught:
        assert static_length_program(cut, "input_ids", "cache_position", 4) is None
    assert [str(item.message) for item in caught] == [
        "torch cannot export the prompt program at a static length of 4 tokens "
        "(RuntimeError: data-dependent branch): no chunk function"
    ]
