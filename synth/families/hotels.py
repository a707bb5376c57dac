"""Hotel platform task families: the best hotel of a city, a property's rooms and a rate's
rules, nights left and sold out, the cheapest stay and a quote; a guest's loyalty, bookings
and year of travel; a property's arrivals and month of business; booking (with points),
changing, cancelling, checking in and out, redeeming points, special requests and
enrolment; a cancellation only while it is free; refusals the platform's policy calls for;
two-turn follow-ups; and the hotel of a trip flown with the airline.

A user names a hotel by name and city, a room and a rate by their names, a booking by its
confirmation number, and themselves by name or email; never by an internal id.
"""

from __future__ import annotations

import random
import weakref
from datetime import date, datetime, timedelta
from typing import Any

from mcpgym.servers.flights.data import AIRPORTS
from mcpgym.synth.family import Draft, Family, SamplingError, WorldView, month_name, previous_month

SERVER = "hotels"
WINDOW_DAYS = 100
"""Nights on sale ahead of today (the server's booking window)."""

Row = dict[str, Any]
Call = dict[str, Any]

REQUESTS = ("Late arrival, around 23:00.", "A quiet room away from the elevator, please.", "High floor if possible.",
            "We need a cot for a baby.", "Early check-in around 10:00 if possible.", "Extra towels and pillows, please.")
CITY_OF = {code: city for code, _name, city, *_rest in AIRPORTS}
AMENITY_WORDS = {"gym": "a gym", "pool": "a pool", "spa": "a spa", "parking": "parking", "restaurant": "a restaurant",
                 "pet_friendly": "pets allowed", "airport_shuttle": "an airport shuttle", "ev_charging": "EV charging"}

_CACHE: weakref.WeakKeyDictionary[WorldView, dict[str, Any]] = weakref.WeakKeyDictionary()


# ---------------------------------------------------------------- sampling helpers


def _all(view: WorldView, tool: str, key: str, **arguments: Any) -> list[Row]:
    rows: list[Row] = []
    page: int | None = 1
    while page:
        data = view.read(SERVER, tool, **arguments, per_page=100, page=page)
        rows += data[key]
        page = data["next_page"]
    return rows


def _cached(view: WorldView) -> dict[str, Any]:
    """Properties and guests of this world (in the tools' order), read once per view."""
    found = _CACHE.get(view)
    if found is None:
        found = {"properties": _all(view, "search_properties", "properties", sort_by="name"),
                 "guests": _all(view, "search_guests", "guests")}
        _CACHE[view] = found
    return found


def _today(view: WorldView) -> date:
    return view.now.date()


def _property(view: WorldView, rng: random.Random) -> Row:
    return rng.choice(_cached(view)["properties"])


def _guest(view: WorldView, rng: random.Random, members: bool | None = None) -> Row:
    guests = [g for g in _cached(view)["guests"] if members is None or (g["loyalty_number"] is not None) == members]
    return rng.choice(guests)


def _detail(view: WorldView, prop: Row) -> Row:
    return view.read(SERVER, "get_property", property_id=prop["id"])


def _find(call_id: str, prop: Row) -> Call:
    """The search that finds a property from its name and city."""
    return {"id": call_id, "server": SERVER, "tool": "search_properties", "arguments": {"city": prop["city"], "query": prop["name"]}}


def _property_calls(prop: Row) -> list[Call]:
    """c1 finds the property, c2 reads its rooms and rates."""
    return [_find("c1", prop), {"id": "c2", "server": SERVER, "tool": "get_property", "bind": {"property_id": "{c1.properties.0.id}"}}]


def _plan_ref(detail: Row, room: Row, plan: Row, call: str = "c2") -> str:
    i = detail["room_types"].index(room)
    j = room["rate_plans"].index(plan)
    return f"{{{call}.room_types.{i}.rate_plans.{j}.id}}"


def _stay_dates(view: WorldView, rng: random.Random, lead_max: int = 90) -> tuple[date, date]:
    check_in = _today(view) + timedelta(days=rng.randint(3, lead_max))
    return check_in, check_in + timedelta(days=rng.choice((1, 2, 2, 3, 3, 4, 5)))


def _bookable(view: WorldView, rng: random.Random, guests: int = 1) -> tuple[Row, Row, Row, Row, date, date] | None:
    """A property, its detail, a room and a rate plan that can be booked for some dates and guests."""
    prop = _property(view, rng)
    detail = _detail(view, prop)
    rooms = [r for r in detail["room_types"] if r["max_guests"] >= guests]
    if not rooms:
        return None
    room = rng.choice(rooms)
    plan = rng.choice(room["rate_plans"])
    check_in, check_out = _stay_dates(view, rng)
    quote = view.read(SERVER, "price_stay", rate_plan_id=plan["id"], check_in=str(check_in), check_out=str(check_out),
                      guests=guests)
    if not quote["available"]:
        return None
    return prop, detail, room, plan, check_in, check_out


def _reservations(view: WorldView, rng: random.Random, status: list[str], **filters: Any) -> list[Row]:
    """Bookings of a random property with one of `status`."""
    prop = _property(view, rng)
    return view.read(SERVER, "search_reservations", property_id=prop["id"], status=status, per_page=100, **filters)["reservations"]


def _booking(view: WorldView, rng: random.Random, status: list[str], keep: Any = None, tries: int = 6, **filters: Any) -> Row | None:
    """The full record of a random booking with one of `status` that `keep` accepts."""
    for _ in range(tries):
        found = _reservations(view, rng, status, **filters)
        rng.shuffle(found)
        for summary in found[:8]:
            booking = view.read(SERVER, "get_reservation", confirmation_number=summary["confirmation_number"])
            if keep is None or keep(booking):
                return booking
    return None


def _free_until(booking: Row) -> datetime | None:
    text = booking["free_cancellation_until"]
    return None if text is None else datetime.fromisoformat(text.rstrip("Z"))


def _get(call_id: str, booking: Row) -> Call:
    return {"id": call_id, "server": SERVER, "tool": "get_reservation", "arguments": {"confirmation_number": booking["confirmation_number"]}}


