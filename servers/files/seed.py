"""The seeded drive: sixteen months of Northwind's department folders, a folder per key CRM
account shared with its contacts, revisions, shares, a trash and storage quotas."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache
from string import Formatter
from typing import Any

from sqlalchemy import insert
from sqlalchemy.orm import Session

from mcpgym.servers.files.content import (
    ACCOUNT_FILES,
    CALL_NOTES,
    CONTRACTS,
    DEPARTMENT_WEIGHTS,
    DEPARTMENTS,
    DESCRIPTIONS,
    FOLDER,
    FORMATS,
    GB,
    GOOGLE_NATIVE,
    MEETING_NOTES,
    SCRATCH_FOLDERS,
    SLOTS,
    Format,
    Leaf,
    Template,
)
from mcpgym.servers.files.models import ACTING_USER_ID, File, Permission, Revision, User
from mcpgym.servers.kernel.links import seeded_rows
from mcpgym.servers.kernel.world import World

HISTORY_DAYS = 480
KEY_ACCOUNTS = 30
"""Customer accounts of the CRM (by annual revenue) that get a folder under Customers."""
TRASH_DAYS = 28
"""Items in the seeded trash were trashed within this many days."""
NAME_DRAWS = 4
"""Names drawn for a file before giving it up when each is taken in its folder."""
NEAR_FULL_USERS = 5
"""Employees (besides you) whose storage is nearly full."""

ACTOR_SHARES = (("Marketing", "Case studies", "editor"), ("Finance", "Budgets", "commenter"),
                ("Product", "Roadmaps", "viewer"), ("Legal", "Templates", "commenter"))
"""Folders of other departments shared with you, and your role there."""

SCRATCH_NAMES = {"Sales": "Drafts to clean up", "Engineering": "Old benchmarks"}

Row = dict[str, Any]


def _second(t: datetime) -> datetime:
    return t.replace(microsecond=0)


def _quarter(t: datetime) -> str:
    return f"Q{(t.month - 1) // 3 + 1}"


@cache
def _fields(pattern: str) -> tuple[str, ...]:
    return tuple(name for _, name, _, _ in Formatter().parse(pattern) if name)


@dataclass
class Drive:
    """The rows of the drive as they are made: files and folders, shares and revisions."""

    rng: random.Random
    now: datetime
    account_names: Sequence[str]
    people: dict[int, str]
    """User id -> name, for the folders named after their member."""
    files: list[Row] = field(default_factory=list)
    permissions: list[Row] = field(default_factory=list)
    revisions: list[Row] = field(default_factory=list)
    taken: dict[int | None, set[str]] = field(default_factory=dict)
    """Names (lowercase) in each folder: names are unique among a folder's items."""
    shared: set[tuple[int, int]] = field(default_factory=set)

    def _row(self, name: str, fmt: Format, parent: int | None, owner: int, created: datetime) -> Row | None:
        names = self.taken.setdefault(parent, set())
        if name.lower() in names:
            return None
        names.add(name.lower())
        row = {"id": len(self.files) + 1, "name": name, "mime_type": fmt.mime_type, "size_bytes": 0,
               "folder_id": parent, "owner_id": owner, "description": None, "starred": False,
               "crm_account_id": None, "created_at": _second(created), "modified_at": _second(created),
               "modified_by_id": owner, "trashed_at": None, "explicitly_trashed": False}
        self.files.append(row)
        return row

    def folder(self, name: str, parent: int | None, owner: int, created: datetime, **extra: Any) -> Row:
        row = self._row(name, FOLDER, parent, owner, created)
        assert row is not None, f"folder {name!r} made twice in {parent}"
        row.update(extra)
        return row

    def file(self, name: str, key: str, parent: int, owner: int, created: datetime, editors: Sequence[int],
             description: str | None = None) -> Row | None:
        """A file with its revisions (the first by the owner, later ones by `editors`), or None
        when its folder already holds that name."""
        fmt = FORMATS[key]
        row = self._row(name + fmt.extension, fmt, parent, owner, created)
        if row is None:
            return None
        rng = self.rng
        size = round(math.exp(rng.uniform(math.log(fmt.min_bytes), math.log(fmt.max_bytes))))
        count = rng.choice((1, 1, 2, 3, 4, 5, 6, 8)) if key in GOOGLE_NATIVE else rng.choice((1, 1, 1, 2, 3))
        end = min(self.now, created + timedelta(days=rng.uniform(1, 150)))
        times = sorted(_second(created + (end - created) * rng.random()) for _ in range(count - 1))
        row["created_at"] = created = _second(created)
        modifier = owner
        for number, when in enumerate([created, *times], start=1):
            last = number == count
            modifier = owner if number == 1 or rng.random() < 0.4 else rng.choice(editors)
            revision_size = size if last else max(1, round(size * rng.uniform(0.45, 1.0)))
            self.revisions.append({"id": len(self.revisions) + 1, "file_id": row["id"], "number": number,
                                   "size_bytes": revision_size, "modified_by_id": modifier, "modified_at": when})
        row.update(size_bytes=size, modified_at=self.revisions[-1]["modified_at"], modified_by_id=modifier,
                   description=description)
        return row

    def share(self, item: Row, user: int, role: str, by: int, at: datetime) -> None:
        """Grant `user` a role on `item`, unless they own it or already have a role there."""
        if user == item["owner_id"] or (item["id"], user) in self.shared:
            return
        self.shared.add((item["id"], user))
        self.permissions.append({"id": len(self.permissions) + 1, "file_id": item["id"], "user_id": user,
                                 "role": role, "granted_by_id": by,
                                 "granted_at": _second(max(at, item["created_at"]))})

    def name_from(self, template: Template, created: datetime, fixed: dict[str, str]) -> tuple[str, str]:
        """A file name from a template, filled from its time, `fixed` values and drawn slots."""
        values: dict[str, str] = {}
        for slot in _fields(template.pattern):
            if slot in fixed:
                values[slot] = fixed[slot]
            elif slot == "month":
                values[slot] = created.strftime("%B")
            elif slot == "year":
                values[slot] = str(created.year)
            elif slot == "quarter":
                values[slot] = _quarter(created)
            elif slot == "date":
                values[slot] = created.strftime("%Y-%m-%d")
            elif slot == "account":
                values[slot] = self.rng.choice(self.account_names)
            else:
                values[slot] = self.rng.choice(SLOTS[slot])
        return template.pattern.format(**values), self.rng.choice(template.formats)


