"""Result models of the expense tools and the reads that fill them: reports with their items,
history and reimbursement, and the policy check of a report."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta

from pydantic import BaseModel, Field

from mcpgym.servers.expenses.models import (
    MAX_ITEM_AGE_DAYS,
    RECEIPT_THRESHOLD_CENTS,
    Employee,
    Item,
    Reimbursement,
    Report,
    ReportEvent,
)
from mcpgym.servers.kernel.errors import NotFoundError
from mcpgym.servers.kernel.fields import Timestamp
from mcpgym.servers.kernel.lookup import missing
from mcpgym.servers.kernel.sql import Row
from mcpgym.servers.kernel.tools import ToolContext

HOME_ORGANIZATION = "Northwind Systems"
REPORT_HINT = "Use search_reports (or get_report_by_number with a number such as ER-10042) to find a report."
ITEM_HINT = "Use get_report to see a report's items, or search_items."
EMPLOYEE_HINT = "Use list_employees or get_employee_by_email to find an employee."

# ---------------------------------------------------------------- models


class EmployeeOut(BaseModel):
    id: int
    name: str
    email: str
    job_title: str
    department: str
    organization_name: str = Field(description="Always Northwind Systems: the tool holds Northwind's employees.")
    manager_id: int | None
    manager_name: str | None
    approver_id: int | None = Field(description="Who approves their reports: their manager (the head of Finance for the CEO).")
    approver_name: str | None
    status: str = Field(description="active, on_leave or terminated (from HR).")
    cost_center: str
    is_you: bool = Field(description="Whether this is you, the signed-in employee.")


class EmployeePage(BaseModel):
    employees: list[EmployeeOut]
    total: int
    page: int
    next_page: int | None


class CategoryOut(BaseModel):
    id: int
    code: str = Field(description="What add_item's `category` takes, e.g. meals.")
    name: str
    limit_cents: int | None = Field(description="The policy limit in USD cents; null when the category has none.")
    limit_basis: str = Field(description="per_item, per_day (the item's quantity is days) or per_night (nights).")
    gl_account: str
    description: str


class CategoryList(BaseModel):
    categories: list[CategoryOut]
    receipt_threshold_cents: int = Field(description="Items above this many USD cents need a receipt.")
    max_item_age_days: int = Field(description="Expenses older than this many days cannot be claimed.")


class ItemOut(BaseModel):
    id: int
    report_id: int
    report_number: str
    expense_date: date
    merchant: str
    category: str = Field(description="The category's code.")
    category_name: str
    description: str
    currency: str = Field(description="The currency the expense was paid in (USD, EUR, GBP or CAD).")
    amount_cents: int = Field(description="The amount paid, in cents of `currency`.")
    usd_cents: int = Field(description="The amount in USD cents at the company rate; limits and totals use it.")
    quantity: int = Field(description="Days (meals, car rental) or nights (lodging) covered; 1 otherwise.")
    limit_cents: int | None = Field(description="The item's limit in USD cents (category limit times quantity where it applies).")
    over_limit: bool
    receipt_attached: bool
    receipt_file: str | None
    justification: str | None
    flight_pnr: str | None = Field(description="For airfare: the Meridian Air reservation code (PNR) it paid for.")


class ItemPage(BaseModel):
    items: list[ItemOut]
    total: int
    usd_cents: int = Field(description="Sum of usd_cents over every matching item (all pages).")
    page: int
    next_page: int | None


class EventOut(BaseModel):
    action: str = Field(description="created, submitted, approved, rejected, reopened or reimbursed.")
    actor_id: int
    actor_name: str
    comment: str
    created_at: Timestamp


class ReimbursementOut(BaseModel):
    id: int
    report_id: int
    report_number: str
    employee_id: int
    employee_name: str
    amount_cents: int = Field(description="USD cents paid.")
    method: str = Field(description="ach (bank transfer) or payroll.")
    reference: str
    paid_on: date
    recorded_by_name: str


class ReimbursementPage(BaseModel):
    reimbursements: list[ReimbursementOut]
    total: int
    amount_cents: int = Field(description="Sum over every matching reimbursement (all pages).")
    page: int
    next_page: int | None


class Violation(BaseModel):
    rule: str = Field(description="justification_required, receipt_required, expense_too_old, future_expense or empty_report.")
    item_id: int | None
    message: str


class ReportSummary(BaseModel):
    id: int
    number: str = Field(description="The report number people use, e.g. ER-10042.")
    title: str
    employee_id: int
    employee_name: str
    status: str = Field(description="draft, submitted, approved, rejected or reimbursed.")
    is_travel: bool
    destination: str | None
    item_count: int
    total_cents: int = Field(description="Sum of the items in USD cents.")
    currency: str = "USD"
    created_at: Timestamp
    submitted_at: Timestamp | None
    decided_at: Timestamp | None = Field(description="When it was approved or rejected.")
    approver_id: int | None = Field(description="Who approved or rejected it; null while undecided.")
    approver_name: str | None


class ReportPage(BaseModel):
    reports: list[ReportSummary]
    total: int
    total_cents: int = Field(description="Sum of the matching reports' totals (all pages).")
    page: int
    next_page: int | None


class ReportDetail(ReportSummary):
    business_purpose: str
    rejection_reason: str | None
    due_approver_id: int | None = Field(description="Who approves it: the submitter's manager.")
    due_approver_name: str | None
    items: list[ItemOut] = Field(description="Its items, oldest expense first.")
    history: list[EventOut] = Field(description="What happened to it, oldest first.")
    reimbursement: ReimbursementOut | None
    violations: list[Violation] = Field(description="What would stop it from being submitted now.")


# ---------------------------------------------------------------- reads

EMPLOYEE_COLUMNS = (
    "employees.id, employees.name, employees.email, employees.job_title, employees.department, employees.manager_id, "
    "manager.name AS manager_name, employees.approver_id, approver.name AS approver_name, employees.status, "
    "employees.cost_center, employees.is_you"
)
EMPLOYEE_FROM = ("FROM employees LEFT JOIN employees AS manager ON manager.id = employees.manager_id "
                 "LEFT JOIN employees AS approver ON approver.id = employees.approver_id")

TOTAL = "(SELECT coalesce(sum(usd_cents), 0) FROM items WHERE items.report_id = reports.id)"
REPORT_COLUMNS = (
    "reports.id, reports.number, reports.title, reports.employee_id, submitter.name AS employee_name, reports.status, "
    "reports.is_travel, reports.destination, reports.created_at, reports.submitted_at, reports.decided_at, "
    "reports.approver_id, approver.name AS approver_name, reports.business_purpose, reports.rejection_reason, "
    "reports.updated_at, submitter.approver_id AS due_approver_id, due.name AS due_approver_name, "
    "(SELECT count(*) FROM items WHERE items.report_id = reports.id) AS item_count, "
    f"{TOTAL} AS total_cents"
)
REPORT_FROM = ("FROM reports JOIN employees AS submitter ON submitter.id = reports.employee_id "
               "LEFT JOIN employees AS approver ON approver.id = reports.approver_id "
               "LEFT JOIN employees AS due ON due.id = submitter.approver_id")

ITEM_COLUMNS = (
    "items.id, items.report_id, reports.number AS report_number, items.expense_date, items.merchant, "
    "categories.code AS category, categories.name AS category_name, items.description, items.currency, "
    "items.amount_cents, items.usd_cents, items.quantity, items.receipt_attached, items.receipt_file, "
    "items.justification, items.flight_pnr, categories.limit_cents AS category_limit, categories.limit_basis"
)
ITEM_FROM = ("FROM items JOIN reports ON reports.id = items.report_id "
             "JOIN categories ON categories.id = items.category_id")
ITEM_LIMIT = ("CASE WHEN categories.limit_cents IS NULL THEN NULL WHEN categories.limit_basis = 'per_item' "
              "THEN categories.limit_cents ELSE categories.limit_cents * items.quantity END")
"""An item's limit in USD cents, as SQL (on ITEM_FROM)."""

