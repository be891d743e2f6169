"""``label coren`` checks its output before judging, writes it atomically, and stops on failure.

Issue 12, items 2 (a relative ``--out`` crashed after all the judging), 7 (a run whose calls
all failed wrote an all-zero data set and exited 0) and 8 (``--overwrite`` deleted a
non-rewardgym ``OUT/data``; without it the failure came after the Arrow files were written).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from rewardgym.embeddings import hashing_embedder
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset
from rewardgym.envs.trajectories.minari_io import load_minari
from rewardgym.wrappers.coren import CorenConfig
from rewardgym.wrappers.coren.labelling import (
    LabelConfig,
    LabellingError,
    LabelReport,
    default_cache_path,
    label_ablations,
    label_dataset,
)
from rewardgym.wrappers.judges import EmbeddingJudge, JudgeRequest

FAST = CorenConfig(n_prompts=2, epochs=5, batch_size=64)
OVERWRITE = LabelConfig(coren=FAST, overwrite=True)


class CountingJudge(EmbeddingJudge):
    """An embedding judge that counts answered requests; ``broken`` answers None to all."""

    def __init__(self, broken: bool = False) -> None:
        super().__init__(hashing_embedder())
        self.broken = broken
        self.answered = 0

    def _complete(self, requests: Sequence[JudgeRequest]) -> list[str | None]:
        self.answered += len(requests)
        return [None] * len(requests) if self.broken else super()._complete(requests)


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("label-out") / "in"
    collect_dataset(CollectConfig(episodes=4, seed=1)).save(out, minari=False)
    return out


def _label(
    source: Path,
    out: Path | str,
    judge: CountingJudge,
    *,
    minari: bool = True,
    overwrite: bool = False,
) -> LabelReport:
    config = LabelConfig(coren=FAST, minari=minari, overwrite=overwrite)
    return label_dataset(source, out, config, judge=judge, progress=False)


def test_overwrite_never_deletes_a_users_out_data(source: Path, tmp_path: Path) -> None:
    mine = tmp_path / "ne"
    (mine / "data").mkdir(parents=True)
    (mine / "data" / "mine.csv").write_text("k")
    for overwrite in (True, False):
        judge = CountingJudge()
        with pytest.raises(FileExistsError, match="no rewardgym command wrote"):
            _label(source, mine, judge, overwrite=overwrite)
        assert judge.answered == 0  # refused before the first judge call
    assert [p.relative_to(mine).as_posix() for p in sorted(mine.rglob("*"))] == [
        "data",
        "data/mine.csv",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ne"]


def test_an_unwritable_out_fails_before_judging(source: Path, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory")
    judge = CountingJudge()
    with pytest.raises(OSError):
        _label(source, tmp_path / "file" / "out", judge)
    assert judge.answered == 0


def test_a_relative_out_with_the_minari_copy(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    report = _label(source, "rel", CountingJudge(), minari=True)
    assert report.out == str(tmp_path / "rel")
    assert load_minari(tmp_path / "rel").total_episodes == 4


def test_a_run_whose_calls_all_fail_writes_nothing(source: Path, tmp_path: Path) -> None:
    judge = CountingJudge(broken=True)
    with pytest.raises(LabellingError, match=r"every one of the .* judge calls"):
        _label(source, tmp_path / "out", judge)
    assert judge.answered > 0 and list(tmp_path.iterdir()) == []


def test_the_cache_lives_outside_out_and_survives_overwrite(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = CountingJudge()
    report = _label(source, out, first)
    assert report.cache == str(default_cache_path(out))
    assert Path(report.cache).is_file() and out not in Path(report.cache).parents
    again = CountingJudge()
    _label(source, out, again, overwrite=True)
    assert first.answered > 0 and again.answered == 0
    assert TrajectoryDataset.from_dir(out).info["dense_reward_source"] == "coren:CST"


def test_ablations_check_every_output_first(source: Path, tmp_path: Path) -> None:
    root = tmp_path / "abl"
    (root / "ST").mkdir(parents=True)
    (root / "ST" / "mine.txt").write_text("k")
    judge = CountingJudge()
    with pytest.raises(FileExistsError):
        label_ablations(source, root, ["C", "ST"], OVERWRITE, judge=judge, progress=False)
    assert judge.answered == 0 and [p.name for p in root.iterdir()] == ["ST"]
    fresh = tmp_path / "fresh"
    label_ablations(
        source, fresh, ["C", "ST"], LabelConfig(coren=FAST), judge=CountingJudge(), progress=False
    )
    label_ablations(source, fresh, ["C", "ST"], OVERWRITE, judge=CountingJudge(), progress=False)
    assert {p.name for p in fresh.iterdir() if not p.name.startswith(".")} == {"C", "ST"}


def test_the_config_is_the_command_and_refuses_misplaced_openai_settings(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``label coren``'s options are ``LabelConfig``'s; openai settings need an openai judge."""
    from dataclasses import fields

    from rewardgym.cli import main
    from rewardgym.wrappers.coren.commands import LabelCoren
    from rewardgym.wrappers.judges.openai import OpenAIJudgeConfig

    assert [f.name for f in fields(LabelCoren)] == ["dataset", "out", "label"]
    with pytest.raises(ValueError, match="openai:URL judges, not 'embedding'"):
        LabelConfig(openai=OpenAIJudgeConfig(timeout_s=1.0))
    LabelConfig(judge="openai:http://127.0.0.1:9/v1", openai=OpenAIJudgeConfig(timeout_s=1.0))
    argv = ["label", "coren", "--dataset", str(source), "--out", str(tmp_path / "out")]
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--openai.timeout-s", "1"])
    assert stop.value.code == 2 and "openai:URL judges" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
