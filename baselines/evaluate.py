"""Running an agent over a task set: resumable, with the model calls in parallel.

The environments (reset, step, score) all run on the calling thread: that work holds the
GIL, so threads would only take turns at it. What runs in parallel are the turns of agents
whose `act` waits on a remote model (`remote = True`, such as `ChatAgent`): up to
`concurrency` episodes are in flight, each with its own environment, and the calling thread
steps whichever episode's model answered. Agents that compute their turns in this process
(oracle, random, a local policy) play one episode at a time.

The output folder is a `RunFolder`: locked while the run writes, resumed only by a run with
the same settings, every finished episode appended to `trajectories.jsonl` at once, and
episodes that ended in a model error played again by the next run.
"""

from __future__ import annotations

import json
import sys
from collections import Counter, deque
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpgym.baselines.agents import Agent
from mcpgym.baselines.chat_agent import ModelError
from mcpgym.baselines.metrics import markdown_table, summarize_run
from mcpgym.baselines.run_folder import SUMMARY, TRAJECTORIES, RunFolder, RunManifest, setting, tasks_digest
from mcpgym.envs import make_env
from mcpgym.envs.mcp_env import McpEnv
from mcpgym.tasks.model import Task

GIVE_UP_AFTER = 4
"""A run stops starting episodes once this many (or `concurrency`, if more) have ended and
none of them got a single answer from the model: the endpoint is down or refuses us."""
SHOWN_ERRORS = 5
"""Distinct model errors printed as they happen; the rest are only counted."""


class EpisodeRun:
    """One episode in flight: its environment steps on the evaluator's thread, its agent's
    turns may be computed elsewhere."""

    def __init__(self, env: McpEnv, agent: Agent, task: Task, seed: int, episode: int) -> None:
        self.env, self.agent, self.task, self.seed, self.episode = env, agent, task, seed, episode
        self.observation, _ = env.reset(seed=seed, options={"task": task})
        agent.reset(task, self.observation)
        self.remote = bool(getattr(agent, "remote", False))
        self.reward = 0.0
        self.info: dict[str, Any] = {}
        self.terminated = self.truncated = False
        self.error: str | None = None

    @property
    def finished(self) -> bool:
        return self.terminated or self.truncated or self.error is not None

    def step(self, action: Any) -> None:
        """Apply the agent's turn."""
        self.observation, self.reward, self.terminated, self.truncated, self.info = self.env.step(action)

    def fail(self, error: str) -> None:
        """End the episode where the model gave up, scored as it stands."""
        self.error = error
        breakdown = self.env.score()
        self.info = {"reward_breakdown": breakdown.model_dump()}
        self.reward = breakdown.reward

    def record(self) -> dict[str, Any]:
        """The finished episode as a JSON-ready record."""
        trajectory = self.env.trajectory
        usage = getattr(self.agent, "usage", None)
        return {
            "episode": self.episode,
            "task_id": self.task.id,
            "servers": self.task.servers,
            "ground_truth_calls": len(self.task.calls),
            "seed": self.seed,
            "reward": float(self.reward),
            "reward_breakdown": self.info.get("reward_breakdown"),
            "terminated": self.terminated,
            "truncated": self.truncated,
            "error": self.error,
            "steps": trajectory.steps,
            "calls": len(trajectory.calls),
            "invalid_calls": sum(1 for c in trajectory.calls if c.status in ("malformed", "rejected")),
            "prompt_tokens": getattr(usage, "prompt_tokens", 0),
            "completion_tokens": getattr(usage, "completion_tokens", 0),
            "messages": self.observation["messages"],
            "trajectory": trajectory.model_dump(),
        }


def play(env: McpEnv, agent: Agent, task: Task, seed: int, episode: int = 0) -> dict[str, Any]:
    """One episode, start to end, on this thread; a model that fails ends it with `error` set."""
    run = EpisodeRun(env, agent, task, seed, episode)
    while not run.finished:
        try:
            action = agent.act(run.observation)
        except ModelError as err:
            run.fail(str(err))
        else:
            run.step(action)
    return run.record()


