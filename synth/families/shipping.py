"""Shipping task families: where an order's parcel is, a tracking number's history, a
customer's shipments, carrier services, warehouse backlogs, pickup manifests, quotes, on-time
and spend reports, late parcels and open exceptions; buying, voiding and re-quoting labels,
correcting addresses, reporting and resolving exceptions, booking and cancelling pickups,
creating and cancelling shipments; refusals the account's policy calls for; two-turn
follow-ups; a late parcel behind a help-desk ticket and a paid shop order shipped.

A user names a shipment by its order number (#1001), return number (R1034) or the shop's own
number (NW-5001), a parcel by its tracking number, a pickup by its confirmation number and a
customer by email: what a shop's staff have in hand.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from mcpgym.synth.family import Draft, Family, WorldView, month_name, month_window, previous_month

SERVER = "shipping"
Row = dict[str, Any]
Call = dict[str, Any]

CARRIER_NAMES = {"ups": "UPS", "fedex": "FedEx", "usps": "USPS", "dhl": "DHL eCommerce"}
WAREHOUSE_NAMES = {"EWR1": "Newark", "RNO1": "Reno"}
STREETS = ("Maple Ave", "Oak St", "Cedar Ln", "Harbor Dr", "Willow Way", "Market St", "River Rd", "Park Ave")
DAMAGE_NOTES = (
    ("damaged", "The customer called: the box arrived at the depot crushed, please check the contents."),
    ("address_issue", "The customer says the apartment number is missing from the label: it is unit 4B."),
    ("delayed", "The customer reports no movement for two days; please chase the carrier."),
)
RESOLUTIONS = ("Carrier confirmed the parcel is moving again.", "Customer confirmed receipt.",
               "Replacement sent; case closed with the carrier.")
PARCELS = (("Small box", 8, 6, 4), ("Medium box", 12, 10, 6), ("Large box", 18, 14, 8))
CONTENTS = ("Replacement mug", "Warranty replacement charger", "Product samples", "Missing sock pair")


# ---------------------------------------------------------------- sampling helpers


def _shipments(view: WorldView, **filters: Any) -> list[Row]:
    """Up to 100 shipments matching `filters`, newest first."""
    return view.read(SERVER, "search_shipments", **{"per_page": 100, **filters})["shipments"]


def _detail(view: WorldView, shipment: Row) -> Row:
    return view.read(SERVER, "get_shipment", shipment_id=shipment["id"])


def _name(shipment: Row) -> str:
    """How a user names a shipment: the order, the exchange or the shop's shipment number."""
    reference = shipment["reference"]
    if reference.startswith("#"):
        return f"order {reference}"
    if reference.startswith("R"):
        return f"the exchange {reference}"
    return f"shipment {reference}"


def _find(call_id: str, shipment: Row) -> Call:
    return {"id": call_id, "tool": "find_shipment_by_reference", "arguments": {"reference": shipment["reference"]}}


def _waiting(view: WorldView) -> list[Row]:
    """Shipments with a label the carrier has not scanned."""
    return _shipments(view, status=["label_created"])


def _in_transit(view: WorldView) -> list[Row]:
    return _shipments(view, status=["in_transit", "out_for_delivery"])


def _business_day_after(day: date, skip: int = 1) -> date:
    while skip:
        day += timedelta(days=1)
        if day.weekday() < 5:
            skip -= 1
    return day


def _months(view: WorldView) -> list[tuple[int, int]]:
    return [previous_month(view.now.year, view.now.month, back) for back in range(13, 0, -1)]


# ---------------------------------------------------------------- lookups


class WhereIsOrder(Family):
    """Where an order's parcel is: status, last tracking event and the estimate."""

    name = "shipping.where-is-order"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        shipment = rng.choice(_in_transit(view) + _shipments(view, status=["delivered"], per_page=30))
        what = _name(shipment)
        user = [
            f"A customer asks where {what} is. What's its status, the latest tracking update, and the delivery estimate?",
            f"Where is {what} right now? Give me the status, the last tracking event and when it is (or was) due.",
        ]
        return Draft(family=self.name, key=f"ref:{shipment['reference']}", turns=[{"user": user, "calls": [_find("c1", shipment)], "facts": [
            {"name": "status", "expr": "{c1.status}", "value": None},
            {"name": "last event", "expr": "{c1.last_event.description}", "value": None},
            {"name": "estimated delivery", "expr": "{c1.estimated_delivery}", "value": None},
        ]}])


class TrackNumber(Family):
    """A tracking number's pickup time and latest location."""

    name = "shipping.track-number"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        shipment = rng.choice(_in_transit(view) + _shipments(view, status=["delivered"], per_page=40, page=rng.randint(1, 5)))
        number = shipment["tracking_number"]
        user = [
            f"Track {number}: when did the carrier pick it up, and where was its latest scan?",
            f"For tracking number {number}, tell me the pickup time and the location of the most recent event.",
        ]
        return Draft(family=self.name, key=f"tracking:{number}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "track_package", "arguments": {"tracking_number": number}},
        ], "facts": [
            {"name": "picked up", "expr": "{c1.first_scan_at}", "value": None},
            {"name": "latest location", "expr": "{c1.last_event.location}", "value": None},
        ]}])


