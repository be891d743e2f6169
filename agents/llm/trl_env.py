"""The shopping envs as TRL ``environment_factory`` environments: actions are tool calls.

TRL 1.16's ``GRPOTrainer(environment_factory=F)`` calls ``F()`` (no arguments) once per rollout
and reuses the instances across batches; at each rollout it calls ``reset(**row)`` with every
column of the dataset row (``prompt`` included) and appends the string ``reset`` returns to the
prompt's last user message. Every public method of the class other than ``reset`` and
``get_reward`` becomes a tool: transformers builds its JSON schema from the type hints and the
Google-style docstring, the prompt lists it through the tokenizer's chat template, the model's
tool calls (read by the tokenizer's response template) run it, and its return value goes back
to the model as a tool message. ``get_reward()`` scores the finished rollout; TRL adds it to the
reward functions with weight 1 and logs it under the class name. A ``gym.Env`` passed as it is
would expose ``step``, ``render`` and ``close`` as tools and return a tuple from ``reset``.

:class:`ShopStoreTools` plays a visit of ``rewardgym/ShopStore-v0`` over several turns (each
tool call acts on the live store), :class:`ShopSessionTools` replays a logged session of
``rewardgym/ShopSession-v0`` (each tool call is scored against the human's logged step, then
the session moves to the human's next step). The tools are the paper's three actions,
``click(name)``, ``type_and_submit(name, text)`` and ``terminate()``, each with an optional
first-person ``rationale``; a call becomes the canonical JSON output that ``step`` takes, so
the reward is the wrapper stack's (``ShopR1Reward`` by default, ``BinaryMatchReward`` or any
wrapper through ``wrapper``), summed over the rollout's steps. A rollout without a tool call
earns 0, as an output that does not parse does. A call whose argument is not text (a null
``name``, a number for ``rationale``) steps nothing: its answer is an error message that says
so, as TRL's own answer to a failed call is, and the model may call again; ``reset`` and the
row builders refuse a session, step or intent that is not an integer in range. The
self-certainty term of Shop-R1 needs the policy's logits, which TRL does not hand to an environment: it is 0 here
(``reward_terms["rationale_missing"]`` = 1); train through ``rollout_func``
(:func:`~rewardgym.agents.llm.grpo.train_grpo`) to pay it. :func:`store_rows`,
:func:`session_rows` and :func:`tool_sft_rows` build the datasets.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import gymnasium as gym

from rewardgym.agents.llm.dataset import DataArg
from rewardgym.agents.llm.prompt import CONTEXT_HEADER
from rewardgym.agents.llm.rewards import WrapperFactory
from rewardgym.envs import SHOP_SESSION_ID, SHOP_STORE_ID
from rewardgym.envs.conventions import brief
from rewardgym.envs.shopping.compact import compact_page
from rewardgym.envs.shopping.live.env import INTENT_RANGE
from rewardgym.envs.shopping.parsing import format_output
from rewardgym.envs.shopping.schema import ActionType, ShopAction
from rewardgym.envs.shopping.session_sources import Split
from rewardgym.envs.spaces import discrete_index

if TYPE_CHECKING:
    from datasets import Dataset
    from transformers import PreTrainedTokenizerBase

TOOL_INSTRUCTIONS = (
    "You simulate a human shopper. Every usable element of a page has a unique name, shown as "
    "[name]. At each step call exactly one tool, the shopper's next action: click(name), "
    "type_and_submit(name, text) or terminate(), with the shopper's rationale as one "
    "first-person sentence."
)
"""The system message of :func:`store_rows` and :func:`session_rows`."""
TOOL_FOOTER = "\n# Next step: call one tool\n"
OVER = "The episode is over: no further action is taken. Reply without calling a tool."
BAD_ARGUMENTS = (
    "Error: {tool} takes text (strings) as its arguments, got {wrong}. Nothing was done; "
    "call a tool again with string arguments."
)
"""The answer to a tool call whose arguments are not all text (the env is not stepped)."""


class _ShopTools(ABC):
    """The tools and the reward shared by both adapters; subclasses say what a step shows."""

    def __init__(self, env: gym.Env, wrapper: WrapperFactory | None) -> None:
        from rewardgym.wrappers import ShopR1Reward

        self.env = (wrapper or ShopR1Reward)(env)
        self.rewards: list[float] = []
        """The wrapper stack's reward of each step of the current rollout."""
        self.infos: list[dict[str, Any]] = []
        """Each step's info (``reward_terms``, ``truth``, ``exact_match``, ...)."""
        self.done = False

    def click(self, name: str, rationale: str = "") -> str:
        """Click an element of the current page.

        Args:
            name: The element's name, as the page shows it in brackets.
            rationale: Why the shopper does this, in one first-person sentence.

        Returns:
            What the shopper sees next.
        """
        return self._act("click", rationale, name=name)

    def type_and_submit(self, name: str, text: str, rationale: str = "") -> str:
        """Type text into an input of the current page (the search box) and submit it.

        Args:
            name: The input's name, as the page shows it in brackets.
            text: The text typed.
            rationale: Why the shopper does this, in one first-person sentence.

        Returns:
            What the shopper sees next.
        """
        return self._act("type_and_submit", rationale, name=name, text=text)

    def terminate(self, rationale: str = "") -> str:
        """End the visit.

        Args:
            rationale: Why the shopper leaves, in one first-person sentence.

        Returns:
            A confirmation that the visit ended.
        """
        return self._act("terminate", rationale)

    def get_reward(self) -> float:
        """The rollout's return: the wrapper stack's rewards summed over its steps (0 without one)."""
        return float(sum(self.rewards))

    def _start(self) -> None:
        self.rewards, self.infos, self.done = [], [], False

    def _act(self, tool: ActionType, rationale: Any, **fields: Any) -> str:
        """Step the env with the call's action, or answer what was wrong with its arguments."""
        if self.done:
            return OVER
        wrong = [
            f"{key}={brief(value)} ({type(value).__name__})"
            for key, value in {**fields, "rationale": rationale}.items()
            if not isinstance(value, str)
        ]
        if wrong:
            return BAD_ARGUMENTS.format(tool=tool, wrong=", ".join(wrong))
        text = format_output(rationale, ShopAction(tool, **fields))
        obs, reward, terminated, truncated, info = self.env.step(text)
        self.rewards.append(float(reward))
        self.infos.append(info)
        return self._after(obs, info, terminated or truncated)

    @abstractmethod
    def _after(self, obs: Mapping[str, Any], info: Mapping[str, Any], ended: bool) -> str:
        """The tool's answer after a step: what the model sees next."""

    def _page(self, obs: Mapping[str, Any], number: int) -> str:
        page = str(obs["page"])
        unwrapped = self.env.unwrapped
        if getattr(unwrapped, "context_mode", "compact") == "compact":
            page = compact_page(page, ids=bool(getattr(unwrapped, "element_ids", False)))
        return f"Step {number} page:\n{page}\n"


