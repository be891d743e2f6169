"""Bad invocations of ``rewardgym``: one line on stderr, exit status 2, never a traceback.

Issue 24 item 8 (and 23 items 4-5, 30 item 5: at least 20 rows, every command). Each row is an argv a careless user types; ``{ds}`` is a
small data set, ``{file}`` a file, ``{mine}`` a folder holding the user's own file, ``{empty}``
an empty folder (the working directory) and ``{new}`` a path that does not exist. Rows run in this process through
``rewardgym.cli.main`` (the console script calls it); a few run as real processes to check
the exit status and, for Ctrl-C, the signal.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rewardgym.cli import COMMANDS, main
from rewardgym.envs.trajectories import CollectConfig, collect_dataset

LABEL = ["label", "coren", "--dataset", "{ds}", "--out", "{new}", "--no-minari"]
COLLECT = ["data", "collect", "--out", "{new}", "--episodes", "2", "--no-minari"]
SHOP = ["bench", "shop", "--preset", "tiny", "--out", "{new}"]
DATA_SHOP = ["data", "shop", "--out", "{new}", "--sessions", "3"]
EVAL_SHOP = ["eval", "shop", "--model", "openai:http://127.0.0.1:9/v1"]
UNSET_KEY = "REWARDGYM_TEST_UNSET_KEY"

# (row id, argv, words the one line must contain)
ROWS: list[tuple[str, list[str], tuple[str, ...]]] = [
    ("unknown-command", ["frobnicate"], ("frobnicate", "data collect")),
    ("misspelt-command", ["bench", "shpo"], ("bench shpo", "did you mean 'bench shop'")),
    ("unknown-preset", ["bench", "shop", "--preset", "huge"], ("huge", "tiny")),
    ("not-an-int", [*COLLECT, "--episodes", "abc"], ("--episodes", "abc")),
    ("closed-choice", [*LABEL, "--candidates", "some"], ("--candidates", "grounded")),
    ("epochs-0", [*LABEL, "--epochs", "0"], ("epochs=0",)),
    ("learning-rate-nan", [*LABEL, "--learning-rate", "nan"], ("learning_rate=nan",)),
    ("judge-hf-missing", [*LABEL, "--judge", "hf:/nonexistent"], ("/nonexistent",)),
    ("judge-hf-empty", [*LABEL, "--judge", "hf:{empty}"], ("config.json",)),
    ("judge-openai-not-url", [*LABEL, "--judge", "openai:notaurl"], ("notaurl",)),
    ("judge-unknown", [*LABEL, "--judge", "oracle"], ("oracle", "embedding")),
    ("dataset-missing", ["label", "coren", "--dataset", "{new}", "--out", "{empty}"], ("new",)),
    ("seed-negative", [*COLLECT, "--seed", "-1"], ("seed", "-1")),
    ("env-not-ours", [*COLLECT, "--env", "CartPole-v1"], ("CartPole-v1",)),
    ("env-kwargs-unknown", [*COLLECT, "--env-kwargs", "bogus_kw", "1"], ("bogus_kw",)),
    ("model-missing", [*SHOP, "--model", "/nonexistent"], ("/nonexistent", "config.json")),
    ("eval-sessions-0", [*SHOP, "--eval-sessions", "0"], ("eval_sessions=0",)),
    ("ab-out-file", ["simulate", "ab", "--out", "{file}", "--visits", "2"], ("is a file",)),
    ("ab-out-mine", ["simulate", "ab", "--out", "{mine}", "--visits", "2"], ("mine",)),
    ("fidelity-out-file", ["bench", "fidelity", "--preset", "tiny", "--out", "{file}"], ("file",)),
    ("fidelity-out-mine", ["bench", "fidelity", "--preset", "tiny", "--out", "{mine}"], ("mine",)),
    # Rows whose fix belongs to other parts of issue 24: output ownership before any work
    # (item 1), selectors (item 5) and nonsense values (item 9).
    ("shop-out-file", [*SHOP[:-1], "{file}"], ("is a file",)),
    ("shop-out-mine", [*SHOP[:-1], "{mine}"], ("mine",)),
    ("embodied-out-mine", ["bench", "embodied", "--out", "{mine}"], ("mine",)),
    ("shop-only-bogus", [*SHOP, "--only", "bogus"], ("bogus", "shop-r1")),
    ("embodied-rows-bogus", ["bench", "embodied", "--rows", "bogus/x"], ("bogus/x",)),
    ("ab-policy-bogus", ["simulate", "ab", "--out", "{new}", "--policy", "bogus"], ("bogus",)),
    ("ab-store-bogus", ["simulate", "ab", "--out", "{new}", "--store-b", "bogus"], ("bogus",)),
    ("data-shop-sessions-0", [*DATA_SHOP[:-1], "0"], ("sessions", "0")),
    ("collect-variant-bogus", [*COLLECT, "--variant", "bogus"], ("bogus",)),
    ("start-time-nan", [*DATA_SHOP, "--start-time", "nan"], ("nan",)),
    ("products-huge", [*DATA_SHOP, "--products-per-category", "100000000"], ("100000000",)),
    # Issue 30 item 5: every command, and the mistakes that used to exit 1 or print a traceback.
    ("data-shop-sessions-negative", [*DATA_SHOP[:-1], "-1"], ("sessions=-1",)),
    ("data-shop-out-mine", ["data", "shop", "--out", "{mine}"], ("mine", "nothing there")),
    ("collect-out-file", [*COLLECT[:2], "--out", "{file}"], ("is a file",)),
    ("collect-episodes-0", [*COLLECT, "--episodes", "0"], ("episodes=0",)),
    ("label-dataset-a-file", [*LABEL[:2], "--dataset", "{file}", *LABEL[4:]], ("data collect",)),
    ("label-dataset-mine", [*LABEL[:2], "--dataset", "{mine}", *LABEL[4:]], ("not a rewardgym",)),
    ("label-out-is-dataset", [*LABEL[:4], "--out", "{ds}"], ("inside or equals",)),
    (
        "label-key-unset",
        [*LABEL, "--judge", "openai:http://127.0.0.1:9/v1", "--openai.api-key-env", UNSET_KEY],
        (UNSET_KEY, "is not set", "--openai.api-key-env"),
    ),
    ("embodied-unknown-preset", ["bench", "embodied", "--preset", "huge"], ("huge", "quick")),
    ("embodied-out-file", ["bench", "embodied", "--out", "{file}"], ("is a file",)),
    ("fidelity-unknown-preset", ["bench", "fidelity", "--preset", "bogus"], ("bogus", "tiny")),
    ("ab-visits-0", ["simulate", "ab", "--out", "{new}", "--visits", "0"], ("visits=0",)),
    ("demo-out-file", ["demo", "--out", "{file}"], ("is a file",)),
    ("serve-env-not-ours", ["serve", "CartPole-v1"], ("CartPole-v1", "rewardgym/Household-v1")),
    ("serve-reward-bogus", ["serve", "rewardgym/ShopSession-v0", "--reward", "bogus"], ("bogus",)),
    ("serve-port-0", ["serve", "rewardgym/Household-v1", "--port", "0"], ("port=0",)),
    ("demo-out-mine", ["demo", "--out", "{mine}"], ("mine", "nothing there")),
    # Issue 30 item 3: the commands that train and evaluate agents.
    (
        "train-offline-out-mine",
        ["train", "offline", "--dataset", "{ds}", "--out", "{mine}"],
        ("mine",),
    ),
    (
        "eval-household-out-mine",
        ["eval", "household", "--agent", "{ds}", "--out", "{mine}"],
        ("mine",),
    ),
    # Issue 43 item 5: eval shop.
    ("eval-shop-out-mine", [*EVAL_SHOP, "--out", "{mine}"], ("mine",)),
    ("eval-shop-model-missing", ["eval", "shop", "--model", "{new}"], ("new", "config.json")),
    ("eval-shop-model-not-url", ["eval", "shop", "--model", "openai:notaurl"], ("notaurl",)),
    ("eval-shop-split-train", [*EVAL_SHOP, "--split", "train"], ("train", "validation")),
    ("eval-shop-sessions-0", [*EVAL_SHOP, "--sessions", "0"], ("sessions=0",)),
    ("eval-shop-served-constrained", [*EVAL_SHOP, "--decoding", "constrained"], ("constrained",)),
    (
        "eval-shop-no-validation",
        [*EVAL_SHOP, "--split", "validation", "--validation-fraction", "0"],
        ("validation-fraction 0",),
    ),
    ("train-sft-out-mine", ["train", "sft", "--out", "{mine}"], ("mine", "nothing there")),
    # Issue 39 items 21 and 27: no split to play; an option after the algorithm's subcommand.
    (
        "eval-household-no-splits",
        ["eval", "household", "--agent", "{ds}", "--splits", "--out", "{new}"],
        ("splits is empty",),
    ),
    (
        "train-offline-option-after-algorithm",
        [
            "train",
            "offline",
            "--dataset",
            "{ds}",
            "--out",
            "{new}",
            "algorithm:bc",
            "--n-steps",
            "5",
        ],
        ("--n-steps", "put it before algorithm:bc"),
    ),
    ("train-sft-epochs-0", ["train", "sft", "--out", "{new}", "--epochs", "0"], ("epochs=0",)),
    (
        "train-grpo-reward-bogus",
        ["train", "grpo", "--model", "{new}", "--out", "{new}", "--reward", "bogus"],
        ("bogus", "no-dars"),
    ),
]


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("bad")
    collect_dataset(CollectConfig(episodes=2, seed=1)).save(root / "ds", minari=False)
    (root / "file").write_text("the user's file\n")
    (root / "mine").mkdir()
    (root / "mine" / "notes.txt").write_text("keep\n")
    (root / "empty").mkdir()
    return {k: str(root / k) for k in ("ds", "file", "mine", "empty")}


def _fill(argv: list[str], places: dict[str, str], new: Path) -> list[str]:
    return [arg.format(new=new, **places) for arg in argv]


def _one_line(stderr: str, code: object) -> str:
    """The message a user sees: stderr, plus a string exit code (Python prints it at exit)."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    if isinstance(code, str):
        lines += code.splitlines()
    assert "Traceback" not in stderr
    assert len(lines) == 1, f"expected one message line, got {len(lines)}: {lines[:12]}"
    return lines[0]


