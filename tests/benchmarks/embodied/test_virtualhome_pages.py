"""Issue 47 item 4: VirtualHome's pages point only at pages that exist and count the programs they play."""

from __future__ import annotations

import re
from pathlib import Path

from rewardgym.agents.evaluation.household import EvalConfig, episode_starts
from rewardgym.benchmarks.embodied.paired import _indicative
from rewardgym.benchmarks.embodied.virtualhome_presets import VIRTUALHOME_PRESETS
from rewardgym.envs import VIRTUALHOME_ID
from rewardgym.envs.virtualhome.programs import split_programs

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs"
PAGE = re.compile(r"docs/results/[A-Za-z0-9_.-]+\.md")
LINK = re.compile(r"\]\(([^)\s#]+)")


def _virtualhome_pages() -> list[Path]:
    pages = [ROOT / "README.md", DOCS / "embodied.md", *DOCS.glob("results/*virtualhome*.md")]
    assert len(pages) > 2
    return pages


def test_every_page_a_virtualhome_page_names_or_links_exists() -> None:
    for page in _virtualhome_pages():
        text = page.read_text(encoding="utf-8")
        for named in PAGE.findall(text):
            assert (ROOT / named).is_file(), f"{page.name} names {named}"
        for target in LINK.findall(text):
            if not re.match(r"[a-z]+:", target):
                assert (page.parent / target).exists(), f"{page.name} links {target}"


def test_an_indicative_page_names_the_full_page_only_once_it_is_recorded() -> None:
    quick = VIRTUALHOME_PRESETS["quick"]
    line = _indicative({"name": quick.name, "seeds": quick.seeds, "indicative": True})[0]
    full = DOCS / "results" / f"embodied-{VIRTUALHOME_PRESETS['full'].name}.md"
    assert (full.name in line) == full.is_file(), line
    assert "settles them" in line


def test_the_docs_count_the_test_programs_evaluation_plays() -> None:
    config = EvalConfig(env_id=VIRTUALHOME_ID, splits=("fine", "validation"))
    played = len(episode_starts(config, "fine"))
    validation = len(episode_starts(config, "validation"))
    text = " ".join(DOCS.joinpath("embodied.md").read_text(encoding="utf-8").split())
    tests, held = len(split_programs("test")), len(split_programs("validation"))
    assert f"of the {tests} test programs, the default N = 5 plays {played}" in text
    assert f"({2 * played} episodes)" in text
    assert f"validation plays {validation} of its {held}" in text


def test_the_quick_presets_values_are_those_its_recorded_tune_chose() -> None:
    """QUICK_TUNED holds each Tuned(...) line of the tune page, and the page ran its command."""
    import ast
    import dataclasses

    from rewardgym.benchmarks.embodied.virtualhome_presets import (
        QUICK_TUNED,
        VIRTUALHOME_CURVE_TUNE_QUICK,
    )

    page = (DOCS / "results" / "embodied-virtualhome-tune-quick.md").read_text(encoding="utf-8")
    assert f"`{VIRTUALHOME_CURVE_TUNE_QUICK} " in page
    chosen = []
    for line in re.findall(r"^Tuned\(.*\),$", page, flags=re.MULTILINE):
        call = ast.parse(line.rstrip(","), mode="eval").body
        assert isinstance(call, ast.Call)
        args = [ast.literal_eval(a) for a in call.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
        chosen.append((*args, kwargs))
    assert len(chosen) == 5
    preset = VIRTUALHOME_PRESETS["quick"]
    assert preset.tuned == QUICK_TUNED
    for algorithm, reward, values in chosen:
        tuned = next(t for t in QUICK_TUNED if (t.algorithm, t.reward) == (algorithm, reward))
        set_values = {k: v for k, v in dataclasses.asdict(tuned).items() if v is not None}
        assert set_values == {"algorithm": algorithm, "reward": reward, **values}
