"""The CRM tools: find and read records, report on the pipeline, and work leads and deals."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from mcpgym.servers.crm.models import (
    CLOSED_STAGES,
    OPEN_STAGES,
    STAGE_PROBABILITY,
    STAGES,
    Account,
    Activity,
    Base,
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
from mcpgym.servers.kernel.lookup import missing, row_or_raise
from mcpgym.servers.kernel.query import search_words
from mcpgym.servers.kernel.sql import Row, contains_pattern
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

ACCOUNT_COLUMNS = "accounts.*, owners.name AS owner_name"
ACCOUNT_FROM = "FROM accounts JOIN users AS owners ON owners.id = accounts.owner_id"
CONTACT_COLUMNS = "contacts.*, accounts.name AS account_name, owners.name AS owner_name"
CONTACT_FROM = ("FROM contacts JOIN accounts ON accounts.id = contacts.account_id "
                "JOIN users AS owners ON owners.id = contacts.owner_id")
LEAD_COLUMNS = "leads.*, owners.name AS owner_name"
LEAD_FROM = "FROM leads JOIN users AS owners ON owners.id = leads.owner_id"
OPPORTUNITY_COLUMNS = "opportunities.*, accounts.name AS account_name, owners.name AS owner_name"
OPPORTUNITY_FROM = ("FROM opportunities JOIN accounts ON accounts.id = opportunities.account_id "
                    "JOIN users AS owners ON owners.id = opportunities.owner_id")
"""What a record's output shows: its row and the names of the rows it points at."""

DEAL_STATUS_STAGES = {"open": OPEN_STAGES, "won": ("Closed Won",), "lost": ("Closed Lost",), "closed": CLOSED_STAGES}
OPPORTUNITY_SORT_KEYS = {name: f"opportunities.{name}" for name in ("close_date", "amount", "created_at", "name", "id")}


@dataclass
class Conditions:
    """The conditions of one statement's WHERE clause, and their positional parameters."""

    clauses: list[str] = field(default_factory=list)
    params: list[Any] = field(default_factory=list)

    def add(self, clause: str, *params: Any) -> None:
        self.clauses.append(clause)
        self.params.extend(params)

    def equal(self, column: str, value: object) -> None:
        """`column = value`, unless `value` is None."""
        if value is not None:
            self.add(f"{column} = ?", value)

    def one_of(self, column: str, values: list[str] | tuple[str, ...]) -> None:
        """`column` is one of `values`."""
        self.add(f"{column} IN (SELECT value FROM json_each(?))", values)

    def contains(self, text: str, *columns: str) -> None:
        """Any of `columns` contains `text` (trimmed), case-insensitively; `%` and `_` are literal."""
        pattern = contains_pattern(text.strip().lower())
        self.add("(" + " OR ".join(f"lower({column}) LIKE ? ESCAPE '/'" for column in columns) + ")",
                 *[pattern] * len(columns))

    @property
    def where(self) -> str:
        """`WHERE` and the conditions joined by AND; empty without conditions."""
        return f"WHERE {' AND '.join(self.clauses)}" if self.clauses else ""


def _money(value: float) -> float:
    return round(value, 2)


def _full_name(row: Row) -> str:
    return f"{row['first_name']} {row['last_name']}"


def _contact_out(row: Row) -> ContactOut:
    return ContactOut(**row, name=_full_name(row))


def _lead_out(row: Row) -> LeadOut:
    return LeadOut(**row, name=_full_name(row))


def _weighted(row: Row) -> float:
    """An opportunity's amount times its probability, in USD rounded to cents."""
    return _money(row["amount"] * row["probability"] / 100)


def _opportunity_out(row: Row) -> OpportunityOut:
    return OpportunityOut(**row, weighted_amount=_weighted(row))


def _opportunity_detail(ctx: ToolContext, row: Row) -> OpportunityDetail:
    """An opportunity row (with its `contact_name`) and its stage history, oldest first."""
    history = ctx.sql.all("SELECT from_stage, to_stage, changed_by_id, changed_at FROM stage_changes "
                          "WHERE opportunity_id = ? ORDER BY changed_at, id", [row["id"]], StageChange)
    return OpportunityDetail(**row, weighted_amount=_weighted(row),
                             stage_history=[StageChangeOut(**change) for change in history])


def _by_id(ctx: ToolContext, select: str, model: type[Base], entity_id: int, label: str, hint: str) -> Row:
    """The row of `select` (`SELECT ... FROM` the model's table) whose id is `entity_id`, or not_found."""
    row = ctx.sql.one(f"{select} WHERE {model.__tablename__}.id = ?", [entity_id], model)
    if row is None:
        raise missing(label, entity_id, hint)
    return row


