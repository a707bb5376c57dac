"""Expenses task families: a report's status and approver, categories and limits, spend by
category, employee and month, reimbursements, the approval queue; filing, correcting,
submitting, deleting and reopening your own reports; approving, rejecting and paying out your
team's; refusals for each rule of the expense policy; two-turn follow-ups; a trip's airfare
matched with its Meridian Air booking, a report's approver as HR knows them, and a chat message
to the submitter of an approved report.

A user names a report by its number (ER-10042) or, for their own, by its title; people by name
or email; amounts in dollars (facts are `{..._cents} / 100`).
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from mcpgym.synth.family import Draft, Family, WorldView, month_name, previous_month

SERVER = "expenses"

Row = dict[str, Any]
Call = dict[str, Any]

NEW_REPORTS = (
    ("Client visit Chicago", "Renewal meeting with a customer in Chicago", "ground_transport", "Lyft", 3_450, "Ride to the customer"),
    ("Team lunch", "Lunch with the team after the quarterly planning", "meals", "Cava", 6_120, "Team lunch"),
    ("Design tool license", "Design tool for the new landing pages", "software", "Figma", 4_500, "Figma seat, one month"),
    ("Printer supplies", "Toner and paper for the office printer", "office_supplies", "Staples", 5_899, "Toner and paper"),
    ("Phone bill", "Work phone bill of last month", "phone_internet", "Verizon Wireless", 6_400, "Monthly phone bill"),
)
REJECT_REASONS = ("Please add the names of the attendees.", "Attach the itemised receipt, please.",
                  "This belongs on the project budget; talk to me first.")
RENAMES = ("Offsite supplies and lunch", "Workshop preparation costs", "Q4 team expenses", "Customer workshop materials")
CLEAN_DRAFTS = ("Team offsite supplies", "Customer workshop prep")


def _dollars(ref: str) -> str:
    return f"{ref} / 100"


def _usd(cents: int) -> str:
    return f"${cents / 100:,.2f}"


# ---------------------------------------------------------------- sampling helpers


def _me(view: WorldView) -> Row:
    return view.read(SERVER, "get_my_profile")


def _reports(view: WorldView, **filters: Any) -> list[Row]:
    return view.read(SERVER, "search_reports", **{"per_page": 100, **filters})["reports"]


def _mine(view: WorldView, status: str) -> list[Row]:
    return _reports(view, employee_id=_me(view)["id"], status=[status])


def _my_report_calls(title: str, status: str) -> list[Call]:
    """c1 who you are, c2 your report of that title and status."""
    return [
        {"id": "c1", "tool": "get_my_profile", "arguments": {}},
        {"id": "c2", "tool": "search_reports", "arguments": {"query": title, "status": [status], "per_page": 5},
         "bind": {"employee_id": "{c1.id}"}},
    ]


def _by_number(call_id: str, report: Row) -> Call:
    return {"id": call_id, "tool": "get_report_by_number", "arguments": {"number": report["number"]}}


def _employees(view: WorldView) -> list[Row]:
    return view.read(SERVER, "list_employees", per_page=100)["employees"]


def _months(view: WorldView, back: int = 12) -> list[tuple[int, int]]:
    return [previous_month(view.now.year, view.now.month, n) for n in range(back, 0, -1)]


def _month_range(year: int, month: int) -> tuple[str, str]:
    first = date(year, month, 1)
    last = (first.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)
    return str(first), str(last)


def _quarters(view: WorldView) -> list[tuple[str, str, str]]:
    """Whole quarters of the past year: (label, first day, last day)."""
    found = []
    for year in (view.now.year - 1, view.now.year):
        for q in range(4):
            first = date(year, 3 * q + 1, 1)
            last = (date(year, 3 * q + 3, 28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)
            if last < view.now.date() and first > view.now.date() - timedelta(days=400):
                found.append((f"Q{q + 1} {year}", str(first), str(last)))
    return found


def _pending(view: WorldView) -> list[Row]:
    return view.read(SERVER, "list_pending_approvals", per_page=100)["reports"]


# ---------------------------------------------------------------- lookups and reports


class ReportStatus(Family):
    """The status of a report by number, its total and who submitted it."""

    name = "expenses.report-status"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        report = rng.choice(_reports(view, page=rng.randint(1, 4)))
        number = report["number"]
        user = [
            f"What's the status of expense report {number}, who filed it and what's its total in dollars?",
            f"Look up report {number}: its status, the submitter and the total amount.",
            f"Can you check expense report {number} for me? I need the status, whose it is and how much it comes to.",
        ]
        return Draft(family=self.name, key=f"report:{number}", turns=[{"user": user, "calls": [_by_number("c1", report)], "facts": [
            {"name": "status", "expr": "{c1.status}", "value": None},
            {"name": "submitter", "expr": "{c1.employee_name}", "value": None},
            {"name": "total (USD)", "expr": _dollars("{c1.total_cents}"), "value": None},
        ]}])


class MyApprover(Family):
    """Who approves your reports and how many of yours wait for approval."""

    name = "expenses.my-approver"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        user = [
            "Who approves my expense reports, and how many of my reports are currently waiting for approval?",
            "Remind me who signs off my expenses. Also, how many of my reports are submitted and not decided yet?",
        ]
        return Draft(family=self.name, key="me", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_my_profile", "arguments": {}},
        ], "facts": [
            {"name": "approver", "expr": "{c1.approver_name}", "value": None},
            {"name": "reports waiting", "expr": "{c1.my_reports_by_status.submitted}", "value": None},
        ]}])


class ColleagueApprover(Family):
    """Who approves a colleague's reports, found by email, and their department."""

    name = "expenses.colleague-approver"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = rng.choice([e for e in _employees(view) if e["approver_name"] and not e["is_you"]])
        email = person["email"]
        user = [
            f"Who approves the expense reports of {email}, and which department is {email} in?",
            f"I need to know who signs off expenses for {email} and that person's department.",
        ]
        return Draft(family=self.name, key=f"employee:{email}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_employee_by_email", "arguments": {"email": email}},
        ], "facts": [
            {"name": "approver", "expr": "{c1.approver_name}", "value": None},
            {"name": "department", "expr": "{c1.department}", "value": None},
        ]}])


