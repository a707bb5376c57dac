"""The write tools: refunds, customer details and default cards, subscriptions (create,
change, cancel, resume), invoices (create, add items, finalize, pay, void) and disputes
(submit evidence, accept). Every rule is checked before anything is written."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError
from mcpgym.servers.kernel.fields import Body, Timestamp
from mcpgym.servers.kernel.tools import ToolContext
from mcpgym.servers.payments import examples as ex
from mcpgym.servers.payments.models import (
    LIVE_SUBSCRIPTION,
    OPEN_DISPUTE,
    REFUND_WINDOW_DAYS,
    Charge,
    Customer,
    Dispute,
    Invoice,
    InvoiceLine,
    PaymentMethod,
    Plan,
    Refund,
    Subscription,
)
from mcpgym.servers.payments.reads import ChargeId, CustomerId, DisputeId, InvoiceId, SubscriptionId, get_dispute, tools
from mcpgym.servers.payments.seed import fee, next_period
from mcpgym.servers.payments.views import (
    ChargeDetail,
    CustomerOut,
    DisputeOut,
    IdArg,
    InvoiceOut,
    PaymentMethodOut,
    SubscriptionOut,
    charge_detail,
    customer_out,
    is_expired,
    key_of,
    method_label,
    method_out,
    public,
    read_charge,
    read_customer,
    read_invoice,
    read_subscription,
    subscription_out,
    unknown,
)
from mcpgym.servers.payments.views import invoice_out as render_invoice

Row = dict[str, Any]
PlanId = IdArg("plan", "The plan's id")
PaymentMethodId = IdArg("payment_method", "The payment method's id")
Cents = Annotated[int, Field(ge=1, le=100_000_000, description="An amount in cents (1999 is $19.99).")]

# ---------------------------------------------------------------- refunds


class RefundResult(BaseModel):
    refund_id: str
    amount_cents: int
    charge: ChargeDetail = Field(description="The charge after the refund, with every refund it has.")


@tools.tool(writes=True, destructive=True, idempotent=False, title="Refund a charge",
            examples=[{"charge_id": ex.CHARGE, "amount_cents": 500, "note": "Goodwill for a late delivery"},
                      {"charge_id": ex.CHARGE}])
def create_refund(
    ctx: ToolContext,
    charge_id: ChargeId,
    amount_cents: Annotated[int | None, Field(ge=1, le=100_000_000, description="Cents to refund; omit to refund everything that remains.")] = None,
    reason: Annotated[Literal["requested_by_customer", "duplicate", "fraudulent"], Field(description="Why the money goes back.")] = "requested_by_customer",
    note: Annotated[str, Field(max_length=500, description="An internal note, e.g. what the refund is for.")] = "",
) -> RefundResult:
    """Refund all or part of a succeeded charge to the card or wallet it came from. Refused for
    more than what remains (amount minus earlier refunds), for a failed charge, a disputed
    charge, or a charge older than the refund window."""
    charge = read_charge(ctx, key_of(ctx, "charge", charge_id), charge_id)
    if charge["status"] != "succeeded":
        raise ForbiddenError(f"charge {charge_id} failed and moved no money: a refund never exceeds what remains of its "
                             "charge, and nothing remains of a failed one")
    if charge["dispute_status"] in (*OPEN_DISPUTE, "lost"):
        state = "is open" if charge["dispute_status"] in OPEN_DISPUTE else "was lost"
        raise ForbiddenError(f"charge {charge_id} is disputed (its dispute {state}): a disputed charge cannot be refunded")
    if charge["created_at"] < ctx.now - timedelta(days=REFUND_WINDOW_DAYS):
        raise ForbiddenError(f"charge {charge_id} was made on {charge['created_at']:%Y-%m-%d}: a charge older than "
                             f"{REFUND_WINDOW_DAYS} days cannot be refunded")
    remaining = charge["amount_cents"] - charge["amount_refunded_cents"]
    amount = remaining if amount_cents is None else amount_cents
    if remaining <= 0:
        raise ForbiddenError(f"charge {charge_id} is already fully refunded: a refund never exceeds what remains of its charge")
    if amount > remaining:
        raise ForbiddenError(f"{amount} cents is more than the {remaining} cents that remain of charge {charge_id} "
                             "(amount minus earlier refunds): a refund never exceeds what remains of its charge")
    key = ctx.sql.insert_row(Refund, {"charge_id": charge["id"], "amount_cents": amount, "reason": reason,
                                      "note": note.strip(), "status": "succeeded", "created_at": ctx.now})
    after = {**charge, "amount_refunded_cents": charge["amount_refunded_cents"] + amount}
    return RefundResult(refund_id=public(ctx, "refund", key), amount_cents=amount, charge=charge_detail(ctx, after))


# ---------------------------------------------------------------- customers


@tools.tool(writes=True, destructive=True, idempotent=True, title="Update customer",
            examples=[{"customer_id": ex.CUSTOMER, "phone": "+1-415-555-0199", "description": "Prefers email contact"}])
def update_customer(
    ctx: ToolContext,
    customer_id: CustomerId,
    name: Annotated[str | None, Field(min_length=1, max_length=120, description="New full name.")] = None,
    email: Annotated[str | None, Field(max_length=160, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$", description="New email address (unique among customers).")] = None,
    phone: Annotated[str | None, Field(max_length=40, description="New phone number.")] = None,
    description: Annotated[str | None, Field(max_length=500, description="New internal description of the customer.")] = None,
) -> CustomerOut:
    """Change a customer's name, email, phone or description; fields left out stay as they are."""
    key = key_of(ctx, "customer", customer_id)
    before = read_customer(ctx, key, customer_id)
    changes = {k: v.strip() for k, v in (("name", name), ("email", email), ("phone", phone), ("description", description))
               if v is not None}
    if not changes:
        raise InvalidArgumentError("nothing to change: give a name, email, phone or description")
    if "email" in changes:
        changes["email"] = changes["email"].lower()
        taken = ctx.sql.scalar("SELECT id FROM customers WHERE lower(email) = ? AND id != ?", [changes["email"], key])
        if taken is not None:
            raise InvalidArgumentError(f"email {changes['email']} belongs to customer {public(ctx, 'customer', taken)}")
    after = {**before, **changes}
    ctx.sql.update_row(Customer, before, after)
    return customer_out(ctx, after)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Set default payment method",
            examples=[{"customer_id": ex.TWO_CARD_CUSTOMER, "payment_method_id": ex.SECOND_CARD}])
