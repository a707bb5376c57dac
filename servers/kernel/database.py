"""SQLite databases of a world: built once per (server, seed), cloned per session, compared.

The seeded database is serialised to bytes once; a session's reset deserialises those bytes
into its own in-memory connection (a memory copy, no Faker, no SQL), so sessions never share
state and a reset costs well under a millisecond for a help desk of thousands of rows.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy import create_engine
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Session
from sqlalchemy.pool import NullPool, StaticPool
from sqlalchemy.schema import CreateIndex, CreateTable

Rows = dict[str, dict[str, dict[str, Any]]]
"""table -> primary key (as text) -> column -> value."""

PAGE_CACHE_KIB = 256
"""SQLite's page cache per connection. An in-memory database's pages already live in memory,
so a cache miss is a page copy; the default 2 MiB cache would mostly duplicate the database."""

INTERNAL_PREFIX = "mcpgym_"
"""Tables of the kernel's own (the change log), left out of rows, dumps and hashes; a
domain schema must not name its tables so."""

WITHOUT_ROWID = re.compile(r"\bWITHOUT\s+ROWID\b", re.IGNORECASE)
"""Matched against the table options, after the column definitions' closing parenthesis."""

COMPILED_CACHE_SIZE = 2000
"""Compiled SQL statements kept per server (shared by all its sessions)."""


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


@dataclass(frozen=True)
class TableLayout:
    """A table's columns and the key its rows are reported under (primary key, else rowid)."""

    name: str
    columns: tuple[str, ...]
    key: tuple[str, ...]
    has_rowid: bool = True
    """False for a `WITHOUT ROWID` table."""

    @property
    def key_sql(self) -> str:
        """The key columns as an SQL list (`rowid` unquoted: it is no column name)."""
        return ", ".join("rowid" if k == "rowid" else quote(k) for k in self.key)

    @property
    def columns_sql(self) -> str:
        return ", ".join(quote(c) for c in self.columns)


def quote(identifier: str) -> str:
    """An SQL identifier in double quotes, safe whatever it contains."""
    return '"' + identifier.replace('"', '""') + '"'


def new_connection() -> sqlite3.Connection:
    """An empty in-memory SQLite database usable from any thread (calls are serialised).

    Recursive triggers make the rows that `REPLACE` deletes fire delete triggers, which the
    change log relies on."""
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    connection.execute(f"PRAGMA cache_size = -{PAGE_CACHE_KIB}")
    connection.execute("PRAGMA recursive_triggers = ON")
    return connection


def load_database(connection: sqlite3.Connection, data: bytes) -> None:
    """Replace `connection`'s database with the serialized `data`, keeping its page cache size
    (`deserialize` resets the main schema's `cache_size` to SQLite's default)."""
    connection.deserialize(data)
    connection.execute(f"PRAGMA cache_size = -{PAGE_CACHE_KIB}")


def engine_for(connection: sqlite3.Connection) -> Engine:
    """A SQLAlchemy engine that always hands out `connection`."""
    return create_engine("sqlite://", creator=lambda: connection, poolclass=StaticPool)


def shared_engine() -> Engine:
    """One engine for all sessions of a server: each `connect()` opens a new private in-memory
    database, while compiled statements and dialect state are shared."""
    return create_engine(
        "sqlite://", creator=new_connection, poolclass=NullPool, query_cache_size=COMPILED_CACHE_SIZE
    )


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


def build_snapshot(
    base: type[DeclarativeBase],
    populate: Callable[[Session], None],
    finish: Callable[[sqlite3.Connection], None] | None = None,
) -> bytes:
    """Create the schema, fill it with `populate`, run `finish` on it (the change log adds its
    tables and triggers there), and return the database as compact bytes.

    `VACUUM` repacks the pages that random-order index inserts left part-empty; it keeps every
    row and rowid, so the result differs from the filled database only in its page layout.
    """
    connection = new_connection()
    engine = engine_for(connection)
    create_schema(engine, base)
    with Session(engine) as db:
        populate(db)
        db.commit()
    if finish is not None:
        finish(connection)
    connection.execute("VACUUM")
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


