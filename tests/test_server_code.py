"""Domain behaviour of the code server (a GitHub-like host), through the same call path an
agent uses: the seeded world keeps the rules the tools enforce and links to the shared world
and the issue tracker, reads and filters return what they say, writes change exactly their
rows, and every policy rule refuses with its reason and changes nothing."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import closing
from datetime import datetime
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpgym.servers.catalog import load_server
from mcpgym.servers.code import SERVER
from mcpgym.servers.code.data import REPOS
from mcpgym.servers.code.models import PERMISSIONS
from mcpgym.servers.kernel.database import new_connection
from mcpgym.servers.kernel.fields import format_timestamp
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.spec import build_seeded
from mcpgym.servers.kernel.world import build_world
from tool_calls import fails, ok

ME = 1
SEEDS = (0, 1, 7)
RANK = {p: i for i, p in enumerate(PERMISSIONS)}


@pytest.fixture
def session() -> Iterator[ToolSession]:
    with ToolSession(SERVER, 0) as fresh:
        yield fresh


@cache
def seeded(seed: int) -> sqlite3.Connection:
    """The seeded database of `seed`, read-only by convention."""
    connection = new_connection()
    connection.deserialize(SERVER.seeded(seed).snapshot)
    connection.row_factory = sqlite3.Row
    return connection


def rows(seed: int, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
    return seeded(seed).execute(sql, params).fetchall()


@cache
def parents_of(seed: int) -> dict[int, list[int]]:
    parents: defaultdict[int, list[int]] = defaultdict(list)
    for row in rows(seed, "SELECT commit_id, parent_id FROM commit_parents"):
        parents[row["commit_id"]].append(row["parent_id"])
    return parents


def history(seed: int, commit_id: int) -> set[int]:
    """Every commit reachable from `commit_id`, computed in Python from the parent rows."""
    parents = parents_of(seed)
    seen, todo = set(), [commit_id]
    while todo:
        commit = todo.pop()
        if commit not in seen:
            seen.add(commit)
            todo += parents.get(commit, [])
    return seen


def first_parent_chain(seed: int, commit_id: int) -> list[int]:
    parent = {row["commit_id"]: row["parent_id"] for row in rows(seed, "SELECT * FROM commit_parents WHERE position = 0")}
    chain = [commit_id]
    while chain[-1] in parent:
        chain.append(parent[chain[-1]])
    return chain


def all_pages(session: ToolSession, tool: str, key: str, args: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    page: int | None = 1
    while page is not None:
        data = ok(session, tool, {**args, "page": page, "per_page": 100})
        found += data[key]
        page = data["next_page"]
    return found


@cache
def every_pull_request() -> tuple[dict[str, Any], ...]:
    """Every pull request of the seed-0 world as search_pull_requests shows it."""
    with ToolSession(SERVER, 0) as session:
        return tuple(all_pages(session, "search_pull_requests", "pull_requests", {"state": "all", "sort_by": "number"}))


def open_prs(session: ToolSession, repo: str) -> list[dict[str, Any]]:
    return [ok(session, "get_pull_request", {"repo": repo, "number": pr["number"]})
            for pr in all_pages(session, "search_pull_requests", "pull_requests", {"repo": repo})]


def mergeable(session: ToolSession, repo: str) -> dict[str, Any]:
    found = [pr for pr in open_prs(session, repo) if pr["mergeable"]]
    assert found, f"no mergeable pull request in {repo}"
    return found[0]


def blocked_by(session: ToolSession, words: str) -> tuple[str, dict[str, Any]]:
    """An open pull request in a repository where you may merge, blocked by a reason containing `words`."""
    for plan in REPOS:
        if RANK[plan.my_permission] >= RANK["write"]:
            for pr in open_prs(session, plan.name):
                if any(words in reason for reason in pr["blockers"]):
                    return plan.name, pr
    raise AssertionError(f"no pull request blocked by {words!r}")


# ---------------------------------------------------------------- the seeded world


@pytest.mark.parametrize("seed", SEEDS)
def test_the_seeded_world_has_the_volumes_of_a_small_real_code_host(seed: int) -> None:
    count = {table: rows(seed, f"SELECT count(*) FROM {table}")[0][0]  # noqa: S608 (fixed table names)
             for table in ("repositories", "commits", "pull_requests", "reviews", "issues", "releases", "branches",
                           "check_runs", "collaborators")}
    assert 6 <= count["repositories"] <= 10
    assert 2000 <= count["commits"] <= 5000 and 500 <= count["pull_requests"] <= 1500
    assert count["reviews"] >= count["pull_requests"] and count["issues"] >= 60 and count["releases"] >= 40
    first, last = rows(seed, "SELECT min(created_at), max(created_at) FROM pull_requests")[0]
    now = build_world(seed).now
    assert (now - datetime.fromisoformat(first)).days > 365 and datetime.fromisoformat(last) <= now
    states = Counter(row[0] for row in rows(seed, "SELECT state FROM pull_requests"))
    assert states["merged"] > states["open"] >= 30 and states["closed"] >= 10
    assert rows(seed, "SELECT count(*) FROM pull_requests WHERE draft")[0][0] >= 5


def test_the_same_seed_builds_the_same_bytes() -> None:
    assert build_seeded(SERVER, 3) == build_seeded(SERVER, 3)
    assert SERVER.seeded(0).snapshot != SERVER.seeded(1).snapshot


@pytest.mark.parametrize("seed", SEEDS)
def test_every_merged_pull_request_met_the_merge_rules(seed: int) -> None:
    repos = {row["id"]: row for row in rows(seed, "SELECT * FROM repositories")}
    checks = defaultdict(dict)
    for row in rows(seed, "SELECT commit_id, name, status FROM check_runs"):
        checks[row["commit_id"]][row["name"]] = row["status"]
    reviews = defaultdict(list)
    for row in rows(seed, "SELECT * FROM reviews ORDER BY submitted_at, id"):
        reviews[row["pull_request_id"]].append(row)
    merged = rows(seed, "SELECT * FROM pull_requests WHERE state = 'merged'")
    for pr in merged:
        repo = repos[pr["repo_id"]]
        assert pr["merge_method"] in repo["merge_methods"] and not pr["draft"]
        latest = {}
        for review in reviews[pr["id"]]:
            assert review["submitted_at"] <= pr["merged_at"]
            if review["state"] != "commented" and review["reviewer_id"] != pr["author_id"]:
                latest[review["reviewer_id"]] = review["state"]
        assert sum(state == "approved" for state in latest.values()) >= repo["required_approvals"], pr["number"]
        assert "changes_requested" not in latest.values()
        for name in json.loads(repo["required_checks"]):
            assert checks[pr["head_id"]].get(name) == "success", (pr["number"], name)


@pytest.mark.parametrize("seed", SEEDS)
def test_protected_branches_moved_only_through_merges(seed: int) -> None:
    """The first-parent history of a protected default branch is the initial commit and what
    merged pull requests added: one commit each for merge and squash, their commits for a rebase."""
    for repo in rows(seed, "SELECT repositories.*, branches.head_id, branches.protected FROM repositories JOIN branches "
                           "ON branches.repo_id = repositories.id AND branches.name = repositories.default_branch"):
        prs = rows(seed, "SELECT pull_requests.*, (SELECT count(*) FROM pull_request_commits WHERE pull_request_id = "
                         "pull_requests.id) AS size FROM pull_requests WHERE repo_id = ? AND state = 'merged'", (repo["id"],))
        added = sum(pr["size"] if pr["merge_method"] == "rebase" else 1 for pr in prs)
        chain = first_parent_chain(seed, repo["head_id"])
        if repo["protected"]:
            assert len(chain) == added + 1, repo["name"]
        merge_commits = {pr["merge_commit_id"] for pr in prs}
        assert merge_commits <= set(chain)


@pytest.mark.parametrize("seed", SEEDS)
def test_open_pull_requests_point_at_their_branches(seed: int) -> None:
    for pr in rows(seed, "SELECT pull_requests.*, branches.head_id AS branch_head, base.head_id AS base_head "
                         "FROM pull_requests LEFT JOIN branches ON branches.repo_id = pull_requests.repo_id AND "
                         "branches.name = pull_requests.head_branch LEFT JOIN branches AS base ON base.repo_id = "
                         "pull_requests.repo_id AND base.name = pull_requests.base_branch WHERE state = 'open'"):
        assert pr["branch_head"] == pr["head_id"] and pr["base_head"] is not None
        own = {row[0] for row in rows(seed, "SELECT commit_id FROM pull_request_commits WHERE pull_request_id = ?", (pr["id"],))}
        assert own and pr["head_id"] in own and not own & history(seed, pr["base_head"])


@pytest.mark.parametrize("seed", SEEDS)
def test_pull_requests_and_issues_share_one_number_series(seed: int) -> None:
    for repo in rows(seed, "SELECT id FROM repositories"):
        numbers = [row[0] for row in rows(seed, "SELECT number FROM pull_requests WHERE repo_id = ? UNION ALL "
                                                "SELECT number FROM issues WHERE repo_id = ?", (repo["id"], repo["id"]))]
        assert sorted(numbers) == list(range(1, len(numbers) + 1))


@pytest.mark.parametrize("seed", (0, 1))
def test_users_are_the_worlds_employees(seed: int) -> None:
    world = build_world(seed)
    with ToolSession(SERVER, seed) as session:
        for index, person in enumerate(world.people):
            if not person.is_employee:
                if index % 40 == 0:  # customers have no account on the code host
                    assert "employees" in fails(session, "get_user_by_email", {"email": person.email}, "not_found")
                continue
            user = ok(session, "get_user_by_email", {"email": person.email.upper()})
            assert (user["id"], user["name"], user["email"], user["title"], user["timezone"], user["organization_name"]) == (
                index + 1, person.name, person.email, person.job_title, person.timezone, world.home.name)
        viewer = ok(session, "list_repositories")["viewer"]
        assert viewer["id"] == ME and viewer["name"] == world.employees[0].name
        logins = [row[0] for row in rows(seed, "SELECT login FROM users")]
        assert len(set(logins)) == len(logins) == len(world.employees)


@pytest.mark.parametrize("seed", (0, 2))
def test_pull_requests_resolve_real_tracker_issues(seed: int) -> None:
    """Every issue key names an issue of the same seed's tracker, in the repository's project,
    and opens the title; the work of Done issues is merged, of issues in review still open;
    the author is the issue's assignee when they work in the repository."""
    with closing(new_connection()) as tracker:
        tracker.deserialize(load_server("projects").seeded(seed).snapshot)
        issues = {row[0]: row for row in tracker.execute(
            "SELECT issues.key, projects.key, issues.status, issues.assignee_id FROM issues "
            "JOIN projects ON projects.id = issues.project_id")}
    prs = rows(seed, "SELECT pull_requests.*, repositories.project_key, repositories.id AS rid FROM pull_requests "
                     "JOIN repositories ON repositories.id = pull_requests.repo_id WHERE issue_key IS NOT NULL")
    assert len(prs) >= 300
    writers = {(row["repo_id"], row["user_id"]) for row in rows(seed, "SELECT * FROM collaborators WHERE permission "
                                                                       "IN ('write', 'maintain', 'admin')")}
    by_assignee = 0
    for pr in prs:
        key, project, status, assignee = issues[pr["issue_key"]]
        assert project == pr["project_key"] and pr["title"].startswith(f"{key}: ") and key in pr["head_branch"]
        assert (pr["state"], status) in {("merged", "Done"), ("closed", "Won't Do"), ("open", "In Review"),
                                         ("open", "In Progress"), ("open", "Blocked")}
        if (pr["rid"], assignee) in writers:
            by_assignee += pr["author_id"] == assignee
    assert by_assignee >= 0.9 * sum((pr["rid"], issues[pr["issue_key"]][3]) in writers for pr in prs)


