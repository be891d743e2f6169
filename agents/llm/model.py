"""Build the default small Qwen2-style decoder, or load any local Hugging Face causal LM.

The default model needs no download: :func:`create_default_model` trains a BPE tokenizer on the
session corpus, builds a randomly initialised ``Qwen2ForCausalLM`` of a few million parameters
from :class:`~rewardgym.agents.llm.config.ModelConfig`, and saves both with ``save_pretrained``
(safetensors). :func:`load_model` opens that directory, a trained checkpoint, or any local
Hugging Face causal-LM path, always offline.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from rewardgym.agents.llm.config import ModelConfig
from rewardgym.agents.llm.prompt import build_prompt
from rewardgym.agents.llm.tokenizer import corpus_texts, prepare_tokenizer, train_tokenizer
from rewardgym.atomic import atomic_path
from rewardgym.envs.shopping.session_log import SessionLog
from rewardgym.errors import UserError
from rewardgym.tokenizer_io import load_saved_tokenizer, mark_tokenizer

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase, PreTrainedTokenizerFast


PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle")
"""Weight files that are pickles: a model folder holding only these is refused."""


def offline() -> None:
    """Forbid the Hugging Face hub for this process: every model and tokenizer is a local path."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def bf16_available() -> bool:
    """True where bfloat16 matmuls are fast: a CUDA GPU with bf16, or a CPU with AMX/AVX512-BF16."""
    import torch

    if torch.cuda.is_available():
        return bool(torch.cuda.is_bf16_supported())
    return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())


def quiet_libraries() -> None:
    """Silence the per-file progress bars and deprecation chatter of transformers and datasets."""
    import warnings

    import datasets
    from transformers.utils import logging

    logging.disable_progress_bar()
    datasets.disable_progress_bars()
    warnings.filterwarnings("ignore", category=FutureWarning, module="transformers")
    warnings.filterwarnings("ignore", category=UserWarning, module="trl")


