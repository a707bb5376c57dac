"""Tool bodies in plain SQL on the session's own SQLite connection, rows as mappings.

`ctx.sql` runs statements with `?` or `:name` parameters (never values formatted into the
text) inside the transaction the session commits on success and rolls back on error, so the
change log triggers and the storage quota work as for the ORM. Values cross the boundary the
way SQLAlchemy stores them, so rows written either way read the same:

- parameters: `datetime`, `date`, `Decimal`, `dict` and `list` are converted by the
  SQLite dialect's own bind processors (a `list` becomes JSON text, which
  `IN (SELECT value FROM json_each(?))` reads as a set of values);
- results: a row's columns are converted by the result processors of the ORM models named
  in `models` (by column name, the first model naming a column wins), computed once per
  table; other columns (counts, expressions) come back as SQLite returns them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from functools import cache
from typing import Any

from sqlalchemy import JSON, Date, DateTime, Numeric, Table
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
from sqlalchemy.orm import DeclarativeBase

from mcpgym.servers.kernel.database import quote
from mcpgym.servers.kernel.fields import next_page, page_slice

Params = Sequence[Any] | Mapping[str, Any]
"""Positional (`?`) or named (`:name`) parameters of one statement."""

Row = dict[str, Any]
"""One result row: column name (as the statement names it) -> value."""

Models = type[DeclarativeBase] | tuple[type[DeclarativeBase], ...]
"""The ORM models whose column types convert a statement's result columns."""

Convert = Callable[[Any], Any]

Trace = Callable[[str, Params], None]
"""Called with each statement and its bound parameters."""

LIKE_ESCAPE = "/"
"""The escape character of the patterns `contains_pattern` and `prefix_pattern` build; write
`LIKE ? ESCAPE '/'`."""

_DIALECT = SQLiteDialect_pysqlite()
"""The dialect the servers' engines use: its processors define how values are stored."""


def _bind(type_: Any) -> Convert:
    processor = type_.dialect_impl(_DIALECT).bind_processor(_DIALECT)
    assert processor is not None
    return processor  # type: ignore[no-any-return]


_JSON_TEXT = _bind(JSON())

_BINDERS: Mapping[type, Convert] = {
    datetime: _bind(DateTime()),
    date: _bind(Date()),
    Decimal: _bind(Numeric()),
    dict: _JSON_TEXT,
    list: _JSON_TEXT,
    tuple: lambda value: _JSON_TEXT(list(value)),
}
"""Parameter types sqlite3 does not store as SQLAlchemy does, by exact type."""


def bind(value: Any) -> Any:
    """A parameter value as SQLAlchemy would store it (others pass unchanged)."""
    convert = _BINDERS.get(type(value))
    return value if convert is None else convert(value)


def bind_all(params: Params) -> Params:
    """Every parameter of a statement through `bind`."""
    if isinstance(params, Mapping):
        return {name: bind(value) for name, value in params.items()}
    return [bind(value) for value in params]


@cache
def table_readers(table: Table) -> Mapping[str, Convert]:
    """The result processors of a table's columns that convert anything, by column name."""
    readers = {}
    for column in table.columns:
        processor = column.type.dialect_impl(_DIALECT).result_processor(_DIALECT, None)
        if processor is not None:
            readers[column.key] = processor
    return readers


@cache
def model_readers(models: tuple[type[DeclarativeBase], ...]) -> Mapping[str, Convert]:
    """The readers of several models' columns by name; the first model naming a column wins."""
    merged: dict[str, Convert] = {}
    for model in reversed(models):
        merged.update(table_readers(model.__table__))  # type: ignore[arg-type]
    return merged


@cache
def table_columns(table: Table) -> tuple[str, tuple[str, ...]]:
    """A table's single primary key column and its other columns, in table order."""
    keys = [column.name for column in table.primary_key.columns]
    if len(keys) != 1:
        raise TypeError(f"table {table.name} has a composite key {keys}: write its rows with explicit statements")
    return keys[0], tuple(column.name for column in table.columns if column.name != keys[0])


@cache
def _insert_statement(table: Table) -> str:
    _, columns = table_columns(table)
    names = ", ".join(quote(column) for column in columns)
    return f"INSERT INTO {quote(table.name)} ({names}) VALUES ({', '.join('?' * len(columns))})"


def contains_pattern(text: str) -> str:
    """A `LIKE` pattern matching values that contain `text` literally (`%`, `_` escaped)."""
    return f"%{_escape_like(text)}%"


def prefix_pattern(text: str) -> str:
    """A `LIKE` pattern matching values that start with `text` literally."""
    return f"{_escape_like(text)}%"


def _escape_like(text: str) -> str:
    return text.replace(LIKE_ESCAPE, LIKE_ESCAPE * 2).replace("%", LIKE_ESCAPE + "%").replace("_", LIKE_ESCAPE + "_")


@dataclass(frozen=True)
class SqlPage:
    """One page of rows, the total over all pages, and the next page number."""

    rows: list[Row]
    total: int
    next_page: int | None