# ---------------------------------------------------------------- lookups and reports


class BestRatedInCity(Family):
    """The best-reviewed hotel of a city with some stars and an amenity."""

    name = "hotels.best-rated-in-city"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        prop = _property(view, rng)
        amenity = rng.choice([a for a in prop["amenities"] if a in AMENITY_WORDS] or [None])
        stars = rng.choice((3, 4))
        args: dict[str, Any] = {"city": prop["city"], "min_stars": stars, "sort_by": "review_score", "per_page": 2}
        want = f"at least {stars} stars"
        if amenity:
            args["amenities"] = [amenity]
            want += f" and {AMENITY_WORDS[amenity]}"
        found = view.read(SERVER, "search_properties", **args)
        if not found["total"]:
            return None
        city = prop["city"]
        user = [
            f"Which hotel in {city} with {want} has the best guest reviews? Give me its name and review score.",
            f"I need a hotel in {city}: {want}. Which one is rated highest by guests, and what's its score?",
        ]
        return Draft(family=self.name, key=f"{city}|{stars}|{amenity}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_properties", "arguments": args}], "facts": [
            {"name": "hotel", "expr": "{c1.properties.0.name}", "value": None},
            {"name": "review score", "expr": "{c1.properties.0.review_score}", "value": None}]}],
            checks=["{c1.total} == 1 or {c1.properties.0.review_score} != {c1.properties.1.review_score}"])


class PropertyRooms(Family):
    """How many room types a hotel has and how long its free-cancellation window is."""

    name = "hotels.property-rooms"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        prop = _property(view, rng)
        user = [
            f"How many room types does {prop['name']} in {prop['city']} offer, and how many hours before check-in does free cancellation end there?",
            f"For {prop['name']} ({prop['city']}): number of room types, and the free-cancellation window in hours?",
        ]
        return Draft(family=self.name, key=f"property:{prop['id']}", turns=[{"user": user, "calls": _property_calls(prop), "facts": [
            {"name": "room types", "expr": "len({c2.room_types})", "value": None},
            {"name": "cancellation hours", "expr": "{c2.cancellation_hours}", "value": None}]}],
            checks=["{c1.total} == 1"])


class RatePlanRules(Family):
    """Whether a named rate of a room is refundable and its discount."""

    name = "hotels.rate-plan-rules"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        prop = _property(view, rng)
        detail = _detail(view, prop)
        room = rng.choice(detail["room_types"])
        plan = rng.choice(room["rate_plans"])
        what = f"the {plan['name']} rate of the {room['name']} at {prop['name']} in {prop['city']}"
        user = [
            f"What are the rules of {what}? Is it refundable, and what's the policy?",
            f"Tell me the cancellation policy of {what}, and whether it includes breakfast.",
        ]
        return Draft(family=self.name, key=f"plan:{plan['id']}", turns=[{"user": user, "calls": [
            *_property_calls(prop), {"id": "c3", "tool": "get_rate_plan", "bind": {"rate_plan_id": _plan_ref(detail, room, plan)}}],
            "facts": [{"name": "refundable", "expr": "{c3.refundable}", "value": None},
                      {"name": "policy", "expr": "{c3.policy}", "value": None}]}],
            checks=["{c1.total} == 1"])


class RoomsLeftOnNight(Family):
    """Rooms left and the base price of a room type on one night."""

    name = "hotels.rooms-left-on-night"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        prop = _property(view, rng)
        detail = _detail(view, prop)
        room = rng.choice(detail["room_types"])
        night = _today(view) + timedelta(days=rng.randint(1, 100))
        i = detail["room_types"].index(room)
        user = [
            f"How many {room['name']} rooms are still free at {prop['name']} ({prop['city']}) for the night of {night}, and what is the base price that night?",
            f"Check availability of the {room['name']} at {prop['name']} in {prop['city']} on the night of {night}: rooms left and base nightly price.",
        ]
        return Draft(family=self.name, key=f"room:{room['id']}|{night}", turns=[{"user": user, "calls": [
            *_property_calls(prop),
            {"id": "c3", "tool": "get_room_calendar", "arguments": {"start": str(night), "end": str(night + timedelta(days=1))},
             "bind": {"room_type_id": f"{{c2.room_types.{i}.id}}"}}], "facts": [
            {"name": "rooms left", "expr": "{c3.nights.0.rooms_left}", "value": None},
            {"name": "base price (cents)", "expr": "{c3.nights.0.base_price_cents}", "value": None}]}],
            checks=["{c1.total} == 1"])


class CheapestStay(Family):
    """The cheapest bookable stay in a city for dates and guests."""

    name = "hotels.cheapest-stay"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        city = _property(view, rng)["city"]
        check_in, check_out = _stay_dates(view, rng)
        guests = rng.choice((1, 2, 2, 3))
        refundable = rng.random() < 0.5
        args = {"city": city, "check_in": str(check_in), "check_out": str(check_out), "guests": guests,
                "refundable_only": refundable, "sort_by": "price", "per_page": 2}
        if not view.read(SERVER, "search_stays", **args)["total"]:
            return None
        free = " with free cancellation" if refundable else ""
        user = [
            f"What's the cheapest hotel room{free} in {city} for {guests} guest(s), checking in {check_in} and out {check_out}? Hotel, room and total price.",
            f"Find me the lowest total price{free} for {guests} in {city} from {check_in} to {check_out}: which hotel and room type, and how much?",
        ]
        return Draft(family=self.name, key=f"{city}|{check_in}|{check_out}|{guests}|{refundable}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_stays", "arguments": args}], "facts": [
            {"name": "hotel", "expr": "{c1.offers.0.property_name}", "value": None},
            {"name": "room type", "expr": "{c1.offers.0.room_type_name}", "value": None},
            {"name": "total (cents)", "expr": "{c1.offers.0.total_cents}", "value": None}]}],
            checks=["{c1.total} == 1 or {c1.offers.0.total_cents} != {c1.offers.1.total_cents}"])


