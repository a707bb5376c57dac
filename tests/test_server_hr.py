"""Domain behaviour of the HR server, through the same call path an agent uses."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpgym.servers.catalog import load_server
from mcpgym.servers.hr import SERVER
from mcpgym.servers.hr.days import working_days
from mcpgym.servers.kernel.database import load_database, new_connection
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.spec import build_seeded
from mcpgym.servers.kernel.world import build_world
from tool_calls import fails, ok

ME = 1

Row = dict[str, Any]


@pytest.fixture
def session() -> Iterator[ToolSession]:
    with ToolSession(SERVER, 0) as fresh:
        yield fresh


@pytest.fixture(scope="module")
def seeded() -> Iterator[ToolSession]:
    """A session only read from by the tests that share it."""
    with ToolSession(SERVER, 0) as fresh:
        yield fresh


@pytest.fixture(scope="module")
def everyone(seeded: ToolSession) -> list[Row]:
    return ok(seeded, "search_employees", {"per_page": 100})["employees"]


def raw(session: ToolSession, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Rows of the session's database, read past the tools."""
    return session._connection.execute(sql, params).fetchall()  # noqa: SLF001


def today(session: ToolSession) -> date:
    return session.context.now.date()


def weekday_after(day: date, days: int) -> date:
    day += timedelta(days=days)
    while day.weekday() >= 5:
        day += timedelta(days=1)
    return day


def pending(session: ToolSession, mine: bool) -> Row:
    """A pending request decided by you (mine) or by another manager, not your own."""
    rows = ok(session, "search_time_off_requests", {"status": "pending", "per_page": 100})["requests"]
    return next(r for r in rows if r["employee_id"] != ME and r["approver_id"] and (r["approver_id"] == ME) == mine)


def person(everyone: list[Row], **where: Any) -> Row:
    return next(p for p in everyone if all(p[k] == v for k, v in where.items()))


def free_days(session: ToolSession, employee_id: int, days: int = 1) -> tuple[str, str]:
    """Working days ahead, in this year or the next, that overlap none of the employee's time off."""
    live = [r for r in ok(session, "search_time_off_requests", {"employee_id": employee_id, "per_page": 100})["requests"]
            if r["status"] in ("pending", "approved")]
    start = weekday_after(today(session), 3)
    while True:
        end = start
        for _ in range(days - 1):
            end = weekday_after(end, 1)
        if end.year == start.year and not any(
                date.fromisoformat(r["start_date"]) <= end and start <= date.fromisoformat(r["end_date"]) for r in live):
            return str(start), str(end)
        start = weekday_after(start, 1)


# ---------------------------------------------------------------- the seeded world


def test_employees_are_the_worlds_employees(everyone: list[Row], seeded: ToolSession) -> None:
    world = build_world(0)
    assert len(everyone) == len(world.employees)
    people = {p.email: p for p in world.employees}
    for row in raw(seeded, "SELECT person_id, email, name, job_title FROM employees"):
        match = people[row[1]]
        assert (match.id, match.name, match.job_title) == (row[0], row[2], row[3])
    found = ok(seeded, "get_employee_by_email", {"email": world.employees[5].email.upper()})
    assert found["name"] == world.employees[5].name and found["organization_name"] == "Northwind Systems"


def test_org_chart_has_one_ceo_and_no_loops(everyone: list[Row], seeded: ToolSession) -> None:
    ceos = [p for p in everyone if p["manager_id"] is None]
    assert len(ceos) == 1 and ceos[0]["department_name"] == "Executive"
    for p in everyone:
        line = ok(seeded, "get_reporting_line", {"employee_id": p["id"]})
        chain = [m["id"] for m in line["managers"]]
        assert len(chain) == len(set(chain)) and (not chain or chain[-1] == ceos[0]["id"])
    me = ok(seeded, "get_employee", {"employee_id": ME})
    assert me["department_name"] == "People" and me["hr_role"] == "admin" and me["manager_id"] == ceos[0]["id"]
    assert me["direct_report_count"] >= 2


def test_sales_is_the_crm_team_and_its_leaver_is_terminated(seeded: ToolSession, everyone: list[Row]) -> None:
    crm = load_server("crm").seeded(0).snapshot
    connection = new_connection()
    load_database(connection, crm)
    users = connection.execute("SELECT email, role, active FROM users").fetchall()
    sales = {p["email"] for p in everyone if p["department_name"] == "Sales"}
    assert {u[0] for u in users} <= sales
    head = next(d for d in ok(seeded, "list_departments")["departments"] if d["name"] == "Sales")
    assert head["head_email"] == next(u[0] for u in users if u[1] == "sales_manager")
    for email, _, active in users:
        assert (person(everyone, email=email)["status"] == "terminated") == (not active)


