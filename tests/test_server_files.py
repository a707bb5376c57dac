"""Domain behaviour of the files (drive) server, through the same call path an agent uses."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpgym.servers.catalog import load_server
from mcpgym.servers.files import SERVER
from mcpgym.servers.files.models import FOLDER_MIME, KINDS, kind_of
from mcpgym.servers.kernel.fields import format_timestamp
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.spec import build_seeded
from mcpgym.servers.kernel.world import build_world
from tool_calls import fails, ok

ME = 1
HOME = "@northwindsystems.com"

Row = dict[str, Any]


@pytest.fixture
def session() -> Iterator[ToolSession]:
    with ToolSession(SERVER, 0) as fresh:
        yield fresh


@pytest.fixture(scope="module")
def seeded() -> Iterator[ToolSession]:
    """A session only read from (never written to) by the tests that share it."""
    with ToolSession(SERVER, 0) as fresh:
        yield fresh


def pages(session: ToolSession, tool: str, key: str, args: dict[str, Any] | None = None) -> list[Row]:
    rows: list[Row] = []
    page: int | None = 1
    while page is not None:
        data = ok(session, tool, {**(args or {}), "page": page, "per_page": 100})
        rows += data[key]
        page = data["next_page"]
    return rows


def raw(session: ToolSession, sql: str, params: tuple[Any, ...] = ()) -> list[Row]:
    """Rows of the session's database read past the tools, as dicts."""
    cursor = session._connection.execute(sql, params)  # noqa: SLF001
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def one(session: ToolSession, sql: str, params: tuple[Any, ...] = ()) -> Row:
    rows = raw(session, sql, params)
    assert rows, sql
    return rows[0]


def time_of(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")


def stored(text: str) -> str:
    """An output time as the database stores it."""
    return time_of(text).strftime("%Y-%m-%d %H:%M:%S.%f")


def role(session: ToolSession, file_id: int) -> str:
    return ok(session, "get_file", {"file_id": file_id})["your_role"]


def my_file(session: ToolSession, **where: Any) -> Row:
    """A file you own, not in the trash, in a folder you own or edit."""
    extra = "".join(f" AND {column} = ?" for column in where)
    for row in raw(session, f"SELECT * FROM files WHERE owner_id = ? AND mime_type != ? AND trashed_at IS NULL{extra} "
                            "ORDER BY id", (ME, FOLDER_MIME, *where.values())):
        if role(session, row["folder_id"]) in ("owner", "editor"):
            return row
    raise AssertionError("you own no such file")


def item_where_i_am(session: ToolSession, wanted: str, folder: bool = False) -> Row:
    """An item (not in the trash) on which your role is `wanted`."""
    kind = "=" if folder else "!="
    for row in raw(session, f"SELECT * FROM files WHERE mime_type {kind} ? AND trashed_at IS NULL ORDER BY id DESC",
                   (FOLDER_MIME,)):
        if role(session, row["id"]) == wanted:
            return row
    raise AssertionError(f"you are no {wanted} of anything")


def my_folder(session: ToolSession) -> Row:
    return next(r for r in raw(session, "SELECT * FROM files WHERE owner_id = ? AND mime_type = ? AND trashed_at IS NULL "
                                        "ORDER BY id", (ME, FOLDER_MIME)))


def colleague(session: ToolSession, not_ids: tuple[int, ...] = ()) -> Row:
    return next(u for u in raw(session, "SELECT * FROM users WHERE is_internal ORDER BY id")
                if u["id"] != ME and u["id"] not in not_ids)


def stranger(session: ToolSession, file_id: int) -> Row:
    """An employee with no access to an item beyond what every employee has."""
    holders = {p["user_id"] for p in ok(session, "list_permissions", {"file_id": file_id})["permissions"]}
    return next(u for u in raw(session, "SELECT * FROM users WHERE is_internal ORDER BY id") if u["id"] not in holders)


def top_folder(session: ToolSession, name: str) -> int:
    return one(session, "SELECT id FROM files WHERE folder_id IS NULL AND name = ?", (name,))["id"]


def customer(session: ToolSession) -> Row:
    return one(session, "SELECT * FROM users WHERE NOT is_internal ORDER BY id LIMIT 1")


def storage(session: ToolSession, user_id: int = ME) -> Row:
    return ok(session, "get_storage_usage", {"user_id": user_id})


# ---------------------------------------------------------------- the seeded drive


def test_users_are_the_worlds_people(seeded: ToolSession) -> None:
    world = build_world(0)
    organizations = {o.id: o.name for o in world.organizations}
    users = pages(seeded, "search_users", "users")
    assert len(users) == len(world.people)
    by_email = {u["email"]: u for u in users}
    for index, person in enumerate(world.people, start=1):
        user = by_email[person.email]
        assert (user["id"], user["name"], user["title"], user["timezone"], user["organization_name"]) == (
            index, person.name, person.job_title, person.timezone, organizations[person.organization_id])
        assert user["is_internal"] == person.is_employee == (user["department"] is not None)
    for person in world.people[:5] + world.people[-5:]:
        assert ok(seeded, "get_user_by_email", {"email": person.email.upper()}) == by_email[person.email]
    assert by_email[world.people[0].email]["department"] == "Sales"
    employees = pages(seeded, "search_users", "users", {"is_internal": True})
    assert len(employees) == len(world.employees) and all(u["email"].endswith(HOME) for u in employees)
    assert all(storage(seeded, u["id"])["limit_bytes"] > 0 for u in employees[:10])


def test_the_drive_has_the_volumes_of_a_small_company(seeded: ToolSession) -> None:
    now = seeded.context.now
    files = raw(seeded, "SELECT * FROM files WHERE mime_type != ?", (FOLDER_MIME,))
    folders = raw(seeded, "SELECT * FROM files WHERE mime_type = ?", (FOLDER_MIME,))
    assert len(files) > 2500 and len(folders) > 200
    created = sorted(f["created_at"] for f in files)
    assert created[0] < str(now - timedelta(days=400)) and created[-1] <= str(now)
    assert all(f["created_at"] <= f["modified_at"] <= str(now) for f in files)
    assert Counter(kind_of(f["mime_type"]) for f in files).keys() >= set(KINDS) - {"folder"}
    assert len(raw(seeded, "SELECT id FROM revisions")) > 2 * len(files)
    assert len(raw(seeded, "SELECT id FROM permissions")) > 300
    assert 20 < len([f for f in files if f["trashed_at"] is not None]) < len(files) // 10
    assert sum(f["owner_id"] == ME for f in files) > 30
    top = ok(seeded, "list_folder_contents", {})
    assert {i["name"] for i in top["items"]} == {"Sales", "Marketing", "Engineering", "Product", "Finance", "People",
                                                "Legal", "Operations", "Support", "Customers"}


def test_the_tree_is_consistent(seeded: ToolSession) -> None:
    """Every item's folder is a folder; names are unique (ignoring case) among a folder's live
    items; an item in the trash on its own account or with an explicitly trashed folder above
    it, trashed at the same time; a file's size and last modifier are its last revision's."""
    items = {r["id"]: r for r in raw(seeded, "SELECT * FROM files")}
    names: Counter[tuple[Any, str]] = Counter()
    for item in items.values():
        if item["folder_id"] is not None:
            assert items[item["folder_id"]]["mime_type"] == FOLDER_MIME
        if item["trashed_at"] is None:
            names[(item["folder_id"], item["name"].lower())] += 1
            assert item["folder_id"] is None or items[item["folder_id"]]["trashed_at"] is None
        elif not item["explicitly_trashed"]:
            parent = items[item["folder_id"]]
            while not parent["explicitly_trashed"]:
                parent = items[parent["folder_id"]]
            assert parent["trashed_at"] == item["trashed_at"]
    assert max(names.values()) == 1
    last = {r["file_id"]: r for r in raw(seeded, "SELECT * FROM revisions ORDER BY file_id, number")}
    for item in items.values():
        if item["mime_type"] != FOLDER_MIME:
            assert (last[item["id"]]["size_bytes"], last[item["id"]]["modified_by_id"], last[item["id"]]["modified_at"]) == (
                item["size_bytes"], item["modified_by_id"], item["modified_at"])


def test_customer_folders_link_to_real_crm_accounts_and_contacts() -> None:
    with ToolSession(SERVER, 3) as drive, ToolSession(load_server("crm"), 3) as crm:
        customers = ok(drive, "search_files", {"query": "Customers", "kind": "folder"})["files"]
        root = next(f for f in customers if f["folder_id"] is None)
        accounts = pages(drive, "list_folder_contents", "items", {"folder_id": root["id"]})
        assert len(accounts) == 30
        for summary in accounts:
            folder = ok(drive, "get_file", {"file_id": summary["id"]})
            account = ok(crm, "get_account", {"account_id": folder["crm_account_id"]})
            assert account["name"] == folder["name"] and account["type"] == "customer"
            owner = ok(crm, "list_users", {})["users"]
            assert folder["owner_email"] == next(u["email"] for u in owner if u["id"] == account["owner_id"])
            contract = ok(drive, "search_files", {"folder_id": folder["id"], "query": "Master Services Agreement"})
            assert contract["total"] == 1
            path = ok(drive, "get_file_path", {"file_id": contract["files"][0]["id"]})["path"]
            assert path == f"Customers/{account['name']}/Contracts/{account['name']} - Master Services Agreement.pdf"
            external = [p for p in ok(drive, "list_permissions", {"file_id": folder["id"]})["permissions"]
                        if not p["is_internal"]]
            assert external
            for person in external:
                contact = ok(crm, "find_contact_by_email", {"email": person["email"]})
                assert contact["account_id"] == account["id"] and person["role"] in ("viewer", "commenter")


@pytest.mark.slow  # every server's seeded bytes across two processes: test_kernel, in the default suite
def test_same_seed_same_bytes_whatever_the_hash_seed() -> None:
    code = ("import hashlib; from mcpgym.servers.files import SERVER; from mcpgym.servers.kernel.spec import build_seeded; "
            "print(hashlib.sha256(build_seeded(SERVER, 2)).hexdigest())")
    here = hashlib.sha256(build_seeded(SERVER, 2)).hexdigest()
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    there = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True).stdout.strip()
    assert there == here
    assert build_seeded(SERVER, 3) != build_seeded(SERVER, 2)


