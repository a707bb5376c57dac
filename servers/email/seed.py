"""The seeded mailbox: fifteen months of mail of a Northwind Systems account manager.

The signed-in user is the first employee of the world. Customers write about invoices,
renewals, meetings and product questions; colleagues run internal threads; a few newsletters
arrive every week and some spam in the last month. A handful of drafts wait to be sent.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import cycle

from sqlalchemy import insert
from sqlalchemy.orm import Session

from mcpgym.servers.email.models import (
    SYSTEM_LABELS,
    Attachment,
    Contact,
    Label,
    Mailbox,
    Message,
    Recipient,
    Thread,
    message_labels,
)
from mcpgym.servers.kernel.world import Person, World

HISTORY_DAYS = 455
RECENT_DAYS = 30
"""Trash and spam older than this are emptied, as Gmail does."""
N_SPAM = 24
USER_LABELS = (
    "Follow-up", "Internal", "Invoices", "Meetings", "Newsletters",
    "Projects/Atlas", "Projects/Migration", "Receipts", "Renewals",
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
ROLES = ("Account Executive", "Solutions Engineer", "Customer Success Manager", "Data Analyst")

PDF = "application/pdf"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
CSV = "text/csv"
ICS = "text/calendar"
PNG = "image/png"
SIZES = {PDF: (40_000, 900_000), XLSX: (15_000, 400_000), DOCX: (20_000, 300_000),
         CSV: (2_000, 200_000), ICS: (1_000, 4_000), PNG: (80_000, 1_500_000)}

Party = tuple[str | None, str]
"""A header address: display name and email."""


@dataclass(frozen=True)
class Subject:
    """A subject template, the file that may travel with it and the user label it implies."""

    text: str
    attachment: tuple[str, str] | None = None
    label: str | None = None


@dataclass(frozen=True)
class Kind:
    """One kind of conversation: who starts it, how it reads, how long it runs."""

    initiator: str
    length: tuple[int, int]
    reply_minutes: int
    subjects: tuple[Subject, ...]
    topics: tuple[str, ...]
    openers: tuple[str, ...]
    owner_replies: tuple[str, ...]
    other_replies: tuple[str, ...]
    label: str | None = None
    label_p: float = 0.0
    attach_on: str = "opener"
    attach_p: float = 0.0


KINDS: dict[str, tuple[int, Kind]] = {
    "invoice": (160, Kind(
        initiator="customer", length=(2, 5), reply_minutes=360, label="Invoices", label_p=0.7,
        attach_on="owner", attach_p=0.7, topics=("billing",),
        subjects=(
            Subject("Question about invoice {inv}", ("{inv}.pdf", PDF)),
            Subject("Invoice {inv} does not match {po}", ("{inv}.pdf", PDF)),
            Subject("Copy of invoice {inv}", ("{inv}.pdf", PDF)),
            Subject("Payment status of invoice {inv}", ("Remittance_{inv}.pdf", PDF)),
            Subject("Billing address on invoice {inv}", ("{inv}_revised.pdf", PDF)),
        ),
        openers=(
            "Hi {to},\n\nWe received invoice {inv} for ${amount} and the amount does not match our "
            "purchase order {po}. Could you check it?\n\nThanks,\n{me}",
            "Hi {to},\n\nCould you send me a PDF copy of invoice {inv}? Our accounts payable team "
            "needs it for the {month} close.\n\nBest,\n{me}",
            "Hello {to},\n\nOur finance team asked about the status of invoice {inv} (${amount}). "
            "Has the payment arrived on your side?\n\nRegards,\n{me}",
            "Hi {to},\n\nInvoice {inv} still shows our old billing address. Could you reissue it "
            "with the address on {po}?\n\nThanks,\n{me}",
        ),
        owner_replies=(
            "Hi {to},\n\nThanks for flagging this. I've attached invoice {inv} and asked our finance "
            "team to double-check the amount.\n\nBest,\n{me}",
            "Hi {to},\n\nFinance confirmed the correction. A revised invoice {inv} for ${amount} "
            "will follow this week.\n\nBest,\n{me}",
            "Hi {to},\n\nPayment for invoice {inv} was received on {day}. Nothing else is needed "
            "on your side.\n\nBest regards,\n{me}",
        ),
        other_replies=(
            "Thanks {to}, that works for us.\n\n{me}",
            "Hi {to},\n\nAny update on invoice {inv}? Our month-end close is on {day}.\n\n{me}",
            "Received, thank you!\n\n{me}",
        ),
    )),
    "renewal": (90, Kind(
        initiator="owner", length=(1, 6), reply_minutes=720, label="Renewals", label_p=0.8,
        attach_on="opener", attach_p=0.8, topics=("the renewal",),
        subjects=(
            Subject("{org} renewal {year}", ("Renewal_Quote_{slug}_{year}.pdf", PDF)),
            Subject("Renewal quote for {org}", ("Renewal_Quote_{slug}_{year}.pdf", PDF)),
            Subject("Upcoming renewal: {org} subscription", ("Seat_Usage_{slug}.xlsx", XLSX)),
        ),
        openers=(
            "Hi {to},\n\nYour {org} subscription renews on {renewal}. I've attached the renewal "
            "quote for {seats} seats at ${amount} per year. Let me know if you'd like to adjust "
            "the seat count.\n\nBest,\n{me}",
            "Hi {to},\n\nAhead of the {year} renewal I wanted to share your seat usage: {used} of "
            "{seats} seats are active. Happy to walk you through the options.\n\nBest,\n{me}",
        ),
        owner_replies=(
            "Hi {to},\n\nI've updated the quote to {used} seats. The new total is ${amount} per "
            "year.\n\nBest,\n{me}",
            "Hi {to},\n\nThe signed renewal came through. Thanks for another year with "
            "{home}!\n\nBest,\n{me}",
            "Hi {to},\n\nJust checking in on the renewal quote. The current term ends on "
            "{renewal}.\n\nBest,\n{me}",
        ),
        other_replies=(
            "Hi {to},\n\nThanks. Can we get a multi-year discount if we sign for two years?\n\n{me}",
            "Hi {to},\n\nWe'd like to reduce to {used} seats for the next term.\n\n{me}",
            "Hi {to},\n\nI'm waiting on budget approval and will get back to you by {day}.\n\n{me}",
        ),
    )),
    "meeting": (120, Kind(
        initiator="customer", length=(2, 4), reply_minutes=240, label="Meetings", label_p=0.5,
        attach_on="owner", attach_p=0.5,
        topics=("the integration roadmap", "contract terms", "the onboarding plan",
                "our usage review", "the security questionnaire"),
        subjects=(
            Subject("Meeting request: {topic}", ("invite.ics", ICS)),
            Subject("Catch-up call next week?", ("invite.ics", ICS)),
            Subject("Quarterly business review with {org}", ("QBR_agenda.pdf", PDF)),
            Subject("Rescheduling our {day} call", ("invite.ics", ICS)),
        ),
        openers=(
            "Hi {to},\n\nDo you have 30 minutes next {day} to talk about {topic}? Mornings work "
            "best for us.\n\nThanks,\n{me}",
            "Hi {to},\n\nSomething came up on our side. Could we move our {day} call about {topic} "
            "to later in the week?\n\n{me}",
            "Hello {to},\n\nWe'd like to set up our quarterly business review for {org}. Could you "
            "propose a few times?\n\nRegards,\n{me}",
        ),
        owner_replies=(
            "Hi {to},\n\n{day} at 10:00 works for me. I've sent a calendar invite.\n\nBest,\n{me}",
            "Hi {to},\n\nNo problem. How about {day} at 15:00 instead?\n\nBest,\n{me}",
            "Hi {to},\n\nHere is the agenda: usage review, open support questions and the roadmap "
            "for next quarter.\n\nBest,\n{me}",
        ),
        other_replies=(
            "Works for us, see you then.\n\n{me}",
            "Could we do 30 minutes later?\n\n{me}",
            "Thanks {to}, invite accepted.\n\n{me}",
        ),
    )),
    "question": (110, Kind(
        initiator="customer", length=(1, 4), reply_minutes=300, attach_on="opener", attach_p=0.2,
        topics=("user permissions", "exporting our data", "adding new team members",
                "the SSO setup", "API rate limits", "onboarding next steps"),
        subjects=(
            Subject("Question about {topic}", ("screenshot.png", PNG)),
            Subject("Help with {topic}", ("screenshot.png", PNG)),
            Subject("{org}: {topic}", ("error_log.csv", CSV)),
        ),
        openers=(
            "Hi {to},\n\nWe have a question about {topic}. Could you point us to the right "
            "documentation or someone on your team?\n\nThanks,\n{me}",
            "Hi {to},\n\nOur admins are stuck on {topic} and we'd like to sort it out before "
            "{day}. Any advice?\n\n{me}",
        ),
        owner_replies=(
            "Hi {to},\n\nGood question. I've looped in our support team, they'll follow up with "
            "the details on {topic}.\n\nBest,\n{me}",
            "Hi {to},\n\nHere's the guide for {topic}: Settings > Administration. Let me know if "
            "that helps.\n\nBest,\n{me}",
        ),
        other_replies=(
            "That worked, thanks {to}!\n\n{me}",
            "Hi {to},\n\nWe tried that but we still see the same error.\n\n{me}",
        ),
    )),
    "outreach": (100, Kind(
        initiator="owner", length=(1, 3), reply_minutes=1440, attach_on="opener", attach_p=0.3,
        topics=("the reporting module", "the new API", "your team's rollout", "the mobile app"),
        subjects=(
            Subject("Following up on our call", ("Call_summary.pdf", PDF)),
            Subject("Checking in: {org}"),
            Subject("New features this quarter", ("Northwind_Product_Overview.pdf", PDF)),
            Subject("Introduction: your account contact at {home}"),
        ),
        openers=(
            "Hi {to},\n\nGreat speaking with you earlier. As promised, here's a summary of what we "
            "discussed about {topic}. Let me know if anything is missing.\n\nBest,\n{me}",
            "Hi {to},\n\nIt's been a while since we last spoke. How is {topic} going for the {org} "
            "team?\n\nBest,\n{me}",
            "Hi {to},\n\nI'm your point of contact at {home}. I'd love to hear how {topic} is "
            "working for you.\n\nBest,\n{me}",
        ),
        owner_replies=(
            "Hi {to},\n\nJust bumping this to the top of your inbox.\n\nBest,\n{me}",
            "Hi {to},\n\nThanks for the feedback, I've shared it with our product team.\n\nBest,\n{me}",
        ),
        other_replies=(
            "Hi {to},\n\nThanks for reaching out. Things are going well; we'd like to learn more "
            "about {topic}.\n\n{me}",
            "Thanks, I'll share this with my team.\n\n{me}",
        ),
    )),
    "internal": (220, Kind(
        initiator="either", length=(1, 6), reply_minutes=180, label="Internal", label_p=0.5,
        attach_on="opener", attach_p=0.45,
        topics=("the timeline", "next steps", "the budget", "the status update", "open questions"),
        subjects=(
            Subject("Q{q} pipeline review", ("Pipeline_Q{q}_{year}.xlsx", XLSX)),
            Subject("Forecast update for {month}", ("Forecast_{month}_{year}.xlsx", XLSX)),
            Subject("Team offsite planning", ("Offsite_agenda.docx", DOCX)),
            Subject("Customer escalation: {org}"),
            Subject("Hiring: {role} candidates", ("Candidate_shortlist.pdf", PDF)),
            Subject("Weekly sync notes", ("Sync_notes.docx", DOCX)),
            Subject("Expense report for {month}", ("Expenses_{month}_{year}.csv", CSV)),
            Subject("Project Atlas: {topic}", ("Atlas_status.pdf", PDF), "Projects/Atlas"),
            Subject("Migration: {topic}", ("Migration_plan.xlsx", XLSX), "Projects/Migration"),
        ),
        openers=(
            "Hi {to},\n\nSharing the latest on this ahead of our meeting on {day}. Please add your "
            "comments by end of week.\n\nThanks,\n{me}",
            "Hi {to},\n\nCan you take a look at {topic} before {day}? I'd like to have a decision "
            "this week.\n\nThanks,\n{me}",
            "Hi {to},\n\nQuick update on {topic}: we're on track, but I need input on two open "
            "items.\n\n{me}",
        ),
        owner_replies=(
            "Thanks {to}, looks good to me.\n\n{me}",
            "Hi {to},\n\nI added my comments. One concern about {topic}; let's discuss on {day}.\n\n{me}",
            "Agreed. I'll take the first item.\n\n{me}",
        ),
        other_replies=(
            "Thanks {to}, looks good to me.\n\n{me}",
            "Can we push this to next week? I'm out on {day}.\n\n{me}",
            "Hi {to},\n\nI updated the numbers; see the latest version on the shared drive.\n\n{me}",
        ),
    )),
}

NEWSLETTERS = (
    ("The SaaS Brief", "newsletter@saasbrief.io", 7, 1),
    ("DevOps Weekly", "hello@devopsweekly.net", 7, 3),
    ("Market Pulse", "digest@marketpulse.news", 7, 0),
    ("CloudCon", "events@cloudcon.events", 30, 9),
)
HEADLINES = (
    "Pricing pages that convert", "The state of remote work", "Kubernetes cost control",
    "Five lessons from failed launches", "What buyers want from vendors", "Incident reviews done right",
    "Usage-based billing explained", "Hiring your first SRE", "The churn playbook",
    "Security questionnaires without tears", "Data residency in practice", "Forecasting with less data",
)
SPAMMERS = (
    ("Prize Center", "winner@lucky-prize.biz"), ("Account Security", "verify@secure-login-check.net"),
    ("SEO Experts", "offers@rank-first-now.biz"), ("Crypto Desk", "profits@coin-yield.biz"),
)
SPAM_SUBJECTS = (
    "You have won a $500 gift card", "Urgent: verify your account today", "Rank #1 on search in 7 days",
    "Double your investment this week", "Final notice: unclaimed reward",
)
REPLY_DRAFTS = (
    "Hi {to},\n\nThanks for your note. I'll check with the team and get back to you",
    "Hi {to},\n\nQuick answer before my next meeting:",
    "Hi {to},\n\nI looked into this and",
)


@dataclass
class Mail:
    """One message under construction, before ids are given."""

    thread: int
    sender: Party
    to: list[Party]
    cc: list[Party]
    subject: str
    body: str
    date: datetime
    labels: list[str]
    is_read: bool = True
    bcc: list[Party] = field(default_factory=list)
    attachments: list[tuple[str, str, int]] = field(default_factory=list)
    parent: Mail | None = None
    header: str = ""


def _party(person: Person) -> Party:
    return (person.name, person.email)


def _first(party: Party) -> str:
    return (party[0] or party[1]).split()[0]


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_")


def _business_time(rng: random.Random, start: datetime, end: datetime) -> datetime:
    """A random weekday time between 13:00 and 23:00 UTC (US office hours), before `end`."""
    while True:
        day = start + timedelta(days=rng.randrange((end - start).days + 1))
        when = day.replace(hour=0, minute=0, second=0) + timedelta(seconds=rng.randrange(13 * 3600, 23 * 3600))
        if day.weekday() < 5 and start <= when < end:
            return when


def _facts(rng: random.Random, kind: Kind, start: datetime, org: str, home: str, inv: int) -> dict[str, str]:
    seats = rng.randrange(10, 400)
    return {
        "inv": f"INV-{start.year}-{inv:04d}", "po": f"PO-{rng.randrange(10000, 99999)}",
        "amount": f"{rng.randrange(1200, 98000):,}.00", "org": org, "slug": _slug(org),
        "home": home, "year": str(start.year), "month": start.strftime("%B"),
        "day": rng.choice(WEEKDAYS), "q": str((start.month - 1) // 3 + 1), "role": rng.choice(ROLES),
        "seats": str(seats), "used": str(rng.randrange(5, seats + 1)),
        "renewal": (start + timedelta(days=rng.randrange(20, 60))).strftime("%B %d, %Y"),
        "topic": rng.choice(kind.topics),
    }


def _size(rng: random.Random, mime: str) -> int:
    low, high = SIZES[mime]
    return rng.randrange(low, high)


def _conversation(
    rng: random.Random, key: int, kind: Kind, owner: Person, other: Person, cc: list[Person],
    start: datetime, now: datetime, facts: dict[str, str],
) -> list[Mail]:
    """The messages of one conversation, replies reaching everyone on it, stopping before now."""
    subject = rng.choice(kind.subjects)
    base = subject.text.format(**facts)
    owner_first = kind.initiator == "owner" or (kind.initiator == "either" and rng.random() < 0.35)
    attach = subject.attachment if rng.random() < kind.attach_p else None
    others = [other, *cc]
    everyone = [owner, *others]
    mails: list[Mail] = []
    when, sender = start, owner if owner_first else other
    for i in range(rng.randint(*kind.length)):
        if i > 0:
            when += timedelta(minutes=5 + int(rng.expovariate(1 / kind.reply_minutes)))
            if when >= now:
                break
            previous = mails[-1]
            sender = owner if previous.sender[1] != owner.email else (
                other if rng.random() < 0.75 else rng.choice(others))
            to = [next(p for p in everyone if p.email == previous.sender[1])]
        else:
            to = [other] if sender is owner else [owner]
        copied = [p for p in everyone if p is not sender and p not in to]
        is_owner = sender is owner
        templates = kind.openers if i == 0 else (kind.owner_replies if is_owner else kind.other_replies)
        body = rng.choice(templates).format(to=to[0].first_name, me=sender.first_name, **facts)
        mail = Mail(
            thread=key, sender=_party(sender), to=[_party(p) for p in to],
            cc=[_party(p) for p in copied], subject=base if i == 0 else f"Re: {base}", body=body,
            date=when, labels=["SENT"] if is_owner else ["INBOX"], parent=mails[-1] if mails else None,
        )
        if attach is not None and (i == 0 if kind.attach_on == "opener" else is_owner):
            name, mime = attach
            mail.attachments.append((name.format(**facts), mime, _size(rng, mime)))
            attach = None
        mails.append(mail)
    label = subject.label or (kind.label if rng.random() < kind.label_p else None)
    if label is not None:
        for mail in mails:
            mail.labels.append(label)
    return mails


def _file_thread(rng: random.Random, mails: list[Mail], owner_email: str, now: datetime, important_p: float) -> None:
    """Reading, archiving, starring, importance and trash, as the owner left them."""
    last_age = (now - mails[-1].date).days
    archived = rng.random() < (0.85 if last_age > 45 else 0.4 if last_age > 7 else 0.1)
    trashed = last_age < RECENT_DAYS and rng.random() < 0.08
    important = rng.random() < important_p
    starred = rng.random() < 0.05
    answered = False
    for mail in reversed(mails):
        incoming = mail.sender[1] != owner_email
        if incoming:
            age = (now - mail.date).days
            unread_p = 0.5 if age < 3 else 0.2 if age < 14 else 0.02
            mail.is_read = answered or rng.random() >= unread_p
            if archived:
                mail.labels.remove("INBOX")
            if important:
                mail.labels.append("IMPORTANT")
            if starred:
                mail.labels.append("STARRED")
                starred = False
        else:
            answered = True
        if trashed:
            mail.labels.append("TRASH")


def _conversations(rng: random.Random, world: World, start: datetime) -> list[list[Mail]]:
    owner, now = world.employees[0], world.now
    colleagues = list(world.employees[1:])
    customers = list(world.customers)
    rng.shuffle(customers)
    rng.shuffle(colleagues)
    by_org: dict[str, list[Person]] = {}
    for person in world.customers:
        by_org.setdefault(person.organization_id, []).append(person)
    org_names = {org.id: org.name for org in world.organizations}
    kinds = [name for name, (count, _) in KINDS.items() for _ in range(count)]
    rng.shuffle(kinds)
    starts = sorted(_business_time(rng, start, now - timedelta(minutes=30)) for _ in kinds)
    next_customer, next_colleague = cycle(customers), cycle(colleagues)
    invoice = rng.randrange(100, 900)
    threads = []
    for key, (name, when) in enumerate(zip(kinds, starts)):
        kind = KINDS[name][1]
        if name == "invoice":
            invoice += rng.randrange(3, 20)
        if name == "internal":
            other = next(next_colleague)
            cc = rng.sample([c for c in colleagues if c is not other], rng.choice((0, 0, 1, 2, 3)))
            org = org_names[rng.choice(customers).organization_id]
        else:
            other = next(next_customer)
            peers = [p for p in by_org[other.organization_id] if p is not other]
            cc = rng.sample(peers, min(len(peers), rng.choice((0, 0, 0, 1, 2))))
            if rng.random() < 0.15:
                cc.append(rng.choice(colleagues))
            org = org_names[other.organization_id]
        facts = _facts(rng, kind, when, org, world.home.name, invoice)
        mails = _conversation(rng, key, kind, owner, other, cc, when, now, facts)
        if name != "internal" and rng.random() < 0.06:
            for mail in mails:
                mail.labels.append("Follow-up")
        for mail in mails:
            if mail.sender[1] == owner.email and name != "internal" and rng.random() < 0.04:
                mail.bcc.append(_party(rng.choice(colleagues)))
        _file_thread(rng, mails, owner.email, now, 0.4 if name == "internal" else 0.55)
        threads.append(mails)
    return threads


def _newsletters(rng: random.Random, owner: Person, start: datetime, now: datetime, first_key: int) -> list[list[Mail]]:
    threads = []
    for name, address, period, offset in NEWSLETTERS:
        domain = address.split("@")[1]
        when = start.replace(hour=13, minute=0, second=0, microsecond=0) + timedelta(days=offset)
        issue = rng.randrange(40, 200)
        while when < now:
            headline = rng.choice(HEADLINES)
            age = (now - when).days
            labels = ["Newsletters"] if rng.random() < (0.6 if age > 14 else 0.2) else ["INBOX", "Newsletters"]
            if age < RECENT_DAYS and rng.random() < 0.3:
                labels.append("TRASH")
            body = (f"{headline}\n\nThis week in {name}: three stories on {headline.lower()}, a reader "
                    f"question and upcoming events.\n\nYou are receiving this because {owner.email} "
                    f"subscribed. Unsubscribe: https://{domain}/unsubscribe")
            threads.append([Mail(
                thread=first_key + len(threads), sender=(name, address), to=[_party(owner)], cc=[],
                subject=f"{name} #{issue}: {headline}", body=body,
                date=when + timedelta(minutes=rng.randrange(0, 90)), labels=labels,
                is_read=rng.random() < (0.45 if age > 3 else 0.2),
            )])
            issue += 1
            when += timedelta(days=period)
    return threads


def _spam(rng: random.Random, owner: Person, now: datetime, first_key: int) -> list[list[Mail]]:
    threads = []
    for i in range(N_SPAM):
        name, address = rng.choice(SPAMMERS)
        subject = rng.choice(SPAM_SUBJECTS)
        threads.append([Mail(
            thread=first_key + i, sender=(name, address), to=[_party(owner)], cc=[], subject=subject,
            body=f"{subject}!\n\nClick the link below within 24 hours to claim it.\n\nhttps://{address.split('@')[1]}/claim",
            date=now - timedelta(minutes=rng.randrange(10, RECENT_DAYS * 1440)), labels=["SPAM"],
            is_read=rng.random() < 0.15,
        )])
    return threads


def _drafts(rng: random.Random, world: World, threads: list[list[Mail]], first_key: int) -> list[list[Mail]]:
    """Unsent replies in recent threads, and two new drafts; returns the new drafts' threads."""
    owner, now = world.employees[0], world.now
    waiting = [
        mails for mails in threads
        if mails[-1].sender[1] != owner.email and "TRASH" not in mails[-1].labels
        and "SPAM" not in mails[-1].labels and "Newsletters" not in mails[-1].labels
        and (now - mails[-1].date).days < 10
    ]
    for mails in rng.sample(waiting, min(5, len(waiting))):
        last = mails[-1]
        base = mails[0].subject
        mails.append(Mail(
            thread=last.thread, sender=_party(owner), to=[last.sender], cc=[], subject=f"Re: {base}",
            body=rng.choice(REPLY_DRAFTS).format(to=_first(last.sender)),
            date=min(last.date + timedelta(minutes=rng.randrange(10, 600)), now - timedelta(minutes=1)),
            labels=["DRAFT"], parent=last,
        ))
    customer = rng.choice(world.customers)
    org = next(o.name for o in world.organizations if o.id == customer.organization_id)
    return [
        [Mail(thread=first_key, sender=_party(owner), to=[_party(customer)], cc=[],
              subject=f"Proposal for {org}",
              body=f"Hi {customer.first_name},\n\nFollowing our conversation, here is the outline of "
                   "the proposal:\n- Scope\n- Timeline\n- Pricing",
              date=now - timedelta(minutes=rng.randrange(60, 4320)), labels=["DRAFT"])],
        [Mail(thread=first_key + 1, sender=_party(owner), to=[], cc=[], subject="QBR talking points",
              body="- Usage trends\n- Renewal timeline\n- Open support tickets",
              date=now - timedelta(minutes=rng.randrange(60, 4320)), labels=["DRAFT"])],
    ]


