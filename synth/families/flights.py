"""Flights task families: spend comparisons and monthly series of a traveller, the cheapest
trip with drill-down, seat and baggage changes on a named trip, bags paid with a card added
on the way, a move to a later flight, a fare-conditional booking, the refusal to change a
Basic Economy fare, two-turn conversations (cancel the latest booking; book the flight just
found; hold a price for two, then book it; find the first flight of another day, then move to
it; read a row of the seat map, then take a seat), and lookups of a traveller, of the airport
nearest a city and of a flight's seat map.

Users name themselves by name and email, flights by number, route and local date, and their
bookings by the reference (PNR) they were given; never by internal ids.
"""

from __future__ import annotations

import random
import weakref
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from mcpgym.servers.flights.data import CITIES
from mcpgym.synth.family import (
    MONTHS,
    Draft,
    Family,
    WorldView,
    month_name,
    month_window,
    previous_month,
)

SERVER = "flights"

FARE_NAMES = {"basic": "Basic Economy", "standard": "Standard Economy", "flex": "Flex Economy", "business": "Business"}
FARE_CABIN = {"basic": "economy", "standard": "economy", "flex": "economy", "business": "business"}

_CACHE: weakref.WeakKeyDictionary[WorldView, dict[str, Any]] = weakref.WeakKeyDictionary()


def _cached(view: WorldView) -> dict[str, Any]:
    """Passengers (in the tool's order) and airports of this world, read once per view."""
    found = _CACHE.get(view)
    if found is None:
        passengers: list[dict[str, Any]] = []
        page: int | None = 1
        while page:
            data = view.read(SERVER, "search_passengers", per_page=100, page=page)
            passengers += data["passengers"]
            page = data["next_page"]
        airports = {a["code"]: a for a in view.read(SERVER, "find_airports", per_page=100)["airports"]}
        found = {"passengers": passengers, "airports": airports}
        _CACHE[view] = found
    return found


def _passenger(view: WorldView, rng: random.Random) -> dict[str, Any]:
    return rng.choice(_cached(view)["passengers"])


def _place(view: WorldView, code: str) -> str:
    """How a user names an airport: city and code."""
    airport = _cached(view)["airports"].get(code)
    return f"{airport['city']} ({code})" if airport else code


def _who(p: dict[str, Any]) -> str:
    return f"{p['name']} ({p['email']})"


def _spoken(day: str) -> str:
    """An ISO date as a person writes it: 'Wednesday, January 7, 2026'."""
    d = date.fromisoformat(day)
    return f"{d:%A}, {MONTHS[d.month - 1]} {d.day}, {d.year}"


def _iso(t: Any) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _future_flight(view: WorldView, rng: random.Random, lo: int, hi: int) -> dict[str, Any] | None:
    """A scheduled flight departing `lo` to `hi` days from now whose local and UTC dates agree."""
    day = (view.now + timedelta(days=rng.randint(lo, hi))).date()
    flights = view.read(SERVER, "list_flights", departure_after=f"{day}T00:00:00Z",
                        departure_before=f"{day + timedelta(days=1)}T00:00:00Z", status=["scheduled"],
                        per_page=100)["flights"]
    flights = [f for f in flights if f["departure_date"] == f["scheduled_departure"][:10]]
    return rng.choice(flights) if flights else None


def _credit_card(view: WorldView, rng: random.Random, passenger_id: int) -> tuple[int, dict[str, Any]] | None:
    """A usable credit card of a passenger, with its index in list_payment_methods, whose
    brand and last 4 digits tell it apart from the passenger's other methods."""
    methods = view.read(SERVER, "list_payment_methods", passenger_id=passenger_id)["payment_methods"]
    cards = [(i, m) for i, m in enumerate(methods) if m["kind"] == "credit_card" and m["usable"]
             and sum(1 for o in methods if o["last4"] == m["last4"]) == 1]
    return rng.choice(cards) if cards else None


def _card_text(card: dict[str, Any]) -> str:
    brand = {"visa": "Visa card", "mastercard": "Mastercard", "amex": "Amex card"}.get(card["brand"] or "", "credit card")
    return f"{brand} ending {card['last4']}"


# ---------------------------------------------------------------- comparison


METRICS = {
    "net_spend": ("how much I spent with you (net of refunds, in USD)", "net spend (USD)"),
    "flights_flown": ("how many flights I flew", "flights flown"),
    "distance_flown_km": ("how many kilometres I flew", "distance flown (km)"),
}


class TravelMonthComparison(Family):
    """A traveller's spend, flights or distance in one month against another: both values,
    the change and the percentage change (three calls, two feeding each derived fact)."""

    name = "flights.travel-month-comparison"
    servers = (SERVER,)
    kind = "comparison"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        metric = rng.choice(sorted(METRICS))
        for _ in range(12):
            p = _passenger(view, rng)
            back = rng.randint(1, 9)
            gap = rng.choice((1, 2, 3, 6, 12))
            year, month = previous_month(view.now.year, view.now.month, back)
            year0, month0 = previous_month(year, month, gap)
            (a_start, a_end), (b_start, b_end) = month_window(year0, month0), month_window(year, month)
            a = view.read(SERVER, "passenger_travel_summary", passenger_id=p["passenger_id"], start=a_start, end=a_end)
            b = view.read(SERVER, "passenger_travel_summary", passenger_id=p["passenger_id"], start=b_start, end=b_end)
            if a[metric] > 0 and a[metric] != b[metric]:
                break
        else:
            return None
        first, second = month_name(year0, month0), month_name(year, month)
        asked, label = METRICS[metric]
        user = [
            f"I'm {_who(p)}. Compare {asked} in {first} with {second}: give me both numbers, the change, and the percentage change (to one decimal).",
            f"This is {p['name']}, {p['email']}. Can you tell me {asked} in {first} and in {second}, how much that changed, and by what percent?",
            f"For my account ({p['email']}, {p['name']}), I'd like to compare {asked} in {first} versus {second}: both figures, the difference ({second} minus {first}) and the percent change rounded to 0.1.",
        ]
        bind = {"passenger_id": "{c1.passenger_id}"}
        return Draft(
            family=self.name,
            key=f"passenger:{p['passenger_id']}|{metric}|{first}|{second}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "get_passenger_by_email", "arguments": {"email": p["email"]}},
                    {"id": "c2", "tool": "passenger_travel_summary", "arguments": {"start": a_start, "end": a_end}, "bind": bind},
                    {"id": "c3", "tool": "passenger_travel_summary", "arguments": {"start": b_start, "end": b_end}, "bind": bind},
                ],
                "facts": [
                    {"name": f"{label} in {first}", "expr": f"{{c2.{metric}}}", "value": None},
                    {"name": f"{label} in {second}", "expr": f"{{c3.{metric}}}", "value": None},
                    {"name": "change", "expr": f"{{c3.{metric}}} - {{c2.{metric}}}", "value": None},
                    {"name": "percentage change",
                     "expr": f"round(100 * ({{c3.{metric}}} - {{c2.{metric}}}) / {{c2.{metric}}}, 1)", "value": None},
                ],
            }],
            checks=[f"{{c2.{metric}}} > 0", f"{{c2.{metric}}} != {{c3.{metric}}}"],
        )


# ---------------------------------------------------------------- drill-down


