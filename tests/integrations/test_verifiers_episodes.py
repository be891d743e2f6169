"""The multi-turn tasksets load by id through verifiers, and their episodes score what the gym env gives for the same replies."""

from __future__ import annotations

from typing import Any

import pytest
from verifiers.v1.utils.loaders import (
    environment_class,
    load_taskset,
    taskset_class,
    taskset_config_type,
)

from rewardgym.envs import SHOP_STORE_ID
from rewardgym.integrations.text_env import action_names, make_text_env
from rewardgym.integrations.verifiers_household import (
    NOT_AN_ACTION,
    HouseholdEnv,
    HouseholdTaskset,
    VirtualHomeTaskset,
    start_episode,
)
from rewardgym.integrations.verifiers_store import StoreEnv, StoreTaskset, start_visit

GARBAGE = "I am not sure what to do here."


def tasks(taskset_id: str, **config: Any) -> list[Any]:
    """The taskset's tasks, its config and taskset made by verifiers' own loaders from the id."""
    raw = {"id": taskset_id, **config}
    return list(load_taskset(taskset_config_type(taskset_id).model_validate(raw)))


@pytest.fixture(scope="module")
def visits() -> list[Any]:
    return tasks("rewardgym-store", visits=3)


def test_verifiers_finds_the_episode_tasksets_and_their_envs_by_id() -> None:
    assert taskset_class("rewardgym-store") is StoreTaskset
    assert environment_class("rewardgym-store") is StoreEnv
    assert taskset_class("rewardgym-virtualhome") is VirtualHomeTaskset
    assert environment_class("rewardgym-virtualhome") is HouseholdEnv
    assert taskset_class("rewardgym-household") is HouseholdTaskset


def test_the_shoppers_own_choices_score_full_marks_after_an_inexecutable_turn(
    visits: list[Any],
) -> None:
    ordered = set()
    for intent, task in enumerate(visits):
        info = task.data.info
        assert task.data.prompt.startswith("# Session so far") and info["intent"] == intent
        episode = start_visit(info)
        local = make_text_env(SHOP_STORE_ID, **info["env_kwargs"])
        local.reset(options={"intent": info["intent"]})
        truth = episode.env.get_wrapper_attr("truth_output")
        replies, rewards, applied, total, ended = [GARBAGE], [], [], 0.0, False
        feedback = episode.step(GARBAGE)
        assert feedback.startswith("Nothing happened: no action could be read")
        while not episode.over:
            replies.append(truth())
            episode.step(replies[-1])
        for reply in replies:  # the same replies, stepped here
            _, reward, terminated, truncated, step_info = local.step(reply)
            rewards.append(float(reward))
            applied.append(step_info["applied"])
            total += step_info["order_total"]
            ended = terminated or truncated
        assert episode.over and ended and episode.turns == len(replies)
        # The shopper's own visit after one wasted turn: every step but that one matches, and
        # it ends where the shopper's does.
        assert rewards == [0.0] + [1.0] * info["shopper"]["steps"]
        assert episode.rewards() == {"match": sum(rewards) / len(rewards), "purchase": 1.0}
        assert episode.ending == info["shopper"]["ending"]
        metrics = episode.metrics()
        assert metrics["inexecutable"] == applied.count(False) == 1
        assert metrics["ordered"] == float(total > 0) and metrics["order_total"] == round(total, 2)
        ordered.add(info["shopper"]["ordered"])
    assert ordered == {True, False}


def test_a_visit_cut_off_by_max_turns_earns_no_purchase(visits: list[Any]) -> None:
    episode = start_visit({**visits[0].data.info, "max_turns": 2})
    feedback = episode.step('{"rationale": "I look.", "action": {"type": "click", "name": "nope"}}')
    assert "Nothing happened" in feedback and not episode.over
    episode.step(GARBAGE)
    assert episode.over and episode.metrics()["ended"] == 0.0
    assert episode.metrics()["inexecutable"] == 2.0
    assert episode.rewards() == {"match": 0.0, "purchase": 0.0}


def test_ending_a_visit_at_once_earns_no_purchase_where_the_shopper_looked_further() -> None:
    terminate = '{"rationale": "I am done.", "action": {"type": "terminate"}}'
    paid, shoppers_paid, walked_away = [], [], 0
    for task in tasks("rewardgym-store", visits=20):
        info = task.data.info
        walked_away += not info["shopper"]["ordered"]
        episode = start_visit(info)
        episode.step(terminate)
        assert episode.over and episode.metrics()["ended"] == 1.0
        paid.append(episode.rewards()["purchase"])
        shopper = start_visit(info)
        while not shopper.over:
            shopper.step(shopper.env.get_wrapper_attr("truth_output")())
        shoppers_paid.append(shopper.rewards()["purchase"])
    # Under "paid whenever neither ordered" ending at once earned walked_away / 20 (0.45).
    assert walked_away == 9
    assert sum(paid) == 0.0 and sum(shoppers_paid) == 20.0


@pytest.mark.parametrize(
    ("taskset_id", "config"),
    [("rewardgym-household", {}), ("rewardgym-virtualhome", {"split": "test"})],
)
def test_the_expert_after_an_unparsable_reply_scores_as_the_env_does(
    taskset_id: str, config: dict[str, Any]
) -> None:
    [task] = tasks(taskset_id, episodes=1, **config)
    info = task.data.info
    local = make_text_env(info["env_id"], **info["env_kwargs"])
    local.reset(seed=info["seed"])
    names = action_names(local)
    expert = local.get_wrapper_attr("expert_script")()
    episode = start_episode(info)
    assert episode.step("fly to the moon") == NOT_AN_ACTION
    executable, success, cgc = [], 0.0, 0.0
    for action in expert:
        feedback = episode.step(f"I do this.\n{names[action].upper()}.")
        obs, reward, terminated, truncated, step_info = local.step(action)
        assert feedback == obs["text"]
        executable.append(step_info["executable"])
        success, cgc = float(reward), float(step_info["cgc"])
        if terminated or truncated:
            break
    assert episode.over and success == 1.0
    assert episode.rewards() == {"success": success}
    assert episode.metrics() == {
        "cgc": cgc,
        "steps": 1.0 + len(executable),
        "inexecutable": 1.0 + executable.count(False),
    }
