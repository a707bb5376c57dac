"""The seeded calendars: 14 months of meetings before the world's now and two months after.

Teams hold daily standups and weekly team meetings, leads run recurring 1:1s with their
reports, the company meets every four weeks, and single meetings fill the weeks: internal
ones among employees and customer meetings titled with the customer's organisation name.
Rooms are never double-booked and always hold everyone invited. Rows are inserted in bulk.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import insert
from sqlalchemy.orm import Session

from mcpgym.servers.calendar.models import (
    Attendee,
    Calendar,
    Event,
    OccurrenceOverride,
    Organization,
    Person,
    Room,
)
from mcpgym.servers.calendar.recurrence import WEEKDAYS, Instance, Rule, expand, to_utc
from mcpgym.servers.kernel.world import Person as WorldPerson
from mcpgym.servers.kernel.world import World

HISTORY_DAYS = 425
FUTURE_DAYS = 61
N_SINGLE_EVENTS = 2000

TEAMS = (("Engineering", 12), ("Sales", 8), ("Customer Success", 8), ("Product", 6), ("Operations", 6))
CUSTOMER_FACING = ("Sales", "Customer Success")

# name, building, floor, capacity, has video; listed smallest first
ROOMS = (
    ("Harbor", "HQ", 1, 2, False), ("Aurora", "HQ", 1, 4, True), ("Fjord", "HQ", 2, 4, True),
    ("Birch", "HQ", 2, 6, True), ("Juniper", "HQ", 3, 6, False), ("Cedar", "HQ", 3, 8, True),
    ("Maple", "HQ", 3, 8, False), ("Delta", "HQ", 4, 10, True), ("Everest", "HQ", 4, 14, True),
    ("Kestrel", "Annex", 1, 16, True), ("Granite", "Annex", 2, 20, True),
    ("Lumen Hall", "Annex", 1, 60, True),
)

CUSTOMER_TOPICS = (
    "Quarterly business review", "Product demo", "Renewal discussion", "Onboarding kickoff",
    "Technical deep dive", "Pricing call", "Support escalation review", "Integration planning",
    "Executive sync", "Contract negotiation",
)
INTERNAL_TOPICS = (
    "Sprint planning", "Design review", "Roadmap sync", "Hiring debrief", "Budget review",
    "Incident retrospective", "Architecture discussion", "Pipeline review", "Launch readiness",
    "Customer feedback review", "Brainstorm", "Quarterly goals check-in",
)
AWAY_TITLES = ("Out of office", "Vacation", "Conference: SaaStr Annual", "Conference: KubeCon",
               "Training day", "Parental leave")
MARKER_TITLES = ("Release day", "Quarter-end deadline", "Payroll run", "Code freeze", "Board meeting prep")
HOLIDAYS = ((12, 25), (12, 26), (1, 1))
"""Month and day on which recurring meetings are cancelled."""


@dataclass
class Draft:
    """An event being seeded: its row, attendee rows and override rows, ids given at the end."""

    row: dict[str, Any]
    attendees: list[dict[str, Any]]
    overrides: list[dict[str, Any]] = field(default_factory=list)
    occurrences: list[Instance] = field(default_factory=list)


@dataclass
class RoomBook:
    """Booked intervals per room and UTC date, to keep rooms free of double bookings."""

    slots: dict[tuple[int, date], list[tuple[datetime, datetime]]] = field(default_factory=dict)

    @staticmethod
    def _days(start: datetime, end: datetime) -> list[date]:
        first, last = start.date(), (end - timedelta(seconds=1)).date()
        return [first + timedelta(days=i) for i in range((last - first).days + 1)]

    def free(self, room_id: int, start: datetime, end: datetime) -> bool:
        return not any(
            s < end and start < e
            for day in self._days(start, end)
            for s, e in self.slots.get((room_id, day), ())
        )

    def add(self, room_id: int, start: datetime, end: datetime) -> None:
        for day in self._days(start, end):
            self.slots.setdefault((room_id, day), []).append((start, end))


@dataclass
class Seeder:
    """The state of one seeding run: the world, row ids of people, team layout, room bookings."""

    world: World
    rng: random.Random
    employees: tuple[WorldPerson, ...]
    person_ids: dict[str, int]
    teams: dict[str, list[WorldPerson]]
    team_of: dict[str, str]
    calendars: dict[str, int]
    contacts: dict[str, list[WorldPerson]]
    book: RoomBook = field(default_factory=RoomBook)

    @property
    def now(self) -> datetime:
        return self.world.now

    def room_for(self, size: int, spans: list[tuple[datetime, datetime]]) -> tuple[int, str] | None:
        """The smallest room holding `size` people free at every span (then booked): id and name."""
        for room_id, (name, _, _, capacity, _) in enumerate(ROOMS, start=1):
            if capacity >= size and all(self.book.free(room_id, s, e) for s, e in spans):
                for s, e in spans:
                    self.book.add(room_id, s, e)
                return room_id, name
        return None

    def response(self, start: datetime) -> str:
        weights = (80, 8, 7, 5) if start < self.now else (45, 10, 10, 35)
        return self.rng.choices(("accepted", "declined", "tentative", "needsAction"), weights)[0]

    def attendees(self, organizer: WorldPerson, guests: list[WorldPerson], start: datetime,
                  created: datetime, optional_share: float = 0.0) -> list[dict[str, Any]]:
        rows = [_attendee(self.person_ids[organizer.id], "accepted", True, False, created)]
        for guest in guests:
            status = self.response(start)
            answered = _between(self.rng, created, min(start, self.now)) if status != "needsAction" else None
            rows.append(_attendee(self.person_ids[guest.id], status, False,
                                  self.rng.random() < optional_share, answered))
        return rows


def _attendee(person_id: int, status: str, organizer: bool, optional: bool,
              answered: datetime | None) -> dict[str, Any]:
    return {"person_id": person_id, "response_status": status, "optional": optional,
            "organizer": organizer, "comment": None, "responded_at": answered}


def _between(rng: random.Random, first: datetime, last: datetime) -> datetime:
    """A whole-second time in [first, last], or `first` when the interval is empty."""
    if last <= first:
        return first
    return (first + (last - first) * rng.random()).replace(microsecond=0)


def _wall(day: date, at: time, zone: str) -> datetime:
    return to_utc(datetime.combine(day, at), ZoneInfo(zone))


def _weekday_on_or_after(day: date, weekday: int) -> date:
    return day + timedelta(days=(weekday - day.weekday()) % 7)


def _event_row(calendar_id: int, organizer_id: int, title: str, description: str, location: str | None,
               start: datetime, end: datetime, zone: str, created: datetime, *, all_day: bool = False,
               show_as: str = "busy", status: str = "confirmed", updated: datetime | None = None,
               rule: Rule | None = None) -> dict[str, Any]:
    return {
        "calendar_id": calendar_id, "title": title, "description": description, "location": location,
        "start_at": start, "end_at": end, "time_zone": zone, "all_day": all_day, "show_as": show_as,
        "status": status, "organizer_id": organizer_id, "room_id": None,
        "recur_freq": rule.freq if rule else None, "recur_interval": rule.interval if rule else None,
        "recur_by_day": ",".join(rule.by_day) if rule and rule.by_day else None,
        "recur_count": rule.count if rule else None, "recur_until": rule.until if rule else None,
        "span_start": start, "span_end": end, "created_at": created, "updated_at": updated or created,
    }


def _directory(db: Session, world: World) -> dict[str, int]:
    """Organisations and people, copied from the world; the row id of each world person id."""
    org_ids = {org.id: i for i, org in enumerate(world.organizations, start=1)}
    db.execute(insert(Organization), [
        {"id": i, "external_id": org.id, "name": org.name, "domain": org.domain}
        for org, i in zip(world.organizations, org_ids.values())])
    person_ids = {p.id: i for i, p in enumerate(world.people, start=1)}
    db.execute(insert(Person), [
        {"id": person_ids[p.id], "external_id": p.id, "name": p.name, "email": p.email,
         "organization_id": org_ids[p.organization_id], "job_title": p.job_title,
         "timezone": p.timezone, "is_employee": p.is_employee} for p in world.people])
    db.execute(insert(Room), [
        {"id": i, "name": n, "building": b, "floor": f, "capacity": c, "has_video": v}
        for i, (n, b, f, c, v) in enumerate(ROOMS, start=1)])
    return person_ids


def _calendars(db: Session, world: World, teams: dict[str, list[WorldPerson]],
               person_ids: dict[str, int]) -> dict[str, int]:
    """Primary calendars (in employee order) then shared ones; ids keyed by person id or calendar name."""
    owners = [(p.name, f"Primary calendar of {p.name}.", "primary", p) for p in world.employees]
    owners += [(f"{team} team", f"Shared calendar of the {team} team.", "shared", members[0])
               for team, members in teams.items()]
    owners.append(("Company events", "All-hands meetings and company-wide events.", "shared", world.employees[0]))
    rows = [{"id": i, "name": name, "description": text, "kind": kind, "owner_id": person_ids[owner.id],
             "time_zone": owner.timezone} for i, (name, text, kind, owner) in enumerate(owners, start=1)]
    db.execute(insert(Calendar), rows)
    return {(owner.id if kind == "primary" else name): i
            for i, (name, _, kind, owner) in enumerate(owners, start=1)}


def _series(s: Seeder, calendar: str, organizer: WorldPerson, guests: list[WorldPerson], title: str,
            description: str, start: datetime, minutes: int, rule: Rule, room_size: int | None = None) -> Draft:
    created = start - timedelta(days=s.rng.randrange(2, 15))
    end = start + timedelta(minutes=minutes)
    row = _event_row(s.calendars[calendar], s.person_ids[organizer.id], title, description, "Video call",
                     start, end, organizer.timezone, created, rule=rule)
    draft = Draft(row=row, attendees=s.attendees(organizer, guests, min(start, s.now), created),
                  occurrences=list(expand(start, end, ZoneInfo(organizer.timezone), rule)))
    if room_size is not None:
        room = s.room_for(room_size, [(i.start, i.end) for i in draft.occurrences])
        if room is not None:
            row["room_id"], row["location"] = room
    return draft


def _overrides(s: Seeder, draft: Draft, cancel_rate: float, move_rate: float) -> Draft:
    """Cancel or move some occurrences (only cancel when a room is booked); holidays are cancelled."""
    for inst in draft.occurrences:
        roll = s.rng.random()
        if (inst.local_date.month, inst.local_date.day) in HOLIDAYS or roll < cancel_rate:
            start, end, status = inst.start, inst.end, "cancelled"
        elif roll < cancel_rate + move_rate and draft.row["room_id"] is None:
            shift = timedelta(hours=s.rng.choice((-2, -1, 1, 2, 3, 24)))
            start, end, status = inst.start + shift, inst.end + shift, "confirmed"
        else:
            continue
        changed = min(inst.start - timedelta(hours=s.rng.randrange(1, 72)), s.now)
        draft.overrides.append({"original_start": inst.start, "start_at": start, "end_at": end,
                                "status": status, "updated_at": max(changed, draft.row["created_at"])})
    return draft


def _weekly(by_day: str, interval: int = 1, count: int | None = None, until: datetime | None = None) -> Rule:
    return Rule(freq="WEEKLY", interval=interval, by_day=tuple(by_day.split(",")), count=count, until=until)


def _recurring(s: Seeder) -> list[Draft]:
    rng, now = s.rng, s.now
    first_day = (now - timedelta(days=HISTORY_DAYS)).date()
    horizon = (now + timedelta(days=90)).replace(hour=23, minute=59, second=59)
    drafts = []
    for team, members in s.teams.items():
        lead, reports = members[0], members[1:]
        day = _weekday_on_or_after(first_day + timedelta(days=rng.randrange(0, 14)), 0)
        drafts.append(_overrides(s, _series(
            s, f"{team} team", lead, reports, f"{team} daily standup",
            f"Daily 15-minute standup of the {team} team: yesterday, today, blockers.",
            _wall(day, time(9, 30), lead.timezone), 15, _weekly("MO,TU,WE,TH,FR", until=horizon)), 0.02, 0.03))
        weekday = rng.choice((1, 2, 3))
        day = _weekday_on_or_after(first_day + timedelta(days=rng.randrange(0, 21)), weekday)
        weeks = ((now + timedelta(days=56)).date() - day).days // 7 + 1
        drafts.append(_overrides(s, _series(
            s, f"{team} team", lead, reports, f"{team} weekly team meeting",
            f"Weekly {team} team meeting: priorities, metrics and announcements.",
            _wall(day, time(14, 0), lead.timezone), 60, _weekly(WEEKDAYS[weekday], count=weeks),
            room_size=len(members)), 0.04, 0.0))
        for report in reports:
            drafts += _one_on_ones(s, lead, report)
    ceo = s.employees[0]
    everyone = [p for p in s.employees if p.id != ceo.id]
    day = _weekday_on_or_after(first_day + timedelta(days=rng.randrange(0, 28)), 3)
    drafts.append(_overrides(s, _series(
        s, "Company events", ceo, everyone, "All-hands",
        "Company-wide update from the leadership team every four weeks, with Q&A.",
        _wall(day, time(16, 0), ceo.timezone), 60, _weekly("TH", interval=4, count=18),
        room_size=len(everyone) + 1), 0.0, 0.0))
    product, leads = s.teams["Product"], [t[0] for t in s.teams.values()]
    guests = product[1:] + [p for p in leads if p.id != product[0].id]
    start = _wall(first_day.replace(day=10) + timedelta(days=31), time(11, 0), product[0].timezone)
    drafts.append(_series(
        s, "Product team", product[0], guests, "Quarterly planning",
        "Plan the next quarter's roadmap with every team lead.", start, 120,
        Rule(freq="MONTHLY", interval=3, by_day=(), count=6, until=None), room_size=len(guests) + 1))
    ops = s.teams["Operations"]
    start = _wall(first_day.replace(day=28) + timedelta(days=31), time(15, 0), ops[0].timezone)
    drafts.append(_series(
        s, "Operations team", ops[0], ops[1:], "Month-end close review",
        "Review of the month's books, invoices and open purchase orders.", start, 45,
        Rule(freq="MONTHLY", interval=1, by_day=(), count=15, until=None)))
    return drafts


def _one_on_ones(s: Seeder, lead: WorldPerson, report: WorldPerson) -> list[Draft]:
    """A lead's recurring 1:1 with a report; a quarter of them moved to a new slot partway."""
    rng, now = s.rng, s.now
    day = (now - timedelta(days=HISTORY_DAYS - rng.randrange(0, 40))).date()
    plan_end = (now + timedelta(days=FUTURE_DAYS)).replace(hour=23, minute=59, second=59)
    cut = (now - timedelta(days=rng.randrange(30, 200))).replace(hour=0, minute=0, second=0)
    drafts = []
    for until in (cut, plan_end) if rng.random() < 0.25 else (plan_end,):
        weekday = rng.randrange(0, 5)
        day = _weekday_on_or_after(day, weekday)
        at = time(rng.randrange(10, 16), rng.choice((0, 30)))
        rule = _weekly(WEEKDAYS[weekday], interval=rng.choice((1, 1, 2)), until=until)
        drafts.append(_overrides(s, _series(
            s, lead.id, lead, [report], f"1:1 {lead.first_name} / {report.first_name}",
            f"Recurring 1:1 between {lead.name} and {report.name}.",
            _wall(day, at, lead.timezone), 30, rule), 0.04, 0.05))
        day = cut.date() + timedelta(days=1)
    return drafts


