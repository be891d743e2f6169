"""Relabel a logged trajectory data set with COREN's dense, consistency-checked reward.

``judge_dataset`` asks the judge ensemble about every step (batched, de-duplicated and cached
on disk, so a killed run resumes without repeating a call) and computes the three terms;
``dense_rewards`` turns the terms into one reward per step for an ablation, training the
orchestrator on the training share of trajectories; ``label_dataset`` does both and writes a
NEW data set (same Arrow + Minari format, the dense reward in a column beside the success
reward) without touching its input; ``label_ablations`` asks the judges once and writes one
data set per ablation. Outputs are checked before the first judge call and renamed into place
only when complete; a run whose judge calls all failed stops with :class:`LabellingError` and
writes nothing, and an openai judge that cannot answer one completion (a closed port, a server
that answers HTML) stops it within seconds, before any other work (``OpenAIJudge.preflight``).
The report keeps the judge's cold cost (seconds inside the backend per 1,000 calls the cache
missed) apart from the requests the cache answered.
"""

from __future__ import annotations

import contextlib
import json
import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from rewardgym.embeddings import CachedEmbedder, shared_embedder
from rewardgym.envs.trajectories.dataset import DATASET_KIND, TrajectoryDataset
from rewardgym.runtime import absolute, atomic_output, prepare_output
from rewardgym.wrappers.coren.config import TERMS, CorenConfig
from rewardgym.wrappers.coren.ensemble import (
    CompleteFn,
    Ensemble,
    EnsembleCounts,
    ScoredTrajectory,
    score_trajectories,
)
from rewardgym.wrappers.coren.grounding import episode_transitions
from rewardgym.wrappers.coren.label_config import LabelConfig
from rewardgym.wrappers.coren.label_output import (
    COREN_DIR,
    LabellingError,
    check_judged,
    check_paths,
    default_cache_path,
    prepare_container,
    write_labelled,
    write_labelled_into,
)
from rewardgym.wrappers.coren.orchestrator import (
    Orchestrator,
    OrchestratorSpec,
    StepInputs,
    normalised_returns,
    step_inputs,
)
from rewardgym.wrappers.coren.qa import QABank, build_qa_bank
from rewardgym.wrappers.coren.scoring import combine_terms
from rewardgym.wrappers.judges.base import Judge, Transition
from rewardgym.wrappers.judges.cache import JudgeCache
from rewardgym.wrappers.judges.embedding import EmbeddingJudge
from rewardgym.wrappers.judges.factory import make_judge
from rewardgym.wrappers.judges.openai import OpenAIJudge, OpenAIJudgeConfig
from rewardgym.wrappers.judges.prompts import Prompt, load_prompts
from rewardgym.wrappers.judges.quality import (
    ProbeState,
    judge_report,
    probe_ratings,
    probe_states,
)


@dataclass
class JudgedDataset:
    """A data set with the judge ensemble's answers and terms for every step."""

    data: TrajectoryDataset
    transitions: list[list[Transition]]
    scored: list[ScoredTrajectory]
    counts: EnsembleCounts
    judge_stats: dict[str, int]
    cache_hits: int
    seconds: float
    qa: QABank | None = None
    call_seconds: float = 0.0
    """Seconds spent inside the judge's backend, on the requests the cache did not answer."""

    def flat_terms(self) -> np.ndarray:
        """The ``(S, 3)`` terms of all steps, episode after episode."""
        return np.concatenate([s.terms for s in self.scored] or [np.zeros((0, 3))])


