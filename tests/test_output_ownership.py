"""Every command that writes owns only its output: one rule, checked before any work (issue 24, items 1 and 3).

Table-driven over every writing command of ``rewardgym``: ``--out .`` in a folder of the
user's, ``--out`` an existing file, a folder holding the user's own ``results.md`` and an
earlier output of the same command without ``--overwrite`` are refused (non-zero exit, the
path named, every canary byte intact) before the command's first piece of work, which is
replaced by a function that fails the test if it is ever reached. With ``--overwrite`` an
earlier output of the same command passes the check and the work starts. A ``--out`` that is
a symbolic link to an empty folder is followed: the output lands in the link's target.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from rewardgym.cli import main
from rewardgym.outputs import OWNER_FILE, atomic_output, claim_output, mark_output, owner


class WorkStarted(AssertionError):
    """Raised by the stand-in of a command's first piece of work."""


@dataclass(frozen=True)
class Writer:
    """One writing command: its arguments without ``--out``, its output kind, its first work."""

    words: tuple[str, ...]
    args: Callable[[Path], list[str]]
    kind: str
    work: tuple[str, str]
    """``(module, attribute)`` of the first thing the command does once ``--out`` is accepted."""


def _none(_: Path) -> list[str]:
    return []


WRITERS = {
    "data shop": Writer(
        ("data", "shop"),
        lambda _: ["--sessions", "3"],
        "shop-store",
        ("rewardgym.envs.shopping.synthetic", "generate_sessions"),
    ),
    "data collect": Writer(
        ("data", "collect"),
        lambda _: ["--episodes", "2", "--no-minari"],
        "trajectory-dataset",
        ("rewardgym.envs.trajectories.collect", "collect_dataset"),
    ),
    "label coren": Writer(
        ("label", "coren"),
        lambda source: [
            *("--dataset", str(source), "--judge", "embedding:hashing", "--no-minari"),
            *("--n-prompts", "2", "--epochs", "3", "--probe-states", "4"),
        ],
        "trajectory-dataset",
        ("rewardgym.wrappers.coren.labelling", "resolve_judge"),
    ),
    "bench shop": Writer(
        ("bench", "shop"),
        lambda _: ["--preset", "tiny"],
        "bench-shop",
        ("rewardgym.benchmarks.shop.suite", "Suite"),
    ),
    "bench embodied": Writer(
        ("bench", "embodied"),
        _none,
        "bench-embodied",
        ("rewardgym.benchmarks.embodied.suite", "prepare_data"),
    ),
    "bench fidelity": Writer(
        ("bench", "fidelity"),
        lambda _: ["--preset", "tiny"],
        "bench-fidelity",
        ("rewardgym.benchmarks.fidelity.suite.Suite", "ground_truth"),
    ),
    "simulate ab": Writer(
        ("simulate", "ab"),
        lambda _: ["--policy", "always-terminate", "--visits", "4", "--n-boot", "20"],
        "simulate-ab",
        ("rewardgym.agents.simulation.experiment", "run_ab"),
    ),
    "demo": Writer(("demo",), _none, "demo", ("rewardgym.benchmarks.shop.suite", "Suite")),
}


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A two-episode data set for ``label coren`` to read."""
    from rewardgym.envs.trajectories import CollectConfig, collect_dataset

    path = tmp_path_factory.mktemp("source") / "data"
    collect_dataset(CollectConfig(episodes=2, seed=3)).save(path, minari=False)
    return path


def _source(name: str, request: pytest.FixtureRequest) -> Path:
    """The input data set of ``label coren``; other commands read none."""
    return request.getfixturevalue("source") if name == "label coren" else Path("unused")


def _snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` and the bytes of every file."""
    return {
        str(p.relative_to(root)): None if p.is_dir() else p.read_bytes()
        for p in sorted(root.rglob("*"))
    }


def _invoke(
    writer: Writer, out: str | Path, source: Path, monkeypatch: pytest.MonkeyPatch, *extra: str
) -> None:
    """Run the command in this process with its first piece of work replaced by a tripwire."""

    def tripwire(*args: object, **kwargs: object) -> None:
        raise WorkStarted(f"{' '.join(writer.words)} started its work")

    module, name = writer.work
    monkeypatch.setattr(f"{module}.{name}", tripwire)
    main([*writer.words, *writer.args(source), "--out", str(out), *extra])


def _refused(
    writer: Writer,
    out: str | Path,
    source: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *extra: str,
) -> str:
    """The refusal of the command before any work: its message (the exit status is not 0).

    ``rewardgym.cli.main`` turns the refusal (a ``FileExistsError`` or ``NotADirectoryError``)
    into one line and a non-zero exit; either form is a refusal here.
    """
    with pytest.raises((SystemExit, FileExistsError, NotADirectoryError)) as stop:
        _invoke(writer, out, source, monkeypatch, *extra)
    if isinstance(stop.value, SystemExit):
        assert stop.value.code not in (0, None)
    message = f"{stop.value}\n{capsys.readouterr().err}"
    assert "Traceback" not in message and message.strip()
    return message


