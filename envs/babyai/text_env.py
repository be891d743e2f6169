"""BabyAI levels with a text observation, keeping minigrid's own environment and dynamics."""

from __future__ import annotations

import contextlib
import io
from typing import Any, SupportsFloat, cast

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from minigrid.core.constants import COLOR_NAMES, IDX_TO_COLOR, OBJECT_TO_IDX, STATE_TO_IDX

from rewardgym.envs.babyai.describe import describe
from rewardgym.envs.conventions import EpisodeGate, check_options
from rewardgym.envs.spaces import SharedText, discrete_index

TEXT_CHARSET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 \n.,;:'!?-()"
TEXT_MAX_LENGTH = 2048
ACTION_NAMES: tuple[str, ...] = ("left", "right", "forward", "pickup", "drop", "toggle", "done")
OBJECT_TYPES: tuple[str, ...] = ("key", "ball", "box", "door")
OBJECT_NAMES: tuple[str, ...] = tuple(f"{c} {t}" for t in OBJECT_TYPES for c in COLOR_NAMES)
"""Every object a BabyAI mission can name (colour and type): the columns of the fact fields."""
_OBJECT_INDEX = {name: i for i, name in enumerate(OBJECT_NAMES)}
_TYPE_IDS = {OBJECT_TO_IDX[t]: t for t in OBJECT_TYPES}