def set_default_payment_method(ctx: ToolContext, customer_id: CustomerId, payment_method_id: PaymentMethodId) -> PaymentMethodOut:
    """Make one of a customer's saved payment methods the default, which subscriptions and
    invoice payments are charged to. An expired card cannot be the default."""
    key = key_of(ctx, "customer", customer_id)
    method_key = key_of(ctx, "payment_method", payment_method_id)
    customer = ctx.sql.one("SELECT id, default_payment_method_id FROM customers WHERE id = ?", [key])
    if customer is None:
        raise unknown("customer", customer_id)
    method = ctx.sql.one("SELECT * FROM payment_methods WHERE id = ?", [method_key], PaymentMethod)
    if method is None:
        raise unknown("payment_method", payment_method_id)
    if method["customer_id"] != key:
        raise InvalidArgumentError(f"payment method {payment_method_id} belongs to another customer; "
                                   f"use list_payment_methods with customer_id {customer_id}")
    if is_expired(ctx, method):
        raise ForbiddenError(f"{method_label(method['type'], method['brand'], method['last4'])} expired "
                             f"{method['exp_month']:02d}/{method['exp_year']}: a card past its expiry cannot be the default")
    ctx.sql.execute("UPDATE customers SET default_payment_method_id = ? WHERE id = ? AND "
                    "default_payment_method_id IS NOT ?", [method_key, key, method_key])
    return method_out(ctx, method, method_key)


