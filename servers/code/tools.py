"""The code-host tools: browse repositories, branches and history, review and merge pull
requests, work issues, cut releases and manage access, as an engineering lead does on GitHub."""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field

from mcpgym.servers.code.models import (
    ACTING_USER_ID,
    PERMISSIONS,
    CheckRun,
    Commit,
    Issue,
    PullRequest,
    Release,
    Repository,
    Review,
    User,
)
from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import Body, DateTimeArg, Page, PerPage, Timestamp, format_timestamp
from mcpgym.servers.kernel.lookup import row_or_raise
from mcpgym.servers.kernel.query import search_words
from mcpgym.servers.kernel.sql import Row, bind, contains_pattern, prefix_pattern
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry

tools = ToolRegistry()

ME = ACTING_USER_ID
RANK = {permission: rank for rank, permission in enumerate(PERMISSIONS)}
MAX_COMPARE_COMMITS = 100
"""Most commits a comparison lists (oldest first); it counts them all."""
MAX_COMPARE_FILES = 300
"""Most files a comparison lists (by path); it counts them all."""

# ---------------------------------------------------------------- argument types


def _branch_name(value: str) -> str:
    """A new branch's name, by git's rules for ref names (a practical subset)."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._/-]*", value):
        raise ValueError("a branch name should start with a letter or digit and hold only letters, digits, '.', '_', '-' "
                         "and '/'")
    if ".." in value or "//" in value or value.endswith(("/", ".", ".lock")) or "/." in value:
        raise ValueError("a branch name should have no '..', '//' or '/.' and should not end with '/', '.' or '.lock'")
    return value


def _file_path(value: str) -> str:
    """A repository-relative file path: no leading or trailing '/', no empty, '.' or '..' part."""
    parts = value.split("/")
    if any(part in ("", ".", "..") for part in parts) or re.search(r"[\x00-\x1f\\]", value):
        raise ValueError("a file path should be relative to the repository root, like src/app.ts: parts separated by "
                         "'/', none empty, '.' or '..', and no backslashes or control characters")
    return value


RepoName = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9._-]+$",
                                description="The repository's name (web-app); list_repositories lists them.")]
BranchName = Annotated[str, Field(min_length=1, max_length=100, description="A branch name (main, fix/WEB-42-login).")]
NewBranchName = Annotated[str, Field(min_length=1, max_length=100, description="The new branch's name (feature/WEB-42-export)."),
                          AfterValidator(_branch_name)]
Ref = Annotated[str, Field(min_length=1, max_length=100,
                           description="A branch name, a release tag (v2.3.0) or a commit sha (7 to 40 hex digits).")]
Sha = Annotated[str, Field(min_length=7, max_length=40, pattern=r"^[0-9a-fA-F]+$",
                           description="A commit sha, whole or its first 7+ hex digits.")]
Number = Annotated[int, Field(ge=1, description="The pull request's number in its repository (#123 is 123).")]
IssueNumber = Annotated[int, Field(ge=1, description="The issue's number in its repository (#45 is 45).")]
IssueKey = Annotated[str, Field(min_length=3, max_length=20, pattern=r"^[A-Za-z][A-Za-z0-9]{1,9}-[0-9]{1,9}$",
                                description="An issue-tracker key: project key, dash, number (WEB-42).")]
LabelName = Annotated[str, Field(min_length=1, max_length=50)]
Title = Annotated[str, Field(min_length=1, max_length=256)]
FilePath = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(_file_path)]
Permission = Literal["read", "triage", "write", "maintain", "admin"]
PrState = Literal["open", "closed", "merged", "all"]

REPO_HINT = "Use list_repositories to see the repositories."
PR_HINT = "Use search_pull_requests to find pull requests by repository, author, issue key or words."
ISSUE_HINT = "Use search_issues to find issues by repository, label, assignee or words."
USER_HINT = "Use list_collaborators (by name) or get_user_by_email to find users."
BRANCH_HINT = "Use list_branches to see a repository's branches."


class FileChangeIn(BaseModel):
    """One file a pushed commit changes."""

    path: FilePath = Field(description="Path from the repository root (src/app.ts).")
    additions: int = Field(ge=0, le=100_000, description="Lines added.")
    deletions: int = Field(ge=0, le=100_000, description="Lines removed.")


# ---------------------------------------------------------------- result models


class UserBrief(BaseModel):
    id: int
    login: str
    name: str
    email: str


class RepoPermission(BaseModel):
    repo: str
    permission: str


class UserOut(UserBrief):
    title: str
    timezone: str
    organization_name: str
    created_at: Timestamp
    repositories: list[RepoPermission] = Field(description="Repositories the user collaborates on, with their permission.")
    open_pull_requests: int = Field(description="Open pull requests the user authored.")
    review_requests: int = Field(description="Open pull requests waiting for the user's review.")


class CommitBrief(BaseModel):
    sha: str
    message: str
    author: UserBrief
    committed_at: Timestamp


class CommitSummary(CommitBrief):
    parents: list[str] = Field(description="Parent shas: one, or two for a merge commit (the base first).")
    additions: int
    deletions: int
    changed_files: int


class FileChangeOut(BaseModel):
    path: str
    additions: int
    deletions: int


class CheckOut(BaseModel):
    name: str
    status: str = Field(description="success, failure or pending.")
    started_at: Timestamp
    completed_at: Timestamp | None


class CommitDetail(CommitSummary):
    files: list[FileChangeOut]
    checks: list[CheckOut]
    pull_requests: list[int] = Field(description="Numbers of the pull requests the commit was pushed to or merged as.")


class CommitPage(BaseModel):
    repo: str
    ref: str
    commits: list[CommitSummary]
    total: int = Field(description="Commits matching the filters, over all pages.")
    page: int
    next_page: int | None


class ReleaseBrief(BaseModel):
    tag: str
    name: str
    created_at: Timestamp


class ReleaseOut(ReleaseBrief):
    repo: str
    notes: str
    sha: str = Field(description="The commit the release was cut from.")
    author: UserBrief
    prerelease: bool


class ReleasePage(BaseModel):
    releases: list[ReleaseOut]
    total: int
    page: int
    next_page: int | None


class RepositorySummary(BaseModel):
    id: int
    name: str
    description: str
    visibility: str = Field(description="public, internal or private.")
    language: str
    topics: list[str]
    default_branch: str
    my_permission: str | None = Field(description="Your permission on the repository (read, triage, write, maintain, admin).")
    open_pull_requests: int
    open_issues: int
    last_commit: CommitBrief = Field(description="The head of the default branch.")
    created_at: Timestamp


class RepositoryList(BaseModel):
    viewer: UserBrief = Field(description="You: the user every write acts as.")
    repositories: list[RepositorySummary]
    total: int
    page: int
    next_page: int | None


class LabelOut(BaseModel):
    name: str
    description: str


class RepositoryDetail(RepositorySummary):
    project_key: str | None = Field(description="The issue-tracker project whose issues this repository's work resolves.")
    required_approvals: int = Field(description="Approvals a pull request needs, from reviewers other than its author.")
    merge_methods: list[str] = Field(description="The merge methods allowed here (merge, squash, rebase).")
    required_checks: list[str] = Field(description="Checks that must succeed on a pull request's head before it merges.")
    protected_branches: list[str]
    labels: list[LabelOut]
    branch_count: int
    collaborator_count: int
    default_branch_commits: int = Field(description="Commits in the default branch's history.")
    latest_release: ReleaseBrief | None


class BranchOut(BaseModel):
    name: str
    protected: bool
    default: bool
    head: CommitBrief
    open_pull_requests: list[int] = Field(description="Open pull requests whose head is this branch.")


class BranchPage(BaseModel):
    repo: str
    branches: list[BranchOut]
    total: int
    page: int
    next_page: int | None


class Comparison(BaseModel):
    repo: str
    base: str
    head: str
    base_sha: str
    head_sha: str
    merge_base_sha: str | None = Field(description="The newest commit both histories share.")
    status: str = Field(description="identical, ahead (head has commits base lacks), behind, or diverged.")
    ahead_by: int = Field(description="Commits in head's history and not in base's.")
    behind_by: int = Field(description="Commits in base's history and not in head's.")
    commits: list[CommitSummary] = Field(description=f"The ahead commits, oldest first (at most {MAX_COMPARE_COMMITS}).")
    files: list[FileChangeOut] = Field(description=f"Files the ahead commits change, by path (at most {MAX_COMPARE_FILES}; "
                                                   "merge commits left out).")
    changed_files: int
    additions: int
    deletions: int


class PullRequestSummary(BaseModel):
    repo: str
    number: int
    title: str
    state: str = Field(description="open, closed or merged.")
    draft: bool
    author: UserBrief
    head: str = Field(description="The branch with the changes.")
    base: str = Field(description="The branch it merges into.")
    issue_key: str | None = Field(description="The issue-tracker issue it resolves (WEB-42).")
    labels: list[str]
    created_at: Timestamp
    updated_at: Timestamp
    merged_at: Timestamp | None
    closed_at: Timestamp | None = Field(description="When it was closed or merged.")


class PullRequestPage(BaseModel):
    pull_requests: list[PullRequestSummary]
    total: int = Field(description="Pull requests matching the filters, over all pages.")
    page: int
    next_page: int | None


class ReviewOut(BaseModel):
    id: int
    reviewer: UserBrief
    state: str = Field(description="approved, changes_requested or commented.")
    body: str
    submitted_at: Timestamp


class PullRequestDetail(PullRequestSummary):
    body: str
    head_sha: str
    merge_commit_sha: str | None
    merge_method: str | None
    merged_by: UserBrief | None
    commits: int
    additions: int
    deletions: int
    changed_files: int
    reviews: list[ReviewOut] = Field(description="Every review, oldest first.")
    requested_reviewers: list[UserBrief] = Field(description="Reviews asked for and not yet given.")
    checks: list[CheckOut] = Field(description="Check runs on the head commit, by name.")
    failing_checks: list[str]
    pending_checks: list[str]
    approvals: int = Field(description="Reviewers other than the author whose latest verdict is an approval.")
    required_approvals: int
    changes_requested_by: list[UserBrief] = Field(description="Reviewers whose latest verdict requests changes.")
    mergeable: bool = Field(description="Whether it can be merged now.")
    blockers: list[str] = Field(description="Why it cannot be merged now (empty when mergeable).")


class ReviewRequestsOut(BaseModel):
    repo: str
    number: int
    requested_reviewers: list[UserBrief]


class SubmittedReview(ReviewOut):
    repo: str
    number: int
    approvals: int = Field(description="The pull request's approvals after this review.")
    required_approvals: int


class MergeResult(BaseModel):
    repo: str
    number: int
    state: str
    merge_method: str
    merge_commit_sha: str = Field(description="The base branch's new head.")
    base: str
    merged_by: UserBrief
    merged_at: Timestamp
    commits_added: int = Field(description="Commits the merge added to the base branch.")


class IssueSummary(BaseModel):
    repo: str
    number: int
    title: str
    state: str = Field(description="open or closed.")
    state_reason: str | None = Field(description="completed or not_planned, for a closed issue.")
    author: UserBrief
    assignees: list[UserBrief]
    labels: list[str]
    comments: int
    created_at: Timestamp
    updated_at: Timestamp
    closed_at: Timestamp | None


class IssuePage(BaseModel):
    issues: list[IssueSummary]
    total: int = Field(description="Issues matching the filters, over all pages.")
    page: int
    next_page: int | None


class IssueCommentOut(BaseModel):
    id: int
    repo: str
    number: int
    author: UserBrief
    body: str
    created_at: Timestamp


class CollaboratorOut(UserBrief):
    permission: str = Field(description="read, triage, write, maintain or admin.")


class CollaboratorPage(BaseModel):
    repo: str
    collaborators: list[CollaboratorOut]
    total: int
    page: int
    next_page: int | None


class PermissionChange(BaseModel):
    repo: str
    user: UserBrief
    previous_permission: str | None = Field(description="Null when the user was not a collaborator before.")
    permission: str


class ContributorOut(BaseModel):
    author: UserBrief
    commits: int
    additions: int
    deletions: int
    first_commit_at: Timestamp
    last_commit_at: Timestamp


class ContributorStats(BaseModel):
    repo: str
    ref: str
    total_commits: int = Field(description="Commits counted (merge commits left out).")
    contributors: list[ContributorOut] = Field(description="Most commits first, then most lines added.")


class DeletedBranch(BaseModel):
    repo: str
    branch: str
    head: CommitBrief = Field(description="The commit the branch pointed at (create_branch from its sha brings the branch back).")


# ---------------------------------------------------------------- helpers


def _user_columns(alias: str, prefix: str) -> str:
    return (f"{alias}.id AS {prefix}_id, {alias}.login AS {prefix}_login, {alias}.name AS {prefix}_name, "
            f"{alias}.email AS {prefix}_email")


def _brief(row: Row, prefix: str) -> UserBrief | None:
    if row[f"{prefix}_id"] is None:
        return None
    return UserBrief(id=row[f"{prefix}_id"], login=row[f"{prefix}_login"], name=row[f"{prefix}_name"],
                     email=row[f"{prefix}_email"])


def _author(row: Row, prefix: str = "author") -> UserBrief:
    brief = _brief(row, prefix)
    assert brief is not None
    return brief


def _reach(name: str) -> str:
    """A recursive CTE `name(id)`: the commit given as its parameter and all its ancestors."""
    return (f"{name}(id) AS (SELECT ? UNION SELECT commit_parents.parent_id FROM commit_parents "
            f"JOIN {name} ON commit_parents.commit_id = {name}.id)")


COMMIT_COLUMNS = ("commits.id, commits.sha, commits.message, commits.committed_at, commits.additions, commits.deletions, "
                  + _user_columns("author", "author") + ", "
                  "(SELECT parent.sha FROM commit_parents JOIN commits AS parent ON parent.id = commit_parents.parent_id "
                  "WHERE commit_parents.commit_id = commits.id AND commit_parents.position = 0) AS parent_sha, "
                  "(SELECT parent.sha FROM commit_parents JOIN commits AS parent ON parent.id = commit_parents.parent_id "
                  "WHERE commit_parents.commit_id = commits.id AND commit_parents.position = 1) AS merged_sha, "
                  "(SELECT count(*) FROM commit_files WHERE commit_files.commit_id = commits.id) AS changed_files")
"""A commit summary's columns; the statement joins `users AS author`."""

