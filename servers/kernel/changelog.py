"""A session's change log: what it wrote, recorded as it happens, so a diff costs in
proportion to the changes rather than to the size of the world.

For every table `T`, triggers copy a row's seeded values into the shadow table
`mcpgym_seeded_T` the first time the row is updated or deleted, and note the key of every
row inserted (as "not in the seeded world"). The shadow tables and triggers are created in
the seeded database itself, empty, after it is filled: every reset (a deserialize) restores
an empty log for free, and the triggers are part of the schema that every statement is
compiled against. (TEMP triggers would keep them out of the seeded bytes, but SQLite drops
them from statements compiled after a cached statement is re-prepared following a
deserialize, so writes would go unrecorded.) `table_layouts` leaves the `mcpgym_` tables out,
so rows, dumps and `state_hash` are those of the world alone. The log is written in the
caller's transaction: a rolled-back call leaves no trace in it either.

`undo` restores the seeded rows in place from the same log, so resetting a session to its own
seed costs in proportion to what it changed. The diff compares, for the logged keys only, the current rows with their seeded values by the
same EXCEPT in both directions as a full comparison of the tables would: rows no trigger saw
are identical in both states and would cancel out of it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from sqlalchemy.orm import DeclarativeBase

from mcpgym.servers.kernel.database import INTERNAL_PREFIX, RowChange, TableLayout, diff_rows, keyed_rows, quote

PREFIX = f"{INTERNAL_PREFIX}seeded_"
"""Shadow table of table `T`: `mcpgym_seeded_T`."""
EXISTED = "mcpgym_existed"
"""1: the row existed in the seeded world (its values follow); 0: it did not."""
ROWID = "mcpgym_rowid"
"""The seeded row's rowid (rowid tables), so that `undo` restores it exactly."""


def _key_column(n: int) -> str:
    return quote(f"mcpgym_key_{n}")


@dataclass(frozen=True)
class TableLog:
    """The shadow table and triggers of one table."""

    layout: TableLayout
    collations: dict[str, str]

    @property
    def shadow_name(self) -> str:
        """The shadow table's name, unqualified (as trigger bodies must write it)."""
        return quote(PREFIX + self.layout.name)

    @property
    def shadow(self) -> str:
        return f"main.{self.shadow_name}"

    @property
    def keys(self) -> str:
        return ", ".join(_key_column(n) for n in range(len(self.layout.key)))

    def ddl(self) -> str:
        """CREATE statements of the shadow table and of the three triggers."""
        layout, target = self.layout, quote(self.layout.name)
        columns = [
            quote(c) + (f" COLLATE {quote(self.collations[c])}" if c in self.collations else "")
            for c in layout.columns
        ]
        rowid = f"{quote(ROWID)}, " if layout.has_rowid else ""
        table = (
            f"CREATE TABLE {self.shadow_name} ({quote(EXISTED)} INTEGER NOT NULL, {self.keys}, {rowid}"
            f"{', '.join(columns)}, PRIMARY KEY ({self.keys}));"
        )
        old_rowid = "OLD.rowid, " if layout.has_rowid else ""
        seeded = (
            f"INSERT INTO {self.shadow_name} ({quote(EXISTED)}, {self.keys}, {rowid}{layout.columns_sql}) "
            f"SELECT 1, {', '.join(f'OLD.{_row_key(k)}' for k in layout.key)}, {old_rowid}"
            f"{', '.join(f'OLD.{quote(c)}' for c in layout.columns)} {self._first_touch('OLD')};"
        )
        absent = (
            f"INSERT INTO {self.shadow_name} ({quote(EXISTED)}, {self.keys}) "
            f"SELECT 0, {', '.join(f'NEW.{_row_key(k)}' for k in layout.key)} {self._first_touch('NEW')};"
        )
        name = layout.name
        return "\n".join([
            table,
            f"CREATE TRIGGER {quote('mcpgym_insert_' + name)} AFTER INSERT ON {target} BEGIN {absent} END;",
            f"CREATE TRIGGER {quote('mcpgym_update_' + name)} AFTER UPDATE ON {target} BEGIN {seeded} {absent} END;",
            f"CREATE TRIGGER {quote('mcpgym_delete_' + name)} AFTER DELETE ON {target} BEGIN {seeded} END;",
        ])

    def _first_touch(self, row: str) -> str:
        """`WHERE` the key of `row` (OLD or NEW) is not logged yet. (Not `INSERT OR IGNORE`: an
        outer `REPLACE` would override the trigger's conflict clause and replace the entry.)"""
        match = " AND ".join(
            f"{_key_column(n)} IS {row}.{_row_key(k)}" for n, k in enumerate(self.layout.key)
        )
        return f"WHERE NOT EXISTS (SELECT 1 FROM {self.shadow_name} WHERE {match})"

    def undo(self, connection: sqlite3.Connection) -> None:
        """Put the logged rows back to their seeded values (rowids included) and empty the log.

        The triggers fire on these writes too, but every key they would log is logged already."""
        layout = self.layout
        rowid = "rowid, " if layout.has_rowid else ""
        stored_rowid = f"{quote(ROWID)}, " if layout.has_rowid else ""
        target = f"main.{quote(layout.name)}"
        connection.execute(f"DELETE FROM {target} WHERE ({layout.key_sql}) IN (SELECT {self.keys} FROM {self.shadow})")
        connection.execute(
            f"INSERT INTO {target} ({rowid}{layout.columns_sql}) "
            f"SELECT {stored_rowid}{layout.columns_sql} FROM {self.shadow} WHERE {quote(EXISTED)}"
        )
        connection.execute(f"DELETE FROM {self.shadow}")

    def changes(self, connection: sqlite3.Connection) -> list[RowChange]:
        """The logged rows of this table that differ from their seeded values."""
        layout = self.layout
        current = (
            f"SELECT {layout.key_sql}, {layout.columns_sql} FROM main.{quote(layout.name)} "
            f"WHERE ({layout.key_sql}) IN (SELECT {self.keys} FROM {self.shadow})"
        )
        seeded = f"SELECT {self.keys}, {layout.columns_sql} FROM {self.shadow} WHERE {quote(EXISTED)}"
        after = keyed_rows(layout, connection.execute(f"{current} EXCEPT {seeded}"))
        before = keyed_rows(layout, connection.execute(f"{seeded} EXCEPT {current}"))
        return diff_rows({layout.name: before}, {layout.name: after})


