"""Flights task families: spend comparisons and monthly series of a traveller, the cheapest
trip with drill-down, seat and baggage changes on a named trip, a fare-conditional booking,
two-turn conversations (cancel the latest booking; book the flight just found), and a
traveller lookup.

Users name themselves by name and email, flights by number, route and local date, and their
bookings by the reference (PNR) they were given; never by internal ids.
"""

from __future__ import annotations

import random
import weakref
from datetime import date, timedelta
from typing import Any

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
)
