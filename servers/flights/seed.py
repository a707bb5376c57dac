"""The seeded airline: a hub-and-spoke network, its schedule three months either side of now,
and more than a year of trips booked by the shared world's people."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo

from sqlalchemy import insert
from sqlalchemy.orm import Session

from mcpgym.servers.flights.data import (
    AIRCRAFT,
    AIRLINE_CODE,
    AIRPORTS,
    CITIES,
    HUBS,
    aircraft_for,
    cabin_seats,
    distance_km,
)
from mcpgym.servers.flights.models import (
    CABINS,
    CREDIT_VALID_DAYS,
    FARE_CABINS,
    FREE_CANCELLATION_HOURS,
    MAX_CONNECTION_MINUTES,
    MIN_CONNECTION_MINUTES,
    QUOTE_VALID_MINUTES,
    Airport,
    City,
    FareClass,
    Flight,
    Organization,
    Passenger,
    Payment,
    PaymentMethod,
    Quote,
    Reservation,
    ReservationPassenger,
    Route,
    SeatAssignment,
    Segment,
    pnr_for,
)
from mcpgym.servers.kernel.world import Person, World

SCHEDULE_DAYS = 92
HISTORY_DAYS = 400
N_CUSTOMER_PASSENGERS = 300
N_TRIPS = 1600
FUTURE_SHARE = 0.3
N_OPEN_QUOTES = 3
N_ABANDONED_QUOTES = 40
HUB_PAIR_MAX_KM = 12500
MIN_ROUTE_KM = 300


class FareRule(NamedTuple):
    """The rules of one fare class, as stored in `fare_classes`."""

    code: str
    name: str
    cabin: str
    changeable: bool
    change_fee: int
    refund: str
    cancellation_fee: int
    free_bags: int
    bag_fee: int
    seat_selection: bool


FARE_RULES: tuple[FareRule, ...] = (
    FareRule("basic", "Basic Economy", "economy", False, 0, "none", 0, 0, 40, False),
    FareRule("standard", "Standard Economy", "economy", True, 75, "travel_credit", 100, 0, 40, True),
    FareRule("flex", "Flex Economy", "economy", True, 0, "original_payment", 0, 1, 40, True),
    FareRule("business", "Business", "business", True, 0, "original_payment", 0, 2, 60, True),
)
RULES = {rule.code: rule for rule in FARE_RULES}

HOME_AIRPORTS: dict[str, tuple[str, ...]] = {
    "America/New_York": ("JFK", "LGA", "EWR", "BOS", "PHL", "IAD", "ATL", "MIA"),
    "America/Chicago": ("ORD", "ORD", "DFW", "IAH", "MSP"),
    "America/Denver": ("DEN",),
    "America/Los_Angeles": ("LAX", "LAX", "SFO", "SEA", "LAS"),
    "Europe/London": ("LHR", "LHR", "LGW", "MAN", "EDI"),
    "Europe/Berlin": ("FRA", "FRA", "MUC", "BER"),
    "Asia/Singapore": ("SIN",),
    "Australia/Sydney": ("SYD", "MEL"),
}
CARD_BRANDS = ("visa", "visa", "mastercard", "amex")


def _second(t: datetime) -> datetime:
    return t.replace(microsecond=0)


@dataclass(eq=False)
class FlightRec:
    """A flight while the world is built; `id` is given once every flight exists."""

    route: dict[str, Any]
    day: date
    departure: datetime
    arrival: datetime
    status: str
    delay: int
    fares: dict[str, int]
    capacity: dict[str, int]
    booked: dict[str, int] = field(default_factory=lambda: {"economy": 0, "business": 0})
    taken: set[str] = field(default_factory=set)
    id: int = 0

    @property
    def departed(self) -> bool:
        return self.status in ("departed", "landed")

    def row(self) -> dict[str, Any]:
        return {
            "id": self.id, "route_id": self.route["id"], "flight_number": self.route["flight_number"],
            "departure_date": self.day, "scheduled_departure": self.departure,
            "scheduled_arrival": self.arrival, "aircraft": self.route["aircraft"],
            "status": self.status, "delay_minutes": self.delay,
            "fare_basic": self.fares["basic"], "fare_standard": self.fares["standard"],
            "fare_flex": self.fares["flex"], "fare_business": self.fares["business"],
        }


@dataclass
class Tables:
    """Rows of every table, in insertion order."""

    passengers: list[dict[str, Any]] = field(default_factory=list)
    methods: list[dict[str, Any]] = field(default_factory=list)
    quotes: list[dict[str, Any]] = field(default_factory=list)
    reservations: list[dict[str, Any]] = field(default_factory=list)
    travellers: list[dict[str, Any]] = field(default_factory=list)
    segments: list[dict[str, Any]] = field(default_factory=list)
    seats: list[dict[str, Any]] = field(default_factory=list)
    payments: list[dict[str, Any]] = field(default_factory=list)


def _airport_rows() -> list[dict[str, Any]]:
    return [
        {"id": i, "code": code, "name": name, "city": city, "country": country,
         "latitude": lat, "longitude": lon, "timezone": tz, "is_hub": code in HUBS}
        for i, (code, name, city, country, lat, lon, tz) in enumerate(AIRPORTS, start=1)
    ]


def _route_pairs(airports: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any], int]]:
    """Hub-hub pairs within range, then each other airport with its nearest useful hub(s)."""

    def km(a: dict[str, Any], b: dict[str, Any]) -> int:
        return round(distance_km(a["latitude"], a["longitude"], b["latitude"], b["longitude"]))

    hubs = [a for a in airports if a["is_hub"]]
    pairs = [(h1, h2, km(h1, h2)) for i, h1 in enumerate(hubs) for h2 in hubs[i + 1:]
             if km(h1, h2) <= HUB_PAIR_MAX_KM]
    for airport in airports:
        if airport["is_hub"]:
            continue
        ranked = sorted(((km(h, airport), h["code"], h) for h in hubs if km(h, airport) >= MIN_ROUTE_KM),
                        key=lambda r: (r[0], r[1]))
        pairs.append((ranked[0][2], airport, ranked[0][0]))
        if len(ranked) > 1 and ranked[1][0] <= 1.1 * ranked[0][0]:
            pairs.append((ranked[1][2], airport, ranked[1][0]))
    return pairs


def _weekly_flights(distance: int, hub_pair: bool) -> int:
    if hub_pair:
        return 7 if distance < 7000 else 3
    return 3 if distance < 1000 else 2


def _local_departure(origin: dict[str, Any], hub: dict[str, Any], minutes: int, arrival: int, day: date) -> str:
    """The origin's local departure time (HH:MM) of a flight reaching `hub` at local minute `arrival`."""
    landing = datetime.combine(day, time(arrival // 60, arrival % 60), tzinfo=ZoneInfo(hub["timezone"]))
    leaving = (landing.astimezone(UTC) - timedelta(minutes=minutes)).astimezone(ZoneInfo(origin["timezone"]))
    start = (leaving.hour * 60 + leaving.minute) // 5 * 5
    return f"{start // 60:02d}:{start % 60:02d}"


def _route_rows(airports: list[dict[str, Any]], now: datetime, rng: random.Random) -> list[dict[str, Any]]:
    """Both directions of every pair; flights into a hub land in its morning bank, flights out of
    a hub leave in its afternoon and evening bank, so connections work."""
    routes: list[dict[str, Any]] = []
    for k, (a, b, distance) in enumerate(_route_pairs(airports)):
        weekly = _weekly_flights(distance, a["is_hub"] and b["is_hub"])
        days = "".join(str(d) for d in sorted(rng.sample(range(1, 8), weekly)))
        minutes = round((distance / 800 * 60 + 35) / 5) * 5
        for n, (origin, destination) in enumerate(((a, b), (b, a))):
            if destination["is_hub"] and not origin["is_hub"]:
                arrival = rng.randrange(7 * 12, 14 * 12) * 5
                departure = _local_departure(origin, destination, minutes, arrival, now.date())
            else:
                start = rng.randrange(11 * 12, 23 * 12) * 5
                departure = f"{start // 60:02d}:{start % 60:02d}"
            routes.append({
                "id": len(routes) + 1, "flight_number": f"{AIRLINE_CODE}{101 + 2 * k + n}",
                "origin_id": origin["id"], "destination_id": destination["id"],
                "distance_km": distance, "duration_minutes": minutes,
                "aircraft": aircraft_for(distance), "departure_time": departure, "operating_days": days,
            })
    return routes


class Schedule:
    """Every flight of every route: the full schedule near now, older ones when booked."""

    def __init__(self, routes: list[dict[str, Any]], airports: list[dict[str, Any]],
                 now: datetime, rng: random.Random) -> None:
        self.routes = {r["id"]: r for r in routes}
        self.by_pair = {(r["origin_id"], r["destination_id"]): r for r in routes}
        self.zones = {a["id"]: ZoneInfo(a["timezone"]) for a in airports}
        self.capacity = {aircraft: {cabin: len(cabin_seats(aircraft, cabin)) for cabin in CABINS}
                         for aircraft in AIRCRAFT}
        self.now = now
        self.rng = rng
        self.flights: dict[tuple[int, date], FlightRec | None] = {}
        today = now.date()
        for route in routes:
            for offset in range(-SCHEDULE_DAYS, SCHEDULE_DAYS + 1):
                self.flight(route["id"], today + timedelta(days=offset))

    def flight(self, route_id: int, day: date) -> FlightRec | None:
        key = (route_id, day)
        if key not in self.flights:
            route = self.routes[route_id]
            operates = str(day.isoweekday()) in route["operating_days"]
            self.flights[key] = self._make(route, day) if operates else None
        return self.flights[key]

    def _make(self, route: dict[str, Any], day: date) -> FlightRec:
        hour, minute = (int(x) for x in route["departure_time"].split(":"))
        local = datetime.combine(day, time(hour, minute), tzinfo=self.zones[route["origin_id"]])
        departure = local.astimezone(UTC).replace(tzinfo=None)
        arrival = departure + timedelta(minutes=route["duration_minutes"])
        status, delay = self._status(departure, arrival)
        base = 60 + 0.09 * route["distance_km"]
        basic = round(base * (0.85 + 0.5 * self.rng.random()) * (1.1 if day.isoweekday() in (5, 7) else 1.0))
        fares = {"basic": basic, "standard": basic + max(30, round(basic * 0.25)),
                 "flex": round(basic * 1.8), "business": round(basic * 3.2) + 150}
        return FlightRec(route=route, day=day, departure=departure, arrival=arrival, status=status,
                         delay=delay, fares=fares, capacity=self.capacity[route["aircraft"]])

    def _status(self, departure: datetime, arrival: datetime) -> tuple[str, int]:
        rng, now = self.rng, self.now
        archived = departure < now - timedelta(days=SCHEDULE_DAYS + 1)
        if not archived and rng.random() < (0.015 if departure < now else 0.01):
            return "cancelled", 0
        delay = 0
        if departure < now and rng.random() < 0.35:
            delay = min(300, 5 * round(rng.expovariate(1 / 40) / 5))
        elif now <= departure < now + timedelta(hours=48) and rng.random() < 0.2:
            delay = 5 * rng.randrange(3, 37)
        if arrival + timedelta(minutes=delay) <= now:
            return "landed", delay
        if departure + timedelta(minutes=delay) <= now:
            return "departed", delay
        return ("delayed" if delay else "scheduled"), delay

    def route(self, origin_id: int, destination_id: int) -> dict[str, Any] | None:
        return self.by_pair.get((origin_id, destination_id))

    def all_flights(self) -> list[FlightRec]:
        """Every flight, sorted by departure, with ids given in that order."""
        flights = sorted((f for f in self.flights.values() if f is not None),
                         key=lambda f: (f.departure, f.route["flight_number"]))
        for i, f in enumerate(flights, start=1):
            f.id = i
        return flights


class Airline:
    """Builds passengers, payment methods, reservations and quotes over a `Schedule`."""

    def __init__(self, world: World, rng: random.Random, airports: list[dict[str, Any]],
                 schedule: Schedule) -> None:
        self.world, self.rng, self.now = world, rng, world.now
        self.schedule = schedule
        self.airport_id = {a["code"]: a["id"] for a in airports}
        self.neighbours: dict[int, list[int]] = {a["id"]: [] for a in airports}
        for origin_id, destination_id in schedule.by_pair:
            self.neighbours[origin_id].append(destination_id)
        self.t = Tables()
        self.methods_of: dict[int, list[dict[str, Any]]] = {}
        self.org_of: dict[int, str] = {}
        self.members: dict[str, list[int]] = {}
        self.busy: dict[int, list[tuple[datetime, datetime]]] = {}
        self.seat_lists: dict[tuple[str, str], list[str]] = {}

    # ---------------------------------------------------------------- passengers

    def add_passengers(self, people: Iterable[Person], org_ids: dict[str, int]) -> None:
        rng, now = self.rng, self.now
        loyalty: set[str] = set()
        for person in people:
            pid = len(self.t.passengers) + 1
            number = f"{AIRLINE_CODE}{rng.randrange(10**7, 10**8)}"
            while number in loyalty:
                number = f"{AIRLINE_CODE}{rng.randrange(10**7, 10**8)}"
            loyalty.add(number)
            since = _second(now - timedelta(days=rng.randrange(900, 3000), minutes=rng.randrange(1440)))
            self.t.passengers.append({
                "id": pid, "person_id": person.id, "first_name": person.first_name,
                "last_name": person.last_name, "email": person.email, "phone": person.phone,
                "date_of_birth": date(rng.randrange(1955, 2004), rng.randrange(1, 13), rng.randrange(1, 29)),
                "loyalty_number": number, "organization_id": org_ids[person.organization_id],
                "home_airport_id": self.airport_id[rng.choice(HOME_AIRPORTS[person.timezone])],
                "member_since": since,
            })
            self.org_of[pid] = person.organization_id
            self.members.setdefault(person.organization_id, []).append(pid)
            self._add_methods(pid, since)

    def _add_methods(self, passenger_id: int, since: datetime) -> None:
        rng, now = self.rng, self.now
        self.methods_of[passenger_id] = []
        primary = now + timedelta(days=rng.randrange(90, 1800))
        expiries = [primary]
        if rng.random() < 0.35:
            expiries.append(now + timedelta(days=rng.randrange(-420, 700)))
        for expiry in expiries:
            self._method(passenger_id, "credit_card", since + timedelta(days=rng.randrange(200)),
                         brand=rng.choice(CARD_BRANDS), expiry_month=expiry.month, expiry_year=expiry.year)
        if rng.random() < 0.25:
            self._method(passenger_id, "gift_card", since + timedelta(days=rng.randrange(300)),
                         balance=rng.choice((50, 100, 150, 200, 250, 500)))

    def _method(self, passenger_id: int, kind: str, created: datetime, **fields: Any) -> dict[str, Any]:
        row = {"id": len(self.t.methods) + 1, "passenger_id": passenger_id, "kind": kind,
               "brand": None, "last4": f"{self.rng.randrange(10000):04d}", "expiry_month": None,
               "expiry_year": None, "balance": None, "expires_at": None,
               "issued_for_reservation_id": None, "created_at": _second(created)}
        row.update(fields)
        self.t.methods.append(row)
        self.methods_of[passenger_id].append(row)
        return row

    # ---------------------------------------------------------------- itineraries

    def _leg(self, origin: int, destination: int, day: date) -> FlightRec | None:
        route = self.schedule.route(origin, destination)
        return None if route is None else self.schedule.flight(route["id"], day)

    def _itinerary(self, path: list[int], day: date) -> list[FlightRec] | None:
        """The first itinerary along `path` leaving within a week of `day`."""
        for offset in range(7):
            first = self._leg(path[0], path[1], day + timedelta(days=offset))
            if first is None:
                continue
            legs = [first]
            for a, b in zip(path[1:], path[2:]):
                nxt = self._connection(legs[-1], a, b)
                if nxt is None:
                    break
                legs.append(nxt)
            if len(legs) == len(path) - 1:
                return legs
        return None

    def _connection(self, arriving: FlightRec, origin: int, destination: int) -> FlightRec | None:
        earliest = arriving.arrival + timedelta(minutes=MIN_CONNECTION_MINUTES)
        latest = arriving.arrival + timedelta(minutes=MAX_CONNECTION_MINUTES)
        for offset in (-1, 0, 1):
            leg = self._leg(origin, destination, arriving.day + timedelta(days=offset))
            if leg is not None and earliest <= leg.departure <= latest:
                return leg
        return None

    def _path(self, home: int) -> list[int]:
        rng = self.rng
        direct = self.neighbours[home]
        if rng.random() < 0.55:
            return [home, rng.choice(direct)]
        via = rng.choice(direct)
        onward = [d for d in self.neighbours[via] if d != home and d not in direct]
        return [home, via, rng.choice(onward)] if onward else [home, via]

    def _bookable(self, legs: list[FlightRec], cabin: str, party: list[int]) -> bool:
        """Seats for everyone, no flight cancelled before it was flown, no one already travelling then."""
        for leg in legs:
            if leg.booked[cabin] + len(party) > leg.capacity[cabin]:
                return False
            if leg.departure < self.now and leg.status == "cancelled":
                return False
        start, end = legs[0].departure, legs[-1].arrival
        return not any(s < end and start < e for p in party for s, e in self.busy.get(p, ()))

    # ---------------------------------------------------------------- trips

    def add_group_trip(self, employees: list[int]) -> None:
        """A team offsite: enough employees in business to sell out one future flight's cabin."""
        now = self.now
        candidates = sorted(
            (f for f in self.schedule.flights.values()
             if f is not None and f.route["aircraft"] == "A220-300" and f.status == "scheduled"
             and now + timedelta(days=18) <= f.departure <= now + timedelta(days=30)),
            key=lambda f: (f.departure, f.route["flight_number"]),
        )
        outbound = candidates[0]
        back_path = [outbound.route["destination_id"], outbound.route["origin_id"]]
        inbound = self._itinerary(back_path, outbound.day + timedelta(days=4))
        team = employees[:outbound.capacity["business"]]
        created = _second(now - timedelta(days=9, hours=3))
        for i in range(0, len(team), 3):
            legs = [outbound] + (inbound or [])
            self._reserve(team[i:i + 3], "business", legs, created + timedelta(minutes=7 * i), cancellable=False)

    def add_trip(self, lead: int) -> None:
        rng, now = self.rng, self.now
        home = self.t.passengers[lead - 1]["home_airport_id"]
        path = self._path(home)
        if rng.random() < FUTURE_SHARE:
            days = (SCHEDULE_DAYS - 7) * (1 - rng.random() ** 0.5)
        else:
            days = -HISTORY_DAYS * rng.random()
        outbound = self._itinerary(path, (now + timedelta(days=days)).date())
        if outbound is None:
            return
        legs = list(outbound)
        if rng.random() < 0.7:
            back = self._itinerary(path[::-1], outbound[-1].day + timedelta(days=rng.randrange(1, 11)))
            if back and back[0].departure >= outbound[-1].arrival + timedelta(minutes=MIN_CONNECTION_MINUTES):
                legs += back
        party = [lead] + self._companions(lead)
        fare = self._fare_class(lead, outbound)
        if not self._bookable(legs, FARE_CABINS[fare], party):
            return
        created = legs[0].departure - timedelta(days=1 + rng.expovariate(1 / 21), minutes=rng.randrange(1440))
        if created > now:
            created = now - timedelta(days=rng.expovariate(1 / 20), minutes=rng.randrange(10, 1440))
        self._reserve(party, fare, legs, _second(created))

    def _companions(self, lead: int) -> list[int]:
        rng = self.rng
        size = rng.choices((0, 1, 2), (75, 18, 7))[0]
        colleagues = [p for p in self.members[self.org_of[lead]] if p != lead]
        return sorted(rng.sample(colleagues, min(size, len(colleagues))))

    def _fare_class(self, lead: int, legs: list[FlightRec]) -> str:
        rng = self.rng
        long_haul = sum(leg.route["distance_km"] for leg in legs) > 4000
        if self.org_of[lead] == self.world.home.id:
            weights = (10, 40, 25, 50 if long_haul else 25)
        else:
            weights = (30, 40, 15, 25 if long_haul else 10)
        return rng.choices(("basic", "standard", "flex", "business"), weights)[0]

    def _reserve(self, party: list[int], fare: str, legs: list[FlightRec], created: datetime,
                 cancellable: bool = True) -> None:
        rng, now = self.rng, self.now
        rid = len(self.t.reservations) + 1
        cabin = FARE_CABINS[fare]
        rule = RULES[fare]
        per_passenger = sum(leg.fares[fare] for leg in legs)
        cancelled = cancellable and rng.random() < 0.08
        bags = {p: rng.choices((0, 1, 2), (45, 45, 10))[0] for p in party}
        for position, leg in enumerate(legs, start=1):
            sid = len(self.t.segments) + 1
            self.t.segments.append({"id": sid, "reservation_id": rid, "position": position,
                                    "flight": leg, "fare": leg.fares[fare]})
            if cancelled:
                continue
            leg.booked[cabin] += len(party)
            checked_in = leg.departed
            for p in party:
                if (checked_in and rng.random() < 0.95) or (rule.seat_selection and rng.random() < 0.7):
                    self._seat(sid, p, leg, cabin)
        for p in party:
            if not cancelled:
                self.busy.setdefault(p, []).append((legs[0].departure, legs[-1].arrival))
            self.t.travellers.append({"id": len(self.t.travellers) + 1, "reservation_id": rid,
                                      "passenger_id": p, "checked_bags": bags[p]})
        bag_fees = sum(max(0, n - rule.free_bags) for n in bags.values()) * rule.bag_fee
        self._pay(rid, party[0], created, "fare", per_passenger * len(party),
                  f"Fare: {len(party)} passenger(s) x ${per_passenger}")
        if bag_fees:
            self._pay(rid, party[0], created, "baggage", bag_fees, "Checked bags at booking")
        status = "flown" if all(leg.status == "landed" for leg in legs) else "booked"
        cancelled_at = None
        if cancelled:
            status = "cancelled"
            end = min(legs[0].departure, now)
            cancelled_at = _second(created + (end - created) * rng.uniform(0.05, 0.95))
            self._refund(rid, party, fare, legs, created, cancelled_at)
        self.t.reservations.append({
            "id": rid, "pnr": pnr_for(rid), "passenger_id": party[0], "fare_class": fare,
            "status": status, "created_at": created, "updated_at": cancelled_at or created,
            "cancelled_at": cancelled_at,
        })
        if created >= now - timedelta(days=5):
            self._quote(party, fare, legs, created - timedelta(minutes=rng.randrange(3, 25)), rid)

    def _seat(self, segment_id: int, passenger_id: int, leg: FlightRec, cabin: str) -> None:
        key = (leg.route["aircraft"], cabin)
        if key not in self.seat_lists:
            self.seat_lists[key] = cabin_seats(*key)
        seats = self.seat_lists[key]
        seat = next((s for s in (self.rng.choice(seats) for _ in range(20)) if s not in leg.taken), None)
        if seat is None:
            seat = next((s for s in seats if s not in leg.taken), None)
        if seat is None:
            return
        leg.taken.add(seat)
        self.t.seats.append({"id": len(self.t.seats) + 1, "segment_id": segment_id,
                             "passenger_id": passenger_id, "flight": leg, "seat": seat})

    # ---------------------------------------------------------------- money

    def _pay(self, rid: int, payer: int, when: datetime, kind: str, amount: int, text: str) -> None:
        rng = self.rng
        methods = self.methods_of[payer]
        gift = next((m for m in methods if m["kind"] == "gift_card" and m["balance"] > 0), None)
        if gift is not None and kind == "fare" and rng.random() < 0.5:
            used = min(gift["balance"], amount)
            gift["balance"] -= used
            self._payment(rid, gift["id"], kind, used, text, when)
            amount -= used
        if amount <= 0:
            return
        cards = [m for m in methods if m["kind"] == "credit_card"
                 and (m["expiry_year"], m["expiry_month"]) >= (when.year, when.month)]
        self._payment(rid, rng.choice(cards)["id"], kind, amount, text, when)

    def _payment(self, rid: int, method_id: int, kind: str, amount: int, text: str, when: datetime) -> None:
        self.t.payments.append({"id": len(self.t.payments) + 1, "reservation_id": rid,
                                "payment_method_id": method_id, "kind": kind, "amount": amount,
                                "description": text, "created_at": when})

    def _refund(self, rid: int, party: list[int], fare: str, legs: list[FlightRec],
                created: datetime, when: datetime) -> None:
        rule = RULES[fare]
        paid: dict[int, int] = {}
        for p in reversed(self.t.payments):
            if p["reservation_id"] != rid:
                break
            paid[p["payment_method_id"]] = paid.get(p["payment_method_id"], 0) + p["amount"]
        full = (when - created <= timedelta(hours=FREE_CANCELLATION_HOURS) or rule.refund == "original_payment"
                or any(leg.status == "cancelled" for leg in legs))
        if full:
            for method_id, amount in sorted(paid.items()):
                method = self.t.methods[method_id - 1]
                if method["balance"] is not None:
                    method["balance"] += amount
                self._payment(rid, method_id, "refund", -amount, "Refund to original payment", when)
        elif rule.refund == "travel_credit":
            credit = sum(paid.values()) - rule.cancellation_fee * len(party)
            if credit > 0:
                certificate = self._method(party[0], "travel_certificate", when, balance=credit,
                                           last4=f"{rid:04d}"[-4:], issued_for_reservation_id=rid,
                                           expires_at=when + timedelta(days=CREDIT_VALID_DAYS))
                self._payment(rid, certificate["id"], "refund", -credit,
                              f"Travel credit after ${rule.cancellation_fee * len(party)} cancellation fee", when)

    def _quote(self, party: list[int], fare: str, legs: list[FlightRec], created: datetime,
               reservation_id: int | None) -> None:
        price = sum(leg.fares[fare] for leg in legs)
        self.t.quotes.append({
            "id": len(self.t.quotes) + 1, "passenger_id": party[0], "passenger_ids": party,
            "flight": legs, "fare_class": fare, "price_per_passenger": price,
            "total": price * len(party), "created_at": _second(created),
            "expires_at": _second(created + timedelta(minutes=QUOTE_VALID_MINUTES)),
            "reservation_id": reservation_id,
        })

    def add_abandoned_quotes(self) -> None:
        """Price checks that were never booked: expired by now, but for the last few, made
        minutes ago and still open (a user who priced a trip and is about to book it)."""
        rng, now = self.rng, self.now
        target = len(self.t.quotes) + N_ABANDONED_QUOTES
        while len(self.t.quotes) < target:
            fresh = len(self.t.quotes) >= target - N_OPEN_QUOTES
            lead = rng.randrange(1, len(self.t.passengers) + 1)
            home = self.t.passengers[lead - 1]["home_airport_id"]
            legs = self._itinerary(self._path(home), (now + timedelta(days=rng.randrange(3, 60))).date())
            if legs and all(leg.status == "scheduled" for leg in legs):
                created = now - (timedelta(minutes=rng.uniform(2, 20)) if fresh else timedelta(hours=rng.uniform(1, 120)))
                self._quote([lead], rng.choice(("basic", "standard", "flex", "business")), legs, created, None)


def _resolve(rows: list[dict[str, Any]], key: str = "flight") -> list[dict[str, Any]]:
    """Replace the `FlightRec` under `key` by its id (`flight_id`, or `flight_ids` for a list)."""
    out = []
    for row in rows:
        row = dict(row)
        value = row.pop(key)
        if isinstance(value, list):
            row["flight_ids"] = [f.id for f in value]
        else:
            row["flight_id"] = value.id
        out.append(row)
    return out


def populate(db: Session, world: World, rng: random.Random) -> None:
    """Fill an empty airline database from the shared world."""
    airports = _airport_rows()
    routes = _route_rows(airports, world.now, rng)
    schedule = Schedule(routes, airports, world.now, rng)
    airline = Airline(world, rng, airports, schedule)

    customers = sorted(rng.sample(list(world.customers), N_CUSTOMER_PASSENGERS), key=lambda p: p.id)
    travellers = list(world.employees) + customers
    org_keys = sorted({p.organization_id for p in travellers})
    orgs = [o for o in world.organizations if o.id in org_keys]
    org_ids = {o.id: i for i, o in enumerate(orgs, start=1)}
    airline.add_passengers(travellers, org_ids)

    employees = [p["id"] for p in airline.t.passengers if p["organization_id"] == org_ids[world.home.id]]
    airline.add_group_trip(rng.sample(employees, len(employees)))
    weights = [4 if p["organization_id"] == org_ids[world.home.id] else 1 for p in airline.t.passengers]
    leads = rng.choices([p["id"] for p in airline.t.passengers], weights, k=N_TRIPS)
    for lead in leads:
        airline.add_trip(lead)
    airline.add_abandoned_quotes()

    t = airline.t
    db.execute(insert(Organization.__table__), [
        {"id": org_ids[o.id], "external_id": o.id, "name": o.name, "domain": o.domain} for o in orgs
    ])
    db.execute(insert(Airport.__table__), airports)
    db.execute(insert(City.__table__), [
        {"id": i, "name": name, "country": country, "latitude": lat, "longitude": lon}
        for i, (name, country, lat, lon) in enumerate(CITIES, start=1)
    ])
    db.execute(insert(Route.__table__), routes)
    db.execute(insert(Flight.__table__), [f.row() for f in schedule.all_flights()])
    db.execute(insert(FareClass.__table__),
               [{"id": i, **rule._asdict()} for i, rule in enumerate(FARE_RULES, start=1)])
    db.execute(insert(Passenger.__table__), t.passengers)
    db.execute(insert(Reservation.__table__), t.reservations)
    db.execute(insert(PaymentMethod.__table__), t.methods)
    db.execute(insert(ReservationPassenger.__table__), t.travellers)
    db.execute(insert(Segment.__table__), _resolve(t.segments))
    db.execute(insert(SeatAssignment.__table__), _resolve(t.seats))
    db.execute(insert(Payment.__table__), t.payments)
    db.execute(insert(Quote.__table__), _resolve(t.quotes))
