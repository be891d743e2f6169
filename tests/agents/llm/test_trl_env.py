"""The shop envs as TRL ``environment_factory`` environments: tools step the env, TRL trains through them."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
import torch

from rewardgym.agents.llm.config import ModelConfig
from rewardgym.agents.llm.model import build_model, load_model, load_tokenizer, save_model
from rewardgym.agents.llm.prompt import TokenCounter
from rewardgym.agents.llm.tool_chat import tool_chat_model
from rewardgym.agents.llm.trl_env import (
    OVER,
    TOOL_INSTRUCTIONS,
    ShopSessionTools,
    ShopStoreTools,
    session_rows,
    store_rows,
    tool_call,
    tool_schemas,
    tool_sft_rows,
)
from rewardgym.envs import SHOP_SESSION_ID, SHOP_STORE_ID
from rewardgym.envs.shopping.parsing import format_output
from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.wrappers import BinaryMatchReward, ShopR1Config, ShopR1Reward

TOOLS = ["click", "terminate", "type_and_submit"]
CONTEXT_TOKENS = 64


def _truth(info: dict[str, Any]) -> ShopAction:
    return ShopAction(**info["truth"])


def _call(tools: Any, action: ShopAction) -> str:
    """Call the tool of ``action``, as TRL calls it from a parsed tool call."""
    if action.type == "terminate":
        return str(tools.terminate())
    if action.type == "click":
        return str(tools.click(action.name))
    return str(tools.type_and_submit(action.name, action.text))


def test_trl_finds_the_three_tools_and_the_reward() -> None:
    """What TRL's trainer reads off the class: public functions but reset/get_reward are tools."""
    import inspect

    for cls in (ShopStoreTools, ShopSessionTools):
        names = [n for n, _ in inspect.getmembers(cls, predicate=inspect.isfunction)]
        public = sorted(n for n in names if not n.startswith("_"))
        assert public == sorted([*TOOLS, "get_reward", "reset"])


def test_store_tools_act_on_the_live_store() -> None:
    tools = ShopStoreTools()
    text = tools.reset(intent=3, prompt=[{"role": "user", "content": ""}])
    reference = gym.make(SHOP_STORE_ID, opening="first_step", context="compact")
    obs, info = reference.reset(options={"intent": 3})
    assert str(obs["context"]) in text and text.endswith("call one tool\n")
    truth = _truth(info)
    answer = tools.click(truth.name, "I want a closer look.")
    expected = ShopR1Reward(reference).step(format_output("I want a closer look.", truth))
    assert tools.rewards == [expected[1]] and tools.rewards[0] > 1000  # DARS pays the name
    assert answer.startswith("Step 3 page:") and "Step 1" not in answer
    assert "Nothing happened" in tools.click("no_such_element")
    assert len(tools.rewards) == 2 and tools.infos[1]["applied"] is False
    assert tools.terminate() == "The visit is over."
    assert tools.click(truth.name) == OVER and len(tools.rewards) == 3
    assert tools.get_reward() == pytest.approx(sum(tools.rewards))
    tools.reset(intent=3)
    assert tools.rewards == [] and tools.get_reward() == 0.0  # a rollout without a call earns 0
    with pytest.raises(KeyError, match="store_rows"):
        tools.reset(prompt=[])


def test_binary_reward_through_the_wrapper_argument() -> None:
    for wrapper in (
        BinaryMatchReward,
        functools.partial(ShopR1Reward, config=ShopR1Config.binary_baseline()),
    ):
        tools = ShopStoreTools(wrapper)
        tools.reset(intent=5)
        _, info = gym.make(SHOP_STORE_ID, opening="first_step").reset(options={"intent": 5})
        _call(tools, _truth(info))
        _call(tools, ShopAction("click", name="no_such_element"))
        assert tools.rewards[0] == 1.0 and tools.get_reward() == 1.0


def test_session_tools_score_each_logged_step(shop_store: Path) -> None:
    tools = ShopSessionTools(data=shop_store)
    env = ShopR1Reward(gym.make(SHOP_SESSION_ID, data=shop_store, context="compact"))
    obs, _ = env.reset(options={"session": 1})
    obs, _, _, _, _ = env.step("")
    text = tools.reset(session=1, step=1)
    assert str(obs["context"]) in text
    _, reward, _, _, info = env.step(format_output("", ShopAction("terminate")))
    answer = tools.terminate()
    assert tools.rewards == [reward] and "The shopper did:" in answer and "over" in answer
    assert tools.infos[0]["truth"] == info["truth"]
    assert tools.terminate() == OVER and len(tools.rewards) == 1  # one turn per logged step
    whole = ShopSessionTools(BinaryMatchReward, data=shop_store, turns=None)
    whole.reset(session=1)
    steps = session_rows(shop_store, sessions=[1])
    for _ in range(len(steps)):
        answer = whole.terminate()
    assert answer.endswith("The episode is over.") and len(whole.rewards) == len(steps)
    assert whole.get_reward() == sum(float(i["exact_match"]) for i in whole.infos)
    with pytest.raises(ValueError, match="turns"):
        ShopSessionTools(data=shop_store, turns=0)


