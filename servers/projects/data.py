"""The fixed texts of the seeded tracker: projects, components, epics, summaries, goals,
comments. Summaries are built from these parts by `seed.py` with the seeded random stream."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ProjectPlan:
    """A seeded project: identity, how it works, and the parts its issues are written from."""

    key: str
    name: str
    description: str
    type: str
    workflow: str
    components: tuple[tuple[str, str], ...]
    team_size: int
    epics: tuple[str, ...] = ()
    sprint_days: int | None = None
    closed_sprints: int = 0
    velocity: int = 0
    """Story points the team usually completes in a sprint."""
    persona: str = "a user"
    actions: tuple[str, ...] = ()
    """What stories let their persona do."""
    tasks: tuple[str, ...] = ()
    """Task summaries; `{area}` is one of the project's components."""
    symptoms: tuple[str, ...] = ()
    """Bug summaries follow `<component>: <symptom>`."""
    goals: tuple[str, ...] = ()
    phase: str = "mid"
    """Where the scrum team is now: `mid` (an active sprint under way), `ending` (the active
    sprint ended this morning, its unfinished work already moved to the next sprint: ready to
    close) or `between` (the last sprint closed days ago, the next one planned, not started)."""


SUPPORT = ProjectPlan(
    key="SUP", name="Customer Support Escalations",
    description="Defects and incidents escalated from the help desk; each customer-reported bug names its Zendesk ticket.",
    type="kanban", workflow="Service", team_size=7,
    components=(("Web app", "The browser application"), ("Mobile app", "iOS and Android apps"),
                ("API", "Public REST API and webhooks"), ("Authentication", "Login, SSO and two-factor"),
                ("Billing", "Payments, invoices and plans"), ("Infrastructure", "Availability and sync"),
                ("Data export", "CSV and report exports")),
    tasks=("Write a runbook for {area} escalations", "Investigate recurring {area} reports",
           "Add a help-center article on {area} errors", "Review escalation backlog for {area}",
           "Reproduce customer setup for {area} issues", "Collect logs for open {area} cases"),
)

WEB = ProjectPlan(
    key="WEB", name="Web App",
    description="The Northwind browser application: dashboards, reports, search, settings and billing pages.",
    type="scrum", workflow="Software development", team_size=8, sprint_days=21, closed_sprints=13, velocity=34,
    components=(("Dashboard", "Home dashboard and charts"), ("Reports", "Report builder and exports"),
                ("Search", "Global and record search"), ("Settings", "Workspace and user settings"),
                ("Onboarding", "Sign-up and first-run flows"), ("Billing UI", "Plans, invoices and payment pages")),
    epics=("Dashboard redesign", "Self-serve billing", "Search v2", "Accessibility to WCAG 2.2 AA",
           "Onboarding revamp", "Report builder", "Performance budget", "Team permissions"),
    persona="a workspace user",
    actions=("export a report as PDF", "filter the dashboard by date range", "save a search as a view",
             "invite teammates by email", "see all my invoices in one place", "change plan from the billing page",
             "pin charts to the home page", "use keyboard shortcuts in tables", "bulk edit records",
             "set a default workspace", "schedule weekly report emails", "see recent activity on the dashboard",
             "switch to dark mode", "download usage data as CSV", "manage roles for my team",
             "search across all records", "undo a bulk delete", "compare two periods on a chart",
             "rename a workspace", "resume onboarding where I left off", "add a payment card",
             "sort search results by relevance", "share a dashboard link"),
    tasks=("Refactor {area} state management", "Add end-to-end tests for {area}",
           "Migrate {area} to the new design system", "Remove the legacy {area} endpoint",
           "Instrument {area} with analytics events", "Document the {area} components",
           "Split the {area} bundle", "Audit {area} for accessibility", "Cache {area} API responses"),
    symptoms=("page freezes on large accounts", "chart legend overlaps labels", "wrong totals after timezone change",
              "button does nothing in Safari", "filters reset after refresh", "error 500 when saving",
              "layout breaks below 768px", "tooltip shows raw HTML", "date picker skips a day at DST change",
              "slow to load with 10k rows", "focus is lost after closing a dialog", "stale data after switching workspace"),
    goals=("Ship the new dashboard to beta customers", "Self-serve plan changes end to end",
           "Search v2 behind a feature flag", "Close the accessibility audit findings",
           "Cut dashboard load time below two seconds", "Report builder ready for GA",
           "Finish team roles and permissions", "Stabilise billing pages before renewals"),
)

