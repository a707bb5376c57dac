"""Task sets generated on demand rather than shipped: small single-skill families.

`ticket-priority-train` / `ticket-priority-test`: "What is the priority of ticket N?" over the
three-digit tickets of the seed-0 Zendesk world, answered with one `get_ticket` call whose id
is copied from the request. The two splits hold disjoint tickets (a fixed shuffle keeps 100
for the held-out split), so only a skill that generalises (copying the digits) scores on the
held-out one. A model built from scratch can learn the family on a CPU (docs/training.md);
every task's facts are executed on the world when the set is built.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from mcpgym.tasks.execute import WarmToolbox, complete_task
from mcpgym.tasks.loader import GENERATED_SETS
from mcpgym.tasks.model import Fact, GroundTruthCall, Task, Turn

TICKET_IDS = range(100, 1000)
"""The tickets of the generated set: three-digit ids, all present in the seed-0 Zendesk world."""
HELD_OUT_TICKETS = 100
"""Tickets kept for the held-out split (a fixed shuffle); the rest train."""
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
    """A generated task set by name (`GENERATED_SETS`); KeyError for another name."""
    split = GENERATED_SETS[name]
    ids = list(TICKET_IDS)
    random.Random(0).shuffle(ids)
    chosen = ids[:HELD_OUT_TICKETS] if split == "test" else ids[HELD_OUT_TICKETS:]
    return ticket_field_tasks(sorted(chosen), split)


__all__ = ["generated_tasks", "ticket_field_tasks"]
