"""The calendar tools: read, schedule and manage events, attendees and rooms, as an assistant does."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.orm import DeclarativeBase

from mcpgym.servers.calendar.models import (
    Attendee,
    Calendar,
    Event,
    OccurrenceOverride,
    Person,
    Room,
)
from mcpgym.servers.calendar.recurrence import (
    WEEKDAYS,
    Instance,
    Rule,
    instances,
    occurrence_id,
    refresh_span,
    rule_of,
    to_local,
    to_utc,
)
from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import Page, PerPage, Timestamp, next_page, page_slice
from mcpgym.servers.kernel.lookup import missing, row_or_raise
from mcpgym.servers.kernel.query import search_words
from mcpgym.servers.kernel.sql import Row, contains_pattern
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry

tools = ToolRegistry()

EVENT_HINT = "Use list_events to find events, and occurrence ids of recurring events, in a time range."
PERSON_HINT = "Use search_people to find people by name, email or organisation."
ROOM_HINT = "Use list_rooms to see the rooms."
CALENDAR_HINT = "Use list_calendars to see the calendars."
END_OF_TIME = datetime(9999, 1, 1)
YEARS = range(1970, 2100)
MAX_ID = 2**63 - 1
MAX_SERIES_DAYS = 1096
MAX_RANGE_DAYS = 92
MAX_SLOT_RANGE_DAYS = 31
OCCURRENCE_ID = re.compile(r"^(\d+)_(\d{8})$")

Response = Literal["accepted", "declined", "tentative"]
Weekday = Literal["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
Email = Annotated[str, Field(pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$", description="An email address.")]
ClockTime = Annotated[str, Field(pattern=r"^([01]\d|2[0-3]):[0-5]\d$")]

EventIdArg = Annotated[int | str, Field(description=(
    "An event id (e.g. 1042); for a recurring event this is the whole series. Or the occurrence id "
    "of one occurrence of a recurring event, '<event_id>_<YYYYMMDD>' (e.g. '1042_20251114')."))]
SeriesIdArg = Annotated[int, Field(description="The event id (for a recurring event, the whole series).")]
TimeZoneArg = Annotated[str | None, Field(description=(
    "IANA time zone name such as 'Europe/Berlin' or 'America/New_York'. Input times without an "
    "offset are read in it (default UTC) and start_local/end_local are rendered in it "
    "(default: each event's own time zone)."))]
ShowZoneArg = Annotated[str | None, Field(description=(
    "IANA time zone name such as 'Europe/Berlin' in which start_local/end_local are rendered. "
    "Default: the event's own time zone."))]
UtcZoneArg = Annotated[str | None, Field(description=(
    "IANA time zone name such as 'Europe/Berlin'. Input times without an offset are read in it and "
    "local times in the result are rendered in it. Default: UTC."))]
TimeMinArg = Annotated[datetime | None, Field(description=(
    "Start of the range (inclusive), ISO 8601; without an offset it is read in time_zone. Default: now."))]
TimeMaxArg = Annotated[datetime | None, Field(description=(
    "End of the range (exclusive), ISO 8601; without an offset it is read in time_zone. "
    "Default: 7 days after time_min."))]
CalendarF = Annotated[int | None, Field(description=(
    "Only events on this calendar; for a person's primary calendar this includes the events "
    "they are invited to."))]
QueryF = Annotated[str | None, Field(description=(
    "Words that must all appear in the title, description or location (case-insensitive)."))]
AttendeeF = Annotated[Email | None, Field(description="Only events this person organises or is invited to.")]
OrganizerF = Annotated[Email | None, Field(description="Only events organised by this person.")]
OrganizationF = Annotated[str | None, Field(description=(
    "Only events with an attendee from an organisation whose name contains this text "
    "(case-insensitive), e.g. a customer's name."))]
RoomF = Annotated[int | None, Field(description="Only events held in this room.")]
AllDayF = Annotated[bool | None, Field(description="True: only all-day events; False: only timed events.")]


# ---------------------------------------------------------------- result models


class PersonRef(BaseModel):
    name: str
    email: str


class PersonOut(BaseModel):
    person_id: str = Field(description="The person's id in the shared directory, e.g. 'per_0042'.")
    name: str
    email: str
    organization_name: str
    organization_domain: str
    job_title: str
    time_zone: str
    is_employee: bool = Field(description="True for Northwind Systems staff, False for customers.")
    primary_calendar_id: int | None = Field(description="The employee's own calendar; null for customers.")


class PersonPage(BaseModel):
    people: list[PersonOut]
    total: int
    page: int
    next_page: int | None


class CalendarOut(BaseModel):
    id: int
    name: str
    description: str
    kind: str = Field(description="'primary' (one employee's own calendar) or 'shared' (a team's).")
    owner: PersonRef
    time_zone: str


class CalendarPage(BaseModel):
    calendars: list[CalendarOut]
    total: int
    page: int
    next_page: int | None


class RoomOut(BaseModel):
    id: int
    name: str
    building: str
    floor: int
    capacity: int = Field(description="Most people the room holds, organiser included.")
    has_video: bool


class RoomList(BaseModel):
    rooms: list[RoomOut]


class RecurrenceOut(BaseModel):
    rule: str = Field(description="The rule as an RFC 5545 RRULE line.")
    freq: str
    interval: int
    by_day: list[str]
    count: int | None
    until: Timestamp | None


class AttendeeOut(BaseModel):
    email: str
    name: str
    organization_name: str
    is_employee: bool
    organizer: bool
    optional: bool
    response_status: str = Field(description="needsAction, accepted, declined or tentative.")
    comment: str | None
    responded_at: Timestamp | None


class EventSummary(BaseModel):
    event_id: int = Field(description="The event's id; for an occurrence, the id of its series.")
    occurrence_id: str | None = Field(description=(
        "Set for one occurrence of a recurring event: pass it to act on this occurrence only."))
    calendar_id: int
    title: str
    status: str = Field(description="'confirmed' or 'cancelled'.")
    start: Timestamp
    end: Timestamp
    start_local: str = Field(description="Start in the requested (or the event's) time zone, with offset.")
    end_local: str
    time_zone: str = Field(description="The event's own time zone.")
    all_day: bool
    recurring: bool
    organizer: PersonRef
    room: RoomOut | None
    location: str | None
    attendee_count: int = Field(description="People invited, organiser included.")


class EventDetail(EventSummary):
    description: str
    show_as: str = Field(description="'busy' (blocks free/busy) or 'free'.")
    recurrence: RecurrenceOut | None = Field(description="The series' rule, for recurring events.")
    original_start: Timestamp | None = Field(description=(
        "For an occurrence: where the rule placed it (differs from start if it was moved)."))
    attendees: list[AttendeeOut]
    created_at: Timestamp
    updated_at: Timestamp


class EventPage(BaseModel):
    events: list[EventSummary]
    total: int = Field(description="Events and occurrences matching, over all pages.")
    page: int
    next_page: int | None
    time_min: Timestamp
    time_max: Timestamp


class Interval(BaseModel):
    start: Timestamp
    end: Timestamp
    start_local: str
    end_local: str


class PersonBusy(BaseModel):
    email: str
    name: str
    busy: list[Interval] = Field(description="Merged busy intervals, clipped to the range.")
    busy_minutes: int


class FreeBusy(BaseModel):
    time_min: Timestamp
    time_max: Timestamp
    time_zone: str
    people: list[PersonBusy]


class Slot(Interval):
    rooms: list[RoomOut] = Field(description=(
        "With need_room: up to 3 free rooms that hold every attendee, smallest first."))


class SlotList(BaseModel):
    slots: list[Slot]
    time_zone: str
    searched_from: Timestamp = Field(description="The range searched: the later of time_min and now.")
    searched_until: Timestamp


class Booking(BaseModel):
    event_id: int
    occurrence_id: str | None
    title: str
    start: Timestamp
    end: Timestamp
    start_local: str
    end_local: str
    organizer: PersonRef


class RoomAvailability(BaseModel):
    room: RoomOut
    time_min: Timestamp
    time_max: Timestamp
    free: bool = Field(description="True when nothing is booked in the whole range.")
    busy_minutes: int
    bookings: list[Booking]


class StatGroup(BaseModel):
    key: str
    label: str
    events: int
    minutes: int


class MeetingStats(BaseModel):
    time_min: Timestamp
    time_max: Timestamp
    total_events: int = Field(description="Confirmed events and occurrences overlapping the range.")
    total_minutes: int = Field(description="Their summed duration in minutes (not clipped to the range).")
    group_by: str | None
    groups: list[StatGroup]


class RecurrenceIn(BaseModel):
    """A repeat rule: FREQ, INTERVAL, BYDAY (weekly only) and exactly one of count or until."""

    model_config = ConfigDict(extra="forbid")

    freq: Literal["DAILY", "WEEKLY", "MONTHLY"] = Field(description=(
        "DAILY, WEEKLY or MONTHLY (monthly repeats on the start's day of the month, skipping "
        "months without that day)."))
    interval: int = Field(1, ge=1, le=52, description="Repeat every `interval` days/weeks/months.")
    by_day: list[Weekday] | None = Field(None, description=(
        "WEEKLY only: weekdays it repeats on, e.g. ['MO','WE']; must include the start's weekday. "
        "Default: the start's weekday."))
    count: int | None = Field(None, ge=1, le=500, description="Number of occurrences.")
    until: datetime | None = Field(None, description=(
        "Last possible occurrence start (inclusive), ISO 8601 read in the event's time zone, e.g. "
        "'2026-06-30T23:59:59' to include June 30; at most 3 years after the start."))


# ---------------------------------------------------------------- time helpers


@dataclass(frozen=True)
class Occurrence:
    """An event (its row) or one occurrence of a series, at its actual time."""

    event: Row
    occurrence_id: str | None
    start: datetime
    end: datetime
    status: str
    original_start: datetime | None


def _zone(name: str | None, default: str = "UTC") -> ZoneInfo:
    try:
        return ZoneInfo(name or default)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise InvalidArgumentError(
            f"unknown time zone {name!r}; use an IANA name such as 'Europe/Berlin', "
            "'America/New_York' or 'UTC'") from None


def _utc(value: datetime, zone: ZoneInfo) -> datetime:
    """An input time as naive UTC: exact with an offset, otherwise read in `zone`."""
    if value.year not in YEARS:
        raise InvalidArgumentError(f"times must lie between {YEARS.start} and {YEARS.stop - 1} "
                                   f"(got {value.isoformat()})")
    if value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None, microsecond=0)
    return to_utc(value.replace(microsecond=0), zone)


def _local(moment: datetime, zone: ZoneInfo) -> str:
    return to_local(moment, zone).isoformat(timespec="seconds")


def _range(time_min: datetime | None, time_max: datetime | None, zone: ZoneInfo, now: datetime,
           max_days: int | None = None) -> tuple[datetime, datetime]:
    start = _utc(time_min, zone) if time_min is not None else now
    end = _utc(time_max, zone) if time_max is not None else start + timedelta(days=7)
    if end <= start:
        raise InvalidArgumentError("time_max must be later than time_min")
    if max_days is not None and end - start > timedelta(days=max_days):
        raise InvalidArgumentError(f"the range may span at most {max_days} days; split it into smaller ranges")
    return start, end


def _minutes(start: datetime, end: datetime) -> int:
    return int((end - start).total_seconds() // 60)


def _merge(intervals: list[tuple[datetime, datetime]]) -> list[tuple[datetime, datetime]]:
    merged: list[tuple[datetime, datetime]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _overlaps(busy: list[tuple[datetime, datetime]], start: datetime, end: datetime) -> bool:
    """Whether `[start, end)` meets a merged, sorted busy list."""
    i = bisect_left(busy, (start, start))
    return (i > 0 and busy[i - 1][1] > start) or (i < len(busy) and busy[i][0] < end)


# ---------------------------------------------------------------- occurrences

LISTED_COLUMNS = ("events.id, events.calendar_id, events.title, events.location, events.start_at, events.end_at, "
                  "events.time_zone, events.all_day, events.status, events.organizer_id, events.room_id, "
                  "events.recur_freq, events.recur_interval, events.recur_by_day, events.recur_count, "
                  "events.recur_until")
"""The event columns that expanding and listing an event read."""

EVENT_FIELDS = ("calendar_id", "title", "description", "location", "start_at", "end_at", "time_zone", "all_day",
                "show_as", "status", "organizer_id", "room_id", "recur_freq", "recur_interval", "recur_by_day",
                "recur_count", "recur_until", "span_start", "span_end", "created_at", "updated_at")
"""Every column of `events` but its id, in the order an INSERT names them."""

ATTENDEE_FIELDS = ("person_id", "response_status", "optional", "organizer", "comment", "responded_at")
"""Every column of `attendees` but its id and event, in the order an INSERT names them."""

OVERRIDE_FIELDS = ("original_start", "start_at", "end_at", "status", "updated_at")
"""Every column of `occurrence_overrides` but its id and event, in the order an INSERT names them."""


def _expand(event: Row, overrides: Sequence[Row], start: datetime, end: datetime,
            include_cancelled: bool) -> list[Occurrence]:
    """The event's occurrences overlapping `[start, end)`, its `overrides` applied."""
    if event["recur_freq"] is None:
        found = event["start_at"] < end and event["end_at"] > start
        if not found or (event["status"] == "cancelled" and not include_cancelled):
            return []
        return [Occurrence(event, None, event["start_at"], event["end_at"], event["status"], None)]
    zone = ZoneInfo(event["time_zone"])
    moved = {o["original_start"]: o for o in overrides}
    found_list: list[Occurrence] = []
    for inst in instances(event, stop=end, after=start):
        if inst.end > start and inst.start not in moved:
            found_list.append(Occurrence(event, occurrence_id(event["id"], inst.local_date), inst.start,
                                         inst.end, event["status"], inst.start))
    for o in moved.values():
        if o["start_at"] < end and o["end_at"] > start:
            status = "cancelled" if event["status"] == "cancelled" else o["status"]
            key = occurrence_id(event["id"], to_local(o["original_start"], zone).date())
            found_list.append(Occurrence(event, key, o["start_at"], o["end_at"], status, o["original_start"]))
    return [o for o in found_list if include_cancelled or o.status == "confirmed"]