class ShopStoreTools(_ShopTools):
    """``rewardgym/ShopStore-v0`` for TRL's ``environment_factory``: a multi-turn visit of the live store.

    ``reset(intent=i)`` (the row's ``intent`` column, :func:`store_rows`) opens visit ``i``;
    its text is the context the env builds (by default the compact session, the shopper's first
    step given). Each tool call acts on the store and answers with the page it leads to (only
    that page: the conversation already holds the earlier ones), or with the store's note when
    nothing happened; ``terminate`` or the env's step limit ends the visit. Each step earns the
    wrapper stack's reward against the ground-truth shopper's choice in the state reached.

    ``wrapper`` wraps the env (None: ``ShopR1Reward``); ``env_kwargs`` go to ``gym.make``
    (defaults ``opening="first_step"``, ``context="compact"``). With ``functools.partial`` the
    class is the factory: ``environment_factory=partial(ShopStoreTools, BinaryMatchReward)``.
    """

    def __init__(
        self, wrapper: WrapperFactory | None = None, env_kwargs: Mapping[str, Any] | None = None
    ) -> None:
        kwargs = {"opening": "first_step", "context": "compact", **dict(env_kwargs or {})}
        super().__init__(gym.make(SHOP_STORE_ID, **kwargs), wrapper)

    def reset(self, **row: Any) -> str:
        """Open visit ``row["intent"]``; the text the prompt's last user message is extended by."""
        intent = row.get("intent")
        if intent is None:
            raise KeyError(
                "ShopStoreTools.reset needs the row's 'intent' (the visit to open); build the "
                f"dataset with store_rows(...) (the row has {sorted(row)})"
            )
        chosen = discrete_index(
            intent, INTENT_RANGE, what="ShopStoreTools.reset: the row's 'intent'", unit="intent"
        )
        self._start()
        obs, _ = self.env.reset(options={"intent": chosen})
        return CONTEXT_HEADER + str(obs["context"]) + TOOL_FOOTER

    def _after(self, obs: Mapping[str, Any], info: Mapping[str, Any], ended: bool) -> str:
        if ended:
            self.done = True
            return "The visit is over."
        prefix = "" if info.get("applied", True) else f"Nothing happened: {info.get('note')}\n"
        return prefix + self._page(obs, int(info["step"]) + 1)


