"""The code-host schema: users, repositories with their topics, labels and collaborators,
commits (with parents and changed files), branches, pull requests (labels, commits, reviews,
review requests), check runs, issues (labels, assignees, comments) and releases.

Links to the shared world and to other servers:
- `users` are the employees of Northwind Systems (`org_000`): `id` is the person's index in
  the world + 1 (as in the Zendesk and projects servers, so an employee has the same user id
  in all three) and `external_id` the world's person id (`per_0007`); name, email, title and
  timezone are the world's, `login` is derived from the name.
- `repositories.project_key` is the projects server's project (`projects.key`) whose issues
  the repository's work tracks; `pull_requests.issue_key` is that server's issue
  (`issues.key`, `WEB-42`) a pull request resolves, also named at the start of its title and
  in its head branch and commit messages.

Pull requests and issues share one number series per repository (#1, #2, ...), as on GitHub.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

PERMISSIONS = ("read", "triage", "write", "maintain", "admin")
"""Collaborator permissions, weakest first: each includes what the ones before it allow."""
VISIBILITIES = ("public", "internal", "private")
PR_STATES = ("open", "closed", "merged")
REVIEW_STATES = ("approved", "changes_requested", "commented")
CHECK_STATUSES = ("success", "failure", "pending")
MERGE_METHODS = ("merge", "squash", "rebase")
ISSUE_STATES = ("open", "closed")
CLOSE_REASONS = ("completed", "not_planned")
ACTING_USER_ID = 1
"""The user every write acts as: the first employee of the world (head of engineering in the
projects server)."""


class Base(DeclarativeBase):
    """Declarative base of the code-host schema."""


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str] = mapped_column(String(16), unique=True)
    login: Mapped[str] = mapped_column(String(40), unique=True)
    name: Mapped[str] = mapped_column(String(120), index=True)
    email: Mapped[str] = mapped_column(String(160), unique=True)
    title: Mapped[str] = mapped_column(String(120))
    timezone: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime]


class Repository(Base):
    __tablename__ = "repositories"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    description: Mapped[str] = mapped_column(String(300))
    visibility: Mapped[str] = mapped_column(String(8))
    default_branch: Mapped[str] = mapped_column(String(100))
    language: Mapped[str] = mapped_column(String(30))
    project_key: Mapped[str | None] = mapped_column(String(10))
    """The issue-tracker (projects server) project whose issues this repository's work resolves."""
    required_approvals: Mapped[int]
    """Approvals a pull request needs before it merges."""
    merge_methods: Mapped[list[str]] = mapped_column(JSON)
    """The merge methods the repository allows (`MERGE_METHODS`, in that order)."""
    required_checks: Mapped[list[str]] = mapped_column(JSON)
    """Check names that must succeed on a pull request's head commit before it merges."""
    created_at: Mapped[datetime]


class RepositoryTopic(Base):
    __tablename__ = "repository_topics"

    repo_id: Mapped[int] = mapped_column(ForeignKey("repositories.id"), primary_key=True)
    topic: Mapped[str] = mapped_column(String(50), primary_key=True, index=True)


class Label(Base):
    """A label defined in a repository; pull requests and issues carry its name."""

    __tablename__ = "labels"

    repo_id: Mapped[int] = mapped_column(ForeignKey("repositories.id"), primary_key=True)
    name: Mapped[str] = mapped_column(String(50), primary_key=True)
    description: Mapped[str] = mapped_column(String(100))


