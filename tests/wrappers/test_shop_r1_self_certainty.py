"""Self-certainty (Shop-R1 Eq. 3 and Kang et al.'s KL(U||p)) on hand-made distributions."""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np
import pytest
import torch

from rewardgym.wrappers.self_certainty import (
    LOGPROB_FLOOR,
    CertaintyKind,
    max_self_certainty,
    mean_token_certainty,
    self_certainty,
    token_self_certainty,
)


def one_hot_logprobs(n: int, vocab: int) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(np.eye(vocab)[np.arange(n) % vocab])


@pytest.mark.parametrize("vocab", [1, 2, 7, 1000])
@pytest.mark.parametrize("kind", ["paper", "kang"])
def test_uniform_gives_zero(vocab: int, kind: CertaintyKind) -> None:
    uniform = np.full((5, vocab), -math.log(vocab))
    assert self_certainty(uniform, kind) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("vocab", [2, 3, 7, 1000])
def test_one_hot_gives_the_paper_maximum(vocab: int) -> None:
    expected = math.log(vocab) / vocab
    assert self_certainty(one_hot_logprobs(4, vocab)) == pytest.approx(expected, rel=1e-12)
    rng = np.random.default_rng(vocab)
    for _ in range(50):
        logits = rng.normal(scale=5.0, size=(3, vocab))
        assert 0.0 <= self_certainty(logits) <= expected + 1e-15
    assert expected <= max_self_certainty("paper")


def test_paper_formula_on_a_hand_made_distribution() -> None:
    p = np.array([[0.5, 0.25, 0.25, 0.0], [0.25, 0.25, 0.25, 0.25]])
    vocab = 4
    # Eq. 3 by hand: 1/(N|V|) sum_j sum_i p log(p |V|), with 0 log 0 = 0.
    row0 = 0.5 * math.log(2.0) + 2 * 0.25 * math.log(1.0)
    expected = row0 / (2 * vocab)
    with np.errstate(divide="ignore"):
        assert self_certainty(np.log(p)) == pytest.approx(expected, rel=1e-12)
        per_token = token_self_certainty(np.log(p))
    assert per_token == pytest.approx([row0 / vocab, 0.0], abs=1e-15)


def test_kang_formula_and_its_clamp() -> None:
    p = np.array([[0.5, 0.25, 0.25]])
    expected = -math.log(3) - (math.log(0.5) + 2 * math.log(0.25)) / 3
    assert self_certainty(np.log(p), "kang") == pytest.approx(expected, rel=1e-12)
    # A zero-probability token would make KL(U||p) infinite; it is clamped at LOGPROB_FLOOR.
    clamped = self_certainty(one_hot_logprobs(1, 3), "kang")
    assert clamped == pytest.approx(-2 * LOGPROB_FLOOR / 3 - math.log(3), rel=1e-12)
    assert clamped <= max_self_certainty("kang")


def test_logits_and_logprobs_agree_and_torch_matches_numpy() -> None:
    rng = np.random.default_rng(0)
    logits = rng.normal(scale=3.0, size=(6, 50))
    logprobs = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    kinds: tuple[CertaintyKind, ...] = ("paper", "kang")
    for kind in kinds:
        from_numpy = self_certainty(logprobs, kind)
        assert self_certainty(logits, kind) == pytest.approx(from_numpy, rel=1e-10)
        tensor = torch.tensor(logits, dtype=torch.float32)
        assert self_certainty(tensor, kind) == pytest.approx(from_numpy, rel=1e-5)


def test_masked_tokens_are_handled_in_both_backends() -> None:
    logits = np.array([[2.0, -np.inf, 0.0, -np.inf]])
    for array in (logits, torch.tensor(logits)):
        value = self_certainty(array)
        assert math.isfinite(value) and value > 0
        assert math.isfinite(self_certainty(array, "kang"))


def test_bad_inputs_raise_with_the_shape_or_reason() -> None:
    with pytest.raises(ValueError, match="shape"):
        self_certainty(np.zeros(5))
    with pytest.raises(ValueError, match="NaN"):
        self_certainty(np.array([[0.0, np.nan]]))
    with pytest.raises(ValueError, match="all -inf"):
        self_certainty(np.array([[-np.inf, -np.inf]]))
    with pytest.raises(ValueError, match="kind"):
        self_certainty(np.zeros((1, 2)), cast(Any, "entropy"))
    with pytest.raises(ValueError, match="finite"):
        mean_token_certainty([0.1, -1.0])
    assert self_certainty(np.zeros((0, 9))) == 0.0
    assert mean_token_certainty([]) == 0.0
    assert mean_token_certainty([0.1, 0.3]) == pytest.approx(0.2)
