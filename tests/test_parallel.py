"""Episodes in other processes and Ray actors: the same records as in this process, runs that
resume after an interruption, a dead worker named in a clear error, agents rebuilt from specs,
and the trainer's envs in worker processes."""

from __future__ import annotations

import argparse
import json
import os
import pickle
import signal
import time
from collections import deque
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from mcpgym.baselines.agent_spec import AgentSpec
from mcpgym.baselines.agents import NoOpAgent, OracleAgent, RandomAgent
from mcpgym.baselines.evaluate import evaluate
from mcpgym.baselines.parallel import Job, Local, Processes, WorkerError, rollouts_for, shard_jobs
from mcpgym.baselines.run_folder import LOCK, TRAJECTORIES
from mcpgym.rewards import score
from mcpgym.tasks.loader import shipped_tasks
from mcpgym.tasks.model import Task
from mcpgym.tasks.trajectory import Trajectory
from pydantic import ValidationError

from mcpgym.cli import agent_spec, build_parser

CRASHING_TASK = "crm-mary-cherry-q3-vs-q2"


def few_tasks() -> list[Task]:
    """Six shipped tasks over two server sets (few worlds to build in each worker)."""
    return [t for t in shipped_tasks() if t.servers == ["zendesk"]][:3] + [t for t in shipped_tasks() if t.servers == ["crm"]][:3]


def records(out: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (out / TRAJECTORIES).read_text().splitlines()]
    return sorted(rows, key=lambda r: (r["task_id"], r["episode"]))


def run(out: Path, kind: str, **kwargs: Any) -> list[dict[str, Any]]:
    evaluate(few_tasks(), AgentSpec(kind=kind), out, episodes_per_task=2, seed=3, progress=False, **kwargs)
    return records(out)


@pytest.fixture(scope="module")
def in_process(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    root = tmp_path_factory.mktemp("in-process")
    return {kind: run(root / kind, kind) for kind in ("oracle", "random")}


def crash_in_one_task(task: Task, trajectory: Trajectory) -> Any:
    """A reward function that kills its process on one task (a worker that dies mid-run)."""
    if task.id == CRASHING_TASK:
        os.kill(os.getpid(), signal.SIGKILL)
    return score(task, trajectory)


def workers_alive() -> list[psutil.Process]:
    """Child processes other than multiprocessing's own helpers (resource tracker, fork server)."""
    alive = []
    for child in psutil.Process().children(recursive=True):
        try:
            if child.status() != psutil.STATUS_ZOMBIE and not any(
                helper in " ".join(child.cmdline()) for helper in ("resource_tracker", "forkserver")
            ):
                alive.append(child)
        except psutil.NoSuchProcess:
            continue
    return alive


def no_child_processes_left() -> bool:
    deadline = time.monotonic() + 10
    while workers_alive():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


# --- the process pool


@pytest.mark.parametrize("kind", ["oracle", "random"])
def test_two_worker_processes_give_the_records_of_one_process(
    tmp_path: Path, in_process: dict[str, list[dict[str, Any]]], kind: str
) -> None:
    here = in_process[kind]
    there = run(tmp_path / "pool", kind, workers=2)
    assert [(r["task_id"], r["episode"]) for r in there] == [(r["task_id"], r["episode"]) for r in here]
    assert [r["reward"] for r in there] == [r["reward"] for r in here]
    assert there == here, "every field of every record, trajectories included, is the same"
    if kind == "oracle":
        assert all(r["reward"] == 1.0 for r in there)
    else:
        assert len({r["reward"] for r in there}) > 1, "random episodes differ by seed: a real comparison"
    summary = json.loads((tmp_path / "pool" / "summary.json").read_text())
    assert summary["overall"]["episodes"] == len(here)
    assert no_child_processes_left()


class StopAfter:
    """A backend that passes on `n` records of another, then is interrupted as by Ctrl-C."""

    def __init__(self, inner: Processes, n: int) -> None:
        self.inner, self.n = inner, n

    def check(self, make_agent: Any, env_kwargs: dict[str, Any]) -> None:
        self.inner.check(make_agent, env_kwargs)

    def play(self, *args: Any) -> Generator[dict[str, Any], None, None]:
        for count, record in enumerate(self.inner.play(*args)):
            if count == self.n:
                raise KeyboardInterrupt
            yield record


def test_a_run_interrupted_in_the_pool_resumes_to_the_same_records(
    tmp_path: Path, in_process: dict[str, list[dict[str, Any]]]
) -> None:
    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        evaluate(few_tasks(), AgentSpec(kind="random"), out, episodes_per_task=2, seed=3, progress=False,
                 backend=StopAfter(Processes(2), 5))
    assert len(records(out)) == 5, "the episodes that ended are on disk"
    assert no_child_processes_left(), "an interrupted run stops its workers"
    report = evaluate(few_tasks(), AgentSpec(kind="random"), out, episodes_per_task=2, seed=3, progress=False, workers=2)
    assert (report.resumed, report.ran) == (5, 7)
    assert records(out) == in_process["random"]


def test_a_worker_that_dies_is_an_error_naming_it(tmp_path: Path) -> None:
    out = tmp_path / "run"
    started = time.monotonic()
    with pytest.raises(WorkerError) as caught:
        evaluate(few_tasks(), AgentSpec(kind="oracle"), out, progress=False, workers=2,
                 env_kwargs={"reward": crash_in_one_task})
    message = str(caught.value)
    assert "worker process" in message and "signal SIGKILL" in message and "crm" in message, message
    assert "run again to resume" in message
    assert time.monotonic() - started < 120, "no hang"
    assert CRASHING_TASK not in {r["task_id"] for r in records(out)}
    assert no_child_processes_left()
    with (out / LOCK).open("a+b") as handle:
        import fcntl

        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)  # released: the next run can resume