API = ProjectPlan(
    key="API", name="Public API",
    description="The public REST API, webhooks, OAuth apps, rate limiting and the official SDKs.",
    type="scrum", workflow="Software development", team_size=6, sprint_days=14, closed_sprints=14, velocity=24,
    phase="ending",
    components=(("REST API", "Endpoints and resources"), ("Webhooks", "Event delivery and retries"),
                ("OAuth", "Apps, tokens and scopes"), ("Rate limiting", "Quotas and throttling"),
                ("SDKs", "Python, JavaScript and Go clients")),
    epics=("API v3", "Webhook reliability", "OAuth scopes overhaul", "Usage-based rate limits",
           "SDK generation", "Bulk endpoints"),
    persona="an integrator",
    actions=("page through results with cursors", "receive webhook retries with backoff", "rotate API keys without downtime",
             "filter events by type", "send idempotency keys on POST", "read rate-limit headers",
             "request narrower OAuth scopes", "replay failed webhook deliveries", "create records in bulk",
             "subscribe to record deletions", "use the Go SDK with contexts", "list API keys and their last use",
             "see deprecation warnings in responses", "fetch changes since a timestamp"),
    tasks=("Add contract tests for {area}", "Write migration guide for {area}", "Load test {area}",
           "Remove deprecated {area} fields", "Add tracing spans to {area}", "Publish {area} changelog",
           "Harden input validation in {area}"),
    symptoms=("returns 500 on empty body", "pagination skips records", "signature check fails for unicode payloads",
              "token refresh race condition", "429 returned below the documented limit", "timezone lost in timestamps",
              "retries deliver events out of order", "SDK ignores proxy settings", "wrong content type on errors"),
    goals=("Cursor pagination on every list endpoint", "Webhook delivery success above 99.9%",
           "Scoped tokens for all OAuth apps", "Per-plan rate limits live", "SDKs generated from the spec",
           "Bulk create for contacts and deals"),
)

MOBILE = ProjectPlan(
    key="MOB", name="Mobile Apps",
    description="The iOS and Android apps: offline mode, sync, notifications and the mobile dashboard.",
    type="scrum", workflow="Software development", team_size=7, sprint_days=21, closed_sprints=12, velocity=28,
    components=(("iOS", "The iPhone and iPad app"), ("Android", "The Android app"), ("Sync", "Background sync engine"),
                ("Notifications", "Push and in-app notifications"), ("Offline mode", "Local storage and conflict handling")),
    epics=("Offline mode", "Push notification centre", "Sync engine rewrite", "Tablet layouts",
           "Mobile dashboard", "App store rating recovery"),
    persona="a mobile user",
    actions=("edit records while offline", "choose which notifications I get", "see sync status at a glance",
             "use the app in landscape on a tablet", "open deep links from emails", "sign in with Face ID",
             "see the dashboard on my phone", "retry a failed upload", "mute a noisy project",
             "search records offline", "share a record to other apps", "switch workspaces quickly"),
    tasks=("Upgrade {area} dependencies", "Add crash reporting breadcrumbs to {area}", "Write UI tests for {area}",
           "Reduce {area} battery usage", "Localise {area} strings", "Profile {area} startup time"),
    symptoms=("crashes on launch", "duplicate records after sync", "push arrives twice", "dark mode text unreadable",
              "login loop after update", "attachments fail to upload on cellular", "keyboard covers input field",
              "badge count never clears", "conflict dialog loses edits"),
    goals=("Offline editing in beta", "Crash-free sessions above 99.5%", "New notification centre",
           "Sync engine v2 for Android", "Tablet layouts for iPad", "Mobile dashboard GA"),
)

