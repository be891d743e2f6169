"""``gym.make("rewardgym/ShopSession-v0")`` wrapped in ``ShopR1Reward``: the paper's values, hand-computed."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from rewardgym.wrappers import PolicyOutput, ShopR1Config, ShopR1Reward, binary_match
from rewardgym.wrappers.self_certainty import CertaintyKind

ENV_ID = "rewardgym/ShopSession-v0"
SESSIONS = [0, 1, 2]


def recorded_truths(session: int) -> list[dict[str, str]]:
    """The human's actions of one session, read from ``info["truth"]`` by a probe rollout."""
    env = gym.make(ENV_ID)
    env.reset(options={"session": session})
    truths, done = [], False
    while not done:
        _, _, done, _, info = env.step("probe")
        truths.append(info["truth"])
    return truths


def tokens(text: str) -> int:
    """Number of rouge-score tokens, counted by hand (maximal [a-z0-9] runs after lower())."""
    return len(re.findall(r"[a-z0-9]+", text.lower()))


def out(action: dict[str, str], rationale: str | None = "I want this one.") -> str:
    obj: dict[str, Any] = {"action": action}
    if rationale is not None:
        obj["rationale"] = rationale
    return json.dumps(obj)


def exact(truth: dict[str, str]) -> tuple[str, float]:
    if truth["type"] == "terminate":
        return out({"type": "terminate"}), 0.5 + 0.3
    if truth["type"] == "click":
        return out({"type": "click", "name": truth["name"]}), 0.5 + 0.3 + 0.2 + 1000
    assert tokens(truth["text"]) > 0
    return out(truth), 0.5 + 0.3 + (0.1 + 0.1) + (0.1 + 1000)


def one_extra_token(truth: dict[str, str]) -> tuple[str, float]:
    # k reference tokens, k + 1 predicted, LCS k: P = k/(k+1), R = 1, F = 2k/(2k+1),
    # which reaches 0.75 only when k >= 2.
    def gated(k: int) -> float:
        f = 2 * k / (2 * k + 1)
        return f if f >= 0.75 else 0.0

    if truth["type"] == "terminate":
        return out({"type": "terminate", "name": "zzz"}), 0.8
    if truth["type"] == "click":
        k = tokens(truth["name"])
        return out({"type": "click", "name": truth["name"] + " zzz"}), 1.0 + 1000 * gated(k)
    k = tokens(truth["text"])
    action = dict(truth, text=truth["text"] + " zzz")
    return out(action), 0.5 + 0.3 + 0.2 + 0.1 + 1000 * gated(k)


def wrong_type(truth: dict[str, str]) -> tuple[str, float]:
    other = "click" if truth["type"] != "click" else "terminate"
    return out({"type": other, "name": truth["name"] or "x"}), 0.5


def empty_fields(truth: dict[str, str]) -> tuple[str, float]:
    action = {"type": truth["type"], "name": "", "text": ""}
    return out(action), 0.8


def invalid_json(truth: dict[str, str]) -> tuple[str, float]:
    return out(truth)[:-1], 0.0


def rationale_only(truth: dict[str, str]) -> tuple[str, float]:
    return json.dumps({"rationale": "I keep browsing."}), 0.0


def extra_keys(truth: dict[str, str]) -> tuple[str, float]:
    text, expected = exact(truth)
    obj = json.loads(text)
    obj["confidence"] = 0.9
    obj["action"]["why"] = "because"
    return json.dumps(obj), expected


CASES: list[Callable[[dict[str, str]], tuple[str, float]]] = [
    exact,
    one_extra_token,
    wrong_type,
    empty_fields,
    invalid_json,
    rationale_only,
    extra_keys,
]


@pytest.mark.parametrize("session", SESSIONS)
def test_paper_values_on_hand_computed_cases(session: int) -> None:
    truths = recorded_truths(session)
    envs = [ShopR1Reward(gym.make(ENV_ID)) for _ in CASES]
    for env in envs:
        env.reset(options={"session": session})
    for truth in truths:
        for env, case in zip(envs, CASES, strict=True):
            text, expected = case(truth)
            _, reward, _, _, info = env.step(text)
            assert info["truth"] == truth
            terms = info["reward_terms"]
            assert reward == terms["total"]
            assert reward == pytest.approx(expected, abs=1e-9), (case.__name__, truth, terms)
            assert {"format", "rationale", "type", "attribute", "value"} <= set(terms)
            assert terms["rationale_missing"] == 1.0


def test_the_sessions_cover_every_action_type() -> None:
    seen = {t["type"] for s in SESSIONS for t in recorded_truths(s)}
    assert seen == {"click", "type_and_submit", "terminate"}


def test_log_probs_through_the_real_env_and_the_kang_option() -> None:
    truths = recorded_truths(0)
    vocab = 16
    with np.errstate(divide="ignore"):
        one_hot = np.log(np.eye(vocab)[:3])
    cases: list[tuple[CertaintyKind, float]] = [
        ("paper", math.log(vocab) / vocab),
        ("kang", 100 * 15 / 16 - math.log(vocab)),
    ]
    for kind, s in cases:
        env = ShopR1Reward(gym.make(ENV_ID), ShopR1Config(self_certainty_kind=kind))
        env.reset(options={"session": 0})
        text, expected = exact(truths[0])
        _, reward, _, _, info = env.step(PolicyOutput(text, rationale_logprobs=one_hot))
        assert info["reward_terms"]["rationale"] == pytest.approx(0.005 * s)
        assert reward == pytest.approx(expected + 0.005 * s)


def test_binary_match_agrees_with_the_env_reward() -> None:
    truths = recorded_truths(1)
    plain, wrapped = gym.make(ENV_ID), binary_match.BinaryMatchReward(gym.make(ENV_ID))
    for env in (plain, wrapped):
        env.reset(options={"session": 1})
    for i, truth in enumerate(truths):
        text = exact(truth)[0] if i % 2 == 0 else one_extra_token(truth)[0]
        _, base, *_ = plain.step(text)
        _, reward, _, _, info = wrapped.step(text)
        assert reward == base == info["reward_terms"]["total"]
