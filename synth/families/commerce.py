"""Families that join three or more servers through the shared world: a help-desk ticket's
requester is a shop customer, whose order shipped with the carrier and was paid through the
processor, all by the same email and order number; an employee's expense report names the
airline booking of the trip, and the traveller's hotel stay starts the day they land."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from mcpgym.synth.family import Draft, Family, WorldView

REPLY = "Sorry your parcel was late: we have refunded the shipping fee of order "
"""The public reply's text, followed by the order number and a full stop."""
REFUND_NOTE = "Shipping fee refunded: late delivery"
MAX_TRIES = 12
"""Late shipments a draft tries before giving up."""
RECENT_DAYS = 150
"""Shipments made within this many days: their charges are still refundable (180 days)."""


class LateParcelRefund(Family):
    """A help-desk ticket about a late parcel: the requester's latest shipment (late), its shop
    order, the order's shipping fee refunded on its charge, and a public reply on the ticket."""

    name = "cross.commerce-late-parcel-refund"
    servers = ("zendesk", "retail", "shipping", "payments")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        since = (view.now - timedelta(days=RECENT_DAYS)).strftime("%Y-%m-%dT%H:%M:%SZ")
        late = view.read("shipping", "search_shipments", late_only=True, created_after=since, per_page=100)["shipments"]
        candidates = [s for s in late if s["reference"].startswith("#")]
        rng.shuffle(candidates)
        for shipment in candidates[:MAX_TRIES]:
            grounded = self._ground(view, rng, shipment)
            if grounded is not None:
                return self._task(*grounded)
        return None

    def _ground(self, view: WorldView, rng: random.Random, shipment: dict[str, Any]) -> tuple[int] | None:
        """The ticket to start from, when `shipment` is its requester's latest, its order has a
        shipping fee and the order's one charge can still take that refund."""
        email = shipment["recipient_email"]
        latest = view.read("shipping", "search_shipments", recipient_email=email, per_page=2)["shipments"]
        if latest[0]["id"] != shipment["id"] or (len(latest) > 1 and latest[1]["created_at"] == shipment["created_at"]):
            return None
        order = view.lookup("retail", "get_order", order_number=shipment["reference"])
        if order is None or not order["shipping_cents"]:
            return None
        charges = view.read("payments", "search_charges", order_number=order["number"], status="succeeded")
        if charges["total"] != 1:
            return None
        charge = charges["charges"][0]
        if charge["dispute_status"] is not None or charge["remaining_cents"] < order["shipping_cents"]:
            return None
        users = [u for u in view.read("zendesk", "search_users", query=email)["users"] if u["email"] == email]
        if not users:
            return None
        tickets = view.read("zendesk", "search_tickets", requester_id=users[0]["id"],
                            status=["new", "open", "pending", "hold", "solved"], per_page=20)["tickets"]
        if not tickets:
            return None
        return (rng.choice(tickets)["id"],)

    def _task(self, ticket: int) -> Draft:
        user = [
            f"Ticket #{ticket}: the customer says their parcel came late. Find their most recent shipment, refund the "
            f"shipping fee of its shop order (only the shipping fee, on the order's payment), and reply publicly on the "
            f"ticket: \"{REPLY}<order number>.\" Which order was it, and what was its last tracking update?",
            f"The requester of ticket {ticket} is upset about a late delivery. Look up their latest shipment and its order, "
            f"give back what they paid for shipping on that order's charge, then post the public reply \"{REPLY}"
            f"<order number>.\" on the ticket. Tell me the order number and the parcel's last tracking event.",
        ]
        return Draft(family=self.name, key=f"ticket:{ticket}", known=["ticket_id"], writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "server": "zendesk", "tool": "get_ticket", "arguments": {"ticket_id": ticket}},
            {"id": "c2", "server": "zendesk", "tool": "get_user", "bind": {"user_id": "{c1.requester_id}"}},
            {"id": "c3", "server": "shipping", "tool": "search_shipments", "arguments": {"per_page": 2},
             "bind": {"recipient_email": "{c2.email}"}},
            {"id": "c4", "server": "retail", "tool": "get_order", "bind": {"order_number": "{c3.shipments.0.reference}"}},
            {"id": "c5", "server": "payments", "tool": "search_charges", "arguments": {"status": "succeeded"},
             "bind": {"order_number": "{c4.number}"}},
            {"id": "c6", "server": "payments", "tool": "create_refund", "arguments": {"note": REFUND_NOTE},
             "bind": {"charge_id": "{c5.charges.0.id}", "amount_cents": "{c4.shipping_cents}"}},
            {"id": "c7", "server": "zendesk", "tool": "add_comment", "arguments": {"public": True},
             "bind": {"ticket_id": "{c1.id}", "body": f"\"{REPLY}\" + {{c4.number}} + \".\""}},
        ], "facts": [
            {"name": "order", "expr": "{c4.number}", "value": None},
            {"name": "last tracking event", "expr": "{c3.shipments.0.last_event.description}", "value": None},
        ]}], checks=["{c5.total} == 1", "{c3.shipments.0.is_late}"])


