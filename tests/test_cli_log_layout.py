"""Off a terminal, the CLI keeps rich's tables and long lines whole but its heading rules short."""

from __future__ import annotations

import os

import pytest
from rich.console import Console

from rewardgym.cli import LOG_RULE_WIDTH, _plain_output


def test_a_log_gets_whole_lines_and_short_rules(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    wide_rule = Console.rule
    with _plain_output():  # captured stdout is not a terminal
        console = Console()
        console.rule("bench embodied (demo, quick): data")
        console.print("| " + " | ".join(f"column {k}" for k in range(20)) + " |")
        console.rule()
    lines = capsys.readouterr().out.splitlines()
    title, table, bare = lines
    assert "bench embodied (demo, quick): data" in title
    assert len(title) == len(bare) == LOG_RULE_WIDTH, (len(title), len(bare))
    assert len(table) > 200 and table.endswith("column 19 |")  # one line, not wrapped at 80
    assert Console.rule is wide_rule and "COLUMNS" not in os.environ


def test_a_terminal_width_the_user_set_is_kept(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    with _plain_output():
        Console().rule("data")
    (line,) = capsys.readouterr().out.splitlines()
    assert len(line) == 120