class CustomerShipments(Family):
    """A customer by email: their company and how many shipments they have had, the latest one."""

    name = "shipping.customer-shipments"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        shipment = rng.choice(_shipments(view, page=rng.randint(1, 9)))
        email = shipment["recipient_email"]
        user = [
            f"How many shipments have we sent to {email}, which company do they work for, and what was the reference of the latest one?",
            f"Look up the customer {email}: their company, the number of shipments to them, and the most recent shipment's reference.",
        ]
        return Draft(family=self.name, key=f"email:{email}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_recipient_by_email", "arguments": {"email": email}},
            {"id": "c2", "tool": "search_shipments", "arguments": {"recipient_email": email, "per_page": 2}},
        ], "facts": [
            {"name": "company", "expr": "{c1.organization_name}", "value": None},
            {"name": "shipments", "expr": "{c2.total}", "value": None},
            {"name": "latest", "expr": "{c2.shipments.0.reference}", "value": None},
        ]}], checks=["{c2.total} == 1 or {c2.shipments.0.created_at} != {c2.shipments.1.created_at}"])


class ServiceTransit(Family):
    """A carrier service's level and nominal transit days."""

    name = "shipping.service-transit"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        carriers = view.read(SERVER, "list_carriers")["carriers"]
        i = rng.randrange(len(carriers))
        j = rng.randrange(len(carriers[i]["services"]))
        service = carriers[i]["services"][j]["name"]
        user = [
            f"How many business days does {service} take, and which service level is it?",
            f"What's the nominal transit time of {service} on our account, and is it ground, two-day or overnight?",
        ]
        return Draft(family=self.name, key=f"service:{service}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_carriers"},
        ], "facts": [
            {"name": "transit days", "expr": f"{{c1.carriers.{i}.services.{j}.transit_days}}", "value": None},
            {"name": "level", "expr": f"{{c1.carriers.{i}.services.{j}.level}}", "value": None},
        ]}])


class WarehouseBacklog(Family):
    """How many labelled parcels wait at a warehouse without a pickup, and its street address."""

    name = "shipping.warehouse-backlog"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        i = rng.randrange(2)
        city = ("Newark", "Reno")[i]
        user = [
            f"How many labelled parcels are waiting at the {city} warehouse without a pickup booked, and what's that warehouse's street address?",
            f"At our {city} fulfilment center: number of parcels awaiting a pickup, and the street address for the driver.",
        ]
        return Draft(family=self.name, key=f"warehouse:{city}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_warehouses"},
        ], "facts": [
            {"name": "awaiting pickup", "expr": f"{{c1.warehouses.{i}.awaiting_pickup}}", "value": None},
            {"name": "address", "expr": f"{{c1.warehouses.{i}.line1}}", "value": None},
        ]}])


class PickupManifest(Family):
    """The parcels a pickup took (or will take), by its confirmation number."""

    name = "shipping.pickup-manifest"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        pickups = [p for p in view.read(SERVER, "list_pickups", per_page=100, page=rng.randint(1, 3))["pickups"] if p["parcels"]]
        if not pickups:
            return None
        pickup = rng.choice(pickups)
        code = pickup["confirmation"]
        user = [
            f"Pickup confirmation {code}: how many parcels were on it, and what's the reference of the first one listed?",
            f"For the carrier pickup {code}, count the parcels and give me the first parcel's shipment reference.",
        ]
        return Draft(family=self.name, key=f"pickup:{code}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_pickups", "arguments": {"confirmation": code}},
            {"id": "c2", "tool": "get_pickup", "bind": {"pickup_id": "{c1.pickups.0.id}"}},
        ], "facts": [
            {"name": "parcels", "expr": "{c2.parcels}", "value": None},
            {"name": "first reference", "expr": "{c2.labels.0.reference}", "value": None},
        ]}], checks=["{c1.total} == 1"])


class CheapestQuote(Family):
    """The cheapest valid quote of a draft shipment."""

    name = "shipping.cheapest-quote"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        drafts = [s for s in _shipments(view, status=["draft"])
                  if view.read(SERVER, "get_rates", shipment_id=s["id"])["rates"]]
        if not drafts:
            return None
        shipment = rng.choice(drafts)
        what = _name(shipment)
        user = [
            f"Which carrier service is the cheapest valid quote for {what}, and how much is it?",
            f"For {what}, what's the lowest current rate: service and price?",
        ]
        return Draft(family=self.name, key=f"ref:{shipment['reference']}", turns=[{"user": user, "calls": [
            _find("c1", shipment),
            {"id": "c2", "tool": "get_rates", "bind": {"shipment_id": "{c1.id}"}},
        ], "facts": [
            {"name": "service", "expr": "{c2.rates.0.service_name}", "value": None},
            {"name": "price (cents)", "expr": "{c2.rates.0.amount_cents}", "value": None},
        ]}], checks=["len({c2.rates}) > 0", "len({c2.rates}) == 1 or {c2.rates.0.amount_cents} != {c2.rates.1.amount_cents}"])


# ---------------------------------------------------------------- reports


class CarrierOnTime(Family):
    """A carrier's on-time rate and late deliveries in a month."""

    name = "shipping.carrier-on-time"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        year, month = rng.choice(_months(view))
        start, end = month_window(year, month)
        i = rng.randrange(4)
        carrier = ("UPS", "FedEx", "USPS", "DHL eCommerce")[i]
        when = month_name(year, month)
        user = [
            f"What was {carrier}'s on-time delivery rate in {when}, and how many of its deliveries were late?",
            f"In {when}, how reliable was {carrier}: on-time percentage and number of late parcels?",
        ]
        return Draft(family=self.name, key=f"{carrier}|{when}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "carrier_performance", "arguments": {"start": start, "end": end}},
        ], "facts": [
            {"name": "on-time rate", "expr": f"{{c1.carriers.{i}.on_time_rate}}", "value": None},
            {"name": "late", "expr": f"{{c1.carriers.{i}.late}}", "value": None},
        ]}], checks=[f"{{c1.carriers.{i}.delivered}} > 0"])