def _contacts(mails: list[Mail], world: World) -> list[Contact]:
    """Every address seen in sent or received mail (not spam, not drafts), first seen first."""
    owner = world.employees[0].email
    people = {p.email: p for p in world.people}
    org_names = {org.id: org.name for org in world.organizations}
    contacts: dict[str, Contact] = {}
    for mail in mails:
        if "SPAM" in mail.labels or "DRAFT" in mail.labels:
            continue
        for name, email in [mail.sender, *mail.to, *mail.cc, *mail.bcc]:
            if email == owner or email in contacts:
                continue
            person = people.get(email)
            contacts[email] = Contact(
                id=len(contacts) + 1, person_id=person.id if person else None, name=name, email=email,
                organization_name=org_names[person.organization_id] if person else name,
                kind=("colleague" if person.is_employee else "customer") if person else "external",
                created_at=mail.date,
            )
    return list(contacts.values())


def _rows(mails: list[Mail], thread_ids: dict[int, int], label_ids: dict[str, int]) -> dict[str, list[dict[str, object]]]:
    """Rows of the message tables for `mails`, ids given in date order."""
    for message_id, mail in enumerate(mails, start=1):
        mail.header = f"<{mail.date:%Y%m%d%H%M%S}.{message_id}@{mail.sender[1].split('@')[1]}>"
    rows: dict[str, list[dict[str, object]]] = {"messages": [], "recipients": [], "attachments": [], "labels": []}
    for message_id, mail in enumerate(mails, start=1):
        rows["messages"].append({
            "id": message_id, "thread_id": thread_ids[mail.thread], "header_id": mail.header,
            "in_reply_to": mail.parent.header if mail.parent else None, "from_name": mail.sender[0],
            "from_email": mail.sender[1], "subject": mail.subject, "body": mail.body, "date": mail.date,
            "is_read": mail.is_read,
        })
        for kind, parties in (("to", mail.to), ("cc", mail.cc), ("bcc", mail.bcc)):
            rows["recipients"].extend(
                {"message_id": message_id, "kind": kind, "name": name, "email": email} for name, email in parties
            )
        rows["attachments"].extend(
            {"message_id": message_id, "filename": filename, "mime_type": mime, "size_bytes": size}
            for filename, mime, size in mail.attachments
        )
        rows["labels"].extend({"message_id": message_id, "label_id": label_ids[name]} for name in mail.labels)
    for table in ("recipients", "attachments"):
        for row_id, row in enumerate(rows[table], start=1):
            row["id"] = row_id
    return rows


