"""The CRM tools: find and read records, report on the pipeline, and work leads and deals."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import ColumnElement, func, select

from mcpgym.servers.crm.models import (
    CLOSED_STAGES,
    OPEN_STAGES,
    STAGE_PROBABILITY,
    STAGES,
    Account,
    Activity,
    Contact,
    Lead,
    Note,
    Opportunity,
    StageChange,
    User,
)
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

tools = ToolRegistry()

ACTING_USER_ID = 1
"""The sales manager on whose behalf writes are made when no owner is given."""

Stage = Literal["Prospecting", "Qualification", "Proposal", "Negotiation", "Closed Won", "Closed Lost"]
OpenStage = Literal["Prospecting", "Qualification", "Proposal", "Negotiation"]
DealStatus = Literal["open", "won", "lost", "closed"]
OpportunityType = Literal["new_business", "upsell", "renewal"]
LeadStatus = Literal["new", "working", "nurturing", "unqualified", "converted"]
LeadSource = Literal["web", "referral", "event", "cold_call", "partner", "advertisement"]
LeadRating = Literal["hot", "warm", "cold"]
LossReason = Literal["price", "competitor", "no_budget", "timing", "no_decision", "missing_features"]
ActivityType = Literal["call", "meeting", "task"]
RecordType = Literal["account", "contact", "lead", "opportunity"]
Email = Annotated[str, Field(pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$", max_length=160, description="Email address.")]
Name = Annotated[str, Field(min_length=1, max_length=60)]
Amount = Annotated[float, Field(ge=0, le=1e9, description="Amount in USD.")]

IdArg = Annotated[int, Field(description="The record's integer id.")]
AccountIdArg = Annotated[int, Field(description="The account's id.")]
ContactIdArg = Annotated[int, Field(description="The contact's id.")]
LeadIdArg = Annotated[int, Field(description="The lead's id.")]
OpportunityIdArg = Annotated[int, Field(description="The opportunity's id.")]
OwnerArg = Annotated[int | None, Field(description="User id of the owner (see list_users); defaults to you (user 1).")]

OwnerF = Annotated[int | None, Field(description="Only records owned by this user id.")]
AccountF = Annotated[int | None, Field(description="Only records of this account id.")]
ContactF = Annotated[int | None, Field(description="Only records about this contact id.")]
OpportunityF = Annotated[int | None, Field(description="Only records about this opportunity id.")]
LeadF = Annotated[int | None, Field(description="Only records about this lead id.")]
StagesF = Annotated[list[Stage] | None, Field(description="Only opportunities in one of these stages.")]
DealStatusF = Annotated[DealStatus | None, Field(
    description="open: not closed; won: Closed Won; lost: Closed Lost; closed: won or lost.")]
TypeF = Annotated[OpportunityType | None, Field(description="Only opportunities of this type.")]
CloseAfterF = Annotated[DateTimeArg | None, Field(description="Only opportunities with close_date at or after this time (ISO 8601, UTC).")]
CloseBeforeF = Annotated[DateTimeArg | None, Field(description="Only opportunities with close_date strictly before this time (ISO 8601, UTC).")]
CreatedAfterF = Annotated[DateTimeArg | None, Field(description="Only records created at or after this time (ISO 8601, UTC).")]
CreatedBeforeF = Annotated[DateTimeArg | None, Field(description="Only records created strictly before this time (ISO 8601, UTC).")]
AmountMinF = Annotated[float | None, Field(ge=0, description="Only opportunities with amount >= this, in USD.")]
AmountMaxF = Annotated[float | None, Field(ge=0, description="Only opportunities with amount <= this, in USD.")]
SortOrder = Annotated[Literal["asc", "desc"], Field(description="Sort direction.")]

ACCOUNT_HINT = "Use search_accounts to find accounts by name, domain or industry."
CONTACT_HINT = "Use search_contacts to find contacts by name, email or account."
LEAD_HINT = "Use search_leads to find leads by name, email, company or status."
OPPORTUNITY_HINT = "Use search_opportunities to find opportunities by name, stage, owner or account."
ACTIVITY_HINT = "Use search_activities to find calls, meetings and tasks."
USER_HINT = "Use list_users to see the users (owners) and their ids."


# ---------------------------------------------------------------- result models


class UserOut(BaseModel):
    id: int
    name: str
    email: str
    role: str = Field(description="sales_manager, account_executive or sales_development_rep.")
    active: bool = Field(description="Inactive users have left and cannot own records.")
    created_at: Timestamp


class UserList(BaseModel):
    users: list[UserOut]


class AccountOut(BaseModel):
    id: int
    name: str
    domain: str | None
    industry: str | None
    type: str = Field(description="prospect, customer (has won a deal) or partner.")
    city: str | None
    country: str | None
    annual_revenue: int | None = Field(description="The company's yearly revenue in USD.")
    employee_count: int | None
    owner_id: int
    owner_name: str
    created_at: Timestamp
    updated_at: Timestamp


class AccountDetail(AccountOut):
    contact_count: int
    open_opportunity_count: int
    open_pipeline_amount: float = Field(description="Sum of open opportunity amounts, USD.")
    closed_won_amount: float = Field(description="Sum of Closed Won opportunity amounts, USD, all time.")


class AccountPage(BaseModel):
    accounts: list[AccountOut]
    total: int = Field(description="Accounts matching the filters, over all pages.")
    page: int
    next_page: int | None


class ContactOut(BaseModel):
    id: int
    name: str
    first_name: str
    last_name: str
    email: str
    phone: str | None
    title: str | None
    account_id: int
    account_name: str
    owner_id: int
    owner_name: str
    lead_source: str | None
    created_at: Timestamp
    updated_at: Timestamp


class ContactPage(BaseModel):
    contacts: list[ContactOut]
    total: int = Field(description="Contacts matching the filters, over all pages.")
    page: int
    next_page: int | None


class LeadOut(BaseModel):
    id: int
    name: str
    first_name: str
    last_name: str
    email: str
    phone: str | None
    title: str | None
    company: str
    industry: str | None
    status: str = Field(description="new, working, nurturing, unqualified or converted.")
    source: str
    rating: str = Field(description="hot, warm or cold.")
    owner_id: int
    owner_name: str
    created_at: Timestamp
    updated_at: Timestamp
    converted_at: Timestamp | None
    converted_contact_id: int | None
    converted_account_id: int | None
    converted_opportunity_id: int | None


class LeadPage(BaseModel):
    leads: list[LeadOut]
    total: int = Field(description="Leads matching the filters, over all pages.")
    page: int
    next_page: int | None


class OpportunityOut(BaseModel):
    id: int
    name: str
    account_id: int
    account_name: str
    contact_id: int | None
    owner_id: int
    owner_name: str
    type: str
    stage: str
    probability: int = Field(description="Win probability in percent.")
    amount: float = Field(description="USD.")
    weighted_amount: float = Field(description="amount * probability / 100, USD, rounded to cents.")
    close_date: Timestamp = Field(description="Expected close date if open, actual close time if closed.")
    lead_source: str | None
    next_step: str | None
    loss_reason: str | None
    created_at: Timestamp
    updated_at: Timestamp


class StageChangeOut(BaseModel):
    from_stage: str | None
    to_stage: str
    changed_by_id: int
    changed_at: Timestamp


class OpportunityDetail(OpportunityOut):
    contact_name: str | None
    stage_history: list[StageChangeOut] = Field(description="Stage changes, oldest first.")


class OpportunityPage(BaseModel):
    opportunities: list[OpportunityOut]
    total: int = Field(description="Opportunities matching the filters, over all pages.")
    total_amount: float = Field(description="Sum of amounts over all matching opportunities, USD.")
    page: int
    next_page: int | None


class PipelineGroup(BaseModel):
    key: str = Field(description="Stage name, owner user id, account id, or close month YYYY-MM.")
    label: str = Field(description="Stage name, owner name, account name, or close month YYYY-MM.")
    count: int
    amount: float = Field(description="USD.")
    weighted_amount: float = Field(description="Sum of amount * probability / 100, USD.")


class PipelineSummary(BaseModel):
    group_by: str
    count: int
    amount: float = Field(description="USD, all groups.")
    weighted_amount: float = Field(description="USD, all groups.")
    groups: list[PipelineGroup]


class ActivityOut(BaseModel):
    id: int
    type: str = Field(description="call, meeting or task.")
    subject: str
    description: str | None
    status: str = Field(description="Tasks: open or completed; meetings: planned or completed; calls: completed.")
    priority: str | None = Field(description="Tasks only: low, normal or high.")
    outcome: str | None = Field(description="Calls only: connected, left_voicemail or no_answer.")
    scheduled_at: Timestamp = Field(description="Calls and meetings: start time; tasks: due time.")
    duration_minutes: int | None
    completed_at: Timestamp | None
    owner_id: int
    account_id: int | None
    contact_id: int | None
    opportunity_id: int | None
    lead_id: int | None
    created_at: Timestamp


class ActivityPage(BaseModel):
    activities: list[ActivityOut]
    total: int = Field(description="Activities matching the filters, over all pages.")
    page: int
    next_page: int | None


class NoteOut(BaseModel):
    id: int
    body: str
    author_id: int
    account_id: int | None
    contact_id: int | None
    opportunity_id: int | None
    lead_id: int | None
    created_at: Timestamp


class NotePage(BaseModel):
    notes: list[NoteOut]
    total: int
    page: int
    next_page: int | None


class ConversionResult(BaseModel):
    lead: LeadOut
    contact: ContactOut
    account: AccountOut
    account_created: bool = Field(description="True if a new account was created for the lead's company.")
    opportunity: OpportunityOut | None


class ReassignResult(BaseModel):
    record_type: str
    record_id: int
    previous_owner_id: int
    owner_id: int
    owner_name: str
    reassigned_contacts: int = Field(description="Contacts of the account that moved too (include_related).")
    reassigned_opportunities: int = Field(description="Open opportunities of the account that moved too (include_related).")


# ---------------------------------------------------------------- helpers


def _money(value: float) -> float:
    return round(value, 2)


def _user_out(u: User) -> UserOut:
    return UserOut(id=u.id, name=u.name, email=u.email, role=u.role, active=u.active, created_at=u.created_at)


def _account_out(a: Account) -> AccountOut:
    return AccountOut(
        id=a.id, name=a.name, domain=a.domain, industry=a.industry, type=a.type, city=a.city,
        country=a.country, annual_revenue=a.annual_revenue, employee_count=a.employee_count,
        owner_id=a.owner_id, owner_name=a.owner.name, created_at=a.created_at, updated_at=a.updated_at,
    )


def _contact_out(c: Contact) -> ContactOut:
    return ContactOut(
        id=c.id, name=f"{c.first_name} {c.last_name}", first_name=c.first_name, last_name=c.last_name,
        email=c.email, phone=c.phone, title=c.title, account_id=c.account_id, account_name=c.account.name,
        owner_id=c.owner_id, owner_name=c.owner.name, lead_source=c.lead_source,
        created_at=c.created_at, updated_at=c.updated_at,
    )


def _lead_out(lead: Lead) -> LeadOut:
    return LeadOut(
        id=lead.id, name=f"{lead.first_name} {lead.last_name}", first_name=lead.first_name,
        last_name=lead.last_name, email=lead.email, phone=lead.phone, title=lead.title,
        company=lead.company, industry=lead.industry, status=lead.status, source=lead.source,
        rating=lead.rating, owner_id=lead.owner_id, owner_name=lead.owner.name,
        created_at=lead.created_at, updated_at=lead.updated_at, converted_at=lead.converted_at,
        converted_contact_id=lead.converted_contact_id, converted_account_id=lead.converted_account_id,
        converted_opportunity_id=lead.converted_opportunity_id,
    )


def _opportunity_out(o: Opportunity) -> OpportunityOut:
    return OpportunityOut(
        id=o.id, name=o.name, account_id=o.account_id, account_name=o.account.name,
        contact_id=o.contact_id, owner_id=o.owner_id, owner_name=o.owner.name, type=o.type,
        stage=o.stage, probability=o.probability, amount=o.amount,
        weighted_amount=_money(o.amount * o.probability / 100), close_date=o.close_date,
        lead_source=o.lead_source, next_step=o.next_step, loss_reason=o.loss_reason,
        created_at=o.created_at, updated_at=o.updated_at,
    )


def _opportunity_detail(ctx: ToolContext, o: Opportunity) -> OpportunityDetail:
    contact = ctx.db.get(Contact, o.contact_id) if o.contact_id else None
    history = ctx.db.scalars(
        select(StageChange).where(StageChange.opportunity_id == o.id).order_by(StageChange.changed_at, StageChange.id)
    )
    return OpportunityDetail(
        **_opportunity_out(o).model_dump(),
        contact_name=f"{contact.first_name} {contact.last_name}" if contact else None,
        stage_history=[StageChangeOut(from_stage=h.from_stage, to_stage=h.to_stage,
                                      changed_by_id=h.changed_by_id, changed_at=h.changed_at) for h in history],
    )


def _activity_out(a: Activity) -> ActivityOut:
    return ActivityOut(
        id=a.id, type=a.type, subject=a.subject, description=a.description, status=a.status,
        priority=a.priority, outcome=a.outcome, scheduled_at=a.scheduled_at,
        duration_minutes=a.duration_minutes, completed_at=a.completed_at, owner_id=a.owner_id,
        account_id=a.account_id, contact_id=a.contact_id, opportunity_id=a.opportunity_id,
        lead_id=a.lead_id, created_at=a.created_at,
    )


def _note_out(n: Note) -> NoteOut:
    return NoteOut(id=n.id, body=n.body, author_id=n.author_id, account_id=n.account_id,
                   contact_id=n.contact_id, opportunity_id=n.opportunity_id, lead_id=n.lead_id,
                   created_at=n.created_at)


def _account(ctx: ToolContext, account_id: int) -> Account:
    return get_or_raise(ctx, Account, account_id, "account", ACCOUNT_HINT)


def _contact(ctx: ToolContext, contact_id: int) -> Contact:
    return get_or_raise(ctx, Contact, contact_id, "contact", CONTACT_HINT)


def _lead(ctx: ToolContext, lead_id: int) -> Lead:
    return get_or_raise(ctx, Lead, lead_id, "lead", LEAD_HINT)


def _opportunity(ctx: ToolContext, opportunity_id: int) -> Opportunity:
    return get_or_raise(ctx, Opportunity, opportunity_id, "opportunity", OPPORTUNITY_HINT)


def _owner(ctx: ToolContext, user_id: int | None) -> User:
    """The user who will own a record: must exist and be active."""
    user = get_or_raise(ctx, User, ACTING_USER_ID if user_id is None else user_id, "user", USER_HINT)
    if not user.active:
        raise ForbiddenError(f"user {user.id} ({user.name}) is inactive and cannot own records; "
                             "choose an active user from list_users")
    return user


def _check_lead_open(lead: Lead, action: str) -> None:
    if lead.status == "converted":
        raise ForbiddenError(f"lead {lead.id} was converted into contact {lead.converted_contact_id} and is "
                             f"read-only; cannot {action}. Work with the contact instead (get_contact)")


def _check_opportunity_open(o: Opportunity, action: str) -> None:
    if o.stage in CLOSED_STAGES:
        raise ForbiddenError(f"opportunity {o.id} is {o.stage} (closed on {o.close_date:%Y-%m-%d}) and closed "
                             f"opportunities are final; cannot {action}. Use create_opportunity for new business")


def _check_future(ctx: ToolContext, when: datetime, name: str) -> None:
    if when.date() < ctx.now.date():
        raise InvalidArgumentError(f"{name} {when:%Y-%m-%d} is in the past; today is {ctx.now:%Y-%m-%d}")


def _check_range(low: datetime | None, high: datetime | None, name: str) -> None:
    if low is not None and high is not None and low >= high:
        raise InvalidArgumentError(f"{name}: the lower bound must be below the upper bound")


def _person_id(ctx: ToolContext, email: str) -> str | None:
    """The world person id of `email`, so records of the same person agree across servers."""
    return next((p.id for p in ctx.world.people if p.email == email), None)


def _contact_by_email(ctx: ToolContext, email: str) -> Contact | None:
    return ctx.db.scalar(select(Contact).where(func.lower(Contact.email) == email.strip().lower()))


def _open_lead_by_email(ctx: ToolContext, email: str) -> Lead | None:
    return ctx.db.scalar(select(Lead).where(func.lower(Lead.email) == email.strip().lower(),
                                            Lead.status != "converted").order_by(Lead.id))


def _add_stage_change(ctx: ToolContext, o: Opportunity, from_stage: str | None) -> None:
    ctx.db.add(StageChange(opportunity_id=o.id, from_stage=from_stage, to_stage=o.stage,
                           changed_by_id=ACTING_USER_ID, changed_at=ctx.now))


def _new_opportunity(
    ctx: ToolContext, account: Account, owner: User, name: str, amount: float, close_date: datetime,
    stage: str, contact: Contact | None, type: str, lead_source: str | None,
) -> Opportunity:
    _check_future(ctx, close_date, "close_date")
    opp = Opportunity(
        name=name, account=account, contact_id=contact.id if contact else None, owner=owner, type=type,
        stage=stage, probability=STAGE_PROBABILITY[stage], amount=_money(amount), close_date=close_date,
        lead_source=lead_source, next_step=None, loss_reason=None, created_at=ctx.now, updated_at=ctx.now,
    )
    ctx.db.add(opp)
    ctx.db.flush()
    _add_stage_change(ctx, opp, None)
    return opp


def _equal(*pairs: tuple[Any, object]) -> list[ColumnElement[bool]]:
    """`column == value` for each (column, value) pair whose value is not None."""
    return [column == value for column, value in pairs if value is not None]


def _deal_clauses(
    query: str | None = None, stage: list[str] | None = None, status: str | None = None,
    owner_id: int | None = None, account_id: int | None = None, contact_id: int | None = None,
    type: str | None = None, close_after: datetime | None = None, close_before: datetime | None = None,
    amount_min: float | None = None, amount_max: float | None = None,
    created_after: datetime | None = None, created_before: datetime | None = None,
) -> list[ColumnElement[bool]]:
    _check_range(close_after, close_before, "close_after/close_before")
    _check_range(created_after, created_before, "created_after/created_before")
    if amount_min is not None and amount_max is not None and amount_min > amount_max:
        raise InvalidArgumentError("amount_min must not exceed amount_max")
    statuses = {"open": OPEN_STAGES, "won": ("Closed Won",), "lost": ("Closed Lost",), "closed": CLOSED_STAGES}
    clauses: list[ColumnElement[bool]] = []
    for word in search_words(query):
        clauses.append(contains_text(word, Opportunity.name))
    if stage:
        clauses.append(Opportunity.stage.in_(stage))
    if status:
        clauses.append(Opportunity.stage.in_(statuses[status]))
    clauses += _equal((Opportunity.owner_id, owner_id), (Opportunity.account_id, account_id),
                      (Opportunity.contact_id, contact_id), (Opportunity.type, type))
    lower = [(Opportunity.close_date, close_after), (Opportunity.created_at, created_after),
             (Opportunity.amount, amount_min)]
    upper = [(Opportunity.close_date, close_before), (Opportunity.created_at, created_before)]
    clauses += [column >= value for column, value in lower if value is not None]
    clauses += [column < value for column, value in upper if value is not None]
    if amount_max is not None:
        clauses.append(Opportunity.amount <= amount_max)
    return clauses


# ---------------------------------------------------------------- reads: people and companies


@tools.tool(examples=[{"role": "account_executive", "active": True}])
def list_users(
    ctx: ToolContext,
    role: Annotated[Literal["sales_manager", "account_executive", "sales_development_rep"] | None,
                    Field(description="Only users with this role.")] = None,
    active: Annotated[bool | None, Field(description="True: only active users; False: only users who left.")] = None,
) -> UserList:
    """List the CRM users (the sales team, who own records), sorted by id. You are user 1."""
    stmt = select(User).order_by(User.id)
    if role:
        stmt = stmt.where(User.role == role)
    if active is not None:
        stmt = stmt.where(User.active.is_(active))
    return UserList(users=[_user_out(u) for u in ctx.db.scalars(stmt)])


@tools.tool(examples=[{"industry": "retail", "type": "customer"}])
def search_accounts(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Part of the account name or domain (case-insensitive).")] = None,
    industry: Annotated[str | None, Field(description="Only accounts in this industry, e.g. 'retail' (case-insensitive).")] = None,
    type: Annotated[Literal["prospect", "customer", "partner"] | None, Field(description="Only accounts of this type.")] = None,
    owner_id: OwnerF = None,
    country: Annotated[str | None, Field(description="Only accounts in this country (exact name, case-insensitive).")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> AccountPage:
    """Find accounts (customer companies) by name, domain, industry, type, owner or country, sorted by name."""
    clauses: list[ColumnElement[bool]] = []
    if query:
        clauses.append(contains_text(query, Account.name, Account.domain))
    if industry:
        clauses.append(func.lower(Account.industry) == industry.strip().lower())
    if type:
        clauses.append(Account.type == type)
    if owner_id is not None:
        clauses.append(Account.owner_id == owner_id)
    if country:
        clauses.append(func.lower(Account.country) == country.strip().lower())
    statement = select(Account).where(*clauses).order_by(Account.name, Account.id)
    rows, total, following = fetch_page(ctx.db, statement, page, per_page)
    return AccountPage(accounts=[_account_out(a) for a in rows], total=total, page=page, next_page=following)


@tools.tool(examples=[{"account_id": 16}])
def get_account(ctx: ToolContext, account_id: AccountIdArg) -> AccountDetail:
    """Get an account with its number of contacts, its open pipeline and its all-time won amount (USD)."""
    account = _account(ctx, account_id)
    contacts = ctx.db.scalar(select(func.count()).where(Contact.account_id == account_id)) or 0
    open_count, open_amount = ctx.db.execute(
        select(func.count(), func.coalesce(func.sum(Opportunity.amount), 0.0))
        .where(Opportunity.account_id == account_id, Opportunity.stage.in_(OPEN_STAGES))
    ).one()
    won = ctx.db.scalar(select(func.coalesce(func.sum(Opportunity.amount), 0.0))
                        .where(Opportunity.account_id == account_id, Opportunity.stage == "Closed Won"))
    return AccountDetail(**_account_out(account).model_dump(), contact_count=contacts,
                         open_opportunity_count=open_count, open_pipeline_amount=_money(open_amount),
                         closed_won_amount=_money(won or 0.0))


@tools.tool(examples=[{"query": "smith", "title": "manager"}])
def search_contacts(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Part of the full name or email (case-insensitive).")] = None,
    account_id: AccountF = None,
    owner_id: OwnerF = None,
    title: Annotated[str | None, Field(description="Part of the job title (case-insensitive).")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> ContactPage:
    """Find contacts (people at accounts) by name, email, account, owner or title, sorted by last name."""
    clauses: list[ColumnElement[bool]] = []
    if query:
        clauses.append(contains_text(query, Contact.first_name + " " + Contact.last_name, Contact.email))
    if account_id is not None:
        clauses.append(Contact.account_id == account_id)
    if owner_id is not None:
        clauses.append(Contact.owner_id == owner_id)
    if title:
        clauses.append(contains_text(title, Contact.title))
    statement = select(Contact).where(*clauses).order_by(Contact.last_name, Contact.first_name, Contact.id)
    rows, total, following = fetch_page(ctx.db, statement, page, per_page)
    return ContactPage(contacts=[_contact_out(c) for c in rows], total=total, page=page, next_page=following)


@tools.tool(examples=[{"contact_id": 160}])
def get_contact(ctx: ToolContext, contact_id: ContactIdArg) -> ContactOut:
    """Get a contact with their account's name and their owner."""
    return _contact_out(_contact(ctx, contact_id))


