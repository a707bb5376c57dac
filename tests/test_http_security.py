"""Access to the HTTP server: bearer token, Host and Origin rules (DNS rebinding), and session
ids: only ids the server minted, or that a client created on purpose, reach a world."""

from __future__ import annotations

import re
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
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
)
from starlette.datastructures import Headers

from mcpgym.servers.kernel.http_access import AccessGuard, AccessPolicy, host_name
from mcpgym.servers.kernel.spec import ServerSpec

TOKEN = "s3cret-token-of-enough-length"


ROUTES = [
    ("POST", "/sessions"),
    ("DELETE", "/sessions/abc"),
    ("POST", "/sessions/abc/mcp"),
    ("POST", "/mcp"),
    ("GET", "/mcp"),
    ("DELETE", "/mcp"),
]


def test_token_guards_every_route_but_health(zendesk: ServerSpec) -> None:
    async def main() -> None:
        async with served(zendesk, access=AccessPolicy(token=TOKEN)) as (client, _):
            for method, path in ROUTES:
                missing = await client.request(method, path)
                assert missing.status_code == 401, (method, path)
                assert missing.headers["www-authenticate"].startswith("Bearer")
                wrong = await client.request(method, path, headers={"Authorization": f"Bearer {TOKEN[:-1]}x"})
                assert wrong.status_code == 401 and 'error="invalid_token"' in wrong.headers["www-authenticate"]
                basic = await client.request(method, path, headers={"Authorization": f"Basic {TOKEN}"})
                assert basic.status_code == 401
            auth = {"Authorization": f"Bearer {TOKEN}"}
            created = await client.post("/sessions", headers=auth)
            assert created.status_code == 201
            sid = created.json()["session_id"]
            call = modern_call_body("get_ticket", {"ticket_id": 1380})
            refused = await client.post(f"/sessions/{sid}/mcp", json=call, headers=modern_headers("get_ticket"))
            assert refused.status_code == 401
            answered = await client.post(f"/sessions/{sid}/mcp", json=call, headers=modern_headers("get_ticket", auth))
            assert answered.status_code == 200 and '"id":1380' in result_text(answered.json())
            health = await client.get("/healthz")
            assert health.status_code == 200 and health.json()["sessions"] == 1
            assert sid not in health.text

    anyio.run(main)


def test_token_from_the_environment_guards_the_cli_server() -> None:
    with http_server("zendesk", env={"MCPGYM_TOKEN": TOKEN}) as base:
        assert http_json(base + "/sessions", "POST")[0] == 401
        status, created = http_json(base + "/sessions", "POST", headers={"Authorization": f"Bearer {TOKEN}"})
        assert status == 201 and re.fullmatch(r"[0-9a-f]{32}", created["session_id"])
        assert http_json(base + "/healthz")[0] == 200


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("127.0.0.1:8000", True),
        ("localhost", True),
        ("LOCALHOST:1", True),
        ("[::1]:8000", True),
        ("evil.example", False),
        ("evil.example:8000", False),
        ("localhost.evil.example", False),
        ("10.1.2.3:8000", False),  # another address than the bound one
        ("", False),
        ("127.0.0.1:80x", False),
        ("[::1", False),
    ],
)
def test_host_header_rules(zendesk: ServerSpec, host: str, allowed: bool) -> None:
    async def main() -> None:
        async with served(zendesk) as (client, _):
            for method, path in [*ROUTES, ("GET", "/healthz")]:
                answer = await client.request(method, path, headers={"Host": host})
                assert (answer.status_code != 421) is allowed, (method, path, answer.status_code)

    anyio.run(main)


def test_allowed_hosts_and_wildcard_bind() -> None:
    named = AccessGuard(app=None, policy=AccessPolicy(allowed_hosts=["mcp.example.org"]))  # type: ignore[arg-type]
    assert named.host_allowed("mcp.example.org:443") and not named.host_allowed("other.example.org")
    assert not named.host_allowed("10.0.0.5")
    anywhere = AccessGuard(app=None, policy=AccessPolicy(bind_host="0.0.0.0"))  # type: ignore[arg-type]
    assert anywhere.host_allowed("10.0.0.5:8000") and anywhere.host_allowed("[2001:db8::1]:80")
    assert not anywhere.host_allowed("rebound.example:8000")
    bound = AccessGuard(app=None, policy=AccessPolicy(bind_host="10.0.0.5"))  # type: ignore[arg-type]
    assert bound.host_allowed("10.0.0.5:8000") and not bound.host_allowed("10.0.0.6:8000")


