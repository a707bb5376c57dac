"""The result models of the HR tools."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, Field

from mcpgym.servers.kernel.fields import Timestamp


class EmployeeSummary(BaseModel):
    id: int
    name: str
    email: str
    job_title: str
    department_id: int
    department_name: str
    manager_id: int | None
    manager_name: str | None
    level_code: str
    status: str = Field(description="active, on_leave or terminated.")
    hire_date: date


class EmployeeOut(EmployeeSummary):
    person_id: str = Field(description="The person's id in the shared directory (per_0007).")
    organization_name: str = Field(description="The employer: Northwind Systems.")
    manager_email: str | None
    level_name: str
    hr_role: str = Field(description="admin or partner for the People team's HR staff; none otherwise.")
    employment_type: str = Field(description="full_time or part_time.")
    location: str
    timezone: str
    phone: str
    termination_date: date | None
    termination_reason: str | None
    direct_report_count: int = Field(description="Direct reports who are not terminated.")


class EmployeePage(BaseModel):
    employees: list[EmployeeSummary]
    total: int
    page: int
    next_page: int | None


class ReportingLine(BaseModel):
    employee: EmployeeSummary
    managers: list[EmployeeSummary] = Field(description="The management chain, direct manager first, up to the CEO.")
    direct_reports: list[EmployeeSummary] = Field(description="Direct reports who are not terminated, by name.")
    organization_size: int = Field(description="Everyone below the employee, direct and indirect, not terminated.")


class DepartmentOut(BaseModel):
    id: int
    name: str
    cost_center: str
    head_id: int
    head_name: str
    head_email: str
    headcount: int = Field(description="Employees who are active or on leave.")
    on_leave: int


class DepartmentList(BaseModel):
    departments: list[DepartmentOut]


class JobLevelOut(BaseModel):
    code: str
    name: str
    track: str = Field(description="individual, management or executive.")
    min_salary_cents: int = Field(description="Bottom of the annual pay band, in cents (USD).")
    max_salary_cents: int = Field(description="Top of the annual pay band, in cents (USD).")
    headcount: int = Field(description="Employees at this level who are active or on leave.")


class JobLevelList(BaseModel):
    levels: list[JobLevelOut]
    currency: str


class SalaryLine(BaseModel):
    id: int
    salary_cents: int = Field(description="Annual base salary in cents.")
    currency: str
    effective_date: date
    reason: str = Field(description="hire, merit, promotion, market_adjustment or equity_adjustment.")
    note: str
    changed_by_name: str | None
    scheduled: bool = Field(description="True for a change that takes effect after today.")


class Compensation(BaseModel):
    employee_id: int
    employee_name: str
    level_code: str
    salary_cents: int = Field(description="The annual base salary in effect today, in cents.")
    currency: str
    band_min_cents: int
    band_max_cents: int
    compa_ratio: float = Field(description="Salary over the midpoint of the band, to two decimals.")
    history: list[SalaryLine] = Field(description="Every change, newest first (scheduled ones included).")


class SalaryChangeOut(BaseModel):
    employee_id: int
    employee_name: str
    change: SalaryLine
    previous_salary_cents: int
    increase_percent: float = Field(description="Change over the previous salary, in percent, to one decimal.")


class StatementOut(BaseModel):
    id: int
    employee_id: int
    employee_name: str
    recipient_email: str
    recipient_name: str
    salary_cents: int
    currency: str
    shared_at: Timestamp
    note: str


class PolicyOut(BaseModel):
    id: int
    code: str
    name: str
    annual_days: int = Field(description="Working days granted per calendar year (prorated in the hire year).")
    carryover_days: int = Field(description="Unused days that may carry into the next year.")
    paid: bool


class PolicyList(BaseModel):
    policies: list[PolicyOut]


class Balance(BaseModel):
    policy: str
    policy_name: str
    entitled_days: int = Field(description="The year's allowance, carried-over days included.")
    carried_over_days: int
    used_days: int = Field(description="Days of approved requests starting in the year.")
    pending_days: int = Field(description="Days of requests awaiting approval.")
    remaining_days: int = Field(description="entitled - used - pending: what a new request may take.")


class BalanceSheet(BaseModel):
    employee_id: int
    employee_name: str
    year: int
    balances: list[Balance]


class TimeOffRequestOut(BaseModel):
    id: int
    employee_id: int
    employee_name: str
    department_name: str
    policy: str
    start_date: date
    end_date: date
    days: int = Field(description="Working days (Monday to Friday) from start to end, both included.")
    status: str = Field(description="pending, approved, denied or cancelled.")
    note: str
    requested_at: Timestamp
    approver_id: int | None = Field(description="Who decides it: the employee's manager (null for the CEO).")
    approver_name: str | None
    decided_by_name: str | None
    decided_at: Timestamp | None
    decision_comment: str


class TimeOffPage(BaseModel):
    requests: list[TimeOffRequestOut]
    total: int
    page: int
    next_page: int | None


class AbsenceList(BaseModel):
    start_date: date
    end_date: date
    absences: list[TimeOffRequestOut] = Field(description="Requests overlapping the dates, by start date then name.")
    people_out: int = Field(description="Distinct employees in the list.")


class ReviewOut(BaseModel):
    id: int
    employee_id: int
    employee_name: str
    reviewer_id: int
    reviewer_name: str
    cycle: str
    due_date: date
    status: str = Field(description="draft, submitted or acknowledged (by the employee).")
    rating: int | None = Field(description="1 (did not meet) to 5 (outstanding); null for drafts.")
    summary: str
    submitted_at: Timestamp | None
    acknowledged_at: Timestamp | None


class ReviewPage(BaseModel):
    reviews: list[ReviewOut]
    total: int
    page: int
    next_page: int | None


class TaskOut(BaseModel):
    id: int
    title: str
    category: str
    assignee_id: int
    assignee_name: str
    due_date: date
    status: str = Field(description="open or done.")
    overdue: bool = Field(description="Open and due before today.")
    completed_at: Timestamp | None


class Checklist(BaseModel):
    employee_id: int
    employee_name: str
    hire_date: date
    tasks: list[TaskOut] = Field(description="By due date, then id; empty for employees without onboarding.")
    done_count: int
    open_count: int
    overdue_count: int


class HeadcountGroup(BaseModel):
    key: str = Field(description="The department name, level code, location or employment type.")
    headcount: int = Field(description="Active and on leave.")
    active: int
    on_leave: int
    terminated: int
    hired_last_90_days: int
    average_tenure_years: float = Field(description="Of those active or on leave, to one decimal.")
    annual_payroll_cents: int = Field(description="Sum of today's base salaries of those active or on leave.")


class HeadcountReport(BaseModel):
    group_by: str
    groups: list[HeadcountGroup]
    total_headcount: int
    total_annual_payroll_cents: int
    currency: str


class ManagerChange(BaseModel):
    employee: EmployeeSummary
    previous_manager_id: int | None
    previous_manager_name: str | None
    changed: bool = Field(description="False when they already reported to that manager.")
    reviews_moved: int = Field(description="Draft reviews handed to the new manager.")


class Termination(BaseModel):
    employee: EmployeeSummary
    termination_date: date
    reason: str
    requests_cancelled: int = Field(description="Pending and future approved time off cancelled.")