# ---------------------------------------------------------------- subscriptions


def _usable_default(ctx: ToolContext, customer: Row, what: str) -> Row:
    """The customer's default payment method, if it can be charged; ForbiddenError otherwise."""
    method = ctx.sql.one("SELECT * FROM payment_methods WHERE id = ?", [customer["default_payment_method_id"]], PaymentMethod)
    if method is None:
        raise ForbiddenError(f"{customer['name']} has no default payment method: {what} needs an unexpired default card")
    if is_expired(ctx, method):
        raise ForbiddenError(f"{customer['name']}'s default payment method, "
                             f"{method_label(method['type'], method['brand'], method['last4'])}, expired "
                             f"{method['exp_month']:02d}/{method['exp_year']}: a card past its expiry cannot be charged "
                             "(set another default first)")
    return method


def _active_plan(ctx: ToolContext, plan_id: str) -> Row:
    plan = ctx.sql.one("SELECT * FROM plans WHERE id = ?", [key_of(ctx, "plan", plan_id)], Plan)
    if plan is None:
        raise unknown("plan", plan_id)
    if not plan["active"]:
        raise ForbiddenError(f"plan {plan['nickname']} is a legacy plan: new subscriptions and plan changes use active plans only")
    return plan


def _no_second(ctx: ToolContext, customer_key: int, plan: Row, name: str, besides: int = 0) -> None:
    other = ctx.sql.scalar("SELECT id FROM subscriptions WHERE customer_id = ? AND plan_id = ? AND id != ? AND status IN "
                           "(SELECT value FROM json_each(?))", [customer_key, plan["id"], besides, list(LIVE_SUBSCRIPTION)])
    if other is not None:
        raise ForbiddenError(f"{name} already has subscription {public(ctx, 'subscription', other)} to {plan['nickname']}: "
                             "a customer has at most one active or past-due subscription per plan")


def _next_number(ctx: ToolContext) -> str:
    last = ctx.sql.scalar("SELECT max(CAST(substr(number, 4) AS INTEGER)) FROM invoices")
    return f"NW-{(last or 10000) + 1}"


def _charge_invoice(ctx: ToolContext, customer: Row, method: Row, invoice_key: int, total: int, label: str) -> int:
    """Pay `total` of an invoice: the customer's credit first, then the default method for the
    rest; returns the credit spent."""
    credit = min(customer["credit_balance_cents"], total)
    if total - credit > 0:
        ctx.sql.insert_row(Charge, {
            "customer_id": customer["id"], "payment_method_id": method["id"], "amount_cents": total - credit,
            "fee_cents": fee(total - credit), "currency": "USD", "status": "succeeded", "failure_code": None,
            "description": label, "order_number": None, "invoice_id": invoice_key, "created_at": ctx.now})
    if credit:
        ctx.sql.execute("UPDATE customers SET credit_balance_cents = credit_balance_cents - ? WHERE id = ?", [credit, customer["id"]])
    return credit


class SubscriptionResult(BaseModel):
    subscription: SubscriptionOut
    invoice_number: str = Field(description="The first period's invoice, paid at once.")
    charged_cents: int = Field(description="What the default payment method was charged (after credit).")
    credit_applied_cents: int


@tools.tool(writes=True, destructive=False, idempotent=True, title="Create subscription",
            examples=[{"customer_id": ex.SHOP_CUSTOMER_WITH_CARD, "plan_id": ex.PLAN, "quantity": 3}])
