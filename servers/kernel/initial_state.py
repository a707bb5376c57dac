"""A task's own initial state: the seeded world of a server plus a small patch of rows.

A `RowPatch` is a list of row operations on one server's database: insert a row (table,
values), update a row (table, key, values) or delete a row (table, key), applied in order.
Keys name every primary-key column (`{"id": 1380}`; `{"rowid": 7}` for a table without a
primary key); values are JSON values, read as the column's type (dates and times in ISO
format, naive UTC; an aware time is converted to UTC). A patch is checked against the
server's schema before it runs (`check_patch`: unknown table or column, a key that is not
the primary key, a value of the wrong type, an insert lacking a required column) and while
it runs (`apply_patch`: an insert of a key that exists, an update or delete of a missing row,
a reference to a missing row); every problem is an `InitialStateError` naming the operation.

`ServerSpec.patched(seed, patch)` checks a patch once per (server, seed, patch digest) and keeps
its statements (`PatchedState`); a session reset to it deserializes the seeded bytes, replays
them and empties the change log, so that it behaves as a reset to a seed: `diff()` is relative
to the patched rows, and a reset to the same state undoes in place.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, RootModel, TypeAdapter, ValidationError, model_validator

from sqlalchemy import Column, Integer, Table
from sqlalchemy.dialects import sqlite as sqlite_dialect

from mcpgym.servers.kernel.changelog import ChangeLog
from mcpgym.servers.kernel.database import TableLayout, load_database, new_connection, quote
from mcpgym.servers.kernel.digested import Digested

if TYPE_CHECKING:
    from mcpgym.servers.kernel.spec import ServerSpec

MAX_PATCH_ROWS = 1_000
"""Operations in one server's patch."""
MAX_PATCH_BYTES = 256 << 10
"""Size of one server's patch as compact JSON."""
MAX_NAME_CHARS = 128
"""Length of a table or column name."""
MAX_COLUMNS = 256
"""Columns named by one operation's key or values."""

Name = Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS)]
Values = Annotated[dict[Name, JsonValue], Field(min_length=1, max_length=MAX_COLUMNS)]

_DIALECT = sqlite_dialect.dialect()


class InitialStateError(ValueError):
    """A patch that does not fit the server's schema or its seeded rows."""


