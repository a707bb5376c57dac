"""The HR task families: each grounds validated tasks, together they use every HR tool, the
oracle solves them and doing nothing does not, and the refusals they ask for are real."""

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
from mcpgym.synth.families.hr import HR_FAMILIES
from mcpgym.tasks.model import Task

SERVERS = ("hr", "chat")
ATTEMPTS = 12

Results = dict[str, Any]


@pytest.fixture(scope="module")
def validated() -> Iterator[dict[str, Task]]:
    yield one_task_per_family(HR_FAMILIES, SERVERS, ATTEMPTS)


def test_every_family_grounds_a_valid_task(validated: dict[str, Task]) -> None:
    check_families_ground(validated, HR_FAMILIES, SERVERS, "hr")


def test_the_families_use_every_hr_tool(validated: dict[str, Task]) -> None:
    check_every_tool_used(validated, HR_FAMILIES, SERVERS, "hr")


def test_writes_expect_changes_and_reads_none(validated: dict[str, Task]) -> None:
    check_writes_expect_changes(validated, HR_FAMILIES)


def _dates(text: str) -> list[str]:
    return re.findall(r"\d{4}-\d{2}-\d{2}", text)


def _dollars(text: str) -> int:
    return int(re.search(r"\$([\d,]+)", text).group(1).replace(",", "")) * 100  # type: ignore[union-attr]


def _employee(r: Results) -> int:
    return int(r["c1"]["employees"][0]["id"])


REFUSED: dict[str, tuple[str, Callable[[Results, str], dict[str, Any]]]] = {
    "hr.over-balance": ("request_time_off", lambda r, t: {
        "employee_id": _employee(r), "policy": "personal", "start_date": _dates(t)[0], "end_date": _dates(t)[1]}),
    "hr.approve-others-report": ("approve_time_off_request", lambda r, t: {"request_id": _pending_from(r, t)}),
    "hr.cancel-started": ("cancel_time_off_request", lambda r, t: {"request_id": r["c2"]["requests"][0]["id"]}),
    "hr.overlapping-request": ("request_time_off", lambda r, t: {
        "employee_id": _employee(r), "policy": "vacation", "start_date": _dates(t)[0], "end_date": _dates(t)[1]}),
    "hr.statement-to-manager": ("share_compensation_statement", lambda r, t: {
        "employee_id": _employee(r), "recipient_email": r["c2"]["email"]}),
    "hr.own-raise": ("change_salary", lambda r, t: {"employee_id": 1, "salary_cents": _dollars(t), "reason": "merit"}),
    "hr.raise-above-band": ("change_salary", lambda r, t: {
        "employee_id": _employee(r), "salary_cents": _dollars(t), "reason": "market_adjustment"}),
    "hr.terminated-record": ("request_time_off", lambda r, t: {
        "employee_id": _employee(r), "policy": "vacation", "start_date": _dates(t)[0], "end_date": _dates(t)[0]}),
    "hr.manager-loop": ("change_manager", lambda r, t: {
        "employee_id": _employee(r), "manager_id": r["c2"]["employees"][0]["id"]}),
    "hr.terminate-manager": ("terminate_employee", lambda r, t: {"employee_id": _employee(r), "reason": "Resigned"}),
    "hr.submit-others-review": ("submit_performance_review", lambda r, t: {
        "review_id": r["c2"]["reviews"][0]["id"], "rating": 4, "summary": "Solid year, met every goal."}),
    "hr.complete-others-task": ("complete_onboarding_task", lambda r, t: {"task_id": _task_from(r, t)}),
}
"""Per policy family, the write the request asks for, from the ground truth's results and the request."""

_BOX: dict[str, Toolbox] = {}


def _pending_from(r: Results, text: str) -> int:
    found = _BOX["box"].sessions["hr"].call("search_time_off_requests", {
        "employee_id": _employee(r), "status": "pending", "start_from": _dates(text)[0]}).data
    assert found is not None
    return int(found["requests"][-1]["id"])


def _task_from(r: Results, text: str) -> int:
    title = re.search(r"\"([^\"]+)\"", text).group(1)  # type: ignore[union-attr]
    return int(next(t["id"] for t in r["c2"]["tasks"] if t["title"] == title))


def test_policy_tasks_ask_for_what_the_rules_refuse(validated: dict[str, Task]) -> None:
    check_policy_refusals(validated, HR_FAMILIES, "hr", refusals(
        REFUSED, lambda make, task, results, box: _BOX.update(box=box) or make(results, task.turns[0].user)))


def test_the_oracle_solves_every_family_and_doing_nothing_scores_zero(validated: dict[str, Task]) -> None:
    check_oracle_and_do_nothing(validated)


def test_requests_name_no_internal_ids(validated: dict[str, Task]) -> None:
    """Ids reach the calls only through bindings (employee 1, 'me', aside)."""
    check_no_internal_ids(validated, me=1)