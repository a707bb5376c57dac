"""Running an agent over a task set: episodes in parallel, written as they finish, resumable.

Each worker thread keeps its own environments (one per server set), so rollouts never share
a world; the agents' model calls are what takes time, and the threads overlap them. Every
finished episode is appended to `trajectories.jsonl` at once; a rerun with the same output
folder skips the episodes already there, so a crash costs only the episodes in flight.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from mcpgym.baselines.agents import Agent
from mcpgym.baselines.chat_agent import ModelError
from mcpgym.baselines.metrics import markdown_table, summarize_run
from mcpgym.envs import make_env
from mcpgym.envs.mcp_env import McpEnv
from mcpgym.tasks.model import Task

TRAJECTORIES = "trajectories.jsonl"
SUMMARY = "summary.json"


class EnvPool:
    """One environment per (thread, server set), created on first use."""

    def __init__(self, env_kwargs: dict[str, Any]) -> None:
        self.env_kwargs = env_kwargs
        self.local = threading.local()
        self.all: list[McpEnv] = []
        self.lock = threading.Lock()

    def get(self, servers: Sequence[str]) -> McpEnv:
        envs: dict[tuple[str, ...], McpEnv] = self.local.__dict__.setdefault("envs", {})
        key = tuple(servers)
        if key not in envs:
            envs[key] = make_env(list(servers), **self.env_kwargs)
            with self.lock:
                self.all.append(envs[key])
        return envs[key]

    def close(self) -> None:
        for env in self.all:
            env.close()


def play(env: McpEnv, agent: Agent, task: Task, seed: int) -> dict[str, Any]:
    """One episode as a JSON-ready record; a model that fails ends it with `error` set."""
    observation, _ = env.reset(seed=seed, options={"task": task})
    agent.reset(task, observation)
    terminated = truncated = False
    info: dict[str, Any] = {}
    error = None
    reward = 0.0
    while not (terminated or truncated):
        try:
            action = agent.act(observation)
        except ModelError as err:
            error = str(err)
            break
        observation, reward, terminated, truncated, info = env.step(action)
    trajectory = env.trajectory
    usage = getattr(agent, "usage", None)
    if error is not None:
        breakdown = env.score()
        info = {"reward_breakdown": breakdown.model_dump()}
        reward = breakdown.reward
    return {
        "task_id": task.id,
        "servers": task.servers,
        "ground_truth_calls": len(task.calls),
        "seed": seed,
        "reward": float(reward),
        "reward_breakdown": info.get("reward_breakdown"),
        "terminated": terminated,
        "truncated": truncated,
        "error": error,
        "steps": trajectory.steps,
        "calls": len(trajectory.calls),
        "invalid_calls": sum(1 for c in trajectory.calls if c.status in ("malformed", "rejected")),
        "prompt_tokens": getattr(usage, "prompt_tokens", 0),
        "completion_tokens": getattr(usage, "completion_tokens", 0),
        "messages": observation["messages"],
        "trajectory": trajectory.model_dump(),
    }


def load_records(path: Path) -> list[dict[str, Any]]:
    """The complete records of a trajectories file; a line cut short by a crash is dropped
    (and the file rewritten without it)."""
    if not path.exists():
        return []
    records, broken = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            broken = True
    if broken:
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return records


def evaluate(
    tasks: Sequence[Task],
    make_agent: Callable[[int], Agent],
    out: Path,
    episodes_per_task: int = 1,
    concurrency: int = 4,
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Run every (task, episode) not yet in `out`, then write and return the summary."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / TRAJECTORIES
    records = load_records(path)
    done = {(r["task_id"], r["episode"]) for r in records}
    jobs = [(task, e) for task in tasks for e in range(episodes_per_task) if (task.id, e) not in done]
    pool = EnvPool(env_kwargs or {})

    def run(task: Task, episode: int) -> dict[str, Any]:
        episode_seed = seed + episode
        record = play(pool.get(task.servers), make_agent(episode_seed), task, episode_seed)
        return {"episode": episode, **record}

    bar = _progress(total=len(jobs) + len(done), initial=len(done), enabled=progress)
    try:
        with path.open("a", encoding="utf-8") as sink, ThreadPoolExecutor(max_workers=concurrency) as executor:
            futures = [executor.submit(run, task, episode) for task, episode in jobs]
            for future in as_completed(futures):
                record = future.result()
                sink.write(json.dumps(record) + "\n")
                sink.flush()
                records.append(record)
                bar.update(1)
    finally:
        bar.close()
        pool.close()
    wanted = {(t.id, e) for t in tasks for e in range(episodes_per_task)}
    records = sorted((r for r in records if (r["task_id"], r["episode"]) in wanted), key=lambda r: (r["task_id"], r["episode"]))
    return write_summary(records, out)


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


__all__ = ["SUMMARY", "TRAJECTORIES", "compare", "evaluate", "markdown_table", "play", "write_summary"]
