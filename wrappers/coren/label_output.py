"""Where a labelling run writes: checked outputs, atomic data sets and the judge cache's home.

Outputs are checked before the first judge call and written beside their target, renamed
into place only when complete (:mod:`rewardgym.atomic`); a run whose judge calls all failed
is stopped by :func:`check_judged` before anything is written. Every labelled data set records
what it was made for (``LabelRecord``) in its metadata: the reward composition training reads
(``info["reward_composition"]``), the judge and the ensemble's settings (``info["coren"]``).
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rewardgym.atomic import absolute
from rewardgym.bounds import strict_json, undefined_as_null
from rewardgym.envs.trajectories.layout import DATASET_KIND
from rewardgym.errors import LabellingError, UserError
from rewardgym.home import rewardgym_home
from rewardgym.outputs import atomic_output, mark_output, owner, prepare_output
from rewardgym.wrappers.composition import RewardComposition, with_dense_labels
from rewardgym.wrappers.coren.config import CorenConfig

if TYPE_CHECKING:
    from rewardgym.wrappers.coren.judging import JudgedDataset
    from rewardgym.wrappers.coren.label_report import LabelReport
    from rewardgym.wrappers.coren.orchestrator import Orchestrator
    from rewardgym.wrappers.judges.base import Judge

COREN_DIR = "coren"
"""Sub-directory of a relabelled data set that holds the orchestrator, report and terms."""


def default_cache_path(out: str | Path) -> Path:
    """The judge cache of label runs into ``out`` unless ``cache_path`` names one.

    It lives in the cache home (``$REWARDGYM_HOME/judge-cache``), keyed by the absolute path of
    ``out``, not inside ``out``: the output is written beside its target and renamed into
    place only when complete, while the answers a killed run paid for must survive it, and an
    ``--overwrite`` rerun must find them.
    """
    target = absolute(out)
    digest = hashlib.blake2b(str(target).encode("utf-8", "surrogatepass"), digest_size=8)
    return rewardgym_home() / "judge-cache" / f"{target.name}-{digest.hexdigest()}.sqlite"


@dataclass(frozen=True)
class LabelRecord:
    """What a labelled data set was made for, recorded in its metadata: the contract training reads."""

    judge: str
    """The judge's spec or identity (``embedding``, ``hf:PATH``, ``openai:URL``)."""
    coren: CorenConfig
    """The ensemble's settings, with the ablation of this data set."""
    composition: RewardComposition
    """How training composes the dense column with the success flag (lambda: ``dense_weight``)."""

    def coren_info(self, judge_calls: int) -> dict[str, Any]:
        """``info["coren"]`` of the data set: ablation, judge, ensemble settings, calls made."""
        return {
            "ablation": self.coren.ablation,
            "judge_calls": judge_calls,
            "judge": self.judge,
            "ensemble": asdict(self.coren),
        }


def write_labelled_into(
    directory: Path,
    judged: JudgedDataset,
    rewards: list[np.ndarray],
    report: LabelReport,
    orchestrator: Orchestrator | None,
    record: LabelRecord,
    minari: bool,
) -> None:
    """Write the relabelled data set and its ``coren/`` files into the empty ``directory``.

    The dense reward goes into its own column beside the success reward, and ``record`` into
    the metadata: ``record.composition`` as ``info["reward_composition"]``, which offline
    training reads (``rewardgym.wrappers.composition.recorded_composition``), the judge and the
    ensemble as ``info["coren"]``.
    """
    if record.coren.ablation != report.ablation:
        raise ValueError(
            f"LabelRecord.coren.ablation={record.coren.ablation!r} but the report is of "
            f"{report.ablation!r}: pass the record of the ablation being written"
        )
    relabelled = with_dense_labels(
        judged.data,
        rewards,
        source=f"coren:{report.ablation}",
        composition=record.composition,
    )
    relabelled.info["coren"] = record.coren_info(report.judge_calls)
    extras = directory / COREN_DIR
    extras.mkdir(parents=True, exist_ok=True)
    if orchestrator is not None:
        orchestrator.save(extras / "orchestrator.pt")
    if judged.qa is not None:
        judged.qa.to_jsonl(extras / "qa.jsonl")
    lengths = [len(s.terms) for s in judged.scored]
    np.savez_compressed(
        extras / "terms.npz",
        terms=judged.flat_terms().astype(np.float32),
        votes=np.concatenate([s.votes for s in judged.scored] or [np.zeros((0, 1))]).astype(
            np.float32
        ),
        episode_index=np.repeat(np.arange(len(lengths)), lengths),
        rewards=np.concatenate(rewards or [np.zeros(0, dtype=np.float32)]),
    )
    target = extras / "report.json"
    target.write_text(
        strict_json(undefined_as_null(report.as_dict()), target, indent=2, default=float),
        encoding="utf-8",
    )
    relabelled.write_into(directory, minari=minari)


def write_labelled(
    judged: JudgedDataset,
    rewards: list[np.ndarray],
    out: str | Path,
    report: LabelReport,
    orchestrator: Orchestrator | None,
    record: LabelRecord,
    overwrite: bool = False,
    minari: bool = True,
) -> Path:
    """Save the relabelled data set to ``out`` with the COREN artefacts under ``out/coren``.

    Atomic like ``TrajectoryDataset.save``: ``out`` appears only once complete, and a
    directory that is not a rewardgym data set is never replaced, whatever ``overwrite`` says.
    """
    with atomic_output(out, DATASET_KIND, overwrite=overwrite) as tmp:
        write_labelled_into(tmp, judged, rewards, report, orchestrator, record, minari)
    return absolute(out)


def check_paths(dataset: Path, out: Path) -> None:
    """Refuse an output that is the input data set or lies inside it (links followed)."""
    source, target = dataset.resolve(), out.resolve()
    if source == target or source in target.parents:
        raise UserError(
            f"--out {out} lies inside or equals the input data set {dataset}; COREN never "
            "modifies its input, so write the relabelled data set elsewhere"
        )


def check_judged(judged: JudgedDataset, judge: Judge) -> None:
    """Raise :class:`LabellingError` when every judge call of the run failed.

    Failed calls are abstentions, and a data set labelled from abstentions only is all
    zeros: it must not be written as if it were a relabelling.
    """
    calls, failures = judged.judge_stats["calls"], judged.judge_stats["failures"]
    if calls and failures == calls:
        last = getattr(judge, "last_error", None)
        raise LabellingError(
            f"every one of the {calls:,} judge calls to {judge.identity} failed"
            + (f" (last: {last})" if last else "")
            + "; no data set was written. Answers already cached are kept: fix the judge "
            "(URL, key, server) and run the same command again"
        )


_CONTAINER_KIND = "coren-ablations"


def prepare_container(root: Path) -> None:
    """Make ``root`` a marked folder of per-ablation data sets, or refuse a folder of the user's."""
    if root.is_dir() and any(root.iterdir()):
        found = owner(root)
        if found is None or found.get("kind") != _CONTAINER_KIND:
            raise FileExistsError(
                f"{root} already holds files that are not rewardgym's per-ablation data sets; "
                "nothing there is touched: choose an empty or new directory"
            )
        return
    prepare_output(root, _CONTAINER_KIND, overwrite=False)
    root.mkdir(parents=True, exist_ok=True)
    mark_output(root, _CONTAINER_KIND)


__all__ = [
    "COREN_DIR",
    "LabelRecord",
    "LabellingError",
    "check_judged",
    "check_paths",
    "default_cache_path",
    "prepare_container",
    "write_labelled",
    "write_labelled_into",
]
