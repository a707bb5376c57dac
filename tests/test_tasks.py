"""Shipped tasks: ground truth executes to the recorded values, the oracle scores 1 through
the environment, a do-nothing agent scores 0; the task schema and references."""

from __future__ import annotations

from collections.abc import Iterator

import gymnasium as gym
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from mcpgym.baselines.agents import NoOpAgent, OracleAgent
from mcpgym.baselines.rollout import run_episode
from mcpgym.envs import make_env
from mcpgym.envs.mcp_env import McpEnv
from mcpgym.tasks.execute import verify_task
from mcpgym.tasks.loader import TaskFileError, load_tasks, parse_tasks, save_tasks, shipped_tasks
from mcpgym.tasks.model import Task
from mcpgym.tasks.refs import RefError, evaluate, resolve

TASKS = shipped_tasks()
IDS = [t.id for t in TASKS]


def test_there_are_shipped_tasks_for_every_kind() -> None:
    assert len(TASKS) >= 6
    assert any(len(t.turns) > 1 for t in TASKS)
    assert any(t.expected_changes for t in TASKS) and any(not t.expected_changes for t in TASKS)


@pytest.mark.parametrize("task", TASKS, ids=IDS)
def test_ground_truth_executes_to_the_recorded_values(task: Task) -> None:
    assert verify_task(task) == []


@pytest.fixture(scope="module")
def workspace() -> Iterator[McpEnv]:
    env = gym.make("mcp/workspace-v0").unwrapped
    assert isinstance(env, McpEnv)
    yield env
    env.close()


@pytest.fixture(scope="module")
def every_server() -> Iterator[McpEnv]:
    from mcpgym.servers.catalog import server_names

    env = make_env(server_names())
    yield env
    env.close()


@pytest.mark.parametrize("task", TASKS, ids=IDS)
def test_oracle_scores_one_and_do_nothing_scores_zero(
    task: Task, workspace: McpEnv, request: pytest.FixtureRequest
) -> None:
    """On the task's own env (its registered id when it has one server) and on the workspace, or,
    for a task of servers the workspace does not mount, on an env mounting every server."""
    own = gym.make(task.env_id).unwrapped if len(task.servers) == 1 else make_env(task.servers)
    assert isinstance(own, McpEnv)
    mounted = set(task.servers) <= set(workspace.toolbox.servers)
    shared: McpEnv = workspace if mounted else request.getfixturevalue("every_server")
    for env in (own, shared):
        oracle = run_episode(env, OracleAgent(), task)
        assert oracle.terminated and oracle.reward == 1.0, oracle.info.get("reward_breakdown")
        nothing = run_episode(env, NoOpAgent(), task)
        assert nothing.terminated and nothing.reward == 0.0
    own.close()


def test_tasks_span_every_server_and_some_cross_servers() -> None:
    from mcpgym.servers.catalog import server_names

    assert {s for t in TASKS for s in t.servers} == set(server_names())
    crossing = [t for t in TASKS if len({c.server for c in t.calls}) >= 2]
    assert len(crossing) >= 3


def test_a_wrong_recorded_value_is_caught() -> None:
    task = next(t for t in TASKS if t.facts)
    fact = task.turns[0].facts[0]
    broken = task.model_copy(deep=True)
    broken.turns[0].facts[0] = fact.model_copy(update={"value": "not the answer"})
    assert any("ground truth gives" in p for p in verify_task(broken))


def test_a_missing_expected_change_is_caught() -> None:
    task = next(t for t in TASKS if t.expected_changes)
    broken = task.model_copy(update={"expected_changes": task.expected_changes[1:]})
    assert any("not listed" in p for p in verify_task(broken))


def test_jsonl_round_trip(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "tasks.jsonl"
    save_tasks(TASKS, path)
    assert load_tasks(path) == TASKS


def test_bad_task_files_name_the_line() -> None:
    with pytest.raises(TaskFileError, match="t.jsonl:2"):
        parse_tasks(['{"id": "a", "servers": ["zendesk"], "turns": [{"user": "hi"}]}', "{not json"], "t.jsonl")
    line = TASKS[0].model_dump_json()
    with pytest.raises(TaskFileError, match="appears twice"):
        parse_tasks([line, line])


def test_references_must_point_backwards() -> None:
    with pytest.raises(ValidationError, match="later or unknown"):
        Task.model_validate(
            {
                "id": "x",
                "servers": ["zendesk"],
                "turns": [{"user": "u", "calls": [{"id": "c1", "tool": "get_user", "bind": {"user_id": "{c2.id}"}}]}],
            }
        )


def test_refs_and_expressions() -> None:
    results = {"c1": {"tickets": [{"id": 7, "n": 2.5}], "total": 9}, "c2": {"total": 4}}
    assert resolve("c1.tickets.0.id", results) == 7
    assert evaluate("{c1.total} - {c2.total}", results) == 5
    assert evaluate("round({c1.tickets.0.n} * 3, 1)", results) == 7.5
    assert evaluate("[{c1.total}, {c2.total}]", results) == [9, 4]
    assert evaluate('"ticket " + "x"', results) == "ticket x"
    assert evaluate("{c1.total} > {c2.total} and {c2.total} == 4", results) is True
    assert evaluate("{c1.total} == 9 or {c1.tickets.7.id}", results) is True
    with pytest.raises(RefError):
        evaluate("{c1.total} == 1 or {c1.tickets.7.id}", results)
    for bad in ("{c3.total}", "{c1.tickets.5.id}", "{c1.nope}", "__import__('os')", "{c1.total} +"):
        with pytest.raises(RefError):
            evaluate(bad, results)


@given(st.lists(st.integers(-1000, 1000), min_size=1, max_size=6))
def test_list_refs_resolve_every_index(values: list[int]) -> None:
    results = {"c": {"xs": values}}
    assert [resolve(f"c.xs.{i}", results) for i in range(len(values))] == values
    assert evaluate(" + ".join(f"{{c.xs.{i}}}" for i in range(len(values))), results) == sum(values)
