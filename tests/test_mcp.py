"""Real MCP clients (the official SDK) over in-memory, stdio and streamable HTTP transports
see the same tools, results and errors as the in-process path, and one world per session."""

from __future__ import annotations

import sys
from typing import Any
from urllib.parse import quote

import anyio
import mcp
import pytest
from mcp import StdioServerParameters
from mcp_clients import http_json, http_server, text_of

from mcpgym.servers.kernel.mcp_server import SessionPool, build_mcp_server
from mcpgym.servers.kernel.session_pool import PoolFull, SessionExists
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.spec import ServerSpec

CALLS: list[tuple[str, Any]] = [
    ("get_ticket", {"ticket_id": 1380}),
    ("search_tickets", {"tags": ["billing"], "per_page": 3}),
    ("update_ticket", {"ticket_id": 1486, "priority": "urgent"}),
    ("get_ticket", {"ticket_id": 1486}),
    ("add_comment", {"ticket_id": 1486, "body": "On it."}),
    ("get_ticket", {"ticket_id": 10**9}),
    ("get_ticket", {"ticket_id": "abc"}),
    ("update_ticket", {"ticket_id": 5, "priority": "urgent"}),
    ("no_such_tool", {}),
]


def in_process(spec: ServerSpec) -> list[tuple[bool, str]]:
    with ToolSession(spec, 0) as session:
        return [(not r.ok, r.text) for r in (session.call(n, a) for n, a in CALLS)]


async def through(client: mcp.Client) -> tuple[list[str], list[tuple[bool, str]]]:
    tools = (await client.list_tools()).tools
    answers = []
    for name, arguments in CALLS:
        result = await client.call_tool(name, arguments)
        answers.append((bool(result.is_error), text_of(result)))
    return [t.name for t in tools], answers


def test_in_memory_client_matches_in_process(zendesk: ServerSpec) -> None:
    async def main() -> tuple[list[str], list[tuple[bool, str]]]:
        async with mcp.Client(build_mcp_server(SessionPool(zendesk))) as client:
            return await through(client)

    names, answers = anyio.run(main)
    assert names == [t.name for t in zendesk.tools]
    assert answers == in_process(zendesk)


def test_tool_definitions_carry_schemas_titles_and_hints(zendesk: ServerSpec) -> None:
    async def main() -> list[Any]:
        async with mcp.Client(build_mcp_server(SessionPool(zendesk))) as client:
            return (await client.list_tools()).tools

    tools = {t.name: t for t in anyio.run(main)}
    for spec in zendesk.tools:
        tool = tools[spec.name]
        assert tool.description == spec.description
        assert tool.input_schema == spec.input_schema and tool.output_schema == spec.output_schema
        assert tool.annotations is not None and tool.annotations.read_only_hint is (not spec.writes)
        assert tool.title == tool.annotations.title == spec.title and spec.title
        assert tool.annotations.idempotent_hint is spec.idempotent
        assert tool.annotations.destructive_hint is (spec.destructive if spec.writes else None)
    assert tools["merge_tickets"].annotations.destructive_hint is True  # type: ignore[union-attr]


def test_stdio_client_matches_in_process(zendesk: ServerSpec) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "mcpgym", "serve", "zendesk"])

    async def main() -> tuple[list[str], list[tuple[bool, str]]]:
        async with mcp.Client(params) as client:
            return await through(client)

    names, answers = anyio.run(main)
    assert len(names) == len(zendesk.tools)
    assert answers == in_process(zendesk)


