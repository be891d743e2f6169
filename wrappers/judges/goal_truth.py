"""The env's own goal check as a judge's correct answers, read from a data set's simulator.

:class:`GoalTruth` answers the three questions COREN asks a judge the way the simulator
would, for the observations of one logged data set (Household-v1 or VirtualHome-v0):

- **rating** of an action at an observation: the perfect judge's rubric score
  (``rewardgym.wrappers.perfect_judge.perfect_judge_rating``) of that action taken in the
  simulator state the observation came from, so the logged action gets exactly the perfect
  judge's label and any other action the rating it would have had (a copy of the state takes
  it; the episode itself is not changed);
- **goal objects in view**: the visible objects among the env's ``goal_objects()`` for the
  instruction (the reference answer of the structural QA bank, ``grounding.reference_answer``);
- **plan reaches the goal**: whether executing the named actions, in order, meets every goal
  condition from the first state of the plan's own episode. COREN's plan is made step by step
  along one logged episode (a prompt's top-rated action at each of its observations), so that
  episode is the one under the instruction whose logged actions the plan repeats at the most
  steps (among those of the plan's length; the first on a tie): on Household-v1, where the
  episodes of one instruction differ in hidden placements, another episode's start would
  judge the plan against the wrong house.

Observations are known by what a judge sees of them (the ``Transition`` without its action,
as ``wrappers.coren.grounding.episode_transitions`` builds it). Two steps that look the same
to a judge but differ in hidden state (an unseen placement) share the first one's state; the
logged actions whose rating differs between such twins are counted in ``conflicts``.
Ratings are computed on demand, one replay per episode for each batch that asks, and kept.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import gymnasium as gym
import numpy as np

from rewardgym.envs import VIRTUALHOME_ID
from rewardgym.envs.conventions import EpisodeGate
from rewardgym.envs.household.v1.task_progress import ProgressTracker, StepFacts
from rewardgym.wrappers.judges.base import Transition

if TYPE_CHECKING:
    from rewardgym.envs.trajectories.dataset import TrajectoryDataset
    from rewardgym.envs.trajectories.episode import Episode


def branch_env(env: Any) -> Any:
    """A copy of ``env`` that can step on without changing ``env``: its per-episode state copied.

    Lists, sets, arrays, dicts (and their values), the episode gate and the household ``World``
    are copied; the rest is shared: spaces, generators, frozen task and program
    records, and VirtualHome's simulator state, which the simulator never changes in place
    (``rewardgym.envs.virtualhome.simulator``).
    """
    twin = copy.copy(env)
    for name, value in vars(env).items():
        if isinstance(value, list | set | np.ndarray):
            setattr(twin, name, value.copy())
        elif isinstance(value, dict):  # one level down too: VirtualHome's verb -> ids sets
            setattr(twin, name, {k: copy.copy(v) for k, v in value.items()})
        elif isinstance(value, EpisodeGate):
            setattr(twin, name, copy.copy(value))
        elif type(value).__name__ == "World" and callable(getattr(value, "copy", None)):
            setattr(twin, name, value.copy())
    return twin


class Tracker(Protocol):
    """Follows one episode and says what each step did (``StepFacts``)."""

    def step(self, action: int) -> StepFacts:
        """Take ``action`` and return its facts."""

    def branch(self) -> Tracker:
        """A copy at the current state that steps on alone."""


class HouseholdTracker:
    """Household-v1's ``ProgressTracker`` with a ``branch``."""

    def __init__(self, tracker: ProgressTracker) -> None:
        """Wrap ``tracker``."""
        self.tracker = tracker

    def step(self, action: int) -> StepFacts:
        """``ProgressTracker.step``."""
        return self.tracker.step(action)

    def branch(self) -> HouseholdTracker:
        """A tracker on a copy of the env, with its own record of executed actions."""
        twin = copy.copy(self.tracker)
        twin.env = branch_env(self.tracker.env)
        twin.executed = set(self.tracker.executed)
        return HouseholdTracker(twin)


