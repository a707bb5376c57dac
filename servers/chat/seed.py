"""The seeded workspace: fifteen months of Northwind Systems' channels, threads and DMs.

Employees are the users (in world order, user 1 first), grouped into teams that decide which
channels they are in; the sales team is the CRM's (its users' person ids) plus user 1, an
account manager. The CRM's ten largest customer accounts get a shared channel, created by the
account's CRM owner, with two or three people of the customer's organisation as guests.
Messages fall in each author's working hours, mostly on weekdays, and name CRM accounts in the
sales, success and support channels.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from string import Formatter
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Insert
from sqlalchemy.orm import Session

from mcpgym.servers.chat.models import ACTING_USER_ID, Base, Channel, Membership, Mention, Message, Pin, Reaction, User
from mcpgym.servers.chat.phrases import EMPLOYEE_TEMPLATES, GUEST_TEMPLATES, REPLY_TEMPLATES, SLOTS
from mcpgym.servers.chat.text import mention, mentioned_ids, slug
from mcpgym.servers.kernel.links import seeded_rows
from mcpgym.servers.kernel.world import Person, World

HISTORY_DAYS = 450
"""Messages reach this many days back from the world's now."""
KEY_ACCOUNTS = 10
"""Customer accounts (the largest by annual revenue) with a shared channel."""
VOLUME = 0.55
"""Top-level messages per unit of a channel's activity weight."""

TEAM_WEIGHTS = {"engineering": 12, "support": 6, "product": 4, "marketing": 4, "operations": 3}
"""Teams of the employees outside sales, by relative size."""

# name, kind, teams that join it, share of everyone else who joins, activity, text group, topic, purpose
ChannelPlan = tuple[str, str, tuple[str, ...], float, int, str, str, str]

CHANNELS: tuple[ChannelPlan, ...] = (
    ("general", "public", ("everyone",), 1.0, 130, "general", "Company news and announcements",
     "This channel is for workspace-wide communication and announcements. Everyone is here."),
    ("random", "public", (), 0.85, 200, "random", "Non-work banter and water cooler chat",
     "A place for non-work chatter, links and things that make you smile."),
    ("engineering", "public", ("engineering", "product"), 0.12, 330, "engineering", "Eng-wide questions, RFCs and on-call handoffs",
     "Everything engineering: design reviews, on-call, tooling."),
    ("eng-backend", "public", ("engineering",), 0.04, 200, "backend", "APIs, services and the database",
     "Backend services, storage and the public API."),
    ("eng-frontend", "public", ("engineering",), 0.04, 150, "frontend", "Web and mobile clients",
     "The web app, the mobile apps and the design system in code."),
    ("incidents", "public", ("engineering", "support"), 0.2, 120, "incidents", "Live incidents: one thread per incident",
     "Declare and coordinate production incidents here."),
    ("releases", "public", ("engineering", "product", "support"), 0.25, 80, "releases", "Release notes and deploy announcements",
     "What shipped, when, and what to tell customers."),
    ("product", "public", ("product", "engineering", "marketing"), 0.15, 170, "product", "Roadmap, specs and feedback",
     "Product discussions: roadmap, specs, customer feedback."),
    ("design", "public", ("product",), 0.12, 90, "design", "Design reviews and critiques",
     "Share work in progress and get feedback."),
    ("sales", "public", ("sales", "leadership"), 0.12, 260, "sales", "Pipeline, wins and deal strategy",
     "The sales team's home: pipeline updates, wins, questions."),
    ("deal-desk", "public", ("sales",), 0.05, 130, "deals", "Pricing approvals and contract questions",
     "Ask for discounts, non-standard terms and quote reviews."),
    ("customer-success", "public", ("sales", "support"), 0.08, 170, "success", "Renewals, health scores and QBRs",
     "Keeping customers happy: renewals, onboarding, business reviews."),
    ("support", "public", ("support",), 0.15, 220, "support", "Support queue and customer questions",
     "The support team's channel: the queue, tricky tickets, macros."),
    ("support-escalations", "public", ("support", "engineering"), 0.05, 130, "escalations", "Tickets that need engineering",
     "Escalate customer issues to engineering here; one thread per ticket."),
    ("marketing", "public", ("marketing",), 0.15, 140, "marketing", "Campaigns, content and the website",
     "Campaigns, launches, content calendar."),
    ("events", "public", ("marketing", "sales"), 0.12, 60, "events", "Conferences, webinars and meetups",
     "Plan and staff the events we run and attend."),
    ("people-ops", "public", ("operations",), 0.55, 55, "people", "HR questions, benefits and policies",
     "Ask People Ops anything: leave, benefits, onboarding."),
    ("it-helpdesk", "public", ("operations",), 0.45, 80, "it", "Laptops, accounts and access requests",
     "Get help with hardware, software and access."),
    ("book-club", "public", (), 0.22, 35, "books", "This month's book and the next pick",
     "A monthly book club; everyone welcome."),
    ("running-club", "public", (), 0.18, 30, "running", "Runs, races and routes",
     "For runners of every pace."),
    ("pets", "public", (), 0.4, 55, "pets", "Pictures of our pets, mostly",
     "Share your pets. That's it."),
    ("leadership", "private", ("leadership",), 0.0, 110, "leadership", "Leadership team",
     "Private channel for the leadership team."),
    ("hiring-committee", "private", ("leadership",), 0.08, 55, "hiring", "Open roles and candidate debriefs",
     "Candidate debriefs and hiring decisions. Keep it confidential."),
    ("sales-comp", "private", ("sales", "leadership"), 0.0, 35, "comp", "Commission plans and quotas",
     "Compensation plans for the sales team. Confidential."),
    ("security", "private", ("leadership",), 0.1, 45, "security", "Security reviews and vulnerability reports",
     "Private channel for security matters."),
    ("board-prep", "private", ("leadership",), 0.0, 35, "board", "Board meeting preparation",
     "Decks and numbers for the board meetings."),
)

