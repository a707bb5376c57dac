"""The expense tools: look up employees, categories, reports, items and reimbursements; file
reports as the signed-in employee; approve or reject your team's reports; record the
reimbursement of approved reports; all within the expense policy."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from mcpgym.servers.expenses import data
from mcpgym.servers.expenses import examples as ex
from mcpgym.servers.expenses.models import (
    MAX_ITEM_AGE_DAYS,
    MAX_ITEMS_PER_REPORT,
    MAX_MERCHANT_CHARS,
    MAX_TITLE_CHARS,
    RECEIPT_THRESHOLD_CENTS,
    Category,
    Employee,
    Item,
    Reimbursement,
    Report,
    ReportEvent,
    ReportStatus,
)
from mcpgym.servers.expenses.views import (
    EMPLOYEE_HINT,
    REPORT_HINT,
    EMPLOYEE_COLUMNS,
    EMPLOYEE_FROM,
    ITEM_COLUMNS,
    ITEM_FROM,
    ITEM_LIMIT,
    REIMBURSEMENT_COLUMNS,
    REIMBURSEMENT_FROM,
    REPORT_COLUMNS,
    REPORT_FROM,
    TOTAL,
    CategoryList,
    CategoryOut,
    EmployeeOut,
    EmployeePage,
    ItemOut,
    ItemPage,
    ReimbursementOut,
    ReimbursementPage,
    ReportDetail,
    ReportPage,
    Violation,
    age_problem,
    detail,
    employee,
    employee_out,
    item_out,
    item_row,
    item_rows,
    me,
    report_by_number,
    report_row,
    stamp,
    summaries,
    today,
    violations,
)
from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import Body, Page, PerPage
from mcpgym.servers.kernel.lookup import missing
from mcpgym.servers.kernel.query import search_words
from mcpgym.servers.kernel.sql import Row, contains_pattern
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry

tools = ToolRegistry()

CategoryCode = Literal["meals", "lodging", "airfare", "ground_transport", "car_rental", "client_entertainment",
                       "software", "office_supplies", "conference", "phone_internet", "other"]
Currency = Literal["USD", "EUR", "GBP", "CAD"]
ReportId = Annotated[int, Field(description="The report's id (search_reports or get_report_by_number finds it).")]
ItemId = Annotated[int, Field(description="The item's id (get_report lists a report's items).")]
EmployeeId = Annotated[int, Field(description="The employee's id (list_employees or get_employee_by_email finds it).")]
Cents = Annotated[int, Field(ge=1, le=100_000_000, description="The amount paid, in cents of the item's currency (e.g. 4250 for 42.50).")]
DateFrom = Annotated[date | None, Field(description="Only on or after this date (YYYY-MM-DD).")]
DateTo = Annotated[date | None, Field(description="Only on or before this date (YYYY-MM-DD).")]
SortOrder = Annotated[Literal["asc", "desc"], Field(description="Sort direction.")]

CATEGORY_CODES = {code: i for i, (code, *_rest) in enumerate(data.CATEGORIES, start=1)}


def _direction(order: str) -> str:
    return "DESC" if order == "desc" else "ASC"


def _check_range(start: date | None, end: date | None, names: str) -> None:
    if start is not None and end is not None and start > end:
        raise InvalidArgumentError(f"{names}: the first date must not be after the second")


def _known(ctx: ToolContext, employee_id: int | None = None, report_id: int | None = None) -> None:
    """`NotFoundError` for a filter naming an employee or report that does not exist."""
    if employee_id is not None and ctx.sql.scalar("SELECT 1 FROM employees WHERE id = ?", [employee_id]) is None:
        raise missing("employee", employee_id, EMPLOYEE_HINT)
    if report_id is not None and ctx.sql.scalar("SELECT 1 FROM reports WHERE id = ?", [report_id]) is None:
        raise missing("report", report_id, REPORT_HINT)


def _event(ctx: ToolContext, report_id: int, actor: int, action: str, comment: str = "") -> None:
    ctx.sql.insert_row(ReportEvent, {"report_id": report_id, "actor_id": actor, "action": action, "comment": comment,
                                     "created_at": stamp(ctx)})


def _own_draft(ctx: ToolContext, report: Row, you: Row, doing: str) -> None:
    """Rule 1: only the owner edits a report, and only while it is a draft."""
    if report["employee_id"] != you["id"]:
        raise ForbiddenError(f"cannot {doing}: report {report['number']} belongs to {report['employee_name']}; "
                             "only a report's owner edits it (rule: owner edits drafts only)")
    if report["status"] != "draft":
        hint = " Reopen it first (reopen_report)." if report["status"] == "rejected" else ""
        raise ForbiddenError(f"cannot {doing}: report {report['number']} is {report['status']}; only draft reports "
                             f"can be changed (rule: owner edits drafts only).{hint}")


def _check_date(ctx: ToolContext, expense_date: date) -> None:
    """Rule 5: no future expenses, none older than the claim window."""
    problem = age_problem(expense_date, today(ctx))
    if problem is not None:
        raise ForbiddenError(f"{problem[1]}; expenses dated in the future or more than {MAX_ITEM_AGE_DAYS} days ago "
                             "cannot be claimed (rule: claim window)")


def _touch(ctx: ToolContext, report: Row) -> None:
    ctx.sql.execute("UPDATE reports SET updated_at = ? WHERE id = ?", [stamp(ctx), report["id"]])


# ---------------------------------------------------------------- people and categories


class MyProfile(EmployeeOut):
    direct_reports: list[EmployeeOut] = Field(description="The people whose reports you approve.")
    my_reports_by_status: dict[str, int] = Field(description="How many of your own reports are in each status.")
    awaiting_my_approval: int = Field(description="Submitted reports waiting for you to approve or reject them.")


@tools.tool(examples=[{}], title="Get my profile")
def get_my_profile(ctx: ToolContext) -> MyProfile:
    """Who you are (the signed-in employee): department, manager (who approves your reports),
    your direct reports (whose reports you approve), your reports by status and how many
    reports wait for your approval. Start here when a request says "my"."""
    you = me(ctx)
    people = ctx.sql.all(f"SELECT {EMPLOYEE_COLUMNS} {EMPLOYEE_FROM} WHERE employees.id = ? OR employees.manager_id = ? "
                         "ORDER BY employees.name, employees.id", [you["id"], you["id"]], Employee)
    counts = ctx.sql.all("SELECT status, count(*) AS n FROM reports WHERE employee_id = ? GROUP BY status ORDER BY status",
                         [you["id"]])
    waiting = ctx.sql.scalar("SELECT count(*) FROM reports JOIN employees ON employees.id = reports.employee_id "
                             "WHERE reports.status = 'submitted' AND employees.approver_id = ?", [you["id"]])
    mine = next(p for p in people if p["id"] == you["id"])
    return MyProfile(**employee_out(mine).model_dump(),
                     direct_reports=[employee_out(p) for p in people if p["id"] != you["id"]],
                     my_reports_by_status={row["status"]: row["n"] for row in counts}, awaiting_my_approval=waiting)


@tools.tool(examples=[{"employee_id": ex.COLLEAGUE}], title="Get employee")
def get_employee(ctx: ToolContext, employee_id: EmployeeId) -> EmployeeOut:
    """An employee by id: job title, department, cost center, manager and who approves their reports."""
    return employee(ctx, employee_id)


@tools.tool(examples=[{"email": ex.ME_EMAIL}], title="Get employee by email")
def get_employee_by_email(
    ctx: ToolContext,
    email: Annotated[str, Field(min_length=3, description="The employee's work email address (case-insensitive).")],
) -> EmployeeOut:
    """Find an employee by work email: name, organisation, department, manager and approver."""
    row = ctx.sql.one(f"SELECT {EMPLOYEE_COLUMNS} {EMPLOYEE_FROM} WHERE lower(employees.email) = ?",
                      [email.strip().lower()], Employee)
    if row is None:
        raise NotFoundError(f"no Northwind employee with email {email[:80]}. Use list_employees to search by name.")
    return employee_out(row)


@tools.tool(examples=[{"query": ex.ME_EMAIL.split(".")[1].split("@")[0]}, {"department": "Sales", "per_page": 5}], title="List employees")
def list_employees(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Words that must appear in the name, email or job title.")] = None,
    department: Annotated[str | None, Field(description="Only this department (exact name, e.g. Sales).")] = None,
    manager_id: Annotated[int | None, Field(description="Only the direct reports of this employee.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> EmployeePage:
    """Search Northwind's employees by name, email or title, department or manager; by name."""
    _known(ctx, employee_id=manager_id)
    clauses, params = ["1 = 1"], []
    for word in search_words(query):
        clauses.append("(lower(employees.name) LIKE ? ESCAPE '/' OR lower(employees.email) LIKE ? ESCAPE '/' "
                       "OR lower(employees.job_title) LIKE ? ESCAPE '/')")
        params += [contains_pattern(word)] * 3
    if department is not None:
        clauses.append("lower(employees.department) = ?")
        params.append(department.strip().lower())
    if manager_id is not None:
        clauses.append("employees.manager_id = ?")
        params.append(manager_id)
    found = ctx.sql.page(EMPLOYEE_COLUMNS, f"{EMPLOYEE_FROM} WHERE {' AND '.join(clauses)} "
                         "ORDER BY employees.name, employees.id", params, page, per_page, Employee)
    return EmployeePage(employees=[employee_out(r) for r in found.rows], total=found.total, page=page,
                        next_page=found.next_page)


