"""The calendar tools: read, schedule and manage events, attendees and rooms, as an assistant does."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Annotated, Literal, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import ColumnElement, func, or_, select
from sqlalchemy.orm import lazyload

from mcpgym.servers.calendar.models import (
    Attendee,
    Calendar,
    Event,
    OccurrenceOverride,
    Organization,
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
from mcpgym.servers.kernel.lookup import get_or_raise
from mcpgym.servers.kernel.query import contains_text, fetch_page, search_words
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry

tools = ToolRegistry()
T = TypeVar("T")

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
    """An event or one occurrence of a series, at its actual time."""

    event: Event
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


def _expand(event: Event, start: datetime, end: datetime, include_cancelled: bool) -> list[Occurrence]:
    """The event's occurrences overlapping `[start, end)`, overrides applied."""
    if event.recur_freq is None:
        found = event.start_at < end and event.end_at > start
        if not found or (event.status == "cancelled" and not include_cancelled):
            return []
        return [Occurrence(event, None, event.start_at, event.end_at, event.status, None)]
    zone = ZoneInfo(event.time_zone)
    overrides = {o.original_start: o for o in event.overrides}
    found_list: list[Occurrence] = []
    for inst in instances(event, stop=end, after=start):
        if inst.end > start and inst.start not in overrides:
            found_list.append(Occurrence(event, occurrence_id(event.id, inst.local_date), inst.start,
                                         inst.end, event.status, inst.start))
    for o in overrides.values():
        if o.start_at < end and o.end_at > start:
            status = "cancelled" if event.status == "cancelled" else o.status
            key = occurrence_id(event.id, to_local(o.original_start, zone).date())
            found_list.append(Occurrence(event, key, o.start_at, o.end_at, status, o.original_start))
    return [o for o in found_list if include_cancelled or o.status == "confirmed"]


def _occurring(start: datetime, end: datetime, clauses: list[ColumnElement[bool]],
               include_cancelled: bool = False) -> list[ColumnElement[bool]]:
    """Where clauses of the events matching `clauses` with an occurrence that may overlap `[start, end)`."""
    where = [Event.span_start < end, Event.span_end > start, *clauses]
    if not include_cancelled:
        where.append(Event.status == "confirmed")
    return where


def _occurrences(ctx: ToolContext, start: datetime, end: datetime, clauses: list[ColumnElement[bool]],
                 include_cancelled: bool = False, attendees: bool = True) -> list[Occurrence]:
    """Every occurrence of the events matching `clauses` that overlaps `[start, end)`, in time order.

    `attendees=False` leaves the events' attendees unloaded (read on access) for callers that
    do not use them.
    """
    query = select(Event).where(*_occurring(start, end, clauses, include_cancelled))
    if not attendees:
        query = query.options(lazyload(Event.attendees))
    found = [o for e in ctx.db.scalars(query) for o in _expand(e, start, end, include_cancelled)]
    return sorted(found, key=lambda o: (o.start, o.event.id, o.occurrence_id or ""))


def _get(ctx: ToolContext, model: type[T], entity_id: int, label: str, hint: str) -> T:
    """`get_or_raise`, also for ids beyond SQLite's 64-bit integers."""
    if not 0 < entity_id <= MAX_ID:
        raise NotFoundError(f"no {label} with id {entity_id}. {hint}")
    return get_or_raise(ctx, model, entity_id, label, hint)


def _event(ctx: ToolContext, event_id: int) -> Event:
    return _get(ctx, Event, event_id, "event", EVENT_HINT)


def _find(ctx: ToolContext, ref: int | str) -> tuple[Event, Occurrence | None]:
    """The event named by an event id or an occurrence id, and the occurrence if one was named."""
    text = str(ref).strip()
    if text.isdigit():
        return _event(ctx, int(text)), None
    match = OCCURRENCE_ID.match(text)
    if match is None:
        raise NotFoundError(f"no event with id {text!r}: ids are integers like 1042, occurrence ids "
                            f"look like '1042_20251114'. {EVENT_HINT}")
    event = _event(ctx, int(match.group(1)))
    if event.recur_freq is None:
        raise NotFoundError(f"event {event.id} is not recurring; use its id {event.id} instead of {text!r}")
    try:
        day = datetime.strptime(match.group(2), "%Y%m%d").date()
    except ValueError:
        raise NotFoundError(f"{text!r} does not end in a valid date (YYYYMMDD)") from None
    for inst in instances(event):
        if inst.local_date == day:
            return event, _occurrence_of(event, inst)
        if inst.local_date > day:
            break
    raise NotFoundError(f"recurring event {event.id} has no occurrence on {day.isoformat()}. "
                        f"Use list_event_instances with event_id {event.id} to see its occurrences.")


