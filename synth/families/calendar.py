"""Calendar task families: meeting load compared across months, room usage compared, two
people's busy time compared, the most-met customer and its latest meeting, monthly meeting
series, a recurring series' occurrences in a month, a team calendar's owner and load, inviting
someone to a named meeting, a conditional decline, a refused request to remove an organiser,
and two-turn tasks: a follow-up on the next meeting with a customer, common free slots then a
booking, and a meeting's invitees then an uninvite."""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from typing import Any

from mcpgym.servers.calendar.seed import HISTORY_DAYS
from mcpgym.synth.family import Draft, Family, WorldView, month_name, month_window, previous_month

SERVER = "calendar"
FUTURE_HORIZON_DAYS = 56
"""How far ahead families look for upcoming meetings (the seeded world plans about two months)."""

_ORGS: dict[int, list[str]] = {}
"""Customer organisation names met in a seeded world, by world seed (the directory never changes)."""


def _iso(moment: datetime) -> str:
    return f"{moment:%Y-%m-%dT%H:%M:%SZ}"


def _parse(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")


def _day_name(day: date) -> str:
    return f"{day:%A} {day.day} {day:%B %Y}"


def _full_months(view: WorldView) -> list[tuple[int, int]]:
    """Calendar months wholly inside the seeded history, oldest first, up to last month."""
    first = (view.now - timedelta(days=HISTORY_DAYS)).date()
    months = []
    back = 1
    while True:
        year, month = previous_month(view.now.year, view.now.month, back)
        if date(year, month, 1) < first:
            break
        months.append((year, month))
        back += 1
    return months[::-1]


def _employees(view: WorldView) -> list[dict[str, Any]]:
    return view.read(SERVER, "search_people", is_employee=True, per_page=100)["people"]


def _customer_orgs(view: WorldView) -> list[str]:
    """Customers met at least once, whose name is no part of another customer's name (so the
    `organization` filter, a substring match, names exactly one)."""
    if view.seed not in _ORGS:
        stats = view.read(SERVER, "meeting_stats", time_min=_iso(view.now - timedelta(days=HISTORY_DAYS + 1)),
                          time_max=_iso(view.now + timedelta(days=FUTURE_HORIZON_DAYS + 10)), group_by="organization")
        names = sorted(g["key"] for g in stats["groups"] if g["key"] != "internal")
        _ORGS[view.seed] = [n for n in names if not any(n.lower() in o.lower() for o in names if o != n)]
    return _ORGS[view.seed]


def _upcoming_day(view: WorldView, rng: random.Random, first: int = 1) -> date:
    """A weekday in the planned future."""
    day = (view.now + timedelta(days=rng.randint(first, FUTURE_HORIZON_DAYS - 7))).date()
    while day.weekday() >= 5:
        day += timedelta(days=1)
    return day


def _day_window(day: date) -> tuple[str, str]:
    return f"{day}T00:00:00Z", f"{day + timedelta(days=1)}T00:00:00Z"


def _meetings_on(view: WorldView, day: date) -> list[dict[str, Any]]:
    """Confirmed one-off, timed meetings starting on a UTC day that have not begun yet."""
    start, end = _day_window(day)
    events = view.read(SERVER, "list_events", time_min=start, time_max=end, per_page=100)["events"]
    return [e for e in events if not e["recurring"] and not e["all_day"] and e["start"][:10] == str(day)
            and _parse(e["start"]) > view.now and e["attendee_count"] >= 2]


class PersonMonthComparison(Family):
    """An employee's meetings in one month against another: both counts, both totals of
    minutes, and the percentage change in meeting time."""

    name = "calendar.person-month-comparison"
    servers = (SERVER,)
    kind = "comparison"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = rng.choice(_employees(view))
        months = _full_months(view)
        gap = rng.choice((1, 1, 2, 3, 6, 12))
        if gap >= len(months):
            return None
        index = rng.randrange(gap, len(months))
        (year0, month0), (year, month) = months[index - gap], months[index]
        (a_start, a_end), (b_start, b_end) = month_window(year0, month0), month_window(year, month)
        first, second = month_name(year0, month0), month_name(year, month)
        who = person["name"]
        user = [
            f"How many meetings did {who} have in {first} and in {second} (UTC; leave out all-day entries such as out-of-office days), how many minutes of meetings was that each month, and by what percentage did their meeting time change from {first} to {second}?",
            f"Compare {who}'s calendar in {second} with {first}, counting by UTC dates and ignoring all-day entries: the number of meetings and total meeting minutes in each month, and the percent change in meeting minutes (one decimal).",
            f"I want to know whether {who} spent more time in meetings in {second} than in {first}. Not counting all-day entries, give me the meeting count and total minutes for each month (UTC) and the percentage change in minutes.",
        ]
        return Draft(
            family=self.name,
            key=f"{person['email']}|{first}|{second}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "search_people", "arguments": {"query": who, "is_employee": True}},
                    {"id": "c2", "tool": "meeting_stats", "arguments": {"time_min": a_start, "time_max": a_end, "all_day": False},
                     "bind": {"attendee_email": "{c1.people.0.email}"}},
                    {"id": "c3", "tool": "meeting_stats", "arguments": {"time_min": b_start, "time_max": b_end, "all_day": False},
                     "bind": {"attendee_email": "{c1.people.0.email}"}},
                ],
                "facts": [
                    {"name": f"meetings in {first}", "expr": "{c2.total_events}", "value": None},
                    {"name": f"meetings in {second}", "expr": "{c3.total_events}", "value": None},
                    {"name": f"meeting minutes in {first}", "expr": "{c2.total_minutes}", "value": None},
                    {"name": f"meeting minutes in {second}", "expr": "{c3.total_minutes}", "value": None},
                    {"name": "percentage change in meeting minutes",
                     "expr": "round(100 * ({c3.total_minutes} - {c2.total_minutes}) / {c2.total_minutes}, 1)", "value": None},
                ],
            }],
            checks=["{c1.total} == 1", "{c2.total_minutes} > 0", "{c2.total_minutes} != {c3.total_minutes}"],
        )


