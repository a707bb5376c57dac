"""The seeded HR world of Northwind Systems: the world's forty employees in nine departments,
with fifteen months of time off, three review cycles and onboarding checklists for recent hires.

Employee 1 is the acting user, the Head of People (an HR admin) with three direct reports in the
People team; the other employees follow in world order. Sales is the CRM's sales team (hire
dates are the CRM accounts' creation dates) plus the first employee, an account manager; the
CRM's sales manager heads it, and the CRM user who left is terminated here. Every other
department head reports to the CEO; Engineering has a second-line manager.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from sqlalchemy import Insert
from sqlalchemy.orm import Session

from mcpgym.servers.hr.data import (
    DEPARTMENT_SIZES,
    DEPARTMENTS,
    JOB_LEVELS,
    ONBOARDING,
    POLICIES,
    REVIEW_SUMMARIES,
    TIME_OFF_NOTES,
)
from mcpgym.servers.hr.days import working_days
from mcpgym.servers.hr.models import (
    CURRENCY,
    Base,
    CompensationStatement,
    Department,
    Employee,
    JobLevel,
    OnboardingTask,
    PerformanceReview,
    SalaryChange,
    TimeOffEntitlement,
    TimeOffPolicy,
    TimeOffRequest,
)
from mcpgym.servers.kernel.links import seeded_rows
from mcpgym.servers.kernel.world import Person, World

HISTORY_DAYS = 450
"""Time off reaches this many days back from now."""
FUTURE_DAYS = 120
"""And this many days ahead."""
RECENT_HIRES = 4
"""Employees hired in the last ten weeks, with an onboarding checklist."""
DEPARTED_DAYS = 90
"""The CRM's inactive user left this many days before now."""

DEPT = {name: index for index, (name, _) in enumerate(DEPARTMENTS, start=1)}
BANDS = {code: (low * 100, high * 100) for code, _, _, low, high in JOB_LEVELS}
POLICY_IDS = {code: index for index, (code, *_) in enumerate(POLICIES, start=1)}
ALLOWANCE = {code: days for code, _, days, _, _ in POLICIES}
CARRYOVER = {code: days for code, _, _, days, _ in POLICIES}


@dataclass
class Staff:
    """An employee being seeded."""

    person: Person
    department: str
    level: str
    hire: date
    manager: Staff | None = None
    hr_role: str = "none"
    status: str = "active"
    id: int = 0
    crm_role: str = ""
    termination: date | None = None
    busy: list[tuple[date, date]] = field(default_factory=list)


def _insert(model: type[Base]) -> Insert:
    return model.__table__.insert()  # type: ignore[attr-defined, no-any-return]


def _weekday(day: date) -> date:
    while day.weekday() >= 5:
        day += timedelta(days=1)
    return day


def _add_working_days(start: date, days: int) -> date:
    """The date of the `days`-th working day counting `start` as the first."""
    day, left = start, days - 1
    while left > 0:
        day += timedelta(days=1)
        if day.weekday() < 5:
            left -= 1
    return day


def _at(day: date, rng: random.Random, start_hour: int = 8, end_hour: int = 18) -> datetime:
    return datetime.combine(day, time(rng.randrange(start_hour, end_hour), rng.randrange(60)))


def populate(db: Session, world: World, rng: random.Random) -> None:
    """Fill an empty HR database from the shared world and the CRM's sales team."""
    today = world.now.date()
    crm = seeded_rows("crm", world.seed, "SELECT external_id, role, active, created_at FROM users ORDER BY id")
    staff = _staff(world, rng, crm, today)
    db.execute(_insert(JobLevel), [
        {"code": code, "name": name, "track": track, "min_salary_cents": low * 100, "max_salary_cents": high * 100}
        for code, name, track, low, high in JOB_LEVELS])
    heads = {s.department: s for s in staff if s.manager is None or s.manager.department != s.department}
    db.execute(_insert(Employee), [_employee_row(s, rng) for s in staff])
    db.execute(_insert(Department), [
        {"id": DEPT[name], "name": name, "head_id": heads[name].id, "cost_center": center}
        for name, center in DEPARTMENTS])
    salaries = _salaries(staff, rng, today)
    db.execute(_insert(SalaryChange), salaries)
    db.execute(_insert(TimeOffPolicy), [
        {"id": POLICY_IDS[code], "code": code, "name": name, "annual_days": days, "carryover_days": carry, "paid": paid}
        for code, name, days, carry, paid in POLICIES])
    entitlements, requests = _time_off(staff, rng, world.now)
    db.execute(_insert(TimeOffEntitlement), entitlements)
    db.execute(_insert(TimeOffRequest), requests)
    db.execute(_insert(PerformanceReview), _reviews(staff, rng, world.now))
    db.execute(_insert(OnboardingTask), _onboarding(staff, rng, world.now))
    db.execute(_insert(CompensationStatement), _statements(staff, rng, world.now, salaries))


