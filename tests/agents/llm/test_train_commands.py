"""``rewardgym train sft`` / ``train grpo``: options build the library's configs, outputs are guarded, models load.

Issue 30, item 3: a user with session logs trains the LLM shopper policy without writing Python.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from rewardgym.agents.llm.commands import (
    CONFIG_FILE,
    GRPO_KIND,
    RUN_FILE,
    SFT_KIND,
    SessionOptions,
    TrainGRPO,
    TrainSFT,
    recorded_kind,
    start_over_unless,
)
from rewardgym.agents.llm.config import GRPORunConfig, ModelConfig, PromptConfig, SFTRunConfig
from rewardgym.agents.llm.grpo import ORDER_LOG
from rewardgym.agents.llm.model import load_model
from rewardgym.agents.llm.prompt import LOOKUP_LINE
from rewardgym.cli import build, main
from rewardgym.outputs import mark_output, owner

TINY_MODEL = [  # the tiny bench preset's default model
    *("--default-model.vocab-size", "1024", "--default-model.hidden-size", "32"),
    *("--default-model.num-layers", "1", "--default-model.num-heads", "2"),
    *("--default-model.num-kv-heads", "1", "--default-model.intermediate-size", "64"),
    *("--default-model.max-positions", "512", "--default-model.tokenizer-sessions", "30"),
]
SHORT = ["--max-prompt-tokens", "224", "--train-sessions", "6"]


@pytest.fixture(scope="module")
def sft_run(shop_store: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A ``train sft`` output at a tiny budget (the default model built at the tiny size), and what it said."""
    out = tmp_path_factory.mktemp("train-sft") / "run"
    argv = ["train", "sft", "--out", str(out), "--data", str(shop_store), *SHORT, *TINY_MODEL]
    argv += ["--max-examples", "16", "--epochs", "1", "--learning-rate", "1e-2"]
    argv += ["--max-completion-tokens", "24"]
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        main(argv)
    return out, said.getvalue()


def test_options_build_the_librarys_own_configs() -> None:
    sft = build(["train", "sft", "--out", "o"])
    assert isinstance(sft, TrainSFT) and sft.model is None
    assert sft.sft_config() == SFTRunConfig() and sft.prompt == PromptConfig()
    assert sft.default_model == ModelConfig() and sft.sessions == SessionOptions()
    argv = ["train", "sft", "--out", "o", "--epochs", "2", "--context", "latest", "--data", "d"]
    changed = build([*argv, "--default-model.hidden-size", "64", "--validation-fraction", "0"])
    assert changed.sft_config() == SFTRunConfig(epochs=2.0)
    assert changed.prompt == PromptConfig(context="latest")
    assert changed.default_model == ModelConfig(hidden_size=64)
    assert changed.sessions == SessionOptions(data="d", validation_fraction=0.0)
    grpo = build(["train", "grpo", "--model", "m", "--out", "o"])
    assert isinstance(grpo, TrainGRPO) and grpo.reward == "full"
    assert grpo.grpo_config() == GRPORunConfig() and grpo.prompt == PromptConfig()
    steps = build(["train", "grpo", "--model", "m", "--out", "o", "--steps", "3", "--beta", "0"])
    assert steps.grpo_config() == GRPORunConfig(steps=3, beta=0.0)
    named = build(["train", "grpo", "--model", "m", "--out", "o", "--reward", "no-dars"])
    assert named.reward == "no-dars"


def test_an_unknown_reward_exits_2_naming_the_registered_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stop:
        build(["train", "grpo", "--model", "m", "--out", "o", "--reward", "shop-r2"])
    said = capsys.readouterr().err
    assert stop.value.code == 2 and "'shop-r2'" in said
    assert all(name in said for name in ("full", "no-format", "no-dars", "kang", "binary"))