def _row_key(column: str) -> str:
    return "rowid" if column == "rowid" else quote(column)


@dataclass(frozen=True)
class ChangeLog:
    """The change log of one schema: installed in its seeded databases, read by `diff`."""

    tables: tuple[TableLog, ...]

    @classmethod
    def for_schema(cls, layouts: Sequence[TableLayout], base: type[DeclarativeBase]) -> ChangeLog:
        """The log of the tables in `layouts`; each column compares with its declared collation."""
        logs = []
        for layout in layouts:
            table = base.metadata.tables.get(layout.name)
            collations = {}
            if table is not None:
                for column in table.columns:
                    collation = getattr(column.type, "collation", None)
                    if collation and column.name in layout.columns:
                        collations[column.name] = collation
            logs.append(TableLog(layout, collations))
        return cls(tuple(logs))

    @cached_property
    def script(self) -> str:
        return "BEGIN;\n" + "\n".join(t.ddl() for t in self.tables) + "\nCOMMIT;"

    @cached_property
    def _touched_query(self) -> str:
        return " UNION ALL ".join(
            f"SELECT {n} WHERE EXISTS (SELECT 1 FROM {t.shadow})" for n, t in enumerate(self.tables)
        )

    def install(self, connection: sqlite3.Connection) -> None:
        """Create the (empty) shadow tables and the triggers in a filled seeded database."""
        connection.executescript(self.script)

    def touched(self, connection: sqlite3.Connection) -> list[TableLog]:
        """The tables with logged rows, by name."""
        if not self.tables:
            return []
        return [self.tables[n] for n in sorted(n for (n,) in connection.execute(self._touched_query))]

    def undo(self, connection: sqlite3.Connection) -> None:
        """Restore the seeded world in place, in one transaction: it costs in proportion to what
        changed, and keeps the schema (and so every prepared statement) as it is. On an error
        the transaction is rolled back and the error raised."""
        touched = self.touched(connection)
        if not touched:
            return
        try:
            for table in touched:
                table.undo(connection)
            connection.commit()
        except sqlite3.Error:
            connection.rollback()
            raise

    def diff(self, connection: sqlite3.Connection) -> list[RowChange]:
        """Row changes since the seeded world, in table and key order."""
        changes: list[RowChange] = []
        for table in self.touched(connection):
            changes += table.changes(connection)
        return changes
