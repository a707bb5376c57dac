"""The seeded expense tool: fifteen months of Northwind Systems' expense reports.

Employees and their managers are HR's. Every trip an employee flew on Meridian Air as the lead
passenger of a reservation (the airline's seeded reservations with status `flown`) becomes a
travel report: the airfare as charged, hotel nights and meals at the destination, taxis. Besides
trips, employees file a report for about half of the months with software, supplies, phone
bills and client meals. A report's life follows the clock: older reports are approved by the
submitter's manager and reimbursed, a few were rejected and reopened, recent ones are drafts or
wait for approval. The signed-in employee (a manager with direct reports) gets drafts that show
each submission rule, a report waiting for their own manager, one approved and one rejected;
their team has reports waiting for them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from sqlalchemy import Insert
from sqlalchemy.orm import Session

from mcpgym.servers.expenses import data
from mcpgym.servers.expenses.models import (
    RECEIPT_THRESHOLD_CENTS,
    Base,
    Category,
    Employee,
    Item,
    Reimbursement,
    Report,
    ReportEvent,
)
from mcpgym.servers.expenses.people import Staff, load_staff
from mcpgym.servers.kernel.links import seeded_rows
from mcpgym.servers.kernel.world import World

HISTORY_DAYS = 430
"""Reports reach this many days back from now."""
COUNTRY_CURRENCY = {"United Kingdom": "GBP", "Canada": "CAD", "Germany": "EUR", "France": "EUR", "Spain": "EUR",
                    "Italy": "EUR", "Netherlands": "EUR", "Ireland": "EUR", "Portugal": "EUR", "Belgium": "EUR",
                    "Austria": "EUR", "Finland": "EUR", "Greece": "EUR"}
CATEGORY_IDS = {code: i for i, (code, *_rest) in enumerate(data.CATEGORIES, start=1)}
LIMITS = {code: (limit, basis) for code, _name, limit, basis, _gl, _desc in data.CATEGORIES}


@dataclass
class ItemDraft:
    category: str
    expense_date: date
    merchant: str
    description: str
    amount_cents: int
    currency: str = "USD"
    quantity: int = 1
    receipt: bool = True
    justification: str | None = None
    flight_pnr: str | None = None

    @property
    def usd_cents(self) -> int:
        return data.to_usd_cents(self.amount_cents, self.currency)

    @property
    def over_limit(self) -> bool:
        limit, basis = LIMITS[self.category]
        return limit is not None and self.usd_cents > limit * (self.quantity if basis != "per_item" else 1)


@dataclass
class ReportDraft:
    employee_id: int
    title: str
    purpose: str
    created_at: datetime
    items: list[ItemDraft]
    is_travel: bool = False
    destination: str | None = None
    plan: str = "natural"
    """`natural` follows the clock; otherwise the status it is fixed at."""
    events: list[tuple[str, int, str, datetime]] = field(default_factory=list)
    row: dict[str, Any] = field(default_factory=dict)
    paid: tuple[date, str, datetime] | None = None


def _at(day: date, rng: random.Random) -> datetime:
    return datetime.combine(day, time(rng.randrange(8, 19), rng.randrange(60), rng.randrange(60)))


def _cents(rng: random.Random, low: int, high: int) -> int:
    """An amount in [low, high] that looks like a price (whole cents, often .00 or .50)."""
    value = rng.randint(low, high)
    return value - value % 50 if rng.random() < 0.4 else value


def _comply(item: ItemDraft, rng: random.Random) -> ItemDraft:
    """The item as a submitted report holds it: a justification when over the limit, a
    receipt when above the threshold."""
    if item.over_limit and not item.justification:
        item.justification = rng.choice(data.JUSTIFICATIONS[item.category])
    if item.usd_cents > RECEIPT_THRESHOLD_CENTS:
        item.receipt = True
    return item


# ---------------------------------------------------------------- trips


def _trips(world: World, staff: Staff) -> list[dict[str, Any]]:
    """The flown reservations led by an employee, with their legs and what they charged."""
    legs = seeded_rows(
        "flights", world.seed,
        "SELECT reservations.pnr, reservations.created_at, passengers.email, segments.position, "
        "origin.city AS origin_city, origin.code AS origin_code, destination.city AS city, "
        "destination.code AS code, destination.country AS country, flights.scheduled_departure, "
        "flights.scheduled_arrival, reservations.fare_class, "
        "(SELECT sum(amount) FROM payments WHERE payments.reservation_id = reservations.id) AS charged, "
        "(SELECT count(*) FROM reservation_passengers AS rp WHERE rp.reservation_id = reservations.id) AS travellers "
        "FROM reservations JOIN passengers ON passengers.id = reservations.passenger_id "
        "JOIN segments ON segments.reservation_id = reservations.id JOIN flights ON flights.id = segments.flight_id "
        "JOIN airports AS origin ON origin.id = (SELECT origin_id FROM routes WHERE routes.id = flights.route_id) "
        "JOIN airports AS destination ON destination.id = (SELECT destination_id FROM routes WHERE routes.id = flights.route_id) "
        "WHERE reservations.status = 'flown' ORDER BY reservations.id, segments.position")
    by_email = {e["email"]: e["id"] for e in staff.employees}
    trips: dict[str, dict[str, Any]] = {}
    for leg in legs:
        if leg["email"] not in by_email:
            continue
        trip = trips.setdefault(leg["pnr"], {**leg, "employee_id": by_email[leg["email"]], "legs": []})
        trip["legs"].append(leg)
    return list(trips.values())


def _stamp(text: str) -> datetime:
    return datetime.fromisoformat(text[:19])


def _travel_report(trip: dict[str, Any], rng: random.Random) -> ReportDraft:
    legs = trip["legs"]
    round_trip = len(legs) > 1 and legs[-1]["code"] == legs[0]["origin_code"]
    away = legs[len(legs) // 2 - 1] if round_trip else legs[-1]
    city, country = away["city"], away["country"]
    start = _stamp(legs[0]["scheduled_departure"]).date()
    end = _stamp(legs[-1]["scheduled_arrival"]).date() if round_trip else start + timedelta(days=rng.randint(2, 4))
    nights = max(1, (end - start).days)
    currency = COUNTRY_CURRENCY.get(country, "USD")
    route = " / ".join(f"{leg['origin_code']}-{leg['code']}" for leg in legs)
    items = [ItemDraft("airfare", _stamp(trip["created_at"]).date(), "Meridian Air",
                       f"{trip['fare_class'].title()} fare {route}, {trip['travellers']} traveller(s)",
                       int(trip["charged"]) * 100, flight_pnr=trip["pnr"])]
    hotel = rng.choice(data.MERCHANTS["lodging"])
    items.append(ItemDraft("lodging", end if round_trip else start + timedelta(days=nights), f"{hotel} {city}",
                           f"{nights} night(s) in {city}", _cents(rng, 11_000, 31_000) * nights // 100 * 100,
                           currency, quantity=nights))
    for day in sorted({rng.randrange(nights + 1) for _ in range(rng.randint(1, 3))}):
        items.append(ItemDraft("meals", start + timedelta(days=day), rng.choice(data.MERCHANTS["meals"]),
                               rng.choice(("Dinner", "Lunch", "Breakfast and dinner")), _cents(rng, 1_400, 9_800),
                               currency, receipt=rng.random() < 0.7))
    for _ in range(rng.randint(1, 3)):
        items.append(ItemDraft("ground_transport", start + timedelta(days=rng.randint(0, nights)),
                               rng.choice(data.MERCHANTS["ground_transport"]), f"Ride in {city}",
                               _cents(rng, 1_500, 16_500), currency, receipt=rng.random() < 0.7))
    if rng.random() < 0.15:
        items.append(ItemDraft("car_rental", start, rng.choice(data.MERCHANTS["car_rental"]), f"Rental car in {city}",
                               _cents(rng, 5_500, 9_800) * nights, currency, quantity=nights))
    for item in items:
        item.receipt = item.receipt or item.usd_cents > RECEIPT_THRESHOLD_CENTS or rng.random() < 0.5
    purpose = rng.choice(data.TRIP_PURPOSES).format(city=city)
    title = f"Trip to {city}, {start:%b %Y}"
    created = _at(end + timedelta(days=rng.randint(0, 4)), rng)
    return ReportDraft(trip["employee_id"], title, purpose, created, items, is_travel=True, destination=city)


# ---------------------------------------------------------------- monthly reports


def _month_report(employee_id: int, first: date, rng: random.Random, now: datetime) -> ReportDraft | None:
    last = min((first.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1), now.date())
    if last < first:
        return None
    items = []
    for _ in range(rng.choices((1, 2, 3, 4), (3, 4, 3, 1))[0]):
        category, low, high, text = rng.choice(data.OFFICE_ITEMS)
        day = first + timedelta(days=rng.randint(0, (last - first).days))
        items.append(ItemDraft(category, day, rng.choice(data.MERCHANTS[category]), text, _cents(rng, low, high),
                               receipt=rng.random() < 0.75))
    month = f"{first:%B %Y}"
    title = rng.choice(data.OFFICE_TITLES).format(month=month)
    created = _at(min(last + timedelta(days=rng.randint(0, 5)), now.date()), rng)
    if created > now:
        created = now - timedelta(hours=rng.randint(1, 20))
    return ReportDraft(employee_id, title, f"Business expenses of {month}", created, items)


# ---------------------------------------------------------------- the signed-in employee


def _mine(me: int, now: datetime, rng: random.Random) -> list[ReportDraft]:
    """Reports of the signed-in employee that every rule and transition can be tried on."""
    today = now.date()

    def ago(days: int) -> date:
        return today - timedelta(days=days)

    def item(category: str, days: int, merchant: str, text: str, cents: int, **extra: Any) -> ItemDraft:
        return ItemDraft(category, ago(days), merchant, text, cents, **extra)

    clean = ReportDraft(me, "Team offsite supplies", "Supplies and lunch for the team offsite", _at(ago(3), rng), [
        item("office_supplies", 5, "Staples", "Whiteboard markers and sticky notes", 4_260, receipt=False),
        item("meals", 4, "Sweetgreen", "Lunch during the offsite planning", 6_840, receipt=True),
        item("software", 6, "Miro", "Miro board for the offsite, one month", 1_600, receipt=True),
    ], plan="draft")
    second = ReportDraft(me, "Customer workshop prep", "Materials for the customer workshop", _at(ago(2), rng), [
        item("office_supplies", 3, "FedEx Office", "Printed workshop handouts", 5_475, receipt=False),
        item("ground_transport", 2, "Lyft", "Ride to the customer's office", 3_820, receipt=True),
    ], plan="draft")
    over = ReportDraft(me, "Partner dinner", "Dinner with the integration partner's team", _at(ago(4), rng), [
        item("meals", 6, "Corner Bistro", "Team dinner after the partner workshop", 31_250, receipt=True),
        item("ground_transport", 6, "Uber", "Ride back from the dinner", 2_940, receipt=False),
    ], plan="draft")
    no_receipt = ReportDraft(me, "Home office setup", "Equipment for working from home", _at(ago(5), rng), [
        item("office_supplies", 9, "Best Buy", "27-inch monitor", 18_999, receipt=False),
        item("office_supplies", 8, "Amazon Business", "Laptop stand", 3_499, receipt=True),
    ], plan="draft")
    stale = ReportDraft(me, "Certification renewal", "Renewal of my professional certification", _at(ago(6), rng), [
        item("conference", 124, "Coursera", "Certification exam fee", 19_900, receipt=True),
        item("software", 7, "Notion", "Notion plus plan, one month", 1_000, receipt=True),
    ], plan="draft")
    waiting = ReportDraft(me, "Q4 software renewals", "Renewals of the team's tools", _at(ago(8), rng), [
        item("software", 10, "JetBrains", "IDE license renewal", 24_900),
        item("software", 10, "Figma", "Figma seat, one month", 1_500, receipt=False),
    ], plan="submitted")
    approved = ReportDraft(me, "Client visits", "Visits to two customers in the region", _at(ago(14), rng), [
        item("ground_transport", 18, "Amtrak", "Train to the customer site and back", 12_800),
        item("client_entertainment", 17, "Eataly", "Lunch with the customer's project team", 21_430),
    ], plan="approved")
    rejected = ReportDraft(me, "Conference travel extras", "Extras around the sales conference", _at(ago(12), rng), [
        item("meals", 15, "Starbucks", "Coffee for the booth team", 4_875, receipt=True),
        item("other", 15, "UPS Store", "Shipping the booth banner", 9_120, receipt=True),
    ], plan="rejected")
    return [clean, second, over, no_receipt, stale, waiting, approved, rejected]


def _team_queue(me: int, staff: Staff, now: datetime, rng: random.Random) -> list[ReportDraft]:
    """Recent reports of the signed-in employee's team: some waiting for them, some approved."""
    team = [e["id"] for e in staff.employees if e["manager_id"] == me and e["status"] != "terminated"]
    reports = []
    for index, employee_id in enumerate(team[:6]):
        category, low, high, text = data.OFFICE_ITEMS[(index * 3) % len(data.OFFICE_ITEMS)]
        days = rng.randint(2, 9)
        items = [_comply(ItemDraft(category, now.date() - timedelta(days=days + 1), rng.choice(data.MERCHANTS[category]),
                                   text, _cents(rng, low, high), receipt=rng.random() < 0.6), rng),
                 _comply(ItemDraft("meals", now.date() - timedelta(days=days + 2), rng.choice(data.MERCHANTS["meals"]),
                                   "Working lunch", _cents(rng, 1_500, 6_500), receipt=rng.random() < 0.6), rng)]
        title = rng.choice(("Customer meeting costs", "Team lunch and tools", "Recent expenses", "Project expenses"))
        plan = "submitted" if index % 3 != 2 else "approved"
        reports.append(ReportDraft(employee_id, title, "Expenses of the last weeks", _at(now.date() - timedelta(days=days), rng),
                                   items, plan=plan))
    return reports


