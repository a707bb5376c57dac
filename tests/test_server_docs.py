"""Domain behaviour of the docs wiki, through the same call path an agent uses: reads and
searches against the rows they summarise, every write and its row changes, every policy rule
(forbidden, its message, no change), the seeded world and its links to the shared world and to
the help desk."""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpgym.servers.catalog import load_server
from mcpgym.servers.docs import SERVER
from mcpgym.servers.docs.models import ACTING_USER_ID
from mcpgym.servers.kernel.fields import format_timestamp
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.spec import build_seeded
from mcpgym.servers.kernel.world import build_world
from tool_calls import fails, ok

SPACE_KEYS = ("ENG", "SUP", "SALES", "HR", "PROD", "IT")


@pytest.fixture
def docs() -> Iterator[ToolSession]:
    with ToolSession(SERVER, 0) as fresh:
        yield fresh


@pytest.fixture(scope="module")
def reader() -> Iterator[ToolSession]:
    """A session the tests only read from."""
    with ToolSession(SERVER, 0) as fresh:
        yield fresh


def rows(session: ToolSession, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
    """Rows straight from the session's database (the ground the tools are checked against)."""
    connection = session._connection
    connection.row_factory = sqlite3.Row
    try:
        return connection.execute(sql, params).fetchall()
    finally:
        connection.row_factory = None


def all_pages(session: ToolSession, args: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    page: int | None = 1
    while page is not None:
        data = ok(session, "search_pages", {**(args or {}), "page": page, "per_page": 100})
        found += data["pages"]
        page = data["next_page"]
    return found


def hidden_ids(session: ToolSession) -> set[int]:
    """Pages the acting user may not view, computed in Python from the raw rows."""
    parent = {r["id"]: r["parent_id"] for r in rows(session, "SELECT id, parent_id FROM pages")}
    viewers: dict[int, set[int]] = {}
    for r in rows(session, "SELECT page_id, user_id FROM page_restrictions WHERE operation = 'view'"):
        viewers.setdefault(r["page_id"], set()).add(r["user_id"])

    def hidden(page: int | None) -> bool:
        while page is not None:
            if page in viewers and ACTING_USER_ID not in viewers[page]:
                return True
            page = parent[page]
        return False

    return {page for page in parent if hidden(page)}


def page_titled(session: ToolSession, title: str, space: str = "ENG") -> dict[str, Any]:
    found = ok(session, "search_pages", {"title": title, "space_key": space})["pages"]
    assert len(found) == 1, title
    return found[0]


def editable_leaf(session: ToolSession, space: str = "ENG", label: str = "runbook") -> dict[str, Any]:
    """A page of `space` with `label`, no children, no restrictions and several versions."""
    for hit in all_pages(session, {"space_key": space, "labels": [label], "sort_by": "title", "sort_order": "asc"}):
        detail = ok(session, "get_page", {"page_id": hit["id"]})
        if detail["can_edit"] and not detail["child_count"] and not detail["editors"] and detail["version"] >= 3:
            return detail
    raise AssertionError("no editable leaf page")


def restricted_to_others(session: ToolSession) -> dict[str, Any]:
    """A page the acting user can view but not edit."""
    for row in rows(session, "SELECT page_id FROM page_restrictions WHERE operation = 'edit' GROUP BY page_id "
                             "HAVING max(user_id = ?) = 0 ORDER BY page_id", (ACTING_USER_ID,)):
        found = session.call("get_page", {"page_id": row["page_id"]})
        if found.ok:
            assert found.data is not None and not found.data["can_edit"]
            return found.data
    raise AssertionError("no page is edit-restricted to others")


def now_text(session: ToolSession) -> str:
    return format_timestamp(session.context.now)


# ---------------------------------------------------------------- the seeded world


def test_the_seeded_wiki_has_the_volumes_of_a_small_real_instance(reader: ToolSession) -> None:
    counts = {table: rows(reader, f"SELECT count(*) AS n FROM {table}")[0]["n"]
              for table in ("users", "spaces", "pages", "page_versions", "comments", "page_labels", "page_restrictions")}
    assert counts["users"] == 40 and counts["spaces"] == 6
    assert 350 <= counts["pages"] <= 600 and 2000 <= counts["page_versions"] <= 4000
    assert counts["comments"] >= 400 and counts["page_labels"] >= counts["pages"] - 60
    spread = rows(reader, "SELECT min(created_at) AS first, max(created_at) AS last FROM page_versions")[0]
    first, last = datetime.fromisoformat(spread["first"]), datetime.fromisoformat(spread["last"])
    assert (last - first).days > 400 and last <= reader.context.now
    depth = rows(reader, "WITH RECURSIVE d(id, level) AS (SELECT id, 1 FROM pages WHERE parent_id IS NULL UNION ALL "
                         "SELECT pages.id, d.level + 1 FROM pages JOIN d ON pages.parent_id = d.id) SELECT max(level) AS n FROM d")
    assert depth[0]["n"] >= 4


def test_every_page_keeps_all_its_versions_and_the_latest_is_current(reader: ToolSession) -> None:
    versions: dict[int, list[sqlite3.Row]] = {}
    for row in rows(reader, "SELECT * FROM page_versions ORDER BY page_id, number"):
        versions.setdefault(row["page_id"], []).append(row)
    for page in rows(reader, "SELECT * FROM pages"):
        history = versions[page["id"]]
        assert [v["number"] for v in history] == list(range(1, page["version"] + 1))
        assert history[-1]["title"] == page["title"] and history[-1]["author_id"] == page["updated_by_id"]
        assert history[0]["author_id"] == page["author_id"] and history[0]["created_at"] == page["created_at"]
        assert history[-1]["created_at"] == page["updated_at"]
        assert [v["created_at"] for v in history] == sorted({v["created_at"] for v in history})
        assert all(a["body"] != b["body"] or a["title"] != b["title"] for a, b in zip(history, history[1:]))


def test_sibling_positions_are_one_to_n_and_parents_share_the_space(reader: ToolSession) -> None:
    levels: dict[tuple[int, int | None], list[int]] = {}
    space = {r["id"]: r["space_id"] for r in rows(reader, "SELECT id, space_id FROM pages")}
    for page in rows(reader, "SELECT id, space_id, parent_id, position FROM pages"):
        levels.setdefault((page["space_id"], page["parent_id"]), []).append(page["position"])
        if page["parent_id"] is not None:
            assert space[page["parent_id"]] == page["space_id"]
    for positions in levels.values():
        assert sorted(positions) == list(range(1, len(positions) + 1))


@pytest.mark.slow  # every server's seeded bytes across two processes: test_kernel, in the default suite
def test_the_same_seed_gives_the_same_bytes_and_another_seed_another_wiki() -> None:
    assert build_seeded(SERVER, 3) == build_seeded(SERVER, 3)
    assert build_seeded(SERVER, 3) != build_seeded(SERVER, 4)


def test_users_are_the_worlds_employees(reader: ToolSession) -> None:
    world = build_world(0)
    users = rows(reader, "SELECT * FROM users ORDER BY id")
    assert [u["external_id"] for u in users] == [p.id for p in world.employees]
    for user, person in zip(users, world.employees):
        assert (user["name"], user["email"], user["job_title"], user["timezone"]) == (
            person.name, person.email, person.job_title, person.timezone)
        found = ok(reader, "get_user_by_email", {"email": person.email.upper()})
        assert (found["id"], found["name"], found["organization_name"]) == (user["id"], person.name, world.home.name)
    assert Counter(u["department"] for u in users) == {"Engineering": 12, "Support": 8, "Sales": 7, "Product": 5,
                                                       "HR": 4, "IT": 4}
    assert users[ACTING_USER_ID - 1]["department"] == "Support"
    assert "only Northwind Systems employees" in fails(reader, "get_user_by_email", {"email": world.customers[0].email},
                                                       "not_found")


def test_known_issue_articles_link_to_real_help_desk_tickets(reader: ToolSession) -> None:
    articles = all_pages(reader, {"labels": ["known-issue"]})
    assert len(articles) >= 30 and all(a["source_ticket_id"] is not None and a["space_key"] == "SUP" for a in articles)
    emails = {u["id"]: u["email"] for u in rows(reader, "SELECT id, email FROM users")}
    with ToolSession(load_server("zendesk"), 0) as zendesk:
        by_assignee = 0
        for article in articles:
            ticket = ok(zendesk, "get_ticket", {"ticket_id": article["source_ticket_id"]})
            assert article["title"] == f"Known issue: {ticket['subject']}" and ticket["type"] in ("incident", "problem")
            assert article["created_at"] > ticket["created_at"]
            first = ok(reader, "get_page", {"page_id": article["id"], "version": 1})
            assert f"ticket #{ticket['id']}" in first["body"]
            assert [p["id"] for p in ok(reader, "search_pages", {"source_ticket_id": ticket["id"]})["pages"]] == [article["id"]]
            if ticket["assignee_id"] is not None:
                agent = ok(zendesk, "get_user", {"user_id": ticket["assignee_id"]})
                by_assignee += emails[article["author_id"]] == agent["email"]
        assert by_assignee >= len(articles) // 2
    assert ok(reader, "search_pages", {"source_ticket_id": 987654})["total"] == 0


# ---------------------------------------------------------------- visibility


def test_pages_you_may_not_view_appear_nowhere(reader: ToolSession) -> None:
    hidden = hidden_ids(reader)
    children = {r["id"] for r in rows(reader, "SELECT id FROM pages WHERE parent_id IN (SELECT page_id FROM "
                                              "page_restrictions WHERE operation = 'view' AND page_id NOT IN (SELECT "
                                              "page_id FROM page_restrictions WHERE user_id = ? AND operation = 'view'))",
                                      (ACTING_USER_ID,))}
    assert len(hidden) >= 6 and children and children <= hidden  # children inherit a parent's view restriction
    visible = {p["id"] for p in all_pages(reader)}
    everything = {r["id"] for r in rows(reader, "SELECT id FROM pages")}
    assert visible == everything - hidden
    for page_id in sorted(hidden)[:5]:
        assert "search_pages" in fails(reader, "get_page", {"page_id": page_id}, "not_found")
        fails(reader, "list_page_versions", {"page_id": page_id}, "not_found")
        fails(reader, "add_comment", {"page_id": page_id, "body": "Hello"}, "not_found")
    comment = rows(reader, "SELECT id FROM comments WHERE page_id IN (SELECT value FROM json_each(?)) LIMIT 1",
                   (str(sorted(hidden)),))
    if comment:
        fails(reader, "resolve_comment", {"comment_id": comment[0]["id"]}, "not_found")
    counts = {s["key"]: s["page_count"] for s in ok(reader, "list_spaces")["spaces"]}
    assert counts == {key: ok(reader, "search_pages", {"space_key": key, "per_page": 1})["total"] for key in SPACE_KEYS}
    assert sum(counts.values()) == len(visible)
    trees = [ok(reader, "get_page_tree", {"space_key": key, "depth": 5}) for key in SPACE_KEYS]
    assert not {node for tree in trees for node in tree_ids(tree["pages"])} & hidden
    changes = ok(reader, "list_recent_changes", {"per_page": 100})["changes"]
    assert changes and not {c["page_id"] for c in changes} & hidden


def tree_ids(items: list[dict[str, Any]]) -> Iterator[int]:
    for item in items:
        yield item["id"]
        yield from tree_ids(item["children"])


# ---------------------------------------------------------------- reads


def test_search_filters_keep_exactly_the_matching_pages(reader: ToolSession) -> None:
    everything = all_pages(reader, {"sort_by": "title", "sort_order": "asc"})
    assert len(everything) == ok(reader, "search_pages")["total"]
    editors: dict[int, set[int]] = {}
    for row in rows(reader, "SELECT page_id, author_id FROM page_versions"):
        editors.setdefault(row["author_id"], set()).add(row["page_id"])
    sample = next(p for p in everything if p["updated_by_id"] != p["author_id"])
    parent = sample["parent_id"]
    middle = sorted(p["updated_at"] for p in everything)[len(everything) // 2]
    cases: list[tuple[dict[str, Any], Any]] = [
        ({"space_key": "sup"}, lambda p: p["space_key"] == "SUP"),
        ({"labels": ["runbook", "on-call"]}, lambda p: {"runbook", "on-call"} <= set(p["labels"])),
        ({"author_id": sample["author_id"]}, lambda p: p["author_id"] == sample["author_id"]),
        ({"editor_id": sample["updated_by_id"]}, lambda p: p["id"] in editors[sample["updated_by_id"]]),
        ({"parent_id": parent}, lambda p: p["parent_id"] == parent),
        ({"updated_after": middle}, lambda p: p["updated_at"] >= middle),
        ({"updated_before": middle, "space_key": "ENG"}, lambda p: p["updated_at"] < middle and p["space_key"] == "ENG"),
        ({"title": sample["title"].upper()}, lambda p: p["id"] == sample["id"]),
    ]
    for args, keep in cases:
        expected = [p["id"] for p in everything if keep(p)]
        assert expected, args
        assert [p["id"] for p in all_pages(reader, {**args, "sort_by": "title", "sort_order": "asc"})] == expected, args


def test_search_words_must_all_appear_in_the_title_or_current_text(reader: ToolSession) -> None:
    found = all_pages(reader, {"query": "Rollback  DEPLOY rollback"})
    bodies = {r["page_id"]: r["body"].lower() + " " + r["title"].lower() for r in rows(
        reader, "SELECT page_versions.page_id, page_versions.body, pages.title FROM pages JOIN page_versions ON "
                "page_versions.page_id = pages.id AND page_versions.number = pages.version")}
    hidden = hidden_ids(reader)
    expected = {page for page, text in bodies.items() if "rollback" in text and "deploy" in text and page not in hidden}
    assert expected and {p["id"] for p in found} == expected
    assert all("rollback" in p["excerpt"].lower() or "deploy" in p["excerpt"].lower() for p in found)
    for literal in ("%", "_", "99.9%", "100%_"):  # LIKE wildcards are taken literally
        containing = {page for page, text in bodies.items() if literal in text and page not in hidden}
        assert ok(reader, "search_pages", {"query": literal})["total"] == len(containing)
    assert ok(reader, "search_pages", {"query": "%"})["total"] > ok(reader, "search_pages", {"query": "99.9%"})["total"] > 0


@pytest.mark.parametrize(("sort_by", "sort_order"), [("updated_at", "desc"), ("created_at", "asc"), ("title", "desc")])
def test_search_pages_partition_the_ordered_results(reader: ToolSession, sort_by: str, sort_order: str) -> None:
    args = {"space_key": "SUP", "sort_by": sort_by, "sort_order": sort_order}
    full = all_pages(reader, args)
    per_page = 7
    seen: list[dict[str, Any]] = []
    page: int | None = 1
    while page is not None:
        data = ok(reader, "search_pages", {**args, "page": page, "per_page": per_page})
        assert data["total"] == len(full) and data["page"] == page
        seen += data["pages"]
        page = data["next_page"]
    assert [p["id"] for p in seen] == [p["id"] for p in full] and len({p["id"] for p in full}) == len(full)
    keys = [p[sort_by].lower() if sort_by == "title" else p[sort_by] for p in full]
    assert keys == sorted(keys, reverse=sort_order == "desc")
    beyond = ok(reader, "search_pages", {**args, "page": len(full) // per_page + 2, "per_page": per_page})
    assert beyond["pages"] == [] and beyond["next_page"] is None and beyond["total"] == len(full)


FILTERS = st.fixed_dictionaries({}, optional={
    "query": st.sampled_from(["runbook", "customer", "sso", "the steps", "zzz", "Status: Fixed", "100%"]),
    "space_key": st.sampled_from([*SPACE_KEYS, "NOPE", "eng"]),
    "labels": st.lists(st.sampled_from(["runbook", "how-to", "known-issue", "policy", "meeting-notes", "on-call", "x"]),
                       min_size=1, max_size=3),
    "author_id": st.integers(1, 40),
    "editor_id": st.integers(1, 40),
    "updated_after": st.sampled_from(["2024-06-01", "2025-01-01", "2025-10-01T12:00:00+02:00"]),
    "sort_by": st.sampled_from(["updated_at", "created_at", "title"]),
    "sort_order": st.sampled_from(["asc", "desc"]),
    "per_page": st.integers(1, 30),
})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(filters=FILTERS)
def test_any_filter_combination_answers_with_pages_that_match_it(reader: ToolSession, filters: dict[str, Any]) -> None:
    data = ok(reader, "search_pages", filters)
    assert len(data["pages"]) <= filters.get("per_page", 20) and data["total"] >= len(data["pages"])
    hidden = hidden_ids(reader)
    for page in data["pages"]:
        assert page["id"] not in hidden
        if "space_key" in filters:
            assert page["space_key"] == filters["space_key"].upper()
        assert set(filters.get("labels", [])) <= set(page["labels"])
        if "author_id" in filters:
            assert page["author_id"] == filters["author_id"]
        if "editor_id" in filters:
            assert rows(reader, "SELECT 1 FROM page_versions WHERE page_id = ? AND author_id = ?",
                        (page["id"], filters["editor_id"]))
        if "updated_after" in filters:
            after = datetime.fromisoformat(filters["updated_after"].replace("+02:00", "")) if "+" not in filters[
                "updated_after"] else datetime(2025, 10, 1, 10)
            assert page["updated_at"] >= format_timestamp(after)
        text = rows(reader, "SELECT body FROM page_versions WHERE page_id = ? AND number = ?",
                    (page["id"], page["version"]))[0]["body"]
        for word in filters.get("query", "").lower().split():
            assert word in text.lower() or word in page["title"].lower()


def test_get_page_shows_the_version_asked_for(reader: ToolSession) -> None:
    page = editable_leaf(reader)
    history = ok(reader, "list_page_versions", {"page_id": page["id"], "per_page": 100})
    assert history["total"] == page["version"] == len(history["versions"])
    assert [v["number"] for v in history["versions"]] == list(range(page["version"], 0, -1))
    for entry in history["versions"][:: max(1, len(history["versions"]) // 4)]:
        shown = ok(reader, "get_page", {"page_id": page["id"], "version": entry["number"]})
        stored = rows(reader, "SELECT body FROM page_versions WHERE page_id = ? AND number = ?",
                      (page["id"], entry["number"]))[0]["body"]
        assert shown["shown_version"] == entry and shown["body"] == stored
        assert shown["version"] == page["version"] and shown["title"] == page["title"]
    assert page["shown_version"]["number"] == page["version"]
    assert page["ancestors"][0]["title"] == "Engineering Home" and page["ancestors"][-1]["id"] == page["parent_id"]
    error = fails(reader, "get_page", {"page_id": page["id"], "version": page["version"] + 1}, "not_found")
    assert f"1 to {page['version']}" in error


def test_diff_lists_the_lines_removed_and_added(reader: ToolSession) -> None:
    page = editable_leaf(reader)
    bodies = {r["number"]: r["body"].splitlines() for r in rows(
        reader, "SELECT number, body FROM page_versions WHERE page_id = ?", (page["id"],))}
    for older in range(1, page["version"]):
        diff = ok(reader, "diff_page_versions", {"page_id": page["id"], "from_version": older})
        assert diff["to_version"] == page["version"]
        removed = [c["text"] for c in diff["changes"] if c["change"] == "removed"]
        added = [c["text"] for c in diff["changes"] if c["change"] == "added"]
        assert (diff["lines_removed"], diff["lines_added"]) == (len(removed), len(added))
        before, after = Counter(bodies[older]), Counter(bodies[page["version"]])
        assert Counter(after) - Counter(before) <= Counter(added) and Counter(before) - Counter(after) <= Counter(removed)
        assert Counter(bodies[older]) - Counter(removed) + Counter(added) == after
    back = ok(reader, "diff_page_versions", {"page_id": page["id"], "from_version": 2, "to_version": 1})
    forth = ok(reader, "diff_page_versions", {"page_id": page["id"], "from_version": 1, "to_version": 2})
    assert (back["lines_added"], back["lines_removed"]) == (forth["lines_removed"], forth["lines_added"])
    fails(reader, "diff_page_versions", {"page_id": page["id"], "from_version": 2, "to_version": 2}, "invalid_arguments")
    fails(reader, "diff_page_versions", {"page_id": page["id"], "from_version": 999}, "not_found")


def test_page_tree_lists_levels_in_order_down_to_the_depth(reader: ToolSession) -> None:
    shallow = ok(reader, "get_page_tree", {"space_key": "eng", "depth": 1})
    assert [p["title"] for p in shallow["pages"]] == ["Engineering Home"] and shallow["pages"][0]["children"] == []
    deep = ok(reader, "get_page_tree", {"space_key": "ENG", "depth": 5})
    everything = {p["id"]: p for p in all_pages(reader, {"space_key": "ENG"})}
    assert sorted(tree_ids(deep["pages"])) == sorted(everything) and deep["page_count"] == len(everything)

    def check(items: list[dict[str, Any]], parent: int | None) -> None:
        assert [i["position"] for i in items] == list(range(1, len(items) + 1))
        for item in items:
            assert everything[item["id"]]["parent_id"] == parent and item["child_count"] == len(item["children"])
            check(item["children"], item["id"])

    check(deep["pages"], None)
    home = deep["pages"][0]
    sub = ok(reader, "get_page_tree", {"space_key": "ENG", "root_page_id": home["id"], "depth": 1})
    assert sub["root"] == {"id": home["id"], "title": home["title"]}
    assert [(p["id"], p["child_count"]) for p in sub["pages"]] == [(c["id"], c["child_count"]) for c in home["children"]]
    assert all(p["children"] == [] for p in sub["pages"])
    fails(reader, "get_page_tree", {"space_key": "SUP", "root_page_id": home["id"]}, "invalid_arguments")
    fails(reader, "get_page_tree", {"space_key": "NOPE"}, "not_found")
    fails(reader, "get_page_tree", {"space_key": "ENG", "depth": 6}, "invalid_arguments")


def test_recent_changes_and_contributor_stats_agree_with_the_versions(reader: ToolSession) -> None:
    since, until = "2025-03-01T00:00:00Z", "2025-09-01T00:00:00Z"
    stats = ok(reader, "contributor_stats", {"space_key": "SUP", "since": since, "until": until, "limit": 50})
    hidden = hidden_ids(reader)
    versions = [r for r in rows(reader, "SELECT page_versions.* FROM page_versions JOIN pages ON pages.id = page_id "
                                        "JOIN spaces ON spaces.id = pages.space_id WHERE spaces.key = 'SUP' "
                                        "AND page_versions.created_at >= ? AND page_versions.created_at < ?",
                                (since.replace("T", " ").rstrip("Z"), until.replace("T", " ").rstrip("Z")))
                if r["page_id"] not in hidden]
    edits = Counter(r["author_id"] for r in versions)
    assert {r["user_id"]: r["edits"] for r in stats["contributors"] if r["edits"]} == dict(edits)
    assert stats["total_edits"] == len(versions) and stats["contributor_count"] == len(edits)
    created = Counter(r["author_id"] for r in versions if r["number"] == 1)
    assert all(r["pages_created"] == created[r["user_id"]] for r in stats["contributors"])
    order = [(-r["edits"], -r["comments"], r["name"]) for r in stats["contributors"]]
    assert order == sorted(order)
    top = stats["contributors"][0]
    feed = ok(reader, "list_recent_changes", {"space_key": "SUP", "author_id": top["user_id"], "since": since, "per_page": 100})
    assert sum(c["created_at"] < until for c in feed["changes"]) == top["edits"]
    assert [c["created_at"] for c in feed["changes"]] == sorted((c["created_at"] for c in feed["changes"]), reverse=True)
    assert ok(reader, "contributor_stats", {"space_key": "SUP", "limit": 3})["contributors"] == ok(
        reader, "contributor_stats", {"space_key": "SUP"})["contributors"][:3]
    fails(reader, "contributor_stats", {"space_key": "SUP", "since": until, "until": since}, "invalid_arguments")
    fails(reader, "list_recent_changes", {"author_id": 987654}, "not_found")


def test_spaces_list_and_detail(reader: ToolSession) -> None:
    spaces = ok(reader, "list_spaces")["spaces"]
    assert [s["key"] for s in spaces] == sorted(SPACE_KEYS)
    by_count = ok(reader, "list_spaces", {"sort_by": "page_count"})["spaces"]
    assert [s["page_count"] for s in by_count] == sorted((s["page_count"] for s in spaces), reverse=True)
    detail = ok(reader, "get_space", {"space_key": "sup"})
    assert detail["key"] == "SUP" and detail["page_count"] == next(s for s in spaces if s["key"] == "SUP")["page_count"]
    labels = Counter(label for p in all_pages(reader, {"space_key": "SUP"}) for label in p["labels"])
    assert [(l["label"], l["count"]) for l in detail["top_labels"]] == sorted(labels.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
    home = ok(reader, "get_page", {"page_id": detail["home_page_id"]})
    assert home["parent_id"] is None and home["position"] == 1 and home["space_key"] == "SUP"
    assert "list_spaces" in fails(reader, "get_space", {"space_key": "NOPE"}, "not_found")


def test_search_users_by_name_and_department(reader: ToolSession) -> None:
    support = ok(reader, "search_users", {"department": "Support", "per_page": 100})["users"]
    assert len(support) == 8 and ACTING_USER_ID in {u["id"] for u in support}
    assert [u["name"] for u in support] == sorted(u["name"] for u in support)
    someone = support[-1]
    found = ok(reader, "search_users", {"query": someone["name"].split()[-1].upper()})["users"]
    assert someone in found


# ---------------------------------------------------------------- writes


def test_create_page_places_it_and_makes_version_one(docs: ToolSession) -> None:
    parent = page_titled(docs, "How-to guides")
    before = ok(docs, "get_page", {"page_id": parent["id"]})["child_count"]
    created = ok(docs, "create_page", {"space_key": "eng", "title": "  How to page the on-call  ", "body": "1. Open PagerDuty.",
                                       "parent_id": parent["id"], "position": 2, "labels": ["how-to", "on-call", "how-to"]})
    assert (created["title"], created["space_key"], created["position"], created["version"]) == (
        "How to page the on-call", "ENG", 2, 1)
    assert created["author_id"] == created["updated_by_id"] == ACTING_USER_ID and created["labels"] == ["how-to", "on-call"]
    assert created["created_at"] == created["updated_at"] == now_text(docs) and created["body"] == "1. Open PagerDuty."
    assert created["ancestors"][-1]["id"] == parent["id"] and created["can_edit"]
    changes = {(c.table, c.op) for c in docs.diff()}
    assert changes == {("pages", "insert"), ("pages", "update"), ("page_versions", "insert"), ("page_labels", "insert")}
    tree = ok(docs, "get_page_tree", {"space_key": "ENG", "root_page_id": parent["id"], "depth": 1})["pages"]
    assert [p["position"] for p in tree] == list(range(1, before + 2)) and tree[1]["id"] == created["id"]
    top = ok(docs, "create_page", {"space_key": "ENG", "title": "Scratchpad", "body": "Notes."})
    assert top["parent_id"] is None and top["position"] == 2 and top["ancestors"] == []
    assert ok(docs, "list_recent_changes", {"per_page": 1})["changes"][0]["page_id"] == top["id"]
    fails(docs, "create_page", {"space_key": "ENG", "title": "X", "body": "Y", "parent_id": parent["id"], "position": before + 3},
          "invalid_arguments")
    sup = page_titled(docs, "Known issues", "SUP")
    assert "own space" in fails(docs, "create_page", {"space_key": "ENG", "title": "X", "body": "Y", "parent_id": sup["id"]},
                                "invalid_arguments")
    fails(docs, "create_page", {"space_key": "ENG", "title": "Two\nlines", "body": "Y"}, "invalid_arguments")
    fails(docs, "create_page", {"space_key": "ENG", "title": "   ", "body": "Y"}, "invalid_arguments")
    fails(docs, "create_page", {"space_key": "ENG", "title": "X", "body": ""}, "invalid_arguments")
    fails(docs, "create_page", {"space_key": "ENG", "title": "X", "body": "Y", "labels": ["Not A Label"]}, "invalid_arguments")
    fails(docs, "create_page", {"space_key": "NOPE", "title": "X", "body": "Y"}, "not_found")


def test_update_page_makes_a_new_version_and_keeps_the_old(docs: ToolSession) -> None:
    page = editable_leaf(docs)
    old_body = page["body"]
    updated = ok(docs, "update_page", {"page_id": page["id"], "body": "Step zero: breathe.", "append": True,
                                       "base_version": page["version"], "message": "Added step zero"})
    assert updated["version"] == page["version"] + 1 and updated["body"] == f"{old_body.rstrip()}\n\nStep zero: breathe."
    assert (updated["updated_by_id"], updated["updated_at"], updated["author_id"]) == (
        ACTING_USER_ID, now_text(docs), page["author_id"])
    assert updated["shown_version"]["message"] == "Added step zero"
    assert ok(docs, "get_page", {"page_id": page["id"], "version": page["version"]})["body"] == old_body
    diff = ok(docs, "diff_page_versions", {"page_id": page["id"], "from_version": page["version"]})
    assert [c["text"] for c in diff["changes"] if c["change"] == "added"][-2:] == ["", "Step zero: breathe."]
    assert all(not c["text"].strip() for c in diff["changes"] if c["change"] == "removed")  # only trailing blanks go
    changed = {(c.table, c.op): c for c in docs.diff()}
    assert set(changed) == {("pages", "update"), ("page_versions", "insert")}
    assert set(changed[("pages", "update")].changed) == {"version", "updated_by_id", "updated_at"}

    replaced = ok(docs, "update_page", {"page_id": page["id"], "body": "Only this now."})
    assert replaced["body"] == "Only this now." and replaced["version"] == page["version"] + 2
    error = fails(docs, "update_page", {"page_id": page["id"], "body": "Stale edit", "base_version": page["version"]},
                  "forbidden")
    assert f"at version {page['version'] + 2}" in error and "get_page" in error
    fails(docs, "update_page", {"page_id": page["id"], "body": "Only this now."}, "invalid_arguments")
    too_long = "x" * 9000
    ok(docs, "update_page", {"page_id": page["id"], "body": too_long, "append": True})
    ok(docs, "update_page", {"page_id": page["id"], "body": too_long, "append": True})
    assert "20,000" in fails(docs, "update_page", {"page_id": page["id"], "body": too_long, "append": True}, "invalid_arguments")


def test_rename_and_restore_keep_titles_unique(docs: ToolSession) -> None:
    page = editable_leaf(docs)
    other = next(p for p in all_pages(docs, {"space_key": "ENG", "labels": ["runbook"]}) if p["id"] != page["id"])
    error = fails(docs, "rename_page", {"page_id": page["id"], "title": other["title"].lower()}, "forbidden")
    assert "unique within a space" in error and str(other["id"]) in error
    fails(docs, "create_page", {"space_key": "ENG", "title": other["title"].upper(), "body": "x"}, "forbidden")
    ok(docs, "create_page", {"space_key": "SUP", "title": other["title"], "body": "The same title in another space."})
    fails(docs, "rename_page", {"page_id": page["id"], "title": page["title"]}, "invalid_arguments")
    renamed = ok(docs, "rename_page", {"page_id": page["id"], "title": "Renamed runbook"})
    assert renamed["title"] == "Renamed runbook" and renamed["version"] == page["version"] + 1
    assert renamed["body"] == page["body"] and renamed["shown_version"]["message"] == f"Renamed from \"{page['title']}\""
    assert page_titled(docs, "renamed RUNBOOK")["id"] == page["id"]

    # restoring the old version brings the old title back, unless another page took it meanwhile
    ok(docs, "rename_page", {"page_id": other["id"], "title": "Placeholder"})
    ok(docs, "create_page", {"space_key": "ENG", "title": page["title"], "body": "Took the title."})
    assert "unique within a space" in fails(docs, "restore_page_version", {"page_id": page["id"], "version": 1}, "forbidden")


def test_restore_makes_a_new_version_with_the_old_text(docs: ToolSession) -> None:
    page = editable_leaf(docs)
    first = ok(docs, "get_page", {"page_id": page["id"], "version": 1})
    restored = ok(docs, "restore_page_version", {"page_id": page["id"], "version": 1})
    assert restored["version"] == page["version"] + 1 and restored["body"] == first["body"]
    assert restored["title"] == first["shown_version"]["title"]
    assert restored["shown_version"]["message"] == "Restored version 1"
    assert ok(docs, "list_page_versions", {"page_id": page["id"]})["total"] == page["version"] + 1
    diff = ok(docs, "diff_page_versions", {"page_id": page["id"], "from_version": 1})
    assert diff["changes"] == [] and diff["lines_added"] == diff["lines_removed"] == 0
    fails(docs, "restore_page_version", {"page_id": page["id"], "version": page["version"] + 1}, "invalid_arguments")
    fails(docs, "restore_page_version", {"page_id": page["id"], "version": 999}, "not_found")


def test_move_page_renumbers_both_levels_and_refuses_cycles(docs: ToolSession) -> None:
    runbooks = page_titled(docs, "Runbooks")
    sections = ok(docs, "get_page_tree", {"space_key": "ENG", "root_page_id": runbooks["id"], "depth": 2})["pages"]
    source, target = sections[0], sections[1]
    moving = source["children"][0]
    moved = ok(docs, "move_page", {"page_id": moving["id"], "parent_id": target["id"], "position": 1})
    assert (moved["parent_id"], moved["position"], moved["version"]) == (target["id"], 1, ok(
        docs, "list_page_versions", {"page_id": moving["id"], "per_page": 1})["total"])
    after = {p["id"]: p for p in ok(docs, "get_page_tree", {"space_key": "ENG", "root_page_id": runbooks["id"], "depth": 2})["pages"]}
    assert [c["id"] for c in after[target["id"]]["children"]] == [moving["id"], *(c["id"] for c in target["children"])]
    assert [c["id"] for c in after[source["id"]]["children"]] == [c["id"] for c in source["children"][1:]]
    for level in after.values():
        assert [c["position"] for c in level["children"]] == list(range(1, len(level["children"]) + 1))
    assert {(c.table, c.op) for c in docs.diff()} == {("pages", "update")}

    # within one level: to the end, then back to the front
    last = ok(docs, "move_page", {"page_id": moving["id"], "position": len(target["children"]) + 1})
    assert last["position"] == len(target["children"]) + 1
    assert "already at position" in fails(docs, "move_page", {"page_id": moving["id"], "position": last["position"]},
                                          "invalid_arguments")
    fails(docs, "move_page", {"page_id": moving["id"], "position": last["position"] + 1}, "invalid_arguments")
    assert "own subtree" in fails(docs, "move_page", {"page_id": runbooks["id"], "parent_id": target["id"]}, "invalid_arguments")
    fails(docs, "move_page", {"page_id": runbooks["id"], "parent_id": runbooks["id"]}, "invalid_arguments")
    fails(docs, "move_page", {"page_id": moving["id"], "parent_id": page_titled(docs, "Known issues", "SUP")["id"]}, "invalid_arguments")
    fails(docs, "move_page", {"page_id": moving["id"]}, "invalid_arguments")
    fails(docs, "move_page", {"page_id": moving["id"], "parent_id": target["id"], "top_level": True}, "invalid_arguments")
    top = ok(docs, "move_page", {"page_id": moving["id"], "top_level": True})
    assert top["parent_id"] is None and top["position"] == 2 and top["ancestors"] == []


def test_pages_nest_at_most_ten_levels(docs: ToolSession) -> None:
    parent = None
    for level in range(1, 11):
        parent = ok(docs, "create_page", {"space_key": "IT", "title": f"Level {level}", "body": "x",
                                          **({"parent_id": parent["id"]} if parent else {})})
        assert len(parent["ancestors"]) == level - 1
    assert parent is not None
    assert "at most 10 levels" in fails(docs, "create_page", {"space_key": "IT", "title": "Level 11", "body": "x",
                                                               "parent_id": parent["id"]}, "invalid_arguments")
    level_two = page_titled(docs, "Level 2", "IT")
    deep_runbooks = page_titled(docs, "Runbooks")  # two levels of pages below it
    other = ok(docs, "create_page", {"space_key": "ENG", "title": "Holder", "body": "x"})
    for _ in range(7):  # eight levels: Runbooks' pages two levels below it would reach level 11
        other = ok(docs, "create_page", {"space_key": "ENG", "title": f"Holder {other['id']}", "body": "x",
                                         "parent_id": other["id"]})
    assert "at most 10 levels" in fails(docs, "move_page", {"page_id": deep_runbooks["id"], "parent_id": other["id"]},
                                        "invalid_arguments")
    moved = ok(docs, "move_page", {"page_id": deep_runbooks["id"], "parent_id": other["parent_id"]})
    assert len(moved["ancestors"]) == 7  # its deepest pages now sit at level 10
    assert ok(docs, "move_page", {"page_id": level_two["id"], "top_level": True})["ancestors"] == []


def test_delete_needs_a_page_without_children(docs: ToolSession) -> None:
    section = next(s for s in ok(docs, "get_page_tree", {"space_key": "ENG", "root_page_id": page_titled(docs, "Runbooks")["id"],
                                                          "depth": 2})["pages"] if 1 < len(s["children"]) <= 4)
    error = fails(docs, "delete_page", {"page_id": section["id"]}, "forbidden")
    assert f"has {len(section['children'])} child page" in error and "move or delete its children first" in error
    first, *rest = section["children"]
    comments = ok(docs, "list_page_comments", {"page_id": first["id"]})["total"]
    versions = ok(docs, "list_page_versions", {"page_id": first["id"]})["total"]
    deleted = ok(docs, "delete_page", {"page_id": first["id"]})
    assert (deleted["versions_deleted"], deleted["comments_deleted"]) == (versions, comments)
    assert {(c.table, c.op) for c in docs.diff()} >= {("pages", "delete"), ("page_versions", "delete"), ("page_labels", "delete")}
    fails(docs, "get_page", {"page_id": first["id"]}, "not_found")
    left = ok(docs, "get_page_tree", {"space_key": "ENG", "root_page_id": section["id"], "depth": 1})["pages"]
    assert [(p["id"], p["position"]) for p in left] == [(c["id"], i) for i, c in enumerate(rest, start=1)]
    for child in rest:
        ok(docs, "move_page", {"page_id": child["id"], "top_level": True})
    assert ok(docs, "delete_page", {"page_id": section["id"]})["title"] == section["title"]


def test_labels_are_added_once_and_removed_only_if_present(docs: ToolSession) -> None:
    page = editable_leaf(docs)
    added = ok(docs, "add_page_labels", {"page_id": page["id"], "labels": ["needs-review", page["labels"][0], "needs-review"]})
    assert added["labels"] == sorted({*page["labels"], "needs-review"})
    assert ok(docs, "get_page", {"page_id": page["id"]})["version"] == page["version"]  # labels make no version
    assert page["id"] in {p["id"] for p in all_pages(docs, {"labels": ["needs-review"]})}
    again = docs.state_hash()
    ok(docs, "add_page_labels", {"page_id": page["id"], "labels": ["needs-review"]})
    assert docs.state_hash() == again
    error = fails(docs, "remove_page_labels", {"page_id": page["id"], "labels": ["needs-review", "nope"]}, "invalid_arguments")
    assert "nope" in error and "needs-review" in error
    removed = ok(docs, "remove_page_labels", {"page_id": page["id"], "labels": ["needs-review", page["labels"][0]]})
    assert removed["labels"] == page["labels"][1:]
    fails(docs, "add_page_labels", {"page_id": page["id"], "labels": []}, "invalid_arguments")
    fails(docs, "add_page_labels", {"page_id": page["id"], "labels": ["two words"]}, "invalid_arguments")


def test_comments_inline_and_page_and_resolving(docs: ToolSession) -> None:
    page = editable_leaf(docs)
    quote = page["body"].splitlines()[0][:30]
    inline = ok(docs, "add_comment", {"page_id": page["id"], "body": "Is this right?", "inline_text": quote})
    assert (inline["inline_text"], inline["resolved"], inline["author_id"], inline["created_at"]) == (
        quote, False, ACTING_USER_ID, now_text(docs))
    plain = ok(docs, "add_comment", {"page_id": page["id"], "body": "Looks good."})
    assert plain["inline_text"] is None
    assert "exact piece" in fails(docs, "add_comment", {"page_id": page["id"], "body": "?", "inline_text": "not in the text at all"},
                                  "invalid_arguments")
    fails(docs, "add_comment", {"page_id": page["id"], "body": "?", "inline_text": "   "}, "invalid_arguments")
    listed = ok(docs, "list_page_comments", {"page_id": page["id"], "per_page": 100})["comments"]
    assert [c["id"] for c in listed[-2:]] == [inline["id"], plain["id"]]
    assert [c["created_at"] for c in listed] == sorted(c["created_at"] for c in listed)
    resolved = ok(docs, "resolve_comment", {"comment_id": inline["id"]})
    assert (resolved["resolved"], resolved["resolved_by_id"], resolved["resolved_at"]) == (True, ACTING_USER_ID, now_text(docs))
    unchanged = docs.state_hash()
    ok(docs, "resolve_comment", {"comment_id": inline["id"]})
    assert docs.state_hash() == unchanged
    open_inline = ok(docs, "list_page_comments", {"page_id": page["id"], "status": "open", "kind": "inline", "per_page": 100})
    assert inline["id"] not in {c["id"] for c in open_inline["comments"]}
    assert all(c["inline_text"] and not c["resolved"] for c in open_inline["comments"])
    detail = ok(docs, "get_page", {"page_id": page["id"]})
    assert detail["open_comment_count"] == open_inline["total"] and detail["comment_count"] == len(listed)
    reopened = ok(docs, "resolve_comment", {"comment_id": inline["id"], "resolved": False})
    assert (reopened["resolved"], reopened["resolved_by_id"], reopened["resolved_at"]) == (False, None, None)
    error = fails(docs, "resolve_comment", {"comment_id": plain["id"]}, "forbidden")
    assert "only inline comments can be resolved" in error
    assert "list_page_comments" in fails(docs, "resolve_comment", {"comment_id": 987654}, "not_found")


def test_restrictions_keep_you_in_and_editors_among_viewers(docs: ToolSession) -> None:
    page = editable_leaf(docs)
    colleague = next(u for u in ok(docs, "search_users", {"department": "Support"})["users"] if u["id"] != ACTING_USER_ID)
    locked = ok(docs, "set_page_restrictions", {"page_id": page["id"], "editor_ids": [colleague["id"], ACTING_USER_ID]})
    assert [e["id"] for e in locked["editors"]] == sorted([colleague["id"], ACTING_USER_ID], key=lambda i: next(
        e["name"] for e in locked["editors"] if e["id"] == i)) and locked["can_edit"] and not locked["view_restricted"]
    assert {(c.table, c.op) for c in docs.diff()} == {("page_restrictions", "insert")}
    hidden = ok(docs, "set_page_restrictions", {"page_id": page["id"], "viewer_ids": [ACTING_USER_ID, colleague["id"]]})
    assert hidden["view_restricted"] and {v["id"] for v in hidden["viewers"]} == {ACTING_USER_ID, colleague["id"]}
    assert page["id"] in {p["id"] for p in all_pages(docs, {"space_key": "ENG"})}  # you are a viewer

    for args, code, text in [
        ({"editor_ids": [colleague["id"]]}, "forbidden", "lose the right to edit"),
        ({"viewer_ids": [colleague["id"]], "editor_ids": []}, "forbidden", "lose the right to view"),
        ({"viewer_ids": [ACTING_USER_ID]}, "invalid_arguments", "every editor must also be a viewer"),
        ({"editor_ids": [ACTING_USER_ID, 987654]}, "not_found", "987654"),
        ({}, "invalid_arguments", "viewer_ids, editor_ids"),
    ]:
        assert text in fails(docs, "set_page_restrictions", {"page_id": page["id"], **args}, code)
    lifted = ok(docs, "set_page_restrictions", {"page_id": page["id"], "viewer_ids": [], "editor_ids": []})
    assert lifted["viewers"] == lifted["editors"] == [] and not lifted["view_restricted"]
    assert docs.diff() == []


# ---------------------------------------------------------------- policy: pages edit-restricted to others


def test_every_change_to_a_page_restricted_to_others_is_forbidden(docs: ToolSession) -> None:
    page = restricted_to_others(docs)
    names = sorted(e["name"] for e in page["editors"])
    attempts: list[tuple[str, dict[str, Any]]] = [
        ("update_page", {"page_id": page["id"], "body": "Changed."}),
        ("rename_page", {"page_id": page["id"], "title": "Changed"}),
        ("move_page", {"page_id": page["id"], "top_level": True}),
        ("delete_page", {"page_id": page["id"]}),
        ("restore_page_version", {"page_id": page["id"], "version": 1}),
        ("add_page_labels", {"page_id": page["id"], "labels": ["changed"]}),
        ("remove_page_labels", {"page_id": page["id"], "labels": [page["labels"][0]]}),
        ("set_page_restrictions", {"page_id": page["id"], "editor_ids": [ACTING_USER_ID]}),
    ]
    for tool, args in attempts:
        error = fails(docs, tool, args, "forbidden")
        assert "edit-restricted to" in error and all(name in error for name in names), error
    comment = ok(docs, "add_comment", {"page_id": page["id"], "body": "Could an editor update this?"})
    assert comment["page_id"] == page["id"]  # viewing is enough to comment


def test_pages_restricted_to_you_can_be_edited(docs: ToolSession) -> None:
    mine = rows(docs, "SELECT page_id FROM page_restrictions WHERE operation = 'edit' AND user_id = ? ORDER BY page_id",
                (ACTING_USER_ID,))
    assert mine
    page = ok(docs, "get_page", {"page_id": mine[0]["page_id"]})
    assert page["can_edit"] and ACTING_USER_ID in {e["id"] for e in page["editors"]}
    assert ok(docs, "update_page", {"page_id": page["id"], "body": "Reviewed.", "append": True})["version"] == page["version"] + 1


@pytest.mark.parametrize(("tool", "args", "hint"), [
    ("get_page", {"page_id": 987654}, "search_pages"),
    ("list_page_versions", {"page_id": 987654}, "search_pages"),
    ("diff_page_versions", {"page_id": 987654, "from_version": 1}, "search_pages"),
    ("list_page_comments", {"page_id": 987654}, "search_pages"),
    ("update_page", {"page_id": 987654, "body": "x"}, "search_pages"),
    ("rename_page", {"page_id": 987654, "title": "x"}, "search_pages"),
    ("move_page", {"page_id": 987654, "top_level": True}, "search_pages"),
    ("delete_page", {"page_id": 987654}, "search_pages"),
    ("add_page_labels", {"page_id": 987654, "labels": ["x"]}, "search_pages"),
    ("add_comment", {"page_id": 987654, "body": "x"}, "search_pages"),
    ("search_pages", {"author_id": 987654}, "search_users"),
    ("search_pages", {"parent_id": 987654}, "search_pages"),
    ("get_space", {"space_key": "NOPE"}, "list_spaces"),
    ("get_user_by_email", {"email": "nobody@example.com"}, "search_users"),
])
def test_unknown_ids_are_not_found_and_change_nothing(docs: ToolSession, tool: str, args: dict[str, Any], hint: str) -> None:
    assert hint in fails(docs, tool, args, "not_found")


def test_reset_restores_the_seeded_wiki(docs: ToolSession) -> None:
    seeded = docs.state_hash()
    page = editable_leaf(docs)
    ok(docs, "update_page", {"page_id": page["id"], "body": "Gone after reset."})
    ok(docs, "create_page", {"space_key": "IT", "title": "Temporary", "body": "x"})
    assert docs.state_hash() != seeded
    docs.reset()
    assert docs.state_hash() == seeded