# ---------------------------------------------------------------- reads


def test_get_file_agrees_with_the_rows(seeded: ToolSession) -> None:
    mine = my_file(seeded)
    detail = ok(seeded, "get_file", {"file_id": mine["id"]})
    assert (detail["name"], detail["size_bytes"], detail["owner_id"], detail["your_role"], detail["child_count"]) == (
        mine["name"], mine["size_bytes"], ME, "owner", None)
    revisions = ok(seeded, "list_file_revisions", {"file_id": mine["id"]})["revisions"]
    assert detail["revision_count"] == len(revisions) and [r["number"] for r in revisions] == list(
        range(1, len(revisions) + 1))
    assert revisions[-1]["modified_at"] == detail["modified_at"] and revisions[-1]["modified_by_name"] == detail[
        "modified_by_name"]
    assert revisions[0]["modified_by_id"] == ME and revisions[0]["modified_at"] == detail["created_at"]
    folder = ok(seeded, "get_file", {"file_id": mine["folder_id"]})
    children = raw(seeded, "SELECT id FROM files WHERE folder_id = ? AND trashed_at IS NULL", (folder["id"],))
    assert folder["kind"] == "folder" and folder["child_count"] == len(children) and folder["size_bytes"] == 0
    fails(seeded, "list_file_revisions", {"file_id": folder["id"]}, "invalid_arguments")


def test_roles_follow_ownership_and_shares(seeded: ToolSession) -> None:
    """Owner of your files; editor in Sales (shared with you); commenter in Customers (shared
    with the Sales team); viewer elsewhere."""
    assert role(seeded, my_file(seeded)["id"]) == "owner"
    sales = one(seeded, "SELECT id FROM files WHERE name = 'Sales' AND folder_id IS NULL")["id"]
    assert role(seeded, sales) == "editor"
    customers = one(seeded, "SELECT id FROM files WHERE name = 'Customers' AND folder_id IS NULL")["id"]
    assert role(seeded, customers) == "commenter"
    engineering = one(seeded, "SELECT id FROM files WHERE name = 'Engineering' AND folder_id IS NULL")["id"]
    assert role(seeded, engineering) == "viewer"
    for inside in ok(seeded, "search_files", {"folder_id": engineering, "kind": "pdf", "per_page": 20})["files"]:
        shared = {p["user_id"] for p in ok(seeded, "list_permissions", {"file_id": inside["id"]})["permissions"]}
        assert (ME in shared) == (role(seeded, inside["id"]) != "viewer")


