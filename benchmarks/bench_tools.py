"""Where the tools' time goes over the shipped synthesized tasks, tool by tool.

Every synthesized task's ground truth is replayed in order with its bindings (as
tests/results_golden.py does) on warm toolboxes, one per server set, each world reset before
its task. A first pass warms the sessions (statement caches, recurrence caches); then every
call is timed over `--rounds` passes. Per tool: the calls it gets in the task set, the median
time per call, and its share of the total (median x calls, summed over tools).

Times are this process's CPU time (`time.process_time`), so that other work on the machine
does not count. Compare two versions of the tools only by running this in the same session
on the same machine; the total and the shares are the figures to compare.

Usage: python benchmarks/bench_tools.py [--rounds 3] [--server calendar --server email] [--top 25]
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from time import process_time
from typing import Any

from mcpgym.servers.toolbox import Toolbox
from mcpgym.tasks.loader import synthesized_tasks
from mcpgym.tasks.model import Task

ToolKey = tuple[str, str]
"""(server, tool)."""


def replay(box: Toolbox, task: Task, timings: dict[ToolKey, list[float]] | None) -> None:
    """Run `task`'s ground truth on `box` from its seeded world; add each call's CPU seconds
    to `timings` under its (server, tool) when given."""
    box.reset(task.seed)
    results: dict[str, Any] = {}
    for call in task.calls:
        server = call.server or task.servers[0]
        name = box.public_name(server, call.tool)
        arguments = call.resolved_arguments(results)
        start = process_time()
        result = box.call(name, arguments)
        elapsed = process_time() - start
        if timings is not None:
            timings[(server, call.tool)].append(elapsed)
        if result.ok:
            results[call.id] = result.data


def time_tools(tasks: Sequence[Task], rounds: int) -> dict[ToolKey, list[float]]:
    """Per (server, tool), the CPU seconds of each of its calls over `rounds` timed passes."""
    boxes: dict[tuple[str, ...], Toolbox] = {}
    timings: dict[ToolKey, list[float]] = defaultdict(list)
    try:
        for timed in [False] + [True] * rounds:
            for task in tasks:
                key = tuple(task.servers)
                box = boxes.get(key) or boxes.setdefault(key, Toolbox(list(key), task.seed))
                replay(box, task, timings if timed else None)
    finally:
        for box in boxes.values():
            box.close()
    return timings


def call_counts(tasks: Iterable[Task]) -> dict[ToolKey, int]:
    """How many calls each (server, tool) gets over the task set, once through."""
    counts: dict[ToolKey, int] = defaultdict(int)
    for task in tasks:
        for call in task.calls:
            counts[(call.server or task.servers[0], call.tool)] += 1
    return counts


def table(timings: dict[ToolKey, list[float]], counts: dict[ToolKey, int], top: int) -> str:
    """Markdown table sorted by share of the total time over the task set, with the total."""
    medians = {key: statistics.median(samples) for key, samples in timings.items()}
    spent = {key: medians[key] * counts[key] for key in medians}
    total = sum(spent.values())
    lines = ["| tool | calls | median ms/call | ms over the set | share |", "|---|---:|---:|---:|---:|"]
    ranked = sorted(spent, key=lambda key: (-spent[key], key))
    for server, tool in ranked[:top]:
        key = (server, tool)
        lines.append(f"| {server}.{tool} | {counts[key]} | {medians[key] * 1e3:.3f} | "
                     f"{spent[key] * 1e3:.1f} | {spent[key] / total:.1%} |")
    if len(ranked) > top:
        rest = sum(spent[key] for key in ranked[top:])
        lines.append(f"| ({len(ranked) - top} other tools) | {sum(counts[k] for k in ranked[top:])} | | "
                     f"{rest * 1e3:.1f} | {rest / total:.1%} |")
    lines.append(f"| **total** | {sum(counts[k] for k in ranked)} | | **{total * 1e3:.1f}** | 100% |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="timed passes over the task set")
    parser.add_argument("--server", action="append", help="time only tasks on these servers (repeatable)")
    parser.add_argument("--top", type=int, default=25, help="rows to show; the rest are summed")
    args = parser.parse_args()
    tasks = synthesized_tasks(servers=args.server)
    if not tasks:
        parser.error(f"no synthesized tasks run on {args.server}")
    timings = time_tools(tasks, max(1, args.rounds))
    print(f"{len(tasks)} synthesized tasks, {args.rounds} timed passes after one warm-up pass (CPU time)\n")
    print(table(timings, call_counts(tasks), args.top))


if __name__ == "__main__":
    main()