def populate(db: Session, world: World, rng: random.Random) -> None:
    """Fill an empty mail database from the shared world."""
    now = world.now
    start = now - timedelta(days=HISTORY_DAYS)
    owner = world.employees[0]
    db.add_all(
        Mailbox(id=i, person_id=p.id, name=p.name, email=p.email, job_title=p.job_title,
                created_at=start - timedelta(days=rng.randrange(30, 1500)))
        for i, p in enumerate(world.employees, start=1)
    )
    label_types = [(name, "system") for name in SYSTEM_LABELS] + [(name, "user") for name in USER_LABELS]
    db.add_all(Label(id=i, name=name, type=kind) for i, (name, kind) in enumerate(label_types, start=1))

    threads = _conversations(rng, world, start)
    threads += _newsletters(rng, owner, start, now, len(threads))
    threads += _spam(rng, owner, now, len(threads))
    threads += _drafts(rng, world, threads, len(threads))
    order = sorted(range(len(threads)), key=lambda k: (threads[k][0].date, k))
    thread_ids = {key: i for i, key in enumerate(order, start=1)}
    db.add_all(Thread(id=thread_ids[k], subject=threads[k][0].subject) for k in order)
    db.flush()

    mails = sorted((m for mails in threads for m in mails), key=lambda m: (m.date, thread_ids[m.thread]))
    rows = _rows(mails, thread_ids, {name: i for i, (name, _) in enumerate(label_types, start=1)})
    db.execute(insert(Message), rows["messages"])
    db.execute(insert(Recipient), rows["recipients"])
    db.execute(insert(Attachment), rows["attachments"])
    db.execute(insert(message_labels), rows["labels"])
    db.add_all(_contacts(mails, world))
