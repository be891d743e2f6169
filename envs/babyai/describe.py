"""Turn BabyAI's egocentric 7x7 grid observation into an English description of what is in view.

The agent stands at the bottom middle of its view, facing up; a cell ``(i, j)`` of the view
lies ``6 - j`` steps forward and ``i - 3`` steps to the right. Objects are described with
their colour, doors with their state, and the wall straight ahead with its distance.
"""

from __future__ import annotations

import numpy as np
from minigrid.core.constants import IDX_TO_COLOR, IDX_TO_OBJECT, STATE_TO_IDX

DIRECTIONS: tuple[str, ...] = ("east", "south", "west", "north")
_IDX_TO_STATE = {index: name for name, index in STATE_TO_IDX.items()}
_DESCRIBED = frozenset({"key", "ball", "box", "door", "goal", "lava"})


def _steps(n: int, word: str) -> str:
    return f"{n} step{'s' if n != 1 else ''} {word}"


def _offset(forward: int, right: int) -> str:
    parts = []
    if forward:
        parts.append(_steps(forward, "forward"))
    if right:
        parts.append(_steps(abs(right), "right" if right > 0 else "left"))
    return " and ".join(parts) or "right here"


def describe_view(image: np.ndarray) -> list[str]:
    """One phrase per visible object (nearest first), then the wall straight ahead if seen."""
    size = image.shape[0]
    centre, bottom = size // 2, image.shape[1] - 1
    found: list[tuple[int, str]] = []
    # Only cells that hold something other than unseen, empty, wall or floor need a look.
    for i, j in zip(*np.nonzero(image[:, :, 0] > 3), strict=True):
        if i == centre and j == bottom:
            continue  # the agent's own cell shows what it carries, described separately
        obj_type, colour, state = (int(v) for v in image[i, j])
        name = IDX_TO_OBJECT[obj_type]
        if name not in _DESCRIBED:
            continue
        forward, right = bottom - int(j), int(i) - centre
        label = f"{IDX_TO_COLOR[colour]} {name}"
        if name == "door":
            label = f"{_IDX_TO_STATE[state]} {label}"
        found.append((forward + abs(right), f"a {label} {_offset(forward, right)}"))
    found.sort()
    phrases = [text for _, text in found]
    column = image[centre, :, 0]
    for forward in range(1, bottom + 1):
        cell = IDX_TO_OBJECT[int(column[bottom - forward])]
        if cell == "wall":
            phrases.append(f"a wall {_steps(forward, 'forward')}")
            break
        if cell != "empty":
            break
    return phrases


def describe(image: np.ndarray, direction: int, mission: str, carrying: str | None) -> str:
    """The full text observation: mission, heading, what is in view and what is carried."""
    seen = "; ".join(describe_view(image)) or "nothing but the floor"
    held = f"a {carrying}" if carrying else "nothing"
    return (
        f"Mission: {mission}\nYou are facing {DIRECTIONS[direction]}.\n"
        f"You see: {seen}.\nYou are carrying {held}."
    )


__all__ = ["DIRECTIONS", "describe", "describe_view"]
