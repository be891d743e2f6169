"""rewardgym as verifiers tasksets (``verifiers.v1``): ``rewardgym-shop``, one logged shopping step a task.

verifiers finds a taskset by id: ``rewardgym-shop`` imports the top-level module
``rewardgym_shop`` (installed beside the package, ``plugins/rewardgym_shop.py``), which
re-exports the classes here through ``__all__``: the :class:`ShopTaskset` (the taskset), the
:class:`ShopEnv` (how a task becomes an episode) and the :class:`ChatHarness` (how the model is
asked). ``vf-eval rewardgym-shop`` evaluates a model on it.

Each task is one step of a ``rewardgym/ShopSession-v0`` session, of the bundled synthetic
corpus or of ``--env.taskset.data`` (a user's own sessions, any format the shop loaders read):
the prompt is Shop-R1's (``rewardgym.agents.llm.prompt``: instructions as the system message,
the session so far as the user message), the model answers once, and its reply is scored
against the human's logged action with Shop-R1's reward as :mod:`rewardgym.wrappers.shop_r1`
computes it.

Every part of the reward is a declared reward function of :class:`ShopTask` (``@vf.reward``,
weight 1): ``format``, ``rationale``, ``type``, ``name_bonus``, ``name_rouge``, ``text_bonus``
and ``text_rouge`` (:data:`SHOP_TERMS`), each scoring the part's share of Shop-R1's total,
``score * weight`` with its ``ShopR1Config`` weight (:func:`shop_r1_weighted_terms`; 0 for a
part the human's action type has no use for). The trace's reward, their sum, is therefore
``ShopR1Reward``'s total for the same reply (to float rounding: the sum runs over the parts in
another order), and verifiers' own ``--env.taskset.task.rewards '{"format": {"weight": 2}}'``
multiplies one part's share by 2.

Self-certainty: the rationale term needs the policy's distribution over the whole vocabulary at
every rationale token. verifiers hands an env the reply's text; its traces carry at most the
sampled token's log-probability (and only under a training client), never the distribution, so
here the rationale term scores 0 with the ``rationale_missing`` metric at 1, exactly as
``ShopR1Reward`` scores a reply that comes without log-probabilities.

:class:`ChatHarness` runs the chat in this process: one chat-completions request per turn
through the rollout's interception endpoint (verifiers' documented in-process harness contract),
so an evaluation needs no sandbox, container or ``uv``, only the model's OpenAI-compatible URL.

Each taskset's module also has a module-level ``load_environment`` (:func:`environment_loader`),
the entry that Environments Hub scans and ``load_environment``-style loaders call (verifiers
issue 1982): ``load_environment(sessions=2)`` or ``load_environment(config)`` gives the same
``vf.Env`` that ``vf-eval`` builds from the id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Literal

import httpx
import verifiers.v1 as vf
from verifiers.v1.clients import ModelContext
from verifiers.v1.runtimes import ProgramResult, Runtime, SubprocessConfig
from verifiers.v1.utils.loaders import resolve_env_config

from rewardgym.agents.llm.dataset import VALIDATION_FRACTION, split_sessions
from rewardgym.agents.llm.prompt import CONTEXT_HEADER, FOOTER, INSTRUCTIONS
from rewardgym.envs import SHOP_SESSION_ID
from rewardgym.envs.shopping.parsing import parse_output
from rewardgym.wrappers.shop_r1 import ShopR1Config, action_parts, format_reward, reward_config

SHOP_ID = SHOP_SESSION_ID
CHAT_TIMEOUT_S = 600.0
"""Seconds one model reply may take (a CPU-served model is slow)."""


def shop_r1_weighted_terms(
    reply: str, truth: dict[str, Any], config: ShopR1Config
) -> dict[str, tuple[float, float]]:
    """Shop-R1's reward of ``reply`` as ``{term: (score, weight)}``, each weight a ``config`` field.

    ``format`` (1 when the format is right, weight ``format_weight``), ``rationale`` (0: no
    log-probabilities reach a verifiers env, weight ``alpha``), then the action parts of
    :func:`rewardgym.wrappers.shop_r1.action_parts` (``type``, ``name_bonus``, ``name_rouge``,
    ``text_bonus``, ``text_rouge``). ``sum(score * weight)`` is ``ShopR1Reward``'s total.
    """
    from rewardgym.wrappers.shop_r1 import truth_action

    parsed = parse_output(reply)
    paid = format_reward(parsed, config)
    terms = {
        "format": (1.0 if paid > 0 else 0.0, config.format_weight),
        "rationale": (0.0, config.alpha),
    }
    for part, scored in action_parts(parsed.action, truth_action(truth), config).items():
        terms[part] = scored
    return terms


class ShopConfig(vf.TasksetConfig):
    """Which logged steps become tasks, and the Shop-R1 reward that scores them."""

    data: str | None = None
    """Your own sessions: a JSONL or Parquet file in rewardgym's schema, or an OPeRA folder
    (rewardgym.envs.shopping.loaders); None replays the bundled synthetic corpus."""
    split: Literal["train", "validation", "test", "all"] = "test"
    """train, validation (held out of train, as `eval shop` and `bench shop` hold it), test, or
    all (every session: for your own `data`, which may be too small to split)."""
    sessions: int = 10
    """Sessions to replay, from the first; every logged step of each is a task."""
    reward: str = "full"
    """A Shop-R1 reward by name (rewardgym.wrappers.shop_r1.REWARDS): full, no-dars, binary, ..."""
    max_context_chars: int | None = None
    """Cut each step's session context to this many characters (the env's rule); None keeps it whole."""


class ShopData(vf.TaskData):
    """One logged step: the prompt, and in ``info`` the human's action and where it was logged."""

    info: dict[str, Any]
    """``truth`` (the human's action), ``session_id``, ``step`` and ``reward`` (the reward's name)."""