@dataclass(frozen=True)
class Team:
    """A department: its lead (who owns its folder) and members (who edit it)."""

    name: str
    lead: int
    members: tuple[int, ...]

    def owner(self, rng: random.Random) -> int:
        return rng.choice((self.lead, *self.members))


def populate(db: Session, world: World, rng: random.Random) -> None:
    """Fill an empty drive database from the shared world and the CRM's seeded accounts."""
    now = world.now
    start = now - timedelta(days=HISTORY_DAYS)
    crm_users = seeded_rows("crm", world.seed, "SELECT external_id, role FROM users ORDER BY id")
    accounts = seeded_rows(
        "crm", world.seed,
        "SELECT accounts.id, accounts.name, users.external_id AS owner FROM accounts "
        "JOIN users ON users.id = accounts.owner_id WHERE accounts.type = 'customer' "
        "ORDER BY accounts.annual_revenue DESC, accounts.id LIMIT ?", [KEY_ACCOUNTS])
    contacts = seeded_rows(
        "crm", world.seed,
        "SELECT accounts.name AS account, contacts.external_id FROM contacts JOIN accounts ON accounts.id = contacts.account_id "
        "WHERE contacts.external_id IS NOT NULL ORDER BY contacts.id")
    account_names = [row["name"] for row in seeded_rows("crm", world.seed, "SELECT name FROM accounts ORDER BY id")]

    user_of = {person.id: index for index, person in enumerate(world.people, start=1)}
    contacts_of: dict[str, list[int]] = {}
    for row in contacts:
        contacts_of.setdefault(row["account"], []).append(user_of[row["external_id"]])
    teams = _teams(world, rng, user_of, crm_users)
    drive = Drive(rng, now, account_names, {index: p.name for index, p in enumerate(world.people, start=1)})

    for team in teams.values():
        _department(drive, team, start, contacts_of)
    _customers(drive, teams["Sales"], start, accounts, contacts_of, user_of)
    for team in teams.values():
        _shares_across_departments(drive, team, teams)
    _trash(drive, teams, start)
    _stars(drive)
    users = _users(world, rng, teams, drive.files, start)

    db.execute(insert(User), users)
    db.execute(insert(File), drive.files)
    db.execute(insert(Permission), drive.permissions)
    db.execute(insert(Revision), drive.revisions)


