"""Every figure the README's Benchmarks section or a docs page reports from a run is on a recorded page.

A figure is a measured number: one with a decimal point (``41.6``, ``22.9``), or a whole number
followed by a percent sign or a unit of time (``50 minutes``, ``85 s``). Inline code and code
blocks are commands, not figures. The pages are written by ``benchmarks/record_results.py``
from a run's ``--out`` folder, so a quoted figure traces back to a run with its command,
commit, machine and wall time.

In ``docs/*.md`` the same kind of figure is checked where a sentence reports a run (it names a
measurement, a timing, a preset, a suite or a result metric next to a number; a table, when its
header names a metric): each must be on a results page that the docs page links. Settings and
facts of the data (a noise level, a reward weight, the corpus's action mix) are not runs.

Only current pages count: a page kept as superseded (``record_results --supersede``; its
``facts.json`` names the page that replaced it) backs no figure, and the README's Benchmarks
section never links one. A docs page may keep a history note: a sentence that says
"superseded" may link a superseded page and quote its figures; any other link from the docs
to a superseded page fails. Each check takes the results folder, so a synthetic one tests it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rewardgym.benchmarks.record_results import page_facts, supersede_page

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
FIGURE = re.compile(
    r"(?<![\w.,/-])(\d+(?:,\d{3})*\.\d+|\d+(?:,\d{3})*(?=\s*(?:%|percent\b|minutes?\b|min\b"
    r"|seconds?\b|s\b|hours?\b|h\b)))(?![\w.-]\d)(?!\s*%\s*(?:confidence|intervals?|CI)\b)"
)
"""A measured number (a confidence level such as "95% intervals" is a setting, not a figure)."""
CODE = re.compile(r"```.*?```|`[^`\n]*`", flags=re.DOTALL)
LINK = re.compile(r"\]\((docs/results/[^)#]*)")
HISTORY = re.compile(r"\bsuperseded\b", flags=re.IGNORECASE)
"""The word by which a docs sentence says it quotes a superseded page on purpose."""


def benchmarks_section(readme: str) -> str:
    """The text of the README's ``## Benchmarks`` section, up to the next ``## `` heading."""
    start = readme.index("\n## Benchmarks\n")
    end = readme.find("\n## ", start + 1)
    return readme[start : end if end != -1 else len(readme)]


def quoted_figures(text: str) -> list[str]:
    """The measured numbers ``text`` quotes, outside code, in order."""
    return FIGURE.findall(CODE.sub(" ", text))


def pages(results: Path = RESULTS) -> tuple[dict[str, str], dict[str, str]]:
    """The current and the superseded pages of ``results`` (file name -> text); README.md is none."""
    old = {page for page, facts in page_facts(results).items() if "superseded_by" in facts}
    current: dict[str, str] = {}
    superseded: dict[str, str] = {}
    for path in sorted(results.glob("*.md")):
        if path.name != "README.md":
            (superseded if path.name in old else current)[path.name] = path.read_text("utf-8")
    return current, superseded


def readme_problems(readme: str, results: Path = RESULTS) -> list[str]:
    """What the README's Benchmarks section quotes or links that no current page backs."""
    section = benchmarks_section(readme)
    current, superseded = pages(results)
    problems = [
        f"quotes {figure}, found on no current page"
        for figure in quoted_figures(section)
        if not on_a_page(figure, current)
    ]
    for link in LINK.findall(section):
        name = link.removeprefix("docs/results/").split("/")[0].removesuffix(".md") + ".md"
        if name in superseded:
            problems.append(f"links {link}, a superseded page: quote its successor")
    return problems


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