@dataclass
class EvalReport:
    """How a call of `evaluate` went: the summary of every episode, and what this call did."""

    summary: dict[str, Any]
    resumed: int
    """Finished episodes found in the folder and kept."""
    ran: int = 0
    """Episodes played by this call."""
    answered: int = 0
    """Of those, the episodes in which the agent answered at least once."""
    errors: Counter[str] = field(default_factory=Counter)
    """Model errors of the episodes played, by message."""
    stopped_early: bool = False
    """No episode got an answer, so the run stopped before playing them all."""


class EnvPool:
    """Environments by server set, reused across episodes; one per episode in flight."""

    def __init__(self, env_kwargs: dict[str, Any]) -> None:
        self.env_kwargs = env_kwargs
        self.free: dict[tuple[str, ...], list[McpEnv]] = {}
        self.all: list[McpEnv] = []

    def take(self, servers: Sequence[str]) -> McpEnv:
        free = self.free.setdefault(tuple(servers), [])
        if free:
            return free.pop()
        env = make_env(list(servers), **self.env_kwargs)
        self.all.append(env)
        return env

    def give_back(self, env: McpEnv, servers: Sequence[str]) -> None:
        self.free[tuple(servers)].append(env)

    def close(self) -> None:
        for env in self.all:
            env.close()


def evaluate(
    tasks: Sequence[Task],
    make_agent: Callable[[int], Agent],
    out: Path,
    episodes_per_task: int = 1,
    concurrency: int = 4,
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
    progress: bool = True,
    agent_settings: dict[str, Any] | None = None,
    overwrite: bool = False,
) -> EvalReport:
    """Play every (task, episode) not yet finished in `out`, then write and return the summary.

    `agent_settings` identify the agent (kind, model, endpoint, sampling): with the tasks,
    seeds and env settings they make the run's manifest, which a resumed run must match.
    Raises `RunFolderError` when the folder is locked by another run or holds another run.
    """
    if concurrency < 1 or episodes_per_task < 1:
        raise ValueError("concurrency and episodes_per_task must be at least 1")
    env_kwargs = env_kwargs or {}
    manifest = RunManifest(
        agent={key: setting(value) for key, value in (agent_settings or {}).items()},
        tasks_digest=tasks_digest(tasks),
        tasks=len(tasks),
        episodes_per_task=episodes_per_task,
        seed=seed,
        env={key: setting(value) for key, value in env_kwargs.items()},
    )
    with RunFolder(out, manifest, overwrite=overwrite) as folder:
        done = folder.done()
        jobs = deque((task, e) for task in tasks for e in range(episodes_per_task) if (task.id, e) not in done)
        report = EvalReport(summary={}, resumed=len(done))
        bar = _progress(total=len(jobs) + len(done), initial=len(done), enabled=progress)
        pool = EnvPool(env_kwargs)
        model_calls = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="model-call")
        live: dict[Future[Any], EpisodeRun] = {}
        width = concurrency

        def turn(run: EpisodeRun) -> Future[Any]:
            if run.remote:
                return model_calls.submit(run.agent.act, run.observation)
            return _inline(run.agent.act, run.observation)

        def finish(run: EpisodeRun) -> None:
            folder.append(run.record())
            pool.give_back(run.env, run.task.servers)
            report.ran += 1
            report.answered += int(run.env.trajectory.steps > 0)
            if run.error is not None:
                if len(report.errors) < SHOWN_ERRORS and run.error not in report.errors:
                    bar.write(f"model error in {run.task.id} (episode {run.episode}): {run.error}", file=sys.stderr)
                report.errors[run.error] += 1
            bar.update(1)

        try:
            while jobs or live:
                while jobs and len(live) < width:
                    task, episode = jobs.popleft()
                    run = EpisodeRun(pool.take(task.servers), make_agent(seed + episode), task, seed + episode, episode)
                    width = width if run.remote else 1
                    live[turn(run)] = run
                ready, _ = wait(live, return_when=FIRST_COMPLETED)
                for future in ready:
                    run = live.pop(future)
                    try:
                        action = future.result()
                    except ModelError as err:
                        run.fail(str(err))
                    else:
                        run.step(action)
                    if run.finished:
                        finish(run)
                    else:
                        live[turn(run)] = run
                if jobs and report.answered == 0 and report.ran >= max(GIVE_UP_AFTER, concurrency):
                    report.stopped_early = True
                    jobs.clear()
        finally:
            model_calls.shutdown(wait=False, cancel_futures=True)
            bar.close()
            pool.close()
        records = sorted(folder.records, key=lambda r: (r["task_id"], r["episode"]))
        report.summary = write_summary(records, out)
    return report