def create_subscription(
    ctx: ToolContext,
    customer_id: CustomerId,
    plan_id: PlanId,
    quantity: Annotated[int, Field(ge=1, le=1000, description="Seats.")] = 1,
) -> SubscriptionResult:
    """Subscribe a customer to an active plan, starting now: the first period is invoiced and
    paid at once (customer credit first, then the default card)."""
    key = key_of(ctx, "customer", customer_id)
    customer = ctx.sql.one("SELECT * FROM customers WHERE id = ?", [key], Customer)
    if customer is None:
        raise unknown("customer", customer_id)
    plan = _active_plan(ctx, plan_id)
    _no_second(ctx, key, plan, customer["name"])
    method = _usable_default(ctx, customer, "a subscription")
    end = next_period(ctx.now, plan["interval"])
    subscription = ctx.sql.insert_row(Subscription, {
        "customer_id": key, "plan_id": plan["id"], "quantity": quantity, "status": "active",
        "current_period_start": ctx.now, "current_period_end": end, "cancel_at_period_end": False, "canceled_at": None,
        "ended_at": None, "created_at": ctx.now})
    number = _next_number(ctx)
    total = plan["unit_amount_cents"] * quantity
    invoice = ctx.sql.insert_row(Invoice, {
        "number": number, "customer_id": key, "subscription_id": subscription, "status": "paid", "memo": "",
        "credit_applied_cents": 0, "period_start": ctx.now, "period_end": end, "due_date": ctx.now, "created_at": ctx.now,
        "finalized_at": ctx.now, "paid_at": ctx.now, "voided_at": None})
    ctx.sql.insert_row(InvoiceLine, {"invoice_id": invoice, "description": f"{plan['nickname']} x {quantity} "
                                     f"({ctx.now:%b %d, %Y} - {end:%b %d, %Y})", "quantity": quantity,
                                     "unit_amount_cents": plan["unit_amount_cents"], "amount_cents": total})
    credit = _charge_invoice(ctx, customer, method, invoice, total, f"Subscription {plan['nickname']}")
    if credit:
        ctx.sql.execute("UPDATE invoices SET credit_applied_cents = ? WHERE id = ?", [credit, invoice])
    row = read_subscription(ctx, subscription, "")
    return SubscriptionResult(subscription=subscription_out(ctx, row), invoice_number=number,
                              charged_cents=total - credit, credit_applied_cents=credit)


def _changeable(ctx: ToolContext, subscription_id: str) -> Row:
    row = read_subscription(ctx, key_of(ctx, "subscription", subscription_id), subscription_id)
    if row["status"] == "canceled":
        raise ForbiddenError(f"subscription {subscription_id} was canceled on {row['canceled_at']:%Y-%m-%d}: a canceled "
                             "subscription cannot be changed, resumed or canceled again")
    return row


@tools.tool(writes=True, destructive=True, idempotent=True, title="Update subscription",
            examples=[{"subscription_id": ex.SUBSCRIPTION, "quantity": 12}, {"subscription_id": ex.SUBSCRIPTION, "plan_id": ex.OTHER_PLAN}])
def update_subscription(
    ctx: ToolContext,
    subscription_id: SubscriptionId,
    plan_id: Annotated[str | None, Field(max_length=40, description="Move to this active plan (price_...).")] = None,
    quantity: Annotated[int | None, Field(ge=1, le=1000, description="New number of seats.")] = None,
) -> SubscriptionOut:
    """Change a live subscription's plan or seats. The change bills from the next period's
    invoice; the current period is not prorated. Canceled subscriptions cannot be changed."""
    if plan_id is None and quantity is None:
        raise InvalidArgumentError("nothing to change: give a plan_id or a quantity")
    before = _changeable(ctx, subscription_id)
    after = dict(before)
    if plan_id is not None:
        plan = _active_plan(ctx, plan_id)
        if plan["id"] != before["plan_id"]:
            _no_second(ctx, before["customer_id"], plan, before["customer_name"], besides=before["id"])
        after.update(plan_id=plan["id"], plan_nickname=plan["nickname"], interval=plan["interval"],
                     unit_amount_cents=plan["unit_amount_cents"])
    if quantity is not None:
        after["quantity"] = quantity
    ctx.sql.update_row(Subscription, before, after)
    return subscription_out(ctx, after)


class CancelResult(BaseModel):
    subscription: SubscriptionOut
    credit_cents: int = Field(description="Credit added to the customer's balance for the unused days (immediate cancellation).")
    credit_balance_cents: int = Field(description="The customer's credit balance afterwards.")


