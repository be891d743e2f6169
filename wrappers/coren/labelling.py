"""Relabel a logged trajectory data set with COREN's dense, consistency-checked reward.

``label_dataset`` writes a NEW data set (same Arrow + Minari format, the dense reward in a column
beside the success reward, the composition it was made for in its metadata) without touching its
input; ``label_ablations`` asks the judges once and writes one data set per ablation. This module
joins the jobs, each in its own module: judging every step (``judging``), fitting the
orchestrator into one dense reward per step (``dense_labels``), the statistics (``label_stats``),
the report (``label_report``) and the checked, atomic output (``label_output``). Outputs are
checked before the first judge call and renamed into place only when complete; a run whose
judge calls all failed stops with :class:`LabellingError` and writes nothing, and an openai
judge that cannot answer one completion (a closed port, a server that answers HTML) stops it
within seconds, before any other work (``OpenAIJudge.preflight``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from rewardgym.atomic import absolute
from rewardgym.embeddings import CachedEmbedder
from rewardgym.envs.trajectories.dataset import TrajectoryDataset
from rewardgym.envs.trajectories.layout import DATASET_KIND
from rewardgym.outputs import atomic_output, prepare_output
from rewardgym.redact import redact
from rewardgym.wrappers.coren.dense_labels import dense_rewards
from rewardgym.wrappers.coren.ensemble import CompleteFn
from rewardgym.wrappers.coren.judging import (
    JudgedDataset,
    judge_dataset,
    judge_embedder,
    probe_heldout,
    resolve_judge,
)
from rewardgym.wrappers.coren.label_config import LabelConfig
from rewardgym.wrappers.coren.label_output import (
    COREN_DIR,
    LabellingError,
    LabelRecord,
    check_judged,
    check_paths,
    default_cache_path,
    prepare_container,
    write_labelled,
    write_labelled_into,
)
from rewardgym.wrappers.coren.label_report import LabelReport, build_report
from rewardgym.wrappers.coren.label_stats import cold_cost, point_biserial, split_episodes
from rewardgym.wrappers.coren.qa import QABank
from rewardgym.wrappers.judges.base import Judge
from rewardgym.wrappers.judges.cache import JudgeCache
from rewardgym.wrappers.judges.openai import OpenAIJudge
from rewardgym.wrappers.judges.prompts import load_prompts


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

    Every setting comes from ``config`` (the judge spec, COREN's settings, the reward
    composition each data set records, the cache, prompt and QA files, ``minari``,
    ``overwrite``; ``config.coren.ablation`` is replaced by each of ``ablations``); the
    keywords are live objects a config cannot hold: a built ``judge`` (used in place of
    ``config.judge``), the ``embedder``, whether to show ``progress`` and a batch ``complete``
    function. Every output is checked before the first judge call: a directory
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
        embedder = judge_embedder(judge_obj, embedder)
        prompts = load_prompts(coren.n_prompts, config.prompts)
        qa = QABank.from_jsonl(config.qa, embedder) if config.qa is not None else None
        data = TrajectoryDataset.from_dir(source)
        cache = JudgeCache(cache_file)
        try:
            judged = judge_dataset(
                data, judge_obj, coren, cache, prompts, qa, embedder, progress, complete
            )
            probe = probe_heldout(data, judge_obj, prompts, coren, cache)
        finally:
            cache.close()
        check_judged(judged, judge_obj)
        judge_name = redact(config.judge) if judge is None else judge_obj.identity
        reports = {}
        for ablation in ablations:
            cfg = replace(coren, ablation=ablation)
            rewards, orchestrator, info = dense_rewards(judged, cfg, embedder)
            report = build_report(
                ablation,
                judged,
                info,
                out=targets[ablation],
                cache=cache_file,
                judge_name=judge_name,
                probe=probe,
                started=start,
            )
            record = LabelRecord(judge=judge_name, coren=cfg, composition=config.composition)
            write_labelled_into(
                staging[ablation], judged, rewards, report, orchestrator, record, config.minari
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
    ``orchestrator.pt``, ``report.json`` and ``terms.npz``; the data set's metadata records
    ``config.composition``, the judge and the ensemble (``LabelRecord``), and offline training
    reads the composition from there.
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
    "LabelRecord",
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