DATA = ProjectPlan(
    key="DATA", name="Data Platform",
    description="The warehouse, data pipelines, product analytics events and the reporting API behind customer reports.",
    type="scrum", workflow="Software development", team_size=5, sprint_days=14, closed_sprints=12, velocity=20,
    phase="between",
    components=(("Pipelines", "Ingestion and transformation jobs"), ("Warehouse", "Tables, models and storage"),
                ("Analytics events", "Product event tracking"), ("Reporting API", "Queries behind customer reports"),
                ("Data quality", "Checks, freshness and lineage")),
    epics=("Warehouse migration", "Event tracking v2", "Data quality checks", "Self-serve analytics",
           "Customer data deletion"),
    persona="an analyst",
    actions=("query a month of events in seconds", "see when a table was last refreshed", "trace a metric to its sources",
             "get alerted when a pipeline fails", "export a cohort to CSV", "define a metric once and reuse it",
             "delete a customer's data on request", "compare weekly active users by plan", "browse the data catalog"),
    tasks=("Backfill {area} for the last quarter", "Add freshness checks to {area}", "Document the {area} schema",
           "Partition {area} tables by month", "Migrate {area} jobs to the new scheduler", "Remove unused {area} columns"),
    symptoms=("job fails on daylight-saving day", "duplicate rows after retry", "numbers differ from the dashboard",
              "late events dropped", "query timeout on large accounts", "null plan for new signups"),
    goals=("Finish the warehouse migration for billing tables", "Event tracking v2 live on web",
           "Freshness checks on every core table", "Self-serve metrics for the sales team",
           "Deletion requests handled within a day"),
)

OPS = ProjectPlan(
    key="OPS", name="Infrastructure & Operations",
    description="Platform operations: CI/CD, monitoring, databases, networking, security patches and cloud cost.",
    type="kanban", workflow="Service", team_size=5,
    components=(("CI/CD", "Build and deploy pipelines"), ("Monitoring", "Metrics, logs and alerts"),
                ("Databases", "Postgres and Redis clusters"), ("Networking", "Load balancers, DNS and VPN"),
                ("Security", "Patching, secrets and access"), ("Cost", "Cloud spend")),
    tasks=("Upgrade Postgres to version {n}", "Rotate {area} credentials", "Add alerting for {area} latency",
           "Reduce {area} spend in staging", "Patch hosts for CVE-2025-{n}", "Automate {area} backups",
           "Decommission the legacy {area} cluster", "Capacity review for {area}", "Document {area} on-call steps",
           "Move {area} secrets to the vault"),
    symptoms=("deploys stuck in queue", "disk usage alert on primary", "DNS resolution timeouts", "VPN drops every hour",
              "certificate expiry warning", "log ingestion delayed", "replica lag above five minutes",
              "build cache misses on every run"),
)

PLANS = (SUPPORT, WEB, API, MOBILE, DATA, OPS)

LABELS = ("regression", "tech-debt", "security", "performance", "ux", "accessibility", "quick-win",
          "needs-design", "backend", "frontend", "flaky-test", "docs")

SUBTASKS = ("Backend changes", "Frontend changes", "Write tests", "Update documentation", "Design review", "QA sign-off")

COMMENTS = {
    "start": ("Picking this up now.", "Started on this; first pass should be ready soon.",
              "Looking into it, will update here."),
    "review": ("PR is up for review.", "Ready for review, tests are green.", "Could someone take a look at the PR?"),
    "done": ("Merged and deployed.", "Verified on staging, closing.", "Fixed in the latest release."),
    "blocked": ("Blocked until the dependency lands.", "Waiting on another team before we can continue."),
    "question": ("Do we have designs for this?", "Is this still a priority for this quarter?",
                 "Can we split this into smaller pieces?", "Adding more context from the last planning session."),
    "support": ("Customer confirmed the workaround helps for now.", "Second customer reported the same behaviour.",
                "Attached logs from the customer's account.", "Reproduced on production with a test account."),
}
