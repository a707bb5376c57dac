"""Fixed catalogues of the hotel platform: destinations, property names, amenities, room
types, rate plans and the loyalty programme's tiers."""

from __future__ import annotations

from typing import NamedTuple

from mcpgym.servers.flights.data import AIRPORTS

PLATFORM_NAME = "StayWise"
"""The booking platform the agent works for."""

CURRENCY = "USD"
BOOKING_WINDOW_DAYS = 100
"""Nights on sale: from today up to this many days ahead."""
MAX_NIGHTS = 30
MAX_ROOMS = 4
CHECK_IN_HOUR = 15
"""Local check-in time at every property: free-cancellation deadlines count back from it."""


class Destination(NamedTuple):
    city: str
    country: str
    timezone: str
    hub: bool


def _destinations() -> tuple[Destination, ...]:
    """Every city an airport of the airline serves, once, in the airline's order."""
    hubs = {"New York", "Chicago", "Los Angeles", "London", "Dubai", "Singapore"}
    seen: dict[tuple[str, str], Destination] = {}
    for _code, _name, city, country, _lat, _lon, timezone in AIRPORTS:
        seen.setdefault((city, country), Destination(city, country, timezone, city in hubs))
    return tuple(seen.values())


DESTINATIONS: tuple[Destination, ...] = _destinations()

CITY_PRICE_LEVEL: dict[str, float] = {
    "New York": 1.6, "London": 1.5, "Paris": 1.4, "Zurich": 1.5, "Tokyo": 1.3, "Singapore": 1.3,
    "San Francisco": 1.4, "Dubai": 1.2, "Hong Kong": 1.3, "Sydney": 1.2, "Los Angeles": 1.3, "Boston": 1.3,
    "Honolulu": 1.4, "Amsterdam": 1.3, "Copenhagen": 1.3, "Washington": 1.2, "Miami": 1.2, "Seattle": 1.2,
    "Mexico City": 0.8, "Sao Paulo": 0.8, "Buenos Aires": 0.7, "Istanbul": 0.8, "Bangkok": 0.7, "Delhi": 0.7,
    "Mumbai": 0.7, "Nairobi": 0.7, "Johannesburg": 0.7, "Lisbon": 0.9, "Athens": 0.9,
}
"""How expensive a city's hotels are against the average (1.0 where not listed)."""

NAME_PREFIXES = (
    "Grand", "Park", "Royal", "Harbor", "Riverside", "Garden", "Plaza", "Central", "Old Town", "Skyline",
    "Lakeside", "Metropole", "Crown", "Meridian", "Station", "Avenue", "Atlas", "Bayview",
)
NAME_KINDS = ("Hotel", "Suites", "Inn", "Boutique Hotel", "Residences", "Hotel & Spa")
STREETS = ("Market Street", "King Street", "Harbour Road", "Station Square", "Park Avenue", "Main Street",
           "River Walk", "Cathedral Lane", "Garden Row", "Central Boulevard", "Museum Street", "Bridge Road")

AMENITIES = (
    "wifi", "breakfast_buffet", "restaurant", "bar", "gym", "pool", "spa", "parking", "airport_shuttle",
    "pet_friendly", "business_center", "ev_charging", "family_rooms", "room_service", "laundry",
)
BASIC_AMENITIES = ("wifi", "laundry")
LUXURY_AMENITIES = ("restaurant", "bar", "gym", "room_service", "spa", "pool")


class RoomKind(NamedTuple):
    name: str
    beds: str
    max_guests: int
    size_sqm: int
    price_factor: float


ROOM_KINDS: tuple[RoomKind, ...] = (
    RoomKind("Single Room", "1 single bed", 1, 14, 0.8),
    RoomKind("Standard Queen", "1 queen bed", 2, 20, 1.0),
    RoomKind("Twin Room", "2 single beds", 2, 22, 1.0),
    RoomKind("Deluxe King", "1 king bed", 2, 28, 1.25),
    RoomKind("Family Room", "1 queen bed and 2 single beds", 4, 34, 1.5),
    RoomKind("Junior Suite", "1 king bed and a sofa bed", 3, 42, 1.9),
    RoomKind("Executive Suite", "1 king bed, separate living room", 4, 60, 2.6),
)


class RatePlanKind(NamedTuple):
    code: str
    name: str
    refundable: bool
    breakfast: bool
    discount_pct: int


RATE_PLAN_KINDS: tuple[RatePlanKind, ...] = (
    RatePlanKind("FLEX", "Flexible", True, False, 0),
    RatePlanKind("FLEXBB", "Flexible with Breakfast", True, True, 0),
    RatePlanKind("NRF", "Non-refundable", False, False, 15),
    RatePlanKind("NRFBB", "Non-refundable with Breakfast", False, True, 15),
)
CANCELLATION_HOURS = (24, 48, 72)
"""The free-cancellation windows properties choose from: hours before local check-in time."""


class Tier(NamedTuple):
    name: str
    qualifying_nights: int
    """Nights in the trailing 12 months that reach the tier."""
    earn_multiplier_pct: int


TIERS: tuple[Tier, ...] = (
    Tier("member", 0, 100),
    Tier("silver", 10, 110),
    Tier("gold", 25, 125),
    Tier("platinum", 50, 150),
)
TIER_BY_NAME = {tier.name: tier for tier in TIERS}
POINTS_PER_USD = 5
"""Base points earned per whole US dollar paid in cash for a completed stay."""
CENTS_PER_POINT = 1
"""What one point is worth when redeemed against a booking."""
ENROLMENT_BONUS_POINTS = 500


def tier_for(nights: int) -> str:
    """The tier that `nights` qualifying nights reach."""
    return [tier.name for tier in TIERS if nights >= tier.qualifying_nights][-1]


def confirmation_for(reservation_id: int) -> str:
    """The 10-digit confirmation number of a reservation id (a bijection on ids below 9e9)."""
    return str(1_000_000_000 + (reservation_id * 2_654_435_761 + 417_212_909) % 9_000_000_000)


def loyalty_number_for(account_id: int) -> str:
    """The member number of a loyalty account."""
    return f"SW{(account_id * 7_919_111 + 30_011_977) % 90_000_000 + 10_000_000}"
