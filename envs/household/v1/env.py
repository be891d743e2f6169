"""``rewardgym/Household-v1``: longer household tasks with hidden, drawn placements and dead ends."""

from __future__ import annotations

from typing import Any, SupportsFloat

from rewardgym.bounds import AT_LEAST_1, check_number
from rewardgym.envs.conventions import brief, check_options
from rewardgym.envs.household.engine.env import HouseholdEngineEnv
from rewardgym.envs.household.v1.actions import (
    ACTION_NAMES,
    IRREVERSIBLE,
    N_ACTIONS,
    apply_action,
    reason_text,
)
from rewardgym.envs.household.v1.instructions import Instruction, instructions_for, split_name
from rewardgym.envs.household.v1.observation import (
    array_fields,
    describe_last,
    observation_space,
    render_text,
)
from rewardgym.envs.household.v1.planner import RULES, default_max_steps, plan, search_script
from rewardgym.envs.household.v1.tasks import TASKS, Task, task_id
from rewardgym.envs.household.v1.world import (
    LAYOUTS,
    OBJECT_INDEX,
    OBJECT_NAMES,
    OBJECTS,
    PRIORS,
    ROOMS,
    World,
    place_name,
    sample_placements,
)
from rewardgym.envs.spaces import discrete_index


def _placements_option(value: dict[str, str], layout: str) -> dict[int, int]:
    if not isinstance(value, dict):
        raise ValueError(
            f"options['placements']={brief(value)} is not a dict: map key object names to places"
        )
    out = {}
    for obj, place in value.items():
        if obj not in OBJECT_INDEX or OBJECT_INDEX[obj] not in PRIORS[layout]:
            raise ValueError(f"options['placements'] names {brief(obj)}, which is not a key object")
        places = {place_name(p): p for p, _ in PRIORS[layout][OBJECT_INDEX[obj]]}
        if place not in places:
            raise ValueError(
                f"options['placements'][{obj!r}]={brief(place)} is not one of its plausible "
                f"places in layout {layout!r}: {sorted(places)}"
            )
        out[OBJECT_INDEX[obj]] = places[place]
    return out