class BabyAITextEnv(gym.Env[dict[str, Any], int]):
    """A BabyAI level from minigrid whose observation adds an English description of the view.

    ## Description
    The level itself (grid, objects, mission, dynamics, reward and episode limit) is
    minigrid's ``BabyAI-<level>-v0``; this class only adds text, so results stay comparable
    with BabyAI. ``expert_action()`` asks minigrid's ``BabyAIBot`` for the next action and
    copes with actions that were not its own (for perturbed data collection).

    ## Observation
    A ``Dict``: ``text`` (the mission, the heading, each visible object with its colour and
    its offset in steps forward and left/right, the wall ahead, what is carried),
    ``image`` (minigrid's 7x7x3 egocentric encoding), ``direction`` (0 east .. 3 north) and
    the facts as multi-hot fields over ``OBJECT_NAMES`` (colour and type): ``visible`` (in
    view), ``held`` (carried) and ``open`` (open doors in view).

    ## Action
    minigrid's ``Discrete(7)``: left, right, forward, pickup, drop, toggle, done
    (``action_names``).

    ## Reward
    minigrid's: ``1 - 0.9 * steps / max_steps`` on success, otherwise 0.

    ## Termination
    Terminates when the mission is accomplished (or failed, for levels that can fail);
    truncates at the level's ``max_steps``.

    ## Registered ids
    ``rewardgym/BabyAI-GoToLocal-Text-v0``, ``rewardgym/BabyAI-PickupLoc-Text-v0`` and
    ``rewardgym/BabyAI-PutNextLocal-Text-v0`` (keyword ``level``).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012  (Gymnasium's convention)

    def __init__(self, level: str = "GoToLocal", render_mode: str | None = None) -> None:
        """Wrap minigrid's ``BabyAI-<level>-v0``, for example ``level="GoToLocal"``."""
        env_id = f"BabyAI-{level}-v0"
        import minigrid  # noqa: F401  (registers the BabyAI ids)

        spec = gym.registry.get(env_id) if isinstance(level, str) and ":" not in level else None
        # ``level`` may come from a data set's env_kwargs: only minigrid's own levels are made.
        if spec is None or not str(spec.entry_point).startswith("minigrid."):
            raise ValueError(
                f"unknown BabyAI level {level!r}: {env_id} is not registered by minigrid"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not supported: use 'ansi' or None")
        self.level = level
        self.render_mode = render_mode
        self.minigrid: Any = gym.make(env_id, disable_env_checker=True).unwrapped
        image_space = cast(spaces.Dict, self.minigrid.observation_space)["image"]
        self.observation_space = spaces.Dict(
            {
                "text": SharedText(TEXT_MAX_LENGTH, min_length=1, charset=TEXT_CHARSET),
                "image": image_space,
                "direction": spaces.Discrete(4),
                "visible": spaces.MultiBinary(len(OBJECT_NAMES)),
                "held": spaces.MultiBinary(len(OBJECT_NAMES)),
                "open": spaces.MultiBinary(len(OBJECT_NAMES)),
            }
        )
        self.action_space = spaces.Discrete(len(ACTION_NAMES))  # type: ignore[assignment]
        self._bot: Any = None
        self._last_action: int | None = None
        self._suggestion: tuple[int, int | None] | None = None
        self._steps = 0
        self._obs: dict[str, Any] = {}
        self._gate = EpisodeGate(type(self).__name__)

    @property
    def action_names(self) -> tuple[str, ...]:
        """The name of every action, indexed by action id."""
        return ACTION_NAMES

    # The names behind the fact fields, read by judges (rewardgym.wrappers.coren.grounding).
    object_names: tuple[str, ...] = OBJECT_NAMES
    """The objects indexed by ``visible``, ``held`` and ``open``."""
    room_names: tuple[str, ...] = ()
    """BabyAI's local levels have no named rooms."""
    openable_objects: tuple[str, ...] = tuple(n for n in OBJECT_NAMES if n.endswith(" door"))
    """The doors (open, closed or locked)."""

    def goal_objects(self) -> tuple[str, ...]:
        """The objects the mission is about (a description without a colour names every colour)."""
        found: list[str] = []
        stack = [self.minigrid.instrs]
        while stack:
            instr = stack.pop()
            for key in ("instr_a", "instr_b"):
                if hasattr(instr, key):
                    stack.append(getattr(instr, key))
            for key in ("desc", "desc_move", "desc_fixed"):
                desc = getattr(instr, key, None)
                if desc is not None and desc.type in OBJECT_TYPES:
                    colours = [desc.color] if desc.color else list(COLOR_NAMES)
                    found += [f"{c} {desc.type}" for c in colours]
        return tuple(dict.fromkeys(found))

    @property
    def mission(self) -> str:
        """The current episode's instruction."""
        return str(self.minigrid.mission)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start a new level instance; ``seed`` seeds minigrid's own generator (no options)."""
        check_options(options, (), env=type(self).__name__)
        super().reset(seed=seed)
        # minigrid prints every rejected level sample to stdout; keep the console quiet.
        with contextlib.redirect_stdout(io.StringIO()):
            raw, info = self.minigrid.reset(seed=seed)
        self._bot, self._last_action, self._suggestion, self._steps = None, None, None, 0
        self._gate.open()
        info = dict(info)
        info.update(action_names=ACTION_NAMES, instruction=self.mission, success=False)
        return self._observe(raw), info

    def step(self, action: int) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        """Step minigrid's level and describe the new view."""
        self._gate.check()
        act = discrete_index(action, len(ACTION_NAMES))
        raw, reward, terminated, truncated, info = self.minigrid.step(act)
        self._gate.close_if(terminated=bool(terminated), truncated=bool(truncated))
        self._last_action = act
        self._steps += 1
        info = dict(info)
        info.update(action_name=ACTION_NAMES[act], success=bool(terminated and float(reward) > 0))
        return self._observe(raw), float(reward), terminated, truncated, info

    def _observe(self, raw: dict[str, Any]) -> dict[str, Any]:
        carrying = self.minigrid.carrying
        held = f"{carrying.color} {carrying.type}" if carrying is not None else None
        image = np.asarray(raw["image"], dtype=np.uint8)
        text = describe(image, int(raw["direction"]), self.mission, held)
        visible = np.zeros(len(OBJECT_NAMES), dtype=np.int8)
        is_open = np.zeros(len(OBJECT_NAMES), dtype=np.int8)
        own = (image.shape[0] // 2, image.shape[1] - 1)  # the agent's cell shows what it carries
        for i, j in zip(*np.nonzero(np.isin(image[:, :, 0], list(_TYPE_IDS))), strict=True):
            if (int(i), int(j)) == own:
                continue
            obj_type, colour, state = (int(v) for v in image[i, j])
            column = _OBJECT_INDEX[f"{IDX_TO_COLOR[colour]} {_TYPE_IDS[obj_type]}"]
            visible[column] = 1
            if _TYPE_IDS[obj_type] == "door" and state == STATE_TO_IDX["open"]:
                is_open[column] = 1
        carried = np.zeros(len(OBJECT_NAMES), dtype=np.int8)
        if held is not None and held in _OBJECT_INDEX:
            carried[_OBJECT_INDEX[held]] = 1
        self._obs = {
            "text": text,
            "image": image,
            "direction": int(raw["direction"]),
            "visible": visible,
            "held": carried,
            "open": is_open,
        }
        return self._obs

    def expert_action(self) -> int | None:
        """``BabyAIBot``'s next action from the current state (call at most once per step)."""
        if self._suggestion is not None and self._suggestion[0] == self._steps:
            return self._suggestion[1]
        from minigrid.utils.baby_ai_bot import BabyAIBot, DisappearedBoxError

        try:
            if self._bot is None:
                self._bot = BabyAIBot(self.minigrid)
                action = self._bot.replan()
            else:
                action = self._bot.replan(self._last_action)
        except DisappearedBoxError:
            action = None  # an opened box may have destroyed the mission's object
        except (AssertionError, TypeError, ValueError, IndexError):
            # The bot keeps a plan stack that an off-policy action can corrupt; a fresh bot
            # re-reads the current view and replans from it.
            try:
                self._bot = BabyAIBot(self.minigrid)
                action = self._bot.replan()
            except (AssertionError, TypeError, ValueError, IndexError):
                action = None
        result = None if action is None else int(action)
        self._suggestion = (self._steps, result)
        return result

    def render(self) -> str | None:  # type: ignore[override]
        """The current text observation when ``render_mode="ansi"``, else nothing."""
        if self.render_mode == "ansi":
            return str(self._obs.get("text", ""))
        return None

    def close(self) -> None:
        """Close minigrid's environment."""
        self.minigrid.close()


__all__ = ["ACTION_NAMES", "OBJECT_NAMES", "BabyAITextEnv"]
