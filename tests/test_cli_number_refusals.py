"""Issue 34 items 4, 5 and 7: a bad number or path is one line on stderr and exit status 2.

Each row is an invocation a hostile user types: non-finite or out-of-range numbers, seeds
below 0, ``--out`` inside ``--dataset``, ``--extra`` paths into values that are no config, a
damaged sweep. Every one is refused before the first piece of work: nothing is written to
``{new}``. Rows run through ``main([...])`` in this process, as the console script does.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from rewardgym.agents.offline import BCSettings, OfflineConfig, train_offline
from rewardgym.benchmarks.shop import breakdown, sweep
from rewardgym.cli import main
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset

LABEL = ["label", "coren", "--dataset", "{ds}", "--out", "{new}", "--no-minari"]
OPENAI = [*LABEL, "--judge", "openai:http://127.0.0.1:9/v1"]
COLLECT = ["data", "collect", "--out", "{new}", "--episodes", "2", "--no-minari"]
AB = ["simulate", "ab", "--out", "{new}", "--visits", "2"]
FIDELITY = ["bench", "fidelity", "--preset", "tiny", "--out", "{new}"]
SHOP = ["bench", "shop", "--preset", "tiny", "--out", "{new}"]
SWEEP = ["--out", "{new}"]
OFFLINE = ["train", "offline", "--dataset", "{ds}", "--out", "{new}"]
EVAL = ["eval", "household", "--agent", "{agent}", "--out", "{new}"]
SERVED = [*AB, "--policy", "openai:http://127.0.0.1:9/v1#m"]

# (row id, entry point, argv, words the one line must contain)
ROWS: list[tuple[str, Callable[[list[str]], None], list[str], tuple[str, ...]]] = [
    ("collect-max-steps-nan", main, [*COLLECT, "--env-kwargs", "max_steps", "nan"], ("nan",)),
    ("collect-max-steps-inf", main, [*COLLECT, "--env-kwargs", "max_steps", "inf"], ("inf",)),
    ("collect-max-steps-0", main, [*COLLECT, "--env-kwargs", "max_steps", "0"], (">= 1",)),
    ("collect-tasks-bad-list", main, [*COLLECT, "--env-kwargs", "tasks", "[1,"], ("JSON",)),
    ("collect-tasks-unknown", main, [*COLLECT, "--env-kwargs", "tasks", "[999]"], ("999",)),
    ("label-out-inside", main, [*LABEL[:-3], "--out", "{ds}/inner", "--no-minari"], ("inside",)),
    ("label-seed-negative", main, [*LABEL, "--seed", "-1"], ("seed=-1",)),
    ("label-qa-seed-negative", main, [*LABEL, "--qa-seed", "-1"], ("qa_seed=-1",)),
    ("label-concurrency-0", main, [*OPENAI, "--openai.concurrency", "0"], ("concurrency=0",)),
    ("label-timeout-nan", main, [*OPENAI, "--openai.timeout-s", "nan"], ("timeout_s=nan",)),
    ("ab-seed-negative", main, [*AB, "--seed", "-1"], ("seed=-1",)),
    ("ab-n-boot-0", main, [*AB, "--n-boot", "0"], ("n_boot=0",)),
    ("fidelity-seed-negative", main, [*FIDELITY, "--seed", "-1"], ("seed=-1",)),
    ("fidelity-noise-seed", main, [*FIDELITY, "--noise-seeds", "-1"], ("noise_seeds[0]=-1",)),
    ("fidelity-shop-epochs", main, [*FIDELITY, "--shop.sft.epochs", "-1"], ("epochs=-1",)),
    ("shop-epochs-negative", main, [*SHOP, "--sft.epochs", "-1"], ("epochs=-1",)),
    ("shop-hidden-0", main, [*SHOP, "--default-model.hidden-size", "0"], ("hidden_size=0",)),
    ("shop-heads-0", main, [*SHOP, "--default-model.num-heads", "0"], ("num_heads=0",)),
    ("shop-lr-nan", main, [*SHOP, "--sft.learning-rate", "nan"], ("learning_rate=nan",)),
    ("shop-temperature-nan", main, [*SHOP, "--sampling.temperature", "nan"], ("temperature",)),
    ("shop-new-tokens", main, [*SHOP, "--sampling.max-new-tokens", "-1"], ("max_new_tokens",)),
    ("shop-bootstrap-0", main, [*SHOP, "--bootstrap-samples", "0"], ("bootstrap_samples=0",)),
    ("sweep-validation-0", sweep.main, [*SWEEP, "--validation-sessions", "0"], ("sessions=0",)),
    ("sweep-bootstrap-0", sweep.main, [*SWEEP, "--bootstrap-samples", "0"], ("samples=0",)),
    ("sweep-temperature-nan", sweep.main, [*SWEEP, "--temperatures", "nan"], ("nan",)),
    (
        "sweep-extra-into-a-float",
        sweep.main,
        [*SWEEP, "--extra", "x:sft.learning_rate.deep=1"],
        ("'sft.learning_rate'", "float, not a config"),
    ),
    (
        "sweep-extra-no-field",
        sweep.main,
        [*SWEEP, "--extra", "x:sft.nope.deep=1"],
        ("'sft.nope'", "no field"),
    ),
    (
        "sweep-extra-bad-value-first",  # refused before the built-in candidates train
        sweep.main,
        [*SWEEP, "--extra", "x:sft.epochs=-1"],
        ("epochs=-1",),
    ),
    (
        "ab-pickled-model",  # never the weights_only=False that torch's own error suggests
        main,
        [*AB, "--policy", "{pickled}"],
        ("pickled weights only", "safe_serialization=True"),
    ),
    (
        "breakdown-damaged-sweep",
        breakdown.main,
        ["--sweep", "{damaged}", "--candidates", "base", "--out", "{new}"],
        ("sweep.json", "not a finished sweep"),
    ),
    # Issue 39 item 8: train offline and eval household, refused before --out is claimed.
    ("offline-n-steps-huge", main, [*OFFLINE, "--n-steps", "9" * 20], ("n_steps=", "1000000000")),
    ("offline-threads-huge", main, [*OFFLINE, "--threads", "100000"], ("threads=100000",)),
    ("offline-hidden-empty", main, [*OFFLINE, "--hidden-units"], ("hidden_units=[]",)),
    ("offline-hidden-huge", main, [*OFFLINE, "--hidden-units", "200000"], ("hidden_units[0]",)),
    ("offline-batch-huge", main, [*OFFLINE, "--batch-size", "10000000"], ("batch_size",)),
    ("offline-vocab-1", main, [*OFFLINE, "--vocab-size", "1"], ("vocab_size=1",)),
    ("offline-dense-unlabelled", main, [*OFFLINE, "--reward", "dense"], ("'dense'", "label")),
    ("eval-tasks-99", main, [*EVAL, "--tasks", "99"], ("tasks has 99", "0..24")),
    ("eval-tasks-none", main, [*EVAL, "--tasks"], ("tasks is empty",)),
    ("eval-samples-huge", main, [*EVAL, "--samples", "10000000000"], ("samples",)),
    ("eval-repeats-1000", main, [*EVAL, "--episodes-per-instruction", "1000"], ("1000",)),
    ("served-prompt-100", main, [*SERVED, "--served.max-prompt-tokens", "100"], ("=100",)),
    (
        "breakdown-temperature-nan",
        breakdown.main,
        ["--sweep", "{damaged}", "--candidates", "b", "--temperature", "nan", "--out", "{new}"],
        ("temperature=nan",),
    ),
]


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("numbers")
    collect_dataset(CollectConfig(episodes=2, seed=1)).save(root / "ds", minari=False)
    (root / "damaged").mkdir()
    (root / "damaged" / "sweep.json").write_text('{"rows": [{"candidate": "base"}]')
    (root / "pickled").mkdir()
    (root / "pickled" / "config.json").write_text('{"model_type": "qwen2"}')
    (root / "pickled" / "pytorch_model.bin").write_bytes(b"\x80\x04 a pickle")
    data = TrajectoryDataset.from_dir(root / "ds")
    config = OfflineConfig(algorithm=BCSettings(), n_steps=1, batch_size=4)
    train_offline(data, config, progress=False).save(root / "agent")
    return {k: str(root / k) for k in ("ds", "damaged", "pickled", "agent")}


@pytest.mark.parametrize(
    ("entry", "argv", "words"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS]
)
def test_a_bad_number_is_one_line_and_exit_2(
    entry: Callable[[list[str]], None],
    argv: list[str],
    words: tuple[str, ...],
    places: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    new = tmp_path / "new"
    with pytest.raises(SystemExit) as stop:
        entry([arg.format(new=new, **places) for arg in argv])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert stop.value.code == 2, err[-2000:]
    assert "Traceback" not in err
    assert len(lines) == 1, lines[:12]
    for word in words:
        assert word in lines[0], f"{word!r} missing from: {lines[0]}"
    assert "weights_only=False" not in lines[0]
    assert not new.exists()
    assert not Path(places["ds"], "inner").exists()


def test_a_damaged_candidate_result_names_its_file(tmp_path: Path) -> None:
    done = tmp_path / "result.json"
    done.write_text('{"signature": "x", "rows": [')
    with pytest.raises(ValueError, match=rf"{done} is damaged") as caught:
        sweep._kept_result(done)
    assert "\n" not in str(caught.value)


def test_collect_reads_a_json_list_of_tasks() -> None:
    config = CollectConfig(episodes=2, env_kwargs={"tasks": "[3, 7]"})
    assert config.env_kwargs["tasks"] == [3, 7]
    data = collect_dataset(config)
    assert {ep.task_id for ep in data.episodes} <= {3, 7}
    assert json.dumps(data.env_kwargs, allow_nan=False)
