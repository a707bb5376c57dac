"""Helpers for tests that talk to the servers through real MCP clients."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import mcp_types as types


def text_of(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def http_server(
    server: str, seed: int = 0, extra: tuple[str, ...] = (), env: dict[str, str] | None = None
) -> Iterator[str]:
    """Run `mcpgym serve SERVER --transport http` in a subprocess; yields its base URL."""
    port = free_port()
    command = [sys.executable, "-m", "mcpgym", "serve", server, "--transport", "http", "--port", str(port), "--seed", str(seed), *extra]
    environment = {**os.environ, **(env or {})}
    log = tempfile.TemporaryFile()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log, env=environment)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(base + "/healthz", timeout=1)
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise RuntimeError(f"server did not start: {log.read().decode(errors='replace')}") from None
                time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def http_call(
    url: str, method: str = "GET", body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, Any, dict[str, str]]:
    """Status, decoded body (the raw text when it is not JSON) and headers (lower-case names)."""
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    request = urllib.request.Request(url, method=method, data=data, headers=headers or {})
    if data is not None and "Content-Type" not in (headers or {}):
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request) as response:
            status, raw, got = response.status, response.read(), response.headers
    except urllib.error.HTTPError as err:
        status, raw, got = err.code, err.read(), err.headers
    names = {k.lower(): v for k, v in got.items()}
    try:
        return status, json.loads(raw), names
    except json.JSONDecodeError:
        return status, raw.decode(errors="replace"), names


def http_json(url: str, method: str = "GET", body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    """Status and decoded body (the raw text when the body is not JSON)."""
    status, decoded, _ = http_call(url, method, body, headers)
    return status, decoded


MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
MODERN_HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "Mcp-Protocol-Version": "2026-07-28",
}
LEGACY_VERSION = "2025-11-25"


def modern_call_body(tool: str, arguments: dict[str, Any], request_id: int = 1) -> dict[str, Any]:
    """A 2026-07-28 `tools/call` request: one self-contained POST."""
    params = {"name": tool, "arguments": arguments, "_meta": MODERN_META}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def modern_headers(tool: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    return {**MODERN_HEADERS, "Mcp-Method": "tools/call", "Mcp-Name": tool, **(extra or {})}


def legacy_headers(session_id: str | None = None, extra: dict[str, str] | None = None) -> dict[str, str]:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if session_id is not None:
        headers |= {"Mcp-Session-Id": session_id, "Mcp-Protocol-Version": LEGACY_VERSION}
    return {**headers, **(extra or {})}


LEGACY_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": LEGACY_VERSION, "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}},
}
LEGACY_INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def legacy_call_body(tool: str, arguments: dict[str, Any], request_id: int = 2) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}


def result_text(body: Any) -> str:
    """The text of a JSON-RPC `tools/call` answer (its content blocks joined)."""
    return "".join(block.get("text", "") for block in body["result"]["content"])


@asynccontextmanager
async def served(spec: Any, **settings: Any) -> AsyncIterator[tuple[Any, Any]]:
    """An in-process HTTP client of `http_app(spec, HttpSettings(**settings))` with the app's
    lifespan running, and the app."""
    import httpx2

    from mcpgym.servers.kernel.http_app import HttpSettings, http_app

    app = http_app(spec, HttpSettings(**settings))
    async with app.router.lifespan_context(app):
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000", timeout=60) as client:
            yield client, app
