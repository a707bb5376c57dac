"""The Zendesk tools: search, read, report on and work tickets, as a support agent does."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session

from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import (
    Body,
    DateTimeArg,
    Page,
    PerPage,
    Timestamp,
)
from mcpgym.servers.kernel.lookup import get_or_raise
from mcpgym.servers.kernel.query import contains_text, fetch_page, search_words
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry
from mcpgym.servers.zendesk.models import (
    Comment,
    Group,
    Macro,
    Organization,
    SatisfactionRating,
    Ticket,
    TicketTag,
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


def _ticket(ctx: ToolContext, ticket_id: int) -> Ticket:
    return get_or_raise(ctx, Ticket, ticket_id, "ticket", TICKET_HINT)


SUMMARY_COLUMNS = (Ticket.id, Ticket.subject, Ticket.status, Ticket.priority, Ticket.type, Ticket.requester_id,
                   Ticket.assignee_id, Ticket.group_id, Ticket.organization_id, Ticket.created_at,
                   Ticket.updated_at, Ticket.solved_at)
"""The ticket columns a summary shows, besides its tags."""


def _summary_of(fields: Sequence[Any], tags: list[str]) -> TicketSummary:
    """A summary from a ticket's `SUMMARY_COLUMNS` values and its tags (A-Z)."""
    return TicketSummary(tags=tags, **{column.key: value for column, value in zip(SUMMARY_COLUMNS, fields)})


def _summary(t: Ticket) -> TicketSummary:
    return _summary_of([getattr(t, column.key) for column in SUMMARY_COLUMNS], [tag.tag for tag in t.tags])


def _summaries(db: Session, rows: Sequence[Sequence[Any]]) -> list[TicketSummary]:
    """Summaries of ticket rows of `SUMMARY_COLUMNS`, their tags read in one statement (no ORM
    objects: a listing leaves the session's identity map as it was)."""
    tags: defaultdict[int, list[str]] = defaultdict(list)
    if rows:
        for ticket_id, tag in db.execute(select(TicketTag.ticket_id, TicketTag.tag)
                                         .where(TicketTag.ticket_id.in_([row[0] for row in rows]))
                                         .order_by(TicketTag.tag)):
            tags[ticket_id].append(tag)
    return [_summary_of(row, tags[row[0]]) for row in rows]


def _detail(db: Session, t: Ticket) -> TicketDetail:
    rating = db.scalar(select(SatisfactionRating).where(SatisfactionRating.ticket_id == t.id))
    comments = db.scalar(select(func.count()).where(Comment.ticket_id == t.id)) or 0
    return TicketDetail(
        **_summary(t).model_dump(), description=t.description, channel=t.channel,
        merged_into_id=t.merged_into_id, comment_count=comments,
        satisfaction=None if rating is None else SatisfactionOut(
            score=rating.score, comment=rating.comment, created_at=rating.created_at),
    )


def _user_out(u: User) -> UserOut:
    return UserOut(
        id=u.id, name=u.name, email=u.email, role=u.role, phone=u.phone, timezone=u.timezone,
        organization_id=u.organization_id, default_group_id=u.default_group_id,
        created_at=u.created_at, last_login_at=u.last_login_at, suspended=u.suspended,
    )


def _ticket_clauses(
    query: str | None = None, status: list[str] | None = None, priority: list[str] | None = None,
    type: str | None = None, tags: list[str] | None = None, requester_id: int | None = None,
    assignee_id: int | None = None, group_id: int | None = None, organization_id: int | None = None,
    created_after: datetime | None = None, created_before: datetime | None = None,
    solved_after: datetime | None = None, solved_before: datetime | None = None,
) -> list[ColumnElement[bool]]:
    clauses: list[ColumnElement[bool]] = [Ticket.merged_into_id.is_(None)]
    if query:
        clauses += [contains_text(word, Ticket.subject, Ticket.description) for word in search_words(query)]
    if status:
        clauses.append(Ticket.status.in_(status))
    if priority:
        clauses.append(Ticket.priority.in_(priority))
    if type:
        clauses.append(Ticket.type == type)
    for tag in tags or ():
        clauses.append(Ticket.id.in_(select(TicketTag.ticket_id).where(TicketTag.tag == tag)))
    if requester_id is not None:
        clauses.append(Ticket.requester_id == requester_id)
    if assignee_id is not None:
        clauses.append(Ticket.assignee_id == assignee_id)
    if group_id is not None:
        clauses.append(Ticket.group_id == group_id)
    if organization_id is not None:
        clauses.append(Ticket.organization_id == organization_id)
    if created_after is not None:
        clauses.append(Ticket.created_at >= created_after)
    if created_before is not None:
        clauses.append(Ticket.created_at < created_before)
    if solved_after is not None:
        clauses.append(Ticket.solved_at >= solved_after)
    if solved_before is not None:
        clauses.append(Ticket.solved_at < solved_before)
    return clauses


