"""Payments task families: what an order's charge was and what was refunded, a customer's
spend and cards, disputes and their deadlines, refunds and the monthly balance, plans,
subscriptions, invoices and payouts; refunds, customer and card changes, subscriptions
created, changed, canceled and resumed, invoices drafted, finalized, paid and voided,
disputes answered or conceded; refusals the processor's policy calls for; two-turn
follow-ups; the CRM owner of a past-due customer and the shipping fee of a shop order.

A user names a charge by its shop order number (#1001), an invoice by its number (NW-10042),
a customer by email or company, a plan by its name, never by an internal id.
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from mcpgym.synth.family import Draft, Family, WorldView, month_name, month_window, previous_month

SERVER = "payments"
Row = dict[str, Any]
Call = dict[str, Any]
REFUND_WINDOW_DAYS = 180
NOTES = ("Customer asked for it by phone.", "Approved by the support lead.", "Goodwill after a complaint.")
EVIDENCE = (
    "Carrier tracking shows the parcel delivered to the cardholder's address; delivery photo attached.",
    "The customer confirmed receipt by email; the order confirmation and correspondence are attached.",
)
SERVICES = (("Admin training session", 45000), ("Onboarding workshop (half day)", 150000),
            ("Custom integration, engineering hours", 18000), ("Security review and questionnaire", 90000))


def dollars(cents: int) -> str:
    return f"${cents // 100:,}.{cents % 100:02d}"


def _charges(view: WorldView, rng: random.Random, **filters: Any) -> list[Row]:
    """One random page of shop charges matching `filters`."""
    args = {"source": "shop", **filters}
    total = view.read(SERVER, "search_charges", **args, per_page=1)["total"]
    if not total:
        return []
    page = rng.randint(1, -(-total // 100))
    return view.read(SERVER, "search_charges", **args, per_page=100, page=page)["charges"]


def _refundable(view: WorldView, rng: random.Random) -> list[Row]:
    """Shop charges well inside the refund window, with no refund and no dispute."""
    after = (view.now - timedelta(days=REFUND_WINDOW_DAYS - 20)).strftime("%Y-%m-%dT00:00:00Z")
    return _charges(view, rng, status="succeeded", refunded=False, disputed=False, created_after=after)


def _order_call(call_id: str, number: str) -> Call:
    return {"id": call_id, "server": SERVER, "tool": "search_charges", "arguments": {"order_number": number, "status": "succeeded"}}


ONE_CHARGE = "{c1.total} == 1"


def _subscriptions(view: WorldView, **filters: Any) -> list[Row]:
    return view.read(SERVER, "search_subscriptions", per_page=100, **filters)["subscriptions"]


def _single_company(view: WorldView, subscription: Row) -> bool:
    """Whether the company's name finds only this subscription among those of its status."""
    found = view.read(SERVER, "search_subscriptions", query=subscription["organization_name"], status=subscription["status"],
                      per_page=1)
    return found["total"] == 1


def _company_calls(subscription: Row) -> list[Call]:
    """c1 finds the company's one subscription of that status."""
    return [{"id": "c1", "server": SERVER, "tool": "search_subscriptions",
             "arguments": {"query": subscription["organization_name"], "status": subscription["status"]}}]


COMPANY_CHECKS = ["{c1.total} == 1"]


def _invoices(view: WorldView, **filters: Any) -> list[Row]:
    return view.read(SERVER, "search_invoices", per_page=100, **filters)["invoices"]


def _invoice_call(call_id: str, invoice: Row) -> Call:
    return {"id": call_id, "server": SERVER, "tool": "search_invoices", "arguments": {"number": invoice["number"]}}


def _usable_card(view: WorldView, customer_id: str) -> bool:
    methods = view.read(SERVER, "list_payment_methods", customer_id=customer_id)["payment_methods"]
    return any(m["is_default"] and not m["expired"] for m in methods)


def _months(view: WorldView) -> list[tuple[int, int]]:
    return [previous_month(view.now.year, view.now.month, back) for back in range(13, 0, -1)]


def _draft(family: Family, key: str, user: list[str], calls: list[Call], facts: list[tuple[str, str]],
           writes: bool = False, checks: list[str] | None = None, servers: tuple[str, ...] | None = None) -> Draft:
    return Draft(family=family.name, key=key, writes=writes, checks=checks or [], servers=servers, turns=[{
        "user": user, "calls": [{"server": SERVER, **c} for c in calls],
        "facts": [{"name": name, "expr": expr, "value": None} for name, expr in facts]}])


# ---------------------------------------------------------------- lookups and reports


class OrderCharge(Family):
    """What an order's payment was: amount, method, fee and refunds so far."""

    name = "payments.order-charge"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        charge = rng.choice(_charges(view, rng, status="succeeded"))
        number = charge["order_number"]
        return _draft(self, f"order:{number}", [
            f"How much did we charge for order {number}, on what payment method, and how much of it has been refunded?",
            f"For shop order {number}: the amount charged, the card or wallet used, and the refunded amount so far.",
        ], [_order_call("c1", number)], [("amount", "{c1.charges.0.amount_cents}"), ("method", "{c1.charges.0.payment_method}"),
                                         ("refunded", "{c1.charges.0.amount_refunded_cents}")], checks=[ONE_CHARGE])


class OrderCustomer(Family):
    """Who paid for an order, and what they have spent with us in all."""

    name = "payments.order-customer"
    servers = (SERVER,)
    kind = "drill-down"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        charge = rng.choice(_charges(view, rng, status="succeeded"))
        number = charge["order_number"]
        return _draft(self, f"order:{number}", [
            f"Who paid for order {number}, and how much have they paid us in total over all their charges?",
            f"Find the customer behind order {number} and their lifetime total of successful payments.",
        ], [_order_call("c1", number),
            {"id": "c2", "tool": "get_customer", "bind": {"customer_id": "{c1.charges.0.customer_id}"}}],
            [("customer", "{c2.name}"), ("total paid", "{c2.total_paid_cents}")], checks=[ONE_CHARGE])


