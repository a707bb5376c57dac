"""A real MCP server for any `ServerSpec`, generated from the same tools as the in-process path.

Every MCP session gets its own `ToolSession` (its own database), held in a `SessionPool`:
- stdio: one client per process, so one session;
- streamable HTTP: `POST /sessions` mints a session and its endpoint `/sessions/<id>/mcp`
  (a client may also pick its own id); 2025-11-25 clients that send `Mcp-Session-Id` may use
  plain `/mcp`, keyed by that header. Clients of the session-less 2026-07-28 protocol on plain
  `/mcp` can list tools but must use a session endpoint to call them, so two clients never
  share a world by accident.

A call answers with exactly the text of `ToolSession.call` (`isError` set on failure) and, on
success, the same object as `structuredContent`.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator
from typing import Any

import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext

from mcpgym.servers.kernel.session import ToolResult, ToolSession
from mcpgym.servers.kernel.spec import ServerSpec

SESSION_ID = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")
STDIO_SESSION = "stdio"


class SessionPool:
    """Tool sessions keyed by client session id: created on first use, evicted when idle
    longer than `idle_seconds` or, least recently used first, beyond `max_sessions`.

    A call on an evicted session is an error telling the client to start a new one; it never
    silently gets a fresh world.
    """

    def __init__(
        self, spec: ServerSpec, seed: int = 0, max_sessions: int = 512, idle_seconds: float = 1800.0
    ) -> None:
        self.spec = spec
        self.seed = seed
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds
        self._sessions: OrderedDict[str, tuple[ToolSession, float]] = OrderedDict()
        self._expired: deque[str] = deque(maxlen=65_536)

    def __len__(self) -> int:
        return len(self._sessions)

    def new_id(self) -> str:
        return secrets.token_hex(16)

    def session(self, key: str) -> ToolSession | str:
        """The live session of `key` (created if new), or the error text for an expired one."""
        now = time.monotonic()
        self._evict_idle(now)
        if key in self._sessions:
            session, _ = self._sessions.pop(key)
        elif key in self._expired:
            return (
                f"session_expired: session {key} was closed after {self.idle_seconds:.0f} s idle or "
                f"to stay under {self.max_sessions} sessions; start a new session"
            )
        else:
            session = ToolSession(self.spec, self.seed)
        self._sessions[key] = (session, now)
        while len(self._sessions) > self.max_sessions:
            self._close(next(iter(self._sessions)))
        return session

    def call(self, key: str, tool: str, arguments: Any) -> ToolResult:
        session = self.session(key)
        if isinstance(session, str):
            return ToolResult(tool=tool, ok=False, error=session)
        return session.call(tool, arguments)

    def drop(self, key: str) -> bool:
        """Close a session on the client's request; true if it existed."""
        if key not in self._sessions:
            return False
        self._close(key)
        return True

    def close_all(self) -> None:
        for key in list(self._sessions):
            self._close(key)

    def _evict_idle(self, now: float) -> None:
        while self._sessions:
            key, (_, last) = next(iter(self._sessions.items()))
            if now - last <= self.idle_seconds:
                break
            self._close(key)

    def _close(self, key: str) -> None:
        session, _ = self._sessions.pop(key)
        session.close()
        self._expired.append(key)


def mcp_tools(spec: ServerSpec) -> list[types.Tool]:
    """The server's tools as MCP tool definitions."""
    return [
        types.Tool(
            name=tool.name,
            description=tool.description,
            input_schema=tool.input_schema,
            output_schema=tool.output_schema,
            annotations=types.ToolAnnotations(read_only_hint=not tool.writes, open_world_hint=False),
        )
        for tool in spec.tools
    ]