def test_folder_pages_concatenate_sorted_with_folders_first(seeded: ToolSession) -> None:
    folder = one(seeded, "SELECT folder_id FROM files WHERE trashed_at IS NULL GROUP BY folder_id "
                         "HAVING count(*) > 60 ORDER BY folder_id LIMIT 1")["folder_id"]
    rows = raw(seeded, "SELECT * FROM files WHERE folder_id = ? AND trashed_at IS NULL", (folder,))
    for sort_by, key in (("name", lambda r: r["name"].lower()), ("size_bytes", lambda r: r["size_bytes"]),
                         ("modified_at", lambda r: r["modified_at"])):
        for order in ("asc", "desc"):
            listed = []
            page: int | None = 1
            while page is not None:
                data = ok(seeded, "list_folder_contents", {"folder_id": folder, "sort_by": sort_by, "sort_order": order,
                                                           "folders_first": False, "page": page, "per_page": 7})
                listed += data["items"]
                page = data["next_page"]
            expected = sorted(rows, key=lambda r: (key(r), r["id"]), reverse=order == "desc")
            assert [i["id"] for i in listed] == [r["id"] for r in expected] and data["total"] == len(rows)
    sub = one(seeded, "SELECT folder_id FROM files WHERE mime_type = ? AND folder_id IS NOT NULL GROUP BY folder_id "
                      "HAVING count(*) > 2 LIMIT 1", (FOLDER_MIME,))["folder_id"]
    parent = one(seeded, "SELECT folder_id FROM files WHERE id = ?", (sub,))["folder_id"]
    listed = ok(seeded, "list_folder_contents", {"folder_id": parent, "per_page": 100})["items"]
    kinds = [i["kind"] == "folder" for i in listed]
    assert kinds == sorted(kinds, reverse=True)
    assert ok(seeded, "list_folder_contents", {"folder_id": parent, "kind": "folder"})["total"] == sum(kinds)


def test_trash_is_hidden_from_listings_and_searches(seeded: ToolSession) -> None:
    trashed = raw(seeded, "SELECT * FROM files WHERE trashed_at IS NOT NULL")
    live_ids = {f["id"] for f in pages(seeded, "search_files", "files")}
    assert live_ids and not live_ids & {t["id"] for t in trashed}
    assert {f["id"] for f in pages(seeded, "search_files", "files", {"trashed": True})} == {t["id"] for t in trashed}
    item = next(t for t in trashed if t["explicitly_trashed"] and t["mime_type"] != FOLDER_MIME)
    listed = pages(seeded, "list_folder_contents", "items", {"folder_id": item["folder_id"]})
    assert item["id"] not in {i["id"] for i in listed}
    folder = next(t for t in trashed if t["mime_type"] == FOLDER_MIME)
    fails(seeded, "list_folder_contents", {"folder_id": folder["id"]}, "invalid_arguments")
    detail = ok(seeded, "get_file", {"file_id": item["id"]})
    assert detail["trashed"] and detail["explicitly_trashed"] and detail["trashed_at"] == format_timestamp(
        datetime.fromisoformat(item["trashed_at"]))


def matches(item: Row, filters: dict[str, Any], reach: dict[int, set[int]], inside: dict[int, set[int]]) -> bool:
    name = item["name"].lower()
    checks = [
        all(word in name for word in filters.get("query", "").lower().split()),
        "kind" not in filters or kind_of(item["mime_type"]) == filters["kind"],
        "mime_type" not in filters or item["mime_type"] == filters["mime_type"],
        "owner_id" not in filters or item["owner_id"] == filters["owner_id"],
        "shared_with_id" not in filters or item["id"] in reach.get(filters["shared_with_id"], set()),
        "folder_id" not in filters or item["id"] in inside[filters["folder_id"]],
        "modified_after" not in filters or item["modified_at"] >= stored(filters["modified_after"]),
        "modified_before" not in filters or item["modified_at"] < stored(filters["modified_before"]),
        "starred" not in filters or bool(item["starred"]) == filters["starred"],
        (item["trashed_at"] is not None) == filters.get("trashed", False),
    ]
    return all(checks)


class Drive(tuple):  # type: ignore[type-arg]
    """Every item, who can open what through shares, and what lies inside each folder (shown
    briefly: hypothesis prints the arguments of a failing example)."""

    def __repr__(self) -> str:
        return f"<drive of {len(self[0])} items>"


@pytest.fixture(scope="module")
def drive(seeded: ToolSession) -> Drive:
    """Every item, who can open what through shares, and what lies inside each folder."""
    items = raw(seeded, "SELECT * FROM files ORDER BY id")
    children: dict[int, list[int]] = {}
    for item in items:
        children.setdefault(item["folder_id"], []).append(item["id"])

    def below(root: int) -> set[int]:
        found, stack = set(), list(children.get(root, []))
        while stack:
            node = stack.pop()
            found.add(node)
            stack += children.get(node, [])
        return found

    inside = {item["id"]: below(item["id"]) for item in items if item["mime_type"] == FOLDER_MIME}
    reach: dict[int, set[int]] = {}
    for permission in raw(seeded, "SELECT file_id, user_id FROM permissions"):
        reach.setdefault(permission["user_id"], set()).update({permission["file_id"]}, inside.get(permission["file_id"], set()))
    return Drive((items, reach, inside))


SORTS = {"name": lambda r: r["name"].lower(), "modified_at": lambda r: r["modified_at"],
         "size_bytes": lambda r: r["size_bytes"], "created_at": lambda r: r["created_at"],
         "trashed_at": lambda r: r["trashed_at"] or ""}


@pytest.mark.parametrize("filters", [
    {"query": "order form"}, {"query": "PROPOSAL 2025"}, {"kind": "pdf", "owner_id": ME},
    {"kind": "other"}, {"mime_type": "video/mp4", "sort_by": "size_bytes"}, {"shared_with_id": ME, "kind": "folder"},
    {"folder_id": "Customers", "kind": "presentation"}, {"starred": True}, {"trashed": True, "owner_id": ME}, {"trashed": True, "sort_by": "trashed_at"},
    {"modified_after": "2025-06-01T00:00:00Z", "modified_before": "2025-07-01T00:00:00Z", "sort_by": "name", "sort_order": "asc"},
    {"query": "100%"}, {"query": "a_b"},
])
def test_each_search_filter_keeps_exactly_the_matching_items(seeded: ToolSession, drive: Any, filters: dict[str, Any]) -> None:
    items, reach, inside = drive
    if "folder_id" in filters:
        filters = {**filters, "folder_id": top_folder(seeded, filters["folder_id"])}
    sort_by, order = filters.get("sort_by", "modified_at"), filters.get("sort_order", "desc")
    wanted = {k: v for k, v in filters.items() if k not in ("sort_by", "sort_order")}
    expected = sorted((i for i in items if matches(i, wanted, reach, inside)),
                      key=lambda r: (SORTS[sort_by](r), r["id"]), reverse=order == "desc")
    found = pages(seeded, "search_files", "files", filters)
    assert [f["id"] for f in found] == [e["id"] for e in expected]


