"""``benchmarks/shop/data.py``: the suite's rows in the recipe variants (action first, lookup line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rewardgym.agents.baselines.shop import FrequencyAgent
from rewardgym.agents.llm.config import PromptConfig
from rewardgym.agents.llm.dataset import make_env
from rewardgym.agents.llm.prompt import lookup_line
from rewardgym.agents.llm.tokenizer import train_tokenizer
from rewardgym.benchmarks.shop.data import SuiteData
from rewardgym.envs.shopping.parsing import parse_output
from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.envs.shopping.session_sources import build_synthetic_log, resolve_sessions
from rewardgym.envs.shopping.synthetic import SyntheticShopperConfig

PROMPT = PromptConfig(max_prompt_tokens=224, instructions=False)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("store") / "log"
    build_synthetic_log(path, config=SyntheticShopperConfig(sessions=30, seed=5))
    return path


@pytest.fixture(scope="module")
def tokenizer(store: Path, tmp_path_factory: pytest.TempPathFactory):
    """A small tokenizer saved in a folder (rows are cached by the folder's tokenizer files)."""
    log, train = resolve_sessions(store, "train")
    texts = [s.page for k in train[:8] for s in log.session(k).steps]
    trained = train_tokenizer(texts, 512)
    folder = tmp_path_factory.mktemp("tokenizer")
    trained.save_pretrained(folder)
    return folder, trained


def test_action_first_rows_put_the_action_first(store: Path, tokenizer) -> None:
    folder, tok = tokenizer
    data = SuiteData(store, validation_fraction=0.25, train_sessions=None, progress=False)
    paper = data.rows(folder, tok, PROMPT, "validation", 2)
    first = data.rows(
        folder, tok, PromptConfig(**{**vars(PROMPT), "action_first": True}), "validation", 2
    )
    assert [r.prompt for r in first] == [r.prompt for r in paper]  # instructions off: same prompt
    for a, b in zip(paper, first, strict=True):
        assert a.completion.startswith('{"rationale": ') and b.completion.startswith('{"action": ')
        assert parse_output(a.completion) == parse_output(b.completion)  # same rationale and action


def test_the_lookup_line_is_the_lookups_prediction_fitted_on_training_sessions_only(
    store: Path, tokenizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, tok = tokenizer
    fitted: list[list[str]] = []
    fit = FrequencyAgent.fit

    def spy(self: FrequencyAgent, sessions):  # type: ignore[no-untyped-def]
        sessions = list(sessions)
        fitted.append([s.session_id for s in sessions])
        return fit(self, sessions)

    monkeypatch.setattr(FrequencyAgent, "fit", spy)
    data = SuiteData(store, validation_fraction=0.25, train_sessions=None, progress=False)
    hinted = PromptConfig(**{**vars(PROMPT), "lookup_hint": True})
    rows = data.rows(folder, tok, hinted, "validation", 3)
    test_rows = data.rows(folder, tok, hinted, "test", 1)
    log, train = resolve_sessions(store, "train")
    ids = {
        split: {log.session_ids[train[k]] for k in data.positions(split)}
        for split in ("train", "validation")
    }
    assert len(fitted) == 1 and set(fitted[0]) == ids["train"]  # fitted once, on train alone
    assert not ids["train"] & ids["validation"]
    _, test = resolve_sessions(store, "test")
    assert not set(fitted[0]) & {log.session_ids[k] for k in test}  # never on test either

    env = make_env(store, "train", {})
    expected = []
    for index in data.positions("validation", 3):
        obs, _ = env.reset(options={"session": index})
        while True:
            expected.append(data.lookup().predict(obs) or ShopAction("terminate"))
            obs, _, terminated, truncated, _ = env.step("")
            if terminated or truncated:
                break
    env.close()
    assert len(rows) == len(expected) > 3
    for row, action in zip(rows, expected, strict=True):
        assert lookup_line(action) in row.prompt, row.prompt[-200:]
        assert (
            len(tok(row.prompt, add_special_tokens=False)["input_ids"]) <= PROMPT.max_prompt_tokens
        )
    assert all("# The lookup predicts: " in r.prompt for r in test_rows)
    plain = data.rows(folder, tok, PROMPT, "validation", 3)
    assert not any("# The lookup predicts" in r.prompt for r in plain)  # off by default