class SubmitterCostCenter(Family):
    """The department and cost center of a report's submitter."""

    name = "expenses.submitter-cost-center"
    servers = (SERVER,)
    kind = "drill-down"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        report = rng.choice(_reports(view, page=rng.randint(1, 4)))
        number = report["number"]
        user = [
            f"Which cost center should report {number} be booked to? Give me the submitter's department and cost center.",
            f"For expense report {number}: who submitted it, what department are they in, and what's their cost center?",
        ]
        return Draft(family=self.name, key=f"report:{number}", turns=[{"user": user, "calls": [
            _by_number("c1", report),
            {"id": "c2", "tool": "get_employee", "bind": {"employee_id": "{c1.employee_id}"}},
        ], "facts": [
            {"name": "department", "expr": "{c2.department}", "value": None},
            {"name": "cost center", "expr": "{c2.cost_center}", "value": None},
        ]}])


class EmployeeMonthReports(Family):
    """How many reports a colleague created in a month and their combined total."""

    name = "expenses.employee-month-reports"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = rng.choice(_employees(view))
        year, month = rng.choice(_months(view))
        start, end = _month_range(year, month)
        found = view.read(SERVER, "search_reports", employee_id=person["id"], created_after=start, created_before=end, per_page=1)
        if not found["total"]:
            return None
        name, when = person["name"], month_name(year, month)
        user = [
            f"How many expense reports did {name} create in {when}, and what do they add up to in dollars?",
            f"Count {name}'s expense reports from {when} and give me their combined total.",
        ]
        return Draft(family=self.name, key=f"{name}|{when}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_employees", "arguments": {"query": name, "per_page": 2}},
            {"id": "c2", "tool": "search_reports", "arguments": {"created_after": start, "created_before": end, "per_page": 1},
             "bind": {"employee_id": "{c1.employees.0.id}"}},
        ], "facts": [
            {"name": "reports", "expr": "{c2.total}", "value": None},
            {"name": "combined total (USD)", "expr": _dollars("{c2.total_cents}"), "value": None},
        ]}], checks=["{c1.total} == 1"])


class CategoryLimit(Family):
    """A category's limit and how it applies, and the receipt threshold."""

    name = "expenses.category-limit"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        categories = view.read(SERVER, "list_categories")["categories"]
        index = rng.choice([i for i, c in enumerate(categories) if c["limit_cents"] is not None])
        name = categories[index]["name"]
        user = [
            f"What's the expense limit for {name.lower()}, is it per item, per day or per night, and above what amount do I need a receipt?",
            f"Before I file: how much can I spend on {name.lower()} under the policy (and on what basis), and what's the receipt threshold?",
        ]
        return Draft(family=self.name, key=f"category:{name}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_categories", "arguments": {}},
        ], "facts": [
            {"name": f"{name} limit (USD)", "expr": _dollars(f"{{c1.categories.{index}.limit_cents}}"), "value": None},
            {"name": "basis", "expr": f"{{c1.categories.{index}.limit_basis}}", "value": None},
            {"name": "receipt threshold (USD)", "expr": _dollars("{c1.receipt_threshold_cents}"), "value": None},
        ]}])


class QuarterTopCategory(Family):
    """The category with the most approved spend in a quarter, and the quarter's total."""

    name = "expenses.quarter-top-category"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        label, start, end = rng.choice(_quarters(view))
        args = {"group_by": "category", "date_from": start, "date_to": end, "limit": 2}
        user = [
            f"In {label}, which expense category had the most approved spend, how much was it, and what was the total across all categories?",
            f"Spend report for {label} (approved and reimbursed expenses): the top category with its amount, plus the overall total.",
        ]
        return Draft(family=self.name, key=f"quarter:{label}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "spending_summary", "arguments": args},
        ], "facts": [
            {"name": "top category", "expr": "{c1.groups.0.key}", "value": None},
            {"name": "its spend (USD)", "expr": _dollars("{c1.groups.0.usd_cents}"), "value": None},
            {"name": "total (USD)", "expr": _dollars("{c1.usd_cents}"), "value": None},
        ]}], checks=["len({c1.groups}) > 1", "{c1.groups.0.usd_cents} != {c1.groups.1.usd_cents}"])


class DepartmentTopSpender(Family):
    """Who in a department spent the most over some months."""

    name = "expenses.department-top-spender"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        departments = sorted({e["department"] for e in _employees(view)})
        department = rng.choice(departments)
        months = _months(view)
        first = rng.randrange(len(months) - 3)
        (y0, m0), (y1, m1) = months[first], months[first + 2]
        start, end = _month_range(y0, m0)[0], _month_range(y1, m1)[1]
        span = f"{month_name(y0, m0)} through {month_name(y1, m1)}"
        args = {"group_by": "employee", "department": department, "date_from": start, "date_to": end, "limit": 2}
        if len(view.read(SERVER, "spending_summary", **args)["groups"]) < 2:
            return None
        user = [
            f"Who in {department} had the highest approved expenses from {span}, and how much?",
            f"Top spender of the {department} department, {span} (approved or reimbursed expenses): name and amount.",
        ]
        return Draft(family=self.name, key=f"{department}|{span}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "spending_summary", "arguments": args},
        ], "facts": [
            {"name": "top spender", "expr": "{c1.groups.0.key}", "value": None},
            {"name": "amount (USD)", "expr": _dollars("{c1.groups.0.usd_cents}"), "value": None},
        ]}], checks=["{c1.groups.0.usd_cents} != {c1.groups.1.usd_cents}"])


