"""Domain behaviour of the hotels server, through the same call path an agent uses."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpgym.servers.catalog import load_server
from mcpgym.servers.hotels import SERVER
from mcpgym.servers.hotels.data import BOOKING_WINDOW_DAYS, confirmation_for
from mcpgym.servers.kernel.links import linking, seeded_rows
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.world import build_world
from tool_calls import ok

Row = dict[str, Any]
TODAY = date(2025, 11, 12)


@pytest.fixture
def session() -> Iterator[ToolSession]:
    with ToolSession(SERVER, 0) as fresh:
        yield fresh


@pytest.fixture(scope="module")
def seeded() -> Iterator[ToolSession]:
    """A session only read from (never written to) by the tests that share it."""
    with ToolSession(SERVER, 0) as fresh:
        yield fresh


def fails(session: ToolSession, tool: str, args: dict[str, Any], code: str) -> str:
    """Call a tool that must fail with `code` and change nothing (the change log, which sees
    every write, is the same before and after); its error text."""
    before = session.diff()
    result = session.call(tool, args)
    assert not result.ok, f"{tool} unexpectedly succeeded: {result.data}"
    assert result.error is not None and result.error.startswith(f"{code}: "), result.error
    assert session.diff() == before
    return result.error


def raw(session: ToolSession, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    return session._connection.execute(sql, params).fetchall()  # noqa: SLF001


def one(session: ToolSession, sql: str, params: tuple[Any, ...] = ()) -> Any:
    return raw(session, sql, params)[0][0]


def booking(session: ToolSession, where: str, params: tuple[Any, ...] = ()) -> str:
    """The confirmation number of the first booking (by id) matching `where`."""
    return str(one(session, "SELECT r.confirmation_number FROM reservations r JOIN rate_plans p ON p.id = r.rate_plan_id "
                            f"LEFT JOIN loyalty_accounts a ON a.guest_id = r.guest_id WHERE {where} ORDER BY r.id LIMIT 1",
                   params))


NOW = "2025-11-12 17:00:00"
FREE = "r.status = 'confirmed' AND p.refundable AND r.free_cancellation_until > ?"


def sold(session: ToolSession, room_type_id: int, start: date, end: date) -> list[int]:
    return [r[0] for r in raw(session, "SELECT rooms_sold FROM room_nights WHERE room_type_id = ? AND night >= ? AND night < ? "
                                       "ORDER BY night", (room_type_id, str(start), str(end)))]


def free_plan(session: ToolSession, nights: int = 3, rooms: int = 1, start: date = date(2025, 12, 10),
              refundable: bool = True) -> tuple[int, int]:
    """A rate plan (and its room type) with `rooms` left on every night from `start`."""
    row = raw(session, "SELECT p.id, p.room_type_id FROM rate_plans p JOIN room_nights n ON n.room_type_id = p.room_type_id "
                       "WHERE p.refundable = ? AND n.night >= ? AND n.night < ? GROUP BY p.id "
                       "HAVING count(*) = ? AND min(n.rooms_total - n.rooms_sold) >= ? ORDER BY p.id LIMIT 1",
              (int(refundable), str(start), str(start + timedelta(days=nights)), nights, rooms))
    return row[0][0], row[0][1]


# ---------------------------------------------------------------- the seeded world


def test_the_world_is_a_real_platform(seeded: ToolSession) -> None:
    counts = {t: one(seeded, f"SELECT count(*) FROM {t}") for t in
              ("properties", "room_types", "rate_plans", "guests", "reservations", "loyalty_accounts", "room_nights")}
    assert counts["properties"] >= 100 and counts["reservations"] >= 1500 and counts["guests"] >= 400
    first, last = raw(seeded, "SELECT min(check_in), max(check_in) FROM reservations")[0]
    assert date.fromisoformat(last) - date.fromisoformat(first) > timedelta(days=365)
    statuses = {r[0] for r in raw(seeded, "SELECT DISTINCT status FROM reservations")}
    assert statuses == {"confirmed", "checked_in", "completed", "cancelled"}
    assert one(seeded, "SELECT count(*) FROM room_nights WHERE rooms_sold > rooms_total OR rooms_sold < 0") == 0
    assert one(seeded, "SELECT count(*) FROM room_nights WHERE rooms_sold = rooms_total") > 0


def test_guests_are_the_worlds_people(seeded: ToolSession) -> None:
    world = build_world(0)
    people = {p.id: p for p in world.people}
    orgs = {o.id: o.name for o in world.organizations}
    for person_id, email in raw(seeded, "SELECT person_id, email FROM guests ORDER BY id LIMIT 60"):
        person = people[person_id]
        guest = ok(seeded, "get_guest_by_email", {"email": email.upper()})
        assert (guest["name"], guest["email"], guest["organization_name"]) == (person.name, person.email, orgs[person.organization_id])


def test_every_booked_stay_holds_its_rooms(seeded: ToolSession) -> None:
    """Rooms sold on a night are at least the platform's own bookings of that room type."""
    over = raw(seeded, "SELECT n.room_type_id, n.night FROM room_nights n JOIN (SELECT r.room_type_id, rn.night, "
                       "sum(r.rooms) AS rooms FROM reservation_nights rn JOIN reservations r ON r.id = rn.reservation_id "
                       "WHERE r.status != 'cancelled' GROUP BY r.room_type_id, rn.night) b "
                       "ON b.room_type_id = n.room_type_id AND b.night = n.night WHERE b.rooms > n.rooms_sold")
    assert not over