def test_what_cannot_travel_to_workers_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="needs the agent as an AgentSpec"):
        evaluate(few_tasks(), lambda seed: OracleAgent(), tmp_path / "a", progress=False, workers=2)
    with pytest.raises(ValueError, match="env setting reward=.* cannot be sent"):
        evaluate(few_tasks(), AgentSpec(), tmp_path / "b", progress=False, workers=2,
                 env_kwargs={"reward": lambda task, trajectory: 0.0})
    for bad in ({"workers": 0}, {"workers": 10_000}, {"backend": "threads", "workers": 2}, {"backend": Processes(2), "workers": 2}):
        with pytest.raises(ValueError):
            evaluate(few_tasks(), AgentSpec(), tmp_path / "c", progress=False, **bad)
    assert not any(tmp_path.iterdir()), "no run folder was made"


def test_shards_cover_every_job_once_balanced_and_by_server_set() -> None:
    tasks = shipped_tasks()
    jobs: list[Job] = [(task, e) for task in tasks for e in range(2)]
    for n in (1, 2, 3, 7, 500):
        shards = shard_jobs(jobs, n)
        flat = [(task.id, e) for shard in shards for task, e in shard]
        assert sorted(flat) == sorted((task.id, e) for task, e in jobs)
        assert len(shards) == min(n, len(jobs))
        sizes = [len(s) for s in shards]
        assert max(sizes) - min(sizes) <= -(-len(jobs) // len(shards)), sizes
        assert shard_jobs(jobs, n) == shards, "same jobs, same shards"
    two = shard_jobs(jobs, 2)
    split = [s for s in {tuple(t.servers) for t, _ in jobs} if all(any(tuple(t.servers) == s for t, _ in shard) for shard in two)]
    assert len(split) <= 1, "at most one server set is cut between two shards"
    assert shard_jobs([], 4) == []


def test_one_worker_plays_here() -> None:
    assert isinstance(rollouts_for(1, "processes", AgentSpec(), {}), Local)
    assert isinstance(rollouts_for(3, "processes", AgentSpec(), {}), Processes)


# --- agent specs


def cli_args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["eval", "--out", "x", *argv])


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--agent", "random"],
        ["--agent", "noop"],
        ["--agent", "openai", "--base-url", "http://user:pw@127.0.0.1:9/v1?k=1", "--model", "m", "--temperature", "0.5"],
        ["--agent", "openai-text", "--base-url", "https://example.org/v1", "--model", "m", "--max-tokens", "7"],
    ],
)
def test_a_spec_from_the_command_line_records_what_the_cli_records(argv: list[str]) -> None:
    args = cli_args(*argv, "--api-key", "secret-key")
    spec = agent_spec(args)
    settings = spec.settings()
    assert settings["kind"] == args.agent
    if args.agent.startswith("openai"):
        assert (settings["model"], settings["temperature"], settings["max_tokens"]) == (args.model, args.temperature, args.max_tokens)
        assert settings["base_url"] in ("http://127.0.0.1:9/v1", "https://example.org/v1")  # no credentials or query
    else:
        assert set(settings) == {"kind"}
    assert "secret-key" not in json.dumps(spec.settings()) and "secret-key" not in repr(spec)
    assert pickle.loads(pickle.dumps(spec)) == spec