class ReimbursedTo(Family):
    """How much was paid back to a colleague since a month, and in how many payments."""

    name = "expenses.reimbursed-to"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = rng.choice(_employees(view))
        year, month = rng.choice(_months(view))
        start, _ = _month_range(year, month)
        if not view.read(SERVER, "list_reimbursements", employee_id=person["id"], paid_after=start, per_page=1)["total"]:
            return None
        name, when = person["name"], month_name(year, month)
        user = [
            f"How much have we reimbursed {name} since the start of {when}, and in how many payments?",
            f"Total expense reimbursements paid to {name} from {when} on: the amount and the number of payments.",
        ]
        return Draft(family=self.name, key=f"{name}|{when}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_employees", "arguments": {"query": name, "per_page": 2}},
            {"id": "c2", "tool": "list_reimbursements", "arguments": {"paid_after": start, "per_page": 1},
             "bind": {"employee_id": "{c1.employees.0.id}"}},
        ], "facts": [
            {"name": "amount (USD)", "expr": _dollars("{c2.amount_cents}"), "value": None},
            {"name": "payments", "expr": "{c2.total}", "value": None},
        ]}], checks=["{c1.total} == 1"])


class ApprovalQueue(Family):
    """How many reports wait for your approval and whose has waited longest."""

    name = "expenses.approval-queue"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        if len(_pending(view)) < 2:
            return None
        user = [
            "How many expense reports are waiting for my approval, and whose has been waiting the longest?",
            "What's in my approval queue? Give me the count and the submitter of the oldest one.",
        ]
        return Draft(family=self.name, key="queue", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_pending_approvals", "arguments": {"per_page": 2}},
        ], "facts": [
            {"name": "waiting", "expr": "{c1.total}", "value": None},
            {"name": "oldest from", "expr": "{c1.reports.0.employee_name}", "value": None},
        ]}], checks=["{c1.reports.0.submitted_at} != {c1.reports.1.submitted_at}"])


class OverLimitItems(Family):
    """A colleague's items over their category limit in a period, and the largest."""

    name = "expenses.over-limit-items"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = rng.choice(_employees(view))
        year, month = rng.choice(_months(view)[:-3])
        start = _month_range(year, month)[0]
        args = {"over_limit": True, "date_from": start, "sort_by": "usd_cents", "per_page": 2}
        found = view.read(SERVER, "search_items", employee_id=person["id"], **args)
        if not found["total"]:
            return None
        name, when = person["name"], month_name(year, month)
        user = [
            f"Since {when}, how many of {name}'s expenses went over their category limit, and which merchant was the biggest of them?",
            f"Over-limit expenses of {name} from {when} on: how many, and the merchant of the largest one?",
        ]
        return Draft(family=self.name, key=f"{name}|{when}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_employees", "arguments": {"query": name, "per_page": 2}},
            {"id": "c2", "tool": "search_items", "arguments": args, "bind": {"employee_id": "{c1.employees.0.id}"}},
        ], "facts": [
            {"name": "over-limit items", "expr": "{c2.total}", "value": None},
            {"name": "largest at", "expr": "{c2.items.0.merchant}", "value": None},
        ]}], checks=["{c1.total} == 1", "{c2.total} == 1 or {c2.items.0.usd_cents} != {c2.items.1.usd_cents}"])


class FlightClaimed(Family):
    """Which report claimed a Meridian Air booking, and for how much."""

    name = "expenses.flight-claimed"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        items = view.read(SERVER, "search_items", category="airfare", per_page=50, page=rng.randint(1, 4))["items"]
        if not items:
            return None
        pnr = rng.choice(items)["flight_pnr"]
        user = [
            f"Was the Meridian Air booking {pnr} expensed? Which report claimed it and for how much?",
            f"Find the expense for flight booking {pnr}: the report number and the amount in dollars.",
        ]
        return Draft(family=self.name, key=f"pnr:{pnr}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_items", "arguments": {"flight_pnr": pnr}},
        ], "facts": [
            {"name": "report", "expr": "{c1.items.0.report_number}", "value": None},
            {"name": "amount (USD)", "expr": _dollars("{c1.items.0.usd_cents}"), "value": None},
        ]}], checks=["{c1.total} == 1"])


class WhyRejected(Family):
    """Why your rejected report was rejected and by whom."""

    name = "expenses.why-rejected"
    servers = (SERVER,)
    kind = "drill-down"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        rejected = _mine(view, "rejected")
        if len(rejected) != 1:
            return None
        user = [
            "One of my expense reports got rejected. Which one, who rejected it and why?",
            "Tell me about my rejected expense report: its title, who rejected it, and the reason given.",
        ]
        return Draft(family=self.name, key="my-rejected", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_my_profile", "arguments": {}},
            {"id": "c2", "tool": "search_reports", "arguments": {"status": ["rejected"]}, "bind": {"employee_id": "{c1.id}"}},
            {"id": "c3", "tool": "get_report", "bind": {"report_id": "{c2.reports.0.id}"}},
        ], "facts": [
            {"name": "report", "expr": "{c3.title}", "value": None},
            {"name": "rejected by", "expr": "{c3.approver_name}", "value": None},
            {"name": "reason", "expr": "{c3.rejection_reason}", "value": None},
        ]}], checks=["{c2.total} == 1"])


