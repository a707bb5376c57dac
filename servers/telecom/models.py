"""The carrier's customer-care schema: customers, billing accounts, lines with their plan and
device, daily usage, bills with line items, payments, add-ons and roaming passes, network
outages and the troubleshooting log.

Linking rules with the shared world (`mcpgym.servers.kernel.world`) and the CRM:
- `customers` are world customers: `external_id` is the person id (`per_0040`), name, email,
  phone, city and organisation name are the world's; `crm_contact_id` is the CRM contact
  (`crm.contacts.id`) of the same person, when the CRM knows them.

Billing cycles are calendar months (UTC): a cycle's bill is issued on the first day of the
next month and due on its 21st. Money is integer cents (USD).
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

STANDINGS = ("good", "past_due", "suspended")
"""good: nothing past due; past_due: a bill is unpaid after its due date; suspended: the
lines are suspended for non-payment."""
LINE_STATUSES = ("active", "suspended")
SUSPENSION_REASONS = ("lost_stolen", "customer_request", "non_payment")
BILL_STATUSES = ("open", "paid", "overdue")
"""open: issued, not yet due and not fully paid; overdue: unpaid (in part) after its due date."""
ADDON_KINDS = ("data_pack", "intl_calling", "roaming_pass")
ADDON_STATUSES = ("active", "scheduled", "expired", "removed")
SIM_STATUSES = ("active", "pin_locked", "not_detected")
NETWORK_MODES = ("5g_auto", "lte_only", "3g_only")
TICKET_CATEGORIES = ("no_data", "no_service", "slow_data", "roaming", "device", "billing", "sim")
BILL_ITEM_KINDS = ("plan", "data_pack", "intl_calling", "roaming_pass", "fee", "tax")
MAX_DATA_PACKS_PER_CYCLE = 2
DEFAULT_APN = "fast.bluewave.net"


class Base(DeclarativeBase):
    """Declarative base of the carrier schema."""


class Customer(Base):
    __tablename__ = "customers"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str] = mapped_column(String(16), unique=True)
    crm_contact_id: Mapped[int | None] = mapped_column(index=True)
    name: Mapped[str] = mapped_column(String(120), index=True)
    email: Mapped[str] = mapped_column(String(160), unique=True)
    phone: Mapped[str] = mapped_column(String(32))
    organization_name: Mapped[str] = mapped_column(String(120))
    city: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime]


class Account(Base):
    """A billing account: its lines share one bill."""

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(primary_key=True)
    account_number: Mapped[str] = mapped_column(String(16), unique=True)
    customer_id: Mapped[int] = mapped_column(ForeignKey("customers.id"), index=True)
    standing: Mapped[str] = mapped_column(String(12))
    autopay: Mapped[bool] = mapped_column(default=False)
    opened_at: Mapped[datetime]


class Plan(Base):
    __tablename__ = "plans"

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(24), unique=True)
    name: Mapped[str] = mapped_column(String(60))
    data_gb: Mapped[int | None]
    """Monthly high-speed data; null for unlimited."""
    price_cents: Mapped[int]
    roaming_zones: Mapped[str] = mapped_column(String(16))
    """Roaming zones included without a pass, e.g. '1' or '1,2'; '' for none."""
    hotspot_gb: Mapped[int]
    intl_calling: Mapped[bool] = mapped_column(default=False)
    available: Mapped[bool] = mapped_column(default=True)
    """False for a retired plan: lines keep it, nobody can switch to it."""


class Addon(Base):
    """A catalogue add-on: a one-cycle data pack, monthly international calling, or a roaming
    day pass for one zone."""

    __tablename__ = "addons"

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(24), unique=True)
    name: Mapped[str] = mapped_column(String(60))
    kind: Mapped[str] = mapped_column(String(16))
    data_mb: Mapped[int]
    price_cents: Mapped[int]
    """The price per cycle (per day for a roaming pass)."""
    zone: Mapped[int | None]


class Line(Base):
    __tablename__ = "lines"

    id: Mapped[int] = mapped_column(primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    phone_number: Mapped[str] = mapped_column(String(20), unique=True)
    label: Mapped[str] = mapped_column(String(60))
    plan_id: Mapped[int] = mapped_column(ForeignKey("plans.id"), index=True)
    pending_plan_id: Mapped[int | None] = mapped_column(ForeignKey("plans.id"))
    pending_plan_on: Mapped[date | None]
    status: Mapped[str] = mapped_column(String(12))
    suspension_reason: Mapped[str | None] = mapped_column(String(20))
    suspended_at: Mapped[datetime | None]
    roaming_enabled: Mapped[bool] = mapped_column(default=False)
    activated_at: Mapped[datetime]


class Device(Base):
    """The handset on a line and its settings, as the network and the device report them."""

    __tablename__ = "devices"

    id: Mapped[int] = mapped_column(primary_key=True)
    line_id: Mapped[int] = mapped_column(ForeignKey("lines.id"), unique=True)
    make: Mapped[str] = mapped_column(String(30))
    model: Mapped[str] = mapped_column(String(40))
    imei: Mapped[str] = mapped_column(String(15), unique=True)
    sim_type: Mapped[str] = mapped_column(String(8))
    """physical or esim."""
    sim_status: Mapped[str] = mapped_column(String(16))
    apn: Mapped[str] = mapped_column(String(60))
    mobile_data: Mapped[bool] = mapped_column(default=True)
    airplane_mode: Mapped[bool] = mapped_column(default=False)
    data_roaming: Mapped[bool] = mapped_column(default=False)
    """The handset's own data-roaming switch (the network's is `lines.roaming_enabled`)."""
    network_mode: Mapped[str] = mapped_column(String(10))
    current_country: Mapped[str] = mapped_column(String(40))
    """Where the device last registered on a network."""


class UsageDay(Base):
    __tablename__ = "usage_days"
    __table_args__ = (Index("ix_usage_line_day", "line_id", "day", unique=True),)

    id: Mapped[int] = mapped_column(primary_key=True)
    line_id: Mapped[int] = mapped_column(ForeignKey("lines.id"))
    day: Mapped[date]
    data_mb: Mapped[int]
    roaming_mb: Mapped[int]
    minutes: Mapped[int]
    texts: Mapped[int]


class Bill(Base):
    __tablename__ = "bills"
    __table_args__ = (Index("ix_bills_account_period", "account_id", "period_start"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    period_start: Mapped[date]
    period_end: Mapped[date]
    """The cycle's last day."""
    issued_on: Mapped[date]
    due_on: Mapped[date]
    total_cents: Mapped[int]
    paid_cents: Mapped[int]
    status: Mapped[str] = mapped_column(String(10))


