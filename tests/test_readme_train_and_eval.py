"""The README's "Train and evaluate your own" block runs as written, in order, at its tiny budget.

Issue 30, item 3: every train and eval command runs from the README on a tiny budget.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from rewardgym.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"


def section_commands() -> list[list[str]]:
    """The ``rewardgym`` lines of the section's bash block, split like a shell would."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Train and evaluate your own", 1)[1].split("\n## ", 1)[0]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    return [shlex.split(line)[1:] for line in block.splitlines() if line.startswith("rewardgym ")]


def test_the_section_names_every_train_and_eval_command() -> None:
    named = {tuple(words[:2]) for words in section_commands()}
    assert {
        ("train", "offline"),
        ("train", "sft"),
        ("train", "grpo"),
        ("eval", "household"),
        ("eval", "shop"),
    } <= named


@pytest.mark.slow  # six commands, two of them train a small LLM: about a minute on 2 cores
def test_the_block_runs_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for words in section_commands():
        main(words)
    runs = tmp_path / "runs"
    scored = json.loads((runs / "bc-eval" / "eval.json").read_text())
    assert scored["algorithm"] == "DiscreteBC" and scored["splits"]["fine"]["n"] == 25
    shop = json.loads((runs / "sft-eval" / "eval.json").read_text())
    assert shop["split"] == "validation" and shop["sessions"] == 2
    assert len(shop["steps"]) == shop["metrics"]["n_steps"] > 0
    for model in ("sft", "rl"):
        assert (runs / model / "model" / "config.json").is_file()
        assert (runs / model / "config.json").is_file()