ARCHIVED: tuple[ChannelPlan, ...] = (
    ("proj-atlas", "public", ("engineering", "product"), 0.08, 80, "project", "Project Atlas: the new data pipeline",
     "Coordination for Project Atlas until it shipped."),
    ("offsite-2024", "public", (), 0.5, 45, "offsite", "The 2024 company offsite",
     "Travel, agenda and photos of the 2024 offsite."),
    ("launch-v3", "public", ("product", "marketing", "engineering"), 0.05, 70, "launch", "The v3 launch",
     "Everything for the v3 launch."),
    ("hackathon-2024", "public", (), 0.3, 45, "hackathon", "Hackathon 2024 teams and demos",
     "Pitch ideas, form teams, show demos."),
    ("renewals-push-q2", "private", ("sales",), 0.0, 40, "deals", "The Q2 renewals push",
     "A temporary war room for the Q2 renewals."),
)

ACCOUNT_CHANNEL_ACTIVITY = 45

REACTIONS = ("thumbsup", "tada", "eyes", "white_check_mark", "heart", "joy", "raised_hands", "pray", "rocket",
             "100", "fire", "clap")
STATUSES = (
    (":palm_tree:", "On vacation", 14 * 24), (":spiral_calendar_pad:", "In meetings", 6),
    (":house_with_garden:", "Working remotely", 10), (":face_with_thermometer:", "Out sick", 30),
    (":airplane:", "Traveling", 48), (":headphones:", "Focus time", 3), (":coffee:", "Back in 15", 1),
)
"""Status emoji, text and how many hours it usually lasts."""
PINS_PER_GROUP = {"general": 3, "engineering": 2, "incidents": 2, "releases": 2, "sales": 1, "support": 1,
                  "people": 2, "it": 1, "account": 1, "deals": 1, "leadership": 1, "project": 1, "launch": 1}
TOMBSTONES = 4
"""Deleted thread starters whose replies remain."""


@dataclass
class Plan:
    """A conversation being seeded: its row, who is in it since when, and its text group."""

    row: dict[str, Any]
    group: str
    activity: int
    members: dict[int, datetime] = field(default_factory=dict)
    account: str | None = None

    @property
    def end(self) -> datetime:
        return self.row["archived_at"] or self.row["_end"]

    def members_at(self, when: datetime) -> list[int]:
        """Members who had joined by `when`, by id."""
        return sorted(user for user, joined in self.members.items() if joined <= when)


@dataclass
class Draft:
    """A message before ids are given out (in time order, once all are drafted)."""

    channel: Plan
    user_id: int
    text: str
    created_at: datetime
    parent: Draft | None = None
    edited_at: datetime | None = None
    deleted_at: datetime | None = None
    id: int = 0


def _second(t: datetime) -> datetime:
    return t.replace(microsecond=0)