def _account(ctx: ToolContext, account_id: int) -> Row:
    return _by_id(ctx, f"SELECT {ACCOUNT_COLUMNS} {ACCOUNT_FROM}", Account, account_id, "account", ACCOUNT_HINT)


def _contact(ctx: ToolContext, contact_id: int) -> Row:
    return _by_id(ctx, f"SELECT {CONTACT_COLUMNS} {CONTACT_FROM}", Contact, contact_id, "contact", CONTACT_HINT)


def _lead(ctx: ToolContext, lead_id: int) -> Row:
    return _by_id(ctx, f"SELECT {LEAD_COLUMNS} {LEAD_FROM}", Lead, lead_id, "lead", LEAD_HINT)


def _opportunity(ctx: ToolContext, opportunity_id: int) -> Row:
    """An opportunity, with its primary contact's name in `contact_name` (None without one)."""
    select = (f"SELECT {OPPORTUNITY_COLUMNS}, contacts.first_name || ' ' || contacts.last_name AS contact_name "
              f"{OPPORTUNITY_FROM} LEFT JOIN contacts ON contacts.id = opportunities.contact_id")
    return _by_id(ctx, select, Opportunity, opportunity_id, "opportunity", OPPORTUNITY_HINT)


def _owner(ctx: ToolContext, user_id: int | None) -> Row:
    """The user who will own a record: must exist and be active."""
    user = row_or_raise(ctx, User, ACTING_USER_ID if user_id is None else user_id, "user", USER_HINT)
    if not user["active"]:
        raise ForbiddenError(f"user {user['id']} ({user['name']}) is inactive and cannot own records; "
                             "choose an active user from list_users")
    return user


RECORDS: dict[str, tuple[type[Base], Callable[[ToolContext, int], Row]]] = {
    "account": (Account, _account), "contact": (Contact, _contact), "lead": (Lead, _lead),
    "opportunity": (Opportunity, _opportunity),
}
"""Each record type's model and reader."""


def _check_lead_open(lead: Row, action: str) -> None:
    if lead["status"] == "converted":
        raise ForbiddenError(f"lead {lead['id']} was converted into contact {lead['converted_contact_id']} and is "
                             f"read-only; cannot {action}. Work with the contact instead (get_contact)")


def _check_opportunity_open(o: Row, action: str) -> None:
    if o["stage"] in CLOSED_STAGES:
        raise ForbiddenError(f"opportunity {o['id']} is {o['stage']} (closed on {o['close_date']:%Y-%m-%d}) and "
                             f"closed opportunities are final; cannot {action}. Use create_opportunity for new business")


def _check_future(ctx: ToolContext, when: datetime, name: str) -> None:
    if when.date() < ctx.now.date():
        raise InvalidArgumentError(f"{name} {when:%Y-%m-%d} is in the past; today is {ctx.now:%Y-%m-%d}")


def _check_range(low: datetime | None, high: datetime | None, name: str) -> None:
    if low is not None and high is not None and low >= high:
        raise InvalidArgumentError(f"{name}: the lower bound must be below the upper bound")


def _person_id(ctx: ToolContext, email: str) -> str | None:
    """The world person id of `email`, so records of the same person agree across servers."""
    return next((p.id for p in ctx.world.people if p.email == email), None)


def _contact_by_email(ctx: ToolContext, email: str) -> Row | None:
    return ctx.sql.one(f"SELECT {CONTACT_COLUMNS} {CONTACT_FROM} WHERE lower(contacts.email) = ? "
                       "ORDER BY contacts.id LIMIT 1", [email.strip().lower()], Contact)


def _open_lead_by_email(ctx: ToolContext, email: str) -> int | None:
    """The id of the first open (not converted) lead with `email`, case-insensitively."""
    return ctx.sql.scalar("SELECT id FROM leads WHERE lower(email) = ? AND status != 'converted' ORDER BY id LIMIT 1",
                          [email.strip().lower()])


def _account_named(ctx: ToolContext, name: str) -> Row | None:
    """The first account whose name equals `name`, case-insensitively."""
    return ctx.sql.one(f"SELECT {ACCOUNT_COLUMNS} {ACCOUNT_FROM} WHERE lower(accounts.name) = ? "
                       "ORDER BY accounts.id LIMIT 1", [name.lower()], Account)


