"""The chat task families: each grounds validated tasks, together they use every chat tool,
the oracle solves them and doing nothing does not, and the refusals they ask for are real."""

from __future__ import annotations

import re
from collections.abc import Iterator

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
from mcpgym.synth.families.chat import CHAT_FAMILIES
from mcpgym.tasks.model import Task

SERVERS = ("chat", "crm", "zendesk")
ATTEMPTS = 12


@pytest.fixture(scope="module")
def validated() -> Iterator[dict[str, Task]]:
    yield one_task_per_family(CHAT_FAMILIES, SERVERS, ATTEMPTS)


def test_every_family_grounds_a_valid_task(validated: dict[str, Task]) -> None:
    check_families_ground(validated, CHAT_FAMILIES, SERVERS, "chat")


def test_the_families_use_every_chat_tool(validated: dict[str, Task]) -> None:
    check_every_tool_used(validated, CHAT_FAMILIES, SERVERS, "chat")


def test_writes_expect_changes_and_reads_none(validated: dict[str, Task]) -> None:
    check_writes_expect_changes(validated, CHAT_FAMILIES)


REFUSED = {
    "chat.post-in-archived": ("post_message", lambda r, names: {"channel_id": r["c1"]["id"], "text": "Hello"}),
    "chat.archive-others-channel": ("archive_channel", lambda r, names: {"channel_id": r["c1"]["id"]}),
    "chat.edit-others-pin": ("edit_message", lambda r, names: {"message_id": r["c1"]["pins"][0]["message_id"], "text": "x"}),
    "chat.invite-guest-to-internal": ("invite_to_channel", lambda r, names: {
        "channel_id": names[0], "user_ids": [r["c1"]["users"][0]["id"]]}),
}
"""Per policy family, the write the request asks for, from the ground truth's results."""


def test_policy_tasks_ask_for_what_the_rules_refuse(validated: dict[str, Task]) -> None:
    check_policy_refusals(validated, CHAT_FAMILIES, "chat", refusals(
        REFUSED, lambda make, task, results, box: make(results, _channel_ids(task, box))))


def _channel_ids(task: Task, box: Toolbox) -> list[int]:
    """The ids of the channels the request names (#name)."""
    channels = [box.sessions["chat"].call("find_channel", {"name": n}).data
                for n in re.findall(r"#([a-z0-9_-]+)", task.turns[0].user)]
    return [c["id"] for c in channels if c]


def test_the_oracle_solves_every_family_and_doing_nothing_scores_zero(validated: dict[str, Task]) -> None:
    check_oracle_and_do_nothing(validated)


def test_requests_name_no_internal_ids(validated: dict[str, Task]) -> None:
    """Ids reach the calls only through bindings (user 1, 'me', aside)."""
    check_no_internal_ids(validated, me=1)