def _occurrence_of(event: Event, inst: Instance) -> Occurrence:
    key = occurrence_id(event.id, inst.local_date)
    for o in event.overrides:
        if o.original_start == inst.start:
            status = "cancelled" if event.status == "cancelled" else o.status
            return Occurrence(event, key, o.start_at, o.end_at, status, inst.start)
    return Occurrence(event, key, inst.start, inst.end, event.status, inst.start)


def _whole(event: Event) -> Occurrence:
    """The event itself (for a series, its first occurrence's times and no occurrence id)."""
    return Occurrence(event, None, event.start_at, event.end_at, event.status, None)


# ---------------------------------------------------------------- lookups and rendering


def _person(ctx: ToolContext, email: str) -> Person:
    person = ctx.db.scalar(select(Person).where(Person.email == email.strip().lower()))
    if person is None:
        raise NotFoundError(f"no person with email {email}. {PERSON_HINT}")
    return person


def _room(ctx: ToolContext, room_id: int) -> Room:
    return _get(ctx, Room, room_id, "room", ROOM_HINT)


def _calendar(ctx: ToolContext, calendar_id: int) -> Calendar:
    return _get(ctx, Calendar, calendar_id, "calendar", CALENDAR_HINT)


def _person_out(ctx: ToolContext, p: Person) -> PersonOut:
    calendar_id = None
    if p.is_employee:
        calendar_id = ctx.db.scalar(select(Calendar.id).where(Calendar.owner_id == p.id, Calendar.kind == "primary"))
    return PersonOut(person_id=p.external_id, name=p.name, email=p.email,
                     organization_name=p.organization.name, organization_domain=p.organization.domain,
                     job_title=p.job_title, time_zone=p.timezone, is_employee=p.is_employee,
                     primary_calendar_id=calendar_id)


def _room_out(r: Room) -> RoomOut:
    return RoomOut(id=r.id, name=r.name, building=r.building, floor=r.floor, capacity=r.capacity,
                   has_video=r.has_video)


def _ref(p: Person) -> PersonRef:
    return PersonRef(name=p.name, email=p.email)


def _organizer(ctx: ToolContext, event: Event) -> Person:
    return ctx.db.get_one(Person, event.organizer_id)


def _summaries(ctx: ToolContext, found: list[Occurrence], zone: ZoneInfo | None) -> list[EventSummary]:
    """Summaries of a page of occurrences, their rooms read in one statement."""
    room_ids = {o.event.room_id for o in found if o.event.room_id is not None}
    rooms = {r.id: r for r in ctx.db.scalars(select(Room).where(Room.id.in_(room_ids)))} if room_ids else {}
    return [_summary(ctx, o, zone, rooms) for o in found]


def _summary(ctx: ToolContext, occ: Occurrence, zone: ZoneInfo | None,
             rooms: dict[int, Room] | None = None) -> EventSummary:
    event = occ.event
    shown = zone or ZoneInfo(event.time_zone)
    if event.room_id is None:
        room = None
    else:
        room = rooms[event.room_id] if rooms is not None else ctx.db.get(Room, event.room_id)
    return EventSummary(
        event_id=event.id, occurrence_id=occ.occurrence_id, calendar_id=event.calendar_id,
        title=event.title, status=occ.status, start=occ.start, end=occ.end,
        start_local=_local(occ.start, shown), end_local=_local(occ.end, shown),
        time_zone=event.time_zone, all_day=event.all_day, recurring=event.recur_freq is not None,
        organizer=_ref(_organizer(ctx, event)), room=_room_out(room) if room else None,
        location=event.location, attendee_count=len(event.attendees),
    )


def _recurrence_out(event: Event) -> RecurrenceOut | None:
    rule = rule_of(event)
    if rule is None:
        return None
    return RecurrenceOut(rule=rule.text(), freq=rule.freq, interval=rule.interval,
                         by_day=list(rule.by_day), count=rule.count, until=rule.until)


def _attendee_out(a: Attendee) -> AttendeeOut:
    p = a.person
    return AttendeeOut(email=p.email, name=p.name, organization_name=p.organization.name,
                       is_employee=p.is_employee, organizer=a.organizer, optional=a.optional,
                       response_status=a.response_status, comment=a.comment, responded_at=a.responded_at)


def _detail(ctx: ToolContext, occ: Occurrence, zone: ZoneInfo | None = None) -> EventDetail:
    event = occ.event
    ctx.db.flush()
    ctx.db.refresh(event, ["attendees"])
    return EventDetail(
        **_summary(ctx, occ, zone).model_dump(), description=event.description, show_as=event.show_as,
        recurrence=_recurrence_out(event), original_start=occ.original_start,
        attendees=[_attendee_out(a) for a in event.attendees],
        created_at=event.created_at, updated_at=event.updated_at,
    )


