"""Benchmark Shop-R1 reward scoring: our ``rouge_l`` against ``rouge-score``, alone and inside the reward.

Run: ``python -m rewardgym.benchmarks.perf.shop_r1_reward`` (``--help`` lists the config; needs the
``test`` extra for ``rouge-score``). Prints, in one run: (a) ``rouge_l`` per call against
``RougeScorer(["rougeL"]).score`` on the same pairs (as sampled, then with every string made
unique so that the tokenisation cache never hits), (b) the whole Shop-R1 scoring of
(output, human action) pairs with our ROUGE-L against the same code with ``rouge-score``
inside, each with its speed ratio and largest absolute difference, and (c) a cProfile summary
of where the remaining time of (b) goes. The human actions are drawn from the embedded
synthetic corpus; the outputs are JSON predictions that copy, perturb (near misses on both
sides of the ROUGE threshold), replace (far misses), mistype or break them.
"""

from __future__ import annotations

import cProfile
import io
import itertools
import json
import math
import pstats
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, Any

import tyro

import rewardgym  # noqa: F401
from rewardgym.bounds import AT_LEAST_1, SEED, check_fields
from rewardgym.envs.shopping.parsing import parse_output
from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.envs.shopping.session_sources import default_session_log
from rewardgym.wrappers.rouge import RougeFn, clear_rouge_cache, rouge_l, rouge_tokenize
from rewardgym.wrappers.shop_r1 import ShopR1Config, shop_r1_reward


@dataclass(frozen=True)
class Config:
    """Benchmark sizes."""

    pairs: Annotated[int, AT_LEAST_1] = 100_000
    """(prediction, reference) pairs for (a) and (output, human action) pairs for (b)"""
    seed: Annotated[int, SEED] = 0
    """seed of the sampled human actions and of their perturbations"""
    repeats: Annotated[int, AT_LEAST_1] = 3
    """timings per measurement, the best one reported (each starts from a cold ROUGE cache)"""
    profile_rows: Annotated[int, AT_LEAST_1] = 12
    """functions listed in the profile summary"""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range before any work."""
        check_fields(self)


PROFILED = (
    "shop_r1_reward",
    "parse_output",
    "action_reward",
    "rouge_l",
    "actions_match",
    "format_reward",
)
"""Functions whose share of the reward's time the profile summary names."""


def rouge_score_rouge_l() -> RougeFn:
    """``rouge-score``'s rougeL F-measure behind our ``(prediction, reference)`` signature."""
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    return lambda prediction, reference: scorer.score(reference, prediction)["rougeL"].fmeasure


def samples(seed: int) -> Iterator[tuple[str, ShopAction]]:
    """Endless (output, human action) pairs: human steps drawn uniformly from the synthetic corpus."""
    store = default_session_log()
    rng = random.Random(seed)
    while True:
        session = rng.randrange(len(store))
        truth = store.step(session, rng.randrange(store.session_length(session))).action
        other_session = rng.randrange(len(store))
        other = store.step(other_session, rng.randrange(store.session_length(other_session)))
        yield prediction(truth, other.action, rng), truth


def perturb(text: str, rng: random.Random) -> str:
    """A near miss: one word dropped, added or replaced, or the case and separators changed."""
    words = text.replace("_", " ").split() or ["item"]
    edit = rng.randrange(4)
    i = rng.randrange(len(words))
    if edit == 0 and len(words) > 1:
        del words[i]
    elif edit == 1:
        words.insert(i, rng.choice(["the", "blue", "new", "2", "pack"]))
    elif edit == 2:
        words[i] = rng.choice(["red", "large", "cheap", "button", "link"])
    else:
        return text.upper().replace("_", "-")
    return "_".join(words) if "_" in text else " ".join(words)


def prediction(truth: ShopAction, other: ShopAction, rng: random.Random) -> str:
    """A realistic policy output for ``truth``; ``other`` is a random action for far misses."""
    kind = rng.random()
    if kind < 0.25:
        action = truth
    elif kind < 0.60:
        action = ShopAction(truth.type, perturb(truth.name, rng), perturb(truth.text, rng))
    elif kind < 0.80:
        action = (
            ShopAction(truth.type, other.name, other.text) if truth.type != "terminate" else other
        )
    else:
        action = other
    rationale = rng.choice(
        [
            "I want to compare a few options before I decide, so I open this one.",
            "This looks like what I was searching for; the price is within my budget.",
            "Nothing here fits, so I search again with more specific words.",
        ]
    )
    text = json.dumps({"rationale": rationale, "action": action.to_dict()})
    if rng.random() < 0.05:
        return text[: rng.randrange(len(text))]  # a truncated, invalid output
    return text


