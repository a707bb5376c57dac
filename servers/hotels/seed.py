"""The seeded hotel platform: properties in every city the airline serves, four months of
nightly inventory ahead, and more than a year of stays by the shared world's people, some of
them the hotels of trips flown with the airline."""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import insert
from sqlalchemy.orm import Session

from mcpgym.servers.hotels.data import (
    AMENITIES,
    BASIC_AMENITIES,
    BOOKING_WINDOW_DAYS,
    CANCELLATION_HOURS,
    CENTS_PER_POINT,
    CHECK_IN_HOUR,
    CITY_PRICE_LEVEL,
    DESTINATIONS,
    ENROLMENT_BONUS_POINTS,
    LUXURY_AMENITIES,
    NAME_KINDS,
    NAME_PREFIXES,
    POINTS_PER_USD,
    RATE_PLAN_KINDS,
    ROOM_KINDS,
    STREETS,
    TIER_BY_NAME,
    Destination,
    confirmation_for,
    loyalty_number_for,
    tier_for,
)
from mcpgym.servers.hotels.models import (
    Guest,
    LoyaltyAccount,
    LoyaltyTransaction,
    Organization,
    Payment,
    Property,
    RatePlan,
    Reservation,
    RoomType,
)
from mcpgym.servers.kernel.links import seeded_rows
from mcpgym.servers.kernel.world import World

HISTORY_DAYS = 420
N_EXTRA_GUESTS = 120
N_STAYS = 1700
FUTURE_SHARE = 0.3
TRIP_HOTEL_SHARE = 0.5
"""Share of the airline's round trips whose traveller booked the hotel here."""
LOYALTY_SHARE = 0.65
SOLD_OUT_SHARE = 0.06
STAR_PRICE_USD = {2: 80, 3: 115, 4: 175, 5: 300}
REQUESTS = ("", "", "", "", "Late arrival, after 22:00.", "High floor, please.", "Quiet room away from the elevator.",
            "Extra pillows.", "Early check-in if possible.", "Cot for a baby.", "Twin beds rather than a double.")


def _second(t: datetime) -> datetime:
    return t.replace(microsecond=0)


def season_factor(night: date) -> float:
    """Demand by night: weekends and the summer and December peaks cost more."""
    factor = 1.12 if night.weekday() in (4, 5) else 1.0
    if night.month in (6, 7, 8):
        factor *= 1.15
    elif night.month == 12:
        factor *= 1.1
    elif night.month in (1, 2):
        factor *= 0.9
    return factor


def night_price(base_cents: int, plan: dict[str, Any], breakfast_cents: int) -> int:
    """A rate plan's price of one room for one night, from the night's base price."""
    return base_cents * (100 - plan["discount_pct"]) // 100 + (breakfast_cents if plan["breakfast_included"] else 0)


@cache
def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def free_cancellation_until(check_in: date, timezone: str, hours: int) -> datetime:
    """The UTC end of free cancellation: `hours` before local check-in time on `check_in`."""
    local = datetime.combine(check_in, time(CHECK_IN_HOUR), tzinfo=_zone(timezone))
    return (local.astimezone(UTC) - timedelta(hours=hours)).replace(tzinfo=None)


@dataclass
class Trip:
    """A round trip flown with the airline, as its traveller's hotel stay would be."""

    person_id: str
    party: int
    city: str
    country: str
    check_in: date
    check_out: date
    booked_at: datetime


