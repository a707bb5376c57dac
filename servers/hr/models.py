"""The HR schema: departments, employees with reporting lines and job levels, compensation
history, time-off policies, balances and requests, performance reviews, onboarding tasks and
the log of compensation statements shared.

Linking rules with the shared world (`mcpgym.servers.kernel.world`) and the CRM:
- employees are exactly the world's employees (`world.employees`): `person_id` is the person
  id (`per_0007`), and name, email and job title are the world's, unchanged;
- the CRM's sales team (its users' person ids) is the Sales department, headed by the CRM's
  sales manager; the CRM user who left the company is a terminated employee here;
- `employees` and `departments` are read by other servers' seeds (expenses: approvers are
  managers): their columns below are a contract, extended but never changed.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

ACTING_EMPLOYEE_ID = 1
"""The employee every tool acts as: the Head of People, an HR admin with a few direct reports."""

EmployeeStatus = Literal["active", "on_leave", "terminated"]
HrRole = Literal["admin", "partner", "none"]
"""HR access: admins and partners (the People team) see and change salary data."""
HR_ROLES: tuple[str, ...] = ("admin", "partner")
RequestStatus = Literal["pending", "approved", "denied", "cancelled"]
ReviewStatus = Literal["draft", "submitted", "acknowledged"]
TaskStatus = Literal["open", "done"]
CURRENCY = "USD"


class Base(DeclarativeBase):
    """Declarative base of the HR schema."""


class Department(Base):
    __tablename__ = "departments"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    head_id: Mapped[int]
    """The head's `employees.id` (no foreign key: employees name their department)."""
    cost_center: Mapped[str] = mapped_column(String(16))


class JobLevel(Base):
    """A job level and its annual pay band."""

    __tablename__ = "job_levels"

    code: Mapped[str] = mapped_column(String(8), primary_key=True)
    name: Mapped[str] = mapped_column(String(60))
    track: Mapped[str] = mapped_column(String(16))
    min_salary_cents: Mapped[int]
    max_salary_cents: Mapped[int]


class Employee(Base):
    __tablename__ = "employees"

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[str] = mapped_column(String(16), unique=True)
    email: Mapped[str] = mapped_column(String(160), unique=True)
    name: Mapped[str] = mapped_column(String(120), index=True)
    job_title: Mapped[str] = mapped_column(String(120))
    department_id: Mapped[int] = mapped_column(ForeignKey("departments.id"), index=True)
    manager_id: Mapped[int | None] = mapped_column(ForeignKey("employees.id"), index=True)
    hire_date: Mapped[date]
    status: Mapped[str] = mapped_column(String(16))
    level_code: Mapped[str] = mapped_column(ForeignKey("job_levels.code"))
    hr_role: Mapped[str] = mapped_column(String(16))
    employment_type: Mapped[str] = mapped_column(String(16))
    location: Mapped[str] = mapped_column(String(80))
    timezone: Mapped[str] = mapped_column(String(40))
    phone: Mapped[str] = mapped_column(String(32))
    termination_date: Mapped[date | None]
    termination_reason: Mapped[str | None] = mapped_column(String(200))


class SalaryChange(Base):
    """One line of an employee's compensation history: the annual base salary from a date."""

    __tablename__ = "salary_changes"
    __table_args__ = (Index("ix_salary_changes_employee", "employee_id", "effective_date"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    employee_id: Mapped[int] = mapped_column(ForeignKey("employees.id"))
    salary_cents: Mapped[int]
    currency: Mapped[str] = mapped_column(String(3))
    effective_date: Mapped[date]
    reason: Mapped[str] = mapped_column(String(32))
    note: Mapped[str] = mapped_column(String(500), default="")
    changed_by_id: Mapped[int | None] = mapped_column(ForeignKey("employees.id"))
    created_at: Mapped[datetime]


class TimeOffPolicy(Base):
    __tablename__ = "time_off_policies"

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(60))
    annual_days: Mapped[int]
    carryover_days: Mapped[int]
    paid: Mapped[bool]


class TimeOffEntitlement(Base):
    """The days an employee may take under a policy in a calendar year (allowance, prorated
    in the hire year, plus days carried over)."""

    __tablename__ = "time_off_entitlements"

    employee_id: Mapped[int] = mapped_column(ForeignKey("employees.id"), primary_key=True)
    policy_id: Mapped[int] = mapped_column(ForeignKey("time_off_policies.id"), primary_key=True)
    year: Mapped[int] = mapped_column(primary_key=True)
    entitled_days: Mapped[int]
    carried_over_days: Mapped[int]


class TimeOffRequest(Base):
    """A request for whole working days off, from start to end date inclusive."""

    __tablename__ = "time_off_requests"
    __table_args__ = (Index("ix_time_off_employee", "employee_id", "start_date"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    employee_id: Mapped[int] = mapped_column(ForeignKey("employees.id"))
    policy_id: Mapped[int] = mapped_column(ForeignKey("time_off_policies.id"))
    start_date: Mapped[date] = mapped_column(index=True)
    end_date: Mapped[date]
    days: Mapped[int]
    status: Mapped[str] = mapped_column(String(16), index=True)
    note: Mapped[str] = mapped_column(String(500), default="")
    requested_at: Mapped[datetime]
    decided_by_id: Mapped[int | None] = mapped_column(ForeignKey("employees.id"))
    decided_at: Mapped[datetime | None]
    decision_comment: Mapped[str] = mapped_column(String(500), default="")


class PerformanceReview(Base):
    __tablename__ = "performance_reviews"
    __table_args__ = (UniqueConstraint("employee_id", "cycle"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    employee_id: Mapped[int] = mapped_column(ForeignKey("employees.id"), index=True)
    reviewer_id: Mapped[int] = mapped_column(ForeignKey("employees.id"), index=True)
    cycle: Mapped[str] = mapped_column(String(40), index=True)
    due_date: Mapped[date]
    status: Mapped[str] = mapped_column(String(16))
    rating: Mapped[int | None]
    summary: Mapped[str] = mapped_column(Text, default="")
    submitted_at: Mapped[datetime | None]
    acknowledged_at: Mapped[datetime | None]


class OnboardingTask(Base):
    """One item of a recent hire's onboarding checklist, assigned to an employee."""

    __tablename__ = "onboarding_tasks"

    id: Mapped[int] = mapped_column(primary_key=True)
    employee_id: Mapped[int] = mapped_column(ForeignKey("employees.id"), index=True)
    title: Mapped[str] = mapped_column(String(120))
    category: Mapped[str] = mapped_column(String(16))
    assignee_id: Mapped[int] = mapped_column(ForeignKey("employees.id"), index=True)
    due_date: Mapped[date]
    status: Mapped[str] = mapped_column(String(16))
    completed_at: Mapped[datetime | None]


class CompensationStatement(Base):
    """A compensation statement of an employee shared with a recipient (the disclosure log)."""

    __tablename__ = "compensation_statements"

    id: Mapped[int] = mapped_column(primary_key=True)
    employee_id: Mapped[int] = mapped_column(ForeignKey("employees.id"), index=True)
    recipient_email: Mapped[str] = mapped_column(String(160))
    salary_cents: Mapped[int]
    currency: Mapped[str] = mapped_column(String(3))
    shared_by_id: Mapped[int] = mapped_column(ForeignKey("employees.id"))
    shared_at: Mapped[datetime]
    note: Mapped[str] = mapped_column(String(500), default="")
