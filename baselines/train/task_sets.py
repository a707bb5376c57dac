"""The training and held-out tasks of a run, chosen from a named task set or a JSONL file.

Besides the task sets every command knows (`synth-train`, a JSONL path, ...), the trainer
generates one family of its own, small enough for a model built from scratch to learn on a
CPU: `ticket-priority-train` / `ticket-priority-test`, "What is the priority of ticket N?"
over the three-digit tickets of the seed-0 Zendesk world, answered with one `get_ticket`
call whose id is copied from the request. The two splits hold disjoint tickets, so only a
skill that generalises (copying the digits) scores on the held-out one.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from mcpgym.baselines.train.config import TasksConfig
from mcpgym.servers.toolbox import public_tool_name
from mcpgym.tasks.execute import WarmToolbox, complete_task
from mcpgym.tasks.loader import TASK_SETS, load_tasks, named_tasks
from mcpgym.tasks.model import Fact, GroundTruthCall, Task, Turn

SPLIT_SUFFIXES = (":train", ":test")
"""`FILE.jsonl:train` keeps the tasks of a JSONL file tagged `split:train` (as `mcpgym synth` writes)."""

TICKET_IDS = range(100, 1000)
"""The tickets of the generated set: three-digit ids, all present in the seed-0 Zendesk world."""
HELD_OUT_TICKETS = 100
"""Tickets of the generated set kept for the held-out split (a fixed shuffle); the rest train."""
GENERATED_SETS = {"ticket-priority-train": "train", "ticket-priority-test": "test"}
"""Task sets the trainer generates (name -> split), see the module's docstring."""
GENERATED_FAMILY = "ticket-priority"


def ticket_field_tasks(ticket_ids: Sequence[int], split: str, field: str = "priority") -> list[Task]:
    """One-call tasks, "What is the <field> of ticket N?", answered from `get_ticket`, with
    their fact values executed on the seed-0 Zendesk world; tagged `split:<split>`."""
    warm = WarmToolbox()
    tasks = []
    try:
        for ticket_id in ticket_ids:
            task = Task(
                id=f"ticket-{field}-{ticket_id:04d}",
                servers=["zendesk"],
                seed=0,
                turns=[
                    Turn(
                        user=f"What is the {field} of ticket {ticket_id}?",
                        calls=[GroundTruthCall(id="c1", server="zendesk", tool="get_ticket", arguments={"ticket_id": ticket_id})],
                        facts=[Fact(name=field, expr=f"{{c1.{field}}}", value=None)],
                    )
                ],
                tags=[f"family:{GENERATED_FAMILY}", "kind:lookup", f"split:{split}"],
            )
            tasks.append(complete_task(task, warm))
    finally:
        warm.close()
    return tasks


def generated_tasks(name: str) -> list[Task]:
    """A generated task set by name (`GENERATED_SETS`)."""
    split = GENERATED_SETS[name]
    ids = list(TICKET_IDS)
    random.Random(0).shuffle(ids)
    chosen = ids[:HELD_OUT_TICKETS] if split == "test" else ids[HELD_OUT_TICKETS:]
    return ticket_field_tasks(sorted(chosen), split)


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
    if source in GENERATED_SETS:
        tasks = generated_tasks(source)
    elif source in TASK_SETS:
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


__all__ = ["GENERATED_SETS", "family_of", "generated_tasks", "select_tasks", "ticket_field_tasks"]