class CustomerCards(Family):
    """A customer's saved payment methods and the default one, by email."""

    name = "payments.customer-cards"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        charge = rng.choice(_charges(view, rng, status="succeeded"))
        email = charge["customer_email"]
        return _draft(self, f"customer:{email}", [
            f"How many payment methods does {email} have saved with us, and which one is the default?",
            f"List the saved cards and wallets of the customer {email}: how many, and the default one.",
        ], [{"id": "c1", "tool": "get_customer_by_email", "arguments": {"email": email}},
            {"id": "c2", "tool": "list_payment_methods", "bind": {"customer_id": "{c1.id}"}}],
            [("saved methods", "len({c2.payment_methods})"), ("default", "{c1.default_payment_method}")])


class DisputeDeadline(Family):
    """The dispute on an order: reason, status and when evidence is due."""

    name = "payments.dispute-deadline"
    servers = (SERVER,)
    kind = "drill-down"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        dispute = rng.choice(view.read(SERVER, "search_disputes", per_page=100)["disputes"])
        number = dispute["order_number"]
        return _draft(self, f"order:{number}", [
            f"Order {number} was disputed by the cardholder. What reason did they give, what is the dispute's status, and when was evidence due?",
            f"Look into the chargeback on order {number}: its reason, status and evidence deadline.",
        ], [_order_call("c1", number), {"id": "c2", "tool": "get_charge", "bind": {"charge_id": "{c1.charges.0.id}"}},
            {"id": "c3", "tool": "get_dispute", "bind": {"dispute_id": "{c2.dispute.id}"}}],
            [("reason", "{c3.reason}"), ("status", "{c3.status}"), ("evidence due", "{c3.evidence_due_by}")], checks=[ONE_CHARGE])


class OpenDisputes(Family):
    """How many disputes need a response, and which one is due first."""

    name = "payments.open-disputes"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        status = rng.choice(["needs_response", "under_review"])
        words = {"needs_response": "still need our response", "under_review": "are under review with the card network"}[status]
        return _draft(self, f"status:{status}", [
            f"How many disputes {words}, and which order's dispute has the earliest evidence deadline?",
            f"Count the disputes that {words}; which order number is the one due soonest?",
        ], [{"id": "c1", "tool": "search_disputes", "arguments": {"status": [status], "per_page": 2}}],
            [("disputes", "{c1.total}"), ("due first", "{c1.disputes.0.order_number}")],
            checks=["{c1.total} >= 1", "{c1.total} == 1 or {c1.disputes.0.evidence_due_by} != {c1.disputes.1.evidence_due_by}"])


class MonthlyRefunds(Family):
    """Refunds given in a month: how many and how much."""

    name = "payments.monthly-refunds"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        year, month = rng.choice(_months(view))
        start, end = month_window(year, month)
        when = month_name(year, month)
        return _draft(self, f"month:{when}", [
            f"How many refunds did we issue in {when}, and how much money did they return in total?",
            f"Refunds in {when} (UTC): the count and the total amount.",
        ], [{"id": "c1", "tool": "search_refunds", "arguments": {"created_after": start, "created_before": end, "per_page": 1}}],
            [("refunds", "{c1.total}"), ("refunded", "{c1.total_amount_cents}")])


class MonthlyBalance(Family):
    """A month's gross volume, fees and net."""

    name = "payments.monthly-balance"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        year, month = rng.choice(_months(view))
        start, end = month_window(year, month)
        when = month_name(year, month)
        return _draft(self, f"month:{when}", [
            f"What were our gross card volume, processing fees and net volume in {when}?",
            f"Give me the {when} balance report numbers: gross, fees and net.",
        ], [{"id": "c1", "tool": "get_balance_report", "arguments": {"start": start, "end": end}}],
            [("gross", "{c1.gross_cents}"), ("fees", "{c1.fees_cents}"), ("net", "{c1.net_cents}")])


class MonthComparison(Family):
    """Which of two months brought more shop revenue, and by how much."""

    name = "payments.month-comparison"
    servers = (SERVER,)
    kind = "comparison"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        first, second = sorted(rng.sample(_months(view), 2))
        a, b = month_window(*first), month_window(*second)
        na, nb = month_name(*first), month_name(*second)
        return _draft(self, f"{na}|{nb}", [
            f"Did shop orders bring in more money in {na} or in {nb}? By how much (gross, before refunds)?",
            f"Compare gross shop revenue between {na} and {nb}: the difference.",
        ], [{"id": "c1", "tool": "get_balance_report", "arguments": {"start": a[0], "end": a[1]}},
            {"id": "c2", "tool": "get_balance_report", "arguments": {"start": b[0], "end": b[1]}}],
            [(na, "{c1.shop_gross_cents}"), (nb, "{c2.shop_gross_cents}"),
             ("difference", "abs({c1.shop_gross_cents} - {c2.shop_gross_cents})")])


class PlanPrice(Family):
    """A plan's price per seat and how many live subscriptions it has."""

    name = "payments.plan-price"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        plans = view.read(SERVER, "list_plans", include_inactive=True)["plans"]
        index = rng.randrange(len(plans))
        plan = plans[index]
        return _draft(self, f"plan:{plan['nickname']}", [
            f"What does the {plan['nickname']} plan cost per seat, and how many live subscriptions are on it?",
            f"Price per seat of {plan['nickname']}, and its number of active or past-due subscriptions?",
        ], [{"id": "c1", "tool": "list_plans", "arguments": {"include_inactive": True}}],
            [("price", f"{{c1.plans.{index}.unit_amount_cents}}"), ("live", f"{{c1.plans.{index}.live_subscriptions}}")],
            checks=[f"{{c1.plans.{index}.nickname}} == {plan['nickname']!r}"])