def _teams(world: World, rng: random.Random, user_of: dict[str, int], crm_users: list[Row]) -> dict[str, Team]:
    """Departments: you and the CRM's sales team are Sales (led by the CRM's sales manager, or
    its first user when that is you); the other employees fill the rest."""
    crm_ids = [user_of[row["external_id"]] for row in crm_users]
    sales = [ACTING_USER_ID, *(i for i in crm_ids if i != ACTING_USER_ID)]
    managers = [user_of[row["external_id"]] for row in crm_users if row["role"] == "sales_manager"]
    sales_lead = next((i for i in [*managers, *sales[1:]] if i != ACTING_USER_ID))
    others = [user_of[p.id] for p in world.employees if user_of[p.id] not in sales]
    rng.shuffle(others)
    members: dict[str, list[int]] = {name: [] for name in DEPARTMENTS if name != "Sales"}
    for index, user in enumerate(others):
        members[DEPARTMENT_WEIGHTS[index % len(DEPARTMENT_WEIGHTS)]].append(user)
    teams = {"Sales": Team("Sales", sales_lead, tuple(i for i in sales if i != sales_lead))}
    for name, people in members.items():
        teams[name] = Team(name, people[0], tuple(people[1:]))
    return teams


def _department(drive: Drive, team: Team, start: datetime, contacts_of: dict[str, list[int]]) -> None:
    """A department's folder, its subfolders and their files; members edit the whole folder."""
    rng = drive.rng
    created = start - timedelta(days=rng.uniform(60, 400))
    root = drive.folder(team.name, None, team.lead, created,
                        description=f"Shared folder of the {team.name} team.")
    editors = (team.lead, *team.members)
    for member in team.members:
        drive.share(root, member, "editor", team.lead, created + timedelta(days=rng.uniform(0, 30)))
    leaves = DEPARTMENTS[team.name]
    for index, leaf in enumerate(leaves):
        owner = ACTING_USER_ID if team.name == "Sales" and index < 2 else team.owner(rng)
        folder = drive.folder(leaf.name, root["id"], owner, created + timedelta(days=rng.uniform(1, 60)),
                              description=leaf.description)
        if leaf.split is None:
            _fill(drive, leaf, folder, team, start, editors, {}, rng.randint(leaf.low, leaf.high), contacts_of)
        elif leaf.split == "year":
            times = sorted(_when(rng, start, drive.now) for _ in range(rng.randint(leaf.low, leaf.high)))
            for year in sorted({t.year for t in times}):
                mine = [t for t in times if t.year == year]
                sub = drive.folder(str(year), folder["id"], owner, max(folder["created_at"], mine[0] - timedelta(days=1)))
                _fill(drive, leaf, sub, team, start, editors, {}, len(mine), contacts_of, mine)
        elif leaf.split == "member":
            for member in editors:
                sub = drive.folder(drive.people[member], folder["id"], member,
                                   folder["created_at"] + timedelta(days=rng.uniform(0, 90)))
                _fill(drive, leaf, sub, team, start, editors, {}, rng.randint(leaf.low, leaf.high), contacts_of,
                      owner=member)
        else:
            for value in SLOTS[leaf.split]:
                sub = drive.folder(value, folder["id"], team.owner(rng), folder["created_at"] + timedelta(days=rng.uniform(0, 90)))
                _fill(drive, leaf, sub, team, start, editors, {leaf.split: value}, rng.randint(leaf.low, leaf.high),
                      contacts_of)
    if team.name in SCRATCH_FOLDERS:
        owner = ACTING_USER_ID if team.name == "Sales" else team.owner(rng)
        scratch = drive.folder(SCRATCH_NAMES[team.name], root["id"], owner, start + timedelta(days=rng.uniform(0, 200)))
        leaf = Leaf(scratch["name"], SCRATCH_FOLDERS[team.name], 4, 7)
        _fill(drive, leaf, scratch, team, scratch["created_at"], editors, {}, rng.randint(4, 7), contacts_of,
              owner=owner)


