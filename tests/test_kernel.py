"""The kernel: isolation, cheap exact resets, no partial writes, determinism, error model."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from mcpgym.servers.catalog import server_names
from mcpgym.servers.kernel.errors import ForbiddenError
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.spec import ServerSpec
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry
from mcpgym.servers.kernel.world import build_world


SERVERS = server_names()


class Out(BaseModel):
    ok: bool


def test_two_sessions_do_not_see_each_others_writes(zendesk: ServerSpec) -> None:
    with ToolSession(zendesk, 0) as a, ToolSession(zendesk, 0) as b:
        assert a.call("update_ticket", {"ticket_id": 1486, "priority": "urgent"}).ok
        assert a.call("get_ticket", {"ticket_id": 1486}).data["priority"] == "urgent"
        assert b.call("get_ticket", {"ticket_id": 1486}).data["priority"] == "high"
        assert a.state_hash() != b.state_hash()


def test_reset_restores_the_seeded_world_exactly(session: ToolSession) -> None:
    seeded = session.state_hash()
    assert session.call("create_ticket", {"subject": "x", "description": "y", "requester_id": 594}).ok
    assert session.call("add_comment", {"ticket_id": 1486, "body": "hello"}).ok
    assert session.state_hash() != seeded
    assert len(session.diff()) >= 3
    session.reset()
    assert session.state_hash() == seeded
    assert session.diff() == []


def test_reset_to_another_seed_gives_another_world(session: ToolSession) -> None:
    seed0 = session.state_hash()
    session.reset(1)
    assert session.state_hash() != seed0
    assert session.context.now == build_world(1).now != build_world(0).now
    session.reset(0)
    assert session.state_hash() == seed0


def test_failed_write_leaves_no_partial_change(zendesk: ServerSpec) -> None:
    """A tool that writes and then fails must roll back what it wrote."""
    tools = ToolRegistry()

    @tools.tool(writes=True)
    def rename_then_fail(ctx: ToolContext, ticket_id: int) -> Out:
        """Renames a ticket, then refuses."""
        from mcpgym.servers.zendesk.models import Ticket

        ticket = ctx.db.get(Ticket, ticket_id)
        assert ticket is not None
        ticket.subject = "changed"
        ctx.db.flush()
        raise ForbiddenError("not allowed after all")

    failing = dataclasses.replace(zendesk, tools=tools)
    with ToolSession(failing, 0) as session:
        before = session.state_hash()
        result = session.call("rename_then_fail", {"ticket_id": 1486})
        assert not result.ok and result.error == "forbidden: not allowed after all"
        assert session.state_hash() == before
        assert session.diff() == [] and failing.changelog.touched(session._connection) == []


def test_internal_errors_hide_the_traceback(zendesk: ServerSpec) -> None:
    tools = ToolRegistry()

    @tools.tool()
    def broken(ctx: ToolContext) -> Out:
        """Always breaks."""
        raise RuntimeError("secret internals")

    spec = ServerSpec(name="x", title="", instructions="", base=zendesk.base, populate=zendesk.populate, tools=tools)
    with ToolSession(spec, 0) as session:
        result = session.call("broken", {})
    assert not result.ok
    assert result.error is not None and result.error.startswith("internal_error:")
    assert "secret" not in result.error and "Traceback" not in result.error


@pytest.mark.parametrize(
    ("tool", "arguments", "code"),
    [
        ("get_ticket", {"ticket_id": 10**9}, "not_found"),
        ("get_ticket", {"ticket_id": "abc"}, "invalid_arguments"),
        ("get_ticket", {}, "invalid_arguments"),
        ("get_ticket", {"ticket_id": 1, "extra": 2}, "invalid_arguments"),
        ("get_ticket", [1], "invalid_arguments"),
        ("update_ticket", {"ticket_id": 5, "priority": "urgent"}, "forbidden"),
        ("update_ticket", {"ticket_id": 1486, "priority": "critical"}, "invalid_arguments"),
        ("no_such_tool", {}, "unknown_tool"),
        ("get_user", {"user_id": 10**19}, "invalid_arguments"),
        ("search_users", {"page": 10**19}, "invalid_arguments"),
        ("search_tickets", {"created_after": "0001-01-01T00:00:00+05:00"}, "invalid_arguments"),
    ],
)
def test_bad_input_is_a_clear_error_and_changes_nothing(
    session: ToolSession, tool: str, arguments: object, code: str
) -> None:
    before = session.state_hash()
    result = session.call(tool, arguments)
    assert not result.ok
    assert result.error is not None and result.error.startswith(f"{code}: ")
    assert len(result.error) > len(code) + 10
    assert session.state_hash() == before


def test_same_seed_same_world_across_processes(zendesk: ServerSpec) -> None:
    code = (
        "from mcpgym.servers.catalog import load_server\n"
        "from mcpgym.servers.kernel.session import ToolSession\n"
        "print(ToolSession(load_server('zendesk'), 3).state_hash())"
    )
    env = {**os.environ, "PYTHONHASHSEED": "random", "MCPGYM_CACHE_DIR": "off"}  # built afresh, not loaded
    hashes = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout for _ in range(2)}
    with ToolSession(zendesk, 3) as here:
        hashes.add(here.state_hash() + "\n")
    assert len(hashes) == 1


@pytest.fixture(scope="module")
def snapshot_digests() -> list[dict[str, str]]:
    """Per server, the digest of its seeded database of seed 2, built afresh in each of two
    processes with different hash seeds (one process builds every server)."""
    code = (
        "import hashlib, json\n"
        "from mcpgym.servers.catalog import load_server, server_names\n"
        "print(json.dumps({s: hashlib.sha256(load_server(s).seeded(2).snapshot).hexdigest() for s in server_names()}))"
    )
    processes = [  # at once: each builds every server's world
        subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "PYTHONHASHSEED": str(n), "MCPGYM_CACHE_DIR": "off"})
        for n in (1, 2)
    ]
    outputs = [process.communicate() for process in processes]
    for process, (_, errors) in zip(processes, outputs, strict=True):
        assert process.returncode == 0, errors[-2000:]
    return [json.loads(stdout) for stdout, _ in outputs]


@pytest.mark.parametrize("server", SERVERS)
def test_seeded_snapshot_is_the_same_to_the_byte_across_processes(server: str, snapshot_digests: list[dict[str, str]]) -> None:
    first, second = (digests[server] for digests in snapshot_digests)
    assert first == second and len(first) == 64


CREATION_COLUMNS = ("created_at", "placed_at", "posted_at", "sent_at", "submitted_at", "hired_at")
"""Columns that say when a row came to be: never after the world's clock."""