@tools.tool(examples=[{"email": "shelby.king@matthewsrogers.com"}])
def find_contact_by_email(
    ctx: ToolContext,
    email: Annotated[str, Field(min_length=3, max_length=160, description="The contact's exact email address (case-insensitive).")],
) -> ContactOut:
    """Look up a contact by exact email: name, email, phone, title, account (id and name) and owner."""
    contact = _contact_by_email(ctx, email)
    if contact is None:
        raise NotFoundError(f"no contact with email {email.strip()}. Use search_contacts for a partial match, "
                            "or search_leads if the person is a lead not yet converted.")
    return _contact_out(contact)


@tools.tool(examples=[{"status": ["working", "nurturing"], "rating": "hot", "created_after": "2025-09-01"}])
def search_leads(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Part of the name, email or company (case-insensitive).")] = None,
    status: Annotated[list[LeadStatus] | None, Field(description="Only leads with one of these statuses.")] = None,
    source: Annotated[LeadSource | None, Field(description="Only leads from this source.")] = None,
    rating: Annotated[LeadRating | None, Field(description="Only leads with this rating.")] = None,
    owner_id: OwnerF = None,
    created_after: CreatedAfterF = None,
    created_before: CreatedBeforeF = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> LeadPage:
    """Find leads (prospects not yet converted to contacts, and converted ones), newest first."""
    _check_range(created_after, created_before, "created_after/created_before")
    clauses: list[ColumnElement[bool]] = []
    if query:
        clauses.append(contains_text(query, Lead.first_name + " " + Lead.last_name, Lead.email, Lead.company))
    if status:
        clauses.append(Lead.status.in_(status))
    clauses += _equal((Lead.source, source), (Lead.rating, rating), (Lead.owner_id, owner_id))
    if created_after is not None:
        clauses.append(Lead.created_at >= created_after)
    if created_before is not None:
        clauses.append(Lead.created_at < created_before)
    statement = select(Lead).where(*clauses).order_by(Lead.created_at.desc(), Lead.id.desc())
    rows, total, following = fetch_page(ctx.db, statement, page, per_page)
    return LeadPage(leads=[_lead_out(lead) for lead in rows], total=total, page=page, next_page=following)


@tools.tool(examples=[{"lead_id": 187}])
def get_lead(ctx: ToolContext, lead_id: LeadIdArg) -> LeadOut:
    """Get a lead; converted leads name the contact, account and opportunity they became."""
    return _lead_out(_lead(ctx, lead_id))


# ---------------------------------------------------------------- reads: deals


@tools.tool(examples=[{"stage": ["Proposal", "Negotiation"], "type": "new_business", "amount_min": 10000, "sort_by": "amount", "sort_order": "desc"}])
def search_opportunities(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Words that must all appear in the opportunity name (case-insensitive); names start with the account name.")] = None,
    stage: StagesF = None,
    status: DealStatusF = None,
    owner_id: OwnerF = None,
    account_id: AccountF = None,
    contact_id: ContactF = None,
    type: TypeF = None,
    close_after: CloseAfterF = None,
    close_before: CloseBeforeF = None,
    amount_min: AmountMinF = None,
    amount_max: AmountMaxF = None,
    created_after: CreatedAfterF = None,
    created_before: CreatedBeforeF = None,
    sort_by: Annotated[Literal["close_date", "amount", "created_at", "name", "id"], Field(description="Sort key.")] = "close_date",
    sort_order: SortOrder = "asc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> OpportunityPage:
    """Search opportunities (deals) with filters; one page of results, the total count and total amount (USD)."""
    clauses = _deal_clauses(query, stage, status, owner_id, account_id, contact_id, type, close_after,
                            close_before, amount_min, amount_max, created_after, created_before)
    key = getattr(Opportunity, sort_by)
    order = [key.asc() if sort_order == "asc" else key.desc(), Opportunity.id.asc()]
    rows, total, following = fetch_page(ctx.db, select(Opportunity).where(*clauses).order_by(*order), page, per_page)
    amount = ctx.db.scalar(select(func.coalesce(func.sum(Opportunity.amount), 0.0)).where(*clauses)) or 0.0
    return OpportunityPage(opportunities=[_opportunity_out(o) for o in rows], total=total,
                           total_amount=_money(amount), page=page, next_page=following)


@tools.tool(examples=[{"opportunity_id": 358}])
def get_opportunity(ctx: ToolContext, opportunity_id: OpportunityIdArg) -> OpportunityDetail:
    """Get an opportunity with its primary contact's name and its stage history."""
    return _opportunity_detail(ctx, _opportunity(ctx, opportunity_id))


def _group_key(group_by: str) -> Callable[[Opportunity], tuple[str, str]]:
    keys: dict[str, Callable[[Opportunity], tuple[str, str]]] = {
        "stage": lambda o: (o.stage, o.stage),
        "owner": lambda o: (str(o.owner_id), o.owner.name),
        "account": lambda o: (str(o.account_id), o.account.name),
        "close_month": lambda o: (f"{o.close_date:%Y-%m}", f"{o.close_date:%Y-%m}"),
        "type": lambda o: (o.type, o.type),
    }
    return keys[group_by]


def _group_order(group_by: str, group: PipelineGroup) -> tuple[object, ...]:
    if group_by == "stage":
        return (STAGES.index(group.key),)
    if group_by == "close_month":
        return (group.key,)
    return (-group.amount, group.label)


@tools.tool(examples=[{"group_by": "owner", "type": "renewal"}])
def pipeline_summary(
    ctx: ToolContext,
    group_by: Annotated[Literal["stage", "owner", "account", "close_month", "type"], Field(
        description="Break the pipeline down by stage (in stage order), owner, account (largest amount "
                    "first), close month (YYYY-MM, ascending) or opportunity type.")] = "stage",
    status: Annotated[DealStatus | None, Field(
        description="open (default): the open pipeline; won; lost; closed: won or lost; null: all.")] = "open",
    stage: StagesF = None,
    owner_id: OwnerF = None,
    account_id: AccountF = None,
    type: TypeF = None,
    close_after: CloseAfterF = None,
    close_before: CloseBeforeF = None,
    amount_min: AmountMinF = None,
    amount_max: AmountMaxF = None,
    created_after: CreatedAfterF = None,
    created_before: CreatedBeforeF = None,
) -> PipelineSummary:
    """Count, amount and probability-weighted amount (USD) of opportunities, per group.

    Filters are those of search_opportunities; by default only open opportunities count.
    """
    clauses = _deal_clauses(None, stage, status, owner_id, account_id, None, type, close_after,
                            close_before, amount_min, amount_max, created_after, created_before)
    key_of = _group_key(group_by)
    sums: dict[tuple[str, str], list[float]] = {}
    for o in ctx.db.scalars(select(Opportunity).where(*clauses).order_by(Opportunity.id)):
        row = sums.setdefault(key_of(o), [0, 0.0, 0.0])
        row[0] += 1
        row[1] += o.amount
        row[2] += o.amount * o.probability / 100
    groups = [PipelineGroup(key=key, label=label, count=int(n), amount=_money(amount), weighted_amount=_money(weighted))
              for (key, label), (n, amount, weighted) in sums.items()]
    groups.sort(key=lambda g: _group_order(group_by, g))
    return PipelineSummary(
        group_by=group_by, count=sum(g.count for g in groups),
        amount=_money(sum(v[1] for v in sums.values())),
        weighted_amount=_money(sum(v[2] for v in sums.values())), groups=groups,
    )


# ---------------------------------------------------------------- reads: activities and notes


@tools.tool(examples=[{"type": "task", "overdue": True, "sort_order": "asc"}])
def search_activities(
    ctx: ToolContext,
    type: Annotated[ActivityType | None, Field(description="Only calls, meetings or tasks.")] = None,
    status: Annotated[Literal["open", "planned", "completed"] | None, Field(
        description="open: tasks not done; planned: future meetings; completed: done.")] = None,
    overdue: Annotated[bool, Field(description="Only open tasks whose due time has passed.")] = False,
    owner_id: OwnerF = None,
    account_id: AccountF = None,
    contact_id: ContactF = None,
    opportunity_id: OpportunityF = None,
    lead_id: LeadF = None,
    scheduled_after: Annotated[DateTimeArg | None, Field(description="Only activities scheduled (tasks: due) at or after this time (ISO 8601, UTC).")] = None,
    scheduled_before: Annotated[DateTimeArg | None, Field(description="Only activities scheduled (tasks: due) strictly before this time (ISO 8601, UTC).")] = None,
    sort_order: Annotated[Literal["asc", "desc"], Field(description="By scheduled time: asc (oldest first) or desc.")] = "desc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> ActivityPage:
    """Find calls, meetings and tasks, e.g. a rep's overdue tasks or the activity history of a deal.

    account_id also matches activities on the account's contacts and opportunities.
    """
    _check_range(scheduled_after, scheduled_before, "scheduled_after/scheduled_before")
    clauses = _equal((Activity.type, type), (Activity.status, status), (Activity.owner_id, owner_id),
                     (Activity.account_id, account_id), (Activity.contact_id, contact_id),
                     (Activity.opportunity_id, opportunity_id), (Activity.lead_id, lead_id))
    if overdue:
        clauses += [Activity.type == "task", Activity.status == "open", Activity.scheduled_at < ctx.now]
    if scheduled_after is not None:
        clauses.append(Activity.scheduled_at >= scheduled_after)
    if scheduled_before is not None:
        clauses.append(Activity.scheduled_at < scheduled_before)
    key = Activity.scheduled_at.asc() if sort_order == "asc" else Activity.scheduled_at.desc()
    statement = select(Activity).where(*clauses).order_by(key, Activity.id.asc())
    rows, total, following = fetch_page(ctx.db, statement, page, per_page)
    return ActivityPage(activities=[_activity_out(a) for a in rows], total=total, page=page, next_page=following)


@tools.tool(examples=[{"per_page": 10}])
def list_notes(
    ctx: ToolContext,
    account_id: Annotated[int | None, Field(description="Notes on this account, its contacts and its opportunities.")] = None,
    contact_id: Annotated[int | None, Field(description="Notes on this contact.")] = None,
    opportunity_id: Annotated[int | None, Field(description="Notes on this opportunity.")] = None,
    lead_id: Annotated[int | None, Field(description="Notes on this lead.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> NotePage:
    """List notes, newest first, optionally only those on one record."""
    clauses = _equal((Note.account_id, account_id), (Note.contact_id, contact_id),
                     (Note.opportunity_id, opportunity_id), (Note.lead_id, lead_id))
    statement = select(Note).where(*clauses).order_by(Note.created_at.desc(), Note.id.desc())
    rows, total, following = fetch_page(ctx.db, statement, page, per_page)
    return NotePage(notes=[_note_out(n) for n in rows], total=total, page=page, next_page=following)


# ---------------------------------------------------------------- writes: records


@tools.tool(writes=True, examples=[{"name": "Blue Harbor Analytics", "industry": "software", "domain": "blueharbor.io", "country": "United States"}])
def create_account(
    ctx: ToolContext,
    name: Annotated[str, Field(min_length=1, max_length=120, description="Company name (unique).")],
    industry: Annotated[str | None, Field(max_length=40, description="Industry, e.g. 'retail'.")] = None,
    domain: Annotated[str | None, Field(max_length=120, description="Web domain, e.g. 'example.com'.")] = None,
    type: Annotated[Literal["prospect", "partner"], Field(description="Account type; accounts become customers when a deal is won.")] = "prospect",
    city: Annotated[str | None, Field(max_length=80, description="City.")] = None,
    country: Annotated[str | None, Field(max_length=80, description="Country.")] = None,
    annual_revenue: Annotated[int | None, Field(ge=0, description="Yearly revenue in USD.")] = None,
    employee_count: Annotated[int | None, Field(ge=0, description="Number of employees.")] = None,
    owner_id: OwnerArg = None,
) -> AccountOut:
    """Create an account (a company you sell to)."""
    existing = ctx.db.scalar(select(Account).where(func.lower(Account.name) == name.strip().lower()))
    if existing is not None:
        raise InvalidArgumentError(f"an account named {existing.name!r} already exists (account {existing.id})")
    account = Account(
        name=name.strip(), domain=domain, industry=industry.lower() if industry else None, type=type,
        city=city, country=country, annual_revenue=annual_revenue, employee_count=employee_count,
        owner=_owner(ctx, owner_id), created_at=ctx.now, updated_at=ctx.now,
    )
    ctx.db.add(account)
    ctx.db.flush()
    return _account_out(account)


@tools.tool(writes=True, examples=[{"first_name": "Dana", "last_name": "Reyes", "email": "dana.reyes@matthewsrogers.com", "account_id": 16, "title": "IT Director"}])
def create_contact(
    ctx: ToolContext,
    first_name: Annotated[Name, Field(description="First name.")],
    last_name: Annotated[Name, Field(description="Last name.")],
    email: Email,
    account_id: Annotated[int, Field(description="The account (company) the contact works at.")],
    title: Annotated[str | None, Field(max_length=120, description="Job title.")] = None,
    phone: Annotated[str | None, Field(max_length=32, description="Phone number.")] = None,
    owner_id: OwnerArg = None,
) -> ContactOut:
    """Create a contact at an account. A person who is an open lead must be converted with convert_lead instead."""
    email = email.strip().lower()
    account = _account(ctx, account_id)
    existing = _contact_by_email(ctx, email)
    if existing is not None:
        raise InvalidArgumentError(f"a contact with email {email} already exists (contact {existing.id})")
    lead = _open_lead_by_email(ctx, email)
    if lead is not None:
        raise ForbiddenError(f"{email} belongs to open lead {lead.id}; convert it with convert_lead so its "
                             "history is kept")
    contact = Contact(
        external_id=_person_id(ctx, email), first_name=first_name, last_name=last_name, email=email,
        phone=phone, title=title, account=account, owner=_owner(ctx, owner_id), lead_source=None,
        created_at=ctx.now, updated_at=ctx.now,
    )
    ctx.db.add(contact)
    ctx.db.flush()
    return _contact_out(contact)


@tools.tool(writes=True, examples=[{"first_name": "Omar", "last_name": "Haddad", "email": "omar.haddad@bluelake.example.com", "company": "Blue Lake Foods", "source": "event", "rating": "hot"}])
def create_lead(
    ctx: ToolContext,
    first_name: Annotated[Name, Field(description="First name.")],
    last_name: Annotated[Name, Field(description="Last name.")],
    email: Email,
    company: Annotated[str, Field(min_length=1, max_length=120, description="The lead's company name.")],
    title: Annotated[str | None, Field(max_length=120, description="Job title.")] = None,
    phone: Annotated[str | None, Field(max_length=32, description="Phone number.")] = None,
    industry: Annotated[str | None, Field(max_length=40, description="The company's industry.")] = None,
    source: Annotated[LeadSource, Field(description="Where the lead came from.")] = "web",
    rating: Annotated[LeadRating, Field(description="How promising the lead is.")] = "warm",
    owner_id: OwnerArg = None,
) -> LeadOut:
    """Create a lead (status new): a prospective buyer who is not a contact yet."""
    email = email.strip().lower()
    contact = _contact_by_email(ctx, email)
    if contact is not None:
        raise InvalidArgumentError(f"{email} is already contact {contact.id} at {contact.account.name}")
    lead = _open_lead_by_email(ctx, email)
    if lead is not None:
        raise InvalidArgumentError(f"{email} is already open lead {lead.id}")
    lead = Lead(
        external_id=_person_id(ctx, email), first_name=first_name, last_name=last_name, email=email,
        phone=phone, title=title, company=company.strip(), industry=industry.lower() if industry else None,
        status="new", source=source, rating=rating, owner=_owner(ctx, owner_id), converted_at=None,
        converted_contact_id=None, converted_account_id=None, converted_opportunity_id=None,
        created_at=ctx.now, updated_at=ctx.now,
    )
    ctx.db.add(lead)
    ctx.db.flush()
    return _lead_out(lead)


@tools.tool(writes=True, examples=[{"lead_id": 196, "status": "working", "rating": "hot"}])
def update_lead(
    ctx: ToolContext,
    lead_id: LeadIdArg,
    status: Annotated[Literal["working", "nurturing", "unqualified"] | None, Field(
        description="New status; to convert a lead use convert_lead.")] = None,
    rating: Annotated[LeadRating | None, Field(description="New rating.")] = None,
    title: Annotated[str | None, Field(min_length=1, max_length=120, description="New job title.")] = None,
    phone: Annotated[str | None, Field(min_length=1, max_length=32, description="New phone number.")] = None,
) -> LeadOut:
    """Change an open lead's status, rating, title or phone (only the fields given). Converted leads are read-only."""
    lead = _lead(ctx, lead_id)
    if all(v is None for v in (status, rating, title, phone)):
        raise InvalidArgumentError("give at least one of status, rating, title, phone")
    _check_lead_open(lead, "update it")
    if status is not None:
        lead.status = status
    if rating is not None:
        lead.rating = rating
    if title is not None:
        lead.title = title
    if phone is not None:
        lead.phone = phone
    lead.updated_at = ctx.now
    ctx.db.flush()
    return _lead_out(lead)


def _conversion_account(ctx: ToolContext, lead: Lead, account_id: int | None, owner: User) -> tuple[Account, bool]:
    """The account a converted lead joins: the one given, the one named like its company, or a new one."""
    if account_id is not None:
        return _account(ctx, account_id), False
    existing = ctx.db.scalar(select(Account).where(func.lower(Account.name) == lead.company.lower()))
    if existing is not None:
        return existing, False
    account = Account(
        name=lead.company, domain=lead.email.split("@")[1], industry=lead.industry, type="prospect",
        city=None, country=None, annual_revenue=None, employee_count=None, owner=owner,
        created_at=ctx.now, updated_at=ctx.now,
    )
    ctx.db.add(account)
    return account, True


@tools.tool(writes=True, examples=[
    {"lead_id": 183},
    {"lead_id": 184, "create_opportunity": True, "opportunity_amount": 25000, "opportunity_close_date": "2026-02-27"},
])
def convert_lead(
    ctx: ToolContext,
    lead_id: LeadIdArg,
    account_id: Annotated[int | None, Field(
        description="Existing account to attach the new contact to. If omitted, the account whose name equals "
                    "the lead's company (case-insensitive) is used, or a new account is created.")] = None,
    create_opportunity: Annotated[bool, Field(description="Also create an opportunity (stage Prospecting) for the account.")] = False,
    opportunity_name: Annotated[str | None, Field(min_length=1, max_length=200, description="Opportunity name; defaults to '<account name> - New business'.")] = None,
    opportunity_amount: Annotated[Amount | None, Field(description="Opportunity amount in USD; required with create_opportunity.")] = None,
    opportunity_close_date: Annotated[DateTimeArg | None, Field(description="Expected close date (ISO 8601, today or later); required with create_opportunity.")] = None,
    owner_id: Annotated[int | None, Field(description="Owner of the new contact (and account and opportunity); defaults to the lead's owner.")] = None,
) -> ConversionResult:
    """Convert an open lead into a contact at an account (existing or new), optionally with an opportunity.

    The lead is marked converted (it cannot be converted twice) and its activities and notes are
    attached to the new contact.
    """
    lead = _lead(ctx, lead_id)
    _check_lead_open(lead, "convert it again")
    if lead.status == "unqualified":
        raise ForbiddenError(f"lead {lead_id} is unqualified; set its status to working with update_lead "
                             "before converting it")
    existing = _contact_by_email(ctx, lead.email)
    if existing is not None:
        raise ForbiddenError(f"{lead.email} is already contact {existing.id}; mark the lead unqualified instead")
    given = [opportunity_name, opportunity_amount, opportunity_close_date]
    if not create_opportunity and any(v is not None for v in given):
        raise InvalidArgumentError("opportunity_* arguments need create_opportunity=true")
    if create_opportunity and (opportunity_amount is None or opportunity_close_date is None):
        raise InvalidArgumentError("create_opportunity needs opportunity_amount and opportunity_close_date")
    owner = _owner(ctx, lead.owner_id if owner_id is None else owner_id)
    account, created = _conversion_account(ctx, lead, account_id, owner)
    contact = Contact(
        external_id=lead.external_id, first_name=lead.first_name, last_name=lead.last_name, email=lead.email,
        phone=lead.phone, title=lead.title, account=account, owner=owner, lead_source=lead.source,
        created_at=ctx.now, updated_at=ctx.now,
    )
    ctx.db.add(contact)
    ctx.db.flush()
    opportunity = None
    if create_opportunity and opportunity_amount is not None and opportunity_close_date is not None:
        opportunity = _new_opportunity(
            ctx, account, owner, opportunity_name or f"{account.name} - New business", opportunity_amount,
            opportunity_close_date, "Prospecting", contact, "new_business", lead.source)
    lead.status, lead.converted_at, lead.updated_at = "converted", ctx.now, ctx.now
    lead.converted_contact_id, lead.converted_account_id = contact.id, account.id
    lead.converted_opportunity_id = opportunity.id if opportunity else None
    for row in [*ctx.db.scalars(select(Activity).where(Activity.lead_id == lead.id)),
                *ctx.db.scalars(select(Note).where(Note.lead_id == lead.id))]:
        row.contact_id, row.account_id = contact.id, account.id
    ctx.db.flush()
    return ConversionResult(
        lead=_lead_out(lead), contact=_contact_out(contact), account=_account_out(account),
        account_created=created, opportunity=_opportunity_out(opportunity) if opportunity else None,
    )


# ---------------------------------------------------------------- writes: deals


def _contact_of_account(ctx: ToolContext, contact_id: int, account: Account) -> Contact:
    contact = _contact(ctx, contact_id)
    if contact.account_id != account.id:
        raise InvalidArgumentError(f"contact {contact_id} works at {contact.account.name} (account "
                                   f"{contact.account_id}), not at {account.name} (account {account.id})")
    return contact


@tools.tool(writes=True, examples=[{"account_id": 16, "name": "Matthews-Rogers - Analytics add-on", "amount": 12000, "close_date": "2026-03-31", "contact_id": 160, "type": "upsell"}])
def create_opportunity(
    ctx: ToolContext,
    account_id: Annotated[int, Field(description="The account the deal is with.")],
    name: Annotated[str, Field(min_length=1, max_length=200, description="Opportunity name, e.g. '<account> - Analytics add-on'.")],
    amount: Amount,
    close_date: Annotated[DateTimeArg, Field(description="Expected close date (ISO 8601, today or later).")],
    stage: Annotated[OpenStage, Field(description="Starting stage; its default probability is applied.")] = "Prospecting",
    contact_id: Annotated[int | None, Field(description="Primary contact; must work at the account.")] = None,
    type: Annotated[OpportunityType, Field(description="Kind of deal.")] = "new_business",
    lead_source: Annotated[LeadSource | None, Field(description="Where the deal came from.")] = None,
    owner_id: OwnerArg = None,
) -> OpportunityOut:
    """Create an open opportunity (deal) for an account."""
    account = _account(ctx, account_id)
    contact = _contact_of_account(ctx, contact_id, account) if contact_id is not None else None
    opp = _new_opportunity(ctx, account, _owner(ctx, owner_id), name, amount, close_date, stage, contact,
                           type, lead_source)
    ctx.db.flush()
    return _opportunity_out(opp)


@tools.tool(writes=True, examples=[{"opportunity_id": 358, "amount": 9500, "next_step": "Schedule a technical demo"}])
def update_opportunity(
    ctx: ToolContext,
    opportunity_id: OpportunityIdArg,
    name: Annotated[str | None, Field(min_length=1, max_length=200, description="New name.")] = None,
    amount: Annotated[Amount | None, Field(description="New amount in USD.")] = None,
    close_date: Annotated[DateTimeArg | None, Field(description="New expected close date (ISO 8601, today or later).")] = None,
    probability: Annotated[int | None, Field(ge=0, le=100, description="Win probability override in percent; stage changes reset it.")] = None,
    next_step: Annotated[str | None, Field(min_length=1, max_length=200, description="The next step to move the deal on.")] = None,
    contact_id: Annotated[int | None, Field(description="New primary contact; must work at the account.")] = None,
) -> OpportunityOut:
    """Change an open opportunity's name, amount, close date, probability, next step or contact.

    To change the stage use change_opportunity_stage; closed opportunities cannot be changed.
    """
    opp = _opportunity(ctx, opportunity_id)
    if all(v is None for v in (name, amount, close_date, probability, next_step, contact_id)):
        raise InvalidArgumentError("give at least one field to change")
    _check_opportunity_open(opp, "update it")
    if contact_id is not None:
        opp.contact_id = _contact_of_account(ctx, contact_id, opp.account).id
    if close_date is not None:
        _check_future(ctx, close_date, "close_date")
        opp.close_date = close_date
    if name is not None:
        opp.name = name
    if amount is not None:
        opp.amount = _money(amount)
    if probability is not None:
        opp.probability = probability
    if next_step is not None:
        opp.next_step = next_step
    opp.updated_at = ctx.now
    ctx.db.flush()
    return _opportunity_out(opp)


@tools.tool(writes=True, examples=[
    {"opportunity_id": 358, "stage": "Proposal"},
    {"opportunity_id": 318, "stage": "Closed Lost", "loss_reason": "competitor"},
])
def change_opportunity_stage(
    ctx: ToolContext,
    opportunity_id: OpportunityIdArg,
    stage: Annotated[Stage, Field(description="The new stage.")],
    loss_reason: Annotated[LossReason | None, Field(description="Why the deal was lost; required for Closed Lost.")] = None,
) -> OpportunityDetail:
    """Move an open opportunity to another stage; the probability becomes the stage's default.

    Stages and probabilities: Prospecting 10%, Qualification 20%, Proposal 50%, Negotiation 75%,
    Closed Won 100%, Closed Lost 0%. Closing (won or lost) sets close_date to now and is final;
    winning makes a prospect account a customer.
    """
    opp = _opportunity(ctx, opportunity_id)
    _check_opportunity_open(opp, "change its stage")
    if stage == opp.stage:
        raise InvalidArgumentError(f"opportunity {opportunity_id} is already in stage {stage}")
    if (stage == "Closed Lost") != (loss_reason is not None):
        raise InvalidArgumentError("loss_reason is required for Closed Lost and only allowed there")
    previous = opp.stage
    opp.stage, opp.probability, opp.updated_at = stage, STAGE_PROBABILITY[stage], ctx.now
    if stage in CLOSED_STAGES:
        opp.close_date, opp.loss_reason, opp.next_step = ctx.now, loss_reason, None
    if stage == "Closed Won" and opp.account.type == "prospect":
        opp.account.type, opp.account.updated_at = "customer", ctx.now
    _add_stage_change(ctx, opp, previous)
    ctx.db.flush()
    return _opportunity_detail(ctx, opp)


# ---------------------------------------------------------------- writes: activities, notes, owners


def _activity_links(
    ctx: ToolContext, account_id: int | None, contact_id: int | None, opportunity_id: int | None,
    lead_id: int | None,
) -> dict[str, int | None]:
    """The record columns of a new activity, checked to agree on one account (or one open lead)."""
    if lead_id is not None:
        if any(v is not None for v in (account_id, contact_id, opportunity_id)):
            raise InvalidArgumentError("a lead activity cannot also name an account, contact or opportunity")
        _check_lead_open(_lead(ctx, lead_id), "log activities on it")
        return {"account_id": None, "contact_id": None, "opportunity_id": None, "lead_id": lead_id}
    accounts = []
    if opportunity_id is not None:
        accounts.append(_opportunity(ctx, opportunity_id).account_id)
    if contact_id is not None:
        accounts.append(_contact(ctx, contact_id).account_id)
    if account_id is not None:
        accounts.append(_account(ctx, account_id).id)
    if not accounts:
        raise InvalidArgumentError("name the record: account_id, contact_id, opportunity_id or lead_id")
    if len(set(accounts)) > 1:
        raise InvalidArgumentError(f"the records given belong to different accounts ({sorted(set(accounts))})")
    return {"account_id": accounts[0], "contact_id": contact_id, "opportunity_id": opportunity_id, "lead_id": None}


def _activity_status(
    ctx: ToolContext, type: str, when: datetime | None, duration: int | None, outcome: str | None,
    priority: str | None,
) -> tuple[datetime, str]:
    """The scheduled time and status of a new activity, after checking the type's fields."""
    if type != "call" and outcome is not None:
        raise InvalidArgumentError("outcome is only for calls")
    if type != "task" and priority is not None:
        raise InvalidArgumentError("priority is only for tasks")
    if type == "task":
        if when is None:
            raise InvalidArgumentError("a task needs scheduled_at: its due time")
        if duration is not None:
            raise InvalidArgumentError("duration_minutes is only for calls and meetings")
        return when, "open"
    when = ctx.now if when is None else when
    if type == "call" and when > ctx.now:
        raise InvalidArgumentError("calls are logged after they happen; for a future call create a task")
    return when, "planned" if when > ctx.now else "completed"


@tools.tool(writes=True, examples=[
    {"type": "call", "subject": "Discovery call", "contact_id": 160, "opportunity_id": 358, "duration_minutes": 30, "outcome": "connected"},
    {"type": "task", "subject": "Send pricing sheet", "lead_id": 196, "scheduled_at": "2025-11-20T15:00:00Z", "priority": "high"},
])
def log_activity(
    ctx: ToolContext,
    type: Annotated[ActivityType, Field(description="call or meeting (logged, or planned if a meeting is in the future), or task (a to-do).")],
    subject: Annotated[str, Field(min_length=1, max_length=200, description="Short summary.")],
    description: Annotated[Body | None, Field(description="Details or minutes.")] = None,
    scheduled_at: Annotated[DateTimeArg | None, Field(description="Calls and meetings: start time (default now; calls cannot be in the future). Tasks: due time (required). ISO 8601, UTC.")] = None,
    duration_minutes: Annotated[int | None, Field(ge=1, le=1440, description="Length of a call or meeting in minutes.")] = None,
    outcome: Annotated[Literal["connected", "left_voicemail", "no_answer"] | None, Field(description="Calls only; default connected.")] = None,
    priority: Annotated[Literal["low", "normal", "high"] | None, Field(description="Tasks only; default normal.")] = None,
    account_id: Annotated[int | None, Field(description="The account it is about.")] = None,
    contact_id: Annotated[int | None, Field(description="The contact it is with.")] = None,
    opportunity_id: Annotated[int | None, Field(description="The opportunity it is about.")] = None,
    lead_id: Annotated[int | None, Field(description="The open lead it is about (not combinable with the others).")] = None,
    owner_id: OwnerArg = None,
) -> ActivityOut:
    """Log a call or meeting, or create a task, on an account, contact, opportunity or open lead.

    The account is filled in from the contact or opportunity; all records given must belong to it.
    """
    links = _activity_links(ctx, account_id, contact_id, opportunity_id, lead_id)
    when, status = _activity_status(ctx, type, scheduled_at, duration_minutes, outcome, priority)
    owner = _owner(ctx, owner_id)
    activity = Activity(
        type=type, subject=subject, description=description, status=status,
        priority=(priority or "normal") if type == "task" else None,
        outcome=(outcome or "connected") if type == "call" else None, scheduled_at=when,
        duration_minutes=duration_minutes,
        completed_at=when if status == "completed" else None, owner_id=owner.id, created_at=ctx.now, **links,
    )
    ctx.db.add(activity)
    ctx.db.flush()
    return _activity_out(activity)


@tools.tool(writes=True, examples=[{"activity_id": 1443, "description": "Proposal sent by email."}])
def complete_task(
    ctx: ToolContext,
    activity_id: Annotated[int, Field(description="The task's activity id.")],
    description: Annotated[Body | None, Field(description="What was done; replaces the task's description.")] = None,
) -> ActivityOut:
    """Mark an open task as completed now."""
    task = get_or_raise(ctx, Activity, activity_id, "activity", ACTIVITY_HINT)
    if task.type != "task":
        raise ForbiddenError(f"activity {activity_id} is a {task.type}, not a task; only tasks can be completed")
    if task.status == "completed":
        raise ForbiddenError(f"task {activity_id} was already completed at {task.completed_at:%Y-%m-%dT%H:%M:%SZ}")
    task.status, task.completed_at = "completed", ctx.now
    if description is not None:
        task.description = description
    ctx.db.flush()
    return _activity_out(task)


def _record(ctx: ToolContext, record_type: str, record_id: int) -> Account | Contact | Lead | Opportunity:
    getters: dict[str, Callable[[ToolContext, int], Account | Contact | Lead | Opportunity]] = {
        "account": _account, "contact": _contact, "lead": _lead, "opportunity": _opportunity,
    }
    return getters[record_type](ctx, record_id)


@tools.tool(writes=True, examples=[{"record_type": "opportunity", "record_id": 358, "body": "Champion confirmed budget for Q1."}])
def add_note(
    ctx: ToolContext,
    record_type: Annotated[RecordType, Field(description="The kind of record the note is on.")],
    record_id: IdArg,
    body: Annotated[str, Field(min_length=1, max_length=5000, description="The note text.")],
) -> NoteOut:
    """Add a note, written by you, to an account, contact, open lead or opportunity."""
    record = _record(ctx, record_type, record_id)
    if isinstance(record, Lead):
        _check_lead_open(record, "add notes to it")
    note = Note(
        body=body, author_id=ACTING_USER_ID, created_at=ctx.now,
        account_id=record.id if isinstance(record, Account) else (
            record.account_id if isinstance(record, Contact | Opportunity) else None),
        contact_id=record.id if isinstance(record, Contact) else None,
        opportunity_id=record.id if isinstance(record, Opportunity) else None,
        lead_id=record.id if isinstance(record, Lead) else None,
    )
    ctx.db.add(note)
    ctx.db.flush()
    return _note_out(note)


def _reassign_related(ctx: ToolContext, account: Account, owner: User) -> tuple[int, int]:
    contacts = list(ctx.db.scalars(select(Contact).where(Contact.account_id == account.id,
                                                         Contact.owner_id != owner.id)))
    deals = list(ctx.db.scalars(select(Opportunity).where(
        Opportunity.account_id == account.id, Opportunity.stage.in_(OPEN_STAGES), Opportunity.owner_id != owner.id)))
    for row in [*contacts, *deals]:
        row.owner, row.updated_at = owner, ctx.now
    return len(contacts), len(deals)


@tools.tool(writes=True, examples=[{"record_type": "account", "record_id": 16, "owner_id": 2, "include_related": True}])
def reassign_owner(
    ctx: ToolContext,
    record_type: Annotated[RecordType, Field(description="The kind of record to reassign.")],
    record_id: IdArg,
    owner_id: Annotated[int, Field(description="User id of the new owner (an active user, see list_users).")],
    include_related: Annotated[bool, Field(description="Accounts only: also give the account's contacts and open opportunities to the new owner.")] = False,
) -> ReassignResult:
    """Give an account, contact, open lead or open opportunity to another owner."""
    record = _record(ctx, record_type, record_id)
    owner = _owner(ctx, owner_id)
    if include_related and not isinstance(record, Account):
        raise InvalidArgumentError("include_related only applies to accounts")
    if isinstance(record, Lead):
        _check_lead_open(record, "reassign it")
    if isinstance(record, Opportunity):
        _check_opportunity_open(record, "reassign it")
    previous = record.owner_id
    if previous == owner.id and not include_related:
        raise InvalidArgumentError(f"{record_type} {record_id} is already owned by user {owner.id} ({owner.name})")
    record.owner, record.updated_at = owner, ctx.now
    contacts, deals = _reassign_related(ctx, record, owner) if isinstance(record, Account) and include_related else (0, 0)
    ctx.db.flush()
    return ReassignResult(record_type=record_type, record_id=record_id, previous_owner_id=previous,
                          owner_id=owner.id, owner_name=owner.name, reassigned_contacts=contacts,
                          reassigned_opportunities=deals)
