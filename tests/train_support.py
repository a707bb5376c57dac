"""Shared pieces of the trainer tests: a tiny model built once, small task sets, a scripted generator."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcpgym.baselines.train.generation import Sampling
from mcpgym.tasks.generated import ticket_field_tasks
from mcpgym.tasks.model import Task

TOOLS = ["get_ticket", "get_user"]


def status_tasks(ticket_ids: list[int], prefix: str = "status", field: str = "status") -> list[Task]:
    """One-call tasks: "what is the <field> of ticket N?" answered from get_ticket (the
    trainer's generated family, with ids `<prefix>-N` and no tags)."""
    made = ticket_field_tasks(ticket_ids, "train", field)
    return [task.model_copy(update={"id": f"{prefix}-{n}", "tags": []}) for n, task in zip(ticket_ids, made, strict=True)]


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
