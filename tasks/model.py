"""The task schema: user turns, the ground-truth call graph, expected facts and state changes.

A task is one JSON line. Its ground truth is executable: each call names a tool (as the
environment shows it) and its arguments, some of them bound to earlier results through
references (see `mcpgym.tasks.refs`); each expected fact is an expression over the results.
Completing a task (`mcpgym.tasks.execute.complete_task`) records what execution gives: fact
values, expected changes, difficulty and the value each bound argument took (`bound`), so
rewards never need to run the ground truth; `verify_task` runs the calls on a fresh session
and checks every recorded value.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from mcpgym.servers.kernel.initial_state import RowPatch
from mcpgym.servers.kernel.object_state import ObjectState
from mcpgym.tasks.refs import Results, evaluate, referenced_calls

CALL_ID = r"^[A-Za-z_][A-Za-z0-9_]*$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GroundTruthCall(_Strict):
    """One call of the ground truth; `bind` fills arguments from earlier results."""

    id: str = Field(pattern=CALL_ID, description="Name other calls and facts use to refer to this result.")
    server: str | None = Field(default=None, description="Server of the tool; may be left out when the task has one.")
    tool: str = Field(description="Tool name within its server (unprefixed).")
    arguments: dict[str, Any] = Field(default_factory=dict)
    bind: dict[str, str] = Field(
        default_factory=dict, description="Argument -> expression over earlier results, e.g. '{c1.tickets.0.id}'."
    )
    bound: dict[str, Any] | None = Field(
        default=None,
        description="Argument -> the value its `bind` expression gave when the ground truth was executed "
        "(`{}` for a call without `bind`); recorded by completion, checked by verification; None: not recorded.",
    )

    @model_validator(mode="after")
    def _bound_names_the_bound_arguments(self) -> GroundTruthCall:
        if self.bound is not None and set(self.bound) != set(self.bind):
            raise ValueError(
                f"call {self.id}: `bound` has values for {sorted(self.bound)}, `bind` names {sorted(self.bind)}"
            )
        return self

    def resolved_arguments(self, results: Results) -> dict[str, Any]:
        """The arguments with every bound value filled in from `results`."""
        return {**self.arguments, **{k: evaluate(v, results) for k, v in self.bind.items()}}

    def recorded_arguments(self) -> dict[str, Any] | None:
        """The arguments as the ground truth executed them, from the recorded `bound` values;
        None when they are not recorded."""
        return None if self.bound is None else {**self.arguments, **self.bound}

    def depends_on(self) -> set[str]:
        """Ids of the calls whose results feed this one."""
        return {call for expression in self.bind.values() for call in referenced_calls(expression)}


class Fact(_Strict):
    """A fact the final answer must state: its meaning, how it is derived, and its value."""

    name: str = Field(description="What the fact is, in words.")
    expr: str = Field(description="Expression over call results that yields the value.")
    value: Any = Field(description="The value the ground truth yields; checked by execution.")

    def depends_on(self) -> set[str]:
        return set(referenced_calls(self.expr))


class ToolRef(_Strict):
    """A tool by its server and its own name."""

    server: str | None = Field(default=None, description="Server of the tool; may be left out when the task has one.")
    tool: str = Field(min_length=1, max_length=128)


def _empty(value: Any) -> bool:
    return not value


class Turn(_Strict):
    """One user request, the calls that serve it, and the facts its answer must hold.

    `reveals`: tools the episode shows only from this turn on (hidden before it), as when a
    user makes more tools available mid-dialogue. `missing`: what the request leaves out (an
    order number, which of two people): the agent is expected to ask, not to act, and the
    next turn supplies it; calls made in this turn are guesses."""

    user: str = Field(min_length=1)
    calls: list[GroundTruthCall] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)
    reveals: list[ToolRef] = Field(default_factory=list, max_length=256, exclude_if=_empty)
    missing: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(
        default_factory=list, max_length=16, exclude_if=_empty
    )

    @model_validator(mode="after")
    def _asks_before_acting(self) -> Turn:
        if self.missing and (self.calls or self.facts):
            raise ValueError("a turn that lacks information (`missing`) expects a question: it has no calls or facts")
        return self


class ExpectedChange(_Strict):
    """A row the task must change; `fields` are column values the row must hold afterwards."""

    server: str
    table: str
    key: str
    op: Literal["insert", "update", "delete"]
    fields: dict[str, Any] = Field(default_factory=dict)


class Difficulty(_Strict):
    calls: int
    depth: int
    servers: int
    writes: int


class Task(_Strict):
    """A multi-turn tool-use task with executable ground truth."""

    id: str = Field(min_length=1)
    servers: list[str] = Field(min_length=1)
    seed: int = 0
    initial_state: dict[str, RowPatch | ObjectState] | None = Field(
        default=None,
        exclude_if=_empty,
        description="Server -> its state before the task starts: for a database server, a patch of rows "
        "applied to its seeded world (`mcpgym.servers.kernel.initial_state`); for an object server, the "
        "backend's own configuration (`mcpgym.servers.kernel.object_state`); left out of the JSON when empty.",
    )
    tool_names: Literal["env", "own"] = Field(
        default="env",
        exclude_if=lambda names: names == "env",
        description="How the episode names tools: as the env does (prefixed by server when several are "
        "mounted) or by their own names (`own`), as a benchmark whose tasks use them unprefixed does.",
    )
    turns: list[Turn] = Field(min_length=1)
    expected_changes: list[ExpectedChange] = Field(default_factory=list)
    difficulty: Difficulty | None = None
    tags: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _patches_are_of_task_servers(self) -> Task:
        stray = sorted(set(self.initial_state or {}) - set(self.servers))
        if stray:
            raise ValueError(f"task {self.id}: initial_state patches servers {stray} not in {self.servers}")
        return self

    @model_validator(mode="after")
    def _references_point_backwards(self) -> Task:
        seen: set[str] = set()
        for turn in self.turns:
            for ref in turn.reveals:
                if ref.server is None:
                    if len(self.servers) > 1:
                        raise ValueError(f"task {self.id}: revealed tool {ref.tool} must name its server")
                    ref.server = self.servers[0]
                elif ref.server not in self.servers:
                    raise ValueError(f"task {self.id}: revealed tool {ref.tool} is of server {ref.server!r} not in {self.servers}")
            for call in turn.calls:
                if call.server is None:
                    if len(self.servers) > 1:
                        raise ValueError(f"task {self.id}: call {call.id} must name its server")
                    call.server = self.servers[0]
                elif call.server not in self.servers:
                    raise ValueError(f"task {self.id}: call {call.id} uses server {call.server!r} not in {self.servers}")
                if call.id in seen:
                    raise ValueError(f"task {self.id}: call id {call.id!r} used twice")
                missing = call.depends_on() - seen
                if missing:
                    raise ValueError(f"task {self.id}: call {call.id} refers to later or unknown calls {sorted(missing)}")
                seen.add(call.id)
            for fact in turn.facts:
                missing = fact.depends_on() - seen
                if missing:
                    raise ValueError(f"task {self.id}: fact {fact.name!r} refers to unknown calls {sorted(missing)}")
        return self

    @model_validator(mode="after")
    def _tools_shown_before_use(self) -> Task:
        revealed = self.revealed_at()
        for index, turn in enumerate(self.turns):
            for call in turn.calls:
                shown_from = revealed.get((call.server or self.servers[0], call.tool), 0)
                if shown_from > index:
                    raise ValueError(f"task {self.id}: call {call.id} in turn {index} uses {call.tool}, "
                                     f"revealed only from turn {shown_from}")
        return self

    @property
    def calls(self) -> list[GroundTruthCall]:
        return [call for turn in self.turns for call in turn.calls]

    @property
    def facts(self) -> list[Fact]:
        return [fact for turn in self.turns for fact in turn.facts]

    @property
    def truth_recorded(self) -> bool:
        """Whether every call records its executed `bound` values, so that the executed
        ground truth can be read from the task without running it."""
        return all(call.bound is not None for call in self.calls)

    def revealed_at(self) -> dict[tuple[str, str], int]:
        """(server, tool) -> the turn from which a held-back tool is shown."""
        return {(ref.server or self.servers[0], ref.tool): index
                for index, turn in enumerate(self.turns) for ref in turn.reveals}

    @property
    def env_id(self) -> str:
        """The registered env id for a single-server task; multi-server ones use `make_env`."""
        return f"mcp/{self.servers[0]}-v0"

    def depth(self) -> int:
        """Length of the longest chain of results feeding arguments."""
        level: dict[str, int] = {}
        for call in self.calls:
            level[call.id] = 1 + max((level[d] for d in call.depends_on()), default=0)
        return max(level.values(), default=0)
