"""Code-host task families: merge rules, admins, a person's review queue, branch heads, who
last touched a file, monthly commits, a commit's changes, unreleased work, top contributors,
merged work per person, open issues by label, whether a pull request can merge; the writes
of a lead (open, review, merge, close, reopen and ready pull requests; branches, commits,
issues, releases, access); refusals the host's rules call for; two-turn follow-ups; and the
issue tracker's side of a pull request (the fix of an issue, the author's open issues).

A user names a repository by name, a pull request or issue by its number (#42), a person by
name or email, a branch by name, a commit by its short sha and tracker issues by key; never
an internal id.
"""

from __future__ import annotations

import random
import re
from typing import Any

from mcpgym.synth.family import Draft, Family, WorldView, month_name, month_window, previous_month

SERVER = "code"
ME = 1
RANK = {p: i for i, p in enumerate(("read", "triage", "write", "maintain", "admin"))}
HISTORY_MONTHS = 14
"""Whole months back from now in which the seeded history is dense."""

Row = dict[str, Any]
Call = dict[str, Any]

COMMIT_MESSAGES = (
    "Fix a typo in the quick-start guide", "Clarify the rate-limit headers", "Update the webhook retry example",
    "Correct the token expiry in the auth guide", "Add a note about pagination limits",
)
PR_TITLES = ("Explore a lighter {area} implementation", "Prototype: {area} without the legacy path",
             "Spike: measure {area} performance")
ISSUE_TITLES = ("Flaky visual test on the {area} story", "{area} ignores the reduced-motion setting",
                "Document the {area} props", "Error message unclear when {area} fails")
REVIEW_ASKS = ("a test for the empty case", "an entry in the changelog", "error handling for timeouts",
               "a migration note in the description")
COMMENTS = ("Thanks for the report, we are looking into it.", "Could you share the steps to reproduce?",
            "A fix is planned for the next release.", "Closing in favour of the tracked issue.")
NOTES = ("Bug fixes and dependency updates.", "Performance improvements and smaller fixes.",
         "New components and accessibility fixes.")


# ---------------------------------------------------------------- sampling helpers


def _repos(view: WorldView, level: str = "read") -> list[Row]:
    """Repositories where you hold `level` or more."""
    repos = view.read(SERVER, "list_repositories", per_page=100)["repositories"]
    return [r for r in repos if RANK[r["my_permission"] or "read"] >= RANK[level]]


def _prs(view: WorldView, repo: str, state: str = "open", **filters: Any) -> list[Row]:
    return view.read(SERVER, "search_pull_requests", repo=repo, state=state, per_page=100, **filters)["pull_requests"]


def _pr(view: WorldView, repo: str, number: int) -> Row:
    return view.read(SERVER, "get_pull_request", repo=repo, number=number)


def _pick_pr(view: WorldView, rng: random.Random, repos: list[Row], keep: Any, state: str = "open") -> tuple[Row, Row] | None:
    """A random pull request (in detail) of `repos` for which `keep(repo, detail)` holds."""
    options = [(repo, pr) for repo in repos for pr in _prs(view, repo["name"], state)]
    rng.shuffle(options)
    for repo, pr in options[:40]:
        detail = _pr(view, repo["name"], pr["number"])
        if keep(repo, detail):
            return repo, detail
    return None


def _collaborators(view: WorldView, repo: str, **filters: Any) -> list[Row]:
    return view.read(SERVER, "list_collaborators", repo=repo, per_page=100, **filters)["collaborators"]


def _person(call_id: str, repo: str, name: str) -> Call:
    """The call that finds a collaborator of `repo` by name."""
    return {"id": call_id, "tool": "list_collaborators", "arguments": {"repo": repo, "query": name}}


def _unique_name(view: WorldView, repo: str, person: Row) -> bool:
    return len(_collaborators(view, repo, query=person["name"])) == 1


def _get_pr(call_id: str, repo: str, number: int) -> Call:
    return {"id": call_id, "tool": "get_pull_request", "arguments": {"repo": repo, "number": number}}


def _months(view: WorldView) -> list[tuple[int, int]]:
    return [previous_month(view.now.year, view.now.month, back) for back in range(1, HISTORY_MONTHS)]


def _area(path: str) -> str:
    return path.rsplit("/", 1)[-1].split(".", 1)[0]


def _next_minor(tag: str) -> str | None:
    match = re.fullmatch(r"v(\d+)\.(\d+)\.(\d+)", tag)
    return f"v{match.group(1)}.{int(match.group(2)) + 1}.0" if match else None


# ---------------------------------------------------------------- lookups and reports


class MergeRules(Family):
    """What a pull request needs to merge into a repository, and its default branch."""

    name = "code.merge-rules"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view))["name"]
        user = [
            f"What does a pull request need before it can be merged in {repo}: how many approvals, and which merge methods are allowed? And what is its default branch?",
            f"For the {repo} repository, tell me the required number of approvals, the allowed merge methods and the default branch.",
            f"I'm about to open my first PR in {repo}. Which branch does it go into, how many approvals will it need, and how can it be merged?",
        ]
        return Draft(family=self.name, key=f"repo:{repo}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_repository", "arguments": {"repo": repo}},
        ], "facts": [
            {"name": "required approvals", "expr": "{c1.required_approvals}", "value": None},
            {"name": "merge methods", "expr": "{c1.merge_methods}", "value": None},
            {"name": "default branch", "expr": "{c1.default_branch}", "value": None},
        ]}])


class LanguageWorkload(Family):
    """How many repositories are written in a language, and their open pull requests in total."""

    name = "code.language-workload"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        language = rng.choice(sorted({r["language"] for r in _repos(view)}))
        repos = view.read(SERVER, "list_repositories", language=language, per_page=100)["repositories"]
        total = " + ".join(f"{{c1.repositories.{i}.open_pull_requests}}" for i in range(len(repos)))
        user = [
            f"How many of our repositories are written in {language}, and how many open pull requests do they have altogether?",
            f"Count our {language} repositories and add up their open pull requests.",
            f"For everything we write in {language}: number of repositories, and total open PRs across them?",
        ]
        return Draft(family=self.name, key=f"language:{language}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_repositories", "arguments": {"language": language}},
        ], "facts": [
            {"name": f"{language} repositories", "expr": "{c1.total}", "value": None},
            {"name": "open pull requests", "expr": total, "value": None},
        ]}], checks=[f"{{c1.total}} == {len(repos)}"])


class RepoAdmins(Family):
    """Who the admins of a repository are."""

    name = "code.repo-admins"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view))["name"]
        admins = _collaborators(view, repo, permission=["admin"])
        names = ", ".join(f"{{c1.collaborators.{i}.name}}" for i in range(len(admins)))
        user = [
            f"Who are the admins of the {repo} repository?",
            f"List the people with admin permission on {repo}.",
            f"I need someone who can change access on {repo}. Who are its admins?",
        ]
        return Draft(family=self.name, key=f"repo:{repo}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_collaborators", "arguments": {"repo": repo, "permission": ["admin"]}},
        ], "facts": [{"name": "admins", "expr": f"[{names}]", "value": None}]}], checks=[f"{{c1.total}} == {len(admins)}"])


