"""The one gate between an env id that a file or a command line names and ``gym.make``.

``gym.make("pkg.mod:Env-v0")`` imports ``pkg.mod`` before it looks the id up, and an id that
someone registered with an entry point outside rewardgym imports that module: either runs code
chosen by whoever wrote the id. A data set's ``rewardgym_dataset.json``, a saved agent's
``agent.json`` and every command-line ``--env`` therefore pass through :func:`check_registered`
(or :func:`make_registered`), which accepts only ids that rewardgym itself registers: namespace
``rewardgym/``, present in Gymnasium's registry, entry point inside the ``rewardgym`` package.
Code that passes an id of its own to ``gym.make`` directly is unaffected.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from gymnasium.envs.registration import registry

from rewardgym.envs import rewardgym_ids


def is_rewardgym_id(env_id: object) -> bool:
    """Whether ``env_id`` names an environment that rewardgym registered (no module import in it).

    Example:
        >>> is_rewardgym_id("rewardgym/Household-v1"), is_rewardgym_id("evil_mod:Env-v0")
        (True, False)
    """
    if not isinstance(env_id, str) or ":" in env_id or not env_id.startswith("rewardgym/"):
        return False
    spec = registry.get(env_id)
    entry = spec.entry_point if spec is not None else None
    return isinstance(entry, str) and entry.startswith("rewardgym.")


def check_registered(env_id: object, *, source: str) -> str:
    """``env_id`` when rewardgym registered it; otherwise a one-line ``ValueError`` naming ``source``.

    ``source`` says where the id came from (a file path, ``--env``), so that the message tells
    the user which file or option to fix. Nothing is imported or made here.

    Example:
        >>> check_registered("evil_mod:Env", source="data/rewardgym_dataset.json")
        Traceback (most recent call last):
        ...
        ValueError: data/rewardgym_dataset.json: env id 'evil_mod:Env' is not an environment rewardgym registers, ...
    """
    if is_rewardgym_id(env_id):
        return str(env_id)
    raise ValueError(
        f"{source}: env id {env_id!r} is not an environment rewardgym registers, and an id "
        "read from a file or a command line is never imported as code; use one of: "
        + ", ".join(env for env in rewardgym_ids() if is_rewardgym_id(env))
    )


def make_registered(env_id: object, *, source: str, **kwargs: Any) -> gym.Env[Any, Any]:
    """``gym.make(env_id, **kwargs)`` for an id that :func:`check_registered` accepts."""
    return gym.make(check_registered(env_id, source=source), **kwargs)


__all__ = ["check_registered", "is_rewardgym_id", "make_registered"]
