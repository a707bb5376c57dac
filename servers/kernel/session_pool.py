"""Tool sessions of many clients in one process: admission by count and memory, idle eviction,
calls run off the event loop with the calls of one session serialised, and closes that wait
for the calls in flight.

A session is created only on purpose (`admit()` then `Admission.create`), never by naming an
unknown key, so a key a client made up never reaches a world. A closed session leaves a
tombstone that tells a later call why it is gone (closed by the client, idle, shutdown).
"""

from __future__ import annotations

import contextlib
import math
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import anyio

from mcpgym.servers.kernel.session import ToolResult, ToolSession
from mcpgym.servers.kernel.spec import ServerSpec

TOMBSTONES = 65_536
"""How many closed session ids are remembered to explain a later call on them."""


class CloseReason(Enum):
    CLIENT = "client"
    IDLE = "idle"
    SHUTDOWN = "shutdown"


class PoolFull(Exception):
    """No room for another session; `retry_after` seconds is when an idle one may free some."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class SessionExists(Exception):
    """The id is live, or was used before: ids are never reused."""


@dataclass
class _Entry:
    session: ToolSession
    size: int
    last_used: float
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    in_flight: int = 0
    closed: CloseReason | None = None


class SessionPool:
    """Tool sessions keyed by session id, bounded by `max_sessions` and `max_memory_mb`.

    When full, new sessions are refused (`PoolFull`), never made room for by closing a
    session that is in use; sessions idle longer than `idle_seconds` are closed.
    """

    def __init__(
        self,
        spec: ServerSpec,
        seed: int = 0,
        max_sessions: int = 512,
        idle_seconds: float = 1800.0,
        max_memory_mb: float = 2048.0,
        threads: int = 8,
        mint: Callable[[], str] | None = None,
    ) -> None:
        if max_sessions < 1 or not (math.isfinite(idle_seconds) and idle_seconds > 0):
            raise ValueError("max_sessions must be at least 1 and idle_seconds a positive number")
        if not (math.isfinite(max_memory_mb) and max_memory_mb > 0):
            raise ValueError("max_memory_mb must be a positive number")
        self.spec = spec
        self.seed = seed
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds
        self.max_memory_bytes = int(max_memory_mb * 1024 * 1024)
        self._mint = mint or (lambda: secrets.token_hex(16))
        self._sessions: OrderedDict[str, _Entry] = OrderedDict()
        """Live sessions, least recently used first."""
        self._closed: OrderedDict[str, CloseReason] = OrderedDict()
        self._reserved: dict[int, int] = {}
        """Admissions not yet built or released: ticket -> bytes set aside for the world."""
        self._admissions = 0
        self._building: set[str] = set()
        self._memory = 0
        self._world_bytes: int | None = None
        self._limiter = anyio.CapacityLimiter(threads)

    def __len__(self) -> int:
        return len(self._sessions)

    def __contains__(self, key: str) -> bool:
        return key in self._sessions

    @property
    def memory_bytes(self) -> int:
        """Bytes held by the live sessions' databases."""
        return self._memory

    def new_id(self) -> str:
        """An unguessable session id (128 random bits) not used before on this pool."""
        while True:
            key = self._mint()
            if self._is_free(key):
                return key

    def _is_free(self, key: str) -> bool:
        return key not in self._sessions and key not in self._closed and key not in self._building

    # -- admission ---------------------------------------------------------------------

    def admit(self, key: str | None = None) -> Admission:
        """Set aside room for one session (raises `SessionExists` for a taken `key`, then
        `PoolFull`); build it with `Admission.create`, or release the admission unused."""
        if key is not None and not self._is_free(key):
            raise SessionExists(f"session id {key} is taken; choose another, or POST /sessions without one")
        self.sweep()
        need = self._world_bytes or 0
        held = self._memory + sum(self._reserved.values())
        if len(self._sessions) + len(self._reserved) >= self.max_sessions:
            raise PoolFull(f"server_busy: {self.max_sessions} sessions are open; retry later", self._retry_after())
        if held + need > self.max_memory_bytes:
            raise PoolFull(
                f"server_busy: sessions hold {held // 2**20} MB of the {self.max_memory_bytes // 2**20} MB "
                "allowed; retry later",
                self._retry_after(),
            )
        self._admissions += 1
        self._reserved[self._admissions] = need
        return Admission(self, self._admissions, key)

    async def create(self, key: str | None = None) -> str:
        """Admit and build a session in one step; its id."""
        async with self.admit(key) as admission:
            return await admission.create()

    async def _build(self, ticket: int, key: str) -> None:
        if not self._is_free(key):
            raise SessionExists(f"session id {key} is taken; choose another, or POST /sessions without one")
        self._building.add(key)
        try:

            def build() -> tuple[ToolSession, int]:
                session = ToolSession(self.spec, self.seed)
                return session, session.size_bytes()

            with anyio.CancelScope(shield=True):
                session, size = await anyio.to_thread.run_sync(build, limiter=self._limiter)
        finally:
            self._building.discard(key)
        self._world_bytes = self._world_bytes or size
        self._reserved.pop(ticket, None)
        self._sessions[key] = _Entry(session=session, size=size, last_used=time.monotonic())
        self._memory += size

    def _retry_after(self) -> int:
        """Seconds until the least recently used session would be idle long enough to close."""
        if not self._sessions:
            return 1
        oldest = next(iter(self._sessions.values())).last_used
        return max(1, math.ceil(oldest + self.idle_seconds - time.monotonic()))

    # -- calls -------------------------------------------------------------------------

    def why_unavailable(self, key: str) -> str:
        """The error a call on `key` gets when it is not a live session."""
        reason = self._closed.get(key)
        if reason is CloseReason.CLIENT:
            return f"session_closed: session {key} was closed by the client; start a new session"
        if reason is CloseReason.IDLE:
            return f"session_expired: session {key} was closed after {self.idle_seconds:.0f} s idle; start a new session"
        if reason is CloseReason.SHUTDOWN:
            return f"session_closed: session {key} was closed because the server is shutting down"
        return (
            f"no_session: there is no session {key} on this server. POST /sessions to get an endpoint of "
            "your own (/sessions/<id>/mcp)"
        )

    async def call(self, key: str, tool: str, arguments: Any) -> ToolResult:
        """Run one call on session `key` in a worker thread, after the session's earlier calls."""
        entry = self._sessions.get(key)
        if entry is None:
            return ToolResult(tool=tool, ok=False, error=self.why_unavailable(key))
        entry.in_flight += 1
        self._touch(key, entry)
        try:
            async with entry.lock:
                if entry.closed is not None:
                    return ToolResult(tool=tool, ok=False, error=self.why_unavailable(key))

                def run() -> tuple[ToolResult, int]:
                    result = entry.session.call(tool, arguments)
                    return result, entry.session.size_bytes() if result.wrote else entry.size

                result, size = await anyio.to_thread.run_sync(run, limiter=self._limiter)
                if entry.closed is None:  # a closed session's bytes were already given back
                    self._memory += size - entry.size
                entry.size = size
                return result
        finally:
            entry.in_flight -= 1
            self._touch(key, entry)

    def _touch(self, key: str, entry: _Entry) -> None:
        entry.last_used = time.monotonic()
        if key in self._sessions:
            self._sessions.move_to_end(key)

    # -- closing -----------------------------------------------------------------------

    async def close(self, key: str, reason: CloseReason = CloseReason.CLIENT) -> bool:
        """Close a live session: new calls are refused at once, calls in flight finish first.
        True if it was live."""
        entry = self._sessions.pop(key, None)
        if entry is None:
            return False
        self._bury(key, reason)
        entry.closed = reason
        self._memory -= entry.size
        with anyio.CancelScope(shield=True):
            async with entry.lock:
                await anyio.to_thread.run_sync(entry.session.close, limiter=self._limiter)
        return True

    def sweep(self) -> list[str]:
        """Close the sessions idle longer than `idle_seconds` (none with a call in flight)."""
        now = time.monotonic()
        idle = []
        for key, entry in self._sessions.items():
            if now - entry.last_used <= self.idle_seconds:
                break
            if entry.in_flight == 0:
                idle.append(key)
        for key in idle:
            entry = self._sessions.pop(key)
            self._bury(key, CloseReason.IDLE)
            entry.closed = CloseReason.IDLE
            self._memory -= entry.size
            entry.session.close()
        return idle

    async def close_all(self, reason: CloseReason = CloseReason.SHUTDOWN) -> None:
        for key in list(self._sessions):
            await self.close(key, reason)

    def _bury(self, key: str, reason: CloseReason) -> None:
        self._closed[key] = reason
        while len(self._closed) > TOMBSTONES:
            self._closed.popitem(last=False)


class Admission:
    """Room set aside for one session; `create` builds its world, `release` gives the room back."""

    def __init__(self, pool: SessionPool, ticket: int, key: str | None) -> None:
        self.pool = pool
        self.ticket = ticket
        self.key = key

    async def create(self, key: str | None = None) -> str:
        """Build the session under `key` (else the key admitted, else a new id); its id."""
        key = key or self.key or self.pool.new_id()
        await self.pool._build(self.ticket, key)
        return key

    def release(self) -> None:
        self.pool._reserved.pop(self.ticket, None)

    async def __aenter__(self) -> Admission:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release()


@contextlib.asynccontextmanager
async def swept(pool: SessionPool, every: float) -> AsyncIterator[None]:
    """Sweep `pool` for idle sessions every `every` seconds while the context is open."""
    async with anyio.create_task_group() as group:

        async def loop() -> None:
            while True:
                await anyio.sleep(every)
                pool.sweep()

        group.start_soon(loop)
        try:
            yield
        finally:
            group.cancel_scope.cancel()
