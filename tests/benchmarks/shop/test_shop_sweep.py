"""``benchmarks/shop/sweep.py``: candidates trained and scored on validation only, at a toy size."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardgym.benchmarks.shop import sweep as shop_sweep
from rewardgym.benchmarks.shop.config import preset
from rewardgym.benchmarks.shop.data import SuiteData
from rewardgym.benchmarks.shop.sweep import Config, apply_changes, run_sweep

TOY = "sft.max_examples=16,default_model.tokenizer_sessions=8"


def _toy(out: Path, **changes: object) -> Config:
    values: dict = {
        "preset": "tiny",
        "candidates": (),
        "extra": (f"base:{TOY}", f"ids:{TOY},prompt.element_ids=true"),
        "validation_sessions": 2,
        "temperatures": (0.6,),
        "bootstrap_samples": 50,
        "out": out,
        **changes,
    }
    return Config(**values)


def test_two_candidates_train_and_score_on_validation_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    splits: list[str] = []
    targets: dict[bool, set[bool]] = {False: set(), True: set()}
    read = SuiteData.rows

    def rows(self: SuiteData, *args: object, **kwargs: object) -> list:
        splits.append(str(args[3]))
        found = read(self, *args, **kwargs)  # type: ignore[arg-type]
        by_id = {'"name": "[' in r.completion for r in found if r.truth.type != "terminate"}
        targets[args[2].element_ids] |= by_id  # type: ignore[attr-defined]
        return found

    monkeypatch.setattr(SuiteData, "rows", rows)
    results = run_sweep(_toy(tmp_path / "sweep"), progress=False)
    assert set(splits) == {"train", "validation"}  # the test split is never read
    assert targets == {False: {False}, True: {True}}  # the ids candidate trains on ids
    base, ids = results["rows"]
    assert (base["candidate"], ids["candidate"]) == ("base", "ids")
    assert ids["changes"]["prompt.element_ids"] is True
    (lookup,) = results["lookup"]
    assert lookup["candidate"].startswith("baseline/frequency")
    assert base["n"] == ids["n"] == lookup["n"] > 0  # the same validation steps
    for row in (base, ids, lookup):
        lo, hi = row["exact_match_ci"]
        assert lo <= row["exact_match"] <= hi
    assert base["examples"] == 16 and base["examples_per_s"] > 0 and base["train_s"] > 0
    written = json.loads((tmp_path / "sweep" / "sweep.json").read_text())
    assert written["rows"] == results["rows"]
    table = (tmp_path / "sweep" / "sweep.md").read_text()
    assert "| ids | 0 | 0.6 |" in table and "baseline/frequency" in table
    assert written["meta"]["suite"] == "shop" and written["meta"]["git_commit"]
    assert written["meta"]["smoke_test"] is True  # the tiny preset: a toy size
    from rewardgym.benchmarks.record_results import record

    page = record(tmp_path / "sweep", tmp_path / "docs", name="shop-sweep").read_text()
    assert "| ids | 0 | 0.6 |" in page and "wall time" in page

    # A rerun into its own output reuses the unchanged candidates instead of training again.
    monkeypatch.setattr("rewardgym.agents.llm.sft.train_sft", _no_training)
    again = run_sweep(_toy(tmp_path / "sweep", overwrite=True), progress=False)
    assert again["rows"] == results["rows"]
    with pytest.raises(FileExistsError):
        run_sweep(_toy(tmp_path / "sweep"), progress=False)


def test_seeds_are_paired_against_the_reference_and_the_lookup(tmp_path: Path) -> None:
    results = run_sweep(_toy(tmp_path / "sweep", seeds=(0, 1), reference="base"), progress=False)
    rows = {(r["candidate"], r["seed"]): r for r in results["rows"]}
    assert set(rows) == {("base", 0), ("base", 1), ("ids", 0), ("ids", 1)}
    (lookup,) = results["lookup"]
    for row in [*rows.values(), lookup]:
        assert len(row["hits"]) == row["n"] == lookup["n"]  # the same validation steps
        assert 100 * sum(h for *_, h in row["hits"]) / row["n"] == pytest.approx(row["exact_match"])
        assert sum(row[f"truth_share_{t}"] for t in shop_sweep.TYPES) == pytest.approx(100.0)
    pairs = {(p["candidate"], p["minus"]): p for p in results["pairs"]}
    assert set(pairs) == {("base", "lookup"), ("ids", "base"), ("ids", "lookup")}
    ids = pairs[("ids", "base")]
    assert ids["seeds"] == [0, 1] and ids["steps"] == 2 * lookup["n"]
    for k in (0, 1):  # seed k against seed k
        gain = rows[("ids", k)]["exact_match"] - rows[("base", k)]["exact_match"]
        assert ids["per_seed"][k] == pytest.approx(gain)
    assert ids["diff"] == pytest.approx(sum(ids["per_seed"].values()) / 2)
    lo, hi = ids["ci"]
    assert lo <= ids["diff"] <= hi
    winner = results["winner"]
    assert (winner is not None) == (lo > 0)
    assert "Paired exact-match differences" in (tmp_path / "sweep" / "sweep.md").read_text()
    with pytest.raises(ValueError, match="--reference nope: not among the chosen candidates"):
        run_sweep(_toy(tmp_path / "bad", reference="nope"), progress=False)
    assert not (tmp_path / "bad").exists()


def _no_training(*args: object, **kwargs: object) -> None:
    raise AssertionError("an unchanged candidate was trained again")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("x:sft.learning_rat=1", "no field 'sft.learning_rat'"),
        ("x:sft.max_examples=lots", "is a str"),
        ("x:validation_fraction=0.5", "cannot change in a sweep"),
        ("no-colon", "NAME:FIELD=VALUE"),
    ],
)
def test_a_bad_candidate_is_refused_before_any_work(
    tmp_path: Path, extra: str, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        run_sweep(_toy(tmp_path / "out", extra=(extra,)), progress=False)
    with pytest.raises(ValueError, match="no such candidate"):
        run_sweep(_toy(tmp_path / "out", candidates=("wide",)), progress=False)
    assert not (tmp_path / "out").exists()


def test_every_built_in_candidate_applies_to_the_quick_preset() -> None:
    quick = preset("quick")
    for name, changes in shop_sweep.CANDIDATES.items():
        config = apply_changes(quick, name, changes)
        assert (config == quick) == (not changes), name
    assert apply_changes(quick, "lr", {"sft.learning_rate": 1}).sft.learning_rate == 1.0


def test_all_names_every_built_in_candidate_once(tmp_path: Path) -> None:
    sweep = shop_sweep.Sweep(_toy(tmp_path, candidates=("baseline", "all")), tmp_path, None, False)
    names = [name for name, *_ in sweep.candidates()]
    assert names == [*shop_sweep.CANDIDATES, "base", "ids"]


def test_two_workers_score_the_candidates_exactly_as_one_process(tmp_path: Path) -> None:
    alone = run_sweep(_toy(tmp_path / "one"), progress=False)
    both = run_sweep(_toy(tmp_path / "two", workers=2), progress=False)
    keys = ("candidate", "temperature", "n", "exact_match", "type_accuracy", "examples")
    assert [tuple(r[k] for k in keys) for r in both["rows"]] == [
        tuple(r[k] for k in keys) for r in alone["rows"]
    ]
    assert both["lookup"] == alone["lookup"]


def test_null_unsets_an_optional_field_only() -> None:
    quick = preset("quick")
    name, changes = shop_sweep.parse_extra("all:sft.max_examples=null")
    assert apply_changes(quick, name, changes).sft.max_examples is None  # every training row
    with pytest.raises(ValueError, match="max_prompt_tokens"):
        apply_changes(quick, "bad", {"prompt.max_prompt_tokens": None})
