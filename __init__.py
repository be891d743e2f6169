"""rewardgym: Gymnasium environments and LLM-made reward wrappers for learning from logged behaviour."""

from __future__ import annotations

from rewardgym import envs as envs

__version__ = "0.1.0"

__all__ = ["__version__", "envs"]
