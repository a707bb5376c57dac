"""The issue-tracker tools: find and read issues, plan and report on sprints, and work issues
through their project's workflow, as an engineering lead does in Jira."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import Body, DateTimeArg, Page, PerPage, Timestamp
from mcpgym.servers.kernel.query import search_words
from mcpgym.servers.kernel.sql import Row, contains_pattern
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry
from mcpgym.servers.projects.models import (
    ACTING_USER_ID,
    PRIORITIES,
    STORY_POINTS,
    Comment,
    Issue,
    IssueChange,
    Project,
    Sprint,
    SprintIssue,
)
from mcpgym.servers.projects.workflow import STATUS_CATEGORIES, WORKFLOWS, StatusName, Workflow

tools = ToolRegistry()

IssueType = Literal["epic", "story", "task", "bug", "subtask"]
Priority = Literal["highest", "high", "medium", "low", "lowest"]
SprintState = Literal["future", "active", "closed"]
WontDoResolution = Literal["Won't Do", "Duplicate", "Cannot Reproduce"]
LinkType = Literal["blocks", "is blocked by", "duplicates", "is duplicated by", "relates to"]
HistoryField = Literal["status", "resolution", "assignee", "priority", "story_points", "summary", "description",
                       "labels", "components", "parent", "sprint", "link"]

IssueKey = Annotated[str, Field(min_length=3, max_length=20, pattern=r"^[A-Za-z][A-Za-z0-9]{1,9}-[0-9]{1,9}$",
                                description="An issue key: project key, dash, number (WEB-42).")]
ProjectKey = Annotated[str, Field(min_length=2, max_length=10, pattern=r"^[A-Za-z][A-Za-z0-9]{1,9}$",
                                  description="A project key (WEB).")]
Label = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[a-z0-9][a-z0-9_\-]*$")]
ComponentName = Annotated[str, Field(min_length=1, max_length=40)]
Summary = Annotated[str, Field(min_length=1, max_length=255)]

ISSUE_HINT = "Use search_issues to find issues by project, words, assignee or sprint."
PROJECT_HINT = "Use list_projects to see the project keys."
SPRINT_HINT = "Use list_sprints to find a project's sprints."
USER_HINT = "Use search_users or get_user_by_email to find users."

HOME_ORGANIZATION = "Northwind Systems"
MAX_LISTED = 10
"""Most issue keys an error message names before counting the rest."""

LINK_STORED = {"blocks": ("blocks", False), "is blocked by": ("blocks", True), "duplicates": ("duplicates", False),
               "is duplicated by": ("duplicates", True), "relates to": ("relates", False)}
"""A link type as asked -> (stored type, whether the other issue is the stored source)."""
LINK_WORDS = {("blocks", "out"): "blocks", ("blocks", "in"): "is blocked by", ("duplicates", "out"): "duplicates",
              ("duplicates", "in"): "is duplicated by", ("relates", "out"): "relates to", ("relates", "in"): "relates to"}

PRIORITY_RANK = "CASE issues.priority " + " ".join(f"WHEN '{p}' THEN {i}" for i, p in enumerate(PRIORITIES)) + " END"
ISSUE_SORT_KEYS = {"created_at": "issues.created_at", "updated_at": "issues.updated_at",
                   "resolved_at": "issues.resolved_at", "priority": PRIORITY_RANK, "story_points": "issues.story_points"}

ISSUE_COLUMNS = (
    "issues.id, issues.key, issues.type, issues.summary, issues.status, issues.priority, issues.story_points, "
    "issues.resolution, issues.support_ticket_id, issues.created_at, issues.updated_at, issues.resolved_at, "
    "projects.key AS project_key, parent.key AS parent_key, assignee.id AS assignee_user_id, "
    "assignee.name AS assignee_name, assignee.email AS assignee_email, reporter.id AS reporter_user_id, "
    "reporter.name AS reporter_name, reporter.email AS reporter_email"
)
"""The columns of an issue summary, besides its labels, components and sprint."""
ISSUE_TABLES = (
    "FROM issues JOIN projects ON projects.id = issues.project_id "
    "LEFT JOIN issues AS parent ON parent.id = issues.parent_id "
    "LEFT JOIN users AS assignee ON assignee.id = issues.assignee_id "
    "JOIN users AS reporter ON reporter.id = issues.reporter_id"
)
OPEN_SPRINT = "SELECT sprint_issues.issue_id FROM sprint_issues JOIN sprints ON sprints.id = sprint_issues.sprint_id " \
              "WHERE sprint_issues.removed_at IS NULL AND sprints.state != 'closed'"
"""Ids of the issues planned in a future or active sprint."""


# ---------------------------------------------------------------- result models


class UserBrief(BaseModel):
    id: int
    name: str
    email: str


class UserOut(UserBrief):
    title: str
    timezone: str
    organization_name: str
    projects: list[str] = Field(description="Keys of the projects the user is a member of.")


class UserDetail(UserOut):
    open_issues: int = Field(description="Unresolved issues assigned to the user, epics aside.")
    open_points: int = Field(description="Story points of those issues.")


class UserPage(BaseModel):
    users: list[UserOut]
    total: int
    page: int
    next_page: int | None


class SprintBrief(BaseModel):
    id: int
    name: str
    state: str


class IssueSummary(BaseModel):
    id: int
    key: str
    project_key: str
    type: str
    summary: str
    status: str
    priority: str
    assignee: UserBrief | None
    reporter: UserBrief
    story_points: int | None
    labels: list[str]
    components: list[str]
    parent_key: str | None = Field(description="The epic of a story, task or bug; the issue of a subtask.")
    sprint: SprintBrief | None = Field(description="The future or active sprint the issue is planned in, else the "
                                                   "latest closed sprint it was in when that sprint closed.")
    resolution: str | None
    support_ticket_id: int | None = Field(description="The help-desk (Zendesk) ticket the issue was escalated from.")
    created_at: Timestamp
    updated_at: Timestamp
    resolved_at: Timestamp | None


class IssueRef(BaseModel):
    key: str
    summary: str
    type: str
    status: str


class LinkOut(BaseModel):
    relation: str = Field(description="blocks, is blocked by, duplicates, is duplicated by or relates to.")
    issue: IssueRef


class IssueDetail(IssueSummary):
    description: str
    children: list[IssueRef] = Field(description="Issues of an epic, or subtasks of an issue.")
    links: list[LinkOut]
    comment_count: int


class IssuePage(BaseModel):
    issues: list[IssueSummary]
    total: int = Field(description="Issues matching the filters, over all pages.")
    page: int
    next_page: int | None


class CommentOut(BaseModel):
    id: int
    issue_key: str
    author: UserBrief
    body: str
    created_at: Timestamp


class CommentPage(BaseModel):
    comments: list[CommentOut]
    total: int
    page: int
    next_page: int | None


class ChangeOut(BaseModel):
    id: int
    field: str
    from_value: str | None
    to_value: str | None
    author: UserBrief
    created_at: Timestamp


class HistoryPage(BaseModel):
    issue_key: str
    changes: list[ChangeOut]
    total: int
    page: int
    next_page: int | None


class ComponentOut(BaseModel):
    name: str
    description: str


class MemberOut(UserBrief):
    role: str = Field(description="lead or member.")


class ProjectSummary(BaseModel):
    id: int
    key: str
    name: str
    type: str = Field(description="scrum (planned in sprints) or kanban (continuous flow, no sprints).")
    workflow: str
    lead: UserBrief
    total_issues: int
    open_issues: int


class ProjectList(BaseModel):
    projects: list[ProjectSummary]


class ProjectDetail(ProjectSummary):
    description: str
    sprint_days: int | None = Field(description="Usual sprint length in days (scrum projects).")
    created_at: Timestamp
    members: list[MemberOut]
    components: list[ComponentOut]
    issues_by_status: dict[str, int]
    active_sprint: SprintBrief | None


class StatusOut(BaseModel):
    name: str
    category: str = Field(description="to_do, in_progress or done (resolved).")


class TransitionOut(BaseModel):
    name: str
    from_status: str
    to_status: str


class WorkflowOut(BaseModel):
    project_key: str
    workflow: str
    statuses: list[StatusOut]
    transitions: list[TransitionOut]
    issue: IssueSummary | None = Field(description="The issue asked about, if any.")
    allowed_next: list[str] | None = Field(description="Statuses that issue may move to now.")


class SprintOut(BaseModel):
    id: int
    name: str
    project_key: str
    state: str
    goal: str | None
    start_at: Timestamp | None
    end_at: Timestamp | None
    completed_at: Timestamp | None
    issue_count: int = Field(description="Issues in the sprint now (or at its close).")
    story_points: int = Field(description="Their story points.")


class SprintPage(BaseModel):
    sprints: list[SprintOut]
    total: int
    page: int
    next_page: int | None


class SprintIssueOut(BaseModel):
    key: str
    summary: str
    type: str
    status: str
    story_points: int | None
    assignee: UserBrief | None
    committed: bool = Field(description="In the sprint when it started.")
    completed: bool = Field(description="Done in the sprint (for an open sprint: Done now).")
    removed: bool = Field(description="Moved out of the sprint after it started.")


class SprintReport(BaseModel):
    sprint: SprintOut
    committed_issues: int
    committed_points: int = Field(description="Story points of the committed issues when the sprint started.")
    completed_issues: int
    completed_points: int
    added_issues: int = Field(description="Issues added after the sprint started.")
    removed_issues: int = Field(description="Issues moved out after the sprint started.")
    remaining_points: int = Field(description="Story points of issues in the sprint not yet resolved.")
    issues_by_status: dict[str, int] = Field(description="Issues in the sprint now, per status.")
    issues: list[SprintIssueOut]


class VelocityRow(BaseModel):
    sprint_id: int
    name: str
    start_at: Timestamp | None
    completed_at: Timestamp | None
    committed_points: int
    completed_points: int
    completed_issues: int


class VelocityReport(BaseModel):
    project_key: str
    sprints: list[VelocityRow] = Field(description="Closed sprints, most recent first.")
    average_committed_points: float | None
    average_completed_points: float | None = Field(description="Mean over these sprints, 1 decimal; null if none.")


class WorkloadRow(BaseModel):
    assignee: UserBrief | None = Field(description="Null for the unassigned issues.")
    open_issues: int
    open_points: int
    by_status: dict[str, int]


class WorkloadReport(BaseModel):
    project_key: str | None
    sprint_id: int | None
    open_issues: int
    assignees: list[WorkloadRow] = Field(description="Most open story points first; unassigned last.")


class MoveResult(BaseModel):
    sprint: SprintBrief | None = Field(description="Where the issues went; null for the backlog.")
    from_sprints: list[SprintBrief] = Field(description="The future or active sprints the moved issues left.")
    moved: list[IssueSummary]
    unchanged: list[str] = Field(description="Keys that were already there.")


# ---------------------------------------------------------------- lookups


def _issue_key(key: str) -> str:
    return key.strip().upper()


def _issue(ctx: ToolContext, key: str) -> Row:
    """An issue's row with its project's key, workflow, type and lead, or `NotFoundError`."""
    row = ctx.sql.one("SELECT issues.*, projects.key AS project_key, projects.workflow AS workflow, "
                      "projects.type AS project_type, projects.lead_id AS lead_id FROM issues "
                      "JOIN projects ON projects.id = issues.project_id WHERE issues.key = ?",
                      [_issue_key(key)], Issue)
    if row is None:
        raise NotFoundError(f"no issue with key {_issue_key(key)}. {ISSUE_HINT}")
    return row


def _project(ctx: ToolContext, key: str) -> Row:
    row = ctx.sql.one("SELECT projects.*, users.name AS lead_name, users.email AS lead_email FROM projects "
                      "JOIN users ON users.id = projects.lead_id WHERE projects.key = ?", [key.strip().upper()], Project)
    if row is None:
        raise NotFoundError(f"no project with key {key.strip().upper()}. {PROJECT_HINT}")
    return row


def _sprint(ctx: ToolContext, sprint_id: int) -> Row:
    row = ctx.sql.one("SELECT sprints.*, projects.key AS project_key, projects.lead_id AS lead_id, users.name AS lead_name "
                      "FROM sprints JOIN projects ON projects.id = sprints.project_id JOIN users ON users.id = projects.lead_id "
                      "WHERE sprints.id = ?", [sprint_id], Sprint)
    if row is None:
        raise NotFoundError(f"no sprint with id {sprint_id}. {SPRINT_HINT}")
    return row


def _workflow(issue_or_project: Row) -> Workflow:
    return WORKFLOWS[issue_or_project["workflow"]]


def _listed(keys: Sequence[str]) -> str:
    shown = ", ".join(keys[:MAX_LISTED])
    return shown if len(keys) <= MAX_LISTED else f"{shown} and {len(keys) - MAX_LISTED} more"


# ---------------------------------------------------------------- rendering


def _brief(row: Row, role: str) -> UserBrief | None:
    user_id = row[f"{role}_user_id"]
    return None if user_id is None else UserBrief(id=user_id, name=row[f"{role}_name"], email=row[f"{role}_email"])


class Attached:
    """What hangs off issues besides their row: labels and components (A-Z) and the sprint each is in."""

    def __init__(self) -> None:
        self.labels: defaultdict[int, list[str]] = defaultdict(list)
        self.components: defaultdict[int, list[str]] = defaultdict(list)
        self.sprints: dict[int, SprintBrief] = {}


def _attached(ctx: ToolContext, ids: Sequence[int]) -> Attached:
    """The labels, components and sprint of issues, in one statement: the sprint is the future
    or active one an issue is planned in, else the latest closed one it was in at its close."""
    found = Attached()
    if not ids:
        return found
    for row in ctx.sql.all(
            "SELECT issue_id, 'label' AS kind, label AS value, 0 AS sprint_id, '' AS state, 0 AS closed FROM issue_labels "
            "WHERE issue_id IN (SELECT value FROM json_each(:ids)) "
            "UNION ALL SELECT issue_components.issue_id, 'component', components.name, 0, '', 0 FROM issue_components "
            "JOIN components ON components.id = issue_components.component_id "
            "WHERE issue_components.issue_id IN (SELECT value FROM json_each(:ids)) "
            "UNION ALL SELECT sprint_issues.issue_id, 'sprint', sprints.name, sprints.id, sprints.state, sprints.state = 'closed' "
            "FROM sprint_issues JOIN sprints ON sprints.id = sprint_issues.sprint_id "
            "WHERE sprint_issues.removed_at IS NULL AND sprint_issues.issue_id IN (SELECT value FROM json_each(:ids)) "
            "ORDER BY kind, closed, sprint_id DESC, value", {"ids": list(ids)}):
        if row["kind"] == "label":
            found.labels[row["issue_id"]].append(row["value"])
        elif row["kind"] == "component":
            found.components[row["issue_id"]].append(row["value"])
        else:
            found.sprints.setdefault(row["issue_id"], SprintBrief(id=row["sprint_id"], name=row["value"], state=row["state"]))
    return found


def _summaries(ctx: ToolContext, rows: Sequence[Row]) -> list[IssueSummary]:
    """Summaries of issue rows (`ISSUE_COLUMNS`), with what hangs off them read in one statement."""
    attached = _attached(ctx, [row["id"] for row in rows])
    out = []
    for row in rows:
        reporter = _brief(row, "reporter")
        assert reporter is not None
        out.append(IssueSummary(**row, assignee=_brief(row, "assignee"), reporter=reporter,
                                labels=attached.labels[row["id"]], components=attached.components[row["id"]],
                                sprint=attached.sprints.get(row["id"])))
    return out


def _summary(ctx: ToolContext, issue_id: int) -> IssueSummary:
    row = ctx.sql.one(f"SELECT {ISSUE_COLUMNS} {ISSUE_TABLES} WHERE issues.id = ?", [issue_id], Issue)
    assert row is not None
    return _summaries(ctx, [row])[0]


def _detail(ctx: ToolContext, key: str) -> IssueDetail:
    """An issue as stored now, with its description, children, links and comment count."""
    row = ctx.sql.one(f"SELECT {ISSUE_COLUMNS}, issues.description, "
                      "(SELECT count(*) FROM comments WHERE comments.issue_id = issues.id) AS comment_count "
                      f"{ISSUE_TABLES} WHERE issues.key = ?", [_issue_key(key)], Issue)
    if row is None:
        raise NotFoundError(f"no issue with key {_issue_key(key)}. {ISSUE_HINT}")
    related = ctx.sql.all(
        "SELECT * FROM (SELECT 'child' AS relation, '' AS direction, key, summary, type, status, number, 0 AS link_id "
        "FROM issues WHERE parent_id = ? "
        "UNION ALL SELECT issue_links.type, 'out', issues.key, issues.summary, issues.type, issues.status, issues.number, issue_links.id "
        "FROM issue_links JOIN issues ON issues.id = issue_links.target_id WHERE issue_links.source_id = ? "
        "UNION ALL SELECT issue_links.type, 'in', issues.key, issues.summary, issues.type, issues.status, issues.number, issue_links.id "
        "FROM issue_links JOIN issues ON issues.id = issue_links.source_id WHERE issue_links.target_id = ?) "
        "ORDER BY relation = 'child' DESC, link_id, number, key", [row["id"]] * 3)
    children = [IssueRef(**r) for r in related if r["relation"] == "child"]
    links = [LinkOut(relation=LINK_WORDS[(r["relation"], r["direction"])], issue=IssueRef(**r))
             for r in related if r["relation"] != "child"]
    summary = _summaries(ctx, [row])[0]
    return IssueDetail(**summary.model_dump(), description=row["description"], children=children, links=links,
                       comment_count=row["comment_count"])


def _sprint_out(ctx: ToolContext, where: str, params: list[Any], page: int = 1, per_page: int = 100) -> tuple[list[SprintOut], int, int | None]:
    found = ctx.sql.page(
        "sprints.*, projects.key AS project_key, "
        "(SELECT count(*) FROM sprint_issues WHERE sprint_issues.sprint_id = sprints.id AND sprint_issues.removed_at IS NULL) AS issue_count, "
        "(SELECT coalesce(sum(issues.story_points), 0) FROM sprint_issues JOIN issues ON issues.id = sprint_issues.issue_id "
        "WHERE sprint_issues.sprint_id = sprints.id AND sprint_issues.removed_at IS NULL) AS story_points",
        f"FROM sprints JOIN projects ON projects.id = sprints.project_id WHERE {where} ORDER BY sprints.id DESC",
        params, page, per_page, Sprint)
    return [SprintOut(**row) for row in found.rows], found.total, found.next_page


def _one_sprint(ctx: ToolContext, sprint_id: int) -> SprintOut:
    sprints, _, _ = _sprint_out(ctx, "sprints.id = ?", [sprint_id])
    return sprints[0]


def _user_outs(ctx: ToolContext, rows: Sequence[Row]) -> list[UserOut]:
    """Users with the keys of their projects, read in one statement."""
    projects: defaultdict[int, list[str]] = defaultdict(list)
    for row in ctx.sql.all("SELECT project_members.user_id, projects.key FROM project_members JOIN projects "
                           "ON projects.id = project_members.project_id WHERE project_members.user_id IN "
                           "(SELECT value FROM json_each(?)) ORDER BY projects.key", [[r["id"] for r in rows]]):
        projects[row["user_id"]].append(row["key"])
    return [UserOut(**row, organization_name=HOME_ORGANIZATION, projects=projects[row["id"]]) for row in rows]


def _user_detail(ctx: ToolContext, row: Row) -> UserDetail:
    load = ctx.sql.one("SELECT count(*) AS n, coalesce(sum(story_points), 0) AS points FROM issues "
                       "WHERE assignee_id = ? AND resolution IS NULL AND type != 'epic'", [row["id"]])
    assert load is not None
    return UserDetail(**_user_outs(ctx, [row])[0].model_dump(), open_issues=load["n"], open_points=load["points"])


# ---------------------------------------------------------------- rules


def _record(ctx: ToolContext, issue_id: int, changes: Sequence[tuple[str, Any, Any]]) -> None:
    """Add the field changes of one write to an issue's history, as the acting user, now."""
    rows = [(field, None if old in (None, "") else str(old), None if new in (None, "") else str(new))
            for field, old, new in changes if old != new]
    if rows:
        ctx.sql.execute("INSERT INTO issue_changes (issue_id, author_id, field, from_value, to_value, created_at) VALUES "
                        + ", ".join(["(?, ?, ?, ?, ?, ?)"] * len(rows)),
                        [value for field, old, new in rows for value in (issue_id, ACTING_USER_ID, field, old, new, ctx.now)])


