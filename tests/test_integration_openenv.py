"""The OpenEnv adapter over a real local HTTP server: OpenEnv's client sees the same episode as the in-process env."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("openenv", reason="the OpenEnv adapter needs openenv-core: pip install 'mcpgym[openenv]'")
uvicorn = pytest.importorskip("uvicorn")

import gymnasium as gym  # noqa: E402

from mcpgym.baselines.integrations.openenv import McpAction, McpEnvClient, McpEnvironment, make_app  # noqa: E402

ENV_ID = "mcp/zendesk-v0"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(make_app(ENV_ID, max_concurrent_envs=2), host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the OpenEnv server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


def plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def first_call(env: Any) -> dict[str, Any]:
    """The task's first ground-truth call as an OpenAI-style tool call."""
    call = env.unwrapped.task.calls[0]
    return {"id": "c1", "type": "function", "function": {"name": call.tool, "arguments": json.dumps(call.arguments)}}


@pytest.mark.parametrize("task", [0, 3])
def test_reset_and_steps_over_http_match_the_in_process_env(base_url: str, task: int) -> None:
    local = gym.make(ENV_ID)
    observation, _ = local.reset(seed=5, options={"task": task})
    with McpEnvClient(base_url=base_url).sync() as client:
        result = client.reset(seed=5, task=task)
        assert result.observation.messages == plain(observation["messages"])
        assert result.observation.tools == plain(observation["tools"])
        assert result.done is False
        assert client.state().task_id == local.unwrapped.task.id

        call = McpAction(content="", tool_calls=[first_call(local)])
        actions = [call, McpAction(content="<tool_call>{\"name\": \"get_ticket\", \"arguments\": {}}</tool_call>"),
                   *[McpAction(content="Done: the ticket is as shown.")] * len(local.unwrapped.task.turns)]
        for action in actions:
            observation, reward, terminated, truncated, info = local.step(action.env_action())
            result = client.step(action)
            assert result.observation.messages == plain(observation["messages"])
            assert (result.reward, result.done) == (reward, terminated or truncated)
            assert result.observation.info["calls"] == plain(info["calls"])
        assert result.done and result.observation.terminated
        assert 0.0 <= result.reward <= 1.0
        assert result.observation.info["reward_breakdown"]["reward"] == result.reward
        state = client.state()
        assert (state.step_count, state.terminated) == (len(actions), True)
    local.close()


def test_two_sessions_have_separate_worlds(base_url: str) -> None:
    with McpEnvClient(base_url=base_url).sync() as first, McpEnvClient(base_url=base_url).sync() as second:
        first.reset(seed=0, task=0)
        second.reset(seed=0, task=1)
        assert first.state().task_id != second.state().task_id
        assert first.state().episode_id != second.state().episode_id


def test_bad_input_is_a_clear_error_and_changes_nothing(base_url: str) -> None:
    env = McpEnvironment(ENV_ID)
    with pytest.raises(ValueError, match="reset"):
        env.step(McpAction(content="hi"))
    with pytest.raises(ValueError, match="unknown reset options"):
        env.reset(seed=0, bogus=1)
    with pytest.raises(ValueError, match="mcpgym env id"):
        McpEnvironment("CartPole-v1")
    with pytest.raises(ValueError):
        McpAction(content="x" * 1_000_001)
    first = env.reset(seed=0, task=0)
    assert env.reset(seed=0, task=0).messages == first.messages
    env.close()
    with McpEnvClient(base_url=base_url).sync() as client:
        with pytest.raises(Exception, match="task"):
            client.reset(seed=0, task="no-such-task")
        result = client.reset(seed=0, task=0)  # the session still works
        assert result.observation.messages[-1]["role"] == "user"
