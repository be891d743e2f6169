"""deploy/rewardgym_env is an OpenEnv environment: ``openenv validate`` accepts it, its package builds, its app and typed client play an episode."""

from __future__ import annotations

import asyncio
import importlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from rewardgym.integrations.openenv_client import RewardgymClient
from rewardgym.integrations.openenv_server import TextAction, TextObservation, serving_in_thread
from rewardgym.integrations.text_env import make_text_env, observation_text

LAYOUT = Path(__file__).resolve().parents[2] / "deploy" / "rewardgym_env"


def test_openenv_validate_accepts_the_layout() -> None:
    openenv = Path(sys.executable).parent / "openenv"
    done = subprocess.run(
        [str(openenv), "validate", str(LAYOUT), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["passed"] is True, report
    manifest = yaml.safe_load((LAYOUT / "openenv.yaml").read_text())
    assert manifest["app"] == "server.app:app" and manifest["runtime"] == "fastapi"
    assert 'name = "rewardgym"' in (LAYOUT / "uv.lock").read_text()


def test_the_layouts_package_builds(tmp_path: Path) -> None:
    source = shutil.copytree(LAYOUT, tmp_path / "rewardgym_env")
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    command += ["-w", str(tmp_path / "dist"), str(source)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    [wheel] = (tmp_path / "dist").glob("openenv_rewardgym-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "rewardgym_env/server/app.py" in names and "rewardgym_env/client.py" in names
    dockerfile = (LAYOUT / "server" / "Dockerfile").read_text()
    assert "rewardgym-*.whl" in dockerfile and "[openenv]" in dockerfile


def test_the_layouts_app_and_typed_client_play_an_episode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REWARDGYM_ENV_ID", "rewardgym/Household-v1")
    monkeypatch.setenv("REWARDGYM_MAX_SESSIONS", "2")
    monkeypatch.syspath_prepend(str(LAYOUT))
    for name in ("server", "server.app"):  # another folder's `server` must not answer
        monkeypatch.delitem(sys.modules, name, raising=False)
    app = importlib.import_module("server.app").app

    async def play(url: str) -> list[TextObservation]:
        async with RewardgymClient(base_url=url) as client:
            first = await client.reset(seed=5)
            second = await client.step(TextAction(action="walk to kitchen"))
            third = await client.step(TextAction(action=4))
        return [first.observation, second.observation, third.observation]

    with serving_in_thread(app) as url:
        observations = asyncio.run(asyncio.wait_for(play(url), 30))
    for name in ("server", "server.app"):
        sys.modules.pop(name, None)
    env = make_text_env("rewardgym/Household-v1")
    assert observations[0].text == observation_text(env.reset(seed=5)[0])
    assert observations[1].info["action_name"] == "walk to kitchen"
    env.step(0)  # walk to kitchen
    assert observations[2].text == observation_text(env.step(4)[0])
    assert observations[2].reward == 0.0 and not observations[2].done
