"""``rewardgym eval shop``: a saved or served model scored on a split with the shop suite's row.

Issue 43, item 5: what ``eval household`` is for the embodied agents, for the Shop-R1 policy.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rewardgym.benchmarks.shop.evaluate import EVAL_TEMPERATURE, OUTPUT_KIND, EvalShop
from rewardgym.cli import build, main
from rewardgym.outputs import owner

TERMINATE = json.dumps({"rationale": "I am done.", "action": {"type": "terminate"}})
"""What the ``shop_server`` fixture's model answers (conftest.py)."""


@pytest.fixture
def terminate_server(shop_server: Callable[..., Any]) -> str:
    """A served model's base URL: it always answers the terminate JSON."""
    return shop_server().url


def test_options_default_to_train_sfts_prompt_and_the_test_split() -> None:
    from rewardgym.agents.llm.config import PromptConfig, SamplingConfig

    command = build(["eval", "shop", "--model", "openai:http://127.0.0.1:9/v1"])
    assert isinstance(command, EvalShop)
    assert command.split == "test" and command.prompt == PromptConfig()
    assert command.sampling == SamplingConfig(temperature=EVAL_TEMPERATURE)


def test_a_served_model_that_always_terminates_scores_the_terminate_steps_only(
    store: Path, terminate_server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "eval"
    served = ["--served.api-key-env", "", "--served.max-retries", "0"]
    main([*["eval", "shop", "--model", f"openai:{terminate_server}#m", "--data", str(store)],
          *served, "--sessions", "2", "--out", str(out)])  # fmt: skip
    record = json.loads((out / "eval.json").read_text())
    metrics, steps = record["metrics"], record["steps"]
    terminal = [s for s in steps if s["truth"]["type"] == "terminate"]
    assert record["split"] == "test" and record["sessions"] == 2
    assert len(steps) == metrics["n_steps"] and {s["session"] for s in steps} == {0, 1}
    assert all(s["output"] == TERMINATE for s in steps)
    assert all(s["exact"] == (s["truth"]["type"] == "terminate") for s in steps)
    assert all(s["scored"] for s in steps)  # the natural protocol scores every step
    assert metrics["parse_rate"] == 100.0 and metrics["exact_terminate"] == 100.0
    assert metrics["exact_match"] == pytest.approx(100.0 * len(terminal) / len(steps))
    assert metrics["exact_click"] == 0.0 and metrics["exact_terminate_ci"] == [100.0, 100.0]
    low, high = metrics["exact_match_ci"]
    assert low <= metrics["exact_match"] <= high
    assert owner(out) is not None and owner(out)["kind"] == OUTPUT_KIND  # type: ignore[index]
    assert "| 100.0 |" in (out / "eval.md").read_text()
    assert "test split" in capsys.readouterr().out
    # Shop-R1's protocol never scores a session's first step, and resamples the others.
    paper = tmp_path / "paper"
    main([*["eval", "shop", "--model", f"openai:{terminate_server}#m", "--data", str(store)],
          *served, "--sessions", "2", "--protocol", "paper", "--out", str(paper)])  # fmt: skip
    record = json.loads((paper / "eval.json").read_text())
    scored = [s for s in record["steps"] if s["scored"]]
    assert scored and not any(s["step"] == 0 for s in scored)
    assert record["metrics"]["n_steps"] == len(scored) < len(record["steps"])


def test_a_tiny_model_decoded_constrained_always_parses_and_rescores_the_same(
    store: Path, tiny_model: Path, tmp_path: Path
) -> None:
    from rewardgym.agents.evaluation.shopping import complete_and_score
    from rewardgym.agents.llm.dataset import split_sessions, step_rows

    out = tmp_path / "eval"
    argv = ["eval", "shop", "--model", str(tiny_model), "--data", str(store), "--split",
            "validation", "--validation-fraction", "0.3", "--sessions", "2", "--max-prompt-tokens",
            "224", "--decoding", "constrained", "--max-new-tokens", "48", "--out", str(out)]  # fmt: skip
    main(argv)
    record = json.loads((out / "eval.json").read_text())
    assert record["metrics"]["parse_rate"] == 100.0
    assert all(s["prediction"] is not None for s in record["steps"])
    # Same seed, same rows, same function: the suite's own scoring gives the same figures.
    command = build(argv)
    policy = command.policy()
    env_split, positions = split_sessions(store, "validation", validation_fraction=0.3)
    rows = step_rows(policy.prompts, data=store, split=env_split,
                     env_kwargs=policy.env_kwargs(), sessions=positions[:2], progress=False)  # fmt: skip
    result, texts = complete_and_score(policy, rows, "constrained")
    assert texts == [s["output"] for s in record["steps"]]
    assert record["metrics"]["exact_match"] == pytest.approx(result.metrics.exact_match)
    with pytest.raises(SystemExit) as again:  # an earlier eval is kept without --overwrite
        main(argv)
    assert again.value.code == 2
