"""COREN's structural QA bank: a fixed set of question-answer pairs, retrieved by observation.

As in the paper (arXiv 2411.17135, Sec. 3.2), the structural consistency checks each prompt
on a small bank of QA pairs (139 by default). A pair is an observation (instruction, display
text, visible objects), the question "which visible objects are relevant to the task?" and
its reference answer. ``build_qa_bank`` draws the observations once from episodes of the
simulator that are kept out of the labelled data (their seeds differ from every labelled
episode's) and takes the reference answers from the simulator's ground truth
(``grounding.reference_answer``). A user's own bank is a JSONL file, one object per line:
``{"instruction": "...", "visible": ["obj", ...], "answer": "obj, obj"}`` plus an optional
``"observation"`` text (what an LLM judge reads; default: the visible objects).

For a step to be labelled, the bank retrieves the pair whose observation is most similar:
the cosine similarity of the instruction's MiniLM vector next to the mean vector of the
visible objects. Each prompt answers that pair's question; its vote at the step counts in
``r^S`` only if its answer is close enough to the pair's reference answer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rewardgym.atomic import write_atomic
from rewardgym.embeddings import CachedEmbedder

QA_PAIRS = 139
"""The paper's bank size."""
QA_SEED = 7919
"""Seed of the episodes the default bank is drawn from (far from the collectors' defaults)."""


@dataclass(frozen=True)
class QAPair:
    """One observation, the structural question about it and the reference answer."""

    instruction: str
    visible: tuple[str, ...]
    answer: str
    observation: str = ""
    held: str = ""

    @property
    def text(self) -> str:
        """What a judge reads of the observation (the display text, else the visible objects)."""
        return self.observation or f"You see: {', '.join(self.visible) or 'nothing'}."