class CheapestTripDrillDown(Family):
    """The cheapest itinerary between two airports on a day, then its first flight's seats
    left and the weekdays that flight's route operates (search, flight, route)."""

    name = "flights.cheapest-trip-drill-down"
    servers = (SERVER,)
    kind = "drill-down"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        cabin = rng.choice(("economy", "economy", "business"))
        fare = "basic" if cabin == "economy" else "business"
        for _ in range(8):
            flight = _future_flight(view, rng, 2, 85)
            if flight is None:
                continue
            origin, destination = flight["origin"], flight["destination"]
            if rng.random() < 0.5:
                onward = [r["destination"] for r in view.read(SERVER, "list_routes", origin=destination)["routes"]
                          if r["destination"] != origin]
                if onward:
                    destination = rng.choice(sorted(set(onward)))
            day = flight["departure_date"]
            search = {"origin": origin, "destination": destination, "date": day, "cabin": cabin, "max_stops": 1,
                      "sort_by": "price", "per_page": 2}
            found = view.read(SERVER, "search_flights", **search)
            its = found["itineraries"]
            if its and (len(its) == 1 or its[0]["fares"][fare] != its[1]["fares"][fare]):
                break
        else:
            return None
        src, dst = _place(view, origin), _place(view, destination)
        user = [
            f"What's the cheapest way to fly {cabin} from {src} to {dst} on {_spoken(day)} (nonstop or one stop)? Tell me the price, how many stops, the first flight's number, how many {cabin} seats are left on that first flight, and on which days of the week that flight operates.",
            f"I need to get from {src} to {dst} on {day} in {cabin}. Find the lowest-priced option (up to one stop) and give me its fare, the number of stops, the flight number of the first leg, {cabin} seats still available on that leg, and the weekdays that flight runs.",
            f"Cheapest {cabin} itinerary {origin} to {destination} departing {day}, at most one connection: fare per passenger, stops, first flight number, {cabin} seats left on it, and its weekly operating days?",
        ]
        return Draft(
            family=self.name,
            key=f"{origin}|{destination}|{day}|{cabin}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "search_flights", "arguments": search},
                    {"id": "c2", "tool": "get_flight", "bind": {"flight_id": "{c1.itineraries.0.segments.0.flight_id}"}},
                    {"id": "c3", "tool": "list_routes", "bind": {"origin": "{c2.origin}", "destination": "{c2.destination}"}},
                ],
                "facts": [
                    {"name": f"cheapest {cabin} fare (USD)", "expr": f"{{c1.itineraries.0.fares.{fare}}}", "value": None},
                    {"name": "stops", "expr": "{c1.itineraries.0.stops}", "value": None},
                    {"name": "first flight", "expr": "{c2.flight_number}", "value": None},
                    {"name": f"{cabin} seats left on the first flight", "expr": f"{{c2.seats_left.{cabin}}}", "value": None},
                    {"name": "operating days", "expr": "{c3.routes.0.operating_days}", "value": None},
                ],
            }],
            checks=[
                f"{{c1.total}} == 1 or {{c1.itineraries.0.fares.{fare}}} != {{c1.itineraries.1.fares.{fare}}}",
                "len({c3.routes}) == 1",
            ],
        )


# ---------------------------------------------------------------- long series


SERIES = {
    "flights_flown": ("how many flights did I fly", "flights flown", "the most flights I flew in a single month"),
    "distance_flown_km": ("how many kilometres did I fly", "km flown", "the most kilometres I flew in a single month"),
    "net_spend": ("how much did I spend with you, net of refunds", "net spend (USD)", "the highest monthly net spend"),
}


class MonthlyTravelSeries(Family):
    """A traveller's flights, distance or spend month by month over 6 to 12 months: one
    summary call per month, the total and the peak month's value."""

    name = "flights.monthly-travel-series"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        metric = rng.choice(sorted(SERIES))
        months = rng.randint(6, 12)
        end_back = rng.randint(1, 2)
        last = previous_month(view.now.year, view.now.month, end_back)
        first = previous_month(last[0], last[1], months - 1)
        start, end = month_window(*first)[0], month_window(*last)[1]
        for _ in range(12):
            p = _passenger(view, rng)
            whole = view.read(SERVER, "passenger_travel_summary", passenger_id=p["passenger_id"], start=start, end=end)
            if whole["flights_flown"] >= 3 and whole[metric] > 0:
                break
        else:
            return None
        asked, label, peak = SERIES[metric]
        span = f"{month_name(*first)} through {month_name(*last)}"
        user = [
            f"I'm {_who(p)}. Month by month from {span}, {asked}? Give me the total over those {months} months and {peak}.",
            f"This is {p['name']} ({p['email']}). For each calendar month from {span}, {asked}? I want the {months}-month total and {peak}.",
            f"Account {p['email']} ({p['name']}): going one month at a time over {span}, {asked}? Tell me the overall total and {peak}.",
        ]
        calls: list[dict[str, Any]] = [{"id": "c1", "tool": "get_passenger_by_email", "arguments": {"email": p["email"]}}]
        refs = []
        for i in range(months):
            year, month = previous_month(first[0], first[1], -i)
            m_start, m_end = month_window(year, month)
            cid = f"c{i + 2}"
            calls.append({"id": cid, "tool": "passenger_travel_summary", "arguments": {"start": m_start, "end": m_end},
                          "bind": {"passenger_id": "{c1.passenger_id}"}})
            refs.append(f"{{{cid}.{metric}}}")
        return Draft(
            family=self.name,
            key=f"passenger:{p['passenger_id']}|{metric}|{span}",
            turns=[{
                "user": user,
                "calls": calls,
                "facts": [
                    {"name": f"total {label}, {span}", "expr": " + ".join(refs), "value": None},
                    {"name": f"peak month's {label}", "expr": f"max({', '.join(refs)})", "value": None},
                ],
            }],
            checks=[f"{' + '.join(refs)} > 0"],
        )


# ---------------------------------------------------------------- writes


def _open_trips(view: WorldView, p: dict[str, Any], lead_only: bool) -> list[tuple[int, dict[str, Any]]]:
    """A passenger's booked reservations (index in list_passenger_reservations, summary)
    whose first flight is still some hours away."""
    soon = _iso(view.now + timedelta(hours=6))
    page = view.read(SERVER, "list_passenger_reservations", passenger_id=p["passenger_id"], status=["booked"],
                     per_page=25)["reservations"]
    return [(i, r) for i, r in enumerate(page) if r["first_departure"] > soon
            and (not lead_only or r["lead_passenger_id"] == p["passenger_id"])]


class SeatSelection(Family):
    """Put a traveller in the seat they ask for on a flight of theirs they name by number and
    date: passenger, bookings, booking, then the seat change."""

    name = "flights.seat-selection"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        soon = _iso(view.now + timedelta(hours=6))
        for _ in range(15):
            p = _passenger(view, rng)
            trips = [(i, r) for i, r in _open_trips(view, p, lead_only=False) if r["fare_class"] != "basic"]
            if not trips:
                continue
            k, summary = rng.choice(trips)
            booking = view.read(SERVER, "get_reservation", pnr=summary["pnr"])
            legs = [s for s in booking["segments"] if s["flight"]["status"] == "scheduled"
                    and s["flight"]["scheduled_departure"] > soon]
            if not legs:
                continue
            leg = rng.choice(legs)
            m = booking["segments"].index(leg)
            flight = leg["flight"]
            seat_map = view.read(SERVER, "get_seat_map", flight_id=flight["flight_id"], cabin=booking["cabin"])
            free = [f"{row['row']}{letter}" for row in seat_map["cabins"][0]["rows"] for letter in row["available"]]
            if free:
                break
        else:
            return None
        seat = rng.choice(free)
        fn, day = flight["flight_number"], flight["departure_date"]
        src, dst = _place(view, flight["origin"]), _place(view, flight["destination"])
        user = [
            f"I'm {_who(p)}. On my flight {fn} from {src} to {dst} on {_spoken(day)}, please put me in seat {seat}. Which booking is that on?",
            f"Hi, {p['name']} here ({p['email']}). Could you move me to seat {seat} on {fn} {flight['origin']}-{flight['destination']}, {day}? Also remind me of the booking reference.",
            f"Seat change for {p['name']}, {p['email']}: flight {fn} on {day} ({src} to {dst}), seat {seat} please, and tell me the booking code it's under.",
        ]
        facts = [
            {"name": "new seat", "expr": "{c4.seat}", "value": None},
            {"name": "booking reference", "expr": "{c3.pnr}", "value": None},
        ]
        return Draft(
            family=self.name,
            key=f"passenger:{p['passenger_id']}|flight:{flight['flight_id']}|{seat}",
            writes=True,
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "get_passenger_by_email", "arguments": {"email": p["email"]}},
                    {"id": "c2", "tool": "list_passenger_reservations", "arguments": {"status": ["booked"], "per_page": 25},
                     "bind": {"passenger_id": "{c1.passenger_id}"}},
                    {"id": "c3", "tool": "get_reservation", "bind": {"pnr": f"{{c2.reservations.{k}.pnr}}"}},
                    {"id": "c4", "tool": "select_seat", "arguments": {"seat": seat},
                     "bind": {"pnr": "{c3.pnr}", "flight_id": f"{{c3.segments.{m}.flight.flight_id}}",
                              "passenger_id": "{c1.passenger_id}"}},
                ],
                "facts": facts,
            }],
            checks=[f"{{c3.segments.{m}.flight.flight_number}} == '{fn}'",
                    f"{{c3.segments.{m}.flight.departure_date}} == '{day}'"],
        )