@cache
def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def _working_time(rng: random.Random, start: datetime, end: datetime, timezone: str) -> datetime:
    """A time in [start, end] in the working hours (8:00-18:59, weekdays mostly) of `timezone`."""
    span = end - start
    zone = _zone(timezone)
    for _ in range(6):
        local = (start + span * rng.random()).replace(tzinfo=UTC).astimezone(zone)
        if local.weekday() >= 5 and rng.random() < 0.9:
            continue
        local = local.replace(hour=rng.randrange(8, 19), minute=rng.randrange(60), second=rng.randrange(60),
                              microsecond=0)
        when = local.astimezone(UTC).replace(tzinfo=None)
        if start <= when <= end:
            return when
    return _second(start + span * rng.random())


def _display_name(person: Person, rng: random.Random) -> str:
    first, last = person.first_name, person.last_name
    return rng.choice((first.lower(), f"{first} {last[0]}.", f"{first}.{last}".lower().replace(" ", ""), first))


def populate(db: Session, world: World, rng: random.Random) -> None:
    """Fill an empty chat database from the shared world and the CRM's seeded accounts."""
    now = world.now
    crm_team = {row["external_id"] for row in seeded_rows("crm", world.seed, "SELECT external_id FROM users ORDER BY id")}
    accounts = seeded_rows(
        "crm", world.seed,
        "SELECT accounts.id, accounts.external_id, accounts.name, accounts.industry, users.external_id AS owner "
        "FROM accounts JOIN users ON users.id = accounts.owner_id WHERE accounts.type = 'customer' "
        "ORDER BY accounts.annual_revenue DESC, accounts.id LIMIT ?", [KEY_ACCOUNTS])
    account_names = [row["name"] for row in seeded_rows("crm", world.seed, "SELECT name FROM accounts ORDER BY id")]

    users, user_of, teams = _users(world, rng, crm_team)
    plans = _channels(world, rng, users, teams)
    plans += _account_channels(world, rng, users, user_of, teams, accounts)
    plans += _direct_messages(world, rng, users)
    for index, plan in enumerate(plans, start=1):
        plan.row["id"] = index

    names = {user["id"]: user for user in users}
    drafts = _messages(rng, plans, names, account_names, now)
    drafts.sort(key=lambda d: (d.created_at, d.parent is not None))
    for index, draft in enumerate(drafts, start=1):
        draft.id = index
    _tombstones(rng, drafts)

    db.execute(_insert(User), users)
    db.execute(_insert(Channel), [{k: v for k, v in p.row.items() if not k.startswith("_")} for p in plans])
    db.execute(_insert(Membership), [{"channel_id": p.row["id"], "user_id": user, "joined_at": joined}
                                    for p in plans for user, joined in sorted(p.members.items())])
    db.execute(_insert(Message), [{
        "id": d.id, "channel_id": d.channel.row["id"], "user_id": d.user_id, "text": d.text,
        "created_at": d.created_at, "edited_at": d.edited_at, "thread_parent_id": d.parent.id if d.parent else None,
        "deleted_at": d.deleted_at} for d in drafts])
    live = [d for d in drafts if d.deleted_at is None]
    db.execute(_insert(Mention), [{"message_id": d.id, "user_id": user} for d in live for user in mentioned_ids(d.text)])
    reactions = _reactions(rng, live, now)
    if reactions:
        db.execute(_insert(Reaction), reactions)
    db.execute(_insert(Pin), _pins(rng, plans, live, now))


def _insert(model: type[Base]) -> Insert:
    """A plain insert into `model`'s table: a list of rows goes in as one executemany."""
    return model.__table__.insert()  # type: ignore[attr-defined, no-any-return]


def _users(world: World, rng: random.Random, crm_team: set[str]) -> tuple[list[dict[str, Any]], dict[str, int], dict[str, list[int]]]:
    """Employees as users (1 is the first employee; 2 owns the workspace, 3 and 4 administer
    it) and their teams: sales is the CRM's team plus user 1."""
    now = world.now
    users: list[dict[str, Any]] = []
    teams: dict[str, list[int]] = {"sales": [], "leadership": [2, 3, 4], **{t: [] for t in TEAM_WEIGHTS}}
    names = list(TEAM_WEIGHTS)
    weights = [TEAM_WEIGHTS[t] for t in names]
    for index, person in enumerate(world.employees, start=1):
        role = "owner" if index == 2 else "admin" if index in (3, 4) else "member"
        users.append(_user_row(index, person, world.home.name, role, rng, now,
                               _second(now - timedelta(days=rng.uniform(500, 2000)))))
        team = "sales" if index == ACTING_USER_ID or person.id in crm_team else rng.choices(names, weights)[0]
        teams[team].append(index)
    leaders = [u["id"] for u in users if u["id"] not in teams["leadership"] and u["id"] != ACTING_USER_ID]
    teams["leadership"] += sorted(rng.sample(leaders, 2))
    return users, {u["external_id"]: u["id"] for u in users}, teams


