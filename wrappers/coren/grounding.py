"""What judges see of an observation: the env's documented fact fields, never its display text.

An env that judges can read exposes, on its ``unwrapped`` instance, the names behind its
array fields (Household-v0, Household-v1 and the BabyAI text levels do):

- ``object_names``: the objects indexed by the multi-hot observation fields ``visible``,
  ``held``, ``open`` and ``switched_on`` (each optional) and by ``near`` and ``sitting``
  (object id + 1, 0 for none);
- ``room_names``: the rooms indexed by the ``room`` field (empty if the env has none);
- ``openable_objects``: the objects that open and close (a visible one that is not open is
  closed);
- ``goal_objects()``: the objects the current task is about, the simulator's ground truth
  for the structural QA bank (``reference_answer``).

``step_transition`` reads one observation, ``episode_transitions`` a whole logged episode
(column by column); both give the same ``Transition``. An env without these names is read as
text only, and needs a QA file of its own for the structural consistency.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from rewardgym.envs.trajectories.episode import Episode
from rewardgym.wrappers.judges.base import Transition


@dataclass(frozen=True)
class SceneNames:
    """The names behind an env's fact fields (see the module docstring)."""

    objects: tuple[str, ...]
    rooms: tuple[str, ...] = ()
    openable: frozenset[str] = frozenset()


def scene_names(env: Any) -> SceneNames | None:
    """The fact-field names of a (wrapped) env, or ``None`` if it documents none."""
    base = getattr(env, "unwrapped", env)
    objects = getattr(base, "object_names", None)
    if objects is None:
        return None
    return SceneNames(
        tuple(objects),
        tuple(getattr(base, "room_names", ())),
        frozenset(getattr(base, "openable_objects", ())),
    )


@lru_cache(maxsize=32)
def scene_names_of(env_id: str) -> SceneNames | None:
    """``scene_names`` of a registered env id (made once with its default arguments)."""
    import gymnasium as gym

    import rewardgym  # noqa: F401  (registers the envs)

    if not env_id or env_id not in gym.registry:
        return None
    env = gym.make(env_id)
    try:
        return scene_names(env)
    finally:
        env.close()


def format_answer(objects: Sequence[str]) -> str:
    """The canonical text of an object-list answer: sorted, comma-separated, or ``none``."""
    return ", ".join(sorted(set(objects))) or "none"


def reference_answer(goal_objects: Sequence[str], visible: Sequence[str]) -> str:
    """The simulator's answer to "which visible objects are relevant?": visible goal objects."""
    goal = set(goal_objects)
    return format_answer([o for o in visible if o in goal])


def _names(mask: Any, names: Sequence[str]) -> tuple[str, ...]:
    return tuple(names[i] for i in np.flatnonzero(np.asarray(mask)).tolist())


def _one(index: Any, names: Sequence[str]) -> str:
    value = int(index)
    return names[value - 1] if 0 < value <= len(names) else ""


def step_transition(
    observation: Mapping[str, Any],
    instruction: str,
    action: str,
    completed: Sequence[str],
    env_id: str = "",
    names: SceneNames | None = None,
) -> Transition:
    """The ``Transition`` a judge sees for one observation (a dict of the env's fields).

    ``names`` default to those of the registered ``env_id``; without any, only the text is read.
    """
    names = names if names is not None else scene_names_of(env_id)
    text = str(observation.get("text", ""))
    if names is None or "visible" not in observation:
        return Transition(instruction, text, action, completed=tuple(completed))
    objects = names.objects
    visible = _names(observation["visible"], objects)
    held = _names(observation.get("held", ()), objects)
    opened = _names(observation.get("open", ()), objects)
    room = ""
    reachable: tuple[str, ...] = ()
    if names.rooms and "room" in observation:
        current = int(observation["room"])
        room = names.rooms[current]
        reachable = tuple(r for i, r in enumerate(names.rooms) if i != current)
    return Transition(
        instruction=instruction,
        observation=text,
        action=action,
        visible=visible,
        held=held[0] if held else "",
        reachable=reachable,
        completed=tuple(completed),
        room=room,
        near=_one(observation.get("near", 0), objects),
        sitting=_one(observation.get("sitting", 0), objects),
        opened=opened,
        closed=tuple(o for o in visible if o in names.openable and o not in opened),
        running=_names(observation.get("switched_on", ()), objects),
        objects=objects,
        facts=True,
    )


