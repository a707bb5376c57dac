"""The fixed texts of the seeded code host: repositories, their files, labels and checks, and
the words pull requests, commits, reviews, issues and releases are written from. `seed.py`
puts them together with the seeded random stream."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RepoPlan:
    """A seeded repository: identity, rules, the acting user's permission, its files and
    how much work it sees."""

    name: str
    description: str
    visibility: str
    language: str
    topics: tuple[str, ...]
    project_key: str | None
    """The projects server's project whose issues its pull requests resolve."""
    required_approvals: int
    merge_methods: tuple[str, ...]
    checks: tuple[str, ...]
    my_permission: str
    """The acting user's permission (fixed, so that every seed has repositories where each
    rule applies to them)."""
    paths: tuple[str, ...]
    chores: int
    """Pull requests not tied to a tracked issue (dependency bumps, refactors, docs)."""
    issues: int
    """GitHub issues filed in the repository."""
    default_branch: str = "main"
    protected: bool = True
    """Whether the default branch is protected."""
    release_every_days: int = 0
    """About how often a release is cut from the default branch (0: never)."""
    release_branch: bool = False
    """Whether the latest release has a protected `release/<version>` branch."""
    first_version: tuple[int, int, int] = (1, 0, 0)
    dependencies: tuple[tuple[str, str, int], ...] = ()
    """(package, manifest file, major version) of what dependency bumps touch."""
    fixed_here: float = 1.0
    """The share of the tracked project's finished issues whose fix landed in this repository."""


def _files(directory: str, stems: tuple[str, ...], suffix: str) -> tuple[str, ...]:
    return tuple(f"{directory}/{stem}{suffix}" for stem in stems)


WEB_APP = RepoPlan(
    name="web-app", description="The Northwind browser application: dashboards, reports, search, settings and billing.",
    visibility="private", language="TypeScript", topics=("frontend", "react", "typescript"), project_key="WEB",
    required_approvals=2, merge_methods=("squash",), checks=("build", "e2e", "lint", "unit-tests"),
    my_permission="admin", chores=34, issues=14, release_every_days=28, release_branch=True, first_version=(3, 0, 0),
    paths=(
        *_files("src/components", ("Header", "LoginForm", "Dashboard", "ChartPanel", "ExportButton", "SettingsPage",
                                   "UserMenu", "SearchBar", "BillingPage", "DatePicker"), ".tsx"),
        *_files("src/hooks", ("useAuth", "useSession", "useReports", "useSearch"), ".ts"),
        *_files("src/api", ("client", "auth", "reports", "billing", "search"), ".ts"),
        *_files("src/utils", ("dates", "format", "csv", "featureFlags"), ".ts"),
        *_files("tests/e2e", ("login", "dashboard", "export", "billing"), ".spec.ts"),
        "package.json", "README.md", ".github/workflows/ci.yml",
    ),
    dependencies=(("react", "package.json", 18), ("typescript", "package.json", 5), ("eslint", "package.json", 8),
                  ("vite", "package.json", 5), ("@playwright/test", "package.json", 1)),
)

API_SERVER = RepoPlan(
    name="api-server", description="The public REST API, webhooks and background workers.",
    visibility="private", language="Go", topics=("api", "backend", "go"), project_key="API",
    required_approvals=2, merge_methods=("merge", "squash"), checks=("build", "integration-tests", "lint", "unit-tests"),
    my_permission="admin", chores=30, issues=12, release_every_days=21, release_branch=True, first_version=(2, 4, 0),
    paths=(
        "cmd/api/main.go", "cmd/worker/main.go",
        *(f"internal/{area}/{part}.go" for area in ("auth", "billing", "reports", "webhooks", "ratelimit", "export", "sync")
          for part in ("handler", "service")),
        *(f"internal/{area}/service_test.go" for area in ("auth", "billing", "webhooks", "ratelimit")),
        "migrations/0042_add_webhook_retries.sql", "migrations/0043_index_events.sql", "openapi.yaml", "go.mod", "go.sum",
    ),
    dependencies=(("github.com/jackc/pgx/v5", "go.mod", 5), ("golang.org/x/net", "go.mod", 0),
                  ("github.com/redis/go-redis/v9", "go.mod", 9), ("google.golang.org/grpc", "go.mod", 1)),
)