class ReviewQueue(Family):
    """A colleague (named by email): their login, open pull requests and reviews waiting on them."""

    name = "code.review-queue"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view))["name"]
        person = rng.choice(_collaborators(view, repo))
        email = person["email"]
        user = [
            f"What is {email}'s login on our code host, how many open pull requests have they authored, and how many are waiting for their review?",
            f"For {email}: code-host login, open PRs they opened, and PRs awaiting their review.",
            f"Look up {email} on the code host. I want their login and two counts: their open pull requests and their pending review requests.",
        ]
        return Draft(family=self.name, key=f"user:{email}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_user_by_email", "arguments": {"email": email}},
        ], "facts": [
            {"name": "login", "expr": "{c1.login}", "value": None},
            {"name": "open pull requests", "expr": "{c1.open_pull_requests}", "value": None},
            {"name": "review requests", "expr": "{c1.review_requests}", "value": None},
        ]}])


class BranchHead(Family):
    """Who made the latest commit on a branch, when, and whether the branch is protected."""

    name = "code.branch-head"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view))["name"]
        branches = view.read(SERVER, "list_branches", repo=repo, per_page=100)["branches"]
        branch = rng.choice(branches)["name"]
        if len(view.read(SERVER, "list_branches", repo=repo, query=branch)["branches"]) != 1:
            return None
        user = [
            f"Who made the latest commit on the {branch} branch of {repo}, and when? Is that branch protected?",
            f"In {repo}, what's the head of {branch}: its author and commit time? Also, is {branch} protected?",
        ]
        return Draft(family=self.name, key=f"{repo}|{branch}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_branches", "arguments": {"repo": repo, "query": branch}},
        ], "facts": [
            {"name": "author", "expr": "{c1.branches.0.head.author.name}", "value": None},
            {"name": "time", "expr": "{c1.branches.0.head.committed_at}", "value": None},
            {"name": "protected", "expr": "{c1.branches.0.protected}", "value": None},
        ]}], checks=["{c1.total} == 1"])


class FileLastChange(Family):
    """Who last changed a file on the default branch, when, and how many commits touched it."""

    name = "code.file-last-change"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view))["name"]
        commits = view.read(SERVER, "list_commits", repo=repo, per_page=30)["commits"]
        commit = rng.choice(commits)
        files = view.read(SERVER, "get_commit", repo=repo, sha=commit["sha"])["files"]
        if not files:
            return None
        path = rng.choice(files)["path"]
        user = [
            f"Who last changed {path} on {repo}'s default branch, and when? How many commits there have touched that file?",
            f"In {repo}, find the most recent commit on the default branch that touched {path}: author and time, plus the number of commits that ever changed it.",
        ]
        return Draft(family=self.name, key=f"{repo}|{path}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_commits", "arguments": {"repo": repo, "path": path, "per_page": 2}},
        ], "facts": [
            {"name": "author", "expr": "{c1.commits.0.author.name}", "value": None},
            {"name": "time", "expr": "{c1.commits.0.committed_at}", "value": None},
            {"name": "commits touching it", "expr": "{c1.total}", "value": None},
        ]}], checks=["{c1.total} == 1 or {c1.commits.0.committed_at} != {c1.commits.1.committed_at}"])


class MonthlyCommits(Family):
    """Commits on a default branch in a month, and how many of them a person made."""

    name = "code.monthly-commits"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view))["name"]
        year, month = rng.choice(_months(view))
        start, end = month_window(year, month)
        found = view.read(SERVER, "list_commits", repo=repo, since=start, until=end, per_page=50)["commits"]
        if not found:
            return None
        person = rng.choice(found)["author"]
        if not _unique_name(view, repo, person):
            return None
        when = month_name(year, month)
        user = [
            f"How many commits landed on {repo}'s default branch in {when}, and how many of them were by {person['name']}?",
            f"Count the commits in the history of {repo}'s default branch dated {when}, and those authored by {person['name']}.",
        ]
        window = {"repo": repo, "since": start, "until": end, "per_page": 1}
        return Draft(family=self.name, key=f"{repo}|{when}|{person['id']}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_commits", "arguments": window},
            _person("c2", repo, person["name"]),
            {"id": "c3", "tool": "list_commits", "arguments": window, "bind": {"author_id": "{c2.collaborators.0.id}"}},
        ], "facts": [
            {"name": "commits", "expr": "{c1.total}", "value": None},
            {"name": f"by {person['name']}", "expr": "{c3.total}", "value": None},
        ]}], checks=["{c2.total} == 1"])


class CommitChanges(Family):
    """What a commit (named by its short sha) changed: files and lines."""

    name = "code.commit-changes"
    servers = (SERVER,)
    kind = "drill-down"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view))["name"]
        total = view.read(SERVER, "list_commits", repo=repo, per_page=1)["total"]
        page = view.read(SERVER, "list_commits", repo=repo, per_page=50, page=rng.randint(1, max(1, -(-total // 50))))
        if not page["commits"]:
            return None
        sha = rng.choice(page["commits"])["sha"][:8]
        user = [
            f"What did commit {sha} in {repo} change? Tell me who made it, how many files it touched, and the lines added and removed.",
            f"Commit {sha} of {repo}: author, number of files changed, lines added, lines deleted?",
        ]
        return Draft(family=self.name, key=f"{repo}|{sha}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_commit", "arguments": {"repo": repo, "sha": sha}},
        ], "facts": [
            {"name": "author", "expr": "{c1.author.name}", "value": None},
            {"name": "files changed", "expr": "{c1.changed_files}", "value": None},
            {"name": "lines added", "expr": "{c1.additions}", "value": None},
            {"name": "lines removed", "expr": "{c1.deletions}", "value": None},
        ]}])


class UnreleasedWork(Family):
    """The latest release of a repository and how many commits its default branch has beyond it."""

    name = "code.unreleased-work"
    servers = (SERVER,)
    kind = "comparison"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repos = [r for r in _repos(view) if view.read(SERVER, "list_releases", repo=r["name"], per_page=1)["total"]]
        if not repos:
            return None
        repo = rng.choice(repos)
        name, branch = repo["name"], repo["default_branch"]
        user = [
            f"What is the latest release of {name}, and how many commits on {branch} are not in it yet?",
            f"How far is {name}'s {branch} ahead of its most recent release? Give me the release tag and the number of unreleased commits.",
        ]
        return Draft(family=self.name, key=f"repo:{name}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_releases", "arguments": {"repo": name, "per_page": 1}},
            {"id": "c2", "tool": "compare_branches", "arguments": {"repo": name, "head": branch},
             "bind": {"base": "{c1.releases.0.tag}"}},
        ], "facts": [
            {"name": "latest release", "expr": "{c1.releases.0.tag}", "value": None},
            {"name": "unreleased commits", "expr": "{c2.ahead_by}", "value": None},
        ]}])


