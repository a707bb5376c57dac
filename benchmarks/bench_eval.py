"""Evaluation speed on fresh tasks: scoring a task seen for the first time, and oracle episodes
per second, each against a baseline measured in the same run on the same tasks.

The baseline is how scoring got a task's ground truth before tasks recorded it: executing it
on a new toolbox (new engines, empty statement caches) the first time the task is scored.
The other truth sources: `legacy file`, a task without the recorded `bound` values (executed
once on a warm toolbox, `GroundTruths`), and `recorded`, read from the task, never executed.

- score: `score(task, oracle trajectory)` of a task its truth source has not seen. Goal:
  recorded under 3 ms.
- oracle evaluation: the oracle agent through one env per server set and truth source (as the
  eval runner keeps them, warmed up on other tasks first) over synthesized tasks played once
  each, then a second time. Goal: 100+ episodes per second with recorded truth.
- where an oracle episode's time goes (recorded truth): env reset, the agent, the tool calls,
  the state diff, the reward, and the rest of the env's steps; and the tools that take most.

Times are this process's CPU time (`time.process_time`: one core, and other work on the
machine does not count), and the truth sources take turns task by task, so that a change in
the machine's load hits them alike.

Usage: python benchmarks/bench_eval.py [--tasks 200] [--warmup 60] [--seed 0]
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from time import process_time
from typing import Any

from mcpgym.baselines.agents import OracleAgent
from mcpgym.envs import make_env
from mcpgym.envs.mcp_env import McpEnv
from mcpgym.servers.toolbox import Toolbox
from mcpgym.tasks.trajectory import Trajectory
from mcpgym.rewards import Rewarder, score
from mcpgym.rewards.ground_truth import GroundTruth, GroundTruths, TruthSource, executed_ground_truth
from mcpgym.tasks.execute import execute_task
from mcpgym.tasks.loader import synthesized_tasks
from mcpgym.tasks.model import Task
from mcpgym.text_table import text_table

GOAL_SCORE_MS, GOAL_EPISODES_PER_SECOND = 3.0, 100.0
TOP_TOOLS = 10
BASELINE = "baseline: executed on a new toolbox"


def executed_on_new_toolbox(task: Task) -> GroundTruth:
    """The baseline truth source: execute the ground truth on a toolbox of its own."""
    return executed_ground_truth(task, execute_task(task))


def without_recorded_truth(task: Task) -> Task:
    """The task as a file without the recorded `bound` values holds it."""
    turns = [
        turn.model_copy(update={"calls": [call.model_copy(update={"bound": None}) for call in turn.calls]})
        for turn in task.turns
    ]
    return task.model_copy(update={"turns": turns})


SOURCES: dict[str, tuple[Callable[[], TruthSource], Callable[[Task], Task]]] = {
    BASELINE: (lambda: executed_on_new_toolbox, without_recorded_truth),
    "legacy file: executed once, warm toolbox": (GroundTruths, without_recorded_truth),
    "recorded in the task": (GroundTruths, lambda task: task),
}


def play(env: McpEnv, task: Task) -> float:
    """One oracle episode; its reward."""
    observation, _ = env.reset(options={"task": task})
    agent = OracleAgent()
    agent.reset(task, observation)
    reward, done = 0.0, False
    while not done:
        observation, reward, terminated, truncated, _ = env.step(agent.act(observation))
        done = terminated or truncated
    return reward


class Envs:
    """One env per server set, created on first use, all with the same reward function."""

    def __init__(self, reward: Any = "dense") -> None:
        self.reward = reward
        self.envs: dict[tuple[str, ...], McpEnv] = {}

    def __getitem__(self, task: Task) -> McpEnv:
        key = tuple(task.servers)
        if key not in self.envs:
            self.envs[key] = make_env(task.servers, reward=self.reward)
        return self.envs[key]

    def close(self) -> None:
        for env in self.envs.values():
            env.close()


def oracle_trajectories(tasks: Sequence[Task]) -> list[Trajectory]:
    envs = Envs()
    out = []
    for task in tasks:
        play(envs[task], task)
        out.append(envs[task].trajectory.model_copy(deep=True))
    envs.close()
    return out


def score_times(tasks: Sequence[Task], warmup: Sequence[Task]) -> dict[str, list[float]]:
    """CPU seconds to score each task's oracle trajectory the first time, per truth source."""
    trajectories = oracle_trajectories([*warmup, *tasks])
    sources = {name: (make(), prepare) for name, (make, prepare) in SOURCES.items()}
    for task, trajectory in zip(warmup, trajectories):
        for source, prepare in sources.values():
            score(prepare(task), trajectory, truths=source)
    times: dict[str, list[float]] = {name: [] for name in sources}
    for task, trajectory in zip(tasks, trajectories[len(warmup) :]):
        for name, (source, prepare) in sources.items():
            prepared = prepare(task)
            start = process_time()
            breakdown = score(prepared, trajectory, truths=source)
            times[name].append(process_time() - start)
            assert breakdown.reward == 1.0, (name, task.id, breakdown)
    for source, _ in sources.values():
        if isinstance(source, GroundTruths):
            source.close()
    return times


