"""HTTP sessions: budgets by count and memory (refuse, never evict a live session), idle-only
eviction, capped results, clean closes under racing calls, plain-`/mcp` sessions freed when
the client closes them, and several worker processes behind one address."""

from __future__ import annotations

import random
from typing import Any

import anyio
import httpx2
import mcp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.client.streamable_http import streamable_http_client
from mcp_clients import (
    LEGACY_INITIALIZE,
    LEGACY_INITIALIZED,
    http_json,
    http_server,
    legacy_call_body,
    legacy_headers,
    modern_call_body,
    modern_headers,
    result_text,
    served,
    text_of,
)

from mcpgym.servers.kernel.http_access import AccessPolicy
from mcpgym.servers.kernel.http_app import HttpSettings
from mcpgym.servers.kernel.http_workers import minter, owner, worker_settings
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.spec import ServerSpec
from mcpgym.servers.kernel.truncation import truncate_result


async def call(client: httpx2.AsyncClient, sid: str, tool: str, arguments: dict[str, Any]) -> httpx2.Response:
    return await client.post(f"/sessions/{sid}/mcp", json=modern_call_body(tool, arguments), headers=modern_headers(tool))


def world_mb(spec: ServerSpec) -> float:
    with ToolSession(spec, 0) as session:
        return session.size_bytes() / 2**20


def test_memory_budget_refuses_new_sessions_and_keeps_live_ones(zendesk: ServerSpec) -> None:
    budget = 2.5 * world_mb(zendesk)  # room for two worlds

    async def main() -> None:
        async with served(zendesk, max_memory_mb=budget) as (client, app):
            first, second = [(await client.post("/sessions")).json()["session_id"] for _ in range(2)]
            full = await client.post("/sessions")
            assert full.status_code == 503 and int(full.headers["retry-after"]) >= 1
            assert "MB" in full.json()["error"]
            opened = await client.post("/mcp", json=LEGACY_INITIALIZE, headers=legacy_headers())
            assert opened.status_code == 503 and "retry-after" in opened.headers
            for sid in (first, second):  # neither was evicted to make room
                answer = await call(client, sid, "get_ticket", {"ticket_id": 1380})
                assert '"id":1380' in result_text(answer.json())
            health = (await client.get("/healthz")).json()
            assert health["sessions"] == 2 and 0 < health["memory_mb"] <= budget
            assert (await client.delete(f"/sessions/{first}")).status_code == 200
            assert (await client.post("/sessions")).status_code == 201

    anyio.run(main)


def test_count_budget_refuses_instead_of_evicting(zendesk: ServerSpec) -> None:
    async def main() -> None:
        async with served(zendesk, max_sessions=3) as (client, app):
            sids = [(await client.post("/sessions")).json()["session_id"] for _ in range(3)]
            refused = await client.post("/sessions", json={"session_id": "one-more"})
            assert refused.status_code == 503 and "3 sessions" in refused.json()["error"]
            assert all(sid in app.state.pool for sid in sids)

    anyio.run(main)


def test_only_idle_sessions_are_evicted_and_they_say_so(zendesk: ServerSpec) -> None:
    async def main() -> None:
        async with served(zendesk, max_sessions=2, idle_seconds=0.3) as (client, app):
            old = (await client.post("/sessions")).json()["session_id"]
            busy = (await client.post("/sessions")).json()["session_id"]
            for _ in range(4):  # `busy` stays in use while `old` idles past the timeout
                await anyio.sleep(0.1)
                await call(client, busy, "list_groups", {})
            created = await client.post("/sessions")
            assert created.status_code == 201
            assert busy in app.state.pool and old not in app.state.pool
            expired = result_text((await call(client, old, "list_groups", {})).json())
            assert expired.startswith("session_expired:") and "idle" in expired and "by the client" not in expired
            assert (await client.delete(f"/sessions/{busy}")).status_code == 200
            closed = result_text((await call(client, busy, "list_groups", {})).json())
            assert closed.startswith("session_closed:") and "closed by the client" in closed and "idle" not in closed

    anyio.run(main)


