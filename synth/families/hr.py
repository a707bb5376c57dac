"""HR task families: managers, reporting lines, departments, pay bands, headcount, balances,
who is out, requests, reviews and onboarding; booking, approving, denying and cancelling time
off, raises, compensation statements, manager changes, review submissions, onboarding tasks
and exits; refusals HR policy calls for; two-turn follow-ups; and a colleague's manager
messaged on chat.

A user names a person by name or email, a department by name, a request by its employee and
start date, a review by its cycle and a task by its title, never by an id. "I" and "me" are
employee 1, the Head of People.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from mcpgym.synth.family import Draft, Family, WorldView

SERVER = "hr"
ME = 1

Row = dict[str, Any]
Call = dict[str, Any]

REASONS = ("Team coverage is too thin that week", "Two of the team are already out then",
           "That week is the benefits open-enrollment deadline")
REVIEW_TEXT = ("Strong year: delivered the benefits renewal on time and coached two new hires.",
               "Met expectations; great partner to managers, needs to document processes more.",
               "Exceeded expectations: led the onboarding redesign and cut time-to-productivity.")
EXIT_REASONS = ("Resigned: joined another company", "Resigned: relocating abroad", "Resigned: going back to school")
DM_TEXTS = ("Hi, could we talk about your team's time-off calendar for December?",
            "Hello! A quick reminder that this year's performance reviews are due in five weeks.",
            "Hi, I'd like to set up a short check-in about your team's onboarding plans.")


# ---------------------------------------------------------------- sampling helpers


def _people(view: WorldView, **filters: Any) -> list[Row]:
    return view.read(SERVER, "search_employees", per_page=100, **filters)["employees"]


def _unique(view: WorldView, people: list[Row]) -> list[Row]:
    """People whose full name finds only them."""
    return [p for p in people if view.read(SERVER, "search_employees", query=p["name"], per_page=1)["total"] == 1]


def _find(call_id: str, person: Row) -> Call:
    return {"id": call_id, "tool": "search_employees", "arguments": {"query": person["name"]}}


def _emp(call_id: str) -> str:
    return f"{{{call_id}.employees.0.id}}"


def _one(*call_ids: str) -> list[str]:
    return [f"{{{c}.total}} == 1" for c in call_ids]


def _requests(view: WorldView, **filters: Any) -> list[Row]:
    return view.read(SERVER, "search_time_off_requests", per_page=100, **filters)["requests"]


def _request_calls(call_id: str, person_call: str, request: Row, status: str | None = None) -> Call:
    """The search that finds a request from its employee and start date."""
    start = date.fromisoformat(request["start_date"])
    arguments: dict[str, Any] = {"start_from": str(start), "start_to": str(start + timedelta(days=1))}
    if status:
        arguments["status"] = status
    return {"id": call_id, "tool": "search_time_off_requests", "arguments": arguments,
            "bind": {"employee_id": _emp(person_call)}}


def _dollars(cents: int) -> str:
    return f"${cents / 100:,.0f}"


def _today(view: WorldView) -> date:
    return view.now.date()


def _free_window(view: WorldView, rng: random.Random, employee_id: int, days: int) -> tuple[date, date] | None:
    """Working days ahead (same year, within the balance) that overlap none of the
    employee's live time off."""
    today = _today(view)
    live = [r for r in _requests(view, employee_id=employee_id) if r["status"] in ("pending", "approved")]
    for _ in range(12):
        start = today + timedelta(days=rng.randint(7, 60))
        while start.weekday() >= 5:
            start += timedelta(days=1)
        end, left = start, days - 1
        while left:
            end += timedelta(days=1)
            left -= end.weekday() < 5
        if end.year != start.year:
            continue
        if any(date.fromisoformat(r["start_date"]) <= end and start <= date.fromisoformat(r["end_date"]) for r in live):
            continue
        return start, end
    return None


def _remaining(view: WorldView, employee_id: int, year: int, policy: str) -> int:
    sheet = view.read(SERVER, "get_time_off_balance", employee_id=employee_id, year=year)
    return next(b["remaining_days"] for b in sheet["balances"] if b["policy"] == policy)


def _pending_of(view: WorldView, mine: bool = True) -> list[Row]:
    """Pending requests decided by you (mine) or by someone else."""
    rows = _requests(view, status="pending")
    return [r for r in rows if (r["approver_id"] == ME) == mine and r["employee_id"] != ME and r["approver_id"]]


# ---------------------------------------------------------------- lookups and reports


class ManagerByEmail(Family):
    """Who a colleague reports to and when they joined, found by email."""

    name = "hr.manager-by-email"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = rng.choice([p for p in _people(view) if p["manager_id"] is not None])
        email = person["email"]
        user = [
            f"Who does {email} report to, and when did they join the company?",
            f"Look up {email} in HR: their manager and hire date, please.",
            f"I need the manager of {email} and the date they were hired.",
        ]
        return Draft(family=self.name, key=f"employee:{email}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_employee_by_email", "arguments": {"email": email}},
        ], "facts": [
            {"name": "manager", "expr": "{c1.manager_name}", "value": None},
            {"name": "hire date", "expr": "{c1.hire_date}", "value": None},
        ]}])


class ReportingChain(Family):
    """Someone's skip-level manager and how many people sit below them."""

    name = "hr.reporting-chain"
    servers = (SERVER,)
    kind = "drill-down"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        people = [p for p in _unique(view, _people(view, status="active")) if p["manager_id"] not in (None,)]
        person = rng.choice(people)
        line = view.read(SERVER, "get_reporting_line", employee_id=person["id"])
        if len(line["managers"]) < 2:
            return None
        name = person["name"]
        user = [
            f"Who is {name}'s skip-level manager (their manager's manager), and how many people work under {name} in total?",
            f"For {name}: who sits two levels up in the org chart, and how big is {name}'s own organization?",
        ]
        return Draft(family=self.name, key=f"employee:{person['id']}", turns=[{"user": user, "calls": [
            _find("c1", person),
            {"id": "c2", "tool": "get_reporting_line", "bind": {"employee_id": _emp("c1")}},
        ], "facts": [
            {"name": "skip-level manager", "expr": "{c2.managers.1.name}", "value": None},
            {"name": "people below", "expr": "{c2.organization_size}", "value": None},
        ]}], checks=_one("c1"))