class VirtualHomeTracker:
    """VirtualHome-v0's step facts as ``envs.virtualhome.progress.episode_step_facts`` states them.

    Distance is the number of goal conditions not met; the objects a step needs are the goal's
    and those the human's program acts on.
    """

    def __init__(self, env: Any, flags: Sequence[bool]) -> None:
        """Start from ``env`` right after ``reset`` (``flags``: the reset's goal flags)."""
        from rewardgym.envs.virtualhome.progress import SEARCH_VERBS

        self.env = env
        self.search_verbs = SEARCH_VERBS
        self.needed = set(env.goal_objects()) | {
            c for i in env.expert_script() for c in env.actions[i].classes
        }
        self.distance = len(flags) - sum(flags)
        self.best = self.distance
        self.done: set[int] = set()

    def step(self, action: int) -> StepFacts:
        """Take ``action`` and return its facts."""
        chosen = self.env.actions[action]
        _, _, _, _, info = self.env.step(action)
        after = len(info["goal_flags"]) - sum(info["goal_flags"])
        executable = bool(info["executable"])
        facts = StepFacts(
            executable=executable,
            on_plan=False,
            distance_before=self.distance,
            distance_after=after,
            goal_gain=self.distance - after,
            irreversible=False,
            dead_end=False,
            touches_goal=bool(self.needed.intersection(chosen.classes)),
            searching=chosen.verb in self.search_verbs,
            best_before=self.best,
            repeated=executable and action in self.done,
        )
        if executable:
            self.done.add(action)
        self.distance, self.best = after, min(self.best, after)
        return facts

    def branch(self) -> VirtualHomeTracker:
        """A tracker on a copy of the env."""
        twin = copy.copy(self)
        twin.env = branch_env(self.env)
        twin.done = set(self.done)
        return twin


def state_key(t: Transition) -> tuple[Any, ...]:
    """What a judge sees of an observation: every field of ``t`` but its action."""
    return (
        t.instruction, t.observation, t.visible, t.held, t.reachable, t.completed, t.room,
        t.near, t.sitting, t.opened, t.closed, t.running, t.objects, t.facts,
    )  # fmt: skip


def dataset_fingerprint(data: TrajectoryDataset) -> str:
    """A digest of what the truth depends on: the env, its settings, each episode's start and actions."""
    digest = hashlib.sha256(repr((data.env_id, sorted(data.env_kwargs.items()))).encode())
    for episode in data:
        digest.update(repr((episode.seed, episode.extras.get("reset_options"))).encode())
        digest.update(np.asarray(episode.actions, dtype=np.int64).tobytes())
    return digest.hexdigest()[:16]