NOT_MERGE = "NOT EXISTS (SELECT 1 FROM commit_parents WHERE commit_id = commits.id AND position = 1)"
"""Commits that are not merge commits."""


def _commit_summary(row: Row) -> CommitSummary:
    parents = [sha for sha in (row["parent_sha"], row["merged_sha"]) if sha is not None]
    return CommitSummary(**row, author=_author(row), parents=parents)


def _commit_brief(row: Row, prefix: str = "head") -> CommitBrief:
    return CommitBrief(sha=row[f"{prefix}_sha"], message=row[f"{prefix}_message"], author=_author(row, f"{prefix}_author"),
                       committed_at=_time(row[f"{prefix}_committed_at"]))


def _time(stored: str) -> datetime:
    """A time as SQLite stores it, for columns no model converts (aliases, min and max)."""
    return datetime.fromisoformat(stored)


def _head_columns(commit: str, author: str, prefix: str) -> str:
    """The columns of a `CommitBrief` of commit alias `commit` with author alias `author`."""
    return (f"{commit}.sha AS {prefix}_sha, {commit}.message AS {prefix}_message, "
            f"{commit}.committed_at AS {prefix}_committed_at, " + _user_columns(author, f"{prefix}_author"))


def _repo(ctx: ToolContext, name: str) -> Row:
    """A repository by name (any case), with your permission on it as `my_permission`."""
    repo = ctx.sql.one("SELECT repositories.*, collaborators.permission AS my_permission FROM repositories "
                       "LEFT JOIN collaborators ON collaborators.repo_id = repositories.id AND collaborators.user_id = ? "
                       "WHERE repositories.name = ?", [ME, name.lower()], Repository)
    if repo is None:
        raise NotFoundError(f"no repository named {name!r}. {REPO_HINT}")
    return repo


def _require(repo: Row, level: str, action: str) -> None:
    """Refuse unless you hold `level` or a stronger permission on `repo`."""
    have = repo["my_permission"]
    if have is None or RANK[have] < RANK[level]:
        raise ForbiddenError(f"{action} in {repo['name']} needs {level} permission or higher and you have "
                             f"{have or 'no access'}; ask one of its admins (list_collaborators with permission admin)")


def _user(ctx: ToolContext, user_id: int) -> Row:
    return row_or_raise(ctx, User, user_id, "user", USER_HINT)


def _users(ctx: ToolContext, user_ids: Sequence[int], repo_id: int) -> list[Row]:
    """Users by id in the order given, each with their permission on the repository (None
    for a non-collaborator); `NotFoundError` naming the first unknown id."""
    rows = ctx.sql.all(f"SELECT {_user_columns('users', 'user')}, collaborators.permission FROM users "
                       "LEFT JOIN collaborators ON collaborators.user_id = users.id AND collaborators.repo_id = ? "
                       "WHERE users.id IN (SELECT value FROM json_each(?))", [repo_id, list(user_ids)])
    by_id = {row["user_id"]: row for row in rows}
    for user_id in user_ids:
        if user_id not in by_id:
            raise NotFoundError(f"no user with id {user_id}. {USER_HINT}")
    return [by_id[user_id] for user_id in dict.fromkeys(user_ids)]


def _me(ctx: ToolContext) -> UserBrief:
    row = ctx.sql.one(f"SELECT {_user_columns('users', 'user')} FROM users WHERE id = ?", [ME])
    assert row is not None
    return _author(row, "user")


def _check_range(after: datetime | None, before: datetime | None, name: str) -> None:
    if after is not None and before is not None and after >= before:
        raise InvalidArgumentError(f"{name}_after must be earlier than {name}_before")


def _check_window(since: datetime | None, until: datetime | None) -> None:
    if since is not None and until is not None and since >= until:
        raise InvalidArgumentError("since must be earlier than until")


def _resolve(ctx: ToolContext, repo: Row, ref: str) -> Row:
    """The commit a ref names (`id`, `sha`, `kind`: branch, tag or commit): a branch first,
    then a release tag, then a commit sha or its unambiguous prefix of 7+ hex digits."""
    pattern = prefix_pattern(ref.lower()) if re.fullmatch(r"[0-9a-fA-F]{7,40}", ref) else None
    rows = ctx.sql.all(
        "SELECT found.kind, commits.id, commits.sha, commits.committed_at FROM ("
        "SELECT 0 AS rank, 'branch' AS kind, head_id AS commit_id FROM branches WHERE repo_id = ? AND name = ? "
        "UNION ALL SELECT 1, 'tag', commit_id FROM releases WHERE repo_id = ? AND tag = ? "
        "UNION ALL SELECT 2, 'commit', id FROM commits WHERE repo_id = ? AND sha LIKE ? ESCAPE '/'"
        ") AS found JOIN commits ON commits.id = found.commit_id ORDER BY found.rank, commits.id LIMIT 2",
        [repo["id"], ref, repo["id"], ref, repo["id"], pattern], Commit)
    if not rows:
        raise NotFoundError(f"{ref!r} names no branch, release tag or commit of {repo['name']}. {BRANCH_HINT}")
    if rows[0]["kind"] == "commit" and len(rows) > 1:
        raise InvalidArgumentError(f"{ref!r} is the start of several commits' shas in {repo['name']}; give more digits")
    return rows[0]


def _commit_row(ctx: ToolContext, repo: Row, sha: str) -> Row:
    rows = ctx.sql.all(f"SELECT {COMMIT_COLUMNS} FROM commits JOIN users AS author ON author.id = commits.author_id "
                       "WHERE commits.repo_id = ? AND commits.sha LIKE ? ESCAPE '/' ORDER BY commits.id LIMIT 2",
                       [repo["id"], prefix_pattern(sha.lower())], Commit)
    if not rows:
        raise NotFoundError(f"no commit {sha} in {repo['name']}. Use list_commits to find commits.")
    if len(rows) > 1:
        raise InvalidArgumentError(f"{sha!r} is the start of several commits' shas in {repo['name']}; give more digits")
    return rows[0]


def _branch(ctx: ToolContext, repo: Row, name: str) -> Row:
    """A branch by name, with its head commit's brief (`head_` columns)."""
    branch = ctx.sql.one(f"SELECT branches.*, {_head_columns('head', 'head_author', 'head')} FROM branches "
                         "JOIN commits AS head ON head.id = branches.head_id JOIN users AS head_author ON head_author.id = "
                         "head.author_id WHERE branches.repo_id = ? AND branches.name = ?", [repo["id"], name])
    if branch is None:
        raise NotFoundError(f"no branch {name!r} in {repo['name']}. {BRANCH_HINT}")
    return branch


PR_COLUMNS = ("pull_requests.*, repositories.name AS repo, " + _user_columns("author", "author"))
PR_TABLES = ("FROM pull_requests JOIN repositories ON repositories.id = pull_requests.repo_id "
             "JOIN users AS author ON author.id = pull_requests.author_id")


def _missing_number(ctx: ToolContext, repo: Row, number: int, kind: Literal["pull request", "issue"]) -> NotFoundError:
    """The error for a number that names no `kind` in `repo`; it says so when the number is
    the other kind (pull requests and issues share one number series)."""
    other, table = ("issue", "issues") if kind == "pull request" else ("pull request", "pull_requests")
    if ctx.sql.scalar(f"SELECT 1 FROM {table} WHERE repo_id = ? AND number = ?", [repo["id"], number]):
        hint = (f"#{number} is an issue, not a pull request; use search_issues." if other == "issue" else
                f"#{number} is a pull request, not an issue; comment on it with submit_review (event comment).")
    else:
        hint = PR_HINT if kind == "pull request" else ISSUE_HINT
    return NotFoundError(f"no {kind} #{number} in {repo['name']}. {hint}")


def _pr(ctx: ToolContext, repo: Row, number: int) -> Row:
    """A pull request with its author, head and merge shas, merger and base branch head."""
    pr = ctx.sql.one(
        f"SELECT {PR_COLUMNS}, {_user_columns('merger', 'merger')}, head.sha AS head_sha, merge.sha AS merge_commit_sha, "
        "base.head_id AS base_head_id, base_head.sha AS base_head_sha "
        f"{PR_TABLES} JOIN commits AS head ON head.id = pull_requests.head_id "
        "LEFT JOIN commits AS merge ON merge.id = pull_requests.merge_commit_id "
        "LEFT JOIN users AS merger ON merger.id = pull_requests.merged_by_id "
        "LEFT JOIN branches AS base ON base.repo_id = pull_requests.repo_id AND base.name = pull_requests.base_branch "
        "LEFT JOIN commits AS base_head ON base_head.id = base.head_id "
        "WHERE pull_requests.repo_id = ? AND pull_requests.number = ?", [repo["id"], number], PullRequest)
    if pr is None:
        raise _missing_number(ctx, repo, number, "pull request")
    return pr


def _labels(ctx: ToolContext, table: str, key: str, ids: Sequence[int]) -> dict[int, list[str]]:
    """Labels of pull requests or issues by id, A-Z, in one statement."""
    found: defaultdict[int, list[str]] = defaultdict(list)
    if ids:
        for row in ctx.sql.all(f"SELECT {key} AS id, label FROM {table} WHERE {key} IN (SELECT value FROM json_each(?)) "
                               "ORDER BY label", [list(ids)]):
            found[row["id"]].append(row["label"])
    return found