def _when(rng: random.Random, start: datetime, now: datetime) -> datetime:
    return _second(start + (now - start) * rng.random())


def _fill(drive: Drive, leaf: Leaf, folder: Row, team: Team, start: datetime, editors: Sequence[int],
          fixed: dict[str, str], count: int, contacts_of: dict[str, list[int]],
          times: Sequence[datetime] | None = None, owner: int | None = None) -> None:
    """`count` files in `folder` named from the leaf's templates; in folders that share with
    customers, a file about one is sometimes shared with one of its contacts."""
    rng = drive.rng
    begin = max(start, folder["created_at"])
    for index in range(count):
        created = times[index] if times is not None else _when(rng, begin, drive.now)
        for _ in range(NAME_DRAWS):
            name, key = drive.name_from(rng.choice(leaf.templates), created, fixed)
            row = drive.file(name, key, folder["id"], owner or team.owner(rng), created, editors)
            if row is not None:
                break
        else:
            continue
        if leaf.external is None:
            continue
        account = next((a for a in drive.account_names if a in name), None)
        if account and contacts_of.get(account) and rng.random() < 0.35:
            drive.share(row, rng.choice(contacts_of[account]), leaf.external, row["owner_id"],
                        _when(rng, row["created_at"], drive.now))


def _customers(drive: Drive, sales: Team, start: datetime, accounts: list[Row],
               contacts_of: dict[str, list[int]], user_of: dict[str, int]) -> None:
    """Customers/<account> for each key account: owned by its CRM owner, shared with its
    contacts as viewers or commenters; you edit about a third of them."""
    rng = drive.rng
    created = start - timedelta(days=rng.uniform(30, 300))
    root = drive.folder("Customers", None, sales.lead, created,
                        description="A folder per key customer account: contracts, order forms, QBR decks and notes.")
    for member in sales.members:
        drive.share(root, member, "commenter", sales.lead, created + timedelta(days=rng.uniform(0, 20)))
    for account in accounts:
        owner = user_of[account["owner"]]
        name = account["name"]
        opened = start + timedelta(days=rng.uniform(0, HISTORY_DAYS * 0.4))
        folder = drive.folder(name, root["id"], owner, opened, crm_account_id=account["id"],
                              description=f"Contracts and working files for {name} (CRM account {account['id']}).")
        team = [owner, *(m for m in (sales.lead, *sales.members) if m != owner)]
        if rng.random() < 0.35 and ACTING_USER_ID != owner:
            drive.share(folder, ACTING_USER_ID, "editor", owner, opened + timedelta(days=rng.uniform(0, 30)))
        helper = rng.choice(team[1:])
        drive.share(folder, helper, "editor", owner, opened + timedelta(days=rng.uniform(0, 30)))
        people = contacts_of.get(name, [])
        for contact in rng.sample(people, min(len(people), rng.randint(1, 4))):
            drive.share(folder, contact, rng.choice(("viewer", "commenter")), owner,
                        opened + timedelta(days=rng.uniform(1, 60)))
        editors = (owner, helper)
        signed = opened + timedelta(days=rng.uniform(0, 10))
        contracts = drive.folder(CONTRACTS, folder["id"], owner, signed - timedelta(hours=rng.uniform(1, 48)))
        _account_file(drive, ACCOUNT_FILES[0], name, contracts, owner, signed, editors)
        year = signed
        while year < drive.now:
            order = _account_file(drive, ACCOUNT_FILES[1], name, contracts, owner, year, editors)
            if order is not None and people and rng.random() < 0.4:
                drive.share(order, rng.choice(people), "commenter", owner, year + timedelta(days=2))
            year += timedelta(days=365)
        quarter = signed + timedelta(days=rng.uniform(60, 100))
        while quarter < drive.now:
            if rng.random() < 0.6:
                _account_file(drive, ACCOUNT_FILES[2], name, folder, rng.choice(editors), quarter, editors)
            quarter += timedelta(days=91)
        for template in ACCOUNT_FILES[3:]:
            if rng.random() < 0.6:
                _account_file(drive, template, name, folder, owner, signed + timedelta(days=rng.uniform(5, 40)), editors)
        notes = drive.folder(MEETING_NOTES, folder["id"], owner, signed + timedelta(days=rng.uniform(1, 20)))
        for _ in range(rng.randint(2, 6)):
            when = _when(rng, notes["created_at"], drive.now)
            drive.file(CALL_NOTES.format(date=when.strftime("%Y-%m-%d")), "gdoc", notes["id"], rng.choice(editors),
                       when, editors)