def test_contract_tables_keep_their_columns(seeded: ToolSession) -> None:
    employees = {r[1] for r in raw(seeded, "PRAGMA table_info(employees)")}
    assert {"id", "person_id", "email", "name", "job_title", "department_id", "manager_id", "hire_date",
            "status"} <= employees
    assert {"id", "name", "head_id"} <= {r[1] for r in raw(seeded, "PRAGMA table_info(departments)")}


def test_seeding_is_deterministic_and_fast() -> None:
    load_server("crm").seeded(3)
    build_world(3)
    started = time.perf_counter()
    first = build_seeded(SERVER, 3)
    assert time.perf_counter() - started < 2.0
    assert build_seeded(SERVER, 3) == first
    assert build_seeded(SERVER, 4) != first


def test_salaries_sit_in_their_bands(seeded: ToolSession, everyone: list[Row]) -> None:
    for p in everyone:
        pay = ok(seeded, "get_compensation", {"employee_id": p["id"]})
        assert pay["band_min_cents"] <= pay["salary_cents"] <= pay["band_max_cents"]
        assert pay["history"][-1]["reason"] == "hire" and pay["history"][-1]["effective_date"] == p["hire_date"]


def test_balances_add_up_to_the_requests(seeded: ToolSession, everyone: list[Row]) -> None:
    year = today(seeded).year
    for p in everyone[::3]:
        sheet = ok(seeded, "get_time_off_balance", {"employee_id": p["id"], "year": year})
        requests = ok(seeded, "search_time_off_requests", {"employee_id": p["id"], "per_page": 100})["requests"]
        for balance in sheet["balances"]:
            mine = [r for r in requests if r["policy"] == balance["policy"] and r["start_date"].startswith(str(year))]
            assert balance["used_days"] == sum(r["days"] for r in mine if r["status"] == "approved")
            assert balance["pending_days"] == sum(r["days"] for r in mine if r["status"] == "pending")
            assert balance["remaining_days"] >= 0
            for r in mine:
                assert r["days"] == working_days(date.fromisoformat(r["start_date"]), date.fromisoformat(r["end_date"]))


def test_headcount_report_totals_match_the_directory(seeded: ToolSession, everyone: list[Row]) -> None:
    report = ok(seeded, "headcount_report", {"group_by": "department"})
    live = [p for p in everyone if p["status"] != "terminated"]
    assert report["total_headcount"] == len(live)
    assert sum(g["annual_payroll_cents"] for g in report["groups"]) == report["total_annual_payroll_cents"]
    departments = ok(seeded, "list_departments")["departments"]
    assert {g["key"]: g["headcount"] for g in report["groups"]} == {d["name"]: d["headcount"] for d in departments}


STATUSES = ("active", "on_leave", "terminated")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_search_filters_return_exactly_the_matches(seeded: ToolSession, everyone: list[Row], data: st.DataObject) -> None:
    words = sorted({w for p in everyone for w in p["name"].lower().split()} | {"engineer", "%", "_", "x"})
    filters = data.draw(st.fixed_dictionaries({}, optional={
        "query": st.sampled_from(words), "department_id": st.integers(1, 9), "status": st.sampled_from(STATUSES),
        "manager_id": st.sampled_from(sorted({p["id"] for p in everyone})),
        "hired_after": st.dates(date(2019, 1, 1), date(2026, 1, 1)).map(str)}))
    found = ok(seeded, "search_employees", {**filters, "per_page": 100})

    def matches(p: Row) -> bool:
        if "query" in filters and not any(filters["query"] in p[k].lower() for k in ("name", "email", "job_title")):
            return False
        return all(p[k] == filters[k] for k in ("department_id", "status", "manager_id") if k in filters) and (
            "hired_after" not in filters or p["hire_date"] >= filters["hired_after"])

    assert [p["id"] for p in found["employees"]] == [p["id"] for p in everyone if matches(p)]
    assert found["total"] == len(found["employees"])


