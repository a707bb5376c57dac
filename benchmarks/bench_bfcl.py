"""BFCL multi-turn in mcpgym: the cost of one call against BFCL's own executor, same run.

Each task's ground-truth calls are run turn by turn three ways:
- BFCL: `execute_multi_turn_func_call` (what BFCL's inference loop runs for each model
  step), on fresh backends per task, its cached instances removed afterwards;
- mcpgym env: `McpEnv.reset` and one `step` per turn with the turn's calls as `<tool_call>`
  blocks, then one answer step per turn (parsing, argument checks, results, observations),
  with a reward that costs nothing;
- mcpgym env + bfcl reward: the same with `reward="bfcl"`, which adds BFCL's checker at the
  end of each episode (it replays the episode's calls and the ground truth again).
- BFCL executor + checker: BFCL's whole path, inference's executor then evaluation's checker
  (which replays the calls and the ground truth again).
Rounds alternate between them and the table shows medians per call and the ratios to BFCL's
executor alone and to its whole path.

Usage: python benchmarks/bench_bfcl.py [--category base] [--tasks 100] [--rounds 3]
Needs `pip install --no-deps bfcl-eval==2026.3.23 mpmath`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import uuid
from typing import Any

from mcpgym.envs import make_env
from mcpgym.envs.mcp_env import McpEnv
from mcpgym.external.bfcl.package import entry_by_id, require_bfcl
from mcpgym.external.bfcl.tasks import bfcl_tasks
from mcpgym.tasks.model import Task
from mcpgym.text_table import text_table


def bfcl_executor(tasks: list[Task]) -> float:
    """Seconds for BFCL's executor to run every ground-truth call of `tasks`."""
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils

    total = 0.0
    for task in tasks:
        entry = entry_by_id(task.id)
        model = f"bench_{uuid.uuid4().hex}"
        start = time.perf_counter()
        for turn in entry.ground_truth:
            multi_turn_utils.execute_multi_turn_func_call(
                turn, entry.initial_config, list(entry.involved_classes), model, entry.id,
                long_context=entry.category == "long_context", is_evaL_run=False)
        total += time.perf_counter() - start
        for name in [name for name in vars(multi_turn_utils) if name.startswith(model)]:
            delattr(multi_turn_utils, name)
    return total


def bfcl_checker(tasks: list[Task]) -> float:
    """Seconds for BFCL's checker to score every task's ground truth (as its evaluation does
    after inference: it runs the model's calls and the ground truth again)."""
    from mcpgym.external.bfcl.checker import check_episode

    total = 0.0
    for task in tasks:
        calls = [[(call.tool, call.arguments) for call in turn.calls] for turn in task.turns]
        start = time.perf_counter()
        check_episode(task.id, calls)
        total += time.perf_counter() - start
    return total


def actions(task: Task) -> list[str]:
    """The oracle's steps: each turn's calls in one action, then an answer."""
    steps = []
    for turn in task.turns:
        if turn.calls:
            steps.append("".join(f"<tool_call>{json.dumps({'name': c.tool, 'arguments': c.arguments})}</tool_call>"
                                 for c in turn.calls))
        steps.append("Done.")
    return steps


def mcpgym_env(tasks: list[Task], reward: Any, envs: dict[tuple[str, ...], McpEnv]) -> float:
    """Seconds for the env to play every task's ground truth (reset and steps)."""
    total = 0.0
    for task in tasks:
        key = (*task.servers, str(reward))
        if key not in envs:
            envs[key] = make_env(list(task.servers), tasks=[task], reward=reward, max_turns=500, max_calls=1000)
        env = envs[key]
        steps = actions(task)
        start = time.perf_counter()
        env.reset(options={"task": task})
        for action in steps:
            env.step(action)
        total += time.perf_counter() - start
    return total


def no_reward(task: Task, trajectory: Any) -> float:
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--category", default="base", help="base, miss_func, miss_param, long_context or all (default base)")
    parser.add_argument("--tasks", type=int, default=100, help="tasks played per round (default 100)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; medians shown (default 3)")
    args = parser.parse_args()
    require_bfcl()
    tasks = bfcl_tasks(args.category)[: args.tasks]
    calls = sum(len(task.calls) for task in tasks)
    envs: dict[tuple[str, ...], McpEnv] = {}
    mcpgym_env(tasks[:5], no_reward, envs)
    mcpgym_env(tasks[:5], "bfcl", envs)  # warm: imports and caches
    times: dict[str, list[float]] = {"BFCL executor": [], "BFCL executor + checker": [], "mcpgym env": [],
                                     "mcpgym env + bfcl reward": []}
    for _ in range(args.rounds):
        executor = bfcl_executor(tasks)
        times["BFCL executor"].append(executor)
        times["BFCL executor + checker"].append(executor + bfcl_checker(tasks))
        times["mcpgym env"].append(mcpgym_env(tasks, no_reward, envs))
        times["mcpgym env + bfcl reward"].append(mcpgym_env(tasks, "bfcl", envs))
    base = statistics.median(times["BFCL executor"])
    scored = statistics.median(times["BFCL executor + checker"])
    rows = [["path", "µs per call", "vs BFCL executor", "vs BFCL executor + checker"]]
    for name, values in times.items():
        median = statistics.median(values)
        rows.append([name, f"{1e6 * median / calls:.0f}", f"{median / base:.2f}x", f"{median / scored:.2f}x"])
    print(f"{len(tasks)} BFCL {args.category} tasks, {calls} ground-truth calls, median of {args.rounds} rounds\n")
    print(text_table(rows))


if __name__ == "__main__":
    main()