class _Op(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    table: Name


class RowInsert(_Op):
    """Insert a row; columns left out take their default (a required one must be given)."""

    op: Literal["insert"]
    values: Values


class RowUpdate(_Op):
    """Set `values` on the row whose primary key is `key` (key columns cannot change)."""

    op: Literal["update"]
    key: Values
    values: Values


class RowDelete(_Op):
    """Delete the row whose primary key is `key`."""

    op: Literal["delete"]
    key: Values


RowOp = Annotated[RowInsert | RowUpdate | RowDelete, Field(discriminator="op")]


class RowPatch(Digested, RootModel[tuple[RowOp, ...]]):
    """One server's patch: row operations applied in order to its seeded database."""

    model_config = ConfigDict(frozen=True)
    root: tuple[RowOp, ...] = Field(max_length=MAX_PATCH_ROWS)
    max_bytes: ClassVar[int] = MAX_PATCH_BYTES
    what: ClassVar[str] = "the patch"

    @model_validator(mode="after")
    def _bounded(self) -> RowPatch:
        return self.check_size()  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Statement:
    """One operation as SQL, with what it must affect."""

    index: int
    op: RowOp
    sql: str
    params: tuple[Any, ...]


def check_patch(spec: ServerSpec, patch: RowPatch) -> list[Statement]:
    """The patch's operations as SQL statements, checked against the server's schema."""
    layouts = {layout.name: layout for layout in spec.layouts}
    return [_statement(n, op, layouts, spec.base.metadata.tables) for n, op in enumerate(patch.root)]


def _statement(index: int, op: RowOp, layouts: dict[str, TableLayout], tables: Any) -> Statement:
    where = f"operation {index} ({op.op} on {op.table[:MAX_NAME_CHARS]!r})"
    layout = layouts.get(op.table)
    if layout is None:
        raise InitialStateError(f"{where}: no table {op.table!r}; tables: {', '.join(sorted(layouts))}")
    table: Table | None = tables.get(op.table)
    target = quote(layout.name)
    if isinstance(op, RowInsert):
        values = _converted(where, layout, table, {**_scalar_defaults(table), **op.values})
        missing = sorted(_required(table) - set(values))
        if missing:
            raise InitialStateError(f"{where}: required columns {missing} are not given")
        names = ", ".join(quote(c) for c in values)
        marks = ", ".join("?" for _ in values)
        return Statement(index, op, f"INSERT INTO {target} ({names}) VALUES ({marks})", tuple(values.values()))
    key = _key(where, layout, table, op.key)
    if isinstance(op, RowDelete):
        return Statement(index, op, f"DELETE FROM {target} WHERE {key[0]}", key[1])
    changed = sorted(set(op.values) & set(layout.key))
    if changed:
        raise InitialStateError(f"{where}: key columns {changed} cannot change; delete the row and insert it anew")
    values = _converted(where, layout, table, op.values)
    assignments = ", ".join(f"{quote(c)} = ?" for c in values)
    return Statement(index, op, f"UPDATE {target} SET {assignments} WHERE {key[0]}", (*values.values(), *key[1]))


def _key(where: str, layout: TableLayout, table: Table | None, key: dict[str, Any]) -> tuple[str, tuple[Any, ...]]:
    """The WHERE clause and parameters that pick one row by its whole primary key."""
    if set(key) != set(layout.key):
        raise InitialStateError(f"{where}: the key must name exactly the primary-key columns {list(layout.key)}, not {sorted(key)}")
    if layout.key == ("rowid",):
        rowid = key["rowid"]
        if not isinstance(rowid, int) or isinstance(rowid, bool):
            raise InitialStateError(f"{where}: rowid must be an integer")
        return "rowid = ?", (rowid,)
    converted = _converted(where, layout, table, key)
    return " AND ".join(f"{quote(c)} IS ?" for c in layout.key), tuple(converted[c] for c in layout.key)


def _converted(where: str, layout: TableLayout, table: Table | None, values: dict[str, Any]) -> dict[str, Any]:
    """Values as the database stores them, each read as its column's type."""
    unknown = sorted(set(values) - set(layout.columns))
    if unknown:
        raise InitialStateError(
            f"{where}: no columns {[u[:MAX_NAME_CHARS] for u in unknown]} in {layout.name!r}; "
            f"columns: {', '.join(layout.columns)}"
        )
    if table is None:
        return dict(values)
    converted = {}
    for name, value in values.items():
        try:
            converted[name] = _converter(table.columns[name])(value)
        except (ValidationError, ValueError, TypeError) as err:
            reason = err.errors()[0]["msg"] if isinstance(err, ValidationError) else str(err)
            raise InitialStateError(f"{where}: column {name!r}: {str(value)[:80]!r} is not valid ({reason[:200]})") from None
    return converted


def _converter(column: Column[Any]) -> Callable[[Any], Any]:
    """JSON value -> the column's Python type -> what SQLAlchemy would store."""
    try:
        python_type = column.type.python_type
    except NotImplementedError:
        return lambda value: value
    adapter: TypeAdapter[Any] = TypeAdapter(python_type)
    processor = column.type.bind_processor(_DIALECT)

    def convert(value: Any) -> Any:
        if value is None:
            if not column.nullable:
                raise ValueError("the column cannot be null")
            return None
        typed = adapter.validate_python(value)
        if isinstance(typed, datetime) and typed.tzinfo is not None:
            typed = typed.astimezone(UTC).replace(tzinfo=None)
        return processor(typed) if processor is not None else typed

    return convert


def _scalar_defaults(table: Table | None) -> dict[str, Any]:
    """Columns whose Python-side default is a constant, with it (an insert in SQL skips them)."""
    if table is None:
        return {}
    return {
        column.name: column.default.arg  # type: ignore[attr-defined]
        for column in table.columns
        if column.default is not None and column.default.is_scalar
    }


def _required(table: Table | None) -> set[str]:
    """Columns an insert must give: not null, no default, not an integer key SQLite assigns."""
    if table is None:
        return set()
    keys = list(table.primary_key.columns)
    assigned = {keys[0].name} if len(keys) == 1 and isinstance(keys[0].type, Integer) else set()
    return {
        column.name
        for column in table.columns
        if not column.nullable and column.default is None and column.server_default is None and column.name not in assigned
    }


def apply_patch(connection: sqlite3.Connection, statements: list[Statement]) -> None:
    """Run the statements in one transaction; any failure rolls it back and is raised as an
    `InitialStateError` naming the operation."""
    before = _dangling(connection)
    try:
        for statement in statements:
            where = f"operation {statement.index} ({statement.op.op} on {statement.op.table!r})"
            try:
                cursor = connection.execute(statement.sql, statement.params)
            except sqlite3.IntegrityError as err:
                reason = "a row with this key already exists" if "UNIQUE" in str(err) else str(err)
                raise InitialStateError(f"{where}: {reason}") from None
            except (OverflowError, sqlite3.Error) as err:
                raise InitialStateError(f"{where}: {err}") from None
            if cursor.rowcount != 1:
                raise InitialStateError(f"{where}: no row with key {dict(statement.op.key)}")  # type: ignore[union-attr]
        dangling = _dangling(connection) - before
        if dangling:
            table, rowid, parent = sorted(dangling)[0]
            raise InitialStateError(
                f"the patch leaves {len(dangling)} rows referring to missing rows, "
                f"e.g. {table!r} (rowid {rowid}) refers to a missing row of {parent!r}"
            )
        connection.commit()
    except BaseException:
        connection.rollback()
        raise


def _dangling(connection: sqlite3.Connection) -> set[tuple[str, int, str]]:
    """Rows whose foreign keys point at no row."""
    return {(table, rowid, parent) for table, rowid, parent, _ in connection.execute("PRAGMA foreign_key_check")}


@dataclass(frozen=True, eq=False)
class PatchedState:
    """A patch checked against one (server, seed): its statements, known to apply cleanly.

    It holds no database of its own: a session deserializes the seeded bytes (shared by every
    patch of the seed) and replays the statements, at the cost of a seed switch plus the
    patch's rows, so hundreds of patched states of one seed take memory for one."""

    statements: tuple[Statement, ...]
    changelog: ChangeLog

    def restore(self, connection: sqlite3.Connection, seeded: bytes) -> None:
        """Load the seeded bytes into `connection`, apply the patch and empty the change log,
        so that the log (and so `diff` and an in-place reset) is relative to the patched rows."""
        load_database(connection, seeded)
        for statement in self.statements:
            connection.execute(statement.sql, statement.params)
        for table in self.changelog.touched(connection):
            connection.execute(f"DELETE FROM {table.shadow}")
        connection.commit()


def check_against(spec: ServerSpec, seeded: bytes, patch: RowPatch) -> PatchedState:
    """The patch checked against the schema and by applying it once to the seeded rows
    (keys, references); raises `InitialStateError` naming the first problem."""
    statements = check_patch(spec, patch)
    connection = new_connection()
    try:
        load_database(connection, seeded)
        apply_patch(connection, statements)
    finally:
        connection.close()
    return PatchedState(tuple(statements), spec.changelog)
