"""Evaluation episodes per second in worker processes and Ray actors, against this process.

The same jobs (synthesized tasks of at least `--min-calls` ground-truth calls, oracle agent)
are played by the in-process runner (`Local`), by `Processes(n)` and by `RayActors(n)` for
each n of `--workers`; every cell runs in a fresh Python process, timed from the backend's
start to its last record (worker start-up and world building included, the run folder's
summary not), and its rewards are checked against the in-process cell's. Ray's own start-up
(`ray.init`) is timed apart, once per Ray cell process, and left out of the Ray rows.

The machine's load average is printed before and after: on a shared machine it moves the
numbers more than anything measured here.

Usage: python benchmarks/bench_scale.py [--tasks 200] [--workers 1,2,4] [--backends processes,ray]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections import deque
from typing import Any

from mcpgym.baselines.agent_spec import AgentSpec
from mcpgym.baselines.parallel import Job, Local, Processes, RayActors, Rollouts
from mcpgym.tasks.loader import synthesized_tasks
from mcpgym.tasks.model import Task
from mcpgym.text_table import text_table


def pick_tasks(n: int, min_calls: int, seed: int) -> list[Task]:
    """`n` synthesized tasks with at least `min_calls` ground-truth calls, a seeded sample."""
    pool = [t for t in synthesized_tasks() if len(t.calls) >= min_calls]
    return random.Random(seed).sample(pool, min(n, len(pool)))


def time_backend(rollouts: Rollouts, jobs: list[Job]) -> dict[str, Any]:
    """Wall seconds to play `jobs`, this process's CPU seconds, seconds to the first record,
    and the rewards."""
    cpu = time.process_time()
    start = time.perf_counter()
    first = None
    rewards: dict[str, float] = {}
    for record in rollouts.play(deque(jobs), AgentSpec(kind="oracle"), {}, 0, 4):
        first = first if first is not None else time.perf_counter() - start
        rewards[f"{record['task_id']}/{record['episode']}"] = record["reward"]
    wall = time.perf_counter() - start
    return {"wall": wall, "cpu": time.process_time() - cpu, "first": first, "rewards": rewards}


def cell(args: argparse.Namespace) -> None:
    """One backend at one or more worker counts, in this (fresh) process; prints JSON lines."""
    tasks = pick_tasks(args.tasks, args.min_calls, args.seed)
    jobs: list[Job] = [(task, e) for task in tasks for e in range(args.episodes_per_task)]
    backend, counts = args.cell.split(":")
    if backend == "ray":
        import ray

        start = time.perf_counter()
        ray.init(num_cpus=max(int(n) for n in counts.split(",")), include_dashboard=False, log_to_driver=False)
        print(json.dumps({"ray_init": time.perf_counter() - start}), flush=True)
    for n in (int(c) for c in counts.split(",")):
        rollouts: Rollouts = Local() if backend == "local" else Processes(n) if backend == "processes" else RayActors(n)
        print(json.dumps({"backend": backend, "workers": n, **time_backend(rollouts, jobs)}), flush=True)


def run_cell(spec: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    command = [sys.executable, __file__, "--cell", spec, "--tasks", str(args.tasks), "--min-calls", str(args.min_calls),
               "--seed", str(args.seed), "--episodes-per-task", str(args.episodes_per_task)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"cell {spec} failed:\n{done.stderr[-3000:]}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=200, help="synthesized tasks played (default 200)")
    parser.add_argument("--min-calls", type=int, default=2, help="least ground-truth calls of a task (default 2)")
    parser.add_argument("--episodes-per-task", type=int, default=1)
    parser.add_argument("--workers", default="1,2,4", help="worker counts (default 1,2,4)")
    parser.add_argument("--backends", default="processes,ray", help="processes, ray or both (default both)")
    parser.add_argument("--seed", type=int, default=0, help="which tasks (default 0)")
    parser.add_argument("--cell", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.cell:
        cell(args)
        return
    load_before = os.getloadavg()
    print(f"{os.cpu_count()} cores; load average before {load_before[0]:.1f} {load_before[1]:.1f} {load_before[2]:.1f}")
    results = run_cell("local:1", args)
    base = results[0]
    for backend in [b.strip() for b in args.backends.split(",") if b.strip()]:
        if backend == "ray":
            try:
                import ray  # noqa: F401
            except ImportError:
                print("ray is not installed (pip install 'mcpgym[ray]'): no Ray rows")
                continue
        results += run_cell(f"{backend}:{args.workers}", args)
    load_after = os.getloadavg()
    episodes = len(base["rewards"])
    rows = [["runner", "workers", "wall s", "episodes/s", "vs in-process", "first record s", "parent CPU s", "same rewards"]]
    for r in results:
        if "ray_init" in r:
            print(f"ray.init: {r['ray_init']:.1f} s (not in the Ray rows)")
            continue
        name = {"local": "in-process", "processes": "process pool", "ray": "Ray actors"}[r["backend"]]
        rows.append([name, str(r["workers"]), f"{r['wall']:.1f}", f"{episodes / r['wall']:.1f}",
                     f"{base['wall'] / r['wall']:.2f}x", f"{r['first']:.1f}", f"{r['cpu']:.1f}", "yes" if r["rewards"] == base["rewards"] else "NO"])
    print(f"{episodes} oracle episodes of {args.tasks} synthesized tasks with >= {args.min_calls} calls\n")
    print(text_table(rows))
    print(f"\nload average after {load_after[0]:.1f} {load_after[1]:.1f} {load_after[2]:.1f}")


if __name__ == "__main__":
    main()
