"""Scoring an external MCP agent: a command run once per user request against an episode of
the episode host (`mcpgym.envs.mcp_host`), served from this process on 127.0.0.1.

For each (task, episode) the runner creates an episode, runs the command template with its
placeholders filled (each value quoted for the shell):
`{mcp_url}` the episode's MCP endpoint, `{request}` the user's current request, `{episode_id}`,
`{task_id}`, `{turn}` (0-based), `{instructions}` (the env's system prompt: the servers'
policies); the same values are in the environment as `MCPGYM_MCP_URL`, `MCPGYM_REQUEST`,
`MCPGYM_EPISODE_ID`, `MCPGYM_TASK_ID`, `MCPGYM_TURN`. When the command exits without having
answered the request through `finish`, its stdout is the answer (`POST .../reply`); a task
with several requests runs the command again for the next one. Then the runner reads the
env's result and appends the episode to the run folder in the records `evaluate` writes, with
each command run (`agent_runs`: exit status, seconds, stdout and stderr, cut). A command that
cannot start, times out or exits non-zero ends the episode with `error` set, scored as it
stands; like a model error, a resumed run plays it again.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import string
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mcpgym.baselines.evaluate import GIVE_UP_AFTER, SHOWN_ERRORS, EvalReport, _progress, write_summary
from mcpgym.baselines.metrics import task_family
from mcpgym.baselines.run_folder import RunFolder, RunManifest, setting, tasks_digest
from mcpgym.envs.mcp_host import MAX_TEXT, HostSettings, hosted
from mcpgym.tasks.model import Task
from mcpgym.tasks.trajectory import INVALID_STATUSES

PLACEHOLDERS = ("mcp_url", "request", "episode_id", "task_id", "turn", "instructions")
MAX_TEMPLATE_CHARS = 8192
MAX_OUTPUT_CHARS = 20_000
"""Characters of a run's stdout and of its stderr kept in the record (the end of each)."""
API_TIMEOUT = 120.0
LOOPBACK = urllib.request.build_opener(urllib.request.ProxyHandler({}))
"""Requests to the in-process host never go through a proxy set in the environment."""


class ExternalAgentError(RuntimeError):
    """The episode host refused a request of the runner (its status and message)."""


class CommandTemplate(BaseModel):
    """A shell command line with `{placeholder}` fields (see `PLACEHOLDERS`); `{{`/`}}` are braces."""

    model_config = ConfigDict(frozen=True)

    text: str = Field(min_length=1, max_length=MAX_TEMPLATE_CHARS)

    def fields(self) -> list[str]:
        """The placeholders used; `ValueError` for a malformed template or an unknown field."""
        try:
            parsed = list(string.Formatter().parse(self.text))
        except ValueError as err:
            raise ValueError(f"the agent command template is malformed: {err}") from None
        names = []
        for _, name, spec, conversion in parsed:
            if name is None:
                continue
            if name not in PLACEHOLDERS or spec or conversion:
                shown = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
                raise ValueError(
                    f"unknown placeholder {shown[:80]} in the agent command; placeholders: "
                    + ", ".join("{" + p + "}" for p in PLACEHOLDERS) + " (write {{ and }} for braces)"
                )
            names.append(name)
        return names

    def fill(self, values: dict[str, str]) -> str:
        """The command line with every placeholder replaced by its value, quoted for the shell."""
        self.fields()
        out = []
        for literal, name, _, _ in string.Formatter().parse(self.text):
            out.append(literal)
            if name is not None:
                out.append(shlex.quote(values[name]))
        return "".join(out)


class AgentRun(BaseModel):
    """One run of the agent command, as the episode record keeps it."""

    turn: int
    returncode: int | None
    """None when the command did not start or was killed at the timeout."""
    seconds: float
    timed_out: bool = False
    stdout: str = ""
    stderr: str = ""
    error: str | None = None