def _check_points(issue_type: str, points: int | None) -> None:
    if points is None:
        return
    if issue_type in ("epic", "subtask"):
        raise ForbiddenError(f"{issue_type}s are not estimated: story points go on stories, tasks and bugs "
                             "(an epic's size is the sum of its issues, a subtask counts toward its parent)")
    if points not in STORY_POINTS:
        raise ForbiddenError(f"story points must be one of the team's Fibonacci estimates "
                             f"{', '.join(map(str, STORY_POINTS))}; got {points}")


def _check_parent(issue_type: str, project_id: int, parent: Row | None) -> None:
    """The issue hierarchy: epics have no parent; stories, tasks and bugs may sit under an epic;
    a subtask sits under a story, task or bug; always within one project."""
    if issue_type == "epic" and parent is not None:
        raise ForbiddenError("epics are the top of the hierarchy and cannot have a parent")
    if issue_type == "subtask" and parent is None:
        raise InvalidArgumentError("a subtask needs parent_key: the story, task or bug it belongs to")
    if parent is None:
        return
    if parent["project_id"] != project_id:
        raise ForbiddenError(f"{parent['key']} is in project {parent['project_key']}; a parent must be in the same project")
    wanted, named = (("story", "task", "bug"), "a story, task or bug") if issue_type == "subtask" else (("epic",), "an epic")
    if parent["type"] not in wanted:
        raise ForbiddenError(f"a {issue_type}'s parent must be {named}; {parent['key']} is {_article(parent['type'])}")


