"""The payments schema: customers and their cards, charges with refunds and disputes, plans,
subscriptions billed by invoices with line items, and payouts to the bank.

Keys are integers in the database; tools show them as Stripe-like ids (`ch_...`, see
`ids.py`). Amounts are integer cents (`*_cents`) in USD; times are naive UTC.

Linking rules with the shared world and the shop (`retail`):
- a customer is a person of the shared world (`person_id`, same name and email); shop
  customers carry the shop's customer id (`retail_customer_id`), subscription customers are
  the billing contacts of the shared world's customer organisations, chosen among their CRM
  contacts (`crm`);
- a charge for a shop order names the order's number (`order_number`, "#1001") and equals the
  order's total; a paid order that was cancelled has a full refund.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

CURRENCY = "USD"
REFUND_WINDOW_DAYS = 180
"""A charge older than this many days cannot be refunded."""
FEE_PERCENT_BP = 290
"""Processing fee of a successful charge: 2.9% (in basis points) ..."""
FEE_FIXED_CENTS = 30
"""... plus 30 cents."""
OPEN_DISPUTE = ("needs_response", "under_review")
"""Dispute statuses that hold a charge: no refund while one is open."""
LIVE_SUBSCRIPTION = ("active", "past_due")
"""Subscription statuses that bill: a customer has at most one per plan."""


class Base(DeclarativeBase):
    """Declarative base of the payments schema."""


class Customer(Base):
    __tablename__ = "customers"

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[str] = mapped_column(String(16), index=True)
    retail_customer_id: Mapped[int | None] = mapped_column(index=True)
    """The shop's customer id (retail `customers.id`), for customers who buy in the shop."""
    name: Mapped[str] = mapped_column(String(120), index=True)
    email: Mapped[str] = mapped_column(String(160), unique=True)
    phone: Mapped[str] = mapped_column(String(40))
    organization_name: Mapped[str] = mapped_column(String(120))
    city: Mapped[str] = mapped_column(String(80))
    description: Mapped[str] = mapped_column(String(500), default="")
    credit_balance_cents: Mapped[int] = mapped_column(default=0)
    """Credit owed to the customer (from prorated cancellations); spent on the next invoice."""
    default_payment_method_id: Mapped[int | None]
    """The payment method subscriptions and invoices are charged to."""
    created_at: Mapped[datetime]


class PaymentMethod(Base):
    """A card (brand, last four digits, expiry) or a wallet (PayPal) saved for a customer."""

    __tablename__ = "payment_methods"

    id: Mapped[int] = mapped_column(primary_key=True)
    customer_id: Mapped[int] = mapped_column(ForeignKey("customers.id"), index=True)
    type: Mapped[str] = mapped_column(String(16))
    brand: Mapped[str | None] = mapped_column(String(16))
    last4: Mapped[str | None] = mapped_column(String(4))
    exp_month: Mapped[int | None]
    exp_year: Mapped[int | None]
    funding: Mapped[str | None] = mapped_column(String(8))
    wallet_email: Mapped[str | None] = mapped_column(String(160))
    created_at: Mapped[datetime]