SHOP_TERMS = ("format", "rationale", "type", "name_bonus", "name_rouge", "text_bonus", "text_rouge")
"""Shop-R1's parts, each a reward function of :class:`ShopTask` by this name."""


class ShopTask(vf.Task[ShopData, vf.State, vf.TaskConfig]):
    """A task of ``rewardgym-shop``: one step of one logged session, each Shop-R1 part a reward function."""

    def share(self, trace: vf.Trace, term: str) -> float:
        """``term``'s share of Shop-R1's total for the trace's reply (0 when the human's action type has no such part)."""
        info = self.data.info
        terms = shop_r1_weighted_terms(
            trace.last_reply, info["truth"], reward_config(str(info["reward"]))
        )
        score, weight = terms.get(term, (0.0, 0.0))
        return score * weight

    @vf.reward
    async def format(self, trace: vf.Trace) -> float:
        """The format bonus (``format_weight`` when the reply is one well-formed JSON output)."""
        return self.share(trace, "format")

    @vf.reward
    async def rationale(self, trace: vf.Trace) -> float:
        """The self-certainty term: 0, no log-probabilities reach a verifiers env."""
        return self.share(trace, "rationale")

    @vf.reward
    async def type(self, trace: vf.Trace) -> float:
        """The action type's part (the exact match under a binary reward)."""
        return self.share(trace, "type")

    @vf.reward
    async def name_bonus(self, trace: vf.Trace) -> float:
        """The bonus for a non-blank element name."""
        return self.share(trace, "name_bonus")

    @vf.reward
    async def name_rouge(self, trace: vf.Trace) -> float:
        """The element name's thresholded ROUGE-L part."""
        return self.share(trace, "name_rouge")

    @vf.reward
    async def text_bonus(self, trace: vf.Trace) -> float:
        """The bonus for a non-blank typed text."""
        return self.share(trace, "text_bonus")

    @vf.reward
    async def text_rouge(self, trace: vf.Trace) -> float:
        """The typed text's thresholded ROUGE-L part."""
        return self.share(trace, "text_rouge")

    @vf.metric
    async def rationale_missing(self) -> float:
        """1: the reply comes without the log-probabilities self-certainty needs."""
        return 1.0