class AddBaggage(Family):
    """Add checked bags for the lead traveller on a booking they name by reference, paying any
    fee with the card they name."""

    name = "flights.add-baggage"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        rules = {r["fare_class"]: r for r in view.read(SERVER, "get_fare_rules")["fare_classes"]}
        for _ in range(15):
            p = _passenger(view, rng)
            trips = _open_trips(view, p, lead_only=True)
            if not trips:
                continue
            _, summary = rng.choice(trips)
            booking = view.read(SERVER, "get_reservation", pnr=summary["pnr"])
            have = next(t["checked_bags"] for t in booking["passengers"] if t["passenger_id"] == p["passenger_id"])
            if have >= 3:
                continue
            bags = rng.randint(1, 3 - have)
            rule = rules[booking["fare_class"]]
            paid = sum(1 for i in range(have, have + bags) if i >= rule["free_checked_bags"])
            card = _credit_card(view, rng, p["passenger_id"]) if paid else None
            if paid and card is None:
                continue
            break
        else:
            return None
        pnr = booking["pnr"]
        few = "one checked bag" if bags == 1 else f"{bags} checked bags"
        pay = f" Put any fee on my {_card_text(card[1])}." if card else " If there's a fee, tell me."
        user = [
            f"I'm {_who(p)}. Please add {few} for me on booking {pnr}.{pay} How much was charged, and how many bags do I have now?",
            f"{p['name']} here ({p['email']}), booking reference {pnr}: I need {few} added for myself.{pay} What did it cost and what's my bag count now?",
            f"Add {few} to reservation {pnr} for {p['name']} ({p['email']}).{pay} Report the fee and the total checked bags afterwards.",
        ]
        calls: list[dict[str, Any]] = [
            {"id": "c1", "tool": "get_passenger_by_email", "arguments": {"email": p["email"]}},
            {"id": "c2", "tool": "get_reservation", "arguments": {"pnr": pnr}},
        ]
        add: dict[str, Any] = {"id": "c4", "tool": "add_baggage", "arguments": {"pnr": pnr, "bags": bags},
                               "bind": {"passenger_id": "{c1.passenger_id}"}}
        checks = ["{c2.lead_passenger_id} == {c1.passenger_id}"]
        if card:
            k, method = card
            calls.append({"id": "c3", "tool": "list_payment_methods", "bind": {"passenger_id": "{c1.passenger_id}"}})
            add["bind"]["payment_method_id"] = f"{{c3.payment_methods.{k}.payment_method_id}}"
            checks.append(f"{{c3.payment_methods.{k}.last4}} == '{method['last4']}'")
        calls.append(add)
        return Draft(
            family=self.name,
            key=f"booking:{pnr}|passenger:{p['passenger_id']}|{bags}",
            writes=True,
            turns=[{
                "user": user,
                "calls": calls,
                "facts": [
                    {"name": "fee charged (USD)", "expr": "{c4.fee_charged}", "value": None},
                    {"name": "checked bags now", "expr": "{c4.checked_bags}", "value": None},
                ],
            }],
            checks=checks,
        )


# ---------------------------------------------------------------- conditional write


class FareThresholdBooking(Family):
    """Book a named flight in a fare class only if its fare is under the user's limit; either
    way the answer states the fare. The ground truth books exactly when the world's fare is
    under the limit."""

    name = "flights.fare-threshold-booking"
    servers = (SERVER,)
    kind = "conditional-write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        fare = rng.choice(("basic", "standard", "flex", "business"))
        cabin = FARE_CABIN[fare]
        for _ in range(10):
            flight = _future_flight(view, rng, 3, 80)
            if flight is None or flight["seats_left"][cabin] < 1:
                continue
            p = _passenger(view, rng)
            card = _credit_card(view, rng, p["passenger_id"])
            if card is not None:
                break
        else:
            return None
        price = flight["fares"][fare]
        limit = price
        while limit == price:
            limit = max(50, round(price * rng.uniform(0.7, 1.3) / 10) * 10)
        book = price < limit
        k, method = card
        fn, day = flight["flight_number"], flight["departure_date"]
        next_day = (date.fromisoformat(day) + timedelta(days=1)).isoformat()
        src, dst = _place(view, flight["origin"]), _place(view, flight["destination"])
        fare_name = FARE_NAMES[fare]
        user = [
            f"I'm {_who(p)}. If the {fare_name} fare on flight {fn} from {src} to {dst} on {_spoken(day)} is under ${limit}, book me on it in {fare_name} and charge my {_card_text(method)}. If it isn't, don't book anything, just tell me the fare.",
            f"{p['name']} here ({p['email']}). Check {fn} {flight['origin']}-{flight['destination']} on {day}: should the {fare_name} fare be below ${limit}, go ahead and book it for me on my {_card_text(method)} and give me the booking code; otherwise just let me know the fare.",
            f"For {p['name']} ({p['email']}): flight {fn}, {day}, {src} to {dst}. Book one {fare_name} seat with the {_card_text(method)} only if the fare is less than ${limit}; if not, report the current {fare_name} fare and leave it.",
        ]
        calls: list[dict[str, Any]] = [
            {"id": "c1", "tool": "get_passenger_by_email", "arguments": {"email": p["email"]}},
            {"id": "c2", "tool": "list_flights", "arguments": {
                "flight_number": fn, "departure_after": f"{day}T00:00:00Z",
                "departure_before": f"{next_day}T00:00:00Z"}},
        ]
        facts = [{"name": f"{fare_name} fare (USD)", "expr": f"{{c2.flights.0.fares.{fare}}}", "value": None}]
        checks = ["{c2.total} == 1",
                  f"{{c2.flights.0.fares.{fare}}} {'<' if book else '>='} {limit}"]
        if book:
            calls += [
                {"id": "c3", "tool": "list_payment_methods", "bind": {"passenger_id": "{c1.passenger_id}"}},
                {"id": "c4", "tool": "price_itinerary", "arguments": {"fare_class": fare},
                 "bind": {"flight_ids": "[{c2.flights.0.flight_id}]", "passenger_ids": "[{c1.passenger_id}]"}},
                {"id": "c5", "tool": "book_reservation",
                 "arguments": {"payments": [{"payment_method_id": method["payment_method_id"], "amount": price}]},
                 "bind": {"quote_id": "{c4.quote_id}"}},
            ]
            facts += [
                {"name": "booking reference", "expr": "{c5.pnr}", "value": None},
                {"name": "amount charged (USD)", "expr": "{c5.total_charged}", "value": None},
            ]
            checks += [f"{{c3.payment_methods.{k}.payment_method_id}} == {method['payment_method_id']}",
                       f"{{c4.total}} == {price}"]
        return Draft(
            family=self.name,
            key=f"passenger:{p['passenger_id']}|flight:{flight['flight_id']}|{fare}",
            writes=book,
            turns=[{"user": user, "calls": calls, "facts": facts}],
            checks=checks,
        )


# ---------------------------------------------------------------- multi-turn


