"""A task's ground truth as the rewards need it: every call's server, tool, executed
arguments and parents, computed once per task and cached."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from mcpgym.tasks.execute import execute_task
from mcpgym.tasks.model import Task


@dataclass(frozen=True)
class TruthCall:
    id: str
    server: str
    tool: str
    arguments: dict[str, Any]
    bound: frozenset[str]
    parents: frozenset[str]


@dataclass(frozen=True)
class GroundTruth:
    calls: tuple[TruthCall, ...]
    depth: int
    servers: int

    def __len__(self) -> int:
        return len(self.calls)


def ground_truth(task: Task) -> GroundTruth:
    """The executed ground truth of `task` (cached by the task's content)."""
    return _ground_truth(task.model_dump_json())


@lru_cache(maxsize=8192)
def _ground_truth(task_json: str) -> GroundTruth:
    task = Task.model_validate_json(task_json)
    run = execute_task(task)
    if run.errors:
        raise ValueError(f"task {task.id}: ground truth fails: {run.errors}")
    calls = [
        TruthCall(
            id=call.id,
            server=call.server or task.servers[0],
            tool=call.tool,
            arguments=call.resolved_arguments(run.results),
            bound=frozenset(call.bind),
            parents=frozenset(call.depends_on()),
        )
        for call in task.calls
    ]
    return GroundTruth(calls=tuple(calls), depth=task.depth(), servers=len({c.server for c in calls}))
