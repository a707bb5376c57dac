"""A server's seeding may read another server's seeded rows to link to them, only when it
declares that server, and the linked server's code is part of its cache key."""

from __future__ import annotations

import dataclasses
import random

import pytest
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from mcpgym.servers import catalog
from mcpgym.servers.kernel.links import LinkError, seeded_rows
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.spec import ServerSpec, build_seeded
from mcpgym.servers.kernel.tools import ToolRegistry
from mcpgym.servers.kernel.world import World


class Base(DeclarativeBase):
    pass


class Link(Base):
    __tablename__ = "links"
    id: Mapped[int] = mapped_column(primary_key=True)
    ticket_id: Mapped[int]
    subject: Mapped[str]


def populate(db: Session, world: World, rng: random.Random) -> None:
    tickets = seeded_rows("zendesk", world.seed, "SELECT id, subject FROM tickets ORDER BY id LIMIT 5")
    db.add_all([Link(ticket_id=t["id"], subject=t["subject"]) for t in tickets])


def linked(links: tuple[str, ...] = ("zendesk",)) -> ServerSpec:
    return ServerSpec(name="probe_links", title="", instructions="", base=Base, populate=populate,
                      tools=ToolRegistry(), links=links)


def test_a_linked_populate_reads_the_other_servers_seeded_rows() -> None:
    snapshot = build_seeded(linked(), 3)
    import sqlite3

    connection = sqlite3.connect(":memory:")
    connection.deserialize(snapshot)
    rows = connection.execute("SELECT ticket_id, subject FROM links ORDER BY id").fetchall()
    assert len(rows) == 5
    with ToolSession(catalog.load_server("zendesk"), 3) as zendesk:
        for ticket_id, subject in rows:
            assert zendesk.call("get_ticket", {"ticket_id": ticket_id}).data["subject"] == subject  # type: ignore[index]


def test_an_undeclared_server_is_refused_while_seeding() -> None:
    with pytest.raises(LinkError, match="declare it"):
        build_seeded(linked(links=("crm",)), 0)


def test_seeded_rows_outside_seeding_is_refused() -> None:
    with pytest.raises(LinkError, match="while it seeds"):
        seeded_rows("zendesk", 0, "SELECT 1")


def test_the_cache_key_follows_the_linked_servers_code(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = linked()
    assert spec.code_digest is not None and spec.seed_digest not in (None, spec.code_digest)
    zendesk = catalog.load_server("zendesk")
    changed = dataclasses.replace(zendesk)
    object.__setattr__(changed, "code_digest", "another version of zendesk")
    monkeypatch.setattr(catalog, "load_server", lambda name: changed if name == "zendesk" else zendesk)
    assert linked().seed_digest not in (None, spec.seed_digest)
    unlinked = dataclasses.replace(spec, links=())
    assert unlinked.seed_digest == unlinked.code_digest
