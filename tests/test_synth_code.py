"""The code-host task families: each grounds validated tasks, together they use every code
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
from mcpgym.synth.families.code import CODE_FAMILIES
from mcpgym.tasks.model import Task

SERVERS = ("code", "projects")
ATTEMPTS = 12


@pytest.fixture(scope="module")
def validated() -> Iterator[dict[str, Task]]:
    yield one_task_per_family(CODE_FAMILIES, SERVERS, ATTEMPTS)


def test_every_family_grounds_a_valid_task(validated: dict[str, Task]) -> None:
    check_families_ground(validated, CODE_FAMILIES, SERVERS, "code")


def test_the_families_use_every_code_tool(validated: dict[str, Task]) -> None:
    check_every_tool_used(validated, CODE_FAMILIES, SERVERS, "code")


def test_writes_expect_changes_and_reads_none(validated: dict[str, Task]) -> None:
    check_writes_expect_changes(validated, CODE_FAMILIES)


def _number(task: Task) -> tuple[str, int]:
    """The repository and pull request number a request names (`#42 in web-app` or `web-app#42`)."""
    text = task.turns[0].user
    match = re.search(r"#(\d+) in ([a-z0-9-]+)", text) or re.search(r"([a-z0-9-]+)#(\d+)", text)
    assert match is not None, text
    first, second = match.groups()
    return (second, int(first)) if first.isdigit() else (first, int(second))


Refusal = tuple[str, Callable[[Task, dict[str, Any], Toolbox], dict[str, Any]]]

REFUSED: dict[str, Refusal] = {
    "code.merge-blocked": ("merge_pull_request", lambda t, r, box: {
        "repo": r["c1"]["repo"], "number": r["c1"]["number"],
        "method": box.sessions["code"].call("get_repository", {"repo": r["c1"]["repo"]}).data["merge_methods"][0]}),  # type: ignore[index]
    "code.push-to-protected": ("push_commit", lambda t, r, box: {
        "repo": r["c1"]["name"], "branch": r["c1"]["default_branch"], "message": "Hotfix",
        "files": [{"path": "README.md", "additions": 1, "deletions": 1}]}),
    "code.approve-own-pull-request": ("submit_review", lambda t, r, box: {
        "repo": r["c1"]["repo"], "number": r["c1"]["number"], "event": "approve"}),
    "code.grant-without-admin": ("set_collaborator_permission", lambda t, r, box: {
        "repo": r["c1"]["repo"], "user_id": r["c1"]["collaborators"][0]["id"], "permission": "admin"}),
    "code.close-merged-pull-request": ("update_pull_request", lambda t, r, box: {
        "repo": _number(t)[0], "number": _number(t)[1], "state": "closed"}),
    "code.delete-protected-branch": ("delete_branch", lambda t, r, box: {
        "repo": t.calls[0].arguments["repo"], "branch": r["c1"]["branches"][0]["name"]}),
}
"""Per policy family, the write the request asks for, from the ground truth's results."""


def test_policy_tasks_ask_for_what_the_rules_refuse(validated: dict[str, Task]) -> None:
    check_policy_refusals(validated, CODE_FAMILIES, "code", refusals(
        REFUSED, lambda make, task, results, box: make(task, results, box)))


def test_the_oracle_solves_every_family_and_doing_nothing_scores_zero(validated: dict[str, Task]) -> None:
    check_oracle_and_do_nothing(validated)


def test_requests_name_no_internal_ids(validated: dict[str, Task]) -> None:
    """User ids reach the calls only through bindings."""
    check_no_internal_ids(validated, me=1)