# ---------------------------------------------------------------- reads


PR_FILTERS = {
    "repo": st.sampled_from([plan.name for plan in REPOS]),
    "state": st.sampled_from(["open", "closed", "merged", "all"]),
    "author_id": st.sampled_from([1, 2, 5, 9, 13, 20, 30]),
    "label": st.lists(st.sampled_from(["bug", "enhancement", "dependencies", "needs-qa", "refactor"]), min_size=1, max_size=2),
    "draft": st.booleans(),
    "base": st.sampled_from(["main", "master"]),
    "issue_key": st.sampled_from(["WEB-12", "API-30", "MOB-5", "OPS-40", "SUP-3"]),
    "query": st.sampled_from(["bump", "cache", "refactor helpers", "as a"]),
    "created_after": st.sampled_from(["2025-01-01T00:00:00Z", "2025-09-15T00:00:00Z"]),
}


def keeps(pr: dict[str, Any], filters: dict[str, Any]) -> bool:
    checks = {
        "repo": lambda v: pr["repo"] == v,
        "state": lambda v: v == "all" or pr["state"] == v,
        "author_id": lambda v: pr["author"]["id"] == v,
        "label": lambda v: set(v) <= set(pr["labels"]),
        "draft": lambda v: pr["draft"] == v,
        "base": lambda v: pr["base"] == v,
        "issue_key": lambda v: pr["issue_key"] == v,
        "query": lambda v: True,  # checked against the stored text below
        "created_after": lambda v: pr["created_at"] >= v,
    }
    return all(checks[name](value) for name, value in filters.items())


