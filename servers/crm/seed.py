"""The seeded CRM: a sales team working the world's customers over the last year and a half."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import count

from sqlalchemy.orm import Session

from mcpgym.servers.crm.models import (
    CALL_OUTCOMES,
    CLOSED_STAGES,
    LEAD_RATINGS,
    LEAD_SOURCES,
    LOSS_REASONS,
    OPEN_STAGES,
    OPPORTUNITY_TYPES,
    STAGE_PROBABILITY,
    TASK_PRIORITIES,
    Account,
    Activity,
    Contact,
    Lead,
    Note,
    Opportunity,
    StageChange,
    User,
)
from mcpgym.servers.kernel.world import Person, World

HISTORY_DAYS = 540
N_OPPORTUNITIES = 360
LEAD_SHARE = 0.15
CONVERTED_SHARE = 0.25
WIN_RATE = 0.45
SLIP_DAYS = 60
SLIP_RATE = 0.3
N_PARTNERS = 3
DEPARTED_DAYS = 90
"""The inactive account executive left this many days before now: newer deals went to others."""

TEAM = (
    (("sales_manager", True),) + (("account_executive", True),) * 8 + (("account_executive", False),)
    + (("sales_development_rep", True),) * 3
)
"""Role and active flag of each user, by id from 1; user 1 is the agent."""

PRODUCTS = (
    "Platform licenses", "Analytics add-on", "Premium support", "Data migration",
    "Enterprise upgrade", "Training package", "API access tier", "Security bundle",
)
NEXT_STEPS = (
    "Schedule a demo with the buying committee", "Send the revised proposal",
    "Confirm budget with finance", "Security review with their IT team",
    "Legal review of the contract", "Agree on the rollout plan", "Get the signature",
)
CALL_SUBJECTS = (
    "Discovery call with {first}", "Follow-up call with {first}", "Pricing discussion",
    "Check-in call with {first}", "Call about next steps",
)
MEETING_SUBJECTS = (
    "Product demo for {company}", "Proposal review with {first}", "Negotiation meeting",
    "Kickoff meeting with {company}", "Quarterly business review",
)
TASK_SUBJECTS = (
    "Send proposal to {first}", "Prepare a quote for {company}", "Follow up on the contract",
    "Send a case study to {first}", "Update the next steps", "Book a demo with {first}",
)
NOTE_BODIES = (
    "Decision maker is the VP of Operations; {first} is our champion.",
    "Budget is approved for this fiscal year.",
    "Competitor also in the running; they are cheaper but lack integrations.",
    "Asked for references from customers in the same industry.",
    "Wants to start with a pilot for one team before rolling out.",
    "Procurement needs three quotes before signing.",
    "Renewal date is tied to their fiscal year end.",
    "Very responsive over email, prefers calls in the morning.",
)


def _minute(t: datetime) -> datetime:
    return t.replace(second=0, microsecond=0)


def _between(rng: random.Random, start: datetime, end: datetime) -> datetime:
    """A time between `start` and `end`, to the minute (never after `end`)."""
    if end <= start:
        return _minute(end)
    return _minute(start + (end - start) * rng.random())


def _sales_team(db: Session, world: World, rng: random.Random) -> list[User]:
    people = sorted(rng.sample(world.employees, len(TEAM)), key=lambda p: p.id)
    users = [
        User(
            id=i, external_id=p.id, name=p.name, email=p.email, role=role, active=active,
            created_at=_minute(world.now - timedelta(days=rng.uniform(600, 1500))),
        )
        for i, (p, (role, active)) in enumerate(zip(people, TEAM, strict=True), start=1)
    ]
    db.add_all(users)
    return users


def _accounts(db: Session, world: World, rng: random.Random, executives: list[User]) -> list[Account]:
    start = world.now - timedelta(days=HISTORY_DAYS)
    accounts = []
    for i, org in enumerate(world.organizations[1:], start=1):
        created = _minute(start - timedelta(days=rng.uniform(30, 600)))
        accounts.append(Account(
            id=i, external_id=org.id, name=org.name, domain=org.domain, industry=org.industry,
            type="prospect", city=org.city, country=org.country,
            annual_revenue=rng.randrange(5, 5000) * 100_000, employee_count=rng.randrange(20, 20000),
            owner_id=rng.choice(executives).id, created_at=created,
            updated_at=_between(rng, created, world.now),
        ))
    db.add_all(accounts)
    return accounts


def _contacts(
    db: Session, world: World, rng: random.Random, people: list[Person], accounts: dict[str, Account]
) -> list[Contact]:
    contacts = []
    for i, person in enumerate(people, start=1):
        account = accounts[person.organization_id]
        created = _between(rng, account.created_at, world.now - timedelta(days=5))
        contacts.append(Contact(
            id=i, external_id=person.id, first_name=person.first_name, last_name=person.last_name,
            email=person.email, phone=person.phone, title=person.job_title, account_id=account.id,
            owner_id=account.owner_id, lead_source=rng.choice(LEAD_SOURCES), created_at=created,
            updated_at=_between(rng, created, world.now),
        ))
    db.add_all(contacts)
    return contacts


def _converted_lead(rng: random.Random, contact: Contact, owners: list[User], account: Account) -> Lead:
    created = _minute(contact.created_at - timedelta(days=rng.uniform(3, 60)))
    return Lead(
        external_id=contact.external_id, first_name=contact.first_name, last_name=contact.last_name,
        email=contact.email, phone=contact.phone, title=contact.title, company=account.name,
        industry=account.industry, status="converted", source=contact.lead_source or rng.choice(LEAD_SOURCES),
        rating=rng.choice(LEAD_RATINGS), owner_id=rng.choice(owners).id,
        converted_at=contact.created_at, converted_contact_id=contact.id,
        converted_account_id=contact.account_id, created_at=created, updated_at=contact.created_at,
    )


def _open_lead(rng: random.Random, now: datetime, person: Person, owners: list[User], account: Account) -> Lead:
    status = rng.choices(("new", "working", "nurturing", "unqualified"), (3, 4, 2, 2))[0]
    age = rng.randrange(1, 30) if status == "new" else rng.randrange(10, 400)
    created = _minute(now - timedelta(days=age, minutes=rng.randrange(1440)))
    return Lead(
        external_id=person.id, first_name=person.first_name, last_name=person.last_name,
        email=person.email, phone=person.phone, title=person.job_title, company=account.name,
        industry=account.industry, status=status, source=rng.choice(LEAD_SOURCES), rating=rng.choice(LEAD_RATINGS),
        owner_id=rng.choice(owners).id, converted_at=None, converted_contact_id=None,
        converted_account_id=None, created_at=created,
        updated_at=created if status == "new" else _between(rng, created, now),
    )


@dataclass
class _Deal:
    """What an opportunity is before its outcome is drawn."""

    created: datetime
    account: Account
    contact: Contact | None
    lead: Lead | None


def _deals(
    rng: random.Random, now: datetime, accounts: list[Account],
    contacts_by_account: dict[int, list[Contact]], converted: list[tuple[Lead, Contact]],
) -> list[_Deal]:
    start = now - timedelta(days=HISTORY_DAYS)
    weights = [rng.uniform(0.3, 3.0) for _ in accounts]
    deals = []
    for _ in range(N_OPPORTUNITIES):
        account = rng.choices(accounts, weights)[0]
        candidates = contacts_by_account.get(account.id, [])
        contact = rng.choice(candidates) if candidates else None
        deals.append(_Deal(_between(rng, start, now - timedelta(days=2)), account, contact, None))
    account_by_id = {a.id: a for a in accounts}
    for lead, contact in converted:
        if contact.created_at >= start and rng.random() < 0.5:
            deals.append(_Deal(contact.created_at, account_by_id[contact.account_id], contact, lead))
    deals.sort(key=lambda d: d.created)
    return deals


def _opportunity(
    db: Session, rng: random.Random, now: datetime, stage_ids: Iterator[int], opp_id: int,
    deal: _Deal, executives: list[User],
) -> Opportunity:
    owner_id = deal.account.owner_id if rng.random() < 0.8 else rng.choice(executives).id
    if deal.created > now - timedelta(days=DEPARTED_DAYS) and owner_id not in {u.id for u in executives}:
        owner_id = rng.choice(executives).id
    kind = rng.choices(OPPORTUNITY_TYPES, (5, 3, 2))[0]
    expected = deal.created + timedelta(days=rng.randrange(14, 180))
    slipped = now - timedelta(days=SLIP_DAYS) < expected <= now and rng.random() < SLIP_RATE
    if expected <= now and not slipped:
        stage = "Closed Won" if rng.random() < WIN_RATE else "Closed Lost"
        close = min(_minute(expected.replace(hour=rng.randrange(8, 19), minute=rng.randrange(60))),
                    now - timedelta(hours=1))
        path = list(OPEN_STAGES) if stage == "Closed Won" else list(OPEN_STAGES[: rng.randrange(1, 5)])
        path.append(stage)
        end = close
    else:
        if expected <= now:
            stage = rng.choice(OPEN_STAGES[2:])
        else:
            progress = (now - deal.created) / (expected - deal.created)
            stage = OPEN_STAGES[min(3, int(progress * 4))]
        close = expected.replace(hour=0, minute=0, second=0, microsecond=0)
        path = list(OPEN_STAGES[: OPEN_STAGES.index(stage) + 1])
        end = now
    times = [deal.created] + sorted(_between(rng, deal.created, end) for _ in path[1:])
    if stage in CLOSED_STAGES:
        times[-1] = close
    for i, (to_stage, when) in enumerate(zip(path, times, strict=True)):
        db.add(StageChange(id=next(stage_ids), opportunity_id=opp_id,
                           from_stage=path[i - 1] if i else None, to_stage=to_stage,
                           changed_by_id=owner_id, changed_at=when))
    probability = STAGE_PROBABILITY[stage]
    if stage in OPEN_STAGES and rng.random() < 0.1:
        probability = max(5, min(95, probability + rng.choice((-10, 10))))
    product = "Renewal " + str(close.year) if kind == "renewal" else rng.choice(PRODUCTS)
    return Opportunity(
        id=opp_id, name=f"{deal.account.name} - {product}", account_id=deal.account.id,
        contact_id=deal.contact.id if deal.contact else None, owner_id=owner_id, type=kind,
        stage=stage, probability=probability,
        amount=float(max(1000, round(rng.lognormvariate(9.6 if kind == "new_business" else 9.1, 0.7), -2))),
        close_date=close, lead_source=deal.lead.source if deal.lead else rng.choice(LEAD_SOURCES),
        next_step=rng.choice(NEXT_STEPS) if stage in OPEN_STAGES else None,
        loss_reason=rng.choice(LOSS_REASONS) if stage == "Closed Lost" else None,
        created_at=deal.created, updated_at=times[-1],
    )


def _logged(
    rng: random.Random, now: datetime, when: datetime, owner_id: int, words: dict[str, str],
    account_id: int | None = None, contact_id: int | None = None,
    opportunity_id: int | None = None, lead_id: int | None = None,
) -> Activity:
    """A call, meeting or done task that took place at `when`."""
    kind = rng.choices(("call", "meeting", "task"), (5, 3, 2) if lead_id is None else (8, 1, 1))[0]
    subjects = {"call": CALL_SUBJECTS, "meeting": MEETING_SUBJECTS, "task": TASK_SUBJECTS}[kind]
    duration = rng.choice((5, 10, 15, 20, 30, 45)) if kind == "call" else (
        rng.choice((30, 45, 60, 90)) if kind == "meeting" else None)
    done = min(now, when + timedelta(minutes=duration or rng.randrange(0, 2880)))
    return Activity(
        type=kind, subject=rng.choice(subjects).format(**words), description=None,
        status="completed", priority=rng.choice(TASK_PRIORITIES) if kind == "task" else None,
        outcome=rng.choices(CALL_OUTCOMES, (6, 3, 1))[0] if kind == "call" else None,
        scheduled_at=when, duration_minutes=duration, completed_at=done, owner_id=owner_id,
        account_id=account_id, contact_id=contact_id, opportunity_id=opportunity_id, lead_id=lead_id,
        created_at=when if kind != "task" else _minute(when - timedelta(days=rng.uniform(0, 7))),
    )


def _upcoming(
    rng: random.Random, now: datetime, owner_id: int, words: dict[str, str], kind: str,
    account_id: int | None = None, contact_id: int | None = None,
    opportunity_id: int | None = None, lead_id: int | None = None,
) -> Activity:
    """An open task (possibly overdue) or a planned meeting."""
    if kind == "task":
        when = _minute(now + timedelta(days=rng.uniform(-10, 21)))
        subject, status, duration = rng.choice(TASK_SUBJECTS), "open", None
    else:
        when = _minute(now + timedelta(days=rng.randrange(1, 35))).replace(hour=rng.randrange(14, 22), minute=0)
        subject, status, duration = rng.choice(MEETING_SUBJECTS), "planned", rng.choice((30, 60))
    return Activity(
        type=kind, subject=subject.format(**words), description=None, status=status,
        priority=rng.choice(TASK_PRIORITIES) if kind == "task" else None, outcome=None,
        scheduled_at=when, duration_minutes=duration, completed_at=None, owner_id=owner_id,
        account_id=account_id, contact_id=contact_id, opportunity_id=opportunity_id, lead_id=lead_id,
        created_at=_minute(now - timedelta(days=rng.uniform(1, 15))),
    )


def _opportunity_activities(rng: random.Random, now: datetime, opp: Opportunity, contact: Contact | None) -> list[Activity]:
    words = {"first": contact.first_name if contact else "the team", "company": opp.name.split(" - ")[0]}
    where = {"account_id": opp.account_id, "contact_id": opp.contact_id, "opportunity_id": opp.id}
    end = min(opp.close_date, now) if opp.stage in CLOSED_STAGES else now
    activities = [
        _logged(rng, now, _between(rng, opp.created_at, end), opp.owner_id, words, **where)
        for _ in range(rng.randrange(1, 6))
    ]
    if opp.stage in OPEN_STAGES:
        if rng.random() < 0.6:
            activities.append(_upcoming(rng, now, opp.owner_id, words, "task", **where))
        if rng.random() < 0.25:
            activities.append(_upcoming(rng, now, opp.owner_id, words, "meeting", **where))
    return activities


def _lead_activities(rng: random.Random, now: datetime, lead: Lead) -> list[Activity]:
    if lead.status == "new":
        return []
    words = {"first": lead.first_name, "company": lead.company}
    where = {"lead_id": lead.id, "account_id": lead.converted_account_id, "contact_id": lead.converted_contact_id}
    end = lead.converted_at or now
    activities = [
        _logged(rng, now, _between(rng, lead.created_at, end), lead.owner_id, words, **where)
        for _ in range(rng.randrange(0, 4))
    ]
    if lead.status in ("working", "nurturing") and rng.random() < 0.4:
        activities.append(_upcoming(rng, now, lead.owner_id, words, "task", lead_id=lead.id))
    return activities


def _note(rng: random.Random, when: datetime, author_id: int, first: str, **where: int | None) -> Note:
    return Note(body=rng.choice(NOTE_BODIES).format(first=first), author_id=author_id, created_at=when, **where)


def _save_in_time_order(db: Session, rows: list[Activity] | list[Note]) -> None:
    ordered = sorted(rows, key=lambda r: r.created_at)
    for i, row in enumerate(ordered, start=1):
        row.id = i
    db.add_all(ordered)


def populate(db: Session, world: World, rng: random.Random) -> None:
    """Fill an empty CRM database from the shared world."""
    now = world.now
    users = _sales_team(db, world, rng)
    executives = [u for u in users if u.role == "account_executive"]
    active_executives = [u for u in executives if u.active]
    reps = [u for u in users if u.role == "sales_development_rep"]
    accounts = _accounts(db, world, rng, executives)
    account_by_org = {a.external_id: a for a in accounts if a.external_id}
    account_by_id = {a.id: a for a in accounts}

    customers = list(world.customers)
    rng.shuffle(customers)
    n_leads = round(len(customers) * LEAD_SHARE)
    contacts = _contacts(db, world, rng, sorted(customers[n_leads:], key=lambda p: p.id), account_by_org)
    contact_by_id = {c.id: c for c in contacts}

    converted = [
        (_converted_lead(rng, c, reps + active_executives, account_by_id[c.account_id]), c)
        for c in contacts if rng.random() < CONVERTED_SHARE
    ]
    lead_owners = reps * 2 + active_executives[:2]
    open_leads = [
        _open_lead(rng, now, p, lead_owners, account_by_org[p.organization_id])
        for p in sorted(customers[:n_leads], key=lambda p: p.id)
    ]
    leads = sorted([lead for lead, _ in converted] + open_leads, key=lambda lead: lead.created_at)
    for i, lead in enumerate(leads, start=1):
        lead.id = i
    db.add_all(leads)

    contacts_by_account: dict[int, list[Contact]] = {}
    for contact in contacts:
        contacts_by_account.setdefault(contact.account_id, []).append(contact)
    stage_ids = count(1)
    opportunities = []
    for opp_id, deal in enumerate(_deals(rng, now, accounts, contacts_by_account, converted), start=1):
        opportunities.append(_opportunity(db, rng, now, stage_ids, opp_id, deal, active_executives))
        if deal.lead is not None:
            deal.lead.converted_opportunity_id = opp_id
    db.add_all(opportunities)

    won = {o.account_id for o in opportunities if o.stage == "Closed Won"}
    for account in accounts:
        account.type = "customer" if account.id in won else "prospect"
    for account in rng.sample(accounts, N_PARTNERS):
        account.type = "partner"

    activities: list[Activity] = []
    notes: list[Note] = []
    for opp in opportunities:
        contact = contact_by_id.get(opp.contact_id) if opp.contact_id else None
        activities += _opportunity_activities(rng, now, opp, contact)
        if rng.random() < 0.5:
            end = min(opp.close_date, now) if opp.stage in CLOSED_STAGES else now
            notes.append(_note(rng, _between(rng, opp.created_at, end), opp.owner_id,
                               contact.first_name if contact else "the buyer",
                               account_id=opp.account_id, opportunity_id=opp.id))
    for lead in leads:
        activities += _lead_activities(rng, now, lead)
        if lead.status != "converted" and rng.random() < 0.3:
            notes.append(_note(rng, _between(rng, lead.created_at, now), lead.owner_id, lead.first_name,
                               lead_id=lead.id))
    for contact in contacts:
        if rng.random() < 0.1:
            notes.append(_note(rng, _between(rng, contact.created_at, now), contact.owner_id,
                               contact.first_name, account_id=contact.account_id, contact_id=contact.id))
    for account in accounts:
        if rng.random() < 0.4:
            notes.append(_note(rng, _between(rng, account.created_at, now), account.owner_id,
                               "the buyer", account_id=account.id))
    _save_in_time_order(db, activities)
    _save_in_time_order(db, notes)