# ---------------------------------------------------------------- lifecycle


def _live(report: ReportDraft, staff: Staff, now: datetime, rng: random.Random) -> None:
    """Decide the report's status and history from its age (or its fixed plan)."""
    employee = report.employee_id
    approver = staff.approver_of(employee)
    events = report.events
    events.append(("created", employee, "", report.created_at))
    status = "draft"
    t = report.created_at
    plan = report.plan
    if plan == "natural" and now - t < timedelta(days=10) and rng.random() < 0.45:
        plan = "draft"
    if plan == "draft" or approver is None:
        report.row = {"status": "draft"}
        return
    for item in report.items:
        _comply(item, rng)
    rejected_once = plan == "rejected" or (plan == "natural" and rng.random() < (0.2 if now - t < timedelta(days=30) else 0.07))
    decided_at: datetime | None = None
    reason = None
    rounds = ["reject", "approve"] if rejected_once else ["approve"]
    fixed = plan != "natural"
    for step in rounds:
        t = t + timedelta(hours=rng.randint(1, 20 if fixed else 60))
        if t > now:
            break
        events.append(("submitted", employee, "", t))
        status, submitted_at = "submitted", t
        if plan == "submitted":
            break
        t = t + timedelta(hours=rng.randint(4, 20 if fixed else 150))
        if t > now:
            break
        decided_at = t
        if step == "reject":
            reason = rng.choice(data.REJECTION_REASONS)
            events.append(("rejected", approver, reason, t))
            status = "rejected"
            if plan == "rejected":
                break
            t = t + timedelta(hours=rng.randint(2, 240))
            if t > now:
                break
            events.append(("reopened", employee, "", t))
            status, decided_at = "draft", None
        else:
            events.append(("approved", approver, rng.choice(data.APPROVAL_COMMENTS), t))
            status, reason = "approved", None
            if plan == "approved":
                break
            paid_on = (t + timedelta(days=rng.randint(3, 12))).date()
            paid = datetime.combine(paid_on, time(16, 0))
            if paid <= now:
                events.append(("reimbursed", staff.treasurer, "", paid))
                status = "reimbursed"
                report.paid = (paid_on, rng.choice(("ach", "ach", "ach", "payroll")), paid)
    report.row = {"status": status, "submitted_at": submitted_at if status != "draft" else None,
                  "approver_id": approver if decided_at else None, "decided_at": decided_at,
                  "rejection_reason": reason if status == "rejected" else None}


