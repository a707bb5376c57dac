"""Running an agent over a task set: resumable, with the model calls in parallel.

The environments (reset, step, score) all run on the calling thread: that work holds the
GIL, so threads would only take turns at it. What runs in parallel are the turns of agents
whose `act` waits on a remote model (`remote = True`, such as `ChatAgent`): up to
`concurrency` episodes are in flight, each with its own environment, and the calling thread
steps whichever episode's model answered. Agents that compute their turns in this process
(oracle, random, a local policy) play one episode at a time. `workers` plays the same loop
(`run_episodes`) in other processes or Ray actors (`mcpgym.baselines.parallel`, docs/scale.md).

The output folder is a `RunFolder`: locked while the run writes, resumed only by a run with
the same settings, every finished episode appended to `trajectories.jsonl` at once, and
episodes that ended in a model error played again by the next run.
"""

from __future__ import annotations

import json
import sys
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpgym.baselines.agent_spec import AgentSpec
from mcpgym.baselines.agents import Agent
from mcpgym.baselines.chat_agent import ModelError
from mcpgym.baselines.metrics import markdown_table, pass_hat_ks, summarize_run, task_family
from mcpgym.baselines.run_folder import (
    REPORT, SUMMARY, TRAJECTORIES, RunFolder, RunFolderError, RunManifest, read_manifest, read_records, run_label,
    setting, tasks_digest,
)
from mcpgym.envs import make_env
from mcpgym.envs.mcp_env import McpEnv
from mcpgym.tasks.model import Task
from mcpgym.tasks.trajectory import INVALID_STATUSES

if TYPE_CHECKING:
    from mcpgym.baselines.parallel import Rollouts

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
            "family": task_family(self.task.id, self.task.tags),
            "ground_truth_calls": len(self.task.calls),
            "seed": self.seed,
            "reward": float(self.reward),
            "reward_breakdown": self.info.get("reward_breakdown"),
            "terminated": self.terminated,
            "truncated": self.truncated,
            "error": self.error,
            "steps": trajectory.steps,
            "calls": len(trajectory.calls),
            "invalid_calls": sum(1 for c in trajectory.calls if c.status in INVALID_STATUSES),
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
        env = make_env(list(servers), **{"tasks": [], **self.env_kwargs})  # episodes name their task at reset
        self.all.append(env)
        return env

    def give_back(self, env: McpEnv, servers: Sequence[str]) -> None:
        self.free[tuple(servers)].append(env)

    def close(self) -> None:
        for env in self.all:
            env.close()


def evaluate(
    tasks: Sequence[Task],
    make_agent: Callable[[int], Agent] | AgentSpec,
    out: Path,
    episodes_per_task: int = 1,
    concurrency: int = 4,
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
    progress: bool = True,
    agent_settings: dict[str, Any] | None = None,
    overwrite: bool = False,
    workers: int = 1,
    backend: str | Rollouts = "processes",
) -> EvalReport:
    """Play every (task, episode) not yet finished in `out`, then write and return the summary.

    `agent_settings` identify the agent (kind, model, endpoint, sampling): with the tasks,
    seeds and env settings they make the run's manifest, which a resumed run must match
    (default: `make_agent.settings()` when it is an `AgentSpec`). `workers` above 1 plays the
    episodes in that many processes (`backend="processes"`) or Ray actors (`backend="ray"`),
    or pass a `Rollouts` from `mcpgym.baselines.parallel` as `backend`; these need an
    `AgentSpec` (docs/scale.md). Records are written here as they arrive, whatever the backend.
    Raises `RunFolderError` when the folder is locked by another run or holds another run.
    """
    from mcpgym.baselines.parallel import rollouts_for

    if concurrency < 1 or episodes_per_task < 1:
        raise ValueError("concurrency and episodes_per_task must be at least 1")
    env_kwargs = env_kwargs or {}
    rollouts = rollouts_for(workers, backend, make_agent, env_kwargs)
    if agent_settings is None and isinstance(make_agent, AgentSpec):
        agent_settings = make_agent.settings()
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
        todo = len(jobs)

        def finish(record: dict[str, Any]) -> None:
            folder.append(record)
            report.ran += 1
            report.answered += int(record["steps"] > 0)
            error = record["error"]
            if error is not None:
                if len(report.errors) < SHOWN_ERRORS and error not in report.errors:
                    bar.write(f"model error in {record['task_id']} (episode {record['episode']}): {error}", file=sys.stderr)
                report.errors[error] += 1
            bar.update(1)

        stream = rollouts.play(jobs, make_agent, env_kwargs, seed, concurrency)
        try:
            for record in stream:
                finish(record)
                if report.ran < todo and report.answered == 0 and report.ran >= max(GIVE_UP_AFTER, concurrency):
                    report.stopped_early = True
                    break
        finally:
            stream.close()
            bar.close()
        records = sorted(folder.records, key=lambda r: (r["task_id"], r["episode"]))
        report.summary = write_summary(records, out)
    return report