class QuoteStay(Family):
    """The price of a named rate for dates, and until when it would cancel for free."""

    name = "hotels.quote-stay"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _bookable(view, rng)
        if picked is None:
            return None
        prop, detail, room, plan, check_in, check_out = picked
        what = f"the {room['name']} on the {plan['name']} rate at {prop['name']} in {prop['city']}"
        facts = [{"name": "total (cents)", "expr": "{c3.total_cents}", "value": None}]
        if plan["refundable"]:
            facts.append({"name": "free cancellation until", "expr": "{c3.free_cancellation_until}", "value": None})
        user = [
            f"How much would {what} cost from {check_in} to {check_out}, and until when could I cancel it for free?",
            f"Quote me {what}, checking in {check_in} and out {check_out}. Total, and the free-cancellation deadline if there is one.",
        ]
        return Draft(family=self.name, key=f"plan:{plan['id']}|{check_in}|{check_out}", turns=[{"user": user, "calls": [
            *_property_calls(prop),
            {"id": "c3", "tool": "price_stay", "arguments": {"check_in": str(check_in), "check_out": str(check_out)},
             "bind": {"rate_plan_id": _plan_ref(detail, room, plan)}}], "facts": facts}],
            checks=["{c1.total} == 1"])


class GuestLoyalty(Family):
    """A member's tier, points and nights to the next tier, by email."""

    name = "hotels.guest-loyalty"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        guest = _guest(view, rng, members=True)
        account = view.read(SERVER, "get_loyalty_account", guest_id=guest["id"])
        facts = [{"name": "tier", "expr": "{c2.tier}", "value": None},
                 {"name": "points", "expr": "{c2.points_balance}", "value": None}]
        if account["next_tier"]:
            facts.append({"name": "nights to next tier", "expr": "{c2.nights_to_next_tier}", "value": None})
        user = [
            f"I'm {guest['email']}. What's my loyalty tier and points balance, and how many nights until the next tier?",
            f"Loyalty status for {guest['name']} ({guest['email']}), please: tier, points, and nights needed to move up.",
        ]
        return Draft(family=self.name, key=f"guest:{guest['id']}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_guest_by_email", "arguments": {"email": guest["email"]}},
            {"id": "c2", "tool": "get_loyalty_account", "bind": {"guest_id": "{c1.id}"}}], "facts": facts}])


class GuestUpcoming(Family):
    """How many confirmed bookings a guest found by name has, and the latest one's hotel."""

    name = "hotels.guest-upcoming"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        guest = _guest(view, rng)
        found = view.read(SERVER, "list_guest_reservations", guest_id=guest["id"], status=["confirmed"], per_page=2)
        if not found["total"]:
            return None
        name = guest["name"]
        user = [
            f"How many confirmed hotel bookings does {name} have, and at which hotel is the one with the latest check-in?",
            f"Look up {name}'s confirmed stays: the count, and the hotel of the one that checks in last.",
        ]
        return Draft(family=self.name, key=f"guest:{guest['id']}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_guests", "arguments": {"query": name, "per_page": 2}},
            {"id": "c2", "tool": "list_guest_reservations", "arguments": {"status": ["confirmed"], "per_page": 2},
             "bind": {"guest_id": "{c1.guests.0.id}"}}], "facts": [
            {"name": "confirmed bookings", "expr": "{c2.total}", "value": None},
            {"name": "latest hotel", "expr": "{c2.reservations.0.property_name}", "value": None}]}],
            checks=["{c1.total} == 1", "{c2.total} == 1 or {c2.reservations.0.check_in} != {c2.reservations.1.check_in}"])


class BookingDetails(Family):
    """A booking by confirmation number: hotel, nights and total."""

    name = "hotels.booking-details"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        found = _reservations(view, rng, ["confirmed", "completed", "checked_in"])
        if not found:
            return None
        booking = rng.choice(found)
        number = booking["confirmation_number"]
        user = [
            f"What hotel is booking {number} at, for how many nights, and what was the total?",
            f"Details of confirmation {number}, please: the hotel, number of nights and total price.",
        ]
        return Draft(family=self.name, key=f"booking:{number}", turns=[{"user": user, "calls": [_get("c1", booking)], "facts": [
            {"name": "hotel", "expr": "{c1.property_name}", "value": None},
            {"name": "nights", "expr": "{c1.nights}", "value": None},
            {"name": "total (cents)", "expr": "{c1.total_cents}", "value": None}]}])


class Arrivals(Family):
    """How many guests are due to arrive at a hotel on a day, and the first one's name."""

    name = "hotels.arrivals"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        prop = _property(view, rng)
        upcoming = view.read(SERVER, "search_reservations", property_id=prop["id"], status=["confirmed", "checked_in"],
                             check_in_from=str(_today(view)), per_page=100)["reservations"]
        if not upcoming:
            return None
        day = rng.choice(upcoming)["check_in"]
        args = {"check_in_from": day, "check_in_to": day, "status": ["confirmed", "checked_in"], "per_page": 1}
        user = [
            f"How many bookings arrive at {prop['name']} in {prop['city']} on {day}, and whose is the first on the list?",
            f"Arrivals at {prop['name']} ({prop['city']}) on {day}: how many bookings, and the guest of the first one?",
        ]
        return Draft(family=self.name, key=f"property:{prop['id']}|{day}", turns=[{"user": user, "calls": [
            _find("c1", prop),
            {"id": "c2", "tool": "search_reservations", "arguments": args, "bind": {"property_id": "{c1.properties.0.id}"}}],
            "facts": [{"name": "arrivals", "expr": "{c2.total}", "value": None},
                      {"name": "first guest", "expr": "{c2.reservations.0.guest_name}", "value": None}]}],
            checks=["{c1.total} == 1"])


