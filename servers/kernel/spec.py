"""`ServerSpec`: everything that defines one domain server, in one value."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from sqlalchemy.orm import DeclarativeBase, Session

from mcpgym.servers.kernel.database import build_snapshot
from mcpgym.servers.kernel.tools import ToolRegistry
from mcpgym.servers.kernel.world import World, build_world, domain_rng

Populate = Callable[[Session, World, random.Random], None]


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

    def seeded(self, seed: int) -> SeededState:
        """The seeded state of `seed`, built on first use and then shared (it is immutable)."""
        return _seeded_state(self, seed)


@lru_cache(maxsize=128)
def _seeded_state(spec: ServerSpec, seed: int) -> SeededState:
    world = build_world(seed)
    rng = domain_rng(seed, spec.name)
    return SeededState(snapshot=build_snapshot(spec.base, lambda db: spec.populate(db, world, rng)))