def episode_transitions(
    episode: Episode, action_names: Sequence[str], env_id: str, names: SceneNames | None = None
) -> list[Transition]:
    """The ``Transition`` a judge sees at every step of ``episode`` (as ``step_transition``)."""
    names = names if names is not None else scene_names_of(env_id)
    columns = episode.observations
    actions = [action_names[a] for a in episode.actions.tolist()]
    done: list[str] = []
    histories: list[tuple[str, ...]] = []
    for action, executable in zip(actions, episode.executable.tolist(), strict=True):
        histories.append(tuple(done))
        if executable:
            done.append(action)
    texts = [str(x) for x in columns["text"]] if "text" in columns else [""] * len(actions)
    if names is None or "visible" not in columns:
        return [
            Transition(episode.instruction, texts[t], actions[t], completed=histories[t])
            for t in range(len(actions))
        ]
    objects = names.objects
    visible = _rows(columns["visible"], objects)
    opened = _rows(columns["open"], objects) if "open" in columns else [()] * len(texts)
    running = (
        _rows(columns["switched_on"], objects) if "switched_on" in columns else [()] * len(texts)
    )
    held = (
        [n[0] if n else "" for n in _rows(columns["held"], objects)]
        if "held" in columns
        else [""] * len(texts)
    )
    near = [_one(v, objects) for v in np.asarray(columns.get("near", [0] * len(texts))).tolist()]
    sitting = [
        _one(v, objects) for v in np.asarray(columns.get("sitting", [0] * len(texts))).tolist()
    ]
    rooms = names.rooms if "room" in columns else ()
    room_ids = np.asarray(columns["room"]).tolist() if rooms else [0] * len(texts)
    out = []
    for t, action in enumerate(actions):
        room = rooms[room_ids[t]] if rooms else ""
        out.append(
            Transition(
                instruction=episode.instruction,
                observation=texts[t],
                action=action,
                visible=visible[t],
                held=held[t],
                reachable=_other_rooms(rooms, room_ids[t]) if rooms else (),
                completed=histories[t],
                room=room,
                near=near[t],
                sitting=sitting[t],
                opened=opened[t],
                closed=_closed(visible[t], opened[t], names.openable),
                running=running[t],
                objects=objects,
                facts=True,
            )
        )
    return out


def _rows(mask: Any, names: Sequence[str]) -> list[tuple[str, ...]]:
    """The names of the non-zero columns of every row of a ``(T, K)`` mask, in column order."""
    mask = np.asarray(mask)
    rows, cols = np.nonzero(mask)
    ends = np.cumsum(np.bincount(rows, minlength=len(mask))).tolist()
    picked = [names[c] for c in cols.tolist()]
    return [tuple(picked[a:b]) for a, b in zip([0, *ends][:-1], ends, strict=True)]


@lru_cache(maxsize=4096)
def _closed(
    visible: tuple[str, ...], opened: tuple[str, ...], openable: frozenset[str]
) -> tuple[str, ...]:
    return tuple(o for o in visible if o in openable and o not in opened)


@lru_cache(maxsize=64)
def _other_rooms(rooms: tuple[str, ...], room: int) -> tuple[str, ...]:
    """Every room but ``room``: where an agent in ``room`` may still go."""
    return tuple(r for i, r in enumerate(rooms) if i != room)


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
    "SceneNames",
    "episode_transitions",
    "format_answer",
    "observation_items",
    "reference_answer",
    "scene_names",
    "scene_names_of",
    "step_transition",
]
