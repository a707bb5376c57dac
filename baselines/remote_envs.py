"""Environments that live in worker processes or Ray actors, stepped from this process.

The trainer keeps its policy and its generation loop; what moves out is the env work (tool
calls on the SQLite worlds, state diffs, scoring). `remote_envs(...)` makes the trainer's
envs in `workers` processes (or Ray actors), env i in worker i mod `workers`, and hands back
one `RemoteEnv` proxy per env. A proxy answers `reset`, `step`, `trajectory` and `score` as
the env does; `reset_async`/`step_async` send the request without waiting, so a loop that
first sends every env's step and then reads the answers has all workers stepping at once
(`episodes.play` does so when its envs have `step_async`). Observations travel as the new
messages only; the proxy rebuilds the whole list.

A worker that dies raises `WorkerError` naming it at the next answer read from it.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any, Literal, Protocol

from mcpgym.baselines.parallel import MAX_WORKERS, WorkerError, import_ray
from mcpgym.envs import make_env
from mcpgym.envs.mcp_env import McpEnv

Backend = Literal["processes", "ray"]


class EnvHost:
    """The envs of one worker, and the answers the proxies need (in the worker)."""

    def __init__(self, servers: Sequence[str], env_kwargs: dict[str, Any], count: int) -> None:
        self.envs: list[McpEnv] = [make_env(list(servers), **env_kwargs) for _ in range(count)]
        self.shown: list[int] = [0] * count
        """Messages of each env's current episode already sent to its proxy."""
        self.tools: list[Any] = [None] * count

    def reset(self, i: int, seed: int | None, options: dict[str, Any] | None) -> tuple[Any, ...]:
        observation, info = self.envs[i].reset(seed=seed, options=options)
        self.shown[i], self.tools[i] = 0, None  # the proxy starts the episode with nothing
        return self._delta(i, observation), info

    def step(self, i: int, action: Any) -> tuple[Any, ...]:
        observation, reward, terminated, truncated, info = self.envs[i].step(action)
        return self._delta(i, observation), reward, terminated, truncated, info

    def trajectory(self, i: int) -> Any:
        return self.envs[i].trajectory

    def score(self, i: int, finished: bool | None) -> Any:
        env = self.envs[i]
        if finished is not None:
            env.trajectory.finished = finished
        return env.score()

    def pid(self) -> int:
        return os.getpid()

    def _delta(self, i: int, observation: dict[str, Any]) -> tuple[list[dict[str, Any]], Any]:
        """The messages the proxy has not seen, and the tools when they changed."""
        messages = observation["messages"]
        new = [dict(m) for m in messages[self.shown[i] :]]
        self.shown[i] = len(messages)
        tools = observation["tools"]
        changed = tools is not self.tools[i]
        self.tools[i] = tools
        return new, [dict(t) for t in tools] if changed else None


class Link(Protocol):
    """How proxies reach one worker: `send` a call, later `answer` it (in any order)."""

    def send(self, method: str, *args: Any) -> Any: ...

    def answer(self, ticket: Any) -> Any: ...

    def close(self) -> None: ...


def _serve(conn: Connection, servers: list[str], env_kwargs: dict[str, Any], count: int) -> None:
    """A worker process: answer calls in the order they come until told to stop."""
    host = EnvHost(servers, env_kwargs, count)
    while True:
        try:
            method, args = conn.recv()
        except EOFError:
            return
        if method == "stop":
            return
        try:
            conn.send(("ok", getattr(host, method)(*args)))
        except Exception as err:  # noqa: BLE001 (sent back, raised in the parent with the worker named)
            conn.send(("error", f"{type(err).__name__}: {' '.join(str(err).split())[:300]}"))


class ProcessLink:
    """A worker process and its pipe; answers come back in the order calls were sent."""

    def __init__(self, index: int, servers: Sequence[str], env_kwargs: dict[str, Any], count: int, start_method: str) -> None:
        context = multiprocessing.get_context(start_method)
        if start_method == "forkserver":
            context.set_forkserver_preload([__name__])  # read when the fork server starts, once per process
        self.index = index
        self.conn, theirs = context.Pipe()
        self.process = context.Process(  # type: ignore[attr-defined]
            target=_serve, args=(theirs, list(servers), env_kwargs, count), daemon=True, name=f"mcpgym-env-worker-{index}"
        )
        self.process.start()
        theirs.close()
        self.sent = 0
        self.read = 0
        self.early: dict[int, Any] = {}

    def send(self, method: str, *args: Any) -> int:
        self.conn.send((method, args))
        self.sent += 1
        return self.sent

    def answer(self, ticket: int) -> Any:
        while ticket not in self.early:
            try:
                status, value = self.conn.recv()
            except (EOFError, OSError):
                self.process.join(timeout=5)
                raise WorkerError(f"env worker {self.index} (process {self.process.pid}) died "
                                  f"(exit code {self.process.exitcode})") from None
            self.read += 1
            self.early[self.read] = (status, value)
        status, value = self.early.pop(ticket)
        if status == "error":
            raise WorkerError(f"env worker {self.index} (process {self.process.pid}): {value}")
        return value

    def close(self) -> None:
        try:
            self.conn.send(("stop", ()))
        except OSError:
            pass
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.terminate()
        self.conn.close()