OWNERS = [1, 2, 5, 9, 14, 26]
WORDS = ["proposal", "2025", "q3", "notes", "the", "%", "_", "plan", "v1", "customer"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_search_filters_never_error_and_return_only_matches(seeded: ToolSession, drive: Any, data: st.DataObject) -> None:
    items, reach, inside = drive
    days = st.dates(datetime(2024, 6, 1).date(), datetime(2025, 12, 1).date()).map(lambda d: f"{d}T00:00:00Z")
    filters = data.draw(st.fixed_dictionaries({}, optional={
        "query": st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join),
        "kind": st.sampled_from(sorted(KINDS) + ["other"]), "owner_id": st.sampled_from(OWNERS),
        "shared_with_id": st.sampled_from(OWNERS + [300, 450]),
        "folder_id": st.sampled_from(["Sales", "Customers", "Engineering"]).map(lambda name: top_folder(seeded, name)),
        "modified_after": days, "modified_before": days, "starred": st.booleans(), "trashed": st.booleans()}))
    result = seeded.call("search_files", {**filters, "per_page": 100, "sort_by": "size_bytes"})
    if "modified_after" in filters and "modified_before" in filters and filters["modified_after"] >= filters["modified_before"]:
        assert (result.error or "").startswith("invalid_arguments: modified_after must be earlier than modified_before")
        return
    assert result.ok, result.error
    assert result.data is not None
    expected = sorted((i for i in items if matches(i, filters, reach, inside)), key=lambda r: (r["size_bytes"], r["id"]),
                      reverse=True)
    assert result.data["total"] == len(expected)
    assert [f["id"] for f in result.data["files"]] == [e["id"] for e in expected[:100]]


def test_path_follows_the_folders_up(seeded: ToolSession) -> None:
    deep = one(seeded, "SELECT f.id FROM files f JOIN files p ON p.id = f.folder_id JOIN files g ON g.id = p.folder_id "
                       "WHERE g.folder_id IS NOT NULL AND f.mime_type != ? LIMIT 1", (FOLDER_MIME,))["id"]
    path = ok(seeded, "get_file_path", {"file_id": deep})
    names, node = [], deep
    while node is not None:
        row = one(seeded, "SELECT name, folder_id FROM files WHERE id = ?", (node,))
        names.append(row["name"])
        node = row["folder_id"]
    assert path["path"] == "/".join(reversed(names)) and len(path["folders"]) == len(names) - 1 >= 3
    top = ok(seeded, "get_file_path", {"file_id": path["folders"][0]["id"]})
    assert top["folders"] == [] and top["path"] == top["name"]


def test_permissions_list_owner_direct_and_inherited_access(seeded: ToolSession) -> None:
    contract = ok(seeded, "search_files", {"query": "Master Services Agreement", "kind": "pdf", "per_page": 1})["files"][0]
    listed = ok(seeded, "list_permissions", {"file_id": contract["id"]})["permissions"]
    assert listed[0]["role"] == "owner" and listed[0]["user_id"] == contract["owner_id"] and listed[0]["inherited_from_id"] is None
    chain = [f["id"] for f in ok(seeded, "get_file_path", {"file_id": contract["id"]})["folders"]]
    ranks = {"viewer": 1, "commenter": 2, "editor": 3, "owner": 4}
    assert [ranks[p["role"]] for p in listed] == sorted((ranks[p["role"]] for p in listed), reverse=True)
    for entry in listed[1:]:
        assert entry["inherited_from_id"] in chain
        granted = raw(seeded, "SELECT role FROM permissions WHERE file_id = ? AND user_id = ?",
                      (entry["inherited_from_id"], entry["user_id"]))
        owner = one(seeded, "SELECT owner_id FROM files WHERE id = ?", (entry["inherited_from_id"],))["owner_id"]
        assert (granted and granted[0]["role"] == entry["role"]) or (owner == entry["user_id"] and entry["role"] == "editor")
    assert {p["user_id"] for p in listed} >= {ME}


def test_storage_usage_adds_up_the_files_owned(seeded: ToolSession) -> None:
    for user_id in (ME, 2, 9):
        usage = storage(seeded, user_id)
        owned = raw(seeded, "SELECT * FROM files WHERE owner_id = ? AND mime_type != ?", (user_id, FOLDER_MIME))
        assert usage["used_bytes"] == sum(f["size_bytes"] for f in owned) and usage["file_count"] == len(owned)
        trashed = [f for f in owned if f["trashed_at"] is not None]
        assert (usage["trashed_count"], usage["trashed_bytes"]) == (len(trashed), sum(f["size_bytes"] for f in trashed))
        assert usage["available_bytes"] == usage["limit_bytes"] - usage["used_bytes"] > 0
        assert usage["percent_used"] == round(100 * usage["used_bytes"] / usage["limit_bytes"], 1)
        assert sum(usage["by_kind"].values()) == usage["used_bytes"]
    fails(seeded, "get_storage_usage", {"user_id": customer(seeded)["id"]}, "invalid_arguments")


def test_recent_files_are_the_persons_latest_edits(seeded: ToolSession) -> None:
    since = str(seeded.context.now - timedelta(days=90))
    edits = raw(seeded, "SELECT r.file_id, max(r.modified_at) AS last FROM revisions r JOIN files f ON f.id = r.file_id "
                        "WHERE r.modified_by_id = ? AND r.modified_at >= ? AND f.trashed_at IS NULL GROUP BY r.file_id",
                (2, since))
    found = pages(seeded, "list_recent_files", "files", {"user_id": 2, "days": 90})
    expected = sorted(edits, key=lambda e: (e["last"], e["file_id"]), reverse=True)
    assert [f["id"] for f in found] == [e["file_id"] for e in expected] and found
    assert [stored(f["last_edited_at"]) for f in found] == [e["last"] for e in expected]
    fails(seeded, "list_recent_files", {"days": 0}, "invalid_arguments")


# ---------------------------------------------------------------- writes


