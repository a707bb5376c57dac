"""Recurrence rules and time zones: the occurrences of an event, wall clock to UTC.

A series is expanded in its own time zone, so a 09:30 Berlin standup stays at 09:30 local time
across daylight-saving changes. Times are naive UTC datetimes unless named wall or local. An
event is its row of the `events` table (column name -> value, columns converted), an override
a row of `occurrence_overrides`.
"""

from __future__ import annotations

import calendar as cal
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")


@dataclass(frozen=True)
class Rule:
    """A bounded RRULE: FREQ, INTERVAL, BYDAY (weekly only) and exactly one of COUNT or UNTIL."""

    freq: str
    interval: int
    by_day: tuple[str, ...]
    count: int | None
    until: datetime | None

    def text(self) -> str:
        """The rule as an RFC 5545 line, e.g. `RRULE:FREQ=WEEKLY;INTERVAL=1;BYDAY=MO,WE;COUNT=10`."""
        parts = [f"FREQ={self.freq}", f"INTERVAL={self.interval}"]
        if self.by_day:
            parts.append(f"BYDAY={','.join(self.by_day)}")
        if self.count is not None:
            parts.append(f"COUNT={self.count}")
        if self.until is not None:
            parts.append(f"UNTIL={self.until.strftime('%Y%m%dT%H%M%SZ')}")
        return "RRULE:" + ";".join(parts)


@dataclass(frozen=True)
class Instance:
    """One generated occurrence: UTC start and end, and its local start date (the id's date)."""

    start: datetime
    end: datetime
    local_date: date


def to_utc(wall: datetime, zone: ZoneInfo) -> datetime:
    """A naive wall-clock time in `zone` as naive UTC."""
    return wall.replace(tzinfo=zone).astimezone(UTC).replace(tzinfo=None)


def to_local(moment: datetime, zone: ZoneInfo) -> datetime:
    """A naive UTC time as aware local time in `zone`."""
    return moment.replace(tzinfo=UTC).astimezone(zone)


SKIP_MARGIN = timedelta(days=2)
"""Slack kept before a window when skipping a series' earlier periods: more than any UTC
offset change, so no occurrence that could reach into the window is skipped."""


def _wall_starts(first: datetime, rule: Rule, skip_before: datetime | None = None) -> Iterator[tuple[int, datetime]]:
    """(index, wall-clock start) of the series, in order, without the COUNT/UNTIL bound.

    With `skip_before` (wall clock), whole daily or weekly periods ending before it are skipped
    arithmetically; the indices still count them, so COUNT holds as if they had been listed.
    """
    if rule.freq == "DAILY":
        steps = 0 if skip_before is None else max(0, (skip_before.date() - first.date()).days // rule.interval)
        index, k = steps, steps * rule.interval
        while True:
            yield index, first + timedelta(days=k)
            index, k = index + 1, k + rule.interval
    elif rule.freq == "WEEKLY":
        days = sorted(WEEKDAYS.index(d) for d in rule.by_day) or [first.weekday()]
        monday = first.date() - timedelta(days=first.weekday())
        first_week = sum(1 for d in days if monday + timedelta(days=d) >= first.date())
        periods = 0
        if skip_before is not None:
            periods = max(0, ((skip_before.date() - monday).days // 7 - 1) // rule.interval)
        index = 0 if periods == 0 else first_week + (periods - 1) * len(days)
        week = periods * rule.interval
        while True:
            for d in days:
                day = monday + timedelta(weeks=week, days=d)
                if day >= first.date():
                    yield index, datetime.combine(day, first.time())
                    index += 1
            week += rule.interval
    else:
        months = 0
        index = 0
        while True:
            year, month = divmod(first.month - 1 + months, 12)
            year += first.year
            if year > 9000:
                return
            if first.day <= cal.monthrange(year, month + 1)[1]:
                yield index, first.replace(year=year, month=month + 1)
                index += 1
            months += rule.interval


def expand(
    start: datetime, end: datetime, zone: ZoneInfo, rule: Rule, stop: datetime | None = None,
    after: datetime | None = None,
) -> Iterator[Instance]:
    """Occurrences of a series whose first occurrence is [start, end) (UTC), up to `stop` (UTC).

    With `after` (UTC), occurrences that end well before it may be left out: the work is
    then proportional to the window asked for, not to the series' age.
    """
    first = to_local(start, zone).replace(tzinfo=None)
    length = to_local(end, zone).replace(tzinfo=None) - first
    skip_before = None
    if after is not None:
        skip_before = to_local(max(after, start), zone).replace(tzinfo=None) - length - SKIP_MARGIN
    for index, wall in _wall_starts(first, rule, skip_before):
        if rule.count is not None and index >= rule.count:
            return
        begin = to_utc(wall, zone)
        if (rule.until is not None and begin > rule.until) or (stop is not None and begin >= stop):
            return
        yield Instance(start=begin, end=to_utc(wall + length, zone), local_date=wall.date())


def occurrence_id(event_id: int, local_date: date) -> str:
    """`<event_id>_<YYYYMMDD>`: the stable id of one occurrence of a recurring event."""
    return f"{event_id}_{local_date.strftime('%Y%m%d')}"


def rule_of(event: Mapping[str, Any]) -> Rule | None:
    """The recurrence rule of an event row, or None for a single event."""
    if event["recur_freq"] is None:
        return None
    return Rule(
        freq=event["recur_freq"],
        interval=event["recur_interval"] or 1,
        by_day=tuple(event["recur_by_day"].split(",")) if event["recur_by_day"] else (),
        count=event["recur_count"],
        until=event["recur_until"],
    )


def instances(event: Mapping[str, Any], stop: datetime | None = None,
              after: datetime | None = None) -> Iterator[Instance]:
    """An event row's occurrences at their original times (overrides not applied), up to `stop`;
    with `after`, occurrences ending well before it may be left out (see `expand`)."""
    zone = ZoneInfo(event["time_zone"])
    rule = rule_of(event)
    if rule is None:
        yield Instance(event["start_at"], event["end_at"], to_local(event["start_at"], zone).date())
        return
    yield from expand(event["start_at"], event["end_at"], zone, rule, stop, after)


def refresh_span(event: MutableMapping[str, Any], overrides: Iterable[Mapping[str, Any]]) -> None:
    """Set an event row's `span_start`/`span_end` to bound every occurrence, its `overrides`
    (rows of `occurrence_overrides`) included."""
    times = [(i.start, i.end) for i in instances(event)]
    times += [(o["start_at"], o["end_at"]) for o in overrides]
    event["span_start"] = min(start for start, _ in times)
    event["span_end"] = max(end for _, end in times)
