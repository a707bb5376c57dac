"""Domain behaviour of the calendar server, through `ToolSession.call`."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpgym.servers.calendar import SERVER
from mcpgym.servers.kernel import ToolSession, build_world
from tool_calls import fails, ok, uncached_env


@pytest.fixture()
def session() -> ToolSession:
    return ToolSession(SERVER, 0)


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")


def next_weekday(session: ToolSession, days_ahead: int, hour: int) -> datetime:
    """A weekday at `hour`:00 UTC at least `days_ahead` days after the world's now."""
    day = (session.context.now + timedelta(days=days_ahead)).replace(hour=hour, minute=0, second=0)
    while day.weekday() >= 5:
        day += timedelta(days=1)
    return day


def employees(n: int) -> list[str]:
    return [p.email for p in build_world(0).employees[:n]]


def customer_email() -> str:
    return build_world(0).customers[0].email


def future_event(session: ToolSession, **extra: Any) -> dict[str, Any]:
    start = next_weekday(session, 9, 7)
    args = {"calendar_id": 2, "title": "Planning session", "start": iso(start),
            "end": iso(start + timedelta(hours=1))} | extra
    return ok(session, "create_event", args)


def test_get_person_agrees_with_the_shared_world(session: ToolSession) -> None:
    world = build_world(0)
    orgs = {o.id: o.name for o in world.organizations}
    for person in (world.employees[3], world.customers[17]):
        data = ok(session, "get_person", {"email": person.email.upper()})
        assert (data["person_id"], data["name"], data["email"]) == (person.id, person.name, person.email)
        assert data["organization_name"] == orgs[person.organization_id]
        assert data["is_employee"] is person.is_employee
        assert (data["primary_calendar_id"] is not None) is person.is_employee


def test_customer_meetings_are_titled_with_and_attended_by_the_customer(session: ToolSession) -> None:
    now = session.context.now
    window = {"time_min": iso(now - timedelta(days=420)), "time_max": iso(now + timedelta(days=60))}
    stats = ok(session, "meeting_stats", {"group_by": "organization", **window})
    top = next(g for g in stats["groups"] if g["key"] != "internal")
    listed = ok(session, "list_events", {"organization": top["key"], "per_page": 100, **window})
    assert listed["total"] == top["events"] > 0
    assert all(top["key"] in e["title"] for e in listed["events"])
    detail = ok(session, "get_event", {"event_id": listed["events"][0]["event_id"]})
    assert any(a["organization_name"] == top["key"] and not a["is_employee"] for a in detail["attendees"])


def test_history_spans_over_a_year_and_rooms_are_never_double_booked(session: ToolSession) -> None:
    now = session.context.now
    old = ok(session, "list_events", {"time_min": iso(now - timedelta(days=420)),
                                      "time_max": iso(now - timedelta(days=380))})
    ahead = ok(session, "list_events", {"time_min": iso(now + timedelta(days=30)),
                                        "time_max": iso(now + timedelta(days=60))})
    assert old["total"] > 0 and ahead["total"] > 0
    for room in ok(session, "list_rooms")["rooms"]:
        bookings = ok(session, "get_room_availability", {"room_id": room["id"],
                                                         "time_min": iso(now - timedelta(days=60)),
                                                         "time_max": iso(now + timedelta(days=30))})["bookings"]
        for a, b in zip(bookings, bookings[1:]):
            assert parse(a["end"]) <= parse(b["start"]), (room["name"], a, b)


def test_created_event_is_listed_and_makes_attendees_busy(session: ToolSession) -> None:
    guest, colleague = customer_email(), employees(3)[2]
    created = future_event(session, attendee_emails=[guest, colleague])
    start, end = parse(created["start"]), parse(created["end"])
    assert {a["email"] for a in created["attendees"]} >= {guest, colleague}
    found = ok(session, "list_events", {"attendee_email": guest, "time_min": iso(start - timedelta(hours=1)),
                                        "time_max": iso(end + timedelta(hours=1))})
    assert [e["event_id"] for e in found["events"]] == [created["event_id"]]
    busy = ok(session, "get_free_busy", {"emails": [colleague], "time_min": iso(start - timedelta(hours=2)),
                                         "time_max": iso(end + timedelta(hours=2))})["people"][0]["busy"]
    assert any(parse(b["start"]) <= start and end <= parse(b["end"]) for b in busy)