def _windows(view: WorldView) -> list[tuple[date, date]]:
    """Date ranges of 2 to 4 months starting on the 1st, 8th, 15th or 22nd, inside the history."""
    first = (view.now - timedelta(days=HISTORY_DAYS - 1)).date()
    last = view.now.date()
    found = []
    for year, month in [previous_month(view.now.year, view.now.month, back) for back in range(15)]:
        for day in (1, 8, 15, 22):
            start = date(year, month, day)
            for length in (2, 3, 4):
                end_year, end_month = divmod(year * 12 + month - 1 + length, 12)
                end = date(end_year, end_month + 1, day)
                if first <= start and end <= last:
                    found.append((start, end))
    return sorted(found)


def _span_name(start: date, end: date) -> str:
    return f"{start.day} {start:%B %Y} and {end.day} {end:%B %Y}"


class TopCustomerDrillDown(Family):
    """The customer with the most meetings in a date range, its latest meeting in that range,
    and who organised it (name and job title)."""

    name = "calendar.top-customer-drill-down"
    servers = (SERVER,)
    kind = "drill-down"

    def __init__(self) -> None:
        self._untied: dict[tuple[int, date, date], bool] = {}

    def _window(self, view: WorldView, rng: random.Random) -> tuple[date, date] | None:
        """A range whose most-met customer is not tied with the runner-up (a few tries; what
        each range gives is remembered per world seed)."""
        windows = _windows(view)
        for _ in range(8):
            start, end = rng.choice(windows)
            known = (view.seed, start, end)
            if known not in self._untied:
                groups = view.read(SERVER, "meeting_stats", group_by="organization",
                                   time_min=f"{start}T00:00:00Z", time_max=f"{end}T00:00:00Z")["groups"]
                self._untied[known] = (len(groups) >= 3 and groups[0]["key"] == "internal"
                                       and groups[1]["events"] != groups[2]["events"])
            if self._untied[known]:
                return start, end
        return None

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        chosen = self._window(view, rng)
        if chosen is None:
            return None
        start, end = chosen
        window = {"time_min": f"{start}T00:00:00Z", "time_max": f"{end}T00:00:00Z"}
        span = _span_name(start, end)
        user = [
            f"Which customer organisation did we have the most meetings with between {span} (UTC, end date excluded)? For the latest of those meetings, give me its title and start time, who organised it, and the organiser's job title.",
            f"From {start} up to (not including) {end}, UTC: which customer did we meet most often and how many times? Then take the most recent of those meetings: title, start (UTC), organiser and the organiser's job title.",
            f"Find the customer we met with most between {span} (UTC, excluding the last day), with the number of meetings. Who organised the last meeting with them in that period, what is that person's job title, and what was the meeting called and when did it start?",
        ]
        return Draft(
            family=self.name,
            key=f"{start}|{end}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "meeting_stats", "arguments": {**window, "group_by": "organization"}},
                    {"id": "c2", "tool": "list_events", "arguments": {**window, "per_page": 100},
                     "bind": {"organization": "{c1.groups.1.key}"}},
                    {"id": "c3", "tool": "get_person", "bind": {"email": "{c2.events.-1.organizer.email}"}},
                ],
                "facts": [
                    {"name": "customer met most often", "expr": "{c1.groups.1.label}", "value": None},
                    {"name": "meetings with them", "expr": "{c1.groups.1.events}", "value": None},
                    {"name": "latest meeting's title", "expr": "{c2.events.-1.title}", "value": None},
                    {"name": "latest meeting's start", "expr": "{c2.events.-1.start}", "value": None},
                    {"name": "its organiser", "expr": "{c3.name}", "value": None},
                    {"name": "organiser's job title", "expr": "{c3.job_title}", "value": None},
                ],
            }],
            checks=[
                "{c1.groups.0.key} == 'internal'",
                "{c1.groups.1.events} != {c1.groups.2.events}",
                "{c2.total} == {c1.groups.1.events}",
                "{c2.total} == 1 or {c2.events.-1.start} != {c2.events.-2.start}",
            ],
        )


