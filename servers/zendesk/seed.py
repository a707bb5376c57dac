"""The seeded help desk: a year and a half of tickets from the shared world's customers."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from mcpgym.servers.kernel.world import World
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

N_TICKETS = 1500
CLOSE_AFTER_DAYS = 4
"""Solved tickets close automatically this many days after they are solved."""
HISTORY_DAYS = 540

GROUPS = (
    ("Billing", "Invoices, refunds, payment methods and plan changes."),
    ("Technical Support", "Bugs, outages, integrations and the API."),
    ("Account Management", "Logins, access, users and security."),
    ("Onboarding", "New customers getting set up."),
)

# topic -> (group, tags, ticket type, subjects, agent replies)
TOPICS: dict[str, tuple[str, tuple[str, ...], str, tuple[str, ...]]] = {
    "invoice": ("Billing", ("billing", "invoice"), "question", (
        "Invoice {n} shows the wrong amount", "Need a copy of invoice {n}",
        "Duplicate charge on invoice {n}", "VAT number missing from invoice {n}")),
    "refund": ("Billing", ("billing", "refund"), "task", (
        "Refund request for order {n}", "Charged after cancelling, please refund",
        "Partial refund for unused seats")),
    "payment": ("Billing", ("billing", "payment"), "incident", (
        "Card declined when renewing", "Payment failed for subscription {n}",
        "Cannot update payment method")),
    "plan": ("Billing", ("billing", "upgrade"), "question", (
        "Upgrade to the enterprise plan", "Question about plan pricing",
        "Downgrade request for next cycle")),
    "login": ("Account Management", ("login", "access"), "incident", (
        "Cannot log in after password reset", "Locked out of my account",
        "Two-factor codes not arriving")),
    "sso": ("Account Management", ("sso", "access"), "problem", (
        "SSO login loops back to the sign-in page", "SAML assertion rejected")),
    "users": ("Account Management", ("users",), "task", (
        "Add {n} new users to our workspace", "Remove a former employee's access",
        "Transfer account ownership")),
    "bug": ("Technical Support", ("bug",), "incident", (
        "Export to CSV fails with error {n}", "Dashboard shows blank charts",
        "Search returns no results for existing records", "Mobile app crashes on launch")),
    "outage": ("Technical Support", ("outage", "urgent_issue"), "incident", (
        "Service unavailable since this morning", "Error 503 on every request",
        "Sync stopped working for all users")),
    "api": ("Technical Support", ("api", "integration"), "question", (
        "API rate limit reached at {n} requests", "Webhook deliveries are delayed",
        "OAuth token expires too quickly")),
    "feature": ("Technical Support", ("feature_request",), "question", (
        "Feature request: dark mode", "Can we schedule reports weekly?",
        "Request: bulk edit for records")),
    "onboarding": ("Onboarding", ("onboarding",), "task", (
        "Help importing our data", "Training session for the new team",
        "Setting up the first workspace")),
    "cancel": ("Billing", ("billing", "cancellation"), "task", (
        "Cancel our subscription at renewal", "How do we close the account?")),
}
TOPIC_WEIGHTS = {
    "invoice": 9, "refund": 6, "payment": 6, "plan": 4, "login": 9, "sso": 3, "users": 5,
    "bug": 10, "outage": 3, "api": 6, "feature": 5, "onboarding": 5, "cancel": 3,
}
EXTRA_TAGS = ("vip", "follow_up", "mobile", "web", "eu", "escalated")
AGENT_REPLIES = (
    "Thanks for reaching out. I'm looking into this now.",
    "Could you send a screenshot and the time this happened?",
    "I've escalated this to the team responsible and will update you soon.",
    "This should be fixed now. Could you confirm on your side?",
    "I've applied the change to your account.",
    "Following up: is there anything else we can help with here?",
)
CUSTOMER_REPLIES = (
    "Thanks, here are the details you asked for.",
    "It's still happening for us.",
    "Confirmed, it works now. Thank you!",
    "Any update on this?",
)
INTERNAL_NOTES = (
    "Checked the logs: matches the known issue.",
    "Customer is on the annual plan; refund approved by finance.",
    "Reproduced on staging.",
)


def _second(t: datetime) -> datetime:
    return t.replace(microsecond=0)


def populate(db: Session, world: World, rng: random.Random) -> None:
    """Fill an empty Zendesk database from the shared world."""
    now = world.now
    start = now - timedelta(days=HISTORY_DAYS)
    orgs: dict[str, Organization] = {}
    for i, org in enumerate(world.organizations[1:], start=1):
        row = Organization(
            id=i, external_id=org.id, name=org.name, domain=org.domain, industry=org.industry,
            created_at=_second(start - timedelta(days=rng.randrange(30, 900))),
        )
        orgs[org.id] = row
        db.add(row)
    groups = []
    for i, (name, description) in enumerate(GROUPS, start=1):
        groups.append(Group(id=i, name=name, description=description))
    db.add_all(groups)
    group_by_name = {g.name: g for g in groups}

    agents: list[User] = []
    customers: list[User] = []
    for i, person in enumerate(world.people, start=1):
        user = User(
            id=i, external_id=person.id, name=person.name, email=person.email,
            role=("admin" if i <= 3 else "agent") if person.is_employee else "end-user",
            phone=person.phone, timezone=person.timezone,
            organization_id=None if person.is_employee else orgs[person.organization_id].id,
            default_group_id=groups[(i - 1) % len(groups)].id if person.is_employee else None,
            created_at=_second(start - timedelta(days=rng.randrange(1, 700))),
            last_login_at=None,
        )
        (agents if person.is_employee else customers).append(user)
    db.add_all(agents + customers)
    agents_by_group = {g.id: [a for a in agents if a.default_group_id == g.id] for g in groups}
    last_seen: dict[int, datetime] = {}

    topics = list(TOPIC_WEIGHTS)
    weights = [TOPIC_WEIGHTS[t] for t in topics]
    created_times = sorted(
        _second(start + timedelta(seconds=rng.randrange(HISTORY_DAYS * 86400)))
        for _ in range(N_TICKETS)
    )
    comment_id = 0
    rating_id = 0
    for ticket_id, created in enumerate(created_times, start=1):
        topic = rng.choices(topics, weights)[0]
        group_name, tags, ticket_type, subjects = TOPICS[topic]
        group = group_by_name[group_name]
        requester = rng.choice(customers)
        priority = rng.choices(("low", "normal", "high", "urgent"), (2, 6, 3, 1))[0]
        if topic == "outage":
            priority = "urgent"
        # Most tickets are solved within days; one in five drags on for weeks.
        hours = rng.expovariate(1 / (500 if rng.random() < 0.2 else 30)) + 0.5
        solved_at = _second(created + timedelta(hours=hours))
        if solved_at < now:
            status = "closed" if now - solved_at > timedelta(days=CLOSE_AFTER_DAYS) else "solved"
        else:
            solved_at = None
            status = rng.choices(("new", "open", "pending", "hold"), (2, 5, 3, 1))[0]
        assignee = None if status == "new" else rng.choice(agents_by_group[group.id])
        ticket_tags = set(tags)
        if rng.random() < 0.3:
            ticket_tags.add(rng.choice(EXTRA_TAGS))
        subject = rng.choice(subjects).format(n=rng.randrange(1000, 99999))
        description = (
            f"Hi, {subject[0].lower() + subject[1:]}. We are {requester.name.split()[0]}'s team "
            f"and this affects our work. Please advise."
        )
        end = solved_at or now
        # comments: the requester opens, then agents and requester alternate
        times = sorted(
            _second(created + (end - created) * rng.random()) for _ in range(rng.randrange(1, 7))
        )
        comment_id += 1
        comments = [Comment(id=comment_id, ticket_id=ticket_id, author_id=requester.id,
                            body=description, public=True, created_at=created)]
        for j, when in enumerate(times):
            if assignee is None:
                break
            comment_id += 1
            if rng.random() < 0.15:
                body, author, public = rng.choice(INTERNAL_NOTES), assignee, False
            elif j % 2 == 0:
                body, author, public = rng.choice(AGENT_REPLIES), assignee, True
            else:
                body, author, public = rng.choice(CUSTOMER_REPLIES), requester, True
            comments.append(Comment(id=comment_id, ticket_id=ticket_id, author_id=author.id,
                                    body=body, public=public, created_at=when))
        updated = max(c.created_at for c in comments)
        if solved_at is not None:
            updated = max(updated, solved_at)
        for c in comments:
            last_seen[c.author_id] = max(last_seen.get(c.author_id, c.created_at), c.created_at)
        db.add(Ticket(
            id=ticket_id, subject=subject, description=description, status=status,
            priority=priority, type=ticket_type, channel=rng.choice(("email", "web", "chat", "phone")),
            requester_id=requester.id, assignee_id=assignee.id if assignee else None,
            group_id=group.id, organization_id=requester.organization_id,
            created_at=created, updated_at=updated, solved_at=solved_at,
            tags=[TicketTag(tag=t) for t in sorted(ticket_tags)],
        ))
        db.add_all(comments)
        if solved_at is not None and rng.random() < 0.6:
            rating_id += 1
            fast = (solved_at - created) < timedelta(hours=24)
            score = rng.choices((1, 2, 3, 4, 5), (1, 1, 2, 4, 5) if fast else (2, 2, 3, 3, 2))[0]
            db.add(SatisfactionRating(
                id=rating_id, ticket_id=ticket_id, score=score,
                comment=None if rng.random() < 0.5 else ("Great help!" if score >= 4 else "Too slow."),
                created_at=_second(min(solved_at + timedelta(hours=rng.randrange(1, 48)), now)),
            ))
    for user in agents + customers:
        seen = last_seen.get(user.id)
        if user.role != "end-user":
            user.last_login_at = _second(now - timedelta(minutes=rng.randrange(10, 60 * 24 * 5)))
        elif seen is not None:
            user.last_login_at = _second(min(seen + timedelta(minutes=rng.randrange(0, 60 * 24 * 20)), now))
    db.add_all([
        Macro(id=1, title="Close as resolved", description="Solve the ticket with a thank-you note.",
              actions={"status": "solved", "comment": "Glad we could help! Closing this ticket as resolved."}),
        Macro(id=2, title="Escalate to Technical Support",
              description="Move to Technical Support, raise priority and tag escalated.",
              actions={"group": "Technical Support", "priority": "high", "add_tags": ["escalated"]}),
        Macro(id=3, title="Ask for more information",
              description="Set pending and ask the requester for details.",
              actions={"status": "pending", "comment": "Could you share more details so we can investigate?"}),
        Macro(id=4, title="Refund approved", description="Tag refund_approved and reply to the requester.",
              actions={"add_tags": ["refund_approved"], "status": "solved",
                       "comment": "Your refund has been approved and will arrive in 5-7 business days."}),
        Macro(id=5, title="Legacy: mark as spam", description="Retired macro.",
              actions={"status": "closed", "add_tags": ["spam"]}, active=False),
    ])
