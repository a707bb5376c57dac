"""Eval throughput by concurrency: does `mcpgym eval --concurrency N` make a run faster?

Measures, in one run, wall time of `evaluate` over the same episodes at concurrency 1 (the
baseline) and at higher concurrency, for two agents:
- oracle: no model at all, every second is env work (reset, step, score): more threads
  must not make it slower;
- slow model: the OpenAI-compatible agent against the scripted chat endpoint of
  tests/chat_server.py (its own process) answering each request after `--delay` seconds:
  the time is network waits, which concurrency overlaps.

Each run is a fresh process (timed around `evaluate` alone), as cold as a real `mcpgym eval`:
no run inherits the world templates or executed ground truths another run built; the levels
take turns, `--repeat` rounds of them, and each cell shows its fastest run (wall and CPU
seconds). Read the ratios (time at concurrency 1 / time at N: above 1 is a speed-up);
absolute times on shared machines are noise.

    python benchmarks/bench_eval_concurrency.py [--oracle-episodes 200] [--model-episodes 32] [--delay 0.1] [--repeat 2]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcpgym.baselines.agents import OracleAgent
from mcpgym.baselines.chat_agent import ChatAgent
from mcpgym.baselines.evaluate import evaluate
from mcpgym.tasks.loader import named_tasks

CHAT_SERVER = Path(__file__).resolve().parents[1] / "tests" / "chat_server.py"


def timed_run(agent: str, episodes: int, concurrency: int, url: str) -> dict[str, float]:
    """Seconds of `evaluate` over the first `episodes` synth-train tasks, in this process."""
    tasks = named_tasks("synth-train")[:episodes]
    make_agent: Callable[[int], Any] = (
        (lambda seed: OracleAgent()) if agent == "oracle" else ChatAgent(base_url=url, model="scripted", api_key="k").sibling
    )
    with tempfile.TemporaryDirectory() as out:
        start, cpu = time.perf_counter(), time.process_time()
        report = evaluate(tasks, make_agent, Path(out) / "run", concurrency=concurrency, progress=False)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"seconds": seconds, "cpu": cpu, "mean_reward": report.summary["overall"]["mean_reward"]}


def measure(agent: str, episodes: int, concurrency: int, url: str) -> dict[str, float]:
    """`timed_run` in a fresh process: every run starts as cold as a real `mcpgym eval`."""
    worker = [sys.executable, __file__, "--worker", agent, str(episodes), str(concurrency), url]
    return json.loads(subprocess.run(worker, check=True, capture_output=True, text=True).stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle-episodes", type=int, default=200, help="oracle episodes per run (default 200)")
    parser.add_argument("--model-episodes", type=int, default=32, help="slow-model episodes per run (default 32)")
    parser.add_argument("--delay", type=float, default=0.1, help="seconds the scripted model takes per reply (default 0.1)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 16], help="levels to measure; the first is the baseline")
    parser.add_argument("--repeat", type=int, default=2, help="runs per cell; the fastest counts (default 2)")
    parser.add_argument("--worker", nargs=4, metavar=("AGENT", "EPISODES", "CONCURRENCY", "URL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        agent, episodes, concurrency, url = args.worker
        print(json.dumps(timed_run(agent, int(episodes), int(concurrency), url)))
        return
    server = subprocess.Popen([sys.executable, str(CHAT_SERVER), "--delay", str(args.delay)], stdout=subprocess.PIPE, text=True)
    rows = [("agent", "episodes", "concurrency", "seconds", "cpu seconds", "episodes/s", "mean reward", "speed-up vs 1st")]
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        for agent, name, episodes in (("oracle", "oracle", args.oracle_episodes),
                                      ("model", f"model {args.delay:g} s/reply", args.model_episodes)):
            runs: dict[int, list[dict[str, float]]] = {c: [] for c in args.concurrency}
            for _ in range(args.repeat):  # levels interleaved, so a burst of load on the machine hits them alike
                for concurrency in args.concurrency:
                    runs[concurrency].append(measure(agent, episodes, concurrency, url))
            baseline = min(r["seconds"] for r in runs[args.concurrency[0]])
            for concurrency in args.concurrency:
                run = min(runs[concurrency], key=lambda r: r["seconds"])
                rows.append((name, str(episodes), str(concurrency), f"{run['seconds']:.1f}", f"{run['cpu']:.1f}",
                             f"{episodes / run['seconds']:.1f}", f"{run['mean_reward']:.3f}", f"{baseline / run['seconds']:.2f}x"))
    finally:
        server.terminate()
        server.wait()
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        print("  ".join(cell.rjust(width) for cell, width in zip(row, widths)))
        if n == 0:
            print("  ".join("-" * width for width in widths))


if __name__ == "__main__":
    main()
