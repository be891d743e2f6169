"""Tokenizer, prompt, model round trips, self-certainty recording and the env reward function."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch

from rewardgym.agents.llm.config import PromptConfig, SamplingConfig
from rewardgym.agents.llm.generation import (
    generate,
    policy_output,
    rationale_positions,
    token_char_ends,
)
from rewardgym.agents.llm.model import build_model, load_model, save_model
from rewardgym.agents.llm.policy import LLMPolicy, generation_config
from rewardgym.agents.llm.prompt import FOOTER, INSTRUCTIONS, TRUNCATED, PromptBuilder
from rewardgym.agents.llm.rewards import (
    EnvReward,
    certainty_kind,
    completion_text,
    forward_token_certainty,
    summed_terms,
)
from rewardgym.envs import SHOP_SESSION_ID
from rewardgym.envs.shopping.context import MAX_CHARS_PER_TOKEN
from rewardgym.envs.shopping.parsing import format_output
from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.wrappers import BinaryMatchReward, RewardTerms, ShopR1Config, ShopR1Reward
from rewardgym.wrappers.self_certainty import token_self_certainty

TERMS = RewardTerms.SUMMED


def test_tokenizer_round_trips_and_reloads(tiny_model: Path, tiny_rows) -> None:
    _, tokenizer = load_model(tiny_model)
    for text in (tiny_rows[3].prompt, tiny_rows[3].completion, "ünïcode ✓ {}"):
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        assert tokenizer.decode(ids) == text
    assert tokenizer.eos_token == tokenizer.pad_token == "<|endoftext|>"
    assert tokenizer.padding_side == "left"


def test_prompt_fits_budget_and_keeps_the_newest_context(tiny_model: Path) -> None:
    _, tokenizer = load_model(tiny_model)
    builder = PromptBuilder(tokenizer, PromptConfig(max_prompt_tokens=160))
    context = "".join(f"<p>old line {i}</p>" for i in range(300)) + '<button name="place_order"/>'
    prompt = builder({"context": context})
    assert prompt.startswith(INSTRUCTIONS) and prompt.endswith(FOOTER)
    assert TRUNCATED in prompt and '<button name="place_order"/>' in prompt
    assert "old line 0<" not in prompt
    assert len(tokenizer(prompt, add_special_tokens=False)["input_ids"]) <= 160
    short = builder({"context": "<p>hi</p>"})
    assert TRUNCATED not in short and "<p>hi</p>" in short


def test_a_prompt_stays_within_its_character_cap_when_a_word_is_one_token() -> None:
    """Issue 39, item 16: a tokenizer that reads a long word as one token let a megabyte through."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.WordLevel({"[UNK]": 0, "buy": 1}, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    words = PreTrainedTokenizerFast(tokenizer_object=core, unk_token="[UNK]")
    builder = PromptBuilder(words, PromptConfig(max_prompt_tokens=200))
    prompt = builder({"context": "x" * 1_000_000 + " buy"})
    cap = builder.context_budget * MAX_CHARS_PER_TOKEN
    assert len(prompt) <= len(builder.frame(TRUNCATED)) + cap
    assert TRUNCATED + "x" in prompt and prompt.endswith(" buy" + FOOTER)
    assert len(words(prompt, add_special_tokens=False)["input_ids"]) <= 200
    assert builder({"context": "x" * 10 + " buy"}).endswith("\nxxxxxxxxxx buy" + FOOTER)


def test_model_saves_and_loads_identically(tiny_model: Path, tiny_config, tmp_path: Path) -> None:
    model, tokenizer = load_model(tiny_model)
    other = build_model(tiny_config.default_model, tokenizer, seed=1)
    save_model(other, tokenizer, tmp_path / "m")
    loaded, _ = load_model(tmp_path / "m")
    assert (tmp_path / "m" / "model.safetensors").is_file()
    for (name, a), (_, b) in zip(
        other.state_dict().items(), loaded.state_dict().items(), strict=True
    ):
        assert torch.equal(a, b), name
    assert not torch.equal(model.model.embed_tokens.weight, other.model.embed_tokens.weight)