def test_long_results_are_cut_as_the_env_cuts_them(zendesk: ServerSpec) -> None:
    limit = 600

    async def main() -> None:
        async with served(zendesk, max_result_chars=limit) as (client, app):
            sid = (await client.post("/sessions")).json()["session_id"]
            with ToolSession(zendesk, 0) as local:
                long_text = local.call("search_tickets", {"per_page": 20}).text
                short = local.call("list_groups", {})
            assert len(long_text) > limit >= len(short.text)
            cut = (await call(client, sid, "search_tickets", {"per_page": 20})).json()["result"]
            assert result_text({"result": cut}) == truncate_result(long_text, limit)
            assert result_text({"result": cut}).endswith("characters; ask for fewer results per page]")
            assert "structuredContent" not in cut and not cut["isError"]
            whole = (await call(client, sid, "list_groups", {})).json()["result"]
            assert result_text({"result": whole}) == short.text and whole["structuredContent"] == short.data

    anyio.run(main)


def test_deletes_racing_calls_never_fail_or_half_answer(zendesk: ServerSpec) -> None:
    """Many sessions, each with concurrent writes and a DELETE at a random point among them:
    every call answers 200, either done or `session_closed`, and every write the session
    applied was answered as done."""
    sessions, calls_each = 40, 15
    rng = random.Random(7)

    async def main() -> None:
        async with served(zendesk, max_sessions=sessions) as (client, app):
            sids = [(await client.post("/sessions")).json()["session_id"] for _ in range(sessions)]
            worlds = {sid: app.state.pool.get(sid) for sid in sids}
            answers: dict[str, list[httpx2.Response]] = {sid: [] for sid in sids}
            deletes: list[int] = []

            async def write(sid: str, n: int) -> None:
                answers[sid].append(await call(client, sid, "add_ticket_tags", {"ticket_id": 1486, "tags": [f"t{n}"]}))

            async def delete(sid: str) -> None:
                deletes.append((await client.delete(f"/sessions/{sid}")).status_code)

            async with anyio.create_task_group() as group:
                for sid in sids:
                    at = rng.randrange(calls_each)
                    for n in range(calls_each):
                        if n == at:
                            group.start_soon(delete, sid)
                        group.start_soon(write, sid, n)
            assert deletes == [200] * sessions
            for sid in sids:
                statuses = {a.status_code for a in answers[sid]}
                assert statuses == {200}, statuses
                texts = [result_text(a.json()) for a in answers[sid]]
                done = [t for t in texts if not t.startswith("session_closed:")]
                assert all('"tags"' in t for t in done), done
                assert all("closed by the client" in t for t in texts if t.startswith("session_closed:"))
                assert worlds[sid].writes == len(done)
            assert len(app.state.pool) == 0 and app.state.pool.memory_bytes == 0

    anyio.run(main)


def test_deletes_racing_calls_through_a_real_server() -> None:
    """The same race over real HTTP connections (uvicorn in a subprocess): no 5xx."""
    with http_server("zendesk") as base:

        async def main() -> list[int]:
            statuses: list[int] = []
            async with httpx2.AsyncClient(base_url=base, timeout=60, limits=httpx2.Limits(max_connections=64)) as client:

                async def race(n: int) -> None:
                    sid = (await client.post("/sessions")).json()["session_id"]

                    async def write(k: int) -> None:
                        answer = await call(client, sid, "add_comment", {"ticket_id": 1486, "body": f"note {k}"})
                        statuses.append(answer.status_code)

                    async def delete() -> None:
                        await anyio.sleep(0.001 * (n % 5))
                        statuses.append((await client.delete(f"/sessions/{sid}")).status_code)

                    async with anyio.create_task_group() as group:
                        for k in range(6):
                            group.start_soon(write, k)
                        group.start_soon(delete)

                async with anyio.create_task_group() as group:
                    for n in range(40):
                        group.start_soon(race, n)
            return statuses

        statuses = anyio.run(main)
        assert len(statuses) == 40 * 7 and set(statuses) == {200}
        assert http_json(base + "/healthz")[1]["sessions"] == 0


def test_plain_mcp_session_is_freed_when_the_client_closes_it(zendesk: ServerSpec) -> None:
    async def main() -> None:
        async with served(zendesk) as (client, app):
            opened = await client.post("/mcp", json=LEGACY_INITIALIZE, headers=legacy_headers())
            sid = opened.headers["mcp-session-id"]
            await client.post("/mcp", json=LEGACY_INITIALIZED, headers=legacy_headers(sid))
            assert (await client.get("/healthz")).json()["sessions"] == 1
            wrote = await client.post(
                "/mcp", json=legacy_call_body("update_ticket", {"ticket_id": 1486, "priority": "low"}), headers=legacy_headers(sid)
            )
            assert not wrote.json()["result"]["isError"]
            assert (await client.delete("/mcp", headers=legacy_headers(sid))).status_code == 200
            assert (await client.get("/healthz")).json()["sessions"] == 0
            after = await app.state.pool.call("mcp:" + sid, "list_groups", {})
            assert (after.error or "").startswith("session_closed:") and "closed by the client" in (after.error or "")
            # a first request that the SDK refuses opens no session and leaves no world
            bad = await client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=legacy_headers())
            assert bad.status_code == 400 and (await client.get("/healthz")).json()["sessions"] == 0

    anyio.run(main)