@cache
def bodies() -> dict[tuple[str, int], str]:
    return {(row["name"], row["number"]): f"{row['title']} {row['body']}".lower()
            for row in rows(0, "SELECT repositories.name, pull_requests.number, pull_requests.title, pull_requests.body "
                               "FROM pull_requests JOIN repositories ON repositories.id = pull_requests.repo_id")}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_combination_of_filters_returns_exactly_the_pull_requests_matching_all(session: ToolSession,
                                                                                   data: st.DataObject) -> None:
    names = data.draw(st.lists(st.sampled_from(sorted(PR_FILTERS)), max_size=4, unique=True))
    filters = {name: data.draw(PR_FILTERS[name]) for name in names}
    args = {"state": "all", **filters}
    found = all_pages(session, "search_pull_requests", "pull_requests", args)
    words = filters.get("query", "").split()
    expected = [(p["repo"], p["number"]) for p in every_pull_request()
                if keeps(p, args) and all(w in bodies()[(p["repo"], p["number"])] for w in words)]
    assert sorted((p["repo"], p["number"]) for p in found) == sorted(expected)
    assert all(keeps(p, args) for p in found)


def test_pages_concatenate_in_the_order_asked(session: ToolSession) -> None:
    args = {"state": "merged", "sort_by": "merged_at", "sort_order": "asc", "repo": "api-server"}
    full = all_pages(session, "search_pull_requests", "pull_requests", args)
    assert [p["merged_at"] for p in full] == sorted(p["merged_at"] for p in full)
    paged: list[dict[str, Any]] = []
    page: int | None = 1
    while page is not None:
        data = ok(session, "search_pull_requests", {**args, "page": page, "per_page": 7})
        assert data["total"] == len(full)
        paged += data["pull_requests"]
        page = data["next_page"]
    assert paged == full


def test_review_filters_and_issue_keys(session: ToolSession) -> None:
    waiting = {(r[0], r[1]) for r in rows(0, "SELECT repositories.name, pull_requests.number FROM review_requests "
                                             "JOIN pull_requests ON pull_requests.id = review_requests.pull_request_id "
                                             "JOIN repositories ON repositories.id = pull_requests.repo_id WHERE reviewer_id = 1")}
    found = all_pages(session, "search_pull_requests", "pull_requests", {"requested_reviewer_id": ME, "state": "all"})
    assert waiting and {(p["repo"], p["number"]) for p in found} == waiting
    reviewed = all_pages(session, "search_pull_requests", "pull_requests", {"reviewer_id": 9, "state": "all"})
    for pr in reviewed[:5]:
        detail = ok(session, "get_pull_request", {"repo": pr["repo"], "number": pr["number"]})
        assert 9 in {r["reviewer"]["id"] for r in detail["reviews"]}
    pr = next(p for p in every_pull_request() if p["issue_key"])
    found = ok(session, "search_pull_requests", {"issue_key": pr["issue_key"].lower(), "state": "all"})["pull_requests"]
    assert (pr["repo"], pr["number"]) in {(p["repo"], p["number"]) for p in found}
    assert all(p["issue_key"] == pr["issue_key"] for p in found)


def test_mergeability_follows_reviews_and_checks(session: ToolSession) -> None:
    seen = Counter()
    for plan in REPOS:
        for pr in open_prs(session, plan.name):
            latest = {}
            for review in pr["reviews"]:
                if review["state"] != "commented" and review["reviewer"]["id"] != pr["author"]["id"]:
                    latest[review["reviewer"]["id"]] = review["state"]
            approvals = sum(s == "approved" for s in latest.values())
            statuses = {c["name"]: c["status"] for c in pr["checks"]}
            expected = (not pr["draft"] and approvals >= plan.required_approvals and "changes_requested" not in latest.values()
                        and all(statuses.get(name) == "success" for name in plan.checks))
            assert pr["approvals"] == approvals and pr["required_approvals"] == plan.required_approvals
            assert pr["mergeable"] == expected == (not pr["blockers"])
            assert pr["failing_checks"] == sorted(n for n, s in statuses.items() if s == "failure")
            seen[expected] += 1
    assert seen[True] >= 5 and seen[False] >= 20


