"""The text of the seeded wiki: page bodies of each kind (runbooks, meeting notes, how-tos,
specs, known issues, account plans, policies, ...) and how each body grew over its versions.

A `Draft` is one page's lines, each present from some version on (and maybe gone from a later
one, or changing its text: a status line going from Draft to Approved), so that every version
of a page differs from the one before it by lines added, removed or changed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

SERVICES = ("Billing Service", "Auth Gateway", "Sync Engine", "Reporting API", "Webhook Dispatcher",
            "Search Indexer", "Export Worker", "Notification Service")

RUNBOOK_PROBLEMS = (
    ("high error rate", "the error rate on the service dashboard stays above 2% for five minutes"),
    ("restart stuck workers", "jobs sit in the queue for more than ten minutes without being picked up"),
    ("database failover", "the primary database stops answering health checks"),
    ("rotate TLS certificates", "a certificate expires within 14 days (the expiry alert fires)"),
    ("clear the dead-letter queue", "the dead-letter queue holds more than 500 messages"),
    ("scale out for peak load", "CPU stays above 80% on every node for fifteen minutes"),
    ("recover from a bad deploy", "a release raises latency or errors right after it rolls out"),
    ("disk almost full", "a node reports less than 10% free disk space"),
)

RUNBOOK_STEPS = (
    "Open the {service} dashboard in Grafana and note when the problem started.",
    "Check #deploys for a release of {service} in the last hour.",
    "Run `kubectl get pods -n {slug}` and look for pods in CrashLoopBackOff.",
    "Restart the affected pods one at a time with `kubectl rollout restart deployment/{slug}`.",
    "Confirm the queue depth of {service} is falling on the dashboard.",
    "Check the database connection pool: more than 90% in use means scale out first.",
    "If a release is to blame, roll it back with `make rollback SERVICE={slug}`.",
    "Drain the node with `kubectl drain` before rebooting it.",
    "Page the owning team if error rates do not fall within 15 minutes.",
    "Post a status update in #incidents every 30 minutes until resolved.",
    "Open a ticket for the follow-up work and link it from the incident channel.",
    "Verify the fix with the synthetic checks in the status page dashboard.",
)

HOWTO_TOPICS = {
    "ENG": (
        "set up the local development environment", "run the test suite", "deploy to production",
        "roll back a release", "add a feature flag", "request database access", "write a postmortem",
        "rotate API keys", "profile a slow endpoint", "add a new service to monitoring",
    ),
    "SUP": (
        "issue a refund", "escalate a ticket to Engineering", "merge duplicate tickets", "use macros",
        "handle an outage", "reset a customer's two-factor authentication", "export a customer's data",
        "change the account owner of a workspace", "handle a GDPR deletion request",
    ),
    "SALES": (
        "request a discount approval", "log a deal in the CRM", "prepare a quarterly business review",
        "hand over an account to Customer Success",
    ),
    "HR": (
        "request time off", "submit expenses", "refer a candidate", "update your personal details",
        "book a learning budget course",
    ),
    "PROD": ("write a product spec", "run a customer interview", "prioritise the backlog"),
    "IT": (
        "set up the VPN", "reset your SSO password", "enroll a new laptop", "report a phishing email",
        "get access to a shared drive", "set up the password manager",
    ),
}

HOWTO_STEPS = (
    "Sign in with your Northwind SSO account.",
    "Open the admin console and go to Settings.",
    "Fill in the form and add a short reason.",
    "Ask your manager to approve the request in the portal.",
    "Wait for the confirmation email; it usually arrives within a business day.",
    "Check the result and note the reference number in the ticket.",
    "If anything fails, post in #help with a screenshot.",
    "Keep the link to this page in your bookmarks; it is updated regularly.",
    "Do not share credentials over chat or email.",
    "Record what you did in the team log.",
    "Double-check the customer's account id before you confirm.",
    "Close the request once the customer has confirmed.",
)

FEATURES = (
    "Dark mode", "Scheduled weekly reports", "Bulk edit for records", "SSO with Okta", "Audit log export",
    "Usage-based billing", "Mobile offline mode", "Webhook retries", "Custom fields", "Two-factor enforcement",
    "Data residency in the EU", "Role-based access control",
)

SPEC_GOALS = (
    "Let admins turn the feature on per workspace.",
    "Ship behind a feature flag and roll out to 10% of workspaces first.",
    "Keep p95 latency of the affected endpoints under 300 ms.",
    "Cover the API and the web app; the mobile app follows later.",
    "Log every change in the audit log.",
    "Make the setting visible in the billing page for enterprise plans.",
)
SPEC_QUESTIONS = (
    "Do we need a migration for existing workspaces?",
    "Which plans get the feature?",
    "Should the API expose the setting from day one?",
    "Who signs off on the security review?",
)
SPEC_DECISIONS = (
    "Decision: existing workspaces are migrated in the background.",
    "Decision: available on the Business and Enterprise plans.",
    "Decision: the API exposes the setting at launch.",
    "Decision: the security review is owned by the IT & Security team.",
)

ADR_TOPICS = (
    "Use PostgreSQL for the reporting store", "Move background jobs to a managed queue", "Adopt OpenTelemetry",
    "Split the monolith's billing module", "Standardise on gRPC between services", "Use feature flags for releases",
    "Store secrets in Vault", "Retire the legacy export format", "Adopt trunk-based development",
    "Run integration tests in ephemeral environments", "Cache search results in Redis",
    "Version the public API in the URL", "Keep customer data in-region", "Use Terraform for infrastructure",
)

COMPETITORS = ("Contoso Cloud", "Fabrikam Suite", "Globex Workspace", "Initech Desk", "Umbrella CRM", "Hooli Sync")

ACTIONS = (
    "follow up with the customer", "update the runbook", "draft the release notes", "book the design review",
    "check the error budget", "share the metrics in #general", "open a ticket for the bug", "review the pricing page",
    "prepare the demo environment", "collect feedback from the pilot customers", "update the roadmap",
    "schedule the training session",
)
AGENDA = (
    "Status of the current sprint", "Incidents since the last meeting", "Hiring update", "Customer escalations",
    "Roadmap check-in", "Release planning", "Metrics review", "Open questions from last week", "Team announcements",
    "Pipeline review", "Support backlog", "Quality and bugs",
)
DECISIONS = (
    "We keep the release date.", "The on-call rotation moves to weekly handovers on Mondays.",
    "Escalations above P2 get a daily update.", "The pilot extends by two weeks.",
    "We pause the migration until the incident review is done.", "Hiring focuses on the EU time zones.",
    "The dashboard becomes the single source for weekly metrics.", "Discounts above 20% need VP approval.",
)

PAGE_COMMENTS = (
    "Thanks, this is really helpful!", "Can we link this from the onboarding checklist?",
    "Is this still accurate after the last release?", "I followed these steps today and they worked.",
    "Who owns this page now?", "Could we add a screenshot here?", "Shared this with the new hires.",
    "Please review this before the end of the quarter.", "Great summary, thanks for writing it up.",
)
INLINE_COMMENTS = (
    "This step is out of date.", "Should this be 15 minutes instead?", "Please link the dashboard here.",
    "Typo here.", "Can we clarify who approves this?", "This needs a screenshot.",
    "Is this still true for enterprise customers?", "Let's move this to its own section.",
)

MESSAGES = {
    "runbook": ("Added escalation steps", "Updated after incident review", "Clarified a step", "Fixed a command",
                "Reviewed, no changes to the procedure", ""),
    "meeting": ("Added decisions and action items", "Ticked off action items", "Added notes", ""),
    "howto": ("Added a step", "Clarified the approval step", "Fixed typo", "Updated for the new portal", ""),
    "spec": ("Addressed review comments", "Resolved open questions", "Updated status", "Added goals", ""),
    "issue": ("Added workaround", "Updated status", "Linked the fix", "Added affected customers", ""),
    "plan": ("Updated stakeholders", "Added next steps", "Quarterly refresh", ""),
    "policy": ("Annual review", "Clarified eligibility", "Updated approval limits", "Fixed typo", ""),
    "page": ("Updated", "Added links", "Reorganised sections", "Fixed typo", ""),
    "section": ("Updated the introduction", ""),
}

EXTRA_LINES = (
    "See also the related pages in this space.", "Links: status page, service dashboard, on-call schedule.",
    "Tip: bookmark this page; it changes as the process does.", "Questions not answered here go to #help.",
    "Reviewed with the team in the weekly sync.", "Applies to the EU and US regions alike.",
    "Screenshots are attached to this page.", "The previous version of this process is in the page history.",
)
CLARIFICATIONS = (
    "Write times in UTC.", "This usually takes a few minutes.", "Ask a colleague to double-check.",
    "Write down what you changed.", "Skip this for trial workspaces.", "Only admins can do this.",
    "Mention the ticket number.", "Do this before the end of the business day.",
)


@dataclass
class Line:
    """One line of a page: its text from each version on (`states`), gone from `until` on."""

    states: list[tuple[int, str]]
    until: int | None = None

    def at(self, version: int) -> str | None:
        if version < self.states[0][0] or (self.until is not None and version >= self.until):
            return None
        text = None
        for start, value in self.states:
            if start <= version:
                text = value
        return text


@dataclass
class Draft:
    """A page to seed: its title, the lines of every version, labels and change messages."""

    title: str
    kind: str
    versions: int
    lines: list[Line] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    old_title: str | None = None
    """The title before the page was renamed at version `renamed_at`."""
    renamed_at: int = 0

    def add(self, text: str, first: int = 1, until: int | None = None) -> None:
        self.lines.append(Line([(first, text)], until))

    def changing(self, states: list[tuple[int, str]]) -> None:
        self.lines.append(Line(states))

    def grow(self, texts: list[str], rng: random.Random, kept: float = 0.6) -> None:
        """Lines present from version 1 (about `kept` of them) or added by later versions, in order."""
        later = sorted(rng.randint(2, self.versions) for _ in texts) if self.versions > 1 else []
        for index, text in enumerate(texts):
            first = 1 if self.versions == 1 or index < max(1, int(len(texts) * kept)) else later[index]
            self.add(text, first)

    def complete(self, rng: random.Random) -> list[str]:
        """The body of every version, oldest first, each differing from the one before it:
        where nothing changed, a step or list item present then gets a clarification, or a
        new line is added."""
        extras = rng.sample(EXTRA_LINES, len(EXTRA_LINES))
        bodies = [self.body(1)]
        for version in range(2, self.versions + 1):
            body = self.body(version)
            if body == bodies[-1]:
                editable = [line for line in self.lines if _is_content(line.at(version - 1)) and line.until is None
                            and len(line.states) < 3]
                if editable and (not extras or rng.random() < 0.6):
                    line = rng.choice(editable)
                    text = line.at(version - 1) or ""
                    line.states.append((version, f"{text} {rng.choice([c for c in CLARIFICATIONS if c not in text])}"))
                else:
                    self.add(extras.pop() if extras else f"Reviewed again in version {version}.", version)
                body = self.body(version)
            bodies.append(body)
        return bodies

    def body(self, version: int) -> str:
        return "\n".join(text for line in self.lines if (text := line.at(version)) is not None)

    def title_at(self, version: int) -> str:
        return self.old_title if self.old_title and version < self.renamed_at else self.title


def _is_content(text: str | None) -> bool:
    """Whether a line is a step or a list item a later version may reword."""
    return bool(text) and len(text or "") > 20 and (text or "")[:1] in "-0123456789" and "[" not in (text or "")[:4]


def _steps(rng: random.Random, pool: tuple[str, ...], count: int, **values: str) -> list[str]:
    return [f"{i}. {step.format(**values)}" for i, step in enumerate(rng.sample(pool, count), start=1)]


def _day(when: datetime) -> str:
    return when.strftime("%Y-%m-%d")


def _status(draft: Draft, rng: random.Random, values: tuple[str, ...]) -> None:
    """A status line that moves through `values` over the versions."""
    steps = min(len(values), draft.versions)
    starts = sorted(rng.sample(range(2, draft.versions + 1), steps - 1)) if steps > 1 else []
    draft.changing(list(zip([1, *starts], values)))


def runbook(rng: random.Random, service: str, problem: tuple[str, str], owner: str, versions: int,
            reviewed: list[datetime]) -> Draft:
    name, symptom = problem
    draft = Draft(f"{service}: {name}", "runbook", versions, labels=["runbook", _slug(service)])
    slug = _slug(service)
    draft.add(f"Runbook for {service}: {name}.")
    draft.add(f"Owner: {owner}")
    draft.changing([(v, f"Last reviewed: {_day(reviewed[v - 1])}") for v in range(1, versions + 1)])
    draft.add("")
    draft.add("## When to use")
    draft.add(f"Use this runbook when {symptom}.")
    draft.add("")
    draft.add("## Steps")
    draft.grow(_steps(rng, RUNBOOK_STEPS, rng.randint(4, 7), service=service, slug=slug), rng)
    draft.add("")
    draft.add("## Escalation", first=min(2, versions))
    draft.add(f"If the steps do not help within 30 minutes, page the {service} on-call and post in #incidents.",
              first=min(2, versions))
    if rng.random() < 0.3:
        draft.labels.append("on-call")
    return draft


def meeting(rng: random.Random, series: str, when: datetime, attendees: list[str], versions: int) -> Draft:
    draft = Draft(f"{series} {_day(when)}", "meeting", versions, labels=["meeting-notes"])
    draft.add(f"Date: {_day(when)}")
    draft.add(f"Attendees: {', '.join(attendees)}")
    draft.add("")
    draft.add("## Agenda")
    for item in rng.sample(AGENDA, rng.randint(3, 5)):
        draft.add(f"- {item}")
    later = min(2, versions)
    draft.add("", later)
    draft.add("## Decisions", later)
    for decision in rng.sample(DECISIONS, rng.randint(1, 3)):
        draft.add(f"- {decision}", later)
    draft.add("", later)
    draft.add("## Action items", later)
    for name, action in zip(rng.sample(attendees, min(len(attendees), rng.randint(2, 4))), rng.sample(ACTIONS, 4)):
        if versions >= 3:
            draft.changing([(later, f"- [ ] {name}: {action}"), (3, f"- [x] {name}: {action}")])
        else:
            draft.add(f"- [ ] {name}: {action}", later)
    return draft


def howto(rng: random.Random, topic: str, versions: int) -> Draft:
    draft = Draft(f"How to {topic}", "howto", versions, labels=["how-to"])
    draft.add(f"This page explains how to {topic}.")
    draft.add("")
    draft.add("## Before you start")
    draft.add("You need an active Northwind account and, for admin steps, the right role.")
    draft.add("")
    draft.add("## Steps")
    draft.grow(_steps(rng, HOWTO_STEPS, rng.randint(4, 7)), rng)
    if versions > 2 and rng.random() < 0.5:
        draft.add("Tip: the old form is still linked from the intranet; do not use it.", 1, rng.randint(2, versions))
    return draft


def spec(rng: random.Random, feature: str, owner: str, versions: int) -> Draft:
    draft = Draft(f"Spec: {feature}", "spec", versions, labels=["spec", "product"])
    if versions >= 3 and rng.random() < 0.4:
        draft.old_title, draft.renamed_at = f"Spec draft: {feature}", rng.randint(2, versions)
    _status(draft, rng, ("Status: Draft", "Status: In review", "Status: Approved"))
    draft.add(f"Owner: {owner}")
    draft.add("")
    draft.add("## Problem")
    draft.add(f"Customers keep asking for {feature.lower()}; it comes up in support tickets and renewals.")
    draft.add("")
    draft.add("## Goals")
    draft.grow([f"- {goal}" for goal in rng.sample(SPEC_GOALS, rng.randint(2, 4))], rng)
    draft.add("")
    draft.add("## Open questions")
    for question, decision in rng.sample(list(zip(SPEC_QUESTIONS, SPEC_DECISIONS)), rng.randint(1, 3)):
        answered = rng.randint(2, versions) if versions > 1 and rng.random() < 0.7 else None
        draft.add(f"- {question}", 1, answered)
        if answered is not None:
            draft.add(f"- {decision}", answered)
    return draft


def known_issue(rng: random.Random, subject: str, ticket_id: int, reported: datetime, versions: int) -> Draft:
    draft = Draft(f"Known issue: {subject}", "issue", versions, labels=["known-issue"])
    _status(draft, rng, ("Status: Investigating", "Status: Workaround available", "Status: Fixed"))
    draft.add(f"First reported in ticket #{ticket_id} on {_day(reported)}.")
    draft.add("")
    draft.add("## Symptoms")
    draft.add(f"Customers report: {subject}.")
    draft.add("")
    draft.add("## Workaround", min(2, versions))
    draft.add(rng.choice((
        "Ask the customer to sign out, clear the browser cache and sign in again.",
        "Retry the action after five minutes; the second attempt succeeds.",
        "Use the API instead of the web app until the fix ships.",
        "Switch the customer to the fallback region in the admin console.",
    )), min(2, versions))
    if versions >= 3:
        draft.add("", versions)
        draft.add("## Resolution", versions)
        draft.add(f"Fixed in release 2.{rng.randint(10, 60)}.{rng.randint(0, 9)}; confirm with the customer and "
                  "solve the ticket.", versions)
    return draft


def account_plan(rng: random.Random, company: str, industry: str, city: str, owner: str, stakeholders: list[str],
                 versions: int) -> Draft:
    draft = Draft(f"Account plan: {company}", "plan", versions, labels=["account-plan", _slug(industry)])
    draft.add(f"Industry: {industry}. Headquarters: {city}.")
    draft.add(f"Account owner: {owner}")
    draft.add("")
    draft.add("## Stakeholders")
    draft.grow([f"- {person}" for person in stakeholders], rng, kept=0.5)
    draft.add("")
    draft.add("## Goals this year")
    draft.grow([f"- {goal}" for goal in rng.sample((
        "Renew at the current seat count or more.", "Expand to a second department.",
        "Move to the annual plan.", "Run a quarterly business review every quarter.",
        "Reduce open support escalations to zero.", "Pilot the reporting add-on.",
    ), 3)], rng)
    if versions > 1:
        draft.add("")
        draft.add("## Next steps", rng.randint(2, versions))
        draft.add(f"- {rng.choice(ACTIONS).capitalize()}.", draft.lines[-1].states[0][0])
    return draft


def policy(rng: random.Random, title: str, summary: str, versions: int, reviewed: list[datetime]) -> Draft:
    draft = Draft(title, "policy", versions, labels=["policy"])
    draft.add(summary)
    draft.add("")
    draft.add("## Who it applies to")
    draft.add("All Northwind Systems employees and contractors, unless a local agreement says otherwise.")
    draft.add("")
    draft.add("## Rules")
    draft.grow([f"- {rule}" for rule in rng.sample((
        "Requests go through the HR portal.", "Your manager approves first, then HR.",
        "Keep receipts for seven years.", "Exceptions need written approval from the department head.",
        "Changes take effect on the first day of the next month.", "Questions go to people@northwind.example.",
        "The policy is reviewed every year in January.",
    ), 4)], rng)
    draft.changing([(v, f"Last reviewed: {_day(reviewed[v - 1])}") for v in range(1, versions + 1)])
    return draft


def page(rng: random.Random, title: str, intro: str, points: tuple[str, ...], versions: int,
         labels: list[str]) -> Draft:
    """A plain page: an introduction and a list that grows over the versions."""
    draft = Draft(title, "page", versions, labels=list(labels))
    draft.add(intro)
    draft.add("")
    draft.grow([f"- {point}" for point in points], rng)
    return draft


def section(title: str, intro: str, versions: int) -> Draft:
    """A page that mostly holds child pages."""
    draft = Draft(title, "section", versions)
    draft.add(intro)
    draft.add("")
    draft.add("The pages below are kept up to date by the team; use the search to find one quickly.")
    return draft


def messages(draft: Draft, rng: random.Random) -> list[str]:
    """A change message per version: the first says the page was created."""
    pool = MESSAGES[draft.kind]
    out = ["Created page" if rng.random() < 0.6 else "Initial draft"]
    for version in range(2, draft.versions + 1):
        out.append(f"Renamed from \"{draft.old_title}\"" if version == draft.renamed_at else rng.choice(pool))
    return out


def inline_anchor(body: str, rng: random.Random) -> str | None:
    """A short piece of a body's text an inline comment can quote (None if it has none)."""
    lines = [line.strip("-0123456789. []x") for line in body.splitlines()]
    lines = [line for line in lines if len(line) > 20 and not line.startswith("#")]
    if not lines:
        return None
    words = rng.choice(lines).split()
    return " ".join(words[: rng.randint(3, 7)])


def version_times(start: datetime, versions: int, end: datetime, rng: random.Random) -> list[datetime]:
    """Increasing times (whole seconds, at least a minute apart) of `versions` versions, the
    first at `start`, all before `end` (which lies at least `versions` minutes after `start`)."""
    gaps = [rng.expovariate(1 / 480) + 1 for _ in range(versions - 1)]
    room = max((end - start).total_seconds() / 3600 - versions / 60, 0.0)
    if sum(gaps) > room:
        share = room * rng.uniform(0.3, 1.0) / sum(gaps)
        gaps = [gap * share for gap in gaps]
    times = [start]
    for gap in gaps:
        times.append(times[-1] + timedelta(seconds=60 + int(gap * 3600)))
    return times


def _slug(text: str) -> str:
    return "-".join(text.lower().replace("&", "and").split())