class TopSpendCarrier(Family):
    """The carrier the shop spent most with in a month, and how much."""

    name = "shipping.top-spend-carrier"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        year, month = rng.choice(_months(view))
        start, end = month_window(year, month)
        when = month_name(year, month)
        group = rng.choice(("carrier", "service"))
        user = [
            f"Which {group} did we spend the most on for labels bought in {when}, and what was the net spend after refunds?",
            f"Label spend for {when}: the top {group} by net cost, and that amount.",
        ]
        return Draft(family=self.name, key=f"{group}|{when}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "shipping_spend", "arguments": {"start": start, "end": end, "group_by": group}},
        ], "facts": [
            {"name": f"top {group}", "expr": "{c1.groups.0.key}", "value": None},
            {"name": "net spend (cents)", "expr": "{c1.groups.0.net_cents}", "value": None},
        ]}], checks=["len({c1.groups}) > 0", "len({c1.groups}) == 1 or {c1.groups.0.net_cents} != {c1.groups.1.net_cents}"])


class OpenExceptions(Family):
    """How many exceptions are open, and who the newest one's parcel is for."""

    name = "shipping.open-exceptions"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        kind = rng.choice((None, None, "weather_delay", "delayed", "address_issue", "damaged"))
        args: dict[str, Any] = {"per_page": 1, "status": rng.choice(("open", "resolved")) if kind else "open"}
        if kind:
            args["kind"] = kind
        found = view.read(SERVER, "list_exceptions", **args)
        if not found["total"]:
            return None
        label = f"{args['status']} {kind.replace('_', ' ') + ' ' if kind else ''}exceptions"
        user = [
            f"How many {label} do we have, and who is the recipient of the parcel in the most recent one?",
            f"Count the {label} and tell me the customer whose parcel the latest one is about.",
        ]
        return Draft(family=self.name, key=f"{args['status']}|{kind}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_exceptions", "arguments": args},
            {"id": "c2", "tool": "get_shipment", "bind": {"shipment_id": "{c1.exceptions.0.shipment_id}"}},
        ], "facts": [
            {"name": "count", "expr": "{c1.total}", "value": None},
            {"name": "recipient", "expr": "{c2.recipient_name}", "value": None},
        ]}])


class LateInTransit(Family):
    """Parcels in transit past their estimate: how many, and the most overdue."""

    name = "shipping.late-in-transit"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        carrier = rng.choice((None, "ups", "fedex", "usps", "dhl"))
        args: dict[str, Any] = {"status": ["in_transit", "out_for_delivery"], "late_only": True,
                                "sort_by": "estimated_delivery", "sort_order": "asc", "per_page": 2}
        scope = "parcels"
        if carrier:
            args["carrier"] = carrier
            scope = f"{CARRIER_NAMES[carrier]} parcels"
        if not view.read(SERVER, "search_shipments", **args)["total"]:
            return None
        user = [
            f"How many {scope} still in transit are past their delivery estimate, and which shipment is the most overdue?",
            f"Late {scope} not yet delivered: how many, and the reference of the one whose estimate passed first?",
        ]
        return Draft(family=self.name, key=f"late|{carrier}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_shipments", "arguments": args},
        ], "facts": [
            {"name": "late in transit", "expr": "{c1.total}", "value": None},
            {"name": "most overdue", "expr": "{c1.shipments.0.reference}", "value": None},
        ]}], checks=["{c1.total} == 1 or {c1.shipments.0.estimated_delivery} != {c1.shipments.1.estimated_delivery}"])


# ---------------------------------------------------------------- writes


def _with_valid_quotes(view: WorldView) -> list[Row]:
    return [s for s in _shipments(view, status=["draft"]) if view.read(SERVER, "get_rates", shipment_id=s["id"])["rates"]]


def _quotes_expired(view: WorldView) -> list[Row]:
    return [s for s in _shipments(view, status=["draft"])
            if not view.read(SERVER, "get_rates", shipment_id=s["id"])["rates"]
            and view.read(SERVER, "get_rates", shipment_id=s["id"], include_expired=True)["rates"]]


class BuyCheapest(Family):
    """Buy the cheapest valid quote of a draft, and say its tracking number."""

    name = "shipping.buy-cheapest"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        drafts = _with_valid_quotes(view)
        if not drafts:
            return None
        shipment = rng.choice(drafts)
        level = rng.choice((None, "ground", "two_day"))
        what = _name(shipment)
        service = {"ground": "ground service", "two_day": "two-day service", None: "service"}[level]
        args = {"level": level} if level else {}
        user = [
            f"Buy the label for {what} with the cheapest {service} among its current quotes. What's the tracking number?",
            f"Ship {what}: take the lowest-priced valid {service} quote, buy the label and tell me the tracking number.",
        ]
        return Draft(family=self.name, key=f"ref:{shipment['reference']}|{level}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", shipment),
            {"id": "c2", "tool": "get_rates", "arguments": args, "bind": {"shipment_id": "{c1.id}"}},
            {"id": "c3", "tool": "buy_label", "bind": {"rate_id": "{c2.rates.0.id}"}},
        ], "facts": [{"name": "tracking number", "expr": "{c3.tracking_number}", "value": None}]}],
            checks=["len({c2.rates}) > 0", "len({c2.rates}) == 1 or {c2.rates.0.amount_cents} != {c2.rates.1.amount_cents}"])


