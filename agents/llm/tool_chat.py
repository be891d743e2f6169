"""Give a local model without a chat template TRL's Qwen2.5 tool-calling template (ChatML + ``<tool_call>``).

TRL's tool calling needs a chat template that renders a whole tool exchange (user, assistant
with ``tool_calls``, tool), renders earlier turns the same whatever follows (prefix-preserving),
and a response template that reads the tool calls back out of the generated text; TRL ships the
last for the templates it recognises. The default model built here has no chat template (its
prompts are plain text), so :func:`tool_chat_model` gives a copy of it the Qwen2.5 template TRL
itself ships (``trl.chat_template_utils.qwen2_5_chat_template``: recognised, so TRL sets its
response template and keeps the template for training), adds ``<|im_start|>`` and ``<|im_end|>``
as special tokens and ``<tool_call>`` / ``</tool_call>`` as ordinary ones (the model's
embeddings grow by four rows), makes ``<|im_end|>`` the end of a
turn (generation stops there, and TRL's tool loop cuts at it) and raises the RoPE model's length
limit for the tool schemas the prompt now carries. An instruct model with its own
tool-capable template (Qwen2.5 / Qwen3 / Llama 3.1 Instruct) needs none of this.
"""

from __future__ import annotations

import os
from pathlib import Path

from rewardgym.agents.llm.model import load_model, save_model

CHATML_TOKENS = ("<|im_start|>", "<|im_end|>")
TOOL_TOKENS = ("<tool_call>", "</tool_call>")
"""Added as ordinary tokens, as in Qwen2.5's tokenizer: decoding keeps them, so calls parse."""
END_OF_TURN = "<|im_end|>"


def tool_chat_model(
    path: str | os.PathLike[str], out: str | os.PathLike[str], max_positions: int | None = None
) -> Path:
    """Save under ``out`` a copy of the model at ``path`` whose tokenizer has TRL's Qwen2.5 tool template.

    ``max_positions`` (None keeps the model's) raises the longest sequence the model accepts:
    the tool schemas alone take about 800 tokens of the default vocabulary. Refused for a model
    whose tokenizer already has a chat template (use it as it is).
    """
    from trl.chat_template_utils import qwen2_5_chat_template

    model, tokenizer = load_model(path)
    if getattr(tokenizer, "chat_template", None):
        raise ValueError(
            f"the tokenizer of {str(path)!r} already has a chat template; pass that model to TRL "
            "as it is (tool_chat_model is for models without one, such as the default model)"
        )
    tokenizer.add_special_tokens({"additional_special_tokens": list(CHATML_TOKENS)})
    tokenizer.add_tokens(list(TOOL_TOKENS))
    tokenizer.chat_template = qwen2_5_chat_template
    pad = tokenizer.pad_token
    tokenizer.eos_token = END_OF_TURN
    tokenizer.pad_token = pad
    model.resize_token_embeddings(len(tokenizer))
    end = tokenizer.convert_tokens_to_ids(END_OF_TURN)
    model.config.eos_token_id = end
    model.generation_config.eos_token_id = end
    if max_positions is not None:
        if max_positions < 1:
            raise ValueError(f"max_positions must be a positive int, got {max_positions!r}")
        model.config.max_position_embeddings = max_positions
    return save_model(model, tokenizer, out)


__all__ = ["CHATML_TOKENS", "END_OF_TURN", "TOOL_TOKENS", "tool_chat_model"]
