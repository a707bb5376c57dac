"""Shared by the per-server family tests: one validated task per family, drafted and checked
exactly as the generator does, and the checks every server's families pass."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from mcpgym.baselines.agents import NoOpAgent, OracleAgent
from mcpgym.baselines.rollout import run_episode
from mcpgym.envs import make_env
from mcpgym.envs.mcp_env import McpEnv
from mcpgym.servers.catalog import load_server
from mcpgym.servers.toolbox import Toolbox
from mcpgym.synth.families import families_for
from mcpgym.synth.family import Family, SamplingError, WorldView
from mcpgym.synth.generate import choose_wordings, validate
from mcpgym.tasks.execute import complete_from_run, execute_task
from mcpgym.tasks.model import Task
from mcpgym.tasks.refs import evaluate


def first_valid(family: Family, view: WorldView, box: Toolbox, rng: random.Random, attempts: int = 12) -> Task | None:
    """The first draft of `family` that passes the generator's validation, completed."""
    for _ in range(attempts):
        try:
            draft = family.draft(view, rng)
        except SamplingError:
            continue
        if draft is None:
            continue
        task = Task.model_validate({"id": f"{family.name}-0", "servers": list(draft.servers or family.servers),
                                    "seed": view.seed, "turns": choose_wordings(draft, "test", rng),
                                    "tags": [f"family:{family.name}", f"kind:{family.kind}"]})
        run = execute_task(task, box)
        again = execute_task(task, box) if draft.writes else None
        if validate(draft.checks, draft.writes, run, again) is None:
            return complete_from_run(task, run)
    return None


def one_task_per_family(families: Sequence[Family], servers: Sequence[str], attempts: int = 12) -> dict[str, Task]:
    """One validated task per family, from the world of seed 0 (seed 1 for a family that
    grounds nothing there)."""
    found: dict[str, Task] = {}
    for seed in (0, 1):
        view, box = WorldView(tuple(servers), seed), Toolbox(list(servers), seed)
        rng = random.Random(seed)
        for family in families:
            if family.name not in found and (task := first_valid(family, view, box, rng, attempts)) is not None:
                found[family.name] = task
        view.close()
        box.close()
    return found


BASIC_KINDS = frozenset({"lookup", "aggregation", "write", "conditional-write", "policy", "multi-turn", "cross-server"})
"""The kinds every server's families include."""


def check_families_ground(validated: dict[str, Task], families: Sequence[Family], servers: Sequence[str],
                          server: str) -> None:
    """Every family grounds a valid task, is offered for `servers`, and is named for `server`."""
    assert set(validated) == {f.name for f in families}
    assert {f.name for f in families} <= {f.name for f in families_for(servers)}
    assert all(f.name.startswith((f"{server}.", f"cross.{server}-")) for f in families)


def check_every_tool_used(validated: dict[str, Task], families: Sequence[Family], servers: Sequence[str],
                          server: str, kinds: frozenset[str] = BASIC_KINDS) -> None:
    """The tasks call every tool of `server`, the families span `kinds`, some task has two
    turns, and the cross-server ones reach every server of `servers`."""
    used = {call.tool for task in validated.values() for call in task.calls if call.server == server}
    assert used == set(load_server(server).tools.names())
    assert kinds <= {f.kind for f in families}
    assert any(len(t.turns) > 1 for t in validated.values())
    assert {s for t in validated.values() if len(t.servers) > 1 for s in t.servers} == set(servers)


def check_writes_expect_changes(validated: dict[str, Task], families: Sequence[Family]) -> None:
    """A task expects row changes exactly when it calls a write; a policy task writes nothing
    and states facts."""
    for family in families:
        task = validated[family.name]
        writes = any(load_server(c.server or "").tools.get(c.tool).writes for c in task.calls)  # type: ignore[union-attr]
        assert bool(task.expected_changes) == writes, family.name
        if family.kind == "policy":
            assert not writes and task.facts, family.name


def check_oracle_and_do_nothing(validated: dict[str, Task]) -> None:
    """The oracle scores 1.0 and a do-nothing agent 0.0 on every task."""
    envs: dict[tuple[str, ...], McpEnv] = {}
    for name, task in validated.items():
        env = envs.setdefault(tuple(task.servers), make_env(task.servers))
        assert run_episode(env, OracleAgent(), task).reward == 1.0, name
        assert run_episode(env, NoOpAgent(), task).reward == 0.0, name
    for env in envs.values():
        env.close()


def check_no_internal_ids(validated: dict[str, Task], me: int | None = None, known: Collection[str] = ()) -> None:
    """Ids reach the calls only through bindings: no `*_id` argument a call writes out appears
    in its task's requests (the acting user's own id `me`, and the parameters in `known` that a
    user quotes, such as a help-desk ticket number, aside)."""
    for task in validated.values():
        text = " ".join(turn.user for turn in task.turns)
        for call in task.calls:
            for name, value in call.arguments.items():
                if name.endswith("_id") and name not in known and (me is None or value != me):
                    assert not re.search(rf"(?<![\d-]){re.escape(str(value))}(?![\d-])", text), (task.id, name, value)


Refusal = Callable[[Task, dict[str, Any], Toolbox], tuple[str, dict[str, Any]]]
"""From a policy task, its ground truth's results and its toolbox: the write the request asks
for, as (tool, arguments)."""


def check_policy_refusals(validated: dict[str, Task], families: Sequence[Family], server: str,
                          refusals: Mapping[str, Refusal], rules: Mapping[str, str] | None = None) -> None:
    """Every policy family has a refusal; the write each policy task asks for is refused with
    `forbidden` (naming `rules[family]` where given) and changes nothing, and the task's facts
    hold in its ground truth's results."""
    assert set(refusals) == {f.name for f in families if f.kind == "policy"}
    for name, refusal in refusals.items():
        task = validated[name]
        box = Toolbox(list(task.servers), task.seed)
        try:
            run = execute_task(task, box)
            tool, arguments = refusal(task, run.results, box)
            before = box.diff()
            result = box.sessions[server].call(tool, arguments)
            assert (result.error or "").startswith("forbidden: "), (name, arguments, result.text[:300])
            if rules is not None:
                assert rules[name] in (result.error or ""), (name, result.error)
            assert box.diff() == before
        finally:
            box.close()
        for fact in task.facts:
            assert evaluate(fact.expr, run.results) == fact.value


def refusals(refused: Mapping[str, tuple[str, Callable[..., dict[str, Any]]]],
             arguments: Callable[[Callable[..., dict[str, Any]], Task, dict[str, Any], Toolbox], dict[str, Any]]
             ) -> dict[str, Refusal]:
    """Refusals from (tool, maker of its arguments) pairs, each maker called through `arguments`
    with what it needs of the task, the results and the toolbox."""
    return {name: (lambda task, results, box, tool=tool, make=make: (tool, arguments(make, task, results, box)))
            for name, (tool, make) in refused.items()}
