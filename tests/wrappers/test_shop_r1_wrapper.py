"""``ShopR1Reward`` and ``BinaryMatchReward`` on a tiny fake env with ShopSession-v0's step contract."""

from __future__ import annotations

import json
import math
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch

from rewardgym.envs.shopping.parsing import parse_output
from rewardgym.envs.shopping.schema import ShopAction, actions_match
from rewardgym.wrappers import (
    BinaryMatchReward,
    PolicyOutput,
    ShopR1Config,
    ShopR1Reward,
    rationale_char_span,
    token_self_certainty,
)

TRUTHS = [
    ShopAction("type_and_submit", name="search box", text="yoga mat"),
    ShopAction("click", name="product 3 title"),
    ShopAction("terminate"),
]
TERMS = {"format", "rationale", "type", "attribute", "value", "total", "rationale_missing"}


class FakeShopEnv(gym.Env[str, str]):
    """Replays ``TRUTHS``: reward 1.0 on exact match, the human's action in ``info["truth"]``."""

    def __init__(self, with_truth: bool = True) -> None:
        self.observation_space = gym.spaces.Text(100)
        self.action_space = gym.spaces.Text(10_000)
        self.with_truth = with_truth
        self.received: list[Any] = []
        self._step = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        self._step = 0
        return "page 0", {"session_id": "fake", "step": 0}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        self.received.append(action)
        parsed = parse_output(action)
        truth = TRUTHS[self._step]
        info: dict[str, Any] = {
            "prediction": parsed.to_info(),
            "session_id": "fake",
            "step": self._step,
        }
        if self.with_truth:
            info["truth"] = truth.truth_dict()
        self._step += 1
        done = self._step == len(TRUTHS)
        return f"page {self._step}", float(actions_match(parsed.action, truth)), done, False, info


def copy_of(truth: ShopAction, rationale: str = "I know what I want.") -> str:
    return json.dumps({"rationale": rationale, "action": truth.to_dict()})


def test_reward_equals_total_and_every_term_is_a_float() -> None:
    env = ShopR1Reward(FakeShopEnv())
    env.reset(seed=0)
    expected = [0.5 + 0.3 + 0.2 + 1000.1, 0.5 + 0.3 + 0.2 + 1000.0, 0.8]
    for truth, want in zip(TRUTHS, expected, strict=True):
        _, reward, _, _, info = env.step(copy_of(truth))
        terms = info["reward_terms"]
        assert set(terms) >= TERMS and all(isinstance(v, float) for v in terms.values())
        assert reward == terms["total"] == pytest.approx(want)
        assert terms["rationale_missing"] == 1.0 and terms["rationale"] == 0.0
        assert info["session_id"] == "fake"  # the inner env's info is kept


def test_policy_output_passes_only_the_text_and_pays_self_certainty() -> None:
    inner = FakeShopEnv()
    env = ShopR1Reward(inner)
    env.reset()
    text = copy_of(TRUTHS[0])
    vocab = 8
    logprobs = torch.full((5, vocab), -math.log(vocab))
    logprobs[0] = torch.log(torch.tensor([1.0] + [0.0] * (vocab - 1)))
    _, reward, _, _, info = env.step(PolicyOutput(text, rationale_logprobs=logprobs))
    assert inner.received == [text]
    s = (math.log(vocab) / vocab) / 5  # one one-hot token, four uniform ones
    terms = info["reward_terms"]
    assert terms["self_certainty"] == pytest.approx(s)
    assert terms["rationale"] == pytest.approx(0.005 * s)
    assert terms["rationale_missing"] == 0.0
    assert reward == pytest.approx(1001.1 + 0.005 * s)
    # The same through precomputed per-token values: N floats instead of an [N, V] array.
    per_token = token_self_certainty(logprobs)
    _, reward2, _, _, info2 = env.step(
        PolicyOutput(copy_of(TRUTHS[1]), rationale_token_certainty=per_token)
    )
    assert info2["reward_terms"]["rationale"] == pytest.approx(0.005 * s)
    assert reward2 == pytest.approx(1001.0 + 0.005 * s)


