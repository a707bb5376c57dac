"""The zendesk and crm task families use every tool of their server, and what they draft is
solved by the oracle and not by doing nothing; refusals and conditional writes take the
branch the world calls for."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from mcpgym.baselines.agents import NoOpAgent, OracleAgent
from mcpgym.baselines.rollout import run_episode
from mcpgym.envs import make_env
from mcpgym.servers.catalog import load_server
from mcpgym.servers.toolbox import Toolbox
from mcpgym.synth.families.crm import CRM_FAMILIES
from mcpgym.synth.families.zendesk import ZENDESK_FAMILIES
from mcpgym.synth.family import Family, WorldView
from mcpgym.synth.generate import synthesize
from mcpgym.tasks.execute import execute_task
from mcpgym.tasks.model import Task

FAMILIES = {"zendesk": ZENDESK_FAMILIES, "crm": CRM_FAMILIES}
NEW = {
    "zendesk": ("tags-by-prefix", "retag-ticket", "apply-macro", "duplicate-then-merge", "new-ticket-for-customer",
                "new-customer-then-ticket", "suspend-customer", "suspend-agent", "ticket-team", "ticket-number-status",
                "prefix-tag-then-tag", "ticket-then-macro", "tags-then-untag",
                "customer-then-suspend",
                "organization-satisfaction"),
    "crm": ("complete-task", "oldest-task-then-complete", "task-person-lookup", "latest-account-note",
            "new-account-setup", "new-lead-unless-known", "new-account-then-deal", "new-lead-then-task"),
}


def _family(server: str, short: str) -> Family:
    return next(f for f in FAMILIES[server] if f.name == f"{server}.{short}")


def _tools(task: Task) -> set[str]:
    return {call.tool for call in task.calls}


@pytest.fixture(scope="module", params=sorted(FAMILIES))
def synthesized(request: pytest.FixtureRequest) -> Iterator[tuple[str, list[Task]]]:
    server = request.param
    tasks, _ = synthesize([server], 240, seed=3, families=list(FAMILIES[server]))
    yield server, tasks


def test_every_tool_appears_in_some_ground_truth(synthesized: tuple[str, list[Task]]) -> None:
    server, tasks = synthesized
    every = {tool.name for tool in load_server(server).tools}
    used = set().union(*(_tools(t) for t in tasks))
    assert every - used == set()


def test_every_new_family_yields_tasks(synthesized: tuple[str, list[Task]]) -> None:
    server, tasks = synthesized
    families = {next(tag for tag in t.tags if tag.startswith("family:")) for t in tasks}
    assert {f"family:{server}.{short}" for short in NEW[server]} <= families


@pytest.mark.parametrize(("server", "short"), [(s, f) for s in sorted(NEW) for f in NEW[s]])
def test_the_oracle_solves_a_new_family_and_doing_nothing_does_not(server: str, short: str) -> None:
    tasks, _ = synthesize([server], 2, seed=11, families=[_family(server, short)])
    assert tasks, f"{server}.{short} drafted nothing"
    env = make_env([server])
    try:
        for task in tasks:
            assert run_episode(env, OracleAgent(), task).reward == 1.0, task.id
            assert run_episode(env, NoOpAgent(), task).reward == 0.0, task.id
    finally:
        env.close()


def test_suspending_an_agent_is_refused_and_the_task_writes_nothing() -> None:
    tasks, _ = synthesize(["zendesk"], 3, seed=5, families=[_family("zendesk", "suspend-agent")])
    assert tasks
    box = Toolbox(["zendesk"], 0)
    try:
        session = box.sessions["zendesk"]
        for task in tasks:
            assert all(not session.spec.tools.get(call.tool).writes for call in task.calls)
            run = execute_task(task, box)
            assert run.changes == []
            agent = run.results["c1"]["users"][0]
            assert agent["role"] != "end-user"
            refused = session.call("suspend_user", {"user_id": agent["id"]})
            assert not refused.ok and (refused.error or "").startswith("forbidden")
    finally:
        box.close()


def test_a_new_lead_is_created_only_for_someone_the_crm_does_not_know() -> None:
    tasks, _ = synthesize(["crm"], 24, seed=2, families=[_family("crm", "new-lead-unless-known")])
    created = [t for t in tasks if "create_lead" in _tools(t)]
    known = [t for t in tasks if "create_lead" not in _tools(t)]
    assert created and known
    box = Toolbox(["crm"], 0)
    try:
        for task in known:
            run = execute_task(task, box)
            assert run.changes == [] and run.results["c1"]["owner_name"] == task.turns[0].facts[0].value
        for task in created:
            run = execute_task(task, box)
            assert run.results["c1"]["total"] == run.results["c2"]["total"] == 0
            assert run.results["c3"]["status"] == "new"
    finally:
        box.close()


def test_sampling_reads_only_the_seeded_world() -> None:
    view = WorldView(("crm",), 0)
    try:
        before = view.read("crm", "search_activities", type="task", status="open", per_page=1)["total"]
        rng = random.Random(4)
        for _ in range(10):
            _family("crm", "complete-task").draft(view, rng)
        assert view.read("crm", "search_activities", type="task", status="open", per_page=1)["total"] == before
    finally:
        view.close()
