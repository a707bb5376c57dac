"""The seeded payments account: about fifteen months of Northwind's shop payments and two
years of its cloud subscriptions.

Every shop order that was paid (retail `orders.paid_at`) is a charge of its total on the card
or wallet the order names, for the shop's customer of the same email; a paid order that was
later cancelled has a full refund. A few orders had a declined first attempt, a goodwill
partial refund or a chargeback. Subscription customers are billing contacts of the shared
world's customer organisations; each billing period is an invoice paid by a charge on the
default card, except the latest invoice of past-due subscriptions. Payouts sweep each week's
net volume to the bank.
"""

from __future__ import annotations

import calendar
import random
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from mcpgym.servers.kernel.links import seeded_rows
from mcpgym.servers.kernel.world import Person, World
from mcpgym.servers.payments.data import (
    ADD_ON,
    BANK_LAST4,
    BANK_NAME,
    CARD_BRANDS,
    CARD_FUNDING,
    DISPUTE_REASONS,
    FAILURE_CODES,
    PLANS,
    SERVICES,
)
from mcpgym.servers.payments.models import (
    Charge,
    Customer,
    Dispute,
    Invoice,
    InvoiceLine,
    PaymentMethod,
    Payout,
    Plan,
    Refund,
    Subscription,
)

Row = dict[str, Any]

SUBSCRIBER_SHARE = 0.85
"""Customer organisations with a subscription (through one billing contact)."""
SUBSCRIPTION_DAYS = 720
"""Subscriptions started up to this many days before now."""


def fee(amount: int) -> int:
    """The processing fee of a successful charge of `amount` cents."""
    return (amount * 290 + 5000) // 10000 + 30


def add_months(when: datetime, months: int) -> datetime:
    """`when` moved by whole calendar months, the day clamped to the month's length."""
    index = when.year * 12 + when.month - 1 + months
    year, month = divmod(index, 12)
    day = min(when.day, calendar.monthrange(year, month + 1)[1])
    return when.replace(year=year, month=month + 1, day=day)


def next_period(start: datetime, interval: str) -> datetime:
    return add_months(start, 12 if interval == "year" else 1)


def _second(when: datetime) -> datetime:
    return when.replace(microsecond=0)


class Builder:
    """Rows of every table, with keys assigned in insertion order."""

    def __init__(self, world: World, rng: random.Random) -> None:
        self.world = world
        self.rng = rng
        self.now = world.now
        self.rows: dict[str, list[Row]] = defaultdict(list)
        self.organizations = {o.id: o for o in world.organizations}
        self.people = {p.email: p for p in world.people}
        self.customer_of: dict[str, Row] = {}

    def add(self, table: str, row: Row) -> Row:
        row["id"] = len(self.rows[table]) + 1
        self.rows[table].append(row)
        return row

    # ------------------------------------------------------------ customers and cards

    def customer(self, person: Person, created: datetime, retail_id: int | None = None) -> Row:
        found = self.customer_of.get(person.email)
        if found is not None:
            if retail_id is not None and found["retail_customer_id"] is None:
                found["retail_customer_id"] = retail_id
            found["created_at"] = min(found["created_at"], created)
            return found
        row = self.add("customers", {
            "person_id": person.id, "retail_customer_id": retail_id, "name": person.name, "email": person.email,
            "phone": person.phone, "organization_name": self.organizations[person.organization_id].name,
            "city": person.city, "description": "", "credit_balance_cents": 0, "default_payment_method_id": None,
            "created_at": _second(created),
        })
        self.customer_of[person.email] = row
        return row

    def card(self, customer: Row, created: datetime, brand: str | None = None, last4: str | None = None,
             expired: bool = False) -> Row:
        rng = self.rng
        brand = brand or rng.choices([b for b, _ in CARD_BRANDS], [w for _, w in CARD_BRANDS])[0]
        if expired:
            month_index = self.now.year * 12 + self.now.month - 1 - rng.randint(1, 8)
        else:
            month_index = self.now.year * 12 + self.now.month - 1 + rng.randint(3, 48)
        return self.add("payment_methods", {
            "customer_id": customer["id"], "type": "card", "brand": brand,
            "last4": last4 or f"{rng.randrange(10000):04d}", "exp_month": month_index % 12 + 1,
            "exp_year": month_index // 12, "funding": rng.choice(CARD_FUNDING), "wallet_email": None,
            "created_at": _second(created),
        })

    def wallet(self, customer: Row, kind: str, created: datetime) -> Row:
        return self.add("payment_methods", {
            "customer_id": customer["id"], "type": kind, "brand": None, "last4": None, "exp_month": None,
            "exp_year": None, "funding": None, "wallet_email": customer["email"], "created_at": _second(created),
        })

    def charge(self, customer: Row, method: Row, amount: int, when: datetime, description: str,
               order_number: str | None = None, invoice: Row | None = None, failure: str | None = None) -> Row:
        return self.add("charges", {
            "customer_id": customer["id"], "payment_method_id": method["id"], "amount_cents": amount,
            "fee_cents": 0 if failure else fee(amount), "currency": "USD",
            "status": "failed" if failure else "succeeded", "failure_code": failure, "description": description,
            "order_number": order_number, "invoice_id": invoice["id"] if invoice else None,
            "created_at": _second(when),
        })

    def refund(self, charge: Row, amount: int, when: datetime, reason: str, note: str) -> Row:
        return self.add("refunds", {"charge_id": charge["id"], "amount_cents": amount, "reason": reason, "note": note,
                                    "status": "succeeded", "created_at": _second(when)})


