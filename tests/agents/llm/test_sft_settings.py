"""The trainer settings SFT and GRPO get per model kind (checkpointing, bf16, batching, LM head)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from rewardgym.agents.llm.config import GRPORunConfig, ModelKind, SFTRunConfig
from rewardgym.agents.llm.dataset import sample_rows, to_dataset
from rewardgym.agents.llm.model import bf16_available
from rewardgym.agents.llm.sft import label_positions_only, sft_args, train_sft


@pytest.mark.parametrize(("kind", "expected"), [("scratch", False), ("pretrained", True)])
def test_sft_checkpoints_only_a_pretrained_model_by_default(
    tmp_path: Path, kind: ModelKind, expected: bool
) -> None:
    args = sft_args(SFTRunConfig(), tmp_path, model_kind=kind)
    assert args.activation_checkpointing is expected
    assert args.gradient_checkpointing is expected  # the alias TRL and transformers read


def test_sft_checkpointing_can_be_set_either_way(tmp_path: Path) -> None:
    on = sft_args(SFTRunConfig(gradient_checkpointing=True), tmp_path, model_kind="scratch")
    off = sft_args(SFTRunConfig(gradient_checkpointing=False), tmp_path, model_kind="pretrained")
    assert on.activation_checkpointing is True
    assert off.activation_checkpointing is False


def test_sft_args_carry_bf16_and_length_grouping(tmp_path: Path) -> None:
    fp32 = sft_args(SFTRunConfig(bf16=False), tmp_path)
    grouped = sft_args(SFTRunConfig(bf16=True, group_by_length=True), tmp_path)
    assert fp32.bf16 is False
    assert grouped.bf16 is bf16_available()
    assert fp32.train_sampling_strategy == "random"
    assert grouped.train_sampling_strategy == "group_by_length"


@pytest.mark.parametrize(("kind", "expected"), [("scratch", False), ("pretrained", True)])
def test_grpo_checkpoints_only_a_pretrained_model_by_default(
    kind: ModelKind, expected: bool
) -> None:
    assert GRPORunConfig().checkpointing(kind) is expected
    assert GRPORunConfig(gradient_checkpointing=not expected).checkpointing(kind) is not expected


def test_label_positions_only_switches_trl_to_compact_scoring_and_back() -> None:
    import torch
    from trl.trainer import utils

    original = utils._use_triton
    assert utils._use_triton(torch.device("cpu")) is False  # TRL scores every CPU position
    with label_positions_only():
        assert utils._use_triton(torch.device("cpu")) is True
    assert utils._use_triton is original


def test_label_positions_only_trains_to_the_same_losses(
    tiny_model: Path, tiny_rows, tiny_config, tmp_path: Path
) -> None:
    rows = to_dataset(sample_rows(tiny_rows, 16, 0))
    config = replace(tiny_config.sft, batch_size=4, logging_steps=1, max_examples=None)
    results = [
        train_sft(
            tiny_model,
            rows,
            tmp_path / str(compact),
            replace(config, label_positions_only=compact, bf16=False),
            max_length=256,
            progress=False,
        )
        for compact in (False, True)
    ]
    assert len(results[0].losses) == 4
    np.testing.assert_allclose(results[1].losses, results[0].losses, rtol=1e-4)


def test_prompt_loss_scores_the_prompt_tokens_too(
    tiny_model: Path, tiny_rows, tiny_config, tmp_path: Path
) -> None:
    assert sft_args(SFTRunConfig(), tmp_path).completion_only_loss is True  # Shop-R1's
    assert (
        sft_args(SFTRunConfig(completion_only_loss=False), tmp_path).completion_only_loss is False
    )
    rows = to_dataset(sample_rows(tiny_rows, 8, 0))
    config = replace(tiny_config.sft, batch_size=4, logging_steps=1, max_examples=None, bf16=False)
    completion, everything = (
        train_sft(
            tiny_model,
            rows,
            tmp_path / str(only),
            replace(config, completion_only_loss=only),
            max_length=256,
            progress=False,
        )
        for only in (True, False)
    )
    assert np.isfinite(everything.losses).all() and len(everything.losses) == 2
    # The same examples and starting weights, other tokens scored: a different loss. At step 1
    # an untrained model's loss sits near ln|V| on every token, so step 2 (after one update on
    # the completions alone, or on every token) is where the two must part.
    gaps = [abs(a - b) for a, b in zip(everything.losses, completion.losses, strict=True)]
    assert gaps[1] > 1e-3, (everything.losses, completion.losses)
