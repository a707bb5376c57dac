"""The shipping tools: find and track shipments, compare carrier rates, buy and void labels,
correct addresses, handle delivery exceptions, schedule pickups and report on carriers and
spend, within the account's policy."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import Body, DateTimeArg, Page, PerPage, Timestamp
from mcpgym.servers.kernel.lookup import missing, row_or_raise
from mcpgym.servers.kernel.query import search_words
from mcpgym.servers.kernel.sql import Row, bind, contains_pattern
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry
from mcpgym.servers.shipping.data import (
    WAREHOUSES,
    pickup_confirmation,
    price_cents,
    transit_days,
    warehouse_for,
    zone,
)
from mcpgym.servers.shipping.data import tracking_number as label_number
from mcpgym.servers.shipping.models import (
    MAX_PARCEL_INCHES,
    MAX_PARCEL_OZ,
    PICKUP_HORIZON_DAYS,
    RATE_VALID_HOURS,
    DeliveryException,
    Label,
    Parcel,
    Pickup,
    Rate,
    Recipient,
    Shipment,
    TrackingEvent,
)

tools = ToolRegistry()

CarrierCode = Literal["ups", "fedex", "usps", "dhl"]
WarehouseCode = Literal["EWR1", "RNO1"]
ShipmentStatus = Literal["draft", "label_created", "in_transit", "out_for_delivery", "delivered", "cancelled"]
ExceptionKind = Literal["address_issue", "damaged", "weather_delay", "lost", "refused", "delayed"]

ShipmentId = Annotated[int, Field(description="The shipment's id (find_shipment_by_reference or search_shipments finds it).")]
TrackingNumber = Annotated[str, Field(min_length=4, max_length=40, description="The label's tracking number, as the carrier prints it.")]
Reference = Annotated[str, Field(min_length=1, max_length=40, description="The shipment's reference: a shop order number such as '#1001', an exchange's return number (R1034) or NW-5001.")]
Region = Annotated[str, Field(pattern=r"^[A-Z]{2}$", description="The US state, as its two-letter code (CA).")]
PostalCode = Annotated[str, Field(pattern=r"^\d{5}$", description="The 5-digit US ZIP code.")]
ClockTime = Annotated[str, Field(pattern=r"^([01]\d|2[0-3]):[0-5]\d$", description="A local time at the warehouse, HH:MM (24-hour).")]

SHIPMENT_HINT = "Use find_shipment_by_reference with the order number, or search_shipments."
LABEL_HINT = "Use get_shipment or search_shipments to see a shipment's tracking number."
RATE_HINT = "Use get_rates to see a shipment's quotes, or refresh_rates to quote again."
EXCEPTION_HINT = "Use list_exceptions or get_shipment to see a shipment's exceptions."
PICKUP_HINT = "Use list_pickups to find a pickup by its confirmation number, carrier or date."
RECIPIENT_HINT = "Recipients are the shop's customers; search_shipments finds shipments by name or email."
COUNTRY = "United States"


# ---------------------------------------------------------------- result models


class EventOut(BaseModel):
    status: str = Field(description="label_created, picked_up, in_transit, out_for_delivery, delivered or exception.")
    description: str
    location: str
    occurred_at: Timestamp


class ShipmentSummary(BaseModel):
    id: int
    reference: str = Field(description="The order number (#1001), an exchange's return number (R1034) or NW-....")
    status: str = Field(description="draft (no label), label_created (not scanned yet), in_transit, out_for_delivery, delivered or cancelled.")
    recipient_name: str
    recipient_email: str
    warehouse_code: str = Field(description="The warehouse it ships from: EWR1 (Newark) or RNO1 (Reno).")
    carrier: str | None = Field(description="The carrier of its current label (ups, fedex, usps, dhl); null without one.")
    service_name: str | None
    tracking_number: str | None = Field(description="The current label's tracking number (the active one, else the last voided one).")
    ship_city: str
    ship_region: str
    created_at: Timestamp
    first_scan_at: Timestamp | None = Field(description="The carrier's first scan (pickup); null until then.")
    estimated_delivery: date | None = Field(description="The carrier's delivery estimate, set at the first scan.")
    delivered_at: Timestamp | None
    is_late: bool = Field(description="Delivered after the estimate, or still in transit past it.")
    open_exceptions: int
    last_event: EventOut | None = Field(description="The latest tracking event.")


class ShipmentPage(BaseModel):
    shipments: list[ShipmentSummary]
    total: int
    page: int
    next_page: int | None


class ParcelOut(BaseModel):
    weight_oz: int
    length_in: int
    width_in: int
    height_in: int
    description: str


class LabelOut(BaseModel):
    id: int
    shipment_id: int
    tracking_number: str
    carrier: str
    carrier_name: str
    service_name: str
    cost_cents: int
    status: str = Field(description="active or voided.")
    created_at: Timestamp
    voided_at: Timestamp | None
    refund_cents: int = Field(description="Refunded by the carrier when voided.")
    tracking_url: str


class ExceptionOut(BaseModel):
    id: int
    shipment_id: int
    reference: str
    kind: str = Field(description="address_issue, damaged, weather_delay, lost, refused or delayed.")
    note: str
    reported_by: str = Field(description="carrier or merchant.")
    status: str = Field(description="open or resolved.")
    reported_at: Timestamp
    resolved_at: Timestamp | None
    resolution: str


class ShipmentDetail(ShipmentSummary):
    ship_name: str
    ship_line1: str
    ship_postal_code: str
    ship_country: str
    warehouse_name: str
    cancelled_at: Timestamp | None
    parcels: list[ParcelOut]
    total_weight_oz: int
    labels: list[LabelOut] = Field(description="Every label bought for it, newest first.")
    exceptions: list[ExceptionOut] = Field(description="Delivery exceptions, newest first.")


class RecipientOut(BaseModel):
    id: int
    name: str
    email: str
    phone: str
    organization_name: str = Field(description="The company the customer works for.")
    shipments: int = Field(description="Shipments sent to them, cancelled ones included.")
    last_shipment_at: Timestamp | None


class ServiceOut(BaseModel):
    code: str
    name: str
    level: str = Field(description="ground, two_day or overnight.")
    transit_days: int = Field(description="Business days in transit for a nearby zone; ground takes longer far away.")


class CarrierOut(BaseModel):
    id: int
    code: str
    name: str
    account_number: str
    services: list[ServiceOut]


class CarrierList(BaseModel):
    carriers: list[CarrierOut]


class WarehouseOut(BaseModel):
    id: int
    code: str
    name: str
    line1: str
    city: str
    region: str
    postal_code: str
    timezone: str
    awaiting_pickup: int = Field(description="Active labels not yet scanned, and not on a scheduled pickup.")


class WarehouseList(BaseModel):
    warehouses: list[WarehouseOut]


class RateOut(BaseModel):
    id: int
    carrier: str
    carrier_name: str
    service_code: str
    service_name: str
    level: str
    amount_cents: int
    currency: str
    estimated_days: int = Field(description="Business days in transit after pickup.")
    quoted_at: Timestamp
    expires_at: Timestamp
    is_expired: bool


class RateList(BaseModel):
    shipment_id: int
    reference: str
    rates: list[RateOut]


class Tracking(BaseModel):
    tracking_number: str
    carrier: str
    carrier_name: str
    service_name: str
    label_status: str = Field(description="active or voided.")
    shipment_id: int
    reference: str
    status: str = Field(description="The shipment's status.")
    ship_city: str
    ship_region: str
    first_scan_at: Timestamp | None
    estimated_delivery: date | None
    delivered_at: Timestamp | None
    is_late: bool
    last_event: EventOut | None
    events: list[EventOut] = Field(description="Every event of this label, oldest first.")


class ExceptionPage(BaseModel):
    exceptions: list[ExceptionOut]
    total: int
    page: int
    next_page: int | None


class PickupSummary(BaseModel):
    id: int
    confirmation: str
    carrier: str
    warehouse_code: str
    pickup_date: date
    ready_time: str = Field(description="Local time at the warehouse.")
    close_time: str
    status: str = Field(description="scheduled, completed or cancelled.")
    parcels: int = Field(description="Labels on the pickup.")
    created_at: Timestamp
    cancelled_at: Timestamp | None


class PickupPage(BaseModel):
    pickups: list[PickupSummary]
    total: int
    page: int
    next_page: int | None


class PickupParcel(BaseModel):
    tracking_number: str
    shipment_id: int
    reference: str
    status: str = Field(description="The shipment's status.")


class PickupDetail(PickupSummary):
    labels: list[PickupParcel]


class CarrierPerformance(BaseModel):
    carrier: str
    carrier_name: str
    delivered: int
    on_time: int
    late: int
    on_time_rate: float | None = Field(description="Percent delivered by the estimate, one decimal; null with no deliveries.")
    average_transit_days: float | None = Field(description="Mean days from first scan to delivery, one decimal.")
    exceptions: int = Field(description="Exceptions reported in the period.")


class PerformanceReport(BaseModel):
    start: Timestamp
    end: Timestamp
    carriers: list[CarrierPerformance] = Field(description="Every carrier, in the account's order (UPS, FedEx, USPS, DHL).")
    delivered: int
    late: int


class SpendGroup(BaseModel):
    key: str = Field(description="The carrier code, service name, warehouse code or month (YYYY-MM).")
    labels: int
    spend_cents: int = Field(description="Cost of the labels bought.")
    refunded_cents: int = Field(description="Refunds of the ones voided.")
    net_cents: int


class SpendReport(BaseModel):
    start: Timestamp
    end: Timestamp
    group_by: str
    groups: list[SpendGroup] = Field(description="Largest net spend first (ties by key); months in order.")
    labels: int
    net_cents: int


class VoidedLabel(BaseModel):
    label: LabelOut
    shipment_status: str


class CreatedShipment(BaseModel):
    shipment: ShipmentDetail
    rates: list[RateOut] = Field(description="Fresh quotes, valid 24 hours, cheapest first.")


# ---------------------------------------------------------------- reading shipments

LATE = ("(CASE WHEN shipments.estimated_delivery IS NULL THEN 0 "
        "WHEN shipments.delivered_at IS NOT NULL THEN substr(shipments.delivered_at, 1, 10) > shipments.estimated_delivery "
        "WHEN shipments.status IN ('in_transit', 'out_for_delivery') THEN shipments.estimated_delivery < ? ELSE 0 END)")
"""Whether a shipment is late (one parameter: today, YYYY-MM-DD)."""

SHIPMENT_COLUMNS = (
    "shipments.id, shipments.reference, shipments.status, recipients.name AS recipient_name, "
    "recipients.email AS recipient_email, warehouses.code AS warehouse_code, warehouses.name AS warehouse_name, "
    "carriers.code AS carrier, services.name AS service_name, labels.tracking_number, shipments.ship_name, "
    "shipments.ship_line1, shipments.ship_city, shipments.ship_region, shipments.ship_postal_code, "
    "shipments.ship_country, shipments.created_at, shipments.first_scan_at, shipments.estimated_delivery, "
    "shipments.delivered_at, shipments.cancelled_at, "
    f"{LATE} AS is_late, "
    "(SELECT count(*) FROM delivery_exceptions AS d WHERE d.shipment_id = shipments.id AND d.status = 'open') "
    "AS open_exceptions, last.status AS event_status, last.description AS event_description, "
    "last.location AS event_location, last.occurred_at"
)
SHIPMENT_FROM = (
    "FROM shipments JOIN recipients ON recipients.id = shipments.recipient_id "
    "JOIN warehouses ON warehouses.id = shipments.warehouse_id "
    "LEFT JOIN labels ON labels.id = (SELECT l.id FROM labels AS l WHERE l.shipment_id = shipments.id "
    "ORDER BY l.status = 'active' DESC, l.id DESC LIMIT 1) "
    "LEFT JOIN services ON services.id = labels.service_id LEFT JOIN carriers ON carriers.id = services.carrier_id "
    "LEFT JOIN tracking_events AS last ON last.id = (SELECT e.id FROM tracking_events AS e "
    "WHERE e.shipment_id = shipments.id ORDER BY e.occurred_at DESC, e.id DESC LIMIT 1)"
)
MODELS = (Shipment, TrackingEvent)

LABEL_COLUMNS = (
    "labels.id, labels.shipment_id, labels.tracking_number, carriers.code AS carrier, carriers.name AS carrier_name, "
    "services.name AS service_name, labels.cost_cents, labels.status, labels.created_at, labels.voided_at, "
    "labels.refund_cents, carriers.tracking_url || labels.tracking_number AS tracking_url"
)
LABEL_FROM = ("FROM labels JOIN services ON services.id = labels.service_id "
              "JOIN carriers ON carriers.id = services.carrier_id")

RATE_COLUMNS = (
    "rates.id, carriers.code AS carrier, carriers.name AS carrier_name, services.code AS service_code, "
    "services.name AS service_name, services.level, rates.amount_cents, rates.currency, rates.estimated_days, "
    "rates.quoted_at, rates.expires_at, rates.expires_at <= ? AS is_expired"
)
RATE_FROM = "FROM rates JOIN services ON services.id = rates.service_id JOIN carriers ON carriers.id = services.carrier_id"

EXCEPTION_COLUMNS = (
    "delivery_exceptions.id, delivery_exceptions.shipment_id, shipments.reference, delivery_exceptions.kind, "
    "delivery_exceptions.note, delivery_exceptions.reported_by, delivery_exceptions.status, "
    "delivery_exceptions.reported_at, delivery_exceptions.resolved_at, delivery_exceptions.resolution"
)
EXCEPTION_FROM = "FROM delivery_exceptions JOIN shipments ON shipments.id = delivery_exceptions.shipment_id"

PICKUP_COLUMNS = (
    "pickups.id, pickups.confirmation, carriers.code AS carrier, warehouses.code AS warehouse_code, "
    "pickups.pickup_date, pickups.ready_time, pickups.close_time, pickups.status, pickups.created_at, "
    "pickups.cancelled_at, (SELECT count(*) FROM pickup_labels AS pl WHERE pl.pickup_id = pickups.id) AS parcels"
)
PICKUP_FROM = ("FROM pickups JOIN carriers ON carriers.id = pickups.carrier_id "
               "JOIN warehouses ON warehouses.id = pickups.warehouse_id")


def _today(ctx: ToolContext) -> str:
    return ctx.now.date().isoformat()


def _summary_fields(row: Row) -> Row:
    """A shipment row with its last event as a nested object and its flags as booleans."""
    event = None
    if row["event_status"] is not None:
        event = EventOut(status=row["event_status"], description=row["event_description"],
                         location=row["event_location"], occurred_at=row["occurred_at"])
    return {**row, "is_late": bool(row["is_late"]), "last_event": event}


def _shipment_row(ctx: ToolContext, shipment_id: int) -> Row:
    row = ctx.sql.one(f"SELECT {SHIPMENT_COLUMNS} {SHIPMENT_FROM} WHERE shipments.id = ?",
                      [_today(ctx), shipment_id], MODELS)
    if row is None:
        raise missing("shipment", shipment_id, SHIPMENT_HINT)
    return row


def _labels(ctx: ToolContext, shipment_id: int) -> list[LabelOut]:
    rows = ctx.sql.all(f"SELECT {LABEL_COLUMNS} {LABEL_FROM} WHERE labels.shipment_id = ? ORDER BY labels.id DESC",
                       [shipment_id], Label)
    return [LabelOut(**row) for row in rows]


def _exceptions(ctx: ToolContext, shipment_id: int) -> list[ExceptionOut]:
    rows = ctx.sql.all(f"SELECT {EXCEPTION_COLUMNS} {EXCEPTION_FROM} WHERE delivery_exceptions.shipment_id = ? "
                       "ORDER BY delivery_exceptions.reported_at DESC, delivery_exceptions.id DESC",
                       [shipment_id], DeliveryException)
    return [ExceptionOut(**row) for row in rows]


def _detail(ctx: ToolContext, row: Row) -> ShipmentDetail:
    parcels = ctx.sql.all("SELECT weight_oz, length_in, width_in, height_in, description FROM parcels "
                          "WHERE shipment_id = ? ORDER BY id", [row["id"]])
    return ShipmentDetail(
        **_summary_fields(row), parcels=[ParcelOut(**p) for p in parcels],
        total_weight_oz=sum(p["weight_oz"] for p in parcels), labels=_labels(ctx, row["id"]),
        exceptions=_exceptions(ctx, row["id"]))


def _shipment_detail(ctx: ToolContext, shipment_id: int) -> ShipmentDetail:
    return _detail(ctx, _shipment_row(ctx, shipment_id))


def _check_range(after: Any, before: Any, names: tuple[str, str]) -> None:
    if after is not None and before is not None and after >= before:
        raise InvalidArgumentError(f"{names[0]} must be earlier than {names[1]}")


SORTS = {"created_at": "shipments.created_at", "estimated_delivery": "shipments.estimated_delivery",
         "delivered_at": "shipments.delivered_at", "first_scan_at": "shipments.first_scan_at"}


@tools.tool(title="Search shipments", examples=[
    {"query": "#1862"}, {"status": ["in_transit", "out_for_delivery"], "late_only": True},
    {"carrier": "ups", "created_after": "2025-10-01T00:00:00Z", "created_before": "2025-11-01T00:00:00Z", "per_page": 5},
    {"with_open_exception": True, "sort_by": "estimated_delivery", "sort_order": "asc"}])
def search_shipments(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Words to find in the reference, tracking number, recipient's name or email, or the destination city (case-insensitive).")] = None,
    status: Annotated[list[ShipmentStatus] | None, Field(description="Only shipments in these statuses.")] = None,
    carrier: Annotated[CarrierCode | None, Field(description="Only shipments whose current label is with this carrier.")] = None,
    warehouse: Annotated[WarehouseCode | None, Field(description="Only shipments leaving this warehouse.")] = None,
    recipient_email: Annotated[str | None, Field(description="Only shipments to the customer with this email (exact, case-insensitive).")] = None,
    created_after: Annotated[DateTimeArg | None, Field(description="Only shipments created at or after this time.")] = None,
    created_before: Annotated[DateTimeArg | None, Field(description="Only shipments created strictly before this time.")] = None,
    late_only: Annotated[bool, Field(description="Only late shipments: delivered after the estimate, or in transit past it.")] = False,
    with_open_exception: Annotated[bool, Field(description="Only shipments with an unresolved delivery exception.")] = False,
    sort_by: Annotated[Literal["created_at", "estimated_delivery", "delivered_at", "first_scan_at"], Field(description="Sort key (missing values sort last).")] = "created_at",
    sort_order: Annotated[Literal["asc", "desc"], Field(description="Sort direction.")] = "desc",
    page: Page = 1,
    per_page: PerPage = 20,
) -> ShipmentPage:
    """Find shipments by reference, tracking number, customer, destination, status, carrier,
    warehouse or creation time; `late_only` and `with_open_exception` find parcels that need
    attention. Each result has its current label, delivery estimate and latest tracking event."""
    _check_range(created_after, created_before, ("created_after", "created_before"))
    clauses, params = ["1"], [_today(ctx)]
    for word in search_words(query):
        clauses.append("(lower(shipments.reference) LIKE ? ESCAPE '/' OR lower(recipients.name) LIKE ? ESCAPE '/' "
                       "OR lower(recipients.email) LIKE ? ESCAPE '/' OR lower(shipments.ship_city) LIKE ? ESCAPE '/' "
                       "OR EXISTS (SELECT 1 FROM labels AS t WHERE t.shipment_id = shipments.id "
                       "AND lower(t.tracking_number) LIKE ? ESCAPE '/'))")
        params += [contains_pattern(word)] * 5
    if status:
        clauses.append("shipments.status IN (SELECT value FROM json_each(?))")
        params.append(list(status))
    for condition, value in (("carriers.code = ?", carrier), ("warehouses.code = ?", warehouse),
                             ("lower(recipients.email) = ?", recipient_email and recipient_email.lower()),
                             ("shipments.created_at >= ?", created_after), ("shipments.created_at < ?", created_before)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    if late_only:
        clauses.append(LATE)
        params.append(_today(ctx))
    if with_open_exception:
        clauses.append("EXISTS (SELECT 1 FROM delivery_exceptions AS x WHERE x.shipment_id = shipments.id "
                       "AND x.status = 'open')")
    column, direction = SORTS[sort_by], "ASC" if sort_order == "asc" else "DESC"
    found = ctx.sql.page(SHIPMENT_COLUMNS, f"{SHIPMENT_FROM} WHERE {' AND '.join(clauses)} "
                         f"ORDER BY {column} IS NULL, {column} {direction}, shipments.id {direction}",
                         params, page, per_page, MODELS)
    return ShipmentPage(shipments=[ShipmentSummary(**_summary_fields(row)) for row in found.rows],
                        total=found.total, page=page, next_page=found.next_page)


@tools.tool(title="Get shipment", examples=[{"shipment_id": 1}, {"shipment_id": 82}])
def get_shipment(ctx: ToolContext, shipment_id: ShipmentId) -> ShipmentDetail:
    """A shipment in full: address, parcels, every label (tracking number, cost, refund),
    delivery estimate, latest tracking event and delivery exceptions."""
    return _shipment_detail(ctx, shipment_id)


@tools.tool(title="Find shipment by reference", examples=[{"reference": "#1862"}, {"reference": "NW-5001"}])
def find_shipment_by_reference(ctx: ToolContext, reference: Reference) -> ShipmentDetail:
    """The shipment of a shop order, by the order number the customer quotes ('#1001' or
    '1001'), or by an exchange's return number (R1034) or the shop's own number (NW-5001).
    A reference cancelled and shipped again gives the live shipment."""
    text = reference.strip()
    candidates = [text] + ([f"#{text}"] if text.isdigit() else [])
    row = ctx.sql.one(f"SELECT {SHIPMENT_COLUMNS} {SHIPMENT_FROM} WHERE upper(shipments.reference) IN "
                      "(SELECT upper(value) FROM json_each(?)) ORDER BY shipments.status = 'cancelled', shipments.id DESC "
                      "LIMIT 1", [_today(ctx), candidates], MODELS)
    if row is None:
        raise NotFoundError(f"no shipment with reference {text!r}. Orders that are not paid yet have none; "
                            "search_shipments finds shipments by customer.")
    return _detail(ctx, row)


@tools.tool(title="Track package", examples=[{"tracking_number": "730353170273"}])
def track_package(ctx: ToolContext, tracking_number: TrackingNumber) -> Tracking:
    """Tracking of one label by its tracking number: every carrier event oldest first, the
    latest event, the estimate, and whether the parcel is late."""
    label = ctx.sql.one(
        f"SELECT {LABEL_COLUMNS} {LABEL_FROM} WHERE upper(labels.tracking_number) = upper(?)",
        [tracking_number.strip()], Label)
    if label is None:
        raise NotFoundError(f"no label with tracking number {tracking_number!r}. {LABEL_HINT}")
    shipment = _shipment_row(ctx, label["shipment_id"])
    events = ctx.sql.all("SELECT status, description, location, occurred_at FROM tracking_events WHERE label_id = ? "
                         "ORDER BY occurred_at, id", [label["id"]], TrackingEvent)
    outs = [EventOut(**event) for event in events]
    return Tracking(
        tracking_number=label["tracking_number"], carrier=label["carrier"], carrier_name=label["carrier_name"],
        service_name=label["service_name"], label_status=label["status"], shipment_id=shipment["id"],
        reference=shipment["reference"], status=shipment["status"], ship_city=shipment["ship_city"],
        ship_region=shipment["ship_region"], first_scan_at=shipment["first_scan_at"],
        estimated_delivery=shipment["estimated_delivery"], delivered_at=shipment["delivered_at"],
        is_late=bool(shipment["is_late"]), last_event=outs[-1] if outs else None, events=outs)


@tools.tool(title="Get recipient by email", examples=[{"email": "lisa.gomez@johnsoncolemanandg.com"}])
def get_recipient_by_email(
    ctx: ToolContext, email: Annotated[str, Field(min_length=3, description="The customer's email address.")],
) -> RecipientOut:
    """A customer the shop ships to, by email: name, phone, company and how many shipments
    they have had (search_shipments with recipient_email lists them)."""
    row = ctx.sql.one(
        "SELECT recipients.*, (SELECT count(*) FROM shipments WHERE shipments.recipient_id = recipients.id) AS shipments, "
        "(SELECT max(created_at) FROM shipments WHERE shipments.recipient_id = recipients.id) AS created_at "
        "FROM recipients WHERE lower(email) = lower(?)", [email.strip()], (Recipient, Shipment))
    if row is None:
        raise NotFoundError(f"no recipient with email {email!r}. {RECIPIENT_HINT}")
    return RecipientOut(**row, last_shipment_at=row["created_at"])


@tools.tool(title="List carriers and services", examples=[{}])
def list_carriers(ctx: ToolContext) -> CarrierList:
    """The carriers on the account (UPS, FedEx, USPS, DHL eCommerce) with their service
    levels (ground, two_day, overnight) and nominal transit days."""
    rows = ctx.sql.all("SELECT carriers.id, carriers.code AS carrier_code, carriers.name AS carrier_name, "
                       "carriers.account_number, services.code, services.name, services.level, services.transit_days "
                       "FROM carriers JOIN services ON services.carrier_id = carriers.id ORDER BY carriers.id, services.id")
    carriers: dict[int, CarrierOut] = {}
    for row in rows:
        carrier = carriers.setdefault(row["id"], CarrierOut(id=row["id"], code=row["carrier_code"], name=row["carrier_name"],
                                                            account_number=row["account_number"], services=[]))
        carrier.services.append(ServiceOut(**row))
    return CarrierList(carriers=list(carriers.values()))


AWAITING = ("EXISTS (SELECT 1 FROM shipments AS s WHERE s.id = labels.shipment_id AND s.first_scan_at IS NULL "
            "AND s.status = 'label_created') AND labels.status = 'active' AND NOT EXISTS (SELECT 1 FROM pickup_labels "
            "JOIN pickups ON pickups.id = pickup_labels.pickup_id WHERE pickup_labels.label_id = labels.id "
            "AND pickups.status = 'scheduled')")
"""A label waiting for the carrier and not on a scheduled pickup."""


@tools.tool(title="List warehouses", examples=[{}])
def list_warehouses(ctx: ToolContext) -> WarehouseList:
    """The warehouses shipments leave from, with their addresses and how many labelled parcels
    wait there without a scheduled pickup."""
    rows = ctx.sql.all(
        "SELECT warehouses.*, (SELECT count(*) FROM labels JOIN shipments ON shipments.id = labels.shipment_id "
        f"WHERE shipments.warehouse_id = warehouses.id AND {AWAITING}) AS awaiting_pickup FROM warehouses ORDER BY id")
    return WarehouseList(warehouses=[WarehouseOut(**row) for row in rows])


def _rate_outs(ctx: ToolContext, where: str, params: list[Any], order: str) -> list[RateOut]:
    rows = ctx.sql.all(f"SELECT {RATE_COLUMNS} {RATE_FROM} WHERE {where} ORDER BY {order}",
                       [bind(ctx.now), *params], Rate)
    return [RateOut(**{**row, "is_expired": bool(row["is_expired"])}) for row in rows]


RATE_ORDERS = {"amount": "rates.amount_cents, rates.estimated_days, rates.id",
               "estimated_days": "rates.estimated_days, rates.amount_cents, rates.id"}


@tools.tool(title="Get rates", examples=[{"shipment_id": 1, "include_expired": True}, {"shipment_id": 82, "sort_by": "estimated_days"}])
def get_rates(
    ctx: ToolContext,
    shipment_id: ShipmentId,
    include_expired: Annotated[bool, Field(description="Also list quotes past their 24 hours (they can no longer be bought).")] = False,
    level: Annotated[Literal["ground", "two_day", "overnight"] | None, Field(description="Only this service level.")] = None,
    sort_by: Annotated[Literal["amount", "estimated_days"], Field(description="Cheapest first, or fastest first (then cheapest).")] = "amount",
) -> RateList:
    """A shipment's rate quotes by carrier and service: price, business days in transit and
    when the quote expires. Buy one with buy_label; refresh_rates quotes again."""
    shipment = row_or_raise(ctx, Shipment, shipment_id, "shipment", SHIPMENT_HINT)
    where, params = "rates.shipment_id = ?", [shipment_id]
    if not include_expired:
        where += " AND rates.expires_at > ?"
        params.append(ctx.now)
    if level is not None:
        where += " AND services.level = ?"
        params.append(level)
    return RateList(shipment_id=shipment_id, reference=shipment["reference"],
                    rates=_rate_outs(ctx, where, params, RATE_ORDERS[sort_by]))


@tools.tool(title="List delivery exceptions", examples=[{"status": "open"}, {"kind": "weather_delay", "per_page": 5},
                                                         {"carrier": "fedex", "reported_after": "2025-01-01T00:00:00Z"}])
def list_exceptions(
    ctx: ToolContext,
    status: Annotated[Literal["open", "resolved"] | None, Field(description="Open or resolved exceptions; both by default.")] = None,
    kind: Annotated[ExceptionKind | None, Field(description="Only exceptions of this kind.")] = None,
    carrier: Annotated[CarrierCode | None, Field(description="Only exceptions on parcels with this carrier.")] = None,
    reported_after: Annotated[DateTimeArg | None, Field(description="Only exceptions reported at or after this time.")] = None,
    reported_before: Annotated[DateTimeArg | None, Field(description="Only exceptions reported strictly before this time.")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> ExceptionPage:
    """Delivery exceptions (address problems, damage, weather, delays, lost or refused
    parcels), newest first, with the shipment reference each is about."""
    _check_range(reported_after, reported_before, ("reported_after", "reported_before"))
    clauses, params = ["1"], []
    for condition, value in (("delivery_exceptions.status = ?", status), ("delivery_exceptions.kind = ?", kind),
                             ("delivery_exceptions.reported_at >= ?", reported_after),
                             ("delivery_exceptions.reported_at < ?", reported_before)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    if carrier is not None:
        clauses.append("shipments.service_id IN (SELECT services.id FROM services JOIN carriers "
                       "ON carriers.id = services.carrier_id WHERE carriers.code = ?)")
        params.append(carrier)
    found = ctx.sql.page(EXCEPTION_COLUMNS, f"{EXCEPTION_FROM} WHERE {' AND '.join(clauses)} "
                         "ORDER BY delivery_exceptions.reported_at DESC, delivery_exceptions.id DESC",
                         params, page, per_page, DeliveryException)
    return ExceptionPage(exceptions=[ExceptionOut(**row) for row in found.rows], total=found.total, page=page,
                         next_page=found.next_page)


@tools.tool(title="List pickups", examples=[{"status": "scheduled"}, {"carrier": "ups", "warehouse": "EWR1", "per_page": 5},
                                             {"date_from": "2025-10-01", "date_to": "2025-10-31"}])
def list_pickups(
    ctx: ToolContext,
    status: Annotated[Literal["scheduled", "completed", "cancelled"] | None, Field(description="Only pickups in this status.")] = None,
    carrier: Annotated[CarrierCode | None, Field(description="Only this carrier's pickups.")] = None,
    warehouse: Annotated[WarehouseCode | None, Field(description="Only pickups at this warehouse.")] = None,
    confirmation: Annotated[str | None, Field(description="The carrier's confirmation number (exact, case-insensitive).")] = None,
    date_from: Annotated[date | None, Field(description="Only pickups on or after this day (YYYY-MM-DD).")] = None,
    date_to: Annotated[date | None, Field(description="Only pickups on or before this day (YYYY-MM-DD).")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> PickupPage:
    """Carrier pickups at the warehouses, latest day first: confirmation number, window,
    status and how many parcels each takes."""
    _check_range(date_from, date_to + timedelta(days=1) if date_to else None, ("date_from", "date_to"))
    clauses, params = ["1"], []
    for condition, value in (("pickups.status = ?", status), ("carriers.code = ?", carrier),
                             ("warehouses.code = ?", warehouse),
                             ("upper(pickups.confirmation) = upper(?)", confirmation and confirmation.strip()),
                             ("pickups.pickup_date >= ?", date_from), ("pickups.pickup_date <= ?", date_to)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    found = ctx.sql.page(PICKUP_COLUMNS, f"{PICKUP_FROM} WHERE {' AND '.join(clauses)} "
                         "ORDER BY pickups.pickup_date DESC, pickups.id DESC", params, page, per_page, Pickup)
    return PickupPage(pickups=[PickupSummary(**row) for row in found.rows], total=found.total, page=page,
                      next_page=found.next_page)


def _pickup_row(ctx: ToolContext, pickup_id: int) -> Row:
    row = ctx.sql.one(f"SELECT {PICKUP_COLUMNS} {PICKUP_FROM} WHERE pickups.id = ?", [pickup_id], Pickup)
    if row is None:
        raise missing("pickup", pickup_id, PICKUP_HINT)
    return row


def _pickup_detail(ctx: ToolContext, row: Row) -> PickupDetail:
    labels = ctx.sql.all(
        "SELECT labels.tracking_number, labels.shipment_id, shipments.reference, shipments.status FROM pickup_labels "
        "JOIN labels ON labels.id = pickup_labels.label_id JOIN shipments ON shipments.id = labels.shipment_id "
        "WHERE pickup_labels.pickup_id = ? ORDER BY labels.id", [row["id"]])
    return PickupDetail(**row, labels=[PickupParcel(**label) for label in labels])


@tools.tool(title="Get pickup", examples=[{"pickup_id": 1}])
def get_pickup(ctx: ToolContext, pickup_id: Annotated[int, Field(description="The pickup's id (list_pickups finds it by confirmation number).")]) -> PickupDetail:
    """A pickup with the tracking numbers and shipment references of the parcels it takes."""
    return _pickup_detail(ctx, _pickup_row(ctx, pickup_id))


# ---------------------------------------------------------------- reports


@tools.tool(title="Carrier performance report", examples=[{"start": "2025-10-01T00:00:00Z", "end": "2025-11-01T00:00:00Z"}])
def carrier_performance(
    ctx: ToolContext,
    start: Annotated[DateTimeArg, Field(description="Start of the period (inclusive), ISO 8601.")],
    end: Annotated[DateTimeArg, Field(description="End of the period (exclusive), ISO 8601.")],
) -> PerformanceReport:
    """On-time delivery per carrier for the parcels delivered in a period: delivered, on time,
    late, on-time rate, mean transit days, and the exceptions reported in the period."""
    _check_range(start, end, ("start", "end"))
    rows = ctx.sql.all(
        "SELECT carriers.id, carriers.code AS carrier, carriers.name AS carrier_name, "
        "(SELECT count(*) FROM shipments JOIN services AS s ON s.id = shipments.service_id "
        " WHERE s.carrier_id = carriers.id AND shipments.delivered_at >= ? AND shipments.delivered_at < ?) AS delivered, "
        "(SELECT count(*) FROM shipments JOIN services AS s ON s.id = shipments.service_id "
        " WHERE s.carrier_id = carriers.id AND shipments.delivered_at >= ? AND shipments.delivered_at < ? "
        " AND substr(shipments.delivered_at, 1, 10) > shipments.estimated_delivery) AS late, "
        "(SELECT avg(julianday(shipments.delivered_at) - julianday(shipments.first_scan_at)) FROM shipments "
        " JOIN services AS s ON s.id = shipments.service_id WHERE s.carrier_id = carriers.id "
        " AND shipments.delivered_at >= ? AND shipments.delivered_at < ?) AS transit, "
        "(SELECT count(*) FROM delivery_exceptions AS d JOIN shipments ON shipments.id = d.shipment_id "
        " JOIN services AS s ON s.id = shipments.service_id WHERE s.carrier_id = carriers.id "
        " AND d.reported_at >= ? AND d.reported_at < ?) AS exceptions "
        "FROM carriers ORDER BY carriers.id", [start, end] * 4)
    carriers = []
    for row in rows:
        delivered, late = row["delivered"], row["late"]
        carriers.append(CarrierPerformance(
            carrier=row["carrier"], carrier_name=row["carrier_name"], delivered=delivered, on_time=delivered - late,
            late=late, on_time_rate=round(100 * (delivered - late) / delivered, 1) if delivered else None,
            average_transit_days=round(row["transit"], 1) if row["transit"] is not None else None,
            exceptions=row["exceptions"]))
    return PerformanceReport(start=start, end=end, carriers=carriers, delivered=sum(c.delivered for c in carriers),
                             late=sum(c.late for c in carriers))


SPEND_KEYS = {"carrier": "carriers.code", "service": "services.name", "warehouse": "warehouses.code",
              "month": "substr(labels.created_at, 1, 7)"}


@tools.tool(title="Shipping spend report", examples=[
    {"start": "2025-01-01T00:00:00Z", "end": "2025-11-01T00:00:00Z", "group_by": "carrier"},
    {"start": "2025-01-01T00:00:00Z", "end": "2025-07-01T00:00:00Z", "group_by": "month"}])
def shipping_spend(
    ctx: ToolContext,
    start: Annotated[DateTimeArg, Field(description="Start of the period (inclusive): labels bought from then.")],
    end: Annotated[DateTimeArg, Field(description="End of the period (exclusive).")],
    group_by: Annotated[Literal["carrier", "service", "warehouse", "month"], Field(description="How to group the labels.")] = "carrier",
) -> SpendReport:
    """What the labels bought in a period cost, grouped by carrier, service, warehouse or
    month (UTC): label count, spend, refunds of voided labels, and net spend, in cents."""
    _check_range(start, end, ("start", "end"))
    key = SPEND_KEYS[group_by]
    order = "key" if group_by == "month" else "net_cents DESC, key"
    rows = ctx.sql.all(
        f"SELECT {key} AS key, count(*) AS labels, sum(labels.cost_cents) AS spend_cents, "
        "sum(labels.refund_cents) AS refunded_cents, sum(labels.cost_cents - labels.refund_cents) AS net_cents "
        "FROM labels JOIN services ON services.id = labels.service_id JOIN carriers ON carriers.id = services.carrier_id "
        "JOIN shipments ON shipments.id = labels.shipment_id JOIN warehouses ON warehouses.id = shipments.warehouse_id "
        f"WHERE labels.created_at >= ? AND labels.created_at < ? GROUP BY {key} ORDER BY {order}", [start, end])
    groups = [SpendGroup(**row) for row in rows]
    return SpendReport(start=start, end=end, group_by=group_by, groups=groups, labels=sum(g.labels for g in groups),
                       net_cents=sum(g.net_cents for g in groups))


# ---------------------------------------------------------------- writes


def _forbid_if_cancelled(shipment: Row, action: str) -> None:
    if shipment["status"] == "cancelled":
        raise ForbiddenError(f"shipment {shipment['reference']} is cancelled; a cancelled shipment takes no {action}. "
                             "Create a new shipment instead")


def _insert_quotes(ctx: ToolContext, shipment: Row) -> None:
    """Fresh quotes of every service for a shipment, valid `RATE_VALID_HOURS`, in one statement."""
    weight = ctx.sql.scalar("SELECT coalesce(sum(weight_oz), 0) FROM parcels WHERE shipment_id = ?", [shipment["id"]])
    warehouse = WAREHOUSES[shipment["warehouse_id"] - 1]
    number = zone(warehouse[5], shipment["ship_postal_code"])
    services = ctx.sql.all("SELECT id, level, transit_days, base_cents, per_lb_cents FROM services ORDER BY id")
    quoted, expires = bind(ctx.now), bind(ctx.now + timedelta(hours=RATE_VALID_HOURS))
    rows = [[shipment["id"], s["id"], price_cents(s["base_cents"], s["per_lb_cents"], weight, number), "USD",
             transit_days(s["transit_days"], s["level"], number), quoted, expires] for s in services]
    ctx.sql.execute(
        "INSERT INTO rates (shipment_id, service_id, amount_cents, currency, estimated_days, quoted_at, expires_at) "
        "SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), "
        "json_extract(value, '$[3]'), json_extract(value, '$[4]'), json_extract(value, '$[5]'), json_extract(value, '$[6]') "
        "FROM json_each(?)", [rows])


def _fresh_rates(ctx: ToolContext, shipment_id: int) -> list[RateOut]:
    return _rate_outs(ctx, "rates.shipment_id = ? AND rates.quoted_at = ?", [shipment_id, ctx.now], RATE_ORDERS["amount"])


def _live_reference(ctx: ToolContext, reference: str) -> Row | None:
    return ctx.sql.one("SELECT id, status FROM shipments WHERE upper(reference) = upper(?) AND status != 'cancelled'",
                       [reference])


@tools.tool(writes=True, destructive=False, idempotent=True, title="Create shipment", examples=[{
    "recipient_email": "lisa.gomez@johnsoncolemanandg.com", "reference": "NW-9001", "ship_name": "Lisa Gomez",
    "ship_line1": "944 Church St", "ship_city": "Columbus", "ship_region": "OH", "ship_postal_code": "43252",
    "weight_oz": 28, "length_in": 12, "width_in": 10, "height_in": 6, "description": "Replacement mug"}])
def create_shipment(
    ctx: ToolContext,
    recipient_email: Annotated[str, Field(min_length=3, description="The customer's email (a customer of the shop).")],
    reference: Reference,
    ship_name: Annotated[str, Field(min_length=1, max_length=120, description="The name on the delivery address.")],
    ship_line1: Annotated[str, Field(min_length=1, max_length=160, description="Street address.")],
    ship_city: Annotated[str, Field(min_length=1, max_length=80, description="City.")],
    ship_region: Region,
    ship_postal_code: PostalCode,
    weight_oz: Annotated[int, Field(ge=1, le=MAX_PARCEL_OZ, description="The parcel's weight in ounces.")],
    length_in: Annotated[int, Field(ge=1, le=MAX_PARCEL_INCHES, description="Length in inches.")],
    width_in: Annotated[int, Field(ge=1, le=MAX_PARCEL_INCHES, description="Width in inches.")],
    height_in: Annotated[int, Field(ge=1, le=MAX_PARCEL_INCHES, description="Height in inches.")],
    description: Annotated[str, Field(max_length=200, description="What the parcel holds.")] = "",
) -> CreatedShipment:
    """Create a draft shipment of one parcel to a US address and quote every carrier's
    services for it (valid 24 hours). It leaves the warehouse that serves the ZIP code
    (Newark for ZIPs 0-4, Reno for 5-9). Then buy a label with buy_label."""
    recipient = ctx.sql.one("SELECT id FROM recipients WHERE lower(email) = lower(?)", [recipient_email.strip()])
    if recipient is None:
        raise NotFoundError(f"no recipient with email {recipient_email!r}. {RECIPIENT_HINT}")
    reference = reference.strip()
    taken = _live_reference(ctx, reference)
    if taken is not None:
        raise ForbiddenError(f"reference {reference} already has shipment {taken['id']} ({taken['status']}): an order "
                             "ships in one shipment; cancel that one first or use it")
    row = {"reference": reference, "recipient_id": recipient["id"],
           "warehouse_id": warehouse_for(ship_postal_code) + 1, "status": "draft", "service_id": None,
           "ship_name": ship_name.strip(), "ship_line1": ship_line1.strip(), "ship_city": ship_city.strip(),
           "ship_region": ship_region, "ship_postal_code": ship_postal_code, "ship_country": COUNTRY,
           "created_at": ctx.now, "first_scan_at": None, "estimated_delivery": None, "delivered_at": None,
           "cancelled_at": None}
    row["id"] = ctx.sql.insert_row(Shipment, row)
    ctx.sql.insert_row(Parcel, {"shipment_id": row["id"], "weight_oz": weight_oz, "length_in": length_in,
                                "width_in": width_in, "height_in": height_in, "description": description.strip()})
    _insert_quotes(ctx, row)
    return CreatedShipment(shipment=_shipment_detail(ctx, row["id"]), rates=_fresh_rates(ctx, row["id"]))


def _active_label(ctx: ToolContext, shipment_id: int) -> Row | None:
    return ctx.sql.one("SELECT * FROM labels WHERE shipment_id = ? AND status = 'active'", [shipment_id], Label)


@tools.tool(writes=True, destructive=False, idempotent=False, title="Refresh rates", examples=[{"shipment_id": 82}])
def refresh_rates(ctx: ToolContext, shipment_id: ShipmentId) -> RateList:
    """Quote every carrier's services again for a shipment without a label (earlier quotes
    expire after 24 hours). Returns the new quotes, cheapest first."""
    shipment = row_or_raise(ctx, Shipment, shipment_id, "shipment", SHIPMENT_HINT)
    _forbid_if_cancelled(shipment, "new quotes")
    label = _active_label(ctx, shipment_id)
    if label is not None:
        raise ForbiddenError(f"shipment {shipment['reference']} already has an active label ({label['tracking_number']}): "
                             "a shipment has at most one active label; void it before quoting again")
    _insert_quotes(ctx, shipment)
    return RateList(shipment_id=shipment_id, reference=shipment["reference"], rates=_fresh_rates(ctx, shipment_id))


@tools.tool(writes=True, destructive=True, idempotent=True, title="Buy label", examples=[{"rate_id": 367}])
def buy_label(
    ctx: ToolContext, rate_id: Annotated[int, Field(description="The quote to buy (get_rates lists a shipment's quotes).")],
) -> LabelOut:
    """Buy the shipping label of a rate quote: the shipment gets its tracking number and waits
    for the carrier's pickup. The quote must be under 24 hours old and the shipment must have
    no active label."""
    rate = row_or_raise(ctx, Rate, rate_id, "rate", RATE_HINT)
    shipment = row_or_raise(ctx, Shipment, rate["shipment_id"], "shipment", SHIPMENT_HINT)
    _forbid_if_cancelled(shipment, "labels")
    label = _active_label(ctx, shipment["id"])
    if label is not None:
        raise ForbiddenError(f"shipment {shipment['reference']} already has an active label ({label['tracking_number']}): "
                             "a shipment has at most one active label; void it before buying another")
    if rate["expires_at"] <= ctx.now:
        raise ForbiddenError(f"rate {rate_id} expired at {rate['expires_at']:%Y-%m-%dT%H:%M:%SZ}: a quote is valid for "
                             f"{RATE_VALID_HOURS} hours; use refresh_rates to quote again")
    carrier = ctx.sql.one("SELECT carriers.code, carriers.account_number FROM services JOIN carriers "
                          "ON carriers.id = services.carrier_id WHERE services.id = ?", [rate["service_id"]])
    label_id = ctx.sql.insert_row(Label, {
        "shipment_id": shipment["id"], "rate_id": rate_id, "service_id": rate["service_id"], "tracking_number": "",
        "cost_cents": rate["amount_cents"], "status": "active", "created_at": ctx.now, "voided_at": None, "refund_cents": 0})
    number = label_number(carrier["code"], carrier["account_number"], label_id)
    ctx.sql.execute("UPDATE labels SET tracking_number = ? WHERE id = ?", [number, label_id])
    ctx.sql.update_row(Shipment, shipment, {**shipment, "status": "label_created", "service_id": rate["service_id"]})
    warehouse = WAREHOUSES[shipment["warehouse_id"] - 1]
    ctx.sql.insert_row(TrackingEvent, {"shipment_id": shipment["id"], "label_id": label_id, "status": "label_created",
                                       "description": "Shipping label created; awaiting pickup",
                                       "location": f"{warehouse[3]}, {warehouse[4]}", "occurred_at": ctx.now})
    return LabelOut(**ctx.sql.one(f"SELECT {LABEL_COLUMNS} {LABEL_FROM} WHERE labels.id = ?", [label_id], Label))  # type: ignore[arg-type]


def _label_by_number(ctx: ToolContext, tracking_number: str) -> Row:
    label = ctx.sql.one("SELECT * FROM labels WHERE upper(tracking_number) = upper(?)", [tracking_number.strip()], Label)
    if label is None:
        raise NotFoundError(f"no label with tracking number {tracking_number!r}. {LABEL_HINT}")
    return label


def _void(ctx: ToolContext, label: Row) -> None:
    """Void an active label: refunded in full, taken off scheduled pickups."""
    ctx.sql.update_row(Label, label, {**label, "status": "voided", "voided_at": ctx.now, "refund_cents": label["cost_cents"]})
    ctx.sql.execute("DELETE FROM pickup_labels WHERE label_id = ? AND pickup_id IN "
                    "(SELECT id FROM pickups WHERE status = 'scheduled')", [label["id"]])


def _forbid_after_scan(shipment: Row, what: str) -> None:
    if shipment["first_scan_at"] is not None:
        raise ForbiddenError(f"shipment {shipment['reference']} was scanned by the carrier at "
                             f"{shipment['first_scan_at']:%Y-%m-%dT%H:%M:%SZ}: {what} only before the first scan")


@tools.tool(writes=True, destructive=True, idempotent=True, title="Void label",
            examples=[{"tracking_number": "730353170273"}])
def void_label(ctx: ToolContext, tracking_number: TrackingNumber) -> VoidedLabel:
    """Void a label the carrier has not scanned yet: its cost is refunded, it leaves any
    scheduled pickup, and the shipment goes back to draft (buy another label from fresh
    quotes). A label cannot be voided after the carrier's first scan."""
    label = _label_by_number(ctx, tracking_number)
    if label["status"] != "active":
        raise InvalidArgumentError(f"label {label['tracking_number']} is already voided")
    shipment = row_or_raise(ctx, Shipment, label["shipment_id"], "shipment", SHIPMENT_HINT)
    _forbid_after_scan(shipment, "a label can be voided")
    _void(ctx, label)
    ctx.sql.update_row(Shipment, shipment, {**shipment, "status": "draft", "service_id": None})
    out = ctx.sql.one(f"SELECT {LABEL_COLUMNS} {LABEL_FROM} WHERE labels.id = ?", [label["id"]], Label)
    return VoidedLabel(label=LabelOut(**out), shipment_status="draft")  # type: ignore[arg-type]


