"""The seeded wiki of Northwind Systems: six spaces, about 440 pages in trees, their versions
over a year and a half, comments, labels and restrictions.

Every employee of the world is a user, in one department; each space belongs to a department
whose members write most of its pages. The Support space's known-issue articles are written
from the help desk's incident and problem tickets (one per subject, by the ticket's assignee
where there is one). Rows are inserted in bulk.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import insert
from sqlalchemy.orm import Session

from mcpgym.servers.docs import content
from mcpgym.servers.docs.content import Draft
from mcpgym.servers.docs.models import (
    ACTING_USER_ID,
    Comment,
    Page,
    PageLabel,
    PageRestriction,
    PageVersion,
    Space,
    User,
)
from mcpgym.servers.kernel.links import seeded_rows
from mcpgym.servers.kernel.world import World

HISTORY_DAYS = 540
"""Pages are written over this many days before the world's now."""

DEPARTMENTS = (("Engineering", 12), ("Support", 8), ("Sales", 7), ("Product", 5), ("HR", 4), ("IT", 4))
"""Departments and their sizes; the acting user (the first employee) is in Support."""

SPACES = (
    ("ENG", "Engineering", "Architecture, runbooks, releases and engineering practices of the Northwind platform.",
     "Engineering"),
    ("SUP", "Customer Support", "Known issues, troubleshooting guides and the support team's processes.", "Support"),
    ("SALES", "Sales", "Account plans, playbooks, battlecards and pipeline reviews.", "Sales"),
    ("HR", "People & HR", "Policies, benefits, hiring and onboarding for Northwind employees.", "HR"),
    ("PROD", "Product", "Roadmaps, specifications, product reviews and customer feedback.", "Product"),
    ("IT", "IT & Security", "Laptops, accounts, access requests and security practices.", "IT"),
)

N_KNOWN_ISSUES = 40
VERSIONS = {"section": (1, 3), "home": (3, 9), "runbook": (4, 22), "meeting": (1, 5), "howto": (3, 16),
            "spec": (5, 22), "issue": (2, 10), "plan": (3, 14), "policy": (3, 12), "page": (2, 10)}
"""Range of the number of versions a page of each kind has."""


Build = Callable[[int, list[datetime]], Draft]
"""Makes a page's draft from its number of versions and their times."""


@dataclass
class Planned:
    """A page to insert: where it goes, its text over its versions, who wrote each version."""

    space: str
    draft: Draft
    bodies: list[str]
    """The body of each version, oldest first."""
    parent: Planned | None
    times: list[datetime]
    authors: list[int]
    source_ticket_id: int | None = None
    viewers: list[int] = field(default_factory=list)
    editors: list[int] = field(default_factory=list)
    id: int = 0

    @property
    def depth(self) -> int:
        return 0 if self.parent is None else self.parent.depth + 1


