"""`ServerSpec`: everything that defines one domain server, in one value."""

from __future__ import annotations

import random
import sqlite3
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Session

from mcpgym.servers.kernel import disk_cache
from mcpgym.servers.kernel.changelog import ChangeLog
from mcpgym.servers.kernel.database import (
    TableLayout,
    build_snapshot,
    create_schema,
    engine_for,
    new_connection,
    shared_engine,
    table_layouts,
)
from mcpgym.servers.kernel.initial_state import InitialStateError, PatchedState, RowPatch, check_against, check_patch
from mcpgym.servers.kernel.limits import STORAGE_QUOTA_BYTES
from mcpgym.servers.kernel.links import linking
from mcpgym.servers.kernel.memo import BoundedCache
from mcpgym.servers.kernel.tools import ToolRegistry
from mcpgym.servers.kernel.world import World, build_world, domain_rng

if TYPE_CHECKING:
    from mcpgym.servers.kernel.session import ToolSession

Populate = Callable[[Session, World, random.Random], None]

KERNEL = Path(__file__).parent
SNAPSHOT_CODE = tuple(KERNEL / name for name in ("world.py", "database.py", "changelog.py", "spec.py", "links.py"))
"""Kernel modules that shape a seeded database, besides the server's own package."""

KERNEL_DIGEST = disk_cache.source_digest(SNAPSHOT_CODE)
"""Their digest, read once they are imported (so it describes the code that runs)."""

SNAPSHOT_BYTES_IN_MEMORY = 256 << 20
"""Seeded databases kept in memory, by size; others come back from the disk cache."""

PATCHED_BYTES_IN_MEMORY = 64 << 20
"""Checked patches kept in memory, by the size of their JSON."""


@dataclass(frozen=True, eq=False)
class SeededState:
    """The seeded database of one (server, seed), built once: sessions deserialize its bytes."""

    snapshot: bytes


@dataclass(frozen=True, eq=False)
class ServerSpec:
    """A domain server: schema, seeding, tools and the words an agent reads about it."""

    name: str
    title: str
    instructions: str
    base: type[DeclarativeBase]
    populate: Populate
    tools: ToolRegistry = field(repr=False)
    storage_quota_bytes: int = STORAGE_QUOTA_BYTES
    """How much a session's database may grow beyond its seeded size."""
    links: tuple[str, ...] = ()
    """Servers whose seeded databases `populate` reads to link to their rows
    (`kernel/links.py`): their code is part of this server's seeded-database cache key."""
    code_digest: str | None = field(init=False, repr=False)
    """A digest of the code and library versions that shape this server's seeded databases
    (read when the spec is made, right after its modules were imported), or None when they
    cannot be pinned down (a populate or schema defined inside a function): then the
    seeded databases are never kept on disk."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "code_digest", _code_digest(self.populate, self.base))

    def seeded(self, seed: int) -> SeededState:
        """The seeded state of `seed`, built on first use and then shared (it is immutable).

        Kept in memory (the most recently used, up to `SNAPSHOT_BYTES_IN_MEMORY`) and in the
        disk cache, so another process loads it instead of running the seeding again."""
        return _snapshots.get((self, seed), lambda: SeededState(snapshot=_load_or_build(self, seed)))

    def open(self, seed: int = 0, state: RowPatch | None = None) -> ToolSession:
        """A new session on the seeded world of `seed`, patched by `state` if given."""
        from mcpgym.servers.kernel.session import ToolSession

        return ToolSession(self, seed, state)

    def check_state(self, state: Any) -> None:
        """Raise `InitialStateError` unless `state` is a row patch that fits the schema (cheap:
        no world is seeded; `prepare_state` checks it against the seeded rows)."""
        if not isinstance(state, RowPatch):
            raise InitialStateError(f"{self.name} takes a patch of rows (a JSON list), not a configuration object")
        check_patch(self, state)

    def prepare_state(self, seed: int, state: Any) -> None:
        """Check `state` against the seeded world of `seed` and keep it ready for sessions."""
        self.check_state(state)
        if state.root:
            self.patched(seed, state)

    def patched(self, seed: int, patch: RowPatch) -> PatchedState:
        """`patch` checked against the seeded state of `seed` (`InitialStateError` if it does
        not fit), once per (seed, patch digest); kept in memory, by the patches' size."""
        return _patched.get((self, seed, patch.digest), lambda: check_against(self, self.seeded(seed).snapshot, patch))

    @cached_property
    def seed_digest(self) -> str | None:
        """`code_digest` with the seed digests of the linked servers: what the disk cache keys
        this server's seeded databases by (None when any part cannot be pinned down)."""
        if not self.links:
            return self.code_digest
        from mcpgym.servers.catalog import load_server

        parts = [self.code_digest, *(load_server(name).seed_digest for name in self.links)]
        return None if None in parts else disk_cache.digest_of([part for part in parts if part])

    @cached_property
    def engine(self) -> Engine:
        """The engine every session of this server connects through: one compiled-statement
        cache for all of them, a private in-memory database for each."""
        return shared_engine()

    @cached_property
    def layouts(self) -> tuple[TableLayout, ...]:
        """The layout of every table of the schema, by name."""
        connection = new_connection()
        engine = engine_for(connection)
        create_schema(engine, self.base)
        layouts = tuple(table_layouts(connection))
        engine.dispose()
        connection.close()
        return layouts

    @cached_property
    def changelog(self) -> ChangeLog:
        """The change log of this schema: built into every seeded database, read by a
        session's `diff` and `reset`."""
        return ChangeLog.for_schema(self.layouts, self.base)


