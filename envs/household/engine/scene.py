"""What both Household versions expose about a scene: the names behind the fields, goal facts.

Judges and encoders read observations as arrays; these names (``object_names``,
``room_names``, ``openable_objects``) say what each column means, ``goal_objects()`` is the
simulator's ground truth of what the task is about (``rewardgym.wrappers.coren.grounding``).
"""

from __future__ import annotations

from typing import Any


class HouseholdScene:
    """Mixin of ``HouseholdEnv`` and ``HouseholdV1Env``: scene names and goal facts.

    The env sets the class attributes from its own world tables and keeps ``task`` (with
    ``goal`` predicates and ``goal_flags(world)``) and ``world``.
    """

    object_names: tuple[str, ...] = ()
    """The objects indexed by the multi-hot fields and by ``near``/``sitting`` (minus one)."""
    room_names: tuple[str, ...] = ()
    """The rooms indexed by the ``room`` field."""
    openable_objects: tuple[str, ...] = ()
    """The objects that open and close (a closed one hides what is inside)."""
    task: Any
    world: Any

    def goal_objects(self) -> tuple[str, ...]:
        """The objects the current task's goal predicates name (the simulator's ground truth)."""
        names = [self.object_names[p.obj] for p in self.task.goal]
        names += [self.object_names[p.target] for p in self.task.goal if p.target >= 0]
        return tuple(dict.fromkeys(names))

    def goal_flags(self) -> list[bool]:
        """Which goal predicates of the current task hold now, in goal order."""
        return list(self.task.goal_flags(self.world))


__all__ = ["HouseholdScene"]