class TopContributor(Family):
    """Who made the most commits to a default branch in a quarter, and how many."""

    name = "code.top-contributor"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view))["name"]
        back = rng.randint(1, 10)
        first = previous_month(view.now.year, view.now.month, back + 2)
        last = previous_month(view.now.year, view.now.month, back)
        start, end = month_window(*first)[0], month_window(*last)[1]
        span = f"{month_name(*first)} through {month_name(*last)}"
        user = [
            f"Who made the most commits to {repo}'s default branch from {span}, and how many? Merge commits don't count.",
            f"Top contributor of {repo} ({span}, default branch, no merge commits): who, and how many commits?",
        ]
        return Draft(family=self.name, key=f"{repo}|{span}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "contributor_stats", "arguments": {"repo": repo, "since": start, "until": end}},
        ], "facts": [
            {"name": "top contributor", "expr": "{c1.contributors.0.author.name}", "value": None},
            {"name": "commits", "expr": "{c1.contributors.0.commits}", "value": None},
        ]}], checks=["len({c1.contributors}) == 1 or {c1.contributors.0.commits} != {c1.contributors.1.commits}"])


class MergedByPerson(Family):
    """How many of a person's pull requests were merged in a repository in a month."""

    name = "code.merged-by-person"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view))["name"]
        year, month = rng.choice(_months(view))
        start, end = month_window(year, month)
        merged = view.read(SERVER, "search_pull_requests", repo=repo, state="merged", merged_after=start,
                           merged_before=end, per_page=50)["pull_requests"]
        if not merged:
            return None
        person = rng.choice(merged)["author"]
        if not _unique_name(view, repo, person):
            return None
        when = month_name(year, month)
        user = [
            f"How many of {person['name']}'s pull requests were merged in {repo} during {when}?",
            f"In {when}, how many PRs authored by {person['name']} got merged into {repo}?",
        ]
        return Draft(family=self.name, key=f"{repo}|{when}|{person['id']}", turns=[{"user": user, "calls": [
            _person("c1", repo, person["name"]),
            {"id": "c2", "tool": "search_pull_requests", "arguments": {
                "repo": repo, "state": "merged", "merged_after": start, "merged_before": end, "per_page": 1},
             "bind": {"author_id": "{c1.collaborators.0.id}"}},
        ], "facts": [{"name": "merged pull requests", "expr": "{c2.total}", "value": None}]}], checks=["{c1.total} == 1"])


class MyReviewQueue(Family):
    """How many open pull requests wait for your review, and the oldest of them."""

    name = "code.my-review-queue"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        user = [
            "How many open pull requests are waiting for my review, and which one has been waiting longest (repository and number)?",
            "Check my review queue: the number of PRs awaiting my review, and the oldest one's repo and number.",
        ]
        return Draft(family=self.name, key="me", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_repositories", "arguments": {"per_page": 1}},
            {"id": "c2", "tool": "search_pull_requests", "arguments": {"state": "open", "sort_by": "created_at",
                                                                       "sort_order": "asc", "per_page": 2},
             "bind": {"requested_reviewer_id": "{c1.viewer.id}"}},
        ], "facts": [
            {"name": "waiting for review", "expr": "{c2.total}", "value": None},
            {"name": "oldest: repository", "expr": "{c2.pull_requests.0.repo}", "value": None},
            {"name": "oldest: number", "expr": "{c2.pull_requests.0.number}", "value": None},
        ]}], checks=["{c2.total} == 1 or {c2.pull_requests.0.created_at} != {c2.pull_requests.1.created_at}"])


class PullRequestStatus(Family):
    """Whether an open pull request can merge now, and its approvals against those required."""

    name = "code.pull-request-status"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _pick_pr(view, rng, _repos(view), lambda repo, pr: not pr["draft"])
        if picked is None:
            return None
        repo, pr = picked
        name, number = repo["name"], pr["number"]
        user = [
            f"Can pull request #{number} in {name} be merged right now? How many approvals does it have, and how many does it need?",
            f"Status check on {name}#{number}: mergeable or not, approvals so far and approvals required?",
        ]
        return Draft(family=self.name, key=f"{name}#{number}", turns=[{"user": user, "calls": [_get_pr("c1", name, number)], "facts": [
            {"name": "mergeable", "expr": "{c1.mergeable}", "value": None},
            {"name": "approvals", "expr": "{c1.approvals}", "value": None},
            {"name": "required approvals", "expr": "{c1.required_approvals}", "value": None},
        ]}])


class OpenIssuesByLabel(Family):
    """How many open issues of a repository carry a label, and who opened the oldest."""

    name = "code.open-issues-by-label"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view))["name"]
        issues = view.read(SERVER, "search_issues", repo=repo, per_page=100)["issues"]
        labels = sorted({label for issue in issues for label in issue["labels"]})
        if not labels:
            return None
        label = rng.choice(labels)
        user = [
            f"How many open issues labelled '{label}' does {repo} have, and who opened the oldest of them?",
            f"Open '{label}' issues in {repo}: how many, and who filed the oldest one?",
        ]
        return Draft(family=self.name, key=f"{repo}|{label}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_issues", "arguments": {"repo": repo, "label": [label], "sort_by": "created_at",
                                                                "sort_order": "asc", "per_page": 2}},
        ], "facts": [
            {"name": "open issues", "expr": "{c1.total}", "value": None},
            {"name": "oldest opened by", "expr": "{c1.issues.0.author.name}", "value": None},
        ]}], checks=["{c1.total} == 1 or {c1.issues.0.created_at} != {c1.issues.1.created_at}"])


# ---------------------------------------------------------------- writes


class OpenDraftFromBranch(Family):
    """Open a draft pull request from a branch with unmerged work and no pull request."""

    name = "code.open-draft-pull-request"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view, "write"))
        name = repo["name"]
        branches = [b for b in view.read(SERVER, "list_branches", repo=name, query="spike/", per_page=50)["branches"]
                    if not b["open_pull_requests"]]
        if not branches:
            return None
        branch = rng.choice(branches)["name"]
        title = rng.choice(PR_TITLES).format(area=branch.removeprefix("spike/").removesuffix("-experiment"))
        user = [
            f"Open a draft pull request in {name} from {branch} into the default branch, titled \"{title}\".",
            f"Please create a draft PR for {branch} in {name} (into the default branch) with the title \"{title}\".",
        ]
        return Draft(family=self.name, key=f"{name}|{branch}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "create_pull_request", "arguments": {"repo": name, "title": title, "head": branch, "draft": True}},
        ], "facts": [{"name": "pull request number", "expr": "{c1.number}", "value": None}]}])


class AskForReview(Family):
    """Ask a colleague (named by name) to review an open pull request."""

    name = "code.ask-for-review"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _pick_pr(view, rng, _repos(view, "triage"), lambda repo, pr: not pr["draft"])
        if picked is None:
            return None
        repo, pr = picked
        name, number = repo["name"], pr["number"]
        taken = {pr["author"]["id"], *(u["id"] for u in pr["requested_reviewers"])}
        people = [p for p in _collaborators(view, name) if RANK[p["permission"]] >= RANK["write"] and p["id"] not in taken]
        if not people:
            return None
        person = rng.choice(people)
        if not _unique_name(view, name, person):
            return None
        user = [
            f"Ask {person['name']} to review pull request #{number} in {name}.",
            f"Please request a review from {person['name']} on {name}#{number}.",
        ]
        return Draft(family=self.name, key=f"{name}#{number}|{person['id']}", writes=True, turns=[{"user": user, "calls": [
            _person("c1", name, person["name"]),
            {"id": "c2", "tool": "request_review", "arguments": {"repo": name, "number": number},
             "bind": {"reviewer_ids": "[{c1.collaborators.0.id}]"}},
        ], "facts": []}], checks=["{c1.total} == 1"])


