"""One episode of `McpEnv` driven call by call, as an MCP host sees it.

Every MCP `tools/call` is one env step holding that one tool call; a call of `finish` (or
`reply`, for a harness that reads the agent's answer elsewhere) answers the current user
request, which reveals the next one or ends the episode. The result is the env's own score:
the reward and breakdown `step` paid at the end, or, while the episode runs, `score()` of
the trajectory so far.

Not thread-safe: the host runs the calls of one episode one at a time.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from gymnasium.error import ResetNeeded
from pydantic import BaseModel, ConfigDict

from mcpgym.envs.mcp_env import FINISH, FINISH_SCHEMA, McpEnv
from mcpgym.envs.scoring import as_breakdown
from mcpgym.servers.kernel.session import ToolResult
from mcpgym.tasks.model import Task, Turn

FREE_REQUEST = (
    "This is a free session: use the tools as you like. Call `finish` with a summary when you are done."
)
"""The user's request of a session that has no task."""


class EpisodeResult(BaseModel):
    """An episode's outcome as the env scores it, and what happened in it."""

    model_config = ConfigDict(frozen=True)

    episode_id: str
    task_id: str
    servers: list[str]
    ground_truth_calls: int
    done: bool
    """The episode has ended (every request answered, or a limit reached)."""
    terminated: bool
    truncated: bool
    turn: int
    """User requests answered so far."""
    turns: int
    steps: int
    """Env steps: one per MCP tool call, `finish` and reply included."""
    reward: float
    reward_breakdown: dict[str, Any]
    state_diff: list[dict[str, Any]]
    calls: list[dict[str, Any]]
    answers: list[str]
    errors: list[str]
    messages: list[dict[str, Any]]
    trajectory: dict[str, Any]


class Progress(BaseModel):
    """Where an episode stands: the request waiting for an answer, if any."""

    model_config = ConfigDict(frozen=True)

    episode_id: str
    task_id: str
    done: bool
    turn: int
    turns: int
    request: str | None
    """The user's current request; None once the episode has ended."""


def free_task(episode_id: str, servers: Sequence[str], request: str | None, seed: int) -> Task:
    """The task of a free session: one user request, no ground truth."""
    return Task(
        id=f"free-{episode_id}",
        servers=list(servers),
        seed=seed,
        turns=[Turn(user=request or FREE_REQUEST)],
        tags=["free"],
    )


