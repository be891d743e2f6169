"""What every Household env shares: the action names, the replanning expert, the start room, render."""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym

from rewardgym.envs.household.engine.actions import ActionTable
from rewardgym.envs.household.engine.goals import Task
from rewardgym.envs.household.engine.planner import PlannerRules, plan
from rewardgym.envs.household.engine.state import World
from rewardgym.envs.household.scene import HouseholdScene
from rewardgym.envs.spaces import discrete_index


class HouseholdEngineEnv(HouseholdScene, gym.Env[dict[str, Any], int]):
    """The base of ``HouseholdEnv`` and ``HouseholdV1Env``: one engine, a version's rules as data.

    A version sets ``rules`` (its action table and planner rules) and the scene names, and
    keeps ``world``, ``task`` and ``_obs`` up to date in its ``reset`` and ``step``.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012  (Gymnasium's convention)
    rules: ClassVar[PlannerRules]
    world: World
    task: Task

    def _init_engine(self, render_mode: str | None) -> None:
        """Check ``render_mode`` and start with no expert plan and no observation."""
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not supported: use 'ansi' or None")
        self.render_mode = render_mode
        self._plan: list[int] | None = None
        self._plan_pos = 0
        self._obs: dict[str, Any] = {}

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
            raise ValueError(f"unknown room {room!r}: use one of {rooms}")
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