class MonthOfBusiness(Family):
    """A hotel's room nights, revenue and average daily rate in a past month."""

    name = "hotels.month-of-business"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        prop = _property(view, rng)
        year, month = previous_month(view.now.year, view.now.month, rng.randint(1, 12))
        start = date(year, month, 1)
        end_year, end_month = (year + 1, 1) if month == 12 else (year, month + 1)
        args = {"start": str(start), "end": str(date(end_year, end_month, 1))}
        if not view.read(SERVER, "property_occupancy_report", property_id=prop["id"], **args)["room_nights_sold"]:
            return None
        when = month_name(year, month)
        user = [
            f"How did {prop['name']} in {prop['city']} do with us in {when}? Room nights sold, revenue, and average daily rate.",
            f"For {when}, give me {prop['name']} ({prop['city']})'s room nights sold, total revenue and ADR on our platform.",
        ]
        return Draft(family=self.name, key=f"property:{prop['id']}|{when}", turns=[{"user": user, "calls": [
            _find("c1", prop),
            {"id": "c2", "tool": "property_occupancy_report", "arguments": args, "bind": {"property_id": "{c1.properties.0.id}"}}],
            "facts": [{"name": "room nights", "expr": "{c2.room_nights_sold}", "value": None},
                      {"name": "revenue (cents)", "expr": "{c2.revenue_cents}", "value": None},
                      {"name": "ADR (cents)", "expr": "{c2.average_daily_rate_cents}", "value": None}]}],
            checks=["{c1.total} == 1"])


class YearOfTravel(Family):
    """A guest's completed stays, nights and most visited city in a year."""

    name = "hotels.year-of-travel"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        guest = _guest(view, rng)
        year = view.now.year - rng.randint(0, 1)
        args = {"start": f"{year}-01-01", "end": f"{year + 1}-01-01"}
        summary = view.read(SERVER, "guest_stay_summary", guest_id=guest["id"], **args)
        if not summary["completed_stays"]:
            return None
        user = [
            f"I'm {guest['email']}. In {year}, how many hotel stays did I complete, how many nights was that, and which city did I stay in most?",
            f"Summarise {year} for {guest['email']}: completed stays, total nights, and the most visited city.",
        ]
        return Draft(family=self.name, key=f"guest:{guest['id']}|{year}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_guest_by_email", "arguments": {"email": guest["email"]}},
            {"id": "c2", "tool": "guest_stay_summary", "arguments": args, "bind": {"guest_id": "{c1.id}"}}], "facts": [
            {"name": "completed stays", "expr": "{c2.completed_stays}", "value": None},
            {"name": "nights", "expr": "{c2.nights}", "value": None},
            {"name": "most visited city", "expr": "{c2.most_visited_city}", "value": None}]}])


# ---------------------------------------------------------------- writes


def _book_turn(guest: Row, picked: tuple[Row, Row, Row, Row, date, date], user: list[str], guests: int = 1,
               **extra: Any) -> dict[str, Any]:
    prop, detail, room, plan, check_in, check_out = picked
    return {"user": user, "calls": [
        *_property_calls(prop),
        {"id": "c3", "tool": "get_guest_by_email", "arguments": {"email": guest["email"]}},
        {"id": "c4", "tool": "create_reservation",
         "arguments": {"check_in": str(check_in), "check_out": str(check_out), "guests": guests, **extra},
         "bind": {"guest_id": "{c3.id}", "rate_plan_id": _plan_ref(detail, room, plan)}}],
        "facts": [{"name": "confirmation number", "expr": "{c4.confirmation_number}", "value": None},
                  {"name": "total (cents)", "expr": "{c4.total_cents}", "value": None}]}


class BookStay(Family):
    """Book a named room and rate at a hotel for a guest and dates."""

    name = "hotels.book-stay"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        guests = rng.choice((1, 2))
        picked = _bookable(view, rng, guests)
        if picked is None:
            return None
        prop, _detail_, room, plan, check_in, check_out = picked
        guest = _guest(view, rng)
        what = f"a {room['name']} on the {plan['name']} rate at {prop['name']} in {prop['city']}"
        user = [
            f"Please book {what} for {guest['name']} ({guest['email']}), {guests} guest(s), from {check_in} to {check_out}. What's the confirmation number and total?",
            f"Reserve {what}, {check_in} to {check_out}, {guests} guest(s), for {guest['email']}, and tell me the confirmation number and price.",
        ]
        return Draft(family=self.name, key=f"{guest['id']}|{plan['id']}|{check_in}", writes=True,
                     turns=[_book_turn(guest, picked, user, guests)], checks=["{c1.total} == 1"])


class BookWithPoints(Family):
    """Book a stay for a member, paying part of it with points."""

    name = "hotels.book-with-points"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        guest = _guest(view, rng, members=True)
        if guest["points_balance"] < 1000:
            return None
        picked = _bookable(view, rng)
        if picked is None:
            return None
        prop, _detail_, room, plan, check_in, check_out = picked
        quote = view.read(SERVER, "price_stay", rate_plan_id=plan["id"], check_in=str(check_in), check_out=str(check_out))
        points = min(guest["points_balance"], quote["total_cents"]) // 1000 * 1000
        if points <= 0:
            return None
        what = f"the {room['name']} ({plan['name']}) at {prop['name']} in {prop['city']}"
        user = [
            f"I'm {guest['email']}. Book {what} for me from {check_in} to {check_out} and use {points} of my points towards it.",
            f"Book {what}, {check_in} to {check_out}, for {guest['email']}, paying {points} points and the rest by card. Confirmation and total?",
        ]
        return Draft(family=self.name, key=f"{guest['id']}|{plan['id']}|{check_in}", writes=True,
                     turns=[_book_turn(guest, picked, user, points_to_redeem=points)], checks=["{c1.total} == 1"])


def _cancellable(view: WorldView) -> Any:
    now = view.now
    return lambda b: b["refundable"] and (until := _free_until(b)) is not None and until > now + timedelta(minutes=5)


class CancelBooking(Family):
    """Cancel a refundable booking while it is free; say the refund."""

    name = "hotels.cancel-booking"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        booking = _booking(view, rng, ["confirmed"], _cancellable(view), check_in_from=str(_today(view)))
        if booking is None:
            return None
        number = booking["confirmation_number"]
        user = [f"Please cancel my hotel booking {number}. How much do I get back?",
                f"Cancel reservation {number} and tell me the refund amount."]
        return Draft(family=self.name, key=f"booking:{number}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "cancel_reservation", "arguments": {"confirmation_number": number}}], "facts": [
            {"name": "refund (cents)", "expr": "{c1.refund_cents}", "value": None}]}])


