"""Issue 49 items 3 and 15: held-out VirtualHome programs and unreadable lists never reach a data set."""

from __future__ import annotations

from pathlib import Path

import pytest

from rewardgym.cli import main
from rewardgym.envs.trajectories import CollectConfig, collect_dataset
from rewardgym.envs.virtualhome.programs import split_programs

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    "argv",
    [
        ["data", "collect", "--env", "virtualhome", "--episodes", "2"],
        ["bench", "embodied", "--env", "virtualhome"],
    ],
    ids=["data-collect", "bench-embodied"],
)
@pytest.mark.parametrize(
    ("flag", "value", "words"),
    [
        ("split_seed", "1", ("split_seed=1", "held-out")),
        ("tasks", DEEP, ("nested too deep", "[3, 7]")),
    ],
    ids=["split-seed", "deep-list"],
)
def test_a_refused_env_keyword_is_one_line_and_exit_2(
    argv: list[str],
    flag: str,
    value: str,
    words: tuple[str, ...],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    option = "--collect.env-kwargs" if argv[0] == "bench" else "--env-kwargs"
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--out", str(out), option, flag, value])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert stop.value.code == 2, err[-2000:]
    assert "Traceback" not in err and len(lines) == 1, lines[:12]
    assert all(word in lines[0] for word in words), lines[0]
    assert not out.exists()


def test_split_seed_0_and_evaluation_sets_are_still_collected() -> None:
    assert CollectConfig(env="virtualhome", env_kwargs={"split_seed": 0}).env_kwargs
    config = CollectConfig(
        env="virtualhome", episodes=2, env_kwargs={"split_seed": 1}, allow_held_out=True
    )
    programs = [ep.extras["reset_options"]["program"] for ep in collect_dataset(config)]
    assert programs == list(split_programs("train", 1)[:2])


def test_another_split_seed_would_have_leaked_test_programs() -> None:
    """Why the refusal matters: seed 1's training programs include seed 0's test programs."""
    leaked = set(split_programs("train", 1)) & set(split_programs("test", 0))
    assert len(leaked) > 10
