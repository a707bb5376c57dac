"""Task families: each samples grounded parameters from a seeded world and writes a draft
task (user turns, ground-truth calls with data flow, facts as expressions); the generator
executes and validates every draft.

A family names what a user would know (a tag, a month, a subject, a person's name), never
an internal id, and words each request in several ways: a turn's `user` is a list of
wordings, of which the generator keeps the last for the test split and draws the others for
training.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from mcpgym.envs.toolbox import Toolbox

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")


class SamplingError(RuntimeError):
    """A read made while sampling failed: the family cannot ground this draft."""


class WorldView:
    """Read-only access to one seeded world while sampling: tool calls by server and name."""

    def __init__(self, servers: tuple[str, ...], seed: int) -> None:
        self.seed = seed
        self.toolbox = Toolbox(list(servers), seed)
        self.now = next(iter(self.toolbox.sessions.values())).context.now

    def read(self, server: str, tool: str, **arguments: Any) -> dict[str, Any]:
        result = self.toolbox.sessions[server].call(tool, arguments)
        if not result.ok or result.data is None:
            raise SamplingError(f"{server}.{tool}({arguments}): {result.error}")
        return result.data

    def close(self) -> None:
        self.toolbox.close()


@dataclass
class Draft:
    """A candidate task before validation. `key` names the grounded entities: two drafts of a
    family with the same key are duplicates, and the key decides the train/test split."""

    family: str
    turns: list[dict[str, Any]]
    key: str
    writes: bool = False
    checks: list[str] = field(default_factory=list)
    """Expressions over the results that must be true (e.g. no tie for an argmax)."""


class Family(ABC):
    """A kind of task over one or more servers."""

    name: str
    servers: tuple[str, ...]
    kind: str
    """aggregation, comparison, drill-down, lookup, conditional-write, write, cross-server."""

    @abstractmethod
    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        """A grounded draft, or None when this world offers nothing to ask about."""


def month_window(year: int, month: int) -> tuple[str, str]:
    """[first day, first day of next month) as ISO UTC times."""
    end_year, end_month = (year + 1, 1) if month == 12 else (year, month + 1)
    return f"{year:04d}-{month:02d}-01T00:00:00Z", f"{end_year:04d}-{end_month:02d}-01T00:00:00Z"


def month_name(year: int, month: int) -> str:
    return f"{MONTHS[month - 1]} {year}"


def previous_month(year: int, month: int, back: int = 1) -> tuple[int, int]:
    index = year * 12 + (month - 1) - back
    return index // 12, index % 12 + 1