class CompanySubscription(Family):
    """A company's plan, seats and renewal date."""

    name = "payments.company-subscription"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        subscription = rng.choice(_subscriptions(view, status="active"))
        if not _single_company(view, subscription):
            return None
        company = subscription["organization_name"]
        return _draft(self, f"company:{company}", [
            f"What plan is {company} subscribed to, with how many seats, and when does the current period end?",
            f"{company}'s subscription: plan name, seats, and the end of the current billing period.",
        ], [*_company_calls(subscription), {"id": "c2", "tool": "get_subscription", "bind": {"subscription_id": "{c1.subscriptions.0.id}"}}],
            [("plan", "{c2.plan_nickname}"), ("seats", "{c2.quantity}"), ("period end", "{c2.current_period_end}")],
            checks=COMPANY_CHECKS)


class InvoiceDetail(Family):
    """What an invoice bills, its status and the charge that paid it."""

    name = "payments.invoice-detail"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        invoice = rng.choice(_invoices(view, status="paid", page=rng.randint(1, 3)))
        number = invoice["number"]
        return _draft(self, f"invoice:{number}", [
            f"What is invoice {number} for, what was its total, and when was it paid?",
            f"Show me invoice {number}: the first line item, the total and the payment date.",
        ], [_invoice_call("c1", invoice), {"id": "c2", "tool": "get_invoice", "bind": {"invoice_id": "{c1.invoices.0.id}"}}],
            [("item", "{c2.lines.0.description}"), ("total", "{c2.total_cents}"), ("paid", "{c2.paid_at}")],
            checks=["{c1.total} == 1"])


class OverdueInvoices(Family):
    """Open invoices past due: how many and how much."""

    name = "payments.overdue-invoices"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        status = rng.choice(["open", "void", "draft"])
        if status == "open":
            user = ["How many invoices are overdue right now, and what do they add up to?",
                    "Count the overdue open invoices and total what is owed on them."]
            args: dict[str, Any] = {"overdue": True}
        else:
            user = [f"How many invoices are in {status} status, and what is their combined total?",
                    f"Count our {status} invoices and sum their totals."]
            args = {"status": status}
        return _draft(self, f"invoices:{status}", user, [
            {"id": "c1", "tool": "search_invoices", "arguments": {**args, "per_page": 1}}],
            [("invoices", "{c1.total}"), ("amount", "{c1.total_amount_cents}")])


class MonthlyPayouts(Family):
    """Payouts that reached the bank in a month."""

    name = "payments.monthly-payouts"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        year, month = rng.choice(_months(view))
        start, end = month_window(year, month)
        when = month_name(year, month)
        return _draft(self, f"month:{when}", [
            f"How many payouts arrived in our bank account in {when}, and how much did they total?",
            f"Payouts with an arrival date in {when}: count and total amount.",
        ], [{"id": "c1", "tool": "list_payouts", "arguments": {"arrival_after": start, "arrival_before": end, "per_page": 1}}],
            [("payouts", "{c1.total}"), ("amount", "{c1.total_amount_cents}")])


class PastDue(Family):
    """Past-due subscriptions: how many, and the latest one's company."""

    name = "payments.past-due"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        status = rng.choice(["past_due", "canceled"])
        words = "past due" if status == "past_due" else "canceled"
        return _draft(self, f"subscriptions:{status}", [
            f"How many subscriptions are {words}, and which company's was started most recently?",
            f"Count the {words} subscriptions; name the company of the newest one.",
        ], [{"id": "c1", "tool": "search_subscriptions", "arguments": {"status": status, "per_page": 2}}],
            [("subscriptions", "{c1.total}"), ("newest", "{c1.subscriptions.0.organization_name}")],
            checks=["{c1.total} >= 1"])


# ---------------------------------------------------------------- writes


class RefundOrder(Family):
    """Refund an order in full."""

    name = "payments.refund-order"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        charge = rng.choice(_refundable(view, rng))
        number = charge["order_number"]
        return _draft(self, f"order:{number}", [
            f"The customer of order {number} should get all their money back. Please refund it in full.",
            f"Refund order {number} completely to the original payment method.",
        ], [_order_call("c1", number), {"id": "c2", "tool": "create_refund", "bind": {"charge_id": "{c1.charges.0.id}"}}],
            [("refunded", "{c2.amount_cents}")], writes=True, checks=[ONE_CHARGE])


class PartialRefund(Family):
    """Refund part of an order, with a note."""

    name = "payments.partial-refund"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        charge = rng.choice([c for c in _refundable(view, rng) if c["amount_cents"] >= 2500] or [None])
        if charge is None:
            return None
        amount = rng.choice([500, 1000, 1500, 2000])
        number, note = charge["order_number"], rng.choice(NOTES)
        return _draft(self, f"order:{number}|{amount}", [
            f"Refund {dollars(amount)} of order {number}, with the note \"{note}\"",
            f"Please give back {dollars(amount)} on order {number}. Note on the refund: \"{note}\"",
        ], [_order_call("c1", number), {"id": "c2", "tool": "create_refund", "arguments": {"amount_cents": amount, "note": note},
                                         "bind": {"charge_id": "{c1.charges.0.id}"}}],
            [("remaining", "{c2.charge.remaining_cents}")], writes=True, checks=[ONE_CHARGE])


class RefundIfSmall(Family):
    """Refund an order in full if it is small, otherwise only part of it."""

    name = "payments.refund-if-small"
    servers = (SERVER,)
    kind = "conditional-write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        charge = rng.choice([c for c in _refundable(view, rng) if c["amount_cents"] > 1500])
        number = charge["order_number"]
        limit = rng.choice([5000, 8000, 12000])
        args = {} if charge["amount_cents"] <= limit else {"amount_cents": 1500}
        return _draft(self, f"order:{number}|{limit}", [
            f"Order {number}: if it came to {dollars(limit)} or less, refund it in full; otherwise refund just $15.00.",
            f"Refund order {number} entirely when its total is at most {dollars(limit)}, else refund $15.00 of it.",
        ], [_order_call("c1", number), {"id": "c2", "tool": "create_refund", "arguments": args, "bind": {"charge_id": "{c1.charges.0.id}"}}],
            [("refunded", "{c2.amount_cents}")], writes=True, checks=[ONE_CHARGE])


