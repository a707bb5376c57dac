"""The social task families: each grounds validated tasks, together they use every social
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

from mcpgym.synth.families.social import LONG, SOCIAL_FAMILIES
from mcpgym.tasks.model import Task

SERVERS = ("social", "zendesk", "crm")
ATTEMPTS = 12

Results = dict[str, Any]


@pytest.fixture(scope="module")
def validated() -> Iterator[dict[str, Task]]:
    yield one_task_per_family(SOCIAL_FAMILIES, SERVERS, ATTEMPTS)


def test_every_family_grounds_a_valid_task(validated: dict[str, Task]) -> None:
    check_families_ground(validated, SOCIAL_FAMILIES, SERVERS, "social")


def test_the_families_use_every_social_tool(validated: dict[str, Task]) -> None:
    check_every_tool_used(validated, SOCIAL_FAMILIES, SERVERS, "social")


def test_writes_expect_changes_and_reads_none(validated: dict[str, Task]) -> None:
    check_writes_expect_changes(validated, SOCIAL_FAMILIES)


def quoted(task: Task, index: int = 0) -> str:
    """The `index`-th double-quoted text of the task's first request."""
    return re.findall(r'"([^"]+)"', task.turns[0].user)[index]


REFUSED: dict[str, tuple[str, Callable[[Results, Task], dict[str, Any]]]] = {
    "social.dm-blocked": ("send_direct_message", lambda r, t: {"user_id": r["c1"]["id"], "text": quoted(t)}),
    "social.mention-blocked": ("create_post", lambda r, t: {"text": quoted(t)}),
    "social.too-long": ("reply_to_post", lambda r, t: {"post_id": r["c2"]["posts"][0]["id"], "text": LONG}),
    "social.delete-others-post": ("delete_post", lambda r, t: {"post_id": r["c2"]["posts"][0]["id"]}),
    "social.edit-old-post": ("edit_post", lambda r, t: {"post_id": r["c1"]["posts"][0]["id"], "text": quoted(t, 1)}),
    "social.like-again": ("like_post", lambda r, t: {"post_id": r["c2"]["posts"][0]["id"]}),
    "social.dm-closed": ("send_direct_message", lambda r, t: {"user_id": r["c1"]["id"], "text": quoted(t)}),
    "social.post-again": ("create_post", lambda r, t: {"text": quoted(t)}),
}
"""Per policy family, the write the request asks for, from the ground truth's results."""

RULES = {
    "social.dm-blocked": "blocked", "social.mention-blocked": "blocked", "social.too-long": "280 characters",
    "social.delete-others-post": "only the author", "social.edit-old-post": "within 60 minutes",
    "social.like-again": "liked only once", "social.dm-closed": "only from accounts it follows",
    "social.post-again": "duplicate posts",
}


def test_policy_tasks_ask_for_what_the_rules_refuse(validated: dict[str, Task]) -> None:
    assert set(RULES) == set(REFUSED)
    check_policy_refusals(validated, SOCIAL_FAMILIES, "social", refusals(
        REFUSED, lambda make, task, results, box: make(results, task)), rules=RULES)


def test_the_oracle_solves_every_family_and_doing_nothing_scores_zero(validated: dict[str, Task]) -> None:
    check_oracle_and_do_nothing(validated)


def test_requests_name_no_internal_ids(validated: dict[str, Task]) -> None:
    """Ids reach the calls only through bindings (account 1, 'us', aside)."""
    check_no_internal_ids(validated, me=1)