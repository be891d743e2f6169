"""``rewardgym data shop``: generate the synthetic shopper corpus into a session store."""

from __future__ import annotations

import resource
import time
from pathlib import Path
from typing import Annotated

import typer


def data_shop(
    out: Annotated[Path, typer.Option(help="Directory of the new session store.")],
    sessions: Annotated[
        int, typer.Option(help="Number of sessions (the paper's corpus: 52137).")
    ] = 2000,
    seed: Annotated[int, typer.Option(help="Seed of the catalogue and of every shopper.")] = 0,
) -> None:
    """Generate synthetic shopping sessions and report time, peak memory and size on disk.

    OUT must be new, empty, or a store this command wrote earlier (which is replaced); a
    directory holding anything else is refused and left as it is.
    """
    from rich.console import Console

    from rewardgym.envs.shopping.data import build_synthetic_store

    if sessions <= 0:
        raise typer.BadParameter(f"--sessions must be positive, got {sessions}")
    console = Console()
    start = time.perf_counter()
    try:
        # Replacing a store this command wrote is safe: it is regenerated from its seed.
        store = build_synthetic_store(out, sessions=sessions, seed=seed, overwrite=True)
    except (FileExistsError, NotADirectoryError, PermissionError) as err:
        raise typer.BadParameter(str(err), param_hint="--out") from err
    seconds = time.perf_counter() - start
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    size = sum(f.stat().st_size for f in store.path.iterdir())
    counts = store.action_counts()
    console.print(
        f"wrote {len(store):,} sessions / {store.num_steps:,} steps to {store.path} in {seconds:.1f} s "
        f"({len(store) / seconds:,.0f} sessions/s); peak RSS {peak_mib:,.0f} MiB; "
        f"{size / 2**20:,.1f} MiB on disk"
    )
    total = sum(counts.values())
    console.print(
        "action types: "
        + ", ".join(f"{k} {100 * v / total:.1f}%" for k, v in sorted(counts.items()))
    )
