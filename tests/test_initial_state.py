"""A task's own initial state: a seed plus a patch of rows per server, through every layer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from mcpgym.baselines.agents import NoOpAgent, OracleAgent
from mcpgym.baselines.rollout import run_episode
from mcpgym.envs.mcp_env import McpEnv
from mcpgym.servers.toolbox import Toolbox
from mcpgym.servers.kernel.initial_state import MAX_PATCH_BYTES, MAX_PATCH_ROWS, InitialStateError, RowPatch
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.spec import ServerSpec
from mcpgym.tasks.execute import complete_task, execute_task, verify_task
from mcpgym.tasks.loader import parse_tasks
from mcpgym.tasks.model import Task

REOPEN = RowPatch.model_validate([
    {"op": "update", "table": "tickets", "key": {"id": 1}, "values": {"status": "open", "subject": "Printer on fire"}},
])
"""Ticket 1 is closed in the seeded world; this patch reopens it under a new subject."""
RENAME = RowPatch.model_validate([
    {"op": "update", "table": "tickets", "key": {"id": 1}, "values": {"status": "open", "subject": "Lost badge"}},
    {"op": "delete", "table": "ticket_tags", "key": {"ticket_id": 1, "tag": "bug"}},
])


def draft(patch: RowPatch, task_id: str = "patched") -> Task:
    """A task that reads ticket 1's subject and raises its priority: both need the patch."""
    return Task.model_validate({
        "id": task_id,
        "servers": ["zendesk"],
        "initial_state": {"zendesk": patch.model_dump(mode="json")},
        "turns": [{
            "user": "Ticket 1: what is its subject? Then set its priority to low.",
            "calls": [
                {"id": "c1", "tool": "get_ticket", "arguments": {"ticket_id": 1}},
                {"id": "c2", "tool": "update_ticket", "arguments": {"priority": "low"}, "bind": {"ticket_id": "{c1.id}"}},
            ],
            "facts": [{"name": "subject", "expr": "{c1.subject}", "value": None}],
        }],
    })


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return [complete_task(draft(REOPEN, "reopened")), complete_task(draft(RENAME, "renamed"))]


@pytest.fixture
def env(tasks: list[Task]) -> Iterator[McpEnv]:
    environment = McpEnv(["zendesk"], tasks=tasks)
    yield environment
    environment.close()


def test_a_patched_task_runs_on_its_patched_state(tasks: list[Task]) -> None:
    reopened = tasks[0]
    assert reopened.facts[0].value == "Printer on fire"
    assert [(c.table, c.key, c.op, c.fields) for c in reopened.expected_changes] == [
        ("tickets", "1", "update", {"priority": "low", "updated_at": reopened.expected_changes[0].fields["updated_at"]})
    ]
    assert verify_task(reopened) == []
    unpatched = reopened.model_copy(update={"initial_state": None})
    assert any("fails" in p or "does not happen" in p or "fact" in p for p in verify_task(unpatched))


def test_oracle_scores_one_and_nothing_zero_on_patched_tasks(tasks: list[Task], env: McpEnv) -> None:
    for task in tasks:
        oracle = run_episode(env, OracleAgent(), task)
        assert oracle.terminated and oracle.reward == 1.0, oracle.info.get("reward_breakdown")
        nothing = run_episode(env, NoOpAgent(), task)
        assert nothing.terminated and nothing.reward == 0.0
        assert nothing.info["state_diff"] == []


def test_two_patched_tasks_alternate_on_one_env_without_leaking(tasks: list[Task], env: McpEnv) -> None:
    subjects = {"reopened": "Printer on fire", "renamed": "Lost badge"}
    hashes: dict[str, str] = {}
    for task in [*tasks, *tasks, tasks[1], tasks[1], tasks[0]]:
        env.reset(options={"task": task})
        state = env.toolbox.state_hash()
        assert hashes.setdefault(task.id, state) == state
        session = env.toolbox.sessions["zendesk"]
        ticket = session.call("get_ticket", {"ticket_id": 1}).data
        assert ticket is not None and ticket["subject"] == subjects[task.id]
        assert ("bug" in ticket["tags"]) == (task.id == "reopened")
        assert session.call("update_ticket", {"ticket_id": 1, "subject": "scribble"}).ok
    assert hashes["reopened"] != hashes["renamed"]
    env.reset(options={"task": tasks[0].model_copy(update={"initial_state": None})})
    assert env.toolbox.sessions["zendesk"].call("get_ticket", {"ticket_id": 1}).data["status"] == "closed"  # type: ignore[index]