@dataclass
class LabelReport:
    """What a labelling run did and how its dense reward relates to success."""

    ablation: str
    episodes: int
    steps: int
    requests: int
    judge_calls: int
    cache_hits: int
    failures: int
    abstentions: dict[str, int]
    abstained_steps: dict[str, int]
    judge_seconds: float
    total_seconds: float
    heldout_episodes: int
    heldout_correlation: float
    heldout_term_correlations: dict[str, float]
    final_loss: float | None = None
    initial_loss: float | None = None
    out: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    cache: str = ""
    judges: dict[str, dict[str, float]] = field(default_factory=dict)
    """The judge-quality row of the judge, keyed by its name (``wrappers.judges.quality``)."""
    judge_call_seconds: float = 0.0
    """Seconds spent inside the judge's backend on the ``judge_calls`` the cache missed."""
    cold_seconds_per_1k_calls: float | None = None
    """The judge's cold cost, whatever the cache held: ``judge_call_seconds`` per 1,000
    ``judge_calls`` (None when the cache answered every request, ``cache_hits`` of them)."""

    def as_dict(self) -> dict[str, Any]:
        """The report as plain JSON-ready data."""
        return asdict(self)

    def summary(self) -> str:
        """The report in the lines ``label coren`` prints; an undefined figure reads n/a (why)."""
        cold = self.cold_seconds_per_1k_calls
        cost = (
            f"cold cost {cold:.3g} s per 1,000 judge calls"
            if cold is not None
            else "cold cost n/a: the cache answered every request"
        )
        lines = [
            f"relabelled {self.episodes:,} episodes / {self.steps:,} steps ({self.ablation}) "
            f"in {self.total_seconds:.1f} s (judging {self.judge_seconds:.1f} s): "
            f"{self.requests:,} requests, {self.cache_hits:,} answered from the cache, "
            f"{self.judge_calls:,} judge calls ({cost}), {self.failures:,} failures, "
            f"abstentions {json.dumps(self.abstentions)}",
            f"held-out point-biserial correlation of the dense return with success: "
            f"{_figure(self.heldout_correlation, '.3f', UNDEFINED_CORRELATION)} over "
            f"{self.heldout_episodes} episodes; written to {self.out}; judge cache {self.cache}",
        ]
        lines += [
            f"judge {name}: expert's next action rated +2 {row['expert_next_top']:.1%}, "
            f">= +1 {row['expert_next_supportive']:.1%}; top-rated = expert's "
            f"{row['greedy_agreement']:.1%}; non-executable rated -2 "
            f"{_figure(row['nonexec_minus2'], '.1%', 'no such action was rated')} "
            f"({row['probe_states']} held-out states); {row['calls_per_1k_steps']:,.0f} judge "
            f"calls per 1,000 steps after the cache, {cost}"
            for name, row in self.judges.items()
        ]
        return "\n".join(lines)


UNDEFINED_CORRELATION = "fewer than 2 held-out episodes, or all succeed, all fail or share a return"
"""Why a point-biserial correlation is undefined (NaN)."""


def _figure(value: float, spec: str, undefined: str) -> str:
    """``value`` formatted with ``spec``, or ``n/a (why)`` where it is undefined (NaN)."""
    return f"n/a ({undefined})" if math.isnan(value) else format(value, spec)


def resolve_judge(
    judge: Judge | str,
    embedder: CachedEmbedder | None = None,
    *,
    openai: OpenAIJudgeConfig | None = None,
) -> Judge:
    """A judge object from a judge or a spec string (``embedding``, ``hf:PATH``, ``openai:URL``)."""
    if isinstance(judge, Judge):
        return judge
    if judge == "embedding" and embedder is not None:
        return EmbeddingJudge(embedder)
    return make_judge(judge, openai=openai)


def _embedder_of(judge: Judge, embedder: CachedEmbedder | None) -> CachedEmbedder:
    if embedder is not None:
        return embedder
    if isinstance(judge, EmbeddingJudge):
        return judge.embedder
    return shared_embedder("minilm")


def judge_dataset(
    data: TrajectoryDataset,
    judge: Judge,
    config: CorenConfig | None = None,
    cache: JudgeCache | None = None,
    prompts: Sequence[Prompt] | None = None,
    qa: QABank | None = None,
    embedder: CachedEmbedder | None = None,
    progress: bool = True,
    complete: CompleteFn | None = None,
) -> JudgedDataset:
    """Ask ``judge`` about every step of ``data`` and compute COREN's three terms.

    Without ``qa`` the structural QA bank is drawn from the simulator (``build_qa_bank``),
    from episodes whose seeds are none of ``data``'s.
    """
    config = config or CorenConfig()
    embedder = _embedder_of(judge, embedder)
    prompts = tuple(prompts) if prompts is not None else load_prompts(config.n_prompts)
    start = time.perf_counter()
    transitions = [episode_transitions(ep, data.action_names, data.env_id) for ep in data]
    if qa is None:
        qa = default_qa_bank(data, config, embedder)
    calls_before, failures_before = judge.stats.calls, judge.stats.failures
    seconds_before = judge.stats.seconds
    hits_before = cache.stats.hits if cache is not None else 0
    from rewardgym.progress import progress_bar as tqdm

    with tqdm(desc="COREN judge requests", unit="req", disable=not progress) as bar:
        ensemble = Ensemble(judge, prompts, config, cache, bar.update, complete)
        scored, counts = score_trajectories(
            transitions, actions=data.action_names, qa=qa, embedder=embedder, ensemble=ensemble
        )
    return JudgedDataset(
        data=data,
        transitions=transitions,
        scored=scored,
        counts=counts,
        judge_stats={
            "calls": judge.stats.calls - calls_before,
            "failures": judge.stats.failures - failures_before,
            "retries": judge.stats.retries,
        },
        cache_hits=(cache.stats.hits - hits_before) if cache is not None else 0,
        seconds=time.perf_counter() - start,
        qa=qa,
        call_seconds=judge.stats.seconds - seconds_before,
    )