class VoidLabel(Family):
    """Void the unscanned label of a shipment and say the refund."""

    name = "shipping.void-label"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        waiting = _waiting(view)
        if not waiting:
            return None
        shipment = rng.choice(waiting)
        what = _name(shipment)
        user = [
            f"The label for {what} was printed with the wrong box size. Void it and tell me how much is refunded.",
            f"Please void the shipping label of {what}; how much do we get back?",
        ]
        return Draft(family=self.name, key=f"ref:{shipment['reference']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", shipment),
            {"id": "c2", "tool": "void_label", "bind": {"tracking_number": "{c1.tracking_number}"}},
        ], "facts": [{"name": "refund (cents)", "expr": "{c2.label.refund_cents}", "value": None}]}])


class FixAddress(Family):
    """Correct the street address of a shipment not yet picked up."""

    name = "shipping.fix-address"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        candidates = _shipments(view, status=["draft", "label_created"])
        if not candidates:
            return None
        shipment = _detail(view, rng.choice(candidates))
        line1 = f"{rng.randint(10, 9999)} {rng.choice(STREETS)}"
        if line1 == shipment["ship_line1"]:
            return None
        city, region, postal = shipment["ship_city"], shipment["ship_region"], shipment["ship_postal_code"]
        what = _name(shipment)
        user = [
            f"The customer moved: change the delivery address of {what} to {line1}, {city}, {region} {postal}.",
            f"Update {what} so it goes to {line1}, {city} {region} {postal} instead.",
        ]
        return Draft(family=self.name, key=f"ref:{shipment['reference']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", shipment),
            {"id": "c2", "tool": "update_delivery_address", "arguments": {
                "ship_line1": line1, "ship_city": city, "ship_region": region, "ship_postal_code": postal},
             "bind": {"shipment_id": "{c1.id}"}},
        ], "facts": []}])


class ReportProblem(Family):
    """Report a delivery exception on a parcel in transit."""

    name = "shipping.report-problem"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        shipment = rng.choice(_in_transit(view))
        kind, note = rng.choice(DAMAGE_NOTES)
        what = _name(shipment)
        label = kind.replace("_", " ")
        user = [
            f"Open a delivery exception ({label}) on {what} with this note: \"{note}\"",
            f"Report a delivery exception of kind '{label}' for {what}; note: \"{note}\"",
        ]
        return Draft(family=self.name, key=f"ref:{shipment['reference']}|{kind}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", shipment),
            {"id": "c2", "tool": "report_exception", "arguments": {"kind": kind, "note": note}, "bind": {"shipment_id": "{c1.id}"}},
        ], "facts": []}])


class ResolveException(Family):
    """Resolve the open exception of a shipment."""

    name = "shipping.resolve-exception"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        candidates = _shipments(view, with_open_exception=True)
        if not candidates:
            return None
        shipment = _detail(view, rng.choice(candidates))
        resolution = rng.choice(RESOLUTIONS)
        what = _name(shipment)
        user = [
            f"Close the open delivery exception on {what} with the resolution \"{resolution}\"",
            f"Mark the exception on {what} as resolved: \"{resolution}\"",
        ]
        return Draft(family=self.name, key=f"ref:{shipment['reference']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", shipment),
            {"id": "c2", "tool": "resolve_exception", "arguments": {"resolution": resolution},
             "bind": {"exception_id": "{c1.exceptions.0.id}"}},
        ], "facts": []}], checks=["{c1.open_exceptions} == 1", "{c1.exceptions.0.status} == 'open'"])


class SchedulePickup(Family):
    """Book a pickup for a waiting label on a business day."""

    name = "shipping.schedule-pickup"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        booked = {label["tracking_number"] for p in view.read(SERVER, "list_pickups", status="scheduled", per_page=100)["pickups"]
                  for label in view.read(SERVER, "get_pickup", pickup_id=p["id"])["labels"]}
        free = [s for s in _waiting(view) if s["tracking_number"] not in booked]
        if not free:
            return None
        shipment = rng.choice(free)
        day = _business_day_after(view.now.date(), rng.randint(1, 3))
        carrier, warehouse = shipment["carrier"], shipment["warehouse_code"]
        what = _name(shipment)
        user = [
            f"Book a {CARRIER_NAMES[carrier]} pickup at the {WAREHOUSE_NAMES[warehouse]} warehouse on {day:%A, %B %-d, %Y} "
            f"for the parcel of {what}, between 14:00 and 18:00. What's the confirmation number?",
            f"Schedule {CARRIER_NAMES[carrier]} to collect {what} from {WAREHOUSE_NAMES[warehouse]} on {day} (window 14:00-18:00), "
            "and give me the pickup confirmation.",
        ]
        return Draft(family=self.name, key=f"ref:{shipment['reference']}|{day}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", shipment),
            {"id": "c2", "tool": "schedule_pickup", "arguments": {
                "carrier": carrier, "warehouse": warehouse, "pickup_date": str(day), "ready_time": "14:00", "close_time": "18:00"},
             "bind": {"tracking_numbers": "[{c1.tracking_number}]"}},
        ], "facts": [{"name": "confirmation", "expr": "{c2.confirmation}", "value": None}]}])