@tools.tool(writes=True, destructive=True, idempotent=True, title="Cancel shipment", examples=[{"shipment_id": 82}])
def cancel_shipment(ctx: ToolContext, shipment_id: ShipmentId) -> ShipmentDetail:
    """Cancel a shipment the carrier has not scanned yet; its active label is voided and
    refunded. After the first scan it cannot be cancelled (report an exception instead)."""
    shipment = row_or_raise(ctx, Shipment, shipment_id, "shipment", SHIPMENT_HINT)
    if shipment["status"] == "cancelled":
        raise InvalidArgumentError(f"shipment {shipment['reference']} is already cancelled")
    _forbid_after_scan(shipment, "a shipment can be cancelled")
    label = _active_label(ctx, shipment_id)
    if label is not None:
        _void(ctx, label)
    ctx.sql.update_row(Shipment, shipment, {**shipment, "status": "cancelled", "cancelled_at": ctx.now})
    return _shipment_detail(ctx, shipment_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Update delivery address", examples=[{
    "shipment_id": 82, "ship_line1": "12 Harbor Dr, Apt 4", "ship_city": "Austin", "ship_region": "TX",
    "ship_postal_code": "78701"}])
def update_delivery_address(
    ctx: ToolContext,
    shipment_id: ShipmentId,
    ship_line1: Annotated[str, Field(min_length=1, max_length=160, description="Street address.")],
    ship_city: Annotated[str, Field(min_length=1, max_length=80, description="City.")],
    ship_region: Region,
    ship_postal_code: PostalCode,
    ship_name: Annotated[str | None, Field(min_length=1, max_length=120, description="A new name on the address; unchanged when omitted.")] = None,
) -> ShipmentDetail:
    """Correct a shipment's delivery address before the carrier's first scan (the label keeps
    its tracking number). The quotes of a draft expire with the old address: refresh_rates
    quotes again. After the first scan the address cannot change."""
    shipment = row_or_raise(ctx, Shipment, shipment_id, "shipment", SHIPMENT_HINT)
    _forbid_if_cancelled(shipment, "address changes")
    _forbid_after_scan(shipment, "the delivery address can change")
    after = {**shipment, "ship_line1": ship_line1.strip(), "ship_city": ship_city.strip(), "ship_region": ship_region,
             "ship_postal_code": ship_postal_code}
    if ship_name is not None:
        after["ship_name"] = ship_name.strip()
    if ctx.sql.update_row(Shipment, shipment, after) and shipment["status"] == "draft":
        ctx.sql.execute("UPDATE rates SET expires_at = ? WHERE shipment_id = ? AND expires_at > ?",
                        [ctx.now, shipment_id, ctx.now])
    return _shipment_detail(ctx, shipment_id)


