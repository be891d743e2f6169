"""rewardgym as verifiers tasksets (``verifiers.v1``): ``rewardgym-shop``, one logged shopping step a task.

verifiers finds a taskset by id: ``rewardgym-shop`` imports the top-level module
``rewardgym_shop`` (installed beside the package, ``plugins/rewardgym_shop.py``), which
re-exports the classes here through ``__all__``: the :class:`ShopTaskset` (the taskset), the
:class:`ShopEnv` (how a task becomes an episode) and the :class:`ChatHarness` (how the model is
asked). ``vf-eval rewardgym-shop`` evaluates a model on it.

Each task is one step of a ``rewardgym/ShopSession-v0`` session: the prompt is Shop-R1's
(``rewardgym.agents.llm.prompt``: instructions as the system message, the session so far as the
user message), the model answers once, and its reply is scored against the human's logged action
with Shop-R1's reward as :mod:`rewardgym.wrappers.shop_r1` computes it. Every part of the reward
is recorded on the trace as ``trace.record_reward(name, score, weight)`` with its
``ShopR1Config`` weight (:func:`shop_r1_weighted_terms`), so the trace's reward, the sum of
``score * weight``, is ``ShopR1Reward``'s total for the same reply (to float rounding: the sum
runs over the parts in another order).

Self-certainty: the rationale term needs the policy's distribution over the whole vocabulary at
every rationale token. verifiers hands an env the reply's text; its traces carry at most the
sampled token's log-probability (and only under a training client), never the distribution, so
here the rationale term is recorded as 0 with the ``rationale_missing`` metric at 1, exactly as
``ShopR1Reward`` scores a reply that comes without log-probabilities.

:class:`ChatHarness` runs the chat in this process: one chat-completions request per turn
through the rollout's interception endpoint (verifiers' documented in-process harness contract),
so an evaluation needs no sandbox, container or ``uv``, only the model's OpenAI-compatible URL.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import verifiers.v1 as vf
from verifiers.v1.clients import ModelContext
from verifiers.v1.runtimes import ProgramResult, Runtime, SubprocessConfig

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

    split: str = "test"
    """The ShopSession-v0 split to replay (train, validation or test of the synthetic corpus)."""
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


class ShopTask(vf.Task[ShopData, vf.State, vf.TaskConfig]):
    """A task of ``rewardgym-shop``: one step of one logged session."""


class ShopTaskset(vf.Taskset[ShopTask, ShopConfig]):
    """Every logged step of the first ``sessions`` sessions of ``rewardgym/ShopSession-v0``."""

    def load(self) -> Iterator[ShopTask]:
        """Replay each session through the env, one task per step (the env steps along the log)."""
        from rewardgym.integrations.text_env import make_text_env

        reward_config(self.config.reward)  # refuse an unknown name before any work
        env = make_text_env(
            SHOP_ID, split=self.config.split, max_context_chars=self.config.max_context_chars
        )
        sessions = min(self.config.sessions, int(env.get_wrapper_attr("num_sessions")))
        for session in range(sessions):
            obs, info = env.reset(options={"session": session})
            done, step = False, 0
            while not done:
                context = str(obs["context"])
                obs, _, terminated, truncated, step_info = env.step("")
                done = bool(terminated or truncated)
                session_id = str(info["session_id"])
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
        env.close()


class PlayerEnvConfig(vf.EnvConfig):
    """The one agent, ``player``: the model under evaluation (every rewardgym taskset's env)."""

    player: vf.AgentConfig = vf.AgentConfig(runtime=SubprocessConfig())
    """The model under evaluation; its chat runs in this process (ChatHarness), so the runtime
    is only nominal: a local subprocess one, never a remote sandbox."""


class ShopEnv(vf.Env[PlayerEnvConfig]):
    """One task, one reply: the model answers the step's prompt once and Shop-R1 scores it."""

    async def run(self, task: ShopTask, agents: Any) -> None:
        """Ask once, then record every weighted term and the wrapper's flags on the trace."""
        async with agents.player.interaction(task) as interaction:
            segment = await interaction.turn()
            reply = "" if segment.terminated else segment.last_reply
        trace = interaction.trace
        info = task.data.info
        config = reward_config(str(info["reward"]))
        for name, (score, weight) in shop_r1_weighted_terms(reply, info["truth"], config).items():
            trace.record_reward(name, score, weight)
        trace.record_metric("rationale_missing", 1.0)


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


__all__ = [
    "ChatHarness",
    "PlayerEnvConfig",
    "ShopConfig",
    "ShopData",
    "ShopEnv",
    "ShopTask",
    "ShopTaskset",
    "shop_r1_weighted_terms",
]