@pytest.mark.parametrize("command", ["sft", "grpo"])
def test_a_folder_of_the_users_is_refused_and_left_alone(command: str, tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    model = ["--model", str(tmp_path / "model")] if command == "grpo" else []
    for again in ([], ["--overwrite"]):
        with pytest.raises(SystemExit) as stop:
            main(["train", command, "--out", str(mine), *model, *again])
        assert stop.value.code == 2
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    assert (mine / "notes.txt").read_text() == "keep"


def test_train_sft_saves_a_model_that_loads(sft_run: tuple[Path, str]) -> None:
    out, said = sft_run
    found = re.search(r"SFT trained (\d+) steps on (\d+) examples in \d+ s", said)
    assert found and int(found[1]) == 2 and int(found[2]) == 16, said
    assert f"saved to {out / 'model'}" in said
    model, tokenizer = load_model(out / "model")
    assert model.config.hidden_size == 32 and len(tokenizer) <= 1024
    assert owner(out)["kind"] == SFT_KIND  # type: ignore[index]
    config = json.loads((out / "config.json").read_text())
    assert config["model_kind"] == "scratch" and config["start_model"] == str(out / "base")
    assert config["options"]["sft"]["max_examples"] == 16
    assert recorded_kind(out / "model") == "scratch"


def test_train_grpo_continues_a_train_sft_model(
    sft_run: tuple[Path, str], shop_store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start = sft_run[0] / "model"
    out = tmp_path / "grpo"
    argv = ["train", "grpo", "--model", str(start), "--out", str(out), "--data", str(shop_store)]
    argv += [*SHORT, "--reward", "binary", "--steps", "1", "--num-generations", "2"]
    argv += ["--prompts-per-step", "2", "--max-completion-tokens", "16", "--max-examples", "4"]
    argv += ["--learning-rate", "1e-3", "--save-steps", "100"]
    main(argv)
    said = capsys.readouterr().out
    assert "GRPO with the binary reward trained 1 steps on 4 prompts" in said, said
    assert owner(out)["kind"] == GRPO_KIND  # type: ignore[index]
    config = json.loads((out / "config.json").read_text())
    assert config["model_kind"] == "scratch" and config["options"]["reward"] == "binary"
    load_model(out / "model")


def _refused(argv: list[Any], capsys: pytest.CaptureFixture[str]) -> tuple[int | str | None, str]:
    """The ``SystemExit`` code of a ``rewardgym`` run that stops, and what it printed to stderr."""
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:
        main([str(a) for a in argv])
    return stop.value.code, capsys.readouterr().err


@pytest.mark.parametrize("command", ["train sft", "train grpo", "simulate ab"])
def test_a_model_folder_without_its_tokenizer_is_refused_in_one_line(
    command: str,
    tiny_model: Path,
    shop_store: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 39, item 1: SFT trained on an empty tokenizer; GRPO and simulate ab crashed."""
    folder = tmp_path / "model"
    shutil.copytree(tiny_model, folder)
    (folder / "tokenizer.json").unlink()
    out = tmp_path / "out"
    model = ["--policy" if command == "simulate ab" else "--model", folder]
    data = [] if command == "simulate ab" else ["--data", shop_store]
    code, said = _refused([*command.split(), *model, "--out", out, *data], capsys)
    assert code == 2 and len(said.strip().splitlines()) == 1, said
    assert "the tokenizer saved there is empty (it has no tokenizer.json)" in said
    assert not out.exists()


@pytest.mark.parametrize("command", ["sft", "grpo"])
@pytest.mark.parametrize("bad", ["--model", "--data"])
def test_a_bad_input_is_refused_before_out_is_claimed(
    command: str,
    bad: str,
    tiny_model: Path,
    shop_store: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 39, item 20: a refused run left a claimed --out that refused the rerun."""
    given = {"--model": tiny_model, "--data": shop_store, bad: tmp_path / "missing"}
    out = tmp_path / "out"
    argv = ["train", command, "--out", out, *(a for pair in given.items() for a in pair)]
    code, said = _refused(argv, capsys)
    assert code == 2 and "missing" in said, said
    assert not out.exists()


def test_a_failed_overwrite_keeps_the_model_and_its_record(
    sft_run: tuple[Path, str],
    tiny_model: Path,
    shop_store: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 39, items 19 and 5: config.json was rewritten for a failed run beside the old model,
    and a diverged SFT printed a false 0.000 loss and saved its NaN weights."""
    out = tmp_path / "run"
    shutil.copytree(sft_run[0], out)
    kept = [out / CONFIG_FILE, *sorted((out / "model").iterdir())]
    before = [p.read_bytes() for p in kept]
    again = ["train", "sft", "--out", out, "--overwrite", "--data", shop_store]
    code, said = _refused([*again, "--model", tmp_path / "missing"], capsys)
    assert code == 2 and "missing" in said, said
    diverging = [*again, "--model", tiny_model, "--model-kind", "scratch", *SHORT]
    diverging += ["--max-examples", "16", "--batch-size", "4", "--epochs", "1"]
    diverging += ["--learning-rate", "1e30", "--max-completion-tokens", "24"]
    line, _ = _refused(diverging, capsys)  # status 1: the line is the SystemExit's code
    assert isinstance(line, str) and re.search(r"train sft: .*(nan|inf)", line, re.I), line
    assert [p.read_bytes() for p in kept] == before
    assert sorted((out / "model").iterdir()) == kept[1:]


def test_train_grpo_overwrite_resumes_its_own_run_and_never_passes_steps(
    tiny_model: Path, shop_store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 39, items 3 and 4: a checkpoint cut off blocked every resume, and a finished run
    rerun with --overwrite trained a step past --steps each time."""
    out = tmp_path / "rl"
    argv = ["train", "grpo", "--model", str(tiny_model), "--out", str(out)]
    argv += ["--data", str(shop_store), *SHORT, "--reward", "binary", "--num-generations", "2"]
    argv += ["--prompts-per-step", "2", "--max-completion-tokens", "8", "--max-examples", "4"]
    argv += ["--save-steps", "1", "--steps", "2"]

    def run(*more: str) -> tuple[int, list[int]]:
        capsys.readouterr()
        main([*argv, *more])
        found = re.search(r"trained (\d+) steps", capsys.readouterr().out)
        assert found and json.loads((out / CONFIG_FILE).read_text())["options"]["grpo"]
        lines = (out / ORDER_LOG).read_text().splitlines()
        return int(found[1]), [json.loads(line)["step"] for line in lines]

    assert run() == (2, [0, 1])
    # Killed while checkpoint-2 was written: it has no trainer_state.json yet.
    (out / "trainer" / "checkpoint-2" / "trainer_state.json").unlink()
    assert run("--overwrite") == (2, [0, 1, 1])  # from checkpoint-1
    assert run("--overwrite") == (2, [0, 1, 1, 1])  # finished: checkpoint-1 again, not 2


def test_checkpoints_of_other_options_are_removed_before_a_run(tmp_path: Path) -> None:
    """Issue 39, item 4: ``train grpo --overwrite`` with other options resumed the old run."""
    trainer = tmp_path / "trainer"
    (trainer / "checkpoint-5").mkdir(parents=True)
    (trainer / RUN_FILE).write_text(json.dumps({"options": {"steps": 5}}))
    (tmp_path / ORDER_LOG).write_text('{"step": 0, "rows": []}\n')
    start_over_unless(tmp_path, {"options": {"steps": 3}})
    assert [p.name for p in tmp_path.iterdir()] == ["trainer"]
    assert [p.name for p in trainer.iterdir()] == [RUN_FILE]
    (trainer / "checkpoint-2").mkdir()
    start_over_unless(tmp_path, {"options": {"steps": 3}})  # the same run: its checkpoints stay
    assert sorted(p.name for p in trainer.iterdir()) == ["checkpoint-2", RUN_FILE]


GRPO_STEPS = [
    *("--reward", "binary", "--num-generations", "2", "--prompts-per-step", "2"),
    *("--max-completion-tokens", "8", "--max-examples", "4", "--save-steps", "1", "--steps", "2"),
]
"""Two tiny GRPO steps, each checkpointed."""


def test_train_grpo_overwrite_resumes_its_run_under_another_spelling_of_the_paths(
    tiny_model: Path,
    shop_store: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 49, item 5: --out runs/g, then --out $PWD/runs/g --overwrite, removed the first
    run's checkpoints (the record compared the paths as written)."""
    monkeypatch.chdir(tmp_path)
    relative = [os.path.relpath(p, tmp_path) for p in (tiny_model, shop_store)]
    main(["train", "grpo", "--model", relative[0], "--out", "runs/g", "--data", relative[1],
          *SHORT, *GRPO_STEPS])  # fmt: skip
    out = tmp_path / "runs" / "g"
    assert (out / "trainer" / "checkpoint-1").is_dir()
    main(["train", "grpo", "--model", str(tiny_model), "--out", str(out), "--data",
          str(shop_store), *SHORT, *GRPO_STEPS, "--overwrite"])  # fmt: skip
    steps = [json.loads(line)["step"] for line in (out / ORDER_LOG).read_text().splitlines()]
    assert steps == [0, 1, 1]  # resumed from checkpoint-1; a start over logs [0, 1] again
    assert "trained 2 steps" in capsys.readouterr().out


def test_every_input_is_checked_before_an_earlier_runs_checkpoints_go(
    tiny_model: Path, shop_store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 49, item 6: --overwrite --lookup-hint removed the checkpoints, then crashed."""
    out = tmp_path / "rl"
    (out / "trainer" / "checkpoint-1").mkdir(parents=True)
    (out / "trainer" / RUN_FILE).write_text(json.dumps({"options": {"steps": 9}}))
    (out / ORDER_LOG).write_text('{"step": 0, "rows": []}\n')
    mark_output(out, GRPO_KIND)
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    argv = ["train", "grpo", "--model", tiny_model, "--out", out, "--overwrite", "--data"]
    argv += [shop_store, "--train-sessions", "6", "--lookup-hint", "--max-prompt-tokens", "20"]
    code, said = _refused(argv, capsys)
    assert code == 2 and len(said.strip().splitlines()) == 1 and "max_prompt_tokens=20" in said
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before


def test_the_lookup_hint_reaches_the_training_prompts(
    tiny_model: Path, shop_store: Path, tmp_path: Path
) -> None:
    """Issue 49, item 10: train sft/grpo --lookup-hint crashed after the model loaded."""
    sessions = SessionOptions(data=str(shop_store), train_sessions=6)
    prompt = PromptConfig(max_prompt_tokens=256, lookup_hint=True)
    rows = sessions.rows(tiny_model, prompt)
    assert rows and all(LOOKUP_LINE.split("{")[0] in r.prompt for r in rows)
    out = tmp_path / "sft"
    argv = ["train", "sft", "--model", str(tiny_model), "--out", str(out), "--data"]
    argv += [str(shop_store), "--train-sessions", "6", "--max-prompt-tokens", "256"]
    argv += [
        "--lookup-hint",
        "--max-examples",
        "4",
        "--epochs",
        "1",
        "--max-completion-tokens",
        "8",
    ]
    main(argv)
    assert json.loads((out / CONFIG_FILE).read_text())["options"]["prompt"]["lookup_hint"] is True
    load_model(out / "model")
