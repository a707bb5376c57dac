"""Executing a task's ground truth on fresh sessions: results, the arguments each call was
given, fact values and state changes; completing a task from them and verifying it."""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from types import TracebackType
from typing import Any

from mcpgym.servers.catalog import ServerNotFound, load_server
from mcpgym.servers.toolbox import Toolbox
from mcpgym.servers.kernel.database import RowChange
from mcpgym.servers.kernel.initial_state import InitialStateError
from mcpgym.tasks.model import Difficulty, ExpectedChange, Task
from mcpgym.tasks.refs import RefError, evaluate


@dataclass
class Execution:
    """What running the ground truth produced."""

    results: dict[str, Any] = field(default_factory=dict)
    arguments: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Call id -> the arguments it was given, bound values filled in (calls whose binding failed are absent)."""
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
    return any(_same_row(expected, a) and _holds(expected, a) for a in actual)


def changes_made(expected: Sequence[ExpectedChange], actual: Sequence[ExpectedChange]) -> int:
    """How many expected changes the actual ones make, each actual change counted once.

    An update or delete is of one existing row: it must have the expected key. An inserted
    row's key is whatever the database gave it, which depends on the order of the writes (two
    messages sent in the other order swap their ids): an expected insert is made by the insert
    of the same key with every expected value, or else by another insert into the same table
    with every expected value but those of the key columns."""
    used: set[int] = set()
    made = 0
    loose: list[ExpectedChange] = []
    for want in expected:
        found = next((i for i, a in enumerate(actual) if i not in used and _same_row(want, a) and _holds(want, a)), None)
        if found is not None:
            used.add(found)
            made += 1
        elif want.op == "insert":
            loose.append(want)
    for want in loose:
        keys = key_columns(want.server, want.table)
        found = next((i for i, a in enumerate(actual) if i not in used and a.op == "insert"
                      and (a.server, a.table) == (want.server, want.table) and _holds(want, a, skip=keys)), None)
        if found is not None:
            used.add(found)
            made += 1
    return made


def _same_row(expected: ExpectedChange, actual: ExpectedChange) -> bool:
    return (actual.server, actual.table, actual.key, actual.op) == (expected.server, expected.table, expected.key, expected.op)


def _holds(expected: ExpectedChange, actual: ExpectedChange, skip: frozenset[str] = frozenset()) -> bool:
    return all(actual.fields.get(k) == v for k, v in expected.fields.items() if k not in skip)


@cache
def key_columns(server: str, table: str) -> frozenset[str]:
    """The primary-key columns of `table` in `server`'s schema (none if either is unknown)."""
    try:
        found = load_server(server).base.metadata.tables.get(table)
    except ServerNotFound:
        return frozenset()
    return frozenset(column.name for column in found.primary_key.columns) if found is not None else frozenset()


def execute_task(task: Task, toolbox: Toolbox | None = None) -> Execution:
    """Run every ground-truth call in order on sessions freshly reset to the task's initial
    state and evaluate the facts. A patch that does not fit raises `InitialStateError`."""
    own = toolbox is None
    box = toolbox or Toolbox(task.servers, task.seed)
    run = Execution()
    try:
        box.reset(task.seed, task.servers, task.initial_state)
        for call in task.calls:
            assert call.server is not None
            try:
                arguments = call.resolved_arguments(run.results)
            except RefError as err:
                run.errors[call.id] = f"binding: {err}"
                continue
            run.arguments[call.id] = arguments
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


