"""The telecom task families: each grounds validated tasks, together they use every telecom
tool, the oracle solves them and doing nothing does not, and the refusals they ask for are real."""

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
from mcpgym.synth.families.telecom import TELECOM_FAMILIES
from mcpgym.tasks.model import Task

SERVERS = ("telecom", "crm")
ATTEMPTS = 12

Results = dict[str, Any]


@pytest.fixture(scope="module")
def validated() -> Iterator[dict[str, Task]]:
    yield one_task_per_family(TELECOM_FAMILIES, SERVERS, ATTEMPTS)


def test_every_family_grounds_a_valid_task(validated: dict[str, Task]) -> None:
    check_families_ground(validated, TELECOM_FAMILIES, SERVERS, "telecom")


def test_the_families_use_every_telecom_tool(validated: dict[str, Task]) -> None:
    check_every_tool_used(validated, TELECOM_FAMILIES, SERVERS, "telecom",
                          kinds=frozenset({"lookup", "aggregation", "write", "conditional-write", "policy", "multi-turn",
                                           "cross-server"}))


def test_writes_expect_changes_and_reads_none(validated: dict[str, Task]) -> None:
    check_writes_expect_changes(validated, TELECOM_FAMILIES)


def _plan_code(box: Toolbox, task: Task) -> str:
    """The plan the request names, by name (the longest name that appears)."""
    plans = box.sessions["telecom"].call("list_plans", {"include_retired": True}).data["plans"]  # type: ignore[index]
    named = [p for p in plans if p["name"] in task.turns[0].user]
    return max(named, key=lambda p: len(p["name"]))["code"]


def _amount(task: Task) -> int:
    dollars, cents = re.findall(r"\$(\d+)\.(\d\d)", task.turns[0].user)[0]
    return int(dollars) * 100 + int(cents)


def _first_data_pack(results: Results) -> int:
    return next(a["id"] for a in results["c2"]["addons"] if a["kind"] == "data_pack")


REFUSED: dict[str, tuple[str, Callable[[Results, Task, Toolbox], dict[str, Any]]]] = {
    "telecom.downgrade-now": ("change_plan", lambda r, t, b: {"line_id": r["c1"]["lines"][0]["id"],
                                                               "plan_code": _plan_code(b, t), "effective": "immediately"}),
    "telecom.retired-plan": ("change_plan", lambda r, t, b: {"line_id": r["c1"]["lines"][0]["id"], "plan_code": _plan_code(b, t)}),
    "telecom.change-suspended-line": ("add_addon", lambda r, t, b: {"line_id": r["c1"]["lines"][0]["id"],
                                                                     "addon_code": "intl-calling"}),
    "telecom.roaming-past-due": ("set_roaming", lambda r, t, b: {"line_id": r["c1"]["lines"][0]["id"], "enabled": True}),
    "telecom.reactivate-unpaid": ("reactivate_line", lambda r, t, b: {"line_id": r["c1"]["lines"][0]["id"]}),
    "telecom.third-data-pack": ("add_addon", lambda r, t, b: {"line_id": r["c1"]["lines"][0]["id"], "addon_code": "data-1gb"}),
    "telecom.refund-data-pack": ("remove_addon", lambda r, t, b: {"line_addon_id": _first_data_pack(r)}),
    "telecom.overpay": ("make_payment", lambda r, t, b: {"account_id": r["c1"]["accounts"][0]["id"], "amount_cents": _amount(t)}),
}
"""Per policy family, the write the request asks for, from the ground truth's results."""


def test_policy_tasks_ask_for_what_the_rules_refuse(validated: dict[str, Task]) -> None:
    check_policy_refusals(validated, TELECOM_FAMILIES, "telecom", refusals(
        REFUSED, lambda make, task, results, box: make(results, task, box)))


def test_the_oracle_solves_every_family_and_doing_nothing_scores_zero(validated: dict[str, Task]) -> None:
    check_oracle_and_do_nothing(validated)


def test_requests_name_no_internal_ids(validated: dict[str, Task]) -> None:
    """Ids reach the calls only through bindings."""
    check_no_internal_ids(validated)