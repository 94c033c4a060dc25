"""The next token from one step's logits: the most likely one (greedy), or a draw from
the softmax of the logits divided by the temperature, over the ``top_k`` most likely tokens
and then the smallest set whose probability reaches ``top_p`` (transformers' order of
warpers). Draws come from a numpy `Generator` seeded per generation: the same seed gives
the same tokens."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Sampling", "distribution", "next_token"]


@dataclass(frozen=True, slots=True)
class Sampling:
    """How a token is chosen: ``greedy``, else drawn with ``temperature`` (> 0),
    ``top_k`` (None: all tokens) and ``top_p`` (in (0, 1])."""

    greedy: bool = True
    temperature: float = 1.0
    top_k: int | None = None
    top_p: float = 1.0


def distribution(logits: Any, sampling: Sampling) -> np.ndarray:
    """The probability of each token (float64, summing to 1): softmax(logits /
    temperature), only the ``top_k`` most likely kept (ties by lower id), then only the
    most likely tokens whose probability reaches ``top_p`` (at least one)."""
    scores = np.asarray(logits, dtype=np.float64).reshape(-1) / sampling.temperature
    # The most likely first, ties by the lower id (a stable sort of the negated scores).
    order = np.argsort(-scores, kind="stable")
    if sampling.top_k is not None and sampling.top_k < scores.size:
        order = order[: sampling.top_k]
    kept = scores[order]
    weights = np.exp(kept - kept[0])
    weights /= weights.sum()
    if sampling.top_p < 1.0:
        # Kept: the tokens before the probability reached top_p, and the one reaching it.
        before = np.cumsum(weights) - weights
        count = max(1, int(np.count_nonzero(before < sampling.top_p)))
        order, weights = order[:count], weights[:count] / weights[:count].sum()
    probabilities = np.zeros(scores.size)
    probabilities[order] = weights
    return probabilities


def next_token(logits: Any, sampling: Sampling, generator: np.random.Generator) -> int:
    """The chosen token id of one step's logits (a vector over the vocabulary)."""
    if sampling.greedy:
        return int(np.argmax(logits))
    probabilities = distribution(logits, sampling)
    cumulative = np.cumsum(probabilities)
    drawn = generator.random() * cumulative[-1]
    index = int(np.searchsorted(cumulative, drawn, side="right"))
    # (a draw at the very top of the last interval: the last token with any probability)
    return min(index, int(np.flatnonzero(probabilities)[-1]))
