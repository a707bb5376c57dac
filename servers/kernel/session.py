"""A tool session: one isolated database of one server, and the in-process call path."""

from __future__ import annotations

import json
import logging
import sqlite3
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from mcpgym.servers.kernel.database import RowChange, load_database, state_hash
from mcpgym.servers.kernel.errors import (
    InternalToolError,
    InvalidArgumentError,
    ToolError,
    UnknownToolError,
    database_refusal,
)
from mcpgym.servers.kernel.initial_state import RowPatch
from mcpgym.servers.kernel.limits import MAX_RESULT_CHARS
from mcpgym.servers.kernel.spec import ServerSpec
from mcpgym.servers.kernel.sql import Sql
from mcpgym.servers.kernel.tools import ToolContext, ToolSpec
from mcpgym.servers.kernel.world import build_world

log = logging.getLogger(__name__)

REGROWTH_PAGES = 256
"""Pages (1 MiB) a database may grow by and still be reset in place, whatever its size."""


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one call: a JSON object on success, an error message otherwise."""

    tool: str
    ok: bool
    data: dict[str, Any] | None = None
    error: str | None = None
    wrote: bool = False
    rendered: str | None = None
    """The success text when the server renders it itself (an object server shows its
    backend's results as the backend's benchmark does); None: compact JSON of `data`."""

    @cached_property
    def text(self) -> str:
        """What a model reads: compact JSON on success, `<code>: <message>` on error."""
        if self.ok:
            if self.rendered is not None:
                return self.rendered
            return json.dumps(self.data, ensure_ascii=False, separators=(",", ":"))
        return self.error or ""


class ToolSession:
    """One server's state for one episode or client, with its own in-memory database.

    `call` validates the arguments, runs the tool in a transaction, and commits only on
    success: a failed call leaves the state exactly as it was.
    """

    def __init__(self, spec: ServerSpec, seed: int = 0, state: RowPatch | None = None) -> None:
        self.spec = spec
        self._connect()
        self._loaded_seed: int | None = None
        """The seed whose world the database holds (plus its patch and the changes in its log)."""
        self._loaded_patch: str | None = None
        """The digest of the patch applied to that world, None for the seeded world itself."""
        self._seeded_pages = 0
        self.seed = seed
        self.state: RowPatch | None = None
        """The patch of the initial state over the seeded world (None: the seeded world)."""
        self.reset(seed, state)

    def _connect(self) -> None:
        """Open this session's own database, through the server's engine (whose compiled
        statements every session shares); the ORM session and `ctx.sql` use it."""
        self._bind = self.spec.engine.connect()
        self._connection: sqlite3.Connection = self._bind.connection.dbapi_connection  # type: ignore[assignment]
        self._db = Session(self._bind, expire_on_commit=False)
        self._sql = Sql(self._connection)
        """Plain SQL on the same connection; `_commit` and `_rollback` end both."""

    def reset(self, seed: int | None = None, state: RowPatch | None = None) -> None:
        """Restore an initial state: the seeded world of `seed` with the patch `state` applied
        (`mcpgym.servers.kernel.initial_state`); with neither given, the current one.

        Back to the state it holds, the session undoes its logged changes in place, in
        proportion to what it changed, and its prepared statements stay valid; another state,
        or a database grown well beyond its initial size, is restored from the state's bytes.
        A patch that does not fit raises `InitialStateError` and leaves the session as it was."""
        if seed is not None or state is not None:
            seed = self.seed if seed is None else seed
            patch = state if state is not None and state.root else None
            if patch is not None and (seed, patch.digest) != (self._loaded_seed, self._loaded_patch):
                self.spec.patched(seed, patch)
            self.seed, self.state = seed, patch
        self._db.close()
        if not self._undo_in_place():
            if self._loaded_seed is not None:
                # A database loaded over another invalidates the connection's prepared
                # statements, and SQLite 3.40 can crash re-preparing some of them (an `IN`
                # over `json_each`): a reload gets a new connection, never a re-prepare.
                self._bind.close()
                self._connect()
            seeded = self.spec.seeded(self.seed).snapshot
            if self.state is None:
                load_database(self._connection, seeded)
            else:
                self.spec.patched(self.seed, self.state).restore(self._connection, seeded)
            self._limit_storage()
            self._loaded_seed, self._loaded_patch = self.seed, _digest(self.state)
            self._seeded_pages = self._page_count()
        world = build_world(self.seed)
        self.context = ToolContext(db=self._db, now=world.now, world=world, sql=self._sql)
        self.writes = 0

    @property
    def tools(self) -> list[ToolSpec]:
        return list(self.spec.tools)

    def call(self, name: str, arguments: Any = None) -> ToolResult:
        """Call tool `name`; never raises for bad input, always answers with a `ToolResult`.

        A result whose JSON text is longer than `MAX_RESULT_CHARS` is an error asking for
        less, and a write beyond the storage quota is refused; neither changes the state.
        """
        tool = self.spec.tools.get(name)
        try:
            if tool is None:
                raise UnknownToolError(
                    f"{self.spec.name} has no tool named {name[:80]!r}. "
                    f"Available tools: {', '.join(self.spec.tools.names())}"
                )
            kwargs = tool.validate({} if arguments is None else arguments)
            result = ToolResult(tool=name, ok=True, data=tool.fn(self.context, **kwargs).model_dump(mode="json"),
                                wrote=tool.writes)
            if len(result.text) > MAX_RESULT_CHARS:
                raise InvalidArgumentError(
                    f"{name}: the result would be {len(result.text):,} characters, over the limit of "
                    f"{MAX_RESULT_CHARS:,}; ask for less (fewer results per page, narrower filters)"
                )
            if tool.writes:
                self._commit()
                self.writes += 1
            else:
                self._rollback()
        except ToolError as err:
            self._rollback()
            return ToolResult(tool=name, ok=False, error=err.render())
        except OverflowError:
            self._rollback()
            error = InvalidArgumentError(f"{name}: a number is out of range (ids and counts must fit in 64 bits)")
            return ToolResult(tool=name, ok=False, error=error.render())
        except (IntegrityError, sqlite3.IntegrityError) as err:
            self._rollback()
            cause = _driver_error(err)
            message = str(cause).splitlines()[0] if cause else "constraint violated"
            return ToolResult(tool=name, ok=False, error=InvalidArgumentError(message).render())
        except (OperationalError, sqlite3.OperationalError) as err:
            self._rollback()
            refusal = database_refusal(name, _driver_error(err))
            if refusal is None:
                log.exception("tool %s.%s failed", self.spec.name, name)
                refusal = InternalToolError(f"{name} failed inside the server; the state is unchanged")
            return ToolResult(tool=name, ok=False, error=refusal.render())
        except Exception:
            self._rollback()
            log.exception("tool %s.%s failed", self.spec.name, name)
            error = InternalToolError(f"{name} failed inside the server; the state is unchanged")
            return ToolResult(tool=name, ok=False, error=error.render())
        return result

    def _commit(self) -> None:
        """Commit the call's writes, made through the ORM, plain SQL or both."""
        self._db.commit()
        self._connection.commit()

    def _rollback(self) -> None:
        """Undo the call's writes, made through the ORM, plain SQL or both."""
        self._db.rollback()
        self._connection.rollback()

    def _undo_in_place(self) -> bool:
        """Undo the logged changes if the database holds this initial state and has not grown
        by more than a quarter (then a deserialize gives the memory back)."""
        if (self._loaded_seed, self._loaded_patch) != (self.seed, _digest(self.state)):
            return False
        if self._connection.in_transaction:
            self._connection.rollback()
        if self._page_count() > self._seeded_pages + max(self._seeded_pages // 4, REGROWTH_PAGES):
            return False
        try:
            self.spec.changelog.undo(self._connection)
        except sqlite3.Error as err:
            log.warning("undoing the changes of a %s session failed (%s); restoring it whole", self.spec.name, err)
            return False
        return True

    def _page_count(self) -> int:
        return int(self._connection.execute("PRAGMA main.page_count").fetchone()[0])

    def _limit_storage(self) -> None:
        """Let the freshly deserialized database grow by at most the spec's storage quota.

        SQLite forgets `max_page_count` on every deserialize, so this runs after each one; a
        write beyond it fails with SQLITE_FULL and is rolled back whole.
        """
        page_size = int(self._connection.execute("PRAGMA main.page_size").fetchone()[0])
        pages = int(self._connection.execute("PRAGMA main.page_count").fetchone()[0])
        quota_pages = max(1, self.spec.storage_quota_bytes // page_size)
        self._connection.execute(f"PRAGMA main.max_page_count = {pages + quota_pages}")

    def size_bytes(self) -> int:
        """Bytes its in-memory database holds (page count times page size); call it where
        the session's calls are serialised."""
        page_size = int(self._connection.execute("PRAGMA main.page_size").fetchone()[0])
        return self._page_count() * page_size

    def state_hash(self) -> str:
        """Hash of the current state's rows; equal to the initial state's hash after `reset`."""
        return state_hash(self._connection, self.spec.layouts)

    def diff(self) -> list[RowChange]:
        """Row changes since the initial state (empty when nothing was written; a patch is part
        of the initial state, not a change), in table and key order.

        Read from the session's change log (`changelog`), which triggers fill however a row
        was written (unit of work, cascades, bulk or raw SQL): this costs in proportion to
        what changed, not to the size of the world.
        """
        return self.spec.changelog.diff(self._connection)

    def close(self) -> None:
        self._db.close()
        self._bind.close()

    def __enter__(self) -> ToolSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _driver_error(err: Exception) -> BaseException | None:
    """The sqlite3 error behind `err`: SQLAlchemy wraps it in `orig`, plain SQL raises it."""
    return err if isinstance(err, sqlite3.Error) else getattr(err, "orig", None)


def _digest(patch: RowPatch | None) -> str | None:
    return None if patch is None else patch.digest