def test_diff_is_relative_to_the_patched_state(zendesk: ServerSpec) -> None:
    with ToolSession(zendesk, 0, REOPEN) as session:
        assert session.diff() == []
        patched = session.state_hash()
        assert session.call("update_ticket", {"ticket_id": 1, "priority": "low"}).ok
        [change] = session.diff()
        assert (change.table, change.key, change.op) == ("tickets", "1", "update")
        assert change.before is not None and change.before["subject"] == "Printer on fire"
        assert change.before["status"] == "open"
        session.reset()
        assert session.diff() == [] and session.state_hash() == patched
        session.reset(0)
        assert session.state_hash() != patched
        assert session.call("get_ticket", {"ticket_id": 1}).data["status"] == "closed"  # type: ignore[index]


def test_reset_to_the_same_patched_state_undoes_in_place(zendesk: ServerSpec) -> None:
    with ToolSession(zendesk, 0, REOPEN) as session:
        session.call("update_ticket", {"ticket_id": 1, "priority": "low"})
        pages = session._page_count()
        connection = session._connection
        session.reset(0, REOPEN)
        assert session._connection is connection and session._page_count() == pages and session.diff() == []
        session.reset(0, RENAME)
        assert session._connection is not connection, "another state is loaded, on a new connection"


BAD_PATCHES: list[tuple[list[dict[str, Any]], str]] = [
    ([{"op": "delete", "table": "nope", "key": {"id": 1}}], "no table 'nope'"),
    ([{"op": "update", "table": "tickets", "key": {"id": 1}, "values": {"colour": "red"}}], "no columns ['colour']"),
    ([{"op": "update", "table": "tickets", "key": {"subject": "x"}, "values": {"status": "open"}}], "primary-key columns ['id']"),
    ([{"op": "update", "table": "tickets", "key": {"id": 10**9}, "values": {"status": "open"}}], "no row with key"),
    ([{"op": "delete", "table": "ticket_tags", "key": {"ticket_id": 1, "tag": "absent"}}], "no row with key"),
    ([{"op": "insert", "table": "groups", "values": {"id": 1, "name": "Twice", "description": "x"}}], "already exists"),
    ([{"op": "insert", "table": "groups", "values": {"id": 99}}], "required columns ['description', 'name']"),
    ([{"op": "update", "table": "tickets", "key": {"id": 1}, "values": {"created_at": "yesterday"}}], "column 'created_at'"),
    ([{"op": "update", "table": "tickets", "key": {"id": 1}, "values": {"requester_id": 10**7}}], "missing row"),
    ([{"op": "update", "table": "tickets", "key": {"id": 1}, "values": {"id": 2}}], "cannot change"),
    ([{"op": "update", "table": "tickets", "key": {"id": 1}, "values": {"subject": None}}], "cannot be null"),
    ([{"op": "update", "table": "tickets", "key": {"id": 1}, "values": {"priority": 2**70}}], "operation 0"),
]


@pytest.mark.parametrize(("operations", "message"), BAD_PATCHES, ids=[m for _, m in BAD_PATCHES])
def test_a_bad_patch_is_a_clear_error_and_changes_nothing(
    zendesk: ServerSpec, operations: list[dict[str, Any]], message: str
) -> None:
    patch = RowPatch.model_validate(operations)
    box = Toolbox(["zendesk"], 0)
    box.sessions["zendesk"].call("update_ticket", {"ticket_id": 2, "priority": "low"})
    before = box.state_hash()
    with pytest.raises(InitialStateError, match=message.replace("[", r"\[").replace("]", r"\]")) as raised:
        box.reset(0, states={"zendesk": patch})
    assert "operation 0" in str(raised.value) or "refer" in str(raised.value)
    assert box.state_hash() == before
    box.close()
    task = draft(patch)
    assert verify_task(task)[0].startswith("initial_state: ")
    with pytest.raises(InitialStateError):
        execute_task(task)


def test_schema_errors_are_found_when_the_env_loads_its_tasks() -> None:
    bad = draft(RowPatch.model_validate([{"op": "delete", "table": "nope", "key": {"id": 1}}]))
    with pytest.raises(InitialStateError, match="task patched, initial state of zendesk: operation 0"):
        McpEnv(["zendesk"], tasks=[bad])