class ReviewWaitingPullRequest(Family):
    """Approve, or send back with a request, a pull request waiting for your review."""

    name = "code.review-pull-request"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        waiting = view.read(SERVER, "search_pull_requests", requested_reviewer_id=ME, draft=False, per_page=50)["pull_requests"]
        waiting = [p for p in waiting if p["author"]["id"] != ME]
        if not waiting:
            return None
        pr = rng.choice(waiting)
        name, number = pr["repo"], pr["number"]
        if rng.random() < 0.5:
            user = [
                f"Approve pull request #{number} in {name}.",
                f"{name}#{number} is waiting on me: please approve it.",
            ]
            arguments: dict[str, Any] = {"repo": name, "number": number, "event": "approve"}
        else:
            ask = rng.choice(REVIEW_ASKS)
            body = f"Please add {ask} before this merges."
            user = [
                f"Request changes on pull request #{number} in {name}, saying: \"{body}\"",
                f"Send {name}#{number} back to its author with the review comment \"{body}\"",
            ]
            arguments = {"repo": name, "number": number, "event": "request_changes", "body": body}
        return Draft(family=self.name, key=f"{name}#{number}|{arguments['event']}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "submit_review", "arguments": arguments},
        ], "facts": []}])


class MergeIfReady(Family):
    """Merge a pull request by a method the repository allows if it is ready; otherwise say
    how many approvals it has."""

    name = "code.merge-if-ready"
    servers = (SERVER,)
    kind = "conditional-write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        want = rng.random() < 0.5
        picked = _pick_pr(view, rng, _repos(view, "write"), lambda repo, pr: not pr["draft"] and pr["mergeable"] == want)
        if picked is None:
            return None
        repo, pr = picked
        name, number = repo["name"], pr["number"]
        methods = view.read(SERVER, "get_repository", repo=name)["merge_methods"]
        method = rng.choice(methods)
        verb = {"merge": "merge it with a merge commit", "squash": "squash-merge it", "rebase": "rebase-merge it"}[method]
        user = [
            f"If pull request #{number} in {name} is ready to merge, {verb}. If not, tell me how many approvals it has and leave it.",
            f"Check {name}#{number}: when it can be merged, {verb}; otherwise just report its approval count.",
        ]
        calls: list[Call] = [_get_pr("c1", name, number)]
        facts = [{"name": "approvals", "expr": "{c1.approvals}", "value": None}]
        if want:
            calls.append({"id": "c2", "tool": "merge_pull_request", "arguments": {"repo": name, "number": number, "method": method}})
            facts = [{"name": "state", "expr": "{c2.state}", "value": None}]
        return Draft(family=self.name, key=f"{name}#{number}", writes=want, turns=[{"user": user, "calls": calls, "facts": facts}])


class ClosePullRequest(Family):
    """Close an open pull request without merging it."""

    name = "code.close-pull-request"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        options = [(r["name"], p) for r in _repos(view, "triage") for p in _prs(view, r["name"])]
        if not options:
            return None
        name, pr = rng.choice(options)
        number = pr["number"]
        user = [
            f"Close pull request #{number} in {name} without merging it.",
            f"We won't take {name}#{number}; close it please (don't merge).",
        ]
        return Draft(family=self.name, key=f"{name}#{number}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "update_pull_request", "arguments": {"repo": name, "number": number, "state": "closed"}},
        ], "facts": []}])


class ReadyForReview(Family):
    """Mark a draft pull request ready for review, and say what still blocks its merge."""

    name = "code.ready-for-review"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        options = [(r["name"], p) for r in _repos(view, "triage") for p in _prs(view, r["name"], draft=True)]
        if not options:
            return None
        name, pr = rng.choice(options)
        number = pr["number"]
        user = [
            f"Mark the draft pull request #{number} in {name} as ready for review, then tell me how many approvals it still needs.",
            f"{name}#{number} is done: take it out of draft, and tell me how many approvals it requires.",
        ]
        return Draft(family=self.name, key=f"{name}#{number}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "update_pull_request", "arguments": {"repo": name, "number": number, "draft": False}},
            _get_pr("c2", name, number),
        ], "facts": [{"name": "approvals required", "expr": "{c2.required_approvals}", "value": None}]}])


class ReopenPullRequest(Family):
    """Reopen a closed pull request whose branches still exist."""

    name = "code.reopen-pull-request"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view, "triage"))
        name = repo["name"]
        branches = {b["name"] for b in view.read(SERVER, "list_branches", repo=name, per_page=100)["branches"]}
        open_heads = {p["head"] for p in _prs(view, name)}
        closed = [p for p in _prs(view, name, "closed") if p["head"] in branches and p["head"] not in open_heads]
        if not closed:
            return None
        number = rng.choice(closed)["number"]
        user = [
            f"Reopen pull request #{number} in {name}.",
            f"{name}#{number} was closed by mistake; reopen it.",
        ]
        return Draft(family=self.name, key=f"{name}#{number}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "update_pull_request", "arguments": {"repo": name, "number": number, "state": "open"}},
        ], "facts": []}])


class HotfixBranch(Family):
    """Create a branch from the default branch and commit a change to it."""

    name = "code.hotfix-branch"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view, "write"))
        name = repo["name"]
        commits = view.read(SERVER, "list_commits", repo=name, per_page=20)["commits"]
        files = view.read(SERVER, "get_commit", repo=name, sha=rng.choice(commits)["sha"])["files"]
        if not files:
            return None
        path = rng.choice(files)["path"]
        area = _area(path)
        branch = f"fix/{area.lower()}-{rng.randint(100, 999)}"
        added, removed = rng.randint(1, 30), rng.randint(0, 10)
        message = f"Fix {area} edge case"
        user = [
            f"In {name}, create a branch {branch} from the default branch and commit \"{message}\" to it, changing {path}: {added} lines added and {removed} removed.",
            f"Start {branch} off {name}'s default branch, then push a commit \"{message}\" touching {path} (+{added} -{removed}).",
        ]
        return Draft(family=self.name, key=f"{name}|{branch}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "create_branch", "arguments": {"repo": name, "branch": branch}},
            {"id": "c2", "tool": "push_commit", "arguments": {"repo": name, "branch": branch, "message": message, "files": [
                {"path": path, "additions": added, "deletions": removed}]}},
        ], "facts": []}])


class DirectDocsFix(Family):
    """Commit a small fix straight to an unprotected default branch."""

    name = "code.direct-fix"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repos = [r for r in _repos(view, "write")
                 if not view.read(SERVER, "list_branches", repo=r["name"], per_page=1)["branches"][0]["protected"]]
        if not repos:
            return None
        repo = rng.choice(repos)
        name, branch = repo["name"], repo["default_branch"]
        files = view.read(SERVER, "get_commit", repo=name, sha=repo["last_commit"]["sha"])["files"]
        path = rng.choice(files)["path"]
        message = rng.choice(COMMIT_MESSAGES)
        added, removed = rng.randint(1, 6), rng.randint(1, 6)
        user = [
            f"Commit \"{message}\" straight to {branch} of {name}, changing {path} ({added} lines added, {removed} removed).",
            f"Push a commit to {name}'s {branch} with the message \"{message}\": {path}, +{added}/-{removed}.",
        ]
        return Draft(family=self.name, key=f"{name}|{path}|{message}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "push_commit", "arguments": {"repo": name, "branch": branch, "message": message, "files": [
                {"path": path, "additions": added, "deletions": removed}]}},
        ], "facts": []}])


