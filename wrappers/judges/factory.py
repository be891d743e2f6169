"""Build a judge from its command-line spec: ``embedding``, ``hf:PATH`` or ``openai:URL``."""

from __future__ import annotations

from typing import Any

from rewardgym.wrappers.judges.base import Judge

JUDGE_SPECS: tuple[str, ...] = ("embedding", "embedding:hashing", "hf:PATH", "openai:URL")


def make_judge(spec: str, **options: Any) -> Judge:
    """The judge named by ``spec``; ``options`` go to its constructor (e.g. ``model`` for openai)."""
    kind, _, arg = spec.partition(":")
    if kind == "embedding":
        from rewardgym.embeddings import shared_embedder
        from rewardgym.wrappers.judges.embedding import EmbeddingJudge

        return EmbeddingJudge(shared_embedder(arg or "minilm"))
    if kind == "hf" and arg:
        from rewardgym.wrappers.judges.hf import HFJudge

        return HFJudge(arg, **options)
    if kind == "openai" and arg:
        from rewardgym.wrappers.judges.openai import OpenAIJudge

        return OpenAIJudge(arg, **options)
    raise ValueError(f"unknown judge spec {spec!r}: use one of {', '.join(JUDGE_SPECS)}")


__all__ = ["JUDGE_SPECS", "make_judge"]