def _overrides_of(ctx: ToolContext, events: Sequence[Row]) -> dict[int, list[Row]]:
    """The moved or cancelled occurrences of the recurring ones of `events`, per event id, by
    original start; read in one statement (none when no event recurs)."""
    ids = [e["id"] for e in events if e["recur_freq"] is not None]
    by_event: dict[int, list[Row]] = {}
    if ids:
        for row in ctx.sql.all("SELECT * FROM occurrence_overrides WHERE event_id IN (SELECT value FROM json_each(?)) "
                               "ORDER BY event_id, original_start, id", [ids], OccurrenceOverride):
            by_event.setdefault(row["event_id"], []).append(row)
    return by_event


def _overrides(ctx: ToolContext, event: Row) -> list[Row]:
    """One event's moved or cancelled occurrences, by original start (none for a single event)."""
    return _overrides_of(ctx, [event]).get(event["id"], [])


def _occurrences(ctx: ToolContext, start: datetime, end: datetime, where: str = "1", params: Sequence[Any] = (),
                 include_cancelled: bool = False) -> list[Occurrence]:
    """Every occurrence that overlaps `[start, end)` of the events matching `where` (an SQL
    condition on `events` with positional `params`), in time order."""
    status = "" if include_cancelled else " AND events.status = 'confirmed'"
    events = ctx.sql.all(f"SELECT {LISTED_COLUMNS} FROM events WHERE events.span_start < ? AND events.span_end > ?"
                         f"{status} AND {where}", [end, start, *params], Event)
    overrides = _overrides_of(ctx, events)
    found = [o for e in events for o in _expand(e, overrides.get(e["id"], ()), start, end, include_cancelled)]
    return sorted(found, key=lambda o: (o.start, o.event["id"], o.occurrence_id or ""))


def _get(ctx: ToolContext, model: type[DeclarativeBase], entity_id: int, label: str, hint: str) -> Row:
    """`row_or_raise`, also for ids beyond SQLite's 64-bit integers."""
    if not 0 < entity_id <= MAX_ID:
        raise missing(label, entity_id, hint)
    return row_or_raise(ctx, model, entity_id, label, hint)


def _event(ctx: ToolContext, event_id: int) -> Row:
    return _get(ctx, Event, event_id, "event", EVENT_HINT)


def _find(ctx: ToolContext, ref: int | str) -> tuple[Row, list[Row], Occurrence | None]:
    """The event named by an event id or an occurrence id, its overrides (recurring events
    only), and the occurrence if one was named."""
    text = str(ref).strip()
    if text.isdigit():
        event = _event(ctx, int(text))
        return event, _overrides(ctx, event), None
    match = OCCURRENCE_ID.match(text)
    if match is None:
        raise NotFoundError(f"no event with id {text!r}: ids are integers like 1042, occurrence ids "
                            f"look like '1042_20251114'. {EVENT_HINT}")
    event = _event(ctx, int(match.group(1)))
    if event["recur_freq"] is None:
        raise NotFoundError(f"event {event['id']} is not recurring; use its id {event['id']} instead of {text!r}")
    try:
        day = datetime.strptime(match.group(2), "%Y%m%d").date()
    except ValueError:
        raise NotFoundError(f"{text!r} does not end in a valid date (YYYYMMDD)") from None
    # Expanded from the day's local midnight on: earlier periods are skipped, not listed.
    after = to_utc(datetime.combine(day, time()), ZoneInfo(event["time_zone"])) if day.year in YEARS else None
    for inst in instances(event, after=after):
        if inst.local_date == day:
            overrides = _overrides(ctx, event)
            return event, overrides, _occurrence_of(event, overrides, inst)
        if inst.local_date > day:
            break
    raise NotFoundError(f"recurring event {event['id']} has no occurrence on {day.isoformat()}. "
                        f"Use list_event_instances with event_id {event['id']} to see its occurrences.")


def _occurrence_of(event: Row, overrides: Sequence[Row], inst: Instance) -> Occurrence:
    key = occurrence_id(event["id"], inst.local_date)
    for o in overrides:
        if o["original_start"] == inst.start:
            status = "cancelled" if event["status"] == "cancelled" else o["status"]
            return Occurrence(event, key, o["start_at"], o["end_at"], status, inst.start)
    return Occurrence(event, key, inst.start, inst.end, event["status"], inst.start)


def _whole(event: Row) -> Occurrence:
    """The event itself (for a series, its first occurrence's times and no occurrence id)."""
    return Occurrence(event, None, event["start_at"], event["end_at"], event["status"], None)


# ---------------------------------------------------------------- lookups and rendering

PERSON_COLUMNS = "people.id, people.email, people.name, people.is_employee"
"""What the tools use of a person they act on or invite."""

PERSON_OUT_COLUMNS = (
    "people.external_id AS person_id, people.name, people.email, organizations.name AS organization_name, "
    "organizations.domain AS organization_domain, people.job_title, people.timezone AS time_zone, people.is_employee, "
    "CASE WHEN people.is_employee THEN (SELECT calendars.id FROM calendars WHERE calendars.owner_id = people.id "
    "AND calendars.kind = 'primary' ORDER BY calendars.id LIMIT 1) END AS primary_calendar_id"
)
"""A `PersonOut` of `people JOIN organizations`."""

PEOPLE_WITH_ORGANIZATIONS = "FROM people JOIN organizations ON organizations.id = people.organization_id"

