"""Many servers in one env: an episode shows the tools of the servers its task needs, plus
distractor servers drawn from the seed, under an optional cap; hidden tools answer
`unknown_tool`; vector envs carry each episode's tools."""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mcpgym  # noqa: F401  (registers the ids)
from mcpgym.envs import make_env
from mcpgym.envs.mcp_env import McpEnv
from mcpgym.servers.catalog import SERVER_GROUPS, load_server
from mcpgym.tasks.loader import shipped_tasks

SERVERS = list(SERVER_GROUPS["workspace"])
TASK = "workspace-email-negotiation-contact"


def call(name: str, **arguments: object) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def names(observation: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in observation["tools"]]


def servers_shown(observation: dict[str, Any]) -> set[str]:
    return {name.split("_", 1)[0] for name in names(observation) if name != "finish"}


@pytest.fixture(scope="module")
def env() -> McpEnv:
    made = make_env(SERVERS)
    yield made
    made.close()


@pytest.fixture(scope="module")
def task() -> Any:
    return next(t for t in shipped_tasks() if t.id == TASK)


def test_an_episode_shows_the_tools_of_the_servers_its_task_needs(env: McpEnv, task: Any) -> None:
    observation, _ = env.reset(options={"task": TASK})
    expected = [f"{s}_{t.name}" for s in SERVERS if s in task.servers for t in load_server(s).tools]
    assert names(observation) == [*expected, "finish"]
    system = observation["messages"][0]["content"]
    assert all((load_server(s).instructions in system) == (s in task.servers) for s in SERVERS)
    assert observation in env.observation_space


def test_a_mounted_tool_not_shown_answers_unknown_tool_and_changes_nothing(env: McpEnv) -> None:
    env.reset(options={"task": TASK})
    before = env.toolbox.state_hash()
    observation, *_ = env.step(call("zendesk_add_comment", ticket_id=1380, body="hi", public=True))
    reply = observation["messages"][-1]["content"]
    assert reply.startswith("unknown_tool: no tool named 'zendesk_add_comment'") and "crm_get_contact" in reply
    assert "zendesk_" not in reply.split("Tools:")[1]
    assert env.toolbox.state_hash() == before
    assert env.trajectory.calls[-1].server is None


def test_distractors_are_drawn_from_the_seed(env: McpEnv, task: Any) -> None:
    def shown(seed: int, distractors: int) -> frozenset[str]:
        env.distractors = distractors
        observation, _ = env.reset(seed=seed, options={"task": TASK})
        return frozenset(servers_shown(observation))

    draws = {seed: shown(seed, 2) for seed in range(8)}
    assert all(len(s) == len(task.servers) + 2 and set(task.servers) <= s for s in draws.values())
    assert len(set(draws.values())) > 1, "the seed decides which distractors"
    assert all(shown(seed, 2) == draws[seed] for seed in range(8))
    assert shown(0, 64) == frozenset(SERVERS)
    env.distractors = 0


def test_all_scope_shows_every_mounted_server() -> None:
    env = make_env(SERVERS, tool_scope="all")
    observation, _ = env.reset(options={"task": TASK})
    assert servers_shown(observation) == set(SERVERS)
    env.close()


def test_the_cap_keeps_the_tasks_tools_and_cuts_distractors_first(task: Any) -> None:
    env = make_env(SERVERS, distractors=5, max_tools=30)
    observation, _ = env.reset(seed=3, options={"task": TASK})
    shown = names(observation)
    needed = {env.toolbox.public_name(c.server or task.servers[0], c.tool) for c in task.calls}
    assert len(shown) == 30 and shown[-1] == "finish" and needed <= set(shown)
    own = sum(name.split("_", 1)[0] in task.servers for name in shown[:-1])
    assert own == min(29, sum(len(load_server(s).tools) for s in task.servers))
    every = names({"tools": env.observation_space["tools"].tools})
    assert [n for n in every if n in shown] == shown, "the cap keeps the mount order"
    env.close()


def test_a_cap_below_a_tasks_own_tools_is_refused_up_front(task: Any) -> None:
    with pytest.raises(ValueError, match="max_tools=2 shows at most 1 besides finish"):
        make_env(SERVERS, tasks=[task], max_tools=2)
    with pytest.raises(ValueError, match="tool_scope"):
        make_env(SERVERS, tool_scope="some")


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), distractors=st.integers(0, 8), cap=st.none() | st.integers(8, 150))
def test_every_episode_view_is_in_the_observation_space(env: McpEnv, seed: int, distractors: int, cap: int | None) -> None:
    env.distractors, env.max_tools = distractors, cap
    try:
        observation, _ = env.reset(seed=seed)
        assert env.task is not None
        assert observation in env.observation_space
        shown = servers_shown(observation)
        assert set(env.task.servers) <= shown
        assert cap is not None or len(shown) == min(len(SERVERS), len(env.task.servers) + distractors)
        assert cap is None or len(observation["tools"]) <= cap
    finally:
        env.distractors, env.max_tools = 0, None


def test_async_vector_envs_carry_each_episodes_tools() -> None:
    def run(mode: str) -> list[Any]:
        envs = gym.make_vec("mcp/workspace-v0", num_envs=2, vectorization_mode=mode)
        seen = []
        for seed in (0, 1, 2):
            observations, _ = envs.reset(seed=[seed, seed + 10])
            seen.append([names({"tools": tools}) for tools in observations["tools"]])
            observations, *_ = envs.step(("Done.", "Done."))
            seen.append([names({"tools": tools}) for tools in observations["tools"]])
        envs.close()
        return seen

    synced = run("sync")
    assert len({tuple(step[0]) for step in synced}) > 1, "episodes show different tools"
    assert run("async") == synced