@pytest.mark.parametrize("server", SERVERS)
def test_nothing_seeded_was_made_after_the_worlds_now(server: str) -> None:
    from contextlib import closing

    from mcpgym.servers.catalog import load_server
    from mcpgym.servers.kernel.database import load_database, new_connection

    for seed in (0, 3):
        now = build_world(seed).now.strftime("%Y-%m-%d %H:%M:%S.%f")
        with closing(new_connection()) as connection:
            load_database(connection, load_server(server).seeded(seed).snapshot)
            tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            for table in tables:
                columns = [row[1] for row in connection.execute(f"PRAGMA table_info('{table}')")]
                for column in set(columns) & set(CREATION_COLUMNS):
                    late = connection.execute(f"SELECT count(*), max({column}) FROM '{table}' WHERE {column} > ?", (now,)).fetchone()
                    assert late[0] == 0, f"{server} seed {seed}: {late[0]} {table}.{column} after now ({now}), up to {late[1]}"


def test_world_is_shared_and_consistent() -> None:
    world = build_world(0)
    assert world.home.name == "Northwind Systems"
    emails = [p.email for p in world.people]
    assert len(set(emails)) == len(emails)
    domains = {o.id: o.domain for o in world.organizations}
    assert all(p.email.endswith("@" + domains[p.organization_id]) for p in world.people)
    assert all(p.is_employee == (p.organization_id == world.home.id) for p in world.people)
    assert build_world(0) == build_world(0) and build_world(0) != build_world(1)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_arguments_to_any_read_tool_answer_without_raising(session: ToolSession, data: st.DataObject) -> None:
    """Random arguments (right names, random values) never crash a tool or change state."""
    tool = data.draw(st.sampled_from([t for t in session.tools if not t.writes]))
    names = list(tool.input_schema.get("properties", {}))
    arguments = data.draw(st.dictionaries(st.sampled_from(names) if names else st.text(max_size=5), json_values, max_size=4))
    before = session.diff()
    result = session.call(tool.name, arguments)
    assert result.ok or (result.error or "").split(":")[0] in {"invalid_arguments", "not_found", "forbidden"}
    assert session.diff() == before  # the change log, equal to a full comparison (test_kernel_speed_paths)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_failed_writes_never_change_state(session: ToolSession, data: st.DataObject) -> None:
    tool = data.draw(st.sampled_from([t for t in session.tools if t.writes]))
    names = list(tool.input_schema.get("properties", {}))
    arguments = data.draw(st.dictionaries(st.sampled_from(names), json_values, max_size=4))
    before = session.diff()
    result = session.call(tool.name, arguments)
    if not result.ok:
        assert session.diff() == before  # the change log, equal to a full comparison (test_kernel_speed_paths)
    session.reset()


def test_diff_sees_every_write_and_equals_a_full_comparison(session: ToolSession, zendesk: ServerSpec) -> None:
    """The diff only compares touched tables; it must equal comparing the whole database."""
    from mcpgym.servers.kernel.database import diff_rows, dump_rows

    for name, arguments in [
        ("create_ticket", {"subject": "s", "description": "d", "requester_id": 594, "tags": ["billing", "vip"]}),
        ("remove_ticket_tags", {"ticket_id": 1486, "tags": ["follow_up"]}),
        ("merge_tickets", {"source_ticket_id": 1499, "target_ticket_id": 1486}),
        ("suspend_user", {"user_id": 594}),
    ]:
        assert session.call(name, arguments).ok
    full = diff_rows(seeded_rows(zendesk), dump_rows(session._connection))
    assert session.diff() == full
    assert {c.table for c in full} >= {"tickets", "ticket_tags", "comments", "users"}


def test_diff_sees_rows_deleted_by_cascades() -> None:
    """Rows removed from a parent's collection are deleted by the flush itself; the diff must
    still list them."""
    from mcpgym.servers.catalog import load_server
    from mcpgym.servers.kernel.database import diff_rows, dump_rows

    spec = load_server("calendar")
    with ToolSession(spec, 0) as session:
        example = spec.tools.get("remove_attendee").examples[0]  # type: ignore[union-attr]
        assert session.call("remove_attendee", example).ok
        full = diff_rows(seeded_rows(spec), dump_rows(session._connection))
        assert session.diff() == full
        assert any(c.op == "delete" and c.table == "attendees" for c in full)


def seeded_rows(spec: ServerSpec, seed: int = 0) -> dict:  # type: ignore[type-arg]
    """Every row of the seeded world, for full comparisons."""
    from mcpgym.servers.kernel.database import dump_rows, new_connection

    connection = new_connection()
    connection.deserialize(spec.seeded(seed).snapshot)
    rows = dump_rows(connection)
    connection.close()
    return rows
