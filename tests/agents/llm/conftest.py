"""Shared fixtures of the LLM agent tests: a small synthetic store, the tiny default model, rows."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")


@pytest.fixture(scope="session")
def llm_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private data cache for these tests."""
    home = tmp_path_factory.mktemp("rewardgym-home")
    os.environ["REWARDGYM_HOME"] = str(home)
    return home


@pytest.fixture(scope="session")
def shop_store(llm_home: Path) -> Path:
    """A 60-session synthetic corpus (train and test splits), built once."""
    from rewardgym.envs.shopping.session_sources import build_synthetic_log
    from rewardgym.envs.shopping.synthetic import SyntheticShopperConfig

    path = llm_home / "store"
    build_synthetic_log(path, config=SyntheticShopperConfig(sessions=60, seed=3))
    return path


@pytest.fixture(scope="session")
def tiny_config():
    """The ``tiny`` bench preset (1-layer, width-32 model, short prompts)."""
    from rewardgym.benchmarks.shop.config import preset

    return preset("tiny")


@pytest.fixture(scope="session")
def tiny_model(shop_store: Path, tiny_config, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default model at the tiny size, tokenizer trained on the store's training sessions."""
    from rewardgym.agents.llm.model import create_default_model
    from rewardgym.envs.shopping.session_sources import resolve_sessions

    log, train = resolve_sessions(shop_store, "train")
    return create_default_model(
        tmp_path_factory.mktemp("tiny-model") / "base", log, train, tiny_config.default_model
    )


@pytest.fixture(scope="session")
def tiny_rows(shop_store: Path, tiny_model: Path, tiny_config):
    """Prompt-completion rows of the first 12 training sessions."""
    from rewardgym.agents.llm.dataset import step_rows
    from rewardgym.agents.llm.model import load_model
    from rewardgym.agents.llm.prompt import PromptBuilder, env_kwargs

    _, tokenizer = load_model(tiny_model)
    return step_rows(
        PromptBuilder(tokenizer, tiny_config.prompt),
        data=shop_store,
        env_kwargs=env_kwargs(tiny_config.prompt),
        max_sessions=12,
        progress=False,
    )
