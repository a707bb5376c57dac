"""The options of an environment and of its `reset`, checked at the edge with pydantic.

Unknown names and values of the wrong type are errors that say what is accepted, never
silently ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, InstanceOf, StrictBool, StrictInt, StrictStr, ValidationError

from mcpgym.envs.limits import DEFAULT_MAX_ACTION_CHARS
from mcpgym.envs.user_simulator import LlmUserConfig
from mcpgym.tasks.model import Task


class EnvOptions(BaseModel):
    """The keyword arguments of `McpEnv` (and of `gym.make` for an `mcp/...` id)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    servers: list[StrictStr] = Field(max_length=64)
    tasks: StrictStr | InstanceOf[Path] | list[InstanceOf[Task]] | None = None
    max_turns: StrictInt = Field(default=24, ge=1, le=100_000)
    max_calls: StrictInt = Field(default=48, ge=1, le=1_000_000)
    max_result_chars: StrictInt = Field(default=16_000, ge=64, le=2**26)
    max_action_chars: StrictInt = Field(default=DEFAULT_MAX_ACTION_CHARS, ge=256, le=2**26)
    reward: StrictStr | Callable[..., Any] = "dense"
    shaping: StrictBool | Literal["step"] = False
    """Pay the reward's increase at the end of every user turn (True) or after every step."""
    render_mode: Literal["ansi"] | None = None
    tools: list[StrictStr] | None = Field(default=None, max_length=10_000)
    tool_scope: Literal["task", "all"] = "task"
    distractors: StrictInt = Field(default=0, ge=0, le=64)
    max_tools: StrictInt | None = Field(default=None, ge=2, le=10_000)
    strict_tools: StrictBool = False
    """Show the tool schemas in OpenAI's strict form (`mcpgym.servers.kernel.tools.strict_schema`)."""
    max_turn_steps: StrictInt | None = Field(default=None, ge=1, le=100_000)
    """Tool-calling steps allowed within one user request (None: no such bound)."""
    user: Literal["scripted"] | LlmUserConfig = "scripted"
    """Who plays the user: the task's scripted turns, or an LLM (`mcpgym.envs.user_simulator`)."""


class ResetOptions(BaseModel):
    """The `options` of `McpEnv.reset`: `task` is a `Task`, a task id or an index."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task: InstanceOf[Task] | StrictStr | StrictInt | None = None


def checked(model: type[BaseModel], values: dict[str, Any], what: str) -> Any:
    """`values` validated by `model`, or a `ValueError` naming each problem and the accepted
    names."""
    try:
        return model.model_validate(values)
    except ValidationError as err:
        problems = "; ".join(_problem_lines(err.errors(include_url=False)))
        names = ", ".join(model.model_fields)
        raise ValueError(f"invalid {what}: {problems} (accepted: {names})") from None


def _problem_lines(errors: list[Any]) -> list[str]:
    """One line per field: an unknown name, or what the value should have been (the
    alternatives of a union joined with "or")."""
    by_field: dict[str, list[str]] = {}
    for error in errors:
        loc = error["loc"]
        where = str(loc[0]) if loc else "value"
        if len(loc) > 1 and isinstance(loc[1], int):
            where += f"[{loc[1]}]"
        by_field.setdefault(where, []).append("" if error["type"] == "extra_forbidden" else error["msg"])
    return [
        f"unknown option {where!r}" if messages == [""] else f"{where}: {' or '.join(dict.fromkeys(messages))}"
        for where, messages in by_field.items()
    ]