@pytest.mark.parametrize("name", WRITERS)
def test_the_working_directory_of_the_user_is_refused(
    name: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = _source(name, request)
    user = tmp_path / "mine"
    user.mkdir()
    (user / "notes.txt").write_text("my notes")
    before = _snapshot(user)
    monkeypatch.chdir(user)
    _refused(WRITERS[name], ".", source, monkeypatch, capsys)
    assert _snapshot(user) == before


@pytest.mark.parametrize("name", WRITERS)
def test_an_existing_file_is_refused(
    name: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = _source(name, request)
    target = tmp_path / "results.md"
    target.write_text("my own results")
    message = _refused(WRITERS[name], target, source, monkeypatch, capsys)
    assert str(target) in message
    assert target.read_text() == "my own results" and _snapshot(tmp_path).keys() == {"results.md"}


@pytest.mark.parametrize("name", WRITERS)
def test_a_folder_holding_the_users_results_is_refused(
    name: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = _source(name, request)
    user = tmp_path / "out"
    user.mkdir()
    (user / "results.md").write_text("my own results")
    before = _snapshot(tmp_path)
    for extra in ((), ("--overwrite",)):  # whatever --overwrite says
        message = _refused(WRITERS[name], user, source, monkeypatch, capsys, *extra)
        assert str(user) in message
        assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("name", WRITERS)
def test_an_earlier_output_is_taken_again_only_with_overwrite(
    name: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = _source(name, request)
    writer = WRITERS[name]
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.md").write_text("an earlier run's results")
    mark_output(out, writer.kind)
    before = _snapshot(tmp_path)
    assert "--overwrite" in _refused(writer, out, source, monkeypatch, capsys)
    assert _snapshot(tmp_path) == before
    with pytest.raises(WorkStarted):
        _invoke(writer, out, source, monkeypatch, "--overwrite")


@pytest.mark.parametrize("name", ["data shop", "data collect", "label coren", "simulate ab"])
def test_a_symlinked_out_receives_the_output_in_its_target(
    name: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    source = _source(name, request)
    writer = WRITERS[name]
    target = tmp_path / "real"
    target.mkdir()
    link = tmp_path / "link"
    link.symlink_to(target, target_is_directory=True)
    main([*writer.words, *writer.args(source), "--out", str(link)])
    assert link.is_symlink() and link.resolve() == target
    assert (owner(target) or {}).get("kind") == writer.kind
    assert len(list(target.iterdir())) > 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "real"]  # no temporaries left


@pytest.mark.parametrize("kind", ["bench-shop", "bench-embodied", "demo"])
def test_a_claimed_suite_folder_behind_a_link_is_marked_in_the_target(
    kind: str, tmp_path: Path
) -> None:
    target = tmp_path / "real"
    target.mkdir()
    link = tmp_path / "link"
    link.symlink_to(target, target_is_directory=True)
    assert claim_output(link, kind, overwrite=False) == target
    assert link.is_symlink() and (owner(target) or {}).get("kind") == kind
    (target / "results.md").write_text("first run")
    with pytest.raises(FileExistsError, match="--overwrite"):
        claim_output(link, kind, overwrite=False)
    assert claim_output(link, kind, overwrite=True) == target
    assert (target / "results.md").read_text() == "first run"  # a suite replaces file by file


def test_an_atomic_output_behind_a_link_lands_in_the_target(tmp_path: Path) -> None:
    target = tmp_path / "real"
    target.mkdir()
    link = tmp_path / "link"
    link.symlink_to(target, target_is_directory=True)
    with atomic_output(link, "simulate-ab") as tmp:
        (tmp / "results.json").write_text("{}")
    assert link.is_symlink() and sorted(os.listdir(target)) == [OWNER_FILE, "results.json"]
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(NotADirectoryError, match="cannot be followed"):
        claim_output(loop, "bench-shop", overwrite=False)


def test_a_run_stopped_before_its_first_file_is_no_output_to_protect(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    for _ in range(2):  # the second run needs no --overwrite: the first left only the marker
        with pytest.raises(WorkStarted):
            _invoke(WRITERS["bench shop"], out, Path("unused"), monkeypatch)
        assert os.listdir(out) == [OWNER_FILE]


_HOLD = (
    "import sys, time\n"
    "from rewardgym.outputs import claim_output\n"
    "for out in sys.argv[1:]:\n"
    "    claim_output(out, 'bench-shop', overwrite=False)\n"
    "print('held', flush=True)\n"
    "time.sleep(600)\n"
)
"""Another process that claims every folder it is given and keeps them until it is killed."""


@pytest.fixture(scope="module")
def busy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder whose subfolders (one per writer, and ``sweep``) another running process holds."""
    root = tmp_path_factory.mktemp("busy")
    outs = [root / name.replace(" ", "-") for name in [*WRITERS, "sweep"]]
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, *map(str, outs)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield root
    finally:
        holder.kill()
        holder.wait(timeout=30)


@pytest.mark.parametrize("name", WRITERS)
def test_an_output_another_run_is_writing_is_refused_before_any_work(
    name: str,
    busy: Path,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 34, item 3: two runs on one --out cannot both go on (--overwrite or not)."""
    out = busy / name.replace(" ", "-")
    source = _source(name, request)
    for extra in ((), ("--overwrite",)):
        message = _refused(WRITERS[name], out, source, monkeypatch, capsys, *extra)
        assert "another rewardgym run that is still going" in message, message
    assert os.listdir(out) == [OWNER_FILE]  # the holder's marker, and nothing of the refused run


def test_a_sweep_into_an_output_another_run_is_writing_is_refused(
    busy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rewardgym.benchmarks.shop.sweep import main as sweep

    with pytest.raises(SystemExit, match="another rewardgym run that is still going"):
        sweep(["--out", str(busy / "sweep"), "--overwrite"])
