"""The airline schema: airports, cities, routes, flights, fare rules, passengers, payment
methods, quotes, and reservations with their passengers, segments, seats and payments.

Linking rules with the shared world:
- passengers are world people who travel: every employee of the home organisation
  (Northwind Systems) and a few hundred customers of the other organisations;
- `passengers.person_id` is the person's world id (`per_0042`); first name, last name, email
  and phone are the world's, letter for letter;
- `organizations` holds the world organisations of the passengers (`external_id` `org_000`..,
  same name and domain), so a passenger's organisation name is the world's;
- payment methods, quotes and reservations belong to passengers; the lead passenger of a
  reservation is the one who pays for it.

Money is whole US dollars; payments are positive charges and negative refunds.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import JSON, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

FLIGHT_STATUSES = ("scheduled", "delayed", "departed", "landed", "cancelled")
RESERVATION_STATUSES = ("booked", "cancelled", "flown")
FARE_CLASSES = ("basic", "standard", "flex", "business")
FARE_CABINS = {"basic": "economy", "standard": "economy", "flex": "economy", "business": "business"}
CABINS = ("economy", "business")
PAYMENT_KINDS = ("credit_card", "gift_card", "travel_certificate")

PNR_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
MIN_CONNECTION_MINUTES = 60
MAX_CONNECTION_MINUTES = 20 * 60
QUOTE_VALID_MINUTES = 30
FREE_CANCELLATION_HOURS = 24
CREDIT_VALID_DAYS = 365


def pnr_for(reservation_id: int) -> str:
    """The 6-character record locator of a reservation id (a bijection on ids below 32**6)."""
    n = (reservation_id * 387_420_489 + 91_232_117) % len(PNR_ALPHABET) ** 6
    chars = []
    for _ in range(6):
        n, r = divmod(n, len(PNR_ALPHABET))
        chars.append(PNR_ALPHABET[r])
    return "".join(chars)


class Base(DeclarativeBase):
    """Declarative base of the airline schema."""


class Organization(Base):
    __tablename__ = "organizations"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(120), unique=True)
    domain: Mapped[str] = mapped_column(String(120))


class Airport(Base):
    __tablename__ = "airports"

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(3), unique=True)
    name: Mapped[str] = mapped_column(String(120))
    city: Mapped[str] = mapped_column(String(80), index=True)
    country: Mapped[str] = mapped_column(String(80))
    latitude: Mapped[float]
    longitude: Mapped[float]
    timezone: Mapped[str] = mapped_column(String(40))
    is_hub: Mapped[bool] = mapped_column(default=False)


class City(Base):
    __tablename__ = "cities"
    __table_args__ = (UniqueConstraint("name", "country"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(80), index=True)
    country: Mapped[str] = mapped_column(String(80))
    latitude: Mapped[float]
    longitude: Mapped[float]


class Route(Base):
    """A nonstop service flown under one flight number on some days of the week."""

    __tablename__ = "routes"
    __table_args__ = (UniqueConstraint("origin_id", "destination_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    flight_number: Mapped[str] = mapped_column(String(8), unique=True)
    origin_id: Mapped[int] = mapped_column(ForeignKey("airports.id"), index=True)
    destination_id: Mapped[int] = mapped_column(ForeignKey("airports.id"), index=True)
    distance_km: Mapped[int]
    duration_minutes: Mapped[int]
    aircraft: Mapped[str] = mapped_column(String(16))
    departure_time: Mapped[str] = mapped_column(String(5))
    operating_days: Mapped[str] = mapped_column(String(7))


class Flight(Base):
    """One departure of a route; times are UTC, `departure_date` is the origin's local date."""

    __tablename__ = "flights"
    __table_args__ = (
        UniqueConstraint("flight_number", "departure_date"),
        Index("ix_flights_route_departure", "route_id", "scheduled_departure"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    route_id: Mapped[int] = mapped_column(ForeignKey("routes.id"))
    flight_number: Mapped[str] = mapped_column(String(8))
    departure_date: Mapped[date] = mapped_column(index=True)
    scheduled_departure: Mapped[datetime] = mapped_column(index=True)
    scheduled_arrival: Mapped[datetime]
    aircraft: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), index=True)
    delay_minutes: Mapped[int] = mapped_column(default=0)
    fare_basic: Mapped[int]
    fare_standard: Mapped[int]
    fare_flex: Mapped[int]
    fare_business: Mapped[int]