class MonthlyMeetingSeries(Family):
    """Meetings of an employee, or with a customer, in each of 6 to 12 consecutive months: the
    total, the busiest month's count and the quietest month's count."""

    name = "calendar.monthly-meeting-series"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        months = _full_months(view)
        length = rng.choice((6, 9, 12))
        if length > len(months):
            return None
        begin = rng.randrange(0, len(months) - length + 1)
        periods = months[begin:begin + length]
        first, last = month_name(*periods[0]), month_name(*periods[-1])
        calls: list[dict[str, Any]] = []
        if rng.random() < 0.5:
            person = rng.choice(_employees(view))
            subject, key = person["name"], person["email"]
            calls.append({"id": "c0", "tool": "search_people", "arguments": {"query": subject, "is_employee": True}})
            scope: dict[str, Any] = {"arguments": {"all_day": False}, "bind": {"attendee_email": "{c0.people.0.email}"}}
            what = f"timed meetings on {subject}'s calendar (all-day entries excluded)"
            short = f"{subject}'s meetings"
            checks = ["{c0.total} == 1"]
        else:
            org = rng.choice(_customer_orgs(view))
            subject, key = org, f"org:{org}"
            scope = {"arguments": {"organization": org}}
            what = f"meetings we had with {org}"
            short = f"meetings with {org}"
            checks = []
        for i, (year, month) in enumerate(periods, start=1):
            start, end = month_window(year, month)
            calls.append({"id": f"c{i}", "tool": "meeting_stats",
                          "arguments": {"time_min": start, "time_max": end, **scope.get("arguments", {})},
                          **({"bind": scope["bind"]} if "bind" in scope else {})})
        counts = ", ".join(f"{{c{i}.total_events}}" for i in range(1, length + 1))
        user = [
            f"Count the {what} in each month from {first} through {last} (UTC months). What is the total over those {length} months, and how many were there in the busiest and in the quietest month?",
            f"Month by month from {first} to {last}, UTC: what was the number of {what}? I need the {length}-month total plus the highest and lowest monthly counts.",
            f"Between {first} and {last} inclusive (by UTC month), what was the total number of {what}, and what were the largest and smallest numbers in a single month?",
        ]
        return Draft(
            family=self.name,
            key=f"{key}|{first}|{length}",
            turns=[{"user": user, "calls": calls, "facts": [
                {"name": f"{short} over the {length} months", "expr": " + ".join(f"{{c{i}.total_events}}" for i in range(1, length + 1)), "value": None},
                {"name": "busiest month's count", "expr": f"max({counts})", "value": None},
                {"name": "quietest month's count", "expr": f"min({counts})", "value": None},
            ]}],
            checks=[*checks, f"max({counts}) > 0", f"max({counts}) != min({counts})"],
        )


def _invitable(view: WorldView, rng: random.Random, detail: dict[str, Any]) -> dict[str, Any] | None:
    """Someone not yet invited to a meeting who fits it: another contact of the customer for a
    customer meeting, else a colleague."""
    invited = {a["email"] for a in detail["attendees"]}
    customers = sorted({a["organization_name"] for a in detail["attendees"] if not a["is_employee"]})
    if customers:
        pool = view.read(SERVER, "search_people", organization=rng.choice(customers), is_employee=False, per_page=100)["people"]
    else:
        pool = _employees(view)
    pool = [p for p in pool if p["email"] not in invited]
    if not pool:
        return None
    person = rng.choice(pool)
    same_name = view.read(SERVER, "search_people", query=person["name"])["total"]
    return person if same_name == 1 else None


class AddAttendeeToMeeting(Family):
    """Invite a person the user names to a meeting the user names by title, organiser and time."""

    name = "calendar.add-attendee"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        for _ in range(6):
            found = self._ground(view, rng)
            if found is not None:
                return found
        return None

    def _ground(self, view: WorldView, rng: random.Random) -> Draft | None:
        day = _upcoming_day(view, rng)
        meetings = _meetings_on(view, day)
        if not meetings:
            return None
        meeting = rng.choice(meetings)
        detail = view.read(SERVER, "get_event", event_id=meeting["event_id"])
        room = detail["room"]
        if room is not None and room["capacity"] <= detail["attendee_count"]:
            return None
        guest = _invitable(view, rng, detail)
        if guest is None:
            return None
        title, organizer = meeting["title"], meeting["organizer"]["name"]
        at = meeting["start"][11:16]
        start, end = _day_window(day)
        user = [
            f"Please add {guest['name']} to the \"{title}\" meeting {organizer} organised for {_day_name(day)} at {at} UTC. How many people are invited once they are on it?",
            f"Invite {guest['name']} ({guest['organization_name']}) to {organizer}'s \"{title}\" on {day}, {at} UTC, and tell me the new number of attendees.",
            f"{organizer} has \"{title}\" on {day} at {at} UTC. Put {guest['name']} on the invite too, then tell me how many invitees it has now.",
        ]
        return Draft(
            family=self.name,
            key=f"event:{meeting['event_id']}|{guest['email']}",
            writes=True,
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "search_people", "arguments": {"query": organizer, "is_employee": True}},
                    {"id": "c2", "tool": "search_people", "arguments": {"query": guest["name"]}},
                    {"id": "c3", "tool": "list_events", "arguments": {"query": title, "time_min": start, "time_max": end},
                     "bind": {"organizer_email": "{c1.people.0.email}"}},
                    {"id": "c4", "tool": "add_attendees", "bind": {"event_id": "{c3.events.0.event_id}", "emails": "[{c2.people.0.email}]"}},
                ],
                "facts": [
                    {"name": "people invited now", "expr": "{c4.attendee_count}", "value": None},
                ],
            }],
            checks=["{c1.total} == 1", "{c2.total} == 1", "{c3.total} == 1",
                    "{c4.attendee_count} == {c3.events.0.attendee_count} + 1"],
        )