def test_a_spec_builds_fresh_agents_of_its_kind() -> None:
    assert isinstance(AgentSpec(kind="oracle").build(0), OracleAgent)
    assert isinstance(AgentSpec(kind="noop").build(0), NoOpAgent)
    factory = AgentSpec(kind="random").factory()
    first, second = factory(5), factory(6)
    assert isinstance(first, RandomAgent) and (first.seed, second.seed) == (5, 6)
    chat = AgentSpec(kind="openai", base_url="http://127.0.0.1:9/v1", model="m", api_key="k", retries=0).factory()
    a, b = chat(1), chat(2)
    assert a.client is b.client and (a.seed, b.seed) == (1, 2) and a.mode == "tools", "one HTTP client per factory"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"kind": "openai"}, "needs base_url and model"),
        ({"kind": "openai-text", "base_url": "http://h/v1"}, "needs base_url and model"),
        ({"kind": "openai", "base_url": "ftp://h/v1", "model": "m"}, "http"),
        ({"kind": "openai", "base_url": "http://h:99999/v1", "model": "m"}, "not a URL"),
        ({"kind": "policy"}, "needs model_path"),
        ({"kind": "gpt"}, "kind"),
        ({"kind": "oracle", "temperature": 3}, "temperature"),
        ({"kind": "oracle", "model": "x" * 600}, "model"),
        ({"kind": "oracle", "lambda": "x"}, "lambda"),
    ],
)
def test_a_bad_spec_is_refused_with_its_reason(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        AgentSpec(**fields)


# --- Ray (slow: a local Ray takes 15 to 20 s to start on a loaded 2-core machine)


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    ray = pytest.importorskip("ray", reason="the Ray backend needs ray: pip install 'mcpgym[ray]'")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["oracle", "random"])
def test_two_ray_actors_give_the_records_of_one_process(
    tmp_path: Path, in_process: dict[str, list[dict[str, Any]]], local_ray: Any, kind: str
) -> None:
    there = run(tmp_path / "ray", kind, workers=2, backend="ray")
    assert [r["reward"] for r in there] == [r["reward"] for r in in_process[kind]]
    assert there == in_process[kind]
    assert local_ray.is_initialized(), "a Ray session the caller started is left running"


@pytest.mark.slow
def test_a_ray_actor_that_dies_is_an_error_naming_it(tmp_path: Path, local_ray: Any) -> None:
    with pytest.raises(WorkerError, match=r"Ray actor \d of 2 died while playing .*crm"):
        evaluate(few_tasks(), AgentSpec(kind="oracle"), tmp_path / "run", progress=False, workers=2, backend="ray",
                 env_kwargs={"reward": crash_in_one_task})


def test_the_local_backend_is_the_default_loop() -> None:
    tasks = few_tasks()[:2]
    played = list(Local().play(deque((t, 0) for t in tasks), AgentSpec(), {}, 0, 4))
    assert sorted(r["task_id"] for r in played) == sorted(t.id for t in tasks)
    assert all(r["reward"] == 1.0 for r in played)


# --- the trainer's envs in worker processes


def oracle_episode(env: Any, task: Task) -> list[Any]:
    """Everything the env answers over an oracle episode, then its trajectory and scores."""
    observation, _ = env.reset(seed=2, options={"task": task})
    seen: list[Any] = [observation]
    agent = OracleAgent()
    agent.reset(task, observation)
    done = False
    while not done:
        observation, reward, terminated, truncated, info = env.step(agent.act(observation))
        seen.append((observation, reward, terminated, truncated, info))
        done = terminated or truncated
    seen.append(env.unwrapped.trajectory.model_dump())
    env.unwrapped.trajectory.finished = False  # as the trainer marks an episode it cut
    seen.append(env.unwrapped.score().model_dump())
    return seen