def _user_row(user_id: int, person: Person, organization: str, role: str, rng: random.Random, now: datetime,
              created: datetime) -> dict[str, Any]:
    status_emoji, status_text, expires = "", "", None
    if rng.random() < 0.4:
        status_emoji, status_text, hours = rng.choice(STATUSES)
        set_at = now - timedelta(hours=rng.uniform(0, hours * 2))
        expires = _second(set_at + timedelta(hours=hours)) if rng.random() < 0.8 else None
    return {
        "id": user_id, "external_id": person.id, "name": person.name, "display_name": _display_name(person, rng),
        "email": person.email, "title": person.job_title, "organization_name": organization, "role": role,
        "timezone": person.timezone, "status_emoji": status_emoji, "status_text": status_text,
        "status_expires_at": expires, "presence": "active" if rng.random() < 0.6 else "away", "created_at": created,
    }


def _plan(name: str, kind: str, creator: int, created: datetime, group: str, activity: int, now: datetime,
          topic: str = "", purpose: str = "", general: bool = False) -> Plan:
    row = {"id": 0, "name": name, "kind": kind, "is_general": general, "topic": topic, "purpose": purpose,
           "creator_id": creator, "created_at": created, "is_archived": False, "archived_at": None,
           "archived_by_id": None, "crm_account_id": None, "_end": now - timedelta(minutes=5)}
    return Plan(row=row, group=group, activity=activity)


def _join(plan: Plan, rng: random.Random, users: Sequence[int], created: datetime) -> None:
    """Members join soon after the channel is made, some of them later on."""
    end = plan.end
    for user in users:
        if user in plan.members:
            continue
        if rng.random() < 0.75:
            joined = created + timedelta(minutes=rng.uniform(1, 14 * 24 * 60))
        else:
            joined = created + (end - created) * rng.random() * 0.8
        plan.members[user] = _second(min(joined, end))


def _channels(world: World, rng: random.Random, users: list[dict[str, Any]], teams: dict[str, list[int]]) -> list[Plan]:
    """The public and private channels, then the archived ones; user 1 created two active
    channels of the sales team and one archived channel."""
    now = world.now
    employees = [u["id"] for u in users]
    mine = set(rng.sample(["deal-desk", "customer-success", "events", "sales"], 2))
    mine.add(rng.choice([p[0] for p in ARCHIVED if "sales" in p[2] or p[3] > 0.2]))
    plans = []
    for archived, table in ((False, CHANNELS), (True, ARCHIVED)):
        for name, kind, channel_teams, share, activity, group, topic, purpose in table:
            if archived:
                created = _second(now - timedelta(days=rng.uniform(480, 800)))
                archived_at = _second(now - timedelta(days=rng.uniform(20, 300)))
            else:
                created = _second(now - timedelta(days=rng.uniform(500, 1500)))
                archived_at = None
            wanted = employees if "everyone" in channel_teams else sorted(
                {u for t in channel_teams for u in teams.get(t, [])} | {u for u in employees if rng.random() < share})
            if name in mine:
                wanted = sorted({*wanted, ACTING_USER_ID})
                creator = ACTING_USER_ID
            else:
                creator = 2 if name == "general" else rng.choice([u for u in wanted if u != ACTING_USER_ID] or [2])
            plan = _plan(name, kind, creator, created, group, activity, now, topic, purpose, general=name == "general")
            if archived:
                plan.row.update(is_archived=True, archived_at=archived_at,
                                archived_by_id=creator if rng.random() < 0.7 else rng.choice(teams["leadership"][:3]))
            plan.members[creator] = created
            _join(plan, rng, wanted, created)
            plans.append(plan)
    return plans