def run_episodes(
    jobs: deque[tuple[Task, int]], make_agent: Callable[[int], Agent], pool: EnvPool, concurrency: int, seed: int
) -> Iterator[dict[str, Any]]:
    """Play `jobs` (task, episode), popped from the left, and yield each episode's record as it
    ends. Envs come from `pool` and go back to it. Agents with `remote = True` overlap their
    turns, up to `concurrency` episodes at once; the env work stays on this thread."""
    model_calls = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="model-call")
    live: dict[Future[Any], EpisodeRun] = {}
    width = concurrency

    def turn(run: EpisodeRun) -> Future[Any]:
        if run.remote:
            return model_calls.submit(run.agent.act, run.observation)
        return _inline(run.agent.act, run.observation)

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
                    record = run.record()
                    pool.give_back(run.env, run.task.servers)
                    yield record
                else:
                    live[turn(run)] = run
    finally:
        model_calls.shutdown(wait=False, cancel_futures=True)


def _inline(act: Callable[[Any], Any], observation: Any) -> Future[Any]:
    """`act(observation)` computed now, as a finished future (a model error kept in it)."""
    future: Future[Any] = Future()
    try:
        future.set_result(act(observation))
    except ModelError as err:
        future.set_exception(err)
    return future


def write_summary(records: list[dict[str, Any]], out: Path, plots: bool = True, report: bool = True) -> dict[str, Any]:
    """Summarize episode records into `out`: summary.json, summary.md, (with `plots`) PNG charts
    and (with `report`) report.html; plots and report name the run by `out` and its manifest."""
    out.mkdir(parents=True, exist_ok=True)
    summary = summarize_run(records)
    manifest = read_manifest(out)
    (out / SUMMARY).write_text(json.dumps(summary, indent=2), encoding="utf-8")
    (out / "summary.md").write_text(f"{run_label(out, manifest)}\n\n{markdown_table(summary)}\n", encoding="utf-8")
    if plots:
        plot_summary(summary, out, title=run_label(out, manifest))
    if report:
        from mcpgym.baselines.report_html import write_report

        write_report(records, summary, out, manifest)
    return summary


def write_report_from_folder(out: Path) -> Path:
    """(Re)write `out/report.html` from the run's records as they stand (a running run's so far).

    Raises `RunFolderError` when the folder holds no run or a damaged record."""
    from mcpgym.baselines.report_html import write_report

    records = read_records(out)
    if not records and not (out / TRAJECTORIES).exists():
        raise RunFolderError(f"{out} has no {TRAJECTORIES}: not the folder of an eval run")
    records.sort(key=lambda r: (str(r["task_id"]), r["episode"]))
    try:
        summary = summarize_run(records)
    except (KeyError, TypeError, ValueError) as err:
        raise RunFolderError(
            f"{out / TRAJECTORIES} holds records mcpgym eval did not write ({type(err).__name__}: {err})"
        ) from None
    return write_report(records, summary, out, read_manifest(out))


def _progress(total: int, initial: int, enabled: bool) -> Any:
    from mcpgym.progress import progress_bar

    return progress_bar(total, initial=initial, desc="episodes", unit="ep", enabled=enabled)


