"""A real MCP server for any `ServerSpec`, generated from the same tools as the in-process path.

Every MCP session gets its own `ToolSession` (its own database), held in a `SessionPool`:
- stdio (and the SDK's in-memory client): one local client, whose session is created on its
  first call;
- streamable HTTP (`http_app`, `serve_http`): sessions created on purpose, each with its own
  endpoint `/sessions/<id>/mcp`; 2025-11-25 clients may use plain `/mcp`, keyed by the
  `Mcp-Session-Id` the server issued at their initialize. Clients of the session-less
  2026-07-28 protocol on plain `/mcp` can list tools but must use a session endpoint to call
  them, so two clients never share a world by accident.

A call answers with exactly the text of `ToolSession.call` (`isError` set on failure) and, on
success, the same object as `structuredContent`; a text longer than `max_result_chars` is cut
with a note, as the in-process env does, and then carries no structured content.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from mcpgym.servers.kernel.session import ToolResult
from mcpgym.servers.kernel.session_pool import Pool, PoolFull, SessionExists, SessionPool
from mcpgym.servers.kernel.spec import ServerSpec
from mcpgym.servers.kernel.truncation import truncate_result

__all__ = [
    "DEFAULT_MAX_RESULT_CHARS",
    "SessionPool",
    "build_mcp_server",
    "call_in_pool",
    "call_result",
    "http_app",
    "mcp_tools",
    "run_stdio",
    "serve_http",
    "serve_stdio",
]

DEFAULT_MAX_RESULT_CHARS = 65_536
"""Longest tool result text an MCP call answers with before it is cut."""
STDIO_SESSION = "stdio"
LEGACY_PREFIX = "mcp:"
"""Pool keys of sessions on plain `/mcp`: this prefix (a character no session id has) and the
transport's `Mcp-Session-Id`."""
NO_SESSION = (
    "no_session: this endpoint has no session to keep your state in. POST /sessions to get an "
    "endpoint of your own (/sessions/<id>/mcp)"
)


def mcp_tools(spec: ServerSpec) -> list[types.Tool]:
    """The server's tools as MCP tool definitions."""
    return [
        types.Tool(
            name=tool.name,
            description=tool.description,
            input_schema=tool.input_schema,
            output_schema=tool.output_schema,
            title=tool.title,
            annotations=types.ToolAnnotations(
                title=tool.title,
                read_only_hint=not tool.writes,
                destructive_hint=tool.destructive if tool.writes else None,
                idempotent_hint=tool.idempotent,
                open_world_hint=False,
            ),
        )
        for tool in spec.tools
    ]


def call_result(result: ToolResult, max_chars: int = DEFAULT_MAX_RESULT_CHARS) -> types.CallToolResult:
    """A `ToolResult` as MCP: the same text (cut past `max_chars`), `isError` on failure, and
    the object as structured content when the text was not cut."""
    text = result.text
    shown = truncate_result(text, max_chars)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=shown)],
        structured_content=result.data if result.ok and shown is text else None,
        is_error=not result.ok,
    )


async def call_in_pool(
    pool: Pool[Any], key: str | None, params: types.CallToolRequestParams, max_chars: int, no_key: str
) -> types.CallToolResult:
    """A `tools/call` answered by `pool`'s item `key` (see `call_result`); `no_key` is the
    error when the request names no item."""
    if key is None:
        return call_result(ToolResult(tool=params.name, ok=False, error=no_key))
    return call_result(await pool.call(key, params.name, params.arguments), max_chars)


def session_key(ctx: ServerRequestContext[Any]) -> str | None:
    """Which pool session a request belongs to: the local client, the URL's session id, or (for
    the handshake protocols only, whose `Mcp-Session-Id` the SDK's transport has checked
    against the ids it issued) the pool key of that header's session."""
    request = getattr(ctx, "request", None)
    if request is None:
        return STDIO_SESSION
    path_params = getattr(request, "path_params", None) or {}
    if "session_id" in path_params:
        return str(path_params["session_id"])
    header = request.headers.get("mcp-session-id")
    if header and ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
        return LEGACY_PREFIX + header
    return None


async def open_local_session(pool: SessionPool, lock: anyio.Lock) -> str | None:
    """Create the local client's session on its first call; the error text if it cannot be."""
    async with lock:
        if STDIO_SESSION in pool:
            return None
        try:
            await pool.create(STDIO_SESSION)
        except SessionExists:
            return None  # closed before: the call says why
        except PoolFull as full:
            return str(full)
    return None


def build_mcp_server(pool: SessionPool, max_result_chars: int = DEFAULT_MAX_RESULT_CHARS) -> Server[Any]:
    """An MCP server (official SDK, low-level API) answering from `pool`'s sessions."""
    spec = pool.spec
    tools = mcp_tools(spec)
    schemas = {tool.name: tool.input_schema for tool in spec.tools}
    local_lock = anyio.Lock()

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        key = session_key(ctx)
        if key == STDIO_SESSION and (error := await open_local_session(pool, local_lock)) is not None:
            return call_result(ToolResult(tool=params.name, ok=False, error=error))
        return await call_in_pool(pool, key, params, max_result_chars, NO_SESSION)

    return Server(
        spec.name,
        version="0.1.0",
        title=spec.title,
        instructions=spec.instructions,
        get_tool_input_schema=schemas.get,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(spec: ServerSpec, seed: int = 0, max_result_chars: int = DEFAULT_MAX_RESULT_CHARS) -> None:
    """Serve one client over stdin/stdout until it disconnects."""
    from mcp.server.stdio import stdio_server

    pool = SessionPool(spec, seed, max_sessions=1)
    server = build_mcp_server(pool, max_result_chars)
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        await pool.close_all()


def run_stdio(spec: ServerSpec, seed: int = 0, max_result_chars: int = DEFAULT_MAX_RESULT_CHARS) -> None:
    asyncio.run(serve_stdio(spec, seed, max_result_chars))


def __getattr__(name: str) -> Any:
    """`http_app` and `serve_http` live in their own modules; imported on first use here."""
    if name == "http_app":
        from mcpgym.servers.kernel.http_app import http_app

        return http_app
    if name == "serve_http":
        from mcpgym.servers.kernel.http_serve import serve_http

        return serve_http
    raise AttributeError(name)
