"""Choosing the next token (`abi_compiler.generation.sampling`): the distribution after
temperature, top-k and top-p, exact; draws that follow it (a chi-square test with a fixed
seed); top-k 1 is greedy; the same seed gives the same draws."""

from __future__ import annotations

import numpy as np
import pytest

from abi_compiler.generation.sampling import Sampling, distribution, next_token

LOGITS = np.array([2.0, 1.0, 0.5, 3.0, 0.0, -1.0, 2.0, 1.5], dtype=np.float32)


def _softmax(values: np.ndarray) -> np.ndarray:
    weights = np.exp(values - values.max())
    return weights / weights.sum()


def test_temperature_top_k_and_top_p_as_transformers_applies_them() -> None:
    scores = LOGITS.astype(np.float64)
    np.testing.assert_allclose(
        distribution(LOGITS, Sampling(False, 0.5)), _softmax(scores / 0.5), rtol=1e-12
    )
    # top_k 3: tokens 3 (3.0), 0 and 6 (2.0, ties kept by the lower id first).
    kept = distribution(LOGITS, Sampling(False, 1.0, top_k=3))
    want = np.zeros(8)
    want[[3, 0, 6]] = _softmax(scores[[3, 0, 6]])
    np.testing.assert_allclose(kept, want, rtol=1e-12)
    # A tie at the cut: the lower id is kept.
    two = distribution(LOGITS, Sampling(False, 1.0, top_k=2))
    assert np.flatnonzero(two).tolist() == [0, 3]
    # top_p: the most likely tokens until their probability reaches it.
    full = _softmax(scores)
    order = np.argsort(-scores, kind="stable")  # 3, 0, 6, 7, 1, 2, 4, 5
    reached = np.cumsum(full[order])
    assert reached[2] < 0.8 <= reached[3]
    nucleus = distribution(LOGITS, Sampling(False, 1.0, top_p=0.8))
    want = np.zeros(8)
    want[order[:4]] = full[order[:4]] / full[order[:4]].sum()
    np.testing.assert_allclose(nucleus, want, rtol=1e-12)
    # top_p so small that only the first token is left.
    assert distribution(LOGITS, Sampling(False, 1.0, top_p=0.01)).tolist() == [
        0,
        0,
        0,
        1,
        0,
        0,
        0,
        0,
    ]


def _chi_square(counts: np.ndarray, expected: np.ndarray) -> float:
    mask = expected > 0
    return float((((counts - expected) ** 2)[mask] / expected[mask]).sum())


@pytest.mark.parametrize(
    "sampling",
    [
        Sampling(False, 1.0),
        Sampling(False, 0.7, top_k=5),
        Sampling(False, 1.3, top_k=6, top_p=0.9),
    ],
    ids=["plain", "temperature-top-k", "top-k-top-p"],
)
def test_draws_follow_the_distribution(sampling: Sampling) -> None:
    """20 000 draws with seed 0: the chi-square statistic against the distribution is
    below the 0.1% critical value (8 categories at most: 7 degrees of freedom, 24.32),
    and no token outside it is ever drawn."""
    generator = np.random.default_rng(0)
    draws = 20_000
    counts = np.bincount(
        [next_token(LOGITS, sampling, generator) for _ in range(draws)], minlength=8
    )
    probabilities = distribution(LOGITS, sampling)
    assert counts[probabilities == 0].sum() == 0
    statistic = _chi_square(counts, probabilities * draws)
    assert statistic < 24.32, (statistic, counts.tolist())
    # Not vacuous: the same draws against the plain softmax (when it differs) fail.
    plain = distribution(LOGITS, Sampling(False, 1.0))
    if not np.allclose(plain, probabilities):
        assert _chi_square(counts, plain * draws) > 100


def test_top_k_one_is_greedy_and_a_seed_repeats() -> None:
    generator = np.random.default_rng(7)
    rows = generator.normal(size=(50, 40)).astype(np.float32)
    rows[0, [3, 9]] = 10.0  # a tie: the lower id, as argmax
    for row in rows:
        greedy = next_token(row, Sampling(), generator)
        assert greedy == int(np.argmax(row))
        assert next_token(row, Sampling(False, 0.8, top_k=1), generator) == greedy
    first = [next_token(r, Sampling(False, 1.0), np.random.default_rng(5)) for r in rows]
    again = [next_token(r, Sampling(False, 1.0), np.random.default_rng(5)) for r in rows]
    assert first == again
    other = [next_token(r, Sampling(False, 1.0), np.random.default_rng(6)) for r in rows]
    assert first != other
