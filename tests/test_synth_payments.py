"""The payments task families: each grounds validated tasks, together they use every payments
tool, the oracle solves them and doing nothing does not, and the refusals they ask for are
real: the write the request asks for is refused by the policy and changes nothing."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from family_checks import (
    check_every_tool_used,
    check_families_ground,
    check_oracle_and_do_nothing,
    check_policy_refusals,
    check_writes_expect_changes,
    one_task_per_family,
    refusals,
)

from mcpgym.servers.toolbox import Toolbox
from mcpgym.synth.families.payments import PAYMENTS_FAMILIES
from mcpgym.tasks.model import Task

SERVERS = ("payments", "crm", "retail")
ATTEMPTS = 12

Results = dict[str, Any]


@pytest.fixture(scope="module")
def validated() -> Iterator[dict[str, Task]]:
    yield one_task_per_family(PAYMENTS_FAMILIES, SERVERS, ATTEMPTS)


def test_every_family_grounds_a_valid_task(validated: dict[str, Task]) -> None:
    check_families_ground(validated, PAYMENTS_FAMILIES, SERVERS, "payments")


def test_the_families_use_every_payments_tool(validated: dict[str, Task]) -> None:
    check_every_tool_used(validated, PAYMENTS_FAMILIES, SERVERS, "payments")


def test_writes_expect_changes_and_reads_none(validated: dict[str, Task]) -> None:
    check_writes_expect_changes(validated, PAYMENTS_FAMILIES)


def _plan_named(box: Toolbox, text: str) -> str:
    plans = box.sessions["payments"].call("list_plans", {"include_inactive": True}).data["plans"]  # type: ignore[index]
    return next(p["id"] for p in sorted(plans, key=lambda p: -len(p["nickname"])) if p["nickname"] in text)


REFUSED: dict[str, tuple[str, Callable[[Results, str, Toolbox], dict[str, Any]]]] = {
    "payments.refund-over-remaining": ("create_refund", lambda r, text, box: {
        "charge_id": r["c1"]["charges"][0]["id"], "amount_cents": r["c1"]["charges"][0]["amount_cents"]}),
    "payments.refund-disputed": ("create_refund", lambda r, text, box: {"charge_id": r["c1"]["charges"][0]["id"]}),
    "payments.refund-too-old": ("create_refund", lambda r, text, box: {"charge_id": r["c1"]["charges"][0]["id"], "amount_cents": 1000}),
    "payments.change-canceled": ("update_subscription", lambda r, text, box: {
        "subscription_id": r["c1"]["subscriptions"][0]["id"], "quantity": r["c1"]["subscriptions"][0]["quantity"] + 2}),
    "payments.legacy-plan": ("create_subscription", lambda r, text, box: {
        "customer_id": box.sessions["payments"].call("get_customer_by_email", {"email": re.search(r"\S+@\S+[a-z]", text).group(0)}).data["id"],  # type: ignore[union-attr, index]
        "plan_id": _plan_named(box, text)}),
    "payments.duplicate-plan": ("create_subscription", lambda r, text, box: {
        "customer_id": r["c1"]["subscriptions"][0]["customer_id"], "plan_id": r["c1"]["subscriptions"][0]["plan_id"]}),
    "payments.expired-card-invoice": ("pay_invoice", lambda r, text, box: {"invoice_id": r["c1"]["invoices"][0]["id"]}),
    "payments.edit-paid-invoice": ("add_invoice_item", lambda r, text, box: {
        "invoice_id": r["c1"]["invoices"][0]["id"], "description": "Extra", "unit_amount_cents": 100}),
    "payments.dispute-closed-evidence": ("submit_dispute_evidence", lambda r, text, box: {
        "dispute_id": r["c2"]["dispute"]["id"], "evidence": "Proof of delivery."}),
    "payments.expired-card-default": ("set_default_payment_method", lambda r, text, box: {
        "customer_id": r["c1"]["id"],
        "payment_method_id": next(m["id"] for m in r["c2"]["payment_methods"] if m["label"] in text and m["expired"])}),
}
"""Per policy family, the write the request asks for, from the ground truth's results."""


def test_policy_tasks_ask_for_what_the_rules_refuse(validated: dict[str, Task]) -> None:
    check_policy_refusals(validated, PAYMENTS_FAMILIES, "payments", refusals(
        REFUSED, lambda make, task, results, box: make(results, task.turns[0].user, box)))


def test_the_oracle_solves_every_family_and_doing_nothing_scores_zero(validated: dict[str, Task]) -> None:
    check_oracle_and_do_nothing(validated)


def test_requests_name_no_internal_ids(validated: dict[str, Task]) -> None:
    """Stripe-like ids reach the calls only through bindings: a request names orders,
    invoice numbers, emails, companies and plans."""
    for task in validated.values():
        text = " ".join(turn.user for turn in task.turns)
        assert not re.search(r"\b(cus|ch|re|dp|sub|in|po|pm|price)_[0-9A-Za-z]{14}\b", text), (task.id, text)
        for call in task.calls:
            for value in call.arguments.values():
                assert not (isinstance(value, str) and re.fullmatch(r"[a-z]+_[0-9A-Za-z]{14}", value)), (task.id, value)
