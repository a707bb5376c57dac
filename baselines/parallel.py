"""Where evaluation episodes are played: this process, a pool of processes, or Ray actors.

A `Rollouts` turns (task, episode) jobs into episode records, yielded as episodes end; the
caller (`evaluate`) writes them to its run folder, so resuming, the manifest and the summary
do not depend on where episodes ran. Every backend plays its episodes with the same loop
(`evaluate.run_episodes`) on envs it keeps for the whole run, and an episode's record depends
only on its task and seed, so every backend gives the same records.

- `Local()`: this thread (what `evaluate` does with `workers=1`).
- `Processes(n)`: `n` processes of a `ProcessPoolExecutor` ("spawn" by default: safe in a
  process that runs threads). The jobs are cut into shards of whole server sets, about two
  per worker, so a worker builds the envs of few server sets; each worker keeps its envs and
  its agent factory across shards, and sends every record back as the episode ends.
- `RayActors(n, address=...)`: `n` Ray actors, one shard each, records streamed back by a
  generator method. Ray is imported only here (`pip install 'mcpgym[ray]'`).

Agents are rebuilt in each worker from an `AgentSpec`; a remote (API) agent keeps its own
`concurrency` there. A worker that dies ends the run with a `WorkerError` that names it, the
shard it held and how it ended; the records that arrived before are kept by the run folder.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import pickle
import queue as queues
import signal
from collections import deque
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeAlias

from mcpgym.baselines.agent_spec import AgentBuildError, AgentSpec
from mcpgym.baselines.agents import Agent
from mcpgym.baselines.evaluate import EnvPool, run_episodes
from mcpgym.tasks.model import Task

Job: TypeAlias = tuple[Task, int]
"""A task and the episode number to play (its seed is the run's seed plus that number)."""
MakeAgent: TypeAlias = Callable[[int], Agent] | AgentSpec
MAX_WORKERS = 256
POLL_SECONDS = 0.2
"""How often the parent looks at its workers while no record arrives."""


class WorkerError(RuntimeError):
    """A worker process or actor died or failed; the message names it and what it was playing."""


class Rollouts(Protocol):
    """Plays jobs somewhere and yields each episode's record as it ends."""

    def check(self, make_agent: MakeAgent, env_kwargs: dict[str, Any]) -> None:
        """Raise `ValueError` when the agent or the env settings cannot be played this way."""
        ...

    def play(
        self, jobs: deque[Job], make_agent: MakeAgent, env_kwargs: dict[str, Any], seed: int, concurrency: int
    ) -> Generator[dict[str, Any], None, None]:
        """Records of `jobs` in the order they end. Closing the generator stops the work."""
        ...


class Local:
    """Episodes on this thread; jobs are popped from the deque as they start. An `AgentSpec`
    is built by `check`, before the run folder is touched, so an agent that cannot be made
    here fails the run before it starts."""

    def __init__(self) -> None:
        self.factory: Callable[[int], Agent] | None = None

    def check(self, make_agent: MakeAgent, env_kwargs: dict[str, Any]) -> None:
        self.factory = make_agent.factory() if isinstance(make_agent, AgentSpec) else make_agent

    def play(
        self, jobs: deque[Job], make_agent: MakeAgent, env_kwargs: dict[str, Any], seed: int, concurrency: int
    ) -> Generator[dict[str, Any], None, None]:
        if self.factory is None:
            self.check(make_agent, env_kwargs)
        assert self.factory is not None
        pool = EnvPool(env_kwargs)
        try:
            yield from run_episodes(jobs, self.factory, pool, concurrency, seed)
        finally:
            pool.close()


def shard_jobs(jobs: Sequence[Job], shards: int) -> list[list[Job]]:
    """`jobs` in at most `shards` lists of about equal length, each server set's jobs kept
    together where the lengths allow (so a worker builds few envs); same input, same shards."""
    if not jobs:
        return []
    shards = max(1, min(shards, len(jobs)))
    target = math.ceil(len(jobs) / shards)
    groups: dict[tuple[str, ...], list[Job]] = {}
    for job in jobs:
        groups.setdefault(tuple(job[0].servers), []).append(job)
    pieces = [group[i : i + target] for group in groups.values() for i in range(0, len(group), target)]
    pieces.sort(key=len, reverse=True)  # stable: equal lengths keep their order
    out: list[list[Job]] = [[] for _ in range(shards)]
    for piece in pieces:
        min(out, key=len).extend(piece)
    return [shard for shard in out if shard]


def _check_sendable(make_agent: MakeAgent, env_kwargs: dict[str, Any]) -> AgentSpec:
    """The spec to send to workers; `TypeError` for a function, `ValueError` for env settings that do not pickle."""
    if not isinstance(make_agent, AgentSpec):
        raise TypeError(
            "playing in workers needs the agent as an AgentSpec (mcpgym.baselines.agent_spec), "
            "not a function: a function cannot be rebuilt in another process"
        )
    for key, value in env_kwargs.items():
        try:
            pickle.dumps(value)
        except Exception as err:  # noqa: BLE001 (pickle raises many kinds: PicklingError, TypeError, AttributeError)
            raise ValueError(f"env setting {key}={value!r:.80} cannot be sent to worker processes ({type(err).__name__}: {err})") from None
    return make_agent


def _describe(shard: Sequence[Job]) -> str:
    servers = sorted({", ".join(task.servers) for task, _ in shard})
    shown = "; ".join(servers[:3]) + (f"; and {len(servers) - 3} more server sets" if len(servers) > 3 else "")
    return f"{len(shard)} episodes of {shown}"


def _exit_text(code: int | None) -> str:
    if code is None:
        return "an unknown exit status"
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


# ---------------------------------------------------------------------------- processes


class _Worker:
    """A worker process's state: the agent factory and the envs, kept across shards."""

    def __init__(self, spec: AgentSpec, env_kwargs: dict[str, Any]) -> None:
        self.key = (spec, pickle.dumps(env_kwargs))
        self.factory = spec.factory()
        self.pool = EnvPool(env_kwargs)


_records: Any = None
"""In a worker process: the queue its records go to (set when the process starts)."""
_worker: _Worker | None = None
"""In a worker process: its agent factory and envs (made by the first shard it plays)."""


def _start_process(records: Any) -> None:
    global _records
    _records = records
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops the workers


def _play_shard(index: int, jobs: list[Job], spec: AgentSpec, env_kwargs: dict[str, Any], seed: int, concurrency: int) -> int:
    """In a worker: play one shard, sending each record as it ends; returns how many it sent."""
    global _worker
    _records.put(("start", index, os.getpid()))
    if _worker is None or _worker.key != (spec, pickle.dumps(env_kwargs)):
        _worker = _Worker(spec, env_kwargs)
    sent = 0
    for record in run_episodes(deque(jobs), _worker.factory, _worker.pool, concurrency, seed):
        _records.put(("record", index, record))
        sent += 1
    return sent


@dataclass(frozen=True)
class Processes:
    """Episodes in `workers` processes (`start_method` "spawn" or "forkserver")."""

    workers: int
    start_method: Literal["spawn", "forkserver"] = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    """forkserver (where the OS has it): workers fork from a server process that has imported
    mcpgym once, so each starts in a fraction of a spawned interpreter's time."""
    shards_per_worker: int = 2

    def __post_init__(self) -> None:
        if not 1 <= self.workers <= MAX_WORKERS:
            raise ValueError(f"workers must be from 1 to {MAX_WORKERS}, not {self.workers}")
        if not 1 <= self.shards_per_worker <= 64:
            raise ValueError(f"shards_per_worker must be from 1 to 64, not {self.shards_per_worker}")

    def check(self, make_agent: MakeAgent, env_kwargs: dict[str, Any]) -> None:
        _check_sendable(make_agent, env_kwargs)

    def play(
        self, jobs: deque[Job], make_agent: MakeAgent, env_kwargs: dict[str, Any], seed: int, concurrency: int
    ) -> Generator[dict[str, Any], None, None]:
        spec = _check_sendable(make_agent, env_kwargs)
        shards = shard_jobs(list(jobs), self.workers * self.shards_per_worker)
        jobs.clear()
        if not shards:
            return
        context = multiprocessing.get_context(self.start_method)
        if self.start_method == "forkserver":
            context.set_forkserver_preload([__name__])  # read when the fork server starts, once per process
        records = context.Queue()
        executor = ProcessPoolExecutor(
            min(self.workers, len(shards)), mp_context=context, initializer=_start_process, initargs=(records,)
        )
        try:
            futures = {executor.submit(_play_shard, i, shard, spec, env_kwargs, seed, concurrency): i for i, shard in enumerate(shards)}
            yield from _collect(executor, futures, shards, records)
        finally:
            _stop(executor)
            records.cancel_join_thread()
            records.close()


def _collect(
    executor: ProcessPoolExecutor, futures: dict[Future[int], int], shards: list[list[Job]], records: Any
) -> Iterator[dict[str, Any]]:
    """Records from the queue until every shard's future is done and all it sent has arrived."""
    received = [0] * len(shards)
    sent: dict[int, int] = {}
    pids: dict[int, int] = {}
    while len(sent) < len(shards) or any(received[i] < n for i, n in sent.items()):
        try:
            kind, index, payload = records.get(timeout=POLL_SECONDS)
        except queues.Empty:
            pass
        else:
            if kind == "start":
                pids[index] = payload
            else:
                received[index] += 1
                yield payload
            continue
        for future in [f for f in futures if f.done()]:
            index = futures.pop(future)
            error = future.exception()
            if error is None:
                sent[index] = future.result()
                continue
            raise _worker_error(executor, error, index, shards, pids, sent) from None


def _worker_error(
    executor: ProcessPoolExecutor, error: BaseException, index: int, shards: list[list[Job]], pids: dict[int, int], sent: dict[int, int]
) -> BaseException:
    """The error to raise for a shard whose future failed."""
    from concurrent.futures.process import BrokenProcessPool

    if not isinstance(error, BrokenProcessPool):
        pid = pids.get(index)
        where = f"worker process {pid}" if pid else "a worker process"
        if isinstance(error, AgentBuildError):
            return error  # says what is missing, as it would in this process
        return WorkerError(f"{where} failed on shard {index + 1} of {len(shards)} ({_describe(shards[index])}): "
                           f"{type(error).__name__}: {' '.join(str(error).split())[:300]}")
    processes = getattr(executor, "_processes", None) or {}  # the only record of exit codes before Python 3.14
    playing = {pid: shard for shard, pid in sorted(pids.items()) if shard not in sent}  # a worker's latest shard
    dead = []
    for pid, shard in playing.items():
        process = processes.get(pid)
        code = process.exitcode if process is not None else None
        if code is not None and code != -signal.SIGTERM:  # the others were stopped by the executor
            dead.append(f"worker process {pid} ({_exit_text(code)}) while playing shard {shard + 1} of {len(shards)} "
                        f"({_describe(shards[shard])})")
    named = "; ".join(dead) or f"a worker process died while shard {index + 1} of {len(shards)} ({_describe(shards[index])}) was pending"
    return WorkerError(f"{named}. The episodes that ended before are kept: run again to resume")


def _stop(executor: ProcessPoolExecutor) -> None:
    """Stop the workers now, whatever they are doing (the run has ended or failed)."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=5)


# ---------------------------------------------------------------------------- Ray


class EnvActor:
    """A Ray actor's state: an agent factory and envs, kept for the actor's life."""

    def __init__(self, spec: AgentSpec, env_kwargs: dict[str, Any]) -> None:
        self.factory = spec.factory()
        self.pool = EnvPool(env_kwargs)

    def pid(self) -> int:
        return os.getpid()

    def play(self, jobs: list[Job], seed: int, concurrency: int) -> Iterator[dict[str, Any]]:
        yield from run_episodes(deque(jobs), self.factory, self.pool, concurrency, seed)


def import_ray() -> Any:
    """The `ray` module, or an error that says how to install it."""
    try:
        import ray
    except ImportError:
        raise ImportError("the Ray backend needs ray: pip install 'mcpgym[ray]'") from None
    return ray


@dataclass(frozen=True)
class RayActors:
    """Episodes in `workers` Ray actors, each holding the envs of one shard.

    Uses the Ray session already started in this process; otherwise starts one with
    `ray.init(address=address, runtime_env=runtime_env)` (address None: the cluster named by
    $RAY_ADDRESS, else a new local Ray) and shuts it down when the run ends."""

    workers: int
    address: str | None = None
    runtime_env: dict[str, Any] | None = None
    cpus_per_worker: float = 1.0

    def __post_init__(self) -> None:
        if not 1 <= self.workers <= MAX_WORKERS:
            raise ValueError(f"workers must be from 1 to {MAX_WORKERS}, not {self.workers}")
        if not 0 < self.cpus_per_worker <= 1024:
            raise ValueError(f"cpus_per_worker must be above 0 and at most 1024, not {self.cpus_per_worker}")

    def check(self, make_agent: MakeAgent, env_kwargs: dict[str, Any]) -> None:
        _check_sendable(make_agent, env_kwargs)

    def play(
        self, jobs: deque[Job], make_agent: MakeAgent, env_kwargs: dict[str, Any], seed: int, concurrency: int
    ) -> Generator[dict[str, Any], None, None]:
        spec = _check_sendable(make_agent, env_kwargs)
        ray = import_ray()
        shards = shard_jobs(list(jobs), self.workers)
        jobs.clear()
        if not shards:
            return
        started = not ray.is_initialized()
        if started:
            try:
                ray.init(address=self.address, runtime_env=self.runtime_env, include_dashboard=False, log_to_driver=False)
            except Exception as err:  # noqa: BLE001 (Ray raises ConnectionError, ValueError, RuntimeError, ... by cause)
                where = self.address or os.environ.get("RAY_ADDRESS") or "a new local Ray"
                raise WorkerError(f"cannot start or reach Ray ({where[:200]}): {type(err).__name__}: {' '.join(str(err).split())[:300]}") from None
        actor_class = ray.remote(num_cpus=self.cpus_per_worker)(EnvActor)
        actors = [actor_class.remote(spec, env_kwargs) for _ in shards]
        try:
            streams = {
                actor.play.options(num_returns="streaming").remote(shard, seed, concurrency): i
                for i, (actor, shard) in enumerate(zip(actors, shards, strict=True))
            }
            while streams:
                ready, _ = ray.wait(list(streams), num_returns=1)
                for stream in ready:
                    index = streams[stream]
                    try:
                        ref = next(stream)
                    except StopIteration:
                        del streams[stream]
                        continue
                    try:
                        yield ray.get(ref)
                    except ray.exceptions.RayActorError as err:
                        raise WorkerError(
                            f"Ray actor {index + 1} of {len(shards)} died while playing {_describe(shards[index])}: "
                            f"{' '.join(str(err).split())[:300]}. The episodes that ended before are kept: run again to resume"
                        ) from None
                    except ray.exceptions.RayTaskError as err:
                        cause = err.cause if isinstance(err.cause, Exception) else err
                        raise WorkerError(
                            f"Ray actor {index + 1} of {len(shards)} failed on {_describe(shards[index])}: "
                            f"{type(cause).__name__}: {' '.join(str(cause).split())[:300]}"
                        ) from None
        finally:
            for actor in actors:
                ray.kill(actor)
            if started:
                ray.shutdown()


def rollouts_for(workers: int, backend: str | Rollouts, make_agent: MakeAgent, env_kwargs: dict[str, Any]) -> Rollouts:
    """The backend `evaluate` uses (`Local()` for one worker, else `Processes` or `RayActors`),
    checked against the agent and env settings it will play; raises `ValueError`."""
    if not isinstance(backend, str):
        if workers != 1:
            raise ValueError("give either workers or a Rollouts backend object (its own worker count), not both")
        rollouts: Rollouts = backend
    elif not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"workers must be from 1 to {MAX_WORKERS}, not {workers}")
    elif backend == "processes":
        rollouts = Local() if workers == 1 else Processes(workers)
    elif backend == "ray":
        rollouts = RayActors(workers)
    else:
        raise ValueError(f"unknown backend {backend[:40]!r}: processes or ray")
    rollouts.check(make_agent, env_kwargs)
    return rollouts


def processes(workers: int) -> Processes:
    """`Processes(workers)`: the process-pool backend."""
    return Processes(workers)


def ray_actors(workers: int, address: str | None = None, runtime_env: dict[str, Any] | None = None) -> RayActors:
    """`RayActors(...)`: the Ray backend (a local Ray when `address` is None and none is running)."""
    return RayActors(workers, address=address, runtime_env=runtime_env)


__all__ = [
    "EnvActor", "Job", "Local", "Processes", "RayActors", "Rollouts", "WorkerError", "import_ray", "processes",
    "ray_actors", "rollouts_for", "shard_jobs",
]
