"""`McpEnv`: one or more MCP servers and a task set as a multi-turn Gymnasium environment.

Observation: `{"messages": [...], "tools": [...]}`, the conversation so far as OpenAI-style
chat messages and the tool schemas in OpenAI function format.
Action: the assistant's turn, text with `<tool_call>` blocks or an OpenAI-style message dict
(see `mcpgym.envs.actions`). The calls run against the episode's own server sessions and
their results come back as `tool` messages. A turn with no tool call (or a call of `finish`)
answers the current user request; the next request is then revealed, or the episode ends.
"""

from __future__ import annotations

import itertools

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
from gymnasium import spaces

from mcpgym.envs.actions import FORMAT_HINT, ParsedTurn, ToolCall, parse_action
from mcpgym.envs.spaces import AssistantTurn, Conversation, ToolList
from mcpgym.envs.toolbox import Toolbox
from mcpgym.envs.trajectory import CallRecord, Trajectory, status_of_error
from mcpgym.servers.catalog import load_server
from mcpgym.tasks.execute import observed_changes
from mcpgym.tasks.loader import TASK_SETS, load_tasks, named_tasks, shipped_tasks
from mcpgym.tasks.model import Task

FINISH = "finish"
FINISH_SCHEMA = {
    "type": "function",
    "function": {
        "name": FINISH,
        "description": "Give the final answer to the user's current request and end your turn.",
        "parameters": {
            "type": "object",
            "properties": {"answer": {"type": "string", "description": "The final answer to the user."}},
            "required": ["answer"],
            "additionalProperties": False,
        },
    },
}

RewardFn = Callable[[Task, Trajectory], Any]
"""(task, trajectory) -> an object with `.reward` and `.model_dump()`, e.g. `mcpgym.rewards.Rewarder`."""


def make_reward(reward: str | RewardFn) -> RewardFn:
    """A preset name of `mcpgym.rewards` (dense, outcome-only, process-only) or a callable."""
    if callable(reward):
        return reward
    from mcpgym.rewards.compose import Rewarder

    return Rewarder(reward)  # type: ignore[arg-type]


