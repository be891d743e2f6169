"""How good a judge is (agreement with the expert, impossible actions, cost), and its probe.

A user picks a judge from these figures (``rewardgym label coren``, the embodied suite and
``python -m rewardgym.benchmarks.embodied.judge_quality`` print them per judge). They are computed on
*probe states*, observations of held-out trajectories at which the judge rates every
candidate action. ``probe_states`` replays logged episodes in their simulator and keeps, at
each step, what the judge sees, the expert's next action and which actions would execute;
``probe_ratings`` has every prompt rate every action there (the ensemble's contextual vote);
``probe_judge`` / ``probe_judges`` measure judges on a data set alone, ``judge_report`` adds a
labelling's held-out returns and cost. The figures themselves are pure functions of:

- ``ratings``: ``(S, A)`` the judge's rating of action ``a`` at state ``s`` (the ensemble's
  contextual vote, the majority over prompts; NaN where every prompt abstained or the action
  was not asked);
- ``expert``: ``(S,)`` the index of the expert's next action at each state;
- ``executable``: ``(S, A)`` whether the simulator would execute the action there.

Figures (the keys of the ``judges`` table in ``results.json``):

- ``expert_next_top``: share of states whose expert next action is rated +2;
- ``expert_next_supportive``: share rated at least +1;
- ``greedy_agreement``: how often a policy that takes the judge's top-rated action (ties broken
  uniformly at random) takes the expert's: the mean over states of ``[expert in top] / |top|``;
- ``nonexec_minus2``: share of the non-executable (state, action) pairs rated -2;
- ``return_success_corr``: point-biserial correlation of held-out trajectories' normalised
  dense returns with their success flags;
- ``seconds_per_1k_steps`` and ``calls_per_1k_steps``: the labelling cost.

An abstention (NaN) counts as not meeting a threshold; a state without votes is never "top".
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from rewardgym.envs.trajectories.dataset import TrajectoryDataset
from rewardgym.envs.trajectories.episode import Episode
from rewardgym.wrappers.coren import consistency
from rewardgym.wrappers.coren.config import N_PROMPTS, CorenConfig
from rewardgym.wrappers.coren.ensemble import Ensemble
from rewardgym.wrappers.coren.grounding import episode_transitions
from rewardgym.wrappers.judges.base import Judge, Transition, parse_rating
from rewardgym.wrappers.judges.batching import ask_steps
from rewardgym.wrappers.judges.cache import JudgeCache
from rewardgym.wrappers.judges.prompts import load_prompts


def _rows(ratings: np.ndarray, index: np.ndarray) -> np.ndarray:
    values = np.asarray(ratings, dtype=np.float64)
    if values.ndim != 2 or len(index) != len(values):
        raise ValueError(
            f"ratings must be (S, A) with one expert action per state; got shape {values.shape} "
            f"and {len(index)} expert actions"
        )
    return values[np.arange(len(values)), np.asarray(index, dtype=np.int64)]


def expert_next_top(ratings: np.ndarray, expert: np.ndarray) -> float:
    """Share of states whose expert next action the judge rates +2."""
    chosen = _rows(ratings, expert)
    return float(np.mean(np.nan_to_num(chosen, nan=-np.inf) >= 2)) if chosen.size else float("nan")


def expert_next_supportive(ratings: np.ndarray, expert: np.ndarray) -> float:
    """Share of states whose expert next action the judge rates at least +1."""
    chosen = _rows(ratings, expert)
    return float(np.mean(np.nan_to_num(chosen, nan=-np.inf) >= 1)) if chosen.size else float("nan")


def greedy_agreement(
    ratings: np.ndarray, expert: np.ndarray, candidates: np.ndarray | None = None
) -> float:
    """Chance that the judge's top-rated candidate action (uniform among ties) is the expert's.

    ``candidates`` ``(S, A)`` limits the choice (default: every action that was rated).
    """
    values = np.asarray(ratings, dtype=np.float64)
    _rows(values, expert)
    if not len(values):
        return float("nan")
    allowed = ~np.isnan(values)
    if candidates is not None:
        allowed &= np.asarray(candidates, dtype=bool)
    scores = np.where(allowed, values, -np.inf)
    best = scores.max(axis=1, keepdims=True)
    top = allowed & (scores == best)
    hits = top[np.arange(len(values)), np.asarray(expert, dtype=np.int64)]
    return float(np.mean(np.where(hits, 1.0 / np.maximum(top.sum(axis=1), 1), 0.0)))


def nonexec_minus2(ratings: np.ndarray, executable: np.ndarray) -> float:
    """Share of the non-executable (state, action) pairs that were rated and rated -2."""
    values = np.asarray(ratings, dtype=np.float64)
    impossible = ~np.asarray(executable, dtype=bool) & ~np.isnan(values)
    if not impossible.any():
        return float("nan")
    return float(np.mean(values[impossible] <= -2))


def return_success_corr(returns: np.ndarray, success: np.ndarray) -> float:
    """Point-biserial correlation of returns with binary success flags (Pearson's r; NaN if constant)."""
    x = np.asarray(returns, dtype=np.float64)
    y = np.asarray(success, dtype=np.float64)
    if x.size < 2 or x.std() == 0 or y.std() == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def seconds_per_1k_steps(seconds: float, steps: int) -> float:
    """Labelling seconds per 1,000 logged steps."""
    return float(seconds) / steps * 1000 if steps else float("nan")


def calls_per_1k_steps(calls: int, steps: int) -> float:
    """Judge (backend) calls per 1,000 logged steps, after de-duplication and the cache."""
    return float(calls) / steps * 1000 if steps else float("nan")


@dataclass(frozen=True)
class JudgeQuality:
    """One row of the ``judges`` table (see the module docstring for each figure)."""

    expert_next_top: float
    expert_next_supportive: float
    greedy_agreement: float
    nonexec_minus2: float
    return_success_corr: float
    seconds_per_1k_steps: float
    calls_per_1k_steps: float
    probe_states: int
    labelled_steps: int

    def as_dict(self) -> dict[str, float | int]:
        """The row as plain JSON-ready data."""
        return asdict(self)


def judge_quality(
    *,
    ratings: np.ndarray,
    expert: np.ndarray,
    executable: np.ndarray,
    returns: np.ndarray,
    success: np.ndarray,
    seconds: float,
    calls: int,
    steps: int,
) -> JudgeQuality:
    """Every figure of the report from probe ratings, held-out returns and the labelling cost.

    ``greedy_agreement`` chooses among the executable actions (a policy need not consider
    the others; their ratings are scored by ``nonexec_minus2``).
    """
    return JudgeQuality(
        expert_next_top=expert_next_top(ratings, expert),
        expert_next_supportive=expert_next_supportive(ratings, expert),
        greedy_agreement=greedy_agreement(ratings, expert, executable),
        nonexec_minus2=nonexec_minus2(ratings, executable),
        return_success_corr=return_success_corr(returns, success),
        seconds_per_1k_steps=seconds_per_1k_steps(seconds, steps),
        calls_per_1k_steps=calls_per_1k_steps(calls, steps),
        probe_states=len(np.asarray(expert)),
        labelled_steps=int(steps),
    )


# The probe: the states and ratings the figures above are computed from.


@dataclass(frozen=True)
class ProbeState:
    """A simulator state: what the judge sees, the expert's next action, the executable actions."""

    transition: Transition
    expert: int
    executable: np.ndarray


def replay_options(episode: Episode) -> dict[str, Any] | None:
    """The reset options that rebuild ``episode``'s first state with its seed."""
    recorded = episode.extras.get("replay_options")
    if isinstance(recorded, dict):
        return dict(recorded)
    return {"task": episode.task_id} if episode.task_id >= 0 else None


def probe_states(
    data: TrajectoryDataset, *, max_states: int, seed: int = 0, episodes: Sequence[int] = ()
) -> list[ProbeState]:
    """Up to ``max_states`` states of ``data``'s episodes (all, or those of ``episodes``), sampled.

    Each episode is replayed from its seed in the simulator (which must rebuild the logged
    observations exactly); a state where the expert has no move (done or lost) is skipped.
    """
    env = data.make_env()
    base: Any = env.unwrapped
    if not hasattr(base, "expert_action") or not hasattr(base, "executable_actions"):
        raise TypeError(
            f"{data.env_id} has no expert_action()/executable_actions(): the judge-quality "
            "report needs a simulator that knows the expert's move"
        )
    chosen = list(episodes) if episodes else list(range(len(data)))
    states: list[ProbeState] = []
    for i in chosen:
        episode = data[i]
        obs, _ = env.reset(seed=episode.seed, options=replay_options(episode))
        steps = episode_transitions(episode, data.action_names, data.env_id)
        for t, action in enumerate(episode.actions.tolist()):
            if "text" in obs and str(obs["text"]) != episode.texts[t]:
                raise RuntimeError(
                    f"episode {episode.episode_id} step {t}: the simulator does not rebuild "
                    "the logged observation from the episode's seed; cannot probe it"
                )
            expert = base.expert_action()
            if expert is not None:
                mask = np.zeros(len(data.action_names), dtype=bool)
                mask[list(base.executable_actions())] = True
                states.append(ProbeState(steps[t], int(expert), mask))
            obs, *_ = env.step(action)
    env.close()
    if len(states) > max_states:
        keep = np.sort(np.random.default_rng(seed).choice(len(states), max_states, replace=False))
        states = [states[k] for k in keep.tolist()]
    return states


def probe_ratings(
    states: Sequence[ProbeState], actions: Sequence[str], ensemble: Ensemble
) -> np.ndarray:
    """``(S, A)``: the ensemble's contextual vote (majority over prompts) for every action."""
    expanded = [replace(s.transition, action=a) for s in states for a in actions]
    table = ask_steps(
        "rate",
        expanded,
        ensemble.prompts,
        ensemble.judge,
        ensemble.cache,
        ensemble.config.batch_size,
        ensemble.progress,
        ensemble.complete,
    )
    parsed = np.asarray(
        [np.nan if r is None else float(r) for r in table.parsed(parse_rating)], dtype=np.float64
    )
    votes = parsed[table.index]
    contextual = consistency.contextual(votes)
    contextual[np.isnan(votes).all(axis=1)] = np.nan  # no vote: not a rating
    return contextual.reshape(len(states), len(actions))


def judge_report(
    states: Sequence[ProbeState],
    ratings: np.ndarray,
    *,
    heldout_returns: np.ndarray,
    heldout_success: np.ndarray,
    seconds: float,
    calls: int,
    steps: int,
) -> JudgeQuality:
    """The ``judges`` row of a judge from its probe ratings, held-out returns and cost."""
    return judge_quality(
        ratings=ratings,
        expert=np.array([s.expert for s in states], dtype=np.int64),
        executable=np.stack([s.executable for s in states])
        if states
        else np.zeros((0, ratings.shape[1]), dtype=bool),
        returns=heldout_returns,
        success=heldout_success,
        seconds=seconds,
        calls=calls,
        steps=steps,
    )


def probe_judge(
    judge: Judge,
    data: TrajectoryDataset,
    *,
    max_states: int,
    n_prompts: int = N_PROMPTS,
    seed: int = 0,
) -> JudgeQuality:
    """The ``judges`` row of ``judge`` rated at up to ``max_states`` states of ``data`` alone.

    No labelling: the return-success correlation is NaN and the cost columns are the
    probe's own, per 1,000 probe states (every action rated by every prompt at each).
    """
    judge.bind(data)
    states = probe_states(data, max_states=max_states, seed=seed)
    ensemble = Ensemble(
        judge, load_prompts(n_prompts), CorenConfig(n_prompts=n_prompts), JudgeCache(None)
    )
    start = time.perf_counter()
    ratings = probe_ratings(states, data.action_names, ensemble)
    seconds = time.perf_counter() - start
    return judge_report(
        states,
        ratings,
        heldout_returns=np.zeros(0),
        heldout_success=np.zeros(0),
        seconds=seconds,
        calls=len(states) * len(data.action_names) * n_prompts,
        steps=len(states),
    )


def held_out_probe_data(
    instructions: str = "abstract", layout: str = "default", *, episodes: int, seed: int
) -> TrajectoryDataset:
    """Perturbed-expert Household-v1 episodes under a held-out instruction split, to probe judges."""
    from rewardgym.envs.trajectories import CollectConfig, collect_dataset

    return collect_dataset(
        CollectConfig(
            episodes=episodes,
            seed=seed,
            env_kwargs={"instructions": instructions, "layout": layout},
            allow_held_out=True,
        )
    )


def probe_judges(
    specs: Sequence[str],
    data: TrajectoryDataset,
    *,
    states: int,
    hf_states: int,
    n_prompts: int = N_PROMPTS,
    seed: int = 0,
) -> dict[str, dict[str, Any]]:
    """``probe_judge`` of every judge spec on ``data`` (``hf:`` judges at ``hf_states`` states).

    Each row is the probe's ``JudgeQuality`` with its cost per probe state
    (``probe_seconds_per_state``, ``probe_requests_per_state``) in place of the per-1,000
    figures, and no labelling figures.
    """
    from rewardgym.wrappers.judges import make_judge

    rows: dict[str, dict[str, Any]] = {}
    for spec in specs:
        limit = hf_states if spec.startswith("hf:") else states
        row: dict[str, Any] = probe_judge(
            make_judge(spec), data, max_states=limit, n_prompts=n_prompts, seed=seed
        ).as_dict()
        row["probe_seconds_per_state"] = row.pop("seconds_per_1k_steps") / 1000
        row["probe_requests_per_state"] = row.pop("calls_per_1k_steps") / 1000
        row.pop("labelled_steps")
        rows[spec] = row
    return rows


__all__ = [
    "JudgeQuality",
    "ProbeState",
    "calls_per_1k_steps",
    "expert_next_supportive",
    "expert_next_top",
    "greedy_agreement",
    "held_out_probe_data",
    "judge_quality",
    "judge_report",
    "nonexec_minus2",
    "probe_judge",
    "probe_judges",
    "probe_ratings",
    "probe_states",
    "replay_options",
    "return_success_corr",
    "seconds_per_1k_steps",
]
