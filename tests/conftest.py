"""Test-wide set-up: a private cache root, so tests never read or write the user's cache."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session", autouse=True)
def _private_rewardgym_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    previous = os.environ.get("REWARDGYM_HOME")
    os.environ["REWARDGYM_HOME"] = str(tmp_path_factory.mktemp("rewardgym-home"))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    yield
    if previous is None:
        os.environ.pop("REWARDGYM_HOME", None)
    else:
        os.environ["REWARDGYM_HOME"] = previous