class ConditionalDecline(Family):
    """If an employee has more than N meetings in a coming week, decline one named meeting that
    week on their behalf; either way, say how many meetings they have that week."""

    name = "calendar.conditional-decline"
    servers = (SERVER,)
    kind = "conditional-write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        for _ in range(6):
            found = self._ground(view, rng)
            if found is not None:
                return found
        return None

    def _ground(self, view: WorldView, rng: random.Random) -> Draft | None:
        monday = (view.now + timedelta(days=7 - view.now.weekday())).date() + timedelta(weeks=rng.randint(0, 6))
        day = monday + timedelta(days=rng.randint(0, 4))
        meetings = _meetings_on(view, day)
        if not meetings:
            return None
        meeting = rng.choice(meetings)
        detail = view.read(SERVER, "get_event", event_id=meeting["event_id"])
        invitees = [a for a in detail["attendees"] if a["is_employee"] and not a["organizer"] and a["response_status"] != "declined"]
        if not invitees:
            return None
        person = rng.choice(invitees)
        if view.read(SERVER, "search_people", query=person["name"], is_employee=True)["total"] != 1:
            return None
        friday, saturday = monday + timedelta(days=4), monday + timedelta(days=5)
        week = {"time_min": f"{monday}T00:00:00Z", "time_max": f"{saturday}T00:00:00Z"}
        count = view.read(SERVER, "meeting_stats", attendee_email=person["email"], all_day=False, **week)["total_events"]
        threshold = max(0, count - rng.randint(1, 3)) if rng.random() < 0.5 else count + rng.randint(0, 2)
        decline = count > threshold
        who, title = person["name"], meeting["title"]
        at = meeting["start"][11:16]
        span = f"{monday:%A} {monday.day} to {friday:%A} {friday.day} {friday:%B %Y}"
        user = [
            f"{who} is overloaded. If they have more than {threshold} meetings (all-day entries don't count) in the week of {span} (UTC), decline \"{title}\" on {_day_name(day)} at {at} UTC for them. Either way, tell me how many meetings they have that week.",
            f"How many meetings, not counting all-day entries, does {who} have from {monday} to {friday} (UTC)? If it is more than {threshold}, respond 'declined' on their behalf to the \"{title}\" meeting on {day} at {at} UTC; otherwise leave it.",
            f"Check {who}'s meeting count for {span}, UTC, leaving out all-day entries. Over {threshold}? Then decline the \"{title}\" invite ({day}, {at} UTC) for them. Tell me the count either way.",
        ]
        calls: list[dict[str, Any]] = [
            {"id": "c1", "tool": "search_people", "arguments": {"query": who, "is_employee": True}},
            {"id": "c2", "tool": "meeting_stats", "arguments": {**week, "all_day": False}, "bind": {"attendee_email": "{c1.people.0.email}"}},
        ]
        checks = ["{c1.total} == 1", f"{{c2.total_events}} {'>' if decline else '<='} {threshold}"]
        if decline:
            start, end = _day_window(day)
            calls += [
                {"id": "c3", "tool": "list_events", "arguments": {"query": title, "time_min": start, "time_max": end},
                 "bind": {"attendee_email": "{c1.people.0.email}"}},
                {"id": "c4", "tool": "respond_to_event", "arguments": {"response": "declined"},
                 "bind": {"event_id": "{c3.events.0.event_id}", "attendee_email": "{c1.people.0.email}"}},
            ]
            checks.append("{c3.total} == 1")
        return Draft(
            family=self.name,
            key=f"{person['email']}|event:{meeting['event_id']}|{threshold}",
            writes=decline,
            turns=[{"user": user, "calls": calls, "facts": [
                {"name": f"{who}'s meetings that week", "expr": "{c2.total_events}", "value": None},
            ]}],
            checks=checks,
        )