@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        (None, True),
        ("http://localhost:3000", True),
        ("https://127.0.0.1", True),
        ("http://[::1]:5173", True),
        ("https://app.example.org", True),  # configured
        ("https://app.example.org.evil", False),
        ("http://evil.example", False),
        ("null", False),
        ("file://localhost", False),
        ("http://localhost.evil.example", False),
    ],
)
def test_origin_rules(zendesk: ServerSpec, origin: str | None, allowed: bool) -> None:
    async def main() -> None:
        async with served(zendesk, access=AccessPolicy(allowed_origins=["https://app.example.org"])) as (client, _):
            headers = {"Origin": origin} if origin is not None else {}
            for method, path in [*ROUTES, ("GET", "/healthz")]:
                answer = await client.request(method, path, headers=headers)
                assert (answer.status_code != 403) is allowed, (method, path, answer.status_code)
            created = await client.post("/sessions", headers=headers)
            assert (created.status_code == 201) is allowed

    anyio.run(main)


def test_two_origin_headers_are_refused() -> None:
    guard = AccessGuard(app=None, policy=AccessPolicy())  # type: ignore[arg-type]
    raw = [(b"host", b"localhost"), (b"origin", b"http://localhost"), (b"origin", b"http://evil.example")]
    refusal = guard.refusal({"method": "GET", "path": "/healthz"}, Headers(raw=raw))
    assert refusal is not None and refusal[0] == 403


@settings(max_examples=300, deadline=None)
@given(host=st.text(max_size=80), origin=st.text(max_size=80), authorization=st.text(max_size=80))
def test_any_header_values_are_judged_without_error(host: str, origin: str, authorization: str) -> None:
    guard = AccessGuard(app=None, policy=AccessPolicy(token=TOKEN, allowed_hosts=["mcp.example.org"]))  # type: ignore[arg-type]
    raw = [(b"host", host.encode()), (b"origin", origin.encode()), (b"authorization", authorization.encode())]
    refusal = guard.refusal({"method": "POST", "path": "/sessions"}, Headers(raw=raw))
    assert refusal is not None  # no such text is the token
    name = host_name(host)
    if refusal[0] != 421:
        assert name in {"localhost", "127.0.0.1", "::1", "mcp.example.org"}


def test_session_ids_the_server_never_minted_reach_no_world(zendesk: ServerSpec) -> None:
    async def main() -> None:
        async with served(zendesk) as (client, _):
            call = modern_call_body("update_ticket", {"ticket_id": 1486, "priority": "low"})
            # the session-less protocol on plain /mcp, with a header of the client's choosing
            forged = await client.post(
                "/mcp", json=call, headers=modern_headers("update_ticket", {"Mcp-Session-Id": "anything-at-all"})
            )
            assert forged.status_code == 200 and result_text(forged.json()).startswith("no_session:")
            # a session endpoint nobody created
            unknown = await client.post("/sessions/made-up/mcp", json=call, headers=modern_headers("update_ticket"))
            assert result_text(unknown.json()).startswith("no_session:")
            # a 2025-11-25 request whose Mcp-Session-Id the SDK never issued
            legacy = await client.post("/mcp", json=legacy_call_body("get_ticket", {"ticket_id": 1}), headers=legacy_headers("f" * 32))
            assert legacy.status_code == 404
            assert (await client.get("/healthz")).json()["sessions"] == 0

            minted = {(await client.post("/sessions")).json()["session_id"] for _ in range(20)}
            assert len(minted) == 20 and all(re.fullmatch(r"[0-9a-f]{32}", sid) for sid in minted)

            assert (await client.post("/sessions", json={"session_id": "mine"})).status_code == 201
            again = await client.post("/sessions", json={"session_id": "mine"})
            assert again.status_code == 409
            assert (await client.delete("/sessions/mine")).status_code == 200
            assert (await client.post("/sessions", json={"session_id": "mine"})).status_code == 409  # never reused
            for bad in ({"session_id": "has space"}, {"session_id": "x" * 65}, {"other": 1}, [1], "text"):
                assert (await client.post("/sessions", json=bad)).status_code == 400
            assert (await client.post("/sessions", content=b"{" * 5000)).status_code == 413
            assert (await client.get("/healthz")).json()["sessions"] == 20

    anyio.run(main)