class LatestBookingCancel(Family):
    """Turn 1: the traveller's most recently made active booking. Turn 2: cancel that one,
    with the refund it gives."""

    name = "flights.latest-booking-cancel"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        soon = _iso(view.now + timedelta(hours=6))
        for _ in range(15):
            p = _passenger(view, rng)
            page = view.read(SERVER, "list_passenger_reservations", passenger_id=p["passenger_id"], status=["booked"],
                             per_page=2)
            rs = page["reservations"]
            if (rs and rs[0]["lead_passenger_id"] == p["passenger_id"] and rs[0]["first_departure"] > soon
                    and (len(rs) == 1 or rs[0]["created_at"] != rs[1]["created_at"])):
                break
        else:
            return None
        first = [
            f"I'm {_who(p)}. What's the most recent booking I made that's still active? I need its booking reference, the route, and when the first flight departs.",
            f"Hi, {p['name']} here ({p['email']}). Which of my active (booked) reservations did I make last? Tell me the booking code, itinerary and first departure time.",
            f"Look up {p['name']} ({p['email']}): of their reservations still in booked status, the one created most recently: reference, itinerary and first departure?",
        ]
        second = [
            "Please cancel that one. How much will I get back, and what's my net amount paid on it afterwards?",
            "OK, cancel that booking for me. What's the refund, and what do I end up having paid for it?",
            "Go ahead and cancel it. Tell me the refund amount and the net paid on the reservation after the cancellation.",
        ]
        return Draft(
            family=self.name,
            key=f"passenger:{p['passenger_id']}|booking:{rs[0]['pnr']}",
            writes=True,
            turns=[
                {
                    "user": first,
                    "calls": [
                        {"id": "c1", "tool": "get_passenger_by_email", "arguments": {"email": p["email"]}},
                        {"id": "c2", "tool": "list_passenger_reservations", "arguments": {"status": ["booked"], "per_page": 2},
                         "bind": {"passenger_id": "{c1.passenger_id}"}},
                    ],
                    "facts": [
                        {"name": "booking reference", "expr": "{c2.reservations.0.pnr}", "value": None},
                        {"name": "itinerary", "expr": "{c2.reservations.0.itinerary}", "value": None},
                        {"name": "first departure", "expr": "{c2.reservations.0.first_departure}", "value": None},
                    ],
                },
                {
                    "user": second,
                    "calls": [{"id": "c3", "tool": "cancel_reservation", "bind": {"pnr": "{c2.reservations.0.pnr}"}}],
                    "facts": [
                        {"name": "refund (USD)", "expr": "{c3.refund_amount}", "value": None},
                        {"name": "net paid after cancelling (USD)", "expr": "{c3.reservation.net_paid}", "value": None},
                    ],
                },
            ],
            checks=["{c2.reservations.0.lead_passenger_id} == {c1.passenger_id}",
                    "{c2.total} == 1 or {c2.reservations.0.created_at} != {c2.reservations.1.created_at}"],
        )


class FindThenBook(Family):
    """Turn 1: the cheapest nonstop on a route and day. Turn 2: book that one in a fare class
    of its cabin with a named card."""

    name = "flights.find-then-book"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        for _ in range(10):
            flight = _future_flight(view, rng, 3, 80)
            if flight is None:
                continue
            cabin = rng.choice(("economy", "economy", "business"))
            search = {"origin": flight["origin"], "destination": flight["destination"], "date": flight["departure_date"],
                      "cabin": cabin, "max_stops": 0, "sort_by": "price", "per_page": 2}
            its = view.read(SERVER, "search_flights", **search)["itineraries"]
            if not its or (len(its) > 1 and min(its[0]["fares"].values()) == min(its[1]["fares"].values())):
                continue
            p = _passenger(view, rng)
            card = _credit_card(view, rng, p["passenger_id"])
            if card is not None:
                break
        else:
            return None
        fare = rng.choice(("basic", "standard", "flex")) if cabin == "economy" else "business"
        cheap = "basic" if cabin == "economy" else "business"
        price = its[0]["fares"][fare]
        k, method = card
        day = flight["departure_date"]
        src, dst = _place(view, flight["origin"]), _place(view, flight["destination"])
        fare_name = FARE_NAMES[fare]
        first = [
            f"I'm {_who(p)}. What's the cheapest nonstop {cabin} flight from {src} to {dst} on {_spoken(day)}? Give me the flight number, its departure time (UTC) and the lowest {cabin} fare.",
            f"{p['name']} here ({p['email']}). I want to fly nonstop {flight['origin']} to {flight['destination']} on {day} in {cabin}. Which flight is cheapest? Flight number, scheduled departure in UTC, and the price please.",
            f"For {p['name']} ({p['email']}): lowest-priced nonstop {cabin} option {src} to {dst} on {day}: flight number, UTC departure, and the fare?",
        ]
        second = [
            f"Great, book that one for me in {fare_name}, paid with my {_card_text(method)}. What's the booking reference and total charged?",
            f"Please reserve that flight for me on a {fare_name} fare and charge my {_card_text(method)}. Tell me the booking code and the amount.",
            f"Book it: {fare_name}, just me, on the {_card_text(method)}. I need the reference and what was charged.",
        ]
        return Draft(
            family=self.name,
            key=f"passenger:{p['passenger_id']}|{flight['origin']}|{flight['destination']}|{day}|{fare}",
            writes=True,
            turns=[
                {
                    "user": first,
                    "calls": [
                        {"id": "c1", "tool": "get_passenger_by_email", "arguments": {"email": p["email"]}},
                        {"id": "c2", "tool": "search_flights", "arguments": search},
                    ],
                    "facts": [
                        {"name": "flight", "expr": "{c2.itineraries.0.segments.0.flight_number}", "value": None},
                        {"name": "departure (UTC)", "expr": "{c2.itineraries.0.departure}", "value": None},
                        {"name": f"lowest {cabin} fare (USD)", "expr": f"{{c2.itineraries.0.fares.{cheap}}}", "value": None},
                    ],
                },
                {
                    "user": second,
                    "calls": [
                        {"id": "c3", "tool": "list_payment_methods", "bind": {"passenger_id": "{c1.passenger_id}"}},
                        {"id": "c4", "tool": "price_itinerary", "arguments": {"fare_class": fare},
                         "bind": {"flight_ids": "[{c2.itineraries.0.segments.0.flight_id}]",
                                  "passenger_ids": "[{c1.passenger_id}]"}},
                        {"id": "c5", "tool": "book_reservation",
                         "arguments": {"payments": [{"payment_method_id": method["payment_method_id"], "amount": price}]},
                         "bind": {"quote_id": "{c4.quote_id}"}},
                    ],
                    "facts": [
                        {"name": "booking reference", "expr": "{c5.pnr}", "value": None},
                        {"name": "total charged (USD)", "expr": "{c5.total_charged}", "value": None},
                    ],
                },
            ],
            checks=[
                f"{{c2.total}} == 1 or {{c2.itineraries.0.fares.{cheap}}} != {{c2.itineraries.1.fares.{cheap}}}",
                f"{{c3.payment_methods.{k}.payment_method_id}} == {method['payment_method_id']}",
                f"{{c4.total}} == {price}",
            ],
        )


class PassengerLookup(Family):
    """A traveller the user names by name and company: loyalty number, home airport, and how
    many reservations they travel on."""

    name = "flights.passenger-lookup"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        passenger = _passenger(view, rng)
        person, company = passenger["name"], passenger["organization_name"]
        user = [
            f"What is the loyalty number and home airport of {person} from {company}, and how many reservations are they travelling on with us?",
            f"Look up our traveller {person} ({company}): loyalty number, home airport, and the number of bookings they are on.",
            f"For {person} at {company}, give me their frequent-flyer number, their home airport and how many reservations they have.",
        ]
        return Draft(
            family=self.name,
            key=f"passenger:{passenger['passenger_id']}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "search_passengers", "arguments": {"query": person, "organization": company}},
                    {"id": "c2", "tool": "list_passenger_reservations", "arguments": {"per_page": 1},
                     "bind": {"passenger_id": "{c1.passengers.0.passenger_id}"}},
                ],
                "facts": [
                    {"name": "loyalty number", "expr": "{c1.passengers.0.loyalty_number}", "value": None},
                    {"name": "home airport", "expr": "{c1.passengers.0.home_airport}", "value": None},
                    {"name": "reservations", "expr": "{c2.total}", "value": None},
                ],
            }],
            checks=["{c1.total} == 1"],
        )


# ---------------------------------------------------------------- airports and seats


def _in_country(country: str) -> str:
    """A country as it follows 'in': 'the United States', 'Germany'."""
    plural = country.startswith("United ") or country.endswith(("lands", "ines", "Republic", "Emirates"))
    return f"the {country}" if plural else country


class NearestAirport(Family):
    """The airline's airport closest to a city (its own or the nearest one), its distance and
    whether it is a hub, and how many airports the airline serves in that country."""

    name = "flights.nearest-airport"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        city, country, _, _ = rng.choice(CITIES)
        near = view.read(SERVER, "nearest_airports", city=city, country=country, limit=2)
        airports = near["airports"]
        if len(airports) > 1 and airports[0]["distance_km"] == airports[1]["distance_km"]:
            return None
        where = _in_country(country)
        user = [
            f"I need to get to {city}, {country}. Which of your airports is closest, how far is it from the city, and is it one of your hubs? Also, how many airports do you fly to in {where}?",
            f"What's the nearest airport you serve for {city} ({country}), its distance in km, and is it a hub? And how many airports in {where} are on your network?",
            f"Travelling to {city} in {where}: closest airport you fly to, distance from town, hub or not, plus the number of airports you serve in {where}.",
        ]
        checks = ["len({c1.airports}) == 1 or {c1.airports.0.distance_km} < {c1.airports.1.distance_km}"]
        return Draft(
            family=self.name,
            key=f"{city}|{country}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "nearest_airports", "arguments": {"city": city, "country": country, "limit": 2}},
                    {"id": "c2", "tool": "find_airports", "arguments": {"country": country, "per_page": 25}},
                ],
                "facts": [
                    {"name": "closest airport", "expr": "{c1.airports.0.code}", "value": None},
                    {"name": "distance (km)", "expr": "{c1.airports.0.distance_km}", "value": None},
                    {"name": "is a hub", "expr": "{c1.airports.0.is_hub}", "value": None},
                    {"name": f"airports served in {where}", "expr": "{c2.total}", "value": None},
                ],
            }],
            checks=checks,
        )


