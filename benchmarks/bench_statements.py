"""Tools that used to issue a statement per row, each against its old way measured in the same run.

- email.list_labels: one grouped count over every label vs three counts per label (the old
  path, rebuilt here from the same clauses); the results are checked equal.
- calendar.meeting_stats and find_meeting_slots (their examples): recurring series expanded
  only over the window asked for vs expanded from each series' first occurrence (the old path:
  the window start passed as None); the results are checked equal.

Old and new calls alternate; prints p50/p99 per call in milliseconds and the old/new ratio.

Usage: python benchmarks/bench_statements.py [--repeat 200]
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import select

from mcpgym.servers.catalog import load_server
from mcpgym.servers.email.models import Label, Message
from mcpgym.servers.kernel.session import ToolSession

# The modules themselves: each server package re-exports its registry under the name `tools`.
email_tools = importlib.import_module("mcpgym.servers.email.tools")
calendar_tools = importlib.import_module("mcpgym.servers.calendar.tools")


def paired_timings(old: Callable[[], Any], new: Callable[[], Any], repeat: int) -> tuple[tuple[float, float], ...]:
    """p50 and p99 in milliseconds of `old` and of `new` over `repeat` calls each, taken in
    alternation so that a change in the machine's load affects both alike."""
    old()
    new()
    samples: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for fn, into in ((old, samples[0]), (new, samples[1])):
            start = time.perf_counter()
            fn()
            into.append((time.perf_counter() - start) * 1000)
    return tuple((cuts[49], cuts[98]) for cuts in (statistics.quantiles(s, n=100) for s in samples))


def labels_one_by_one(session: ToolSession) -> list[dict[str, Any]]:
    """list_labels as it was: three counts per label."""
    db = session.context.db
    out = []
    for label in sorted(db.scalars(select(Label)), key=email_tools._label_order):
        clauses = email_tools._visible(label.name, include_spam_trash=False)
        out.append({
            "id": label.id, "name": label.name, "type": label.type,
            "messages_total": email_tools._count(db, clauses),
            "messages_unread": email_tools._count(db, [*clauses, Message.is_read.is_(False)]),
            "threads_total": email_tools._count(db, clauses, Message.thread_id),
        })
    db.rollback()
    return out


def whole_series(call: Callable[[], Any]) -> Callable[[], Any]:
    """`call` with every series expanded from its first occurrence, as before the window was
    passed down to the expansion."""
    windowed = calendar_tools.instances

    def old_way() -> Any:
        calendar_tools.instances = lambda event, stop=None, after=None: windowed(event, stop)
        try:
            return call()
        finally:
            calendar_tools.instances = windowed

    return old_way


def row(name: str, old: tuple[float, float], new: tuple[float, float]) -> str:
    return (f"| {name} | {old[0]:.2f} / {old[1]:.2f} | {new[0]:.2f} / {new[1]:.2f} | "
            f"{old[0] / new[0]:.1f}x / {old[1] / new[1]:.1f}x |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    repeat = parser.parse_args().repeat
    lines = ["| call | old p50 / p99 ms | new p50 / p99 ms | old/new p50 / p99 |", "|---|---|---|---|"]

    with ToolSession(load_server("email"), 0) as session:
        new_labels = session.call("list_labels", {}).data
        assert new_labels == {"labels": labels_one_by_one(session)}, "grouped counts differ from per-label counts"
        lines.append(row("email.list_labels", *paired_timings(
            lambda: labels_one_by_one(session), lambda: session.call("list_labels", {}), repeat)))

    calendar = load_server("calendar")
    with ToolSession(calendar, 0) as session:
        for name in ("meeting_stats", "find_meeting_slots"):
            tool = calendar.tools.get(name)
            assert tool is not None
            example = tool.examples[0]

            def new_way(name: str = name, example: dict[str, Any] = example) -> Any:
                return session.call(name, example)

            assert whole_series(new_way)().text == new_way().text, f"{name}: results differ"
            lines.append(row(f"calendar.{name}", *paired_timings(whole_series(new_way), new_way, repeat)))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
