"""Object servers: servers whose state is a Python object, not a SQLite database.

Another benchmark's backends (BFCL's file system, trading bot, ...) keep their state in the
attributes of a Python object and define their own semantics, which their checkers compare
attribute by attribute. An `ObjectServerSpec` serves such a backend through the same tool
path as the database servers: the same `ToolSpec` (argument model, bounds, schemas), the same
`ToolResult`, the same `Toolbox`, env and MCP server. What differs is the session:

- `reset` builds a fresh backend object from the task's configuration (`ObjectState`);
- `call` validates the arguments, then runs the backend's method. The backend's semantics
  rule, as its benchmark defines them: a call the backend answers with an error keeps
  whatever the method changed before failing (the benchmark's replay does the same);
- `diff` reports each public attribute whose value differs from the initial state's;
- a session's state is bounded (`storage_quota_bytes` of growth, in bytes of JSON): a call
  that grows it beyond the quota is answered with `forbidden` and undone. The state is
  measured, and copied before a call, only when the spec's `growth` bound says the call
  could reach the quota; were it reached without a copy, the session goes back to its
  initial state and the error says so.
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from mcpgym.servers.kernel.database import RowChange
from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, ToolError, UnknownToolError
from mcpgym.servers.kernel.initial_state import InitialStateError
from mcpgym.servers.kernel.limits import MAX_RESULT_CHARS, STORAGE_QUOTA_BYTES
from mcpgym.servers.kernel.memo import BoundedCache
from mcpgym.servers.kernel.object_state import ObjectState
from mcpgym.servers.kernel.session import ToolResult
from mcpgym.servers.kernel.tools import ToolRegistry, ToolSpec, omit_nulls

log = logging.getLogger(__name__)

GROWTH_SLACK = 1_024
"""Bytes one call may add beyond `growth` and its arguments (keys, counters, timestamps)."""

MAX_ERROR_CHARS = 2_000
"""Length of an error text a backend raised, as the model reads it."""

INITIAL_STATES_BYTES = 64 << 20
"""Initial attribute values kept in memory per process (for `diff`), by the size of their JSON."""


class BackendResult(BaseModel):
    """A backend's result: whatever JSON object it returns."""

    model_config = ConfigDict(extra="allow")


@dataclass(frozen=True)
class ObjectToolSpec(ToolSpec):
    """A tool of an object server: its argument schema is given (the backend's benchmark
    documents it), `check` validates arguments against it (raising `ValueError` with a
    readable message), and the call gets the arguments as sent, once they pass: the backend
    applies its own defaults and sees the values its benchmark's replay would."""

    schema: dict[str, Any] = field(default_factory=dict)
    check: Callable[[dict[str, Any]], Any] | None = None

    @property
    def input_schema(self) -> dict[str, Any]:  # type: ignore[override]
        return self.schema

    def validate(self, arguments: Any) -> dict[str, Any]:
        if not isinstance(arguments, dict):
            raise InvalidArgumentError(f"arguments for {self.name} must be a JSON object, got {type(arguments).__name__}")
        given = omit_nulls(arguments, self.schema)
        missing = [name for name in self.schema.get("required", []) if name not in given]
        if missing:
            raise InvalidArgumentError(f"{self.name}: missing required arguments: {', '.join(missing)}")
        if self.check is not None:
            try:
                self.check(given)
            except ValueError as err:
                raise InvalidArgumentError(f"{self.name}: {str(err)[:MAX_ERROR_CHARS]}") from None
        return given


def object_tool(name: str, description: str, schema: dict[str, Any], check: Callable[[dict[str, Any]], Any],
                title: str = "") -> ObjectToolSpec:
    """A tool of an object server. Whether a backend method writes is not declared, so each
    tool carries MCP's cautious defaults: it may write, destructively, and a repeat may
    change more."""
    return ObjectToolSpec(
        name=name, description=description, fn=_not_called, arguments=BackendResult, result=BackendResult,
        writes=True, title=title or name.replace("_", " ").capitalize(), destructive=True, idempotent=False,
        schema=schema, check=check,
    )


def _not_called(*args: Any, **kwargs: Any) -> BaseModel:
    raise TypeError("an object server's tool runs through its spec's `run`")


@dataclass(frozen=True)
class BackendCall:
    """What one backend call gave: its result as the benchmark renders it, and whether the
    backend answered with an error."""

    text: str
    data: dict[str, Any]
    failed: bool


@dataclass(frozen=True, eq=False)
class ObjectServerSpec:
    """A server over a stateful Python object: its tools call the object's methods.

    `create(state)` builds the backend in the initial state a task gives (None: its default);
    it raises `InitialStateError` for a state it cannot load. `run(backend, tool, kwargs)`
    runs one validated call. `attributes(backend)` is its public state, the values `diff` and
    `state_hash` compare (JSON-serializable, `repr` standing in for anything that is not)."""

    name: str
    title: str
    instructions: str
    tools: ToolRegistry = field(repr=False)
    create: Callable[[ObjectState | None], Any] = field(repr=False)
    run: Callable[[Any, ToolSpec, dict[str, Any]], BackendCall] = field(repr=False)
    attributes: Callable[[Any], dict[str, Any]] = field(repr=False)
    storage_quota_bytes: int = STORAGE_QUOTA_BYTES
    growth: float = 2.0
    """The most one call can grow the state: `growth` times its size, plus its arguments. A
    session measures its state (a JSON dump) only once that bound could pass the quota,
    and copies it first so that a call over the quota can be undone."""
    links: tuple[str, ...] = ()

    def open(self, seed: int = 0, state: ObjectState | None = None) -> ObjectSession:
        """A new session in the initial state `state` (the seed does not shape an object server)."""
        return ObjectSession(self, seed, state)

    def check_state(self, state: Any) -> None:
        """Raise `InitialStateError` unless `state` is a configuration this server loads."""
        if not isinstance(state, ObjectState):
            raise InitialStateError(f"{self.name} takes its backend's configuration (a JSON object), not a row patch")
        self.initial_attributes(state)

    def prepare_state(self, seed: int, state: Any) -> None:
        """The same check: a backend's state does not depend on the seed."""
        self.check_state(state)

    def initial_attributes(self, state: ObjectState | None, backend: Any = None) -> str:
        """The initial state's attributes as canonical JSON, built once per configuration
        (read off `backend` when given: one just created in that state)."""
        key = None if state is None else state.digest
        return _initial.get((self, key), lambda: canonical_json(
            self.attributes(self.create(state) if backend is None else backend)))


