"""A tool session: one isolated database of one server, and the in-process call path."""

from __future__ import annotations

import json
import re
import logging
from dataclasses import dataclass
from typing import Any

from sqlalchemy import event
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from mcpgym.servers.kernel.database import (
    SEED_SCHEMA,
    RowChange,
    diff_against,
    engine_for,
    new_connection,
    state_hash,
)
from mcpgym.servers.kernel.errors import (
    InternalToolError,
    InvalidArgumentError,
    ToolError,
    UnknownToolError,
)
from mcpgym.servers.kernel.spec import ServerSpec
from mcpgym.servers.kernel.tools import ToolContext, ToolSpec
from mcpgym.servers.kernel.world import build_world

log = logging.getLogger(__name__)

WRITE_STATEMENT = re.compile(r'\s*(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)\s+"?(\w+)"?', re.IGNORECASE)


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one call: a JSON object on success, an error message otherwise."""

    tool: str
    ok: bool
    data: dict[str, Any] | None = None
    error: str | None = None
    wrote: bool = False

    @property
    def text(self) -> str:
        """What a model reads: compact JSON on success, `<code>: <message>` on error."""
        if self.ok:
            return json.dumps(self.data, ensure_ascii=False, separators=(",", ":"))
        return self.error or ""


class ToolSession:
    """One server's state for one episode or client, with its own in-memory database.

    `call` validates the arguments, runs the tool in a transaction, and commits only on
    success: a failed call leaves the state exactly as it was.
    """

    def __init__(self, spec: ServerSpec, seed: int = 0) -> None:
        self.spec = spec
        self._connection = new_connection()
        self._engine = engine_for(self._connection)
        self._db = Session(self._engine, expire_on_commit=False)
        self._touched: set[str] = set()
        self._attached_seed: int | None = None
        """The seed whose database is attached as `seed` for `diff` (attached on first use)."""
        event.listen(self._engine, "before_cursor_execute", self._record_write)
        self.seed = seed
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Restore the seeded world of `seed` (default: the current seed)."""
        if seed is not None:
            self.seed = seed
        self._db.close()
        self._connection.deserialize(self.spec.seeded(self.seed).snapshot)
        world = build_world(self.seed)
        self.context = ToolContext(db=self._db, now=world.now, world=world)
        self.writes = 0
        self._touched.clear()

    @property
    def tools(self) -> list[ToolSpec]:
        return list(self.spec.tools)

    def call(self, name: str, arguments: Any = None) -> ToolResult:
        """Call tool `name`; never raises for bad input, always answers with a `ToolResult`."""
        tool = self.spec.tools.get(name)
        try:
            if tool is None:
                raise UnknownToolError(
                    f"{self.spec.name} has no tool named {name!r}. "
                    f"Available tools: {', '.join(self.spec.tools.names())}"
                )
            kwargs = tool.validate({} if arguments is None else arguments)
            result = tool.fn(self.context, **kwargs)
            data = result.model_dump(mode="json")
            if tool.writes:
                self._db.commit()
                self.writes += 1
            else:
                self._db.rollback()
        except ToolError as err:
            self._db.rollback()
            return ToolResult(tool=name, ok=False, error=err.render())
        except OverflowError:
            self._db.rollback()
            error = InvalidArgumentError(f"{name}: a number is out of range (ids and counts must fit in 64 bits)")
            return ToolResult(tool=name, ok=False, error=error.render())
        except IntegrityError as err:
            self._db.rollback()
            message = str(err.orig).splitlines()[0] if err.orig else "constraint violated"
            return ToolResult(tool=name, ok=False, error=InvalidArgumentError(message).render())
        except Exception:
            self._db.rollback()
            log.exception("tool %s.%s failed", self.spec.name, name)
            error = InternalToolError(f"{name} failed inside the server; the state is unchanged")
            return ToolResult(tool=name, ok=False, error=error.render())
        return ToolResult(tool=name, ok=True, data=data, wrote=tool.writes)

    def state_hash(self) -> str:
        """Hash of the current state's rows; equal to the seeded hash after `reset`."""
        return state_hash(self._connection)

    def diff(self) -> list[RowChange]:
        """Row changes since the seeded world (empty when nothing was written).

        Only the tables a write may have touched are compared, so this costs in proportion
        to what changed, not to the size of the world.
        """
        if self.writes == 0:
            return []
        if self._attached_seed != self.seed:
            if self._attached_seed is None:
                self._connection.execute(f"ATTACH DATABASE ':memory:' AS {SEED_SCHEMA}")
            self._connection.deserialize(self.spec.seeded(self.seed).snapshot, name=SEED_SCHEMA)
            self._attached_seed = self.seed
        return diff_against(self._connection, self._touched)

    def _record_write(self, conn: object, cursor: object, statement: str, *args: object) -> None:
        """Note the table of every INSERT, UPDATE or DELETE sent to the database, whichever
        way it was issued (unit of work, cascades, bulk or raw SQL), for `diff`."""
        match = WRITE_STATEMENT.match(statement)
        if match:
            self._touched.add(match.group(1))

    def close(self) -> None:
        self._db.close()
        self._engine.dispose()
        self._connection.close()

    def __enter__(self) -> ToolSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