def _event_clauses(
    ctx: ToolContext, calendar_id: int | None = None, query: str | None = None,
    attendee_email: str | None = None, organizer_email: str | None = None,
    organization: str | None = None, room_id: int | None = None, all_day: bool | None = None,
) -> list[ColumnElement[bool]]:
    clauses: list[ColumnElement[bool]] = []
    if calendar_id is not None:
        calendar = _calendar(ctx, calendar_id)
        if calendar.kind == "primary":
            invited = select(Attendee.event_id).where(Attendee.person_id == calendar.owner_id)
            clauses.append(or_(Event.calendar_id == calendar_id, Event.id.in_(invited)))
        else:
            clauses.append(Event.calendar_id == calendar_id)
    for word in search_words(query):
        clauses.append(contains_text(word, Event.title, Event.description, Event.location))
    if attendee_email is not None:
        person = _person(ctx, attendee_email)
        clauses.append(Event.id.in_(select(Attendee.event_id).where(Attendee.person_id == person.id)))
    if organizer_email is not None:
        clauses.append(Event.organizer_id == _person(ctx, organizer_email).id)
    if organization:
        # Narrowed from the few organisations down, so that attendees are read by their index.
        orgs = select(Organization.id).where(contains_text(organization, Organization.name))
        members = select(Person.id).where(Person.organization_id.in_(orgs))
        clauses.append(Event.id.in_(select(Attendee.event_id).where(Attendee.person_id.in_(members))))
    if room_id is not None:
        _room(ctx, room_id)
        clauses.append(Event.room_id == room_id)
    if all_day is not None:
        clauses.append(Event.all_day.is_(all_day))
    return clauses


# ---------------------------------------------------------------- rules


def _ensure_open(ctx: ToolContext, event: Event, occ: Occurrence | None = None) -> None:
    """Cancelled events, and events whose every occurrence has ended, cannot change."""
    if event.status == "cancelled":
        raise ForbiddenError(f"event {event.id} is already cancelled and can no longer change; "
                             "create a new event instead")
    name = f"occurrence {occ.occurrence_id}" if occ is not None else f"event {event.id}"
    if occ is not None and occ.status == "cancelled":
        raise ForbiddenError(f"{name} is already cancelled and can no longer change")
    end = occ.end if occ is not None else event.span_end
    if end <= ctx.now:
        raise ForbiddenError(f"{name} already took place (it ended at {end:%Y-%m-%dT%H:%M:%SZ}); "
                             "past events cannot be changed")


def _check_capacity(room: Room, people: int) -> None:
    if people > room.capacity:
        raise ForbiddenError(f"room {room.id} ({room.name}) holds {room.capacity} people but the event has "
                             f"{people} attendees; use list_rooms with min_capacity={people} to find a bigger room")


def _check_room_free(ctx: ToolContext, room: Room, spans: list[tuple[datetime, datetime]], event_id: int | None) -> None:
    """Forbid booking `room` at any span that ends after now and meets another event's booking."""
    spans = sorted((s, e) for s, e in spans if e > ctx.now)
    if not spans:
        return
    taken = [o for o in _occurrences(ctx, spans[0][0], max(e for _, e in spans), [Event.room_id == room.id],
                                  attendees=False) if o.event.id != event_id]
    for start, end in spans:
        for o in taken:
            if o.start < end and start < o.end:
                raise ForbiddenError(
                    f"room {room.id} ({room.name}) is already booked {o.start:%Y-%m-%dT%H:%M}Z-{o.end:%H:%M}Z by "
                    f"event {o.occurrence_id or o.event.id} ({o.event.title}); use get_room_availability or "
                    "list_rooms with available_from/available_until to find a free room or time")


def _future_spans(ctx: ToolContext, event: Event) -> list[tuple[datetime, datetime]]:
    return [(o.start, o.end) for o in _expand(event, ctx.now, END_OF_TIME, include_cancelled=False)]


def _rule(recurrence: RecurrenceIn, zone: ZoneInfo) -> Rule:
    if (recurrence.count is None) == (recurrence.until is None):
        raise InvalidArgumentError("recurrence needs exactly one of count or until")
    if recurrence.by_day and recurrence.freq != "WEEKLY":
        raise InvalidArgumentError("recurrence.by_day is only allowed with freq WEEKLY")
    return Rule(freq=recurrence.freq, interval=recurrence.interval,
                by_day=tuple(sorted(dict.fromkeys(recurrence.by_day or ()), key=WEEKDAYS.index)),
                count=recurrence.count,
                until=_utc(recurrence.until, zone) if recurrence.until is not None else None)


