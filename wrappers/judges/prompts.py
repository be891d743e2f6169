"""Prompt templates of the judge ensemble: the file format, the loader and the renderer.

A prompt file is plain text. Header lines ``key: value`` come first (``kind``: naive,
in-context or chain-of-thought; ``phrases``: how the embedding judge splits the instruction
into goal phrases, one of instruction, clauses, objects or pairs; ``progress: yes`` makes the
embedding judge ignore goal phrases that the completed actions already cover; optional
``threshold_next`` and ``threshold_supportive``). Sections follow, each opened by a line
``=== name ===``: ``demonstrations`` (optional, one ``instruction | action | rating`` per
line), ``rate`` (required) and optionally ``structural``, ``temporal`` and ``free`` to replace
the default question templates. Templates may use ``{instruction}``, ``{observation}``,
``{action}``, ``{actions}``, ``{question}``, ``{visible}``, ``{rubric}`` and
``{demonstrations}``; no other braces are interpreted, so JSON examples are safe.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from rewardgym.wrappers.coren.config import N_PROMPTS

# The rubric of COREN (arXiv 2411.17135, Sec. 3): integer ratings and what each one means.
RUBRIC: dict[int, str] = {
    2: "the next correct action",
    1: "a supportive action",
    0: "a neutral action",
    -1: "searching an irrelevant object",
    -2: "an action that cannot be executed",
}
RUBRIC_MAX = 2

PROMPT_KINDS: tuple[str, ...] = ("naive", "in-context", "chain-of-thought")
PHRASE_MODES: tuple[str, ...] = ("instruction", "clauses", "objects", "pairs")
STRUCTURAL_QUESTION = "Which visible objects are relevant to the task?"
TEMPORAL_QUESTION = "Does executing these actions, in this order, achieve the instruction?"

_DEFAULT_TEMPLATES: dict[str, str] = {
    "structural": (
        "Instruction: {instruction}\nObservation: {observation}\nVisible objects: {visible}\n"
        f"Question: {STRUCTURAL_QUESTION} Answer with a comma-separated list of visible object "
        "names, or none.\nAnswer:"
    ),
    "temporal": (
        "Instruction: {instruction}\nActions: {actions}\n"
        f"Question: {TEMPORAL_QUESTION} Answer yes or no.\nAnswer:"
    ),
    "free": "Instruction: {instruction}\nObservation: {observation}\nQuestion: {question}\nAnswer:",
}
_PLACEHOLDERS: tuple[str, ...] = (
    "instruction",
    "observation",
    "action",
    "actions",
    "question",
    "visible",
    "rubric",
    "demonstrations",
)


@dataclass(frozen=True)
class Demonstration:
    """One rated example of an in-context prompt: instruction, action and its rubric rating."""

    instruction: str
    action: str
    rating: int


@dataclass(frozen=True)
class Prompt:
    """One member of the ensemble: its templates, demonstrations and embedding-judge settings."""

    name: str
    kind: str
    phrases: str
    templates: dict[str, str]
    demonstrations: tuple[Demonstration, ...] = ()
    progress: bool = False
    threshold_next: float | None = None
    threshold_supportive: float | None = None
    fingerprint: str = field(default="", compare=False)

    def render(self, kind: str, values: dict[str, str]) -> str:
        """The text an LLM judge reads for a ``rate``/``structural``/``temporal``/``free`` request."""
        template = self.templates.get(kind) or _DEFAULT_TEMPLATES[kind]
        filled = {
            "rubric": "\n".join(f"{score}: {meaning}" for score, meaning in RUBRIC.items()),
            "demonstrations": "\n".join(
                f"{d.instruction} | {d.action} | {d.rating}" for d in self.demonstrations
            ),
            **values,
        }
        text = template
        for key in _PLACEHOLDERS:
            text = text.replace("{" + key + "}", filled.get(key, ""))
        return text


def parse_prompt(text: str, name: str, source: str = "<string>") -> Prompt:
    """Parse the prompt file format described in this module's docstring."""
    header: dict[str, str] = {}
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("===") and stripped.endswith("===") and len(stripped) > 6:
            section = stripped.strip("= ").lower()
            current = sections.setdefault(section, [])
            continue
        if current is not None:
            current.append(line)
        elif stripped:
            key, sep, value = stripped.partition(":")
            if not sep:
                raise ValueError(
                    f"{source}:{lineno}: header line {stripped!r} is not 'key: value'; headers "
                    "come before the first '=== section ===' line"
                )
            header[key.strip().lower()] = value.strip()
    kind = header.get("kind", "naive")
    phrases = header.get("phrases", "instruction")
    if kind not in PROMPT_KINDS:
        raise ValueError(f"{source}: kind {kind!r} is unknown; use one of {PROMPT_KINDS}")
    if phrases not in PHRASE_MODES:
        raise ValueError(f"{source}: phrases {phrases!r} is unknown; use one of {PHRASE_MODES}")
    if "rate" not in sections:
        raise ValueError(f"{source}: no '=== rate ===' section; every prompt needs a rate template")
    demos = tuple(
        _parse_demo(line, source) for line in sections.pop("demonstrations", []) if line.strip()
    )
    templates = {key: "\n".join(lines).strip() + "\n" for key, lines in sections.items()}
    unknown = set(templates) - {"rate", *_DEFAULT_TEMPLATES}
    if unknown:
        raise ValueError(
            f"{source}: unknown sections {sorted(unknown)}; see rewardgym.wrappers.judges.prompts"
        )
    return Prompt(
        name=name,
        kind=kind,
        phrases=phrases,
        templates=templates,
        demonstrations=demos,
        progress=header.get("progress", "no").lower() in ("yes", "true", "1"),
        threshold_next=_float_or_none(header, "threshold_next", source),
        threshold_supportive=_float_or_none(header, "threshold_supportive", source),
        fingerprint=hashlib.sha256(text.encode("utf-8")).hexdigest()[:16],
    )