REIMBURSEMENT_COLUMNS = (
    "reimbursements.id, reimbursements.report_id, reports.number AS report_number, reimbursements.employee_id, "
    "payee.name AS employee_name, reimbursements.amount_cents, reimbursements.method, reimbursements.reference, "
    "reimbursements.paid_on, recorder.name AS recorded_by_name"
)
REIMBURSEMENT_FROM = ("FROM reimbursements JOIN reports ON reports.id = reimbursements.report_id "
                      "JOIN employees AS payee ON payee.id = reimbursements.employee_id "
                      "JOIN employees AS recorder ON recorder.id = reimbursements.recorded_by_id")


def me(ctx: ToolContext) -> Row:
    """The signed-in employee's row."""
    row = ctx.sql.one("SELECT * FROM employees WHERE is_you = 1 ORDER BY id LIMIT 1", (), Employee)
    assert row is not None, "the seeded world has a signed-in employee"
    return row


def employee_out(row: Row) -> EmployeeOut:
    return EmployeeOut(**row, organization_name=HOME_ORGANIZATION)


def employee(ctx: ToolContext, employee_id: int) -> EmployeeOut:
    row = ctx.sql.one(f"SELECT {EMPLOYEE_COLUMNS} {EMPLOYEE_FROM} WHERE employees.id = ?", [employee_id], Employee)
    if row is None:
        raise missing("employee", employee_id, EMPLOYEE_HINT)
    return employee_out(row)


