"""The files task families: together they use every tool, refusals change nothing, the CRM
families cross servers, and the oracle solves what a do-nothing agent does not."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mcpgym.baselines.agents import NoOpAgent, OracleAgent
from mcpgym.baselines.rollout import run_episode
from mcpgym.envs import make_env
from mcpgym.servers.catalog import load_server
from mcpgym.synth.families import families_for
from mcpgym.synth.generate import synthesize
from mcpgym.tasks.model import Task

SERVERS = ("crm", "files")


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    families = [f for f in families_for(SERVERS) if f.name.startswith(("files.", "cross.files-"))]
    found, _ = synthesize(SERVERS, 240, families=families)
    return found


def family(task: Task) -> str:
    return next(tag for tag in task.tags if tag.startswith("family:")).removeprefix("family:")


def test_the_families_use_every_tool(tasks: list[Task]) -> None:
    used = {call.tool for task in tasks for call in task.calls if call.server == "files"}
    assert used == set(load_server("files").tools.names())
    assert {family(t) for t in tasks} >= {f.name for f in families_for(SERVERS) if f.name.startswith("cross.files-")}


def test_refusals_and_reads_change_nothing_and_writes_say_what_changes(tasks: list[Task]) -> None:
    writes = {tool.name for tool in load_server("files").tools if tool.writes}
    for task in tasks:
        wrote = any(call.tool in writes for call in task.calls)
        assert bool(task.expected_changes) == wrote, task.id
        if "kind:policy" in task.tags:
            assert not wrote and all(turn.facts for turn in task.turns), task.id


def test_cross_families_join_the_crm_by_name_or_email(tasks: list[Task]) -> None:
    cross = [t for t in tasks if family(t).startswith("cross.files-")]
    assert cross
    for task in cross:
        assert {call.server for call in task.calls} == set(SERVERS), task.id


@pytest.fixture(scope="module")
def envs() -> Iterator[dict[tuple[str, ...], object]]:
    made: dict[tuple[str, ...], object] = {}
    yield made
    for env in made.values():
        env.close()  # type: ignore[attr-defined]


def test_the_oracle_solves_one_task_per_family_and_doing_nothing_scores_zero(
        tasks: list[Task], envs: dict[tuple[str, ...], object]) -> None:
    firsts: dict[str, Task] = {}
    for task in tasks:
        firsts.setdefault(family(task), task)
    assert len(firsts) >= 35
    for task in firsts.values():
        env = envs.setdefault(tuple(task.servers), make_env(task.servers))
        assert run_episode(env, OracleAgent(), task).reward == 1.0, task.id  # type: ignore[arg-type]
        assert run_episode(env, NoOpAgent(), task).reward == 0.0, task.id  # type: ignore[arg-type]
