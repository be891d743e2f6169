"""``rewardgym bench shop``: train and evaluate Shop-R1's rows on held-out sessions, print its tables.

Reads top to bottom: build (or load) the base model; build prompt-completion rows from the
training split; per training seed, one SFT cold start shared by every SFT row, then one GRPO
run per RL row with the reward wrapper that row names; every model is evaluated on test-split
sessions (never seen in training) with each sampling seed. Rows (``method``):
``zero-shot``, ``rl-binary``, ``sft``, ``sft+rl-binary``, ``shop-r1``; the ablations
``shop-r1/no-sft``, ``shop-r1/no-format``, ``shop-r1/no-rationale``, ``shop-r1/no-dars``,
``shop-r1/binary-action``; ``shop-r1/latest-context``; and ``shop-r1/temp-<t>``. Writes
``results.json`` / ``.csv`` / ``.md`` and ``results.png`` under ``out``. Trained models live
under ``out/models``; a rerun with the same ``out`` reuses them (and resumes a GRPO run from its
last checkpoint), so delete that folder after changing the config.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any

import tyro
from rich.console import Console

from rewardgym.agents.llm.config import PromptConfig
from rewardgym.agents.llm.dataset import DataArg, StepRow, make_env, sample_rows, to_dataset
from rewardgym.benchmarks.shop_config import BenchConfig, PresetName, preset
from rewardgym.benchmarks.shop_report import aggregate, plot_rows, render_tables
from rewardgym.benchmarks.tables import write_results
from rewardgym.envs.shopping.context import ContextMode


@dataclass(frozen=True)
class Method:
    """One row of the suite: where training starts, which reward, which context, which temperature."""

    method: str
    start: str
    """``base`` (the untrained model), ``sft`` (the cold start) or another method's name."""
    reward: str | None = None
    """``binary`` or a Shop-R1 ablation name (``full``, ``no-format``, ...); None: no GRPO."""
    context: ContextMode = "session"
    temperature: float | None = None
    """Evaluation temperature; None keeps the preset's (0.6)."""


def methods(config: BenchConfig) -> list[Method]:
    """Every row of the suite in table order."""
    rows = [
        Method("zero-shot", "base"),
        Method("rl-binary", "base", "binary"),
        Method("sft", "sft"),
        Method("sft+rl-binary", "sft", "binary"),
        Method("shop-r1", "sft", "full"),
        Method("shop-r1/no-sft", "base", "full"),
        Method("shop-r1/no-format", "sft", "no-format"),
        Method("shop-r1/no-rationale", "sft", "no-rationale"),
        Method("shop-r1/no-dars", "sft", "no-dars"),
        Method("shop-r1/binary-action", "sft", "binary-action"),
        Method("shop-r1/latest-context", "sft", "full", context="latest"),
    ]
    rows += [Method(f"shop-r1/temp-{t:g}", "shop-r1", temperature=t) for t in config.temperatures]
    return rows


def wrapper_for(reward: str) -> Any:
    """The reward wrapper factory a row names: the binary baseline or a Shop-R1 ablation."""
    from rewardgym.wrappers import BinaryMatchReward, ShopR1Config, ShopR1Reward

    if reward == "binary":
        return BinaryMatchReward
    config = ShopR1Config.ablation(reward)  # type: ignore[arg-type]
    return lambda env: ShopR1Reward(env, config)