def test_create_folder_and_upload_into_it(session: ToolSession) -> None:
    parent = my_folder(session)
    folder = ok(session, "create_folder", {"name": "  Q1 2026 planning ", "folder_id": parent["id"],
                                           "description": "Plans for Q1."})
    assert (folder["name"], folder["folder_id"], folder["owner_id"], folder["your_role"], folder["child_count"]) == (
        "Q1 2026 planning", parent["id"], ME, "owner", 0)
    before = storage(session)
    upload = ok(session, "upload_file", {"name": "Kickoff.pdf", "folder_id": folder["id"], "mime_type": "application/pdf",
                                         "size_bytes": 123456})
    assert (upload["kind"], upload["size_bytes"], upload["revision_count"], upload["modified_by_id"]) == ("pdf", 123456, 1, ME)
    assert storage(session)["used_bytes"] == before["used_bytes"] + 123456
    changes = session.diff()
    assert Counter((c.table, c.op) for c in changes) == {("files", "insert"): 2, ("revisions", "insert"): 1}
    top = ok(session, "create_folder", {"name": "Board prep"})
    assert top["folder_id"] is None and top["name"] in {i["name"] for i in ok(session, "list_folder_contents", {})["items"]}
    fails(session, "create_folder", {"name": "q1 2026 PLANNING", "folder_id": parent["id"]}, "invalid_arguments")
    fails(session, "upload_file", {"name": "kickoff.PDF", "folder_id": folder["id"], "mime_type": "application/pdf",
                                   "size_bytes": 1}, "invalid_arguments")
    fails(session, "upload_file", {"name": "x", "folder_id": upload["id"], "mime_type": "text/plain", "size_bytes": 1},
          "invalid_arguments")
    fails(session, "upload_file", {"name": "x", "folder_id": folder["id"], "mime_type": FOLDER_MIME, "size_bytes": 0},
          "invalid_arguments")


def test_folders_nest_at_most_twenty_deep(session: ToolSession) -> None:
    parent = None
    for level in range(1, 21):
        parent = ok(session, "create_folder", {"name": f"level {level}", "folder_id": parent})["id"]
    error = fails(session, "create_folder", {"name": "level 21", "folder_id": parent}, "invalid_arguments")
    assert "20 levels" in error
    ok(session, "upload_file", {"name": "deep.txt", "folder_id": parent, "mime_type": "text/plain", "size_bytes": 5})
    assert ok(session, "get_file_path", {"file_id": parent})["path"].count("/") == 19
    other = ok(session, "create_folder", {"name": "other"})["id"]
    ok(session, "create_folder", {"name": "inner", "folder_id": other})
    level19 = ok(session, "get_file", {"file_id": parent})["folder_id"]
    fails(session, "move_file", {"file_id": other, "folder_id": level19}, "invalid_arguments")


def test_copy_makes_a_file_you_own_without_shares(session: ToolSession) -> None:
    source = item_where_i_am(session, "viewer")
    destination = my_folder(session)
    copy = ok(session, "copy_file", {"file_id": source["id"], "folder_id": destination["id"]})
    assert (copy["name"], copy["owner_id"], copy["size_bytes"], copy["mime_type"], copy["direct_shares"],
            copy["revision_count"]) == (f"Copy of {source['name']}", ME, source["size_bytes"], source["mime_type"], 0, 1)
    named = ok(session, "copy_file", {"file_id": source["id"], "folder_id": destination["id"], "name": "Mine.bin"})
    assert named["name"] == "Mine.bin"
    fails(session, "copy_file", {"file_id": source["id"], "folder_id": destination["id"]}, "invalid_arguments")
    error = fails(session, "copy_file", {"file_id": destination["id"]}, "invalid_arguments")
    assert "folders cannot be copied" in error
    error = fails(session, "copy_file", {"file_id": source["id"]}, "forbidden")
    assert "only its owner and editors can add items to this folder" in error


def test_rename_and_move_change_only_their_column(session: ToolSession) -> None:
    mine = my_file(session)
    renamed = ok(session, "rename_file", {"file_id": mine["id"], "name": "Renamed report.pdf"})
    assert renamed["name"] == "Renamed report.pdf" and renamed["modified_at"] == format_timestamp(
        datetime.fromisoformat(mine["modified_at"]))
    (change,) = session.diff()
    assert change.op == "update" and {k for k in change.after if change.after[k] != change.before[k]} == {"name"}
    destination = my_folder(session)
    if destination["id"] == mine["folder_id"]:
        destination = ok(session, "create_folder", {"name": "Elsewhere", "folder_id": mine["folder_id"]})
    moved = ok(session, "move_file", {"file_id": mine["id"], "folder_id": destination["id"]})
    assert moved["folder_id"] == destination["id"]
    assert mine["id"] in {i["id"] for i in pages(session, "list_folder_contents", "items", {"folder_id": destination["id"]})}
    again = session.state_hash()
    ok(session, "move_file", {"file_id": mine["id"], "folder_id": destination["id"]})
    ok(session, "rename_file", {"file_id": mine["id"], "name": "Renamed report.pdf"})
    assert session.state_hash() == again


def test_moving_a_folder_takes_its_contents_and_never_goes_inside_itself(session: ToolSession) -> None:
    outer = ok(session, "create_folder", {"name": "Outer"})["id"]
    inner = ok(session, "create_folder", {"name": "Inner", "folder_id": outer})["id"]
    leaf = ok(session, "upload_file", {"name": "a.txt", "folder_id": inner, "mime_type": "text/plain", "size_bytes": 3})
    target = ok(session, "create_folder", {"name": "Target"})["id"]
    fails(session, "move_file", {"file_id": outer, "folder_id": inner}, "invalid_arguments")
    fails(session, "move_file", {"file_id": outer, "folder_id": outer}, "invalid_arguments")
    ok(session, "move_file", {"file_id": outer, "folder_id": target})
    assert ok(session, "get_file_path", {"file_id": leaf["id"]})["path"] == "Target/Outer/Inner/a.txt"
    ok(session, "create_folder", {"name": "Inner", "folder_id": target})
    fails(session, "move_file", {"file_id": inner, "folder_id": target}, "invalid_arguments")
    fails(session, "move_file", {"file_id": inner, "folder_id": leaf["id"]}, "invalid_arguments")


def test_stars_need_view_access_and_descriptions_edit_access(session: ToolSession) -> None:
    theirs = item_where_i_am(session, "viewer")
    starred = ok(session, "update_file", {"file_id": theirs["id"], "starred": not theirs["starred"]})
    assert starred["starred"] is (not theirs["starred"])
    mine = my_file(session)
    described = ok(session, "update_file", {"file_id": mine["id"], "description": "  Final  "})
    assert described["description"] == "Final"
    assert ok(session, "update_file", {"file_id": mine["id"], "description": ""})["description"] is None
    fails(session, "update_file", {"file_id": mine["id"]}, "invalid_arguments")
    assert {f["id"] for f in pages(session, "search_files", "files", {"starred": True})} >= {theirs["id"]} - (
        {theirs["id"]} if theirs["starred"] else set())