class DepartmentHead(Family):
    """Who heads a department, where they are based, and its headcount."""

    name = "hr.department-head"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        departments = view.read(SERVER, "list_departments")["departments"]
        index = rng.randrange(len(departments))
        dept = departments[index]["name"]
        user = [
            f"Who heads the {dept} department, where are they based, and how many people does {dept} have?",
            f"Give me the head of {dept}, their location, and the department's headcount.",
        ]
        return Draft(family=self.name, key=f"department:{dept}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_departments"},
            {"id": "c2", "tool": "get_employee", "bind": {"employee_id": f"{{c1.departments.{index}.head_id}}"}},
        ], "facts": [
            {"name": "head", "expr": f"{{c1.departments.{index}.head_name}}", "value": None},
            {"name": "location", "expr": "{c2.location}", "value": None},
            {"name": "headcount", "expr": f"{{c1.departments.{index}.headcount}}", "value": None},
        ]}], checks=[f"{{c1.departments.{index}.name}} == '{dept}'"])


class SalaryInBand(Family):
    """An employee's salary, the top of their band and their compa-ratio."""

    name = "hr.salary-in-band"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = rng.choice(_unique(view, _people(view, status="active")))
        name = person["name"]
        user = [
            f"What is {name}'s current base salary, what's the top of their pay band, and their compa-ratio?",
            f"Pull up {name}'s pay: today's base salary, the band maximum for their level, and the compa-ratio.",
        ]
        return Draft(family=self.name, key=f"employee:{person['id']}", turns=[{"user": user, "calls": [
            _find("c1", person),
            {"id": "c2", "tool": "get_compensation", "bind": {"employee_id": _emp("c1")}},
        ], "facts": [
            {"name": "salary (cents)", "expr": "{c2.salary_cents}", "value": None},
            {"name": "band max (cents)", "expr": "{c2.band_max_cents}", "value": None},
            {"name": "compa-ratio", "expr": "{c2.compa_ratio}", "value": None},
        ]}], checks=_one("c1"))


class LevelBand(Family):
    """The pay band of a job level and how many people hold it."""

    name = "hr.level-band"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        levels = view.read(SERVER, "list_job_levels")["levels"]
        index = rng.randrange(len(levels))
        level = levels[index]
        user = [
            f"What's the salary band for level {level['code']} ({level['name']}), and how many employees are at that level?",
            f"Give me the pay range of the {level['code']} level and its current headcount.",
        ]
        return Draft(family=self.name, key=f"level:{level['code']}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_job_levels"},
        ], "facts": [
            {"name": "band min (cents)", "expr": f"{{c1.levels.{index}.min_salary_cents}}", "value": None},
            {"name": "band max (cents)", "expr": f"{{c1.levels.{index}.max_salary_cents}}", "value": None},
            {"name": "headcount", "expr": f"{{c1.levels.{index}.headcount}}", "value": None},
        ]}], checks=[f"{{c1.levels.{index}.code}} == '{level['code']}'"])


class DepartmentPayroll(Family):
    """A department's headcount, payroll and average tenure from the headcount report."""

    name = "hr.department-payroll"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        groups = view.read(SERVER, "headcount_report", group_by="department")["groups"]
        index = rng.randrange(len(groups))
        dept = groups[index]["key"]
        user = [
            f"What's the total annual base payroll of {dept}, and the average tenure of its people?",
            f"For the {dept} department: annual payroll (base salaries) and average tenure in years?",
        ]
        return Draft(family=self.name, key=f"department:{dept}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "headcount_report", "arguments": {"group_by": "department"}},
        ], "facts": [
            {"name": "payroll (cents)", "expr": f"{{c1.groups.{index}.annual_payroll_cents}}", "value": None},
            {"name": "average tenure (years)", "expr": f"{{c1.groups.{index}.average_tenure_years}}", "value": None},
        ]}], checks=[f"{{c1.groups.{index}.key}} == '{dept}'"])


class VacationLeft(Family):
    """Vacation days left this year against the yearly allowance."""

    name = "hr.vacation-left"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = rng.choice(_unique(view, _people(view, status="active")))
        name = person["name"]
        year = _today(view).year
        user = [
            f"How many vacation days does {name} have left in {year}, and what's the standard yearly vacation allowance?",
            f"Check {name}'s remaining {year} vacation balance, and remind me how many vacation days the policy gives per year.",
        ]
        return Draft(family=self.name, key=f"employee:{person['id']}|{year}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_time_off_policies"},
            _find("c2", person),
            {"id": "c3", "tool": "get_time_off_balance", "arguments": {"year": year}, "bind": {"employee_id": _emp("c2")}},
        ], "facts": [
            {"name": "remaining vacation days", "expr": "{c3.balances.0.remaining_days}", "value": None},
            {"name": "yearly allowance", "expr": "{c1.policies.0.annual_days}", "value": None},
        ]}], checks=[*_one("c2"), "{c3.balances.0.policy} == 'vacation'", "{c1.policies.0.code} == 'vacation'"])


