"""The customer-care tools of a mobile carrier: find customers, accounts and lines, read
plans, add-ons, usage, bills, payments, outages, diagnostics and the troubleshooting log, and
change plans, roaming, add-ons, device settings and line status, take payments and log
tickets, within the carrier's rules."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import Body, Page, PerPage, Timestamp
from mcpgym.servers.kernel.lookup import missing
from mcpgym.servers.kernel.query import search_words
from mcpgym.servers.kernel.sql import Row, contains_pattern
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry
from mcpgym.servers.telecom.data import HOME_COUNTRY, ZONES
from mcpgym.servers.telecom.models import (
    DEFAULT_APN,
    MAX_DATA_PACKS_PER_CYCLE,
    Account,
    Addon,
    Bill,
    BillItem,
    Customer,
    Device,
    Line,
    LineAddon,
    Outage,
    Payment,
    Plan,
    Ticket,
    UsageDay,
)
from mcpgym.servers.telecom.seed import cycle_start, next_cycle

tools = ToolRegistry()

LineId = Annotated[int, Field(description="The line's id (search_lines finds a line by its phone number).")]
AccountId = Annotated[int, Field(description="The billing account's id (search_accounts finds it by account number, name or email).")]
Standing = Literal["good", "past_due", "suspended"]
TicketCategory = Literal["no_data", "no_service", "slow_data", "roaming", "device", "billing", "sim"]
Country = Annotated[str, Field(min_length=2, max_length=40, description="A destination country in English, e.g. 'France'.")]

LINE_HINT = "Use search_lines to find a line by phone number, or get_account for an account's lines."
ACCOUNT_HINT = "Use search_accounts (account number, name or email) or get_customer_by_email."
BILL_HINT = "list_bills lists an account's bills."
ADDON_HINT = "get_line lists a line's add-ons with their ids."
COUNTRY_ZONE = {country.lower(): zone for zone, names in ZONES.items() for country in names}


# ---------------------------------------------------------------- result models


class AccountBrief(BaseModel):
    id: int
    account_number: str
    standing: str
    line_count: int


class CustomerOut(BaseModel):
    id: int
    name: str
    email: str
    phone: str = Field(description="The contact number on file (not necessarily one of their lines).")
    organization_name: str = Field(description="The company the customer works for.")
    city: str
    crm_contact_id: int | None = Field(description="The same person's contact id in the CRM, when it knows them.")
    customer_since: Timestamp
    accounts: list[AccountBrief]


class AccountSummary(BaseModel):
    id: int
    account_number: str
    customer_id: int
    customer_name: str
    customer_email: str
    standing: str = Field(description="good, past_due (a bill unpaid after its due date) or suspended (lines suspended for non-payment).")
    autopay: bool
    line_count: int
    balance_cents: int = Field(description="Everything billed and not yet paid.")
    past_due_cents: int = Field(description="The unpaid part of bills past their due date.")
    opened_at: Timestamp


class AccountPage(BaseModel):
    accounts: list[AccountSummary]
    total: int
    page: int
    next_page: int | None


class LineSummary(BaseModel):
    id: int
    phone_number: str
    label: str = Field(description="What the customer calls the line, e.g. 'Work phone'.")
    account_id: int
    plan_code: str
    plan_name: str
    status: str = Field(description="active or suspended.")
    suspension_reason: str | None = Field(description="lost_stolen, customer_request or non_payment.")
    roaming_enabled: bool
    pending_plan_code: str | None = Field(description="A plan change scheduled for the next billing cycle.")
    pending_plan_on: date | None


class LinePage(BaseModel):
    lines: list[LineSummary]
    total: int
    page: int
    next_page: int | None


class AccountDetail(AccountSummary):
    currency: str = "USD"
    current_cycle_start: date
    next_cycle_start: date = Field(description="When the current billing cycle ends and scheduled plan changes apply.")
    lines: list[LineSummary]


class PlanOut(BaseModel):
    id: int
    code: str
    name: str
    data_gb: int | None = Field(description="Monthly high-speed data; null for unlimited.")
    price_cents: int = Field(description="Monthly price.")
    roaming_zones: list[int] = Field(description="Roaming zones included without a pass (1: Canada and Mexico, 2: Europe, 3: rest of the world).")
    hotspot_gb: int
    intl_calling: bool = Field(description="International calling from the US included.")
    available: bool = Field(description="False for a retired plan nobody can switch to.")


class PlanList(BaseModel):
    plans: list[PlanOut]


class AddonOut(BaseModel):
    id: int
    code: str
    name: str
    kind: str = Field(description="data_pack, intl_calling or roaming_pass.")
    data_mb: int
    price_cents: int = Field(description="Per cycle; per day for a roaming pass.")
    zone: int | None
    countries: list[str] = Field(description="For a roaming pass: the countries of its zone.")


class AddonList(BaseModel):
    addons: list[AddonOut]


class LineAddonOut(BaseModel):
    id: int
    line_id: int
    code: str
    name: str
    kind: str
    status: str = Field(description="active, scheduled (starts later), expired or removed.")
    starts_on: date
    ends_on: date | None = Field(description="The last day covered; null for international calling until removed.")
    country: str | None
    price_cents: int
    purchased_at: Timestamp


class DeviceOut(BaseModel):
    make: str
    model: str
    imei: str
    sim_type: str = Field(description="physical or esim.")
    sim_status: str = Field(description="active, pin_locked or not_detected.")
    apn: str
    mobile_data: bool
    airplane_mode: bool
    data_roaming: bool = Field(description="The handset's data-roaming switch.")
    network_mode: str = Field(description="5g_auto, lte_only or 3g_only.")
    current_country: str = Field(description="Where the device last registered.")


class LineDetail(LineSummary):
    account_number: str
    account_standing: str
    customer_name: str
    plan: PlanOut
    pending_plan_name: str | None
    suspended_at: Timestamp | None
    activated_at: Timestamp
    device: DeviceOut
    addons: list[LineAddonOut] = Field(description="Active and scheduled add-ons and passes, this cycle's data packs included.")
    data_packs_this_cycle: int


class UsageDayOut(BaseModel):
    day: date
    data_mb: int
    roaming_mb: int
    minutes: int
    texts: int


class UsageReport(BaseModel):
    line_id: int
    phone_number: str
    cycle_start: date
    cycle_end: date
    plan_data_mb: int | None = Field(description="The plan's high-speed data; null when unlimited.")
    data_pack_mb: int = Field(description="Data packs bought for this cycle.")
    used_mb: int = Field(description="Data used at home in the cycle (roaming aside).")
    remaining_mb: int | None = Field(description="High-speed data left (never below 0); null when unlimited.")
    throttled: bool = Field(description="High-speed data used up: speeds are reduced until the next cycle.")
    roaming_mb: int
    minutes: int
    texts: int
    peak_day: date | None
    peak_day_mb: int
    days: list[UsageDayOut] = Field(description="Day by day, when asked for.")


class BillSummary(BaseModel):
    id: int
    account_id: int
    period_start: date
    period_end: date
    issued_on: date
    due_on: date
    total_cents: int
    paid_cents: int
    balance_cents: int
    status: str = Field(description="open (not yet due), paid or overdue.")


class BillPage(BaseModel):
    bills: list[BillSummary]
    total: int
    page: int
    next_page: int | None


class BillItemOut(BaseModel):
    kind: str = Field(description="plan, data_pack, intl_calling, roaming_pass, fee or tax.")
    description: str
    amount_cents: int
    line_id: int | None
    phone_number: str | None


class BillDetail(BillSummary):
    account_number: str
    items: list[BillItemOut]


class PaymentOut(BaseModel):
    id: int
    account_id: int
    amount_cents: int
    method: str = Field(description="card, bank or autopay.")
    paid_at: Timestamp


class PaymentPage(BaseModel):
    payments: list[PaymentOut]
    total: int
    page: int
    next_page: int | None


class PaymentResult(BaseModel):
    payment: PaymentOut
    bills_paid_off: list[int] = Field(description="Bills this payment settled in full.")
    balance_cents: int
    past_due_cents: int
    standing: str


class OutageOut(BaseModel):
    id: int
    area: str
    service: str = Field(description="data, voice or all.")
    description: str
    started_at: Timestamp
    resolved_at: Timestamp | None
    active: bool


class OutageList(BaseModel):
    outages: list[OutageOut]
    total: int


class Diagnostics(BaseModel):
    line_id: int
    phone_number: str
    line_status: str
    device: DeviceOut
    abroad: bool
    roaming_zone: int | None = Field(description="The zone of the country the device is in, when abroad.")
    roaming_covered: bool | None = Field(description="Abroad: the plan includes the zone or an active pass covers it.")
    remaining_mb: int | None
    outages: list[OutageOut] = Field(description="Active outages in the customer's city.")
    issues: list[str] = Field(description="What stops the line working, as codes: line_suspended, sim_pin_locked, sim_not_detected, airplane_mode_on, mobile_data_off, wrong_apn, network_mode_3g, roaming_disabled, device_data_roaming_off, no_roaming_coverage, data_exhausted, area_outage.")


class TicketOut(BaseModel):
    id: int
    line_id: int
    phone_number: str
    category: str
    status: str = Field(description="open or resolved.")
    notes: str
    opened_at: Timestamp
    resolved_at: Timestamp | None


class TicketPage(BaseModel):
    tickets: list[TicketOut]
    total: int
    page: int
    next_page: int | None


class PlanChange(BaseModel):
    line: LineSummary
    old_plan_code: str
    new_plan_code: str
    effective: str = Field(description="immediately or next_cycle.")
    effective_on: date


# ---------------------------------------------------------------- reading helpers

ACCOUNT_COLUMNS = (
    "accounts.id, accounts.account_number, accounts.customer_id, customers.name AS customer_name, "
    "customers.email AS customer_email, accounts.standing, accounts.autopay, accounts.opened_at, "
    "(SELECT count(*) FROM lines WHERE lines.account_id = accounts.id) AS line_count, "
    "(SELECT coalesce(sum(total_cents - paid_cents), 0) FROM bills WHERE bills.account_id = accounts.id) AS balance_cents, "
    "(SELECT coalesce(sum(total_cents - paid_cents), 0) FROM bills WHERE bills.account_id = accounts.id AND bills.due_on < ?) AS past_due_cents"
)
ACCOUNT_FROM = "FROM accounts JOIN customers ON customers.id = accounts.customer_id"
LINE_COLUMNS = (
    "lines.*, plans.code AS plan_code, plans.name AS plan_name, pending.code AS pending_plan_code, "
    "pending.name AS pending_plan_name"
)
LINE_FROM = "FROM lines JOIN plans ON plans.id = lines.plan_id LEFT JOIN plans AS pending ON pending.id = lines.pending_plan_id"
ADDON_COLUMNS = "line_addons.*, addons.code, addons.name, addons.kind"
ADDON_FROM = "FROM line_addons JOIN addons ON addons.id = line_addons.addon_id"


def _today(ctx: ToolContext) -> date:
    return ctx.now.date()


def _now(ctx: ToolContext) -> datetime:
    return ctx.now.replace(microsecond=0)


def _account_row(ctx: ToolContext, account_id: int) -> Row:
    row = ctx.sql.one(f"SELECT {ACCOUNT_COLUMNS} {ACCOUNT_FROM} WHERE accounts.id = ?", [_today(ctx), account_id], Account)
    if row is None:
        raise missing("account", account_id, ACCOUNT_HINT)
    return row


def _line_row(ctx: ToolContext, line_id: int) -> Row:
    row = ctx.sql.one(
        f"SELECT {LINE_COLUMNS}, plans.price_cents AS plan_price_cents, plans.data_gb AS plan_data_gb, "
        "plans.roaming_zones AS plan_roaming_zones, plans.intl_calling AS plan_intl_calling, "
        "accounts.standing AS account_standing, accounts.account_number, "
        "(SELECT coalesce(sum(total_cents - paid_cents), 0) FROM bills WHERE bills.account_id = lines.account_id "
        f"AND bills.due_on < ?) AS past_due_cents {LINE_FROM} JOIN accounts ON accounts.id = lines.account_id "
        "WHERE lines.id = ?", [_today(ctx), line_id], Line)
    if row is None:
        raise missing("line", line_id, LINE_HINT)
    return row


def _plan_out(row: Row) -> PlanOut:
    return PlanOut(**{**row, "roaming_zones": [int(z) for z in row["roaming_zones"].split(",") if z]})


def _zones(text: str) -> set[int]:
    return {int(z) for z in text.split(",") if z}


def _data_packs(ctx: ToolContext, line_id: int, cycle: date) -> Row:
    """This cycle's data packs of a line: their count and megabytes."""
    row = ctx.sql.one(
        "SELECT count(*) AS packs, coalesce(sum(addons.data_mb), 0) AS mb FROM line_addons JOIN addons ON addons.id = line_addons.addon_id "
        "WHERE line_addons.line_id = ? AND addons.kind = 'data_pack' AND line_addons.status != 'removed' "
        "AND line_addons.starts_on >= ? AND line_addons.starts_on < ?", [line_id, cycle, next_cycle(cycle)])
    assert row is not None
    return row


