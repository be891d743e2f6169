"""A saved model folder loads a tokenizer that encodes every corpus string as the trained one did."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rewardgym.agents.llm.model import load_model, load_tokenizer
from rewardgym.agents.llm.prompt import build_prompt
from rewardgym.agents.llm.tokenizer import corpus_texts, train_tokenizer
from rewardgym.envs.shopping.session_sources import resolve_sessions
from rewardgym.errors import UserError
from rewardgym.tokenizer_io import MARK, RewrittenTokenizerFolder


@pytest.fixture(scope="module")
def trained_and_texts(shop_store: Path, tiny_config):
    """The tokenizer ``create_default_model`` trains, rebuilt in memory, and the corpus strings."""
    log, train = resolve_sessions(shop_store, "train")
    sessions = list(train)[: tiny_config.default_model.tokenizer_sessions]
    frame = [build_prompt("")]
    trained = train_tokenizer(
        corpus_texts(log, sessions, frame=frame), tiny_config.default_model.vocab_size
    )
    texts = list(dict.fromkeys(corpus_texts(log, list(train), frame=frame)))
    return trained, texts


def test_a_saved_folder_encodes_every_corpus_string_as_trained(
    tiny_model: Path, trained_and_texts
) -> None:
    trained, texts = trained_and_texts
    loaded = load_tokenizer(tiny_model)
    assert len(texts) > 500  # pages, compact contexts (histories) and completions
    expected = trained(texts, add_special_tokens=False)["input_ids"]
    got = loaded(texts, add_special_tokens=False)["input_ids"]
    mismatched = [t for t, a, b in zip(texts, expected, got, strict=True) if a != b]
    assert not mismatched, f"{len(mismatched)} strings encode differently, e.g. {mismatched[0]!r}"
    _, with_model = load_model(tiny_model)
    assert with_model(texts[:50], add_special_tokens=False)["input_ids"] == expected[:50]
    # Element names stay one word, as the pre-tokenizer was trained to keep them.
    name = loaded.tokenize(' {"name": "option_color_purple"}')
    assert not any(piece.startswith("_") for piece in name), name


def test_the_split_names_tokenizer_reads_names_in_words_and_round_trips(
    shop_store: Path, tiny_config, trained_and_texts, tmp_path: Path
) -> None:
    from dataclasses import replace

    from rewardgym.agents.llm.model import create_default_model

    _, texts = trained_and_texts
    log, train = resolve_sessions(shop_store, "train")
    config = replace(tiny_config.default_model, split_names=True)
    sessions = list(train)[: config.tokenizer_sessions]
    trained = train_tokenizer(
        corpus_texts(log, sessions, frame=[build_prompt("")]), config.vocab_size, split_names=True
    )
    loaded = load_tokenizer(create_default_model(tmp_path / "split", log, train, config))
    expected = trained(texts, add_special_tokens=False)["input_ids"]
    assert loaded(texts, add_special_tokens=False)["input_ids"] == expected  # saved and reloaded
    assert all(loaded.decode(ids) == text for ids, text in zip(expected[:200], texts, strict=False))
    for name in ("add_to_cart_button", "filterColorPurple", "product_12_title"):
        ids = loaded(f' "{name}"', add_special_tokens=False)["input_ids"]
        words = [loaded.decode([i]) for i in ids]
        assert loaded.decode(ids) == f' "{name}"', words  # decodes back exactly
        assert len(words) >= 4, words  # " ", the name's words (several), '"'
    pieces = [loaded.decode([i]) for i in loaded("add_to_cart_button")["input_ids"]]
    assert "".join(pieces) == "add_to_cart_button" and len(pieces) >= 3, pieces
    assert not any(p.strip("_") and "_" in p.strip("_") for p in pieces), pieces  # one word each


def test_a_folder_saved_before_the_fix_is_refused_with_what_to_do(
    tiny_model: Path, tmp_path: Path
) -> None:
    from transformers import AutoTokenizer

    old = tmp_path / "old"
    shutil.copytree(tiny_model, old)
    (old / MARK).unlink()
    auto = AutoTokenizer.from_pretrained(str(old))
    saved = json.loads((old / "tokenizer.json").read_text())["pre_tokenizer"]
    if json.loads(auto.backend_tokenizer.to_str())["pre_tokenizer"] == saved:
        pytest.skip("this transformers keeps the saved pre-tokenizer: nothing to refuse")
    with pytest.raises(RewrittenTokenizerFolder, match="Train it again"):
        load_tokenizer(old)
    assert sorted(p.name for p in old.iterdir()) == sorted(
        p.name for p in tiny_model.iterdir() if p.name != MARK
    )  # refused, and nothing in the folder touched


def test_a_tokenizer_folder_without_weights_loads_as_saved(
    trained_and_texts, tmp_path: Path
) -> None:
    from rewardgym.tokenizer_io import load_saved_tokenizer

    trained, texts = trained_and_texts
    folder = tmp_path / "tok"
    trained.save_pretrained(folder)
    (folder / "config.json").write_text(json.dumps({"model_type": "qwen2"}))
    loaded = load_saved_tokenizer(folder)
    assert loaded(texts[:40])["input_ids"] == trained(texts[:40])["input_ids"]


def test_a_folder_whose_tokenizer_is_gone_is_refused(tiny_model: Path, tmp_path: Path) -> None:
    """Issue 39, item 1: tokenizer_config.json alone loads a tokenizer that encodes nothing."""
    folder = tmp_path / "model"
    shutil.copytree(tiny_model, folder)
    (folder / "tokenizer.json").unlink()
    for load in (load_tokenizer, load_model):
        with pytest.raises(
            UserError, match=r"model: the tokenizer saved there is empty \(it has no"
        ):
            load(folder)


def test_a_tokenizer_past_the_models_embeddings_is_refused(
    tiny_model: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "model"
    shutil.copytree(tiny_model, folder)
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "vocab_size": 512}))
    with pytest.raises(UserError, match=r"token ids up to 1023, but the model embeds only 512"):
        load_tokenizer(folder)
