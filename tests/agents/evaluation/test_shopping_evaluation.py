"""Shop evaluation: scoring equals stepping the env, the paper protocol, session-bootstrap intervals."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import rewardgym  # noqa: F401
from rewardgym.agents.evaluation.intervals import bootstrap_intervals
from rewardgym.agents.evaluation.shopping import (
    PAPER_CLASS_RATIO,
    StepRecord,
    evaluate_outputs,
    protocol_metrics,
    protocol_records,
    score_outputs,
)
from rewardgym.envs.shopping.parsing import format_output
from rewardgym.envs.shopping.schema import ShopAction

CLICK, TERM = ShopAction("click", "buy_now"), ShopAction("terminate")
SEARCH = ShopAction("type_and_submit", "search_input", "waterproof hiking boots women")


def _records(sessions: int, rng: np.random.Generator, p_correct: float) -> list[StepRecord]:
    records = []
    for s in range(sessions):
        truths = [SEARCH] + [CLICK] * 7 + [TERM]
        for j, truth in enumerate(truths):
            right = rng.random() < p_correct
            records.append(StepRecord(s, j, truth, truth if right else ShopAction("click", "x")))
    return records


def test_scoring_outputs_equals_stepping_the_env(tmp_path: Path) -> None:
    from rewardgym.envs.shopping.session_sources import build_synthetic_log
    from rewardgym.envs.shopping.synthetic import SyntheticShopperConfig

    store = build_synthetic_log(
        tmp_path / "store", config=SyntheticShopperConfig(sessions=6, seed=1)
    )
    env = gym.make("rewardgym/ShopSession-v0", data=store, split="all")
    outputs, sessions, steps, truths, texts = [], [], [], [], []
    for s in range(3):
        env.reset(options={"session": s})
        answers = []
        while True:
            truth = env.unwrapped._current.action  # type: ignore[attr-defined]
            guess = truth if len(answers) % 2 == 0 else TERM
            answers.append(format_output("r", guess))
            sessions.append(s), steps.append(len(answers) - 1), truths.append(truth)
            *_, terminated, _, _ = env.step("")
            if terminated:
                break
        outputs.append(answers)
        texts.extend(answers)
    replayed = evaluate_outputs(env, list(range(3)), outputs)
    direct = score_outputs(texts, sessions, steps, truths)
    assert replayed.metrics == direct.metrics and replayed.mean_reward == direct.mean_reward
    assert replayed.records == direct.records


def test_paper_protocol_skips_first_steps_and_balances_classes() -> None:
    records = _records(40, np.random.default_rng(0), 0.5)
    chosen = protocol_records(records, "paper")
    assert all(r.step > 0 for r in chosen)
    counts = {k: sum(r.truth.type == k for r in chosen) for k in ("click", "terminate")}
    assert counts["terminate"] == 40
    assert counts["click"] == round(PAPER_CLASS_RATIO * 40)
    assert protocol_records(records, "natural") == records
    assert protocol_records(records, "paper") == chosen  # deterministic


def test_paper_protocol_counts_similar_typed_text() -> None:
    near = ShopAction("type_and_submit", "search_input", "women waterproof hiking boots")
    records = [
        StepRecord(0, 0, CLICK, CLICK),
        StepRecord(0, 1, SEARCH, near),
        StepRecord(0, 2, TERM, TERM),
    ]
    assert protocol_metrics(records, "natural").per_type_exact["type_and_submit"] == 0.0
    assert protocol_metrics(records, "paper").per_type_exact["type_and_submit"] == 100.0


def test_intervals_hold_the_estimate_and_shrink_with_more_sessions() -> None:
    rng = np.random.default_rng(1)
    small = _records(30, rng, 0.6)
    large = _records(300, rng, 0.6)
    point = protocol_metrics(small, "natural")
    ci_small = bootstrap_intervals([small], samples=500)
    ci_large = bootstrap_intervals([large], samples=500)
    lo, hi = ci_small["exact_match"]
    assert lo <= point.exact_match <= hi
    assert ci_large["exact_match"][1] - ci_large["exact_match"][0] < (hi - lo) / 2
    for key in ("type_accuracy", "type_f1", "exact_click", "exact_terminate"):
        assert ci_small[key][0] <= ci_small[key][1]
    assert 55.0 < np.mean(ci_large["exact_match"]) < 65.0


def test_pooling_two_runs_on_the_same_sessions_keeps_the_session_unit() -> None:
    rng = np.random.default_rng(2)
    one = _records(50, rng, 0.5)
    twice = bootstrap_intervals([one, one], samples=400, seed=3)
    once = bootstrap_intervals([one], samples=400, seed=3)
    # Identical runs add no information: resampling sessions gives the same interval.
    assert twice["exact_match"] == pytest.approx(once["exact_match"])


def test_predicted_type_shares_have_intervals_around_the_rows_own_share() -> None:
    rng = np.random.default_rng(4)
    records = _records(60, rng, 0.7)  # a wrong answer is a click, so terminate is under-predicted
    point = protocol_metrics(records, "natural")
    ci = bootstrap_intervals([records], samples=500)
    for kind in ("click", "type_and_submit", "terminate"):
        lo, hi = ci[f"predicted_share_{kind}"]
        assert lo <= point.predicted_type_share[kind] <= hi
    # a type the row never predicts has the point interval [0, 0]: a share of 0 is exact
    never = [StepRecord(r.session, r.step, r.truth, CLICK) for r in records]
    assert bootstrap_intervals([never], samples=200)["predicted_share_terminate"] == [0.0, 0.0]
    lo, hi = ci["predicted_share_terminate"]
    assert lo > 0.0 and hi < 100.0 / 9  # predicted on fewer steps than the truth's 1 in 9