def _check_rule(event: Event) -> None:
    """The event's rule must include its start's weekday and end within 3 years of it."""
    rule = rule_of(event)
    if rule is None:
        return
    zone = ZoneInfo(event.time_zone)
    weekday = WEEKDAYS[to_local(event.start_at, zone).weekday()]
    if rule.by_day and weekday not in rule.by_day:
        raise InvalidArgumentError(f"the start falls on {weekday} (in {zone.key}), which is not in by_day "
                                   f"{','.join(rule.by_day)}; start the event on its first occurrence")
    limit = event.start_at + timedelta(days=MAX_SERIES_DAYS)
    if rule.until is not None and not event.start_at <= rule.until <= limit:
        raise InvalidArgumentError("recurrence.until must be between the start and 3 years after it")
    if rule.count is not None and max(i.start for i in instances(event)) > limit:
        raise InvalidArgumentError("a recurring event must end within 3 years of its start; lower recurrence.count")


def _set_rule(event: Event, rule: Rule | None) -> None:
    event.recur_freq = rule.freq if rule else None
    event.recur_interval = rule.interval if rule else None
    event.recur_by_day = ",".join(rule.by_day) if rule and rule.by_day else None
    event.recur_count = rule.count if rule else None
    event.recur_until = rule.until if rule else None


def _times(start: datetime, end: datetime, zone: ZoneInfo, all_day: bool) -> tuple[datetime, datetime]:
    """UTC start and end; all-day events run from local midnight to local midnight."""
    if all_day:
        first = start.astimezone(zone).date() if start.tzinfo else start.date()
        last = end.astimezone(zone).date() if end.tzinfo else end.date()
        start_utc, end_utc = to_utc(datetime.combine(first, time()), zone), to_utc(datetime.combine(last, time()), zone)
    else:
        start_utc, end_utc = _utc(start, zone), _utc(end, zone)
    if end_utc <= start_utc:
        hint = " (all-day end dates are exclusive: a one-day event on 2025-11-20 ends 2025-11-21)" if all_day else ""
        raise InvalidArgumentError(f"end must be after start{hint}")
    return start_utc, end_utc


def _drop_stale_overrides(event: Event) -> None:
    valid = {i.start for i in instances(event)}
    event.overrides = [o for o in event.overrides if o.original_start in valid]


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
    clauses: list[ColumnElement[bool]] = []
    if kind:
        clauses.append(Calendar.kind == kind)
    if query:
        clauses.append(contains_text(query, Calendar.name, Person.name, Person.email))
    statement = (select(Calendar).join(Person, Person.id == Calendar.owner_id).where(*clauses)
                 .order_by(Calendar.id))
    rows, total, following = fetch_page(ctx.db, statement, page, per_page)
    return CalendarPage(
        calendars=[CalendarOut(id=c.id, name=c.name, description=c.description, kind=c.kind,
                               owner=_ref(c.owner), time_zone=c.time_zone) for c in rows],
        total=total, page=page, next_page=following)


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
    clauses: list[ColumnElement[bool]] = []
    if query:
        clauses.append(contains_text(query, Person.name, Person.email))
    if organization:
        clauses.append(contains_text(organization, Organization.name))
    if is_employee is not None:
        clauses.append(Person.is_employee.is_(is_employee))
    statement = (select(Person).join(Organization, Organization.id == Person.organization_id).where(*clauses)
                 .order_by(Person.name, Person.id))
    rows, total, following = fetch_page(ctx.db, statement, page, per_page)
    return PersonPage(people=[_person_out(ctx, p) for p in rows], total=total, page=page, next_page=following)


@tools.tool(examples=[{"email": "ann.olson@northwindsystems.com"}, {"email": "justin.fitzgerald@montgomeryllc.com"}])
def get_person(
    ctx: ToolContext,
    email: Annotated[Email, Field(description="The person's email address.")],
) -> PersonOut:
    """Look up a person by email: name, organisation, job title, time zone and primary calendar."""
    return _person_out(ctx, _person(ctx, email))


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
    clauses = _event_clauses(ctx, calendar_id, query, attendee_email, organizer_email, organization,
                             room_id, all_day)
    found = _occurrences(ctx, start, end, clauses, include_cancelled)
    offset, limit = page_slice(page, per_page)
    shown = zone if time_zone else None
    return EventPage(events=_summaries(ctx, found[offset:offset + limit], shown),
                     total=len(found), page=page, next_page=next_page(page, per_page, len(found)),
                     time_min=start, time_max=end)


