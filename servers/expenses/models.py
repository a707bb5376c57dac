"""The expenses schema: employees (from HR), expense categories with their limits, expense
reports with their items, the report's history (submitted, approved, rejected, ...) and
reimbursements.

Linking rules with the shared world, HR and the airline:
- `employees` are HR's employees (`employees.id` is HR's id, `person_id` the world person id,
  name, email and job title the world's); `manager_id` is the HR manager, who approves the
  employee's reports; `is_you` marks the signed-in employee (a manager with direct reports);
- an airfare item of a travel report carries the airline reservation it paid for in
  `flight_pnr` (the flights server's `reservations.pnr`, a reservation of the employee as lead
  passenger); its amount is what the reservation charged, in cents.

Money is integer cents. An item is spent in `currency`; `amount_cents` is in that currency and
`usd_cents` its value in US dollars at the item's exchange rate; limits, totals and
reimbursements are in USD.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

ReportStatus = Literal["draft", "submitted", "approved", "rejected", "reimbursed"]
LimitBasis = Literal["per_item", "per_day", "per_night"]
"""How a category's limit applies: to an item, to each day an item covers, to each night."""

RECEIPT_THRESHOLD_CENTS = 7_500
"""Items above 75.00 USD need a receipt before their report is submitted."""
MAX_ITEM_AGE_DAYS = 90
"""Expenses older than this (from their date) can no longer be claimed."""
MAX_ITEMS_PER_REPORT = 50
MAX_TITLE_CHARS = 120
MAX_MERCHANT_CHARS = 120


class Base(DeclarativeBase):
    """Declarative base of the expenses schema."""


class Employee(Base):
    __tablename__ = "employees"

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[str] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(120), index=True)
    email: Mapped[str] = mapped_column(String(160), unique=True)
    job_title: Mapped[str] = mapped_column(String(120))
    department: Mapped[str] = mapped_column(String(80))
    manager_id: Mapped[int | None] = mapped_column(ForeignKey("employees.id"), index=True)
    approver_id: Mapped[int | None] = mapped_column(ForeignKey("employees.id"), index=True)
    """Who approves their reports: the manager; for the CEO, the head of Finance."""
    status: Mapped[str] = mapped_column(String(16))
    cost_center: Mapped[str] = mapped_column(String(16))
    is_you: Mapped[bool] = mapped_column(default=False)


class Category(Base):
    """An expense category and its policy limit (in USD cents, per item, day or night)."""

    __tablename__ = "categories"

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(32), unique=True)
    name: Mapped[str] = mapped_column(String(60), unique=True)
    limit_cents: Mapped[int | None]
    limit_basis: Mapped[str] = mapped_column(String(16))
    gl_account: Mapped[str] = mapped_column(String(8))
    description: Mapped[str] = mapped_column(String(200))


class Report(Base):
    __tablename__ = "reports"
    __table_args__ = (Index("ix_reports_employee_status", "employee_id", "status"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[str] = mapped_column(String(12), unique=True)
    title: Mapped[str] = mapped_column(String(MAX_TITLE_CHARS))
    business_purpose: Mapped[str] = mapped_column(Text)
    employee_id: Mapped[int] = mapped_column(ForeignKey("employees.id"))
    status: Mapped[str] = mapped_column(String(16), index=True)
    is_travel: Mapped[bool] = mapped_column(default=False)
    destination: Mapped[str | None] = mapped_column(String(80))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    submitted_at: Mapped[datetime | None] = mapped_column(index=True)
    approver_id: Mapped[int | None] = mapped_column(ForeignKey("employees.id"), index=True)
    """Who approved or rejected it (its submitter's manager)."""
    decided_at: Mapped[datetime | None]
    rejection_reason: Mapped[str | None] = mapped_column(Text)


class Item(Base):
    """One expense of a report."""

    __tablename__ = "items"
    __table_args__ = (Index("ix_items_report_date", "report_id", "expense_date"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    report_id: Mapped[int] = mapped_column(ForeignKey("reports.id"))
    category_id: Mapped[int] = mapped_column(ForeignKey("categories.id"), index=True)
    expense_date: Mapped[date] = mapped_column(index=True)
    merchant: Mapped[str] = mapped_column(String(MAX_MERCHANT_CHARS), index=True)
    description: Mapped[str] = mapped_column(Text)
    currency: Mapped[str] = mapped_column(String(3))
    amount_cents: Mapped[int]
    usd_cents: Mapped[int]
    quantity: Mapped[int] = mapped_column(default=1)
    """Days (meals) or nights (lodging) the item covers; 1 for other categories."""
    receipt_attached: Mapped[bool] = mapped_column(default=False)
    receipt_file: Mapped[str | None] = mapped_column(String(160))
    justification: Mapped[str | None] = mapped_column(Text)
    flight_pnr: Mapped[str | None] = mapped_column(String(6), index=True)
    created_at: Mapped[datetime]


class ReportEvent(Base):
    """A step in a report's life: created, submitted, approved, rejected, reopened, reimbursed."""

    __tablename__ = "report_events"

    id: Mapped[int] = mapped_column(primary_key=True)
    report_id: Mapped[int] = mapped_column(ForeignKey("reports.id"), index=True)
    actor_id: Mapped[int] = mapped_column(ForeignKey("employees.id"))
    action: Mapped[str] = mapped_column(String(16))
    comment: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime]


class Reimbursement(Base):
    """The payment of an approved report to its submitter."""

    __tablename__ = "reimbursements"

    id: Mapped[int] = mapped_column(primary_key=True)
    report_id: Mapped[int] = mapped_column(ForeignKey("reports.id"), unique=True)
    employee_id: Mapped[int] = mapped_column(ForeignKey("employees.id"), index=True)
    amount_cents: Mapped[int]
    method: Mapped[str] = mapped_column(String(16))
    reference: Mapped[str] = mapped_column(String(40), unique=True)
    paid_on: Mapped[date] = mapped_column(index=True)
    recorded_by_id: Mapped[int] = mapped_column(ForeignKey("employees.id"))
    created_at: Mapped[datetime]