def _check_range(after: datetime | None, before: datetime | None, name: str) -> None:
    if after is not None and before is not None and after >= before:
        raise InvalidArgumentError(f"{name}_after must be earlier than {name}_before")


def _touch(ctx: ToolContext, ticket: Ticket) -> None:
    if ticket.status == "closed":
        raise ForbiddenError(f"ticket {ticket.id} is closed and can no longer be changed; "
                             "create a follow-up ticket instead")
    ticket.updated_at = ctx.now


def _agent(ctx: ToolContext, user_id: int) -> User:
    user = get_or_raise(ctx, User, user_id, "user", USER_HINT)
    if user.role == "end-user":
        raise InvalidArgumentError(f"user {user_id} ({user.name}) is an end-user, not an agent")
    return user


def _set_status(ctx: ToolContext, ticket: Ticket, status: str) -> None:
    if status == "closed":
        raise ForbiddenError("tickets are closed automatically after they are solved; set status 'solved'")
    if status == "new" and ticket.status != "new":
        raise ForbiddenError("a ticket cannot go back to status 'new'")
    if status == "solved" and ticket.assignee_id is None:
        raise ForbiddenError(f"ticket {ticket.id} has no assignee; assign it before solving it")
    if status == "solved" and ticket.status != "solved":
        ticket.solved_at = ctx.now
    elif status != "solved":
        ticket.solved_at = None
    ticket.status = status


def _add_tags(ticket: Ticket, tags: list[str]) -> None:
    have = {t.tag for t in ticket.tags}
    for tag in dict.fromkeys(tags):
        if tag not in have:
            ticket.tags.append(TicketTag(tag=tag))


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
    clauses = _ticket_clauses(query, status, priority, type, tags, requester_id, assignee_id,
                              group_id, organization_id, created_after, created_before,
                              solved_after, solved_before)
    key = getattr(Ticket, sort_by)
    order = [key.is_(None), key.asc() if sort_order == "asc" else key.desc(), Ticket.id.asc()]
    statement = select(*SUMMARY_COLUMNS).where(*clauses).order_by(*order)
    rows, total, following = fetch_page(ctx.db, statement, page, per_page)
    return TicketPage(tickets=_summaries(ctx.db, rows), total=total, page=page, next_page=following)


@tools.tool(examples=[{"ticket_id": 1380}])
def get_ticket(ctx: ToolContext, ticket_id: Annotated[int, Field(description="The ticket's id.")]) -> TicketDetail:
    """Get one ticket with its description, tags, comment count and satisfaction rating."""
    return _detail(ctx.db, _ticket(ctx, ticket_id))


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
    clauses = [Comment.ticket_id == ticket_id]
    if not include_private:
        clauses.append(Comment.public.is_(True))
    order = Comment.created_at.asc() if sort_order == "asc" else Comment.created_at.desc()
    statement = (
        select(Comment, User.name).join(User, User.id == Comment.author_id).where(*clauses)
        .order_by(order, Comment.id.asc() if sort_order == "asc" else Comment.id.desc())
    )
    rows, total, following = fetch_page(ctx.db, statement, page, per_page)
    comments = [
        CommentOut(id=c.id, ticket_id=c.ticket_id, author_id=c.author_id, author_name=name,
                   body=c.body, public=c.public, created_at=c.created_at)
        for c, name in rows
    ]
    return CommentPage(comments=comments, total=total, page=page, next_page=following)