def table_layouts(connection: sqlite3.Connection, schema: str = "main") -> list[TableLayout]:
    """The layout of every table of `schema` (not SQLite's nor the kernel's own), by name."""
    tables = [
        (name, sql)
        for name, sql in connection.execute(
            f"SELECT name, sql FROM {quote(schema)}.sqlite_master WHERE type='table' ORDER BY name"
        )
        if not name.startswith(("sqlite_", INTERNAL_PREFIX))
    ]
    layouts = []
    for table, sql in tables:
        info = connection.execute(f"PRAGMA {quote(schema)}.table_info({quote(table)})").fetchall()
        key = [c[1] for c in sorted(info, key=lambda c: c[5]) if c[5] > 0] or ["rowid"]
        has_rowid = WITHOUT_ROWID.search((sql or "").rpartition(")")[2]) is None
        layouts.append(TableLayout(table, tuple(c[1] for c in info), tuple(key), has_rowid))
    return layouts


def keyed_rows(layout: TableLayout, records: Any) -> dict[str, dict[str, Any]]:
    """Records of `key..., columns...` as key (text, `/`-joined) -> column -> plain value."""
    width = len(layout.key)
    return {
        "/".join(str(v) for v in r[:width]): {c: _plain(v) for c, v in zip(layout.columns, r[width:])}
        for r in records
    }


def dump_rows(connection: sqlite3.Connection, only: Collection[str] | None = None) -> Rows:
    """Every row of every table (or of the tables in `only`), keyed by primary key, in order."""
    rows: Rows = {}
    for layout in table_layouts(connection):
        if only is not None and layout.name not in only:
            continue
        cursor = connection.execute(
            f"SELECT {layout.key_sql}, {layout.columns_sql} FROM {quote(layout.name)} ORDER BY {layout.key_sql}"
        )
        rows[layout.name] = keyed_rows(layout, cursor)
    return rows


def state_hash(connection: sqlite3.Connection, layouts: Sequence[TableLayout] | None = None) -> str:
    """A hash of the database's logical content: every row of every table in key order.

    Equal rows give equal hashes whatever the page layout, so a reset state hashes like the
    seeded one even though its bytes were written differently.
    """
    digest = hashlib.sha256()
    for layout in table_layouts(connection) if layouts is None else layouts:
        digest.update(f"{layout.name}:{','.join(layout.columns)}\n".encode())
        records = connection.execute(
            f"SELECT {layout.columns_sql} FROM {quote(layout.name)} ORDER BY {layout.key_sql}"
        ).fetchall()
        digest.update(repr(records).encode())
    return digest.hexdigest()


def diff_against(connection: sqlite3.Connection, schema: str, tables: Collection[str] | None = None) -> list[RowChange]:
    """Row changes between the attached `schema` (before) and `main` (after), found by
    comparing whole tables (EXCEPT in both directions), in table and key order.

    It costs in proportion to the size of the tables: sessions use their change log
    (`mcpgym.servers.kernel.changelog`) instead; this is the reference it is checked against.
    """
    changes: list[RowChange] = []
    for layout in table_layouts(connection):
        if tables is not None and layout.name not in tables:
            continue
        select = f"{layout.key_sql}, {layout.columns_sql}"
        table = quote(layout.name)
        added = connection.execute(f"SELECT {select} FROM main.{table} EXCEPT SELECT {select} FROM {quote(schema)}.{table}")
        after = keyed_rows(layout, added)
        removed = connection.execute(f"SELECT {select} FROM {quote(schema)}.{table} EXCEPT SELECT {select} FROM main.{table}")
        changes += diff_rows({layout.name: keyed_rows(layout, removed)}, {layout.name: after})
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
