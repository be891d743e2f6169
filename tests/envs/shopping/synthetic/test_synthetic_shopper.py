"""Behaviour tests of the synthetic shopper: determinism, page/action consistency, distribution."""

from __future__ import annotations

import collections
import itertools
import re
import time

import pytest

from rewardgym.envs.shopping.schema import ShopSession
from rewardgym.envs.shopping.synthetic import (
    SyntheticShopperConfig,
    generate_sessions,
    intent_for_session,
    make_session,
)
from rewardgym.envs.shopping.synthetic.generate import catalogue_for

NAME = re.compile(r'\bname="([^"]+)"')


@pytest.fixture(scope="module")
def corpus() -> list[ShopSession]:
    """Five hundred default sessions, shared by the distribution tests."""
    return list(generate_sessions(SyntheticShopperConfig(sessions=500, seed=0)))


def test_same_seed_gives_identical_sessions() -> None:
    config = SyntheticShopperConfig(sessions=40, seed=3)
    assert list(generate_sessions(config)) == list(generate_sessions(config))


def test_session_i_does_not_depend_on_corpus_size() -> None:
    small = list(generate_sessions(SyntheticShopperConfig(sessions=20, seed=5)))
    large = list(generate_sessions(SyntheticShopperConfig(sessions=60, seed=5)))
    assert large[:20] == small
    assert make_session(SyntheticShopperConfig(sessions=1, seed=5), 57) == large[57]
    assert [s.session_id for s in small[:2]] == ["syn-000001", "syn-000002"]


def test_different_seeds_give_different_sessions() -> None:
    a = list(generate_sessions(SyntheticShopperConfig(sessions=10, seed=0)))
    b = list(generate_sessions(SyntheticShopperConfig(sessions=10, seed=1)))
    assert a != b


def test_every_action_names_exactly_one_element_of_its_page(corpus: list[ShopSession]) -> None:
    for session in corpus:
        for index, step in enumerate(session.steps):
            names = NAME.findall(step.page)
            assert len(names) == len(set(names)), (session.session_id, index)
            if step.action.type != "terminate":
                assert names.count(step.action.name) == 1, (session.session_id, index, step.action)


def test_every_session_ends_with_its_only_terminate(corpus: list[ShopSession]) -> None:
    for session in corpus:
        types = [step.action.type for step in session.steps]
        assert types[-1] == "terminate"
        assert types.count("terminate") == 1


def test_action_distribution_within_documented_ranges(corpus: list[ShopSession]) -> None:
    counts = collections.Counter(step.action.type for s in corpus for step in s.steps)
    total = sum(counts.values())
    assert 0.72 <= counts["click"] / total <= 0.85
    assert 0.08 <= counts["type_and_submit"] / total <= 0.16
    assert counts["terminate"] == len(corpus)
    assert 8.0 <= total / len(corpus) <= 15.0


def test_steps_carry_rationale_increasing_time_and_metadata(corpus: list[ShopSession]) -> None:
    for session in corpus:
        times = [step.timestamp for step in session.steps]
        assert all(b > a for a, b in itertools.pairwise(times))
        for step in session.steps:
            assert step.rationale and step.rationale.strip()
            assert step.meta["page_type"] and step.meta["url"].startswith("/")
            assert 300 <= len(step.page) <= 2600
            assert "<script" not in step.page and "<style" not in step.page


def test_queries_and_first_rationale_relate_to_the_hidden_intent(
    corpus: list[ShopSession],
) -> None:
    config = SyntheticShopperConfig(sessions=500, seed=0)
    catalogue = catalogue_for(config)
    for index, session in enumerate(corpus):
        intent = intent_for_session(config, index)
        spec = intent.spec
        words = set()
        for phrase in (spec.noun, *spec.synonyms, *intent.must, *intent.nice, intent.brand or ""):
            words.update(phrase.lower().split())
        for step in session.steps:
            if step.action.name == "search_input":
                tokens = step.action.text.split()
                fixed = {catalogue.correct(t) or t for t in tokens}
                assert fixed & words, (session.session_id, step.action.text, intent)
        first = session.steps[0].rationale or ""
        assert any(w in first.lower() for w in (*words, spec.key.replace("_", " "))), first


def test_search_engine_reads_intent_words_and_suggests_spelling_fixes() -> None:
    catalogue = catalogue_for(SyntheticShopperConfig())
    result = catalogue.search("waterproof jacket")
    assert result.category == "jackets" and result.products
    assert all(p.category == "jackets" for p in result.products)
    assert "waterproof" in result.products[0].features
    assert catalogue.search("waterprof jacket").suggestion == "waterproof jacket"
    assert catalogue.search("jakcet").products == ()


def test_next_action_is_not_determined_by_the_page_alone(corpus: list[ShopSession]) -> None:
    # Every session starts on the same home page, yet first actions differ: only the hidden
    # intent decides them, so no model can reach 100% exact match from the context alone.
    first_pages = {s.steps[0].page for s in corpus}
    first_actions = collections.Counter(s.steps[0].action for s in corpus)
    assert len(first_pages) == 1
    assert len(first_actions) > 100
    assert max(first_actions.values()) < 0.2 * len(corpus)


def test_config_rejects_bad_values_and_names_the_field() -> None:
    with pytest.raises(ValueError, match="typo_rate"):
        SyntheticShopperConfig(typo_rate=1.5)
    with pytest.raises(ValueError, match="results_per_page"):
        SyntheticShopperConfig(results_per_page=0)


def test_generation_is_fast_and_lazy() -> None:
    sessions = generate_sessions(SyntheticShopperConfig(sessions=10**9))
    start = time.perf_counter()
    for _ in range(300):
        next(sessions)
    assert time.perf_counter() - start < 3.0