class CancelPickup(Family):
    """Cancel a scheduled pickup by its confirmation number."""

    name = "shipping.cancel-pickup"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        pickups = view.read(SERVER, "list_pickups", status="scheduled", per_page=100)["pickups"]
        if not pickups:
            return None
        pickup = rng.choice(pickups)
        code = pickup["confirmation"]
        user = [
            f"Cancel the carrier pickup {code}; how many parcels were on it?",
            f"We won't be ready: cancel pickup {code}, and tell me how many parcels it had.",
        ]
        return Draft(family=self.name, key=f"pickup:{code}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_pickups", "arguments": {"confirmation": code}},
            {"id": "c2", "tool": "cancel_pickup", "bind": {"pickup_id": "{c1.pickups.0.id}"}},
        ], "facts": [{"name": "parcels", "expr": "{c2.parcels}", "value": None}]}], checks=["{c1.total} == 1"])


class CancelShipment(Family):
    """Cancel a shipment the carrier has not picked up."""

    name = "shipping.cancel-shipment"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        candidates = _shipments(view, status=["draft", "label_created"])
        if not candidates:
            return None
        shipment = rng.choice(candidates)
        what = _name(shipment)
        user = [
            f"Cancel {what}; we are not sending it after all.",
            f"Please cancel the shipment for {what} (void its label if it has one).",
        ]
        return Draft(family=self.name, key=f"ref:{shipment['reference']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", shipment),
            {"id": "c2", "tool": "cancel_shipment", "bind": {"shipment_id": "{c1.id}"}},
        ], "facts": []}])


class NewShipment(Family):
    """Create a shipment for a customer and say the cheapest quote."""

    name = "shipping.new-shipment"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        shipment = _detail(view, rng.choice(_shipments(view, status=["delivered"], page=rng.randint(1, 9))))
        reference = f"NW-{rng.randint(9001, 9999)}"
        if view.lookup(SERVER, "find_shipment_by_reference", reference=reference) is not None:
            return None
        box, length, width, height = rng.choice(PARCELS)
        weight = rng.randint(6, 80)
        contents = rng.choice(CONTENTS)
        email = shipment["recipient_email"]
        address = (f"{shipment['ship_name']}, {shipment['ship_line1']}, {shipment['ship_city']}, "
                   f"{shipment['ship_region']} {shipment['ship_postal_code']}")
        user = [
            f"Create shipment {reference} for the customer {email}: \"{contents}\", a {length}x{width}x{height} in box of "
            f"{weight} oz, to {address}. What's the cheapest quote?",
            f"New shipment {reference} ({contents}) for {email}, to {address}; parcel {length}x{width}x{height} inches, "
            f"{weight} ounces. Which service is cheapest, and at what price?",
        ]
        return Draft(family=self.name, key=f"email:{email}|{reference}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "create_shipment", "arguments": {
                "recipient_email": email, "reference": reference, "ship_name": shipment["ship_name"],
                "ship_line1": shipment["ship_line1"], "ship_city": shipment["ship_city"],
                "ship_region": shipment["ship_region"], "ship_postal_code": shipment["ship_postal_code"],
                "weight_oz": weight, "length_in": length, "width_in": width, "height_in": height, "description": contents}},
        ], "facts": [
            {"name": "cheapest service", "expr": "{c1.rates.0.service_name}", "value": None},
            {"name": "price (cents)", "expr": "{c1.rates.0.amount_cents}", "value": None},
        ]}], checks=["{c1.rates.0.amount_cents} != {c1.rates.1.amount_cents}"])


class VoidIfUnscanned(Family):
    """Void a shipment's label if the carrier has not scanned it; otherwise say when it did."""

    name = "shipping.void-if-unscanned"
    servers = (SERVER,)
    kind = "conditional-write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        pool = _waiting(view) if rng.random() < 0.5 else _in_transit(view)
        if not pool:
            return None
        shipment = rng.choice(pool)
        scanned = shipment["first_scan_at"] is not None
        what = _name(shipment)
        user = [
            f"If the carrier hasn't picked up {what} yet, void its label. Either way, tell me its tracking number.",
            f"Check {what}: void the label unless the carrier already scanned it, and give me the tracking number.",
        ]
        calls: list[Call] = [_find("c1", shipment)]
        if not scanned:
            calls.append({"id": "c2", "tool": "void_label", "bind": {"tracking_number": "{c1.tracking_number}"}})
        return Draft(family=self.name, key=f"ref:{shipment['reference']}", writes=not scanned, turns=[{"user": user, "calls": calls, "facts": [
            {"name": "tracking number", "expr": "{c1.tracking_number}", "value": None}]}])


# ---------------------------------------------------------------- refusals


class VoidAfterPickup(Family):
    """Asked to void the label of a parcel the carrier has picked up: refuse, say when."""

    name = "shipping.void-after-pickup"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        shipment = rng.choice(_in_transit(view) + _shipments(view, status=["delivered"], per_page=20))
        what = _name(shipment)
        user = [
            f"Void the shipping label of {what} and get us the refund. If that's not possible, tell me when the carrier picked it up.",
            f"Please void {what}'s label. If you can't, when was the parcel scanned by the carrier?",
        ]
        return Draft(family=self.name, key=f"ref:{shipment['reference']}", turns=[{"user": user, "calls": [_find("c1", shipment)], "facts": [
            {"name": "picked up", "expr": "{c1.first_scan_at}", "value": None}]}])