class HouseholdV1Env(HouseholdEngineEnv):
    """A four-room house whose tasks need a search, several objects and no wrong irreversible step.

    ## Description
    The successor of ``rewardgym/Household-v0`` (COREN, arXiv 2411.17135), built so that a
    dense reward can matter: each of the 25 tasks has 3-5 goal predicates and takes its
    expert 15-25 steps. The seven key objects (apple, milk, plate, book, remote control,
    clothes, towel) are placed anew in every episode, each drawn from its plausible places
    with the layout's weights (the apple is in the fridge half of the time, else on the
    kitchen counter or the coffee table), and closed containers hide what is inside, so every
    task starts with a search and knowing where things usually are pays. Some wrong steps
    cannot be undone: throwing a needed object into the trash can, or switching on an
    appliance before it holds its load (an appliance runs its one cycle and can then no
    longer be opened). ``layout="shifted"`` moves every key object's plausible places (the
    cross-domain test); ``instructions`` picks the training split or a held-out one.

    ## Observation
    A ``Dict`` (``rewardgym.envs.household.v1.observation.FIELDS`` documents every field):
    ``text`` for display, and the facts as arrays: multi-hot ``visible``, ``held``, ``open``,
    ``switched_on`` over the 22 objects, multi-hot ``completed`` over the 61 actions,
    ``room``, ``near`` and ``sitting`` (object id + 1), ``last_action`` (action id + 1) and
    ``last_result`` (0 if it was executed, else the code of the rule it broke, see
    ``REASONS``), and the ``task`` and ``instruction`` ids. The instruction text is
    ``info["instruction"]``.

    ## Action
    ``Discrete(61)`` over 8 behaviours: walk to one of 4 rooms or find one of 22 objects,
    grab (7), open (5), close (5), sit on (2), put on a surface (6), put in a container (6),
    switch on (4). ``action_names`` (also ``info["action_names"]`` after ``reset``) names
    every action. An action that breaks a rule changes nothing and sets
    ``info["executable"] = False``, ``info["reason"]`` and ``info["reason_code"]``.

    ## Reward
    Sparse: 1.0 on the step the goal is reached, otherwise 0.0. ``info["success"]`` and
    ``info["cgc"]`` (share of goal predicates holding) are given at every step.

    ## Termination
    Terminates when every goal predicate holds (success), or when an irreversible step has
    made the goal unreachable (``info["failure"]`` says which); truncates after
    ``max_steps`` steps.

    ## Registered ids
    ``rewardgym/Household-v1``, with keyword arguments ``layout`` ("default" | "shifted"),
    ``instructions`` ("train" | "fine" | "abstract"; "fine-grained" is read as "fine"),
    ``max_steps`` (``None``: per task, half again its longest expert script) and ``tasks``
    (a subset of task ids or names; all 25 by default).
    """

    rules = RULES
    tasks = TASKS
    world: World
    task: Task
    instruction_drawn_first = True
    option_keys = ("task", "instruction", "room", "placements")

    def __init__(
        self,
        layout: str = "default",
        instructions: str = "train",
        max_steps: int | None = None,
        tasks: list[int | str] | tuple[int | str, ...] | None = None,
        render_mode: str | None = None,
    ) -> None:
        """Build the env; see the class docstring for what each argument selects."""
        if layout not in LAYOUTS:
            raise ValueError(f"unknown layout {layout!r}: use one of {LAYOUTS}")
        if max_steps is not None:
            check_number(max_steps, f"{type(self).__name__}.max_steps", AT_LEAST_1)
        self.layout = layout
        self.instruction_split = split_name(instructions)
        self.max_steps_option = max_steps
        self._init_engine(render_mode, tasks, observation_space())
        self.placements: dict[int, int] = {o: places[0][0] for o, places in PRIORS[layout].items()}
        self.world = World(self.placements)
        self._initial_world = self.world.copy()
        self.max_steps = max_steps or default_max_steps(self.task, layout)
        self._clear_v1_episode()

    def _task_id(self, task: int | str) -> int:
        return task_id(task)

    def _instructions(self, task: int) -> tuple[Instruction, ...]:
        return instructions_for(task, self.instruction_split)

    def _clear_v1_episode(self) -> None:
        """Forget what the last episode saw, checked, failed and did last."""
        self.failure = ""
        self.seen: set[int] = set()
        self.checked: set[int] = set()
        self._last = (-1, 0, "")
        self._script: list[int] | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode; ``options`` may fix ``task``, ``instruction``, ``room``, ``placements``.

        ``task`` is an id or a name, ``instruction`` an index into the task's instructions of
        this env's split, ``room`` a room id or name and ``placements`` a dict from key object
        names to one of their plausible places (the others are drawn); whatever is not fixed
        is drawn from the seeded generator.
        """
        options = check_options(options, self.option_keys, env=type(self).__name__)
        super().reset(seed=seed)
        room = self._draw_start(options)
        self.placements = sample_placements(self.layout, self.np_random)
        self.placements.update(_placements_option(options.get("placements", {}), self.layout))
        self.world = World(self.placements, start_room=room)
        self._initial_world = self.world.copy()
        self.max_steps = self.max_steps_option or default_max_steps(self.task, self.layout)
        self._clear_episode()
        self._clear_v1_episode()
        info = self._reset_info(
            instruction_id=self.instruction.id, room=ROOMS[room], max_steps=self.max_steps
        )
        self._gate.open()
        return self._observe(), info

    def step(self, action: int) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        """Apply one action; an impossible one changes nothing and says why in ``info``."""
        self._gate.check()
        act = discrete_index(action, N_ACTIONS)
        code = apply_action(self.world, act)
        reason = reason_text(self.world, act, code)
        if not code and act in IRREVERSIBLE and plan(self.world, self.task) is None:
            self.failure = f"{ACTION_NAMES[act]} made the goal unreachable"
        self._last = (act, code, reason)
        self._record(act, executed=not code)
        goal = self._goal_info()
        info = {
            "executable": not code,
            "reason": reason,
            "reason_code": code,
            "action_name": ACTION_NAMES[act],
            **goal,
            "failure": self.failure,
        }
        terminated = goal["success"] or bool(self.failure)
        truncated = not terminated and self.steps >= self.max_steps
        self._gate.close_if(terminated=terminated, truncated=truncated)
        return self._observe(), 1.0 if goal["success"] else 0.0, terminated, truncated, info

    def _observe(self) -> dict[str, Any]:
        world = self.world
        visible = world.visible_objects()
        act, code, reason = self._last
        obs = array_fields(world, visible, act, code)
        obs["text"] = render_text(
            world, visible, self.instruction.text, self._history, describe_last(act, reason)
        )
        self.seen.update(visible)
        if world.held >= 0:
            self.seen.add(world.held)
        self.checked.update(world.places_in_view())
        return self._finish_observation(obs)

    def replay_options(self) -> dict[str, Any]:
        """Reset options that rebuild this episode's first state exactly (for replays, oracles)."""
        return {
            "task": self.task.id,
            "instruction": self.instruction_index,
            "room": ROOMS[self._initial_world.agent_room],
            "placements": {OBJECT_NAMES[o]: place_name(p) for o, p in self.placements.items()},
        }

    def expert_script(self) -> list[int]:
        """The searcher's fixed script from this episode's first state (the data's expert)."""
        if self._script is None:
            script = search_script(self._initial_world, self.task, PRIORS[self.layout])
            self._script = script or []
        return list(self._script)

    @property
    def reference_plan(self) -> list[int]:
        """The expert script from the initial state: the reference of the Plan metric."""
        return self.expert_script()

    def script_for(self, task: int | str) -> list[int]:
        """The searcher's script for another task from this episode's first state."""
        other = TASKS[task_id(task)]
        return search_script(self._initial_world, other, PRIORS[self.layout]) or []

    def goal_distance(self) -> int | None:
        """Steps the privileged expert still needs from here (``None``: unreachable)."""
        remaining = plan(self.world, self.task)
        return None if remaining is None else len(remaining)

    def search_distance(self) -> int | None:
        """Steps the searcher still needs from here, knowing what the agent has seen and where it
        has looked (``None``: the goal is unreachable)."""
        if self.failure:
            return None
        remaining = search_script(
            self.world, self.task, PRIORS[self.layout], known=self.seen, checked=self.checked
        )
        return None if remaining is None else len(remaining)

    # The names behind the array fields, read by judges (rewardgym.wrappers.coren.grounding).
    object_names: tuple[str, ...] = OBJECT_NAMES
    room_names: tuple[str, ...] = ROOMS
    openable_objects: tuple[str, ...] = tuple(s.name for s in OBJECTS if s.lidded)


__all__ = ["HouseholdV1Env"]
