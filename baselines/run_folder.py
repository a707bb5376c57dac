"""An eval run's folder: its manifest, its lock and its episode records.

`run.json` records everything that changes the run's results (the agent and its model, the
task set's digest, seeds, episodes per task, env settings). A run resumes only into a folder
whose manifest matches; otherwise it stops and names what differs (`overwrite` clears the
folder's run files and starts over). An OS lock on `run.lock` (flock, released when the
process ends, crashes included) keeps a second run out while one writes.

`trajectories.jsonl` holds one record per finished episode. On opening, a last line cut short
by a crash (no newline) is dropped, and episodes that ended in a model error are dropped too,
so both run again; the file is rewritten atomically when anything was dropped.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from mcpgym.tasks.model import Task

TRAJECTORIES = "trajectories.jsonl"
SUMMARY = "summary.json"
MANIFEST = "run.json"
LOCK = "run.lock"
REPORT = "report.html"
RUN_FILES = (TRAJECTORIES, SUMMARY, "summary.md", "reward_by_server.png", "reward_by_difficulty.png", REPORT, MANIFEST)
"""What `overwrite` deletes: the files a run writes, nothing else in the folder."""

Setting = str | int | float | bool | None


class RunFolderError(RuntimeError):
    """The folder cannot take this run: another run holds it, it holds another run, or its records are damaged."""


class RunManifest(BaseModel):
    """What a run's results depend on; two runs with equal manifests give equal records."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal[1] = 1
    agent: dict[str, Setting]
    tasks_digest: str
    tasks: int
    episodes_per_task: int
    seed: int
    env: dict[str, Setting]

    def differences(self, other: RunManifest) -> list[str]:
        """`name: ours vs theirs` for every setting that differs, nested keys dotted."""
        mine, theirs = _flatten(self.model_dump()), _flatten(other.model_dump())
        return [
            f"{key} {_short(mine.get(key))} there, {_short(theirs.get(key))} now"
            for key in sorted(set(mine) | set(theirs))
            if mine.get(key) != theirs.get(key)
        ]


class RecordHead(BaseModel):
    """The fields of an episode record the folder relies on (the rest is carried as is)."""

    task_id: str
    episode: int
    error: str | None = None