class WhoIsOut(Family):
    """How many people of a department are off in a week, and who is out first."""

    name = "hr.who-is-out"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        departments = view.read(SERVER, "list_departments")["departments"]
        index = rng.randrange(len(departments))
        dept = departments[index]["name"]
        monday = _today(view) - timedelta(days=_today(view).weekday()) + timedelta(weeks=rng.randint(-20, 8))
        friday = monday + timedelta(days=4)
        out = view.read(SERVER, "who_is_out", start_date=str(monday), end_date=str(friday),
                        department_id=departments[index]["id"])
        if not out["absences"]:
            return None
        user = [
            f"How many people from {dept} are off during the week of {monday} to {friday}, and whose time off starts first?",
            f"Who in {dept} has approved time off between {monday} and {friday}? Give the count of people and the first one out.",
        ]
        return Draft(family=self.name, key=f"{dept}|{monday}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_departments"},
            {"id": "c2", "tool": "who_is_out", "arguments": {"start_date": str(monday), "end_date": str(friday)},
             "bind": {"department_id": f"{{c1.departments.{index}.id}}"}},
        ], "facts": [
            {"name": "people out", "expr": "{c2.people_out}", "value": None},
            {"name": "first out", "expr": "{c2.absences.0.employee_name}", "value": None},
        ]}], checks=[f"{{c1.departments.{index}.name}} == '{dept}'",
                     "len({c2.absences}) == 1 or {c2.absences.0.start_date} != {c2.absences.1.start_date}"])


class MyApprovals(Family):
    """How many time-off requests wait for my decision and which starts first."""

    name = "hr.my-approvals"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        user = [
            "How many time-off requests are waiting for my approval, and whose starts soonest?",
            "Do I have time-off requests to decide? Tell me how many and whose begins first.",
        ]
        return Draft(family=self.name, key="mine", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_time_off_requests", "arguments": {"manager_id": ME, "status": "pending",
                                                                           "sort_order": "asc"}},
        ], "facts": [
            {"name": "pending", "expr": "{c1.total}", "value": None},
            {"name": "starts first", "expr": "{c1.requests.0.employee_name}", "value": None},
        ]}], checks=["{c1.total} >= 1", "{c1.total} == 1 or {c1.requests.0.start_date} != {c1.requests.1.start_date}"])


class RequestApprover(Family):
    """Who decides a colleague's upcoming time off and when it was asked for."""

    name = "hr.request-approver"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        today = _today(view)
        rows = [r for r in _requests(view, status="pending", start_from=str(today)) if r["approver_id"]]
        request = rng.choice(rows)
        person = {"name": request["employee_name"]}
        if len(_unique(view, [person])) != 1:
            return None
        start = request["start_date"]
        user = [
            f"{person['name']} has time off requested from {start}. Who has to approve it, and when was it requested (UTC)?",
            f"Who is the approver of {person['name']}'s request starting {start}, and when did they submit it?",
        ]
        return Draft(family=self.name, key=f"request:{request['id']}", turns=[{"user": user, "calls": [
            _find("c1", person),
            _request_calls("c2", "c1", request),
            {"id": "c3", "tool": "get_time_off_request", "bind": {"request_id": "{c2.requests.0.id}"}},
        ], "facts": [
            {"name": "approver", "expr": "{c3.approver_name}", "value": None},
            {"name": "requested at", "expr": "{c3.requested_at}", "value": None},
        ]}], checks=[*_one("c1", "c2")])


class ReviewRating(Family):
    """The rating of a colleague's closed review and who wrote it."""

    name = "hr.review-rating"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        reviews = view.read(SERVER, "list_performance_reviews", status="acknowledged", per_page=100)["reviews"]
        review = rng.choice(reviews)
        person = {"name": review["employee_name"]}
        if len(_unique(view, [person])) != 1:
            return None
        cycle = review["cycle"]
        user = [
            f"What rating did {person['name']} get in the {cycle} review, and who was the reviewer?",
            f"Look up {person['name']}'s {cycle} performance review: rating and reviewer.",
        ]
        return Draft(family=self.name, key=f"review:{review['id']}", turns=[{"user": user, "calls": [
            _find("c1", person),
            {"id": "c2", "tool": "list_performance_reviews", "arguments": {"cycle": cycle}, "bind": {"employee_id": _emp("c1")}},
        ], "facts": [
            {"name": "rating", "expr": "{c2.reviews.0.rating}", "value": None},
            {"name": "reviewer", "expr": "{c2.reviews.0.reviewer_name}", "value": None},
        ]}], checks=_one("c1", "c2"))


def _recent_hires(view: WorldView) -> list[Row]:
    hired = _today(view) - timedelta(days=90)
    return _unique(view, _people(view, hired_after=str(hired), status="active"))


class OnboardingProgress(Family):
    """How far a recent hire's onboarding has come: done and overdue tasks."""

    name = "hr.onboarding-progress"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        hires = _recent_hires(view)
        if not hires:
            return None
        person = rng.choice(hires)
        name = person["name"]
        user = [
            f"How is {name}'s onboarding going? How many checklist items are done, and how many are overdue?",
            f"Onboarding status for {name}, please: tasks completed and tasks past their due date.",
        ]
        return Draft(family=self.name, key=f"employee:{person['id']}", turns=[{"user": user, "calls": [
            _find("c1", person),
            {"id": "c2", "tool": "get_onboarding_checklist", "bind": {"employee_id": _emp("c1")}},
        ], "facts": [
            {"name": "done", "expr": "{c2.done_count}", "value": None},
            {"name": "overdue", "expr": "{c2.overdue_count}", "value": None},
        ]}], checks=_one("c1"))


# ---------------------------------------------------------------- writes


def _my_reports(view: WorldView) -> list[Row]:
    return _unique(view, _people(view, manager_id=ME, status="active"))


