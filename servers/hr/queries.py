"""SQL shared by the HR tools: employees with their department and manager, requests with
their approver, balances and today's salary."""

from __future__ import annotations

from datetime import date

from mcpgym.servers.hr.models import (
    HR_ROLES,
    Employee,
    OnboardingTask,
    PerformanceReview,
    SalaryChange,
    TimeOffRequest,
)
from mcpgym.servers.kernel.lookup import missing
from mcpgym.servers.kernel.sql import Row
from mcpgym.servers.kernel.tools import ToolContext

EMPLOYEE_HINT = "Use search_employees to find people by name, or get_employee_by_email."
REQUEST_HINT = "Use search_time_off_requests to find requests by employee, status or dates."
REVIEW_HINT = "Use list_performance_reviews to find reviews by employee, reviewer or cycle."
TASK_HINT = "Use get_onboarding_checklist to see a recent hire's onboarding tasks."

EMPLOYEE_COLUMNS = (
    "employees.*, departments.name AS department_name, managers.name AS manager_name, "
    "managers.email AS manager_email, job_levels.name AS level_name, 'Northwind Systems' AS organization_name, "
    "(SELECT count(*) FROM employees AS reports WHERE reports.manager_id = employees.id "
    "AND reports.status != 'terminated') AS direct_report_count"
)
EMPLOYEE_FROM = (
    "FROM employees JOIN departments ON departments.id = employees.department_id "
    "JOIN job_levels ON job_levels.code = employees.level_code "
    "LEFT JOIN employees AS managers ON managers.id = employees.manager_id"
)
REQUEST_COLUMNS = (
    "time_off_requests.*, employees.name AS employee_name, departments.name AS department_name, "
    "time_off_policies.code AS policy, employees.manager_id AS approver_id, approvers.name AS approver_name, "
    "deciders.name AS decided_by_name"
)
REQUEST_FROM = (
    "FROM time_off_requests JOIN employees ON employees.id = time_off_requests.employee_id "
    "JOIN departments ON departments.id = employees.department_id "
    "JOIN time_off_policies ON time_off_policies.id = time_off_requests.policy_id "
    "LEFT JOIN employees AS approvers ON approvers.id = employees.manager_id "
    "LEFT JOIN employees AS deciders ON deciders.id = time_off_requests.decided_by_id"
)
REVIEW_COLUMNS = (
    "performance_reviews.*, employees.name AS employee_name, reviewers.name AS reviewer_name"
)
REVIEW_FROM = (
    "FROM performance_reviews JOIN employees ON employees.id = performance_reviews.employee_id "
    "JOIN employees AS reviewers ON reviewers.id = performance_reviews.reviewer_id"
)


def employee(ctx: ToolContext, employee_id: int, label: str = "employee") -> Row:
    """An employee with department, manager and level names, or `NotFoundError`."""
    row = ctx.sql.one(f"SELECT {EMPLOYEE_COLUMNS} {EMPLOYEE_FROM} WHERE employees.id = ?", [employee_id], Employee)
    if row is None:
        raise missing(label, employee_id, EMPLOYEE_HINT)
    return row


def employees_where(ctx: ToolContext, where: str, params: list[object], order: str = "employees.name, employees.id") -> list[Row]:
    return ctx.sql.all(f"SELECT {EMPLOYEE_COLUMNS} {EMPLOYEE_FROM} WHERE {where} ORDER BY {order}", params, Employee)


def request(ctx: ToolContext, request_id: int) -> Row:
    row = ctx.sql.one(f"SELECT {REQUEST_COLUMNS} {REQUEST_FROM} WHERE time_off_requests.id = ?", [request_id],
                      TimeOffRequest)
    if row is None:
        raise missing("time-off request", request_id, REQUEST_HINT)
    return row


def review(ctx: ToolContext, review_id: int) -> Row:
    row = ctx.sql.one(f"SELECT {REVIEW_COLUMNS} {REVIEW_FROM} WHERE performance_reviews.id = ?", [review_id],
                      PerformanceReview)
    if row is None:
        raise missing("performance review", review_id, REVIEW_HINT)
    return row


def task(ctx: ToolContext, task_id: int) -> Row:
    row = ctx.sql.one(
        "SELECT onboarding_tasks.*, assignees.name AS assignee_name FROM onboarding_tasks "
        "JOIN employees AS assignees ON assignees.id = onboarding_tasks.assignee_id WHERE onboarding_tasks.id = ?",
        [task_id], OnboardingTask)
    if row is None:
        raise missing("onboarding task", task_id, TASK_HINT)
    return row


def is_hr(ctx: ToolContext, employee_id: int) -> bool:
    """Whether an employee is HR staff (admin or partner) and not terminated."""
    role = ctx.sql.scalar("SELECT hr_role FROM employees WHERE id = ? AND status != 'terminated'", [employee_id])
    return role in HR_ROLES


def current_salary(ctx: ToolContext, employee_id: int, today: date) -> Row:
    """The salary line in effect today (the hire line at least)."""
    row = ctx.sql.one(
        "SELECT * FROM salary_changes WHERE employee_id = ? AND effective_date <= ? "
        "ORDER BY effective_date DESC, id DESC LIMIT 1", [employee_id, today], SalaryChange)
    if row is None:
        row = ctx.sql.one("SELECT * FROM salary_changes WHERE employee_id = ? ORDER BY effective_date, id LIMIT 1",
                          [employee_id], SalaryChange)
    assert row is not None, employee_id
    return row


def balances(ctx: ToolContext, employee_id: int, year: int) -> list[Row]:
    """Per policy: entitled, carried over, used (approved) and pending days of a year."""
    return ctx.sql.all(
        "SELECT time_off_policies.code AS policy, time_off_policies.name AS policy_name, "
        "coalesce(ent.entitled_days, 0) AS entitled_days, coalesce(ent.carried_over_days, 0) AS carried_over_days, "
        "coalesce((SELECT sum(days) FROM time_off_requests AS r WHERE r.employee_id = :employee "
        "AND r.policy_id = time_off_policies.id AND r.status = 'approved' "
        "AND substr(r.start_date, 1, 4) = :year), 0) AS used_days, "
        "coalesce((SELECT sum(days) FROM time_off_requests AS r WHERE r.employee_id = :employee "
        "AND r.policy_id = time_off_policies.id AND r.status = 'pending' "
        "AND substr(r.start_date, 1, 4) = :year), 0) AS pending_days "
        "FROM time_off_policies LEFT JOIN time_off_entitlements AS ent ON ent.policy_id = time_off_policies.id "
        "AND ent.employee_id = :employee AND ent.year = :number ORDER BY time_off_policies.id",
        {"employee": employee_id, "year": f"{year:04d}", "number": year})


def subordinates(ctx: ToolContext, employee_id: int) -> list[int]:
    """Everyone below an employee in the reporting lines, terminated or not."""
    return ctx.sql.column(
        "WITH RECURSIVE below(id) AS (SELECT id FROM employees WHERE manager_id = ? "
        "UNION SELECT employees.id FROM employees JOIN below ON employees.manager_id = below.id) "
        "SELECT id FROM below ORDER BY id", [employee_id])
