"""The streamable HTTP app of one server process: session routes, the MCP endpoints, health.

Routes:
- `POST /sessions` (optional JSON body `{"session_id": "<id>"}`): 201 with the id and its
  endpoint; 409 if a chosen id was ever used; 503 with `Retry-After` when the session or
  memory budget is spent (live sessions are never evicted to make room).
- `DELETE /sessions/<id>`: closes the session once its calls in flight have answered.
- `/sessions/<id>/mcp`: the session's MCP endpoint (any protocol revision).
- `/mcp`: 2025-11-25 clients get a world when the SDK's transport issues their
  `Mcp-Session-Id` (initialize) and lose it when they `DELETE /mcp`; 2026-07-28 clients can
  list tools here but calls answer `no_session`.
- `GET /healthz`: counts and limits, no session ids.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from mcp.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from mcpgym.servers.kernel.http_access import AccessGuard, AccessPolicy
from mcpgym.servers.kernel.mcp_server import DEFAULT_MAX_RESULT_CHARS, LEGACY_PREFIX, build_mcp_server
from mcpgym.servers.kernel.session_pool import CloseReason, Pool, PoolFull, SessionExists, SessionPool, swept
from mcpgym.servers.kernel.spec import ServerSpec

SESSION_ID_PATTERN = r"^[A-Za-z0-9_\-]{1,64}$"
SESSION_ID = re.compile(SESSION_ID_PATTERN)
BAD_SESSION_ID = "session ids are 1-64 letters, digits, '-' or '_'"
MAX_CREATE_BODY = 4096
"""Largest body `POST /sessions` reads."""


class HttpSettings(BaseModel):
    """Limits and access rules of an HTTP server (one process, or each of its workers)."""

    model_config = ConfigDict(frozen=True)

    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    max_sessions: int = Field(default=512, ge=1, le=1_000_000)
    """Live sessions at most; past it `POST /sessions` and `/mcp` initializes answer 503."""
    max_memory_mb: float = Field(default=2048.0, gt=0, le=2**30)
    """Memory the sessions' databases may hold together; past it, new sessions answer 503."""
    idle_seconds: float = Field(default=1800.0, gt=0, le=30 * 86400)
    """A session without a call for this long is closed."""
    max_result_chars: int = Field(default=DEFAULT_MAX_RESULT_CHARS, ge=256, le=2**26)
    """A tool result text longer than this is cut, with a note."""
    access: AccessPolicy = Field(default_factory=AccessPolicy)


class CreateSession(BaseModel):
    """Body of `POST /sessions`: an optional id of the client's choosing."""

    model_config = ConfigDict(extra="forbid")

    session_id: str | None = Field(default=None, pattern=SESSION_ID_PATTERN)


class Asgi:
    """A plain ASGI callable as a Starlette route endpoint (a bare function would be taken
    for a request handler)."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)


def error(status: int, message: str, retry_after: int | None = None) -> JSONResponse:
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
    return JSONResponse({"error": message}, status_code=status, headers=headers)


async def read_bounded(request: Request, limit: int) -> bytes | None:
    """The request body, or None if it is longer than `limit` bytes."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return None
    return bytes(body)


async def read_body(request: Request, limit: int, what: str) -> bytes | Response:
    """The request body, or the answer that refuses it: 400 when it was not sent, 413 when it
    is longer than `limit` bytes (`what` names the route in that message)."""
    try:
        body = await read_bounded(request, limit)
    except ClientDisconnect:
        return error(400, "the request body was not sent")
    if body is None:
        return error(413, f"the body of {what} is at most {limit} bytes")
    return body


def mcp_manager(server: Server[Any], settings: HttpSettings) -> StreamableHTTPSessionManager:
    """The SDK's streamable HTTP transport for `server`: JSON answers, transport sessions
    idle as long as pool items, at most four per pool item."""
    return StreamableHTTPSessionManager(
        app=server,
        json_response=True,
        session_idle_timeout=settings.idle_seconds,
        max_sessions=4 * settings.max_sessions,
    )


