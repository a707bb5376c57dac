"""Kernel speed and memory, each figure against a baseline measured in the same run.

Per server:
- reset (to the seed the session holds, with nothing written, and after a one-row write) vs
  deserializing the same bytes into a bare sqlite3 connection;
- memory: the process's growth per live session (each after a read) vs the seeded database's
  bytes (a session must hold one copy of them);
- call <tool>: a warm `ToolSession.call` of a read tool vs the same SQL statements, with the
  same parameters, through raw sqlite3 (what the ORM, validation and serialisation add);
- first call of a fresh session vs the same statements on a fresh sqlite3 connection (both
  prepare their statements anew: what the kernel adds to a cold call), and vs a warm call;
- new session: constructing a `ToolSession` vs a bare deserialize.

Once:
- diff of one changed row in a zendesk world grown to 32x the tickets vs the same at 1x
  (the change log makes it independent of the world's size), and the full-table comparison
  (`diff_against`) it replaced, at 32x, for reference;
- episodes (reset and a one-row write) cycling through 200 patched initial states of one seed
  vs the same on one seed, and the one-time build of a patched state;
- reset while cycling through many seeds: with the memory caches holding all of them, vs a
  bare deserialize of the same bytes and the schema load of its first statement; with caches
  too small for them (the disk-cache path), vs rebuilding a seed's world and database (what a
  miss cost without the disk cache);
- `gym.make` + `reset` in a new process with the disk cache warm vs with it off (goal: under
  0.5 s in absolute terms on an idle machine);
- the peer to beat: BFCL's pure-Python backends (`bfcl-eval`, optional), the same kind of
  lookup, vs our warm call.

Usage: python benchmarks/bench_kernel.py [--servers zendesk crm] [--repeat 200] [--quick]
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.orm import Session

from mcpgym.servers.catalog import load_server, server_names
from mcpgym.servers.kernel import spec as spec_module
from mcpgym.servers.kernel import world as world_module
from mcpgym.servers.kernel.database import diff_against, new_connection, quote
from mcpgym.servers.kernel.initial_state import RowPatch
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.spec import ServerSpec, build_seeded
from mcpgym.servers.kernel.tools import ToolSpec
from mcpgym.servers.kernel.world import World


@dataclass(frozen=True)
class Row:
    """One line of the table: a time (or size) against its baseline, and the goal ratio."""

    server: str
    operation: str
    value: float
    baseline: float
    goal: float | None = None
    unit: str = "us"


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


def bench_tool(spec: ServerSpec) -> tuple[ToolSpec, dict[str, Any]]:
    """The read tool measured: the first `get_*` tool with an example (else the first read)."""
    reads = [t for t in spec.tools if not t.writes and t.examples]
    chosen = next((t for t in reads if t.name.startswith("get_")), reads[0])
    return chosen, chosen.examples[0]


def captured_sql(session: ToolSession, tool: str, arguments: dict[str, Any]) -> list[tuple[str, Any]]:
    """The SQL statements and parameters one call sends to the database, through the ORM or
    through `ctx.sql`."""
    statements: list[tuple[str, Any]] = []

    def record(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, many: bool) -> None:
        statements.append((statement, parameters))

    engine = session.spec.engine
    context = session.context
    session.context = dataclasses.replace(context, sql=context.sql.traced(lambda sql, params: statements.append((sql, params))))
    event.listen(engine, "before_cursor_execute", record)
    try:
        assert session.call(tool, arguments).ok
    finally:
        event.remove(engine, "before_cursor_execute", record)
        session.context = context
    return statements


def rss() -> int:
    """The process's resident memory in bytes."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


MEMORY = """
import json, sys
sys.path.insert(0, {folder!r})
from bench_kernel import rss
from mcpgym.servers.catalog import load_server
from mcpgym.servers.kernel.session import ToolSession
spec = load_server({server!r})
ToolSession(spec, 0).call({tool!r}, {arguments!r})
before = rss()
sessions = [ToolSession(spec, 0) for _ in range({count})]
for session in sessions:
    session.call({tool!r}, {arguments!r})
print((rss() - before) / {count})
"""


