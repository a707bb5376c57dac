"""The hotel platform's schema: properties with room types and rate plans, nightly inventory
and prices, guests with loyalty accounts, and reservations with their nights and payments.

Linking rules with the shared world and the airline:
- guests are world people: every passenger of the airline (its employees and travelling
  customers) and some other customers; `guests.person_id` is the world id (`per_0042`), and
  name, email, phone and organisation are the world's, letter for letter;
- `organizations` holds the guests' world organisations (`external_id` `org_000`.., same name);
- properties stand in the cities the airline flies to, in the airport's time zone;
- some reservations are a traveller's hotel for a round trip flown with the airline: the lead
  passenger's stay in the destination city from the local arrival date of the outbound flight
  to the departure date of the first return flight.

Money is integer US cents; loyalty points are integers.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import JSON, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

RESERVATION_STATUSES = ("confirmed", "checked_in", "completed", "cancelled")
PAYMENT_KINDS = ("charge", "refund")
LOYALTY_KINDS = ("earn", "redeem", "reversal", "bonus")


class Base(DeclarativeBase):
    """Declarative base of the hotel platform's schema."""


class Organization(Base):
    __tablename__ = "organizations"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(120), unique=True)


class Guest(Base):
    __tablename__ = "guests"

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[str] = mapped_column(String(16), unique=True)
    first_name: Mapped[str] = mapped_column(String(60))
    last_name: Mapped[str] = mapped_column(String(60))
    email: Mapped[str] = mapped_column(String(160), unique=True)
    phone: Mapped[str] = mapped_column(String(32))
    organization_id: Mapped[int] = mapped_column(ForeignKey("organizations.id"), index=True)
    created_at: Mapped[datetime]


class LoyaltyAccount(Base):
    __tablename__ = "loyalty_accounts"

    id: Mapped[int] = mapped_column(primary_key=True)
    guest_id: Mapped[int] = mapped_column(ForeignKey("guests.id"), unique=True)
    number: Mapped[str] = mapped_column(String(12), unique=True)
    tier: Mapped[str] = mapped_column(String(16))
    points_balance: Mapped[int]
    lifetime_points: Mapped[int]
    qualifying_nights: Mapped[int]
    enrolled_at: Mapped[datetime]


class LoyaltyTransaction(Base):
    __tablename__ = "loyalty_transactions"

    id: Mapped[int] = mapped_column(primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("loyalty_accounts.id"), index=True)
    reservation_id: Mapped[int | None] = mapped_column(ForeignKey("reservations.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    points: Mapped[int]
    description: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime]


class Property(Base):
    __tablename__ = "properties"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(120), unique=True)
    city: Mapped[str] = mapped_column(String(80), index=True)
    country: Mapped[str] = mapped_column(String(80))
    address: Mapped[str] = mapped_column(String(160))
    timezone: Mapped[str] = mapped_column(String(40))
    stars: Mapped[int]
    review_score: Mapped[float]
    review_count: Mapped[int]
    amenities: Mapped[list[str]] = mapped_column(JSON)
    cancellation_hours: Mapped[int]
    """Hours before local check-in time until which its refundable rates cancel for free."""
    breakfast_cents: Mapped[int]
    """Breakfast per room per night on the rates that include it."""
    description: Mapped[str] = mapped_column(String(400))


class RoomType(Base):
    __tablename__ = "room_types"

    id: Mapped[int] = mapped_column(primary_key=True)
    property_id: Mapped[int] = mapped_column(ForeignKey("properties.id"), index=True)
    name: Mapped[str] = mapped_column(String(60))
    beds: Mapped[str] = mapped_column(String(60))
    max_guests: Mapped[int]
    size_sqm: Mapped[int]
    total_rooms: Mapped[int]


class RatePlan(Base):
    __tablename__ = "rate_plans"
    __table_args__ = (UniqueConstraint("room_type_id", "code"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    room_type_id: Mapped[int] = mapped_column(ForeignKey("room_types.id"), index=True)
    code: Mapped[str] = mapped_column(String(8))
    name: Mapped[str] = mapped_column(String(60))
    refundable: Mapped[bool]
    breakfast_included: Mapped[bool]
    discount_pct: Mapped[int]
    """Off the room's nightly base price."""


class RoomNight(Base):
    """One night of a room type on sale: its base price and rooms sold (on every channel)."""

    __tablename__ = "room_nights"
    __table_args__ = (UniqueConstraint("room_type_id", "night"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    room_type_id: Mapped[int] = mapped_column(ForeignKey("room_types.id"))
    night: Mapped[date]
    base_price_cents: Mapped[int]
    rooms_total: Mapped[int]
    rooms_sold: Mapped[int]


class Reservation(Base):
    __tablename__ = "reservations"
    __table_args__ = (Index("ix_reservations_property_check_in", "property_id", "check_in"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    confirmation_number: Mapped[str] = mapped_column(String(10), unique=True)
    guest_id: Mapped[int] = mapped_column(ForeignKey("guests.id"), index=True)
    property_id: Mapped[int] = mapped_column(ForeignKey("properties.id"))
    room_type_id: Mapped[int] = mapped_column(ForeignKey("room_types.id"))
    rate_plan_id: Mapped[int] = mapped_column(ForeignKey("rate_plans.id"))
    check_in: Mapped[date] = mapped_column(index=True)
    check_out: Mapped[date]
    rooms: Mapped[int]
    guests: Mapped[int]
    status: Mapped[str] = mapped_column(String(16), index=True)
    total_cents: Mapped[int]
    points_redeemed: Mapped[int]
    free_cancellation_until: Mapped[datetime | None]
    special_requests: Mapped[str] = mapped_column(String(500))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    cancelled_at: Mapped[datetime | None]


class ReservationNight(Base):
    """The price of one night of a reservation, per room, as booked."""

    __tablename__ = "reservation_nights"
    __table_args__ = (UniqueConstraint("reservation_id", "night"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    reservation_id: Mapped[int] = mapped_column(ForeignKey("reservations.id"))
    night: Mapped[date]
    price_cents: Mapped[int]


class Payment(Base):
    """A card charge (positive) or refund (negative) of a reservation."""

    __tablename__ = "payments"

    id: Mapped[int] = mapped_column(primary_key=True)
    reservation_id: Mapped[int] = mapped_column(ForeignKey("reservations.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    amount_cents: Mapped[int]
    description: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime]
