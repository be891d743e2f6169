"""Score the untrained baseline shoppers on held-out sessions of the embedded corpus."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console

from rewardgym.agents.baselines.shop import (
    FirstElementAgent,
    FrequencyAgent,
    RandomShopAgent,
    ShopPolicy,
    TerminateAgent,
)
from rewardgym.agents.evaluation.shopping import evaluate_policy
from rewardgym.benchmarks.tables import markdown_table, write_results
from rewardgym.envs.shopping.data import resolve_sessions

COLUMNS = [
    "method",
    "exact_match",
    "type_accuracy",
    "type_f1",
    "exact_click",
    "exact_type_and_submit",
    "exact_terminate",
    "mean_reward",
]
HEADERS = [
    "method",
    "exact %",
    "type acc %",
    "type F1 %",
    "click exact %",
    "type exact %",
    "terminate exact %",
    "mean env reward",
]


def _batched(agent: ShopPolicy) -> Callable[[list[dict[str, Any]]], list[Any]]:
    return lambda batch: [agent.act(obs) for obs in batch]


def run_shop_baselines(
    out: Path | None = None, *, max_sessions: int | None = 200, data: Any = None
) -> list[dict[str, Any]]:
    """Fit the frequency baseline on the train split and score every baseline on the test split."""
    console = Console()
    store, train = resolve_sessions(data, "train")
    frequency = FrequencyAgent().fit(store.session(i) for i in train)
    agents: list[ShopPolicy] = [
        RandomShopAgent(seed=0),
        TerminateAgent(),
        FirstElementAgent(),
        frequency,
    ]
    rows = []
    for agent in agents:
        result = evaluate_policy(
            _batched(agent),
            data=data,
            max_sessions=max_sessions,
            desc=agent.name,
        )
        rows.append(
            {"method": agent.name, **result.metrics.to_dict(), "mean_reward": result.mean_reward}
        )
    table = markdown_table(rows, COLUMNS, headers=HEADERS)
    console.print(f"\nBaseline shoppers on {rows[0]['n']} held-out steps (test split):\n")
    print(table)
    if out is not None:
        write_results(out, rows, table, {"suite": "shop-baselines", "max_sessions": max_sessions})
    return rows


__all__ = ["run_shop_baselines"]
