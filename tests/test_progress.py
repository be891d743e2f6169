"""A progress bar written to a log (not a terminal) is a few whole lines; on a terminal it redraws."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tqdm.std

import rewardgym.progress
from rewardgym.progress import LOG_INTERVAL_S, progress_bar

ROOT = Path(__file__).resolve().parents[1]
STEPS = 600
"""Updates of the bar, one simulated second apart: ten minutes of a run."""


class Terminal(io.StringIO):
    """A stream that says it is an interactive terminal."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """tqdm's clock, advanced by hand (no test waits for a bar's interval)."""
    now = [1000.0]
    monkeypatch.setattr(tqdm.std, "time", lambda: now[0])
    monkeypatch.setattr(rewardgym.progress, "_clock", lambda: now[0])
    return now


def redraws(stream: io.StringIO, clock: list[float], **kwargs: object) -> list[str]:
    """Run a bar over :data:`STEPS` updates a second apart; the non-empty states it drew."""
    with progress_bar(
        total=STEPS, desc="train", file=stream, postfix="loss=5.807", **kwargs
    ) as bar:
        for _ in range(STEPS):
            clock[0] += 1.0
            bar.update()
    return [line for line in re.split(r"[\r\n]", stream.getvalue()) if line.strip()]


def test_a_bar_in_a_log_writes_a_bounded_number_of_short_lines(
    clock: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # what the CLI sets off a terminal, for its tables
    monkeypatch.delenv("TQDM_MININTERVAL", raising=False)
    log = io.StringIO()
    lines = redraws(log, clock, leave=False)  # a bar that would vanish on a terminal
    assert len(lines) <= 2 + STEPS / LOG_INTERVAL_S + 1, lines  # start, every 30 s, end
    assert log.getvalue() == "".join(f"{line}\n" for line in lines)  # whole lines, no \r
    assert lines[0].startswith("train:   0%") and lines[-1].startswith("train: 100%")
    assert lines[-1].endswith("loss=5.807]")  # nothing cut off
    assert all(len(line) < 100 for line in lines), max(lines, key=len)  # not COLUMNS wide
    assert all(line.isascii() for line in lines)


def test_a_bar_on_a_terminal_still_redraws_in_place(clock: list[float]) -> None:
    lines = redraws(Terminal(), clock)
    assert len(lines) > STEPS / 2  # tqdm's own pace: at least every 0.1 s of work


def test_a_bar_redrawn_at_every_step_still_writes_a_line_per_interval(clock: list[float]) -> None:
    """d3rlpy's bar calls set_postfix every 10 steps, which redraws whatever mininterval says."""
    log = io.StringIO()
    with progress_bar(total=STEPS, desc="Epoch 1/1", file=log) as bar:
        for step in range(STEPS):
            clock[0] += 1.0
            bar.update()
            bar.set_postfix({"loss": 1.0 / (step + 1)})
    lines = log.getvalue().splitlines()
    assert len(lines) <= 2 + STEPS / LOG_INTERVAL_S + 1, lines
    assert lines[-1].startswith("Epoch 1/1: 100%") and "loss=0.00167" in lines[-1]


def test_an_explicit_setting_and_the_environment_win(
    clock: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(redraws(io.StringIO(), clock, mininterval=0)) > STEPS / 2
    monkeypatch.setenv("TQDM_MININTERVAL", "0")
    assert len(redraws(io.StringIO(), clock)) > STEPS / 2


def test_every_bar_of_the_package_opens_through_the_helper() -> None:
    direct = re.compile(r"^\s*(?:from tqdm\b|import tqdm\b)", flags=re.MULTILINE)
    offenders = [
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("*.py")
        if not {".venv", "tests", "build"} & set(path.relative_to(ROOT).parts)
        and path.name != "progress.py"
        and direct.search(path.read_text(encoding="utf-8"))
    ]
    assert not offenders, (
        f"{offenders} import tqdm directly: use rewardgym.progress.progress_bar, which keeps "
        "a bar short in a log"
    )


def test_loading_the_sentence_encoder_draws_no_bar_of_its_own(tmp_path: Path) -> None:
    """transformers' "Loading weights" bar stays out of a log (a fresh interpreter: its switch is global)."""
    script = "from rewardgym.embeddings import load_minilm_encoder; print(load_minilm_encoder()(['a']).shape)"
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "(1, 384)"
    assert "Loading weights" not in done.stderr and "\r" not in done.stderr, done.stderr[-500:]
