"""LoRA through PEFT: the run configs' LoraConfig, its checks, and merged plain saved models."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

import pytest

from rewardgym.agents.llm.config import GRPORunConfig, ModelConfig, ModelKind, SFTRunConfig

# A 2-layer decoder of width 8 over a 300-token byte-level BPE: about 4,000 parameters.
TINY = ModelConfig(
    vocab_size=300,
    hidden_size=8,
    num_layers=2,
    num_heads=2,
    num_kv_heads=1,
    intermediate_size=16,
    max_positions=64,
)
TEXTS = ['{"type": "click", "name": "buy now"}', "search shoes size 9", "terminate"] * 4
ADAPTER_FILES = ("adapter_config.json", "adapter_model.safetensors", "adapter_model.bin")


@pytest.fixture(scope="module")
def base_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A randomly initialised tiny Qwen2 model and its tokenizer, saved once."""
    from rewardgym.agents.llm.model import build_model, save_model
    from rewardgym.agents.llm.tokenizer import train_tokenizer

    tokenizer = train_tokenizer(TEXTS, TINY.vocab_size)
    model = build_model(TINY, tokenizer, seed=0)
    return save_model(model, tokenizer, tmp_path_factory.mktemp("lora") / "base")


def _plain_weights(path: Path) -> dict[str, Any]:
    """The weights of the model folder at ``path``, loaded by transformers alone (no PEFT)."""
    from transformers import AutoModelForCausalLM

    names = {p.name for p in path.iterdir()}
    assert "model.safetensors" in names
    assert not names & set(ADAPTER_FILES), names
    model = AutoModelForCausalLM.from_pretrained(path)
    assert type(model).__name__ == "Qwen2ForCausalLM"
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


@pytest.mark.parametrize("cls", [SFTRunConfig, GRPORunConfig])
def test_lora_config_is_built_from_the_run_config(cls: type[SFTRunConfig | GRPORunConfig]) -> None:
    assert cls().lora() is None  # full fine-tuning by default
    lora = cls(lora_rank=16).lora()
    assert lora is not None
    assert (lora.r, lora.lora_alpha) == (16, 32)  # alpha defaults to 2 x rank
    assert lora.target_modules == "all-linear"
    assert str(lora.task_type) == "CAUSAL_LM"
    explicit = cls(lora_rank=4, lora_alpha=8).lora()
    assert explicit is not None and (explicit.r, explicit.lora_alpha) == (4, 8)


@pytest.mark.parametrize("cls", [SFTRunConfig, GRPORunConfig])
@pytest.mark.parametrize(
    ("changes", "field_name"),
    [
        ({"lora_rank": 0}, "lora_rank"),
        ({"lora_rank": -2}, "lora_rank"),
        ({"lora_rank": 2.5}, "lora_rank"),
        ({"lora_rank": True}, "lora_rank"),
        ({"lora_rank": 8, "lora_alpha": 0}, "lora_alpha"),
        ({"lora_alpha": 16}, "lora_alpha"),  # an alpha without a rank would silently do nothing
    ],
)
def test_bad_lora_settings_are_refused_by_name(
    cls: type[SFTRunConfig | GRPORunConfig], changes: dict[str, Any], field_name: str
) -> None:
    with pytest.raises(ValueError, match=rf"{cls.__name__}\.{field_name}"):
        cls(**changes)
    with pytest.raises(ValueError, match=rf"{cls.__name__}\.{field_name}"):
        replace(cls(), **changes)  # a preset changed by a sweep or the CLI is checked too


def test_smol_preset_trains_lora_adapters() -> None:
    from rewardgym.benchmarks.shop.config import preset

    smol = preset("smol")
    assert smol.sft.lora_rank == 16 and smol.grpo.lora_rank == 16
    assert preset("quick").sft.lora_rank is None and preset("quick").grpo.lora_rank is None