class AddressAfterPickup(Family):
    """Asked to change the address of a parcel in transit: refuse, say where it is."""

    name = "shipping.address-after-pickup"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        shipment = rng.choice(_in_transit(view))
        line1 = f"{rng.randint(10, 999)} {rng.choice(STREETS)}"
        what = _name(shipment)
        user = [
            f"Redirect {what} to {line1} in the same city. If that can't be done, tell me the parcel's latest tracking location.",
            f"Change the delivery street of {what} to {line1}; if it's too late, where is the parcel now?",
        ]
        return Draft(family=self.name, key=f"ref:{shipment['reference']}", turns=[{"user": user, "calls": [_find("c1", shipment)], "facts": [
            {"name": "latest location", "expr": "{c1.last_event.location}", "value": None}]}])


class CancelAfterPickup(Family):
    """Asked to cancel a shipment already on its way: refuse, say its estimate."""

    name = "shipping.cancel-after-pickup"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        shipment = rng.choice(_in_transit(view))
        what = _name(shipment)
        user = [
            f"Cancel {what}. If it can't be cancelled any more, tell me when it is due.",
            f"The customer wants {what} cancelled. If that's not allowed, what is its delivery estimate?",
        ]
        return Draft(family=self.name, key=f"ref:{shipment['reference']}", turns=[{"user": user, "calls": [_find("c1", shipment)], "facts": [
            {"name": "estimated delivery", "expr": "{c1.estimated_delivery}", "value": None}]}])


class ExpiredQuote(Family):
    """Asked to buy an old quote that has expired: refuse, say when it expired."""

    name = "shipping.expired-quote"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        drafts = _quotes_expired(view)
        if not drafts:
            return None
        shipment = rng.choice(drafts)
        what = _name(shipment)
        user = [
            f"Buy the cheapest of the quotes we got earlier for {what}, exactly that quote. If it can't be bought, tell me when it expired.",
            f"Use the lowest earlier quote of {what} to buy its label (no re-quoting). If that's not possible, when did that quote expire?",
        ]
        return Draft(family=self.name, key=f"ref:{shipment['reference']}", turns=[{"user": user, "calls": [
            _find("c1", shipment),
            {"id": "c2", "tool": "get_rates", "arguments": {"include_expired": True}, "bind": {"shipment_id": "{c1.id}"}},
        ], "facts": [{"name": "expired at", "expr": "{c2.rates.0.expires_at}", "value": None}]}],
            checks=["{c2.rates.0.is_expired}", "len({c2.rates}) == 1 or {c2.rates.0.amount_cents} != {c2.rates.1.amount_cents}"])


class SecondLabel(Family):
    """Asked to buy another label for a shipment that has one: refuse, say the current one."""

    name = "shipping.second-label"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        waiting = _waiting(view)
        if not waiting:
            return None
        shipment = rng.choice(waiting)
        what = _name(shipment)
        user = [
            f"Get fresh rates for {what} and buy an extra overnight label as well, keeping the current one. "
            "If that's not allowed, tell me the tracking number of the label it has.",
            f"I want a second label for {what} (overnight) on top of the existing one. If you can't, which tracking number does it have now?",
        ]
        return Draft(family=self.name, key=f"ref:{shipment['reference']}", turns=[{"user": user, "calls": [_find("c1", shipment)], "facts": [
            {"name": "current tracking number", "expr": "{c1.tracking_number}", "value": None}]}])


class DuplicateReference(Family):
    """Asked to create a second shipment for an order that has one: refuse, say its status."""

    name = "shipping.duplicate-reference"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        shipment = _detail(view, rng.choice(_in_transit(view) + _shipments(view, status=["delivered"], per_page=20)))
        if not shipment["reference"].startswith("#"):
            return None
        reference = shipment["reference"]
        user = [
            f"Create a new shipment for order {reference} to {shipment['ship_name']} at {shipment['ship_line1']}, "
            f"{shipment['ship_city']}, {shipment['ship_region']} {shipment['ship_postal_code']} (16 oz, 8x6x4 in). "
            "If the order can't get another shipment, tell me the status of its existing one.",
            f"Set up another shipment for order {reference} (same address, 16 oz small box). If that's not allowed, what's the status of the shipment it already has?",
        ]
        return Draft(family=self.name, key=f"ref:{reference}", turns=[{"user": user, "calls": [_find("c1", shipment)], "facts": [
            {"name": "existing shipment status", "expr": "{c1.status}", "value": None}]}])


class WeekendPickup(Family):
    """Asked to book a pickup on a weekend day: refuse, say which carrier the label is with."""

    name = "shipping.weekend-pickup"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        waiting = _waiting(view)
        if not waiting:
            return None
        shipment = rng.choice(waiting)
        today = view.now.date()
        saturday = today + timedelta(days=(5 - today.weekday()) % 7 or 7)
        day = saturday + timedelta(days=rng.choice((0, 1)))
        what = _name(shipment)
        user = [
            f"Book a pickup for {what} on {day:%A, %B %-d, %Y}. If that day isn't possible, tell me which carrier its label is with.",
            f"Have the carrier collect {what} on {day} ({day:%A}). If you can't book that, who is the carrier?",
        ]
        return Draft(family=self.name, key=f"ref:{shipment['reference']}|{day}", turns=[{"user": user, "calls": [_find("c1", shipment)], "facts": [
            {"name": "carrier", "expr": "{c1.carrier}", "value": None}]}])


