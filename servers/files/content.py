"""What the seeded drive holds: file formats and their sizes, each department's folders and the
names of the files in them, and the values of the names' placeholders.

A name template's placeholders: `{month}`, `{year}`, `{quarter}`, `{date}` (from the file's
creation time), `{account}` (a CRM account), the folder's own value where a folder is split
by a slot (`{service}` in `Engineering/Services/<service>`), and the keys of `SLOTS`.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcpgym.servers.files.models import FOLDER_MIME

KB, MB, GB = 1_000, 1_000_000, 1_000_000_000


@dataclass(frozen=True)
class Format:
    """A kind of file: its MIME type, the extension its names end with, and its size range."""

    mime_type: str
    extension: str
    min_bytes: int
    max_bytes: int


FORMATS: dict[str, Format] = {
    "gdoc": Format("application/vnd.google-apps.document", "", 8 * KB, 1500 * KB),
    "gsheet": Format("application/vnd.google-apps.spreadsheet", "", 10 * KB, 6 * MB),
    "gslides": Format("application/vnd.google-apps.presentation", "", 200 * KB, 30 * MB),
    "docx": Format("application/vnd.openxmlformats-officedocument.wordprocessingml.document", ".docx", 20 * KB, 4 * MB),
    "xlsx": Format("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", ".xlsx", 15 * KB, 12 * MB),
    "pptx": Format("application/vnd.openxmlformats-officedocument.presentationml.presentation", ".pptx", 500 * KB, 80 * MB),
    "pdf": Format("application/pdf", ".pdf", 60 * KB, 25 * MB),
    "csv": Format("text/csv", ".csv", 2 * KB, 60 * MB),
    "txt": Format("text/plain", ".txt", 1 * KB, 200 * KB),
    "png": Format("image/png", ".png", 40 * KB, 9 * MB),
    "jpg": Format("image/jpeg", ".jpg", 80 * KB, 12 * MB),
    "svg": Format("image/svg+xml", ".svg", 3 * KB, 400 * KB),
    "mp4": Format("video/mp4", ".mp4", 120 * MB, 3200 * MB),
    "mov": Format("video/quicktime", ".mov", 200 * MB, 2600 * MB),
    "zip": Format("application/zip", ".zip", 2 * MB, 900 * MB),
}

GOOGLE_NATIVE = frozenset({"gdoc", "gsheet", "gslides"})
"""Formats edited in place, which gather more revisions than uploaded files."""

FOLDER = Format(FOLDER_MIME, "", 0, 0)


@dataclass(frozen=True)
class Template:
    """A file name pattern and the formats a file of that name may have."""

    pattern: str
    formats: tuple[str, ...]


@dataclass(frozen=True)
class Leaf:
    """A folder of a department: its name, the files it holds (names drawn from `templates`),
    and how it splits into subfolders: by the year a file was made (`low`-`high` files in
    all), by the department's members (a folder each, owned by its member) or by the values of
    a slot (a folder each); a split folder holds `low`-`high` files."""

    name: str
    templates: tuple[Template, ...]
    low: int
    high: int
    split: str | None = None
    description: str | None = None
    external: str | None = None
    """The role a file about a customer may be shared with one of its contacts in (a proposal
    to review, an NDA to keep); None for folders that stay internal."""


def t(pattern: str, *formats: str) -> Template:
    return Template(pattern, formats)


SLOTS: dict[str, tuple[str, ...]] = {
    "region": ("North America", "EMEA", "APAC", "LATAM", "DACH", "Nordics", "UK and Ireland", "US West", "US East"),
    "competitor": ("Acme Cloud", "Globex", "Initech", "Umbrella Analytics", "Hooli", "Stark Data", "Vandelay"),
    "service": ("billing-api", "search", "notifications", "identity", "ingest", "reporting", "gateway", "scheduler"),
    "topic": ("onboarding", "pricing", "churn", "mobile usage", "reporting", "integrations", "admin console",
              "permissions", "dashboards", "exports", "alerts", "SSO"),
    "campaign": ("Spring launch", "Summer webinar series", "Customer summit", "Holiday promo", "Partner week",
                 "Product Hunt launch", "Analyst day", "Retention push"),
    "event": ("SaaStr", "Web Summit", "Dreamforce", "AWS re:Invent", "Collision", "TechCrunch Disrupt"),
    "vendor": ("Staples", "Dell", "Okta", "Zoom", "Slack", "Atlassian", "Gusto", "WeWork", "Cisco", "DocuSign"),
    "city": ("Boston", "Austin", "London", "Berlin", "Singapore", "Sydney", "Denver"),
    "policy": ("Travel", "Expenses", "Remote work", "Parental leave", "Code of conduct", "Security awareness",
               "Acceptable use", "Equipment", "Time off", "Data retention"),
    "role": ("Senior Backend Engineer", "Account Executive", "Product Designer", "Data Analyst", "SDR",
             "Support Engineer", "Engineering Manager", "Marketing Manager", "Financial Analyst"),
    "version": ("3.2", "3.3", "3.4", "3.5", "3.6", "4.0", "4.1", "4.2", "4.3"),
    "department": ("Sales", "Marketing", "Engineering", "Product", "Finance", "People", "Legal", "Operations",
                   "Support"),
    "n": tuple(str(n) for n in range(1, 40)),
}


DEPARTMENTS: dict[str, tuple[Leaf, ...]] = {
    "Sales": (
        Leaf("Proposals", (t("{account} proposal {month} {year}", "docx", "pdf", "gdoc"),
                           t("{account} pricing proposal", "xlsx", "gsheet"),
                           t("{account} statement of work draft", "docx", "gdoc")), 154, 196, split="year",
             description="Proposals and statements of work sent to prospects and customers.", external="commenter"),
        Leaf("Pricing", (t("Price list {year} {quarter}", "xlsx", "pdf"), t("Discount approval matrix {year}", "gsheet"),
                         t("Competitive pricing - {competitor} {quarter} {year}", "pdf", "gdoc"), t("Enterprise tier calculator", "gsheet")),
             14, 20, description="Price lists, discount rules and competitive pricing."),
        Leaf("Playbooks", (t("Discovery call playbook", "gdoc", "pdf"), t("Objection handling - {competitor}", "gdoc"),
                           t("Demo script - {topic}", "gdoc", "docx"), t("Battle card - {competitor}", "pdf", "gslides"),
                           t("Call recording - {topic} demo", "mp4")), 22, 34),
        Leaf("Forecasts", (t("Sales forecast {month} {year}", "gsheet", "xlsx"), t("Pipeline snapshot {date}", "csv", "xlsx"),
                           t("Commit call notes {date}", "gdoc")), 70, 98, split="year"),
        Leaf("Territory plans", (t("Territory plan {region} {year}", "gslides", "pptx"),
                                 t("Account list {region} {quarter} {year}", "gsheet", "csv")), 4, 8, split="region"),
        Leaf("Account plans", (t("{account} account plan {year}", "gdoc", "gslides"),
                               t("{account} stakeholder map", "gsheet", "png"),
                               t("{account} renewal notes {date}", "gdoc")), 7, 14, split="member"),
        Leaf("Team meetings", (t("Pipeline review {date}", "gdoc"), t("Sales kickoff {year} deck", "pptx", "gslides"),
                               t("Sales kickoff {year} recording", "mp4"), t("Weekly sales sync {date}", "gdoc")), 70, 98,
             split="year"),
        Leaf("Training", (t("New hire sales bootcamp - day {n}", "mp4", "gslides"), t("Negotiation workshop", "pdf", "mp4"),
                          t("CRM hygiene checklist", "gdoc"), t("Product certification quiz {n}", "gdoc")), 17, 25),
    ),
    "Marketing": (
        Leaf("Campaigns", (t("{campaign} brief", "gdoc"), t("{campaign} results {quarter} {year}", "gsheet", "xlsx"),
                           t("{campaign} email copy v{n}", "gdoc", "docx"), t("{campaign} hero image", "png", "jpg"),
                           t("{campaign} landing page mock", "png"), t("{campaign} budget {year}", "gsheet")), 11, 20,
             split="campaign"),
        Leaf("Brand assets", (t("Northwind logo {n}", "png", "svg"), t("Brand guidelines {year}", "pdf"),
                              t("Slide template {year}", "pptx", "gslides"), t("Product screenshot - {topic}", "png"),
                              t("Team photo {city}", "jpg")), 35, 49),
        Leaf("Webinars", (t("Webinar - {topic} best practices", "mp4", "mov"), t("Webinar - {topic} slides", "gslides", "pdf"),
                          t("Webinar registrants {date}", "csv")), 42, 56, split="year"),
        Leaf("Case studies", (t("{account} case study", "pdf", "docx", "gdoc"), t("{account} customer quote", "gdoc")), 42, 63,
             external="commenter"),
        Leaf("Events", (t("{event} {year} booth plan", "gslides", "pdf"), t("{event} {year} leads", "csv", "xlsx"),
                        t("{event} {year} photos", "zip"), t("{event} {year} budget", "gsheet"),
                        t("{event} {year} follow-up email", "gdoc")), 6, 11, split="event"),
        Leaf("Content calendar", (t("Content calendar {month} {year}", "gsheet"), t("Blog draft - {topic}", "gdoc"),
                                  t("Social posts {month} {year}", "gsheet", "docx")), 70, 98, split="year"),
    ),
    "Engineering": (
        Leaf("Services", (t("{service} architecture", "gdoc", "pdf"), t("{service} runbook", "gdoc"),
                          t("{service} design review {date}", "gdoc", "gslides"), t("{service} dependency diagram", "png", "svg"),
                          t("{service} load test {date}", "csv", "zip")), 22, 34, split="service"),
        Leaf("Postmortems", (t("Postmortem {date} - {service} outage", "gdoc"), t("Incident timeline {date} {service}", "gdoc"),
                             t("Postmortem {date} - {service} latency", "gdoc", "pdf")), 56, 77, split="year"),
        Leaf("Release notes", (t("Release notes {version}", "gdoc", "pdf"), t("Release checklist {version}", "gsheet"),
                               t("Changelog {version}", "txt")), 28, 42),
        Leaf("RFCs", (t("RFC {n} - {service} {topic}", "gdoc"), t("RFC {n} review notes", "gdoc")), 63, 84, split="year"),
        Leaf("On-call", (t("On-call handbook", "gdoc", "pdf"), t("On-call rota {quarter} {year}", "gsheet"),
                         t("Pager summary {month} {year}", "gsheet", "csv")), 35, 49),
        Leaf("Onboarding", (t("Engineering onboarding guide", "gdoc"), t("Dev environment setup", "gdoc", "pdf"),
                            t("Codebase tour recording {n}", "mp4"), t("Architecture overview {year}", "gslides")), 14, 20),
    ),
    "Product": (
        Leaf("Roadmaps", (t("Product roadmap {quarter} {year}", "gslides", "pptx"), t("Roadmap priorities {year}", "gsheet"),
                          t("Quarterly planning {quarter} {year}", "gdoc")), 22, 34),
        Leaf("Research", (t("Customer interview - {account}", "gdoc", "mp4"), t("Survey results - {topic}", "gsheet", "csv"),
                          t("Usability test - {topic}", "mp4", "gdoc"), t("Research synthesis - {topic} {quarter} {year}", "gslides"),
                          t("Interview notes - {topic} {date}", "gdoc")), 7, 13, split="topic"),
        Leaf("Specs", (t("PRD - {topic}", "gdoc"), t("PRD - {topic} v{n}", "gdoc", "pdf"), t("Success metrics - {topic}", "gsheet")),
             45, 60),
        Leaf("Design", (t("{topic} mockups v{n}", "png", "pdf"), t("{topic} user flow", "png", "svg"),
                        t("{topic} prototype walkthrough", "mp4"), t("Design system tokens {year}", "gsheet")), 84, 112),
    ),
    "Finance": (
        Leaf("Budgets", (t("Budget {year} - {department}", "gsheet", "xlsx"), t("Headcount plan {year}", "gsheet"),
                         t("Budget vs actuals {month} {year}", "xlsx", "gsheet")), 49, 63, split="year"),
        Leaf("Invoices", (t("Invoice {vendor} {date}", "pdf"), t("Invoice register {month} {year}", "xlsx", "csv")),
             140, 180, split="year"),
        Leaf("Expense reports", (t("Expense report {month} {year} - {city}", "xlsx", "pdf"), t("Card statement {month} {year}", "pdf")),
             80, 100, split="year"),
        Leaf("Board", (t("Board deck {quarter} {year}", "pptx", "gslides", "pdf"), t("Board minutes {date}", "gdoc", "pdf"),
                       t("Financial model {year}", "xlsx")), 17, 25),
        Leaf("Audit", (t("Audit {year} request list", "gsheet"), t("Audit {year} evidence {n}", "pdf", "zip"),
                       t("SOC 2 report {year}", "pdf")), 21, 31),
    ),
    "People": (
        Leaf("Policies", (t("{policy} policy", "gdoc", "pdf"), t("{policy} policy {year} update", "gdoc")), 21, 31),
        Leaf("Onboarding", (t("Welcome packet {year}", "pdf"), t("First week checklist", "gdoc"),
                            t("Benefits overview {year}", "pdf", "gslides"), t("Onboarding session {city}", "mp4")), 14, 21),
        Leaf("Hiring", (t("Job description - {role}", "gdoc", "docx"), t("Interview kit - {role}", "gdoc"),
                        t("Interview scorecard - {role} {date}", "gdoc"), t("Hiring plan {quarter} {year}", "gsheet")), 6, 11,
             split="role"),
        Leaf("Events", (t("Offsite {year} - {city} agenda", "gdoc"), t("Offsite {year} - {city} photos", "zip", "jpg"),
                        t("Holiday party {year} plan", "gdoc")), 14, 22),
    ),
    "Legal": (
        Leaf("NDAs", (t("Mutual NDA - {account}", "pdf"), t("NDA - {account} signed {date}", "pdf")), 70, 91, split="year",
             external="viewer"),
        Leaf("Templates", (t("Master services agreement template v{n}", "docx", "gdoc"), t("Order form template {year}", "docx"),
                           t("Data processing addendum v{n}", "docx", "pdf"), t("Mutual NDA template", "docx")), 14, 20),
        Leaf("Compliance", (t("GDPR records of processing {year}", "gsheet"), t("Subprocessor list {year}", "pdf", "gsheet"),
                            t("Security questionnaire - {account}", "xlsx", "gdoc")), 42, 56, external="commenter"),
        Leaf("Vendor contracts", (t("{vendor} agreement {year}", "pdf"), t("{vendor} renewal notice {date}", "pdf")), 4, 8,
             split="vendor"),
    ),
    "Operations": (
        Leaf("IT", (t("Laptop inventory {quarter} {year}", "gsheet", "csv"), t("{vendor} admin guide", "pdf", "gdoc"),
                    t("Access review {quarter} {year}", "gsheet")), 28, 39),
        Leaf("Security", (t("Security incident log {year}", "gsheet"), t("Penetration test {year}", "pdf"),
                          t("Phishing drill results {month} {year}", "gsheet"), t("Security awareness training {year}", "mp4")),
             14, 20),
        Leaf("Facilities", (t("{city} office floor plan", "pdf", "png"), t("{city} office lease", "pdf"),
                            t("Seating chart {city} {month} {year}", "gsheet")), 20, 28),
        Leaf("Vendors", (t("{vendor} invoice {date}", "pdf"), t("Vendor scorecard {quarter} {year}", "gsheet")), 70, 98,
             split="year"),
    ),
    "Support": (
        Leaf("Knowledge base", (t("How to - {topic}", "gdoc"), t("Troubleshooting - {topic}", "gdoc", "pdf"),
                                t("Video guide - {topic}", "mp4"), t("FAQ - {topic} {year}", "gdoc")), 4, 8, split="topic"),
        Leaf("Escalations", (t("Escalation - {account} {date}", "gdoc"), t("Escalation log {month} {year}", "gsheet")), 84, 112,
             split="year"),
        Leaf("Reports", (t("Support report {month} {year}", "gsheet", "xlsx", "pdf"), t("CSAT export {month} {year}", "csv")),
             25, 35, split="year"),
        Leaf("Training", (t("Support onboarding - week {n}", "gslides", "mp4"), t("Tone and style guide", "gdoc"),
                          t("Macro library {year}", "gsheet")), 14, 21),
    ),
}
"""Each department's folders, in the order they are made."""