@tools.tool(writes=True, destructive=True, idempotent=True, title="Cancel subscription",
            examples=[{"subscription_id": ex.SUBSCRIPTION, "at_period_end": True},
                      {"subscription_id": ex.SUBSCRIPTION, "at_period_end": False}])
def cancel_subscription(
    ctx: ToolContext,
    subscription_id: SubscriptionId,
    at_period_end: Annotated[bool, Field(description="True: keep it active until current_period_end, then end it (can be undone with resume_subscription). False: end it now and credit the unused days.")],
) -> CancelResult:
    """Cancel a subscription, at the end of its paid period or immediately. Immediately credits
    the unused part of a paid period to the customer's balance: whole days left / days in the
    period x price x seats, rounded down; nothing is refunded to the card."""
    before = _changeable(ctx, subscription_id)
    balance = ctx.sql.scalar("SELECT credit_balance_cents FROM customers WHERE id = ?", [before["customer_id"]])
    credit = 0
    if at_period_end:
        after = {**before, "cancel_at_period_end": True, "canceled_at": before["canceled_at"] or ctx.now}
        if before["cancel_at_period_end"]:
            after["canceled_at"] = before["canceled_at"]
    else:
        after = {**before, "status": "canceled", "cancel_at_period_end": False, "canceled_at": ctx.now, "ended_at": ctx.now}
        if before["status"] == "active":
            days = (before["current_period_end"] - before["current_period_start"]).days
            left = max(0, (before["current_period_end"] - ctx.now).days)
            credit = before["unit_amount_cents"] * before["quantity"] * left // max(days, 1)
        if credit:
            ctx.sql.execute("UPDATE customers SET credit_balance_cents = credit_balance_cents + ? WHERE id = ?",
                            [credit, before["customer_id"]])
    ctx.sql.update_row(Subscription, before, after)
    return CancelResult(subscription=subscription_out(ctx, after), credit_cents=credit, credit_balance_cents=balance + credit)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Resume subscription", examples=[{"subscription_id": ex.ENDING_SUBSCRIPTION}])
def resume_subscription(ctx: ToolContext, subscription_id: SubscriptionId) -> SubscriptionOut:
    """Undo a cancellation scheduled for the period's end, so the subscription renews. A
    canceled (ended) subscription cannot be resumed."""
    before = _changeable(ctx, subscription_id)
    if not before["cancel_at_period_end"]:
        raise InvalidArgumentError(f"subscription {subscription_id} is not set to cancel; there is nothing to resume")
    after = {**before, "cancel_at_period_end": False, "canceled_at": None}
    ctx.sql.update_row(Subscription, before, after)
    return subscription_out(ctx, after)


# ---------------------------------------------------------------- invoices


class InvoiceItemIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    description: str = Field(min_length=1, max_length=200, description="What is billed, e.g. 'Admin training session'.")
    quantity: int = Field(default=1, ge=1, le=10_000, description="How many.")
    unit_amount_cents: int = Field(ge=1, le=100_000_000, description="Price of one, in cents.")


def _editable(ctx: ToolContext, invoice_id: str, allowed: tuple[str, ...], action: str) -> Row:
    row = read_invoice(ctx, key_of(ctx, "invoice", invoice_id), invoice_id)
    if row["status"] not in allowed:
        raise ForbiddenError(f"invoice {row['number']} is {row['status']}: only {' or '.join(allowed)} invoices can be {action} "
                             "(a paid or void invoice cannot be edited)")
    return row


@tools.tool(writes=True, destructive=False, idempotent=False, title="Create invoice", examples=[{"customer_id": ex.SUBSCRIBER, "items": [
    {"description": "Admin training session", "quantity": 2, "unit_amount_cents": 45000}], "memo": "Training in November"}])