def test_a_remote_env_answers_as_the_env_does() -> None:
    from mcpgym.baselines.remote_envs import RemoteEnvs
    from mcpgym.envs import make_env

    tasks = few_tasks()[:3]
    local = make_env(["zendesk"])
    remote = RemoteEnvs(["zendesk"], {}, 1, workers=1)
    try:
        for task in tasks:  # one proxy over several episodes, as the trainer reuses its envs
            here, there = oracle_episode(local, task), oracle_episode(remote.envs[0], task)
            assert json.dumps(there, sort_keys=True, default=str) == json.dumps(here, sort_keys=True, default=str)
            assert here[-2]["finished"] and here[-1]["reward"] == 1.0 and len(here) > 3
    finally:
        remote.close()


@pytest.mark.slow
def test_envs_in_worker_processes_play_the_episodes_of_local_envs(tmp_path: Path) -> None:
    pytest.importorskip("transformers", reason="the trainer needs the train extra: pip install 'mcpgym[train]'")
    from mcpgym.baselines.remote_envs import RemoteEnvs
    from mcpgym.baselines.train.chat import ChatFormat
    from mcpgym.baselines.train.episodes import play
    from mcpgym.baselines.train.generation import Sampling
    from mcpgym.baselines.train.policy import load_tokenizer
    from mcpgym.envs import make_env
    from train_support import ScriptedGenerator, build_tiny, status_tasks, zendesk_ticket_ids

    tasks = status_tasks(zendesk_ticket_ids(3))
    chat = ChatFormat(load_tokenizer(build_tiny(tmp_path / "model", tasks)))
    script = [
        "Let me look.<tool_call>{\"name\": \"get_ticket\", \"arguments\": {\"ticket_id\": 1000}}</tool_call>",
        "<tool_call>{\"name\": \"get_ticket\", \"arguments\": {\"ticket_id\": \"x\"}}</tool_call>",
        "The status is open.",
    ]
    env_kwargs = {"tasks": tasks, "tools": ["get_ticket", "get_user"], "max_turns": 4}
    jobs, groups = tasks + tasks[:1], [0, 1, 2, 0]
    local = [make_env(["zendesk"], **env_kwargs) for _ in jobs]
    remote = RemoteEnvs(["zendesk"], env_kwargs, len(jobs), workers=2)
    try:
        # the second round reuses the envs, as the trainer's steps do, and its token budget cuts
        # episodes short (scored in the workers with the trajectory marked unfinished)
        for max_total_tokens in (100_000, 400):
            here = play(local, jobs, groups, ScriptedGenerator(chat, script), chat, Sampling(), 64, max_total_tokens, seed=1)
            there = play(remote.envs, jobs, groups, ScriptedGenerator(chat, script), chat, Sampling(), 64, max_total_tokens, seed=1)
            assert [e.record() for e in there] == [e.record() for e in here]
            assert [(e.tokens.ids, e.tokens.mask, e.overlong) for e in there] == [(e.tokens.ids, e.tokens.mask, e.overlong) for e in here]
            assert any(e.overlong for e in here) == (max_total_tokens == 400)
            assert all(e.terminated and e.calls == 2 for e in here) or max_total_tokens == 400
    finally:
        remote.close()
    assert no_child_processes_left()


def test_a_dead_env_worker_is_named(tmp_path: Path) -> None:
    from mcpgym.baselines.remote_envs import RemoteEnvs

    [task] = few_tasks()[:1]
    remote = RemoteEnvs(task.servers, {}, 2, workers=2)
    try:
        remote.envs[0].reset(seed=0, options={"task": task})
        victim = remote.links[1]
        os.kill(victim.process.pid, signal.SIGKILL)  # type: ignore[attr-defined]
        with pytest.raises(WorkerError, match=r"env worker 1 \(process \d+\) died"):
            remote.envs[1].reset(seed=0, options={"task": task})
    finally:
        remote.close()