class ExtendStay(Family):
    """Add a night to a refundable booking."""

    name = "hotels.extend-stay"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        booking = _booking(view, rng, ["confirmed"], _cancellable(view), check_in_from=str(_today(view)))
        if booking is None:
            return None
        out = date.fromisoformat(booking["check_out"]) + timedelta(days=1)
        if out > _today(view) + timedelta(days=WINDOW_DAYS):
            return None
        calendar = view.read(SERVER, "get_room_calendar", room_type_id=booking["room_type_id"], start=booking["check_out"], end=str(out))
        if not calendar["nights"] or calendar["nights"][0]["rooms_left"] < booking["rooms"]:
            return None
        number = booking["confirmation_number"]
        user = [f"I'd like to stay one more night on booking {number}: check out on {out} instead. What's the extra cost?",
                f"Extend reservation {number} by a night so I leave on {out}, and tell me the price difference."]
        return Draft(family=self.name, key=f"booking:{number}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "modify_reservation", "arguments": {"confirmation_number": number, "check_out": str(out)}}],
            "facts": [{"name": "extra (cents)", "expr": "{c1.price_difference_cents}", "value": None}]}])


class CheckInGuest(Family):
    """Check in a guest arriving today."""

    name = "hotels.check-in-guest"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        today = str(_today(view))
        booking = _booking(view, rng, ["confirmed"], check_in_from=today, check_in_to=today, tries=12)
        if booking is None:
            return None
        number = booking["confirmation_number"]
        user = [f"{booking['guest_name']} has just arrived at {booking['property_name']}. Check in booking {number}; which room type is it?",
                f"Check in reservation {number} ({booking['guest_name']}) and tell me the room type."]
        return Draft(family=self.name, key=f"booking:{number}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "check_in_reservation", "arguments": {"confirmation_number": number}}], "facts": [
            {"name": "room type", "expr": "{c1.room_type_name}", "value": None}]}])


class CheckOutGuest(Family):
    """Check out a guest; say the points earned."""

    name = "hotels.check-out-guest"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        booking = _booking(view, rng, ["checked_in"], tries=12)
        if booking is None:
            return None
        number = booking["confirmation_number"]
        user = [f"Check out booking {number}. How many loyalty points did the guest earn?",
                f"Please complete the stay on reservation {number} and tell me the points earned."]
        return Draft(family=self.name, key=f"booking:{number}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "check_out_reservation", "arguments": {"confirmation_number": number}}], "facts": [
            {"name": "points earned", "expr": "{c1.points_earned}", "value": None}]}])


class RedeemOnBooking(Family):
    """Apply points to an upcoming booking; say the new balance."""

    name = "hotels.redeem-on-booking"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        members = {g["id"]: g for g in _cached(view)["guests"] if g["loyalty_number"] and g["points_balance"] >= 500}
        booking = _booking(view, rng, ["confirmed"], lambda b: b["guest_id"] in members and b["cash_cents"] >= 500,
                           check_in_from=str(_today(view)))
        if booking is None:
            return None
        balance = members[booking["guest_id"]]["points_balance"]
        points = rng.randint(1, min(balance, booking["cash_cents"]) // 500) * 500
        number = booking["confirmation_number"]
        user = [f"Use {points} of my loyalty points on booking {number}. What's my balance after that?",
                f"Apply {points} points to reservation {number} and tell me how many points are left."]
        return Draft(family=self.name, key=f"booking:{number}|{points}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "redeem_points", "arguments": {"confirmation_number": number, "points": points}}], "facts": [
            {"name": "points left", "expr": "{c1.points_balance}", "value": None}]}])


class AddRequest(Family):
    """Set the special requests of an upcoming booking."""

    name = "hotels.add-request"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        text = rng.choice(REQUESTS)
        booking = _booking(view, rng, ["confirmed"], lambda b: b["special_requests"] != text, check_in_from=str(_today(view)))
        if booking is None:
            return None
        number = booking["confirmation_number"]
        user = [f"Please add this request to booking {number}: \"{text}\"",
                f"Set the special requests on reservation {number} to \"{text}\"."]
        return Draft(family=self.name, key=f"booking:{number}|{text}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "update_special_requests", "arguments": {"confirmation_number": number, "special_requests": text}}],
            "facts": []}])


class EnrollGuest(Family):
    """Enrol a guest in the loyalty programme; say the member number."""

    name = "hotels.enroll-guest"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        guest = _guest(view, rng, members=False)
        user = [f"Sign {guest['email']} up for the loyalty programme. What's the new member number and tier?",
                f"Enrol {guest['name']} ({guest['email']}) in loyalty and give me their member number and starting tier."]
        return Draft(family=self.name, key=f"guest:{guest['id']}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_guest_by_email", "arguments": {"email": guest["email"]}},
            {"id": "c2", "tool": "enroll_in_loyalty", "bind": {"guest_id": "{c1.id}"}}], "facts": [
            {"name": "member number", "expr": "{c2.number}", "value": None},
            {"name": "tier", "expr": "{c2.tier}", "value": None}]}])


class CancelIfFree(Family):
    """Cancel a booking only if it is still free to; either way say until when it was free."""

    name = "hotels.cancel-if-free"
    servers = (SERVER,)
    kind = "conditional-write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        booking = _booking(view, rng, ["confirmed"], lambda b: b["refundable"], check_in_from=str(_today(view)))
        if booking is None:
            return None
        until = _free_until(booking)
        if until is None or abs((until - view.now).total_seconds()) < 600:
            return None
        free = until > view.now
        number = booking["confirmation_number"]
        user = [f"If booking {number} can still be cancelled for free, cancel it. Either way, until when was cancellation free?",
                f"Check whether reservation {number} is still within free cancellation; if so, cancel it. Tell me the deadline."]
        calls: list[Call] = [_get("c1", booking)]
        if free:
            calls.append({"id": "c2", "tool": "cancel_reservation", "arguments": {"confirmation_number": number}})
        return Draft(family=self.name, key=f"booking:{number}", writes=free, turns=[{"user": user, "calls": calls, "facts": [
            {"name": "free cancellation until", "expr": "{c1.free_cancellation_until}", "value": None}]}])