class FlightSeatAvailability(Family):
    """How full a cabin of a flight (named by number and date) is, and which seats of a row
    are still free, from its seat map."""

    name = "flights.flight-seat-availability"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        flight = _future_flight(view, rng, 1, 60)
        if flight is None:
            return None
        cabin = rng.choice(("economy", "economy", "business"))
        seat_map = view.read(SERVER, "get_seat_map", flight_id=flight["flight_id"], cabin=cabin)
        rows = [(i, r) for i, r in enumerate(seat_map["cabins"][0]["rows"]) if r["available"]]
        if not rows:
            return None
        at, row = rng.choice(rows)
        fn, day = flight["flight_number"], flight["departure_date"]
        next_day = (date.fromisoformat(day) + timedelta(days=1)).isoformat()
        src, dst = _place(view, flight["origin"]), _place(view, flight["destination"])
        user = [
            f"How full is {cabin} on flight {fn} from {src} to {dst} on {_spoken(day)}? Seats in the cabin, passengers booked, seats left, and which seats in row {row['row']} are still free?",
            f"For {fn} on {day} ({flight['origin']}-{flight['destination']}), {cabin} cabin: capacity, how many are booked, how many seats remain, and the open seats in row {row['row']}.",
            f"Check the {cabin} seat map of {fn}, {day}, {src} to {dst}: total seats, bookings, seats still for sale, and which letters in row {row['row']} are unassigned.",
        ]
        cabin_ref = "{c2.cabins.0"
        return Draft(
            family=self.name,
            key=f"flight:{flight['flight_id']}|{cabin}|{row['row']}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "list_flights", "arguments": {
                        "flight_number": fn, "departure_after": f"{day}T00:00:00Z", "departure_before": f"{next_day}T00:00:00Z"}},
                    {"id": "c2", "tool": "get_seat_map", "arguments": {"cabin": cabin}, "bind": {"flight_id": "{c1.flights.0.flight_id}"}},
                ],
                "facts": [
                    {"name": f"{cabin} seats", "expr": f"{cabin_ref}.capacity}}", "value": None},
                    {"name": "passengers booked", "expr": f"{cabin_ref}.passengers_booked}}", "value": None},
                    {"name": "seats left", "expr": f"{cabin_ref}.seats_left}}", "value": None},
                    {"name": f"free seats in row {row['row']}", "expr": f"{cabin_ref}.rows.{at}.available}}", "value": None},
                ],
            }],
            checks=["{c1.total} == 1", f"{cabin_ref}.rows.{at}.row}} == {row['row']}"],
        )


# ---------------------------------------------------------------- changes, cards, quotes


def _later_flight(view: WorldView, rng: random.Random, leg: dict[str, Any], seats: int,
                  cabin: str) -> dict[str, Any] | None:
    """A scheduled flight on the leg's route one to three days after it, whose local and UTC
    dates agree, with `seats` free in `cabin`."""
    day = date.fromisoformat(leg["departure_date"]) + timedelta(days=rng.randint(1, 3))
    found = view.read(SERVER, "list_flights", origin=leg["origin"], destination=leg["destination"],
                      departure_after=f"{day}T00:00:00Z", departure_before=f"{day + timedelta(days=1)}T00:00:00Z",
                      status=["scheduled"], per_page=25)["flights"]
    found = [f for f in found if f["departure_date"] == f["scheduled_departure"][:10] and f["seats_left"][cabin] >= seats]
    return rng.choice(found) if found else None


@dataclass
class OpenLeg:
    """A scheduled flight, some hours away or more, of a passenger's booked non-basic
    reservation (`at`: its position among the segments), with a usable card of theirs (its
    index in list_payment_methods, the method)."""

    passenger: dict[str, Any]
    card: tuple[int, dict[str, Any]]
    booking: dict[str, Any]
    at: int

    @property
    def flight(self) -> dict[str, Any]:
        return self.booking["segments"][self.at]["flight"]

    def leaves_room(self, new: dict[str, Any]) -> bool:
        """Whether `new` lands a day or more before the booking's next flight (if any) leaves."""
        segments = self.booking["segments"]
        if self.at + 1 == len(segments):
            return True
        arrival_day = date.fromisoformat(new["scheduled_arrival"][:10])
        return segments[self.at + 1]["flight"]["scheduled_departure"] > _iso(arrival_day + timedelta(days=1))


def _open_leg(view: WorldView, rng: random.Random, lead_only: bool) -> OpenLeg | None:
    """One try at an OpenLeg of a random passenger."""
    soon = _iso(view.now + timedelta(hours=6))
    p = _passenger(view, rng)
    trips = [(i, r) for i, r in _open_trips(view, p, lead_only=lead_only) if r["fare_class"] != "basic"]
    card = _credit_card(view, rng, p["passenger_id"])
    if not trips or card is None:
        return None
    booking = view.read(SERVER, "get_reservation", pnr=rng.choice(trips)[1]["pnr"])
    at = rng.randrange(len(booking["segments"]))
    flight = booking["segments"][at]["flight"]
    if flight["status"] != "scheduled" or flight["scheduled_departure"] <= soon:
        return None
    return OpenLeg(p, card, booking, at)


class ChangeToLaterFlight(Family):
    """Move a booking's flight to a later flight on the same route the traveller names by
    number and date, paying any change fee and fare difference with a named card."""

    name = "flights.change-to-later-flight"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        for _ in range(15):
            found = _open_leg(view, rng, lead_only=True)
            if found is None:
                continue
            new = _later_flight(view, rng, found.flight, len(found.booking["passengers"]), found.booking["cabin"])
            if new is not None and found.leaves_room(new):
                break
        else:
            return None
        p, booking, m, leg = found.passenger, found.booking, found.at, found.flight
        k, method = found.card
        pnr = booking["pnr"]
        old_fn, old_day = leg["flight_number"], leg["departure_date"]
        new_fn, new_day = new["flight_number"], new["departure_date"]
        after = (date.fromisoformat(new_day) + timedelta(days=1)).isoformat()
        src, dst = _place(view, leg["origin"]), _place(view, leg["destination"])
        user = [
            f"I'm {_who(p)}. On booking {pnr}, please move the booking from flight {old_fn} on {_spoken(old_day)} to {new_fn} on {_spoken(new_day)} ({src} to {dst}). Put any charge on my {_card_text(method)}. What was the change fee, the fare difference, and the total charged?",
            f"{p['name']} here ({p['email']}). Booking {pnr}: swap {old_fn} on {old_day} for {new_fn} on {new_day}, same route {leg['origin']}-{leg['destination']}. Use my {_card_text(method)} for any cost and tell me the fee per passenger, the fare difference and what you charged.",
            f"Change reservation {pnr} for {p['name']} ({p['email']}): replace {old_fn} ({old_day}) with {new_fn} on {new_day}, {src} to {dst}. Charge the {_card_text(method)} if needed; report change fee, fare difference per passenger and the total amount.",
        ]
        return Draft(
            family=self.name,
            key=f"booking:{pnr}|flight:{leg['flight_id']}",
            writes=True,
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "get_passenger_by_email", "arguments": {"email": p["email"]}},
                    {"id": "c2", "tool": "get_reservation", "arguments": {"pnr": pnr}},
                    {"id": "c3", "tool": "list_flights", "arguments": {
                        "flight_number": new_fn, "departure_after": f"{new_day}T00:00:00Z", "departure_before": f"{after}T00:00:00Z"}},
                    {"id": "c4", "tool": "list_payment_methods", "bind": {"passenger_id": "{c1.passenger_id}"}},
                    {"id": "c5", "tool": "change_flight", "arguments": {"pnr": pnr},
                     "bind": {"old_flight_id": f"{{c2.segments.{m}.flight.flight_id}}", "new_flight_id": "{c3.flights.0.flight_id}",
                              "payment_method_id": f"{{c4.payment_methods.{k}.payment_method_id}}"}},
                ],
                "facts": [
                    {"name": "change fee per passenger (USD)", "expr": "{c5.change_fee_per_passenger}", "value": None},
                    {"name": "fare difference per passenger (USD)", "expr": "{c5.fare_difference_per_passenger}", "value": None},
                    {"name": "total charged (USD)", "expr": "{c5.amount_charged}", "value": None},
                ],
            }],
            checks=["{c2.lead_passenger_id} == {c1.passenger_id}", "{c3.total} == 1",
                    f"{{c2.segments.{m}.flight.flight_number}} == '{old_fn}'",
                    f"{{c2.segments.{m}.flight.departure_date}} == '{old_day}'",
                    f"{{c4.payment_methods.{k}.last4}} == '{method['last4']}'"],
        )


