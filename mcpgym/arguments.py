"""Argument types of the command line: each checks one value at parse time and turns a bad
one into a one-line usage error (exit 2) that says what is allowed.

They are argparse `type=` callables: a bad value raises `argparse.ArgumentTypeError`. The
errors a command finds while it runs are `CliError` (exit 1) and `UsageError` (exit 2),
which `mcpgym.cli.main` prints as one line.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from mcpgym.tasks.model import Task

MAX_SEED = 2**32 - 1
"""Seeds run from 0 to this (numpy's and torch's legacy seeding take no more)."""
MAX_TASK_FILE_BYTES = 256 * 2**20
"""A task file larger than this is refused before it is read."""
_HUB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,95}(/[A-Za-z0-9][A-Za-z0-9_.-]{0,95})?")


class CliError(Exception):
    """A command failed for a reason its one-line message explains (exit status 1)."""


class UsageError(CliError):
    """The arguments cannot work together, or name something that does not exist (exit status 2)."""


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """An integer from `low` to `high`, both included."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not a whole number") from None
        if not low <= value <= high:
            shown = str(value) if len(text) <= 40 else _shown(text, 40)
            raise argparse.ArgumentTypeError(f"{shown} is out of range: from {low} to {high}")
        return value

    parse.__name__ = f"integer {low}..{high}"
    return parse


def bounded_float(low: float, high: float, low_open: bool = False) -> Callable[[str], float]:
    """A finite number from `low` (excluded with `low_open`) to `high`."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not a number") from None
        if not math.isfinite(value) or value > high or value < low or (low_open and value == low):
            lower = f"above {low:g}" if low_open else f"from {low:g}"
            raise argparse.ArgumentTypeError(f"{_shown(text)} is out of range: {lower} to {high:g}")
        return value

    parse.__name__ = f"number {low:g}..{high:g}"
    return parse


seed = bounded_int(0, MAX_SEED)
positive_int = bounded_int(1, 2**31 - 1)


def env_id(text: str) -> str:
    """A registered env id, such as `mcp/zendesk-v0`."""
    from mcpgym.registration import env_ids

    ids = env_ids()
    if text not in ids:
        raise argparse.ArgumentTypeError(f"no env id {_shown(text)}; env ids: {', '.join(ids)}")
    return text


@dataclass(frozen=True)
class TaskSource:
    """Tasks as the command line named them: a shipped set's name or a JSONL file."""

    name: str
    tasks: tuple[Task, ...]