def create_invoice(
    ctx: ToolContext,
    customer_id: CustomerId,
    items: Annotated[list[InvoiceItemIn], Field(min_length=1, max_length=20, description="The line items to bill.")],
    memo: Annotated[str, Field(max_length=500, description="A note printed on the invoice.")] = "",
    days_until_due: Annotated[int, Field(ge=1, le=90, description="Days from finalizing to the due date.")] = 30,
) -> InvoiceOut:
    """Draft a one-off invoice for a customer (services, extra work). A draft can still get
    items; finalize_invoice sends it, with the due date days_until_due later."""
    key = key_of(ctx, "customer", customer_id)
    if ctx.sql.scalar("SELECT id FROM customers WHERE id = ?", [key]) is None:
        raise unknown("customer", customer_id)
    invoice = ctx.sql.insert_row(Invoice, {
        "number": _next_number(ctx), "customer_id": key, "subscription_id": None, "status": "draft", "memo": memo.strip(),
        "credit_applied_cents": 0, "period_start": None, "period_end": None,
        "due_date": ctx.now + timedelta(days=days_until_due), "created_at": ctx.now, "finalized_at": None, "paid_at": None,
        "voided_at": None})
    ctx.sql.execute(
        "INSERT INTO invoice_lines (invoice_id, description, quantity, unit_amount_cents, amount_cents) "
        "SELECT ?, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), "
        "json_extract(value, '$[1]') * json_extract(value, '$[2]') FROM json_each(?) ORDER BY key",
        [invoice, [[i.description.strip(), i.quantity, i.unit_amount_cents] for i in items]])
    return render_invoice(ctx, read_invoice(ctx, invoice, ""))


@tools.tool(writes=True, destructive=False, idempotent=False, title="Add invoice item",
            examples=[{"invoice_id": ex.DRAFT_INVOICE, "description": "Admin training session", "quantity": 1, "unit_amount_cents": 45000}])
def add_invoice_item(
    ctx: ToolContext,
    invoice_id: InvoiceId,
    description: Annotated[str, Field(min_length=1, max_length=200, description="What is billed.")],
    unit_amount_cents: Cents,
    quantity: Annotated[int, Field(ge=1, le=10_000, description="How many.")] = 1,
) -> InvoiceOut:
    """Add a line item to a draft invoice. Open, paid and void invoices cannot be edited."""
    row = _editable(ctx, invoice_id, ("draft",), "edited")
    ctx.sql.insert_row(InvoiceLine, {"invoice_id": row["id"], "description": description.strip(), "quantity": quantity,
                                     "unit_amount_cents": unit_amount_cents, "amount_cents": quantity * unit_amount_cents})
    return render_invoice(ctx, {**row, "total_cents": row["total_cents"] + quantity * unit_amount_cents})


@tools.tool(writes=True, destructive=True, idempotent=True, title="Finalize invoice", examples=[{"invoice_id": ex.DRAFT_INVOICE}])
def finalize_invoice(ctx: ToolContext, invoice_id: InvoiceId) -> InvoiceOut:
    """Finalize a draft invoice: it becomes open (no more edits), with its due date set, and
    can then be paid or voided."""
    before = _editable(ctx, invoice_id, ("draft",), "finalized")
    if before["total_cents"] <= 0:
        raise InvalidArgumentError(f"invoice {before['number']} has no line items; add one with add_invoice_item first")
    days = max(1, (before["due_date"] - before["created_at"]).days) if before["due_date"] else 30
    after = {**before, "status": "open", "finalized_at": ctx.now, "due_date": ctx.now + timedelta(days=days)}
    ctx.sql.update_row(Invoice, before, after)
    return render_invoice(ctx, after)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Pay invoice", examples=[{"invoice_id": ex.OPEN_INVOICE}])
