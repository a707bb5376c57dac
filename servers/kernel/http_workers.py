"""Several worker processes behind one address: a light router in front, each session pinned
to one worker.

Each worker runs the whole app of `http_app` (its own pool, with its share of the session and
memory budgets) on a Unix socket in a private directory (mode 0700) that only this user can
reach. The router checks access (`AccessGuard`), reads the request body (at most 4 MiB) and
forwards the request to the worker that owns it, streaming the answer back:
- `/sessions/<id>...`: the worker `owner(id)` (a hash of the id), so any id, minted or
  chosen, always lands on the same worker; workers mint only ids they own;
- `POST /sessions`: the owner of a chosen id, else the next worker in turn;
- `/mcp` with `Mcp-Session-Id`: the worker that issued that id (learned from its initialize
  answer; an id no worker issued is 404); without one: the next worker in turn;
- `GET /healthz`: the sum over the workers.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import json
import multiprocessing
import os
import secrets
import shutil
import signal
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import anyio
import h11
from starlette.datastructures import Headers
from starlette.types import Message, Receive, Scope, Send

from mcpgym.servers.kernel.http_access import AccessGuard, AccessPolicy
from mcpgym.servers.kernel.http_app import MAX_CREATE_BODY, SESSION_ID, CreateSession, HttpSettings, http_app
from mcpgym.servers.kernel.spec import ServerSpec

MAX_FORWARD_BODY = 4 * 1024 * 1024
"""Largest request body forwarded (the MCP SDK's own limit)."""
HOP_BY_HOP = frozenset(
    {b"connection", b"keep-alive", b"transfer-encoding", b"te", b"trailer", b"upgrade", b"proxy-connection",
     b"content-length", b"host", b"authorization", b"origin", b"expect"}
)
"""Request headers the router does not pass on (it checked them, or they are per hop)."""
MAX_IDLE_LINKS = 1024
"""Most kept-alive connections to one worker."""
RESPONSE_DROPPED = frozenset({b"connection", b"keep-alive", b"transfer-encoding"})
"""Response headers not passed on (the body is relayed whole, so a length holds)."""


def owner(session_id: str, workers: int) -> int:
    """The worker that owns `session_id`."""
    digest = hashlib.blake2b(session_id.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % workers


def minter(index: int, workers: int) -> Callable[[], str]:
    """Session ids of 128 random bits that `owner` assigns to worker `index`."""

    def mint() -> str:
        while True:
            key = secrets.token_hex(16)
            if owner(key, workers) == index:
                return key

    return mint


def worker_settings(settings: HttpSettings, workers: int) -> HttpSettings:
    """One worker's share of the budgets; access is the router's job."""
    return settings.model_copy(
        update={
            "max_sessions": max(1, -(-settings.max_sessions // workers)),
            "max_memory_mb": settings.max_memory_mb / workers,
            "access": AccessPolicy(),
        }
    )


def run_worker(spec_name: str, settings_json: str, index: int, workers: int, socket_path: str) -> None:
    """A worker process: the full app on a Unix socket (target of `multiprocessing`)."""
    import uvicorn

    from mcpgym.servers.catalog import load_server

    settings = HttpSettings.model_validate_json(settings_json)
    app = http_app(load_server(spec_name), settings, mint=minter(index, workers))
    threading.Thread(target=exit_with_parent, args=(os.getppid(),), daemon=True).start()
    uvicorn.run(app, uds=socket_path, log_level="warning", timeout_keep_alive=3600)


def exit_with_parent(parent: int) -> None:
    """End this worker when the router that started it is gone, however it ended."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


class WorkerLink:
    """Keep-alive HTTP/1.1 connections to one worker's Unix socket, spoken with h11."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter, h11.Connection]] = []

    async def exchange(
        self,
        method: bytes,
        target: bytes,
        headers: list[tuple[bytes, bytes]],
        body: bytes,
        send: Send,
        on_start: Callable[[int, list[tuple[bytes, bytes]]], None],
    ) -> None:
        """Send one request and relay the answer to `send` as it comes (streams included).

        A kept-alive connection the worker has closed meanwhile is replaced once, before any
        of the answer was relayed."""
        while True:
            reused = bool(self.idle)
            reader, writer, conn = self.idle.pop() if reused else await self.connect()
            started = False

            def noted(status: int, answer: list[tuple[bytes, bytes]]) -> None:
                nonlocal started
                started = True
                on_start(status, answer)

            reusable = False
            try:
                await self.relay(reader, writer, conn, method, target, headers, body, send, noted)
                if conn.our_state is h11.DONE and conn.their_state is h11.DONE:
                    conn.start_next_cycle()
                    reusable = len(self.idle) < MAX_IDLE_LINKS
                return
            except (OSError, h11.ProtocolError):
                if started or not reused:
                    raise
            finally:
                if reusable:
                    self.idle.append((reader, writer, conn))
                else:
                    writer.close()

    async def relay(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        conn: h11.Connection,
        method: bytes,
        target: bytes,
        headers: list[tuple[bytes, bytes]],
        body: bytes,
        send: Send,
        on_start: Callable[[int, list[tuple[bytes, bytes]]], None],
    ) -> None:
        head = [(b"host", b"localhost"), *headers, (b"content-length", str(len(body)).encode())]
        writer.write(conn.send(h11.Request(method=method, target=target, headers=head)))
        writer.write(conn.send(h11.Data(data=body)) + conn.send(h11.EndOfMessage()) if body else conn.send(h11.EndOfMessage()))
        await writer.drain()
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                conn.receive_data(await reader.read(65_536))
            elif isinstance(event, h11.Response):
                answer = [(k, v) for k, v in event.headers if k not in RESPONSE_DROPPED]
                on_start(event.status_code, answer)
                await send({"type": "http.response.start", "status": event.status_code, "headers": answer})
            elif isinstance(event, h11.Data):
                await send({"type": "http.response.body", "body": bytes(event.data), "more_body": True})
            elif isinstance(event, h11.EndOfMessage):
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                return
            elif isinstance(event, h11.ConnectionClosed):
                raise ConnectionResetError("the worker closed the connection")

    async def connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, h11.Connection]:
        reader, writer = await asyncio.open_unix_connection(self.path, limit=2**20)
        return reader, writer, h11.Connection(h11.CLIENT, max_incomplete_event_size=2**20)

    async def get_json(self, target: bytes) -> Any:
        """A small GET answered in full (health)."""
        chunks: list[bytes] = []

        async def collect(message: Message) -> None:
            if message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.exchange(b"GET", target, [], b"", collect, lambda status, headers: None)
        return json.loads(b"".join(chunks))

    def close(self) -> None:
        for _, writer, _ in self.idle:
            writer.close()
        self.idle.clear()


class Router:
    """The ASGI app of the front process: forwards every request to its worker."""

    def __init__(self, sockets: list[str], max_plain_sessions: int) -> None:
        self.links = [WorkerLink(path) for path in sockets]
        self.turn = itertools.count()
        self.plain: OrderedDict[str, int] = OrderedDict()
        """`Mcp-Session-Id` of plain-`/mcp` sessions -> the worker that issued it."""
        self.max_plain = max_plain_sessions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        path, method = scope["path"], scope["method"]
        headers = Headers(scope=scope)
        if path == "/healthz" and method == "GET":
            await self.health(send)
            return
        body = await self.read_body(receive)
        if body is None:
            await reply(send, 413, {"error": f"request bodies are at most {MAX_FORWARD_BODY} bytes"})
            return
        worker = self.route(path, method, headers, body)
        if worker is None:
            await reply(send, 404, {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Session not found"}})
            return
        await self.forward(worker, scope, headers, body, receive, send)

    def route(self, path: str, method: str, headers: Headers, body: bytes) -> int | None:
        """The worker a request goes to; None for a plain-`/mcp` session no worker issued."""
        workers = len(self.links)
        parts = path.split("/")
        if len(parts) >= 3 and parts[1] == "sessions" and parts[2]:
            return owner(parts[2], workers) if SESSION_ID.match(parts[2]) else 0
        if path == "/sessions" and method == "POST" and 0 < len(body) <= MAX_CREATE_BODY:
            with contextlib.suppress(ValueError):
                chosen = CreateSession.model_validate_json(body).session_id
                if chosen is not None:
                    return owner(chosen, workers)
        sid = headers.get("mcp-session-id")
        if path == "/mcp" and sid is not None:
            worker = self.plain.get(sid)
            if worker is not None:
                self.plain.move_to_end(sid)
            return worker
        return next(self.turn) % workers

    async def forward(self, worker: int, scope: Scope, headers: Headers, body: bytes, receive: Receive, send: Send) -> None:
        """Send the request to `worker` and relay its answer until done or the client leaves."""
        outgoing = [(k, v) for k, v in scope["headers"] if k not in HOP_BY_HOP]
        target = scope["raw_path"] if scope.get("raw_path") else scope["path"].encode()
        if scope["query_string"]:
            target += b"?" + scope["query_string"]
        started = False

        def on_start(status: int, answer: list[tuple[bytes, bytes]]) -> None:
            nonlocal started
            started = True
            self.learn(worker, scope, headers, status, answer)

        try:
            async with anyio.create_task_group() as group:

                async def watch_disconnect() -> None:
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    group.cancel_scope.cancel()

                group.start_soon(watch_disconnect)
                await self.links[worker].exchange(scope["method"].encode(), target, outgoing, body, send, on_start)
                group.cancel_scope.cancel()
        except (OSError, h11.ProtocolError):
            if not started:
                await reply(send, 502, {"error": "the worker of this session is not answering; retry later"})

    def learn(self, worker: int, scope: Scope, headers: Headers, status: int, answer: list[tuple[bytes, bytes]]) -> None:
        """Remember which worker issued a plain-`/mcp` session id, and forget closed ones."""
        if scope["path"] != "/mcp" or status >= 300:
            return
        sid = headers.get("mcp-session-id")
        issued = next((v.decode("latin-1") for k, v in answer if k == b"mcp-session-id"), None)
        if sid is None and issued is not None:
            self.plain[issued] = worker
            while len(self.plain) > self.max_plain:
                self.plain.popitem(last=False)
        elif sid is not None and scope["method"] == "DELETE":
            self.plain.pop(sid, None)

    async def read_body(self, receive: Receive) -> bytes | None:
        body = bytearray()
        while True:
            message: Message = await receive()
            if message["type"] != "http.request":
                return bytes(body)
            body += message.get("body", b"")
            if len(body) > MAX_FORWARD_BODY:
                return None
            if not message.get("more_body", False):
                return bytes(body)

    async def health(self, send: Send) -> None:
        totals: dict[str, Any] = {"status": "ok", "workers": len(self.links), "sessions": 0, "memory_mb": 0.0}
        for link in self.links:
            try:
                with anyio.fail_after(5):
                    part = await link.get_json(b"/healthz")
            except (OSError, TimeoutError, ValueError, h11.ProtocolError):
                totals["status"] = "degraded"
                continue
            totals["sessions"] += part["sessions"]
            totals["memory_mb"] = round(totals["memory_mb"] + part["memory_mb"], 1)
            totals.update({k: part[k] for k in ("server", "seed", "max_sessions", "max_memory_mb")})
        await reply(send, 200, totals)

    async def lifespan(self, receive: Receive, send: Send) -> None:
        message = await receive()
        assert message["type"] == "lifespan.startup"
        await send({"type": "lifespan.startup.complete"})
        while (await receive())["type"] != "lifespan.shutdown":
            pass
        for link in self.links:
            link.close()
        await send({"type": "lifespan.shutdown.complete"})


async def reply(send: Send, status: int, data: dict[str, Any]) -> None:
    body = json.dumps(data).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def wait_for_sockets(paths: list[str], processes: list[Any], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not all(os.path.exists(p) for p in paths):
        if any(not p.is_alive() for p in processes) or time.monotonic() > deadline:
            raise RuntimeError("a worker process did not start")
        time.sleep(0.05)


def serve_workers(spec: ServerSpec, host: str, port: int, settings: HttpSettings, workers: int) -> None:
    """Start `workers` worker processes and the router in front of them; stop them all on exit."""
    import uvicorn

    folder = tempfile.mkdtemp(prefix="mcpgym-workers-")
    os.chmod(folder, 0o700)
    sockets = [os.path.join(folder, f"worker-{i}.sock") for i in range(workers)]
    context = multiprocessing.get_context("spawn")
    share = worker_settings(settings, workers).model_dump_json()
    processes = [
        context.Process(target=run_worker, args=(spec.name, share, i, workers, path), daemon=True)
        for i, path in enumerate(sockets)
    ]
    try:
        for process in processes:
            process.start()
        wait_for_sockets(sockets, processes)
        router = AccessGuard(Router(sockets, max_plain_sessions=4 * settings.max_sessions), settings.access)
        uvicorn.run(router, host=host, port=port, log_level="warning")
    finally:
        for process in processes:
            if process.is_alive() and process.pid is not None:
                os.kill(process.pid, signal.SIGTERM)
        for process in processes:
            process.join(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)