def _insert(ctx: ToolContext, model: type[Base], row: Row) -> Row:
    """Insert `row`, which names every column of the model's table but `id`; it gets its new id."""
    row["id"] = ctx.sql.insert_row(model, row)
    return row


def _add_stage_change(ctx: ToolContext, opportunity: Row, from_stage: str | None) -> None:
    _insert(ctx, StageChange, {"opportunity_id": opportunity["id"], "from_stage": from_stage,
                               "to_stage": opportunity["stage"], "changed_by_id": ACTING_USER_ID,
                               "changed_at": ctx.now})


def _new_opportunity(
    ctx: ToolContext, account: Row, owner: Row, name: str, amount: float, close_date: datetime,
    stage: str, contact: Row | None, type: str, lead_source: str | None,
) -> Row:
    """Insert an open opportunity and its first stage change; the row has its account's and owner's names."""
    _check_future(ctx, close_date, "close_date")
    opportunity = _insert(ctx, Opportunity, {
        "name": name, "account_id": account["id"], "contact_id": contact["id"] if contact else None,
        "owner_id": owner["id"], "type": type, "stage": stage, "probability": STAGE_PROBABILITY[stage],
        "amount": _money(amount), "close_date": close_date, "lead_source": lead_source, "next_step": None,
        "loss_reason": None, "created_at": ctx.now, "updated_at": ctx.now,
    })
    _add_stage_change(ctx, opportunity, None)
    return {**opportunity, "account_name": account["name"], "owner_name": owner["name"]}


def _deal_conditions(
    query: str | None = None, stage: list[str] | None = None, status: str | None = None,
    owner_id: int | None = None, account_id: int | None = None, contact_id: int | None = None,
    type: str | None = None, close_after: datetime | None = None, close_before: datetime | None = None,
    amount_min: float | None = None, amount_max: float | None = None,
    created_after: datetime | None = None, created_before: datetime | None = None,
) -> Conditions:
    """The opportunity filters as conditions on `opportunities`."""
    _check_range(close_after, close_before, "close_after/close_before")
    _check_range(created_after, created_before, "created_after/created_before")
    if amount_min is not None and amount_max is not None and amount_min > amount_max:
        raise InvalidArgumentError("amount_min must not exceed amount_max")
    where = Conditions()
    for word in search_words(query):
        where.contains(word, "opportunities.name")
    if stage:
        where.one_of("opportunities.stage", stage)
    if status:
        where.one_of("opportunities.stage", DEAL_STATUS_STAGES[status])
    for column, value in (("owner_id", owner_id), ("account_id", account_id), ("contact_id", contact_id),
                          ("type", type)):
        where.equal(f"opportunities.{column}", value)
    for condition, bound in (
        ("opportunities.close_date >= ?", close_after), ("opportunities.close_date < ?", close_before),
        ("opportunities.created_at >= ?", created_after), ("opportunities.created_at < ?", created_before),
        ("opportunities.amount >= ?", amount_min), ("opportunities.amount <= ?", amount_max),
    ):
        if bound is not None:
            where.add(condition, bound)
    return where


# ---------------------------------------------------------------- reads: people and companies


@tools.tool(examples=[{"role": "account_executive", "active": True}])
def list_users(
    ctx: ToolContext,
    role: Annotated[Literal["sales_manager", "account_executive", "sales_development_rep"] | None,
                    Field(description="Only users with this role.")] = None,
    active: Annotated[bool | None, Field(description="True: only active users; False: only users who left.")] = None,
) -> UserList:
    """List the CRM users (the sales team, who own records), sorted by id. You are user 1."""
    where = Conditions()
    if role:
        where.add("role = ?", role)
    where.equal("active", active)
    return UserList(users=[UserOut(**u) for u in ctx.sql.all(f"SELECT * FROM users {where.where} ORDER BY id",
                                                              where.params, User)])


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
    where = Conditions()
    if query:
        where.contains(query, "accounts.name", "accounts.domain")
    if industry:
        where.add("lower(accounts.industry) = ?", industry.strip().lower())
    if type:
        where.add("accounts.type = ?", type)
    where.equal("accounts.owner_id", owner_id)
    if country:
        where.add("lower(accounts.country) = ?", country.strip().lower())
    found = ctx.sql.page(ACCOUNT_COLUMNS, f"{ACCOUNT_FROM} {where.where} ORDER BY accounts.name, accounts.id",
                         where.params, page, per_page, Account)
    return AccountPage(accounts=[AccountOut(**a) for a in found.rows], total=found.total, page=page,
                       next_page=found.next_page)