def _article(noun: str) -> str:
    return f"an {noun}" if noun[0] in "aeiou" else f"a {noun}"


def _assignee(ctx: ToolContext, project_id: int, project_key: str, user_id: int) -> Row:
    """A user who may be assigned issues of the project (a member), or the error saying why not."""
    user = ctx.sql.one("SELECT users.id, users.name, users.email, project_members.role FROM users LEFT JOIN project_members "
                       "ON project_members.user_id = users.id AND project_members.project_id = ? WHERE users.id = ?",
                       [project_id, user_id])
    if user is None:
        raise NotFoundError(f"no user with id {user_id}. {USER_HINT}")
    if user["role"] is None:
        raise ForbiddenError(f"{user['name']} (user {user_id}) is not a member of project {project_key}; issues are "
                             "assigned only to project members (get_project lists them)")
    return user


def _components(ctx: ToolContext, project_id: int, project_key: str, names: Sequence[str]) -> list[Row]:
    """The project's components named (case-insensitive), in the order given, without repeats."""
    wanted = list(dict.fromkeys(name.strip().lower() for name in names))
    if not wanted:
        return []
    rows = ctx.sql.all("SELECT id, name FROM components WHERE project_id = ? ORDER BY name", [project_id])
    by_name = {row["name"].lower(): row for row in rows}
    unknown = [name for name in wanted if name not in by_name]
    if unknown:
        raise InvalidArgumentError(f"project {project_key} has no component {', '.join(unknown)}; its components are "
                                   f"{', '.join(row['name'] for row in rows)}")
    return [by_name[name] for name in wanted]


def _manage_sprints(sprint_or_project: Row, verb: str) -> None:
    """Only the project lead plans, starts and closes a project's sprints."""
    if sprint_or_project["lead_id"] != ACTING_USER_ID:
        raise ForbiddenError(f"only the lead of project {sprint_or_project['project_key']} "
                             f"({sprint_or_project['lead_name']}) may {verb} its sprints; you are not its lead")


def _check_range(after: datetime | None, before: datetime | None, name: str) -> None:
    if after is not None and before is not None and after >= before:
        raise InvalidArgumentError(f"{name}_after must be earlier than {name}_before")


# ---------------------------------------------------------------- projects and people


@tools.tool(examples=[{}, {"type": "scrum"}])
def list_projects(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Part of the key or name (case-insensitive).")] = None,
    type: Annotated[Literal["scrum", "kanban"] | None, Field(description="Only projects of this type.")] = None,
) -> ProjectList:
    """List the projects with their key, type, lead and issue counts. Start here to learn the project keys."""
    clauses, params = ["1"], []
    if query:
        clauses.append("(lower(projects.key) LIKE ? ESCAPE '/' OR lower(projects.name) LIKE ? ESCAPE '/')")
        params += [contains_pattern(query.strip().lower())] * 2
    if type:
        clauses.append("projects.type = ?")
        params.append(type)
    rows = ctx.sql.all(
        "SELECT projects.id, projects.key, projects.name, projects.type, projects.workflow, users.id AS lead_user_id, "
        "users.name AS lead_name, users.email AS lead_email, "
        "(SELECT count(*) FROM issues WHERE issues.project_id = projects.id) AS total_issues, "
        "(SELECT count(*) FROM issues WHERE issues.project_id = projects.id AND issues.resolution IS NULL) AS open_issues "
        f"FROM projects JOIN users ON users.id = projects.lead_id WHERE {' AND '.join(clauses)} ORDER BY projects.key",
        params)
    return ProjectList(projects=[ProjectSummary(**row, lead=_brief(row, "lead")) for row in rows])


@tools.tool(examples=[{"project_key": "WEB"}])
def get_project(ctx: ToolContext, project_key: ProjectKey) -> ProjectDetail:
    """Get a project with its lead, members, components, issue counts per status and active sprint.

    Only members may be assigned the project's issues."""
    project = _project(ctx, project_key)
    members = ctx.sql.all("SELECT users.id, users.name, users.email, project_members.role FROM project_members "
                          "JOIN users ON users.id = project_members.user_id WHERE project_members.project_id = ? "
                          "ORDER BY project_members.role = 'lead' DESC, users.name, users.id", [project["id"]])
    components = ctx.sql.all("SELECT name, description FROM components WHERE project_id = ? ORDER BY name", [project["id"]])
    statuses = {row["status"]: row["n"] for row in ctx.sql.all(
        "SELECT status, count(*) AS n FROM issues WHERE project_id = ? GROUP BY status", [project["id"]])}
    active = ctx.sql.one("SELECT id, name, state FROM sprints WHERE project_id = ? AND state = 'active' ORDER BY id",
                         [project["id"]])
    flow = _workflow(project)
    by_status = {status: statuses.get(status, 0) for status in flow.statuses}
    lead = UserBrief(id=project["lead_id"], name=project["lead_name"], email=project["lead_email"])
    open_issues = sum(n for status, n in statuses.items() if STATUS_CATEGORIES[status] != "done")
    return ProjectDetail(**project, lead=lead, total_issues=sum(statuses.values()), open_issues=open_issues,
                         members=[MemberOut(**m) for m in members], components=[ComponentOut(**c) for c in components],
                         issues_by_status=by_status, active_sprint=None if active is None else SprintBrief(**active))


@tools.tool(examples=[{"project_key": "WEB"}, {"issue_key": "SUP-16"}])
def get_workflow(
    ctx: ToolContext,
    project_key: Annotated[ProjectKey | None, Field(description="The project whose workflow to show.")] = None,
    issue_key: Annotated[IssueKey | None, Field(description="Or an issue: its project's workflow and the statuses the issue may move to now.")] = None,
) -> WorkflowOut:
    """A project's workflow (statuses and allowed transitions), or an issue's allowed next statuses.

    Given an issue, also the statuses that issue may move to now: what transition_issue accepts."""
    if (project_key is None) == (issue_key is None):
        raise InvalidArgumentError("give exactly one of project_key or issue_key")
    issue: IssueSummary | None = None
    allowed: list[str] | None = None
    if issue_key is not None:
        row = _issue(ctx, issue_key)
        flow, key = _workflow(row), row["project_key"]
        issue = _summary(ctx, row["id"])
        allowed = flow.next_statuses(row["status"])
    else:
        assert project_key is not None
        project = _project(ctx, project_key)
        flow, key = _workflow(project), project["key"]
    return WorkflowOut(
        project_key=key, workflow=flow.name,
        statuses=[StatusOut(name=s, category=STATUS_CATEGORIES[s]) for s in flow.statuses],
        transitions=[TransitionOut(name=t.name, from_status=t.source, to_status=t.target) for t in flow.transitions],
        issue=issue, allowed_next=allowed,
    )