class PickupScannedLabel(Family):
    """Asked to put a parcel already on its way on a new pickup: refuse, say when it was scanned."""

    name = "shipping.pickup-scanned-label"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        shipment = rng.choice(_in_transit(view))
        day = _business_day_after(view.now.date(), 1)
        what = _name(shipment)
        user = [
            f"Book a pickup for {day} and put the parcel of {what} on it. If it can't go on a pickup, tell me when the carrier scanned it.",
            f"Schedule the carrier to collect {what} on {day}. If that's not possible, when was it first scanned?",
        ]
        return Draft(family=self.name, key=f"ref:{shipment['reference']}", turns=[{"user": user, "calls": [_find("c1", shipment)], "facts": [
            {"name": "first scan", "expr": "{c1.first_scan_at}", "value": None}]}])


class CancelPastPickup(Family):
    """Asked to cancel a pickup that already happened: refuse, say how many parcels it took."""

    name = "shipping.cancel-past-pickup"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        pickups = view.read(SERVER, "list_pickups", status="completed", per_page=50, page=rng.randint(1, 5))["pickups"]
        if not pickups:
            return None
        pickup = rng.choice(pickups)
        code = pickup["confirmation"]
        user = [
            f"Cancel the pickup {code}. If it can't be cancelled, tell me on which day it was and how many parcels it took.",
            f"Please call off pickup {code}; if that's not possible, what was its date and parcel count?",
        ]
        return Draft(family=self.name, key=f"pickup:{code}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_pickups", "arguments": {"confirmation": code}},
        ], "facts": [
            {"name": "day", "expr": "{c1.pickups.0.pickup_date}", "value": None},
            {"name": "parcels", "expr": "{c1.pickups.0.parcels}", "value": None},
        ]}], checks=["{c1.total} == 1"])


class ExceptionOnDelivered(Family):
    """Asked to open an exception on a delivered parcel: refuse, say when it was delivered."""

    name = "shipping.exception-on-delivered"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        shipment = rng.choice(_shipments(view, status=["delivered"], page=rng.randint(1, 9)))
        what = _name(shipment)
        user = [
            f"Report a 'damaged' delivery exception on {what}. If the carrier can't take one any more, tell me when it was delivered.",
            f"Open a damage exception for {what}; if that's not allowed, when did it arrive?",
        ]
        return Draft(family=self.name, key=f"ref:{shipment['reference']}", turns=[{"user": user, "calls": [_find("c1", shipment)], "facts": [
            {"name": "delivered at", "expr": "{c1.delivered_at}", "value": None}]}])


# ---------------------------------------------------------------- two turns


class RequoteThenBuy(Family):
    """Two turns: fresh quotes for a draft whose quotes expired, then buy the cheapest."""

    name = "shipping.requote-then-buy"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        drafts = _quotes_expired(view) or _with_valid_quotes(view)
        if not drafts:
            return None
        shipment = rng.choice(drafts)
        what = _name(shipment)
        first = [
            f"Get fresh rates for {what}. What's the cheapest service now, and its price?",
            f"Re-quote {what} and tell me the lowest current rate.",
        ]
        second = ["Buy that one. What's the tracking number?", "Go ahead and buy the label with that rate; tracking number?"]
        return Draft(family=self.name, key=f"ref:{shipment['reference']}", writes=True, turns=[
            {"user": first, "calls": [
                _find("c1", shipment),
                {"id": "c2", "tool": "refresh_rates", "bind": {"shipment_id": "{c1.id}"}},
            ], "facts": [
                {"name": "cheapest", "expr": "{c2.rates.0.service_name}", "value": None},
                {"name": "price (cents)", "expr": "{c2.rates.0.amount_cents}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c3", "tool": "buy_label", "bind": {"rate_id": "{c2.rates.0.id}"}},
            ], "facts": [{"name": "tracking number", "expr": "{c3.tracking_number}", "value": None}]},
        ], checks=["{c2.rates.0.amount_cents} != {c2.rates.1.amount_cents}"])


class TrackThenReport(Family):
    """Two turns: where a late parcel is, then a delay reported on it."""

    name = "shipping.track-then-report"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        shipment = rng.choice(_in_transit(view))
        what = _name(shipment)
        note = "Customer chased us; please expedite and confirm a new delivery date."
        first = [
            f"Where is {what}, and is it late?",
            f"Check on {what}: latest tracking event, and whether it's past its estimate.",
        ]
        second = [f"Report a 'delayed' exception on it with the note \"{note}\"",
                  f"Open a delayed exception for it: \"{note}\""]
        return Draft(family=self.name, key=f"ref:{shipment['reference']}", writes=True, turns=[
            {"user": first, "calls": [_find("c1", shipment)], "facts": [
                {"name": "last event", "expr": "{c1.last_event.description}", "value": None},
                {"name": "late", "expr": "{c1.is_late}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c2", "tool": "report_exception", "arguments": {"kind": "delayed", "note": note}, "bind": {"shipment_id": "{c1.id}"}},
            ], "facts": []},
        ])


# ---------------------------------------------------------------- with the help desk and the shop


