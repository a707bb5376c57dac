"""Live worlds of many clients in one process: admission by count and memory, idle eviction,
work run off the event loop with the work of one world serialised, and closes that wait for
the work in flight.

`Pool` holds anything that answers tool calls and can be closed (a `ToolSession` here, a
hosted episode in the episode host); `SessionPool` is the pool of one server's tool sessions.

An item is created only on purpose (`reserve()`/`admit()` then `Admission.create`), never by
naming an unknown key, so a key a client made up never reaches a world. A closed item leaves
a tombstone that tells a later call why it is gone (closed by the client, idle, shutdown).
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
from typing import Any, Generic, Protocol, TypedDict, TypeVar, Unpack

import anyio

from mcpgym.servers.kernel.session import ToolResult, ToolSession
from mcpgym.servers.kernel.spec import ServerSpec

TOMBSTONES = 65_536
"""How many closed ids are remembered to explain a later call on them."""


class CloseReason(Enum):
    CLIENT = "client"
    IDLE = "idle"
    SHUTDOWN = "shutdown"


class PoolFull(Exception):
    """No room for another item; `retry_after` seconds is when an idle one may free some."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class SessionExists(Exception):
    """The id is live, or was used before: ids are never reused."""


class Held(Protocol):
    """What a pool holds: it answers tool calls and can be closed."""

    def call(self, tool: str, arguments: Any, /) -> ToolResult: ...

    def close(self) -> None: ...


H = TypeVar("H", bound=Held)
R = TypeVar("R")


@dataclass(frozen=True)
class Wording:
    """The messages of a pool, as `str.format` templates of `key` (and `idle`, in seconds)."""

    noun: str
    """What one item is called ("session"): names the limits in `server_busy` messages."""
    taken: str
    client: str
    idle: str
    shutdown: str
    unknown: str

    def gone(self, reason: CloseReason | None) -> str:
        """The template for an id closed for `reason`, or (None) never made."""
        if reason is CloseReason.CLIENT:
            return self.client
        if reason is CloseReason.IDLE:
            return self.idle
        if reason is CloseReason.SHUTDOWN:
            return self.shutdown
        return self.unknown


SESSION_WORDS = Wording(
    noun="session",
    taken="session id {key} is taken; choose another, or POST /sessions without one",
    client="session_closed: session {key} was closed by the client; start a new session",
    idle="session_expired: session {key} was closed after {idle:.0f} s idle; start a new session",
    shutdown="session_closed: session {key} was closed because the server is shutting down",
    unknown=(
        "no_session: there is no session {key} on this server. POST /sessions to get an endpoint of "
        "your own (/sessions/<id>/mcp)"
    ),
)


class Limits(TypedDict, total=False):
    """The limits of a pool besides its count (see `Pool`)."""

    idle_seconds: float
    max_memory_mb: float
    threads: int
    mint: Callable[[], str] | None


@dataclass
class _Entry(Generic[H]):
    item: H
    size: int
    last_used: float
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    in_flight: int = 0
    closed: CloseReason | None = None


