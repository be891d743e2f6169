"""``benchmarks/repro.py``: every results table digested, and two runs compared (issue 31)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from rewardgym.benchmarks.repro import Config, main, table_digests

TABLES = """# bench shop (quick)

## Protocol: natural

### Table 2: main results

| method | exact % |
|---|---|
| sft | 21.2 |

## Protocol: paper

### Table 2: main results

| method | exact % |
|---|---|
| sft | 23.0 |

```text
| not a table |
```

### Wall time (seconds)

| total |
|---|
| 575.0 |
"""


def test_each_table_has_its_own_digest_and_only_a_changed_table_changes() -> None:
    digests = table_digests(TABLES)
    assert list(digests) == [
        "Protocol: natural / Table 2: main results",
        "Protocol: paper / Table 2: main results",
        "Wall time (seconds)",
    ]
    moved = table_digests(TABLES.replace("| sft | 21.2 |", "| sft | 18.4 |"))
    assert (
        moved["Protocol: natural / Table 2: main results"]
        != digests["Protocol: natural / Table 2: main results"]
    )
    assert {k: v for k, v in moved.items() if "natural" not in k} == {
        k: v for k, v in digests.items() if "natural" not in k
    }
    assert table_digests(TABLES.replace("| not a table |", "| other |")) == digests


def test_a_run_and_its_page_name_their_tables_alike() -> None:
    page = "# Recorded results\n\n| fact | value |\n|---|---|\n\n## Tables\n\n" + "\n".join(
        "#" + line if line.startswith("#") else line for line in TABLES.splitlines()
    )
    digests = table_digests(page)
    assert {k: v for k, v in digests.items() if k != "Recorded results"} == table_digests(TABLES)


def test_two_runs_compared(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    for folder, wall in ((first, "575.0"), (second, "591.3")):
        folder.mkdir()
        (folder / "results.md").write_text(TABLES.replace("575.0", wall))
    rows = main(Config(first, second / "results.md"))
    assert [r["verdict"] for r in rows] == ["identical", "identical", "differs"]
    done = subprocess.run(
        [sys.executable, "-m", "rewardgym.benchmarks.repro", str(first), str(tmp_path / "none")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0 and "no results.md there" in done.stderr