@tools.tool(examples=[{"account_id": 16}])
def get_account(ctx: ToolContext, account_id: AccountIdArg) -> AccountDetail:
    """Get an account with its number of contacts, its open pipeline and its all-time won amount (USD)."""
    deals = "FROM opportunities WHERE opportunities.account_id = accounts.id AND opportunities.stage"
    account = ctx.sql.one(
        f"SELECT {ACCOUNT_COLUMNS}, "
        "(SELECT count(*) FROM contacts WHERE contacts.account_id = accounts.id) AS contact_count, "
        f"(SELECT count(*) {deals} IN (SELECT value FROM json_each(?))) AS open_opportunity_count, "
        f"(SELECT coalesce(sum(opportunities.amount), 0.0) {deals} IN (SELECT value FROM json_each(?))) AS open_amount, "
        f"(SELECT coalesce(sum(opportunities.amount), 0.0) {deals} = 'Closed Won') AS won_amount "
        f"{ACCOUNT_FROM} WHERE accounts.id = ?", [OPEN_STAGES, OPEN_STAGES, account_id], Account)
    if account is None:
        raise missing("account", account_id, ACCOUNT_HINT)
    return AccountDetail(**account, open_pipeline_amount=_money(account["open_amount"]),
                         closed_won_amount=_money(account["won_amount"]))


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
    where = Conditions()
    if query:
        where.contains(query, "contacts.first_name || ' ' || contacts.last_name", "contacts.email")
    where.equal("contacts.account_id", account_id)
    where.equal("contacts.owner_id", owner_id)
    if title:
        where.contains(title, "contacts.title")
    found = ctx.sql.page(CONTACT_COLUMNS, f"{CONTACT_FROM} {where.where} "
                         "ORDER BY contacts.last_name, contacts.first_name, contacts.id",
                         where.params, page, per_page, Contact)
    return ContactPage(contacts=[_contact_out(c) for c in found.rows], total=found.total, page=page,
                       next_page=found.next_page)


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
    where = Conditions()
    if query:
        where.contains(query, "leads.first_name || ' ' || leads.last_name", "leads.email", "leads.company")
    if status:
        where.one_of("leads.status", status)
    where.equal("leads.source", source)
    where.equal("leads.rating", rating)
    where.equal("leads.owner_id", owner_id)
    if created_after is not None:
        where.add("leads.created_at >= ?", created_after)
    if created_before is not None:
        where.add("leads.created_at < ?", created_before)
    found = ctx.sql.page(LEAD_COLUMNS, f"{LEAD_FROM} {where.where} ORDER BY leads.created_at DESC, leads.id DESC",
                         where.params, page, per_page, Lead)
    return LeadPage(leads=[_lead_out(lead) for lead in found.rows], total=found.total, page=page,
                    next_page=found.next_page)


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
    where = _deal_conditions(query, stage, status, owner_id, account_id, contact_id, type, close_after,
                             close_before, amount_min, amount_max, created_after, created_before)
    order = f"{OPPORTUNITY_SORT_KEYS[sort_by]} {'ASC' if sort_order == 'asc' else 'DESC'}, opportunities.id ASC"
    found = ctx.sql.page(OPPORTUNITY_COLUMNS, f"{OPPORTUNITY_FROM} {where.where} ORDER BY {order}", where.params,
                         page, per_page, Opportunity)
    amount = ctx.sql.scalar(f"SELECT coalesce(sum(opportunities.amount), 0.0) FROM opportunities {where.where}",
                            where.params)
    return OpportunityPage(opportunities=[_opportunity_out(o) for o in found.rows], total=found.total,
                           total_amount=_money(amount), page=page, next_page=found.next_page)


@tools.tool(examples=[{"opportunity_id": 358}])
def get_opportunity(ctx: ToolContext, opportunity_id: OpportunityIdArg) -> OpportunityDetail:
    """Get an opportunity with its primary contact's name and its stage history."""
    return _opportunity_detail(ctx, _opportunity(ctx, opportunity_id))


@dataclass(frozen=True)
class PipelineGrouping:
    """How pipeline_summary groups opportunities: the columns (and joins) it reads, and each
    row's group key and label."""

    columns: str
    joins: str
    key: Callable[[Row], tuple[str, str]]


