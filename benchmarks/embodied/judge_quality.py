"""Judge quality on Household-v1's held-out instructions: the ``judges`` table without labelling.

Reads top to bottom: collect a few episodes of the perturbed expert under held-out (by
default abstract) instructions, replay them in the simulator, and at sampled states have
every prompt of each judge rate every action. Prints, per judge, how often the expert's next
action is rated +2 and at least +1, how often the top-rated executable action is the
expert's, the share of non-executable actions rated -2, and the probe's cost. The held-out
instructions are read here only to measure judges; no setting is chosen from them.

    python -m rewardgym.benchmarks.embodied.judge_quality --judges embedding hf:smollm2-135m
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import tyro

from rewardgym.bounds import AT_LEAST_1, NON_NEGATIVE, SEED, check_fields
from rewardgym.wrappers.coren.config import N_PROMPTS


@dataclass(frozen=True)
class Config:
    """Which judges to probe, on which instructions, at how many states."""

    judges: tuple[str, ...] = ("embedding", "hf:smollm2-135m")
    """Judge specs (embedding | hf:NAME_OR_PATH | openai:URL | calibrated:ACC[:RHO])."""
    instructions: Literal["fine", "abstract"] = "abstract"
    """Held-out instruction split of Household-v1 whose episodes are probed."""
    layout: Literal["default", "shifted"] = "default"
    """Household-v1 layout."""
    episodes: Annotated[int, AT_LEAST_1] = 40
    """Perturbed-expert episodes collected (the states are sampled from them)."""
    states: Annotated[int, NON_NEGATIVE] = 200
    """Probe states of every judge but the hf ones."""
    hf_states: Annotated[int, NON_NEGATIVE] = 24
    """Probe states of hf judges (each state rates every action with every prompt)."""
    n_prompts: Annotated[int, AT_LEAST_1] = N_PROMPTS
    """Prompts per judge (COREN: 5)."""
    seed: Annotated[int, SEED] = 0
    """Seed of the episodes and of the state sample."""
    out: Path | None = None
    """Write the table as JSON here (default: print only)."""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range before any work."""
        check_fields(self)


def run(config: Config) -> dict[str, dict[str, Any]]:
    """Probe every judge of ``config`` and return its ``judges`` row, keyed by judge spec."""
    from rewardgym.wrappers.judges.quality import held_out_probe_data, probe_judges

    data = held_out_probe_data(
        config.instructions, config.layout, episodes=config.episodes, seed=config.seed
    )
    rows: dict[str, dict[str, Any]] = {}
    for spec in config.judges:  # one at a time, so each line prints as soon as it is measured
        rows.update(
            probe_judges(
                [spec],
                data,
                states=config.states,
                hf_states=config.hf_states,
                n_prompts=config.n_prompts,
                seed=config.seed,
            )
        )
        print(_line(spec, rows[spec]), flush=True)
    if config.out is not None:
        from rewardgym.atomic import write_json_atomic
        from rewardgym.bounds import undefined_as_null

        payload = {"config": _plain(config), "judges": rows}
        write_json_atomic(config.out, undefined_as_null(payload))
    return rows


def _line(spec: str, row: dict[str, Any]) -> str:
    def pct(key: str) -> str:
        value = float(row[key])
        return "  n/a" if math.isnan(value) else f"{100 * value:5.1f}"

    return (
        f"{spec:>20}: expert next +2 {pct('expert_next_top')}%  >= +1 "
        f"{pct('expert_next_supportive')}%  top-rated = expert {pct('greedy_agreement')}%  "
        f"non-executable -2 {pct('nonexec_minus2')}%  ({row['probe_states']} states, "
        f"{row['probe_seconds_per_state']:.2f} s per state)"
    )


def _plain(config: Config) -> dict[str, Any]:
    out = dict(config.__dict__)
    out["out"] = str(config.out) if config.out is not None else None
    return json.loads(json.dumps(out))


def main() -> None:
    """Parse the command line into a ``Config`` and run it."""
    run(tyro.cli(Config))


if __name__ == "__main__":
    main()