# ---------------------------------------------------------------- the shop


def _shop_rows(world: World) -> tuple[list[Row], list[Row], list[Row]]:
    """The shop's customers, its orders that were paid and its completed returns with a
    refund, from the retail seeded database."""
    customers = seeded_rows("retail", world.seed, "SELECT id, email, name FROM customers ORDER BY id")
    orders = seeded_rows(
        "retail", world.seed,
        "SELECT id, number, customer_id, paid_at, cancelled_at, total_cents, payment_method FROM orders "
        "WHERE paid_at IS NOT NULL ORDER BY paid_at, id")
    returns = seeded_rows(
        "retail", world.seed,
        "SELECT number, order_id, reason, refund_cents, completed_at FROM returns "
        "WHERE status = 'completed' AND refund_cents > 0 AND completed_at IS NOT NULL ORDER BY completed_at, id")
    return customers, orders, returns


def _when(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def _method_for(b: Builder, customer: Row, token: str, when: datetime, methods: dict[tuple[int, str], Row]) -> Row:
    """The saved payment method a shop order's `payment_method` names (`card_visa_4242`,
    `paypal`, `shop_pay`, `gift_card`), created on first use."""
    key = (customer["id"], token)
    if key not in methods:
        parts = token.split("_")
        if parts[0] == "card" and len(parts) >= 3:
            brand = parts[1] if parts[1] in {name for name, _ in CARD_BRANDS} else "visa"
            last4 = parts[-1][-4:].rjust(4, "0") if parts[-1].isdigit() else None
            methods[key] = b.card(customer, when - timedelta(minutes=2), brand, last4, expired=b.rng.random() < 0.08)
        else:
            methods[key] = b.wallet(customer, token[:16] or "wallet", when - timedelta(minutes=2))
    return methods[key]


def _shop(b: Builder) -> None:
    """A charge per paid order (a few after a declined attempt), a full refund per paid order
    that was cancelled, and a refund per completed return."""
    rng = b.rng
    customers, orders, returns = _shop_rows(b.world)
    by_id = {c["id"]: c for c in customers}
    methods: dict[tuple[int, str], Row] = {}
    charge_of: dict[int, Row] = {}
    for order in orders:
        shopper = by_id.get(order["customer_id"])
        person = b.people.get((shopper or {}).get("email", ""))
        if shopper is None or person is None:
            continue
        paid = _when(order["paid_at"])
        assert paid is not None
        customer = b.customer(person, paid - timedelta(minutes=rng.uniform(5, 60)), shopper["id"])
        method = _method_for(b, customer, order["payment_method"] or "card_visa_4242", paid, methods)
        if customer["default_payment_method_id"] is None:
            customer["default_payment_method_id"] = method["id"]
        number = order["number"]
        description = f"Order {number}"
        if rng.random() < 0.03:
            b.charge(customer, method, order["total_cents"], paid - timedelta(minutes=rng.uniform(2, 30)), description,
                     number, failure=rng.choice(FAILURE_CODES))
        charge = charge_of[order["id"]] = b.charge(customer, method, order["total_cents"], paid, description, number)
        cancelled = _when(order["cancelled_at"])
        if cancelled is not None:
            b.refund(charge, order["total_cents"], max(cancelled, paid + timedelta(minutes=1)), "requested_by_customer",
                     f"Order {number} cancelled")
    for item in returns:
        charge = charge_of.get(item["order_id"])
        completed = _when(item["completed_at"])
        if charge is None or completed is None:
            continue
        b.refund(charge, min(item["refund_cents"], charge["amount_cents"]), max(completed, charge["created_at"]),
                 "requested_by_customer", f"Return {item['number']}: {item['reason']}"[:500])


# ---------------------------------------------------------------- disputes


def _disputes(b: Builder) -> None:
    """Chargebacks on some shop charges that were not refunded: open ones on recent charges
    (evidence due within three weeks), closed ones (won or lost) on older ones."""
    rng, now = b.rng, b.now
    refunded = {r["charge_id"] for r in b.rows["refunds"]}
    candidates = [c for c in b.rows["charges"] if c["status"] == "succeeded" and c["order_number"]
                  and c["id"] not in refunded and c["amount_cents"] >= 2000]
    recent = [c for c in candidates if timedelta(days=5) < now - c["created_at"] < timedelta(days=75)]
    older = [c for c in candidates if timedelta(days=90) < now - c["created_at"] < timedelta(days=400)]
    picks = [(c, "open") for c in rng.sample(recent, min(len(recent), 9))]
    picks += [(c, "closed") for c in rng.sample(older, min(len(older), 14))]
    for charge, state in sorted(picks, key=lambda p: p[0]["id"]):
        reason = rng.choices([r for r, _ in DISPUTE_REASONS], [w for _, w in DISPUTE_REASONS])[0]
        if state == "open":
            opened = max(now - timedelta(days=rng.uniform(0.5, 18)), charge["created_at"] + timedelta(days=2))
            due = opened + timedelta(days=21)
            submitted = rng.random() < 0.35
            status = "under_review" if submitted else "needs_response"
            evidence = "Tracking shows delivery to the cardholder's address; signed receipt attached." if submitted else ""
            closed = None
            submitted_at = _second(opened + timedelta(days=rng.uniform(1, 4))) if submitted else None
            if submitted_at is not None and submitted_at >= now:
                submitted_at = _second(now - timedelta(hours=2))
        else:
            opened = charge["created_at"] + timedelta(days=rng.uniform(10, 60))
            due = opened + timedelta(days=21)
            status = "won" if rng.random() < 0.55 else "lost"
            evidence = "Proof of delivery and the customer's order confirmation." if rng.random() < 0.8 else ""
            submitted_at = _second(opened + timedelta(days=rng.uniform(2, 15))) if evidence else None
            closed = _second(opened + timedelta(days=rng.uniform(40, 75)))
        b.add("disputes", {
            "charge_id": charge["id"], "amount_cents": charge["amount_cents"], "reason": reason, "status": status,
            "evidence": evidence, "evidence_due_by": _second(due), "evidence_submitted_at": submitted_at,
            "created_at": _second(opened), "closed_at": closed,
        })


# ---------------------------------------------------------------- subscriptions


def _plans(b: Builder) -> list[Row]:
    created = _second(b.now - timedelta(days=1100))
    return [b.add("plans", {"product": product, "nickname": nickname, "interval": interval, "unit_amount_cents": amount,
                            "active": active, "created_at": created})
            for nickname, product, interval, amount, active, _, _ in PLANS]


def _subscribers(b: Builder) -> list[tuple[Person, datetime]]:
    """One billing contact per subscribing organisation (one of its CRM contacts), with the day
    its subscription began."""
    rng = b.rng
    by_org: dict[str, list[Person]] = defaultdict(list)
    for person in b.world.customers:
        by_org[person.organization_id].append(person)
    in_crm = {row["external_id"] for row in seeded_rows("crm", b.world.seed, "SELECT external_id FROM contacts")}
    chosen = []
    for org in b.world.organizations[1:]:
        people = [p for p in by_org.get(org.id, []) if p.id in in_crm] or by_org.get(org.id)
        if not people or rng.random() >= SUBSCRIBER_SHARE:
            continue
        start = _second(b.now - timedelta(days=rng.uniform(20, SUBSCRIPTION_DAYS)))
        chosen.append((rng.choice(people), start.replace(hour=rng.randint(8, 20))))
    return chosen


def _subscriptions(b: Builder, plans: list[Row]) -> None:
    rng, now = b.rng, b.now
    main = [p for p, spec in zip(plans, PLANS) if spec[6] > 0]
    weights = [spec[6] for spec in PLANS if spec[6] > 0]
    seats = {p["id"]: spec[5] for p, spec in zip(plans, PLANS)}
    add_on = next(p for p in plans if p["nickname"] == ADD_ON)
    for person, start in _subscribers(b):
        customer = b.customer(person, start - timedelta(days=rng.uniform(1, 20)))
        customer["description"] = f"Billing contact for {customer['organization_name']}"
        fate = rng.random()
        expired = 0.86 <= fate < 0.93
        card = b.card(customer, customer["created_at"], expired=expired)
        if rng.random() < 0.3 and not expired:
            card = b.card(customer, start + (now - start) * rng.uniform(0.2, 0.9))
        customer["default_payment_method_id"] = card["id"]
        plan = rng.choices(main, weights)[0]
        if not plan["active"] and start > now - timedelta(days=200):
            plan = main[2]
        low, high = seats[plan["id"]]
        _subscription(b, customer, card, plan, rng.randint(low, high), start, fate)
        if rng.random() < 0.2 and plan["interval"] == "month" and fate < 0.86:
            _subscription(b, customer, card, add_on, 1, start + timedelta(days=rng.uniform(0, 60)) if start + timedelta(days=60) < now else start, 0.5)


def _subscription(b: Builder, customer: Row, card: Row, plan: Row, quantity: int, start: datetime, fate: float) -> None:
    """A subscription and its invoices: fate < 0.16 canceled, < 0.26 set to cancel at period
    end, 0.86-0.93 past due on an expired card, else active."""
    rng, now = b.rng, b.now
    periods = []
    begin = start
    while begin <= now:
        end = next_period(begin, plan["interval"])
        periods.append((begin, end))
        begin = end
    canceled_at = ended_at = None
    status, at_period_end = "active", False
    if fate < 0.16 and len(periods) >= 2:
        stop = rng.randint(1, len(periods) - 1)
        periods = periods[:stop]
        last_start, last_end = periods[-1]
        if rng.random() < 0.5:  # canceled at once, mid-period: the unused days became credit
            ended_at = _second(last_start + (last_end - last_start) * rng.uniform(0.2, 0.8))
            canceled_at = ended_at
            unused = (last_end - ended_at).days
            total = (last_end - last_start).days
            customer["credit_balance_cents"] += plan["unit_amount_cents"] * quantity * unused // total
        else:
            canceled_at = _second(last_start + (last_end - last_start) * rng.uniform(0.1, 0.9))
            ended_at = last_end
        status = "canceled"
    elif fate < 0.26:
        at_period_end = True
        canceled_at = _second(max(periods[-1][0], now - timedelta(days=20)) + timedelta(hours=rng.uniform(1, 48)))
        canceled_at = min(canceled_at, _second(now - timedelta(hours=1)))
    elif 0.86 <= fate < 0.93:
        status = "past_due"
    period_start, period_end = periods[-1]
    subscription = b.add("subscriptions", {
        "customer_id": customer["id"], "plan_id": plan["id"], "quantity": quantity, "status": status,
        "current_period_start": period_start, "current_period_end": period_end, "cancel_at_period_end": at_period_end,
        "canceled_at": canceled_at, "ended_at": ended_at, "created_at": start,
    })
    for index, (begin, end) in enumerate(periods):
        unpaid = status == "past_due" and index == len(periods) - 1
        _period_invoice(b, customer, card, subscription, plan, begin, end, unpaid)


def _period_invoice(b: Builder, customer: Row, card: Row, subscription: Row, plan: Row, begin: datetime,
                    end: datetime, unpaid: bool) -> None:
    rng = b.rng
    amount = plan["unit_amount_cents"] * subscription["quantity"]
    created = begin
    finalized = begin + timedelta(hours=1)
    invoice = b.add("invoices", {
        "number": "", "customer_id": customer["id"], "subscription_id": subscription["id"],
        "status": "open" if unpaid else "paid", "memo": "", "credit_applied_cents": 0, "period_start": begin,
        "period_end": end, "due_date": finalized, "created_at": created, "finalized_at": finalized,
        "paid_at": None if unpaid else _second(finalized + timedelta(minutes=rng.uniform(1, 5))), "voided_at": None,
    })
    span = f"{begin:%b %d, %Y} - {end:%b %d, %Y}"
    b.add("invoice_lines", {"invoice_id": invoice["id"], "description": f"{plan['nickname']} x {subscription['quantity']} ({span})",
                            "quantity": subscription["quantity"], "unit_amount_cents": plan["unit_amount_cents"],
                            "amount_cents": amount})
    description = f"Subscription {plan['nickname']}"
    if unpaid:
        tries = [finalized + timedelta(minutes=3), finalized + timedelta(days=3)]
        for when in tries:
            if when < b.now:
                b.charge(customer, card, amount, when, description, invoice=invoice, failure="expired_card")
    else:
        b.charge(customer, card, amount, invoice["paid_at"], description, invoice=invoice)


SERVICE_STATES = ("draft",) * 4 + ("open",) * 5 + ("overdue",) * 2 + ("void",) * 3 + ("paid",) * 16
"""The one-off service invoices of a world, by state."""


def _services(b: Builder) -> None:
    """One-off invoices for services: most paid, some open (a few overdue), a few void, and
    drafts still being prepared."""
    rng, now = b.rng, b.now
    subscribers = [c for c in b.rows["customers"] if c["description"]]
    methods = {m["id"]: m for m in b.rows["payment_methods"]}
    chosen = [rng.choice(subscribers) for _ in SERVICE_STATES]
    for customer, state in zip(chosen, SERVICE_STATES):
        age = {"draft": (0.2, 9), "open": (1, 25), "overdue": (35, 60)}.get(state, (20, 420))
        created = _second(now - timedelta(days=rng.uniform(*age)))
        status = "open" if state == "overdue" else state
        finalized = None if status == "draft" else created + timedelta(hours=rng.uniform(1, 10))
        invoice = b.add("invoices", {
            "number": "", "customer_id": customer["id"], "subscription_id": None, "status": status,
            "memo": "Thank you for your business.", "credit_applied_cents": 0, "period_start": None, "period_end": None,
            "due_date": _second(finalized + timedelta(days=30)) if finalized else None, "created_at": created,
            "finalized_at": _second(finalized) if finalized else None, "paid_at": None, "voided_at": None,
        })
        total, first = 0, ""
        for description, unit in rng.sample(SERVICES, rng.choice((1, 1, 2))):
            quantity = rng.randint(4, 24) if unit < 50000 else 1
            total += unit * quantity
            first = first or description
            b.add("invoice_lines", {"invoice_id": invoice["id"], "description": description, "quantity": quantity,
                                    "unit_amount_cents": unit, "amount_cents": unit * quantity})
        if finalized is None:
            continue
        if status == "paid":
            paid = min(finalized + timedelta(days=rng.uniform(1, 25)), now - timedelta(hours=1))
            invoice["paid_at"] = _second(paid)
            card = methods[customer["default_payment_method_id"]]
            b.charge(customer, card, total, paid, f"Invoice: {first}", invoice=invoice)
        elif status == "void":
            invoice["voided_at"] = _second(min(finalized + timedelta(days=rng.uniform(1, 20)), now - timedelta(hours=1)))


def _number_invoices(b: Builder) -> None:
    """Invoice numbers in order of creation: NW-10001, NW-10002, ... (drafts get theirs too)."""
    for index, invoice in enumerate(sorted(b.rows["invoices"], key=lambda i: (i["created_at"], i["id"])), start=10001):
        invoice["number"] = f"NW-{index}"


# ---------------------------------------------------------------- payouts


def _payouts(b: Builder) -> None:
    """Weekly payouts of the week's net volume (charges less fees, refunds and lost disputes),
    created on Monday and arriving two days later; the latest ones still on their way."""
    rng, now = b.rng, b.now
    weekly: dict[datetime, int] = defaultdict(int)

    def week(when: datetime) -> datetime:
        day = when.replace(hour=0, minute=0, second=0, microsecond=0)
        return day - timedelta(days=day.weekday())

    for charge in b.rows["charges"]:
        if charge["status"] == "succeeded":
            weekly[week(charge["created_at"])] += charge["amount_cents"] - charge["fee_cents"]
    for refund in b.rows["refunds"]:
        weekly[week(refund["created_at"])] -= refund["amount_cents"]
    for dispute in b.rows["disputes"]:
        if dispute["status"] == "lost" and dispute["closed_at"]:
            weekly[week(dispute["closed_at"])] -= dispute["amount_cents"] + 1500
    for start in sorted(weekly):
        created = start + timedelta(days=7, hours=9)
        if weekly[start] <= 0:
            continue
        if created >= now:  # this week's volume, swept ahead of the Monday run
            created = _second(now - timedelta(hours=rng.uniform(2, 20)))
        arrival = created + timedelta(days=2)
        status = "paid" if arrival < now else "in_transit"
        failure = None
        if status == "paid" and rng.random() < 0.02:
            status, failure = "failed", "could_not_process"
        b.add("payouts", {
            "amount_cents": weekly[start], "status": status, "method": "standard", "bank_name": BANK_NAME,
            "bank_last4": BANK_LAST4, "description": f"Weekly payout for {start:%b %d, %Y}", "failure_code": failure,
            "created_at": created, "arrival_date": arrival.replace(hour=0, minute=0, second=0),
        })


# ---------------------------------------------------------------- populate


def _ordered(rows: Sequence[Row], key: str) -> list[Row]:
    """Rows in order of `key`, then of their key."""
    return sorted(rows, key=lambda r: (r[key], r["id"]))


def populate(db: Session, world: World, rng: random.Random) -> None:
    """Fill an empty payments database."""
    b = Builder(world, rng)
    plans = _plans(b)
    _subscriptions(b, plans)
    _services(b)
    _number_invoices(b)
    _shop(b)
    _disputes(b)
    _payouts(b)
    # charges and refunds get keys in time order, as a processor issues them
    for table, refers in (("charges", (("refunds", "charge_id"), ("disputes", "charge_id"))), ("refunds", ())):
        renumber = {row["id"]: index for index, row in enumerate(_ordered(b.rows[table], "created_at"), start=1)}
        for row in b.rows[table]:
            row["id"] = renumber[row["id"]]
        b.rows[table].sort(key=lambda r: r["id"])
        for other, column in refers:
            for row in b.rows[other]:
                row[column] = renumber[row[column]]
    for model in (Plan, Customer, PaymentMethod, Subscription, Invoice, InvoiceLine, Charge, Refund, Dispute, Payout):
        rows = b.rows[model.__tablename__]
        if rows:
            db.execute(model.__table__.insert(), rows)  # Core executemany: one statement per table
