"""The training and held-out tasks of a run, chosen from a named task set or a JSONL file.

Any task set `--tasks` takes works (`synth-train`, `ticket-priority-train`, a JSONL path,
`FILE.jsonl:train`, ...); the trainer's presets use the generated `ticket-priority` family
(`mcpgym.tasks.generated`), small enough for a model built from scratch to learn on a CPU.
"""

from __future__ import annotations

import random

from mcpgym.baselines.train.config import TasksConfig
from mcpgym.servers.toolbox import public_tool_name
from mcpgym.tasks.loader import TASK_SETS, load_tasks, named_tasks
from mcpgym.tasks.model import Task

SPLIT_SUFFIXES = (":train", ":test")
"""`FILE.jsonl:train` keeps the tasks of a JSONL file tagged `split:train` (as `mcpgym synth` writes)."""


def family_of(task: Task) -> str | None:
    for tag in task.tags:
        if tag.startswith("family:"):
            return tag.removeprefix("family:")
    return None


def select_tasks(config: TasksConfig, split: str, seed: int = 0) -> list[Task]:
    """Tasks of `config.train` or `config.test` (split "train"/"test") that the configured
    servers can run, of the configured families, capped after a seeded shuffle."""
    source = config.train if split == "train" else config.test
    cap = config.max_train if split == "train" else config.max_test
    servers = set(config.servers)
    if source in TASK_SETS:
        tasks = named_tasks(source, config.servers)
    else:
        path, _, wanted_split = source.rpartition(":") if source.endswith(SPLIT_SUFFIXES) else (source, "", "")
        tasks = load_tasks(path)
        if wanted_split:
            tasks = [t for t in tasks if f"split:{wanted_split}" in t.tags]
    tasks = [t for t in tasks if set(t.servers) <= servers]
    if config.tools is not None:
        exposed = set(config.tools)
        prefixed = len(config.servers) > 1
        tasks = [t for t in tasks if all(public_tool_name(c.server or t.servers[0], c.tool, prefixed) in exposed for c in t.calls)]
    if config.families is not None:
        wanted = set(config.families)
        tasks = [t for t in tasks if family_of(t) in wanted]
    tasks.sort(key=lambda t: t.id)
    if cap is not None and len(tasks) > cap:
        random.Random(f"{seed}:{split}").shuffle(tasks)
        tasks = sorted(tasks[:cap], key=lambda t: t.id)
    return tasks


__all__ = ["family_of", "select_tasks"]