def test_save_model_merges_lora_into_a_plain_model(base_model: Path, tmp_path: Path) -> None:
    import torch
    from peft import get_peft_model

    from rewardgym.agents.llm.model import load_model, save_model

    model, tokenizer = load_model(base_model)
    lora = SFTRunConfig(lora_rank=2).lora()
    assert lora is not None
    peft_model = get_peft_model(model, lora)
    torch.manual_seed(1)
    for name, param in peft_model.named_parameters():
        if "lora_B" in name:  # zero at initialisation: make the adapters change the output
            param.data.normal_(0.0, 0.5)
    ids = torch.tensor([tokenizer("search shoes")["input_ids"]])
    with torch.no_grad():
        expected = peft_model(input_ids=ids).logits
        base = load_model(base_model)[0](input_ids=ids).logits
    assert not torch.allclose(expected, base)

    path = save_model(cast(Any, peft_model), tokenizer, tmp_path / "merged")
    weights = _plain_weights(path)
    assert not any("lora" in name for name in weights)
    merged = load_model(path)[0]
    with torch.no_grad():
        assert torch.allclose(merged(input_ids=ids).logits, expected, atol=1e-5)


@pytest.mark.parametrize("kind", ["scratch", "pretrained"])  # pretrained: checkpointing on
def test_train_sft_with_lora_saves_a_plain_merged_model(
    base_model: Path, tmp_path: Path, kind: ModelKind
) -> None:
    import torch
    from datasets import Dataset

    from rewardgym.agents.llm.sft import train_sft

    rows = Dataset.from_list([{"prompt": "search shoes", "completion": ' {"type": "click"}'}] * 4)
    config = SFTRunConfig(
        epochs=1.0,
        batch_size=2,
        learning_rate=1e-2,
        pretrained_learning_rate=1e-2,
        warmup_ratio=0.0,
        bf16=False,
        lora_rank=2,
    )
    out = tmp_path / "sft"
    result = train_sft(
        base_model, rows, out, config, max_length=32, progress=False, model_kind=kind
    )
    assert result.steps == 2
    before = _plain_weights(base_model)
    after = _plain_weights(result.path)
    assert before.keys() == after.keys()
    # Only the adapters trained: the embeddings (tied to the LM head, which LoRA leaves out) are
    # unchanged, and the merged attention and MLP weights moved.
    embed = "model.embed_tokens.weight"
    assert torch.equal(before[embed], after[embed])
    moved = [k for k in before if "proj" in k and not torch.equal(before[k], after[k])]
    assert any("self_attn" in k for k in moved) and any("mlp" in k for k in moved)


@dataclass
class _LengthReward:
    """A TRL reward function that pays a completion's length modulo 3 (so groups differ)."""

    __name__: str = "length"
    seconds: float = 0.0
    model: Any = field(default=None, repr=False)

    def __call__(self, prompts: list[Any], completions: list[Any], **_: Any) -> list[float]:
        return [float(len(str(c)) % 3) for c in completions]

    def bind_model(self, model: Any, tokenizer: Any) -> None:
        self.model = model


@dataclass(frozen=True)
class _StubEnv:
    """A GRPO env of four identical rows rewarded by :class:`_LengthReward` (no store needed)."""

    reward: _LengthReward = field(default_factory=_LengthReward)

    def setup(self, wrapper: Any, config: GRPORunConfig, out: Path, options: Any) -> Any:
        from datasets import Dataset

        from rewardgym.agents.llm.grpo import GRPOSetup

        rows = Dataset.from_list([{"prompt": "search shoes", "session": 0, "step": 0}] * 4)
        return GRPOSetup(rows, cast(Any, self.reward), None)


@pytest.mark.parametrize("kind", ["scratch", "pretrained"])  # pretrained: checkpointing on
def test_train_grpo_with_lora_saves_a_plain_merged_model(
    base_model: Path, tmp_path: Path, kind: ModelKind
) -> None:
    import torch

    from rewardgym.agents.llm.grpo import GRPOOptions, train_grpo

    config = GRPORunConfig(
        steps=1,
        learning_rate=1e-2,
        pretrained_learning_rate=1e-2,
        num_generations=2,
        prompts_per_step=2,
        max_completion_tokens=4,
        temperature=1.0,
        bf16=False,
        save_steps=10,
        lora_rank=2,
    )
    env = _StubEnv()
    options = GRPOOptions(progress=False, model_kind=kind)
    result = train_grpo(base_model, env, tmp_path / "grpo", None, config, options)
    assert result.steps == 1
    assert type(env.reward.model).__name__.startswith("Peft")  # the policy trained adapters
    before = _plain_weights(base_model)
    after = _plain_weights(result.path)
    embed = "model.embed_tokens.weight"
    assert torch.equal(before[embed], after[embed])
    assert before.keys() == after.keys()