def test_naive_times_are_read_in_the_time_zone(session: ToolSession) -> None:
    day = next_weekday(session, 20, 0).date()
    naive = future_event(session, start=f"{day}T10:00:00", end=f"{day}T11:00:00", time_zone="Asia/Singapore")
    offset = future_event(session, start=f"{day}T10:00:00+08:00", end=f"{day}T11:00:00+08:00")
    assert naive["start"] == offset["start"] == f"{day}T02:00:00Z"
    assert naive["start_local"] == f"{day}T10:00:00+08:00"
    shown = ok(session, "get_event", {"event_id": offset["event_id"], "time_zone": "America/New_York"})
    expected = datetime(day.year, day.month, day.day, 2, tzinfo=ZoneInfo("UTC")).astimezone(ZoneInfo("America/New_York"))
    assert shown["start_local"] == expected.isoformat(timespec="seconds")


def test_weekly_series_keeps_local_time_across_daylight_saving(session: ToolSession) -> None:
    year = session.context.now.year + 1
    march_end = date(year, 3, 31)
    dst = march_end - timedelta(days=(march_end.weekday() + 1) % 7)
    monday = dst - timedelta(days=13)
    created = future_event(session, start=f"{monday}T09:00:00", end=f"{monday}T09:30:00", time_zone="Europe/Berlin",
                           recurrence={"freq": "WEEKLY", "by_day": ["MO", "TH"], "count": 6})
    listed = ok(session, "list_event_instances", {"event_id": created["event_id"]})
    events = listed["events"]
    assert listed["total"] == 6
    assert all(e["start_local"][11:19] == "09:00:00" for e in events)
    assert {parse(e["start"]).hour for e in events} == {7, 8}
    assert [e["occurrence_id"] for e in events][:2] == [
        f"{created['event_id']}_{monday:%Y%m%d}", f"{created['event_id']}_{monday + timedelta(days=3):%Y%m%d}"]


def standup_occurrences(session: ToolSession) -> list[dict[str, Any]]:
    now = session.context.now
    return ok(session, "list_events", {"query": "daily standup", "per_page": 100,
                                       "time_min": iso(now + timedelta(days=7)),
                                       "time_max": iso(now + timedelta(days=14))})["events"]


def test_moving_and_cancelling_one_occurrence_leaves_the_series(session: ToolSession) -> None:
    found = standup_occurrences(session)
    first, second = [e for e in found if e["event_id"] == found[0]["event_id"]][:2]
    moved_start = parse(first["start"]) + timedelta(hours=3)
    moved = ok(session, "update_event", {"event_id": first["occurrence_id"], "start": iso(moved_start)})
    assert (moved["start"], moved["original_start"]) == (iso(moved_start), first["start"])
    cancelled = ok(session, "cancel_event", {"event_id": second["occurrence_id"]})
    assert cancelled["status"] == "cancelled"
    series = ok(session, "get_event", {"event_id": first["event_id"]})
    assert series["status"] == "confirmed"
    after = {e["occurrence_id"]: e for e in standup_occurrences(session)}
    assert after[first["occurrence_id"]]["start"] == iso(moved_start)
    assert second["occurrence_id"] not in after
    window = {"time_min": second["start"], "time_max": second["end"], "include_cancelled": True}
    assert any(e["occurrence_id"] == second["occurrence_id"] and e["status"] == "cancelled"
               for e in ok(session, "list_events", {"per_page": 100, **window})["events"])


def test_changing_following_occurrences_splits_the_series(session: ToolSession) -> None:
    start = next_weekday(session, 3, 8)
    created = future_event(session, start=iso(start), end=iso(start + timedelta(minutes=30)),
                           recurrence={"freq": "DAILY", "count": 10})
    occurrences = ok(session, "list_event_instances", {"event_id": created["event_id"]})["events"]
    new = ok(session, "update_event", {"event_id": occurrences[4]["occurrence_id"], "following": True,
                                       "title": "Later slot",
                                       "start": iso(parse(occurrences[4]["start"]) + timedelta(hours=2))})
    assert new["event_id"] != created["event_id"] and new["recurrence"]["count"] == 6
    old = ok(session, "list_event_instances", {"event_id": created["event_id"]})
    rest = ok(session, "list_event_instances", {"event_id": new["event_id"]})
    assert (old["total"], rest["total"]) == (4, 6)
    assert all(e["title"] == "Later slot" for e in rest["events"])
    ok(session, "cancel_event", {"event_id": rest["events"][2]["occurrence_id"], "following": True})
    shortened = ok(session, "list_event_instances", {"event_id": new["event_id"]})
    assert [e["occurrence_id"] for e in shortened["events"]] == [e["occurrence_id"] for e in rest["events"][:2]]