@tools.tool(examples=[{"ticket_id": 1466}])
def get_ticket_metrics(ctx: ToolContext, ticket_id: Annotated[int, Field(description="The ticket's id.")]) -> TicketMetrics:
    """Reply and resolution times of a ticket, and its comment counts."""
    ticket = _ticket(ctx, ticket_id)
    rows = ctx.db.execute(
        select(Comment.public, Comment.created_at, User.role).join(User, User.id == Comment.author_id)
        .where(Comment.ticket_id == ticket_id).order_by(Comment.created_at, Comment.id)
    ).all()
    agent_public = [when for public, when, role in rows if public and role != "end-user"]
    first = agent_public[0] if agent_public else None

    def minutes(start: datetime, end: datetime | None) -> int | None:
        return None if end is None else int((end - start).total_seconds() // 60)

    return TicketMetrics(
        ticket_id=ticket_id, first_reply_at=first, first_reply_minutes=minutes(ticket.created_at, first),
        resolution_minutes=minutes(ticket.created_at, ticket.solved_at),
        public_comments=sum(1 for public, _, _ in rows if public),
        private_comments=sum(1 for public, _, _ in rows if not public),
        agent_replies=sum(1 for _, _, role in rows if role != "end-user"),
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
    clauses = _ticket_clauses(query, status, priority, type, tags, requester_id, assignee_id,
                              group_id, organization_id, created_after, created_before,
                              solved_after, solved_before)
    total = ctx.db.scalar(select(func.count()).select_from(Ticket).where(*clauses)) or 0
    counts: Counter[str] = Counter()
    if group_by == "tag":
        stmt = (select(TicketTag.tag, func.count()).join(Ticket, Ticket.id == TicketTag.ticket_id)
                .where(*clauses).group_by(TicketTag.tag))
        counts.update({tag: n for tag, n in ctx.db.execute(stmt)})
    elif group_by is not None:
        column = getattr(Ticket, group_by)
        stmt = select(column, func.count()).where(*clauses).group_by(column)
        counts.update({str(value) if value is not None else "none": n for value, n in ctx.db.execute(stmt)})
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
    clauses = _ticket_clauses(query, status, priority, type, tags, requester_id, assignee_id,
                              group_id, organization_id, created_after, created_before,
                              solved_after, solved_before)
    scores = list(ctx.db.scalars(
        select(SatisfactionRating.score).join(Ticket, Ticket.id == SatisfactionRating.ticket_id).where(*clauses)
    ))
    distribution = {str(s): 0 for s in range(1, 6)}
    for s in scores:
        distribution[str(s)] += 1
    average = round(sum(scores) / len(scores), 2) if scores else None
    return SatisfactionSummary(rated_tickets=len(scores), average_score=average, distribution=distribution)


@tools.tool(examples=[{"user_id": 594}])
def get_user(ctx: ToolContext, user_id: Annotated[int, Field(description="The user's id.")]) -> UserOut:
    """Get a user (end-user, agent or admin), including when they last logged in."""
    return _user_out(get_or_raise(ctx, User, user_id, "user", USER_HINT))


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
    clauses: list[ColumnElement[bool]] = []
    if query:
        clauses.append(contains_text(query, User.name, User.email))
    if role:
        clauses.append(User.role == role)
    if organization_id is not None:
        clauses.append(User.organization_id == organization_id)
    rows, total, following = fetch_page(ctx.db, select(User).where(*clauses).order_by(User.name, User.id), page, per_page)
    return UserPage(users=[_user_out(u) for u in rows], total=total, page=page, next_page=following)


def _organization_outs(db: Session, orgs: list[Organization]) -> list[OrganizationOut]:
    """Organizations with their user and ticket counts, counted in one grouped statement each."""
    ids = [org.id for org in orgs]
    users = dict(db.execute(select(User.organization_id, func.count()).where(User.organization_id.in_(ids))
                            .group_by(User.organization_id)).all())
    tickets = dict(db.execute(select(Ticket.organization_id, func.count()).where(Ticket.organization_id.in_(ids))
                              .group_by(Ticket.organization_id)).all())
    return [OrganizationOut(id=org.id, name=org.name, domain=org.domain, industry=org.industry,
                            created_at=org.created_at, user_count=users.get(org.id, 0),
                            ticket_count=tickets.get(org.id, 0)) for org in orgs]


def _organization_out(db: Session, org: Organization) -> OrganizationOut:
    return _organization_outs(db, [org])[0]


@tools.tool(examples=[{"organization_id": 3}])
def get_organization(
    ctx: ToolContext, organization_id: Annotated[int, Field(description="The organization's id.")]
) -> OrganizationOut:
    """Get a customer organization with its number of users and tickets."""
    org = get_or_raise(ctx, Organization, organization_id, "organization",
                       "Use search_organizations to find organizations by name or domain.")
    return _organization_out(ctx.db, org)


@tools.tool(examples=[{"query": "llc"}])
def search_organizations(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Part of the name or domain (case-insensitive).")] = None,
    industry: Annotated[str | None, Field(description="Only organizations in this industry.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> OrganizationPage:
    """Find customer organizations by name, domain or industry, sorted by name."""
    clauses: list[ColumnElement[bool]] = []
    if query:
        clauses.append(contains_text(query, Organization.name, Organization.domain))
    if industry:
        clauses.append(func.lower(Organization.industry) == industry.lower())
    statement = select(Organization).where(*clauses).order_by(Organization.name)
    rows, total, following = fetch_page(ctx.db, statement, page, per_page)
    return OrganizationPage(organizations=_organization_outs(ctx.db, rows), total=total,
                            page=page, next_page=following)


@tools.tool(examples=[{}])
def list_groups(ctx: ToolContext) -> GroupList:
    """List the support groups (teams) that tickets are routed to."""
    counts = dict(ctx.db.execute(
        select(User.default_group_id, func.count()).where(User.role != "end-user").group_by(User.default_group_id)
    ).all())
    groups = ctx.db.scalars(select(Group).order_by(Group.id))
    return GroupList(groups=[GroupOut(id=g.id, name=g.name, description=g.description,
                                      agent_count=counts.get(g.id, 0)) for g in groups])


@tools.tool(examples=[{"prefix": "bil"}])
def list_tags(
    ctx: ToolContext,
    prefix: Annotated[str | None, Field(description="Only tags starting with this text.")] = None,
    limit: Annotated[int, Field(ge=1, le=200, description="Most tags to return.")] = 50,
) -> TagList:
    """List tags in use with the number of tickets carrying each, most used first."""
    stmt = (select(TicketTag.tag, func.count()).join(Ticket, Ticket.id == TicketTag.ticket_id)
            .where(Ticket.merged_into_id.is_(None)).group_by(TicketTag.tag))
    if prefix:
        stmt = stmt.where(TicketTag.tag.startswith(prefix.lower(), autoescape=True))
    rows = sorted(ctx.db.execute(stmt).all(), key=lambda r: (-r[1], r[0]))[:limit]
    return TagList(tags=[TagCount(tag=tag, count=n) for tag, n in rows])


@tools.tool(examples=[{"include_inactive": True}])
def list_macros(
    ctx: ToolContext,
    include_inactive: Annotated[bool, Field(description="Also list retired macros.")] = False,
) -> MacroList:
    """List macros: canned sets of ticket changes an agent can apply in one step."""
    stmt = select(Macro).order_by(Macro.id)
    if not include_inactive:
        stmt = stmt.where(Macro.active.is_(True))
    return MacroList(macros=[MacroOut(id=m.id, title=m.title, description=m.description,
                                      actions=dict(m.actions), active=m.active) for m in ctx.db.scalars(stmt)])


# ---------------------------------------------------------------- writes


@tools.tool(writes=True, examples=[{"subject": "Cannot export invoices", "description": "The export button does nothing.", "requester_id": 594, "tags": ["billing"]}])
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
    requester = get_or_raise(ctx, User, requester_id, "user", USER_HINT)
    if requester.suspended:
        raise ForbiddenError(f"user {requester_id} is suspended and cannot request tickets")
    if assignee_id is not None:
        _agent(ctx, assignee_id)
    if group_id is not None:
        get_or_raise(ctx, Group, group_id, "group", "Use list_groups to see the groups.")
    ticket = Ticket(
        subject=subject, description=description, status="open" if assignee_id else "new",
        priority=priority, type=type, channel="api", requester_id=requester_id,
        assignee_id=assignee_id, group_id=group_id, organization_id=requester.organization_id,
        created_at=ctx.now, updated_at=ctx.now, solved_at=None,
    )
    _add_tags(ticket, tags)
    ctx.db.add(ticket)
    ctx.db.flush()
    ctx.db.add(Comment(ticket_id=ticket.id, author_id=requester_id, body=description, public=True,
                       created_at=ctx.now))
    ctx.db.flush()
    return _detail(ctx.db, ticket)


@tools.tool(writes=True, examples=[{"ticket_id": 1486, "priority": "urgent", "assignee_id": 37}])
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
    ticket = _ticket(ctx, ticket_id)
    if all(v is None for v in (status, priority, type, assignee_id, group_id, subject)):
        raise InvalidArgumentError("give at least one field to change")
    _touch(ctx, ticket)
    if assignee_id is not None:
        _agent(ctx, assignee_id)
        ticket.assignee_id = assignee_id
        if ticket.status == "new" and status is None:
            ticket.status = "open"
    if group_id is not None:
        get_or_raise(ctx, Group, group_id, "group", "Use list_groups to see the groups.")
        ticket.group_id = group_id
    if priority is not None:
        ticket.priority = priority
    if type is not None:
        ticket.type = type
    if subject is not None:
        ticket.subject = subject
    if status is not None:
        _set_status(ctx, ticket, status)
    ctx.db.flush()
    return _detail(ctx.db, ticket)


@tools.tool(writes=True, examples=[{"ticket_id": 1486, "tags": ["vip"]}])
def add_ticket_tags(
    ctx: ToolContext,
    ticket_id: Annotated[int, Field(description="The ticket's id.")],
    tags: Annotated[list[Tag], Field(min_length=1, description="Tags to add (lowercase, no spaces).")],
) -> TicketSummary:
    """Add tags to a ticket; tags it already has are kept once."""
    ticket = _ticket(ctx, ticket_id)
    _touch(ctx, ticket)
    _add_tags(ticket, tags)
    ctx.db.flush()
    return _summary(ticket)


@tools.tool(writes=True, examples=[{"ticket_id": 1486, "tags": ["follow_up"]}])
def remove_ticket_tags(
    ctx: ToolContext,
    ticket_id: Annotated[int, Field(description="The ticket's id.")],
    tags: Annotated[list[Tag], Field(min_length=1, description="Tags to remove.")],
) -> TicketSummary:
    """Remove tags from a ticket; every tag named must be on the ticket."""
    ticket = _ticket(ctx, ticket_id)
    have = {t.tag for t in ticket.tags}
    missing = [t for t in tags if t not in have]
    if missing:
        raise InvalidArgumentError(f"ticket {ticket_id} does not have tag(s) {', '.join(missing)}; "
                                   f"its tags are: {', '.join(sorted(have)) or 'none'}")
    _touch(ctx, ticket)
    ticket.tags = [t for t in ticket.tags if t.tag not in set(tags)]
    ctx.db.flush()
    return _summary(ticket)


@tools.tool(writes=True, examples=[{"ticket_id": 1486, "body": "We are looking into the pricing question.", "public": True}])
def add_comment(
    ctx: ToolContext,
    ticket_id: Annotated[int, Field(description="The ticket's id.")],
    body: Annotated[Body, Field(min_length=1, description="The comment text.")],
    public: Annotated[bool, Field(description="True for a reply the requester sees, False for an internal note.")] = True,
    author_id: Annotated[int | None, Field(description="Author's user id; defaults to you, the acting agent.")] = None,
) -> CommentOut:
    """Add a public reply or an internal note to a ticket."""
    ticket = _ticket(ctx, ticket_id)
    author = get_or_raise(ctx, User, author_id or ACTING_AGENT_ID, "user", USER_HINT)
    if not public and author.role == "end-user":
        raise ForbiddenError("end-users cannot write internal notes")
    _touch(ctx, ticket)
    comment = Comment(ticket_id=ticket_id, author_id=author.id, body=body, public=public, created_at=ctx.now)
    ctx.db.add(comment)
    ctx.db.flush()
    return CommentOut(id=comment.id, ticket_id=ticket_id, author_id=author.id, author_name=author.name,
                      body=body, public=public, created_at=comment.created_at)


@tools.tool(writes=True, examples=[{"source_ticket_id": 1499, "target_ticket_id": 1486}])
def merge_tickets(
    ctx: ToolContext,
    source_ticket_id: Annotated[int, Field(description="The duplicate ticket, which is closed.")],
    target_ticket_id: Annotated[int, Field(description="The ticket that stays open and receives the note.")],
) -> MergeResult:
    """Merge a duplicate ticket into another: the source is closed and both get a note."""
    if source_ticket_id == target_ticket_id:
        raise InvalidArgumentError("a ticket cannot be merged into itself")
    source, target = _ticket(ctx, source_ticket_id), _ticket(ctx, target_ticket_id)
    for t in (source, target):
        if t.status == "closed":
            raise ForbiddenError(f"ticket {t.id} is closed and cannot be merged")
    source.updated_at = target.updated_at = ctx.now
    source.status, source.solved_at, source.merged_into_id = "closed", ctx.now, target.id
    if source.assignee_id is None:
        source.assignee_id = ACTING_AGENT_ID
    ctx.db.add_all([
        Comment(ticket_id=source.id, author_id=ACTING_AGENT_ID, public=False, created_at=ctx.now,
                body=f"Closed and merged into ticket #{target.id}."),
        Comment(ticket_id=target.id, author_id=ACTING_AGENT_ID, public=False, created_at=ctx.now,
                body=f"Ticket #{source.id} was merged into this ticket: {source.subject}"),
    ])
    ctx.db.flush()
    return MergeResult(source=_summary(source), target=_summary(target))


@tools.tool(writes=True, examples=[{"ticket_id": 1460, "macro_id": 3}])
def apply_macro(
    ctx: ToolContext,
    ticket_id: Annotated[int, Field(description="The ticket's id.")],
    macro_id: Annotated[int, Field(description="The macro's id (see list_macros).")],
) -> TicketDetail:
    """Apply an active macro's changes (status, priority, group, tags, reply) to a ticket."""
    ticket = _ticket(ctx, ticket_id)
    macro = get_or_raise(ctx, Macro, macro_id, "macro", "Use list_macros to see the macros.")
    if not macro.active:
        raise ForbiddenError(f"macro {macro_id} ({macro.title}) is inactive")
    _touch(ctx, ticket)
    actions = macro.actions
    if "group" in actions:
        group = ctx.db.scalar(select(Group).where(Group.name == actions["group"]))
        if group is None:
            raise NotFoundError(f"macro {macro_id} names a group that no longer exists")
        ticket.group_id = group.id
    if "priority" in actions:
        ticket.priority = str(actions["priority"])
    if "add_tags" in actions:
        _add_tags(ticket, [str(t) for t in actions["add_tags"]])  # type: ignore[union-attr]
    if "comment" in actions:
        ctx.db.add(Comment(ticket_id=ticket.id, author_id=ticket.assignee_id or ACTING_AGENT_ID,
                           body=str(actions["comment"]), public=True, created_at=ctx.now))
    if "status" in actions:
        if ticket.assignee_id is None:
            ticket.assignee_id = ACTING_AGENT_ID
        _set_status(ctx, ticket, str(actions["status"]))
    ctx.db.flush()
    return _detail(ctx.db, ticket)


@tools.tool(writes=True, examples=[{"name": "Jamie Rivera", "email": "jamie.rivera@example.org", "organization_id": 3}])
def create_user(
    ctx: ToolContext,
    name: Annotated[str, Field(min_length=1, max_length=120, description="Full name.")],
    email: Annotated[str, Field(pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$", description="Email address (unique).")],
    organization_id: Annotated[int | None, Field(description="Organization the end-user belongs to.")] = None,
    phone: Annotated[str | None, Field(description="Phone number.")] = None,
) -> UserOut:
    """Create an end-user (a customer who can request tickets)."""
    email = email.lower()
    existing = ctx.db.scalar(select(User).where(User.email == email))
    if existing is not None:
        raise InvalidArgumentError(f"a user with email {email} already exists (user {existing.id})")
    if organization_id is not None:
        get_or_raise(ctx, Organization, organization_id, "organization",
                     "Use search_organizations to find organizations.")
    user = User(name=name, email=email, role="end-user", phone=phone, timezone="UTC",
                organization_id=organization_id, created_at=ctx.now, last_login_at=None)
    ctx.db.add(user)
    ctx.db.flush()
    return _user_out(user)


@tools.tool(writes=True, examples=[{"user_id": 594}])
def suspend_user(
    ctx: ToolContext,
    user_id: Annotated[int, Field(description="The end-user's id.")],
    suspended: Annotated[bool, Field(description="True to suspend, False to lift a suspension.")] = True,
) -> UserOut:
    """Suspend an end-user (they can no longer request tickets) or lift the suspension."""
    user = get_or_raise(ctx, User, user_id, "user", USER_HINT)
    if user.role != "end-user":
        raise ForbiddenError(f"user {user_id} is an {user.role}; only end-users can be suspended here")
    user.suspended = suspended
    ctx.db.flush()
    return _user_out(user)