@tools.tool(examples=[{"event_id": 1856}, {"event_id": "48_20251118", "time_zone": "Europe/Berlin"}])
def get_event(ctx: ToolContext, event_id: EventIdArg, time_zone: ShowZoneArg = None) -> EventDetail:
    """Get an event or one occurrence with its description, attendees and their responses, room and rule."""
    zone = _zone(time_zone) if time_zone else None
    event, occ = _find(ctx, event_id)
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
    start = _utc(time_min, zone) if time_min is not None else event.span_start
    end = _utc(time_max, zone) if time_max is not None else event.span_end + timedelta(seconds=1)
    if end <= start:
        raise InvalidArgumentError("time_max must be later than time_min")
    found = sorted(_expand(event, start, end, include_cancelled), key=lambda o: (o.start, o.occurrence_id or ""))
    offset, limit = page_slice(page, per_page)
    shown = zone if time_zone else None
    return EventPage(events=_summaries(ctx, found[offset:offset + limit], shown),
                     total=len(found), page=page, next_page=next_page(page, per_page, len(found)),
                     time_min=start, time_max=end)


def _busy_by_person(ctx: ToolContext, people: list[Person], start: datetime, end: datetime) -> dict[int, list[tuple[datetime, datetime]]]:
    """Merged busy intervals per person: confirmed, 'busy' events they organise or have not declined."""
    ids = [p.id for p in people]
    attending = select(Attendee.event_id).where(Attendee.person_id.in_(ids), Attendee.response_status != "declined")
    busy: dict[int, list[tuple[datetime, datetime]]] = {pid: [] for pid in ids}
    for o in _occurrences(ctx, start, end, [Event.show_as == "busy", Event.id.in_(attending)]):
        for a in o.event.attendees:
            if a.person_id in busy and a.response_status != "declined":
                busy[a.person_id].append((max(o.start, start), min(o.end, end)))
    return {pid: _merge(spans) for pid, spans in busy.items()}


def _people(ctx: ToolContext, emails: list[str]) -> list[Person]:
    people = [_person(ctx, e) for e in emails]
    return list({p.id: p for p in people}.values())


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
    out = [PersonBusy(email=p.email, name=p.name,
                      busy=[Interval(start=s, end=e, start_local=_local(s, zone), end_local=_local(e, zone))
                            for s, e in busy[p.id]],
                      busy_minutes=sum(_minutes(s, e) for s, e in busy[p.id])) for p in people]
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


def _rooms_with_bookings(ctx: ToolContext, start: datetime, end: datetime, size: int) -> list[tuple[Room, list[tuple[datetime, datetime]]]]:
    """Rooms holding `size` people, smallest first, with their merged bookings in the range."""
    rooms = list(ctx.db.scalars(select(Room).where(Room.capacity >= size).order_by(Room.capacity, Room.id)))
    taken: dict[int, list[tuple[datetime, datetime]]] = {r.id: [] for r in rooms}
    for o in _occurrences(ctx, start, end, [Event.room_id.in_(list(taken))], attendees=False):
        taken[o.event.room_id or 0].append((o.start, o.end))
    return [(r, _merge(taken[r.id])) for r in rooms]


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
    clauses: list[ColumnElement[bool]] = []
    if building:
        clauses.append(func.lower(Room.building) == building.strip().lower())
    if min_capacity is not None:
        clauses.append(Room.capacity >= min_capacity)
    if has_video is not None:
        clauses.append(Room.has_video.is_(has_video))
    rooms = list(ctx.db.scalars(select(Room).where(*clauses).order_by(Room.capacity, Room.id)))
    if available_from is not None and available_until is not None:
        start, end = _range(available_from, available_until, _zone(time_zone), ctx.now)
        booked = {o.event.room_id for o in _occurrences(ctx, start, end, [Event.room_id.is_not(None)], attendees=False)}
        rooms = [r for r in rooms if r.id not in booked]
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
    found = _occurrences(ctx, start, end, [Event.room_id == room_id], attendees=False)
    bookings = []
    for o in found:
        shown = zone if time_zone else ZoneInfo(o.event.time_zone)
        bookings.append(Booking(event_id=o.event.id, occurrence_id=o.occurrence_id, title=o.event.title,
                                start=o.start, end=o.end, start_local=_local(o.start, shown),
                                end_local=_local(o.end, shown), organizer=_ref(_organizer(ctx, o.event))))
    busy = _merge([(max(o.start, start), min(o.end, end)) for o in found])
    return RoomAvailability(room=_room_out(room), time_min=start, time_max=end, free=not found,
                            busy_minutes=sum(_minutes(s, e) for s, e in busy), bookings=bookings)