def test_plain_mcp_worlds_are_keyed_only_by_ids_the_sdk_issued(zendesk: ServerSpec) -> None:
    async def main() -> None:
        async with served(zendesk) as (client, _):
            opened = await client.post("/mcp", json=LEGACY_INITIALIZE, headers=legacy_headers())
            sid = opened.headers["mcp-session-id"]
            await client.post("/mcp", json=LEGACY_INITIALIZED, headers=legacy_headers(sid))
            wrote = await client.post(
                "/mcp", json=legacy_call_body("update_ticket", {"ticket_id": 1486, "priority": "low"}), headers=legacy_headers(sid)
            )
            assert wrote.status_code == 200 and not wrote.json()["result"]["isError"]
            # the same id sent with the session-less protocol reaches nothing
            call = modern_call_body("get_ticket", {"ticket_id": 1486})
            stolen = await client.post("/mcp", json=call, headers=modern_headers("get_ticket", {"Mcp-Session-Id": sid}))
            assert result_text(stolen.json()).startswith("no_session:")
            # nor does it name a session endpoint
            by_path = await client.post(f"/sessions/mcp-{sid}/mcp", json=call, headers=modern_headers("get_ticket"))
            assert result_text(by_path.json()).startswith("no_session:")

    anyio.run(main)


@pytest.mark.parametrize(
    ("argv", "env_token", "warned"),
    [
        (["--host", "0.0.0.0"], None, True),
        (["--host", "0.0.0.0", "--token", TOKEN], None, False),
        (["--host", "0.0.0.0"], TOKEN, False),
        (["--host", "127.0.0.5"], None, False),
        (["--host", "::1"], None, False),
        ([], None, False),
    ],
)
def test_serve_warns_when_exposed_without_a_token(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str], env_token: str | None, warned: bool
) -> None:
    from mcpgym import cli
    from mcpgym.servers.kernel import mcp_server

    seen: dict[str, Any] = {}
    monkeypatch.setattr(mcp_server, "serve_http", lambda spec, **kwargs: seen.update(kwargs))
    if env_token is None:
        monkeypatch.delenv("MCPGYM_TOKEN", raising=False)
    else:
        monkeypatch.setenv("MCPGYM_TOKEN", env_token)
    assert cli.main(["serve", "zendesk", "--transport", "http", *argv]) == 0
    assert ("without a token" in capsys.readouterr().err) is warned
    assert seen["settings"].access.token == (TOKEN if (env_token or "--token" in argv) else None)


@pytest.mark.parametrize(
    "argv",
    [["--max-sessions", "0"], ["--max-memory-mb", "-1"], ["--idle-seconds", "0"], ["--max-result-chars", "10"],
     ["--token", "short"]],
)
def test_serve_refuses_bad_limits_with_a_message(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    from mcpgym import cli
    from mcpgym.servers.kernel import mcp_server

    monkeypatch.setattr(mcp_server, "serve_http", lambda spec, **kwargs: pytest.fail("served with bad limits"))
    assert cli.main(["serve", "zendesk", "--transport", "http", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mcpgym serve:") and "Traceback" not in err


@pytest.mark.parametrize("argv", [["--workers", "0"], ["--workers", "1000"], ["--port", "70000"]])
def test_serve_refuses_bad_numbers_as_usage_errors(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    from mcpgym import cli

    with pytest.raises(SystemExit) as exited:
        cli.main(["serve", "zendesk", "--transport", "http", *argv])
    assert exited.value.code == 2 and "out of range" in capsys.readouterr().err
