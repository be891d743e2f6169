"""``rewardgym/ShopStore-v0``: the live store reacts to actions, the ground-truth shopper drives it, replay is reproduced."""

from __future__ import annotations

import json
import pickle

import gymnasium as gym
import pytest

import rewardgym  # noqa: F401
from rewardgym.agents.evaluation.fidelity import type_shares
from rewardgym.agents.simulation import ShopperPolicy, SimulationConfig, run_visits
from rewardgym.envs import SHOP_STORE_ID
from rewardgym.envs.contract import check_environment
from rewardgym.envs.shopping.live import ShopStoreEnv
from rewardgym.envs.shopping.parsing import format_output
from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.envs.shopping.synthetic import (
    StoreConfig,
    SyntheticShopperConfig,
    generate_sessions,
    make_session,
    store_variant,
)
from rewardgym.wrappers import ShopR1Reward


def out(action: ShopAction, rationale: str = "I act.") -> str:
    return format_output(rationale, action)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"opening": "first_step", "intent_seed": 11},
        {"store": store_variant("half-results"), "context": "latest"},
    ],
)
def test_contract_with_options(kwargs: dict) -> None:
    check_environment(lambda: gym.make(SHOP_STORE_ID, **kwargs))


def test_ground_truth_shopper_reproduces_the_replay_corpus_byte_for_byte() -> None:
    shopper = SyntheticShopperConfig(seed=2, results_per_page=4)
    env = gym.make(SHOP_STORE_ID, store=shopper.store(), shopper=shopper)
    for index in range(120):
        env.reset(options={"intent": index})
        rewards, done = [], False
        while not done:
            _, reward, terminated, truncated, info = env.step(env.unwrapped.truth_output())
            rewards.append(reward)
            assert info["applied"] and info["exact_match"], info
            done = terminated or truncated
        assert terminated and not truncated
        assert env.unwrapped.visit.session() == make_session(shopper, index)


def test_first_observation_is_a_replay_prompt_plus_the_intent() -> None:
    session = make_session(SyntheticShopperConfig(), 7)
    home = ShopStoreEnv(intent_seed=7)
    obs, info = home.reset()
    assert obs["page"] == session.steps[0].page and obs["history"] == ()
    assert obs["intent"] == session.steps[0].rationale
    assert info["truth"] == session.steps[0].action.truth_dict() and info["intent_index"] == 7
    given = ShopStoreEnv(intent_seed=7, opening="first_step")
    obs, _ = given.reset()
    assert obs["page"] == session.steps[1].page and len(obs["history"]) == 1
    assert session.steps[0].rationale in obs["context"]


def test_actions_change_the_page_and_misses_leave_it() -> None:
    env = ShopStoreEnv(intent_seed=3)
    obs, _ = env.reset()
    obs, reward, terminated, _, info = env.step(out(ShopAction("click", "add_to_cart")))
    assert not info["applied"] and "no element named 'add_to_cart'" in info["note"]
    assert info["page_type"] == "home" and reward == 0.0 and not terminated
    obs, _, _, _, info = env.step("I would rather not say.")
    assert info["effect"] == "unparsed" and "unchanged" in info["note"] and not info["applied"]
    obs, _, _, _, info = env.step(out(ShopAction("type_and_submit", "search_input", "yoga mat")))
    assert info["applied"] and info["effect"] == "search" and info["page_type"] == "search_results"
    assert "yoga mat" in obs["page"] and obs["history"][-1]["text"] == "yoga mat"
    obs, _, _, _, info = env.step(out(ShopAction("click", "product_1_title")))
    assert info["page_type"] == "product" and info["effect"] == "listing"
    obs, _, _, _, info = env.step(out(ShopAction("click", "buy_now")))
    assert info["page_type"] == "checkout" and info["cart_size"] == 1
    obs, _, _, _, info = env.step(out(ShopAction("click", "place_order")))
    assert info["order_total"] > 0 and info["page_type"] == "confirmation"
    _, _, terminated, truncated, info = env.step(out(ShopAction("terminate")))
    assert terminated and not truncated
    with pytest.raises(gym.error.ResetNeeded):
        env.step(out(ShopAction("terminate")))
    steps = env.visit.session().steps
    assert [s.action.type for s in steps].count("terminate") == 1 and len(steps) == 6


def test_a_policy_that_never_stops_is_truncated() -> None:
    env = ShopStoreEnv(intent_seed=0, shopper=SyntheticShopperConfig(max_steps=6))
    env.reset()
    flags = [env.step(out(ShopAction("click", "nav_home")))[2:4] for _ in range(6)]
    assert flags[-1] == (False, True) and all(f == (False, False) for f in flags[:-1])


def test_intent_sequence_and_options() -> None:
    env = ShopStoreEnv(intent_seed=40)
    assert [env.reset()[1]["intent_index"] for _ in range(3)] == [40, 41, 42]
    assert env.reset(seed=9)[1]["intent_index"] == 40
    assert env.reset(options={"intent": 5})[1]["intent_index"] == 5
    with pytest.raises(ValueError, match="intent"):
        env.reset(options={"intent": -1})
    free = ShopStoreEnv()
    assert free.reset(seed=1)[1]["intent_index"] == free.reset(seed=1)[1]["intent_index"]
    with pytest.raises(ValueError, match="opening"):
        ShopStoreEnv(opening="middle")  # type: ignore[arg-type]


def test_a_pickled_visit_continues_identically() -> None:
    env = ShopStoreEnv(intent_seed=12)
    env.reset()
    for _ in range(3):
        env.step(env.truth_output())
    clone = pickle.loads(pickle.dumps(env))
    while True:
        a = env.step(env.truth_output())
        b = clone.step(clone.truth_output())
        assert a[0] == b[0] and a[1:4] == b[1:4]
        if a[2] or a[3]:
            break


def test_shop_r1_reward_scores_against_the_shoppers_choice() -> None:
    env = ShopR1Reward(gym.make(SHOP_STORE_ID, intent_seed=1))
    env.reset()
    truth = env.unwrapped.truth_output()
    _, reward, _, _, info = env.step(truth)
    assert info["exact_match"] and reward == info["reward_terms"]["total"] > 1.0
    _, reward, _, _, info = env.step(
        json.dumps({"rationale": "x", "action": {"type": "terminate"}})
    )
    assert reward == info["reward_terms"]["total"]


def test_ground_truth_shoppers_reproduce_the_replay_action_type_mix() -> None:
    """The issue's acceptance, measured small: other shopper seeds on held-out intents, within 1 point per type."""
    corpus = list(generate_sessions(SyntheticShopperConfig(sessions=1500, seed=0)))
    config = SimulationConfig(visits=1500, opening="home")
    visits = run_visits(ShopperPolicy(seed=3), StoreConfig(), config)
    assert all(v.unparsed == v.not_applied == 0 and not v.truncated for v in visits)
    live, replay = type_shares([v.session for v in visits]), type_shares(corpus)
    for kind in replay:
        assert abs(live[kind] - replay[kind]) < 0.01, (kind, live, replay)