def tasks_digest(tasks: Sequence[Task]) -> str:
    """SHA-256 of the task set (order-free): same tasks, same digest."""
    digest = hashlib.sha256()
    for text in sorted(task.model_dump_json() for task in tasks):
        digest.update(text.encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


def setting(value: Any) -> Setting:
    """A setting as the manifest records it: JSON scalars as they are, a list of them (a tool
    subset) as its JSON, a settings object with `public()` (an LLM user's: no key) as that
    JSON, anything else by its name."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, list | tuple) and all(item is None or isinstance(item, (str, int, float, bool)) for item in value):
        return json.dumps(list(value))
    if callable(getattr(value, "public", None)):
        return json.dumps(value.public(), sort_keys=True)
    return f"{type(value).__module__}.{getattr(value, '__qualname__', type(value).__qualname__)}"


class RunFolder:
    """The locked folder of one run. Use as a context manager; `records` are the finished episodes."""

    def __init__(self, path: Path, manifest: RunManifest, overwrite: bool = False) -> None:
        self.path = path
        self.manifest = manifest
        self.overwrite = overwrite
        self.records: list[dict[str, Any]] = []
        self.dropped_errors = 0
        self.dropped_cut_line = False
        self._lock: IO[bytes] | None = None
        self._sink: IO[str] | None = None

    def __enter__(self) -> RunFolder:
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise RunFolderError(f"cannot create the run folder {self.path}: {err.strerror}") from None
        self._acquire()
        try:
            if self.overwrite:
                for name in RUN_FILES:
                    (self.path / name).unlink(missing_ok=True)
            self._check_manifest()
            self._load_records()
            self._sink = (self.path / TRAJECTORIES).open("a", encoding="utf-8")
        except BaseException:
            self._release()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self._sink is not None:
            self._sink.close()
            self._sink = None
        self._release()

    def append(self, record: dict[str, Any]) -> None:
        """Write one finished episode at once (one line, flushed)."""
        assert self._sink is not None, "append outside `with RunFolder(...)`"
        self._sink.write(json.dumps(record) + "\n")
        self._sink.flush()
        self.records.append(record)

    def done(self) -> set[tuple[str, int]]:
        """(task id, episode) of every finished episode."""
        return {(r["task_id"], r["episode"]) for r in self.records}

    def _acquire(self) -> None:
        lock_path = self.path / LOCK
        handle = lock_path.open("a+b")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read(32).decode("ascii", "replace").strip() or "unknown"
            handle.close()
            raise RunFolderError(
                f"another run is writing to {self.path} (it holds the lock {lock_path}, process {holder}); "
                "wait for it to end or use another --out"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()).encode("ascii"))
        handle.flush()
        self._lock = handle

    def _release(self) -> None:
        if self._lock is not None:
            fcntl.flock(self._lock.fileno(), fcntl.LOCK_UN)
            self._lock.close()
            self._lock = None

    def _check_manifest(self) -> None:
        manifest_path = self.path / MANIFEST
        if not manifest_path.exists():
            if (self.path / TRAJECTORIES).exists():
                raise RunFolderError(
                    f"{self.path} holds episodes but no {MANIFEST}, so nothing says how they were made; "
                    "use another --out, or --overwrite to start over"
                )
            write_atomic(manifest_path, self.manifest.model_dump_json(indent=2) + "\n")
            return
        try:
            recorded = RunManifest.model_validate_json(manifest_path.read_bytes())
        except (OSError, ValidationError) as err:
            raise RunFolderError(f"{manifest_path} is unreadable ({type(err).__name__}); use --overwrite to start over") from None
        differences = recorded.differences(self.manifest)
        if differences:
            raise RunFolderError(
                f"{self.path} holds a run made with other settings ({'; '.join(differences)}); "
                "use another --out, or --overwrite to start over"
            )

    def _load_records(self) -> None:
        path = self.path / TRAJECTORIES
        if not path.exists():
            return
        kept: list[dict[str, Any]] = []
        seen: set[tuple[str, int]] = set()
        duplicates = 0
        with path.open("rb") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.endswith(b"\n"):
                    self.dropped_cut_line = True  # the last write of a crashed run
                    break
                try:
                    record = json.loads(line)
                    head = RecordHead.model_validate(record)
                except (ValueError, ValidationError):
                    raise RunFolderError(
                        f"{path}:{number} is not an episode record; remove that line or use --overwrite"
                    ) from None
                if head.error is not None:
                    self.dropped_errors += 1
                    continue
                if (head.task_id, head.episode) in seen:
                    duplicates += 1
                    continue
                seen.add((head.task_id, head.episode))
                kept.append(record)
        if self.dropped_cut_line or self.dropped_errors or duplicates:
            write_atomic(path, "".join(json.dumps(r) + "\n" for r in kept))
        self.records = kept


LABEL_CHARS = 60
"""A run's label (folder name and agent) is cut to this many characters."""


def agent_name(agent: dict[str, Setting]) -> str:
    """The agent of a manifest in a few words: the model and how it was reached, or the agent's kind."""
    kind = str(agent.get("kind") or "agent")
    if agent.get("model"):
        return f"{agent['model']} via {kind}"
    if agent.get("model_path"):
        return f"{Path(str(agent['model_path'])).name or agent['model_path']} ({kind})"
    return kind


def run_label(folder: Path, manifest: RunManifest | None) -> str:
    """`folder-name: agent`, as plots, reports and comparisons name a run."""
    name = folder.resolve().name or str(folder)
    label = f"{name}: {agent_name(manifest.agent)}" if manifest is not None else name
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 3] + "..."


def read_manifest(folder: Path) -> RunManifest | None:
    """The folder's manifest, or None when it has none or it is unreadable (a folder written by the trainer)."""
    try:
        return RunManifest.model_validate_json((folder / MANIFEST).read_bytes())
    except (OSError, ValidationError):
        return None


def read_records(folder: Path) -> list[dict[str, Any]]:
    """The folder's complete episode records, read without taking the lock (a running run's so far).

    Raises `RunFolderError` naming a line that is not an episode record."""
    path = folder / TRAJECTORIES
    records: list[dict[str, Any]] = []
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return records
    except OSError as err:
        raise RunFolderError(f"cannot read {path}: {err.strerror}") from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.endswith(b"\n"):
                break
            try:
                record = json.loads(line)
                RecordHead.model_validate(record)
            except (ValueError, ValidationError):
                raise RunFolderError(f"{path}:{number} is not an episode record") from None
            records.append(record)
    return records


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` so that a crash leaves either the old or the new file."""
    temporary = path.with_name(path.name + ".tmp")
    with temporary.open("w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def _flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[prefix + key] = value
    return flat


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


__all__ = [
    "LOCK", "MANIFEST", "REPORT", "RUN_FILES", "SUMMARY", "TRAJECTORIES", "RecordHead", "RunFolder", "RunFolderError",
    "RunManifest", "agent_name", "read_manifest", "read_records", "run_label", "setting", "tasks_digest", "write_atomic",
]
