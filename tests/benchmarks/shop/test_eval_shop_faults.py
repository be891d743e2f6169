"""``rewardgym eval shop`` under a hostile user and a failing server (issue 49, items 1, 2, 9, 10, 11, 16).

The served model is conftest.py's ``shop_server`` on 127.0.0.1; the local one is the tiny
default model, scored on one session with short completions.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rewardgym.agents.llm.commands import CONFIG_FILE, SFT_KIND
from rewardgym.agents.llm.config import PromptConfig
from rewardgym.agents.llm.prompt import LOOKUP_LINE
from rewardgym.benchmarks.shop.evaluate import EVAL_TEMPERATURE, EvalShop
from rewardgym.cli import build, main
from rewardgym.outputs import mark_output

QUIET = ["--served.api-key-env", "", "--served.max-retries", "0", "--served.backoff-s", "0.01"]
"""A served model without a key, whose failed requests are not retried."""

LOCAL = ["--sessions", "1", "--max-new-tokens", "8", "--temperature", "0", "--samples", "50"]
"""The cheapest scoring of a local model: one session, short greedy completions."""


def _eval(model: str, store: Path, *options: str) -> None:
    main(["eval", "shop", "--model", model, "--data", str(store), *options])


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[Any, str]:
    """The ``SystemExit`` code of a ``rewardgym`` run that stops, and what it printed to stderr."""
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:
        main(argv)
    return stop.value.code, capsys.readouterr().err


def _half(number: int, prompt: str) -> bool:
    """Fail about half the prompts, always the same ones (by the prompt's checksum)."""
    return zlib.crc32(prompt.encode()) % 2 == 1


def test_a_password_in_the_model_url_reaches_no_output(
    shop_server: Callable[..., Any],
    store: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Item 1: the password was printed and written to eval.md and eval.json."""
    server = shop_server()
    out = tmp_path / "eval"
    _eval(server.spec(password=True), store, *QUIET, "--sessions", "2", "--out", str(out))
    shown = capsys.readouterr()
    written = (out / "eval.json").read_text() + (out / "eval.md").read_text()
    assert server.secret not in shown.out + shown.err + written
    assert "alice" not in written and "***@127.0.0.1" in written
    assert json.loads((out / "eval.json").read_text())["model"].startswith("openai:http://***@")


def test_unanswered_requests_are_counted_apart_not_scored_as_wrong(
    shop_server: Callable[..., Any],
    store: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Item 2: a server failing half the prompts read as exact match 6.0 instead of 11.1."""
    server = shop_server(fail=_half)
    out = tmp_path / "eval"
    _eval(server.spec(), store, *QUIET, "--sessions", "4", "--out", str(out))
    record = json.loads((out / "eval.json").read_text())
    steps, missing = record["steps"], record["served"]["unanswered_steps"]
    assert steps and missing and record["served"]["unanswered_requests"] == len(missing)
    assert record["served"]["requests"] == len(steps) + len(missing)
    assert not {(s["session"], s["step"]) for s in steps} & {
        (m["session"], m["step"]) for m in missing
    }
    assert record["metrics"]["n_steps"] == len(steps)  # only the answered steps are scored
    assert all(s["output"] == server.answer for s in steps)
    terminal = sum(s["truth"]["type"] == "terminate" for s in steps)
    assert record["metrics"]["exact_match"] == pytest.approx(100.0 * terminal / len(steps))
    note = f"The server left {len(missing)} of {len(steps) + len(missing)} steps unanswered"
    assert note in capsys.readouterr().out and note in (out / "eval.md").read_text()


def test_a_server_that_stops_answering_stops_the_run_with_a_non_zero_exit(
    shop_server: Callable[..., Any], store: Path, tmp_path: Path
) -> None:
    """Item 2: the run waited out every request and exited 0 (simulate ab's policy now)."""
    server = shop_server(fail=lambda number, prompt: number > 3)  # the preflight and 2 answers
    out = tmp_path / "eval"
    start = time.monotonic()
    with pytest.raises(SystemExit) as stop:
        _eval(
            server.spec(password=True), store, *QUIET, "--sessions", "10", "--out", str(out),
            "--served.max-consecutive-failures", "3", "--served.concurrency", "1",
        )  # fmt: skip
    assert time.monotonic() - start < 30
    message = str(stop.value.code)
    assert stop.value.code not in (0, None) and "3 requests in a row" in message
    assert server.secret not in message and not (out / "eval.json").exists()


def test_out_is_held_while_the_run_works(
    shop_server: Callable[..., Any],
    store: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Item 9: two runs on one --out raced and the later overwrote the earlier silently."""
    gate = threading.Event()
    server = shop_server(gate=gate)
    out = tmp_path / "eval"
    argv = ["eval", "shop", "--model", server.spec(), "--data", str(store), *QUIET]
    argv += ["--sessions", "1", "--out", str(out)]
    first = subprocess.Popen(
        [sys.executable, "-m", "rewardgym.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    try:
        deadline = time.monotonic() + 60
        while server.requests == 0 and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)  # the first run has claimed --out once it asks the server
        assert server.requests >= 1, first.communicate(timeout=5)
        code, said = _refused(argv, capsys)
        assert code == 2 and "being written by another rewardgym run" in said, said
    finally:
        gate.set()
        _, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    assert json.loads((out / "eval.json").read_text())["sessions"] == 1


def test_an_answer_cache_inside_out_is_kept_and_resumed(
    shop_server: Callable[..., Any],
    store: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Item 9: --served.cache O/cache.sqlite --out O did the work, then refused its own folder."""
    server = shop_server()
    out = tmp_path / "eval"
    argv = ["eval", "shop", "--model", server.spec(), "--data", str(store), *QUIET]
    argv += ["--sessions", "2", "--out", str(out), "--served.cache", str(out / "cache.sqlite")]
    main(argv)
    first = json.loads((out / "eval.json").read_text())
    asked = server.requests
    assert (out / "cache.sqlite").is_file() and asked == len(first["steps"]) + 1  # + preflight
    main([*argv, "--overwrite"])  # every answer comes from the cache: only the preflight is sent
    assert server.requests == asked + 1
    assert json.loads((out / "eval.json").read_text())["metrics"] == first["metrics"]
    code, said = _refused([*argv[:-1], str(out), "--overwrite"], capsys)  # the cache is OUT
    assert code == 2 and "is --out itself" in said


def _run_folder(tiny_model: Path, where: Path, prompt: PromptConfig) -> Path:
    """A ``train sft`` run folder as that command leaves it: model/, config.json, its marker."""
    run = where / "sft"
    shutil.copytree(tiny_model, run / "model")
    options = {"prompt": dataclasses.asdict(prompt), "sessions": {"train_sessions": 6}}
    record = {"options": options, "start_model": str(tiny_model), "model_kind": "scratch"}
    (run / CONFIG_FILE).write_text(json.dumps(record))
    mark_output(run, SFT_KIND)
    return run


def test_a_run_folder_is_scored_as_its_model_with_the_recorded_prompt(
    tiny_model: Path, store: Path, tmp_path: Path
) -> None:
    """Item 11: a run folder gave a tokenizer traceback, and the recorded prompt was ignored."""
    recorded = PromptConfig(max_prompt_tokens=224, element_ids=True, action_first=True)
    run = _run_folder(tiny_model, tmp_path, recorded)
    out = tmp_path / "eval"
    _eval(str(run), store, *LOCAL, "--out", str(out))
    record = json.loads((out / "eval.json").read_text())
    assert record["prompt"] == dataclasses.asdict(recorded) and record["steps"]
    command = build(["eval", "shop", "--model", str(run)])
    assert command.model_folder() == run / "model"
    assert command.prompt_config(run / "model") == recorded
    given = build(["eval", "shop", "--model", str(run), "--max-prompt-tokens", "300"])
    assert given.prompt_config(run / "model") == dataclasses.replace(
        recorded, max_prompt_tokens=300
    )
    ignored = build(["eval", "shop", "--model", str(run), "--no-recorded-prompt"])
    assert ignored.prompt_config(run / "model") == PromptConfig()


def test_a_run_folder_without_its_model_is_refused_in_one_line(
    tiny_model: Path, store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 11: a run that stopped before saving its model gave a traceback."""
    run = _run_folder(tiny_model, tmp_path, PromptConfig())
    shutil.rmtree(run / "model")
    code, said = _refused(["eval", "shop", "--model", str(run), "--data", str(store)], capsys)
    assert (
        code == 2 and len(said.strip().splitlines()) == 1 and "without its trained model/" in said
    )


def test_samples_are_bounded_and_the_temperature_is_the_suites(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Item 11: --samples 1000000000 ran out of memory after generating; the default
    temperature (0.6) was not the suites' 0.2."""
    served = ["eval", "shop", "--model", "openai:http://127.0.0.1:9/v1"]
    with pytest.raises(SystemExit) as stop:
        build([*served, "--samples", "1000000000"])
    assert stop.value.code == 2
    assert "samples=1000000000: must be in [1, 100000]" in capsys.readouterr().err
    assert build([*served, "--samples", "100000"]).samples == 100_000
    assert EVAL_TEMPERATURE == 0.2 and build(served).sampling.temperature == 0.2


def test_the_lookup_hint_reaches_a_local_models_prompt(
    tiny_model: Path, store: Path, tmp_path: Path
) -> None:
    """Item 10: --lookup-hint crashed with a traceback after the model loaded."""
    out = tmp_path / "eval"
    argv = [*LOCAL, "--max-prompt-tokens", "256", "--lookup-hint", "--out", str(out)]
    _eval(str(tiny_model), store, *argv)
    record = json.loads((out / "eval.json").read_text())
    assert record["prompt"]["lookup_hint"] is True and record["steps"]
    command = build(["eval", "shop", "--model", str(tiny_model), "--data", str(store), *argv])
    assert isinstance(command, EvalShop)
    policy = command.policy()
    observation = {"context": "# page\n[search]", "page": "[search]", "history": []}
    hint = LOOKUP_LINE.split("{")[0]
    assert hint in policy.prompts(observation)


def test_the_lookup_hint_is_refused_up_front_for_a_served_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Item 10: a served model cannot carry the lookup's line; the refusal came after loading."""
    with pytest.raises(SystemExit) as stop:
        build(["eval", "shop", "--model", "openai:http://127.0.0.1:9/v1", "--lookup-hint"])
    said = capsys.readouterr().err
    assert stop.value.code == 2 and "--lookup-hint" in said and len(said.strip().splitlines()) == 1


@pytest.mark.parametrize("command", ["eval shop", "simulate ab"])
def test_a_missing_key_names_the_served_option(
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Item 16: the hint named --openai.api-key-env; the option is --served.api-key-env."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    model = "--policy" if command == "simulate ab" else "--model"
    argv = [*command.split(), model, "openai:http://127.0.0.1:9/v1#m"]
    code, said = _refused([*argv, "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "OPENAI_API_KEY is not set" in said, said
    assert "--served.api-key-env ''" in said and "--openai" not in said
    assert "subcommand" not in said and not (tmp_path / "out").exists()