class DeleteMergedBranch(Family):
    """Delete the branch a merged pull request left behind."""

    name = "code.delete-merged-branch"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view, "write"))
        name = repo["name"]
        branches = {b["name"]: b for b in view.read(SERVER, "list_branches", repo=name, per_page=100)["branches"]}
        merged = [p for p in _prs(view, name, "merged") if p["head"] in branches and not branches[p["head"]]["open_pull_requests"]
                  and not branches[p["head"]]["protected"]]
        if not merged:
            return None
        number = rng.choice(merged)["number"]
        user = [
            f"Pull request #{number} in {name} is merged. Delete the branch it came from.",
            f"Clean up after {name}#{number}: remove its head branch.",
        ]
        return Draft(family=self.name, key=f"{name}#{number}", writes=True, turns=[{"user": user, "calls": [
            _get_pr("c1", name, number),
            {"id": "c2", "tool": "delete_branch", "arguments": {"repo": name}, "bind": {"branch": "{c1.head}"}},
        ], "facts": [{"name": "branch deleted", "expr": "{c1.head}", "value": None}]}])


class FileIssue(Family):
    """File an issue with a label and a colleague (named by name) as assignee."""

    name = "code.file-issue"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view, "triage"))["name"]
        people = [p for p in _collaborators(view, repo) if p["id"] != ME]
        person = rng.choice(people)
        if not _unique_name(view, repo, person):
            return None
        label = rng.choice(("bug", "documentation", "enhancement", "flaky-test"))
        files = view.read(SERVER, "get_commit", repo=repo, sha=rng.choice(
            view.read(SERVER, "list_commits", repo=repo, per_page=20)["commits"])["sha"])["files"]
        if not files:
            return None
        title = rng.choice(ISSUE_TITLES).format(area=_area(rng.choice(files)["path"]))
        user = [
            f"File an issue in {repo} titled \"{title}\", labelled {label}, and assign it to {person['name']}.",
            f"Open a {label} issue \"{title}\" in {repo} for {person['name']} to pick up.",
        ]
        return Draft(family=self.name, key=f"{repo}|{title}|{person['id']}", writes=True, turns=[{"user": user, "calls": [
            _person("c1", repo, person["name"]),
            {"id": "c2", "tool": "create_issue", "arguments": {"repo": repo, "title": title, "labels": [label]},
             "bind": {"assignee_ids": "[{c1.collaborators.0.id}]"}},
        ], "facts": [{"name": "issue number", "expr": "{c2.number}", "value": None}]}], checks=["{c1.total} == 1"])


class CommentOnIssue(Family):
    """Reply on an issue named by number."""

    name = "code.comment-on-issue"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view))["name"]
        issues = view.read(SERVER, "search_issues", repo=repo, state="all", per_page=100)["issues"]
        if not issues:
            return None
        number = rng.choice(issues)["number"]
        text = rng.choice(COMMENTS)
        user = [
            f"Reply on issue #{number} in {repo}: \"{text}\"",
            f"Add the comment \"{text}\" to {repo} issue #{number}.",
        ]
        return Draft(family=self.name, key=f"{repo}#{number}|{text}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "comment_on_issue", "arguments": {"repo": repo, "number": number, "body": text}},
        ], "facts": []}])


class CutRelease(Family):
    """Publish the next minor release of a repository from its default branch."""

    name = "code.cut-release"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        options = []
        for repo in _repos(view, "write"):
            latest = view.read(SERVER, "list_releases", repo=repo["name"], per_page=1)["releases"]
            if latest and _next_minor(latest[0]["tag"]):
                options.append((repo, latest[0]["tag"]))
        if not options:
            return None
        repo, latest = rng.choice(options)
        tag = _next_minor(latest)
        notes = rng.choice(NOTES)
        name = repo["name"]
        user = [
            f"Publish release {tag} of {name} from its default branch, with the notes \"{notes}\"",
            f"Cut {name} {tag} off the default branch; release notes: \"{notes}\"",
        ]
        return Draft(family=self.name, key=f"{name}|{tag}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "create_release", "arguments": {"repo": name, "tag": tag, "notes": notes}},
        ], "facts": [{"name": "released commit", "expr": "{c1.sha}", "value": None}]}])


class GrantAccess(Family):
    """Give a colleague (named by email) a permission on a repository you administer."""

    name = "code.grant-access"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view, "admin"))["name"]
        members = {p["id"]: p["permission"] for p in _collaborators(view, repo)}
        other = rng.choice([r["name"] for r in _repos(view) if r["name"] != repo])
        person = rng.choice(_collaborators(view, other))
        wanted = rng.choice(("read", "triage", "write"))
        if members.get(person["id"]) in (wanted, "admin"):
            return None
        user = [
            f"Give {person['email']} {wanted} access to the {repo} repository.",
            f"Set {person['email']}'s permission on {repo} to {wanted}.",
        ]
        return Draft(family=self.name, key=f"{repo}|{person['id']}|{wanted}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_user_by_email", "arguments": {"email": person["email"]}},
            {"id": "c2", "tool": "set_collaborator_permission", "arguments": {"repo": repo, "permission": wanted},
             "bind": {"user_id": "{c1.id}"}},
        ], "facts": []}])


# ---------------------------------------------------------------- refusals


class MergeBlocked(Family):
    """Asked to merge a pull request that is not ready: refuse, and say what it lacks."""

    name = "code.merge-blocked"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _pick_pr(view, rng, _repos(view, "write"), lambda repo, pr: not pr["draft"] and not pr["mergeable"])
        if picked is None:
            return None
        repo, pr = picked
        name, number = repo["name"], pr["number"]
        if pr["failing_checks"]:
            ask, facts = "which checks are failing", [{"name": "failing checks", "expr": "{c1.failing_checks}", "value": None}]
        elif pr["changes_requested_by"]:
            ask, facts = "who asked for changes", [{"name": "changes requested by", "expr": "[" + ", ".join(
                f"{{c1.changes_requested_by.{i}.name}}" for i in range(len(pr["changes_requested_by"]))) + "]", "value": None}]
        elif pr["approvals"] < pr["required_approvals"]:
            ask, facts = "how many approvals it has and needs", [
                {"name": "approvals", "expr": "{c1.approvals}", "value": None},
                {"name": "required", "expr": "{c1.required_approvals}", "value": None}]
        elif pr["pending_checks"]:
            ask, facts = "which checks are still running", [{"name": "pending checks", "expr": "{c1.pending_checks}", "value": None}]
        else:
            return None
        user = [
            f"Merge pull request #{number} in {name}. If it can't be merged yet, tell me {ask}.",
            f"Please merge {name}#{number}; if that's not allowed right now, let me know {ask}.",
        ]
        return Draft(family=self.name, key=f"{name}#{number}", turns=[{"user": user, "calls": [_get_pr("c1", name, number)],
                                                                      "facts": facts}])