def _group_labels(ctx: ToolContext, group_by: str, where: list[ColumnElement[bool]],
                  found: list[Occurrence]) -> dict[int, list[tuple[str, str]]]:
    """Per event id, the (key, label) pairs its occurrences count under, for the groupings that
    name calendars, organisers or organisations; each read in one statement over the events of
    `found` (matched by `where`)."""
    if group_by == "calendar":
        ids = {o.event.calendar_id for o in found}
        names = {cid: name for cid, name in ctx.db.execute(select(Calendar.id, Calendar.name).where(Calendar.id.in_(ids)))}
        return {o.event.id: [(str(o.event.calendar_id), names[o.event.calendar_id])] for o in found}
    if group_by == "organizer":
        ids = {o.event.organizer_id for o in found}
        people = {pid: (email, name) for pid, email, name in
                  ctx.db.execute(select(Person.id, Person.email, Person.name).where(Person.id.in_(ids)))}
        return {o.event.id: [people[o.event.organizer_id]] for o in found}
    customers = (select(Attendee.event_id, Organization.name).distinct()
                 .join(Person, Person.id == Attendee.person_id)
                 .join(Organization, Organization.id == Person.organization_id)
                 .where(Person.is_employee.is_(False), Attendee.event_id.in_(select(Event.id).where(*where))))
    orgs: dict[int, set[str]] = {}
    for event_id, name in ctx.db.execute(customers):
        orgs.setdefault(event_id, set()).add(name)
    return {o.event.id: [(name, name) for name in sorted(orgs.get(o.event.id, ()))] or [("internal", "internal")]
            for o in found}


def _group_keys(occ: Occurrence, group_by: str, zone: ZoneInfo | None,
                labels: dict[int, list[tuple[str, str]]]) -> list[tuple[str, str]]:
    """The (key, label) pairs an occurrence counts under."""
    if group_by == "month":
        return [(to_local(occ.start, zone or ZoneInfo(occ.event.time_zone)).strftime("%Y-%m"),) * 2]
    if group_by == "week":
        year, week, _ = to_local(occ.start, zone or ZoneInfo(occ.event.time_zone)).isocalendar()
        return [(f"{year}-W{week:02d}",) * 2]
    return labels[occ.event.id]


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
    clauses = _event_clauses(ctx, calendar_id, query, attendee_email, organizer_email, organization,
                             room_id, all_day)
    found = _occurrences(ctx, start, end, clauses, attendees=False)
    labels: dict[int, list[tuple[str, str]]] = {}
    if group_by in ("calendar", "organizer", "organization") and found:
        labels = _group_labels(ctx, group_by, _occurring(start, end, clauses), found)
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