class ShopSessionTools(_ShopTools):
    """``rewardgym/ShopSession-v0`` for TRL's ``environment_factory``: a logged session, one turn per logged step.

    ``reset(session=s, step=j)`` (the row's columns, :func:`session_rows`) replays session
    ``s`` of ``split`` up to its step ``j`` (the human's earlier steps, teacher forcing); its
    text is the context the env builds there. Each tool call is scored against the human's step
    ``j``; the session then moves to the human's next step, and the tool's answer says what the
    human did and shows the next page. After ``turns`` scored steps (default 1: Shop-R1's RL
    data, one ``<context, action>`` pair per rollout; None: to the session's end) the rollout
    is over. ``wrapper`` and ``env_kwargs`` (defaults ``context="compact"``) as in
    :class:`ShopStoreTools`.
    """

    def __init__(
        self,
        wrapper: WrapperFactory | None = None,
        data: DataArg = None,
        split: Split = "train",
        env_kwargs: Mapping[str, Any] | None = None,
        turns: int | None = 1,
    ) -> None:
        if turns is not None and (isinstance(turns, bool) or turns < 1):
            raise ValueError(f"ShopSessionTools.turns must be None or an int >= 1, got {turns!r}")
        kwargs = {"context": "compact", **dict(env_kwargs or {})}
        super().__init__(gym.make(SHOP_SESSION_ID, data=data, split=split, **kwargs), wrapper)
        self.turns = turns

    def reset(self, **row: Any) -> str:
        """Replay session ``row["session"]`` to its step ``row.get("step", 0)``; the prompt's text."""
        if row.get("session") is None:
            raise KeyError(
                "ShopSessionTools.reset needs the row's 'session' (and 'step'); build the "
                f"dataset with session_rows(...) (the row has {sorted(row)})"
            )
        self._start()
        session, step = row["session"], row.get("step")
        obs, info = self.env.reset(options={"session": session})
        n_steps = int(info["n_steps"])
        what = f"ShopSessionTools.reset: the row's 'step' (session {session} has {n_steps} steps)"
        skip = 0 if step is None else discrete_index(step, n_steps, what=what, unit="step")
        for _ in range(skip):
            obs, *_ = self.env.step("")
        return CONTEXT_HEADER + str(obs["context"]) + TOOL_FOOTER

    def _after(self, obs: Mapping[str, Any], info: Mapping[str, Any], ended: bool) -> str:
        truth = ShopAction(**info["truth"])
        did = format_output(str(info.get("truth_rationale") or ""), truth)
        self.done = ended or (self.turns is not None and len(self.rewards) >= self.turns)
        if self.done:
            return f"The shopper did: {did}\nThe episode is over."
        return f"The shopper did: {did}\n" + self._page(obs, int(info["step"]) + 2)


def _prompt(system: str | None) -> list[dict[str, str]]:
    messages = [{"role": "user", "content": ""}]
    return [{"role": "system", "content": system}, *messages] if system else messages


def store_rows(intents: int | Sequence[int], system: str | None = TOOL_INSTRUCTIONS) -> Dataset:
    """Rows for :class:`ShopStoreTools`: a conversational ``prompt`` and an ``intent`` each.

    ``intents`` is a count (intents ``0 .. n - 1``) or the intents themselves. The prompt is
    the ``system`` message and an empty user message that ``reset`` fills with the visit.
    """
    from datasets import Dataset

    if isinstance(intents, int):
        if isinstance(intents, bool) or not 1 <= intents <= INTENT_RANGE:
            raise ValueError(f"store_rows: intents={intents!r}: use a count in 1..{INTENT_RANGE}")
        chosen = list(range(intents))
    else:
        chosen = [
            discrete_index(i, INTENT_RANGE, what=f"store_rows: intents[{k}]", unit="intent")
            for k, i in enumerate(intents)
        ]
    return Dataset.from_list([{"prompt": _prompt(system), "intent": i} for i in chosen])


def _steps(data: DataArg, split: Split, sessions: Sequence[int] | None) -> list[tuple[int, int]]:
    from rewardgym.envs.shopping.session_sources import resolve_sessions

    log, positions = resolve_sessions(data, split)
    n = len(positions)
    chosen = (
        range(n)
        if sessions is None
        else [
            discrete_index(
                s,
                n,
                what=f"sessions[{k}] (the {split!r} split has {n} sessions)",
                unit="session position",
            )
            for k, s in enumerate(sessions)
        ]
    )
    return [(s, j) for s in chosen for j in range(log.session_length(positions[s]))]