def test_who_is_out_lists_overlapping_approved_time_off(seeded: ToolSession) -> None:
    start = today(seeded) - timedelta(days=30)
    end = start + timedelta(days=13)
    out = ok(seeded, "who_is_out", {"start_date": str(start), "end_date": str(end)})
    everything = ok(seeded, "search_time_off_requests", {"status": "approved", "start_to": str(end + timedelta(days=1)),
                                                         "per_page": 100})["requests"]
    expected = {r["id"] for r in everything if r["end_date"] >= str(start)}
    assert {a["id"] for a in out["absences"]} == expected and expected
    fails(seeded, "who_is_out", {"start_date": str(end), "end_date": str(start)}, "invalid_arguments")
    fails(seeded, "who_is_out", {"start_date": "2025-01-01", "end_date": "2025-12-31"}, "invalid_arguments")


# ---------------------------------------------------------------- writes


def test_request_then_approve_moves_days_from_pending_to_used(session: ToolSession) -> None:
    report = ok(session, "search_employees", {"manager_id": ME, "status": "active"})["employees"][0]
    start, end = free_days(session, report["id"], 2)
    year = int(start[:4])
    before = ok(session, "get_time_off_balance", {"employee_id": report["id"], "year": year})["balances"][0]
    made = ok(session, "request_time_off", {"employee_id": report["id"], "policy": "vacation", "start_date": start,
                                            "end_date": end, "note": "Trip"})
    assert made["status"] == "pending" and made["days"] == 2 and made["approver_id"] == ME
    mid = ok(session, "get_time_off_balance", {"employee_id": report["id"], "year": year})["balances"][0]
    assert mid["pending_days"] == before["pending_days"] + 2 and mid["remaining_days"] == before["remaining_days"] - 2
    approved = ok(session, "approve_time_off_request", {"request_id": made["id"], "comment": "Enjoy"})
    assert approved["status"] == "approved" and approved["decided_by_name"] == ok(session, "get_employee", {"employee_id": ME})["name"]
    after = ok(session, "get_time_off_balance", {"employee_id": report["id"], "year": year})["balances"][0]
    assert after["used_days"] == before["used_days"] + 2 and after["pending_days"] == before["pending_days"]
    cancelled = ok(session, "cancel_time_off_request", {"request_id": made["id"], "reason": "Plans changed"})
    assert cancelled["status"] == "cancelled"
    assert ok(session, "get_time_off_balance", {"employee_id": report["id"], "year": year})["balances"][0] == before


def test_deny_records_the_reason(session: ToolSession) -> None:
    request = pending(session, mine=True)
    denied = ok(session, "deny_time_off_request", {"request_id": request["id"], "reason": "Coverage"})
    assert (denied["status"], denied["decision_comment"]) == ("denied", "Coverage")


def test_the_ceos_request_is_approved_at_once(session: ToolSession, everyone: list[Row]) -> None:
    ceo = person(everyone, manager_id=None)
    start, end = free_days(session, ceo["id"])
    made = ok(session, "request_time_off", {"employee_id": ceo["id"], "policy": "personal", "start_date": start,
                                            "end_date": end})
    assert made["status"] == "approved" and made["approver_id"] is None


def test_salary_change_and_statement(session: ToolSession, everyone: list[Row]) -> None:
    someone = person(everyone, level_code="IC3", status="active")
    pay = ok(session, "get_compensation", {"employee_id": someone["id"]})
    new = pay["band_max_cents"] - 100
    changed = ok(session, "change_salary", {"employee_id": someone["id"], "salary_cents": new, "reason": "promotion"})
    assert changed["previous_salary_cents"] == pay["salary_cents"] and changed["change"]["changed_by_name"]
    after = ok(session, "get_compensation", {"employee_id": someone["id"]})
    assert after["salary_cents"] == new and len(after["history"]) == len(pay["history"]) + 1
    statement = ok(session, "share_compensation_statement", {"employee_id": someone["id"],
                                                            "recipient_email": someone["email"]})
    assert statement["salary_cents"] == new
    partner = ok(session, "search_employees", {"manager_id": ME})["employees"][0]
    ok(session, "share_compensation_statement", {"employee_id": someone["id"], "recipient_email": partner["email"]})
    later = str(today(session) + timedelta(days=30))
    scheduled = ok(session, "change_salary", {"employee_id": someone["id"], "salary_cents": new - 100,
                                              "reason": "market_adjustment", "effective_date": later})
    assert scheduled["change"]["scheduled"] and ok(session, "get_compensation", {"employee_id": someone["id"]})["salary_cents"] == new


