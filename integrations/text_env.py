"""Any rewardgym env as text in, text out: the shared half of the OpenEnv server and the verifiers tasksets.

A text action is the env's own action when the env takes text (the shopping envs), and for a
``Discrete`` env either the action's index in ASCII digits (``"12"``) or its name from
``action_names`` (``"grab apple"``, case and surrounding spaces ignored). Anything else is
refused with a :class:`BadAction` that names the text and says what would be accepted.
Observations become their ``text`` field (household, BabyAI) or ``context`` (shopping), and
``info`` becomes plain JSON (numpy values as numbers and lists, dataclasses as dicts, anything
else as its ``str``). What a player outside this process sees of ``info`` is
:func:`public_info`: the keys :data:`PUBLIC_INFO` documents for its env, never the logged truth
or the formal goal.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np

from rewardgym.envs import (
    BABYAI_TEXT_LEVELS,
    HOUSEHOLD_ID,
    HOUSEHOLD_V0_ID,
    SHOP_SESSION_ID,
    SHOP_STORE_ID,
    TRAJECTORY_REPLAY_ID,
    VIRTUALHOME_ID,
    babyai_text_id,
)
from rewardgym.envs.conventions import brief
from rewardgym.envs.registration import make_registered
from rewardgym.errors import BadAction, UserError
from rewardgym.wrappers.shop_r1 import REWARDS, ShopR1Reward, reward_config

REWARD_PREFIX = "shop-r1"
"""``--reward shop-r1`` is Shop-R1's reward at the paper's weights; ``shop-r1/NAME`` any entry of
:data:`rewardgym.wrappers.shop_r1.REWARDS` (``shop-r1/no-dars``, ``shop-r1/binary``, ...)."""

SHOP_IDS: tuple[str, ...] = (SHOP_SESSION_ID, SHOP_STORE_ID)
"""The envs a Shop-R1 reward can wrap: they put the human's action into ``info["truth"]``."""

REWARD_NAMES: tuple[str, ...] = (REWARD_PREFIX, *(f"{REWARD_PREFIX}/{name}" for name in REWARDS))
"""Every reward a served or wrapped env can be given by name."""

INDEX = re.compile(r"[0-9]+")
"""An action index as text: ASCII digits only (``str.isdigit`` also takes '²' and '①', which
``int`` refuses); more than 18 of them are out of every range (``int`` refuses 4,300+)."""

_EMBODIED = frozenset(
    {"action_names", "instruction", "action_name", "executable", "reason", "success"}
)
_HOUSEHOLD = _EMBODIED | {"reason_code", "failure", "instruction_kind", "room", "max_steps"}
_SHOP = frozenset(
    {"session_id", "step", "n_steps", "prediction", "parsed_output", "exact_match", "reward_terms"}
)
PUBLIC_INFO: dict[str, frozenset[str]] = {
    **{babyai_text_id(level): _EMBODIED for level in BABYAI_TEXT_LEVELS},
    HOUSEHOLD_V0_ID: _HOUSEHOLD,
    HOUSEHOLD_ID: _HOUSEHOLD,
    VIRTUALHOME_ID: _HOUSEHOLD,
    TRAJECTORY_REPLAY_ID: _EMBODIED | {"t", "episode", "episode_id"},
    SHOP_SESSION_ID: _SHOP,
    SHOP_STORE_ID: _SHOP
    | {"intent_index", "page_type", "cart_size", "applied", "effect", "note", "order_total"},
}
"""The ``info`` keys a player may see, per env id: what the env documents for acting (action
names, the instruction, why an action failed, the step count) and the scoring of the player's own
reply. Left out, so never sent: the logged human's action and rationale (``truth``,
``truth_rationale``: copying them back earns full reward), the formal goal and its per-condition
flags (``goal``, ``goal_flags``, ``cgc``, ``cgc_open``), the program, task and logged expert
behind an episode (``program``, ``task_id``, ``task_name``, ``logged_action*``, ``expert``,
``action_matches``, ``instances``). A key not listed is private, so a new one stays off the wire
until it is documented here."""