class PushToProtected(Family):
    """Asked to commit straight to a protected default branch: refuse, and say what a pull
    request there needs instead."""

    name = "code.push-to-protected"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repos = [r for r in _repos(view, "write")
                 if view.read(SERVER, "list_branches", repo=r["name"], per_page=1)["branches"][0]["protected"]]
        repo = rng.choice(repos)
        name, branch = repo["name"], repo["default_branch"]
        files = view.read(SERVER, "get_commit", repo=name, sha=repo["last_commit"]["sha"])["files"]
        path = rng.choice(files)["path"]
        user = [
            f"Commit a one-line fix to {path} directly on {branch} of {name}, message \"Hotfix {_area(path)}\". If that's not allowed, tell me how many approvals a pull request there needs.",
            f"Push \"Hotfix {_area(path)}\" (one line changed in {path}) straight to {name}'s {branch}. If you can't, how many approvals would a PR need?",
        ]
        return Draft(family=self.name, key=f"{name}|{path}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_repository", "arguments": {"repo": name}},
        ], "facts": [{"name": "required approvals", "expr": "{c1.required_approvals}", "value": None}]}])


class ApproveOwnPullRequest(Family):
    """Asked to approve your own pull request: refuse, and say who has been asked to review it
    or how many approvals it has."""

    name = "code.approve-own-pull-request"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        mine = view.read(SERVER, "search_pull_requests", author_id=ME, draft=False, per_page=50)["pull_requests"]
        if not mine:
            return None
        pr = rng.choice(mine)
        name, number = pr["repo"], pr["number"]
        user = [
            f"Approve pull request #{number} in {name}. If I'm not allowed to, tell me how many approvals it has and needs.",
            f"Add my approval to {name}#{number}; if that isn't possible, give me its approval count and the number required.",
        ]
        return Draft(family=self.name, key=f"{name}#{number}", turns=[{"user": user, "calls": [_get_pr("c1", name, number)], "facts": [
            {"name": "approvals", "expr": "{c1.approvals}", "value": None},
            {"name": "required", "expr": "{c1.required_approvals}", "value": None},
        ]}])


class GrantWithoutAdmin(Family):
    """Asked to change access on a repository you do not administer: refuse, and name its admins."""

    name = "code.grant-without-admin"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repos = [r for r in _repos(view) if r["my_permission"] != "admin"]
        repo = rng.choice(repos)["name"]
        person = rng.choice([p for p in _collaborators(view, repo) if p["permission"] != "admin"])
        admins = _collaborators(view, repo, permission=["admin"])
        names = ", ".join(f"{{c1.collaborators.{i}.name}}" for i in range(len(admins)))
        user = [
            f"Make {person['name']} an admin of {repo}. If you can't, tell me who can.",
            f"Give {person['name']} admin rights on {repo}; if that's not permitted, name the repository's admins.",
        ]
        return Draft(family=self.name, key=f"{repo}|{person['id']}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_collaborators", "arguments": {"repo": repo, "permission": ["admin"]}},
        ], "facts": [{"name": "admins", "expr": f"[{names}]", "value": None}]}], checks=[f"{{c1.total}} == {len(admins)}"])


class CloseMergedPullRequest(Family):
    """Asked to close a merged pull request: refuse, and say when and by whom it was merged."""

    name = "code.close-merged-pull-request"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view, "triage"))["name"]
        merged = view.read(SERVER, "search_pull_requests", repo=repo, state="merged", per_page=30)["pull_requests"]
        if not merged:
            return None
        number = rng.choice(merged)["number"]
        user = [
            f"Close pull request #{number} in {repo}. If that isn't possible, tell me when it was merged and by whom.",
            f"Please close {repo}#{number}; if you can't, who merged it and when?",
        ]
        return Draft(family=self.name, key=f"{repo}#{number}", turns=[{"user": user, "calls": [_get_pr("c1", repo, number)], "facts": [
            {"name": "merged at", "expr": "{c1.merged_at}", "value": None},
            {"name": "merged by", "expr": "{c1.merged_by.name}", "value": None},
        ]}])


class DeleteProtectedBranch(Family):
    """Asked to delete a protected branch: refuse, and say which commit it points at."""

    name = "code.delete-protected-branch"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        options = [(r["name"], b) for r in _repos(view, "write")
                   for b in view.read(SERVER, "list_branches", repo=r["name"], protected=True)["branches"]]
        if not options:
            return None
        repo, branch = rng.choice(options)
        name = branch["name"]
        if view.read(SERVER, "list_branches", repo=repo, query=name)["total"] != 1:
            return None
        user = [
            f"Delete the {name} branch of {repo}. If that's not allowed, tell me the message of the commit it points at.",
            f"Remove {repo}'s {name} branch; if you can't, what's the latest commit message on it?",
        ]
        return Draft(family=self.name, key=f"{repo}|{name}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_branches", "arguments": {"repo": repo, "query": name}},
        ], "facts": [{"name": "head commit", "expr": "{c1.branches.0.head.message}", "value": None}]}], checks=["{c1.total} == 1"])


# ---------------------------------------------------------------- two turns


class IssueFixThenApprove(Family):
    """Two turns: the open pull request resolving a tracker issue (author, mergeable), then
    approve it."""

    name = "code.issue-fix-then-approve"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        candidates = [p for p in view.read(SERVER, "search_pull_requests", draft=False, per_page=100)["pull_requests"]
                      if p["issue_key"] and p["author"]["id"] != ME]
        if not candidates:
            return None
        pr = rng.choice(candidates)
        key = pr["issue_key"]
        if view.read(SERVER, "search_pull_requests", issue_key=key, per_page=2)["total"] != 1:
            return None
        first = [
            f"Is there an open pull request for {key}? Who opened it, and can it be merged yet?",
            f"Find the open PR that resolves {key}: its author, and whether it's mergeable now.",
        ]
        second = [
            "Approve it.",
            "Looks fine to me; add my approval to that pull request.",
        ]
        return Draft(family=self.name, key=f"issue:{key}", writes=True, turns=[
            {"user": first, "calls": [
                {"id": "c1", "tool": "search_pull_requests", "arguments": {"issue_key": key}},
                {"id": "c2", "tool": "get_pull_request", "bind": {"repo": "{c1.pull_requests.0.repo}",
                                                                  "number": "{c1.pull_requests.0.number}"}},
            ], "facts": [
                {"name": "repository", "expr": "{c1.pull_requests.0.repo}", "value": None},
                {"name": "number", "expr": "{c1.pull_requests.0.number}", "value": None},
                {"name": "author", "expr": "{c2.author.name}", "value": None},
                {"name": "mergeable", "expr": "{c2.mergeable}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c3", "tool": "submit_review", "arguments": {"event": "approve"},
                 "bind": {"repo": "{c1.pull_requests.0.repo}", "number": "{c1.pull_requests.0.number}"}},
            ], "facts": []},
        ], checks=["{c1.total} == 1"])