class UpdatePhone(Family):
    """Change a customer's phone number."""

    name = "payments.update-phone"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        email = rng.choice(_charges(view, rng, status="succeeded"))["customer_email"]
        phone = f"+1-{rng.randint(201, 989)}-555-{rng.randint(0, 9999):04d}"
        return _draft(self, f"customer:{email}", [
            f"The customer {email} has a new phone number, {phone}. Update their record.",
            f"Change the phone of customer {email} to {phone}.",
        ], [{"id": "c1", "tool": "get_customer_by_email", "arguments": {"email": email}},
            {"id": "c2", "tool": "update_customer", "arguments": {"phone": phone}, "bind": {"customer_id": "{c1.id}"}}],
            [], writes=True)


class SwitchDefaultCard(Family):
    """Make another saved card the customer's default."""

    name = "payments.switch-default-card"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        customer = rng.choice(view.read(SERVER, "search_customers", has_subscription=True, per_page=100)["customers"])
        methods = view.read(SERVER, "list_payment_methods", customer_id=customer["id"])["payment_methods"]
        options = [i for i, m in enumerate(methods) if m["type"] == "card" and not m["is_default"] and not m["expired"]]
        if not options:
            return None
        index = rng.choice(options)
        label = methods[index]["label"]
        return _draft(self, f"customer:{customer['email']}", [
            f"{customer['email']} wants their {label} to be the default payment method from now on.",
            f"Make the {label} the default card of customer {customer['email']}.",
        ], [{"id": "c1", "tool": "get_customer_by_email", "arguments": {"email": customer["email"]}},
            {"id": "c2", "tool": "list_payment_methods", "bind": {"customer_id": "{c1.id}"}},
            {"id": "c3", "tool": "set_default_payment_method", "bind": {"customer_id": "{c1.id}",
                                                                        "payment_method_id": f"{{c2.payment_methods.{index}.id}}"}}],
            [], writes=True, checks=[f"{{c2.payment_methods.{index}.label}} == {label!r}"])


class Subscribe(Family):
    """Subscribe a shop customer to a plan."""

    name = "payments.subscribe"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        customer = rng.choice(view.read(SERVER, "search_customers", shop_only=True, has_subscription=False, per_page=100,
                                        page=rng.randint(1, 2))["customers"])
        if not _usable_card(view, customer["id"]):
            return None
        plans = view.read(SERVER, "list_plans")["plans"]
        index = rng.randrange(len(plans))
        seats = rng.randint(1, 10)
        nickname = plans[index]["nickname"]
        return _draft(self, f"customer:{customer['email']}|{nickname}", [
            f"Sign {customer['email']} up for the {nickname} plan with {seats} seat(s), charged to their default card.",
            f"Create a {nickname} subscription for customer {customer['email']}: {seats} seat(s).",
        ], [{"id": "c1", "tool": "get_customer_by_email", "arguments": {"email": customer["email"]}},
            {"id": "c2", "tool": "list_plans", "arguments": {}},
            {"id": "c3", "tool": "create_subscription", "arguments": {"quantity": seats},
             "bind": {"customer_id": "{c1.id}", "plan_id": f"{{c2.plans.{index}.id}}"}}],
            [("charged", "{c3.charged_cents}")], writes=True, checks=[f"{{c2.plans.{index}.nickname}} == {nickname!r}"])


class ChangeSeats(Family):
    """Change the seats of a company's subscription."""

    name = "payments.change-seats"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        subscription = rng.choice(_subscriptions(view, status="active"))
        if not _single_company(view, subscription):
            return None
        seats = subscription["quantity"] + rng.choice([-2, -1, 1, 2, 5])
        if seats < 1:
            return None
        company = subscription["organization_name"]
        return _draft(self, f"company:{company}|{seats}", [
            f"{company} needs {seats} seats on their subscription from now on. Please update it.",
            f"Set the seat count of {company}'s subscription to {seats}.",
        ], [*_company_calls(subscription), {"id": "c2", "tool": "update_subscription", "arguments": {"quantity": seats},
                                            "bind": {"subscription_id": "{c1.subscriptions.0.id}"}}],
            [("per period", "{c2.amount_cents}")], writes=True, checks=COMPANY_CHECKS)


class CancelAtPeriodEnd(Family):
    """Cancel a company's subscription at the end of the period."""

    name = "payments.cancel-at-period-end"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        subscription = rng.choice(_subscriptions(view, status="active", cancel_at_period_end=False))
        if not _single_company(view, subscription):
            return None
        company = subscription["organization_name"]
        return _draft(self, f"company:{company}", [
            f"{company} is leaving us. Cancel their subscription at the end of the period they've paid for; until when do they keep access?",
            f"Schedule {company}'s subscription to cancel when the current period ends. When is that?",
        ], [*_company_calls(subscription), {"id": "c2", "tool": "cancel_subscription", "arguments": {"at_period_end": True},
                                            "bind": {"subscription_id": "{c1.subscriptions.0.id}"}}],
            [("access until", "{c2.subscription.current_period_end}")], writes=True, checks=COMPANY_CHECKS)