def session_rows(
    data: DataArg = None,
    split: Split = "train",
    sessions: Sequence[int] | None = None,
    system: str | None = TOOL_INSTRUCTIONS,
) -> Dataset:
    """Rows for :class:`ShopSessionTools`: ``prompt``, ``session`` and ``step``, one per logged step.

    ``sessions`` are positions in the env's ``split`` (all of them by default).
    """
    from datasets import Dataset

    rows = [
        {"prompt": _prompt(system), "session": s, "step": j}
        for s, j in _steps(data, split, sessions)
    ]
    return Dataset.from_list(rows)


def tool_call(action: ShopAction, rationale: str | None = None) -> dict[str, Any]:
    """The assistant message that calls the tool of ``action`` (with ``rationale`` when given)."""
    arguments: dict[str, str] = {}
    if action.type != "terminate":
        arguments["name"] = action.name
    if action.type == "type_and_submit":
        arguments["text"] = action.text
    if rationale:
        arguments["rationale"] = rationale
    call = {"type": "function", "function": {"name": action.type, "arguments": arguments}}
    return {"role": "assistant", "content": "", "tool_calls": [call]}


def tool_schemas() -> list[dict[str, Any]]:
    """The JSON schemas of the three tools, as transformers builds them from the docstrings."""
    from transformers.utils import get_json_schema

    tools: list[Callable[..., str]] = [
        _ShopTools.click,
        _ShopTools.type_and_submit,
        _ShopTools.terminate,
    ]
    return [get_json_schema(tool) for tool in tools]


def tool_sft_rows(
    tokenizer: PreTrainedTokenizerBase,
    data: DataArg = None,
    split: Split = "train",
    sessions: Sequence[int] | None = None,
    env_kwargs: Mapping[str, Any] | None = None,
    rationale: bool = True,
    system: str | None = TOOL_INSTRUCTIONS,
) -> Dataset:
    """Prompt-completion SFT rows that teach a model the tool calls: the cold start before GRPO.

    One row per logged step of ``sessions``: ``prompt`` (what :class:`ShopSessionTools` shows
    at that step, with the tool schemas, through ``tokenizer``'s chat template) and
    ``completion`` (the assistant's call of the human's action, with the human's rationale when
    ``rationale``, ending with the turn's end token), ``session`` and ``step``. Both are text, the
    format :func:`~rewardgym.agents.llm.sft.train_sft` reads (TRL masks the prompt out of the
    loss). Rendered here rather than left to TRL as messages, because a ``datasets`` column
    would give every tool call the union of the tools' arguments (``"text": null`` in a click).
    """
    from datasets import Dataset

    env = ShopSessionTools(data=data, split=split, env_kwargs=env_kwargs, turns=None)
    tools: list[dict[Any, Any] | Callable[..., Any]] = [*tool_schemas()]
    rows: list[dict[str, Any]] = []
    text = ""
    for s, j in _steps(data, split, sessions):
        if j == 0:
            text = env.reset(session=s)
        obs, _, _, _, info = env.env.step("")
        said = str(info.get("truth_rationale") or "") if rationale else None
        prompt = _prompt(system)
        prompt[-1] = {"role": "user", "content": text}
        head = str(
            tokenizer.apply_chat_template(
                prompt, tools=tools, tokenize=False, add_generation_prompt=True
            )
        )
        whole = str(
            tokenizer.apply_chat_template(
                [*prompt, tool_call(ShopAction(**info["truth"]), said)], tools=tools, tokenize=False
            )
        )
        if not whole.startswith(head):
            raise ValueError(
                "the tokenizer's chat template renders the prompt differently once the answer "
                "follows (not prefix-preserving); TRL's tool calling needs one that is"
            )
        completion = whole[len(head) :].rstrip()
        rows.append({"prompt": head, "completion": completion, "session": s, "step": j})
        text = CONTEXT_HEADER + str(obs["context"]) + TOOL_FOOTER
    env.env.close()
    return Dataset.from_list(rows)


__all__ = [
    "BAD_ARGUMENTS",
    "OVER",
    "TOOL_FOOTER",
    "TOOL_INSTRUCTIONS",
    "ShopSessionTools",
    "ShopStoreTools",
    "session_rows",
    "store_rows",
    "tool_call",
    "tool_schemas",
    "tool_sft_rows",
]
