"""The projects task families: each grounds validated tasks, together they use every tool of the
server, the oracle solves them and doing nothing does not, and the refusals they ask for are
real (the write the request asks for is forbidden and changes nothing)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from family_checks import (
    BASIC_KINDS, check_every_tool_used,
    check_families_ground,
    check_no_internal_ids,
    check_oracle_and_do_nothing,
    check_policy_refusals,
    check_writes_expect_changes,
    one_task_per_family,
)

from mcpgym.servers.kernel.session import ToolSession
from mcpgym.synth.families.projects import PROJECTS_FAMILIES
from mcpgym.tasks.model import Task
from mcpgym.tasks.refs import Results

SERVERS = ("projects", "zendesk")
ATTEMPTS = 25
KNOWN_HANDLES = {"ticket_id", "support_ticket_id"}
"""Id arguments a user has and quotes (a help-desk ticket number)."""


@pytest.fixture(scope="module")
def validated() -> Iterator[dict[str, Task]]:
    yield one_task_per_family(PROJECTS_FAMILIES, SERVERS, ATTEMPTS)


def test_every_family_grounds_a_valid_task(validated: dict[str, Task]) -> None:
    check_families_ground(validated, PROJECTS_FAMILIES, SERVERS, "projects")


def test_the_families_use_every_projects_tool(validated: dict[str, Task]) -> None:
    check_every_tool_used(validated, PROJECTS_FAMILIES, SERVERS, "projects", BASIC_KINDS | {"drill-down", "comparison"})


def test_writes_expect_changes_and_reads_none(validated: dict[str, Task]) -> None:
    check_writes_expect_changes(validated, PROJECTS_FAMILIES)


Refusal = Callable[[Task, Results, ToolSession], tuple[str, dict[str, Any]]]


def _key(task: Task) -> str:
    return re.findall(r"\b[A-Z]{2,5}-\d+\b", task.turns[0].user)[0]


def _active_sprint(session: ToolSession, task: Task) -> int:
    project = re.findall(r"\b(WEB|API|MOB|DATA)\b", task.turns[0].user)[0]
    found = session.call("list_sprints", {"project_key": project, "state": ["active"]}).data
    assert found is not None
    return int(found["sprints"][0]["id"])


def _user_id(session: ToolSession, name: str) -> int:
    found = session.call("search_users", {"query": name}).data
    assert found is not None and found["total"] == 1
    return int(found["users"][0]["id"])


REFUSED: dict[str, Refusal] = {
    "projects.blocked-resolution": lambda t, r, s: ("transition_issue", {"issue_key": _key(t), "status": "Done"}),
    "projects.workflow-refusal": lambda t, r, s: ("transition_issue", {
        "issue_key": _key(t), "status": "In Review" if "In Review" in t.turns[0].user else "Done"}),
    "projects.close-sprint-refusal": lambda t, r, s: ("close_sprint", {"sprint_id": _active_sprint(s, t)}),
    "projects.estimate-refusal": lambda t, r, s: ("update_issue", {
        "issue_key": _key(t), "story_points": int(re.findall(r"\b(\d+) (?:story )?points?\b", t.turns[0].user)[0])}),
    "projects.assign-outsider": lambda t, r, s: ("assign_issue", {
        "issue_key": _key(t), "assignee_id": _user_id(s, t.calls[0].arguments["query"])}),
    "projects.duplicate-escalation": lambda t, r, s: ("create_issue", {
        "project_key": "SUP", "type": "bug", "summary": "Escalation", "support_ticket_id": t.calls[0].arguments["support_ticket_id"]}),
}
"""Per policy family, the write the request asks for."""


def test_policy_tasks_ask_for_what_the_rules_refuse(validated: dict[str, Task]) -> None:
    check_policy_refusals(validated, PROJECTS_FAMILIES, "projects", {
        name: lambda task, results, box, refused=refused: refused(task, results, box.sessions["projects"])
        for name, refused in REFUSED.items()})


def test_the_oracle_solves_every_family_and_doing_nothing_scores_zero(validated: dict[str, Task]) -> None:
    check_oracle_and_do_nothing(validated)


def test_requests_name_no_internal_ids(validated: dict[str, Task]) -> None:
    """User and sprint ids reach the calls only through bindings; requests name keys, names,
    emails and ticket numbers."""
    check_no_internal_ids(validated, known=KNOWN_HANDLES)