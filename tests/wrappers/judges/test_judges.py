"""Prompts, answer parsers, the embedding judge on hashed vectors and the hf judge on a tiny LM."""

from __future__ import annotations

from pathlib import Path

import pytest

from rewardgym.embeddings import hashing_embedder
from rewardgym.wrappers.judges import (
    EmbeddingJudge,
    JudgeRequest,
    Transition,
    goal_phrases,
    parse_object_list,
    parse_rating,
    parse_yes_no,
)
from rewardgym.wrappers.judges.prompts import load_prompts, parse_prompt

STEP = Transition(
    instruction="Put the apple in the fridge.",
    observation="You see: apple, fridge, plate.",
    action="find apple",
    visible=("apple", "fridge", "plate", "kitchen table"),
    reachable=("bedroom",),
)


def test_default_prompts_are_one_naive_three_in_context_one_chain_of_thought() -> None:
    prompts = load_prompts(5)
    kinds = [p.kind for p in prompts]
    assert kinds == ["naive", "in-context", "in-context", "in-context", "chain-of-thought"]
    demos = {tuple(d.action for d in p.demonstrations) for p in prompts if p.kind == "in-context"}
    assert len(demos) == 3  # three different demonstration sets
    assert len({p.phrases for p in prompts}) >= 3
    assert len(load_prompts(7)) == 7
    with pytest.raises(ValueError, match="prompt files"):
        load_prompts(99)


def test_prompt_files_render_and_report_format_errors(tmp_path: Path) -> None:
    text = load_prompts(2)[1].render("rate", {"instruction": "Do it {now}", "action": "find x"})
    assert "Do it {now}" in text and "find x" in text and "2: the next correct action" in text
    with pytest.raises(ValueError, match="rate"):
        parse_prompt("kind: naive\n", "bad", "bad.txt")
    with pytest.raises(ValueError, match=r"bad.txt.*demonstration"):
        parse_prompt("=== demonstrations ===\nonly one field\n=== rate ===\nx\n", "bad", "bad.txt")
    (tmp_path / "a.txt").write_text("kind: naive\n=== rate ===\nRate {action}\n")
    (user,) = load_prompts(1, tmp_path)
    assert user.name == "a" and user.render("rate", {"action": "grab cup"}) == "Rate grab cup\n"


@pytest.mark.parametrize(
    ("answer", "rating"),
    [
        ("2", 2),
        ("-1", -1),
        ("Reasoning: step 1 done.\nRating: 1", 1),
        ("3", None),
        ("2 or 1", None),
    ],
)
def test_parse_rating(answer: str, rating: int | None) -> None:
    assert parse_rating(answer) == rating


def test_parse_yes_no_and_object_lists() -> None:
    assert parse_yes_no("Yes, it does.") is True
    assert parse_yes_no("no") is False
    assert parse_yes_no("maybe") is None
    assert parse_object_list("The fridge, apple.") == ("apple", "fridge")
    assert parse_object_list("none") == ()
    assert parse_object_list("") is None


def test_goal_phrase_modes_differ() -> None:
    text = "Find the apple, grab it and put it in the fridge."
    assert goal_phrases(text, "instruction") == (text.lower(),)
    assert len(goal_phrases(text, "clauses")) == 3
    assert goal_phrases(text, "objects") == ("apple", "fridge")
    assert goal_phrases(text, "pairs") == ("find apple", "apple grab", "grab put", "put fridge")


def test_embedding_judge_rates_relevant_above_irrelevant_and_flags_impossible() -> None:
    judge = EmbeddingJudge(hashing_embedder())
    prompts = load_prompts(5)

    def rate(action: str, held: str = "") -> list[int | None]:
        step = Transition(
            STEP.instruction, STEP.observation, action, STEP.visible, held, STEP.reachable
        )
        return judge.rate([JudgeRequest("rate", p, step) for p in prompts])

    relevant, irrelevant = rate("find apple"), rate("find plate")
    # Hashed trigrams are a crude stand-in for MiniLM: the ranking, not each vote, is the point.
    assert max(r or 0 for r in relevant) == 2
    assert sum(r or 0 for r in relevant) > sum(r or 0 for r in irrelevant)
    assert rate("find toothbrush") == [-2] * 5  # not visible here
    assert rate("put in fridge") == [-2] * 5  # nothing held
    assert rate("grab plate", held="apple") == [-2] * 5  # hands full
    structural = judge.ask([JudgeRequest("structural", p, STEP) for p in prompts])
    assert all(parse_object_list(a) is not None for a in structural)
    assert any("apple" in (a or "") for a in structural)
    verdicts = judge.ask(
        [JudgeRequest("temporal", prompts[1], STEP, actions=("find apple", "put in fridge"))]
    )
    assert verdicts[0] in ("yes", "no")
    assert judge.stats.calls == 5 * 5 + 5 + 1


HOUSE = ("fridge", "kitchen table", "apple", "milk", "sofa", "tv", "trash can")
KITCHEN = Transition(
    instruction="Put the apple in the fridge.",
    observation="",
    action="",
    visible=("fridge", "kitchen table", "milk", "trash can"),
    reachable=("living room", "bedroom"),
    room="kitchen",
    closed=("fridge",),
    objects=HOUSE,
    facts=True,
)


def _votes(judge: EmbeddingJudge, step: Transition, action: str) -> list[int | None]:
    from dataclasses import replace

    return judge.rate(
        [JudgeRequest("rate", p, replace(step, action=action)) for p in load_prompts(5)]
    )


def test_embedding_judge_reads_preconditions_from_the_scene_facts() -> None:
    from dataclasses import replace

    judge = EmbeddingJudge(hashing_embedder())
    assert _votes(judge, KITCHEN, "grab milk") == [-2] * 5  # not next to it
    assert _votes(judge, KITCHEN, "walk to kitchen") == [-2] * 5  # already there
    assert _votes(judge, KITCHEN, "open fridge") == [-2] * 5  # not next to the fridge
    assert _votes(judge, KITCHEN, "put in fridge") == [-2] * 5  # nothing held
    near = replace(KITCHEN, near="fridge")
    assert -2 not in _votes(judge, near, "open fridge")
    assert _votes(judge, near, "close fridge") == [-2] * 5  # it is closed
    holding = replace(KITCHEN, near="fridge", held="apple")
    assert _votes(judge, holding, "put in fridge") == [-2] * 5  # closed: open it first
    opened = replace(holding, closed=(), opened=("fridge",))
    assert -2 not in _votes(judge, opened, "put in fridge")
    assert _votes(judge, opened, "grab milk") == [-2] * 5  # hands full
    # Without facts only the text rules apply: grabbing from afar is not ruled out.
    assert -2 not in _votes(judge, replace(KITCHEN, facts=False, action=""), "grab milk")


def test_embedding_judge_rates_searching_for_a_missing_needed_object_supportive() -> None:
    from dataclasses import replace

    judge = EmbeddingJudge(hashing_embedder())
    # The apple is needed and out of sight: another room or a closed container may hold it.
    for action, step in (
        ("walk to living room", KITCHEN),
        ("open fridge", replace(KITCHEN, near="fridge")),
    ):
        assert min(v for v in _votes(judge, step, action) if v is not None) >= 1, action
    # Once the apple is in view, walking away is no longer a search for it.
    seen = replace(KITCHEN, visible=(*KITCHEN.visible, "apple"))
    assert max(v for v in _votes(judge, seen, "walk to bedroom") if v is not None) <= 0
