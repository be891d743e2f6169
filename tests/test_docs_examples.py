"""The README's and the docs' examples run as written, each on its own, and every command line parses.

A reader copies one block, not a page: every ``python`` block runs alone in a fresh
interpreter (``sys.executable``), in its own scratch working directory (so relative paths stay
out of the repository), with the session's private ``REWARDGYM_HOME`` (the default shopping
data is built once per test session and reused) and ``HF_HUB_OFFLINE=1``, under a time limit.
A block that cannot run on a CPU test machine (a GPU training run, a download) carries the
marker ``<!-- docs-test: skip (reason) -->`` on the line before its fence; at most
``MAX_SKIPPED`` blocks in all the docs may. Every ``rewardgym ...`` line of a ``bash`` block is
parsed by the real CLI into its config (not run: some are the full suites).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
MAX_SKIPPED = 2
"""Blocks that may be marked ``docs-test: skip``: every other example must run."""
BLOCK_SECONDS = 120
"""Wall-clock limit of one block's interpreter (the slowest trains two tiny agents)."""

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
            line = re.split(r"(?:^|\s)#", line, maxsplit=1)[0].strip()  # a URL's #model stays
            words = shlex.split(line) if line else []
            while words and "=" in words[0] and not words[0].startswith("-"):
                words = words[1:]  # VAR=value prefixes
            if words and words[0] == "rewardgym":
                found.append(words[1:])
    return found


def _line_of(path: Path, body: str) -> int:
    """The 1-based line of ``path`` where ``body`` starts (for failure messages)."""
    text = path.read_text(encoding="utf-8")
    return text[: text.index(body)].count("\n") + 1


PYTHON_BLOCKS = [
    (path, k, body, reason)
    for path in DOCS
    for k, (body, reason) in enumerate(fenced(path, "python"), start=1)
]


@pytest.mark.parametrize(
    ("path", "number", "body", "reason"),
    PYTHON_BLOCKS,
    ids=[f"{p.name}:block{k}" for p, k, _, _ in PYTHON_BLOCKS],
)
def test_python_block_runs_alone(
    path: Path, number: int, body: str, reason: str | None, tmp_path: Path
) -> None:
    if reason is not None:
        pytest.skip(f"{path.name} block {number}: {reason}")
    home = os.environ.get("REWARDGYM_HOME")
    assert home, "tests/conftest.py sets a private REWARDGYM_HOME for the session"
    env = {**os.environ, "REWARDGYM_HOME": home, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    env["MPLBACKEND"] = "Agg"
    where = f"{path.name} python block {number} (line {_line_of(path, body)})"
    try:
        result = subprocess.run(
            [sys.executable, "-c", body],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=BLOCK_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{where} ran past {BLOCK_SECONDS} s alone in a fresh interpreter")
    assert result.returncode == 0, (
        f"{where} fails when run alone in a fresh interpreter (a reader copies one block: "
        f"give it its own imports and definitions):\n{result.stderr[-3000:]}"
    )


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
