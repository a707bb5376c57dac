"""The families over three or more servers: each grounds a validated task whose ground truth
crosses all its servers, the oracle solves it, doing nothing scores zero, and its writes
expect the changes they make."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from family_checks import check_oracle_and_do_nothing, check_writes_expect_changes, one_task_per_family

from mcpgym.synth.families.commerce import COMMERCE_FAMILIES
from mcpgym.servers.toolbox import Toolbox
from mcpgym.tasks.execute import execute_task
from mcpgym.tasks.model import Task

SERVERS = ("zendesk", "retail", "shipping", "payments", "expenses", "flights", "hotels")
ATTEMPTS = 12


@pytest.fixture(scope="module")
def validated() -> Iterator[dict[str, Task]]:
    yield one_task_per_family(COMMERCE_FAMILIES, SERVERS, ATTEMPTS)


def test_every_family_grounds_a_task_across_its_servers(validated: dict[str, Task]) -> None:
    assert set(validated) == {f.name for f in COMMERCE_FAMILIES}
    for family in COMMERCE_FAMILIES:
        task = validated[family.name]
        assert len(family.servers) >= 3
        assert {call.server for call in task.calls} == set(family.servers), task.id


def test_writes_expect_changes(validated: dict[str, Task]) -> None:
    check_writes_expect_changes(validated, COMMERCE_FAMILIES)


def test_the_oracle_solves_every_family_and_doing_nothing_scores_zero(validated: dict[str, Task]) -> None:
    check_oracle_and_do_nothing(validated)


def test_the_late_parcel_refund_pays_back_the_shipping_fee_only(validated: dict[str, Task]) -> None:
    task = validated["cross.commerce-late-parcel-refund"]
    box = Toolbox(list(task.servers), task.seed)
    results = execute_task(task, box).results
    box.close()
    order = next(call for call in task.calls if call.tool == "get_order")
    refunds = [c for c in task.expected_changes if c.server == "payments" and c.table == "refunds"]
    assert len(refunds) == 1
    assert refunds[0].fields["amount_cents"] == results[order.id]["shipping_cents"] > 0
    assert refunds[0].fields["amount_cents"] < results[order.id]["total_cents"]
    reply = next(c for c in task.expected_changes if c.server == "zendesk" and c.table == "comments")
    assert results[order.id]["number"] in reply.fields["body"]