@pytest.mark.parametrize("rule", ["cancel_twice", "not_invited", "organizer_declines", "double_booking",
                                  "over_capacity", "past_event"])
def test_domain_rules_are_forbidden_and_change_nothing(session: ToolSession, rule: str) -> None:
    event = future_event(session, attendee_emails=employees(3)[1:], room_id=2)
    call: tuple[str, dict[str, Any]]
    if rule == "cancel_twice":
        ok(session, "cancel_event", {"event_id": event["event_id"]})
        call = ("cancel_event", {"event_id": event["event_id"]})
    elif rule == "not_invited":
        call = ("respond_to_event", {"event_id": event["event_id"], "attendee_email": customer_email(),
                                     "response": "accepted"})
    elif rule == "organizer_declines":
        call = ("respond_to_event", {"event_id": event["event_id"], "response": "declined",
                                     "attendee_email": event["organizer"]["email"]})
    elif rule == "double_booking":
        call = ("create_event", {"calendar_id": 3, "title": "Clash", "room_id": 2,
                                 "start": iso(parse(event["start"]) + timedelta(minutes=30)),
                                 "end": iso(parse(event["end"]) + timedelta(minutes=30))})
    elif rule == "over_capacity":
        call = ("add_attendees", {"event_id": event["event_id"], "emails": employees(8)[3:]})
    else:
        past = ok(session, "list_events", {"time_min": iso(session.context.now - timedelta(days=30)),
                                           "time_max": iso(session.context.now - timedelta(days=29))})["events"][0]
        call = ("update_event", {"event_id": past["occurrence_id"] or past["event_id"], "start": event["start"]})
    fails(session, *call, "forbidden")


@pytest.mark.parametrize(("tool", "args", "hint"), [
    ("get_event", {"event_id": 10**6}, "list_events"),
    ("get_event", {"event_id": "abc"}, "list_events"),
    ("get_person", {"email": "nobody@nowhere.example"}, "search_people"),
    ("list_events", {"calendar_id": 999}, "list_calendars"),
    ("book_room", {"event_id": 1, "room_id": 999}, "list_rooms"),
    ("add_attendees", {"event_id": 1, "emails": ["ghost@nowhere.example"]}, "search_people"),
])
def test_unknown_ids_are_not_found(session: ToolSession, tool: str, args: dict[str, Any], hint: str) -> None:
    assert hint in fails(session, tool, args, "not_found")


def test_occurrence_ids_must_name_a_real_occurrence(session: ToolSession) -> None:
    occurrence = standup_occurrences(session)[0]
    series_id = occurrence["event_id"]
    single = future_event(session)
    for bad in (f"{series_id}_19990101", f"{single['event_id']}_20250101"):
        fails(session, "get_event", {"event_id": bad}, "not_found")
    assert ok(session, "get_event", {"event_id": occurrence["occurrence_id"]})["start"] == occurrence["start"]


@pytest.mark.parametrize("args", [
    {"end_before_start": True},
    {"time_zone": "Mars/Olympus_Mons"},
    {"recurrence": {"freq": "DAILY", "count": 3, "until": "2030-01-01T00:00:00Z"}},
    {"recurrence": {"freq": "WEEKLY", "count": 400}},
    {"recurrence": {"freq": "DAILY", "by_day": ["MO"], "count": 3}},
    {"start": "2150-01-01T09:00:00Z", "end": "2150-01-01T10:00:00Z"},
    {"start": "0005-01-01", "end": "0005-01-02", "all_day": True},
])
def test_malformed_requests_are_invalid_arguments(session: ToolSession, args: dict[str, Any]) -> None:
    start = next_weekday(session, 5, 9)
    call = {"calendar_id": 1, "title": "X", "start": iso(start), "end": iso(start + timedelta(hours=1))}
    if args.pop("end_before_start", False):
        call["end"] = iso(start - timedelta(hours=1))
    fails(session, "create_event", call | args, "invalid_arguments")