def _pr_summary(row: Row, labels: list[str]) -> PullRequestSummary:
    return PullRequestSummary(**row, author=_author(row), head=row["head_branch"], base=row["base_branch"], labels=labels)


def _pr_summaries(ctx: ToolContext, rows: Sequence[Row]) -> list[PullRequestSummary]:
    labels = _labels(ctx, "pull_request_labels", "pull_request_id", [row["id"] for row in rows])
    return [_pr_summary(row, labels[row["id"]]) for row in rows]


def _reviews(ctx: ToolContext, pr_id: int) -> list[Row]:
    return ctx.sql.all(f"SELECT reviews.*, {_user_columns('reviewer', 'reviewer')} FROM reviews "
                       "JOIN users AS reviewer ON reviewer.id = reviews.reviewer_id WHERE reviews.pull_request_id = ? "
                       "ORDER BY reviews.submitted_at, reviews.id", [pr_id], Review)


def _checks(ctx: ToolContext, commit_id: int) -> list[Row]:
    return ctx.sql.all("SELECT * FROM check_runs WHERE commit_id = ? ORDER BY name, id", [commit_id], CheckRun)


def _verdicts(pr: Row, reviews: Sequence[Row]) -> tuple[list[Row], list[Row]]:
    """The reviews that approve and those that request changes: each reviewer's latest
    approval or change request (comments decide nothing), the author's own left out."""
    latest: dict[int, Row] = {}
    for review in reviews:
        if review["state"] != "commented" and review["reviewer_id"] != pr["author_id"]:
            latest[review["reviewer_id"]] = review
    ordered = sorted(latest.values(), key=lambda r: (r["submitted_at"], r["id"]))
    return ([r for r in ordered if r["state"] == "approved"], [r for r in ordered if r["state"] == "changes_requested"])


def _blockers(repo: Row, pr: Row, reviews: Sequence[Row], checks: Sequence[Row]) -> list[str]:
    """Why a pull request cannot merge now, one reason per broken rule (none: it can)."""
    if pr["state"] == "merged":
        return [f"it was already merged on {format_timestamp(pr['merged_at'])}"]
    if pr["state"] == "closed":
        return ["it is closed; reopen it first"]
    reasons = []
    if pr["draft"]:
        reasons.append("it is a draft; mark it ready for review first")
    if pr["base_head_id"] is None:
        reasons.append(f"its base branch {pr['base_branch']} no longer exists")
    approvals, changes = _verdicts(pr, reviews)
    if changes:
        reasons.append("changes were requested by " + ", ".join(r["reviewer_name"] for r in changes))
    if len(approvals) < repo["required_approvals"]:
        reasons.append(f"it has {len(approvals)} of the {repo['required_approvals']} required approvals")
    status = {check["name"]: check["status"] for check in checks}
    for name in repo["required_checks"]:
        if name not in status:
            reasons.append(f"required check {name} has not run on the head commit")
        elif status[name] == "failure":
            reasons.append(f"required check {name} failed")
        elif status[name] == "pending":
            reasons.append(f"required check {name} is still running")
    return reasons


def _next_number(ctx: ToolContext, repo_id: int) -> int:
    """The next number of the repository's one series of pull requests and issues."""
    return int(ctx.sql.scalar(
        "SELECT max(coalesce((SELECT max(number) FROM pull_requests WHERE repo_id = ?), 0), "
        "coalesce((SELECT max(number) FROM issues WHERE repo_id = ?), 0)) + 1", [repo_id, repo_id]))


PR_ROW_COLUMNS = ("id", "repo_id", "number", "title", "body", "author_id", "head_branch", "base_branch", "head_id", "state",
                  "draft", "issue_key", "merge_method", "merge_commit_id", "merged_by_id", "created_at", "updated_at",
                  "merged_at", "closed_at")
"""The stored columns of a pull request (its rows read here carry joined columns too)."""


def _stored(row: Row, columns: Sequence[str]) -> Row:
    return {column: row[column] for column in columns}


def commit_sha(*parts: object) -> str:
    """A commit's sha, from what makes it (repository, parents, message, author, time): the
    same change on the same state gives the same sha."""
    return hashlib.sha1("\x1f".join(str(part) for part in parts).encode()).hexdigest()


def _insert_commits(ctx: ToolContext, repo_id: int, commits: Sequence[dict[str, Any]]) -> None:
    """Insert commits (`sha`, `message`, `author_id`, `committed_at`, `parents`: shas,
    `files`: (path, additions, deletions)) in three statements, whatever their number."""
    ctx.sql.execute(
        "INSERT INTO commits (repo_id, sha, message, author_id, committed_at, additions, deletions) "
        "SELECT ?, json_extract(value, '$.sha'), json_extract(value, '$.message'), json_extract(value, '$.author_id'), "
        "json_extract(value, '$.committed_at'), json_extract(value, '$.additions'), json_extract(value, '$.deletions') "
        "FROM json_each(?) ORDER BY key",
        [repo_id, [{"sha": c["sha"], "message": c["message"], "author_id": c["author_id"],
                    "committed_at": bind(c["committed_at"]), "additions": sum(f[1] for f in c["files"]),
                    "deletions": sum(f[2] for f in c["files"])} for c in commits]])
    ctx.sql.execute(
        "INSERT INTO commit_parents (commit_id, position, parent_id) SELECT child.id, json_extract(value, '$.position'), "
        "parent.id FROM json_each(?) JOIN commits AS child ON child.sha = json_extract(value, '$.sha') "
        "JOIN commits AS parent ON parent.sha = json_extract(value, '$.parent')",
        [[{"sha": c["sha"], "position": n, "parent": parent} for c in commits for n, parent in enumerate(c["parents"])]])
    ctx.sql.execute(
        "INSERT INTO commit_files (commit_id, path, additions, deletions) SELECT commits.id, json_extract(value, '$.path'), "
        "json_extract(value, '$.additions'), json_extract(value, '$.deletions') FROM json_each(?) "
        "JOIN commits ON commits.sha = json_extract(value, '$.sha')",
        [[{"sha": c["sha"], "path": path, "additions": added, "deletions": deleted}
          for c in commits for path, added, deleted in c["files"]]])


# ---------------------------------------------------------------- repositories and people


@tools.tool(examples=[{"language": "TypeScript"}, {"query": "billing", "per_page": 5}])
def list_repositories(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Words that must appear in the name or description (case-insensitive).")] = None,
    language: Annotated[str | None, Field(max_length=30, description="Only repositories in this language (case-insensitive).")] = None,
    visibility: Annotated[Literal["public", "internal", "private"] | None, Field(description="Only this visibility.")] = None,
    topic: Annotated[str | None, Field(max_length=50, description="Only repositories tagged with this topic.")] = None,
    page: Page = 1,
    per_page: PerPage = 30,
) -> RepositoryList:
    """List Northwind's repositories by name, with their default branch's latest commit, open
    pull request and issue counts and your permission. Also says who you are (`viewer`)."""
    clauses, params = ["1"], []
    for word in search_words(query):
        clauses.append("(lower(repositories.name) LIKE ? ESCAPE '/' OR lower(repositories.description) LIKE ? ESCAPE '/')")
        params += [contains_pattern(word)] * 2
    if language:
        clauses.append("lower(repositories.language) = ?")
        params.append(language.lower())
    if visibility:
        clauses.append("repositories.visibility = ?")
        params.append(visibility)
    if topic:
        clauses.append("repositories.id IN (SELECT repo_id FROM repository_topics WHERE topic = ?)")
        params.append(topic.lower())
    found = ctx.sql.page(
        "repositories.*, collaborators.permission AS my_permission, "
        "(SELECT count(*) FROM pull_requests WHERE repo_id = repositories.id AND state = 'open') AS open_pull_requests, "
        "(SELECT count(*) FROM issues WHERE repo_id = repositories.id AND state = 'open') AS open_issues, "
        + _head_columns("head", "head_author", "head"),
        "FROM repositories LEFT JOIN collaborators ON collaborators.repo_id = repositories.id AND collaborators.user_id = ? "
        "JOIN branches ON branches.repo_id = repositories.id AND branches.name = repositories.default_branch "
        "JOIN commits AS head ON head.id = branches.head_id JOIN users AS head_author ON head_author.id = head.author_id "
        f"WHERE {' AND '.join(clauses)} ORDER BY repositories.name, repositories.id",
        [ME, *params], page, per_page, (Repository, Commit))
    topics = _topics(ctx, [row["id"] for row in found.rows])
    return RepositoryList(viewer=_me(ctx), repositories=[_repo_summary(row, topics[row["id"]]) for row in found.rows],
                          total=found.total, page=page, next_page=found.next_page)


def _topics(ctx: ToolContext, repo_ids: Sequence[int]) -> dict[int, list[str]]:
    topics: defaultdict[int, list[str]] = defaultdict(list)
    for row in ctx.sql.all("SELECT repo_id, topic FROM repository_topics WHERE repo_id IN (SELECT value FROM json_each(?)) "
                           "ORDER BY topic", [list(repo_ids)]):
        topics[row["repo_id"]].append(row["topic"])
    return topics


def _repo_summary(row: Row, topics: list[str]) -> RepositorySummary:
    return RepositorySummary(**row, topics=topics, last_commit=_commit_brief(row))


@tools.tool(examples=[{"repo": "design-system"}])
def get_repository(ctx: ToolContext, repo: RepoName) -> RepositoryDetail:
    """Get a repository's settings and state: default branch and its latest commit, the rules a
    pull request must meet to merge (required approvals, required checks, allowed merge
    methods), protected branches, labels, counts, the latest release and your permission."""
    found = _repo(ctx, repo)
    row = ctx.sql.one(
        "SELECT repositories.*, ? AS my_permission, "
        "(SELECT count(*) FROM pull_requests WHERE repo_id = repositories.id AND state = 'open') AS open_pull_requests, "
        "(SELECT count(*) FROM issues WHERE repo_id = repositories.id AND state = 'open') AS open_issues, "
        "(SELECT count(*) FROM branches WHERE repo_id = repositories.id) AS branch_count, "
        "(SELECT count(*) FROM collaborators WHERE repo_id = repositories.id) AS collaborator_count, "
        "(SELECT json_group_array(name) FROM (SELECT name FROM branches WHERE repo_id = repositories.id AND protected "
        "ORDER BY name)) AS protected_branches, "
        + _head_columns("head", "head_author", "head") + ", branches.head_id AS head_id "
        "FROM repositories JOIN branches ON branches.repo_id = repositories.id AND branches.name = repositories.default_branch "
        "JOIN commits AS head ON head.id = branches.head_id JOIN users AS head_author ON head_author.id = head.author_id "
        "WHERE repositories.id = ?", [found["my_permission"], found["id"]], (Repository, Commit))
    assert row is not None
    history = ctx.sql.scalar(f"WITH RECURSIVE {_reach('reach')} SELECT count(*) FROM reach", [row["head_id"]])
    labels = ctx.sql.all("SELECT name, description FROM labels WHERE repo_id = ? ORDER BY name", [found["id"]])
    latest = ctx.sql.one("SELECT tag, name, created_at FROM releases WHERE repo_id = ? ORDER BY created_at DESC, id DESC "
                         "LIMIT 1", [found["id"]], Release)
    summary = _repo_summary(row, _topics(ctx, [found["id"]])[found["id"]])
    return RepositoryDetail(
        **dict(summary), project_key=row["project_key"], required_approvals=row["required_approvals"],
        merge_methods=row["merge_methods"], required_checks=row["required_checks"],
        protected_branches=sorted(json.loads(row["protected_branches"])), labels=[LabelOut(**label) for label in labels],
        branch_count=row["branch_count"], collaborator_count=row["collaborator_count"], default_branch_commits=history,
        latest_release=None if latest is None else ReleaseBrief(**latest))


