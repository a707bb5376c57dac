"""Task families: each samples grounded parameters from a seeded world and writes a draft
task (user turns, ground-truth calls with data flow, facts as expressions); the generator
executes and validates every draft.

A family names what a user would know (a tag, a month, a subject, a person's name), never
an internal id, and words each request in several ways: a turn's `user` is a list of
wordings, of which the generator keeps the last for the test split and draws the others for
training.
"""

from __future__ import annotations

import json
import random
from abc import ABC, abstractmethod
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from mcpgym.servers.toolbox import Toolbox

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")


class SamplingError(RuntimeError):
    """A read made while sampling failed: the family cannot ground this draft."""


class WorldView:
    """Read-only access to one seeded world while sampling: read tools by server and name.

    Drafts are executed elsewhere, so the view always shows the seeded world; writing tools
    are refused here, which keeps it that way. A read is therefore a function of its
    arguments, and the view remembers the latest `memo_size` answers (families ask the same
    questions again and again: the tags, the employees, a day's meetings). Every call returns
    a fresh copy, so a family may change what it gets.
    """

    def __init__(self, servers: tuple[str, ...], seed: int, memo_size: int = 4096) -> None:
        self.seed = seed
        self.toolbox = Toolbox(list(servers), seed)
        self.now = next(iter(self.toolbox.sessions.values())).context.now
        self.memo_size = memo_size
        self._memo: OrderedDict[str, str | None] = OrderedDict()

    def read(self, server: str, tool: str, **arguments: Any) -> dict[str, Any]:
        """The result of a read tool; `SamplingError` if it fails."""
        found = self.lookup(server, tool, **arguments)
        if found is None:
            raise SamplingError(f"{server}.{tool}({arguments}) found nothing")
        return found

    def lookup(self, server: str, tool: str, **arguments: Any) -> dict[str, Any] | None:
        """The result of a read tool, or None when it answers not_found."""
        key = json.dumps([server, tool, arguments], sort_keys=True, default=str)
        if key in self._memo:
            self._memo.move_to_end(key)
            text = self._memo[key]
        else:
            text = self._call(server, tool, arguments)
            self._memo[key] = text
            if len(self._memo) > self.memo_size:
                self._memo.popitem(last=False)
        return None if text is None else json.loads(text)

    def _call(self, server: str, tool: str, arguments: dict[str, Any]) -> str | None:
        """The JSON of a read tool's result, or None for not_found."""
        session = self.toolbox.sessions[server]
        spec = session.spec.tools.get(tool)
        if spec is None or spec.writes:
            raise SamplingError(f"{server}.{tool} is not a read tool; sampling never writes")
        result = session.call(tool, arguments)
        if result.ok and result.data is not None:
            return json.dumps(result.data)
        if (result.error or "").startswith("not_found"):
            return None
        raise SamplingError(f"{server}.{tool}({arguments}): {result.error}")

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
    servers: tuple[str, ...] | None = None
    """The servers the task needs, when fewer than the family's (a walk that stays on some)."""
    known: list[str] = field(default_factory=list)
    """Id parameters a user would have and a request may name (a customer's ticket number);
    tagged `known:<parameter>` on the task."""


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
