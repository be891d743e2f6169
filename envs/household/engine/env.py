"""What every Household env shares: the action names, the replanning expert, the start room, render."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from rewardgym.envs.conventions import EpisodeGate, brief
from rewardgym.envs.household.engine.actions import ActionTable
from rewardgym.envs.household.engine.goals import Task
from rewardgym.envs.household.engine.phrasing import Instruction
from rewardgym.envs.household.engine.planner import PlannerRules, plan
from rewardgym.envs.household.engine.scene import HouseholdScene
from rewardgym.envs.household.engine.state import World
from rewardgym.envs.spaces import discrete_index


class HouseholdEngineEnv(HouseholdScene, gym.Env[dict[str, Any], int]):
    """The base of ``HouseholdEnv`` and ``HouseholdV1Env``: one engine, a version's rules as data.

    A version sets ``rules`` (its action table and planner rules) and the scene names, and
    keeps ``world``, ``task`` and ``_obs`` up to date in its ``reset`` and ``step``.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012  (Gymnasium's convention)
    rules: ClassVar[PlannerRules]
    tasks: ClassVar[tuple[Task, ...]]
    instruction_drawn_first: ClassVar[bool] = False
    """Whether ``reset`` draws an instruction index even when ``options`` fix one (Household-v1
    does, so that fixing it leaves the later draws of the episode as they were)."""
    option_keys: ClassVar[tuple[str, ...]] = ("task", "instruction", "room")
    """The keys ``reset(options=...)`` accepts; any other is refused."""
    instruction_split: str
    world: World
    task: Task

    def _task_id(self, task: int | str) -> int:
        """The id of ``task`` (an id or a name) in this version."""
        raise NotImplementedError

    def _instructions(self, task: int) -> tuple[Instruction, ...]:
        """The instructions of this env's split for ``task``."""
        raise NotImplementedError

    def _init_engine(
        self, render_mode: str | None, tasks: Sequence[int | str] | None, obs_space: spaces.Dict
    ) -> None:
        """Check ``render_mode`` and ``tasks``, set the spaces and a first task, no episode yet."""
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not supported: use 'ansi' or None")
        self.render_mode = render_mode
        self.task_ids: tuple[int, ...] = (
            tuple(range(len(self.tasks)))
            if tasks is None
            else tuple(self._task_id(t) for t in tasks)
        )
        if not self.task_ids:
            raise ValueError("tasks is empty: pass None for all 25 tasks or at least one task")
        self.observation_space = obs_space
        self.action_space = spaces.Discrete(self.rules.table.n_actions)  # type: ignore[assignment]
        self.task = self.tasks[self.task_ids[0]]
        self.instruction: Instruction = self._instructions(self.task.id)[0]
        self.instruction_index = 0
        self._obs: dict[str, Any] = {}
        self._gate = EpisodeGate(type(self).__name__)
        self._clear_episode()

    def _clear_episode(self) -> None:
        """Forget the steps, completed actions and expert plan of the previous episode."""
        self.steps = 0
        self._completed = np.zeros(self.rules.table.n_actions, dtype=np.int8)
        self._history: list[str] = []
        self._plan: list[int] | None = None
        self._plan_pos = 0

    def _draw_start(self, options: dict[str, Any]) -> int:
        """Set the episode's task and instruction, drawn unless ``options`` fix them; the start room."""
        if "task" in options:
            chosen = self._task_id(options["task"])
        else:
            chosen = self.task_ids[int(self.np_random.integers(len(self.task_ids)))]
        self.task = self.tasks[chosen]
        split = self._instructions(chosen)
        drawn = int(self.np_random.integers(len(split))) if self.instruction_drawn_first else -1
        if "instruction" in options:
            index = discrete_index(
                options["instruction"],
                len(split),
                what=f"options['instruction'] (task {chosen} has {len(split)} "
                f"{self.instruction_split!r} instructions)",
                unit="instruction index",
            )
        else:
            index = drawn if drawn >= 0 else int(self.np_random.integers(len(split)))
        self.instruction = split[index]
        self.instruction_index = index
        room = int(self.np_random.integers(self.rules.table.house.n_rooms))
        if "room" in options:
            room = self._room_id(options["room"])
        return room

    def _goal_info(self) -> dict[str, Any]:
        """``success`` and ``cgc`` (the share of goal predicates holding) of the current state."""
        flags = self.task.goal_flags(self.world)
        return {"success": all(flags), "cgc": sum(flags) / len(flags)}

    def _reset_info(self, **extra: Any) -> dict[str, Any]:
        """The ``reset`` info: action names, the task, its goal, the instruction, ``extra``, goal flags."""
        return {
            "action_names": self.action_names,
            "task_id": self.task.id,
            "task_name": self.task.name,
            "goal": tuple(str(p) for p in self.task.goal),
            "instruction": self.instruction.text,
            "instruction_kind": self.instruction.kind,
            **extra,
            **self._goal_info(),
        }

    def _record(self, action: int, executed: bool) -> None:
        """Book one step: the completed action and its name, the expert's plan, the step count."""
        if executed:
            self._completed[action] = 1
            self._history.append(self.rules.table.names[action])
        self._advance_plan(action, executed)
        self.steps += 1

    def _finish_observation(self, obs: dict[str, Any]) -> dict[str, Any]:
        """Add the completed actions and the task and instruction ids, and keep it for ``render``."""
        obs["completed"] = self._completed.copy()
        obs["task"] = self.task.id
        obs["instruction"] = self.instruction.id
        self._obs = obs
        return obs

    @property
    def table(self) -> ActionTable:
        """The version's action table."""
        return self.rules.table

    @property
    def action_names(self) -> tuple[str, ...]:
        """The name of every action, indexed by action id."""
        return self.rules.table.names

    def _room_id(self, room: int | str) -> int:
        """A start room given as an id or a name, checked."""
        rooms = self.rules.table.house.rooms
        if isinstance(room, str):
            if room in rooms:
                return rooms.index(room)
            raise ValueError(f"unknown room {brief(room)}: use one of {rooms}")
        return discrete_index(room, len(rooms), what="options['room']", unit="room id")

    def _advance_plan(self, action: int, executed: bool) -> None:
        """Keep the expert's plan while the agent follows it (or fails without effect), else drop it."""
        plan_ = self._plan
        pos = self._plan_pos
        if plan_ is not None and executed and pos < len(plan_) and plan_[pos] == action:
            self._plan_pos += 1
            return
        if plan_ is not None and not executed:
            return  # a failed action changes nothing, so the plan still stands
        self._plan = None

    def expert_plan(self) -> list[int] | None:
        """The privileged expert's remaining actions from the current state, or ``None`` if stuck."""
        if self._plan is None:
            self._plan, self._plan_pos = plan(self.rules, self.world, self.task), 0
            if self._plan is None:
                return None
        return self._plan[self._plan_pos :]

    def expert_action(self) -> int | None:
        """The privileged expert's next action (it replans), or ``None`` if done or stuck."""
        remaining = self.expert_plan()
        return remaining[0] if remaining else None

    def executable_actions(self) -> list[int]:
        """The ids of the actions the simulator would execute from the current state."""
        return self.rules.table.executable(self.world)

    def render(self) -> str | None:  # type: ignore[override]
        """The current text observation when ``render_mode="ansi"``, else nothing."""
        if self.render_mode == "ansi":
            return str(self._obs.get("text", ""))
        return None


__all__ = ["HouseholdEngineEnv"]