class BasicFareChangeRefusal(Family):
    """Asked to move a Basic Economy booking to another flight: refuse (basic fares cannot be
    changed), and say what cancelling would refund instead."""

    name = "flights.basic-fare-change-refusal"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        rules = view.read(SERVER, "get_fare_rules")["fare_classes"]
        at = next(i for i, r in enumerate(rules) if r["fare_class"] == "basic")
        for _ in range(15):
            p = _passenger(view, rng)
            trips = [(i, r) for i, r in _open_trips(view, p, lead_only=True) if r["fare_class"] == "basic"]
            if trips:
                break
        else:
            return None
        _, summary = rng.choice(trips)
        booking = view.read(SERVER, "get_reservation", pnr=summary["pnr"])
        leg = booking["segments"][0]["flight"]
        pnr, fn, day = booking["pnr"], leg["flight_number"], leg["departure_date"]
        later = (date.fromisoformat(day) + timedelta(days=1)).isoformat()
        user = [
            f"I'm {_who(p)}. Please move my flight {fn} on booking {pnr} to the same flight one day later, {_spoken(later)}. If that can't be done, tell me why and what I'd get back if I cancelled instead.",
            f"{p['name']} here ({p['email']}). Can you push {fn} on reservation {pnr} back a day to {later}? If the fare doesn't allow it, explain and tell me the refund a cancellation would give.",
            f"For {p['name']} ({p['email']}), booking {pnr}: rebook {fn} from {day} to {later}. If changes aren't permitted, say which fare it is and what refund cancelling gets.",
        ]
        return Draft(
            family=self.name,
            key=f"booking:{pnr}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "get_reservation", "arguments": {"pnr": pnr}},
                    {"id": "c2", "tool": "get_fare_rules"},
                ],
                "facts": [
                    {"name": "fare", "expr": f"{{c2.fare_classes.{at}.name}}", "value": None},
                    {"name": "changes allowed", "expr": f"{{c2.fare_classes.{at}.changes_allowed}}", "value": None},
                    {"name": "refund on cancellation", "expr": f"{{c2.fare_classes.{at}.refund}}", "value": None},
                ],
            }],
            checks=["{c1.fare_class} == 'basic'", f"{{c2.fare_classes.{at}.fare_class}} == 'basic'"],
        )


BRANDS = ("visa", "mastercard", "amex")


class NewCardForBags(Family):
    """Add a new credit card to the traveller's profile and pay for extra checked bags on a
    booking (named by reference) with it."""

    name = "flights.new-card-for-bags"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        rules = {r["fare_class"]: r for r in view.read(SERVER, "get_fare_rules")["fare_classes"]}
        for _ in range(15):
            p = _passenger(view, rng)
            trips = _open_trips(view, p, lead_only=True)
            if not trips:
                continue
            _, summary = rng.choice(trips)
            booking = view.read(SERVER, "get_reservation", pnr=summary["pnr"])
            have = next(t["checked_bags"] for t in booking["passengers"] if t["passenger_id"] == p["passenger_id"])
            free = rules[booking["fare_class"]]["free_checked_bags"]
            if have >= 3 or have + 3 <= free:
                continue
            bags = rng.randint(max(1, free - have + 1), 3 - have)
            break
        else:
            return None
        methods = view.read(SERVER, "list_payment_methods", passenger_id=p["passenger_id"])["payment_methods"]
        last4 = f"{rng.randrange(10_000):04d}"
        if any(m["last4"] == last4 for m in methods):
            return None
        brand = rng.choice(BRANDS)
        month, year = rng.randint(1, 12), view.now.year + rng.randint(1, 5)
        card = _card_text({"brand": brand, "last4": last4})
        pnr = booking["pnr"]
        few = "one more checked bag" if bags == 1 else f"{bags} more checked bags"
        user = [
            f"I'm {_who(p)}. Please add my new {card} (expires {month:02d}/{year}) to my profile, then add {few} for me on booking {pnr} and charge it to that card. What was the fee and how many bags do I have now?",
            f"{p['name']} here ({p['email']}). I have a new {card}, expiry {month:02d}/{year}; save it to my account and use it to pay for {few} on reservation {pnr}. Tell me the charge and my bag total.",
            f"For {p['name']} ({p['email']}): register the {card} expiring {month:02d}/{year}, and on booking {pnr} add {few} for them paid with it. Report the fee and the checked bags afterwards.",
        ]
        return Draft(
            family=self.name,
            key=f"booking:{pnr}|passenger:{p['passenger_id']}",
            writes=True,
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "get_passenger_by_email", "arguments": {"email": p["email"]}},
                    {"id": "c2", "tool": "get_reservation", "arguments": {"pnr": pnr}},
                    {"id": "c3", "tool": "add_payment_method",
                     "arguments": {"brand": brand, "last4": last4, "expiry_month": month, "expiry_year": year},
                     "bind": {"passenger_id": "{c1.passenger_id}"}},
                    {"id": "c4", "tool": "add_baggage", "arguments": {"pnr": pnr, "bags": bags},
                     "bind": {"passenger_id": "{c1.passenger_id}", "payment_method_id": "{c3.payment_method_id}"}},
                ],
                "facts": [
                    {"name": "fee charged (USD)", "expr": "{c4.fee_charged}", "value": None},
                    {"name": "checked bags now", "expr": "{c4.checked_bags}", "value": None},
                ],
            }],
            checks=["{c2.lead_passenger_id} == {c1.passenger_id}", "{c4.fee_charged} > 0"],
        )