def cut(text: str, limit: int = MAX_OUTPUT_CHARS) -> str:
    """The last `limit` characters of `text`, with a note of what was left out."""
    return text if len(text) <= limit else f"[{len(text) - limit} characters cut]..." + text[-limit:]


def run_command(command: str, environment: dict[str, str], timeout: float, turn: int) -> AgentRun:
    """Run a shell command line in a new process group; the whole group is killed at the timeout."""
    start = time.monotonic()
    try:
        process = subprocess.Popen(
            command, shell=True, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=environment, start_new_session=True,
        )
    except OSError as err:
        return AgentRun(turn=turn, returncode=None, seconds=0.0, error=f"agent_failed: cannot run the command: {err}")
    try:
        out, err_out = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with_group(process.pid, signal.SIGKILL)
        out, err_out = process.communicate()
        return AgentRun(
            turn=turn, returncode=None, seconds=time.monotonic() - start, timed_out=True,
            stdout=cut(out.decode("utf-8", "replace")), stderr=cut(err_out.decode("utf-8", "replace")),
            error=f"agent_timeout: the agent command ran past {timeout:g} s and was killed",
        )
    finally:
        if process.poll() is None:
            with_group(process.pid, signal.SIGKILL)
            process.wait()
    stdout, stderr = out.decode("utf-8", "replace"), err_out.decode("utf-8", "replace")
    failed = None
    if process.returncode != 0:
        last = stderr.strip().splitlines()[-1:] or ["no message"]
        failed = f"agent_failed: the agent command exited with status {process.returncode}: {last[0][:300]}"
    return AgentRun(turn=turn, returncode=process.returncode, seconds=time.monotonic() - start,
                    stdout=cut(stdout), stderr=cut(stderr), error=failed)


