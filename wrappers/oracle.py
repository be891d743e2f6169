"""``OracleProgressReward``: the oracle's goal-progress shaping, added online to the success flag."""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym

from rewardgym.wrappers.composition import RewardComposition, compose_rewards, potential_shaping


class OracleProgressReward(gym.Wrapper[Any, Any, Any, Any], gym.utils.RecordConstructorArgs):
    """Reward ``success + lambda * (gamma * phi(s') - phi(s))`` on ``rewardgym/Household-v1``.

    ``phi`` is the goal-predicate progress potential of
    ``rewardgym.envs.household.v1.oracle`` (it reads the simulator's state, so it is a
    reference, not a method), composed with the success flag by the same function that
    offline training uses (``rewardgym.wrappers.composition.compose_rewards``).

    Example:
        >>> import gymnasium as gym
        >>> import rewardgym
        >>> env = OracleProgressReward(gym.make("rewardgym/Household-v1"))
        >>> _ = env.reset(seed=0)
        >>> _, reward, *_, info = env.step(env.unwrapped.expert_script()[0])
        >>> sorted(info["reward_terms"]), reward == info["reward_terms"]["total"]
        (['dense', 'success', 'total'], True)
    """

    def __init__(
        self,
        env: gym.Env[Any, Any],
        composition: RewardComposition | None = None,
        gamma: float = 0.99,
    ) -> None:
        """Wrap a Household-v1 env; ``gamma`` is the learner's discount."""
        gym.utils.RecordConstructorArgs.__init__(self, composition=composition, gamma=gamma)
        gym.Wrapper.__init__(self, env)
        self.composition = composition or RewardComposition()
        self.gamma = gamma
        self._potential = 0.0

    def _phi(self) -> float:
        from rewardgym.envs.household.v1.oracle import state_potential

        return state_potential(self.env.unwrapped)  # type: ignore[arg-type]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the env and remember the first state's potential."""
        obs, info = self.env.reset(seed=seed, options=options)
        self._potential = self._phi()
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env and add the shaping of the step to its success reward."""
        obs, success, terminated, truncated, info = self.env.step(action)
        after = self._phi()
        dense = float(potential_shaping([self._potential, after], self.gamma)[0])
        self._potential = after
        total = float(compose_rewards(float(success), dense, self.composition))
        info["reward_terms"] = {"success": float(success), "dense": dense, "total": total}
        return obs, total, terminated, truncated, info


__all__ = ["OracleProgressReward"]
