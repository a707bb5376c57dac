"""The HR tools: find employees and reporting lines, read pay, balances, time off, reviews and
onboarding, and act as the Head of People (employee 1) within the company's HR policy."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated, Literal

from pydantic import Field

from mcpgym.servers.hr.days import working_days
from mcpgym.servers.hr.models import (
    ACTING_EMPLOYEE_ID,
    CURRENCY,
    HR_ROLES,
    CompensationStatement,
    Employee,
    OnboardingTask,
    PerformanceReview,
    SalaryChange,
    TimeOffPolicy,
    TimeOffRequest,
)
from mcpgym.servers.hr.queries import (
    EMPLOYEE_HINT,
    EMPLOYEE_COLUMNS,
    EMPLOYEE_FROM,
    REQUEST_COLUMNS,
    REQUEST_FROM,
    REVIEW_COLUMNS,
    REVIEW_FROM,
    balances,
    current_salary,
    employee,
    employees_where,
    is_hr,
    request,
    review,
    subordinates,
    task,
)
from mcpgym.servers.hr.results import (
    AbsenceList,
    Balance,
    BalanceSheet,
    Checklist,
    Compensation,
    DepartmentList,
    DepartmentOut,
    EmployeeOut,
    EmployeePage,
    EmployeeSummary,
    HeadcountGroup,
    HeadcountReport,
    JobLevelList,
    JobLevelOut,
    ManagerChange,
    PolicyList,
    PolicyOut,
    ReportingLine,
    ReviewOut,
    ReviewPage,
    SalaryChangeOut,
    SalaryLine,
    StatementOut,
    TaskOut,
    Termination,
    TimeOffPage,
    TimeOffRequestOut,
)
from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import Body, Page, PerPage
from mcpgym.servers.kernel.lookup import missing
from mcpgym.servers.kernel.query import search_words
from mcpgym.servers.kernel.sql import Row, contains_pattern
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry

tools = ToolRegistry()

ME = ACTING_EMPLOYEE_ID
"""The employee on whose behalf every tool acts: the Head of People, an HR admin."""
MAX_ABSENCE_SPAN_DAYS = 92
"""who_is_out covers at most this many days at once."""

EmployeeId = Annotated[int, Field(description="The employee's id (search_employees or get_employee_by_email finds it).")]
RequestId = Annotated[int, Field(description="The time-off request's id (search_time_off_requests finds it).")]
PolicyCode = Literal["vacation", "sick", "personal", "parental"]
Status = Literal["active", "on_leave", "terminated"]
RequestStatus = Literal["pending", "approved", "denied", "cancelled"]
RaiseReason = Literal["merit", "promotion", "market_adjustment", "equity_adjustment"]


def _summary(row: Row) -> EmployeeSummary:
    return EmployeeSummary(**row)


def _today(ctx: ToolContext) -> date:
    return ctx.now.date()


def _known(ctx: ToolContext, **ids: int | None) -> None:
    """`NotFoundError` for a filter naming an employee or department that does not exist."""
    for name, value in ids.items():
        if value is None:
            continue
        if name == "department_id":
            if ctx.sql.scalar("SELECT 1 FROM departments WHERE id = ?", [value]) is None:
                raise missing("department", value, "Use list_departments to see the departments and their ids.")
        elif ctx.sql.scalar("SELECT 1 FROM employees WHERE id = ?", [value]) is None:
            raise missing(name.removesuffix("_id"), value, EMPLOYEE_HINT)


def _closed(row: Row, action: str) -> None:
    if row["status"] == "terminated":
        raise ForbiddenError(
            f"cannot {action}: {row['name']} was terminated on {row['termination_date']} and terminated "
            "employees' records are closed (no time off, salary, manager or review changes)")


# ---------------------------------------------------------------- people


@tools.tool(examples=[{"employee_id": 1}, {"employee_id": 10}])
def get_employee(ctx: ToolContext, employee_id: EmployeeId) -> EmployeeOut:
    """Get an employee's profile: job title, department, manager, level, status, hire date,
    location and HR role. Employee 1 is you. Salary is not here: see get_compensation."""
    return EmployeeOut(**employee(ctx, employee_id))


@tools.tool(title="Get an employee by email", examples=[{"email": "ann.olson@northwindsystems.com"}])
def get_employee_by_email(
    ctx: ToolContext,
    email: Annotated[str, Field(min_length=3, description="The employee's exact work email (case-insensitive).")],
) -> EmployeeOut:
    """Find an employee by work email: name, organisation, department, manager and status."""
    row = ctx.sql.one(f"SELECT {EMPLOYEE_COLUMNS} {EMPLOYEE_FROM} WHERE lower(employees.email) = ?",
                      [email.strip().lower()], Employee)
    if row is None:
        raise NotFoundError(f"no employee with email {email!r}. Use search_employees to find people by name.")
    return EmployeeOut(**row)


@tools.tool(examples=[{"query": "miller"}, {"department_id": 3, "status": "active", "sort_by": "hire_date"},
                      {"manager_id": 1}, {"hired_after": "2025-08-01"}])
def search_employees(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Words that must all appear in the name, email or job title.")] = None,
    department_id: Annotated[int | None, Field(description="Only this department (list_departments gives ids).")] = None,
    manager_id: Annotated[int | None, Field(description="Only the direct reports of this employee.")] = None,
    status: Annotated[Status | None, Field(description="Only employees with this status.")] = None,
    level_code: Annotated[str | None, Field(max_length=8, description="Only this job level, e.g. IC3 or M2.")] = None,
    hired_after: Annotated[date | None, Field(description="Only those hired on or after this date.")] = None,
    hired_before: Annotated[date | None, Field(description="Only those hired strictly before this date.")] = None,
    sort_by: Annotated[Literal["name", "hire_date"], Field(description="Order by name, or by hire date (earliest first).")] = "name",
    page: Page = 1,
    per_page: PerPage = 25,
) -> EmployeePage:
    """Search the employee directory by name, department, manager, status, level or hire date.
    Terminated employees are included unless `status` says otherwise."""
    _known(ctx, department_id=department_id, manager_id=manager_id)
    clauses, params = ["1 = 1"], []
    for word in search_words(query):
        clauses.append("(lower(employees.name) LIKE ? ESCAPE '/' OR lower(employees.email) LIKE ? ESCAPE '/' "
                       "OR lower(employees.job_title) LIKE ? ESCAPE '/')")
        params += [contains_pattern(word)] * 3
    for condition, value in (("employees.department_id = ?", department_id), ("employees.manager_id = ?", manager_id),
                             ("employees.status = ?", status), ("upper(employees.level_code) = upper(?)", level_code),
                             ("employees.hire_date >= ?", hired_after), ("employees.hire_date < ?", hired_before)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    order = "employees.name, employees.id" if sort_by == "name" else "employees.hire_date, employees.id"
    found = ctx.sql.page(EMPLOYEE_COLUMNS, f"{EMPLOYEE_FROM} WHERE {' AND '.join(clauses)} ORDER BY {order}",
                         params, page, per_page, Employee)
    return EmployeePage(employees=[_summary(r) for r in found.rows], total=found.total, page=page,
                        next_page=found.next_page)


@tools.tool(examples=[{"employee_id": 1}, {"employee_id": 4}])
def get_reporting_line(ctx: ToolContext, employee_id: EmployeeId) -> ReportingLine:
    """An employee's place in the org chart: the chain of managers up to the CEO, their direct
    reports, and how many people are below them in all."""
    row = employee(ctx, employee_id)
    chain: list[EmployeeSummary] = []
    boss = row["manager_id"]
    while boss is not None and len(chain) < 50:
        manager = employee(ctx, boss)
        chain.append(_summary(manager))
        boss = manager["manager_id"]
    reports = employees_where(ctx, "employees.manager_id = ? AND employees.status != 'terminated'", [employee_id])
    below = subordinates(ctx, employee_id)
    size = ctx.sql.scalar("SELECT count(*) FROM employees WHERE id IN (SELECT value FROM json_each(?)) "
                          "AND status != 'terminated'", [below])
    return ReportingLine(employee=_summary(row), managers=chain, direct_reports=[_summary(r) for r in reports],
                         organization_size=size)


@tools.tool(examples=[{}])
def list_departments(ctx: ToolContext) -> DepartmentList:
    """Every department with its head, cost center and headcount (active and on leave)."""
    rows = ctx.sql.all(
        "SELECT departments.*, heads.name AS head_name, heads.email AS head_email, "
        "(SELECT count(*) FROM employees WHERE department_id = departments.id AND status != 'terminated') AS headcount, "
        "(SELECT count(*) FROM employees WHERE department_id = departments.id AND status = 'on_leave') AS on_leave "
        "FROM departments JOIN employees AS heads ON heads.id = departments.head_id ORDER BY departments.id")
    return DepartmentList(departments=[DepartmentOut(**r) for r in rows])


@tools.tool(examples=[{}])
def list_job_levels(ctx: ToolContext) -> JobLevelList:
    """The job levels (IC1-IC5, M1-M3, E1) with their annual pay bands and headcount; a salary
    change must stay within the band of the employee's level."""
    rows = ctx.sql.all(
        "SELECT job_levels.*, (SELECT count(*) FROM employees WHERE level_code = job_levels.code "
        "AND status != 'terminated') AS headcount FROM job_levels ORDER BY job_levels.min_salary_cents, job_levels.code")
    return JobLevelList(levels=[JobLevelOut(**r) for r in rows], currency=CURRENCY)


