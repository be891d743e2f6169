"""Test-wide set-up: a private cache root, and one torch thread per ``pytest -n`` worker.

``make test`` runs the suite on two xdist workers with ``--dist loadfile`` (a file's tests, and
so its module-scoped fixtures, stay on one worker); each worker uses one torch thread, so two
workers do not fight over two cores.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # read by torch when it is first imported


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