def _staff(world: World, rng: random.Random, crm: list[dict[str, Any]], today: date) -> list[Staff]:
    """Everyone's department, level, manager and hire date; ids given out (you are 1)."""
    crm_by_person = {row["external_id"]: row for row in crm}
    employees = world.employees
    account_manager = employees[0]
    sales = [p for p in employees if p.id in crm_by_person or p.id == account_manager.id]
    others = [p for p in employees if p not in sales]
    you, others = others[0], others[1:]
    rng.shuffle(others)
    ceo = Staff(others[0], "Executive", "E1", today - timedelta(days=rng.randrange(2400, 3200)))
    rest = others[1:]
    groups: dict[str, list[Person]] = {"People": [you]}
    for name, size in DEPARTMENT_SIZES.items():
        taken = size - len(groups.get(name, []))
        groups.setdefault(name, []).extend(rest[:taken])
        rest = rest[taken:]
    groups["Engineering"] = rest

    staff: list[Staff] = [ceo]
    for name, people in groups.items():
        head = Staff(people[0], name, "M2", today - timedelta(days=rng.randrange(900, 2300)), manager=ceo)
        staff.append(head)
        second = None
        for index, person in enumerate(people[1:], start=1):
            if name == "Engineering" and index == 1:
                second = Staff(person, name, "M1", today - timedelta(days=rng.randrange(600, 1800)), manager=head)
                staff.append(second)
                continue
            boss = second if second is not None and index % 2 == 0 else head
            level = rng.choices(("IC1", "IC2", "IC3", "IC4", "IC5"), (2, 4, 4, 2, 1))[0]
            staff.append(Staff(person, name, level, today - timedelta(days=rng.randrange(150, 1900)), manager=boss))
    by_person = {s.person.id: s for s in staff}
    by_person[you.id].hr_role = "admin"
    for person in groups["People"][1:]:
        by_person[person.id].hr_role = "partner"

    sales_head_row = next(row for row in crm if row["role"] == "sales_manager")
    sales_head = Staff(next(p for p in sales if p.id == sales_head_row["external_id"]), "Sales", "M2",
                       _crm_date(sales_head_row["created_at"]), manager=ceo, crm_role="sales_manager")
    staff.append(sales_head)
    for person in sales:
        if person is sales_head.person:
            continue
        row = crm_by_person.get(person.id)
        role = row["role"] if row else "account_manager"
        level = {"sales_development_rep": "IC1", "account_executive": rng.choice(("IC2", "IC3"))}.get(role, "IC3")
        hire = _crm_date(row["created_at"]) if row else today - timedelta(days=rng.randrange(700, 1500))
        member = Staff(person, "Sales", level, hire, manager=sales_head, crm_role=role)
        if row and not row["active"]:
            member.status, member.termination = "terminated", today - timedelta(days=DEPARTED_DAYS)
        staff.append(member)

    _recent_hires(staff, rng, today, by_person[groups["People"][-1].id])
    _on_leave(staff, rng, today)
    order = [by_person[you.id]] + sorted((s for s in staff if s.person.id != you.id), key=lambda s: s.person.id)
    for index, member in enumerate(order, start=1):
        member.id = index
    return order


def _crm_date(value: Any) -> date:
    return datetime.fromisoformat(str(value)).date()


def _recent_hires(staff: list[Staff], rng: random.Random, today: date, people_hire: Staff) -> None:
    """Four individual contributors hired in the last ten weeks: one in People (reporting to
    you), the others outside Sales."""
    pool = [s for s in staff if s.level.startswith("IC") and s.department not in ("People", "Sales")]
    chosen = [people_hire] + rng.sample(pool, RECENT_HIRES - 1)
    for member in chosen:
        member.hire = today - timedelta(days=rng.randrange(6, 60))
        member.level = "IC1" if member is people_hire else member.level


def _on_leave(staff: list[Staff], rng: random.Random, today: date) -> None:
    """Two individual contributors on parental leave (hired before this year)."""
    pool = [s for s in staff if s.level.startswith("IC") and s.status == "active" and s.hr_role == "none"
            and s.hire.year < today.year]
    for member in rng.sample(pool, 2):
        member.status = "on_leave"