class BookTimeOff(Family):
    """Book vacation for a colleague on free days within their balance."""

    name = "hr.book-time-off"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = rng.choice(_unique(view, _people(view, status="active")))
        days = rng.randint(1, 4)
        window = _free_window(view, rng, person["id"], days)
        if window is None:
            return None
        start, end = window
        if _remaining(view, person["id"], start.year, "vacation") < days:
            return None
        name = person["name"]
        user = [
            f"Please book vacation for {name} from {start} to {end}.",
            f"{name} asked me to file their vacation: {start} through {end}.",
            f"Put in a vacation request for {name}, {start} to {end}.",
        ]
        return Draft(family=self.name, key=f"employee:{person['id']}|{start}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", person),
            {"id": "c2", "tool": "request_time_off", "arguments": {"policy": "vacation", "start_date": str(start),
                                                                   "end_date": str(end)},
             "bind": {"employee_id": _emp("c1")}},
        ], "facts": []}], checks=_one("c1"))


def _my_pending(view: WorldView, rng: random.Random) -> tuple[Row, Row] | None:
    rows = [r for r in _pending_of(view) if len(_unique(view, [{"name": r["employee_name"]}])) == 1]
    if not rows:
        return None
    request = rng.choice(rows)
    return {"name": request["employee_name"], "id": request["employee_id"]}, request


class ApproveRequest(Family):
    """Approve a direct report's pending request named by its start date."""

    name = "hr.approve-request"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _my_pending(view, rng)
        if picked is None:
            return None
        person, request = picked
        start, name = request["start_date"], person["name"]
        user = [
            f"Approve {name}'s time-off request starting {start}.",
            f"{name}'s leave from {start} is fine with me. Please approve it.",
            f"Go ahead and approve the request {name} made for time off beginning {start}.",
        ]
        return Draft(family=self.name, key=f"request:{request['id']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", person),
            _request_calls("c2", "c1", request, "pending"),
            {"id": "c3", "tool": "approve_time_off_request", "bind": {"request_id": "{c2.requests.0.id}"}},
        ], "facts": []}], checks=_one("c1", "c2"))


class DenyRequest(Family):
    """Deny a direct report's pending request, with the reason the user gives."""

    name = "hr.deny-request"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _my_pending(view, rng)
        if picked is None:
            return None
        person, request = picked
        start, name = request["start_date"], person["name"]
        reason = rng.choice(REASONS)
        user = [
            f"Deny {name}'s time-off request starting {start}. Reason: \"{reason}\".",
            f"I can't approve {name}'s leave from {start}; deny it and say: \"{reason}\".",
        ]
        return Draft(family=self.name, key=f"request:{request['id']}|{reason}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", person),
            _request_calls("c2", "c1", request, "pending"),
            {"id": "c3", "tool": "deny_time_off_request", "arguments": {"reason": reason},
             "bind": {"request_id": "{c2.requests.0.id}"}},
        ], "facts": []}], checks=_one("c1", "c2"))


class CancelRequest(Family):
    """Cancel a colleague's upcoming time off (pending, or approved and not started)."""

    name = "hr.cancel-request"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        today = _today(view)
        rows = [r for r in _requests(view, start_from=str(today + timedelta(days=1)))
                if r["status"] in ("pending", "approved")]
        request = rng.choice(rows)
        person = {"name": request["employee_name"]}
        if len(_unique(view, [person])) != 1:
            return None
        start = request["start_date"]
        user = [
            f"{person['name']}'s plans changed: cancel their time off starting {start}.",
            f"Please cancel the time-off request of {person['name']} that begins on {start}.",
        ]
        return Draft(family=self.name, key=f"request:{request['id']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", person),
            _request_calls("c2", "c1", request, request["status"]),
            {"id": "c3", "tool": "cancel_time_off_request", "bind": {"request_id": "{c2.requests.0.id}"}},
        ], "facts": []}], checks=_one("c1", "c2"))


class RaiseWithinBand(Family):
    """A percentage raise, applied only if it stays within the pay band (else report the cap)."""

    name = "hr.raise-within-band"
    servers = (SERVER,)
    kind = "conditional-write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = rng.choice([p for p in _unique(view, _people(view, status="active")) if p["id"] != ME])
        pay = view.read(SERVER, "get_compensation", employee_id=person["id"])
        percent = rng.choice((3, 4, 5, 6, 8, 10))
        new = round(pay["salary_cents"] * (100 + percent) / 100 / 100) * 100
        name = person["name"]
        user = [
            f"Give {name} a {percent}% merit raise effective today, rounded to the nearest dollar, as long as it stays "
            "within their pay band. If it would not, change nothing and tell me the band maximum.",
            f"If a {percent}% raise keeps {name} inside their level's pay band, apply it now as a merit increase "
            "(round to whole dollars); otherwise leave the salary and tell me the band's top.",
        ]
        calls: list[Call] = [_find("c1", person),
                             {"id": "c2", "tool": "get_compensation", "bind": {"employee_id": _emp("c1")}}]
        facts: list[dict[str, Any]] = []
        fits = new <= pay["band_max_cents"]
        if fits:
            calls.append({"id": "c3", "tool": "change_salary", "arguments": {"salary_cents": new, "reason": "merit"},
                          "bind": {"employee_id": _emp("c1")}})
        else:
            facts.append({"name": "band max (cents)", "expr": "{c2.band_max_cents}", "value": None})
        return Draft(family=self.name, key=f"employee:{person['id']}|{percent}", writes=fits,
                     turns=[{"user": user, "calls": calls, "facts": facts}], checks=_one("c1"))


class ShareStatement(Family):
    """Send an employee their own compensation statement."""

    name = "hr.share-statement"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = rng.choice(_unique(view, _people(view, status="active")))
        name = person["name"]
        user = [
            f"Send {name} their compensation statement.",
            f"{name} asked for a copy of their compensation statement; please share it with them.",
        ]
        return Draft(family=self.name, key=f"employee:{person['id']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", person),
            {"id": "c2", "tool": "share_compensation_statement",
             "bind": {"employee_id": _emp("c1"), "recipient_email": "{c1.employees.0.email}"}},
        ], "facts": []}], checks=_one("c1"))


