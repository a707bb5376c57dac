"""The finance and flights task families: each grounds validated tasks, together they use
every tool of their server, the oracle solves them and doing nothing does not, and the
refusal they ask for is real."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from datetime import date, timedelta

import pytest

from mcpgym.baselines.agents import NoOpAgent, OracleAgent
from mcpgym.baselines.rollout import run_episode
from mcpgym.envs import make_env
from mcpgym.servers.catalog import load_server
from mcpgym.servers.toolbox import Toolbox
from mcpgym.synth.family import Family, SamplingError, WorldView
from mcpgym.synth.families import families_for
from mcpgym.synth.families.finance import FINANCE_FAMILIES
from mcpgym.synth.families.flights import FLIGHTS_FAMILIES
from mcpgym.synth.generate import choose_wordings, validate
from mcpgym.tasks.execute import complete_from_run, execute_task
from mcpgym.tasks.model import Task
from mcpgym.tasks.refs import evaluate

FAMILIES = {"finance": FINANCE_FAMILIES, "flights": FLIGHTS_FAMILIES}
ATTEMPTS = 16
PER_FAMILY = 4
"""Validated tasks kept per family: enough that a conditional family shows both outcomes."""


def valid_tasks(family: Family, view: WorldView, box: Toolbox, rng: random.Random) -> list[Task]:
    """Up to PER_FAMILY distinct drafts of `family` that pass the generator's validation, completed."""
    found: dict[str, Task] = {}
    for _ in range(ATTEMPTS):
        try:
            draft = family.draft(view, rng)
        except SamplingError:
            continue
        if draft is None or draft.key in found:
            continue
        task = Task.model_validate({"id": f"{family.name}-{len(found)}", "servers": list(draft.servers or family.servers),
                                    "seed": view.seed, "turns": choose_wordings(draft, "test", rng),
                                    "tags": [f"family:{family.name}", f"kind:{family.kind}"]})
        run = execute_task(task, box)
        again = execute_task(task, box) if draft.writes else None
        if validate(draft.checks, draft.writes, run, again) is None:
            found[draft.key] = complete_from_run(task, run)
        if len(found) == PER_FAMILY:
            break
    return list(found.values())


@pytest.fixture(scope="module", params=sorted(FAMILIES))
def server(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def validated(server: str) -> Iterator[dict[str, list[Task]]]:
    """Validated tasks per family of `server`, from the world of seed 0."""
    view, box = WorldView((server,), 0), Toolbox([server], 0)
    rng = random.Random(0)
    yield {family.name: valid_tasks(family, view, box, rng) for family in FAMILIES[server]}
    view.close()
    box.close()


def test_every_family_grounds_a_valid_task(server: str, validated: dict[str, list[Task]]) -> None:
    assert all(validated.values()), [name for name, tasks in validated.items() if not tasks]
    assert {f.name for f in FAMILIES[server]} <= {f.name for f in families_for((server,))}


def test_the_families_use_every_tool(server: str, validated: dict[str, list[Task]]) -> None:
    used = {call.tool for tasks in validated.values() for task in tasks for call in task.calls}
    assert used == set(load_server(server).tools.names())
    kinds = {f.kind for f in FAMILIES[server]}
    assert {"lookup" if server == "flights" else "aggregation", "comparison", "write", "conditional-write",
            "multi-turn"} <= kinds


def test_writes_expect_changes_and_reads_none(server: str, validated: dict[str, list[Task]]) -> None:
    spec = load_server(server).tools
    for name, tasks in validated.items():
        for task in tasks:
            writes = any(spec.get(c.tool).writes for c in task.calls)  # type: ignore[union-attr]
            assert bool(task.expected_changes) == writes, name
            if "kind:policy" in task.tags:
                assert not writes and task.facts, name


def test_the_oracle_solves_every_family_and_doing_nothing_scores_zero(server: str, validated: dict[str, list[Task]]) -> None:
    env = make_env([server])
    for name, tasks in validated.items():
        task = tasks[0]
        assert run_episode(env, OracleAgent(), task).reward == 1.0, name
        assert run_episode(env, NoOpAgent(), task).reward == 0.0, name
    env.close()


def test_requests_name_no_internal_ids(validated: dict[str, list[Task]]) -> None:
    """Ids reach the calls only through bindings."""
    for tasks in validated.values():
        for task in tasks:
            text = " ".join(turn.user for turn in task.turns)
            for call in task.calls:
                for name, value in call.arguments.items():
                    if name.endswith("_id"):
                        assert not re.search(rf"(?<![\d-]){value}(?![\d-])", text), (task.id, name, value)


def test_the_basic_fare_change_is_refused() -> None:
    """The change a basic-fare refusal task asks for is forbidden and changes nothing, and the
    task's facts say why."""
    family = next(f for f in FLIGHTS_FAMILIES if f.name == "flights.basic-fare-change-refusal")
    view, box = WorldView(("flights",), 0), Toolbox(["flights"], 0)
    tasks = valid_tasks(family, view, box, random.Random(1))
    assert tasks
    session = box.sessions["flights"]
    for task in tasks:
        run = execute_task(task, box)
        booking = run.results["c1"]
        leg = booking["segments"][0]["flight"]
        day = date.fromisoformat(leg["departure_date"]) + timedelta(days=1)
        later = session.call("list_flights", {
            "origin": leg["origin"], "destination": leg["destination"], "departure_after": f"{day}T00:00:00Z",
            "departure_before": f"{day + timedelta(days=14)}T00:00:00Z", "status": ["scheduled"]}).data["flights"]
        assert later, task.id
        before = box.diff()
        result = session.call("change_flight", {"pnr": booking["pnr"], "old_flight_id": leg["flight_id"],
                                                "new_flight_id": later[0]["flight_id"]})
        assert (result.error or "").startswith("forbidden: "), result.text[:200]
        assert box.diff() == before
        assert [evaluate(fact.expr, run.results) for fact in task.facts] == ["Basic Economy", False, "none"]
    view.close()
    box.close()


def test_conditional_families_ground_both_outcomes(server: str) -> None:
    """Over some drafts, a conditional family puts the write in the ground truth sometimes,
    not always, and every writing draft (only those) calls a writing tool."""
    spec = load_server(server).tools
    view, rng = WorldView((server,), 0), random.Random(2)
    for family in FAMILIES[server]:
        if family.kind != "conditional-write":
            continue
        drafts = [d for d in (family.draft(view, rng) for _ in range(30)) if d is not None]
        assert {d.writes for d in drafts} == {True, False}, family.name
        for draft in drafts:
            calls = [c for turn in draft.turns for c in turn["calls"]]
            assert any(spec.get(c["tool"]).writes for c in calls) == draft.writes, family.name  # type: ignore[union-attr]
    view.close()