class CancelNow(Family):
    """Cancel a subscription at once, and say the credit it gives."""

    name = "payments.cancel-now"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        subscription = rng.choice(_subscriptions(view, status="active"))
        if not _single_company(view, subscription):
            return None
        company = subscription["organization_name"]
        return _draft(self, f"company:{company}", [
            f"Cancel {company}'s subscription immediately, not at period end. How much credit do they get for the unused time?",
            f"End {company}'s subscription right now and tell me the credit added to their balance.",
        ], [*_company_calls(subscription), {"id": "c2", "tool": "cancel_subscription", "arguments": {"at_period_end": False},
                                            "bind": {"subscription_id": "{c1.subscriptions.0.id}"}}],
            [("credit", "{c2.credit_cents}")], writes=True, checks=COMPANY_CHECKS)


class Resume(Family):
    """Undo a scheduled cancellation."""

    name = "payments.resume"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        ending = _subscriptions(view, status="active", cancel_at_period_end=True)
        if not ending:
            return None
        subscription = rng.choice(ending)
        if not _single_company(view, subscription):
            return None
        company = subscription["organization_name"]
        return _draft(self, f"company:{company}", [
            f"Good news: {company} changed their mind and wants to stay. Undo the cancellation of their subscription.",
            f"{company} no longer wants to cancel; make their subscription renew as usual.",
        ], [*_company_calls(subscription), {"id": "c2", "tool": "resume_subscription",
                                            "bind": {"subscription_id": "{c1.subscriptions.0.id}"}}],
            [], writes=True, checks=COMPANY_CHECKS)


class InvoiceServices(Family):
    """Draft an invoice for services for a subscribing company."""

    name = "payments.invoice-services"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        customer = rng.choice(view.read(SERVER, "search_customers", has_subscription=True, per_page=100)["customers"])
        company = customer["organization_name"]
        if view.read(SERVER, "search_customers", query=company, has_subscription=True, per_page=1)["total"] != 1:
            return None
        service, price = rng.choice(SERVICES)
        count = rng.randint(1, 4)
        return _draft(self, f"company:{company}|{service}", [
            f"Draft an invoice to {company} for {count} x \"{service}\" at {dollars(price)} each. What is its number and total?",
            f"Bill {company} (our subscriber) for {count} x \"{service}\" ({dollars(price)} per unit) as a draft invoice; give me the number and total.",
        ], [{"id": "c1", "tool": "search_customers", "arguments": {"query": company, "has_subscription": True}},
            {"id": "c2", "tool": "create_invoice", "arguments": {"items": [{"description": service, "quantity": count,
                                                                              "unit_amount_cents": price}]},
             "bind": {"customer_id": "{c1.customers.0.id}"}}],
            [("number", "{c2.number}"), ("total", "{c2.total_cents}")], writes=True, checks=["{c1.total} == 1"])


class AddToDraft(Family):
    """Add a line to a draft invoice."""

    name = "payments.add-to-draft"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        invoice = rng.choice(_invoices(view, status="draft"))
        service, price = rng.choice(SERVICES)
        return _draft(self, f"invoice:{invoice['number']}|{service}", [
            f"Add one \"{service}\" at {dollars(price)} to draft invoice {invoice['number']}. What is the new total?",
            f"Put a \"{service}\" line ({dollars(price)}, quantity 1) on invoice {invoice['number']} and tell me its total.",
        ], [_invoice_call("c1", invoice), {"id": "c2", "tool": "add_invoice_item", "arguments": {
            "description": service, "unit_amount_cents": price}, "bind": {"invoice_id": "{c1.invoices.0.id}"}}],
            [("total", "{c2.total_cents}")], writes=True, checks=["{c1.total} == 1"])


class FinalizeDraft(Family):
    """Finalize a draft invoice and say when it is due."""

    name = "payments.finalize-draft"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        invoice = rng.choice(_invoices(view, status="draft"))
        return _draft(self, f"invoice:{invoice['number']}", [
            f"Invoice {invoice['number']} is ready: finalize it so it goes out. When is it due?",
            f"Finalize draft invoice {invoice['number']} and tell me the due date.",
        ], [_invoice_call("c1", invoice), {"id": "c2", "tool": "finalize_invoice", "bind": {"invoice_id": "{c1.invoices.0.id}"}}],
            [("due", "{c2.due_date}")], writes=True, checks=["{c1.total} == 1"])


def _collectable(view: WorldView) -> list[Row]:
    return [i for i in _invoices(view, status="open") if _usable_card(view, i["customer_id"])]


class CollectInvoice(Family):
    """Collect payment of an open invoice."""

    name = "payments.collect-invoice"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        invoice = rng.choice(_collectable(view))
        return _draft(self, f"invoice:{invoice['number']}", [
            f"Charge the customer's default card for open invoice {invoice['number']} now.",
            f"Collect payment for invoice {invoice['number']} from the card on file.",
        ], [_invoice_call("c1", invoice), {"id": "c2", "tool": "pay_invoice", "bind": {"invoice_id": "{c1.invoices.0.id}"}}],
            [("paid", "{c2.total_cents}")], writes=True, checks=["{c1.total} == 1"])


class VoidInvoice(Family):
    """Void an open invoice."""

    name = "payments.void-invoice"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        invoice = rng.choice(_invoices(view, status="open"))
        return _draft(self, f"invoice:{invoice['number']}", [
            f"Invoice {invoice['number']} was sent by mistake. Void it.",
            f"Please void invoice {invoice['number']}; the customer owes nothing on it.",
        ], [_invoice_call("c1", invoice), {"id": "c2", "tool": "void_invoice", "bind": {"invoice_id": "{c1.invoices.0.id}"}}],
            [], writes=True, checks=["{c1.total} == 1"])


def _needing_response(view: WorldView) -> list[Row]:
    return view.read(SERVER, "search_disputes", status=["needs_response"], per_page=100)["disputes"]


def _dispute_calls(number: str) -> list[Call]:
    """c1 the order's charge, c2 its detail (with the dispute)."""
    return [_order_call("c1", number), {"id": "c2", "tool": "get_charge", "bind": {"charge_id": "{c1.charges.0.id}"}}]