class Charge(Base):
    __tablename__ = "charges"
    __table_args__ = (Index("ix_charges_customer_created", "customer_id", "created_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    customer_id: Mapped[int] = mapped_column(ForeignKey("customers.id"))
    payment_method_id: Mapped[int] = mapped_column(ForeignKey("payment_methods.id"))
    amount_cents: Mapped[int]
    fee_cents: Mapped[int]
    currency: Mapped[str] = mapped_column(String(3), default=CURRENCY)
    status: Mapped[str] = mapped_column(String(16), index=True)
    """succeeded or failed (a failed charge moved no money)."""
    failure_code: Mapped[str | None] = mapped_column(String(40))
    description: Mapped[str] = mapped_column(String(200))
    order_number: Mapped[str | None] = mapped_column(String(16), index=True)
    invoice_id: Mapped[int | None] = mapped_column(ForeignKey("invoices.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(index=True)


class Refund(Base):
    __tablename__ = "refunds"

    id: Mapped[int] = mapped_column(primary_key=True)
    charge_id: Mapped[int] = mapped_column(ForeignKey("charges.id"), index=True)
    amount_cents: Mapped[int]
    reason: Mapped[str] = mapped_column(String(32))
    note: Mapped[str] = mapped_column(String(500), default="")
    status: Mapped[str] = mapped_column(String(16), default="succeeded")
    created_at: Mapped[datetime] = mapped_column(index=True)


class Dispute(Base):
    """A cardholder's chargeback of a charge."""

    __tablename__ = "disputes"

    id: Mapped[int] = mapped_column(primary_key=True)
    charge_id: Mapped[int] = mapped_column(ForeignKey("charges.id"), index=True)
    amount_cents: Mapped[int]
    reason: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(16), index=True)
    """needs_response, under_review (both open), won or lost."""
    evidence: Mapped[str] = mapped_column(Text, default="")
    evidence_due_by: Mapped[datetime]
    evidence_submitted_at: Mapped[datetime | None]
    created_at: Mapped[datetime]
    closed_at: Mapped[datetime | None]


class Plan(Base):
    """A recurring price of a product (Stripe's Price), e.g. Team, monthly, per seat."""

    __tablename__ = "plans"

    id: Mapped[int] = mapped_column(primary_key=True)
    product: Mapped[str] = mapped_column(String(80))
    nickname: Mapped[str] = mapped_column(String(80), unique=True)
    interval: Mapped[str] = mapped_column(String(8))
    """month or year."""
    unit_amount_cents: Mapped[int]
    """Price per seat per interval."""
    active: Mapped[bool]
    """False for legacy plans: existing subscriptions keep them, nobody new gets them."""
    created_at: Mapped[datetime]


class Subscription(Base):
    __tablename__ = "subscriptions"

    id: Mapped[int] = mapped_column(primary_key=True)
    customer_id: Mapped[int] = mapped_column(ForeignKey("customers.id"), index=True)
    plan_id: Mapped[int] = mapped_column(ForeignKey("plans.id"), index=True)
    quantity: Mapped[int]
    status: Mapped[str] = mapped_column(String(16), index=True)
    """active, past_due (latest invoice unpaid) or canceled."""
    current_period_start: Mapped[datetime]
    current_period_end: Mapped[datetime]
    cancel_at_period_end: Mapped[bool] = mapped_column(default=False)
    canceled_at: Mapped[datetime | None]
    ended_at: Mapped[datetime | None]
    created_at: Mapped[datetime]


class Invoice(Base):
    __tablename__ = "invoices"

    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[str] = mapped_column(String(16), unique=True)
    customer_id: Mapped[int] = mapped_column(ForeignKey("customers.id"), index=True)
    subscription_id: Mapped[int | None] = mapped_column(ForeignKey("subscriptions.id"), index=True)
    status: Mapped[str] = mapped_column(String(16), index=True)
    """draft (editable), open (finalized, awaiting payment), paid or void."""
    memo: Mapped[str] = mapped_column(String(500), default="")
    credit_applied_cents: Mapped[int] = mapped_column(default=0)
    period_start: Mapped[datetime | None]
    period_end: Mapped[datetime | None]
    due_date: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(index=True)
    finalized_at: Mapped[datetime | None]
    paid_at: Mapped[datetime | None]
    voided_at: Mapped[datetime | None]


class InvoiceLine(Base):
    __tablename__ = "invoice_lines"

    id: Mapped[int] = mapped_column(primary_key=True)
    invoice_id: Mapped[int] = mapped_column(ForeignKey("invoices.id"), index=True)
    description: Mapped[str] = mapped_column(String(200))
    quantity: Mapped[int]
    unit_amount_cents: Mapped[int]
    amount_cents: Mapped[int]


class Payout(Base):
    """A transfer of the account's balance to Northwind's bank account."""

    __tablename__ = "payouts"

    id: Mapped[int] = mapped_column(primary_key=True)
    amount_cents: Mapped[int]
    status: Mapped[str] = mapped_column(String(16), index=True)
    """paid, in_transit, pending or failed."""
    method: Mapped[str] = mapped_column(String(16))
    bank_name: Mapped[str] = mapped_column(String(80))
    bank_last4: Mapped[str] = mapped_column(String(4))
    description: Mapped[str] = mapped_column(String(200))
    failure_code: Mapped[str | None] = mapped_column(String(40))
    created_at: Mapped[datetime]
    arrival_date: Mapped[datetime] = mapped_column(index=True)
