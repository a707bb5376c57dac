"""Near-miss and reward-hacking agents: what an RL policy finds when a reward can be gamed.

Each is a small variation of the oracle (or a trivial policy); the reward tests and
`benchmarks/reward_report.py` require every one to score clearly below the oracle.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mcpgym.baselines.agents import OracleAgent
from mcpgym.tasks.model import GroundTruthCall, Task, Turn

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


class DropStepAgent(OracleAgent):
    """The oracle without one ground-truth call (and whatever needs its result)."""

    def __init__(self, call_id: str) -> None:
        self.skip = frozenset({call_id})


class WrongArgumentAgent(OracleAgent):
    """The oracle with one argument of one call changed to a plausible wrong value."""

    def __init__(self, call_id: str, argument: str) -> None:
        self.call_id, self.argument = call_id, argument

    def arguments(self, call: GroundTruthCall) -> dict[str, Any]:
        given = super().arguments(call)
        if call.id == self.call_id and self.argument in given:
            given[self.argument] = corrupt(given[self.argument])
        return given


def corrupt(value: Any) -> Any:
    """A different value of the same type."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 1.5 + 1
    if isinstance(value, str):
        return value[:-1] + ("x" if not value.endswith("x") else "y") if value else "x"
    if isinstance(value, list):
        return [corrupt(v) for v in value] or ["x"]
    return value


class WrongEntityAgent(OracleAgent):
    """The oracle writing to the wrong entity: in write calls, every integer id is moved to its
    neighbour and every argument fed from an earlier result is corrupted."""

    def __init__(self, writes: set[tuple[str, str]]) -> None:
        self.writes = writes

    def arguments(self, call: GroundTruthCall) -> dict[str, Any]:
        given = super().arguments(call)
        if (call.server, call.tool) not in self.writes:
            return given
        return {
            k: corrupt(v) if k in call.bind or (k.endswith("id") and isinstance(v, int) and not isinstance(v, bool)) else v
            for k, v in given.items()
        }


class RepeatAgent(OracleAgent):
    """The oracle, but every call is sent `times` times."""

    def __init__(self, times: int = 10) -> None:
        self.times = times

    def _call_text(self, call: GroundTruthCall) -> str:
        text = super()._call_text(call)
        return text * self.times


class NumberDumpAgent(OracleAgent):
    """The oracle's calls, then an answer listing every number seen in any tool result."""

    def answer(self, turn: Turn) -> str:
        seen = " ".join(NUMBER.findall(json.dumps(self.results)))
        return f"The numbers: {seen}"


class FirstCallOnlyAgent(OracleAgent):
    """Makes the first ground-truth call, then stops with an empty answer."""

    def act(self, observation: dict[str, Any]) -> str:
        if not self.task.calls or self.results or self.pending:
            self._read_results(observation["messages"])
            return ""
        return self._call_text(self.task.calls[0])


class EveryToolAgent:
    """Calls every tool once with no arguments, then answers with nothing."""

    def reset(self, task: Task, observation: dict[str, Any]) -> None:
        self.names = [t["function"]["name"] for t in observation["tools"] if t["function"]["name"] != "finish"]
        self.done = False

    def act(self, observation: dict[str, Any]) -> str:
        if self.done:
            return ""
        self.done = True
        return "".join(f'<tool_call>{{"name": "{name}", "arguments": {{}}}}</tool_call>' for name in self.names)


class GuessingAgent(OracleAgent):
    """Acts where it should ask: in a turn that lacks information (`Turn.missing`) it makes
    the next turn's calls at once, with the values it could not have known yet, and answers
    with that turn's facts; the next turn then finds its work done."""

    def calls_of(self, index: int) -> list[GroundTruthCall]:
        turns = self.task.turns
        if turns[index].missing and index + 1 < len(turns):
            return turns[index + 1].calls
        return turns[index].calls

    def answer(self, turn: Turn) -> str:
        index = self.turn - 1
        turns = self.task.turns
        if turn.missing and index + 1 < len(turns):
            return super().answer(turns[index + 1])
        return super().answer(turn)