def test_rows_carry_what_reset_reads(shop_store: Path) -> None:
    rows = store_rows(3)
    assert rows["intent"] == [0, 1, 2] and rows[0]["prompt"][0]["role"] == "system"
    steps = session_rows(shop_store, sessions=[0, 2])
    assert steps[0]["session"] == 0 and steps[0]["step"] == 0
    assert sorted(set(steps["session"])) == [0, 2]


def test_a_call_whose_arguments_are_not_text_steps_nothing() -> None:
    """Issue 39, item 18: ``click(name=None)`` clicked "None" and ``rationale=None`` said "None"."""
    tools = ShopStoreTools(BinaryMatchReward)
    tools.reset(intent=3)
    answers = [
        tools.click(None),  # type: ignore[arg-type]
        tools.click("search_input", rationale=None),  # type: ignore[arg-type]
        tools.type_and_submit("search_input", 5),  # type: ignore[arg-type]
        tools.terminate(rationale=["I am done."]),  # type: ignore[arg-type]
    ]
    assert all(a.startswith("Error: ") and "Nothing was done" in a for a in answers)
    assert "got name=None (NoneType)" in answers[0] and "got text=5 (int)" in answers[2]
    assert tools.rewards == [] and tools.infos == [] and not tools.done
    assert tools.terminate("I am done.") == "The visit is over." and len(tools.rewards) == 1


