"""The seeded carrier account: fifteen months of Northwind's shop shipments.

Every shipped or delivered retail order has a shipment whose reference is the order number and
whose address is the order's: a label bought a few hours before the carrier's first scan (at or
after the order's `shipped_at`), tracking events through the carrier's hub, and the delivered
event at the order's `delivered_at`. Paid orders wait as drafts with rate quotes or with a label
not yet picked up (a few are not packed yet and have no shipment). Exchanges ship their replacement under the return's number (R1034), and the
shop's own shipments (replacements, samples, warranty parts) go out as NW-5001, NW-5002, ...
Some parcels run late with a delivery exception; scanned labels leave on completed pickups, and
a few labels wait for tomorrow's scheduled pickup.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import Insert
from sqlalchemy.orm import Session

from mcpgym.servers.kernel.links import seeded_rows
from mcpgym.servers.kernel.world import World
from mcpgym.servers.shipping.data import (
    CARRIERS,
    HUBS,
    PARCEL_KINDS,
    SERVICES,
    WAREHOUSES,
    add_business_days,
    next_business_day,
    pickup_confirmation,
    price_cents,
    tracking_number,
    transit_days,
    warehouse_for,
    zone,
)
from mcpgym.servers.shipping.models import (
    RATE_VALID_HOURS,
    Base,
    Carrier,
    DeliveryException,
    Label,
    Parcel,
    Pickup,
    PickupLabel,
    Rate,
    Recipient,
    Service,
    Shipment,
    TrackingEvent,
    Warehouse,
)

MANUAL_SHIPMENTS = 90
"""The shop's own shipments (NW-...) over the history."""
MANUAL_RECENT = 22
"""Of those, shipments made in the last days that the carrier has not scanned yet."""
HISTORY_DAYS = 450
MANUAL_KINDS = ("Replacement for a damaged item", "Warranty replacement part", "Product samples",
                "Gift for a loyal customer", "Missing item from the original order", "Press kit")
EXCEPTION_NOTES = {
    "weather_delay": ("Severe weather at the hub delayed the linehaul.", "Winter storm: trailers held at the hub.",
                      "Flooding closed the route; parcel rerouted."),
    "address_issue": ("Address incomplete: apartment number missing.", "Street number not found by the driver.",
                      "Business closed at delivery attempt; no receiver."),
    "damaged": ("Box crushed in transit; contents being checked.", "Parcel arrived at facility with torn packaging."),
    "delayed": ("Missed the scheduled linehaul; next departure tomorrow.", "Volume backlog at the sorting hub."),
    "lost": ("No scan for several days; trace opened with the carrier.",),
    "refused": ("Recipient refused the delivery.",),
}
RESOLUTIONS = {
    "weather_delay": "Delivered once the route reopened.",
    "address_issue": "Customer confirmed the full address; delivered on the next attempt.",
    "damaged": "Repacked by the carrier and delivered; customer confirmed the item is fine.",
    "delayed": "Caught up on the next linehaul and delivered.",
    "lost": "Parcel found at the hub and delivered.",
    "refused": "Customer accepted on the second attempt.",
}
CARRIER_MIX = {"ups": 4, "fedex": 3, "usps": 4, "dhl": 1}
"""How often the shop picks each carrier."""
DELIVERY_NOTES = ("Delivered, front door", "Delivered, left with reception", "Delivered, mailbox",
                  "Delivered, handed to resident", "Delivered, parcel locker", "Delivered, side porch")


@dataclass
class Plan:
    """A shipment being seeded, with its label history and events."""

    row: dict[str, Any]
    parcels: list[dict[str, Any]]
    weight: int
    labels: list[dict[str, Any]] = field(default_factory=list)
    rates: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    exceptions: list[dict[str, Any]] = field(default_factory=list)


def _second(t: datetime) -> datetime:
    return t.replace(microsecond=0)