class GoalTruth:
    """The simulator's answers for the observations of one data set (see the module docstring)."""

    def __init__(self, data: TrajectoryDataset) -> None:
        """Replay every episode of ``data`` once: its observations and the logged actions' ratings."""
        from rewardgym.wrappers.coren.grounding import episode_transitions
        from rewardgym.wrappers.perfect_judge import perfect_judge_rating

        self.rate = perfect_judge_rating
        self.env_id = data.env_id
        self.env_kwargs = dict(data.env_kwargs)
        self.fingerprint = dataset_fingerprint(data)
        self.action_names: tuple[str, ...] = tuple(data.action_names)
        self.action_ids = {name: i for i, name in enumerate(self.action_names)}
        self.episodes: list[Episode] = list(data)
        self.states: dict[tuple[Any, ...], int] = {}
        self.where: list[tuple[int, int]] = []
        self.ratings: dict[tuple[int, int], int] = {}
        self.goals: dict[str, set[str]] = {}
        self.starts: dict[str, list[int]] = {}
        self.conflicts = 0
        self.step_states: list[list[int]] = []
        self._envs: dict[str, Any] = {}
        self._plans: dict[tuple[str, tuple[str, ...]], bool] = {}
        for e, episode in enumerate(self.episodes):
            steps = episode_transitions(episode, self.action_names, self.env_id)
            tracker, env = self._start(episode)
            self.goals.setdefault(episode.instruction, set()).update(env.goal_objects())
            self.starts.setdefault(episode.instruction, []).append(e)
            self.step_states.append([])
            for t, (step, action) in enumerate(zip(steps, episode.actions.tolist(), strict=True)):
                state = self.states.setdefault(state_key(step), len(self.where))
                if state == len(self.where):
                    self.where.append((e, t))
                self.step_states[e].append(state)
                rating = self.rate(tracker.step(int(action)))
                known = self.ratings.setdefault((state, int(action)), rating)
                self.conflicts += known != rating

    def _fresh_env(self, episode: Episode) -> Any:
        """An env made with the data set's settings (Household-v1: in the episode's layout)."""
        kwargs = dict(self.env_kwargs)
        if self.env_id != VIRTUALHOME_ID:
            kwargs["layout"] = episode.layout or kwargs.get("layout", "default")
        return gym.make(self.env_id, **kwargs).unwrapped

    def _start(self, episode: Episode) -> tuple[Tracker, Any]:
        """A tracker at the episode's first state (one env per env kind and layout, reused)."""
        key = episode.layout or "default"
        if key not in self._envs:
            self._envs[key] = self._fresh_env(episode)
        env = self._envs[key]
        options = episode.extras.get("reset_options")
        if options is None:
            raise ValueError(
                f"episode {episode.episode_id} has no extras['reset_options'], so its first "
                "state cannot be rebuilt; collect the data again with rewardgym.envs.trajectories"
            )
        if self.env_id == VIRTUALHOME_ID:
            _, info = env.reset(options=options)
            return VirtualHomeTracker(env, info["goal_flags"]), env
        env.reset(seed=episode.seed, options=options)
        return HouseholdTracker(ProgressTracker(env)), env

    def state(self, transition: Transition) -> int | None:
        """The id of the observation ``transition`` was made at (its action ignored), if known."""
        return self.states.get(state_key(transition))

    def ratings_for(self, pairs: Iterable[tuple[int, int]]) -> list[int]:
        """The rating of each (state id, action id), computed by one replay per episode needed."""
        pairs = list(pairs)
        missing: dict[int, dict[int, set[int]]] = {}
        for state, action in pairs:
            if (state, action) not in self.ratings:
                e, t = self.where[state]
                missing.setdefault(e, {}).setdefault(t, set()).add(action)
        for e, wanted in missing.items():
            episode = self.episodes[e]
            tracker, _ = self._start(episode)
            logged = episode.actions.tolist()
            for t in range(max(wanted) + 1):
                for action in sorted(wanted.get(t, ())):
                    state = self.step_states[e][t]
                    self.ratings[(state, action)] = self.rate(tracker.branch().step(action))
                tracker.step(int(logged[t]))
        return [self.ratings[p] for p in pairs]

    def goal_objects(self, instruction: str) -> set[str] | None:
        """The objects the goal of ``instruction`` names (the union over its tasks), if known.

        Instructions of the data come with their episodes; any other (the structural QA bank
        draws its own episodes) is looked up among the env's tasks or programs once.
        """
        if instruction not in self.goals:
            found = self._env_goal_objects(instruction)
            if found is None:
                return None
            self.goals[instruction] = found
        return self.goals[instruction]

    def _env_goal_objects(self, instruction: str) -> set[str] | None:
        """The goal objects of every task or program of the env that gives ``instruction``."""
        found: set[str] = set()
        matched = False
        if self.env_id == VIRTUALHOME_ID:
            from rewardgym.envs.virtualhome.programs import all_programs

            env: Any = gym.make(self.env_id, **{**self.env_kwargs, "split": "all"}).unwrapped
            fine = env.instruction_kind == "fine"
            for pid in env.programs:
                program = all_programs()[pid]
                if (program.description if fine else program.task.name) == instruction:
                    env.reset(options={"program": pid})
                    found.update(env.goal_objects())
                    matched = True
            return found if matched else None
        from rewardgym.envs.household.v1 import HouseholdV1Env
        from rewardgym.envs.household.v1.instructions import instructions_for
        from rewardgym.envs.household.v1.tasks import TASKS

        env = HouseholdV1Env()
        for task in TASKS:
            texts = {
                i.text
                for split in ("train", "fine", "abstract")
                for i in instructions_for(task.id, split)
            }
            if instruction in texts:
                env.reset(seed=0, options={"task": task.id})
                found.update(env.goal_objects())
                matched = True
        return found if matched else None

    def objects_in_view(self, instruction: str, visible: Sequence[str]) -> tuple[str, ...] | None:
        """The visible objects the goal of ``instruction`` names, sorted (``None``: unknown goal)."""
        goal = self.goal_objects(instruction)
        if goal is None:
            return None
        return tuple(sorted({o for o in visible if o in goal}))

    def plan_episode(self, instruction: str, plan: Sequence[int]) -> int | None:
        """The logged episode ``plan`` was made along (see the module docstring), if any."""
        episodes = self.starts.get(instruction, [])
        same = [e for e in episodes if len(self.episodes[e]) == len(plan)] or episodes
        if not same:
            return None
        wanted = np.asarray(plan, dtype=np.int64)

        def matches(e: int) -> int:
            logged = np.asarray(self.episodes[e].actions, dtype=np.int64)
            n = min(len(logged), len(wanted))
            return int((logged[:n] == wanted[:n]).sum())

        return max(same, key=matches)  # max keeps the first of equals

    def reaches_goal(self, instruction: str, actions: Sequence[str]) -> bool | None:
        """Whether ``actions`` in order meet the goal from the first state of their own episode."""
        if any(a not in self.action_ids for a in actions):
            return None
        key = (instruction, tuple(actions))
        if key not in self._plans:
            plan = [self.action_ids[a] for a in actions]
            episode = self.plan_episode(instruction, plan)
            if episode is None:
                return None
            _, env = self._start(self.episodes[episode])
            reached = False
            for action in plan:
                _, _, terminated, truncated, info = env.step(action)
                reached = bool(info.get("success", False))
                if terminated or truncated:
                    break
            self._plans[key] = reached
        return self._plans[key]


__all__ = [
    "GoalTruth",
    "HouseholdTracker",
    "Tracker",
    "VirtualHomeTracker",
    "branch_env",
    "dataset_fingerprint",
    "state_key",
]