class NextCustomerMeetingFollowUp(Family):
    """Two turns: the next meeting with a customer, or with one customer contact (title, start,
    organiser); then act on that meeting: book a room the user names, release its room, push it
    back an hour, or cancel it."""

    name = "calendar.next-customer-meeting-follow-up"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        window = {"time_min": _iso(view.now), "time_max": _iso(view.now + timedelta(days=FUTURE_HORIZON_DAYS))}
        orgs = set(_customer_orgs(view))
        upcoming: list[dict[str, Any]] = []
        for _ in range(4):
            upcoming = [m for m in _meetings_on(view, _upcoming_day(view, rng, first=0)) if m["title"].split(": ")[0] in orgs]
            if upcoming:
                break
        if not upcoming:
            return None
        sampled = view.read(SERVER, "get_event", event_id=rng.choice(upcoming)["event_id"])
        org = sampled["title"].split(": ")[0]
        contacts = [a for a in sampled["attendees"] if not a["is_employee"]]
        find: dict[str, Any]
        if rng.random() < 0.4 or not contacts:
            found = view.read(SERVER, "list_events", organization=org, per_page=2, **window)
            subject, key = org, f"org:{org}"
            lookups: list[dict[str, Any]] = []
            find = {"arguments": {"organization": org, "per_page": 2, **window}}
            checks: list[str] = []
        else:
            contact = rng.choice(contacts)
            if view.read(SERVER, "search_people", query=contact["name"], is_employee=False)["total"] != 1:
                return None
            found = view.read(SERVER, "list_events", attendee_email=contact["email"], per_page=2, **window)
            subject, key = f"{contact['name']} from {contact['organization_name']}", f"person:{contact['email']}"
            lookups = [{"id": "c0", "tool": "search_people", "arguments": {"query": contact["name"], "is_employee": False}}]
            find = {"arguments": {"per_page": 2, **window}, "bind": {"attendee_email": "{c0.people.0.email}"}}
            checks = ["{c0.total} == 1"]
        events = found["events"]
        if not events or _parse(events[0]["start"]) <= view.now:
            return None
        meeting = events[0]
        if meeting["room"] is not None:
            actions = ["cancel", "release"]
        elif meeting["location"] == "Video call":
            actions = ["cancel", "later", "room"]
        else:
            actions = ["cancel", "later"]
        action = rng.choice(actions)
        room: dict[str, Any] | None = None
        if action == "room":
            free = view.read(SERVER, "list_rooms", min_capacity=meeting["attendee_count"],
                             available_from=meeting["start"], available_until=meeting["end"])["rooms"]
            if not free:
                return None
            room = rng.choice(free[:3])
        first = [
            f"When is our next meeting with {subject}? Give me its title, start time in UTC and who organised it.",
            f"What's the next meeting on the calendar with {subject}: what is it called, when does it start (UTC), and who is the organiser?",
            f"Look up the next upcoming meeting with {subject} for me: title, UTC start and organiser.",
        ]
        turn1 = {"user": first, "calls": [
            *lookups,
            {"id": "c1", "tool": "list_events", **find},
        ], "facts": [
            {"name": "next meeting's title", "expr": "{c1.events.0.title}", "value": None},
            {"name": "its start", "expr": "{c1.events.0.start}", "value": None},
            {"name": "its organiser", "expr": "{c1.events.0.organizer.name}", "value": None},
        ]}
        checks.append("{c1.total} == 1 or {c1.events.0.start} != {c1.events.1.start}")
        if action == "room" and room is not None:
            second = [
                f"Let's hold that one in the office: please book the {room['name']} room for it. Which building and floor is that room on?",
                f"Book meeting room {room['name']} for that meeting, and tell me its building and floor.",
                f"Could you reserve {room['name']} for that one? Also remind me which building and floor it's on.",
            ]
            turn2 = {"user": second, "calls": [
                {"id": "c2", "tool": "list_rooms", "arguments": {}},
                {"id": "c3", "tool": "book_room", "arguments": {"room_id": room["id"]}, "bind": {"event_id": "{c1.events.0.event_id}"}},
            ], "facts": [
                {"name": "room's building", "expr": "{c3.room.building}", "value": None},
                {"name": "room's floor", "expr": "{c3.room.floor}", "value": None},
            ]}
        elif action == "release":
            second = [
                "We'll do that one over video instead: release its meeting room. Which room was it?",
                "Please give up the room booked for that meeting; it's moving to a video call. Which room did it have?",
                "That meeting doesn't need a room any more. Release the room and tell me which one it was.",
            ]
            turn2 = {"user": second, "calls": [
                {"id": "c2", "tool": "release_room", "bind": {"event_id": "{c1.events.0.event_id}"}},
            ], "facts": [
                {"name": "room released", "expr": "{c1.events.0.room.name}", "value": None},
            ]}
        elif action == "later":
            new_start = _iso(_parse(meeting["start"]) + timedelta(hours=1))
            second = [
                "Can you push that one back by an hour, keeping its length? When does it end now (UTC)?",
                "Move that meeting one hour later, same duration, and tell me its new end time in UTC.",
                "Please shift that meeting an hour later (same length). What's the new end time, UTC?",
            ]
            turn2 = {"user": second, "calls": [
                {"id": "c2", "tool": "update_event", "arguments": {"start": new_start},
                 "bind": {"event_id": "{c1.events.0.event_id}"}},
            ], "facts": [
                {"name": "new end", "expr": "{c2.end}", "value": None},
            ]}
        else:
            second = [
                "The customer just called that one off. Please cancel it.",
                "Thanks. That meeting isn't happening after all: cancel it, please.",
                "Cancel that meeting; they asked to drop it.",
            ]
            turn2 = {"user": second, "calls": [
                {"id": "c2", "tool": "cancel_event", "bind": {"event_id": "{c1.events.0.event_id}"}},
            ], "facts": [
                {"name": "its status now", "expr": "{c2.status}", "value": None},
            ]}
        return Draft(
            family=self.name,
            key=f"{key}|{action}",
            writes=True,
            turns=[turn1, turn2],
            checks=checks,
        )


class RoomMonthComparison(Family):
    """Minutes two rooms were booked in one month, and the difference between them."""

    name = "calendar.room-month-comparison"
    servers = (SERVER,)
    kind = "comparison"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        rooms = view.read(SERVER, "list_rooms")["rooms"]
        year, month = rng.choice(_full_months(view))
        start, end = month_window(year, month)
        used = {r["id"]: view.read(SERVER, "get_room_availability", room_id=r["id"], time_min=start, time_max=end)["busy_minutes"]
                for r in rooms}
        pairs = [(a, b) for a in rooms for b in rooms if a["id"] < b["id"] and used[a["id"]] != used[b["id"]]]
        if not pairs:
            return None
        first_room, second_room = rng.choice(pairs)
        when = month_name(year, month)
        a, b = first_room["name"], second_room["name"]
        user = [
            f"How many minutes were the {a} and {b} rooms booked in {when} (UTC), and how many more minutes was {a} booked than {b}?",
            f"Compare room usage in {when}, UTC: total booked minutes for {a} and for {b}, and the difference ({a} minus {b}).",
            f"I'm looking at room utilisation for {when} (UTC). Give me the booked minutes of {a} and of {b}, and {a}'s minutes minus {b}'s.",
        ]
        window = {"time_min": start, "time_max": end}
        return Draft(
            family=self.name,
            key=f"{a}|{b}|{when}",
            turns=[{"user": user, "calls": [
                {"id": "c1", "tool": "list_rooms", "arguments": {}},
                {"id": "c2", "tool": "get_room_availability", "arguments": {"room_id": first_room["id"], **window}},
                {"id": "c3", "tool": "get_room_availability", "arguments": {"room_id": second_room["id"], **window}},
            ], "facts": [
                {"name": f"{a} booked minutes", "expr": "{c2.busy_minutes}", "value": None},
                {"name": f"{b} booked minutes", "expr": "{c3.busy_minutes}", "value": None},
                {"name": f"{a} minus {b}", "expr": "{c2.busy_minutes} - {c3.busy_minutes}", "value": None},
            ]}],
            checks=["{c2.busy_minutes} + {c3.busy_minutes} > 0", "{c2.busy_minutes} != {c3.busy_minutes}"],
        )