def test_invitation_flow_changes_attendees(session: ToolSession) -> None:
    event = future_event(session)
    guest = customer_email()
    invited = ok(session, "add_attendees", {"event_id": event["event_id"], "emails": [guest], "optional": True})
    entry = next(a for a in invited["attendees"] if a["email"] == guest)
    assert (entry["response_status"], entry["optional"]) == ("needsAction", True)
    answered = ok(session, "respond_to_event", {"event_id": event["event_id"], "attendee_email": guest,
                                                "response": "tentative", "comment": "Might be late"})
    entry = next(a for a in answered["attendees"] if a["email"] == guest)
    assert (entry["response_status"], entry["comment"]) == ("tentative", "Might be late")
    ok(session, "remove_attendee", {"event_id": event["event_id"], "email": guest})
    window = {"time_min": event["start"], "time_max": event["end"], "attendee_email": guest}
    assert ok(session, "list_events", window)["total"] == 0


def test_room_booking_release_and_rebooking(session: ToolSession) -> None:
    first = future_event(session)
    second = future_event(session, calendar_id=3)
    booked = ok(session, "book_room", {"event_id": first["event_id"], "room_id": 3})
    assert booked["room"]["id"] == 3 and booked["location"] == booked["room"]["name"]
    window = {"room_id": 3, "time_min": first["start"], "time_max": first["end"]}
    availability = ok(session, "get_room_availability", window)
    assert not availability["free"] and availability["bookings"][0]["event_id"] == first["event_id"]
    free_rooms = ok(session, "list_rooms", {"available_from": first["start"], "available_until": first["end"]})["rooms"]
    assert 3 not in [r["id"] for r in free_rooms]
    fails(session, "book_room", {"event_id": second["event_id"], "room_id": 3}, "forbidden")
    ok(session, "release_room", {"event_id": first["event_id"]})
    assert ok(session, "get_room_availability", window)["free"]
    assert ok(session, "book_room", {"event_id": second["event_id"], "room_id": 3})["room"]["id"] == 3


def test_pages_partition_the_listing(session: ToolSession) -> None:
    now = session.context.now
    window = {"time_min": iso(now), "time_max": iso(now + timedelta(days=3))}
    whole = ok(session, "list_events", {"per_page": 100, **window})
    assert 7 < whole["total"] <= 100
    keys, page = [], 1
    while page is not None:
        data = ok(session, "list_events", {"page": page, "per_page": 7, **window})
        assert data["total"] == whole["total"]
        keys += [(e["event_id"], e["occurrence_id"]) for e in data["events"]]
        page = data["next_page"]
    assert keys == [(e["event_id"], e["occurrence_id"]) for e in whole["events"]]
    starts = [e["start"] for e in whole["events"]]
    assert starts == sorted(starts)