class RayLink:
    """A Ray actor holding one worker's envs; a ticket is the call's object ref."""

    def __init__(self, index: int, actor: Any) -> None:
        self.index, self.actor = index, actor
        self.ray = import_ray()

    def send(self, method: str, *args: Any) -> Any:
        return getattr(self.actor, method).remote(*args)

    def answer(self, ticket: Any) -> Any:
        try:
            return self.ray.get(ticket)
        except self.ray.exceptions.RayActorError as err:
            raise WorkerError(f"env actor {self.index} died: {' '.join(str(err).split())[:300]}") from None
        except self.ray.exceptions.RayTaskError as err:
            raise WorkerError(f"env actor {self.index}: {type(err.cause).__name__}: {' '.join(str(err.cause).split())[:300]}") from None

    def close(self) -> None:
        self.ray.kill(self.actor)


class RemoteEnv:
    """An env in a worker, used as the env itself (`unwrapped` is the proxy too)."""

    def __init__(self, link: Link, index: int) -> None:
        self.link, self.index = link, index
        self.messages: list[dict[str, Any]] = []
        self.tools: list[dict[str, Any]] = []
        self.pending: tuple[str, Any, Any] | None = None
        """The call sent and not yet answered: (kind, its argument, ticket)."""
        self.cached_trajectory: Any = None

    @property
    def unwrapped(self) -> RemoteEnv:
        return self

    def reset_async(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._settle()
        self.pending = ("reset", (seed, options), self.link.send("reset", self.index, seed, options))

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        if self.pending is None or self.pending[:2] != ("reset", (seed, options)):
            self.reset_async(seed=seed, options=options)
        self.messages, self.tools = [], []
        delta, info = self._take()
        return self._observation(delta), info

    def step_async(self, action: Any) -> None:
        self._settle()
        self.pending = ("step", action, self.link.send("step", self.index, action))

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self.pending is None or self.pending[:2] != ("step", action):
            self.step_async(action)
        delta, reward, terminated, truncated, info = self._take()
        return self._observation(delta), reward, terminated, truncated, info

    @property
    def trajectory(self) -> Any:
        """A copy of the env's trajectory, fetched once per step; `score` applies a change
        made to its `finished` flag."""
        if self.cached_trajectory is None:
            self._settle()
            self.cached_trajectory = self.link.answer(self.link.send("trajectory", self.index))
        return self.cached_trajectory

    def score(self) -> Any:
        self._settle()
        finished = None if self.cached_trajectory is None else self.cached_trajectory.finished
        return self.link.answer(self.link.send("score", self.index, finished))

    def close(self) -> None:
        self._settle()

    def _take(self) -> Any:
        assert self.pending is not None
        _, _, ticket = self.pending
        self.pending = None
        self.cached_trajectory = None
        return self.link.answer(ticket)

    def _settle(self) -> None:
        """Read the answer of a call sent and never read (its result is dropped)."""
        if self.pending is not None:
            self._take()

    def _observation(self, delta: tuple[list[dict[str, Any]], Any]) -> dict[str, Any]:
        new, tools = delta
        self.messages = self.messages + new  # a new list: callers keep the previous one
        if tools is not None:
            self.tools = tools
        return {"messages": self.messages, "tools": self.tools}


class RemoteEnvs:
    """`count` envs of `servers` in `workers` processes or Ray actors; `envs` are their proxies."""

    def __init__(
        self, servers: Sequence[str], env_kwargs: dict[str, Any], count: int, workers: int,
        backend: Backend = "processes", start_method: Literal["spawn", "forkserver"] = "forkserver",
    ) -> None:
        if not 1 <= workers <= MAX_WORKERS or count < 1:
            raise ValueError(f"workers must be from 1 to {MAX_WORKERS} and count at least 1 (got {workers}, {count})")
        workers = min(workers, count)
        shares = [len(range(w, count, workers)) for w in range(workers)]
        self.links: list[Link] = []
        try:
            if backend == "ray":
                ray = import_ray()
                if not ray.is_initialized():
                    ray.init(include_dashboard=False, log_to_driver=False)
                host = ray.remote(num_cpus=1)(EnvHost)
                self.links = [RayLink(w, host.remote(list(servers), env_kwargs, n)) for w, n in enumerate(shares)]
            elif backend == "processes":
                if start_method not in multiprocessing.get_all_start_methods():
                    start_method = "spawn"
                self.links = [ProcessLink(w, servers, env_kwargs, n, start_method) for w, n in enumerate(shares)]
            else:
                raise ValueError(f"unknown backend {str(backend)[:40]!r}: processes or ray")
        except BaseException:
            self.close()
            raise
        self.envs = [RemoteEnv(self.links[i % workers], i // workers) for i in range(count)]

    def close(self) -> None:
        for link in self.links:
            link.close()
        self.links = []


def prepare_steps(envs: Sequence[Any], actions: Sequence[Any]) -> None:
    """Send every env's step at once where envs can (`step_async`); a no-op for local envs."""
    for env, action in zip(envs, actions, strict=True):
        send = getattr(env, "step_async", None)
        if send is not None:
            send(action)


def prepare_resets(envs: Sequence[Any], seed: int, tasks: Sequence[Any]) -> None:
    """Send every env's reset at once where envs can (`reset_async`); a no-op for local envs."""
    for env, task in zip(envs, tasks, strict=True):
        send = getattr(env, "reset_async", None)
        if send is not None:
            send(seed=seed, options={"task": task})


__all__ = ["EnvHost", "RemoteEnv", "RemoteEnvs", "WorkerError", "prepare_resets", "prepare_steps"]