def _employee_named(view: WorldView, people: list[dict[str, Any]], rng: random.Random) -> dict[str, Any] | None:
    """A random employee whose name a directory search finds alone."""
    person = rng.choice(people)
    return person if view.read(SERVER, "search_people", query=person["name"], is_employee=True)["total"] == 1 else None


def _find_person(call_id: str, name: str) -> dict[str, Any]:
    """The call that finds an employee by name."""
    return {"id": call_id, "tool": "search_people", "arguments": {"query": name, "is_employee": True}}


class SharedCalendarAgenda(Family):
    """A team calendar named by its team: who owns it, its time zone, and how many events it
    holds in a month."""

    name = "calendar.shared-calendar-agenda"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        calendar = rng.choice(view.read(SERVER, "list_calendars", kind="shared")["calendars"])
        name = calendar["name"]
        if view.read(SERVER, "list_calendars", kind="shared", query=name)["total"] != 1:
            return None
        year, month = rng.choice(_full_months(view)[-6:])
        start, end = month_window(year, month)
        when = month_name(year, month)
        user = [
            f"Who owns the shared \"{name}\" calendar, which time zone is it kept in, and how many events (occurrences of recurring ones included) were on it in {when} (UTC)?",
            f"For the shared calendar {name}: owner, time zone, and the number of events it had in {when}, UTC, counting each occurrence of a series.",
            f"Tell me about the shared calendar \"{name}\": whose is it, what time zone does it use, and how many events did it hold during {when} (UTC, every occurrence counts)?",
        ]
        return Draft(family=self.name, key=f"calendar:{name}|{when}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_calendars", "arguments": {"kind": "shared", "query": name}},
            {"id": "c2", "tool": "list_events", "arguments": {"time_min": start, "time_max": end, "per_page": 1},
             "bind": {"calendar_id": "{c1.calendars.0.id}"}},
        ], "facts": [
            {"name": "owner", "expr": "{c1.calendars.0.owner.name}", "value": None},
            {"name": "time zone", "expr": "{c1.calendars.0.time_zone}", "value": None},
            {"name": f"events in {when}", "expr": "{c2.total}", "value": None},
        ]}], checks=["{c1.total} == 1", "{c2.total} > 0"])


class SeriesOccurrences(Family):
    """A recurring meeting named by its title and organiser: how many times it takes place in a
    coming month (cancelled ones left out), when the first of them starts, and how many people
    the series invites."""

    name = "calendar.series-occurrences"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        soon = {"time_min": _iso(view.now), "time_max": _iso(view.now + timedelta(days=14))}
        listed = view.read(SERVER, "list_events", per_page=100, page=rng.randint(1, 3), **soon)["events"]
        series = [e for e in listed if e["recurring"] and not e["all_day"]]
        if not series:
            return None
        event = rng.choice(series)
        title, organizer = event["title"], event["organizer"]["name"]
        if view.read(SERVER, "search_people", query=organizer, is_employee=True)["total"] != 1:
            return None
        same = view.read(SERVER, "list_events", query=title, organizer_email=event["organizer"]["email"], per_page=100, **soon)
        if same["total"] > 100 or any(e["event_id"] != event["event_id"] for e in same["events"]):
            return None
        year, month = previous_month(view.now.year, view.now.month, -1)
        start, end = month_window(year, month)
        when = month_name(year, month)
        user = [
            f"How many times does {organizer}'s recurring \"{title}\" take place in {when} (UTC), not counting cancelled occurrences? When is the first of them, and how many people are invited to the series?",
            f"{organizer} runs a series called \"{title}\". Count its occurrences in {when} (UTC, skip cancelled ones), give me the start of the first one that month, and tell me how many invitees the series has.",
            f"Look up the \"{title}\" series organised by {organizer}: number of (not cancelled) occurrences during {when} in UTC, the first one's start time, and the number of people on the invite.",
        ]
        return Draft(family=self.name, key=f"series:{event['event_id']}|{when}", turns=[{"user": user, "calls": [
            _find_person("c1", organizer),
            {"id": "c2", "tool": "list_events", "arguments": {"query": title, **soon, "per_page": 1},
             "bind": {"organizer_email": "{c1.people.0.email}"}},
            {"id": "c3", "tool": "list_event_instances",
             "arguments": {"time_min": start, "time_max": end, "include_cancelled": False, "per_page": 1},
             "bind": {"event_id": "{c2.events.0.event_id}"}},
            {"id": "c4", "tool": "get_event", "bind": {"event_id": "{c2.events.0.event_id}"}},
        ], "facts": [
            {"name": f"occurrences in {when}", "expr": "{c3.total}", "value": None},
            {"name": "first occurrence's start", "expr": "{c3.events.0.start}", "value": None},
            {"name": "people invited", "expr": "len({c4.attendees})", "value": None},
        ]}], checks=["{c1.total} == 1", "{c3.total} > 0"])


