"""The Zendesk tools: search, read, report on and work tickets, as a support agent does."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import (
    Body,
    DateTimeArg,
    Page,
    PerPage,
    Timestamp,
)
from mcpgym.servers.kernel.lookup import missing, row_or_raise
from mcpgym.servers.kernel.query import search_words
from mcpgym.servers.kernel.sql import Row, contains_pattern, prefix_pattern
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry
from mcpgym.servers.zendesk.models import (
    Comment,
    Group,
    Macro,
    Organization,
    SatisfactionRating,
    Ticket,
    User,
)

tools = ToolRegistry()

ACTING_AGENT_ID = 1
"""The agent on whose behalf writes are made when no author is given."""

Status = Literal["new", "open", "pending", "hold", "solved", "closed"]
Priority = Literal["low", "normal", "high", "urgent"]
TicketType = Literal["question", "incident", "problem", "task"]
Tag = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[a-z0-9_\-]+$")]

# Filters shared by search_tickets, ticket_stats and satisfaction_summary.
QueryF = Annotated[str | None, Field(description="Words that must appear in the subject or description (case-insensitive).")]
StatusF = Annotated[list[Status] | None, Field(description="Only tickets with one of these statuses.")]
PriorityF = Annotated[list[Priority] | None, Field(description="Only tickets with one of these priorities.")]
TypeF = Annotated[TicketType | None, Field(description="Only tickets of this type.")]
TagsF = Annotated[list[Tag] | None, Field(description="Only tickets carrying all of these tags.")]
RequesterF = Annotated[int | None, Field(description="Only tickets requested by this user id.")]
AssigneeF = Annotated[int | None, Field(description="Only tickets assigned to this agent's user id.")]
GroupF = Annotated[int | None, Field(description="Only tickets of this group id.")]
OrganizationF = Annotated[int | None, Field(description="Only tickets of this organization id.")]
CreatedAfterF = Annotated[DateTimeArg | None, Field(description="Only tickets created at or after this time (ISO 8601, UTC).")]
CreatedBeforeF = Annotated[DateTimeArg | None, Field(description="Only tickets created strictly before this time (ISO 8601, UTC).")]
SolvedAfterF = Annotated[DateTimeArg | None, Field(description="Only tickets solved at or after this time.")]
SolvedBeforeF = Annotated[DateTimeArg | None, Field(description="Only tickets solved strictly before this time.")]


# ---------------------------------------------------------------- result models


class TicketSummary(BaseModel):
    id: int
    subject: str
    status: str
    priority: str
    type: str
    tags: list[str]
    requester_id: int
    assignee_id: int | None
    group_id: int | None
    organization_id: int | None
    created_at: Timestamp
    updated_at: Timestamp
    solved_at: Timestamp | None


class SatisfactionOut(BaseModel):
    score: int = Field(description="1 (very unsatisfied) to 5 (very satisfied).")
    comment: str | None
    created_at: Timestamp


class TicketDetail(TicketSummary):
    description: str
    channel: str
    merged_into_id: int | None
    comment_count: int
    satisfaction: SatisfactionOut | None


class TicketPage(BaseModel):
    tickets: list[TicketSummary]
    total: int = Field(description="Tickets matching the filters, over all pages.")
    page: int
    next_page: int | None


class CommentOut(BaseModel):
    id: int
    ticket_id: int
    author_id: int
    author_name: str
    body: str
    public: bool
    created_at: Timestamp


class CommentPage(BaseModel):
    comments: list[CommentOut]
    total: int
    page: int
    next_page: int | None


class UserOut(BaseModel):
    id: int
    name: str
    email: str
    role: str
    phone: str | None
    timezone: str
    organization_id: int | None
    default_group_id: int | None
    created_at: Timestamp
    last_login_at: Timestamp | None
    suspended: bool


class UserPage(BaseModel):
    users: list[UserOut]
    total: int
    page: int
    next_page: int | None


class OrganizationOut(BaseModel):
    id: int
    name: str
    domain: str
    industry: str
    created_at: Timestamp
    user_count: int
    ticket_count: int


class OrganizationPage(BaseModel):
    organizations: list[OrganizationOut]
    total: int
    page: int
    next_page: int | None


class GroupOut(BaseModel):
    id: int
    name: str
    description: str
    agent_count: int


class GroupList(BaseModel):
    groups: list[GroupOut]


class TagCount(BaseModel):
    tag: str
    count: int


class TagList(BaseModel):
    tags: list[TagCount]


class TicketStats(BaseModel):
    total: int
    group_by: str | None
    counts: dict[str, int] = Field(description="Tickets per value of group_by, largest first.")


class SatisfactionSummary(BaseModel):
    rated_tickets: int
    average_score: float | None = Field(description="Mean score (1-5) rounded to 2 decimals; null if no ratings.")
    distribution: dict[str, int] = Field(description="Ratings per score, '1' to '5'.")


class TicketMetrics(BaseModel):
    ticket_id: int
    first_reply_at: Timestamp | None = Field(description="First public comment by an agent.")
    first_reply_minutes: int | None
    resolution_minutes: int | None = Field(description="From creation to solved, if solved.")
    public_comments: int
    private_comments: int
    agent_replies: int


class MacroOut(BaseModel):
    id: int
    title: str
    description: str
    actions: dict[str, Any]
    active: bool


class MacroList(BaseModel):
    macros: list[MacroOut]


class MergeResult(BaseModel):
    source: TicketSummary
    target: TicketSummary


# ---------------------------------------------------------------- helpers

TICKET_HINT = "Use search_tickets to find tickets by subject, requester, tag or date."
USER_HINT = "Use search_users to find users by name or email."
GROUP_HINT = "Use list_groups to see the groups."

SUMMARY_COLUMNS = ("tickets.id, tickets.subject, tickets.status, tickets.priority, tickets.type, "
                   "tickets.requester_id, tickets.assignee_id, tickets.group_id, tickets.organization_id, "
                   "tickets.created_at, tickets.updated_at, tickets.solved_at")
"""The ticket columns a summary shows, besides its tags."""

TICKET_SORT_KEYS = {"created_at": "tickets.created_at", "updated_at": "tickets.updated_at",
                    "solved_at": "tickets.solved_at", "id": "tickets.id"}
TICKET_GROUP_KEYS = {name: f"tickets.{name}" for name in
                     ("status", "priority", "type", "assignee_id", "group_id", "organization_id", "channel")}


def _ticket(ctx: ToolContext, ticket_id: int) -> Row:
    return row_or_raise(ctx, Ticket, ticket_id, "ticket", TICKET_HINT)


def _tags(ctx: ToolContext, ticket_id: int) -> list[str]:
    """A ticket's tags, A-Z."""
    return ctx.sql.column("SELECT tag FROM ticket_tags WHERE ticket_id = ? ORDER BY tag", [ticket_id])


