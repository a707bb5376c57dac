"""The task-manager tools: find projects, tasks and people, read the agenda, comments, history
and completion reports, and add, edit, assign, move, complete, reopen and delete tasks, share
and archive projects, within the app's rules."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import Body, DateTimeArg, Page, PerPage, Timestamp
from mcpgym.servers.kernel.lookup import missing
from mcpgym.servers.kernel.query import search_words
from mcpgym.servers.kernel.sql import Row, contains_pattern
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry
from mcpgym.servers.todo.models import (
    COLORS,
    EVENTS,
    MAX_CONTENT_CHARS,
    MAX_DEPTH,
    MAX_NAME_CHARS,
    ME,
    Activity,
    Collaborator,
    Comment,
    Label,
    Project,
    Section,
    Task,
    User,
)
from mcpgym.servers.todo.recurrence import RecurrenceError, first_on_or_after, next_due, parse

tools = ToolRegistry()

Priority = Literal["p1", "p2", "p3", "p4"]
Color = Literal[COLORS]  # type: ignore[valid-type]
Event = Literal[EVENTS]  # type: ignore[valid-type]
LabelName = Annotated[str, Field(min_length=1, max_length=60, description="A label's name, e.g. 'waiting'.")]
TaskId = Annotated[int, Field(description="The task's id (search_tasks or get_agenda finds it).")]
ProjectId = Annotated[int, Field(description="The project's id (list_projects finds it by name).")]
Content = Annotated[str, Field(min_length=1, max_length=MAX_CONTENT_CHARS, description="The task's name, as it shows in the list.")]
DueTime = Annotated[str, Field(pattern=r"^([01]\d|2[0-3]):[0-5]\d$", description="A time of day, HH:MM (UTC).")]

TASK_HINT = "Use search_tasks to find tasks by words, project, label or due date."
PROJECT_HINT = "Use list_projects to find a project by name."
USER_HINT = "Use list_users to find people by name, or get_user_by_email."
SECTION_HINT = "get_project lists a project's sections."


# ---------------------------------------------------------------- result models


class UserOut(BaseModel):
    id: int
    name: str
    email: str
    title: str
    organization_name: str
    timezone: str


class UserPage(BaseModel):
    users: list[UserOut]
    total: int
    page: int
    next_page: int | None


class ProjectSummary(BaseModel):
    id: int
    name: str
    color: str
    is_inbox: bool
    is_favorite: bool
    is_shared: bool = Field(description="Shared with at least one colleague.")
    is_archived: bool
    view_style: str = Field(description="list or board.")
    owner_id: int
    owner_name: str
    collaborator_count: int = Field(description="People in the project, its owner and you included.")
    open_tasks: int = Field(description="Open tasks, sub-tasks included.")
    completed_tasks: int
    overdue_tasks: int = Field(description="Open tasks due before today.")
    created_at: Timestamp
    archived_at: Timestamp | None


class ProjectPage(BaseModel):
    projects: list[ProjectSummary]
    total: int
    page: int
    next_page: int | None


class SectionOut(BaseModel):
    id: int
    project_id: int
    name: str
    position: int
    open_tasks: int


class CollaboratorOut(BaseModel):
    user_id: int
    name: str
    email: str
    is_owner: bool
    joined_at: Timestamp


class ProjectDetail(ProjectSummary):
    sections: list[SectionOut] = Field(description="In board order.")
    collaborators: list[CollaboratorOut] = Field(description="By name.")


class TaskSummary(BaseModel):
    id: int
    content: str
    project_id: int
    project_name: str
    section_id: int | None
    parent_id: int | None = Field(description="The parent task of a sub-task; null for a top-level task.")
    priority: str = Field(description="p1 (most urgent) to p4 (none).")
    due_date: date | None
    due_time: str | None = Field(description="HH:MM (UTC) when due at a time of day.")
    recurrence: str | None = Field(description="The repeat rule of a recurring task, e.g. 'every mon, thu'.")
    assignee_id: int | None
    assignee_name: str | None
    labels: list[str]
    jira_issue_key: str | None = Field(description="The Jira issue (projects server) the task follows, e.g. WEB-42.")
    is_completed: bool
    completed_at: Timestamp | None
    open_subtask_count: int
    comment_count: int


class TaskOut(TaskSummary):
    description: str
    section_name: str | None
    is_overdue: bool = Field(description="Open and due before today.")
    subtask_count: int
    created_at: Timestamp


class TaskPage(BaseModel):
    tasks: list[TaskSummary]
    total: int
    page: int
    next_page: int | None


class TaskDetail(TaskOut):
    level: int = Field(description="1 for a top-level task, 2 for its sub-task, and so on (at most 4).")
    parent_content: str | None
    creator_name: str
    subtasks: list[TaskSummary] = Field(description="Direct sub-tasks, in list order.")


class AgendaItem(BaseModel):
    id: int
    content: str
    project_id: int
    project_name: str
    priority: str
    due_date: date
    due_time: str | None
    recurrence: str | None
    assignee_name: str | None


class AgendaDay(BaseModel):
    date: date
    tasks: list[AgendaItem]


class Agenda(BaseModel):
    today: date
    overdue: list[AgendaItem] = Field(description="Open tasks due before today, oldest due date first.")
    days: list[AgendaDay] = Field(description="Today and the following days, each with its open tasks (timed ones first, by time).")
    total: int = Field(description="Tasks listed, overdue included.")


class LabelOut(BaseModel):
    id: int
    name: str
    color: str
    is_favorite: bool
    open_tasks: int


class LabelList(BaseModel):
    labels: list[LabelOut]


class CommentOut(BaseModel):
    id: int
    task_id: int
    author_id: int
    author_name: str
    content: str
    posted_at: Timestamp


class CommentPage(BaseModel):
    task_id: int
    comments: list[CommentOut]
    total: int
    page: int
    next_page: int | None


class ActivityOut(BaseModel):
    id: int
    task_id: int
    content: str = Field(description="The task's name when it happened.")
    project_id: int
    project_name: str
    event: str = Field(description="added, updated, completed, uncompleted, assigned, moved, commented, series_ended or deleted.")
    user_id: int = Field(description="Who did it.")
    user_name: str
    due_date: date | None = Field(description="For a completion: the due date of the occurrence completed.")
    happened_at: Timestamp


class ActivityPage(BaseModel):
    entries: list[ActivityOut]
    total: int
    page: int
    next_page: int | None


class ReportGroup(BaseModel):
    key: str = Field(description="The day (YYYY-MM-DD), the week's Monday, the month (YYYY-MM) or the project's name.")
    project_id: int | None = Field(description="For project groups.")
    completed: int


class CompletionReport(BaseModel):
    after: date
    before: date
    total_completed: int = Field(description="Completions in the period, occurrences of recurring tasks included.")
    recurring_occurrences: int
    groups: list[ReportGroup]
    busiest: ReportGroup | None = Field(description="The group with the most completions (the earliest or first by name on a tie).")


class Completion(BaseModel):
    task: TaskOut
    occurrence_completed: bool = Field(description="True for a recurring task: one occurrence was completed and the task stays open.")
    completed_due_date: date | None = Field(description="The due date of what was completed.")
    next_due_date: date | None = Field(description="For a recurring task, the due date of its next occurrence.")
    subtasks_completed: int = Field(description="Open sub-tasks completed along with the task.")


class DeletedTask(BaseModel):
    task_id: int
    content: str
    project_id: int
    deleted_subtasks: int
    deleted_comments: int


# ---------------------------------------------------------------- reading

TASK_COLUMNS = (
    "tasks.id, tasks.project_id, projects.name AS project_name, tasks.section_id, sections.name AS section_name, "
    "tasks.parent_id, tasks.content, tasks.description, tasks.priority, tasks.due_date, tasks.due_time, "
    "tasks.recurrence, tasks.assignee_id, assignee.name AS assignee_name, tasks.creator_id, tasks.jira_issue_key, "
    "tasks.is_completed, tasks.completed_at, tasks.created_at, tasks.updated_at, tasks.position, "
    "(SELECT json_group_array(name) FROM (SELECT labels.name FROM task_labels JOIN labels ON labels.id = task_labels.label_id "
    "WHERE task_labels.task_id = tasks.id ORDER BY labels.name)) AS label_names, "
    "(SELECT count(*) FROM tasks AS sub WHERE sub.parent_id = tasks.id) AS subtask_count, "
    "(SELECT count(*) FROM tasks AS sub WHERE sub.parent_id = tasks.id AND NOT sub.is_completed) AS open_subtask_count, "
    "(SELECT count(*) FROM comments WHERE comments.task_id = tasks.id) AS comment_count"
)
TASK_FROM = ("FROM tasks JOIN projects ON projects.id = tasks.project_id LEFT JOIN sections ON sections.id = tasks.section_id "
             "LEFT JOIN users AS assignee ON assignee.id = tasks.assignee_id")

PROJECT_COLUMNS = (
    "projects.id, projects.name, projects.color, projects.is_inbox, projects.is_favorite, projects.is_archived, "
    "projects.view_style, projects.owner_id, owner.name AS owner_name, projects.created_at, projects.archived_at, "
    "(SELECT count(*) FROM collaborators AS c WHERE c.project_id = projects.id) AS collaborator_count, "
    "(SELECT count(*) FROM tasks AS t WHERE t.project_id = projects.id AND NOT t.is_completed) AS open_tasks, "
    "(SELECT count(*) FROM tasks AS t WHERE t.project_id = projects.id AND t.is_completed) AS completed_tasks, "
    "(SELECT count(*) FROM tasks AS t WHERE t.project_id = projects.id AND NOT t.is_completed AND t.due_date < ?) AS overdue_tasks"
)
PROJECT_FROM = "FROM projects JOIN users AS owner ON owner.id = projects.owner_id"


def _today(ctx: ToolContext) -> date:
    return ctx.now.date()


def _task_out(ctx: ToolContext, row: Row) -> TaskOut:
    overdue = not row["is_completed"] and row["due_date"] is not None and row["due_date"] < _today(ctx)
    return TaskOut(**row, labels=json.loads(row["label_names"]), is_overdue=overdue)


def _summaries(ctx: ToolContext, where: str, params: list[Any], order: str = "tasks.position, tasks.id") -> list[TaskSummary]:
    rows = ctx.sql.all(f"SELECT {TASK_COLUMNS} {TASK_FROM} WHERE {where} ORDER BY {order}", params, Task)
    return [TaskSummary(**row, labels=json.loads(row["label_names"])) for row in rows]


def _task_row(ctx: ToolContext, task_id: int) -> Row:
    row = ctx.sql.one(f"SELECT {TASK_COLUMNS}, projects.is_archived AS project_archived {TASK_FROM} WHERE tasks.id = ?",
                      [task_id], Task)
    if row is None:
        raise missing("task", task_id, TASK_HINT)
    return row


def _task(ctx: ToolContext, task_id: int) -> TaskOut:
    return _task_out(ctx, _task_row(ctx, task_id))


def _project_row(ctx: ToolContext, project_id: int) -> Row:
    row = ctx.sql.one(f"SELECT {PROJECT_COLUMNS} {PROJECT_FROM} WHERE projects.id = ?", [_today(ctx), project_id], Project)
    if row is None:
        raise missing("project", project_id, PROJECT_HINT)
    return row


def _summary(row: Row) -> ProjectSummary:
    return ProjectSummary(**row, is_shared=row["collaborator_count"] > 1)


def _project_detail(ctx: ToolContext, row: Row) -> ProjectDetail:
    sections = ctx.sql.all(
        "SELECT sections.id, sections.project_id, sections.name, sections.position, "
        "(SELECT count(*) FROM tasks WHERE tasks.section_id = sections.id AND NOT tasks.is_completed) AS open_tasks "
        "FROM sections WHERE sections.project_id = ? ORDER BY sections.position, sections.id", [row["id"]], Section)
    people = ctx.sql.all(
        "SELECT users.id AS user_id, users.name, users.email, collaborators.joined_at FROM collaborators "
        "JOIN users ON users.id = collaborators.user_id WHERE collaborators.project_id = ? ORDER BY users.name, users.id",
        [row["id"]], Collaborator)
    return ProjectDetail(**row, is_shared=row["collaborator_count"] > 1, sections=[SectionOut(**s) for s in sections],
                         collaborators=[CollaboratorOut(**p, is_owner=p["user_id"] == row["owner_id"]) for p in people])


def _user_exists(ctx: ToolContext, user_id: int) -> None:
    if ctx.sql.scalar("SELECT 1 FROM users WHERE id = ?", [user_id]) is None:
        raise missing("user", user_id, USER_HINT)


def _section_row(ctx: ToolContext, section_id: int) -> Row:
    row = ctx.sql.one("SELECT * FROM sections WHERE id = ?", [section_id], Section)
    if row is None:
        raise missing("section", section_id, SECTION_HINT)
    return row


def _label_ids(ctx: ToolContext, names: list[str]) -> list[int]:
    """Label ids by name (case-insensitive), each once; `NotFoundError` naming an unknown one."""
    wanted = list(dict.fromkeys(name.strip().lower() for name in names))
    rows = ctx.sql.all("SELECT id, lower(name) AS key FROM labels WHERE lower(name) IN (SELECT value FROM json_each(?))", [wanted])
    found = {row["key"]: row["id"] for row in rows}
    unknown = [name for name in wanted if name not in found]
    if unknown:
        raise NotFoundError(f"no label named {', '.join(repr(n) for n in unknown[:5])}. list_labels lists the labels; "
                            "create_label makes a new one")
    return [found[name] for name in wanted]


def _check_range(low: Any, high: Any, what: str) -> None:
    if low is not None and high is not None and low >= high:
        raise InvalidArgumentError(f"{what}: the start must be earlier than the end")


@tools.tool(title="Get a user by email", examples=[{"email": "ann.olson@northwindsystems.com"}])
def get_user_by_email(
    ctx: ToolContext,
    email: Annotated[str, Field(min_length=3, max_length=160, description="The person's email address (case-insensitive).")],
) -> UserOut:
    """Find a colleague by email: their user id (for assignee_id) and organisation. People are
    Northwind Systems' employees; user 1 is you."""
    row = ctx.sql.one("SELECT * FROM users WHERE email = ?", [email.strip().lower()], User)
    if row is None:
        raise NotFoundError(f"no user with email {email.strip().lower()[:160]}. Only Northwind Systems employees "
                            f"use the workspace; {USER_HINT}")
    return UserOut(**row)