@tools.tool(examples=[{}], title="List expense categories")
def list_categories(ctx: ToolContext) -> CategoryList:
    """The expense categories with their policy limits (USD cents per item, per day or per
    night), the receipt threshold and how old an expense may be. Use it before adding items."""
    rows = ctx.sql.all("SELECT * FROM categories ORDER BY id", (), Category)
    return CategoryList(categories=[CategoryOut(**r) for r in rows], receipt_threshold_cents=RECEIPT_THRESHOLD_CENTS,
                        max_item_age_days=MAX_ITEM_AGE_DAYS)


# ---------------------------------------------------------------- reports


@tools.tool(examples=[{"status": ["submitted"], "sort_by": "submitted_at"},
                      {"query": "trip", "employee_id": ex.COLLEAGUE, "per_page": 5},
                      {"created_after": "2025-06-01", "created_before": "2025-06-30", "min_total_cents": 50000}],
            title="Search reports")
def search_reports(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Words that must appear in the title, purpose or destination.")] = None,
    employee_id: Annotated[int | None, Field(description="Only this employee's reports.")] = None,
    status: Annotated[list[ReportStatus] | None, Field(description="Only reports in these statuses.")] = None,
    is_travel: Annotated[bool | None, Field(description="True: only travel reports; false: only others.")] = None,
    created_after: DateFrom = None,
    created_before: DateTo = None,
    submitted_after: Annotated[date | None, Field(description="Only reports submitted on or after this date.")] = None,
    submitted_before: Annotated[date | None, Field(description="Only reports submitted on or before this date.")] = None,
    min_total_cents: Annotated[int | None, Field(ge=0, description="Only reports totalling at least this many USD cents.")] = None,
    sort_by: Annotated[Literal["created_at", "submitted_at", "total_cents"], Field(description="Sort key.")] = "created_at",
    sort_order: SortOrder = "desc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> ReportPage:
    """Search every employee's expense reports by words, employee, status, travel, dates and
    total; newest first by default. Totals are in USD cents."""
    _check_range(created_after, created_before, "created_after/created_before")
    _check_range(submitted_after, submitted_before, "submitted_after/submitted_before")
    _known(ctx, employee_id=employee_id)
    clauses, params = ["1 = 1"], []
    for word in search_words(query):
        clauses.append("(lower(reports.title) LIKE ? ESCAPE '/' OR lower(reports.business_purpose) LIKE ? ESCAPE '/' "
                       "OR lower(coalesce(reports.destination, '')) LIKE ? ESCAPE '/')")
        params += [contains_pattern(word)] * 3
    for condition, value in (("reports.employee_id = ?", employee_id), ("reports.is_travel = ?", is_travel),
                             ("date(reports.created_at) >= ?", created_after),
                             ("date(reports.created_at) <= ?", created_before),
                             ("date(reports.submitted_at) >= ?", submitted_after),
                             ("date(reports.submitted_at) <= ?", submitted_before),
                             (f"{TOTAL} >= ?", min_total_cents)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    if status:
        clauses.append("reports.status IN (SELECT value FROM json_each(?))")
        params.append(status)
    key = {"created_at": "reports.created_at", "submitted_at": "reports.submitted_at", "total_cents": TOTAL}[sort_by]
    direction = _direction(sort_order)
    where = " AND ".join(clauses)
    found = ctx.sql.page(f"{REPORT_COLUMNS}, sum({TOTAL}) OVER () AS all_cents",
                         f"{REPORT_FROM} WHERE {where} ORDER BY {key} IS NULL, {key} {direction}, reports.id {direction}",
                         params, page, per_page, Report)
    total_cents = found.rows[0]["all_cents"] if found.rows else _sum_reports(ctx, where, params)
    return ReportPage(reports=summaries(found.rows), total=found.total, total_cents=total_cents, page=page,
                      next_page=found.next_page)


def _sum_reports(ctx: ToolContext, where: str, params: list[Any]) -> int:
    return int(ctx.sql.scalar(f"SELECT coalesce(sum({TOTAL}), 0) {REPORT_FROM} WHERE {where}", params))


@tools.tool(examples=[{"report_id": ex.OVER_LIMIT_DRAFT}], title="Get report")
def get_report(ctx: ToolContext, report_id: ReportId) -> ReportDetail:
    """A report with its items, history (submitted, approved, rejected, ...), reimbursement and
    the policy problems that would stop it from being submitted now."""
    return detail(ctx, report_row(ctx, report_id))


@tools.tool(examples=[{"number": ex.TRIP_NUMBER}], title="Get report by number")
def get_report_by_number(
    ctx: ToolContext,
    number: Annotated[str, Field(min_length=1, max_length=20, description="The report number, e.g. ER-10042.")],
) -> ReportDetail:
    """A report by its number (ER-10042), with the same detail as get_report."""
    return detail(ctx, report_by_number(ctx, number))


@tools.tool(examples=[{}], title="List pending approvals")
def list_pending_approvals(
    ctx: ToolContext,
    sort_order: Annotated[Literal["asc", "desc"], Field(description="Oldest submission first (asc) or newest first.")] = "asc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> ReportPage:
    """The submitted reports waiting for you to approve or reject them (your direct reports'),
    oldest submission first by default."""
    you = me(ctx)
    direction = _direction(sort_order)
    where = "reports.status = 'submitted' AND submitter.approver_id = ?"
    found = ctx.sql.page(f"{REPORT_COLUMNS}, sum({TOTAL}) OVER () AS all_cents",
                         f"{REPORT_FROM} WHERE {where} ORDER BY reports.submitted_at {direction}, reports.id {direction}",
                         [you["id"]], page, per_page, Report)
    total_cents = found.rows[0]["all_cents"] if found.rows else _sum_reports(ctx, where, [you["id"]])
    return ReportPage(reports=summaries(found.rows), total=found.total, total_cents=total_cents, page=page,
                      next_page=found.next_page)


class PolicyCheck(BaseModel):
    report_id: int
    number: str
    status: str
    total_cents: int
    can_submit: bool = Field(description="Whether submit_report would accept it now (a draft of yours with no violations).")
    violations: list[Violation]


@tools.tool(examples=[{"report_id": ex.OVER_LIMIT_DRAFT}], title="Check report against policy")
def check_report(ctx: ToolContext, report_id: ReportId) -> PolicyCheck:
    """Check a report against the submission rules without changing it: items over their limit
    without a justification, items above 75.00 USD without a receipt, expenses too old or in
    the future, an empty report; and whether you could submit it now."""
    you = me(ctx)
    report = report_row(ctx, report_id)
    found = violations(item_rows(ctx, report_id), today(ctx))
    ready = not found and report["status"] == "draft" and report["employee_id"] == you["id"]
    return PolicyCheck(report_id=report_id, number=report["number"], status=report["status"],
                       total_cents=report["total_cents"], can_submit=ready, violations=found)


# ---------------------------------------------------------------- items, spending, reimbursements


@tools.tool(examples=[{"query": "hilton", "per_page": 5}, {"category": "airfare", "employee_id": ex.COLLEAGUE},
                      {"flight_pnr": ex.PNR}, {"over_limit": True, "date_from": "2025-01-01"}],
            title="Search expense items")
def search_items(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Words that must appear in the merchant or description.")] = None,
    category: Annotated[CategoryCode | None, Field(description="Only this category.")] = None,
    employee_id: Annotated[int | None, Field(description="Only items of this employee's reports.")] = None,
    report_id: Annotated[int | None, Field(description="Only items of this report.")] = None,
    date_from: DateFrom = None,
    date_to: DateTo = None,
    flight_pnr: Annotated[str | None, Field(max_length=6, description="Only the airfare of this Meridian Air reservation code.")] = None,
    missing_receipt: Annotated[bool | None, Field(description="True: only items without a receipt; false: only with one.")] = None,
    over_limit: Annotated[bool | None, Field(description="True: only items over their category limit; false: only within it.")] = None,
    status: Annotated[list[ReportStatus] | None, Field(description="Only items of reports in these statuses.")] = None,
    sort_by: Annotated[Literal["expense_date", "usd_cents"], Field(description="Sort key.")] = "expense_date",
    sort_order: SortOrder = "desc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> ItemPage:
    """Search expense items across reports by merchant or description, category, employee,
    report, expense date, airline reservation, receipt and limit; with the USD sum of all matches."""
    _check_range(date_from, date_to, "date_from/date_to")
    _known(ctx, employee_id=employee_id, report_id=report_id)
    clauses, params = ["1 = 1"], []
    for word in search_words(query):
        clauses.append("(lower(items.merchant) LIKE ? ESCAPE '/' OR lower(items.description) LIKE ? ESCAPE '/')")
        params += [contains_pattern(word)] * 2
    for condition, value in (("categories.code = ?", category), ("reports.employee_id = ?", employee_id),
                             ("items.report_id = ?", report_id), ("items.expense_date >= ?", date_from),
                             ("items.expense_date <= ?", date_to),
                             ("items.flight_pnr = ?", flight_pnr.strip().upper() if flight_pnr else None),
                             ("items.receipt_attached = ?", None if missing_receipt is None else not missing_receipt)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    if over_limit is not None:
        test = f"({ITEM_LIMIT} IS NOT NULL AND items.usd_cents > {ITEM_LIMIT})"
        clauses.append(test if over_limit else f"NOT {test}")
    if status:
        clauses.append("reports.status IN (SELECT value FROM json_each(?))")
        params.append(status)
    key = {"expense_date": "items.expense_date", "usd_cents": "items.usd_cents"}[sort_by]
    direction = _direction(sort_order)
    where = " AND ".join(clauses)
    found = ctx.sql.page(f"{ITEM_COLUMNS}, sum(items.usd_cents) OVER () AS all_cents",
                         f"{ITEM_FROM} WHERE {where} ORDER BY {key} {direction}, items.id {direction}",
                         params, page, per_page, Item)
    usd = found.rows[0]["all_cents"] if found.rows else 0
    return ItemPage(items=[item_out(r) for r in found.rows], total=found.total, usd_cents=usd, page=page,
                    next_page=found.next_page)


class SpendingGroup(BaseModel):
    key: str = Field(description="The category code, employee name, department or month (YYYY-MM).")
    usd_cents: int
    items: int
    reports: int


class SpendingSummary(BaseModel):
    group_by: str
    usd_cents: int = Field(description="Total over every group.")
    items: int
    groups: list[SpendingGroup] = Field(description="Largest spend first (months in calendar order).")


@tools.tool(examples=[{"group_by": "category", "date_from": "2025-01-01", "date_to": "2025-06-30"},
                      {"group_by": "employee", "department": "Sales"}, {"group_by": "month", "employee_id": ex.COLLEAGUE}],
            title="Spending summary")
def spending_summary(
    ctx: ToolContext,
    group_by: Annotated[Literal["category", "employee", "department", "month"], Field(description="How to group the spend.")],
    date_from: Annotated[date | None, Field(description="Only expenses dated on or after this date.")] = None,
    date_to: Annotated[date | None, Field(description="Only expenses dated on or before this date.")] = None,
    employee_id: Annotated[int | None, Field(description="Only this employee's expenses.")] = None,
    department: Annotated[str | None, Field(description="Only expenses of employees of this department.")] = None,
    category: Annotated[CategoryCode | None, Field(description="Only this category.")] = None,
    status: Annotated[list[ReportStatus] | None, Field(description="Report statuses counted; default approved and reimbursed.")] = None,
    limit: Annotated[int, Field(ge=1, le=100, description="Most groups returned.")] = 20,
) -> SpendingSummary:
    """Total spend (USD cents) by category, employee, department or expense month, over a date
    range; by default only approved and reimbursed reports count."""
    _check_range(date_from, date_to, "date_from/date_to")
    _known(ctx, employee_id=employee_id)
    clauses = ["reports.status IN (SELECT value FROM json_each(?))"]
    params: list[Any] = [status or ["approved", "reimbursed"]]
    for condition, value in (("items.expense_date >= ?", date_from), ("items.expense_date <= ?", date_to),
                             ("reports.employee_id = ?", employee_id), ("categories.code = ?", category),
                             ("lower(employees.department) = ?", department.strip().lower() if department else None)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    key = {"category": "categories.code", "employee": "employees.name", "department": "employees.department",
           "month": "substr(items.expense_date, 1, 7)"}[group_by]
    order = "key" if group_by == "month" else "usd_cents DESC, key"
    rows = ctx.sql.all(
        f"SELECT {key} AS key, sum(items.usd_cents) AS usd_cents, count(*) AS items, "
        "count(DISTINCT items.report_id) AS reports, sum(sum(items.usd_cents)) OVER () AS all_cents, "
        "sum(count(*)) OVER () AS all_items FROM items JOIN reports ON reports.id = items.report_id "
        "JOIN categories ON categories.id = items.category_id JOIN employees ON employees.id = reports.employee_id "
        f"WHERE {' AND '.join(clauses)} GROUP BY {key} ORDER BY {order}", params)
    return SpendingSummary(group_by=group_by, usd_cents=rows[0]["all_cents"] if rows else 0,
                           items=rows[0]["all_items"] if rows else 0,
                           groups=[SpendingGroup(**r) for r in rows[:limit]])


@tools.tool(examples=[{"employee_id": ex.COLLEAGUE}, {"paid_after": "2025-09-01", "method": "payroll"}], title="List reimbursements")
def list_reimbursements(
    ctx: ToolContext,
    employee_id: Annotated[int | None, Field(description="Only payments to this employee.")] = None,
    paid_after: Annotated[date | None, Field(description="Only paid on or after this date.")] = None,
    paid_before: Annotated[date | None, Field(description="Only paid on or before this date.")] = None,
    method: Annotated[Literal["ach", "payroll"] | None, Field(description="Only this payment method.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> ReimbursementPage:
    """Reimbursements paid to employees for approved reports, newest first, with their sum."""
    _check_range(paid_after, paid_before, "paid_after/paid_before")
    _known(ctx, employee_id=employee_id)
    clauses, params = ["1 = 1"], []
    for condition, value in (("reimbursements.employee_id = ?", employee_id), ("reimbursements.paid_on >= ?", paid_after),
                             ("reimbursements.paid_on <= ?", paid_before), ("reimbursements.method = ?", method)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    found = ctx.sql.page(f"{REIMBURSEMENT_COLUMNS}, sum(reimbursements.amount_cents) OVER () AS all_cents",
                         f"{REIMBURSEMENT_FROM} WHERE {' AND '.join(clauses)} "
                         "ORDER BY reimbursements.paid_on DESC, reimbursements.id DESC", params, page, per_page, Reimbursement)
    amount = found.rows[0]["all_cents"] if found.rows else 0
    return ReimbursementPage(reimbursements=[ReimbursementOut(**r) for r in found.rows], total=found.total,
                             amount_cents=amount, page=page, next_page=found.next_page)


# ---------------------------------------------------------------- your own reports

Title = Annotated[str, Field(min_length=1, max_length=MAX_TITLE_CHARS, description="A short title, e.g. 'Trip to Boston, Nov 2025'.")]
Purpose = Annotated[Body, Field(min_length=1, description="The business purpose of the expenses.")]


@tools.tool(writes=True, destructive=False, idempotent=False, examples=[{"title": "Customer visit Denver", "business_purpose": "Renewal meeting with a customer",
                                    "is_travel": True, "destination": "Denver"}], title="Create report")
def create_report(
    ctx: ToolContext,
    title: Title,
    business_purpose: Purpose,
    is_travel: Annotated[bool, Field(description="Whether it is the report of a business trip.")] = False,
    destination: Annotated[str | None, Field(max_length=80, description="For a trip: the city travelled to.")] = None,
) -> ReportDetail:
    """Start a new draft expense report of yours; then add items and submit it."""
    you = me(ctx)
    now = stamp(ctx)
    report_id = ctx.sql.insert_row(Report, {
        "number": "", "title": title.strip(), "business_purpose": business_purpose.strip(), "employee_id": you["id"],
        "status": "draft", "is_travel": is_travel, "destination": (destination or "").strip() or None,
        "created_at": now, "updated_at": now, "submitted_at": None, "approver_id": None, "decided_at": None,
        "rejection_reason": None})
    ctx.sql.execute("UPDATE reports SET number = ? WHERE id = ?", [f"ER-{10000 + report_id}", report_id])
    _event(ctx, report_id, you["id"], "created")
    return detail(ctx, report_row(ctx, report_id))


@tools.tool(writes=True, destructive=True, idempotent=True, examples=[{"report_id": ex.CLEAN_DRAFT, "title": "Team offsite supplies and lunch"}],
            title="Update report")
def update_report(
    ctx: ToolContext,
    report_id: ReportId,
    title: Annotated[str | None, Field(min_length=1, max_length=MAX_TITLE_CHARS, description="A new title.")] = None,
    business_purpose: Annotated[Body | None, Field(min_length=1, description="A new business purpose.")] = None,
    destination: Annotated[str | None, Field(max_length=80, description="A new destination city.")] = None,
) -> ReportDetail:
    """Change the title, purpose or destination of one of your draft reports."""
    you = me(ctx)
    report = report_row(ctx, report_id)
    _own_draft(ctx, report, you, "update the report")
    changes = {k: v.strip() for k, v in (("title", title), ("business_purpose", business_purpose),
                                         ("destination", destination)) if v is not None}
    if not changes:
        raise InvalidArgumentError("give at least one of title, business_purpose or destination")
    if any(not v for v in changes.values()):
        raise InvalidArgumentError("title, business_purpose and destination may not be blank")
    before = {k: report[k] for k in ("id", *changes)}
    if ctx.sql.update_row(Report, before, {**before, **changes}):
        _touch(ctx, report)
    return detail(ctx, report_row(ctx, report_id))


@tools.tool(writes=True, destructive=False, idempotent=False, examples=[{"report_id": ex.CLEAN_DRAFT, "expense_date": "2025-11-10", "merchant": "Uber",
                                    "category": "ground_transport", "amount_cents": 2350, "description": "Ride to the office"}],
            title="Add expense item")
def add_item(
    ctx: ToolContext,
    report_id: ReportId,
    expense_date: Annotated[date, Field(description="The day the expense was paid (YYYY-MM-DD).")],
    merchant: Annotated[str, Field(min_length=1, max_length=MAX_MERCHANT_CHARS, description="Who was paid, e.g. Hilton Boston.")],
    category: Annotated[CategoryCode, Field(description="The category code (list_categories).")],
    amount_cents: Cents,
    currency: Annotated[Currency, Field(description="The currency paid in; converted to USD at the company rate.")] = "USD",
    quantity: Annotated[int, Field(ge=1, le=60, description="Days (meals, car rental) or nights (lodging) covered; 1 otherwise.")] = 1,
    description: Annotated[str, Field(description="What it was for.")] = "",
    receipt_file: Annotated[str | None, Field(min_length=1, description="The receipt's file name, if you have it (e.g. hotel.pdf).")] = None,
    justification: Annotated[str | None, Field(description="Why an item over its category limit is needed.")] = None,
    flight_pnr: Annotated[str | None, Field(pattern=r"^[A-Za-z0-9]{6}$", description="For airfare: the airline reservation code (PNR).")] = None,
) -> ItemOut:
    """Add an expense to one of your draft reports. Items over their category limit need a
    justification and items above 75.00 USD a receipt before the report can be submitted;
    expenses in the future or older than 90 days are refused."""
    you = me(ctx)
    report = report_row(ctx, report_id)
    _own_draft(ctx, report, you, "add an item")
    _check_date(ctx, expense_date)
    if not merchant.strip():
        raise InvalidArgumentError("merchant may not be blank")
    if report["item_count"] >= MAX_ITEMS_PER_REPORT:
        raise ForbiddenError(f"report {report['number']} already has {MAX_ITEMS_PER_REPORT} items, the most a report "
                             "holds; start another report")
    if flight_pnr is not None and category != "airfare":
        raise InvalidArgumentError("flight_pnr is only for airfare items")
    if category not in ("meals", "lodging", "car_rental") and quantity != 1:
        raise InvalidArgumentError(f"quantity counts days or nights: it must be 1 for {category}")
    item_id = ctx.sql.insert_row(Item, {
        "report_id": report_id, "category_id": CATEGORY_CODES[category], "expense_date": expense_date,
        "merchant": merchant.strip(), "description": description.strip(), "currency": currency,
        "amount_cents": amount_cents, "usd_cents": data.to_usd_cents(amount_cents, currency), "quantity": quantity,
        "receipt_attached": receipt_file is not None, "receipt_file": receipt_file.strip() if receipt_file else None,
        "justification": (justification or "").strip() or None,
        "flight_pnr": flight_pnr.upper() if flight_pnr else None, "created_at": stamp(ctx)})
    _touch(ctx, report)
    return item_out(item_row(ctx, item_id))


def _item_of_mine(ctx: ToolContext, item_id: int, doing: str) -> Row:
    """An item of one of your draft reports (rule 1), with its report's fields."""
    you = me(ctx)
    item = item_row(ctx, item_id)
    report = report_row(ctx, item["report_id"])
    _own_draft(ctx, report, you, doing)
    return {**item, "_report": report}


@tools.tool(writes=True, destructive=True, idempotent=True, examples=[{"item_id": ex.OVER_LIMIT_ITEM, "justification": "Dinner with four partner engineers"}],
            title="Update expense item")
def update_item(
    ctx: ToolContext,
    item_id: ItemId,
    expense_date: Annotated[date | None, Field(description="A new expense date.")] = None,
    merchant: Annotated[str | None, Field(min_length=1, max_length=MAX_MERCHANT_CHARS, description="A new merchant.")] = None,
    category: Annotated[CategoryCode | None, Field(description="A new category code.")] = None,
    amount_cents: Annotated[int | None, Field(ge=1, le=100_000_000, description="A new amount, in cents of the currency.")] = None,
    currency: Annotated[Currency | None, Field(description="A new currency.")] = None,
    quantity: Annotated[int | None, Field(ge=1, le=60, description="New days or nights covered.")] = None,
    description: Annotated[str | None, Field(description="A new description.")] = None,
    justification: Annotated[str | None, Field(description="Why an item over its limit is needed; an empty text clears it.")] = None,
) -> ItemOut:
    """Correct an item of one of your draft reports, or give the justification an item over its
    category limit needs."""
    if all(v is None for v in (expense_date, merchant, category, amount_cents, currency, quantity, description,
                               justification)):
        raise InvalidArgumentError("give at least one field to change")
    if merchant is not None and not merchant.strip():
        raise InvalidArgumentError("merchant may not be blank")
    item = _item_of_mine(ctx, item_id, "update the item")
    new_category = category or item["category"]
    new_quantity = quantity if quantity is not None else item["quantity"]
    if new_category not in ("meals", "lodging", "car_rental") and new_quantity != 1:
        raise InvalidArgumentError(f"quantity counts days or nights: it must be 1 for {new_category}")
    if expense_date is not None:
        _check_date(ctx, expense_date)
    if new_category != "airfare" and item["flight_pnr"]:
        raise InvalidArgumentError("an item paying for a flight reservation stays airfare")
    before = {"id": item["id"], "expense_date": item["expense_date"], "merchant": item["merchant"],
              "category_id": CATEGORY_CODES[item["category"]], "amount_cents": item["amount_cents"],
              "currency": item["currency"], "usd_cents": item["usd_cents"], "quantity": item["quantity"],
              "description": item["description"], "justification": item["justification"]}
    after = dict(before)
    for key, value in (("expense_date", expense_date), ("merchant", merchant.strip() if merchant else None),
                       ("amount_cents", amount_cents), ("currency", currency), ("quantity", quantity),
                       ("description", description.strip() if description is not None else None)):
        if value is not None:
            after[key] = value
    if category is not None:
        after["category_id"] = CATEGORY_CODES[category]
    if justification is not None:
        after["justification"] = justification.strip() or None
    after["usd_cents"] = data.to_usd_cents(after["amount_cents"], after["currency"])
    if ctx.sql.update_row(Item, before, after):
        _touch(ctx, item["_report"])
    return item_out(item_row(ctx, item_id))


@tools.tool(writes=True, destructive=True, idempotent=True, examples=[{"item_id": ex.SMALL_ITEM, "file_name": "staples-receipt.pdf"}], title="Attach receipt")
def attach_receipt(
    ctx: ToolContext,
    item_id: ItemId,
    file_name: Annotated[str, Field(min_length=1, max_length=160, description="The receipt's file name, e.g. hotel-folio.pdf.")],
) -> ItemOut:
    """Attach a receipt (by file name) to an item of one of your draft reports; it replaces any
    receipt the item had."""
    item = _item_of_mine(ctx, item_id, "attach a receipt")
    name = file_name.strip()
    if not name:
        raise InvalidArgumentError("file_name may not be blank")
    before = {"id": item["id"], "receipt_attached": item["receipt_attached"], "receipt_file": item["receipt_file"]}
    if ctx.sql.update_row(Item, before, {**before, "receipt_attached": True, "receipt_file": name}):
        _touch(ctx, item["_report"])
    return item_out(item_row(ctx, item_id))


class RemovedItem(BaseModel):
    item_id: int
    report_id: int
    report_number: str
    items_left: int
    total_cents: int = Field(description="The report's new total in USD cents.")


@tools.tool(writes=True, destructive=True, idempotent=True, examples=[{"item_id": ex.SMALL_ITEM}], title="Remove expense item")
def remove_item(ctx: ToolContext, item_id: ItemId) -> RemovedItem:
    """Remove an item from one of your draft reports."""
    item = _item_of_mine(ctx, item_id, "remove the item")
    report = item["_report"]
    ctx.sql.execute("DELETE FROM items WHERE id = ?", [item_id])
    _touch(ctx, report)
    return RemovedItem(item_id=item_id, report_id=report["id"], report_number=report["number"],
                       items_left=report["item_count"] - 1, total_cents=report["total_cents"] - item["usd_cents"])


class DeletedReport(BaseModel):
    report_id: int
    number: str
    title: str
    items_deleted: int


@tools.tool(writes=True, destructive=True, idempotent=True, examples=[{"report_id": ex.CLEAN_DRAFT}], title="Delete report")
def delete_report(ctx: ToolContext, report_id: ReportId) -> DeletedReport:
    """Delete one of your draft reports with its items. Submitted, approved, rejected or
    reimbursed reports are kept."""
    you = me(ctx)
    report = report_row(ctx, report_id)
    _own_draft(ctx, report, you, "delete the report")
    if ctx.sql.scalar("SELECT count(*) FROM report_events WHERE report_id = ? AND action = 'submitted'", [report_id]):
        raise ForbiddenError(f"cannot delete report {report['number']}: it was submitted before and stays on record "
                             "(rule: owner edits drafts only; only never-submitted drafts are deleted)")
    ctx.sql.execute("DELETE FROM items WHERE report_id = ?", [report_id])
    ctx.sql.execute("DELETE FROM report_events WHERE report_id = ?", [report_id])
    ctx.sql.execute("DELETE FROM reports WHERE id = ?", [report_id])
    return DeletedReport(report_id=report_id, number=report["number"], title=report["title"],
                         items_deleted=report["item_count"])


@tools.tool(writes=True, destructive=True, idempotent=True, examples=[{"report_id": ex.CLEAN_DRAFT}], title="Submit report")
def submit_report(ctx: ToolContext, report_id: ReportId) -> ReportDetail:
    """Submit one of your draft reports to your manager for approval. Refused for a report that
    is not a draft (a rejected one must be reopened first) and for a report with a policy
    violation (see check_report)."""
    you = me(ctx)
    report = report_row(ctx, report_id)
    if report["employee_id"] != you["id"]:
        raise ForbiddenError(f"cannot submit report {report['number']}: it belongs to {report['employee_name']}; "
                             "only its owner submits a report (rule: submitted once, by its owner)")
    if report["status"] != "draft":
        hint = " Reopen it first (reopen_report), fix it, then submit." if report["status"] == "rejected" else ""
        raise ForbiddenError(f"cannot submit report {report['number']}: it is {report['status']}; a report is submitted "
                             f"once, from draft (rule: submitted once).{hint}")
    if you["approver_id"] is None:
        raise ForbiddenError("you have no manager to approve your reports")
    found = violations(item_rows(ctx, report_id), today(ctx))
    if found:
        first = found[0]
        rules = {"justification_required": "over-limit items need a justification",
                 "receipt_required": f"receipts above {RECEIPT_THRESHOLD_CENTS / 100:.2f} USD",
                 "expense_too_old": "claim window", "future_expense": "claim window", "empty_report": "no empty reports"}
        more = f" ({len(found) - 1} more problem(s); see check_report)" if len(found) > 1 else ""
        raise ForbiddenError(f"cannot submit report {report['number']}: {first.message} (rule: {rules[first.rule]}){more}")
    now = stamp(ctx)
    ctx.sql.update_row(Report, report, {**report, "status": "submitted", "submitted_at": now, "updated_at": now,
                                        "approver_id": None, "decided_at": None, "rejection_reason": None})
    _event(ctx, report_id, you["id"], "submitted")
    return detail(ctx, report_row(ctx, report_id))


@tools.tool(writes=True, destructive=True, idempotent=True, examples=[{"report_id": ex.MY_REJECTED}], title="Reopen rejected report")
def reopen_report(ctx: ToolContext, report_id: ReportId) -> ReportDetail:
    """Reopen one of your rejected reports as a draft, to fix it and submit it again."""
    you = me(ctx)
    report = report_row(ctx, report_id)
    if report["employee_id"] != you["id"]:
        raise ForbiddenError(f"cannot reopen report {report['number']}: it belongs to {report['employee_name']}; only "
                             "its owner reopens a rejected report (rule: reopening)")
    if report["status"] != "rejected":
        raise ForbiddenError(f"cannot reopen report {report['number']}: it is {report['status']}; only rejected reports "
                             "are reopened (rule: reopening)")
    ctx.sql.update_row(Report, report, {**report, "status": "draft", "updated_at": stamp(ctx)})
    _event(ctx, report_id, you["id"], "reopened")
    return detail(ctx, report_row(ctx, report_id))


# ---------------------------------------------------------------- approving and paying


def _decidable(ctx: ToolContext, report_id: int, doing: str) -> tuple[Row, Row]:
    """Rule 6: a submitted report of one of your direct reports."""
    you = me(ctx)
    report = report_row(ctx, report_id)
    if report["employee_id"] == you["id"]:
        raise ForbiddenError(f"cannot {doing} report {report['number']}: it is your own; your reports are approved by "
                             f"{report['due_approver_name']} (rule: approved by the submitter's manager, never by the submitter)")
    if report["due_approver_id"] != you["id"]:
        raise ForbiddenError(f"cannot {doing} report {report['number']}: {report['employee_name']}'s reports are approved "
                             f"by {report['due_approver_name']}, not by you (rule: approved by the submitter's manager)")
    if report["status"] != "submitted":
        raise ForbiddenError(f"cannot {doing} report {report['number']}: it is {report['status']}; only submitted "
                             "reports are approved or rejected (rule: approved by the submitter's manager)")
    return you, report


@tools.tool(writes=True, destructive=True, idempotent=True, examples=[{"report_id": ex.TEAM_SUBMITTED, "comment": "Thanks"}], title="Approve report")
def approve_report(
    ctx: ToolContext,
    report_id: ReportId,
    comment: Annotated[str, Field(description="An optional note to the submitter.")] = "",
) -> ReportDetail:
    """Approve a submitted report of one of your direct reports (list_pending_approvals lists
    them); it then waits to be reimbursed."""
    you, report = _decidable(ctx, report_id, "approve")
    now = stamp(ctx)
    ctx.sql.update_row(Report, report, {**report, "status": "approved", "approver_id": you["id"], "decided_at": now,
                                        "updated_at": now})
    _event(ctx, report_id, you["id"], "approved", comment.strip())
    return detail(ctx, report_row(ctx, report_id))


@tools.tool(writes=True, destructive=True, idempotent=True, examples=[{"report_id": ex.TEAM_SUBMITTED, "reason": "Please attach the hotel folio."}], title="Reject report")
def reject_report(
    ctx: ToolContext,
    report_id: ReportId,
    reason: Annotated[str, Field(min_length=1, description="Why it is rejected; the submitter reads it.")],
) -> ReportDetail:
    """Reject a submitted report of one of your direct reports with a reason; its owner can
    reopen it, fix it and submit it again."""
    you, report = _decidable(ctx, report_id, "reject")
    if not reason.strip():
        raise InvalidArgumentError("give the reason for the rejection")
    now = stamp(ctx)
    ctx.sql.update_row(Report, report, {**report, "status": "rejected", "approver_id": you["id"], "decided_at": now,
                                        "updated_at": now, "rejection_reason": reason.strip()})
    _event(ctx, report_id, you["id"], "rejected", reason.strip())
    return detail(ctx, report_row(ctx, report_id))


@tools.tool(writes=True, destructive=True, idempotent=True, examples=[{"report_id": ex.TEAM_APPROVED, "method": "ach"}], title="Record reimbursement")
def record_reimbursement(
    ctx: ToolContext,
    report_id: ReportId,
    method: Annotated[Literal["ach", "payroll"], Field(description="ach (bank transfer) or payroll (with the next salary).")] = "ach",
    paid_on: Annotated[date | None, Field(description="The payment date (YYYY-MM-DD); default today.")] = None,
    reference: Annotated[str | None, Field(min_length=1, max_length=40, description="The payment reference; default METHOD-YYYYMMDD-REPORT.")] = None,
) -> ReimbursementOut:
    """Record that an approved report was paid out to its submitter, for its total. As one of
    Northwind's expense administrators you record other people's reimbursements, never your own."""
    you = me(ctx)
    report = report_row(ctx, report_id)
    if report["employee_id"] == you["id"]:
        raise ForbiddenError(f"cannot record the reimbursement of report {report['number']}: it is your own "
                             "(rule: segregation of duties, nobody pays out their own report)")
    if report["status"] != "approved":
        raise ForbiddenError(f"cannot reimburse report {report['number']}: it is {report['status']}; only approved "
                             "reports are reimbursed, once (rule: reimbursement)")
    day = paid_on or today(ctx)
    if day > today(ctx):
        raise InvalidArgumentError(f"paid_on {day} is in the future")
    if report["decided_at"] is not None and day < report["decided_at"].date():
        raise InvalidArgumentError(f"paid_on {day} is before the approval on {report['decided_at'].date()}")
    ref = (reference or f"{method.upper()}-{day:%Y%m%d}-{report_id:05d}").strip()
    if ctx.sql.scalar("SELECT 1 FROM reimbursements WHERE reference = ?", [ref]):
        raise InvalidArgumentError(f"the reference {ref} is already used by another reimbursement")
    now = stamp(ctx)
    paid_id = ctx.sql.insert_row(Reimbursement, {
        "report_id": report_id, "employee_id": report["employee_id"], "amount_cents": report["total_cents"],
        "method": method, "reference": ref, "paid_on": day, "recorded_by_id": you["id"], "created_at": now})
    ctx.sql.update_row(Report, report, {**report, "status": "reimbursed", "updated_at": now})
    _event(ctx, report_id, you["id"], "reimbursed", ref)
    row = ctx.sql.one(f"SELECT {REIMBURSEMENT_COLUMNS} {REIMBURSEMENT_FROM} WHERE reimbursements.id = ?", [paid_id],
                      Reimbursement)
    assert row is not None
    return ReimbursementOut(**row)