@tools.tool(writes=True, destructive=False, idempotent=False, title="Report delivery exception", examples=[
    {"shipment_id": 928, "kind": "damaged", "note": "Customer sent a photo of a crushed box."}])
def report_exception(
    ctx: ToolContext,
    shipment_id: ShipmentId,
    kind: Annotated[ExceptionKind, Field(description="What went wrong.")],
    note: Annotated[Body, Field(min_length=1, max_length=2000, description="What happened, for the carrier and the team.")],
) -> ExceptionOut:
    """Report a delivery exception on a parcel in transit (scanned and not yet delivered),
    opening a case with the carrier; resolve it later with resolve_exception."""
    shipment = row_or_raise(ctx, Shipment, shipment_id, "shipment", SHIPMENT_HINT)
    if shipment["status"] not in ("in_transit", "out_for_delivery"):
        state = {"delivered": "was delivered", "cancelled": "is cancelled"}.get(shipment["status"], "has not been scanned by the carrier")
        raise ForbiddenError(f"shipment {shipment['reference']} {state}: a new delivery exception is reported only "
                             "for a parcel in transit")
    exception_id = ctx.sql.insert_row(DeliveryException, {
        "shipment_id": shipment_id, "kind": kind, "note": note.strip(), "reported_by": "merchant", "status": "open",
        "reported_at": ctx.now, "resolved_at": None, "resolution": ""})
    return _exception(ctx, exception_id)