def _usage(ctx: ToolContext, line: Row, back: int, with_days: bool) -> UsageReport:
    start = cycle_start(_today(ctx), back)
    end = next_cycle(start)
    days = ctx.sql.all("SELECT day, data_mb, roaming_mb, minutes, texts FROM usage_days WHERE line_id = ? AND day >= ? "
                       "AND day < ? ORDER BY day", [line["id"], start, end], UsageDay)
    packs = _data_packs(ctx, line["id"], start)
    used = sum(d["data_mb"] for d in days)
    plan_mb = None if line["plan_data_gb"] is None else line["plan_data_gb"] * 1024
    remaining = None if plan_mb is None else max(0, plan_mb + packs["mb"] - used)
    peak = max(days, key=lambda d: (d["data_mb"], -d["day"].toordinal()), default=None)
    return UsageReport(
        line_id=line["id"], phone_number=line["phone_number"], cycle_start=start, cycle_end=end - timedelta(days=1),
        plan_data_mb=plan_mb, data_pack_mb=packs["mb"], used_mb=used, remaining_mb=remaining,
        throttled=remaining == 0, roaming_mb=sum(d["roaming_mb"] for d in days), minutes=sum(d["minutes"] for d in days),
        texts=sum(d["texts"] for d in days), peak_day=peak["day"] if peak else None,
        peak_day_mb=peak["data_mb"] if peak else 0, days=[UsageDayOut(**d) for d in days] if with_days else [])