def _summaries(ctx: ToolContext, rows: Sequence[Row]) -> list[TicketSummary]:
    """Summaries of ticket rows, their tags (A-Z) read in one statement."""
    tags: defaultdict[int, list[str]] = defaultdict(list)
    if rows:
        for tagged in ctx.sql.all("SELECT ticket_id, tag FROM ticket_tags WHERE ticket_id IN "
                                  "(SELECT value FROM json_each(?)) ORDER BY tag", [[row["id"] for row in rows]]):
            tags[tagged["ticket_id"]].append(tagged["tag"])
    return [TicketSummary(**row, tags=tags[row["id"]]) for row in rows]


def _detail(ctx: ToolContext, ticket_id: int, tags: list[str] | None = None) -> TicketDetail:
    """A ticket's detail as stored now; `tags` in the order given, else A-Z."""
    ticket = ctx.sql.one("SELECT *, (SELECT count(*) FROM comments WHERE ticket_id = tickets.id) AS comment_count "
                         "FROM tickets WHERE id = ?", [ticket_id], Ticket)
    if ticket is None:
        raise missing("ticket", ticket_id, TICKET_HINT)
    rating = ctx.sql.one("SELECT score, comment, created_at FROM satisfaction_ratings WHERE ticket_id = ?",
                         [ticket_id], SatisfactionRating)
    return TicketDetail(**ticket, tags=_tags(ctx, ticket_id) if tags is None else tags,
                        satisfaction=None if rating is None else SatisfactionOut(**rating))


