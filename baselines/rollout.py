"""Running an agent through one episode of an environment."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcpgym.baselines.agents import Agent
from mcpgym.envs.mcp_env import McpEnv
from mcpgym.tasks.model import Task


@dataclass
class Episode:
    """What happened: the reward, steps taken, how it ended, and the last `info`."""

    task_id: str
    reward: float
    steps: int
    terminated: bool
    truncated: bool
    info: dict[str, Any] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)


def run_episode(env: McpEnv, agent: Agent, task: Task | str | int | None = None, seed: int | None = None) -> Episode:
    """Play one episode of `task` (or a seeded pick) to its end."""
    observation, info = env.reset(seed=seed, options={"task": task} if task is not None else None)
    assert env.task is not None
    agent.reset(env.task, observation)
    steps, reward, terminated, truncated = 0, 0.0, False, False
    while not (terminated or truncated):
        observation, reward, terminated, truncated, info = env.step(agent.act(observation))
        steps += 1
    return Episode(
        task_id=env.task.id,
        reward=reward,
        steps=steps,
        terminated=terminated,
        truncated=truncated,
        info=info,
        messages=observation["messages"],
    )