def _line_detail(ctx: ToolContext, line_id: int) -> LineDetail:
    line = _line_row(ctx, line_id)
    extra = ctx.sql.one(
        "SELECT customers.name AS customer_name FROM accounts JOIN customers ON customers.id = accounts.customer_id "
        "WHERE accounts.id = ?", [line["account_id"]])
    assert extra is not None
    plan = ctx.sql.one("SELECT * FROM plans WHERE id = ?", [line["plan_id"]], Plan)
    device = ctx.sql.one("SELECT * FROM devices WHERE line_id = ?", [line_id], Device)
    addons = ctx.sql.all(f"SELECT {ADDON_COLUMNS} {ADDON_FROM} WHERE line_addons.line_id = ? AND line_addons.status IN "
                         "('active', 'scheduled') ORDER BY line_addons.starts_on, line_addons.id", [line_id], LineAddon)
    packs = _data_packs(ctx, line_id, cycle_start(_today(ctx)))
    return LineDetail(**line, customer_name=extra["customer_name"], plan=_plan_out(plan),  # type: ignore[arg-type]
                      device=DeviceOut(**device),  # type: ignore[arg-type]
                      addons=[LineAddonOut(**a) for a in addons], data_packs_this_cycle=packs["packs"])


def _summary(ctx: ToolContext, line_id: int) -> LineSummary:
    row = ctx.sql.one(f"SELECT {LINE_COLUMNS} {LINE_FROM} WHERE lines.id = ?", [line_id], Line)
    assert row is not None
    return LineSummary(**row)


def _outage_out(row: Row, now: datetime) -> OutageOut:
    return OutageOut(**row, active=row["resolved_at"] is None and row["started_at"] <= now)


def _ticket_out(row: Row) -> TicketOut:
    return TicketOut(**row)


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


# ---------------------------------------------------------------- people and accounts


@tools.tool(title="Get a customer by email", examples=[{"email": "craig.osborne@peckllc.com"}])
def get_customer_by_email(
    ctx: ToolContext,
    email: Annotated[str, Field(min_length=3, max_length=160, description="The customer's email address (case-insensitive).")],
) -> CustomerOut:
    """Identify a caller by email: name, organisation, city and their billing accounts."""
    needle = email.strip().lower()
    row = ctx.sql.one("SELECT * FROM customers WHERE email = ?", [needle], Customer)
    if row is None:
        raise NotFoundError(f"no customer with email {needle[:160]}. Use search_accounts to search by name")
    accounts = ctx.sql.all(
        "SELECT accounts.id, accounts.account_number, accounts.standing, "
        "(SELECT count(*) FROM lines WHERE lines.account_id = accounts.id) AS line_count FROM accounts "
        "WHERE accounts.customer_id = ? ORDER BY accounts.id", [row["id"]])
    return CustomerOut(**row, customer_since=row["created_at"], accounts=[AccountBrief(**a) for a in accounts])


@tools.tool(title="Search accounts", examples=[{"query": "gomez"}, {"standing": "past_due", "per_page": 10},
                                                {"query": "BW-40210173"}])