def test_change_manager_moves_draft_reviews(session: ToolSession) -> None:
    drafts = ok(session, "list_performance_reviews", {"reviewer_id": ME, "status": "draft"})["reviews"]
    employee_id = drafts[0]["employee_id"]
    ceo = ok(session, "search_employees", {"department_id": 1})["employees"][0]
    moved = ok(session, "change_manager", {"employee_id": employee_id, "manager_id": ceo["id"]})
    assert moved["changed"] and moved["reviews_moved"] == 1 and moved["previous_manager_id"] == ME
    again = ok(session, "change_manager", {"employee_id": employee_id, "manager_id": ceo["id"]})
    assert not again["changed"] and again["reviews_moved"] == 0
    assert ok(session, "list_performance_reviews", {"employee_id": employee_id, "status": "draft"})["reviews"][0][
        "reviewer_id"] == ceo["id"]


def test_submit_review_and_complete_task(session: ToolSession) -> None:
    review = ok(session, "list_performance_reviews", {"reviewer_id": ME, "status": "draft"})["reviews"][0]
    done = ok(session, "submit_performance_review", {"review_id": review["id"], "rating": 5, "summary": "Outstanding year."})
    assert (done["status"], done["rating"]) == ("submitted", 5) and done["submitted_at"]
    task_id = raw(session, "SELECT id FROM onboarding_tasks WHERE assignee_id = ? AND status = 'open' ORDER BY id", (ME,))[0][0]
    first = ok(session, "complete_onboarding_task", {"task_id": task_id})
    assert first["status"] == "done"
    before = session.state_hash()
    assert ok(session, "complete_onboarding_task", {"task_id": task_id}) == first
    assert session.state_hash() == before


def test_termination_cancels_future_time_off(session: ToolSession, everyone: list[Row]) -> None:
    heads = {d["head_id"] for d in ok(session, "list_departments")["departments"]}
    leaver = next(p for p in everyone if p["status"] == "active" and p["id"] not in heads and p["id"] != ME
                  and not ok(session, "get_employee", {"employee_id": p["id"]})["direct_report_count"]
                  and raw(session, "SELECT 1 FROM time_off_requests WHERE employee_id = ? AND status = 'pending'", (p["id"],)))
    out = ok(session, "terminate_employee", {"employee_id": leaver["id"], "reason": "Resigned"})
    assert out["employee"]["status"] == "terminated" and out["requests_cancelled"] >= 1
    assert not raw(session, "SELECT 1 FROM time_off_requests WHERE employee_id = ? AND status = 'pending'", (leaver["id"],))


# ---------------------------------------------------------------- policy: refused, nothing changed


def test_leave_beyond_the_balance_is_refused(session: ToolSession, everyone: list[Row]) -> None:
    someone = person(everyone, status="active", manager_id=ME)
    year = today(session).year
    left = ok(session, "get_time_off_balance", {"employee_id": someone["id"], "year": year})["balances"][2]["remaining_days"]
    start, end = free_days(session, someone["id"], left + 1)
    assert int(start[:4]) == year
    assert "remaining balance" in fails(session, "request_time_off", {
        "employee_id": someone["id"], "policy": "personal", "start_date": start, "end_date": end}, "forbidden")
    assert ok(session, "request_time_off", {"employee_id": someone["id"], "policy": "personal", "start_date": start,
                                            "end_date": start})["days"] == 1 or left == 0


def test_only_the_manager_decides_never_the_employee(session: ToolSession) -> None:
    theirs = pending(session, mine=False)
    for tool, extra in (("approve_time_off_request", {}), ("deny_time_off_request", {"reason": "No"})):
        assert "only the employee's manager" in fails(session, tool, {"request_id": theirs["id"], **extra}, "forbidden")
    mine = ok(session, "search_time_off_requests", {"employee_id": ME, "status": "pending"})["requests"][0]
    assert "never the employee themself" in fails(session, "approve_time_off_request", {"request_id": mine["id"]}, "forbidden")


def test_only_pending_requests_are_decided_and_started_ones_not_cancelled(session: ToolSession) -> None:
    request = pending(session, mine=True)
    ok(session, "approve_time_off_request", {"request_id": request["id"]})
    fails(session, "deny_time_off_request", {"request_id": request["id"], "reason": "Late"}, "forbidden")
    past = ok(session, "search_time_off_requests", {"status": "approved", "start_to": str(today(session))})["requests"][0]
    assert "not yet started" in fails(session, "cancel_time_off_request", {"request_id": past["id"]}, "forbidden")