def test_trips_flown_with_the_airline_have_their_hotel(seeded: ToolSession) -> None:
    """Some stays are a flights round trip's: same person, destination city, arrival to return date."""
    with linking(("flights",)):
        trips = seeded_rows("flights", 0, "SELECT p.email, r.pnr FROM reservations r JOIN passengers p ON p.id = r.passenger_id "
                                          "WHERE r.status = 'booked'")
    emails = {t["email"] for t in trips}
    guests = {r[0] for r in raw(seeded, "SELECT email FROM guests")}
    assert emails <= guests
    from mcpgym.servers.hotels.seed import airline_trips

    with linking(("flights",)):
        stays = airline_trips(0)
    rows = {(r[0], r[1], r[2], r[3]) for r in raw(
        seeded, "SELECT g.person_id, p.city, r.check_in, r.check_out FROM reservations r JOIN guests g ON g.id = r.guest_id "
                "JOIN properties p ON p.id = r.property_id")}
    linked = [t for t in stays if (t.person_id, t.city, str(t.check_in), str(t.check_out)) in rows]
    assert len(linked) >= 100


# ---------------------------------------------------------------- reads


def test_search_properties_filters_and_orders(seeded: ToolSession) -> None:
    found = ok(seeded, "search_properties", {"city": "london", "min_stars": 3, "amenities": ["wifi"], "per_page": 100})
    assert found["total"] == len(found["properties"]) >= 1
    assert all(p["city"] == "London" and p["stars"] >= 3 and "wifi" in p["amenities"] for p in found["properties"])
    scores = [p["review_score"] for p in found["properties"]]
    assert scores == sorted(scores, reverse=True)
    assert ok(seeded, "search_properties", {"query": "no such hotel"})["total"] == 0


def test_get_property_lists_rooms_and_rates(seeded: ToolSession) -> None:
    prop = ok(seeded, "get_property", {"property_id": 1})
    assert prop["room_types"] and all(r["rate_plans"] for r in prop["room_types"])
    codes = {p["code"] for r in prop["room_types"] for p in r["rate_plans"]}
    assert {"FLEX", "NRF"} <= codes
    plan = next(p for r in prop["room_types"] for p in r["rate_plans"] if p["code"] == "NRF")
    rules = ok(seeded, "get_rate_plan", {"rate_plan_id": plan["id"]})
    assert rules["refundable"] is False and rules["cancellation_hours"] is None and "Non-refundable" in rules["policy"]


def test_price_stay_adds_up_the_nights(seeded: ToolSession) -> None:
    plan_id, room_id = free_plan(seeded)
    quote = ok(seeded, "price_stay", {"rate_plan_id": plan_id, "check_in": "2025-12-10", "check_out": "2025-12-13", "rooms": 2})
    assert len(quote["nights"]) == 3
    assert quote["total_cents"] == 2 * sum(n["price_cents"] for n in quote["nights"])
    base = [r[0] for r in raw(seeded, "SELECT base_price_cents FROM room_nights WHERE room_type_id = ? AND night >= '2025-12-10' "
                                      "AND night < '2025-12-13' ORDER BY night", (room_id,))]
    assert [n["price_cents"] for n in quote["nights"]] == base  # Flexible: no discount, no breakfast
    assert quote["free_cancellation_until"] is not None


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(offset=st.integers(0, BOOKING_WINDOW_DAYS - 8), nights=st.integers(1, 7), guests=st.integers(1, 4),
       city=st.sampled_from(["London", "Paris", "Tokyo", "New York", "Dubai"]))
