"""The seeded code host: Northwind Systems' repositories and sixteen months of work in them.

Each repository is simulated in time order. Its work comes from the issue tracker (the
projects server, read while seeding): a Done story, task or bug was usually fixed by a
merged pull request, one in review or in progress has an open one (a draft while in
progress), a Won't Do one sometimes a closed one; each names its issue key in its title,
head branch and commits, and its author is the issue's assignee when they work in the
repository. Chores (refactors, dependency bumps, docs) fill in around them. A pull request's
branch forks from the default branch as it is when the work starts; merging adds a merge
commit, a squashed commit or the rebased commits to the default branch, by the methods the
repository allows. Releases are cut from the default branch every few weeks, with notes
listing what was merged since the last one.

The seeded world obeys the rules the tools enforce: every merged pull request had its
required approvals and green checks, protected branches only moved through merges, and open
pull requests are in every state a reviewer meets (ready to merge, waiting for reviews,
changes requested, a check failing or still running, drafts).
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import insert
from sqlalchemy.orm import DeclarativeBase, Session

from mcpgym.servers.code.data import (
    BRANCH_COMMITS,
    CHORES,
    FIRST_STEPS,
    ISSUE_COMMENTS,
    ISSUE_TEMPLATES,
    ISSUE_TYPE_BRANCH,
    ISSUE_TYPE_LABEL,
    LABELS,
    PR_SUMMARIES,
    RELEASE_INTROS,
    REPOS,
    REVIEW_BODIES,
    TESTING,
    RepoPlan,
)
from mcpgym.servers.code.models import (
    ACTING_USER_ID,
    PERMISSIONS,
    Branch,
    CheckRun,
    Collaborator,
    Commit,
    CommitFile,
    CommitParent,
    Issue,
    IssueAssignee,
    IssueComment,
    IssueLabel,
    Label,
    PullRequest,
    PullRequestCommit,
    PullRequestLabel,
    Release,
    Repository,
    RepositoryTopic,
    Review,
    ReviewRequest,
    User,
)
from mcpgym.servers.kernel.links import seeded_rows
from mcpgym.servers.kernel.world import World

HISTORY_DAYS = 480
"""Days of history before now in which the work happens."""

PR_OUTCOMES: dict[str, tuple[tuple[str, float], ...]] = {
    "Done": (("merged", 0.82),),
    "Won't Do": (("closed", 0.35),),
    "In Review": (("open", 1.0),),
    "In Progress": (("draft", 0.3), ("open", 0.5)),
    "Blocked": (("draft", 0.4),),
}
"""A tracked issue's status -> the chance of each pull request outcome (else none); finished
ones (merged, closed) scale by the repository's `fixed_here`."""

OPEN_SCENARIOS = (("ready", 25), ("awaiting", 30), ("changes", 15), ("failing", 15), ("pending", 15))
"""What holds an open, non-draft pull request back (ready: nothing), with weights."""

COMMITS_PER_BRANCH = ((1, 2, 3, 4, 5), (3, 4, 3, 2, 1))
ME = ACTING_USER_ID


def _second(t: datetime) -> datetime:
    return t.replace(microsecond=0)


def login_of(name: str, taken: set[str]) -> str:
    """A GitHub-style login from a full name (`ann-olson`), numbered when taken."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    base = re.sub(r"[^a-z0-9]+", "-", ascii_name).strip("-")[:36] or "user"
    login, n = base, 2
    while login in taken:
        login, n = f"{base}{n}", n + 1
    taken.add(login)
    return login


def slug(text: str, limit: int = 40) -> str:
    """Lowercase words joined by hyphens, cut at a word boundary: a branch-name fragment."""
    words = re.sub(r"[^a-z0-9]+", " ", text.lower()).split()
    out = ""
    for word in words:
        if len(out) + len(word) + 1 > limit:
            break
        out = f"{out}-{word}" if out else word
    return out or "change"


def stem(path: str) -> str:
    """A file's name without folders and extensions: what commit messages call an area."""
    return path.rsplit("/", 1)[-1].split(".", 1)[0]


@dataclass
class CommitSeed:
    id: int
    repo_id: int
    sha: str
    message: str
    author: int
    at: datetime
    parents: list[int]
    files: dict[str, tuple[int, int]]