def _inline(act: Callable[[Any], Any], observation: Any) -> Future[Any]:
    """`act(observation)` computed now, as a finished future (a model error kept in it)."""
    future: Future[Any] = Future()
    try:
        future.set_result(act(observation))
    except ModelError as err:
        future.set_exception(err)
    return future


def write_summary(records: list[dict[str, Any]], out: Path, plots: bool = True) -> dict[str, Any]:
    """Summarize episode records into `out`: summary.json, summary.md and (with `plots`) PNG charts."""
    out.mkdir(parents=True, exist_ok=True)
    summary = summarize_run(records)
    (out / SUMMARY).write_text(json.dumps(summary, indent=2), encoding="utf-8")
    (out / "summary.md").write_text(markdown_table(summary) + "\n", encoding="utf-8")
    if plots:
        plot_summary(summary, out)
    return summary


def _progress(total: int, initial: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, disable=not enabled, desc="episodes", unit="ep")


def plot_summary(summary: dict[str, Any], out: Path) -> list[Path]:
    """Bar charts of mean reward (with pass@1.0) by server set and by difficulty."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    for key, title in (("by_server", "server"), ("by_difficulty", "difficulty")):
        groups = summary[key]
        names = list(groups)
        fig, ax = plt.subplots(figsize=(max(5.0, 1.1 * len(names) + 2), 3.8))
        xs = range(len(names))
        means = [groups[n]["mean_reward"] for n in names]
        passes = [groups[n]["pass_rate"]["1.0"] for n in names]
        ax.bar([x - 0.2 for x in xs], means, width=0.4, label="mean reward")
        ax.bar([x + 0.2 for x in xs], passes, width=0.4, label="pass (reward 1.0)")
        for x, m in enumerate(means):
            ax.text(x - 0.2, m + 0.02, f"{m:.2f}", ha="center", fontsize=8)
        labels = [f"{n}\n(n={groups[n]['episodes']})" for n in names]
        ax.set_xticks(list(xs), labels, rotation=20, ha="right", fontsize=8)
        ax.set_ylim(0, 1.1)
        ax.set_ylabel("score")
        ax.set_title(f"Reward by {title}")
        ax.legend(fontsize=8, loc="upper right")
        fig.tight_layout()
        path = out / f"reward_by_{title}.png"
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    return written


def compare(a: dict[str, Any], b: dict[str, Any]) -> str:
    """A Markdown table of B minus A: overall metrics and mean reward per server set."""
    lines = ["| metric | A | B | B - A |", "|---|---|---|---|"]

    def line(name: str, x: float | None, y: float | None) -> None:
        if x is None or y is None:
            lines.append(f"| {name} | {x if x is not None else '-'} | {y if y is not None else '-'} | - |")
        else:
            lines.append(f"| {name} | {x:.3f} | {y:.3f} | {y - x:+.3f} |")

    oa, ob = a["overall"], b["overall"]
    line("mean reward", oa["mean_reward"], ob["mean_reward"])
    for t in oa["pass_rate"]:
        line(f"pass@{t}", oa["pass_rate"][t], ob["pass_rate"].get(t))
    line("finish rate", oa["finish_rate"], ob["finish_rate"])
    line("calls / episode", oa["calls_per_episode"], ob["calls_per_episode"])
    line("invalid-call rate", oa["invalid_call_rate"], ob["invalid_call_rate"])
    for name in sorted(set(oa["components"]) | set(ob["components"])):
        line(f"component {name}", oa["components"].get(name), ob["components"].get(name))
    for server in sorted(set(a["by_server"]) | set(b["by_server"])):
        line(f"server {server}", a["by_server"].get(server, {}).get("mean_reward"), b["by_server"].get(server, {}).get("mean_reward"))
    return "\n".join(lines)


__all__ = ["SUMMARY", "TRAJECTORIES", "EvalReport", "EpisodeRun", "compare", "evaluate", "markdown_table", "play", "write_summary"]