def _account_file(drive: Drive, template: tuple[str, str], account: str, folder: Row, owner: int,
                  created: datetime, editors: Sequence[int]) -> Row | None:
    if created >= drive.now:
        return None
    pattern, key = template
    name = pattern.format(account=account, year=created.year, quarter=_quarter(created))
    described = next((text for word, text in DESCRIPTIONS.items() if word in pattern), None)
    return drive.file(name, key, folder["id"], owner, created, editors, description=described)


def _shares_across_departments(drive: Drive, team: Team, teams: dict[str, Team]) -> None:
    """Subfolders and files shared with people of other departments, and the folders of
    other departments shared with you (`ACTOR_SHARES`)."""
    rng = drive.rng
    root = next(f for f in drive.files if f["folder_id"] is None and f["name"] == team.name)
    subfolders = [f for f in drive.files if f["folder_id"] == root["id"] and f["mime_type"] == FOLDER.mime_type]
    outsiders = [u for other in teams.values() if other.name != team.name for u in (other.lead, *other.members)]
    for sub in subfolders:
        if rng.random() < 0.3:
            for user in rng.sample(outsiders, rng.randint(1, 3)):
                role = rng.choices(("viewer", "commenter", "editor"), (2, 3, 2))[0]
                drive.share(sub, user, role, sub["owner_id"], _when(rng, sub["created_at"], drive.now))
        for department, folder_name, role in ACTOR_SHARES:
            if department == team.name and sub["name"] == folder_name:
                drive.share(sub, ACTING_USER_ID, role, sub["owner_id"], _when(rng, sub["created_at"], drive.now))
    mine = {f["id"] for f in subfolders}
    inside = [f for f in drive.files if f["folder_id"] in mine and f["mime_type"] != FOLDER.mime_type]
    colleagues = [*outsiders, team.lead, *team.members]
    for item in inside:
        if rng.random() < 0.08:
            drive.share(item, rng.choice(colleagues), rng.choices(("viewer", "commenter", "editor"), (3, 3, 2))[0],
                        item["owner_id"], _when(rng, item["created_at"], drive.now))


