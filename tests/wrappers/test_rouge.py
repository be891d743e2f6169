"""``rouge_l`` equals ``rouge-score``'s rougeL F-measure (default tokeniser, no stemmer) on every input."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer

from rewardgym.wrappers.rouge import clear_rouge_cache, rouge_l, rouge_tokenize
from rewardgym.wrappers.shop_r1 import rouge_l as public_rouge_l

SCORER = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)

# Pieces chosen so tokenisation matters: case, digits, punctuation glued to words, non-ASCII
# letters (dropped by rouge-score), characters whose lower() is ASCII (Kelvin sign, dotted I),
# and odd whitespace.
VOCAB = [
    "add",
    "Add",
    "ADD",
    "to",
    "cart",
    "cart.",
    "(cart)",
    "blue",
    "Blue-Shirt",
    "men's",
    "size",
    "10",
    "10.5",
    "x2",
    "2-pack",
    "café",
    "naïve",
    "über",
    "Straße",
    "İstanbul",
    "\u212a",
    "日本",
    "🙂",
    "--",
    "...",
    "&",
    "a_b",
    "e-mail",
    "",
    " ",
    "\t",
    "\u00a0",
    "\n",
]


def reference(prediction: str, target: str) -> float:
    """rouge-score's rougeL F-measure, with its (target, prediction) argument order."""
    return SCORER.score(target, prediction)["rougeL"].fmeasure


def random_text(rng: random.Random) -> str:
    words = [rng.choice(VOCAB) for _ in range(rng.randint(0, 12))]
    return rng.choice([" ", "", "  ", ","]).join(words)


def test_equals_rouge_score_on_thousands_of_random_token_sequences() -> None:
    rng = random.Random(20250717)
    for _ in range(5000):
        prediction, target = random_text(rng), random_text(rng)
        assert abs(rouge_l(prediction, target) - reference(prediction, target)) <= 1e-9, (
            prediction,
            target,
        )


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40), st.text(max_size=40))
def test_equals_rouge_score_on_arbitrary_unicode(prediction: str, target: str) -> None:
    assert abs(rouge_l(prediction, target) - reference(prediction, target)) <= 1e-9


@pytest.mark.parametrize(
    ("prediction", "target", "expected"),
    [
        ("add to cart", "Add to Cart", 1.0),
        ("add to cart now", "add to cart", 2 * 0.75 * 1.0 / 1.75),
        ("buy red running shoes", "buy blue running shoes", 0.75),
        ("", "add to cart", 0.0),
        ("!!!", "!!!", 0.0),
        ("cart add", "add cart", 0.5),
    ],
)
def test_hand_computed_scores(prediction: str, target: str, expected: float) -> None:
    assert rouge_l(prediction, target) == pytest.approx(expected, abs=1e-12)
    assert reference(prediction, target) == pytest.approx(expected, abs=1e-12)


def test_tokeniser_matches_rouge_score_details() -> None:
    def words(text: str) -> list[str]:
        return [token.decode("ascii") for token in rouge_tokenize(text)]

    assert words("Men's BLUE-shirt, size 10.5!") == ["men", "s", "blue", "shirt", "size", "10", "5"]
    assert words("café \u212a İ\ud800x") == ["caf", "k", "i", "x"]
    assert words("日本 🙂\t\n") == []


def test_public_name_and_cache_clearing() -> None:
    assert public_rouge_l is rouge_l
    rouge_l("blue shirt", "blue shirts")
    clear_rouge_cache()
    assert rouge_tokenize.cache_info().currsize == 0
    assert rouge_l("blue shirt", "blue shirts") == 0.5