def populate(db: Session, world: World, rng: random.Random) -> None:
    """Fill an empty expenses database from HR's employees and the airline's flown trips."""
    now = world.now
    staff = load_staff(world)
    reports: list[ReportDraft] = []
    for trip in _trips(world, staff):
        report = _travel_report(trip, rng)
        if now - timedelta(days=HISTORY_DAYS) <= report.created_at <= now:
            reports.append(report)
    first_month = (now - timedelta(days=HISTORY_DAYS)).date().replace(day=1)
    for employee in staff.employees:
        if employee["status"] == "terminated":
            continue
        month = first_month
        while month <= now.date():
            if month >= employee["hire_date"] and rng.random() < 0.45:
                report = _month_report(employee["id"], month, rng, now)
                if report is not None:
                    reports.append(report)
            month = (month.replace(day=28) + timedelta(days=4)).replace(day=1)
    reports += _mine(staff.me, now, rng) + _team_queue(staff.me, staff, now, rng)
    reports.sort(key=lambda r: (r.created_at, r.employee_id, r.title))
    for report in reports:
        _live(report, staff, now, rng)
    _write(db, staff, reports)


def _write(db: Session, staff: Staff, reports: list[ReportDraft]) -> None:
    db.execute(_insert(Employee), [{**e, "is_you": e["id"] == staff.me} for e in staff.rows()])
    db.execute(_insert(Category), [
        {"id": i, "code": code, "name": name, "limit_cents": limit, "limit_basis": basis, "gl_account": gl,
         "description": text} for i, (code, name, limit, basis, gl, text) in enumerate(data.CATEGORIES, start=1)])
    report_rows, item_rows, event_rows, paid_rows = [], [], [], []
    for report_id, report in enumerate(reports, start=1):
        last = max(e[3] for e in report.events)
        report_rows.append({
            "id": report_id, "number": f"ER-{10000 + report_id}", "title": report.title,
            "business_purpose": report.purpose, "employee_id": report.employee_id, "is_travel": report.is_travel,
            "destination": report.destination, "created_at": report.created_at, "updated_at": last,
            "submitted_at": None, "approver_id": None, "decided_at": None, "rejection_reason": None, **report.row})
        for item in sorted(report.items, key=lambda i: (i.expense_date, i.category, i.merchant)):
            item_rows.append({
                "id": len(item_rows) + 1, "report_id": report_id, "category_id": CATEGORY_IDS[item.category],
                "expense_date": item.expense_date, "merchant": item.merchant, "description": item.description,
                "currency": item.currency, "amount_cents": item.amount_cents, "usd_cents": item.usd_cents,
                "quantity": item.quantity, "receipt_attached": item.receipt,
                "receipt_file": f"receipt-{len(item_rows) + 1:05d}.pdf" if item.receipt else None,
                "justification": item.justification, "flight_pnr": item.flight_pnr,
                "created_at": report.created_at})
        for action, actor, comment, when in report.events:
            event_rows.append({"id": len(event_rows) + 1, "report_id": report_id, "actor_id": actor,
                               "action": action, "comment": comment, "created_at": when})
        if report.paid is not None:
            paid_on, method, when = report.paid
            paid_rows.append({
                "id": len(paid_rows) + 1, "report_id": report_id, "employee_id": report.employee_id,
                "amount_cents": sum(i.usd_cents for i in report.items), "method": method,
                "reference": f"{method.upper()}-{paid_on:%Y%m%d}-{report_id:05d}", "paid_on": paid_on,
                "recorded_by_id": staff.treasurer, "created_at": when})
    db.execute(_insert(Report), report_rows)
    db.execute(_insert(Item), item_rows)
    db.execute(_insert(ReportEvent), event_rows)
    db.execute(_insert(Reimbursement), paid_rows)


def _insert(model: type[Base]) -> Insert:
    return model.__table__.insert()  # type: ignore[attr-defined, no-any-return]