def test_share_update_and_remove_a_permission(session: ToolSession) -> None:
    mine = my_file(session)
    person = stranger(session, mine["id"])
    listed = ok(session, "share_file", {"file_id": mine["id"], "email": person["email"].upper(), "role": "commenter"})
    entry = next(p for p in listed["permissions"] if p["user_id"] == person["id"])
    assert (entry["role"], entry["inherited_from_id"], entry["granted_at"]) == (
        "commenter", None, format_timestamp(session.context.now))
    (change,) = session.diff()
    assert change.table == "permissions" and change.op == "insert" and change.after is not None
    assert (change.after["user_id"], change.after["role"], change.after["granted_by_id"]) == (person["id"], "commenter", ME)
    fails(session, "share_file", {"file_id": mine["id"], "email": person["email"], "role": "viewer"}, "invalid_arguments")
    fails(session, "share_file", {"file_id": mine["id"], "email": "ann.olson@northwindsystems.com", "role": "viewer"},
          "invalid_arguments")
    updated = ok(session, "update_permission", {"file_id": mine["id"], "email": person["email"], "role": "editor"})
    assert next(p for p in updated["permissions"] if p["user_id"] == person["id"])["role"] == "editor"
    removed = ok(session, "remove_permission", {"file_id": mine["id"], "email": person["email"]})
    assert person["id"] not in {p["user_id"] for p in removed["permissions"]}
    assert session.diff() == []
    fails(session, "remove_permission", {"file_id": mine["id"], "email": person["email"]}, "invalid_arguments")


def test_a_folder_share_reaches_everything_inside(session: ToolSession) -> None:
    folder = ok(session, "create_folder", {"name": "Shared plans"})["id"]
    sub = ok(session, "create_folder", {"name": "Sub", "folder_id": folder})["id"]
    file = ok(session, "upload_file", {"name": "plan.txt", "folder_id": sub, "mime_type": "text/plain", "size_bytes": 9})
    person = customer(session)
    ok(session, "share_file", {"file_id": folder, "email": person["email"], "role": "viewer"})
    entry = next(p for p in ok(session, "list_permissions", {"file_id": file["id"]})["permissions"] if p["user_id"] == person["id"])
    assert (entry["role"], entry["inherited_from_id"], entry["is_internal"]) == ("viewer", folder, False)
    assert file["id"] in {f["id"] for f in pages(session, "search_files", "files", {"shared_with_id": person["id"]})}
    error = fails(session, "update_permission", {"file_id": file["id"], "email": person["email"], "role": "commenter"},
                  "invalid_arguments")
    assert "Shared plans" in error
    fails(session, "remove_permission", {"file_id": file["id"], "email": person["email"]}, "invalid_arguments")
    ok(session, "share_file", {"file_id": file["id"], "email": person["email"], "role": "commenter"})
    assert next(p for p in ok(session, "list_permissions", {"file_id": file["id"]})["permissions"]
                if p["user_id"] == person["id"])["role"] == "commenter"


def test_transfer_ownership_keeps_you_as_editor(session: ToolSession) -> None:
    mine = my_file(session)
    person = colleague(session)
    before_theirs = storage(session, person["id"])["used_bytes"]
    listed = ok(session, "transfer_ownership", {"file_id": mine["id"], "email": person["email"]})["permissions"]
    assert (listed[0]["user_id"], listed[0]["role"]) == (person["id"], "owner")
    me = next(p for p in listed if p["user_id"] == ME)
    assert me["role"] == "editor"
    assert storage(session, person["id"])["used_bytes"] == before_theirs + mine["size_bytes"]
    assert ok(session, "get_file", {"file_id": mine["id"]})["your_role"] == "editor"
    fails(session, "transfer_ownership", {"file_id": mine["id"], "email": "ann.olson@northwindsystems.com"}, "forbidden")


def test_you_edit_what_others_own_inside_your_folders(session: ToolSession) -> None:
    folder = ok(session, "create_folder", {"name": "Mine"})["id"]
    file = ok(session, "upload_file", {"name": "theirs.txt", "folder_id": folder, "mime_type": "text/plain", "size_bytes": 4})
    person = colleague(session)
    ok(session, "transfer_ownership", {"file_id": file["id"], "email": person["email"]})
    listed = ok(session, "remove_permission", {"file_id": file["id"], "email": "ann.olson@northwindsystems.com"})
    me = next(p for p in listed["permissions"] if p["user_id"] == ME)
    assert (me["role"], me["inherited_from_id"], me["inherited_from_name"]) == ("editor", folder, "Mine")
    assert ok(session, "get_file", {"file_id": file["id"]})["your_role"] == "editor"
    ok(session, "rename_file", {"file_id": file["id"], "name": "still editable.txt"})
    fails(session, "trash_file", {"file_id": file["id"]}, "forbidden")


def test_trash_restore_and_delete_forever(session: ToolSession) -> None:
    folder = ok(session, "create_folder", {"name": "Old stuff"})["id"]
    inner = ok(session, "create_folder", {"name": "Inner", "folder_id": folder})["id"]
    first = ok(session, "upload_file", {"name": "a.txt", "folder_id": inner, "mime_type": "text/plain", "size_bytes": 10})
    second = ok(session, "upload_file", {"name": "b.txt", "folder_id": folder, "mime_type": "text/plain", "size_bytes": 20})
    alone = ok(session, "trash_file", {"file_id": second["id"]})
    assert (alone["trashed"], alone["items"]) == (True, 1)
    whole = ok(session, "trash_file", {"file_id": folder})
    assert whole["items"] == 3
    fails(session, "trash_file", {"file_id": folder}, "invalid_arguments")
    assert not ok(session, "search_files", {"query": "a.txt"})["total"]
    trash = {f["id"] for f in pages(session, "search_files", "files", {"trashed": True, "owner_id": ME})}
    assert {folder, inner, first["id"], second["id"]} <= trash
    error = fails(session, "restore_file", {"file_id": first["id"]}, "invalid_arguments")
    assert "Old stuff" in error
    fails(session, "delete_forever", {"file_id": inner}, "invalid_arguments")
    fails(session, "restore_file", {"file_id": second["id"]}, "invalid_arguments")  # its folder is in the trash
    back = ok(session, "restore_file", {"file_id": folder})
    assert back["items"] == 3 and not ok(session, "get_file", {"file_id": inner})["trashed"]
    assert ok(session, "get_file", {"file_id": second["id"]})["trashed"]  # trashed on its own, stays there
    fails(session, "restore_file", {"file_id": folder}, "invalid_arguments")
    ok(session, "upload_file", {"name": "B.TXT", "folder_id": folder, "mime_type": "text/plain", "size_bytes": 1})
    fails(session, "restore_file", {"file_id": second["id"]}, "invalid_arguments")  # its name is taken
    used = storage(session)["used_bytes"]
    gone = ok(session, "delete_forever", {"file_id": second["id"]})
    assert (gone["deleted_items"], gone["freed_bytes"], gone["owner_id"]) == (1, 20, ME)
    assert storage(session)["used_bytes"] == used - 20 and gone["available_bytes"] == storage(session)["available_bytes"]
    fails(session, "get_file", {"file_id": second["id"]}, "not_found")
    assert not raw(session, "SELECT id FROM revisions WHERE file_id = ?", (second["id"],))


