"""Build a judge from its command-line spec: ``embedding``, ``hf:NAME``, ``hf:PATH`` or ``openai:URL``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rewardgym.wrappers.judges.base import Judge

if TYPE_CHECKING:
    from rewardgym.wrappers.judges.hf import HFJudgeConfig
    from rewardgym.wrappers.judges.openai import OpenAIJudgeConfig

JUDGE_SPECS: tuple[str, ...] = (
    "embedding",
    "embedding:hashing",
    "hf:smollm2-135m",
    "hf:PATH",
    "openai:URL",
)


def make_judge(
    spec: str, *, openai: OpenAIJudgeConfig | None = None, hf: HFJudgeConfig | None = None
) -> Judge:
    """The judge named by ``spec``; ``openai`` and ``hf`` hold the settings of those judges.

    ``hf:NAME`` is a model of ``rewardgym.pretrained.PRETRAINED`` (converted once from its
    package), ``hf:PATH`` a local model folder. Settings for a judge of another kind are
    refused, never silently ignored.
    """
    kind, _, arg = spec.partition(":")
    if openai is not None and kind != "openai":
        raise ValueError(f"openai judge settings were given, but the judge is {spec!r}")
    if hf is not None and kind != "hf":
        raise ValueError(f"hf judge settings were given, but the judge is {spec!r}")
    if kind == "embedding":
        from rewardgym.embeddings import shared_embedder
        from rewardgym.wrappers.judges.embedding import EmbeddingJudge

        return EmbeddingJudge(shared_embedder(arg or "minilm"))
    if kind == "hf" and arg:
        from rewardgym.wrappers.judges.hf import HFJudge

        return HFJudge(arg, hf)
    if kind == "openai" and arg:
        from rewardgym.wrappers.judges.openai import OpenAIJudge

        return OpenAIJudge(arg, openai)
    raise ValueError(f"unknown judge spec {spec!r}: use one of {', '.join(JUDGE_SPECS)}")


__all__ = ["JUDGE_SPECS", "make_judge"]
