"""The issue workflows, as data: statuses with their category and the transitions allowed
between them. A project names its workflow (`projects.workflow`); the tools read it from here,
and `get_workflow` shows it to the agent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

StatusName = Literal["To Do", "In Progress", "In Review", "Blocked", "Done", "Won't Do"]
"""Every status of every workflow."""

Category = Literal["to_do", "in_progress", "done"]

STATUS_CATEGORIES: dict[str, Category] = {
    "To Do": "to_do",
    "In Progress": "in_progress",
    "In Review": "in_progress",
    "Blocked": "in_progress",
    "Done": "done",
    "Won't Do": "done",
}
"""The category of each status: `done` statuses are resolved (they carry a resolution)."""

RESOLVED = tuple(status for status, category in STATUS_CATEGORIES.items() if category == "done")


@dataclass(frozen=True)
class Transition:
    """A move the workflow allows: its name (the button a person presses), from, to."""

    name: str
    source: str
    target: str


@dataclass(frozen=True)
class Workflow:
    """The statuses of a workflow, in board order, and its allowed transitions."""

    name: str
    statuses: tuple[str, ...]
    transitions: tuple[Transition, ...]

    def next_statuses(self, status: str) -> list[str]:
        """The statuses an issue in `status` may move to, in board order."""
        targets = {t.target for t in self.transitions if t.source == status}
        return [s for s in self.statuses if s in targets]

    def allows(self, source: str, target: str) -> bool:
        return any(t.source == source and t.target == target for t in self.transitions)


def _transitions(*rows: tuple[str, str, str]) -> tuple[Transition, ...]:
    return tuple(Transition(name, source, target) for name, source, target in rows)


SOFTWARE = Workflow(
    name="Software development",
    statuses=("To Do", "In Progress", "In Review", "Blocked", "Done", "Won't Do"),
    transitions=_transitions(
        ("Start progress", "To Do", "In Progress"),
        ("Block", "To Do", "Blocked"),
        ("Won't do", "To Do", "Won't Do"),
        ("Submit for review", "In Progress", "In Review"),
        ("Stop progress", "In Progress", "To Do"),
        ("Block", "In Progress", "Blocked"),
        ("Won't do", "In Progress", "Won't Do"),
        ("Approve", "In Review", "Done"),
        ("Request changes", "In Review", "In Progress"),
        ("Block", "In Review", "Blocked"),
        ("Unblock", "Blocked", "To Do"),
        ("Resume", "Blocked", "In Progress"),
        ("Reopen", "Done", "To Do"),
        ("Reopen", "Won't Do", "To Do"),
    ),
)
"""Scrum teams: every change is reviewed before it is done."""

SERVICE = Workflow(
    name="Service",
    statuses=("To Do", "In Progress", "Blocked", "Done", "Won't Do"),
    transitions=_transitions(
        ("Start progress", "To Do", "In Progress"),
        ("Block", "To Do", "Blocked"),
        ("Won't do", "To Do", "Won't Do"),
        ("Resolve", "In Progress", "Done"),
        ("Stop progress", "In Progress", "To Do"),
        ("Block", "In Progress", "Blocked"),
        ("Won't do", "In Progress", "Won't Do"),
        ("Unblock", "Blocked", "To Do"),
        ("Resume", "Blocked", "In Progress"),
        ("Reopen", "Done", "To Do"),
        ("Reopen", "Won't Do", "To Do"),
    ),
)
"""Kanban teams (support escalations, operations): no review step."""

WORKFLOWS: dict[str, Workflow] = {flow.name: flow for flow in (SOFTWARE, SERVICE)}


def category_of(status: str) -> Category:
    return STATUS_CATEGORIES[status]