def test_http_sessions_match_in_process_and_are_isolated(zendesk: ServerSpec) -> None:
    expected = in_process(zendesk)
    with http_server("zendesk") as base:
        status, minted = http_json(base + "/sessions", "POST")
        assert status == 201 and minted["endpoint"] == f"/sessions/{minted['session_id']}/mcp"

        async def main() -> None:
            async with mcp.Client(base + minted["endpoint"]) as client:
                names, answers = await through(client)
                assert answers == expected
            assert http_json(base + "/sessions", "POST", {"session_id": "my-own-id"})[0] == 201
            async with mcp.Client(base + "/sessions/my-own-id/mcp") as other:
                untouched = await other.call_tool("get_ticket", {"ticket_id": 1486})
                assert '"priority":"high"' in text_of(untouched)
            async with mcp.Client(base + minted["endpoint"]) as again:
                kept = await again.call_tool("get_ticket", {"ticket_id": 1486})
                assert '"priority":"urgent"' in text_of(kept)
            async with mcp.Client(base + "/mcp", mode="legacy") as legacy:
                result = await legacy.call_tool("update_ticket", {"ticket_id": 1486, "priority": "low"})
                assert not result.is_error
            async with mcp.Client(base + "/mcp") as modern:
                listed = await modern.list_tools()
                assert len(listed.tools) == len(zendesk.tools)
                refused = await modern.call_tool("get_ticket", {"ticket_id": 1486})
                assert refused.is_error and text_of(refused).startswith("no_session:")

        anyio.run(main)
        status, health = http_json(base + "/healthz")
        # the legacy client's world went with its DELETE /mcp; the two others stay
        assert status == 200 and health["sessions"] == 2
        assert http_json(base + f"/sessions/{minted['session_id']}", "DELETE")[0] == 200
        assert http_json(base + f"/sessions/{minted['session_id']}", "DELETE")[0] == 404


def test_http_serves_many_sessions_at_once() -> None:
    """Hundreds of clients in flight, each with its own world, none failing."""
    sessions = 200
    with http_server("zendesk") as base:

        async def one(n: int, failures: list[str]) -> None:
            status, _ = await anyio.to_thread.run_sync(http_json, base + "/sessions", "POST", {"session_id": f"s{n}"})
            if status != 201:
                failures.append(f"session {n}: POST /sessions answered {status}")
                return
            async with mcp.Client(f"{base}/sessions/s{n}/mcp") as client:
                wrote = await client.call_tool("add_ticket_tags", {"ticket_id": 1486, "tags": [f"mark{n}"]})
                read = await client.call_tool("get_ticket", {"ticket_id": 1486})
                tags = text_of(read)
                if wrote.is_error or f"mark{n}" not in tags or tags.count("mark") != 1:
                    failures.append(f"session {n}: {text_of(wrote)[:80]} / {tags[:80]}")

        async def main() -> list[str]:
            failures: list[str] = []
            limiter = anyio.CapacityLimiter(100)

            async def limited(n: int) -> None:
                async with limiter:
                    await one(n, failures)

            async with anyio.create_task_group() as group:
                for n in range(sessions):
                    group.start_soon(limited, n)
            return failures

        assert anyio.run(main) == []
        assert http_json(base + "/healthz")[1]["sessions"] == sessions


def test_session_pool_refuses_when_full_and_says_why_sessions_ended(zendesk: ServerSpec) -> None:
    async def main() -> None:
        pool = SessionPool(zendesk, max_sessions=2)
        a, b = await pool.create(), await pool.create()
        assert (await pool.call(a, "update_ticket", {"ticket_id": 1486, "priority": "urgent"})).ok
        with pytest.raises(PoolFull):
            await pool.create()
        assert len(pool) == 2 and (await pool.call(a, "get_ticket", {"ticket_id": 1486})).ok  # nobody evicted
        assert await pool.close(b)
        closed = await pool.call(b, "list_groups", {})
        assert (closed.error or "").startswith("session_closed:") and "closed by the client" in (closed.error or "")
        unknown = await pool.call("never-made", "list_groups", {})
        assert (unknown.error or "").startswith("no_session:")
        with pytest.raises(SessionExists):
            await pool.create(b)  # ids are never reused
        await pool.close_all()

        idle = SessionPool(zendesk, idle_seconds=0.001)
        x = await idle.create()
        await anyio.sleep(0.01)
        y = await idle.create()  # admission sweeps the idle one
        assert x not in idle and y in idle
        expired = await idle.call(x, "list_groups", {})
        assert (expired.error or "").startswith("session_expired:") and "idle" in (expired.error or "")
        assert "closed by the client" not in (expired.error or "")
        await idle.close_all()

    anyio.run(main)


def test_bad_session_ids_are_refused() -> None:
    with http_server("zendesk") as base:
        for bad in ("a" * 65, "has space", "semi;colon"):
            status, body = http_json(f"{base}/sessions/{quote(bad, safe='')}/mcp", "POST")
            assert status == 400 and "session ids" in body["error"]
        assert http_json(base + "/healthz")[1]["sessions"] == 0