class BusiestIssueThenClose(Family):
    """Two turns: the open issue of a repository with the most comments, then close it."""

    name = "code.busiest-issue-then-close"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view, "triage"))["name"]
        if not view.read(SERVER, "search_issues", repo=repo, per_page=1)["total"]:
            return None
        reason = rng.choice(("completed", "not_planned"))
        words = "as done" if reason == "completed" else "as not planned"
        text = rng.choice(COMMENTS)
        first = [
            f"Which open issue in {repo} has the most comments, and who opened it?",
            f"In {repo}, find the open issue with the longest discussion: its number and its author.",
        ]
        second = [
            f"Close that issue {words}, with the comment \"{text}\"",
            f"Please close it {words} and leave the comment \"{text}\"",
        ]
        return Draft(family=self.name, key=f"{repo}|{reason}", writes=True, turns=[
            {"user": first, "calls": [
                {"id": "c1", "tool": "search_issues", "arguments": {"repo": repo, "sort_by": "comments", "sort_order": "desc",
                                                                    "per_page": 2}},
            ], "facts": [
                {"name": "issue", "expr": "{c1.issues.0.number}", "value": None},
                {"name": "opened by", "expr": "{c1.issues.0.author.name}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c2", "tool": "close_issue", "arguments": {"repo": repo, "reason": reason, "comment": text},
                 "bind": {"number": "{c1.issues.0.number}"}},
            ], "facts": []},
        ], checks=["{c1.total} == 1 or {c1.issues.0.comments} != {c1.issues.1.comments}"])


class BranchThenPullRequest(Family):
    """Two turns: how far a branch is ahead of the default branch, then a draft pull request from it."""

    name = "code.branch-then-pull-request"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view, "write"))
        name, base = repo["name"], repo["default_branch"]
        branches = [b for b in view.read(SERVER, "list_branches", repo=name, query="spike/", per_page=50)["branches"]
                    if not b["open_pull_requests"]]
        if not branches:
            return None
        branch = rng.choice(branches)["name"]
        title = rng.choice(PR_TITLES).format(area=branch.removeprefix("spike/").removesuffix("-experiment"))
        first = [
            f"How many commits is {branch} ahead of {base} in {name}, and how many lines does it add?",
            f"Compare {branch} with {base} in {name}: commits ahead and lines added?",
        ]
        second = [
            f"Open a draft pull request from it into {base}, titled \"{title}\".",
            f"Good. Put it up as a draft PR into {base} with the title \"{title}\".",
        ]
        return Draft(family=self.name, key=f"{name}|{branch}", writes=True, turns=[
            {"user": first, "calls": [
                {"id": "c1", "tool": "compare_branches", "arguments": {"repo": name, "base": base, "head": branch}},
            ], "facts": [
                {"name": "commits ahead", "expr": "{c1.ahead_by}", "value": None},
                {"name": "lines added", "expr": "{c1.additions}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c2", "tool": "create_pull_request", "arguments": {"repo": name, "title": title, "head": branch,
                                                                          "base": base, "draft": True}},
            ], "facts": []},
        ])


class StatusThenMerge(Family):
    """Two turns: whether a pull request can merge and its approvals, then merge it."""

    name = "code.status-then-merge"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _pick_pr(view, rng, _repos(view, "write"), lambda repo, pr: pr["mergeable"])
        if picked is None:
            return None
        repo, pr = picked
        name, number = repo["name"], pr["number"]
        method = rng.choice(view.read(SERVER, "get_repository", repo=name)["merge_methods"])
        first = [
            f"Where does pull request #{number} in {name} stand: how many approvals does it have, and can it be merged?",
            f"Give me the state of {name}#{number}: approvals and whether anything blocks the merge.",
        ]
        second = [
            f"Then merge it ({method}).",
            f"Go ahead and merge it using {method}.",
        ]
        return Draft(family=self.name, key=f"{name}#{number}|{method}", writes=True, turns=[
            {"user": first, "calls": [_get_pr("c1", name, number)], "facts": [
                {"name": "approvals", "expr": "{c1.approvals}", "value": None},
                {"name": "mergeable", "expr": "{c1.mergeable}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c2", "tool": "merge_pull_request", "arguments": {"repo": name, "number": number, "method": method}},
            ], "facts": [{"name": "merge commit", "expr": "{c2.merge_commit_sha}", "value": None}]},
        ])


class ReleaseThenCut(Family):
    """Two turns: the latest release and the commits since, then publish the next version."""

    name = "code.release-then-cut"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        options = []
        for repo in _repos(view, "write"):
            latest = view.read(SERVER, "list_releases", repo=repo["name"], per_page=1)["releases"]
            if latest and _next_minor(latest[0]["tag"]):
                options.append((repo, latest[0]["tag"]))
        if not options:
            return None
        repo, latest = rng.choice(options)
        name, branch, tag, notes = repo["name"], repo["default_branch"], _next_minor(latest), rng.choice(NOTES)
        first = [
            f"When was {name} last released, under which tag, and how many commits has {branch} gained since?",
            f"What's {name}'s latest release (tag and date), and how many commits on {branch} came after it?",
        ]
        second = [
            f"Publish {tag} from {branch} with the notes \"{notes}\"",
            f"Cut {tag} off {branch} now; notes: \"{notes}\"",
        ]
        return Draft(family=self.name, key=f"{name}|{tag}", writes=True, turns=[
            {"user": first, "calls": [
                {"id": "c1", "tool": "list_releases", "arguments": {"repo": name, "per_page": 1}},
                {"id": "c2", "tool": "compare_branches", "arguments": {"repo": name, "head": branch},
                 "bind": {"base": "{c1.releases.0.tag}"}},
            ], "facts": [
                {"name": "tag", "expr": "{c1.releases.0.tag}", "value": None},
                {"name": "released", "expr": "{c1.releases.0.created_at}", "value": None},
                {"name": "commits since", "expr": "{c2.ahead_by}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c3", "tool": "create_release", "arguments": {"repo": name, "tag": tag, "target": branch, "notes": notes}},
            ], "facts": []},
        ])


class LastChangeThenIssue(Family):
    """Two turns: who last changed a file, then file an issue about it assigned to them."""

    name = "code.last-change-then-issue"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view, "triage"))["name"]
        commits = view.read(SERVER, "list_commits", repo=repo, per_page=30)["commits"]
        files = view.read(SERVER, "get_commit", repo=repo, sha=rng.choice(commits)["sha"])["files"]
        if not files:
            return None
        path = rng.choice(files)["path"]
        last = view.read(SERVER, "list_commits", repo=repo, path=path, per_page=1)["commits"][0]["author"]
        if last["id"] not in {p["id"] for p in _collaborators(view, repo)}:
            return None
        title = f"Review recent changes to {path}"
        first = [
            f"Who last changed {path} in {repo}, and when?",
            f"In {repo}, which person made the latest commit touching {path}, and at what time?",
        ]
        second = [
            f"File an issue \"{title}\" in {repo}, labelled question, and assign it to them.",
            f"Open a question issue titled \"{title}\" in {repo} and assign that person.",
        ]
        return Draft(family=self.name, key=f"{repo}|{path}", writes=True, turns=[
            {"user": first, "calls": [
                {"id": "c1", "tool": "list_commits", "arguments": {"repo": repo, "path": path, "per_page": 2}},
            ], "facts": [
                {"name": "author", "expr": "{c1.commits.0.author.name}", "value": None},
                {"name": "time", "expr": "{c1.commits.0.committed_at}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c2", "tool": "create_issue", "arguments": {"repo": repo, "title": title, "labels": ["question"]},
                 "bind": {"assignee_ids": "[{c1.commits.0.author.id}]"}},
            ], "facts": []},
        ], checks=["{c1.total} == 1 or {c1.commits.0.committed_at} != {c1.commits.1.committed_at}"])


