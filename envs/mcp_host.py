"""An MCP host for scored episodes: one streamable-HTTP MCP endpoint per episode, mounting any
set of servers over one shared world, and an HTTP API around it.

Routes:
- `POST /episodes` with `{"task": "<task id>"}` (a task of the set the host was started
  with), `{"task": {...task JSON...}}`, or `{"servers": ["zendesk", "crm"]}` (a free
  session, no task; optional `"request"`); optional `"episode_id"` and `"seed"`. 201 with
  `episode_id`, `mcp_endpoint`, `servers`, `tools`, `request` (the user's first message),
  `instructions` (the env's system prompt), `task_id`, `turns`.
- `/episodes/<id>/mcp`: the episode's MCP endpoint: its task's tools, named as the
  multi-server env names them, and `finish` (answer the current request; its result is the
  user's next request, or says the episode is over).
- `GET /episodes/<id>`: where the episode stands (`turn`, `turns`, `done`, `request`).
- `POST /episodes/<id>/reply` with `{"answer": "..."}`: answer the current request from
  outside MCP (a harness that reads the agent's final text); answers like `GET /episodes/<id>`.
- `GET /episodes/<id>/result`: the env's score: reward, breakdown, state diff, calls, answers.
- `DELETE /episodes/<id>`: closes the episode once its calls in flight have answered.
- `GET /tasks`: the ids, servers and turn counts of the host's tasks; `GET /healthz`: counts.

The hardening is that of the kernel's `http_app` and shares its pieces: bounded bodies,
episode count and memory caps (503 with `Retry-After`), idle expiry, and `AccessGuard` (Host,
Origin, bearer token).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator, Sequence
from typing import Annotated, Any, Literal, cast

import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from mcpgym.envs.episode_pool import EpisodePool
from mcpgym.envs.hosted_episode import HostedEpisode, finish_tool_schema, free_task
from mcpgym.envs.mcp_env import FINISH, FINISH_SCHEMA, McpEnv
from mcpgym.servers.catalog import benchmark_server_names, load_server, server_names
from mcpgym.servers.kernel.http_app import (
    SESSION_ID,
    SESSION_ID_PATTERN,
    Asgi,
    HttpSettings,
    error,
    mcp_manager,
    pooled_app,
    read_body,
)
from mcpgym.servers.kernel.mcp_server import call_in_pool, mcp_tools
from mcpgym.servers.kernel.memo import BoundedCache
from mcpgym.servers.kernel.session_pool import PoolFull, SessionExists
from mcpgym.tasks.model import Task

MAX_CREATE_BODY = 1 << 20
"""Largest body `POST /episodes` reads (a full task JSON with its initial state fits)."""
MAX_REPLY_BODY = 1 << 17
MAX_TEXT = 65_536
"""Longest request or answer text accepted."""
MAX_PROBLEMS = 5
BAD_EPISODE_ID = "episode ids are 1-64 letters, digits, '-' or '_'"
NO_EPISODE = "no_episode: use /episodes/<id>/mcp"
INSTRUCTIONS = (
    "An mcpgym episode: the tools of its task's servers over one world of their own, and `finish`. "
    "Use the tools to look things up and make changes, never guess ids or numbers, then call `finish` "
    "with your final answer (the numbers, names and dates asked for). `finish` answers with the user's "
    "next request, or says the episode is over."
)

TaskId = Annotated[str, StringConstraints(min_length=1, max_length=256)]
ServerName = Annotated[str, StringConstraints(min_length=1, max_length=64)]
Text = Annotated[str, StringConstraints(max_length=MAX_TEXT)]


class HostSettings(HttpSettings):
    """An episode host's limits (`max_sessions` bounds the live episodes) and env settings."""

    max_calls: int = Field(default=48, ge=1, le=10_000)
    """Tool calls per episode (the env's `max_calls`); later calls answer `budget_exceeded`."""
    max_steps: int = Field(default=128, ge=1, le=100_000)
    """MCP tool calls per episode, `finish` included (the env's `max_turns`: each is one step)."""
    reward: Literal["dense", "outcome-only", "process-only", "bfcl"] = "dense"
    servers: list[ServerName] | None = Field(default=None, max_length=256)
    """Servers an episode may mount (default: every installed one, other benchmarks' too)."""


class CreateEpisode(BaseModel):
    """Body of `POST /episodes`: a task (id or JSON), or the servers of a free session."""

    model_config = ConfigDict(extra="forbid")

    task: TaskId | Task | None = None
    servers: list[ServerName] | None = Field(default=None, min_length=1, max_length=64)
    request: Text | None = None
    episode_id: str | None = Field(default=None, pattern=SESSION_ID_PATTERN)
    seed: int | None = Field(default=None, ge=0, le=2**63 - 1)


class Reply(BaseModel):
    """Body of `POST /episodes/<id>/reply`."""

    model_config = ConfigDict(extra="forbid")

    answer: Text = ""


class BadRequest(ValueError):
    """A request the host refuses with 400 and this message."""