MOBILE_APP = RepoPlan(
    name="mobile-app", description="The iOS and Android apps.",
    visibility="private", language="Kotlin", topics=("android", "ios", "mobile"), project_key="MOB",
    required_approvals=1, merge_methods=("merge", "squash", "rebase"), checks=("android-build", "ios-build", "unit-tests"),
    my_permission="write", chores=18, issues=10, release_every_days=35, release_branch=True, first_version=(4, 2, 0),
    paths=(
        *_files("app/src/main/java/com/northwind/app/ui", ("LoginScreen", "DashboardScreen", "SettingsScreen",
                                                           "NotificationsScreen"), ".kt"),
        *_files("app/src/main/java/com/northwind/app/sync", ("SyncWorker", "OfflineQueue"), ".kt"),
        *_files("app/src/main/java/com/northwind/app/push", ("PushService", "NotificationChannels"), ".kt"),
        *_files("ios/Northwind", ("AppDelegate", "PushHandler", "SyncManager", "LoginView"), ".swift"),
        "app/build.gradle.kts", "ios/Podfile", "fastlane/Fastfile",
    ),
    dependencies=(("kotlinx-coroutines-core", "app/build.gradle.kts", 1), ("okhttp", "app/build.gradle.kts", 4),
                  ("Alamofire", "ios/Podfile", 5)),
)

DATA_PIPELINE = RepoPlan(
    name="data-pipeline", description="Event ingestion, dbt models and the analytics warehouse.",
    visibility="internal", language="Python", topics=("analytics", "dbt", "etl", "python"), project_key="DATA",
    required_approvals=1, merge_methods=("merge", "squash"), checks=("dbt-test", "lint", "pytest"),
    my_permission="admin", chores=16, issues=9,
    paths=(
        *_files("pipelines", ("ingest_events", "ingest_billing", "sync_crm", "export_reports", "backfill"), ".py"),
        *_files("dbt/models/staging", ("stg_events", "stg_invoices", "stg_accounts"), ".sql"),
        *_files("dbt/models/marts", ("fct_usage", "dim_accounts", "fct_revenue"), ".sql"),
        *_files("airflow/dags", ("daily_ingest", "hourly_sync"), ".py"),
        *_files("tests", ("test_ingest_events", "test_sync_crm", "test_export_reports"), ".py"),
        "requirements.txt", "dbt/dbt_project.yml",
    ),
    dependencies=(("pandas", "requirements.txt", 2), ("dbt-core", "requirements.txt", 1),
                  ("apache-airflow", "requirements.txt", 2)),
)

INFRA = RepoPlan(
    name="infra", description="Terraform and Kubernetes manifests for every environment.",
    visibility="internal", language="HCL", topics=("kubernetes", "terraform"), project_key="OPS",
    required_approvals=2, merge_methods=("merge",), checks=("terraform-plan", "tflint"),
    my_permission="maintain", chores=10, issues=6,
    paths=(
        *(f"terraform/{env}/{part}.tf" for env in ("prod", "staging") for part in ("main", "variables", "rds", "eks")),
        *(f"modules/{name}/main.tf" for name in ("vpc", "rds", "eks", "redis")),
        *(f"k8s/{app}/{kind}.yaml" for app in ("api", "web", "workers") for kind in ("deployment", "hpa")),
        "README.md",
    ),
    dependencies=(("hashicorp/aws", "terraform/prod/main.tf", 5), ("hashicorp/kubernetes", "terraform/prod/main.tf", 2)),
)

DESIGN_SYSTEM = RepoPlan(
    name="design-system", description="Shared UI components and design tokens.",
    visibility="public", language="TypeScript", topics=("components", "design-tokens", "react"), project_key=None,
    required_approvals=1, merge_methods=("squash", "rebase"), checks=("build", "lint", "visual-tests"),
    my_permission="admin", chores=64, issues=22, release_every_days=42, first_version=(1, 8, 0),
    paths=(
        *_files("packages/components/src", ("Button", "Modal", "Table", "Tooltip", "DatePicker", "Tabs", "Toast"), ".tsx"),
        *_files("packages/tokens", ("colors", "spacing", "typography"), ".json"),
        *_files("stories", ("Button", "Modal", "Table", "Tabs"), ".stories.tsx"),
        "package.json", "CHANGELOG.md",
    ),
    dependencies=(("react", "package.json", 18), ("storybook", "package.json", 8), ("typescript", "package.json", 5)),
)

