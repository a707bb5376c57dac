"""`McpEnv`: one or more MCP servers and a task set as a multi-turn Gymnasium environment.

Observation: `{"messages": [...], "tools": [...]}`, the conversation so far as OpenAI-style
chat messages and the episode's tool schemas in OpenAI function format: by default those of
the servers the task needs (`mcpgym.envs.tool_scope`), the same for the whole episode.
Action: the assistant's turn, text with `<tool_call>` blocks or an OpenAI-style message dict
(see `mcpgym.envs.actions`). The calls run against the episode's own server sessions and
their results come back as `tool` messages. A turn with no tool call (or a call of `finish`)
answers the current user request; the next request is then revealed, or the episode ends.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
from gymnasium import spaces
from gymnasium.error import ResetNeeded

from mcpgym.envs.actions import FORMAT_HINT, ParsedTurn, ToolCall, parse_action
from mcpgym.envs.frozen import FrozenDict, FrozenList, freeze
from mcpgym.envs.limits import DEFAULT_MAX_ACTION_CHARS
from mcpgym.envs.options import EnvOptions, ResetOptions, checked
from mcpgym.envs.scoring import RewardFn, as_breakdown, make_reward
from mcpgym.envs.shared_memory import ConversationChannels  # noqa: F401  (async vector envs' transport for our spaces)
from mcpgym.envs.spaces import AssistantTurn, Conversation, ToolList
from mcpgym.envs.user_simulator import LlmUser, LlmUserConfig, UserReply
from mcpgym.envs.tool_scope import Scope, shown_servers, shown_tools
from mcpgym.servers.toolbox import Toolbox
from mcpgym.tasks.trajectory import CallRecord, Trajectory, status_of_error
from mcpgym.servers.catalog import load_server
from mcpgym.servers.kernel.initial_state import InitialStateError
from mcpgym.servers.kernel.memo import BoundedCache
from mcpgym.servers.kernel.tools import strict_function
from mcpgym.servers.kernel.truncation import truncate_result
from mcpgym.tasks.execute import observed_changes
from mcpgym.tasks.loader import TASK_SETS, load_tasks, named_tasks, shipped_tasks
from mcpgym.tasks.model import Task

FINISH = "finish"
FINISH_SCHEMA = {
    "type": "function",
    "function": {
        "name": FINISH,
        "description": "Give the final answer to the user's current request and end your turn.",
        "parameters": {
            "type": "object",
            "properties": {"answer": {"type": "string", "description": "The final answer to the user."}},
            "required": ["answer"],
            "additionalProperties": False,
        },
    },
}

VIEWS_KEPT = 256
"""Episode views (tool lists and system prompts) kept per env, most recently used first."""


@dataclass(frozen=True)
class EpisodeView:
    """What an episode shows of the env at one turn: its tool schemas (`finish` last), the
    (server, tool) behind each name shown, and the system prompt (the instructions of the
    servers shown)."""

    tools: FrozenList
    routes: FrozenDict
    system: str


class McpEnv(gym.Env[dict[str, Any], Any]):
    """A multi-turn tool-use episode over live MCP server sessions."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}
    """`render_fps` is nominal: `ansi` rendering returns text and never waits."""

    def __init__(
        self,
        servers: Sequence[str] = ("zendesk",),
        tasks: str | Path | Sequence[Task] | None = None,
        max_turns: int = 24,
        max_calls: int = 48,
        max_result_chars: int = 16_000,
        max_action_chars: int = DEFAULT_MAX_ACTION_CHARS,
        reward: str | RewardFn = "dense",
        shaping: bool | str = False,
        render_mode: str | None = None,
        tools: Sequence[str] | None = None,
        tool_scope: str = "task",
        distractors: int = 0,
        max_tools: int | None = None,
        strict_tools: bool = False,
        user: str | LlmUserConfig | dict[str, Any] = "scripted",
        max_turn_steps: int | None = None,
    ) -> None:
        """`tools`: expose only these tools (public names; default all), e.g. to keep a small
        model's prompt short; tasks whose ground truth needs another tool are refused.
        `tool_scope`: an episode shows the tools of the servers its task needs ("task", the
        default) or of every mounted server ("all"); `distractors` adds that many other
        mounted servers, drawn from the env's random generator (seeded by `reset(seed=...)`);
        `max_tools` caps the tools shown (`finish` included), always keeping the task's own.
        Calls of a tool not shown answer `unknown_tool`.
        `strict_tools`: `tools` in OpenAI's strict form (every property required, optional
        ones nullable, `"strict": true`); a null sent for an optional argument means "not given".
        `shaping`: pay the increase of the reward so far at the end of every user turn (True)
        or after every step ("step"), so the episode's rewards sum to its final reward;
        False pays it once, at the end.
        `max_action_chars`: longer actions are answered with a `format_error` and not run.
        `max_turn_steps`: the most assistant steps that call tools within one user request;
        the step that goes beyond it is run and the episode truncated (BFCL ends a
        conversation so after 20; None: only `max_turns` bounds the episode).
        `user`: "scripted" (the task's turns, word for word: deterministic and free) or an
        `LlmUserConfig` (or its dict) for an LLM that plays the user from the task's script
        (`mcpgym.envs.user_simulator`): it rewords the requests, answers the agent's questions
        within a turn (up to its `max_replies_per_turn`), and moves on when a request is done.
        Every option is checked (`mcpgym.envs.options.EnvOptions`): a wrong type or value is
        a `ValueError` that names it."""
        options = checked(
            EnvOptions,
            {
                "servers": list(servers) if isinstance(servers, list | tuple) else servers,
                "tasks": tasks if tasks is None or isinstance(tasks, str | Path) else list(tasks),
                "max_turns": max_turns,
                "max_calls": max_calls,
                "max_result_chars": max_result_chars,
                "max_action_chars": max_action_chars,
                "reward": reward,
                "shaping": shaping,
                "render_mode": render_mode,
                "tools": list(tools) if isinstance(tools, list | tuple) else tools,
                "tool_scope": tool_scope,
                "distractors": distractors,
                "max_tools": max_tools,
                "strict_tools": strict_tools,
                "user": user,
                "max_turn_steps": max_turn_steps,
            },
            "environment options",
        )
        self.toolbox = Toolbox(options.servers, tools=options.tools)
        self.tool_scope: Scope = options.tool_scope
        self.distractors = options.distractors
        self.max_tools = options.max_tools
        self.tasks = self._load_tasks(options.tasks)
        for task in self.tasks:
            self._check_task(task)
        self.max_turns = options.max_turns
        self.max_turn_steps = options.max_turn_steps
        self.max_calls = options.max_calls
        self.max_result_chars = options.max_result_chars
        self.max_action_chars = options.max_action_chars
        self.reward_fn = make_reward(options.reward)
        self.shaping = options.shaping
        self.render_mode = options.render_mode
        self.strict_tools = options.strict_tools
        self.user = None if options.user == "scripted" else LlmUser(options.user)
        every_tool = freeze(self._shown_schemas(None))
        self.observation_space = spaces.Dict({"messages": Conversation(), "tools": ToolList(every_tool)})
        self.action_space = AssistantTurn([t["function"]["name"] for t in every_tool])
        self._views: BoundedCache[EpisodeView] = BoundedCache(VIEWS_KEPT)
        self._view = EpisodeView(every_tool, FrozenDict(), "")
        self._messages: list[FrozenDict] = []
        self._ended = False
        self.task: Task | None = None

    # ------------------------------------------------------------------ episode

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode on `options["task"]` (a Task, task id or index) or a seeded pick.
        `task` is the only option; anything else is a `ValueError`."""
        choice = checked(ResetOptions, options if options is not None else {}, "reset options").task
        chosen = self._pick_task(choice) if choice is not None else None
        super().reset(seed=seed)
        task = chosen or self._seeded_task()
        self._shown_servers = shown_servers(self.toolbox.servers, task.servers, self.tool_scope, self.distractors, self.np_random)
        self._view = self._episode_view(task, 0)
        self.toolbox.reset(task.seed, states=task.initial_state)
        self.task = task
        self._ids = itertools.count(1)
        self._turn = 0
        self._steps = 0
        self._turn_steps = 0
        self._budget_used = 0
        self._ended = False
        self.trajectory = Trajectory(task_id=self.task.id)
        self._call_dumps: list[FrozenDict] = []
        self._errors: list[str] = []
        self._shaped = 0.0
        self._rendered = 0
        self._messages = []
        self._user_errors: list[str] = []
        self._replies = 0
        self._add_message({"role": "system", "content": self._view.system})
        opening = self.task.turns[0].user
        if self.user is not None:
            reply = self.user.start(self.task)
            opening = self._heard(reply)
        self._add_message({"role": "user", "content": opening})
        return self._observation(), {"task_id": self.task.id, "turn": 0, "turns": len(self.task.turns)}

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Run one assistant turn. Raises `gymnasium.error.ResetNeeded` before the first
        `reset` and once the episode has ended (terminated or truncated), changing nothing."""
        if self.task is None:
            raise ResetNeeded("call reset() before step()")
        if self._ended:
            raise ResetNeeded("the episode has ended (terminated or truncated); call reset() before step()")
        self._steps += 1
        self.trajectory.steps = self._steps
        parsed = parse_action(action, lambda: f"call_{next(self._ids)}", self.max_action_chars)
        self._add_message(parsed.message)
        for error in parsed.errors:
            self._errors.append(error.message)
            self._add_message(self._error_message(error.message, error.call_id))
            self._record(CallRecord(turn=self._turn, tool="", status="malformed", error=error.message))
        finished, truncated = self._run_calls(parsed)
        answered = finished is not None or (not parsed.calls and not parsed.errors)
        terminated = False
        if answered:
            reply = self._user_reply()
            if reply is not None and reply.kind == "answer":
                self._replies += 1
                self._add_message({"role": "user", "content": self._heard(reply)})
            else:
                self.trajectory.answers.append(finished if finished is not None else parsed.answer)
                self._turn += 1
                self._replies = 0
                self._turn_steps = 0
                if self._turn < len(self.task.turns):
                    if self.task.turns[self._turn].reveals:
                        self._view = self._episode_view(self.task, self._turn)
                    text = self._heard(reply) if reply is not None else self.task.turns[self._turn].user
                    self._add_message({"role": "user", "content": text})
                else:
                    terminated = True
        if not answered:
            self._turn_steps += 1
            if self.max_turn_steps is not None and self._turn_steps > self.max_turn_steps:
                truncated = True
        if not terminated and self._steps >= self.max_turns:
            truncated = True
        info: dict[str, Any] = {
            "task_id": self.task.id,
            "turn": self._turn,
            "calls": FrozenList(self._call_dumps),
            "errors": FrozenList(self._errors),
        }
        reward = 0.0
        self._ended = terminated or truncated
        if self._ended or self.shaping == "step" or (self.shaping and answered):
            self.trajectory.finished = terminated
            breakdown = as_breakdown(self.score())
            info["reward_breakdown"] = breakdown.model_dump()
            if self.shaping:
                reward, self._shaped = breakdown.reward - self._shaped, breakdown.reward
            else:
                reward = breakdown.reward
        if self._user_errors:
            info["user_errors"] = FrozenList(self._user_errors)
        if self._ended:
            info["state_diff"] = [change.model_dump() for change in self.trajectory.changes]
            info["answers"] = list(self.trajectory.answers)
        return self._observation(), float(reward), terminated, truncated, info

    @property
    def tool_routes(self) -> Mapping[str, tuple[str, str]]:
        """The tools the episode shows now: each name as the agent sees it -> (server, tool)."""
        return self._view.routes

    def score(self) -> Any:
        """The reward breakdown of the episode so far: the trajectory with the state's current
        row changes, through the reward function (what `step` pays at the end), as the
        function returned it (see `mcpgym.envs.scoring` for the forms it may take)."""
        if self.task is None:
            raise ResetNeeded("call reset() before score()")
        self.trajectory.changes = observed_changes(self.toolbox.diff())
        return self.reward_fn(self.task, self.trajectory)

    def render(self) -> str | None:
        """In `ansi` mode, the messages added since the last render, as text."""
        if self.render_mode != "ansi":
            return None
        new = self._messages[self._rendered :]
        self._rendered = len(self._messages)
        return "\n".join(_format_message(m) for m in new)

    def close(self) -> None:
        self.toolbox.close()

    # ------------------------------------------------------------------ internals

    def _run_calls(self, parsed: ParsedTurn) -> tuple[str | None, bool]:
        """Execute the turn's calls in order; returns (finish answer or None, truncated).
        Once the call budget is spent, every further call of the turn is answered (and
        recorded as rejected) with `budget_exceeded`; `finish` is never refused."""
        finished: str | None = None
        over_budget = False
        for call in parsed.calls:
            if call.name == FINISH:
                answer = call.arguments.get("answer", "")
                finished = "\n".join(p for p in (parsed.answer, str(answer)) if p)
                self._add_message(self._tool_message(call, "ok"))
                continue
            route = self._view.routes.get(call.name)
            record = CallRecord(
                turn=self._turn,
                tool=call.name,
                server=route[0] if route else None,
                server_tool=route[1] if route else None,
                arguments=call.arguments,
                status="ok",
            )
            if self._budget_used >= self.max_calls:
                over_budget = True
                message = f"budget_exceeded: the episode's limit of {self.max_calls} tool calls is reached; this call was not run"
                self._errors.append(message)
                self._add_message(self._tool_message(call, message))
                self._record(record.model_copy(update={"status": "rejected", "error": message}))
                continue
            self._budget_used += 1
            result = self.toolbox.call_at(route, call.name, call.arguments, shown=self._view.routes)
            if result.ok:
                record.result = result.data
            else:
                record.status, record.error = status_of_error(result.error or ""), result.error
                self._errors.append(result.error or "")
            self._record(record)
            self._add_message(self._tool_message(call, self._truncate(result.text)))
        return finished, over_budget

    def _user_reply(self) -> UserReply | None:
        """The LLM user's response to the agent's end of turn (None with the scripted user).
        A `stop` before the last turn is never returned (the simulator falls back to the
        script); a `next` at the last turn is a `stop`."""
        if self.user is None or self.task is None:
            return None
        return self.user.reply(self.task, self._turn, self._messages,
                               allow_answer=self._replies < self.user.max_replies_per_turn)

    def _heard(self, reply: UserReply) -> str:
        """What the user says in `reply`; an endpoint failure is kept for `info["user_errors"]`
        (the message is then the script's own text)."""
        if reply.error is not None:
            self._user_errors.append(reply.error)
        return reply.message

    def _record(self, record: CallRecord) -> None:
        """Add a call to the trajectory, and its dump (made once) to what `info` shows."""
        self.trajectory.calls.append(record)
        self._call_dumps.append(freeze(record.model_dump()))

    def _add_message(self, message: dict[str, Any]) -> None:
        """Append a message to the conversation, read-only: observations share it."""
        self._messages.append(freeze(message))

    def _truncate(self, text: str) -> str:
        return truncate_result(text, self.max_result_chars)

    @staticmethod
    def _tool_message(call: ToolCall, content: str) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": content}

    @staticmethod
    def _error_message(text: str, call_id: str | None) -> dict[str, Any]:
        if call_id is not None:
            return {"role": "tool", "tool_call_id": call_id, "name": "error", "content": text}
        return {"role": "user", "content": text}

    def _observation(self) -> dict[str, Any]:
        """The conversation so far and the tools: read-only values shared with the history,
        so a step copies only the list of references to the messages."""
        return {"messages": FrozenList(self._messages), "tools": self._view.tools}

    def _load_tasks(self, tasks: str | Path | list[Task] | None) -> list[Task]:
        if tasks is None:
            return shipped_tasks(self.toolbox.servers)
        if isinstance(tasks, list):
            return tasks
        if isinstance(tasks, str) and tasks in TASK_SETS:
            return named_tasks(tasks, self.toolbox.servers)
        if not Path(tasks).is_file():
            raise ValueError(
                f"tasks={str(tasks)!r} is neither a shipped task set ({', '.join(TASK_SETS)}) nor a JSONL file"
            )
        return load_tasks(tasks)

    def _seeded_task(self) -> Task:
        self._require_tasks()
        return self.tasks[int(self.np_random.integers(len(self.tasks)))]

    def _require_tasks(self) -> None:
        if not self.tasks:
            raise ValueError(f"no tasks for servers {list(self.toolbox.servers)}; pass tasks=... or options={{'task': ...}}")

    def _pick_task(self, choice: Task | str | int) -> Task:
        """The task `options["task"]` names: a Task (checked against the mounted servers and
        tools), a task id or an index into this env's tasks."""
        if isinstance(choice, Task):
            self._check_task(choice)
            return choice
        self._require_tasks()
        if isinstance(choice, str):
            for task in self.tasks:
                if task.id == choice:
                    return task
            raise KeyError(f"no task with id {choice[:200]!r} among {len(self.tasks)} tasks")
        if not 0 <= choice < len(self.tasks):
            raise ValueError(f"task index {choice} is out of range: this env has {len(self.tasks)} tasks (0 to {len(self.tasks) - 1})")
        return self.tasks[choice]

    def _check_task(self, task: Task) -> None:
        missing = set(task.servers) - set(self.toolbox.servers)
        if missing:
            raise ValueError(f"task {task.id} needs servers {sorted(missing)}, not mounted in this env")
        for server, state in (task.initial_state or {}).items():
            try:
                load_server(server).check_state(state)
            except InitialStateError as err:
                raise InitialStateError(f"task {task.id}, initial state of {server}: {err}") from None
        if task.tool_names == "own":
            seen: dict[str, str] = {}
            for _, (server, tool) in self.toolbox.routes():
                if server in task.servers and seen.setdefault(tool, server) != server:
                    raise ValueError(f"task {task.id} names tools by their own names, but {seen[tool]} and {server} "
                                     f"both have a tool named {tool!r}")
        names = self._needed_tools(task)
        hidden = sorted(name for name in names if self.toolbox.route(name) is None)
        if hidden:
            raise ValueError(f"task {task.id} needs tools {hidden}, not exposed in this env")
        if self.max_tools is not None and len(names) >= self.max_tools:
            raise ValueError(f"task {task.id} needs {len(names)} tools; max_tools={self.max_tools} shows at most "
                             f"{self.max_tools - 1} besides finish")

    def _needed_tools(self, task: Task) -> frozenset[str]:
        """The public names of the tools the task's ground truth calls."""
        return frozenset(self.toolbox.public_name(call.server or task.servers[0], call.tool) for call in task.calls)

    def _episode_view(self, task: Task, turn: int) -> EpisodeView:
        """The tools and system prompt of an episode on `task` at `turn`: the tools of the
        servers shown, less those the task reveals only later, under the task's naming
        (built once per set of tools)."""
        servers = self._shown_servers
        names = shown_tools(self.toolbox, servers, task.servers, self._needed_tools(task), self.max_tools)
        later = {route for route, shown_from in task.revealed_at().items() if shown_from > turn}
        routes = {name: route for name in names if (route := self.toolbox.route(name)) not in later}  # type: ignore[misc]
        own = task.tool_names == "own"
        return self._views.get((servers, tuple(routes), own), lambda: EpisodeView(
            freeze(self._shown_schemas(routes, own)),
            FrozenDict({(tool if own else name): (server, tool) for name, (server, tool) in routes.items()}),
            self._system_prompt(servers)))

    def _shown_schemas(self, routes: Mapping[str, tuple[str, str]] | None, own: bool = False) -> list[dict[str, Any]]:
        """The schemas of the tools in `routes` (default all), then `finish`: each under its
        own name if `own`, strict if asked."""
        schemas = self.toolbox.schemas(None if routes is None else list(routes))
        if own:
            schemas = [{**entry, "function": {**entry["function"], "name": routes[entry["function"]["name"]][1]}}  # type: ignore[index]
                       for entry in schemas]
        schemas = [*schemas, FINISH_SCHEMA]
        return [strict_function(s) for s in schemas] if self.strict_tools else schemas

    def _system_prompt(self, servers: Sequence[str]) -> str:
        parts = [load_server(name).instructions for name in servers]
        return (
            "\n\n".join(parts)
            + "\n\nUse the tools to look things up and to make changes; never guess ids or numbers. "
            + FORMAT_HINT
            + " You may make several calls in one turn. When the request is done, reply with the "
            "final answer and no tool call (or call `finish`), stating the numbers, names and dates asked for."
        )


def _format_message(message: dict[str, Any]) -> str:
    text = f"[{message['role']}] {message.get('content', '')}"
    calls = [] if "<tool_call>" in str(message.get("content")) else message.get("tool_calls") or []
    for call in calls:
        function = call.get("function", {}) if isinstance(call, dict) else {}
        text += f"\n  -> {function.get('name')}({function.get('arguments')})"
    return text


__all__ = ["FINISH", "McpEnv"]