def evaluation_rates(tasks: Sequence[Task], warmup: Sequence[Task]) -> dict[str, tuple[float, float]]:
    """Oracle episodes per CPU second over `tasks` per truth source, on envs warmed up on
    `warmup`: the first time each task is played, and the second."""
    modes = {name: (Envs(Rewarder("dense", truths=make())), prepare) for name, (make, prepare) in SOURCES.items()}
    for task in warmup:
        for envs, prepare in modes.values():
            play(envs[task], prepare(task))
    seconds: dict[str, list[float]] = {name: [0.0, 0.0] for name in modes}
    for round_ in range(2):
        for task in tasks:
            for name, (envs, prepare) in modes.items():
                prepared = prepare(task)
                start = process_time()
                reward = play(envs[prepared], prepared)
                seconds[name][round_] += process_time() - start
                assert reward == 1.0, (name, task.id)
    for envs, _ in modes.values():
        envs.close()
    return {name: (len(tasks) / fresh, len(tasks) / again) for name, (fresh, again) in seconds.items()}


class Stopwatch:
    """CPU seconds spent per named part, accumulated, and per tool call."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.tools: dict[str, list[float]] = defaultdict(list)

    @contextmanager
    def part(self, name: str) -> Iterator[None]:
        start = process_time()
        try:
            yield
        finally:
            self.seconds[name] += process_time() - start

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            with self.part(name):
                return fn(*args, **kwargs)

        return timed

    def time_tools(self, toolbox: Toolbox) -> None:
        """Time `toolbox.call` as `tool calls (kernel)`, and per `server.tool` in `tools`."""
        call = toolbox.call

        def timed(name: str, arguments: Any, shown: Any = None) -> Any:
            start = process_time()
            try:
                return call(name, arguments, shown)
            finally:
                seconds = process_time() - start
                self.seconds["tool calls (kernel)"] += seconds
                self.tools[".".join(toolbox.route(name) or (name,))].append(seconds)

        toolbox.call = timed  # type: ignore[method-assign]

    def clear(self) -> None:
        self.seconds.clear()
        self.tools.clear()


def episode_parts(
    tasks: Sequence[Task], warmup: Sequence[Task]
) -> tuple[dict[str, float], float, dict[str, list[float]]]:
    """CPU seconds per episode spent in each part of an oracle episode (recorded truth), the
    total per episode, and the seconds of every call per tool."""
    watch = Stopwatch()
    envs = Envs()
    for task in [*warmup, *tasks]:
        if tuple(task.servers) not in envs.envs:
            env = envs[task]
            watch.time_tools(env.toolbox)
            env.toolbox.diff = watch.wrap("state diff (kernel)", env.toolbox.diff)  # type: ignore[method-assign]
            env.toolbox.reset = watch.wrap("world reset (kernel)", env.toolbox.reset)  # type: ignore[method-assign]
            env.reward_fn = watch.wrap("reward", env.reward_fn)
    for task in warmup:
        play(envs[task], task)
    watch.clear()
    start = process_time()
    for task in tasks:
        env = envs[task]
        with watch.part("env reset"):
            observation, _ = env.reset(options={"task": task})
        agent = OracleAgent()
        with watch.part("oracle agent"):
            agent.reset(task, observation)
        done = False
        while not done:
            with watch.part("oracle agent"):
                action = agent.act(observation)
            with watch.part("env step"):
                observation, _, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
    total = process_time() - start
    envs.close()
    parts = dict(watch.seconds)
    parts["env reset: the rest"] = parts.pop("env reset") - parts.get("world reset (kernel)", 0.0)
    kernel_and_reward = ("tool calls (kernel)", "state diff (kernel)", "reward")
    parts["env step: the rest"] = parts.pop("env step") - sum(parts.get(k, 0.0) for k in kernel_and_reward)
    return {k: v / len(tasks) for k, v in parts.items()}, total / len(tasks), dict(watch.tools)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=200, help="fresh tasks measured per truth source")
    parser.add_argument("--warmup", type=int, default=60, help="tasks played first to warm envs and toolboxes")
    parser.add_argument("--seed", type=int, default=0, help="which synthesized tasks, in which order")
    args = parser.parse_args()
    pool = synthesized_tasks()
    random.Random(args.seed).shuffle(pool)
    warmup, tasks = pool[: args.warmup], pool[args.warmup : args.warmup + args.tasks]
    print(f"{len(tasks)} synthesized tasks, each new to every truth source ({len(warmup)} others to warm up)")
    print("times: CPU time of this process\n")

    times = score_times(tasks, warmup)
    base = statistics.mean(times[BASELINE])
    rows = [["scoring a fresh task", "mean ms", "median ms", "p95 ms", "speed-up vs baseline (mean)"]]
    for name, seconds in times.items():
        ordered = sorted(seconds)
        rows.append([
            name,
            f"{1000 * statistics.mean(seconds):.2f}",
            f"{1000 * statistics.median(seconds):.2f}",
            f"{1000 * ordered[int(0.95 * (len(ordered) - 1))]:.2f}",
            f"{base / statistics.mean(seconds):.1f}x",
        ])
    print(text_table(rows))
    print(f"goal: recorded under {GOAL_SCORE_MS:.0f} ms\n")

    rates = evaluation_rates(tasks, warmup)
    base_rate = rates[BASELINE][0]
    rows = [["oracle evaluation, one core", "fresh tasks: episodes/s", "vs baseline", "played again: episodes/s"]]
    for name, (fresh, again) in rates.items():
        rows.append([name, f"{fresh:.1f}", f"{fresh / base_rate:.2f}x", f"{again:.1f}"])
    print(text_table(rows))
    print(f"goal: recorded {GOAL_EPISODES_PER_SECOND:.0f}+ episodes/s on fresh tasks\n")

    parts, total, tools = episode_parts(tasks, warmup)
    rows = [["oracle episode, fresh task (recorded truth)", "ms/episode", "share"]]
    rows += [[name, f"{1000 * s:.2f}", f"{s / total:.0%}"] for name, s in sorted(parts.items(), key=lambda kv: -kv[1])]
    rows.append(["total", f"{1000 * total:.2f}", "100%"])
    print(text_table(rows))
    print()
    rows = [["tools taking most of those episodes", "calls", "ms/call", "ms/episode", "share"]]
    for name, seconds in sorted(tools.items(), key=lambda kv: -sum(kv[1]))[:TOP_TOOLS]:
        per_episode = sum(seconds) / len(tasks)
        rows.append([
            name,
            str(len(seconds)),
            f"{1000 * statistics.mean(seconds):.2f}",
            f"{1000 * per_episode:.2f}",
            f"{per_episode / total:.0%}",
        ])
    print(text_table(rows))


if __name__ == "__main__":
    main()