SUPPORT_TOOLS = RepoPlan(
    name="support-tools", description="Scripts and integrations of the support team: the help-desk sync, exports and macros.",
    visibility="internal", language="Python", topics=("automation", "python", "zendesk"), project_key="SUP",
    required_approvals=1, merge_methods=("merge", "squash"), checks=("lint", "pytest"),
    my_permission="triage", chores=8, issues=8, fixed_here=0.3,
    paths=(
        *_files("zendesk_sync", ("client", "sync", "mapping"), ".py"),
        *_files("exports", ("tickets_csv", "sla_report"), ".py"),
        *_files("scripts", ("merge_duplicates", "bulk_tag", "escalate"), ".py"),
        *_files("tests", ("test_sync", "test_exports"), ".py"),
        "requirements.txt",
    ),
    dependencies=(("requests", "requirements.txt", 2), ("pydantic", "requirements.txt", 2)),
)

DOCS_SITE = RepoPlan(
    name="docs-site", description="The public developer documentation.",
    visibility="public", language="MDX", topics=("docs", "docusaurus"), project_key=None,
    required_approvals=0, merge_methods=("merge", "squash", "rebase"), checks=("build",),
    my_permission="write", chores=30, issues=16, protected=False,
    paths=(
        *_files("docs", ("getting-started", "authentication", "webhooks", "rate-limits", "exports", "sso", "errors"), ".mdx"),
        *_files("docs/api", ("tickets", "users", "reports", "webhooks"), ".mdx"),
        "docusaurus.config.js", "sidebars.js", "package.json",
    ),
    dependencies=(("@docusaurus/core", "package.json", 3),),
)

BILLING_SERVICE = RepoPlan(
    name="billing-service", description="Invoicing, payments, subscriptions and tax.",
    visibility="private", language="Java", topics=("billing", "java", "payments"), project_key=None,
    required_approvals=2, merge_methods=("merge",), checks=("build", "integration-tests", "unit-tests"),
    my_permission="read", chores=40, issues=7, default_branch="master", release_every_days=30, first_version=(5, 1, 0),
    paths=(
        *_files("src/main/java/com/northwind/billing", ("InvoiceService", "PaymentGateway", "SubscriptionController",
                                                         "TaxCalculator", "RefundService", "DunningJob"), ".java"),
        *_files("src/test/java/com/northwind/billing", ("InvoiceServiceTest", "TaxCalculatorTest", "RefundServiceTest"), ".java"),
        "pom.xml", "src/main/resources/application.yml",
    ),
    dependencies=(("spring-boot", "pom.xml", 3), ("stripe-java", "pom.xml", 26), ("jackson-databind", "pom.xml", 2)),
)

REPOS: tuple[RepoPlan, ...] = (WEB_APP, API_SERVER, MOBILE_APP, DATA_PIPELINE, INFRA, DESIGN_SYSTEM, SUPPORT_TOOLS,
                               DOCS_SITE, BILLING_SERVICE)

LABELS: tuple[tuple[str, str], ...] = (
    ("bug", "Something isn't working"),
    ("enhancement", "New feature or request"),
    ("documentation", "Improvements or additions to documentation"),
    ("dependencies", "Updates a dependency"),
    ("refactor", "Code change that neither fixes a bug nor adds a feature"),
    ("performance", "Makes something faster or lighter"),
    ("security", "Fixes or hardens a security issue"),
    ("breaking-change", "Changes behaviour other code relies on"),
    ("needs-qa", "Wants a manual check before release"),
    ("good first issue", "Good for newcomers"),
    ("question", "Further information is requested"),
    ("flaky-test", "A test that fails intermittently"),
    ("wontfix", "This will not be worked on"),
)
"""The labels every repository defines (name, description)."""

