"""Synthesis speed: validated tasks per second, against executing ground truths alone.

The baseline is the same work without synthesis: executing the ground truth of already
validated tasks once each, in the same run (in one process, world builds included). The goal
is 13,000 validated tasks in under five minutes on this machine (`--n 13000`).

Usage: python benchmarks/bench_synth.py [--n 2000] [--servers zendesk,crm,...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from mcpgym.servers.toolbox import Toolbox
from mcpgym.servers.catalog import server_names
from mcpgym.synth.generate import synthesize
from mcpgym.tasks.execute import execute_task

GOAL_TASKS, GOAL_SECONDS = 13_000, 300


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--servers", default=",".join(server_names()))
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    servers = args.servers.split(",")
    start = time.perf_counter()
    tasks, report = synthesize(servers, args.n, seed=0, workers=args.workers)
    synth_seconds = time.perf_counter() - start
    boxes: dict[int, Toolbox] = {}
    start = time.perf_counter()
    for task in tasks:
        execute_task(task, boxes.setdefault(task.seed, Toolbox(servers, task.seed)))
    execute_seconds = time.perf_counter() - start
    for box in boxes.values():
        box.close()
    rate = len(tasks) / synth_seconds
    calls = [len(t.calls) for t in tasks]
    rows = [
        ("validated tasks", f"{len(tasks)}"),
        ("worlds (seed: tasks)", ", ".join(f"{seed}: {kept}" for seed, kept in sorted(report.worlds.items()))),
        ("drafts rejected", f"{sum(report.rejected.values())} ({', '.join(f'{k} {v}' for k, v in report.rejected.most_common())})"),
        (f"synthesis time ({args.workers} workers, world builds included)", f"{synth_seconds:.1f} s"),
        ("tasks per second", f"{rate:.0f}"),
        ("baseline: executing their ground truths once", f"{execute_seconds:.1f} s ({len(tasks) / execute_seconds:.0f} tasks/s)"),
        ("synthesis / baseline (one process)", f"{synth_seconds / execute_seconds:.1f}x"),
        (f"projected time for {GOAL_TASKS:,} tasks", f"{GOAL_TASKS / rate:.0f} s (goal {GOAL_SECONDS} s)"),
        ("ground-truth calls: median / max", f"{statistics.median(calls):.0f} / {max(calls)}"),
        ("crossing servers", f"{sum(len({c.server for c in t.calls}) > 1 for t in tasks) / len(tasks):.0%}"),
        ("multi-turn", f"{sum(len(t.turns) > 1 for t in tasks) / len(tasks):.0%}"),
    ]
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"{name.ljust(width)}  {value}")


if __name__ == "__main__":
    main()
