"""BFCL multi-turn played in mcpgym's env and scored by BFCL's own checker (`reward="bfcl"`).

Needs `pip install --no-deps bfcl-eval==2026.3.23 mpmath` (the Makefile's test install does
it); without it these tests are skipped with that line as the reason.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

pytest.importorskip("bfcl_eval", reason="install with: pip install --no-deps bfcl-eval==2026.3.23 mpmath")

from mcpgym.baselines.agents import NoOpAgent, OracleAgent  # noqa: E402
from mcpgym.baselines.rollout import run_episode  # noqa: E402
from mcpgym.envs import make_env  # noqa: E402
from mcpgym.envs.mcp_env import McpEnv  # noqa: E402
from mcpgym.external.bfcl import package  # noqa: E402
from mcpgym.external.bfcl.checker import replay_states  # noqa: E402
from mcpgym.external.bfcl.package import CLASSES, INSTALL_LINE, BfclMissing, require_bfcl  # noqa: E402
from mcpgym.external.bfcl.reward import executed_calls  # noqa: E402
from mcpgym.external.bfcl.tasks import bfcl_tasks  # noqa: E402
from mcpgym.servers.catalog import benchmark_server_names, load_server, server_names  # noqa: E402
from mcpgym.tasks.loader import shipped_tasks  # noqa: E402
from mcpgym.tasks.model import Task  # noqa: E402

UNSOLVABLE = {"multi_turn_miss_func_49"}
"""BFCL's ground truth calls `tail` in turn 1, a tool BFCL reveals only at turn 3: no agent
shown BFCL's tools can pass it, in BFCL or here."""


class SkipLastCall(OracleAgent):
    """The oracle without the task's last ground-truth call."""

    def reset(self, task: Task, observation: dict[str, Any]) -> None:
        self.skip = frozenset({task.calls[-1].id}) if task.calls else frozenset()
        super().reset(task, observation)


class Envs:
    """One env per set of servers, reused across tasks (as `mcpgym eval` does)."""

    def __init__(self) -> None:
        self.envs: dict[tuple[str, ...], McpEnv] = {}

    def __call__(self, task: Task) -> McpEnv:
        key = tuple(task.servers)
        if key not in self.envs:
            self.envs[key] = make_env(list(key), tasks=[task], reward="bfcl", max_turns=200, max_calls=400)
        return self.envs[key]


def sample() -> list[Task]:
    """Every 10th task of each category, and scenario 173 of each (text ticket ids)."""
    tasks = bfcl_tasks()
    return [t for i, t in enumerate(tasks) if i % 10 == 3 or t.id.endswith("_173") or t.id in UNSOLVABLE]


def sweep(tasks: list[Task]) -> dict[str, dict[str, float]]:
    envs = Envs()
    return {name: {task.id: run_episode(envs(task), make(), task).reward for task in tasks}
            for name, make in (("oracle", OracleAgent), ("nothing", NoOpAgent), ("skip-last", SkipLastCall))}


def check_sweep(tasks: list[Task]) -> None:
    rewards = sweep(tasks)
    failed = sorted(task_id for task_id, reward in rewards["oracle"].items() if reward != 1.0)
    assert set(failed) == UNSOLVABLE & set(rewards["oracle"]), failed
    assert not any(rewards["nothing"].values()), "an agent that does nothing passes no task"
    assert not any(rewards["skip-last"].values()), "leaving out the last ground-truth call fails every task"


def test_the_oracle_passes_bfcls_checker_and_near_misses_do_not_on_a_sample() -> None:
    tasks = sample()
    assert {t.id for t in tasks} >= {f"multi_turn_{c}_173" for c in package.CATEGORIES}
    check_sweep(tasks)


@pytest.mark.slow
def test_the_oracle_passes_799_of_800_and_near_misses_none() -> None:
    check_sweep(bfcl_tasks())


@pytest.mark.parametrize("task_id", ["multi_turn_base_0", "multi_turn_long_context_7", "multi_turn_base_90",
                                     "multi_turn_miss_param_12", "multi_turn_base_147"])
def test_the_envs_final_state_equals_bfcls_own_replay(task_id: str) -> None:
    [task] = [t for t in bfcl_tasks() if t.id == task_id]
    env = Envs()(task)
    assert run_episode(env, OracleAgent(), task).reward == 1.0
    replayed = replay_states(task_id, executed_calls(task, env.trajectory))
    for server, session in env.toolbox.sessions.items():
        live = {k: v for k, v in vars(session.backend).items() if not k.startswith("_")}
        assert live == replayed[CLASSES[server]], server


def test_tools_added_mid_dialogue_are_shown_only_from_their_turn() -> None:
    task = next(t for t in bfcl_tasks("miss_func") if any(turn.reveals for turn in t.turns))
    reveal_turn = next(i for i, turn in enumerate(task.turns) if turn.reveals)
    held = {ref.tool for ref in task.turns[reveal_turn].reveals}
    env = Envs()(task)
    observation, _ = env.reset(options={"task": task})
    for turn in range(len(task.turns)):
        shown = {tool["function"]["name"] for tool in observation["tools"]}
        assert (held <= shown) == (turn >= reveal_turn), (turn, held)
        observation, *_ = env.step("I cannot do that yet.")


def test_names_are_bfcls_own_and_miss_param_turns_expect_no_call() -> None:
    task = next(t for t in bfcl_tasks("miss_param") if len(t.servers) == 2)
    observation, _ = Envs()(task).reset(options={"task": task})
    names = {tool["function"]["name"] for tool in observation["tools"]}
    assert not any(name.startswith("bfcl_") for name in names)
    assert any(not turn.calls for turn in task.turns), "a miss_param task has a turn whose ground truth is no call"


