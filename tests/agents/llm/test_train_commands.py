"""``rewardgym train sft`` / ``train grpo``: options build the library's configs, outputs are guarded, models load.

Issue 30, item 3: a user with session logs trains the LLM shopper policy without writing Python.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from rewardgym.agents.llm.commands import (
    GRPO_KIND,
    SFT_KIND,
    SessionOptions,
    TrainGRPO,
    TrainSFT,
    recorded_kind,
)
from rewardgym.agents.llm.config import GRPORunConfig, ModelConfig, PromptConfig, SFTRunConfig
from rewardgym.agents.llm.model import load_model
from rewardgym.cli import build, main
from rewardgym.outputs import owner

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
