"""The reward function of an environment, and what it may return.

A reward function is a preset name of `mcpgym.rewards` or any callable
`(task, trajectory) -> result`, where the result is one of:
- a number: the reward; its breakdown is `{"reward": number}`;
- a mapping of components (name -> value): the reward is its `reward` key when it has
  one, else the sum of its numeric values; the breakdown is the mapping, with `reward` added;
- an object with a numeric `.reward` and a `.model_dump()` mapping (a `RewardBreakdown`, or
  any pydantic model with a `reward` field): the breakdown is `.model_dump()`.
The reward must be a finite number (booleans are not numbers here).
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping
from numbers import Real
from typing import Any

from pydantic import BaseModel, ConfigDict

from mcpgym.tasks.trajectory import Trajectory
from mcpgym.tasks.model import Task

RewardFn = Callable[[Task, Trajectory], Any]
"""(task, trajectory) -> a number, a mapping of components or a breakdown object (see above)."""


class Breakdown(BaseModel):
    """A reward and its components, whatever form the reward function returned."""

    model_config = ConfigDict(extra="allow", frozen=True)

    reward: float


BENCHMARK_REWARDS = {"bfcl": "mcpgym.external.bfcl.reward:BfclReward"}
"""Rewards that score another benchmark's tasks with its own checker, by name."""


def presets() -> tuple[str, ...]:
    """The names of the reward presets: those of `mcpgym.rewards`, then the benchmarks'."""
    from mcpgym.rewards.compose import PRESETS

    return (*PRESETS, *BENCHMARK_REWARDS)


def make_reward(reward: str | RewardFn) -> RewardFn:
    """A preset name (dense, outcome-only, process-only of `mcpgym.rewards`; `bfcl` for BFCL's
    own checker) or a callable."""
    if callable(reward):
        return reward
    if not isinstance(reward, str) or reward not in presets():
        names = ", ".join(repr(name) for name in presets())
        raise ValueError(f"reward must be a preset ({names}) or a callable (task, trajectory) -> reward, got {reward!r}")
    if reward in BENCHMARK_REWARDS:
        module, _, name = BENCHMARK_REWARDS[reward].partition(":")
        return getattr(importlib.import_module(module), name)()  # type: ignore[no-any-return]
    from mcpgym.rewards.compose import Rewarder

    return Rewarder(reward)  # type: ignore[arg-type]


def as_breakdown(result: Any) -> Any:
    """`result` of a reward function as an object with `.reward` (a finite float) and
    `.model_dump()`: breakdown objects as they are, numbers and mappings as a `Breakdown`.
    Raises `TypeError` for anything else and `ValueError` for a reward that is not finite."""
    if _is_number(result):
        return Breakdown(reward=_finite(result))
    if isinstance(result, Mapping):
        if "reward" in result:
            reward = result["reward"]
            if not _is_number(reward):
                raise TypeError(f"the reward function's 'reward' must be a number, got {type(reward).__name__}")
        else:
            reward = sum(value for value in result.values() if _is_number(value))
        components = {str(key): value for key, value in result.items() if key != "reward"}
        return Breakdown.model_validate({**components, "reward": _finite(reward)})
    reward = getattr(result, "reward", None)
    if _is_number(reward) and callable(getattr(result, "model_dump", None)):
        _finite(reward)
        return result
    raise TypeError(
        "a reward function must return a number, a mapping of components, or an object with a numeric "
        f".reward and .model_dump(); got {type(result).__name__}"
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def _finite(value: Any) -> float:
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"the reward function returned a reward that is not finite: {number}")
    return number