def test_search_stays_offers_what_price_stay_quotes(seeded: ToolSession, offset: int, nights: int, guests: int, city: str) -> None:
    check_in = TODAY + timedelta(days=offset)
    args = {"check_in": str(check_in), "check_out": str(check_in + timedelta(days=nights)), "guests": guests}
    offers = ok(seeded, "search_stays", {"city": city, **args, "per_page": 100})
    totals = [o["total_cents"] for o in offers["offers"]]
    assert totals == sorted(totals)
    for offer in offers["offers"][:5]:
        quote = ok(seeded, "price_stay", {"rate_plan_id": offer["rate_plan_id"], **args})
        assert quote["available"] and quote["fits_guests"] and quote["total_cents"] == offer["total_cents"]


def test_room_calendar_shows_rooms_left(seeded: ToolSession) -> None:
    room_id, night = raw(seeded, "SELECT room_type_id, night FROM room_nights WHERE rooms_sold = rooms_total ORDER BY id LIMIT 1")[0]
    start = date.fromisoformat(night)
    calendar = ok(seeded, "get_room_calendar", {"room_type_id": room_id, "start": str(start), "end": str(start + timedelta(days=2))})
    assert calendar["nights"][0]["sold_out"] and calendar["nights"][0]["rooms_left"] == 0
    assert calendar["last_night_on_sale"] == str(TODAY + timedelta(days=BOOKING_WINDOW_DAYS))
    far = ok(seeded, "get_room_calendar", {"room_type_id": room_id, "start": "2026-06-01", "end": "2026-06-05"})
    assert far["nights"] == []


def test_guest_reservations_and_summary_agree(seeded: ToolSession) -> None:
    listed = ok(seeded, "list_guest_reservations", {"guest_id": 1, "status": ["completed"], "per_page": 100})
    summary = ok(seeded, "guest_stay_summary", {"guest_id": 1})
    assert summary["completed_stays"] == listed["total"]
    assert summary["nights"] == sum(r["nights"] for r in listed["reservations"])
    assert summary["spent_cents"] == sum(r["total_cents"] for r in listed["reservations"])
    check_ins = [r["check_in"] for r in listed["reservations"]]
    assert check_ins == sorted(check_ins, reverse=True)


def test_occupancy_report_counts_the_nights_in_the_period(seeded: ToolSession) -> None:
    report = ok(seeded, "property_occupancy_report", {"property_id": 58, "start": "2025-06-01", "end": "2025-09-01"})
    expected = one(seeded, "SELECT coalesce(sum(r.rooms * n.price_cents), 0) FROM reservation_nights n JOIN reservations r "
                           "ON r.id = n.reservation_id WHERE r.property_id = 58 AND r.status != 'cancelled' "
                           "AND n.night >= '2025-06-01' AND n.night < '2025-09-01'")
    assert report["revenue_cents"] == expected > 0
    assert report["average_daily_rate_cents"] == expected // report["room_nights_sold"]


def test_loyalty_account_and_search_by_tier(seeded: ToolSession) -> None:
    account = ok(seeded, "get_loyalty_account", {"guest_id": 2})
    balance = one(seeded, "SELECT sum(points) FROM loyalty_transactions t JOIN loyalty_accounts a ON a.id = t.account_id "
                          "WHERE a.guest_id = 2")
    assert account["points_balance"] == balance
    gold = ok(seeded, "search_guests", {"loyalty_tier": "gold", "per_page": 100})
    assert gold["guests"] and all(g["loyalty_tier"] == "gold" for g in gold["guests"])
    stranger = one(seeded, "SELECT g.id FROM guests g LEFT JOIN loyalty_accounts a ON a.guest_id = g.id WHERE a.id IS NULL LIMIT 1")
    fails(seeded, "get_loyalty_account", {"guest_id": stranger}, "not_found")


# ---------------------------------------------------------------- writes