def test_empty_trash_deletes_only_your_items_with_their_contents(session: ToolSession) -> None:
    mine = raw(session, "SELECT * FROM files WHERE owner_id = ? AND trashed_at IS NOT NULL", (ME,))
    explicit = [m for m in mine if m["explicitly_trashed"]]
    others = raw(session, "SELECT id FROM files WHERE trashed_at IS NOT NULL AND owner_id != ?", (ME,))
    inside_mine = raw(session, "SELECT f.id FROM files f JOIN files p ON p.id = f.folder_id "
                               "WHERE p.owner_id = ? AND p.explicitly_trashed AND f.owner_id != ?", (ME, ME))
    assert explicit and others
    before = storage(session)
    result = ok(session, "empty_trash", {})
    assert result["deleted_items"] == len(mine) + len(inside_mine)
    after = storage(session)
    assert after["trashed_count"] == 0 and after["used_bytes"] == before["used_bytes"] - before["trashed_bytes"]
    left = {r["id"] for r in raw(session, "SELECT id FROM files WHERE trashed_at IS NOT NULL")}
    assert left == {o["id"] for o in others} - {i["id"] for i in inside_mine}
    hashed = session.state_hash()
    assert ok(session, "empty_trash", {}) == {"deleted_items": 0, "freed_bytes": 0, "owner_id": ME,
                                              "available_bytes": after["available_bytes"]}
    assert session.state_hash() == hashed and result["available_bytes"] == after["available_bytes"]
    deleted = {d.key for d in session.diff() if d.table == "permissions" and d.op == "delete"}
    assert all(d.before is not None and d.before["file_id"] not in left for d in session.diff() if d.key in deleted)


# ---------------------------------------------------------------- the policy: forbidden, said why, nothing changed


@pytest.mark.parametrize("wanted", ["viewer", "commenter"])
def test_viewers_and_commenters_cannot_change_share_move_or_add(session: ToolSession, wanted: str) -> None:
    item = item_where_i_am(session, wanted)
    folder = item_where_i_am(session, wanted, folder=True)
    person = colleague(session, (item["owner_id"], folder["owner_id"]))
    owner = one(session, "SELECT name FROM users WHERE id = ?", (item["owner_id"],))["name"]
    mine = my_folder(session)
    for tool, args, rule in [
        ("rename_file", {"file_id": item["id"], "name": "x"}, "only its owner and editors can rename"),
        ("move_file", {"file_id": item["id"], "folder_id": mine["id"]}, "only its owner and editors can move"),
        ("share_file", {"file_id": item["id"], "email": person["email"], "role": "viewer"}, "can share"),
        ("update_file", {"file_id": item["id"], "description": "x"}, "can change the description"),
        ("trash_file", {"file_id": item["id"]}, "only its owner can move to the trash"),
        ("transfer_ownership", {"file_id": item["id"], "email": person["email"]}, "only its owner can transfer"),
        ("create_folder", {"name": "x", "folder_id": folder["id"]}, "can add items to this folder"),
        ("upload_file", {"name": "x", "folder_id": folder["id"], "mime_type": "text/plain", "size_bytes": 1}, "add items"),
        ("move_file", {"file_id": my_file(session)["id"], "folder_id": folder["id"]}, "add items to this folder"),
    ]:
        error = fails(session, tool, args, "forbidden")
        assert rule in error, error
    error = fails(session, "rename_file", {"file_id": item["id"], "name": "x"}, "forbidden")
    assert f"you are a {wanted}" in error and owner in error


def test_only_the_owner_trashes_restores_or_deletes(session: ToolSession) -> None:
    theirs = one(session, "SELECT * FROM files WHERE owner_id != ? AND explicitly_trashed AND mime_type != ? LIMIT 1",
                 (ME, FOLDER_MIME))
    fails(session, "restore_file", {"file_id": theirs["id"]}, "forbidden")
    error = fails(session, "delete_forever", {"file_id": theirs["id"]}, "forbidden")
    assert "only its owner can delete" in error
    edited = item_where_i_am(session, "editor")
    error = fails(session, "trash_file", {"file_id": edited["id"]}, "forbidden")
    assert "you are an editor" in error


def test_customers_may_view_or_comment_but_never_edit(session: ToolSession) -> None:
    mine = my_file(session)
    person = customer(session)
    error = fails(session, "share_file", {"file_id": mine["id"], "email": person["email"], "role": "editor"}, "forbidden")
    assert "outside Northwind Systems" in error and "never editor" in error
    ok(session, "share_file", {"file_id": mine["id"], "email": person["email"], "role": "commenter"})
    fails(session, "update_permission", {"file_id": mine["id"], "email": person["email"], "role": "editor"}, "forbidden")


def test_ownership_goes_only_to_the_company(session: ToolSession) -> None:
    mine = my_file(session)
    person = customer(session)
    error = fails(session, "transfer_ownership", {"file_id": mine["id"], "email": person["email"]}, "forbidden")
    assert HOME in error and person["organization_name"] in error


def test_the_trash_is_read_only(session: ToolSession) -> None:
    trashed = one(session, "SELECT * FROM files WHERE owner_id = ? AND explicitly_trashed AND mime_type != ? LIMIT 1",
                  (ME, FOLDER_MIME))
    person = colleague(session)
    mine = my_folder(session)
    for tool, args in [
        ("share_file", {"file_id": trashed["id"], "email": person["email"], "role": "viewer"}),
        ("move_file", {"file_id": trashed["id"], "folder_id": mine["id"]}),
        ("rename_file", {"file_id": trashed["id"], "name": "x"}),
        ("copy_file", {"file_id": trashed["id"], "folder_id": mine["id"]}),
        ("update_file", {"file_id": trashed["id"], "starred": True}),
        ("transfer_ownership", {"file_id": trashed["id"], "email": person["email"]}),
    ]:
        assert "is in the trash" in fails(session, tool, args, "forbidden")
    folder = one(session, "SELECT * FROM files WHERE owner_id = ? AND explicitly_trashed AND mime_type = ? LIMIT 1",
                 (ME, FOLDER_MIME))
    fails(session, "upload_file", {"name": "x", "folder_id": folder["id"], "mime_type": "text/plain", "size_bytes": 1},
          "forbidden")


def test_delete_forever_only_from_the_trash(session: ToolSession) -> None:
    mine = my_file(session)
    error = fails(session, "delete_forever", {"file_id": mine["id"]}, "forbidden")
    assert "only items in the trash can be deleted forever" in error


