"""Relabelling end to end: a new data set, an untouched input, resumption, the orchestrator, the CLI."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from rewardgym.embeddings import hashing_embedder
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset
from rewardgym.wrappers.coren import CorenConfig, Orchestrator
from rewardgym.wrappers.coren.labelling import LabelConfig, label_ablations, label_dataset
from rewardgym.wrappers.judges import EmbeddingJudge, JudgeRequest

FAST = CorenConfig(epochs=30, batch_size=32)
NO_MINARI = LabelConfig(coren=FAST, minari=False)


@pytest.fixture(scope="module")
def dataset_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small perturbed-expert Household data set on disk."""
    out = tmp_path_factory.mktemp("coren") / "household"
    collect_dataset(CollectConfig(episodes=24, seed=3)).save(out, minari=False)
    return out


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


class FlakyJudge(EmbeddingJudge):
    """An embedding judge that counts answered calls and dies once ``limit`` would be passed."""

    def __init__(self, limit: int | None = None) -> None:
        super().__init__(hashing_embedder())
        self.limit = limit
        self.answered = 0

    def _complete(self, requests: Sequence[JudgeRequest]) -> list[str | None]:
        if self.limit is not None and self.answered + len(requests) > self.limit:
            raise KeyboardInterrupt("injected kill")
        self.answered += len(requests)
        return super()._complete(requests)


def test_label_writes_a_new_dataset_and_never_touches_the_input(
    dataset_dir: Path, tmp_path: Path
) -> None:
    before = _digest(dataset_dir)
    report = label_dataset(
        dataset_dir, tmp_path / "out", LabelConfig(coren=FAST), judge=FlakyJudge(), progress=False
    )
    assert _digest(dataset_dir) == before
    source = TrajectoryDataset.from_dir(dataset_dir)
    labelled = TrajectoryDataset.from_dir(tmp_path / "out")
    assert len(labelled) == len(source) and labelled.n_steps == source.n_steps
    for a, b in zip(source, labelled, strict=True):
        assert np.array_equal(a.actions, b.actions) and a.success == b.success
    dense = np.concatenate([ep.dense_rewards for ep in labelled])
    assert len(np.unique(dense)) > 3 and np.all(np.abs(dense) <= 2.0)
    assert labelled.info["dense_reward_source"] == "coren:CST"
    assert report.judge_calls > 0 and report.requests > report.judge_calls  # de-duplicated
    assert report.abstentions == {"rate": 0, "structural": 0, "temporal": 0}
    assert (tmp_path / "out" / "coren" / "orchestrator.pt").exists()
    assert (tmp_path / "out" / "data").exists()  # the Minari copy
    with pytest.raises(ValueError, match="never modifies its input"):
        label_dataset(dataset_dir, dataset_dir / "inside", NO_MINARI, judge=FlakyJudge())


def test_a_killed_run_resumes_without_repeating_a_judge_call(
    dataset_dir: Path, tmp_path: Path
) -> None:
    fresh = FlakyJudge()
    label_dataset(dataset_dir, tmp_path / "fresh", NO_MINARI, judge=fresh, progress=False)
    killed = FlakyJudge(limit=fresh.answered // 2)
    with pytest.raises(KeyboardInterrupt):
        label_dataset(dataset_dir, tmp_path / "run", NO_MINARI, judge=killed, progress=False)
    assert 0 < killed.answered < fresh.answered
    resumed = FlakyJudge()
    report = label_dataset(dataset_dir, tmp_path / "run", NO_MINARI, judge=resumed, progress=False)
    assert killed.answered + resumed.answered == fresh.answered
    assert report.cache_hits > 0
    a = TrajectoryDataset.from_dir(tmp_path / "fresh")
    b = TrajectoryDataset.from_dir(tmp_path / "run")
    assert all(np.allclose(x.dense_rewards, y.dense_rewards) for x, y in zip(a, b, strict=True))
    again = FlakyJudge()
    overwrite = replace(NO_MINARI, overwrite=True)
    label_dataset(dataset_dir, tmp_path / "run", overwrite, judge=again, progress=False)
    assert again.answered == 0


def test_orchestrator_training_lowers_its_loss_and_round_trips(
    dataset_dir: Path, tmp_path: Path
) -> None:
    config = CorenConfig(epochs=60, batch_size=64)
    report = label_dataset(
        dataset_dir,
        tmp_path / "o",
        LabelConfig(coren=config, minari=False),
        judge=FlakyJudge(),
        progress=False,
    )
    assert report.final_loss is not None and report.initial_loss is not None
    assert report.final_loss < report.initial_loss
    embedder = hashing_embedder()
    model = Orchestrator.load(tmp_path / "o" / "coren" / "orchestrator.pt", embedder)
    assert model.spec.terms == ("C", "S", "T") and model.spec.gamma == 0.99
    from rewardgym.wrappers.coren.grounding import episode_transitions
    from rewardgym.wrappers.coren.orchestrator import step_inputs

    data = TrajectoryDataset.from_dir(dataset_dir)
    inputs = step_inputs(episode_transitions(data[0], data.action_names, data.env_id))
    weights = model.weights(inputs)
    assert weights.shape == (len(data[0]), 3) and np.allclose(weights.sum(axis=1), 1.0)


def test_label_ablations_asks_the_judge_once_for_every_scheme(
    dataset_dir: Path, tmp_path: Path
) -> None:
    judge = FlakyJudge()
    reports = label_ablations(
        dataset_dir,
        tmp_path / "abl",
        ["C", "ST", "average", "single"],
        NO_MINARI,
        judge=judge,
        progress=False,
    )
    assert set(reports) == {"C", "ST", "average", "single"}
    rewards = {
        name: np.concatenate(
            [ep.dense_rewards for ep in TrajectoryDataset.from_dir(tmp_path / "abl" / name)]
        )
        for name in reports
    }
    assert not np.allclose(rewards["C"], rewards["single"])
    assert reports["ST"].final_loss is not None and reports["C"].final_loss is None


def test_cli_label_coren(
    dataset_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rewardgym.cli import main

    main(
        [
            "label",
            "coren",
            "--dataset",
            str(dataset_dir),
            "--out",
            str(tmp_path / "cli"),
            "--judge",
            "embedding:hashing",
            "--epochs",
            "5",
            "--ablation",
            "CS",
            "--no-minari",
        ]
    )
    output = " ".join(capsys.readouterr().out.split())
    assert "judge calls" in output and "correlation" in output
    assert "judge embedding:hashing: expert's next action rated +2" in output
    report = json.loads((tmp_path / "cli" / "coren" / "report.json").read_text())
    row = report["judges"]["embedding:hashing"]
    assert 0.0 <= row["nonexec_minus2"] <= 1.0 and row["probe_states"] > 0
    assert TrajectoryDataset.from_dir(tmp_path / "cli").info["dense_reward_source"] == "coren:CS"
    with pytest.raises(SystemExit, match="ablation"):
        main(
            [
                "label",
                "coren",
                "--dataset",
                str(dataset_dir),
                "--out",
                str(tmp_path / "x"),
                "--ablation",
                "Q",
            ]
        )
