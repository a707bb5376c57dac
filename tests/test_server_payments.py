"""Domain behaviour of the payments server, through the same call path an agent uses: the
seeded account against the shop and the world, reads, writes and their row changes, every
policy rule refused with nothing changed, and bad ids and arguments."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tool_calls import fails, ok

from mcpgym.servers.kernel.fields import format_timestamp
from mcpgym.servers.kernel.links import linking, seeded_rows
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.spec import build_seeded
from mcpgym.servers.kernel.world import build_world
from mcpgym.servers.payments import SERVER
from mcpgym.servers.payments.ids import PREFIXES, decode, encode

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


def raw(session: ToolSession, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    return session._connection.execute(sql, params).fetchall()  # noqa: SLF001


def pid(kind: str, key: int) -> str:
    return encode(kind, 0, key)


def days_ago(session: ToolSession, days: int) -> str:
    return str(session.context.now - timedelta(days=days))


def refundable_charge(session: ToolSession) -> Row:
    """A recent shop charge with no refund and no dispute."""
    key = raw(session, "SELECT id FROM charges WHERE status = 'succeeded' AND order_number IS NOT NULL AND created_at > ? "
                       "AND id NOT IN (SELECT charge_id FROM refunds) AND id NOT IN (SELECT charge_id FROM disputes) "
                       "AND amount_cents > 2000 ORDER BY id LIMIT 1", (days_ago(session, 60),))[0][0]
    return ok(session, "get_charge", {"charge_id": pid("charge", key)})


def subscription(session: ToolSession, where: str) -> Row:
    key = raw(session, f"SELECT subscriptions.id FROM subscriptions JOIN plans ON plans.id = plan_id WHERE {where} "
                       "ORDER BY subscriptions.id LIMIT 1")[0][0]
    return ok(session, "get_subscription", {"subscription_id": pid("subscription", key)})


def invoice(session: ToolSession, status: str, subscription_only: bool | None = None) -> Row:
    extra = "" if subscription_only is None else f" AND subscription_id IS {'NOT ' if subscription_only else ''}NULL"
    key = raw(session, f"SELECT id FROM invoices WHERE status = ?{extra} ORDER BY id LIMIT 1", (status,))[0][0]
    return ok(session, "get_invoice", {"invoice_id": pid("invoice", key)})


# ---------------------------------------------------------------- ids


@given(kind=st.sampled_from(sorted(PREFIXES)), key=st.integers(1, 2**62 - 1), seed=st.integers(0, 10_000))
def test_ids_round_trip_and_never_collide_across_kinds(kind: str, key: int, seed: int) -> None:
    text = encode(kind, seed, key)
    assert text.startswith(PREFIXES[kind] + "_") and len(text) == len(PREFIXES[kind]) + 15
    assert decode(kind, seed, text) == key
    assert all(decode(other, seed, text) is None for other in PREFIXES if other != kind)


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=40))
def test_any_text_as_an_id_is_not_found_and_changes_nothing(seeded: ToolSession, text: str) -> None:
    if "\x00" in text or not text:
        return
    result = seeded.call("get_charge", {"charge_id": text})
    assert not result.ok and (result.error or "").split(":")[0] in {"not_found", "invalid_arguments"}


# ---------------------------------------------------------------- the seeded account


def test_shop_charges_match_the_retail_orders(seeded: ToolSession) -> None:
    with linking(("retail",)):
        orders = seeded_rows("retail", 0, "SELECT o.number, o.total_cents, o.cancelled_at, c.email FROM orders o "
                                          "JOIN customers c ON c.id = o.customer_id WHERE o.paid_at IS NOT NULL")
    charges = {r[0]: r for r in raw(seeded, "SELECT charges.order_number, amount_cents, customers.email, charges.id FROM charges "
                                            "JOIN customers ON customers.id = customer_id WHERE status = 'succeeded' "
                                            "AND order_number IS NOT NULL")}
    assert len(charges) == len(orders) > 500
    for order in orders:
        number, amount, email, key = charges[order["number"]]
        assert (amount, email) == (order["total_cents"], order["email"])
        if order["cancelled_at"] is not None:
            refunded = raw(seeded, "SELECT SUM(amount_cents) FROM refunds WHERE charge_id = ?", (key,))[0][0]
            assert refunded == amount


def test_customers_are_the_worlds_people(seeded: ToolSession) -> None:
    world = build_world(0)
    people = {p.email: p for p in world.people}
    organizations = {o.id: o.name for o in world.organizations}
    emails = [r[0] for r in raw(seeded, "SELECT email FROM customers ORDER BY id")]
    assert len(emails) > 200
    for email in emails[::7]:
        found = ok(seeded, "get_customer_by_email", {"email": email.upper()})
        person = people[email]
        assert (found["name"], found["email"], found["organization_name"]) == (
            person.name, person.email, organizations[person.organization_id])


def test_the_seed_spans_more_than_a_year_and_is_consistent(seeded: ToolSession) -> None:
    first, last = raw(seeded, "SELECT min(created_at), max(created_at) FROM charges")[0]
    assert first < days_ago(seeded, 400) and last > days_ago(seeded, 3)
    # every refund stays within its charge; payouts never negative; paid invoices have a paying charge
    assert not raw(seeded, "SELECT charge_id FROM refunds GROUP BY charge_id HAVING SUM(amount_cents) > "
                           "(SELECT amount_cents FROM charges WHERE charges.id = charge_id)")
    assert not raw(seeded, "SELECT id FROM payouts WHERE amount_cents <= 0")
    assert not raw(seeded, "SELECT id FROM invoices WHERE status = 'paid' AND id NOT IN "
                           "(SELECT invoice_id FROM charges WHERE invoice_id IS NOT NULL AND status = 'succeeded')")
    statuses = {r[0] for r in raw(seeded, "SELECT DISTINCT status FROM subscriptions")}
    assert statuses == {"active", "past_due", "canceled"}
    assert {r[0] for r in raw(seeded, "SELECT DISTINCT status FROM invoices")} == {"draft", "open", "paid", "void"}


def test_a_seed_gives_the_same_bytes_every_time(seeded: ToolSession) -> None:
    first = build_seeded(SERVER, 0)
    assert first == build_seeded(SERVER, 0) == SERVER.seeded(0).snapshot


# ---------------------------------------------------------------- reads


def test_search_charges_filters_and_sums(seeded: ToolSession) -> None:
    everything = ok(seeded, "search_charges", {"per_page": 100})
    total = raw(seeded, "SELECT count(*), SUM(amount_cents) FROM charges")[0]
    assert (everything["total"], everything["total_amount_cents"]) == total
    failed = ok(seeded, "search_charges", {"status": "failed", "per_page": 100})
    assert failed["charges"] and all(c["status"] == "failed" and c["remaining_cents"] == 0 for c in failed["charges"])
    shop = ok(seeded, "search_charges", {"source": "shop", "sort": "largest", "per_page": 5})["charges"]
    assert all(c["order_number"] for c in shop)
    assert [c["amount_cents"] for c in shop] == sorted((c["amount_cents"] for c in shop), reverse=True)
    number = shop[0]["order_number"]
    by_number = ok(seeded, "search_charges", {"order_number": number.lstrip("#"), "status": "succeeded"})
    assert by_number["total"] == 1 and by_number["charges"][0]["id"] == shop[0]["id"]
    disputed = ok(seeded, "search_charges", {"disputed": True, "per_page": 100})["charges"]
    assert disputed and all(c["dispute_status"] for c in disputed)
    fails(seeded, "search_charges", {"created_after": "2025-10-01T00:00:00Z", "created_before": "2025-09-01T00:00:00Z"},
          "invalid_arguments")


def test_charge_detail_shows_refunds_and_remaining(seeded: ToolSession) -> None:
    key = raw(seeded, "SELECT charge_id FROM refunds GROUP BY charge_id ORDER BY charge_id LIMIT 1")[0][0]
    charge = ok(seeded, "get_charge", {"charge_id": pid("charge", key)})
    refunded = sum(r["amount_cents"] for r in charge["refunds"])
    assert refunded == charge["amount_refunded_cents"] > 0
    assert charge["remaining_cents"] == charge["amount_cents"] - refunded


def test_customer_totals_add_up(seeded: ToolSession) -> None:
    key = raw(seeded, "SELECT customer_id FROM charges GROUP BY customer_id ORDER BY count(*) DESC LIMIT 1")[0][0]
    customer = ok(seeded, "get_customer", {"customer_id": pid("customer", key)})
    charges = ok(seeded, "search_charges", {"customer_id": customer["id"], "status": "succeeded", "per_page": 100})
    assert customer["charges_succeeded"] == charges["total"]
    assert customer["total_paid_cents"] == charges["total_amount_cents"]
    refunds = ok(seeded, "search_refunds", {"customer_id": customer["id"], "per_page": 100})
    assert customer["total_refunded_cents"] == refunds["total_amount_cents"]


def test_search_customers_and_subscriptions(seeded: ToolSession) -> None:
    subscribers = ok(seeded, "search_customers", {"has_subscription": True, "per_page": 100})
    live = raw(seeded, "SELECT count(DISTINCT customer_id) FROM subscriptions WHERE status IN ('active', 'past_due')")[0][0]
    assert subscribers["total"] == live
    names = [c["name"] for c in subscribers["customers"]]
    assert names == sorted(names)
    company = subscribers["customers"][0]["organization_name"]
    found = ok(seeded, "search_subscriptions", {"query": company.lower()})["subscriptions"]
    assert found and all(s["organization_name"] == company for s in found)
    past_due = ok(seeded, "search_subscriptions", {"status": "past_due"})["subscriptions"]
    assert past_due and all(s["amount_cents"] == s["unit_amount_cents"] * s["quantity"] for s in past_due)


def test_plans_and_invoices(seeded: ToolSession) -> None:
    active = ok(seeded, "list_plans")["plans"]
    every = ok(seeded, "list_plans", {"include_inactive": True})["plans"]
    assert all(p["active"] for p in active) and len(every) > len(active)
    paid = invoice(seeded, "paid")
    assert paid["total_cents"] == sum(line["amount_cents"] for line in paid["lines"]) and paid["charge_id"]
    assert ok(seeded, "search_invoices", {"number": paid["number"].lower()})["invoices"][0]["id"] == paid["id"]
    overdue = ok(seeded, "search_invoices", {"overdue": True})["invoices"]
    assert overdue and all(i["overdue"] and i["status"] == "open" for i in overdue)


def test_balance_report_matches_the_listings(seeded: ToolSession) -> None:
    window = {"start": "2025-09-01T00:00:00Z", "end": "2025-10-01T00:00:00Z"}
    report = ok(seeded, "get_balance_report", window)
    dates = {"created_after": window["start"], "created_before": window["end"]}
    charges = ok(seeded, "search_charges", {**dates, "status": "succeeded", "per_page": 1})
    refunds = ok(seeded, "search_refunds", {**dates, "per_page": 1})
    assert (report["charges_succeeded"], report["gross_cents"]) == (charges["total"], charges["total_amount_cents"])
    assert (report["refunds_count"], report["refunded_cents"]) == (refunds["total"], refunds["total_amount_cents"])
    assert report["shop_gross_cents"] + report["invoice_gross_cents"] == report["gross_cents"]
    assert report["net_cents"] == report["gross_cents"] - report["fees_cents"] - report["refunded_cents"] - report["disputes_lost_cents"]
    fails(seeded, "get_balance_report", {"start": window["end"], "end": window["start"]}, "invalid_arguments")


def test_payouts_and_disputes(seeded: ToolSession) -> None:
    payouts = ok(seeded, "list_payouts", {"per_page": 100})
    arrivals = [p["arrival_date"] for p in payouts["payouts"]]
    assert arrivals == sorted(arrivals, reverse=True) and payouts["total"] > 50
    open_ = ok(seeded, "search_disputes", {"status": ["needs_response", "under_review"]})["disputes"]
    dues = [d["evidence_due_by"] for d in open_]
    assert open_ and dues == sorted(dues)
    assert ok(seeded, "get_dispute", {"dispute_id": open_[0]["id"]}) == open_[0]


# ---------------------------------------------------------------- writes


def test_refund_in_parts_then_all_that_remains(session: ToolSession) -> None:
    charge = refundable_charge(session)
    first = ok(session, "create_refund", {"charge_id": charge["id"], "amount_cents": 1000, "note": "late"})
    assert first["charge"]["remaining_cents"] == charge["amount_cents"] - 1000
    rest = ok(session, "create_refund", {"charge_id": charge["id"]})
    assert rest["amount_cents"] == charge["amount_cents"] - 1000
    after = ok(session, "get_charge", {"charge_id": charge["id"]})
    assert after["remaining_cents"] == 0 and [r["amount_cents"] for r in after["refunds"]] == [1000, rest["amount_cents"]]
    assert after["refunds"][0]["note"] == "late"
    changes = session.diff()
    assert {(c.table, c.op) for c in changes} == {("refunds", "insert")}


def test_update_customer_and_default_card(session: ToolSession) -> None:
    customer = ok(session, "search_customers", {"has_subscription": True, "per_page": 1})["customers"][0]
    updated = ok(session, "update_customer", {"customer_id": customer["id"], "phone": "+1-212-555-0100", "email": "New.Mail@Example.com"})
    assert (updated["phone"], updated["email"]) == ("+1-212-555-0100", "new.mail@example.com")
    assert ok(session, "get_customer_by_email", {"email": "new.mail@example.com"})["id"] == customer["id"]
    other = raw(session, "SELECT email FROM customers ORDER BY id DESC LIMIT 1")[0][0]
    fails(session, "update_customer", {"customer_id": customer["id"], "email": other}, "invalid_arguments")
    fails(session, "update_customer", {"customer_id": customer["id"]}, "invalid_arguments")
    key = raw(session, "SELECT customer_id FROM payment_methods WHERE type = 'card' AND (exp_year * 12 + exp_month) >= ? "
                       "GROUP BY customer_id HAVING count(*) >= 2 ORDER BY customer_id LIMIT 1",
              (session.context.now.year * 12 + session.context.now.month,))[0][0]
    methods = ok(session, "list_payment_methods", {"customer_id": pid("customer", key)})["payment_methods"]
    target = next(m for m in methods if not m["is_default"] and not m["expired"] and m["type"] == "card")
    assert ok(session, "set_default_payment_method", {"customer_id": pid("customer", key), "payment_method_id": target["id"]})["is_default"]
    assert ok(session, "get_customer", {"customer_id": pid("customer", key)})["default_payment_method_id"] == target["id"]
    stranger = raw(session, "SELECT id FROM payment_methods WHERE customer_id != ? LIMIT 1", (key,))[0][0]
    fails(session, "set_default_payment_method", {"customer_id": pid("customer", key),
                                                  "payment_method_id": pid("payment_method", stranger)}, "invalid_arguments")


def test_subscribe_change_cancel_and_resume(session: ToolSession) -> None:
    plans = {p["nickname"]: p for p in ok(session, "list_plans")["plans"]}
    customer = ok(session, "get_customer_by_email", {"email": raw(session, (
        "SELECT customers.email FROM customers JOIN payment_methods pm ON pm.id = default_payment_method_id "
        "WHERE pm.type = 'card' AND pm.exp_year > ? AND customers.id NOT IN (SELECT customer_id FROM subscriptions) "
        "ORDER BY customers.id LIMIT 1"), (session.context.now.year,))[0][0]})
    made = ok(session, "create_subscription", {"customer_id": customer["id"], "plan_id": plans["Team Monthly"]["id"], "quantity": 4})
    assert made["charged_cents"] == 4 * plans["Team Monthly"]["unit_amount_cents"] and made["subscription"]["status"] == "active"
    paid = ok(session, "search_invoices", {"number": made["invoice_number"]})["invoices"][0]
    assert paid["status"] == "paid" and paid["total_cents"] == made["charged_cents"]
    sub_id = made["subscription"]["id"]
    changed = ok(session, "update_subscription", {"subscription_id": sub_id, "plan_id": plans["Business Monthly"]["id"], "quantity": 6})
    assert (changed["plan_nickname"], changed["quantity"], changed["amount_cents"]) == ("Business Monthly", 6, 6 * 9900)
    ending = ok(session, "cancel_subscription", {"subscription_id": sub_id, "at_period_end": True})
    assert ending["subscription"]["cancel_at_period_end"] and ending["subscription"]["status"] == "active"
    assert ending["credit_cents"] == 0
    resumed = ok(session, "resume_subscription", {"subscription_id": sub_id})
    assert not resumed["cancel_at_period_end"] and resumed["canceled_at"] is None
    fails(session, "resume_subscription", {"subscription_id": sub_id}, "invalid_arguments")


def test_cancelling_now_credits_the_unused_days(session: ToolSession) -> None:
    sub = subscription(session, "status = 'active' AND plans.interval = 'year'")
    now = session.context.now
    customer = ok(session, "get_customer", {"customer_id": sub["customer_id"]})
    result = ok(session, "cancel_subscription", {"subscription_id": sub["id"], "at_period_end": False})
    start, end = (raw(session, "SELECT current_period_start, current_period_end FROM subscriptions WHERE id = ?",
                      (decode("subscription", 0, sub["id"]),))[0])
    start_at, end_at = datetime.fromisoformat(start), datetime.fromisoformat(end)
    expected = sub["amount_cents"] * (end_at - now).days // (end_at - start_at).days
    assert result["credit_cents"] == expected > 0
    assert result["subscription"]["status"] == "canceled" and result["subscription"]["ended_at"] == format_timestamp(now)
    assert result["credit_balance_cents"] == customer["credit_balance_cents"] + expected
    # the credit pays the customer's next invoice first
    draft = ok(session, "create_invoice", {"customer_id": sub["customer_id"], "items": [
        {"description": "Workshop", "quantity": 1, "unit_amount_cents": expected + 500}]})
    ok(session, "finalize_invoice", {"invoice_id": draft["id"]})
    customer_after = ok(session, "get_customer", {"customer_id": sub["customer_id"]})
    methods = ok(session, "list_payment_methods", {"customer_id": sub["customer_id"]})["payment_methods"]
    if any(m["is_default"] and not m["expired"] for m in methods):
        paid = ok(session, "pay_invoice", {"invoice_id": draft["id"]})
        assert paid["credit_applied_cents"] == min(customer_after["credit_balance_cents"], expected + 500)
        charge = ok(session, "get_charge", {"charge_id": paid["charge_id"]})
        assert charge["amount_cents"] == expected + 500 - paid["credit_applied_cents"]


def test_invoice_lifecycle(session: ToolSession) -> None:
    customer = ok(session, "search_customers", {"has_subscription": True, "per_page": 1})["customers"][0]
    draft = ok(session, "create_invoice", {"customer_id": customer["id"], "memo": "Q4", "days_until_due": 14, "items": [
        {"description": "Training", "quantity": 2, "unit_amount_cents": 45000}]})
    assert (draft["status"], draft["total_cents"], draft["amount_due_cents"]) == ("draft", 90000, 90000)
    more = ok(session, "add_invoice_item", {"invoice_id": draft["id"], "description": "Sandbox", "unit_amount_cents": 60000})
    assert more["total_cents"] == 150000 and len(more["lines"]) == 2
    final = ok(session, "finalize_invoice", {"invoice_id": draft["id"]})
    assert final["status"] == "open" and final["due_date"] == format_timestamp(session.context.now + timedelta(days=14))
    voided = ok(session, "void_invoice", {"invoice_id": draft["id"]})
    assert voided["status"] == "void" and voided["amount_due_cents"] == 0
    numbers = [r[0] for r in raw(session, "SELECT number FROM invoices ORDER BY id")]
    assert len(numbers) == len(set(numbers))


def test_paying_a_past_due_invoice_reactivates_its_subscription(session: ToolSession) -> None:
    sub = subscription(session, "status = 'past_due'")
    owed = ok(session, "search_invoices", {"subscription_id": sub["id"], "status": "open"})["invoices"][0]
    methods = ok(session, "list_payment_methods", {"customer_id": sub["customer_id"]})["payment_methods"]
    fails(session, "pay_invoice", {"invoice_id": owed["id"]}, "forbidden")
    ok(session, "create_refund", {"charge_id": refundable_charge(session)["id"], "amount_cents": 100})  # unrelated write
    fresh = next((m for m in methods if not m["expired"]), None)
    if fresh is None:
        return
    ok(session, "set_default_payment_method", {"customer_id": sub["customer_id"], "payment_method_id": fresh["id"]})
    assert ok(session, "pay_invoice", {"invoice_id": owed["id"]})["status"] == "paid"
    assert ok(session, "get_subscription", {"subscription_id": sub["id"]})["status"] == "active"


def test_disputes_get_evidence_or_are_accepted(session: ToolSession) -> None:
    first, second = ok(session, "search_disputes", {"status": ["needs_response"]})["disputes"][:2]
    answered = ok(session, "submit_dispute_evidence", {"dispute_id": first["id"], "evidence": "Signed proof of delivery."})
    assert answered["dispute"]["status"] == "under_review" and answered["dispute"]["evidence"] == "Signed proof of delivery."
    conceded = ok(session, "accept_dispute", {"dispute_id": second["id"]})
    assert conceded["dispute"]["status"] == "lost" and conceded["dispute"]["closed_at"]


# ---------------------------------------------------------------- policy: refused, nothing changed


def test_a_refund_never_exceeds_what_remains(session: ToolSession) -> None:
    charge = refundable_charge(session)
    assert "never exceeds what remains" in fails(session, "create_refund", {"charge_id": charge["id"],
                                                                             "amount_cents": charge["amount_cents"] + 1}, "forbidden")
    ok(session, "create_refund", {"charge_id": charge["id"], "amount_cents": charge["amount_cents"] - 100})
    fails(session, "create_refund", {"charge_id": charge["id"], "amount_cents": 101}, "forbidden")
    ok(session, "create_refund", {"charge_id": charge["id"]})
    assert "fully refunded" in fails(session, "create_refund", {"charge_id": charge["id"]}, "forbidden")
    failed = raw(session, "SELECT id FROM charges WHERE status = 'failed' AND created_at > ? LIMIT 1", (days_ago(session, 90),))[0][0]
    assert "failed" in fails(session, "create_refund", {"charge_id": pid("charge", failed)}, "forbidden")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(amounts=st.lists(st.integers(1, 20_000), min_size=1, max_size=6))
def test_refunds_in_any_amounts_never_pass_the_charge(seeded: ToolSession, amounts: list[int]) -> None:
    with ToolSession(SERVER, 0) as session:
        charge = refundable_charge(session)
        for amount in amounts:
            session.call("create_refund", {"charge_id": charge["id"], "amount_cents": amount})
        after = ok(session, "get_charge", {"charge_id": charge["id"]})
        assert 0 <= after["amount_refunded_cents"] <= charge["amount_cents"]
        taken = 0
        for amount in amounts:
            if taken + amount <= charge["amount_cents"]:
                taken += amount
        assert after["amount_refunded_cents"] == taken


def test_a_disputed_charge_cannot_be_refunded(session: ToolSession) -> None:
    for status in ("needs_response", "under_review", "lost"):
        key = raw(session, "SELECT charge_id FROM disputes WHERE status = ? LIMIT 1", (status,))[0][0]
        assert "disputed" in fails(session, "create_refund", {"charge_id": pid("charge", key), "amount_cents": 100}, "forbidden")


def test_an_old_charge_cannot_be_refunded(session: ToolSession) -> None:
    key = raw(session, "SELECT id FROM charges WHERE status = 'succeeded' AND created_at < ? AND id NOT IN "
                       "(SELECT charge_id FROM disputes) LIMIT 1", (days_ago(session, 181),))[0][0]
    assert "older than 180 days" in fails(session, "create_refund", {"charge_id": pid("charge", key), "amount_cents": 100}, "forbidden")


def test_a_canceled_subscription_cannot_be_changed_resumed_or_canceled(session: ToolSession) -> None:
    sub = subscription(session, "status = 'canceled'")
    plan = ok(session, "list_plans")["plans"][0]["id"]
    for tool, args in (("update_subscription", {"quantity": 3}), ("update_subscription", {"plan_id": plan}),
                       ("resume_subscription", {}), ("cancel_subscription", {"at_period_end": True}),
                       ("cancel_subscription", {"at_period_end": False})):
        assert "canceled subscription" in fails(session, tool, {"subscription_id": sub["id"], **args}, "forbidden")


def test_legacy_plans_and_duplicate_subscriptions_are_refused(session: ToolSession) -> None:
    legacy = next(p for p in ok(session, "list_plans", {"include_inactive": True})["plans"] if not p["active"])
    sub = subscription(session, "status = 'active' AND plans.active = 1")
    assert "legacy plan" in fails(session, "create_subscription", {"customer_id": sub["customer_id"], "plan_id": legacy["id"]}, "forbidden")
    assert "legacy plan" in fails(session, "update_subscription", {"subscription_id": sub["id"], "plan_id": legacy["id"]}, "forbidden")
    assert "at most one" in fails(session, "create_subscription", {"customer_id": sub["customer_id"], "plan_id": sub["plan_id"]}, "forbidden")


def test_an_expired_card_is_never_charged_nor_made_default(session: ToolSession) -> None:
    now = session.context.now
    key, customer = raw(session, "SELECT id, customer_id FROM payment_methods WHERE exp_year * 12 + exp_month < ? LIMIT 1",
                        (now.year * 12 + now.month,))[0]
    assert "expir" in fails(session, "set_default_payment_method", {"customer_id": pid("customer", customer),
                                                                    "payment_method_id": pid("payment_method", key)}, "forbidden")
    sub = subscription(session, "status = 'past_due'")
    owed = ok(session, "search_invoices", {"subscription_id": sub["id"], "status": "open"})["invoices"][0]
    assert "expired" in fails(session, "pay_invoice", {"invoice_id": owed["id"]}, "forbidden")
    plan = next(p for p in ok(session, "list_plans")["plans"] if p["id"] != sub["plan_id"])
    assert "expired" in fails(session, "create_subscription", {"customer_id": sub["customer_id"], "plan_id": plan["id"]}, "forbidden")


def test_only_draft_invoices_are_edited_and_only_open_ones_paid_or_voided(session: ToolSession) -> None:
    for status in ("paid", "void"):
        done = invoice(session, status)
        for tool, args in (("add_invoice_item", {"description": "x", "unit_amount_cents": 100}), ("finalize_invoice", {}),
                           ("pay_invoice", {}), ("void_invoice", {})):
            assert "cannot be edited" in fails(session, tool, {"invoice_id": done["id"], **args}, "forbidden")
    opened = invoice(session, "open")
    fails(session, "add_invoice_item", {"invoice_id": opened["id"], "description": "x", "unit_amount_cents": 100}, "forbidden")
    fails(session, "void_invoice", {"invoice_id": invoice(session, "draft")["id"]}, "forbidden")


def test_evidence_only_while_a_dispute_needs_a_response(session: ToolSession) -> None:
    for status in ("under_review", "won", "lost"):
        key = raw(session, "SELECT id FROM disputes WHERE status = ? LIMIT 1", (status,))[0][0]
        fails(session, "submit_dispute_evidence", {"dispute_id": pid("dispute", key), "evidence": "x"}, "forbidden")
        fails(session, "accept_dispute", {"dispute_id": pid("dispute", key)}, "forbidden")
    key = raw(session, "SELECT id FROM disputes WHERE status = 'needs_response' LIMIT 1")[0][0]
    session._connection.execute("UPDATE disputes SET evidence_due_by = ? WHERE id = ?", (days_ago(session, 1), key))  # noqa: SLF001
    session._connection.commit()  # noqa: SLF001
    assert "evidence_due_by" in fails(session, "submit_dispute_evidence", {"dispute_id": pid("dispute", key), "evidence": "x"}, "forbidden")


# ---------------------------------------------------------------- bad ids and arguments


@pytest.mark.parametrize(("tool", "args"), [
    ("get_customer", {"customer_id": "ch_000000000000AA"}),
    ("get_charge", {"charge_id": "cus_000000000000AA"}),
    ("create_refund", {"charge_id": "ch_zzzzzzzzzzzzzz"}),
    ("cancel_subscription", {"subscription_id": "sub_nope", "at_period_end": True}),
    ("pay_invoice", {"invoice_id": "NW-10001"}),
    ("get_customer_by_email", {"email": "nobody@nowhere.example"}),
    ("search_charges", {"customer_id": "cus_missing"}),
])
def test_bad_ids_are_not_found_and_change_nothing(session: ToolSession, tool: str, args: dict[str, Any]) -> None:
    fails(session, tool, args, "not_found")


@pytest.mark.parametrize(("tool", "args"), [
    ("create_refund", {"charge_id": "ch_x", "amount_cents": 0}),
    ("create_refund", {"charge_id": "ch_x", "amount_cents": True}),
    ("create_refund", {"charge_id": "ch_x", "reason": "because"}),
    ("create_invoice", {"customer_id": "cus_x", "items": []}),
    ("create_invoice", {"customer_id": "cus_x", "items": [{"description": "x", "unit_amount_cents": -5}]}),
    ("update_customer", {"customer_id": "cus_x", "email": "not-an-email"}),
    ("search_charges", {"per_page": 500}),
    ("cancel_subscription", {"subscription_id": "sub_x"}),
])
def test_bad_arguments_are_invalid_and_change_nothing(session: ToolSession, tool: str, args: dict[str, Any]) -> None:
    fails(session, tool, args, "invalid_arguments")
