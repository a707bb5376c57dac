"""The hotels task families: each grounds validated tasks, together they use every hotels
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

from mcpgym.synth.families.hotels import HOTELS_FAMILIES
from mcpgym.tasks.model import Task

SERVERS = ("hotels", "flights")
ATTEMPTS = 12

Results = dict[str, Any]


@pytest.fixture(scope="module")
def validated() -> Iterator[dict[str, Task]]:
    yield one_task_per_family(HOTELS_FAMILIES, SERVERS, ATTEMPTS)


def test_every_family_grounds_a_valid_task(validated: dict[str, Task]) -> None:
    check_families_ground(validated, HOTELS_FAMILIES, SERVERS, "hotels")


def test_the_families_use_every_hotels_tool(validated: dict[str, Task]) -> None:
    check_every_tool_used(validated, HOTELS_FAMILIES, SERVERS, "hotels")


def test_writes_expect_changes_and_reads_none(validated: dict[str, Task]) -> None:
    check_writes_expect_changes(validated, HOTELS_FAMILIES)


def _booking_in(task: Task) -> str:
    found = re.search(r"\b(\d{10})\b", task.turns[0].user)
    assert found, task.turns[0].user
    return found.group(1)


def _dates_in(task: Task) -> list[str]:
    return re.findall(r"\d{4}-\d{2}-\d{2}", task.turns[0].user)


def _room_booking(r: Results, task: Task, guests: int = 1) -> dict[str, Any]:
    """The booking a policy task asks for: the room type the calendar or the request names."""
    check_in, check_out = _dates_in(task)[:2]
    room = next(t for t in r["c2"]["room_types"] if t["name"] in task.turns[0].user)
    return {"guest_id": 1, "rate_plan_id": room["rate_plans"][0]["id"], "check_in": check_in, "check_out": check_out,
            "guests": guests}


REFUSED: dict[str, tuple[str, Callable[[Results, Task], dict[str, Any]]]] = {
    "hotels.cancel-after-deadline": ("cancel_reservation", lambda r, t: {"confirmation_number": _booking_in(t)}),
    "hotels.cancel-nonrefundable": ("cancel_reservation", lambda r, t: {"confirmation_number": _booking_in(t)}),
    "hotels.cancel-checked-in": ("cancel_reservation", lambda r, t: {"confirmation_number": _booking_in(t)}),
    "hotels.redeem-too-many": ("redeem_points", lambda r, t: {
        "confirmation_number": _booking_in(t), "points": int(re.findall(r"\b(\d+) (?:of my |loyalty )?points", t.turns[0].user)[0])}),
    "hotels.book-sold-out": ("create_reservation", lambda r, t: _room_booking(r, t)),
    "hotels.too-many-guests": ("create_reservation", lambda r, t: _room_booking(
        r, t, int(re.findall(r"(?:for|We are) (\d+) people", t.turns[0].user)[0]))),
    "hotels.book-beyond-window": ("create_reservation", lambda r, t: _room_booking(r, t)),
}
"""Per policy family, the write the request asks for, from the ground truth's results."""


def test_policy_tasks_ask_for_what_the_rules_refuse(validated: dict[str, Task]) -> None:
    check_policy_refusals(validated, HOTELS_FAMILIES, "hotels", refusals(
        REFUSED, lambda make, task, results, box: make(results, task)))


def test_the_oracle_solves_every_family_and_doing_nothing_scores_zero(validated: dict[str, Task]) -> None:
    check_oracle_and_do_nothing(validated)


def test_requests_name_no_internal_ids(validated: dict[str, Task]) -> None:
    """Ids reach the calls only through bindings; users name bookings by confirmation number."""
    check_no_internal_ids(validated)