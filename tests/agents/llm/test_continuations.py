"""continuation_probabilities: one padded batch gives each tail's own probability, normalised."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from rewardgym.agents.llm.continuations import continuation_probabilities


def _log_probability(model, tokenizer, head: str, tail: str) -> float:
    """The tail's log-probability after head from one unpadded forward pass of its own."""
    prefix = tokenizer(head, add_special_tokens=False)["input_ids"]
    ids = tokenizer(head + tail, add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        logp = torch.log_softmax(model(torch.tensor([ids])).logits[0].float(), dim=-1)
    return sum(float(logp[p, ids[p + 1]]) for p in range(len(prefix) - 1, len(ids) - 1))


def test_each_tail_gets_its_unpadded_probability_normalised_over_the_tails(
    tiny_model: Path,
) -> None:
    from rewardgym.agents.llm.model import load_model

    model, tokenizer = load_model(tiny_model)
    model.eval()
    head = '{"rationale": "I want a cheaper one.", "action": {"type":'
    tails = [' "click"', ' "type_and_submit", "name": "search"', ' "terminate"']
    probs = continuation_probabilities(model, tokenizer, head, tails)
    direct = [math.exp(_log_probability(model, tokenizer, head, t)) for t in tails]
    assert sum(probs) == pytest.approx(1.0)
    assert probs == pytest.approx([d / sum(direct) for d in direct], rel=1e-4)
    assert continuation_probabilities(model, tokenizer, head, tails[:1]) == [1.0]


def test_no_tails_or_an_empty_head_is_refused(tiny_model: Path) -> None:
    from rewardgym.agents.llm.model import load_model

    model, tokenizer = load_model(tiny_model)
    with pytest.raises(ValueError, match="non-empty head"):
        continuation_probabilities(model, tokenizer, "head", [])
    with pytest.raises(ValueError, match="non-empty head"):
        continuation_probabilities(model, tokenizer, "", [" tail"])