class ReadyToSubmit(Family):
    """Whether one of your drafts can be submitted, and the first problem if not."""

    name = "expenses.ready-to-submit"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        drafts = [r for r in _mine(view, "draft") if r["item_count"]]
        report = rng.choice(drafts)
        title = report["title"]
        check = view.read(SERVER, "check_report", report_id=report["id"])
        user = [
            f"Is my draft report \"{title}\" ready to submit? If not, what's the problem?",
            f"Check my \"{title}\" expense report against the policy: can it be submitted as it is?",
        ]
        calls = [*_my_report_calls(title, "draft"),
                 {"id": "c3", "tool": "check_report", "bind": {"report_id": "{c2.reports.0.id}"}}]
        facts = [{"name": "can submit", "expr": "{c3.can_submit}", "value": None}]
        checks = ["{c2.total} == 1"]
        if check["violations"]:
            items = view.read(SERVER, "get_report", report_id=report["id"])["items"]
            index = next(i for i, item in enumerate(items) if item["id"] == check["violations"][0]["item_id"])
            calls.append({"id": "c4", "tool": "get_report", "bind": {"report_id": "{c2.reports.0.id}"}})
            facts.append({"name": "item at fault", "expr": f"{{c4.items.{index}.merchant}}", "value": None})
            checks.append(f"{{c4.items.{index}.id}} == {{c3.violations.0.item_id}}")
        return Draft(family=self.name, key=f"draft:{title}", turns=[{"user": user, "calls": calls, "facts": facts}],
                     checks=checks)


# ---------------------------------------------------------------- your own reports


def _my_drafts_with(view: WorldView, rule: str | None) -> list[Row]:
    """Your drafts whose policy check finds exactly one problem, of `rule` (None: no problem)."""
    found = []
    for report in _mine(view, "draft"):
        problems = view.read(SERVER, "check_report", report_id=report["id"])["violations"]
        if (rule is None and not problems) or (len(problems) == 1 and problems[0]["rule"] == rule):
            found.append(report)
    return found


def _unique_title(view: WorldView, report: Row) -> bool:
    """Whether a title search for `report` among your reports of its status finds it alone."""
    hits = view.read(SERVER, "search_reports", query=report["title"], employee_id=report["employee_id"],
                     status=[report["status"]], per_page=2)
    return bool(hits["total"] == 1)


class NewReport(Family):
    """Start a report and put its first expense on it."""

    name = "expenses.new-report"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        title, purpose, category, merchant, cents, text = rng.choice(NEW_REPORTS)
        day = str(view.now.date() - timedelta(days=rng.randint(1, 20)))
        user = [
            f"Create an expense report \"{title}\" (purpose: {purpose}) and add a {_usd(cents)} {category.replace('_', ' ')} "
            f"expense at {merchant} on {day}, described as \"{text}\".",
            f"New expense report please: title \"{title}\", business purpose \"{purpose}\". First item: {merchant}, {day}, "
            f"{_usd(cents)}, category {category.replace('_', ' ')}, description \"{text}\".",
        ]
        return Draft(family=self.name, key=f"{title}|{day}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "create_report", "arguments": {"title": title, "business_purpose": purpose}},
            {"id": "c2", "tool": "add_item", "arguments": {"expense_date": day, "merchant": merchant, "category": category,
                                                           "amount_cents": cents, "description": text},
             "bind": {"report_id": "{c1.id}"}},
        ], "facts": []}])


class SubmitDraft(Family):
    """Submit one of your drafts that meets the policy."""

    name = "expenses.submit-draft"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        ready = [r for r in _my_drafts_with(view, None) if _unique_title(view, r)]
        if not ready:
            return None
        title = rng.choice(ready)["title"]
        user = [
            f"Submit my expense report \"{title}\" for approval.",
            f"My \"{title}\" report is complete; please send it to my manager for approval.",
        ]
        return Draft(family=self.name, key=f"draft:{title}", writes=True, turns=[{"user": user, "calls": [
            *_my_report_calls(title, "draft"),
            {"id": "c3", "tool": "submit_report", "bind": {"report_id": "{c2.reports.0.id}"}},
        ], "facts": []}], checks=["{c2.total} == 1"])


class FixAndSubmit(Family):
    """Fix the one problem of a draft (a justification, a receipt, an expired expense) and submit it."""

    rule: str
    verb: str

    servers = (SERVER,)
    kind = "write"

    def fix(self, rng: random.Random) -> tuple[Call, str]:
        raise NotImplementedError

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        candidates = [r for r in _my_drafts_with(view, self.rule) if _unique_title(view, r)]
        if not candidates:
            return None
        title = rng.choice(candidates)["title"]
        call, how = self.fix(rng)
        user = [
            f"My report \"{title}\" can't be submitted yet because of one item. {how} Then submit the report.",
            f"Please get my \"{title}\" expense report through: {how[0].lower()}{how[1:]} After that, submit it.",
        ]
        return Draft(family=self.name, key=f"draft:{title}", writes=True, turns=[{"user": user, "calls": [
            *_my_report_calls(title, "draft"),
            {"id": "c3", "tool": "check_report", "bind": {"report_id": "{c2.reports.0.id}"}},
            call,
            {"id": "c5", "tool": "submit_report", "bind": {"report_id": "{c4.report_id}"}},
        ], "facts": []}], checks=["{c2.total} == 1", "len({c3.violations}) == 1"])