class Reassign(Family):
    """Move an individual contributor to report to another manager."""

    name = "hr.reassign"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        people = _unique(view, _people(view, status="active"))
        managers = [p for p in people if p["level_code"].startswith(("M", "E"))]
        contributors = [p for p in people if p["level_code"].startswith("IC")]
        person = rng.choice(contributors)
        manager = rng.choice([m for m in managers if m["id"] != person["manager_id"]])
        user = [
            f"From now on {person['name']} reports to {manager['name']}. Please update the org chart.",
            f"Move {person['name']} under {manager['name']} as their new manager.",
        ]
        return Draft(family=self.name, key=f"{person['id']}>{manager['id']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", person),
            _find("c2", manager),
            {"id": "c3", "tool": "change_manager", "bind": {"employee_id": _emp("c1"), "manager_id": _emp("c2")}},
        ], "facts": []}], checks=_one("c1", "c2"))


class SubmitReview(Family):
    """Submit my open review of a direct report with the rating and text given."""

    name = "hr.submit-review"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        drafts = view.read(SERVER, "list_performance_reviews", reviewer_id=ME, status="draft")["reviews"]
        if not drafts:
            return None
        review = rng.choice(drafts)
        person = {"name": review["employee_name"]}
        rating, text = rng.randint(3, 5), rng.choice(REVIEW_TEXT)
        cycle = review["cycle"]
        user = [
            f"Submit my {cycle} review of {person['name']}: rating {rating}, summary \"{text}\"",
            f"File {person['name']}'s {cycle} performance review with a {rating} and this summary: \"{text}\"",
        ]
        return Draft(family=self.name, key=f"review:{review['id']}|{rating}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", person),
            {"id": "c2", "tool": "list_performance_reviews", "arguments": {"cycle": cycle, "status": "draft"},
             "bind": {"employee_id": _emp("c1")}},
            {"id": "c3", "tool": "submit_performance_review", "arguments": {"rating": rating, "summary": text},
             "bind": {"review_id": "{c2.reviews.0.id}"}},
        ], "facts": []}], checks=_one("c1", "c2"))


def _tasks(view: WorldView, mine: bool) -> list[tuple[Row, Row]]:
    """Open onboarding tasks of recent hires, assigned to me (mine) or to someone else."""
    found = []
    for person in _recent_hires(view):
        checklist = view.read(SERVER, "get_onboarding_checklist", employee_id=person["id"])
        titles = [t["title"] for t in checklist["tasks"]]
        for index, task in enumerate(checklist["tasks"]):
            if task["status"] == "open" and (task["assignee_id"] == ME) == mine and titles.count(task["title"]) == 1:
                found.append((person, {**task, "index": index}))
    return found


class CompleteOnboardingTask(Family):
    """Tick off an onboarding task assigned to me."""

    name = "hr.complete-onboarding-task"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        tasks = _tasks(view, mine=True)
        if not tasks:
            return None
        person, task = rng.choice(tasks)
        user = [
            f"I've done \"{task['title']}\" for {person['name']}'s onboarding. Mark it complete.",
            f"Tick off \"{task['title']}\" on {person['name']}'s onboarding checklist.",
        ]
        return Draft(family=self.name, key=f"task:{task['id']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", person),
            {"id": "c2", "tool": "get_onboarding_checklist", "bind": {"employee_id": _emp("c1")}},
            {"id": "c3", "tool": "complete_onboarding_task", "bind": {"task_id": f"{{c2.tasks.{task['index']}.id}}"}},
        ], "facts": []}], checks=[*_one("c1"), f"{{c2.tasks.{task['index']}.title}} == {task['title']!r}"])


def _leavers(view: WorldView) -> list[Row]:
    heads = {d["head_id"] for d in view.read(SERVER, "list_departments")["departments"]}
    people = [p for p in _people(view, status="active") if p["id"] != ME and p["id"] not in heads]
    return [p for p in _unique(view, people)
            if not view.read(SERVER, "search_employees", manager_id=p["id"], status="active", per_page=1)["total"]
            and not view.read(SERVER, "search_employees", manager_id=p["id"], status="on_leave", per_page=1)["total"]]


class RecordExit(Family):
    """Record a resignation effective today."""

    name = "hr.record-exit"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = rng.choice(_leavers(view))
        reason = rng.choice(EXIT_REASONS)
        user = [
            f"{person['name']} has left the company today. Record the termination with the reason \"{reason}\".",
            f"Please process {person['name']}'s exit effective today; reason: \"{reason}\".",
        ]
        return Draft(family=self.name, key=f"employee:{person['id']}|{reason}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", person),
            {"id": "c2", "tool": "terminate_employee", "arguments": {"reason": reason}, "bind": {"employee_id": _emp("c1")}},
        ], "facts": []}], checks=_one("c1"))


# ---------------------------------------------------------------- two turns


class BalanceThenBook(Family):
    """Two turns: my remaining vacation this year, then book a few days of it."""

    name = "hr.balance-then-book"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        days = rng.randint(1, 3)
        window = _free_window(view, rng, ME, days)
        if window is None:
            return None
        start, end = window
        if _remaining(view, ME, start.year, "vacation") < days:
            return None
        first = [f"How many vacation days do I have left in {start.year}?",
                 f"What's my remaining vacation balance for {start.year}?"]
        second = [f"Great, book me vacation from {start} to {end}.", f"Then please request vacation for me, {start} to {end}."]
        return Draft(family=self.name, key=f"me|{start}", writes=True, turns=[
            {"user": first, "calls": [
                {"id": "c1", "tool": "get_time_off_balance", "arguments": {"employee_id": ME, "year": start.year}},
            ], "facts": [{"name": "vacation days left", "expr": "{c1.balances.0.remaining_days}", "value": None}]},
            {"user": second, "calls": [
                {"id": "c2", "tool": "request_time_off", "arguments": {"employee_id": ME, "policy": "vacation",
                                                                       "start_date": str(start), "end_date": str(end)}},
            ], "facts": []},
        ], checks=["{c1.balances.0.policy} == 'vacation'"])