@pytest.mark.parametrize(("argv", "words"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_a_bad_invocation_prints_one_line(
    argv: list[str],
    words: tuple[str, ...],
    places: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(places["empty"])
    monkeypatch.delenv(UNSET_KEY, raising=False)
    new = tmp_path / "new"
    with pytest.raises(SystemExit) as stop:
        main(_fill(argv, places, new))
    assert stop.value.code == 2  # a user's mistake, not a failure of the run
    line = _one_line(capsys.readouterr().err, stop.value.code)
    for word in words:
        assert word in line, f"{word!r} missing from: {line}"
    assert Path(places["mine"], "notes.txt").read_text() == "keep\n"
    assert not new.exists() and not any(Path(places["empty"]).iterdir())


def test_the_table_tries_every_command() -> None:
    commands = {words: 0 for words in COMMANDS}
    for _, argv, _ in ROWS:
        for words in commands:
            commands[words] += tuple(argv[: len(words)]) == words
    assert len(ROWS) >= 20 and all(commands.values()), commands


def _rewardgym(*args: str) -> list[str]:
    return [sys.executable, "-m", "rewardgym.cli", *args]


@pytest.mark.parametrize(
    "argv", [["frobnicate"], ["data", "collect", "--out", "{new}", "--seed", "-1"]]
)
def test_the_console_exit_status_is_2(
    argv: list[str], places: dict[str, str], tmp_path: Path
) -> None:
    done = subprocess.run(
        _rewardgym(*_fill(argv, places, tmp_path / "new")),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    _one_line(done.stderr, None)


def test_ctrl_c_prints_one_line_and_exits_130(tmp_path: Path) -> None:
    """SIGINT in the middle of ``data collect``: one line saying what was kept; status 130."""
    out = tmp_path / "out"
    # A terminal's Ctrl-C reaches a process whose SIGINT is Python's default handler and
    # unblocked; a child of a pytest-xdist worker can inherit it ignored or blocked from what
    # ran before in that worker (the whole suite in CI), so the child restores it first.
    ready = (
        "import signal, sys; signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); "
        "signal.signal(signal.SIGINT, signal.default_int_handler); "
        "from rewardgym.cli import main; import rewardgym.envs.trajectories.collect"
    )
    script = f"{ready}; print('ready', flush=True); main(sys.argv[1:])"
    argv = ["data", "collect", "--out", str(out), "--episodes", "1000000", "--no-minari"]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    with subprocess.Popen(
        [sys.executable, "-c", script, *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    ) as proc:
        try:
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
            time.sleep(1.5)  # inside the collection loop by now
            proc.send_signal(signal.SIGINT)
            _, stderr = proc.communicate(timeout=60)
        finally:
            proc.kill()
    assert proc.returncode == 130, stderr[-2000:]
    line = _one_line(stderr, None)
    assert "interrupted" in line and "run the same command again" in line
    assert list(tmp_path.iterdir()) == []  # nothing half-written, no temporary left


def test_an_unknown_option_names_the_nearest(capsys: pytest.CaptureFixture[str]) -> None:
    """tyro's own refusal: the unknown option, the nearest real one, no traceback."""
    with pytest.raises(SystemExit) as stop:
        main(["data", "collect", "--out", "x", "--seeed", "3"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "Traceback" not in err
    assert "--seeed" in err and "Perhaps you meant" in err and "--seed INT" in err