def rouge_pairs(n: int, seed: int) -> list[tuple[str, str]]:
    """``n`` (predicted, human) strings that the reward compares: click names, typed names and texts."""
    pairs: list[tuple[str, str]] = []
    for output, truth in samples(seed):
        predicted = parse_output(output).action or ShopAction("terminate")
        if truth.type != "terminate":
            pairs.append((predicted.name, truth.name))
        if truth.type == "type_and_submit":
            pairs.append((predicted.text, truth.text))
        if len(pairs) >= n:
            return pairs[:n]
    raise AssertionError("samples() is endless")


def timed(fn: Any, items: list[Any], repeats: int) -> tuple[float, list[float]]:
    """Best of ``repeats`` timings of ``fn(*item)`` over ``items``, each from a cold ROUGE cache."""
    best, results = math.inf, []
    for _ in range(repeats):
        clear_rouge_cache()
        start = time.perf_counter()
        results = [fn(*item) for item in items]
        best = min(best, time.perf_counter() - start)
    return best, results


def run(cfg: Config) -> dict[str, float]:
    """Run the three measurements, print them, and return the figures."""
    reference_rouge = rouge_score_rouge_l()
    config = ShopR1Config()

    pairs = rouge_pairs(cfg.pairs, cfg.seed)
    ours_s, ours = timed(rouge_l, pairs, cfg.repeats)
    cache = rouge_tokenize.cache_info()
    theirs_s, theirs = timed(reference_rouge, pairs, cfg.repeats)
    rouge_diff = max(abs(a - b) for a, b in zip(ours, theirs, strict=True))
    print(
        f"(a) rouge_l over {len(pairs):,} pairs (best of {cfg.repeats}): {ours_s / len(pairs) * 1e6:.2f} us/call vs "
        f"rouge-score {theirs_s / len(pairs) * 1e6:.2f} us/call -> {theirs_s / ours_s:.2f}x "
        f"faster; max |diff| {rouge_diff:.3g}; tokenisation cache (cold start) "
        f"{cache.hits:,} hits / {cache.misses:,} misses"
    )

    # Worst case for the cache: every string made unique by a numeric token of its own.
    unique = [(f"{p} {2 * i}", f"{r} {2 * i + 1}") for i, (p, r) in enumerate(pairs)]
    cold_s, cold = timed(rouge_l, unique, cfg.repeats)
    cold_ref_s, cold_ref = timed(reference_rouge, unique, cfg.repeats)
    cold_diff = max(abs(a - b) for a, b in zip(cold, cold_ref, strict=True))
    print(
        f"    same pairs, every string unique (no cache hit): {cold_s / len(pairs) * 1e6:.2f} vs "
        f"{cold_ref_s / len(pairs) * 1e6:.2f} us/call -> {cold_ref_s / cold_s:.2f}x faster; "
        f"max |diff| {cold_diff:.3g}"
    )

    items = list(itertools.islice(samples(cfg.seed + 1), cfg.pairs))
    fast_s, fast = timed(lambda o, t: shop_r1_reward(o, t, config=config).total, items, cfg.repeats)
    slow_s, slow = timed(
        lambda o, t: shop_r1_reward(o, t, config=config, rouge=reference_rouge).total,
        items,
        cfg.repeats,
    )
    reward_diff = max(abs(a - b) for a, b in zip(fast, slow, strict=True))
    print(
        f"(b) Shop-R1 reward over {len(items):,} (output, human action) pairs: "
        f"{fast_s / len(items) * 1e6:.2f} us/pair vs {slow_s / len(items) * 1e6:.2f} us/pair "
        f"with rouge-score inside -> {slow_s / fast_s:.2f}x faster; max |diff| {reward_diff:.3g}; "
        f"mean reward {sum(fast) / len(fast):.2f}"
    )

    clear_rouge_cache()
    profiler = cProfile.Profile()
    profiler.enable()
    for out, truth in items:
        shop_r1_reward(out, truth, config=config)
    profiler.disable()
    stream = io.StringIO()
    stats = pstats.Stats(profiler, stream=stream).strip_dirs().sort_stats("tottime")
    stats.print_stats(cfg.profile_rows)
    body = stream.getvalue()
    cumulative = {name: 0.0 for name in PROFILED}
    for (_, _, name), (_, _, _, cumtime, _) in stats.stats.items():  # type: ignore[attr-defined]
        if name in cumulative:
            cumulative[name] += cumtime
    whole = cumulative["shop_r1_reward"]
    shares = ", ".join(f"{name} {t / whole:.0%}" for name, t in cumulative.items() if t < whole)
    print(f"(c) where the remaining time of (b) goes: of shop_r1_reward's time, {shares}")
    print("    cProfile, sorted by own time:")
    print(body[body.find("ncalls") :].rstrip())
    return {
        "rouge_speedup": theirs_s / ours_s,
        "rouge_max_diff": rouge_diff,
        "rouge_uncached_speedup": cold_ref_s / cold_s,
        "rouge_uncached_max_diff": cold_diff,
        "reward_speedup": slow_s / fast_s,
        "reward_max_diff": reward_diff,
    }


if __name__ == "__main__":
    run(tyro.cli(Config, description=__doc__))
