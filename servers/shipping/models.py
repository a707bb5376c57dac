"""The shipping schema: carriers and their services, warehouses, recipients, shipments with
parcels, rate quotes, labels, tracking events, delivery exceptions and scheduled pickups.

Linking rules with the shared world and the retail shop:
- recipients are the shop's customers (world people): `external_id` is the person id
  (`per_0042`) and name, email and organisation name are the world's;
- a shipment of a retail order carries the order number (`#1001`) as its `reference`, and the
  order's shipping address; its first carrier scan is at or after the order's `shipped_at`
  and its delivered event at the order's `delivered_at`.

Money is integer cents (USD). Weights are ounces, dimensions inches. Times are naive UTC.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

SHIPMENT_STATUSES = ("draft", "label_created", "in_transit", "out_for_delivery", "delivered", "returned", "cancelled")
"""draft: no label yet; label_created: a label, no carrier scan; then the carrier's statuses."""
SCANNED_STATUSES = ("in_transit", "out_for_delivery", "delivered", "returned")
"""Statuses of a shipment the carrier has scanned (picked up)."""
EVENT_STATUSES = ("label_created", "picked_up", "in_transit", "out_for_delivery", "delivered", "exception",
                  "returned")
EXCEPTION_KINDS = ("address_issue", "damaged", "weather_delay", "lost", "refused", "delayed")
LEVELS = ("ground", "two_day", "overnight", "international")
PICKUP_STATUSES = ("scheduled", "completed", "cancelled")

RATE_VALID_HOURS = 24
"""A rate quote can be bought for this long after it was quoted."""
PICKUP_HORIZON_DAYS = 30
"""Pickups are scheduled at most this many days ahead."""
MAX_PARCEL_OZ = 150 * 16
"""Heaviest parcel the carriers take (150 lb)."""
MAX_PARCEL_INCHES = 108


class Base(DeclarativeBase):
    """Declarative base of the shipping schema."""


class Carrier(Base):
    __tablename__ = "carriers"

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(60))
    account_number: Mapped[str] = mapped_column(String(32))
    tracking_url: Mapped[str] = mapped_column(String(120))


class Service(Base):
    """A carrier's service level, with its price list: base + per pound, scaled by zone."""

    __tablename__ = "services"

    id: Mapped[int] = mapped_column(primary_key=True)
    carrier_id: Mapped[int] = mapped_column(ForeignKey("carriers.id"), index=True)
    code: Mapped[str] = mapped_column(String(40), unique=True)
    name: Mapped[str] = mapped_column(String(80))
    level: Mapped[str] = mapped_column(String(16))
    transit_days: Mapped[int]
    """Business days from the first scan to delivery, as the carrier estimates."""
    base_cents: Mapped[int]
    per_lb_cents: Mapped[int]


class Warehouse(Base):
    """A fulfilment centre shipments leave from."""

    __tablename__ = "warehouses"

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(8), unique=True)
    name: Mapped[str] = mapped_column(String(80))
    line1: Mapped[str] = mapped_column(String(120))
    city: Mapped[str] = mapped_column(String(60))
    region: Mapped[str] = mapped_column(String(60))
    postal_code: Mapped[str] = mapped_column(String(16))
    country: Mapped[str] = mapped_column(String(2))
    timezone: Mapped[str] = mapped_column(String(40))


class Recipient(Base):
    """A shop customer shipments go to (a world person)."""

    __tablename__ = "recipients"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(120), index=True)
    email: Mapped[str] = mapped_column(String(160), unique=True)
    phone: Mapped[str] = mapped_column(String(40))
    organization_name: Mapped[str] = mapped_column(String(120))