def _exception(ctx: ToolContext, exception_id: int) -> ExceptionOut:
    row = ctx.sql.one(f"SELECT {EXCEPTION_COLUMNS} {EXCEPTION_FROM} WHERE delivery_exceptions.id = ?",
                      [exception_id], DeliveryException)
    if row is None:
        raise missing("exception", exception_id, EXCEPTION_HINT)
    return ExceptionOut(**row)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Resolve delivery exception", examples=[
    {"exception_id": 183, "resolution": "Carrier confirmed delivery."}])
def resolve_exception(
    ctx: ToolContext,
    exception_id: Annotated[int, Field(description="The exception's id (list_exceptions or get_shipment shows it).")],
    resolution: Annotated[Body, Field(min_length=1, max_length=2000, description="How it was resolved.")],
) -> ExceptionOut:
    """Close an open delivery exception with how it was resolved."""
    row = row_or_raise(ctx, DeliveryException, exception_id, "exception", EXCEPTION_HINT)
    if row["status"] == "resolved":
        raise InvalidArgumentError(f"exception {exception_id} is already resolved ({row['resolution']})")
    ctx.sql.update_row(DeliveryException, row, {**row, "status": "resolved", "resolved_at": ctx.now,
                                                "resolution": resolution.strip()})
    return _exception(ctx, exception_id)


