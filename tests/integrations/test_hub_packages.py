"""Each Environments Hub package builds a wheel offline, and its entry module exports the v1 taskset and ``load_environment``."""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
import verifiers.v1 as vf
from verifiers.v1.utils.loaders import environment_class, taskset_class, taskset_config_type

ROOT = Path(__file__).resolve().parents[2]
HUB = ROOT / "environments"
PACKAGES = sorted(path.parent.name for path in HUB.glob("*/pyproject.toml"))
BUILD_TIMEOUT_S = 180
"""Seconds one offline wheel build may take (a shared 2-core machine)."""


def test_every_taskset_has_a_hub_package() -> None:
    plugins = {path.stem for path in (ROOT / "plugins").glob("rewardgym_*.py")}
    assert set(PACKAGES) == plugins and len(PACKAGES) == 4


@pytest.mark.parametrize("folder", PACKAGES)
def test_the_package_builds_offline_and_its_entry_loads(folder: str, tmp_path: Path) -> None:
    source = tmp_path / folder  # a copy: the build writes its egg-info beside the sources
    shutil.copytree(HUB / folder, source)
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
               "--no-index", "-w", str(tmp_path / "dist"), str(source)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    [wheel] = (tmp_path / "dist").glob("*.whl")
    taskset_id = folder.replace("_", "-")
    assert wheel.name == f"{folder}-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        metadata = Parser().parsestr(archive.read(f"{folder}-0.1.0.dist-info/METADATA").decode())
    assert metadata["Name"] == taskset_id
    requires = metadata.get_all("Requires-Dist")
    assert "rewardgym[verifiers]==0.1.0" in requires and "verifiers==0.4.0" in requires
    assert metadata["Keywords"] and metadata["Summary"]

    project = tomllib.loads((HUB / folder / "pyproject.toml").read_text())
    defaults = project["tool"]["verifiers"]["eval"]
    assert defaults["num_examples"] > 0 and defaults["rollouts_per_example"] >= 1
    config = taskset_config_type(taskset_id).model_validate(
        {"id": taskset_id, **defaults["env_args"]}
    )
    assert config.model_dump(include=set(defaults["env_args"])) == defaults["env_args"]

    entry = importlib.import_module(folder)
    assert {"load_environment", taskset_class(taskset_id).__name__} <= set(entry.__all__)
    env = entry.load_environment(**small_args(taskset_id))
    assert isinstance(env, vf.Env) and type(env) is environment_class(taskset_id)
    assert env.config.taskset.id == taskset_id
    [first, *_] = list(env.taskset)
    assert first.data.prompt
    config = {"taskset": {"id": taskset_id, **small_args(taskset_id)}}
    assert entry.load_environment(config).config.taskset == env.config.taskset
    with pytest.raises(TypeError, match="not both"):
        entry.load_environment(config, **small_args(taskset_id))


def small_args(taskset_id: str) -> dict[str, object]:
    """The fewest tasks of ``taskset_id``."""
    return {
        "rewardgym-shop": {"sessions": 1, "max_context_chars": 200},
        "rewardgym-store": {"visits": 1},
        "rewardgym-household": {"episodes": 1},
        "rewardgym-virtualhome": {"episodes": 1, "split": "test"},
    }[taskset_id]