class OrderStatus(Family):
    """A customer asks about a shop order: what they were charged, on which card, and where
    the parcel is."""

    name = "cross.commerce-order-status"
    servers = ("retail", "payments", "shipping")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        status = rng.choice(["shipped", "delivered"])
        orders = view.read("retail", "search_orders", status=status, per_page=100, page=rng.randint(1, 3))["orders"]
        if not orders:
            return None
        order = rng.choice(orders)
        number = order["number"]
        charges = view.read("payments", "search_charges", order_number=number)
        shipment = view.lookup("shipping", "find_shipment_by_reference", reference=number)
        if charges["total"] != 1 or charges["charges"][0]["status"] != "succeeded" or shipment is None:
            return None
        user = [
            f"A customer asks about order {number}: how much were they charged for it and on which card or wallet, what is "
            "the parcel's status with the carrier and its last tracking update?",
            f"Order {number}: check what the payment processor charged (amount and payment method) and where the shipment "
            "is now (status and latest tracking event).",
        ]
        return Draft(family=self.name, key=f"order:{number}", turns=[{"user": user, "calls": [
            {"id": "c1", "server": "retail", "tool": "get_order", "arguments": {"order_number": number}},
            {"id": "c2", "server": "payments", "tool": "search_charges", "bind": {"order_number": "{c1.number}"}},
            {"id": "c3", "server": "shipping", "tool": "find_shipment_by_reference", "bind": {"reference": "{c1.number}"}},
        ], "facts": [
            {"name": "charged (USD)", "expr": "{c2.charges.0.amount_cents} / 100", "value": None},
            {"name": "payment method", "expr": "{c2.charges.0.payment_method}", "value": None},
            {"name": "shipment status", "expr": "{c3.status}", "value": None},
            {"name": "last tracking event", "expr": "{c3.last_event.description}", "value": None},
        ]}], checks=["{c2.total} == 1"])


class TripAudit(Family):
    """An expense report's trip: the airline booking behind its airfare and the hotel stay
    that starts the day the traveller lands."""

    name = "cross.people-trip-audit"
    servers = ("expenses", "flights", "hotels")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        reports = view.read("expenses", "search_reports", is_travel=True, per_page=100, page=rng.randint(1, 3))["reports"]
        if not reports:
            return None
        report = rng.choice(reports)
        airfare = view.read("expenses", "search_items", report_id=report["id"], category="airfare")
        if airfare["total"] != 1 or not airfare["items"][0].get("flight_pnr"):
            return None
        booking = view.lookup("flights", "get_reservation", pnr=airfare["items"][0]["flight_pnr"])
        if booking is None:
            return None
        landed = booking["segments"][0]["flight"]["arrival_local"][:10]
        guest = view.lookup("hotels", "get_guest_by_email", email=booking["passengers"][0]["email"])
        if guest is None:
            return None
        stays = view.read("hotels", "list_guest_reservations", guest_id=guest["id"], check_in_from=landed, check_in_to=landed)
        if stays["total"] != 1:
            return None
        number = report["number"]
        user = [
            f"Audit expense report {number}: find the airline booking behind its airfare and the hotel stay that began the day "
            "the traveller landed. Which flight did the trip start with, which hotel was it, for how many nights and what "
            "did the stay cost?",
            f"For travel report {number}, match the airfare to its Meridian Air booking and find the StayWise hotel booked "
            "from the arrival day: first flight number, hotel name, nights and the stay's total.",
        ]
        return Draft(family=self.name, key=f"report:{number}", turns=[{"user": user, "calls": [
            {"id": "c1", "server": "expenses", "tool": "get_report_by_number", "arguments": {"number": number}},
            {"id": "c2", "server": "expenses", "tool": "search_items", "arguments": {"category": "airfare"},
             "bind": {"report_id": "{c1.id}"}},
            {"id": "c3", "server": "flights", "tool": "get_reservation", "bind": {"pnr": "{c2.items.0.flight_pnr}"}},
            {"id": "c4", "server": "hotels", "tool": "get_guest_by_email", "bind": {"email": "{c3.passengers.0.email}"}},
            {"id": "c5", "server": "hotels", "tool": "list_guest_reservations",
             "arguments": {"check_in_from": landed, "check_in_to": landed}, "bind": {"guest_id": "{c4.id}"}},
        ], "facts": [
            {"name": "first flight", "expr": "{c3.segments.0.flight.flight_number}", "value": None},
            {"name": "hotel", "expr": "{c5.reservations.0.property_name}", "value": None},
            {"name": "nights", "expr": "{c5.reservations.0.nights}", "value": None},
            {"name": "stay total (USD)", "expr": "{c5.reservations.0.total_cents} / 100", "value": None},
        ]}], checks=["{c2.total} == 1", "{c5.total} == 1"])


COMMERCE_FAMILIES: tuple[Family, ...] = (LateParcelRefund(), OrderStatus(), TripAudit())
"""Families over three or more servers: the help desk, shop, carrier and processor together,
and the expense tool, airline and hotels."""