class JustifyAndSubmit(FixAndSubmit):
    name = "expenses.justify-and-submit"
    rule = "justification_required"

    def fix(self, rng: random.Random) -> tuple[Call, str]:
        text = rng.choice(("Dinner with six partner engineers after the workshop.", "Working dinner with the partner's team."))
        return ({"id": "c4", "tool": "update_item", "arguments": {"justification": text},
                 "bind": {"item_id": "{c3.violations.0.item_id}"}},
                f"Add this justification to the item that is over its limit: \"{text}\".")


class ReceiptAndSubmit(FixAndSubmit):
    name = "expenses.receipt-and-submit"
    rule = "receipt_required"

    def fix(self, rng: random.Random) -> tuple[Call, str]:
        file_name = rng.choice(("monitor-receipt.pdf", "bestbuy-invoice.pdf", "receipt-scan.jpg"))
        return ({"id": "c4", "tool": "attach_receipt", "arguments": {"file_name": file_name},
                 "bind": {"item_id": "{c3.violations.0.item_id}"}},
                f"Attach the receipt file {file_name} to the item that is missing its receipt.")


class DropExpiredAndSubmit(FixAndSubmit):
    name = "expenses.drop-expired-and-submit"
    rule = "expense_too_old"

    def fix(self, rng: random.Random) -> tuple[Call, str]:
        return ({"id": "c4", "tool": "remove_item", "bind": {"item_id": "{c3.violations.0.item_id}"}},
                "Remove the expense that is too old to claim.")


class RenameDraft(Family):
    """Give one of your drafts a new title."""

    name = "expenses.rename-draft"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        drafts = [r for r in _mine(view, "draft") if _unique_title(view, r)]
        report = rng.choice(drafts)
        title, new = report["title"], rng.choice(RENAMES)
        if new == title:
            return None
        user = [
            f"Rename my draft expense report \"{title}\" to \"{new}\".",
            f"Change the title of my \"{title}\" report to \"{new}\", please.",
        ]
        return Draft(family=self.name, key=f"{title}|{new}", writes=True, turns=[{"user": user, "calls": [
            *_my_report_calls(title, "draft"),
            {"id": "c3", "tool": "update_report", "arguments": {"title": new}, "bind": {"report_id": "{c2.reports.0.id}"}},
        ], "facts": []}], checks=["{c2.total} == 1"])


class DeleteDraft(Family):
    """Delete a draft of yours that was never submitted, and say how many items went with it."""

    name = "expenses.delete-draft"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        drafts = [r for r in _mine(view, "draft") if _unique_title(view, r) and not any(
            e["action"] == "submitted" for e in view.read(SERVER, "get_report", report_id=r["id"])["history"])]
        if not drafts:
            return None
        title = rng.choice(drafts)["title"]
        user = [
            f"Delete my draft expense report \"{title}\"; I won't need it. How many items did it have?",
            f"Throw away my \"{title}\" draft report and tell me how many expenses were on it.",
        ]
        return Draft(family=self.name, key=f"draft:{title}", writes=True, turns=[{"user": user, "calls": [
            *_my_report_calls(title, "draft"),
            {"id": "c3", "tool": "delete_report", "bind": {"report_id": "{c2.reports.0.id}"}},
        ], "facts": [{"name": "items deleted", "expr": "{c3.items_deleted}", "value": None}]}], checks=["{c2.total} == 1"])


class ReopenRejected(Family):
    """Reopen your rejected report and say why it was rejected."""

    name = "expenses.reopen-rejected"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        rejected = [r for r in _mine(view, "rejected") if _unique_title(view, r)]
        if not rejected:
            return None
        title = rng.choice(rejected)["title"]
        user = [
            f"My report \"{title}\" was rejected. Reopen it so I can fix it, and remind me of the reason it was rejected.",
            f"Put my rejected \"{title}\" report back into draft and tell me why it got rejected.",
        ]
        return Draft(family=self.name, key=f"rejected:{title}", writes=True, turns=[{"user": user, "calls": [
            *_my_report_calls(title, "rejected"),
            {"id": "c3", "tool": "reopen_report", "bind": {"report_id": "{c2.reports.0.id}"}},
        ], "facts": [{"name": "reason", "expr": "{c3.rejection_reason}", "value": None}]}], checks=["{c2.total} == 1"])


# ---------------------------------------------------------------- approving and paying out


class ApproveTeamReport(Family):
    """Approve a report waiting for you, named by its number."""

    name = "expenses.approve-team-report"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        report = rng.choice(_pending(view))
        number, who = report["number"], report["employee_name"]
        user = [
            f"Approve {who}'s expense report {number}.",
            f"Report {number} from {who} looks fine to me; approve it with the comment \"Thanks!\".",
        ]
        return Draft(family=self.name, key=f"report:{number}", writes=True, turns=[{"user": user, "calls": [
            _by_number("c1", report),
            {"id": "c2", "tool": "approve_report", "arguments": {"comment": "Thanks!"}, "bind": {"report_id": "{c1.id}"}},
        ], "facts": []}])


class RejectTeamReport(Family):
    """Reject a report waiting for you, with a reason."""

    name = "expenses.reject-team-report"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        report = rng.choice(_pending(view))
        number, who, reason = report["number"], report["employee_name"], rng.choice(REJECT_REASONS)
        user = [
            f"Reject expense report {number} from {who} with the reason \"{reason}\"",
            f"Send {who}'s report {number} back as rejected. Reason: \"{reason}\"",
        ]
        return Draft(family=self.name, key=f"report:{number}|{reason}", writes=True, turns=[{"user": user, "calls": [
            _by_number("c1", report),
            {"id": "c2", "tool": "reject_report", "arguments": {"reason": reason}, "bind": {"report_id": "{c1.id}"}},
        ], "facts": []}])


