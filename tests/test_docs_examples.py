"""The README's and the docs' examples run as written, and every command line they show parses.

Each file's ``python`` blocks run in order in one namespace, inside a scratch working
directory (so relative paths in an example stay out of the repository). A block that cannot
run on a CPU test machine (a GPU training run, a download) carries the marker
``<!-- docs-test: skip (reason) -->`` on the line before its fence; at most ``MAX_SKIPPED``
blocks in all the docs may. Every ``rewardgym ...`` line of a ``bash`` block is parsed by the
real CLI into its config (not run: some are the full suites).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
MAX_SKIPPED = 2
"""Blocks that may be marked ``docs-test: skip``: every other example must run."""

FENCE = re.compile(
    r"(?:^<!-- docs-test: skip \((?P<reason>.*?)\) -->\n)?^```(?P<language>\w*)\n(?P<body>.*?)^```",
    flags=re.DOTALL | re.MULTILINE,
)
MARKER = re.compile(r"<!-- docs-test: skip\b.*?-->")


def fenced(path: Path, language: str) -> list[tuple[str, str | None]]:
    """The fenced blocks of ``language`` in ``path``, in order, each with its skip reason."""
    text = path.read_text(encoding="utf-8")
    return [(m["body"], m["reason"]) for m in FENCE.finditer(text) if m["language"] == language]


def blocks(path: Path, language: str) -> list[str]:
    """The fenced code blocks of ``language`` in ``path``, in order (skipped ones included)."""
    return [body for body, _ in fenced(path, language)]


def command_lines(path: Path) -> list[list[str]]:
    """Every ``rewardgym ...`` command of the file's bash blocks, split like a shell would."""
    found = []
    for block in blocks(path, "bash"):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("#", 1)[0].strip()
            words = shlex.split(line) if line else []
            while words and "=" in words[0] and not words[0].startswith("-"):
                words = words[1:]  # VAR=value prefixes
            if words and words[0] == "rewardgym":
                found.append(words[1:])
    return found


@pytest.mark.parametrize("path", [p for p in DOCS if blocks(p, "python")], ids=lambda p: p.name)
def test_python_examples_run(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": f"docs_{path.stem}"}
    for body, reason in fenced(path, "python"):
        if reason is None:
            exec(compile(body, str(path), "exec"), namespace)


def test_skip_markers_are_few_and_explained() -> None:
    skipped = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        markers = len(MARKER.findall(text))
        reasons = [reason for _, reason in fenced(path, "python") if reason is not None]
        assert markers == len(reasons), (
            f"{path.name}: {markers} docs-test markers but {len(reasons)} sit on the line "
            "before a ```python fence; write <!-- docs-test: skip (reason) --> right above it"
        )
        for reason in reasons:
            assert reason.strip(), f"{path.name}: a docs-test skip marker gives no reason"
            skipped.append(f"{path.name}: {reason}")
    assert len(skipped) <= MAX_SKIPPED, f"too many skipped examples (most {MAX_SKIPPED}): {skipped}"


COMMANDS = [(p, words) for p in DOCS for words in command_lines(p)]


@pytest.mark.parametrize(
    ("path", "words"), COMMANDS, ids=[f"{p.name}:{' '.join(w[:2])}" for p, w in COMMANDS]
)
def test_documented_commands_parse(path: Path, words: list[str]) -> None:
    from rewardgym.cli import build

    command = build(words)
    assert callable(command.run), f"{path.name}: rewardgym {' '.join(words)}"


def test_docs_show_examples() -> None:
    assert sum(len(blocks(p, "python")) for p in DOCS) >= 10 and len(COMMANDS) >= 4