def search_accounts(
    ctx: ToolContext,
    query: Annotated[str | None, Field(max_length=120, description="Words that must all appear in the account number, the holder's name or email (case-insensitive).")] = None,
    standing: Annotated[Standing | None, Field(description="Only accounts in this standing.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> AccountPage:
    """Find billing accounts by account number, holder name or email, or by standing; each
    with its balance and past-due amount. Sorted by holder name."""
    clauses: list[str] = []
    params: list[Any] = [_today(ctx)]
    for word in search_words(query):
        clauses.append("(lower(accounts.account_number) LIKE ? ESCAPE '/' OR lower(customers.name) LIKE ? ESCAPE '/' "
                       "OR customers.email LIKE ? ESCAPE '/')")
        params += [contains_pattern(word)] * 3
    if standing is not None:
        clauses.append("accounts.standing = ?")
        params.append(standing)
    where = " AND ".join(clauses) or "1"
    found = ctx.sql.page(ACCOUNT_COLUMNS, f"{ACCOUNT_FROM} WHERE {where} ORDER BY customers.name, accounts.id", params,
                         page, per_page, Account)
    return AccountPage(accounts=[AccountSummary(**r) for r in found.rows], total=found.total, page=page,
                       next_page=found.next_page)


@tools.tool(title="Get an account", examples=[{"account_id": 1}, {"account_id": 2}])
def get_account(ctx: ToolContext, account_id: AccountId) -> AccountDetail:
    """A billing account: holder, standing, balance and past-due amount, billing cycle dates
    and every line with its plan and status."""
    row = _account_row(ctx, account_id)
    lines = ctx.sql.all(f"SELECT {LINE_COLUMNS} {LINE_FROM} WHERE lines.account_id = ? ORDER BY lines.id", [account_id], Line)
    today = _today(ctx)
    return AccountDetail(**row, current_cycle_start=cycle_start(today), next_cycle_start=next_cycle(today),
                         lines=[LineSummary(**line) for line in lines])


# ---------------------------------------------------------------- lines, plans, add-ons


@tools.tool(title="Search lines", examples=[{"phone_number": "4702"}, {"phone_number": "+1 (212) 222-4702"}, {"status": "suspended"},
                                             {"account_id": 1}, {"plan_code": "unlimited", "roaming_enabled": True}])
def search_lines(
    ctx: ToolContext,
    phone_number: Annotated[str | None, Field(max_length=24, description="The phone number or its last digits (at least 4), in any format.")] = None,
    account_id: Annotated[int | None, Field(description="Only the lines of this account.")] = None,
    status: Annotated[Literal["active", "suspended"] | None, Field(description="Only lines with this status.")] = None,
    plan_code: Annotated[str | None, Field(max_length=24, description="Only lines on this plan (its code, e.g. 'unlimited').")] = None,
    roaming_enabled: Annotated[bool | None, Field(description="Only lines with roaming on (True) or off (False).")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> LinePage:
    """Find lines by phone number (any format, or its last digits), account, status, plan or
    roaming; sorted by phone number."""
    clauses: list[str] = []
    params: list[Any] = []
    if phone_number is not None:
        digits = _digits(phone_number)
        if len(digits) < 4:
            raise InvalidArgumentError("phone_number needs at least 4 digits")
        clauses.append("replace(replace(lines.phone_number, '+', ''), '-', '') LIKE ?")
        params.append(f"%{digits}")
    if account_id is not None:
        if ctx.sql.scalar("SELECT 1 FROM accounts WHERE id = ?", [account_id]) is None:
            raise missing("account", account_id, ACCOUNT_HINT)
        clauses.append("lines.account_id = ?")
        params.append(account_id)
    if status is not None:
        clauses.append("lines.status = ?")
        params.append(status)
    if plan_code is not None:
        clauses.append("plans.code = ?")
        params.append(plan_code.strip().lower())
    if roaming_enabled is not None:
        clauses.append("lines.roaming_enabled = ?")
        params.append(roaming_enabled)
    where = " AND ".join(clauses) or "1"
    found = ctx.sql.page(LINE_COLUMNS, f"{LINE_FROM} WHERE {where} ORDER BY lines.phone_number, lines.id", params, page,
                         per_page, Line)
    return LinePage(lines=[LineSummary(**r) for r in found.rows], total=found.total, page=page, next_page=found.next_page)


@tools.tool(title="Get a line", examples=[{"line_id": 1}, {"line_id": 40}])
def get_line(ctx: ToolContext, line_id: LineId) -> LineDetail:
    """One line in full: plan (and a change scheduled for the next cycle), status and
    suspension, roaming, the handset and its settings, active and scheduled add-ons, and the
    data packs bought this cycle."""
    return _line_detail(ctx, line_id)


@tools.tool(title="List plans", examples=[{}, {"include_retired": True}])
def list_plans(
    ctx: ToolContext,
    include_retired: Annotated[bool, Field(description="Also retired plans (kept by lines that have them, closed to switches).")] = False,
) -> PlanList:
    """The plan catalogue, cheapest first: data, price, hotspot, included roaming zones and
    international calling."""
    rows = ctx.sql.all("SELECT * FROM plans WHERE available OR ? ORDER BY price_cents, id", [include_retired], Plan)
    return PlanList(plans=[_plan_out(r) for r in rows])


@tools.tool(title="List add-ons", examples=[{}, {"kind": "data_pack"}, {"country": "France"}])
def list_addons(
    ctx: ToolContext,
    kind: Annotated[Literal["data_pack", "intl_calling", "roaming_pass"] | None, Field(description="Only add-ons of this kind.")] = None,
    country: Annotated[Country | None, Field(description="Only the roaming pass of the zone this country is in.")] = None,
) -> AddonList:
    """The add-on catalogue: data packs (for one cycle), international calling (monthly) and
    roaming day passes by zone, with the countries of each zone; a country gives its zone's pass."""
    clauses: list[str] = []
    params: list[Any] = []
    if kind is not None:
        clauses.append("kind = ?")
        params.append(kind)
    if country is not None:
        zone = COUNTRY_ZONE.get(country.strip().lower())
        if zone is None:
            raise NotFoundError(f"{country.strip()[:40]!r} is not a roaming destination (the {HOME_COUNTRY} are home); "
                                "list_addons with kind='roaming_pass' lists the zones and their countries")
        clauses.append("zone = ?")
        params.append(zone)
    where = " AND ".join(clauses) or "1"
    rows = ctx.sql.all(f"SELECT * FROM addons WHERE {where} ORDER BY kind, price_cents, id", params, Addon)
    return AddonList(addons=[AddonOut(**r, countries=list(ZONES.get(r["zone"], ()))) for r in rows])


@tools.tool(title="Get data usage", examples=[{"line_id": 1}, {"line_id": 2, "cycles_back": 1, "include_days": True}])
def get_data_usage(
    ctx: ToolContext,
    line_id: LineId,
    cycles_back: Annotated[int, Field(ge=0, le=1, description="0: the current billing cycle (this month), 1: the previous one.")] = 0,
    include_days: Annotated[bool, Field(description="Also list the usage day by day.")] = False,
) -> UsageReport:
    """A line's usage over one billing cycle: data used against the plan and this cycle's data
    packs, what is left and whether speeds are reduced, roaming data, minutes, texts and the
    heaviest day."""
    return _usage(ctx, _line_row(ctx, line_id), cycles_back, include_days)


# ---------------------------------------------------------------- bills and payments


@tools.tool(title="List bills", examples=[{"account_id": 1}, {"account_id": 2, "status": "overdue"}])
def list_bills(
    ctx: ToolContext,
    account_id: AccountId,
    status: Annotated[Literal["open", "paid", "overdue"] | None, Field(description="Only bills with this status.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> BillPage:
    """An account's monthly bills, newest first, with what was paid and what is left."""
    _account_row(ctx, account_id)
    clauses, params = ["account_id = ?"], [account_id]
    if status is not None:
        clauses.append("status = ?")
        params.append(status)  # type: ignore[arg-type]
    found = ctx.sql.page("*, total_cents - paid_cents AS balance_cents",
                         f"FROM bills WHERE {' AND '.join(clauses)} ORDER BY period_start DESC, id DESC", params, page,
                         per_page, Bill)
    return BillPage(bills=[BillSummary(**r) for r in found.rows], total=found.total, page=page, next_page=found.next_page)


@tools.tool(title="Get a bill", examples=[{"bill_id": 1}, {"bill_id": 30}])
def get_bill(ctx: ToolContext, bill_id: Annotated[int, Field(description="The bill's id (list_bills lists them).")]) -> BillDetail:
    """One bill with its line items: each line's plan and fee, add-ons, roaming passes and taxes."""
    row = ctx.sql.one("SELECT bills.*, bills.total_cents - bills.paid_cents AS balance_cents, accounts.account_number "
                      "FROM bills JOIN accounts ON accounts.id = bills.account_id WHERE bills.id = ?", [bill_id], Bill)
    if row is None:
        raise missing("bill", bill_id, BILL_HINT)
    items = ctx.sql.all("SELECT bill_items.*, lines.phone_number FROM bill_items LEFT JOIN lines ON lines.id = bill_items.line_id "
                        "WHERE bill_items.bill_id = ? ORDER BY bill_items.id", [bill_id], BillItem)
    return BillDetail(**row, items=[BillItemOut(**i) for i in items])


@tools.tool(title="List payments", examples=[{"account_id": 1}])
def list_payments(ctx: ToolContext, account_id: AccountId, page: Page = 1, per_page: PerPage = 25) -> PaymentPage:
    """An account's payments, newest first."""
    _account_row(ctx, account_id)
    found = ctx.sql.page("*", "FROM payments WHERE account_id = ? ORDER BY paid_at DESC, id DESC", [account_id], page,
                         per_page, Payment)
    return PaymentPage(payments=[PaymentOut(**r) for r in found.rows], total=found.total, page=page,
                       next_page=found.next_page)


# ---------------------------------------------------------------- troubleshooting


@tools.tool(title="Check network outages", examples=[{}, {"area": "Barnettbury", "active_only": False}])
def check_network_outages(
    ctx: ToolContext,
    area: Annotated[str | None, Field(max_length=80, description="The city (case-insensitive); all areas when left out.")] = None,
    active_only: Annotated[bool, Field(description="Only outages not yet resolved.")] = True,
) -> OutageList:
    """Network outages by area, newest first: what service is affected, since when, and
    whether it is resolved."""
    clauses: list[str] = []
    params: list[Any] = []
    if area:
        clauses.append("lower(area) = ?")
        params.append(area.strip().lower())
    if active_only:
        clauses.append("resolved_at IS NULL")
    where = " AND ".join(clauses) or "1"
    rows = ctx.sql.all(f"SELECT * FROM outages WHERE {where} ORDER BY started_at DESC, id DESC", params, Outage)
    return OutageList(outages=[_outage_out(r, ctx.now) for r in rows], total=len(rows))


@tools.tool(title="Run line diagnostics", examples=[{"line_id": 1}, {"line_id": 5}])
def run_line_diagnostics(ctx: ToolContext, line_id: LineId) -> Diagnostics:
    """Check why a line has no service or no data: line status, SIM, the handset's settings
    (airplane mode, mobile data, APN, network mode, data roaming), roaming coverage abroad,
    data left this cycle and outages in the customer's city. `issues` lists what to fix."""
    line = _line_row(ctx, line_id)
    device = ctx.sql.one("SELECT * FROM devices WHERE line_id = ?", [line_id], Device)
    assert device is not None
    today = _today(ctx)
    outages = ctx.sql.all(
        "SELECT * FROM outages WHERE resolved_at IS NULL AND lower(area) = (SELECT lower(customers.city) FROM accounts "
        "JOIN customers ON customers.id = accounts.customer_id WHERE accounts.id = ?) ORDER BY started_at DESC, id DESC",
        [line["account_id"]], Outage)
    abroad = device["current_country"] != HOME_COUNTRY
    zone = COUNTRY_ZONE.get(device["current_country"].lower()) if abroad else None
    covered: bool | None = None
    if abroad:
        covered = zone in _zones(line["plan_roaming_zones"]) or bool(ctx.sql.scalar(
            "SELECT 1 FROM line_addons JOIN addons ON addons.id = line_addons.addon_id WHERE line_addons.line_id = ? "
            "AND addons.zone = ? AND line_addons.status != 'removed' AND line_addons.starts_on <= ? AND line_addons.ends_on >= ?",
            [line_id, zone, today, today]))
    usage = _usage(ctx, line, 0, False)
    checks = [
        (line["status"] == "suspended", "line_suspended"), (device["sim_status"] == "pin_locked", "sim_pin_locked"),
        (device["sim_status"] == "not_detected", "sim_not_detected"), (device["airplane_mode"], "airplane_mode_on"),
        (not device["mobile_data"], "mobile_data_off"), (device["apn"] != DEFAULT_APN, "wrong_apn"),
        (device["network_mode"] == "3g_only", "network_mode_3g"),
        (abroad and not line["roaming_enabled"], "roaming_disabled"),
        (abroad and not device["data_roaming"], "device_data_roaming_off"),
        (abroad and covered is False, "no_roaming_coverage"), (usage.throttled, "data_exhausted"),
        (bool(outages), "area_outage"),
    ]
    return Diagnostics(line_id=line_id, phone_number=line["phone_number"], line_status=line["status"],
                       device=DeviceOut(**device), abroad=abroad, roaming_zone=zone, roaming_covered=covered,
                       remaining_mb=usage.remaining_mb, outages=[_outage_out(o, ctx.now) for o in outages],
                       issues=[code for failed, code in checks if failed])


@tools.tool(title="List troubleshooting tickets", examples=[{"line_id": 1}, {"status": "open"}, {"account_id": 3, "category": "no_data"}])
def list_tickets(
    ctx: ToolContext,
    line_id: Annotated[int | None, Field(description="Only tickets of this line.")] = None,
    account_id: Annotated[int | None, Field(description="Only tickets of this account's lines.")] = None,
    status: Annotated[Literal["open", "resolved"] | None, Field(description="Only tickets with this status.")] = None,
    category: Annotated[TicketCategory | None, Field(description="Only tickets of this category.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> TicketPage:
    """The troubleshooting log, newest first: problems reported on lines and what was done."""
    clauses: list[str] = []
    params: list[Any] = []
    if line_id is not None:
        if ctx.sql.scalar("SELECT 1 FROM lines WHERE id = ?", [line_id]) is None:
            raise missing("line", line_id, LINE_HINT)
        clauses.append("tickets.line_id = ?")
        params.append(line_id)
    if account_id is not None:
        if ctx.sql.scalar("SELECT 1 FROM accounts WHERE id = ?", [account_id]) is None:
            raise missing("account", account_id, ACCOUNT_HINT)
        clauses.append("lines.account_id = ?")
        params.append(account_id)
    for column, value in (("tickets.status", status), ("tickets.category", category)):
        if value is not None:
            clauses.append(f"{column} = ?")
            params.append(value)
    where = " AND ".join(clauses) or "1"
    found = ctx.sql.page("tickets.*, lines.phone_number",
                         f"FROM tickets JOIN lines ON lines.id = tickets.line_id WHERE {where} "
                         "ORDER BY tickets.opened_at DESC, tickets.id DESC", params, page, per_page, Ticket)
    return TicketPage(tickets=[_ticket_out(r) for r in found.rows], total=found.total, page=page, next_page=found.next_page)


# ---------------------------------------------------------------- rules


def _changeable(line: Row, action: str) -> None:
    if line["status"] == "suspended":
        raise ForbiddenError(f"line {line['phone_number']} is suspended ({line['suspension_reason']}), and a suspended "
                             f"line must be reactivated before any change: you cannot {action} until it is reactivated "
                             "(reactivate_line)")


def _good_standing(line: Row, action: str) -> None:
    if line["past_due_cents"] > 0 or line["account_standing"] != "good":
        raise ForbiddenError(f"account {line['account_number']} is not in good standing ({line['past_due_cents']} cents "
                             f"past due), and roaming needs an account in good standing: you cannot {action} until "
                             "the past-due balance is paid (make_payment)")


# ---------------------------------------------------------------- writes


@tools.tool(writes=True, destructive=True, idempotent=True, title="Change a line's plan", examples=[
    {"line_id": 25, "plan_code": "plus-15"}, {"line_id": 25, "plan_code": "unlimited-max", "effective": "immediately"}])
def change_plan(
    ctx: ToolContext,
    line_id: LineId,
    plan_code: Annotated[str, Field(min_length=1, max_length=24, description="The new plan's code (list_plans), e.g. 'unlimited-plus'.")],
    effective: Annotated[Literal["next_cycle", "immediately"], Field(description="next_cycle (default): from the 1st of next month; immediately: now, for an upgrade only.")] = "next_cycle",
) -> PlanChange:
    """Switch a line to another plan. By default the change is scheduled for the start of the
    next billing cycle (replacing any change already scheduled); an upgrade (a plan with a
    higher monthly price) may take effect immediately when the customer asks, a downgrade never."""
    line = _line_row(ctx, line_id)
    code = plan_code.strip().lower()
    plan = ctx.sql.one("SELECT * FROM plans WHERE code = ?", [code], Plan)
    if plan is None:
        raise NotFoundError(f"no plan with code {code!r}. list_plans lists the plans and their codes")
    _changeable(line, "change its plan")
    if not plan["available"]:
        raise ForbiddenError(f"plan '{plan['name']}' is retired, and retired plans cannot be chosen (lines that have "
                             "them keep them); list_plans lists the plans on offer")
    if plan["id"] == line["plan_id"]:
        raise InvalidArgumentError(f"line {line['phone_number']} is already on {plan['name']}; to drop a scheduled change "
                                   "use cancel_plan_change")
    today = _today(ctx)
    if effective == "immediately":
        if plan["price_cents"] <= line["plan_price_cents"]:
            raise ForbiddenError(f"{plan['name']} ({plan['price_cents']} cents a month) is not an upgrade from "
                                 f"{line['plan_name']} ({line['plan_price_cents']} cents), and plan changes take effect "
                                 "at the next billing cycle: only upgrades may take effect immediately; schedule it "
                                 "with effective='next_cycle'")
        ctx.sql.execute("UPDATE lines SET plan_id = ?, pending_plan_id = NULL, pending_plan_on = NULL WHERE id = ?",
                        [plan["id"], line_id])
        when = today
    else:
        when = next_cycle(today)
        ctx.sql.execute("UPDATE lines SET pending_plan_id = ?, pending_plan_on = ? WHERE id = ?", [plan["id"], when, line_id])
    return PlanChange(line=_summary(ctx, line_id), old_plan_code=line["plan_code"], new_plan_code=plan["code"],
                      effective=effective, effective_on=when)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Cancel a scheduled plan change", examples=[{"line_id": 7}])
def cancel_plan_change(ctx: ToolContext, line_id: LineId) -> LineSummary:
    """Drop the plan change scheduled for a line's next billing cycle; the line keeps its plan."""
    line = _line_row(ctx, line_id)
    _changeable(line, "cancel its plan change")
    if line["pending_plan_id"] is not None:
        ctx.sql.execute("UPDATE lines SET pending_plan_id = NULL, pending_plan_on = NULL WHERE id = ?", [line_id])
    return _summary(ctx, line_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Turn roaming on or off", examples=[
    {"line_id": 25, "enabled": True}, {"line_id": 10, "enabled": False}])
def set_roaming(
    ctx: ToolContext,
    line_id: LineId,
    enabled: Annotated[bool, Field(description="True to allow the line to use networks abroad, False to block it.")],
) -> LineSummary:
    """Turn international roaming on or off for a line (on the network side; the handset's own
    data-roaming switch is a device setting). Abroad, data then needs a plan that includes the
    zone or a roaming pass."""
    line = _line_row(ctx, line_id)
    _changeable(line, "turn roaming on or off")
    if enabled:
        _good_standing(line, "turn roaming on")
    if line["roaming_enabled"] != enabled:
        ctx.sql.execute("UPDATE lines SET roaming_enabled = ? WHERE id = ?", [enabled, line_id])
    return _summary(ctx, line_id)


@tools.tool(writes=True, destructive=False, idempotent=True, title="Buy a roaming pass", examples=[
    {"line_id": 25, "country": "France", "days": 5}, {"line_id": 25, "country": "Japan", "start_date": "2025-12-01", "days": 10}])
def buy_roaming_pass(
    ctx: ToolContext,
    line_id: LineId,
    country: Country,
    days: Annotated[int, Field(ge=1, le=30, description="Consecutive days the pass covers.")],
    start_date: Annotated[date | None, Field(description="The first day (YYYY-MM-DD, from today up to 90 days ahead); default today.")] = None,
) -> LineAddonOut:
    """Buy a roaming day pass for the zone of a destination: data, calls and texts abroad for
    consecutive days, at the zone's daily price, billed on the next bill. Roaming must also be
    on for the line (set_roaming)."""
    line = _line_row(ctx, line_id)
    zone = COUNTRY_ZONE.get(country.strip().lower())
    if zone is None:
        raise NotFoundError(f"{country.strip()[:40]!r} is not a roaming destination; list_addons with kind='roaming_pass' "
                            "lists the zones and their countries")
    today = _today(ctx)
    start = start_date or today
    if not today <= start <= today + timedelta(days=90):
        raise InvalidArgumentError("start_date must be between today and 90 days ahead")
    _changeable(line, "buy a roaming pass for it")
    _good_standing(line, "buy a roaming pass")
    if zone in _zones(line["plan_roaming_zones"]):
        raise InvalidArgumentError(f"the {line['plan_name']} plan already includes roaming in zone {zone}; no pass is needed")
    end = start + timedelta(days=days - 1)
    addon = ctx.sql.one("SELECT * FROM addons WHERE kind = 'roaming_pass' AND zone = ?", [zone], Addon)
    assert addon is not None
    if ctx.sql.scalar("SELECT 1 FROM line_addons WHERE line_id = ? AND addon_id = ? AND status IN ('active', 'scheduled') "
                      "AND starts_on <= ? AND ends_on >= ?", [line_id, addon["id"], end, start]):
        raise InvalidArgumentError(f"line {line['phone_number']} already has a zone {zone} pass for some of these days")
    country_name = next(c for c in ZONES[zone] if c.lower() == country.strip().lower())
    new_id = ctx.sql.insert_row(LineAddon, {
        "line_id": line_id, "addon_id": addon["id"], "status": "active" if start == today else "scheduled",
        "starts_on": start, "ends_on": end, "country": country_name, "price_cents": addon["price_cents"] * days,
        "purchased_at": _now(ctx)})
    return _line_addon(ctx, new_id)


def _line_addon(ctx: ToolContext, line_addon_id: int) -> LineAddonOut:
    row = ctx.sql.one(f"SELECT {ADDON_COLUMNS} {ADDON_FROM} WHERE line_addons.id = ?", [line_addon_id], LineAddon)
    if row is None:
        raise missing("line add-on", line_addon_id, ADDON_HINT)
    return LineAddonOut(**row)


@tools.tool(writes=True, destructive=False, idempotent=False, title="Add an add-on", examples=[{"line_id": 25, "addon_code": "data-1gb"}, {"line_id": 25, "addon_code": "intl-calling"}])
def add_addon(
    ctx: ToolContext,
    line_id: LineId,
    addon_code: Annotated[Literal["data-1gb", "data-3gb", "data-10gb", "intl-calling"], Field(description="A data pack (for the rest of this cycle) or international calling (monthly until removed).")],
) -> LineAddonOut:
    """Add a data pack (high-speed data for the rest of the current cycle, non-refundable; at
    most two per line per cycle) or international calling (billed monthly until removed) to a
    line. Roaming passes are bought with buy_roaming_pass."""
    line = _line_row(ctx, line_id)
    addon = ctx.sql.one("SELECT * FROM addons WHERE code = ?", [addon_code], Addon)
    assert addon is not None
    _changeable(line, f"add {addon['name']} to it")
    today = _today(ctx)
    cycle = cycle_start(today)
    if addon["kind"] == "data_pack":
        if line["plan_data_gb"] is None:
            raise InvalidArgumentError(f"the {line['plan_name']} plan has unlimited data; a data pack adds nothing")
        packs = _data_packs(ctx, line_id, cycle)["packs"]
        if packs >= MAX_DATA_PACKS_PER_CYCLE:
            raise ForbiddenError(f"line {line['phone_number']} already has {packs} data packs this billing cycle, and a line "
                                 f"may have at most {MAX_DATA_PACKS_PER_CYCLE} data packs per cycle; more data needs a "
                                 "bigger plan (change_plan)")
        ends: date | None = next_cycle(today) - timedelta(days=1)
    else:
        if line["plan_intl_calling"]:
            raise InvalidArgumentError(f"the {line['plan_name']} plan already includes international calling")
        if ctx.sql.scalar("SELECT 1 FROM line_addons WHERE line_id = ? AND addon_id = ? AND status = 'active'",
                          [line_id, addon["id"]]):
            raise InvalidArgumentError(f"line {line['phone_number']} already has international calling")
        ends = None
    new_id = ctx.sql.insert_row(LineAddon, {
        "line_id": line_id, "addon_id": addon["id"], "status": "active", "starts_on": today, "ends_on": ends,
        "country": None, "price_cents": addon["price_cents"], "purchased_at": _now(ctx)})
    return _line_addon(ctx, new_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Remove an add-on", examples=[{"line_addon_id": 3}, {"line_addon_id": 990}])
def remove_addon(
    ctx: ToolContext,
    line_addon_id: Annotated[int, Field(description="The add-on's id on the line (get_line lists them).")],
) -> LineAddonOut:
    """Remove international calling from a line (from today), or cancel a roaming pass that
    has not started. Data packs and roaming passes already under way are non-refundable."""
    row = _line_addon(ctx, line_addon_id)
    if row.status == "removed":
        return row
    line = _line_row(ctx, row.line_id)
    _changeable(line, f"remove {row.name} from it")
    if row.status == "expired":
        raise InvalidArgumentError(f"{row.name} ended on {row.ends_on}; there is nothing to remove")
    if row.kind == "data_pack" or (row.kind == "roaming_pass" and row.status == "active"):
        raise ForbiddenError(f"{row.name} (bought {row.purchased_at:%Y-%m-%d}) is a "
                             f"{'data pack' if row.kind == 'data_pack' else 'roaming pass already under way'}, and data "
                             "packs and started roaming passes are non-refundable: they cannot be removed")
    today = _today(ctx)
    ends = today if row.kind == "intl_calling" else row.ends_on
    ctx.sql.execute("UPDATE line_addons SET status = 'removed', ends_on = ? WHERE id = ?", [ends, line_addon_id])
    return _line_addon(ctx, line_addon_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Suspend a line", examples=[
    {"line_id": 1, "reason": "lost_stolen"}, {"line_id": 25, "reason": "customer_request"}])
def suspend_line(
    ctx: ToolContext,
    line_id: LineId,
    reason: Annotated[Literal["lost_stolen", "customer_request"], Field(description="lost_stolen: the phone is lost or stolen (blocks calls, data and the SIM); customer_request: a pause the customer asked for.")],
) -> LineDetail:
    """Suspend a line at once: no calls, texts or data until reactivate_line. Suspension for
    non-payment is the billing system's, never an agent's."""
    line = _line_row(ctx, line_id)
    if line["status"] == "suspended":
        raise InvalidArgumentError(f"line {line['phone_number']} is already suspended ({line['suspension_reason']})")
    ctx.sql.execute("UPDATE lines SET status = 'suspended', suspension_reason = ?, suspended_at = ? WHERE id = ?",
                    [reason, _now(ctx), line_id])
    return _line_detail(ctx, line_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Reactivate a line", examples=[{"line_id": 20}])
def reactivate_line(ctx: ToolContext, line_id: LineId) -> LineDetail:
    """Bring a suspended line back into service. A line suspended for non-payment comes back
    only once its account has nothing past due."""
    line = _line_row(ctx, line_id)
    if line["status"] == "active":
        raise InvalidArgumentError(f"line {line['phone_number']} is active; there is nothing to reactivate")
    if line["suspension_reason"] == "non_payment" and line["past_due_cents"] > 0:
        raise ForbiddenError(f"line {line['phone_number']} was suspended for non-payment and account "
                             f"{line['account_number']} still has {line['past_due_cents']} cents past due, and a line "
                             "suspended for non-payment is reactivated only once the past-due balance is paid "
                             "(make_payment)")
    ctx.sql.execute("UPDATE lines SET status = 'active', suspension_reason = NULL, suspended_at = NULL WHERE id = ?", [line_id])
    return _line_detail(ctx, line_id)


@tools.tool(writes=True, destructive=True, idempotent=False, title="Take a payment", examples=[{"account_id": 2, "amount_cents": 1000, "method": "card"}])
def make_payment(
    ctx: ToolContext,
    account_id: AccountId,
    amount_cents: Annotated[int, Field(ge=1, le=10_000_000, description="The amount in cents (USD), at most the balance.")],
    method: Annotated[Literal["card", "bank"], Field(description="card or bank transfer.")] = "card",
) -> PaymentResult:
    """Take a payment on an account; it pays the oldest unpaid bills first. Once nothing is
    past due the account is back in good standing (lines suspended for non-payment still need
    reactivate_line)."""
    account = _account_row(ctx, account_id)
    if amount_cents > account["balance_cents"]:
        raise ForbiddenError(f"account {account['account_number']} owes {account['balance_cents']} cents, and a payment may "
                             "not exceed the account's balance (no credit is kept on account)")
    bills = ctx.sql.all("SELECT id, total_cents, paid_cents FROM bills WHERE account_id = ? AND paid_cents < total_cents "
                        "ORDER BY period_start, id", [account_id])
    left, allocation, settled = amount_cents, [], []
    for bill in bills:
        if left == 0:
            break
        share = min(left, bill["total_cents"] - bill["paid_cents"])
        left -= share
        allocation.append([bill["id"], share])
        if bill["paid_cents"] + share == bill["total_cents"]:
            settled.append(bill["id"])
    ctx.sql.execute(
        "UPDATE bills SET paid_cents = paid_cents + (SELECT json_extract(value, '$[1]') FROM json_each(?) "
        "WHERE json_extract(value, '$[0]') = bills.id) WHERE id IN (SELECT json_extract(value, '$[0]') FROM json_each(?))",
        [allocation, allocation])
    ctx.sql.execute("UPDATE bills SET status = 'paid' WHERE id IN (SELECT value FROM json_each(?))", [settled])
    payment_id = ctx.sql.insert_row(Payment, {"account_id": account_id, "amount_cents": amount_cents, "method": method,
                                              "paid_at": _now(ctx)})
    after = _account_row(ctx, account_id)
    if after["past_due_cents"] == 0 and after["standing"] != "good":
        ctx.sql.execute("UPDATE accounts SET standing = 'good' WHERE id = ?", [account_id])
        after["standing"] = "good"
    payment = ctx.sql.one("SELECT * FROM payments WHERE id = ?", [payment_id], Payment)
    return PaymentResult(payment=PaymentOut(**payment), bills_paid_off=settled,  # type: ignore[arg-type]
                         balance_cents=after["balance_cents"], past_due_cents=after["past_due_cents"],
                         standing=after["standing"])


@tools.tool(writes=True, destructive=True, idempotent=True, title="Change device settings", examples=[
    {"line_id": 12, "mobile_data": True, "airplane_mode": False}, {"line_id": 61, "reset_apn": True, "network_mode": "5g_auto"}])
def update_device_settings(
    ctx: ToolContext,
    line_id: LineId,
    mobile_data: Annotated[bool | None, Field(description="Turn mobile data on or off.")] = None,
    airplane_mode: Annotated[bool | None, Field(description="Turn airplane mode on or off.")] = None,
    data_roaming: Annotated[bool | None, Field(description="Turn the handset's data-roaming switch on or off.")] = None,
    network_mode: Annotated[Literal["5g_auto", "lte_only", "3g_only"] | None, Field(description="The preferred network type.")] = None,
    reset_apn: Annotated[bool, Field(description="Restore the carrier's default APN.")] = False,
) -> DeviceOut:
    """Change the settings of a line's handset remotely (as the customer would on the phone):
    mobile data, airplane mode, data roaming, network mode, or the APN back to the default.
    Settings left out stay as they are."""
    line = _line_row(ctx, line_id)
    _changeable(line, "change its device settings")
    before = ctx.sql.one("SELECT * FROM devices WHERE line_id = ?", [line_id], Device)
    assert before is not None
    after = dict(before)
    for name, value in (("mobile_data", mobile_data), ("airplane_mode", airplane_mode), ("data_roaming", data_roaming),
                        ("network_mode", network_mode)):
        if value is not None:
            after[name] = value
    if reset_apn:
        after["apn"] = DEFAULT_APN
    ctx.sql.update_row(Device, before, after)
    return DeviceOut(**after)


@tools.tool(writes=True, destructive=False, idempotent=False, title="Log a troubleshooting ticket", examples=[
    {"line_id": 1, "category": "no_data", "notes": "Turned mobile data back on; data works.", "resolved": True}])
def log_ticket(
    ctx: ToolContext,
    line_id: LineId,
    category: Annotated[TicketCategory, Field(description="What the problem was about.")],
    notes: Annotated[Body, Field(min_length=1, description="What the customer reported and what was done.")],
    resolved: Annotated[bool, Field(description="True when the problem is fixed now; False leaves the ticket open.")] = False,
) -> TicketOut:
    """Record a problem reported on a line and what was done, in the troubleshooting log
    (allowed whatever the line's status)."""
    line = _line_row(ctx, line_id)
    if not notes.strip():
        raise InvalidArgumentError("notes are blank: say what was reported and done")
    now = _now(ctx)
    ticket_id = ctx.sql.insert_row(Ticket, {"line_id": line_id, "category": category,
                                            "status": "resolved" if resolved else "open", "notes": notes.strip(),
                                            "opened_at": now, "resolved_at": now if resolved else None})
    row = ctx.sql.one("SELECT * FROM tickets WHERE id = ?", [ticket_id], Ticket)
    return TicketOut(**row, phone_number=line["phone_number"])  # type: ignore[arg-type]
