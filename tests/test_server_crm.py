"""Domain behaviour of the CRM server, through the same call path an agent uses."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpgym.servers.crm import SERVER
from mcpgym.servers.crm.models import OPEN_STAGES
from mcpgym.servers.kernel import ToolSession
from mcpgym.servers.kernel.fields import format_timestamp
from mcpgym.servers.kernel.world import build_world
from tool_calls import fails, ok, uncached_env


@pytest.fixture
def session() -> ToolSession:
    return ToolSession(SERVER, 0)


def all_pages(session: ToolSession, tool: str, key: str, args: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    page: int | None = 1
    while page is not None:
        data = ok(session, tool, {**args, "page": page, "per_page": 100})
        rows += data[key]
        page = data["next_page"]
    return rows


def open_lead(session: ToolSession, status: str = "working") -> dict[str, Any]:
    return ok(session, "search_leads", {"status": [status], "per_page": 1})["leads"][0]


def open_opportunity(session: ToolSession) -> dict[str, Any]:
    return ok(session, "search_opportunities", {"status": "open", "sort_by": "id", "per_page": 1})["opportunities"][0]


def now_text(session: ToolSession) -> str:
    return format_timestamp(session.context.now)


def changed(session: ToolSession, table: str) -> set[int]:
    """The ids of the rows of `table` that differ from the seeded world."""
    return {int(change.key) for change in session.diff() if change.table == table}


# ---------------------------------------------------------------- the seeded world


def test_accounts_are_the_worlds_customer_organisations(session: ToolSession) -> None:
    world = build_world(0)
    accounts = all_pages(session, "search_accounts", "accounts", {})
    by_name = {a["name"]: a for a in accounts}
    for org in world.organizations[1:]:
        account = by_name[org.name]
        assert (account["domain"], account["industry"], account["country"]) == (org.domain, org.industry, org.country)
    assert world.home.name not in by_name
    assert len(accounts) == len(world.organizations) - 1


def test_every_world_customer_is_a_contact_or_an_open_lead(session: ToolSession) -> None:
    world = build_world(0)
    org_names = {o.id: o.name for o in world.organizations}
    contacts = leads = 0
    for person in world.customers:
        result = session.call("find_contact_by_email", {"email": person.email})
        if result.ok:
            assert result.data is not None
            contacts += 1
            assert result.data["name"] == person.name
            assert result.data["email"] == person.email
            assert result.data["account_name"] == org_names[person.organization_id]
            assert result.data["title"] == person.job_title
        else:
            found = ok(session, "search_leads", {"query": person.email, "status": ["new", "working", "nurturing", "unqualified"]})
            assert [lead["name"] for lead in found["leads"]] == [person.name]
            assert found["leads"][0]["company"] == org_names[person.organization_id]
            leads += 1
    assert 0.1 < leads / len(world.customers) < 0.2
    assert contacts + leads == len(world.customers)


def test_owners_are_home_company_employees(session: ToolSession) -> None:
    world = build_world(0)
    employees = {p.email: p for p in world.employees}
    users = ok(session, "list_users")["users"]
    assert users[0]["id"] == 1 and users[0]["role"] == "sales_manager" and users[0]["active"]
    for user in users:
        assert employees[user["email"]].name == user["name"]
    inactive = ok(session, "list_users", {"active": False})["users"]
    assert inactive and all(not u["active"] for u in inactive)


def test_history_spans_over_a_year_and_pipeline_reaches_the_future(session: ToolSession) -> None:
    now = session.context.now
    last_year = ok(session, "search_opportunities", {
        "status": "won", "close_after": (now - timedelta(days=730)).isoformat(),
        "close_before": (now - timedelta(days=365)).isoformat()})
    this_year = ok(session, "search_opportunities", {
        "status": "won", "close_after": (now - timedelta(days=365)).isoformat()})
    future = ok(session, "search_opportunities", {"status": "open", "close_after": (now + timedelta(days=30)).isoformat()})
    assert last_year["total"] > 0 and this_year["total"] > 0 and future["total"] > 0
    for opp in future["opportunities"]:
        assert opp["stage"] in ("Prospecting", "Qualification", "Proposal", "Negotiation")
        assert opp["close_date"] > now_text(session)


# ---------------------------------------------------------------- search and derived numbers


def test_pages_cover_the_results_exactly_once(session: ToolSession) -> None:
    args = {"status": "closed", "sort_by": "amount", "sort_order": "desc"}
    first = ok(session, "search_opportunities", {**args, "per_page": 7})
    rows = all_pages(session, "search_opportunities", "opportunities", args)
    ids = [o["id"] for o in rows]
    assert len(ids) == len(set(ids)) == first["total"]
    assert [o["id"] for o in first["opportunities"]] == ids[:7]
    amounts = [o["amount"] for o in rows]
    assert amounts == sorted(amounts, reverse=True)
    last = ok(session, "search_opportunities", {**args, "per_page": 7, "page": (first["total"] + 6) // 7})
    assert last["next_page"] is None and last["opportunities"]


def test_opportunity_filters_hold_for_every_result(session: ToolSession) -> None:
    args = {"stage": ["Proposal", "Negotiation"], "amount_min": 5000, "amount_max": 40000, "owner_id": 3}
    rows = all_pages(session, "search_opportunities", "opportunities", args)
    assert rows
    for opp in rows:
        assert opp["stage"] in ("Proposal", "Negotiation") and 5000 <= opp["amount"] <= 40000
        assert opp["owner_id"] == 3


@pytest.mark.parametrize("group_by", ["stage", "owner", "close_month", "account", "type"])
def test_pipeline_summary_agrees_with_search(session: ToolSession, group_by: str) -> None:
    summary = ok(session, "pipeline_summary", {"group_by": group_by})
    rows = all_pages(session, "search_opportunities", "opportunities", {"status": "open"})
    assert summary["count"] == len(rows) == sum(g["count"] for g in summary["groups"])
    assert summary["amount"] == pytest.approx(sum(o["amount"] for o in rows))
    assert summary["weighted_amount"] == pytest.approx(sum(o["amount"] * o["probability"] / 100 for o in rows))
    assert sum(g["amount"] for g in summary["groups"]) == pytest.approx(summary["amount"])


def test_pipeline_by_stage_of_one_owner_matches_stage_searches(session: ToolSession) -> None:
    summary = ok(session, "pipeline_summary", {"group_by": "stage", "status": None, "owner_id": 4})
    assert [g["key"] for g in summary["groups"]] == sorted(
        (g["key"] for g in summary["groups"]),
        key=["Prospecting", "Qualification", "Proposal", "Negotiation", "Closed Won", "Closed Lost"].index)
    for group in summary["groups"]:
        found = ok(session, "search_opportunities", {"stage": [group["key"]], "owner_id": 4})
        assert (found["total"], found["total_amount"]) == (group["count"], pytest.approx(group["amount"]))


def test_account_totals_match_its_opportunities(session: ToolSession) -> None:
    for account_id in (1, 17, 33):
        account = ok(session, "get_account", {"account_id": account_id})
        won = all_pages(session, "search_opportunities", "opportunities", {"account_id": account_id, "status": "won"})
        open_ = all_pages(session, "search_opportunities", "opportunities", {"account_id": account_id, "status": "open"})
        contacts = ok(session, "search_contacts", {"account_id": account_id})
        assert account["closed_won_amount"] == pytest.approx(sum(o["amount"] for o in won))
        assert account["open_pipeline_amount"] == pytest.approx(sum(o["amount"] for o in open_))
        assert account["open_opportunity_count"] == len(open_)
        assert account["contact_count"] == contacts["total"]
        assert (account["type"] == "customer") == bool(won) or account["type"] == "partner"


def test_overdue_tasks_are_open_tasks_due_before_now(session: ToolSession) -> None:
    overdue = all_pages(session, "search_activities", "activities", {"overdue": True})
    assert overdue
    for task in overdue:
        assert task["type"] == "task" and task["status"] == "open" and task["scheduled_at"] < now_text(session)
    open_tasks = all_pages(session, "search_activities", "activities", {"type": "task", "status": "open"})
    assert len(overdue) == sum(1 for t in open_tasks if t["scheduled_at"] < now_text(session))


# ---------------------------------------------------------------- writes


def test_convert_lead_creates_contact_and_opportunity_and_is_final(session: ToolSession) -> None:
    lead = open_lead(session)
    history = ok(session, "search_activities", {"lead_id": lead["id"]})["total"]
    result = ok(session, "convert_lead", {
        "lead_id": lead["id"], "create_opportunity": True, "opportunity_amount": 25000,
        "opportunity_close_date": "2026-03-31"})
    assert result["account"]["name"] == lead["company"] and not result["account_created"]
    contact = ok(session, "find_contact_by_email", {"email": lead["email"]})
    assert contact["id"] == result["contact"]["id"] and contact["account_name"] == lead["company"]
    assert contact["name"] == lead["name"]
    stored = ok(session, "get_lead", {"lead_id": lead["id"]})
    assert stored["status"] == "converted" and stored["converted_contact_id"] == contact["id"]
    opp = ok(session, "get_opportunity", {"opportunity_id": stored["converted_opportunity_id"]})
    assert (opp["stage"], opp["amount"], opp["contact_id"]) == ("Prospecting", 25000, contact["id"])
    assert ok(session, "search_activities", {"contact_id": contact["id"]})["total"] >= history
    error = fails(session, "convert_lead", {"lead_id": lead["id"]}, "forbidden")
    assert "converted" in error
    fails(session, "update_lead", {"lead_id": lead["id"], "rating": "cold"}, "forbidden")


def test_convert_lead_of_a_new_company_creates_the_account(session: ToolSession) -> None:
    lead = ok(session, "create_lead", {"first_name": "Rosa", "last_name": "Vance", "email": "rosa@vance-labs.io",
                                       "company": "Vance Labs", "industry": "energy", "source": "event"})
    assert ok(session, "search_leads", {"query": "vance labs"})["leads"][0]["id"] == lead["id"]
    result = ok(session, "convert_lead", {"lead_id": lead["id"]})
    assert result["account_created"] and result["opportunity"] is None
    account = ok(session, "search_accounts", {"query": "Vance Labs"})["accounts"]
    assert [a["id"] for a in account] == [result["account"]["id"]]
    assert account[0]["industry"] == "energy" and account[0]["domain"] == "vance-labs.io"


def test_failed_conversion_leaves_no_partial_records(session: ToolSession) -> None:
    lead = ok(session, "create_lead", {"first_name": "Ivo", "last_name": "Marsh", "email": "ivo@marsh.example",
                                       "company": "Marsh Example"})
    fails(session, "convert_lead", {"lead_id": lead["id"], "create_opportunity": True,
                                    "opportunity_amount": 100, "opportunity_close_date": "2020-01-01"},
          "invalid_arguments")
    assert ok(session, "search_accounts", {"query": "Marsh Example"})["total"] == 0
    fails(session, "find_contact_by_email", {"email": "ivo@marsh.example"}, "not_found")


def test_unqualified_lead_cannot_be_converted_until_reopened(session: ToolSession) -> None:
    lead = open_lead(session, "unqualified")
    fails(session, "convert_lead", {"lead_id": lead["id"]}, "forbidden")
    assert ok(session, "update_lead", {"lead_id": lead["id"], "status": "working"})["status"] == "working"
    assert ok(session, "convert_lead", {"lead_id": lead["id"]})["lead"]["status"] == "converted"


def test_closed_won_sets_close_date_and_makes_the_account_a_customer(session: ToolSession) -> None:
    prospects = ok(session, "search_accounts", {"type": "prospect", "per_page": 100})["accounts"]
    opp = ok(session, "create_opportunity", {"account_id": prospects[0]["id"], "name": "Pilot", "amount": 9000,
                                             "close_date": "2026-02-01", "stage": "Qualification"})
    assert opp["probability"] == 20 and opp["owner_id"] == 1
    moved = ok(session, "change_opportunity_stage", {"opportunity_id": opp["id"], "stage": "Negotiation"})
    assert moved["probability"] == 75
    won = ok(session, "change_opportunity_stage", {"opportunity_id": opp["id"], "stage": "Closed Won"})
    assert won["close_date"] == now_text(session) and won["probability"] == 100
    assert [(h["from_stage"], h["to_stage"]) for h in won["stage_history"]] == [
        (None, "Qualification"), ("Qualification", "Negotiation"), ("Negotiation", "Closed Won")]
    assert ok(session, "get_account", {"account_id": prospects[0]["id"]})["type"] == "customer"
    assert ok(session, "pipeline_summary", {"status": "won", "account_id": prospects[0]["id"]})["amount"] == 9000


def test_closed_opportunities_are_final(session: ToolSession) -> None:
    lost = ok(session, "search_opportunities", {"status": "lost", "per_page": 1})["opportunities"][0]
    fails(session, "change_opportunity_stage", {"opportunity_id": lost["id"], "stage": "Proposal"}, "forbidden")
    fails(session, "update_opportunity", {"opportunity_id": lost["id"], "amount": 1}, "forbidden")
    fails(session, "reassign_owner", {"record_type": "opportunity", "record_id": lost["id"], "owner_id": 2}, "forbidden")
    opp = open_opportunity(session)
    fails(session, "change_opportunity_stage", {"opportunity_id": opp["id"], "stage": "Closed Lost"}, "invalid_arguments")
    closed = ok(session, "change_opportunity_stage", {"opportunity_id": opp["id"], "stage": "Closed Lost",
                                                      "loss_reason": "competitor"})
    assert closed["loss_reason"] == "competitor" and closed["close_date"] == now_text(session)
    fails(session, "change_opportunity_stage", {"opportunity_id": opp["id"], "stage": "Closed Won"}, "forbidden")


def test_update_opportunity_is_seen_by_reads(session: ToolSession) -> None:
    opp = open_opportunity(session)
    updated = ok(session, "update_opportunity", {"opportunity_id": opp["id"], "amount": 123456.5,
                                                 "close_date": "2026-06-30", "probability": 35})
    assert updated["weighted_amount"] == pytest.approx(123456.5 * 0.35)
    found = ok(session, "search_opportunities", {"amount_min": 123456, "amount_max": 123457})["opportunities"]
    assert [(o["id"], o["close_date"]) for o in found] == [(opp["id"], "2026-06-30T00:00:00Z")]
    fails(session, "update_opportunity", {"opportunity_id": opp["id"], "close_date": "2024-01-01"}, "invalid_arguments")


def test_reassign_account_with_related_records(session: ToolSession) -> None:
    account = ok(session, "get_account", {"account_id": 5})
    new_owner = next(u for u in ok(session, "list_users", {"active": True, "role": "account_executive"})["users"]
                     if u["id"] != account["owner_id"])
    result = ok(session, "reassign_owner", {"record_type": "account", "record_id": 5, "owner_id": new_owner["id"],
                                            "include_related": True})
    assert result["previous_owner_id"] == account["owner_id"]
    contacts = all_pages(session, "search_contacts", "contacts", {"account_id": 5})
    deals = all_pages(session, "search_opportunities", "opportunities", {"account_id": 5, "status": "open"})
    assert {c["owner_id"] for c in contacts} == {new_owner["id"]}
    assert all(o["owner_id"] == new_owner["id"] for o in deals)
    assert ok(session, "get_account", {"account_id": 5})["owner_name"] == new_owner["name"]


def test_inactive_users_cannot_own_records(session: ToolSession) -> None:
    inactive = ok(session, "list_users", {"active": False})["users"][0]
    fails(session, "reassign_owner", {"record_type": "account", "record_id": 1, "owner_id": inactive["id"]}, "forbidden")
    fails(session, "create_opportunity", {"account_id": 1, "name": "X", "amount": 10, "close_date": "2026-01-01",
                                          "owner_id": inactive["id"]}, "forbidden")


def test_tasks_are_completed_once(session: ToolSession) -> None:
    opp = open_opportunity(session)
    due = (session.context.now + timedelta(days=3)).isoformat()
    task = ok(session, "log_activity", {"type": "task", "subject": "Send contract", "opportunity_id": opp["id"],
                                        "scheduled_at": due, "priority": "high"})
    assert (task["status"], task["account_id"]) == ("open", opp["account_id"])
    done = ok(session, "complete_task", {"activity_id": task["id"]})
    assert done["status"] == "completed" and done["completed_at"] == now_text(session)
    fails(session, "complete_task", {"activity_id": task["id"]}, "forbidden")
    call = ok(session, "log_activity", {"type": "call", "subject": "Quick call", "opportunity_id": opp["id"],
                                        "outcome": "no_answer", "duration_minutes": 5})
    assert call["status"] == "completed"
    fails(session, "complete_task", {"activity_id": call["id"]}, "forbidden")
    listed = ok(session, "search_activities", {"opportunity_id": opp["id"], "per_page": 100})["activities"]
    assert {task["id"], call["id"]} <= {a["id"] for a in listed}


def test_activities_must_agree_on_one_account(session: ToolSession) -> None:
    opp = open_opportunity(session)
    other = ok(session, "search_contacts", {"per_page": 100})["contacts"]
    stranger = next(c for c in other if c["account_id"] != opp["account_id"])
    fails(session, "log_activity", {"type": "call", "subject": "x", "opportunity_id": opp["id"],
                                    "contact_id": stranger["id"]}, "invalid_arguments")
    future = (session.context.now + timedelta(days=1)).isoformat()
    fails(session, "log_activity", {"type": "call", "subject": "x", "opportunity_id": opp["id"],
                                    "scheduled_at": future}, "invalid_arguments")
    meeting = ok(session, "log_activity", {"type": "meeting", "subject": "Demo", "contact_id": stranger["id"],
                                           "scheduled_at": future, "duration_minutes": 60})
    assert meeting["status"] == "planned" and meeting["account_id"] == stranger["account_id"]


def test_notes_are_listed_on_their_record_and_account(session: ToolSession) -> None:
    opp = open_opportunity(session)
    note = ok(session, "add_note", {"record_type": "opportunity", "record_id": opp["id"], "body": "Champion left."})
    assert ok(session, "list_notes", {"opportunity_id": opp["id"]})["notes"][0]["id"] == note["id"]
    assert note["id"] in [n["id"] for n in all_pages(session, "list_notes", "notes", {"account_id": opp["account_id"]})]
    converted = ok(session, "search_leads", {"status": ["converted"], "per_page": 1})["leads"][0]
    fails(session, "add_note", {"record_type": "lead", "record_id": converted["id"], "body": "x"}, "forbidden")


def test_duplicate_people_are_refused(session: ToolSession) -> None:
    contact = ok(session, "get_contact", {"contact_id": 1})
    fails(session, "create_contact", {"first_name": "A", "last_name": "B", "email": contact["email"].upper(),
                                      "account_id": 1}, "invalid_arguments")
    fails(session, "create_lead", {"first_name": "A", "last_name": "B", "email": contact["email"],
                                   "company": "X"}, "invalid_arguments")
    lead = open_lead(session)
    fails(session, "create_contact", {"first_name": "A", "last_name": "B", "email": lead["email"],
                                      "account_id": 1}, "forbidden")
    fails(session, "create_account", {"name": contact["account_name"].lower()}, "invalid_arguments")


def test_created_contact_is_found_by_email(session: ToolSession) -> None:
    created = ok(session, "create_contact", {"first_name": "Pat", "last_name": "Ng", "email": "pat.ng@example.org",
                                             "account_id": 2, "title": "CFO"})
    assert ok(session, "find_contact_by_email", {"email": "PAT.NG@example.org"})["id"] == created["id"]
    assert created["owner_id"] == 1 and created["account_name"] == ok(session, "get_account", {"account_id": 2})["name"]


# ---------------------------------------------------------------- what each write touches


def test_winning_a_deal_of_a_customer_leaves_the_account_unchanged(session: ToolSession) -> None:
    account = ok(session, "search_accounts", {"type": "customer", "per_page": 1})["accounts"][0]
    opp = ok(session, "create_opportunity", {"account_id": account["id"], "name": "Renewal", "amount": 5000,
                                             "close_date": "2026-02-01"})
    ok(session, "change_opportunity_stage", {"opportunity_id": opp["id"], "stage": "Closed Won"})
    assert changed(session, "accounts") == set()
    assert ok(session, "get_account", {"account_id": account["id"]})["updated_at"] == account["updated_at"]
    assert changed(session, "opportunities") == {opp["id"]}


def test_conversion_moves_the_leads_history_and_nothing_else(session: ToolSession) -> None:
    lead = max(all_pages(session, "search_leads", "leads", {"status": ["working"]}),
               key=lambda lead: ok(session, "search_activities", {"lead_id": lead["id"]})["total"])
    note = ok(session, "add_note", {"record_type": "lead", "record_id": lead["id"], "body": "Budget approved."})
    activities = all_pages(session, "search_activities", "activities", {"lead_id": lead["id"]})
    assert activities and all(a["account_id"] is None and a["contact_id"] is None for a in activities)
    result = ok(session, "convert_lead", {"lead_id": lead["id"]})
    contact, account = result["contact"]["id"], result["account"]["id"]
    moved = all_pages(session, "search_activities", "activities", {"lead_id": lead["id"]})
    assert [(a["id"], a["contact_id"], a["account_id"]) for a in moved] == [
        (a["id"], contact, account) for a in activities]
    notes = all_pages(session, "list_notes", "notes", {"lead_id": lead["id"]})
    assert note["id"] in {n["id"] for n in notes}
    assert all((n["contact_id"], n["account_id"]) == (contact, account) for n in notes)
    assert changed(session, "activities") == {a["id"] for a in activities}
    assert changed(session, "notes") == {n["id"] for n in notes}
    assert changed(session, "leads") == {lead["id"]}


def test_reassigning_an_account_moves_exactly_what_it_counts(session: ToolSession) -> None:
    account = ok(session, "get_account", {"account_id": 5})
    new_owner = next(u for u in ok(session, "list_users", {"active": True})["users"] if u["id"] != account["owner_id"])
    contacts = all_pages(session, "search_contacts", "contacts", {"account_id": 5})
    ok(session, "reassign_owner", {"record_type": "contact", "record_id": contacts[0]["id"], "owner_id": new_owner["id"]})
    deals = all_pages(session, "search_opportunities", "opportunities", {"account_id": 5})
    result = ok(session, "reassign_owner", {"record_type": "account", "record_id": 5, "owner_id": new_owner["id"],
                                            "include_related": True})
    moved_contacts = {c["id"] for c in contacts[1:] if c["owner_id"] != new_owner["id"]}
    moved_deals = {o["id"] for o in deals if o["stage"] in OPEN_STAGES and o["owner_id"] != new_owner["id"]}
    assert (result["reassigned_contacts"], result["reassigned_opportunities"]) == (len(moved_contacts), len(moved_deals))
    assert moved_contacts and moved_deals and len(moved_deals) < len(deals)
    assert changed(session, "contacts") == moved_contacts | {contacts[0]["id"]}
    assert changed(session, "opportunities") == moved_deals
    assert changed(session, "accounts") == {5}
    after = {o["id"]: o for o in all_pages(session, "search_opportunities", "opportunities", {"account_id": 5})}
    assert all(after[o["id"]]["owner_id"] == o["owner_id"] for o in deals if o["id"] not in moved_deals)


# ---------------------------------------------------------------- text search


@pytest.fixture(scope="module")
def seeded() -> ToolSession:
    return ToolSession(SERVER, 0)


@pytest.fixture(scope="module")
def every_account(seeded: ToolSession) -> list[dict[str, Any]]:
    return all_pages(seeded, "search_accounts", "accounts", {})


@pytest.fixture(scope="module")
def every_contact(seeded: ToolSession) -> list[dict[str, Any]]:
    return all_pages(seeded, "search_contacts", "contacts", {})


SEARCH_TEXT = st.text(alphabet="aeinorst %_/.-'", min_size=1, max_size=5)
"""Search texts made of letters common in names and the characters LIKE treats specially."""


@settings(max_examples=80, deadline=None)
@given(query=SEARCH_TEXT)
def test_account_search_matches_its_text_literally(seeded: ToolSession, every_account: list[dict[str, Any]],
                                                   query: str) -> None:
    needle = query.strip().lower()
    expected = [a["id"] for a in every_account if needle in a["name"].lower() or needle in (a["domain"] or "").lower()]
    assert [a["id"] for a in all_pages(seeded, "search_accounts", "accounts", {"query": query})] == expected


@settings(max_examples=80, deadline=None)
@given(query=SEARCH_TEXT)
def test_contact_search_matches_its_text_literally(seeded: ToolSession, every_contact: list[dict[str, Any]],
                                                   query: str) -> None:
    needle = query.strip().lower()
    expected = [c["id"] for c in every_contact if needle in c["name"].lower() or needle in c["email"].lower()]
    assert [c["id"] for c in all_pages(seeded, "search_contacts", "contacts", {"query": query})] == expected


# ---------------------------------------------------------------- errors and determinism


@pytest.mark.parametrize(("tool", "args", "hint"), [
    ("get_account", {"account_id": 99999}, "search_accounts"),
    ("get_contact", {"contact_id": 99999}, "search_contacts"),
    ("get_lead", {"lead_id": 99999}, "search_leads"),
    ("get_opportunity", {"opportunity_id": 99999}, "search_opportunities"),
    ("complete_task", {"activity_id": 99999}, "search_activities"),
    ("reassign_owner", {"record_type": "account", "record_id": 1, "owner_id": 99999}, "list_users"),
    ("find_contact_by_email", {"email": "nobody@nowhere.example"}, "search_leads"),
])
def test_unknown_ids_name_the_search_tool(session: ToolSession, tool: str, args: dict[str, Any], hint: str) -> None:
    assert hint in fails(session, tool, args, "not_found")


def test_reset_restores_the_seeded_state(session: ToolSession) -> None:
    seeded = session.state_hash()
    ok(session, "add_note", {"record_type": "account", "record_id": 1, "body": "hello"})
    assert session.state_hash() != seeded
    session.reset()
    assert session.state_hash() == seeded


@pytest.mark.slow  # every server's seeded bytes across two processes: test_kernel, in the default suite
def test_two_processes_build_the_same_state() -> None:
    code = ("from mcpgym.servers.crm import SERVER; from mcpgym.servers.kernel import ToolSession; "
            "print(ToolSession(SERVER, 0).state_hash())")
    hashes = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             cwd="/", env=uncached_env()).stdout.strip() for _ in range(2)}
    assert len(hashes) == 1
    assert hashes == {ToolSession(SERVER, 0).state_hash()}


def test_other_seeds_move_the_clock_and_differ(session: ToolSession) -> None:
    other = ToolSession(SERVER, 3)
    assert other.context.now == session.context.now + timedelta(days=3)
    assert other.state_hash() != session.state_hash()
    assert datetime.fromisoformat(ok(other, "search_opportunities", {
        "sort_by": "created_at", "sort_order": "desc", "per_page": 1})["opportunities"][0]["created_at"][:-1]) \
        <= other.context.now
