"""Domain behaviour of the telecom server, through the same call path an agent uses: the
seeded world, reads, writes and their row changes, every policy rule (refused, nothing
changed), and bad ids and arguments."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.world import build_world
from mcpgym.servers.telecom import SERVER
from mcpgym.servers.telecom.seed import cycle_start, next_cycle
from tool_calls import ok

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


def fails(session: ToolSession, tool: str, args: dict[str, Any], code: str) -> str:
    """Call a tool that must fail with `code` and change nothing (read from the change log,
    which costs what changed rather than the size of the world); its error text."""
    before = session.diff()
    result = session.call(tool, args)
    assert not result.ok, f"{tool} unexpectedly succeeded: {result.data}"
    assert result.error is not None and result.error.startswith(f"{code}: "), result.error
    assert session.diff() == before
    return result.error


def raw(session: ToolSession, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    return session._connection.execute(sql, params).fetchall()  # noqa: SLF001


def today(session: ToolSession) -> date:
    return session.context.now.date()


def line_where(session: ToolSession, sql: str) -> Row:
    """The full line of the first line id the SQL (selecting lines.id) finds."""
    rows = raw(session, sql)
    assert rows, sql
    return ok(session, "get_line", {"line_id": rows[0][0]})


GOOD_CAPPED = ("SELECT lines.id FROM lines JOIN plans ON plans.id = lines.plan_id JOIN accounts ON accounts.id = lines.account_id "
               "WHERE lines.status = 'active' AND accounts.standing = 'good' AND plans.code = 'basic-5' AND NOT lines.roaming_enabled "
               "AND (SELECT count(*) FROM line_addons WHERE line_addons.line_id = lines.id AND line_addons.starts_on >= date('{c}')) = 0 "
               "ORDER BY lines.id")


def good_capped(session: ToolSession) -> Row:
    return line_where(session, GOOD_CAPPED.format(c=cycle_start(today(session))))


# ---------------------------------------------------------------- the seeded world


def test_customers_are_world_people_and_crm_contacts(seeded: ToolSession) -> None:
    world = build_world(0)
    people = {p.email: p for p in world.people}
    orgs = {o.id: o.name for o in world.organizations}
    rows = raw(seeded, "SELECT email, name, organization_name, crm_contact_id FROM customers")
    assert len(rows) >= 250
    for email, name, org, _ in rows:
        person = people[email]
        assert (person.name, orgs[person.organization_id]) == (name, org)
        assert not person.is_employee
    found = ok(seeded, "get_customer_by_email", {"email": rows[0][0].upper()})
    assert (found["name"], found["organization_name"]) == (rows[0][1], rows[0][2])
    assert sum(r[3] is not None for r in rows) > len(rows) // 2


def test_volumes_and_history_span_more_than_a_year(seeded: ToolSession) -> None:
    counts = {t: raw(seeded, f"SELECT count(*) FROM {t}")[0][0] for t in ("lines", "bills", "usage_days", "payments")}
    assert counts["lines"] > 400 and counts["bills"] > 2000 and counts["usage_days"] > 20000
    first, last = raw(seeded, "SELECT min(period_start), max(period_start) FROM bills")[0]
    assert (date.fromisoformat(last) - date.fromisoformat(first)).days > 365


def test_seeded_world_obeys_the_rules(seeded: ToolSession) -> None:
    assert raw(seeded, "SELECT count(*) FROM lines JOIN accounts ON accounts.id = lines.account_id "
                       "WHERE lines.roaming_enabled AND accounts.standing != 'good'")[0][0] == 0
    assert raw(seeded, "SELECT count(*) FROM (SELECT line_id FROM line_addons JOIN addons ON addons.id = addon_id "
                       "WHERE addons.kind = 'data_pack' GROUP BY line_id, strftime('%Y-%m', starts_on) HAVING count(*) > 2)")[0][0] == 0
    for standing, overdue in raw(seeded, "SELECT accounts.standing, (SELECT count(*) FROM bills WHERE account_id = accounts.id "
                                         "AND status = 'overdue') FROM accounts"):
        assert (overdue > 0) == (standing != "good")
    assert raw(seeded, "SELECT count(*) FROM lines JOIN accounts ON accounts.id = lines.account_id WHERE "
                       "(accounts.standing = 'suspended') != (lines.suspension_reason IS 'non_payment')")[0][0] == 0


# ---------------------------------------------------------------- reads


def test_account_balance_is_the_unpaid_bills(seeded: ToolSession) -> None:
    account = ok(seeded, "search_accounts", {"standing": "past_due", "per_page": 1})["accounts"][0]
    bills = ok(seeded, "list_bills", {"account_id": account["id"], "per_page": 100})["bills"]
    assert account["balance_cents"] == sum(b["balance_cents"] for b in bills) > 0
    assert account["past_due_cents"] == sum(b["balance_cents"] for b in bills if b["status"] == "overdue") > 0
    detail = ok(seeded, "get_account", {"account_id": account["id"]})
    assert detail["next_cycle_start"] == str(next_cycle(today(seeded)))
    assert ok(seeded, "search_accounts", {"query": account["account_number"]})["accounts"][0]["id"] == account["id"]


def test_a_bill_adds_up(seeded: ToolSession) -> None:
    bill = ok(seeded, "get_bill", {"bill_id": 30})
    assert bill["total_cents"] == sum(i["amount_cents"] for i in bill["items"])
    assert {i["kind"] for i in bill["items"]} >= {"plan", "fee", "tax"}


@settings(max_examples=20, deadline=None)
@given(fmt=st.sampled_from(["{n}", "{d}", "({a}) {b}-{c}", "1{d}", "{last}"]), index=st.integers(0, 50))
def test_a_line_is_found_by_its_number_in_any_format(seeded: ToolSession, fmt: str, index: int) -> None:
    number = raw(seeded, "SELECT phone_number FROM lines ORDER BY id LIMIT 1 OFFSET ?", (index,))[0][0]
    digits = number.replace("+1-", "").replace("-", "")
    text = fmt.format(n=number, d=digits, a=digits[:3], b=digits[3:6], c=digits[6:], last=digits[-7:])
    found = ok(seeded, "search_lines", {"phone_number": text})["lines"]
    assert number in [line["phone_number"] for line in found]


def test_usage_counts_packs_and_reports_what_is_left(seeded: ToolSession) -> None:
    line_id = raw(seeded, "SELECT line_id FROM line_addons JOIN addons ON addons.id = addon_id WHERE kind = 'data_pack' "
                          "AND starts_on >= ? ORDER BY line_id LIMIT 1", (str(cycle_start(today(seeded))),))[0][0]
    usage = ok(seeded, "get_data_usage", {"line_id": line_id, "include_days": True})
    assert usage["data_pack_mb"] > 0
    assert usage["used_mb"] == sum(d["data_mb"] for d in usage["days"])
    assert usage["remaining_mb"] == max(0, usage["plan_data_mb"] + usage["data_pack_mb"] - usage["used_mb"])
    previous = ok(seeded, "get_data_usage", {"line_id": line_id, "cycles_back": 1})
    assert previous["cycle_end"] == str(cycle_start(today(seeded)) - timedelta(days=1))
    assert previous["days"] == []


def test_diagnostics_find_the_wrong_setting(seeded: ToolSession) -> None:
    line_id = raw(seeded, "SELECT devices.line_id FROM devices JOIN lines ON lines.id = devices.line_id "
                          "WHERE NOT mobile_data AND lines.status = 'active' ORDER BY line_id LIMIT 1")[0][0]
    assert "mobile_data_off" in ok(seeded, "run_line_diagnostics", {"line_id": line_id})["issues"]
    abroad = raw(seeded, "SELECT devices.line_id FROM devices JOIN lines ON lines.id = devices.line_id WHERE "
                         "current_country != 'United States' AND NOT lines.roaming_enabled ORDER BY line_id LIMIT 1")[0][0]
    found = ok(seeded, "run_line_diagnostics", {"line_id": abroad})
    assert found["abroad"] and "roaming_disabled" in found["issues"] and found["roaming_zone"] in (1, 2, 3)


def test_catalogues_and_outages(seeded: ToolSession) -> None:
    plans = ok(seeded, "list_plans")["plans"]
    assert [p["price_cents"] for p in plans] == sorted(p["price_cents"] for p in plans)
    assert all(p["available"] for p in plans)
    assert len(ok(seeded, "list_plans", {"include_retired": True})["plans"]) > len(plans)
    france = ok(seeded, "list_addons", {"country": "france"})["addons"]
    assert [a["zone"] for a in france] == [2]
    fails(seeded, "list_addons", {"country": "United States"}, "not_found")
    active = ok(seeded, "check_network_outages")["outages"]
    assert active and all(o["active"] for o in active)
    area = ok(seeded, "check_network_outages", {"area": active[0]["area"].upper(), "active_only": False})
    assert area["total"] >= 1


# ---------------------------------------------------------------- writes


def test_plan_change_is_scheduled_for_the_next_cycle(session: ToolSession) -> None:
    line = good_capped(session)
    change = ok(session, "change_plan", {"line_id": line["id"], "plan_code": "plus-15"})
    assert change["effective_on"] == str(next_cycle(today(session)))
    after = ok(session, "get_line", {"line_id": line["id"]})
    assert (after["plan_code"], after["pending_plan_code"]) == ("basic-5", "plus-15")
    ok(session, "cancel_plan_change", {"line_id": line["id"]})
    assert ok(session, "get_line", {"line_id": line["id"]})["pending_plan_code"] is None


def test_an_upgrade_can_take_effect_immediately(session: ToolSession) -> None:
    line = good_capped(session)
    ok(session, "change_plan", {"line_id": line["id"], "plan_code": "unlimited", "effective": "immediately"})
    assert ok(session, "get_line", {"line_id": line["id"]})["plan_code"] == "unlimited"


def test_roaming_pass_and_data_pack(session: ToolSession) -> None:
    line = good_capped(session)
    ok(session, "set_roaming", {"line_id": line["id"], "enabled": True})
    start = today(session) + timedelta(days=10)
    bought = ok(session, "buy_roaming_pass", {"line_id": line["id"], "country": "Japan", "days": 4, "start_date": str(start)})
    assert (bought["status"], bought["price_cents"], bought["ends_on"]) == ("scheduled", 6000, str(start + timedelta(days=3)))
    fails(session, "buy_roaming_pass", {"line_id": line["id"], "country": "Japan", "days": 2,
                                         "start_date": str(start + timedelta(days=2))}, "invalid_arguments")
    ok(session, "remove_addon", {"line_addon_id": bought["id"]})
    pack = ok(session, "add_addon", {"line_id": line["id"], "addon_code": "data-3gb"})
    assert pack["ends_on"] == str(next_cycle(today(session)) - timedelta(days=1))
    assert ok(session, "get_data_usage", {"line_id": line["id"]})["data_pack_mb"] == 3072


def test_suspend_reactivate_and_device_settings(session: ToolSession) -> None:
    line = good_capped(session)
    suspended = ok(session, "suspend_line", {"line_id": line["id"], "reason": "lost_stolen"})
    assert (suspended["status"], suspended["suspension_reason"]) == ("suspended", "lost_stolen")
    fails(session, "suspend_line", {"line_id": line["id"], "reason": "lost_stolen"}, "invalid_arguments")
    ok(session, "reactivate_line", {"line_id": line["id"]})
    device = ok(session, "update_device_settings", {"line_id": line["id"], "airplane_mode": True, "network_mode": "lte_only"})
    assert (device["airplane_mode"], device["network_mode"]) == (True, "lte_only")
    ticket = ok(session, "log_ticket", {"line_id": line["id"], "category": "device", "notes": "Reset.", "resolved": True})
    assert ok(session, "list_tickets", {"line_id": line["id"]})["tickets"][0]["id"] == ticket["id"]


def test_paying_the_past_due_restores_standing_and_allows_reactivation(session: ToolSession) -> None:
    account = ok(session, "search_accounts", {"standing": "suspended", "per_page": 1})["accounts"][0]
    paid = ok(session, "make_payment", {"account_id": account["id"], "amount_cents": account["past_due_cents"]})
    assert (paid["past_due_cents"], paid["standing"]) == (0, "good")
    assert paid["balance_cents"] == account["balance_cents"] - account["past_due_cents"]
    assert paid["bills_paid_off"]
    for line in ok(session, "get_account", {"account_id": account["id"]})["lines"]:
        assert ok(session, "reactivate_line", {"line_id": line["id"]})["status"] == "active"


# ---------------------------------------------------------------- policy


def test_rule_downgrades_wait_for_the_next_cycle(session: ToolSession) -> None:
    line = good_capped(session)
    error = fails(session, "change_plan", {"line_id": line["id"], "plan_code": "talk-text", "effective": "immediately"}, "forbidden")
    assert "next billing cycle" in error


def test_rule_retired_plans_cannot_be_chosen(session: ToolSession) -> None:
    line = good_capped(session)
    assert "retired" in fails(session, "change_plan", {"line_id": line["id"], "plan_code": "classic-10"}, "forbidden")


@pytest.mark.parametrize(("tool", "arguments"), [
    ("change_plan", {"plan_code": "unlimited"}), ("add_addon", {"addon_code": "intl-calling"}),
    ("set_roaming", {"enabled": False}), ("buy_roaming_pass", {"country": "Mexico", "days": 2}),
    ("update_device_settings", {"mobile_data": True}), ("cancel_plan_change", {}),
])
def test_rule_a_suspended_line_changes_nothing(session: ToolSession, tool: str, arguments: dict[str, Any]) -> None:
    line = line_where(session, "SELECT id FROM lines WHERE suspension_reason = 'lost_stolen' ORDER BY id")
    assert "reactivated before any change" in fails(session, tool, {"line_id": line["id"], **arguments}, "forbidden")


def test_rule_roaming_needs_good_standing(session: ToolSession) -> None:
    line = line_where(session, "SELECT lines.id FROM lines JOIN accounts ON accounts.id = lines.account_id WHERE "
                               "accounts.standing = 'past_due' AND lines.status = 'active' ORDER BY lines.id")
    assert "good standing" in fails(session, "set_roaming", {"line_id": line["id"], "enabled": True}, "forbidden")
    assert "good standing" in fails(session, "buy_roaming_pass", {"line_id": line["id"], "country": "Peru", "days": 3}, "forbidden")
    ok(session, "set_roaming", {"line_id": line["id"], "enabled": False})


def test_rule_non_payment_suspension_needs_the_past_due_paid(session: ToolSession) -> None:
    line = line_where(session, "SELECT id FROM lines WHERE suspension_reason = 'non_payment' ORDER BY id")
    assert "past-due balance is paid" in fails(session, "reactivate_line", {"line_id": line["id"]}, "forbidden")
    account = ok(session, "get_account", {"account_id": line["account_id"]})
    ok(session, "make_payment", {"account_id": account["id"], "amount_cents": account["past_due_cents"] - 1})
    fails(session, "reactivate_line", {"line_id": line["id"]}, "forbidden")


def test_rule_two_data_packs_per_cycle(session: ToolSession) -> None:
    line = good_capped(session)
    for code in ("data-1gb", "data-1gb"):
        ok(session, "add_addon", {"line_id": line["id"], "addon_code": code})
    assert "at most 2 data packs" in fails(session, "add_addon", {"line_id": line["id"], "addon_code": "data-10gb"}, "forbidden")


def test_rule_data_packs_and_started_passes_are_non_refundable(session: ToolSession) -> None:
    line = good_capped(session)
    pack = ok(session, "add_addon", {"line_id": line["id"], "addon_code": "data-1gb"})
    assert "non-refundable" in fails(session, "remove_addon", {"line_addon_id": pack["id"]}, "forbidden")
    ok(session, "set_roaming", {"line_id": line["id"], "enabled": True})
    started = ok(session, "buy_roaming_pass", {"line_id": line["id"], "country": "Canada", "days": 3})
    assert started["status"] == "active"
    assert "non-refundable" in fails(session, "remove_addon", {"line_addon_id": started["id"]}, "forbidden")


def test_rule_no_payment_above_the_balance(session: ToolSession) -> None:
    account = ok(session, "search_accounts", {"standing": "past_due", "per_page": 1})["accounts"][0]
    error = fails(session, "make_payment", {"account_id": account["id"], "amount_cents": account["balance_cents"] + 1}, "forbidden")
    assert "may not exceed" in error
    ok(session, "make_payment", {"account_id": account["id"], "amount_cents": account["balance_cents"]})


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(("tool", "arguments", "code"), [
    ("get_line", {"line_id": 99999}, "not_found"), ("get_account", {"account_id": -1}, "not_found"),
    ("get_bill", {"bill_id": 0}, "not_found"), ("get_customer_by_email", {"email": "nobody@nowhere.example"}, "not_found"),
    ("change_plan", {"line_id": 1, "plan_code": "gold-999"}, "not_found"),
    ("change_plan", {"line_id": 1, "plan_code": "unlimited", "effective": "yesterday"}, "invalid_arguments"),
    ("buy_roaming_pass", {"line_id": 1, "country": "Atlantis", "days": 2}, "not_found"),
    ("buy_roaming_pass", {"line_id": 1, "country": "France", "days": 0}, "invalid_arguments"),
    ("buy_roaming_pass", {"line_id": 1, "country": "France", "days": 2, "start_date": "2001-01-01"}, "invalid_arguments"),
    ("add_addon", {"line_id": 1, "addon_code": "data-50gb"}, "invalid_arguments"),
    ("remove_addon", {"line_addon_id": 10**9}, "not_found"),
    ("make_payment", {"account_id": 1, "amount_cents": 0}, "invalid_arguments"),
    ("make_payment", {"account_id": 1, "amount_cents": "ten"}, "invalid_arguments"),
    ("search_lines", {"phone_number": "12"}, "invalid_arguments"),
    ("get_data_usage", {"line_id": 1, "cycles_back": 2}, "invalid_arguments"),
    ("log_ticket", {"line_id": 1, "category": "no_data", "notes": "   "}, "invalid_arguments"),
    ("suspend_line", {"line_id": 1, "reason": "non_payment"}, "invalid_arguments"),
])
def test_bad_arguments_fail_cleanly_and_change_nothing(session: ToolSession, tool: str, arguments: dict[str, Any],
                                                      code: str) -> None:
    fails(session, tool, arguments, code)


def test_unlimited_lines_take_no_data_pack_and_active_lines_no_reactivation(session: ToolSession) -> None:
    line = line_where(session, "SELECT lines.id FROM lines JOIN plans ON plans.id = lines.plan_id WHERE plans.data_gb IS NULL "
                               "AND lines.status = 'active' ORDER BY lines.id")
    fails(session, "add_addon", {"line_id": line["id"], "addon_code": "data-1gb"}, "invalid_arguments")
    fails(session, "reactivate_line", {"line_id": line["id"]}, "invalid_arguments")
