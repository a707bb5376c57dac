"""Kernel speed, each figure against a baseline measured in the same run on the same data.

For every server:
- reset: `ToolSession.reset()` (restore the seeded world) vs a bare SQLite backup of the same
  database into a new in-memory connection. Goal: within 5x.
- call (in-process): `ToolSession.call` of a read tool (argument validation, transaction,
  result serialisation, error handling) vs the tool's own SQLAlchemy queries called directly
  (the tool function on an open session, arguments already parsed). Goal: within 3x.
- the same call vs the SQL statements it issues, replayed through SQLAlchemy's
  `exec_driver_sql` (what the ORM itself costs, for information);
- call (MCP in-memory, MCP stdio): the same call through the official SDK's client.

Usage: python benchmarks/bench_kernel.py [--servers zendesk crm] [--repeat 200] [--no-stdio]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import anyio
import mcp
from mcp import StdioServerParameters
from sqlalchemy import event

from mcpgym.servers.catalog import load_server, server_names
from mcpgym.servers.kernel.database import new_connection
from mcpgym.servers.kernel.mcp_server import SessionPool, build_mcp_server
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.spec import ServerSpec
from mcpgym.servers.kernel.tools import ToolSpec


def per_call(fn: Callable[[], Any], repeat: int, blocks: int = 5) -> float:
    """Median over `blocks` of the mean seconds per call over `repeat` calls."""
    fn()
    times = []
    for _ in range(blocks):
        start = time.perf_counter()
        for _ in range(repeat):
            fn()
        times.append((time.perf_counter() - start) / repeat)
    return statistics.median(times)


async def per_call_async(fn: Callable[[], Any], repeat: int, blocks: int = 5) -> float:
    await fn()
    times = []
    for _ in range(blocks):
        start = time.perf_counter()
        for _ in range(repeat):
            await fn()
        times.append((time.perf_counter() - start) / repeat)
    return statistics.median(times)


def bench_tool(spec: ServerSpec) -> tuple[ToolSpec, dict[str, Any]]:
    """The read tool measured: the first `get_*` tool with an example (else the first read)."""
    reads = [t for t in spec.tools if not t.writes and t.examples]
    chosen = next((t for t in reads if t.name.startswith("get_")), reads[0])
    return chosen, chosen.examples[0]


def captured_sql(session: ToolSession, tool: str, arguments: dict[str, Any]) -> list[tuple[str, Any]]:
    statements: list[tuple[str, Any]] = []

    def record(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, many: bool) -> None:
        statements.append((statement, parameters))

    engine = session._engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        assert session.call(tool, arguments).ok
    finally:
        event.remove(engine, "before_cursor_execute", record)
    return statements


def measure(spec: ServerSpec, repeat: int, stdio: bool) -> list[tuple[str, str, float, float, str]]:
    rows: list[tuple[str, str, float, float, str]] = []
    session = ToolSession(spec, 0)
    source = new_connection()
    source.deserialize(spec.seeded(0).snapshot)

    def bare_backup() -> None:
        target = new_connection()
        source.backup(target)
        target.close()

    reset = per_call(session.reset, max(repeat // 4, 20))
    backup = per_call(bare_backup, max(repeat // 4, 20))
    rows.append((spec.name, "reset", reset, backup, "5x"))

    tool, arguments = bench_tool(spec)
    statements = captured_sql(session, tool.name, arguments)
    connection = session._engine.connect()

    def bare_query() -> None:
        for statement, parameters in statements:
            connection.exec_driver_sql(statement, parameters).fetchall()

    kwargs = tool.validate(arguments)

    def direct_orm() -> None:
        tool.fn(session.context, **kwargs)
        session.context.db.rollback()

    sql = per_call(bare_query, repeat)
    connection.close()
    bare = per_call(direct_orm, repeat)
    call = per_call(lambda: session.call(tool.name, arguments), repeat)
    rows.append((spec.name, f"call {tool.name}", call, bare, "3x"))
    rows.append((spec.name, f"  vs its {len(statements)} SQL statements alone", call, sql, ""))

    async def mcp_memory() -> float:
        async with mcp.Client(build_mcp_server(SessionPool(spec))) as client:
            return await per_call_async(lambda: client.call_tool(tool.name, arguments), max(repeat // 4, 20))

    rows.append((spec.name, "  via MCP in-memory", anyio.run(mcp_memory), bare, ""))
    if stdio:
        params = StdioServerParameters(command=sys.executable, args=["-m", "mcpgym", "serve", spec.name])

        async def mcp_stdio() -> float:
            async with mcp.Client(params) as client:
                return await per_call_async(lambda: client.call_tool(tool.name, arguments), max(repeat // 4, 20))

        rows.append((spec.name, "  via MCP stdio", anyio.run(mcp_stdio), bare, ""))
    session.close()
    source.close()
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", nargs="*", default=server_names())
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--no-stdio", action="store_true")
    args = parser.parse_args(argv)
    header = ("server", "operation", "time (us)", "baseline (us)", "ratio", "goal")
    table = [header]
    for name in args.servers:
        for server, op, t, base, goal in measure(load_server(name), args.repeat, not args.no_stdio):
            ratio = t / base
            verdict = "" if not goal else ("ok" if ratio <= float(goal[:-1]) else "MISSED")
            table.append((server, op, f"{t * 1e6:,.0f}", f"{base * 1e6:,.0f}", f"{ratio:.1f}x", f"{goal} {verdict}".strip()))
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for n, row in enumerate(table):
        print("  ".join(cell.rjust(w) if i >= 2 else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths))))
        if n == 0:
            print("  ".join("-" * w for w in widths))
    print(
        "\nbaselines: reset vs a bare sqlite3 backup of the same database; calls vs the tool's "
        "SQLAlchemy queries called directly (and vs its SQL statements alone)"
    )


if __name__ == "__main__":
    main()