# ---------------------------------------------------------------- refusals


class CancelAfterDeadline(Family):
    """Asked to cancel a refundable booking whose free cancellation has ended: refuse, say when it ended."""

    name = "hotels.cancel-after-deadline"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        now = view.now
        booking = _booking(view, rng, ["confirmed"], lambda b: b["refundable"] and (u := _free_until(b)) is not None and u < now,
                           check_in_from=str(_today(view)), check_in_to=str(_today(view) + timedelta(days=3)), tries=12)
        if booking is None:
            return None
        number = booking["confirmation_number"]
        user = [f"Cancel my booking {number} and refund me. If that's not possible, tell me when free cancellation ended.",
                f"I need to cancel reservation {number} for a refund; if you can't, when did the free-cancellation period end?"]
        return Draft(family=self.name, key=f"booking:{number}", turns=[{"user": user, "calls": [_get("c1", booking)], "facts": [
            {"name": "free cancellation ended", "expr": "{c1.free_cancellation_until}", "value": None}]}])


class CancelNonRefundable(Family):
    """Asked to cancel a non-refundable booking: refuse, name the rate."""

    name = "hotels.cancel-nonrefundable"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        booking = _booking(view, rng, ["confirmed"], lambda b: not b["refundable"], check_in_from=str(_today(view)))
        if booking is None:
            return None
        number = booking["confirmation_number"]
        user = [f"Please cancel booking {number} and refund it, or if you can't, tell me which rate it was booked on.",
                f"I want my money back for reservation {number}: cancel it. If that's not allowed, what rate is it on?"]
        return Draft(family=self.name, key=f"booking:{number}", turns=[{"user": user, "calls": [_get("c1", booking)], "facts": [
            {"name": "rate", "expr": "{c1.rate_plan_name}", "value": None}]}])


class BookSoldOut(Family):
    """Asked to book a room over a sold-out night: refuse, name the night."""

    name = "hotels.book-sold-out"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        prop = _property(view, rng)
        detail = _detail(view, prop)
        room = rng.choice(detail["room_types"])
        start = _today(view) + timedelta(days=rng.randint(2, 100))
        end = start + timedelta(days=4)
        nights = view.read(SERVER, "get_room_calendar", room_type_id=room["id"], start=str(start), end=str(end))["nights"]
        full = [i for i, n in enumerate(nights) if n["sold_out"]]
        if len(nights) != 4 or len(full) != 1:
            return None
        plan = rng.choice(room["rate_plans"])
        guest = _guest(view, rng)
        i = detail["room_types"].index(room)
        user = [
            f"Book a {room['name']} ({plan['name']}) at {prop['name']} in {prop['city']} for {guest['email']} from {start} to {end}. If it can't be done, which night is the problem?",
            f"For {guest['email']}: {room['name']}, {plan['name']} rate, {prop['name']} ({prop['city']}), {start} to {end}. If it's not possible, tell me which night is unavailable.",
        ]
        return Draft(family=self.name, key=f"room:{room['id']}|{start}", turns=[{"user": user, "calls": [
            *_property_calls(prop),
            {"id": "c3", "tool": "get_room_calendar", "arguments": {"start": str(start), "end": str(end)},
             "bind": {"room_type_id": f"{{c2.room_types.{i}.id}}"}}], "facts": [
            {"name": "sold-out night", "expr": f"{{c3.nights.{full[0]}.night}}", "value": None}]}],
            checks=["{c1.total} == 1", f"{{c3.nights.{full[0]}.sold_out}}"])


class TooManyGuests(Family):
    """Asked to put more guests in one room than it sleeps: refuse, say the maximum."""

    name = "hotels.too-many-guests"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        prop = _property(view, rng)
        detail = _detail(view, prop)
        room = rng.choice([r for r in detail["room_types"] if r["max_guests"] <= 3] or [None])
        if room is None:
            return None
        plan = rng.choice(room["rate_plans"])
        check_in, check_out = _stay_dates(view, rng)
        guests = room["max_guests"] + rng.randint(1, 2)
        i = detail["room_types"].index(room)
        user = [
            f"Book one {room['name']} ({plan['name']}) at {prop['name']} in {prop['city']} for {guests} people from {check_in} to {check_out}. If that doesn't work, how many people does that room sleep?",
            f"We are {guests} people and want a single {room['name']} at {prop['name']} ({prop['city']}), {check_in} to {check_out}, {plan['name']} rate. If not allowed, what's the room's maximum?",
        ]
        return Draft(family=self.name, key=f"room:{room['id']}|{guests}", turns=[{"user": user, "calls": _property_calls(prop), "facts": [
            {"name": "max guests", "expr": f"{{c2.room_types.{i}.max_guests}}", "value": None}]}],
            checks=["{c1.total} == 1"])


