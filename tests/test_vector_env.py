"""Vector envs from `gym.make_vec`: sync and async with Gymnasium's default settings, separate
worlds per copy, the same results in both modes, and observations that are free to copy."""

from __future__ import annotations

import copy
import json
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import mcpgym  # noqa: F401  (registers the ids)
from mcpgym.baselines.agents import OracleAgent
from mcpgym.envs import make_env
from mcpgym.envs.frozen import FrozenList
from mcpgym.envs.shared_memory import SharedConversations

ENV_ID = "mcp/zendesk-v0"
SEEDS = [0, 1, 2]
STEPS = 9


def call(name: str, **arguments: object) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


def oracle_script(task_id: str) -> list[str]:
    """The oracle's actions on `task_id`, played on a single env."""
    env = make_env(["zendesk"])
    observation, _ = env.reset(options={"task": task_id})
    assert env.task is not None
    agent = OracleAgent()
    agent.reset(env.task, observation)
    actions, done = [], False
    while not done:
        actions.append(agent.act(observation))
        observation, _, terminated, truncated, _ = env.step(actions[-1])
        done = terminated or truncated
    env.close()
    return actions


def play(mode: str, **vector_kwargs: Any) -> list[tuple[Any, ...]]:
    """Each copy replays the oracle on the task its seed picks, then answers "Done." (the
    next episodes, after the autoreset); every step's results."""
    envs = gym.make_vec(ENV_ID, num_envs=len(SEEDS), vectorization_mode=mode, vector_kwargs=vector_kwargs or None)
    observations, infos = envs.reset(seed=SEEDS)
    scripts = [oracle_script(task_id) for task_id in infos["task_id"]]
    results = [(_plain(observations), tuple(infos["task_id"]))]
    for step in range(STEPS):
        actions = tuple(script[step] if step < len(script) else "Done." for script in scripts)
        observations, rewards, terminated, truncated, infos = envs.step(actions)
        results.append((_plain(observations), tuple(rewards), tuple(terminated), tuple(truncated)))
    envs.close()
    return results


def _plain(observations: dict[str, Any]) -> Any:
    return json.loads(json.dumps({key: list(value) for key, value in observations.items()}))


@pytest.fixture(scope="module")
def sync_run() -> list[tuple[Any, ...]]:
    return play("sync")


def test_sync_replays_the_oracle_to_full_reward(sync_run: list[tuple[Any, ...]]) -> None:
    ended = [step for step in sync_run[1:] if any(step[2])]
    assert ended, "no episode ended"
    first_rewards = {}
    for _, rewards, terminated, _ in sync_run[1:]:
        for index, (reward, done) in enumerate(zip(rewards, terminated)):
            if done and index not in first_rewards:
                first_rewards[index] = reward
    assert sorted(first_rewards) == [0, 1, 2] and all(r == pytest.approx(1.0) for r in first_rewards.values())


def test_async_with_default_settings_gives_the_same_results_as_sync(sync_run: list[tuple[Any, ...]]) -> None:
    assert play("async") == sync_run


def test_async_without_copies_or_shared_memory_gives_the_same_results(sync_run: list[tuple[Any, ...]]) -> None:
    assert play("async", copy=False) == sync_run
    assert play("async", shared_memory=False) == sync_run


def test_async_observations_read_lazily_follow_the_latest_step() -> None:
    envs = gym.make_vec(ENV_ID, num_envs=2, vectorization_mode="async", vector_kwargs={"copy": False})
    observations, _ = envs.reset(seed=[0, 1], options={"task": "zendesk-urgent-requester"})
    assert isinstance(observations["messages"], SharedConversations)
    assert [len(m) for m in observations["messages"]] == [2, 2]
    observations, *_ = envs.step((call("get_ticket", ticket_id=1380), "thinking"))
    lengths = [len(m) for m in observations["messages"]]
    assert lengths == [4, 3] and observations["messages"][0][-1]["role"] == "tool"
    assert all(isinstance(m, FrozenList) for m in copy.deepcopy(observations)["messages"])
    envs.close()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_copies_have_separate_worlds(mode: str) -> None:
    envs = gym.make_vec(ENV_ID, num_envs=3, vectorization_mode=mode)
    envs.reset(seed=SEEDS, options={"task": "zendesk-escalate-ticket"})
    read = call("get_ticket", ticket_id=1486)
    envs.step((call("update_ticket", ticket_id=1486, priority="low"), read, call("update_ticket", ticket_id=1486, priority="normal")))
    observations, *_ = envs.step((read, read, read))
    priorities = [json.loads(messages[-1]["content"])["priority"] for messages in observations["messages"]]
    assert priorities[0] == "low" and priorities[2] == "normal" and priorities[1] not in ("low", "normal")
    envs.close()


def test_sync_copies_of_observations_share_the_read_only_messages() -> None:
    envs = gym.make_vec(ENV_ID, num_envs=2, vectorization_mode="sync")
    envs.reset(seed=[0, 1])
    observations, *_ = envs.step(("hello", call("list_groups")))
    inner = [env.unwrapped._messages for env in envs.envs]  # type: ignore[attr-defined]
    assert all(a is b for conversation, own in zip(observations["messages"], inner) for a, b in zip(conversation, own))
    assert observations["tools"][0] is envs.envs[0].unwrapped._view.tools  # type: ignore[attr-defined]
    assert isinstance(observations["messages"], tuple) and np.all(np.isfinite(envs.step(("a", "b"))[1]))
    envs.close()
