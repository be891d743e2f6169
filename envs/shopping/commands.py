"""``rewardgym data shop``: generate the synthetic shopper corpus into a new session log."""

from __future__ import annotations

import resource
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import tyro

from rewardgym.envs.shopping.synthetic.config import SyntheticShopperConfig
from rewardgym.errors import UserError


@dataclass(frozen=True)
class DataShop:
    """Generate synthetic shopping sessions into a new session log; report time, peak memory and size."""

    out: Path
    """Directory of the new session log (new or empty; a directory holding other files is refused)."""
    shopper: Annotated[SyntheticShopperConfig, tyro.conf.arg(name="")] = field(
        default_factory=SyntheticShopperConfig
    )
    overwrite: bool = False
    """Replace a session log that an earlier data shop wrote to OUT (nothing else is ever replaced)."""

    def run(self) -> None:
        """Build the session log and print what it took."""
        from rich.console import Console

        from rewardgym.envs.shopping.session_sources import build_synthetic_log

        if self.shopper.sessions <= 0:
            raise UserError(f"--sessions must be positive, got {self.shopper.sessions}")
        console = Console()
        start = time.perf_counter()
        log = build_synthetic_log(self.out, config=self.shopper, overwrite=self.overwrite)
        seconds = time.perf_counter() - start
        peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        size = sum(f.stat().st_size for f in log.path.iterdir() if f.is_file())
        counts = log.action_counts()
        console.print(
            f"wrote {len(log):,} sessions / {log.num_steps:,} steps to {log.path} in "
            f"{seconds:.1f} s ({len(log) / seconds:,.0f} sessions/s); peak RSS "
            f"{peak_mib:,.0f} MiB; {size / 2**20:,.1f} MiB on disk"
        )
        total = sum(counts.values())
        console.print(
            "action types: "
            + ", ".join(f"{k} {100 * v / total:.1f}%" for k, v in sorted(counts.items()))
        )


__all__ = ["DataShop"]