DEPARTMENT_WEIGHTS: tuple[str, ...] = (
    "Engineering", "Marketing", "Product", "Engineering", "Finance", "Support", "People", "Engineering",
    "Legal", "Operations", "Marketing", "Product", "Engineering", "Support", "Finance", "Engineering",
    "Marketing", "Operations", "Engineering", "Product", "Support", "Engineering", "Marketing", "Finance",
    "People", "Legal", "Engineering", "Support",
)
"""The departments of the employees outside Sales, in the order they are filled."""

SCRATCH_FOLDERS: dict[str, tuple[Template, ...]] = {
    "Sales": (t("Old proposal draft {n}", "docx", "gdoc"), t("Scratch notes {date}", "gdoc"), t("Deck draft {n}", "pptx")),
    "Engineering": (t("Old benchmark run {n}", "csv", "zip"), t("Profiling dump {date}", "zip")),
}
"""Folders made then trashed along with their contents, one per department named here."""

CONTRACTS = "Contracts"
"""The subfolder of a key account's folder that holds its agreement and order forms."""

ACCOUNT_FILES: tuple[tuple[str, str], ...] = (
    ("{account} - Master Services Agreement", "pdf"),
    ("{account} - Order Form {year}", "pdf"),
    ("{account} - QBR {quarter} {year}", "gslides"),
    ("{account} - Success plan", "gsheet"),
    ("{account} - Onboarding plan", "gdoc"),
)
"""A key account's folder: its contract, order forms, QBR decks, and plans."""

MEETING_NOTES = "Meeting notes"
CALL_NOTES = "Call notes {date}"

DESCRIPTIONS: dict[str, str] = {
    "Master Services Agreement": "Signed master services agreement.",
    "Order Form": "Countersigned order form for the subscription year.",
    "QBR": "Quarterly business review deck presented to the customer.",
    "Success plan": "Goals, milestones and owners agreed with the customer.",
    "Onboarding plan": "Rollout plan and training sessions for the customer's teams.",
}
"""Descriptions of a key account's files, by a word of their name."""
