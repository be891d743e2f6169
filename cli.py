"""The ``rewardgym`` command line: data generation, reward labelling and benchmark suites."""

from __future__ import annotations

from typing import Annotated

import typer

from rewardgym.agents.labelling.commands import label_coren
from rewardgym.benchmarks.embodied import bench_embodied
from rewardgym.benchmarks.shop import bench_shop
from rewardgym.envs.shopping.commands import data_shop
from rewardgym.envs.trajectories.commands import collect

app = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__)
data_app = typer.Typer(no_args_is_help=True, help="Build or collect data sets.")
label_app = typer.Typer(no_args_is_help=True, help="Relabel data sets with dense rewards.")
bench_app = typer.Typer(no_args_is_help=True, help="Run benchmark suites.")
app.add_typer(data_app, name="data")
app.add_typer(label_app, name="label")
app.add_typer(bench_app, name="bench")

# Each concept owns its command; the command modules import their heavy dependencies lazily.
data_app.command("shop")(data_shop)
data_app.command("collect")(collect)
label_app.command("coren")(label_coren)
bench_app.command("shop")(bench_shop)
bench_app.command("embodied")(bench_embodied)


@app.command()
def demo(
    out: Annotated[str, typer.Option(help="Directory for every suite's results.")] = "results",
) -> None:
    """Run the main job: baseline shoppers, then both benchmark suites at their quick presets."""
    from pathlib import Path

    from rewardgym.benchmarks.demo import run_demo

    run_demo(Path(out))


def main() -> None:
    """Entry point of the ``rewardgym`` console script."""
    app()


if __name__ == "__main__":
    main()