class HostedEpisode:
    """An `McpEnv` reset on one task, stepped one MCP tool call at a time."""

    def __init__(self, episode_id: str, env: McpEnv, task: Task, seed: int | None = None) -> None:
        """Reset `env` on `task`; raises `ValueError` when the task does not fit the env."""
        self.episode_id = episode_id
        self.env = env
        self.task = task
        self.observation, _ = env.reset(seed=seed, options={"task": task})
        self.instructions = str(self.observation["messages"][0]["content"])
        self._ids = 0
        self._final: dict[str, Any] | None = None
        self._terminated = self._truncated = False
        self._turn = 0
        self._errors: list[str] = []

    @property
    def tool_names(self) -> list[str]:
        """The tools the episode shows now (a task may reveal more at a later turn), `finish` last."""
        return [*self.env.tool_routes, FINISH]

    @property
    def done(self) -> bool:
        return self._final is not None

    def progress(self) -> Progress:
        request = None if self.done else self.task.turns[self._turn].user
        return Progress(
            episode_id=self.episode_id, task_id=self.task.id, done=self.done, turn=self._turn,
            turns=len(self.task.turns), request=request,
        )

    def call(self, name: str, arguments: dict[str, Any] | None) -> ToolResult:
        """One MCP tool call as one env step: the tool's result as the env recorded it, or for
        `finish`, what the user says next."""
        if self.done:
            return ToolResult(tool=name, ok=False, error=self._over())
        if name == FINISH:
            answer = (arguments or {}).get("answer", "")
            return self._answer(answer if isinstance(answer, str) else json.dumps(answer))
        before = len(self.env.trajectory.calls)
        self._step({"role": "assistant", "content": "", "tool_calls": [self._tool_call(name, arguments or {})]})
        records = self.env.trajectory.calls[before:]
        if not records:  # the env answered the turn without recording the call
            return ToolResult(tool=name, ok=False, error=self._last_tool_text())
        record = records[-1]
        if record.status == "ok":  # the text the env showed (a benchmark's server renders its own)
            return ToolResult(tool=name, ok=True, data=record.result, rendered=self._last_tool_text())
        return ToolResult(tool=name, ok=False, error=record.error or self._last_tool_text())

    def reply(self, answer: str) -> Progress:
        """Answer the current user request with `answer` (the agent's final text)."""
        if not self.done:
            self._answer(answer)
        return self.progress()

    def result(self) -> EpisodeResult:
        """The episode scored by the env: the final step's reward once it has ended, else
        `score()` of the trajectory so far."""
        trajectory = self.env.trajectory
        if self._final is not None:
            breakdown, state_diff = self._final["reward_breakdown"], self._final["state_diff"]
            reward = float(self._final["reward"])
        else:
            scored = as_breakdown(self.env.score())
            breakdown, reward = scored.model_dump(), float(scored.reward)
            state_diff = [change.model_dump() for change in trajectory.changes]
        calls = [call.model_dump() for call in trajectory.calls]
        return EpisodeResult(
            episode_id=self.episode_id,
            task_id=self.task.id,
            servers=list(self.task.servers),
            ground_truth_calls=len(self.task.calls),
            done=self.done,
            terminated=self._terminated,
            truncated=self._truncated,
            turn=self._turn,
            turns=len(self.task.turns),
            steps=trajectory.steps,
            reward=reward,
            reward_breakdown=breakdown,
            state_diff=state_diff,
            calls=calls,
            answers=list(trajectory.answers),
            errors=list(self._errors),
            messages=[dict(message) for message in self.observation["messages"]],
            trajectory=trajectory.model_dump(),
        )

    def close(self) -> None:
        self.env.close()

    # ------------------------------------------------------------------ internals

    def _answer(self, answer: str) -> ToolResult:
        self._step({"role": "assistant", "content": "", "tool_calls": [self._tool_call(FINISH, {"answer": answer})]})
        if self.done:
            return ToolResult(tool=FINISH, ok=True, data={
                "done": True, "message": "The user has no further requests; the episode is over."})
        return ToolResult(tool=FINISH, ok=True, data={
            "done": False, "message": "The user has a new request.", "request": self.task.turns[self._turn].user})

    def _step(self, action: dict[str, Any]) -> None:
        try:
            self.observation, reward, terminated, truncated, info = self.env.step(action)
        except ResetNeeded:  # ended between the check and the step: nothing changed
            return
        self._turn = int(info["turn"])
        if terminated or truncated:
            self._terminated, self._truncated = terminated, truncated
            self._final = {"reward": reward, "reward_breakdown": info["reward_breakdown"],
                           "state_diff": info["state_diff"]}
        self._errors = [str(error) for error in info["errors"]]

    def _tool_call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        self._ids += 1
        try:
            encoded = json.dumps(arguments, ensure_ascii=False)
        except (TypeError, ValueError):
            encoded = "{"  # not JSON: the env answers it with a format_error
        return {"id": f"mcp_{self._ids}", "type": "function", "function": {"name": name, "arguments": encoded}}

    def _last_tool_text(self) -> str:
        message = self.observation["messages"][-1]
        return str(message.get("content", "")) if message.get("role") == "tool" else "format_error: the call was not run"

    def _over(self) -> str:
        why = "every request is answered" if self._terminated else "a limit of the episode was reached"
        return f"episode_over: episode {self.episode_id} has ended ({why}); its tools no longer run"


def finish_tool_schema() -> dict[str, Any]:
    """The JSON schema of `finish`'s arguments, as the env shows it."""
    return dict(FINISH_SCHEMA["function"]["parameters"])


__all__ = ["EpisodeResult", "FREE_REQUEST", "HostedEpisode", "Progress", "finish_tool_schema", "free_task"]
