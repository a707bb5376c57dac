"""What an episode did, as the rewards read it: every call with its status, the answers, the
state changes."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from mcpgym.tasks.model import ExpectedChange

CallStatus = Literal["malformed", "rejected", "error", "ok"]
"""malformed: could not be read; rejected: unknown tool or arguments that fail the schema (or
over the call budget); error: executed, but the tool refused (not found, forbidden);
ok: executed successfully."""

INVALID_STATUSES: tuple[CallStatus, ...] = ("malformed", "rejected")
"""Statuses of calls that are not well formed (could not be read, or not a call of a shown
tool with arguments its schema accepts): the invalid-call counts of every metric."""

REJECTED_CODES = ("unknown_tool", "invalid_arguments", "budget_exceeded")


class CallRecord(BaseModel):
    """One tool call the agent made (or tried to make)."""

    turn: int
    tool: str = Field(description="The name the agent called ('' when it could not be read).")
    server: str | None = None
    server_tool: str | None = None
    arguments: dict[str, Any] | None = None
    status: CallStatus
    error: str | None = None
    result: dict[str, Any] | None = None


class Trajectory(BaseModel):
    """An episode's record: calls in order, one answer per finished user turn, row changes."""

    task_id: str
    calls: list[CallRecord] = Field(default_factory=list)
    answers: list[str] = Field(default_factory=list)
    changes: list[ExpectedChange] = Field(default_factory=list)
    steps: int = 0
    finished: bool = False

    @property
    def executed(self) -> list[CallRecord]:
        """Calls that reached a tool (status error or ok)."""
        return [c for c in self.calls if c.status in ("error", "ok")]


def status_of_error(error: str) -> CallStatus:
    """Status of a failed call from its error text (`<code>: <message>`)."""
    return "rejected" if error.split(":", 1)[0] in REJECTED_CODES else "error"
