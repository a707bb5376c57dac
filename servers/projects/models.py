"""The issue-tracker schema: users, projects and their members and components, issues with
labels, components, links, comments and field history, and sprints with their issues.

Links to the shared world and to other servers:
- `users` are the employees of Northwind Systems (`org_000`): `id` is the person's index in
  the world + 1 (as in the Zendesk server, so an employee has the same user id in both) and
  `external_id` the world's person id (`per_0007`); name, email, title and timezone are the
  world's.
- `issues.support_ticket_id` is the Zendesk ticket (`zendesk.tickets.id`) a support issue was
  escalated from (at most one issue per ticket).

Stable for other servers that read the seeded rows (through `kernel/links.py`): table
`issues` with `id`, `key` (`WEB-42`), `project_id`, `summary`, `status`, `type` and
`assignee_id`, and table `projects` with `id` and `key`.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


ISSUE_TYPES = ("epic", "story", "task", "bug", "subtask")
PRIORITIES = ("highest", "high", "medium", "low", "lowest")
"""Most urgent first."""
RESOLUTIONS = ("Done", "Won't Do", "Duplicate", "Cannot Reproduce")
LINK_TYPES = ("blocks", "duplicates", "relates")
STORY_POINTS = (1, 2, 3, 5, 8, 13, 21)
"""The estimates a story, task or bug may carry (the team's Fibonacci scale)."""
PROJECT_TYPES = ("scrum", "kanban")
ACTING_USER_ID = 1
"""The user every write acts as: the first employee of the world, lead of WEB and API."""
SPRINT_STATES = ("future", "active", "closed")


class Base(DeclarativeBase):
    """Declarative base of the issue-tracker schema."""


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(120), index=True)
    email: Mapped[str] = mapped_column(String(160), unique=True)
    title: Mapped[str] = mapped_column(String(120))
    timezone: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime]


class Project(Base):
    __tablename__ = "projects"

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(10), unique=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    description: Mapped[str] = mapped_column(String(400))
    type: Mapped[str] = mapped_column(String(8))
    """scrum (planned in sprints) or kanban (continuous flow, no sprints)."""
    workflow: Mapped[str] = mapped_column(String(40))
    """The name of the project's workflow (`workflow.WORKFLOWS`)."""
    lead_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    sprint_days: Mapped[int | None]
    """The usual length of a sprint (scrum projects)."""
    created_at: Mapped[datetime]


class ProjectMember(Base):
    __tablename__ = "project_members"

    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True, index=True)
    role: Mapped[str] = mapped_column(String(16))
    """lead or member."""


class Component(Base):
    __tablename__ = "components"
    __table_args__ = (UniqueConstraint("project_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id"))
    name: Mapped[str] = mapped_column(String(40))
    description: Mapped[str] = mapped_column(String(200))


class Sprint(Base):
    __tablename__ = "sprints"
    __table_args__ = (UniqueConstraint("project_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id"), index=True)
    name: Mapped[str] = mapped_column(String(60))
    state: Mapped[str] = mapped_column(String(8))
    """future, active or closed."""
    goal: Mapped[str | None] = mapped_column(String(200))
    start_at: Mapped[datetime | None]
    end_at: Mapped[datetime | None]
    completed_at: Mapped[datetime | None]
    created_at: Mapped[datetime]


class Issue(Base):
    __tablename__ = "issues"
    __table_args__ = (
        UniqueConstraint("project_id", "number"),
        Index("ix_issues_created", "created_at"),
        Index("ix_issues_project_status", "project_id", "status"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id"))
    number: Mapped[int]
    key: Mapped[str] = mapped_column(String(20), unique=True)
    type: Mapped[str] = mapped_column(String(8))
    summary: Mapped[str] = mapped_column(String(255))
    description: Mapped[str]
    status: Mapped[str] = mapped_column(String(16))
    priority: Mapped[str] = mapped_column(String(8))
    assignee_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)
    reporter_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    story_points: Mapped[int | None]
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("issues.id"), index=True)
    """The epic of a story, task or bug; the story, task or bug of a subtask."""
    resolution: Mapped[str | None] = mapped_column(String(20))
    support_ticket_id: Mapped[int | None] = mapped_column(unique=True)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    resolved_at: Mapped[datetime | None]


class IssueLabel(Base):
    __tablename__ = "issue_labels"

    issue_id: Mapped[int] = mapped_column(ForeignKey("issues.id"), primary_key=True)
    label: Mapped[str] = mapped_column(String(40), primary_key=True, index=True)


class IssueComponent(Base):
    __tablename__ = "issue_components"

    issue_id: Mapped[int] = mapped_column(ForeignKey("issues.id"), primary_key=True)
    component_id: Mapped[int] = mapped_column(ForeignKey("components.id"), primary_key=True, index=True)


class SprintIssue(Base):
    """An issue's membership of a sprint: added, possibly removed, and how it ended."""

    __tablename__ = "sprint_issues"

    sprint_id: Mapped[int] = mapped_column(ForeignKey("sprints.id"), primary_key=True)
    issue_id: Mapped[int] = mapped_column(ForeignKey("issues.id"), primary_key=True, index=True)
    added_at: Mapped[datetime]
    removed_at: Mapped[datetime | None]
    """When the issue was moved out of the sprint (null while it is in it)."""
    committed: Mapped[bool] = mapped_column(default=False)
    """In the sprint when it started."""
    points_at_start: Mapped[int | None]
    """Its story points when the sprint started (committed issues)."""
    completed: Mapped[bool] = mapped_column(default=False)
    """Done when the sprint closed."""


class IssueLink(Base):
    """`source` blocks / duplicates / relates to `target`."""

    __tablename__ = "issue_links"
    __table_args__ = (UniqueConstraint("source_id", "target_id", "type"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    source_id: Mapped[int] = mapped_column(ForeignKey("issues.id"), index=True)
    target_id: Mapped[int] = mapped_column(ForeignKey("issues.id"), index=True)
    type: Mapped[str] = mapped_column(String(12))
    """blocks, duplicates or relates."""
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime]


class Comment(Base):
    __tablename__ = "comments"

    id: Mapped[int] = mapped_column(primary_key=True)
    issue_id: Mapped[int] = mapped_column(ForeignKey("issues.id"), index=True)
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    body: Mapped[str]
    created_at: Mapped[datetime]


class IssueChange(Base):
    """One field change of an issue: who changed it, when, from what to what (as text)."""

    __tablename__ = "issue_changes"

    id: Mapped[int] = mapped_column(primary_key=True)
    issue_id: Mapped[int] = mapped_column(ForeignKey("issues.id"), index=True)
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    field: Mapped[str] = mapped_column(String(16))
    from_value: Mapped[str | None]
    to_value: Mapped[str | None]
    created_at: Mapped[datetime]