def test_create_reservation_charges_and_takes_the_rooms(session: ToolSession) -> None:
    plan_id, room_id = free_plan(session, rooms=2)
    before = sold(session, room_id, date(2025, 12, 10), date(2025, 12, 13))
    made = ok(session, "create_reservation", {"guest_id": 2, "rate_plan_id": plan_id, "check_in": "2025-12-10",
                                              "check_out": "2025-12-13", "rooms": 2, "guests": 2, "points_to_redeem": 1000})
    assert made["confirmation_number"] == confirmation_for(one(session, "SELECT max(id) FROM reservations"))
    assert made["nights"] == 3 and made["cash_cents"] == made["total_cents"] - 1000
    assert made["net_paid_cents"] == made["cash_cents"]
    assert sold(session, room_id, date(2025, 12, 10), date(2025, 12, 13)) == [n + 2 for n in before]
    assert ok(session, "get_reservation", {"confirmation_number": made["confirmation_number"]}) == made
    account = ok(session, "get_loyalty_account", {"guest_id": 2})
    assert account["recent_transactions"][0]["points"] == -1000


def test_modify_reprices_and_moves_the_rooms(session: ToolSession) -> None:
    number = booking(session, FREE, (NOW,))
    old = ok(session, "get_reservation", {"confirmation_number": number})
    check_out = date.fromisoformat(old["check_out"])
    changed = ok(session, "modify_reservation", {"confirmation_number": number, "check_out": str(check_out + timedelta(days=1))})
    new = changed["reservation"]
    assert new["nights"] == old["nights"] + 1
    assert changed["price_difference_cents"] == new["total_cents"] - old["total_cents"]
    assert new["net_paid_cents"] == old["net_paid_cents"] + changed["price_difference_cents"]
    assert [n["night"] for n in new["nightly_prices"]][-1] == old["check_out"]


def test_cancel_refunds_returns_points_and_releases_rooms(session: ToolSession) -> None:
    number = booking(session, f"{FREE} AND r.points_redeemed > 0", (NOW,))
    old = ok(session, "get_reservation", {"confirmation_number": number})
    start, end = date.fromisoformat(old["check_in"]), date.fromisoformat(old["check_out"])
    rooms_before = sold(session, old["room_type_id"], start, end)
    points_before = ok(session, "get_loyalty_account", {"guest_id": old["guest_id"]})["points_balance"]
    result = ok(session, "cancel_reservation", {"confirmation_number": number})
    assert result["reservation"]["status"] == "cancelled" and result["reservation"]["net_paid_cents"] == 0
    assert result["refund_cents"] == old["net_paid_cents"] and result["points_returned"] == old["points_redeemed"]
    assert sold(session, old["room_type_id"], start, end) == [n - old["rooms"] for n in rooms_before]
    assert ok(session, "get_loyalty_account", {"guest_id": old["guest_id"]})["points_balance"] == points_before + old["points_redeemed"]


def test_check_in_then_out_earns_points(session: ToolSession) -> None:
    number = booking(session, "r.status = 'confirmed' AND r.check_in = ? AND a.id IS NOT NULL", (str(TODAY),))
    old = ok(session, "get_reservation", {"confirmation_number": number})
    account = ok(session, "get_loyalty_account", {"guest_id": old["guest_id"]})
    assert ok(session, "check_in_reservation", {"confirmation_number": number})["status"] == "checked_in"
    done = ok(session, "check_out_reservation", {"confirmation_number": number})
    assert done["reservation"]["status"] == "completed"
    multiplier = {"member": 100, "silver": 110, "gold": 125, "platinum": 150}[account["tier"]]
    assert done["points_earned"] == old["cash_cents"] // 100 * 5 * multiplier // 100
    after = ok(session, "get_loyalty_account", {"guest_id": old["guest_id"]})
    assert after["points_balance"] == account["points_balance"] + done["points_earned"]
    assert after["qualifying_nights"] == account["qualifying_nights"] + old["nights"] * old["rooms"]


def test_redeem_points_refunds_their_value(session: ToolSession) -> None:
    number = booking(session, "r.status = 'confirmed' AND a.points_balance >= 700 AND r.total_cents - r.points_redeemed >= 700")
    old = ok(session, "get_reservation", {"confirmation_number": number})
    result = ok(session, "redeem_points", {"confirmation_number": number, "points": 700})
    assert result["refund_cents"] == 700 and result["reservation"]["cash_cents"] == old["cash_cents"] - 700
    assert result["reservation"]["net_paid_cents"] == old["net_paid_cents"] - 700