def _subtree(files: list[Row], root: int) -> list[Row]:
    """`root` and everything below it."""
    children: dict[int | None, list[Row]] = {}
    for row in files:
        children.setdefault(row["folder_id"], []).append(row)
    found, stack = [], [next(r for r in files if r["id"] == root)]
    while stack:
        row = stack.pop()
        found.append(row)
        stack.extend(children.get(row["id"], []))
    return found


def _trash(drive: Drive, teams: dict[str, Team], start: datetime) -> None:
    """The scratch folders are in the trash with their contents; so are about 2% of the
    departments' other files (never a customer's contract), a few of them yours."""
    rng = drive.rng
    for name in SCRATCH_NAMES.values():
        folder = next(f for f in drive.files if f["name"] == name and f["mime_type"] == FOLDER.mime_type)
        items = _subtree(drive.files, folder["id"])
        last = max(i["modified_at"] for i in items)
        when = _second(min(last + timedelta(days=rng.uniform(1, TRASH_DAYS)), drive.now - timedelta(hours=rng.uniform(1, 48))))
        for item in items:
            item.update(trashed_at=when, explicitly_trashed=item is folder)
    root = next(f for f in drive.files if f["folder_id"] is None and f["name"] == "Customers")
    kept = {f["id"] for f in _subtree(drive.files, root["id"])}
    files = [f for f in drive.files if f["mime_type"] != FOLDER.mime_type and f["trashed_at"] is None
             and f["id"] not in kept]
    chosen = [f for f in files if rng.random() < 0.02]
    picked = {f["id"] for f in chosen}
    mine = [f for f in files if f["owner_id"] == ACTING_USER_ID and f["id"] not in picked]
    chosen += rng.sample(mine, min(4, len(mine)))
    for item in chosen:
        earliest = max(item["modified_at"], drive.now - timedelta(days=TRASH_DAYS))
        item.update(trashed_at=_when(rng, earliest, drive.now), explicitly_trashed=True)


def _stars(drive: Drive) -> None:
    """What you starred: a few of everything, more of your own files."""
    rng = drive.rng
    for item in drive.files:
        mine = item["owner_id"] == ACTING_USER_ID
        if item["trashed_at"] is None and rng.random() < (0.2 if mine else 0.02):
            item["starred"] = True


def _users(world: World, rng: random.Random, teams: dict[str, Team], files: list[Row], start: datetime) -> list[Row]:
    """Every person of the world; employees get a storage quota a little to well above what
    they use (yours and a few others' nearly full)."""
    department = {user: team.name for team in teams.values() for user in (team.lead, *team.members)}
    used: dict[int, int] = {}
    for item in files:
        used[item["owner_id"]] = used.get(item["owner_id"], 0) + item["size_bytes"]
    employees = [i for i, p in enumerate(world.people, start=1) if p.is_employee]
    near_full = set(rng.sample([i for i in employees if i != ACTING_USER_ID], NEAR_FULL_USERS))
    organizations = {o.id: o.name for o in world.organizations}
    rows = []
    for index, person in enumerate(world.people, start=1):
        quota = None
        if person.is_employee:
            if index == ACTING_USER_ID:
                headroom = rng.uniform(1.2, 2.4)
            elif index in near_full:
                headroom = rng.uniform(0.1, 0.8)
            else:
                headroom = rng.uniform(3, 25)
            quota = math.ceil(used.get(index, 0) / GB + headroom) * GB
        rows.append({
            "id": index, "external_id": person.id, "name": person.name, "email": person.email,
            "organization_name": organizations[person.organization_id], "is_internal": person.is_employee,
            "department": department.get(index), "title": person.job_title, "timezone": person.timezone,
            "quota_bytes": quota,
            "created_at": _second(start - timedelta(days=rng.uniform(30, 1200) if person.is_employee else rng.uniform(1, 600))),
        })
    return rows
