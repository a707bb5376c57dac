"""The calendar and email task families: together they use every tool of their server in
ground truths, each family's tasks verify and the oracle solves them while doing nothing
fails, requests name no internal id, and the refusal families ask for what the server forbids."""

from __future__ import annotations

from functools import cache

import pytest

from mcpgym.baselines.agents import NoOpAgent, OracleAgent
from mcpgym.baselines.rollout import run_episode
from mcpgym.envs import make_env
from mcpgym.servers.toolbox import Toolbox
from mcpgym.synth.families.calendar import CALENDAR_FAMILIES
from mcpgym.synth.families.email import EMAIL_FAMILIES
from mcpgym.synth.family import Family
from mcpgym.synth.generate import synthesize
from mcpgym.tasks.execute import verify_task
from mcpgym.tasks.model import Task

FAMILIES: dict[str, tuple[Family, ...]] = {"calendar": CALENDAR_FAMILIES, "email": EMAIL_FAMILIES}
PER_FAMILY = 3
SET_SIZE = 200
"""Tasks in a server's synthesized set, as `mcpgym synth --servers <server> --n 200` writes it."""


@cache
def family_tasks(name: str) -> tuple[Task, ...]:
    """A few validated tasks of one family, in the seed-0 world."""
    family = next(f for fs in FAMILIES.values() for f in fs if f.name == name)
    tasks, _ = synthesize(list(family.servers), PER_FAMILY, families=[family], max_attempts=60)
    return tuple(tasks)


def tool_names(server: str) -> set[str]:
    box = Toolbox([server], 0)
    try:
        return {tool.name for tool in box.sessions[server].spec.tools}
    finally:
        box.close()


@pytest.mark.parametrize("server", sorted(FAMILIES))
def test_a_synthesized_set_uses_every_tool_of_its_server(server: str) -> None:
    tasks, _ = synthesize([server], SET_SIZE, families=FAMILIES[server])
    used = {call.tool for task in tasks for call in task.calls}
    assert tool_names(server) - used == set()


@pytest.mark.parametrize("family", [f for fs in FAMILIES.values() for f in fs], ids=lambda f: f.name)
def test_each_family_grounds_tasks_the_oracle_solves(family: Family) -> None:
    tasks = family_tasks(family.name)
    assert tasks, f"{family.name} grounded nothing in the seed-0 world"
    env = make_env(list(family.servers))
    try:
        for task in tasks:
            assert verify_task(task) == [], task.id
            assert run_episode(env, OracleAgent(), task).reward == 1.0, task.id
            assert run_episode(env, NoOpAgent(), task).reward == 0.0, task.id
    finally:
        env.close()


@pytest.mark.parametrize("family", [f for fs in FAMILIES.values() for f in fs], ids=lambda f: f.name)
def test_requests_name_no_internal_id(family: Family) -> None:
    for task in family_tasks(family.name):
        said = " ".join(turn.user for turn in task.turns)
        for call in task.calls:
            for name, value in call.arguments.items():
                if name.endswith("_id") and isinstance(value, int) and value >= 100:
                    assert str(value) not in said, (task.id, name, value)


def _refused(server: str, tool: str, arguments: dict[str, object], seed: int) -> tuple[str | None, bool]:
    """The error of a write on a fresh world, and whether the world is unchanged after it."""
    box = Toolbox([server], seed)
    try:
        session = box.sessions[server]
        before = session.state_hash()
        result = session.call(tool, arguments)
        return result.error, session.state_hash() == before
    finally:
        box.close()


def _read(server: str, seed: int, tool: str, **arguments: object) -> dict:  # type: ignore[type-arg]
    box = Toolbox([server], seed)
    try:
        result = box.sessions[server].call(tool, arguments)
        assert result.ok, result.error
        return result.data  # type: ignore[return-value]
    finally:
        box.close()


def test_removing_an_organiser_is_refused_and_changes_nothing() -> None:
    for task in family_tasks("calendar.remove-organizer"):
        assert not any(call.tool == "remove_attendee" for call in task.calls)
        organizer = task.calls[0].bound.get("query") or task.calls[0].arguments["query"]
        found = _read("calendar", task.seed, "list_events", **task.calls[1].arguments,
                      organizer_email=task.calls[1].bound["organizer_email"])
        event = found["events"][0]
        assert event["organizer"]["name"] == organizer
        error, unchanged = _refused("calendar", "remove_attendee",
                                    {"event_id": event["event_id"], "email": event["organizer"]["email"]}, task.seed)
        assert error is not None and error.startswith("forbidden") and unchanged


def test_deleting_outside_the_trash_is_refused_and_changes_nothing() -> None:
    for task in family_tasks("email.purge-outside-trash"):
        assert not any(call.tool == "delete_permanently" for call in task.calls)
        found = _read("email", task.seed, "search_messages", **task.calls[0].arguments)
        assert found["total"] == 1 and "TRASH" not in found["messages"][0]["labels"]
        error, unchanged = _refused("email", "delete_permanently", {"message_id": found["messages"][0]["id"]}, task.seed)
        assert error is not None and error.startswith("forbidden") and unchanged