class OutThenDeny(Family):
    """Two turns: who of my team is out when a report wants leave, then deny the request."""

    name = "hr.coverage-then-deny"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _my_pending(view, rng)
        if picked is None:
            return None
        person, request = picked
        start, end, name = request["start_date"], request["end_date"], person["name"]
        reason = "Too many of the People team are out then"
        first = [f"{name} wants time off from {start} to {end}. Including pending requests, how many people in the "
                 "People department would be out during that period?",
                 f"Between {start} and {end}, counting pending requests too, how many of the People team are off? "
                 f"({name} has asked for those days.)"]
        second = [f"Then deny {name}'s request with the reason \"{reason}\".",
                  f"OK, please deny it. Reason: \"{reason}\"."]
        return Draft(family=self.name, key=f"request:{request['id']}", writes=True, turns=[
            {"user": first, "calls": [
                {"id": "c1", "tool": "list_departments"},
                {"id": "c2", "tool": "who_is_out", "arguments": {"start_date": start, "end_date": end,
                                                                 "include_pending": True},
                 "bind": {"department_id": "{c1.departments.1.id}"}},
            ], "facts": [{"name": "people out", "expr": "{c2.people_out}", "value": None}]},
            {"user": second, "calls": [
                _find("c3", person),
                _request_calls("c4", "c3", request, "pending"),
                {"id": "c5", "tool": "deny_time_off_request", "arguments": {"reason": reason},
                 "bind": {"request_id": "{c4.requests.0.id}"}},
            ], "facts": []},
        ], checks=["{c1.departments.1.name} == 'People'", *_one("c3", "c4")])


# ---------------------------------------------------------------- refusals


class OverBalance(Family):
    """Asked to book more personal days than remain: refuse, and say how many are left."""

    name = "hr.over-balance"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = rng.choice(_unique(view, _people(view, status="active")))
        year = _today(view).year
        left = _remaining(view, person["id"], year, "personal")
        days = left + rng.randint(1, 3)
        window = _free_window(view, rng, person["id"], days)
        if window is None or window[0].year != year:
            return None
        start, end = window
        user = [
            f"Book personal days for {person['name']} from {start} to {end}. If that's not possible, tell me how "
            "many personal days they have left this year.",
            f"File a personal-leave request for {person['name']}, {start} through {end}; if it can't be done, "
            "how many personal days remain for them?",
        ]
        return Draft(family=self.name, key=f"employee:{person['id']}|{start}", turns=[{"user": user, "calls": [
            _find("c1", person),
            {"id": "c2", "tool": "get_time_off_balance", "arguments": {"year": year}, "bind": {"employee_id": _emp("c1")}},
        ], "facts": [{"name": "personal days left", "expr": "{c2.balances.2.remaining_days}", "value": None}]}],
            checks=[*_one("c1"), "{c2.balances.2.policy} == 'personal'"])


class ApproveOthersReport(Family):
    """Asked to approve a request of someone who is not my report: refuse, name the approver."""

    name = "hr.approve-others-report"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        rows = [r for r in _pending_of(view, mine=False) if len(_unique(view, [{"name": r["employee_name"]}])) == 1]
        request = rng.choice(rows)
        person, start = {"name": request["employee_name"]}, request["start_date"]
        user = [
            f"Approve {person['name']}'s time off starting {start}. If you can't, tell me who has to approve it.",
            f"Please approve the leave {person['name']} requested from {start}, or tell me who the approver is if I'm not allowed.",
        ]
        return Draft(family=self.name, key=f"request:{request['id']}", turns=[{"user": user, "calls": [
            _find("c1", person),
        ], "facts": [{"name": "approver", "expr": "{c1.employees.0.manager_name}", "value": None}]}], checks=_one("c1"))


class CancelStarted(Family):
    """Asked to cancel time off that has already started or ended: refuse, give its last day."""

    name = "hr.cancel-started"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        today = _today(view)
        rows = [r for r in _requests(view, status="approved", start_from=str(today - timedelta(days=60)),
                                     start_to=str(today + timedelta(days=1)))]
        if not rows:
            return None
        request = rng.choice(rows)
        person = {"name": request["employee_name"]}
        if len(_unique(view, [person])) != 1:
            return None
        start = request["start_date"]
        user = [
            f"Cancel {person['name']}'s time off that started on {start}. If that can't be done, tell me its last day.",
            f"Please withdraw {person['name']}'s leave beginning {start}; if it's not possible, when does that leave end?",
        ]
        return Draft(family=self.name, key=f"request:{request['id']}", turns=[{"user": user, "calls": [
            _find("c1", person),
            _request_calls("c2", "c1", request, "approved"),
        ], "facts": [{"name": "last day", "expr": "{c2.requests.0.end_date}", "value": None}]}], checks=_one("c1", "c2"))