@tools.tool(examples=[{"group_by": "department"}, {"group_by": "level"}, {"group_by": "location"}])
def headcount_report(
    ctx: ToolContext,
    group_by: Annotated[Literal["department", "level", "location", "employment_type"],
                        Field(description="What to group employees by.")] = "department",
) -> HeadcountReport:
    """Headcount by department, level, location or employment type: active, on leave and
    terminated employees, recent hires, average tenure and the annual base payroll (HR only)."""
    key = {"department": "departments.name", "level": "employees.level_code", "location": "employees.location",
           "employment_type": "employees.employment_type"}[group_by]
    today = _today(ctx)
    rows = ctx.sql.all(
        f"SELECT {key} AS key, employees.id, employees.status, employees.hire_date, "
        "coalesce((SELECT salary_cents FROM salary_changes WHERE salary_changes.employee_id = employees.id "
        "AND salary_changes.effective_date <= ? ORDER BY salary_changes.effective_date DESC, salary_changes.id DESC "
        "LIMIT 1), 0) AS salary_cents FROM employees "
        "JOIN departments ON departments.id = employees.department_id ORDER BY key, employees.id", [today], Employee)
    groups: dict[str, dict[str, float]] = {}
    payroll = 0
    for row in rows:
        group = groups.setdefault(row["key"], {"headcount": 0, "active": 0, "on_leave": 0, "terminated": 0,
                                               "hired_last_90_days": 0, "tenure": 0.0, "annual_payroll_cents": 0})
        group[row["status"]] += 1
        if row["status"] == "terminated":
            continue
        salary = row["salary_cents"]
        group["headcount"] += 1
        group["tenure"] += (today - row["hire_date"]).days / 365.25
        group["annual_payroll_cents"] += salary
        group["hired_last_90_days"] += (today - row["hire_date"]).days <= 90
        payroll += salary
    out = [HeadcountGroup(key=k, headcount=int(g["headcount"]), active=int(g["active"]), on_leave=int(g["on_leave"]),
                          terminated=int(g["terminated"]), hired_last_90_days=int(g["hired_last_90_days"]),
                          average_tenure_years=round(g["tenure"] / g["headcount"], 1) if g["headcount"] else 0.0,
                          annual_payroll_cents=int(g["annual_payroll_cents"]))
           for k, g in sorted(groups.items())]
    return HeadcountReport(group_by=group_by, groups=out, total_headcount=sum(g.headcount for g in out),
                           total_annual_payroll_cents=payroll, currency=CURRENCY)