def session_memory(spec: ServerSpec, tool: str, arguments: dict[str, Any], count: int = 24) -> float:
    """Bytes of memory per live session, each after one read, measured in a new process (where
    freed memory of earlier work cannot hide the growth)."""
    code = MEMORY.format(folder=os.path.dirname(os.path.abspath(__file__)), server=spec.name, tool=tool,
                         arguments=arguments, count=count)
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


def measure_server(spec: ServerSpec, repeat: int) -> list[Row]:
    name = spec.name
    snapshot = spec.seeded(0).snapshot
    session = ToolSession(spec, 0)
    tool, arguments = bench_tool(spec)

    def bare_deserialize() -> None:
        connection = new_connection()
        connection.deserialize(snapshot)
        connection.close()

    def write_then_reset() -> float:
        session._connection.execute(f"UPDATE {quote(first_table)} SET rowid = rowid WHERE rowid = 1")
        session._connection.commit()
        start = time.perf_counter()
        session.reset()
        return time.perf_counter() - start

    statements = captured_sql(session, tool.name, arguments)
    raw = new_connection()
    raw.deserialize(snapshot)

    def raw_sql() -> None:
        for statement, parameters in statements:
            raw.execute(statement, parameters).fetchall()

    def fresh_raw_sql() -> float:
        cold = new_connection()
        cold.deserialize(snapshot)
        cold.execute("SELECT count(*) FROM sqlite_master").fetchall()  # the schema is loaded, as in a session
        start = time.perf_counter()
        for statement, parameters in statements:
            cold.execute(statement, parameters).fetchall()
        elapsed = time.perf_counter() - start
        cold.close()
        return elapsed

    def fresh_first_call() -> float:
        fresh = ToolSession(spec, 0)
        start = time.perf_counter()
        fresh.call(tool.name, arguments)
        elapsed = time.perf_counter() - start
        fresh.close()
        return elapsed

    first_table = spec.layouts[0].name
    warm = per_call(lambda: session.call(tool.name, arguments), repeat)
    first = statistics.median(fresh_first_call() for _ in range(max(repeat // 10, 5)))
    cold_sql = statistics.median(fresh_raw_sql() for _ in range(max(repeat // 10, 5)))
    deserialize = per_call(bare_deserialize, max(repeat // 4, 20))
    after_write = statistics.median(write_then_reset() for _ in range(max(repeat // 4, 20)))
    rows = [
        Row(name, "reset, nothing written", per_call(session.reset, max(repeat // 4, 20)), deserialize, 3.0),
        Row(name, "reset after a write (undo in place)", after_write, deserialize, 3.0),
        Row(name, "memory per session (MB) vs seeded bytes", session_memory(spec, tool.name, arguments) / 1e6,
            len(snapshot) / 1e6, 1.3, "MB"),
        Row(name, f"call {tool.name}", warm, per_call(raw_sql, repeat), 10.0),
        Row(name, "  first call of a fresh session vs its SQL on a fresh connection", first, cold_sql, 10.0),
        Row(name, "  first call of a fresh session vs warm", first, warm, None),
        Row(name, "  new session vs bare deserialize", per_call(lambda: ToolSession(spec, 0).close(), max(repeat // 10, 10)),
            deserialize, None),
    ]
    session.close()
    raw.close()
    return rows


def populate_scaled(factor: int, db: Session, world: World, rng: Any) -> None:
    """The zendesk world with `factor` times its tickets (copies with new ids)."""
    zendesk = load_server("zendesk")
    zendesk.populate(db, world, rng)
    db.flush()
    columns = "subject, description, status, priority, type, channel, requester_id, assignee_id, group_id, organization_id, merged_into_id, created_at, updated_at, solved_at"
    top = db.execute(text("SELECT max(id) FROM tickets")).scalar_one()
    for _ in range(factor - 1):
        db.execute(text(f"INSERT INTO tickets ({columns}) SELECT {columns} FROM tickets WHERE id <= :top"), {"top": top})


def scaled_zendesk(factor: int) -> ServerSpec:
    zendesk = load_server("zendesk")
    return ServerSpec(  # the same name: the seeding's random stream is keyed by it
        name="zendesk", title=zendesk.title, instructions=zendesk.instructions, base=zendesk.base,
        populate=functools.partial(populate_scaled, factor), tools=zendesk.tools,
    )


def measure_diff(repeat: int) -> list[Row]:
    """diff() of one changed ticket at 1x and 32x the tickets."""
    times = {}
    full = 0.0
    for factor in (1, 32):
        spec = scaled_zendesk(factor)
        with ToolSession(spec, 0) as session:
            assert session.call("update_ticket", {"ticket_id": 1486, "priority": "urgent"}).ok
            assert len(session.diff()) == 1
            times[factor] = per_call(session.diff, repeat)
            if factor == 32:
                session._connection.execute("ATTACH DATABASE ':memory:' AS seeded")
                session._connection.deserialize(spec.seeded(0).snapshot, name="seeded")
                full = per_call(lambda: diff_against(session._connection, "seeded", {"tickets"}), max(repeat // 20, 3))
    return [
        Row("zendesk", "diff, 1 changed row, 32x vs 1x the tickets", times[32], times[1], 1.5),
        Row("zendesk", "  full-table diff (replaced) vs the log, 32x", full, times[32], None),
    ]


@contextmanager
def cache_capacities(snapshot_bytes: int, worlds: int) -> Iterator[None]:
    """Temporarily shrink the in-memory caches (to show the disk-cache path)."""
    snapshots, people = spec_module._snapshots, world_module._worlds
    saved = (snapshots.capacity, people.capacity)
    snapshots.capacity, people.capacity = snapshot_bytes, worlds
    snapshots.clear()
    people.clear()
    try:
        yield
    finally:
        snapshots.capacity, people.capacity = saved
        snapshots.clear()
        people.clear()


def measure_seed_cycling(seeds: int) -> list[Row]:
    """Resets cycling through `seeds` seeds vs resets of one seed."""
    spec = load_server("zendesk")
    session = ToolSession(spec, 0)
    for seed in range(seeds):  # build or load every seed once
        session.reset(seed)
    snapshot = spec.seeded(0).snapshot
    connection = new_connection()

    def bare_restore() -> None:
        connection.deserialize(snapshot)
        connection.execute("PRAGMA main.page_count").fetchone()

    bare = per_call(bare_restore, 50)
    connection.close()

    def cycle() -> float:
        start = time.perf_counter()
        for _ in range(2):
            for seed in range(seeds):
                session.reset(seed)
        return (time.perf_counter() - start) / (2 * seeds)

    in_memory = cycle()
    with cache_capacities(len(snapshot) * 4, 4):
        for seed in range(seeds):
            session.reset(seed)
        from_disk = cycle()
    session.close()
    start = time.perf_counter()
    world_module.generate_world(seeds)
    build_seeded(spec, seeds)
    rebuild = time.perf_counter() - start
    return [
        Row("zendesk", f"reset cycling {seeds} seeds (in memory) vs bare deserialize+load", in_memory, bare, 3.0),
        Row("zendesk", f"reset cycling {seeds} seeds (caches of 4: disk) vs a rebuild", from_disk, rebuild, 0.1),
    ]


def measure_patched_cycling(states: int) -> list[Row]:
    """Episodes (reset, then a one-row write) cycling through `states` patched initial states of
    one seed vs the same episodes on one seed; and what building a patched state costs once."""
    spec = load_server("zendesk")
    patches = [
        RowPatch.model_validate([{"op": "update", "table": "tickets", "key": {"id": n + 1}, "values": {"subject": f"patched {n}"}}])
        for n in range(states)
    ]
    session = ToolSession(spec, 0)
    write = {"ticket_id": 2, "priority": "low"}
    start = time.perf_counter()
    for patch in patches:  # build every patched state once
        session.reset(0, patch)
    build = (time.perf_counter() - start) / states

    def one_seed() -> None:
        session.reset(0)
        session.call("update_ticket", write)

    def cycle() -> float:
        start = time.perf_counter()
        for _ in range(2):
            for patch in patches:
                session.reset(0, patch)
                session.call("update_ticket", write)
        return (time.perf_counter() - start) / (2 * states)

    session.reset(0)
    seed_only = per_call(one_seed, max(states // 4, 20))
    patched = cycle()
    session.close()
    return [
        Row("zendesk", f"episode cycling {states} patched states vs one seed (reset+write)", patched, seed_only, None),
        Row("zendesk", "  first build of a patched state vs one-seed episode", build, seed_only, None),
    ]


MAKE = (
    "import time; start = time.perf_counter(); import gymnasium as gym; "
    "env = gym.make('mcp/zendesk-v0'); env.reset(seed=0); print(time.perf_counter() - start)"
)


def new_process_make(cache: str, runs: int = 3) -> float:
    """Median seconds of import + `gym.make` + `reset` in a new interpreter."""
    env = {**os.environ, "MCPGYM_CACHE_DIR": cache}
    times = [
        float(subprocess.run([sys.executable, "-c", MAKE], capture_output=True, text=True, check=True, env=env).stdout)
        for _ in range(runs)
    ]
    return statistics.median(times)


def measure_make() -> list[Row]:
    with tempfile.TemporaryDirectory() as folder:
        new_process_make(folder, runs=1)  # fills the cache
        warm = new_process_make(folder)
    cold = new_process_make("off")
    return [Row("zendesk", "gym.make+reset, new process: disk cache vs off (s)", warm, cold, None, "s")]


def measure_bfcl(repeat: int) -> list[Row]:
    """BFCL's executable backends, the same kind of call, vs our warm get_ticket."""
    try:
        from bfcl_eval.eval_checker.multi_turn_eval.func_source_code.gorilla_file_system import GorillaFileSystem
        from bfcl_eval.eval_checker.multi_turn_eval.func_source_code.ticket_api import TicketAPI
    except ImportError:
        print("BFCL peer: skipped (pip install --no-deps bfcl-eval mpmath)")
        return []
    spec = load_server("zendesk")
    session = ToolSession(spec, 0)
    ours = per_call(lambda: session.call("get_ticket", {"ticket_id": 1380}), repeat)
    session.close()
    tickets = TicketAPI()
    queue = [
        {"id": i, "title": f"ticket {i}", "description": "d", "status": "Open", "priority": 1 + i % 5, "created_by": "u"}
        for i in range(1, 1501)
    ]
    tickets._load_scenario({"ticket_queue": queue, "ticket_counter": 1501, "current_user": "u"})
    files = GorillaFileSystem()
    files._load_scenario({"root": {"workspace": {"type": "directory", "contents": {
        "notes.txt": {"type": "file", "content": "hello world " * 40}}}}})
    return [
        Row("bfcl", "our get_ticket vs TicketAPI.get_ticket", ours, per_call(lambda: tickets.get_ticket(1380), repeat)),
        Row("bfcl", "our get_ticket vs GorillaFileSystem.cat", ours, per_call(lambda: files.cat("notes.txt"), repeat)),
    ]


def render(rows: list[Row]) -> str:
    header = ("server", "operation", "value", "baseline", "ratio", "goal")
    table = [header]
    for row in rows:
        scale, unit = (1e6, "us") if row.unit == "us" else (1.0, row.unit)
        ratio = row.value / row.baseline if row.baseline else float("inf")
        verdict = "" if row.goal is None else f"{row.goal:g}x " + ("ok" if ratio <= row.goal else "MISSED")
        table.append((row.server, row.operation, f"{row.value * scale:,.2f} {unit}", f"{row.baseline * scale:,.2f} {unit}",
                      f"{ratio:.2f}x", verdict))
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    lines = []
    for n, line in enumerate(table):
        lines.append("  ".join(cell.rjust(w) if i >= 2 else cell.ljust(w) for i, (cell, w) in enumerate(zip(line, widths))))
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", nargs="*", default=server_names())
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--seeds", type=int, default=16, help="seeds cycled through in the reset benchmark")
    parser.add_argument("--states", type=int, default=200, help="patched initial states cycled through")
    parser.add_argument("--quick", action="store_true", help="per-server rows only")
    args = parser.parse_args(argv)
    rows: list[Row] = []
    for name in args.servers:
        rows += measure_server(load_server(name), args.repeat)
    if not args.quick:
        rows += measure_diff(args.repeat)
        rows += measure_seed_cycling(args.seeds)
        rows += measure_patched_cycling(args.states)
        rows += measure_make()
        rows += measure_bfcl(args.repeat)
    print(render(rows))
    print(
        "\nbaselines: reset and new session vs a bare sqlite3 deserialize of the same bytes; memory vs the "
        "seeded database's size; calls vs their SQL statements through raw sqlite3; ratios of the bfcl rows "
        "are ours / theirs"
    )


if __name__ == "__main__":
    main()
