"""Reference agents: the oracle that replays a task's ground truth, and do-nothing/random ones.

An agent is anything with `reset(task, observation)` and `act(observation) -> action`; it
sees only what a model would see (the observation), never the server sessions. An agent whose
`act` waits on a remote model sets the class attribute `remote = True` (see `ChatAgent`): the
evaluator then runs its turns in parallel threads; every other agent's turns run one at a time
on the evaluator's thread.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

import numpy as np

from mcpgym.tasks.model import GroundTruthCall, Task, Turn
from mcpgym.tasks.refs import RefError, evaluate


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
    reads back, and each user turn answered with its facts computed from those results; a
    turn that lacks information (`Turn.missing`) is answered with a question and no call.

    Subclasses (see `mcpgym.baselines.adversarial`) perturb it through `skip`, `arguments`,
    `answer` and `calls_of`, to make the near-miss trajectories the reward tests need.
    """

    skip: frozenset[str] = frozenset()
    """Ground-truth call ids never made (nor anything that needs their results)."""

    def reset(self, task: Task, observation: dict[str, Any]) -> None:
        self.task = task
        self.turn = 0
        self.results: dict[str, Any] = {}
        self.failed: set[str] = set(self.skip)
        self.pending: list[str] = []
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
        planned = self.calls_of(self.turn)
        if turn.missing and not planned:
            self.turn += 1
            return self.ask(turn)
        while True:
            for call in planned:
                if call.id not in self.results and call.depends_on() & self.failed:
                    self.failed.add(call.id)
            todo = [c for c in planned if c.id not in self.results and c.id not in self.failed]
            ready = [call for call in todo if call.depends_on() <= set(self.results)]
            if not ready:
                break
            texts = []
            for call in ready:
                try:
                    texts.append(self._call_text(call))
                except RefError:
                    self.failed.add(call.id)
            if texts:
                return "".join(texts)
        self.turn += 1
        return self.answer(turn)

    def calls_of(self, index: int) -> list[GroundTruthCall]:
        """The ground-truth calls made in user turn `index` (none in a turn that lacks
        information: the oracle asks there)."""
        return self.task.turns[index].calls

    def ask(self, turn: Turn) -> str:
        """The reply to a request that lacks information: one question naming what is missing."""
        return f"Could you tell me the {' and the '.join(turn.missing)}?"

    def arguments(self, call: GroundTruthCall) -> dict[str, Any]:
        """The arguments sent for `call`."""
        return call.resolved_arguments(self.results)

    def answer(self, turn: Turn) -> str:
        """The final answer of a user turn: one `name: value` line per fact it can compute."""
        lines = []
        for fact in turn.facts:
            try:
                lines.append(f"{fact.name}: {format_value(evaluate(fact.expr, self.results))}")
            except RefError:
                continue
        return "\n".join(lines) or "Done."

    def _call_text(self, call: GroundTruthCall) -> str:
        payload = {"name": self.public[(call.server, call.tool)], "arguments": self.arguments(call)}
        self.pending.append(call.id)
        return f"<tool_call>{json.dumps(payload)}</tool_call>"

    def _read_results(self, messages: list[dict[str, Any]]) -> None:
        """Match the new tool messages, in order, to the calls sent last turn."""
        new = messages[self.seen :]
        self.seen = len(messages)
        replies = [m for m in new if m["role"] == "tool"]
        for call_id, reply in zip(self.pending, replies):
            try:
                self.results[call_id] = json.loads(reply["content"])
            except json.JSONDecodeError:
                self.failed.add(call_id)
        self.pending = []


class NoOpAgent:
    """Answers every request at once with an empty message: must score 0 on every task."""

    def reset(self, task: Task, observation: dict[str, Any]) -> None:
        return None

    def act(self, observation: dict[str, Any]) -> str:
        return ""


class RandomAgent:
    """Valid-looking random calls: a random tool with arguments drawn from its schema (right
    types and enum values, random ids and words), sometimes several, sometimes an answer."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def reset(self, task: Task, observation: dict[str, Any]) -> None:
        self.rng = np.random.default_rng(self.seed)
        self.tools = [t["function"] for t in observation["tools"] if t["function"]["name"] != "finish"]

    def act(self, observation: dict[str, Any]) -> str:
        if not self.tools or self.rng.random() < 0.25:
            return "I am not sure: " + " ".join(str(self.rng.choice(_WORDS)) for _ in range(3))
        calls = []
        for _ in range(int(self.rng.integers(1, 3))):
            tool = self.tools[int(self.rng.integers(len(self.tools)))]
            schema = tool.get("parameters", {})
            required = set(schema.get("required", []))
            arguments = {
                name: _sample(prop, self.rng)
                for name, prop in schema.get("properties", {}).items()
                if name in required or self.rng.random() < 0.2
            }
            calls.append(f"<tool_call>{json.dumps({'name': tool['name'], 'arguments': arguments})}</tool_call>")
        return "".join(calls)


_WORDS = ("billing", "open", "smith", "2025-10-01", "urgent", "meeting", "invoice", "london", "acme")


def _sample(schema: dict[str, Any], rng: np.random.Generator) -> Any:
    """A random value of a JSON schema's type."""
    if "enum" in schema:
        return schema["enum"][int(rng.integers(len(schema["enum"])))]
    options = [s for s in schema.get("anyOf", []) if s.get("type") != "null"]
    if options:
        return _sample(options[int(rng.integers(len(options)))], rng)
    kind = schema.get("type")
    if kind == "integer":
        return int(rng.integers(1, 2000))
    if kind == "number":
        return round(float(rng.uniform(0, 1000)), 2)
    if kind == "boolean":
        return bool(rng.random() < 0.5)
    if kind == "array":
        return [_sample(schema.get("items", {}), rng)]
    if kind == "object":
        return {}
    if schema.get("format") == "date-time":
        return f"2025-{int(rng.integers(1, 13)):02d}-{int(rng.integers(1, 29)):02d}T00:00:00Z"
    return str(rng.choice(_WORDS))
