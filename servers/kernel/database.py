"""SQLite databases of a world: built once per (server, seed), cloned per session, compared.

The seeded database is serialised to bytes once; a session's reset deserialises those bytes
into its own in-memory connection (a memory copy, no Faker, no SQL), so sessions never share
state and a reset costs well under a millisecond for a help desk of thousands of rows.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Collection
from datetime import date, datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy import create_engine
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Session
from sqlalchemy.pool import StaticPool
from sqlalchemy.schema import CreateIndex, CreateTable

Rows = dict[str, dict[str, dict[str, Any]]]
"""table -> primary key (as text) -> column -> value."""


class RowChange(BaseModel):
    """One row that differs between two states: inserted, updated or deleted."""

    table: str
    key: str
    op: str
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None

    @property
    def changed(self) -> dict[str, Any]:
        """For updates, the columns whose value changed, with their new values."""
        if self.op != "update" or self.before is None or self.after is None:
            return dict(self.after or {})
        return {k: v for k, v in self.after.items() if self.before.get(k) != v}


def new_connection() -> sqlite3.Connection:
    """An empty in-memory SQLite database usable from any thread (calls are serialised)."""
    return sqlite3.connect(":memory:", check_same_thread=False)


def engine_for(connection: sqlite3.Connection) -> Engine:
    """A SQLAlchemy engine that always hands out `connection`."""
    return create_engine("sqlite://", creator=lambda: connection, poolclass=StaticPool)


def create_schema(engine: Engine, base: type[DeclarativeBase]) -> None:
    """Create every table, then its indexes sorted by name.

    `metadata.create_all` emits a table's indexes in set order, which changes between
    processes; a fixed order keeps the seeded database the same to the byte.
    """
    with engine.begin() as connection:
        for table in base.metadata.sorted_tables:
            connection.execute(CreateTable(table))
            for index in sorted(table.indexes, key=lambda i: str(i.name)):
                connection.execute(CreateIndex(index))


def build_snapshot(base: type[DeclarativeBase], populate: Callable[[Session], None]) -> bytes:
    """Create the schema, fill it with `populate`, and return the database as bytes."""
    connection = new_connection()
    engine = engine_for(connection)
    create_schema(engine, base)
    with Session(engine) as db:
        populate(db)
        db.commit()
    data = connection.serialize()
    engine.dispose()
    connection.close()
    return data


def _plain(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.hex()
    return value


def _tables(connection: sqlite3.Connection) -> list[tuple[str, list[str], str]]:
    """(table, columns, ORDER BY of its primary key) for every table, by name."""
    names = [
        r[0]
        for r in connection.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
    ]
    tables = []
    for table in names:
        info = connection.execute(f'PRAGMA table_info("{table}")').fetchall()
        pk = [c[1] for c in sorted(info, key=lambda c: c[5]) if c[5] > 0] or ["rowid"]
        keys = ", ".join(f'"{c}"' if c != "rowid" else "rowid" for c in pk)
        tables.append((table, [c[1] for c in info], keys))
    return tables


def dump_rows(connection: sqlite3.Connection, only: Collection[str] | None = None) -> Rows:
    """Every row of every table (or of the tables in `only`), keyed by primary key, in order."""
    rows: Rows = {}
    for table, columns, keys in _tables(connection):
        if only is not None and table not in only:
            continue
        width = keys.count(",") + 1
        select = ", ".join(f'"{c}"' for c in columns)
        cursor = connection.execute(f'SELECT {keys}, {select} FROM "{table}" ORDER BY {keys}')
        rows[table] = {
            "/".join(str(v) for v in record[:width]): {c: _plain(v) for c, v in zip(columns, record[width:])}
            for record in cursor
        }
    return rows


def state_hash(connection: sqlite3.Connection) -> str:
    """A hash of the database's logical content: every row of every table in key order.

    Equal rows give equal hashes whatever the page layout, so a reset state hashes like the
    seeded one even though its bytes were written differently.
    """
    digest = hashlib.sha256()
    for table, columns, keys in _tables(connection):
        digest.update(f"{table}:{','.join(columns)}\n".encode())
        select = ", ".join(f'"{c}"' for c in columns)
        records = connection.execute(f'SELECT {select} FROM "{table}" ORDER BY {keys}').fetchall()
        digest.update(repr(records).encode())
    return digest.hexdigest()


SEED_SCHEMA = "seed"
"""Name under which a session attaches its seeded database to compare against it."""


def diff_against(connection: sqlite3.Connection, tables: Collection[str], schema: str = SEED_SCHEMA) -> list[RowChange]:
    """Row changes of `tables` between the attached `schema` (before) and `main` (after),
    found by SQLite itself (EXCEPT in both directions), in table and key order."""
    changes: list[RowChange] = []
    for table, columns, keys in _tables(connection):
        if table not in tables:
            continue
        width = keys.count(",") + 1
        select = ", ".join([keys, *(f'"{c}"' for c in columns)])
        added = connection.execute(f'SELECT {select} FROM main."{table}" EXCEPT SELECT {select} FROM {schema}."{table}"')
        removed = connection.execute(f'SELECT {select} FROM {schema}."{table}" EXCEPT SELECT {select} FROM main."{table}"')

        def by_key(records: Any) -> dict[str, dict[str, Any]]:
            return {
                "/".join(str(v) for v in r[:width]): {c: _plain(v) for c, v in zip(columns, r[width:])} for r in records
            }

        after, before = by_key(added), by_key(removed)
        changes += diff_rows({table: before}, {table: after})
    return changes


def diff_rows(before: Rows, after: Rows) -> list[RowChange]:
    """The row changes that turn `before` into `after`, in table and key order."""
    changes: list[RowChange] = []
    for table in sorted(set(before) | set(after)):
        old, new = before.get(table, {}), after.get(table, {})
        for key in sorted(set(old) | set(new), key=_key_order):
            if key not in new:
                changes.append(RowChange(table=table, key=key, op="delete", before=old[key]))
            elif key not in old:
                changes.append(RowChange(table=table, key=key, op="insert", after=new[key]))
            elif old[key] != new[key]:
                changes.append(
                    RowChange(table=table, key=key, op="update", before=old[key], after=new[key])
                )
    return changes


def _key_order(key: str) -> tuple[int, str]:
    return (int(key), "") if key.isdigit() else (1 << 62, key)
