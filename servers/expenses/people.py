"""Who is who in the expense tool, read from HR's seeded database: the employees, their
managers (the approvers of their reports), the signed-in employee and the finance employee who
pays reimbursements out."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from mcpgym.servers.kernel.links import seeded_rows
from mcpgym.servers.kernel.world import World

HR_ACTING_USER = 1
"""HR's signed-in employee (the Head of People, a manager): the same person is signed in here."""
EMPLOYEE_COLUMNS = ("id", "person_id", "name", "email", "job_title", "department", "manager_id", "approver_id", "status", "cost_center")


@dataclass(frozen=True)
class Staff:
    employees: list[dict[str, Any]]
    """HR's employees by id, with their department's name and `hire_date` as a date."""
    me: int
    """The signed-in employee: HR's signed-in manager (else the manager below the CEO with
    the most direct reports)."""
    treasurer: int
    """The finance employee who records reimbursements (the head of Finance, else the CEO)."""
    top: int
    """The employee without a manager (the CEO)."""

    def approver_of(self, employee_id: int) -> int | None:
        """Who approves the employee's reports: their manager; the CEO's go to the treasurer."""
        manager = self.by_id[employee_id]["manager_id"]
        if manager is None:
            return self.treasurer if self.treasurer != employee_id else None
        return manager  # type: ignore[no-any-return]

    @property
    def by_id(self) -> dict[int, dict[str, Any]]:
        return {e["id"]: e for e in self.employees}

    def rows(self) -> list[dict[str, Any]]:
        """The rows of the `employees` table."""
        return [{**{key: e.get(key) for key in EMPLOYEE_COLUMNS}, "approver_id": self.approver_of(e["id"])}
                for e in self.employees]


def load_staff(world: World) -> Staff:
    """HR's employees and departments for the world's seed, and the roles derived from them."""
    departments = {row["id"]: row for row in seeded_rows("hr", world.seed, "SELECT id, name, head_id, cost_center FROM departments")}
    employees = []
    for row in seeded_rows("hr", world.seed, "SELECT id, person_id, email, name, job_title, department_id, manager_id, "
                                             "hire_date, status FROM employees ORDER BY id"):
        department = departments.get(row["department_id"])
        employees.append({
            **row, "department": department["name"] if department else "", "hire_date": date.fromisoformat(row["hire_date"][:10]),
            "cost_center": department["cost_center"] if department else "",
        })
    top = next(e["id"] for e in employees if e["manager_id"] is None)
    reports: dict[int, int] = {}
    for e in employees:
        if e["manager_id"] is not None and e["status"] != "terminated":
            reports[e["manager_id"]] = reports.get(e["manager_id"], 0) + 1
    active = {e["id"] for e in employees if e["status"] == "active"}
    managers = [m for m in reports if m != top and m in active]
    me = HR_ACTING_USER if HR_ACTING_USER in managers else min(managers, key=lambda m: (-reports[m], m))
    finance = [d["head_id"] for d in departments.values() if "financ" in d["name"].lower() and d["head_id"] in active]
    treasurer = next((h for h in finance if h != me), top)
    return Staff(employees=employees, me=me, treasurer=treasurer, top=top)