def test_miss_param_turns_expect_the_question_and_the_oracle_asks_it() -> None:
    tasks = bfcl_tasks("miss_param")
    assert all(any(turn.missing for turn in task.turns) for task in tasks)
    assert not any(turn.missing for task in bfcl_tasks("base") for turn in task.turns)
    task = next(t for t in tasks if t.turns[0].calls)
    env = Envs()(task)
    assert run_episode(env, OracleAgent(), task).reward == 1.0
    asked = next(i for i, turn in enumerate(task.turns) if turn.missing)
    assert not [call for call in env.trajectory.calls if call.turn == asked]
    assert "?" in env.trajectory.answers[asked]
    assert run_episode(env, NoOpAgent(), task).reward == 0.0


def test_bfcl_servers_are_listed_apart_from_the_world() -> None:
    assert set(benchmark_server_names()) == set(CLASSES)
    assert not set(CLASSES) & set(server_names())
    assert len(load_server("bfcl_files").tools) == len(package.function_docs("GorillaFileSystem"))


def test_the_bfcl_reward_refuses_other_tasks() -> None:
    [task] = [t for t in shipped_tasks(["zendesk"]) if t.id == "zendesk-billing-queue-audit"]
    env = make_env(["zendesk"], tasks=[task], reward="bfcl")
    with pytest.raises(ValueError, match="scores BFCL tasks"):
        run_episode(env, NoOpAgent(), task)


def test_without_the_package_the_error_is_the_install_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "bfcl_eval", None)
    with pytest.raises(BfclMissing) as caught:
        require_bfcl()
    assert str(caught.value) == INSTALL_LINE == "pip install --no-deps bfcl-eval==2026.3.23 mpmath"


def test_a_bfcl_server_speaks_mcp_like_its_in_process_session() -> None:
    import anyio
    import mcp
    from mcp_clients import text_of

    from mcpgym.servers.kernel.mcp_server import build_mcp_server
    from mcpgym.servers.kernel.session_pool import SessionPool

    spec = load_server("bfcl_ticket")
    calls = [("ticket_login", {"username": "ann", "password": "pw"}), ("create_ticket", {"title": "VPN down", "priority": 4}),
             ("get_ticket", {"ticket_id": 1}), ("close_ticket", {"ticket_id": "not-a-ticket"}), ("create_ticket", {"title": 3})]

    async def main() -> tuple[list[str], list[tuple[bool, str]]]:
        async with mcp.Client(build_mcp_server(SessionPool(spec))) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            results = [await client.call_tool(name, arguments) for name, arguments in calls]
            return names, [(bool(r.is_error), text_of(r)) for r in results]

    names, answers = anyio.run(main)
    session = spec.open()
    expected = [(not (r := session.call(name, arguments)).ok, r.text) for name, arguments in calls]
    assert names == [tool.name for tool in spec.tools]
    assert answers == expected
    assert [error for error, _ in answers] == [False, False, False, True, True]


def test_bfcl_tasks_through_the_episode_host_score_as_in_the_env() -> None:
    import json as json_module

    import anyio
    import mcp
    from mcp_clients import http_json, text_of

    from mcpgym.envs.mcp_host import HostSettings, hosted

    two = next(t for t in bfcl_tasks("base") if len(t.servers) == 2)
    revealing = next(t for t in bfcl_tasks("miss_func") if any(turn.reveals for turn in t.turns[1:]))
    held = {ref.tool for turn in revealing.turns for ref in turn.reveals}

    async def play(url: str, task: Task) -> list[set[str]]:
        listed = []
        async with mcp.Client(url) as client:
            for turn in task.turns:
                listed.append({tool.name for tool in (await client.list_tools()).tools})
                for call in turn.calls:
                    result = await client.call_tool(call.tool, call.arguments)
                    assert not result.is_error or text_of(result).startswith("{"), text_of(result)
                await client.call_tool("finish", {"answer": "Done."})
        return listed

    with hosted(HostSettings(max_sessions=4, reward="bfcl", max_steps=400), tasks=[two, revealing]) as base:
        for task in (two, revealing):
            status, created = http_json(base + "/episodes", "POST", {"task": task.id})
            assert status == 201, created
            listed = anyio.run(play, base + created["mcp_endpoint"], task)
            status, result = http_json(base + f"/episodes/{created['episode_id']}/result")
            assert status == 200 and result["reward"] == 1.0, json_module.dumps(result["reward_breakdown"])[:500]
            assert not any(name.startswith("bfcl_") for name in listed[0])
            if task is revealing:
                shown_from = next(i for i, turn in enumerate(task.turns) if turn.reveals)
                assert all((held <= names) == (i >= shown_from) for i, names in enumerate(listed))


def test_an_eval_run_reports_bfcls_accuracy_per_category(tmp_path: Any) -> None:
    from mcpgym.baselines.agent_spec import AgentSpec
    from mcpgym.baselines.evaluate import evaluate

    tasks = [t for category in package.CATEGORIES for t in bfcl_tasks(category)[:3]]
    tasks.append(next(t for t in bfcl_tasks("miss_func") if t.id in UNSOLVABLE))
    report = evaluate(tasks, AgentSpec(kind="oracle"), tmp_path / "run", progress=False,
                      env_kwargs={"reward": "bfcl", "max_turns": 100})
    by_category = report.summary["by_category"]
    assert set(by_category) == {f"bfcl:{category}" for category in package.CATEGORIES}
    assert by_category["bfcl:base"]["mean_reward"] == 1.0 and by_category["bfcl:base"]["episodes"] == 3
    assert by_category["bfcl:miss_func"]["mean_reward"] == pytest.approx(3 / 4)
    assert "| bfcl:miss_param | 3 | 1.000 |" in (tmp_path / "run" / "summary.md").read_text()
