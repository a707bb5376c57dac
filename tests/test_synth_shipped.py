"""The shipped synthesized task set: spread, splits, and a sample replayed end to end."""

from __future__ import annotations

import random
import statistics

import pytest

from mcpgym.baselines.agents import NoOpAgent, OracleAgent
from mcpgym.baselines.rollout import run_episode
from mcpgym.envs import make_env
from mcpgym.servers.catalog import load_server, server_names
from mcpgym.tasks.execute import verify_task
from mcpgym.tasks.loader import named_tasks, shipped_tasks, synthesized_tasks

TASKS = synthesized_tasks()


def test_the_set_has_the_promised_spread() -> None:
    assert len(TASKS) >= 10_000
    calls = [len(t.calls) for t in TASKS]
    assert statistics.median(calls) >= 3 and max(calls) >= 12
    assert sum(c >= 5 for c in calls) >= len(TASKS) / 10
    assert sum(len({c.server for c in t.calls}) > 1 for t in TASKS) >= len(TASKS) / 5
    assert sum(len({c.server for c in t.calls}) >= 3 for t in TASKS) >= len(TASKS) / 100
    assert sum(len(t.turns) > 1 for t in TASKS) >= len(TASKS) / 4
    per_server = {s: sum(t.servers == [s] for t in TASKS) for s in server_names()}
    assert min(per_server.values()) >= 100, per_server


def test_the_shipped_tasks_use_every_tool_of_every_server() -> None:
    used = {(call.server or task.servers[0], call.tool) for task in [*TASKS, *shipped_tasks()] for call in task.calls}
    unused = [(server, tool.name) for server in server_names() for tool in load_server(server).tools
              if (server, tool.name) not in used]
    assert not unused, f"tools no shipped task calls: {unused}"


def test_splits_partition_the_set_by_entities() -> None:
    train, test = named_tasks("synth-train"), named_tasks("synth-test")
    assert len(train) + len(test) == len(TASKS) and len(test) >= len(TASKS) / 10
    key = {t.id: next(tag for tag in t.tags if tag.startswith("family:")) for t in TASKS}
    assert {key[t.id] for t in test} <= {key[t.id] for t in train}
    assert not {t.turns[0].user for t in train} & {t.turns[0].user for t in test}


@pytest.mark.parametrize("index", range(12))
def test_a_sample_verifies_and_the_oracle_solves_it(index: int) -> None:
    task = random.Random(index).choice(TASKS)
    assert verify_task(task) == []
    env = make_env(task.servers)
    assert run_episode(env, OracleAgent(), task).reward == 1.0
    assert run_episode(env, NoOpAgent(), task).reward == 0.0
    env.close()


@pytest.mark.slow
def test_every_shipped_task_verifies_and_the_oracle_solves_it() -> None:
    envs = {}
    for task in TASKS:
        assert verify_task(task) == [], task.id
        env = envs.setdefault(tuple(task.servers), make_env(task.servers))
        assert run_episode(env, OracleAgent(), task).reward == 1.0, task.id
