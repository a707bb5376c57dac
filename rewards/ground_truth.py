"""A task's ground truth as the rewards need it: every call's server, tool, executed
arguments and parents.

A completed task records the value each bound argument took when its ground truth was
executed (`GroundTruthCall.bound`), so its ground truth is read from the task and never
executed. A task without those values is executed once, on a warm toolbox, and its ground truth
kept (`GroundTruths`).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from mcpgym.rewards.normalize import normalize
from mcpgym.tasks.execute import Execution, WarmToolbox
from mcpgym.tasks.model import Task


@dataclass(frozen=True)
class TruthCall:
    """One ground-truth call as executed; `normalized` holds its arguments' canonical forms
    (`rewards.normalize.normalize`), computed once for every comparison."""

    id: str
    server: str
    tool: str
    arguments: dict[str, Any]
    bound: frozenset[str]
    parents: frozenset[str]
    normalized: dict[str, Any]


@dataclass(frozen=True)
class GroundTruth:
    calls: tuple[TruthCall, ...]
    depth: int
    servers: int

    def __len__(self) -> int:
        return len(self.calls)


TruthSource = Callable[[Task], GroundTruth]
"""Where the rewards get a task's ground truth from, e.g. a `GroundTruths`."""


def _truth(task: Task, arguments: dict[str, dict[str, Any]]) -> GroundTruth:
    """The ground truth of `task` given each call's executed arguments."""
    calls = tuple(
        TruthCall(
            id=call.id,
            server=call.server or task.servers[0],
            tool=call.tool,
            arguments=arguments[call.id],
            bound=frozenset(call.bind),
            parents=frozenset(call.depends_on()),
            normalized={name: normalize(value) for name, value in arguments[call.id].items()},
        )
        for call in task.calls
    )
    return GroundTruth(calls=calls, depth=task.depth(), servers=len({c.server for c in calls}))


def recorded_ground_truth(task: Task) -> GroundTruth | None:
    """The ground truth read from the task's recorded `bound` values; None when some call
    lacks them."""
    arguments: dict[str, dict[str, Any]] = {}
    for call in task.calls:
        recorded = call.recorded_arguments()
        if recorded is None:
            return None
        arguments[call.id] = recorded
    return _truth(task, arguments)


def executed_ground_truth(task: Task, run: Execution) -> GroundTruth:
    """The ground truth of `task` from an execution of it; a failing ground truth raises."""
    if run.errors:
        raise ValueError(f"task {task.id}: ground truth fails: {run.errors}")
    return _truth(task, run.arguments)


class GroundTruths:
    """Ground truths of tasks: read from the recorded values where the task has them, else
    executed once on `warm` (default: a warm toolbox of its own) and kept, the `limit` most
    recently used, by the task's content. Threads may share one."""

    def __init__(self, warm: WarmToolbox | None = None, limit: int = 4096) -> None:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        self.warm = warm if warm is not None else WarmToolbox()
        self.limit = limit
        self._executed: OrderedDict[str, GroundTruth] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, task: Task) -> GroundTruth:
        recorded = recorded_ground_truth(task)
        if recorded is not None:
            return recorded
        key = task.model_dump_json()
        with self._lock:
            truth = self._executed.get(key)
            if truth is not None:
                self._executed.move_to_end(key)
                return truth
        truth = executed_ground_truth(task, self.warm.execute(task))
        with self._lock:
            self._executed[key] = truth
            while len(self._executed) > self.limit:
                self._executed.popitem(last=False)
        return truth

    def __reduce__(self) -> tuple[type[GroundTruths], tuple[WarmToolbox, int]]:
        """A copy (in another process) starts with a cold toolbox and no executed truths."""
        return GroundTruths, (WarmToolbox(), self.limit)

    def close(self) -> None:
        """Close the warm toolbox and forget the executed ground truths."""
        self.warm.close()
        with self._lock:
            self._executed.clear()


@cache
def shared_ground_truths() -> GroundTruths:
    """This process's `GroundTruths`, which rewards use unless given another (a child
    process after `fork` makes its own)."""
    return GroundTruths()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=shared_ground_truths.cache_clear)