EXTRAS_COLUMNS = (
    "events.id, people.name AS organizer_name, people.email AS organizer_email, "
    "(SELECT count(*) FROM attendees WHERE attendees.event_id = events.id) AS attendee_count, "
    "rooms.name AS room_name, rooms.building, rooms.floor, rooms.capacity, rooms.has_video"
)
"""What a summary shows of an event besides its own columns: organiser, attendee count, room."""


def _people(ctx: ToolContext, emails: Sequence[str]) -> list[Row]:
    """The people with these emails (case-insensitive), each once, in the order given; read in
    one statement. The first email that names nobody is `NotFoundError`."""
    if not emails:
        return []
    wanted = [email.strip().lower() for email in emails]
    found = {row["email"]: row for row in ctx.sql.all(
        f"SELECT {PERSON_COLUMNS} FROM people WHERE people.email IN (SELECT value FROM json_each(?))",
        [list(dict.fromkeys(wanted))], Person)}
    for email, key in zip(emails, wanted):
        if key not in found:
            raise _no_person(email)
    return list({key: found[key] for key in wanted}.values())


def _person(ctx: ToolContext, email: str) -> Row:
    return _people(ctx, [email])[0]


def _no_person(email: str) -> NotFoundError:
    return NotFoundError(f"no person with email {email}. {PERSON_HINT}")


def _room(ctx: ToolContext, room_id: int) -> Row:
    return _get(ctx, Room, room_id, "room", ROOM_HINT)


def _calendar(ctx: ToolContext, calendar_id: int) -> Row:
    return _get(ctx, Calendar, calendar_id, "calendar", CALENDAR_HINT)


def _room_out(r: Row) -> RoomOut:
    return RoomOut(**r)


def _extras(ctx: ToolContext, events: Sequence[Row]) -> dict[int, Row]:
    """Per event id, its organiser's name and email, its attendee count and its room's columns
    (`room_name`, ...; None without a room), as stored now; read in one statement."""
    ids = list(dict.fromkeys(e["id"] for e in events))
    if not ids:
        return {}
    return {row["id"]: row for row in ctx.sql.all(
        f"SELECT {EXTRAS_COLUMNS} FROM events JOIN people ON people.id = events.organizer_id "
        "LEFT JOIN rooms ON rooms.id = events.room_id WHERE events.id IN (SELECT value FROM json_each(?))",
        [ids], Room)}


def _summaries(ctx: ToolContext, found: Sequence[Occurrence], zone: ZoneInfo | None) -> list[EventSummary]:
    """Summaries of a page of occurrences, their organisers, attendee counts and rooms read in one statement."""
    extras = _extras(ctx, [o.event for o in found])
    return [_summary(o, zone, extras[o.event["id"]]) for o in found]


def _summary(occ: Occurrence, zone: ZoneInfo | None, extra: Row) -> EventSummary:
    event = occ.event
    shown = zone or ZoneInfo(event["time_zone"])
    room = None
    if event["room_id"] is not None:
        room = RoomOut(id=event["room_id"], name=extra["room_name"], building=extra["building"],
                       floor=extra["floor"], capacity=extra["capacity"], has_video=extra["has_video"])
    return EventSummary(
        event_id=event["id"], occurrence_id=occ.occurrence_id, calendar_id=event["calendar_id"],
        title=event["title"], status=occ.status, start=occ.start, end=occ.end,
        start_local=_local(occ.start, shown), end_local=_local(occ.end, shown),
        time_zone=event["time_zone"], all_day=event["all_day"], recurring=event["recur_freq"] is not None,
        organizer=PersonRef(name=extra["organizer_name"], email=extra["organizer_email"]), room=room,
        location=event["location"], attendee_count=extra["attendee_count"],
    )


def _recurrence_out(event: Row) -> RecurrenceOut | None:
    rule = rule_of(event)
    if rule is None:
        return None
    return RecurrenceOut(rule=rule.text(), freq=rule.freq, interval=rule.interval,
                         by_day=list(rule.by_day), count=rule.count, until=rule.until)


def _detail(ctx: ToolContext, occ: Occurrence, zone: ZoneInfo | None = None) -> EventDetail:
    """The detail of an occurrence whose event row is as stored now (every column)."""
    event = occ.event
    attendees = ctx.sql.all(
        "SELECT people.email, people.name, organizations.name AS organization_name, people.is_employee, "
        "attendees.organizer, attendees.optional, attendees.response_status, attendees.comment, "
        "attendees.responded_at FROM attendees JOIN people ON people.id = attendees.person_id "
        "JOIN organizations ON organizations.id = people.organization_id WHERE attendees.event_id = ? "
        "ORDER BY attendees.id", [event["id"]], (Attendee, Person))
    return EventDetail(
        **_summaries(ctx, [occ], zone)[0].model_dump(), description=event["description"], show_as=event["show_as"],
        recurrence=_recurrence_out(event), original_start=occ.original_start,
        attendees=[AttendeeOut(**a) for a in attendees],
        created_at=event["created_at"], updated_at=event["updated_at"],
    )


def _event_clauses(
    ctx: ToolContext, calendar_id: int | None = None, query: str | None = None,
    attendee_email: str | None = None, organizer_email: str | None = None,
    organization: str | None = None, room_id: int | None = None, all_day: bool | None = None,
) -> tuple[str, list[Any]]:
    """The event filters as an SQL condition on `events` and its positional parameters."""
    clauses = ["1"]
    params: list[Any] = []
    if calendar_id is not None:
        calendar = _calendar(ctx, calendar_id)
        if calendar["kind"] == "primary":
            clauses.append("(events.calendar_id = ? OR events.id IN (SELECT event_id FROM attendees WHERE person_id = ?))")
            params += [calendar_id, calendar["owner_id"]]
        else:
            clauses.append("events.calendar_id = ?")
            params.append(calendar_id)
    for word in search_words(query):
        clauses.append("(lower(events.title) LIKE ? ESCAPE '/' OR lower(events.description) LIKE ? ESCAPE '/' "
                       "OR lower(events.location) LIKE ? ESCAPE '/')")
        params += [contains_pattern(word)] * 3
    if attendee_email is not None:
        clauses.append("events.id IN (SELECT event_id FROM attendees WHERE person_id = ?)")
        params.append(_person(ctx, attendee_email)["id"])
    if organizer_email is not None:
        clauses.append("events.organizer_id = ?")
        params.append(_person(ctx, organizer_email)["id"])
    if organization:
        # Narrowed from the few organisations down, so that attendees are read by their index.
        clauses.append("events.id IN (SELECT event_id FROM attendees WHERE person_id IN (SELECT id FROM people "
                       "WHERE organization_id IN (SELECT id FROM organizations WHERE lower(name) LIKE ? ESCAPE '/')))")
        params.append(contains_pattern(organization.strip().lower()))
    if room_id is not None:
        _room(ctx, room_id)
        clauses.append("events.room_id = ?")
        params.append(room_id)
    if all_day is not None:
        clauses.append("events.all_day = ?")
        params.append(all_day)
    return " AND ".join(clauses), params


# ---------------------------------------------------------------- writes on rows



def _insert_event(ctx: ToolContext, event: Row) -> Row:
    """Insert a new event row (every column but the id, which SQLite assigns); the row as stored."""
    event_id = ctx.sql.insert(f"INSERT INTO events ({', '.join(EVENT_FIELDS)}) "
                              f"VALUES ({', '.join('?' * len(EVENT_FIELDS))})", [event[f] for f in EVENT_FIELDS])
    return {"id": event_id, **{f: event[f] for f in EVENT_FIELDS}}


def _insert_attendees(ctx: ToolContext, event_id: int, attendees: Sequence[Row]) -> None:
    """Invite people to an event in one statement; ids follow the order given."""
    if attendees:
        rows = ", ".join([f"(?, {', '.join('?' * len(ATTENDEE_FIELDS))})"] * len(attendees))
        ctx.sql.execute(f"INSERT INTO attendees (event_id, {', '.join(ATTENDEE_FIELDS)}) VALUES {rows}",
                        [value for a in attendees for value in (event_id, *(a[f] for f in ATTENDEE_FIELDS))])


def _invitation(person_id: int, optional: bool) -> Row:
    """An attendee row of someone invited who has not answered yet."""
    return {"person_id": person_id, "response_status": "needsAction", "optional": optional, "organizer": False,
            "comment": None, "responded_at": None}


# ---------------------------------------------------------------- rules


def _ensure_open(ctx: ToolContext, event: Row, occ: Occurrence | None = None) -> None:
    """Cancelled events, and events whose every occurrence has ended, cannot change."""
    if event["status"] == "cancelled":
        raise ForbiddenError(f"event {event['id']} is already cancelled and can no longer change; "
                             "create a new event instead")
    name = f"occurrence {occ.occurrence_id}" if occ is not None else f"event {event['id']}"
    if occ is not None and occ.status == "cancelled":
        raise ForbiddenError(f"{name} is already cancelled and can no longer change")
    end = occ.end if occ is not None else event["span_end"]
    if end <= ctx.now:
        raise ForbiddenError(f"{name} already took place (it ended at {end:%Y-%m-%dT%H:%M:%SZ}); "
                             "past events cannot be changed")


def _check_capacity(room: Row, people: int) -> None:
    if people > room["capacity"]:
        raise ForbiddenError(f"room {room['id']} ({room['name']}) holds {room['capacity']} people but the event has "
                             f"{people} attendees; use list_rooms with min_capacity={people} to find a bigger room")


def _check_room_free(ctx: ToolContext, room: Row, spans: list[tuple[datetime, datetime]], event_id: int | None) -> None:
    """Forbid booking `room` at any span that ends after now and meets another event's booking."""
    spans = sorted((s, e) for s, e in spans if e > ctx.now)
    if not spans:
        return
    taken = [o for o in _occurrences(ctx, spans[0][0], max(e for _, e in spans), "events.room_id = ?", [room["id"]])
             if o.event["id"] != event_id]
    for start, end in spans:
        for o in taken:
            if o.start < end and start < o.end:
                raise ForbiddenError(
                    f"room {room['id']} ({room['name']}) is already booked {o.start:%Y-%m-%dT%H:%M}Z-{o.end:%H:%M}Z "
                    f"by event {o.occurrence_id or o.event['id']} ({o.event['title']}); use get_room_availability or "
                    "list_rooms with available_from/available_until to find a free room or time")