def task_file(text: str) -> TaskSource:
    """The tasks of a JSONL file: it must be a readable, non-empty UTF-8 text file of valid tasks."""
    from mcpgym.tasks.loader import TaskFileError, parse_tasks

    path = Path(text)
    try:
        info = path.stat()
    except OSError as err:
        raise argparse.ArgumentTypeError(f"cannot read task file {_shown(text)}: {err.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        raise argparse.ArgumentTypeError(f"{_shown(text)} is a folder, not a task file (JSONL, one task a line)")
    if not stat.S_ISREG(info.st_mode):
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not a regular file")
    if info.st_size > MAX_TASK_FILE_BYTES:
        raise argparse.ArgumentTypeError(f"task file {_shown(text)} is {info.st_size} bytes; the limit is {MAX_TASK_FILE_BYTES}")
    try:
        data = path.read_bytes()
    except OSError as err:
        raise argparse.ArgumentTypeError(f"cannot read task file {_shown(text)}: {err.strerror}") from None
    if b"\0" in data:
        raise argparse.ArgumentTypeError(f"task file {_shown(text)} is binary, not JSONL text (a NUL byte at offset {data.index(0)})")
    try:
        content = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise argparse.ArgumentTypeError(f"task file {_shown(text)} is not UTF-8 text (byte {err.start})") from None
    try:
        tasks = parse_tasks(content.splitlines(), str(path))
    except TaskFileError as err:
        raise argparse.ArgumentTypeError(one_line(str(err))) from None
    if not tasks:
        raise argparse.ArgumentTypeError(f"task file {_shown(text)} is empty: no task in it")
    return TaskSource(name=str(path), tasks=tuple(tasks))


def task_source(text: str) -> TaskSource:
    """Tasks by name or file: `shipped` (all hand-written), a named set (`synth-train`, ...), a
    server name, a shipped file's stem (`workspace`), or a JSONL task file."""
    from mcpgym.servers.catalog import server_names
    from mcpgym.tasks.loader import TASK_SETS, named_tasks, parse_tasks, shipped_task_files, shipped_tasks

    stems = {name.removesuffix(".jsonl") for name in shipped_task_files()}
    if os.path.isfile(text):
        return task_file(text)
    if text == "shipped":
        tasks = shipped_tasks()
    elif text in TASK_SETS:
        tasks = named_tasks(text)
    elif text in server_names():
        tasks = [t for t in shipped_tasks() if t.servers == [text]]
    elif text in stems:
        from importlib import resources

        data = (resources.files("mcpgym.tasks") / "data" / f"{text}.jsonl").read_text("utf-8")
        tasks = parse_tasks(data.splitlines(), text)
    elif os.path.lexists(text) or os.sep in text or text.endswith(".jsonl"):
        return task_file(text)
    else:
        names = ", ".join(["shipped", *TASK_SETS, *sorted(stems | set(server_names()))])
        raise argparse.ArgumentTypeError(f"no task file or task set {_shown(text)}; sets: {names}")
    if not tasks:
        raise argparse.ArgumentTypeError(f"the task set {_shown(text)} has no tasks")
    return TaskSource(name=text, tasks=tuple(tasks))


def output_folder(text: str) -> Path:
    """A folder to write in: an existing folder, or a new one inside an existing folder."""
    return _output(text, folder=True)


def output_file(text: str) -> Path:
    """A file to write: its folder must exist."""
    return _output(text, folder=False)


def _output(text: str, folder: bool) -> Path:
    path = Path(text)
    if not text:
        raise argparse.ArgumentTypeError("an empty path")
    if path.exists():
        if folder and not path.is_dir():
            raise argparse.ArgumentTypeError(f"{_shown(text)} exists and is not a folder")
        if not folder and path.is_dir():
            raise argparse.ArgumentTypeError(f"{_shown(text)} is a folder; give a file name")
        where = path if path.is_dir() else path.parent
    else:
        where = path.parent
        if not where.is_dir():
            raise argparse.ArgumentTypeError(f"folder {_shown(str(where))} does not exist (create it first)")
    if not os.access(where, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"cannot write in {_shown(str(where))}: permission denied")
    return path


def model_path(text: str) -> str:
    """A model to load: a local folder with a `config.json`, or a Hugging Face repo id (`org/name`)."""
    path = Path(text)
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not a model folder: it has no config.json")
        return text
    if path.exists():
        raise argparse.ArgumentTypeError(f"{_shown(text)} is a file; give a model folder (with config.json) or a hub id")
    if _HUB_ID.fullmatch(text) is None or ".." in text:
        raise argparse.ArgumentTypeError(f"no model folder {_shown(text)} (nor is it a Hugging Face repo id like org/name)")
    return text


def http_url(text: str) -> str:
    """An http(s) URL with a host, such as `http://127.0.0.1:8000/v1`."""
    if len(text) > 2048:
        raise argparse.ArgumentTypeError("a URL over 2048 characters")
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 (raises on a port out of range)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not a URL: {err}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not an http(s) URL with a host, e.g. http://127.0.0.1:8000/v1")
    return text


def _shown(text: str, limit: int = 80) -> str:
    """`text` quoted for a message, cut to `limit` characters."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def one_line(message: str, limit: int = 300) -> str:
    """The first lines of a multi-line message (pydantic's), joined, without its help links, and cut."""
    lines = [line.strip() for line in message.splitlines() if line.strip() and "further information" not in line]
    joined = "; ".join(lines)
    return joined if len(joined) <= limit else joined[:limit] + "..."


__all__ = [
    "CliError", "MAX_SEED", "TaskSource", "UsageError", "bounded_float", "bounded_int", "env_id", "http_url", "model_path",
    "one_line", "output_file", "output_folder", "positive_int", "seed", "task_file", "task_source",
]