def make_text_env(env_id: str, reward: str | None = None, **kwargs: Any) -> gym.Env[Any, Any]:
    """``gym.make(env_id, **kwargs)`` for a rewardgym id, wrapped in the reward named ``reward``.

    ``reward`` is ``None`` (the env's own reward) or one of :data:`REWARD_NAMES`.

    Example:
        >>> env = make_text_env("rewardgym/ShopSession-v0", reward="shop-r1/no-dars")
        >>> env.get_wrapper_attr("config").dars
        1.0
    """
    if reward is not None and reward not in REWARD_NAMES:
        raise UserError(
            f"--reward {brief(reward)} is not a reward rewardgym registers; use one of "
            f"{', '.join(REWARD_NAMES)}"
        )
    if reward is not None and env_id not in SHOP_IDS:
        raise UserError(
            f"--reward {reward} scores a shopper against the logged human action, which only "
            f"{' and '.join(SHOP_IDS)} provide; serve {brief(env_id)} with its own reward"
        )
    env = make_registered(env_id, source="ENV_ID", **kwargs)
    if reward is None:
        return env
    name = reward.partition("/")[2] or "full"
    return ShopR1Reward(env, config=reward_config(name))


def action_names(env: gym.Env[Any, Any]) -> list[str]:
    """The names of a ``Discrete`` env's actions (its ``action_names``), or ``[]`` when it has none."""
    try:
        names = env.get_wrapper_attr("action_names")
    except AttributeError:
        return []
    return [str(name) for name in names]


def text_action(env: gym.Env[Any, Any], text: object) -> Any:
    """The env's action for ``text``: itself for a text env, an index for a ``Discrete`` one.

    Raises :class:`BadAction` for text that names no action (a ``Discrete`` env) or a value that
    is not a string.
    """
    if not isinstance(text, str):
        raise BadAction(f"action {brief(text)} is not text: send the action as a string")
    space = env.action_space
    if not isinstance(space, gym.spaces.Discrete):
        return text
    n = int(space.n)
    wanted = text.strip()
    if INDEX.fullmatch(wanted):
        if len(wanted) <= 18 and int(wanted) < n:
            return int(wanted)
        raise BadAction(f"action {brief(text)} is out of range: use an index in 0..{n - 1}")
    names = action_names(env)
    lowered = [name.lower() for name in names]
    if wanted.lower() in lowered:
        return lowered.index(wanted.lower())
    shown = ", ".join(repr(name) for name in names[:5])
    more = f" ... ({len(names)} in all)" if len(names) > 5 else ""
    raise BadAction(
        f"action {brief(text)} is neither an index in 0..{n - 1} nor an action name ({shown}{more})"
    )


def public_info(env_id: str, info: Mapping[str, Any]) -> dict[str, Any]:
    """``info`` as JSON with only the keys :data:`PUBLIC_INFO` lists for ``env_id`` (none if unlisted).

    Example:
        >>> public_info("rewardgym/ShopStore-v0", {"step": 0, "truth": {"type": "terminate"}})
        {'step': 0}
    """
    shown = PUBLIC_INFO.get(env_id, frozenset())
    return json_safe({key: value for key, value in info.items() if key in shown})


def observation_text(obs: object) -> str:
    """The text of an observation: itself, its ``text`` field, its ``context`` field, or its JSON."""
    if isinstance(obs, str):
        return obs
    if isinstance(obs, Mapping):
        for key in ("text", "context"):
            if isinstance(obs.get(key), str):
                return str(obs[key])
    return json.dumps(json_safe(obs), sort_keys=True)


def json_safe(value: Any) -> Any:
    """``value`` as plain JSON data: dicts with string keys, lists, str, int, finite float, bool, None.

    Example:
        >>> json_safe({"a": np.arange(2), "b": np.float32(0.5), "c": float("nan"), 3: (1,)})
        {'a': [0, 1], 'b': 0.5, 'c': None, '3': [1]}
    """
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, np.generic):
        return json_safe(value.item())
    if isinstance(value, np.ndarray):
        return json_safe(value.tolist())
    if isinstance(value, Mapping):
        return {str(key): json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [json_safe(item) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return json_safe(dataclasses.asdict(value))
    return str(value)


__all__ = [
    "INDEX",
    "PUBLIC_INFO",
    "REWARD_NAMES",
    "SHOP_IDS",
    "BadAction",
    "action_names",
    "json_safe",
    "make_text_env",
    "observation_text",
    "public_info",
    "text_action",
]