def test_overlapping_or_past_requests_are_refused(session: ToolSession) -> None:
    future = ok(session, "search_time_off_requests", {"status": "approved", "start_from": str(today(session) + timedelta(days=1)),
                                                      "sort_order": "asc"})["requests"][0]
    assert "may not overlap" in fails(session, "request_time_off", {
        "employee_id": future["employee_id"], "policy": "vacation", "start_date": future["start_date"],
        "end_date": future["start_date"]}, "forbidden")
    monday = today(session) - timedelta(days=today(session).weekday() + 7)
    fails(session, "request_time_off", {"employee_id": ME, "policy": "sick", "start_date": str(monday),
                                        "end_date": str(monday)}, "forbidden")


def test_salary_data_goes_only_to_hr_or_the_employee(session: ToolSession, everyone: list[Row]) -> None:
    someone = next(p for p in everyone if p["manager_id"] not in (None, ME) and p["status"] == "active")
    manager = ok(session, "get_employee", {"employee_id": someone["manager_id"]})
    assert manager["hr_role"] == "none"
    for email in (manager["email"], "stranger@example.com"):
        assert "salary data" in fails(session, "share_compensation_statement", {
            "employee_id": someone["id"], "recipient_email": email}, "forbidden")


def test_nobody_changes_their_own_salary(session: ToolSession) -> None:
    pay = ok(session, "get_compensation", {"employee_id": ME})
    assert "own salary" in fails(session, "change_salary", {"employee_id": ME, "salary_cents": pay["salary_cents"] + 100,
                                                             "reason": "merit"}, "forbidden")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(offset=st.integers(-5_000_000, 5_000_000))
def test_salaries_outside_the_band_are_refused(seeded: ToolSession, everyone: list[Row], offset: int) -> None:
    someone = person(everyone, level_code="IC2", status="active")
    pay = ok(seeded, "get_compensation", {"employee_id": someone["id"]})
    edge = pay["band_max_cents"] if offset > 0 else pay["band_min_cents"]
    salary = edge + offset
    if salary <= 0:
        return
    args = {"employee_id": someone["id"], "salary_cents": salary, "reason": "market_adjustment"}
    if pay["band_min_cents"] <= salary <= pay["band_max_cents"]:
        if salary != pay["salary_cents"]:
            assert seeded.call("change_salary", args).ok
            seeded.reset()
    else:
        assert "pay band" in fails(seeded, "change_salary", args, "forbidden")


def test_terminated_records_are_closed(session: ToolSession, everyone: list[Row]) -> None:
    gone = person(everyone, status="terminated")
    start, _ = free_days(session, ME)
    for tool, args in (("request_time_off", {"policy": "vacation", "start_date": start, "end_date": start}),
                       ("change_salary", {"salary_cents": 9_000_000, "reason": "merit"}),
                       ("change_manager", {"manager_id": ME}),
                       ("terminate_employee", {"reason": "Again"})):
        assert "closed" in fails(session, tool, {"employee_id": gone["id"], **args}, "forbidden")
    assert "current employee" in fails(session, "change_manager", {"employee_id": ME, "manager_id": gone["id"]}, "forbidden")


def test_reporting_lines_may_not_loop(session: ToolSession, everyone: list[Row]) -> None:
    report = person(everyone, manager_id=ME)
    assert "loop" in fails(session, "change_manager", {"employee_id": ME, "manager_id": report["id"]}, "forbidden")
    assert "loop" in fails(session, "change_manager", {"employee_id": ME, "manager_id": ME}, "forbidden")
    ceo = person(everyone, manager_id=None)
    fails(session, "change_manager", {"employee_id": ceo["id"], "manager_id": report["id"]}, "forbidden")


def test_managers_heads_and_yourself_are_not_terminated(session: ToolSession, everyone: list[Row]) -> None:
    second = next(p for p in everyone if p["level_code"] == "M1")
    assert "direct reports" in fails(session, "terminate_employee", {"employee_id": second["id"], "reason": "Left"}, "forbidden")
    assert "yourself" in fails(session, "terminate_employee", {"employee_id": ME, "reason": "Left"}, "forbidden")


def test_only_the_reviewer_submits_and_submitted_reviews_are_final(session: ToolSession) -> None:
    theirs = next(r for r in ok(session, "list_performance_reviews", {"status": "draft", "per_page": 100})["reviews"]
                  if r["reviewer_id"] != ME)
    args = {"rating": 3, "summary": "Met expectations this year."}
    assert "only the reviewer" in fails(session, "submit_performance_review", {"review_id": theirs["id"], **args}, "forbidden")
    closed = ok(session, "list_performance_reviews", {"reviewer_id": ME, "status": "acknowledged"})["reviews"][0]
    assert "final" in fails(session, "submit_performance_review", {"review_id": closed["id"], **args}, "forbidden")