def pay_invoice(ctx: ToolContext, invoice_id: InvoiceId) -> InvoiceOut:
    """Collect an open invoice now: the customer's credit balance first, then a charge on their
    default payment method for the rest (it must not be expired). A past-due subscription
    whose invoice this is becomes active again."""
    before = _editable(ctx, invoice_id, ("open",), "paid")
    customer = ctx.sql.one("SELECT * FROM customers WHERE id = ?", [before["customer_id"]], Customer)
    assert customer is not None
    method = _usable_default(ctx, customer, "paying an invoice")
    credit = _charge_invoice(ctx, customer, method, before["id"], before["total_cents"], f"Invoice {before['number']}")
    after = {**before, "status": "paid", "paid_at": ctx.now, "credit_applied_cents": credit}
    ctx.sql.update_row(Invoice, before, after)
    if before["subscription_id"] is not None:
        ctx.sql.execute("UPDATE subscriptions SET status = 'active' WHERE id = ? AND status = 'past_due' AND NOT EXISTS "
                        "(SELECT 1 FROM invoices WHERE subscription_id = ? AND status = 'open')",
                        [before["subscription_id"], before["subscription_id"]])
    return render_invoice(ctx, after)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Void invoice", examples=[{"invoice_id": ex.OPEN_INVOICE}])
def void_invoice(ctx: ToolContext, invoice_id: InvoiceId) -> InvoiceOut:
    """Void an open invoice: nothing is owed on it any more. A paid invoice cannot be voided
    (refund its charge instead)."""
    before = _editable(ctx, invoice_id, ("open",), "voided")
    after = {**before, "status": "void", "voided_at": ctx.now}
    ctx.sql.update_row(Invoice, before, after)
    return render_invoice(ctx, after)


# ---------------------------------------------------------------- disputes


def _open_dispute(ctx: ToolContext, dispute_id: str, action: str) -> Row:
    row = ctx.sql.one("SELECT * FROM disputes WHERE id = ?", [key_of(ctx, "dispute", dispute_id)], Dispute)
    if row is None:
        raise unknown("dispute", dispute_id)
    if row["status"] != "needs_response":
        raise ForbiddenError(f"dispute {dispute_id} is {row['status']}: only a dispute that needs a response can {action}")
    return row


class DisputeResult(BaseModel):
    dispute: DisputeOut
    changed_at: Timestamp


def _dispute_result(ctx: ToolContext, key: int) -> DisputeResult:
    return DisputeResult(dispute=get_dispute(ctx, public(ctx, "dispute", key) or ""), changed_at=ctx.now)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Submit dispute evidence",
            examples=[{"dispute_id": ex.DISPUTE, "evidence": "Carrier tracking shows delivery on the 14th; signed receipt attached."}])
def submit_dispute_evidence(
    ctx: ToolContext,
    dispute_id: DisputeId,
    evidence: Annotated[Body, Field(min_length=1, description="The evidence for the card network: delivery proof, correspondence, policies.")],
) -> DisputeResult:
    """Answer a dispute with evidence; it moves to under_review. Only while the dispute needs a
    response and before its evidence_due_by."""
    row = _open_dispute(ctx, dispute_id, "get evidence")
    if ctx.now > row["evidence_due_by"]:
        raise ForbiddenError(f"the evidence of dispute {dispute_id} was due by {row['evidence_due_by']:%Y-%m-%d %H:%M} UTC: "
                             "evidence is submitted only before evidence_due_by")
    ctx.sql.update_row(Dispute, row, {**row, "status": "under_review", "evidence": evidence.strip(),
                                      "evidence_submitted_at": ctx.now})
    return _dispute_result(ctx, row["id"])


@tools.tool(writes=True, destructive=True, idempotent=True, title="Accept dispute", examples=[{"dispute_id": ex.DISPUTE}])
def accept_dispute(ctx: ToolContext, dispute_id: DisputeId) -> DisputeResult:
    """Concede a dispute that needs a response: it closes as lost and the cardholder keeps the
    money. Cannot be undone."""
    row = _open_dispute(ctx, dispute_id, "be accepted")
    ctx.sql.update_row(Dispute, row, {**row, "status": "lost", "closed_at": ctx.now})
    return _dispute_result(ctx, row["id"])

