"""Domain behaviour of the flights server, exercised through its tools."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpgym.servers.flights import SERVER
from mcpgym.servers.kernel import ToolSession
from tool_calls import fails, ok, uncached_env

Json = dict[str, Any]


@pytest.fixture
def session() -> Iterator[ToolSession]:
    with ToolSession(SERVER, 0) as s:
        yield s


def parse(ts: str) -> datetime:
    return datetime.fromisoformat(ts.replace("Z", "+00:00")).replace(tzinfo=None)


def passenger_ids(s: ToolSession) -> list[int]:
    ids: list[int] = []
    page: int | None = 1
    while page:
        data = ok(s, "search_passengers", {"page": page, "per_page": 100})
        ids += [p["passenger_id"] for p in data["passengers"]]
        page = data["next_page"]
    return sorted(ids)


def find_reservation(s: ToolSession, wanted: Callable[[Json], bool]) -> Json:
    """The first booked reservation (by passenger id) satisfying `wanted`."""
    for pid in passenger_ids(s):
        listing = ok(s, "list_passenger_reservations", {"passenger_id": pid, "status": ["booked"], "per_page": 100})
        for summary in listing["reservations"]:
            reservation = ok(s, "get_reservation", {"pnr": summary["pnr"]})
            if wanted(reservation):
                return reservation
    pytest.fail("no seeded reservation fits")


def serviceable(fare_class: str, now: datetime, booked_before: timedelta = timedelta(hours=25)) -> Callable[[Json], bool]:
    """Future reservations of a fare class, booked a while ago, with no flight cancelled or departed."""

    def check(r: Json) -> bool:
        return (r["fare_class"] == fare_class and parse(r["created_at"]) <= now - booked_before
                and all(seg["status"] in ("scheduled", "delayed") for seg in r["segments"])
                and all(parse(seg["flight"]["scheduled_departure"]) > now for seg in r["segments"]))

    return check


def usable_card(s: ToolSession, passenger_id: int) -> int:
    methods = ok(s, "list_payment_methods", {"passenger_id": passenger_id})["payment_methods"]
    return next(m["payment_method_id"] for m in methods if m["kind"] == "credit_card" and m["usable"])


def all_pages(s: ToolSession, tool: str, key: str, args: Json) -> list[Json]:
    """Every result of a paged listing, 100 per page."""
    found: list[Json] = []
    page: int | None = 1
    while page:
        data = ok(s, tool, {**args, "page": page, "per_page": 100})
        found += data[key]
        page = data["next_page"]
    return found


def card_holders(s: ToolSession) -> list[int]:
    """Passengers with a usable credit card, by id."""
    return [pid for pid in passenger_ids(s) if any(
        m["kind"] == "credit_card" and m["usable"]
        for m in ok(s, "list_payment_methods", {"passenger_id": pid})["payment_methods"])]


def direct_flight(s: ToolSession, origin: str, destination: str, days_ahead: int) -> Json:
    day = (s.context.now + timedelta(days=days_ahead)).date().isoformat()
    found = ok(s, "search_flights", {"origin": origin, "destination": destination, "date": day, "max_stops": 0,
                                     "flexible_days": 3})
    assert found["itineraries"], f"no nonstop {origin}-{destination} around {day}"
    return found["itineraries"][0]["segments"][0]


# ---------------------------------------------------------------- airports and passengers


def test_airports_found_by_city_and_country(session: ToolSession) -> None:
    london = ok(session, "find_airports", {"query": "london"})["airports"]
    assert {a["code"] for a in london} >= {"LHR", "LGW"}
    assert all(a["city"] == "London" for a in london)
    japan = ok(session, "find_airports", {"country": "Japan"})["airports"]
    assert japan and all(a["country"] == "Japan" for a in japan)
    assert ok(session, "find_airports", {"query": "jfk"})["airports"][0]["code"] == "JFK"


def test_nearest_airports_own_nearest_unknown_and_ambiguous(session: ToolSession) -> None:
    tokyo = ok(session, "nearest_airports", {"city": "Tokyo"})
    assert tokyo["has_own_airports"] and len(tokyo["airports"]) >= 2
    assert all(a["city"] == "Tokyo" for a in tokyo["airports"])
    oxford = ok(session, "nearest_airports", {"city": "oxford", "limit": 4})
    distances = [a["distance_km"] for a in oxford["airports"]]
    assert not oxford["has_own_airports"] and len(distances) == 4 and distances == sorted(distances)
    assert oxford["airports"][0]["code"] == "LHR"
    assert "find_airports" in fails(session, "nearest_airports", {"city": "Atlantis"}, "not_found")
    fails(session, "nearest_airports", {"city": "Newcastle"}, "invalid_arguments")
    australia = ok(session, "nearest_airports", {"city": "Newcastle", "country": "Australia"})
    assert australia["airports"][0]["country"] == "Australia"


def test_passengers_are_the_worlds_people(session: ToolSession) -> None:
    world = session.context.world
    orgs = {o.id: o.name for o in world.organizations}
    staff = ok(session, "search_passengers", {"organization": world.home.name, "per_page": 100})
    assert staff["total"] == len(world.employees)
    for person in world.employees[:5]:
        p = ok(session, "get_passenger_by_email", {"email": person.email.upper()})
        assert (p["person_id"], p["name"], p["email"]) == (person.id, person.name, person.email)
        assert p["organization_name"] == orgs[person.organization_id]
    assert "search_passengers" in fails(session, "get_passenger_by_email", {"email": "nobody@example.com"}, "not_found")


def test_bad_ids_name_the_search_tool(session: ToolSession) -> None:
    assert "list_passenger_reservations" in fails(session, "get_reservation", {"pnr": "QQQQQQ"}, "not_found")
    assert "search_flights" in fails(session, "get_flight", {"flight_id": 10**9}, "not_found")
    assert "search_passengers" in fails(session, "list_payment_methods", {"passenger_id": 10**6}, "not_found")
    assert "price_itinerary" in fails(session, "book_reservation", {
        "quote_id": 10**6, "payments": [{"payment_method_id": 1, "amount": 10}]}, "not_found")
    assert "find_airports" in fails(session, "search_flights", {"origin": "XXX", "destination": "JFK",
                                                                "date": "2025-12-01"}, "not_found")


# ---------------------------------------------------------------- flights


def test_search_flights_itineraries_connect_and_price_correctly(session: ToolSession) -> None:
    day = (session.context.now + timedelta(days=10)).date()
    found = ok(session, "search_flights", {"origin": "BOS", "destination": "LHR", "date": day.isoformat(),
                                           "passengers": 2, "flexible_days": 3, "per_page": 50})
    assert found["total"] == len(found["itineraries"]) > 0
    for it in found["itineraries"]:
        legs = it["segments"]
        assert legs[0]["origin"] == "BOS" and legs[-1]["destination"] == "LHR"
        assert abs((date.fromisoformat(legs[0]["departure_date"]) - day).days) <= 3
        for a, b in zip(legs, legs[1:]):
            assert a["destination"] == b["origin"]
            gap = parse(b["scheduled_departure"]) - parse(a["scheduled_arrival"])
            assert timedelta(minutes=60) <= gap <= timedelta(hours=20)
        details = [ok(session, "get_flight", {"flight_id": leg["flight_id"]}) for leg in legs]
        assert it["fares"] == {c: sum(d["fares"][c] for d in details) for c in ("basic", "standard", "flex")}
        assert it["seats_left"] == min(d["seats_left"]["economy"] for d in details) >= 2
    assert "list_flights" in fails(session, "search_flights", {"origin": "BOS", "destination": "LHR",
                                                               "date": "2025-01-01"}, "invalid_arguments")


def test_local_times_are_the_utc_times_in_the_airport_zone(session: ToolSession) -> None:
    zone = ZoneInfo(ok(session, "find_airports", {"query": "SYD"})["airports"][0]["timezone"])
    for flight in ok(session, "list_flights", {"origin": "SYD", "destination": "SIN", "per_page": 40})["flights"]:
        utc = parse(flight["scheduled_departure"]).replace(tzinfo=UTC)
        local = datetime.fromisoformat(flight["departure_local"])
        assert local == utc and local.utcoffset() == utc.astimezone(zone).utcoffset()
        assert local.date() == date.fromisoformat(flight["departure_date"])


def test_list_flights_pages_and_status_counts_agree(session: ToolSession) -> None:
    now = session.context.now
    window = {"origin": "LHR", "departure_after": (now - timedelta(days=5)).isoformat(),
              "departure_before": (now + timedelta(days=2)).isoformat()}
    total = ok(session, "list_flights", {**window, "per_page": 1})["total"]
    seen, page = [], 1
    while page:
        data = ok(session, "list_flights", {**window, "page": page, "per_page": 7})
        assert data["total"] == total
        seen += [f["flight_id"] for f in data["flights"]]
        page = data["next_page"]
    assert len(seen) == len(set(seen)) == total > 0
    per_status = sum(ok(session, "list_flights", {**window, "status": [s], "per_page": 1})["total"]
                     for s in ("scheduled", "delayed", "departed", "landed", "cancelled"))
    assert per_status == total


def test_seat_map_agrees_with_reservations(session: ToolSession) -> None:
    seated = find_reservation(session, lambda r: any(seg["seats"] for seg in r["segments"]))
    segment = next(seg for seg in seated["segments"] if seg["seats"])
    seat_map = ok(session, "get_seat_map", {"flight_id": segment["flight"]["flight_id"], "cabin": seated["cabin"]})
    cabin = seat_map["cabins"][0]
    taken = {f"{row['row']}{letter}" for row in cabin["rows"] for letter in row["taken"]}
    assert {s["seat"] for s in segment["seats"]} <= taken
    assert cabin["seats_assigned"] == len(taken) <= cabin["passengers_booked"]
    assert cabin["seats_left"] == cabin["capacity"] - cabin["passengers_booked"]


# ---------------------------------------------------------------- booking


def test_price_and_book_changes_state(session: ToolSession) -> None:
    lead = ok(session, "get_passenger_by_email", {"email": session.context.world.employees[3].email})
    out = direct_flight(session, "LHR", "JFK", 20)
    quote = ok(session, "price_itinerary", {"flight_ids": [out["flight_id"]], "fare_class": "flex",
                                            "passenger_ids": [lead["passenger_id"]]})
    flight = ok(session, "get_flight", {"flight_id": out["flight_id"]})
    assert quote["status"] == "open" and quote["total"] == flight["fares"]["flex"]
    card = usable_card(session, lead["passenger_id"])
    booked = ok(session, "book_reservation", {"quote_id": quote["quote_id"],
                                              "payments": [{"payment_method_id": card, "amount": quote["total"]}]})
    assert booked["status"] == "booked" and booked["net_paid"] == quote["total"]
    assert ok(session, "get_reservation", {"pnr": booked["pnr"].lower()})["pnr"] == booked["pnr"]
    mine = ok(session, "list_passenger_reservations", {"passenger_id": lead["passenger_id"], "per_page": 1})
    assert mine["reservations"][0]["pnr"] == booked["pnr"]
    after = ok(session, "get_flight", {"flight_id": out["flight_id"]})
    assert after["seats_left"]["economy"] == flight["seats_left"]["economy"] - 1
    assert ok(session, "get_quote", {"quote_id": quote["quote_id"]})["status"] == "used"
    assert "already used" in fails(session, "book_reservation", {
        "quote_id": quote["quote_id"], "payments": [{"payment_method_id": card, "amount": quote["total"]}]},
        "forbidden")
    again = ok(session, "price_itinerary", {"flight_ids": [out["flight_id"]], "fare_class": "flex",
                                            "passenger_ids": [lead["passenger_id"]]})
    assert "already booked" in fails(session, "book_reservation", {
        "quote_id": again["quote_id"], "payments": [{"payment_method_id": card, "amount": again["total"]}]},
        "forbidden")


def test_booking_payment_rules(session: ToolSession) -> None:
    expired_owner, expired_card = next(
        (pid, m["payment_method_id"]) for pid in passenger_ids(session)
        for m in ok(session, "list_payment_methods", {"passenger_id": pid})["payment_methods"]
        if m["kind"] == "credit_card" and not m["usable"])
    out = direct_flight(session, "JFK", "LHR", 30)
    quote = ok(session, "price_itinerary", {"flight_ids": [out["flight_id"]], "fare_class": "standard",
                                            "passenger_ids": [expired_owner]})
    total = quote["total"]
    assert "expired" in fails(session, "book_reservation", {
        "quote_id": quote["quote_id"], "payments": [{"payment_method_id": expired_card, "amount": total}]}, "forbidden")
    fails(session, "book_reservation", {
        "quote_id": quote["quote_id"],
        "payments": [{"payment_method_id": usable_card(session, expired_owner), "amount": total - 1}]},
        "invalid_arguments")
    other = next(pid for pid in passenger_ids(session) if pid != expired_owner)
    assert "another passenger" in fails(session, "book_reservation", {
        "quote_id": quote["quote_id"],
        "payments": [{"payment_method_id": usable_card(session, other), "amount": total}]},
        "forbidden")
    stale = next(q for q in (ok(session, "get_quote", {"quote_id": i}) for i in range(1, 500))
                 if q["status"] == "expired")
    assert "expired" in fails(session, "book_reservation", {
        "quote_id": stale["quote_id"],
        "payments": [{"payment_method_id": usable_card(session, stale["lead_passenger_id"]),
                      "amount": stale["total"]}]},
        "forbidden")


def test_sold_out_cabin_refuses_overbooking(session: ToolSession) -> None:
    now = session.context.now

    def sold_out(r: Json) -> bool:
        return r["cabin"] == "business" and any(
            parse(seg["flight"]["scheduled_departure"]) > now
            and ok(session, "get_flight", {"flight_id": seg["flight"]["flight_id"]})["seats_left"]["business"] == 0
            for seg in r["segments"])

    full = find_reservation(session, sold_out)
    flight_id = next(
        seg["flight"]["flight_id"] for seg in full["segments"]
        if ok(session, "get_flight", {"flight_id": seg["flight"]["flight_id"]})["seats_left"]["business"] == 0)
    outsider = next(pid for pid in passenger_ids(session)
                    if pid not in {p["passenger_id"] for p in full["passengers"]})
    assert "overbooking" in fails(session, "price_itinerary", {"flight_ids": [flight_id], "fare_class": "business",
                                                               "passenger_ids": [outsider]}, "forbidden")
    ok(session, "price_itinerary", {"flight_ids": [flight_id], "fare_class": "standard", "passenger_ids": [outsider]})


# ---------------------------------------------------------------- servicing


def test_select_seat_takes_a_free_seat_only(session: ToolSession) -> None:
    now = session.context.now
    r = find_reservation(session, lambda x: serviceable("standard", now)(x) and len(x["passengers"]) >= 2)
    flight_id = r["segments"][0]["flight"]["flight_id"]
    first, second = (p["passenger_id"] for p in r["passengers"][:2])
    cabin = ok(session, "get_seat_map", {"flight_id": flight_id, "cabin": "economy"})["cabins"][0]
    free = next(f"{row['row']}{row['available'][-1]}" for row in cabin["rows"] if row["available"])
    chosen = ok(session, "select_seat", {"pnr": r["pnr"], "flight_id": flight_id, "passenger_id": first,
                                         "seat": free.lower()})
    assert chosen["seat"] == free
    rows = ok(session, "get_seat_map", {"flight_id": flight_id, "cabin": "economy"})["cabins"][0]["rows"]
    assert free[-1] in next(row for row in rows if row["row"] == int(free[:-1]))["taken"]
    seats = ok(session, "get_reservation", {"pnr": r["pnr"]})["segments"][0]["seats"]
    assert {"passenger_id": first, "seat": free} in seats
    assert "taken" in fails(session, "select_seat", {"pnr": r["pnr"], "flight_id": flight_id,
                                                     "passenger_id": second, "seat": free}, "forbidden")
    business = ok(session, "get_seat_map", {"flight_id": flight_id, "cabin": "business"})["cabins"][0]
    business_row = business["rows"][0]["row"]
    assert "business" in fails(session, "select_seat", {"pnr": r["pnr"], "flight_id": flight_id,
                                                        "passenger_id": first, "seat": f"{business_row}A"}, "forbidden")
    assert "get_seat_map" in fails(session, "select_seat", {"pnr": r["pnr"], "flight_id": flight_id,
                                                            "passenger_id": first, "seat": "99A"}, "not_found")
    basic = find_reservation(session, serviceable("basic", now, timedelta(0)))
    assert "check-in" in fails(session, "select_seat", {"pnr": basic["pnr"],
                                                        "flight_id": basic["segments"][0]["flight"]["flight_id"],
                                                        "passenger_id": basic["passengers"][0]["passenger_id"],
                                                        "seat": "20C"}, "forbidden")


def test_change_flight_charges_fee_and_fare_increase(session: ToolSession) -> None:
    r = find_reservation(session, serviceable("standard", session.context.now))
    last = r["segments"][-1]
    later = ok(session, "list_flights", {"flight_number": last["flight"]["flight_number"], "status": ["scheduled"],
                                         "departure_after": last["flight"]["scheduled_departure"],
                                         "per_page": 5})["flights"]
    new = next(f for f in later if f["flight_id"] != last["flight"]["flight_id"])
    pax = len(r["passengers"])
    expected = (75 + max(0, new["fares"]["standard"] - last["fare"])) * pax
    changed = ok(session, "change_flight", {"pnr": r["pnr"], "old_flight_id": last["flight"]["flight_id"],
                                            "new_flight_id": new["flight_id"],
                                            "payment_method_id": usable_card(session, r["lead_passenger_id"])})
    assert changed["amount_charged"] == expected
    after = changed["reservation"]
    assert after["net_paid"] == r["net_paid"] + expected
    assert after["segments"][-1]["flight"]["flight_id"] == new["flight_id"] and after["segments"][-1]["seats"] == []
    assert ok(session, "get_reservation", {"pnr": r["pnr"]})["segments"][-1]["flight"]["flight_id"] == new["flight_id"]
    basic = find_reservation(session, serviceable("basic", session.context.now, timedelta(0)))
    seg = basic["segments"][-1]
    alternative = ok(session, "list_flights", {"flight_number": seg["flight"]["flight_number"],
                                               "departure_after": seg["flight"]["scheduled_departure"],
                                               "per_page": 3})["flights"][-1]
    assert "cannot be changed" in fails(session, "change_flight", {
        "pnr": basic["pnr"], "old_flight_id": seg["flight"]["flight_id"], "new_flight_id": alternative["flight_id"]},
        "forbidden")


def test_flight_cancelled_by_airline_is_rebooked_free(session: ToolSession) -> None:
    r = find_reservation(session, lambda x: any(seg["status"] == "cancelled_by_airline" for seg in x["segments"]))
    seg = next(seg for seg in r["segments"] if seg["status"] == "cancelled_by_airline")
    later = ok(session, "list_flights", {"flight_number": seg["flight"]["flight_number"], "status": ["scheduled"],
                                         "departure_after": seg["flight"]["scheduled_departure"],
                                         "per_page": 1})["flights"][0]
    changed = ok(session, "change_flight", {"pnr": r["pnr"], "old_flight_id": seg["flight"]["flight_id"],
                                            "new_flight_id": later["flight_id"]})
    assert changed["amount_charged"] == 0 and changed["reservation"]["net_paid"] == r["net_paid"]
    moved = changed["reservation"]["segments"][seg["position"] - 1]
    assert moved["flight"]["flight_id"] == later["flight_id"] and moved["status"] == "scheduled"


def test_cancel_standard_fare_gives_travel_credit_once(session: ToolSession) -> None:
    r = find_reservation(session, serviceable("standard", session.context.now))
    pax = len(r["passengers"])
    cancelled = ok(session, "cancel_reservation", {"pnr": r["pnr"]})
    expected = max(0, r["net_paid"] - 100 * pax)
    assert cancelled["refund_to"] == "travel_credit" and cancelled["refund_amount"] == expected
    assert cancelled["reservation"]["status"] == "cancelled"
    assert cancelled["reservation"]["net_paid"] == r["net_paid"] - expected
    assert all(seg["seats"] == [] for seg in cancelled["reservation"]["segments"])
    methods = ok(session, "list_payment_methods", {"passenger_id": r["lead_passenger_id"]})["payment_methods"]
    credit = next(m for m in methods if m["payment_method_id"] == cancelled["travel_credit_payment_method_id"])
    assert credit["kind"] == "travel_certificate" and credit["balance"] == expected and credit["usable"]
    assert "cancelled" in fails(session, "cancel_reservation", {"pnr": r["pnr"]}, "forbidden")
    fails(session, "add_baggage", {"pnr": r["pnr"], "passenger_id": r["lead_passenger_id"], "bags": 1}, "forbidden")


def test_cancel_refundable_fare_refunds_original_payments(session: ToolSession) -> None:
    r = find_reservation(session, serviceable("business", session.context.now))
    before = {m["payment_method_id"]: m for m in
              ok(session, "list_payment_methods", {"passenger_id": r["lead_passenger_id"]})["payment_methods"]}
    cancelled = ok(session, "cancel_reservation", {"pnr": r["pnr"]})
    assert cancelled["refund_to"] == "original_payment" and cancelled["refund_amount"] == r["net_paid"]
    assert cancelled["reservation"]["net_paid"] == 0
    after = {m["payment_method_id"]: m for m in
             ok(session, "list_payment_methods", {"passenger_id": r["lead_passenger_id"]})["payment_methods"]}
    for method_id, m in before.items():
        if m["balance"] is not None:
            paid = sum(p["amount"] for p in r["payments"] if p["payment_method_id"] == method_id)
            assert after[method_id]["balance"] == m["balance"] + paid


def test_flown_reservations_cannot_change(session: ToolSession) -> None:
    world = session.context.world
    lead = ok(session, "get_passenger_by_email", {"email": world.employees[0].email})["passenger_id"]
    flown = ok(session, "list_passenger_reservations", {"passenger_id": lead, "status": ["flown"]})["reservations"][0]
    r = ok(session, "get_reservation", {"pnr": flown["pnr"]})
    assert all(seg["status"] == "flown" for seg in r["segments"])
    assert "flown" in fails(session, "cancel_reservation", {"pnr": flown["pnr"]}, "forbidden")
    fails(session, "select_seat", {"pnr": flown["pnr"], "flight_id": r["segments"][0]["flight"]["flight_id"],
                                   "passenger_id": lead, "seat": "10A"}, "forbidden")


def test_add_baggage_uses_the_fare_allowance(session: ToolSession) -> None:
    r = find_reservation(session, lambda x: serviceable("business", session.context.now)(x)
                         and x["passengers"][0]["checked_bags"] == 0)
    pid = r["passengers"][0]["passenger_id"]
    free = ok(session, "add_baggage", {"pnr": r["pnr"], "passenger_id": pid, "bags": 2})
    assert free["fee_charged"] == 0 and free["checked_bags"] == 2
    fails(session, "add_baggage", {"pnr": r["pnr"], "passenger_id": pid, "bags": 1}, "invalid_arguments")
    paid = ok(session, "add_baggage", {"pnr": r["pnr"], "passenger_id": pid, "bags": 1,
                                       "payment_method_id": usable_card(session, r["lead_passenger_id"])})
    assert paid["fee_charged"] == 60
    after = ok(session, "get_reservation", {"pnr": r["pnr"]})
    assert after["net_paid"] == r["net_paid"] + 60
    assert after["passengers"][0]["checked_bags"] == 3
    assert "at most" in fails(session, "add_baggage", {
        "pnr": r["pnr"], "passenger_id": pid, "bags": 1,
        "payment_method_id": usable_card(session, r["lead_passenger_id"])}, "forbidden")


def test_add_payment_method_refuses_expired_and_duplicate_cards(session: ToolSession) -> None:
    pid = passenger_ids(session)[7]
    now = session.context.now
    fails(session, "add_payment_method", {"passenger_id": pid, "brand": "visa", "last4": "4242",
                                          "expiry_month": now.month, "expiry_year": now.year - 1}, "forbidden")
    card = ok(session, "add_payment_method", {"passenger_id": pid, "brand": "visa", "last4": "4242",
                                              "expiry_month": now.month, "expiry_year": now.year + 2})
    listed = ok(session, "list_payment_methods", {"passenger_id": pid})["payment_methods"]
    assert any(m["payment_method_id"] == card["payment_method_id"] and m["usable"] for m in listed)
    fails(session, "add_payment_method", {"passenger_id": pid, "brand": "visa", "last4": "4242",
                                          "expiry_month": now.month, "expiry_year": now.year + 2}, "forbidden")


def test_travel_summary_agrees_with_reservations(session: ToolSession) -> None:
    pid = ok(session, "get_passenger_by_email", {"email": session.context.world.employees[1].email})["passenger_id"]
    summary = ok(session, "passenger_travel_summary", {"passenger_id": pid})
    listing = ok(session, "list_passenger_reservations", {"passenger_id": pid, "per_page": 100})
    assert listing["total"] == sum(summary["reservations"].values()) > 0
    details = [ok(session, "get_reservation", {"pnr": r["pnr"]}) for r in listing["reservations"]]
    assert summary["net_spend"] == sum(r["net_paid"] for r in details if r["lead_passenger_id"] == pid)
    assert summary["flights_flown"] == sum(
        1 for r in details if r["status"] != "cancelled" for seg in r["segments"] if seg["status"] == "flown")
    year_ago = (session.context.now - timedelta(days=365)).isoformat()
    recent = ok(session, "passenger_travel_summary", {"passenger_id": pid, "start": year_ago})
    older = ok(session, "passenger_travel_summary", {"passenger_id": pid, "end": year_ago})
    assert recent["net_spend"] + older["net_spend"] == summary["net_spend"]
    assert recent["flights_flown"] + older["flights_flown"] == summary["flights_flown"]


# ---------------------------------------------------------------- checks made in SQL


def test_ids_of_a_list_are_checked_in_the_order_given(session: ToolSession) -> None:
    lead = passenger_ids(session)[0]
    flight = direct_flight(session, "JFK", "LHR", 15)["flight_id"]
    price = {"flight_ids": [flight], "fare_class": "standard"}
    assert "no passenger with id 987654" in fails(
        session, "price_itinerary", {**price, "passenger_ids": [lead, 987_654, 2**70]}, "not_found")
    assert "out of range" in fails(
        session, "price_itinerary", {**price, "passenger_ids": [lead, 2**70, 987_654]}, "invalid_arguments")
    assert "no flight with id 987654" in fails(
        session, "price_itinerary", {**price, "flight_ids": [flight, 987_654, 2**70], "passenger_ids": [lead]},
        "not_found")
    assert "out of range" in fails(
        session, "price_itinerary", {**price, "flight_ids": [flight, 2**70], "passenger_ids": [lead]},
        "invalid_arguments")


def test_a_refused_second_payment_undoes_the_first(session: ToolSession) -> None:
    owner, stored = next(
        (pid, m) for pid in passenger_ids(session)
        for m in ok(session, "list_payment_methods", {"passenger_id": pid})["payment_methods"]
        if m["kind"] != "credit_card" and m["usable"] and m["balance"] >= 1)
    other = next(pid for pid in card_holders(session) if pid != owner)
    out = direct_flight(session, "JFK", "LHR", 30)
    quote = ok(session, "price_itinerary", {"flight_ids": [out["flight_id"]], "fare_class": "basic",
                                            "passenger_ids": [owner]})
    # The first payment is taken (balance and payment row written) before the second is refused;
    # `fails` checks that the whole call left the state as it was.
    assert "another passenger" in fails(session, "book_reservation", {"quote_id": quote["quote_id"], "payments": [
        {"payment_method_id": stored["payment_method_id"], "amount": 1},
        {"payment_method_id": usable_card(session, other), "amount": quote["total"] - 1}]}, "forbidden")
    methods = ok(session, "list_payment_methods", {"passenger_id": owner})["payment_methods"]
    assert next(m for m in methods if m["payment_method_id"] == stored["payment_method_id"]) == stored
    assert ok(session, "get_quote", {"quote_id": quote["quote_id"]})["status"] == "open"


def test_a_double_booking_names_its_first_clash(session: ToolSession) -> None:
    day = (session.context.now + timedelta(days=12)).date().isoformat()
    found = ok(session, "search_flights", {"origin": "BOS", "destination": "LHR", "date": day, "passengers": 2,
                                           "cabin": "business", "flexible_days": 3, "per_page": 50})
    legs = [s["flight_id"] for s in next(i for i in found["itineraries"] if i["stops"] == 1)["segments"]]
    party = sorted(card_holders(session)[:2])
    booked = []
    for order in (party, party[::-1]):
        quote = ok(session, "price_itinerary", {"flight_ids": legs, "fare_class": "business", "passenger_ids": order})
        booked.append({"quote_id": quote["quote_id"], "payments": [
            {"payment_method_id": usable_card(session, order[0]), "amount": quote["total"]}]})
    first = ok(session, "book_reservation", booked[0])
    error = fails(session, "book_reservation", booked[1], "forbidden")
    assert error == (f"forbidden: passenger {party[0]} is already booked on flight {min(legs)} "
                     f"in reservation {first['pnr']}")


# ---------------------------------------------------------------- paging and text search


@pytest.fixture(scope="module")
def seeded() -> Iterator[ToolSession]:
    with ToolSession(SERVER, 0) as s:
        yield s


@pytest.fixture(scope="module")
def every_passenger(seeded: ToolSession) -> list[Json]:
    return all_pages(seeded, "search_passengers", "passengers", {})


@pytest.fixture(scope="module")
def jfk_departures(seeded: ToolSession) -> dict[str, list[Json]]:
    return {order: all_pages(seeded, "list_flights", "flights", {"origin": "JFK", "sort_order": order})
            for order in ("asc", "desc")}


SEARCH_TEXT = st.text(alphabet="aeinorst %_/.@-", min_size=1, max_size=5)
"""Search texts made of letters common in names and emails and the characters LIKE treats specially."""


@settings(max_examples=60, deadline=None)
@given(query=SEARCH_TEXT)
def test_passenger_search_matches_its_text_literally(seeded: ToolSession, every_passenger: list[Json],
                                                     query: str) -> None:
    needle = query.strip().lower()
    expected = [p["passenger_id"] for p in every_passenger
                if any(needle in text.lower() for text in (p["name"], p["email"], p["loyalty_number"]))]
    found = all_pages(seeded, "search_passengers", "passengers", {"query": query})
    assert [p["passenger_id"] for p in found] == expected


def test_flight_listing_follows_its_order(jfk_departures: dict[str, list[Json]]) -> None:
    ascending, descending = jfk_departures["asc"], jfk_departures["desc"]
    assert ascending and all(f["origin"] == "JFK" for f in ascending)
    assert [(parse(f["scheduled_departure"]), f["flight_id"]) for f in ascending] == sorted(
        (parse(f["scheduled_departure"]), f["flight_id"]) for f in ascending)
    assert [(-parse(f["scheduled_departure"]).timestamp(), f["flight_id"]) for f in descending] == sorted(
        (-parse(f["scheduled_departure"]).timestamp(), f["flight_id"]) for f in descending)
    assert sorted(f["flight_id"] for f in descending) == sorted(f["flight_id"] for f in ascending)


@settings(max_examples=40, deadline=None)
@given(page=st.integers(1, 20), per_page=st.integers(1, 100), order=st.sampled_from(["asc", "desc"]))
def test_flight_pages_are_slices_of_one_listing(seeded: ToolSession, jfk_departures: dict[str, list[Json]],
                                                page: int, per_page: int, order: str) -> None:
    listing = jfk_departures[order]
    data = ok(seeded, "list_flights", {"origin": "JFK", "sort_order": order, "page": page, "per_page": per_page})
    assert data["flights"] == listing[(page - 1) * per_page:page * per_page]
    assert data["total"] == len(listing)
    assert data["next_page"] == (page + 1 if page * per_page < len(listing) else None)


@pytest.mark.slow  # every server's seeded bytes across two processes: test_kernel, in the default suite
def test_same_seed_builds_the_same_state_in_another_process(session: ToolSession) -> None:
    code = ("from mcpgym.servers.flights import SERVER; from mcpgym.servers.kernel import ToolSession; "
            "print(ToolSession(SERVER, 0).state_hash())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/", env=uncached_env())
    assert out.stdout.strip() == session.state_hash()
