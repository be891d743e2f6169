"""Score a shopper policy on held-out sessions by stepping ``ShopSession-v0``, under two protocols.

Every scored step becomes a :class:`StepRecord` (session, step, the human's action, the parsed
prediction), from which the metrics of either protocol and their bootstrap intervals follow:

* ``natural``: every logged step, in the corpus's own mix of action types;
* ``paper`` (Shop-R1, Sec. 4.1): each session's first step is given as context and never
  scored; the scored steps are resampled so that click and type_and_submit each occur
  :data:`PAPER_CLASS_RATIO` times as often as terminate (at most; all terminate steps are
  kept, the others drawn without replacement with a fixed seed); and a type_and_submit counts
  as exact when its text is similar to the human's (ROUGE-L >= 0.75,
  :func:`~rewardgym.envs.shopping.metrics.protocol_match`).

:func:`score_outputs` scores outputs against rows whose human actions are known, with the very
functions ``env.step`` uses (:func:`~rewardgym.envs.shopping.parsing.parse_output` and exact
match); a suite that generates from cached prompts uses it instead of replaying the env.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import gymnasium as gym
import numpy as np

from rewardgym.envs import SHOP_SESSION_ID
from rewardgym.envs.shopping.element_ids import resolve_ids
from rewardgym.envs.shopping.metrics import ShopMetrics, shop_metrics
from rewardgym.envs.shopping.parsing import parse_output
from rewardgym.envs.shopping.schema import ShopAction, actions_match
from rewardgym.progress import progress_bar as tqdm

if TYPE_CHECKING:
    from rewardgym.agents.llm.config import Decoding
    from rewardgym.agents.llm.dataset import StepRow

Protocol = Literal["natural", "paper"]
PROTOCOLS: tuple[str, ...] = ("natural", "paper")
PAPER_CLASS_RATIO = 1.1
"""Paper protocol: click and type_and_submit each occur about 10% more often than terminate."""
PAPER_SAMPLE_SEED = 0


@dataclass(frozen=True)
class StepRecord:
    """One scored step: where it is, what the human did, what the policy's output said."""

    session: int
    step: int
    truth: ShopAction
    prediction: ShopAction | None


@dataclass(frozen=True)
class ShopEvaluation:
    """Metrics of one policy on one split, with the mean env reward per step and every record."""

    metrics: ShopMetrics
    mean_reward: float
    steps: int
    records: list[StepRecord] = field(default_factory=list, repr=False)


def collect_observations(env: gym.Env, sessions: Sequence[int]) -> list[list[dict[str, Any]]]:
    """Every observation of the given sessions; teacher forcing makes them independent of actions."""
    episodes = []
    for index in sessions:
        obs, _ = env.reset(options={"session": index})
        seen = [obs]
        while True:
            obs, _, terminated, truncated, _ = env.step("")
            if terminated or truncated:
                break
            seen.append(obs)
        episodes.append(seen)
    return episodes


def evaluate_outputs(
    env: gym.Env, sessions: Sequence[int], outputs: Sequence[Sequence[Any]]
) -> ShopEvaluation:
    """Replay ``outputs[k][t]`` as the answer to step t of session ``sessions[k]`` and score it."""
    records: list[StepRecord] = []
    total = 0.0
    for index, answers in zip(sessions, outputs, strict=True):
        env.reset(options={"session": index})
        for number, answer in enumerate(answers):
            _, reward, terminated, truncated, info = env.step(answer)
            total += float(reward)
            predicted = info["prediction"]["action"]
            records.append(
                StepRecord(
                    int(index),
                    number,
                    ShopAction(**info["truth"]),
                    ShopAction(**predicted) if predicted else None,
                )
            )
            if terminated or truncated:
                break
    return _evaluation(records, total)


def _evaluation(records: list[StepRecord], total_reward: float) -> ShopEvaluation:
    metrics = shop_metrics([r.prediction for r in records], [r.truth for r in records])
    steps = len(records)
    return ShopEvaluation(metrics, total_reward / max(steps, 1), steps, records)


def score_outputs(
    texts: Sequence[str],
    sessions: Sequence[int],
    steps: Sequence[int],
    truths: Sequence[ShopAction],
    elements: Sequence[Sequence[str] | None] | None = None,
) -> ShopEvaluation:
    """Score raw outputs against known human actions as ``env.step`` does (its exact-match reward).

    ``elements`` (per output, its page's element names, or None) resolves element ids as
    ``env.step`` does with ``element_ids=True``; None scores every name as written.
    """
    records = []
    total = 0.0
    pages = [None] * len(texts) if elements is None else elements
    rows = zip(texts, sessions, steps, truths, pages, strict=True)
    for text, session, step, truth, names in rows:
        parsed = parse_output(text)
        predicted = (parsed if names is None else resolve_ids(parsed, names)).action
        total += float(actions_match(predicted, truth))
        records.append(StepRecord(int(session), int(step), truth, predicted))
    return _evaluation(records, total)