def test_calls_of_one_session_are_serialised_off_the_event_loop(zendesk: ServerSpec) -> None:
    """Concurrent writes on one session all apply, in some order, each exactly once."""

    async def main() -> None:
        async with served(zendesk) as (client, app):
            sid = (await client.post("/sessions")).json()["session_id"]

            async def tag(n: int) -> None:
                await call(client, sid, "add_ticket_tags", {"ticket_id": 1486, "tags": [f"c{n}"]})

            async with anyio.create_task_group() as group:
                for n in range(30):
                    group.start_soon(tag, n)
            tags = (await call(client, sid, "get_ticket", {"ticket_id": 1486})).json()["result"]["structuredContent"]["tags"]
            assert {f"c{n}" for n in range(30)} <= set(tags)

    anyio.run(main)


@pytest.mark.parametrize("workers", [2])
def test_workers_pin_each_session_to_one_world(zendesk: ServerSpec, workers: int) -> None:
    token = "worker-test-token-0123456789"
    auth = {"Authorization": f"Bearer {token}"}
    with http_server("zendesk", extra=("--workers", str(workers), "--token", token)) as base:
        assert http_json(base + "/sessions", "POST")[0] == 401
        minted = [http_json(base + "/sessions", "POST", headers=auth)[1]["session_id"] for _ in range(6)]
        chosen = [f"mine-{n}" for n in range(6)]
        for sid in chosen:
            assert http_json(base + "/sessions", "POST", {"session_id": sid}, headers=auth)[0] == 201
        assert http_json(base + "/sessions", "POST", {"session_id": chosen[0]}, headers=auth)[0] == 409
        health = http_json(base + "/healthz")[1]
        assert health["workers"] == workers and health["sessions"] == 12

        async def main() -> None:
            async with httpx2.AsyncClient(base_url=base, headers=auth, timeout=60) as client:
                for n, sid in enumerate(minted + chosen):
                    await call(client, sid, "add_ticket_tags", {"ticket_id": 1486, "tags": [f"w{n}"]})
                for n, sid in enumerate(minted + chosen):
                    tags = (await call(client, sid, "get_ticket", {"ticket_id": 1486})).json()["result"]["structuredContent"]["tags"]
                    assert f"w{n}" in tags and sum(t.startswith("w") for t in tags) == 1
                forged = await call(client, "never-created", "get_ticket", {"ticket_id": 1486})
                assert result_text(forged.json()).startswith("no_session:")
                unknown = await client.post("/mcp", json=legacy_call_body("list_groups", {}), headers=legacy_headers("0" * 32))
                assert unknown.status_code == 404
            authed = httpx2.AsyncClient(headers=auth, timeout=60)
            async with authed, mcp.Client(streamable_http_client(base + "/mcp", http_client=authed), mode="legacy") as legacy:
                result = await legacy.call_tool("update_ticket", {"ticket_id": 1486, "priority": "low"})
                assert not result.is_error and '"priority":"low"' in text_of(result)

        anyio.run(main)
        assert http_json(base + "/healthz")[1]["sessions"] == 12  # the legacy world left with its client
        assert http_json(base + f"/sessions/{minted[0]}", "DELETE", headers=auth)[0] == 200
        assert http_json(base + "/healthz")[1]["sessions"] == 11


@settings(max_examples=50, deadline=None)
@given(workers=st.integers(1, 16), data=st.data())
def test_workers_mint_only_ids_they_own(workers: int, data: st.DataObject) -> None:
    index = data.draw(st.integers(0, workers - 1))
    ids = [minter(index, workers)() for _ in range(5)]
    assert all(owner(sid, workers) == index and len(sid) == 32 for sid in ids)
    chosen = data.draw(st.from_regex(r"[A-Za-z0-9_\-]{1,64}", fullmatch=True))
    assert owner(chosen, workers) == owner(chosen, workers) < workers


def test_each_worker_gets_its_share_of_the_budgets() -> None:
    share = worker_settings(HttpSettings(max_sessions=10, max_memory_mb=1000.0, access=AccessPolicy(token="x" * 20)), 4)
    assert share.max_sessions == 3 and share.max_memory_mb == 250.0 and share.access.token is None
