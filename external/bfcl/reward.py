"""The `bfcl` reward: BFCL's own multi-turn verdict on an episode, beside mcpgym's components.

The episode's executed calls (those that reached a backend, in order, by user turn) go to
BFCL's checker (`checker.check_episode`), which replays them and the ground truth on fresh
backends and compares state and results after every turn, exactly as BFCL's evaluation
does. The reward is 1.0 when BFCL accepts the episode and 0.0 otherwise; the breakdown also
holds mcpgym's process components (coverage, arguments, tool names, validity) for analysis
and for shaping. An episode that did not reach its last turn fails, as BFCL fails a
conversation cut short.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from mcpgym.external.bfcl.checker import check_episode
from mcpgym.rewards.compose import RewardConfig, score
from mcpgym.tasks.model import Task
from mcpgym.tasks.trajectory import Trajectory

PROCESS = RewardConfig(weights={"coverage": 0.5, "arguments": 0.2, "tool_names": 0.15, "validity": 0.15})
"""The process components reported beside the verdict."""


class BfclBreakdown(BaseModel):
    """BFCL's verdict as a reward, with the checker's error and mcpgym's process components."""

    reward: float
    valid: bool
    error_type: str | None = None
    error_message: str | None = None
    failed_turn: int | None = None
    components: dict[str, float | None]
    process: float


def executed_calls(task: Task, trajectory: Trajectory) -> list[list[tuple[str, dict[str, Any]]]]:
    """The calls that reached a backend, as (tool, arguments) by user turn: one list per turn
    the episode reached (every turn when it finished)."""
    reached = len(task.turns) if trajectory.finished else min(len(task.turns), len(trajectory.answers) + 1)
    turns: list[list[tuple[str, dict[str, Any]]]] = [[] for _ in range(reached)]
    for call in trajectory.calls:
        if call.status in ("ok", "error") and call.server_tool and call.turn < reached:
            turns[call.turn].append((call.server_tool, dict(call.arguments or {})))
    return turns


class BfclReward:
    """`McpEnv(reward="bfcl")`: BFCL's verdict on BFCL tasks (tagged `bfcl`)."""

    def __call__(self, task: Task, trajectory: Trajectory) -> BfclBreakdown:
        if "bfcl" not in task.tags:
            raise ValueError(f"the bfcl reward scores BFCL tasks; task {task.id} is not one (use another reward)")
        verdict = check_episode(task.id, executed_calls(task, trajectory))
        process = score(task, trajectory, PROCESS)
        return BfclBreakdown(
            reward=1.0 if verdict.valid else 0.0,
            valid=verdict.valid,
            error_type=verdict.error_type,
            error_message=verdict.error_message,
            failed_turn=verdict.turn,
            components=process.components,
            process=process.reward,
        )
