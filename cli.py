"""The ``rewardgym`` command line: data generation, reward labelling and benchmark suites."""

from __future__ import annotations

import typer

app = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__)
data_app = typer.Typer(no_args_is_help=True, help="Build or collect data sets.")
label_app = typer.Typer(no_args_is_help=True, help="Relabel data sets with dense rewards.")
bench_app = typer.Typer(no_args_is_help=True, help="Run benchmark suites.")
app.add_typer(data_app, name="data")
app.add_typer(label_app, name="label")
app.add_typer(bench_app, name="bench")

# Each concept owns its command; the commands import their heavy dependencies lazily.
from rewardgym.envs.shopping.commands import data_shop  # noqa: E402

data_app.command("shop")(data_shop)
from rewardgym.envs.trajectories.commands import collect  # noqa: E402

data_app.command("collect")(collect)
from rewardgym.wrappers.coren.commands import label_coren  # noqa: E402

label_app.command("coren")(label_coren)
from rewardgym.benchmarks.shop import bench_shop  # noqa: E402

bench_app.command("shop")(bench_shop)


@app.command()
def demo() -> None:
    """Run the main job: every benchmark suite at its quick preset on the embedded data."""
    from rewardgym.benchmarks.demo import run_demo

    run_demo()


def main() -> None:
    """Entry point of the ``rewardgym`` console script."""
    app()


if __name__ == "__main__":
    main()