class Collaborator(Base):
    __tablename__ = "collaborators"

    repo_id: Mapped[int] = mapped_column(ForeignKey("repositories.id"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True, index=True)
    permission: Mapped[str] = mapped_column(String(8))
    """read, triage, write, maintain or admin (`PERMISSIONS`)."""


class Commit(Base):
    __tablename__ = "commits"
    __table_args__ = (Index("ix_commits_repo_time", "repo_id", "committed_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    repo_id: Mapped[int] = mapped_column(ForeignKey("repositories.id"))
    sha: Mapped[str] = mapped_column(String(40), unique=True)
    message: Mapped[str]
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    committed_at: Mapped[datetime]
    additions: Mapped[int]
    deletions: Mapped[int]
    """Lines added and removed over its files (for a merge commit: against its first parent)."""


class CommitParent(Base):
    __tablename__ = "commit_parents"

    commit_id: Mapped[int] = mapped_column(ForeignKey("commits.id"), primary_key=True)
    position: Mapped[int] = mapped_column(primary_key=True)
    """0 for the first parent; 1 for the merged-in head of a merge commit."""
    parent_id: Mapped[int] = mapped_column(ForeignKey("commits.id"), index=True)


class CommitFile(Base):
    __tablename__ = "commit_files"

    commit_id: Mapped[int] = mapped_column(ForeignKey("commits.id"), primary_key=True)
    path: Mapped[str] = mapped_column(String(200), primary_key=True, index=True)
    additions: Mapped[int]
    deletions: Mapped[int]


class Branch(Base):
    __tablename__ = "branches"
    __table_args__ = (UniqueConstraint("repo_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    repo_id: Mapped[int] = mapped_column(ForeignKey("repositories.id"))
    name: Mapped[str] = mapped_column(String(100))
    head_id: Mapped[int] = mapped_column(ForeignKey("commits.id"), index=True)
    protected: Mapped[bool] = mapped_column(default=False)
    """Protected branches take changes only through merged pull requests and are never deleted."""
    created_at: Mapped[datetime]


class PullRequest(Base):
    __tablename__ = "pull_requests"
    __table_args__ = (UniqueConstraint("repo_id", "number"), Index("ix_pull_requests_created", "created_at"))

    id: Mapped[int] = mapped_column(primary_key=True)
    repo_id: Mapped[int] = mapped_column(ForeignKey("repositories.id"))
    number: Mapped[int]
    title: Mapped[str] = mapped_column(String(256))
    body: Mapped[str]
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    head_branch: Mapped[str] = mapped_column(String(100))
    base_branch: Mapped[str] = mapped_column(String(100))
    head_id: Mapped[int] = mapped_column(ForeignKey("commits.id"))
    """The head branch's commit when the pull request was last pushed to."""
    state: Mapped[str] = mapped_column(String(8), index=True)
    """open, closed or merged."""
    draft: Mapped[bool] = mapped_column(default=False)
    issue_key: Mapped[str | None] = mapped_column(String(20), index=True)
    merge_method: Mapped[str | None] = mapped_column(String(8))
    merge_commit_id: Mapped[int | None] = mapped_column(ForeignKey("commits.id"))
    """The commit the merge left on the base branch (the last one, for a rebase)."""
    merged_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    merged_at: Mapped[datetime | None]
    closed_at: Mapped[datetime | None]


class PullRequestLabel(Base):
    __tablename__ = "pull_request_labels"

    pull_request_id: Mapped[int] = mapped_column(ForeignKey("pull_requests.id"), primary_key=True)
    label: Mapped[str] = mapped_column(String(50), primary_key=True)


class PullRequestCommit(Base):
    """A commit pushed to a pull request's head branch while it was open."""

    __tablename__ = "pull_request_commits"

    pull_request_id: Mapped[int] = mapped_column(ForeignKey("pull_requests.id"), primary_key=True)
    commit_id: Mapped[int] = mapped_column(ForeignKey("commits.id"), primary_key=True, index=True)


class Review(Base):
    __tablename__ = "reviews"

    id: Mapped[int] = mapped_column(primary_key=True)
    pull_request_id: Mapped[int] = mapped_column(ForeignKey("pull_requests.id"), index=True)
    reviewer_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    state: Mapped[str] = mapped_column(String(20))
    """approved, changes_requested or commented."""
    body: Mapped[str]
    submitted_at: Mapped[datetime]


class ReviewRequest(Base):
    """A review asked of a user and not yet given."""

    __tablename__ = "review_requests"

    pull_request_id: Mapped[int] = mapped_column(ForeignKey("pull_requests.id"), primary_key=True)
    reviewer_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True, index=True)
    requested_at: Mapped[datetime]


class CheckRun(Base):
    """A CI check run on a commit."""

    __tablename__ = "check_runs"
    __table_args__ = (UniqueConstraint("commit_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    commit_id: Mapped[int] = mapped_column(ForeignKey("commits.id"))
    name: Mapped[str] = mapped_column(String(50))
    status: Mapped[str] = mapped_column(String(8))
    """success, failure or pending."""
    started_at: Mapped[datetime]
    completed_at: Mapped[datetime | None]


class Issue(Base):
    __tablename__ = "issues"
    __table_args__ = (UniqueConstraint("repo_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    repo_id: Mapped[int] = mapped_column(ForeignKey("repositories.id"))
    number: Mapped[int]
    title: Mapped[str] = mapped_column(String(256))
    body: Mapped[str]
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    state: Mapped[str] = mapped_column(String(8), index=True)
    """open or closed."""
    state_reason: Mapped[str | None] = mapped_column(String(12))
    """completed or not_planned, for a closed issue."""
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    closed_at: Mapped[datetime | None]
    closed_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))


class IssueLabel(Base):
    __tablename__ = "issue_labels"

    issue_id: Mapped[int] = mapped_column(ForeignKey("issues.id"), primary_key=True)
    label: Mapped[str] = mapped_column(String(50), primary_key=True)


class IssueAssignee(Base):
    __tablename__ = "issue_assignees"

    issue_id: Mapped[int] = mapped_column(ForeignKey("issues.id"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True, index=True)


class IssueComment(Base):
    __tablename__ = "issue_comments"

    id: Mapped[int] = mapped_column(primary_key=True)
    issue_id: Mapped[int] = mapped_column(ForeignKey("issues.id"), index=True)
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    body: Mapped[str]
    created_at: Mapped[datetime]


class Release(Base):
    __tablename__ = "releases"
    __table_args__ = (UniqueConstraint("repo_id", "tag"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    repo_id: Mapped[int] = mapped_column(ForeignKey("repositories.id"))
    tag: Mapped[str] = mapped_column(String(50))
    name: Mapped[str] = mapped_column(String(100))
    notes: Mapped[str]
    commit_id: Mapped[int] = mapped_column(ForeignKey("commits.id"))
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    prerelease: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime]
