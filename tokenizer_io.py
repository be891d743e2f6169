"""Load a saved Hugging Face tokenizer exactly as its ``tokenizer.json`` holds it.

transformers 5 maps a folder to a tokenizer class by the model's ``config.json``, and some of
those classes rebuild parts of the saved pipeline from their own definition: a folder whose
config is Qwen2's (the default shop model) loads as ``Qwen2Tokenizer``, which replaces the
trained pre-tokenizer (``_`` joined to letters, so ``option_color_purple`` is one word) with
Qwen's regex, and the model then reads token ids its merges were never trained on.
:func:`load_saved_tokenizer` loads through ``AutoTokenizer`` and keeps the result only when its
normalizer, pre-tokenizer, model, post-processor and decoder equal the file's; otherwise it
loads the file itself as a ``PreTrainedTokenizerFast`` (the chat template and special tokens
come from ``tokenizer_config.json`` as before), so encoding round-trips what was trained.

Folders that :func:`mark_tokenizer` marked were trained on the file's own pipeline. A folder
with model weights, a tokenizer whose pipeline its class rewrites and no mark was saved by a
rewardgym before this loader: its weights were trained on the rewritten tokens, so it is
refused (:class:`RewrittenTokenizerFolder`) with what to do, instead of being silently read
with other tokens than it learned.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rewardgym.errors import RewrittenTokenizerFolder, UserError

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

MARK = "rewardgym-tokenizer.json"
"""File written beside a saved tokenizer: the folder's weights were trained on the file's pipeline."""
PIPELINE = ("normalizer", "pre_tokenizer", "model", "post_processor", "decoder")
"""The parts of ``tokenizer.json`` that decide which ids a text encodes to."""
WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin")
PROBE = "The shopper clicks"
"""Text every usable tokenizer encodes to at least one token."""


def pipeline(tokenizer_json: dict[str, Any]) -> dict[str, Any]:
    """The encoding-relevant parts of a serialised ``tokenizers.Tokenizer`` (:data:`PIPELINE`)."""
    return {part: tokenizer_json.get(part) for part in PIPELINE}


def live_pipeline(tokenizer: PreTrainedTokenizerBase) -> dict[str, Any] | None:
    """The pipeline a loaded fast tokenizer encodes with, or None for a slow (Python) tokenizer."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        return None
    return pipeline(json.loads(backend.to_str()))


def mark_tokenizer(folder: str | Path) -> None:
    """Record in ``folder`` that its weights were trained on its ``tokenizer.json`` as saved."""
    path = Path(folder) / MARK
    note = {"encoding": "tokenizer.json as saved", "loader": "rewardgym.tokenizer_io"}
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(note, indent=2) + "\n")
    tmp.replace(path)


def load_saved_tokenizer(folder: str | Path) -> PreTrainedTokenizerBase:
    """The tokenizer saved in ``folder``, encoding exactly as its ``tokenizer.json`` does.

    Raises :class:`RewrittenTokenizerFolder` for an unmarked model folder whose tokenizer class
    rewrites the saved pipeline (module docstring), and :class:`UserError` for a tokenizer that
    cannot feed the folder's model (:func:`check_tokenizer`).
    """
    from transformers import AutoTokenizer

    location = Path(folder)
    loaded = AutoTokenizer.from_pretrained(str(location), local_files_only=True)
    return check_tokenizer(_exact(loaded, location), location)


def _exact(loaded: PreTrainedTokenizerBase, location: Path) -> PreTrainedTokenizerBase:
    """``loaded``, or the folder's ``tokenizer.json`` as saved where ``loaded``'s class rewrote it."""
    from transformers import PreTrainedTokenizerFast

    file = location / "tokenizer.json"
    live = live_pipeline(loaded)
    if not file.is_file() or live is None:
        return loaded
    saved = pipeline(json.loads(file.read_text(encoding="utf-8")))
    if live == saved:
        return loaded
    has_weights = any((location / name).is_file() for name in WEIGHT_FILES)
    if has_weights and not (location / MARK).is_file():
        changed = ", ".join(part for part in PIPELINE if live[part] != saved[part])
        raise RewrittenTokenizerFolder(
            f"{location}: this model folder was saved by an earlier rewardgym, which loaded its "
            f"tokenizer as {type(loaded).__name__} and so replaced the saved {changed}; its "
            "weights were trained on those rewritten tokens, not on the tokenizer it ships. "
            "Train it again with this version into a new folder (for the suites: run them "
            "again with a new --out); the folder is left as it is"
        )
    exact = PreTrainedTokenizerFast.from_pretrained(str(location), local_files_only=True)
    if live_pipeline(exact) != saved:
        raise RuntimeError(f"{location}: tokenizer.json does not load as saved")
    return exact


def model_vocab_size(folder: str | Path) -> int | None:
    """The number of token embeddings ``folder``'s ``config.json`` declares (None: not stated)."""
    try:
        config = json.loads((Path(folder) / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(config, dict):
        return None
    text = config.get("text_config")
    size = config.get("vocab_size", text.get("vocab_size") if isinstance(text, dict) else None)
    return size if isinstance(size, int) and not isinstance(size, bool) and size > 0 else None


def check_tokenizer(
    tokenizer: PreTrainedTokenizerBase, folder: str | Path
) -> PreTrainedTokenizerBase:
    """``tokenizer`` when it can feed the model saved in ``folder``; :class:`UserError` otherwise.

    A folder whose tokenizer files are gone still loads a tokenizer from its
    ``tokenizer_config.json`` alone, one that encodes every text to no token at all: training
    on it learns nothing and sampling from it fails. Refused too: a tokenizer whose ids reach
    past the model's embeddings (``vocab_size`` in ``config.json``), which belongs to another
    model.
    """
    location = Path(folder)
    if not tokenizer(PROBE, add_special_tokens=False)["input_ids"]:
        gone = "" if (location / "tokenizer.json").is_file() else " (it has no tokenizer.json)"
        raise UserError(
            f"{location}: the tokenizer saved there is empty{gone}: it encodes {PROBE!r} to no "
            "token; copy the model's tokenizer files back into the folder "
            "(tokenizer.save_pretrained(folder))"
        )
    size = model_vocab_size(location)
    top = max(tokenizer.get_vocab().values(), default=-1)
    if size is not None and top >= size:
        raise UserError(
            f"{location}: the tokenizer has token ids up to {top}, but the model embeds only "
            f"{size} tokens (vocab_size in config.json): it is another model's tokenizer; "
            "save this model's own tokenizer into the folder (tokenizer.save_pretrained(folder))"
        )
    return tokenizer


__all__ = [
    "MARK",
    "PIPELINE",
    "RewrittenTokenizerFolder",
    "check_tokenizer",
    "live_pipeline",
    "load_saved_tokenizer",
    "mark_tokenizer",
    "model_vocab_size",
    "pipeline",
]
