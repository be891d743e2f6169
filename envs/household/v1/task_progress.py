"""What each Household-v1 step did toward the goal, read from the simulator: facts for a perfect judge.

The searcher (``rewardgym.envs.household.v1.planner.search_script``) is replanned from the
current state, knowing what the agent has seen and where it has looked, so its next action is
"the next step of an optimal plan" for an agent that does not know the hidden placements, and
its length is the remaining distance to the goal (the oracle's potential uses the same length).
:class:`ProgressTracker` and :func:`episode_step_facts` record, per step, whether the action
was executed, was that next step, changed the distance (and reached a distance never reached
before in the episode), met or undid goal predicates, was an irreversible action or made the
goal unreachable, touched an object the goal needs, and had been executed before. The rating on COREN's -2..+2 scale is the pure function
``rewardgym.wrappers.perfect_judge.perfect_judge_rating`` (envs never import wrappers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rewardgym.envs.household.v1.actions import ACTIONS, IRREVERSIBLE
from rewardgym.envs.household.v1.env import HouseholdV1Env
from rewardgym.envs.household.v1.planner import search_script
from rewardgym.envs.household.v1.replay import reset_as_logged
from rewardgym.envs.household.v1.tasks import TASKS, Task
from rewardgym.envs.household.v1.world import PRIORS

if TYPE_CHECKING:
    from rewardgym.envs.trajectories.episode import Episode


@dataclass(frozen=True)
class StepFacts:
    """What one step did, as the simulator saw it (``None`` distance: the goal is unreachable)."""

    executable: bool
    """The simulator executed the action (a broken rule changes nothing)."""
    on_plan: bool
    """The action is the replanned searcher's next action from the state it was taken in."""
    distance_before: int | None
    """The searcher's remaining steps before the action."""
    distance_after: int | None
    """The searcher's remaining steps after it."""
    goal_gain: int
    """Goal predicates that hold after the step minus those that held before."""
    irreversible: bool
    """The action is one that cannot be undone (``IRREVERSIBLE``) and was executed."""
    dead_end: bool
    """The step made the goal unreachable."""
    touches_goal: bool
    """The action's object (or room) is one the goal names, or where a goal object not yet seen
    may be."""
    searching: bool = False
    """The action is a search step (``walk to <room>`` or ``find <object>``)."""
    best_before: int | None = None
    """The lowest distance the episode had reached before this step (``None``: unknown, read as
    ``distance_before``)."""
    repeated: bool = False
    """The action had already been executed earlier in the episode."""


def searcher_plan(env: HouseholdV1Env, task: Task | None = None) -> list[int] | None:
    """The searcher's remaining actions for ``task`` (default: the episode's) from ``env``'s state.

    It knows what the agent has seen and where it has looked; ``[]`` when the goal is met,
    ``None`` when it can no longer be reached.
    """
    task = env.task if task is None else task
    if env.failure and task is env.task:
        return None
    return search_script(env.world, task, PRIORS[env.layout], known=env.seen, checked=env.checked)


def _relevant(env: HouseholdV1Env) -> tuple[set[int], set[int]]:
    """The objects and rooms the goal makes relevant now (goal objects, their unseen places)."""
    objects = set(env.task.objects)
    priors = PRIORS[env.layout]
    for obj in env.task.objects:
        if obj in priors and obj not in env.seen:
            objects.update(place for place, _ in priors[obj] if place >= 0)
    rooms = {env.world.obj_room[o] for o in objects}
    for obj in env.task.objects:
        if obj in priors and obj not in env.seen:
            rooms.update(-1 - place for place, _ in priors[obj] if place < 0)
    return objects, rooms


class ProgressTracker:
    """Follows one episode of ``env`` from its current state and says what each step did.

    It plans each state once, and remembers the lowest distance reached so far and which
    actions were already executed (facts a Markov judge cannot see, which keep a rating from
    paying for going round in circles).

    Example:
        >>> from rewardgym.envs.household.v1 import HouseholdV1Env
        >>> env = HouseholdV1Env()
        >>> _ = env.reset(seed=0)
        >>> tracker = ProgressTracker(env)
        >>> facts = tracker.step(tracker.plan[0])
        >>> facts.on_plan, facts.distance_after == facts.distance_before - 1
        (True, True)
    """

    def __init__(self, env: HouseholdV1Env) -> None:
        """Start from ``env``'s current state (usually right after ``reset``)."""
        self.env = env
        self.plan = searcher_plan(env)
        self.best = None if self.plan is None else len(self.plan)
        self.executed: set[int] = set()

    def step(self, action: int) -> StepFacts:
        """Take ``action`` in the env and return its facts."""
        env, before, action = self.env, self.plan, int(action)
        objects, rooms = _relevant(env)
        spec = ACTIONS[action]
        touches = spec.target in rooms if spec.is_room else spec.target in objects
        held_before = sum(env.task.goal_flags(env.world))
        _, _, _, _, info = env.step(action)
        after = searcher_plan(env)
        executed = bool(info["executable"])
        facts = StepFacts(
            executable=executed,
            on_plan=bool(before) and before is not None and before[0] == action,
            distance_before=None if before is None else len(before),
            distance_after=None if after is None else len(after),
            goal_gain=sum(env.task.goal_flags(env.world)) - held_before,
            irreversible=executed and action in IRREVERSIBLE,
            dead_end=before is not None and after is None,
            touches_goal=touches,
            searching=spec.behaviour == "find",
            best_before=self.best,
            repeated=action in self.executed,
        )
        if executed:
            self.executed.add(action)
        if after is not None and (self.best is None or len(after) < self.best):
            self.best = len(after)
        self.plan = after
        return facts


def episode_step_facts(episode: Episode, env: HouseholdV1Env) -> list[StepFacts]:
    """The facts of every step of a logged Household-v1 episode, by replaying it in ``env``."""
    reset_as_logged(episode, env)
    tracker = ProgressTracker(env)
    return [tracker.step(int(action)) for action in episode.actions.tolist()]


def sibling_task(env: HouseholdV1Env) -> Task:
    """The sibling of the episode's task (the task over the same objects)."""
    return TASKS[env.task.sibling]


__all__ = ["ProgressTracker", "StepFacts", "episode_step_facts", "searcher_plan", "sibling_task"]