def with_group(pid: int, sig: signal.Signals) -> None:
    """Send `sig` to the process group led by `pid` (started with `start_new_session`)."""
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def api(base: str, method: str, path: str, body: Any = None) -> Any:
    """A JSON request to the episode host; `ExternalAgentError` with its message on a non-2xx."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, method=method, data=data, headers={"Content-Type": "application/json"})
    try:
        with LOOPBACK.open(request, timeout=API_TIMEOUT) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as err:
        try:
            message = json.loads(err.read()).get("error", "")
        except (ValueError, AttributeError):
            message = ""
        raise ExternalAgentError(f"{method} {path} answered {err.code}: {message}") from None


def play_external(base: str, template: CommandTemplate, task: Task, seed: int, episode: int, timeout: float) -> dict[str, Any]:
    """One episode of the agent command on `task`, as an eval record."""
    created = api(base, "POST", "/episodes", {"task": task.id, "seed": seed})
    key = created["episode_id"]
    runs: list[AgentRun] = []
    error: str | None = None
    try:
        for _ in range(len(task.turns)):
            progress = api(base, "GET", f"/episodes/{key}")
            if progress["done"]:
                break
            values = {
                "mcp_url": base + created["mcp_endpoint"], "request": progress["request"], "episode_id": key,
                "task_id": task.id, "turn": str(progress["turn"]), "instructions": created["instructions"],
            }
            environment = {**os.environ, **{f"MCPGYM_{name.upper()}": values[name] for name in PLACEHOLDERS if name != "instructions"}}
            run = run_command(template.fill(values), environment, timeout, progress["turn"])
            runs.append(run)
            if run.error is not None:
                error = run.error
                break
            after = api(base, "GET", f"/episodes/{key}")
            if not after["done"] and after["turn"] == progress["turn"]:
                api(base, "POST", f"/episodes/{key}/reply", {"answer": run.stdout.strip()[-MAX_TEXT:]})
        result = api(base, "GET", f"/episodes/{key}/result")
    finally:
        try:
            api(base, "DELETE", f"/episodes/{key}")
        except (ExternalAgentError, OSError):
            pass
    trajectory = result["trajectory"]
    return {
        "episode": episode,
        "task_id": task.id,
        "servers": task.servers,
        "family": task_family(task.id, task.tags),
        "ground_truth_calls": len(task.calls),
        "seed": seed,
        "reward": float(result["reward"]),
        "reward_breakdown": result["reward_breakdown"],
        "terminated": result["terminated"],
        "truncated": result["truncated"],
        "error": error,
        "steps": result["steps"],
        "calls": len(trajectory["calls"]),
        "invalid_calls": sum(1 for c in trajectory["calls"] if c["status"] in INVALID_STATUSES),
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "messages": result["messages"],
        "trajectory": trajectory,
        "agent_runs": [run.model_dump() for run in runs],
    }


def evaluate_external(
    tasks: Sequence[Task],
    command: str,
    out: Path,
    episodes_per_task: int = 1,
    concurrency: int = 1,
    seed: int = 0,
    timeout: float = 600.0,
    settings: HostSettings | None = None,
    progress: bool = True,
    overwrite: bool = False,
) -> EvalReport:
    """Play every (task, episode) not yet finished in `out` with the agent `command`, then
    write and return the summary; the run folder is the one `evaluate` writes (resumable,
    guarded by its manifest). `ValueError` for a bad template or setting; `RunFolderError`
    when the folder is locked or holds another run."""
    template = CommandTemplate(text=command)
    template.fields()
    if concurrency < 1 or episodes_per_task < 1 or not timeout > 0:
        raise ValueError("concurrency and episodes_per_task must be at least 1, and timeout above 0")
    settings = settings or HostSettings(max_sessions=max(concurrency, 1) + 1)
    manifest = RunManifest(
        agent={"kind": "command", "command": command, "timeout": timeout},
        tasks_digest=tasks_digest(tasks),
        tasks=len(tasks),
        episodes_per_task=episodes_per_task,
        seed=seed,
        env={key: setting(getattr(settings, key)) for key in ("max_calls", "max_steps", "reward", "max_result_chars")},
    )
    with RunFolder(out, manifest, overwrite=overwrite) as folder, hosted(settings, tasks) as base:
        done = folder.done()
        jobs = [(task, e) for task in tasks for e in range(episodes_per_task) if (task.id, e) not in done]
        report = EvalReport(summary={}, resumed=len(done))
        bar = _progress(total=len(jobs) + len(done), initial=len(done), enabled=progress)
        pending = iter(jobs)
        live: dict[Future[dict[str, Any]], tuple[Task, int]] = {}
        with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="agent-command") as workers:

            def start_next() -> bool:
                job = next(pending, None)
                if job is None:
                    return False
                task, e = job
                live[workers.submit(play_external, base, template, task, seed + e, e, timeout)] = job
                return True

            try:
                while len(live) < concurrency and start_next():
                    pass
                while live:
                    ready, _ = wait(live, return_when=FIRST_COMPLETED)
                    for future in ready:
                        task, e = live.pop(future)
                        record = future.result()
                        folder.append(record)
                        report.ran += 1
                        report.answered += int(record["error"] is None)
                        if record["error"] is not None:
                            if len(report.errors) < SHOWN_ERRORS and record["error"] not in report.errors:
                                bar.write(f"agent error in {task.id} (episode {e}): {record['error']}", file=sys.stderr)
                            report.errors[record["error"]] += 1
                        bar.update(1)
                    if report.answered == 0 and report.ran >= max(GIVE_UP_AFTER, concurrency):
                        report.stopped_early = next(pending, None) is not None
                        pending = iter(())
                    while len(live) < concurrency and start_next():
                        pass
            finally:
                bar.close()
        records = sorted(folder.records, key=lambda r: (r["task_id"], r["episode"]))
        report.summary = write_summary(records, out)
    return report


__all__ = ["AgentRun", "CommandTemplate", "ExternalAgentError", "PLACEHOLDERS",
           "evaluate_external", "play_external", "run_command"]