def test_meeting_stats_agree_with_the_listing(session: ToolSession) -> None:
    now = session.context.now
    person = employees(5)[4]
    window = {"time_min": iso(now - timedelta(days=60)), "time_max": iso(now), "attendee_email": person}
    stats = ok(session, "meeting_stats", {"group_by": "month", **window})
    events: list[dict[str, Any]] = []
    page = 1
    while page is not None:
        data = ok(session, "list_events", {"page": page, "per_page": 100, **window})
        events += data["events"]
        page = data["next_page"]
    assert stats["total_events"] == len(events) > 0
    assert sum(g["events"] for g in stats["groups"]) == stats["total_events"]
    minutes = sum(int((parse(e["end"]) - parse(e["start"])).total_seconds() // 60) for e in events)
    assert stats["total_minutes"] == minutes == sum(g["minutes"] for g in stats["groups"])


@pytest.mark.parametrize("group_by", ["calendar", "organizer"])
def test_meeting_stats_groups_agree_with_the_listing(session: ToolSession, group_by: str) -> None:
    now = session.context.now
    window = {"time_min": iso(now - timedelta(days=30)), "time_max": iso(now)}
    stats = ok(session, "meeting_stats", {"group_by": group_by, **window})
    expected: dict[str, int] = {}
    page = 1
    while page is not None:
        data = ok(session, "list_events", {"page": page, "per_page": 100, **window})
        for e in data["events"]:
            key = str(e["calendar_id"]) if group_by == "calendar" else e["organizer"]["email"]
            expected[key] = expected.get(key, 0) + 1
        page = data["next_page"]
    assert len(stats["groups"]) > 1
    assert {g["key"]: g["events"] for g in stats["groups"]} == expected
    assert [g["events"] for g in stats["groups"]] == sorted((g["events"] for g in stats["groups"]), reverse=True)
    calendars = {str(c["id"]): c["name"] for c in ok(session, "list_calendars", {"per_page": 100})["calendars"]}
    for g in stats["groups"]:
        label = calendars.get(g["key"]) if group_by == "calendar" else ok(session, "get_person", {"email": g["key"]})["name"]
        assert g["label"] == label


def test_suggested_slots_are_free_and_within_working_hours(session: ToolSession) -> None:
    people = employees(4)
    now = session.context.now
    window = {"time_min": iso(now), "time_max": iso(now + timedelta(days=10))}
    slots = ok(session, "find_meeting_slots", {"attendee_emails": people, "duration_minutes": 45,
                                               "time_zone": "Europe/London", "max_results": 20, **window})["slots"]
    assert slots
    busy = [(parse(b["start"]), parse(b["end"]))
            for p in ok(session, "get_free_busy", {"emails": people, **window})["people"] for b in p["busy"]]
    for slot in slots:
        start, end = parse(slot["start"]), parse(slot["end"])
        local = start.replace(tzinfo=ZoneInfo("UTC")).astimezone(ZoneInfo("Europe/London"))
        assert local.weekday() < 5 and time(9) <= local.time() and (local + timedelta(minutes=45)).time() <= time(17)
        assert start >= now and not any(s < end and start < e for s, e in busy)


def daily_series(session: ToolSession, count: int, **extra: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A new daily series of half-hour meetings starting a few days ahead, and its occurrences."""
    start = next_weekday(session, 3, 8)
    created = future_event(session, start=iso(start), end=iso(start + timedelta(minutes=30)),
                           recurrence={"freq": "DAILY", "count": count}, **extra)
    return created, ok(session, "list_event_instances", {"event_id": created["event_id"]})["events"]


def test_splitting_a_series_carries_its_attendees_and_later_changes(session: ToolSession) -> None:
    guest, colleague = customer_email(), employees(3)[2]
    created, occurrences = daily_series(session, 10, attendee_emails=[guest, colleague])
    series_id = created["event_id"]
    ok(session, "respond_to_event", {"event_id": series_id, "attendee_email": guest, "response": "tentative"})
    moved = {n: parse(occurrences[n]["start"]) + timedelta(hours=1) for n in (1, 4, 6)}
    for n, start in moved.items():
        ok(session, "update_event", {"event_id": occurrences[n]["occurrence_id"], "start": iso(start)})
    ok(session, "cancel_event", {"event_id": occurrences[7]["occurrence_id"]})
    invited = ok(session, "get_event", {"event_id": series_id})["attendees"]
    new = ok(session, "update_event", {"event_id": occurrences[4]["occurrence_id"], "following": True,
                                       "title": "Later"})
    assert new["event_id"] != series_id and new["attendees"] == invited
    rest = ok(session, "list_event_instances", {"event_id": new["event_id"]})["events"]
    days = [e["occurrence_id"].split("_")[1] for e in occurrences]
    assert [e["occurrence_id"] for e in rest] == [f"{new['event_id']}_{day}" for day in days[4:]]
    assert (rest[0]["start"], rest[2]["start"], rest[3]["status"]) == (iso(moved[4]), iso(moved[6]), "cancelled")
    kept = ok(session, "list_event_instances", {"event_id": series_id})["events"]
    assert [e["occurrence_id"] for e in kept] == [e["occurrence_id"] for e in occurrences[:4]]
    assert kept[1]["start"] == iso(moved[1])
    stored = [c.after for c in session.diff() if c.table == "occurrence_overrides" and c.op == "insert"]
    assert sorted(row["event_id"] for row in stored if row) == [series_id, *[new["event_id"]] * 3]


@pytest.mark.parametrize("refusal", ["room_taken", "all_day"])
def test_a_split_refused_after_it_began_writing_changes_nothing(session: ToolSession, refusal: str) -> None:
    if refusal == "all_day":
        day = next_weekday(session, 3, 0).date()
        created = future_event(session, start=str(day), end=str(day + timedelta(days=1)), all_day=True,
                               recurrence={"freq": "DAILY", "count": 6})
        occurrences = ok(session, "list_event_instances", {"event_id": created["event_id"]})["events"]
        moved, code, reason = parse(occurrences[3]["start"]) + timedelta(hours=2), "invalid_arguments", "all-day"
    else:
        created, occurrences = daily_series(session, 6, room_id=2)
        moved, code, reason = parse(occurrences[3]["start"]) + timedelta(hours=3), "forbidden", "already booked"
        clash = parse(occurrences[4]["start"]) + timedelta(hours=3)
        future_event(session, calendar_id=3, start=iso(clash), end=iso(clash + timedelta(minutes=30)), room_id=2)
    error = fails(session, "update_event", {"event_id": occurrences[3]["occurrence_id"], "following": True,
                                            "start": iso(moved)}, code)
    assert reason in error
    assert ok(session, "list_event_instances", {"event_id": created["event_id"]})["events"] == occurrences


def test_invitations_name_the_first_unknown_email_and_invite_each_person_once(session: ToolSession) -> None:
    colleague, other = employees(6)[4:6]
    event = future_event(session, attendee_emails=[colleague, colleague.upper(), other],
                         optional_attendee_emails=[other, customer_email()])
    expected = list(dict.fromkeys([event["organizer"]["email"], colleague, other, customer_email()]))
    assert [a["email"] for a in event["attendees"]] == expected
    assert [a["optional"] for a in event["attendees"]] == [email == customer_email() for email in expected]
    error = fails(session, "add_attendees", {"event_id": event["event_id"], "emails": [
        employees(8)[7], "ghost.one@nowhere.example", "ghost.two@nowhere.example"]}, "not_found")
    assert "ghost.one@nowhere.example" in error and "ghost.two" not in error


def test_declining_frees_only_the_attendee_who_declines(session: ToolSession) -> None:
    colleague, other = employees(5)[3:5]
    start = next_weekday(session, 9, 7)
    window = {"emails": [colleague, other], "time_min": iso(start), "time_max": iso(start + timedelta(hours=1))}

    def busy_minutes() -> list[int]:
        return [p["busy_minutes"] for p in ok(session, "get_free_busy", window)["people"]]

    before = busy_minutes()
    event = future_event(session, attendee_emails=[colleague, other])
    assert busy_minutes() == [60, 60]
    ok(session, "respond_to_event", {"event_id": event["event_id"], "attendee_email": colleague,
                                     "response": "declined"})
    assert busy_minutes() == [before[0], 60]


@pytest.fixture(scope="module")
def directory() -> Iterator[ToolSession]:
    with ToolSession(SERVER, 0) as fresh:
        yield fresh


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet="ae_%/ .LO", min_size=1, max_size=4))
def test_search_text_matches_literally(directory: ToolSession, text: str) -> None:
    world = build_world(0)
    needle = text.strip().lower()
    expected = {p.email for p in [*world.employees, *world.customers]
                if needle in p.name.lower() or needle in p.email.lower()}
    found = ok(directory, "search_people", {"query": text, "per_page": 100})
    assert found["total"] == len(expected)
    assert {p["email"] for p in found["people"]} <= expected
    names = [p["name"] for p in found["people"]]
    assert names == sorted(names)


@pytest.mark.slow  # every server's seeded bytes across two processes: test_kernel, in the default suite
def test_two_processes_build_the_same_state(tmp_path: Path) -> None:
    code = ("from mcpgym.servers.calendar import SERVER\n"
            "from mcpgym.servers.kernel import ToolSession\n"
            "print(ToolSession(SERVER, 0).state_hash())")
    hashes = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path,
                             env=uncached_env(PYTHONHASHSEED=str(seed))).stdout.strip() for seed in (1, 2)}
    assert len(hashes) == 1
    assert hashes == {ToolSession(SERVER, 0).state_hash()}