def pooled_app(
    routes: list[Route], pool: Pool[Any], manager: StreamableHTTPSessionManager, settings: HttpSettings
) -> Starlette:
    """A Starlette app of `routes` behind `AccessGuard` that, while it is up, runs `manager`
    and sweeps `pool` for idle items, and closes the pool's items when it shuts down."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with manager.run(), swept(pool, every=min(60.0, settings.idle_seconds / 4)):
            try:
                yield
            finally:
                await pool.close_all()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.pool = pool
    app.state.settings = settings
    app.add_middleware(AccessGuard, policy=settings.access)
    return app


def http_app(spec: ServerSpec, settings: HttpSettings | None = None, mint: Callable[[], str] | None = None) -> Starlette:
    """A Starlette app serving `spec` over streamable HTTP, one world per session.

    `mint` makes the session ids (default: 128 random bits as hex).
    """
    settings = settings or HttpSettings()
    pool = SessionPool(
        spec,
        settings.seed,
        max_sessions=settings.max_sessions,
        idle_seconds=settings.idle_seconds,
        max_memory_mb=settings.max_memory_mb,
        mint=mint,
    )
    manager = mcp_manager(build_mcp_server(pool, settings.max_result_chars), settings)

    async def create_session(request: Request) -> Response:
        body = await read_body(request, MAX_CREATE_BODY, "POST /sessions")
        if isinstance(body, Response):
            return body
        try:
            wanted = CreateSession.model_validate_json(body) if body.strip() else CreateSession()
        except ValidationError:
            return error(400, 'the body is empty or {"session_id": "<id>"}; ' + BAD_SESSION_ID)
        try:
            sid = await pool.create(wanted.session_id)
        except SessionExists as taken:
            return error(409, str(taken))
        except PoolFull as full:
            return error(503, str(full), full.retry_after)
        return JSONResponse({"session_id": sid, "endpoint": f"/sessions/{sid}/mcp"}, status_code=201)

    async def delete_session(request: Request) -> Response:
        sid = request.path_params["session_id"]
        if not SESSION_ID.match(sid):
            return error(400, BAD_SESSION_ID)
        if not await pool.close(sid):
            return error(404, pool.why_unavailable(sid))
        return JSONResponse({"closed": sid})

    async def health(request: Request) -> Response:
        return JSONResponse(
            {
                "status": "ok",
                "server": spec.name,
                "seed": settings.seed,
                "sessions": len(pool),
                "memory_mb": round(pool.memory_bytes / 2**20, 1),
                "max_sessions": settings.max_sessions,
                "max_memory_mb": settings.max_memory_mb,
            }
        )

    async def session_endpoint(scope: Scope, receive: Receive, send: Send) -> None:
        if not SESSION_ID.match(scope["path_params"]["session_id"]):
            await error(400, BAD_SESSION_ID)(scope, receive, send)
            return
        await manager.handle_request(scope, receive, send)

    async def plain_endpoint(scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        version = headers.get("mcp-protocol-version")
        issued_by_sdk = version is None or version in HANDSHAKE_PROTOCOL_VERSIONS
        sid = headers.get("mcp-session-id")
        if not issued_by_sdk:
            await manager.handle_request(scope, receive, send)
        elif sid is None and scope["method"] == "POST":
            await open_plain_session(scope, receive, send)
        elif sid is not None and scope["method"] == "DELETE":
            status = await answered(scope, receive, send)
            if status is not None and status < 300:
                await pool.close(LEGACY_PREFIX + sid, CloseReason.CLIENT)
        else:
            await manager.handle_request(scope, receive, send)

    async def open_plain_session(scope: Scope, receive: Receive, send: Send) -> None:
        """An initialize on plain `/mcp`: room for a world first, built when the SDK's
        transport issues the session its id."""
        try:
            admission = pool.admit()
        except PoolFull as full:
            await error(503, str(full), full.retry_after)(scope, receive, send)
            return

        async def send_with_world(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] < 300:
                issued = Headers(raw=message.get("headers", [])).get("mcp-session-id")
                if issued is not None:
                    await admission.create(LEGACY_PREFIX + issued)
            await send(message)

        async with admission:
            await manager.handle_request(scope, receive, send_with_world)

    async def answered(scope: Scope, receive: Receive, send: Send) -> int | None:
        """Let the SDK answer; the status it answered with."""
        status: int | None = None

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        await manager.handle_request(scope, receive, watch)
        return status

    routes = [
        Route("/sessions", create_session, methods=["POST"]),
        Route("/sessions/{session_id}", delete_session, methods=["DELETE"]),
        Route("/sessions/{session_id}/mcp", Asgi(session_endpoint), methods=["GET", "POST", "DELETE"]),
        Route("/mcp", Asgi(plain_endpoint), methods=["GET", "POST", "DELETE"]),
        Route("/healthz", health, methods=["GET"]),
    ]
    return pooled_app(routes, pool, manager, settings)