def airline_trips(seed: int) -> list[Trip]:
    """The airline's round trips (not cancelled) as stays: the destination city from the local
    arrival date of the outbound flight to the departure date of the first return flight."""
    rows = seeded_rows("flights", seed, """
        SELECT r.id, r.created_at, p.person_id, f.departure_date, f.scheduled_arrival, o.code AS origin,
               d.code AS destination, d.city, d.country, d.timezone,
               (SELECT count(*) FROM reservation_passengers rp WHERE rp.reservation_id = r.id) AS party
        FROM reservations r JOIN passengers p ON p.id = r.passenger_id
        JOIN segments s ON s.reservation_id = r.id JOIN flights f ON f.id = s.flight_id
        JOIN routes ro ON ro.id = f.route_id JOIN airports o ON o.id = ro.origin_id
        JOIN airports d ON d.id = ro.destination_id
        WHERE r.status != 'cancelled' ORDER BY r.id, s.position""")
    legs: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        legs[row["id"]].append(row)
    trips = []
    for reservation_id in sorted(legs):
        path = legs[reservation_id]
        n = len(path)
        if n % 2 or any((path[i]["origin"], path[i]["destination"]) != (path[n - 1 - i]["destination"], path[n - 1 - i]["origin"])
                        for i in range(n // 2)):
            continue
        arriving, leaving = path[n // 2 - 1], path[n // 2]
        arrival = datetime.fromisoformat(arriving["scheduled_arrival"]).replace(tzinfo=UTC)
        check_in = arrival.astimezone(ZoneInfo(arriving["timezone"])).date()
        check_out = date.fromisoformat(leaving["departure_date"])
        if not 1 <= (check_out - check_in).days <= 14:
            continue
        trips.append(Trip(person_id=path[0]["person_id"], party=path[0]["party"], city=arriving["city"],
                          country=arriving["country"], check_in=check_in, check_out=check_out,
                          booked_at=datetime.fromisoformat(path[0]["created_at"])))
    return trips


class Platform:
    """Builds properties, inventory, guests, stays and loyalty over the shared world."""

    def __init__(self, world: World, rng: random.Random) -> None:
        self.world, self.rng, self.now = world, rng, world.now
        self.today = world.now.date()
        self.properties: list[dict[str, Any]] = []
        self.room_types: list[dict[str, Any]] = []
        self.plans: list[dict[str, Any]] = []
        self.nights: dict[tuple[int, date], dict[str, Any]] = {}
        self.by_city: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.types_of: dict[int, list[dict[str, Any]]] = defaultdict(list)
        self.plans_of: dict[int, list[dict[str, Any]]] = defaultdict(list)
        self.stays: list[dict[str, Any]] = []

    # ---------------------------------------------------------------- catalogue

    def add_properties(self) -> None:
        rng = self.rng
        names: set[str] = set()
        for destination in DESTINATIONS:
            for _ in range(3 if destination.hub else rng.choice((2, 2, 3))):
                self._property(destination, names)

    def _property(self, destination: Destination, names: set[str]) -> None:
        rng = self.rng
        name = f"{rng.choice(NAME_PREFIXES)} {rng.choice(NAME_KINDS)} {destination.city}"
        while name in names:
            name = f"{rng.choice(NAME_PREFIXES)} {rng.choice(NAME_KINDS)} {destination.city}"
        names.add(name)
        stars = rng.choices((2, 3, 4, 5), (1, 4, 5, 2))[0]
        amenities = set(BASIC_AMENITIES) | set(rng.sample(AMENITIES, rng.randint(2, 6)))
        if stars >= 4:
            amenities |= set(rng.sample(LUXURY_AMENITIES, 3 if stars == 4 else 5))
        pid = len(self.properties) + 1
        prop = {
            "id": pid, "name": name, "city": destination.city, "country": destination.country,
            "address": f"{rng.randint(1, 240)} {rng.choice(STREETS)}, {destination.city}",
            "timezone": destination.timezone, "stars": stars,
            "review_score": round(min(9.8, max(6.0, rng.gauss(6.4 + 0.5 * stars, 0.5))), 1),
            "review_count": rng.randint(40, 4000), "amenities": [a for a in AMENITIES if a in amenities],
            "cancellation_hours": rng.choice(CANCELLATION_HOURS),
            "breakfast_cents": rng.choice((12, 15, 18, 22, 28)) * 100 + (stars - 3) * 500,
            "description": f"A {stars}-star property in {destination.city}, "
                           f"{destination.country}.",
        }
        self.properties.append(prop)
        self.by_city[destination.city].append(prop)
        level = CITY_PRICE_LEVEL.get(destination.city, 1.0)
        kinds = sorted(rng.sample(range(len(ROOM_KINDS)), rng.choice((2, 2, 3))))
        for k in kinds:
            kind = ROOM_KINDS[k]
            room = {"id": len(self.room_types) + 1, "property_id": pid, "name": kind.name, "beds": kind.beds,
                    "max_guests": kind.max_guests, "size_sqm": kind.size_sqm, "total_rooms": rng.randint(4, 30),
                    "base_usd": round(STAR_PRICE_USD[stars] * level * kind.price_factor * rng.uniform(0.9, 1.1))}
            self.room_types.append(room)
            self.types_of[pid].append(room)
            codes = ["FLEX", "NRF"] + [c for c in ("FLEXBB", "NRFBB") if rng.random() < 0.5]
            for plan_kind in RATE_PLAN_KINDS:
                if plan_kind.code not in codes:
                    continue
                plan = {"id": len(self.plans) + 1, "room_type_id": room["id"], "code": plan_kind.code,
                        "name": plan_kind.name, "refundable": plan_kind.refundable,
                        "breakfast_included": plan_kind.breakfast,
                        "discount_pct": plan_kind.discount_pct + (rng.choice((0, 0, 3, 5)) if not plan_kind.refundable else 0)}
                self.plans.append(plan)
                self.plans_of[room["id"]].append(plan)

    def base_cents(self, room: dict[str, Any], night: date) -> int:
        """The base price of a night: the inventory's where it is on sale, else the room's own."""
        stored = self.nights.get((room["id"], night))
        if stored is not None:
            return stored[0]
        return round(room["base_usd"] * season_factor(night)) * 100

    def add_inventory(self) -> None:
        """Every room type's nights from today to the end of the booking window, as
        [base price in cents, rooms, rooms sold]."""
        uniform = self.rng.uniform
        days = [self.today + timedelta(days=offset) for offset in range(BOOKING_WINDOW_DAYS + 1)]
        factors = [season_factor(night) for night in days]
        for room in self.room_types:
            base, total, rid = room["base_usd"], room["total_rooms"], room["id"]
            for night, factor in zip(days, factors):
                self.nights[(rid, night)] = [round(base * factor * uniform(0.94, 1.06)) * 100, total, 0]

    def fill_other_channels(self) -> None:
        """Rooms sold elsewhere (walk-ins, other sites): busier nearer today, some nights sold out."""
        random = self.rng.random
        today = self.today
        for (_, night), row in self.nights.items():
            free = row[1] - row[2]
            if random() < SOLD_OUT_SHARE:
                row[2] = row[1]
                continue
            occupancy = min(0.85, max(0.0, 0.75 - (night - today).days / 400 - 0.3 * random()))
            row[2] += min(free, round(free * occupancy))

    # ---------------------------------------------------------------- stays

    def _fits(self, room: dict[str, Any], check_in: date, check_out: date, rooms: int) -> bool:
        night = check_in
        while night < check_out:
            row = self.nights.get((room["id"], night))
            if row is not None and row[2] + rooms > row[1]:
                return False
            night += timedelta(days=1)
        return True

    def add_stay(self, guest_id: int, prop: dict[str, Any], check_in: date, check_out: date, guests: int,
                 created: datetime, rooms: int = 1) -> None:
        rng = self.rng
        rooms_fit = [r for r in self.types_of[prop["id"]] if r["max_guests"] * rooms >= guests]
        if not rooms_fit:
            return
        room = rng.choice(rooms_fit)
        plan = rng.choice(self.plans_of[room["id"]])
        status = self._status(check_in, check_out, plan["refundable"])
        if status != "cancelled" and not self._fits(room, check_in, check_out, rooms):
            return
        deadline = (free_cancellation_until(check_in, prop["timezone"], prop["cancellation_hours"])
                    if plan["refundable"] else None)
        created = min(created, self.now - timedelta(minutes=rng.randrange(30, 600)))
        if deadline is not None and created > deadline:
            deadline = created
        nights = []
        night = check_in
        while night < check_out:
            price = night_price(self.base_cents(room, night), plan, prop["breakfast_cents"])
            nights.append((night, price))
            if status != "cancelled" and (room["id"], night) in self.nights:
                self.nights[(room["id"], night)][2] += rooms
            night += timedelta(days=1)
        cancelled_at = None
        if status == "cancelled":
            assert deadline is not None
            end = min(deadline, self.now)
            cancelled_at = _second(created + (end - created) * rng.uniform(0.1, 0.9)) if end > created else created
        self.stays.append({
            "guest_id": guest_id, "property_id": prop["id"], "room_type_id": room["id"], "rate_plan_id": plan["id"],
            "check_in": check_in, "check_out": check_out, "rooms": rooms, "guests": guests, "status": status,
            "total_cents": sum(price for _, price in nights) * rooms, "points_redeemed": 0,
            "free_cancellation_until": deadline, "special_requests": rng.choice(REQUESTS),
            "created_at": _second(created), "updated_at": cancelled_at or _second(created),
            "cancelled_at": cancelled_at, "nights": nights,
        })

    def _status(self, check_in: date, check_out: date, refundable: bool) -> str:
        rng = self.rng
        if refundable and rng.random() < 0.09:
            return "cancelled"
        if check_out <= self.today:
            return "completed"
        if check_in < self.today:
            return "checked_in"
        if check_in == self.today:
            return "checked_in" if rng.random() < 0.4 else "confirmed"
        return "confirmed"

    def add_trip_stays(self, trips: list[Trip], guest_ids: dict[str, int]) -> None:
        rng = self.rng
        for trip in trips:
            if trip.city not in self.by_city or trip.person_id not in guest_ids or rng.random() >= TRIP_HOTEL_SHARE:
                continue
            prop = rng.choice(self.by_city[trip.city])
            created = trip.booked_at + timedelta(minutes=rng.randrange(5, 180))
            self.add_stay(guest_ids[trip.person_id], prop, trip.check_in, trip.check_out, min(trip.party, 2), created)

    def add_random_stays(self, guest_ids: list[int]) -> None:
        rng = self.rng
        cities = [d.city for d in DESTINATIONS for _ in range(4 if d.hub else 1)]
        for _ in range(N_STAYS):
            draw = rng.random()
            if draw < FUTURE_SHARE:
                check_in = self.today + timedelta(days=rng.randrange(0, BOOKING_WINDOW_DAYS - 10))
            elif draw < FUTURE_SHARE + 0.03:
                check_in = self.today - timedelta(days=rng.randrange(0, 3))
            else:
                check_in = self.today - timedelta(days=rng.randrange(1, HISTORY_DAYS))
            nights = rng.choices((1, 2, 3, 4, 5, 7, 10), (20, 25, 20, 12, 10, 8, 5))[0]
            rooms = rng.choices((1, 2, 3), (85, 12, 3))[0]
            guests = rng.randint(rooms, 2 * rooms) if rng.random() < 0.9 else rng.randint(1, 3 * rooms)
            prop = rng.choice(self.by_city[rng.choice(cities)])
            lead = timedelta(days=min(120.0, rng.expovariate(1 / 20)), minutes=rng.randrange(1440))
            created = datetime.combine(check_in, time(12)) - lead
            self.add_stay(rng.choice(guest_ids), prop, check_in, check_in + timedelta(days=nights), guests, created, rooms)


def _loyalty(platform: Platform, rng: random.Random, guest_ids: list[int], stays: list[dict[str, Any]],
             now: datetime) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Loyalty accounts, their transactions, and the charges of every stay (points redeemed
    on some upcoming stays lower their card charge)."""
    accounts: dict[int, dict[str, Any]] = {}
    for guest_id in guest_ids:
        if rng.random() < LOYALTY_SHARE:
            accounts[guest_id] = {"id": 0, "guest_id": guest_id, "number": "", "tier": "member", "points_balance": 0,
                                  "lifetime_points": 0, "qualifying_nights": 0,
                                  "enrolled_at": _second(now - timedelta(days=rng.randrange(30, 2500), minutes=rng.randrange(1440)))}
    for i, account in enumerate(sorted(accounts.values(), key=lambda a: a["guest_id"]), start=1):
        account["id"], account["number"] = i, loyalty_number_for(i)
    year_ago = now.date() - timedelta(days=365)
    for stay in stays:
        account = accounts.get(stay["guest_id"])
        if account is not None and stay["status"] == "completed" and stay["check_out"] > year_ago:
            account["qualifying_nights"] += (stay["check_out"] - stay["check_in"]).days * stay["rooms"]
    for account in accounts.values():
        account["tier"] = tier_for(account["qualifying_nights"])
    events: list[tuple[datetime, int, str, dict[str, Any] | None]] = []
    for account in accounts.values():
        events.append((account["enrolled_at"], account["id"], "bonus", None))
    for index, stay in enumerate(stays):
        account = accounts.get(stay["guest_id"])
        if account is None:
            continue
        if stay["status"] == "completed":
            out = datetime.combine(stay["check_out"], time(11))
            if out > account["enrolled_at"]:
                events.append((out, index, "earn", stay))
        elif stay["status"] == "confirmed" and stay["created_at"] > account["enrolled_at"] and rng.random() < 0.25:
            events.append((stay["created_at"], index, "redeem", stay))
    events.sort(key=lambda e: (e[0], e[1], e[2]))
    by_id = {a["id"]: a for a in accounts.values()}
    transactions: list[dict[str, Any]] = []
    for when, key, kind, stay in events:
        account = by_id[key] if stay is None else accounts[stay["guest_id"]]
        if kind == "bonus":
            points, text = ENROLMENT_BONUS_POINTS, "Welcome bonus"
        elif kind == "earn":
            assert stay is not None
            cash = stay["total_cents"] - stay["points_redeemed"] * CENTS_PER_POINT
            points = cash // 100 * POINTS_PER_USD * TIER_BY_NAME[account["tier"]].earn_multiplier_pct // 100
            text = f"Stay {confirmation_for(stay['id'])}"
        else:
            assert stay is not None
            most = min(account["points_balance"], stay["total_cents"] // CENTS_PER_POINT)
            points = most // 500 * 500
            if points <= 0:
                continue
            stay["points_redeemed"] = points
            points, text = -points, f"Redeemed on booking {confirmation_for(stay['id'])}"
        account["points_balance"] += points
        if points > 0:
            account["lifetime_points"] += points
        transactions.append({"id": len(transactions) + 1, "account_id": account["id"],
                             "reservation_id": None if stay is None else stay["id"], "kind": kind, "points": points,
                             "description": text, "created_at": _second(when)})
    payments: list[dict[str, Any]] = []
    for stay in stays:
        cash = stay["total_cents"] - stay["points_redeemed"] * CENTS_PER_POINT
        if cash > 0:
            payments.append({"id": len(payments) + 1, "reservation_id": stay["id"], "kind": "charge", "amount_cents": cash,
                             "description": "Prepaid stay", "created_at": stay["created_at"]})
            if stay["status"] == "cancelled":
                payments.append({"id": len(payments) + 1, "reservation_id": stay["id"], "kind": "refund",
                                 "amount_cents": -cash, "description": "Free cancellation refund",
                                 "created_at": stay["cancelled_at"]})
    return sorted(accounts.values(), key=lambda a: a["id"]), transactions, payments


def populate(db: Session, world: World, rng: random.Random) -> None:
    """Fill an empty hotel platform database from the shared world and the airline's trips."""
    trips = airline_trips(world.seed)
    travellers = {row["person_id"] for row in seeded_rows("flights", world.seed, "SELECT person_id FROM passengers")}
    others = sorted(p.id for p in world.customers if p.id not in travellers)
    chosen = travellers | set(rng.sample(others, min(N_EXTRA_GUESTS, len(others))))
    people = [p for p in world.people if p.id in chosen]
    org_keys = sorted({p.organization_id for p in people})
    orgs = [o for o in world.organizations if o.id in org_keys]
    org_ids = {o.id: i for i, o in enumerate(orgs, start=1)}
    guests = [{"id": i, "person_id": p.id, "first_name": p.first_name, "last_name": p.last_name, "email": p.email,
               "phone": p.phone, "organization_id": org_ids[p.organization_id],
               "created_at": _second(world.now - timedelta(days=rng.randrange(800, 3000), minutes=rng.randrange(1440)))}
              for i, p in enumerate(people, start=1)]
    guest_ids = {g["person_id"]: g["id"] for g in guests}

    platform = Platform(world, rng)
    platform.add_properties()
    platform.add_inventory()
    platform.add_trip_stays(trips, guest_ids)
    platform.add_random_stays([g["id"] for g in guests])
    platform.fill_other_channels()

    stays = sorted(platform.stays, key=lambda s: (s["created_at"], s["guest_id"], s["check_in"]))
    for i, stay in enumerate(stays, start=1):
        stay["id"] = i
        stay["confirmation_number"] = confirmation_for(i)
    accounts, transactions, payments = _loyalty(platform, rng, [g["id"] for g in guests], stays, world.now)
    nights = [{"id": 0, "reservation_id": s["id"], "night": night, "price_cents": price}
              for s in stays for night, price in s["nights"]]
    for i, row in enumerate(nights, start=1):
        row["id"] = i

    db.execute(insert(Organization.__table__), [{"id": org_ids[o.id], "external_id": o.id, "name": o.name} for o in orgs])
    db.execute(insert(Guest.__table__), guests)
    db.execute(insert(Property.__table__), platform.properties)
    db.execute(insert(RoomType.__table__), [{k: v for k, v in r.items() if k != "base_usd"} for r in platform.room_types])
    db.execute(insert(RatePlan.__table__), platform.plans)
    raw = db.connection().connection.driver_connection
    raw.executemany("INSERT INTO room_nights (id, room_type_id, night, base_price_cents, rooms_total, rooms_sold) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    [(i, rid, night.isoformat(), *row) for i, ((rid, night), row) in enumerate(platform.nights.items(), start=1)])
    db.execute(insert(Reservation.__table__), [{k: v for k, v in s.items() if k != "nights"} for s in stays])
    raw.executemany("INSERT INTO reservation_nights (id, reservation_id, night, price_cents) VALUES (?, ?, ?, ?)",
                    [(n["id"], n["reservation_id"], n["night"].isoformat(), n["price_cents"]) for n in nights])
    db.execute(insert(Payment.__table__), payments)
    db.execute(insert(LoyaltyAccount.__table__), accounts)
    db.execute(insert(LoyaltyTransaction.__table__), transactions)