@tools.tool(writes=True, examples=[
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
    zone = _zone(time_zone, calendar.time_zone)
    start_utc, end_utc = _times(start, end, zone, all_day)
    organizer = _person(ctx, organizer_email) if organizer_email else ctx.db.get_one(Person, calendar.owner_id)
    if not organizer.is_employee:
        raise ForbiddenError(f"{organizer.email} is not a Northwind Systems employee; only employees organise events")
    event = Event(
        calendar_id=calendar.id, title=title, description=description, location=location,
        start_at=start_utc, end_at=end_utc, time_zone=zone.key, all_day=all_day, show_as=show_as,
        status="confirmed", organizer_id=organizer.id, room_id=None, span_start=start_utc,
        span_end=end_utc, created_at=ctx.now, updated_at=ctx.now,
    )
    _set_rule(event, _rule(recurrence, zone) if recurrence is not None else None)
    _check_rule(event)
    refresh_span(event)
    invited = {organizer.id: Attendee(person_id=organizer.id, response_status="accepted", optional=False,
                                      organizer=True, comment=None, responded_at=ctx.now)}
    for emails, optional in ((attendee_emails, False), (optional_attendee_emails, True)):
        for person in _people(ctx, emails):
            invited.setdefault(person.id, Attendee(person_id=person.id, response_status="needsAction",
                                                   optional=optional, organizer=False, comment=None,
                                                   responded_at=None))
    event.attendees = list(invited.values())
    if room_id is not None:
        room = _room(ctx, room_id)
        if event.span_end <= ctx.now:
            raise ForbiddenError("rooms can only be booked for events that have not yet ended")
        _check_capacity(room, len(event.attendees))
        _check_room_free(ctx, room, _future_spans(ctx, event), None)
        event.room_id, event.location = room.id, location or room.name
    ctx.db.add(event)
    ctx.db.flush()
    return _detail(ctx, _whole(event))


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


def _override(ctx: ToolContext, event: Event, occ: Occurrence, start: datetime, end: datetime,
              status: str) -> Occurrence:
    """Record that one occurrence moved or was cancelled; the occurrence as it now is."""
    original = occ.original_start or occ.start
    row = next((o for o in event.overrides if o.original_start == original), None)
    if row is None:
        event.overrides.append(OccurrenceOverride(original_start=original, start_at=start, end_at=end,
                                                  status=status, updated_at=ctx.now))
    else:
        row.start_at, row.end_at, row.status, row.updated_at = start, end, status, ctx.now
    event.updated_at = ctx.now
    refresh_span(event)
    return Occurrence(event, occ.occurrence_id, start, end, status, original)


def _end_series_before(event: Event, original: datetime) -> None:
    """Stop a series just before the occurrence that originally started at `original`."""
    rule = rule_of(event)
    if rule is not None:
        _set_rule(event, Rule(freq=rule.freq, interval=rule.interval, by_day=rule.by_day, count=None,
                              until=original - timedelta(seconds=1)))
    _drop_stale_overrides(event)
    refresh_span(event)


def _split(ctx: ToolContext, event: Event, occ: Occurrence) -> Event:
    """Split a series at an occurrence: the old series ends before it, a new one starts there."""
    original = occ.original_start or occ.start
    earlier = list(instances(event, stop=original))
    rule = rule_of(event)
    if rule is None or not earlier:
        return event
    first = next(i for i in instances(event) if i.start == original)
    new = Event(
        calendar_id=event.calendar_id, title=event.title, description=event.description,
        location=event.location, start_at=first.start, end_at=first.end, time_zone=event.time_zone,
        all_day=event.all_day, show_as=event.show_as, status=event.status,
        organizer_id=event.organizer_id, room_id=event.room_id, span_start=first.start,
        span_end=first.end, created_at=ctx.now, updated_at=ctx.now,
    )
    _set_rule(new, Rule(freq=rule.freq, interval=rule.interval, by_day=rule.by_day,
                        count=rule.count - len(earlier) if rule.count is not None else None, until=rule.until))
    new.attendees = [Attendee(person_id=a.person_id, response_status=a.response_status, optional=a.optional,
                              organizer=a.organizer, comment=a.comment, responded_at=a.responded_at)
                     for a in event.attendees]
    new.overrides = [OccurrenceOverride(original_start=o.original_start, start_at=o.start_at, end_at=o.end_at,
                                        status=o.status, updated_at=o.updated_at)
                     for o in event.overrides if o.original_start >= original]
    _end_series_before(event, original)
    event.updated_at = ctx.now
    refresh_span(new)
    ctx.db.add(new)
    ctx.db.flush()
    return new


@tools.tool(writes=True, examples=[
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
    event, occ = _find(ctx, event_id)
    fields = {"title": title, "description": description, "location": location, "time_zone": time_zone,
              "show_as": show_as, "recurrence": recurrence}
    if start is None and end is None and all(v is None for v in fields.values()):
        raise InvalidArgumentError("give at least one field to change")
    if following and occ is None:
        raise InvalidArgumentError("following=true needs an occurrence id such as '1042_20251114'")
    _ensure_open(ctx, event, occ)
    zone = _zone(time_zone, event.time_zone)
    if occ is not None and not following:
        extra = sorted(k for k, v in fields.items() if v is not None)
        if extra:
            raise InvalidArgumentError(
                f"only start and end can change for one occurrence ({', '.join(extra)} given); to change "
                f"the whole series use event_id {event.id}, or from this occurrence on use following=true")
        new_start, new_end = _moved(start, end, occ.start, occ.end, zone)
        if event.room_id is not None:
            _check_room_free(ctx, ctx.db.get_one(Room, event.room_id), [(new_start, new_end)], event.id)
        moved = _override(ctx, event, occ, new_start, new_end, "confirmed")
        ctx.db.flush()
        return _detail(ctx, moved)
    if occ is not None:
        event = _split(ctx, event, occ)
    retimed = start is not None or end is not None or time_zone is not None
    if retimed and event.all_day:
        raise InvalidArgumentError("the dates of an all-day event cannot change; cancel it and create a new one")
    if retimed and event.recur_freq is not None and event.start_at < ctx.now:
        raise ForbiddenError(
            f"recurring event {event.id} began on {event.start_at:%Y-%m-%d}; changing its times would rewrite "
            "past occurrences. Give the occurrence id of the first occurrence to change, with following=true")
    for name in ("title", "description", "location", "show_as"):
        if fields[name] is not None:
            setattr(event, name, fields[name])
    event.time_zone = zone.key
    event.start_at, event.end_at = _moved(start, end, event.start_at, event.end_at, zone)
    if recurrence is not None:
        _set_rule(event, _rule(recurrence, zone))
    _check_rule(event)
    _drop_stale_overrides(event)
    refresh_span(event)
    event.updated_at = ctx.now
    if event.room_id is not None and (retimed or recurrence is not None):
        _check_room_free(ctx, ctx.db.get_one(Room, event.room_id), _future_spans(ctx, event), event.id)
    ctx.db.flush()
    return _detail(ctx, _whole(event))


@tools.tool(writes=True, examples=[
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
    event, occ = _find(ctx, event_id)
    if following and occ is None:
        raise InvalidArgumentError("following=true needs an occurrence id such as '1042_20251114'")
    _ensure_open(ctx, event, occ)
    event.updated_at = ctx.now
    original = (occ.original_start or occ.start) if occ is not None else event.start_at
    if occ is None or (following and next(instances(event, stop=original), None) is None):
        event.status = "cancelled"
        result = _whole(event)
    elif following:
        _end_series_before(event, original)
        result = _whole(event)
    else:
        result = _override(ctx, event, occ, occ.start, occ.end, "cancelled")
    ctx.db.flush()
    return _detail(ctx, result)


@tools.tool(writes=True, examples=[{"event_id": 1801, "emails": ["ann.olson@northwindsystems.com"], "optional": True}])
def add_attendees(
    ctx: ToolContext,
    event_id: SeriesIdArg,
    emails: Annotated[list[Email], Field(min_length=1, max_length=100, description="People to invite, by email.")],
    optional: Annotated[bool, Field(description="Invite them as optional attendees.")] = False,
) -> EventDetail:
    """Invite people (employees or customers) to an event or a whole series; they start as needsAction.

    People already invited are left as they are. A booked room must hold everyone invited.
    """
    event = _event(ctx, event_id)
    _ensure_open(ctx, event)
    have = {a.person_id for a in event.attendees}
    new = [p for p in _people(ctx, emails) if p.id not in have]
    if event.room_id is not None:
        _check_capacity(ctx.db.get_one(Room, event.room_id), len(have) + len(new))
    for person in new:
        event.attendees.append(Attendee(person_id=person.id, response_status="needsAction", optional=optional,
                                        organizer=False, comment=None, responded_at=None))
    event.updated_at = ctx.now
    ctx.db.flush()
    return _detail(ctx, _whole(event))


def _attendee(ctx: ToolContext, event: Event, email: str) -> Attendee:
    person = _person(ctx, email)
    for a in event.attendees:
        if a.person_id == person.id:
            return a
    raise ForbiddenError(f"{person.email} is not invited to event {event.id}; use get_event to see its "
                         "attendees, or add_attendees to invite them")


@tools.tool(writes=True, examples=[{"event_id": 1856, "email": "justin.fitzgerald@montgomeryllc.com"}])
def remove_attendee(
    ctx: ToolContext,
    event_id: SeriesIdArg,
    email: Annotated[Email, Field(description="Email of the attendee to remove.")],
) -> EventDetail:
    """Uninvite one attendee from an event or a whole series. The organiser cannot be removed."""
    event = _event(ctx, event_id)
    _ensure_open(ctx, event)
    attendee = _attendee(ctx, event, email)
    if attendee.organizer:
        raise ForbiddenError(f"{attendee.person.email} organises event {event.id} and cannot be removed; "
                             "cancel the event instead")
    event.attendees.remove(attendee)
    event.updated_at = ctx.now
    ctx.db.flush()
    return _detail(ctx, _whole(event))


@tools.tool(writes=True, examples=[
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
    attendee = _attendee(ctx, event, attendee_email)
    if attendee.organizer:
        raise ForbiddenError(f"{attendee.person.email} organises event {event.id} and always attends; "
                             "cancel the event instead of declining it")
    attendee.response_status, attendee.comment, attendee.responded_at = response, comment, ctx.now
    ctx.db.flush()
    return _detail(ctx, _whole(event))


@tools.tool(writes=True, examples=[{"event_id": 1856, "room_id": 4}])
def book_room(
    ctx: ToolContext,
    event_id: SeriesIdArg,
    room_id: Annotated[int, Field(description="The room to book (see list_rooms).")],
) -> EventDetail:
    """Book a room for an event or every future occurrence of a series, replacing any room it had.

    The room must hold everyone invited and be free at every future occurrence.
    """
    event = _event(ctx, event_id)
    room = _room(ctx, room_id)
    _ensure_open(ctx, event)
    if event.room_id == room.id:
        raise InvalidArgumentError(f"event {event.id} already has room {room.id} ({room.name})")
    _check_capacity(room, len(event.attendees))
    _check_room_free(ctx, room, _future_spans(ctx, event), event.id)
    old = ctx.db.get(Room, event.room_id) if event.room_id is not None else None
    if event.location is None or (old is not None and event.location == old.name) or event.location == "Video call":
        event.location = room.name
    event.room_id, event.updated_at = room.id, ctx.now
    ctx.db.flush()
    return _detail(ctx, _whole(event))


@tools.tool(writes=True, examples=[{"event_id": 1855}])
def release_room(ctx: ToolContext, event_id: SeriesIdArg) -> EventDetail:
    """Give up the room booked for an event or series; the event itself stays."""
    event = _event(ctx, event_id)
    _ensure_open(ctx, event)
    if event.room_id is None:
        raise InvalidArgumentError(f"event {event.id} has no room booked")
    room = ctx.db.get_one(Room, event.room_id)
    if event.location == room.name:
        event.location = None
    event.room_id, event.updated_at = None, ctx.now
    ctx.db.flush()
    return _detail(ctx, _whole(event))
