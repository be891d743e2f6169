"""Every selector that matches nothing is refused when the config is built (issue 24, item 5).

A selector (``--only``, ``--rows``, ``--policy``, store variants, baselines, shop rows, judge
names) of ``bench shop``, ``bench embodied``, ``bench fidelity``, ``simulate ab`` and ``label
coren`` that names nothing stops the command with a non-zero exit and one message naming the
option, the bad value and the valid choices, before any work (each command's first piece of
work is replaced by a tripwire, so a selector that slips through fails at once instead of
running the suite); the Python configs raise a ``ValueError`` saying the same.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rewardgym.cli import main
from rewardgym.wrappers.judges.factory import check_judge_spec

BAD_INVOCATIONS = {
    "shop only": (
        ["bench", "shop", "--preset", "tiny", "--only", "zero-shot", "bogus"],
        ["--only", "bogus", "zero-shot", "shop-r1/no-dars"],
    ),
    "shop only without the row it starts from": (
        ["bench", "shop", "--preset", "tiny", "--only", "shop-r1/temp-1"],
        ["--only", "shop-r1/temp-1", "shop-r1"],
    ),
    "embodied rows": (
        ["bench", "embodied", "--rows", "cql/bogus"],
        ["--rows", "bogus", "coren"],
    ),
    "embodied judge": (
        ["bench", "embodied", "--judge", "bogus"],
        ["--judge", "bogus", "embedding", "openai:URL"],
    ),
    "embodied quality judges": (
        ["bench", "embodied", "--quality-judges", "embedding", "hf:/nonexistent/model"],
        ["--quality-judges", "/nonexistent/model", "smollm2-135m"],
    ),
    "fidelity baselines": (
        ["bench", "fidelity", "--preset", "tiny", "--baselines", "bogus"],
        ["--baselines", "bogus", "frequency"],
    ),
    "fidelity shop rows": (
        ["bench", "fidelity", "--preset", "tiny", "--shop-rows", "sft", "bogus"],
        ["--shop-rows", "bogus", "shop-r1"],
    ),
    "fidelity shop run": (
        ["bench", "fidelity", "--preset", "tiny", "--shop-run", "DATA"],
        ["--shop-run", "DATA", "bench shop"],
    ),
    "simulate ab policy": (
        ["simulate", "ab", "--out", "OUT", "--policy", "bogus"],
        ["--policy", "bogus", "shopper:K", "always-terminate"],
    ),
    "simulate ab shopper seed": (
        ["simulate", "ab", "--out", "OUT", "--policy", "shopper:x"],
        ["--policy", "shopper:x", "shopper:K"],
    ),
    "label coren judge": (
        ["label", "coren", "--dataset", "DATA", "--out", "OUT", "--judge", "embeding"],
        ["--judge", "embeding", "embedding:hashing"],
    ),
    "label coren openai url": (
        ["label", "coren", "--dataset", "DATA", "--out", "OUT", "--judge", "openai:notaurl"],
        ["--judge", "notaurl", "http"],
    ),
    "label coren hf folder": (
        ["label", "coren", "--dataset", "DATA", "--out", "OUT", "--judge", "hf:EMPTY"],
        ["--judge", "EMPTY", "config.json"],
    ),
}


FIRST_WORK = {
    "bench shop": "rewardgym.benchmarks.shop.suite.Suite",
    "bench embodied": "rewardgym.benchmarks.embodied.suite.prepare_data",
    "bench fidelity": "rewardgym.benchmarks.fidelity.suite.Suite.ground_truth",
    "simulate ab": "rewardgym.agents.simulation.experiment.run_ab",
    "label coren": "rewardgym.wrappers.coren.labelling.resolve_judge",
}
"""The first piece of work of each command, replaced by a tripwire in these tests."""


def _tripwire(*args: object, **kwargs: object) -> None:
    raise AssertionError("the command started its work with a selector that names nothing")


@pytest.mark.parametrize("case", BAD_INVOCATIONS)
def test_a_selector_that_names_nothing_stops_the_command(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args, words = BAD_INVOCATIONS[case]
    monkeypatch.setattr(FIRST_WORK[" ".join(args[:2])], _tripwire)
    empty = tmp_path / "empty"
    empty.mkdir()
    names = {"OUT": str(tmp_path / "out"), "DATA": str(tmp_path / "data"), "EMPTY": str(empty)}
    with pytest.raises(SystemExit) as stop:
        main([names.get(a, a.replace("EMPTY", str(empty))) for a in args])
    assert stop.value.code not in (0, None)
    message = f"{stop.value}\n{capsys.readouterr().err}"
    assert "Traceback" not in message
    for word in words:
        assert names.get(word, word.replace("EMPTY", str(empty))) in message, (word, message)
    assert list(tmp_path.iterdir()) == [empty]  # nothing was written


def test_python_configs_refuse_unknown_names() -> None:
    from rewardgym.agents.simulation.commands import SimulateAB
    from rewardgym.benchmarks.embodied.config import EmbodiedBenchConfig
    from rewardgym.benchmarks.fidelity.config import FidelityBenchConfig
    from rewardgym.benchmarks.shop.config import preset
    from rewardgym.benchmarks.shop.suite import check_only

    with pytest.raises(ValueError, match=r"variants.*'bogus'.*price-up-20"):
        FidelityBenchConfig(variants=("bogus",))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="twice"):
        FidelityBenchConfig(variants=("price-up-20", "price-up-20"))
    with pytest.raises(ValueError, match=r"--store-b 'bogus'.*half-results"):
        SimulateAB(out=Path("out"), store_b="bogus")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="--only names no row"):
        check_only(preset("tiny"), [])
    with pytest.raises(ValueError, match=r"quality_judges.*'hf:'"):
        EmbodiedBenchConfig(quality_judges=("hf:",))
    no_baselines = preset("tiny").replace(baselines=False)
    with pytest.raises(ValueError, match="baseline/frequency"):
        check_only(no_baselines, ["baseline/frequency"])  # the preset scores no baselines
    check_only(preset("tiny"), ["zero-shot", "shop-r1", "shop-r1/temp-1"])


def test_every_documented_judge_form_is_accepted(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    for spec in (
        "embedding",
        "embedding:hashing",
        "embedding:minilm",
        "hf:smollm2-135m",
        f"hf:{tmp_path}",
        "openai:http://127.0.0.1:9/v1",
        "openai:https://api.example.com/v1",
    ):
        check_judge_spec(spec)
    for spec in ("", "hf:", "openai:", "openai:ftp://host/v1", "openai:http://[::1", "nope:x"):
        with pytest.raises(ValueError, match="--judge"):
            check_judge_spec(spec)