def call_result(result: ToolResult) -> types.CallToolResult:
    """A `ToolResult` as MCP: the same text, `isError` on failure, the object as structured content."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=result.text)],
        structured_content=result.data if result.ok else None,
        is_error=not result.ok,
    )


def session_key(ctx: ServerRequestContext[Any]) -> str | None:
    """Which pool session a request belongs to: stdio, the URL's session id, or the header."""
    request = getattr(ctx, "request", None)
    if request is None:
        return STDIO_SESSION
    path_params = getattr(request, "path_params", {}) or {}
    if "session_id" in path_params:
        return str(path_params["session_id"])
    header = request.headers.get("mcp-session-id")
    return f"mcp-{header}" if header else None


def build_mcp_server(pool: SessionPool) -> Server[Any]:
    """An MCP server (official SDK, low-level API) answering from `pool`'s sessions."""
    spec = pool.spec
    tools = mcp_tools(spec)
    schemas = {tool.name: tool.input_schema for tool in spec.tools}

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        key = session_key(ctx)
        if key is None:
            error = (
                "no_session: this endpoint has no session to keep your state in. POST /sessions to get "
                "an endpoint of your own (/sessions/<id>/mcp), or use any id of your choosing there"
            )
            return call_result(ToolResult(tool=params.name, ok=False, error=error))
        return call_result(pool.call(key, params.name, params.arguments))

    return Server(
        spec.name,
        version="0.1.0",
        title=spec.title,
        instructions=spec.instructions,
        get_tool_input_schema=schemas.get,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(spec: ServerSpec, seed: int = 0) -> None:
    """Serve one client over stdin/stdout until it disconnects."""
    from mcp.server.stdio import stdio_server

    pool = SessionPool(spec, seed, max_sessions=1)
    server = build_mcp_server(pool)
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        pool.close_all()


def http_app(
    spec: ServerSpec, seed: int = 0, max_sessions: int = 512, idle_seconds: float = 1800.0
) -> Any:
    """A Starlette app serving `spec` over streamable HTTP, one world per session."""
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route
    from starlette.types import Receive, Scope, Send

    pool = SessionPool(spec, seed, max_sessions=max_sessions, idle_seconds=idle_seconds)
    manager = StreamableHTTPSessionManager(app=build_mcp_server(pool), json_response=True)

    class McpEndpoint:
        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            sid = scope.get("path_params", {}).get("session_id")
            if sid is not None and not SESSION_ID.match(sid):
                response = JSONResponse({"error": "session ids are 1-64 letters, digits, '-' or '_'"}, 400)
                await response(scope, receive, send)
                return
            await manager.handle_request(scope, receive, send)

    async def create_session(request: Request) -> JSONResponse:
        sid = pool.new_id()
        pool.session(sid)
        return JSONResponse({"session_id": sid, "endpoint": f"/sessions/{sid}/mcp"}, status_code=201)

    async def delete_session(request: Request) -> JSONResponse:
        sid = request.path_params["session_id"]
        if not pool.drop(sid):
            return JSONResponse({"error": f"no live session {sid}"}, status_code=404)
        return JSONResponse({"closed": sid})

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "server": spec.name, "seed": seed, "sessions": len(pool)})

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with manager.run():
            try:
                yield
            finally:
                pool.close_all()

    endpoint = McpEndpoint()
    app = Starlette(
        routes=[
            Route("/sessions", create_session, methods=["POST"]),
            Route("/sessions/{session_id}", delete_session, methods=["DELETE"]),
            Route("/sessions/{session_id}/mcp", endpoint, methods=["GET", "POST", "DELETE"]),
            Route("/mcp", endpoint, methods=["GET", "POST", "DELETE"]),
            Route("/healthz", health, methods=["GET"]),
        ],
        lifespan=lifespan,
    )
    app.state.pool = pool
    return app


def serve_http(
    spec: ServerSpec, host: str = "127.0.0.1", port: int = 8000, seed: int = 0, max_sessions: int = 512
) -> None:
    """Run the streamable HTTP server until interrupted."""
    import uvicorn

    uvicorn.run(http_app(spec, seed, max_sessions), host=host, port=port, log_level="warning")


def run_stdio(spec: ServerSpec, seed: int = 0) -> None:
    asyncio.run(serve_stdio(spec, seed))
