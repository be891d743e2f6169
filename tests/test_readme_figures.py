"""Every figure the README's Benchmarks section quotes comes from a recorded page in docs/results/.

A figure is a measured number: one with a decimal point (``41.6``, ``22.9``), or a whole number
followed by a percent sign or a unit of time (``50 minutes``, ``85 s``). Inline code and code
blocks are commands, not figures. The pages are written by ``benchmarks/record_results.py``
from a run's ``--out`` folder, so a quoted figure traces back to a run with its command,
commit, machine and wall time.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
FIGURE = re.compile(
    r"(?<![\w.,/-])(\d+(?:,\d{3})*\.\d+|\d+(?:,\d{3})*(?=\s*(?:%|percent\b|minutes?\b|min\b"
    r"|seconds?\b|s\b|hours?\b|h\b)))(?![\w.-]\d)(?!\s*%\s*(?:confidence|intervals?|CI)\b)"
)
"""A measured number (a confidence level such as "95% intervals" is a setting, not a figure)."""
CODE = re.compile(r"```.*?```|`[^`\n]*`", flags=re.DOTALL)
LINK = re.compile(r"\]\((docs/results/[^)#]*)")


def benchmarks_section(readme: str) -> str:
    """The text of the README's ``## Benchmarks`` section, up to the next ``## `` heading."""
    start = readme.index("\n## Benchmarks\n")
    end = readme.find("\n## ", start + 1)
    return readme[start : end if end != -1 else len(readme)]


def quoted_figures(text: str) -> list[str]:
    """The measured numbers ``text`` quotes, outside code, in order."""
    return FIGURE.findall(CODE.sub(" ", text))


def pages() -> dict[str, str]:
    """Every recorded page of docs/results/ (the index README.md is not a page)."""
    return {
        p.name: p.read_text(encoding="utf-8")
        for p in sorted(RESULTS.glob("*.md"))
        if p.name != "README.md"
    }


def on_a_page(figure: str, recorded: dict[str, str]) -> bool:
    """Whether ``figure`` appears as a number of its own in some recorded page."""
    pattern = re.compile(rf"(?<![\d.]){re.escape(figure)}(?![\d])")
    return any(pattern.search(text) for text in recorded.values())


def test_figures_are_found_in_prose_but_not_in_commands() -> None:
    text = (
        "`bench shop --preset quick` took 22.9 minutes, so `make demo` takes about 50 minutes; "
        "the lookup reaches 41.6% (35 % with `--sessions 400`), 85 s on 2 cores, a 15-minute "
        "target, 95% intervals, 2026-12-01, 6 stores x 200 visits.\n```bash\nrewardgym simulate ab --visits 1.5\n```"
    )
    assert quoted_figures(text) == ["22.9", "50", "41.6", "35", "85"]
    recorded = {"shop-quick.md": "| frequency | 41.6 [38.0, 45.1] |\n| wall time | 22.9 min |"}
    assert on_a_page("41.6", recorded) and on_a_page("22.9", recorded)
    assert not on_a_page("1.6", recorded) and not on_a_page("50", recorded)


def test_every_benchmark_figure_the_readme_quotes_is_recorded() -> None:
    section = benchmarks_section((ROOT / "README.md").read_text(encoding="utf-8"))
    recorded = pages()
    missing = [f for f in quoted_figures(section) if not on_a_page(f, recorded)]
    assert not missing, (
        f"README.md's Benchmarks section quotes {missing}, found in no page of docs/results/ "
        f"({sorted(recorded) or 'none recorded'}): record the run with "
        "`python -m rewardgym.benchmarks.record_results OUT` and quote the page, or drop the figure"
    )


def test_the_readme_links_the_recorded_results_and_every_link_resolves() -> None:
    section = benchmarks_section((ROOT / "README.md").read_text(encoding="utf-8"))
    links = LINK.findall(section)
    assert any(link.startswith("docs/results/") for link in links), (
        "README.md's Benchmarks section does not link docs/results/"
    )
    for link in links:
        assert (ROOT / link).exists(), f"README.md links {link}, which does not exist"
    index = (RESULTS / "README.md").read_text(encoding="utf-8")
    for name in pages():
        assert f"]({name})" in index, f"docs/results/README.md does not list {name}"
