"""The hf judge's speed: a batch read as one token trie after a cached prompt head, vs plain passes.

Reads top to bottom: collect a few Household episodes, take some of their observations, and
rate every action at each of them under every prompt (what the judge-quality report asks:
an observation's prompts share everything but the action). The packed judge
(``reuse_prefix=True``) and the plain one (one forward pass over the whole prompt per
rating) rate the same requests, observation by observation, alternating, so both see the
same machine load; the script prints ratings per second, tokens fed per rating, the ratio,
and whether both gave the same answers. Then it labels the logged steps of the episodes
(ratings, structural and temporal questions, the labelling workload: one action per
observation) and prints judge calls per second and how many steps a labelling budget holds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Annotated, Literal

import tyro

from rewardgym.bounds import AT_LEAST_1, POSITIVE, check_fields
from rewardgym.envs import HOUSEHOLD_ID
from rewardgym.envs.trajectories import CollectConfig, collect_dataset
from rewardgym.wrappers.coren import CorenConfig
from rewardgym.wrappers.coren.config import N_PROMPTS
from rewardgym.wrappers.coren.grounding import episode_transitions
from rewardgym.wrappers.coren.labelling import judge_dataset
from rewardgym.wrappers.judges import JudgeRequest, Transition
from rewardgym.wrappers.judges.cache import JudgeCache
from rewardgym.wrappers.judges.hf import HFJudge, HFJudgeConfig
from rewardgym.wrappers.judges.prompts import load_prompts


@dataclass(frozen=True)
class Config:
    """What to measure."""

    model: str = "smollm2-135m"
    """The judge's model: a name of rewardgym.pretrained or a local folder."""
    env: str = HOUSEHOLD_ID
    """Household env whose observations are rated."""
    episodes: Annotated[int, AT_LEAST_1] = 4
    """Episodes collected (seed 0); their observations are rated and their steps labelled."""
    states: Annotated[int, AT_LEAST_1] = 3
    """Observations at which every action is rated by both judges."""
    plain_actions: Annotated[int, AT_LEAST_1] = 12
    """Actions per observation that the plain judge rates too (it is slow; same subset for both)."""
    n_prompts: Annotated[int, AT_LEAST_1] = N_PROMPTS
    """Prompts of the ensemble."""
    budget_s: Annotated[float, POSITIVE] = 240.0
    """A labelling budget in seconds (the quick preset's hf share): steps that fit are printed."""
    threads: Annotated[int, AT_LEAST_1] = 2
    """Torch CPU threads (the project's two cores)."""
    dtype: Literal["auto", "float32", "bfloat16"] = "auto"
    """The judge's dtype (auto: bfloat16 where the CPU computes it natively)."""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range before any work."""
        check_fields(self)


def _state_requests(
    transitions: list[Transition], actions: tuple[str, ...], n_prompts: int
) -> list[JudgeRequest]:
    prompts = load_prompts(n_prompts)
    return [
        JudgeRequest(
            "rate",
            p,
            Transition(
                t.instruction, t.observation, a, t.visible, t.held, t.reachable, t.completed
            ),
        )
        for t in transitions
        for p in prompts
        for a in actions
    ]


def run(config: Config) -> dict[str, float]:
    """Measure and print both judges on the same requests; returns the figures."""
    data = collect_dataset(CollectConfig(env=config.env, episodes=config.episodes, seed=0))
    names = tuple(data.action_names)
    steps = [t for ep in data for t in episode_transitions(ep, data.action_names, data.env_id)]
    stride = max(len(steps) // max(config.states, 1), 1)
    states = steps[::stride][: config.states]
    settings = HFJudgeConfig(threads=config.threads, dtype=config.dtype)
    packed = HFJudge(config.model, settings)
    plain = HFJudge(config.model, replace(settings, reuse_prefix=False))
    warm = _state_requests(states[:1], names[:2], config.n_prompts)
    packed.rate(warm)
    plain.rate(warm[:1])
    packed.tokens_fed = plain.tokens_fed = 0
    seconds = {"packed": 0.0, "plain": 0.0, "packed_all": 0.0}
    ratings = {"packed": 0, "plain": 0, "packed_all": 0}
    agree = 0
    for state in states:
        subset = _state_requests([state], names[: config.plain_actions], config.n_prompts)
        tic = time.perf_counter()
        fast = packed.rate(subset)
        seconds["packed"] += time.perf_counter() - tic
        tic = time.perf_counter()
        slow = plain.rate(subset)
        seconds["plain"] += time.perf_counter() - tic
        ratings["packed"] += len(subset)
        ratings["plain"] += len(subset)
        agree += sum(a == b for a, b in zip(fast, slow, strict=True))
        every = _state_requests([state], names, config.n_prompts)
        tic = time.perf_counter()
        packed.rate(every)
        seconds["packed_all"] += time.perf_counter() - tic
        ratings["packed_all"] += len(every)
    rate = {k: ratings[k] / max(seconds[k], 1e-9) for k in seconds}
    fed_plain = plain.tokens_fed / max(ratings["plain"], 1)
    fed_packed = packed.tokens_fed / max(ratings["packed"] + ratings["packed_all"], 1)
    print(
        f"hf judge {packed.identity} ({packed.dtype}), {config.threads} threads, "
        f"{len(states)} observations:"
    )
    print(
        f"  plain, one forward pass per rating : {rate['plain']:8.1f} ratings/s "
        f"({fed_plain:.0f} tokens fed per rating)"
    )
    print(
        f"  packed trie + cached prompt head   : {rate['packed']:8.1f} ratings/s on the same "
        f"{ratings['packed']} ratings; {rate['packed_all']:.1f} ratings/s rating all "
        f"{len(names)} actions ({fed_packed:.0f} tokens fed per rating)"
    )
    ratio = rate["packed"] / max(rate["plain"], 1e-9)
    print(
        f"  ratio packed/plain: {ratio:.1f}x (target >= 5x); identical answers: "
        f"{agree}/{ratings['plain']}"
    )

    judge = HFJudge(config.model, settings)
    tic = time.perf_counter()
    judged = judge_dataset(
        data, judge, CorenConfig(n_prompts=config.n_prompts), JudgeCache(None), progress=False
    )
    label_s = time.perf_counter() - tic
    calls = judged.judge_stats["calls"]
    steps_per_s = data.n_steps / label_s
    print(
        f"  labelling {data.n_steps} logged steps ({len(data)} episodes): {calls} judge calls in "
        f"{label_s:.1f} s = {calls / label_s:.1f} calls/s, {steps_per_s:.2f} steps/s, "
        f"{label_s / data.n_steps * 1000:.0f} s per 1,000 steps"
    )
    fit = int(steps_per_s * config.budget_s)
    print(f"  a {config.budget_s:.0f} s labelling budget holds about {fit:,} steps")
    return {
        "plain_ratings_per_s": rate["plain"],
        "packed_ratings_per_s": rate["packed"],
        "packed_all_actions_ratings_per_s": rate["packed_all"],
        "ratio": ratio,
        "agreement": agree / max(ratings["plain"], 1),
        "tokens_per_rating_plain": fed_plain,
        "tokens_per_rating_packed": fed_packed,
        "label_calls_per_s": calls / label_s,
        "label_steps_per_s": steps_per_s,
        "seconds_per_1k_steps": label_s / data.n_steps * 1000,
        "budget_steps": float(fit),
    }


if __name__ == "__main__":
    run(tyro.cli(Config, description=__doc__))