def _future_spans(ctx: ToolContext, event: Row, overrides: Sequence[Row]) -> list[tuple[datetime, datetime]]:
    return [(o.start, o.end) for o in _expand(event, overrides, ctx.now, END_OF_TIME, include_cancelled=False)]


def _booked_room(ctx: ToolContext, event: Row) -> Row:
    """The room an event has booked (it has one)."""
    room = ctx.sql.one("SELECT * FROM rooms WHERE id = ?", [event["room_id"]], Room)
    assert room is not None, "events.room_id references rooms"
    return room


def _rule(recurrence: RecurrenceIn, zone: ZoneInfo) -> Rule:
    if (recurrence.count is None) == (recurrence.until is None):
        raise InvalidArgumentError("recurrence needs exactly one of count or until")
    if recurrence.by_day and recurrence.freq != "WEEKLY":
        raise InvalidArgumentError("recurrence.by_day is only allowed with freq WEEKLY")
    return Rule(freq=recurrence.freq, interval=recurrence.interval,
                by_day=tuple(sorted(dict.fromkeys(recurrence.by_day or ()), key=WEEKDAYS.index)),
                count=recurrence.count,
                until=_utc(recurrence.until, zone) if recurrence.until is not None else None)


def _check_rule(event: Row) -> None:
    """The event's rule must include its start's weekday and end within 3 years of it."""
    rule = rule_of(event)
    if rule is None:
        return
    zone = ZoneInfo(event["time_zone"])
    weekday = WEEKDAYS[to_local(event["start_at"], zone).weekday()]
    if rule.by_day and weekday not in rule.by_day:
        raise InvalidArgumentError(f"the start falls on {weekday} (in {zone.key}), which is not in by_day "
                                   f"{','.join(rule.by_day)}; start the event on its first occurrence")
    limit = event["start_at"] + timedelta(days=MAX_SERIES_DAYS)
    if rule.until is not None and not event["start_at"] <= rule.until <= limit:
        raise InvalidArgumentError("recurrence.until must be between the start and 3 years after it")
    if rule.count is not None and max(i.start for i in instances(event)) > limit:
        raise InvalidArgumentError("a recurring event must end within 3 years of its start; lower recurrence.count")


def _set_rule(event: Row, rule: Rule | None) -> None:
    event["recur_freq"] = rule.freq if rule else None
    event["recur_interval"] = rule.interval if rule else None
    event["recur_by_day"] = ",".join(rule.by_day) if rule and rule.by_day else None
    event["recur_count"] = rule.count if rule else None
    event["recur_until"] = rule.until if rule else None


def _times(start: datetime, end: datetime, zone: ZoneInfo, all_day: bool) -> tuple[datetime, datetime]:
    """UTC start and end; all-day events run from local midnight to local midnight."""
    if all_day:
        first = start.astimezone(zone).date() if start.tzinfo else start.date()
        last = end.astimezone(zone).date() if end.tzinfo else end.date()
        start_utc, end_utc = _utc(datetime.combine(first, time()), zone), _utc(datetime.combine(last, time()), zone)
    else:
        start_utc, end_utc = _utc(start, zone), _utc(end, zone)
    if end_utc <= start_utc:
        hint = " (all-day end dates are exclusive: a one-day event on 2025-11-20 ends 2025-11-21)" if all_day else ""
        raise InvalidArgumentError(f"end must be after start{hint}")
    return start_utc, end_utc


def _drop_stale_overrides(ctx: ToolContext, event: Row, overrides: Sequence[Row]) -> list[Row]:
    """Delete the overrides whose occurrence the event's rule no longer places; those kept."""
    valid = {i.start for i in instances(event)}
    stale = [o["id"] for o in overrides if o["original_start"] not in valid]
    if stale:
        ctx.sql.execute("DELETE FROM occurrence_overrides WHERE id IN (SELECT value FROM json_each(?))", [stale])
    return [o for o in overrides if o["original_start"] in valid]


# ---------------------------------------------------------------- reads


@tools.tool(examples=[{"kind": "shared"}, {"query": "olson"}])
def list_calendars(
    ctx: ToolContext,
    kind: Annotated[Literal["primary", "shared"] | None, Field(description=(
        "'primary' for employees' own calendars, 'shared' for team calendars."))] = None,
    query: Annotated[str | None, Field(description="Part of the calendar name or the owner's name or email.")] = None,
    page: Page = 1,
    per_page: PerPage = 50,
) -> CalendarPage:
    """List calendars: one primary calendar per employee and the shared team calendars, by id."""
    clauses = ["1"]
    params: list[Any] = []
    if kind:
        clauses.append("calendars.kind = ?")
        params.append(kind)
    if query:
        clauses.append("(lower(calendars.name) LIKE ? ESCAPE '/' OR lower(people.name) LIKE ? ESCAPE '/' "
                       "OR lower(people.email) LIKE ? ESCAPE '/')")
        params += [contains_pattern(query.strip().lower())] * 3
    found = ctx.sql.page(
        "calendars.id, calendars.name, calendars.description, calendars.kind, calendars.time_zone, "
        "people.name AS owner_name, people.email AS owner_email",
        f"FROM calendars JOIN people ON people.id = calendars.owner_id WHERE {' AND '.join(clauses)} "
        "ORDER BY calendars.id", params, page, per_page)
    return CalendarPage(
        calendars=[CalendarOut(**c, owner=PersonRef(name=c["owner_name"], email=c["owner_email"]))
                   for c in found.rows],
        total=found.total, page=page, next_page=found.next_page)