PIPELINE_GROUPINGS = {
    "stage": PipelineGrouping("opportunities.stage", "", lambda o: (o["stage"], o["stage"])),
    "owner": PipelineGrouping("opportunities.owner_id, owners.name AS owner_name",
                              "JOIN users AS owners ON owners.id = opportunities.owner_id",
                              lambda o: (str(o["owner_id"]), o["owner_name"])),
    "account": PipelineGrouping("opportunities.account_id, accounts.name AS account_name",
                                "JOIN accounts ON accounts.id = opportunities.account_id",
                                lambda o: (str(o["account_id"]), o["account_name"])),
    "close_month": PipelineGrouping("opportunities.close_date", "",
                                    lambda o: (f"{o['close_date']:%Y-%m}", f"{o['close_date']:%Y-%m}")),
    "type": PipelineGrouping("opportunities.type", "", lambda o: (o["type"], o["type"])),
}


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
    where = _deal_conditions(None, stage, status, owner_id, account_id, None, type, close_after,
                             close_before, amount_min, amount_max, created_after, created_before)
    grouping = PIPELINE_GROUPINGS[group_by]
    sums: dict[tuple[str, str], list[float]] = {}
    for o in ctx.sql.all(f"SELECT opportunities.amount, opportunities.probability, {grouping.columns} "
                         f"FROM opportunities {grouping.joins} {where.where} ORDER BY opportunities.id",
                         where.params, Opportunity):
        row = sums.setdefault(grouping.key(o), [0, 0.0, 0.0])
        row[0] += 1
        row[1] += o["amount"]
        row[2] += o["amount"] * o["probability"] / 100
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
    where = Conditions()
    for column, value in (("type", type), ("status", status), ("owner_id", owner_id), ("account_id", account_id),
                          ("contact_id", contact_id), ("opportunity_id", opportunity_id), ("lead_id", lead_id)):
        where.equal(column, value)
    if overdue:
        where.add("type = 'task' AND status = 'open' AND scheduled_at < ?", ctx.now)
    if scheduled_after is not None:
        where.add("scheduled_at >= ?", scheduled_after)
    if scheduled_before is not None:
        where.add("scheduled_at < ?", scheduled_before)
    order = f"scheduled_at {'ASC' if sort_order == 'asc' else 'DESC'}, id ASC"
    found = ctx.sql.page("*", f"FROM activities {where.where} ORDER BY {order}", where.params, page, per_page,
                         Activity)
    return ActivityPage(activities=[ActivityOut(**a) for a in found.rows], total=found.total, page=page,
                        next_page=found.next_page)


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
    where = Conditions()
    for column, value in (("account_id", account_id), ("contact_id", contact_id),
                          ("opportunity_id", opportunity_id), ("lead_id", lead_id)):
        where.equal(column, value)
    found = ctx.sql.page("*", f"FROM notes {where.where} ORDER BY created_at DESC, id DESC", where.params, page,
                         per_page, Note)
    return NotePage(notes=[NoteOut(**n) for n in found.rows], total=found.total, page=page,
                    next_page=found.next_page)


# ---------------------------------------------------------------- writes: records


@tools.tool(writes=True, destructive=False, idempotent=True, title="Create an account", examples=[{"name": "Blue Harbor Analytics", "industry": "software", "domain": "blueharbor.io", "country": "United States"}])
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
    existing = _account_named(ctx, name.strip())
    if existing is not None:
        raise InvalidArgumentError(f"an account named {existing['name']!r} already exists (account {existing['id']})")
    owner = _owner(ctx, owner_id)
    account = _insert(ctx, Account, {
        "external_id": None, "name": name.strip(), "domain": domain, "industry": industry.lower() if industry else None,
        "type": type, "city": city, "country": country, "annual_revenue": annual_revenue,
        "employee_count": employee_count, "owner_id": owner["id"], "created_at": ctx.now, "updated_at": ctx.now,
    })
    return AccountOut(**account, owner_name=owner["name"])


@tools.tool(writes=True, destructive=False, idempotent=True, title="Create a contact", examples=[{"first_name": "Dana", "last_name": "Reyes", "email": "dana.reyes@matthewsrogers.com", "account_id": 16, "title": "IT Director"}])
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
        raise InvalidArgumentError(f"a contact with email {email} already exists (contact {existing['id']})")
    lead_id = _open_lead_by_email(ctx, email)
    if lead_id is not None:
        raise ForbiddenError(f"{email} belongs to open lead {lead_id}; convert it with convert_lead so its "
                             "history is kept")
    person_id = _person_id(ctx, email)
    owner = _owner(ctx, owner_id)
    contact = _insert(ctx, Contact, {
        "external_id": person_id, "first_name": first_name, "last_name": last_name, "email": email,
        "phone": phone, "title": title, "account_id": account["id"], "owner_id": owner["id"], "lead_source": None,
        "created_at": ctx.now, "updated_at": ctx.now,
    })
    return _contact_out({**contact, "account_name": account["name"], "owner_name": owner["name"]})


