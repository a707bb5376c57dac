"""Result models of the payments tools, the statements that read each entity with what its
view needs, and the conversions between database keys and Stripe-like ids."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field

from mcpgym.servers.kernel.errors import NotFoundError
from mcpgym.servers.kernel.fields import Timestamp
from mcpgym.servers.kernel.tools import ToolContext
from mcpgym.servers.payments.ids import PREFIXES, decode, encode
from mcpgym.servers.payments.models import Charge, Customer, Dispute, Invoice, InvoiceLine, Plan, Refund, Subscription

Row = dict[str, Any]

HINTS = {
    "customer": "Use get_customer_by_email or search_customers to find customer ids (cus_...).",
    "payment_method": "Use list_payment_methods to see a customer's payment methods (pm_...).",
    "charge": "Use search_charges (by customer or order number) to find charge ids (ch_...).",
    "refund": "Use search_refunds or get_charge to find refund ids (re_...).",
    "dispute": "Use search_disputes or get_charge to find dispute ids (dp_...).",
    "plan": "Use list_plans to find plan ids (price_...).",
    "subscription": "Use search_subscriptions to find subscription ids (sub_...).",
    "invoice": "Use search_invoices (by customer or invoice number) to find invoice ids (in_...).",
    "payout": "Use list_payouts to find payout ids (po_...).",
}
LABELS = {"payment_method": "payment method"}


def IdArg(kind: str, what: str) -> Any:  # noqa: N802 (a type factory)
    """An argument holding a Stripe-like id of `kind`."""
    return Annotated[str, Field(min_length=1, max_length=40, description=f"{what} ({PREFIXES[kind]}_...). {HINTS[kind]}")]


def public(ctx: ToolContext, kind: str, key: int | None) -> str | None:
    """The Stripe-like id of a row (None stays None)."""
    return None if key is None else encode(kind, ctx.world.seed, key)


def key_of(ctx: ToolContext, kind: str, text: str) -> int:
    """The database key behind a Stripe-like id, or `NotFoundError` with a hint."""
    key = decode(kind, ctx.world.seed, text)
    if key is None:
        raise unknown(kind, text)
    return key


def unknown(kind: str, text: str) -> NotFoundError:
    return NotFoundError(f"no {LABELS.get(kind, kind)} with id {text!r}. {HINTS[kind]}")


def is_expired(ctx: ToolContext, method: Row) -> bool:
    """Whether a card is past its expiry month (wallets never expire)."""
    if method.get("exp_year") is None or method.get("exp_month") is None:
        return False
    return (method["exp_year"], method["exp_month"]) < (ctx.now.year, ctx.now.month)


METHOD_NAMES = {"paypal": "PayPal", "shop_pay": "Shop Pay", "gift_card": "Gift card"}


def method_label(kind: str | None, brand: str | None, last4: str | None) -> str:
    """How a payment method reads: 'Visa ending 4242', 'PayPal'."""
    if kind == "card":
        return f"{(brand or 'card').title() if brand != 'amex' else 'American Express'} ending {last4}"
    return METHOD_NAMES.get(kind or "", (kind or "").replace("_", " ").title())


# ---------------------------------------------------------------- customers


class CustomerSummary(BaseModel):
    id: str = Field(description="The customer id (cus_...).")
    name: str
    email: str
    organization_name: str = Field(description="The company the person works for.")
    is_shop_customer: bool = Field(description="True for buyers of the online shop.")
    credit_balance_cents: int = Field(description="Credit owed to the customer, spent on their next invoice.")
    created_at: Timestamp


class CustomerOut(CustomerSummary):
    phone: str
    city: str
    description: str
    default_payment_method_id: str | None
    default_payment_method: str | None = Field(description="The default method as it reads, e.g. 'Visa ending 4242'.")
    charges_succeeded: int
    total_paid_cents: int = Field(description="Sum of the customer's succeeded charges.")
    total_refunded_cents: int
    live_subscriptions: int = Field(description="Subscriptions active or past due.")


class CustomerPage(BaseModel):
    customers: list[CustomerSummary]
    total: int
    page: int
    next_page: int | None


CUSTOMER_STATS = (
    "customers.*, pm.type AS pm_type, pm.brand AS pm_brand, pm.last4 AS pm_last4, "
    "(SELECT count(*) FROM charges WHERE charges.customer_id = customers.id AND charges.status = 'succeeded') AS charges_succeeded, "
    "(SELECT COALESCE(SUM(amount_cents), 0) FROM charges WHERE charges.customer_id = customers.id AND charges.status = 'succeeded') AS total_paid_cents, "
    "(SELECT COALESCE(SUM(refunds.amount_cents), 0) FROM refunds JOIN charges ON charges.id = refunds.charge_id "
    "WHERE charges.customer_id = customers.id) AS total_refunded_cents, "
    "(SELECT count(*) FROM subscriptions WHERE subscriptions.customer_id = customers.id "
    "AND subscriptions.status IN ('active', 'past_due')) AS live_subscriptions "
    "FROM customers LEFT JOIN payment_methods AS pm ON pm.id = customers.default_payment_method_id"
)


def customer_summary(ctx: ToolContext, row: Row) -> CustomerSummary:
    return CustomerSummary(**{**row, "id": public(ctx, "customer", row["id"]),
                              "is_shop_customer": row["retail_customer_id"] is not None})


def customer_out(ctx: ToolContext, row: Row) -> CustomerOut:
    label = method_label(row["pm_type"], row["pm_brand"], row["pm_last4"]) if row["pm_type"] else None
    return CustomerOut(**{**row, "id": public(ctx, "customer", row["id"]),
                          "is_shop_customer": row["retail_customer_id"] is not None,
                          "default_payment_method_id": public(ctx, "payment_method", row["default_payment_method_id"]),
                          "default_payment_method": label})


def read_customer(ctx: ToolContext, key: int, text: str) -> Row:
    row = ctx.sql.one(f"SELECT {CUSTOMER_STATS} WHERE customers.id = ?", [key], Customer)
    if row is None:
        raise unknown("customer", text)
    return row


# ---------------------------------------------------------------- payment methods


class PaymentMethodOut(BaseModel):
    id: str = Field(description="The payment method id (pm_...).")
    customer_id: str
    type: str = Field(description="card, paypal, shop_pay or gift_card.")
    label: str = Field(description="How it reads, e.g. 'Visa ending 4242'.")
    brand: str | None
    last4: str | None
    exp_month: int | None
    exp_year: int | None
    funding: str | None = Field(description="credit or debit, for cards.")
    wallet_email: str | None
    is_default: bool
    expired: bool = Field(description="True for a card past its expiry month: it cannot be charged.")
    created_at: Timestamp


class PaymentMethodList(BaseModel):
    customer_id: str
    payment_methods: list[PaymentMethodOut]


def method_out(ctx: ToolContext, row: Row, default: int | None) -> PaymentMethodOut:
    return PaymentMethodOut(**{**row, "id": public(ctx, "payment_method", row["id"]),
                               "customer_id": public(ctx, "customer", row["customer_id"]),
                               "label": method_label(row["type"], row["brand"], row["last4"]),
                               "is_default": row["id"] == default, "expired": is_expired(ctx, row)})


# ---------------------------------------------------------------- charges, refunds, disputes


class RefundOut(BaseModel):
    id: str = Field(description="The refund id (re_...).")
    charge_id: str
    amount_cents: int
    reason: str = Field(description="requested_by_customer, duplicate or fraudulent.")
    note: str
    status: str
    created_at: Timestamp


class RefundRow(RefundOut):
    order_number: str | None
    customer_id: str
    customer_name: str


class RefundPage(BaseModel):
    refunds: list[RefundRow]
    total: int
    total_amount_cents: int = Field(description="Sum of the amounts of every matching refund, all pages.")
    page: int
    next_page: int | None


class DisputeOut(BaseModel):
    id: str = Field(description="The dispute id (dp_...).")
    charge_id: str
    customer_id: str
    customer_name: str
    order_number: str | None
    amount_cents: int
    reason: str
    status: str = Field(description="needs_response or under_review (open), won or lost.")
    evidence: str
    evidence_due_by: Timestamp
    evidence_submitted_at: Timestamp | None
    created_at: Timestamp
    closed_at: Timestamp | None


class DisputePage(BaseModel):
    disputes: list[DisputeOut]
    total: int
    page: int
    next_page: int | None


class ChargeOut(BaseModel):
    id: str = Field(description="The charge id (ch_...).")
    customer_id: str
    customer_name: str
    customer_email: str
    amount_cents: int
    amount_refunded_cents: int
    remaining_cents: int = Field(description="Amount minus refunds so far: the most a new refund could be.")
    fee_cents: int = Field(description="Processing fee kept by the processor.")
    currency: str
    status: str = Field(description="succeeded or failed.")
    failure_code: str | None
    description: str
    order_number: str | None = Field(description="The shop order the charge paid, e.g. '#1001'.")
    invoice_id: str | None
    payment_method_id: str
    payment_method: str = Field(description="The method as it reads, e.g. 'Visa ending 4242'.")
    dispute_status: str | None = Field(description="Status of the charge's dispute, if it has one.")
    created_at: Timestamp


class ChargeDetail(ChargeOut):
    refunds: list[RefundOut]
    dispute: DisputeOut | None


class ChargePage(BaseModel):
    charges: list[ChargeOut]
    total: int
    total_amount_cents: int = Field(description="Sum of the amounts of every matching charge, all pages.")
    page: int
    next_page: int | None


CHARGE_COLUMNS = (
    "charges.*, customers.name AS customer_name, customers.email AS customer_email, "
    "pm.type AS pm_type, pm.brand AS pm_brand, pm.last4 AS pm_last4, "
    "COALESCE((SELECT SUM(refunds.amount_cents) FROM refunds WHERE refunds.charge_id = charges.id), 0) AS amount_refunded_cents, "
    "(SELECT disputes.status FROM disputes WHERE disputes.charge_id = charges.id ORDER BY disputes.id DESC LIMIT 1) AS dispute_status"
)
CHARGE_TABLES = ("charges JOIN customers ON customers.id = charges.customer_id "
                 "JOIN payment_methods AS pm ON pm.id = charges.payment_method_id")


def charge_out(ctx: ToolContext, row: Row) -> ChargeOut:
    return ChargeOut(**{
        **row, "id": public(ctx, "charge", row["id"]), "customer_id": public(ctx, "customer", row["customer_id"]),
        "invoice_id": public(ctx, "invoice", row["invoice_id"]),
        "payment_method_id": public(ctx, "payment_method", row["payment_method_id"]),
        "payment_method": method_label(row["pm_type"], row["pm_brand"], row["pm_last4"]),
        "remaining_cents": row["amount_cents"] - row["amount_refunded_cents"] if row["status"] == "succeeded" else 0,
    })


def refund_out(ctx: ToolContext, row: Row) -> RefundOut:
    return RefundOut(**{**row, "id": public(ctx, "refund", row["id"]), "charge_id": public(ctx, "charge", row["charge_id"])})


DISPUTE_COLUMNS = ("disputes.*, charges.customer_id, charges.order_number, customers.name AS customer_name "
                   "FROM disputes JOIN charges ON charges.id = disputes.charge_id "
                   "JOIN customers ON customers.id = charges.customer_id")


def dispute_out(ctx: ToolContext, row: Row) -> DisputeOut:
    return DisputeOut(**{**row, "id": public(ctx, "dispute", row["id"]), "charge_id": public(ctx, "charge", row["charge_id"]),
                         "customer_id": public(ctx, "customer", row["customer_id"])})


def read_charge(ctx: ToolContext, key: int, text: str) -> Row:
    row = ctx.sql.one(f"SELECT {CHARGE_COLUMNS} FROM {CHARGE_TABLES} WHERE charges.id = ?", [key], Charge)
    if row is None:
        raise unknown("charge", text)
    return row


def charge_detail(ctx: ToolContext, row: Row) -> ChargeDetail:
    refunds = ctx.sql.all("SELECT * FROM refunds WHERE charge_id = ? ORDER BY created_at, id", [row["id"]], Refund)
    dispute = ctx.sql.one(f"SELECT {DISPUTE_COLUMNS} WHERE disputes.charge_id = ? ORDER BY disputes.id DESC LIMIT 1",
                          [row["id"]], (Dispute, Charge))
    base = charge_out(ctx, row)
    return ChargeDetail(**base.model_dump(), refunds=[refund_out(ctx, r) for r in refunds],
                        dispute=dispute_out(ctx, dispute) if dispute else None)


# ---------------------------------------------------------------- plans and subscriptions


class PlanOut(BaseModel):
    id: str = Field(description="The plan (price) id (price_...).")
    product: str
    nickname: str = Field(description="The plan's name, e.g. 'Team Monthly'.")
    interval: str = Field(description="month or year: how often it bills.")
    unit_amount_cents: int = Field(description="Price per seat per interval.")
    active: bool = Field(description="False for legacy plans nobody new can get.")
    live_subscriptions: int


class PlanList(BaseModel):
    plans: list[PlanOut]


class SubscriptionOut(BaseModel):
    id: str = Field(description="The subscription id (sub_...).")
    customer_id: str
    customer_name: str
    organization_name: str
    plan_id: str
    plan_nickname: str
    interval: str
    unit_amount_cents: int
    quantity: int = Field(description="Seats.")
    amount_cents: int = Field(description="What each period bills: unit amount x quantity.")
    status: str = Field(description="active, past_due (latest invoice unpaid) or canceled.")
    current_period_start: Timestamp
    current_period_end: Timestamp
    cancel_at_period_end: bool = Field(description="Set to end at current_period_end (can still be resumed).")
    canceled_at: Timestamp | None
    ended_at: Timestamp | None
    created_at: Timestamp


class SubscriptionPage(BaseModel):
    subscriptions: list[SubscriptionOut]
    total: int
    page: int
    next_page: int | None


SUBSCRIPTION_COLUMNS = ("subscriptions.*, customers.name AS customer_name, customers.organization_name, "
                        "plans.nickname AS plan_nickname, plans.interval, plans.unit_amount_cents")
SUBSCRIPTION_TABLES = ("subscriptions JOIN customers ON customers.id = subscriptions.customer_id "
                       "JOIN plans ON plans.id = subscriptions.plan_id")


def subscription_out(ctx: ToolContext, row: Row) -> SubscriptionOut:
    return SubscriptionOut(**{**row, "id": public(ctx, "subscription", row["id"]),
                              "customer_id": public(ctx, "customer", row["customer_id"]),
                              "plan_id": public(ctx, "plan", row["plan_id"]),
                              "amount_cents": row["unit_amount_cents"] * row["quantity"]})


def read_subscription(ctx: ToolContext, key: int, text: str) -> Row:
    row = ctx.sql.one(f"SELECT {SUBSCRIPTION_COLUMNS} FROM {SUBSCRIPTION_TABLES} WHERE subscriptions.id = ?", [key],
                      (Subscription, Plan))
    if row is None:
        raise unknown("subscription", text)
    return row


# ---------------------------------------------------------------- invoices


class InvoiceLineOut(BaseModel):
    description: str
    quantity: int
    unit_amount_cents: int
    amount_cents: int


class InvoiceSummary(BaseModel):
    id: str = Field(description="The invoice id (in_...).")
    number: str = Field(description="The invoice number customers see, e.g. 'NW-10042'.")
    customer_id: str
    customer_name: str
    organization_name: str
    subscription_id: str | None
    status: str = Field(description="draft, open, paid or void.")
    total_cents: int = Field(description="Sum of the line items.")
    credit_applied_cents: int = Field(description="Customer credit spent on it when it was paid.")
    amount_due_cents: int = Field(description="What is still to pay (0 unless open or draft).")
    overdue: bool = Field(description="Open and past its due date.")
    period_start: Timestamp | None
    period_end: Timestamp | None
    due_date: Timestamp | None
    created_at: Timestamp
    finalized_at: Timestamp | None
    paid_at: Timestamp | None
    voided_at: Timestamp | None


class InvoiceOut(InvoiceSummary):
    memo: str
    lines: list[InvoiceLineOut]
    charge_id: str | None = Field(description="The charge that paid it, if any.")


class InvoicePage(BaseModel):
    invoices: list[InvoiceSummary]
    total: int
    total_amount_cents: int = Field(description="Sum of the totals of every matching invoice, all pages.")
    page: int
    next_page: int | None


INVOICE_COLUMNS = ("invoices.*, customers.name AS customer_name, customers.organization_name, "
                   "COALESCE((SELECT SUM(amount_cents) FROM invoice_lines WHERE invoice_lines.invoice_id = invoices.id), 0) AS total_cents")
INVOICE_TABLES = "invoices JOIN customers ON customers.id = invoices.customer_id"


def invoice_summary(ctx: ToolContext, row: Row) -> InvoiceSummary:
    owed = row["status"] in ("draft", "open")
    overdue = row["status"] == "open" and row["due_date"] is not None and row["due_date"] < ctx.now
    return InvoiceSummary(**{**row, "id": public(ctx, "invoice", row["id"]),
                             "customer_id": public(ctx, "customer", row["customer_id"]),
                             "subscription_id": public(ctx, "subscription", row["subscription_id"]),
                             "amount_due_cents": row["total_cents"] if owed else 0, "overdue": overdue})


def read_invoice(ctx: ToolContext, key: int, text: str) -> Row:
    row = ctx.sql.one(f"SELECT {INVOICE_COLUMNS} FROM {INVOICE_TABLES} WHERE invoices.id = ?", [key], Invoice)
    if row is None:
        raise unknown("invoice", text)
    return row


def invoice_out(ctx: ToolContext, row: Row) -> InvoiceOut:
    lines = ctx.sql.all("SELECT * FROM invoice_lines WHERE invoice_id = ? ORDER BY id", [row["id"]], InvoiceLine)
    charge = ctx.sql.scalar("SELECT id FROM charges WHERE invoice_id = ? AND status = 'succeeded' ORDER BY id DESC LIMIT 1",
                            [row["id"]])
    base = invoice_summary(ctx, row)
    return InvoiceOut(**base.model_dump(), memo=row["memo"], lines=[InvoiceLineOut(**line) for line in lines],
                      charge_id=public(ctx, "charge", charge))


# ---------------------------------------------------------------- payouts and reports


class PayoutOut(BaseModel):
    id: str = Field(description="The payout id (po_...).")
    amount_cents: int
    status: str = Field(description="paid, in_transit, pending or failed.")
    method: str
    bank_name: str
    bank_last4: str
    description: str
    failure_code: str | None
    created_at: Timestamp
    arrival_date: Timestamp


class PayoutPage(BaseModel):
    payouts: list[PayoutOut]
    total: int
    total_amount_cents: int = Field(description="Sum of the amounts of every matching payout, all pages.")
    page: int
    next_page: int | None


def payout_out(ctx: ToolContext, row: Row) -> PayoutOut:
    return PayoutOut(**{**row, "id": public(ctx, "payout", row["id"])})


class BalanceReport(BaseModel):
    start: Timestamp
    end: Timestamp
    charges_succeeded: int
    charges_failed: int
    gross_cents: int = Field(description="Sum of succeeded charges.")
    shop_gross_cents: int = Field(description="Part of gross_cents from shop orders.")
    invoice_gross_cents: int = Field(description="Part of gross_cents from invoices (subscriptions and services).")
    fees_cents: int
    refunds_count: int
    refunded_cents: int
    disputes_opened: int
    disputes_lost_cents: int = Field(description="Amounts of disputes closed as lost in the period.")
    net_cents: int = Field(description="gross - fees - refunds - lost disputes.")
    payouts_count: int = Field(description="Payouts created in the period (failed ones aside).")
    payouts_cents: int