class WikiPlanner:
    """Plans the pages of every space from the world and a random stream."""

    def __init__(self, world: World, rng: random.Random, users: list[dict[str, Any]]) -> None:
        self.world, self.rng, self.now = world, rng, world.now
        self.users = users
        self.members: dict[str, list[int]] = defaultdict(list)
        for user in users:
            self.members[user["department"]].append(user["id"])
        self.names = {user["id"]: user["name"] for user in users}
        self.pages: list[Planned] = []
        self.titles: dict[str, set[str]] = defaultdict(set)
        self.space_start: dict[str, datetime] = {}
        self.owners: dict[str, int] = {}

    # ------------------------------------------------------------ building blocks

    def versions(self, kind: str) -> int:
        low, high = VERSIONS[kind]
        return min(high, low + int(self.rng.expovariate(1 / max(1, (high - low) / 2))))

    def when(self, space: str, after: datetime | None = None) -> datetime:
        """A creation time in the space's history, after `after` (its parent's creation)."""
        start = max(self.space_start[space] + timedelta(days=10), after or self.space_start[space])
        end = self.now - timedelta(days=2)
        if end <= start:
            return start + timedelta(minutes=1)
        return start + timedelta(seconds=self.rng.randrange(int((end - start).total_seconds())))

    def times(self, created: datetime, versions: int) -> list[datetime]:
        return content.version_times(created.replace(microsecond=0), versions, self.now - timedelta(hours=1), self.rng)

    def writers(self, space: str, creator: int, versions: int) -> list[int]:
        """The author of each version: the creator first, then mostly the creator or a colleague."""
        team = self.members[SPACE_DEPARTMENT[space]]
        out = [creator]
        for _ in range(versions - 1):
            roll = self.rng.random()
            out.append(creator if roll < 0.55 else self.rng.choice(team) if roll < 0.92
                       else self.rng.randrange(1, len(self.users) + 1))
        return out

    def member(self, space: str) -> int:
        return self.rng.choice(self.members[SPACE_DEPARTMENT[space]])

    def add(self, space: str, draft: Draft, parent: Planned | None, times: list[datetime],
            creator: int | None = None, **extra: Any) -> Planned | None:
        """Plan a page; None when its title is taken in the space (it is then skipped)."""
        if draft.title.lower() in self.titles[space]:
            return None
        self.titles[space].add(draft.title.lower())
        bodies = draft.complete(self.rng)
        author = creator if creator is not None else self.member(space)
        planned = Planned(space, draft, bodies, parent, times, self.writers(space, author, draft.versions), **extra)
        self.pages.append(planned)
        return planned

    def simple(self, space: str, kind: str, parent: Planned | None, build: Build, created: datetime | None = None,
               creator: int | None = None, **extra: Any) -> Planned | None:
        """Plan a page whose text `build(versions, times)` makes."""
        versions = self.versions(kind)
        times = self.times(created or self.when(space, parent.times[0] if parent else None), versions)
        return self.add(space, build(versions, times), parent, times, creator, **extra)

    def section(self, space: str, title: str, intro: str, parent: Planned | None, created: datetime | None = None,
                **extra: Any) -> Planned:
        """A page that holds others, written by the space's owner soon after its parent."""
        earliest = parent.times[0] if parent else self.space_start[space]
        created = max(created or earliest + timedelta(hours=self.rng.randint(1, 96)), earliest + timedelta(minutes=1))
        versions = self.versions("section")
        planned = self.add(space, content.section(title, intro, versions), parent, self.times(created, versions),
                           self.owners[space], **extra)
        assert planned is not None, title
        return planned

    def home(self, space: str, name: str, description: str) -> Planned:
        rng = self.rng
        versions = self.versions("home")
        times = self.times(self.space_start[space], versions)
        points = ("Start with the sections below.", f"Questions about this space go to {self.names[self.owners[space]]}.",
                  "Use labels so pages show up in the right lists.", "Archive pages you no longer need.",
                  "Link related pages instead of copying text.")
        draft = content.page(rng, f"{name} Home", description, points, versions, ["home"])
        planned = self.add(space, draft, None, times, self.owners[space])
        assert planned is not None
        return planned

    def meetings(self, space: str, parent: Planned, series: str, every_days: int, by_year: bool) -> None:
        """Notes of a recurring meeting, under a page per year when `by_year`."""
        team = self.members[SPACE_DEPARTMENT[space]]
        day = self.space_start[space] + timedelta(days=14 + self.rng.randrange(every_days))
        years: dict[int, Planned] = {}
        while day < self.now - timedelta(days=1):
            holder = parent
            if by_year:
                if day.year not in years:
                    years[day.year] = self.section(space, f"Meeting notes {day.year}",
                                                   f"Notes of the {series.lower()} in {day.year}.", parent,
                                                   created=day - timedelta(days=1))
                holder = years[day.year]
            when = day.replace(hour=self.rng.choice((9, 10, 14, 15)), minute=0, second=0, microsecond=0)
            attendees = [self.names[u] for u in sorted(self.rng.sample(team, min(len(team), self.rng.randint(3, 6))))]
            self.simple(space, "meeting", holder,
                        lambda v, t, when=when, attendees=attendees: content.meeting(self.rng, series, when, attendees, v),
                        created=max(when, holder.times[0] + timedelta(minutes=1)))
            day += timedelta(days=every_days + self.rng.choice((-1, 0, 0, 1)))

    def howtos(self, space: str, parent: Planned) -> None:
        for topic in content.HOWTO_TOPICS[space]:
            self.simple(space, "howto", parent, lambda v, t, topic=topic: content.howto(self.rng, topic, v))

    def policies(self, space: str, parent: Planned, items: tuple[tuple[str, str], ...], editors: list[int]) -> None:
        for title, summary in items:
            self.simple(space, "policy", parent,
                        lambda v, t, title=title, summary=summary: content.policy(self.rng, title, summary, v, t),
                        editors=editors)

    def pages_of(self, space: str, parent: Planned, kind: str, items: tuple[tuple[str, str, tuple[str, ...]], ...],
                 labels: list[str], **extra: Any) -> None:
        for title, intro, points in items:
            self.simple(space, kind, parent, lambda v, t, title=title, intro=intro, points=points:
                        content.page(self.rng, title, intro, points, v, labels), **extra)

    def monthly(self, space: str, parent: Planned, title: str, lines: Any, labels: list[str]) -> None:
        """A report page per month of the space's history (`title` formats the month)."""
        month = (self.space_start[space] + timedelta(days=40)).replace(day=1, hour=9, minute=0, second=0, microsecond=0)
        while True:
            following = (month + timedelta(days=32)).replace(day=1)
            created = following + timedelta(days=self.rng.randint(1, 4), hours=self.rng.randint(0, 8))
            if created >= self.now - timedelta(days=1):
                break
            name = month.strftime("%B %Y")
            self.simple(space, "page", parent, lambda v, t, name=name: content.page(
                self.rng, title.format(month=name), f"Figures for {name}.", lines(self.rng), v, labels),
                created=created)
            month = following

    # ------------------------------------------------------------ the spaces

    def engineering(self, home: Planned) -> None:
        space, rng = "ENG", self.rng
        runbooks = self.section(space, "Runbooks", "Step-by-step procedures for the on-call engineer.", home)
        for service in content.SERVICES:
            holder = self.section(space, f"{service} runbooks", f"Runbooks of the {service}.", runbooks)
            for problem in rng.sample(content.RUNBOOK_PROBLEMS, rng.randint(2, 4)):
                self.simple(space, "runbook", holder, lambda v, t, service=service, problem=problem: content.runbook(
                    rng, service, problem, self.names[self.member(space)], v, t))
        architecture = self.section(space, "Architecture", "How the platform fits together.", home)
        self.pages_of(space, architecture, "page", (
            ("Architecture overview", "The Northwind platform is a set of services behind the Auth Gateway.",
             tuple(f"{s} owns its data and talks to others over gRPC." for s in content.SERVICES)),
            *((f"{s} design", f"Design notes of the {s}.", ("Runs on Kubernetes in two regions.",
               "Stores its state in PostgreSQL.", "Publishes events to the message bus.", "Has a 99.9% availability SLO.",
               "Exposes metrics to Prometheus.")) for s in content.SERVICES),
        ), ["architecture"])
        decisions = self.section(space, "Architecture decisions", "Decisions recorded as ADRs.", home)
        for number, topic in enumerate(content.ADR_TOPICS, start=1):
            self.pages_of(space, decisions, "page", ((f"ADR-{number:03d}: {topic}", f"Decision: {topic.lower()}.", (
                "Context: the current approach does not scale with our customers.", "Decision: adopted by the platform team.",
                "Consequences: teams migrate within two quarters.", "Status: accepted.")),), ["adr", "architecture"])
        self.howtos(space, self.section(space, "How-to guides", "Short guides for everyday engineering tasks.", home))
        notes = self.section(space, "Meeting notes", "Notes of the engineering meetings.", home)
        self.meetings(space, notes, "Engineering weekly sync", 14, by_year=True)
        releases = self.section(space, "Releases", "Release notes of the platform.", home)
        day, minor = self.space_start[space] + timedelta(days=30), 10
        while day < self.now - timedelta(days=2):
            items = tuple(rng.sample((
                "Faster CSV exports for large workspaces.", "Webhook retries with exponential backoff.",
                "Fixed SSO login loop for some identity providers.", "New audit log events for admin changes.",
                "Search results now include archived records.", "Fixed a crash of the mobile app on launch.",
                "Reduced API latency for list endpoints.", "Two-factor codes now arrive by email as a fallback.",
            ), 4))
            self.simple(space, "page", releases, lambda v, t, minor=minor, items=items: content.page(
                rng, f"Release 2.{minor}", f"What changed in release 2.{minor}.", items, v, ["release-notes"]),
                created=day)
            day += timedelta(days=rng.randint(28, 42))
            minor += 1
        team = self.members["Engineering"]
        self.pages_of(space, home, "page", (("On-call handbook", "How the engineering on-call rotation works.", (
            "The rotation is one week, handed over on Mondays at 10:00.", "Acknowledge pages within 5 minutes.",
            "Use the runbooks before improvising.", "Write a postmortem for every P1 incident.",
            "Hand over open incidents in #oncall.")),), ["on-call", "policy"],
            editors=sorted({self.owners[space], *rng.sample(team, 2)}))

    def support(self, home: Planned, tickets: list[dict[str, Any]], by_email: dict[str, int]) -> None:
        space, rng = "SUP", self.rng
        issues = self.section(space, "Known issues", "Known problems, their workarounds and status.", home)
        for ticket in self.known_issue_tickets(tickets):
            reported = datetime.fromisoformat(ticket["created_at"])
            created = min(reported + timedelta(hours=rng.randint(4, 120)), self.now - timedelta(hours=3))
            writer = by_email.get(ticket["assignee_email"] or "") or self.member(space)
            self.simple(space, "issue", issues, lambda v, t, ticket=ticket, reported=reported: content.known_issue(
                rng, ticket["subject"], ticket["id"], reported, v), created=created, creator=writer,
                source_ticket_id=ticket["id"])
        self.howtos(space, self.section(space, "How-to guides", "How the support team does things.", home))
        troubleshooting = self.section(space, "Troubleshooting", "Guides for diagnosing common customer problems.", home)
        self.pages_of(space, troubleshooting, "howto", tuple(
            (f"Troubleshooting {topic}", f"What to check when a customer reports a problem with {topic}.", (
                "Ask for the workspace id and the time of the problem.", "Check the status page for incidents.",
                "Look for the customer's requests in the logs.", "Compare with the known issues list.",
                "Escalate to Engineering with the findings if nothing matches."))
            for topic in ("SSO logins", "webhooks", "CSV exports", "mobile sync", "payment failures", "API rate limits")
        ), ["troubleshooting"])
        notes = self.section(space, "Meeting notes", "Notes of the support team meetings.", home)
        self.meetings(space, notes, "Support weekly sync", 14, by_year=True)
        reports = self.section(space, "Reports", "Monthly support figures.", home)
        self.monthly(space, reports, "Support KPIs {month}", lambda r: (
            f"Tickets solved: {r.randint(60, 110)}", f"Median first reply: {r.randint(20, 240)} minutes",
            f"Satisfaction: {r.randint(70, 96)}%", f"Escalations to Engineering: {r.randint(2, 15)}"), ["report", "kpi"])
        team = self.members["Support"]
        owner = self.owners[space]
        self.pages_of(space, home, "page", (("Escalation contacts", "Who to call when a customer escalation needs help.", (
            "Billing: the finance on-call.", "Outages: the engineering on-call.", "Security: the IT & Security team.",
            "Enterprise accounts: the account owner in Sales.")),), ["escalation"],
            viewers=sorted(team), editors=sorted({owner, ACTING_USER_ID}))
        self.pages_of(space, home, "policy", (("Refund guidelines", "When support agents may refund a customer.", (
            "Refunds up to 200 USD need no approval.", "Larger refunds need the support lead's approval.",
            "Refunds are only for charges of the last 60 days.", "Log every refund on the ticket.")),), ["refund", "policy"],
            editors=sorted({owner, ACTING_USER_ID}))

    def known_issue_tickets(self, tickets: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The first ticket of each subject worth an article: every subject without a number, and
        a sample of the numbered ones, up to `N_KNOWN_ISSUES`."""
        first: dict[str, dict[str, Any]] = {}
        for ticket in tickets:
            if datetime.fromisoformat(ticket["created_at"]) < self.now - timedelta(days=3):
                first.setdefault(ticket["subject"], ticket)
        plain = [s for s in sorted(first) if not any(ch.isdigit() for ch in s)]
        numbered = [s for s in sorted(first) if any(ch.isdigit() for ch in s)]
        chosen = plain + self.rng.sample(numbered, max(0, min(len(numbered), N_KNOWN_ISSUES - len(plain))))
        return sorted((first[s] for s in chosen), key=lambda t: (t["created_at"], t["id"]))

    def sales(self, home: Planned) -> None:
        space, rng = "SALES", self.rng
        plans = self.section(space, "Account plans", "One plan per key customer account.", home)
        team = self.members["Sales"]
        people = defaultdict(list)
        for person in self.world.customers:
            people[person.organization_id].append(person)
        for organization in rng.sample(list(self.world.organizations[1:]), 30):
            contacts = rng.sample(people[organization.id], min(len(people[organization.id]), rng.randint(1, 4)))
            stakeholders = [f"{p.name}, {p.job_title} ({p.email})" for p in contacts] or ["To be identified."]
            owner = rng.choice(team)
            self.simple(space, "plan", plans, lambda v, t, o=organization, s=stakeholders, owner=owner: content.account_plan(
                rng, o.name, o.industry, o.city, self.names[owner], s, v), creator=owner)
        cards = self.section(space, "Battlecards", "How we win against each competitor.", home)
        self.pages_of(space, cards, "page", tuple((f"Battlecard: {c}", f"How Northwind compares with {c}.", (
            "They lack an audit log.", "Their pricing is per feature, ours per seat.", "Our API limits are higher.",
            "They have no EU data residency.", "Their support answers within two business days.")) for c in content.COMPETITORS),
            ["battlecard", "competition"])
        playbooks = self.section(space, "Playbooks", "How we sell to each segment.", home)
        self.pages_of(space, playbooks, "page", tuple((f"Sales playbook: {segment}", f"Selling to {segment.lower()} customers.", (
            "Qualify budget and timeline in the first call.", "Offer a two-week pilot.", "Involve a solutions engineer early.",
            "Send the security questionnaire before procurement asks.", "Close with an annual plan.")) for segment in
            ("Small business", "Mid-market", "Enterprise")), ["playbook"])
        notes = self.section(space, "Meeting notes", "Notes of the sales team meetings.", home)
        self.meetings(space, notes, "Sales pipeline meeting", 21, by_year=False)
        reviews = self.section(space, "Pipeline reviews", "Quarterly pipeline reviews.", home)
        current = self.now.year * 4 + (self.now.month - 1) // 3
        for index in range(current - 5, current):
            year, quarter = divmod(index, 4)
            next_year, next_quarter = divmod(index + 1, 4)
            following = datetime(next_year, next_quarter * 3 + 1, 5, 10)
            items = (f"New pipeline: {rng.randint(40, 90)} opportunities.", f"Win rate: {rng.randint(18, 35)}%.",
                     f"Largest deal: {rng.randint(80, 400)}k USD.", "Forecast: on target.")
            self.simple(space, "page", reviews, lambda v, t, q=quarter + 1, y=year, items=items: content.page(
                rng, f"Pipeline review Q{q} {y}", f"The pipeline at the end of Q{q} {y}.", items, v, ["pipeline"]),
                created=min(following, self.now - timedelta(days=2)))
        self.pages_of(space, home, "page", (("Pricing FAQ", "Answers to the pricing questions customers ask most.", (
            "Plans are billed per seat, monthly or annually.", "Annual plans get two months free.",
            "Nonprofits get 30% off.", "Seats can be added at any time, prorated.")),), ["pricing"])
        self.pages_of(space, home, "policy", (("Discount approval policy", "Who may approve which discount.", (
            "Up to 10%: the account executive.", "Up to 20%: the sales manager.", "Above 20%: the VP of Sales.",
            "Multi-year deals need finance review.")),), ["pricing", "policy"],
            editors=sorted({self.owners[space], rng.choice(team)}))

    def hr(self, home: Planned) -> None:
        space, rng = "HR", self.rng
        team = sorted(self.members["HR"])
        self.policies(space, self.section(space, "Policies", "The company's HR policies.", home), (
            ("Parental leave policy", "Northwind offers 20 weeks of paid parental leave."),
            ("Expense policy", "What you can expense and how to claim it."),
            ("Travel policy", "How to book and pay for business travel."),
            ("Remote work policy", "Working from home and from abroad."),
            ("Code of conduct", "How we treat each other, customers and partners."),
            ("Time off policy", "Vacation, sick leave and public holidays."),
            ("Learning budget policy", "Each employee has 1,500 USD a year for learning."),
        ), team)
        benefits = self.section(space, "Benefits", "Benefits of Northwind employees.", home)
        self.pages_of(space, benefits, "page", (
            ("Health insurance", "Our health insurance plans.", ("Coverage starts on your first day.",
             "Dependants can be added within 30 days.", "The dental plan is optional.")),
            ("Pension plan", "How the company matches your pension contributions.", ("We match up to 5% of salary.",
             "Vesting is immediate.", "Change your contribution once a quarter.")),
            *((f"Holiday calendar {year}", f"Public holidays observed in {year}.", ("New Year's Day.", "Memorial Day.",
               "Independence Day.", "Labor Day.", "Thanksgiving.", "Christmas Day."))
              for year in (self.now.year, self.now.year + 1)),
        ), ["benefits"])
        hiring = self.section(space, "Hiring", "How we hire.", home)
        self.pages_of(space, hiring, "howto", (
            ("Hiring process", "The steps from job opening to offer.", ("Open the role in the applicant tracker.",
             "Screen call with a recruiter.", "Two interviews and a work sample.", "Debrief within 48 hours.", "Offer approved by HR.")),
            *((f"Interview guide: {role}", f"Questions and scorecard for {role} candidates.", ("Start with the candidate's background.",
               "Ask for a concrete example of past work.", "Leave ten minutes for their questions.", "Fill in the scorecard the same day."))
              for role in ("Software Engineer", "Support Specialist", "Account Executive", "Product Manager")),
        ), ["hiring"])
        onboarding = self.section(space, "Onboarding", "Checklists for new hires.", home)
        self.pages_of(space, onboarding, "howto", tuple((f"Onboarding checklist: {department}", f"The first weeks in {department}.", (
            "Collect your laptop from IT on day one.", "Meet your onboarding buddy.", "Read the pages of your team's space.",
            "Set up your accounts and two-factor authentication.", "Book a coffee with your manager's peers."))
            for department, _ in DEPARTMENTS), ["onboarding"])
        confidential = self.section(space, "Confidential", "Restricted to the HR team.", home, viewers=team, editors=team)
        self.pages_of(space, confidential, "page", (
            (f"Salary bands {self.now.year}", "Salary bands per level.", ("L1: 60-75k.", "L2: 75-95k.", "L3: 95-125k.", "L4: 125-160k.")),
            (f"Headcount plan {self.now.year + 1}", "Planned hires per department.", ("Engineering: 6.", "Support: 3.", "Sales: 4.", "Product: 1.")),
            ("Performance calibration notes", "Outcomes of the last calibration round.", ("Ratings were calibrated per level.",
             "Promotions take effect in January.", "Appeals go to the HR lead.")),
        ), ["confidential"])

    def product(self, home: Planned) -> None:
        space, rng = "PROD", self.rng
        roadmap = self.section(space, "Roadmap", "What we plan to build, by half-year.", home)
        current = self.now.year * 2 + (self.now.month - 1) // 6
        for index in range(current - 2, current + 2):
            year, half = divmod(index, 2)
            created = max(datetime(year, 1 + 6 * half, 1, 9) - timedelta(days=45), roadmap.times[0] + timedelta(days=1))
            if created < self.now - timedelta(days=2):
                features = tuple(f"{feature}." for feature in rng.sample(content.FEATURES, 5))
                self.simple(space, "page", roadmap, lambda v, t, y=year, h=half + 1, f=features: content.page(
                    rng, f"Roadmap {y} H{h}", f"The product roadmap of {y} H{h}.", f, v, ["roadmap"]), created=created)
        specs = self.section(space, "Specs", "Product specifications.", home)
        owner = self.owners[space]
        for feature in content.FEATURES:
            creator = self.member(space)
            planned = self.simple(space, "spec", specs, lambda v, t, feature=feature, creator=creator: content.spec(
                rng, feature, self.names[creator], v), creator=creator)
            if planned is not None and planned.bodies[-1].startswith("Status: Approved") and rng.random() < 0.5:
                planned.editors = sorted({owner, creator})
        notes = self.section(space, "Meeting notes", "Notes of the product reviews.", home)
        self.meetings(space, notes, "Product review", 21, by_year=False)
        feedback = self.section(space, "Customer feedback", "Monthly digests of what customers ask for.", home)
        self.monthly(space, feedback, "Customer feedback digest {month}", lambda r: tuple(
            f"{feature}: {r.randint(2, 30)} requests" for feature in r.sample(content.FEATURES, 4)), ["feedback"])
        self.pages_of(space, home, "page", (("Product decisions log", "Decisions the product team took, newest last.",
            tuple(decision.removeprefix("Decision: ") for decision in content.SPEC_DECISIONS)),), ["decisions"])

    def it(self, home: Planned) -> None:
        space, rng = "IT", self.rng
        team = sorted(self.members["IT"])
        self.howtos(space, self.section(space, "How-to guides", "Self-service guides.", home))
        policies = self.section(space, "Policies", "IT and security policies.", home)
        self.policies(space, policies, (
            ("Acceptable use policy", "How company devices and accounts may be used."),
            ("Laptop refresh policy", "Laptops are replaced every three years."),
            ("Password policy", "Passwords, the password manager and two-factor authentication."),
            ("Security incident response plan", "What to do when a security incident is suspected."),
        ), team)
        self.pages_of(space, home, "page", (
            ("Approved software list", "Software you may install without asking.", ("Slack.", "Zoom.", "1Password.",
             "Visual Studio Code.", "Google Chrome.", "Figma.")),
            ("Access request process", "How to get access to a system.", ("Request access in the IT portal.",
             "Your manager approves.", "The system owner approves admin access.", "Access is reviewed every quarter.")),
        ), ["access"])
        engineers = rng.sample(self.members["Engineering"], 3)
        reviewers = sorted({*team, *(u for u in engineers if u != ACTING_USER_ID)})
        postmortems = self.section(space, "Security incident postmortems", "Restricted: security incidents and their follow-up.",
                                   home, viewers=reviewers, editors=team)
        for _ in range(5):
            created = self.when(space, postmortems.times[0])
            self.simple(space, "page", postmortems, lambda v, t, day=f"{created:%Y-%m-%d}": content.page(
                rng, f"Postmortem: security incident {day}", "Summary, timeline and follow-up of the incident.", (
                    "Detected by an alert on unusual logins.", "Contained within two hours.",
                    "No customer data was accessed.", "Follow-up: enforce two-factor authentication for admins."),
                v, ["postmortem", "security"]), created=created)

    # ------------------------------------------------------------ plan everything

    def plan(self, tickets: list[dict[str, Any]]) -> list[Planned]:
        by_email = {user["email"]: user["id"] for user in self.users}
        builders = {"ENG": self.engineering, "SUP": lambda home: self.support(home, tickets, by_email), "SALES": self.sales,
                    "HR": self.hr, "PROD": self.product, "IT": self.it}
        for key, name, description, department in SPACES:
            self.space_start[key] = (self.now - timedelta(days=HISTORY_DAYS + self.rng.randint(20, 60))).replace(
                minute=0, second=0, microsecond=0)
            self.owners[key] = self.rng.choice(self.members[department])
            builders[key](self.home(key, name, description))
        return self.pages


SPACE_DEPARTMENT = {key: department for key, _, _, department in SPACES}


def _users(world: World, rng: random.Random) -> list[dict[str, Any]]:
    """Every employee, in world order, each in a department (the acting user in Support)."""
    employees = world.employees
    others = list(range(1, len(employees)))
    rng.shuffle(others)
    departments: dict[int, str] = {0: "Support"}
    cursor = 0
    for department, size in DEPARTMENTS:
        take = size - (department == "Support")
        for index in others[cursor:cursor + take]:
            departments[index] = department
        cursor += take
    return [{"id": i + 1, "external_id": p.id, "name": p.name, "email": p.email, "job_title": p.job_title,
             "department": departments[i], "timezone": p.timezone,
             "created_at": (world.now - timedelta(days=rng.randint(600, 1500))).replace(microsecond=0)}
            for i, p in enumerate(employees)]


def _comments(planned: list[Planned], rng: random.Random, now: datetime, users: int) -> list[dict[str, Any]]:
    """Page and inline comments; inline ones quote the current text, and most are resolved."""
    rows: list[dict[str, Any]] = []
    for page in planned:
        if page.draft.kind == "section":
            continue
        for _ in range(rng.choices((0, 1, 2, 3, 4, 5), (30, 26, 18, 12, 8, 6))[0]):
            created = page.times[0] + (now - page.times[0]) * rng.random()
            anchor = content.inline_anchor(page.bodies[-1], rng) if rng.random() < 0.45 else None
            author = rng.choice(page.authors) if rng.random() < 0.4 else rng.randrange(1, users + 1)
            resolved = anchor is not None and now - created > timedelta(days=2) and rng.random() < 0.6
            rows.append({
                "page_id": page.id, "author_id": author,
                "body": rng.choice(content.INLINE_COMMENTS if anchor else content.PAGE_COMMENTS),
                "inline_text": anchor, "resolved": resolved,
                "resolved_by_id": page.authors[-1] if resolved else None,
                "resolved_at": (created + (now - created) * rng.random()).replace(microsecond=0) if resolved else None,
                "created_at": created.replace(microsecond=0),
            })
    rows.sort(key=lambda row: (row["created_at"], row["page_id"]))
    return [{"id": i, **row} for i, row in enumerate(rows, start=1)]


def populate(db: Session, world: World, rng: random.Random) -> None:
    """Fill an empty wiki database from the shared world and the help desk's tickets."""
    users = _users(world, rng)
    tickets = seeded_rows(
        "zendesk", world.seed,
        "SELECT tickets.id, tickets.subject, tickets.created_at, users.email AS assignee_email FROM tickets "
        "LEFT JOIN users ON users.id = tickets.assignee_id WHERE tickets.type IN ('incident', 'problem') "
        "ORDER BY tickets.created_at, tickets.id")
    planner = WikiPlanner(world, rng, users)
    planned = planner.plan(tickets)
    planned.sort(key=lambda p: (p.times[0], p.depth, p.space, p.draft.title))
    for number, page in enumerate(planned, start=1):
        page.id = number
        assert page.parent is None or page.parent.id < page.id, page.draft.title
    siblings: dict[tuple[str, int | None], list[Planned]] = defaultdict(list)
    for page in planned:
        siblings[(page.space, page.parent.id if page.parent else None)].append(page)
    positions = {page.id: index for group in siblings.values() for index, page in enumerate(group, start=1)}
    space_ids = {key: i for i, (key, *_) in enumerate(SPACES, start=1)}

    db.execute(insert(User.__table__), users)
    db.execute(insert(Space.__table__), [
        {"id": space_ids[key], "key": key, "name": name, "description": description,
         "owner_id": planner.owners[key], "created_at": planner.space_start[key]}
        for key, name, description, _ in SPACES])
    db.execute(insert(Page.__table__), [
        {"id": p.id, "space_id": space_ids[p.space], "parent_id": p.parent.id if p.parent else None,
         "position": positions[p.id], "title": p.draft.title, "version": p.draft.versions, "author_id": p.authors[0],
         "created_at": p.times[0], "updated_by_id": p.authors[-1], "updated_at": p.times[-1],
         "source_ticket_id": p.source_ticket_id}
        for p in planned])
    versions = []
    for p in planned:
        for number, (when, author, message) in enumerate(zip(p.times, p.authors, content.messages(p.draft, rng)), start=1):
            versions.append({"page_id": p.id, "number": number, "title": p.draft.title_at(number),
                             "body": p.bodies[number - 1], "author_id": author, "created_at": when, "message": message})
    versions.sort(key=lambda row: (row["created_at"], row["page_id"], row["number"]))
    db.execute(insert(PageVersion.__table__), [{"id": i, **row} for i, row in enumerate(versions, start=1)])
    db.execute(insert(Comment.__table__), _comments(planned, rng, world.now, len(users)))
    db.execute(insert(PageLabel.__table__), [{"page_id": p.id, "label": label} for p in planned for label in sorted(set(p.draft.labels))])
    db.execute(insert(PageRestriction.__table__), [
        {"page_id": p.id, "operation": operation, "user_id": user}
        for p in planned for operation, people in (("view", p.viewers), ("edit", p.editors)) for user in sorted(set(people))])