def _ticket_clauses(
    query: str | None = None, status: list[str] | None = None, priority: list[str] | None = None,
    type: str | None = None, tags: list[str] | None = None, requester_id: int | None = None,
    assignee_id: int | None = None, group_id: int | None = None, organization_id: int | None = None,
    created_after: datetime | None = None, created_before: datetime | None = None,
    solved_after: datetime | None = None, solved_before: datetime | None = None,
) -> tuple[str, list[Any]]:
    """The ticket filters as an SQL condition on `tickets` and its positional parameters."""
    clauses = ["tickets.merged_into_id IS NULL"]
    params: list[Any] = []
    for word in search_words(query):
        clauses.append("(lower(tickets.subject) LIKE ? ESCAPE '/' OR lower(tickets.description) LIKE ? ESCAPE '/')")
        params += [contains_pattern(word)] * 2
    for column, value in (("status", status), ("priority", priority)):
        if value:
            clauses.append(f"tickets.{column} IN (SELECT value FROM json_each(?))")
            params.append(value)
    if type:
        clauses.append("tickets.type = ?")
        params.append(type)
    for tag in tags or ():
        clauses.append("tickets.id IN (SELECT ticket_id FROM ticket_tags WHERE tag = ?)")
        params.append(tag)
    for condition, value in (("tickets.requester_id = ?", requester_id), ("tickets.assignee_id = ?", assignee_id),
                             ("tickets.group_id = ?", group_id), ("tickets.organization_id = ?", organization_id),
                             ("tickets.created_at >= ?", created_after), ("tickets.created_at < ?", created_before),
                             ("tickets.solved_at >= ?", solved_after), ("tickets.solved_at < ?", solved_before)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    return " AND ".join(clauses), params


def _check_range(after: datetime | None, before: datetime | None, name: str) -> None:
    if after is not None and before is not None and after >= before:
        raise InvalidArgumentError(f"{name}_after must be earlier than {name}_before")



def _touch(ctx: ToolContext, ticket: Row) -> None:
    if ticket["status"] == "closed":
        raise ForbiddenError(f"ticket {ticket['id']} is closed and can no longer be changed; "
                             "create a follow-up ticket instead")
    ticket["updated_at"] = ctx.now


def _agent(ctx: ToolContext, user_id: int) -> Row:
    user = row_or_raise(ctx, User, user_id, "user", USER_HINT)
    if user["role"] == "end-user":
        raise InvalidArgumentError(f"user {user_id} ({user['name']}) is an end-user, not an agent")
    return user


def _set_status(ctx: ToolContext, ticket: Row, status: str) -> None:
    if status == "closed":
        raise ForbiddenError("tickets are closed automatically after they are solved; set status 'solved'")
    if status == "new" and ticket["status"] != "new":
        raise ForbiddenError("a ticket cannot go back to status 'new'")
    if status == "solved" and ticket["assignee_id"] is None:
        raise ForbiddenError(f"ticket {ticket['id']} has no assignee; assign it before solving it")
    if status == "solved" and ticket["status"] != "solved":
        ticket["solved_at"] = ctx.now
    elif status != "solved":
        ticket["solved_at"] = None
    ticket["status"] = status


def _add_tags(ctx: ToolContext, ticket_id: int, have: list[str], tags: list[str]) -> list[str]:
    """Add the `tags` a ticket does not `have`; its tags after: those it had, then the new ones
    in the order given."""
    new = [tag for tag in dict.fromkeys(tags) if tag not in have]
    for tag in new:
        ctx.sql.execute("INSERT INTO ticket_tags (ticket_id, tag) VALUES (?, ?)", [ticket_id, tag])
    return [*have, *new]


def _insert_comment(ctx: ToolContext, ticket_id: int, author_id: int, body: str, public: bool) -> int:
    return ctx.sql.insert("INSERT INTO comments (ticket_id, author_id, body, public, created_at) VALUES (?, ?, ?, ?, ?)",
                          [ticket_id, author_id, body, public, ctx.now])


# ---------------------------------------------------------------- reads


@tools.tool(examples=[{"tags": ["billing"], "created_after": "2025-10-01", "per_page": 5}])
def search_tickets(
    ctx: ToolContext,
    query: QueryF = None,
    status: StatusF = None,
    priority: PriorityF = None,
    type: TypeF = None,
    tags: TagsF = None,
    requester_id: RequesterF = None,
    assignee_id: AssigneeF = None,
    group_id: GroupF = None,
    organization_id: OrganizationF = None,
    created_after: CreatedAfterF = None,
    created_before: CreatedBeforeF = None,
    solved_after: SolvedAfterF = None,
    solved_before: SolvedBeforeF = None,
    sort_by: Annotated[Literal["created_at", "updated_at", "solved_at", "id"], Field(description="Sort key.")] = "created_at",
    sort_order: Annotated[Literal["asc", "desc"], Field(description="Sort direction.")] = "desc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> TicketPage:
    """Search tickets with filters; returns one page of ticket summaries and the total count.

    Merged-away tickets are never returned. Tickets not yet solved sort last by solved_at.
    """
    _check_range(created_after, created_before, "created")
    _check_range(solved_after, solved_before, "solved")
    where, params = _ticket_clauses(query, status, priority, type, tags, requester_id, assignee_id,
                                    group_id, organization_id, created_after, created_before,
                                    solved_after, solved_before)
    key = TICKET_SORT_KEYS[sort_by]
    order = f"{key} IS NULL, {key} {'ASC' if sort_order == 'asc' else 'DESC'}, tickets.id ASC"
    found = ctx.sql.page(SUMMARY_COLUMNS, f"FROM tickets WHERE {where} ORDER BY {order}", params, page, per_page, Ticket)
    return TicketPage(tickets=_summaries(ctx, found.rows), total=found.total, page=page, next_page=found.next_page)


@tools.tool(examples=[{"ticket_id": 1380}])
def get_ticket(ctx: ToolContext, ticket_id: Annotated[int, Field(description="The ticket's id.")]) -> TicketDetail:
    """Get one ticket with its description, tags, comment count and satisfaction rating."""
    return _detail(ctx, ticket_id)


@tools.tool(examples=[{"ticket_id": 1380}])
def list_ticket_comments(
    ctx: ToolContext,
    ticket_id: Annotated[int, Field(description="The ticket's id.")],
    include_private: Annotated[bool, Field(description="Include internal notes.")] = True,
    sort_order: Annotated[Literal["asc", "desc"], Field(description="Oldest first (asc) or newest first.")] = "asc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> CommentPage:
    """List a ticket's comments in time order, with each author's name."""
    _ticket(ctx, ticket_id)
    private = "" if include_private else " AND comments.public = 1"
    direction = "ASC" if sort_order == "asc" else "DESC"
    found = ctx.sql.page(
        "comments.id, comments.ticket_id, comments.author_id, users.name AS author_name, comments.body, "
        "comments.public, comments.created_at",
        f"FROM comments JOIN users ON users.id = comments.author_id WHERE comments.ticket_id = ?{private} "
        f"ORDER BY comments.created_at {direction}, comments.id {direction}",
        [ticket_id], page, per_page, Comment)
    return CommentPage(comments=[CommentOut(**row) for row in found.rows], total=found.total, page=page,
                       next_page=found.next_page)


@tools.tool(examples=[{"ticket_id": 1466}])
def get_ticket_metrics(ctx: ToolContext, ticket_id: Annotated[int, Field(description="The ticket's id.")]) -> TicketMetrics:
    """Reply and resolution times of a ticket, and its comment counts."""
    ticket = _ticket(ctx, ticket_id)
    rows = ctx.sql.all(
        "SELECT comments.public, comments.created_at, users.role FROM comments JOIN users ON users.id = comments.author_id "
        "WHERE comments.ticket_id = ? ORDER BY comments.created_at, comments.id", [ticket_id], Comment)
    agent_public = [row["created_at"] for row in rows if row["public"] and row["role"] != "end-user"]
    first = agent_public[0] if agent_public else None

    def minutes(start: datetime, end: datetime | None) -> int | None:
        return None if end is None else int((end - start).total_seconds() // 60)

    return TicketMetrics(
        ticket_id=ticket_id, first_reply_at=first, first_reply_minutes=minutes(ticket["created_at"], first),
        resolution_minutes=minutes(ticket["created_at"], ticket["solved_at"]),
        public_comments=sum(1 for row in rows if row["public"]),
        private_comments=sum(1 for row in rows if not row["public"]),
        agent_replies=sum(1 for row in rows if row["role"] != "end-user"),
    )


@tools.tool(examples=[{"group_by": "status", "tags": ["billing"]}])
def ticket_stats(
    ctx: ToolContext,
    group_by: Annotated[
        Literal["status", "priority", "type", "tag", "assignee_id", "group_id", "organization_id", "channel"] | None,
        Field(description="Break the count down by this field; null for the total only."),
    ] = None,
    query: QueryF = None,
    status: StatusF = None,
    priority: PriorityF = None,
    type: TypeF = None,
    tags: TagsF = None,
    requester_id: RequesterF = None,
    assignee_id: AssigneeF = None,
    group_id: GroupF = None,
    organization_id: OrganizationF = None,
    created_after: CreatedAfterF = None,
    created_before: CreatedBeforeF = None,
    solved_after: SolvedAfterF = None,
    solved_before: SolvedBeforeF = None,
) -> TicketStats:
    """Count tickets matching the filters (same filters as search_tickets), optionally per field."""
    _check_range(created_after, created_before, "created")
    _check_range(solved_after, solved_before, "solved")
    where, params = _ticket_clauses(query, status, priority, type, tags, requester_id, assignee_id,
                                    group_id, organization_id, created_after, created_before,
                                    solved_after, solved_before)
    total = ctx.sql.scalar(f"SELECT count(*) FROM tickets WHERE {where}", params) or 0
    counts: Counter[str] = Counter()
    if group_by == "tag":
        rows = ctx.sql.all("SELECT ticket_tags.tag AS value, count(*) AS n FROM ticket_tags "
                           f"JOIN tickets ON tickets.id = ticket_tags.ticket_id WHERE {where} GROUP BY ticket_tags.tag", params)
        counts.update({row["value"]: row["n"] for row in rows})
    elif group_by is not None:
        column = TICKET_GROUP_KEYS[group_by]
        rows = ctx.sql.all(f"SELECT {column} AS value, count(*) AS n FROM tickets WHERE {where} GROUP BY {column}", params)
        counts.update({str(row["value"]) if row["value"] is not None else "none": row["n"] for row in rows})
    ordered = dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return TicketStats(total=total, group_by=group_by, counts=ordered)


@tools.tool(examples=[{"solved_after": "2025-10-01", "solved_before": "2025-11-01"}])
def satisfaction_summary(
    ctx: ToolContext,
    query: QueryF = None,
    status: StatusF = None,
    priority: PriorityF = None,
    type: TypeF = None,
    tags: TagsF = None,
    requester_id: RequesterF = None,
    assignee_id: AssigneeF = None,
    group_id: GroupF = None,
    organization_id: OrganizationF = None,
    created_after: CreatedAfterF = None,
    created_before: CreatedBeforeF = None,
    solved_after: SolvedAfterF = None,
    solved_before: SolvedBeforeF = None,
) -> SatisfactionSummary:
    """Customer satisfaction ratings (1-5) of the tickets matching the filters: count, mean, spread."""
    _check_range(created_after, created_before, "created")
    _check_range(solved_after, solved_before, "solved")
    where, params = _ticket_clauses(query, status, priority, type, tags, requester_id, assignee_id,
                                    group_id, organization_id, created_after, created_before,
                                    solved_after, solved_before)
    scores = ctx.sql.column("SELECT satisfaction_ratings.score FROM satisfaction_ratings "
                            f"JOIN tickets ON tickets.id = satisfaction_ratings.ticket_id WHERE {where}", params)
    distribution = {str(s): 0 for s in range(1, 6)}
    for s in scores:
        distribution[str(s)] += 1
    average = round(sum(scores) / len(scores), 2) if scores else None
    return SatisfactionSummary(rated_tickets=len(scores), average_score=average, distribution=distribution)


@tools.tool(examples=[{"user_id": 594}])
def get_user(ctx: ToolContext, user_id: Annotated[int, Field(description="The user's id.")]) -> UserOut:
    """Get a user (end-user, agent or admin), including when they last logged in."""
    return UserOut(**row_or_raise(ctx, User, user_id, "user", USER_HINT))


@tools.tool(examples=[{"query": "anderson", "role": "agent"}])
def search_users(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Part of the name or email (case-insensitive).")] = None,
    role: Annotated[Literal["end-user", "agent", "admin"] | None, Field(description="Only users with this role.")] = None,
    organization_id: Annotated[int | None, Field(description="Only users of this organization.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> UserPage:
    """Find users by name, email, role or organization, sorted by name."""
    clauses = ["1"]
    params: list[Any] = []
    if query:
        clauses.append("(lower(name) LIKE ? ESCAPE '/' OR lower(email) LIKE ? ESCAPE '/')")
        params += [contains_pattern(query.strip().lower())] * 2
    if role:
        clauses.append("role = ?")
        params.append(role)
    if organization_id is not None:
        clauses.append("organization_id = ?")
        params.append(organization_id)
    found = ctx.sql.page("*", f"FROM users WHERE {' AND '.join(clauses)} ORDER BY name, id", params, page, per_page, User)
    return UserPage(users=[UserOut(**row) for row in found.rows], total=found.total, page=page,
                    next_page=found.next_page)


def _organization_outs(ctx: ToolContext, orgs: list[Row]) -> list[OrganizationOut]:
    """Organizations with their user and ticket counts, counted in one grouped statement each."""
    ids = [org["id"] for org in orgs]
    users = {row["id"]: row["n"] for row in ctx.sql.all(
        "SELECT organization_id AS id, count(*) AS n FROM users WHERE organization_id IN "
        "(SELECT value FROM json_each(?)) GROUP BY organization_id", [ids])}
    tickets = {row["id"]: row["n"] for row in ctx.sql.all(
        "SELECT organization_id AS id, count(*) AS n FROM tickets WHERE organization_id IN "
        "(SELECT value FROM json_each(?)) GROUP BY organization_id", [ids])}
    return [OrganizationOut(**org, user_count=users.get(org["id"], 0), ticket_count=tickets.get(org["id"], 0))
            for org in orgs]


@tools.tool(examples=[{"organization_id": 3}])
def get_organization(
    ctx: ToolContext, organization_id: Annotated[int, Field(description="The organization's id.")]
) -> OrganizationOut:
    """Get a customer organization with its number of users and tickets."""
    org = row_or_raise(ctx, Organization, organization_id, "organization",
                       "Use search_organizations to find organizations by name or domain.")
    return _organization_outs(ctx, [org])[0]


@tools.tool(examples=[{"query": "llc"}])
def search_organizations(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Part of the name or domain (case-insensitive).")] = None,
    industry: Annotated[str | None, Field(description="Only organizations in this industry.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> OrganizationPage:
    """Find customer organizations by name, domain or industry, sorted by name."""
    clauses = ["1"]
    params: list[Any] = []
    if query:
        clauses.append("(lower(name) LIKE ? ESCAPE '/' OR lower(domain) LIKE ? ESCAPE '/')")
        params += [contains_pattern(query.strip().lower())] * 2
    if industry:
        clauses.append("lower(industry) = ?")
        params.append(industry.lower())
    found = ctx.sql.page("*", f"FROM organizations WHERE {' AND '.join(clauses)} ORDER BY name", params, page,
                         per_page, Organization)
    return OrganizationPage(organizations=_organization_outs(ctx, found.rows), total=found.total,
                            page=page, next_page=found.next_page)


@tools.tool(examples=[{}])
def list_groups(ctx: ToolContext) -> GroupList:
    """List the support groups (teams) that tickets are routed to."""
    counts = {row["group_id"]: row["n"] for row in ctx.sql.all(
        "SELECT default_group_id AS group_id, count(*) AS n FROM users WHERE role != 'end-user' GROUP BY default_group_id")}
    groups = ctx.sql.all("SELECT id, name, description FROM groups ORDER BY id")
    return GroupList(groups=[GroupOut(**g, agent_count=counts.get(g["id"], 0)) for g in groups])


@tools.tool(examples=[{"prefix": "bil"}])
def list_tags(
    ctx: ToolContext,
    prefix: Annotated[str | None, Field(description="Only tags starting with this text.")] = None,
    limit: Annotated[int, Field(ge=1, le=200, description="Most tags to return.")] = 50,
) -> TagList:
    """List tags in use with the number of tickets carrying each, most used first."""
    sql = ("SELECT ticket_tags.tag AS tag, count(*) AS count FROM ticket_tags JOIN tickets ON tickets.id = ticket_tags.ticket_id "
           "WHERE tickets.merged_into_id IS NULL")
    params: list[Any] = []
    if prefix:
        sql += " AND ticket_tags.tag LIKE ? ESCAPE '/'"
        params.append(prefix_pattern(prefix.lower()))
    rows = sorted(ctx.sql.all(f"{sql} GROUP BY ticket_tags.tag", params), key=lambda r: (-r["count"], r["tag"]))[:limit]
    return TagList(tags=[TagCount(**row) for row in rows])


@tools.tool(examples=[{"include_inactive": True}])
def list_macros(
    ctx: ToolContext,
    include_inactive: Annotated[bool, Field(description="Also list retired macros.")] = False,
) -> MacroList:
    """List macros: canned sets of ticket changes an agent can apply in one step."""
    active = "" if include_inactive else " WHERE active = 1"
    return MacroList(macros=[MacroOut(**m) for m in ctx.sql.all(f"SELECT * FROM macros{active} ORDER BY id", (), Macro)])


# ---------------------------------------------------------------- writes


@tools.tool(writes=True, destructive=False, idempotent=False, title="Create a ticket", examples=[{"subject": "Cannot export invoices", "description": "The export button does nothing.", "requester_id": 594, "tags": ["billing"]}])
def create_ticket(
    ctx: ToolContext,
    subject: Annotated[str, Field(min_length=1, max_length=200, description="Short summary.")],
    description: Annotated[Body, Field(min_length=1, description="The first comment, from the requester.")],
    requester_id: Annotated[int, Field(description="User id of the person the ticket is for.")],
    priority: Annotated[Priority, Field(description="Ticket priority.")] = "normal",
    type: Annotated[TicketType, Field(description="Ticket type.")] = "question",
    tags: Annotated[list[Tag], Field(description="Tags to set.")] = [],
    assignee_id: Annotated[int | None, Field(description="Agent to assign; the ticket is 'open' if set, else 'new'.")] = None,
    group_id: Annotated[int | None, Field(description="Group to route to.")] = None,
) -> TicketDetail:
    """Create a ticket on behalf of a requester; the description becomes its first public comment."""
    requester = row_or_raise(ctx, User, requester_id, "user", USER_HINT)
    if requester["suspended"]:
        raise ForbiddenError(f"user {requester_id} is suspended and cannot request tickets")
    if assignee_id is not None:
        _agent(ctx, assignee_id)
    if group_id is not None:
        row_or_raise(ctx, Group, group_id, "group", GROUP_HINT)
    ticket_id = ctx.sql.insert(
        "INSERT INTO tickets (subject, description, status, priority, type, channel, requester_id, assignee_id, "
        "group_id, organization_id, merged_into_id, created_at, updated_at, solved_at) "
        "VALUES (?, ?, ?, ?, ?, 'api', ?, ?, ?, ?, NULL, ?, ?, NULL)",
        [subject, description, "open" if assignee_id else "new", priority, type, requester_id, assignee_id,
         group_id, requester["organization_id"], ctx.now, ctx.now])
    added = _add_tags(ctx, ticket_id, [], tags)
    _insert_comment(ctx, ticket_id, requester_id, description, True)
    return _detail(ctx, ticket_id, added)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Update a ticket", examples=[{"ticket_id": 1486, "priority": "urgent", "assignee_id": 37}])
def update_ticket(
    ctx: ToolContext,
    ticket_id: Annotated[int, Field(description="The ticket's id.")],
    status: Annotated[Literal["open", "pending", "hold", "solved"] | None, Field(description="New status.")] = None,
    priority: Annotated[Priority | None, Field(description="New priority.")] = None,
    type: Annotated[TicketType | None, Field(description="New type.")] = None,
    assignee_id: Annotated[int | None, Field(description="Agent to assign.")] = None,
    group_id: Annotated[int | None, Field(description="Group to route to.")] = None,
    subject: Annotated[str | None, Field(min_length=1, max_length=200, description="New subject.")] = None,
) -> TicketDetail:
    """Change a ticket's status, priority, type, assignee, group or subject (only the fields given).

    Closed tickets cannot change; solving needs an assignee.
    """
    before = _ticket(ctx, ticket_id)
    if all(v is None for v in (status, priority, type, assignee_id, group_id, subject)):
        raise InvalidArgumentError("give at least one field to change")
    ticket = dict(before)
    _touch(ctx, ticket)
    if assignee_id is not None:
        _agent(ctx, assignee_id)
        ticket["assignee_id"] = assignee_id
        if ticket["status"] == "new" and status is None:
            ticket["status"] = "open"
    if group_id is not None:
        row_or_raise(ctx, Group, group_id, "group", GROUP_HINT)
        ticket["group_id"] = group_id
    if priority is not None:
        ticket["priority"] = priority
    if type is not None:
        ticket["type"] = type
    if subject is not None:
        ticket["subject"] = subject
    if status is not None:
        _set_status(ctx, ticket, status)
    ctx.sql.update_row(Ticket, before, ticket)
    return _detail(ctx, ticket_id)


@tools.tool(writes=True, destructive=False, idempotent=True, title="Add tags to a ticket", examples=[{"ticket_id": 1486, "tags": ["vip"]}])
def add_ticket_tags(
    ctx: ToolContext,
    ticket_id: Annotated[int, Field(description="The ticket's id.")],
    tags: Annotated[list[Tag], Field(min_length=1, description="Tags to add (lowercase, no spaces).")],
) -> TicketSummary:
    """Add tags to a ticket; tags it already has are kept once."""
    before = _ticket(ctx, ticket_id)
    ticket = dict(before)
    _touch(ctx, ticket)
    added = _add_tags(ctx, ticket_id, _tags(ctx, ticket_id), tags)
    ctx.sql.update_row(Ticket, before, ticket)
    return TicketSummary(**ticket, tags=added)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Remove tags from a ticket", examples=[{"ticket_id": 1486, "tags": ["follow_up"]}])
def remove_ticket_tags(
    ctx: ToolContext,
    ticket_id: Annotated[int, Field(description="The ticket's id.")],
    tags: Annotated[list[Tag], Field(min_length=1, description="Tags to remove.")],
) -> TicketSummary:
    """Remove tags from a ticket; every tag named must be on the ticket."""
    before = _ticket(ctx, ticket_id)
    have = _tags(ctx, ticket_id)
    missing = [t for t in tags if t not in have]
    if missing:
        raise InvalidArgumentError(f"ticket {ticket_id} does not have tag(s) {', '.join(missing)}; "
                                   f"its tags are: {', '.join(have) or 'none'}")
    ticket = dict(before)
    _touch(ctx, ticket)
    ctx.sql.execute("DELETE FROM ticket_tags WHERE ticket_id = ? AND tag IN (SELECT value FROM json_each(?))",
                    [ticket_id, tags])
    ctx.sql.update_row(Ticket, before, ticket)
    return TicketSummary(**ticket, tags=[t for t in have if t not in set(tags)])


@tools.tool(writes=True, destructive=False, idempotent=False, title="Comment on a ticket", examples=[{"ticket_id": 1486, "body": "We are looking into the pricing question.", "public": True}])
def add_comment(
    ctx: ToolContext,
    ticket_id: Annotated[int, Field(description="The ticket's id.")],
    body: Annotated[Body, Field(min_length=1, description="The comment text.")],
    public: Annotated[bool, Field(description="True for a reply the requester sees, False for an internal note.")] = True,
    author_id: Annotated[int | None, Field(description="Author's user id; defaults to you, the acting agent.")] = None,
) -> CommentOut:
    """Add a public reply or an internal note to a ticket."""
    before = _ticket(ctx, ticket_id)
    author = row_or_raise(ctx, User, author_id or ACTING_AGENT_ID, "user", USER_HINT)
    if not public and author["role"] == "end-user":
        raise ForbiddenError("end-users cannot write internal notes")
    ticket = dict(before)
    _touch(ctx, ticket)
    ctx.sql.update_row(Ticket, before, ticket)
    comment_id = _insert_comment(ctx, ticket_id, author["id"], body, public)
    return CommentOut(id=comment_id, ticket_id=ticket_id, author_id=author["id"], author_name=author["name"],
                      body=body, public=public, created_at=ctx.now)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Merge tickets", examples=[{"source_ticket_id": 1499, "target_ticket_id": 1486}])
def merge_tickets(
    ctx: ToolContext,
    source_ticket_id: Annotated[int, Field(description="The duplicate ticket, which is closed.")],
    target_ticket_id: Annotated[int, Field(description="The ticket that stays open and receives the note.")],
) -> MergeResult:
    """Merge a duplicate ticket into another: the source is closed and both get a note."""
    if source_ticket_id == target_ticket_id:
        raise InvalidArgumentError("a ticket cannot be merged into itself")
    source_before, target_before = _ticket(ctx, source_ticket_id), _ticket(ctx, target_ticket_id)
    for t in (source_before, target_before):
        if t["status"] == "closed":
            raise ForbiddenError(f"ticket {t['id']} is closed and cannot be merged")
    source, target = dict(source_before), dict(target_before)
    source["updated_at"] = target["updated_at"] = ctx.now
    source.update(status="closed", solved_at=ctx.now, merged_into_id=target["id"])
    if source["assignee_id"] is None:
        source["assignee_id"] = ACTING_AGENT_ID
    ctx.sql.update_row(Ticket, source_before, source)
    ctx.sql.update_row(Ticket, target_before, target)
    _insert_comment(ctx, source["id"], ACTING_AGENT_ID, f"Closed and merged into ticket #{target['id']}.", False)
    _insert_comment(ctx, target["id"], ACTING_AGENT_ID,
                    f"Ticket #{source['id']} was merged into this ticket: {source['subject']}", False)
    summaries = _summaries(ctx, [source, target])
    return MergeResult(source=summaries[0], target=summaries[1])


@tools.tool(writes=True, destructive=True, idempotent=False, title="Apply a macro to a ticket", examples=[{"ticket_id": 1460, "macro_id": 3}])
def apply_macro(
    ctx: ToolContext,
    ticket_id: Annotated[int, Field(description="The ticket's id.")],
    macro_id: Annotated[int, Field(description="The macro's id (see list_macros).")],
) -> TicketDetail:
    """Apply an active macro's changes (status, priority, group, tags, reply) to a ticket."""
    before = _ticket(ctx, ticket_id)
    macro = row_or_raise(ctx, Macro, macro_id, "macro", "Use list_macros to see the macros.")
    if not macro["active"]:
        raise ForbiddenError(f"macro {macro_id} ({macro['title']}) is inactive")
    ticket = dict(before)
    _touch(ctx, ticket)
    actions = macro["actions"]
    tags = _tags(ctx, ticket_id)
    if "group" in actions:
        group_id = ctx.sql.scalar("SELECT id FROM groups WHERE name = ?", [str(actions["group"])])
        if group_id is None:
            raise NotFoundError(f"macro {macro_id} names a group that no longer exists")
        ticket["group_id"] = group_id
    if "priority" in actions:
        ticket["priority"] = str(actions["priority"])
    if "add_tags" in actions:
        tags = _add_tags(ctx, ticket_id, tags, [str(t) for t in actions["add_tags"]])
    if "comment" in actions:
        _insert_comment(ctx, ticket_id, ticket["assignee_id"] or ACTING_AGENT_ID, str(actions["comment"]), True)
    if "status" in actions:
        if ticket["assignee_id"] is None:
            ticket["assignee_id"] = ACTING_AGENT_ID
        _set_status(ctx, ticket, str(actions["status"]))
    ctx.sql.update_row(Ticket, before, ticket)
    return _detail(ctx, ticket_id, tags)


@tools.tool(writes=True, destructive=False, idempotent=True, title="Create a help desk user", examples=[{"name": "Jamie Rivera", "email": "jamie.rivera@example.org", "organization_id": 3}])
def create_user(
    ctx: ToolContext,
    name: Annotated[str, Field(min_length=1, max_length=120, description="Full name.")],
    email: Annotated[str, Field(pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$", description="Email address (unique).")],
    organization_id: Annotated[int | None, Field(description="Organization the end-user belongs to.")] = None,
    phone: Annotated[str | None, Field(description="Phone number.")] = None,
) -> UserOut:
    """Create an end-user (a customer who can request tickets)."""
    email = email.lower()
    existing = ctx.sql.scalar("SELECT id FROM users WHERE email = ?", [email])
    if existing is not None:
        raise InvalidArgumentError(f"a user with email {email} already exists (user {existing})")
    if organization_id is not None:
        row_or_raise(ctx, Organization, organization_id, "organization",
                     "Use search_organizations to find organizations.")
    user_id = ctx.sql.insert(
        "INSERT INTO users (external_id, name, email, role, phone, timezone, organization_id, default_group_id, "
        "created_at, last_login_at, suspended) VALUES (NULL, ?, ?, 'end-user', ?, 'UTC', ?, NULL, ?, NULL, 0)",
        [name, email, phone, organization_id, ctx.now])
    return UserOut(**row_or_raise(ctx, User, user_id, "user", USER_HINT))


@tools.tool(writes=True, destructive=True, idempotent=True, title="Suspend a user", examples=[{"user_id": 594}])
def suspend_user(
    ctx: ToolContext,
    user_id: Annotated[int, Field(description="The end-user's id.")],
    suspended: Annotated[bool, Field(description="True to suspend, False to lift a suspension.")] = True,
) -> UserOut:
    """Suspend an end-user (they can no longer request tickets) or lift the suspension."""
    before = row_or_raise(ctx, User, user_id, "user", USER_HINT)
    if before["role"] != "end-user":
        raise ForbiddenError(f"user {user_id} is an {before['role']}; only end-users can be suspended here")
    user = {**before, "suspended": suspended}
    ctx.sql.update_row(User, before, user)
    return UserOut(**user)