def _employee_row(s: Staff, rng: random.Random) -> dict[str, Any]:
    person = s.person
    return {
        "id": s.id, "person_id": person.id, "email": person.email, "name": person.name,
        "job_title": person.job_title, "department_id": DEPT[s.department],
        "manager_id": s.manager.id if s.manager else None, "hire_date": s.hire, "status": s.status,
        "level_code": s.level, "hr_role": s.hr_role,
        "employment_type": "part_time" if s.level == "IC1" and rng.random() < 0.3 else "full_time",
        "location": person.city, "timezone": person.timezone, "phone": person.phone,
        "termination_date": s.termination, "termination_reason": "Resigned: joined another company" if s.termination else None,
    }


def _round(cents: int) -> int:
    return max(50_000, round(cents / 50_000) * 50_000)


def _salaries(staff: list[Staff], rng: random.Random, today: date) -> list[dict[str, Any]]:
    """A hire salary and a merit raise every April 1 since, the current one inside the band."""
    rows: list[dict[str, Any]] = []
    hr_admin = staff[0]
    for s in staff:
        low, high = BANDS[s.level]
        current = _round(int(low + (high - low) * rng.uniform(0.15, 0.85)))
        end = s.termination or today
        raises = [date(year, 4, 1) for year in range(s.hire.year + 1, end.year + 1) if date(year, 4, 1) <= end]
        raises = [d for d in raises if d > s.hire + timedelta(days=90)]
        amounts = [current]
        for _ in raises:
            amounts.append(_round(int(amounts[-1] / rng.uniform(1.025, 1.065))))
        amounts.reverse()
        dates = [s.hire, *raises]
        for index, (day, cents) in enumerate(zip(dates, amounts, strict=True)):
            reason = "hire" if index == 0 else rng.choices(("merit", "market_adjustment", "promotion"), (8, 1, 1))[0]
            rows.append({
                "employee_id": s.id, "salary_cents": cents, "currency": CURRENCY, "effective_date": day,
                "reason": reason, "note": "" if reason != "promotion" else "Promotion at the annual review",
                "changed_by_id": None if index == 0 or s is hr_admin else hr_admin.id,
                "created_at": _at(day - timedelta(days=rng.randrange(3, 20)), rng),
            })
    rows.sort(key=lambda r: (r["effective_date"], r["employee_id"]))
    for index, row in enumerate(rows, start=1):
        row["id"] = index
    return rows


def _prorated(days: int, hire: date, year: int) -> int:
    if hire.year < year:
        return days
    if hire.year > year:
        return 0
    return round(days * (12 - hire.month + 1) / 12)


