"""Any mcpgym env id as an OpenEnv environment (`openenv-core` 0.3 or later; `pip install 'mcpgym[openenv]'`).

`McpEnvironment("mcp/zendesk-v0", ...)` is an `openenv.core.env_server.Environment`: `reset`
takes OpenEnv's `seed` and `episode_id` and mcpgym's `task` (a task id or index), `step` takes
an `McpAction` (the assistant's turn: text, or content plus OpenAI-style `tool_calls`) and
returns an `McpObservation` with the conversation, the tools, `done` and `reward` (the mcpgym
reward, paid at the end of the episode), `state` an `McpState`. `make_app` builds OpenEnv's own
FastAPI server over it (one environment, so one set of worlds, per client session); `serve`
runs it with uvicorn; `McpEnvClient` is the typed OpenEnv client.

    from mcpgym.baselines.integrations.openenv import McpAction, McpEnvClient, serve
    serve("mcp/zendesk-v0", port=8000)                         # in one process
    with McpEnvClient(base_url="http://127.0.0.1:8000").sync() as client:
        result = client.reset(seed=0, task=3)
        result = client.step(McpAction(content="<tool_call>...</tool_call>"))
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import gymnasium as gym
from gymnasium.error import ResetNeeded
from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, EnvironmentMetadata, Observation, State
from pydantic import Field

from mcpgym.envs.mcp_env import McpEnv

MAX_CONTENT_CHARS = 1_000_000
"""A hard bound on an action's text; the environment's own `max_action_chars` (default 64,000)
answers longer turns with a `format_error`."""
MAX_TOOL_CALLS = 256


class McpAction(Action):
    """One assistant turn: `content` (text, where `<tool_call>` blocks are read) and, optionally,
    OpenAI-style `tool_calls` (`{"id", "type": "function", "function": {"name", "arguments"}}`)."""

    content: str = Field("", max_length=MAX_CONTENT_CHARS)
    tool_calls: list[dict[str, Any]] | None = Field(None, max_length=MAX_TOOL_CALLS)

    def env_action(self) -> str | dict[str, Any]:
        """The action `McpEnv.step` takes."""
        if self.tool_calls is None:
            return self.content
        return {"role": "assistant", "content": self.content, "tool_calls": self.tool_calls}


class McpObservation(Observation):
    """The conversation so far, the tools shown, and the step's info (calls, errors and, at the
    end, the reward breakdown and state changes), besides OpenEnv's `done` and `reward`."""

    messages: list[dict[str, Any]] = Field(default_factory=list)
    tools: list[dict[str, Any]] = Field(default_factory=list)
    info: dict[str, Any] = Field(default_factory=dict)
    terminated: bool = False
    truncated: bool = False


class McpState(State):
    """Where the episode stands: the env id, the task, turns taken, and whether it has ended."""

    env_id: str = ""
    task_id: str | None = None
    terminated: bool = False
    truncated: bool = False


def _plain(value: Any) -> Any:
    """A JSON value (the env's read-only containers and any odd value turned into plain ones)."""
    return json.loads(json.dumps(value, default=str))


class McpEnvironment(Environment[McpAction, McpObservation, McpState]):
    """An mcpgym environment behind OpenEnv's interface; every instance has its own worlds."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, env_id: str = "mcp/zendesk-v0", **env_kwargs: Any) -> None:
        """`env_kwargs` go to `gym.make(env_id, ...)` (tasks, reward, max_turns, tools, ...)."""
        super().__init__()
        if not isinstance(env_id, str) or not env_id.startswith("mcp"):
            raise ValueError(f"env_id must be an mcpgym env id such as 'mcp/zendesk-v0', not {str(env_id)[:100]!r}")
        self.env_id = env_id
        self.env: McpEnv = gym.make(env_id, disable_env_checker=True, **env_kwargs).unwrapped  # type: ignore[assignment]
        self._state = McpState(env_id=env_id)

    def reset(self, seed: int | None = None, episode_id: str | None = None, task: str | int | None = None, **kwargs: Any) -> McpObservation:
        """A new episode on `task` (a task id or index; default: picked by `seed`)."""
        if kwargs:
            raise ValueError(f"unknown reset options {sorted(kwargs)[:10]}; mcpgym takes seed, episode_id and task")
        observation, info = self.env.reset(seed=seed, options=None if task is None else {"task": task})
        self._state = McpState(env_id=self.env_id, episode_id=episode_id or str(uuid.uuid4()), step_count=0,
                               task_id=info["task_id"])
        return self._observation(observation, _plain(info), 0.0, False, False)

    def step(self, action: McpAction, timeout_s: float | None = None, **kwargs: Any) -> McpObservation:
        """One assistant turn; a `ValueError` (and no change) before `reset` or after the end."""
        if not isinstance(action, McpAction):
            action = McpAction.model_validate(action)
        try:
            observation, reward, terminated, truncated, info = self.env.step(action.env_action())
        except ResetNeeded as err:
            raise ValueError(str(err)) from None
        self._state.step_count += 1
        self._state.terminated, self._state.truncated = terminated, truncated
        return self._observation(observation, _plain(info), reward, terminated, truncated)

    @property
    def state(self) -> McpState:
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        servers = ", ".join(self.env.toolbox.servers)
        return EnvironmentMetadata(name=self.env_id, description=f"mcpgym tool-use episodes over MCP servers: {servers}",
                                   version="0.1.0")

    def close(self) -> None:
        self.env.close()

    @staticmethod
    def _observation(observation: dict[str, Any], info: dict[str, Any], reward: float, terminated: bool,
                     truncated: bool) -> McpObservation:
        return McpObservation(
            messages=_plain(observation["messages"]),
            tools=_plain(observation["tools"]),
            info=info,
            terminated=terminated,
            truncated=truncated,
            done=terminated or truncated,
            reward=float(reward),
        )


def make_app(env_id: str = "mcp/zendesk-v0", max_concurrent_envs: int = 8, **env_kwargs: Any) -> Any:
    """OpenEnv's FastAPI app over `env_id` (WebSocket `/ws` sessions, `/reset`, `/step`, `/schema`)."""
    from openenv.core.env_server.http_server import create_app

    if not 1 <= max_concurrent_envs <= 4096:
        raise ValueError("max_concurrent_envs must be between 1 and 4096")
    McpEnvironment(env_id, **env_kwargs).close()  # fail here, not in the first session, on a bad id or option

    def factory() -> McpEnvironment:
        return McpEnvironment(env_id, **env_kwargs)

    return create_app(factory, McpAction, McpObservation, env_name=env_id, max_concurrent_envs=max_concurrent_envs)


def serve(env_id: str = "mcp/zendesk-v0", host: str = "127.0.0.1", port: int = 8000, max_concurrent_envs: int = 8,
          **env_kwargs: Any) -> None:
    """Run `make_app(env_id, ...)` with uvicorn until interrupted."""
    import uvicorn

    uvicorn.run(make_app(env_id, max_concurrent_envs, **env_kwargs), host=host, port=port, log_level="warning")


class McpEnvClient(EnvClient[McpAction, McpObservation, McpState]):
    """OpenEnv client of an mcpgym server: typed actions, observations and state."""

    def _step_payload(self, action: McpAction) -> dict[str, Any]:
        return action.model_dump(exclude={"metadata"})

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[McpObservation]:
        fields = dict(payload.get("observation", {}))
        observation = McpObservation(**fields, done=payload.get("done", False), reward=payload.get("reward"))
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> McpState:
        return McpState.model_validate(payload)


__all__ = ["McpAction", "McpEnvClient", "McpEnvironment", "McpObservation", "McpState", "make_app", "serve"]