def _account_channels(world: World, rng: random.Random, users: list[dict[str, Any]], user_of: dict[str, int],
                      teams: dict[str, list[int]], accounts: list[dict[str, Any]]) -> list[Plan]:
    """A shared channel per key customer account, created by its CRM owner, with two or three
    guests from the customer's organisation (new users, after the employees)."""
    now = world.now
    organizations = {org.id: org for org in world.organizations}
    plans = []
    taken: set[str] = set()
    for account in accounts:
        created = _second(now - timedelta(days=rng.uniform(150, 700)))
        owner = user_of.get(account["owner"], ACTING_USER_ID)
        name = f"acct-{slug(account['name'], 75)}"
        while name in taken:
            name += "-2"
        taken.add(name)
        plan = _plan(name, "public", owner, created, "account", ACCOUNT_CHANNEL_ACTIVITY, now,
                     topic=f"Shared channel with {account['name']}",
                     purpose=f"Day-to-day coordination between Northwind Systems and {account['name']}.")
        plan.row["crm_account_id"] = account["id"]
        plan.account = account["name"]
        plan.members[owner] = created
        staff = [owner]
        if rng.random() < 0.7:
            staff.append(ACTING_USER_ID)
        staff += rng.sample(teams["sales"] + teams["support"], 3)
        _join(plan, rng, staff, created)
        org = organizations.get(account["external_id"])
        people = [p for p in world.customers if org is not None and p.organization_id == org.id]
        for person in sorted(rng.sample(people, min(len(people), rng.randint(2, 3))), key=lambda p: p.id):
            if person.id in user_of:
                continue
            joined = _second(created + timedelta(days=rng.uniform(0, 10)))
            user_id = len(users) + 1
            users.append(_user_row(user_id, person, org.name if org else account["name"], "guest", rng, now, joined))
            user_of[person.id] = user_id
            plan.members[user_id] = joined
        plans.append(plan)
    return plans


def _direct_messages(world: World, rng: random.Random, users: list[dict[str, Any]]) -> list[Plan]:
    """DMs and group DMs: a dozen of user 1's, and more among the others."""
    now = world.now
    employees = [u["id"] for u in users if u["role"] != "guest"]
    others = [u for u in employees if u != ACTING_USER_ID]
    groups: list[tuple[int, ...]] = [(ACTING_USER_ID, u) for u in rng.sample(others, 12)]
    groups += [(ACTING_USER_ID, *rng.sample(others, rng.randint(2, 3))) for _ in range(3)]
    seen = {frozenset(g) for g in groups}
    while len(groups) < 45:
        group = tuple(rng.sample(others, 2 if rng.random() < 0.8 else rng.randint(3, 4)))
        if frozenset(group) not in seen:
            seen.add(frozenset(group))
            groups.append(group)
    plans = []
    for group in groups:
        created = _second(now - timedelta(days=rng.uniform(30, HISTORY_DAYS)))
        plan = _plan(None, "dm" if len(group) == 2 else "group_dm", group[0], created, "dm",  # type: ignore[arg-type]
                     rng.randint(6, 40), now)
        for user in group:
            plan.members[user] = created
        plans.append(plan)
    return plans


@cache
def _fields(template: str) -> tuple[str, ...]:
    """The placeholders of a template, each once, in order."""
    return tuple(dict.fromkeys(name for _, name, _, _ in Formatter().parse(template) if name))


def _fill(template: str, rng: random.Random, plan: Plan, author: int, members: list[int],
          names: dict[int, dict[str, Any]], accounts: list[str]) -> str:
    """A template with its placeholders filled from `members` (those in the conversation at
    the time); a mention names a member other than the author, user 1 more often than others."""
    others = [u for u in members if u != author]
    values: dict[str, str] = {}
    for key in _fields(template):
        if key in SLOTS:
            values[key] = rng.choice(SLOTS[key])
        elif key in ("n", "n2"):
            values[key] = str(rng.randint(2, 95) + (rng.randint(100, 300) if key == "n2" else 0))
        elif key == "version":
            values[key] = f"{rng.randint(3, 5)}.{rng.randint(0, 24)}.{rng.randint(0, 9)}"
        elif key == "amount":
            values[key] = f"${rng.randint(12, 480) * 1000:,}"
        elif key == "account":
            values[key] = plan.account or rng.choice(accounts)
        elif key == "first":
            values[key] = names[rng.choice(others)]["name"].split()[0] if others else "everyone"
        elif key == "mention":
            weights = [4 if u == ACTING_USER_ID else 1 for u in others]
            values[key] = mention(rng.choices(others, weights)[0]) if others else "Team,"
    return template.format(**values)