def _parse_demo(line: str, source: str) -> Demonstration:
    parts = [p.strip() for p in line.split("|")]
    if len(parts) != 3:
        raise ValueError(f"{source}: demonstration {line!r} is not 'instruction | action | rating'")
    try:
        rating = int(parts[2])
    except ValueError:
        raise ValueError(f"{source}: demonstration rating {parts[2]!r} is not an integer") from None
    if rating not in RUBRIC:
        raise ValueError(f"{source}: demonstration rating {rating} is outside the rubric -2..2")
    return Demonstration(parts[0], parts[1], rating)


def _float_or_none(header: dict[str, str], key: str, source: str) -> float | None:
    if key not in header:
        return None
    try:
        return float(header[key])
    except ValueError:
        raise ValueError(f"{source}: header {key}={header[key]!r} is not a number") from None


def default_prompt_dir() -> Path:
    """The directory of the prompt files shipped with rewardgym."""
    return Path(str(resources.files("rewardgym.wrappers.judges") / "prompts"))


def load_prompts(
    n_prompts: int = N_PROMPTS, directory: str | Path | None = None
) -> tuple[Prompt, ...]:
    """The first ``n_prompts`` prompt files (``*.txt``, sorted by name) of ``directory``."""
    folder = Path(directory) if directory is not None else default_prompt_dir()
    files = sorted(folder.glob("*.txt"))
    if len(files) < n_prompts:
        raise ValueError(
            f"{folder} holds {len(files)} prompt files but n_prompts={n_prompts}; add prompt "
            "files (see rewardgym.wrappers.judges.prompts) or lower n_prompts"
        )
    return tuple(
        parse_prompt(path.read_text(encoding="utf-8"), path.stem, str(path))
        for path in files[:n_prompts]
    )


__all__ = [
    "PHRASE_MODES",
    "PROMPT_KINDS",
    "RUBRIC",
    "RUBRIC_MAX",
    "STRUCTURAL_QUESTION",
    "TEMPORAL_QUESTION",
    "Demonstration",
    "Prompt",
    "default_prompt_dir",
    "load_prompts",
    "parse_prompt",
]