@tools.tool(examples=[{"query": "miller"}, {"project_key": "API", "per_page": 5}])
def search_users(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Part of the name or email (case-insensitive).")] = None,
    project_key: Annotated[ProjectKey | None, Field(description="Only members of this project.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> UserPage:
    """Find users (Northwind Systems employees) by name or email, or the members of a project, sorted by name."""
    clauses, params = ["1"], []
    if query:
        clauses.append("(lower(users.name) LIKE ? ESCAPE '/' OR lower(users.email) LIKE ? ESCAPE '/')")
        params += [contains_pattern(query.strip().lower())] * 2
    if project_key:
        project = _project(ctx, project_key)
        clauses.append("users.id IN (SELECT user_id FROM project_members WHERE project_id = ?)")
        params.append(project["id"])
    found = ctx.sql.page("users.id, users.name, users.email, users.title, users.timezone",
                         f"FROM users WHERE {' AND '.join(clauses)} ORDER BY users.name, users.id", params, page, per_page)
    return UserPage(users=_user_outs(ctx, found.rows), total=found.total, page=page, next_page=found.next_page)


@tools.tool(title="Get a user by email", examples=[{"email": "mary.cherry@northwindsystems.com"}])
def get_user_by_email(
    ctx: ToolContext,
    email: Annotated[str, Field(min_length=3, max_length=160, description="The user's email address (case-insensitive).")],
) -> UserDetail:
    """Find a user by email: their id (for assignee_id and other filters), title, projects and open workload."""
    row = ctx.sql.one("SELECT id, name, email, title, timezone FROM users WHERE email = ?", [email.strip().lower()])
    if row is None:
        raise NotFoundError(f"no user with email {email.strip().lower()}. Only Northwind Systems employees use the "
                            f"tracker; {USER_HINT}")
    return _user_detail(ctx, row)


@tools.tool(title="Who am I", examples=[{}])
def get_myself(ctx: ToolContext) -> UserDetail:
    """The user you act as in the tracker: name, id, projects and open workload."""
    row = ctx.sql.one("SELECT id, name, email, title, timezone FROM users WHERE id = ?", [ACTING_USER_ID])
    assert row is not None
    return _user_detail(ctx, row)


# ---------------------------------------------------------------- issues


def _issue_clauses(
    ctx: ToolContext, query: str | None, project_key: str | None, status: list[str] | None, resolved: bool | None,
    type: list[str] | None, priority: list[str] | None, assignee_id: int | None, unassigned: bool,
    reporter_id: int | None, labels: list[str] | None, component: str | None, sprint_id: int | None,
    in_backlog: bool, parent_key: str | None, support_ticket_id: int | None,
    created_after: datetime | None, created_before: datetime | None,
    resolved_after: datetime | None, resolved_before: datetime | None,
) -> tuple[str, list[Any]]:
    """The issue filters as an SQL condition on `issues` and its positional parameters. Named
    projects, users, sprints and parents must exist (a filter on a missing one is an error, as
    in JQL)."""
    _check_range(created_after, created_before, "created")
    _check_range(resolved_after, resolved_before, "resolved")
    if unassigned and assignee_id is not None:
        raise InvalidArgumentError("give assignee_id or unassigned, not both")
    clauses: list[str] = []
    params: list[Any] = []
    for word in search_words(query):
        clauses.append("(lower(issues.summary) LIKE ? ESCAPE '/' OR lower(issues.description) LIKE ? ESCAPE '/')")
        params += [contains_pattern(word)] * 2
    if project_key:
        clauses.append("issues.project_id = ?")
        params.append(_project(ctx, project_key)["id"])
    for column, values in (("status", status), ("type", type), ("priority", priority)):
        if values:
            clauses.append(f"issues.{column} IN (SELECT value FROM json_each(?))")
            params.append(values)
    if resolved is not None:
        clauses.append("issues.resolution IS NOT NULL" if resolved else "issues.resolution IS NULL")
    users = [u for u in (assignee_id, reporter_id) if u is not None]
    if users:
        known = set(ctx.sql.column("SELECT id FROM users WHERE id IN (SELECT value FROM json_each(?))", [users]))
        for user_id in users:
            if user_id not in known:
                raise NotFoundError(f"no user with id {user_id}. {USER_HINT}")
    if assignee_id is not None:
        clauses.append("issues.assignee_id = ?")
        params.append(assignee_id)
    if unassigned:
        clauses.append("issues.assignee_id IS NULL")
    if reporter_id is not None:
        clauses.append("issues.reporter_id = ?")
        params.append(reporter_id)
    for label in dict.fromkeys(labels or ()):
        clauses.append("issues.id IN (SELECT issue_id FROM issue_labels WHERE label = ?)")
        params.append(label)
    if component:
        clauses.append("issues.id IN (SELECT issue_components.issue_id FROM issue_components JOIN components "
                       "ON components.id = issue_components.component_id WHERE lower(components.name) = ?)")
        params.append(component.strip().lower())
    if sprint_id is not None:
        _sprint(ctx, sprint_id)
        clauses.append("issues.id IN (SELECT issue_id FROM sprint_issues WHERE sprint_id = ? AND removed_at IS NULL)")
        params.append(sprint_id)
    if in_backlog:
        clauses.append(f"issues.resolution IS NULL AND issues.type NOT IN ('epic', 'subtask') AND issues.id NOT IN ({OPEN_SPRINT})")
    if parent_key:
        clauses.append("issues.parent_id = ?")
        params.append(_issue(ctx, parent_key)["id"])
    for condition, value in (("issues.support_ticket_id = ?", support_ticket_id),
                             ("issues.created_at >= ?", created_after), ("issues.created_at < ?", created_before),
                             ("issues.resolved_at >= ?", resolved_after), ("issues.resolved_at < ?", resolved_before)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    return " AND ".join(clauses) or "1", params


@tools.tool(examples=[{"project_key": "WEB", "status": ["In Progress", "In Review"], "per_page": 5},
                      {"query": "dashboard", "type": ["bug"], "resolved": False},
                      {"assignee_id": 5, "sort_by": "priority", "sort_order": "asc"}])
def search_issues(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Words that must all appear in the summary or description (case-insensitive).")] = None,
    project_key: Annotated[ProjectKey | None, Field(description="Only issues of this project.")] = None,
    status: Annotated[list[StatusName] | None, Field(description="Only issues in one of these statuses.")] = None,
    resolved: Annotated[bool | None, Field(description="True: only resolved issues (Done, Won't Do); False: only unresolved.")] = None,
    type: Annotated[list[IssueType] | None, Field(description="Only issues of these types.")] = None,
    priority: Annotated[list[Priority] | None, Field(description="Only issues with one of these priorities.")] = None,
    assignee_id: Annotated[int | None, Field(description="Only issues assigned to this user id.")] = None,
    unassigned: Annotated[bool, Field(description="Only issues with no assignee.")] = False,
    reporter_id: Annotated[int | None, Field(description="Only issues reported by this user id.")] = None,
    labels: Annotated[list[Label] | None, Field(description="Only issues carrying all of these labels.")] = None,
    component: Annotated[ComponentName | None, Field(description="Only issues of the component with this name.")] = None,
    sprint_id: Annotated[int | None, Field(description="Only issues in this sprint (for a closed sprint: those in it when it closed).")] = None,
    in_backlog: Annotated[bool, Field(description="Only the backlog: unresolved stories, tasks and bugs in no future or active sprint.")] = False,
    parent_key: Annotated[IssueKey | None, Field(description="Only the issues of this epic, or the subtasks of this issue.")] = None,
    support_ticket_id: Annotated[int | None, Field(description="Only the issue escalated from this help-desk (Zendesk) ticket number.")] = None,
    created_after: Annotated[DateTimeArg | None, Field(description="Only issues created at or after this time (ISO 8601, UTC).")] = None,
    created_before: Annotated[DateTimeArg | None, Field(description="Only issues created strictly before this time.")] = None,
    resolved_after: Annotated[DateTimeArg | None, Field(description="Only issues resolved at or after this time.")] = None,
    resolved_before: Annotated[DateTimeArg | None, Field(description="Only issues resolved strictly before this time.")] = None,
    sort_by: Annotated[Literal["created_at", "updated_at", "resolved_at", "priority", "story_points", "key"],
                       Field(description="Sort key (priority: highest first when ascending).")] = "created_at",
    sort_order: Annotated[Literal["asc", "desc"], Field(description="Sort direction.")] = "desc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> IssuePage:
    """Search issues with JQL-like filters (all must hold); returns one page of issue summaries and the total.

    Issues without a value for the sort key (unresolved issues by resolved_at, unestimated by
    story_points) sort last; issues with equal values follow in creation order (oldest first).
    """
    where, params = _issue_clauses(ctx, query, project_key, status, resolved, type, priority, assignee_id, unassigned,
                                   reporter_id, labels, component, sprint_id, in_backlog, parent_key, support_ticket_id,
                                   created_after, created_before, resolved_after, resolved_before)
    direction = "ASC" if sort_order == "asc" else "DESC"
    if sort_by == "key":
        order = f"projects.key {direction}, issues.number {direction}, issues.id ASC"
    else:
        expression = ISSUE_SORT_KEYS[sort_by]
        order = f"{expression} IS NULL, {expression} {direction}, issues.id ASC"
    found = ctx.sql.page(ISSUE_COLUMNS, f"{ISSUE_TABLES} WHERE {where} ORDER BY {order}", params, page, per_page, Issue)
    return IssuePage(issues=_summaries(ctx, found.rows), total=found.total, page=page, next_page=found.next_page)


@tools.tool(examples=[{"issue_key": "WEB-10"}, {"issue_key": "sup-16"}])
def get_issue(ctx: ToolContext, issue_key: IssueKey) -> IssueDetail:
    """Get one issue by key (WEB-42) with its description, sprint, parent, children, links and comment count.

    Children are an epic's issues or an issue's subtasks; links read from this issue's side
    (blocks, is blocked by, duplicates, is duplicated by, relates to)."""
    return _detail(ctx, issue_key)


@tools.tool(examples=[{"issue_key": "SUP-15"}])
def list_comments(
    ctx: ToolContext,
    issue_key: IssueKey,
    sort_order: Annotated[Literal["asc", "desc"], Field(description="Oldest first (asc) or newest first.")] = "asc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> CommentPage:
    """List an issue's comments in time order, with their authors."""
    issue = _issue(ctx, issue_key)
    direction = "ASC" if sort_order == "asc" else "DESC"
    found = ctx.sql.page("comments.id, comments.body, comments.created_at, users.id AS author_user_id, "
                         "users.name AS author_name, users.email AS author_email",
                         "FROM comments JOIN users ON users.id = comments.author_id WHERE comments.issue_id = ? "
                         f"ORDER BY comments.created_at {direction}, comments.id {direction}",
                         [issue["id"]], page, per_page, Comment)
    return CommentPage(comments=[CommentOut(**row, issue_key=issue["key"], author=_brief(row, "author"))
                                 for row in found.rows], total=found.total, page=page, next_page=found.next_page)


@tools.tool(examples=[{"issue_key": "WEB-129"}, {"issue_key": "API-2", "field": "status"}])
def get_issue_history(
    ctx: ToolContext,
    issue_key: IssueKey,
    field: Annotated[HistoryField | None, Field(description="Only changes of this field.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> HistoryPage:
    """An issue's change history, oldest first: who changed which field from what to what, and when.

    Fields: status, resolution, assignee, priority, story_points, summary, description, labels,
    components, parent, sprint and link."""
    issue = _issue(ctx, issue_key)
    clauses, params = ["issue_changes.issue_id = ?"], [issue["id"]]
    if field:
        clauses.append("issue_changes.field = ?")
        params.append(field)
    found = ctx.sql.page("issue_changes.id, issue_changes.field, issue_changes.from_value, issue_changes.to_value, "
                         "issue_changes.created_at, users.id AS author_user_id, users.name AS author_name, "
                         "users.email AS author_email",
                         f"FROM issue_changes JOIN users ON users.id = issue_changes.author_id WHERE {' AND '.join(clauses)} "
                         "ORDER BY issue_changes.created_at, issue_changes.id", params, page, per_page, IssueChange)
    return HistoryPage(issue_key=issue["key"], changes=[ChangeOut(**row, author=_brief(row, "author")) for row in found.rows],
                       total=found.total, page=page, next_page=found.next_page)


# ---------------------------------------------------------------- sprints and reports


@tools.tool(examples=[{"project_key": "WEB"}, {"project_key": "API", "state": ["future", "active"]}])
def list_sprints(
    ctx: ToolContext,
    project_key: ProjectKey,
    state: Annotated[list[SprintState] | None, Field(description="Only sprints in these states.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> SprintPage:
    """List a scrum project's sprints, newest first, with dates, goal, state and size."""
    project = _project(ctx, project_key)
    where, params = "sprints.project_id = ?", [project["id"]]
    if state:
        where += " AND sprints.state IN (SELECT value FROM json_each(?))"
        params.append(state)
    sprints, total, following = _sprint_out(ctx, where, params, page, per_page)
    return SprintPage(sprints=sprints, total=total, page=page, next_page=following)


def _report(ctx: ToolContext, sprint_id: int) -> SprintReport:
    sprint = _one_sprint(ctx, sprint_id)
    rows = ctx.sql.all(
        "SELECT sprint_issues.*, issues.key, issues.summary, issues.type, issues.status, issues.story_points, "
        "users.id AS assignee_user_id, users.name AS assignee_name, users.email AS assignee_email "
        "FROM sprint_issues JOIN issues ON issues.id = sprint_issues.issue_id LEFT JOIN users ON users.id = issues.assignee_id "
        "WHERE sprint_issues.sprint_id = ? ORDER BY issues.number, issues.id", [sprint_id], (SprintIssue, Issue))
    started = sprint.state != "future"
    closed = sprint.state == "closed"
    items = []
    for row in rows:
        completed = row["completed"] if closed else (row["removed_at"] is None and row["status"] == "Done")
        items.append((row, SprintIssueOut(
            key=row["key"], summary=row["summary"], type=row["type"], status=row["status"], story_points=row["story_points"],
            assignee=_brief(row, "assignee"), committed=row["committed"], completed=completed,
            removed=row["removed_at"] is not None and started)))
    present = [(row, item) for row, item in items if row["removed_at"] is None]
    committed = [row for row, _ in items if row["committed"]]
    done = [item for _, item in items if item.completed]
    return SprintReport(
        sprint=sprint,
        committed_issues=len(committed),
        committed_points=sum(row["points_at_start"] or 0 for row in committed),
        completed_issues=len(done),
        completed_points=sum(item.story_points or 0 for item in done),
        added_issues=sum(1 for row, _ in items if started and not row["committed"]),
        removed_issues=sum(1 for _, item in items if item.removed),
        remaining_points=sum(item.story_points or 0 for _, item in present if STATUS_CATEGORIES[item.status] != "done"),
        issues_by_status=dict(sorted(Counter(item.status for _, item in present).items())),
        issues=[item for _, item in items],
    )


@tools.tool(examples=[{"sprint_id": 10}, {"sprint_id": 14}])
def sprint_report(ctx: ToolContext, sprint_id: Annotated[int, Field(description="The sprint's id (list_sprints).")]) -> SprintReport:
    """A sprint's report: committed against completed issues and story points, and every issue's outcome.

    Also the scope added and removed after the start, the remaining points and the issues per
    status. For an open sprint, completed means Done now."""
    _sprint(ctx, sprint_id)
    return _report(ctx, sprint_id)


@tools.tool(examples=[{"project_key": "WEB"}, {"project_key": "MOB", "sprints": 3}])
def velocity_report(
    ctx: ToolContext,
    project_key: ProjectKey,
    sprints: Annotated[int, Field(ge=1, le=20, description="How many of the latest closed sprints.")] = 6,
) -> VelocityReport:
    """A scrum team's velocity: committed and completed story points of its latest closed sprints, and their averages."""
    project = _project(ctx, project_key)
    if project["type"] != "scrum":
        raise InvalidArgumentError(f"{project['key']} is a kanban project and has no sprints; "
                                   "use workload_report or search_issues for its flow")
    rows = ctx.sql.all(
        "SELECT sprints.id AS sprint_id, sprints.name, sprints.start_at, sprints.completed_at, "
        "coalesce(sum(CASE WHEN sprint_issues.committed THEN sprint_issues.points_at_start END), 0) AS committed_points, "
        "coalesce(sum(CASE WHEN sprint_issues.completed THEN issues.story_points END), 0) AS completed_points, "
        "coalesce(sum(sprint_issues.completed), 0) AS completed_issues "
        "FROM sprints LEFT JOIN sprint_issues ON sprint_issues.sprint_id = sprints.id "
        "LEFT JOIN issues ON issues.id = sprint_issues.issue_id "
        "WHERE sprints.project_id = ? AND sprints.state = 'closed' GROUP BY sprints.id "
        "ORDER BY sprints.completed_at DESC, sprints.id DESC LIMIT ?", [project["id"], sprints], Sprint)
    out = [VelocityRow(**row) for row in rows]

    def mean(values: list[int]) -> float | None:
        return round(sum(values) / len(values), 1) if values else None

    return VelocityReport(project_key=project["key"], sprints=out,
                          average_committed_points=mean([r.committed_points for r in out]),
                          average_completed_points=mean([r.completed_points for r in out]))


@tools.tool(examples=[{"project_key": "WEB"}, {"sprint_id": 14}, {}])
def workload_report(
    ctx: ToolContext,
    project_key: Annotated[ProjectKey | None, Field(description="Only this project's issues.")] = None,
    sprint_id: Annotated[int | None, Field(description="Only the issues in this sprint.")] = None,
) -> WorkloadReport:
    """Open work per assignee: unresolved issues (epics aside), story points and statuses, busiest first.

    The unassigned issues come last."""
    clauses, params = ["issues.resolution IS NULL", "issues.type != 'epic'"], []
    key = None
    if project_key:
        project = _project(ctx, project_key)
        key = project["key"]
        clauses.append("issues.project_id = ?")
        params.append(project["id"])
    if sprint_id is not None:
        _sprint(ctx, sprint_id)
        clauses.append("issues.id IN (SELECT issue_id FROM sprint_issues WHERE sprint_id = ? AND removed_at IS NULL)")
        params.append(sprint_id)
    rows = ctx.sql.all(
        "SELECT issues.assignee_id AS assignee_user_id, users.name AS assignee_name, users.email AS assignee_email, "
        "issues.status, count(*) AS n, coalesce(sum(issues.story_points), 0) AS points FROM issues "
        f"LEFT JOIN users ON users.id = issues.assignee_id WHERE {' AND '.join(clauses)} "
        "GROUP BY issues.assignee_id, issues.status ORDER BY issues.assignee_id, issues.status", params)
    grouped: dict[int | None, WorkloadRow] = {}
    for row in rows:
        entry = grouped.setdefault(row["assignee_user_id"], WorkloadRow(
            assignee=_brief(row, "assignee"), open_issues=0, open_points=0, by_status={}))
        entry.open_issues += row["n"]
        entry.open_points += row["points"]
        entry.by_status[row["status"]] = row["n"]
    ordered = sorted(grouped.values(), key=lambda r: (r.assignee is None, -r.open_points, -r.open_issues,
                                                      r.assignee.name if r.assignee else "", r.assignee.id if r.assignee else 0))
    return WorkloadReport(project_key=key, sprint_id=sprint_id, open_issues=sum(r.open_issues for r in ordered),
                          assignees=ordered)


# ---------------------------------------------------------------- issue writes


@tools.tool(writes=True, destructive=False, idempotent=False, title="Create an issue", examples=[
    {"project_key": "WEB", "type": "bug", "summary": "Dashboard: export button overlaps the legend",
     "priority": "high", "story_points": 3, "labels": ["frontend"], "components": ["Dashboard"]},
    {"project_key": "API", "type": "story", "summary": "As an integrator, I can list webhooks by status",
     "sprint_id": 32},
])
def create_issue(
    ctx: ToolContext,
    project_key: ProjectKey,
    type: Annotated[IssueType, Field(description="epic, story, task, bug or subtask (a subtask needs parent_key).")],
    summary: Annotated[Summary, Field(description="One-line title.")],
    description: Annotated[Body, Field(description="Details: steps, acceptance criteria.")] = "",
    priority: Annotated[Priority, Field(description="Priority.")] = "medium",
    assignee_id: Annotated[int | None, Field(description="User id of the assignee; must be a member of the project.")] = None,
    story_points: Annotated[int | None, Field(ge=0, le=100, description="Estimate: one of 1, 2, 3, 5, 8, 13, 21 (stories, tasks, bugs).")] = None,
    labels: Annotated[list[Label], Field(max_length=20, description="Labels (lowercase, no spaces).")] = [],
    components: Annotated[list[ComponentName], Field(max_length=10, description="Component names of the project.")] = [],
    parent_key: Annotated[IssueKey | None, Field(description="The epic of a story, task or bug; the issue of a subtask.")] = None,
    sprint_id: Annotated[int | None, Field(description="A future or active sprint of the project to plan it in (else the backlog).")] = None,
    support_ticket_id: Annotated[int | None, Field(ge=1, description="The help-desk (Zendesk) ticket number this issue is escalated from.")] = None,
) -> IssueDetail:
    """Create an issue in a project, reported by you, in status To Do; returns it with its new key.

    The key (WEB-123) takes the project's next number. A help-desk ticket is escalated to one
    issue at most."""
    project = _project(ctx, project_key)
    parent = _issue(ctx, parent_key) if parent_key else None
    _check_parent(type, project["id"], parent)
    _check_points(type, story_points)
    if assignee_id is not None:
        _assignee(ctx, project["id"], project["key"], assignee_id)
    chosen = _components(ctx, project["id"], project["key"], components)
    if sprint_id is not None:
        _plannable(ctx, _sprint(ctx, sprint_id), project["id"], type)
    if support_ticket_id is not None:
        tracked = ctx.sql.scalar("SELECT key FROM issues WHERE support_ticket_id = ?", [support_ticket_id])
        if tracked is not None:
            raise ForbiddenError(f"help-desk ticket #{support_ticket_id} is already escalated to {tracked}; a ticket "
                                 "is tracked by one issue: comment on or update that issue instead")
    (created,) = ctx.sql.all(
        "INSERT INTO issues (project_id, number, key, type, summary, description, status, priority, assignee_id, "
        "reporter_id, story_points, parent_id, resolution, support_ticket_id, created_at, updated_at, resolved_at) "
        "SELECT :project, coalesce(max(number), 0) + 1, :prefix || (coalesce(max(number), 0) + 1), :type, :summary, "
        ":description, 'To Do', :priority, :assignee, :reporter, :points, :parent, NULL, :ticket, :now, :now, NULL "
        "FROM issues WHERE project_id = :project RETURNING id, key",
        {"project": project["id"], "prefix": f"{project['key']}-", "type": type, "summary": summary,
         "description": description, "priority": priority, "assignee": assignee_id, "reporter": ACTING_USER_ID,
         "points": story_points, "parent": parent["id"] if parent else None, "ticket": support_ticket_id, "now": ctx.now})
    _set_labels(ctx, created["id"], labels)
    _set_components(ctx, created["id"], [c["id"] for c in chosen])
    if sprint_id is not None:
        _join_sprint(ctx, [created["id"]], sprint_id)
    return _detail(ctx, created["key"])


def _set_labels(ctx: ToolContext, issue_id: int, labels: Sequence[str]) -> None:
    if labels:
        ctx.sql.execute("INSERT INTO issue_labels (issue_id, label) SELECT DISTINCT ?, value FROM json_each(?)",
                        [issue_id, list(labels)])


def _set_components(ctx: ToolContext, issue_id: int, component_ids: Sequence[int]) -> None:
    if component_ids:
        ctx.sql.execute("INSERT INTO issue_components (issue_id, component_id) SELECT DISTINCT ?, value FROM json_each(?)",
                        [issue_id, list(component_ids)])


def _plannable(ctx: ToolContext, sprint: Row, project_id: int, issue_type: str) -> None:
    """Whether issues of a project and type may go into `sprint` (else the rule they break)."""
    if sprint["project_id"] != project_id:
        raise ForbiddenError(f"sprint {sprint['id']} ({sprint['name']}) belongs to project {sprint['project_key']}; "
                             "issues are planned only in their own project's sprints")
    if sprint["state"] == "closed":
        raise ForbiddenError(f"sprint {sprint['name']} is closed; plan issues in a future or active sprint")
    if issue_type in ("epic", "subtask"):
        raise ForbiddenError(f"{issue_type}s are not planned in sprints ("
                             + ("an epic spans many sprints" if issue_type == "epic" else "a subtask goes with its parent") + ")")


def _join_sprint(ctx: ToolContext, issue_ids: Sequence[int], sprint_id: int) -> None:
    """Put issues in a sprint (again, if they had left it), as planned now."""
    ctx.sql.execute("INSERT INTO sprint_issues (sprint_id, issue_id, added_at, removed_at, committed, points_at_start, completed) "
                    "SELECT ?, value, ?, NULL, 0, NULL, 0 FROM json_each(?) WHERE true "
                    "ON CONFLICT (sprint_id, issue_id) DO UPDATE SET added_at = excluded.added_at, removed_at = NULL",
                    [sprint_id, ctx.now, list(issue_ids)])


@tools.tool(writes=True, destructive=True, idempotent=True, title="Update an issue", examples=[
    {"issue_key": "WEB-10", "priority": "highest", "story_points": 5},
    {"issue_key": "SUP-16", "labels": ["customer-reported", "regression"], "components": ["API"], "summary": "Webhook deliveries are delayed"},
])
def update_issue(
    ctx: ToolContext,
    issue_key: IssueKey,
    summary: Annotated[Summary | None, Field(description="New summary.")] = None,
    description: Annotated[Body | None, Field(description="New description.")] = None,
    priority: Annotated[Priority | None, Field(description="New priority.")] = None,
    story_points: Annotated[int | None, Field(ge=0, le=100, description="New estimate: 1, 2, 3, 5, 8, 13 or 21.")] = None,
    labels: Annotated[list[Label] | None, Field(max_length=20, description="The labels the issue should have (replaces them).")] = None,
    components: Annotated[list[ComponentName] | None, Field(max_length=10, description="The components it should have (replaces them).")] = None,
    parent_key: Annotated[IssueKey | None, Field(description="New parent: the epic of a story, task or bug.")] = None,
) -> IssueDetail:
    """Change an issue's fields (only those given); each change goes into its history.

    Use transition_issue for the status, assign_issue for the assignee and move_issues_to_sprint
    for the sprint."""
    given = (summary, description, priority, story_points, labels, components, parent_key)
    if all(value is None for value in given):
        raise InvalidArgumentError("give at least one field to change")
    before = _issue(ctx, issue_key)
    issue = dict(before)
    changes: list[tuple[str, Any, Any]] = []
    if parent_key is not None:
        parent = _issue(ctx, parent_key)
        if issue["type"] == "subtask":
            raise ForbiddenError("a subtask stays with the issue it was created under")
        _check_parent(issue["type"], issue["project_id"], parent)
        old = ctx.sql.scalar("SELECT key FROM issues WHERE id = ?", [issue["parent_id"]]) if issue["parent_id"] else None
        issue["parent_id"] = parent["id"]
        changes.append(("parent", old, parent["key"]))
    if story_points is not None:
        _check_points(issue["type"], story_points)
        issue["story_points"] = story_points
        changes.append(("story_points", before["story_points"], story_points))
    for column, value in (("summary", summary), ("description", description), ("priority", priority)):
        if value is not None:
            issue[column] = value
            changes.append((column, before[column], value))
    current = _attached(ctx, [issue["id"]]) if labels is not None or components is not None else Attached()
    if labels is not None:
        have = current.labels[issue["id"]]
        wanted = sorted(set(labels))
        if wanted != have:
            ctx.sql.execute("DELETE FROM issue_labels WHERE issue_id = ?", [issue["id"]])
            _set_labels(ctx, issue["id"], wanted)
            changes.append(("labels", ", ".join(have), ", ".join(wanted)))
    if components is not None:
        chosen = _components(ctx, issue["project_id"], issue["project_key"], components)
        have = current.components[issue["id"]]
        wanted = sorted(c["name"] for c in chosen)
        if wanted != have:
            ctx.sql.execute("DELETE FROM issue_components WHERE issue_id = ?", [issue["id"]])
            _set_components(ctx, issue["id"], [c["id"] for c in chosen])
            changes.append(("components", ", ".join(have), ", ".join(wanted)))
    if any(old != new for _, old, new in changes):
        issue["updated_at"] = ctx.now
    ctx.sql.update_row(Issue, before, issue)
    _record(ctx, issue["id"], changes)
    return _detail(ctx, issue["key"])


@tools.tool(writes=True, destructive=True, idempotent=True, title="Change an issue's status", examples=[
    {"issue_key": "WEB-10", "status": "In Progress"},
    {"issue_key": "SUP-16", "status": "Won't Do", "resolution": "Cannot Reproduce", "comment": "No further reports since the fix."},
])
def transition_issue(
    ctx: ToolContext,
    issue_key: IssueKey,
    status: Annotated[StatusName, Field(description="The status to move to; it must be a next status in the project's workflow (get_workflow).")],
    resolution: Annotated[WontDoResolution | None, Field(description="Why an issue is resolved as Won't Do (default Won't Do); Done resolves as Done.")] = None,
    comment: Annotated[Body | None, Field(min_length=1, description="A comment to add with the change.")] = None,
) -> IssueDetail:
    """Move an issue to another status along its project's workflow, optionally with a comment.

    To Do -> In Progress -> In Review -> Done, with Blocked, Won't Do and Reopen (get_workflow
    lists the moves). Done or Won't Do resolves the issue; leaving them reopens it. Done needs
    every issue blocking it and every subtask resolved first.
    """
    before = _issue(ctx, issue_key)
    flow = _workflow(before)
    current = before["status"]
    if status == current:
        raise InvalidArgumentError(f"{before['key']} is already in status {current}")
    allowed = flow.next_statuses(current)
    if status not in allowed:
        raise ForbiddenError(f"{before['key']} is in status {current}; the {flow.name} workflow of {before['project_key']} "
                             f"allows moving it only to: {', '.join(allowed)}")
    if resolution is not None and status != "Won't Do":
        raise InvalidArgumentError(f"a resolution is given only when moving to Won't Do (moving to {status})")
    if status == "Done":
        blockers = ctx.sql.all("SELECT issues.key, issues.status FROM issue_links JOIN issues ON issues.id = issue_links.source_id "
                               "WHERE issue_links.target_id = ? AND issue_links.type = 'blocks' AND issues.resolution IS NULL "
                               "ORDER BY issues.number, issues.id", [before["id"]])
        if blockers:
            named = _listed([f"{blocker['key']} ({blocker['status']})" for blocker in blockers])
            raise ForbiddenError(f"{before['key']} is blocked by {named}, not yet resolved; an issue cannot be Done "
                                 "while an issue blocking it is unresolved")
        subtasks = ctx.sql.column("SELECT key FROM issues WHERE parent_id = ? AND type = 'subtask' AND resolution IS NULL "
                                  "ORDER BY number, id", [before["id"]])
        if subtasks:
            raise ForbiddenError(f"{before['key']} has unresolved subtasks ({_listed(subtasks)}); resolve them before it is Done")
    issue = {**before, "status": status, "updated_at": ctx.now}
    if STATUS_CATEGORIES[status] == "done":
        issue["resolution"] = "Done" if status == "Done" else resolution or "Won't Do"
        issue["resolved_at"] = ctx.now
    else:
        issue["resolution"] = issue["resolved_at"] = None
    ctx.sql.update_row(Issue, before, issue)
    _record(ctx, issue["id"], [("status", current, status), ("resolution", before["resolution"], issue["resolution"])])
    if comment is not None:
        _insert_comment(ctx, issue["id"], comment)
    return _detail(ctx, issue["key"])


def _insert_comment(ctx: ToolContext, issue_id: int, body: str) -> int:
    return ctx.sql.insert("INSERT INTO comments (issue_id, author_id, body, created_at) VALUES (?, ?, ?, ?)",
                          [issue_id, ACTING_USER_ID, body, ctx.now])


@tools.tool(writes=True, destructive=True, idempotent=True, title="Assign an issue", examples=[{"issue_key": "WEB-10", "assignee_id": 5},
                                                                       {"issue_key": "SUP-16", "assignee_id": None}])
def assign_issue(
    ctx: ToolContext,
    issue_key: IssueKey,
    assignee_id: Annotated[int | None, Field(description="User id of the new assignee (a member of the project), or null to unassign.")],
) -> IssueSummary:
    """Assign an issue to a project member, or unassign it (null). Assigning to the current assignee changes nothing."""
    before = _issue(ctx, issue_key)
    user = None if assignee_id is None else _assignee(ctx, before["project_id"], before["project_key"], assignee_id)
    if assignee_id != before["assignee_id"]:
        old = ctx.sql.scalar("SELECT name FROM users WHERE id = ?", [before["assignee_id"]]) if before["assignee_id"] else None
        ctx.sql.update_row(Issue, before, {**before, "assignee_id": assignee_id, "updated_at": ctx.now})
        _record(ctx, before["id"], [("assignee", old, user["name"] if user else None)])
    return _summary(ctx, before["id"])


@tools.tool(writes=True, destructive=False, idempotent=False, title="Comment on an issue", examples=[{"issue_key": "SUP-16", "body": "A second customer reported this today; raising it in triage."}])
def add_comment(
    ctx: ToolContext,
    issue_key: IssueKey,
    body: Annotated[Body, Field(min_length=1, description="The comment text.")],
) -> CommentOut:
    """Add a comment to an issue, as you."""
    before = _issue(ctx, issue_key)
    ctx.sql.update_row(Issue, before, {**before, "updated_at": ctx.now})
    comment_id = _insert_comment(ctx, before["id"], body)
    me = ctx.sql.one("SELECT id, name, email FROM users WHERE id = ?", [ACTING_USER_ID])
    assert me is not None
    return CommentOut(id=comment_id, issue_key=before["key"], author=UserBrief(**me), body=body, created_at=ctx.now)


@tools.tool(writes=True, destructive=False, idempotent=True, title="Link two issues", examples=[{"issue_key": "WEB-10", "link_type": "is blocked by", "other_issue_key": "WEB-16"},
                                                     {"issue_key": "SUP-16", "link_type": "relates to", "other_issue_key": "API-11"}])
def link_issues(
    ctx: ToolContext,
    issue_key: IssueKey,
    link_type: Annotated[LinkType, Field(description="How issue_key relates to other_issue_key.")],
    other_issue_key: IssueKey,
) -> IssueDetail:
    """Link two issues: issue_key blocks, is blocked by, duplicates, is duplicated by or relates to the other.

    Returns issue_key with its links. Blocking links may not form a cycle."""
    issue, other = _issue(ctx, issue_key), _issue(ctx, other_issue_key)
    if issue["id"] == other["id"]:
        raise InvalidArgumentError("an issue cannot be linked to itself")
    stored, reversed_ = LINK_STORED[link_type]
    source, target = (other, issue) if reversed_ else (issue, other)
    existing = ctx.sql.scalar("SELECT type FROM issue_links WHERE type = ? AND ((source_id = ? AND target_id = ?) "
                              "OR (type = 'relates' AND source_id = ? AND target_id = ?))",
                              [stored, source["id"], target["id"], target["id"], source["id"]])
    if existing is not None:
        raise InvalidArgumentError(f"{issue['key']} already {link_type} {other['key']}")
    if stored == "blocks":
        cycle = ctx.sql.scalar(
            "WITH RECURSIVE downstream(id) AS (SELECT ? UNION SELECT issue_links.target_id FROM issue_links "
            "JOIN downstream ON issue_links.source_id = downstream.id WHERE issue_links.type = 'blocks') "
            "SELECT 1 FROM downstream WHERE id = ?", [target["id"], source["id"]])
        if cycle:
            raise ForbiddenError(f"{target['key']} already blocks {source['key']} (directly or through other issues); "
                                 f"{source['key']} blocking {target['key']} would make a cycle no one could finish")
    ctx.sql.execute("INSERT INTO issue_links (source_id, target_id, type, author_id, created_at) VALUES (?, ?, ?, ?, ?)",
                    [source["id"], target["id"], stored, ACTING_USER_ID, ctx.now])
    ctx.sql.update_row(Issue, issue, {**issue, "updated_at": ctx.now})
    _record(ctx, issue["id"], [("link", None, f"{link_type} {other['key']}")])
    return _detail(ctx, issue["key"])


# ---------------------------------------------------------------- sprint writes


@tools.tool(writes=True, destructive=True, idempotent=True, title="Move issues to a sprint", examples=[
    {"issue_keys": ["WEB-10", "WEB-16"], "sprint_id": 15},
    {"issue_keys": ["WEB-197"], "sprint_id": None},
])
def move_issues_to_sprint(
    ctx: ToolContext,
    issue_keys: Annotated[list[IssueKey], Field(min_length=1, max_length=50, description="Issues to move (one project).")],
    sprint_id: Annotated[int | None, Field(description="A future or active sprint of their project; null moves them to the backlog.")],
) -> MoveResult:
    """Plan unresolved stories, tasks and bugs into a sprint, or move them back to the backlog (null).

    Each move goes into the issue's history; the result names the sprints the issues left."""
    keys = list(dict.fromkeys(_issue_key(key) for key in issue_keys))
    rows = ctx.sql.all(
        "SELECT issues.id, issues.key, issues.type, issues.project_id, issues.resolution, projects.key AS project_key, "
        "(SELECT sprints.id FROM sprint_issues JOIN sprints ON sprints.id = sprint_issues.sprint_id "
        " WHERE sprint_issues.issue_id = issues.id AND sprint_issues.removed_at IS NULL AND sprints.state != 'closed') AS open_sprint_id, "
        "(SELECT sprints.name FROM sprint_issues JOIN sprints ON sprints.id = sprint_issues.sprint_id "
        " WHERE sprint_issues.issue_id = issues.id AND sprint_issues.removed_at IS NULL AND sprints.state != 'closed') AS open_sprint_name, "
        "(SELECT sprints.state FROM sprint_issues JOIN sprints ON sprints.id = sprint_issues.sprint_id "
        " WHERE sprint_issues.issue_id = issues.id AND sprint_issues.removed_at IS NULL AND sprints.state != 'closed') AS open_sprint_state "
        "FROM issues JOIN projects ON projects.id = issues.project_id WHERE issues.key IN (SELECT value FROM json_each(?)) "
        "ORDER BY issues.id", [keys])
    found = {row["key"]: row for row in rows}
    unknown = [key for key in keys if key not in found]
    if unknown:
        raise NotFoundError(f"no issue with key {_listed(unknown)}. {ISSUE_HINT}")
    projects = sorted({row["project_key"] for row in rows})
    if len(projects) > 1:
        raise InvalidArgumentError(f"the issues are in several projects ({', '.join(projects)}); move one project's issues at a time")
    sprint = _sprint(ctx, sprint_id) if sprint_id is not None else None
    for row in rows:
        if sprint is not None:
            _plannable(ctx, sprint, row["project_id"], row["type"])
        elif row["type"] in ("epic", "subtask"):
            raise ForbiddenError(f"{row['key']} is {_article(row['type'])}; {row['type']}s are not planned in sprints")
        if row["resolution"] is not None:
            raise ForbiddenError(f"{row['key']} is resolved ({row['resolution']}); only unresolved issues are planned "
                                 "or moved between sprints")
    moving = [row for row in rows if row["open_sprint_id"] != sprint_id]
    ids = [row["id"] for row in moving]
    if moving:
        # Leaving a future sprint unplans the issue; leaving the active sprint is scope removed (kept for its report).
        ctx.sql.execute("DELETE FROM sprint_issues WHERE issue_id IN (SELECT value FROM json_each(?)) "
                        "AND sprint_id IN (SELECT id FROM sprints WHERE state = 'future')", [ids])
        ctx.sql.execute("UPDATE sprint_issues SET removed_at = ? WHERE removed_at IS NULL AND issue_id IN "
                        "(SELECT value FROM json_each(?)) AND sprint_id IN (SELECT id FROM sprints WHERE state = 'active')",
                        [ctx.now, ids])
        if sprint is not None:
            _join_sprint(ctx, ids, sprint["id"])
        ctx.sql.execute("UPDATE issues SET updated_at = ? WHERE id IN (SELECT value FROM json_each(?))", [ctx.now, ids])
        ctx.sql.execute("INSERT INTO issue_changes (issue_id, author_id, field, from_value, to_value, created_at) "
                        "SELECT json_extract(value, '$[0]'), ?, 'sprint', json_extract(value, '$[1]'), ?, ? FROM json_each(?)",
                        [ACTING_USER_ID, sprint["name"] if sprint else None, ctx.now,
                         [[row["id"], row["open_sprint_name"]] for row in moving]])
    summaries = []
    if moving:
        summaries = _summaries(ctx, ctx.sql.all(f"SELECT {ISSUE_COLUMNS} {ISSUE_TABLES} WHERE issues.id IN "
                                                "(SELECT value FROM json_each(?)) ORDER BY issues.id", [ids], Issue))
    left = {row["open_sprint_id"]: SprintBrief(id=row["open_sprint_id"], name=row["open_sprint_name"], state=row["open_sprint_state"])
            for row in moving if row["open_sprint_id"] is not None}
    return MoveResult(sprint=None if sprint is None else SprintBrief(**sprint), from_sprints=[left[k] for k in sorted(left)],
                      moved=summaries,
                      unchanged=[row["key"] for row in rows if row["open_sprint_id"] == sprint_id])


@tools.tool(writes=True, destructive=False, idempotent=False, title="Create a sprint", examples=[{"project_key": "WEB", "goal": "Polish the new dashboard"},
                                   {"project_key": "API", "name": "API hardening sprint", "start_at": "2025-12-15T09:00:00Z",
                                    "end_at": "2025-12-29T09:00:00Z"}])
def create_sprint(
    ctx: ToolContext,
    project_key: ProjectKey,
    name: Annotated[str | None, Field(min_length=1, max_length=60, description="Name; default '<KEY> Sprint <n>', the next number.")] = None,
    goal: Annotated[str | None, Field(max_length=200, description="What the sprint should achieve.")] = None,
    start_at: Annotated[DateTimeArg | None, Field(description="Planned start (ISO 8601).")] = None,
    end_at: Annotated[DateTimeArg | None, Field(description="Planned end, after the start.")] = None,
) -> SprintOut:
    """Create a future sprint in a scrum project (its lead only), to plan issues into and start later."""
    project = _project(ctx, project_key)
    if project["type"] != "scrum":
        raise ForbiddenError(f"{project['key']} is a kanban project: its work flows continuously and it has no sprints")
    _manage_sprints({**project, "project_key": project["key"]}, "create")
    if start_at is not None and end_at is not None and end_at <= start_at:
        raise InvalidArgumentError("end_at must be after start_at")
    if name is None:
        count = ctx.sql.scalar("SELECT count(*) FROM sprints WHERE project_id = ?", [project["id"]]) or 0
        name = f"{project['key']} Sprint {count + 1}"
    if ctx.sql.scalar("SELECT 1 FROM sprints WHERE project_id = ? AND lower(name) = ?", [project["id"], name.strip().lower()]):
        raise InvalidArgumentError(f"project {project['key']} already has a sprint named {name}")
    sprint_id = ctx.sql.insert("INSERT INTO sprints (project_id, name, state, goal, start_at, end_at, completed_at, created_at) "
                               "VALUES (?, ?, 'future', ?, ?, ?, NULL, ?)",
                               [project["id"], name.strip(), goal, start_at, end_at, ctx.now])
    return _one_sprint(ctx, sprint_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Start a sprint", examples=[{"sprint_id": 61}])
def start_sprint(
    ctx: ToolContext,
    sprint_id: Annotated[int, Field(description="A future sprint (list_sprints).")],
    end_at: Annotated[DateTimeArg | None, Field(description="When it ends; default: now plus the project's sprint length.")] = None,
    goal: Annotated[str | None, Field(max_length=200, description="Set or replace the sprint goal.")] = None,
) -> SprintOut:
    """Start a future sprint now (its project's lead only): the issues in it become its commitment.

    A project runs one active sprint at a time, and a sprint starts with at least one issue."""
    before = _sprint(ctx, sprint_id)
    _manage_sprints(before, "start")
    if before["state"] != "future":
        raise ForbiddenError(f"sprint {before['name']} is {before['state']}; only a future sprint can be started")
    active = ctx.sql.one("SELECT id, name FROM sprints WHERE project_id = ? AND state = 'active'", [before["project_id"]])
    if active is not None:
        raise ForbiddenError(f"project {before['project_key']} already has an active sprint, {active['name']} "
                             f"(id {active['id']}); a project runs one sprint at a time: close it first")
    if end_at is not None and end_at <= ctx.now:
        raise InvalidArgumentError("end_at must be after now, when the sprint starts")
    size = ctx.sql.scalar("SELECT count(*) FROM sprint_issues WHERE sprint_id = ? AND removed_at IS NULL", [sprint_id])
    if not size:
        raise ForbiddenError(f"sprint {before['name']} has no issues; plan issues into it (move_issues_to_sprint) before starting it")
    days = ctx.sql.scalar("SELECT sprint_days FROM projects WHERE id = ?", [before["project_id"]]) or 14
    sprint = {**before, "state": "active", "start_at": ctx.now, "end_at": end_at or ctx.now + timedelta(days=days),
              "goal": before["goal"] if goal is None else goal}
    ctx.sql.update_row(Sprint, before, sprint)
    ctx.sql.execute("UPDATE sprint_issues SET committed = 1, points_at_start = (SELECT story_points FROM issues WHERE "
                    "issues.id = sprint_issues.issue_id) WHERE sprint_id = ? AND removed_at IS NULL", [sprint_id])
    return _one_sprint(ctx, sprint_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Close a sprint", examples=[{"sprint_id": 31}])
def close_sprint(ctx: ToolContext, sprint_id: Annotated[int, Field(description="The active sprint to close.")]) -> SprintReport:
    """Close the active sprint of a project (its lead only) and get the sprint's final report.

    Every issue in it must be resolved (Done or Won't Do) or first moved out
    (move_issues_to_sprint: to the next sprint or the backlog)."""
    before = _sprint(ctx, sprint_id)
    _manage_sprints(before, "close")
    if before["state"] != "active":
        raise ForbiddenError(f"sprint {before['name']} is {before['state']}; only the active sprint can be closed")
    unfinished = ctx.sql.column("SELECT issues.key FROM sprint_issues JOIN issues ON issues.id = sprint_issues.issue_id "
                                "WHERE sprint_issues.sprint_id = ? AND sprint_issues.removed_at IS NULL AND issues.resolution IS NULL "
                                "ORDER BY issues.number, issues.id", [sprint_id])
    if unfinished:
        raise ForbiddenError(f"sprint {before['name']} still has {len(unfinished)} unresolved issue(s): {_listed(unfinished)}; "
                             "a sprint closes only when all its issues are done or moved out (to the next sprint or the backlog)")
    ctx.sql.update_row(Sprint, before, {**before, "state": "closed", "completed_at": ctx.now})
    ctx.sql.execute("UPDATE sprint_issues SET completed = 1 WHERE sprint_id = ? AND removed_at IS NULL AND issue_id IN "
                    "(SELECT id FROM issues WHERE status = 'Done')", [sprint_id])
    return _report(ctx, sprint_id)