class ApproveIfSmall(Family):
    """Approve a waiting report if its total is under an amount, reject it otherwise; say the total."""

    name = "expenses.approve-if-small"
    servers = (SERVER,)
    kind = "conditional-write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        report = rng.choice(_pending(view))
        total = report["total_cents"]
        threshold = rng.choice((total // 2, total * 2)) // 10_000 * 100 + 100
        if threshold * 100 == total:
            return None
        small = total < threshold * 100
        number = report["number"]
        reason = f"Reports over ${threshold} need a conversation first."
        user = [
            f"Look at report {number}: if the total is under ${threshold}, approve it; otherwise reject it with the reason "
            f"\"{reason}\". Tell me the total either way.",
            f"For expense report {number}, approve it when it's below ${threshold}, else reject it saying \"{reason}\". "
            "What's its total?",
        ]
        decide = ({"id": "c2", "tool": "approve_report", "arguments": {}, "bind": {"report_id": "{c1.id}"}} if small else
                  {"id": "c2", "tool": "reject_report", "arguments": {"reason": reason}, "bind": {"report_id": "{c1.id}"}})
        return Draft(family=self.name, key=f"report:{number}|{threshold}", writes=True, turns=[{"user": user, "calls": [
            _by_number("c1", report), decide,
        ], "facts": [{"name": "total (USD)", "expr": _dollars("{c1.total_cents}"), "value": None}]}])


class ReimburseApproved(Family):
    """Record the reimbursement of an approved report of someone else."""

    name = "expenses.reimburse-approved"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        me = _me(view)["id"]
        approved = [r for r in _reports(view, status=["approved"]) if r["employee_id"] != me]
        report = rng.choice(approved)
        method = rng.choice(("ach", "payroll"))
        how = "by bank transfer (ACH)" if method == "ach" else "through payroll"
        number, who = report["number"], report["employee_name"]
        user = [
            f"{who}'s approved report {number} was paid out {how} today. Record the reimbursement and tell me the amount.",
            f"Record that report {number} ({who}) has been reimbursed {how}, and confirm how much was paid.",
        ]
        return Draft(family=self.name, key=f"report:{number}|{method}", writes=True, turns=[{"user": user, "calls": [
            _by_number("c1", report),
            {"id": "c2", "tool": "record_reimbursement", "arguments": {"method": method}, "bind": {"report_id": "{c1.id}"}},
        ], "facts": [{"name": "amount (USD)", "expr": _dollars("{c2.amount_cents}"), "value": None}]}])


# ---------------------------------------------------------------- refusals


def _refusal(name: str, key: str, user: list[str], calls: list[Call], facts: list[Row], checks: list[str] | None = None) -> Draft:
    return Draft(family=name, key=key, turns=[{"user": user, "calls": calls, "facts": facts}], checks=checks or [])


class EditSubmitted(Family):
    """Asked to add an expense to your submitted report: refuse (drafts only), say its status."""

    name = "expenses.edit-submitted"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        reports = [r for r in _mine(view, "submitted") if _unique_title(view, r)]
        if not reports:
            return None
        title = rng.choice(reports)["title"]
        day = str(view.now.date() - timedelta(days=2))
        user = [
            f"Add a $24.00 Uber ride from {day} to my report \"{title}\". If that isn't possible, tell me the report's status and when I submitted it.",
            f"Put a $24 taxi expense ({day}, Uber) on my \"{title}\" report; if you can't, say what state the report is in and its submission date.",
        ]
        return _refusal(self.name, f"report:{title}", user, _my_report_calls(title, "submitted"), [
            {"name": "status", "expr": "{c2.reports.0.status}", "value": None},
            {"name": "submitted", "expr": "{c2.reports.0.submitted_at}", "value": None},
        ], ["{c2.total} == 1"])


class Resubmit(Family):
    """Asked to submit your already approved report again: refuse (submitted once), name the approver."""

    name = "expenses.resubmit-approved"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        reports = [r for r in _mine(view, "approved") if _unique_title(view, r)]
        if not reports:
            return None
        title = rng.choice(reports)["title"]
        user = [
            f"Submit my \"{title}\" report again, I want it reviewed once more. If that can't be done, tell me who approved it.",
            f"Resubmit my expense report \"{title}\". If it's not allowed, just say who approved it and the total.",
        ]
        return _refusal(self.name, f"report:{title}", user, _my_report_calls(title, "approved"), [
            {"name": "approved by", "expr": "{c2.reports.0.approver_name}", "value": None},
        ], ["{c2.total} == 1"])


class SubmitWithProblem(Family):
    """Asked to submit a draft as it is when it breaks a submission rule: refuse, name the item."""

    rule: str
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        candidates = [r for r in _my_drafts_with(view, self.rule) if _unique_title(view, r)]
        if not candidates:
            return None
        report = rng.choice(candidates)
        title = report["title"]
        check = view.read(SERVER, "check_report", report_id=report["id"])
        items = view.read(SERVER, "get_report", report_id=report["id"])["items"]
        index = next(i for i, item in enumerate(items) if item["id"] == check["violations"][0]["item_id"])
        user = [
            f"Submit my \"{title}\" report exactly as it is, without changing anything. If it can't go through, tell me which merchant's expense is the problem.",
            f"Send my \"{title}\" expense report for approval as is (no edits). If the policy blocks it, name the merchant of the blocking item.",
        ]
        return _refusal(self.name, f"report:{title}", user, [
            *_my_report_calls(title, "draft"),
            {"id": "c3", "tool": "get_report", "bind": {"report_id": "{c2.reports.0.id}"}},
        ], [{"name": "blocking merchant", "expr": f"{{c3.items.{index}.merchant}}", "value": None}],
            ["{c2.total} == 1", f"{{c3.items.{index}.id}} == {check['violations'][0]['item_id']}"])


class SubmitOverLimit(SubmitWithProblem):
    name = "expenses.submit-over-limit"
    rule = "justification_required"


class SubmitWithoutReceipt(SubmitWithProblem):
    name = "expenses.submit-without-receipt"
    rule = "receipt_required"


class ClaimExpired(Family):
    """Asked to add an expense older than the claim window: refuse, state the window."""

    name = "expenses.claim-expired"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        drafts = [r for r in _mine(view, "draft") if _unique_title(view, r)]
        title = rng.choice(drafts)["title"]
        days = rng.randint(100, 160)
        day = str(view.now.date() - timedelta(days=days))
        user = [
            f"Add a $42.00 lunch at Panera Bread on {day} to my \"{title}\" report. If the policy doesn't allow it, tell me how many days back expenses can be claimed.",
            f"I forgot a $42 meal (Panera Bread, {day}); put it on my \"{title}\" report, or if that's not allowed, tell me the claim window in days.",
        ]
        return _refusal(self.name, f"{title}|{day}", user, [{"id": "c1", "tool": "list_categories", "arguments": {}}], [
            {"name": "claim window (days)", "expr": "{c1.max_item_age_days}", "value": None},
        ])


class ApproveOwn(Family):
    """Asked to approve your own submitted report: refuse, say who approves it."""

    name = "expenses.approve-own"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        reports = [r for r in _mine(view, "submitted") if _unique_title(view, r)]
        if not reports:
            return None
        title = rng.choice(reports)["title"]
        user = [
            f"Approve my own \"{title}\" report so it gets paid faster. If I'm not allowed to, tell me who has to approve it.",
            f"Go ahead and approve my report \"{title}\" yourself. If that's against the rules, who should approve it?",
        ]
        return _refusal(self.name, f"report:{title}", user, _my_report_calls(title, "submitted"), [
            {"name": "approver", "expr": "{c1.approver_name}", "value": None},
        ], ["{c2.total} == 1"])


class ApproveOthersTeam(Family):
    """Asked to approve a report of someone outside your team: refuse, name its approver."""

    name = "expenses.approve-outside-team"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        me = _me(view)["id"]
        reports = [r for r in _reports(view, status=["submitted"]) if r["employee_id"] != me]
        others = [r for r in reports if view.read(SERVER, "get_report", report_id=r["id"])["due_approver_id"] != me]
        if not others:
            return None
        report = rng.choice(others)
        number, who = report["number"], report["employee_name"]
        user = [
            f"Approve {who}'s expense report {number}. If I can't, tell me who is supposed to approve it.",
            f"Please approve report {number} from {who}; if that's not mine to approve, who approves it?",
        ]
        return _refusal(self.name, f"report:{number}", user, [_by_number("c1", report)], [
            {"name": "approver", "expr": "{c1.due_approver_name}", "value": None},
        ])


class ReimburseOwn(Family):
    """Asked to record the reimbursement of your own approved report: refuse, state its total."""

    name = "expenses.reimburse-own"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        reports = [r for r in _mine(view, "approved") if _unique_title(view, r)]
        if not reports:
            return None
        title = rng.choice(reports)["title"]
        user = [
            f"Record the reimbursement of my approved \"{title}\" report, paid by ACH today. If I can't record it myself, just tell me its total.",
            f"Mark my own report \"{title}\" as reimbursed (bank transfer today); if that's not permitted, what's the amount due to me?",
        ]
        return _refusal(self.name, f"report:{title}", user, _my_report_calls(title, "approved"), [
            {"name": "total (USD)", "expr": _dollars("{c2.reports.0.total_cents}"), "value": None},
        ], ["{c2.total} == 1"])


# ---------------------------------------------------------------- two turns


class QueueThenApprove(Family):
    """Two turns: the oldest report waiting for you and its total, then approve it."""

    name = "expenses.queue-then-approve"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        if len(_pending(view)) < 2:
            return None
        first = [
            "Which report has been waiting longest for my approval? Who sent it and what's the total?",
            "What's the oldest report in my approval queue: submitter and total amount?",
        ]
        second = ["Approve that one.", "OK, approve it please."]
        return Draft(family=self.name, key="oldest", writes=True, turns=[
            {"user": first, "calls": [{"id": "c1", "tool": "list_pending_approvals", "arguments": {"per_page": 2}}], "facts": [
                {"name": "submitter", "expr": "{c1.reports.0.employee_name}", "value": None},
                {"name": "total (USD)", "expr": _dollars("{c1.reports.0.total_cents}"), "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c2", "tool": "approve_report", "arguments": {}, "bind": {"report_id": "{c1.reports.0.id}"}},
            ], "facts": []},
        ], checks=["{c1.reports.0.submitted_at} != {c1.reports.1.submitted_at}"])


class RejectedThenReopen(Family):
    """Two turns: why your report was rejected, then reopen it and fix its title."""

    name = "expenses.rejected-then-reopen"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        rejected = [r for r in _mine(view, "rejected") if _unique_title(view, r)]
        if not rejected:
            return None
        title = rng.choice(rejected)["title"]
        new = f"{title} (corrected)"
        first = [f"Why was my report \"{title}\" rejected?", f"What reason was given for rejecting my \"{title}\" report?"]
        second = [f"Reopen it and rename it to \"{new}\".", f"Then reopen that report and change its title to \"{new}\"."]
        return Draft(family=self.name, key=f"rejected:{title}", writes=True, turns=[
            {"user": first, "calls": _my_report_calls(title, "rejected") + [
                {"id": "c3", "tool": "get_report", "bind": {"report_id": "{c2.reports.0.id}"}}], "facts": [
                {"name": "reason", "expr": "{c3.rejection_reason}", "value": None}]},
            {"user": second, "calls": [
                {"id": "c4", "tool": "reopen_report", "bind": {"report_id": "{c2.reports.0.id}"}},
                {"id": "c5", "tool": "update_report", "arguments": {"title": new}, "bind": {"report_id": "{c4.id}"}},
            ], "facts": []},
        ], checks=["{c2.total} == 1"])


# ---------------------------------------------------------------- other servers


class TripBooking(Family):
    """A trip report's airfare matched with its Meridian Air booking: the flight and the charge."""

    name = "cross.expenses-trip-booking"
    servers = (SERVER, "flights")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        report = rng.choice(_reports(view, is_travel=True, page=rng.randint(1, 2)))
        number = report["number"]
        user = [
            f"Expense report {number} is for a trip. Which Meridian Air flight number did the trip start with, and how much did the airline booking charge in total?",
            f"For travel report {number}: find its flight booking with the airline and tell me the first flight's number and the booking's total charge.",
        ]
        return Draft(family=self.name, key=f"report:{number}", turns=[{"user": user, "calls": [
            {**_by_number("c1", report), "server": SERVER},
            {"id": "c2", "server": SERVER, "tool": "search_items", "arguments": {"category": "airfare"},
             "bind": {"report_id": "{c1.id}"}},
            {"id": "c3", "server": "flights", "tool": "get_reservation", "bind": {"pnr": "{c2.items.0.flight_pnr}"}},
        ], "facts": [
            {"name": "first flight", "expr": "{c3.segments.0.flight.flight_number}", "value": None},
            {"name": "booking charge (USD)", "expr": "{c3.total_charged}", "value": None},
        ]}], checks=["{c2.total} == 1"])


class ApproverInHr(Family):
    """A colleague's expense approver as HR knows them: location and phone."""

    name = "cross.expenses-approver-in-hr"
    servers = (SERVER, "hr")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = rng.choice([e for e in _employees(view) if e["approver_id"] and not e["is_you"]])
        email = person["email"]
        user = [
            f"Who approves the expenses of {email}? Look that approver up in HR and give me their location and phone number.",
            f"I need to call whoever signs off {email}'s expense reports: their name, office location and phone from HR.",
        ]
        return Draft(family=self.name, key=f"employee:{email}", turns=[{"user": user, "calls": [
            {"id": "c1", "server": SERVER, "tool": "get_employee_by_email", "arguments": {"email": email}},
            {"id": "c2", "server": SERVER, "tool": "get_employee", "bind": {"employee_id": "{c1.approver_id}"}},
            {"id": "c3", "server": "hr", "tool": "get_employee_by_email", "bind": {"email": "{c2.email}"}},
        ], "facts": [
            {"name": "approver", "expr": "{c2.name}", "value": None},
            {"name": "location", "expr": "{c3.location}", "value": None},
            {"name": "phone", "expr": "{c3.phone}", "value": None},
        ]}])


class ApproveAndTell(Family):
    """Approve a waiting report and tell its submitter in a chat DM."""

    name = "cross.expenses-approve-and-tell"
    servers = (SERVER, "chat")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        report = rng.choice(_pending(view))
        number, who = report["number"], report["employee_name"]
        text = f"Your expense report {number} is approved."
        user = [
            f"Approve expense report {number} and let {who} know on Slack with a DM: \"{text}\"",
            f"Sign off {who}'s report {number}, then send them this Slack direct message: \"{text}\"",
        ]
        return Draft(family=self.name, key=f"report:{number}", writes=True, turns=[{"user": user, "calls": [
            {**_by_number("c1", report), "server": SERVER},
            {"id": "c2", "server": SERVER, "tool": "approve_report", "arguments": {}, "bind": {"report_id": "{c1.id}"}},
            {"id": "c3", "server": SERVER, "tool": "get_employee", "bind": {"employee_id": "{c1.employee_id}"}},
            {"id": "c4", "server": "chat", "tool": "get_user_by_email", "bind": {"email": "{c3.email}"}},
            {"id": "c5", "server": "chat", "tool": "send_dm", "arguments": {"text": text}, "bind": {"user_ids": "[{c4.id}]"}},
        ], "facts": []}])


EXPENSES_FAMILIES: tuple[Family, ...] = (
    ReportStatus(), MyApprover(), ColleagueApprover(), SubmitterCostCenter(), EmployeeMonthReports(), CategoryLimit(),
    QuarterTopCategory(), DepartmentTopSpender(), ReimbursedTo(), ApprovalQueue(), OverLimitItems(), FlightClaimed(),
    WhyRejected(), ReadyToSubmit(),
    NewReport(), SubmitDraft(), JustifyAndSubmit(), ReceiptAndSubmit(), DropExpiredAndSubmit(), RenameDraft(),
    DeleteDraft(), ReopenRejected(), ApproveTeamReport(), RejectTeamReport(), ApproveIfSmall(), ReimburseApproved(),
    EditSubmitted(), Resubmit(), SubmitOverLimit(), SubmitWithoutReceipt(), ClaimExpired(), ApproveOwn(),
    ApproveOthersTeam(), ReimburseOwn(),
    QueueThenApprove(), RejectedThenReopen(),
    TripBooking(), ApproverInHr(), ApproveAndTell(),
)
"""Every expenses family, the cross-server ones (with the airline, HR and chat) last."""
