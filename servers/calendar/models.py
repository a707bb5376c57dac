"""The calendar schema: directory, calendars, rooms, events, attendees, occurrence overrides.

Linking rules with the shared world:
- `organizations.external_id` is the world organisation id (`org_012`) and `people.external_id`
  the world person id (`per_0042`); names, emails and organisation names are the world's, so a
  person here agrees with the same person in every other server;
- every world person is in the directory (`people`); employees are the home company's staff
  (`org_000`, Northwind Systems), customers are people at the other organisations;
- each employee owns exactly one primary calendar; shared team calendars are owned by their
  team lead; organisers are always employees, attendees any directory person, by email.

All times are naive UTC. A recurring event stores its first occurrence in `start_at`/`end_at`,
its time zone and its rule (`recur_*`); single occurrences that were moved or cancelled are
`OccurrenceOverride` rows keyed by the occurrence's original start. `span_start`/`span_end`
bound every occurrence of an event, overrides included, for range queries.

Each table declares at most one index besides its unique constraints, so that the schema is
created in the same order, and the database has the same bytes, in every process.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

EVENT_STATUSES = ("confirmed", "cancelled")
RESPONSES = ("needsAction", "accepted", "declined", "tentative")
CALENDAR_KINDS = ("primary", "shared")
FREQUENCIES = ("DAILY", "WEEKLY", "MONTHLY")


class Base(DeclarativeBase):
    """Declarative base of the calendar schema."""


class Organization(Base):
    __tablename__ = "organizations"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(120), unique=True)
    domain: Mapped[str] = mapped_column(String(120))


class Person(Base):
    __tablename__ = "people"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(120))
    email: Mapped[str] = mapped_column(String(160), unique=True)
    organization_id: Mapped[int] = mapped_column(ForeignKey("organizations.id"))
    job_title: Mapped[str] = mapped_column(String(120))
    timezone: Mapped[str] = mapped_column(String(40))
    is_employee: Mapped[bool]

    organization: Mapped[Organization] = relationship(lazy="joined")


class Calendar(Base):
    __tablename__ = "calendars"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(120), unique=True)
    description: Mapped[str] = mapped_column(String(240))
    kind: Mapped[str] = mapped_column(String(16))
    owner_id: Mapped[int] = mapped_column(ForeignKey("people.id"), index=True)
    time_zone: Mapped[str] = mapped_column(String(40))

    owner: Mapped[Person] = relationship(lazy="joined")


class Room(Base):
    __tablename__ = "rooms"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    building: Mapped[str] = mapped_column(String(80))
    floor: Mapped[int]
    capacity: Mapped[int]
    has_video: Mapped[bool]


class Event(Base):
    __tablename__ = "events"
    __table_args__ = (Index("ix_events_span", "span_start", "span_end"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    calendar_id: Mapped[int] = mapped_column(ForeignKey("calendars.id"))
    title: Mapped[str] = mapped_column(String(200))
    description: Mapped[str]
    location: Mapped[str | None] = mapped_column(String(200))
    start_at: Mapped[datetime]
    end_at: Mapped[datetime]
    time_zone: Mapped[str] = mapped_column(String(40))
    all_day: Mapped[bool]
    show_as: Mapped[str] = mapped_column(String(8))
    status: Mapped[str] = mapped_column(String(16))
    organizer_id: Mapped[int] = mapped_column(ForeignKey("people.id"))
    room_id: Mapped[int | None] = mapped_column(ForeignKey("rooms.id"))
    recur_freq: Mapped[str | None] = mapped_column(String(8))
    recur_interval: Mapped[int | None]
    recur_by_day: Mapped[str | None] = mapped_column(String(24))
    recur_count: Mapped[int | None]
    recur_until: Mapped[datetime | None]
    span_start: Mapped[datetime]
    span_end: Mapped[datetime]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]

    attendees: Mapped[list[Attendee]] = relationship(
        cascade="all, delete-orphan", order_by="Attendee.id", lazy="selectin"
    )
    overrides: Mapped[list[OccurrenceOverride]] = relationship(
        cascade="all, delete-orphan", order_by="OccurrenceOverride.original_start", lazy="selectin"
    )


class Attendee(Base):
    __tablename__ = "attendees"
    __table_args__ = (UniqueConstraint("event_id", "person_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id"))
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id"), index=True)
    response_status: Mapped[str] = mapped_column(String(16))
    optional: Mapped[bool]
    organizer: Mapped[bool]
    comment: Mapped[str | None] = mapped_column(String(500))
    responded_at: Mapped[datetime | None]

    person: Mapped[Person] = relationship(lazy="joined")


class OccurrenceOverride(Base):
    __tablename__ = "occurrence_overrides"
    __table_args__ = (UniqueConstraint("event_id", "original_start"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id"))
    original_start: Mapped[datetime]
    start_at: Mapped[datetime]
    end_at: Mapped[datetime]
    status: Mapped[str] = mapped_column(String(16))
    updated_at: Mapped[datetime]
