"""Executing a task's ground truth on fresh sessions: results, fact values and state changes."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from mcpgym.envs.toolbox import Toolbox
from mcpgym.servers.kernel.database import RowChange
from mcpgym.tasks.model import Difficulty, ExpectedChange, Task
from mcpgym.tasks.refs import RefError, evaluate


@dataclass
class Execution:
    """What running the ground truth produced."""

    results: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    facts: list[Any] = field(default_factory=list)
    changes: list[ExpectedChange] = field(default_factory=list)


def observed_changes(diff: dict[str, list[RowChange]]) -> list[ExpectedChange]:
    """A toolbox diff as changes: inserts with every column, updates with the changed ones."""
    return [
        ExpectedChange(
            server=server,
            table=row.table,
            key=row.key,
            op=row.op,  # type: ignore[arg-type]
            fields={} if row.op == "delete" else row.changed,
        )
        for server, rows in diff.items()
        for row in rows
    ]


def change_satisfied(expected: ExpectedChange, actual: list[ExpectedChange]) -> bool:
    """Whether some actual change is the expected one with every expected field value."""
    return any(
        (a.server, a.table, a.key, a.op) == (expected.server, expected.table, expected.key, expected.op)
        and all(a.fields.get(k) == v for k, v in expected.fields.items())
        for a in actual
    )


def execute_task(task: Task, toolbox: Toolbox | None = None) -> Execution:
    """Run every ground-truth call in order on freshly reset sessions and evaluate the facts."""
    own = toolbox is None
    box = toolbox or Toolbox(task.servers, task.seed)
    box.reset(task.seed, task.servers)
    run = Execution()
    try:
        for call in task.calls:
            assert call.server is not None
            try:
                arguments = call.resolved_arguments(run.results)
            except RefError as err:
                run.errors[call.id] = f"binding: {err}"
                continue
            result = box.call(box.public_name(call.server, call.tool), arguments)
            if result.ok:
                run.results[call.id] = result.data
            else:
                run.errors[call.id] = result.error or "error"
        for fact in task.facts:
            try:
                run.facts.append(evaluate(fact.expr, run.results))
            except RefError as err:
                run.facts.append(None)
                run.errors[f"fact:{fact.name}"] = str(err)
        run.changes = observed_changes(box.diff(task.servers))
    finally:
        if own:
            box.close()
    return run


def difficulty(task: Task) -> Difficulty:
    """Size of the ground truth: calls, dependency depth, servers touched, writing calls."""
    from mcpgym.servers.catalog import load_server

    writes = sum(
        1 for call in task.calls if (spec := load_server(call.server or "").tools.get(call.tool)) and spec.writes
    )
    servers = len({call.server for call in task.calls})
    return Difficulty(calls=len(task.calls), depth=task.depth(), servers=servers, writes=writes)


def complete_task(task: Task) -> Task:
    """The task with fact values, expected changes and difficulty taken from execution.

    Expected changes of an existing task keep their hand-picked `fields` when the row matches.
    """
    return complete_from_run(task, execute_task(task))


def complete_from_run(task: Task, run: Execution) -> Task:
    """`complete_task` from an execution already made."""
    if run.errors:
        raise ValueError(f"task {task.id}: ground truth fails: {run.errors}")
    turns = []
    values = iter(run.facts)
    for turn in task.turns:
        facts = [fact.model_copy(update={"value": next(values)}) for fact in turn.facts]
        turns.append(turn.model_copy(update={"facts": facts}))
    picked = {(c.server, c.table, c.key, c.op): c for c in task.expected_changes}
    changes = [picked.get((c.server, c.table, c.key, c.op), c) for c in run.changes]
    done = task.model_copy(update={"turns": turns, "expected_changes": changes})
    return done.model_copy(update={"difficulty": difficulty(done)})


def same_value(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, int | float) and isinstance(b, int | float) and math.isclose(a, b, rel_tol=1e-9)
    return bool(a == b)


def verify_task(task: Task) -> list[str]:
    """Problems found by executing the ground truth; an empty list means the task is sound."""
    problems: list[str] = []
    run = execute_task(task)
    problems += [f"{where}: {error}" for where, error in run.errors.items()]
    for fact, value in zip(task.facts, run.facts):
        if value is None or value == "" or value == []:
            problems.append(f"fact {fact.name!r} is empty")
        elif not same_value(value, fact.value):
            problems.append(f"fact {fact.name!r}: recorded {fact.value!r}, ground truth gives {value!r}")
    actual = {(c.server, c.table, c.key, c.op) for c in run.changes}
    claimed = {(c.server, c.table, c.key, c.op) for c in task.expected_changes}
    problems += [f"expected change {key} does not happen" for key in sorted(claimed - actual)]
    problems += [f"ground truth changes {key}, not listed" for key in sorted(actual - claimed)]
    problems += [
        f"expected change {(c.table, c.key)} has other field values: {c.fields}"
        for c in task.expected_changes
        if (c.server, c.table, c.key, c.op) in actual and not change_satisfied(c, run.changes)
    ]
    if task.difficulty is not None and task.difficulty != difficulty(task):
        problems.append(f"difficulty recorded {task.difficulty}, ground truth gives {difficulty(task)}")
    if not task.facts and not task.expected_changes:
        problems.append("task has neither answer facts nor expected changes: nothing to score")
    return problems