def complete_and_score(
    policy: Any, rows: Sequence[StepRow], decoding: Decoding = "free"
) -> tuple[ShopEvaluation, list[str]]:
    """Complete every row's prompt with ``policy`` and score the outputs; the scores and the texts.

    ``policy`` answers ready-made prompts through ``complete`` (an ``LLMPolicy``, or a
    ``ServedPolicy`` decoding freely); constrained decoding passes what each row's page allows.
    The rows carry the human actions (``step_rows`` makes them), so scoring is
    :func:`score_rows`'s, the env's own rules. ``bench shop`` scores every model row with it.
    """
    from rewardgym.agents.llm.dataset import row_actions

    _truths(rows)  # before any generation
    prompts = [r.prompt for r in rows]
    if decoding == "constrained":
        texts = policy.complete(prompts, row_actions(rows))
    else:
        texts = policy.complete(prompts)
    return score_rows(rows, texts), list(texts)


def score_rows(rows: Sequence[StepRow], texts: Sequence[str]) -> ShopEvaluation:
    """Score ``texts[i]`` as the answer to ``rows[i]`` with :func:`score_outputs` (its page's
    element ids resolved); every row needs its human action."""
    return score_outputs(
        texts,
        [r.session for r in rows],
        [r.step for r in rows],
        _truths(rows),
        [r.elements for r in rows],
    )


def _truths(rows: Sequence[StepRow]) -> list[ShopAction]:
    """The rows' human actions; ``ValueError`` when one has none."""
    truths = [r.truth for r in rows]
    if any(t is None for t in truths):
        raise ValueError("every row needs its human action (truth) to be scored")
    return [t for t in truths if t is not None]


def protocol_records(records: Sequence[StepRecord], protocol: Protocol) -> list[StepRecord]:
    """The records a protocol scores (module docstring); ``natural`` keeps them all."""
    if protocol == "natural":
        return list(records)
    if protocol != "paper":
        raise ValueError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")
    later = [r for r in records if r.step > 0]
    by_type: dict[str, list[StepRecord]] = {}
    for record in later:
        by_type.setdefault(record.truth.type, []).append(record)
    terminate = by_type.get("terminate", [])
    cap = max(1, round(PAPER_CLASS_RATIO * len(terminate)))
    rng = np.random.default_rng(PAPER_SAMPLE_SEED)
    kept = list(terminate)
    for kind in ("click", "type_and_submit"):
        group = sorted(by_type.get(kind, []), key=lambda r: (r.session, r.step))
        if len(group) > cap:
            picks = rng.choice(len(group), size=cap, replace=False)
            group = [group[i] for i in sorted(picks)]
        kept.extend(group)
    return sorted(kept, key=lambda r: (r.session, r.step))


def protocol_metrics(records: Sequence[StepRecord], protocol: Protocol) -> ShopMetrics:
    """The metrics of ``records`` under ``protocol``."""
    chosen = protocol_records(records, protocol)
    return shop_metrics(
        [r.prediction for r in chosen], [r.truth for r in chosen], similar_text=protocol == "paper"
    )


def evaluate_policy(
    act: Callable[[list[dict[str, Any]]], list[Any]],
    *,
    env: gym.Env | None = None,
    split: str = "test",
    max_sessions: int | None = None,
    sessions: Sequence[int] | None = None,
    batch_size: int = 64,
    progress: bool = True,
    desc: str = "evaluating",
    **env_kwargs: Any,
) -> ShopEvaluation:
    """Score ``act`` (a batch of observations -> raw outputs) on the sessions of ``split``.

    ``sessions`` are positions in the env's split (all by default), the first ``max_sessions``
    of them scored.
    """
    env = env if env is not None else gym.make(SHOP_SESSION_ID, split=split, **env_kwargs)
    count = env.unwrapped.num_sessions  # type: ignore[attr-defined]
    chosen = list(range(count)) if sessions is None else list(sessions)
    chosen = chosen if max_sessions is None else chosen[:max_sessions]
    episodes = collect_observations(env, chosen)
    flat = [obs for episode in episodes for obs in episode]
    answers: list[Any] = []
    with tqdm(total=len(flat), desc=desc, disable=not progress, leave=False) as bar:
        for start in range(0, len(flat), batch_size):
            batch = flat[start : start + batch_size]
            answers.extend(act(batch))
            bar.update(len(batch))
    outputs, cursor = [], 0
    for episode in episodes:
        outputs.append(answers[cursor : cursor + len(episode)])
        cursor += len(episode)
    return evaluate_outputs(env, chosen, outputs)


__all__ = [
    "PAPER_CLASS_RATIO",
    "PROTOCOLS",
    "Protocol",
    "ShopEvaluation",
    "StepRecord",
    "collect_observations",
    "complete_and_score",
    "evaluate_outputs",
    "evaluate_policy",
    "protocol_metrics",
    "protocol_records",
    "score_outputs",
    "score_rows",
]
