"""The expenses task families: each grounds validated tasks, together they use every expenses
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
from mcpgym.synth.families.expenses import EXPENSES_FAMILIES
from mcpgym.tasks.model import Task

SERVERS = ("expenses", "flights", "hr", "chat")
ATTEMPTS = 12

Results = dict[str, Any]


@pytest.fixture(scope="module")
def validated() -> Iterator[dict[str, Task]]:
    yield one_task_per_family(EXPENSES_FAMILIES, SERVERS, ATTEMPTS)


def test_every_family_grounds_a_valid_task(validated: dict[str, Task]) -> None:
    check_families_ground(validated, EXPENSES_FAMILIES, SERVERS, "expenses")


def test_the_families_use_every_expenses_tool(validated: dict[str, Task]) -> None:
    check_every_tool_used(validated, EXPENSES_FAMILIES, SERVERS, "expenses")


def test_writes_expect_changes_and_reads_none(validated: dict[str, Task]) -> None:
    check_writes_expect_changes(validated, EXPENSES_FAMILIES)


def _quoted_day(task: Task) -> str:
    found = re.search(r"\d{4}-\d{2}-\d{2}", task.turns[0].user)
    assert found is not None
    return found.group(0)


REFUSED: dict[str, tuple[str, Callable[[Results, Task], dict[str, Any]]]] = {
    "expenses.edit-submitted": ("add_item", lambda r, t: {
        "report_id": r["c2"]["reports"][0]["id"], "expense_date": _quoted_day(t), "merchant": "Uber",
        "category": "ground_transport", "amount_cents": 2400}),
    "expenses.resubmit-approved": ("submit_report", lambda r, t: {"report_id": r["c2"]["reports"][0]["id"]}),
    "expenses.submit-over-limit": ("submit_report", lambda r, t: {"report_id": r["c2"]["reports"][0]["id"]}),
    "expenses.submit-without-receipt": ("submit_report", lambda r, t: {"report_id": r["c2"]["reports"][0]["id"]}),
    "expenses.claim-expired": ("add_item", lambda r, t: {
        "report_id": _report_titled(t), "expense_date": _quoted_day(t), "merchant": "Panera Bread",
        "category": "meals", "amount_cents": 4200}),
    "expenses.approve-own": ("approve_report", lambda r, t: {"report_id": r["c2"]["reports"][0]["id"]}),
    "expenses.approve-outside-team": ("approve_report", lambda r, t: {"report_id": r["c1"]["id"]}),
    "expenses.reimburse-own": ("record_reimbursement", lambda r, t: {"report_id": r["c2"]["reports"][0]["id"]}),
}
"""Per policy family, the write the request asks for, from the ground truth's results."""

_titles: dict[str, int] = {}


def _report_titled(task: Task) -> int:
    return _titles[task.id]


def test_policy_tasks_ask_for_what_the_rules_refuse(validated: dict[str, Task]) -> None:
    check_policy_refusals(validated, EXPENSES_FAMILIES, "expenses", refusals(
        REFUSED, lambda make, task, results, box: make(results, _with_report_noted(task, box))),
        rules={name: "rule" for name in REFUSED})


def _with_report_noted(task: Task, box: Toolbox) -> Task:
    """`task`, after noting the id of the draft report its request names by title."""
    title = re.search(r"\"([^\"]+)\" report", task.turns[0].user)
    if title is not None:
        found = box.sessions["expenses"].call(
            "search_reports", {"query": title.group(1), "status": ["draft"], "employee_id": 1}).data
        if found and found["reports"]:
            _titles[task.id] = found["reports"][0]["id"]
    return task


def test_the_oracle_solves_every_family_and_doing_nothing_scores_zero(validated: dict[str, Task]) -> None:
    check_oracle_and_do_nothing(validated)


def test_requests_name_no_internal_ids(validated: dict[str, Task]) -> None:
    """Ids reach the calls only through bindings."""
    check_no_internal_ids(validated)