class ObjectSession:
    """One episode's backend object; answers calls like a `ToolSession`."""

    def __init__(self, spec: ObjectServerSpec, seed: int = 0, state: ObjectState | None = None) -> None:
        self.spec = spec
        self.seed = seed
        self.state: ObjectState | None = None
        self.writes = 0
        self.reset(seed, state)

    @property
    def tools(self) -> list[ToolSpec]:
        return list(self.spec.tools)

    def reset(self, seed: int | None = None, state: Any = None) -> None:
        """Back to an initial state: the configuration `state` (default: the current one).
        A state the backend cannot load raises `InitialStateError` and changes nothing."""
        if state is not None and not isinstance(state, ObjectState):
            raise InitialStateError(f"{self.spec.name} takes its backend's configuration (a JSON object), not a row patch")
        chosen = self.state if state is None else state
        backend = self.spec.create(chosen)
        self.seed = self.seed if seed is None else seed
        self.state, self.backend = chosen, backend
        self._size = len(self.spec.initial_attributes(chosen, backend))
        self._bound = self._size
        """An upper bound on the state's size in bytes of JSON (measured, or grown by
        `growth` per call since it was)."""
        self.writes = 0

    def call(self, name: str, arguments: Any = None) -> ToolResult:
        """Call tool `name`; never raises for bad input, always answers with a `ToolResult`."""
        tool = self.spec.tools.get(name)
        try:
            if tool is None:
                raise UnknownToolError(
                    f"{self.spec.name} has no tool named {name[:80]!r}. Available tools: {', '.join(self.spec.tools.names())}"
                )
            kwargs = tool.validate({} if arguments is None else arguments)
        except ToolError as err:
            return ToolResult(tool=name, ok=False, error=err.render())
        limit = self._size + self.spec.storage_quota_bytes
        bound = int(self._bound * self.spec.growth) + len(canonical_json(kwargs)) + GROWTH_SLACK
        before = copy.deepcopy(self.backend) if bound > limit else None
        try:
            # A copy: a backend may keep (and later change) the lists it is given, which
            # must not reach the caller's record of the call.
            outcome = self.spec.run(self.backend, tool, copy.deepcopy(kwargs))
        except Exception as err:  # the backend's own failure, shown as its benchmark shows it
            log.debug("%s.%s raised", self.spec.name, name, exc_info=True)
            outcome = BackendCall(text=f"Error during execution: {str(err)[:MAX_ERROR_CHARS]}", data={}, failed=True)
        self._bound = bound
        if bound > limit:
            size = self.size_bytes()
            if size > limit:
                message = f"{name}: this session's storage quota is used up, so the change was not made"
                if before is None:  # the backend grew by more than its spec's `growth` says
                    self.reset()
                    message = f"{name}: this call used up the session's storage quota; the session is back in its initial state"
                else:
                    self.backend = before
                return ToolResult(tool=name, ok=False, error=ForbiddenError(message).render())
            self._bound = size
        if len(outcome.text) > MAX_RESULT_CHARS:
            error = InvalidArgumentError(
                f"{name}: the result would be {len(outcome.text):,} characters, over the limit of {MAX_RESULT_CHARS:,}; ask for less"
            )
            return ToolResult(tool=name, ok=False, error=error.render(), wrote=True)
        self.writes += 1
        if outcome.failed:
            return ToolResult(tool=name, ok=False, error=outcome.text, wrote=True)
        return ToolResult(tool=name, ok=True, data=outcome.data, wrote=True, rendered=outcome.text)

    def diff(self) -> list[RowChange]:
        """Each public attribute whose value differs from the initial state's, as an update of
        table `state` keyed by the attribute's name (values as JSON)."""
        initial = json.loads(self.spec.initial_attributes(self.state))
        current = json.loads(canonical_json(self.spec.attributes(self.backend)))
        return [
            RowChange(table="state", key=name, op="update", before={"value": initial.get(name)}, after={"value": value})
            for name, value in sorted(current.items())
            if initial.get(name, _ABSENT) != value
        ]

    def state_hash(self) -> str:
        """Hash of the public state; equal to the initial state's hash after `reset`."""
        return hashlib.sha256(canonical_json(self.spec.attributes(self.backend)).encode()).hexdigest()

    def size_bytes(self) -> int:
        """Size of the public state as JSON."""
        return len(canonical_json(self.spec.attributes(self.backend)))

    def close(self) -> None:
        self.backend = None

    def __enter__(self) -> ObjectSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_ABSENT = object()


def canonical_json(value: Any) -> str:
    """`value` as compact JSON with sorted keys, `repr` for what JSON cannot hold."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)


_initial: BoundedCache[str] = BoundedCache(INITIAL_STATES_BYTES, len)