class Suite:
    """State of one ``bench shop`` run: config, data, trained model paths and evaluation runs."""

    def __init__(
        self, config: BenchConfig, out: Path, data: DataArg, model: Path | None, progress: bool
    ) -> None:
        self.config, self.out, self.data, self.model, self.progress = (
            config,
            out,
            data,
            model,
            progress,
        )
        self.console = Console()
        self.runs: list[dict[str, Any]] = []
        self.timings: dict[str, float] = {}
        self._rows: dict[ContextMode, list[StepRow]] = {}

    def prompt(self, context: ContextMode) -> PromptConfig:
        """The preset's prompt config with the given context mode."""
        from dataclasses import replace

        return replace(self.config.prompt, context=context)

    def base_model(self, seed: int) -> Path:
        """The user's model, or the default model built (tokenizer trained) for this seed."""
        if self.model is not None:
            return self.model
        from rewardgym.agents.llm.model import create_default_model
        from rewardgym.envs.shopping.data import resolve_sessions

        path = self.out / "models" / f"seed{seed}" / "base"
        if not (path / "config.json").is_file():
            store, train = resolve_sessions(self.data, "train")
            create_default_model(path, store, train, self.config.model, seed=seed)
        return path

    def rows(self, context: ContextMode, tokenizer_path: Path) -> list[StepRow]:
        """Prompt-completion rows of the training split under ``context`` (built once)."""
        if context not in self._rows:
            from rewardgym.agents.llm.dataset import step_rows
            from rewardgym.agents.llm.model import load_tokenizer
            from rewardgym.agents.llm.prompt import PromptBuilder, env_kwargs

            tokenizer = load_tokenizer(tokenizer_path)
            prompt = self.prompt(context)
            self._rows[context] = step_rows(
                PromptBuilder(tokenizer, prompt),
                data=self.data,
                split="train",
                env_kwargs=env_kwargs(prompt),
                max_sessions=self.config.train_sessions,
                progress=self.progress,
            )
        return self._rows[context]

    def timed(self, key: str, seconds: float) -> None:
        """Add ``seconds`` to the phase ``key``."""
        self.timings[key] = self.timings.get(key, 0.0) + seconds

    def sft(self, base: Path, seed: int, context: ContextMode) -> Path:
        """The SFT cold start of this seed and context (trained once, reused by every row)."""
        from dataclasses import replace

        from rewardgym.agents.llm.sft import train_sft

        out = self.out / "models" / f"seed{seed}" / f"sft-{context}"
        if (out / "model" / "config.json").is_file():
            return out / "model"
        cfg = replace(self.config.sft, seed=seed)
        rows = sample_rows(self.rows(context, base), cfg.max_examples, seed)
        self.console.print(f"[bold]SFT[/] seed {seed}, {context} context: {len(rows)} examples")
        result = train_sft(
            base,
            to_dataset(rows),
            out,
            cfg,
            max_length=self.config.prompt.max_prompt_tokens + self.config.sampling.max_new_tokens,
            progress=self.progress,
        )
        self.timed("sft", result.seconds)
        self.console.print(
            f"  loss {result.first_loss:.3f} -> {result.last_loss:.3f} in {result.seconds:.0f} s"
        )
        return result.path

    def grpo(self, start: Path, method: Method, seed: int) -> Path:
        """GRPO from ``start`` with the row's wrapper; returns the trained model's path."""
        from dataclasses import replace

        from rewardgym.agents.llm.grpo import train_grpo
        from rewardgym.agents.llm.prompt import env_kwargs

        assert method.reward is not None
        out = self.out / "models" / f"seed{seed}" / method.method.replace("/", "__")
        if (out / "model" / "config.json").is_file():
            return out / "model"
        cfg = replace(self.config.grpo, seed=seed)
        rows = sample_rows(self.rows(method.context, start), cfg.max_examples, seed)
        result = train_grpo(
            start,
            to_dataset(rows),
            out,
            wrapper_for(method.reward),
            cfg,
            data=self.data,
            env_kwargs=env_kwargs(self.prompt(method.context)),
            progress=self.progress,
            desc=method.method,
        )
        self.timed("grpo", result.seconds)
        rewards = result.series("reward")
        head, tail = rewards[: max(1, len(rewards) // 4)], rewards[-max(1, len(rewards) // 4) :]
        self.console.print(
            f"[bold]GRPO[/] {method.method} seed {seed}: {result.steps} steps in "
            f"{result.seconds:.0f} s, reward {sum(head) / len(head):.3f} -> "
            f"{sum(tail) / len(tail):.3f} (env + wrapper {result.reward_seconds:.1f} s)"
        )
        return result.path

    def evaluate(self, path: Path, method: Method, seed: int) -> None:
        """Score ``path`` on the test split with every sampling seed; record one run each."""
        from dataclasses import replace

        from rewardgym.agents.evaluation.shopping import evaluate_policy
        from rewardgym.agents.llm.policy import LLMPolicy
        from rewardgym.agents.llm.prompt import env_kwargs

        prompt = self.prompt(method.context)
        sampling = self.config.sampling
        if method.temperature is not None:
            sampling = replace(sampling, temperature=method.temperature)
        policy = LLMPolicy.from_path(path, prompt, sampling)
        env = make_env(self.data, "test", env_kwargs(prompt))
        for eval_seed in self.config.eval_seeds:
            start = time.perf_counter()
            policy.reset_seed(seed * 1000 + eval_seed)
            result = evaluate_policy(
                policy,
                env=env,
                max_sessions=self.config.eval_sessions,
                batch_size=sampling.batch_size,
                progress=self.progress,
                desc=method.method,
            )
            self.timed("eval", time.perf_counter() - start)
            self.runs.append(
                {
                    "method": method.method,
                    "seed": seed,
                    "eval_seed": eval_seed,
                    **result.metrics.to_dict(),
                    "mean_env_reward": result.mean_reward,
                }
            )
        env.close()


def run_bench_shop(
    preset_name: str = "quick",
    out: str | Path = Path("results/shop"),
    *,
    config: BenchConfig | None = None,
    model: str | Path | None = None,
    data: DataArg = None,
    only: Sequence[str] | None = None,
    progress: bool = True,
) -> list[dict[str, Any]]:
    """Run the suite (``config`` overrides the preset), write results under ``out``, return the rows."""
    wall = time.perf_counter()
    config = config or preset(preset_name)
    out = Path(out)
    suite = Suite(config, out, data, Path(model) if model is not None else None, progress)
    wanted = [m for m in methods(config) if only is None or m.method in only]
    for seed in config.seeds:
        base = suite.base_model(seed)
        trained: dict[str, Path] = {"base": base}
        for method in wanted:
            start = method.start
            if start == "sft":
                context = method.context if config.separate_latest_sft else "session"
                trained.setdefault(f"sft-{context}", suite.sft(base, seed, context))
                start = f"sft-{context}"
            if start not in trained:
                raise ValueError(f"row {method.method!r} needs {start!r}; keep it in `only`")
            path = trained[start]
            if method.reward is not None:
                path = suite.grpo(path, method, seed)
            trained[method.method] = path
            suite.evaluate(path, method, seed)
    rows = aggregate(suite.runs, [m.method for m in wanted])
    tables = render_tables(rows)
    seconds = time.perf_counter() - wall
    meta = {
        "suite": "shop",
        "preset": config.name,
        "config": asdict(config),
        "model": str(model) if model is not None else "default",
        "wall_seconds": seconds,
        "phase_seconds": suite.timings,
        "runs": suite.runs,
    }
    write_results(out, rows, tables, meta)
    plot_rows(rows, out)
    suite.console.print(f"\n{tables}\n", markup=False, soft_wrap=True)
    suite.console.print(f"bench shop ({config.name}): {seconds / 60:.1f} min; results in {out}/")
    return rows


@dataclass(frozen=True)
class BenchShop:
    """Train and evaluate the Shop-R1 rows (zero-shot, SFT, GRPO, ablations) on held-out sessions."""

    config: Annotated[BenchConfig, tyro.conf.arg(name="")]
    preset: PresetName = "quick"
    """Named defaults for every option below: tiny (tests), quick (2 CPU cores, <= 15 min), paper (GPU)."""
    out: Path = Path("results/shop")
    """Directory for results.json / .csv / .md, plots and the trained models."""
    model: Path | None = None
    """Local HF causal-LM path (default: build the small model)."""
    data: str | None = None
    """Session data: JSONL, Parquet, store or OPeRA directory (default: the embedded corpus)."""
    only: tuple[str, ...] | None = None
    """Methods to run, e.g. --only zero-shot sft (default: all)."""

    def run(self) -> None:
        """Run the suite and write its files."""
        run_bench_shop(
            self.preset,
            self.out,
            config=self.config,
            model=self.model,
            data=self.data,
            only=self.only,
        )


__all__ = ["BenchShop", "Method", "methods", "run_bench_shop", "wrapper_for"]