@tools.tool(writes=True, destructive=False, idempotent=True, title="Create a lead", examples=[{"first_name": "Omar", "last_name": "Haddad", "email": "omar.haddad@bluelake.example.com", "company": "Blue Lake Foods", "source": "event", "rating": "hot"}])
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
        raise InvalidArgumentError(f"{email} is already contact {contact['id']} at {contact['account_name']}")
    lead_id = _open_lead_by_email(ctx, email)
    if lead_id is not None:
        raise InvalidArgumentError(f"{email} is already open lead {lead_id}")
    person_id = _person_id(ctx, email)
    owner = _owner(ctx, owner_id)
    lead = _insert(ctx, Lead, {
        "external_id": person_id, "first_name": first_name, "last_name": last_name, "email": email,
        "phone": phone, "title": title, "company": company.strip(), "industry": industry.lower() if industry else None,
        "status": "new", "source": source, "rating": rating, "owner_id": owner["id"], "converted_at": None,
        "converted_contact_id": None, "converted_account_id": None, "converted_opportunity_id": None,
        "created_at": ctx.now, "updated_at": ctx.now,
    })
    return _lead_out({**lead, "owner_name": owner["name"]})


@tools.tool(writes=True, destructive=True, idempotent=True, title="Update a lead", examples=[{"lead_id": 196, "status": "working", "rating": "hot"}])
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
    before = _lead(ctx, lead_id)
    if all(v is None for v in (status, rating, title, phone)):
        raise InvalidArgumentError("give at least one of status, rating, title, phone")
    _check_lead_open(before, "update it")
    given = {"status": status, "rating": rating, "title": title, "phone": phone}
    lead = {**before, **{column: value for column, value in given.items() if value is not None}, "updated_at": ctx.now}
    ctx.sql.update_row(Lead, before, lead)
    return _lead_out(lead)


def _conversion_account(ctx: ToolContext, lead: Row, account_id: int | None, owner: Row) -> tuple[Row, bool]:
    """The account a converted lead joins: the one given, the one named like its company, or a new one."""
    if account_id is not None:
        return _account(ctx, account_id), False
    existing = _account_named(ctx, lead["company"])
    if existing is not None:
        return existing, False
    account = _insert(ctx, Account, {
        "external_id": None, "name": lead["company"], "domain": lead["email"].partition("@")[2] or None,
        "industry": lead["industry"], "type": "prospect", "city": None, "country": None, "annual_revenue": None,
        "employee_count": None, "owner_id": owner["id"], "created_at": ctx.now, "updated_at": ctx.now,
    })
    return {**account, "owner_name": owner["name"]}, True