class AnswerDispute(Family):
    """Submit evidence on an order's dispute."""

    name = "payments.answer-dispute"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        number = rng.choice(_needing_response(view))["order_number"]
        evidence = rng.choice(EVIDENCE)
        return _draft(self, f"order:{number}", [
            f"Fight the chargeback on order {number}. Submit this as evidence: \"{evidence}\"",
            f"Respond to the dispute on order {number} with the evidence: \"{evidence}\"",
        ], [*_dispute_calls(number), {"id": "c3", "tool": "submit_dispute_evidence", "arguments": {"evidence": evidence},
                                      "bind": {"dispute_id": "{c2.dispute.id}"}}],
            [], writes=True, checks=[ONE_CHARGE])


class ConcedeDispute(Family):
    """Accept (concede) an order's dispute."""

    name = "payments.concede-dispute"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        dispute = rng.choice(_needing_response(view))
        number = dispute["order_number"]
        return _draft(self, f"order:{number}", [
            f"We won't contest the dispute on order {number}. Accept it. How much do we lose?",
            f"Concede the chargeback on order {number} and tell me the disputed amount.",
        ], [*_dispute_calls(number), {"id": "c3", "tool": "accept_dispute", "bind": {"dispute_id": "{c2.dispute.id}"}}],
            [("amount", "{c3.dispute.amount_cents}")], writes=True, checks=[ONE_CHARGE])


# ---------------------------------------------------------------- refusals


class RefundOverRemaining(Family):
    """Asked to refund an order's full price after part was refunded: refuse, say what remains."""

    name = "payments.refund-over-remaining"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        after = (view.now - timedelta(days=REFUND_WINDOW_DAYS - 5)).strftime("%Y-%m-%dT00:00:00Z")
        charges = [c for c in _charges(view, rng, status="succeeded", refunded=True, created_after=after)
                   if c["dispute_status"] is None]
        if not charges:
            return None
        charge = rng.choice(charges)
        number = charge["order_number"]
        return _draft(self, f"order:{number}", [
            f"Refund the full {dollars(charge['amount_cents'])} of order {number}. If you can't, tell me how much can still be refunded.",
            f"Give the customer of order {number} back all {dollars(charge['amount_cents'])}; if that's not allowed, what's the most I can refund?",
        ], [_order_call("c1", number)], [("refundable", "{c1.charges.0.remaining_cents}")], checks=[ONE_CHARGE])


class RefundDisputed(Family):
    """Asked to refund a charge under dispute: refuse, give the dispute's status and reason."""

    name = "payments.refund-disputed"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        disputes = view.read(SERVER, "search_disputes", status=["needs_response", "under_review"], per_page=100)["disputes"]
        number = rng.choice(disputes)["order_number"]
        return _draft(self, f"order:{number}", [
            f"Refund order {number} in full. If it can't be refunded, explain why (status and reason of anything blocking it).",
            f"Please send the money for order {number} back to the customer; if you can't, what's stopping it?",
        ], _dispute_calls(number), [("dispute status", "{c2.dispute.status}"), ("dispute reason", "{c2.dispute.reason}")],
            checks=[ONE_CHARGE])


class RefundTooOld(Family):
    """Asked to refund an order paid more than the window ago: refuse, say when it was paid."""

    name = "payments.refund-too-old"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        before = (view.now - timedelta(days=REFUND_WINDOW_DAYS + 10)).strftime("%Y-%m-%dT00:00:00Z")
        charges = [c for c in _charges(view, rng, status="succeeded", refunded=False, disputed=False, created_before=before)]
        charge = rng.choice(charges)
        number = charge["order_number"]
        return _draft(self, f"order:{number}", [
            f"Refund $10.00 of order {number} as a goodwill gesture. If that's not possible, tell me when it was paid.",
            f"Can you refund $10.00 on order {number}? If not, when was the payment made?",
        ], [_order_call("c1", number)], [("paid on", "{c1.charges.0.created_at}")], checks=[ONE_CHARGE])


class ChangeCanceled(Family):
    """Asked to add seats to a canceled subscription: refuse, say when it was canceled."""

    name = "payments.change-canceled"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        subscription = rng.choice(_subscriptions(view, status="canceled"))
        if not _single_company(view, subscription):
            return None
        company = subscription["organization_name"]
        return _draft(self, f"company:{company}", [
            f"Add two seats to {company}'s subscription. If that can't be done, tell me when it was canceled.",
            f"Bump {company}'s subscription by two seats; if it's not possible, when was it canceled?",
        ], _company_calls(subscription), [("canceled at", "{c1.subscriptions.0.canceled_at}")], checks=COMPANY_CHECKS)


class LegacyPlan(Family):
    """Asked to subscribe someone to a legacy plan: refuse, name an active plan of the same product tier price."""

    name = "payments.legacy-plan"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        plans = view.read(SERVER, "list_plans", include_inactive=True)["plans"]
        legacy = [(i, p) for i, p in enumerate(plans) if not p["active"]]
        if not legacy:
            return None
        index, plan = rng.choice(legacy)
        customer = rng.choice(view.read(SERVER, "search_customers", shop_only=True, has_subscription=False, per_page=50)["customers"])
        return _draft(self, f"customer:{customer['email']}|{plan['nickname']}", [
            f"Subscribe {customer['email']} to the {plan['nickname']} plan. If we can't, tell me what that plan cost per seat.",
            f"Put customer {customer['email']} on {plan['nickname']}; if that's refused, what was its per-seat price?",
        ], [{"id": "c1", "tool": "list_plans", "arguments": {"include_inactive": True}}],
            [("price", f"{{c1.plans.{index}.unit_amount_cents}}")], checks=[f"{{c1.plans.{index}.active}} == False"])