def _minutes(clock: str) -> int:
    hours, minutes = clock.split(":")
    return int(hours) * 60 + int(minutes)


@tools.tool(writes=True, destructive=False, idempotent=True, title="Schedule pickup", examples=[
    {"carrier": "fedex", "warehouse": "EWR1", "pickup_date": "2025-11-14", "tracking_numbers": ["730353170273"]}])
def schedule_pickup(
    ctx: ToolContext,
    carrier: Annotated[CarrierCode, Field(description="The carrier that collects.")],
    warehouse: Annotated[WarehouseCode, Field(description="Where the parcels wait.")],
    pickup_date: Annotated[date, Field(description="A business day after today (YYYY-MM-DD), at most 30 days ahead.")],
    tracking_numbers: Annotated[list[TrackingNumber], Field(min_length=1, max_length=50, description="The labels to collect.")],
    ready_time: ClockTime = "13:00",
    close_time: ClockTime = "17:00",
) -> PickupDetail:
    """Book a carrier pickup of labelled parcels at a warehouse on a business day after today.
    The parcels must be active labels of that carrier, leaving that warehouse, not scanned
    yet and not on another scheduled pickup. The window needs two hours at least."""
    if _minutes(close_time) - _minutes(ready_time) < 120:
        raise InvalidArgumentError("close_time must be at least two hours after ready_time")
    numbers = list(dict.fromkeys(n.strip().upper() for n in tracking_numbers))
    labels = ctx.sql.all(
        "SELECT labels.id, labels.tracking_number, labels.status, carriers.code AS carrier, warehouses.code AS warehouse, "
        "shipments.first_scan_at, shipments.reference, EXISTS (SELECT 1 FROM pickup_labels JOIN pickups "
        "ON pickups.id = pickup_labels.pickup_id WHERE pickup_labels.label_id = labels.id AND pickups.status = 'scheduled') "
        "AS booked FROM labels JOIN services ON services.id = labels.service_id JOIN carriers ON carriers.id = services.carrier_id "
        "JOIN shipments ON shipments.id = labels.shipment_id JOIN warehouses ON warehouses.id = shipments.warehouse_id "
        "WHERE upper(labels.tracking_number) IN (SELECT value FROM json_each(?)) ORDER BY labels.id", [numbers])
    found = {label["tracking_number"].upper() for label in labels}
    unknown = [n for n in numbers if n not in found]
    if unknown:
        raise NotFoundError(f"no label with tracking number {unknown[0]!r}. {LABEL_HINT}")
    today = ctx.now.date()
    if pickup_date <= today or pickup_date.weekday() >= 5 or pickup_date > today + timedelta(days=PICKUP_HORIZON_DAYS):
        raise ForbiddenError(f"{pickup_date} ({pickup_date:%A}) is not allowed: a pickup is scheduled for a business day "
                             f"(Monday to Friday) after today ({today}), at most {PICKUP_HORIZON_DAYS} days ahead")
    for label in labels:
        problem = None
        if label["status"] != "active":
            problem = "is voided"
        elif label["first_scan_at"] is not None:
            problem = "was already scanned by the carrier"
        elif label["carrier"] != carrier:
            problem = f"is a {label['carrier']} label"
        elif label["warehouse"] != warehouse:
            problem = f"leaves from {label['warehouse']}"
        elif label["booked"]:
            problem = "is on another scheduled pickup"
        if problem is not None:
            raise ForbiddenError(f"label {label['tracking_number']} ({label['reference']}) {problem}: a pickup takes only "
                                 "active labels of its carrier, from its warehouse, not yet scanned and not on another "
                                 "scheduled pickup")
    carrier_id = ctx.sql.scalar("SELECT id FROM carriers WHERE code = ?", [carrier])
    warehouse_id = ctx.sql.scalar("SELECT id FROM warehouses WHERE code = ?", [warehouse])
    pickup_id = ctx.sql.insert_row(Pickup, {
        "confirmation": f"TMP{ctx.now:%H%M%S}", "carrier_id": carrier_id, "warehouse_id": warehouse_id,
        "pickup_date": pickup_date, "ready_time": ready_time, "close_time": close_time, "status": "scheduled",
        "created_at": ctx.now, "cancelled_at": None})
    ctx.sql.execute("UPDATE pickups SET confirmation = ? WHERE id = ?", [pickup_confirmation(carrier, pickup_id), pickup_id])
    ctx.sql.execute("INSERT INTO pickup_labels (pickup_id, label_id) SELECT ?, value FROM json_each(?)",
                    [pickup_id, [label["id"] for label in labels]])
    return _pickup_detail(ctx, _pickup_row(ctx, pickup_id))


@tools.tool(writes=True, destructive=True, idempotent=True, title="Cancel pickup", examples=[{"pickup_id": 850}])
def cancel_pickup(ctx: ToolContext, pickup_id: Annotated[int, Field(description="The pickup's id (list_pickups finds it by confirmation number).")]) -> PickupDetail:
    """Cancel a scheduled pickup whose day has not come; its parcels wait for another one."""
    pickup = row_or_raise(ctx, Pickup, pickup_id, "pickup", PICKUP_HINT)
    if pickup["status"] != "scheduled" or pickup["pickup_date"] <= ctx.now.date():
        state = pickup["status"] if pickup["status"] != "scheduled" else f"due on {pickup['pickup_date']}"
        raise ForbiddenError(f"pickup {pickup['confirmation']} is {state}: only a scheduled pickup whose day has not "
                             "come can be cancelled")
    ctx.sql.update_row(Pickup, pickup, {**pickup, "status": "cancelled", "cancelled_at": ctx.now})
    return _pickup_detail(ctx, _pickup_row(ctx, pickup_id))
