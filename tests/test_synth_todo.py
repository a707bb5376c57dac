"""The todo task families: each grounds validated tasks, together they use every todo tool,
the oracle solves them and doing nothing does not, and the refusals they ask for are real."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from family_checks import (
    check_every_tool_used,
    check_families_ground,
    check_no_internal_ids,
    check_oracle_and_do_nothing,
    check_policy_refusals,
    check_writes_expect_changes,
    one_task_per_family,
    refusals,
)

from mcpgym.servers.toolbox import Toolbox
from mcpgym.synth.families.todo import TODO_FAMILIES
from mcpgym.tasks.model import Task

SERVERS = ("todo", "projects")
ATTEMPTS = 12

Results = dict[str, Any]


@pytest.fixture(scope="module")
def validated() -> Iterator[dict[str, Task]]:
    yield one_task_per_family(TODO_FAMILIES, SERVERS, ATTEMPTS)


def test_every_family_grounds_a_valid_task(validated: dict[str, Task]) -> None:
    check_families_ground(validated, TODO_FAMILIES, SERVERS, "todo")


def test_the_families_use_every_todo_tool(validated: dict[str, Task]) -> None:
    check_every_tool_used(validated, TODO_FAMILIES, SERVERS, "todo")


def test_writes_expect_changes_and_reads_none(validated: dict[str, Task]) -> None:
    check_writes_expect_changes(validated, TODO_FAMILIES)


def _quoted(task: Task) -> list[str]:
    """The texts the request quotes ('...'), in order."""
    return re.findall(r"'([^']+)'", task.turns[0].user)


def _email(task: Task) -> str:
    return re.findall(r"[\w.+-]+@[\w.-]+", task.turns[0].user)[0]


def _user_named(box: Toolbox, task: Task) -> int:
    """The colleague the request names, by name (the words after 'to' or 'Give ... to')."""
    users = box.sessions["todo"].call("list_users", {"per_page": 100}).data["users"]  # type: ignore[index]
    return next(u["id"] for u in users if u["name"] in task.turns[0].user and u["id"] != 1)


REFUSED: dict[str, tuple[str, Callable[[Results, Task, Toolbox], dict[str, Any]]]] = {
    "todo.delete-recurring": ("delete_task", lambda r, t, b: {"task_id": r["c1"]["tasks"][0]["id"]}),
    "todo.archive-with-open-tasks": ("archive_project", lambda r, t, b: {"project_id": r["c1"]["projects"][0]["id"]}),
    "todo.add-to-archived": ("create_task", lambda r, t, b: {"content": _quoted(t)[0], "project_id": r["c1"]["projects"][0]["id"]}),
    "todo.subtask-too-deep": ("create_task", lambda r, t, b: {"content": _quoted(t)[0], "parent_id": r["c1"]["tasks"][0]["id"]}),
    "todo.assign-outsider": ("assign_task", lambda r, t, b: {"task_id": r["c1"]["tasks"][0]["id"], "assignee_id": _user_named(b, t)}),
    "todo.duplicate-label": ("create_label", lambda r, t, b: {"name": _quoted(t)[0]}),
    "todo.edit-completed": ("update_task", lambda r, t, b: {"task_id": r["c1"]["tasks"][0]["id"], "due_date": "2026-01-02"}),
    "todo.archive-others-project": ("archive_project", lambda r, t, b: {"project_id": r["c1"]["projects"][0]["id"]}),
    "todo.share-inbox": ("share_project", lambda r, t, b: {"project_id": r["c1"]["projects"][0]["id"], "email": _email(t)}),
}
"""Per policy family, the write the request asks for, from the ground truth's results."""


def test_policy_tasks_ask_for_what_the_rules_refuse(validated: dict[str, Task]) -> None:
    check_policy_refusals(validated, TODO_FAMILIES, "todo", refusals(
        REFUSED, lambda make, task, results, box: make(results, task, box)))


def test_the_oracle_solves_every_family_and_doing_nothing_scores_zero(validated: dict[str, Task]) -> None:
    check_oracle_and_do_nothing(validated)


def test_requests_name_no_internal_ids(validated: dict[str, Task]) -> None:
    """Ids reach the calls only through bindings (user 1, 'me', aside)."""
    check_no_internal_ids(validated, me=1)