"""mcpgym episodes inside TRL's `GRPOTrainer` (trl 1.16 or later; `pip install 'mcpgym[trl]'`).

Two routes:

- `McpRollout` is a `rollout_func`: for every prompt of a TRL batch it plays a whole episode of
  the prompt's task with mcpgym's own loop (`mcpgym.baselines.train.episodes.play`: one
  batched generation per turn, tool results and later user turns appended as tokens), and
  returns the episode as TRL's prompt and completion ids, the sampling log-probabilities, and
  `env_mask`, 1 on the tokens the model sampled and 0 on everything the environment wrote
  (tool results, later user requests, the template's turn markers), which TRL multiplies into
  its loss mask. Tasks with several user requests play to the end. The episode's reward comes
  back as the extra field `env_reward`, which the reward function `env_reward` hands to TRL.
- `environment_factory` returns a factory for TRL's own tool-calling loop: the environment's
  tools become methods, a call runs on the episode's MCP sessions, and the reward is the
  episode's score with the model's last text as the answer. TRL's loop knows one user request
  only, so this route takes single-request tasks.

The dataset rows (`McpRollout.dataset`) carry the task id in the prompt's user message (key
`mcpgym_task_id`, which chat templates ignore): a `rollout_func` sees the prompts only.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import keyword
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mcpgym.baselines.train.chat import ChatFormat
from mcpgym.baselines.train.episodes import Episode, play
from mcpgym.baselines.train.generation import Sampling, TransformersGenerator
from mcpgym.envs import make_env
from mcpgym.envs.mcp_env import FINISH_SCHEMA, McpEnv
from mcpgym.tasks.model import Task

if TYPE_CHECKING:
    from datasets import Dataset

TASK_KEY = "mcpgym_task_id"
"""The key of the prompt's user message that names the episode's task."""

MAX_TASK_ID_CHARS = 500


class RolloutOptions(BaseModel):
    """How episodes are played for TRL: the environment and the token budgets."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    servers: list[str] = Field(min_length=1, max_length=32)
    """Servers mounted in every episode's environment (each task's servers must be among them)."""
    tools: list[str] | None = Field(None, max_length=2000)
    """Expose only these tools (public names); None: every tool."""
    reward: Literal["dense", "outcome-only", "process-only"] = "dense"
    max_new_tokens: int = Field(256, gt=0, le=1_048_576)
    """Per assistant turn."""
    max_total_tokens: int = Field(8192, gt=0, le=16_777_216)
    """Per episode, prompt included; an episode that would pass it is cut (and is overlong)."""
    max_turns: int = Field(8, gt=0, le=10_000)
    max_calls: int = Field(16, gt=0, le=100_000)
    max_result_chars: int = Field(2000, gt=0, le=10_000_000)
    tool_parser: Literal["hermes", "json"] = "hermes"
    generation_batch_size: int = Field(64, gt=0, le=65_536)
    logprobs: bool = True
    """Return the sampled tokens' log-probabilities (one no-grad forward over the batch); False
    returns `None`, which TRL accepts when it generates with the trained model itself."""
    logprob_batch_size: int = Field(8, gt=0, le=65_536)
    seed: int = Field(0, ge=0)
    """Reset seed of the environments (it only picks distractor servers; the task is given)."""

    def env_options(self) -> dict[str, Any]:
        """`make_env` keyword arguments."""
        return {
            "max_turns": self.max_turns,
            "max_calls": self.max_calls,
            "max_result_chars": self.max_result_chars,
            "tools": self.tools,
            "reward": self.reward,
        }


def _task_table(tasks: Sequence[Task], servers: Sequence[str]) -> dict[str, Task]:
    if not tasks:
        raise ValueError("no tasks: pass at least one Task")
    table: dict[str, Task] = {}
    for task in tasks:
        if task.id in table:
            raise ValueError(f"two tasks have the id {task.id[:MAX_TASK_ID_CHARS]!r}: task ids must be unique")
        missing = sorted(set(task.servers) - set(servers))
        if missing:
            raise ValueError(f"task {task.id[:MAX_TASK_ID_CHARS]!r} needs servers {missing}, not in servers={list(servers)}")
        table[task.id] = task
    return table


