"""Reference QA pairs for the structural consistency, retrieved by observation similarity.

A QA pair holds an observation (its instruction and visible objects) and the reference answer
to "which visible objects are relevant to the task?". The bank is built from the simulator's
ground truth (``grounding.reference_answers``) or from a user's JSONL file, one object per
line: ``{"instruction": "...", "visible": ["obj", ...], "answer": "obj, obj"}``. A query
retrieves the pair whose observation embedding (the instruction's vector next to the mean
vector of the visible objects, both MiniLM) is most similar; an identical observation is
found by a dictionary look-up first (its similarity would be 1).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rewardgym.embeddings import CachedEmbedder

QAKey = tuple[str, tuple[str, ...]]


class QABank:
    """Reference answers keyed by (instruction, visible objects), retrievable by similarity."""

    def __init__(self, embedder: CachedEmbedder) -> None:
        """Start empty; ``embedder`` embeds instructions and object names."""
        self.embedder = embedder
        self._answers: dict[QAKey, str] = {}
        self._matrix: np.ndarray | None = None
        self._keys: list[QAKey] = []

    def __len__(self) -> int:
        """The number of QA pairs."""
        return len(self._answers)

    def add(self, instruction: str, visible: Sequence[str], answer: str) -> None:
        """Add (or replace) one QA pair."""
        self._answers[(instruction, tuple(sorted(visible)))] = answer
        self._matrix = None

    def _features(self, keys: Sequence[QAKey]) -> np.ndarray:
        instructions = self.embedder.embed([k[0] for k in keys])
        names = sorted({name for _, visible in keys for name in visible})
        index = {name: i for i, name in enumerate(names)}
        vectors = self.embedder.embed(names) if names else np.zeros((0, instructions.shape[1]))
        objects = np.zeros_like(instructions)
        for row, (_, visible) in enumerate(keys):
            if visible:
                objects[row] = vectors[[index[v] for v in visible]].mean(axis=0)
        feats = np.concatenate([instructions, objects], axis=1)
        return feats / np.maximum(np.linalg.norm(feats, axis=1, keepdims=True), 1e-12)

    def retrieve(self, queries: Sequence[QAKey]) -> list[tuple[str, float]]:
        """The reference answer and retrieval similarity for each (instruction, visible) query."""
        if not self._answers:
            raise ValueError(
                "the QA bank is empty: the structural consistency needs reference QA pairs "
                "(simulator ground truth, or --qa FILE for other environments)"
            )
        normalised = [(q[0], tuple(sorted(q[1]))) for q in queries]
        misses = sorted({q for q in normalised if q not in self._answers})
        found: dict[QAKey, tuple[str, float]] = {}
        if misses:
            if self._matrix is None:
                self._keys = list(self._answers)
                self._matrix = self._features(self._keys)
            sims = self._features(misses) @ self._matrix.T
            best = sims.argmax(axis=1)
            for row, query in enumerate(misses):
                key = self._keys[int(best[row])]
                found[query] = (self._answers[key], float(sims[row, best[row]]))
        return [(self._answers[q], 1.0) if q in self._answers else found[q] for q in normalised]

    @classmethod
    def from_jsonl(cls, path: str | Path, embedder: CachedEmbedder) -> QABank:
        """Read a user's QA file (see the module docstring for the format)."""
        bank = cls(embedder)
        source = Path(path)
        for lineno, line in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                bank.add(
                    str(row["instruction"]), [str(v) for v in row["visible"]], str(row["answer"])
                )
            except (ValueError, KeyError, TypeError) as err:
                raise ValueError(
                    f"{source}:{lineno}: a QA line needs JSON with 'instruction', 'visible' "
                    f"(a list) and 'answer' ({err})"
                ) from None
        return bank


__all__ = ["QABank", "QAKey"]