# ---------------------------------------------------------------- with the issue tracker


class IssueAndItsFix(Family):
    """A tracker issue's status and assignee, and the pull request that resolves it: is it merged?"""

    name = "cross.code-issue-fix"
    servers = (SERVER, "projects")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice([r for r in _repos(view) if view.read(SERVER, "get_repository", repo=r["name"])["project_key"]])
        prs = [p for p in view.read(SERVER, "search_pull_requests", repo=repo["name"], state="all", per_page=100,
                                    page=rng.randint(1, 2))["pull_requests"] if p["issue_key"]]
        if not prs:
            return None
        key = rng.choice(prs)["issue_key"]
        if view.lookup("projects", "get_issue", issue_key=key) is None:
            return None
        user = [
            f"What's the status of {key} in the tracker and who is it assigned to? Which pull request resolves it, and has it been merged?",
            f"For issue {key}: tracker status and assignee, plus the number and state of the PR that fixes it.",
        ]
        return Draft(family=self.name, key=f"issue:{key}", turns=[{"user": user, "calls": [
            {"id": "c1", "server": "projects", "tool": "get_issue", "arguments": {"issue_key": key}},
            {"id": "c2", "server": SERVER, "tool": "search_pull_requests", "arguments": {"issue_key": key, "state": "all"}},
        ], "facts": [
            {"name": "tracker status", "expr": "{c1.status}", "value": None},
            {"name": "assignee", "expr": "{c1.assignee.name}", "value": None},
            {"name": "pull request", "expr": "{c2.pull_requests.0.number}", "value": None},
            {"name": "pull request state", "expr": "{c2.pull_requests.0.state}", "value": None},
        ]}], checks=["{c2.total} == 1"])


class AuthorTrackerWorkload(Family):
    """Who opened a pull request, and how many unresolved tracker issues they have (found by email)."""

    name = "cross.code-author-workload"
    servers = (SERVER, "projects")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        repo = rng.choice(_repos(view))["name"]
        prs = _prs(view, repo)
        if not prs:
            return None
        pr = rng.choice(prs)
        if view.lookup("projects", "get_user_by_email", email=pr["author"]["email"]) is None:
            return None
        number = pr["number"]
        user = [
            f"Who opened pull request #{number} in {repo}, and how many unresolved issues are assigned to them in the tracker?",
            f"{repo}#{number}: who's the author, and what's their open issue count in the tracker?",
        ]
        return Draft(family=self.name, key=f"{repo}#{number}", turns=[{"user": user, "calls": [
            {"id": "c1", "server": SERVER, "tool": "get_pull_request", "arguments": {"repo": repo, "number": number}},
            {"id": "c2", "server": "projects", "tool": "get_user_by_email", "bind": {"email": "{c1.author.email}"}},
        ], "facts": [
            {"name": "author", "expr": "{c1.author.name}", "value": None},
            {"name": "open tracker issues", "expr": "{c2.open_issues}", "value": None},
        ]}])


class ReviewTheAssigneesFix(Family):
    """Ask a tracker issue's assignee to review the open pull request that fixes it, unless
    they wrote it (then say so)."""

    name = "cross.code-assignee-review"
    servers = (SERVER, "projects")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        options = [p for r in _repos(view, "triage") for p in _prs(view, r["name"], draft=False) if p["issue_key"]]
        if not options:
            return None
        pr = rng.choice(options)
        issue = view.lookup("projects", "get_issue", issue_key=pr["issue_key"])
        if issue is None or issue["assignee"] is None:
            return None
        key, repo = pr["issue_key"], pr["repo"]
        if view.read(SERVER, "search_pull_requests", issue_key=key, per_page=2)["total"] != 1:
            return None
        assignee = issue["assignee"]
        reviewers = {p["id"]: p for p in _collaborators(view, repo)}
        person = reviewers.get(assignee["id"])
        if person is None or RANK[person["permission"]] < RANK["write"]:
            return None
        user = [
            f"Ask whoever is assigned {key} in the tracker to review the open pull request that fixes it. If they opened it themselves, just tell me that.",
            f"The PR resolving {key}: request a review from the issue's tracker assignee, unless that person is the PR's author (then let me know).",
        ]
        calls: list[Call] = [
            {"id": "c1", "server": "projects", "tool": "get_issue", "arguments": {"issue_key": key}},
            {"id": "c2", "server": SERVER, "tool": "search_pull_requests", "arguments": {"issue_key": key}},
        ]
        facts = [{"name": "assignee", "expr": "{c1.assignee.name}", "value": None}]
        writes = pr["author"]["id"] != assignee["id"]
        if assignee["id"] in [u["id"] for u in _pr(view, repo, pr["number"])["requested_reviewers"]]:
            return None
        if writes:
            calls += [
                {"id": "c3", "server": SERVER, "tool": "get_user_by_email", "bind": {"email": "{c1.assignee.email}"}},
                {"id": "c4", "server": SERVER, "tool": "request_review", "bind": {
                    "repo": "{c2.pull_requests.0.repo}", "number": "{c2.pull_requests.0.number}", "reviewer_ids": "[{c3.id}]"}},
            ]
        else:
            facts.append({"name": "author", "expr": "{c2.pull_requests.0.author.name}", "value": None})
        return Draft(family=self.name, key=f"issue:{key}", writes=writes, turns=[{"user": user, "calls": calls, "facts": facts}],
                     checks=["{c2.total} == 1"])


CODE_FAMILIES: tuple[Family, ...] = (
    MergeRules(), LanguageWorkload(), RepoAdmins(), ReviewQueue(), BranchHead(), FileLastChange(), MonthlyCommits(),
    CommitChanges(), UnreleasedWork(), TopContributor(), MergedByPerson(), MyReviewQueue(), PullRequestStatus(),
    OpenIssuesByLabel(),
    OpenDraftFromBranch(), AskForReview(), ReviewWaitingPullRequest(), MergeIfReady(), ClosePullRequest(), ReadyForReview(),
    ReopenPullRequest(), HotfixBranch(), DirectDocsFix(), DeleteMergedBranch(), FileIssue(), CommentOnIssue(), CutRelease(),
    GrantAccess(),
    MergeBlocked(), PushToProtected(), ApproveOwnPullRequest(), GrantWithoutAdmin(), CloseMergedPullRequest(),
    DeleteProtectedBranch(),
    IssueFixThenApprove(), BusiestIssueThenClose(), BranchThenPullRequest(), StatusThenMerge(), ReleaseThenCut(),
    LastChangeThenIssue(),
    IssueAndItsFix(), AuthorTrackerWorkload(), ReviewTheAssigneesFix(),
)
"""Every code family, those with the issue tracker (`cross.code-*`) last."""