def test_rationale_span_finds_the_value_for_slicing_token_log_probs() -> None:
    text = 'Sure. {"rationale": "I want \\"yoga\\" gear", "action": {"type": "terminate"}}'
    start, end = rationale_char_span(text) or (0, 0)
    assert json.loads('"' + text[start:end] + '"') == 'I want "yoga" gear'
    assert rationale_char_span('{"action": {"type": "terminate"}}') is None


def test_rationale_span_is_the_rationale_the_parser_found() -> None:
    # The parser takes the fenced object; a "rationale" in the prose before it is not the output's.
    real = '{"rationale": "I want the mat.", "action": {"type": "terminate"}}'
    text = 'Draft: "rationale": "not this one" then\n```json\n' + real + "\n```"
    assert parse_output(text).rationale == "I want the mat."
    start, end = rationale_char_span(text) or (0, 0)
    assert text[start:end] == "I want the mat."
    assert rationale_char_span(text, parse_output(text)) == (start, end)
    # No rationale string in the parsed object: no span, whatever else the text holds.
    no_string = '{"rationale": 3, "action": {"type": "terminate"}, "note": {"rationale": "x"}}'
    assert rationale_char_span(no_string) is None


def test_every_token_certainty_is_cut_to_the_parsed_rationale_by_the_wrapper() -> None:
    real = json.dumps(
        {"rationale": "I click it.", "action": {"type": "click", "name": "product 3 title"}}
    )
    text = 'Note "rationale": "no" ' + real
    ends = list(range(1, len(text) + 1))  # one character per token
    values = np.linspace(0.0, 0.3, len(text))
    start, end = rationale_char_span(text) or (0, 0)
    assert text[start:end] == "I click it."
    output = PolicyOutput(text, token_certainty=values, token_ends=ends)
    np.testing.assert_array_equal(output.rationale_certainty(), values[start:end])
    env = ShopR1Reward(FakeShopEnv())
    env.reset()
    _, reward, _, _, info = env.step(output)
    env.reset()
    _, sliced, *_ = env.step(PolicyOutput(text, rationale_token_certainty=values[start:end]))
    assert reward == pytest.approx(sliced) and info["reward_terms"]["rationale_missing"] == 0.0
    assert info["reward_terms"]["self_certainty"] == pytest.approx(values[start:end].mean())
    with pytest.raises(ValueError, match="token_ends"):
        PolicyOutput(text, token_certainty=values)


def test_ablation_configs_through_the_wrapper() -> None:
    env = ShopR1Reward(FakeShopEnv(), ShopR1Config.ablation("no-dars"))
    env.reset()
    _, reward, *_ = env.step(copy_of(TRUTHS[0]))
    assert reward == pytest.approx(0.5 + 0.3 + 0.2 + 0.1 + 1.0)


def test_binary_match_reward() -> None:
    inner = FakeShopEnv()
    env = BinaryMatchReward(inner)
    env.reset()
    _, exact, _, _, info = env.step(PolicyOutput(copy_of(TRUTHS[0]), np.zeros((2, 3))))
    assert exact == 1.0 == info["reward_terms"]["total"] == info["reward_terms"]["exact_match"]
    assert set(info["reward_terms"]) >= TERMS and info["reward_terms"]["format"] == 0.0
    near = json.dumps({"rationale": "r", "action": {"type": "click", "name": "product 3"}})
    _, miss, _, _, info = env.step(near)
    assert miss == 0.0 == info["reward_terms"]["total"]
    assert info["reward_terms"]["type_match"] == 1.0
    assert inner.received[0] == copy_of(TRUTHS[0])


@pytest.mark.parametrize("wrapper", [ShopR1Reward, BinaryMatchReward])
def test_errors_say_what_is_wrong(wrapper: type[gym.Wrapper[Any, Any, Any, Any]]) -> None:
    env = wrapper(FakeShopEnv(with_truth=False))
    env.reset()
    with pytest.raises(KeyError, match="info\\['truth'\\]"):
        env.step(copy_of(TRUTHS[0]))
    with pytest.raises(TypeError, match="got int"):
        wrapper(FakeShopEnv()).step(3)
