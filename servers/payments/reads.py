"""The read tools: customers and their payment methods, charges, refunds, disputes, plans,
subscriptions, invoices, payouts and the balance report."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from mcpgym.servers.kernel.errors import InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import DateTimeArg, Page, PerPage
from mcpgym.servers.kernel.sql import contains_pattern
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry
from mcpgym.servers.payments import examples as ex
from mcpgym.servers.payments.models import Charge, Customer, Dispute, Invoice, PaymentMethod, Payout, Plan, Refund, Subscription
from mcpgym.servers.payments.views import (
    CHARGE_COLUMNS,
    CHARGE_TABLES,
    CUSTOMER_STATS,
    DISPUTE_COLUMNS,
    INVOICE_COLUMNS,
    INVOICE_TABLES,
    SUBSCRIPTION_COLUMNS,
    SUBSCRIPTION_TABLES,
    BalanceReport,
    ChargeDetail,
    ChargePage,
    CustomerOut,
    CustomerPage,
    DisputeOut,
    DisputePage,
    IdArg,
    InvoiceOut,
    InvoicePage,
    PaymentMethodList,
    PayoutPage,
    PlanList,
    PlanOut,
    RefundPage,
    RefundRow,
    SubscriptionOut,
    SubscriptionPage,
    charge_detail,
    charge_out,
    customer_out,
    customer_summary,
    dispute_out,
    invoice_out,
    invoice_summary,
    key_of,
    method_out,
    payout_out,
    public,
    read_charge,
    read_customer,
    read_invoice,
    read_subscription,
    refund_out,
    subscription_out,
    unknown,
)

tools = ToolRegistry()

CustomerId = IdArg("customer", "The customer's id")
ChargeId = IdArg("charge", "The charge's id")
DisputeId = IdArg("dispute", "The dispute's id")
SubscriptionId = IdArg("subscription", "The subscription's id")
InvoiceId = IdArg("invoice", "The invoice's id")
After = Annotated[DateTimeArg | None, Field(description="Only those created at or after this time (ISO 8601).")]
Before = Annotated[DateTimeArg | None, Field(description="Only those created before this time (ISO 8601).")]
ChargeStatus = Literal["succeeded", "failed"]
DisputeStatus = Literal["needs_response", "under_review", "won", "lost"]
SubscriptionStatus = Literal["active", "past_due", "canceled"]
InvoiceStatus = Literal["draft", "open", "paid", "void"]
PayoutStatus = Literal["paid", "in_transit", "pending", "failed"]


def normal_order_number(text: str) -> str:
    """An order number as the shop writes it: '#1001' (a bare '1001' gets its '#')."""
    text = text.strip()
    return text if text.startswith("#") else f"#{text}"


def _window(column: str, after: Any, before: Any, where: list[str], params: list[Any]) -> None:
    if after is not None and before is not None and after >= before:
        raise InvalidArgumentError("created_after must be earlier than created_before")
    if after is not None:
        where.append(f"{column} >= ?")
        params.append(after)
    if before is not None:
        where.append(f"{column} < ?")
        params.append(before)


def _where(where: list[str]) -> str:
    return f"WHERE {' AND '.join(where)}" if where else ""


# ---------------------------------------------------------------- customers


@tools.tool(title="Get customer", examples=[{"customer_id": ex.CUSTOMER}])
def get_customer(ctx: ToolContext, customer_id: CustomerId) -> CustomerOut:
    """A customer's profile: contact details, company, default payment method, credit balance,
    and totals of their charges, refunds and live subscriptions."""
    return customer_out(ctx, read_customer(ctx, key_of(ctx, "customer", customer_id), customer_id))


@tools.tool(title="Get customer by email", examples=[{"email": ex.CUSTOMER_EMAIL}])
def get_customer_by_email(ctx: ToolContext, email: Annotated[str, Field(description="The customer's email address (case-insensitive).")]) -> CustomerOut:
    """The customer with this email address: how to go from a person (a shop buyer, a
    company's billing contact) to their customer id."""
    row = ctx.sql.one(f"SELECT {CUSTOMER_STATS} WHERE lower(customers.email) = ?", [email.strip().lower()], Customer)
    if row is None:
        raise NotFoundError(f"no customer with email {email!r}. Use search_customers to search by name or company.")
    return customer_out(ctx, row)


@tools.tool(title="Search customers", examples=[{"query": ex.CUSTOMER_QUERY}, {"has_subscription": True, "per_page": 5}])
def search_customers(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Words found in the name, email or company name (case-insensitive).")] = None,
    has_subscription: Annotated[bool | None, Field(description="True: only customers with an active or past-due subscription; False: only those without.")] = None,
    shop_only: Annotated[bool, Field(description="Only buyers of the online shop.")] = False,
    page: Page = 1,
    per_page: PerPage = 20,
) -> CustomerPage:
    """Find customers by name, email or company, optionally only subscribers or shop buyers;
    ordered by name."""
    where: list[str] = []
    params: list[Any] = []
    for word in (query or "").lower().split()[:10]:
        where.append("(lower(name) LIKE ? ESCAPE '/' OR lower(email) LIKE ? ESCAPE '/' OR lower(organization_name) LIKE ? ESCAPE '/')")
        params += [contains_pattern(word)] * 3
    if has_subscription is not None:
        live = "EXISTS (SELECT 1 FROM subscriptions WHERE subscriptions.customer_id = customers.id AND status IN ('active', 'past_due'))"
        where.append(live if has_subscription else f"NOT {live}")
    if shop_only:
        where.append("retail_customer_id IS NOT NULL")
    found = ctx.sql.page("*", f"FROM customers {_where(where)} ORDER BY name, id", params, page, per_page, Customer)
    return CustomerPage(customers=[customer_summary(ctx, r) for r in found.rows], total=found.total, page=page,
                        next_page=found.next_page)


@tools.tool(title="List payment methods", examples=[{"customer_id": ex.CUSTOMER}])
def list_payment_methods(ctx: ToolContext, customer_id: CustomerId) -> PaymentMethodList:
    """A customer's saved payment methods (cards with brand, last four digits and expiry;
    wallets), which one is the default, and which cards have expired."""
    key = key_of(ctx, "customer", customer_id)
    default = ctx.sql.one("SELECT default_payment_method_id FROM customers WHERE id = ?", [key])
    if default is None:
        raise unknown("customer", customer_id)
    rows = ctx.sql.all("SELECT * FROM payment_methods WHERE customer_id = ? ORDER BY created_at, id", [key], PaymentMethod)
    return PaymentMethodList(customer_id=customer_id.strip(),
                             payment_methods=[method_out(ctx, r, default["default_payment_method_id"]) for r in rows])


# ---------------------------------------------------------------- charges and refunds


@tools.tool(title="Get charge", examples=[{"charge_id": ex.CHARGE}, {"charge_id": ex.DISPUTED_CHARGE}])
def get_charge(ctx: ToolContext, charge_id: ChargeId) -> ChargeDetail:
    """A charge with its refunds, what remains refundable in amount, and its dispute if any:
    read it before refunding."""
    return charge_detail(ctx, read_charge(ctx, key_of(ctx, "charge", charge_id), charge_id))


ChargeSort = Literal["newest", "oldest", "largest", "smallest"]
CHARGE_ORDER = {"newest": "charges.created_at DESC, charges.id DESC", "oldest": "charges.created_at, charges.id",
                "largest": "charges.amount_cents DESC, charges.id", "smallest": "charges.amount_cents, charges.id"}


@tools.tool(title="Search charges", examples=[{"order_number": ex.ORDER_NUMBER}, {"customer_id": ex.CUSTOMER, "per_page": 5},
                                              {"status": "failed", "created_after": "2025-10-01T00:00:00Z"}])
def search_charges(
    ctx: ToolContext,
    customer_id: Annotated[str | None, Field(max_length=40, description="Only this customer's charges (cus_...).")] = None,
    order_number: Annotated[str | None, Field(max_length=20, description="The shop order number, e.g. '#1001'.")] = None,
    status: Annotated[ChargeStatus | None, Field(description="succeeded or failed.")] = None,
    source: Annotated[Literal["shop", "invoice"] | None, Field(description="shop: charges for shop orders; invoice: charges paying invoices.")] = None,
    refunded: Annotated[bool | None, Field(description="True: only charges with at least one refund; False: only those with none.")] = None,
    disputed: Annotated[bool | None, Field(description="True: only charges with a dispute; False: only those without.")] = None,
    min_amount_cents: Annotated[int | None, Field(ge=0, description="Only charges of at least this amount.")] = None,
    created_after: After = None,
    created_before: Before = None,
    sort: Annotated[ChargeSort, Field(description="newest (default), oldest, largest or smallest first.")] = "newest",
    page: Page = 1,
    per_page: PerPage = 20,
) -> ChargePage:
    """Find charges by customer, shop order number, status, source, refunds, disputes,
    amount and date; with the total amount of all matches."""
    where: list[str] = []
    params: list[Any] = []
    if customer_id is not None:
        where.append("charges.customer_id = ?")
        params.append(key_of(ctx, "customer", customer_id))
    if order_number is not None:
        where.append("charges.order_number = ?")
        params.append(normal_order_number(order_number))
    if status is not None:
        where.append("charges.status = ?")
        params.append(status)
    if source is not None:
        where.append("charges.order_number IS NOT NULL" if source == "shop" else "charges.invoice_id IS NOT NULL")
    if refunded is not None:
        where.append(("" if refunded else "NOT ") + "EXISTS (SELECT 1 FROM refunds WHERE refunds.charge_id = charges.id)")
    if disputed is not None:
        where.append(("" if disputed else "NOT ") + "EXISTS (SELECT 1 FROM disputes WHERE disputes.charge_id = charges.id)")
    if min_amount_cents is not None:
        where.append("charges.amount_cents >= ?")
        params.append(min_amount_cents)
    _window("charges.created_at", created_after, created_before, where, params)
    found = ctx.sql.page(f"{CHARGE_COLUMNS}, SUM(charges.amount_cents) OVER () AS sum_amount",
                         f"FROM {CHARGE_TABLES} {_where(where)} ORDER BY {CHARGE_ORDER[sort]}", params, page, per_page, Charge)
    total_amount = found.rows[0]["sum_amount"] if found.rows else _sum(ctx, "charges.amount_cents", f"FROM {CHARGE_TABLES} {_where(where)}", params, found.total)
    return ChargePage(charges=[charge_out(ctx, r) for r in found.rows], total=found.total, total_amount_cents=total_amount,
                      page=page, next_page=found.next_page)



def _sum(ctx: ToolContext, column: str, rest: str, params: list[Any], total: int) -> int:
    """The sum of `column` over every match, for a page past the end (no rows to read it from)."""
    return 0 if not total else int(ctx.sql.scalar(f"SELECT COALESCE(SUM({column}), 0) {rest}", params))


@tools.tool(title="Search refunds", examples=[{"created_after": "2025-09-01T00:00:00Z"}, {"customer_id": ex.REFUNDED_CUSTOMER}])
def search_refunds(
    ctx: ToolContext,
    charge_id: Annotated[str | None, Field(max_length=40, description="Only refunds of this charge (ch_...).")] = None,
    customer_id: Annotated[str | None, Field(max_length=40, description="Only refunds of this customer's charges (cus_...).")] = None,
    reason: Annotated[Literal["requested_by_customer", "duplicate", "fraudulent"] | None, Field(description="Only refunds given for this reason.")] = None,
    created_after: After = None,
    created_before: Before = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> RefundPage:
    """Find refunds by charge, customer, reason and date, newest first; with the total
    refunded over all matches."""
    where: list[str] = []
    params: list[Any] = []
    if charge_id is not None:
        where.append("refunds.charge_id = ?")
        params.append(key_of(ctx, "charge", charge_id))
    if customer_id is not None:
        where.append("charges.customer_id = ?")
        params.append(key_of(ctx, "customer", customer_id))
    if reason is not None:
        where.append("refunds.reason = ?")
        params.append(reason)
    _window("refunds.created_at", created_after, created_before, where, params)
    rest = (f"FROM refunds JOIN charges ON charges.id = refunds.charge_id JOIN customers ON customers.id = charges.customer_id "
            f"{_where(where)}")
    found = ctx.sql.page("refunds.*, charges.order_number, charges.customer_id, customers.name AS customer_name, "
                         "SUM(refunds.amount_cents) OVER () AS sum_amount",
                         f"{rest} ORDER BY refunds.created_at DESC, refunds.id DESC", params, page, per_page, Refund)
    total_amount = found.rows[0]["sum_amount"] if found.rows else _sum(ctx, "refunds.amount_cents", rest, params, found.total)
    rows = [RefundRow(**refund_out(ctx, r).model_dump(), order_number=r["order_number"], customer_name=r["customer_name"],
                      customer_id=public(ctx, "customer", r["customer_id"])) for r in found.rows]
    return RefundPage(refunds=rows, total=found.total, total_amount_cents=total_amount, page=page, next_page=found.next_page)


# ---------------------------------------------------------------- disputes


@tools.tool(title="Get dispute", examples=[{"dispute_id": ex.DISPUTE}])
def get_dispute(ctx: ToolContext, dispute_id: DisputeId) -> DisputeOut:
    """A dispute (chargeback): its charge, reason, status, evidence and the deadline for it."""
    key = key_of(ctx, "dispute", dispute_id)
    row = ctx.sql.one(f"SELECT {DISPUTE_COLUMNS} WHERE disputes.id = ?", [key], (Dispute, Charge))
    if row is None:
        raise unknown("dispute", dispute_id)
    return dispute_out(ctx, row)


@tools.tool(title="Search disputes", examples=[{"status": ["needs_response"]}, {"reason": "fraudulent"}])
def search_disputes(
    ctx: ToolContext,
    status: Annotated[list[DisputeStatus] | None, Field(max_length=4, description="Only disputes in these statuses (open ones: needs_response, under_review).")] = None,
    reason: Annotated[str | None, Field(max_length=40, description="Only disputes of this reason, e.g. fraudulent, product_not_received.")] = None,
    customer_id: Annotated[str | None, Field(max_length=40, description="Only disputes of this customer's charges (cus_...).")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> DisputePage:
    """Find disputes by status, reason and customer; those whose evidence is due soonest first."""
    where: list[str] = []
    params: list[Any] = []
    if status:
        where.append("disputes.status IN (SELECT value FROM json_each(?))")
        params.append(sorted(set(status)))
    if reason is not None:
        where.append("disputes.reason = ?")
        params.append(reason.strip().lower())
    if customer_id is not None:
        where.append("charges.customer_id = ?")
        params.append(key_of(ctx, "customer", customer_id))
    rest = DISPUTE_COLUMNS.split(" FROM ", 1)
    found = ctx.sql.page(rest[0], f"FROM {rest[1]} {_where(where)} ORDER BY disputes.evidence_due_by, disputes.id", params,
                         page, per_page, (Dispute, Charge))
    return DisputePage(disputes=[dispute_out(ctx, r) for r in found.rows], total=found.total, page=page,
                       next_page=found.next_page)


# ---------------------------------------------------------------- plans and subscriptions


@tools.tool(title="List plans", examples=[{}, {"include_inactive": True}])
def list_plans(
    ctx: ToolContext,
    include_inactive: Annotated[bool, Field(description="Also list legacy plans nobody new can subscribe to.")] = False,
) -> PlanList:
    """The subscription plans (prices) on sale: product, interval, price per seat, and how many
    live subscriptions each has."""
    rows = ctx.sql.all(
        "SELECT plans.*, (SELECT count(*) FROM subscriptions WHERE subscriptions.plan_id = plans.id "
        "AND subscriptions.status IN ('active', 'past_due')) AS live_subscriptions FROM plans "
        + ("" if include_inactive else "WHERE active = 1 ") + "ORDER BY id", [], Plan)
    return PlanList(plans=[PlanOut(**{**r, "id": public(ctx, "plan", r["id"])}) for r in rows])


@tools.tool(title="Get subscription", examples=[{"subscription_id": ex.SUBSCRIPTION}])
def get_subscription(ctx: ToolContext, subscription_id: SubscriptionId) -> SubscriptionOut:
    """A subscription: customer, plan, seats, status, current billing period and whether it is
    set to cancel at the period's end."""
    return subscription_out(ctx, read_subscription(ctx, key_of(ctx, "subscription", subscription_id), subscription_id))


@tools.tool(title="Search subscriptions", examples=[{"customer_id": ex.SUBSCRIBER}, {"status": "past_due"},
                                                    {"query": ex.SUBSCRIBER_COMPANY}])
def search_subscriptions(
    ctx: ToolContext,
    customer_id: Annotated[str | None, Field(max_length=40, description="Only this customer's subscriptions (cus_...).")] = None,
    query: Annotated[str | None, Field(description="Words found in the customer's name, email or company name (case-insensitive).")] = None,
    plan_id: Annotated[str | None, Field(max_length=40, description="Only subscriptions to this plan (price_...).")] = None,
    status: Annotated[SubscriptionStatus | None, Field(description="active, past_due or canceled.")] = None,
    cancel_at_period_end: Annotated[bool | None, Field(description="True: only those set to cancel at the period's end.")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> SubscriptionPage:
    """Find subscriptions by customer (id, or words of their name, email or company), plan,
    status or a pending cancellation; newest first."""
    where: list[str] = []
    params: list[Any] = []
    for word in (query or "").lower().split()[:10]:
        where.append("(lower(customers.name) LIKE ? ESCAPE '/' OR lower(customers.email) LIKE ? ESCAPE '/' "
                     "OR lower(customers.organization_name) LIKE ? ESCAPE '/')")
        params += [contains_pattern(word)] * 3
    if customer_id is not None:
        where.append("subscriptions.customer_id = ?")
        params.append(key_of(ctx, "customer", customer_id))
    if plan_id is not None:
        where.append("subscriptions.plan_id = ?")
        params.append(key_of(ctx, "plan", plan_id))
    if status is not None:
        where.append("subscriptions.status = ?")
        params.append(status)
    if cancel_at_period_end is not None:
        where.append("subscriptions.cancel_at_period_end = ?")
        params.append(cancel_at_period_end)
    found = ctx.sql.page(SUBSCRIPTION_COLUMNS, f"FROM {SUBSCRIPTION_TABLES} {_where(where)} "
                         "ORDER BY subscriptions.created_at DESC, subscriptions.id DESC", params, page, per_page,
                         (Subscription, Plan))
    return SubscriptionPage(subscriptions=[subscription_out(ctx, r) for r in found.rows], total=found.total, page=page,
                            next_page=found.next_page)


# ---------------------------------------------------------------- invoices


@tools.tool(title="Get invoice", examples=[{"invoice_id": ex.INVOICE}])
def get_invoice(ctx: ToolContext, invoice_id: InvoiceId) -> InvoiceOut:
    """An invoice with its line items, totals, amount due, due date and the charge that paid it."""
    return invoice_out(ctx, read_invoice(ctx, key_of(ctx, "invoice", invoice_id), invoice_id))


@tools.tool(title="Search invoices", examples=[{"number": ex.INVOICE_NUMBER}, {"status": "open"}, {"customer_id": ex.SUBSCRIBER}])
def search_invoices(
    ctx: ToolContext,
    number: Annotated[str | None, Field(max_length=20, description="The invoice number, e.g. 'NW-10042'.")] = None,
    customer_id: Annotated[str | None, Field(max_length=40, description="Only this customer's invoices (cus_...).")] = None,
    subscription_id: Annotated[str | None, Field(max_length=40, description="Only invoices of this subscription (sub_...).")] = None,
    status: Annotated[InvoiceStatus | None, Field(description="draft, open, paid or void.")] = None,
    overdue: Annotated[bool | None, Field(description="True: only open invoices past their due date.")] = None,
    created_after: After = None,
    created_before: Before = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> InvoicePage:
    """Find invoices by number, customer, subscription, status, overdue and date; newest
    first, with the total of all matches."""
    where: list[str] = []
    params: list[Any] = []
    if number is not None:
        where.append("upper(invoices.number) = ?")
        params.append(number.strip().upper())
    if customer_id is not None:
        where.append("invoices.customer_id = ?")
        params.append(key_of(ctx, "customer", customer_id))
    if subscription_id is not None:
        where.append("invoices.subscription_id = ?")
        params.append(key_of(ctx, "subscription", subscription_id))
    if status is not None:
        where.append("invoices.status = ?")
        params.append(status)
    if overdue is not None:
        where.append(("" if overdue else "NOT ") + "(invoices.status = 'open' AND invoices.due_date < ?)")
        params.append(ctx.now)
    _window("invoices.created_at", created_after, created_before, where, params)
    rest = f"FROM {INVOICE_TABLES} {_where(where)}"
    found = ctx.sql.page(f"{INVOICE_COLUMNS}, SUM(COALESCE((SELECT SUM(amount_cents) FROM invoice_lines AS l "
                         "WHERE l.invoice_id = invoices.id), 0)) OVER () AS sum_amount",
                         f"{rest} ORDER BY invoices.created_at DESC, invoices.id DESC", params, page, per_page, Invoice)
    total_amount = found.rows[0]["sum_amount"] if found.rows else _sum(
        ctx, "(SELECT SUM(amount_cents) FROM invoice_lines AS l WHERE l.invoice_id = invoices.id)", rest, params, found.total)
    return InvoicePage(invoices=[invoice_summary(ctx, r) for r in found.rows], total=found.total,
                       total_amount_cents=total_amount, page=page, next_page=found.next_page)


# ---------------------------------------------------------------- payouts and the report


@tools.tool(title="List payouts", examples=[{}, {"status": "in_transit"}, {"arrival_after": "2025-09-01T00:00:00Z"}])
def list_payouts(
    ctx: ToolContext,
    status: Annotated[PayoutStatus | None, Field(description="paid, in_transit, pending or failed.")] = None,
    arrival_after: Annotated[DateTimeArg | None, Field(description="Only payouts arriving at or after this time.")] = None,
    arrival_before: Annotated[DateTimeArg | None, Field(description="Only payouts arriving before this time.")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> PayoutPage:
    """Payouts to Northwind's bank account, latest arrival first; with the total amount of all
    matches."""
    where: list[str] = []
    params: list[Any] = []
    if status is not None:
        where.append("status = ?")
        params.append(status)
    _window("arrival_date", arrival_after, arrival_before, where, params)
    rest = f"FROM payouts {_where(where)}"
    found = ctx.sql.page("payouts.*, SUM(amount_cents) OVER () AS sum_amount", f"{rest} ORDER BY arrival_date DESC, id DESC",
                         params, page, per_page, Payout)
    total_amount = found.rows[0]["sum_amount"] if found.rows else _sum(ctx, "amount_cents", rest, params, found.total)
    return PayoutPage(payouts=[payout_out(ctx, r) for r in found.rows], total=found.total, total_amount_cents=total_amount,
                      page=page, next_page=found.next_page)


@tools.tool(title="Balance report", examples=[{"start": "2025-10-01T00:00:00Z", "end": "2025-11-01T00:00:00Z"}])
def get_balance_report(
    ctx: ToolContext,
    start: Annotated[DateTimeArg, Field(description="Start of the period (inclusive), ISO 8601.")],
    end: Annotated[DateTimeArg, Field(description="End of the period (exclusive), ISO 8601.")],
) -> BalanceReport:
    """Activity of the account over a period: charges (gross, by source, fees, failures),
    refunds, disputes, net volume and payouts."""
    if start >= end:
        raise InvalidArgumentError("start must be earlier than end")
    charges = ctx.sql.one(
        "SELECT COALESCE(SUM(status = 'succeeded'), 0) AS ok, COALESCE(SUM(status = 'failed'), 0) AS failed, "
        "COALESCE(SUM(CASE WHEN status = 'succeeded' THEN amount_cents END), 0) AS gross, "
        "COALESCE(SUM(CASE WHEN status = 'succeeded' AND order_number IS NOT NULL THEN amount_cents END), 0) AS shop, "
        "COALESCE(SUM(CASE WHEN status = 'succeeded' AND invoice_id IS NOT NULL THEN amount_cents END), 0) AS invoiced, "
        "COALESCE(SUM(fee_cents), 0) AS fees FROM charges WHERE created_at >= ? AND created_at < ?", [start, end])
    other = ctx.sql.one(
        "SELECT (SELECT count(*) FROM refunds WHERE created_at >= :s AND created_at < :e) AS refunds, "
        "(SELECT COALESCE(SUM(amount_cents), 0) FROM refunds WHERE created_at >= :s AND created_at < :e) AS refunded, "
        "(SELECT count(*) FROM disputes WHERE created_at >= :s AND created_at < :e) AS opened, "
        "(SELECT COALESCE(SUM(amount_cents), 0) FROM disputes WHERE status = 'lost' AND closed_at >= :s AND closed_at < :e) AS lost, "
        "(SELECT count(*) FROM payouts WHERE status != 'failed' AND created_at >= :s AND created_at < :e) AS payouts, "
        "(SELECT COALESCE(SUM(amount_cents), 0) FROM payouts WHERE status != 'failed' AND created_at >= :s AND created_at < :e) AS paid_out",
        {"s": start, "e": end})
    assert charges is not None and other is not None
    return BalanceReport(
        start=start, end=end, charges_succeeded=charges["ok"], charges_failed=charges["failed"], gross_cents=charges["gross"],
        shop_gross_cents=charges["shop"], invoice_gross_cents=charges["invoiced"], fees_cents=charges["fees"],
        refunds_count=other["refunds"], refunded_cents=other["refunded"], disputes_opened=other["opened"],
        disputes_lost_cents=other["lost"], net_cents=charges["gross"] - charges["fees"] - other["refunded"] - other["lost"],
        payouts_count=other["payouts"], payouts_cents=other["paid_out"])
