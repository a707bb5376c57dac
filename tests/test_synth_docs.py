"""The docs task families: each grounds valid tasks in the seed-0 world, together their ground
truths use every docs tool, and the oracle solves them while doing nothing scores zero."""

from __future__ import annotations

from collections import defaultdict

import pytest

from mcpgym.baselines.agents import NoOpAgent, OracleAgent
from mcpgym.baselines.rollout import run_episode
from mcpgym.envs import make_env
from mcpgym.servers.catalog import load_server
from mcpgym.synth.families import families_for
from mcpgym.synth.families.docs import DOCS_FAMILIES
from mcpgym.synth.generate import synthesize
from mcpgym.tasks.execute import verify_task
from mcpgym.tasks.model import Task


@pytest.fixture(scope="module")
def tasks_by_family() -> dict[str, list[Task]]:
    found: dict[str, list[Task]] = defaultdict(list)
    for family in DOCS_FAMILIES:
        tasks, _ = synthesize(list(family.servers), n=2, families=[family], max_attempts=60)
        found[family.name] += tasks
    return found


def test_every_family_grounds_tasks(tasks_by_family: dict[str, list[Task]]) -> None:
    assert {family.name for family in DOCS_FAMILIES} == {name for name, tasks in tasks_by_family.items() if tasks}
    kinds = {family.kind for family in DOCS_FAMILIES}
    assert {"lookup", "aggregation", "write", "conditional-write", "multi-turn", "policy", "cross-server"} <= kinds
    assert all(f.name.startswith(("docs.", "cross.docs-")) for f in DOCS_FAMILIES)
    assert set(DOCS_FAMILIES) <= set(families_for(["docs", "zendesk"]))


def test_the_ground_truths_use_every_docs_tool(tasks_by_family: dict[str, list[Task]]) -> None:
    used = {call.tool for tasks in tasks_by_family.values() for task in tasks for call in task.calls
            if call.server == "docs"}
    assert used == {tool.name for tool in load_server("docs").tools}


def test_policy_tasks_expect_no_change_and_write_tasks_a_change(tasks_by_family: dict[str, list[Task]]) -> None:
    for family in DOCS_FAMILIES:
        for task in tasks_by_family[family.name]:
            if family.kind == "policy":
                assert not task.expected_changes and task.facts
                assert not any(load_server(c.server or "").tools.get(c.tool).writes for c in task.calls)  # type: ignore[union-attr]
            elif family.kind in ("write", "multi-turn"):
                assert task.expected_changes, task.id


def test_the_oracle_solves_one_task_of_each_family_and_doing_nothing_scores_zero(
    tasks_by_family: dict[str, list[Task]],
) -> None:
    envs = {}
    for family in DOCS_FAMILIES:
        task = tasks_by_family[family.name][0]
        assert verify_task(task) == [], task.id
        env = envs.setdefault(tuple(task.servers), make_env(task.servers))
        assert run_episode(env, OracleAgent(), task).reward == 1.0, task.id
        assert run_episode(env, NoOpAgent(), task).reward == 0.0, task.id
    for env in envs.values():
        env.close()