# ---------------------------------------------------------------- pay


def _salary_line(row: Row, today: date) -> SalaryLine:
    return SalaryLine(**row, scheduled=row["effective_date"] > today)


@tools.tool(examples=[{"employee_id": 4}, {"employee_id": 1}])
def get_compensation(ctx: ToolContext, employee_id: EmployeeId) -> Compensation:
    """An employee's annual base salary today, their level's pay band and the full salary
    history. Salary data is visible to HR staff and to the employee themself only."""
    row = employee(ctx, employee_id)
    if employee_id != ME and not is_hr(ctx, ME):
        raise ForbiddenError("salary data is visible only to HR staff and to the employee themself")
    today = _today(ctx)
    band = ctx.sql.one("SELECT * FROM job_levels WHERE code = ?", [row["level_code"]])
    assert band is not None
    history = ctx.sql.all(
        "SELECT salary_changes.*, changers.name AS changed_by_name FROM salary_changes "
        "LEFT JOIN employees AS changers ON changers.id = salary_changes.changed_by_id "
        "WHERE salary_changes.employee_id = ? ORDER BY salary_changes.effective_date DESC, salary_changes.id DESC",
        [employee_id], SalaryChange)
    salary = current_salary(ctx, employee_id, today)["salary_cents"]
    middle = (band["min_salary_cents"] + band["max_salary_cents"]) / 2
    return Compensation(employee_id=employee_id, employee_name=row["name"], level_code=row["level_code"],
                        salary_cents=salary, currency=CURRENCY, band_min_cents=band["min_salary_cents"],
                        band_max_cents=band["max_salary_cents"], compa_ratio=round(salary / middle, 2),
                        history=[_salary_line(h, today) for h in history])


@tools.tool(writes=True, destructive=False, idempotent=True, title="Change a salary",
            examples=[{"employee_id": 4, "salary_cents": 12_000_000, "reason": "merit", "note": "Strong first review"}])