class QABank:
    """A fixed list of QA pairs; ``retrieve`` finds the most similar pair for observations."""

    def __init__(self, pairs: Sequence[QAPair], embedder: CachedEmbedder) -> None:
        """Hold ``pairs``; ``embedder`` embeds instructions and object names for retrieval."""
        if not pairs:
            raise ValueError(
                "the QA bank is empty: the structural consistency needs reference QA pairs "
                "(build_qa_bank for the simulator envs, or a JSONL file, --qa FILE)"
            )
        self.pairs = list(pairs)
        self.embedder = embedder
        self._matrix: np.ndarray | None = None

    def __len__(self) -> int:
        """The number of QA pairs."""
        return len(self.pairs)

    def _features(self, keys: Sequence[tuple[str, tuple[str, ...]]]) -> np.ndarray:
        instructions = self.embedder.embed(list(dict.fromkeys(k[0] for k in keys)))
        by_instruction = {k: i for i, k in enumerate(dict.fromkeys(k[0] for k in keys))}
        names = sorted({name for _, visible in keys for name in visible})
        index = {name: i for i, name in enumerate(names)}
        vectors = self.embedder.embed(names) if names else np.zeros((0, instructions.shape[1]))
        objects = np.zeros((len(keys), instructions.shape[1]), dtype=np.float64)
        for row, (_, visible) in enumerate(keys):
            if visible:
                objects[row] = vectors[[index[v] for v in visible]].mean(axis=0)
        rows = instructions[[by_instruction[k[0]] for k in keys]]
        feats = np.concatenate([rows, objects], axis=1)
        return feats / np.maximum(np.linalg.norm(feats, axis=1, keepdims=True), 1e-12)

    def retrieve(
        self, queries: Sequence[tuple[str, Sequence[str]]]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The index of the most similar pair and its similarity for each (instruction, visible)."""
        if self._matrix is None:
            self._matrix = self._features([(p.instruction, p.visible) for p in self.pairs])
        keys = [(q[0], tuple(sorted(q[1]))) for q in queries]
        distinct = list(dict.fromkeys(keys))
        if not distinct:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        sims = self._features(distinct) @ self._matrix.T
        best = sims.argmax(axis=1)
        where = {k: i for i, k in enumerate(distinct)}
        rows = np.array([where[k] for k in keys], dtype=np.int64)
        return best[rows].astype(np.int64), sims[rows, best[rows]]

    def to_jsonl(self, path: str | Path) -> Path:
        """Write the bank as a QA file (the format ``from_jsonl`` reads), atomically."""
        lines = [
            json.dumps({**asdict(p), "visible": list(p.visible)}, allow_nan=False)
            for p in self.pairs
        ]
        return write_atomic(path, "\n".join(lines) + "\n")

    @classmethod
    def from_jsonl(cls, path: str | Path, embedder: CachedEmbedder) -> QABank:
        """Read a QA file (see the module docstring for the format)."""
        source = Path(path)
        pairs = []
        for lineno, line in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                row: dict[str, Any] = json.loads(line)
                visible = row["visible"]
                if not isinstance(visible, list):
                    raise TypeError("'visible' is not a list")
                pairs.append(
                    QAPair(
                        instruction=str(row["instruction"]),
                        visible=tuple(str(v) for v in visible),
                        answer=str(row["answer"]),
                        observation=str(row.get("observation", "")),
                        held=str(row.get("held", "")),
                    )
                )
            except (ValueError, KeyError, TypeError) as err:
                raise ValueError(
                    f"{source}:{lineno}: a QA line needs JSON with 'instruction', 'visible' "
                    f"(a list) and 'answer' ({err})"
                ) from None
        if not pairs:
            raise ValueError(f"{source}: the QA file holds no pairs")
        return cls(pairs, embedder)


def build_qa_bank(
    env_id: str,
    embedder: CachedEmbedder,
    *,
    n_pairs: int = QA_PAIRS,
    seed: int = QA_SEED,
    exclude_seeds: Sequence[int] = (),
    env_kwargs: dict[str, Any] | None = None,
    noise: float = 0.6,
) -> QABank:
    """A bank of ``n_pairs`` pairs from simulator episodes whose seeds avoid ``exclude_seeds``.

    Episodes of the perturbed expert (tasks dealt round robin) are rolled out one by one and
    one observation is drawn from each, so the pairs cover every task at many stages;
    duplicates are skipped. The reference answer is the visible objects among the env's
    ``goal_objects()`` (``grounding.reference_answer``).
    """
    import gymnasium as gym

    import rewardgym  # noqa: F401  (registers the envs)
    from rewardgym.envs.trajectories.collect import collect_episode, episode_seeds
    from rewardgym.envs.trajectories.config import CollectConfig
    from rewardgym.wrappers.coren.grounding import (
        episode_transitions,
        reference_answer,
        scene_names,
    )

    if n_pairs < 1:
        raise ValueError(f"build_qa_bank: n_pairs={n_pairs}: use at least 1")
    env = gym.make(env_id, **(env_kwargs or {}))
    base: Any = env.unwrapped
    names = scene_names(env)
    if names is None or not hasattr(base, "goal_objects") or not hasattr(base, "action_names"):
        env.close()
        raise ValueError(
            f"{env_id} gives no ground-truth answer to the structural question (it has no "
            "goal_objects()); pass a QA file of your own (QABank.from_jsonl, CLI --qa FILE)"
        )
    tasks: tuple[int, ...] = tuple(getattr(base, "task_ids", ()))
    excluded = {int(s) for s in exclude_seeds}
    rng = np.random.default_rng(seed)
    pairs: dict[tuple[str, tuple[str, ...]], QAPair] = {}
    scripted = hasattr(base, "expert_script")
    collect = CollectConfig(
        env=env_id,
        noise=noise,
        expert="script" if scripted else "replan",
        sibling_fraction=0.5 if scripted and hasattr(base, "script_for") else 0.0,
    )
    seeds = [s for s in episode_seeds(seed, 20 * n_pairs) if s not in excluded]
    for i, episode_seed in enumerate(seeds):
        options = {"task": tasks[i % len(tasks)]} if tasks else None
        episode = collect_episode(
            env, episode_id=i, seed=episode_seed, config=collect, options=options
        )
        steps = episode_transitions(episode, base.action_names, env_id, names)
        step = steps[int(rng.integers(len(steps)))]
        key = (step.instruction, tuple(sorted(step.visible)))
        if key not in pairs:
            answer = reference_answer(base.goal_objects(), step.visible)
            pairs[key] = QAPair(step.instruction, key[1], answer, step.observation, step.held)
        if len(pairs) == n_pairs:
            break
    env.close()
    return QABank(list(pairs.values()), embedder)


__all__ = ["QA_PAIRS", "QA_SEED", "QABank", "QAPair", "build_qa_bank"]