class QuoteThenBook(Family):
    """Turn 1: price a flight (named by number and date) for the user and a colleague in a fare
    class, holding the price. Turn 2: confirm the held quote and book it with a named card."""

    name = "flights.quote-then-book"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        fare = rng.choice(("basic", "standard", "flex", "business"))
        cabin = FARE_CABIN[fare]
        for _ in range(10):
            flight = _future_flight(view, rng, 3, 80)
            if flight is None or flight["seats_left"][cabin] < 2:
                continue
            p, companion = _passenger(view, rng), _passenger(view, rng)
            card = _credit_card(view, rng, p["passenger_id"])
            if card is not None and companion["passenger_id"] != p["passenger_id"]:
                break
        else:
            return None
        k, method = card
        price = flight["fares"][fare]
        fn, day = flight["flight_number"], flight["departure_date"]
        next_day = (date.fromisoformat(day) + timedelta(days=1)).isoformat()
        src, dst = _place(view, flight["origin"]), _place(view, flight["destination"])
        fare_name = FARE_NAMES[fare]
        first = [
            f"I'm {_who(p)}. What would flight {fn} from {src} to {dst} on {_spoken(day)} cost in {fare_name} for me and {_who(companion)}? Hold the price, and tell me the total and until when it's held (UTC).",
            f"{p['name']} here ({p['email']}). Price {fn} {flight['origin']}-{flight['destination']} on {day}, {fare_name}, for me plus {companion['name']} ({companion['email']}). I need the total and the quote's expiry time.",
            f"Get a {fare_name} quote on {fn}, {day}, {src} to {dst}, for {p['name']} ({p['email']}) and {companion['name']} ({companion['email']}): total price and when the quote expires.",
        ]
        second = [
            f"Is that price still held? If so, book it and pay with my {_card_text(method)}. What's the booking reference?",
            f"Check the quote is still open, then book it on my {_card_text(method)} and give me the reference and the amount charged.",
            f"Okay, if the quote hasn't lapsed, go ahead and book it with the {_card_text(method)}. Booking code and total charged, please.",
        ]
        return Draft(
            family=self.name,
            key=f"passenger:{p['passenger_id']}|{companion['passenger_id']}|flight:{flight['flight_id']}|{fare}",
            writes=True,
            turns=[
                {
                    "user": first,
                    "calls": [
                        {"id": "c1", "tool": "get_passenger_by_email", "arguments": {"email": p["email"]}},
                        {"id": "c2", "tool": "get_passenger_by_email", "arguments": {"email": companion["email"]}},
                        {"id": "c3", "tool": "list_flights", "arguments": {
                            "flight_number": fn, "departure_after": f"{day}T00:00:00Z", "departure_before": f"{next_day}T00:00:00Z"}},
                        {"id": "c4", "tool": "price_itinerary", "arguments": {"fare_class": fare},
                         "bind": {"flight_ids": "[{c3.flights.0.flight_id}]",
                                  "passenger_ids": "[{c1.passenger_id}, {c2.passenger_id}]"}},
                    ],
                    "facts": [
                        {"name": "total (USD)", "expr": "{c4.total}", "value": None},
                        {"name": "price held until (UTC)", "expr": "{c4.expires_at}", "value": None},
                    ],
                },
                {
                    "user": second,
                    "calls": [
                        {"id": "c5", "tool": "get_quote", "bind": {"quote_id": "{c4.quote_id}"}},
                        {"id": "c6", "tool": "list_payment_methods", "bind": {"passenger_id": "{c1.passenger_id}"}},
                        {"id": "c7", "tool": "book_reservation",
                         "arguments": {"payments": [{"payment_method_id": method["payment_method_id"], "amount": 2 * price}]},
                         "bind": {"quote_id": "{c5.quote_id}"}},
                    ],
                    "facts": [
                        {"name": "quote status before booking", "expr": "{c5.status}", "value": None},
                        {"name": "booking reference", "expr": "{c7.pnr}", "value": None},
                        {"name": "total charged (USD)", "expr": "{c7.total_charged}", "value": None},
                    ],
                },
            ],
            checks=["{c3.total} == 1", "{c5.status} == 'open'", f"{{c4.total}} == {2 * price}",
                    f"{{c6.payment_methods.{k}.payment_method_id}} == {method['payment_method_id']}"],
        )



class FirstFlightThenChange(Family):
    """Turn 1: the first flight of the day on the route of a booked flight, some days later.
    Turn 2: move the booking's flight to that one, paying with a named card."""

    name = "flights.first-flight-then-change"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        for _ in range(15):
            found = _open_leg(view, rng, lead_only=True)
            if found is None:
                continue
            day = date.fromisoformat(found.flight["departure_date"]) + timedelta(days=rng.randint(1, 3))
            search = {"origin": found.flight["origin"], "destination": found.flight["destination"],
                      "departure_after": f"{day}T00:00:00Z", "departure_before": f"{day + timedelta(days=1)}T00:00:00Z",
                      "status": ["scheduled"]}
            flights = view.read(SERVER, "list_flights", **search, per_page=2)["flights"]
            if (flights and flights[0]["seats_left"][found.booking["cabin"]] >= len(found.booking["passengers"])
                    and (len(flights) == 1 or flights[0]["scheduled_departure"] != flights[1]["scheduled_departure"])
                    and found.leaves_room(flights[0])):
                break
        else:
            return None
        p, booking, m, leg = found.passenger, found.booking, found.at, found.flight
        k, method = found.card
        pnr, fn = booking["pnr"], leg["flight_number"]
        src, dst = _place(view, leg["origin"]), _place(view, leg["destination"])
        first = [
            f"I'm {_who(p)}. I'm booked on {fn} from {src} to {dst} on {_spoken(leg['departure_date'])} (booking {pnr}), but I may need to go on {_spoken(str(day))} instead. What's the first flight that day on that route (UTC), and when does it leave?",
            f"{p['name']} here ({p['email']}), booking {pnr}. Instead of {fn} on {leg['departure_date']}, what's the earliest scheduled {leg['origin']}-{leg['destination']} flight on {day} by UTC departure? Flight number and departure time please.",
            f"For {p['name']} ({p['email']}): which flight leaves first from {src} to {dst} on {day} (UTC day), and at what time? I might move {fn} of booking {pnr} to it.",
        ]
        second = [
            f"Please move my {fn} on booking {pnr} to that flight. Charge anything due to my {_card_text(method)}. What did the change cost in total?",
            f"Go ahead and switch {fn} on {pnr} to that flight, paying with my {_card_text(method)}. How much was charged?",
            f"Make the change: replace {fn} with that flight on booking {pnr}, and use the {_card_text(method)} for any fee. Total charged?",
        ]
        return Draft(
            family=self.name,
            key=f"booking:{pnr}|flight:{leg['flight_id']}|{day}",
            writes=True,
            turns=[
                {
                    "user": first,
                    "calls": [{"id": "c1", "tool": "list_flights", "arguments": {**search, "per_page": 5}}],
                    "facts": [
                        {"name": "first flight", "expr": "{c1.flights.0.flight_number}", "value": None},
                        {"name": "departure (UTC)", "expr": "{c1.flights.0.scheduled_departure}", "value": None},
                    ],
                },
                {
                    "user": second,
                    "calls": [
                        {"id": "c2", "tool": "get_passenger_by_email", "arguments": {"email": p["email"]}},
                        {"id": "c3", "tool": "get_reservation", "arguments": {"pnr": pnr}},
                        {"id": "c4", "tool": "list_payment_methods", "bind": {"passenger_id": "{c2.passenger_id}"}},
                        {"id": "c5", "tool": "change_flight", "arguments": {"pnr": pnr},
                         "bind": {"old_flight_id": f"{{c3.segments.{m}.flight.flight_id}}", "new_flight_id": "{c1.flights.0.flight_id}",
                                  "payment_method_id": f"{{c4.payment_methods.{k}.payment_method_id}}"}},
                    ],
                    "facts": [{"name": "total charged (USD)", "expr": "{c5.amount_charged}", "value": None}],
                },
            ],
            checks=["{c1.total} == 1 or {c1.flights.0.scheduled_departure} < {c1.flights.1.scheduled_departure}",
                    "{c3.lead_passenger_id} == {c2.passenger_id}",
                    f"{{c3.segments.{m}.flight.flight_number}} == '{fn}'",
                    f"{{c4.payment_methods.{k}.last4}} == '{method['last4']}'"],
        )


class SeatMapThenSelect(Family):
    """Turn 1: the free seats of a row in the traveller's cabin on a flight of their booking.
    Turn 2: take one of those seats."""

    name = "flights.seat-map-then-select"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        for _ in range(15):
            found = _open_leg(view, rng, lead_only=False)
            if found is None:
                continue
            seat_map = view.read(SERVER, "get_seat_map", flight_id=found.flight["flight_id"], cabin=found.booking["cabin"])
            rows = [(i, r) for i, r in enumerate(seat_map["cabins"][0]["rows"]) if len(r["available"]) >= 2]
            if rows:
                break
        else:
            return None
        p, booking, m, leg = found.passenger, found.booking, found.at, found.flight
        at, row = rng.choice(rows)
        seat = f"{row['row']}{rng.choice(row['available'])}"
        pnr, fn, day = booking["pnr"], leg["flight_number"], leg["departure_date"]
        first = [
            f"I'm {_who(p)}, booking {pnr}. On my flight {fn} on {_spoken(day)}, which seats in row {row['row']} of my cabin are still free?",
            f"{p['name']} here ({p['email']}). For {fn} on {day} on reservation {pnr}: what's open in row {row['row']} of the cabin I'm booked in, and how many seats are left in that cabin?",
            f"Booking {pnr}, {p['name']} ({p['email']}): list the unassigned seats in row {row['row']} on flight {fn}, {day}, in my cabin.",
        ]
        second = [
            f"Great, give me {seat}.",
            f"Put me in seat {seat}, please.",
            f"I'll take {seat}. Please assign it to me.",
        ]
        return Draft(
            family=self.name,
            key=f"booking:{pnr}|flight:{leg['flight_id']}|passenger:{p['passenger_id']}",
            writes=True,
            turns=[
                {
                    "user": first,
                    "calls": [
                        {"id": "c1", "tool": "get_reservation", "arguments": {"pnr": pnr}},
                        {"id": "c2", "tool": "get_seat_map", "bind": {"flight_id": f"{{c1.segments.{m}.flight.flight_id}}",
                                                                      "cabin": "{c1.cabin}"}},
                    ],
                    "facts": [
                        {"name": f"free seats in row {row['row']}", "expr": f"{{c2.cabins.0.rows.{at}.available}}", "value": None},
                        {"name": "seats left in the cabin", "expr": "{c2.cabins.0.seats_left}", "value": None},
                    ],
                },
                {
                    "user": second,
                    "calls": [
                        {"id": "c3", "tool": "get_passenger_by_email", "arguments": {"email": p["email"]}},
                        {"id": "c4", "tool": "select_seat", "arguments": {"pnr": pnr, "seat": seat},
                         "bind": {"flight_id": f"{{c1.segments.{m}.flight.flight_id}}", "passenger_id": "{c3.passenger_id}"}},
                    ],
                    "facts": [{"name": "seat", "expr": "{c4.seat}", "value": None}],
                },
            ],
            checks=[f"{{c1.segments.{m}.flight.flight_number}} == '{fn}'",
                    f"{{c1.segments.{m}.flight.departure_date}} == '{day}'",
                    f"{{c2.cabins.0.rows.{at}.row}} == {row['row']}"],
        )