def _single(s: Seeder) -> Draft:
    rng, now = s.rng, s.now
    kind = rng.choices(("customer", "internal", "focus", "away", "marker"), (44, 42, 6, 5, 3))[0]
    facing = [p for t in CUSTOMER_FACING for p in s.teams[t]]
    organizer = rng.choice(facing) if kind == "customer" and rng.random() < 0.75 else rng.choice(s.employees)
    zone, team = organizer.timezone, s.team_of[organizer.id]
    day = (now + timedelta(days=rng.randrange(-HISTORY_DAYS, FUTURE_DAYS))).date()
    if day.weekday() >= 5:
        day += timedelta(days=7 - day.weekday())
    calendar: str = organizer.id
    teammates = [p for p in s.teams[team] if p.id != organizer.id]
    guests: list[WorldPerson] = []
    show_as, all_day, location = "busy", False, "Video call"
    if kind in ("away", "marker"):
        days = rng.choice((1, 1, 2, 3, 5)) if kind == "away" else 1
        start, end = _wall(day, time(0), zone), _wall(day + timedelta(days=days), time(0), zone)
        location, all_day = None, True
        if kind == "away":
            title, description = rng.choice(AWAY_TITLES), f"{organizer.first_name} is away."
        else:
            title, description, show_as = rng.choice(MARKER_TITLES), "A reminder for the team.", "free"
            calendar = f"{team} team"
    else:
        start = _wall(day, time(rng.randrange(8, 17), rng.choice((0, 30))), zone)
        end = start + timedelta(minutes=rng.choice((30, 30, 45, 60, 60, 90)))
        if kind == "focus":
            title, description, location = "Focus time", "Heads-down work; please do not book.", None
        elif kind == "customer":
            org = rng.choice([o for o in s.world.organizations[1:] if o.id in s.contacts])
            contacts = s.contacts[org.id]
            topic = rng.choice(CUSTOMER_TOPICS)
            guests = rng.sample(contacts, min(len(contacts), rng.randrange(1, 4)))
            guests += rng.sample(teammates, min(len(teammates), rng.choice((0, 0, 1, 2))))
            title = f"{org.name}: {topic}"
            description = f"{topic} with {org.name} ({org.industry}). Agenda shared by {organizer.name}."
            if rng.random() < 0.25:
                location = f"{org.name} office, {org.city}"
        else:
            topic = rng.choice(INTERNAL_TOPICS)
            pool = teammates if rng.random() < 0.7 else [p for p in s.employees if p.id != organizer.id]
            guests = rng.sample(pool, min(len(pool), rng.randrange(1, 7)))
            title, description = topic, f"{topic} organised by {organizer.name}."
            if rng.random() < 0.2:
                calendar = f"{team} team"
    created = min(start - timedelta(days=rng.randrange(1, 30), minutes=rng.randrange(0, 600)),
                  now - timedelta(minutes=rng.randrange(5, 600)))
    cancelled = rng.random() < 0.04
    row = _event_row(s.calendars[calendar], s.person_ids[organizer.id], title, description, location,
                     start, end, zone, created, all_day=all_day, show_as=show_as,
                     status="cancelled" if cancelled else "confirmed",
                     updated=_between(rng, created, min(start, now)) if cancelled else created)
    draft = Draft(row=row, attendees=s.attendees(organizer, guests, start, created, optional_share=0.1))
    if kind in ("customer", "internal") and location == "Video call" and rng.random() < 0.55:
        room = s.room_for(len(guests) + 1, [(start, end)])
        if room is not None:
            row["room_id"], row["location"] = room
    return draft