class Sql:
    """Statements on one session's connection; the session commits or rolls them back."""

    def __init__(self, connection: sqlite3.Connection, trace: Trace | None = None) -> None:
        self._connection = connection
        self._trace = trace

    def traced(self, trace: Trace) -> Sql:
        """The same connection, with every statement and its bound parameters passed to `trace`
        before it runs (benchmarks replay them on a bare connection)."""
        return Sql(self._connection, trace)

    def _cursor(self, sql: str, params: Params) -> sqlite3.Cursor:
        """The one place statements reach SQLite."""
        bound = bind_all(params)
        if self._trace is not None:
            self._trace(sql, bound)
        return self._connection.execute(sql, bound)

    def all(self, sql: str, params: Params = (), models: Models = ()) -> list[Row]:
        """Every row of a query, its columns converted by the types of `models`."""
        cursor = self._cursor(sql, params)
        return _rows(cursor, cursor.fetchall(), models)

    def one(self, sql: str, params: Params = (), models: Models = ()) -> Row | None:
        """The first row of a query (None if it has none), converted as by `all`."""
        cursor = self._cursor(sql, params)
        row = cursor.fetchone()
        return None if row is None else _rows(cursor, [row], models)[0]

    def scalar(self, sql: str, params: Params = ()) -> Any:
        """The first column of the first row, unconverted (None if there is no row)."""
        row = self._cursor(sql, params).fetchone()
        return None if row is None else row[0]

    def column(self, sql: str, params: Params = ()) -> list[Any]:
        """The first column of every row, unconverted."""
        return [row[0] for row in self._cursor(sql, params).fetchall()]

    def execute(self, sql: str, params: Params = ()) -> int:
        """Run a write statement; returns the number of rows it changed."""
        return self._cursor(sql, params).rowcount

    def insert(self, sql: str, params: Params = ()) -> int:
        """Run an `INSERT` of one row; returns its rowid (its `INTEGER PRIMARY KEY`)."""
        rowid = self._cursor(sql, params).lastrowid
        assert rowid is not None
        return rowid

    def insert_row(self, model: type[DeclarativeBase], row: Mapping[str, Any]) -> int:
        """Insert one row of `model`'s table, naming every column but its primary key (`row`
        must hold each; other keys, such as joined names, are ignored); returns the new key."""
        table: Table = model.__table__  # type: ignore[assignment]
        _, columns = table_columns(table)
        return self.insert(_insert_statement(table), [row[column] for column in columns])

    def update_row(self, model: type[DeclarativeBase], before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
        """Write the columns of `model`'s table whose value differs from `before` to `after`,
        in one `UPDATE` keyed by `before`'s primary key; no statement when none differs. Keys
        that are not columns (joined names, counts) are ignored. Returns whether it wrote."""
        table: Table = model.__table__  # type: ignore[assignment]
        key, columns = table_columns(table)
        changed = {column: after[column] for column in columns if column in after and after[column] != before[column]}
        if not changed:
            return False
        assignments = ", ".join(f"{quote(column)} = ?" for column in changed)
        self.execute(f"UPDATE {quote(table.name)} SET {assignments} WHERE {quote(key)} = ?", [*changed.values(), before[key]])
        return True

    def page(self, columns: str, rest: str, params: Params, page: int, per_page: int,
             models: Models = ()) -> SqlPage:
        """One page of `SELECT {columns} {rest}` (`rest`: FROM ... WHERE ... ORDER BY ...) and
        the total over all pages, counted in the same statement (`count(*) OVER ()`, before
        LIMIT); only a page past the end costs a separate count. `params` must be positional."""
        if isinstance(params, Mapping):
            raise TypeError("Sql.page takes positional parameters: it appends LIMIT ? OFFSET ?")
        offset, limit = page_slice(page, per_page)
        cursor = self._cursor(f"SELECT {columns}, count(*) OVER () AS mcpgym_total {rest} LIMIT ? OFFSET ?",
                              [*params, limit, offset])
        rows = cursor.fetchall()
        if rows:
            total = rows[0][-1]
        else:
            total = 0 if offset == 0 else self.scalar(f"SELECT count(*) FROM (SELECT {columns} {rest})", params)
        return SqlPage(_rows(cursor, rows, models, drop_last=True), total, next_page(page, per_page, total))


def _rows(cursor: sqlite3.Cursor, records: list[tuple[Any, ...]], models: Models,
          drop_last: bool = False) -> list[Row]:
    """Records as mappings by the cursor's column names, converted by `models`' column types."""
    names = [d[0] for d in cursor.description]
    if drop_last:
        names.pop()
    readers = model_readers(models if isinstance(models, tuple) else (models,))
    converters = [readers.get(name) for name in names]
    if not any(converters):
        return [dict(zip(names, record)) for record in records]
    return [
        {name: value if convert is None or value is None else convert(value)
         for name, convert, value in zip(names, converters, record)}
        for record in records
    ]