def test_special_requests_and_enrolment(session: ToolSession) -> None:
    number = booking(session, "r.status = 'confirmed' AND NOT p.refundable")
    updated = ok(session, "update_special_requests", {"confirmation_number": number, "special_requests": "  Cot, please. "})
    assert updated["special_requests"] == "Cot, please."
    stranger = one(session, "SELECT g.id FROM guests g LEFT JOIN loyalty_accounts a ON a.guest_id = g.id WHERE a.id IS NULL LIMIT 1")
    account = ok(session, "enroll_in_loyalty", {"guest_id": stranger})
    assert account["points_balance"] == 500 and account["number"].startswith("SW")
    fails(session, "enroll_in_loyalty", {"guest_id": stranger}, "invalid_arguments")


# ---------------------------------------------------------------- policy: forbidden, nothing changed


def test_no_cancel_or_change_after_the_free_cancellation_deadline(session: ToolSession) -> None:
    number = booking(session, "r.status = 'confirmed' AND p.refundable AND r.free_cancellation_until < ?", (NOW,))
    assert "free cancellation" in fails(session, "cancel_reservation", {"confirmation_number": number}, "forbidden")
    fails(session, "modify_reservation", {"confirmation_number": number, "guests": 1}, "forbidden")


def test_non_refundable_rates_are_never_cancelled_or_changed(session: ToolSession) -> None:
    number = booking(session, "r.status = 'confirmed' AND NOT p.refundable AND r.check_in > ?", (str(TODAY),))
    assert "non-refundable" in fails(session, "cancel_reservation", {"confirmation_number": number}, "forbidden")
    fails(session, "modify_reservation", {"confirmation_number": number, "guests": 1}, "forbidden")


def test_a_booking_cannot_exceed_any_nights_availability(session: ToolSession) -> None:
    room_id, night = raw(session, "SELECT room_type_id, night FROM room_nights WHERE rooms_sold = rooms_total "
                                  "AND night > ? ORDER BY id LIMIT 1", (str(TODAY + timedelta(days=1)),))[0]
    plan = one(session, "SELECT id FROM rate_plans WHERE room_type_id = ? ORDER BY id LIMIT 1", (room_id,))
    day = date.fromisoformat(night)
    args = {"guest_id": 1, "rate_plan_id": plan, "check_in": str(day - timedelta(days=1)), "check_out": str(day + timedelta(days=1))}
    assert "availability" in fails(session, "create_reservation", args, "forbidden")
    plan_id, room_id = free_plan(session)
    left = min(r[0] for r in raw(session, "SELECT rooms_total - rooms_sold FROM room_nights WHERE room_type_id = ? "
                                          "AND night >= '2025-12-10' AND night < '2025-12-13'", (room_id,)))
    if left < 4:
        fails(session, "create_reservation", {"guest_id": 1, "rate_plan_id": plan_id, "check_in": "2025-12-10",
                                              "check_out": "2025-12-13", "rooms": left + 1, "guests": 1}, "forbidden")


def test_guests_may_not_exceed_the_rooms_occupancy(session: ToolSession) -> None:
    plan_id, room_id = free_plan(session)
    most = one(session, "SELECT max_guests FROM room_types WHERE id = ?", (room_id,))
    args = {"guest_id": 1, "rate_plan_id": plan_id, "check_in": "2025-12-10", "check_out": "2025-12-13"}
    assert "occupancy" in fails(session, "create_reservation", {**args, "guests": most + 1}, "forbidden")
    ok(session, "create_reservation", {**args, "guests": most})


def test_points_need_membership_a_balance_and_cash_to_cover(session: ToolSession) -> None:
    plan_id, _ = free_plan(session)
    args = {"rate_plan_id": plan_id, "check_in": "2025-12-10", "check_out": "2025-12-13"}
    stranger = one(session, "SELECT g.id FROM guests g LEFT JOIN loyalty_accounts a ON a.guest_id = g.id WHERE a.id IS NULL LIMIT 1")
    assert "member" in fails(session, "create_reservation", {**args, "guest_id": stranger, "points_to_redeem": 100}, "forbidden")
    balance = ok(session, "get_loyalty_account", {"guest_id": 2})["points_balance"]
    assert "balance" in fails(session, "create_reservation", {**args, "guest_id": 2, "points_to_redeem": balance + 1}, "forbidden")
    number = booking(session, "r.status = 'confirmed' AND a.points_balance > r.total_cents - r.points_redeemed")
    cash = ok(session, "get_reservation", {"confirmation_number": number})["cash_cents"]
    fails(session, "redeem_points", {"confirmation_number": number, "points": cash + 1}, "forbidden")