class BillItem(Base):
    __tablename__ = "bill_items"

    id: Mapped[int] = mapped_column(primary_key=True)
    bill_id: Mapped[int] = mapped_column(ForeignKey("bills.id"), index=True)
    line_id: Mapped[int | None] = mapped_column(ForeignKey("lines.id"))
    kind: Mapped[str] = mapped_column(String(16))
    description: Mapped[str] = mapped_column(String(120))
    amount_cents: Mapped[int]


class Payment(Base):
    __tablename__ = "payments"

    id: Mapped[int] = mapped_column(primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    amount_cents: Mapped[int]
    method: Mapped[str] = mapped_column(String(12))
    """card, bank or autopay."""
    paid_at: Mapped[datetime]


class LineAddon(Base):
    """An add-on on a line: a data pack for one cycle, international calling from a date until
    removed, or a roaming pass for consecutive days."""

    __tablename__ = "line_addons"
    __table_args__ = (Index("ix_line_addons_line", "line_id", "starts_on"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    line_id: Mapped[int] = mapped_column(ForeignKey("lines.id"))
    addon_id: Mapped[int] = mapped_column(ForeignKey("addons.id"))
    status: Mapped[str] = mapped_column(String(10))
    starts_on: Mapped[date]
    ends_on: Mapped[date | None]
    """Last day covered; null for international calling until removed."""
    country: Mapped[str | None] = mapped_column(String(40))
    """For a roaming pass: the destination."""
    price_cents: Mapped[int]
    """What it costs in all (a pass: the day price times its days)."""
    purchased_at: Mapped[datetime]


class Outage(Base):
    __tablename__ = "outages"

    id: Mapped[int] = mapped_column(primary_key=True)
    area: Mapped[str] = mapped_column(String(80), index=True)
    """The city affected."""
    service: Mapped[str] = mapped_column(String(10))
    """data, voice or all."""
    description: Mapped[str] = mapped_column(String(200))
    started_at: Mapped[datetime]
    resolved_at: Mapped[datetime | None]


class Ticket(Base):
    """An entry of the troubleshooting log: a problem reported on a line and what was done."""

    __tablename__ = "tickets"

    id: Mapped[int] = mapped_column(primary_key=True)
    line_id: Mapped[int] = mapped_column(ForeignKey("lines.id"), index=True)
    category: Mapped[str] = mapped_column(String(12))
    status: Mapped[str] = mapped_column(String(10))
    """open or resolved."""
    notes: Mapped[str] = mapped_column(Text)
    opened_at: Mapped[datetime]
    resolved_at: Mapped[datetime | None]