class DuplicatePlan(Family):
    """Asked to subscribe a company again to the plan it has: refuse, say how many seats it has."""

    name = "payments.duplicate-plan"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        subscription = rng.choice(_subscriptions(view, status="active"))
        if not _single_company(view, subscription):
            return None
        company, plan = subscription["organization_name"], subscription["plan_nickname"]
        return _draft(self, f"company:{company}", [
            f"Start a new {plan} subscription for {company}. If they can't have one, how many seats do they have now?",
            f"Create a {plan} subscription for {company}; if that's not allowed, tell me their current seat count.",
        ], _company_calls(subscription), [("seats", "{c1.subscriptions.0.quantity}")],
            checks=[*COMPANY_CHECKS, f"{{c1.subscriptions.0.plan_nickname}} == {plan!r}"])


class ExpiredCardInvoice(Family):
    """Asked to collect an invoice whose customer's default card expired: refuse, name the card."""

    name = "payments.expired-card-invoice"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        invoices = [i for i in _invoices(view, status="open") if not _usable_card(view, i["customer_id"])]
        if not invoices:
            return None
        invoice = rng.choice(invoices)
        return _draft(self, f"invoice:{invoice['number']}", [
            f"Collect invoice {invoice['number']} on the customer's default card. If it can't be charged, which card is it?",
            f"Charge open invoice {invoice['number']} now; if that fails by our rules, tell me the default payment method.",
        ], [_invoice_call("c1", invoice), {"id": "c2", "tool": "get_customer", "bind": {"customer_id": "{c1.invoices.0.customer_id}"}}],
            [("default", "{c2.default_payment_method}")], checks=["{c1.total} == 1"])


class EditPaidInvoice(Family):
    """Asked to add a line to a paid invoice: refuse, say when it was paid."""

    name = "payments.edit-paid-invoice"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        invoice = rng.choice(_invoices(view, status=rng.choice(["paid", "void"])))
        service, price = rng.choice(SERVICES)
        return _draft(self, f"invoice:{invoice['number']}", [
            f"Add \"{service}\" at {dollars(price)} to invoice {invoice['number']}. If it can't be edited, what is its status?",
            f"Put one more line, \"{service}\" ({dollars(price)}), on invoice {invoice['number']}; if not allowed, tell me its status.",
        ], [_invoice_call("c1", invoice)], [("status", "{c1.invoices.0.status}")], checks=["{c1.total} == 1"])


class LateEvidence(Family):
    """Asked to submit evidence on a dispute that no longer needs a response: refuse, give its status."""

    name = "payments.dispute-closed-evidence"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        disputes = view.read(SERVER, "search_disputes", status=["under_review", "won", "lost"], per_page=100)["disputes"]
        number = rng.choice(disputes)["order_number"]
        evidence = rng.choice(EVIDENCE)
        return _draft(self, f"order:{number}", [
            f"Submit this evidence on the dispute of order {number}: \"{evidence}\" If that's not possible, what is the dispute's status?",
            f"Send \"{evidence}\" as evidence for order {number}'s chargeback; if you can't, tell me where the dispute stands.",
        ], _dispute_calls(number), [("status", "{c2.dispute.status}")], checks=[ONE_CHARGE])


class ExpiredCardDefault(Family):
    """Asked to make an expired card the default: refuse, give its expiry."""

    name = "payments.expired-card-default"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        charges = _charges(view, rng, status="succeeded")
        for customer in rng.sample(charges, min(len(charges), 40)):
            methods = view.read(SERVER, "list_payment_methods", customer_id=customer["customer_id"])["payment_methods"]
            expired = [(i, m) for i, m in enumerate(methods) if m["expired"]]
            if expired:
                break
        else:
            return None
        index, method = rng.choice(expired)
        email = customer["customer_email"]
        return _draft(self, f"customer:{email}|{method['label']}", [
            f"Make the {method['label']} the default payment method of {email}. If it can't be, tell me its expiry (month and year).",
            f"Set {email}'s default to their {method['label']}; if refused, when did that card expire?",
        ], [{"id": "c1", "tool": "get_customer_by_email", "arguments": {"email": email}},
            {"id": "c2", "tool": "list_payment_methods", "bind": {"customer_id": "{c1.id}"}}],
            [("expiry month", f"{{c2.payment_methods.{index}.exp_month}}"), ("expiry year", f"{{c2.payment_methods.{index}.exp_year}}")],
            checks=[f"{{c2.payment_methods.{index}.label}} == {method['label']!r}"])


# ---------------------------------------------------------------- two turns


class ChargeThenRefund(Family):
    """Two turns: an order's charge, then a partial refund of it."""

    name = "payments.charge-then-refund"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        charge = rng.choice([c for c in _refundable(view, rng) if c["amount_cents"] >= 3000])
        number = charge["order_number"]
        first = [_order_call("c1", number)]
        return Draft(family=self.name, key=f"order:{number}", writes=True, checks=[ONE_CHARGE], turns=[
            {"user": [f"What did the customer pay for order {number}, and with what?",
                      f"How much was order {number} and which payment method was used?"],
             "calls": first, "facts": [{"name": "amount", "expr": "{c1.charges.0.amount_cents}", "value": None},
                                       {"name": "method", "expr": "{c1.charges.0.payment_method}", "value": None}]},
            {"user": ["Refund $20.00 of it, please.", "OK, give them $20.00 back on that order."],
             "calls": [{"id": "c2", "server": SERVER, "tool": "create_refund", "arguments": {"amount_cents": 2000},
                        "bind": {"charge_id": "{c1.charges.0.id}"}}],
             "facts": [{"name": "remaining", "expr": "{c2.charge.remaining_cents}", "value": None}]},
        ])


