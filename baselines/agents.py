"""Reference agents: the oracle that replays a task's ground truth, and do-nothing/random ones.

An agent is anything with `reset(task, observation)` and `act(observation) -> action`; it
sees only what a model would see (the observation), never the server sessions.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

import numpy as np

from mcpgym.envs.spaces import AssistantTurn
from mcpgym.tasks.model import GroundTruthCall, Task
from mcpgym.tasks.refs import evaluate


class Agent(Protocol):
    def reset(self, task: Task, observation: dict[str, Any]) -> None: ...

    def act(self, observation: dict[str, Any]) -> Any: ...


def format_value(value: Any) -> str:
    """A fact value as an answer writes it."""
    if isinstance(value, list):
        return ", ".join(format_value(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


class OracleAgent:
    """Replays the ground truth through the environment: every call as a text tool call,
    independent calls batched in one turn, bound arguments filled from the tool results it
    reads back, and each user turn answered with its facts computed from those results."""

    def reset(self, task: Task, observation: dict[str, Any]) -> None:
        self.task = task
        self.turn = 0
        self.results: dict[str, Any] = {}
        self.pending: dict[str, str] = {}
        self.seen = len(observation["messages"])
        names = {tool["function"]["name"] for tool in observation["tools"]}
        self.public = {
            (call.server, call.tool): f"{call.server}_{call.tool}"
            if f"{call.server}_{call.tool}" in names
            else call.tool
            for call in task.calls
        }

    def act(self, observation: dict[str, Any]) -> str:
        self._read_results(observation["messages"])
        turn = self.task.turns[self.turn]
        todo = [call for call in turn.calls if call.id not in self.results]
        ready = [call for call in todo if call.depends_on() <= set(self.results)]
        if todo and not ready:
            raise RuntimeError(f"oracle stuck on task {self.task.id}: calls {[c.id for c in todo]} cannot run")
        if ready:
            return "".join(self._call_text(call) for call in ready)
        self.turn += 1
        lines = [f"{fact.name}: {format_value(evaluate(fact.expr, self.results))}" for fact in turn.facts]
        return "\n".join(lines) or "Done."

    def _call_text(self, call: GroundTruthCall) -> str:
        self.pending[f"#{len(self.pending)}"] = call.id
        payload = {"name": self.public[(call.server, call.tool)], "arguments": call.resolved_arguments(self.results)}
        return f"<tool_call>{json.dumps(payload)}</tool_call>"

    def _read_results(self, messages: list[dict[str, Any]]) -> None:
        """Match the new tool messages, in order, to the calls sent last turn."""
        new = messages[self.seen :]
        self.seen = len(messages)
        sent = list(self.pending.values())
        self.pending = {}
        replies = [m for m in new if m["role"] == "tool"]
        for call_id, reply in zip(sent, replies):
            try:
                self.results[call_id] = json.loads(reply["content"])
            except json.JSONDecodeError:
                raise RuntimeError(f"oracle: call {call_id} failed: {reply['content']}") from None


class NoOpAgent:
    """Answers every request at once with an empty message: must score 0 on every task."""

    def reset(self, task: Task, observation: dict[str, Any]) -> None:
        return None

    def act(self, observation: dict[str, Any]) -> str:
        return ""


class RandomAgent:
    """Samples actions (text answers and tool calls, some malformed) from the action space."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def reset(self, task: Task, observation: dict[str, Any]) -> None:
        names = [tool["function"]["name"] for tool in observation["tools"]]
        self.space = AssistantTurn(names, seed=np.random.default_rng(self.seed))

    def act(self, observation: dict[str, Any]) -> Any:
        return self.space.sample()
