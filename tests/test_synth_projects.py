"""The projects task families: each grounds validated tasks, together they use every tool of the
server, the oracle solves them and doing nothing does not, and the refusals they ask for are
real (the write the request asks for is forbidden and changes nothing)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from family_checks import one_task_per_family

from mcpgym.baselines.agents import NoOpAgent, OracleAgent
from mcpgym.baselines.rollout import run_episode
from mcpgym.envs import make_env
from mcpgym.servers.catalog import load_server
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.toolbox import Toolbox
from mcpgym.synth.families import families_for
from mcpgym.synth.families.projects import PROJECTS_FAMILIES
from mcpgym.tasks.execute import execute_task
from mcpgym.tasks.model import Task
from mcpgym.tasks.refs import Results, evaluate

SERVERS = ("projects", "zendesk")
ATTEMPTS = 25
KNOWN_HANDLES = {"ticket_id", "support_ticket_id"}
"""Id arguments a user has and quotes (a help-desk ticket number)."""


@pytest.fixture(scope="module")
def validated() -> Iterator[dict[str, Task]]:
    yield one_task_per_family(PROJECTS_FAMILIES, SERVERS, ATTEMPTS)


def test_every_family_grounds_a_valid_task(validated: dict[str, Task]) -> None:
    assert set(validated) == {f.name for f in PROJECTS_FAMILIES}
    assert {f.name for f in PROJECTS_FAMILIES} <= {f.name for f in families_for(SERVERS)}
    assert all(f.name.startswith(("projects.", "cross.projects-")) for f in PROJECTS_FAMILIES)


def test_the_families_use_every_projects_tool(validated: dict[str, Task]) -> None:
    used = {call.tool for task in validated.values() for call in task.calls if call.server == "projects"}
    assert used == set(load_server("projects").tools.names())
    kinds = {f.kind for f in PROJECTS_FAMILIES}
    assert {"lookup", "drill-down", "aggregation", "comparison", "write", "conditional-write", "policy", "multi-turn",
            "cross-server"} <= kinds
    assert any(len(t.turns) > 1 for t in validated.values())
    assert {s for t in validated.values() if len(t.servers) > 1 for s in t.servers} == set(SERVERS)


def test_writes_expect_changes_and_reads_none(validated: dict[str, Task]) -> None:
    for family in PROJECTS_FAMILIES:
        task = validated[family.name]
        writes = any(load_server(c.server or "").tools.get(c.tool).writes for c in task.calls)  # type: ignore[union-attr]
        assert bool(task.expected_changes) == writes, family.name
        if family.kind == "policy":
            assert not writes and task.facts, family.name


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
    assert set(REFUSED) == {f.name for f in PROJECTS_FAMILIES if f.kind == "policy"}
    for name, refused in REFUSED.items():
        task = validated[name]
        box = Toolbox(list(task.servers), task.seed)
        run = execute_task(task, box)
        session = box.sessions["projects"]
        tool, arguments = refused(task, run.results, session)
        before = box.state_hash()
        result = session.call(tool, arguments)
        assert (result.error or "").startswith("forbidden: "), (name, arguments, result.text[:200])
        assert box.state_hash() == before
        box.close()
        for fact in task.facts:
            assert evaluate(fact.expr, run.results) == fact.value


def test_the_oracle_solves_every_family_and_doing_nothing_scores_zero(validated: dict[str, Task]) -> None:
    envs = {}
    for name, task in validated.items():
        env = envs.setdefault(tuple(task.servers), make_env(task.servers))
        assert run_episode(env, OracleAgent(), task).reward == 1.0, name
        assert run_episode(env, NoOpAgent(), task).reward == 0.0, name
    for env in envs.values():
        env.close()


def test_requests_name_no_internal_ids(validated: dict[str, Task]) -> None:
    """User and sprint ids reach the calls only through bindings; requests name keys, names,
    emails and ticket numbers."""
    for task in validated.values():
        text = " ".join(turn.user for turn in task.turns)
        for call in task.calls:
            for name, value in call.arguments.items():
                if name.endswith("_id") and name not in KNOWN_HANDLES:
                    assert not re.search(rf"(?<![\d-]){value}(?![\d-])", text), (task.id, name, value)
