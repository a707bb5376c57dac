"""Domain behaviour of the todo server, through the same call path an agent uses: the seeded
world, reads, writes and their row changes, every policy rule (refused, nothing changed),
bad ids and arguments, and the recurrence rules."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.world import build_world
from mcpgym.servers.todo import SERVER
from mcpgym.servers.todo.models import MAX_DEPTH
from mcpgym.servers.todo.recurrence import DAY_NAMES, RecurrenceError, Rule, first_on_or_after, next_due, parse
from tool_calls import fails, ok

ME = 1
Row = dict[str, Any]


@pytest.fixture
def session() -> Iterator[ToolSession]:
    with ToolSession(SERVER, 0) as fresh:
        yield fresh


@pytest.fixture(scope="module")
def seeded() -> Iterator[ToolSession]:
    """A session only read from by the tests that share it."""
    with ToolSession(SERVER, 0) as fresh:
        yield fresh


def raw(session: ToolSession, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    return session._connection.execute(sql, params).fetchall()  # noqa: SLF001


def today(session: ToolSession) -> date:
    return session.context.now.date()


def project(session: ToolSession, name: str) -> Row:
    found = ok(session, "list_projects", {"query": name, "state": "all"})["projects"]
    return next(p for p in found if p["name"] == name)


def task(session: ToolSession, content: str, status: str = "all") -> Row:
    found = ok(session, "search_tasks", {"query": content, "status": status, "include_archived": True})["tasks"]
    return next(t for t in found if t["content"] == content)


def open_task(session: ToolSession, **filters: Any) -> Row:
    """An open one-off task without sub-tasks, in an active project you own, unassigned."""
    mine = {p["id"] for p in ok(session, "list_projects", {"per_page": 100})["projects"] if p["owner_id"] == ME}
    for row in ok(session, "search_tasks", {"recurring": False, "per_page": 100, **filters})["tasks"]:
        if row["project_id"] in mine and row["open_subtask_count"] == 0 and row["assignee_id"] is None:
            return row
    raise AssertionError("no such task")


def recurring(session: ToolSession) -> Row:
    return ok(session, "search_tasks", {"recurring": True, "per_page": 1})["tasks"][0]


def colleague_outside(session: ToolSession, project_id: int) -> Row:
    inside = {u["id"] for u in ok(session, "list_users", {"project_id": project_id, "per_page": 100})["users"]}
    return next(u for u in ok(session, "list_users", {"per_page": 100})["users"] if u["id"] not in inside)


# ---------------------------------------------------------------- the seeded world


def test_users_are_the_worlds_employees_with_their_organisation(seeded: ToolSession) -> None:
    world = build_world(0)
    users = ok(seeded, "list_users", {"per_page": 100})["users"]
    assert len(users) == len(world.employees)
    for index, person in enumerate(world.employees, start=1):
        found = ok(seeded, "get_user_by_email", {"email": person.email.upper()})
        assert (found["id"], found["name"], found["organization_name"]) == (index, person.name, world.home.name)
    customer = world.customers[0]
    assert fails(seeded, "get_user_by_email", {"email": customer.email}, "not_found")


def test_the_seeded_world_obeys_the_rules(seeded: ToolSession) -> None:
    assert raw(seeded, "SELECT count(*) FROM tasks JOIN projects ON projects.id = tasks.project_id "
                       "WHERE projects.is_archived AND NOT tasks.is_completed") == [(0,)]
    assert raw(seeded, "SELECT count(*) FROM tasks WHERE assignee_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "
                       "collaborators c WHERE c.project_id = tasks.project_id AND c.user_id = tasks.assignee_id)") == [(0,)]
    levels = raw(seeded, "WITH RECURSIVE up(id, level) AS (SELECT id, 1 FROM tasks WHERE parent_id IS NULL UNION ALL "
                         "SELECT tasks.id, up.level + 1 FROM tasks JOIN up ON tasks.parent_id = up.id) SELECT max(level) FROM up")
    assert levels == [(MAX_DEPTH,)]
    assert raw(seeded, "SELECT count(*) - count(DISTINCT lower(name)) FROM labels") == [(0,)]
    assert raw(seeded, "SELECT count(*) FROM tasks WHERE recurrence IS NOT NULL AND (due_date IS NULL OR is_completed)") == [(0,)]
    assert raw(seeded, "SELECT count(*) FROM tasks t JOIN tasks p ON p.id = t.parent_id WHERE p.is_completed AND NOT t.is_completed") == [(0,)]


def test_dates_spread_around_now(seeded: ToolSession) -> None:
    (first, last), = raw(seeded, "SELECT min(happened_at), max(happened_at) FROM activity")
    now = seeded.context.now
    assert first < str(now - timedelta(days=365)) and last < str(now)
    agenda = ok(seeded, "get_agenda", {"days": 14})
    assert agenda["overdue"] and agenda["days"][0]["tasks"] and any(d["tasks"] for d in agenda["days"][1:])
    assert all(t["due_date"] < str(today(seeded)) for t in agenda["overdue"])
    assert agenda["total"] == len(agenda["overdue"]) + sum(len(d["tasks"]) for d in agenda["days"])


def test_same_seed_same_bytes_and_fast_seeding() -> None:
    import time

    from mcpgym.servers.kernel.spec import build_seeded

    first = SERVER.seeded(0).snapshot  # the linked tracker's world is built (or loaded) here
    start = time.perf_counter()
    again = build_seeded(SERVER, 0)
    assert time.perf_counter() - start < 2.0
    assert again == first


def test_jira_tasks_carry_keys_of_issues_assigned_to_me(seeded: ToolSession) -> None:
    linked = ok(seeded, "search_tasks", {"label": "jira", "status": "all", "per_page": 100})["tasks"]
    assert linked and all(t["jira_issue_key"] for t in linked)
    with ToolSession(__import__("mcpgym.servers.catalog", fromlist=["load_server"]).load_server("projects"), 0) as tracker:
        for row in linked:
            issue = ok(tracker, "get_issue", {"issue_key": row["jira_issue_key"]})
            assert issue["assignee"]["id"] == ME and issue["summary"].startswith(row["content"][:40])
    one = linked[0]["jira_issue_key"]
    assert [t["jira_issue_key"] for t in ok(seeded, "search_tasks", {"jira_issue_key": one.lower(), "status": "all"})["tasks"]] == [one]


# ---------------------------------------------------------------- reads


def test_search_filters_hold(seeded: ToolSession) -> None:
    now = today(seeded)
    overdue = ok(seeded, "search_tasks", {"due": "overdue", "per_page": 100})["tasks"]
    assert overdue and all(t["due_date"] < str(now) and not t["is_completed"] for t in overdue)
    labelled = ok(seeded, "search_tasks", {"label": "WAITING", "priority": ["p1", "p2", "p3"], "per_page": 100})["tasks"]
    assert all("waiting" in t["labels"] and t["priority"] != "p4" for t in labelled)
    done = ok(seeded, "search_tasks", {"status": "completed", "sort_by": "completed_at", "sort_order": "desc", "per_page": 50})
    stamps = [t["completed_at"] for t in done["tasks"]]
    assert stamps == sorted(stamps, reverse=True) and all(t["is_completed"] for t in done["tasks"])
    archived = project(seeded, "Holiday Party 2024")
    assert not any(t["project_id"] == archived["id"] for t in ok(seeded, "search_tasks", {"status": "all", "per_page": 100})["tasks"])
    assert ok(seeded, "search_tasks", {"project_id": archived["id"], "status": "all"})["total"] == archived["completed_tasks"]
    pages = [ok(seeded, "search_tasks", {"status": "all", "page": p, "per_page": 40}) for p in (1, 2)]
    assert not {t["id"] for t in pages[0]["tasks"]} & {t["id"] for t in pages[1]["tasks"]}


def test_project_detail_counts_agree_with_search(seeded: ToolSession) -> None:
    for row in ok(seeded, "list_projects", {"state": "all", "per_page": 100})["projects"]:
        detail = ok(seeded, "get_project", {"project_id": row["id"]})
        search = ok(seeded, "search_tasks", {"project_id": row["id"], "per_page": 1})
        assert detail["open_tasks"] == search["total"] == row["open_tasks"]
        assert detail["is_shared"] == (len(detail["collaborators"]) > 1)
        assert sum(s["open_tasks"] for s in detail["sections"]) <= detail["open_tasks"]
        assert [c for c in detail["collaborators"] if c["is_owner"]][0]["user_id"] == detail["owner_id"]
    assert ok(seeded, "list_projects", {})["projects"][0]["is_inbox"]


def test_task_detail_level_and_subtasks(seeded: ToolSession) -> None:
    deepest = raw(seeded, "SELECT id FROM tasks WHERE parent_id IN (SELECT id FROM tasks WHERE parent_id IN "
                          "(SELECT id FROM tasks WHERE parent_id IS NOT NULL))")[0][0]
    detail = ok(seeded, "get_task", {"task_id": deepest})
    assert detail["level"] == 4 and detail["parent_content"]
    parent = ok(seeded, "get_task", {"task_id": detail["parent_id"]})
    assert parent["level"] == 3 and deepest in [s["id"] for s in parent["subtasks"]]
    assert parent["subtask_count"] == len(parent["subtasks"])


def test_activity_and_completion_report_agree(seeded: ToolSession) -> None:
    after, before = "2025-09-01", "2025-11-01"
    report = ok(seeded, "completion_report", {"after": after, "before": before, "group_by": "week"})
    log = ok(seeded, "get_activity", {"event": ["completed"], "after": after, "before": before, "per_page": 1})
    assert report["total_completed"] == log["total"] == sum(g["completed"] for g in report["groups"]) > 0
    assert all(date.fromisoformat(g["key"]).weekday() == 0 for g in report["groups"])
    by_project = ok(seeded, "completion_report", {"after": after, "before": before, "group_by": "project"})
    assert by_project["total_completed"] == report["total_completed"]
    assert by_project["busiest"]["completed"] == max(g["completed"] for g in by_project["groups"])
    chore = recurring(seeded)
    history = ok(seeded, "get_activity", {"task_id": chore["id"], "event": ["completed"], "per_page": 100})["entries"]
    assert len(history) > 5 and all(e["due_date"] for e in history)
    fails(seeded, "completion_report", {"after": before, "before": after}, "invalid_arguments")


def test_labels_list_counts_open_tasks(seeded: ToolSession) -> None:
    for label in ok(seeded, "list_labels")["labels"]:
        assert ok(seeded, "search_tasks", {"label": label["name"], "per_page": 1})["total"] == label["open_tasks"]


# ---------------------------------------------------------------- writes


def test_create_task_with_everything(session: ToolSession) -> None:
    shared = project(session, "Team Offsite 2026")
    colleague = next(u for u in ok(session, "list_users", {"project_id": shared["id"]})["users"] if u["id"] != ME)
    section = ok(session, "get_project", {"project_id": shared["id"]})["sections"][0]
    made = ok(session, "create_task", {"content": "Book the bus", "project_id": shared["id"], "section_id": section["id"],
                                       "due_date": "2025-11-20", "due_time": "09:30", "priority": "p2",
                                       "labels": ["Calls", "email"], "assignee_id": colleague["id"]})
    assert (made["project_id"], made["section_name"], made["due_date"], made["due_time"], made["priority"]) == (
        shared["id"], section["name"], "2025-11-20", "09:30", "p2")
    assert made["labels"] == ["calls", "email"] and made["assignee_id"] == colleague["id"]
    events = [(c.after or {}).get("event") for c in session.diff() if c.table == "activity"]
    assert sorted(events) == ["added", "assigned"]
    inbox = ok(session, "create_task", {"content": "Just a thought"})
    assert inbox["project_name"] == "Inbox" and inbox["due_date"] is None


def test_recurring_create_and_complete_one_occurrence(session: ToolSession) -> None:
    made = ok(session, "create_task", {"content": "Pay the gym", "recurrence": "Every Month on the 3rd"})
    assert made["recurrence"] == "every month on the 3rd" and date.fromisoformat(made["due_date"]).day == 3
    chore = recurring(session)
    done = ok(session, "complete_task", {"task_id": chore["id"]})
    assert done["occurrence_completed"] and not done["task"]["is_completed"]
    assert done["completed_due_date"] == chore["due_date"]
    following = date.fromisoformat(done["next_due_date"])
    assert following > max(date.fromisoformat(chore["due_date"]), today(session))
    assert parse(chore["recurrence"]).occurs_on(following)
    assert ok(session, "get_task", {"task_id": chore["id"]})["due_date"] == done["next_due_date"]
    entry = ok(session, "get_activity", {"task_id": chore["id"], "per_page": 1})["entries"][0]
    assert (entry["event"], entry["due_date"]) == ("completed", chore["due_date"])


def test_complete_closes_subtasks_and_reopen_reopens_parents(session: ToolSession) -> None:
    parent = raw(session, "SELECT p.id FROM tasks p WHERE NOT p.is_completed AND p.recurrence IS NULL AND p.parent_id IS NULL "
                          "AND (SELECT count(*) FROM tasks c WHERE c.parent_id = p.id AND NOT c.is_completed) >= 2 "
                          "AND (SELECT is_archived FROM projects WHERE id = p.project_id) = 0 ORDER BY p.id")[0][0]
    before = ok(session, "get_task", {"task_id": parent})
    done = ok(session, "complete_task", {"task_id": parent})
    assert done["subtasks_completed"] >= before["open_subtask_count"] and done["task"]["is_completed"]
    child = before["subtasks"][0]["id"]
    assert ok(session, "get_task", {"task_id": child})["is_completed"]
    reopened = ok(session, "reopen_task", {"task_id": child})
    assert not reopened["is_completed"] and not ok(session, "get_task", {"task_id": parent})["is_completed"]


def test_update_assign_move_comment_and_delete(session: ToolSession) -> None:
    row = open_task(session)
    updated = ok(session, "update_task", {"task_id": row["id"], "content": "Renamed", "priority": "p1",
                                          "due_date": "2025-12-01", "labels": ["deep-work"]})
    assert (updated["content"], updated["priority"], updated["due_date"], updated["labels"]) == ("Renamed", "p1", "2025-12-01", ["deep-work"])
    cleared = ok(session, "update_task", {"task_id": row["id"], "clear_due": True, "labels": []})
    assert cleared["due_date"] is None and cleared["labels"] == []
    assert ok(session, "assign_task", {"task_id": row["id"], "assignee_id": ME})["assignee_id"] == ME
    assert ok(session, "assign_task", {"task_id": row["id"], "assignee_id": None})["assignee_id"] is None
    target = project(session, "Home")
    moved = ok(session, "move_task", {"task_id": row["id"], "project_id": target["id"]})
    assert (moved["project_id"], moved["section_id"], moved["parent_id"]) == (target["id"], None, None)
    comment = ok(session, "add_comment", {"task_id": row["id"], "content": "Noted."})
    assert comment["author_id"] == ME and ok(session, "list_comments", {"task_id": row["id"]})["total"] == 1
    gone = ok(session, "delete_task", {"task_id": row["id"]})
    assert gone["deleted_comments"] == 1
    fails(session, "get_task", {"task_id": row["id"]}, "not_found")
    assert ok(session, "get_activity", {"task_id": row["id"], "per_page": 1})["entries"][0]["event"] == "deleted"


def test_move_under_a_parent_takes_its_project_and_section(session: ToolSession) -> None:
    row = open_task(session)
    parent = task(session, "Check venues in Lisbon")
    moved = ok(session, "move_task", {"task_id": row["id"], "parent_id": parent["id"]})
    assert (moved["parent_id"], moved["project_id"], moved["section_id"]) == (parent["id"], parent["project_id"], parent["section_id"])
    fails(session, "move_task", {"task_id": parent["id"], "parent_id": row["id"]}, "invalid_arguments")


def test_end_recurrence_closes_the_series(session: ToolSession) -> None:
    chore = recurring(session)
    ended = ok(session, "end_recurrence", {"task_id": chore["id"]})
    assert ended["is_completed"] and ended["recurrence"] is None
    fails(session, "end_recurrence", {"task_id": open_task(session)["id"]}, "invalid_arguments")


def test_projects_sections_sharing_archiving(session: ToolSession) -> None:
    made = ok(session, "create_project", {"name": "Garden  Makeover", "color": "green"})
    assert made["name"] == "Garden Makeover" and made["owner_id"] == ME and not made["is_shared"]
    section = ok(session, "create_section", {"project_id": made["id"], "name": "Plants"})
    assert section["position"] == 1
    fails(session, "create_section", {"project_id": made["id"], "name": "plants"}, "invalid_arguments")
    world = build_world(0)
    shared = ok(session, "share_project", {"project_id": made["id"], "email": world.employees[4].email})
    assert shared["is_shared"] and shared["collaborator_count"] == 2
    assert ok(session, "share_project", {"project_id": made["id"], "email": world.employees[4].email}) == shared
    archived = ok(session, "archive_project", {"project_id": made["id"]})
    assert archived["is_archived"] and archived["archived_at"]
    assert not ok(session, "unarchive_project", {"project_id": made["id"]})["is_archived"]


def test_labels_create_and_delete(session: ToolSession) -> None:
    made = ok(session, "create_label", {"name": "next-actions", "color": "red"})
    row = open_task(session)
    ok(session, "update_task", {"task_id": row["id"], "labels": ["next-actions"]})
    dropped = ok(session, "delete_label", {"label_id": made["id"]})
    assert dropped["removed_from_tasks"] == 1
    assert ok(session, "get_task", {"task_id": row["id"]})["labels"] == []


# ---------------------------------------------------------------- policy: refused, nothing changed


def test_recurring_series_is_never_deleted_nor_undated(session: ToolSession) -> None:
    chore = recurring(session)
    assert "series" in fails(session, "delete_task", {"task_id": chore["id"]}, "forbidden")
    assert "end_recurrence" in fails(session, "update_task", {"task_id": chore["id"], "clear_due": True}, "forbidden")


def test_a_project_with_open_tasks_cannot_be_archived(session: ToolSession) -> None:
    work = project(session, "Work")
    assert "open tasks" in fails(session, "archive_project", {"project_id": work["id"]}, "forbidden")


def test_archived_projects_are_read_only(session: ToolSession) -> None:
    archived = project(session, "Holiday Party 2024")
    done = ok(session, "search_tasks", {"project_id": archived["id"], "status": "all", "per_page": 1})["tasks"][0]
    for tool, args in [("create_task", {"content": "x", "project_id": archived["id"]}),
                       ("create_section", {"project_id": archived["id"], "name": "New"}),
                       ("reopen_task", {"task_id": done["id"]}),
                       ("add_comment", {"task_id": done["id"], "content": "x"}),
                       ("delete_task", {"task_id": done["id"]}),
                       ("share_project", {"project_id": archived["id"], "email": build_world(0).employees[9].email}),
                       ("move_task", {"task_id": open_task(session)["id"], "project_id": archived["id"]})]:
        assert "archived" in fails(session, tool, args, "forbidden"), tool


def test_only_the_owner_archives_and_the_inbox_never(session: ToolSession) -> None:
    theirs = project(session, "Partner Summit Prep")
    assert theirs["owner_id"] != ME and theirs["open_tasks"] == 0
    assert "owner" in fails(session, "archive_project", {"project_id": theirs["id"]}, "forbidden")
    assert "owner" in fails(session, "unarchive_project", {"project_id": project(session, "Office Move 2024")["id"]}, "forbidden")
    inbox = project(session, "Inbox")
    fails(session, "archive_project", {"project_id": inbox["id"]}, "forbidden")
    fails(session, "share_project", {"project_id": inbox["id"], "email": build_world(0).employees[3].email}, "forbidden")


def test_subtasks_nest_at_most_four_levels(session: ToolSession) -> None:
    deepest = task(session, "Call the top venue")
    assert ok(session, "get_task", {"task_id": deepest["id"]})["level"] == MAX_DEPTH
    assert "4 levels" in fails(session, "create_task", {"content": "Too deep", "parent_id": deepest["id"]}, "forbidden")
    three_levels = task(session, "Check venues in Lisbon")  # level 2, with two levels below it
    sibling = task(session, "Ask about the AV setup")  # level 2
    assert "4 levels" in fails(session, "move_task", {"task_id": three_levels["id"], "parent_id": sibling["id"]}, "forbidden")
    two_levels = task(session, "Compare the prices")  # level 3, with one level below it: fits under a level-2 task
    assert ok(session, "move_task", {"task_id": two_levels["id"], "parent_id": sibling["id"]})["parent_id"] == sibling["id"]


def test_assignees_are_collaborators_of_the_project(session: ToolSession) -> None:
    row = open_task(session)
    outsider = colleague_outside(session, row["project_id"])
    assert "collaborator" in fails(session, "assign_task", {"task_id": row["id"], "assignee_id": outsider["id"]}, "forbidden")
    fails(session, "create_task", {"content": "x", "project_id": row["project_id"], "assignee_id": outsider["id"]}, "forbidden")
    shared = project(session, "Website Redesign")
    assigned = next(t for t in ok(session, "search_tasks", {"project_id": shared["id"], "per_page": 100})["tasks"]
                    if t["assignee_id"] not in (None, ME))
    assert "collaborator" in fails(session, "move_task", {"task_id": assigned["id"], "project_id": project(session, "Home")["id"]}, "forbidden")


def test_completed_tasks_are_closed(session: ToolSession) -> None:
    done = next(t for t in ok(session, "search_tasks", {"status": "completed", "per_page": 100})["tasks"]
                if t["parent_id"] is None)
    for tool, args in [("update_task", {"task_id": done["id"], "priority": "p1"}),
                       ("assign_task", {"task_id": done["id"], "assignee_id": ME}),
                       ("move_task", {"task_id": done["id"], "project_id": project(session, "Home")["id"]}),
                       ("complete_task", {"task_id": done["id"]}),
                       ("create_task", {"content": "x", "parent_id": done["id"]})]:
        assert "reopen" in fails(session, tool, args, "forbidden"), tool


def test_label_and_project_names_are_unique(session: ToolSession) -> None:
    assert "unique" in fails(session, "create_label", {"name": "  WAITING "}, "forbidden")
    assert "unique" in fails(session, "create_project", {"name": "home"}, "forbidden")


# ---------------------------------------------------------------- bad ids and arguments


@pytest.mark.parametrize(("tool", "args", "code"), [
    ("get_task", {"task_id": 10**9}, "not_found"),
    ("get_project", {"project_id": 0}, "not_found"),
    ("search_tasks", {"label": "no-such-label"}, "not_found"),
    ("search_tasks", {"due_after": "2025-12-01", "due_before": "2025-11-01"}, "invalid_arguments"),
    ("create_task", {"content": "x", "labels": ["nope"]}, "not_found"),
    ("create_task", {"content": "x", "recurrence": "every blue moon"}, "invalid_arguments"),
    ("create_task", {"content": "x", "recurrence": "every 40 days"}, "invalid_arguments"),
    ("create_task", {"content": "x", "due_time": "09:00"}, "invalid_arguments"),
    ("create_task", {"content": "x", "due_time": "25:00", "due_date": "2025-11-20"}, "invalid_arguments"),
    ("create_task", {"content": "x", "priority": "p0"}, "invalid_arguments"),
    ("create_task", {"content": "", "project_id": 2}, "invalid_arguments"),
    ("create_task", {"content": "   "}, "invalid_arguments"),
    ("update_task", {"task_id": 30, "content": " "}, "invalid_arguments"),
    ("create_task", {"content": "x", "section_id": 25, "project_id": 2}, "invalid_arguments"),
    ("update_task", {"task_id": 30, "clear_due": True, "due_date": "2025-12-01"}, "invalid_arguments"),
    ("move_task", {"task_id": 30}, "invalid_arguments"),
    ("share_project", {"project_id": 10, "email": "someone@example.com"}, "not_found"),
    ("assign_task", {"task_id": 30, "assignee_id": 10**6}, "not_found"),
    ("create_project", {"name": "x", "color": "neon"}, "invalid_arguments"),
    ("create_label", {"name": "a,b"}, "invalid_arguments"),
    ("get_agenda", {"days": 0}, "invalid_arguments"),
])
def test_bad_input_is_a_clear_error_and_changes_nothing(session: ToolSession, tool: str, args: dict[str, Any], code: str) -> None:
    fails(session, tool, args, code)


# ---------------------------------------------------------------- recurrence rules


@pytest.mark.parametrize(("words", "text"), [
    ("every day", "every day"), ("Every 3 Days", "every 3 days"), ("every weekday", "every weekday"),
    ("every Monday, thu", "every mon, thu"), ("every fri,mon", "every mon, fri"), ("every 2 weeks", "every 2 weeks"),
    ("every month on the 31st", "every month on the 31st"), ("every 3 months on the 5th", "every 3 months on the 5th"),
    ("every year", "every year"),
])
def test_rules_read_and_write_their_words(words: str, text: str) -> None:
    assert parse(words).text() == text


@pytest.mark.parametrize("words", ["every", "daily", "every 0 days", "every 2 weekdays", "every mon on the 1st",
                                   "every week on the 3rd", "every month on the 32nd", "every funday"])
def test_bad_rules_are_refused(words: str) -> None:
    with pytest.raises(RecurrenceError):
        parse(words)


rules = st.one_of(
    st.builds(Rule, st.just("day"), st.integers(1, 12)),
    st.just(Rule("weekday")),
    st.builds(Rule, st.just("week"), st.integers(2, 12)),
    st.builds(lambda days: Rule("week", 1, tuple(sorted(days))), st.sets(st.integers(0, 6), min_size=1)),
    st.builds(lambda n, d: Rule("month", n, (), d), st.integers(1, 12), st.integers(1, 31)),
    st.just(Rule("year")),
)


@settings(max_examples=300, deadline=None)
@given(rule=rules, due=st.dates(date(2024, 1, 1), date(2027, 12, 31)), lag=st.integers(-40, 400))
def test_the_next_occurrence_is_after_due_and_today_and_fits_the_rule(rule: Rule, due: date, lag: int) -> None:
    due = first_on_or_after(rule, due)
    today_ = due + timedelta(days=lag)
    following = next_due(rule, due, today_)
    assert following > due and following > today_
    assert rule.occurs_on(following)
    assert parse(rule.text()) == rule
    if rule.unit == "day":
        assert (following - due).days % rule.interval == 0
    if rule.unit == "weekday" or rule.weekdays:
        skipped = [following - timedelta(days=n) for n in range(1, (following - max(due, today_)).days)]
        assert not any(rule.occurs_on(d) for d in skipped)


def test_day_names_are_monday_first() -> None:
    assert DAY_NAMES[0] == "mon" and parse("every sunday").weekdays == (6,)
