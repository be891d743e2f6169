"""Issue 34 item 7: a 100,000-deep ``agent.json`` is a one-line ValueError, not a RecursionError."""

from __future__ import annotations

from pathlib import Path

import pytest

from rewardgym.agents.offline import OfflineAgent
from rewardgym.agents.offline.agent import META_FILE
from rewardgym.embeddings import hashing_embedder


def test_a_deeply_nested_agent_json_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / META_FILE).write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="nested too deeply") as caught:
        OfflineAgent.load(tmp_path, embedder=hashing_embedder())
    assert "\n" not in str(caught.value)