@dataclass
class PrSeed:
    repo_id: int
    title: str
    body: str
    author: int
    kind: str
    """bug, story, task or chore."""
    issue_key: str | None
    outcome: str
    """merged, closed, open or draft."""
    created: datetime
    ended: datetime | None
    labels: list[str]
    head_branch: str
    paths: list[str]
    first_step: str
    scenario: str = ""
    number: int = 0
    id: int = 0
    commits: list[CommitSeed] = field(default_factory=list)
    merge_commit: CommitSeed | None = None
    method: str | None = None
    merged_by: int | None = None
    reviews: list[tuple[datetime, int, str, str]] = field(default_factory=list)
    requests: list[tuple[int, datetime]] = field(default_factory=list)
    keep_branch: bool = False


@dataclass
class IssueSeed:
    repo_id: int
    title: str
    body: str
    author: int
    created: datetime
    labels: list[str]
    assignees: list[int]
    closed: datetime | None
    reason: str | None
    closed_by: int | None
    comments: list[tuple[datetime, int, str]]
    number: int = 0


class Host:
    """Builds every row of the code host from the world, the tracker's issues and a random stream."""

    def __init__(self, world: World, rng: random.Random) -> None:
        self.world, self.rng, self.now = world, rng, world.now
        self.start = self.now - timedelta(days=HISTORY_DAYS)
        self.employees = [i + 1 for i, p in enumerate(world.people) if p.is_employee]
        self.tracked = tracked_issues(world.seed)
        self.rows: dict[type[DeclarativeBase], list[dict[str, Any]]] = {}
        self.commits: list[CommitSeed] = []
        self.prs: list[PrSeed] = []
        self.issues: list[IssueSeed] = []
        self.branch_rows: list[dict[str, Any]] = []
        self.check_rows: list[dict[str, Any]] = []

    def add(self, model: type[DeclarativeBase], row: dict[str, Any]) -> None:
        self.rows.setdefault(model, []).append(row)

    # ------------------------------------------------------------ people

    def users(self) -> None:
        taken: set[str] = set()
        for i, person in enumerate(self.world.people):
            if person.is_employee:
                self.add(User, {"id": i + 1, "external_id": person.id, "login": login_of(person.name, taken),
                                "name": person.name, "email": person.email, "title": person.job_title,
                                "timezone": person.timezone,
                                "created_at": _second(self.start - timedelta(days=120 + 9 * i))})

    def team(self, plan: RepoPlan) -> dict[int, str]:
        """Collaborators and their permissions: the people the tracker assigns the project's
        work to (or a sampled team), a few maintainers and admins, some triagers and readers,
        and the acting user with the plan's permission."""
        rng = self.rng
        others = [u for u in self.employees if u != ME]
        assignees = sorted({i["assignee_id"] for i in self.tracked.get(plan.project_key or "", [])
                            if i["assignee_id"] in others})
        core = assignees if len(assignees) >= 5 else sorted(rng.sample(others, rng.randint(7, 11)))
        team = {user: "write" for user in core}
        for user, permission in zip(rng.sample(core, 3), ("admin", "admin", "maintain")):
            team[user] = permission
        outsiders = [u for u in others if u not in team]
        for user in rng.sample(outsiders, min(len(outsiders), rng.randint(2, 4))):
            team[user] = rng.choice(("read", "triage"))
        team[ME] = plan.my_permission
        return dict(sorted(team.items()))

    # ------------------------------------------------------------ commits

    def commit(self, repo_id: int, message: str, author: int, at: datetime, parents: list[CommitSeed],
               files: dict[str, tuple[int, int]]) -> CommitSeed:
        seed = CommitSeed(len(self.commits) + 1, repo_id, f"{self.rng.getrandbits(160):040x}", message, author,
                          _second(at), [p.id for p in parents], files)
        self.commits.append(seed)
        return seed

    def edits(self, paths: list[str], large: bool) -> dict[str, tuple[int, int]]:
        rng = self.rng
        scale = 60 if large else 12
        out = {}
        for path in sorted(paths):
            added = max(1, int(rng.lognormvariate(0, 0.9) * scale))
            out[path] = (added, int(added * rng.random() * 0.6))
        return out

    # ------------------------------------------------------------ work items

    def pull_requests(self, plan: RepoPlan, repo_id: int, team: dict[int, str]) -> list[PrSeed]:
        """Pull requests for the tracked issues, then chores, with their times and outcomes."""
        rng, now = self.rng, self.now
        writers = [u for u, p in team.items() if PERMISSIONS.index(p) >= PERMISSIONS.index("write")]
        authors = [u for u in writers if u != ME] * 6 + ([ME] if ME in writers else [])
        branches: set[str] = set()

        def branch(prefix: str, text: str) -> str:
            name, n = f"{prefix}/{text}", 2
            while name in branches:
                name, n = f"{prefix}/{text}-{n}", n + 1
            branches.add(name)
            return name

        def timing(outcome: str) -> tuple[datetime, datetime | None]:
            if outcome in ("open", "draft"):
                days = rng.uniform(0.3, 10) if outcome == "open" else rng.uniform(1, 45)
                return now - timedelta(days=days), None
            created = self.start + timedelta(seconds=rng.randrange(int((HISTORY_DAYS - 3) * 86400)))
            hours = min(rng.lognormvariate(3, 1.1), 24 * 14) + 0.5 if outcome == "merged" else rng.uniform(24, 24 * 20)
            ended = min(created + timedelta(hours=hours), now - timedelta(hours=2))
            return created, ended

        prs = []
        for issue in self.tracked.get(plan.project_key or "", []):
            roll, outcome = rng.random(), None
            for name, chance in PR_OUTCOMES.get(issue["status"], ()):
                chance *= plan.fixed_here if name in ("merged", "closed") else 1.0
                if roll < chance:
                    outcome = name
                    break
                roll -= chance
            if outcome is None:
                continue
            author = issue["assignee_id"] if issue["assignee_id"] in writers else rng.choice(authors)
            created, ended = timing(outcome)
            area = stem(rng.choice(plan.paths))
            kind = issue["type"]
            key, summary = issue["key"], issue["summary"]
            labels = [ISSUE_TYPE_LABEL[kind]] + (["needs-qa"] if rng.random() < 0.15 else [])
            prs.append(PrSeed(
                repo_id, f"{key}: {summary}"[:256], "", author, kind, key, outcome, created, ended, labels,
                branch(ISSUE_TYPE_BRANCH[kind], f"{key}-{slug(summary, 32)}"), self.pr_paths(plan),
                FIRST_STEPS[kind].format(area=area)))
        for _ in range(plan.chores):
            outcome = rng.choices(("merged", "closed", "open", "draft"), (76, 8, 12, 4))[0]
            created, ended = timing(outcome)
            author = rng.choice(authors)
            if plan.dependencies and rng.random() < 0.45:
                package, manifest, major = rng.choice(plan.dependencies)
                minor = rng.randint(0, 30)
                title = f"Bump {package} from {major}.{minor}.{rng.randint(0, 9)} to {major}.{minor + 1}.0"
                prs.append(PrSeed(repo_id, title, "", author, "chore", None, outcome, created, ended, ["dependencies"],
                                  branch("deps", slug(f"{package} {major} {minor + 1}")), [manifest], title))
                continue
            pattern, label = rng.choice(CHORES)
            paths = self.pr_paths(plan)
            title = pattern.format(area=stem(paths[0]))
            prs.append(PrSeed(repo_id, title, "", author, "chore", None, outcome, created, ended,
                              [label] if label else [], branch("chore", slug(title)), paths, title))
        mine = [pr for pr in prs if pr.outcome == "open" and pr.author != ME]
        if ME in writers and mine and rng.random() < 0.6:
            rng.choice(mine).author = ME
        ready = [pr for pr in prs if pr.outcome == "open"]
        for pr in ready:
            pr.scenario = rng.choices(*zip(*OPEN_SCENARIOS))[0]
        if ready and not any(pr.scenario == "ready" for pr in ready):
            rng.choice(ready).scenario = "ready"  # some work is always ready to merge
        for pr in prs:
            if pr.outcome == "draft":
                pr.scenario = "draft"
        for pr in prs:
            pr.body = self.pr_body(pr)
        return prs

    def pr_paths(self, plan: RepoPlan) -> list[str]:
        """The files a change touches: one to four from the same area of the repository."""
        rng = self.rng
        anchor = rng.choice(plan.paths)
        folder = anchor.rsplit("/", 1)[0] if "/" in anchor else ""
        near = [p for p in plan.paths if p != anchor and (p.rsplit("/", 1)[0] if "/" in p else "") == folder]
        return [anchor, *rng.sample(near, min(len(near), rng.choices((0, 1, 2, 3), (4, 4, 2, 1))[0]))]

    def pr_body(self, pr: PrSeed) -> str:
        summary = pr.title.split(": ", 1)[-1]
        lines = ["## Summary", PR_SUMMARIES[pr.kind].format(key=pr.issue_key, summary=summary.rstrip("."))]
        if pr.issue_key:
            lines += ["", f"Fixes {pr.issue_key}"]
        lines += ["", "## Testing", f"- {self.rng.choice(TESTING)}"]
        return "\n".join(lines)

    def github_issues(self, plan: RepoPlan, repo_id: int, team: dict[int, str]) -> list[IssueSeed]:
        rng, now = self.rng, self.now
        members = list(team)
        writers = [u for u, p in team.items() if PERMISSIONS.index(p) >= PERMISSIONS.index("write") and u != ME]
        deciders = [u for u, p in team.items() if PERMISSIONS.index(p) >= PERMISSIONS.index("triage")]
        out = []
        for _ in range(plan.issues):
            title, labels, body = rng.choice(ISSUE_TEMPLATES)
            area = stem(rng.choice(plan.paths))
            dependency = rng.choice(plan.dependencies)[0] if plan.dependencies else "the build tooling"
            created = _second(self.start + timedelta(seconds=rng.randrange(int((HISTORY_DAYS - 1) * 86400))))
            closed = None
            if rng.random() < 0.55:
                closed = _second(min(created + timedelta(days=rng.uniform(0.5, 60)), now - timedelta(hours=1)))
            end = closed or now
            comments = sorted((_second(created + (end - created) * rng.random()), rng.choice(members),
                               rng.choice(ISSUE_COMMENTS)) for _ in range(rng.choices((0, 1, 2, 3, 4), (3, 3, 2, 1, 1))[0]))
            out.append(IssueSeed(
                repo_id, title.format(area=area, dependency=dependency), body.format(area=area, dependency=dependency),
                rng.choice(members), created, sorted(labels),
                sorted(rng.sample(writers, rng.choices((0, 1, 2), (3, 5, 1))[0])), closed,
                None if closed is None else rng.choices(("completed", "not_planned"), (4, 1))[0],
                None if closed is None else rng.choice(deciders), comments))
        return out

    # ------------------------------------------------------------ one repository over time

    def repository(self, plan: RepoPlan, repo_id: int) -> None:
        rng, now = self.rng, self.now
        created = _second(self.start - timedelta(days=rng.randint(30, 400)))
        team = self.team(plan)
        writers = [u for u, p in team.items() if PERMISSIONS.index(p) >= PERMISSIONS.index("write")]
        keepers = [u for u, p in team.items() if p in ("maintain", "admin")]
        self.add(Repository, {
            "id": repo_id, "name": plan.name, "description": plan.description, "visibility": plan.visibility,
            "default_branch": plan.default_branch, "language": plan.language, "project_key": plan.project_key,
            "required_approvals": plan.required_approvals, "merge_methods": list(plan.merge_methods),
            "required_checks": list(plan.checks), "created_at": created})
        for topic in plan.topics:
            self.add(RepositoryTopic, {"repo_id": repo_id, "topic": topic})
        for name, description in LABELS:
            self.add(Label, {"repo_id": repo_id, "name": name, "description": description})
        for user, permission in team.items():
            self.add(Collaborator, {"repo_id": repo_id, "user_id": user, "permission": permission})

        prs = self.pull_requests(plan, repo_id, team)
        issues = self.github_issues(plan, repo_id, team)
        numbered = sorted([(pr.created, 0, i) for i, pr in enumerate(prs)] + [(issue.created, 1, i) for i, issue in enumerate(issues)])
        for number, (_, kind, index) in enumerate(numbered, start=1):
            if kind == 0:
                prs[index].number = number
            else:
                issues[index].number = number
        prs.sort(key=lambda pr: pr.number)
        issues.sort(key=lambda issue: issue.number)

        events: list[tuple[datetime, int, str, PrSeed | None]] = []
        for pr in prs:
            opened = max(created + timedelta(hours=1), pr.created - timedelta(hours=rng.uniform(0.2, 6)))
            events.append((opened, len(events), "open", pr))
            if pr.outcome == "merged":
                assert pr.ended is not None
                events.append((pr.ended, len(events), "merge", pr))
        if plan.release_every_days:
            t = created + timedelta(days=rng.uniform(10, plan.release_every_days))
            while t < now - timedelta(days=2):
                events.append((t, len(events), "release", None))
                t += timedelta(days=plan.release_every_days * rng.uniform(0.6, 1.4))
        if not plan.protected:
            for _ in range(25):
                at = self.start + timedelta(seconds=rng.randrange(int((HISTORY_DAYS - 1) * 86400)))
                events.append((at, len(events), "push", None))
        for _ in range(rng.randint(1, 3)):
            events.append((now - timedelta(days=rng.uniform(2, 60)), len(events), "spike", None))
        events.sort(key=lambda e: (e[0], e[1]))

        head = self.commit(repo_id, "Initial commit", rng.choice(keepers), created, [],
                           {"README.md": (12, 0), **self.edits(rng.sample(plan.paths, 3), True)})
        version = plan.first_version
        released_since: list[PrSeed] = []
        releases: list[tuple[str, CommitSeed]] = []
        branches: dict[str, tuple[CommitSeed, datetime, bool]] = {}
        for at, _, kind, pr in events:
            if kind == "open" and pr is not None:
                self.work_on(pr, head, at)
            elif kind == "merge" and pr is not None:
                head = self.merge(plan, pr, head, writers)
                released_since.append(pr)
            elif kind == "release":
                version = self.bump(version, released_since)
                tag = "v{}.{}.{}".format(*version)
                self.add(Release, {
                    "repo_id": repo_id, "tag": tag, "name": tag if rng.random() < 0.6 else f"Release {tag[1:]}",
                    "notes": self.release_notes(released_since), "commit_id": head.id, "author_id": rng.choice(keepers),
                    "prerelease": False, "created_at": _second(max(at, head.at + timedelta(minutes=5)))})
                releases.append((tag, head))
                released_since = []
            elif kind == "push":
                author = rng.choice(writers)
                paths = self.pr_paths(plan)
                message = rng.choice(("Fix typo in {}", "Update {} examples", "Clarify {}", "Add a section to {}"))
                head = self.commit(repo_id, message.format(stem(paths[0])), author, max(at, head.at + timedelta(minutes=1)),
                                   [head], self.edits(paths, False))
            else:
                paths = self.pr_paths(plan)
                tip = head
                for n in range(rng.randint(1, 3)):
                    tip = self.commit(repo_id, f"WIP: try a new approach to {stem(paths[0])}" if n == 0 else "WIP",
                                      rng.choice(writers), max(at, tip.at) + timedelta(minutes=30 * n + 1), [tip],
                                      self.edits(paths, n == 0))
                name = f"spike/{slug(stem(paths[0]), 30)}-experiment"
                if name not in branches:
                    branches[name] = (tip, at, False)

        branches[plan.default_branch] = (head, created, plan.protected)
        if plan.release_branch and releases:
            tag, commit = releases[-1]
            branches["release/" + tag.rsplit(".", 1)[0]] = (commit, commit.at + timedelta(minutes=10), True)
        for pr in prs:
            if pr.outcome in ("open", "draft") or pr.keep_branch:
                branches[pr.head_branch] = (pr.commits[-1], pr.commits[0].at, False)
        for name in sorted(branches, key=lambda n: (n != plan.default_branch, n)):
            commit, at, protected = branches[name]
            self.branch_rows.append({"repo_id": repo_id, "name": name, "head_id": commit.id, "protected": protected,
                                     "created_at": _second(at)})
        for pr in prs:
            self.reviews(plan, pr, team)
            self.checks(plan, pr)
        self.prs += prs
        self.issues += issues

    def work_on(self, pr: PrSeed, base: CommitSeed, opened: datetime) -> None:
        """The pull request's branch: its first commit forks from `base`, later ones come
        while it is open (review fixes)."""
        rng, now = self.rng, self.now
        count = 1 if pr.kind == "chore" and pr.labels == ["dependencies"] else rng.choices(*COMMITS_PER_BRANCH)[0]
        limit = (pr.ended or now) - timedelta(minutes=10)
        first = max(opened, base.at + timedelta(minutes=1))
        later = sorted(first + (limit - first) * rng.random() for _ in range(count - 1)) if limit > first else []
        if pr.scenario == "pending":
            later = [*later[:-1], now - timedelta(minutes=rng.randint(5, 50))] if later else []
            if not later:
                first = max(first, now - timedelta(minutes=rng.randint(5, 50)))
        key = pr.issue_key
        tip = base
        for n, at in enumerate([first, *later]):
            if n == 0:
                message = f"{key}: {pr.first_step}" if key else pr.first_step
                files = self.edits(pr.paths, True) if pr.labels != ["dependencies"] else {pr.paths[0]: (1, 1)}
            else:
                paths = rng.sample(pr.paths, rng.randint(1, len(pr.paths)))
                message = rng.choice(BRANCH_COMMITS).format(key=key or "", area=stem(paths[0]), first=pr.first_step)
                message = message.removeprefix(": ")
                files = self.edits(paths, False)
            tip = self.commit(pr.repo_id, message, pr.author, max(at, tip.at + timedelta(minutes=1)), [tip], files)
            pr.commits.append(tip)
        if pr.outcome == "closed":
            pr.keep_branch = rng.random() < 0.5

    def merge(self, plan: RepoPlan, pr: PrSeed, head: CommitSeed, writers: list[int]) -> CommitSeed:
        """Merge `pr` onto the default branch (whose head is `head`) by an allowed method;
        the default branch's new head."""
        rng = self.rng
        assert pr.ended is not None
        at = max(pr.ended, pr.commits[-1].at + timedelta(minutes=5), head.at + timedelta(minutes=1))
        pr.ended = _second(at)
        weights = {"merge": 3, "squash": 5, "rebase": 1}
        pr.method = rng.choices(plan.merge_methods, [weights[m] for m in plan.merge_methods])[0]
        others = [u for u in writers if u != pr.author]
        pr.merged_by = pr.author if rng.random() < 0.6 or not others else rng.choice(others)
        total: Counter[str] = Counter()
        removed: Counter[str] = Counter()
        for commit in pr.commits:
            for path, (added, deleted) in commit.files.items():
                total[path] += added
                removed[path] += deleted
        files = {path: (total[path], removed[path]) for path in sorted(total)}
        if pr.method == "merge":
            message = f"Merge pull request #{pr.number} from {pr.head_branch}\n\n{pr.title}"
            head = self.commit(pr.repo_id, message, pr.merged_by, at, [head, pr.commits[-1]], files)
        elif pr.method == "squash":
            head = self.commit(pr.repo_id, f"{pr.title} (#{pr.number})", pr.author, at, [head], files)
        else:
            for n, commit in enumerate(pr.commits):
                head = self.commit(pr.repo_id, commit.message, commit.author, at + timedelta(seconds=n), [head],
                                   dict(commit.files))
        pr.merge_commit = head
        pr.keep_branch = rng.random() < 0.15
        return head

    def bump(self, version: tuple[int, int, int], merged: list[PrSeed]) -> tuple[int, int, int]:
        major, minor, patch = version
        if any("breaking-change" in pr.labels for pr in merged) and self.rng.random() < 0.5:
            return major + 1, 0, 0
        if any(pr.kind in ("story", "task") for pr in merged) or self.rng.random() < 0.5:
            return major, minor + 1, 0
        return major, minor, patch + 1

    def release_notes(self, merged: list[PrSeed]) -> str:
        lines = [self.rng.choice(RELEASE_INTROS)]
        lines += [f"- {pr.title} (#{pr.number})" for pr in merged[:15]]
        if len(merged) > 15:
            lines.append(f"- and {len(merged) - 15} more changes")
        if not merged:
            lines.append("- Maintenance release: no user-facing changes.")
        return "\n".join(lines)

    # ------------------------------------------------------------ reviews and checks

    def reviews(self, plan: RepoPlan, pr: PrSeed, team: dict[int, str]) -> None:
        """Reviews and open review requests that fit the pull request's outcome: merged and
        ready ones have their approvals; the rest lack what their scenario says."""
        rng, now = self.rng, self.now
        required = plan.required_approvals
        eligible = [u for u, p in team.items() if PERMISSIONS.index(p) >= PERMISSIONS.index("write") and u != pr.author]
        rng.shuffle(eligible)
        start = pr.commits[0].at + timedelta(minutes=5)
        end = (pr.ended or now) - timedelta(minutes=2)
        if end <= start:
            end = start + timedelta(minutes=1)
        scenario = pr.scenario or pr.outcome

        def when() -> datetime:
            return _second(start + (end - start) * rng.random())

        if scenario in ("merged", "ready", "failing", "pending", "changes", "awaiting"):
            if scenario == "awaiting":
                count = rng.randint(0, required - 1) if required else 0
            elif scenario == "changes":
                count = rng.randint(0, required)
            else:
                count = min(len(eligible), required + (1 if rng.random() < 0.2 else 0))
            approvers, rest = eligible[:count], eligible[count:]
            for user in approvers:
                first, last = sorted((when(), when()))
                if rng.random() < 0.2:
                    pr.reviews.append((first, user, "changes_requested", rng.choice(REVIEW_BODIES["changes_requested"])))
                pr.reviews.append((last, user, "approved", rng.choice(REVIEW_BODIES["approved"])))
            if scenario == "changes" and rest:
                pr.reviews.append((when(), rest.pop(0), "changes_requested", rng.choice(REVIEW_BODIES["changes_requested"])))
            if scenario == "awaiting" and rest:
                asked = rest[:rng.randint(1, min(2, len(rest)))]
                if ME in rest and ME not in asked and rng.random() < 0.7:
                    asked.append(ME)
                pr.requests = [(user, _second(start)) for user in asked]
                rest = [u for u in rest if u not in asked]
            if rest and rng.random() < 0.3:
                pr.reviews.append((when(), rest[0], "commented", rng.choice(REVIEW_BODIES["commented"])))
        elif scenario == "closed" and eligible and rng.random() < 0.5:
            pr.reviews.append((when(), eligible[0], rng.choice(("changes_requested", "commented")),
                               rng.choice(REVIEW_BODIES["changes_requested"])))
        elif scenario == "draft" and eligible and rng.random() < 0.4:
            pr.reviews.append((when(), eligible[0], "commented", rng.choice(REVIEW_BODIES["commented"])))
        pr.reviews.sort()

    def checks(self, plan: RepoPlan, pr: PrSeed) -> None:
        rng, now = self.rng, self.now
        head = pr.commits[-1]
        scenario = pr.scenario or pr.outcome
        names = list(plan.checks)
        statuses = dict.fromkeys(names, "success")
        if scenario == "failing":
            statuses[rng.choice(names)] = "failure"
        elif scenario == "pending":
            for name in rng.sample(names, rng.randint(1, max(1, len(names) - 1))):
                statuses[name] = "pending"
        elif scenario in ("draft", "closed", "changes"):
            for name in names:
                statuses[name] = rng.choices(("success", "failure"), (4, 1))[0]
        for name in names:
            started = _second(head.at + timedelta(minutes=rng.randint(1, 3)))
            done = None if statuses[name] == "pending" else _second(started + timedelta(minutes=rng.randint(3, 25)))
            if done is not None and done > now:
                done = _second(now)
            self.check_rows.append({"commit_id": head.id, "name": name, "status": statuses[name],
                                    "started_at": min(started, _second(now)), "completed_at": done})

    # ------------------------------------------------------------ rows

    def build(self) -> None:
        """Every repository from its own random stream (drawn from the server's), so that one
        repository's work never shifts another's: those not tied to a tracker project stay the
        same whatever the tracker holds."""
        self.users()
        streams = [random.Random(self.rng.getrandbits(64)) for _ in REPOS]
        for repo_id, (plan, stream) in enumerate(zip(REPOS, streams), start=1):
            self.rng = stream
            self.repository(plan, repo_id)

    def insert(self, db: Session) -> None:
        """Every row, table by table, as bulk inserts."""
        for commit in self.commits:
            self.add(Commit, {"id": commit.id, "repo_id": commit.repo_id, "sha": commit.sha, "message": commit.message,
                              "author_id": commit.author, "committed_at": commit.at,
                              "additions": sum(a for a, _ in commit.files.values()),
                              "deletions": sum(d for _, d in commit.files.values())})
            for position, parent in enumerate(commit.parents):
                self.add(CommitParent, {"commit_id": commit.id, "position": position, "parent_id": parent})
            for path, (added, deleted) in commit.files.items():
                self.add(CommitFile, {"commit_id": commit.id, "path": path, "additions": added, "deletions": deleted})
        for branch_id, row in enumerate(self.branch_rows, start=1):
            self.add(Branch, {"id": branch_id, **row})
        review_id = 0
        for pr_id, pr in enumerate(sorted(self.prs, key=lambda p: (p.repo_id, p.number)), start=1):
            pr.id = pr_id
            last = max([pr.created, pr.commits[-1].at, *(r[0] for r in pr.reviews), *([pr.ended] if pr.ended else [])])
            merged = pr.outcome == "merged"
            self.add(PullRequest, {
                "id": pr_id, "repo_id": pr.repo_id, "number": pr.number, "title": pr.title, "body": pr.body,
                "author_id": pr.author, "head_branch": pr.head_branch,
                "base_branch": REPOS[pr.repo_id - 1].default_branch, "head_id": pr.commits[-1].id,
                "state": "open" if pr.outcome in ("open", "draft") else pr.outcome, "draft": pr.outcome == "draft",
                "issue_key": pr.issue_key, "merge_method": pr.method,
                "merge_commit_id": pr.merge_commit.id if pr.merge_commit else None, "merged_by_id": pr.merged_by,
                "created_at": _second(pr.created), "updated_at": _second(last),
                "merged_at": pr.ended if merged else None,
                "closed_at": _second(pr.ended) if pr.ended is not None else None})
            for label in sorted(set(pr.labels)):
                self.add(PullRequestLabel, {"pull_request_id": pr_id, "label": label})
            for commit in pr.commits:
                self.add(PullRequestCommit, {"pull_request_id": pr_id, "commit_id": commit.id})
            for at, user, state, body in pr.reviews:
                review_id += 1
                self.add(Review, {"id": review_id, "pull_request_id": pr_id, "reviewer_id": user, "state": state,
                                  "body": body, "submitted_at": at})
            for user, at in pr.requests:
                self.add(ReviewRequest, {"pull_request_id": pr_id, "reviewer_id": user, "requested_at": at})
        for check_id, row in enumerate(self.check_rows, start=1):
            self.add(CheckRun, {"id": check_id, **row})
        comment_id = 0
        for issue_id, issue in enumerate(sorted(self.issues, key=lambda i: (i.repo_id, i.number)), start=1):
            last = max([issue.created, *(c[0] for c in issue.comments), *([issue.closed] if issue.closed else [])])
            self.add(Issue, {"id": issue_id, "repo_id": issue.repo_id, "number": issue.number, "title": issue.title,
                             "body": issue.body, "author_id": issue.author, "state": "closed" if issue.closed else "open",
                             "state_reason": issue.reason, "created_at": issue.created, "updated_at": last,
                             "closed_at": issue.closed, "closed_by_id": issue.closed_by})
            for label in issue.labels:
                self.add(IssueLabel, {"issue_id": issue_id, "label": label})
            for user in issue.assignees:
                self.add(IssueAssignee, {"issue_id": issue_id, "user_id": user})
            for at, user, body in issue.comments:
                comment_id += 1
                self.add(IssueComment, {"id": comment_id, "issue_id": issue_id, "author_id": user, "body": body,
                                        "created_at": at})
        releases = self.rows.get(Release, [])
        for release_id, row in enumerate(releases, start=1):
            row["id"] = release_id
        connection = db.connection()
        for model in (User, Repository, RepositoryTopic, Label, Collaborator, Commit, CommitParent, CommitFile, Branch,
                      PullRequest, PullRequestLabel, PullRequestCommit, Review, ReviewRequest, CheckRun, Issue,
                      IssueLabel, IssueAssignee, IssueComment, Release):
            rows = self.rows.get(model)
            if rows:
                connection.execute(insert(model.__table__), rows)  # type: ignore[attr-defined]  # one executemany per table


def tracked_issues(seed: int) -> dict[str, list[dict[str, Any]]]:
    """The stories, tasks and bugs of the projects server's seeded tracker, by project key, in
    issue-number order: what pull requests resolve."""
    rows = seeded_rows(
        "projects", seed,
        "SELECT issues.key, issues.summary, issues.status, issues.type, issues.assignee_id, projects.key AS project_key "
        "FROM issues JOIN projects ON projects.id = issues.project_id WHERE issues.type IN ('story', 'task', 'bug')")
    by_project: dict[str, list[dict[str, Any]]] = {}
    for row in sorted(rows, key=lambda r: (r["project_key"], int(r["key"].rsplit("-", 1)[1]))):
        by_project.setdefault(row["project_key"], []).append(row)
    return by_project


def populate(db: Session, world: World, rng: random.Random) -> None:
    """Fill an empty code host from the shared world and the issue tracker's issues."""
    host = Host(world, rng)
    host.build()
    host.insert(db)
