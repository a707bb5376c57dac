"""Families sampled from the dependency graph: every call after the first follows an edge,
tasks are grounded and solvable, fan-in comparisons join two walks, cross walks cross."""

from __future__ import annotations

import random

import pytest

from mcpgym.baselines.agents import NoOpAgent, OracleAgent
from mcpgym.baselines.rollout import run_episode
from mcpgym.envs import make_env
from mcpgym.envs.mcp_env import McpEnv
from mcpgym.synth.families.walk import GraphWalk, GraphWalkComparison, ToolGraph, field_role, tool_noun, walk_families
from mcpgym.synth.family import WorldView
from mcpgym.synth.generate import synthesize
from mcpgym.synth.graph import build_graph
from mcpgym.tasks.execute import verify_task
from mcpgym.tasks.model import Task

SERVERS = ("calendar", "crm", "flights", "zendesk")


@pytest.fixture(scope="module")
def walk_tasks() -> list[Task]:
    tasks, report = synthesize(list(SERVERS), 40, seed=3, families=walk_families(SERVERS))
    assert len(tasks) == 40, report.rejected
    return tasks


def test_each_call_after_the_first_follows_a_graph_edge(walk_tasks: list[Task]) -> None:
    graph = build_graph(list(SERVERS))
    for task in walk_tasks:
        calls = {call.id: call for call in task.calls}
        for call in task.calls:
            if not call.bind:
                assert len(call.arguments) == 1, "a walk starts from one handle"
                continue
            (parameter, ref), = call.bind.items()
            source_id, field = ref.strip("{}").split(".", 1)
            source = calls[source_id]
            edges = graph.get_edge_data(f"{source.server}.{source.tool}", f"{call.server}.{call.tool}") or {}
            assert any(e["field"] == field and e["parameter"] == parameter for e in edges.values()), (task.id, call)


def test_walk_tasks_verify_and_only_the_oracle_scores(walk_tasks: list[Task]) -> None:
    envs: dict[tuple[str, ...], McpEnv] = {}
    for task in walk_tasks:
        assert verify_task(task) == []
        key = tuple(task.servers)
        env = envs.setdefault(key, make_env(key))
        assert run_episode(env, OracleAgent(), task).reward == 1.0, task.id
        assert run_episode(env, NoOpAgent(), task).reward == 0.0, task.id
    for env in envs.values():
        env.close()


def test_requests_name_handles_not_internal_ids(walk_tasks: list[Task]) -> None:
    """The only literal argument is the handle the request names; ids never appear, except a
    ticket number, which the task declares a user has."""
    for task in walk_tasks:
        literal = [(name, value) for call in task.calls for name, value in call.arguments.items()]
        known = {tag.removeprefix("known:") for tag in task.tags if tag.startswith("known:")}
        for name, value in literal:
            assert str(value) in task.turns[0].user
            assert not name.endswith("_id") or name in known
        bound_values = [value for _, value in literal]
        assert len(bound_values) == len(set(map(str, bound_values)))


def test_a_walk_never_hands_the_same_value_on_twice() -> None:
    family = GraphWalk(ToolGraph(("crm",)), min_calls=3, max_calls=5)
    view = WorldView(("crm",), 0)
    rng = random.Random(0)
    walks = [w for w in (family.walk(view, rng) for _ in range(30)) if w is not None]
    view.close()
    assert walks
    for walk in walks:
        assert len(walk.passed) == len({str(v) for v in walk.passed}) == len(walk.calls)
        assert all(not family.reviews(hop) for hop in walk.hops[:-1]), "a re-view only ends a walk"


def test_comparisons_join_two_walks_in_one_fact(walk_tasks: list[Task]) -> None:
    comparisons = [t for t in walk_tasks if "kind:comparison" in t.tags]
    assert comparisons
    for task in comparisons:
        starts = [call for call in task.calls if not call.bind]
        assert len(starts) == 2 and starts[0].arguments != starts[1].arguments
        joined = [fact for fact in task.facts if fact.expr.count("{") == 2]
        assert joined, task.facts


def test_cross_walks_cross_servers() -> None:
    family = next(f for f in walk_families(SERVERS) if f.kind == "cross-server")
    view = WorldView(SERVERS, 0)
    rng = random.Random(1)
    drafts = [d for d in (family.draft(view, rng) for _ in range(120)) if d is not None]
    view.close()
    assert drafts
    for draft in drafts:
        assert draft.servers is not None and len(draft.servers) >= 2
        assert len(draft.turns[0]["calls"]) >= 3


def test_families_without_a_two_call_walk_are_left_out() -> None:
    names = {f.name for f in walk_families(("finance", "zendesk"))}
    assert "zendesk.graph-walk" in names and "zendesk.graph-walk-comparison" in names
    assert "finance.graph-walk" not in names, "every finance walk hands the same symbol on"
    assert isinstance(next(f for f in walk_families(("zendesk",)) if f.kind == "comparison"), GraphWalkComparison)


def test_hops_are_described_by_role_or_tool() -> None:
    assert field_role("requester_id") == "requester" and field_role("organizer.email") == "organizer"
    assert field_role("id") is None and field_role("email") is None
    assert tool_noun("find_contact_by_email") == "contact" and tool_noun("list_passenger_reservations") == "passenger reservations"