class WarmToolbox:
    """A toolbox kept open between executions, so that executing many tasks reuses its
    engines and compiled-statement caches; every execution still starts from a reset world of
    the task's servers. It mounts every server the tasks executed so far needed, and is built
    anew, with the union, when a task needs one more. Threads may share one: executions take
    turns."""

    def __init__(self) -> None:
        self._box: Toolbox | None = None
        self._lock = threading.Lock()

    def execute(self, task: Task) -> Execution:
        """`execute_task` on the warm toolbox."""
        with self._lock:
            return execute_task(task, self._mounting(task.servers, task.seed))

    def _mounting(self, servers: Sequence[str], seed: int) -> Toolbox:
        """The toolbox, built anew with the union of the servers when it lacks some."""
        box = self._box
        if box is None or not set(servers) <= set(box.servers):
            needed = sorted({*servers, *(box.servers if box is not None else ())})
            if box is not None:
                box.close()
            box = self._box = Toolbox(needed, seed)
        return box

    def close(self) -> None:
        with self._lock:
            if self._box is not None:
                self._box.close()
                self._box = None

    def __reduce__(self) -> tuple[type[WarmToolbox], tuple[()]]:
        """A copy (in another process) starts with no toolbox."""
        return WarmToolbox, ()

    def __enter__(self) -> WarmToolbox:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


def run_of(task: Task, warm: WarmToolbox | None) -> Execution:
    """The task executed on `warm`, or on a toolbox of its own when None."""
    return execute_task(task) if warm is None else warm.execute(task)


def difficulty(task: Task) -> Difficulty:
    """Size of the ground truth: calls, dependency depth, servers touched, writing calls."""
    from mcpgym.servers.catalog import load_server

    writes = sum(
        1 for call in task.calls if (spec := load_server(call.server or "").tools.get(call.tool)) and spec.writes
    )
    servers = len({call.server for call in task.calls})
    return Difficulty(calls=len(task.calls), depth=task.depth(), servers=servers, writes=writes)


def complete_task(task: Task, warm: WarmToolbox | None = None) -> Task:
    """The task with fact values, expected changes, difficulty and every call's `bound`
    values taken from execution (on `warm` if given, else on a toolbox of its own).

    Expected changes of an existing task keep their hand-picked `fields` when the row matches.
    """
    return complete_from_run(task, run_of(task, warm))


def complete_from_run(task: Task, run: Execution) -> Task:
    """`complete_task` from an execution already made."""
    if run.errors:
        raise ValueError(f"task {task.id}: ground truth fails: {run.errors}")
    turns = []
    values = iter(run.facts)
    for turn in task.turns:
        calls = [
            call.model_copy(update={"bound": {name: run.arguments[call.id][name] for name in call.bind}})
            for call in turn.calls
        ]
        facts = [fact.model_copy(update={"value": next(values)}) for fact in turn.facts]
        turns.append(turn.model_copy(update={"calls": calls, "facts": facts}))
    picked = {(c.server, c.table, c.key, c.op): c for c in task.expected_changes}
    changes = [picked.get((c.server, c.table, c.key, c.op), c) for c in run.changes]
    done = task.model_copy(update={"turns": turns, "expected_changes": changes})
    return done.model_copy(update={"difficulty": difficulty(done)})


def same_value(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, int | float) and isinstance(b, int | float) and math.isclose(a, b, rel_tol=1e-9)
    return bool(a == b)


def same_json(a: Any, b: Any) -> bool:
    """Whether two JSON values are identical, types included (`1`, `1.0` and `true` differ)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def bound_problems(task: Task, run: Execution) -> list[str]:
    """Recorded `bound` values that execution does not give, and calls that lack them while
    others have them (a task records them for every call or for none)."""
    missing = [call.id for call in task.calls if call.bound is None]
    problems = []
    if missing and len(missing) < len(task.calls):
        problems.append(f"bound values not recorded for calls {missing}; complete the task again")
    for call in task.calls:
        executed = run.arguments.get(call.id)
        if call.bound is None or executed is None:
            continue
        problems += [
            f"call {call.id}: bound {name!r} recorded {value!r}, ground truth gives {executed.get(name)!r}"
            for name, value in call.bound.items()
            if name not in call.bind or not same_json(value, executed[name])
        ]
    return problems


def verify_task(task: Task, warm: WarmToolbox | None = None) -> list[str]:
    """Problems found by executing the ground truth (on `warm` if given, else on a
    toolbox of its own); an empty list means the task is sound."""
    problems: list[str] = []
    try:
        run = run_of(task, warm)
    except InitialStateError as err:
        return [f"initial_state: {err}"]
    problems += [f"{where}: {error}" for where, error in run.errors.items()]
    problems += bound_problems(task, run)
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
