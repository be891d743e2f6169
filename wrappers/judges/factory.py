"""Build a judge from its command-line spec: ``embedding``, ``hf:NAME``, ``hf:PATH``, ``openai:URL`` or ``calibrated:ACC``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from rewardgym.redact import redact
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
    "calibrated:ACC",
    "calibrated:ACC:RHO",
)


def check_judge_spec(spec: str, option: str = "--judge") -> None:
    """Refuse a judge ``spec`` that names no judge, without building it (nothing is loaded).

    ``ValueError`` names ``option``, the value and the valid forms: ``embedding`` (or
    ``embedding:minilm`` / ``embedding:hashing``), ``hf:NAME`` of a pretrained model or
    ``hf:PATH`` of a folder holding ``config.json``, ``openai:URL`` with an http(s) URL, and
    ``calibrated:ACC`` / ``calibrated:ACC:RHO`` with numbers in [0, 1].
    """
    from rewardgym.pretrained import PRETRAINED, is_pretrained

    kind, _, arg = spec.partition(":")
    if kind == "embedding" and arg in ("", "minilm", "hashing"):
        return
    if kind == "calibrated":
        from rewardgym.wrappers.judges.calibrated import parse_calibrated

        try:
            parse_calibrated(spec)
        except ValueError as err:
            raise ValueError(f"{option} {spec!r}: {err}") from None
        return
    if kind == "hf" and arg:
        if is_pretrained(arg) or (Path(arg).expanduser() / "config.json").is_file():
            return
        raise ValueError(
            f"{option} {spec!r}: {arg!r} is neither a pretrained model ({', '.join(PRETRAINED)}) "
            "nor a model folder holding config.json"
        )
    if kind == "openai" and arg:
        try:
            url = urlsplit(arg)
            if url.scheme in ("http", "https") and url.hostname:
                return
        except ValueError:  # e.g. an unclosed IPv6 bracket
            pass
        raise ValueError(
            f"{option} {redact(spec)!r}: {redact(arg)!r} is not an http(s) URL; write e.g. "
            "openai:http://127.0.0.1:8000/v1"
        )
    raise ValueError(
        f"{option} {redact(spec)!r}: no such judge; use one of {', '.join(JUDGE_SPECS)}"
    )


def make_judge(
    spec: str, *, openai: OpenAIJudgeConfig | None = None, hf: HFJudgeConfig | None = None
) -> Judge:
    """The judge named by ``spec``; ``openai`` and ``hf`` hold the settings of those judges.

    ``hf:NAME`` is a model of ``rewardgym.pretrained.PRETRAINED`` (converted once from its
    package), ``hf:PATH`` a local model folder; ``calibrated:ACC[:RHO]`` a judge of known
    accuracy (``rewardgym.wrappers.judges.calibrated``), bound to its data set when it labels.
    Settings for a judge of another kind are refused, never silently ignored.
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
    if kind == "calibrated":
        from rewardgym.wrappers.judges.calibrated import CalibratedJudge, parse_calibrated

        accuracy, rho = parse_calibrated(spec)
        return CalibratedJudge(accuracy, rho)
    raise ValueError(f"unknown judge spec {spec!r}: use one of {', '.join(JUDGE_SPECS)}")


__all__ = ["JUDGE_SPECS", "check_judge_spec", "make_judge"]
