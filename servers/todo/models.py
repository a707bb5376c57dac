"""The task-manager schema: people, projects shared with collaborators, sections, tasks with
sub-tasks, due dates and recurrence, labels, comments and the activity log.

Linking rules with the shared world (`mcpgym.servers.kernel.world`) and the issue tracker:
- `users` are the employees of Northwind Systems (`org_000`) in world order: `id` is the
  person's index + 1 (as in the projects and help-desk servers), `external_id` the person id
  (`per_0007`); name, email, title and organisation name are the world's. User 1 owns the
  account every tool acts for;
- `tasks.jira_issue_key` is the key of the issue-tracker issue (`projects.issues.key`, WEB-42)
  a task follows, when it was made from one.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

ME = 1
"""The account owner every tool acts for: the first employee of the world."""
PRIORITIES = ("p1", "p2", "p3", "p4")
"""p1 is the most urgent; p4 (no priority) is the default."""
COLORS = ("berry_red", "red", "orange", "yellow", "olive_green", "lime_green", "green", "mint_green", "teal",
          "sky_blue", "light_blue", "blue", "grape", "violet", "lavender", "magenta", "salmon", "charcoal",
          "grey", "taupe")
"""The colour palette of projects and labels."""
MAX_DEPTH = 4
"""Levels of a task tree: a top-level task and at most three levels of sub-tasks below it."""
MAX_NAME_CHARS = 120
MAX_CONTENT_CHARS = 500
EVENTS = ("added", "updated", "completed", "uncompleted", "assigned", "moved", "commented", "series_ended", "deleted")
"""Kinds of activity-log entry; a recurring task's `completed` entries are its occurrences."""


class Base(DeclarativeBase):
    """Declarative base of the task-manager schema."""


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(120), index=True)
    email: Mapped[str] = mapped_column(String(160), unique=True)
    title: Mapped[str] = mapped_column(String(120))
    organization_name: Mapped[str] = mapped_column(String(120))
    timezone: Mapped[str] = mapped_column(String(40))


class Project(Base):
    """A list of tasks: the Inbox, a personal project, or one shared with collaborators."""

    __tablename__ = "projects"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(MAX_NAME_CHARS))
    color: Mapped[str] = mapped_column(String(16))
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    is_inbox: Mapped[bool] = mapped_column(default=False)
    is_favorite: Mapped[bool] = mapped_column(default=False)
    view_style: Mapped[str] = mapped_column(String(8))
    """list or board."""
    is_archived: Mapped[bool] = mapped_column(default=False)
    archived_at: Mapped[datetime | None]
    created_at: Mapped[datetime]


class Collaborator(Base):
    """A person a project is shared with (its owner included)."""

    __tablename__ = "collaborators"
    __table_args__ = (Index("ix_collaborators_user", "user_id", "project_id"),)

    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    joined_at: Mapped[datetime]


class Section(Base):
    __tablename__ = "sections"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id"), index=True)
    name: Mapped[str] = mapped_column(String(MAX_NAME_CHARS))
    position: Mapped[int]
    created_at: Mapped[datetime]


class Task(Base):
    """A task or sub-task; a recurring task is one row whose due date moves on completion."""

    __tablename__ = "tasks"
    __table_args__ = (Index("ix_tasks_project_open", "project_id", "is_completed"), Index("ix_tasks_due", "due_date"))

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id"))
    section_id: Mapped[int | None] = mapped_column(ForeignKey("sections.id"), index=True)
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("tasks.id"), index=True)
    content: Mapped[str] = mapped_column(String(MAX_CONTENT_CHARS))
    description: Mapped[str] = mapped_column(Text, default="")
    priority: Mapped[str] = mapped_column(String(2))
    due_date: Mapped[date | None]
    due_time: Mapped[str | None] = mapped_column(String(5))
    """`HH:MM` (UTC) for a task due at a time; null for a task due some time that day."""
    recurrence: Mapped[str | None] = mapped_column(String(60))
    """The repeat rule in its canonical words (`every mon, thu`); null for a one-off task."""
    assignee_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)
    creator_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    jira_issue_key: Mapped[str | None] = mapped_column(String(20), index=True)
    is_completed: Mapped[bool] = mapped_column(default=False)
    completed_at: Mapped[datetime | None]
    position: Mapped[int]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class Label(Base):
    __tablename__ = "labels"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(60))
    color: Mapped[str] = mapped_column(String(16))
    is_favorite: Mapped[bool] = mapped_column(default=False)


class TaskLabel(Base):
    __tablename__ = "task_labels"

    task_id: Mapped[int] = mapped_column(ForeignKey("tasks.id"), primary_key=True)
    label_id: Mapped[int] = mapped_column(ForeignKey("labels.id"), primary_key=True, index=True)


class Comment(Base):
    __tablename__ = "comments"

    id: Mapped[int] = mapped_column(primary_key=True)
    task_id: Mapped[int] = mapped_column(ForeignKey("tasks.id"), index=True)
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    content: Mapped[str] = mapped_column(Text)
    posted_at: Mapped[datetime]


class Activity(Base):
    """One entry of the activity log: what happened to a task, when and by whom. Entries keep
    the task's content and project, so they outlive a deleted task."""

    __tablename__ = "activity"
    __table_args__ = (Index("ix_activity_project_time", "project_id", "happened_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    task_id: Mapped[int] = mapped_column(index=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id"))
    event: Mapped[str] = mapped_column(String(16))
    initiator_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    content: Mapped[str] = mapped_column(String(MAX_CONTENT_CHARS))
    due_date: Mapped[date | None]
    """For a completion: the due date of the occurrence completed."""
    happened_at: Mapped[datetime] = mapped_column(index=True)