def env_reward(completions: list[Any], env_reward: list[float] | None = None, **_: Any) -> list[float | None]:
    """TRL reward function: the episode's reward from the environment (`McpRollout`'s extra
    field `env_reward`); None, which TRL skips, where a row has none."""
    if env_reward is None:
        return [None] * len(completions)
    return [None if r is None else float(r) for r in env_reward]


class McpRollout:
    """`GRPOTrainer(rollout_func=McpRollout(tasks, servers=[...]), reward_funcs=[env_reward],
    train_dataset=rollout.dataset())`: every prompt is played as one multi-turn episode."""

    def __init__(self, tasks: Sequence[Task], options: RolloutOptions | None = None, **settings: Any) -> None:
        """`settings` are `RolloutOptions` fields, used when `options` is None."""
        self.options = options if options is not None else RolloutOptions(**settings)
        self.tasks = _task_table(tasks, self.options.servers)
        self._envs: list[McpEnv] = []
        self.last_episodes: list[Episode] = []
        """The episodes of the latest call, in the prompts' order (for logging and inspection)."""

    # ------------------------------------------------------------------ data

    def make_env(self) -> McpEnv:
        """A fresh environment with the rollout's servers, tasks and limits."""
        return make_env(self.options.servers, tasks=list(self.tasks.values()), **self.options.env_options())

    def prompts(self) -> list[list[dict[str, Any]]]:
        """Each task's first observation (system prompt and first request) as chat messages,
        the user message tagged with the task id."""
        env = self.make_env()
        try:
            out = []
            for task in self.tasks.values():
                observation, _ = env.reset(seed=self.options.seed, options={"task": task})
                messages = [{"role": m["role"], "content": m["content"], TASK_KEY: None} for m in observation["messages"]]
                messages[-1][TASK_KEY] = task.id
                out.append(messages)
            return out
        finally:
            env.close()

    def dataset(self) -> Dataset:
        """A `datasets.Dataset` with one row per task: `prompt` (conversational) and `task_id`."""
        from datasets import Dataset

        return Dataset.from_list([{"prompt": p, "task_id": t} for p, t in zip(self.prompts(), self.tasks, strict=True)])

    def task_of(self, prompt: Any) -> Task:
        """The task a prompt of `dataset()` names; a clear `ValueError` for any other prompt."""
        if not isinstance(prompt, list):
            raise ValueError(f"an mcpgym prompt is a list of chat messages, not {type(prompt).__name__}: build the "
                             "dataset with McpRollout.dataset()")
        for message in reversed(prompt[:1000]):
            task_id = message.get(TASK_KEY) if isinstance(message, dict) else None
            if isinstance(task_id, str):
                if task_id not in self.tasks:
                    raise ValueError(f"prompt names task {task_id[:MAX_TASK_ID_CHARS]!r}, which is not among this "
                                     f"rollout's {len(self.tasks)} tasks")
                return self.tasks[task_id]
        raise ValueError(f"the prompt has no message with {TASK_KEY!r}: build the dataset with McpRollout.dataset()")

    # ------------------------------------------------------------------ rollouts

    def _env_pool(self, n: int) -> list[McpEnv]:
        while len(self._envs) < n:
            self._envs.append(self.make_env())
        return self._envs[:n]

    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, Any]:
        """TRL's `rollout_func(prompts, trainer)`: one episode per prompt (TRL has already
        repeated each prompt `num_generations` times)."""
        tasks = [self.task_of(p) for p in prompts]
        order = list(dict.fromkeys(t.id for t in tasks))
        groups = [order.index(t.id) for t in tasks]
        tokenizer = getattr(trainer.processing_class, "tokenizer", trainer.processing_class)
        chat = ChatFormat(tokenizer, self.options.tool_parser)
        args = trainer.args
        sampling = Sampling(temperature=float(args.temperature), top_p=float(args.top_p))
        seed = self.options.seed + int(trainer.state.global_step)
        with _generation_model(trainer) as model:
            generator = TransformersGenerator(model, chat.eos_id, tokenizer.pad_token_id, self.options.generation_batch_size)
            episodes = play(
                self._env_pool(len(tasks)), tasks, groups, generator, chat, sampling,
                self.options.max_new_tokens, self.options.max_total_tokens, seed=seed,
            )
            logprobs = self.logprobs(model, episodes, tokenizer.pad_token_id, float(args.temperature)) if self.options.logprobs else None
        self.last_episodes = episodes
        return to_trl(episodes, logprobs, mask_overlong=bool(getattr(args, "mask_truncated_completions", False)))

    def logprobs(self, model: Any, episodes: Sequence[Episode], pad_id: int, temperature: float) -> list[list[float]]:
        """Per completion token, its log-probability under `model` at `temperature` where the
        model sampled it, 0.0 where the environment wrote it."""
        import torch

        from mcpgym.baselines.train.grpo import sequence_logprobs
        from mcpgym.baselines.train.trainer import collate

        device = next(model.parameters()).device
        size = self.options.logprob_batch_size
        out: list[list[float]] = []
        was_training = model.training
        model.eval()
        try:
            with torch.no_grad():
                for start in range(0, len(episodes), size):
                    chunk = episodes[start : start + size]
                    batch = collate([e.tokens for e in chunk], [0.0] * len(chunk), pad_id, device)
                    scores = sequence_logprobs(model, batch.ids, batch.attention, temperature).cpu()
                    for row, episode in enumerate(chunk):
                        first, n = episode.prompt_tokens, len(episode.tokens)
                        values = scores[row, first - 1 : n - 1].tolist()
                        out.append([v if m else 0.0 for v, m in zip(values, episode.tokens.mask[first:], strict=True)])
        finally:
            model.train(was_training)
        return out

    def close(self) -> None:
        for env in self._envs:
            env.close()
        self._envs = []