def _time(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def _insert(model: type[Base]) -> Insert:
    return model.__table__.insert()  # type: ignore[attr-defined, no-any-return]


class Seeder:
    """Builds the rows of one world, in memory, then writes them in one pass."""

    def __init__(self, world: World, rng: random.Random) -> None:
        self.world, self.rng, self.now = world, rng, world.now
        self.carriers = [{"id": i, "code": c, "name": n, "account_number": a, "tracking_url": u}
                         for i, (c, n, a, u) in enumerate(CARRIERS, start=1)]
        carrier_id = {c["code"]: c["id"] for c in self.carriers}
        self.services = [{"id": i, "carrier_id": carrier_id[c], "code": code, "name": name, "level": level,
                          "transit_days": days, "base_cents": base, "per_lb_cents": per_lb}
                         for i, (c, code, name, level, days, base, per_lb) in enumerate(SERVICES, start=1)]
        self.carrier_of = {s["id"]: self.carriers[s["carrier_id"] - 1] for s in self.services}
        self.warehouses = [{"id": i, "code": code, "name": name, "line1": line1, "city": city, "region": region,
                            "postal_code": postal, "country": "United States", "timezone": tz}
                           for i, (code, name, line1, city, region, postal, tz) in enumerate(WAREHOUSES, start=1)]
        self.plans: list[Plan] = []
        self.recipients: dict[str, dict[str, Any]] = {}
        self.label_count = 0

    # ------------------------------------------------------------ building blocks

    def recipient(self, customer: dict[str, Any]) -> int:
        found = self.recipients.get(customer["email"])
        if found is None:
            found = {"id": len(self.recipients) + 1, "external_id": customer["external_id"] or f"cus_{customer['id']}",
                     "name": customer["name"], "email": customer["email"], "phone": customer["phone"] or "",
                     "organization_name": customer["organization_name"] or ""}
            self.recipients[customer["email"]] = found
        return int(found["id"])

    def new_plan(self, reference: str, recipient_id: int, address: dict[str, Any], created: datetime,
                 description: str, units: int) -> Plan:
        warehouse = self.warehouses[warehouse_for(address["postal_code"])]
        kind = PARCEL_KINDS[min(len(PARCEL_KINDS) - 1, self.rng.choice((0, 1, 1, 2, 2, 3)) + (units > 3))]
        name, length, width, height = kind
        count = 2 if units >= 6 and self.rng.random() < 0.5 else 1
        parcels = []
        for _ in range(count):
            weight = max(3, int(units * self.rng.uniform(6, 22) / count) + self.rng.randint(2, 8))
            parcels.append({"weight_oz": weight, "length_in": length, "width_in": width, "height_in": height,
                            "description": f"{name}: {description}"[:200]})
        row = {"id": len(self.plans) + 1, "reference": reference, "recipient_id": recipient_id,
               "warehouse_id": warehouse["id"], "status": "draft", "service_id": None,
               "ship_name": address["name"], "ship_line1": address["line1"], "ship_city": address["city"],
               "ship_region": address["region"], "ship_postal_code": address["postal_code"],
               "ship_country": address["country"], "created_at": _second(created), "first_scan_at": None,
               "estimated_delivery": None, "delivered_at": None, "cancelled_at": None}
        plan = Plan(row, parcels, sum(p["weight_oz"] for p in parcels))
        self.plans.append(plan)
        return plan

    def zone_of(self, plan: Plan) -> int:
        return zone(self.warehouses[plan.row["warehouse_id"] - 1]["postal_code"], plan.row["ship_postal_code"])

    def quote(self, plan: Plan, at: datetime, level: str | None = None) -> list[dict[str, Any]]:
        """A quote for every service (of `level`, when given) at `at`, valid `RATE_VALID_HOURS`."""
        at = _second(at)
        number = self.zone_of(plan)
        services = [s for s in self.services if level is None or s["level"] == level]
        rates = [{"id": 0, "shipment_id": plan.row["id"], "service_id": s["id"],
                  "amount_cents": price_cents(s["base_cents"], s["per_lb_cents"], plan.weight, number),
                  "currency": "USD", "estimated_days": transit_days(s["transit_days"], s["level"], number),
                  "quoted_at": at, "expires_at": at + timedelta(hours=RATE_VALID_HOURS)} for s in services]
        plan.rates += rates
        return rates

    def buy(self, plan: Plan, service_id: int, at: datetime) -> dict[str, Any]:
        """A label from a fresh quote for `service_id`, bought a few minutes after quoting."""
        level = self.services[service_id - 1]["level"]
        rates = self.quote(plan, at - timedelta(minutes=self.rng.uniform(2, 40)), level)
        rate = next(r for r in rates if r["service_id"] == service_id)
        self.label_count += 1
        label = {"id": self.label_count, "shipment_id": plan.row["id"], "rate": rate, "service_id": service_id,
                 "tracking_number": "", "cost_cents": rate["amount_cents"], "status": "active",
                 "created_at": _second(at), "voided_at": None, "refund_cents": 0}
        carrier = self.carrier_of[service_id]
        label["tracking_number"] = tracking_number(carrier["code"], carrier["account_number"], label["id"])
        plan.labels.append(label)
        plan.row.update(status="label_created", service_id=service_id)
        self.event(plan, "label_created", "Shipping label created; awaiting pickup", self.origin(plan), at)
        return label

    def origin(self, plan: Plan) -> str:
        warehouse = self.warehouses[plan.row["warehouse_id"] - 1]
        return f"{warehouse['city']}, {warehouse['region']}"

    def destination(self, plan: Plan) -> str:
        return f"{plan.row['ship_city']}, {plan.row['ship_region']}"

    def event(self, plan: Plan, status: str, description: str, location: str, at: datetime) -> None:
        plan.events.append({"label": plan.labels[-1], "status": status, "description": description,
                            "location": location, "occurred_at": _second(at)})

    def service_for(self, plan: Plan, express: bool, days: int | None) -> int:
        """A service id: express orders two-day or overnight (overnight when delivered within a
        business day), standard ones ground. The carrier is drawn by the shop's mix, mostly among
        those whose estimate covers the `days` the parcel actually took."""
        level = "ground"
        if express:
            level = "overnight" if days is not None and days <= 1 else "two_day"
        options = [s for s in self.services if s["level"] == level]
        if days is not None and self.rng.random() < 0.9:
            number = self.zone_of(plan)
            fitting = [s for s in options if transit_days(s["transit_days"], level, number) >= days]
            options = fitting or options
        weights = [CARRIER_MIX[self.carrier_of[s["id"]]["code"]] for s in options]
        return int(self.rng.choices(options, weights)[0]["id"])

    def ship(self, plan: Plan, service_id: int, scan: datetime, delivered: datetime | None) -> None:
        """Label, first scan at `scan`, transit through the hub, delivery at `delivered` (or,
        when None, as far as the clock has come); late parcels get an exception."""
        rng, now = self.rng, self.now
        label_at = max(plan.row["created_at"] + timedelta(minutes=10), scan - timedelta(hours=rng.uniform(2, 20)))
        self.buy(plan, service_id, label_at)
        service = self.services[service_id - 1]
        carrier = self.carrier_of[service_id]
        days = transit_days(service["transit_days"], service["level"], self.zone_of(plan))
        estimate = add_business_days(scan.date(), days)
        plan.row.update(status="in_transit", first_scan_at=_second(scan), estimated_delivery=estimate)
        self.event(plan, "picked_up", f"Picked up by {carrier['name']}", self.origin(plan), scan)
        end = delivered or now
        span = (end - scan).total_seconds()
        steps = [(0.12, "in_transit", "Departed origin facility", self.origin(plan)),
                 (0.45, "in_transit", "Arrived at sorting hub", HUBS[carrier["code"]]),
                 (0.6, "in_transit", "Departed sorting hub", HUBS[carrier["code"]]),
                 (0.85, "in_transit", "Arrived at destination facility", self.destination(plan))]
        late = (delivered.date() > estimate) if delivered else estimate < now.date()
        kind = None
        if late or rng.random() < 0.03:
            kind = rng.choices(("weather_delay", "delayed", "address_issue", "damaged", "lost"), (4, 4, 3, 1, 1))[0]
        if delivered is None and span < 36 * 3600:
            steps = steps[: 1 + int(span // (12 * 3600))]
        for share, status, text, where in steps:
            at = scan + timedelta(seconds=span * share * rng.uniform(0.85, 1.0))
            if at < end:
                self.event(plan, status, text, where, at)
        if kind is not None:
            at = scan + timedelta(seconds=span * rng.uniform(0.5, 0.8))
            if delivered is None:
                last = plan.events[-1]["occurred_at"]
                at = last + (end - last) * rng.uniform(0.3, 0.8)
            where = self.destination(plan) if kind == "address_issue" else HUBS[carrier["code"]]
            note = rng.choice(EXCEPTION_NOTES[kind])
            self.event(plan, "exception", note, where, at)
            resolved = delivered is not None
            plan.exceptions.append({"kind": kind, "note": note, "reported_by": "carrier",
                                    "status": "resolved" if resolved else "open", "reported_at": _second(at),
                                    "resolved_at": _second(delivered) if delivered else None,
                                    "resolution": RESOLUTIONS[kind] if resolved else ""})
        if delivered is not None:
            out = max(delivered - timedelta(hours=rng.uniform(2, 7)), scan + timedelta(seconds=span * 0.9))
            self.event(plan, "out_for_delivery", "Out for delivery", self.destination(plan), out)
            self.event(plan, "delivered", rng.choice(DELIVERY_NOTES), self.destination(plan), delivered)
            plan.row.update(status="delivered", delivered_at=_second(delivered))
        elif kind is None and estimate <= now.date() and now.hour >= 12:
            self.event(plan, "out_for_delivery", "Out for delivery", self.destination(plan),
                       now - timedelta(hours=rng.uniform(1, 5)))
            plan.row["status"] = "out_for_delivery"
        plan.events.sort(key=lambda e: e["occurred_at"])

    def wait(self, plan: Plan, since: datetime) -> None:
        """A shipment not yet scanned: a draft with quotes (some expired) or a label bought."""
        rng, now = self.rng, self.now
        roll = rng.random()
        if roll < 0.5:
            at = max(since + timedelta(minutes=5), now - timedelta(hours=rng.uniform(1, 30)))
            self.buy(plan, self.service_for(plan, rng.random() < 0.25, None), min(at, now - timedelta(minutes=20)))
        else:
            quoted = since + timedelta(minutes=rng.uniform(3, 60))
            if roll < 0.75:
                quoted = max(quoted, now - timedelta(hours=rng.uniform(1, 20)))
            self.quote(plan, min(quoted, now - timedelta(minutes=10)))

    # ------------------------------------------------------------ the three sources

    def orders(self, orders: list[dict[str, Any]], customers: dict[int, dict[str, Any]],
               units: dict[int, int], items: dict[int, str]) -> None:
        rng = self.rng
        for order in orders:
            status = order["status"]
            paid, shipped, delivered = _time(order["paid_at"]), _time(order["shipped_at"]), _time(order["delivered_at"])
            cancelled = _time(order["cancelled_at"])
            if status in ("pending",) or paid is None:
                continue
            if status == "paid" and rng.random() < 0.3:
                continue  # not packed yet: no shipment
            if status == "cancelled" and (cancelled is None or cancelled - paid < timedelta(hours=3)
                                          or rng.random() < 0.6):
                continue
            customer = customers[order["customer_id"]]
            address = {"name": order["ship_name"], "line1": order["ship_line1"], "city": order["ship_city"],
                       "region": order["ship_region"], "postal_code": order["ship_postal_code"],
                       "country": order["ship_country"]}
            created = min(paid + timedelta(minutes=rng.uniform(5, 180)), self.now - timedelta(minutes=1))
            if shipped is not None:
                created = min(created, shipped - timedelta(hours=3))
            if status == "cancelled":
                created = min(created, cancelled - timedelta(hours=2))  # type: ignore[operator]
            plan = self.new_plan(order["number"], self.recipient(customer), address, created,
                                 items.get(order["id"], "Order items"), units.get(order["id"], 1))
            express = order["shipping_method"] == "express"
            if status in ("shipped", "delivered") and shipped is not None:
                scan = shipped + timedelta(minutes=rng.uniform(0, 90))
                if delivered is not None:
                    scan = max(shipped, min(scan, delivered - timedelta(hours=8)))
                days = None if delivered is None else _business_days_between(scan.date(), delivered.date())
                self.ship(plan, self.service_for(plan, express, days), scan, delivered)
            elif status == "cancelled":
                self.cancel(plan, created, cancelled)  # type: ignore[arg-type]
            else:
                self.wait(plan, created)

    def cancel(self, plan: Plan, created: datetime, cancelled: datetime) -> None:
        """A shipment cancelled with its order: its label (if bought) voided and refunded."""
        if self.rng.random() < 0.6:
            label = self.buy(plan, self.service_for(plan, False, None),
                             created + (cancelled - created) * self.rng.uniform(0.1, 0.6))
            label.update(status="voided", voided_at=_second(cancelled), refund_cents=label["cost_cents"])
        else:
            self.quote(plan, created)
        plan.row.update(status="cancelled", cancelled_at=_second(cancelled))

    def exchanges(self, returns: list[dict[str, Any]], orders: dict[int, dict[str, Any]],
                  customers: dict[int, dict[str, Any]], items: dict[int, str]) -> None:
        """The replacement of each exchange, shipped under the return's number."""
        rng, now = self.rng, self.now
        for ret in returns:
            if ret["status"] == "cancelled":
                continue
            order = orders[ret["order_id"]]
            created = _time(ret["created_at"]) + timedelta(hours=rng.uniform(1, 30))  # type: ignore[operator]
            if created >= now - timedelta(hours=1):
                created = now - timedelta(hours=1)
            address = {"name": order["ship_name"], "line1": order["ship_line1"], "city": order["ship_city"],
                       "region": order["ship_region"], "postal_code": order["ship_postal_code"],
                       "country": order["ship_country"]}
            plan = self.new_plan(ret["number"], self.recipient(customers[order["customer_id"]]), address, created,
                                 f"Exchange for {items.get(order['id'], 'an item')}", 1)
            if ret["status"] == "requested":
                self.wait(plan, created)
                continue
            self.ship_after(plan, created)

    def ship_after(self, plan: Plan, created: datetime) -> None:
        """Scanned on the next business day after `created` and delivered when its transit
        says, unless that is still ahead."""
        rng, now = self.rng, self.now
        day = next_business_day(created)
        scan = datetime.combine(day, datetime.min.time()) + timedelta(hours=rng.uniform(19, 23))
        if scan >= now:
            self.wait(plan, created)
            return
        service_id = self.service_for(plan, rng.random() < 0.3, None)
        service = self.services[service_id - 1]
        days = transit_days(service["transit_days"], service["level"], self.zone_of(plan))
        if rng.random() < 0.1:
            days += rng.randint(1, 3)
        arrive = datetime.combine(add_business_days(scan.date(), days), datetime.min.time()) + timedelta(
            hours=rng.uniform(15, 23))
        self.ship(plan, service_id, scan, arrive if arrive < now else None)

    def manual(self, customers: list[dict[str, Any]]) -> None:
        """The shop's own shipments: replacements, samples and parts, the latest not yet scanned."""
        rng, now = self.rng, self.now
        times = sorted(now - timedelta(days=rng.uniform(4, HISTORY_DAYS)) for _ in range(MANUAL_SHIPMENTS - MANUAL_RECENT))
        times += sorted(now - timedelta(hours=rng.uniform(2, 70)) for _ in range(MANUAL_RECENT))
        for index, created in enumerate(times):
            customer = rng.choice(customers)
            address = {"name": customer["name"], "line1": customer["address_line1"], "city": customer["city"],
                       "region": customer["region"], "postal_code": customer["postal_code"],
                       "country": customer["country"]}
            plan = self.new_plan(f"NW-{5001 + index}", self.recipient(customer), address, created,
                                 rng.choice(MANUAL_KINDS), rng.randint(1, 4))
            if index >= MANUAL_SHIPMENTS - MANUAL_RECENT:
                self.wait(plan, created)
            elif rng.random() < 0.06:
                self.cancel(plan, created, created + timedelta(hours=rng.uniform(3, 30)))
            else:
                self.ship_after(plan, created)

    # ------------------------------------------------------------ pickups and output

    def pickups(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """A completed pickup per warehouse, carrier and day of first scans; tomorrow's
        scheduled pickups for some waiting labels; a few cancelled ones."""
        rng, now = self.rng, self.now
        groups: dict[tuple[int, int, date], list[tuple[dict[str, Any], datetime]]] = defaultdict(list)
        waiting: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
        for plan in self.plans:
            if not plan.labels or plan.labels[-1]["status"] != "active":
                continue
            label = plan.labels[-1]
            carrier = self.carrier_of[label["service_id"]]["id"]
            if plan.row["first_scan_at"] is not None:
                groups[(plan.row["warehouse_id"], carrier, plan.row["first_scan_at"].date())].append(
                    (label, plan.row["first_scan_at"]))
            else:
                waiting[(plan.row["warehouse_id"], carrier)].append(label)
        pickups: list[dict[str, Any]] = []
        links: list[dict[str, Any]] = []

        def add(warehouse: int, carrier: int, day: date, status: str, created: datetime,
                labels: list[dict[str, Any]], cancelled: datetime | None = None) -> None:
            pickup_id = len(pickups) + 1
            ready = rng.choice(("12:00", "13:00", "14:00"))
            pickups.append({"id": pickup_id, "confirmation": pickup_confirmation(self.carriers[carrier - 1]["code"], pickup_id),
                            "carrier_id": carrier, "warehouse_id": warehouse, "pickup_date": day,
                            "ready_time": ready, "close_time": rng.choice(("17:00", "18:00")), "status": status,
                            "created_at": _second(created), "cancelled_at": cancelled and _second(cancelled)})
            links.extend({"pickup_id": pickup_id, "label_id": label["id"]} for label in labels)

        for (warehouse, carrier, day), labels in sorted(groups.items(), key=lambda item: (item[0][2], item[0][0], item[0][1])):
            created = min(label["created_at"] for label, _ in labels)
            if rng.random() < 0.03:
                add(warehouse, carrier, day, "cancelled", created - timedelta(days=1), [],
                    created - timedelta(hours=rng.uniform(1, 12)))
            add(warehouse, carrier, day, "completed", created, sorted((label for label, _ in labels), key=lambda l: l["id"]))
        tomorrow = next_business_day(now)
        for (warehouse, carrier), labels in sorted(waiting.items()):
            chosen = [label for label in labels if rng.random() < 0.5]
            if chosen:
                add(warehouse, carrier, tomorrow, "scheduled", max(label["created_at"] for label in chosen),
                    sorted(chosen, key=lambda l: l["id"]))
        return pickups, links

    def write(self, db: Session) -> None:
        rate_rows, label_rows, event_rows, exception_rows = [], [], [], []
        for plan in self.plans:
            for rate in plan.rates:
                rate["id"] = len(rate_rows) + 1
                rate_rows.append(rate)
        for plan in self.plans:
            for label in plan.labels:
                label_rows.append({**{k: v for k, v in label.items() if k != "rate"}, "rate_id": label["rate"]["id"]})
        label_rows.sort(key=lambda l: l["id"])
        events = sorted((e for plan in self.plans for e in plan.events),
                        key=lambda e: (e["occurred_at"], e["label"]["id"]))
        for event in events:
            event_rows.append({"id": len(event_rows) + 1, "shipment_id": event["label"]["shipment_id"],
                               "label_id": event["label"]["id"], "status": event["status"],
                               "description": event["description"], "location": event["location"],
                               "occurred_at": event["occurred_at"]})
        exceptions = sorted(((plan.row["id"], e) for plan in self.plans for e in plan.exceptions),
                            key=lambda pair: (pair[1]["reported_at"], pair[0]))
        for shipment_id, exc in exceptions:
            exception_rows.append({"id": len(exception_rows) + 1, "shipment_id": shipment_id, **exc})
        parcels = [{"id": 0, "shipment_id": plan.row["id"], **parcel} for plan in self.plans for parcel in plan.parcels]
        for index, parcel in enumerate(parcels, start=1):
            parcel["id"] = index
        pickups, links = self.pickups()
        db.execute(_insert(Carrier), self.carriers)
        db.execute(_insert(Service), self.services)
        db.execute(_insert(Warehouse), self.warehouses)
        db.execute(_insert(Recipient), sorted(self.recipients.values(), key=lambda r: r["id"]))
        db.execute(_insert(Shipment), [plan.row for plan in self.plans])
        db.execute(_insert(Parcel), parcels)
        db.execute(_insert(Rate), rate_rows)
        db.execute(_insert(Label), label_rows)
        db.execute(_insert(TrackingEvent), event_rows)
        if exception_rows:
            db.execute(_insert(DeliveryException), exception_rows)
        db.execute(_insert(Pickup), pickups)
        if links:
            db.execute(_insert(PickupLabel), links)


def _business_days_between(start: date, end: date) -> int:
    days, day = 0, start
    while day < end:
        day += timedelta(days=1)
        if day.weekday() < 5:
            days += 1
    return days


def populate(db: Session, world: World, rng: random.Random) -> None:
    """Fill an empty shipping database from the retail shop's seeded orders."""
    seed = world.seed
    orders = seeded_rows("retail", seed, "SELECT * FROM orders ORDER BY placed_at, id")
    customers = {row["id"]: row for row in seeded_rows(
        "retail", seed, "SELECT id, external_id, email, name, phone, organization_name, address_line1, city, region, "
        "postal_code, country FROM customers ORDER BY id")}
    units: dict[int, int] = {}
    items: dict[int, str] = {}
    for row in seeded_rows("retail", seed, "SELECT order_id, product_name, quantity FROM order_items ORDER BY order_id, id"):
        units[row["order_id"]] = units.get(row["order_id"], 0) + row["quantity"]
        items.setdefault(row["order_id"], row["product_name"])
    exchanges = seeded_rows("retail", seed, "SELECT * FROM returns WHERE kind = 'exchange' ORDER BY created_at, id")

    seeder = Seeder(world, rng)
    seeder.manual(list(customers.values()))
    seeder.orders(orders, customers, units, items)
    seeder.exchanges(exchanges, {o["id"]: o for o in orders}, customers, items)
    seeder.write(db)
