"""The embodied suite's data sets: collection, the oracle and COREN relabellings, their summary.

Every data set keeps the success reward; a relabelling adds a dense reward column beside it and
records the composition it was made for (``rewardgym.wrappers.composition.with_dense_labels``,
``RewardComposition``'s lambda here), so each row composes the two at training time: with that
lambda, or with its own tuned one (``Tuned.dense_weight``), recorded with its results.
Everything is written by the rules of ``rewardgym.atomic`` and ``rewardgym.outputs``, by the data
set's own ``save``, and an existing data set made with the same settings is reused.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from rewardgym.benchmarks.embodied.config import EmbodiedBenchConfig

METADATA = "rewardgym_dataset.json"


def collect(config: EmbodiedBenchConfig, target: Path) -> dict[str, Any]:
    """Collect the training data set into ``target``, reusing one made with the same settings."""
    from rewardgym.envs.trajectories import TrajectoryDataset, collect_dataset

    if (target / METADATA).exists():
        existing = TrajectoryDataset.from_dir(target)
        if existing.info.get("collect_config") == asdict(config.collect):
            return {"reused": True, "seconds": 0.0, "success_rate": existing.success_rate}
    start = time.perf_counter()
    data = collect_dataset(config.collect)
    data.save(target, minari=False, overwrite=True)
    return {
        "reused": False,
        "seconds": time.perf_counter() - start,
        "success_rate": data.success_rate,
        "steps": data.n_steps,
    }


def label_oracle(source: Path, target: Path, gamma: float) -> dict[str, Any]:
    """Write ``source`` with the oracle's dense reward (goal-progress shaping) to ``target``."""
    from rewardgym.envs.household.v1.oracle import oracle_dense_rewards
    from rewardgym.envs.trajectories import TrajectoryDataset
    from rewardgym.wrappers.composition import RewardComposition, with_dense_labels

    start = time.perf_counter()
    data = TrajectoryDataset.from_dir(source)
    dense = oracle_dense_rewards(data, gamma)
    labelled = with_dense_labels(
        data, dense, source="oracle: goal-progress shaping", composition=RewardComposition()
    )
    labelled.save(target, minari=False, overwrite=True)
    return {"seconds": time.perf_counter() - start}


def label_perfect_judge(source: Path, target: Path) -> dict[str, Any]:
    """Write ``source`` with the perfect judge's -2..+2 rating of every step to ``target``."""
    from rewardgym.envs.trajectories import TrajectoryDataset
    from rewardgym.wrappers.composition import RewardComposition, with_dense_labels
    from rewardgym.wrappers.perfect_judge import PERFECT_JUDGE_SOURCE, perfect_judge_rewards

    start = time.perf_counter()
    data = TrajectoryDataset.from_dir(source)
    dense = perfect_judge_rewards(data)
    labelled = with_dense_labels(
        data, dense, source=PERFECT_JUDGE_SOURCE, composition=RewardComposition()
    )
    labelled.save(target, minari=False, overwrite=True)
    return {"seconds": time.perf_counter() - start}


def variant_name(collect: Any) -> str:
    """The name of the data-set variant ``collect`` is (size and seed aside), else "custom"."""
    from rewardgym.envs.trajectories.variants import DATASET_VARIANTS

    for name, variant in DATASET_VARIANTS.items():
        if replace(variant, episodes=collect.episodes, seed=collect.seed) == collect:
            return name
    return "custom"


def label_coren(
    config: EmbodiedBenchConfig, source: Path, target: Path, ablations: list[str], *, quiet: bool
) -> dict[str, Any]:
    """Label ``source`` once with the judge ensemble and write one data set per ablation."""
    from rewardgym.wrappers.coren.config import CorenConfig
    from rewardgym.wrappers.coren.labelling import LabelConfig, label_ablations

    start = time.perf_counter()
    reports = label_ablations(
        source,
        target,
        ablations,
        LabelConfig(
            judge=config.judge,
            coren=replace(CorenConfig(), n_prompts=config.n_prompts, gamma=config.training.gamma),
            overwrite=True,
            minari=False,
        ),
        progress=not quiet,
    )
    return {
        "seconds": time.perf_counter() - start,
        "reports": {name: report.as_dict() for name, report in reports.items()},
    }


def judge_table(config: EmbodiedBenchConfig, label: dict[str, Any] | None) -> dict[str, Any]:
    """The ``judges`` table: each judge of ``config.quality_judges`` probed on abstract instructions.

    The probe (``wrappers.judges.quality.probe_judge``) rates every action at states
    of perturbed-expert episodes under Household-v1's held-out abstract instructions; the
    labelling judge's row also carries its labelling cost and held-out return-success
    correlation from ``label`` (the label reports).
    """
    from rewardgym.wrappers.judges.quality import held_out_probe_data, probe_judges

    if not config.quality_judges:
        return {}
    data = held_out_probe_data(
        "abstract", episodes=config.quality_episodes, seed=config.collect.seed + 7919
    )
    rows = probe_judges(
        config.quality_judges,
        data,
        states=config.quality_states,
        hf_states=config.quality_hf_states,
        n_prompts=config.n_prompts,
    )
    labelled = _labelling_row(label)
    table: dict[str, Any] = {}
    for spec, row in rows.items():
        table[spec] = {"split": "abstract", **row}
        if spec == config.judge and labelled:
            table[spec].update(labelled)
    return table