class OverlappingRequest(Family):
    """Asked to book days that overlap approved time off: refuse, give the existing dates."""

    name = "hr.overlapping-request"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        today = _today(view)
        rows = [r for r in _requests(view, status="approved", start_from=str(today + timedelta(days=2)))
                if r["policy"] == "vacation"]
        if not rows:
            return None
        request = rng.choice(rows)
        person = {"name": request["employee_name"]}
        if len(_unique(view, [person])) != 1:
            return None
        start = date.fromisoformat(request["end_date"])
        end = start + timedelta(days=rng.randint(0, 2))
        if end.weekday() >= 5 or end.year != start.year:
            return None
        user = [
            f"Book vacation for {person['name']} from {start} to {end}. If it clashes with something, tell me the "
            "dates of the time off they already have.",
            f"Request vacation for {person['name']}, {start} through {end}; if that's refused, what existing time "
            "off is in the way (first and last day)?",
        ]
        return Draft(family=self.name, key=f"request:{request['id']}", turns=[{"user": user, "calls": [
            _find("c1", person),
            {"id": "c2", "tool": "search_time_off_requests", "arguments": {
                "status": "approved", "start_from": request["start_date"],
                "start_to": str(date.fromisoformat(request["start_date"]) + timedelta(days=1))},
             "bind": {"employee_id": _emp("c1")}},
        ], "facts": [
            {"name": "existing first day", "expr": "{c2.requests.0.start_date}", "value": None},
            {"name": "existing last day", "expr": "{c2.requests.0.end_date}", "value": None},
        ]}], checks=_one("c1", "c2"))


class StatementToManager(Family):
    """Asked to send someone's salary statement to their (non-HR) manager: refuse."""

    name = "hr.statement-to-manager"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        people = [p for p in _unique(view, _people(view, status="active")) if p["manager_id"] not in (None, ME)]
        person = rng.choice(people)
        manager = view.read(SERVER, "get_employee", employee_id=person["manager_id"])
        if manager["hr_role"] != "none":
            return None
        user = [
            f"Send {person['name']}'s compensation statement to their manager. If that's not allowed, just tell me "
            "who their manager is.",
            f"Share {person['name']}'s salary statement with the person they report to; if you can't, name that manager.",
        ]
        return Draft(family=self.name, key=f"employee:{person['id']}", turns=[{"user": user, "calls": [
            _find("c1", person),
            {"id": "c2", "tool": "get_employee", "bind": {"employee_id": "{c1.employees.0.manager_id}"}},
        ], "facts": [{"name": "manager", "expr": "{c2.name}", "value": None}]}], checks=_one("c1"))


class OwnRaise(Family):
    """Asked to raise my own salary: refuse, and state my current salary."""

    name = "hr.own-raise"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        pay = view.read(SERVER, "get_compensation", employee_id=ME)
        new = pay["salary_cents"] + rng.choice((500_000, 800_000, 1_000_000))
        user = [
            f"Set my own salary to {_dollars(new)} effective today. If you can't, tell me what my salary is now.",
            f"Give me a raise to {_dollars(new)}. If that's not permitted, what's my current base salary?",
        ]
        return Draft(family=self.name, key=f"me|{new}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_compensation", "arguments": {"employee_id": ME}},
        ], "facts": [{"name": "my salary (cents)", "expr": "{c1.salary_cents}", "value": None}]}])


class RaiseAboveBand(Family):
    """Asked for a salary above the level's band: refuse, and give the band maximum."""

    name = "hr.raise-above-band"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = rng.choice([p for p in _unique(view, _people(view, status="active")) if p["id"] != ME])
        pay = view.read(SERVER, "get_compensation", employee_id=person["id"])
        new = pay["band_max_cents"] + rng.choice((500_000, 1_000_000, 2_000_000))
        user = [
            f"Raise {person['name']}'s salary to {_dollars(new)} as a market adjustment. If that's not possible, "
            "tell me the most their level allows.",
            f"Set {person['name']}'s base pay to {_dollars(new)} (market adjustment); if it can't be done, what's "
            "the top of their pay band?",
        ]
        return Draft(family=self.name, key=f"employee:{person['id']}|{new}", turns=[{"user": user, "calls": [
            _find("c1", person),
            {"id": "c2", "tool": "get_compensation", "bind": {"employee_id": _emp("c1")}},
        ], "facts": [{"name": "band max (cents)", "expr": "{c2.band_max_cents}", "value": None}]}], checks=_one("c1"))


class TerminatedRecord(Family):
    """Asked to book time off for someone who left: refuse, and give their last day."""

    name = "hr.terminated-record"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        gone = _unique(view, _people(view, status="terminated"))
        if not gone:
            return None
        person = rng.choice(gone)
        start = _today(view) + timedelta(days=14 - _today(view).weekday())
        user = [
            f"Book a vacation day for {person['name']} on {start}. If you can't, tell me when they left the company.",
            f"Request one day of vacation for {person['name']} on {start}; if that's refused, what was their termination date?",
        ]
        return Draft(family=self.name, key=f"employee:{person['id']}", turns=[{"user": user, "calls": [
            _find("c1", person),
            {"id": "c2", "tool": "get_employee", "bind": {"employee_id": _emp("c1")}},
        ], "facts": [{"name": "termination date", "expr": "{c2.termination_date}", "value": None}]}], checks=_one("c1"))


class ManagerLoop(Family):
    """Asked to make a manager report to one of their own reports: refuse, say whom they report to."""

    name = "hr.manager-loop"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        managers = [p for p in _unique(view, _people(view, status="active")) if p["manager_id"] is not None
                    and p["id"] != ME]
        rng.shuffle(managers)
        for manager in managers:
            reports = _unique(view, _people(view, manager_id=manager["id"], status="active"))
            if reports:
                report = rng.choice(reports)
                break
        else:
            return None
        user = [
            f"Make {manager['name']} report to {report['name']}. If that isn't allowed, tell me who {manager['name']} "
            "reports to now.",
            f"Change {manager['name']}'s manager to {report['name']}; if you can't, who is {manager['name']}'s current manager?",
        ]
        return Draft(family=self.name, key=f"{manager['id']}>{report['id']}", turns=[{"user": user, "calls": [
            _find("c1", manager),
            _find("c2", report),
        ], "facts": [{"name": "current manager", "expr": "{c1.employees.0.manager_name}", "value": None}]}],
            checks=[*_one("c1", "c2"), f"{{c2.employees.0.manager_id}} == {{c1.employees.0.id}}"])


