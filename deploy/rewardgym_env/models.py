"""The environment's action and observation types (OpenEnv's layout puts them here): rewardgym's own."""

from rewardgym.integrations.openenv_server import TextAction, TextObservation

__all__ = ["TextAction", "TextObservation"]