def test_only_confirmed_bookings_change_and_check_in_has_its_day(session: ToolSession) -> None:
    checked_in = booking(session, "r.status = 'checked_in'")
    completed = booking(session, "r.status = 'completed'")
    cancelled = booking(session, "r.status = 'cancelled'")
    for number in (checked_in, completed, cancelled):
        assert "status" in fails(session, "cancel_reservation", {"confirmation_number": number}, "forbidden")
    fails(session, "check_out_reservation", {"confirmation_number": completed}, "forbidden")
    fails(session, "update_special_requests", {"confirmation_number": cancelled, "special_requests": "x"}, "forbidden")
    fails(session, "redeem_points", {"confirmation_number": checked_in, "points": 1}, "forbidden")
    future = booking(session, "r.status = 'confirmed' AND r.check_in > ?", (str(TODAY),))
    fails(session, "check_in_reservation", {"confirmation_number": future}, "forbidden")


def test_new_stays_stay_inside_the_booking_window(session: ToolSession) -> None:
    plan_id, _ = free_plan(session)
    base = {"guest_id": 1, "rate_plan_id": plan_id}
    last = TODAY + timedelta(days=BOOKING_WINDOW_DAYS)
    for check_in, check_out in ((TODAY - timedelta(days=1), TODAY + timedelta(days=1)),
                                (last, last + timedelta(days=2)), (TODAY + timedelta(days=1), TODAY + timedelta(days=33))):
        assert "booking window" in fails(session, "create_reservation",
                                         {**base, "check_in": str(check_in), "check_out": str(check_out)}, "forbidden")


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(("tool", "args", "code"), [
    ("get_reservation", {"confirmation_number": "1234567890"}, "not_found"),
    ("get_reservation", {"confirmation_number": "12345"}, "invalid_arguments"),
    ("cancel_reservation", {"confirmation_number": "1234567890"}, "not_found"),
    ("create_reservation", {"guest_id": 1, "rate_plan_id": 10**9, "check_in": "2025-12-10", "check_out": "2025-12-12"}, "not_found"),
    ("create_reservation", {"guest_id": 1, "rate_plan_id": 1, "check_in": "2025-12-12", "check_out": "2025-12-10"}, "invalid_arguments"),
    ("create_reservation", {"guest_id": 1, "rate_plan_id": 1, "check_in": "December", "check_out": "2025-12-10"}, "invalid_arguments"),
    ("create_reservation", {"guest_id": 1, "rate_plan_id": 1, "check_in": "2025-12-10", "check_out": "2025-12-12", "rooms": 9}, "invalid_arguments"),
    ("search_stays", {"city": "Paris", "check_in": "2024-01-01", "check_out": "2024-01-03"}, "invalid_arguments"),
    ("redeem_points", {"confirmation_number": "1234567890", "points": 0}, "invalid_arguments"),
    ("modify_reservation", {"confirmation_number": "1234567890"}, "not_found"),
])
def test_bad_input_is_a_clear_error_and_changes_nothing(session: ToolSession, tool: str, args: dict[str, Any], code: str) -> None:
    fails(session, tool, args, code)


def test_modify_refuses_a_rate_of_another_property_and_an_empty_change(session: ToolSession) -> None:
    number = booking(session, FREE, (NOW,))
    old = ok(session, "get_reservation", {"confirmation_number": number})
    other = one(session, "SELECT p.id FROM rate_plans p JOIN room_types t ON t.id = p.room_type_id WHERE t.property_id != ? LIMIT 1",
                (old["property_id"],))
    fails(session, "modify_reservation", {"confirmation_number": number, "rate_plan_id": other}, "invalid_arguments")
    fails(session, "modify_reservation", {"confirmation_number": number}, "invalid_arguments")


def test_seeding_is_fast_and_the_same_every_time() -> None:
    from mcpgym.servers.kernel.spec import build_seeded

    spec = load_server("hotels")
    cached = spec.seeded(0).snapshot
    started = datetime.now()
    assert build_seeded(spec, 0) == cached
    assert (datetime.now() - started).total_seconds() < 5
