"""Helpers for tests that talk to the servers through real MCP clients."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import mcp_types as types


def text_of(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def http_server(server: str, seed: int = 0, extra: tuple[str, ...] = ()) -> Iterator[str]:
    """Run `mcpgym serve SERVER --transport http` in a subprocess; yields its base URL."""
    port = free_port()
    command = [sys.executable, "-m", "mcpgym", "serve", server, "--transport", "http", "--port", str(port), "--seed", str(seed), *extra]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(base + "/healthz", timeout=1)
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"server did not start: {process.stderr.read() if process.stderr else ''}") from None
                time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=10)


def http_json(url: str, method: str = "GET") -> tuple[int, Any]:
    """Status and decoded body (the raw text when the body is not JSON)."""
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as err:
        status, body = err.code, err.read()
    try:
        return status, json.loads(body)
    except json.JSONDecodeError:
        return status, body.decode(errors="replace")
