"""The reward documentation's examples (``docs/rewards.md``) run as written."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "rewards.md"


def test_every_python_block_runs_in_order() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert len(blocks) >= 3
    namespace: dict[str, object] = {"__name__": "rewards_doc"}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    assert "TypeThenBrevityReward" in namespace