class Pool(Generic[H]):
    """Items keyed by id, bounded by `max_items` and `max_memory_mb`.

    When full, new items are refused (`PoolFull`), never made room for by closing an item that
    is in use; items idle longer than `idle_seconds` are closed. Work runs in at most `threads`
    worker threads; `mint` makes new ids. A subclass says how to measure an item's bytes
    (`_measure`) and whether a call's result may have changed them (`_resized`).
    """

    def __init__(
        self,
        words: Wording,
        max_items: int = 512,
        idle_seconds: float = 1800.0,
        max_memory_mb: float = 2048.0,
        threads: int = 8,
        mint: Callable[[], str] | None = None,
    ) -> None:
        if max_items < 1 or not (math.isfinite(idle_seconds) and idle_seconds > 0):
            raise ValueError(f"max_{words.noun}s must be at least 1 and idle_seconds a positive number")
        if not (math.isfinite(max_memory_mb) and max_memory_mb > 0):
            raise ValueError("max_memory_mb must be a positive number")
        self.words = words
        self.max_items = max_items
        self.idle_seconds = idle_seconds
        self.max_memory_bytes = int(max_memory_mb * 1024 * 1024)
        self._mint = mint or (lambda: secrets.token_hex(16))
        self._entries: OrderedDict[str, _Entry[H]] = OrderedDict()
        """Live items, least recently used first."""
        self._closed: OrderedDict[str, CloseReason] = OrderedDict()
        self._reserved: dict[int, int] = {}
        """Admissions not yet built or released: ticket -> bytes set aside for the item."""
        self._admissions = 0
        self._building: set[str] = set()
        self._memory = 0
        self._limiter = anyio.CapacityLimiter(threads)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: str) -> bool:
        return key in self._entries

    @property
    def memory_bytes(self) -> int:
        """Bytes held by the live items' databases."""
        return self._memory

    def get(self, key: str) -> H | None:
        """The live item under `key`, if any."""
        entry = self._entries.get(key)
        return entry.item if entry is not None else None

    def new_id(self) -> str:
        """An unguessable id (128 random bits) not used before on this pool."""
        while True:
            key = self._mint()
            if self._is_free(key):
                return key

    def _is_free(self, key: str) -> bool:
        return key not in self._entries and key not in self._closed and key not in self._building

    def _measure(self, item: H) -> int:
        """Bytes `item` holds (run in a worker thread)."""
        raise NotImplementedError

    def _resized(self, result: ToolResult) -> bool:
        """Whether a call that answered `result` may have changed its item's bytes."""
        return True

    # -- admission ---------------------------------------------------------------------

    def reserve(self, build: Callable[[str], H], key: str | None = None, need: int = 0) -> Admission[H]:
        """Set aside `need` bytes and room for one item (raises `SessionExists` for a taken
        `key`, then `PoolFull`); build it with `Admission.create`, which runs `build(key)` in a
        worker thread, or release the admission unused."""
        if key is not None and not self._is_free(key):
            raise SessionExists(self.words.taken.format(key=key))
        self.sweep()
        held = self._memory + sum(self._reserved.values())
        if len(self._entries) + len(self._reserved) >= self.max_items:
            noun = self.words.noun
            raise PoolFull(f"server_busy: {self.max_items} {noun}s are open; retry later", self._retry_after())
        if held + need > self.max_memory_bytes:
            raise PoolFull(
                f"server_busy: {self.words.noun}s hold {held // 2**20} MB of the {self.max_memory_bytes // 2**20} MB "
                "allowed; retry later",
                self._retry_after(),
            )
        self._admissions += 1
        self._reserved[self._admissions] = need
        return Admission(self, self._admissions, key, build)

    async def _build(self, ticket: int, key: str, build: Callable[[str], H]) -> H:
        if not self._is_free(key):
            raise SessionExists(self.words.taken.format(key=key))
        self._building.add(key)
        try:

            def made() -> tuple[H, int]:
                item = build(key)
                return item, self._measure(item)

            with anyio.CancelScope(shield=True):
                item, size = await anyio.to_thread.run_sync(made, limiter=self._limiter)
        finally:
            self._building.discard(key)
        self._reserved.pop(ticket, None)
        self._entries[key] = _Entry(item=item, size=size, last_used=time.monotonic())
        self._memory += size
        return item

    def _retry_after(self) -> int:
        """Seconds until the least recently used item would be idle long enough to close."""
        if not self._entries:
            return 1
        oldest = next(iter(self._entries.values())).last_used
        return max(1, math.ceil(oldest + self.idle_seconds - time.monotonic()))

    # -- work --------------------------------------------------------------------------

    def why_unavailable(self, key: str) -> str:
        """The error a call on `key` gets when it is not a live item."""
        return self.words.gone(self._closed.get(key)).format(key=key, idle=self.idle_seconds)

    async def run(self, key: str, work: Callable[[H], R], resized: Callable[[R], bool] | None = None) -> R | None:
        """`work(item)` in a worker thread, after the item's earlier work; None when `key` is
        not live (or closes before its turn comes). The item is measured again afterwards
        unless `resized(answer)` says its bytes cannot have changed."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        entry.in_flight += 1
        self._touch(key, entry)
        try:
            async with entry.lock:
                if entry.closed is not None:
                    return None

                def run() -> tuple[R, int]:
                    answer = work(entry.item)
                    changed = resized is None or resized(answer)
                    return answer, self._measure(entry.item) if changed else entry.size

                answer, size = await anyio.to_thread.run_sync(run, limiter=self._limiter)
                if entry.closed is None:  # a closed item's bytes were already given back
                    self._memory += size - entry.size
                entry.size = size
                return answer
        finally:
            entry.in_flight -= 1
            self._touch(key, entry)

    async def call(self, key: str, tool: str, arguments: Any) -> ToolResult:
        """One tool call on item `key` (see `run`); a failed result when `key` is not live."""
        result = await self.run(key, lambda item: item.call(tool, arguments), self._resized)
        return result if result is not None else ToolResult(tool=tool, ok=False, error=self.why_unavailable(key))

    def _touch(self, key: str, entry: _Entry[H]) -> None:
        entry.last_used = time.monotonic()
        if key in self._entries:
            self._entries.move_to_end(key)

    # -- closing -----------------------------------------------------------------------

    async def close(self, key: str, reason: CloseReason = CloseReason.CLIENT) -> bool:
        """Close a live item: new work is refused at once, work in flight finishes first.
        True if it was live."""
        entry = self._entries.pop(key, None)
        if entry is None:
            return False
        self._bury(key, reason)
        entry.closed = reason
        self._memory -= entry.size
        with anyio.CancelScope(shield=True):
            async with entry.lock:
                await anyio.to_thread.run_sync(entry.item.close, limiter=self._limiter)
        return True

    def sweep(self) -> list[str]:
        """Close the items idle longer than `idle_seconds` (none with work in flight)."""
        now = time.monotonic()
        idle = []
        for key, entry in self._entries.items():
            if now - entry.last_used <= self.idle_seconds:
                break
            if entry.in_flight == 0:
                idle.append(key)
        for key in idle:
            entry = self._entries.pop(key)
            self._bury(key, CloseReason.IDLE)
            entry.closed = CloseReason.IDLE
            self._memory -= entry.size
            entry.item.close()
        return idle

    async def close_all(self, reason: CloseReason = CloseReason.SHUTDOWN) -> None:
        for key in list(self._entries):
            await self.close(key, reason)

    def _bury(self, key: str, reason: CloseReason) -> None:
        self._closed[key] = reason
        while len(self._closed) > TOMBSTONES:
            self._closed.popitem(last=False)


class Admission(Generic[H]):
    """Room set aside for one item; `create` builds it, `release` gives the room back."""

    def __init__(self, pool: Pool[H], ticket: int, key: str | None, build: Callable[[str], H]) -> None:
        self.pool = pool
        self.ticket = ticket
        self.key = key
        self.build = build

    async def open(self, key: str | None = None) -> tuple[str, H]:
        """Build the item under `key` (else the key admitted, else a new id); its id and it."""
        key = key or self.key or self.pool.new_id()
        return key, await self.pool._build(self.ticket, key, self.build)

    async def create(self, key: str | None = None) -> str:
        """`open`, answering only the id."""
        return (await self.open(key))[0]

    def release(self) -> None:
        self.pool._reserved.pop(self.ticket, None)

    async def __aenter__(self) -> Admission[H]:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release()


class SessionPool(Pool[ToolSession]):
    """Tool sessions of one server keyed by session id, bounded by `max_sessions` and
    `max_memory_mb`; each new session is set aside the bytes of the first one built."""

    def __init__(self, spec: ServerSpec, seed: int = 0, max_sessions: int = 512, **limits: Unpack[Limits]) -> None:
        super().__init__(SESSION_WORDS, max_sessions, **limits)
        self.spec = spec
        self.seed = seed
        self._world_bytes: int | None = None

    @property
    def max_sessions(self) -> int:
        return self.max_items

    def admit(self, key: str | None = None) -> Admission[ToolSession]:
        """Set aside room for one session (raises `SessionExists` for a taken `key`, then
        `PoolFull`); build it with `Admission.create`, or release the admission unused."""
        return self.reserve(lambda _key: self.spec.open(self.seed), key, self._world_bytes or 0)

    async def create(self, key: str | None = None) -> str:
        """Admit and build a session in one step; its id."""
        async with self.admit(key) as admission:
            return await admission.create()

    def _measure(self, item: ToolSession) -> int:
        size = item.size_bytes()
        self._world_bytes = self._world_bytes or size
        return size

    def _resized(self, result: ToolResult) -> bool:
        return result.wrote


@contextlib.asynccontextmanager
async def swept(pool: Pool[Any], every: float) -> AsyncIterator[None]:
    """Sweep `pool` for idle items every `every` seconds while the context is open."""
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