@tools.tool(examples=[{"organization": "montgomery", "per_page": 5}, {"query": "miller", "is_employee": True}])
def search_people(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Part of the name or email (case-insensitive).")] = None,
    organization: Annotated[str | None, Field(description="Part of the organisation's name (case-insensitive).")] = None,
    is_employee: Annotated[bool | None, Field(description="True: only employees; False: only customers.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> PersonPage:
    """Search the directory of employees and customers who can be invited, sorted by name."""
    clauses = ["1"]
    params: list[Any] = []
    if query:
        clauses.append("(lower(people.name) LIKE ? ESCAPE '/' OR lower(people.email) LIKE ? ESCAPE '/')")
        params += [contains_pattern(query.strip().lower())] * 2
    if organization:
        clauses.append("lower(organizations.name) LIKE ? ESCAPE '/'")
        params.append(contains_pattern(organization.strip().lower()))
    if is_employee is not None:
        clauses.append("people.is_employee = ?")
        params.append(is_employee)
    found = ctx.sql.page(PERSON_OUT_COLUMNS, f"{PEOPLE_WITH_ORGANIZATIONS} WHERE {' AND '.join(clauses)} "
                         "ORDER BY people.name, people.id", params, page, per_page, Person)
    return PersonPage(people=[PersonOut(**p) for p in found.rows], total=found.total, page=page,
                      next_page=found.next_page)


@tools.tool(examples=[{"email": "ann.olson@northwindsystems.com"}, {"email": "justin.fitzgerald@montgomeryllc.com"}])
def get_person(
    ctx: ToolContext,
    email: Annotated[Email, Field(description="The person's email address.")],
) -> PersonOut:
    """Look up a person by email: name, organisation, job title, time zone and primary calendar."""
    person = ctx.sql.one(f"SELECT {PERSON_OUT_COLUMNS} {PEOPLE_WITH_ORGANIZATIONS} WHERE people.email = ?",
                         [email.strip().lower()], Person)
    if person is None:
        raise _no_person(email)
    return PersonOut(**person)


@tools.tool(examples=[
    {"calendar_id": 1, "time_min": "2025-11-17T00:00:00Z", "time_max": "2025-11-22T00:00:00Z", "per_page": 10},
    {"query": "Montgomery LLC", "time_min": "2024-09-01T00:00:00Z", "time_max": "2026-01-01T00:00:00Z"},
    {"attendee_email": "ann.olson@northwindsystems.com", "time_min": "2025-11-17T09:00:00",
     "time_max": "2025-11-17T18:00:00", "time_zone": "Asia/Singapore"},
])
def list_events(
    ctx: ToolContext,
    time_min: TimeMinArg = None,
    time_max: TimeMaxArg = None,
    time_zone: TimeZoneArg = None,
    calendar_id: CalendarF = None,
    query: QueryF = None,
    attendee_email: AttendeeF = None,
    organizer_email: OrganizerF = None,
    organization: OrganizationF = None,
    room_id: RoomF = None,
    all_day: AllDayF = None,
    include_cancelled: Annotated[bool, Field(description="Also list cancelled events and occurrences.")] = False,
    page: Page = 1,
    per_page: PerPage = 25,
) -> EventPage:
    """List events overlapping a time range, in start order, with recurring events expanded.

    Each occurrence of a recurring event is its own item with an occurrence_id. Filters combine
    with AND. Returns one page and the total count.
    """
    zone = _zone(time_zone)
    start, end = _range(time_min, time_max, zone, ctx.now)
    where, params = _event_clauses(ctx, calendar_id, query, attendee_email, organizer_email, organization,
                                   room_id, all_day)
    found = _occurrences(ctx, start, end, where, params, include_cancelled)
    offset, limit = page_slice(page, per_page)
    shown = zone if time_zone else None
    return EventPage(events=_summaries(ctx, found[offset:offset + limit], shown),
                     total=len(found), page=page, next_page=next_page(page, per_page, len(found)),
                     time_min=start, time_max=end)


@tools.tool(examples=[{"event_id": 1856}, {"event_id": "48_20251118", "time_zone": "Europe/Berlin"}])
def get_event(ctx: ToolContext, event_id: EventIdArg, time_zone: ShowZoneArg = None) -> EventDetail:
    """Get an event or one occurrence with its description, attendees and their responses, room and rule."""
    zone = _zone(time_zone) if time_zone else None
    event, _, occ = _find(ctx, event_id)
    return _detail(ctx, occ or _whole(event), zone)


@tools.tool(examples=[{"event_id": 48, "time_min": "2025-11-10T00:00:00Z", "time_max": "2025-11-24T00:00:00Z"}])
def list_event_instances(
    ctx: ToolContext,
    event_id: SeriesIdArg,
    time_min: Annotated[datetime | None, Field(description=(
        "Only occurrences ending after this time (ISO 8601; without an offset read in time_zone). "
        "Default: the series' start."))] = None,
    time_max: Annotated[datetime | None, Field(description=(
        "Only occurrences starting before this time (ISO 8601; without an offset read in time_zone). "
        "Default: the series' end."))] = None,
    time_zone: TimeZoneArg = None,
    include_cancelled: Annotated[bool, Field(description="Also list cancelled occurrences.")] = True,
    page: Page = 1,
    per_page: PerPage = 25,
) -> EventPage:
    """List the occurrences of a recurring event with their occurrence ids, moved ones at their new time.

    A single event is returned as its only occurrence.
    """
    zone = _zone(time_zone)
    event = _event(ctx, event_id)
    start = _utc(time_min, zone) if time_min is not None else event["span_start"]
    end = _utc(time_max, zone) if time_max is not None else event["span_end"] + timedelta(seconds=1)
    if end <= start:
        raise InvalidArgumentError("time_max must be later than time_min")
    found = sorted(_expand(event, _overrides(ctx, event), start, end, include_cancelled),
                   key=lambda o: (o.start, o.occurrence_id or ""))
    offset, limit = page_slice(page, per_page)
    shown = zone if time_zone else None
    return EventPage(events=_summaries(ctx, found[offset:offset + limit], shown),
                     total=len(found), page=page, next_page=next_page(page, per_page, len(found)),
                     time_min=start, time_max=end)


def _busy_by_person(ctx: ToolContext, people: list[Row], start: datetime, end: datetime) -> dict[int, list[tuple[datetime, datetime]]]:
    """Merged busy intervals per person: confirmed, 'busy' events they organise or have not declined."""
    ids = [p["id"] for p in people]
    attending = ("attendees.person_id IN (SELECT value FROM json_each(?)) "
                 "AND attendees.response_status != 'declined'")
    found = _occurrences(ctx, start, end, "events.show_as = 'busy' AND events.id IN "
                         f"(SELECT attendees.event_id FROM attendees WHERE {attending})", [ids])
    attendees: defaultdict[int, list[int]] = defaultdict(list)
    if found:
        for row in ctx.sql.all("SELECT attendees.event_id, attendees.person_id FROM attendees "
                               f"WHERE attendees.event_id IN (SELECT value FROM json_each(?)) AND {attending}",
                               [list(dict.fromkeys(o.event["id"] for o in found)), ids]):
            attendees[row["event_id"]].append(row["person_id"])
    busy: dict[int, list[tuple[datetime, datetime]]] = {pid: [] for pid in ids}
    for o in found:
        for person_id in attendees[o.event["id"]]:
            busy[person_id].append((max(o.start, start), min(o.end, end)))
    return {pid: _merge(spans) for pid, spans in busy.items()}


@tools.tool(examples=[
    {"emails": ["ann.olson@northwindsystems.com", "mary.cherry@northwindsystems.com"],
     "time_min": "2025-11-17T00:00:00Z", "time_max": "2025-11-22T00:00:00Z", "time_zone": "Europe/Berlin"},
])
def get_free_busy(
    ctx: ToolContext,
    emails: Annotated[list[Email], Field(min_length=1, max_length=50, description="People to check, by email.")],
    time_min: TimeMinArg = None,
    time_max: TimeMaxArg = None,
    time_zone: UtcZoneArg = None,
) -> FreeBusy:
    """When each person is busy in a range (at most 92 days): merged intervals and total busy minutes.

    Busy means a confirmed event shown as busy that they organise or are invited to and have not declined.
    """
    zone = _zone(time_zone)
    start, end = _range(time_min, time_max, zone, ctx.now, MAX_RANGE_DAYS)
    people = _people(ctx, emails)
    busy = _busy_by_person(ctx, people, start, end)
    out = [PersonBusy(email=p["email"], name=p["name"],
                      busy=[Interval(start=s, end=e, start_local=_local(s, zone), end_local=_local(e, zone))
                            for s, e in busy[p["id"]]],
                      busy_minutes=sum(_minutes(s, e) for s, e in busy[p["id"]])) for p in people]
    return FreeBusy(time_min=start, time_max=end, time_zone=zone.key, people=out)


def _clock(text: str) -> time:
    hours, minutes = text.split(":")
    return time(int(hours), int(minutes))


def _candidate_starts(start: datetime, end: datetime, zone: ZoneInfo, day_start: time, day_end: time,
                      minutes: int, step: int, weekends: bool) -> list[datetime]:
    """Slot starts (UTC) on the local working-hours grid of each day, within `[start, end)`."""
    found = []
    day = to_local(start, zone).date()
    while to_utc(datetime.combine(day, time()), zone) < end:
        if weekends or day.weekday() < 5:
            wall = datetime.combine(day, day_start)
            close = datetime.combine(day, day_end)
            while wall + timedelta(minutes=minutes) <= close:
                begin = to_utc(wall, zone)
                if begin >= start and begin + timedelta(minutes=minutes) <= end:
                    found.append(begin)
                wall += timedelta(minutes=step)
        day += timedelta(days=1)
    return found


@tools.tool(examples=[
    {"attendee_emails": ["ann.olson@northwindsystems.com", "david.wilson@northwindsystems.com"],
     "duration_minutes": 45, "time_zone": "Europe/London", "need_room": True, "max_results": 5},
])
def find_meeting_slots(
    ctx: ToolContext,
    attendee_emails: Annotated[list[Email], Field(min_length=1, max_length=20, description="Everyone who must attend.")],
    duration_minutes: Annotated[int, Field(ge=5, le=480, description="Length of the meeting in minutes.")],
    time_min: TimeMinArg = None,
    time_max: TimeMaxArg = None,
    time_zone: Annotated[str, Field(description=(
        "IANA time zone of the working hours, e.g. 'Europe/Berlin'; input times without an offset "
        "are read in it too."))] = "UTC",
    working_hours_start: Annotated[ClockTime, Field(description="Local start of the working day, HH:MM.")] = "09:00",
    working_hours_end: Annotated[ClockTime, Field(description="Local end of the working day, HH:MM.")] = "17:00",
    include_weekends: Annotated[bool, Field(description="Also suggest Saturdays and Sundays.")] = False,
    granularity_minutes: Annotated[Literal[15, 30, 60], Field(description="Slots start on this local grid.")] = 30,
    need_room: Annotated[bool, Field(description="Only slots with a free room that holds every attendee.")] = False,
    max_results: Annotated[int, Field(ge=1, le=50, description="Most slots to return.")] = 10,
) -> SlotList:
    """Find times when all the given people are free for a meeting of a given length.

    Slots lie within the working hours of time_zone on the local grid, from the later of time_min
    and now up to time_max (at most 31 days), earliest first.
    """
    zone = _zone(time_zone)
    start, end = _range(time_min, time_max, zone, ctx.now, MAX_SLOT_RANGE_DAYS)
    day_start, day_end = _clock(working_hours_start), _clock(working_hours_end)
    if day_end <= day_start:
        raise InvalidArgumentError("working_hours_end must be later than working_hours_start")
    if end <= ctx.now:
        raise InvalidArgumentError(f"the range ends before now ({ctx.now:%Y-%m-%dT%H:%M:%SZ}); "
                                   "slots are only suggested in the future")
    start = max(start, ctx.now)
    people = _people(ctx, attendee_emails)
    busy = _merge([span for spans in _busy_by_person(ctx, people, start, end).values() for span in spans])
    rooms = _rooms_with_bookings(ctx, start, end, len(people)) if need_room else []
    length = timedelta(minutes=duration_minutes)
    slots: list[Slot] = []
    for begin in _candidate_starts(start, end, zone, day_start, day_end, duration_minutes,
                                   granularity_minutes, include_weekends):
        if _overlaps(busy, begin, begin + length):
            continue
        free_rooms = [r for r, taken in rooms if not _overlaps(taken, begin, begin + length)]
        if need_room and not free_rooms:
            continue
        slots.append(Slot(start=begin, end=begin + length, start_local=_local(begin, zone),
                          end_local=_local(begin + length, zone), rooms=[_room_out(r) for r in free_rooms[:3]]))
        if len(slots) == max_results:
            break
    return SlotList(slots=slots, time_zone=zone.key, searched_from=start, searched_until=end)


def _rooms_with_bookings(ctx: ToolContext, start: datetime, end: datetime, size: int) -> list[tuple[Row, list[tuple[datetime, datetime]]]]:
    """Rooms holding `size` people, smallest first, with their merged bookings in the range."""
    rooms = ctx.sql.all("SELECT * FROM rooms WHERE capacity >= ? ORDER BY capacity, id", [size], Room)
    taken: dict[int, list[tuple[datetime, datetime]]] = {r["id"]: [] for r in rooms}
    for o in _occurrences(ctx, start, end, "events.room_id IN (SELECT value FROM json_each(?))", [list(taken)]):
        taken[o.event["room_id"] or 0].append((o.start, o.end))
    return [(r, _merge(taken[r["id"]])) for r in rooms]


@tools.tool(examples=[
    {"min_capacity": 8},
    {"available_from": "2025-11-18T07:00:00Z", "available_until": "2025-11-18T08:00:00Z", "min_capacity": 5},
])
def list_rooms(
    ctx: ToolContext,
    building: Annotated[str | None, Field(description="Only rooms in this building (e.g. 'HQ', 'Annex').")] = None,
    min_capacity: Annotated[int | None, Field(ge=1, description="Only rooms holding at least this many people.")] = None,
    has_video: Annotated[bool | None, Field(description="True: only rooms with video conferencing.")] = None,
    available_from: Annotated[datetime | None, Field(description=(
        "With available_until: only rooms with no booking in this range (ISO 8601; without an "
        "offset read in time_zone)."))] = None,
    available_until: Annotated[datetime | None, Field(description="End of the range that must be free.")] = None,
    time_zone: UtcZoneArg = None,
) -> RoomList:
    """List meeting rooms (smallest first) with capacity, building and video; optionally only free ones."""
    if (available_from is None) != (available_until is None):
        raise InvalidArgumentError("give both available_from and available_until, or neither")
    clauses = ["1"]
    params: list[Any] = []
    if building:
        clauses.append("lower(building) = ?")
        params.append(building.strip().lower())
    if min_capacity is not None:
        clauses.append("capacity >= ?")
        params.append(min_capacity)
    if has_video is not None:
        clauses.append("has_video = ?")
        params.append(has_video)
    rooms = ctx.sql.all(f"SELECT * FROM rooms WHERE {' AND '.join(clauses)} ORDER BY capacity, id", params, Room)
    if available_from is not None and available_until is not None:
        start, end = _range(available_from, available_until, _zone(time_zone), ctx.now)
        booked = {o.event["room_id"] for o in _occurrences(ctx, start, end, "events.room_id IS NOT NULL")}
        rooms = [r for r in rooms if r["id"] not in booked]
    return RoomList(rooms=[_room_out(r) for r in rooms])


@tools.tool(examples=[{"room_id": 4, "time_min": "2025-11-17T00:00:00Z", "time_max": "2025-11-22T00:00:00Z"}])
def get_room_availability(
    ctx: ToolContext,
    room_id: Annotated[int, Field(description="The room's id (see list_rooms).")],
    time_min: TimeMinArg = None,
    time_max: TimeMaxArg = None,
    time_zone: TimeZoneArg = None,
) -> RoomAvailability:
    """A room's bookings in a range (at most 92 days), whether it is entirely free, and minutes booked."""
    room = _room(ctx, room_id)
    zone = _zone(time_zone)
    start, end = _range(time_min, time_max, zone, ctx.now, MAX_RANGE_DAYS)
    found = _occurrences(ctx, start, end, "events.room_id = ?", [room_id])
    extras = _extras(ctx, [o.event for o in found])
    bookings = []
    for o in found:
        shown = zone if time_zone else ZoneInfo(o.event["time_zone"])
        extra = extras[o.event["id"]]
        bookings.append(Booking(event_id=o.event["id"], occurrence_id=o.occurrence_id, title=o.event["title"],
                                start=o.start, end=o.end, start_local=_local(o.start, shown),
                                end_local=_local(o.end, shown),
                                organizer=PersonRef(name=extra["organizer_name"], email=extra["organizer_email"])))
    busy = _merge([(max(o.start, start), min(o.end, end)) for o in found])
    return RoomAvailability(room=_room_out(room), time_min=start, time_max=end, free=not found,
                            busy_minutes=sum(_minutes(s, e) for s, e in busy), bookings=bookings)


def _group_labels(ctx: ToolContext, group_by: str, found: list[Occurrence]) -> dict[int, list[tuple[str, str]]]:
    """Per event id, the (key, label) pairs its occurrences count under, for the groupings that
    name calendars, organisers or organisations; each read in one statement over the events of
    `found`."""
    if group_by == "calendar":
        ids = list({o.event["calendar_id"] for o in found})
        names = {row["id"]: row["name"] for row in ctx.sql.all(
            "SELECT id, name FROM calendars WHERE id IN (SELECT value FROM json_each(?))", [ids])}
        return {o.event["id"]: [(str(o.event["calendar_id"]), names[o.event["calendar_id"]])] for o in found}
    if group_by == "organizer":
        ids = list({o.event["organizer_id"] for o in found})
        people = {row["id"]: (row["email"], row["name"]) for row in ctx.sql.all(
            "SELECT id, email, name FROM people WHERE id IN (SELECT value FROM json_each(?))", [ids])}
        return {o.event["id"]: [people[o.event["organizer_id"]]] for o in found}
    orgs: dict[int, set[str]] = {}
    for row in ctx.sql.all(
            "SELECT DISTINCT attendees.event_id, organizations.name FROM attendees "
            "JOIN people ON people.id = attendees.person_id JOIN organizations ON organizations.id = people.organization_id "
            "WHERE people.is_employee = 0 AND attendees.event_id IN (SELECT value FROM json_each(?))",
            [list({o.event["id"] for o in found})]):
        orgs.setdefault(row["event_id"], set()).add(row["name"])
    return {o.event["id"]: [(name, name) for name in sorted(orgs.get(o.event["id"], ()))] or [("internal", "internal")]
            for o in found}


def _group_keys(occ: Occurrence, group_by: str, zone: ZoneInfo | None,
                labels: dict[int, list[tuple[str, str]]]) -> list[tuple[str, str]]:
    """The (key, label) pairs an occurrence counts under."""
    if group_by == "month":
        return [(to_local(occ.start, zone or ZoneInfo(occ.event["time_zone"])).strftime("%Y-%m"),) * 2]
    if group_by == "week":
        year, week, _ = to_local(occ.start, zone or ZoneInfo(occ.event["time_zone"])).isocalendar()
        return [(f"{year}-W{week:02d}",) * 2]
    return labels[occ.event["id"]]


@tools.tool(examples=[
    {"time_min": "2024-11-01T00:00:00Z", "time_max": "2025-11-01T00:00:00Z", "group_by": "month",
     "attendee_email": "ann.olson@northwindsystems.com"},
    {"time_min": "2025-01-01T00:00:00Z", "time_max": "2025-07-01T00:00:00Z", "group_by": "organization",
     "organizer_email": "kristina.klein@northwindsystems.com"},
])
def meeting_stats(
    ctx: ToolContext,
    time_min: Annotated[datetime, Field(description="Start of the range (inclusive), ISO 8601; without an offset read in time_zone.")],
    time_max: Annotated[datetime, Field(description="End of the range (exclusive), ISO 8601.")],
    group_by: Annotated[Literal["month", "week", "calendar", "organizer", "organization"] | None, Field(description=(
        "Break down by local start month (YYYY-MM) or ISO week (YYYY-Www), calendar, organiser, "
        "or customer organisation of the attendees ('internal' when none; an event with two "
        "customers' attendees counts under both)."))] = None,
    time_zone: TimeZoneArg = None,
    calendar_id: CalendarF = None,
    query: QueryF = None,
    attendee_email: AttendeeF = None,
    organizer_email: OrganizerF = None,
    organization: OrganizationF = None,
    room_id: RoomF = None,
    all_day: AllDayF = None,
) -> MeetingStats:
    """Count confirmed events and occurrences in a range (same filters as list_events) and their minutes.

    Counts exactly what list_events returns for the same arguments (cancelled excluded).
    """
    zone = _zone(time_zone)
    start, end = _range(time_min, time_max, zone, ctx.now)
    where, params = _event_clauses(ctx, calendar_id, query, attendee_email, organizer_email, organization,
                                   room_id, all_day)
    found = _occurrences(ctx, start, end, where, params)
    labels: dict[int, list[tuple[str, str]]] = {}
    if group_by in ("calendar", "organizer", "organization") and found:
        labels = _group_labels(ctx, group_by, found)
    events: Counter[tuple[str, str]] = Counter()
    minutes: Counter[tuple[str, str]] = Counter()
    for o in found if group_by else ():
        for key in _group_keys(o, group_by, zone if time_zone else None, labels):
            events[key] += 1
            minutes[key] += _minutes(o.start, o.end)
    chronological = group_by in ("month", "week")
    order = sorted(events, key=lambda k: k if chronological else (-events[k], k))
    return MeetingStats(
        time_min=start, time_max=end, total_events=len(found),
        total_minutes=sum(_minutes(o.start, o.end) for o in found), group_by=group_by,
        groups=[StatGroup(key=k[0], label=k[1], events=events[k], minutes=minutes[k]) for k in order])


# ---------------------------------------------------------------- writes


@tools.tool(writes=True, destructive=False, idempotent=False, title="Create a calendar event", examples=[
    {"calendar_id": 1, "title": "Montgomery LLC: Contract review", "start": "2025-11-21T10:00:00",
     "end": "2025-11-21T11:00:00", "attendee_emails": ["kathleen.rodriguez@montgomeryllc.com"], "room_id": 2},
    {"calendar_id": 5, "title": "Weekly sync", "start": "2025-12-01T09:00:00", "end": "2025-12-01T09:30:00",
     "time_zone": "Europe/Berlin", "attendee_emails": ["mary.cherry@northwindsystems.com"],
     "recurrence": {"freq": "WEEKLY", "by_day": ["MO", "WE"], "count": 8}},
])
def create_event(
    ctx: ToolContext,
    calendar_id: Annotated[int, Field(description="Calendar to put the event on (see list_calendars).")],
    title: Annotated[str, Field(min_length=1, max_length=200, description="The event's title.")],
    start: Annotated[datetime, Field(description=(
        "Start, ISO 8601 (e.g. '2025-11-20T10:00:00' read in time_zone, or with an offset). "
        "All-day events: the first day, 'YYYY-MM-DD'."))],
    end: Annotated[datetime, Field(description=(
        "End, ISO 8601, after start. All-day events: the day after the last day (exclusive)."))],
    time_zone: Annotated[str | None, Field(description=(
        "The event's IANA time zone, e.g. 'Europe/Berlin': start/end without an offset are read in "
        "it and recurrences follow its local time. Default: the calendar's time zone."))] = None,
    all_day: Annotated[bool, Field(description="An all-day event from local midnight to local midnight.")] = False,
    description: Annotated[str, Field(max_length=4000, description="Agenda or notes.")] = "",
    location: Annotated[str | None, Field(max_length=200, description="Where it happens; default the room's name.")] = None,
    attendee_emails: Annotated[list[Email], Field(max_length=100, description=(
        "People to invite (employees or customers), by email; they start with response needsAction."))] = [],
    optional_attendee_emails: Annotated[list[Email], Field(max_length=100, description="People invited as optional.")] = [],
    room_id: Annotated[int | None, Field(description=(
        "Room to book (see list_rooms); it must hold everyone invited and be free at every future occurrence."))] = None,
    recurrence: Annotated[RecurrenceIn | None, Field(description="Repeat rule for a recurring event.")] = None,
    organizer_email: Annotated[Email | None, Field(description=(
        "Organising employee. Default: the calendar's owner."))] = None,
    show_as: Annotated[Literal["busy", "free"], Field(description="Whether it blocks free/busy time.")] = "busy",
) -> EventDetail:
    """Create an event, optionally recurring, with attendees and a room; the organiser is an attendee who accepted."""
    calendar = _calendar(ctx, calendar_id)
    zone = _zone(time_zone, calendar["time_zone"])
    start_utc, end_utc = _times(start, end, zone, all_day)
    if organizer_email:
        organizer = _person(ctx, organizer_email)
    else:
        organizer = ctx.sql.one(f"SELECT {PERSON_COLUMNS} FROM people WHERE id = ?", [calendar["owner_id"]], Person)
        assert organizer is not None, "calendars.owner_id references people"
    if not organizer["is_employee"]:
        raise ForbiddenError(f"{organizer['email']} is not a Northwind Systems employee; only employees organise events")
    event: Row = {
        "id": None, "calendar_id": calendar["id"], "title": title, "description": description, "location": location,
        "start_at": start_utc, "end_at": end_utc, "time_zone": zone.key, "all_day": all_day, "show_as": show_as,
        "status": "confirmed", "organizer_id": organizer["id"], "room_id": None, "span_start": start_utc,
        "span_end": end_utc, "created_at": ctx.now, "updated_at": ctx.now,
    }
    _set_rule(event, _rule(recurrence, zone) if recurrence is not None else None)
    _check_rule(event)
    refresh_span(event, ())
    invited = {organizer["id"]: {"person_id": organizer["id"], "response_status": "accepted", "optional": False,
                                 "organizer": True, "comment": None, "responded_at": ctx.now}}
    for emails, optional in ((attendee_emails, False), (optional_attendee_emails, True)):
        for person in _people(ctx, emails):
            invited.setdefault(person["id"], _invitation(person["id"], optional))
    if room_id is not None:
        room = _room(ctx, room_id)
        if event["span_end"] <= ctx.now:
            raise ForbiddenError("rooms can only be booked for events that have not yet ended")
        _check_capacity(room, len(invited))
        _check_room_free(ctx, room, _future_spans(ctx, event, ()), None)
        event["room_id"], event["location"] = room["id"], location or room["name"]
    stored = _insert_event(ctx, event)
    _insert_attendees(ctx, stored["id"], list(invited.values()))
    return _detail(ctx, _whole(stored))


def _moved(start: datetime | None, end: datetime | None, old_start: datetime, old_end: datetime,
           zone: ZoneInfo) -> tuple[datetime, datetime]:
    """New UTC start and end; a new start alone keeps the duration."""
    new_start = _utc(start, zone) if start is not None else old_start
    if end is not None:
        new_end = _utc(end, zone)
    elif start is not None:
        new_end = new_start + (old_end - old_start)
    else:
        new_end = old_end
    if new_end <= new_start:
        raise InvalidArgumentError("end must be after start")
    return new_start, new_end


def _override(ctx: ToolContext, event: Row, overrides: Sequence[Row], occ: Occurrence, start: datetime,
              end: datetime, status: str) -> Occurrence:
    """Record that one occurrence moved or was cancelled, and set the event row's new span and
    update time (the caller saves it); the occurrence as it now is."""
    original = occ.original_start or occ.start
    kept = [o for o in overrides if o["original_start"] != original]
    before = next((o for o in overrides if o["original_start"] == original), None)
    after = {"event_id": event["id"], "original_start": original, "start_at": start, "end_at": end,
             "status": status, "updated_at": ctx.now}
    if before is None:
        ctx.sql.execute(f"INSERT INTO occurrence_overrides (event_id, {', '.join(OVERRIDE_FIELDS)}) "
                        f"VALUES (?, {', '.join('?' * len(OVERRIDE_FIELDS))})",
                        [event["id"], *(after[f] for f in OVERRIDE_FIELDS)])
    else:
        ctx.sql.update_row(OccurrenceOverride, before, {**before, **after})
    event["updated_at"] = ctx.now
    refresh_span(event, [*kept, after])
    return Occurrence(event, occ.occurrence_id, start, end, status, original)


def _end_series_before(ctx: ToolContext, event: Row, overrides: Sequence[Row], original: datetime) -> list[Row]:
    """Stop a series just before the occurrence that originally started at `original`: set the
    event row's rule and span (the caller saves it) and delete the overrides past its new end;
    the overrides kept."""
    rule = rule_of(event)
    if rule is not None:
        _set_rule(event, Rule(freq=rule.freq, interval=rule.interval, by_day=rule.by_day, count=None,
                              until=original - timedelta(seconds=1)))
    kept = _drop_stale_overrides(ctx, event, overrides)
    refresh_span(event, kept)
    return kept


def _split(ctx: ToolContext, event: Row, overrides: Sequence[Row], occ: Occurrence) -> tuple[Row, list[Row]]:
    """Split a series at an occurrence: the old series ends before it, a new one starts there
    with copies of its attendees and of the overrides from there on. The series that continues,
    as stored, and its overrides (the event itself when the occurrence is its first)."""
    original = occ.original_start or occ.start
    earlier = list(instances(event, stop=original))
    rule = rule_of(event)
    if rule is None or not earlier:
        return event, list(overrides)
    first = next(i for i in instances(event) if i.start == original)
    new = {**{f: event[f] for f in EVENT_FIELDS}, "start_at": first.start, "end_at": first.end,
           "span_start": first.start, "span_end": first.end, "created_at": ctx.now, "updated_at": ctx.now}
    _set_rule(new, Rule(freq=rule.freq, interval=rule.interval, by_day=rule.by_day,
                        count=rule.count - len(earlier) if rule.count is not None else None, until=rule.until))
    copied = [o for o in overrides if o["original_start"] >= original]
    refresh_span(new, copied)
    stored = _insert_event(ctx, new)
    attendee_fields = ", ".join(ATTENDEE_FIELDS)
    ctx.sql.execute(f"INSERT INTO attendees (event_id, {attendee_fields}) SELECT ?, {attendee_fields} "
                    "FROM attendees WHERE event_id = ? ORDER BY id", [stored["id"], event["id"]])
    if copied:
        override_fields = ", ".join(OVERRIDE_FIELDS)
        ctx.sql.execute(f"INSERT INTO occurrence_overrides (event_id, {override_fields}) SELECT ?, {override_fields} "
                        "FROM occurrence_overrides WHERE event_id = ? AND original_start >= ? ORDER BY original_start",
                        [stored["id"], event["id"], original])
    ended = dict(event)
    _end_series_before(ctx, ended, overrides, original)
    ended["updated_at"] = ctx.now
    ctx.sql.update_row(Event, event, ended)
    return stored, _overrides(ctx, stored) if copied else []


@tools.tool(writes=True, destructive=True, idempotent=True, title="Update a calendar event", examples=[
    {"event_id": 1856, "title": "Montgomery LLC: Onboarding kickoff (agenda attached)"},
    {"event_id": "48_20251118", "start": "2025-11-18T11:00:00Z"},
    {"event_id": "48_20251124", "start": "2025-11-24T10:00:00Z", "following": True},
])
def update_event(
    ctx: ToolContext,
    event_id: EventIdArg,
    title: Annotated[str | None, Field(min_length=1, max_length=200, description="New title.")] = None,
    description: Annotated[str | None, Field(max_length=4000, description="New description.")] = None,
    location: Annotated[str | None, Field(max_length=200, description="New location.")] = None,
    start: Annotated[datetime | None, Field(description=(
        "New start, ISO 8601; without an offset read in time_zone. Given alone, the duration is kept."))] = None,
    end: Annotated[datetime | None, Field(description="New end, ISO 8601; must be after the start.")] = None,
    time_zone: Annotated[str | None, Field(description=(
        "New IANA time zone of the event (not for a single occurrence); start/end without an offset "
        "are read in it. Default: the event's current zone."))] = None,
    show_as: Annotated[Literal["busy", "free"] | None, Field(description="Whether it blocks free/busy time.")] = None,
    recurrence: Annotated[RecurrenceIn | None, Field(description=(
        "New repeat rule, replacing the old one (not for a single occurrence)."))] = None,
    following: Annotated[bool, Field(description=(
        "With an occurrence id: apply the change to this and every later occurrence. The series is "
        "split: it ends before this occurrence and a new series (new event id) continues from it."))] = False,
) -> EventDetail:
    """Change an event's fields (only those given); with an occurrence id, move just that occurrence.

    A single occurrence can only move (start/end). To change a series from some occurrence on, give
    that occurrence id with following=true. A series whose first occurrence has begun cannot get new
    start/end on its event id (that would rewrite its history). Moved or cancelled occurrences are
    kept only where the new rule still places an occurrence. Cancelled and past events cannot
    change; a booked room must be free at the new times.
    """
    stored, overrides, occ = _find(ctx, event_id)
    fields = {"title": title, "description": description, "location": location, "time_zone": time_zone,
              "show_as": show_as, "recurrence": recurrence}
    if start is None and end is None and all(v is None for v in fields.values()):
        raise InvalidArgumentError("give at least one field to change")
    if following and occ is None:
        raise InvalidArgumentError("following=true needs an occurrence id such as '1042_20251114'")
    _ensure_open(ctx, stored, occ)
    zone = _zone(time_zone, stored["time_zone"])
    if occ is not None and not following:
        extra = sorted(k for k, v in fields.items() if v is not None)
        if extra:
            raise InvalidArgumentError(
                f"only start and end can change for one occurrence ({', '.join(extra)} given); to change "
                f"the whole series use event_id {stored['id']}, or from this occurrence on use following=true")
        new_start, new_end = _moved(start, end, occ.start, occ.end, zone)
        if stored["room_id"] is not None:
            _check_room_free(ctx, _booked_room(ctx, stored), [(new_start, new_end)], stored["id"])
        event = dict(stored)
        moved = _override(ctx, event, overrides, occ, new_start, new_end, "confirmed")
        ctx.sql.update_row(Event, stored, event)
        return _detail(ctx, moved)
    if occ is not None:
        stored, overrides = _split(ctx, stored, overrides, occ)
    event = dict(stored)
    retimed = start is not None or end is not None or time_zone is not None
    if retimed and event["all_day"]:
        raise InvalidArgumentError("the dates of an all-day event cannot change; cancel it and create a new one")
    if retimed and event["recur_freq"] is not None and event["start_at"] < ctx.now:
        raise ForbiddenError(
            f"recurring event {event['id']} began on {event['start_at']:%Y-%m-%d}; changing its times would rewrite "
            "past occurrences. Give the occurrence id of the first occurrence to change, with following=true")
    for name in ("title", "description", "location", "show_as"):
        if fields[name] is not None:
            event[name] = fields[name]
    event["time_zone"] = zone.key
    event["start_at"], event["end_at"] = _moved(start, end, event["start_at"], event["end_at"], zone)
    if recurrence is not None:
        _set_rule(event, _rule(recurrence, zone))
    _check_rule(event)
    overrides = _drop_stale_overrides(ctx, event, overrides)
    refresh_span(event, overrides)
    event["updated_at"] = ctx.now
    if event["room_id"] is not None and (retimed or recurrence is not None):
        _check_room_free(ctx, _booked_room(ctx, event), _future_spans(ctx, event, overrides), event["id"])
    ctx.sql.update_row(Event, stored, event)
    return _detail(ctx, _whole(event))


@tools.tool(writes=True, destructive=True, idempotent=True, title="Cancel a calendar event", examples=[
    {"event_id": 1813}, {"event_id": "33_20251118"}, {"event_id": "48_20251201", "following": True},
])
def cancel_event(
    ctx: ToolContext,
    event_id: EventIdArg,
    following: Annotated[bool, Field(description=(
        "With an occurrence id: cancel this and every later occurrence by ending the series before it."))] = False,
) -> EventDetail:
    """Cancel an event, a whole recurring series (event id), or one occurrence (occurrence id).

    Cancelled events stay visible with status 'cancelled' and free their room and attendees' time.
    Cancelling a series cancels its past occurrences too; to stop a series from some occurrence on
    and keep its history, give that occurrence id with following=true. Events already cancelled or
    already over cannot be cancelled.
    """
    stored, overrides, occ = _find(ctx, event_id)
    if following and occ is None:
        raise InvalidArgumentError("following=true needs an occurrence id such as '1042_20251114'")
    _ensure_open(ctx, stored, occ)
    event = {**stored, "updated_at": ctx.now}
    original = (occ.original_start or occ.start) if occ is not None else event["start_at"]
    if occ is None or (following and next(instances(event, stop=original), None) is None):
        event["status"] = "cancelled"
        result = _whole(event)
    elif following:
        _end_series_before(ctx, event, overrides, original)
        result = _whole(event)
    else:
        result = _override(ctx, event, overrides, occ, occ.start, occ.end, "cancelled")
    ctx.sql.update_row(Event, stored, event)
    return _detail(ctx, result)


@tools.tool(writes=True, destructive=False, idempotent=True, title="Invite attendees to an event", examples=[{"event_id": 1801, "emails": ["ann.olson@northwindsystems.com"], "optional": True}])
def add_attendees(
    ctx: ToolContext,
    event_id: SeriesIdArg,
    emails: Annotated[list[Email], Field(min_length=1, max_length=100, description="People to invite, by email.")],
    optional: Annotated[bool, Field(description="Invite them as optional attendees.")] = False,
) -> EventDetail:
    """Invite people (employees or customers) to an event or a whole series; they start as needsAction.

    People already invited are left as they are. A booked room must hold everyone invited.
    """
    stored = _event(ctx, event_id)
    _ensure_open(ctx, stored)
    have = set(ctx.sql.column("SELECT person_id FROM attendees WHERE event_id = ?", [stored["id"]]))
    new = [p for p in _people(ctx, emails) if p["id"] not in have]
    if stored["room_id"] is not None:
        _check_capacity(_booked_room(ctx, stored), len(have) + len(new))
    _insert_attendees(ctx, stored["id"], [_invitation(person["id"], optional) for person in new])
    event = {**stored, "updated_at": ctx.now}
    ctx.sql.update_row(Event, stored, event)
    return _detail(ctx, _whole(event))


def _attendee(ctx: ToolContext, event: Row, email: str) -> tuple[Row, Row]:
    """The invited person with `email` and their attendee row on `event`."""
    person = _person(ctx, email)
    attendee = ctx.sql.one("SELECT * FROM attendees WHERE event_id = ? AND person_id = ?",
                           [event["id"], person["id"]], Attendee)
    if attendee is None:
        raise ForbiddenError(f"{person['email']} is not invited to event {event['id']}; use get_event to see its "
                             "attendees, or add_attendees to invite them")
    return person, attendee


@tools.tool(writes=True, destructive=True, idempotent=True, title="Remove an attendee from an event", examples=[{"event_id": 1856, "email": "justin.fitzgerald@montgomeryllc.com"}])
def remove_attendee(
    ctx: ToolContext,
    event_id: SeriesIdArg,
    email: Annotated[Email, Field(description="Email of the attendee to remove.")],
) -> EventDetail:
    """Uninvite one attendee from an event or a whole series. The organiser cannot be removed."""
    stored = _event(ctx, event_id)
    _ensure_open(ctx, stored)
    person, attendee = _attendee(ctx, stored, email)
    if attendee["organizer"]:
        raise ForbiddenError(f"{person['email']} organises event {stored['id']} and cannot be removed; "
                             "cancel the event instead")
    ctx.sql.execute("DELETE FROM attendees WHERE id = ?", [attendee["id"]])
    event = {**stored, "updated_at": ctx.now}
    ctx.sql.update_row(Event, stored, event)
    return _detail(ctx, _whole(event))


@tools.tool(writes=True, destructive=True, idempotent=True, title="Respond to an invitation", examples=[
    {"event_id": 1800, "attendee_email": "leroy.whitehead@andersonsmithandhe.com", "response": "accepted",
     "comment": "Looking forward to it"},
])
def respond_to_event(
    ctx: ToolContext,
    event_id: SeriesIdArg,
    attendee_email: Annotated[Email, Field(description="Email of the invited attendee who responds.")],
    response: Annotated[Response, Field(description="accepted, declined or tentative.")],
    comment: Annotated[str | None, Field(max_length=500, description="Optional note to the organiser.")] = None,
) -> EventDetail:
    """Answer an invitation on behalf of an invited attendee; for a series it answers every occurrence."""
    event = _event(ctx, event_id)
    _ensure_open(ctx, event)
    person, attendee = _attendee(ctx, event, attendee_email)
    if attendee["organizer"]:
        raise ForbiddenError(f"{person['email']} organises event {event['id']} and always attends; "
                             "cancel the event instead of declining it")
    ctx.sql.update_row(Attendee, attendee,
          {**attendee, "response_status": response, "comment": comment, "responded_at": ctx.now})
    return _detail(ctx, _whole(event))


@tools.tool(writes=True, destructive=True, idempotent=True, title="Book a room for an event", examples=[{"event_id": 1856, "room_id": 4}])
def book_room(
    ctx: ToolContext,
    event_id: SeriesIdArg,
    room_id: Annotated[int, Field(description="The room to book (see list_rooms).")],
) -> EventDetail:
    """Book a room for an event or every future occurrence of a series, replacing any room it had.

    The room must hold everyone invited and be free at every future occurrence.
    """
    stored = _event(ctx, event_id)
    room = _room(ctx, room_id)
    _ensure_open(ctx, stored)
    if stored["room_id"] == room["id"]:
        raise InvalidArgumentError(f"event {stored['id']} already has room {room['id']} ({room['name']})")
    _check_capacity(room, ctx.sql.scalar("SELECT count(*) FROM attendees WHERE event_id = ?", [stored["id"]]))
    _check_room_free(ctx, room, _future_spans(ctx, stored, _overrides(ctx, stored)), stored["id"])
    old = _booked_room(ctx, stored) if stored["room_id"] is not None else None
    event = {**stored, "room_id": room["id"], "updated_at": ctx.now}
    location = stored["location"]
    if location is None or (old is not None and location == old["name"]) or location == "Video call":
        event["location"] = room["name"]
    ctx.sql.update_row(Event, stored, event)
    return _detail(ctx, _whole(event))


@tools.tool(writes=True, destructive=True, idempotent=True, title="Release an event's room", examples=[{"event_id": 1855}])
def release_room(ctx: ToolContext, event_id: SeriesIdArg) -> EventDetail:
    """Give up the room booked for an event or series; the event itself stays."""
    stored = _event(ctx, event_id)
    _ensure_open(ctx, stored)
    if stored["room_id"] is None:
        raise InvalidArgumentError(f"event {stored['id']} has no room booked")
    room = _booked_room(ctx, stored)
    event = {**stored, "room_id": None, "updated_at": ctx.now}
    if stored["location"] == room["name"]:
        event["location"] = None
    ctx.sql.update_row(Event, stored, event)
    return _detail(ctx, _whole(event))
