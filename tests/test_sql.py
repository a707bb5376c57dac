"""`ctx.sql`: values read and written as the ORM does, LIKE patterns, pages, transactions."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Iterator
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from sqlalchemy import JSON, Numeric
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from mcpgym.servers.kernel.database import create_schema, engine_for, new_connection
from mcpgym.servers.kernel.errors import ForbiddenError
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.spec import ServerSpec
from mcpgym.servers.kernel.sql import Sql, contains_pattern, prefix_pattern
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry
from mcpgym.servers.zendesk.models import Ticket, User


class Base(DeclarativeBase):
    """A schema with every column type the servers use."""


class Sample(Base):
    __tablename__ = "samples"

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime | None]
    day: Mapped[date | None]
    flag: Mapped[bool | None]
    ratio: Mapped[float | None]
    amount: Mapped[Decimal | None] = mapped_column(Numeric(12, 2))
    payload: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    label: Mapped[str | None]


@pytest.fixture
def database() -> Iterator[tuple[Session, Sql]]:
    connection = new_connection()
    engine = engine_for(connection)
    create_schema(engine, Base)
    with Session(engine) as db:
        yield db, Sql(connection)
    engine.dispose()
    connection.close()


times = st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31))
values = st.fixed_dictionaries({
    "at": st.none() | times,
    "day": st.none() | st.dates(),
    "flag": st.none() | st.booleans(),
    "ratio": st.none() | st.floats(allow_nan=False, allow_infinity=False),
    "amount": st.none() | st.decimals(min_value=-10**9, max_value=10**9, places=2),
    "payload": st.none() | st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=3),
    "label": st.none() | st.text(max_size=20).filter(lambda s: "\x00" not in s),
})
COLUMNS = ("at", "day", "flag", "ratio", "amount", "payload", "label")


def _orm_values(db: Session, row_id: int) -> dict[str, Any]:
    db.expire_all()
    sample = db.get(Sample, row_id)
    assert sample is not None
    return {column: getattr(sample, column) for column in COLUMNS}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(row=values)
def test_rows_written_by_the_orm_read_the_same_through_sql(database: tuple[Session, Sql], row: dict[str, Any]) -> None:
    db, sql = database
    sample = Sample(**row)
    db.add(sample)
    db.flush()
    read = sql.one("SELECT * FROM samples WHERE id = ?", [sample.id], Sample)
    assert read is not None
    assert {column: read[column] for column in COLUMNS} == _orm_values(db, sample.id)
    assert all(type(read[c]) is type(v) for c, v in _orm_values(db, sample.id).items())
    db.rollback()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(row=values)
def test_values_written_through_sql_are_stored_as_the_orm_stores_them(database: tuple[Session, Sql], row: dict[str, Any]) -> None:
    db, sql = database
    row_id = sql.insert(
        "INSERT INTO samples (at, day, flag, ratio, amount, payload, label) VALUES (:at, :day, :flag, :ratio, :amount, :payload, :label)",
        row,
    )
    stored = sql.one("SELECT * FROM samples WHERE id = ?", [row_id])
    twin = Sample(**row)
    db.add(twin)
    db.flush()
    orm_stored = sql.one("SELECT * FROM samples WHERE id = ?", [twin.id])
    assert stored is not None and orm_stored is not None
    if row["payload"] is None:  # the ORM stores a JSON null, a bare None parameter is SQL NULL
        stored.pop("payload"), orm_stored.pop("payload")
    assert {k: v for k, v in stored.items() if k != "id"} == {k: v for k, v in orm_stored.items() if k != "id"}
    db.rollback()


def test_a_statement_compares_times_as_stored(database: tuple[Session, Sql]) -> None:
    db, sql = database
    db.add(Sample(at=datetime(2025, 10, 1)))
    db.flush()
    assert sql.scalar("SELECT count(*) FROM samples WHERE at >= ?", [datetime(2025, 10, 1)]) == 1
    assert sql.scalar("SELECT count(*) FROM samples WHERE at > ?", [datetime(2025, 10, 1)]) == 0


def test_a_list_parameter_is_a_set_for_json_each(database: tuple[Session, Sql]) -> None:
    db, sql = database
    db.add_all([Sample(label="a"), Sample(label="b"), Sample(label="c")])
    db.flush()
    found = sql.column("SELECT label FROM samples WHERE label IN (SELECT value FROM json_each(?)) ORDER BY label", [["c", "a", "x"]])
    assert found == ["a", "c"]


ascii_text = st.text(alphabet="aAbB%_/ x", max_size=12)


@settings(max_examples=200, deadline=None)
@given(haystack=ascii_text, needle=ascii_text)
def test_like_patterns_match_text_literally(haystack: str, needle: str) -> None:
    connection = sqlite3.connect(":memory:")
    contains = connection.execute("SELECT ? LIKE ? ESCAPE '/'", [haystack, contains_pattern(needle)]).fetchone()[0]
    prefix = connection.execute("SELECT ? LIKE ? ESCAPE '/'", [haystack, prefix_pattern(needle)]).fetchone()[0]
    connection.close()
    assert bool(contains) == (needle.lower() in haystack.lower())
    assert bool(prefix) == haystack.lower().startswith(needle.lower())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(page=st.integers(1, 60), per_page=st.integers(1, 100), role=st.sampled_from([None, "agent", "admin"]))
def test_a_page_holds_its_slice_and_the_total(session: ToolSession, page: int, per_page: int, role: str | None) -> None:
    where, params = ("WHERE role = ?", [role]) if role else ("", [])
    everything = session.context.sql.all(f"SELECT * FROM users {where} ORDER BY name, id", params, User)
    found = session.context.sql.page("*", f"FROM users {where} ORDER BY name, id", params, page, per_page, User)
    assert found.rows == everything[(page - 1) * per_page:page * per_page]
    assert found.total == len(everything)
    assert found.next_page == (page + 1 if page * per_page < len(everything) else None)


def test_a_page_takes_positional_parameters_only(session: ToolSession) -> None:
    with pytest.raises(TypeError):
        session.context.sql.page("*", "FROM users WHERE role = :role", {"role": "agent"}, 1, 10)


class Out(BaseModel):
    subject: str


def _spec_with(zendesk: ServerSpec, tools: ToolRegistry) -> ServerSpec:
    return dataclasses.replace(zendesk, tools=tools)


def test_sql_writes_commit_with_the_call_and_show_in_the_diff(zendesk: ServerSpec) -> None:
    tools = ToolRegistry()

    @tools.tool(writes=True)
    def rename(ctx: ToolContext, ticket_id: int, subject: str) -> Out:
        """Renames a ticket."""
        ctx.sql.execute("UPDATE tickets SET subject = ? WHERE id = ?", [subject, ticket_id])
        row = ctx.sql.one("SELECT subject FROM tickets WHERE id = ?", [ticket_id])
        assert row is not None
        return Out(**row)

    @tools.tool()
    def read(ctx: ToolContext, ticket_id: int) -> Out:
        """Reads a ticket's subject."""
        row = ctx.sql.one("SELECT * FROM tickets WHERE id = ?", [ticket_id], Ticket)
        assert row is not None and isinstance(row["created_at"], datetime)
        return Out(**row)

    with ToolSession(_spec_with(zendesk, tools), 0) as session:
        assert session.call("rename", {"ticket_id": 1486, "subject": "renamed"}).ok
        assert session.call("read", {"ticket_id": 1486}).data == {"subject": "renamed"}
        assert [(c.table, c.key, c.changed) for c in session.diff()] == [("tickets", "1486", {"subject": "renamed"})]
        session.reset()
        assert session.call("read", {"ticket_id": 1486}).data != {"subject": "renamed"}