class CardsThenAddCard(Family):
    """Turn 1: how many payment methods the traveller has on file. Turn 2: add a new card and
    say how many there are now."""

    name = "flights.cards-then-add-card"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        p = _passenger(view, rng)
        methods = view.read(SERVER, "list_payment_methods", passenger_id=p["passenger_id"])["payment_methods"]
        last4 = f"{rng.randrange(10_000):04d}"
        if any(m["last4"] == last4 for m in methods):
            return None
        brand = rng.choice(BRANDS)
        month, year = rng.randint(1, 12), view.now.year + rng.randint(1, 5)
        card = _card_text({"brand": brand, "last4": last4})
        first = [
            f"I'm {_who(p)}. How many payment methods do you have on file for me?",
            f"{p['name']} here ({p['email']}). How many cards and credits are saved on my profile?",
            f"For {p['name']} ({p['email']}): the number of payment methods on the account, please.",
        ]
        second = [
            f"Please add my new {card}, expiring {month:02d}/{year}. How many payment methods do I have now?",
            f"Save a new {card} (expiry {month:02d}/{year}) to my profile, then tell me the new count.",
            f"Add the {card} that expires {month:02d}/{year}, and let me know how many methods are on file afterwards.",
        ]
        return Draft(
            family=self.name,
            key=f"passenger:{p['passenger_id']}",
            writes=True,
            turns=[
                {
                    "user": first,
                    "calls": [
                        {"id": "c1", "tool": "get_passenger_by_email", "arguments": {"email": p["email"]}},
                        {"id": "c2", "tool": "list_payment_methods", "bind": {"passenger_id": "{c1.passenger_id}"}},
                    ],
                    "facts": [{"name": "payment methods on file", "expr": "len({c2.payment_methods})", "value": None}],
                },
                {
                    "user": second,
                    "calls": [
                        {"id": "c3", "tool": "add_payment_method",
                         "arguments": {"brand": brand, "last4": last4, "expiry_month": month, "expiry_year": year},
                         "bind": {"passenger_id": "{c1.passenger_id}"}},
                        {"id": "c4", "tool": "list_payment_methods", "bind": {"passenger_id": "{c1.passenger_id}"}},
                    ],
                    "facts": [{"name": "payment methods now", "expr": "len({c4.payment_methods})", "value": None}],
                },
            ],
        )


class NearestAirportThenCheapest(Family):
    """Turn 1: the airline's airport closest to a city. Turn 2: the cheapest economy itinerary
    there, on a date, from a city with one airport and a nonstop route to it."""

    name = "flights.nearest-airport-then-cheapest"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        city, country, _, _ = rng.choice(CITIES)
        near = view.read(SERVER, "nearest_airports", city=city, country=country, limit=2)["airports"]
        if len(near) > 1 and near[0]["distance_km"] == near[1]["distance_km"]:
            return None
        origins = sorted({r["origin"] for r in view.read(SERVER, "list_routes", destination=near[0]["code"])["routes"]})
        if not origins:
            return None
        home = _cached(view)["airports"][rng.choice(origins)]
        if view.read(SERVER, "find_airports", query=home["city"], per_page=2)["total"] != 1:
            return None  # the city has several airports, or its name is part of another's
        start = (view.now + timedelta(days=rng.randint(5, 50))).date()
        flights = view.read(SERVER, "list_flights", origin=home["code"], destination=near[0]["code"],
                            departure_after=f"{start}T00:00:00Z", departure_before=f"{start + timedelta(days=10)}T00:00:00Z",
                            status=["scheduled"], per_page=10)["flights"]
        if not flights:
            return None
        day = date.fromisoformat(rng.choice(flights)["departure_date"])  # a day the nonstop flies
        search = {"origin": home["code"], "destination": near[0]["code"], "date": str(day), "cabin": "economy",
                  "sort_by": "price", "per_page": 2}
        its = view.read(SERVER, "search_flights", **search)["itineraries"]
        if not its or (len(its) > 1 and its[0]["fares"]["basic"] == its[1]["fares"]["basic"]):
            return None
        first = [
            f"I have meetings in {city}, {country}. Which airport of yours is closest, and how far is it from the city?",
            f"What's the nearest airport you fly to for {city} ({country}), and its distance in km?",
            f"Travelling to {city} in {_in_country(country)}: closest airport on your network and the distance from town?",
        ]
        second = [
            f"What's the cheapest economy option to get there from {home['city']} on {_spoken(str(day))}? Flight number(s), number of stops and the lowest fare.",
            f"And the lowest-priced economy itinerary from {home['city']} to that airport on {day}: which flights, how many stops, what fare?",
            f"Find me the cheapest economy way from {home['city']} to it on {day}: flights, stops, and the price.",
        ]
        return Draft(
            family=self.name,
            key=f"{city}|{country}|{home['code']}|{day}",
            turns=[
                {
                    "user": first,
                    "calls": [{"id": "c1", "tool": "nearest_airports", "arguments": {"city": city, "country": country, "limit": 2}}],
                    "facts": [
                        {"name": "closest airport", "expr": "{c1.airports.0.code}", "value": None},
                        {"name": "distance (km)", "expr": "{c1.airports.0.distance_km}", "value": None},
                    ],
                },
                {
                    "user": second,
                    "calls": [
                        {"id": "c2", "tool": "find_airports", "arguments": {"query": home["city"], "per_page": 2}},
                        {"id": "c3", "tool": "search_flights", "arguments": {k: v for k, v in search.items() if k not in ("origin", "destination")},
                         "bind": {"origin": "{c2.airports.0.code}", "destination": "{c1.airports.0.code}"}},
                    ],
                    "facts": [
                        {"name": "first flight", "expr": "{c3.itineraries.0.segments.0.flight_number}", "value": None},
                        {"name": "stops", "expr": "{c3.itineraries.0.stops}", "value": None},
                        {"name": "lowest fare (USD)", "expr": "{c3.itineraries.0.fares.basic}", "value": None},
                    ],
                },
            ],
            checks=["len({c1.airports}) == 1 or {c1.airports.0.distance_km} < {c1.airports.1.distance_km}",
                    "{c2.total} == 1",
                    "{c3.total} == 1 or {c3.itineraries.0.fares.basic} < {c3.itineraries.1.fares.basic}"],
        )


FLIGHTS_FAMILIES = (
    TravelMonthComparison(),
    CheapestTripDrillDown(),
    MonthlyTravelSeries(),
    SeatSelection(),
    AddBaggage(),
    FareThresholdBooking(),
    LatestBookingCancel(),
    FindThenBook(),
    PassengerLookup(),
    NearestAirport(),
    FlightSeatAvailability(),
    ChangeToLaterFlight(),
    BasicFareChangeRefusal(),
    NewCardForBags(),
    QuoteThenBook(),
    FirstFlightThenChange(),
    SeatMapThenSelect(),
    CardsThenAddCard(),
    NearestAirportThenCheapest(),
)