class LateParcelTicket(Family):
    """A help-desk ticket's requester asks about a parcel: their latest shipment's last
    tracking event, replied on the ticket."""

    name = "cross.shipping-late-parcel-ticket"
    servers = ("zendesk", SERVER)
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        shipment = rng.choice(_in_transit(view))
        email = shipment["recipient_email"]
        latest = view.read(SERVER, "search_shipments", recipient_email=email, per_page=2)["shipments"]
        if latest[0]["id"] != shipment["id"]:
            return None
        users = view.read("zendesk", "search_users", query=email)["users"]
        users = [u for u in users if u["email"] == email]
        if not users:
            return None
        tickets = view.read("zendesk", "search_tickets", requester_id=users[0]["id"],
                            status=["new", "open", "pending", "hold"], per_page=20)["tickets"]
        if not tickets:
            return None
        ticket = rng.choice(tickets)["id"]
        prefix = "Latest tracking update on your parcel: "
        user = [
            f"The requester of ticket #{ticket} says their parcel is late. Find their most recent shipment, check its last "
            f"tracking event, and reply publicly on the ticket with \"{prefix}<event description>\". Which order is it and is it late?",
            f"Ticket {ticket}: the customer is chasing a parcel. Look up their latest shipment's last tracking event, post the "
            f"public reply \"{prefix}<event description>\" on the ticket, and tell me the shipment reference and whether it's late.",
        ]
        return Draft(family=self.name, key=f"ticket:{ticket}", known=["ticket_id"], writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "server": "zendesk", "tool": "get_ticket", "arguments": {"ticket_id": ticket}},
            {"id": "c2", "server": "zendesk", "tool": "get_user", "bind": {"user_id": "{c1.requester_id}"}},
            {"id": "c3", "server": SERVER, "tool": "search_shipments", "arguments": {"per_page": 2},
             "bind": {"recipient_email": "{c2.email}"}},
            {"id": "c4", "server": SERVER, "tool": "track_package", "bind": {"tracking_number": "{c3.shipments.0.tracking_number}"}},
            {"id": "c5", "server": "zendesk", "tool": "add_comment", "arguments": {"public": True},
             "bind": {"ticket_id": "{c1.id}", "body": f"\"{prefix}\" + {{c4.last_event.description}}"}},
        ], "facts": [
            {"name": "shipment", "expr": "{c3.shipments.0.reference}", "value": None},
            {"name": "late", "expr": "{c4.is_late}", "value": None},
        ]}], checks=["len({c3.shipments}) == 1 or {c3.shipments.0.created_at} != {c3.shipments.1.created_at}"])


class ShipPaidOrder(Family):
    """A paid shop order without a shipment: its address from the shop, a shipment created
    under its number, and the cheapest quote."""

    name = "cross.shipping-ship-paid-order"
    servers = ("retail", SERVER)
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        orders = view.read("retail", "search_orders", status="paid", per_page=100)["orders"]
        unshipped = [o for o in orders if view.lookup(SERVER, "find_shipment_by_reference", reference=o["number"]) is None]
        if not unshipped:
            return None
        order = rng.choice(unshipped)
        number = order["number"]
        box, length, width, height = rng.choice(PARCELS)
        weight = rng.randint(8, 90)
        user = [
            f"Order {number} is packed: a {length}x{width}x{height} in box weighing {weight} oz. Create its shipment to the "
            "order's shipping address, with the order number as reference. What's the cheapest quote?",
            f"Ship order {number} ({weight} oz, box {length}x{width}x{height} inches) to the address on the order, referenced "
            "by the order number; which service is cheapest and for how much?",
        ]
        return Draft(family=self.name, key=f"order:{number}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "server": "retail", "tool": "get_order", "arguments": {"order_number": number}},
            {"id": "c2", "server": SERVER, "tool": "create_shipment", "arguments": {
                "weight_oz": weight, "length_in": length, "width_in": width, "height_in": height},
             "bind": {"recipient_email": "{c1.customer_email}", "reference": "{c1.number}", "ship_name": "{c1.ship_name}",
                      "ship_line1": "{c1.ship_line1}", "ship_city": "{c1.ship_city}", "ship_region": "{c1.ship_region}",
                      "ship_postal_code": "{c1.ship_postal_code}"}},
        ], "facts": [
            {"name": "cheapest service", "expr": "{c2.rates.0.service_name}", "value": None},
            {"name": "price (cents)", "expr": "{c2.rates.0.amount_cents}", "value": None},
        ]}], checks=["{c2.rates.0.amount_cents} != {c2.rates.1.amount_cents}"])


SHIPPING_FAMILIES: tuple[Family, ...] = (
    WhereIsOrder(), TrackNumber(), CustomerShipments(), ServiceTransit(), WarehouseBacklog(), PickupManifest(),
    CheapestQuote(), CarrierOnTime(), TopSpendCarrier(), OpenExceptions(), LateInTransit(),
    BuyCheapest(), VoidLabel(), FixAddress(), ReportProblem(), ResolveException(), SchedulePickup(), CancelPickup(),
    CancelShipment(), NewShipment(), VoidIfUnscanned(),
    VoidAfterPickup(), AddressAfterPickup(), CancelAfterPickup(), ExpiredQuote(), SecondLabel(), DuplicateReference(),
    WeekendPickup(), PickupScannedLabel(), CancelPastPickup(), ExceptionOnDelivered(),
    RequoteThenBuy(), TrackThenReport(),
    LateParcelTicket(), ShipPaidOrder(),
)
"""Every shipping family, the cross-server ones (with the help desk and the shop) last."""
