"""``rewardgym/Household-v0``: a fast text household simulator in the spirit of VirtualHome."""

from __future__ import annotations

from typing import Any, SupportsFloat

from rewardgym.bounds import AT_LEAST_1, check_number
from rewardgym.envs.conventions import check_options
from rewardgym.envs.household.engine.env import HouseholdEngineEnv
from rewardgym.envs.household.v0.actions import ACTION_NAMES, N_ACTIONS, apply_action
from rewardgym.envs.household.v0.expert import RULES, plan
from rewardgym.envs.household.v0.instructions import (
    INSTRUCTION_KINDS,
    Instruction,
    instructions_for,
)
from rewardgym.envs.household.v0.observation import (
    observation_space,
    render_text,
    structured_fields,
)
from rewardgym.envs.household.v0.tasks import TASKS, Task, task_id
from rewardgym.envs.household.v0.world import LAYOUTS, OBJECT_NAMES, OBJECTS, ROOMS, World
from rewardgym.envs.spaces import discrete_index


class HouseholdEnv(HouseholdEngineEnv):
    """A four-room house where an agent follows a natural-language instruction (COREN's setting).

    ## Description
    A pure-Python stand-in for VirtualHome as used by COREN (arXiv 2411.17135): a kitchen,
    a living room, a bedroom and a bathroom with 21 objects that can be open or closed,
    switched on, held, or placed in or on other objects. Each episode draws one of 25 tasks
    (a set of goal predicates) and one of its instructions, and starts the agent
    empty-handed in a random room. ``layout="shifted"`` moves the key objects to other
    rooms or containers (the cross-domain test); ``instructions`` picks the training split or
    one of the two held-out splits ("fine-grained", "abstract"). ``expert_action()`` gives
    the privileged expert's next action from any state.

    ## Observation
    A ``Dict``: ``text`` (the instruction, the room, what stands near, the visible objects
    with their states, the held object and the completed actions) and the same facts as
    arrays: multi-hot ``visible``, ``held``, ``open``, ``switched_on`` over the 21 objects,
    multi-hot ``completed`` over the 58 actions, ``room``, ``near`` and ``sitting`` (object
    id + 1, 0 for none), and the ``task`` and ``instruction`` ids. Objects shut inside a
    closed container or in another room are not visible.

    ## Action
    ``Discrete(58)``: walk to one of 4 rooms, find one of 21 objects, grab (8), open (5),
    close (5), sit on (3), put on a surface (3), put in a container (5), switch on (4).
    ``action_names`` (also ``info["action_names"]`` after ``reset``) names every action.
    An action that breaks a rule (not next to the object, hands full, container closed,
    ...) leaves the world unchanged and sets ``info["executable"] = False`` and
    ``info["reason"]``.

    ## Reward
    Sparse: 1.0 on the step the goal is reached, otherwise 0.0. ``info["success"]`` and
    ``info["cgc"]`` (share of goal predicates holding) are given at every step.

    ## Termination
    Terminates when every goal predicate holds; truncates after ``max_steps`` steps.

    ## Registered ids
    ``rewardgym/Household-v0``, with keyword arguments ``layout`` ("default" | "shifted"),
    ``instructions`` ("train" | "fine-grained" | "abstract"), ``max_steps`` (20, twice the expert's longest plan) and
    ``tasks`` (a subset of task ids or names; all 25 by default).
    """

    rules = RULES
    tasks = TASKS
    world: World
    task: Task

    def __init__(
        self,
        layout: str = "default",
        instructions: str = "train",
        max_steps: int = 20,
        tasks: list[int | str] | tuple[int | str, ...] | None = None,
        render_mode: str | None = None,
    ) -> None:
        """Build the env; see the class docstring for what each argument selects."""
        if layout not in LAYOUTS:
            raise ValueError(f"unknown layout {layout!r}: use one of {LAYOUTS}")
        if instructions not in INSTRUCTION_KINDS:
            raise ValueError(
                f"unknown instruction split {instructions!r}: use one of {INSTRUCTION_KINDS}"
            )
        check_number(max_steps, f"{type(self).__name__}.max_steps", AT_LEAST_1)
        self.layout = layout
        self.instruction_split = instructions
        self.max_steps = max_steps
        self._init_engine(render_mode, tasks, observation_space())
        self.world = World(layout)
        self._initial_world = self.world.copy()
        self._reference_plan: list[int] | None = None

    def _task_id(self, task: int | str) -> int:
        return task_id(task)

    def _instructions(self, task: int) -> tuple[Instruction, ...]:
        return instructions_for(task, self.instruction_split)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode; ``options`` may fix ``task``, ``instruction`` and the start ``room``.

        ``task`` is an id or a name, ``instruction`` an index into the task's instructions of
        this env's split, ``room`` a room id or name; whatever is not fixed is drawn from the
        seeded generator.
        """
        chosen = check_options(options, self.option_keys, env=type(self).__name__)
        super().reset(seed=seed)
        room = self._draw_start(chosen)
        self.world = World(self.layout, start_room=room)
        self._initial_world = self.world.copy()
        self._clear_episode()
        self._reference_plan = None
        self._gate.open()
        return self._observe(), self._reset_info()

    def step(self, action: int) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        """Apply one action; an impossible one changes nothing and says why in ``info``."""
        self._gate.check()
        act = discrete_index(action, N_ACTIONS)
        reason = apply_action(self.world, act)
        self._record(act, executed=not reason)
        goal = self._goal_info()
        info = {
            "executable": not reason,
            "reason": reason,
            "action_name": ACTION_NAMES[act],
            **goal,
        }
        truncated = not goal["success"] and self.steps >= self.max_steps
        self._gate.close_if(terminated=goal["success"], truncated=truncated)
        return self._observe(), 1.0 if goal["success"] else 0.0, goal["success"], truncated, info

    def _observe(self) -> dict[str, Any]:
        world = self.world
        visible = world.visible_objects()
        obs: dict[str, Any] = structured_fields(world, visible)
        obs["text"] = render_text(world, visible, self.instruction.text, self._history)
        return self._finish_observation(obs)

    @property
    def reference_plan(self) -> list[int]:
        """The expert's plan from this episode's initial state, the reference of the Plan metric."""
        if self._reference_plan is None:
            self._reference_plan = plan(self._initial_world, self.task) or []
        return list(self._reference_plan)

    # The names behind the array fields, read by judges (rewardgym.wrappers.coren.grounding).
    object_names: tuple[str, ...] = OBJECT_NAMES
    room_names: tuple[str, ...] = ROOMS
    openable_objects: tuple[str, ...] = tuple(s.name for s in OBJECTS if s.container)


__all__ = ["HouseholdEnv"]