def plot_summary(summary: dict[str, Any], out: Path, title: str | None = None) -> list[Path]:
    """Bar charts of mean reward (with pass@1.0) by server set and by difficulty, titled with
    the run (`title`, by default the folder's name and the agent of its manifest)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    run = title if title is not None else run_label(out, read_manifest(out))
    written = []
    for key, group, axis in (("by_server", "server", "server set"), ("by_difficulty", "difficulty", "difficulty")):
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
        ax.set_title(f"Reward by {axis}\n{run}", fontsize=10)
        ax.legend(fontsize=8, loc="upper right")
        fig.tight_layout()
        path = out / f"reward_by_{group}.png"
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    return written


@dataclass
class RunView:
    """A finished (or running) run as `compare` reads it: its label, manifest, summary and records."""

    label: str
    manifest: RunManifest | None
    summary: dict[str, Any]
    records: list[dict[str, Any]] | None
    """None when the folder has no trajectories.jsonl (a folder the trainer wrote)."""

    @classmethod
    def read(cls, folder: Path) -> RunView:
        """Read a run folder; raises `RunFolderError` when it holds no summary with episodes or a damaged record."""
        path = folder / SUMMARY
        try:
            summary = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise RunFolderError(f"{folder} has no {SUMMARY}: not the folder of an eval run") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise RunFolderError(f"cannot read {path}: {err}") from None
        overall = summary.get("overall") if isinstance(summary, dict) else None
        if not isinstance(overall, dict) or not overall.get("episodes"):
            raise RunFolderError(f"{path} holds no episodes to compare")
        manifest = read_manifest(folder)
        records = read_records(folder) if (folder / TRAJECTORIES).exists() else None
        return cls(run_label(folder, manifest), manifest, summary, records)


@dataclass
class Comparison:
    """`compare`'s answer: the Markdown text and the warnings it holds (for stderr too)."""

    text: str
    warnings: list[str]


def compare(a: RunView, b: RunView) -> Comparison:
    """Run B minus run A as Markdown tables, columns named by run.

    When the runs do not cover the same episodes (task sets, episodes per task) or were made
    with other env settings, the text says so first; when both runs' records show different
    episodes played, it also compares them over the (task, episode) pairs both played, which
    is the like-for-like figure."""
    warnings = _differences(a, b)
    lines = [f"A = {a.label}", f"B = {b.label}", ""]
    lines += [f"> warning: {w}" for w in warnings]
    if warnings:
        lines.append("")
    common = _common(a, b)
    lines.append("### All episodes of each run" if common is not None else "### All episodes")
    lines.append(_compare_table(a.label, b.label, a.summary, b.summary))
    if common is not None:
        pairs, sa, sb = common
        lines += ["", f"### The {_count(pairs, 'episode')} both runs played ({_count(sa['overall'].get('tasks', 0), 'task')}): "
                  "like for like"]
        lines.append(_compare_table(a.label, b.label, sa, sb) if pairs else "no episode in common: nothing to compare")
    return Comparison("\n".join(lines), warnings)


def _differences(a: RunView, b: RunView) -> list[str]:
    """What makes the two runs' numbers not directly comparable."""
    warnings = []
    if a.manifest is None or b.manifest is None:
        missing = " and ".join(v.label for v in (a, b) if v.manifest is None)
        warnings.append(f"no run.json in {missing}: the task sets and settings cannot be checked")
    else:
        ma, mb = a.manifest, b.manifest
        if ma.tasks_digest != mb.tasks_digest:
            warnings.append(f"different task sets (A {_count(ma.tasks, 'task')}, B {_count(mb.tasks, 'task')}; "
                            "the task digests differ)")
        if ma.episodes_per_task != mb.episodes_per_task:
            warnings.append(f"different episodes per task (A {ma.episodes_per_task}, B {mb.episodes_per_task}): "
                            "pass^k for k above the smaller is only in one run")
        if ma.env != mb.env:
            changed = sorted(k for k in set(ma.env) | set(mb.env) if ma.env.get(k) != mb.env.get(k))
            warnings.append("different env settings (" + ", ".join(
                f"{k}: A {ma.env.get(k)!r}, B {mb.env.get(k)!r}" for k in changed[:10]) + ")")
        if ma.seed != mb.seed:
            warnings.append(f"different seeds (A {ma.seed}, B {mb.seed})")
    if a.records is not None and b.records is not None:
        ta, tb = {str(r["task_id"]) for r in a.records}, {str(r["task_id"]) for r in b.records}
        if ta != tb:
            warnings.append(f"different tasks played: {len(ta & tb)} in common, {len(ta - tb)} only in A, "
                            f"{len(tb - ta)} only in B")
        pa = {(str(r["task_id"]), r["episode"]) for r in a.records}
        pb = {(str(r["task_id"]), r["episode"]) for r in b.records}
        if ta == tb and pa != pb:
            warnings.append(f"different episodes played: {len(pa & pb)} in common, {len(pa - pb)} only in A, "
                            f"{len(pb - pa)} only in B")
    return warnings