def test_every_benchmark_figure_the_readme_quotes_is_on_a_current_page() -> None:
    problems = readme_problems((ROOT / "README.md").read_text(encoding="utf-8"))
    assert not problems, (
        f"README.md's Benchmarks section {problems} (pages: docs/results/README.md): record the "
        "run with `python -m rewardgym.benchmarks.record_results OUT` and quote the page, or "
        "drop the figure"
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
    for name in [name for group in pages() for name in group]:
        assert f"]({name})" in index, f"docs/results/README.md does not list {name}"


DOCS = sorted((ROOT / "docs").glob("*.md"))
"""The prose of docs/ (the pages of docs/results/ are the records themselves)."""
METRIC = r"(?:SR|CGC|exact(?: match)?|type accuracy|accuracy|F1|AUC|success|examples/s|visits/s)"
CITES_A_RUN = re.compile(
    r"\b(?:measured|took|takes|wall|ran|printed by|recorded|preset|bench (?:shop|embodied|fidelity)"
    r"|(?:one|two|\d+) (?:CPU )?cores?|per CPU second|faster|slower|speed-?up|throughput)\b"
    r"|\b(?:gave|gets|got|reache[sd]|scored?|scores)\s+(?:about\s+|only\s+|\*\*)?[+\d]"
    rf"|\d(?:\*\*)?\s*%?(?:\*\*)?\s+{METRIC}\b|\b{METRIC}\s*(?:of|at|=|:)?\s*\**\d",
    flags=re.IGNORECASE,
)
"""Words by which a docs sentence reports a run (a measurement, a timing, a suite's result)."""
METRIC_HEADER = re.compile(
    r"\b(?:SR|CGC|exact|acc(?:uracy)?|F1|AUC|seconds|wall|min|examples/s|visits/s)\b",
    flags=re.IGNORECASE,
)
"""Column names by which a docs table reports a run's results."""
DOC_LINK = re.compile(r"\]\(results/([^)#]+\.md)")
"""A docs page's link to a recorded page (docs/results/NAME.md, relative to docs/)."""
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z*`(\"])")
NEW_ITEM = re.compile(r"^(?:[-*] |\d+\. |#+ )")


def sentences(markdown: str) -> list[tuple[str, bool]]:
    """The sentences and table rows of ``markdown`` outside code blocks, each with whether it reports a run.

    A sentence reports a run when it names one (:data:`CITES_A_RUN`); a table row, when its
    table's header names a result metric (:data:`METRIC_HEADER`).
    """
    text = re.sub(r"```.*?```|<!--.*?-->|\barXiv:? ?\d{4}\.\d{4,5}", " ", markdown, flags=re.DOTALL)
    found: list[tuple[str, bool]] = []
    paragraph: list[str] = []
    header: str | None = None

    def close() -> None:
        joined = " ".join(paragraph)
        found.extend((s, bool(CITES_A_RUN.search(s))) for s in SENTENCE_END.split(joined) if s)
        paragraph.clear()

    for line in [*text.splitlines(), ""]:
        line = line.strip()
        if line.startswith("|"):
            close()
            if header is None:
                header = line
                found.append((line, False))
            else:
                run = METRIC_HEADER.search(header) or CITES_A_RUN.search(f"{header} {line}")
                found.append((line, bool(run)))
            continue
        header = None
        if not line or NEW_ITEM.match(line):
            close()
        if line:
            paragraph.append(line)
    return found


def run_sentences(markdown: str) -> list[str]:
    """The sentences and table rows of ``markdown`` (outside code blocks) that report a run."""
    return [sentence for sentence, reports_run in sentences(markdown) if reports_run]


def unrecorded_figures(
    markdown: str, recorded: dict[str, str], superseded: dict[str, str] | None = None
) -> list[tuple[str, str]]:
    """``(figure, sentence)`` for each figure a run-reporting sentence quotes that no page holds.

    ``recorded`` is the current pages a figure may come from: for a docs page, the results pages
    it links. A sentence that says "superseded" (a history note) may also take it from
    ``superseded``.
    """
    history = {**recorded, **(superseded or {})}
    return [
        (figure, sentence)
        for sentence in run_sentences(markdown)
        for figure in quoted_figures(sentence)
        if not on_a_page(figure, history if HISTORY.search(sentence) else recorded)
    ]


def doc_problems(markdown: str, results: Path = RESULTS) -> list[str]:
    """What a docs page reports that no current page it links backs, sentence by sentence.

    A figure of a run must be on a current page the docs page links (or, in a sentence that
    says "superseded", on a superseded one it links); a link to a superseded page outside such
    a sentence is a problem too.
    """
    current, superseded = pages(results)
    links = DOC_LINK.findall(markdown)
    linked = {name: page for name, page in current.items() if name in links}
    old = {name: page for name, page in superseded.items() if name in links}
    missing: dict[str, list[str]] = {}
    for figure, sentence in unrecorded_figures(markdown, linked, old):
        missing.setdefault(sentence, []).append(figure)
    problems = [f"{figures} in {sentence[:100]!r}" for sentence, figures in missing.items()]
    problems += [
        f"a link to the superseded page results/{name} in {sentence[:100]!r}"
        for sentence, _ in sentences(markdown)
        if not HISTORY.search(sentence)
        for name in DOC_LINK.findall(sentence)
        if name in superseded
    ]
    return problems


def test_run_sentences_are_told_from_settings() -> None:
    recorded = {"shop-demo.md": "| sft | 9.3 [6.8, 11.9] |\n| wall time | 1.5 min (93 s) |"}
    doc = (
        "The reward pays 0.3 for the type and 0.5 for the format; noise 0.15.\n\n"
        "- `bench shop --preset demo` reached 9.3% exact match in 1.5 min.\n"
        "- Measured on one core: 19.05 examples/s, 2.95x the old trainer.\n\n"
        "| row | SR |\n|---|---|\n| `cql/sparse` | 5.3 [2.0, 9.3] |\n\n"
        "| knob | value |\n|---|---|\n| `noise` | 0.15 |\n"
    )
    assert unrecorded_figures(doc, recorded) == [
        ("19.05", "- Measured on one core: 19.05 examples/s, 2.95x the old trainer."),
        ("2.95", "- Measured on one core: 19.05 examples/s, 2.95x the old trainer."),
        ("5.3", "| `cql/sparse` | 5.3 [2.0, 9.3] |"),
        ("2.0", "| `cql/sparse` | 5.3 [2.0, 9.3] |"),
    ]


@pytest.mark.parametrize("doc", DOCS, ids=[p.name for p in DOCS])
def test_every_figure_a_doc_reports_from_a_run_is_recorded(doc: Path) -> None:
    problems = doc_problems(doc.read_text(encoding="utf-8"))
    assert not problems, (
        f"docs/{doc.name} reports figures of a run that no current page of docs/results/ it "
        f"links holds: {'; '.join(problems)}. Record the run "
        "(`python -m rewardgym.benchmarks.record_results OUT`) and link its page beside the "
        'figure, say it without the number, or call the old page "superseded" in the sentence'
    )


def test_every_results_link_of_the_docs_resolves() -> None:
    for doc in DOCS:
        for name in DOC_LINK.findall(doc.read_text(encoding="utf-8")):
            assert (RESULTS / name).is_file(), (
                f"docs/{doc.name} links results/{name}, which does not exist"
            )


def test_a_figure_only_a_superseded_page_holds_is_refused(tmp_path: Path) -> None:
    results = tmp_path / "results"
    (results / "shop-quick").mkdir(parents=True)
    (results / "shop-quick.md").write_text("| sft | 41.6 |\n")  # a hand-written page
    (results / "shop-quick" / "facts.json").write_text(json.dumps({"commit": "`138913d`"}))
    supersede_page(results, "shop-quick", "tokenizer fix")
    (results / "shop-quick.md").write_text("| sft | 44.3 |\n")  # its successor, written by hand
    readme = "# x\n\n## Benchmarks\n\nSFT reaches {} exact match ([page](docs/results/{})).\n"

    assert readme_problems(readme.format("44.3", "shop-quick.md"), results) == []
    assert readme_problems(readme.format("41.6", "shop-quick.md"), results) == [
        "quotes 41.6, found on no current page"
    ]
    assert readme_problems(readme.format("44.3", "shop-quick-138913d.md"), results) == [
        "links docs/results/shop-quick-138913d.md, a superseded page: quote its successor"
    ]

    doc = "Measured: SFT reached {} exact match ([run](results/{})).\n"
    assert doc_problems(doc.format("44.3", "shop-quick.md"), results) == []
    assert doc_problems(doc.format("41.6", "shop-quick.md"), results) == [
        "['41.6'] in 'Measured: SFT reached 41.6 exact match ([run](results/shop-quick.md)).'"
    ]
    old = doc.format("41.6", "shop-quick-138913d.md")
    assert doc_problems(old, results) == [
        f"['41.6'] in {old.strip()!r}",
        f"a link to the superseded page results/shop-quick-138913d.md in {old.strip()!r}",
    ]
    assert (
        doc_problems(old.replace("Measured:", "Measured before it was superseded:"), results) == []
    )