def problems(err: ValidationError) -> str:
    """A validation error as one line: where and what, for the first few problems, never the input."""
    lines = []
    for item in err.errors(include_url=False, include_input=False)[:MAX_PROBLEMS]:
        where = ".".join(str(part) for part in item["loc"]) or "body"
        lines.append(f"{where}: {item['msg']}")
    more = len(err.errors()) - MAX_PROBLEMS
    return "; ".join(lines) + (f" (and {more} more)" if more > 0 else "")


def host_app(settings: HostSettings | None = None, tasks: Sequence[Task] | None = None) -> Starlette:
    """A Starlette app hosting scored episodes over `tasks` (default: the shipped tasks)."""
    settings = settings or HostSettings()
    if tasks is None:
        from mcpgym.tasks.loader import shipped_tasks

        tasks = shipped_tasks()
    by_id = {task.id: task for task in tasks}
    installed = [*server_names(), *benchmark_server_names()]
    allowed = set(settings.servers if settings.servers is not None else installed)
    unknown = sorted(allowed - set(installed))
    if unknown:
        raise ValueError(f"unknown servers {unknown}; servers: {', '.join(installed)}")
    pool = EpisodePool(
        max_episodes=settings.max_sessions, idle_seconds=settings.idle_seconds, max_memory_mb=settings.max_memory_mb
    )
    tool_lists: BoundedCache[list[types.Tool]] = BoundedCache(256)
    manager = mcp_manager(episode_mcp_server(pool, tool_lists, settings.max_result_chars), settings)

    def chosen_task(body: CreateEpisode) -> tuple[Task | None, list[str]]:
        """The task and servers a create body asks for; `BadRequest` says what is wrong."""
        if (body.task is None) == (body.servers is None):
            raise BadRequest('give either "task" (a task id or a task JSON) or "servers" (a free session)')
        if body.request is not None and body.task is not None:
            raise BadRequest('"request" is for a free session; a task brings its own requests')
        if isinstance(body.task, str):
            task = by_id.get(body.task)
            if task is None:
                raise BadRequest(f"no task {body.task[:200]!r} on this host ({len(by_id)} tasks; GET /tasks lists them)")
            servers = list(task.servers)
        elif body.task is not None:
            task, servers = body.task, list(body.task.servers)
        else:
            task, servers = None, list(body.servers or [])
        if len(set(servers)) != len(servers):
            raise BadRequest(f"servers listed twice: {servers}")
        refused = [name for name in servers if name not in allowed]
        if refused:
            raise BadRequest(f"servers {refused} are not served here; servers: {', '.join(sorted(allowed))}")
        return task, servers

    def build(key: str, task: Task | None, servers: list[str], body: CreateEpisode) -> HostedEpisode:
        if task is None:
            task = free_task(key, servers, body.request, body.seed if body.seed is not None else settings.seed)
        try:
            env = McpEnv(
                servers=servers, tasks=[task], max_turns=settings.max_steps, max_calls=settings.max_calls,
                max_result_chars=settings.max_result_chars, reward=settings.reward,
            )
        except ValueError as err:
            raise BadRequest(str(err)[:1000]) from None
        try:
            return HostedEpisode(key, env, task, seed=body.seed)
        except ValueError as err:
            env.close()
            raise BadRequest(str(err)[:1000]) from None
        except BaseException:
            env.close()
            raise

    async def create_episode(request: Request) -> Response:
        raw = await read_body(request, MAX_CREATE_BODY, "POST /episodes")
        if isinstance(raw, Response):
            return raw
        try:
            body = CreateEpisode.model_validate_json(raw or b"{}")
            task, servers = chosen_task(body)
        except ValidationError as err:
            return error(400, f"invalid body: {problems(err)}")
        except BadRequest as err:
            return error(400, str(err))
        try:
            episode = await pool.create(body.episode_id, servers, lambda key: build(key, task, servers, body))
        except SessionExists as taken:
            return error(409, str(taken))
        except PoolFull as full:
            return error(503, str(full), full.retry_after)
        except BadRequest as err:
            return error(400, str(err))
        key = episode.episode_id
        return JSONResponse(
            {
                "episode_id": key,
                "mcp_endpoint": f"/episodes/{key}/mcp",
                "task_id": episode.task.id,
                "servers": servers,
                "tools": episode.tool_names,
                "request": episode.task.turns[0].user,
                "turns": len(episode.task.turns),
                "instructions": episode.instructions,
            },
            status_code=201,
        )

    def live_key(request: Request) -> tuple[str | None, Response | None]:
        key = request.path_params["episode_id"]
        if not SESSION_ID.match(key):
            return None, error(400, BAD_EPISODE_ID)
        if key not in pool:
            return None, error(404, pool.why_unavailable(key))
        return key, None

    async def on_episode(request: Request, work: Any) -> Response:
        key, refusal = live_key(request)
        if refusal is not None or key is None:
            return refusal or error(400, BAD_EPISODE_ID)
        answer = await pool.run(key, work)
        if answer is None:
            return error(404, pool.why_unavailable(key))
        return JSONResponse(answer.model_dump(mode="json"))

    async def get_episode(request: Request) -> Response:
        return await on_episode(request, lambda episode: episode.progress())

    async def get_result(request: Request) -> Response:
        return await on_episode(request, lambda episode: episode.result())

    async def reply(request: Request) -> Response:
        key, refusal = live_key(request)
        if refusal is not None:
            return refusal
        raw = await read_body(request, MAX_REPLY_BODY, "POST /episodes/<id>/reply")
        if isinstance(raw, Response):
            return raw
        try:
            body = Reply.model_validate_json(raw or b"{}")
        except ValidationError as err:
            return error(400, f'invalid body, expected {{"answer": "<text>"}}: {problems(err)}')
        return await on_episode(request, lambda episode: episode.reply(body.answer))

    async def delete_episode(request: Request) -> Response:
        key, refusal = live_key(request)
        if refusal is not None or key is None:
            return refusal or error(400, BAD_EPISODE_ID)
        if not await pool.close(key):
            return error(404, pool.why_unavailable(key))
        return JSONResponse({"closed": key})

    async def list_tasks(request: Request) -> Response:
        return JSONResponse(
            {"tasks": [{"id": t.id, "servers": t.servers, "turns": len(t.turns)} for t in by_id.values()]}
        )

    async def health(request: Request) -> Response:
        return JSONResponse(
            {
                "status": "ok",
                "episodes": len(pool),
                "memory_mb": round(pool.memory_bytes / 2**20, 1),
                "max_episodes": settings.max_sessions,
                "max_memory_mb": settings.max_memory_mb,
                "tasks": len(by_id),
            }
        )

    async def mcp_endpoint(scope: Scope, receive: Receive, send: Send) -> None:
        key = scope["path_params"]["episode_id"]
        if not SESSION_ID.match(key):
            await error(400, BAD_EPISODE_ID)(scope, receive, send)
        elif key not in pool:
            await error(404, pool.why_unavailable(key))(scope, receive, send)
        else:
            await manager.handle_request(scope, receive, send)

    routes = [
        Route("/episodes", create_episode, methods=["POST"]),
        Route("/episodes/{episode_id}", get_episode, methods=["GET"]),
        Route("/episodes/{episode_id}", delete_episode, methods=["DELETE"]),
        Route("/episodes/{episode_id}/result", get_result, methods=["GET"]),
        Route("/episodes/{episode_id}/reply", reply, methods=["POST"]),
        Route("/episodes/{episode_id}/mcp", Asgi(mcp_endpoint), methods=["GET", "POST", "DELETE"]),
        Route("/tasks", list_tasks, methods=["GET"]),
        Route("/healthz", health, methods=["GET"]),
    ]
    return pooled_app(routes, pool, manager, settings)