class ShopTaskset(vf.Taskset[ShopTask, ShopConfig]):
    """Every logged step of the first ``sessions`` sessions of the config's split of ``rewardgym/ShopSession-v0``."""

    def load(self) -> Iterator[ShopTask]:
        """Replay each session through the env, one task per step (the env steps along the log)."""
        from rewardgym.integrations.text_env import make_text_env

        config = self.config
        reward_config(config.reward)  # refuse an unknown name before any work
        if config.split == "all":
            env_split, positions = "all", None  # every session of the env's "all" split
        else:
            env_split, positions = split_sessions(
                config.data, config.split, validation_fraction=VALIDATION_FRACTION
            )
        env = make_text_env(
            SHOP_ID, data=config.data, split=env_split, max_context_chars=config.max_context_chars
        )
        try:
            chosen = positions or range(int(env.get_wrapper_attr("num_sessions")))
            for session in chosen[: config.sessions]:
                yield from self._session_tasks(env, session)
        finally:
            env.close()

    def _session_tasks(self, env: Any, session: int) -> Iterator[ShopTask]:
        """One task per logged step of the env's ``session``."""
        obs, info = env.reset(options={"session": session})
        done, step = False, 0
        session_id = str(info["session_id"])
        while not done:
            context = str(obs["context"])
            obs, _, terminated, truncated, step_info = env.step("")
            done = bool(terminated or truncated)
            yield ShopTask(
                ShopData(
                    name=f"{session_id}#{step}",
                    prompt=CONTEXT_HEADER + context + FOOTER,
                    system_prompt=INSTRUCTIONS.strip(),
                    info={
                        "truth": dict(step_info["truth"]),
                        "session_id": session_id,
                        "step": step,
                        "reward": self.config.reward,
                    },
                ),
                self.config.task,
            )
            step += 1


class PlayerEnvConfig(vf.EnvConfig):
    """The one agent, ``player``: the model under evaluation (every rewardgym taskset's env)."""

    player: vf.AgentConfig = vf.AgentConfig(runtime=SubprocessConfig())
    """The model under evaluation; its chat runs in this process (ChatHarness), so the runtime
    is only nominal: a local subprocess one, never a remote sandbox."""


class ShopEnv(vf.Env[PlayerEnvConfig]):
    """One task, one reply: the model answers the step's prompt once; the task's reward functions score it."""

    async def run(self, task: ShopTask, agents: Any) -> None:
        """Ask once; leaving the interaction scores the reply (:class:`ShopTask`)."""
        async with agents.player.interaction(task) as interaction:
            await interaction.turn()


class ChatHarness(vf.Harness[vf.HarnessConfig]):
    """A tool-less chat in this process: one chat-completions request through the interception per turn."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(
        self,
        ctx: ModelContext,
        trace: vf.Trace,
        runtime: Runtime,
        endpoint: str,
        secret: str,
        mcp_urls: dict[str, str],
        data: vf.TaskData,
        **_: Any,
    ) -> ProgramResult:
        """Send the conversation so far; the interception records the reply on the trace."""
        system, prompt = self.resolve_prompt(data)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        else:
            messages += [m.model_dump(exclude_none=True) for m in prompt or []]
        async with httpx.AsyncClient(timeout=CHAT_TIMEOUT_S) as client:
            response = await client.post(
                f"{endpoint.rstrip('/')}/chat/completions",
                headers={"Authorization": f"Bearer {secret}"},
                json={"model": ctx.model, "messages": messages},
            )
        if response.status_code != 200:
            return ProgramResult(exit_code=1, stdout="", stderr=response.text[-2000:])
        return ProgramResult(exit_code=0, stdout="", stderr="")


def environment_loader(taskset_id: str) -> Callable[..., vf.Env]:
    """The ``load_environment`` of the taskset ``taskset_id``'s module: its ``vf.Env``, as ``vf-eval`` builds it.

    The loader takes an env config (``vf.EnvConfig`` or its dict), or the taskset's fields as
    keyword arguments (``load_environment(sessions=2, split="validation")``), never both.
    """

    def load_environment(
        config: vf.EnvConfig | dict[str, Any] | None = None, **taskset: Any
    ) -> vf.Env:
        if config is not None and taskset:
            raise TypeError(
                f"load_environment({taskset_id!r}) takes an env config or the taskset's fields as "
                f"keywords, not both (got a config and {sorted(taskset)})"
            )
        if config is None:
            config = {"taskset": {**taskset, "id": taskset_id}}
        return vf.load_environment(resolve_env_config(config))

    load_environment.__doc__ = f"The ``{taskset_id}`` verifiers env: pass an env config, or the taskset's fields as keywords."
    return load_environment


__all__ = [
    "SHOP_TERMS",
    "ChatHarness",
    "PlayerEnvConfig",
    "ShopConfig",
    "ShopData",
    "ShopEnv",
    "ShopTask",
    "ShopTaskset",
    "environment_loader",
    "shop_r1_weighted_terms",
]