def test_rows_and_resets_refuse_positions_that_are_not_integers_in_range(
    shop_store: Path,
) -> None:
    """Issue 39, item 18: ``intent=1.7`` opened visit 1, ``step=-3`` step 0, ``[-1]`` the last session."""
    store = ShopStoreTools()
    for intent in (1.7, -1, "2", True):
        with pytest.raises(ValueError, match=r"ShopStoreTools\.reset: the row's 'intent'"):
            store.reset(intent=intent)
    session = ShopSessionTools(data=shop_store)
    for step in (-3, 1.5, 10**6):
        with pytest.raises(ValueError, match=r"ShopSessionTools\.reset: the row's 'step'"):
            session.reset(session=0, step=step)
    with pytest.raises(ValueError, match=r"options\['session'\].* 0\.5 is not an integer"):
        session.reset(session=0.5)
    for sessions in ([-1], [0.5]):
        with pytest.raises(ValueError, match=r"sessions\[0\] \(the 'train' split has"):
            session_rows(shop_store, sessions=sessions)
    for intents in (0, [1.5], [-1]):
        with pytest.raises(ValueError, match="store_rows: intents"):
            store_rows(intents)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def chat_model(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer, width-64 model over the tiny tokenizer, with TRL's Qwen2.5 tool template.

    One layer of width 32 (the tiny preset) does not learn the call syntax in a test's budget.
    """
    tokenizer = load_tokenizer(tiny_model)
    config = ModelConfig(
        hidden_size=64, num_layers=2, num_heads=4, num_kv_heads=2, intermediate_size=128
    )
    base = save_model(build_model(config, tokenizer), tokenizer, tmp_path_factory.mktemp("base"))
    return tool_chat_model(base, tmp_path_factory.mktemp("chat"), max_positions=2048)


def test_tool_chat_model_is_what_trl_needs(
    chat_model: Path, tiny_model: Path, tmp_path: Path
) -> None:
    from trl.chat_template_utils import is_chat_template_prefix_preserving, supports_tool_calling

    tokenizer = load_tokenizer(chat_model)
    assert supports_tool_calling(tokenizer) and is_chat_template_prefix_preserving(tokenizer)
    assert tokenizer.eos_token == "<|im_end|>" and tokenizer.pad_token == "<|endoftext|>"
    assert not supports_tool_calling(load_tokenizer(tiny_model))
    with pytest.raises(ValueError, match="already has a chat template"):
        tool_chat_model(chat_model, tmp_path / "again")


def _env_kwargs(model: Path) -> dict[str, Any]:
    return {
        "max_context_tokens": CONTEXT_TOKENS,
        "count_tokens": TokenCounter(load_tokenizer(model)),
    }


def test_sft_rows_parse_back_to_the_human_action(chat_model: Path, shop_store: Path) -> None:
    from trl.chat_template_utils import add_response_schema, parse_response

    tokenizer = add_response_schema(load_tokenizer(chat_model))
    rows = tool_sft_rows(tokenizer, shop_store, sessions=[0], env_kwargs=_env_kwargs(chat_model))
    env = gym.make(SHOP_SESSION_ID, data=shop_store)
    env.reset(options={"session": 0})
    for row in rows:
        info = env.step("")[-1]
        ids = tokenizer(row["completion"], add_special_tokens=False)["input_ids"]
        prefix = tokenizer(row["prompt"], add_special_tokens=False)["input_ids"]
        (call,) = parse_response(tokenizer, ids, prefix=prefix)["tool_calls"]
        arguments = call["function"]["arguments"]
        truth = _truth(info)
        assert call["function"]["name"] == truth.type
        assert arguments.get("name", "") == truth.name and arguments.get("text", "") == truth.text
        assert arguments["rationale"] == info["truth_rationale"]
        assert "<tools>" in row["prompt"] and row["completion"].endswith("<|im_end|>")


DECOY = ShopAction("click", name="no_such_element")
"""The second answer of every opening: a click the page cannot take (it steps, and earns less)."""
COLD_START_STEPS = 1000
"""At most this many SFT steps (checked every 50 from the 100th) before the cold start fails."""


def _render(tokenizer: Any, text: str, answer: ShopAction) -> tuple[str, str]:
    """The prompt TRL renders for a rollout whose env opened with ``text``, and the call of ``answer``."""
    messages = [
        {"role": "system", "content": TOOL_INSTRUCTIONS},
        {"role": "user", "content": text},
    ]
    tools = tool_schemas()
    head = tokenizer.apply_chat_template(
        messages, tools=tools, tokenize=False, add_generation_prompt=True
    )
    whole = tokenizer.apply_chat_template(
        [*messages, tool_call(answer)], tools=tools, tokenize=False
    )
    return str(head), str(whole)[len(head) :].rstrip()


def _cold_start_pairs(tokenizer: Any, shop_store: Path, kwargs: dict[str, Any]) -> list[Any]:
    """Prompt-completion pairs over the GRPO runs' own openings: each prompt twice, answered by a
    click of the element the human (or the ground-truth shopper) acted on and by :data:`DECOY`.

    Every answer is the same call, ``click(name)``, so the call syntax is one fixed frame a small
    model learns on any CPU; only the name varies, at random between the two, so a group's
    rollouts earn different rewards. (Answers with different tools made the model blend them:
    ``terminate`` with a name, ``click`` without one, calls TRL cannot run.)
    """
    openings: list[tuple[str, ShopAction]] = []
    session = ShopSessionTools(data=shop_store, env_kwargs=kwargs, turns=None)
    for row in session_rows(shop_store, sessions=[0, 1]).select(range(6)):
        openings.append((session.reset(**row), _truth(session.env.step("")[-1])))
    store = ShopStoreTools(env_kwargs=kwargs)
    for intent in (3, 5):
        text = store.reset(intent=intent)
        openings.append((text, _truth(store.env.reset(options={"intent": intent})[1])))
    pairs = []
    for text, truth in openings:
        for answer in (ShopAction("click", name=truth.name or "search_input"), DECOY):
            prompt, completion = _render(tokenizer, text, answer)
            pairs.append(
                [tokenizer(t, add_special_tokens=False)["input_ids"] for t in (prompt, completion)]
            )
    return pairs


def _steps_the_env(call: dict[str, Any]) -> bool:
    """Whether TRL would run ``call`` without an error: one of the tools, with its arguments as text."""
    import inspect

    name, arguments = call["function"]["name"], call["function"].get("arguments")
    if name not in TOOLS or not isinstance(arguments, dict):
        return False
    try:
        inspect.signature(getattr(ShopSessionTools, name)).bind(None, **arguments)
    except TypeError:
        return False  # a missing or unknown argument: TRL counts the call as a failure
    return all(isinstance(value, str) for value in arguments.values())


def _calls_a_tool(model: Any, parser: Any, prompts: list[list[int]]) -> bool:
    """Whether four samples at GRPO's temperature from every prompt are each one tool call that
    steps the env (parsed, a known tool, the arguments it takes)."""
    from trl.chat_template_utils import parse_response

    model.eval()
    try:
        with torch.no_grad():
            for prompt in prompts:
                out = model.generate(
                    torch.tensor([prompt] * 4),
                    do_sample=True,
                    temperature=0.8,
                    max_new_tokens=48,
                    pad_token_id=parser.pad_token_id,
                )
                for ids in out[:, len(prompt) :].tolist():
                    try:
                        calls = parse_response(parser, ids, prefix=prompt).get("tool_calls") or []
                    except Exception:
                        return False
                    if len(calls) != 1 or not _steps_the_env(calls[0]):
                        return False
        return True
    finally:
        model.train()


@pytest.fixture(scope="module")
def tool_policy(chat_model: Path, shop_store: Path, tmp_path_factory) -> Path:
    """The chat model after a tool-call SFT cold start that is trained until it holds.

    A plain loop (constant rate, loss on the completion's positions only) on the GRPO runs' own
    openings, each answered by the right call and by ``terminate()``; it stops once samples at
    GRPO's temperature from every opening parse as a tool call. A fixed number of steps made
    this depend on the CPU's floating point: on an Intel Xeon the policy never called a tool.
    """
    from trl.chat_template_utils import add_response_schema

    model, tokenizer = load_model(chat_model)
    parser = add_response_schema(load_tokenizer(chat_model))
    pairs = _cold_start_pairs(tokenizer, shop_store, _env_kwargs(chat_model))
    prompts = [prompt for prompt, _ in pairs[::2]]
    torch.manual_seed(0)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3)
    for step in range(1, COLD_START_STEPS + 1):
        prompt, completion = pairs[step % len(pairs)]
        hidden = model.model(input_ids=torch.tensor([prompt + completion])).last_hidden_state
        logits = model.lm_head(hidden[0, len(prompt) - 1 : -1])
        torch.nn.functional.cross_entropy(logits, torch.tensor(completion)).backward()
        optimizer.step()
        optimizer.zero_grad()
        if step >= 100 and step % 50 == 0 and _calls_a_tool(model, parser, prompts):
            return save_model(model, tokenizer, tmp_path_factory.mktemp("tool-sft"))
    raise AssertionError(f"the cold start did not learn the call syntax in {step} steps")


def _grpo(policy: Path, factory: Any, rows: Any, out: Path, tool_turns: int) -> Any:
    from trl import GRPOConfig, GRPOTrainer

    args = GRPOConfig(
        output_dir=str(out),
        max_steps=2,
        learning_rate=1e-3,
        beta=0.0,
        num_generations=2,
        per_device_train_batch_size=4,
        max_completion_length=48,
        max_tool_calling_iterations=tool_turns,
        temperature=0.8,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        use_cpu=True,
        bf16=False,
        disable_tqdm=True,
        seed=0,
        model_init_kwargs={"dtype": "float32"},
    )
    return GRPOTrainer(
        model=str(policy),
        args=args,
        train_dataset=rows,
        processing_class=load_tokenizer(policy),
        environment_factory=factory,
    )


def _trains(trainer: Any, name: str) -> list[Any]:
    """Train; the env instances TRL pooled. Weights must move exactly when a group's rewards
    differed (GRPO's advantages are then not all zero)."""
    before = [p.detach().clone() for p in trainer.model.parameters()]
    trainer.train()
    logs = [r for r in trainer.state.log_history if f"rewards/{name}/mean" in r]
    assert len(logs) == 2, trainer.state.log_history
    assert sum(r["tools/call_frequency"] for r in logs) > 0  # the policy called the tools
    after = trainer.model.parameters()
    moved = any(not torch.equal(a, b) for a, b in zip(before, after, strict=True))
    # GRPO's advantages are all zero exactly when every group's rewards are equal, and then
    # (AdamW, no weight decay) no weight moves; a group whose rewards differ moves some.
    assert moved == any(r["frac_reward_zero_std"] < 1.0 for r in logs), logs
    return trainer._environment_pool[None]


STEPS: list[str] = []
"""One entry (the class name) per env step of any rollout: TRL resets its instances per batch."""


class _Counted:
    """Records each env step a tool call takes."""

    rewards: list[float]

    def _act(self, tool: str, rationale: Any, **fields: Any) -> str:
        before = len(self.rewards)
        answer = super()._act(tool, rationale, **fields)  # type: ignore[misc]
        STEPS.extend([type(self).__name__] * (len(self.rewards) - before))
        return str(answer)


class CountedStore(_Counted, ShopStoreTools):
    """ShopStoreTools, counted."""


class CountedSession(_Counted, ShopSessionTools):
    """ShopSessionTools, counted."""


def test_grpo_trains_through_environment_factory(
    tool_policy: Path, shop_store: Path, tmp_path: Path
) -> None:
    policy_kwargs = _env_kwargs(tool_policy)
    store = _grpo(
        tool_policy,
        functools.partial(CountedStore, env_kwargs=policy_kwargs),
        store_rows([3, 5]),
        tmp_path / "store",
        tool_turns=2,
    )
    pool = _trains(store, "CountedStore")
    assert "CountedStore" in STEPS  # tool calls stepped the live store
    assert all(e.get_reward() == sum(e.rewards) for e in pool)
    assert all("reward_terms" in i for e in pool for i in e.infos)

    session = _grpo(
        tool_policy,
        functools.partial(CountedSession, data=shop_store, env_kwargs=policy_kwargs),
        session_rows(shop_store, sessions=[0, 1]),
        tmp_path / "session",
        tool_turns=1,
    )
    pool = _trains(session, "CountedSession")
    assert "CountedSession" in STEPS
    assert all(len(e.rewards) <= 1 for e in pool)  # one turn per logged step
