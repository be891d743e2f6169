"""The environment's typed client (OpenEnv's layout puts it here): rewardgym's own, re-exported."""

from rewardgym.integrations.openenv_client import RewardgymClient

__all__ = ["RewardgymClient"]