def _time_off(staff: list[Staff], rng: random.Random, now: datetime) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Entitlements for last year, this year and next, and the requests drawn against them."""
    today = now.date()
    years = (today.year - 1, today.year, today.year + 1)
    window = (today - timedelta(days=HISTORY_DAYS), today + timedelta(days=FUTURE_DAYS))
    entitlements: list[dict[str, Any]] = []
    requests: list[dict[str, Any]] = []
    for s in staff:
        used: dict[tuple[str, int], int] = {}
        if s.status == "on_leave":
            start = _weekday(max(today - timedelta(days=rng.randrange(10, 40)), date(today.year, 1, 1)))
            end = min(today + timedelta(days=rng.randrange(20, 60)), date(today.year, 12, 31))
            _add(requests, used, s, "parental", start, end, "approved", rng, now)
        last = s.termination or window[1]
        for year in years:
            first_day = max(date(year, 1, 1), window[0], s.hire + timedelta(days=7))
            last_day = min(date(year, 12, 31), last)
            if first_day >= last_day:
                continue
            share = (last_day - first_day).days / 365
            plan = [("vacation", rng.randint(1, 10)) for _ in range(round(4 * share + rng.random()))]
            plan += [("sick", rng.choice((1, 1, 1, 2, 3))) for _ in range(round(3 * share * rng.random() + 0.3))]
            plan += [("personal", 1) for _ in range(rng.choice((0, 0, 1, 1, 2)))]
            for policy, days in plan:
                start = _weekday(first_day + timedelta(days=rng.randrange(max(1, (last_day - first_day).days))))
                if policy == "sick" and start > today:
                    continue
                end = _add_working_days(start, days)
                if end > last_day:
                    continue
                status = _status(rng, start, today)
                _add(requests, used, s, policy, start, end, status, rng, now)
        for year in years:
            if year < s.hire.year or (s.termination and year > s.termination.year):
                continue
            carried = 0
            if year > years[0] and year <= today.year:
                prior = _entitled(entitlements, s.id, "vacation", year - 1)
                carried = min(CARRYOVER["vacation"], max(0, prior - used.get(("vacation", year - 1), 0)))
            for policy, _, _, _, _ in POLICIES:
                base = _prorated(ALLOWANCE[policy], s.hire, year)
                extra = carried if policy == "vacation" else 0
                entitlements.append({"employee_id": s.id, "policy_id": POLICY_IDS[policy], "year": year,
                                     "entitled_days": base + extra, "carried_over_days": extra})
    _ensure_pending(staff, requests, rng, now)
    requests.sort(key=lambda r: (r["requested_at"], r["employee_id"]))
    for index, row in enumerate(requests, start=1):
        row["id"] = index
    return entitlements, requests


def _entitled(entitlements: list[dict[str, Any]], employee: int, policy: str, year: int) -> int:
    for row in entitlements:
        if row["employee_id"] == employee and row["policy_id"] == POLICY_IDS[policy] and row["year"] == year:
            return int(row["entitled_days"])
    return 0


def _status(rng: random.Random, start: date, today: date) -> str:
    if start <= today:
        return rng.choices(("approved", "denied", "cancelled"), (88, 6, 6))[0]
    return rng.choices(("pending", "approved", "cancelled"), (45, 50, 5))[0]


def _add(requests: list[dict[str, Any]], used: dict[tuple[str, int], int], s: Staff, policy: str, start: date,
         end: date, status: str, rng: random.Random, now: datetime) -> bool:
    """Add a request unless it overlaps a live one or goes beyond the year's allowance."""
    days = working_days(start, end)
    if start.year != end.year or days == 0:
        return False
    live = status in ("pending", "approved")
    if live:
        if any(start <= b and a <= end for a, b in s.busy):
            return False
        key = (policy, start.year)
        cap = _prorated(ALLOWANCE[policy], s.hire, start.year)
        if used.get(key, 0) + days > cap:
            return False
        used[key] = used.get(key, 0) + days
        s.busy.append((start, end))
    if policy == "sick":
        requested = _at(start, rng, 6, 10)
    else:
        requested = _at(max(s.hire, start - timedelta(days=rng.randrange(4, 45))), rng)
    requested = min(requested, now - timedelta(hours=rng.randrange(2, 200)))
    decided_by = s.manager.id if s.manager else None
    decided = None
    if status in ("approved", "denied"):
        decided = min(requested + timedelta(hours=rng.randrange(1, 72)), now - timedelta(hours=1))
    if status == "approved" and s.manager is None:
        decided, decided_by = requested, None
    comment = ""
    if status == "denied":
        comment = rng.choice(("Team coverage is too thin that week", "Overlaps the quarter-end close",
                              "Please move it after the release", "Too many people out that week"))
    requests.append({
        "employee_id": s.id, "policy_id": POLICY_IDS[policy], "start_date": start, "end_date": end, "days": days,
        "status": status, "note": rng.choice(TIME_OFF_NOTES[policy]), "requested_at": requested,
        "decided_by_id": decided_by if status in ("approved", "denied") else None, "decided_at": decided,
        "decision_comment": comment,
    })
    return True


def _ensure_pending(staff: list[Staff], requests: list[dict[str, Any]], rng: random.Random, now: datetime) -> None:
    """You, your direct reports and a few others each have a pending vacation request ahead."""
    you = staff[0]
    wanted = [you] + [s for s in staff if s.manager is you]
    others = [s for s in staff if s.manager is not None and s.manager is not you and s is not you
              and s.status == "active"]
    wanted += rng.sample(others, 6)
    today = now.date()
    for s in wanted:
        if any(r["employee_id"] == s.id and r["status"] == "pending" for r in requests):
            continue
        used: dict[tuple[str, int], int] = {}
        for r in requests:
            if r["employee_id"] == s.id and r["status"] in ("pending", "approved") and r["policy_id"] == POLICY_IDS["vacation"]:
                key = ("vacation", r["start_date"].year)
                used[key] = used.get(key, 0) + r["days"]
        for _ in range(20):
            start = _weekday(today + timedelta(days=rng.randrange(10, 80)))
            end = _add_working_days(start, rng.randint(1, 4))
            if _add(requests, used, s, "vacation", start, end, "pending", rng, now):
                break


