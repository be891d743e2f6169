"""A typed OpenEnv client for ``rewardgym serve``: :class:`TextAction` in, :class:`TextObservation` out.

``openenv.GenericEnvClient`` speaks to any OpenEnv server in plain dicts; :class:`RewardgymClient`
is the same WebSocket session with rewardgym's action and observation types, as OpenEnv
environments ship their own client::

    async with RewardgymClient(base_url="http://127.0.0.1:8000") as client:
        result = await client.reset(seed=0)
        result = await client.step(TextAction(action="walk to kitchen"))
        result.observation.info["action_name"]
"""

from __future__ import annotations

from typing import Any

from openenv.core import EnvClient
from openenv.core.client_types import StepResult
from openenv.core.env_server.types import State

from rewardgym.integrations.openenv_server import TextAction, TextObservation


class RewardgymClient(EnvClient[TextAction, TextObservation, State]):
    """One session with a served rewardgym env, typed: ``step(TextAction(...))`` gives a :class:`TextObservation`."""

    def _step_payload(self, action: TextAction) -> dict[str, Any]:
        """The action as the server reads it (its ``action`` and any reply keys beside it)."""
        return action.model_dump(exclude={"metadata"})

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[TextObservation]:
        """The server's answer as a typed observation, with its reward and ``done``."""
        observation = TextObservation.model_validate(
            {
                **payload.get("observation", {}),
                "reward": payload.get("reward"),
                "done": payload.get("done", False),
            }
        )
        return StepResult(
            observation=observation, reward=payload.get("reward"), done=observation.done
        )

    def _parse_state(self, payload: dict[str, Any]) -> State:
        """The session's episode id and step count."""
        return State.model_validate(payload)


__all__ = ["RewardgymClient", "TextAction", "TextObservation"]