@tools.tool(examples=[{"repo": "design-system", "permission": ["admin", "maintain"]}, {"repo": "docs-site", "query": "an"}])
def list_collaborators(
    ctx: ToolContext,
    repo: RepoName,
    permission: Annotated[list[Permission] | None, Field(description="Only collaborators with one of these permissions.")] = None,
    query: Annotated[str | None, Field(description="Part of the name, login or email (case-insensitive).")] = None,
    page: Page = 1,
    per_page: PerPage = 50,
) -> CollaboratorPage:
    """List the people with access to a repository and their permission (read < triage < write
    < maintain < admin), strongest first, then by name. Find a person's user id here by name."""
    found = _repo(ctx, repo)
    clauses, params = ["collaborators.repo_id = ?"], [found["id"]]
    if permission:
        clauses.append("collaborators.permission IN (SELECT value FROM json_each(?))")
        params.append(permission)
    if query and query.strip():
        clauses.append("(lower(users.name) LIKE ? ESCAPE '/' OR lower(users.login) LIKE ? ESCAPE '/' "
                       "OR lower(users.email) LIKE ? ESCAPE '/')")
        params += [contains_pattern(query.strip().lower())] * 3
    rank = "CASE collaborators.permission " + " ".join(f"WHEN '{p}' THEN {r}" for p, r in RANK.items()) + " END"
    rows = ctx.sql.page("users.id, users.login, users.name, users.email, collaborators.permission",
                        f"FROM collaborators JOIN users ON users.id = collaborators.user_id WHERE {' AND '.join(clauses)} "
                        f"ORDER BY {rank} DESC, users.name, users.id", params, page, per_page)
    return CollaboratorPage(repo=found["name"], collaborators=[CollaboratorOut(**row) for row in rows.rows],
                            total=rows.total, page=page, next_page=rows.next_page)


@tools.tool(examples=[{"email": "ann.olson@northwindsystems.com"}])
def get_user_by_email(
    ctx: ToolContext,
    email: Annotated[str, Field(min_length=3, max_length=160, description="The person's email address.")],
) -> UserOut:
    """Find a user (a Northwind Systems employee) by email: login, title, time zone, the
    repositories they work on with their permission, and their open pull requests and
    pending review requests."""
    user = ctx.sql.one("SELECT *, (SELECT count(*) FROM pull_requests WHERE author_id = users.id AND state = 'open') "
                       "AS open_pull_requests, (SELECT count(*) FROM review_requests JOIN pull_requests "
                       "ON pull_requests.id = review_requests.pull_request_id WHERE review_requests.reviewer_id = users.id "
                       "AND pull_requests.state = 'open') AS review_requests FROM users WHERE email = ?",
                       [email.strip().lower()], User)
    if user is None:
        raise NotFoundError(f"no user with email {email!r}; the code host's users are {ctx.world.home.name} employees. "
                            f"{USER_HINT}")
    repos = ctx.sql.all("SELECT repositories.name AS repo, collaborators.permission FROM collaborators "
                        "JOIN repositories ON repositories.id = collaborators.repo_id WHERE collaborators.user_id = ? "
                        "ORDER BY repositories.name", [user["id"]])
    return UserOut(**user, organization_name=ctx.world.home.name, repositories=[RepoPermission(**r) for r in repos])


# ---------------------------------------------------------------- branches and history


@tools.tool(examples=[{"repo": "design-system"}, {"repo": "design-system", "query": "deps/", "protected": False, "per_page": 5}])
def list_branches(
    ctx: ToolContext,
    repo: RepoName,
    query: Annotated[str | None, Field(description="Part of the branch name (case-insensitive).")] = None,
    protected: Annotated[bool | None, Field(description="Only protected (true) or unprotected (false) branches.")] = None,
    page: Page = 1,
    per_page: PerPage = 30,
) -> BranchPage:
    """List a repository's branches (the default branch first, then by name) with each head
    commit, whether it is protected, and the open pull requests from it."""
    found = _repo(ctx, repo)
    clauses, params = ["branches.repo_id = ?"], [found["id"]]
    if query and query.strip():
        clauses.append("lower(branches.name) LIKE ? ESCAPE '/'")
        params.append(contains_pattern(query.strip().lower()))
    if protected is not None:
        clauses.append("branches.protected = ?")
        params.append(protected)
    rows = ctx.sql.page(
        "branches.name, branches.protected, " + _head_columns("head", "head_author", "head"),
        "FROM branches JOIN commits AS head ON head.id = branches.head_id "
        f"JOIN users AS head_author ON head_author.id = head.author_id WHERE {' AND '.join(clauses)} "
        "ORDER BY branches.name != ?, branches.name, branches.id", [*params, found["default_branch"]], page, per_page, Commit)
    prs: defaultdict[str, list[int]] = defaultdict(list)
    for row in ctx.sql.all("SELECT head_branch, number FROM pull_requests WHERE repo_id = ? AND state = 'open' AND head_branch "
                           "IN (SELECT value FROM json_each(?)) ORDER BY number", [found["id"], [r["name"] for r in rows.rows]]):
        prs[row["head_branch"]].append(row["number"])
    branches = [BranchOut(name=row["name"], protected=bool(row["protected"]), default=row["name"] == found["default_branch"],
                          head=_commit_brief(row), open_pull_requests=prs[row["name"]]) for row in rows.rows]
    return BranchPage(repo=found["name"], branches=branches, total=rows.total, page=page, next_page=rows.next_page)