def _code_digest(populate: Populate, base: type[DeclarativeBase]) -> str | None:
    """The digest of the kernel, of the packages defining `populate` and `base`, of their names,
    and of the library versions; None for a function defined inside another one."""
    files = []
    names = []
    for part in (populate, base):
        qualname = getattr(part, "__qualname__", "")
        module = sys.modules.get(getattr(part, "__module__", "") or "")
        source = getattr(module, "__file__", None)
        if not qualname or "<" in qualname or source is None:
            return None
        files += Path(source).parent.glob("*.py")
        names.append(f"{part.__module__}:{qualname}")
    return disk_cache.digest_of([KERNEL_DIGEST, disk_cache.source_digest(files), *names, *_library_versions()])


@cache
def _library_versions() -> tuple[str, ...]:
    """Versions of what else shapes the bytes: SQLAlchemy (DDL), Faker, SQLite, Python."""
    return (sqlalchemy.__version__, version("faker"), sqlite3.sqlite_version, f"{sys.version_info[:2]}")


_snapshots: BoundedCache[SeededState] = BoundedCache(SNAPSHOT_BYTES_IN_MEMORY, lambda state: len(state.snapshot))
_patched: BoundedCache[PatchedState] = BoundedCache(
    PATCHED_BYTES_IN_MEMORY, lambda state: 256 + sum(len(s.sql) + 64 * len(s.params) for s in state.statements)
)


def _load_or_build(spec: ServerSpec, seed: int) -> bytes:
    """The seeded database of `seed` from the disk cache, else built (and then stored)."""
    key = None if spec.seed_digest is None else f"{spec.name}-{seed}-{spec.seed_digest}"
    if key is not None:
        stored = disk_cache.load(key)
        if stored is not None:
            return stored
    snapshot = build_seeded(spec, seed)
    if key is not None:
        disk_cache.store(key, snapshot)
    return snapshot


def build_seeded(spec: ServerSpec, seed: int) -> bytes:
    """Build the seeded database of `seed` from scratch: world, populate, change log, bytes."""
    world = build_world(seed)
    rng = domain_rng(seed, spec.name)
    with linking(spec.links):
        return build_snapshot(spec.base, lambda db: spec.populate(db, world, rng), spec.changelog.install)