@contextlib.contextmanager
def _generation_model(trainer: Any) -> Iterator[Any]:
    """The trainer's model, unwrapped from its distributed wrapper for generation."""
    from trl.models import unwrap_model_for_generation

    with unwrap_model_for_generation(
        trainer.model_wrapped, trainer.accelerator, gather_deepspeed3_params=trainer.args.ds3_gather_for_generation
    ) as model:
        yield model


def to_trl(episodes: Sequence[Episode], logprobs: list[list[float]] | None, mask_overlong: bool = False) -> dict[str, Any]:
    """Episodes as a `rollout_func` result: the prompt is each episode's first observation,
    the completion everything after it, `env_mask` 1 on the model's sampled tokens only.
    With `mask_overlong`, episodes cut by a token budget get an all-zero mask (no gradient)."""
    prompt_ids, completion_ids, env_mask = [], [], []
    for episode in episodes:
        first = episode.prompt_tokens
        prompt_ids.append(episode.tokens.ids[:first])
        completion_ids.append(episode.tokens.ids[first:])
        mask = episode.tokens.mask[first:]
        env_mask.append([0] * len(mask) if mask_overlong and episode.overlong else list(mask))
    return {
        "prompt_ids": prompt_ids,
        "completion_ids": completion_ids,
        "logprobs": logprobs,
        "env_mask": env_mask,
        "env_reward": [e.reward for e in episodes],
        "overlong": [e.overlong for e in episodes],
        "episode_turns": [e.turns for e in episodes],
    }


# ---------------------------------------------------------------------- environment_factory

_JSON_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list, "object": dict}


def _tool_method(name: str, schema: dict[str, Any]) -> Callable[..., str]:
    """A method named `name` whose signature and docstring describe the tool's JSON schema
    (what TRL renders into the prompt); calling it runs the tool in the episode."""
    parameters = schema.get("parameters", {}) or {}
    properties: dict[str, Any] = parameters.get("properties", {}) or {}
    required = set(parameters.get("required", []) or [])
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {"return": str}
    lines = [(schema.get("description") or name).strip().replace("\n", " "), "", "Args:"]
    for arg, spec in properties.items():
        if not arg.isidentifier() or keyword.iskeyword(arg):
            raise ValueError(f"tool {name}: argument {arg!r} is not a Python identifier")
        kind = spec.get("type") if isinstance(spec, dict) else None
        py = _JSON_TYPES.get(kind, Any) if isinstance(kind, str) else Any
        annotation = py if arg in required else py | None
        default = inspect.Parameter.empty if arg in required else None
        params.append(inspect.Parameter(arg, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation))
        annotations[arg] = annotation
        description = (spec.get("description") if isinstance(spec, dict) else None) or arg
        lines.append(f"    {arg}: {description.strip().replace(chr(10), ' ')}")
    lines += ["", "Returns:", "    The tool's result as JSON text, or an error message."]

    def method(self: McpToolEnvironment, **arguments: Any) -> str:
        return self._call(name, {k: v for k, v in arguments.items() if v is not None})

    method.__name__ = method.__qualname__ = name
    method.__doc__ = "\n".join(lines)
    method.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    method.__annotations__ = annotations
    return method


