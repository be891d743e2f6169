"""The cache root every rewardgym download and conversion lands under."""

from __future__ import annotations

import os
from pathlib import Path


def rewardgym_home() -> Path:
    """The cache root: ``$REWARDGYM_HOME`` or ``~/.cache/rewardgym``."""
    return Path(os.environ.get("REWARDGYM_HOME", Path.home() / ".cache" / "rewardgym"))


__all__ = ["rewardgym_home"]