@tools.tool(examples=[{"repo": "design-system", "per_page": 5}, {"repo": "design-system", "ref": "v1.23.0", "path": "packages/tokens", "since": "2025-01-01", "author_id": 2}])
def list_commits(
    ctx: ToolContext,
    repo: RepoName,
    ref: Annotated[str | None, Field(max_length=100, description="A branch, release tag or commit sha whose history to list; "
                                                                 "the default branch if omitted.")] = None,
    author_id: Annotated[int | None, Field(description="Only commits by this user id.")] = None,
    path: Annotated[str | None, Field(max_length=200, description="Only commits touching this file, or any file under this folder.")] = None,
    since: Annotated[DateTimeArg | None, Field(description="Only commits at or after this time (ISO 8601, UTC).")] = None,
    until: Annotated[DateTimeArg | None, Field(description="Only commits strictly before this time.")] = None,
    page: Page = 1,
    per_page: PerPage = 30,
) -> CommitPage:
    """List the commits in a branch's (or tag's, or commit's) history, newest first, with
    author, parents and line counts; filter by author, file path and time range."""
    _check_window(since, until)
    found = _repo(ctx, repo)
    start = _resolve(ctx, found, ref or found["default_branch"])
    if author_id is not None:
        _user(ctx, author_id)
    clauses, params = ["1"], []
    if author_id is not None:
        clauses.append("commits.author_id = ?")
        params.append(author_id)
    if path and path.strip("/"):
        folder = path.strip("/")
        clauses.append("commits.id IN (SELECT commit_id FROM commit_files WHERE path = ? OR path LIKE ? ESCAPE '/')")
        params += [folder, prefix_pattern(folder + "/")]
    for condition, value in (("commits.committed_at >= ?", since), ("commits.committed_at < ?", until)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    rows = ctx.sql.page(
        COMMIT_COLUMNS,
        f"FROM commits JOIN users AS author ON author.id = commits.author_id WHERE commits.id IN "
        f"(WITH RECURSIVE {_reach('reach')} SELECT id FROM reach) AND {' AND '.join(clauses)} "
        "ORDER BY commits.committed_at DESC, commits.id DESC", [start["id"], *params], page, per_page, Commit)
    return CommitPage(repo=found["name"], ref=ref or found["default_branch"], commits=[_commit_summary(r) for r in rows.rows],
                      total=rows.total, page=page, next_page=rows.next_page)


@tools.tool(examples=[{"repo": "design-system", "sha": "4f403536"}])
def get_commit(ctx: ToolContext, repo: RepoName, sha: Sha) -> CommitDetail:
    """Get one commit: message, author, parents, the files it changed with their line counts,
    the check runs on it and the pull requests it belongs to."""
    found = _repo(ctx, repo)
    commit = _commit_row(ctx, found, sha)
    files = ctx.sql.all("SELECT path, additions, deletions FROM commit_files WHERE commit_id = ? ORDER BY path", [commit["id"]])
    numbers = ctx.sql.column("SELECT number FROM pull_requests WHERE id IN (SELECT pull_request_id FROM pull_request_commits "
                             "WHERE commit_id = ?) OR merge_commit_id = ? ORDER BY number", [commit["id"], commit["id"]])
    return CommitDetail(**dict(_commit_summary(commit)), files=[FileChangeOut(**f) for f in files],
                        checks=[CheckOut(**c) for c in _checks(ctx, commit["id"])], pull_requests=numbers)


@tools.tool(examples=[{"repo": "design-system", "base": "main", "head": "spike/tabs-experiment"}, {"repo": "design-system", "base": "v1.23.0", "head": "main"}])
def compare_branches(
    ctx: ToolContext,
    repo: RepoName,
    base: Annotated[Ref, Field(description="The branch, tag or commit to compare against (main).")],
    head: Annotated[Ref, Field(description="The branch, tag or commit with the changes.")],
) -> Comparison:
    """Compare two branches (or tags, or commits): how many commits head is ahead of and
    behind base, the ahead commits, and the files they change. Compare a release tag with the
    default branch to see what is unreleased."""
    found = _repo(ctx, repo)
    b, h = _resolve(ctx, found, base), _resolve(ctx, found, head)
    cte = f"WITH RECURSIVE {_reach('head_history')}, {_reach('base_history')}, " \
          "ahead(id) AS (SELECT id FROM head_history EXCEPT SELECT id FROM base_history) "
    commits = ctx.sql.all(
        f"{cte} SELECT {COMMIT_COLUMNS}, count(*) OVER () AS total FROM commits JOIN ahead ON ahead.id = commits.id "
        "JOIN users AS author ON author.id = commits.author_id ORDER BY commits.committed_at, commits.id LIMIT ?",
        [h["id"], b["id"], MAX_COMPARE_COMMITS], Commit)
    counts = ctx.sql.one(
        f"{cte}, shared(id) AS (SELECT id FROM base_history INTERSECT SELECT id FROM head_history) SELECT "
        "(SELECT count(*) FROM (SELECT id FROM base_history EXCEPT SELECT id FROM head_history)) AS behind, "
        "(SELECT sha FROM commits WHERE id IN (SELECT id FROM shared) ORDER BY committed_at DESC, id DESC LIMIT 1) AS base_sha",
        [h["id"], b["id"]])
    assert counts is not None
    files = ctx.sql.all(
        f"{cte} SELECT path, sum(additions) AS additions, sum(deletions) AS deletions "
        f"FROM commit_files WHERE commit_id IN (SELECT commits.id FROM commits JOIN ahead ON ahead.id = commits.id "
        f"WHERE {NOT_MERGE}) GROUP BY path ORDER BY path", [h["id"], b["id"]])
    ahead, behind = (commits[0]["total"] if commits else 0), counts["behind"]
    status = ("identical" if not ahead and not behind else "ahead" if not behind else "behind" if not ahead else "diverged")
    return Comparison(
        repo=found["name"], base=base, head=head, base_sha=b["sha"], head_sha=h["sha"], merge_base_sha=counts["base_sha"],
        status=status, ahead_by=ahead, behind_by=behind, commits=[_commit_summary(row) for row in commits],
        files=[FileChangeOut(**f) for f in files[:MAX_COMPARE_FILES]], changed_files=len(files),
        additions=sum(f["additions"] for f in files), deletions=sum(f["deletions"] for f in files))


@tools.tool(examples=[{"repo": "design-system", "since": "2025-05-01", "until": "2025-11-01"}])
def contributor_stats(
    ctx: ToolContext,
    repo: RepoName,
    ref: Annotated[str | None, Field(max_length=100, description="The branch, tag or commit whose history to count; the "
                                                                 "default branch if omitted.")] = None,
    since: Annotated[DateTimeArg | None, Field(description="Only commits at or after this time (ISO 8601, UTC).")] = None,
    until: Annotated[DateTimeArg | None, Field(description="Only commits strictly before this time.")] = None,
) -> ContributorStats:
    """Who contributed to a branch's history: commits, lines added and removed, first and last
    commit per author, most commits first. Merge commits are not counted."""
    _check_window(since, until)
    found = _repo(ctx, repo)
    start = _resolve(ctx, found, ref or found["default_branch"])
    clauses, params = [NOT_MERGE], [start["id"]]
    for condition, value in (("commits.committed_at >= ?", since), ("commits.committed_at < ?", until)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    rows = ctx.sql.all(
        f"WITH RECURSIVE {_reach('reach')} SELECT {_user_columns('author', 'author')}, count(*) AS commits, "
        "sum(commits.additions) AS additions, sum(commits.deletions) AS deletions, min(commits.committed_at) AS first_commit_at, "
        "max(commits.committed_at) AS last_commit_at FROM commits JOIN reach ON reach.id = commits.id "
        f"JOIN users AS author ON author.id = commits.author_id WHERE {' AND '.join(clauses)} "
        "GROUP BY author.id ORDER BY commits DESC, additions DESC, author.id", params, (Commit,))
    contributors = [ContributorOut(author=_author(row), commits=row["commits"], additions=row["additions"],
                                   deletions=row["deletions"], first_commit_at=_time(row["first_commit_at"]),
                                   last_commit_at=_time(row["last_commit_at"])) for row in rows]
    return ContributorStats(repo=found["name"], ref=ref or found["default_branch"],
                            total_commits=sum(c.commits for c in contributors), contributors=contributors)


@tools.tool(examples=[{"repo": "design-system", "per_page": 3}])
def list_releases(ctx: ToolContext, repo: RepoName, page: Page = 1, per_page: PerPage = 10) -> ReleasePage:
    """List a repository's releases, newest first, with tag, notes, the commit each was cut from and who published it."""
    found = _repo(ctx, repo)
    rows = ctx.sql.page(f"releases.*, repositories.name AS repo, commits.sha, {_user_columns('author', 'author')}",
                        "FROM releases JOIN repositories ON repositories.id = releases.repo_id "
                        "JOIN commits ON commits.id = releases.commit_id JOIN users AS author ON author.id = releases.author_id "
                        "WHERE releases.repo_id = ? ORDER BY releases.created_at DESC, releases.id DESC",
                        [found["id"]], page, per_page, Release)
    return ReleasePage(releases=[ReleaseOut(**row, author=_author(row)) for row in rows.rows], total=rows.total, page=page,
                       next_page=rows.next_page)


# ---------------------------------------------------------------- pull requests: reads


@tools.tool(examples=[{"repo": "design-system", "state": "open"}, {"issue_key": "WEB-12", "state": "all"},
                      {"state": "merged", "author_id": 2, "reviewer_id": 9, "merged_after": "2025-01-01", "per_page": 5},
                      {"requested_reviewer_id": 1, "label": ["dependencies"], "query": "bump", "state": "all"}])
def search_pull_requests(
    ctx: ToolContext,
    repo: Annotated[str | None, Field(max_length=100, description="Only this repository's pull requests (all repositories if omitted).")] = None,
    state: Annotated[PrState, Field(description="open, closed (without merging), merged, or all.")] = "open",
    author_id: Annotated[int | None, Field(description="Only pull requests opened by this user id.")] = None,
    reviewer_id: Annotated[int | None, Field(description="Only pull requests this user id has reviewed.")] = None,
    requested_reviewer_id: Annotated[int | None, Field(description="Only pull requests waiting for this user id's review.")] = None,
    label: Annotated[list[LabelName] | None, Field(description="Only pull requests carrying all of these labels.")] = None,
    query: Annotated[str | None, Field(description="Words that must appear in the title or description (case-insensitive).")] = None,
    issue_key: Annotated[IssueKey | None, Field(description="Only pull requests resolving this issue-tracker issue (WEB-42).")] = None,
    base: Annotated[str | None, Field(max_length=100, description="Only pull requests into this branch.")] = None,
    draft: Annotated[bool | None, Field(description="Only drafts (true) or only ready ones (false).")] = None,
    created_after: Annotated[DateTimeArg | None, Field(description="Only pull requests opened at or after this time.")] = None,
    created_before: Annotated[DateTimeArg | None, Field(description="Only pull requests opened strictly before this time.")] = None,
    merged_after: Annotated[DateTimeArg | None, Field(description="Only pull requests merged at or after this time.")] = None,
    merged_before: Annotated[DateTimeArg | None, Field(description="Only pull requests merged strictly before this time.")] = None,
    sort_by: Annotated[Literal["created_at", "updated_at", "merged_at", "number"], Field(description="Sort key.")] = "created_at",
    sort_order: Annotated[Literal["asc", "desc"], Field(description="Sort direction.")] = "desc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> PullRequestPage:
    """Search pull requests across repositories (or in one): by state, author, reviewer,
    pending review request, labels, words, the issue-tracker key they resolve, base branch,
    draft, and creation or merge time. Unmerged ones sort last by merged_at."""
    _check_range(created_after, created_before, "created")
    _check_range(merged_after, merged_before, "merged")
    clauses, params = ["1"], []
    if repo is not None:
        clauses.append("pull_requests.repo_id = ?")
        params.append(_repo(ctx, repo)["id"])
    for user_id in (author_id, reviewer_id, requested_reviewer_id):
        if user_id is not None:
            _user(ctx, user_id)
    if state != "all":
        clauses.append("pull_requests.state = ?")
        params.append(state)
    for condition, value in (
        ("pull_requests.author_id = ?", author_id),
        ("pull_requests.id IN (SELECT pull_request_id FROM reviews WHERE reviewer_id = ?)", reviewer_id),
        ("pull_requests.id IN (SELECT pull_request_id FROM review_requests WHERE reviewer_id = ?)", requested_reviewer_id),
        ("pull_requests.issue_key = ?", issue_key.upper() if issue_key else None),
        ("pull_requests.base_branch = ?", base),
        ("pull_requests.draft = ?", draft),
        ("pull_requests.created_at >= ?", created_after), ("pull_requests.created_at < ?", created_before),
        ("pull_requests.merged_at >= ?", merged_after), ("pull_requests.merged_at < ?", merged_before),
    ):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    for name in dict.fromkeys(label or ()):
        clauses.append("pull_requests.id IN (SELECT pull_request_id FROM pull_request_labels WHERE label = ?)")
        params.append(name)
    for word in search_words(query):
        clauses.append("(lower(pull_requests.title) LIKE ? ESCAPE '/' OR lower(pull_requests.body) LIKE ? ESCAPE '/')")
        params += [contains_pattern(word)] * 2
    key = f"pull_requests.{sort_by}"
    order = f"{key} IS NULL, {key} {sort_order.upper()}, pull_requests.id {sort_order.upper()}"
    rows = ctx.sql.page(PR_COLUMNS, f"{PR_TABLES} WHERE {' AND '.join(clauses)} ORDER BY {order}", params, page, per_page,
                        PullRequest)
    return PullRequestPage(pull_requests=_pr_summaries(ctx, rows.rows), total=rows.total, page=page, next_page=rows.next_page)


def _pr_detail(ctx: ToolContext, repo: Row, pr: Row) -> PullRequestDetail:
    """A pull request with its reviews, review requests, checks, size and mergeability."""
    reviews = _reviews(ctx, pr["id"])
    checks = _checks(ctx, pr["head_id"])
    requested = ctx.sql.all(f"SELECT {_user_columns('users', 'user')} FROM review_requests JOIN users ON users.id = "
                            "review_requests.reviewer_id WHERE review_requests.pull_request_id = ? "
                            "ORDER BY review_requests.requested_at, users.id", [pr["id"]])
    size = ctx.sql.one(
        "SELECT count(*) AS commits, coalesce(sum(commits.additions), 0) AS additions, "
        "coalesce(sum(commits.deletions), 0) AS deletions, (SELECT count(DISTINCT path) FROM commit_files WHERE commit_id IN "
        "(SELECT commit_id FROM pull_request_commits WHERE pull_request_id = ?)) AS changed_files "
        "FROM pull_request_commits JOIN commits ON commits.id = pull_request_commits.commit_id "
        f"WHERE pull_request_commits.pull_request_id = ? AND {NOT_MERGE}", [pr["id"], pr["id"]])
    assert size is not None
    approvals, changes = _verdicts(pr, reviews)
    blockers = _blockers(repo, pr, reviews, checks)
    summary = _pr_summary(pr, _labels(ctx, "pull_request_labels", "pull_request_id", [pr["id"]])[pr["id"]])
    return PullRequestDetail(
        **dict(summary), body=pr["body"], head_sha=pr["head_sha"], merge_commit_sha=pr["merge_commit_sha"],
        merge_method=pr["merge_method"], merged_by=_brief(pr, "merger"), **size,
        reviews=[ReviewOut(**r, reviewer=_author(r, "reviewer")) for r in reviews],
        requested_reviewers=[_author(r, "user") for r in requested], checks=[CheckOut(**c) for c in checks],
        failing_checks=[c["name"] for c in checks if c["status"] == "failure"],
        pending_checks=[c["name"] for c in checks if c["status"] == "pending"],
        approvals=len(approvals), required_approvals=repo["required_approvals"],
        changes_requested_by=[_author(r, "reviewer") for r in changes], mergeable=not blockers, blockers=blockers)


@tools.tool(examples=[{"repo": "design-system", "number": 86}])
def get_pull_request(ctx: ToolContext, repo: RepoName, number: Number) -> PullRequestDetail:
    """Get a pull request with its description, reviews, pending review requests, checks on its
    head commit, size, and whether it can be merged now (and if not, every reason why)."""
    found = _repo(ctx, repo)
    return _pr_detail(ctx, found, _pr(ctx, found, number))


# ---------------------------------------------------------------- pull requests: writes


@tools.tool(writes=True, destructive=False, idempotent=True, title="Open a pull request", examples=[{"repo": "design-system", "title": "Try tab overflow menus", "head": "spike/tabs-experiment", "draft": True, "labels": ["enhancement"]}])
def create_pull_request(
    ctx: ToolContext,
    repo: RepoName,
    title: Annotated[Title, Field(description="The title; start it with the issue key it resolves (WEB-42: ...).")],
    head: Annotated[BranchName, Field(description="The branch with the changes.")],
    base: Annotated[str | None, Field(max_length=100, description="The branch to merge into; the default branch if omitted.")] = None,
    body: Annotated[Body, Field(description="The description (Markdown).")] = "",
    draft: Annotated[bool, Field(description="Open it as a draft (not ready for review or merging).")] = False,
    issue_key: Annotated[IssueKey | None, Field(description="The issue-tracker issue it resolves; taken from the title's "
                                                            "start (WEB-42: ...) when omitted.")] = None,
    labels: Annotated[list[LabelName], Field(max_length=10, description="Labels to add (they must exist in the repository).")] = [],
) -> PullRequestSummary:
    """Open a pull request from a head branch into a base branch of the same repository. The
    head must have commits the base lacks, and no other open pull request may join the same
    two branches. Needs write permission."""
    found = _repo(ctx, repo)
    _require(found, "write", "opening pull requests")
    base = base or found["default_branch"]
    if head == base:
        raise InvalidArgumentError(f"head and base are both {head!r}; a pull request joins two different branches")
    head_branch, base_branch = _branch(ctx, found, head), _branch(ctx, found, base)
    existing = ctx.sql.scalar("SELECT number FROM pull_requests WHERE repo_id = ? AND head_branch = ? AND base_branch = ? "
                              "AND state = 'open'", [found["id"], head, base])
    if existing is not None:
        raise InvalidArgumentError(f"pull request #{existing} from {head} into {base} is already open; update it instead")
    ahead = ctx.sql.column(f"WITH RECURSIVE {_reach('head_history')}, {_reach('base_history')} SELECT id FROM head_history "
                           "EXCEPT SELECT id FROM base_history", [head_branch["head_id"], base_branch["head_id"]])
    if not ahead:
        raise InvalidArgumentError(f"{head} has no commits that {base} lacks; push a commit to {head} first")
    wanted = list(dict.fromkeys(labels))
    _check_labels(ctx, found, wanted)
    if issue_key is None:
        match = re.match(r"([A-Za-z][A-Za-z0-9]{1,9}-[0-9]{1,9})\b", title)
        issue_key = match.group(1) if match else None
    number = _next_number(ctx, found["id"])
    pr_id = ctx.sql.insert(
        "INSERT INTO pull_requests (repo_id, number, title, body, author_id, head_branch, base_branch, head_id, state, draft, "
        "issue_key, merge_method, merge_commit_id, merged_by_id, created_at, updated_at, merged_at, closed_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, NULL, NULL, NULL, ?, ?, NULL, NULL)",
        [found["id"], number, title, body, ME, head, base, head_branch["head_id"], draft,
         issue_key.upper() if issue_key else None, ctx.now, ctx.now])
    ctx.sql.execute("INSERT INTO pull_request_labels (pull_request_id, label) SELECT ?, value FROM json_each(?)", [pr_id, wanted])
    ctx.sql.execute("INSERT INTO pull_request_commits (pull_request_id, commit_id) SELECT ?, value FROM json_each(?)",
                    [pr_id, sorted(ahead)])
    return PullRequestSummary(repo=found["name"], number=number, title=title, state="open", draft=draft, author=_me(ctx),
                              head=head, base=base, issue_key=issue_key.upper() if issue_key else None, labels=sorted(wanted),
                              created_at=ctx.now, updated_at=ctx.now, merged_at=None, closed_at=None)


def _check_labels(ctx: ToolContext, repo: Row, labels: Sequence[str]) -> None:
    if not labels:
        return
    known = set(ctx.sql.column("SELECT name FROM labels WHERE repo_id = ? AND name IN (SELECT value FROM json_each(?))",
                               [repo["id"], list(labels)]))
    unknown = [label for label in labels if label not in known]
    if unknown:
        raise InvalidArgumentError(f"{repo['name']} has no label {', '.join(map(repr, unknown))}; get_repository lists its labels")


def _open_pr(pr: Row, action: str) -> None:
    if pr["state"] != "open":
        raise ForbiddenError(f"pull request #{pr['number']} is {pr['state']}; only open pull requests can {action}")


@tools.tool(writes=True, destructive=False, idempotent=True, title="Request a review",
            examples=[{"repo": "design-system", "number": 82, "reviewer_ids": [5]}])
def request_review(
    ctx: ToolContext,
    repo: RepoName,
    number: Number,
    reviewer_ids: Annotated[list[int], Field(min_length=1, max_length=10, description="User ids of the reviewers to ask.")],
) -> ReviewRequestsOut:
    """Ask collaborators to review an open pull request. Reviewers need write permission or
    higher on the repository and cannot be the author; asking again keeps one request.
    Needs triage permission."""
    found = _repo(ctx, repo)
    pr = _pr(ctx, found, number)
    _require(found, "triage", "requesting reviews")
    _open_pr(pr, "get review requests")
    for user in _users(ctx, reviewer_ids, found["id"]):
        if user["user_id"] == pr["author_id"]:
            raise ForbiddenError(f"{user['user_name']} opened pull request #{number}; authors do not review their own work")
        if user["permission"] is None or RANK[user["permission"]] < RANK["write"]:
            raise ForbiddenError(f"{user['user_name']} has {user['permission'] or 'no access'} on {found['name']}; "
                                 "reviewers need write permission or higher")
    added = ctx.sql.execute("INSERT OR IGNORE INTO review_requests (pull_request_id, reviewer_id, requested_at) "
                            "SELECT ?, value, ? FROM json_each(?)", [pr["id"], ctx.now, sorted(set(reviewer_ids))])
    if added:
        ctx.sql.execute("UPDATE pull_requests SET updated_at = ? WHERE id = ?", [ctx.now, pr["id"]])
    requested = ctx.sql.all(f"SELECT {_user_columns('users', 'user')} FROM review_requests JOIN users ON users.id = "
                            "review_requests.reviewer_id WHERE review_requests.pull_request_id = ? "
                            "ORDER BY review_requests.requested_at, users.id", [pr["id"]])
    return ReviewRequestsOut(repo=found["name"], number=number, requested_reviewers=[_author(r, "user") for r in requested])


@tools.tool(writes=True, destructive=True, idempotent=False, title="Submit a review",
            examples=[{"repo": "design-system", "number": 83, "event": "approve"}, {"repo": "design-system", "number": 82, "event": "comment", "body": "Could you add a story for this?"}])
def submit_review(
    ctx: ToolContext,
    repo: RepoName,
    number: Number,
    event: Annotated[Literal["approve", "request_changes", "comment"], Field(description="Your verdict: approve, request "
                                                                                          "changes, or only comment.")],
    body: Annotated[Body, Field(description="The review text; required to request changes or comment.")] = "",
) -> SubmittedReview:
    """Review an open pull request as yourself: approve it, request changes, or comment. Your
    latest approval or change request replaces your earlier one; a comment changes neither.
    You cannot approve or request changes on your own pull request, or on a draft."""
    found = _repo(ctx, repo)
    pr = _pr(ctx, found, number)
    _require(found, "read", "reviewing")
    _open_pr(pr, "be reviewed")
    if event != "approve" and not body.strip():
        raise InvalidArgumentError(f"a review that does not approve needs a body saying what to {event.replace('_', ' ')}")
    if event != "comment" and pr["author_id"] == ME:
        raise ForbiddenError(f"you opened pull request #{number}; authors cannot approve or request changes on their own "
                             "pull requests (ask a collaborator to review it)")
    if event != "comment" and pr["draft"]:
        raise ForbiddenError(f"pull request #{number} is a draft; it can be commented on, but approved or sent back only "
                             "once it is marked ready for review")
    state = {"approve": "approved", "request_changes": "changes_requested", "comment": "commented"}[event]
    review_id = ctx.sql.insert("INSERT INTO reviews (pull_request_id, reviewer_id, state, body, submitted_at) "
                               "VALUES (?, ?, ?, ?, ?)", [pr["id"], ME, state, body, ctx.now])
    ctx.sql.execute("DELETE FROM review_requests WHERE pull_request_id = ? AND reviewer_id = ?", [pr["id"], ME])
    ctx.sql.execute("UPDATE pull_requests SET updated_at = ? WHERE id = ?", [ctx.now, pr["id"]])
    approvals, _ = _verdicts(pr, _reviews(ctx, pr["id"]))
    return SubmittedReview(id=review_id, reviewer=_me(ctx), state=state, body=body, submitted_at=ctx.now,
                           repo=found["name"], number=number, approvals=len(approvals),
                           required_approvals=found["required_approvals"])


@tools.tool(writes=True, destructive=True, idempotent=True, title="Merge a pull request",
            examples=[{"repo": "design-system", "number": 86, "method": "squash"}])
def merge_pull_request(
    ctx: ToolContext,
    repo: RepoName,
    number: Number,
    method: Annotated[Literal["merge", "squash", "rebase"], Field(description="merge (a merge commit), squash (one commit) "
                                                                             "or rebase (the commits replayed); it must be "
                                                                             "one the repository allows.")],
    commit_title: Annotated[str | None, Field(max_length=256, description="Title of the merge commit or the squashed "
                                                                          "commit (default: as GitHub writes it); a "
                                                                          "rebase keeps the commits' own messages.")] = None,
) -> MergeResult:
    """Merge an open pull request into its base branch. It merges only when it is not a draft,
    has the repository's required approvals from reviewers other than its author with no
    changes requested, and every required check succeeded on its head commit; the method must
    be one the repository allows. Needs write permission."""
    found = _repo(ctx, repo)
    pr = _pr(ctx, found, number)
    _require(found, "write", "merging pull requests")
    if method not in found["merge_methods"]:
        raise ForbiddenError(f"{found['name']} allows only {', '.join(found['merge_methods'])} merges "
                             f"(not {method}); see get_repository")
    blockers = _blockers(found, pr, _reviews(ctx, pr["id"]), _checks(ctx, pr["head_id"]))
    if blockers:
        raise ForbiddenError(f"pull request #{number} cannot be merged: {'; '.join(blockers)}. A pull request merges only "
                             "when open, not a draft, approved as the repository requires with no changes requested, "
                             "and with every required check passed")
    title = commit_title or (f"Merge pull request #{number} from {pr['head_branch']}" if method == "merge"
                             else f"{pr['title']} (#{number})")
    parent = pr["base_head_sha"]
    if method == "rebase":
        own = ctx.sql.all("SELECT commits.id, commits.sha, commits.message, commits.author_id FROM pull_request_commits "
                          "JOIN commits ON commits.id = pull_request_commits.commit_id WHERE pull_request_commits.pull_request_id = ? "
                          f"AND {NOT_MERGE} ORDER BY commits.committed_at, commits.id", [pr["id"]])
        changes: defaultdict[int, list[tuple[str, int, int]]] = defaultdict(list)
        for row in ctx.sql.all("SELECT commit_id, path, additions, deletions FROM commit_files WHERE commit_id IN "
                               "(SELECT commit_id FROM pull_request_commits WHERE pull_request_id = ?) ORDER BY path",
                               [pr["id"]]):
            changes[row["commit_id"]].append((row["path"], row["additions"], row["deletions"]))
        new = []
        for commit in own:
            sha = commit_sha(found["name"], parent, commit["sha"], commit["message"], commit["author_id"], ctx.now)
            new.append({"sha": sha, "message": commit["message"], "author_id": commit["author_id"], "committed_at": ctx.now,
                        "parents": [parent], "files": changes[commit["id"]]})
            parent = sha
    else:
        files = [(row["path"], row["additions"], row["deletions"]) for row in ctx.sql.all(
            "SELECT path, sum(commit_files.additions) AS additions, sum(commit_files.deletions) AS deletions FROM commit_files "
            "JOIN commits ON commits.id = commit_files.commit_id WHERE commit_files.commit_id IN (SELECT commit_id FROM "
            f"pull_request_commits WHERE pull_request_id = ?) AND {NOT_MERGE} GROUP BY path ORDER BY path", [pr["id"]])]
        message = title if method == "squash" else f"{title}\n\n{pr['title']}"
        parents = [parent, pr["head_sha"]] if method == "merge" else [parent]
        author = ME if method == "merge" else pr["author_id"]
        new = [{"sha": commit_sha(found["name"], *parents, message, author, ctx.now), "message": message, "author_id": author,
                "committed_at": ctx.now, "parents": parents, "files": files}]
    _insert_commits(ctx, found["id"], new)
    ctx.sql.execute("UPDATE branches SET head_id = (SELECT id FROM commits WHERE sha = ?) WHERE repo_id = ? AND name = ?",
                    [new[-1]["sha"], found["id"], pr["base_branch"]])
    ctx.sql.execute("UPDATE pull_requests SET state = 'merged', merge_method = ?, merge_commit_id = (SELECT id FROM commits "
                    "WHERE sha = ?), merged_by_id = ?, merged_at = ?, closed_at = ?, updated_at = ? WHERE id = ?",
                    [method, new[-1]["sha"], ME, ctx.now, ctx.now, ctx.now, pr["id"]])
    return MergeResult(repo=found["name"], number=number, state="merged", merge_method=method,
                       merge_commit_sha=new[-1]["sha"], base=pr["base_branch"], merged_by=_me(ctx), merged_at=ctx.now,
                       commits_added=len(new))


@tools.tool(writes=True, destructive=True, idempotent=True, title="Edit a pull request",
            examples=[{"repo": "design-system", "number": 84, "state": "closed"}, {"repo": "design-system", "number": 82, "draft": True}])
def update_pull_request(
    ctx: ToolContext,
    repo: RepoName,
    number: Number,
    state: Annotated[Literal["open", "closed"] | None, Field(description="closed to close it without merging; open to "
                                                                         "reopen a closed one.")] = None,
    draft: Annotated[bool | None, Field(description="false marks a draft ready for review; true turns it back into a draft.")] = None,
    title: Annotated[Title | None, Field(description="New title.")] = None,
    body: Annotated[Body | None, Field(description="New description.")] = None,
) -> PullRequestSummary:
    """Close or reopen a pull request, mark a draft ready for review (or back to draft), or edit
    its title and description (only the fields given). A merged pull request can be neither
    closed nor reopened; a closed one reopens only while its branches exist and no other
    pull request between them is open. Needs triage permission."""
    found = _repo(ctx, repo)
    before = _pr(ctx, found, number)
    _require(found, "triage", "updating pull requests")
    if all(value is None for value in (state, draft, title, body)):
        raise InvalidArgumentError("give at least one of state, draft, title or body to change")
    pr = _stored(before, PR_ROW_COLUMNS)
    if before["state"] == "merged" and (state is not None or draft is not None):
        raise ForbiddenError(f"pull request #{number} was merged on {format_timestamp(before['merged_at'])}; a merged pull "
                             "request can be neither closed nor reopened, nor turned into a draft")
    if state == "closed" and before["state"] == "open":
        pr.update(state="closed", closed_at=ctx.now)
    elif state == "open" and before["state"] == "closed":
        branches = ctx.sql.column("SELECT name FROM branches WHERE repo_id = ? AND name IN (?, ?)",
                                  [found["id"], before["head_branch"], before["base_branch"]])
        for name in (before["head_branch"], before["base_branch"]):
            if name not in branches:
                raise ForbiddenError(f"pull request #{number} cannot be reopened: its branch {name} was deleted")
        other = ctx.sql.scalar("SELECT number FROM pull_requests WHERE repo_id = ? AND head_branch = ? AND base_branch = ? "
                               "AND state = 'open'", [found["id"], before["head_branch"], before["base_branch"]])
        if other is not None:
            raise ForbiddenError(f"pull request #{number} cannot be reopened: #{other} from the same branch is open")
        pr.update(state="open", closed_at=None)
    if draft is not None:
        if pr["state"] != "open":
            raise ForbiddenError(f"pull request #{number} is {pr['state']}; only an open pull request changes draft status")
        pr["draft"] = draft
    if title is not None:
        pr["title"] = title
    if body is not None:
        pr["body"] = body
    if pr != _stored(before, PR_ROW_COLUMNS):
        pr["updated_at"] = ctx.now
    ctx.sql.update_row(PullRequest, before, pr)
    return _pr_summary({**before, **pr}, _labels(ctx, "pull_request_labels", "pull_request_id", [pr["id"]])[pr["id"]])


# ---------------------------------------------------------------- branches and commits: writes


@tools.tool(writes=True, destructive=False, idempotent=True, title="Create a branch", examples=[{"repo": "design-system", "branch": "feature/tooltip-delay"}])
def create_branch(
    ctx: ToolContext,
    repo: RepoName,
    branch: NewBranchName,
    from_ref: Annotated[str | None, Field(max_length=100, description="The branch, tag or commit to start from; the "
                                                                      "default branch if omitted.")] = None,
) -> BranchOut:
    """Create a branch pointing at the head of another branch (or a tag, or a commit). New
    branches are unprotected. Needs write permission."""
    found = _repo(ctx, repo)
    _require(found, "write", "creating branches")
    if ctx.sql.scalar("SELECT 1 FROM branches WHERE repo_id = ? AND name = ?", [found["id"], branch]):
        raise InvalidArgumentError(f"branch {branch!r} already exists in {found['name']}")
    start = _resolve(ctx, found, from_ref or found["default_branch"])
    ctx.sql.execute("INSERT INTO branches (repo_id, name, head_id, protected, created_at) VALUES (?, ?, ?, 0, ?)",
                    [found["id"], branch, start["id"], ctx.now])
    head = ctx.sql.one(f"SELECT {_head_columns('head', 'head_author', 'head')} FROM commits AS head "
                       "JOIN users AS head_author ON head_author.id = head.author_id WHERE head.id = ?", [start["id"]], Commit)
    assert head is not None
    return BranchOut(name=branch, protected=False, default=False, head=_commit_brief(head), open_pull_requests=[])


@tools.tool(writes=True, destructive=True, idempotent=True, title="Delete a branch", examples=[{"repo": "design-system", "branch": "chore/speed-up-modal-tests"}])
def delete_branch(ctx: ToolContext, repo: RepoName, branch: BranchName) -> DeletedBranch:
    """Delete a branch (its commits stay reachable from other branches, tags and pull
    requests). The default branch and protected branches cannot be deleted, nor a branch an
    open pull request comes from or merges into. Needs write permission."""
    found = _repo(ctx, repo)
    _require(found, "write", "deleting branches")
    row = _branch(ctx, found, branch)
    if branch == found["default_branch"]:
        raise ForbiddenError(f"{branch} is the default branch of {found['name']} and cannot be deleted")
    if row["protected"]:
        raise ForbiddenError(f"{branch} is a protected branch of {found['name']}; protected branches cannot be deleted")
    using = ctx.sql.column("SELECT number FROM pull_requests WHERE repo_id = ? AND state = 'open' AND (head_branch = ? OR "
                           "base_branch = ?) ORDER BY number", [found["id"], branch, branch])
    if using:
        raise ForbiddenError(f"{branch} is used by open pull request(s) {', '.join(f'#{n}' for n in using)}; merge or close "
                             "them first")
    ctx.sql.execute("DELETE FROM branches WHERE id = ?", [row["id"]])
    return DeletedBranch(repo=found["name"], branch=branch, head=_commit_brief(row))


@tools.tool(writes=True, destructive=True, idempotent=False, title="Push a commit", examples=[{"repo": "docs-site", "branch": "main", "message": "Fix a typo in the webhooks guide",
                                    "files": [{"path": "docs/webhooks.mdx", "additions": 1, "deletions": 1}]}])
def push_commit(
    ctx: ToolContext,
    repo: RepoName,
    branch: BranchName,
    message: Annotated[str, Field(min_length=1, max_length=2000, description="The commit message (first line: a short summary).")],
    files: Annotated[list[FileChangeIn], Field(min_length=1, max_length=50, description="The files the commit changes.")],
) -> CommitDetail:
    """Push a commit (authored by you) on top of a branch. Protected branches take no direct
    pushes: change them through a pull request. Open pull requests from the branch get the
    commit, and the repository's required checks start on it (pending). Needs write permission."""
    found = _repo(ctx, repo)
    _require(found, "write", "pushing commits")
    row = _branch(ctx, found, branch)
    if row["protected"]:
        raise ForbiddenError(f"{branch} is a protected branch of {found['name']}: it takes no direct pushes; push to "
                             "another branch and open a pull request")
    paths = [change.path for change in files]
    if len(set(paths)) != len(paths):
        raise InvalidArgumentError("each file may appear once in a commit")
    if not any(change.additions or change.deletions for change in files):
        raise InvalidArgumentError("a commit changes at least one line")
    changes = sorted((c.path, c.additions, c.deletions) for c in files)
    sha = commit_sha(found["name"], row["head_sha"], message, ME, ctx.now, changes)
    _insert_commits(ctx, found["id"], [{"sha": sha, "message": message, "author_id": ME, "committed_at": ctx.now,
                                        "parents": [row["head_sha"]], "files": changes}])
    new = "(SELECT id FROM commits WHERE sha = ?)"
    ctx.sql.execute(f"UPDATE branches SET head_id = {new} WHERE id = ?", [sha, row["id"]])
    ctx.sql.execute(f"INSERT INTO pull_request_commits (pull_request_id, commit_id) SELECT id, {new} FROM pull_requests "
                    "WHERE repo_id = ? AND head_branch = ? AND state = 'open'", [sha, found["id"], branch])
    ctx.sql.execute(f"UPDATE pull_requests SET head_id = {new}, updated_at = ? WHERE repo_id = ? AND head_branch = ? "
                    "AND state = 'open'", [sha, ctx.now, found["id"], branch])
    ctx.sql.execute(f"INSERT INTO check_runs (commit_id, name, status, started_at, completed_at) "
                    f"SELECT {new}, value, 'pending', ?, NULL FROM json_each(?)", [sha, ctx.now, found["required_checks"]])
    numbers = ctx.sql.column("SELECT number FROM pull_requests WHERE repo_id = ? AND head_branch = ? AND state = 'open' "
                             "ORDER BY number", [found["id"], branch])
    checks = [CheckOut(name=name, status="pending", started_at=ctx.now, completed_at=None)
              for name in sorted(found["required_checks"])]
    return CommitDetail(sha=sha, message=message, author=_me(ctx), committed_at=ctx.now, parents=[row["head_sha"]],
                        additions=sum(c[1] for c in changes), deletions=sum(c[2] for c in changes),
                        changed_files=len(changes), files=[FileChangeOut(path=p, additions=a, deletions=d) for p, a, d in changes],
                        checks=checks, pull_requests=numbers)


# ---------------------------------------------------------------- issues


ISSUE_COLUMNS = ("issues.*, repositories.name AS repo, " + _user_columns("author", "author") + ", "
                 "(SELECT count(*) FROM issue_comments WHERE issue_id = issues.id) AS comments")
ISSUE_TABLES = ("FROM issues JOIN repositories ON repositories.id = issues.repo_id "
                "JOIN users AS author ON author.id = issues.author_id")


def _issue_summaries(ctx: ToolContext, rows: Sequence[Row]) -> list[IssueSummary]:
    ids = [row["id"] for row in rows]
    labels = _labels(ctx, "issue_labels", "issue_id", ids)
    assignees: defaultdict[int, list[UserBrief]] = defaultdict(list)
    for row in ctx.sql.all(f"SELECT issue_assignees.issue_id, {_user_columns('users', 'user')} FROM issue_assignees "
                           "JOIN users ON users.id = issue_assignees.user_id WHERE issue_assignees.issue_id IN "
                           "(SELECT value FROM json_each(?)) ORDER BY users.name, users.id", [ids]):
        assignees[row["issue_id"]].append(_author(row, "user"))
    return [IssueSummary(**row, author=_author(row), assignees=assignees[row["id"]], labels=labels[row["id"]]) for row in rows]


def _issue(ctx: ToolContext, repo: Row, number: int) -> Row:
    issue = ctx.sql.one(f"SELECT {ISSUE_COLUMNS} {ISSUE_TABLES} WHERE issues.repo_id = ? AND issues.number = ?",
                        [repo["id"], number], Issue)
    if issue is None:
        raise _missing_number(ctx, repo, number, "issue")
    return issue


@tools.tool(examples=[{"repo": "design-system"}, {"state": "all", "label": ["bug"], "assignee_id": 2, "per_page": 5}])
def search_issues(
    ctx: ToolContext,
    repo: Annotated[str | None, Field(max_length=100, description="Only this repository's issues (all repositories if omitted).")] = None,
    state: Annotated[Literal["open", "closed", "all"], Field(description="open, closed or all.")] = "open",
    label: Annotated[list[LabelName] | None, Field(description="Only issues carrying all of these labels.")] = None,
    assignee_id: Annotated[int | None, Field(description="Only issues assigned to this user id.")] = None,
    author_id: Annotated[int | None, Field(description="Only issues opened by this user id.")] = None,
    query: Annotated[str | None, Field(description="Words that must appear in the title or body (case-insensitive).")] = None,
    sort_by: Annotated[Literal["created_at", "updated_at", "comments"], Field(description="Sort key.")] = "created_at",
    sort_order: Annotated[Literal["asc", "desc"], Field(description="Sort direction.")] = "desc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> IssuePage:
    """Search the repositories' issues (bug reports, questions, chores filed on the code host)
    by state, labels, assignee, author and words. Pull requests are listed by
    search_pull_requests, and planned work lives in the issue tracker."""
    clauses, params = ["1"], []
    if repo is not None:
        clauses.append("issues.repo_id = ?")
        params.append(_repo(ctx, repo)["id"])
    for user_id in (assignee_id, author_id):
        if user_id is not None:
            _user(ctx, user_id)
    if state != "all":
        clauses.append("issues.state = ?")
        params.append(state)
    if assignee_id is not None:
        clauses.append("issues.id IN (SELECT issue_id FROM issue_assignees WHERE user_id = ?)")
        params.append(assignee_id)
    if author_id is not None:
        clauses.append("issues.author_id = ?")
        params.append(author_id)
    for name in dict.fromkeys(label or ()):
        clauses.append("issues.id IN (SELECT issue_id FROM issue_labels WHERE label = ?)")
        params.append(name)
    for word in search_words(query):
        clauses.append("(lower(issues.title) LIKE ? ESCAPE '/' OR lower(issues.body) LIKE ? ESCAPE '/')")
        params += [contains_pattern(word)] * 2
    key = "comments" if sort_by == "comments" else f"issues.{sort_by}"
    rows = ctx.sql.page(ISSUE_COLUMNS, f"{ISSUE_TABLES} WHERE {' AND '.join(clauses)} ORDER BY {key} {sort_order.upper()}, "
                        f"issues.id {sort_order.upper()}", params, page, per_page, Issue)
    return IssuePage(issues=_issue_summaries(ctx, rows.rows), total=rows.total, page=page, next_page=rows.next_page)


@tools.tool(writes=True, destructive=False, idempotent=False, title="Open an issue", examples=[{"repo": "design-system", "title": "Tooltip flickers on hover",
                                    "body": "Hovering quickly over a tooltip trigger makes it flicker.",
                                    "labels": ["bug"], "assignee_ids": [2]}])
def create_issue(
    ctx: ToolContext,
    repo: RepoName,
    title: Annotated[Title, Field(description="A one-line summary.")],
    body: Annotated[Body, Field(description="The description (Markdown).")] = "",
    labels: Annotated[list[LabelName], Field(max_length=10, description="Labels to add (they must exist in the repository).")] = [],
    assignee_ids: Annotated[list[int], Field(max_length=10, description="User ids to assign; they must be collaborators.")] = [],
) -> IssueSummary:
    """File an issue in a repository, as yourself. Anyone with access may file one; setting
    labels or assignees needs triage permission, and assignees must be collaborators."""
    found = _repo(ctx, repo)
    _require(found, "read", "filing issues")
    wanted, people = list(dict.fromkeys(labels)), list(dict.fromkeys(assignee_ids))
    if (wanted or people) and RANK[found["my_permission"]] < RANK["triage"]:
        raise ForbiddenError(f"setting labels or assignees in {found['name']} needs triage permission or higher and you "
                             f"have {found['my_permission']}; file the issue without them")
    _check_labels(ctx, found, wanted)
    users = _users(ctx, people, found["id"]) if people else []
    for user in users:
        if user["permission"] is None:
            raise ForbiddenError(f"{user['user_name']} is not a collaborator on {found['name']}; issues are assigned only "
                                 "to collaborators")
    number = _next_number(ctx, found["id"])
    issue_id = ctx.sql.insert(
        "INSERT INTO issues (repo_id, number, title, body, author_id, state, state_reason, created_at, updated_at, closed_at, "
        "closed_by_id) VALUES (?, ?, ?, ?, ?, 'open', NULL, ?, ?, NULL, NULL)",
        [found["id"], number, title, body, ME, ctx.now, ctx.now])
    ctx.sql.execute("INSERT INTO issue_labels (issue_id, label) SELECT ?, value FROM json_each(?)", [issue_id, wanted])
    ctx.sql.execute("INSERT INTO issue_assignees (issue_id, user_id) SELECT ?, value FROM json_each(?)", [issue_id, people])
    return IssueSummary(repo=found["name"], number=number, title=title, state="open", state_reason=None, author=_me(ctx),
                        assignees=sorted((_author(u, "user") for u in users), key=lambda u: (u.name, u.id)),
                        labels=sorted(wanted), comments=0, created_at=ctx.now, updated_at=ctx.now, closed_at=None)


@tools.tool(writes=True, destructive=False, idempotent=False, title="Comment on an issue",
            examples=[{"repo": "design-system", "number": 4, "body": "I can take a look this week."}])
def comment_on_issue(
    ctx: ToolContext,
    repo: RepoName,
    number: IssueNumber,
    body: Annotated[Body, Field(min_length=1, description="The comment (Markdown).")],
) -> IssueCommentOut:
    """Add a comment to an issue (open or closed), as yourself. To comment on a pull request,
    use submit_review with event comment."""
    found = _repo(ctx, repo)
    issue = _issue(ctx, found, number)
    _require(found, "read", "commenting")
    comment_id = ctx.sql.insert("INSERT INTO issue_comments (issue_id, author_id, body, created_at) VALUES (?, ?, ?, ?)",
                                [issue["id"], ME, body, ctx.now])
    ctx.sql.execute("UPDATE issues SET updated_at = ? WHERE id = ?", [ctx.now, issue["id"]])
    return IssueCommentOut(id=comment_id, repo=found["name"], number=number, author=_me(ctx), body=body, created_at=ctx.now)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Close an issue", examples=[{"repo": "design-system", "number": 4, "reason": "not_planned"}])
def close_issue(
    ctx: ToolContext,
    repo: RepoName,
    number: IssueNumber,
    reason: Annotated[Literal["completed", "not_planned"], Field(description="completed (done) or not_planned (won't do, "
                                                                             "duplicate, stale).")] = "completed",
    comment: Annotated[Body | None, Field(description="A closing comment to add first.")] = None,
) -> IssueSummary:
    """Close an open issue as completed or not planned, optionally with a comment. Its author
    or anyone with triage permission may close it."""
    found = _repo(ctx, repo)
    issue = _issue(ctx, found, number)
    _require(found, "read", "closing issues")
    if issue["author_id"] != ME and RANK[found["my_permission"]] < RANK["triage"]:
        raise ForbiddenError(f"closing someone else's issue in {found['name']} needs triage permission or higher and you "
                             f"have {found['my_permission']}")
    if issue["state"] == "closed":
        raise InvalidArgumentError(f"issue #{number} is already closed ({issue['state_reason']}, "
                                   f"{format_timestamp(issue['closed_at'])})")
    if comment is not None and comment.strip():
        ctx.sql.insert("INSERT INTO issue_comments (issue_id, author_id, body, created_at) VALUES (?, ?, ?, ?)",
                       [issue["id"], ME, comment, ctx.now])
        issue["comments"] += 1
    ctx.sql.execute("UPDATE issues SET state = 'closed', state_reason = ?, closed_at = ?, closed_by_id = ?, updated_at = ? "
                    "WHERE id = ?", [reason, ctx.now, ME, ctx.now, issue["id"]])
    issue.update(state="closed", state_reason=reason, closed_at=ctx.now, updated_at=ctx.now)
    return _issue_summaries(ctx, [issue])[0]


# ---------------------------------------------------------------- releases and access


@tools.tool(writes=True, destructive=False, idempotent=True, title="Publish a release", examples=[{"repo": "design-system", "tag": "v2.0.0", "notes": "Highlights: the new date picker."}])
def create_release(
    ctx: ToolContext,
    repo: RepoName,
    tag: Annotated[str, Field(min_length=2, max_length=50, pattern=r"^v?[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$",
                              description="The version tag (v2.4.0); a tag is never reused.")],
    name: Annotated[str | None, Field(max_length=100, description="The release's title (default: the tag).")] = None,
    notes: Annotated[Body, Field(description="Release notes (Markdown).")] = "",
    target: Annotated[str | None, Field(max_length=100, description="The branch or commit to release; the default branch "
                                                                    "if omitted.")] = None,
    prerelease: Annotated[bool, Field(description="Mark it as a pre-release.")] = False,
) -> ReleaseOut:
    """Publish a release: tag the head of a branch (or a commit) with a new version and add
    notes. Release tags are unique in a repository. Needs write permission."""
    found = _repo(ctx, repo)
    _require(found, "write", "publishing releases")
    existing = ctx.sql.one("SELECT tag, created_at FROM releases WHERE repo_id = ? AND tag = ?", [found["id"], tag], Release)
    if existing is not None:
        raise InvalidArgumentError(f"{found['name']} already has a release tagged {tag} "
                                   f"({format_timestamp(existing['created_at'])}); release tags are never reused")
    commit = _resolve(ctx, found, target or found["default_branch"])
    title = name or tag
    ctx.sql.execute("INSERT INTO releases (repo_id, tag, name, notes, commit_id, author_id, prerelease, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [found["id"], tag, title, notes, commit["id"], ME, prerelease, ctx.now])
    return ReleaseOut(repo=found["name"], tag=tag, name=title, notes=notes, sha=commit["sha"], author=_me(ctx),
                      prerelease=prerelease, created_at=ctx.now)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Set a collaborator's permission",
            examples=[{"repo": "design-system", "user_id": 3, "permission": "triage"}])
def set_collaborator_permission(
    ctx: ToolContext,
    repo: RepoName,
    user_id: Annotated[int, Field(description="The user whose permission to set (list_collaborators, get_user_by_email).")],
    permission: Annotated[Permission, Field(description="read, triage, write, maintain or admin.")],
) -> PermissionChange:
    """Give a user a permission on a repository, adding them as a collaborator if they are not
    one. Only admins of the repository change permissions, and a repository keeps at least
    one admin."""
    found = _repo(ctx, repo)
    _require(found, "admin", "changing permissions")
    (user,) = _users(ctx, [user_id], found["id"])
    previous = user["permission"]
    if previous == "admin" and permission != "admin":
        admins = ctx.sql.scalar("SELECT count(*) FROM collaborators WHERE repo_id = ? AND permission = 'admin'", [found["id"]])
        if admins <= 1:
            raise ForbiddenError(f"{user['user_name']} is the last admin of {found['name']}; make someone else admin first")
    if previous is None:
        ctx.sql.execute("INSERT INTO collaborators (repo_id, user_id, permission) VALUES (?, ?, ?)",
                        [found["id"], user_id, permission])
    elif previous != permission:
        ctx.sql.execute("UPDATE collaborators SET permission = ? WHERE repo_id = ? AND user_id = ?",
                        [permission, found["id"], user_id])
    return PermissionChange(repo=found["name"], user=_author(user, "user"), previous_permission=previous, permission=permission)
