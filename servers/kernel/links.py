"""Reading another server's seeded database while seeding, to link to its rows.

A server whose world refers to another server's records (an issue tracker's issue opened from
a help-desk ticket, a pull request fixing a tracked issue) names that server in
`ServerSpec.links`; its `populate` then reads the other seeded database with `seeded_rows`.
The linked servers' code is part of the seeded database's cache key, so a change to them
rebuilds it, and a read of an undeclared server is refused (it would leave the cache stale).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from contextvars import ContextVar
from typing import Any

from mcpgym.servers.kernel.database import load_database, new_connection

_DECLARED: ContextVar[tuple[str, ...] | None] = ContextVar("mcpgym_linked_servers", default=None)


class LinkError(RuntimeError):
    """A populate read a server it does not declare in `ServerSpec.links`, or read outside seeding."""


@contextmanager
def linking(servers: tuple[str, ...]) -> Iterator[None]:
    """Let the populate running inside read the seeded databases of `servers`."""
    token = _DECLARED.set(servers)
    try:
        yield
    finally:
        _DECLARED.reset(token)


def seeded_rows(server: str, seed: int, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
    """The rows of `sql` on the seeded database of `server` for `seed`, as SQLite stores them
    (timestamps are text); `server` must be one the seeding server declares in its `links`."""
    declared = _DECLARED.get()
    if declared is None:
        raise LinkError("seeded_rows is for a server's populate, while it seeds")
    if server not in declared:
        raise LinkError(f"populate reads {server!r} but its ServerSpec.links are {declared}; declare it")
    from mcpgym.servers.catalog import load_server

    snapshot = load_server(server).seeded(seed).snapshot
    with closing(new_connection()) as connection:
        load_database(connection, snapshot)
        cursor = connection.execute(sql, tuple(params))
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]
