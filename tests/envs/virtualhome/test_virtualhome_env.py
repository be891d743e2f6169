"""``rewardgym/VirtualHome-v0``: programs, splits, the goal check, the resolver and the env's promises."""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import rewardgym  # noqa: F401  (registers the envs)
from rewardgym.envs import VIRTUALHOME_ID
from rewardgym.envs.virtualhome import simulator
from rewardgym.envs.virtualhome.actions import (
    CAN_STAND_UP,
    COREN_VERBS,
    action_table,
    usable_programs,
)
from rewardgym.envs.virtualhome.programs import all_programs, split_programs, task_names
from rewardgym.envs.virtualhome.resolver import SceneIndex, resolve_and_execute
from rewardgym.errors import SimulatorPackageMissing

SAMPLE = ("27_2", "223_2", "417_1", "826_1", "1003_2")
"""Programs over four categories, with edge goals, ordered action goals and repeated classes."""


@pytest.fixture(scope="module")
def env() -> gym.Env:
    return gym.make(VIRTUALHOME_ID, split="all").unwrapped


def _replay(env: gym.Env, program: str) -> dict:
    _, info = env.reset(options={"program": program})
    for action in env.expert_script():
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    return info


def test_importing_and_making_keep_the_users_random_state_and_the_import_is_lazy() -> None:
    code = (
        "import random, sys\n"
        "random.seed(5); before = random.getstate()\n"
        "import rewardgym, gymnasium as gym\n"
        "assert 'virtualhome_eval' not in sys.modules, 'import rewardgym imported the simulator'\n"
        "assert random.getstate() == before\n"
        "env = gym.make('rewardgym/VirtualHome-v0'); env.reset(seed=0)\n"
        "assert 'virtualhome_eval' in sys.modules\n"
        "assert random.getstate() == before, 'the simulator reseeded random'\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr


def test_a_missing_package_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    simulator.simulator.cache_clear()
    monkeypatch.setitem(sys.modules, "virtualhome_eval", None)
    try:
        with pytest.raises(
            SimulatorPackageMissing, match=r"pip install --no-deps virtualhome_eval==0\.1\.1"
        ):
            simulator.simulator()
    finally:
        monkeypatch.undo()
        simulator.simulator.cache_clear()


def test_programs_and_splits_are_disjoint_complete_stable_and_per_category() -> None:
    programs = all_programs()
    assert len(programs) == 337 and len(task_names()) == 26
    parts = {s: set(split_programs(s)) for s in ("train", "validation", "test")}
    assert sum(len(p) for p in parts.values()) == 337
    assert set().union(*parts.values()) == set(programs)
    split_programs.cache_clear()
    assert set(split_programs("test")) == parts["test"]
    assert set(split_programs("test", seed=1)) != parts["test"]
    for task in range(26):
        members = [p for p, prog in programs.items() if prog.task.id == task]
        if len(members) >= 3:
            assert all(parts[s] & set(members) for s in parts), task_names()[task]


def test_expert_scripts_replay_to_success(env: gym.Env) -> None:
    for program in SAMPLE:
        info = _replay(env, program)
        assert info["success"] and info["cgc"] == 1.0 and info["cgc_open"] == 1.0, program


def test_reset_reports_the_goal_and_cgc_over_open_conditions(env: gym.Env) -> None:
    obs, info = env.reset(options={"program": "27_2"})
    assert info["goal"][3] == "clothes_jacket.1003 ON washing_machine.1001"
    assert info["goal_flags"] == (True, False, True, False, False)  # closed, plugged in
    assert (info["cgc"], info["cgc_open"], info["success"]) == (0.4, 0.0, False)
    assert obs["text"].startswith("Instruction: Walk to the kitchen and find the basket")
    assert info["instruction"] == all_programs()["27_2"].description


def test_a_refused_action_changes_nothing_and_says_why(env: gym.Env) -> None:
    before, _ = env.reset(options={"program": "27_2"})
    grab = env.action_names.index("[GRAB] <soap>")
    obs, reward, terminated, truncated, info = env.step(grab)
    assert not info["executable"] and "not close to" in info["reason"], info["reason"]
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert obs["last_result"] == 1 and obs["last_action"] == grab + 1
    for key in ("visible", "close", "held", "completed"):
        assert np.array_equal(obs[key], before[key]), key
    assert "(not done: " in obs["text"]


def test_the_resolver_refuses_a_class_the_house_lacks(env: gym.Env) -> None:
    env.reset(options={"program": "27_2"})
    state, reason, ids = resolve_and_execute(env.state, env.scene, "WALK", ["salmon"])
    assert (state, ids) == (None, ()) and reason == "there is no <salmon> in this house"
    assert isinstance(env.scene, SceneIndex) and env.scene.rooms


def test_instruction_kinds_options_and_the_coren_action_set() -> None:
    abstract = gym.make(VIRTUALHOME_ID, instruction="abstract").unwrapped
    _, info = abstract.reset(seed=3)
    assert info["instruction"] == info["task_name"] in task_names()
    with pytest.raises(ValueError, match="not a program of this env"):
        abstract.reset(options={"program": split_programs("test")[0]})
    coren = gym.make(VIRTUALHOME_ID, split="all", action_set="coren").unwrapped
    assert {a.verb for a in action_table("coren")} == set(CAN_STAND_UP)
    assert len(coren.programs) == len(usable_programs(all_programs(), "coren")) == 189
    info = _replay(coren, "27_2")
    assert info["success"]
    assert all(not n.startswith(("[WALK]", "[TURNTO]")) for n in coren.action_names)


def test_judges_read_the_goal_objects_and_the_names_behind_the_fields(env: gym.Env) -> None:
    from rewardgym.wrappers.coren.grounding import reference_answer, scene_names

    obs, _ = env.reset(options={"program": "27_2"})
    assert env.goal_objects() == ("washing_machine", "clothes_jacket", "soap")
    names = scene_names(env)
    assert names is not None and names.rooms[obs["room"]] == "bathroom"
    assert "washing_machine" in names.openable
    visible = [names.objects[i] for i in np.flatnonzero(obs["visible"])]
    assert reference_answer(env.goal_objects(), visible) == "none"  # the agent starts elsewhere


@pytest.mark.parametrize(
    ("keyword", "value"),
    [("max_steps", 2.5), ("max_steps", 3.0), ("split_seed", 1.5), ("max_steps", True)],
)
def test_a_count_or_seed_that_is_no_whole_number_is_refused(keyword: str, value: object) -> None:
    with pytest.raises(ValueError, match=f"VirtualHomeEnv.{keyword}={value!r}: must be"):
        gym.make(VIRTUALHOME_ID, **{keyword: value})
    assert gym.make(VIRTUALHOME_ID, **{keyword: 2}).unwrapped is not None


def test_the_coren_set_can_stand_up_so_seated_starts_and_sitting_are_no_dead_end() -> None:
    """Issue 47 item 4: 149_1, 180_1 and 180_2 start seated and replay once STANDUP is an action."""
    assert (*COREN_VERBS, "STANDUP") == CAN_STAND_UP
    coren = gym.make(VIRTUALHOME_ID, split="all", action_set="coren").unwrapped
    for program in ("149_1", "180_1", "180_2"):
        assert _replay(coren, program)["success"], program
        assert coren.action_names[coren.expert_script()[0]] == "[STANDUP]", program
    coren.reset(options={"program": "125_2"})
    for name in ("[FIND] <couch>", "[SIT] <couch>", "[STANDUP]", "[FIND] <light>"):
        info = coren.step(coren.action_names.index(name))[4]
        assert info["executable"], (name, info["reason"])
