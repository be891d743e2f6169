"""What judges see of a logged data set, and the simulator's reference structural answers.

``episode_transitions`` turns one logged episode into the ``Transition`` of every step;
``reference_answers`` gives, per step, the ground-truth answer to "which visible objects are
relevant to the task?". For ``rewardgym/Household-v0`` the answer is the visible objects named
by the task's goal predicates; for the BabyAI text levels it is the visible objects whose
colour and type the mission names. Other environments use the observation text only and
need a user QA file for the structural consistency (see ``rewardgym.wrappers.coren.qa``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Any

import numpy as np

from rewardgym.envs.trajectories.episode import Episode

HOUSEHOLD_PREFIX = "rewardgym/Household"
BABYAI_PREFIX = "rewardgym/BabyAI"
_READ_FIELDS = frozenset({"text", "visible", "held", "room"})
_BABYAI_ITEM = re.compile(r"^an? (?:(open|closed|locked) )?(\w+) (\w+)")


def format_answer(objects: Sequence[str]) -> str:
    """The canonical text of an object-list answer: sorted, comma-separated, or ``none``."""
    return ", ".join(sorted(set(objects))) or "none"


@lru_cache(maxsize=1)
def _household_names() -> tuple[tuple[str, ...], tuple[str, ...]]:
    from rewardgym.envs.household.world import OBJECT_NAMES, ROOMS

    return OBJECT_NAMES, ROOMS


def _babyai_visible(text: str) -> tuple[str, ...]:
    match = re.search(r"You see: (.*)\.\n", text)
    if not match:
        return ()
    items = []
    for part in match.group(1).split("; "):
        found = _BABYAI_ITEM.match(part)
        if found and found.group(3) != "steps":
            items.append(f"{found.group(2)} {found.group(3)}")
    return tuple(dict.fromkeys(items))


def _babyai_held(text: str) -> str:
    match = re.search(r"You are carrying an? (\w+ \w+)", text)
    return match.group(1) if match else ""


def step_transition(
    observation: dict[str, Any],
    instruction: str,
    action: str,
    completed: Sequence[str],
    env_id: str,
) -> Any:
    """The ``Transition`` a judge sees for one observation (a dict of the env's fields)."""
    from rewardgym.wrappers.judges.base import Transition

    text = str(observation.get("text", ""))
    visible: tuple[str, ...] = ()
    held = ""
    reachable_rooms: tuple[str, ...] = ()
    if env_id.startswith(HOUSEHOLD_PREFIX) and "visible" in observation:
        objects, rooms = _household_names()
        visible = tuple(objects[i] for i in np.flatnonzero(observation["visible"]).tolist())
        held_ids = np.flatnonzero(observation["held"]).tolist()
        held = objects[held_ids[0]] if held_ids else ""
        room = int(observation["room"])
        reachable_rooms = tuple(r for i, r in enumerate(rooms) if i != room)
    elif env_id.startswith(BABYAI_PREFIX):
        visible, held = _babyai_visible(text), _babyai_held(text)
    return Transition(
        instruction=instruction,
        observation=text,
        action=action,
        visible=visible,
        held=held,
        reachable=reachable_rooms,
        completed=tuple(completed),
    )


def episode_transitions(episode: Episode, action_names: Sequence[str], env_id: str) -> list[Any]:
    """The ``Transition`` a judge sees at every step of ``episode``."""
    if env_id.startswith(HOUSEHOLD_PREFIX) and "visible" in episode.observations:
        return _household_transitions(episode, action_names)
    done: list[str] = []
    out = []
    columns = {k: v for k, v in episode.observations.items() if k in _READ_FIELDS}
    for t, action_id in enumerate(episode.actions.tolist()):
        action = action_names[action_id]
        obs = {key: column[t] for key, column in columns.items()}
        out.append(step_transition(obs, episode.instruction, action, done, env_id))
        if bool(episode.executable[t]):
            done.append(action)
    return out


def _household_transitions(episode: Episode, action_names: Sequence[str]) -> list[Any]:
    """``episode_transitions`` of a Household episode, reading each observation column at once."""
    from rewardgym.wrappers.judges.base import Transition

    objects, rooms = _household_names()
    columns = episode.observations
    actions = [action_names[a] for a in episode.actions.tolist()]
    texts = [str(x) for x in columns["text"]] if "text" in columns else [""] * len(actions)
    visible = _names_by_row(np.asarray(columns["visible"]), objects)
    held = [names[0] if names else "" for names in _names_by_row(columns["held"], objects)]
    reachable = [_other_rooms(rooms, room) for room in np.asarray(columns["room"]).tolist()]
    done: list[str] = []
    out = []
    for t, executable in enumerate(episode.executable.tolist()):
        out.append(
            Transition(
                episode.instruction,
                texts[t],
                actions[t],
                visible[t],
                held[t],
                reachable[t],
                tuple(done),
            )
        )
        if executable:
            done.append(actions[t])
    return out


def _names_by_row(mask: np.ndarray, names: Sequence[str]) -> list[tuple[str, ...]]:
    """The names of the non-zero columns of every row of a ``(T, K)`` mask, in column order."""
    mask = np.asarray(mask)
    rows, cols = np.nonzero(mask)
    ends = np.cumsum(np.bincount(rows, minlength=len(mask))).tolist()
    picked = [names[c] for c in cols.tolist()]
    return [tuple(picked[a:b]) for a, b in zip([0, *ends][:-1], ends, strict=True)]


@lru_cache(maxsize=64)
def _other_rooms(rooms: tuple[str, ...], room: int) -> tuple[str, ...]:
    """Every room but ``room``: where an agent in ``room`` may still go."""
    return tuple(r for i, r in enumerate(rooms) if i != room)


def reference_answer(
    env_id: str, task_id: int, instruction: str, visible: Sequence[str]
) -> str | None:
    """The simulator's answer to the structural question for one observation, or ``None``."""
    if env_id.startswith(HOUSEHOLD_PREFIX) and task_id >= 0:
        return format_answer([o for o in visible if o in _household_relevant(task_id)])
    if env_id.startswith(BABYAI_PREFIX):
        mission = instruction.lower()
        return format_answer([o for o in visible if all(w in mission for w in o.split())])
    return None


@cache
def _household_relevant(task_id: int) -> frozenset[str]:
    from rewardgym.envs.household.tasks import TASKS

    objects, _ = _household_names()
    goal = TASKS[task_id].goal
    return frozenset(
        {objects[p.obj] for p in goal} | {objects[p.target] for p in goal if p.target >= 0}
    )


def observation_items(transition: Any) -> tuple[str, ...]:
    """The short strings that stand for an observation in the orchestrator's input."""
    items = [*transition.visible]
    if transition.held:
        items.append(f"holding {transition.held}")
    if not items and transition.observation:
        # Unknown environments: the lines of the text, minus the instruction line.
        items = [line for line in transition.observation.splitlines()[1:] if line.strip()]
    return tuple(items) or ("nothing",)


__all__ = [
    "BABYAI_PREFIX",
    "HOUSEHOLD_PREFIX",
    "episode_transitions",
    "format_answer",
    "observation_items",
    "reference_answer",
    "step_transition",
]
