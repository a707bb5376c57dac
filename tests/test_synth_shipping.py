"""The shipping task families: each grounds validated tasks, together they use every shipping
tool, the oracle solves them and doing nothing does not, and the refusals they ask for are real."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import date, timedelta
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

from mcpgym.synth.families.shipping import SHIPPING_FAMILIES
from mcpgym.tasks.model import Task

SERVERS = ("shipping", "zendesk", "retail")
ATTEMPTS = 12

Results = dict[str, Any]


@pytest.fixture(scope="module")
def validated() -> Iterator[dict[str, Task]]:
    yield one_task_per_family(SHIPPING_FAMILIES, SERVERS, ATTEMPTS)


def test_every_family_grounds_a_valid_task(validated: dict[str, Task]) -> None:
    assert not {f.name for f in SHIPPING_FAMILIES} - set(validated)
    check_families_ground(validated, SHIPPING_FAMILIES, SERVERS, "shipping")


def test_the_families_use_every_shipping_tool(validated: dict[str, Task]) -> None:
    check_every_tool_used(validated, SHIPPING_FAMILIES, SERVERS, "shipping")


def test_writes_expect_changes_and_reads_none(validated: dict[str, Task]) -> None:
    check_writes_expect_changes(validated, SHIPPING_FAMILIES)


def _next_business_day(today: date) -> date:
    day = today + timedelta(days=1)
    while day.weekday() >= 5:
        day += timedelta(days=1)
    return day


def _weekend_day(text: str) -> str:
    return re.findall(r"\d{4}-\d{2}-\d{2}", text)[0] if re.search(r"\d{4}-\d{2}-\d{2}", text) else ""


REFUSED: dict[str, tuple[str, Callable[[Results, Task, date], dict[str, Any]]]] = {
    "shipping.void-after-pickup": ("void_label", lambda r, t, d: {"tracking_number": r["c1"]["tracking_number"]}),
    "shipping.address-after-pickup": ("update_delivery_address", lambda r, t, d: {
        "shipment_id": r["c1"]["id"], "ship_line1": "1 Main St", "ship_city": r["c1"]["ship_city"],
        "ship_region": r["c1"]["ship_region"], "ship_postal_code": r["c1"]["ship_postal_code"]}),
    "shipping.cancel-after-pickup": ("cancel_shipment", lambda r, t, d: {"shipment_id": r["c1"]["id"]}),
    "shipping.expired-quote": ("buy_label", lambda r, t, d: {"rate_id": r["c2"]["rates"][0]["id"]}),
    "shipping.second-label": ("refresh_rates", lambda r, t, d: {"shipment_id": r["c1"]["id"]}),
    "shipping.duplicate-reference": ("create_shipment", lambda r, t, d: {
        "recipient_email": r["c1"]["recipient_email"], "reference": r["c1"]["reference"], "ship_name": r["c1"]["ship_name"],
        "ship_line1": r["c1"]["ship_line1"], "ship_city": r["c1"]["ship_city"], "ship_region": r["c1"]["ship_region"],
        "ship_postal_code": r["c1"]["ship_postal_code"], "weight_oz": 16, "length_in": 8, "width_in": 6, "height_in": 4}),
    "shipping.weekend-pickup": ("schedule_pickup", lambda r, t, d: {
        "carrier": r["c1"]["carrier"], "warehouse": r["c1"]["warehouse_code"],
        "pickup_date": _weekend_day(t.turns[0].user), "tracking_numbers": [r["c1"]["tracking_number"]]}),
    "shipping.pickup-scanned-label": ("schedule_pickup", lambda r, t, d: {
        "carrier": r["c1"]["carrier"], "warehouse": r["c1"]["warehouse_code"],
        "pickup_date": str(_next_business_day(d)), "tracking_numbers": [r["c1"]["tracking_number"]]}),
    "shipping.cancel-past-pickup": ("cancel_pickup", lambda r, t, d: {"pickup_id": r["c1"]["pickups"][0]["id"]}),
    "shipping.exception-on-delivered": ("report_exception", lambda r, t, d: {
        "shipment_id": r["c1"]["id"], "kind": "damaged", "note": "Box crushed."}),
}
"""Per policy family, the write the request asks for, from the ground truth's results."""


def test_policy_tasks_ask_for_what_the_rules_refuse(validated: dict[str, Task]) -> None:
    check_policy_refusals(validated, SHIPPING_FAMILIES, "shipping", refusals(
        REFUSED, lambda make, task, results, box: make(results, task, box.sessions["shipping"].context.now.date())))


def test_the_oracle_solves_every_family_and_doing_nothing_scores_zero(validated: dict[str, Task]) -> None:
    check_oracle_and_do_nothing(validated)


def test_requests_name_no_internal_ids(validated: dict[str, Task]) -> None:
    """Ids reach the calls only through bindings (a quoted help-desk ticket number aside)."""
    check_no_internal_ids(validated, known={"ticket_id"})