def _common(a: RunView, b: RunView) -> tuple[int, dict[str, Any], dict[str, Any]] | None:
    """The episodes both runs played and each run's summary over them; None without records
    or when the runs played the same episodes."""
    if a.records is None or b.records is None:
        return None
    pa = {(str(r["task_id"]), r["episode"]) for r in a.records}
    pb = {(str(r["task_id"]), r["episode"]) for r in b.records}
    if pa == pb:
        return None
    both = pa & pb
    if not both:
        return 0, {"overall": {}}, {"overall": {}}

    def over(records: list[dict[str, Any]]) -> dict[str, Any]:
        return summarize_run([r for r in records if (str(r["task_id"]), r["episode"]) in both])

    return len(both), over(a.records), over(b.records)


def _compare_table(label_a: str, label_b: str, a: dict[str, Any], b: dict[str, Any]) -> str:
    """B minus A, row by row: overall metrics, pass rates, pass^k, components, mean reward per server set."""
    lines = [f"| metric | A: {_cell(label_a)} | B: {_cell(label_b)} | B - A |", "|---|---|---|---|"]

    def line(name: str, x: float | None, y: float | None) -> None:
        if x is None or y is None:
            lines.append(f"| {name} | {'-' if x is None else f'{x:.3f}'} | {'-' if y is None else f'{y:.3f}'} | - |")
        else:
            lines.append(f"| {name} | {x:.3f} | {y:.3f} | {y - x:+.3f} |")

    oa, ob = a["overall"], b["overall"]
    lines.append(f"| episodes | {oa['episodes']} | {ob['episodes']} | {ob['episodes'] - oa['episodes']:+d} |")
    line("mean reward", oa["mean_reward"], ob["mean_reward"])
    for t in sorted(set(oa["pass_rate"]) | set(ob["pass_rate"]), key=float):
        line(f"pass@{t}", oa["pass_rate"].get(t), ob["pass_rate"].get(t))
    ks = sorted({int(k) for k in pass_hat_ks(a)} | {int(k) for k in pass_hat_ks(b)})
    for k in ks:
        line(f"pass^{k}", oa["pass_hat_k"].get(str(k)), ob["pass_hat_k"].get(str(k)))
    line("finish rate", oa["finish_rate"], ob["finish_rate"])
    line("calls / episode", oa["calls_per_episode"], ob["calls_per_episode"])
    line("invalid-call rate", oa["invalid_call_rate"], ob["invalid_call_rate"])
    for name in sorted(set(oa["components"]) | set(ob["components"])):
        line(f"component {_cell(name)}", oa["components"].get(name), ob["components"].get(name))
    for server in sorted(set(a["by_server"]) | set(b["by_server"])):
        line(f"server {_cell(server)}", a["by_server"].get(server, {}).get("mean_reward"),
             b["by_server"].get(server, {}).get("mean_reward"))
    return "\n".join(lines)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _cell(text: str) -> str:
    """Text made safe for one Markdown table cell."""
    return " ".join(str(text).replace("|", "/").split())[:80]


__all__ = [
    "REPORT", "SUMMARY", "TRAJECTORIES", "Comparison", "EnvPool", "EvalReport", "EpisodeRun", "RunView", "compare", "evaluate",
    "markdown_table", "play", "run_episodes", "write_report_from_folder", "write_summary",
]