def test_onboarding_tasks_are_ticked_off_by_their_assignee(session: ToolSession) -> None:
    task_id = raw(session, "SELECT id FROM onboarding_tasks WHERE assignee_id != ? AND status = 'open' ORDER BY id", (ME,))[0][0]
    assert "assignee" in fails(session, "complete_onboarding_task", {"task_id": task_id}, "forbidden")


# ---------------------------------------------------------------- bad ids and arguments


@pytest.mark.parametrize(("tool", "args"), [
    ("get_employee", {"employee_id": 9999}),
    ("get_employee_by_email", {"email": "nobody@northwindsystems.com"}),
    ("get_compensation", {"employee_id": 0}),
    ("get_time_off_request", {"request_id": 99999}),
    ("approve_time_off_request", {"request_id": 99999}),
    ("cancel_time_off_request", {"request_id": -1}),
    ("submit_performance_review", {"review_id": 99999, "rating": 3, "summary": "Met expectations."}),
    ("complete_onboarding_task", {"task_id": 99999}),
    ("change_manager", {"employee_id": 4, "manager_id": 9999}),
    ("search_time_off_requests", {"manager_id": 9999}),
    ("list_performance_reviews", {"reviewer_id": 9999}),
    ("who_is_out", {"start_date": "2025-11-17", "department_id": 99}),
])
def test_unknown_ids_are_not_found(session: ToolSession, tool: str, args: Row) -> None:
    fails(session, tool, args, "not_found")


@pytest.mark.parametrize(("tool", "args"), [
    ("request_time_off", {"employee_id": 1, "policy": "vacation", "start_date": "2026-02-10", "end_date": "2026-02-09"}),
    ("request_time_off", {"employee_id": 1, "policy": "vacation", "start_date": "2025-12-30", "end_date": "2026-01-02"}),
    ("request_time_off", {"employee_id": 1, "policy": "vacation", "start_date": "2026-02-14", "end_date": "2026-02-15"}),
    ("request_time_off", {"employee_id": 1, "policy": "sabbatical", "start_date": "2026-02-10", "end_date": "2026-02-10"}),
    ("change_salary", {"employee_id": 4, "salary_cents": -5, "reason": "merit"}),
    ("change_salary", {"employee_id": 4, "salary_cents": 11_000_000, "reason": "hire"}),
    ("change_salary", {"employee_id": 4, "salary_cents": 11_000_000, "reason": "merit", "effective_date": "2024-01-01"}),
    ("submit_performance_review", {"review_id": 76, "rating": 6, "summary": "Outstanding year."}),
    ("deny_time_off_request", {"request_id": 307, "reason": ""}),
    ("terminate_employee", {"employee_id": 32, "reason": "Left", "termination_date": "2030-01-01"}),
    ("get_time_off_balance", {"employee_id": 1, "year": True}),
    ("search_employees", {"per_page": 0}),
])
def test_bad_arguments_are_invalid(session: ToolSession, tool: str, args: Row) -> None:
    fails(session, tool, args, "invalid_arguments")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(employee_id=st.integers(1, 40), policy=st.sampled_from(("vacation", "sick", "personal", "parental")),
       start=st.integers(-10, 120), length=st.integers(0, 30))
def test_time_off_requests_succeed_only_within_the_rules(seeded: ToolSession, employee_id: int, policy: str,
                                                         start: int, length: int) -> None:
    first = today(seeded) + timedelta(days=start)
    last = first + timedelta(days=length)
    args = {"employee_id": employee_id, "policy": policy, "start_date": str(first), "end_date": str(last)}
    sheet = ok(seeded, "get_time_off_balance", {"employee_id": employee_id, "year": first.year})
    left = next(b for b in sheet["balances"] if b["policy"] == policy)["remaining_days"]
    before = seeded.state_hash()
    result = seeded.call("request_time_off", args)
    if result.ok:
        assert result.data is not None
        assert first >= today(seeded) and first.year == last.year
        assert result.data["days"] == working_days(first, last) <= left
        seeded.reset()
    else:
        assert (result.error or "").startswith(("forbidden: ", "invalid_arguments: "))
        assert seeded.state_hash() == before
        if first >= today(seeded) and first.year == last.year and working_days(first, last) > left:
            assert result.error and ("balance" in result.error or "overlap" in result.error or "closed" in result.error)