def episode_tools(episode: HostedEpisode) -> list[types.Tool]:
    """The MCP definitions of an episode's tools, under the names the env shows, `finish` last."""
    tools = []
    for name, (server, tool) in episode.env.tool_routes.items():
        definition = next(t for t in mcp_tools(load_server(server)) if t.name == tool)
        tools.append(definition.model_copy(update={"name": name}))
    finish = cast(dict[str, Any], FINISH_SCHEMA["function"])
    tools.append(types.Tool(name=FINISH, description=finish["description"], input_schema=finish_tool_schema()))
    return tools


def episode_key(ctx: ServerRequestContext[Any]) -> str | None:
    """The episode a request belongs to: the `episode_id` of its URL."""
    request = getattr(ctx, "request", None)
    path_params = getattr(request, "path_params", None) or {}
    key = path_params.get("episode_id")
    return str(key) if key is not None else None


def episode_mcp_server(
    pool: EpisodePool, tool_lists: BoundedCache[list[types.Tool]], max_result_chars: int
) -> Server[Any]:
    """An MCP server (official SDK, low-level API) answering each request from the episode its
    URL names."""

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        key = episode_key(ctx)
        episode = pool.get(key) if key is not None else None
        if episode is None:
            return types.ListToolsResult(tools=[])
        tools = tool_lists.get(tuple(episode.env.tool_routes.items()), lambda: episode_tools(episode))
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return await call_in_pool(pool, episode_key(ctx), params, max_result_chars, NO_EPISODE)

    return Server("mcpgym-episodes", version="0.1.0", title="mcpgym episode host", instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool)


def serve_host(settings: HostSettings | None = None, tasks: Sequence[Task] | None = None,
               host: str = "127.0.0.1", port: int = 8000) -> None:
    """Run the episode host until interrupted."""
    import uvicorn

    uvicorn.run(host_app(settings, tasks), host=host, port=port, log_level="warning")


@contextlib.contextmanager
def hosted(settings: HostSettings | None = None, tasks: Sequence[Task] | None = None) -> Iterator[str]:
    """The episode host running in a background thread of this process on 127.0.0.1 and a
    free port; yields its base URL and stops it on exit."""
    import uvicorn

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    port = int(listener.getsockname()[1])
    config = uvicorn.Config(host_app(settings, tasks), log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, name="mcpgym-host", daemon=True)
    thread.start()
    try:
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("the episode host did not start")
            threading.Event().wait(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        listener.close()


__all__ = ["CreateEpisode", "HostSettings", "Reply", "episode_tools", "host_app", "hosted", "serve_host"]