def change_salary(
    ctx: ToolContext,
    employee_id: EmployeeId,
    salary_cents: Annotated[int, Field(gt=0, le=10**11, description="The new annual base salary in cents (USD).")],
    reason: Annotated[RaiseReason, Field(description="Why the salary changes.")],
    effective_date: Annotated[date | None, Field(description="When it takes effect; today or later, default today.")] = None,
    note: Annotated[Body, Field(description="A note for the compensation history.")] = "",
) -> SalaryChangeOut:
    """Set an employee's annual base salary from a date (a raise, promotion or adjustment).
    The salary must lie within the pay band of their level (list_job_levels); nobody changes
    their own salary, and terminated employees' pay is closed."""
    row = employee(ctx, employee_id)
    today = _today(ctx)
    when = effective_date or today
    if employee_id == ME:
        raise ForbiddenError("nobody changes their own salary: your pay is changed by your manager with another HR admin")
    _closed(row, "change the salary")
    band = ctx.sql.one("SELECT * FROM job_levels WHERE code = ?", [row["level_code"]])
    assert band is not None
    if not band["min_salary_cents"] <= salary_cents <= band["max_salary_cents"]:
        raise ForbiddenError(
            f"a salary must lie within the pay band of the employee's level: {row['level_code']} pays "
            f"{band['min_salary_cents']} to {band['max_salary_cents']} cents a year, and {salary_cents} is outside it")
    if when < today:
        raise InvalidArgumentError(f"effective_date {when} is in the past; salary changes take effect today ({today}) or later")
    if when > today + timedelta(days=366):
        raise InvalidArgumentError(f"effective_date {when} is more than a year ahead")
    previous = current_salary(ctx, employee_id, when)
    if previous["salary_cents"] == salary_cents:
        raise InvalidArgumentError(f"{row['name']}'s salary on {when} is already {salary_cents} cents")
    if ctx.sql.scalar("SELECT 1 FROM salary_changes WHERE employee_id = ? AND effective_date = ?", [employee_id, when]):
        raise InvalidArgumentError(f"{row['name']} already has a salary change effective {when}")
    new = {"employee_id": employee_id, "salary_cents": salary_cents, "currency": CURRENCY, "effective_date": when,
           "reason": reason, "note": note, "changed_by_id": ME, "created_at": ctx.now}
    new_id = ctx.sql.insert_row(SalaryChange, new)
    me = employee(ctx, ME)
    line = SalaryLine(id=new_id, **new, changed_by_name=me["name"], scheduled=when > today)
    increase = round(100 * (salary_cents - previous["salary_cents"]) / previous["salary_cents"], 1)
    return SalaryChangeOut(employee_id=employee_id, employee_name=row["name"], change=line,
                           previous_salary_cents=previous["salary_cents"], increase_percent=increase)


@tools.tool(writes=True, destructive=False, idempotent=False, title="Share a compensation statement",
            examples=[{"employee_id": 4, "recipient_email": "jessica.kline@northwindsystems.com"}])
def share_compensation_statement(
    ctx: ToolContext,
    employee_id: EmployeeId,
    recipient_email: Annotated[str, Field(min_length=3, description="Who receives it: the employee or HR staff.")],
    note: Annotated[Body, Field(description="A covering note.")] = "",
) -> StatementOut:
    """Send an employee's compensation statement (today's base salary) to a recipient, and log
    it. Salary data goes only to the employee themself or to HR staff (admins and partners)."""
    row = employee(ctx, employee_id)
    recipient = ctx.sql.one("SELECT id, name, email, hr_role, status FROM employees WHERE lower(email) = ?",
                            [recipient_email.strip().lower()])
    allowed = recipient is not None and (recipient["id"] == employee_id or (
        recipient["hr_role"] in HR_ROLES and recipient["status"] != "terminated"))
    if not allowed:
        who = "someone outside Northwind Systems" if recipient is None else f"{recipient['name']}, who is not HR staff"
        raise ForbiddenError(
            f"salary data is disclosed only to HR staff and to the employee themself; {recipient_email} is {who}")
    assert recipient is not None
    salary = current_salary(ctx, employee_id, _today(ctx))["salary_cents"]
    new = {"employee_id": employee_id, "recipient_email": recipient["email"], "salary_cents": salary,
           "currency": CURRENCY, "shared_by_id": ME, "shared_at": ctx.now, "note": note}
    new_id = ctx.sql.insert_row(CompensationStatement, new)
    return StatementOut(id=new_id, employee_name=row["name"], recipient_name=recipient["name"], **new)


# ---------------------------------------------------------------- time off


@tools.tool(examples=[{}])
def list_time_off_policies(ctx: ToolContext) -> PolicyList:
    """The time-off policies (vacation, sick, personal, parental): yearly days and carry-over."""
    rows = ctx.sql.all("SELECT * FROM time_off_policies ORDER BY id", [], TimeOffPolicy)
    return PolicyList(policies=[PolicyOut(**r) for r in rows])


def _balances(ctx: ToolContext, employee_id: int, year: int) -> list[Balance]:
    return [Balance(**r, remaining_days=r["entitled_days"] - r["used_days"] - r["pending_days"])
            for r in balances(ctx, employee_id, year)]


@tools.tool(title="Get time-off balances", examples=[{"employee_id": 1}, {"employee_id": 9, "year": 2024}])
def get_time_off_balance(
    ctx: ToolContext,
    employee_id: EmployeeId,
    year: Annotated[int | None, Field(ge=2000, le=2100, description="The calendar year; default this year.")] = None,
) -> BalanceSheet:
    """An employee's time-off balances for a year, per policy: entitled (carry-over included),
    used, pending and remaining days. A request may not take more than what remains."""
    row = employee(ctx, employee_id)
    year = year or _today(ctx).year
    return BalanceSheet(employee_id=employee_id, employee_name=row["name"], year=year,
                        balances=_balances(ctx, employee_id, year))