@tools.tool(examples=[{"query": "olson"}, {"project_id": 4}])
def list_users(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Words that must appear in the name or email (case-insensitive).")] = None,
    project_id: Annotated[int | None, Field(description="Only the collaborators of this project.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> UserPage:
    """Find colleagues by name (or list a project's collaborators), by name. Tasks of a shared
    project can be assigned to its collaborators only."""
    clauses: list[str] = []
    params: list[Any] = []
    for word in search_words(query):
        clauses.append("(lower(users.name) LIKE ? ESCAPE '/' OR lower(users.email) LIKE ? ESCAPE '/')")
        params += [contains_pattern(word)] * 2
    if project_id is not None:
        if ctx.sql.scalar("SELECT 1 FROM projects WHERE id = ?", [project_id]) is None:
            raise missing("project", project_id, PROJECT_HINT)
        clauses.append("users.id IN (SELECT user_id FROM collaborators WHERE project_id = ?)")
        params.append(project_id)
    where = " AND ".join(clauses) or "1"
    found = ctx.sql.page("users.*", f"FROM users WHERE {where} ORDER BY users.name, users.id", params, page, per_page, User)
    return UserPage(users=[UserOut(**row) for row in found.rows], total=found.total, page=page, next_page=found.next_page)


@tools.tool(examples=[{}, {"query": "planning"}, {"state": "archived"}, {"shared_only": True, "sort_by": "open_tasks"}])
def list_projects(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Words that must appear in the project's name (case-insensitive).")] = None,
    state: Annotated[Literal["active", "archived", "all"], Field(description="Active projects, archived ones, or both.")] = "active",
    shared_only: Annotated[bool, Field(description="Only projects shared with colleagues.")] = False,
    favorites_only: Annotated[bool, Field(description="Only favourite projects.")] = False,
    sort_by: Annotated[Literal["name", "created_at", "open_tasks", "overdue_tasks"], Field(description="Sort key (the Inbox always comes first by name).")] = "name",
    sort_order: Annotated[Literal["asc", "desc"], Field(description="Sort direction.")] = "asc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> ProjectPage:
    """Browse or search your projects (the Inbox, your own and those shared with you), with
    their open, completed and overdue task counts. Use get_project for sections and people."""
    clauses: list[str] = []
    params: list[Any] = [_today(ctx)]
    for word in search_words(query):
        clauses.append("lower(projects.name) LIKE ? ESCAPE '/'")
        params.append(contains_pattern(word))
    if state != "all":
        clauses.append("projects.is_archived = ?")
        params.append(state == "archived")
    if shared_only:
        clauses.append("(SELECT count(*) FROM collaborators AS c WHERE c.project_id = projects.id) > 1")
    if favorites_only:
        clauses.append("projects.is_favorite")
    direction = "ASC" if sort_order == "asc" else "DESC"
    key = {"name": "lower(projects.name)", "created_at": "projects.created_at", "open_tasks": "open_tasks",
           "overdue_tasks": "overdue_tasks"}[sort_by]
    order = f"{'NOT projects.is_inbox, ' if sort_by == 'name' else ''}{key} {direction}, projects.id ASC"
    where = " AND ".join(clauses) or "1"
    found = ctx.sql.page(PROJECT_COLUMNS, f"{PROJECT_FROM} WHERE {where} ORDER BY {order}", params, page, per_page, Project)
    return ProjectPage(projects=[_summary(r) for r in found.rows], total=found.total, page=page, next_page=found.next_page)


@tools.tool(examples=[{"project_id": 4}, {"project_id": 1}])
def get_project(ctx: ToolContext, project_id: ProjectId) -> ProjectDetail:
    """One project with its task counts, its sections (with open tasks each) and its collaborators."""
    return _project_detail(ctx, _project_row(ctx, project_id))


@tools.tool(examples=[{"task_id": 30}, {"task_id": 247}, {"task_id": 222}])
def get_task(ctx: ToolContext, task_id: TaskId) -> TaskDetail:
    """One task with its description, labels, due date and repeat rule, assignee, parent and
    direct sub-tasks, and its level in the task tree."""
    row = _task_row(ctx, task_id)
    extra = ctx.sql.one(
        "WITH RECURSIVE up(id, parent_id, level) AS (SELECT id, parent_id, 1 FROM tasks WHERE id = ? "
        "UNION ALL SELECT tasks.id, tasks.parent_id, up.level + 1 FROM tasks JOIN up ON tasks.id = up.parent_id) "
        "SELECT (SELECT max(level) FROM up) AS level, "
        "(SELECT content FROM tasks WHERE id = ?) AS parent_content, (SELECT name FROM users WHERE id = ?) AS creator_name",
        [task_id, row["parent_id"], row["creator_id"]])
    assert extra is not None
    subtasks = _summaries(ctx, "tasks.parent_id = ?", [task_id])
    return TaskDetail(**_task_out(ctx, row).model_dump(), level=extra["level"], parent_content=extra["parent_content"],
                      creator_name=extra["creator_name"], subtasks=subtasks)


TASK_SORT = {"due_date": "tasks.due_date", "priority": "tasks.priority", "created_at": "tasks.created_at",
             "completed_at": "tasks.completed_at", "content": "lower(tasks.content)"}


@tools.tool(examples=[{"query": "deck"}, {"due": "overdue", "sort_by": "due_date"},
                      {"project_id": 4, "status": "all", "per_page": 10},
                      {"label": "waiting", "priority": ["p1", "p2"]}, {"recurring": True}])
def search_tasks(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Words that must all appear in the task's name or description (case-insensitive).")] = None,
    project_id: Annotated[int | None, Field(description="Only tasks of this project.")] = None,
    section_id: Annotated[int | None, Field(description="Only tasks of this section.")] = None,
    parent_id: Annotated[int | None, Field(description="Only the direct sub-tasks of this task.")] = None,
    top_level_only: Annotated[bool, Field(description="Only top-level tasks (no sub-tasks).")] = False,
    label: Annotated[LabelName | None, Field(description="Only tasks with this label.")] = None,
    priority: Annotated[list[Priority] | None, Field(description="Only tasks with one of these priorities.")] = None,
    assignee_id: Annotated[int | None, Field(description="Only tasks assigned to this user (1 is you).")] = None,
    status: Annotated[Literal["open", "completed", "all"], Field(description="Open tasks (default), completed ones, or both.")] = "open",
    due: Annotated[Literal["overdue", "today", "next_7_days", "no_date"] | None,
                   Field(description="overdue: due before today; today; next_7_days: today and the six days after; no_date: undated.")] = None,
    due_after: Annotated[date | None, Field(description="Only tasks due on or after this date (YYYY-MM-DD).")] = None,
    due_before: Annotated[date | None, Field(description="Only tasks due strictly before this date.")] = None,
    recurring: Annotated[bool | None, Field(description="True: only recurring tasks; False: only one-off tasks.")] = None,
    jira_issue_key: Annotated[str | None, Field(max_length=20, description="Only tasks following this Jira issue (e.g. WEB-42).")] = None,
    completed_after: Annotated[DateTimeArg | None, Field(description="Only tasks completed at or after this time (ISO 8601, UTC).")] = None,
    completed_before: Annotated[DateTimeArg | None, Field(description="Only tasks completed strictly before this time.")] = None,
    include_archived: Annotated[bool, Field(description="Also tasks of archived projects (always included when project_id names one).")] = False,
    sort_by: Annotated[Literal["due_date", "priority", "created_at", "completed_at", "content"],
                       Field(description="Sort key; tasks without a value sort last.")] = "due_date",
    sort_order: Annotated[Literal["asc", "desc"], Field(description="Sort direction (priority ascending: p1 first).")] = "asc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> TaskPage:
    """Search tasks with filters (all must hold); one page of tasks and the total.

    Ties sort by due time (timed tasks first), then creation order."""
    _check_range(due_after, due_before, "due_after/due_before")
    _check_range(completed_after, completed_before, "completed_after/completed_before")
    today = _today(ctx)
    clauses: list[str] = []
    params: list[Any] = []
    for word in search_words(query):
        clauses.append("(lower(tasks.content) LIKE ? ESCAPE '/' OR lower(tasks.description) LIKE ? ESCAPE '/')")
        params += [contains_pattern(word)] * 2
    checks = [("projects", project_id, "project", PROJECT_HINT), ("sections", section_id, "section", SECTION_HINT),
              ("tasks", parent_id, "task", TASK_HINT), ("users", assignee_id, "user", USER_HINT)]
    for table, value, what, hint in checks:
        if value is not None and ctx.sql.scalar(f"SELECT 1 FROM {table} WHERE id = ?", [value]) is None:
            raise missing(what, value, hint)
    for column, value in (("tasks.project_id", project_id), ("tasks.section_id", section_id),
                          ("tasks.parent_id", parent_id), ("tasks.assignee_id", assignee_id)):
        if value is not None:
            clauses.append(f"{column} = ?")
            params.append(value)
    if top_level_only:
        clauses.append("tasks.parent_id IS NULL")
    if label is not None:
        (label_id,) = _label_ids(ctx, [label])
        clauses.append("tasks.id IN (SELECT task_id FROM task_labels WHERE label_id = ?)")
        params.append(label_id)
    if priority:
        clauses.append("tasks.priority IN (SELECT value FROM json_each(?))")
        params.append(list(priority))
    if status != "all":
        clauses.append("tasks.is_completed = ?")
        params.append(status == "completed")
    if due == "overdue":
        clauses.append("tasks.due_date < ?")
        params.append(today)
    elif due == "today":
        clauses.append("tasks.due_date = ?")
        params.append(today)
    elif due == "next_7_days":
        clauses.append("tasks.due_date >= ? AND tasks.due_date < ?")
        params += [today, today + timedelta(days=7)]
    elif due == "no_date":
        clauses.append("tasks.due_date IS NULL")
    for condition, value in (("tasks.due_date >= ?", due_after), ("tasks.due_date < ?", due_before),
                             ("tasks.completed_at >= ?", completed_after), ("tasks.completed_at < ?", completed_before)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    if recurring is not None:
        clauses.append("tasks.recurrence IS NOT NULL" if recurring else "tasks.recurrence IS NULL")
    if jira_issue_key:
        clauses.append("upper(tasks.jira_issue_key) = ?")
        params.append(jira_issue_key.strip().upper())
    if not include_archived and project_id is None:
        clauses.append("NOT projects.is_archived")
    key = TASK_SORT[sort_by]
    direction = "ASC" if sort_order == "asc" else "DESC"
    order = (f"{key} IS NULL, {key} {direction}, tasks.due_time IS NULL, tasks.due_time {direction}, "
             "tasks.created_at, tasks.id")
    where = " AND ".join(clauses) or "1"
    found = ctx.sql.page(TASK_COLUMNS, f"{TASK_FROM} WHERE {where} ORDER BY {order}", params, page, per_page, Task)
    return TaskPage(tasks=[TaskSummary(**r, labels=json.loads(r["label_names"])) for r in found.rows], total=found.total,
                    page=page, next_page=found.next_page)


@tools.tool(examples=[{}, {"days": 14, "assigned_to_me_only": True}, {"days": 3, "project_id": 2}])
def get_agenda(
    ctx: ToolContext,
    days: Annotated[int, Field(ge=1, le=14, description="Days to show, today included.")] = 7,
    project_id: Annotated[int | None, Field(description="Only tasks of this project.")] = None,
    assigned_to_me_only: Annotated[bool, Field(description="Only tasks assigned to you or to nobody.")] = False,
) -> Agenda:
    """Today and upcoming view: overdue open tasks, then each day from today with the open
    tasks due that day (archived projects aside)."""
    today = _today(ctx)
    clauses = ["NOT tasks.is_completed", "NOT projects.is_archived", "tasks.due_date < ?"]
    params: list[Any] = [today + timedelta(days=days)]
    if project_id is not None:
        _project_row(ctx, project_id)
        clauses.append("tasks.project_id = ?")
        params.append(project_id)
    if assigned_to_me_only:
        clauses.append("(tasks.assignee_id IS NULL OR tasks.assignee_id = ?)")
        params.append(ME)
    rows = ctx.sql.all(
        "SELECT tasks.id, tasks.content, tasks.project_id, projects.name AS project_name, tasks.priority, tasks.due_date, "
        f"tasks.due_time, tasks.recurrence, assignee.name AS assignee_name {TASK_FROM} WHERE {' AND '.join(clauses)} "
        "ORDER BY tasks.due_date, tasks.due_time IS NULL, tasks.due_time, tasks.priority, tasks.id", params, Task)
    listed = [AgendaItem(**row) for row in rows]
    overdue = [t for t in listed if t.due_date < today]
    schedule = [AgendaDay(date=today + timedelta(days=n), tasks=[t for t in listed if t.due_date == today + timedelta(days=n)])
                for n in range(days)]
    return Agenda(today=today, overdue=overdue, days=schedule, total=len(listed))


@tools.tool(examples=[{}])
def list_labels(ctx: ToolContext) -> LabelList:
    """Every label (personal tags shared by all your projects) with its open-task count, favourites first, then by name."""
    rows = ctx.sql.all(
        "SELECT labels.*, (SELECT count(*) FROM task_labels JOIN tasks ON tasks.id = task_labels.task_id "
        "WHERE task_labels.label_id = labels.id AND NOT tasks.is_completed) AS open_tasks FROM labels "
        "ORDER BY NOT labels.is_favorite, lower(labels.name), labels.id", [], Label)
    return LabelList(labels=[LabelOut(**row) for row in rows])


@tools.tool(examples=[{"task_id": 30}])
def list_comments(ctx: ToolContext, task_id: TaskId, page: Page = 1, per_page: PerPage = 25) -> CommentPage:
    """The comments on a task, oldest first."""
    if ctx.sql.scalar("SELECT 1 FROM tasks WHERE id = ?", [task_id]) is None:
        raise missing("task", task_id, TASK_HINT)
    found = ctx.sql.page(
        "comments.*, users.name AS author_name",
        "FROM comments JOIN users ON users.id = comments.author_id WHERE comments.task_id = ? "
        "ORDER BY comments.posted_at, comments.id", [task_id], page, per_page, Comment)
    return CommentPage(task_id=task_id, comments=[CommentOut(**r) for r in found.rows], total=found.total, page=page,
                       next_page=found.next_page)


@tools.tool(examples=[{"event": ["completed"], "after": "2025-10-01"}, {"task_id": 30}, {"project_id": 4, "per_page": 10}])
def get_activity(
    ctx: ToolContext,
    project_id: Annotated[int | None, Field(description="Only entries of this project's tasks.")] = None,
    task_id: Annotated[int | None, Field(description="Only entries of this task (also after it was deleted).")] = None,
    event: Annotated[list[Event] | None, Field(description="Only these kinds of entry.")] = None,  # type: ignore[valid-type]
    user_id: Annotated[int | None, Field(description="Only entries by this person (1 is you).")] = None,
    after: Annotated[DateTimeArg | None, Field(description="Only entries at or after this time (ISO 8601, UTC).")] = None,
    before: Annotated[DateTimeArg | None, Field(description="Only entries strictly before this time.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> ActivityPage:
    """The activity log, newest first: tasks added, edited, assigned, moved, commented on,
    completed (one entry per occurrence of a recurring task, with its due date), reopened and deleted."""
    _check_range(after, before, "after/before")
    clauses: list[str] = []
    params: list[Any] = []
    if project_id is not None:
        _project_row(ctx, project_id)
        clauses.append("activity.project_id = ?")
        params.append(project_id)
    if task_id is not None:
        if ctx.sql.scalar("SELECT 1 FROM tasks WHERE id = ? UNION ALL SELECT 1 FROM activity WHERE task_id = ?",
                          [task_id, task_id]) is None:
            raise missing("task", task_id, TASK_HINT)
        clauses.append("activity.task_id = ?")
        params.append(task_id)
    if user_id is not None:
        _user_exists(ctx, user_id)
        clauses.append("activity.initiator_id = ?")
        params.append(user_id)
    if event:
        clauses.append("activity.event IN (SELECT value FROM json_each(?))")
        params.append(list(event))
    for condition, value in (("activity.happened_at >= ?", after), ("activity.happened_at < ?", before)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    where = " AND ".join(clauses) or "1"
    found = ctx.sql.page(
        "activity.*, activity.initiator_id AS user_id, users.name AS user_name, projects.name AS project_name",
        f"FROM activity JOIN users ON users.id = activity.initiator_id JOIN projects ON projects.id = activity.project_id "
        f"WHERE {where} ORDER BY activity.happened_at DESC, activity.id DESC", params, page, per_page, Activity)
    return ActivityPage(entries=[ActivityOut(**r) for r in found.rows], total=found.total, page=page, next_page=found.next_page)


@tools.tool(examples=[{"after": "2025-10-01", "before": "2025-11-01"},
                      {"after": "2025-01-01", "before": "2025-11-12", "group_by": "project"},
                      {"after": "2025-09-01", "before": "2025-11-01", "group_by": "week", "project_id": 2}])
def completion_report(
    ctx: ToolContext,
    after: Annotated[date, Field(description="First day of the period (YYYY-MM-DD, UTC).")],
    before: Annotated[date, Field(description="The day after the period (exclusive).")],
    group_by: Annotated[Literal["day", "week", "month", "project"], Field(description="How to group the completions.")] = "month",
    project_id: Annotated[int | None, Field(description="Only completions in this project.")] = None,
) -> CompletionReport:
    """How many tasks were completed in a period, grouped by day, week (starting Monday),
    month or project, from the activity log (each completed occurrence of a recurring task
    counts). Reopened tasks still count their completion."""
    _check_range(after, before, "after/before")
    if (before - after).days > 800:
        raise InvalidArgumentError("the period may span at most 800 days")
    clauses = ["activity.event = 'completed'", "activity.happened_at >= ?", "activity.happened_at < ?"]
    params: list[Any] = [datetime.combine(after, datetime.min.time()), datetime.combine(before, datetime.min.time())]
    if project_id is not None:
        _project_row(ctx, project_id)
        clauses.append("activity.project_id = ?")
        params.append(project_id)
    key = {"day": "date(activity.happened_at)", "month": "strftime('%Y-%m', activity.happened_at)",
           "week": "date(activity.happened_at, '-' || ((CAST(strftime('%w', activity.happened_at) AS INTEGER) + 6) % 7) || ' days')",
           "project": "projects.name"}[group_by]
    rows = ctx.sql.all(
        f"SELECT {key} AS key, {'activity.project_id' if group_by == 'project' else 'NULL'} AS project_id, count(*) AS completed, "
        "sum(activity.due_date IS NOT NULL AND EXISTS (SELECT 1 FROM tasks WHERE tasks.id = activity.task_id "
        "AND tasks.recurrence IS NOT NULL AND activity.due_date IS NOT NULL)) AS recurring "
        "FROM activity JOIN projects ON projects.id = activity.project_id "
        f"WHERE {' AND '.join(clauses)} GROUP BY 1, 2 ORDER BY 1, 2", params)
    groups = [ReportGroup(key=r["key"], project_id=r["project_id"], completed=r["completed"]) for r in rows]
    busiest = max(groups, key=lambda g: g.completed, default=None)
    return CompletionReport(after=after, before=before, total_completed=sum(g.completed for g in groups),
                            recurring_occurrences=sum(r["recurring"] for r in rows), groups=groups, busiest=busiest)


# ---------------------------------------------------------------- rules


def _writable_project(project: Row, action: str) -> None:
    if project["is_archived"]:
        raise ForbiddenError(f"project '{project['name']}' is archived, and archived projects are read-only: you cannot "
                             f"{action} until it is unarchived (unarchive_project, by its owner)")


def _open_task(task: Row, action: str) -> None:
    if task["project_archived"]:
        raise ForbiddenError(f"task {task['id']} is in the archived project '{task['project_name']}', and archived projects "
                             f"are read-only: you cannot {action} until it is unarchived")
    if task["is_completed"]:
        raise ForbiddenError(f"task '{task['content']}' is completed, and completed tasks are closed: reopen it "
                             f"(reopen_task) before you {action}")


def _check_assignee(ctx: ToolContext, project: Row, user_id: int) -> None:
    """The assignee must exist and be a collaborator of the project."""
    row = ctx.sql.one("SELECT users.name, EXISTS (SELECT 1 FROM collaborators WHERE project_id = ? AND user_id = users.id) "
                      "AS member FROM users WHERE users.id = ?", [project["id"], user_id])
    if row is None:
        raise missing("user", user_id, USER_HINT)
    if not row["member"]:
        raise ForbiddenError(f"{row['name']} is not a collaborator of project '{project['name']}', and tasks are assigned "
                             "only to collaborators of their project; share the project with them first (share_project)")


def _level(ctx: ToolContext, task_id: int) -> int:
    """The level of a task in its tree: 1 for a top-level task."""
    return int(ctx.sql.scalar(
        "WITH RECURSIVE up(id, parent_id, level) AS (SELECT id, parent_id, 1 FROM tasks WHERE id = ? "
        "UNION ALL SELECT tasks.id, tasks.parent_id, up.level + 1 FROM tasks JOIN up ON tasks.id = up.parent_id) "
        "SELECT max(level) FROM up", [task_id]))


def _subtree(ctx: ToolContext, task_id: int) -> list[Row]:
    """The task and every task below it, with their depth below it (0 for the task)."""
    return ctx.sql.all(
        "WITH RECURSIVE down(id, depth) AS (SELECT id, 0 FROM tasks WHERE id = ? "
        "UNION ALL SELECT tasks.id, down.depth + 1 FROM tasks JOIN down ON tasks.parent_id = down.id) "
        "SELECT tasks.id, tasks.is_completed, tasks.recurrence, tasks.assignee_id, down.depth FROM down "
        "JOIN tasks ON tasks.id = down.id ORDER BY down.depth, tasks.id", [task_id], Task)


def _too_deep(parent: Row, parent_level: int, height: int) -> None:
    if parent_level + height > MAX_DEPTH:
        raise ForbiddenError(f"task '{parent['content']}' is at level {parent_level} of its task tree, and sub-tasks nest at "
                             f"most {MAX_DEPTH} levels deep (a top-level task and three levels of sub-tasks): this would "
                             f"reach level {parent_level + height}")


def _log(ctx: ToolContext, tasks: list[tuple[int, int, str]], event: str, due: date | None = None) -> None:
    """Activity entries (task id, project id, content) by you, now."""
    ctx.sql.execute(
        "INSERT INTO activity (task_id, project_id, event, initiator_id, content, due_date, happened_at) "
        "SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), ?, ?, json_extract(value, '$[2]'), ?, ? "
        "FROM json_each(?)", [event, ME, due, ctx.now.replace(microsecond=0), [list(t) for t in tasks]])


def _entry(task: Row) -> tuple[int, int, str]:
    return task["id"], task["project_id"], task["content"]


def _recurrence(words: str, due: date | None, today: date) -> tuple[str, date]:
    """A rule's canonical words and the due date of its current occurrence."""
    try:
        rule = parse(words)
    except RecurrenceError as err:
        raise InvalidArgumentError(str(err)) from None
    first = due if due is not None else first_on_or_after(rule, today)
    return rule.anchored(first).text(), first


# ---------------------------------------------------------------- writing tasks


@tools.tool(writes=True, destructive=False, idempotent=False, title="Add a task", examples=[
    {"content": "Send the Q4 recap", "due_date": "2025-11-14", "priority": "p2", "labels": ["email"]},
    {"content": "Book the dinner venue", "project_id": 7, "assignee_id": 1, "due_date": "2025-11-20", "due_time": "10:00"},
    {"content": "Call the vendor", "parent_id": 30},
    {"content": "Stand-up notes", "project_id": 2, "recurrence": "every weekday", "due_time": "09:00"}])
def create_task(
    ctx: ToolContext,
    content: Content,
    description: Annotated[Body, Field(description="Notes shown under the task.")] = "",
    project_id: Annotated[int | None, Field(description="The project; default the Inbox (or the parent's project).")] = None,
    section_id: Annotated[int | None, Field(description="A section of the project.")] = None,
    parent_id: Annotated[int | None, Field(description="Make it a sub-task of this task (same project and section).")] = None,
    priority: Annotated[Priority, Field(description="p1 (most urgent) to p4 (none).")] = "p4",
    due_date: Annotated[date | None, Field(description="The due date (YYYY-MM-DD).")] = None,
    due_time: Annotated[DueTime | None, Field(description="Time of day it is due, HH:MM UTC (needs a due date or a repeat rule).")] = None,
    recurrence: Annotated[str | None, Field(max_length=60, description="A repeat rule: 'every day', 'every 3 days', 'every weekday', 'every mon, thu', 'every 2 weeks', 'every month on the 1st', 'every year'. Without a due date the first occurrence is the first fitting day from today.")] = None,
    labels: Annotated[list[LabelName] | None, Field(description="Names of existing labels.")] = None,
    assignee_id: Annotated[int | None, Field(description="Assign it to this collaborator of the project (1 is you).")] = None,
    jira_issue_key: Annotated[str | None, Field(pattern=r"^[A-Za-z][A-Za-z0-9]{1,9}-\d{1,6}$", description="The Jira issue this task follows (e.g. WEB-42).")] = None,
) -> TaskOut:
    """Add a task (or a sub-task, with parent_id) to a project; dated, timed, recurring,
    prioritised, labelled and assigned as asked."""
    content = content.strip()
    if not content:
        raise InvalidArgumentError("a task needs a name: content is blank")
    if parent_id is not None:
        parent = _task_row(ctx, parent_id)
        _open_task(parent, "add sub-tasks to it")
        if project_id is not None and project_id != parent["project_id"]:
            raise InvalidArgumentError(f"a sub-task is in its parent's project ({parent['project_id']}); leave project_id out")
        if section_id is not None and section_id != parent["section_id"]:
            raise InvalidArgumentError("a sub-task is in its parent's section; leave section_id out")
        _too_deep(parent, _level(ctx, parent_id), 1)
        project_id, section_id = parent["project_id"], parent["section_id"]
    project = _project_row(ctx, project_id if project_id is not None else
                           ctx.sql.scalar("SELECT id FROM projects WHERE is_inbox AND owner_id = ?", [ME]))
    _writable_project(project, "add tasks to it")
    if section_id is not None and _section_row(ctx, section_id)["project_id"] != project["id"]:
        raise InvalidArgumentError(f"section {section_id} is not in project '{project['name']}'; {SECTION_HINT}")
    label_ids = _label_ids(ctx, labels) if labels else []
    if assignee_id is not None:
        _check_assignee(ctx, project, assignee_id)
    if recurrence is not None:
        recurrence, due_date = _recurrence(recurrence, due_date, _today(ctx))
    if due_time is not None and due_date is None:
        raise InvalidArgumentError("due_time needs a due_date (or a repeat rule)")
    now = ctx.now.replace(microsecond=0)
    position = ctx.sql.scalar("SELECT coalesce(max(position), 0) + 1 FROM tasks WHERE project_id = ? AND parent_id IS ?",
                              [project["id"], parent_id])
    task_id = ctx.sql.insert_row(Task, {
        "project_id": project["id"], "section_id": section_id, "parent_id": parent_id, "content": content,
        "description": description, "priority": priority, "due_date": due_date, "due_time": due_time,
        "recurrence": recurrence, "assignee_id": assignee_id, "creator_id": ME,
        "jira_issue_key": jira_issue_key.upper() if jira_issue_key else None, "is_completed": False,
        "completed_at": None, "position": position, "created_at": now, "updated_at": now})
    if label_ids:
        ctx.sql.execute("INSERT INTO task_labels (task_id, label_id) SELECT ?, value FROM json_each(?)", [task_id, label_ids])
    entry = (task_id, project["id"], content)
    _log(ctx, [entry], "added")
    if assignee_id is not None:
        _log(ctx, [entry], "assigned")
    return _task(ctx, task_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Edit a task", examples=[
    {"task_id": 30, "due_date": "2025-11-21", "priority": "p1"},
    {"task_id": 30, "content": "Prepare the QBR deck v2", "labels": ["deep-work", "follow-up"]},
    {"task_id": 30, "clear_due": True}])
def update_task(
    ctx: ToolContext,
    task_id: TaskId,
    content: Annotated[Content | None, Field(description="A new name.")] = None,
    description: Annotated[Body | None, Field(description="New notes (replaces the old ones).")] = None,
    priority: Annotated[Priority | None, Field(description="A new priority, p1 to p4.")] = None,
    due_date: Annotated[date | None, Field(description="A new due date (for a recurring task: the current occurrence's).")] = None,
    due_time: Annotated[DueTime | None, Field(description="A new time of day, HH:MM UTC.")] = None,
    clear_due: Annotated[bool, Field(description="Remove the due date and time (not for a recurring task).")] = False,
    recurrence: Annotated[str | None, Field(max_length=60, description="Make it repeat, or change its rule (e.g. 'every fri').")] = None,
    labels: Annotated[list[LabelName] | None, Field(description="The task's labels from now on (replaces them; [] removes all).")] = None,
) -> TaskOut:
    """Edit an open task: name, notes, priority, due date and time, repeat rule or labels.
    Fields left out stay as they are. To end a recurring series use end_recurrence."""
    task = _task_row(ctx, task_id)
    _open_task(task, "edit it")
    if clear_due and (due_date is not None or due_time is not None or recurrence is not None):
        raise InvalidArgumentError("clear_due removes the due date: give it without due_date, due_time or recurrence")
    if clear_due and task["recurrence"] is not None:
        raise ForbiddenError(f"task '{task['content']}' repeats ({task['recurrence']}) and a recurring task always has a due "
                             "date; to stop it, end the series with end_recurrence")
    if content is not None and not content.strip():
        raise InvalidArgumentError("a task needs a name: content is blank")
    after = dict(task)
    for name, value in (("content", content.strip() if content is not None else None), ("description", description), ("priority", priority),
                        ("due_date", due_date), ("due_time", due_time)):
        if value is not None:
            after[name] = value
    if clear_due:
        after.update(due_date=None, due_time=None)
    if recurrence is not None:
        after["recurrence"], after["due_date"] = _recurrence(recurrence, after["due_date"], _today(ctx))
    if after["due_time"] is not None and after["due_date"] is None:
        raise InvalidArgumentError("due_time needs a due date: give due_date too")
    label_ids = _label_ids(ctx, labels) if labels else []
    changed = any(after[k] != task[k] for k in after)
    if changed:
        ctx.sql.update_row(Task, task, {**after, "updated_at": ctx.now.replace(microsecond=0)})
    if labels is not None and sorted(json.loads(task["label_names"])) != sorted(
            ctx.sql.column("SELECT name FROM labels WHERE id IN (SELECT value FROM json_each(?))", [label_ids])):
        ctx.sql.execute("DELETE FROM task_labels WHERE task_id = ?", [task_id])
        ctx.sql.execute("INSERT INTO task_labels (task_id, label_id) SELECT ?, value FROM json_each(?)", [task_id, label_ids])
        changed = True
    if changed:
        _log(ctx, [(task_id, task["project_id"], after["content"])], "updated")
    return _task(ctx, task_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Assign a task", examples=[{"task_id": 30, "assignee_id": 1}, {"task_id": 72, "assignee_id": None}, {"task_id": 75, "assignee_id": 37}])
def assign_task(
    ctx: ToolContext,
    task_id: TaskId,
    assignee_id: Annotated[int | None, Field(description="The collaborator to assign it to (1 is you); null to unassign.")],
) -> TaskOut:
    """Assign an open task to a collaborator of its project, or unassign it."""
    task = _task_row(ctx, task_id)
    _open_task(task, "assign it")
    if assignee_id is not None:
        _check_assignee(ctx, {"id": task["project_id"], "name": task["project_name"]}, assignee_id)
    if task["assignee_id"] != assignee_id:
        ctx.sql.execute("UPDATE tasks SET assignee_id = ?, updated_at = ? WHERE id = ?",
                        [assignee_id, ctx.now.replace(microsecond=0), task_id])
        _log(ctx, [_entry(task)], "assigned")
    return _task(ctx, task_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Move a task", examples=[{"task_id": 30, "project_id": 1}, {"task_id": 30, "section_id": 2}])
def move_task(
    ctx: ToolContext,
    task_id: TaskId,
    project_id: Annotated[int | None, Field(description="Move it to this project (to no section, as a top-level task).")] = None,
    section_id: Annotated[int | None, Field(description="Move it to this section (of its project, or of project_id).")] = None,
    parent_id: Annotated[int | None, Field(description="Make it a sub-task of this task (its project and section).")] = None,
) -> TaskOut:
    """Move an open task, with its sub-tasks, to another project, section or parent task.
    Give exactly one destination: a project, a section, or a parent."""
    if sum(v is not None for v in (project_id, section_id, parent_id)) != 1 and not (
            project_id is not None and section_id is not None and parent_id is None):
        raise InvalidArgumentError("give one destination: project_id, section_id (optionally with project_id) or parent_id")
    task = _task_row(ctx, task_id)
    _open_task(task, "move it")
    tree = _subtree(ctx, task_id)
    if parent_id is not None:
        if parent_id in {t["id"] for t in tree}:
            raise InvalidArgumentError("a task cannot move under itself or one of its own sub-tasks")
        parent = _task_row(ctx, parent_id)
        _open_task(parent, "move tasks under it")
        _too_deep(parent, _level(ctx, parent_id), 1 + max(t["depth"] for t in tree))
        target, section = parent["project_id"], parent["section_id"]
    else:
        section = None
        if section_id is not None:
            section_row = _section_row(ctx, section_id)
            if project_id is not None and section_row["project_id"] != project_id:
                raise InvalidArgumentError(f"section {section_id} is not in project {project_id}; {SECTION_HINT}")
            section = section_id
            target = section_row["project_id"]
        else:
            target = project_id  # type: ignore[assignment]
    project = _project_row(ctx, target)
    _writable_project(project, "move tasks into it")
    if project["id"] != task["project_id"]:
        assignees = sorted({t["assignee_id"] for t in tree if t["assignee_id"] is not None})
        outside = ctx.sql.column(
            "SELECT users.name FROM users WHERE users.id IN (SELECT value FROM json_each(?)) AND users.id NOT IN "
            "(SELECT user_id FROM collaborators WHERE project_id = ?) ORDER BY users.name", [assignees, project["id"]])
        if outside:
            raise ForbiddenError(f"{', '.join(outside)} would be assigned to tasks in '{project['name']}' without being its "
                                 "collaborator, and tasks are assigned only to collaborators of their project; unassign "
                                 "or share the project first")
    new_parent = parent_id
    if (task["project_id"], task["section_id"], task["parent_id"]) == (project["id"], section, new_parent):
        return _task(ctx, task_id)
    now = ctx.now.replace(microsecond=0)
    ctx.sql.execute("UPDATE tasks SET project_id = ?, section_id = ?, updated_at = ? WHERE id IN (SELECT value FROM json_each(?))",
                    [project["id"], section, now, [t["id"] for t in tree]])
    ctx.sql.execute("UPDATE tasks SET parent_id = ? WHERE id = ?", [new_parent, task_id])
    _log(ctx, [(task_id, project["id"], task["content"])], "moved")
    return _task(ctx, task_id)


@tools.tool(writes=True, destructive=True, idempotent=False, title="Complete a task", examples=[{"task_id": 30}, {"task_id": 247}])
def complete_task(ctx: ToolContext, task_id: TaskId) -> Completion:
    """Complete a task. A one-off task closes with its open sub-tasks. A recurring task
    completes only its current occurrence: its due date moves to the next occurrence after
    both the current due date and today, and it stays open (end_recurrence ends a series)."""
    task = _task_row(ctx, task_id)
    _open_task(task, "complete it again")
    now = ctx.now.replace(microsecond=0)
    if task["recurrence"] is not None:
        rule = parse(task["recurrence"])
        due = task["due_date"] or _today(ctx)
        following = next_due(rule, due, _today(ctx))
        ctx.sql.execute("UPDATE tasks SET due_date = ?, updated_at = ? WHERE id = ?", [following, now, task_id])
        _log(ctx, [_entry(task)], "completed", due)
        return Completion(task=_task(ctx, task_id), occurrence_completed=True, completed_due_date=due,
                          next_due_date=following, subtasks_completed=0)
    opened = [t["id"] for t in _subtree(ctx, task_id) if not t["is_completed"]]
    ctx.sql.execute("UPDATE tasks SET is_completed = 1, completed_at = ?, updated_at = ? WHERE id IN (SELECT value FROM json_each(?))",
                    [now, now, opened])
    ctx.sql.execute(
        "INSERT INTO activity (task_id, project_id, event, initiator_id, content, due_date, happened_at) "
        "SELECT id, project_id, 'completed', ?, content, due_date, ? FROM tasks WHERE id IN (SELECT value FROM json_each(?)) "
        "ORDER BY id", [ME, now, opened])
    return Completion(task=_task(ctx, task_id), occurrence_completed=False, completed_due_date=task["due_date"],
                      next_due_date=None, subtasks_completed=len(opened) - 1)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Reopen a task", examples=[{"task_id": 23}])
def reopen_task(ctx: ToolContext, task_id: TaskId) -> TaskOut:
    """Reopen a completed task (uncomplete it), and its completed parent tasks with it; its
    sub-tasks stay as they are."""
    task = _task_row(ctx, task_id)
    if task["project_archived"]:
        raise ForbiddenError(f"task {task_id} is in the archived project '{task['project_name']}', and archived projects are "
                             "read-only: you cannot reopen it until the project is unarchived")
    if not task["is_completed"]:
        return _task(ctx, task_id)
    chain = ctx.sql.all(
        "WITH RECURSIVE up(id, parent_id) AS (SELECT id, parent_id FROM tasks WHERE id = ? "
        "UNION ALL SELECT tasks.id, tasks.parent_id FROM tasks JOIN up ON tasks.id = up.parent_id) "
        "SELECT tasks.id, tasks.project_id, tasks.content FROM up JOIN tasks ON tasks.id = up.id "
        "WHERE tasks.is_completed ORDER BY tasks.id", [task_id])
    ctx.sql.execute("UPDATE tasks SET is_completed = 0, completed_at = NULL, updated_at = ? WHERE id IN (SELECT value FROM json_each(?))",
                    [ctx.now.replace(microsecond=0), [r["id"] for r in chain]])
    _log(ctx, [_entry(r) for r in chain], "uncompleted")
    return _task(ctx, task_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="End a recurring series", examples=[{"task_id": 248}])
def end_recurrence(ctx: ToolContext, task_id: TaskId) -> TaskOut:
    """End a recurring task's series: the task is completed for good (with its open sub-tasks)
    and its repeat rule removed; its past occurrences stay in the activity log."""
    task = _task_row(ctx, task_id)
    _open_task(task, "end its series")
    if task["recurrence"] is None:
        raise InvalidArgumentError(f"task '{task['content']}' does not repeat; complete it with complete_task")
    now = ctx.now.replace(microsecond=0)
    opened = [t["id"] for t in _subtree(ctx, task_id) if not t["is_completed"]]
    ctx.sql.execute("UPDATE tasks SET is_completed = 1, completed_at = ?, updated_at = ?, "
                    "recurrence = CASE WHEN id = ? THEN NULL ELSE recurrence END WHERE id IN (SELECT value FROM json_each(?))",
                    [now, now, task_id, opened])
    _log(ctx, [_entry(task)], "series_ended")
    return _task(ctx, task_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Delete a task", examples=[{"task_id": 30}])
def delete_task(ctx: ToolContext, task_id: TaskId) -> DeletedTask:
    """Delete a task for good, with its sub-tasks and comments (the activity log keeps its
    history). A recurring series is not deleted: end it with end_recurrence."""
    task = _task_row(ctx, task_id)
    if task["project_archived"]:
        raise ForbiddenError(f"task {task_id} is in the archived project '{task['project_name']}', and archived projects are "
                             "read-only: you cannot delete it until the project is unarchived")
    tree = _subtree(ctx, task_id)
    recurring = [t for t in tree if t["recurrence"] is not None and not t["is_completed"]]
    if recurring:
        raise ForbiddenError(f"task '{task['content']}' {'repeats' if recurring[0]['id'] == task_id else 'has a recurring sub-task'}"
                             f" ({recurring[0]['recurrence']}): a recurring series is never deleted; complete_task completes "
                             "one occurrence and end_recurrence ends the series")
    ids = [t["id"] for t in tree]
    comments = ctx.sql.execute("DELETE FROM comments WHERE task_id IN (SELECT value FROM json_each(?))", [ids])
    ctx.sql.execute("DELETE FROM task_labels WHERE task_id IN (SELECT value FROM json_each(?))", [ids])
    ctx.sql.execute("DELETE FROM tasks WHERE id IN (SELECT value FROM json_each(?))", [ids])
    _log(ctx, [_entry(task)], "deleted")
    return DeletedTask(task_id=task_id, content=task["content"], project_id=task["project_id"],
                       deleted_subtasks=len(ids) - 1, deleted_comments=comments)


@tools.tool(writes=True, destructive=False, idempotent=False, title="Comment on a task", examples=[{"task_id": 30, "content": "Draft is in the shared folder."}])
def add_comment(
    ctx: ToolContext,
    task_id: TaskId,
    content: Annotated[Body, Field(min_length=1, description="The comment's text.")],
) -> CommentOut:
    """Comment on a task (open or completed) of a project that is not archived."""
    task = _task_row(ctx, task_id)
    if task["project_archived"]:
        raise ForbiddenError(f"task {task_id} is in the archived project '{task['project_name']}', and archived projects are "
                             "read-only: you cannot comment on it until the project is unarchived")
    now = ctx.now.replace(microsecond=0)
    comment_id = ctx.sql.insert_row(Comment, {"task_id": task_id, "author_id": ME, "content": content, "posted_at": now})
    _log(ctx, [_entry(task)], "commented")
    row = ctx.sql.one("SELECT comments.*, users.name AS author_name FROM comments JOIN users ON users.id = comments.author_id "
                      "WHERE comments.id = ?", [comment_id], Comment)
    return CommentOut(**row)  # type: ignore[arg-type]


# ---------------------------------------------------------------- projects, sections, labels


@tools.tool(writes=True, destructive=False, idempotent=True, title="Create a project", examples=[{"name": "Garden Makeover", "color": "green"}, {"name": "Board Prep", "view_style": "board", "is_favorite": True}])
def create_project(
    ctx: ToolContext,
    name: Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS, description="The project's name (unique among your projects).")],
    color: Annotated[Color, Field(description="A colour of the palette, e.g. blue, green, berry_red.")] = "charcoal",  # type: ignore[valid-type]
    is_favorite: Annotated[bool, Field(description="Pin it to your favourites.")] = False,
    view_style: Annotated[Literal["list", "board"], Field(description="Show it as a list or a board of sections.")] = "list",
) -> ProjectDetail:
    """Create a personal project, owned by you (share_project shares it)."""
    wanted = " ".join(name.split())
    if not wanted:
        raise InvalidArgumentError("a project needs a name")
    taken = ctx.sql.scalar("SELECT name FROM projects WHERE lower(name) = ?", [wanted.lower()])
    if taken is not None:
        raise ForbiddenError(f"project names are unique, and you already have a project named '{taken}'; choose another name")
    now = ctx.now.replace(microsecond=0)
    project_id = ctx.sql.insert_row(Project, {
        "name": wanted, "color": color, "owner_id": ME, "is_inbox": False, "is_favorite": is_favorite,
        "view_style": view_style, "is_archived": False, "archived_at": None, "created_at": now})
    ctx.sql.execute("INSERT INTO collaborators (project_id, user_id, joined_at) VALUES (?, ?, ?)", [project_id, ME, now])
    return _project_detail(ctx, _project_row(ctx, project_id))


def _owned(project: Row, action: str) -> None:
    """Archiving and unarchiving are for the project's owner, never for the Inbox."""
    if project["is_inbox"]:
        raise ForbiddenError(f"the Inbox is your personal project: it cannot be {action}d")
    if project["owner_id"] != ME:
        raise ForbiddenError(f"only a project's owner may {action} it, and '{project['name']}' is owned by "
                             f"{project['owner_name']}; ask them")


@tools.tool(writes=True, destructive=True, idempotent=True, title="Archive a project", examples=[{"project_id": 18}])
def archive_project(ctx: ToolContext, project_id: ProjectId) -> ProjectDetail:
    """Archive a project you own once all its tasks are done: it becomes read-only and leaves
    the active lists (list_projects with state='archived' still shows it)."""
    project = _project_row(ctx, project_id)
    _owned(project, "archive")
    if project["is_archived"]:
        return _project_detail(ctx, project)
    if project["open_tasks"]:
        raise ForbiddenError(f"project '{project['name']}' still has {project['open_tasks']} open tasks, and a project with "
                             "open tasks cannot be archived; complete, move or delete them first")
    now = ctx.now.replace(microsecond=0)
    ctx.sql.execute("UPDATE projects SET is_archived = 1, archived_at = ? WHERE id = ?", [now, project_id])
    return _project_detail(ctx, _project_row(ctx, project_id))


@tools.tool(writes=True, destructive=True, idempotent=True, title="Unarchive a project", examples=[{"project_id": 15}])
def unarchive_project(ctx: ToolContext, project_id: ProjectId) -> ProjectDetail:
    """Bring an archived project you own back to the active projects, writable again."""
    project = _project_row(ctx, project_id)
    _owned(project, "unarchive")
    if project["is_archived"]:
        ctx.sql.execute("UPDATE projects SET is_archived = 0, archived_at = NULL WHERE id = ?", [project_id])
    return _project_detail(ctx, _project_row(ctx, project_id))


@tools.tool(writes=True, destructive=False, idempotent=True, title="Share a project", examples=[{"project_id": 10, "email": "mary.cherry@northwindsystems.com"}])
def share_project(
    ctx: ToolContext,
    project_id: ProjectId,
    email: Annotated[str, Field(min_length=3, max_length=160, description="The colleague's email address.")],
) -> ProjectDetail:
    """Share a project with a colleague (a Northwind Systems employee): they become a
    collaborator who can be assigned its tasks."""
    project = _project_row(ctx, project_id)
    if project["is_inbox"]:
        raise ForbiddenError("the Inbox is your personal project: it cannot be shared; move the tasks to a shared project")
    _writable_project(project, "share it")
    user = ctx.sql.one("SELECT id FROM users WHERE email = ?", [email.strip().lower()])
    if user is None:
        raise NotFoundError(f"no user with email {email.strip().lower()[:160]}. Projects are shared with Northwind Systems "
                            f"employees only; {USER_HINT}")
    ctx.sql.execute("INSERT OR IGNORE INTO collaborators (project_id, user_id, joined_at) VALUES (?, ?, ?)",
                    [project_id, user["id"], ctx.now.replace(microsecond=0)])
    return _project_detail(ctx, _project_row(ctx, project_id))


@tools.tool(writes=True, destructive=False, idempotent=True, title="Add a section to a project", examples=[{"project_id": 10, "name": "Bathroom"}])
def create_section(
    ctx: ToolContext,
    project_id: ProjectId,
    name: Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS, description="The section's name.")],
) -> SectionOut:
    """Add a section (a column of the board, a heading of the list) at the end of a project."""
    project = _project_row(ctx, project_id)
    _writable_project(project, "add sections to it")
    wanted = " ".join(name.split())
    if not wanted:
        raise InvalidArgumentError("a section needs a name")
    if ctx.sql.scalar("SELECT 1 FROM sections WHERE project_id = ? AND lower(name) = ?", [project_id, wanted.lower()]):
        raise InvalidArgumentError(f"project '{project['name']}' already has a section named '{wanted}'")
    position = ctx.sql.scalar("SELECT coalesce(max(position), 0) + 1 FROM sections WHERE project_id = ?", [project_id])
    section_id = ctx.sql.insert_row(Section, {"project_id": project_id, "name": wanted, "position": position,
                                              "created_at": ctx.now.replace(microsecond=0)})
    return SectionOut(id=section_id, project_id=project_id, name=wanted, position=position, open_tasks=0)


@tools.tool(writes=True, destructive=False, idempotent=True, title="Create a label", examples=[{"name": "next-actions", "color": "red"}])
def create_label(
    ctx: ToolContext,
    name: Annotated[str, Field(min_length=1, max_length=60, pattern=r"^[^,@]+$", description="The label's name (no commas or @).")],
    color: Annotated[Color, Field(description="A colour of the palette.")] = "charcoal",  # type: ignore[valid-type]
    is_favorite: Annotated[bool, Field(description="Pin it to your favourites.")] = False,
) -> LabelOut:
    """Create a label to tag tasks with, in any project."""
    wanted = " ".join(name.split())
    if not wanted:
        raise InvalidArgumentError("a label needs a name")
    taken = ctx.sql.scalar("SELECT name FROM labels WHERE lower(name) = ?", [wanted.lower()])
    if taken is not None:
        raise ForbiddenError(f"label names are unique (whatever the case), and the label '{taken}' already exists; "
                             "use it or choose another name")
    label_id = ctx.sql.insert_row(Label, {"name": wanted, "color": color, "is_favorite": is_favorite})
    return LabelOut(id=label_id, name=wanted, color=color, is_favorite=is_favorite, open_tasks=0)


class DeletedLabel(BaseModel):
    label_id: int
    name: str
    removed_from_tasks: int = Field(description="Tasks (open or completed) that carried the label.")


@tools.tool(writes=True, destructive=True, idempotent=True, title="Delete a label", examples=[{"label_id": 12}])
def delete_label(ctx: ToolContext, label_id: Annotated[int, Field(description="The label's id (list_labels).")]) -> DeletedLabel:
    """Delete a label: it is removed from every task that carried it (the tasks stay)."""
    label = ctx.sql.one("SELECT id, name FROM labels WHERE id = ?", [label_id])
    if label is None:
        raise missing("label", label_id, "list_labels lists the labels.")
    removed = ctx.sql.execute("DELETE FROM task_labels WHERE label_id = ?", [label_id])
    ctx.sql.execute("DELETE FROM labels WHERE id = ?", [label_id])
    return DeletedLabel(label_id=label_id, name=label["name"], removed_from_tasks=removed)