def _messages(rng: random.Random, plans: list[Plan], names: dict[int, dict[str, Any]], accounts: list[str],
              now: datetime) -> list[Draft]:
    """Top-level messages of every conversation over its life in the history window, then
    threads of replies under some of them; a few messages edited."""
    drafts: list[Draft] = []
    window_start = now - timedelta(days=HISTORY_DAYS)
    for plan in plans:
        start = max(plan.row["created_at"] + timedelta(hours=1), window_start)
        end = plan.end
        if start >= end:
            continue
        count = max(3, round(plan.activity * VOLUME * rng.uniform(0.8, 1.2)))
        thread_share = 0.05 if plan.group == "dm" else 0.3
        for _ in range(count):
            when = _working_time(rng, start, end, "UTC")
            members = plan.members_at(when) or [plan.row["creator_id"]]
            author = rng.choice(members)
            when = _working_time(rng, max(start, plan.members[author] if author in plan.members else start), end,
                                 names[author]["timezone"])
            template = rng.choice(GUEST_TEMPLATES if names[author]["role"] == "guest" else EMPLOYEE_TEMPLATES[plan.group])
            text = _fill(template, rng, plan, author, plan.members_at(when), names, accounts)
            top = Draft(plan, author, text, when)
            drafts.append(top)
            if rng.random() < thread_share:
                drafts += _thread(rng, top, names, accounts)
    for draft in drafts:
        if rng.random() < 0.06:
            edited = draft.created_at + timedelta(minutes=rng.uniform(1, 180))
            draft.edited_at = _second(min(edited, draft.channel.end))
    return drafts


def _thread(rng: random.Random, top: Draft, names: dict[int, dict[str, Any]], accounts: list[str]) -> list[Draft]:
    """Replies to `top`, each a little after the one before, by members of its channel."""
    replies = []
    when = top.created_at
    end = top.channel.end
    for _ in range(min(1 + int(rng.expovariate(1 / 2.2)), 12)):
        when = _second(when + timedelta(minutes=1 + rng.expovariate(1 / 90)))
        if when >= end:
            break
        members = top.channel.members_at(when)
        author = rng.choice(members) if members else top.user_id
        text = _fill(rng.choice(REPLY_TEMPLATES), rng, top.channel, author, members, names, accounts)
        replies.append(Draft(top.channel, author, text, when, parent=top))
    return replies


def _tombstones(rng: random.Random, drafts: list[Draft]) -> None:
    """A few thread starters in public channels deleted by their authors: the replies stay."""
    parents = sorted({d.parent.id: d.parent for d in drafts if d.parent is not None
                      and d.parent.channel.row["kind"] == "public" and not d.parent.channel.row["is_archived"]}.items())
    for _, parent in rng.sample(parents, min(TOMBSTONES, len(parents))):
        parent.deleted_at = _second(min(parent.created_at + timedelta(hours=rng.uniform(1, 72)), parent.channel.end))
        parent.text = ""
        parent.edited_at = None


def _reactions(rng: random.Random, drafts: list[Draft], now: datetime) -> list[dict[str, Any]]:
    """Emoji reactions by members on about a third of the messages."""
    rows = []
    for draft in drafts:
        share = 0.4 if draft.channel.group in ("general", "releases", "sales") else 0.22
        if rng.random() >= share:
            continue
        members = [u for u in draft.channel.members_at(draft.created_at) if u != draft.user_id]
        if not members:
            continue
        for emoji in rng.sample(REACTIONS, rng.choice((1, 1, 1, 2, 2, 3))):
            for user in sorted(rng.sample(members, min(len(members), rng.choice((1, 1, 1, 2, 3))))):
                at = draft.created_at + timedelta(minutes=rng.uniform(1, 600))
                rows.append({"message_id": draft.id, "user_id": user, "emoji": emoji,
                             "created_at": _second(min(at, draft.channel.end, now))})
    return rows


def _pins(rng: random.Random, plans: list[Plan], drafts: list[Draft], now: datetime) -> list[dict[str, Any]]:
    """Pinned messages: a few top-level messages of the channels that keep pins."""
    by_channel: dict[int, list[Draft]] = {}
    for draft in drafts:
        if draft.parent is None:
            by_channel.setdefault(draft.channel.row["id"], []).append(draft)
    rows = []
    for plan in plans:
        candidates = by_channel.get(plan.row["id"], [])
        for draft in sorted(rng.sample(candidates, min(len(candidates), PINS_PER_GROUP.get(plan.group, 0))),
                            key=lambda d: d.id):
            members = plan.members_at(draft.created_at)
            by = draft.user_id if rng.random() < 0.6 or not members else rng.choice(members)
            at = draft.created_at + timedelta(minutes=rng.uniform(2, 3 * 24 * 60))
            rows.append({"message_id": draft.id, "channel_id": plan.row["id"], "pinned_by_id": by,
                         "pinned_at": _second(min(at, plan.end, now))})
    return rows
