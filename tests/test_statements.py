"""No N+1 queries: every tool answers its examples in a bounded number of SQL statements, a
page of 50 results costs the same number of statements as a page of one, and a recurring
series is expanded only over the window asked for, with the same occurrences."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import event

from mcpgym.servers.calendar.recurrence import WEEKDAYS, Rule, expand
from mcpgym.servers.catalog import load_server, server_names
from mcpgym.servers.kernel.session import ToolSession

MAX_STATEMENTS = 12
"""Statements one call may issue: reads answer in a handful; most writes check, write, then
render the changed entity."""

WRITES_ABOVE_THE_BOUND = {
    "flights.change_flight": (16, "reads the reservation, its legs with the new flight, the fare rule, travellers, "
                                  "booked seats and clashes; writes the change fee, seat release, segment and "
                                  "reservation; renders the reservation"),
    "flights.book_reservation": (15, "checks the quote, legs, seats, clashes and payment methods; writes the "
                                     "reservation, its travellers and legs (one statement each) and each payment "
                                     "(at most 3); renders it"),
    "email.forward_message": (14, "reads the original and its recipients and checks the new ones against the "
                                  "mailboxes and contacts; writes the message, its recipients, attachments, labels "
                                  "and new contacts (one statement each); reads the copied attachments to render it"),
}
"""Write tools whose examples need more than `MAX_STATEMENTS`, with their own ceiling and why.
Every one is a fixed sequence of checks and writes on one entity, never one statement per row
of a listing."""


class StatementCounter:
    """Counts the SQL statements a session's tools send, whichever way: through SQLAlchemy
    (the ORM or Core; an `executemany` counts once) or through `ctx.sql`."""

    def __init__(self, session: ToolSession) -> None:
        self.count = 0
        self.session = session
        self.bind = session.context.db.get_bind()
        event.listen(self.bind, "before_cursor_execute", self._seen)

    def _seen(self, *args: Any) -> None:
        self.count += 1

    def start(self) -> None:
        """Count from zero, `ctx.sql` included (a reset makes a new context: call after it)."""
        self.count = 0
        context = self.session.context
        self.session.context = dataclasses.replace(context, sql=context.sql.traced(self._seen))

    def close(self) -> None:
        event.remove(self.bind, "before_cursor_execute", self._seen)


@pytest.fixture(params=server_names())
def counted(request: pytest.FixtureRequest) -> Iterator[tuple[ToolSession, StatementCounter]]:
    with ToolSession(load_server(request.param), 0) as session:
        counter = StatementCounter(session)
        yield session, counter
        counter.close()


def statements(session: ToolSession, counter: StatementCounter, tool: str, arguments: dict[str, Any]) -> int:
    session.reset()
    counter.start()
    result = session.call(tool, arguments)
    assert result.ok, result.text[:300]
    return counter.count


def test_every_example_issues_a_bounded_number_of_statements(counted: tuple[ToolSession, StatementCounter]) -> None:
    session, counter = counted
    over, needless = [], []
    for tool in session.tools:
        key = f"{session.spec.name}.{tool.name}"
        bound, _ = WRITES_ABOVE_THE_BOUND.get(key, (MAX_STATEMENTS, ""))
        most = max(statements(session, counter, tool.name, example) for example in tool.examples)
        if most > bound:
            over.append(f"{key}: {most} statements (bound {bound})")
        if key in WRITES_ABOVE_THE_BOUND and most <= MAX_STATEMENTS:
            needless.append(f"{key}: {most} statements, within the common bound; drop its exception")
    assert not over, over
    assert not needless, needless


def test_tools_listed_above_the_bound_exist_and_write() -> None:
    for key in WRITES_ABOVE_THE_BOUND:
        server, name = key.split(".")
        tool = load_server(server).tools.get(name)
        assert tool is not None and tool.writes, key


def test_statements_do_not_grow_with_the_page_size(counted: tuple[ToolSession, StatementCounter]) -> None:
    session, counter = counted
    grew = []
    for tool in session.tools:
        if tool.writes or "per_page" not in tool.input_schema.get("properties", {}) or not tool.examples:
            continue
        one, many = (statements(session, counter, tool.name, {**tool.examples[0], "per_page": n}) for n in (1, 50))
        if many != one:
            grew.append(f"{tool.name}: {one} statements for 1 result per page, {many} for 50")
    assert not grew, grew


# ---------------------------------------------------------------- windowed recurrence expansion

ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Sydney", "Asia/Kolkata"]


@st.composite
def series(draw: st.DrawFn) -> tuple[datetime, datetime, ZoneInfo, Rule]:
    """A recurring event: first occurrence (UTC), its zone and a bounded rule."""
    start = draw(st.datetimes(datetime(2024, 1, 1), datetime(2026, 12, 31))).replace(second=0, microsecond=0)
    length = timedelta(minutes=draw(st.integers(15, 60 * 30)))
    freq = draw(st.sampled_from(["DAILY", "WEEKLY", "MONTHLY"]))
    by_day = tuple(sorted(draw(st.sets(st.sampled_from(WEEKDAYS), max_size=7)), key=WEEKDAYS.index)) if freq == "WEEKLY" else ()
    count = draw(st.none() | st.integers(1, 500))
    until = start + timedelta(days=draw(st.integers(0, 3 * 365))) if count is None else None
    rule = Rule(freq=freq, interval=draw(st.integers(1, 6)), by_day=by_day, count=count, until=until)
    return start, start + length, ZoneInfo(draw(st.sampled_from(ZONES))), rule


@settings(max_examples=300, deadline=None)
@given(event=series(), offset_days=st.integers(-30, 4 * 365), window_days=st.integers(1, 400))
def test_expanding_only_the_window_finds_the_same_occurrences(
    event: tuple[datetime, datetime, ZoneInfo, Rule], offset_days: int, window_days: int
) -> None:
    start, end, zone, rule = event
    window_start = start + timedelta(days=offset_days)
    window_end = window_start + timedelta(days=window_days)
    whole = [i for i in expand(start, end, zone, rule, stop=window_end) if i.end > window_start]
    windowed = [i for i in expand(start, end, zone, rule, stop=window_end, after=window_start) if i.end > window_start]
    assert windowed == whole
