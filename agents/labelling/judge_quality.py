"""The judge-quality report: probe a judge at simulator states where the expert's move is known.

``probe_states`` replays logged episodes in their simulator and keeps, at each step, what the
judge sees, the expert's next action there and which actions the simulator would execute;
``probe_ratings`` has every prompt rate every action at those states (the ensemble's
contextual vote per action); ``judge_report`` turns them, the held-out return-success
correlation and the labelling cost into one row of the ``judges`` table
(``rewardgym.wrappers.judges.quality``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from rewardgym.envs.trajectories.dataset import TrajectoryDataset
from rewardgym.envs.trajectories.episode import Episode
from rewardgym.wrappers.coren import consistency
from rewardgym.wrappers.coren.config import CorenConfig
from rewardgym.wrappers.coren.ensemble import Ensemble
from rewardgym.wrappers.coren.grounding import episode_transitions
from rewardgym.wrappers.judges.base import Judge, Transition, parse_rating
from rewardgym.wrappers.judges.batching import ask_steps
from rewardgym.wrappers.judges.cache import JudgeCache
from rewardgym.wrappers.judges.prompts import load_prompts
from rewardgym.wrappers.judges.quality import JudgeQuality, judge_quality


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
    n_prompts: int = 5,
    seed: int = 0,
) -> JudgeQuality:
    """The ``judges`` row of ``judge`` rated at up to ``max_states`` states of ``data`` alone.

    No labelling: the return-success correlation is NaN and the cost columns are the
    probe's own, per 1,000 probe states (every action rated by every prompt at each).
    """
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
    n_prompts: int = 5,
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
    "ProbeState",
    "held_out_probe_data",
    "judge_report",
    "probe_judge",
    "probe_judges",
    "probe_ratings",
    "probe_states",
    "replay_options",
]
