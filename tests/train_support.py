"""Shared pieces of the trainer tests: a tiny model built once, small task sets, a scripted generator."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcpgym.baselines.train.generation import Sampling
from mcpgym.tasks.execute import complete_task
from mcpgym.tasks.model import Fact, GroundTruthCall, Task, Turn

TOOLS = ["get_ticket", "get_user"]


def status_tasks(ticket_ids: list[int], prefix: str = "status", field: str = "status") -> list[Task]:
    """One-call tasks: "what is the <field> of ticket N?" answered from get_ticket."""
    tasks = []
    for ticket_id in ticket_ids:
        task = Task(
            id=f"{prefix}-{ticket_id}",
            servers=["zendesk"],
            seed=0,
            turns=[
                Turn(
                    user=f"What is the {field} of ticket {ticket_id}?",
                    calls=[GroundTruthCall(id="c1", server="zendesk", tool="get_ticket", arguments={"ticket_id": ticket_id})],
                    facts=[Fact(name=field, expr=f"{{c1.{field}}}", value=None)],
                )
            ],
        )
        tasks.append(complete_task(task))
    return tasks


def build_tiny(out: Path, tasks: list[Task], vocab_size: int = 2048, seed: int = 0) -> Path:
    from mcpgym.baselines.train.tiny_model import build_model

    return build_model(out, size="tiny", tasks=tasks, vocab_size=vocab_size, seed=seed)


class ScriptedGenerator:
    """Answers every prompt with the next text of its script (as tokens ending in eos)."""

    def __init__(self, chat: Any, script: list[str]) -> None:
        self.chat = chat
        self.script = script
        self.turn = 0

    def generate(self, prompts: list[list[int]], max_new_tokens: int, sampling: Sampling) -> list[list[int]]:
        text = self.script[min(self.turn, len(self.script) - 1)]
        self.turn += 1
        return [self.chat.encode(text) + [self.chat.eos_id] for _ in prompts]

    def sync(self, model: Any) -> None:
        pass


def zendesk_ticket_ids(n: int, offset: int = 0) -> list[int]:
    """`n` ticket ids of the seed-0 Zendesk world (ids 1-1500), spread over its upper range."""
    return [1000 + 7 * (offset + i) for i in range(n)]
