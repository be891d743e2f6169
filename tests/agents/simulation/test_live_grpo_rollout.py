"""The live-store GRPO rollout's on-policy prefix and its reward: states the policy reached, scored against the shopper."""

from __future__ import annotations

import pickle

import pytest

from rewardgym.agents.llm.config import PromptConfig
from rewardgym.agents.simulation.live_grpo import (
    LiveEnv,
    LiveRollout,
    LiveStoreReward,
    live_rows,
)
from rewardgym.envs.shopping.parsing import format_output
from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.envs.shopping.synthetic import StoreConfig
from rewardgym.wrappers import ShopR1Reward


def click(name: str) -> str:
    return format_output("I click.", ShopAction("click", name))


def test_rows_name_intents_and_turns_within_range() -> None:
    rows = live_rows(LiveEnv(max_turns=3, intents=50), 40, seed=1)
    assert len(rows) == 40 and set(rows.column_names) == {"prompt", "session", "step"}
    assert all(0 <= s < 50 for s in rows["session"]) and set(rows["step"]) <= {1, 2, 3}
    assert rows[0]["prompt"] == f"visit {rows[0]['session']}, turn {rows[0]['step']}"
    with pytest.raises(ValueError, match="max_turns"):
        LiveEnv(max_turns=0)


def test_play_advances_each_visit_by_the_policys_own_actions() -> None:
    rollout = LiveRollout(StoreConfig(), PromptConfig())
    calls: list[int] = []

    def act(observations):
        calls.append(len(observations))
        return [click("nav_home")] * len(observations)

    reached = rollout.play([(5, 1), (5, 3), (7, 2)], act)
    assert calls == [2, 1], "turn 1 is sampled where the visit opens; deeper turns need the policy"
    assert reached[(5, 1)]["history"] and len(reached[(5, 1)]["history"]) == 1
    assert (
        len(reached[(5, 3)]["history"]) == 3
        and reached[(5, 3)]["history"][-1]["name"] == "nav_home"
    )
    assert len(reached[(7, 2)]["history"]) == 2
    env = pickle.loads(rollout.states[(5, 3)])
    assert env.visit.browser.kind == "home" and env.visit.index == 5


def test_a_visit_that_ends_early_is_sampled_at_its_last_open_state() -> None:
    rollout = LiveRollout(StoreConfig(), PromptConfig())
    reached = rollout.play(
        [(3, 4)], lambda obs: [format_output("Bye.", ShopAction("terminate"))] * len(obs)
    )
    assert len(reached[(3, 4)]["history"]) == 1 and rollout.turns_reached == [1]
    assert not pickle.loads(rollout.states[(3, 4)]).visit.ended


def test_reward_scores_a_completion_against_the_shoppers_choice_in_the_reached_state() -> None:
    rollout = LiveRollout(StoreConfig(), PromptConfig())
    rollout.play([(9, 2)], lambda obs: [click("product_1_title")] * len(obs))
    truth = pickle.loads(rollout.states[(9, 2)]).truth_output()
    reward = LiveStoreReward(rollout, ShopR1Reward)
    good, bad = reward(["p", "p"], [truth, click("no_such_thing")], session=[9, 9], step=[2, 2])
    assert good > 1.0 > bad
    assert reward(["p"], [truth], session=[9], step=[2]) == [good], (
        "every score starts from the same state"
    )
    with pytest.raises(KeyError, match="no rollout state"):
        reward(["p"], [truth], session=[1], step=[1])