def build_model(
    config: ModelConfig, tokenizer: PreTrainedTokenizerFast, seed: int = 0
) -> PreTrainedModel:
    """A randomly initialised ``Qwen2ForCausalLM`` of ``config``'s size over ``tokenizer``'s vocabulary."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    if config.hidden_size % config.num_heads or config.num_heads % config.num_kv_heads:
        raise ValueError(
            f"ModelConfig: hidden_size ({config.hidden_size}) must be divisible by num_heads "
            f"({config.num_heads}), and num_heads by num_kv_heads ({config.num_kv_heads})"
        )
    torch.manual_seed(seed)
    qwen = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=config.hidden_size,
        intermediate_size=config.intermediate_size,
        num_hidden_layers=config.num_layers,
        num_attention_heads=config.num_heads,
        num_key_value_heads=config.num_kv_heads,
        max_position_embeddings=config.max_positions,
        tie_word_embeddings=True,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=None,
    )
    model = Qwen2ForCausalLM(qwen)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.bos_token_id = None
    return model


def create_default_model(
    out: str | os.PathLike[str],
    store: SessionLog,
    train_sessions: Sequence[int],
    config: ModelConfig | None = None,
    seed: int = 0,
) -> Path:
    """Train the tokenizer on training sessions, build the default model, save both under ``out``."""
    offline()
    config = config or ModelConfig()
    sessions = list(train_sessions)[: config.tokenizer_sessions]
    tokenizer = train_tokenizer(
        corpus_texts(store, sessions, frame=[build_prompt("")]),
        config.vocab_size,
        split_names=config.split_names,
    )
    model = build_model(config, tokenizer, seed=seed)
    path = Path(out)
    save_model(model, tokenizer, path)
    return path


def merge_lora(model: PreTrainedModel) -> PreTrainedModel:
    """``model`` with its LoRA adapters merged into its weights and removed (a plain transformers
    model), when it is a PEFT model; any other model as it is.

    A PEFT model exists only once ``peft`` is imported, so a process that never imported it is
    not made to.
    """
    peft = sys.modules.get("peft")
    if peft is not None and isinstance(model, peft.PeftModel):
        return cast("PreTrainedModel", model.merge_and_unload())
    return model


def save_model(
    model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, out: str | os.PathLike[str]
) -> Path:
    """Save a model and its tokenizer with ``save_pretrained`` (safetensors) as the folder ``out``.

    The folder is written beside ``out`` and renamed into place whole
    (:func:`rewardgym.atomic.atomic_path`): a kill leaves the earlier folder or the new one,
    never weights without their tokenizer. A PEFT (LoRA) model is merged first (:func:`merge_lora`), so the folder always loads with
    ``AutoModelForCausalLM.from_pretrained`` alone; the adapters are gone from ``model`` then.
    """
    quiet_libraries()
    path = Path(out)
    model = merge_lora(model)
    with atomic_path(path) as tmp:
        model.save_pretrained(tmp, safe_serialization=True)
        tokenizer.save_pretrained(tmp)
        mark_tokenizer(tmp)
    return path


def load_model(
    path: str | os.PathLike[str],
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """A local causal LM and its tokenizer (left padding, a pad token), in eval mode, on the CPU.

    The tokenizer encodes as its saved ``tokenizer.json`` does (:func:`load_tokenizer`).
    """
    offline()
    quiet_libraries()
    from transformers import AutoModelForCausalLM

    location = local_model_dir(path)
    tokenizer = prepare_tokenizer(load_saved_tokenizer(location))
    check_weights(location)
    model = AutoModelForCausalLM.from_pretrained(location)
    if model.generation_config.pad_token_id is None:
        model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.eval()
    return model, tokenizer


def load_tokenizer(path: str | os.PathLike[str]) -> PreTrainedTokenizerBase:
    """The tokenizer saved with a local model (left padding, a pad token), without its weights.

    It encodes every text to the ids the saved ``tokenizer.json`` gives, even where the model's
    tokenizer class would rebuild the pipeline; a folder saved before that rule whose weights
    learned rewritten tokens is refused with what to do
    (:func:`rewardgym.tokenizer_io.load_saved_tokenizer`).
    """
    offline()
    quiet_libraries()
    return prepare_tokenizer(load_saved_tokenizer(local_model_dir(path)))


def check_model_folder(path: str | os.PathLike[str]) -> PreTrainedTokenizerBase:
    """The tokenizer of the model folder ``path`` once the folder can be trained or sampled from.

    What the commands check before they claim their output: ``config.json``, safetensors
    weights and a tokenizer that feeds the model (:func:`rewardgym.tokenizer_io.check_tokenizer`),
    each refused with a :class:`UserError` naming the folder; the weights are not read.
    """
    tokenizer = load_tokenizer(path)
    check_weights(local_model_dir(path))
    return tokenizer


def check_weights(location: Path) -> None:
    """Refuse a model folder without safetensors weights (:func:`local_model_dir` names pickles)."""
    if not any(location.glob("*.safetensors")):
        raise UserError(
            f"model path {str(location)!r} holds no weights (no *.safetensors file); pass a "
            "folder saved with model.save_pretrained(folder)"
        )


def local_model_dir(path: str | os.PathLike[str]) -> Path:
    """``path`` as a folder holding ``config.json``; ``FileNotFoundError`` before any loader runs.

    Checked first, so that transformers never takes a missing path for a hub repository id.
    """
    location = Path(path).expanduser()
    if not (location / "config.json").is_file():
        raise FileNotFoundError(
            f"model path {str(path)!r} holds no config.json; pass a directory saved with "
            "save_pretrained (a Hugging Face causal LM), or omit it to build the default model "
            "(nothing is fetched from a hub)"
        )
    if not any(location.glob("*.safetensors")):
        pickled = sorted(p.name for p in location.iterdir() if p.suffix in PICKLE_SUFFIXES)
        if pickled:
            raise UserError(
                f"model path {str(path)!r} holds pickled weights only ({', '.join(pickled[:3])}); "
                "rewardgym reads safetensors, since unpickling a file can run its code: convert "
                "it once, where you trust the file, with model.save_pretrained(folder, "
                "safe_serialization=True)"
            )
    return location


__all__ = [
    "bf16_available",
    "build_model",
    "check_model_folder",
    "check_weights",
    "create_default_model",
    "load_model",
    "load_tokenizer",
    "local_model_dir",
    "merge_lora",
    "offline",
    "quiet_libraries",
    "save_model",
]