def report_row(ctx: ToolContext, report_id: int) -> Row:
    """A report with its names and totals, or `NotFoundError`."""
    row = ctx.sql.one(f"SELECT {REPORT_COLUMNS} {REPORT_FROM} WHERE reports.id = ?", [report_id], Report)
    if row is None:
        raise missing("report", report_id, REPORT_HINT)
    return row


def report_by_number(ctx: ToolContext, number: str) -> Row:
    wanted = number.strip().upper()
    if wanted.isdigit():
        wanted = f"ER-{wanted}"
    row = ctx.sql.one(f"SELECT {REPORT_COLUMNS} {REPORT_FROM} WHERE reports.number = ?", [wanted], Report)
    if row is None:
        raise NotFoundError(f"no report numbered {wanted[:20]}. {REPORT_HINT}")
    return row


def item_rows(ctx: ToolContext, report_id: int) -> list[Row]:
    return ctx.sql.all(f"SELECT {ITEM_COLUMNS} {ITEM_FROM} WHERE items.report_id = ? "
                       "ORDER BY items.expense_date, items.id", [report_id], Item)


def item_row(ctx: ToolContext, item_id: int) -> Row:
    row = ctx.sql.one(f"SELECT {ITEM_COLUMNS}, reports.employee_id, reports.status AS report_status "
                      f"{ITEM_FROM} WHERE items.id = ?", [item_id], Item)
    if row is None:
        raise missing("item", item_id, ITEM_HINT)
    return row


def item_limit(row: Row) -> int | None:
    limit = row["category_limit"]
    if limit is None:
        return None
    return limit if row["limit_basis"] == "per_item" else limit * row["quantity"]


def item_out(row: Row) -> ItemOut:
    limit = item_limit(row)
    return ItemOut(**row, limit_cents=limit, over_limit=limit is not None and row["usd_cents"] > limit)


def summaries(rows: Sequence[Row]) -> list[ReportSummary]:
    return [ReportSummary(**row) for row in rows]


def age_problem(expense_date: date, today: date) -> tuple[str, str] | None:
    """The rule an expense date breaks, and why, or None."""
    if expense_date > today:
        return "future_expense", f"the expense date {expense_date} is in the future"
    if expense_date < today - timedelta(days=MAX_ITEM_AGE_DAYS):
        return "expense_too_old", (f"the expense of {expense_date} is more than {MAX_ITEM_AGE_DAYS} days old "
                                   f"(the oldest claimable date is {today - timedelta(days=MAX_ITEM_AGE_DAYS)})")
    return None


def violations(items: Sequence[Row], today: date) -> list[Violation]:
    """What stops a report with these items from being submitted, item by item."""
    if not items:
        return [Violation(rule="empty_report", item_id=None, message="the report has no items")]
    found = []
    for row in items:
        label = f"item {row['id']} ({row['merchant']}, {row['expense_date']})"
        limit = item_limit(row)
        if limit is not None and row["usd_cents"] > limit and not (row["justification"] or "").strip():
            found.append(Violation(rule="justification_required", item_id=row["id"], message=(
                f"{label} is {_usd(row['usd_cents'])}, over its {row['category_name']} limit of {_usd(limit)}, "
                "and has no justification")))
        if row["usd_cents"] > RECEIPT_THRESHOLD_CENTS and not row["receipt_attached"]:
            found.append(Violation(rule="receipt_required", item_id=row["id"], message=(
                f"{label} is {_usd(row['usd_cents'])}, above {_usd(RECEIPT_THRESHOLD_CENTS)}, and has no receipt")))
        problem = age_problem(row["expense_date"], today)
        if problem is not None:
            found.append(Violation(rule=problem[0], item_id=row["id"], message=f"{label}: {problem[1]}"))
    return found


def _usd(cents: int) -> str:
    return f"{cents / 100:,.2f} USD"


def detail(ctx: ToolContext, row: Row) -> ReportDetail:
    """A report's detail: its items, history, reimbursement and policy check."""
    items = item_rows(ctx, row["id"])
    history = ctx.sql.all(
        "SELECT report_events.action, report_events.actor_id, employees.name AS actor_name, report_events.comment, "
        "report_events.created_at FROM report_events JOIN employees ON employees.id = report_events.actor_id "
        "WHERE report_events.report_id = ? ORDER BY report_events.created_at, report_events.id", [row["id"]], ReportEvent)
    paid = ctx.sql.one(f"SELECT {REIMBURSEMENT_COLUMNS} {REIMBURSEMENT_FROM} WHERE reimbursements.report_id = ?",
                       [row["id"]], Reimbursement)
    return ReportDetail(
        **row, items=[item_out(i) for i in items], history=[EventOut(**e) for e in history],
        reimbursement=None if paid is None else ReimbursementOut(**paid), violations=violations(items, ctx.now.date()))


def today(ctx: ToolContext) -> date:
    return ctx.now.date()


def stamp(ctx: ToolContext) -> datetime:
    return ctx.now.replace(microsecond=0)