class TerminateManager(Family):
    """Asked to terminate someone who still has direct reports: refuse, say how many."""

    name = "hr.terminate-manager"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        managers = [p for p in _unique(view, _people(view, status="active")) if p["id"] != ME
                    and view.read(SERVER, "get_employee", employee_id=p["id"])["direct_report_count"]]
        person = rng.choice(managers)
        user = [
            f"{person['name']} is leaving today; record the termination (reason: resigned). If you can't, tell me "
            "how many direct reports they have.",
            f"Terminate {person['name']} effective today, reason \"Resigned\"; if that's blocked, how many people "
            "report directly to them?",
        ]
        return Draft(family=self.name, key=f"employee:{person['id']}", turns=[{"user": user, "calls": [
            _find("c1", person),
            {"id": "c2", "tool": "get_employee", "bind": {"employee_id": _emp("c1")}},
        ], "facts": [{"name": "direct reports", "expr": "{c2.direct_report_count}", "value": None}]}], checks=_one("c1"))


class SubmitOthersReview(Family):
    """Asked to submit a review someone else writes: refuse, and name the reviewer."""

    name = "hr.submit-others-review"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        drafts = [r for r in view.read(SERVER, "list_performance_reviews", status="draft", per_page=100)["reviews"]
                  if r["reviewer_id"] != ME]
        review = rng.choice(drafts)
        person = {"name": review["employee_name"]}
        if len(_unique(view, [person])) != 1:
            return None
        cycle = review["cycle"]
        user = [
            f"Submit {person['name']}'s {cycle} review with a rating of 4 and the summary \"Solid year, met every goal.\" "
            "If I'm not allowed to, tell me who writes it.",
            f"File the {cycle} review of {person['name']}: rating 4, \"Solid year, met every goal.\" If that's not "
            "permitted, who is the reviewer?",
        ]
        return Draft(family=self.name, key=f"review:{review['id']}", turns=[{"user": user, "calls": [
            _find("c1", person),
            {"id": "c2", "tool": "list_performance_reviews", "arguments": {"cycle": cycle}, "bind": {"employee_id": _emp("c1")}},
        ], "facts": [{"name": "reviewer", "expr": "{c2.reviews.0.reviewer_name}", "value": None}]}],
            checks=_one("c1", "c2"))


class CompleteOthersTask(Family):
    """Asked to tick off an onboarding task assigned to someone else: refuse, name the assignee."""

    name = "hr.complete-others-task"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        tasks = _tasks(view, mine=False)
        if not tasks:
            return None
        person, task = rng.choice(tasks)
        index = task["index"]
        user = [
            f"Mark \"{task['title']}\" as done on {person['name']}'s onboarding checklist. If I can't, tell me who "
            "it's assigned to.",
            f"Tick off \"{task['title']}\" for {person['name']}'s onboarding; if that's not allowed, whose task is it?",
        ]
        return Draft(family=self.name, key=f"task:{task['id']}", turns=[{"user": user, "calls": [
            _find("c1", person),
            {"id": "c2", "tool": "get_onboarding_checklist", "bind": {"employee_id": _emp("c1")}},
        ], "facts": [{"name": "assignee", "expr": f"{{c2.tasks.{index}.assignee_name}}", "value": None}]}],
            checks=[*_one("c1"), f"{{c2.tasks.{index}.title}} == {task['title']!r}"])


# ---------------------------------------------------------------- across servers


class ManagerDm(Family):
    """Message a colleague's manager (found in HR) on chat."""

    name = "cross.hr-manager-dm"
    servers = (SERVER, "chat")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        people = [p for p in _unique(view, _people(view, status="active")) if p["manager_id"] not in (None,)]
        person = rng.choice(people)
        manager = view.read(SERVER, "get_employee", employee_id=person["manager_id"])
        if view.read("chat", "get_user_by_email", email=manager["email"])["id"] == 1:
            return None
        text = rng.choice(DM_TEXTS)
        user = [
            f"Send {person['name']}'s manager a direct message on Slack: \"{text}\"",
            f"Find out who {person['name']} reports to and DM them in chat: \"{text}\"",
        ]
        return Draft(family=self.name, key=f"employee:{person['id']}|{text}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "server": SERVER, "tool": "search_employees", "arguments": {"query": person["name"]}},
            {"id": "c2", "server": SERVER, "tool": "get_employee", "bind": {"employee_id": "{c1.employees.0.id}"}},
            {"id": "c3", "server": "chat", "tool": "get_user_by_email", "bind": {"email": "{c2.manager_email}"}},
            {"id": "c4", "server": "chat", "tool": "send_dm", "arguments": {"text": text}, "bind": {"user_ids": "[{c3.id}]"}},
        ], "facts": []}], checks=_one("c1"))


HR_FAMILIES: tuple[Family, ...] = (
    ManagerByEmail(), ReportingChain(), DepartmentHead(), SalaryInBand(), LevelBand(), DepartmentPayroll(),
    VacationLeft(), WhoIsOut(), MyApprovals(), RequestApprover(), ReviewRating(), OnboardingProgress(),
    BookTimeOff(), ApproveRequest(), DenyRequest(), CancelRequest(), RaiseWithinBand(), ShareStatement(), Reassign(),
    SubmitReview(), CompleteOnboardingTask(), RecordExit(),
    BalanceThenBook(), OutThenDeny(),
    OverBalance(), ApproveOthersReport(), CancelStarted(), OverlappingRequest(), StatementToManager(), OwnRaise(),
    RaiseAboveBand(), TerminatedRecord(), ManagerLoop(), TerminateManager(), SubmitOthersReview(), CompleteOthersTask(),
    ManagerDm(),
)