def default_qa_bank(
    data: TrajectoryDataset, config: CorenConfig, embedder: CachedEmbedder
) -> QABank:
    """The simulator's QA bank for ``data``'s env, drawn from episodes kept out of ``data``."""
    return build_qa_bank(
        data.env_id,
        embedder,
        n_pairs=config.qa_pairs,
        seed=config.qa_seed,
        exclude_seeds=[ep.seed for ep in data],
        env_kwargs=data.env_kwargs,
    )


def _probe(
    data: TrajectoryDataset,
    judge: Judge,
    prompts: Sequence[Prompt],
    config: CorenConfig,
    cache: JudgeCache,
) -> tuple[list[ProbeState], np.ndarray] | None:
    """Probe states of the held-out episodes and the judge's ratings there (``None``: no probe).

    Envs whose simulator cannot say the expert's move (or rebuild an episode) get no report.
    """
    if not config.probe_states:
        return None
    _, heldout = split_episodes(len(data), config.holdout_fraction, config.seed)
    try:
        states = probe_states(
            data, max_states=config.probe_states, seed=config.seed, episodes=heldout.tolist()
        )
    except (TypeError, RuntimeError):
        return None
    ensemble = Ensemble(judge, prompts, config, cache)
    return states, probe_ratings(states, data.action_names, ensemble)


def cold_cost(call_seconds: float, calls: int) -> float | None:
    """Seconds per 1,000 backend calls (``None`` without calls: the cache answered everything).

    Example:
        >>> cold_cost(4.5, 1500), cold_cost(0.0, 0)
        (3.0, None)
    """
    return call_seconds / calls * 1000 if calls else None