class FareClass(Base):
    """The rules of one fare class."""

    __tablename__ = "fare_classes"

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(40))
    cabin: Mapped[str] = mapped_column(String(16))
    changeable: Mapped[bool]
    change_fee: Mapped[int]
    refund: Mapped[str] = mapped_column(String(24))
    cancellation_fee: Mapped[int]
    free_bags: Mapped[int]
    bag_fee: Mapped[int]
    seat_selection: Mapped[bool]


class Passenger(Base):
    __tablename__ = "passengers"

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[str] = mapped_column(String(16), unique=True)
    first_name: Mapped[str] = mapped_column(String(60))
    last_name: Mapped[str] = mapped_column(String(60))
    email: Mapped[str] = mapped_column(String(160), unique=True)
    phone: Mapped[str] = mapped_column(String(32))
    date_of_birth: Mapped[date]
    loyalty_number: Mapped[str] = mapped_column(String(12), unique=True)
    organization_id: Mapped[int] = mapped_column(ForeignKey("organizations.id"), index=True)
    home_airport_id: Mapped[int] = mapped_column(ForeignKey("airports.id"))
    member_since: Mapped[datetime]

    @property
    def name(self) -> str:
        return f"{self.first_name} {self.last_name}"


class PaymentMethod(Base):
    """A credit card (last 4 digits, expiry month), gift card or travel certificate (balances)."""

    __tablename__ = "payment_methods"

    id: Mapped[int] = mapped_column(primary_key=True)
    passenger_id: Mapped[int] = mapped_column(ForeignKey("passengers.id"), index=True)
    kind: Mapped[str] = mapped_column(String(24))
    brand: Mapped[str | None] = mapped_column(String(24))
    last4: Mapped[str] = mapped_column(String(4))
    expiry_month: Mapped[int | None]
    expiry_year: Mapped[int | None]
    balance: Mapped[int | None]
    expires_at: Mapped[datetime | None]
    issued_for_reservation_id: Mapped[int | None] = mapped_column(ForeignKey("reservations.id"))
    created_at: Mapped[datetime]


class Quote(Base):
    """A priced itinerary that can be booked once, until it expires."""

    __tablename__ = "quotes"

    id: Mapped[int] = mapped_column(primary_key=True)
    passenger_id: Mapped[int] = mapped_column(ForeignKey("passengers.id"), index=True)
    passenger_ids: Mapped[list[int]] = mapped_column(JSON)
    flight_ids: Mapped[list[int]] = mapped_column(JSON)
    fare_class: Mapped[str] = mapped_column(String(16))
    price_per_passenger: Mapped[int]
    total: Mapped[int]
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]
    reservation_id: Mapped[int | None] = mapped_column(ForeignKey("reservations.id"))


class Reservation(Base):
    __tablename__ = "reservations"

    id: Mapped[int] = mapped_column(primary_key=True)
    pnr: Mapped[str] = mapped_column(String(6), unique=True)
    passenger_id: Mapped[int] = mapped_column(ForeignKey("passengers.id"), index=True)
    fare_class: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), index=True)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    cancelled_at: Mapped[datetime | None]


class ReservationPassenger(Base):
    __tablename__ = "reservation_passengers"
    __table_args__ = (UniqueConstraint("reservation_id", "passenger_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    reservation_id: Mapped[int] = mapped_column(ForeignKey("reservations.id"), index=True)
    passenger_id: Mapped[int] = mapped_column(ForeignKey("passengers.id"), index=True)
    checked_bags: Mapped[int] = mapped_column(default=0)


class Segment(Base):
    """One flight of a reservation, with the per-passenger fare of that flight."""

    __tablename__ = "segments"
    __table_args__ = (UniqueConstraint("reservation_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    reservation_id: Mapped[int] = mapped_column(ForeignKey("reservations.id"), index=True)
    position: Mapped[int]
    flight_id: Mapped[int] = mapped_column(ForeignKey("flights.id"), index=True)
    fare: Mapped[int]


class SeatAssignment(Base):
    __tablename__ = "seat_assignments"
    __table_args__ = (
        UniqueConstraint("flight_id", "seat"),
        UniqueConstraint("segment_id", "passenger_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    segment_id: Mapped[int] = mapped_column(ForeignKey("segments.id"))
    passenger_id: Mapped[int] = mapped_column(ForeignKey("passengers.id"))
    flight_id: Mapped[int] = mapped_column(ForeignKey("flights.id"))
    seat: Mapped[str] = mapped_column(String(4))


class Payment(Base):
    __tablename__ = "payments"

    id: Mapped[int] = mapped_column(primary_key=True)
    reservation_id: Mapped[int] = mapped_column(ForeignKey("reservations.id"), index=True)
    payment_method_id: Mapped[int] = mapped_column(ForeignKey("payment_methods.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    amount: Mapped[int]
    description: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime]