class SubscriptionThenCancel(Family):
    """Two turns: a company's subscription, then its cancellation at period end."""

    name = "payments.subscription-then-cancel"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        subscription = rng.choice(_subscriptions(view, status="active", cancel_at_period_end=False))
        if not _single_company(view, subscription):
            return None
        company = subscription["organization_name"]
        calls = [{"server": SERVER, **c} for c in _company_calls(subscription)]
        return Draft(family=self.name, key=f"company:{company}", writes=True, checks=COMPANY_CHECKS, turns=[
            {"user": [f"Which plan is {company} on, and when does their current period end?",
                      f"{company}'s subscription: plan and end of the current period?"],
             "calls": calls, "facts": [{"name": "plan", "expr": "{c1.subscriptions.0.plan_nickname}", "value": None},
                                       {"name": "period end", "expr": "{c1.subscriptions.0.current_period_end}", "value": None}]},
            {"user": ["They asked to leave. Cancel it at the end of that period.",
                      "Schedule it to cancel when that period ends."],
             "calls": [{"id": "c2", "server": SERVER, "tool": "cancel_subscription", "arguments": {"at_period_end": True},
                        "bind": {"subscription_id": "{c1.subscriptions.0.id}"}}], "facts": []},
        ])


# ---------------------------------------------------------------- across servers


class PastDueCrmOwner(Family):
    """The billing contact of a company's subscription (or of the newest past-due one), and who owns
    them in the CRM."""

    name = "cross.payments-past-due-crm-owner"
    servers = (SERVER, "crm")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        order = rng.choice(["newest", "company"])
        due = _subscriptions(view, status=rng.choice(["past_due", "active"]) if order == "company" else "past_due")
        if not due:
            return None
        if order == "company":
            subscription = rng.choice(due)
            if not _single_company(view, subscription):
                return None
            found = view.read(SERVER, "search_customers", query=subscription["organization_name"], has_subscription=True)
            if found["total"] != 1:
                return None
            customer = found["customers"][0]
            if view.lookup("crm", "find_contact_by_email", email=customer["email"]) is None:
                return None
            company = subscription["organization_name"]
            return _draft(self, f"company:{company}", [
                f"Who is {company}'s billing contact for their subscription, and who owns that contact in the CRM?",
                f"Find the billing contact behind {company}'s subscription and their contact owner in the CRM.",
            ], [{"id": "c1", "tool": "search_customers", "arguments": {"query": company, "has_subscription": True}},
                {"id": "c2", "server": "crm", "tool": "find_contact_by_email", "bind": {"email": "{c1.customers.0.email}"}}],
                [("billing contact", "{c1.customers.0.name}"), ("CRM owner", "{c2.owner_name}")], checks=["{c1.total} == 1"],
                servers=(SERVER, "crm"))
        customer = view.read(SERVER, "get_customer", customer_id=due[0]["customer_id"])
        if view.lookup("crm", "find_contact_by_email", email=customer["email"]) is None:
            return None
        return _draft(self, "newest-past-due", [
            "Of the past-due subscriptions, take the one started most recently: who is its billing contact and who owns them in the CRM?",
            "Newest past-due subscription: name its billing contact and that person's CRM contact owner.",
        ], [{"id": "c1", "tool": "search_subscriptions", "arguments": {"status": "past_due", "per_page": 1}},
            {"id": "c2", "tool": "get_customer", "bind": {"customer_id": "{c1.subscriptions.0.customer_id}"}},
            {"id": "c3", "server": "crm", "tool": "find_contact_by_email", "bind": {"email": "{c2.email}"}}],
            [("billing contact", "{c2.name}"), ("CRM owner", "{c3.owner_name}")], servers=(SERVER, "crm"))


class ShippingFeeRefund(Family):
    """Refund a shop order's shipping fee, read from the shop's order."""

    name = "cross.payments-shipping-refund"
    servers = (SERVER, "retail")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        charge = rng.choice(_refundable(view, rng))
        number = charge["order_number"]
        order = view.lookup("retail", "get_order", order_number=number)
        if order is None or not order.get("shipping_cents"):
            return None
        return _draft(self, f"order:{number}", [
            f"Order {number} arrived late. Refund the customer exactly what they paid for shipping (see the shop's order).",
            f"Give back the shipping fee of order {number}: look it up in the shop and refund that amount.",
        ], [{"id": "c1", "server": "retail", "tool": "get_order", "arguments": {"order_number": number}},
            {"id": "c2", "tool": "search_charges", "arguments": {"order_number": number, "status": "succeeded"}},
            {"id": "c3", "tool": "create_refund", "arguments": {"note": "Shipping fee refunded: late delivery"},
             "bind": {"charge_id": "{c2.charges.0.id}", "amount_cents": "{c1.shipping_cents}"}}],
            [("refunded", "{c3.amount_cents}")], writes=True, checks=["{c2.total} == 1"], servers=(SERVER, "retail"))


PAYMENTS_FAMILIES: tuple[Family, ...] = (
    OrderCharge(), OrderCustomer(), CustomerCards(), DisputeDeadline(), OpenDisputes(), MonthlyRefunds(), MonthlyBalance(),
    MonthComparison(), PlanPrice(), CompanySubscription(), InvoiceDetail(), OverdueInvoices(), MonthlyPayouts(), PastDue(),
    RefundOrder(), PartialRefund(), RefundIfSmall(), UpdatePhone(), SwitchDefaultCard(), Subscribe(), ChangeSeats(),
    CancelAtPeriodEnd(), CancelNow(), Resume(), InvoiceServices(), AddToDraft(), FinalizeDraft(), CollectInvoice(),
    VoidInvoice(), AnswerDispute(), ConcedeDispute(),
    RefundOverRemaining(), RefundDisputed(), RefundTooOld(), ChangeCanceled(), LegacyPlan(), DuplicatePlan(),
    ExpiredCardInvoice(), EditPaidInvoice(), LateEvidence(), ExpiredCardDefault(),
    ChargeThenRefund(), SubscriptionThenCancel(),
    PastDueCrmOwner(), ShippingFeeRefund(),
)
"""Every payments family, the cross-server ones (with the CRM and the shop) last."""