def _labelling_row(label: dict[str, Any] | None) -> dict[str, float]:
    """The labelling judge's cost and held-out correlation from its CST (else first) label report."""
    if not label or not label.get("reports"):
        return {}
    reports = label["reports"]
    report = reports.get("CST") or next(iter(reports.values()))  # COREN's own scheme first
    rows = report.get("judges") or {}
    if not rows:
        return {}
    row = next(iter(rows.values()))
    keep = ("return_success_corr", "seconds_per_1k_steps", "calls_per_1k_steps")
    return {f"labelling_{k}" if k != "return_success_corr" else k: row[k] for k in keep}


def reward_digest(dataset: Path) -> str:
    """A digest of a data set's dense rewards, so schemes with equal rewards train once."""
    from rewardgym.envs.trajectories import TrajectoryDataset

    digest = hashlib.sha1()
    for episode in TrajectoryDataset.from_dir(dataset):
        if episode.dense_rewards is not None:
            digest.update(episode.dense_rewards.astype("float32").round(5).tobytes())
    return digest.hexdigest()[:12]


def data_summary(source: Path) -> dict[str, Any]:
    """Episodes, success rate, the mean length of the expert scripts and the variant statistics.

    On VirtualHome-v0: the mean length of the training programs' scripts, the share of
    demonstrators that gave up and the programs instead of the variant statistics. The variant
    statistics (``rewardgym.envs.trajectories.variants.variant_statistics``) are the
    mean episode length and the stitchable segments of the failed episodes.
    """
    from rewardgym.envs import VIRTUALHOME_ID
    from rewardgym.envs.household.v1 import HouseholdV1Env
    from rewardgym.envs.trajectories import TrajectoryDataset
    from rewardgym.envs.trajectories.variants import variant_statistics

    data = TrajectoryDataset.from_dir(source)
    if data.env_id == VIRTUALHOME_ID:
        return _program_summary(data)
    env = HouseholdV1Env()
    lengths = []
    for episode in data:
        options = episode.extras.get("reset_options")
        if options is not None and not episode.extras.get("sibling", False):
            env.reset(seed=episode.seed, options=options)
            lengths.append(len(env.expert_script()))
    siblings = [bool(ep.extras.get("sibling", False)) for ep in data]
    correct = [ep.success for ep, s in zip(data, siblings, strict=True) if not s]
    return {
        "episodes": len(data),
        "steps": data.n_steps,
        "success_rate": 100.0 * data.success_rate,
        "mean_expert_steps": float(np.mean(lengths)) if lengths else 0.0,
        "sibling_share": 100.0 * float(np.mean(siblings)),
        "success_rate_own_task": 100.0 * float(np.mean(correct)) if correct else 0.0,
        **{
            k: v
            for k, v in variant_statistics(data).items()
            if k not in ("episodes", "success_rate", "sibling_share")
        },
    }


def _program_summary(data: Any) -> dict[str, Any]:
    """VirtualHome-v0's summary: episodes, success rate, lengths, give-ups and programs.

    Its data have no sibling demonstrations and no planner to find stitchable segments with.
    """
    import gymnasium as gym

    env: Any = gym.make(data.env_id, **data.env_kwargs).unwrapped
    programs = sorted({ep.extras["reset_options"]["program"] for ep in data})
    lengths = []
    for program in programs:
        env.reset(options={"program": program})
        lengths.append(len(env.expert_script()))
    return {
        "episodes": len(data),
        "steps": data.n_steps,
        "success_rate": 100.0 * data.success_rate,
        "mean_expert_steps": float(np.mean(lengths)) if lengths else 0.0,
        "mean_length": float(np.mean([len(ep) for ep in data])) if len(data) else 0.0,
        "gave_up_share": 100.0 * float(np.mean([bool(ep.extras.get("gave_up")) for ep in data])),
        "programs": len(programs),
    }


def reward_diagnostics(dirs: dict[str, Path]) -> dict[str, dict[str, float]]:
    """Per dense scheme: mean dense reward of expert, perturbed, impossible and sibling steps."""
    from rewardgym.envs.trajectories import TrajectoryDataset

    out: dict[str, dict[str, float]] = {}
    for scheme, path in dirs.items():
        data = TrajectoryDataset.from_dir(path)
        dense = [ep.dense_rewards for ep in data]
        if any(d is None for d in dense):
            continue
        rewards = np.concatenate([d for d in dense if d is not None])
        expert = np.concatenate([ep.expert for ep in data])
        executable = np.concatenate([ep.executable for ep in data])
        sibling = np.concatenate(
            [np.full(len(ep), bool(ep.extras.get("sibling", False))) for ep in data]
        )
        success = np.array([ep.success for ep in data])
        returns = np.array([float(d.sum()) for d in dense if d is not None])
        out[scheme] = {
            "expert_step": float(rewards[expert & ~sibling].mean()),
            "sibling_step": float(rewards[expert & sibling].mean()) if sibling.any() else 0.0,
            "perturbed_step": float(rewards[~expert & executable].mean()),
            "impossible_step": float(rewards[~executable].mean()),
            "return_success": float(returns[success].mean()) if success.any() else 0.0,
            "return_failure": float(returns[~success].mean()) if (~success).any() else 0.0,
        }
    return out


__all__ = [
    "collect",
    "data_summary",
    "label_coren",
    "label_oracle",
    "label_perfect_judge",
    "reward_diagnostics",
    "reward_digest",
    "variant_name",
]
