"""Domain behaviour of the projects server (a Jira-like tracker), through the same call path an
agent uses: the seeded world keeps the rules the tools enforce, reads and filters return what
they say, writes change exactly their rows, and every policy rule refuses with its reason and
changes nothing."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from datetime import datetime, timedelta
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpgym.servers.catalog import load_server
from mcpgym.servers.kernel.database import new_connection
from mcpgym.servers.kernel.fields import format_timestamp
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.spec import build_seeded
from mcpgym.servers.kernel.world import build_world
from mcpgym.servers.projects import SERVER
from mcpgym.servers.projects.models import STORY_POINTS
from mcpgym.servers.projects.workflow import STATUS_CATEGORIES, WORKFLOWS
from tool_calls import fails, ok

ACTING_USER_ID = 1
SEEDS = (0, 1, 7)


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


def all_issues(session: ToolSession, args: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    page: int | None = 1
    while page is not None:
        data = ok(session, "search_issues", {**(args or {}), "page": page, "per_page": 100})
        found += data["issues"]
        page = data["next_page"]
    return found


@cache
def everything() -> tuple[dict[str, Any], ...]:
    """Every issue of the seed-0 world as search_issues shows it (oldest first)."""
    with ToolSession(SERVER, 0) as session:
        return tuple(all_issues(session, {"sort_by": "created_at", "sort_order": "asc"}))


def sprint_of(seed: int, project: str, state: str) -> sqlite3.Row:
    found = rows(seed, "SELECT sprints.* FROM sprints JOIN projects ON projects.id = sprints.project_id "
                       "WHERE projects.key = ? AND sprints.state = ? ORDER BY sprints.id", (project, state))
    assert found, (project, state)
    return found[0]


def history(session: ToolSession, key: str) -> list[dict[str, Any]]:
    return ok(session, "get_issue_history", {"issue_key": key, "per_page": 100})["changes"]


# ---------------------------------------------------------------- the seeded world


@pytest.mark.parametrize("seed", SEEDS)
def test_the_seeded_world_has_the_volumes_of_a_small_real_tracker(seed: int) -> None:
    projects = {r["key"]: r for r in rows(seed, "SELECT * FROM projects")}
    assert set(projects) == {"SUP", "WEB", "API", "MOB", "DATA", "OPS"}
    assert {k for k, p in projects.items() if p["type"] == "kanban"} == {"SUP", "OPS"}
    issues = rows(seed, "SELECT count(*) AS n, min(created_at) AS first, max(created_at) AS last FROM issues")[0]
    assert 1000 <= issues["n"] <= 1500
    span = datetime.fromisoformat(issues["last"]) - datetime.fromisoformat(issues["first"])
    assert span > timedelta(days=365)
    for key in ("WEB", "API", "MOB", "DATA"):
        closed = rows(seed, "SELECT count(*) AS n FROM sprints JOIN projects ON projects.id = sprints.project_id "
                            "WHERE projects.key = ? AND state = 'closed'", (key,))[0]["n"]
        assert closed >= 12
    types = {r["type"] for r in rows(seed, "SELECT DISTINCT type FROM issues")}
    assert types == {"epic", "story", "task", "bug", "subtask"}
    for table in ("comments", "issue_changes", "issue_links", "sprint_issues", "issue_labels"):
        assert rows(seed, f"SELECT count(*) AS n FROM {table}")[0]["n"] > 100, table


@pytest.mark.parametrize("seed", SEEDS)
def test_every_status_in_the_seed_was_reached_along_the_workflow(seed: int) -> None:
    """Replaying each issue's status history from To Do walks only allowed transitions and
    ends at its status; resolution and resolved time go with the done statuses."""
    issues = {r["id"]: r for r in rows(seed, "SELECT issues.*, projects.workflow FROM issues "
                                              "JOIN projects ON projects.id = issues.project_id")}
    walked = {issue_id: "To Do" for issue_id in issues}
    for change in rows(seed, "SELECT * FROM issue_changes WHERE field = 'status' ORDER BY created_at, id"):
        issue = issues[change["issue_id"]]
        flow = WORKFLOWS[issue["workflow"]]
        assert change["from_value"] == walked[issue["id"]]
        assert flow.allows(change["from_value"], change["to_value"]), (issue["key"], change["from_value"], change["to_value"])
        walked[issue["id"]] = change["to_value"]
    for issue in issues.values():
        assert walked[issue["id"]] == issue["status"], issue["key"]
        resolved = STATUS_CATEGORIES[issue["status"]] == "done"
        assert (issue["resolution"] is not None) == resolved == (issue["resolved_at"] is not None), issue["key"]
        assert issue["resolution"] in (None, "Done", "Won't Do", "Duplicate", "Cannot Reproduce")
        assert (issue["resolution"] == "Done") == (issue["status"] == "Done")
        assert issue["created_at"] <= issue["updated_at"]
        assert issue["resolved_at"] is None or issue["created_at"] <= issue["resolved_at"]


@pytest.mark.parametrize("seed", SEEDS)
def test_the_seed_keeps_the_policy(seed: int) -> None:
    now = build_world(seed).now.isoformat(sep=" ")
    assert not rows(seed, "SELECT 1 FROM issues WHERE max(created_at, updated_at, coalesce(resolved_at, '')) > ?", (now,))
    for table in ("issue_changes", "comments", "issue_links"):
        column = "target_id" if table == "issue_links" else "issue_id"
        assert not rows(seed, f"SELECT 1 FROM {table} JOIN issues ON issues.id = {table}.{column} "
                              f"WHERE {table}.created_at < issues.created_at OR {table}.created_at > ?", (now,)), table
    # nothing Done waits on an unresolved blocker or subtask
    assert not rows(seed, "SELECT 1 FROM issue_links JOIN issues AS blocker ON blocker.id = issue_links.source_id "
                          "JOIN issues AS blocked ON blocked.id = issue_links.target_id WHERE issue_links.type = 'blocks' "
                          "AND blocked.status = 'Done' AND blocker.resolution IS NULL")
    assert not rows(seed, "SELECT 1 FROM issues AS child JOIN issues AS parent ON parent.id = child.parent_id "
                          "WHERE child.type = 'subtask' AND parent.status = 'Done' AND child.resolution IS NULL")
    # estimates, hierarchy and assignees
    for issue in rows(seed, "SELECT * FROM issues WHERE story_points IS NOT NULL"):
        assert issue["story_points"] in STORY_POINTS and issue["type"] not in ("epic", "subtask")
    assert not rows(seed, "SELECT 1 FROM issues AS child JOIN issues AS parent ON parent.id = child.parent_id WHERE "
                          "parent.project_id != child.project_id OR (child.type = 'subtask' AND parent.type NOT IN "
                          "('story', 'task', 'bug')) OR (child.type != 'subtask' AND parent.type != 'epic')")
    assert not rows(seed, "SELECT 1 FROM issues WHERE type = 'epic' AND parent_id IS NOT NULL")
    assert not rows(seed, "SELECT 1 FROM issues WHERE assignee_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM project_members "
                          "WHERE project_members.project_id = issues.project_id AND project_members.user_id = issues.assignee_id)")
    # sprints: one active at most, closed ones hold only resolved issues, completed means Done
    assert not rows(seed, "SELECT project_id FROM sprints WHERE state = 'active' GROUP BY project_id HAVING count(*) > 1")
    assert not rows(seed, "SELECT 1 FROM sprint_issues JOIN sprints ON sprints.id = sprint_issues.sprint_id JOIN issues "
                          "ON issues.id = sprint_issues.issue_id WHERE sprints.state = 'closed' AND sprint_issues.removed_at IS NULL "
                          "AND (issues.resolution IS NULL OR sprint_issues.completed != (issues.status = 'Done'))")
    assert not rows(seed, "SELECT 1 FROM sprint_issues JOIN issues ON issues.id = sprint_issues.issue_id "
                          "WHERE issues.project_id != (SELECT project_id FROM sprints WHERE id = sprint_issues.sprint_id) "
                          "OR issues.type IN ('epic', 'subtask')")
    assert not rows(seed, "SELECT issue_id FROM sprint_issues JOIN sprints ON sprints.id = sprint_issues.sprint_id "
                          "WHERE sprints.state != 'closed' AND removed_at IS NULL GROUP BY issue_id HAVING count(*) > 1")
    assert not rows(seed, "SELECT 1 FROM issue_links AS a JOIN issue_links AS b ON a.source_id = b.target_id "
                          "AND a.target_id = b.source_id WHERE a.type = 'blocks' AND b.type = 'blocks'")
    # keys number each project's issues in creation order
    for project in rows(seed, "SELECT id, key FROM projects"):
        numbered = rows(seed, "SELECT key, number FROM issues WHERE project_id = ? ORDER BY created_at, id", (project["id"],))
        assert [r["number"] for r in numbered] == list(range(1, len(numbered) + 1))
        assert all(r["key"] == f"{project['key']}-{r['number']}" for r in numbered)


@pytest.mark.parametrize("seed", SEEDS)
def test_each_scrum_team_is_where_its_phase_says(seed: int) -> None:
    """WEB and MOB are mid-sprint with work left; API's sprint ended and is ready to close;
    DATA is between sprints with the next one planned."""
    for key in ("WEB", "MOB"):
        active = sprint_of(seed, key, "active")
        assert rows(seed, "SELECT 1 FROM sprint_issues JOIN issues ON issues.id = issue_id WHERE sprint_id = ? "
                          "AND removed_at IS NULL AND resolution IS NULL", (active["id"],))
    api = sprint_of(seed, "API", "active")
    assert api["end_at"] < build_world(seed).now.isoformat(sep=" ")
    assert not rows(seed, "SELECT 1 FROM sprint_issues JOIN issues ON issues.id = issue_id WHERE sprint_id = ? "
                          "AND removed_at IS NULL AND resolution IS NULL", (api["id"],))
    assert not rows(seed, "SELECT 1 FROM sprints JOIN projects ON projects.id = project_id WHERE key = 'DATA' AND state = 'active'")
    upcoming = sprint_of(seed, "DATA", "future")
    assert rows(seed, "SELECT 1 FROM sprint_issues WHERE sprint_id = ? AND removed_at IS NULL", (upcoming["id"],))


def test_the_same_seed_builds_the_same_bytes() -> None:
    assert build_seeded(SERVER, 3) == build_seeded(SERVER, 3)
    assert SERVER.seeded(0).snapshot != SERVER.seeded(1).snapshot


# ---------------------------------------------------------------- the shared world and the help desk


@pytest.mark.parametrize("seed", (0, 1))
def test_users_are_the_worlds_employees(seed: int) -> None:
    world = build_world(seed)
    with ToolSession(SERVER, seed) as session:
        users = ok(session, "search_users", {"per_page": 100})
        assert users["total"] == len(world.employees)
        for index, person in enumerate(world.people):
            if not person.is_employee:
                if index % 40 == 0:  # customers are not tracker users
                    assert fails(session, "get_user_by_email", {"email": person.email}, "not_found")
                continue
            user = ok(session, "get_user_by_email", {"email": person.email.upper()})
            assert (user["id"], user["name"], user["email"], user["title"], user["timezone"], user["organization_name"]) == (
                index + 1, person.name, person.email, person.job_title, person.timezone, world.home.name)
        me = ok(session, "get_myself")
        assert me["id"] == ACTING_USER_ID and me["name"] == world.employees[0].name
        assert set(me["projects"]) == {"SUP", "WEB", "API", "MOB", "DATA", "OPS"}
        led = {p["key"] for p in ok(session, "list_projects")["projects"] if p["lead"]["id"] == ACTING_USER_ID}
        assert led == {"WEB", "API", "DATA"}


@pytest.mark.parametrize("seed", (0, 2))
def test_support_bugs_follow_the_help_desk_tickets_they_escalate(seed: int) -> None:
    """Each SUP bug names a real problem or incident ticket, copies its subject, was opened
    after it, and is found by the ticket number."""
    with closing(new_connection()) as zendesk:
        zendesk.deserialize(load_server("zendesk").seeded(seed).snapshot)
        tickets = {row[0]: row for row in zendesk.execute("SELECT id, subject, type, created_at, assignee_id FROM tickets")}
    bugs = rows(seed, "SELECT issues.* FROM issues JOIN projects ON projects.id = issues.project_id "
                      "WHERE projects.key = 'SUP' AND support_ticket_id IS NOT NULL")
    assert len(bugs) >= 150
    for bug in bugs:
        ticket_id, subject, type_, created, assignee = tickets[bug["support_ticket_id"]]
        assert type_ in ("problem", "incident") and bug["summary"] == subject and bug["type"] == "bug"
        assert bug["created_at"] > created and f"#{ticket_id}" in bug["description"]
        assert bug["reporter_id"] == (assignee or bug["reporter_id"])
    with ToolSession(SERVER, seed) as session:
        for bug in bugs[:: len(bugs) // 5]:
            found = ok(session, "search_issues", {"support_ticket_id": bug["support_ticket_id"]})
            assert [i["key"] for i in found["issues"]] == [bug["key"]]


# ---------------------------------------------------------------- reads


Predicate = Callable[[dict[str, Any]], bool]


def test_each_filter_keeps_exactly_the_matching_issues(session: ToolSession) -> None:
    issues = everything()
    assert len(issues) == len({i["key"] for i in issues}) == ok(session, "search_issues")["total"]
    sample = next(i for i in issues if i["assignee"] and i["labels"] and i["components"] and i["project_key"] == "WEB"
                  and i["parent_key"])
    active = sprint_of(0, "WEB", "active")
    cases: list[tuple[dict[str, Any], Predicate]] = [
        ({"project_key": "web"}, lambda i: i["project_key"] == "WEB"),
        ({"status": ["Blocked", "In Review"]}, lambda i: i["status"] in ("Blocked", "In Review")),
        ({"resolved": True}, lambda i: i["resolution"] is not None),
        ({"resolved": False, "type": ["bug"]}, lambda i: i["resolution"] is None and i["type"] == "bug"),
        ({"priority": ["highest"]}, lambda i: i["priority"] == "highest"),
        ({"assignee_id": sample["assignee"]["id"]}, lambda i: (i["assignee"] or {}).get("id") == sample["assignee"]["id"]),
        ({"unassigned": True}, lambda i: i["assignee"] is None),
        ({"reporter_id": sample["reporter"]["id"]}, lambda i: i["reporter"]["id"] == sample["reporter"]["id"]),
        ({"labels": sample["labels"]}, lambda i: set(sample["labels"]) <= set(i["labels"])),
        ({"component": sample["components"][0].upper()}, lambda i: sample["components"][0] in i["components"]),
        ({"sprint_id": active["id"]}, lambda i: (i["sprint"] or {}).get("id") == active["id"]),
        ({"parent_key": sample["parent_key"]}, lambda i: i["parent_key"] == sample["parent_key"]),
        ({"in_backlog": True}, lambda i: i["resolution"] is None and i["type"] not in ("epic", "subtask")
         and (i["sprint"] is None or i["sprint"]["state"] == "closed")),
    ]
    for args, keep in cases:
        expected = [i["key"] for i in issues if keep(i)]
        found = all_issues(session, {**args, "sort_by": "created_at", "sort_order": "asc"})
        assert expected, args
        assert [i["key"] for i in found] == expected, args


def test_date_filters_include_after_and_exclude_before(session: ToolSession) -> None:
    issues = everything()
    issue = next(i for i in issues[len(issues) // 2:] if i["resolved_at"])
    keys = lambda args: {i["key"] for i in all_issues(session, args)}  # noqa: E731
    at, done = issue["created_at"], issue["resolved_at"]
    assert issue["key"] in keys({"created_after": at}) and issue["key"] not in keys({"created_before": at})
    assert keys({"created_after": at}) | keys({"created_before": at}) == {i["key"] for i in issues}
    later = format_timestamp(datetime.strptime(done, "%Y-%m-%dT%H:%M:%SZ") + timedelta(seconds=1))
    assert keys({"resolved_after": done, "resolved_before": later}) == {i["key"] for i in issues if i["resolved_at"] == done}
    month = keys({"created_after": "2025-06-01", "created_before": "2025-07-01T00:00:00+00:00"})
    assert month == {i["key"] for i in issues if "2025-06-01" <= i["created_at"] < "2025-07-01"}
    assert fails(session, "search_issues", {"created_after": at, "created_before": at}, "invalid_arguments")


def test_text_search_needs_every_word_in_the_summary_or_description(session: ToolSession) -> None:
    found = all_issues(session, {"query": "BLANK dashboard"})
    assert found
    for issue in found:
        detail = ok(session, "get_issue", {"issue_key": issue["key"]})
        text = f"{detail['summary']} {detail['description']}".lower()
        assert "dashboard" in text and "blank" in text
    assert ok(session, "search_issues", {"query": "100%_off"})["total"] == 0


def test_sorting_and_pages(session: ToolSession) -> None:
    by_priority = all_issues(session, {"project_key": "WEB", "sort_by": "priority", "sort_order": "asc"})
    order = ["highest", "high", "medium", "low", "lowest"]
    assert [order.index(i["priority"]) for i in by_priority] == sorted(order.index(i["priority"]) for i in by_priority)
    by_key = all_issues(session, {"project_key": "API", "sort_by": "key", "sort_order": "asc"})
    assert [int(i["key"].split("-")[1]) for i in by_key] == list(range(1, len(by_key) + 1))
    by_points = all_issues(session, {"project_key": "MOB", "sort_by": "story_points", "sort_order": "desc"})
    points = [i["story_points"] for i in by_points]
    estimated = [p for p in points if p is not None]
    assert estimated == sorted(estimated, reverse=True) and points == estimated + [None] * (len(points) - len(estimated))
    first = ok(session, "search_issues", {"project_key": "SUP", "per_page": 7})
    second = ok(session, "search_issues", {"project_key": "SUP", "per_page": 7, "page": 2})
    assert first["next_page"] == 2 and not {i["key"] for i in first["issues"]} & {i["key"] for i in second["issues"]}
    past = ok(session, "search_issues", {"project_key": "SUP", "page": 999})
    assert past["issues"] == [] and past["total"] == first["total"] and past["next_page"] is None


FILTER_VALUES: dict[str, Any] = {
    "project_key": st.sampled_from(["SUP", "WEB", "API", "MOB", "DATA", "OPS"]),
    "status": st.lists(st.sampled_from(list(STATUS_CATEGORIES)), min_size=1, max_size=3, unique=True),
    "type": st.lists(st.sampled_from(["epic", "story", "task", "bug", "subtask"]), min_size=1, max_size=2, unique=True),
    "priority": st.lists(st.sampled_from(["highest", "high", "medium", "low", "lowest"]), min_size=1, max_size=2, unique=True),
    "resolved": st.booleans(),
    "assignee_id": st.integers(1, 40),
    "labels": st.lists(st.sampled_from(["regression", "frontend", "backend", "customer-reported", "ux"]), min_size=1, max_size=2),
    "unassigned": st.just(True),
}


def keeps(issue: dict[str, Any], filters: dict[str, Any]) -> bool:
    """Whether an issue matches the filters, computed from its summary alone."""
    checks = {
        "project_key": lambda v: issue["project_key"] == v,
        "status": lambda v: issue["status"] in v,
        "type": lambda v: issue["type"] in v,
        "priority": lambda v: issue["priority"] in v,
        "resolved": lambda v: (issue["resolution"] is not None) == v,
        "assignee_id": lambda v: (issue["assignee"] or {}).get("id") == v,
        "labels": lambda v: set(v) <= set(issue["labels"]),
        "unassigned": lambda v: issue["assignee"] is None,
    }
    return all(checks[name](value) for name, value in filters.items())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_combination_of_filters_returns_exactly_the_issues_matching_all(session: ToolSession, data: st.DataObject) -> None:
    names = data.draw(st.lists(st.sampled_from(sorted(FILTER_VALUES)), max_size=4, unique=True))
    if "unassigned" in names and "assignee_id" in names:
        names.remove("unassigned")
    filters = {name: data.draw(FILTER_VALUES[name]) for name in names}
    found = all_issues(session, filters)
    expected = [i["key"] for i in everything() if keeps(i, filters)]
    assert sorted(i["key"] for i in found) == sorted(expected)
    assert all(keeps(i, filters) for i in found)


def test_get_issue_shows_children_links_and_the_inverse_relation(session: ToolSession) -> None:
    link = rows(0, "SELECT a.key AS blocker, b.key AS blocked FROM issue_links JOIN issues AS a ON a.id = source_id "
                   "JOIN issues AS b ON b.id = target_id WHERE issue_links.type = 'blocks' ORDER BY issue_links.id")[0]
    blocked = ok(session, "get_issue", {"issue_key": link["blocked"]})
    blocker = ok(session, "get_issue", {"issue_key": link["blocker"].lower()})
    assert {"relation": "is blocked by", "key": link["blocker"]} in [
        {"relation": x["relation"], "key": x["issue"]["key"]} for x in blocked["links"]]
    assert {"relation": "blocks", "key": link["blocked"]} in [
        {"relation": x["relation"], "key": x["issue"]["key"]} for x in blocker["links"]]
    epic = next(i for i in everything() if i["type"] == "epic" and i["project_key"] == "WEB")
    children = ok(session, "get_issue", {"issue_key": epic["key"]})["children"]
    assert {c["key"] for c in children} == {i["key"] for i in everything() if i["parent_key"] == epic["key"]}
    assert children and all(c["type"] in ("story", "task", "bug") for c in children)


def test_comments_and_history_read_in_time_order(session: ToolSession) -> None:
    busy = rows(0, "SELECT issues.key, count(*) AS n FROM comments JOIN issues ON issues.id = issue_id "
                   "GROUP BY issue_id ORDER BY n DESC, issues.id LIMIT 1")[0]
    comments = ok(session, "list_comments", {"issue_key": busy["key"], "per_page": 100})
    assert comments["total"] == busy["n"] == len(comments["comments"])
    times = [c["created_at"] for c in comments["comments"]]
    assert times == sorted(times)
    newest = ok(session, "list_comments", {"issue_key": busy["key"], "sort_order": "desc", "per_page": 1})
    assert newest["comments"][0]["id"] == comments["comments"][-1]["id"]
    done = next(i for i in everything() if i["status"] == "Done" and i["project_key"] == "WEB" and i["type"] == "story")
    statuses = ok(session, "get_issue_history", {"issue_key": done["key"], "field": "status"})["changes"]
    assert [c["to_value"] for c in statuses] == ["In Progress", "In Review", "Done"]
    assert [c["created_at"] for c in statuses] == sorted(c["created_at"] for c in statuses)


def test_projects_workflows_and_users(session: ToolSession) -> None:
    projects = ok(session, "list_projects")["projects"]
    assert [p["key"] for p in projects] == sorted(p["key"] for p in projects)
    assert {p["key"] for p in ok(session, "list_projects", {"type": "kanban"})["projects"]} == {"SUP", "OPS"}
    assert [p["key"] for p in ok(session, "list_projects", {"query": "mobile"})["projects"]] == ["MOB"]
    web = ok(session, "get_project", {"project_key": "web"})
    assert web["lead"]["id"] == ACTING_USER_ID and web["members"][0]["role"] == "lead"
    assert web["active_sprint"]["state"] == "active"
    assert sum(web["issues_by_status"].values()) == web["total_issues"] == next(p for p in projects if p["key"] == "WEB")["total_issues"]
    flow = ok(session, "get_workflow", {"project_key": "SUP"})
    assert flow["workflow"] == "Service" and "In Review" not in [s["name"] for s in flow["statuses"]]
    review = next(i for i in everything() if i["status"] == "In Review")
    allowed = ok(session, "get_workflow", {"issue_key": review["key"]})
    assert allowed["allowed_next"] == ["In Progress", "Blocked", "Done"] and allowed["issue"]["key"] == review["key"]
    members = ok(session, "search_users", {"project_key": "DATA", "per_page": 100})["users"]
    assert {m["id"] for m in members} == {m["id"] for m in ok(session, "get_project", {"project_key": "DATA"})["members"]}
    assert all("DATA" in m["projects"] for m in members)
    assert [u["name"] for u in ok(session, "search_users", {"per_page": 100})["users"]] == sorted(
        u["name"] for u in ok(session, "search_users", {"per_page": 100})["users"])


def test_sprint_report_velocity_and_workload_agree_with_the_issues(session: ToolSession) -> None:
    closed = rows(0, "SELECT sprints.id FROM sprints JOIN projects ON projects.id = project_id "
                     "WHERE key = 'WEB' AND state = 'closed' ORDER BY completed_at DESC, sprints.id DESC")
    report = ok(session, "sprint_report", {"sprint_id": closed[0]["id"]})
    done = [i for i in report["issues"] if i["completed"]]
    assert report["completed_issues"] == len(done) and all(i["status"] == "Done" for i in done)
    assert report["completed_points"] == sum(i["story_points"] or 0 for i in done)
    in_sprint = {i["key"] for i in all_issues(session, {"sprint_id": closed[0]["id"]})}
    assert in_sprint == {i["key"] for i in report["issues"] if not i["removed"]}
    velocity = ok(session, "velocity_report", {"project_key": "WEB", "sprints": 4})
    assert [s["sprint_id"] for s in velocity["sprints"]] == [r["id"] for r in closed[:4]]
    assert velocity["sprints"][0]["completed_points"] == report["completed_points"]
    assert velocity["sprints"][0]["committed_points"] == report["committed_points"]
    assert velocity["average_completed_points"] == round(sum(s["completed_points"] for s in velocity["sprints"]) / 4, 1)
    assert fails(session, "velocity_report", {"project_key": "OPS"}, "invalid_arguments")
    load = ok(session, "workload_report", {"project_key": "MOB"})
    open_mob = [i for i in everything() if i["project_key"] == "MOB" and i["resolution"] is None and i["type"] != "epic"]
    assert load["open_issues"] == len(open_mob) == sum(r["open_issues"] for r in load["assignees"])
    points = [r["open_points"] for r in load["assignees"] if r["assignee"]]
    assert points == sorted(points, reverse=True)
    for row in load["assignees"]:
        mine = [i for i in open_mob if (i["assignee"] or {}).get("id") == (row["assignee"] or {}).get("id")]
        assert row["open_issues"] == len(mine) and row["open_points"] == sum(i["story_points"] or 0 for i in mine)


# ---------------------------------------------------------------- writes


def test_create_issue_writes_its_rows_and_reads_back_the_same(session: ToolSession) -> None:
    future = sprint_of(0, "WEB", "future")
    epic = next(i for i in everything() if i["type"] == "epic" and i["project_key"] == "WEB")
    last = max(int(i["key"].split("-")[1]) for i in everything() if i["project_key"] == "WEB")
    created = ok(session, "create_issue", {
        "project_key": "web", "type": "story", "summary": "As a user, I can export a chart", "story_points": 8,
        "labels": ["frontend", "ux", "frontend"], "components": ["dashboard", "Reports"], "parent_key": epic["key"],
        "sprint_id": future["id"], "assignee_id": 5, "priority": "high", "description": "Export any chart as PNG."})
    assert created["key"] == f"WEB-{last + 1}" and created["status"] == "To Do" and created["reporter"]["id"] == ACTING_USER_ID
    assert created["labels"] == ["frontend", "ux"] and created["components"] == ["Dashboard", "Reports"]
    assert created["sprint"] == {"id": future["id"], "name": future["name"], "state": "future"}
    assert created == ok(session, "get_issue", {"issue_key": created["key"]})
    changes = {(c.table, c.op) for c in session.diff()}
    assert changes == {("issues", "insert"), ("issue_labels", "insert"), ("issue_components", "insert"), ("sprint_issues", "insert")}
    assert created["key"] in {c["key"] for c in ok(session, "get_issue", {"issue_key": epic["key"]})["children"]}
    sub = ok(session, "create_issue", {"project_key": "WEB", "type": "subtask", "summary": "Write tests", "parent_key": created["key"]})
    assert sub["parent_key"] == created["key"] and sub["key"] == f"WEB-{last + 2}"


def test_update_issue_changes_only_the_fields_given_and_records_each(session: ToolSession) -> None:
    issue = next(i for i in everything() if i["project_key"] == "WEB" and i["type"] == "bug" and i["resolution"] is None)
    before = ok(session, "get_issue", {"issue_key": issue["key"]})
    after = ok(session, "update_issue", {"issue_key": issue["key"], "priority": "lowest", "story_points": 13,
                                         "labels": ["security", "backend"], "components": ["Search"]})
    assert (after["priority"], after["story_points"], after["labels"], after["components"]) == (
        "lowest", 13, ["backend", "security"], ["Search"])
    assert {k: v for k, v in after.items() if k not in ("priority", "story_points", "labels", "components", "updated_at")} == {
        k: v for k, v in before.items() if k not in ("priority", "story_points", "labels", "components", "updated_at")}
    assert after["updated_at"] == format_timestamp(session.context.now)
    recorded = {c["field"]: (c["from_value"], c["to_value"]) for c in history(session, issue["key"])
                if c["created_at"] == after["updated_at"]}
    assert recorded["priority"] == (before["priority"], "lowest") and recorded["story_points"][1] == "13"
    assert recorded["labels"][1] == "backend, security" and recorded["components"] == (", ".join(before["components"]) or None, "Search")
    assert all(change.table in ("issues", "issue_labels", "issue_components", "issue_changes") for change in session.diff())
    assert fails(session, "update_issue", {"issue_key": issue["key"]}, "invalid_arguments")


def test_transitions_resolve_and_reopen_with_history(session: ToolSession) -> None:
    issue = next(i for i in everything() if i["project_key"] == "OPS" and i["status"] == "To Do")
    ok(session, "transition_issue", {"issue_key": issue["key"], "status": "In Progress"})
    done = ok(session, "transition_issue", {"issue_key": issue["key"], "status": "Done", "comment": "Rolled out."})
    now = format_timestamp(session.context.now)
    assert (done["status"], done["resolution"], done["resolved_at"]) == ("Done", "Done", now)
    assert done["comment_count"] == ok(session, "get_issue", {"issue_key": issue["key"]})["comment_count"]
    reopened = ok(session, "transition_issue", {"issue_key": issue["key"], "status": "To Do"})
    assert (reopened["status"], reopened["resolution"], reopened["resolved_at"]) == ("To Do", None, None)
    dropped = ok(session, "transition_issue", {"issue_key": issue["key"], "status": "Won't Do", "resolution": "Duplicate"})
    assert dropped["resolution"] == "Duplicate"
    steps = [(c["field"], c["from_value"], c["to_value"]) for c in history(session, issue["key"]) if c["created_at"] == now]
    assert steps == [("status", "To Do", "In Progress"), ("status", "In Progress", "Done"), ("resolution", None, "Done"),
                     ("status", "Done", "To Do"), ("resolution", "Done", None), ("status", "To Do", "Won't Do"),
                     ("resolution", None, "Duplicate")]
    assert all(c["author"]["id"] == ACTING_USER_ID for c in history(session, issue["key"]) if c["created_at"] == now)
    assert fails(session, "transition_issue", {"issue_key": issue["key"], "status": "Won't Do"}, "invalid_arguments")
    assert fails(session, "transition_issue", {"issue_key": issue["key"], "status": "To Do", "resolution": "Duplicate"},
                 "invalid_arguments")


def test_assign_and_comment(session: ToolSession) -> None:
    issue = next(i for i in everything() if i["project_key"] == "API" and i["resolution"] is None and i["assignee"])
    member = next(m for m in ok(session, "get_project", {"project_key": "API"})["members"] if m["id"] != issue["assignee"]["id"])
    assigned = ok(session, "assign_issue", {"issue_key": issue["key"], "assignee_id": member["id"]})
    assert assigned["assignee"] == {k: member[k] for k in ("id", "name", "email")}
    assert history(session, issue["key"])[-1]["to_value"] == member["name"]
    state = session.state_hash()
    assert ok(session, "assign_issue", {"issue_key": issue["key"], "assignee_id": member["id"]}) == assigned
    assert session.state_hash() == state
    assert ok(session, "assign_issue", {"issue_key": issue["key"], "assignee_id": None})["assignee"] is None
    comment = ok(session, "add_comment", {"issue_key": issue["key"].lower(), "body": "Taking a look."})
    assert comment["author"]["id"] == ACTING_USER_ID and comment["issue_key"] == issue["key"]
    assert ok(session, "list_comments", {"issue_key": issue["key"], "sort_order": "desc", "per_page": 1})["comments"][0] == comment


def test_links_go_both_ways_and_are_not_repeated(session: ToolSession) -> None:
    a, b = [i["key"] for i in everything() if i["project_key"] == "DATA" and i["resolution"] is None and i["type"] == "task"][:2]
    linked = ok(session, "link_issues", {"issue_key": a, "link_type": "is blocked by", "other_issue_key": b})
    assert {"relation": "is blocked by", "key": b} in [{"relation": x["relation"], "key": x["issue"]["key"]} for x in linked["links"]]
    other = ok(session, "get_issue", {"issue_key": b})
    assert {"relation": "blocks", "key": a} in [{"relation": x["relation"], "key": x["issue"]["key"]} for x in other["links"]]
    assert fails(session, "link_issues", {"issue_key": b, "link_type": "blocks", "other_issue_key": a}, "invalid_arguments")
    ok(session, "link_issues", {"issue_key": a, "link_type": "relates to", "other_issue_key": b})
    assert fails(session, "link_issues", {"issue_key": b, "link_type": "relates to", "other_issue_key": a}, "invalid_arguments")
    assert fails(session, "link_issues", {"issue_key": a, "link_type": "duplicates", "other_issue_key": a}, "invalid_arguments")


def test_moving_issues_between_sprints_and_the_backlog(session: ToolSession) -> None:
    active, future = sprint_of(0, "WEB", "active"), sprint_of(0, "WEB", "future")
    staying = [i["key"] for i in all_issues(session, {"sprint_id": active["id"], "resolved": False})]
    backlog = [i["key"] for i in all_issues(session, {"project_key": "WEB", "in_backlog": True})][:2]
    moved = ok(session, "move_issues_to_sprint", {"issue_keys": [staying[0], *backlog], "sprint_id": future["id"]})
    assert {i["key"] for i in moved["moved"]} == {staying[0], *backlog} and moved["unchanged"] == []
    assert all(i["sprint"]["id"] == future["id"] for i in moved["moved"])
    assert history(session, staying[0])[-1] == {**history(session, staying[0])[-1], "field": "sprint",
                                                "from_value": active["name"], "to_value": future["name"]}
    report = ok(session, "sprint_report", {"sprint_id": active["id"]})
    assert report["removed_issues"] == 1 and next(i for i in report["issues"] if i["key"] == staying[0])["removed"]
    again = ok(session, "move_issues_to_sprint", {"issue_keys": [staying[0]], "sprint_id": future["id"]})
    assert again["moved"] == [] and again["unchanged"] == [staying[0]]
    out = ok(session, "move_issues_to_sprint", {"issue_keys": backlog, "sprint_id": None})
    assert out["sprint"] is None and all(i["sprint"] is None for i in out["moved"])
    assert set(backlog) <= {i["key"] for i in all_issues(session, {"project_key": "WEB", "in_backlog": True})}
    planned = ok(session, "sprint_report", {"sprint_id": future["id"]})["issues"]
    seeded_plan = rows(0, "SELECT issues.key FROM sprint_issues JOIN issues ON issues.id = issue_id WHERE sprint_id = ?", (future["id"],))
    assert sorted(i["key"] for i in planned) == sorted([r["key"] for r in seeded_plan] + [staying[0]])
    assert fails(session, "move_issues_to_sprint", {"issue_keys": ["WEB-1", "API-1"], "sprint_id": None}, "invalid_arguments")


def test_a_sprint_is_wrapped_up_closed_and_the_next_one_started(session: ToolSession) -> None:
    active, future = sprint_of(0, "WEB", "active"), sprint_of(0, "WEB", "future")
    unfinished = [i["key"] for i in all_issues(session, {"sprint_id": active["id"], "resolved": False})]
    ok(session, "move_issues_to_sprint", {"issue_keys": unfinished, "sprint_id": future["id"]})
    report = ok(session, "close_sprint", {"sprint_id": active["id"]})
    assert report["sprint"]["state"] == "closed" and report["sprint"]["completed_at"] == format_timestamp(session.context.now)
    assert report["completed_issues"] == report["issues_by_status"].get("Done", 0)
    assert report["remaining_points"] == 0 and report["removed_issues"] == len(unfinished)
    assert ok(session, "velocity_report", {"project_key": "WEB", "sprints": 1})["sprints"][0]["sprint_id"] == active["id"]
    started = ok(session, "start_sprint", {"sprint_id": future["id"], "goal": "Finish what we carried"})
    assert started["state"] == "active" and started["goal"] == "Finish what we carried"
    assert started["start_at"] == format_timestamp(session.context.now)
    assert started["end_at"] == format_timestamp(session.context.now + timedelta(days=21))
    opening = ok(session, "sprint_report", {"sprint_id": future["id"]})
    assert opening["committed_issues"] == started["issue_count"] and opening["committed_points"] == started["story_points"]
    assert opening["added_issues"] == opening["removed_issues"] == 0
    fresh = ok(session, "create_sprint", {"project_key": "WEB"})
    count = rows(0, "SELECT count(*) AS n FROM sprints WHERE project_id = (SELECT id FROM projects WHERE key = 'WEB')")[0]["n"]
    assert fresh["name"] == f"WEB Sprint {count + 1}" and fresh["state"] == "future" and fresh["issue_count"] == 0
    assert ok(session, "list_sprints", {"project_key": "WEB", "per_page": 1})["sprints"][0]["id"] == fresh["id"]
    assert fails(session, "create_sprint", {"project_key": "WEB", "name": fresh["name"].lower()}, "invalid_arguments")


# ---------------------------------------------------------------- policy: each rule refuses and changes nothing


def test_transitions_only_along_the_workflow(session: ToolSession) -> None:
    todo = next(i for i in everything() if i["project_key"] == "WEB" and i["status"] == "To Do")
    error = fails(session, "transition_issue", {"issue_key": todo["key"], "status": "Done"}, "forbidden")
    assert "allows moving it only to: In Progress, Blocked, Won't Do" in error
    support = next(i for i in everything() if i["project_key"] == "SUP" and i["status"] == "In Progress")
    error = fails(session, "transition_issue", {"issue_key": support["key"], "status": "In Review"}, "forbidden")
    assert "Service workflow" in error and "To Do, Blocked, Done, Won't Do" in error


def test_an_issue_is_not_done_while_a_blocker_or_a_subtask_is_unresolved(session: ToolSession) -> None:
    waiting = rows(0, "SELECT blocked.key AS blocked, blocker.key AS blocker FROM issue_links "
                      "JOIN issues AS blocker ON blocker.id = source_id JOIN issues AS blocked ON blocked.id = target_id "
                      "WHERE issue_links.type = 'blocks' AND blocked.status = 'In Review' AND blocker.resolution IS NULL")[0]
    error = fails(session, "transition_issue", {"issue_key": waiting["blocked"], "status": "Done"}, "forbidden")
    assert waiting["blocker"] in error and "cannot be Done while an issue blocking it is unresolved" in error
    parent = ok(session, "create_issue", {"project_key": "OPS", "type": "task", "summary": "Parent"})
    child = ok(session, "create_issue", {"project_key": "OPS", "type": "subtask", "summary": "Child", "parent_key": parent["key"]})
    ok(session, "transition_issue", {"issue_key": parent["key"], "status": "In Progress"})
    error = fails(session, "transition_issue", {"issue_key": parent["key"], "status": "Done"}, "forbidden")
    assert child["key"] in error and "unresolved subtasks" in error
    ok(session, "transition_issue", {"issue_key": child["key"], "status": "Won't Do"})
    assert ok(session, "transition_issue", {"issue_key": parent["key"], "status": "Done"})["status"] == "Done"


def test_a_sprint_closes_only_when_its_issues_are_done_or_moved_out(session: ToolSession) -> None:
    active = sprint_of(0, "WEB", "active")
    unfinished = [i["key"] for i in all_issues(session, {"sprint_id": active["id"], "resolved": False, "sort_by": "key", "sort_order": "asc"})]
    error = fails(session, "close_sprint", {"sprint_id": active["id"]}, "forbidden")
    assert f"{len(unfinished)} unresolved issue(s): {', '.join(unfinished[:10])}" in error
    assert "closes only when all its issues are done or moved out" in error
    closed = sprint_of(0, "WEB", "closed")
    assert "only the active sprint can be closed" in fails(session, "close_sprint", {"sprint_id": closed["id"]}, "forbidden")


def test_one_active_sprint_per_project_and_no_empty_start(session: ToolSession) -> None:
    future, active = sprint_of(0, "WEB", "future"), sprint_of(0, "WEB", "active")
    error = fails(session, "start_sprint", {"sprint_id": future["id"]}, "forbidden")
    assert active["name"] in error and "one sprint at a time" in error
    assert "only a future sprint" in fails(session, "start_sprint", {"sprint_id": active["id"]}, "forbidden")
    empty = ok(session, "create_sprint", {"project_key": "DATA", "name": "Spare"})
    assert "has no issues" in fails(session, "start_sprint", {"sprint_id": empty["id"]}, "forbidden")
    planned = sprint_of(0, "DATA", "future")
    assert fails(session, "start_sprint", {"sprint_id": planned["id"], "end_at": "2020-01-01"}, "invalid_arguments")


def test_only_the_project_lead_manages_its_sprints(session: ToolSession) -> None:
    mobile_active, mobile_future = sprint_of(0, "MOB", "active"), sprint_of(0, "MOB", "future")
    lead = ok(session, "get_project", {"project_key": "MOB"})["lead"]["name"]
    for tool, args in (("close_sprint", {"sprint_id": mobile_active["id"]}), ("start_sprint", {"sprint_id": mobile_future["id"]}),
                       ("create_sprint", {"project_key": "MOB"})):
        error = fails(session, tool, args, "forbidden")
        assert f"only the lead of project MOB ({lead})" in error
    assert "kanban project" in fails(session, "create_sprint", {"project_key": "SUP"}, "forbidden")


def test_story_points_are_fibonacci_estimates_on_estimable_issues(session: ToolSession) -> None:
    story = next(i for i in everything() if i["type"] == "story" and i["resolution"] is None)
    error = fails(session, "update_issue", {"issue_key": story["key"], "story_points": 4}, "forbidden")
    assert "1, 2, 3, 5, 8, 13, 21" in error
    epic = next(i for i in everything() if i["type"] == "epic")
    assert "not estimated" in fails(session, "update_issue", {"issue_key": epic["key"], "story_points": 3}, "forbidden")
    assert fails(session, "create_issue", {"project_key": "WEB", "type": "task", "summary": "x", "story_points": 7}, "forbidden")


def test_issues_are_assigned_only_to_project_members(session: ToolSession) -> None:
    members = {m["id"] for m in ok(session, "get_project", {"project_key": "OPS"})["members"]}
    outsider = next(u for u in range(1, 41) if u not in members)
    issue = next(i for i in everything() if i["project_key"] == "OPS")
    error = fails(session, "assign_issue", {"issue_key": issue["key"], "assignee_id": outsider}, "forbidden")
    assert "not a member of project OPS" in error
    assert fails(session, "create_issue", {"project_key": "OPS", "type": "task", "summary": "x", "assignee_id": outsider}, "forbidden")


def test_planning_rules(session: ToolSession) -> None:
    web_future, api_future, web_closed = sprint_of(0, "WEB", "future"), sprint_of(0, "API", "future"), sprint_of(0, "WEB", "closed")
    todo = next(i["key"] for i in everything() if i["project_key"] == "WEB" and i["status"] == "To Do" and i["type"] == "task")
    done = next(i["key"] for i in everything() if i["project_key"] == "WEB" and i["status"] == "Done" and i["type"] == "task")
    epic = next(i["key"] for i in everything() if i["project_key"] == "WEB" and i["type"] == "epic")
    move = lambda keys, sprint: {"issue_keys": keys, "sprint_id": sprint}  # noqa: E731
    assert "own project's sprints" in fails(session, "move_issues_to_sprint", move([todo], api_future["id"]), "forbidden")
    assert "is closed" in fails(session, "move_issues_to_sprint", move([todo], web_closed["id"]), "forbidden")
    assert "not planned in sprints" in fails(session, "move_issues_to_sprint", move([epic], web_future["id"]), "forbidden")
    assert "only unresolved issues" in fails(session, "move_issues_to_sprint", move([done], web_future["id"]), "forbidden")
    assert fails(session, "create_issue", {"project_key": "WEB", "type": "epic", "summary": "x", "sprint_id": web_future["id"]}, "forbidden")


def test_a_ticket_escalates_to_one_issue(session: ToolSession) -> None:
    tracked = next(i for i in everything() if i["support_ticket_id"])
    error = fails(session, "create_issue", {"project_key": "SUP", "type": "bug", "summary": "again",
                                            "support_ticket_id": tracked["support_ticket_id"]}, "forbidden")
    assert tracked["key"] in error and f"#{tracked['support_ticket_id']}" in error


def test_hierarchy_and_blocking_cycles(session: ToolSession) -> None:
    epic = next(i["key"] for i in everything() if i["project_key"] == "WEB" and i["type"] == "epic")
    other_epic = next(i["key"] for i in everything() if i["project_key"] == "API" and i["type"] == "epic")
    story = next(i["key"] for i in everything() if i["project_key"] == "WEB" and i["type"] == "story")
    base = {"project_key": "WEB", "summary": "x"}
    assert "cannot have a parent" in fails(session, "create_issue", {**base, "type": "epic", "parent_key": epic}, "forbidden")
    assert "must be a story, task or bug" in fails(session, "create_issue", {**base, "type": "subtask", "parent_key": epic}, "forbidden")
    assert "same project" in fails(session, "create_issue", {**base, "type": "task", "parent_key": other_epic}, "forbidden")
    assert "must be an epic" in fails(session, "update_issue", {"issue_key": story, "parent_key": story}, "forbidden")
    assert fails(session, "create_issue", {**base, "type": "subtask"}, "invalid_arguments")
    a, b, c = [i["key"] for i in everything() if i["project_key"] == "MOB" and i["resolution"] is None and i["type"] == "bug"][:3]
    ok(session, "link_issues", {"issue_key": a, "link_type": "blocks", "other_issue_key": b})
    ok(session, "link_issues", {"issue_key": b, "link_type": "blocks", "other_issue_key": c})
    error = fails(session, "link_issues", {"issue_key": c, "link_type": "blocks", "other_issue_key": a}, "forbidden")
    assert "cycle" in error


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(("tool", "args", "code", "says"), [
    ("get_issue", {"issue_key": "WEB-99999"}, "not_found", "search_issues"),
    ("get_issue", {"issue_key": "NOPE-1"}, "not_found", "search_issues"),
    ("get_issue", {"issue_key": "WEB 12"}, "invalid_arguments", "issue_key"),
    ("get_project", {"project_key": "ZZZ"}, "not_found", "list_projects"),
    ("search_issues", {"project_key": "ZZZ"}, "not_found", "list_projects"),
    ("search_issues", {"sprint_id": 99999}, "not_found", "list_sprints"),
    ("search_issues", {"assignee_id": 99999}, "not_found", "search_users"),
    ("search_issues", {"assignee_id": 3, "unassigned": True}, "invalid_arguments", "not both"),
    ("search_issues", {"labels": ["Has Spaces"]}, "invalid_arguments", "labels"),
    ("search_issues", {"status": ["Closed"]}, "invalid_arguments", "status"),
    ("get_workflow", {}, "invalid_arguments", "exactly one"),
    ("get_workflow", {"project_key": "WEB", "issue_key": "WEB-1"}, "invalid_arguments", "exactly one"),
    ("create_issue", {"project_key": "WEB", "type": "bug", "summary": "x", "components": ["Kitchen"]}, "invalid_arguments", "Dashboard"),
    ("create_issue", {"project_key": "WEB", "type": "bug", "summary": ""}, "invalid_arguments", "summary"),
    ("create_issue", {"project_key": "WEB", "type": "bug", "summary": "x", "labels": ["a"] * 21}, "invalid_arguments", "labels"),
    ("move_issues_to_sprint", {"issue_keys": ["WEB-1", "WEB-999999"], "sprint_id": None}, "not_found", "WEB-999999"),
    ("move_issues_to_sprint", {"issue_keys": [], "sprint_id": None}, "invalid_arguments", "issue_keys"),
    ("create_sprint", {"project_key": "WEB", "start_at": "2026-01-10", "end_at": "2026-01-01"}, "invalid_arguments", "after"),
    ("get_user_by_email", {"email": "nobody@example.com"}, "not_found", "employees"),
    ("velocity_report", {"project_key": "WEB", "sprints": 0}, "invalid_arguments", "sprints"),
    ("assign_issue", {"issue_key": "WEB-1", "assignee_id": 99999}, "not_found", "search_users"),
    ("assign_issue", {"issue_key": "WEB-1"}, "invalid_arguments", "assignee_id"),
])
def test_bad_input_is_a_clear_error_and_changes_nothing(session: ToolSession, tool: str, args: dict[str, Any],
                                                        code: str, says: str) -> None:
    assert says in fails(session, tool, args, code)