def test_a_failed_or_reading_call_leaves_no_sql_write(zendesk: ServerSpec) -> None:
    tools = ToolRegistry()

    @tools.tool(writes=True)
    def rename_then_fail(ctx: ToolContext, ticket_id: int) -> Out:
        """Renames a ticket, then refuses."""
        ctx.sql.execute("UPDATE tickets SET subject = 'changed' WHERE id = ?", [ticket_id])
        raise ForbiddenError("not allowed after all")

    @tools.tool()
    def read_that_writes(ctx: ToolContext, ticket_id: int) -> Out:
        """A read tool that writes by mistake: its write is rolled back."""
        ctx.sql.execute("UPDATE tickets SET subject = 'changed' WHERE id = ?", [ticket_id])
        return Out(subject="changed")

    with ToolSession(_spec_with(zendesk, tools), 0) as session:
        before = session.state_hash()
        result = session.call("rename_then_fail", {"ticket_id": 1486})
        assert result.error == "forbidden: not allowed after all"
        assert session.call("read_that_writes", {"ticket_id": 1486}).ok
        assert session.state_hash() == before and session.diff() == []


def test_a_constraint_broken_through_sql_is_a_readable_error(zendesk: ServerSpec) -> None:
    tools = ToolRegistry()

    @tools.tool(writes=True)
    def duplicate_email(ctx: ToolContext) -> Out:
        """Inserts a user whose email exists."""
        ctx.sql.insert("INSERT INTO users (name, email, role, timezone, created_at, suspended) "
                       "SELECT 'x', email, 'end-user', 'UTC', created_at, 0 FROM users WHERE id = 1")
        return Out(subject="")

    with ToolSession(_spec_with(zendesk, tools), 0) as session:
        before = session.state_hash()
        result = session.call("duplicate_email", {})
        assert result.error == "invalid_arguments: UNIQUE constraint failed: users.email"
        assert session.state_hash() == before


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=values, second=values)
def test_insert_row_and_update_row_write_what_the_orm_reads(database: tuple[Session, Sql], first: dict[str, Any],
                                                             second: dict[str, Any]) -> None:
    db, sql = database
    row_id = sql.insert_row(Sample, {**first, "joined_name": "ignored"})
    assert _orm_values(db, row_id) == first
    statements: list[str] = []
    traced = sql.traced(lambda text, params: statements.append(text))
    wrote = traced.update_row(Sample, {"id": row_id, **first}, {"id": row_id, **second, "count": 3})
    assert _orm_values(db, row_id) == second
    changed = [c for c in COLUMNS if first[c] != second[c]]
    assert wrote == bool(changed) and len(statements) == int(bool(changed))
    if changed:
        assert all(f'"{c}" = ?' in statements[0] for c in changed)
        assert not any(f'"{c}" = ?' in statements[0] for c in COLUMNS if c not in changed)


def test_rows_of_a_composite_key_need_their_own_statements(database: tuple[Session, Sql]) -> None:
    from mcpgym.servers.email.models import message_labels

    class Composite:
        __table__ = message_labels

    _, sql = database
    with pytest.raises(TypeError, match="composite key"):
        sql.update_row(Composite, {}, {})  # type: ignore[arg-type]