def test_oversize_and_malformed_patches_do_not_load() -> None:
    row = {"op": "delete", "table": "ticket_tags", "key": {"ticket_id": 1, "tag": "bug"}}
    with pytest.raises(ValidationError, match="at most 1000 items"):
        RowPatch.model_validate([row] * (MAX_PATCH_ROWS + 1))
    big = {"op": "update", "table": "tickets", "key": {"id": 1}, "values": {"description": "x" * MAX_PATCH_BYTES}}
    with pytest.raises(ValidationError, match="over the limit"):
        RowPatch.model_validate([big])
    for malformed in ([{"op": "upsert", "table": "t", "values": {"a": 1}}], [{"op": "delete", "table": "t"}],
                      [{"op": "delete", "table": "t", "key": {}}], {"op": "delete"}):
        with pytest.raises(ValidationError):
            RowPatch.model_validate(malformed)
    line = draft(REOPEN).model_dump_json()
    with pytest.raises(ValueError, match="patches servers \\['crm'\\]"):
        parse_tasks([line.replace('"initial_state":{"zendesk"', '"initial_state":{"crm"')])


def test_tasks_without_a_patch_dump_as_before_and_patched_ones_round_trip(tasks: list[Task]) -> None:
    plain = draft(REOPEN).model_copy(update={"initial_state": None})
    assert "initial_state" not in plain.model_dump_json()
    assert "initial_state" not in plain.model_copy(update={"initial_state": {}}).model_dump_json()
    again = parse_tasks([tasks[0].model_dump_json()])[0]
    assert again == tasks[0] and again.initial_state is not None
    assert again.initial_state["zendesk"].digest == REOPEN.digest


def test_a_patch_can_insert_rows_the_tools_then_read(zendesk: ServerSpec) -> None:
    patch = RowPatch.model_validate([
        {"op": "insert", "table": "tickets", "values": {
            "id": 5000, "subject": "New from the patch", "description": "d", "status": "new", "priority": "high",
            "type": "task", "channel": "email", "requester_id": 170, "created_at": "2025-11-01T09:00:00Z",
            "updated_at": "2025-11-01T09:00:00"}},
        {"op": "insert", "table": "ticket_tags", "values": {"ticket_id": 5000, "tag": "patched"}},
    ])
    with ToolSession(zendesk, 0, patch) as session:
        ticket = session.call("get_ticket", {"ticket_id": 5000})
        assert ticket.ok, ticket.error
        assert ticket.data is not None and ticket.data["tags"] == ["patched"]
        assert ticket.data["created_at"] == "2025-11-01T09:00:00Z"
        assert session.diff() == []


TICKETS = st.integers(1, 1400)
OPERATION = st.one_of(
    st.builds(lambda t, p: {"op": "update", "table": "tickets", "key": {"id": t}, "values": {"priority": p}},
              TICKETS, st.sampled_from(["low", "normal", "high", "urgent"])),
    st.builds(lambda t, s: {"op": "update", "table": "tickets", "key": {"id": t}, "values": {"subject": s}},
              TICKETS, st.text(min_size=1, max_size=40)),
    st.builds(lambda t: {"op": "delete", "table": "satisfaction_ratings", "key": {"id": t}}, st.integers(1, 300)),
    st.builds(lambda t, tag: {"op": "insert", "table": "ticket_tags", "values": {"ticket_id": t, "tag": tag}},
              TICKETS, st.from_regex(r"zz[a-z]{1,8}", fullmatch=True)),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operations=st.lists(OPERATION, min_size=1, max_size=6, unique_by=lambda o: (o["table"], str(o.get("key", o.get("values"))))),
       writes=st.lists(st.tuples(TICKETS, st.sampled_from(["low", "high"])), max_size=4))
def test_resetting_after_any_writes_gives_the_patched_state_again(
    session: ToolSession, operations: list[dict[str, Any]], writes: list[tuple[int, str]]
) -> None:
    patch = RowPatch.model_validate(operations)
    try:
        session.reset(0, patch)
    except InitialStateError as err:  # a deleted rating that the seeded world lacks
        assert "no row with key" in str(err)
        return
    patched = session.state_hash()
    for ticket, priority in writes:
        session.call("update_ticket", {"ticket_id": ticket, "priority": priority})
    session.reset()
    assert session.state_hash() == patched and session.diff() == []
    with ToolSession(session.spec, 0, patch) as fresh:
        assert fresh.state_hash() == patched
    session.reset(0)