ISSUE_TYPE_LABEL = {"bug": "bug", "story": "enhancement", "task": "refactor"}
ISSUE_TYPE_BRANCH = {"bug": "fix", "story": "feature", "task": "task"}

CHORES = (
    ("Refactor {area} helpers", "refactor"), ("Remove dead code in {area}", "refactor"),
    ("Speed up {area} tests", "performance"), ("Add logging to {area}", None),
    ("Document {area}", "documentation"), ("Tidy up {area} error handling", "refactor"),
    ("Cache {area} lookups", "performance"), ("Harden {area} input validation", "security"),
    ("Rename {area} config keys", "breaking-change"), ("Fix typos in {area}", "documentation"),
)
"""Titles of pull requests not tied to a tracked issue; `{area}` is a file's stem."""

BRANCH_COMMITS = (
    "{key}: {first}", "Add tests for {area}", "Address review comments", "Fix lint", "Handle the empty case in {area}",
    "{key}: update {area}", "Clean up {area}", "Rename variables in {area}", "Fix failing test", "Simplify {area}",
)
"""Messages of later commits on a pull request's branch; `{key}` is its issue key (or dropped)."""

FIRST_STEPS = {"bug": "reproduce and fix {area}", "story": "implement {area} changes",
               "task": "rework {area}", "chore": "{title}"}

PR_SUMMARIES = {
    "bug": "Fixes the defect reported in {key}: {summary}.",
    "story": "Implements {key}: {summary}.",
    "task": "Completes {key}: {summary}.",
    "chore": "{summary}.",
}
TESTING = ("Unit tests added and passing locally.", "Checked manually on staging.", "Covered by the e2e suite.",
           "Ran the affected tests; no behaviour change expected.", "Added a regression test.")

REVIEW_BODIES = {
    "approved": ("LGTM", "Looks good to me, thanks!", "Nice cleanup. Approving.", "Ship it.",
                 "Approved; one nit inline but not blocking."),
    "changes_requested": ("Please add a test for the empty case.", "This breaks the existing behaviour for admins; "
                          "can we keep the old path behind a flag?", "Needs error handling for the timeout case.",
                          "The migration is not reversible; please add a down step.",
                          "Let's not change the public interface here."),
    "commented": ("Could you explain why this is needed?", "Minor: naming could be clearer.",
                  "Do we need a changelog entry?", "Have you checked this on mobile?",
                  "Left a few suggestions inline."),
}

ISSUE_TEMPLATES = (
    ("Flaky test in {area}", ("flaky-test",), "The {area} tests fail intermittently on CI (about one run in ten)."),
    ("Document how {area} works", ("documentation",), "New joiners keep asking how {area} fits together; "
                                                       "a short README section would help."),
    ("{area} throws on empty input", ("bug",), "Calling {area} with an empty payload raises instead of returning "
                                               "a validation error."),
    ("Upgrade {dependency}", ("dependencies",), "We are two major versions behind on {dependency}."),
    ("Support dark mode in {area}", ("enhancement",), "Several customers asked for {area} to follow the system theme."),
    ("Why does {area} retry three times?", ("question",), "The retry count in {area} looks arbitrary; is it documented?"),
    ("Slow {area} on large accounts", ("performance", "bug"), "{area} takes over ten seconds for accounts with 50k "
                                                              "records."),
    ("Good first issue: tidy {area}", ("good first issue", "refactor"), "Small cleanup of {area} for a newcomer."),
    ("Security: validate {area} input", ("security",), "{area} accepts unvalidated input from the request body."),
)
"""(title, labels, body) of GitHub issues; `{area}` is a file's stem, `{dependency}` a package."""

ISSUE_COMMENTS = (
    "I can take a look this week.", "Reproduced on main.", "Is this still happening after the last release?",
    "Linked a fix in a pull request.", "Adding this to the next sprint.", "Could not reproduce; closing unless "
    "someone has steps.", "Same here on staging.", "+1, this bites us too.",
)

RELEASE_INTROS = ("Highlights of this release:", "What's changed:", "Changes since the last release:")
