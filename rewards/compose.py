"""Composing the components into one reward, with presets.

reward = clip( sum(w_i * c_i for applicable c_i) / sum(w_i for applicable c_i)
               - penalty * (1 - efficiency)
               - ask_penalty * (1 - asks), 0, 1 )

Components that do not apply to a task (an answer score without facts) drop out and the
weights of the rest are renormalised, so every task's best trajectory scores 1 and the empty
trajectory 0.

`asks` (`components.asks`) applies only to tasks with a turn that lacks information
(`Turn.missing`); for the others its term is 0 and the breakdown has no `asks` key, so their
rewards and breakdowns are those of the formula without it. It is a penalty, as efficiency
is: an agent that acts on a guess where it should have asked loses `ask_penalty` however
right the guess, and one that only asks questions gains nothing. A config may also give
`asks` a weight, which makes it a credit among the weighted components.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mcpgym.tasks.trajectory import Trajectory
from mcpgym.rewards import components
from mcpgym.rewards.ground_truth import GroundTruth, TruthSource, shared_ground_truths
from mcpgym.tasks.model import Task

Component = Callable[[Task, Trajectory, GroundTruth], float | None]

COMPONENTS: dict[str, Component] = {
    "answer": components.answer,
    "state": components.state,
    "coverage": components.coverage,
    "arguments": components.arguments,
    "tool_names": components.tool_names,
    "validity": components.validity,
}

Preset = Literal["dense", "outcome-only", "process-only"]

ASK_PENALTY = 0.3
"""What acting instead of asking costs (every preset): an agent that makes the right calls on
a guess scores 0.7 at most, clearly below the oracle, as the other hacks do."""


class RewardConfig(BaseModel):
    """Weights of the components, of the efficiency penalty and of the penalty for acting
    where the user should have been asked (`ask_penalty`, the same in every preset)."""

    model_config = ConfigDict(frozen=True)

    weights: dict[str, float] = Field(default_factory=dict)
    penalty: float = Field(default=0.0, ge=0.0, le=1.0, description="Weight of (1 - efficiency).")
    ask_penalty: float = Field(
        default=ASK_PENALTY, ge=0.0, le=1.0,
        description="Weight of (1 - asks) on tasks with a turn that lacks information; 0 turns it off.",
    )

    @classmethod
    def preset(cls, name: Preset) -> RewardConfig:
        return PRESETS[name]


PRESETS: dict[str, RewardConfig] = {
    # Outcome first (what the user asked for), dense process credit so that groups of
    # failed rollouts still differ, and a penalty, not a credit, for needless calls.
    "dense": RewardConfig(
        weights={"answer": 0.35, "state": 0.35, "coverage": 0.12, "arguments": 0.06, "tool_names": 0.06, "validity": 0.06},
        penalty=0.2,
    ),
    "outcome-only": RewardConfig(weights={"answer": 1.0, "state": 1.0}),
    "process-only": RewardConfig(
        weights={"coverage": 0.5, "arguments": 0.2, "tool_names": 0.15, "validity": 0.15}, penalty=0.2
    ),
}


class RewardBreakdown(BaseModel):
    """The reward and every component's value (None: not applicable)."""

    reward: float
    components: dict[str, float | None]
    efficiency: float
    penalty: float
    weights: dict[str, float]
    ask_penalty: float | None = Field(
        default=None, exclude_if=lambda value: value is None,
        description="The weight of (1 - asks), on tasks where `asks` applies; left out elsewhere.",
    )


def score(
    task: Task,
    trajectory: Trajectory,
    config: RewardConfig | None = None,
    judge: Any = None,
    truths: TruthSource | None = None,
) -> RewardBreakdown:
    """The reward of `trajectory` on `task`; `judge`, if given, is one more component.

    The ground truth comes from `truths` (default: this process's `shared_ground_truths()`,
    which reads it from the task's recorded values and executes only tasks that lack them).
    """
    config = config or PRESETS["dense"]
    truth = (truths if truths is not None else shared_ground_truths())(task)
    values: dict[str, float | None] = {name: fn(task, trajectory, truth) for name, fn in COMPONENTS.items()}
    asks = components.asks(task, trajectory, truth)
    if asks is not None:
        values["asks"] = asks
    if judge is not None:
        values["judge"] = judge(task, trajectory)
    applicable = {n: w for n, w in config.weights.items() if w > 0 and values.get(n) is not None}
    total = sum(applicable.values())
    base = sum(w * (values[n] or 0.0) for n, w in applicable.items()) / total if total else 0.0
    efficiency = components.efficiency(task, trajectory, truth)
    unasked = config.ask_penalty * (1.0 - asks) if asks is not None else 0.0
    reward = min(1.0, max(0.0, base - config.penalty * (1.0 - efficiency) - unasked))
    return RewardBreakdown(
        reward=reward, components=values, efficiency=efficiency, penalty=config.penalty, weights=dict(config.weights),
        ask_penalty=config.ask_penalty if asks is not None else None,
    )


class Rewarder:
    """A reward function for `McpEnv`: `Rewarder("dense")(task, trajectory)`.

    `judge` (e.g. `mcpgym.rewards.judge.RubricJudge`) adds a `judge` component with weight
    `judge_weight`; `truths` is where ground truths come from (see `score`).
    """

    def __init__(
        self,
        config: RewardConfig | Preset = "dense",
        judge: Any = None,
        judge_weight: float = 0.2,
        truths: TruthSource | None = None,
    ) -> None:
        self.config = RewardConfig.preset(config) if isinstance(config, str) else config
        self.truths = truths
        self.judge = judge
        if judge is not None:
            self.config = self.config.model_copy(update={"weights": {**self.config.weights, "judge": judge_weight}})

    def __call__(self, task: Task, trajectory: Trajectory) -> RewardBreakdown:
        return score(task, trajectory, self.config, self.judge, self.truths)