@tools.tool(writes=True, destructive=True, idempotent=True, title="Convert a lead", examples=[
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
    before = _lead(ctx, lead_id)
    _check_lead_open(before, "convert it again")
    if before["status"] == "unqualified":
        raise ForbiddenError(f"lead {lead_id} is unqualified; set its status to working with update_lead "
                             "before converting it")
    existing = _contact_by_email(ctx, before["email"])
    if existing is not None:
        raise ForbiddenError(f"{before['email']} is already contact {existing['id']}; "
                             "mark the lead unqualified instead")
    given = [opportunity_name, opportunity_amount, opportunity_close_date]
    if not create_opportunity and any(v is not None for v in given):
        raise InvalidArgumentError("opportunity_* arguments need create_opportunity=true")
    if create_opportunity and (opportunity_amount is None or opportunity_close_date is None):
        raise InvalidArgumentError("create_opportunity needs opportunity_amount and opportunity_close_date")
    owner = _owner(ctx, before["owner_id"] if owner_id is None else owner_id)
    account, created = _conversion_account(ctx, before, account_id, owner)
    contact = _insert(ctx, Contact, {
        "external_id": before["external_id"], "first_name": before["first_name"], "last_name": before["last_name"],
        "email": before["email"], "phone": before["phone"], "title": before["title"], "account_id": account["id"],
        "owner_id": owner["id"], "lead_source": before["source"], "created_at": ctx.now, "updated_at": ctx.now,
    }) | {"account_name": account["name"], "owner_name": owner["name"]}
    opportunity = None
    if create_opportunity and opportunity_amount is not None and opportunity_close_date is not None:
        opportunity = _new_opportunity(
            ctx, account, owner, opportunity_name or f"{account['name']} - New business", opportunity_amount,
            opportunity_close_date, "Prospecting", contact, "new_business", before["source"])
    lead = {**before, "status": "converted", "converted_at": ctx.now, "updated_at": ctx.now,
            "converted_contact_id": contact["id"], "converted_account_id": account["id"],
            "converted_opportunity_id": opportunity["id"] if opportunity else None}
    ctx.sql.update_row(Lead, before, lead)
    for table in ("activities", "notes"):
        ctx.sql.execute(f"UPDATE {table} SET contact_id = ?, account_id = ? WHERE lead_id = ?",
                        [contact["id"], account["id"], lead_id])
    return ConversionResult(
        lead=_lead_out(lead), contact=_contact_out(contact), account=AccountOut(**account), account_created=created,
        opportunity=_opportunity_out(opportunity) if opportunity else None,
    )


# ---------------------------------------------------------------- writes: deals


def _contact_of_account(ctx: ToolContext, contact_id: int, account_id: int, account_name: str) -> Row:
    contact = _contact(ctx, contact_id)
    if contact["account_id"] != account_id:
        raise InvalidArgumentError(f"contact {contact_id} works at {contact['account_name']} (account "
                                   f"{contact['account_id']}), not at {account_name} (account {account_id})")
    return contact


@tools.tool(writes=True, destructive=False, idempotent=False, title="Create an opportunity", examples=[{"account_id": 16, "name": "Matthews-Rogers - Analytics add-on", "amount": 12000, "close_date": "2026-03-31", "contact_id": 160, "type": "upsell"}])
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
    contact = _contact_of_account(ctx, contact_id, account["id"], account["name"]) if contact_id is not None else None
    opportunity = _new_opportunity(ctx, account, _owner(ctx, owner_id), name, amount, close_date, stage, contact,
                                   type, lead_source)
    return _opportunity_out(opportunity)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Update an opportunity", examples=[{"opportunity_id": 358, "amount": 9500, "next_step": "Schedule a technical demo"}])
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
    before = _opportunity(ctx, opportunity_id)
    if all(v is None for v in (name, amount, close_date, probability, next_step, contact_id)):
        raise InvalidArgumentError("give at least one field to change")
    _check_opportunity_open(before, "update it")
    opportunity = dict(before)
    if contact_id is not None:
        contact = _contact_of_account(ctx, contact_id, before["account_id"], before["account_name"])
        opportunity["contact_id"] = contact["id"]
    if close_date is not None:
        _check_future(ctx, close_date, "close_date")
        opportunity["close_date"] = close_date
    if name is not None:
        opportunity["name"] = name
    if amount is not None:
        opportunity["amount"] = _money(amount)
    if probability is not None:
        opportunity["probability"] = probability
    if next_step is not None:
        opportunity["next_step"] = next_step
    opportunity["updated_at"] = ctx.now
    ctx.sql.update_row(Opportunity, before, opportunity)
    return _opportunity_out(opportunity)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Move an opportunity to a stage", examples=[
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
    before = _opportunity(ctx, opportunity_id)
    _check_opportunity_open(before, "change its stage")
    if stage == before["stage"]:
        raise InvalidArgumentError(f"opportunity {opportunity_id} is already in stage {stage}")
    if (stage == "Closed Lost") != (loss_reason is not None):
        raise InvalidArgumentError("loss_reason is required for Closed Lost and only allowed there")
    opportunity = {**before, "stage": stage, "probability": STAGE_PROBABILITY[stage], "updated_at": ctx.now}
    if stage in CLOSED_STAGES:
        opportunity.update(close_date=ctx.now, loss_reason=loss_reason, next_step=None)
    ctx.sql.update_row(Opportunity, before, opportunity)
    if stage == "Closed Won":
        ctx.sql.execute("UPDATE accounts SET type = 'customer', updated_at = ? WHERE id = ? AND type = 'prospect'",
                        [ctx.now, opportunity["account_id"]])
    _add_stage_change(ctx, opportunity, before["stage"])
    return _opportunity_detail(ctx, opportunity)


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
        accounts.append(_opportunity(ctx, opportunity_id)["account_id"])
    if contact_id is not None:
        accounts.append(_contact(ctx, contact_id)["account_id"])
    if account_id is not None:
        accounts.append(_account(ctx, account_id)["id"])
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


@tools.tool(writes=True, destructive=False, idempotent=False, title="Log an activity", examples=[
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
    activity = _insert(ctx, Activity, {
        "type": type, "subject": subject, "description": description, "status": status,
        "priority": (priority or "normal") if type == "task" else None,
        "outcome": (outcome or "connected") if type == "call" else None, "scheduled_at": when,
        "duration_minutes": duration_minutes, "completed_at": when if status == "completed" else None,
        "owner_id": owner["id"], "created_at": ctx.now, **links,
    })
    return ActivityOut(**activity)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Complete a CRM task", examples=[{"activity_id": 1443, "description": "Proposal sent by email."}])
def complete_task(
    ctx: ToolContext,
    activity_id: Annotated[int, Field(description="The task's activity id.")],
    description: Annotated[Body | None, Field(description="What was done; replaces the task's description.")] = None,
) -> ActivityOut:
    """Mark an open task as completed now."""
    before = row_or_raise(ctx, Activity, activity_id, "activity", ACTIVITY_HINT)
    if before["type"] != "task":
        raise ForbiddenError(f"activity {activity_id} is a {before['type']}, not a task; only tasks can be completed")
    if before["status"] == "completed":
        raise ForbiddenError(f"task {activity_id} was already completed at {before['completed_at']:%Y-%m-%dT%H:%M:%SZ}")
    task = {**before, "status": "completed", "completed_at": ctx.now}
    if description is not None:
        task["description"] = description
    ctx.sql.update_row(Activity, before, task)
    return ActivityOut(**task)


@tools.tool(writes=True, destructive=False, idempotent=False, title="Add a note to a record", examples=[{"record_type": "opportunity", "record_id": 358, "body": "Champion confirmed budget for Q1."}])
def add_note(
    ctx: ToolContext,
    record_type: Annotated[RecordType, Field(description="The kind of record the note is on.")],
    record_id: IdArg,
    body: Annotated[str, Field(min_length=1, max_length=5000, description="The note text.")],
) -> NoteOut:
    """Add a note, written by you, to an account, contact, open lead or opportunity."""
    _, read = RECORDS[record_type]
    record = read(ctx, record_id)
    if record_type == "lead":
        _check_lead_open(record, "add notes to it")
    note = _insert(ctx, Note, {
        "body": body, "author_id": ACTING_USER_ID, "created_at": ctx.now,
        "account_id": record["id"] if record_type == "account" else (
            record["account_id"] if record_type in ("contact", "opportunity") else None),
        "contact_id": record["id"] if record_type == "contact" else None,
        "opportunity_id": record["id"] if record_type == "opportunity" else None,
        "lead_id": record["id"] if record_type == "lead" else None,
    })
    return NoteOut(**note)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Reassign a record's owner", examples=[{"record_type": "account", "record_id": 16, "owner_id": 2, "include_related": True}])
def reassign_owner(
    ctx: ToolContext,
    record_type: Annotated[RecordType, Field(description="The kind of record to reassign.")],
    record_id: IdArg,
    owner_id: Annotated[int, Field(description="User id of the new owner (an active user, see list_users).")],
    include_related: Annotated[bool, Field(description="Accounts only: also give the account's contacts and open opportunities to the new owner.")] = False,
) -> ReassignResult:
    """Give an account, contact, open lead or open opportunity to another owner."""
    model, read = RECORDS[record_type]
    before = read(ctx, record_id)
    owner = _owner(ctx, owner_id)
    if include_related and record_type != "account":
        raise InvalidArgumentError("include_related only applies to accounts")
    if record_type == "lead":
        _check_lead_open(before, "reassign it")
    if record_type == "opportunity":
        _check_opportunity_open(before, "reassign it")
    previous = before["owner_id"]
    if previous == owner["id"] and not include_related:
        raise InvalidArgumentError(f"{record_type} {record_id} is already owned by user {owner['id']} ({owner['name']})")
    ctx.sql.update_row(model, before, {**before, "owner_id": owner["id"], "updated_at": ctx.now})
    contacts = deals = 0
    if include_related:
        moved = "SET owner_id = ?, updated_at = ? WHERE account_id = ? AND owner_id != ?"
        params = [owner["id"], ctx.now, record_id, owner["id"]]
        contacts = ctx.sql.execute(f"UPDATE contacts {moved}", params)
        deals = ctx.sql.execute(f"UPDATE opportunities {moved} AND stage IN (SELECT value FROM json_each(?))",
                                [*params, OPEN_STAGES])
    return ReassignResult(record_type=record_type, record_id=record_id, previous_owner_id=previous,
                          owner_id=owner["id"], owner_name=owner["name"], reassigned_contacts=contacts,
                          reassigned_opportunities=deals)
