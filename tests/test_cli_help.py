"""``rewardgym COMMAND --help`` speaks to people, and a command's output reads well in a log.

Issue 23, items 4 and 5: no internal words (tyro, dataclass, RST double backticks, tyro's
``{None}`` metavar, an empty ``(default: )``); every closed set lists its choices, taken here
from the code that checks them; a sentence is never broken where its source line ended; and
with stdout redirected, a line is not hard-wrapped at 80 columns.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from rewardgym.agents.simulation.policies import BASELINE_NAMES
from rewardgym.benchmarks.embodied.config import ALGORITHMS, REWARDS
from rewardgym.benchmarks.embodied.config import PRESETS as EMBODIED_PRESETS
from rewardgym.benchmarks.fidelity.config import PRESETS as FIDELITY_PRESETS
from rewardgym.benchmarks.shop.config import PRESETS as SHOP_PRESETS
from rewardgym.benchmarks.shop.rows import BASELINES, methods
from rewardgym.cli import COMMANDS, main
from rewardgym.envs.shopping.synthetic.variants import VARIANT_NAMES
from rewardgym.envs.trajectories.config import EXPERT_MODES, RANDOM_ACTION_MODES
from rewardgym.wrappers.coren.config import ABLATIONS
from rewardgym.wrappers.judges.factory import JUDGE_SPECS
from rewardgym.wrappers.shop_r1 import REWARDS as SHOP_R1_REWARDS

SHOP_ROWS = [*BASELINES, *(m.method for m in methods(SHOP_PRESETS["quick"]))]
# Every closed set an option takes: (command, option, the choices its help must name).
CLOSED_SETS: list[tuple[str, str, tuple[str, ...]]] = [
    ("data collect", "--random-actions", RANDOM_ACTION_MODES),
    ("data collect", "--expert", EXPERT_MODES),
    ("label coren", "--judge", JUDGE_SPECS),
    ("label coren", "--ablation", ABLATIONS),
    ("label coren", "--candidates", ("grounded", "all")),
    ("bench shop", "--preset", tuple(SHOP_PRESETS)),
    ("bench shop", "--only", tuple(r for r in SHOP_ROWS if "/temp-" not in r)),
    ("bench shop", "--protocol", ("natural", "paper")),
    ("bench embodied", "--preset", tuple(EMBODIED_PRESETS)),
    ("bench embodied", "--mode", ("final", "tune")),
    ("bench embodied", "--judge", JUDGE_SPECS),
    ("bench embodied", "--quality-judges", JUDGE_SPECS),
    ("bench embodied", "--rows", ALGORITHMS + tuple(r for r in REWARDS if len(r) > 2)),
    ("bench fidelity", "--preset", tuple(FIDELITY_PRESETS)),
    ("bench fidelity", "--baselines", BASELINE_NAMES),
    ("bench fidelity", "--variants", VARIANT_NAMES),
    ("bench fidelity", "--shop-rows", ("zero-shot", "sft", "shop-r1")),
    ("simulate ab", "--policy", ("shopper:K", *BASELINE_NAMES, "model folder")),
    ("simulate ab", "--store-b", VARIANT_NAMES),
    ("train grpo", "--reward", tuple(SHOP_R1_REWARDS)),
]


def _help(command: str, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as stop:
        main([*command.split(), "--help"])
    assert stop.value.code in (0, None)
    return capsys.readouterr().out


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "240")  # few wraps, so a name is never cut at its hyphen


@pytest.mark.parametrize("command", [" ".join(words) for words in COMMANDS])
def test_help_has_no_internal_words(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(command, capsys)
    for word in ("tyro", "dataclass", "``", "{None}", "(default: )"):
        assert word not in text, f"rewardgym {command} --help shows {word!r}"


def _option_help(text: str, option: str) -> str:
    """The help of ``option``: its line and the indented lines below, box borders removed."""
    lines = [line.strip("│ ").rstrip() for line in text.splitlines()]
    start = next(i for i, line in enumerate(lines) if re.match(rf"{re.escape(option)}\b", line))
    block = [lines[start]]
    for line in lines[start + 1 :]:
        if line.startswith("-") or line.startswith(("╰", "╭")):
            break
        block.append(line)
    return " ".join(" ".join(block).split())


@pytest.mark.parametrize(
    ("command", "option", "choices"), CLOSED_SETS, ids=[f"{c}:{o}" for c, o, _ in CLOSED_SETS]
)
def test_closed_sets_list_their_choices(
    command: str, option: str, choices: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    block = _option_help(_help(command, capsys), option)
    missing = [c for c in choices if c not in block]
    assert not missing, f"rewardgym {command} {option}: help names none of {missing}: {block}"


def test_a_sentence_runs_on_where_its_source_line_ended(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """tyro keeps a break before every indented continuation line of a field docstring."""
    block = _option_help(_help("data collect", capsys), "--random-actions")
    raw = _help("data collect", capsys)
    assert "execute now, if the env can list them" in block
    assert "if\n" not in raw.replace("│", "").replace(" ", "")


def test_output_is_not_hard_wrapped_when_not_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redirected output (here: captured) keeps each long line whole; COLUMNS is restored."""
    monkeypatch.delenv("COLUMNS")
    out = tmp_path / ("a-long-directory-name-so-the-summary-line-passes-80-columns" * 2)
    main(["data", "collect", "--out", str(out), "--episodes", "2", "--no-minari"])
    printed = capsys.readouterr().out.splitlines()
    summary = next(line for line in printed if line.startswith("collected 2 episodes"))
    assert len(summary) > 80 and str(out) in summary and summary.endswith("s)")
    assert "COLUMNS" not in os.environ


SUITES = ("bench shop", "bench embodied", "bench fidelity", "demo")


@pytest.mark.parametrize("command", SUITES)
def test_help_promises_no_time_it_has_not_recorded(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 24.12: a preset's time is read from its recorded run, never promised in --help."""
    text = " ".join(_help(command, capsys).replace("│", " ").split())
    promise = re.search(r"(<=|≤|within|fits|about|a few)\s*\d*\s*(minutes?|min)\b", text)
    assert promise is None, f"rewardgym {command} --help promises {promise.group(0)!r}"


def test_the_overview_says_what_demo_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 39: demo runs three suites (shop, embodied, the live store's fidelity) at their demo presets."""
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.strip().startswith("demo "))
    for word in ("shop", "embodied", "fidelity", "demo presets"):
        assert word in line, f"{word!r} missing from: {line}"
    assert "both suites" not in line and "quick" not in line
