"""The Gymnasium environment: registration, spaces, episodes, malformed actions, vector envs."""

from __future__ import annotations

import json
import subprocess
import sys

import gymnasium as gym
import pytest
from typing import Any
from gymnasium.utils.env_checker import check_env

import mcpgym  # noqa: F401  (registration also works without it; see the subprocess tests)
from mcpgym.envs import make_env
from mcpgym.envs.mcp_env import McpEnv
from mcpgym.tasks.loader import shipped_tasks


@pytest.fixture(scope="module")
def env() -> McpEnv:
    made = gym.make("mcp/zendesk-v0").unwrapped
    assert isinstance(made, McpEnv)
    return made


def call(name: str, **arguments: object) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def run_in_fresh_interpreter(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_gym_make_works_in_a_fresh_interpreter_without_importing_mcpgym() -> None:
    out = run_in_fresh_interpreter(
        "import sys, gymnasium as gym\n"
        "env = gym.make('mcp/zendesk-v0')\n"
        "obs, info = env.reset(seed=0)\n"
        "print(type(env.unwrapped).__name__, len(obs['tools']), 'mcp.server' in sys.modules)"
    )
    assert out.split() == ["McpEnv", "23", "False"]


def test_gym_make_works_after_import_mcpgym_in_a_fresh_interpreter() -> None:
    out = run_in_fresh_interpreter(
        "import mcpgym, gymnasium as gym\nprint(gym.spec('mcp/zendesk-v0').entry_point)"
    )
    assert out.strip() == "mcpgym.envs.mcp_env:McpEnv"


def test_check_env_passes() -> None:
    """Gymnasium's own checker, on an unwrapped env (it wraps it itself)."""
    env = gym.make("mcp/zendesk-v0").unwrapped
    check_env(env, skip_render_check=False)


def test_reset_is_deterministic_and_observation_is_in_the_space(env: McpEnv) -> None:
    """check_env cannot see inside custom spaces, so the same properties are tested here."""
    first, info1 = env.reset(seed=7)
    second, info2 = env.reset(seed=7)
    assert first == second and info1 == info2
    assert env.observation_space.contains(first)
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert first["tools"][-1]["function"]["name"] == "finish"
    for sample in (env.action_space.sample() for _ in range(20)):
        assert env.action_space.contains(sample)


def test_tool_calls_run_and_results_come_back(env: McpEnv) -> None:
    env.reset(options={"task": "zendesk-urgent-requester"})
    obs, reward, terminated, truncated, info = env.step(call("get_ticket", ticket_id=1380) + call("get_user", user_id=594))
    tool_messages = [m for m in obs["messages"] if m["role"] == "tool"]
    assert [json.loads(m["content"])["id"] for m in tool_messages] == [1380, 594]
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert [c["tool"] for c in info["calls"]] == ["get_ticket", "get_user"]


@pytest.mark.parametrize(
    "action",
    [
        "<tool_call>{broken json</tool_call>",
        '<tool_call>{"name": "get_ticket", "arguments": {"ticket_id": 1}}',
        None,
        12,
        {"role": "user", "content": "hi"},
        {"tool_calls": [{"id": "x", "function": {"name": "get_ticket", "arguments": "{"}}]},
    ],
)
def test_malformed_actions_are_answered_not_raised(env: McpEnv, action: object) -> None:
    env.reset(options={"task": "zendesk-urgent-requester"})
    before = env.toolbox.state_hash()
    obs, reward, terminated, truncated, info = env.step(action)
    assert not terminated and not truncated and reward == 0.0
    assert "format_error" in obs["messages"][-1]["content"]
    assert info["errors"] and env.toolbox.state_hash() == before


def test_tool_errors_come_back_in_the_observation(env: McpEnv) -> None:
    env.reset(options={"task": "zendesk-urgent-requester"})
    obs, *_ = env.step(call("get_ticket", ticket_id="abc") + call("nope"))
    contents = [m["content"] for m in obs["messages"] if m["role"] == "tool"]
    assert contents[0].startswith("invalid_arguments:") and contents[1].startswith("unknown_tool:")


def test_finish_tool_ends_the_turn_with_its_answer() -> None:
    env = McpEnv(servers=["zendesk"], reward="outcome-only")
    env.reset(options={"task": "zendesk-tech-support-csat"})
    task = env.task
    assert task is not None
    answer = ", ".join(str(f.value) for f in task.facts)
    obs, reward, terminated, truncated, info = env.step(call("finish", answer=answer))
    assert terminated and reward == 1.0 and info["answers"] == [answer]


def test_turn_budget_truncates(env: McpEnv) -> None:
    small = McpEnv(servers=["zendesk"], max_turns=2, reward="outcome-only")
    small.reset(options={"task": "zendesk-urgent-requester"})
    assert small.step(call("list_groups"))[3] is False
    obs, reward, terminated, truncated, info = small.step(call("list_groups"))
    assert truncated and not terminated and reward == 0.0 and "reward_breakdown" in info


def test_call_budget_truncates() -> None:
    small = McpEnv(servers=["zendesk"], max_calls=3)
    small.reset(options={"task": "zendesk-urgent-requester"})
    obs, reward, terminated, truncated, info = small.step(call("list_groups") * 5)
    assert truncated and [c["status"] for c in info["calls"]] == ["ok", "ok", "ok", "rejected", "rejected"]
    replies = [m for m in obs["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in replies] == [f"call_{n}" for n in range(1, 6)]
    assert [m["content"].startswith("budget_exceeded") for m in replies] == [False, False, False, True, True]


def test_long_results_are_truncated() -> None:
    small = McpEnv(servers=["zendesk"], max_result_chars=200)
    small.reset(options={"task": "zendesk-urgent-requester"})
    obs, *_ = small.step(call("search_tickets", per_page=50))
    content = obs["messages"][-1]["content"]
    assert len(content) < 300 and "truncated" in content


def test_multi_turn_task_reveals_the_next_request(env: McpEnv) -> None:
    obs, info = env.reset(options={"task": "zendesk-billing-queue-audit"})
    assert info["turns"] == 2
    obs, reward, terminated, truncated, info = env.step("I don't know.")
    assert not terminated and obs["messages"][-1]["role"] == "user"
    assert obs["messages"][-1]["content"].startswith("Add an internal note")
    obs, reward, terminated, truncated, info = env.step("Done.")
    assert terminated and reward == 0.0


def test_episodes_do_not_leak_state(env: McpEnv) -> None:
    env.reset(options={"task": "zendesk-escalate-ticket"})
    seeded = env.toolbox.state_hash()
    env.step(call("update_ticket", ticket_id=1486, priority="urgent"))
    assert env.toolbox.state_hash() != seeded
    env.reset(options={"task": "zendesk-escalate-ticket"})
    assert env.toolbox.state_hash() == seeded


def test_make_vec_runs_copies_in_isolation() -> None:
    envs = gym.make_vec("mcp/zendesk-v0", num_envs=3, vectorization_mode="sync")
    obs, info = envs.reset(seed=[0, 1, 2], options={"task": "zendesk-escalate-ticket"})
    assert len(obs["messages"]) == 3
    actions = (call("update_ticket", ticket_id=1486, priority="urgent"), "nothing to do", call("list_groups"))
    obs, rewards, terminated, truncated, info = envs.step(actions)
    assert list(terminated) == [False, True, False]
    inner = [e.unwrapped for e in envs.envs]  # type: ignore[attr-defined]
    changed = [bool(e.toolbox.diff()) for e in inner]
    assert changed == [True, False, False]
    envs.close()


def test_every_task_env_combination_is_valid() -> None:
    for task in shipped_tasks():
        env = make_env(task.servers)
        obs, info = env.reset(options={"task": task})
        assert info["task_id"] == task.id
        env.close()


def test_unknown_task_and_wrong_servers_are_clear_errors(env: McpEnv) -> None:
    with pytest.raises(KeyError, match="no task with id"):
        env.reset(options={"task": "nope"})
    with pytest.raises(ValueError, match="at least one server"):
        make_env([])


def test_workspace_env_mounts_every_server_with_prefixed_tools() -> None:
    from mcpgym.servers.catalog import SERVER_GROUPS, load_server

    env = gym.make("mcp/workspace-v0", tool_scope="all").unwrapped
    servers = SERVER_GROUPS["workspace"]
    obs, info = env.reset(options={"task": "workspace-email-negotiation-contact"})
    names = [t["function"]["name"] for t in obs["tools"]]
    expected = [f"{s}_{t.name}" for s in servers for t in load_server(s).tools]
    assert names == [*expected, "finish"]
    obs, *_ = env.step(call("zendesk_get_ticket", ticket_id=1380) + call("get_ticket", ticket_id=1380))
    replies = [m["content"] for m in obs["messages"] if m["role"] == "tool"]
    assert replies[0].startswith('{"id":1380') and replies[1].startswith("unknown_tool:")
    assert "zendesk_get_ticket" in replies[1]
    env.close()


def test_make_env_for_any_set_of_servers() -> None:
    env = make_env(["crm", "email"])
    obs, info = env.reset(options={"task": "workspace-email-negotiation-contact"})
    names = {t["function"]["name"] for t in obs["tools"]}
    assert "crm_get_contact" in names and "email_send_message" in names and not any(n.startswith("zendesk_") for n in names)
    meeting = next(t for t in shipped_tasks() if t.id == "workspace-urgent-ticket-owner-meeting")
    with pytest.raises(KeyError, match="no task with id"):
        env.reset(options={"task": meeting.id})
    with pytest.raises(ValueError, match="not mounted"):
        env.reset(options={"task": meeting})
    env.close()


def test_tool_subset_hides_the_other_tools_and_refuses_tasks_that_need_them() -> None:
    from mcpgym.envs import make_env
    from mcpgym.tasks.loader import shipped_tasks

    env = make_env(["zendesk"], tasks=[], tools=["get_ticket", "get_user"])
    names = [t["function"]["name"] for t in env.reset(options={"task": _task_using("get_ticket")})[0]["tools"]]
    assert names == ["get_ticket", "get_user", "finish"]
    _, _, _, _, info = env.step('<tool_call>{"name": "search_tickets", "arguments": {"query": "x"}}</tool_call>')
    assert info["errors"] and info["errors"][-1].startswith("unknown_tool")
    needs_search = next(t for t in shipped_tasks(["zendesk"]) if any(c.tool == "search_tickets" for c in t.calls))
    with pytest.raises(ValueError, match="not exposed"):
        env.reset(options={"task": needs_search})
    with pytest.raises(ValueError, match="no tools named"):
        make_env(["zendesk"], tools=["get_tickets"])


def _task_using(tool: str) -> Any:
    from mcpgym.tasks.model import Fact, GroundTruthCall, Task, Turn

    call = GroundTruthCall(id="c1", server="zendesk", tool=tool, arguments={"ticket_id": 1200})
    return Task(id="subset", servers=["zendesk"], turns=[Turn(user="status of ticket 1200?", calls=[call], facts=[Fact(name="s", expr="{c1.status}", value="x")])])