def _reviews(staff: list[Staff], rng: random.Random, now: datetime) -> list[dict[str, Any]]:
    """Last year's annual review, this year's mid-year check-in (both closed) and this year's
    annual review, due in five weeks and mostly still drafts."""
    today = now.date()
    cycles = (
        (f"{today.year - 1} Annual", today - timedelta(days=285), "closed"),
        (f"{today.year} Mid-year", today - timedelta(days=105), "closed"),
        (f"{today.year} Annual", today + timedelta(days=33), "open"),
    )
    rows: list[dict[str, Any]] = []
    for cycle, due, state in cycles:
        for s in staff:
            if s.manager is None or s.hire > due - timedelta(days=120):
                continue
            if s.termination and s.termination < due:
                continue
            if state == "open" and s.status == "terminated":
                continue
            rating = rng.choices((1, 2, 3, 4, 5), (1, 4, 12, 8, 2))[0]
            summary = rng.choice(REVIEW_SUMMARIES[rating])
            if state == "closed":
                submitted = _at(due - timedelta(days=rng.randrange(0, 20)), rng)
                acknowledged = _at(due + timedelta(days=rng.randrange(1, 15)), rng) if rng.random() < 0.85 else None
                status = "acknowledged" if acknowledged else "submitted"
            elif rng.random() < 0.2 and s.manager is not staff[0]:
                submitted = min(_at(today - timedelta(days=rng.randrange(1, 10)), rng), now)
                acknowledged, status = None, "submitted"
            else:
                submitted = acknowledged = None
                status, rating, summary = "draft", None, ""
            rows.append({"employee_id": s.id, "reviewer_id": s.manager.id, "cycle": cycle, "due_date": due,
                         "status": status, "rating": rating, "summary": summary, "submitted_at": submitted,
                         "acknowledged_at": acknowledged})
    for index, row in enumerate(rows, start=1):
        row["id"] = index
    return rows


def _onboarding(staff: list[Staff], rng: random.Random, now: datetime) -> list[dict[str, Any]]:
    """A checklist per recent hire; HR items go to you or an HR partner, IT items to IT."""
    today = now.date()
    recent = sorted((s for s in staff if (today - s.hire).days < 75), key=lambda s: s.hire)
    hr_team = [s for s in staff if s.hr_role != "none" and s.hire < today - timedelta(days=90)]
    it_team = [s for s in staff if s.department == "IT" and s.hire < today - timedelta(days=90)] or hr_team
    rows: list[dict[str, Any]] = []
    for s in recent:
        for title, category, who, offset in ONBOARDING:
            assignee = {"hr": rng.choice(hr_team), "it": rng.choice(it_team), "manager": s.manager or staff[0],
                        "employee": s}[who]
            due = s.hire + timedelta(days=offset)
            done = rng.random() < (0.8 if due < today else 0.1)
            completed = None
            if done:
                completed = min(_at(due - timedelta(days=rng.randrange(0, 4)), rng), now - timedelta(hours=1))
            rows.append({"employee_id": s.id, "title": title, "category": category, "assignee_id": assignee.id,
                         "due_date": due, "status": "done" if done else "open", "completed_at": completed})
    you = staff[0]
    mine = [r for r in rows if r["assignee_id"] == you.id and r["status"] == "open"]
    for row in [r for r in rows if r["category"] in ("paperwork", "benefits", "check-in") and r["status"] == "open"
                and r["assignee_id"] != you.id and r["assignee_id"] != r["employee_id"]][:max(0, 3 - len(mine))]:
        row["assignee_id"] = you.id
    for index, row in enumerate(rows, start=1):
        row["id"] = index
    return rows


def _statements(staff: list[Staff], rng: random.Random, now: datetime,
                salaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Compensation statements HR sent to employees themselves after last April's raises."""
    today = now.date()
    sent_on = date(today.year if today >= date(today.year, 4, 20) else today.year - 1, 4, 20)
    hr_team = [s for s in staff if s.hr_role != "none" and s.hire < sent_on]
    rows: list[dict[str, Any]] = []
    for s in rng.sample([s for s in staff if s.hire < sent_on and s.status != "terminated"], 10):
        paid = max((r for r in salaries if r["employee_id"] == s.id and r["effective_date"] <= sent_on),
                   key=lambda r: r["effective_date"])
        rows.append({"employee_id": s.id, "recipient_email": s.person.email, "salary_cents": paid["salary_cents"],
                     "currency": CURRENCY, "shared_by_id": rng.choice(hr_team).id,
                     "shared_at": _at(sent_on, rng), "note": "Annual compensation statement"})
    rows.sort(key=lambda r: (r["shared_at"], r["employee_id"]))
    for index, row in enumerate(rows, start=1):
        row["id"] = index
    return rows
