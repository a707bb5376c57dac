"""Reading and writing task sets as JSONL, and the task sets shipped with the package."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path

from mcpgym.tasks.model import Task


class TaskFileError(ValueError):
    """A task file line that is not a valid task; the message names the file and line."""


def parse_tasks(lines: Iterable[str], source: str = "<tasks>") -> list[Task]:
    """Tasks from JSONL text; blank lines are skipped, ids must be unique."""
    tasks: list[Task] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            task = Task.model_validate_json(line)
        except ValueError as err:
            raise TaskFileError(f"{source}:{number}: {err}") from None
        if task.id in seen:
            raise TaskFileError(f"{source}:{number}: task id {task.id!r} appears twice")
        seen.add(task.id)
        tasks.append(task)
    return tasks


def load_tasks(path: str | Path) -> list[Task]:
    """Every task of a JSONL file."""
    path = Path(path)
    with path.open(encoding="utf-8") as handle:
        return parse_tasks(handle, str(path))


def save_tasks(tasks: Iterable[Task], path: str | Path) -> None:
    """Write tasks as JSONL, one per line, fields in schema order."""
    with Path(path).open("w", encoding="utf-8") as handle:
        for task in tasks:
            handle.write(task.model_dump_json() + "\n")


def shipped_task_files() -> list[str]:
    """Names of the task sets shipped in `mcpgym.tasks/data`."""
    data = resources.files("mcpgym.tasks") / "data"
    return sorted(entry.name for entry in data.iterdir() if entry.name.endswith(".jsonl"))


def shipped_tasks(servers: Sequence[str] | None = None) -> list[Task]:
    """Shipped tasks, all of them or those whose servers are all among `servers`."""
    data = resources.files("mcpgym.tasks") / "data"
    tasks: list[Task] = []
    for name in shipped_task_files():
        tasks.extend(parse_tasks((data / name).read_text("utf-8").splitlines(), name))
    if servers is not None:
        tasks = [task for task in tasks if set(task.servers) <= set(servers)]
    return tasks


SYNTH_FOLDER = "synth"
"""Synthesized task sets shipped in `mcpgym.tasks/data/synth`, one file per server set."""


def synthesized_tasks(split: str | None = None, servers: Sequence[str] | None = None) -> list[Task]:
    """Shipped synthesized tasks (`split`: train or test), those runnable on `servers` if given."""
    folder = resources.files("mcpgym.tasks") / "data" / SYNTH_FOLDER
    tasks: list[Task] = []
    if folder.is_dir():
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            if entry.name.endswith(".jsonl"):
                tasks.extend(parse_tasks(entry.read_text("utf-8").splitlines(), entry.name))
    if split is not None:
        tasks = [t for t in tasks if f"split:{split}" in t.tags]
    if servers is not None:
        tasks = [t for t in tasks if set(t.servers) <= set(servers)]
    return tasks


BENCHMARK_SETS = {
    "bfcl-multi-turn": "all",
    "bfcl-multi-turn-base": "base",
    "bfcl-multi-turn-miss-func": "miss_func",
    "bfcl-multi-turn-miss-param": "miss_param",
    "bfcl-multi-turn-long-context": "long_context",
}
"""Other benchmarks' task sets (set name -> BFCL category), read from the installed `bfcl-eval`
package (docs/bfcl.md); without it, asking for one raises an ImportError naming the install."""

GENERATED_SETS = {"ticket-priority-train": "train", "ticket-priority-test": "test"}
"""Task sets built on demand (set name -> split), single-skill families for training
(`mcpgym.tasks.generated`)."""

TASK_SETS = ("handwritten", "synth", "synth-train", "synth-test", *GENERATED_SETS, *BENCHMARK_SETS)
"""Named task sets an environment or `mcpgym eval --tasks` accepts besides a JSONL path."""


def named_tasks(name: str, servers: Sequence[str] | None = None) -> list[Task]:
    """A named task set (see `TASK_SETS`), those runnable on `servers` if given."""
    if name == "handwritten":
        return shipped_tasks(servers)
    if name.startswith("synth"):
        split = name.removeprefix("synth").removeprefix("-") or None
        return synthesized_tasks(split, servers)
    if name in GENERATED_SETS:
        from mcpgym.tasks.generated import generated_tasks

        return [t for t in generated_tasks(name) if servers is None or set(t.servers) <= set(servers)]
    if name in BENCHMARK_SETS:
        from mcpgym.external.bfcl.tasks import bfcl_tasks

        tasks = bfcl_tasks(BENCHMARK_SETS[name])
        return [t for t in tasks if servers is None or set(t.servers) <= set(servers)]
    raise KeyError(f"no task set {name!r}; sets: {', '.join(TASK_SETS)} or a JSONL path")