class Shipment(Base):
    __tablename__ = "shipments"
    __table_args__ = (Index("ix_shipments_status_created", "status", "created_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    reference: Mapped[str] = mapped_column(String(40), index=True)
    """The retail order number (`#1001`) this shipment fulfils, an exchange's return number
    (`R1034`) or the shop's own number (`NW-5001`); unique among shipments not cancelled."""
    recipient_id: Mapped[int] = mapped_column(ForeignKey("recipients.id"), index=True)
    warehouse_id: Mapped[int] = mapped_column(ForeignKey("warehouses.id"))
    status: Mapped[str] = mapped_column(String(20))
    service_id: Mapped[int | None] = mapped_column(ForeignKey("services.id"))
    """The service of the active (or last) label; null while a draft."""
    ship_name: Mapped[str] = mapped_column(String(120))
    ship_line1: Mapped[str] = mapped_column(String(160))
    ship_city: Mapped[str] = mapped_column(String(80))
    ship_region: Mapped[str] = mapped_column(String(80))
    ship_postal_code: Mapped[str] = mapped_column(String(16))
    ship_country: Mapped[str] = mapped_column(String(2))
    created_at: Mapped[datetime] = mapped_column(index=True)
    first_scan_at: Mapped[datetime | None]
    """The carrier's first scan (pickup); from then on the label and address are fixed."""
    estimated_delivery: Mapped[date | None]
    delivered_at: Mapped[datetime | None]
    cancelled_at: Mapped[datetime | None]


class Parcel(Base):
    __tablename__ = "parcels"

    id: Mapped[int] = mapped_column(primary_key=True)
    shipment_id: Mapped[int] = mapped_column(ForeignKey("shipments.id"), index=True)
    weight_oz: Mapped[int]
    length_in: Mapped[int]
    width_in: Mapped[int]
    height_in: Mapped[int]
    description: Mapped[str] = mapped_column(String(200))


class Rate(Base):
    """A carrier's price quote for a shipment with one service; valid 24 hours."""

    __tablename__ = "rates"

    id: Mapped[int] = mapped_column(primary_key=True)
    shipment_id: Mapped[int] = mapped_column(ForeignKey("shipments.id"), index=True)
    service_id: Mapped[int] = mapped_column(ForeignKey("services.id"))
    amount_cents: Mapped[int]
    currency: Mapped[str] = mapped_column(String(3))
    estimated_days: Mapped[int]
    quoted_at: Mapped[datetime]
    expires_at: Mapped[datetime]


class Label(Base):
    __tablename__ = "labels"

    id: Mapped[int] = mapped_column(primary_key=True)
    shipment_id: Mapped[int] = mapped_column(ForeignKey("shipments.id"), index=True)
    rate_id: Mapped[int] = mapped_column(ForeignKey("rates.id"))
    service_id: Mapped[int] = mapped_column(ForeignKey("services.id"))
    tracking_number: Mapped[str] = mapped_column(String(40), unique=True)
    cost_cents: Mapped[int]
    status: Mapped[str] = mapped_column(String(16))
    """active or voided."""
    created_at: Mapped[datetime]
    voided_at: Mapped[datetime | None]
    refund_cents: Mapped[int] = mapped_column(default=0)


class TrackingEvent(Base):
    __tablename__ = "tracking_events"
    __table_args__ = (Index("ix_events_shipment_time", "shipment_id", "occurred_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    shipment_id: Mapped[int] = mapped_column(ForeignKey("shipments.id"))
    label_id: Mapped[int] = mapped_column(ForeignKey("labels.id"), index=True)
    status: Mapped[str] = mapped_column(String(20))
    description: Mapped[str] = mapped_column(String(200))
    location: Mapped[str] = mapped_column(String(120))
    occurred_at: Mapped[datetime]


class DeliveryException(Base):
    __tablename__ = "delivery_exceptions"

    id: Mapped[int] = mapped_column(primary_key=True)
    shipment_id: Mapped[int] = mapped_column(ForeignKey("shipments.id"), index=True)
    kind: Mapped[str] = mapped_column(String(20))
    note: Mapped[str] = mapped_column(String(2000))
    reported_by: Mapped[str] = mapped_column(String(16))
    """carrier or merchant."""
    status: Mapped[str] = mapped_column(String(16))
    """open or resolved."""
    reported_at: Mapped[datetime] = mapped_column(index=True)
    resolved_at: Mapped[datetime | None]
    resolution: Mapped[str] = mapped_column(String(2000), default="")


class Pickup(Base):
    __tablename__ = "pickups"

    id: Mapped[int] = mapped_column(primary_key=True)
    confirmation: Mapped[str] = mapped_column(String(20), unique=True)
    carrier_id: Mapped[int] = mapped_column(ForeignKey("carriers.id"))
    warehouse_id: Mapped[int] = mapped_column(ForeignKey("warehouses.id"))
    pickup_date: Mapped[date] = mapped_column(index=True)
    ready_time: Mapped[str] = mapped_column(String(5))
    close_time: Mapped[str] = mapped_column(String(5))
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime]
    cancelled_at: Mapped[datetime | None]


class PickupLabel(Base):
    __tablename__ = "pickup_labels"

    pickup_id: Mapped[int] = mapped_column(ForeignKey("pickups.id"), primary_key=True)
    label_id: Mapped[int] = mapped_column(ForeignKey("labels.id"), primary_key=True, index=True)