@tools.tool(title="Search time-off requests", examples=[
    {"manager_id": 1, "status": "pending"}, {"employee_id": 9}, {"policy": "sick", "start_from": "2025-01-01",
                                                                  "start_to": "2025-04-01", "per_page": 50}])
def search_time_off_requests(
    ctx: ToolContext,
    employee_id: Annotated[int | None, Field(description="Only this employee's requests.")] = None,
    manager_id: Annotated[int | None, Field(description="Only requests of this manager's direct reports (1: yours to decide).")] = None,
    department_id: Annotated[int | None, Field(description="Only requests of this department's employees.")] = None,
    status: Annotated[RequestStatus | None, Field(description="Only requests with this status.")] = None,
    policy: Annotated[PolicyCode | None, Field(description="Only this kind of time off.")] = None,
    start_from: Annotated[date | None, Field(description="Only requests starting on or after this date.")] = None,
    start_to: Annotated[date | None, Field(description="Only requests starting strictly before this date.")] = None,
    sort_order: Annotated[Literal["asc", "desc"], Field(description="By start date: earliest (asc) or latest (desc) first.")] = "desc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> TimeOffPage:
    """Find time-off requests by employee, manager, department, status, policy or start date."""
    _known(ctx, employee_id=employee_id, manager_id=manager_id, department_id=department_id)
    clauses, params = ["1 = 1"], []
    for condition, value in (("time_off_requests.employee_id = ?", employee_id), ("employees.manager_id = ?", manager_id),
                             ("employees.department_id = ?", department_id), ("time_off_requests.status = ?", status),
                             ("time_off_policies.code = ?", policy), ("time_off_requests.start_date >= ?", start_from),
                             ("time_off_requests.start_date < ?", start_to)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    direction = "DESC" if sort_order == "desc" else "ASC"
    found = ctx.sql.page(REQUEST_COLUMNS, f"{REQUEST_FROM} WHERE {' AND '.join(clauses)} ORDER BY "
                         f"time_off_requests.start_date {direction}, time_off_requests.id {direction}",
                         params, page, per_page, TimeOffRequest)
    return TimeOffPage(requests=[TimeOffRequestOut(**r) for r in found.rows], total=found.total, page=page,
                       next_page=found.next_page)


@tools.tool(title="Get a time-off request", examples=[{"request_id": 1}])
def get_time_off_request(ctx: ToolContext, request_id: RequestId) -> TimeOffRequestOut:
    """Get one time-off request: dates, working days, status, approver and decision."""
    return TimeOffRequestOut(**request(ctx, request_id))


@tools.tool(title="Who is out", examples=[{"start_date": "2025-11-17", "end_date": "2025-11-21"},
                                          {"start_date": "2025-12-22", "end_date": "2026-01-02", "department_id": 4}])
def who_is_out(
    ctx: ToolContext,
    start_date: Annotated[date, Field(description="First day of the period.")],
    end_date: Annotated[date | None, Field(description="Last day of the period (included); default start_date.")] = None,
    department_id: Annotated[int | None, Field(description="Only this department.")] = None,
    include_pending: Annotated[bool, Field(description="Also list requests still awaiting approval.")] = False,
) -> AbsenceList:
    """Who is off during a period: approved (and optionally pending) time off overlapping the
    dates, at most 92 days at once."""
    _known(ctx, department_id=department_id)
    end = end_date or start_date
    if end < start_date:
        raise InvalidArgumentError(f"end_date {end} is before start_date {start_date}")
    if (end - start_date).days >= MAX_ABSENCE_SPAN_DAYS:
        raise InvalidArgumentError(f"who_is_out covers at most {MAX_ABSENCE_SPAN_DAYS} days; ask for a shorter period")
    statuses = ["approved", "pending"] if include_pending else ["approved"]
    clauses = ["time_off_requests.start_date <= ?", "time_off_requests.end_date >= ?",
               "time_off_requests.status IN (SELECT value FROM json_each(?))"]
    params: list[object] = [end, start_date, statuses]
    if department_id is not None:
        clauses.append("employees.department_id = ?")
        params.append(department_id)
    rows = ctx.sql.all(f"SELECT {REQUEST_COLUMNS} {REQUEST_FROM} WHERE {' AND '.join(clauses)} "
                       "ORDER BY time_off_requests.start_date, employees.name, time_off_requests.id", params, TimeOffRequest)
    return AbsenceList(start_date=start_date, end_date=end, absences=[TimeOffRequestOut(**r) for r in rows],
                       people_out=len({r["employee_id"] for r in rows}))


@tools.tool(writes=True, destructive=False, idempotent=True, title="Request time off", examples=[
    {"employee_id": 1, "policy": "vacation", "start_date": "2025-12-01", "end_date": "2025-12-02", "note": "Family visit"}])
def request_time_off(
    ctx: ToolContext,
    employee_id: EmployeeId,
    policy: Annotated[PolicyCode, Field(description="The kind of time off.")],
    start_date: Annotated[date, Field(description="First day off (today or later).")],
    end_date: Annotated[date, Field(description="Last day off, included, in the same calendar year.")],
    note: Annotated[str, Field(max_length=500, description="A note for the approver.")] = "",
) -> TimeOffRequestOut:
    """File a time-off request for an employee (yourself or anyone, as HR). It waits for the
    employee's manager to approve it (the CEO's is approved at once). The working days may not
    exceed the remaining balance, overlap their other pending or approved time off, or start in
    the past."""
    row = employee(ctx, employee_id)
    if end_date < start_date:
        raise InvalidArgumentError(f"end_date {end_date} is before start_date {start_date}")
    if end_date.year != start_date.year:
        raise InvalidArgumentError("a request stays within one calendar year: file one request per year")
    days = working_days(start_date, end_date)
    if days == 0:
        raise InvalidArgumentError(f"{start_date} to {end_date} has no working days (Monday to Friday)")
    _closed(row, "request time off")
    today = _today(ctx)
    if start_date < today:
        raise ForbiddenError(f"time off is requested ahead: a request starts today ({today}) or later, not {start_date}")
    clash = ctx.sql.one(
        "SELECT id, start_date, end_date, status FROM time_off_requests WHERE employee_id = ? "
        "AND status IN ('pending', 'approved') AND start_date <= ? AND end_date >= ? ORDER BY start_date, id",
        [employee_id, end_date, start_date], TimeOffRequest)
    if clash is not None:
        raise ForbiddenError(
            f"requests may not overlap: {row['name']} already has {clash['status']} time off from "
            f"{clash['start_date']} to {clash['end_date']} (request {clash['id']})")
    balance = next(b for b in _balances(ctx, employee_id, start_date.year) if b.policy == policy)
    if days > balance.remaining_days:
        raise ForbiddenError(
            f"leave beyond the remaining balance is refused: {row['name']} has {balance.remaining_days} "
            f"{policy} day(s) left in {start_date.year} and the request takes {days}")
    policy_id = ctx.sql.scalar("SELECT id FROM time_off_policies WHERE code = ?", [policy])
    auto = row["manager_id"] is None
    new_id = ctx.sql.insert_row(TimeOffRequest, {
        "employee_id": employee_id, "policy_id": policy_id, "start_date": start_date, "end_date": end_date,
        "days": days, "status": "approved" if auto else "pending", "note": note, "requested_at": ctx.now,
        "decided_by_id": None, "decided_at": ctx.now if auto else None,
        "decision_comment": "Approved automatically: the CEO has no approver" if auto else ""})
    return TimeOffRequestOut(**request(ctx, new_id))


def _decide(ctx: ToolContext, request_id: int, status: str, comment: str) -> TimeOffRequestOut:
    row = request(ctx, request_id)
    if row["employee_id"] == ME:
        raise ForbiddenError(
            f"only the employee's manager approves or denies a time-off request, never the employee themself: "
            f"request {request_id} is yours and {row['approver_name']} decides it")
    if row["approver_id"] != ME:
        raise ForbiddenError(
            f"only the employee's manager approves or denies a time-off request: {row['employee_name']} reports to "
            f"{row['approver_name'] or 'nobody'}, not to you")
    if row["status"] != "pending":
        raise ForbiddenError(f"only pending requests are approved or denied; request {request_id} is {row['status']}")
    ctx.sql.update_row(TimeOffRequest, row, {**row, "status": status, "decided_by_id": ME, "decided_at": ctx.now,
                                              "decision_comment": comment})
    return TimeOffRequestOut(**request(ctx, request_id))


@tools.tool(writes=True, destructive=True, idempotent=True, title="Approve a time-off request",
            examples=[{"request_id": 307, "comment": "Enjoy!"}])
def approve_time_off_request(
    ctx: ToolContext,
    request_id: RequestId,
    comment: Annotated[str, Field(max_length=500, description="A note to the employee.")] = "",
) -> TimeOffRequestOut:
    """Approve a pending time-off request of one of your direct reports. Only the employee's
    manager decides; your own requests go to your manager."""
    return _decide(ctx, request_id, "approved", comment)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Deny a time-off request",
            examples=[{"request_id": 306, "reason": "Two of the team are already out that week"}])
def deny_time_off_request(
    ctx: ToolContext,
    request_id: RequestId,
    reason: Annotated[str, Field(min_length=1, max_length=500, description="Why, for the employee.")],
) -> TimeOffRequestOut:
    """Deny a pending time-off request of one of your direct reports, with the reason."""
    return _decide(ctx, request_id, "denied", reason)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Cancel a time-off request",
            examples=[{"request_id": 307, "reason": "Plans changed"}])