class McpToolEnvironment:
    """Base of the classes `environment_factory` builds: one episode's environment, its tools
    as methods (added per class), `reset(task_id=...)` and `get_reward()`."""

    rollout: McpRollout

    def __init__(self) -> None:
        self.env = self.rollout.make_env()
        self.ended = False

    def reset(self, task_id: str | None = None, **_: Any) -> str | None:
        """Start the row's task; the prompt already holds its request, so nothing is added."""
        if not isinstance(task_id, str):
            raise ValueError("environment_factory needs a `task_id` column in the dataset (McpRollout.dataset())")
        task = self.rollout.tasks.get(task_id)
        if task is None:
            raise ValueError(f"task {task_id[:MAX_TASK_ID_CHARS]!r} is not among this rollout's tasks")
        self.env.reset(seed=self.rollout.options.seed, options={"task": task})
        self.ended = False
        return None

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        if self.ended:
            return "episode_ended: the episode is over; no more calls run"
        call = {"id": "call_1", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
        observation, _, terminated, truncated, _ = self.env.step({"role": "assistant", "content": "", "tool_calls": [call]})
        self.ended = terminated or truncated
        message = observation["messages"][-1]
        return str(message["content"]) if message["role"] == "tool" else "ok"

    def _finish_with(self, answer: str) -> float:
        """End the episode with `answer` as the reply (unless it already ended); its reward."""
        if not self.ended:
            self.env.step(answer)
            self.ended = True
        return float(self.env.unwrapped.score().reward)


def environment_factory(rollout: McpRollout) -> Callable[[], McpToolEnvironment]:
    """A factory for `GRPOTrainer(environment_factory=...)` over `rollout`'s tasks (single-request
    tasks only). Pass `reward_funcs=[final_answer_reward]`: TRL's `get_reward` cannot see the
    model's final answer, so the reward is computed from the completions instead."""
    multi = [t.id for t in rollout.tasks.values() if len(t.turns) > 1]
    if multi:
        raise ValueError(f"environment_factory takes single-request tasks; {len(multi)} have several "
                         f"(e.g. {multi[0][:MAX_TASK_ID_CHARS]!r}): use McpRollout as rollout_func for those")
    env = rollout.make_env()
    try:
        schemas = [t["function"] for t in [*env.toolbox.schemas(), FINISH_SCHEMA]]
    finally:
        env.close()
    methods = {s["name"]: _tool_method(s["name"], s) for s in schemas}
    clashes = sorted(set(methods) & {"reset", "get_reward"})
    if clashes:
        raise ValueError(f"tool names {clashes} clash with the environment's own methods")
    cls = type("McpToolsEnv", (McpToolEnvironment,), {"rollout": rollout, **methods})
    return cls


def final_answer_reward(completions: list[Any], environments: list[McpToolEnvironment] | None = None, **_: Any) -> list[float | None]:
    """TRL reward function for the `environment_factory` route: each episode ends with the
    completion's last assistant text as the answer, and its reward is the episode's score."""
    if environments is None:
        return [None] * len(completions)
    rewards: list[float | None] = []
    for completion, environment in zip(completions, environments, strict=True):
        rewards.append(environment._finish_with(_last_text(completion)) if isinstance(environment, McpToolEnvironment) else None)
    return rewards


def _last_text(completion: Any) -> str:
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list):
        for message in reversed(completion):
            if isinstance(message, dict) and message.get("role") == "assistant" and isinstance(message.get("content"), str):
                return message["content"]
    return ""


__all__ = [
    "McpRollout",
    "McpToolEnvironment",
    "RolloutOptions",
    "TASK_KEY",
    "env_reward",
    "environment_factory",
    "final_answer_reward",
    "to_trl",
]