def _insert(db: Session, drafts: list[Draft]) -> None:
    """Give ids in list order, set each series' span over its occurrences, and insert all rows."""
    events, attendees, overrides = [], [], []
    for event_id, draft in enumerate(drafts, start=1):
        row = {"id": event_id, **draft.row}
        times = [(i.start, i.end) for i in draft.occurrences]
        times += [(o["start_at"], o["end_at"]) for o in draft.overrides]
        if times:
            row["span_start"], row["span_end"] = min(t[0] for t in times), max(t[1] for t in times)
        events.append(row)
        attendees += [{"id": len(attendees) + i, "event_id": event_id, **a}
                      for i, a in enumerate(draft.attendees, start=1)]
        overrides += [{"id": len(overrides) + i, "event_id": event_id, **o}
                      for i, o in enumerate(draft.overrides, start=1)]
    db.execute(insert(Event), events)
    db.execute(insert(Attendee), attendees)
    db.execute(insert(OccurrenceOverride), overrides)


def populate(db: Session, world: World, rng: random.Random) -> None:
    """Fill an empty calendar database from the shared world."""
    person_ids = _directory(db, world)
    staff = list(world.employees)
    rng.shuffle(staff)
    teams: dict[str, list[WorldPerson]] = {}
    for name, size in TEAMS:
        teams[name], staff = staff[:size], staff[size:]
    contacts: dict[str, list[WorldPerson]] = {}
    for person in world.customers:
        contacts.setdefault(person.organization_id, []).append(person)
    s = Seeder(world=world, rng=rng, employees=world.employees, person_ids=person_ids, teams=teams,
               team_of={p.id: team for team, members in teams.items() for p in members},
               calendars=_calendars(db, world, teams, person_ids), contacts=contacts)
    recurring = _recurring(s)
    singles = sorted((_single(s) for _ in range(N_SINGLE_EVENTS)),
                     key=lambda d: (d.row["created_at"], d.row["start_at"]))
    _insert(db, recurring + singles)