def test_history_filters_follow_the_commit_graph(session: ToolSession) -> None:
    repo = "api-server"
    head = rows(0, "SELECT head_id FROM branches JOIN repositories ON repositories.id = branches.repo_id "
                   "WHERE repositories.name = ? AND branches.name = 'main'", (repo,))[0][0]
    ancestors = history(0, head)
    reachable = {row["sha"] for row in rows(0, "SELECT id, sha FROM commits") if row["id"] in ancestors}
    listed = all_pages(session, "list_commits", "commits", {"repo": repo})
    assert {c["sha"] for c in listed} == reachable
    assert [c["committed_at"] for c in listed] == sorted((c["committed_at"] for c in listed), reverse=True)
    author = listed[len(listed) // 2]["author"]["id"]
    mine = all_pages(session, "list_commits", "commits", {"repo": repo, "author_id": author})
    assert mine and [c["sha"] for c in mine] == [c["sha"] for c in listed if c["author"]["id"] == author]
    window = all_pages(session, "list_commits", "commits", {"repo": repo, "since": "2025-05-01", "until": "2025-06-01"})
    assert [c["sha"] for c in window] == [c["sha"] for c in listed if "2025-05-01" <= c["committed_at"] < "2025-06-01"]
    by_path = all_pages(session, "list_commits", "commits", {"repo": repo, "path": "internal/auth"})
    touching = {row[0] for row in rows(0, "SELECT commits.sha FROM commit_files JOIN commits ON commits.id = "
                                          "commit_files.commit_id WHERE path LIKE 'internal/auth/%'")}
    assert by_path and {c["sha"] for c in by_path} == touching & reachable
    detail = ok(session, "get_commit", {"repo": repo, "sha": by_path[0]["sha"][:7].upper()})
    assert detail["sha"] == by_path[0]["sha"] and any(f["path"].startswith("internal/auth/") for f in detail["files"])
    assert detail["additions"] == sum(f["additions"] for f in detail["files"])


def test_compare_counts_the_commits_each_side_lacks(session: ToolSession) -> None:
    repo = "web-app"
    release = ok(session, "list_releases", {"repo": repo, "per_page": 2})["releases"][1]
    compared = ok(session, "compare_branches", {"repo": repo, "base": release["tag"], "head": "main"})
    base_id, head_id = (rows(0, "SELECT id FROM commits WHERE sha = ?", (sha,))[0][0]
                        for sha in (compared["base_sha"], compared["head_sha"]))
    ahead, behind = history(0, head_id) - history(0, base_id), history(0, base_id) - history(0, head_id)
    assert (compared["ahead_by"], compared["behind_by"], compared["status"]) == (len(ahead), len(behind), "ahead")
    assert compared["merge_base_sha"] == release["sha"] and len(compared["commits"]) == min(len(ahead), 100)
    reverse = ok(session, "compare_branches", {"repo": repo, "base": "main", "head": release["tag"]})
    assert (reverse["ahead_by"], reverse["behind_by"], reverse["status"]) == (0, len(ahead), "behind")
    same = ok(session, "compare_branches", {"repo": repo, "base": "main", "head": compared["head_sha"][:10]})
    assert same["status"] == "identical" and same["commits"] == [] and same["files"] == []
    spike = next(b for b in ok(session, "list_branches", {"repo": repo, "query": "spike/"})["branches"])
    diverged = ok(session, "compare_branches", {"repo": repo, "base": "main", "head": spike["name"]})
    assert diverged["status"] == "diverged" and diverged["ahead_by"] >= 1
    assert diverged["additions"] == sum(c["additions"] for c in diverged["commits"])


def test_contributor_stats_agree_with_the_history(session: ToolSession) -> None:
    args = {"repo": "infra", "since": "2025-03-01", "until": "2025-09-01"}
    stats = ok(session, "contributor_stats", args)
    listed = [c for c in all_pages(session, "list_commits", "commits", args) if len(c["parents"]) == 1]
    per_author = Counter(c["author"]["id"] for c in listed)
    assert {c["author"]["id"]: c["commits"] for c in stats["contributors"]} == dict(per_author)
    assert stats["total_commits"] == len(listed)
    assert [c["commits"] for c in stats["contributors"]] == sorted(per_author.values(), reverse=True)


def test_repository_counts_agree_with_the_listings(session: ToolSession) -> None:
    repos = ok(session, "list_repositories")["repositories"]
    assert [r["name"] for r in repos] == sorted(plan.name for plan in REPOS)
    for summary in repos:
        repo = summary["name"]
        detail = ok(session, "get_repository", {"repo": repo})
        plan = next(p for p in REPOS if p.name == repo)
        assert detail["my_permission"] == plan.my_permission and detail["merge_methods"] == list(plan.merge_methods)
        assert detail["open_pull_requests"] == ok(session, "search_pull_requests", {"repo": repo})["total"]
        assert detail["open_issues"] == ok(session, "search_issues", {"repo": repo})["total"]
        branches = all_pages(session, "list_branches", "branches", {"repo": repo})
        assert detail["branch_count"] == len(branches) and branches[0]["name"] == detail["default_branch"]
        assert detail["protected_branches"] == [b["name"] for b in branches if b["protected"]]
        assert detail["last_commit"] == branches[0]["head"]
        assert detail["default_branch_commits"] == ok(session, "list_commits", {"repo": repo, "per_page": 1})["total"]
        collaborators = all_pages(session, "list_collaborators", "collaborators", {"repo": repo})
        assert detail["collaborator_count"] == len(collaborators)
        assert [RANK[c["permission"]] for c in collaborators] == sorted((RANK[c["permission"]] for c in collaborators),
                                                                       reverse=True)
    typescript = ok(session, "list_repositories", {"language": "typescript"})["repositories"]
    assert {r["name"] for r in typescript} == {p.name for p in REPOS if p.language == "TypeScript"}
    tagged = ok(session, "list_repositories", {"topic": "python"})["repositories"]
    assert tagged and all("python" in r["topics"] for r in tagged)


def test_issue_search_filters(session: ToolSession) -> None:
    every = all_pages(session, "search_issues", "issues", {"state": "all"})
    assert len(every) == rows(0, "SELECT count(*) FROM issues")[0][0]
    bugs = all_pages(session, "search_issues", "issues", {"state": "all", "label": ["bug"]})
    assert bugs and {(i["repo"], i["number"]) for i in bugs} == {(i["repo"], i["number"]) for i in every if "bug" in i["labels"]}
    person = next(i["assignees"][0]["id"] for i in every if i["assignees"])
    assigned = all_pages(session, "search_issues", "issues", {"state": "all", "assignee_id": person})
    assert {(i["repo"], i["number"]) for i in assigned} == {(i["repo"], i["number"]) for i in every
                                                           if person in [a["id"] for a in i["assignees"]]}
    closed = all_pages(session, "search_issues", "issues", {"state": "closed"})
    assert closed and all(i["state_reason"] in ("completed", "not_planned") and i["closed_at"] for i in closed)


# ---------------------------------------------------------------- writes


def changed_tables(session: ToolSession) -> Counter[tuple[str, str]]:
    return Counter((change.table, change.op) for change in session.diff())


def test_branch_push_pull_request_review_flow(session: ToolSession) -> None:
    repo = "design-system"
    branch = ok(session, "create_branch", {"repo": repo, "branch": "feature/tooltip-delay"})
    main = ok(session, "list_branches", {"repo": repo, "per_page": 1})["branches"][0]
    assert branch["head"] == main["head"] and not branch["protected"]
    fails(session, "create_pull_request", {"repo": repo, "title": "Tooltip delay", "head": "feature/tooltip-delay"},
          "invalid_arguments")
    pushed = ok(session, "push_commit", {"repo": repo, "branch": "feature/tooltip-delay", "message": "Add a tooltip delay",
                                         "files": [{"path": "packages/components/src/Tooltip.tsx", "additions": 12, "deletions": 3}]})
    assert pushed["parents"] == [main["head"]["sha"]] and pushed["author"]["id"] == ME
    assert [c["status"] for c in pushed["checks"]] == ["pending"] * 3
    assert changed_tables(session) == Counter({("branches", "insert"): 1, ("commits", "insert"): 1,
                                               ("commit_parents", "insert"): 1, ("commit_files", "insert"): 1,
                                               ("check_runs", "insert"): 3})
    pr = ok(session, "create_pull_request", {"repo": repo, "title": "WEB-77: Tooltip delay", "head": "feature/tooltip-delay",
                                             "labels": ["enhancement"]})
    assert pr["issue_key"] == "WEB-77" and pr["base"] == "main" and pr["state"] == "open"
    numbers = [p["number"] for p in every_pull_request() if p["repo"] == repo]
    issues = ok(session, "search_issues", {"repo": repo, "state": "all", "per_page": 100})["issues"]
    assert pr["number"] == max(numbers + [i["number"] for i in issues]) + 1
    fails(session, "create_pull_request", {"repo": repo, "title": "Again", "head": "feature/tooltip-delay"}, "invalid_arguments")
    detail = ok(session, "get_pull_request", {"repo": repo, "number": pr["number"]})
    assert detail["commits"] == 1 and detail["changed_files"] == 1 and detail["pending_checks"] == ["build", "lint", "visual-tests"]
    assert not detail["mergeable"] and "required check build is still running" in detail["blockers"]
    reviewers = ok(session, "list_collaborators", {"repo": repo, "permission": ["write"]})["collaborators"]
    asked = ok(session, "request_review", {"repo": repo, "number": pr["number"], "reviewer_ids": [reviewers[0]["id"]]})
    before = session.state_hash()
    again = ok(session, "request_review", {"repo": repo, "number": pr["number"], "reviewer_ids": [reviewers[0]["id"]]})
    assert again == asked and session.state_hash() == before
    second = ok(session, "push_commit", {"repo": repo, "branch": "feature/tooltip-delay", "message": "Address review",
                                         "files": [{"path": "stories/Button.stories.tsx", "additions": 4, "deletions": 0}]})
    assert second["pull_requests"] == [pr["number"]]
    detail = ok(session, "get_pull_request", {"repo": repo, "number": pr["number"]})
    assert detail["commits"] == 2 and detail["head_sha"] == second["sha"] and detail["additions"] == 16


@pytest.mark.parametrize(("repo", "method", "added"), [("design-system", "squash", 1), ("mobile-app", "merge", 1),
                                                        ("mobile-app", "rebase", None)])
def test_merging_moves_the_base_branch(session: ToolSession, repo: str, method: str, added: int | None) -> None:
    pr = mergeable(session, repo)
    base = ok(session, "list_branches", {"repo": repo, "per_page": 1})["branches"][0]["head"]
    merged = ok(session, "merge_pull_request", {"repo": repo, "number": pr["number"], "method": method})
    assert merged["commits_added"] == (added or pr["commits"]) and merged["merged_by"]["id"] == ME
    history_now = ok(session, "list_commits", {"repo": repo, "per_page": 100})["commits"]
    assert history_now[0]["sha"] == merged["merge_commit_sha"]
    top = history_now[0]
    if method == "merge":
        assert top["parents"] == [base["sha"], pr["head_sha"]] and top["author"]["id"] == ME
    else:
        assert history_now[merged["commits_added"]]["sha"] == base["sha"]
        assert all(len(c["parents"]) == 1 for c in history_now[:merged["commits_added"]])
    if method == "squash":
        assert top["message"] == f"{pr['title']} (#{pr['number']})" and top["author"] == pr["author"]
        assert (top["additions"], top["deletions"], top["changed_files"]) == (pr["additions"], pr["deletions"], pr["changed_files"])
    after = ok(session, "get_pull_request", {"repo": repo, "number": pr["number"]})
    assert after["state"] == "merged" and after["merge_commit_sha"] == merged["merge_commit_sha"]
    assert after["blockers"] == [f"it was already merged on {after['merged_at']}"]
    tables = changed_tables(session)
    assert tables[("pull_requests", "update")] == 1 and tables[("branches", "update")] == 1
    assert tables[("commits", "insert")] == merged["commits_added"]
    message = fails(session, "merge_pull_request", {"repo": repo, "number": pr["number"], "method": method}, "forbidden")
    assert "already merged" in message


def test_reviews_count_each_reviewers_latest_verdict(session: ToolSession) -> None:
    repo = "design-system"
    pr = next(p for p in open_prs(session, repo) if not p["draft"] and p["author"]["id"] != ME and p["approvals"] == 0
              and not p["changes_requested_by"])
    requested = ok(session, "request_review", {"repo": repo, "number": pr["number"], "reviewer_ids": [ME]})
    assert ME in [u["id"] for u in requested["requested_reviewers"]]
    sent_back = ok(session, "submit_review", {"repo": repo, "number": pr["number"], "event": "request_changes",
                                              "body": "Please add a story."})
    assert sent_back["approvals"] == 0
    detail = ok(session, "get_pull_request", {"repo": repo, "number": pr["number"]})
    assert [u["id"] for u in detail["changes_requested_by"]] == [ME] and ME not in [u["id"] for u in detail["requested_reviewers"]]
    ok(session, "submit_review", {"repo": repo, "number": pr["number"], "event": "comment", "body": "Thinking about it."})
    assert ok(session, "get_pull_request", {"repo": repo, "number": pr["number"]})["changes_requested_by"][0]["id"] == ME
    approved = ok(session, "submit_review", {"repo": repo, "number": pr["number"], "event": "approve"})
    assert approved["approvals"] == 1 == approved["required_approvals"]
    detail = ok(session, "get_pull_request", {"repo": repo, "number": pr["number"]})
    assert detail["changes_requested_by"] == [] and [r["state"] for r in detail["reviews"][-3:]] == [
        "changes_requested", "commented", "approved"]


def test_closing_reopening_and_draft_status(session: ToolSession) -> None:
    repo = "design-system"
    pr = next(p for p in open_prs(session, repo) if not p["draft"])
    closed = ok(session, "update_pull_request", {"repo": repo, "number": pr["number"], "state": "closed"})
    assert closed["state"] == "closed" and closed["closed_at"] == format_timestamp(session.context.now)
    assert pr["number"] not in [p["number"] for p in ok(session, "search_pull_requests", {"repo": repo})["pull_requests"]]
    fails(session, "update_pull_request", {"repo": repo, "number": pr["number"], "draft": True}, "forbidden")
    reopened = ok(session, "update_pull_request", {"repo": repo, "number": pr["number"], "state": "open", "draft": True,
                                                   "title": "Renamed"})
    assert (reopened["state"], reopened["draft"], reopened["title"], reopened["closed_at"]) == ("open", True, "Renamed", None)
    assert "it is a draft; mark it ready for review first" in ok(session, "get_pull_request",
                                                                 {"repo": repo, "number": pr["number"]})["blockers"]
    assert changed_tables(session) == Counter({("pull_requests", "update"): 1})


def test_branches_issues_releases_and_permissions(session: ToolSession) -> None:
    repo = "design-system"
    stale = next(b for b in all_pages(session, "list_branches", "branches", {"repo": repo})
                 if not b["protected"] and not b["open_pull_requests"] and b["name"] != "main")
    deleted = ok(session, "delete_branch", {"repo": repo, "branch": stale["name"]})
    assert deleted["head"] == stale["head"]
    fails(session, "list_commits", {"repo": repo, "ref": stale["name"]}, "not_found")
    restored = ok(session, "create_branch", {"repo": repo, "branch": stale["name"], "from_ref": stale["head"]["sha"][:9]})
    assert restored["head"] == stale["head"]
    assert changed_tables(session) == Counter({("branches", "delete"): 1, ("branches", "insert"): 1})
    issue = ok(session, "create_issue", {"repo": repo, "title": "Tabs lose focus", "body": "Steps: ...", "labels": ["bug"],
                                         "assignee_ids": [2, 2]})
    assert issue["labels"] == ["bug"] and [a["id"] for a in issue["assignees"]] == [2] and issue["author"]["id"] == ME
    comment = ok(session, "comment_on_issue", {"repo": repo, "number": issue["number"], "body": "On it."})
    assert comment["author"]["id"] == ME
    closed = ok(session, "close_issue", {"repo": repo, "number": issue["number"], "reason": "not_planned", "comment": "Dup."})
    assert (closed["state"], closed["state_reason"], closed["comments"]) == ("closed", "not_planned", 2)
    assert "already closed" in fails(session, "close_issue", {"repo": repo, "number": issue["number"]}, "invalid_arguments")
    release = ok(session, "create_release", {"repo": repo, "tag": "v9.0.0", "notes": "Big one.", "target": "main"})
    assert release["sha"] == ok(session, "list_branches", {"repo": repo, "per_page": 1})["branches"][0]["head"]["sha"]
    assert ok(session, "list_releases", {"repo": repo, "per_page": 1})["releases"][0]["tag"] == "v9.0.0"
    assert "never reused" in fails(session, "create_release", {"repo": repo, "tag": "v9.0.0"}, "invalid_arguments")
    newcomer = next(u for u in range(2, 41) if u not in [c["id"] for c in all_pages(
        session, "list_collaborators", "collaborators", {"repo": repo})])
    added = ok(session, "set_collaborator_permission", {"repo": repo, "user_id": newcomer, "permission": "write"})
    assert added["previous_permission"] is None and added["permission"] == "write"
    before = session.state_hash()
    assert ok(session, "set_collaborator_permission", {"repo": repo, "user_id": newcomer, "permission": "write"}
              )["previous_permission"] == "write"
    assert session.state_hash() == before


def test_the_branch_restored_is_listed_again(session: ToolSession) -> None:
    repo = "docs-site"
    main = ok(session, "list_branches", {"repo": repo, "per_page": 1})["branches"][0]
    assert not main["protected"]
    pushed = ok(session, "push_commit", {"repo": repo, "branch": "main", "message": "Fix a typo",
                                         "files": [{"path": "docs/sso.mdx", "additions": 1, "deletions": 1}]})
    assert ok(session, "list_commits", {"repo": repo, "per_page": 1})["commits"][0]["sha"] == pushed["sha"]
    assert ok(session, "list_commits", {"repo": repo, "path": "docs/sso.mdx", "per_page": 1})["commits"][0]["sha"] == pushed["sha"]


# ---------------------------------------------------------------- policy


def test_merges_wait_for_approvals_changes_checks_and_drafts(session: ToolSession) -> None:
    for words, rule in (("required approvals", "required approvals"), ("changes were requested", "changes were requested"),
                        ("failed", "failed"), ("still running", "still running"), ("draft", "draft")):
        repo, pr = blocked_by(session, words)
        method = ok(session, "get_repository", {"repo": repo})["merge_methods"][0]
        message = fails(session, "merge_pull_request", {"repo": repo, "number": pr["number"], "method": method}, "forbidden")
        assert rule in message and "merges only when open" in message


def test_merges_use_only_the_repositorys_methods(session: ToolSession) -> None:
    pr = mergeable(session, "web-app")
    message = fails(session, "merge_pull_request", {"repo": "web-app", "number": pr["number"], "method": "merge"}, "forbidden")
    assert "allows only squash merges" in message


def test_permissions_bound_what_you_may_do(session: ToolSession) -> None:
    billing = open_prs(session, "billing-service")[0]
    assert "needs write permission" in fails(session, "merge_pull_request", {
        "repo": "billing-service", "number": billing["number"], "method": "merge"}, "forbidden")
    assert "needs write permission" in fails(session, "push_commit", {
        "repo": "billing-service", "branch": billing["head"], "message": "x",
        "files": [{"path": "pom.xml", "additions": 1, "deletions": 0}]}, "forbidden")
    assert "needs triage permission" in fails(session, "request_review", {
        "repo": "billing-service", "number": billing["number"], "reviewer_ids": [billing["author"]["id"] + 1]}, "forbidden")
    assert "needs triage permission" in fails(session, "create_issue", {
        "repo": "billing-service", "title": "x", "labels": ["bug"]}, "forbidden")
    ok(session, "create_issue", {"repo": "billing-service", "title": "Refund rounding"})
    session.reset()
    other = ok(session, "search_issues", {"repo": "billing-service"})["issues"][0]
    assert "needs triage permission" in fails(session, "close_issue", {"repo": "billing-service", "number": other["number"]},
                                              "forbidden")
    support = open_prs(session, "support-tools")[0]
    assert "needs write permission" in fails(session, "merge_pull_request", {
        "repo": "support-tools", "number": support["number"], "method": "squash"}, "forbidden")
    assert "needs admin permission" in fails(session, "set_collaborator_permission", {
        "repo": "mobile-app", "user_id": 2, "permission": "write"}, "forbidden")
    assert "needs write permission" in fails(session, "create_release", {"repo": "support-tools", "tag": "v1.0.0"}, "forbidden")


def test_protected_and_busy_branches_are_kept(session: ToolSession) -> None:
    assert "takes no direct pushes" in fails(session, "push_commit", {
        "repo": "web-app", "branch": "main", "message": "hotfix",
        "files": [{"path": "src/api/auth.ts", "additions": 1, "deletions": 1}]}, "forbidden")
    assert "default branch" in fails(session, "delete_branch", {"repo": "docs-site", "branch": "main"}, "forbidden")
    release = next(b for b in ok(session, "list_branches", {"repo": "web-app", "protected": True})["branches"] if not b["default"])
    assert "protected" in fails(session, "delete_branch", {"repo": "web-app", "branch": release["name"]}, "forbidden")
    busy = next(p for p in open_prs(session, "web-app"))
    assert f"#{busy['number']}" in fails(session, "delete_branch", {"repo": "web-app", "branch": busy["head"]}, "forbidden")


def test_authors_and_drafts_are_not_approved(session: ToolSession) -> None:
    repo, pr = next((plan.name, pr) for plan in REPOS for pr in open_prs(session, plan.name)
                    if pr["author"]["id"] == ME and not pr["draft"])
    for event in ("approve", "request_changes"):
        assert "their own pull requests" in fails(session, "submit_review", {
            "repo": repo, "number": pr["number"], "event": event, "body": "ok"}, "forbidden")
    ok(session, "submit_review", {"repo": repo, "number": pr["number"], "event": "comment", "body": "Note to self."})
    session.reset()
    repo, draft = next((plan.name, pr) for plan in REPOS for pr in open_prs(session, plan.name)
                       if pr["draft"] and pr["author"]["id"] != ME)
    assert "draft" in fails(session, "submit_review", {"repo": repo, "number": draft["number"], "event": "approve"}, "forbidden")
    assert "needs a body" in fails(session, "submit_review", {"repo": repo, "number": draft["number"], "event": "comment"},
                                   "invalid_arguments")


def test_reviewers_need_write_and_are_not_the_author(session: ToolSession) -> None:
    repo = "design-system"
    pr = next(p for p in open_prs(session, repo) if p["author"]["id"] != ME)
    assert "authors do not review" in fails(session, "request_review", {
        "repo": repo, "number": pr["number"], "reviewer_ids": [pr["author"]["id"]]}, "forbidden")
    reader = ok(session, "list_collaborators", {"repo": repo, "permission": ["read", "triage"]})["collaborators"][0]
    assert "need write permission" in fails(session, "request_review", {
        "repo": repo, "number": pr["number"], "reviewer_ids": [reader["id"]]}, "forbidden")
    stranger = next(u for u in range(2, 41) if u not in [c["id"] for c in all_pages(
        session, "list_collaborators", "collaborators", {"repo": repo})])
    assert "no access" in fails(session, "request_review", {"repo": repo, "number": pr["number"], "reviewer_ids": [stranger]},
                                "forbidden")
    assert "only to collaborators" in fails(session, "create_issue", {"repo": repo, "title": "x", "assignee_ids": [stranger]},
                                            "forbidden")


def test_merged_pull_requests_stay_merged_and_deleted_branches_stay_closed(session: ToolSession) -> None:
    merged = next(p for p in every_pull_request() if p["state"] == "merged" and p["repo"] == "web-app")
    for change in ({"state": "closed"}, {"state": "open"}):
        message = fails(session, "update_pull_request", {"repo": "web-app", "number": merged["number"], **change}, "forbidden")
        assert "neither closed nor reopened" in message
    for review in ("approve", "comment"):
        fails(session, "submit_review", {"repo": "web-app", "number": merged["number"], "event": review, "body": "x"},
              "forbidden")
    branches = {b["name"] for b in all_pages(session, "list_branches", "branches", {"repo": "web-app"})}
    gone = next(p for p in every_pull_request() if p["state"] == "closed" and p["repo"] == "web-app" and p["head"] not in branches)
    assert "was deleted" in fails(session, "update_pull_request", {"repo": "web-app", "number": gone["number"], "state": "open"},
                                  "forbidden")


def test_a_closed_pull_request_waits_to_be_reopened_and_yields_to_an_open_one(session: ToolSession) -> None:
    repo = "design-system"
    pr = mergeable(session, repo)
    ok(session, "update_pull_request", {"repo": repo, "number": pr["number"], "state": "closed"})
    assert "closed; reopen it first" in fails(session, "merge_pull_request", {
        "repo": repo, "number": pr["number"], "method": "squash"}, "forbidden")
    assert "only open pull requests" in fails(session, "request_review", {
        "repo": repo, "number": pr["number"], "reviewer_ids": [pr["author"]["id"]]}, "forbidden")
    again = ok(session, "create_pull_request", {"repo": repo, "title": "Second try", "head": pr["head"]})
    message = fails(session, "update_pull_request", {"repo": repo, "number": pr["number"], "state": "open"}, "forbidden")
    assert f"#{again['number']} from the same branch is open" in message


def test_a_repository_keeps_an_admin(session: ToolSession) -> None:
    repo = "design-system"
    for admin in ok(session, "list_collaborators", {"repo": repo, "permission": ["admin"]})["collaborators"]:
        if admin["id"] != ME:
            ok(session, "set_collaborator_permission", {"repo": repo, "user_id": admin["id"], "permission": "write"})
    assert "last admin" in fails(session, "set_collaborator_permission", {"repo": repo, "user_id": ME, "permission": "write"},
                                 "forbidden")


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(("tool", "args", "code", "says"), [
    ("get_repository", {"repo": "nope"}, "not_found", "list_repositories"),
    ("get_repository", {"repo": "web app"}, "invalid_arguments", "repo"),
    ("get_pull_request", {"repo": "web-app", "number": 99999}, "not_found", "search_pull_requests"),
    ("get_pull_request", {"repo": "web-app", "number": 0}, "invalid_arguments", "number"),
    ("comment_on_issue", {"repo": "web-app", "number": 99999, "body": "x"}, "not_found", "search_issues"),
    ("list_commits", {"repo": "web-app", "ref": "no-such-branch"}, "not_found", "list_branches"),
    ("list_commits", {"repo": "web-app", "since": "2025-06-01", "until": "2025-05-01"}, "invalid_arguments", "earlier"),
    ("list_commits", {"repo": "web-app", "author_id": 99999}, "not_found", "get_user_by_email"),
    ("get_commit", {"repo": "web-app", "sha": "xyz1234"}, "invalid_arguments", "sha"),
    ("get_commit", {"repo": "web-app", "sha": "0000000000"}, "not_found", "list_commits"),
    ("compare_branches", {"repo": "web-app", "base": "main", "head": "nope"}, "not_found", "nope"),
    ("create_branch", {"repo": "web-app", "branch": "bad..name"}, "invalid_arguments", "branch"),
    ("create_branch", {"repo": "web-app", "branch": "-x"}, "invalid_arguments", "branch"),
    ("create_branch", {"repo": "web-app", "branch": "main"}, "invalid_arguments", "already exists"),
    ("push_commit", {"repo": "docs-site", "branch": "main", "message": "x",
                     "files": [{"path": "../etc/passwd", "additions": 1, "deletions": 0}]}, "invalid_arguments", "path"),
    ("push_commit", {"repo": "docs-site", "branch": "main", "message": "x",
                     "files": [{"path": "a.md", "additions": 0, "deletions": 0}]}, "invalid_arguments", "at least one line"),
    ("push_commit", {"repo": "docs-site", "branch": "main", "message": "x", "files": [
        {"path": "a.md", "additions": 1, "deletions": 0}, {"path": "a.md", "additions": 2, "deletions": 0}]},
     "invalid_arguments", "once"),
    ("push_commit", {"repo": "docs-site", "branch": "main", "message": "x", "files": []}, "invalid_arguments", "files"),
    ("create_release", {"repo": "web-app", "tag": "latest"}, "invalid_arguments", "tag"),
    ("create_issue", {"repo": "design-system", "title": "x", "labels": ["no-such-label"]}, "invalid_arguments", "label"),
    ("search_pull_requests", {"issue_key": "not a key"}, "invalid_arguments", "issue_key"),
    ("search_pull_requests", {"created_after": "2025-06-01", "created_before": "2025-06-01"}, "invalid_arguments", "earlier"),
    ("set_collaborator_permission", {"repo": "web-app", "user_id": 99999, "permission": "read"}, "not_found", "user"),
    ("set_collaborator_permission", {"repo": "web-app", "user_id": 2, "permission": "owner"}, "invalid_arguments", "permission"),
    ("get_user_by_email", {"email": "nobody@example.com"}, "not_found", "employees"),
    ("update_pull_request", {"repo": "design-system", "number": 86}, "invalid_arguments", "at least one"),
])
def test_bad_input_is_a_clear_error_and_changes_nothing(session: ToolSession, tool: str, args: dict[str, Any],
                                                        code: str, says: str) -> None:
    assert says in fails(session, tool, args, code)


def test_a_number_of_the_other_kind_says_so(session: ToolSession) -> None:
    issue = ok(session, "search_issues", {"repo": "design-system"})["issues"][0]
    assert "is an issue, not a pull request" in fails(session, "get_pull_request",
                                                      {"repo": "design-system", "number": issue["number"]}, "not_found")
    pr = ok(session, "search_pull_requests", {"repo": "design-system"})["pull_requests"][0]
    assert "is a pull request, not an issue" in fails(session, "close_issue", {"repo": "design-system", "number": pr["number"]},
                                                      "not_found")