def split_episodes(n: int, holdout_fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Train and held-out episode indices: a seeded permutation cut at ``holdout_fraction``."""
    order = np.random.default_rng(seed).permutation(n)
    cut = round(n * holdout_fraction)
    if holdout_fraction > 0 and n > 1:
        cut = min(max(cut, 1), n - 1)
    return np.sort(order[cut:]), np.sort(order[:cut])


def point_biserial(values: np.ndarray, flags: np.ndarray) -> float:
    """The point-biserial correlation of ``values`` with binary ``flags`` (Pearson's r; NaN if constant)."""
    x = np.asarray(values, dtype=np.float64)
    y = np.asarray(flags, dtype=np.float64)
    if x.size < 2 or x.std() == 0 or y.std() == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def dense_rewards(
    judged: JudgedDataset,
    config: CorenConfig,
    embedder: CachedEmbedder,
    orchestrator: Orchestrator | None = None,
) -> tuple[list[np.ndarray], Orchestrator | None, dict[str, Any]]:
    """One dense reward array per episode for ``config.ablation``, and how it was obtained.

    Ablations with two or more terms train the orchestrator on the training episodes (unless
    a trained ``orchestrator`` is given); one-term ablations use that term; ``average``,
    ``majority`` and ``single`` apply their fixed rule. The returned dict holds the losses and
    held-out correlations.
    """
    terms = judged.flat_terms()
    lengths = [len(s.terms) for s in judged.scored]
    episode_index = np.repeat(np.arange(len(lengths)), lengths)
    step_index = np.concatenate([np.arange(n) for n in lengths] or [np.zeros(0, dtype=np.int64)])
    success = np.array([ep.success for ep in judged.data], dtype=np.float64)
    train, heldout = split_episodes(len(lengths), config.holdout_fraction, config.seed)
    info: dict[str, Any] = {"train_episodes": len(train), "heldout_episodes": len(heldout)}
    columns = [TERMS.index(t) for t in config.terms]
    votes = np.concatenate([s.votes for s in judged.scored] or [np.zeros((0, 1))])
    weights = None
    if config.uses_orchestrator:
        inputs = step_inputs([t for steps in judged.transitions for t in steps])
        if orchestrator is None:
            orchestrator = Orchestrator(
                OrchestratorSpec(
                    dim=int(embedder.dim),
                    hidden=config.hidden_size,
                    terms=config.terms,
                    gamma=config.gamma,
                    embedder=embedder.name,
                ),
                embedder,
                seed=config.seed,
            )
            in_train = np.isin(episode_index, train)
            remap = np.full(len(lengths), -1)
            remap[train] = np.arange(len(train))
            losses = orchestrator.fit(
                _subset(inputs, in_train),
                terms[in_train][:, columns],
                remap[episode_index[in_train]],
                step_index[in_train],
                success[train],
                epochs=config.epochs,
                learning_rate=config.learning_rate,
            )
            info["initial_loss"], info["final_loss"] = losses[0], losses[-1]
        if orchestrator.spec.terms != config.terms:
            raise ValueError(
                f"the orchestrator weighs terms {orchestrator.spec.terms} but ablation "
                f"{config.ablation!r} needs {config.terms}"
            )
        weights = orchestrator.weights(inputs)
        info["mean_weights"] = dict(
            zip(config.terms, weights.mean(axis=0).round(4).tolist(), strict=True)
        )
    else:
        orchestrator = None
    flat = combine_terms(terms, votes, config, weights)
    bounds = np.cumsum([0, *lengths])
    rewards = [flat[bounds[i] : bounds[i + 1]].astype(np.float32) for i in range(len(lengths))]
    held_returns = normalised_returns([rewards[i] for i in heldout], config.gamma)
    info["heldout_returns"], info["heldout_success"] = held_returns, success[heldout]
    info["heldout_correlation"] = point_biserial(held_returns, success[heldout])
    info["heldout_term_correlations"] = {
        name: point_biserial(
            normalised_returns([judged.scored[i].terms[:, k] for i in heldout], config.gamma),
            success[heldout],
        )
        for k, name in enumerate(TERMS)
    }
    return rewards, orchestrator, info


def _subset(inputs: StepInputs, mask: np.ndarray) -> StepInputs:
    return replace(
        inputs,
        instruction_index=inputs.instruction_index[mask],
        action_index=inputs.action_index[mask],
        observation_index=inputs.observation_index[mask],
    )


def label_ablations(
    dataset: str | Path,
    out_root: str | Path,
    ablations: Sequence[str],
    config: LabelConfig | None = None,
    *,
    judge: Judge | None = None,
    embedder: CachedEmbedder | None = None,
    progress: bool = True,
    complete: CompleteFn | None = None,
) -> dict[str, LabelReport]:
    """Judge ``dataset`` once and write one relabelled data set per ablation to ``out_root/<ablation>``.

    Every setting comes from ``config`` (the judge spec, COREN's settings, the cache, prompt
    and QA files, ``minari``, ``overwrite``; ``config.coren.ablation`` is replaced by each of
    ``ablations``); the keywords are live objects a config cannot hold: a built ``judge`` (used
    in place of ``config.judge``), the ``embedder``, whether to show ``progress`` and a batch
    ``complete`` function. Every output is checked before the first judge call: a directory
    that is not a rewardgym data set (or, without ``overwrite``, any data set) is refused, and
    one that cannot be written fails at once. Each data set is written beside its target and
    renamed into place when complete; a run whose judge calls all failed raises
    :class:`LabellingError` and writes nothing. The judge cache lives at ``config.cache``
    (default :func:`default_cache_path` of ``out_root``), so a killed run picks up where it
    stopped. Returns the report of every ablation.
    """
    start = time.perf_counter()
    config = config or LabelConfig()
    coren = config.coren
    source, root = absolute(dataset), absolute(out_root)
    check_paths(source, root)
    targets = {a: root / a if len(ablations) > 1 else root for a in ablations}
    if len(ablations) > 1:
        prepare_container(root)
    for target in targets.values():
        prepare_output(target, DATASET_KIND, overwrite=config.overwrite)
    cache_file = absolute(config.cache) if config.cache else default_cache_path(root)
    with contextlib.ExitStack() as outputs:
        # Entering creates each temporary directory: an unwritable output fails here, before
        # any judge call is paid for.
        staging = {
            a: outputs.enter_context(atomic_output(t, DATASET_KIND, overwrite=config.overwrite))
            for a, t in targets.items()
        }
        openai = config.openai if config.is_openai else None
        judge_obj = (
            judge if judge is not None else resolve_judge(config.judge, embedder, openai=openai)
        )
        if isinstance(judge_obj, OpenAIJudge):  # a dead server fails in seconds, not minutes
            judge_obj.preflight()
        embedder = _embedder_of(judge_obj, embedder)
        prompts = load_prompts(coren.n_prompts, config.prompts)
        qa = QABank.from_jsonl(config.qa, embedder) if config.qa is not None else None
        data = TrajectoryDataset.from_dir(source)
        cache = JudgeCache(cache_file)
        try:
            judged = judge_dataset(
                data, judge_obj, coren, cache, prompts, qa, embedder, progress, complete
            )
            probe = _probe(data, judge_obj, prompts, coren, cache)
        finally:
            cache.close()
        check_judged(judged, judge_obj)
        judge_name = config.judge if judge is None else judge_obj.identity
        reports = {}
        for ablation in ablations:
            cfg = replace(coren, ablation=ablation)
            rewards, orchestrator, info = dense_rewards(judged, cfg, embedder)
            counts = judged.counts
            report = LabelReport(
                ablation=ablation,
                episodes=len(data),
                steps=data.n_steps,
                requests=counts.rate_requests
                + counts.structural_requests
                + counts.temporal_requests,
                judge_calls=judged.judge_stats["calls"],
                cache_hits=judged.cache_hits,
                failures=judged.judge_stats["failures"],
                abstentions={
                    "rate": counts.rate_abstentions,
                    "structural": counts.structural_abstentions,
                    "temporal": counts.temporal_abstentions,
                },
                abstained_steps=counts.abstained_steps,
                judge_seconds=judged.seconds,
                total_seconds=0.0,
                heldout_episodes=info["heldout_episodes"],
                heldout_correlation=info["heldout_correlation"],
                heldout_term_correlations=info["heldout_term_correlations"],
                final_loss=info.get("final_loss"),
                initial_loss=info.get("initial_loss"),
                extra={k: v for k, v in info.items() if k == "mean_weights"},
                cache=str(cache_file),
                judge_call_seconds=judged.call_seconds,
                cold_seconds_per_1k_calls=cold_cost(
                    judged.call_seconds, judged.judge_stats["calls"]
                ),
            )
            if probe is not None:
                row = judge_report(
                    probe[0],
                    probe[1],
                    heldout_returns=info["heldout_returns"],
                    heldout_success=info["heldout_success"],
                    seconds=judged.seconds,
                    calls=judged.judge_stats["calls"],
                    steps=data.n_steps,
                )
                report.judges = {judge_name: row.as_dict()}
            report.out = str(targets[ablation])
            report.total_seconds = time.perf_counter() - start
            write_labelled_into(
                staging[ablation], judged, rewards, report, orchestrator, config.minari
            )
            reports[ablation] = report
    return reports


def label_dataset(
    dataset: str | Path,
    out: str | Path,
    config: LabelConfig | None = None,
    *,
    judge: Judge | None = None,
    embedder: CachedEmbedder | None = None,
    progress: bool = True,
    complete: CompleteFn | None = None,
) -> LabelReport:
    """Write a copy of the data set at ``dataset`` to ``out`` with COREN's dense rewards.

    ``config`` holds every setting: the judge spec (``embedding``, ``hf:PATH``,
    ``openai:URL``), COREN's settings with the ablation, the cache, prompt and QA files,
    ``minari`` and ``overwrite``; the keywords are as in :func:`label_ablations` (a built
    ``judge`` replaces ``config.judge``). The input is only read. ``out`` must be new, empty,
    or (with ``overwrite``) a rewardgym data set; it is checked before the first judge call
    and appears only once complete. The judge cache defaults to :func:`default_cache_path` of
    ``out``; rerunning after a kill asks only what is missing. ``out/coren/`` receives
    ``orchestrator.pt``, ``report.json`` and ``terms.npz``.
    """
    config = config or LabelConfig()
    ablation = config.coren.ablation
    return label_ablations(
        dataset,
        out,
        [ablation],
        config,
        judge=judge,
        embedder=embedder,
        progress=progress,
        complete=complete,
    )[ablation]


__all__ = [
    "COREN_DIR",
    "JudgedDataset",
    "LabelConfig",
    "LabelReport",
    "LabellingError",
    "check_judged",
    "cold_cost",
    "default_cache_path",
    "dense_rewards",
    "judge_dataset",
    "label_ablations",
    "label_dataset",
    "point_biserial",
    "resolve_judge",
    "split_episodes",
    "write_labelled",
]
