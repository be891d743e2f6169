"""``label coren`` reports the judge's cold cost apart from the cache (issue 24, item 10).

The old cost line divided the whole judging time by the steps, so the same 50 episodes read
91.7 s per 1,000 steps cold, 5.2 s with the embeddings cached and 10.9 s after a resume: it
measured the cache. Now the report holds the seconds spent inside the judge's backend, the
calls that reached it and their cost per 1,000 calls, beside the requests the cache answered.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardgym.cli import main
from rewardgym.envs.trajectories import CollectConfig, collect_dataset


def _label(source: Path, out: Path, cache: Path) -> dict[str, object]:
    args = ["label", "coren", "--dataset", str(source), "--out", str(out), "--no-minari"]
    args += ["--judge", "embedding:hashing", "--cache", str(cache), "--n-prompts", "2"]
    args += ["--epochs", "3", "--qa-pairs", "4", "--probe-states", "0"]
    main(args)
    report: dict[str, object] = json.loads((out / "coren" / "report.json").read_text())
    return report


def test_cold_cost_and_cache_hits_are_separate_fields(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in"
    collect_dataset(CollectConfig(episodes=2, seed=4)).save(source, minari=False)
    cache = tmp_path / "judge.sqlite"

    cold = _label(source, tmp_path / "first", cache)
    calls, seconds = cold["judge_calls"], cold["judge_call_seconds"]
    assert isinstance(calls, int) and isinstance(seconds, float) and calls > 0
    assert 0.0 < seconds <= float(cold["judge_seconds"])  # type: ignore[arg-type]
    assert cold["cold_seconds_per_1k_calls"] == pytest.approx(seconds / calls * 1000)
    first = capsys.readouterr().out
    assert "nan" not in first  # one held-out episode: its correlation reads n/a (why)
    assert f"cold cost {seconds / calls * 1000:.3g} s per 1,000 judge calls" in " ".join(
        first.split()
    )

    # The same requests again: the cache answers all of them, the judge is never called,
    # and the report says so instead of a cheaper-looking cost per step.
    warm = _label(source, tmp_path / "second", cache)
    assert warm["judge_calls"] == 0 and warm["judge_call_seconds"] == 0.0
    assert warm["cold_seconds_per_1k_calls"] is None
    assert warm["cache_hits"] == calls + cold["cache_hits"]  # type: ignore[operator]
    second = " ".join(capsys.readouterr().out.split())
    assert "cold cost n/a: the cache answered every request" in second and "nan" not in second