class RedeemTooMany(Family):
    """Asked to redeem more points than the member has: refuse, say the balance."""

    name = "hotels.redeem-too-many"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        members = {g["id"]: g for g in _cached(view)["guests"] if g["loyalty_number"]}
        booking = _booking(view, rng, ["confirmed"], lambda b: b["guest_id"] in members, check_in_from=str(_today(view)))
        if booking is None:
            return None
        balance = members[booking["guest_id"]]["points_balance"]
        points = (balance // 1000 + rng.randint(1, 5)) * 1000
        if points * 1 > booking["cash_cents"]:
            return None
        number = booking["confirmation_number"]
        user = [f"Put {points} of my points towards booking {number}. If I don't have enough, what's my balance?",
                f"Redeem {points} loyalty points on reservation {number}; if that's more than I have, tell me my points balance."]
        return Draft(family=self.name, key=f"booking:{number}|{points}", turns=[{"user": user, "calls": [
            _get("c1", booking), {"id": "c2", "tool": "get_loyalty_account", "bind": {"guest_id": "{c1.guest_id}"}}], "facts": [
            {"name": "points balance", "expr": "{c2.points_balance}", "value": None}]}])


class CancelCheckedIn(Family):
    """Asked to cancel a stay that has already begun: refuse, say its status and check-out day."""

    name = "hotels.cancel-checked-in"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        booking = _booking(view, rng, ["checked_in"], tries=12)
        if booking is None:
            return None
        number = booking["confirmation_number"]
        user = [f"Cancel booking {number}, please. If you can't, tell me its status and check-out date.",
                f"I want reservation {number} cancelled. If that's not possible, what status is it in and when does it check out?"]
        return Draft(family=self.name, key=f"booking:{number}", turns=[{"user": user, "calls": [_get("c1", booking)], "facts": [
            {"name": "status", "expr": "{c1.status}", "value": None},
            {"name": "check-out", "expr": "{c1.check_out}", "value": None}]}])


class BookBeyondWindow(Family):
    """Asked to book nights not on sale yet: refuse, say the last night on sale."""

    name = "hotels.book-beyond-window"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        prop = _property(view, rng)
        detail = _detail(view, prop)
        room = rng.choice(detail["room_types"])
        plan = rng.choice(room["rate_plans"])
        check_in = _today(view) + timedelta(days=WINDOW_DAYS + rng.randint(10, 90))
        check_out = check_in + timedelta(days=rng.randint(1, 4))
        i = detail["room_types"].index(room)
        guest = _guest(view, rng)
        user = [
            f"Book a {room['name']} ({plan['name']}) at {prop['name']} in {prop['city']} for {guest['email']} from {check_in} to {check_out}. If those dates aren't bookable yet, what's the last night on sale?",
            f"For {guest['email']}: {prop['name']} ({prop['city']}), {room['name']}, {plan['name']}, {check_in} to {check_out}. If you can't book that far ahead, until which night can I book?",
        ]
        return Draft(family=self.name, key=f"room:{room['id']}|{check_in}", turns=[{"user": user, "calls": [
            *_property_calls(prop),
            {"id": "c3", "tool": "get_room_calendar", "arguments": {"start": str(check_in), "end": str(check_out)},
             "bind": {"room_type_id": f"{{c2.room_types.{i}.id}}"}}], "facts": [
            {"name": "last night on sale", "expr": "{c3.last_night_on_sale}", "value": None}]}],
            checks=["{c1.total} == 1", "len({c3.nights}) == 0"])


# ---------------------------------------------------------------- two turns


class FindThenBook(Family):
    """Two turns: the cheapest refundable stay in a city, then book it for the user."""

    name = "hotels.find-then-book"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        city = _property(view, rng)["city"]
        check_in, check_out = _stay_dates(view, rng)
        args = {"city": city, "check_in": str(check_in), "check_out": str(check_out), "refundable_only": True,
                "sort_by": "price", "per_page": 2}
        if not view.read(SERVER, "search_stays", **args)["total"]:
            return None
        guest = _guest(view, rng)
        first = [f"What's the cheapest refundable hotel stay in {city} from {check_in} to {check_out}?",
                 f"Find the lowest-priced stay with free cancellation in {city}, {check_in} to {check_out}: hotel, room, price."]
        second = [f"Book that for me, I'm {guest['email']}. Confirmation number?",
                  f"Great, please reserve it for {guest['email']} and give me the confirmation number."]
        return Draft(family=self.name, key=f"{city}|{check_in}|{guest['id']}", writes=True, turns=[
            {"user": first, "calls": [{"id": "c1", "tool": "search_stays", "arguments": args}], "facts": [
                {"name": "hotel", "expr": "{c1.offers.0.property_name}", "value": None},
                {"name": "total (cents)", "expr": "{c1.offers.0.total_cents}", "value": None}]},
            {"user": second, "calls": [
                {"id": "c2", "tool": "get_guest_by_email", "arguments": {"email": guest["email"]}},
                {"id": "c3", "tool": "create_reservation", "arguments": {"check_in": str(check_in), "check_out": str(check_out)},
                 "bind": {"guest_id": "{c2.id}", "rate_plan_id": "{c1.offers.0.rate_plan_id}"}}], "facts": [
                {"name": "confirmation number", "expr": "{c3.confirmation_number}", "value": None}]},
        ], checks=["{c1.total} == 1 or {c1.offers.0.total_cents} != {c1.offers.1.total_cents}"])


class BookingThenRequest(Family):
    """Two turns: a booking's hotel and dates, then a special request on it."""

    name = "hotels.booking-then-request"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        text = rng.choice(REQUESTS)
        booking = _booking(view, rng, ["confirmed"], lambda b: b["special_requests"] != text, check_in_from=str(_today(view)))
        if booking is None:
            return None
        number = booking["confirmation_number"]
        first = [f"Which hotel is booking {number} at, and when do I check in?",
                 f"Remind me of reservation {number}: the hotel and check-in date."]
        second = [f"Add a request to it: \"{text}\"", f"Please note this on that booking: \"{text}\""]
        return Draft(family=self.name, key=f"booking:{number}|{text}", writes=True, turns=[
            {"user": first, "calls": [_get("c1", booking)], "facts": [
                {"name": "hotel", "expr": "{c1.property_name}", "value": None},
                {"name": "check-in", "expr": "{c1.check_in}", "value": None}]},
            {"user": second, "calls": [{"id": "c2", "tool": "update_special_requests",
                                        "arguments": {"confirmation_number": number, "special_requests": text}}], "facts": []},
        ])


# ---------------------------------------------------------------- with the airline


def _round_trip(view: WorldView, rng: random.Random) -> tuple[Row, Row, str, date, date] | None:
    """A passenger's upcoming round trip with the airline: the passenger, the reservation, the
    destination city, the local arrival date there and the date of the flight back."""
    page = view.read("flights", "search_passengers", per_page=100, page=rng.randint(1, 3))
    if not page["passengers"]:
        raise SamplingError("no passengers on that page")
    passenger = rng.choice(page["passengers"])
    trips = view.read("flights", "list_passenger_reservations", passenger_id=passenger["passenger_id"], status=["booked"],
                      per_page=20)["reservations"]
    trips = [t for t in trips if t["lead_passenger_id"] == passenger["passenger_id"]]
    if not trips:
        return None
    trip = view.read("flights", "get_reservation", pnr=rng.choice(trips)["pnr"])
    legs = [s["flight"] for s in trip["segments"]]
    n = len(legs)
    if n % 2 or any((legs[i]["origin"], legs[i]["destination"]) != (legs[n - 1 - i]["destination"], legs[n - 1 - i]["origin"])
                    for i in range(n // 2)):
        return None
    arriving, leaving = legs[n // 2 - 1], legs[n // 2]
    check_in = date.fromisoformat(arriving["arrival_local"][:10])
    check_out = date.fromisoformat(leaving["departure_date"])
    if check_in <= _today(view) or not 1 <= (check_out - check_in).days <= 14:
        return None
    return passenger, trip, CITY_OF[arriving["destination"]], check_in, check_out


class TripHotel(Family):
    """The hotel booked for a flight booking's stay in the destination city."""

    name = "cross.hotels-trip-hotel"
    servers = (SERVER, "flights")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        found = _round_trip(view, rng)
        if found is None:
            return None
        passenger, trip, city, check_in, check_out = found
        guest = view.lookup(SERVER, "get_guest_by_email", email=passenger["email"])
        if guest is None:
            return None
        stays = view.read(SERVER, "list_guest_reservations", guest_id=guest["id"], check_in_from=str(check_in),
                          check_in_to=str(check_in), status=["confirmed"])
        if stays["total"] != 1 or stays["reservations"][0]["city"] != city:
            return None
        pnr = trip["pnr"]
        user = [
            f"I'm {passenger['email']}, flying to {city} on Meridian Air booking {pnr}. Which hotel did I book for that trip, and what's its confirmation number?",
            f"For my trip on flight booking {pnr} ({passenger['email']}): find the hotel I have in {city} from the day I land, and its confirmation number.",
        ]
        return Draft(family=self.name, key=f"pnr:{pnr}", turns=[{"user": user, "calls": [
            {"id": "c1", "server": "flights", "tool": "get_reservation", "arguments": {"pnr": pnr}},
            {"id": "c2", "server": SERVER, "tool": "get_guest_by_email", "arguments": {"email": passenger["email"]}},
            {"id": "c3", "server": SERVER, "tool": "list_guest_reservations", "bind": {"guest_id": "{c2.id}"},
             "arguments": {"check_in_from": str(check_in), "check_in_to": str(check_in), "status": ["confirmed"]}}], "facts": [
            {"name": "hotel", "expr": "{c3.reservations.0.property_name}", "value": None},
            {"name": "confirmation number", "expr": "{c3.reservations.0.confirmation_number}", "value": None}]}],
            checks=["{c3.total} == 1"])


class BookTripHotel(Family):
    """Book a named hotel for the nights of a flight booking's stay in the destination city."""

    name = "cross.hotels-book-trip-hotel"
    servers = (SERVER, "flights")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        found = _round_trip(view, rng)
        if found is None:
            return None
        passenger, trip, city, check_in, check_out = found
        guest = view.lookup(SERVER, "get_guest_by_email", email=passenger["email"])
        if guest is None:
            return None
        if view.read(SERVER, "list_guest_reservations", guest_id=guest["id"], check_in_from=str(check_in),
                     check_in_to=str(check_in), status=["confirmed"])["total"]:
            return None
        props = view.read(SERVER, "search_properties", city=city, per_page=10)["properties"]
        if not props:
            return None
        prop = rng.choice(props)
        detail = _detail(view, prop)
        room = rng.choice(detail["room_types"])
        plan = rng.choice(room["rate_plans"])
        quote = view.read(SERVER, "price_stay", rate_plan_id=plan["id"], check_in=str(check_in), check_out=str(check_out))
        if not quote["available"]:
            return None
        pnr = trip["pnr"]
        what = f"a {room['name']} on the {plan['name']} rate at {prop['name']}"
        user = [
            f"I'm {passenger['email']} and I fly to {city} on booking {pnr}. Book me {what} from the day I land until the day my flight back leaves. Confirmation number?",
            f"Using my Meridian Air booking {pnr} ({passenger['email']}), reserve {what} in {city} for the nights between arrival and my return flight, and give me the confirmation number and total.",
        ]
        return Draft(family=self.name, key=f"pnr:{pnr}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c0", "server": "flights", "tool": "get_reservation", "arguments": {"pnr": pnr}},
            {**_find("c1", prop)},
            {"id": "c2", "server": SERVER, "tool": "get_property", "bind": {"property_id": "{c1.properties.0.id}"}},
            {"id": "c3", "server": SERVER, "tool": "get_guest_by_email", "arguments": {"email": passenger["email"]}},
            {"id": "c4", "server": SERVER, "tool": "create_reservation",
             "arguments": {"check_in": str(check_in), "check_out": str(check_out)},
             "bind": {"guest_id": "{c3.id}", "rate_plan_id": _plan_ref(detail, room, plan)}}], "facts": [
            {"name": "confirmation number", "expr": "{c4.confirmation_number}", "value": None},
            {"name": "total (cents)", "expr": "{c4.total_cents}", "value": None}]}],
            checks=["{c1.total} == 1"])


HOTELS_FAMILIES: tuple[Family, ...] = (
    BestRatedInCity(), PropertyRooms(), RatePlanRules(), RoomsLeftOnNight(), CheapestStay(), QuoteStay(), GuestLoyalty(),
    GuestUpcoming(), BookingDetails(), Arrivals(), MonthOfBusiness(), YearOfTravel(),
    BookStay(), BookWithPoints(), CancelBooking(), ExtendStay(), CheckInGuest(), CheckOutGuest(), RedeemOnBooking(),
    AddRequest(), EnrollGuest(), CancelIfFree(),
    CancelAfterDeadline(), CancelNonRefundable(), BookSoldOut(), TooManyGuests(), RedeemTooMany(), CancelCheckedIn(),
    BookBeyondWindow(),
    FindThenBook(), BookingThenRequest(),
    TripHotel(), BookTripHotel(),
)
"""Every hotels family, the cross-server ones (with the airline) last."""