class McpEnv(gym.Env[dict[str, Any], Any]):
    """A multi-turn tool-use episode over live MCP server sessions."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        servers: Sequence[str] = ("zendesk",),
        tasks: str | Path | Sequence[Task] | None = None,
        max_turns: int = 24,
        max_calls: int = 48,
        max_result_chars: int = 16_000,
        reward: str | RewardFn = "dense",
        shaping: bool = False,
        render_mode: str | None = None,
        tools: Sequence[str] | None = None,
    ) -> None:
        """`tools`: expose only these tools (public names; default all), e.g. to keep a small
        model's prompt short; tasks whose ground truth needs another tool are refused."""
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.toolbox = Toolbox(list(servers), tools=tools)
        if tasks is None:
            self.tasks = shipped_tasks(self.toolbox.servers)
        elif isinstance(tasks, str) and tasks in TASK_SETS:
            self.tasks = named_tasks(tasks, self.toolbox.servers)
        elif isinstance(tasks, str | Path):
            self.tasks = load_tasks(tasks)
        else:
            self.tasks = list(tasks)
        for task in self.tasks:
            self._check_task(task)
        self.max_turns = max_turns
        self.max_calls = max_calls
        self.max_result_chars = max_result_chars
        self.reward_fn = make_reward(reward)
        self.shaping = shaping
        self.render_mode = render_mode
        tools = [*self.toolbox.schemas(), FINISH_SCHEMA]
        self.observation_space = spaces.Dict({"messages": Conversation(), "tools": ToolList(tools)})
        self.action_space = AssistantTurn([t["function"]["name"] for t in tools])
        self._tools = tools
        self._system = self._system_prompt()
        self._messages: list[dict[str, Any]] = []
        self.task: Task | None = None

    # ------------------------------------------------------------------ episode

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode on `options["task"]` (a Task, task id or index) or a seeded pick."""
        super().reset(seed=seed)
        self.task = self._pick_task((options or {}).get("task"))
        self.toolbox.reset(self.task.seed)
        self._ids = itertools.count(1)
        self._turn = 0
        self._steps = 0
        self.trajectory = Trajectory(task_id=self.task.id)
        self._errors: list[str] = []
        self._shaped = 0.0
        self._rendered = 0
        self._messages = [
            {"role": "system", "content": self._system},
            {"role": "user", "content": self.task.turns[0].user},
        ]
        return self._observation(), {"task_id": self.task.id, "turn": 0, "turns": len(self.task.turns)}

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self.task is None:
            raise RuntimeError("call reset() before step()")
        self._steps += 1
        self.trajectory.steps = self._steps
        parsed = parse_action(action, lambda: f"call_{next(self._ids)}")
        self._messages.append(parsed.message)
        for error in parsed.errors:
            self._errors.append(error.message)
            self._messages.append(self._error_message(error.message, error.call_id))
            self.trajectory.calls.append(CallRecord(turn=self._turn, tool="", status="malformed", error=error.message))
        finished, truncated = self._run_calls(parsed)
        answered = finished is not None or (not parsed.calls and not parsed.errors)
        terminated = False
        if answered:
            self.trajectory.answers.append(finished if finished is not None else parsed.answer)
            self._turn += 1
            if self._turn < len(self.task.turns):
                self._messages.append({"role": "user", "content": self.task.turns[self._turn].user})
            else:
                terminated = True
        if not terminated and self._steps >= self.max_turns:
            truncated = True
        info: dict[str, Any] = {
            "task_id": self.task.id,
            "turn": self._turn,
            "calls": [call.model_dump() for call in self.trajectory.calls],
            "errors": list(self._errors),
        }
        reward = 0.0
        ended = terminated or truncated
        if ended or (self.shaping and answered):
            self.trajectory.finished = terminated
            breakdown = self.score()
            info["reward_breakdown"] = breakdown.model_dump()
            if self.shaping:
                reward, self._shaped = breakdown.reward - self._shaped, breakdown.reward
            else:
                reward = breakdown.reward
        if ended:
            info["state_diff"] = [change.model_dump() for change in self.trajectory.changes]
            info["answers"] = list(self.trajectory.answers)
        return self._observation(), float(reward), terminated, truncated, info

    def score(self) -> Any:
        """The reward breakdown of the episode so far: the trajectory with the state's current
        row changes, through the reward function (what `step` pays at the end)."""
        if self.task is None:
            raise RuntimeError("call reset() before score()")
        self.trajectory.changes = observed_changes(self.toolbox.diff())
        return self.reward_fn(self.task, self.trajectory)

    def render(self) -> str | None:
        """In `ansi` mode, the messages added since the last render, as text."""
        if self.render_mode != "ansi":
            return None
        new = self._messages[self._rendered :]
        self._rendered = len(self._messages)
        return "\n".join(_format_message(m) for m in new)

    def close(self) -> None:
        self.toolbox.close()

    # ------------------------------------------------------------------ internals

    def _run_calls(self, parsed: ParsedTurn) -> tuple[str | None, bool]:
        """Execute the turn's calls in order; returns (finish answer or None, truncated)."""
        finished: str | None = None
        for call in parsed.calls:
            if call.name == FINISH:
                answer = call.arguments.get("answer", "")
                finished = "\n".join(p for p in (parsed.answer, str(answer)) if p)
                self._messages.append(self._tool_message(call, "ok"))
                continue
            route = self.toolbox.route(call.name)
            record = CallRecord(
                turn=self._turn,
                tool=call.name,
                server=route[0] if route else None,
                server_tool=route[1] if route else None,
                arguments=call.arguments,
                status="ok",
            )
            if sum(c.status != "malformed" for c in self.trajectory.calls) >= self.max_calls:
                message = f"budget_exceeded: the episode's limit of {self.max_calls} tool calls is reached"
                self._errors.append(message)
                self._messages.append(self._tool_message(call, message))
                self.trajectory.calls.append(record.model_copy(update={"status": "rejected", "error": message}))
                return finished, True
            result = self.toolbox.call(call.name, call.arguments)
            if result.ok:
                record.result = result.data
            else:
                record.status, record.error = status_of_error(result.error or ""), result.error
                self._errors.append(result.error or "")
            self.trajectory.calls.append(record)
            self._messages.append(self._tool_message(call, self._truncate(result.text)))
        return finished, False

    def _truncate(self, text: str) -> str:
        if len(text) <= self.max_result_chars:
            return text
        cut = len(text) - self.max_result_chars
        return text[: self.max_result_chars] + f"... [truncated {cut} characters; ask for fewer results per page]"

    @staticmethod
    def _tool_message(call: ToolCall, content: str) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": content}

    @staticmethod
    def _error_message(text: str, call_id: str | None) -> dict[str, Any]:
        if call_id is not None:
            return {"role": "tool", "tool_call_id": call_id, "name": "error", "content": text}
        return {"role": "user", "content": text}

    def _observation(self) -> dict[str, Any]:
        return {"messages": list(self._messages), "tools": self._tools}

    def _pick_task(self, choice: Task | str | int | None) -> Task:
        if isinstance(choice, Task):
            self._check_task(choice)
            return choice
        if not self.tasks:
            raise ValueError(f"no tasks for servers {list(self.toolbox.servers)}; pass tasks=... or options={{'task': ...}}")
        if isinstance(choice, str):
            for task in self.tasks:
                if task.id == choice:
                    return task
            raise KeyError(f"no task with id {choice!r} among {len(self.tasks)} tasks")
        if isinstance(choice, int):
            return self.tasks[choice]
        return self.tasks[int(self.np_random.integers(len(self.tasks)))]

    def _check_task(self, task: Task) -> None:
        missing = set(task.servers) - set(self.toolbox.servers)
        if missing:
            raise ValueError(f"task {task.id} needs servers {sorted(missing)}, not mounted in this env")
        names = {self.toolbox.public_name(call.server or task.servers[0], call.tool) for call in task.calls}
        hidden = sorted(name for name in names if self.toolbox.route(name) is None)
        if hidden:
            raise ValueError(f"task {task.id} needs tools {hidden}, not exposed in this env")

    def _system_prompt(self) -> str:
        parts = [load_server(name).instructions for name in self.toolbox.servers]
        return (
            "\n\n".join(parts)
            + "\n\nUse the tools to look things up and to make changes; never guess ids or numbers. "
            + FORMAT_HINT
            + " You may make several calls in one turn. When the request is done, reply with the "
            "final answer and no tool call (or call `finish`), stating the numbers, names and dates asked for."
        )


def _format_message(message: dict[str, Any]) -> str:
    text = f"[{message['role']}] {message.get('content', '')}"
    calls = [] if "<tool_call>" in str(message.get("content")) else message.get("tool_calls") or []
    for call in calls:
        function = call.get("function", {}) if isinstance(call, dict) else {}
        text += f"\n  -> {function.get('name')}({function.get('arguments')})"
    return text


__all__ = ["FINISH", "McpEnv"]