def cancel_time_off_request(
    ctx: ToolContext,
    request_id: RequestId,
    reason: Annotated[str, Field(max_length=500, description="Why it is cancelled.")] = "",
) -> TimeOffRequestOut:
    """Cancel a time-off request that is pending, or approved and not yet started; the days go
    back to the balance. Time off that has started or ended cannot be cancelled."""
    row = request(ctx, request_id)
    today = _today(ctx)
    if row["status"] == "pending" or (row["status"] == "approved" and row["start_date"] > today):
        ctx.sql.update_row(TimeOffRequest, row, {**row, "status": "cancelled", "decision_comment": reason})
        return TimeOffRequestOut(**request(ctx, request_id))
    why = f"is {row['status']}" if row["status"] != "approved" else f"started on {row['start_date']}"
    raise ForbiddenError(
        f"a request is cancelled only while pending, or approved and not yet started; request {request_id} {why}")


# ---------------------------------------------------------------- reviews and onboarding


@tools.tool(examples=[{"reviewer_id": 1, "status": "draft"}, {"employee_id": 4}, {"cycle": "2025 Mid-year", "rating": 5}])
def list_performance_reviews(
    ctx: ToolContext,
    employee_id: Annotated[int | None, Field(description="Only reviews of this employee.")] = None,
    reviewer_id: Annotated[int | None, Field(description="Only reviews written by this reviewer (1: yours).")] = None,
    cycle: Annotated[str | None, Field(max_length=40, description="Only this cycle, e.g. '2025 Annual' or '2025 Mid-year'.")] = None,
    status: Annotated[Literal["draft", "submitted", "acknowledged"] | None, Field(description="Only this status.")] = None,
    rating: Annotated[int | None, Field(ge=1, le=5, description="Only this rating.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> ReviewPage:
    """Performance reviews by employee, reviewer, cycle, status or rating, latest cycle first."""
    _known(ctx, employee_id=employee_id, reviewer_id=reviewer_id)
    clauses, params = ["1 = 1"], []
    for condition, value in (("performance_reviews.employee_id = ?", employee_id),
                             ("performance_reviews.reviewer_id = ?", reviewer_id),
                             ("lower(performance_reviews.cycle) = lower(?)", cycle),
                             ("performance_reviews.status = ?", status), ("performance_reviews.rating = ?", rating)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    found = ctx.sql.page(REVIEW_COLUMNS, f"{REVIEW_FROM} WHERE {' AND '.join(clauses)} ORDER BY "
                         "performance_reviews.due_date DESC, employees.name, performance_reviews.id",
                         params, page, per_page, PerformanceReview)
    return ReviewPage(reviews=[ReviewOut(**r) for r in found.rows], total=found.total, page=page,
                      next_page=found.next_page)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Submit a performance review",
            examples=[{"review_id": 76, "rating": 4, "summary": "Exceeded expectations on the benefits rollout."}])
def submit_performance_review(
    ctx: ToolContext,
    review_id: Annotated[int, Field(description="The draft review's id (list_performance_reviews finds it).")],
    rating: Annotated[int, Field(ge=1, le=5, description="1 did not meet, 3 met, 5 outstanding.")],
    summary: Annotated[Body, Field(min_length=10, description="The written assessment.")],
) -> ReviewOut:
    """Submit a draft performance review you are the reviewer of, with a rating and summary.
    Submitted reviews are final."""
    row = review(ctx, review_id)
    if row["reviewer_id"] != ME:
        raise ForbiddenError(
            f"only the reviewer (the employee's manager) submits a performance review: review {review_id} of "
            f"{row['employee_name']} is {row['reviewer_name']}'s")
    if row["status"] != "draft":
        raise ForbiddenError(f"submitted reviews are final: review {review_id} is already {row['status']}")
    _closed(employee(ctx, row["employee_id"]), "submit the review")
    ctx.sql.update_row(PerformanceReview, row, {**row, "status": "submitted", "rating": rating, "summary": summary,
                                                 "submitted_at": ctx.now})
    return ReviewOut(**review(ctx, review_id))


def _task_out(row: Row, today: date) -> TaskOut:
    return TaskOut(**row, overdue=row["status"] == "open" and row["due_date"] < today)


@tools.tool(examples=[{"employee_id": 13}, {"employee_id": 20}])
def get_onboarding_checklist(ctx: ToolContext, employee_id: EmployeeId) -> Checklist:
    """A recent hire's onboarding checklist: each task, who it is assigned to, when it is due
    and whether it is done or overdue."""
    row = employee(ctx, employee_id)
    today = _today(ctx)
    rows = ctx.sql.all(
        "SELECT onboarding_tasks.*, assignees.name AS assignee_name FROM onboarding_tasks "
        "JOIN employees AS assignees ON assignees.id = onboarding_tasks.assignee_id "
        "WHERE onboarding_tasks.employee_id = ? ORDER BY onboarding_tasks.due_date, onboarding_tasks.id",
        [employee_id], OnboardingTask)
    tasks = [_task_out(r, today) for r in rows]
    return Checklist(employee_id=employee_id, employee_name=row["name"], hire_date=row["hire_date"], tasks=tasks,
                     done_count=sum(t.status == "done" for t in tasks), open_count=sum(t.status == "open" for t in tasks),
                     overdue_count=sum(t.overdue for t in tasks))


@tools.tool(writes=True, destructive=True, idempotent=True, title="Complete an onboarding task", examples=[{"task_id": 12}])
def complete_onboarding_task(
    ctx: ToolContext,
    task_id: Annotated[int, Field(description="The task's id (get_onboarding_checklist lists them).")],
) -> TaskOut:
    """Mark an onboarding task assigned to you as done (done already: nothing changes)."""
    row = task(ctx, task_id)
    if row["assignee_id"] != ME:
        raise ForbiddenError(
            f"onboarding tasks are ticked off only by their assignee: task {task_id} ({row['title']}) is "
            f"assigned to {row['assignee_name']}")
    if row["status"] != "done":
        ctx.sql.update_row(OnboardingTask, row, {**row, "status": "done", "completed_at": ctx.now})
        row = task(ctx, task_id)
    return _task_out(row, _today(ctx))


# ---------------------------------------------------------------- reporting lines and exits


@tools.tool(writes=True, destructive=True, idempotent=True, title="Change an employee's manager",
            examples=[{"employee_id": 11, "manager_id": 29}])
def change_manager(
    ctx: ToolContext,
    employee_id: EmployeeId,
    manager_id: Annotated[int, Field(description="The new manager's employee id.")],
) -> ManagerChange:
    """Move an employee to report to another manager. Their draft reviews and pending time off
    go to the new manager. The manager must be an active employee outside the employee's own
    organization (reporting lines never loop)."""
    row = employee(ctx, employee_id)
    manager = employee(ctx, manager_id, "manager")
    _closed(row, "change the manager")
    if manager["status"] == "terminated":
        raise ForbiddenError(f"a manager must be a current employee: {manager['name']} was terminated")
    if manager_id == employee_id or manager_id in subordinates(ctx, employee_id):
        raise ForbiddenError(
            f"reporting lines may not loop: {manager['name']} is {row['name']} or reports to them")
    previous_id, previous_name = row["manager_id"], row["manager_name"]
    moved = 0
    if previous_id != manager_id:
        ctx.sql.execute("UPDATE employees SET manager_id = ? WHERE id = ?", [manager_id, employee_id])
        moved = ctx.sql.execute("UPDATE performance_reviews SET reviewer_id = ? WHERE employee_id = ? AND status = 'draft'",
                                [manager_id, employee_id])
    return ManagerChange(employee=_summary(employee(ctx, employee_id)), previous_manager_id=previous_id,
                         previous_manager_name=previous_name, changed=previous_id != manager_id, reviews_moved=moved)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Terminate an employee",
            examples=[{"employee_id": 32, "reason": "Resigned: moving abroad"}])
def terminate_employee(
    ctx: ToolContext,
    employee_id: EmployeeId,
    reason: Annotated[str, Field(min_length=3, description="Why employment ends (resignation, layoff, ...).")],
    termination_date: Annotated[date | None, Field(description="Last day of employment, today or earlier; default today.")] = None,
) -> Termination:
    """End an employee's employment: status terminated, and their pending and future approved
    time off cancelled. Reassign their direct reports first (change_manager)."""
    row = employee(ctx, employee_id)
    today = _today(ctx)
    when = termination_date or today
    if employee_id == ME:
        raise ForbiddenError("you cannot terminate yourself: another HR admin processes your exit")
    _closed(row, "terminate again")
    if row["direct_report_count"]:
        raise ForbiddenError(
            f"an employee with direct reports is not terminated: reassign {row['name']}'s "
            f"{row['direct_report_count']} direct report(s) first with change_manager")
    heads = ctx.sql.column("SELECT name FROM departments WHERE head_id = ? ORDER BY id", [employee_id])
    if heads:
        raise ForbiddenError(f"an employee who heads a department is not terminated: {row['name']} heads {heads[0]}")
    if when > today:
        raise InvalidArgumentError(f"termination_date {when} is in the future; record the exit on the day")
    if when < row["hire_date"]:
        raise InvalidArgumentError(f"termination_date {when} is before the hire date {row['hire_date']}")
    cancelled = ctx.sql.execute(
        "UPDATE time_off_requests SET status = 'cancelled', decision_comment = 'Employment ended' "
        "WHERE employee_id = ? AND (status = 'pending' OR (status = 'approved' AND start_date > ?))",
        [employee_id, when])
    ctx.sql.execute("UPDATE employees SET status = 'terminated', termination_date = ?, termination_reason = ? WHERE id = ?",
                    [when, reason, employee_id])
    return Termination(employee=_summary(employee(ctx, employee_id)), termination_date=when, reason=reason,
                       requests_cancelled=cancelled)