class FreeBusyComparison(Family):
    """Two employees' busy time over a coming week: each one's busy minutes and who is busier
    by how much."""

    name = "calendar.free-busy-comparison"
    servers = (SERVER,)
    kind = "comparison"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        for _ in range(4):
            found = self._ground(view, rng)
            if found is not None:
                return found
        return None

    def _ground(self, view: WorldView, rng: random.Random) -> Draft | None:
        people = _employees(view)
        first, second = _employee_named(view, people, rng), _employee_named(view, people, rng)
        if first is None or second is None or first["email"] == second["email"]:
            return None
        monday = (view.now + timedelta(days=7 - view.now.weekday())).date() + timedelta(weeks=rng.randint(0, 5))
        saturday = monday + timedelta(days=5)
        window = {"time_min": f"{monday}T00:00:00Z", "time_max": f"{saturday}T00:00:00Z"}
        a, b = first["name"], second["name"]
        span = f"Monday {monday.day} {monday:%B} to Friday {(saturday - timedelta(days=1)).day} {saturday - timedelta(days=1):%B %Y}"
        user = [
            f"Who has more busy time in the week of {span} (UTC): {a} or {b}? Give me both totals in minutes and the difference ({a} minus {b}).",
            f"Compare the calendars of {a} and {b} from {monday} to {saturday - timedelta(days=1)} inclusive (UTC): busy minutes for each, and {a}'s minutes minus {b}'s.",
            f"How booked up are {a} and {b} in the week starting {monday} (Monday to Friday, UTC)? I need each one's busy minutes and how many more minutes {a} is busy than {b}.",
        ]
        return Draft(family=self.name, key=f"{first['email']}|{second['email']}|{monday}", turns=[{"user": user, "calls": [
            _find_person("c1", a),
            _find_person("c2", b),
            {"id": "c3", "tool": "get_free_busy", "arguments": window,
             "bind": {"emails": "[{c1.people.0.email}, {c2.people.0.email}]"}},
        ], "facts": [
            {"name": f"{a}'s busy minutes", "expr": "{c3.people.0.busy_minutes}", "value": None},
            {"name": f"{b}'s busy minutes", "expr": "{c3.people.1.busy_minutes}", "value": None},
            {"name": f"{a} minus {b}", "expr": "{c3.people.0.busy_minutes} - {c3.people.1.busy_minutes}", "value": None},
        ]}], checks=["{c1.total} == 1", "{c2.total} == 1",
                     "{c3.people.0.busy_minutes} != {c3.people.1.busy_minutes}"])


MEETING_TOPICS = ("Roadmap check-in", "Budget review", "Hiring sync", "Project kickoff", "Quarterly planning",
                  "Process retrospective")


class FreeSlotsThenBook(Family):
    """Two turns: the first two slots in a coming week when two or three employees are all
    free during working hours; then book the first on the first one's calendar, inviting the
    others."""

    name = "calendar.free-slots-then-book"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        people = _employees(view)
        chosen = [_employee_named(view, people, rng) for _ in range(rng.choice((2, 2, 3)))]
        if any(p is None for p in chosen) or len({p["email"] for p in chosen if p}) != len(chosen):
            return None
        host, *guests = [p for p in chosen if p is not None]
        if view.read(SERVER, "list_calendars", kind="primary", query=host["email"])["total"] != 1:
            return None
        monday = (view.now + timedelta(days=7 - view.now.weekday())).date() + timedelta(weeks=rng.randint(0, 3))
        friday = monday + timedelta(days=4)
        minutes = rng.choice((30, 45, 60, 90))
        topic = rng.choice(MEETING_TOPICS)
        window = {"time_min": f"{monday}T00:00:00Z", "time_max": f"{friday + timedelta(days=1)}T00:00:00Z"}
        everyone = " and ".join([", ".join(p["name"] for p in (host, *guests)[:-1]), guests[-1]["name"]])
        names = " and ".join(g["name"] for g in guests)
        first = [
            f"When are {everyone} all free for {minutes} minutes in the week of {monday} (Monday to Friday, 09:00-17:00 UTC)? Give me the two earliest options.",
            f"Find the first two {minutes}-minute slots between {monday} and {friday}, within 9-to-5 UTC working hours, when {everyone} are all available.",
            f"I need {minutes} minutes with {everyone} some time from {monday} to {friday} (weekdays, 09:00-17:00 UTC). What are the two earliest times that work for everyone?",
        ]
        second = [
            f"Book the first one as \"{topic}\" on {host['name']}'s calendar and invite {names}.",
            f"Take the earliest slot: put \"{topic}\" on {host['name']}'s own calendar with {names} invited.",
            f"Please schedule \"{topic}\" in the first of those slots, on {host['name']}'s calendar, inviting {names}.",
        ]
        n = len(guests) + 1
        lookups = [_find_person(f"c{i}", p["name"]) for i, p in enumerate((host, *guests), start=1)]
        emails = ", ".join(f"{{c{i}.people.0.email}}" for i in range(1, n + 1))
        invited = ", ".join(f"{{c{i}.people.0.email}}" for i in range(2, n + 1))
        slots, calendar, created = f"c{n + 1}", f"c{n + 2}", f"c{n + 3}"
        return Draft(
            family=self.name,
            key=f"{'|'.join(p['email'] for p in (host, *guests))}|{monday}|{minutes}|{topic}",
            writes=True,
            turns=[
                {"user": first, "calls": [
                    *lookups,
                    {"id": slots, "tool": "find_meeting_slots",
                     "arguments": {"duration_minutes": minutes, "max_results": 2, **window},
                     "bind": {"attendee_emails": f"[{emails}]"}},
                ], "facts": [
                    {"name": "earliest slot", "expr": f"{{{slots}.slots.0.start}}", "value": None},
                    {"name": "second slot", "expr": f"{{{slots}.slots.1.start}}", "value": None},
                ]},
                {"user": second, "calls": [
                    {"id": calendar, "tool": "list_calendars", "arguments": {"kind": "primary"},
                     "bind": {"query": "{c1.people.0.email}"}},
                    {"id": created, "tool": "create_event", "arguments": {"title": topic},
                     "bind": {"calendar_id": f"{{{calendar}.calendars.0.id}}", "start": f"{{{slots}.slots.0.start}}",
                              "end": f"{{{slots}.slots.0.end}}", "attendee_emails": f"[{invited}]"}},
                ], "facts": []},
            ],
            checks=[*(f"{{c{i}.total}} == 1" for i in range(1, n + 1)), f"len({{{slots}.slots}}) == 2",
                    f"{{{calendar}.total}} == 1"],
        )


