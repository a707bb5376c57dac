"""Environment speed, each figure against a baseline measured in the same run.

- step at call 2 vs call 40: `env.step` of the same one-call action early and late in one
  episode (a step's cost should not grow with the episode), once with a read call and once
  with a call to an unknown tool (no database work: the env's own cost);
- make_vec sync vs N single envs: one step of `gym.make_vec(..., vectorization_mode="sync")`
  (Gymnasium's defaults, so observations are copied) vs N single envs stepped in one loop;
- async vs sync: the same work through `vectorization_mode="async"` (Gymnasium's defaults;
  the table says when they fail and `shared_memory=False` was used instead), and the CPU
  time the main process spends per step in each (async's can only gain where cores are
  free). The three are timed in alternating rounds (medians), so that a shared machine's
  load hits them alike;
- observation copy: `copy.deepcopy` and a pickle round trip of the observation at call 40
  (what sync and async vector envs do to it every step), against the step itself.

Usage: python benchmarks/bench_env.py [--envs 4] [--steps 40] [--episodes 5] [--rounds 16]
"""

from __future__ import annotations

import argparse
import copy
import json
import pickle
import statistics
import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym

import mcpgym  # noqa: F401  (registers the ids)
from mcpgym.envs import make_env

ENV_ID = "mcp/zendesk-v0"
TASK = "zendesk-urgent-requester"
ACTION = '<tool_call>{"name": "get_ticket", "arguments": {"ticket_id": 1380}}</tool_call>'
OVERHEAD_ACTION = '<tool_call>{"name": "no_such_tool", "arguments": {"ticket_id": 1380}}</tool_call>'
"""A call the toolbox answers without touching the database: the env's own cost per step."""
LONG = {"max_turns": 200, "max_calls": 400}
"""Budgets high enough that no benchmark episode ends while it is measured."""


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def step_costs(steps: int, episodes: int, action: str = ACTION) -> tuple[float, float, dict[str, Any]]:
    """Median seconds of step 2 and of step `steps`, over `episodes` episodes; the last
    observation. (Step 1 also pays for the caches a reset leaves cold, so it is not the
    baseline.)"""
    env = make_env(["zendesk"], **LONG)
    first, last = [], []
    observation: dict[str, Any] = {}
    for _ in range(episodes):
        env.reset(options={"task": TASK})
        for number in range(1, steps + 1):
            start = time.perf_counter()
            observation = env.step(action)[0]
            elapsed = time.perf_counter() - start
            if number == 2:
                first.append(elapsed)
            elif number == steps:
                last.append(elapsed)
    env.close()
    return statistics.median(first), statistics.median(last), observation


def interleaved(runners: dict[str, Callable[[], Any]], steps: int, rounds: int) -> dict[str, tuple[float, float]]:
    """Median (wall, main-process CPU) seconds per call of each runner, over `rounds` rounds of
    `steps` calls that alternate between the runners (so that load changes on a shared
    machine hit all alike)."""
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in runners}
    for _ in range(rounds):
        for name, run in runners.items():
            wall, cpu = time.perf_counter(), time.process_time()
            for _ in range(steps):
                run()
            times[name].append(((time.perf_counter() - wall) / steps, (time.process_time() - cpu) / steps))
    return {
        name: (statistics.median(w for w, _ in values), statistics.median(c for _, c in values))
        for name, values in times.items()
    }


def vector_runners(num_envs: int) -> tuple[dict[str, Callable[[], Any]], list[Any], str]:
    """One step of: N single envs in a loop, make_vec sync, make_vec async (Gymnasium's
    defaults, or shared memory off if those fail); the envs to close; a note."""
    singles = [gym.make(ENV_ID, **LONG) for _ in range(num_envs)]
    for env in singles:
        env.reset(seed=0, options={"task": TASK})
    sync = gym.make_vec(ENV_ID, num_envs=num_envs, vectorization_mode="sync", **LONG)
    note = "defaults"
    try:
        asynchronous = gym.make_vec(ENV_ID, num_envs=num_envs, vectorization_mode="async", **LONG)
        asynchronous.reset(seed=0, options={"task": TASK})
    except Exception as error:  # noqa: BLE001  (reported in the table)
        note = f"defaults fail ({type(error).__name__}); shared_memory=False"
        asynchronous = gym.make_vec(
            ENV_ID, num_envs=num_envs, vectorization_mode="async", vector_kwargs={"shared_memory": False}, **LONG
        )
        asynchronous.reset(seed=0, options={"task": TASK})
    sync.reset(seed=0, options={"task": TASK})
    actions = (ACTION,) * num_envs

    def step_singles() -> None:
        for env in singles:
            env.step(ACTION)

    runners = {
        "singles": step_singles,
        "sync": lambda: sync.step(actions),
        "async": lambda: asynchronous.step(actions),
    }
    return runners, [*singles, sync, asynchronous], note


def copy_costs(observation: dict[str, Any], repeat: int = 200) -> tuple[float, float, int]:
    """Seconds per deepcopy and per pickle round trip of `observation`; its JSON size."""
    deep = timed(lambda: [copy.deepcopy(observation) for _ in range(repeat)]) / repeat
    pickled = timed(lambda: [pickle.loads(pickle.dumps(observation)) for _ in range(repeat)]) / repeat
    return deep, pickled, len(json.dumps(observation))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", type=int, default=4)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--episodes", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=16, help="alternating rounds of 5 vector steps")
    args = parser.parse_args()

    first, last, observation = step_costs(args.steps, args.episodes)
    bare_first, bare_last, _ = step_costs(args.steps, args.episodes, OVERHEAD_ACTION)
    runners, envs, note = vector_runners(args.envs)
    per_step = interleaved(runners, steps=5, rounds=args.rounds)
    for env in envs:
        env.close()
    (singles, _), (sync, sync_cpu), (asynchronous, async_cpu) = per_step["singles"], per_step["sync"], per_step["async"]
    deep, pickled, size = copy_costs(observation)

    rows = [
        (f"step at call {args.steps} vs call 2", last, first, "a read call"),
        (f"step at call {args.steps} vs call 2, env overhead only", bare_last, bare_first, "an unknown tool"),
        (f"make_vec sync ({args.envs} envs) vs {args.envs} single envs", sync, singles, "per step of all envs"),
        ("make_vec async vs sync", asynchronous, sync, note),
        ("main-process CPU per step: async vs sync", async_cpu, sync_cpu, "what async leaves to the workers"),
        (f"deepcopy of the observation at call {args.steps} vs that step", deep, last, f"{size:,} JSON chars"),
        ("pickle round trip of that observation vs that step", pickled, last, ""),
    ]
    print(f"{'measure':<58} {'ms':>9} {'baseline ms':>12} {'ratio':>7}  note")
    for name, value, baseline, extra in rows:
        print(f"{name:<58} {value * 1e3:>9.3f} {baseline * 1e3:>12.3f} {value / baseline:>7.2f}  {extra}")


if __name__ == "__main__":
    main()