def test_uploads_copies_and_transfers_stop_at_the_quota(session: ToolSession) -> None:
    usage = storage(session)
    folder = my_folder(session)
    error = fails(session, "upload_file", {"name": "webinar.mp4", "folder_id": folder["id"], "mime_type": "video/mp4",
                                           "size_bytes": usage["available_bytes"] + 1}, "forbidden")
    assert f"{usage['limit_bytes']:,}" in error and f"{usage['available_bytes']:,} available" in error
    ok(session, "upload_file", {"name": "webinar.mp4", "folder_id": folder["id"], "mime_type": "video/mp4",
                                "size_bytes": usage["available_bytes"]})
    assert storage(session)["available_bytes"] == 0
    fails(session, "copy_file", {"file_id": my_file(session)["id"], "folder_id": folder["id"]}, "forbidden")
    full = next(u for u in raw(session, "SELECT * FROM users WHERE is_internal AND id != ? ORDER BY id", (ME,))
                if storage(session, u["id"])["available_bytes"] < 1_000_000_000)
    big = ok(session, "upload_file", {"name": "big.zip", "folder_id": folder["id"], "mime_type": "application/zip",
                                      "size_bytes": 0})
    session._connection.execute("UPDATE files SET size_bytes = ? WHERE id = ?", (1_000_000_000, big["id"]))  # noqa: SLF001
    session._connection.commit()  # noqa: SLF001 (a large file of yours, past the tools)
    error = fails(session, "transfer_ownership", {"file_id": big["id"], "email": full["email"]}, "forbidden")
    assert full["name"] in error and "quota" in error


# ---------------------------------------------------------------- bad input


BAD_INPUT: list[tuple[str, Callable[[ToolSession], dict[str, Any]], str]] = [
    ("get_file", lambda s: {"file_id": 987654}, "not_found"),
    ("get_file", lambda s: {"file_id": True}, "invalid_arguments"),
    ("get_file", lambda s: {"file_id": 2**70}, "invalid_arguments"),
    ("get_user_by_email", lambda s: {"email": "nobody@example.com"}, "not_found"),
    ("get_user_by_email", lambda s: {"email": "not an email"}, "invalid_arguments"),
    ("search_files", lambda s: {"owner_id": 987654}, "not_found"),
    ("search_files", lambda s: {"folder_id": my_file(s)["id"]}, "invalid_arguments"),
    ("search_files", lambda s: {"modified_after": "2025-05-01", "modified_before": "2025-04-01"}, "invalid_arguments"),
    ("search_files", lambda s: {"query": "x" * 201}, "invalid_arguments"),
    ("search_files", lambda s: {"query": "a\x00b"}, "invalid_arguments"),
    ("search_files", lambda s: {"per_page": 101}, "invalid_arguments"),
    ("search_files", lambda s: {"kind": "spreadsheets"}, "invalid_arguments"),
    ("search_files", lambda s: {"mime_type": "PDF"}, "invalid_arguments"),
    ("list_folder_contents", lambda s: {"folder_id": my_file(s)["id"]}, "invalid_arguments"),
    ("list_folder_contents", lambda s: {"folder_id": 987654}, "not_found"),
    ("list_recent_files", lambda s: {"user_id": 987654}, "not_found"),
    ("list_recent_files", lambda s: {"days": 366}, "invalid_arguments"),
    ("get_storage_usage", lambda s: {}, "invalid_arguments"),
    ("create_folder", lambda s: {"name": ""}, "invalid_arguments"),
    ("create_folder", lambda s: {"name": "   "}, "invalid_arguments"),
    ("create_folder", lambda s: {"name": "a/b"}, "invalid_arguments"),
    ("create_folder", lambda s: {"name": "tab\there"}, "invalid_arguments"),
    ("create_folder", lambda s: {"name": ".."}, "invalid_arguments"),
    ("create_folder", lambda s: {"name": "x" * 256}, "invalid_arguments"),
    ("create_folder", lambda s: {"name": "ok", "description": "d" * 1001}, "invalid_arguments"),
    ("create_folder", lambda s: {"name": "ok", "folder_id": 987654}, "not_found"),
    ("upload_file", lambda s: {"name": "a", "folder_id": my_folder(s)["id"], "mime_type": "text/plain",
                               "size_bytes": -1}, "invalid_arguments"),
    ("upload_file", lambda s: {"name": "a", "folder_id": my_folder(s)["id"], "mime_type": "text/plain",
                               "size_bytes": 6_000_000_000_000}, "invalid_arguments"),
    ("upload_file", lambda s: {"name": "a", "folder_id": my_folder(s)["id"], "mime_type": "no-slash",
                               "size_bytes": 1}, "invalid_arguments"),
    ("upload_file", lambda s: {"name": "a", "mime_type": "text/plain", "size_bytes": 1}, "invalid_arguments"),
    ("share_file", lambda s: {"file_id": my_file(s)["id"], "email": "nobody@example.com", "role": "viewer"}, "not_found"),
    ("share_file", lambda s: {"file_id": my_file(s)["id"], "email": "a@b.co", "role": "owner"}, "invalid_arguments"),
    ("update_permission", lambda s: {"file_id": my_file(s)["id"], "email": "mary.cherry@northwindsystems.com",
                                     "role": "writer"}, "invalid_arguments"),
    ("remove_permission", lambda s: {"file_id": 987654, "email": "mary.cherry@northwindsystems.com"}, "not_found"),
    ("update_file", lambda s: {"file_id": my_file(s)["id"], "starred": "maybe"}, "invalid_arguments"),
    ("move_file", lambda s: {"file_id": my_file(s)["id"], "folder_id": None}, "invalid_arguments"),
    ("trash_file", lambda s: {"file_id": -1}, "not_found"),
    ("empty_trash", lambda s: {"everything": True}, "invalid_arguments"),
]


@pytest.mark.parametrize(("tool", "args", "code"), BAD_INPUT, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(BAD_INPUT)])
def test_bad_input_is_a_clear_error_and_changes_nothing(session: ToolSession, tool: str,
                                                        args: Callable[[ToolSession], dict[str, Any]], code: str) -> None:
    error = fails(session, tool, args(session), code)
    assert len(error) < 600 and "Traceback" not in error


def test_a_failed_write_leaves_no_partial_change(session: ToolSession) -> None:
    """A move that fails on its last check (a name taken in the destination) leaves nothing written."""
    mine = my_file(session)
    destination = ok(session, "create_folder", {"name": "Destination"})["id"]
    ok(session, "upload_file", {"name": mine["name"].upper(), "folder_id": destination, "mime_type": "text/plain",
                                "size_bytes": 1})
    fails(session, "move_file", {"file_id": mine["id"], "folder_id": destination}, "invalid_arguments")
    assert ok(session, "get_file", {"file_id": mine["id"]})["folder_id"] == mine["folder_id"]