class AttendeesThenUninvite(Family):
    """Two turns: how many people are invited to a coming meeting (named by organiser, title
    and time) and what one invitee answered; then take that invitee off the meeting."""

    name = "calendar.attendees-then-uninvite"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        for _ in range(4):
            found = self._ground(view, rng)
            if found is not None:
                return found
        return None

    def _ground(self, view: WorldView, rng: random.Random) -> Draft | None:
        meetings = _meetings_on(view, _upcoming_day(view, rng))
        if not meetings:
            return None
        meeting = rng.choice(meetings)
        organizer = meeting["organizer"]["name"]
        if view.read(SERVER, "search_people", query=organizer, is_employee=True)["total"] != 1:
            return None
        attendees = view.read(SERVER, "get_event", event_id=meeting["event_id"])["attendees"]
        guests = [i for i, a in enumerate(attendees) if not a["organizer"]]
        if not guests:
            return None
        index = rng.choice(guests)
        guest = attendees[index]
        who = guest["name"] if guest["is_employee"] else f"{guest['name']} ({guest['organization_name']})"
        title, day = meeting["title"], _parse(meeting["start"]).date()
        start, end = _day_window(day)
        at = meeting["start"][11:16]
        first = [
            f"How many people are invited to {organizer}'s \"{title}\" on {_day_name(day)} at {at} UTC, and what has {who} responded?",
            f"For \"{title}\" ({organizer}'s meeting, {day} {at} UTC): number of invitees, and the response {who} gave to the invitation.",
            f"Check {organizer}'s meeting \"{title}\" on {day} at {at} UTC: how many attendees are on it and how did {who} answer the invite?",
        ]
        second = [
            f"Please take {guest['name']} off that invite. How many people are invited now?",
            f"{guest['name']} won't be joining: remove them from the meeting and tell me the new attendee count.",
            f"Uninvite {guest['name']} from it, then tell me how many invitees are left.",
        ]
        return Draft(
            family=self.name,
            key=f"event:{meeting['event_id']}|{guest['email']}",
            writes=True,
            turns=[
                {"user": first, "calls": [
                    _find_person("c1", organizer),
                    {"id": "c2", "tool": "list_events", "arguments": {"query": title, "time_min": start, "time_max": end},
                     "bind": {"organizer_email": "{c1.people.0.email}"}},
                    {"id": "c3", "tool": "get_event", "bind": {"event_id": "{c2.events.0.event_id}"}},
                ], "facts": [
                    {"name": "people invited", "expr": "len({c3.attendees})", "value": None},
                    {"name": f"{guest['name']}'s response", "expr": f"{{c3.attendees.{index}.response_status}}", "value": None},
                ]},
                {"user": second, "calls": [
                    {"id": "c4", "tool": "remove_attendee",
                     "bind": {"event_id": "{c2.events.0.event_id}", "email": f"{{c3.attendees.{index}.email}}"}},
                ], "facts": [
                    {"name": "people invited now", "expr": "len({c4.attendees})", "value": None},
                ]},
            ],
            checks=["{c1.total} == 1", "{c2.total} == 1", f"{{c3.attendees.{index}.email}} == {guest['email']!r}"],
        )


class RemoveOrganizer(Family):
    """Asked to take the organiser off their own meeting: the calendar refuses (an organiser
    can only cancel), so nothing changes; the answer is who else is invited, by count."""

    name = "calendar.remove-organizer"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        meetings = _meetings_on(view, _upcoming_day(view, rng))
        if not meetings:
            return None
        meeting = rng.choice(meetings)
        organizer = meeting["organizer"]["name"]
        if view.read(SERVER, "search_people", query=organizer, is_employee=True)["total"] != 1:
            return None
        title, day = meeting["title"], _parse(meeting["start"]).date()
        start, end = _day_window(day)
        at = meeting["start"][11:16]
        user = [
            f"Remove {organizer} from the attendees of their own meeting \"{title}\" on {_day_name(day)} at {at} UTC, but don't cancel it. If that can't be done, tell me how many people are invited to it.",
            f"Take {organizer} off \"{title}\" ({day}, {at} UTC) without cancelling the meeting; if it isn't allowed, just tell me how many invitees it has.",
        ]
        return Draft(family=self.name, key=f"event:{meeting['event_id']}", turns=[{"user": user, "calls": [
            _find_person("c1", organizer),
            {"id": "c2", "tool": "list_events", "arguments": {"query": title, "time_min": start, "time_max": end},
             "bind": {"organizer_email": "{c1.people.0.email}"}},
        ], "facts": [
            {"name": "people invited", "expr": "{c2.events.0.attendee_count}", "value": None},
        ]}], checks=["{c1.total} == 1", "{c2.total} == 1"])


CALENDAR_FAMILIES = (
    PersonMonthComparison(),
    TopCustomerDrillDown(),
    MonthlyMeetingSeries(),
    AddAttendeeToMeeting(),
    ConditionalDecline(),
    NextCustomerMeetingFollowUp(),
    RoomMonthComparison(),
    SharedCalendarAgenda(),
    SeriesOccurrences(),
    FreeBusyComparison(),
    FreeSlotsThenBook(),
    AttendeesThenUninvite(),
    RemoveOrganizer(),
)