def test_a_save_cut_off_leaves_the_earlier_folder_or_none(
    tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 39, item 2: weights never land without their tokenizer (a kill mid-save)."""
    model, tokenizer = load_model(tiny_model)
    old = save_model(model, tokenizer, tmp_path / "old")
    before = {p.name: p.read_bytes() for p in old.iterdir()}

    def killed(*args: object, **kwargs: object) -> None:
        raise RuntimeError("killed while the tokenizer was written")

    monkeypatch.setattr(tokenizer, "save_pretrained", killed)
    for target in (tmp_path / "new", old):
        with pytest.raises(RuntimeError, match="killed"):
            save_model(model, tokenizer, target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old"]  # no half folder, no temporary
    assert {p.name: p.read_bytes() for p in old.iterdir()} == before


def test_recorded_certainty_equals_a_forward_pass(tiny_model: Path, tiny_rows) -> None:
    model, tokenizer = load_model(tiny_model)
    prompts = [tiny_rows[0].prompt, tiny_rows[5].prompt]  # different lengths: left padding
    prompt_ids = tokenizer(prompts, add_special_tokens=False)["input_ids"]
    torch.manual_seed(0)
    config = generation_config(tokenizer, 1.0, 1.0, 12)
    result = generate(model, tokenizer, prompt_ids, config, certainty="paper")
    assert result.certainty is not None
    for p, c, values in zip(prompt_ids, result.completion_ids, result.certainty, strict=True):
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([p + c])).logits[0]
        expected = token_self_certainty(logits[len(p) - 1 : len(p) + len(c) - 1], "paper")
        np.testing.assert_allclose(values, expected, rtol=1e-4, atol=1e-9)


def test_rationale_positions_cover_the_rationale(tiny_model: Path) -> None:
    model, tokenizer = load_model(tiny_model)
    text = format_output("I want the blue one.", ShopAction("click", "product_2_title"))
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    positions = rationale_positions(tokenizer, ids, text)
    covered = tokenizer.decode([ids[i] for i in positions])
    assert "I want the blue one." in covered and "product_2_title" not in covered
    (values,) = forward_token_certainty(model, tokenizer, ["hello "], [ids], "paper")
    assert values.shape == (len(ids),) and (values >= 0).all()
    # The wrapper's cut of every token's values is exactly the rationale's positions.
    output = policy_output(tokenizer, ids, text, values)
    np.testing.assert_array_equal(output.rationale_certainty(), values[positions])


def test_policy_is_seeded(tiny_model: Path, tiny_rows) -> None:
    observations = [{"context": "<p>a page</p>"}, {"context": '<a name="checkout">Go</a>'}]
    sampling = SamplingConfig(max_new_tokens=10, batch_size=1)
    policy = LLMPolicy.from_path(tiny_model, PromptConfig(max_prompt_tokens=224), sampling)
    first = policy(observations)
    policy.reset_seed()
    again = policy.act_with_certainty(observations)
    assert [o.text for o in again] == first
    policy.reset_seed(5)
    assert policy(observations) != first or all(len(t) == 0 for t in first)


def test_certainty_kind_follows_the_wrapper(shop_store: Path) -> None:
    def make() -> gym.Env:
        return gym.make(SHOP_SESSION_ID, data=shop_store)

    assert certainty_kind(ShopR1Reward(make())) == "paper"
    assert certainty_kind(ShopR1Reward(make(), ShopR1Config(self_certainty_kind="kang"))) == "kang"
    assert certainty_kind(ShopR1Reward(make(), ShopR1Config.ablation("no-rationale"))) is None
    assert certainty_kind(BinaryMatchReward(make())) is None

    class Declares(gym.Wrapper):
        self_certainty_kind = "kang"

    class OnlyAConfig(gym.Wrapper):
        config = ShopR1Config(alpha=1.0)  # a config is not a declaration

    assert certainty_kind(gym.Wrapper(Declares(make()))) == "kang"
    # BinaryMatchReward is ShopR1Reward at alpha 0: it declares None, and steps the inner env
    # with the text alone, so an inner layer's certainty term would get no certainties.
    assert certainty_kind(BinaryMatchReward(Declares(make()))) is None
    assert certainty_kind(OnlyAConfig(make())) is None


def test_completion_text_reads_plain_and_conversational_completions() -> None:
    text = format_output("Done.", ShopAction("terminate"))
    assert completion_text(text) == text
    assert (
        completion_text([{"role": "user", "content": "p"}, {"role": "assistant", "content": text}])
        == text
    )
    assert completion_text([{"role": "assistant", "content": None}]) == ""
    assert completion_text([]) == "" and completion_text(None) == ""


@pytest.mark.parametrize("wrapper", [ShopR1Reward, BinaryMatchReward])
def test_env_reward_equals_stepping_the_wrapper(shop_store: Path, tiny_rows, wrapper) -> None:
    reward = EnvReward(wrapper(gym.make(SHOP_SESSION_ID, data=shop_store)))
    rows = tiny_rows[2:6]
    wrong = format_output("Hmm.", ShopAction("terminate"))
    completions = [r.completion for r in rows] + [wrong]
    sessions = [r.session for r in rows] + [rows[0].session]
    steps = [r.step for r in rows] + [rows[0].step]
    got = reward(["p"] * len(completions), completions, sessions, steps)
    direct = wrapper(gym.make(SHOP_SESSION_ID, data=shop_store))
    for text, s, j, value in zip(completions, sessions, steps, got, strict=True):
        direct.reset(options={"session": s})
        for _ in range(j):
            direct.step("")
        assert direct.step(text)[1] == pytest.approx(value)
    assert got[0] >= 1.0 and got[0] > got[-1]


def test_env_reward_computes_certainty_by_a_forward_pass_when_the_rollout_brings_none(
    tiny_model: Path, shop_store: Path, tiny_rows
) -> None:
    model, tokenizer = load_model(tiny_model)
    reward = EnvReward(ShopR1Reward(gym.make(SHOP_SESSION_ID, data=shop_store)))
    reward.bind_model(model, tokenizer)
    rows = tiny_rows[2:4]
    prompts = [r.prompt for r in rows]
    ids = [tokenizer(r.completion, add_special_tokens=False)["input_ids"] for r in rows]
    args = (
        prompts,
        [r.completion for r in rows],
        [r.session for r in rows],
        [r.step for r in rows],
    )
    forward = reward(*args, completion_ids=ids)  # the vLLM path: no certainty from the rollout
    assert reward._last_terms["rationale_missing"] == [0.0, 0.0]
    assert all(v > 0 for v in reward._last_terms["rationale"])
    values = forward_token_certainty(model, tokenizer, prompts, ids, "paper")
    ends = [token_char_ends(tokenizer, i) for i in ids]
    assert reward(*args, token_certainty=values, token_ends=ends) == pytest.approx(forward)
    reward(*args)
    assert reward._last_terms["rationale_missing"] == [1.0, 1.0]


def test_term_functions_split_the_wrapper_total(shop_store: Path, tiny_rows) -> None:
    reward = EnvReward(ShopR1Reward(gym.make(SHOP_SESSION_ID, data=shop_store)))
    rows = tiny_rows[2:6]
    columns = {"session": [r.session for r in rows], "step": [r.step for r in rows]}
    completions = [r.completion for r in rows]
    totals = reward(["p"] * 4, completions, **columns)
    parts = [
        f(prompts=["p"] * 4, completions=completions, **columns) for f in reward.term_functions()
    ]
    assert [f.__name__ for f in reward.term_functions()] == [f"term_{t}" for t in TERMS]
    assert np.allclose(np.sum(parts, axis=0), totals)
    assert len(reward.durations) == 2  # one scoring for all five terms


def test_per_term_advantages_read_the_terms_the_wrapper_declares(
    shop_store: Path, tiny_rows
) -> None:
    """The GRPO reward knows no term names of its own: a wrapper declares them (summed_terms)."""
    rows = tiny_rows[2:4]
    columns = {"session": [r.session for r in rows], "step": [r.step for r in rows]}
    completions = [r.completion for r in rows]

    class TwoTerms(ShopR1Reward):
        summed_terms = ("format", "action")

    reward = EnvReward(TwoTerms(gym.make(SHOP_SESSION_ID, data=shop_store)))
    assert summed_terms(reward.env) == ("format", "action")
    assert [f.__name__ for f in reward.term_functions()] == ["term_format", "term_action"]
    totals = reward(["p"] * 2, completions, **columns)
    parts = [f(["p"] * 2, completions, **columns) for f in reward.term_functions()]
    assert np.allclose(np.sum(parts, axis=0), totals)

    plain = EnvReward(gym.make(SHOP_SESSION_ID, data=shop_store))  # the env's own reward
    assert summed_terms(plain.env) is None
    with pytest.raises(ValueError, match="summed_terms"):
        plain.term_functions()


def test_chat_template_prompts_use_the_tokenizer_template(tiny_model: Path) -> None:
    _, tokenizer = load_model(tiny_model)
    tokenizer.chat_template = (
        "{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}</{{ m['role'] }}>{% endfor %}"
        "{% if add_generation_prompt %}<assistant>{% endif %}"
    )
    chat = PromptBuilder(tokenizer, PromptConfig(max_prompt_tokens=300))
    prompt = chat({"context": "Step 1 (current) page:\n[checkout]"})
    assert prompt.startswith("<system>You simulate") and prompt.endswith("<assistant>")
    assert "[checkout]" in prompt.split("<user>")[1]
    plain = PromptBuilder(tokenizer, PromptConfig(max_prompt_tokens=300, chat_template="never"))
    assert plain({"context": "x"}).startswith(INSTRUCTIONS)
    assert chat.env_kwargs()["max_context_tokens"] == chat.context_budget
