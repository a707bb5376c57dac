"""Shared by the per-server family tests: one validated task per family, drafted and checked
exactly as the generator does."""

from __future__ import annotations

import random
from collections.abc import Sequence

from mcpgym.servers.toolbox import Toolbox
from mcpgym.synth.family import Family, SamplingError, WorldView
from mcpgym.synth.generate import choose_wordings, validate
from mcpgym.tasks.execute import complete_from_run, execute_task
from mcpgym.tasks.model import Task


def first_valid(family: Family, view: WorldView, box: Toolbox, rng: random.Random, attempts: int = 12) -> Task | None:
    """The first draft of `family` that passes the generator's validation, completed."""
    for _ in range(attempts):
        try:
            draft = family.draft(view, rng)
        except SamplingError:
            continue
        if draft is None:
            continue
        task = Task.model_validate({"id": f"{family.name}-0", "servers": list(draft.servers or family.servers),
                                    "seed": view.seed, "turns": choose_wordings(draft, "test", rng),
                                    "tags": [f"family:{family.name}", f"kind:{family.kind}"]})
        run = execute_task(task, box)
        again = execute_task(task, box) if draft.writes else None
        if validate(draft.checks, draft.writes, run, again) is None:
            return complete_from_run(task, run)
    return None


def one_task_per_family(families: Sequence[Family], servers: Sequence[str], attempts: int = 12) -> dict[str, Task]:
    """One validated task per family, from the world of seed 0 (seed 1 for a family that
    grounds nothing there)."""
    found: dict[str, Task] = {}
    for seed in (0, 1):
        view, box = WorldView(tuple(servers), seed), Toolbox(list(servers), seed)
        rng = random.Random(seed)
        for family in families:
            if family.name not in found and (task := first_valid(family, view, box, rng, attempts)) is not None:
                found[family.name] = task
        view.close()
        box.close()
    return found
