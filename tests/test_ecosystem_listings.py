"""docs/ecosystems.md stays in step with the code: the Gymnasium badge names the pinned version, the entry the registered envs."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import gymnasium

import rewardgym

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "ecosystems.md").read_text(encoding="utf-8")


def test_the_gymnasium_badge_names_the_pinned_and_installed_version() -> None:
    [badge] = re.findall(r"img\.shields\.io/badge/Gymnasium-v([0-9.]+)-blue", PAGE)
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    [pin] = [d for d in dependencies if d.startswith("gymnasium")]
    assert pin == f"gymnasium=={badge}" and gymnasium.__version__ == badge


def test_the_gymnasium_entry_names_every_registered_family() -> None:
    entry = PAGE.split("```markdown", 1)[1].split("```", 1)[0]
    described = set(re.findall(r"`(rewardgym/[\w-]+)`", entry))
    registered = set(rewardgym.envs.rewardgym_ids())
    assert described <= registered
    families = {re.sub(r"-v\d+$", "", i.split("/")[1]) for i in registered}
    named = {re.sub(r"-v\d+$", "", i.split("/")[1]) for i in described}
    # The replay env serves the data sets, BabyAI's three text levels are named as a family.
    assert families - named == {"TrajectoryReplay", *(f for f in families if "BabyAI" in f)}
    assert "BabyAI text levels" in entry
