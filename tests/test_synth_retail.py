"""The retail task families: each grounds validated tasks, together they use every retail tool,
the oracle solves them and doing nothing does not, and the refusals they ask for are real."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from family_checks import (
    check_every_tool_used,
    check_families_ground,
    check_no_internal_ids,
    check_oracle_and_do_nothing,
    check_policy_refusals,
    check_writes_expect_changes,
    one_task_per_family,
    refusals,
)

from mcpgym.servers.toolbox import Toolbox
from mcpgym.synth.families.retail import RETAIL_FAMILIES
from mcpgym.tasks.model import Task

SERVERS = ("retail", "crm")
ATTEMPTS = 12


@pytest.fixture(scope="module")
def validated() -> Iterator[dict[str, Task]]:
    yield one_task_per_family(RETAIL_FAMILIES, SERVERS, ATTEMPTS)


def test_every_family_grounds_a_valid_task(validated: dict[str, Task]) -> None:
    check_families_ground(validated, RETAIL_FAMILIES, SERVERS, "retail")


def test_the_families_use_every_retail_tool(validated: dict[str, Task]) -> None:
    check_every_tool_used(validated, RETAIL_FAMILIES, SERVERS, "retail")


def test_writes_expect_changes_and_reads_none(validated: dict[str, Task]) -> None:
    check_writes_expect_changes(validated, RETAIL_FAMILIES)


def _order(task: Task) -> str:
    found = re.search(r"#\d+", task.turns[0].user)
    assert found, task.turns[0].user
    return found.group(0)


def _sku_of_item(results: dict[str, Any], task: Task) -> str:
    """The SKU of the order item the request names (by product and variant)."""
    for item in results["c1"]["items"]:
        if f"{item['product_name']} ({item['variant_title']})" in task.turns[0].user:
            return str(item["sku"])
    raise AssertionError(task.turns[0].user)


Refusal = Callable[[dict[str, Any], Task], dict[str, Any]]

REFUSED: dict[str, tuple[str, Refusal]] = {
    "retail.cancel-shipped": ("cancel_order", lambda r, t: {"order_number": _order(t), "reason": "Changed mind"}),
    "retail.return-undelivered": ("create_return", lambda r, t: {
        "order_number": _order(t), "items": [{"sku": _sku_of_item(r, t), "quantity": 1}], "reason": "x"}),
    "retail.return-expired": ("create_return", lambda r, t: {
        "order_number": _order(t), "items": [{"sku": _sku_of_item(r, t), "quantity": 1}], "reason": "x"}),
    "retail.refund-elsewhere": ("create_return", lambda r, t: {
        "order_number": _order(t), "items": [{"sku": _sku_of_item(r, t), "quantity": 1}], "reason": "x",
        "refund_method": next(m for m in ("store_credit", "gift_card", "card_visa_1111", "paypal")
                              if m != r["c1"]["payment_method"] and (m.replace("_", " ") in t.turns[0].user.lower()
                                                                      or m[-4:] in t.turns[0].user
                                                                      or m == "paypal" and "PayPal" in t.turns[0].user))}),
    "retail.exchange-other-product": ("create_exchange", lambda r, t: {
        "order_number": _order(t), "sku": _sku_of_item(r, t), "new_sku": _other_product_sku(r, t), "reason": "x"}),
    "retail.exchange-out-of-stock": ("create_exchange", lambda r, t: {
        "order_number": _order(t), "sku": _sku_of_item(r, t), "new_sku": next(
            v["sku"] for v in r["c2"]["variants"] if v["inventory_quantity"] == 0 and f"the {v['title']}" in t.turns[0].user),
        "reason": "x"}),
    "retail.settle-closed-return": ("cancel_return", lambda r, t: {"return_number": r["c1"]["number"]}),
}
"""Per policy family, the write the request asks for, from the ground truth's results."""

_BOX: dict[str, Toolbox] = {}


def _other_product_sku(results: dict[str, Any], task: Task) -> str:
    box = _BOX["current"]
    for product in box.sessions["retail"].call("search_products", {"per_page": 100}).data["products"]:  # type: ignore[index]
        if f"for a {product['name']}" in task.turns[0].user:
            detail = box.sessions["retail"].call("get_product", {"product_id": product["id"]}).data
            return str(detail["variants"][0]["sku"])  # type: ignore[index]
    raise AssertionError(task.turns[0].user)


def test_policy_tasks_ask_for_what_the_rules_refuse(validated: dict[str, Task]) -> None:
    check_policy_refusals(validated, RETAIL_FAMILIES, "retail", refusals(
        REFUSED, lambda make, task, results, box: _BOX.update(current=box) or make(results, task)))


def test_two_turn_tasks_change_nothing_before_the_go_ahead(validated: dict[str, Task]) -> None:
    """The confirm-first families read in the first turn and write only after the user's yes."""
    for name in ("retail.cancel-after-confirm", "retail.return-after-confirm"):
        task = validated[name]
        assert len(task.turns) == 2
        reads = {c.tool for c in task.turns[0].calls}
        assert reads == {"get_order"}
        assert any(word in task.turns[1].user.lower() for word in ("yes", "confirmed"))


def test_the_oracle_solves_every_family_and_doing_nothing_scores_zero(validated: dict[str, Task]) -> None:
    check_oracle_and_do_nothing(validated)


def test_requests_name_no_internal_ids(validated: dict[str, Task]) -> None:
    """Ids reach the calls only through bindings: a user names orders, returns and SKUs."""
    check_no_internal_ids(validated)