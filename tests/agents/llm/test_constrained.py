"""Constrained decoding: every completion parses and names an action its page allows."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rewardgym  # noqa: F401  (registers the envs)
from rewardgym.agents.llm.config import SamplingConfig
from rewardgym.agents.llm.constrained import ActionGrammar, action_grammar
from rewardgym.agents.llm.model import load_tokenizer
from rewardgym.agents.llm.policy import LLMPolicy
from rewardgym.envs.shopping.page_actions import PageActions, input_names
from rewardgym.envs.shopping.parsing import parse_output


def allowed_by(actions: PageActions, text: str) -> bool:
    """Whether ``text`` parses into an action ``actions`` allows."""
    parsed = parse_output(text)
    if not parsed.has_valid_format or parsed.action is None:
        return False
    action = parsed.action
    if action.type == "click":
        return action.name in actions.clickable
    if action.type == "type_and_submit":
        return action.name in actions.inputs
    return True


@pytest.fixture(scope="module")
def grammar(tiny_model: Path) -> ActionGrammar:
    tokenizer = load_tokenizer(tiny_model)
    return ActionGrammar(tokenizer, [tokenizer.eos_token_id])


def random_walk(grammar: ActionGrammar, actions: PageActions, max_new_tokens: int, seed: int):
    """Tokens drawn uniformly among the grammar's allowed ones, until it ends or the budget does."""
    import llguidance

    budget = grammar.budget(actions, max_new_tokens)
    matcher = llguidance.LLMatcher(
        grammar._ll,
        llguidance.LLMatcher.grammar_from_lark(
            action_grammar(
                actions, budget.rationale, grammar.text_tokens, action_first=grammar.action_first
            )
        ),
    )
    assert not matcher.is_error(), matcher.get_error()
    rng = np.random.default_rng(seed)
    tokens: list[int] = []
    while not matcher.is_stopped() and len(tokens) < budget.total:
        bits = np.unpackbits(np.frombuffer(matcher.compute_bitmask(), np.uint8), bitorder="little")
        choice = int(rng.choice(np.flatnonzero(bits[: grammar.vocab])))
        assert matcher.consume_token(choice)
        tokens.append(choice)
    return tokens, matcher.is_stopped(), budget


names = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters='"'), min_size=1, max_size=24
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    clickable=st.lists(names, max_size=6, unique=True),
    inputs=st.lists(names, max_size=2, unique=True),
    max_new_tokens=st.integers(1, 80),
    seed=st.integers(0, 2**16),
)
def test_any_walk_through_the_grammar_parses_into_an_allowed_action(
    grammar: ActionGrammar, clickable, inputs, max_new_tokens: int, seed: int
) -> None:
    actions = PageActions(tuple(clickable), tuple(n for n in inputs if n not in clickable))
    tokens, ended, budget = random_walk(grammar, actions, max_new_tokens, seed)
    text = grammar.tokenizer.decode(tokens, skip_special_tokens=True)
    assert ended, f"the walk did not end within its budget of {budget.total}: {text!r}"
    assert allowed_by(actions, text), text


def test_the_action_first_grammar_writes_the_action_before_the_rationale(tiny_model: Path) -> None:
    tokenizer = load_tokenizer(tiny_model)
    first = ActionGrammar(tokenizer, [tokenizer.eos_token_id], action_first=True)
    actions = PageActions(("add_to_cart", "product_1_title"), ("search_input",))
    for seed in range(12):
        tokens, ended, _ = random_walk(first, actions, 40, seed)
        text = tokenizer.decode(tokens, skip_special_tokens=True)
        assert ended and text.startswith('{"action": {"type": "'), text
        assert allowed_by(actions, text), text


def test_page_actions_split_inputs_from_clicks_and_follow_ids() -> None:
    page = (
        '<form><input name="search_input" value="x"/><textarea name=\'note\'></textarea></form>'
        '<a name="product_1_title">A</a><button name="add_to_cart">Add</button>'
    )
    assert input_names(page) == {"search_input", "note"}
    plain = PageActions.of_page(page)
    assert plain == PageActions(("product_1_title", "add_to_cart"), ("search_input", "note"))
    assert PageActions.of_page(page, ids=True) == PageActions(("[3]", "[4]"), ("[1]", "[2]"))


@pytest.fixture(scope="module")
def loaded(tiny_model: Path):
    from rewardgym.agents.llm.model import load_model

    return load_model(tiny_model)


def _observations(store: Path, policy: LLMPolicy, sessions: int = 3) -> list[dict]:
    env = gym.make("rewardgym/ShopSession-v0", data=store, split="test", **policy.env_kwargs())
    seen = []
    for index in range(sessions):
        obs, _ = env.reset(options={"session": index})
        while True:
            seen.append(obs)
            obs, _, terminated, truncated, _ = env.step("")
            if terminated or truncated or len(seen) % 3 == 0:
                break
    env.close()
    return seen


@pytest.mark.parametrize(
    ("temperature", "top_p", "ids", "action_first"),
    [(1.0, 0.5, True, False), (0.0, 1.0, False, False), (1.0, 1.0, False, True)],
)
def test_a_policy_decoding_constrained_always_names_an_action_on_its_page(
    loaded,
    shop_store: Path,
    tiny_config,
    temperature: float,
    top_p: float,
    ids: bool,
    action_first: bool,
) -> None:
    from dataclasses import replace

    model, tokenizer = loaded
    prompt = replace(tiny_config.prompt, element_ids=ids, action_first=action_first)
    sampling = SamplingConfig(
        temperature=temperature, top_p=top_p, max_new_tokens=24, decoding="constrained"
    )
    policy = LLMPolicy(model, tokenizer, prompt, sampling)
    observations = _observations(shop_store, policy)
    texts = policy(observations)
    actions = policy.page_actions(observations)
    assert len(texts) == len(observations) >= 6
    assert all(allowed_by(a, t) for a, t in zip(actions, texts, strict=True)), texts
    order = '{"action": ' if action_first else '{"rationale": '
    assert all(t.startswith(order) for t in texts), texts
    if temperature == 0:
        # The untrained model never writes JSON freely: the constraint is what makes it parse.
        free = LLMPolicy(model, tokenizer, prompt, replace(sampling, decoding="free"))
        assert sum(parse_output(t).has_valid_format for t in free(observations)) < len(texts)


def test_constrained_decoding_needs_the_pages_actions(loaded) -> None:
    policy = LLMPolicy(*loaded, sampling=SamplingConfig(decoding="constrained"))
    with pytest.raises(ValueError, match="needs the actions each prompt's page allows"):
        policy.complete(["a prompt"])
