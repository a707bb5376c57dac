"""The expense tool: employees as HR has them, trips as the airline flew them, reports and their
reads, the write workflow (file, fix, submit, approve, reject, reopen, reimburse) and every
rule of the expense policy refused with nothing changed."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpgym.servers.catalog import load_server
from mcpgym.servers.expenses.data import CURRENCY_RATES, to_usd_cents
from mcpgym.servers.kernel.database import load_database, new_connection
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.world import build_world

SPEC = load_server("expenses")
NOW = build_world(0).now
TODAY = NOW.date()


@pytest.fixture(scope="module")
def module_session() -> Iterator[ToolSession]:
    with ToolSession(SPEC, 0) as session:
        yield session


@pytest.fixture
def s(module_session: ToolSession) -> ToolSession:
    module_session.reset()
    return module_session


def ok(session: ToolSession, tool: str, **arguments: Any) -> Any:
    result = session.call(tool, arguments)
    assert result.ok, f"{tool}({arguments}): {result.error}"
    return result.data


def refused(session: ToolSession, tool: str, rule: str, **arguments: Any) -> str:
    """The call is forbidden naming `rule`, and nothing changes."""
    before = session.state_hash()
    result = session.call(tool, arguments)
    assert (result.error or "").startswith("forbidden: "), result.text[:300]
    assert rule in (result.error or ""), result.error
    assert session.state_hash() == before
    return result.error or ""


def failed(session: ToolSession, tool: str, code: str, **arguments: Any) -> None:
    before = session.state_hash()
    result = session.call(tool, arguments)
    assert (result.error or "").startswith(f"{code}: "), result.text[:300]
    assert session.state_hash() == before


def me(session: ToolSession) -> dict[str, Any]:
    return ok(session, "get_my_profile")


def mine(session: ToolSession, title: str, status: str) -> dict[str, Any]:
    found = ok(session, "search_reports", query=title, status=[status], employee_id=me(session)["id"])
    assert found["total"] == 1, (title, status, found["total"])
    return found["reports"][0]


def seeded(server: str, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    connection = new_connection()
    load_database(connection, load_server(server).seeded(0).snapshot)
    rows = connection.execute(sql, params).fetchall()
    connection.close()
    return rows


# ---------------------------------------------------------------- the seeded world


def test_employees_and_managers_are_hrs() -> None:
    ours = seeded("expenses", "SELECT id, person_id, name, email, job_title, manager_id, status FROM employees ORDER BY id")
    theirs = seeded("hr", "SELECT id, person_id, name, email, job_title, manager_id, status FROM employees ORDER BY id")
    assert ours == theirs and len(ours) == 40


def test_you_are_hrs_signed_in_manager_with_a_team(s: ToolSession) -> None:
    profile = me(s)
    assert profile["is_you"] and profile["id"] == 1
    assert profile["direct_reports"] and all(p["manager_id"] == 1 for p in profile["direct_reports"])
    hr_row = seeded("hr", "SELECT name, email FROM employees WHERE id = 1")[0]
    assert (profile["name"], profile["email"]) == hr_row
    assert profile["approver_name"] == profile["manager_name"] is not None
    assert profile["awaiting_my_approval"] == ok(s, "list_pending_approvals")["total"] >= 2
    assert sum(profile["my_reports_by_status"].values()) == ok(s, "search_reports", employee_id=1)["total"]


def test_lookup_by_email_agrees_with_the_world(s: ToolSession) -> None:
    world = build_world(0)
    for person in world.employees[:10]:
        found = ok(s, "get_employee_by_email", email=person.email.upper())
        assert (found["name"], found["email"], found["organization_name"]) == (person.name, person.email, world.home.name)
    failed(s, "get_employee_by_email", "not_found", email=world.customers[0].email)


def test_decided_reports_were_decided_by_the_submitters_approver() -> None:
    rows = seeded("expenses", "SELECT reports.approver_id, employees.approver_id, employees.manager_id FROM reports "
                              "JOIN employees ON employees.id = reports.employee_id WHERE reports.approver_id IS NOT NULL")
    assert rows and all(decided == due for decided, due, _ in rows)
    assert sum(manager is not None and decided == manager for decided, _, manager in rows) >= len(rows) - 20


def test_submitted_reports_meet_the_policy_when_seeded(s: ToolSession) -> None:
    for status in ("submitted", "approved", "reimbursed"):
        for page in (1, 2):
            for report in ok(s, "search_reports", status=[status], per_page=100, page=page)["reports"][:40]:
                problems = ok(s, "check_report", report_id=report["id"])["violations"]
                assert not [p for p in problems if p["rule"] in ("justification_required", "receipt_required")], report


def test_trips_are_the_airlines_flown_bookings_at_what_they_charged() -> None:
    airfare = seeded("expenses", "SELECT items.flight_pnr, items.usd_cents, employees.email FROM items "
                                 "JOIN reports ON reports.id = items.report_id JOIN employees ON employees.id = reports.employee_id "
                                 "WHERE items.flight_pnr IS NOT NULL")
    booked = {pnr: (status, email, charged) for pnr, status, email, charged in seeded(
        "flights", "SELECT reservations.pnr, reservations.status, passengers.email, "
                   "(SELECT sum(amount) FROM payments WHERE payments.reservation_id = reservations.id) "
                   "FROM reservations JOIN passengers ON passengers.id = reservations.passenger_id")}
    assert len(airfare) > 100 and len({pnr for pnr, _, _ in airfare}) == len(airfare)
    for pnr, cents, email in airfare:
        status, lead, charged = booked[pnr]
        assert (status, lead, cents) == ("flown", email, charged * 100)


def test_report_totals_equal_their_items_and_reimbursements_pay_them(s: ToolSession) -> None:
    report = ok(s, "search_reports", status=["reimbursed"], is_travel=True, per_page=1)["reports"][0]
    full = ok(s, "get_report", report_id=report["id"])
    assert full["total_cents"] == sum(i["usd_cents"] for i in full["items"]) == full["reimbursement"]["amount_cents"]
    assert [e["action"] for e in full["history"]][-1] == "reimbursed"
    assert full["items"][0]["usd_cents"] == to_usd_cents(full["items"][0]["amount_cents"], full["items"][0]["currency"])
    assert ok(s, "get_report_by_number", number=full["number"].lower())["id"] == report["id"]
    paid = ok(s, "list_reimbursements", employee_id=report["employee_id"], per_page=100)
    assert paid["amount_cents"] == sum(r["amount_cents"] for r in paid["reimbursements"])


def test_search_reports_filters_and_sums(s: ToolSession) -> None:
    found = ok(s, "search_reports", status=["submitted", "approved"], sort_by="total_cents", per_page=100)
    assert found["total"] == len(found["reports"]) >= 5
    assert all(r["status"] in ("submitted", "approved") for r in found["reports"])
    totals = [r["total_cents"] for r in found["reports"]]
    assert totals == sorted(totals, reverse=True) and found["total_cents"] == sum(totals)
    big = ok(s, "search_reports", min_total_cents=500_000, per_page=100)
    assert big["total"] and all(r["total_cents"] >= 500_000 for r in big["reports"])
    window = ok(s, "search_reports", created_after="2025-06-01", created_before="2025-06-30", per_page=100)
    assert all("2025-06-01" <= r["created_at"][:10] <= "2025-06-30" for r in window["reports"])
    failed(s, "search_reports", "invalid_arguments", created_after="2025-07-01", created_before="2025-06-01")
    failed(s, "search_reports", "not_found", employee_id=4040)


def test_search_items_limit_flags_and_spending_summary(s: ToolSession) -> None:
    over = ok(s, "search_items", over_limit=True, per_page=100)
    assert over["total"] and all(i["over_limit"] and i["usd_cents"] > i["limit_cents"] for i in over["items"])
    within = ok(s, "search_items", over_limit=False, category="meals", per_page=100)
    assert all(not i["over_limit"] for i in within["items"])
    assert over["total"] + ok(s, "search_items", over_limit=False, per_page=1)["total"] == ok(s, "search_items", per_page=1)["total"]
    summary = ok(s, "spending_summary", group_by="category", limit=100)
    assert summary["usd_cents"] == sum(g["usd_cents"] for g in summary["groups"])
    months = ok(s, "spending_summary", group_by="month", limit=100)["groups"]
    assert [g["key"] for g in months] == sorted(g["key"] for g in months)
    draft_only = ok(s, "spending_summary", group_by="employee", status=["draft"], limit=100)
    assert draft_only["usd_cents"] == sum(r["total_cents"] for r in ok(s, "search_reports", status=["draft"], per_page=100)["reports"])


def test_categories_state_the_limits(s: ToolSession) -> None:
    found = ok(s, "list_categories")
    by_code = {c["code"]: c for c in found["categories"]}
    assert by_code["meals"]["limit_basis"] == "per_day" and by_code["lodging"]["limit_basis"] == "per_night"
    assert by_code["other"]["limit_cents"] is None
    assert found["receipt_threshold_cents"] == 7_500 and found["max_item_age_days"] == 90


# ---------------------------------------------------------------- writes


def test_file_fix_and_submit_a_new_report(s: ToolSession) -> None:
    report = ok(s, "create_report", title="Customer visit Denver", business_purpose="Renewal meeting", is_travel=True,
                destination="Denver")
    assert report["status"] == "draft" and report["number"] == f"ER-{10000 + report['id']}"
    day = str(TODAY - timedelta(days=3))
    hotel = ok(s, "add_item", report_id=report["id"], expense_date=day, merchant="Hilton Denver", category="lodging",
               amount_cents=60_000, quantity=2)
    assert hotel["limit_cents"] == 50_000 and hotel["over_limit"]
    taxi = ok(s, "add_item", report_id=report["id"], expense_date=day, merchant="Uber", category="ground_transport",
              amount_cents=2_000, currency="EUR", receipt_file="uber.pdf")
    assert taxi["usd_cents"] == 2_170 and taxi["receipt_attached"]
    check = ok(s, "check_report", report_id=report["id"])
    assert not check["can_submit"] and {v["rule"] for v in check["violations"]} == {"justification_required", "receipt_required"}
    ok(s, "update_item", item_id=hotel["id"], justification="Trade fair week in Denver.")
    ok(s, "attach_receipt", item_id=hotel["id"], file_name="hilton-folio.pdf")
    ok(s, "update_report", report_id=report["id"], title="Denver customer visit")
    assert ok(s, "check_report", report_id=report["id"])["can_submit"]
    done = ok(s, "submit_report", report_id=report["id"])
    assert done["status"] == "submitted" and done["title"] == "Denver customer visit" and done["total_cents"] == 62_170
    assert [e["action"] for e in done["history"]] == ["created", "submitted"]
    assert done["due_approver_id"] == me(s)["approver_id"]


def test_remove_item_and_delete_a_draft(s: ToolSession) -> None:
    report = mine(s, "Customer workshop prep", "draft")
    items = ok(s, "get_report", report_id=report["id"])["items"]
    removed = ok(s, "remove_item", item_id=items[0]["id"])
    assert removed["items_left"] == len(items) - 1 and removed["total_cents"] == report["total_cents"] - items[0]["usd_cents"]
    failed(s, "get_report", "not_found", report_id=ok(s, "delete_report", report_id=report["id"])["report_id"])
    assert not ok(s, "search_items", report_id=ok(s, "create_report", title="x", business_purpose="y")["id"])["items"]


def test_approve_reject_and_reimburse_team_reports(s: ToolSession) -> None:
    queue = ok(s, "list_pending_approvals")["reports"]
    first, second = queue[0], queue[1]
    approved = ok(s, "approve_report", report_id=first["id"], comment="Thanks")
    assert approved["status"] == "approved" and approved["approver_id"] == 1 and approved["history"][-1]["comment"] == "Thanks"
    rejected = ok(s, "reject_report", report_id=second["id"], reason="Attach the receipts.")
    assert rejected["status"] == "rejected" and rejected["rejection_reason"] == "Attach the receipts."
    paid = ok(s, "record_reimbursement", report_id=first["id"], method="payroll")
    assert paid["amount_cents"] == first["total_cents"] and paid["reference"].startswith("PAYROLL-")
    assert ok(s, "get_report", report_id=first["id"])["status"] == "reimbursed"
    assert ok(s, "list_pending_approvals")["total"] == len(queue) - 2


def test_reopen_a_rejected_report_then_submit_it_again(s: ToolSession) -> None:
    report = mine(s, "Conference travel extras", "rejected")
    reopened = ok(s, "reopen_report", report_id=report["id"])
    assert reopened["status"] == "draft" and reopened["rejection_reason"]
    refused(s, "delete_report", "owner edits drafts only", report_id=report["id"])
    again = ok(s, "submit_report", report_id=report["id"])
    assert again["status"] == "submitted" and again["rejection_reason"] is None
    assert [e["action"] for e in again["history"]][-3:] == ["rejected", "reopened", "submitted"]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cents=st.integers(1, 2_000_000), currency=st.sampled_from(sorted(CURRENCY_RATES)),
       category=st.sampled_from(["meals", "software", "client_entertainment", "other"]))
def test_added_items_convert_and_flag_like_the_policy(s: ToolSession, cents: int, currency: str, category: str) -> None:
    s.reset()
    report = mine(s, "Team offsite supplies", "draft")
    item = ok(s, "add_item", report_id=report["id"], expense_date=str(TODAY), merchant="Shop", category=category,
              amount_cents=cents, currency=currency)
    assert item["usd_cents"] == to_usd_cents(cents, currency)
    assert item["over_limit"] == (item["limit_cents"] is not None and item["usd_cents"] > item["limit_cents"])
    assert ok(s, "get_report", report_id=report["id"])["total_cents"] == report["total_cents"] + item["usd_cents"]
    rules = {v["rule"] for v in ok(s, "check_report", report_id=report["id"])["violations"]}
    assert ("justification_required" in rules) == item["over_limit"]
    assert ("receipt_required" in rules) == (item["usd_cents"] > 7_500)


# ---------------------------------------------------------------- policy


def test_only_the_owner_edits_and_only_drafts(s: ToolSession) -> None:
    theirs = ok(s, "search_reports", status=["draft"], per_page=100)["reports"]
    other = next(r for r in theirs if r["employee_id"] != 1)
    item = ok(s, "search_items", report_id=other["id"])["items"][0]
    refused(s, "update_report", "owner edits drafts only", report_id=other["id"], title="Mine now")
    refused(s, "add_item", "owner edits drafts only", report_id=other["id"], expense_date=str(TODAY), merchant="X",
            category="meals", amount_cents=100)
    refused(s, "attach_receipt", "owner edits drafts only", item_id=item["id"], file_name="r.pdf")
    refused(s, "delete_report", "owner edits drafts only", report_id=other["id"])
    submitted = mine(s, "Q4 software renewals", "submitted")
    submitted_item = ok(s, "search_items", report_id=submitted["id"])["items"][0]
    refused(s, "add_item", "owner edits drafts only", report_id=submitted["id"], expense_date=str(TODAY), merchant="Uber",
            category="ground_transport", amount_cents=2_400)
    refused(s, "update_item", "owner edits drafts only", item_id=submitted_item["id"], justification="x")
    refused(s, "remove_item", "owner edits drafts only", item_id=submitted_item["id"])
    refused(s, "delete_report", "owner edits drafts only", report_id=submitted["id"])


def test_a_report_is_submitted_once(s: ToolSession) -> None:
    for title, status in (("Q4 software renewals", "submitted"), ("Client visits", "approved"),
                          ("Conference travel extras", "rejected")):
        refused(s, "submit_report", "submitted once", report_id=mine(s, title, status)["id"])
    reimbursed = ok(s, "search_reports", employee_id=1, status=["reimbursed"])["reports"][0]
    refused(s, "submit_report", "submitted once", report_id=reimbursed["id"])
    theirs = next(r for r in ok(s, "search_reports", status=["draft"], per_page=100)["reports"] if r["employee_id"] != 1)
    refused(s, "submit_report", "by its owner", report_id=theirs["id"])
    empty = ok(s, "create_report", title="Empty", business_purpose="Nothing yet")
    refused(s, "submit_report", "no empty reports", report_id=empty["id"])


def test_reopening_is_for_the_owners_rejected_reports(s: ToolSession) -> None:
    refused(s, "reopen_report", "reopening", report_id=mine(s, "Q4 software renewals", "submitted")["id"])
    team = ok(s, "list_pending_approvals")["reports"][0]
    ok(s, "reject_report", report_id=team["id"], reason="Missing receipt")
    refused(s, "reopen_report", "reopening", report_id=team["id"])


def test_over_limit_items_need_a_justification(s: ToolSession) -> None:
    report = mine(s, "Partner dinner", "draft")
    error = refused(s, "submit_report", "over-limit items need a justification", report_id=report["id"])
    assert "Corner Bistro" in error
    item = next(i for i in ok(s, "get_report", report_id=report["id"])["items"] if i["over_limit"])
    ok(s, "update_item", item_id=item["id"], justification="   ")
    refused(s, "submit_report", "over-limit items need a justification", report_id=report["id"])


def test_receipts_are_required_above_75_dollars(s: ToolSession) -> None:
    report = mine(s, "Home office setup", "draft")
    assert "Best Buy" in refused(s, "submit_report", "receipts above 75.00 USD", report_id=report["id"])
    item = ok(s, "search_items", report_id=report["id"], missing_receipt=True)["items"][0]
    ok(s, "update_item", item_id=item["id"], amount_cents=7_500)
    assert ok(s, "submit_report", report_id=report["id"])["status"] == "submitted"


def test_the_claim_window(s: ToolSession) -> None:
    stale = mine(s, "Certification renewal", "draft")
    refused(s, "submit_report", "claim window", report_id=stale["id"])
    draft = mine(s, "Team offsite supplies", "draft")
    for day in (TODAY + timedelta(days=1), TODAY - timedelta(days=91)):
        refused(s, "add_item", "claim window", report_id=draft["id"], expense_date=str(day), merchant="Panera Bread",
                category="meals", amount_cents=4_200)
    item = ok(s, "search_items", report_id=draft["id"])["items"][0]
    refused(s, "update_item", "claim window", item_id=item["id"], expense_date=str(TODAY - timedelta(days=120)))
    ok(s, "add_item", report_id=draft["id"], expense_date=str(TODAY - timedelta(days=90)), merchant="Panera Bread",
       category="meals", amount_cents=4_200)


def test_approval_is_for_the_submitters_manager_only(s: ToolSession) -> None:
    own = mine(s, "Q4 software renewals", "submitted")
    error = refused(s, "approve_report", "never by the submitter", report_id=own["id"])
    assert me(s)["approver_name"] in error
    refused(s, "reject_report", "never by the submitter", report_id=own["id"], reason="No")
    outside = [r for r in ok(s, "search_reports", status=["submitted"], per_page=100)["reports"]
               if ok(s, "get_report", report_id=r["id"])["due_approver_id"] not in (1, None) and r["employee_id"] != 1]
    assert outside
    refused(s, "approve_report", "approved by the submitter's manager", report_id=outside[0]["id"])
    team_done = ok(s, "search_reports", status=["approved"], per_page=100)["reports"]
    mine_to_decide = next(r for r in team_done if ok(s, "get_report", report_id=r["id"])["due_approver_id"] == 1)
    refused(s, "approve_report", "only submitted reports", report_id=mine_to_decide["id"])


def test_reimbursement_rules(s: ToolSession) -> None:
    refused(s, "record_reimbursement", "segregation of duties", report_id=mine(s, "Client visits", "approved")["id"])
    waiting = ok(s, "list_pending_approvals")["reports"][0]
    refused(s, "record_reimbursement", "reimbursement", report_id=waiting["id"])
    approved = next(r for r in ok(s, "search_reports", status=["approved"], per_page=100)["reports"] if r["employee_id"] != 1)
    ok(s, "record_reimbursement", report_id=approved["id"], reference="ACH-TEST-1")
    refused(s, "record_reimbursement", "reimbursement", report_id=approved["id"])
    other = next(r for r in ok(s, "search_reports", status=["approved"], per_page=100)["reports"] if r["employee_id"] != 1)
    failed(s, "record_reimbursement", "invalid_arguments", report_id=other["id"], reference="ACH-TEST-1")
    failed(s, "record_reimbursement", "invalid_arguments", report_id=other["id"], paid_on=str(TODAY + timedelta(days=2)))


# ---------------------------------------------------------------- bad ids and arguments


@pytest.mark.parametrize(("tool", "arguments"), [
    ("get_report", {"report_id": 99_999}), ("get_report_by_number", {"number": "ER-99999"}),
    ("get_employee", {"employee_id": 4040}), ("check_report", {"report_id": 0}),
    ("update_item", {"item_id": 99_999, "justification": "x"}), ("remove_item", {"item_id": 99_999}),
    ("approve_report", {"report_id": 99_999}), ("record_reimbursement", {"report_id": 99_999}),
    ("list_employees", {"manager_id": 4040}), ("search_items", {"report_id": 99_999}),
])
def test_unknown_ids_are_not_found(s: ToolSession, tool: str, arguments: dict[str, Any]) -> None:
    failed(s, tool, "not_found", **arguments)


def test_bad_arguments_change_nothing(s: ToolSession) -> None:
    draft = mine(s, "Team offsite supplies", "draft")
    base = {"report_id": draft["id"], "expense_date": str(TODAY), "merchant": "Shop", "category": "software"}
    for bad in ({"amount_cents": 0}, {"amount_cents": 100, "currency": "JPY"}, {"amount_cents": 100, "quantity": 3},
                {"amount_cents": 100, "category": "yachts"}, {"amount_cents": 100, "flight_pnr": "ABC123"},
                {"amount_cents": "lots"}, {"amount_cents": True}, {"amount_cents": 100, "merchant": "  "}):
        failed(s, "add_item", "invalid_arguments", **{**base, **bad})
    failed(s, "update_report", "invalid_arguments", report_id=draft["id"])
    item = ok(s, "search_items", report_id=draft["id"], category="software")["items"][0]
    failed(s, "update_item", "invalid_arguments", item_id=item["id"])
    failed(s, "update_item", "invalid_arguments", item_id=item["id"], merchant=" ")
    failed(s, "update_item", "invalid_arguments", item_id=item["id"], quantity=4)
    failed(s, "update_report", "invalid_arguments", report_id=draft["id"], title="   ")
    failed(s, "reject_report", "invalid_arguments", report_id=ok(s, "list_pending_approvals")["reports"][0]["id"], reason="")
    failed(s, "spending_summary", "invalid_arguments", group_by="weekday")
    failed(s, "list_reimbursements", "invalid_arguments", paid_after="2025-09-01", paid_before="2025-01-01")


def test_today_is_the_worlds() -> None:
    assert TODAY == date(2025, 11, 12)
