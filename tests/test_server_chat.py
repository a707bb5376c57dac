"""Domain behaviour of the chat server, through the same call path an agent uses."""

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
from mcpgym.servers.chat import SERVER
from mcpgym.servers.kernel.fields import format_timestamp
from mcpgym.servers.kernel.initial_state import RowPatch
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.spec import build_seeded
from mcpgym.servers.kernel.world import build_world
from tool_calls import fails, ok

ME = 1

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


def channels(session: ToolSession, **args: Any) -> list[Row]:
    return pages(session, "list_channels", "channels", {"state": "all", **args})


def channel(session: ToolSession, name: str) -> Row:
    return ok(session, "find_channel", {"name": name})


def now_text(session: ToolSession) -> str:
    return format_timestamp(session.context.now)


def raw(session: ToolSession, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Rows of the session's database, read past the tools (to find what user 1 cannot see)."""
    return session._connection.execute(sql, params).fetchall()  # noqa: SLF001


def hidden_channel(session: ToolSession, kind: str = "private") -> int:
    """A conversation of `kind` user 1 is not in."""
    return raw(session, "SELECT id FROM channels WHERE kind = ? AND id NOT IN "
                        "(SELECT channel_id FROM memberships WHERE user_id = ?) ORDER BY id LIMIT 1", (kind, ME))[0][0]


def my_message(session: ToolSession, **filters: Any) -> Row:
    """User 1's latest top-level message in an active public channel, without replies unless asked."""
    for message in pages(session, "search_messages", "messages", {"from_user_id": ME, "top_level_only": True, **filters}):
        if message["channel_name"] and not channel(session, message["channel_name"])["is_archived"]:
            return message
    raise AssertionError("user 1 has no such message")


def others_message(session: ToolSession, channel_id: int) -> Row:
    found = ok(session, "get_channel_history", {"channel_id": channel_id, "per_page": 50})["messages"]
    return next(m for m in found if m["user_id"] != ME and not m["is_deleted"])


@pytest.fixture(scope="module")
def everything(seeded: ToolSession) -> list[Row]:
    """Every message user 1 can see, newest first."""
    return pages(seeded, "search_messages", "messages")


# ---------------------------------------------------------------- the seeded workspace


def test_users_are_the_worlds_employees_then_guests_of_key_customers(seeded: ToolSession) -> None:
    world = build_world(0)
    users = pages(seeded, "list_users", "users")
    by_email = {u["email"]: u for u in users}
    organizations = {o.id: o.name for o in world.organizations}
    for index, person in enumerate(world.employees, start=1):
        user = by_email[person.email]
        assert (user["id"], user["name"], user["title"], user["timezone"], user["organization_name"]) == (
            index, person.name, person.job_title, person.timezone, world.home.name)
        assert user["role"] == ("owner" if index == 2 else "admin" if index in (3, 4) else "member")
    guests = [u for u in users if u["role"] == "guest"]
    people = {p.email: p for p in world.customers}
    assert len(users) == len(world.employees) + len(guests) and len(guests) >= 15
    for guest in guests:
        person = people[guest["email"]]
        assert (guest["name"], guest["title"], organizations[person.organization_id]) == (
            person.name, person.job_title, guest["organization_name"])
        assert guest["id"] > len(world.employees)
    for user in users:
        assert ok(seeded, "get_user_by_email", {"email": user["email"].upper()}) == user


def test_the_workspace_spans_more_than_a_year_of_varied_activity(seeded: ToolSession, everything: list[Row]) -> None:
    now = seeded.context.now
    times = [datetime.strptime(m["created_at"], "%Y-%m-%dT%H:%M:%SZ") for m in everything]
    assert len(everything) > 3000 and max(times) <= now and min(times) < now - timedelta(days=400)
    replies = [m for m in everything if m["thread_parent_id"] is not None]
    shown = {m["id"] for m in everything}  # all but deleted thread starters, whose replies remain
    assert len(replies) > 800 and sum(m["reply_count"] for m in everything) == sum(
        r["thread_parent_id"] in shown for r in replies) < len(replies)
    assert sum(bool(m["reactions"]) for m in everything) > 500
    assert sum(m["edited_at"] is not None for m in everything) > 100
    assert sum(m["user_id"] == ME for m in everything) > 50
    assert sum(any(x["user_id"] == ME for x in m["mentions"]) for m in everything) > 10
    kinds = Counter(c["kind"] for c in channels(seeded, kinds=["public", "private", "dm", "group_dm"]))
    assert kinds["public"] >= 25 and kinds["private"] >= 2 and kinds["dm"] >= 10 and kinds["group_dm"] >= 3
    archived = channels(seeded, state="archived")
    assert len(archived) >= 4 and all(c["is_archived"] for c in archived)
    general = channel(seeded, "general")
    assert general["member_count"] == len(build_world(0).employees) and general["pinned_count"] > 0


def test_shared_channels_link_to_real_crm_accounts_and_their_owners() -> None:
    with ToolSession(SERVER, 3) as chat, ToolSession(load_server("crm"), 3) as crm:
        shared = channels(chat, shared_only=True)
        assert len(shared) == 10
        crm_users = {u["id"]: u for u in ok(crm, "list_users")["users"]}
        for summary in shared:
            account = ok(crm, "get_account", {"account_id": summary["crm_account_id"]})
            assert account["type"] == "customer" and account["name"] in summary["topic"]
            detail = ok(chat, "get_channel", {"channel_id": summary["id"]})
            creator = ok(chat, "get_user", {"user_id": detail["creator_id"]})
            assert creator["email"] == crm_users[account["owner_id"]]["email"]
            guests = pages(chat, "list_channel_members", "members", {"channel_id": summary["id"], "role": "guest"})
            assert guests and all(g["organization_name"] == account["name"] for g in guests)
            said = ok(chat, "search_messages", {"channel_id": summary["id"], "query": account["name"], "per_page": 1})
            assert said["total"] > 0
        sales = ok(chat, "search_messages", {"channel_id": channel(chat, "sales")["id"], "per_page": 100})["messages"]
        names = {a["name"] for a in pages(crm, "search_accounts", "accounts")}
        assert sum(any(name in m["text"] for name in names) for m in sales) > 20


@pytest.mark.slow  # every server's seeded bytes across two processes: test_kernel, in the default suite
def test_same_seed_same_bytes_whatever_the_hash_seed() -> None:
    """Seeding draws in a fixed order: no iteration over sets of strings, whose order follows
    the process's hash seed."""
    code = ("import hashlib; from mcpgym.servers.chat import SERVER; from mcpgym.servers.kernel.spec import build_seeded; "
            "print(hashlib.sha256(build_seeded(SERVER, 2)).hexdigest())")
    here = hashlib.sha256(build_seeded(SERVER, 2)).hexdigest()
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    there = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True).stdout.strip()
    assert there == here
    assert build_seeded(SERVER, 3) != build_seeded(SERVER, 2)


# ---------------------------------------------------------------- private conversations do not exist for others


def refused(session: ToolSession, tool: str, args: dict[str, Any]) -> str:
    """The not_found answer of a call (the state is compared once, by the caller)."""
    result = session.call(tool, args)
    assert (result.error or "").startswith("not_found: "), (tool, result.text[:200])
    return result.error or ""


def test_private_channels_and_others_dms_do_not_exist_for_non_members(session: ToolSession, everything: list[Row]) -> None:
    seeded_hash = session.state_hash()
    absent = 987654
    visible = {c["id"] for c in channels(session, kinds=["public", "private", "dm", "group_dm"])}
    for kind in ("private", "dm", "group_dm"):
        hidden = hidden_channel(session, kind)
        message_id = raw(session, "SELECT id FROM messages WHERE channel_id = ? LIMIT 1", (hidden,))[0][0]
        for tool, args in [("get_channel", {"channel_id": hidden}), ("list_channel_members", {"channel_id": hidden}),
                           ("get_channel_history", {"channel_id": hidden}), ("channel_stats", {"channel_id": hidden}),
                           ("search_messages", {"channel_id": hidden}), ("list_mentions", {"channel_id": hidden}),
                           ("join_channel", {"channel_id": hidden}), ("post_message", {"channel_id": hidden, "text": "hi"}),
                           ("archive_channel", {"channel_id": hidden}), ("invite_to_channel", {"channel_id": hidden, "user_ids": [5]})]:
            # word for word the answer for an id that names nothing
            assert refused(session, tool, args) == refused(session, tool, {**args, "channel_id": absent}).replace(
                str(absent), str(hidden))
        for tool, args in [("get_thread_replies", {"message_id": message_id}),
                           ("add_reaction", {"message_id": message_id, "emoji": "eyes"}),
                           ("reply_in_thread", {"message_id": message_id, "text": "hi"}),
                           ("pin_message", {"message_id": message_id})]:
            assert refused(session, tool, args) == refused(session, tool, {**args, "message_id": absent}).replace(
                str(absent), str(message_id))
        assert hidden not in visible and hidden not in {m["channel_id"] for m in everything}
    private = hidden_channel(session)
    name = raw(session, "SELECT name FROM channels WHERE id = ?", (private,))[0][0]
    refused(session, "find_channel", {"name": name})
    assert not ok(session, "list_channels", {"query": name, "kinds": ["private"]})["total"]
    insider = raw(session, "SELECT user_id FROM memberships WHERE channel_id = ? ORDER BY user_id LIMIT 1", (private,))[0][0]
    assert {m["channel_id"] for m in pages(session, "list_mentions", "mentions", {"user_id": insider})} <= visible
    assert session.state_hash() == seeded_hash


def test_members_see_their_private_channels(session: ToolSession) -> None:
    mine = channels(session, kinds=["private"])
    assert mine and all(c["is_member"] for c in mine)
    members = pages(session, "list_channel_members", "members", {"channel_id": mine[0]["id"]})
    assert ME in {m["user_id"] for m in members} and len(members) == mine[0]["member_count"]
    dms = channels(session, kinds=["dm", "group_dm"])
    assert dms and all(c["is_member"] and c["name"] is None and c["participant_names"] for c in dms)
    for dm in dms:
        assert len(dm["participant_names"]) == dm["member_count"] - 1


# ---------------------------------------------------------------- reads, filters and pages


def test_find_channel_takes_a_hash_and_any_case(seeded: ToolSession) -> None:
    sales = channel(seeded, "sales")
    assert channel(seeded, "#Sales") == sales == ok(seeded, "get_channel", {"channel_id": sales["id"]})
    assert sales["message_count"] == len(pages(seeded, "get_channel_history", "messages",
                                               {"channel_id": sales["id"], "include_replies": True}))
    assert sales["pinned_count"] == len(sales["pins"]) == ok(
        seeded, "search_messages", {"channel_id": sales["id"], "is_pinned": True})["total"]
    assert "find_channel" in fails(seeded, "find_channel", {"name": "no-such-channel"}, "not_found")


def test_list_channels_filters_and_sorts(seeded: ToolSession) -> None:
    everything = channels(seeded, kinds=["public", "private", "dm", "group_dm"])
    active = channels(seeded, state="active")
    assert [c["name"] for c in active] == sorted(c["name"] for c in active)
    assert {c["id"] for c in active} == {c["id"] for c in everything if c["kind"] in ("public", "private") and not c["is_archived"]}
    mine = channels(seeded, member_only=True)
    assert mine and all(c["is_member"] for c in mine)
    eng = channels(seeded, query="Engineering")
    assert eng and all("engineering" in (c["name"] + c["topic"] + c["purpose"]).lower() for c in eng)
    by_members = channels(seeded, sort_by="member_count", sort_order="desc")
    counts = [c["member_count"] for c in by_members]
    assert counts == sorted(counts, reverse=True) and by_members[0]["name"] == "general"
    recent = channels(seeded, sort_by="last_message_at", sort_order="desc", kinds=["dm", "group_dm"])
    last = [c["last_message_at"] for c in recent if c["last_message_at"]]
    assert last == sorted(last, reverse=True)


def test_history_pages_concatenate_in_time_order(seeded: ToolSession) -> None:
    sales = channel(seeded, "sales")["id"]
    args = {"channel_id": sales, "oldest": "2025-01-01", "latest": "2025-09-01"}
    full = pages(seeded, "get_channel_history", "messages", args)
    assert full and all(m["thread_parent_id"] is None and "2025-01-01" <= m["created_at"] < "2025-09-01" for m in full)
    times = [m["created_at"] for m in full]
    assert times == sorted(times, reverse=True)
    collected, page = [], 1
    while page:
        data = ok(seeded, "get_channel_history", {**args, "page": page, "per_page": 7, "sort_order": "asc"})
        assert data["total"] == len(full)
        collected += data["messages"]
        page = data["next_page"]
    assert [m["id"] for m in collected] == [m["id"] for m in reversed(full)]
    with_replies = pages(seeded, "get_channel_history", "messages", {**args, "include_replies": True})
    assert len(with_replies) == len(full) + sum(1 for m in with_replies if m["thread_parent_id"] is not None)
    error = fails(seeded, "get_channel_history", {"channel_id": sales, "oldest": "2025-05-01", "latest": "2025-05-01"},
                  "invalid_arguments")
    assert "oldest must be earlier than latest" in error


def test_threads_list_their_replies_from_any_message_of_the_thread(seeded: ToolSession, everything: list[Row]) -> None:
    root = next(m for m in everything if m["reply_count"] >= 3)
    thread = ok(seeded, "get_thread_replies", {"message_id": root["id"]})
    assert thread["root"]["id"] == root["id"] and thread["total"] == root["reply_count"] == len(thread["replies"])
    assert all(r["thread_parent_id"] == root["id"] for r in thread["replies"])
    assert [r["created_at"] for r in thread["replies"]] == sorted(r["created_at"] for r in thread["replies"])
    assert thread["replies"][-1]["created_at"] == root["last_reply_at"]
    assert ok(seeded, "get_thread_replies", {"message_id": thread["replies"][1]["id"]}) == thread
    deleted = raw(seeded, "SELECT id FROM messages WHERE deleted_at IS NOT NULL LIMIT 1")[0][0]
    placeholder = ok(seeded, "get_thread_replies", {"message_id": deleted})
    assert placeholder["root"]["is_deleted"] and placeholder["root"]["text"] == "" and placeholder["total"] > 0
    assert deleted not in {m["id"] for m in everything}


def matches(message: Row, filters: dict[str, Any]) -> bool:
    """Whether a message satisfies search filters, computed from its rendered fields."""
    text = message["text"].lower()
    checks = [
        all(word in text for word in filters.get("query", "").lower().split()),
        filters.get("channel_id") in (None, message["channel_id"]),
        filters.get("from_user_id") in (None, message["user_id"]),
        filters.get("mentions_user_id") is None or filters["mentions_user_id"] in {x["user_id"] for x in message["mentions"]},
        filters.get("after") is None or message["created_at"] >= filters["after"],
        filters.get("before") is None or message["created_at"] < filters["before"],
        filters.get("has_reactions") is None or bool(message["reactions"]) == filters["has_reactions"],
        filters.get("is_pinned") is None or message["is_pinned"] == filters["is_pinned"],
        not filters.get("top_level_only") or message["thread_parent_id"] is None,
    ]
    return all(checks)


@pytest.mark.parametrize("filters", [
    {"query": "renewal"}, {"query": "RENEWAL health"}, {"channel_id": 10, "has_reactions": True},
    {"from_user_id": 1, "top_level_only": True}, {"mentions_user_id": 1}, {"is_pinned": True},
    {"after": "2025-03-01T00:00:00Z", "before": "2025-04-01T00:00:00Z", "has_reactions": False},
    {"query": "100%"}, {"query": "o_o"},
])
def test_each_search_filter_keeps_exactly_the_matching_messages(seeded: ToolSession, everything: list[Row],
                                                                 filters: dict[str, Any]) -> None:
    found = pages(seeded, "search_messages", "messages", filters)
    expected = [m["id"] for m in everything if matches(m, filters)]
    assert [m["id"] for m in found] == expected
    assert ok(seeded, "search_messages", {**filters, "per_page": 1})["total"] == len(expected)


WORDS = ["renewal", "the", "Q4", "incident", "can", "review", "thanks", "%", "_", "account"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_search_filters_never_error_and_return_only_matches(seeded: ToolSession, everything: list[Row],
                                                            data: st.DataObject) -> None:
    people = sorted({m["user_id"] for m in everything})
    conversations = sorted({m["channel_id"] for m in everything})
    days = st.dates(datetime(2024, 6, 1).date(), datetime(2025, 12, 1).date()).map(lambda d: f"{d}T00:00:00Z")
    filters = data.draw(st.fixed_dictionaries({}, optional={
        "query": st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join),
        "channel_id": st.sampled_from(conversations), "from_user_id": st.sampled_from(people),
        "mentions_user_id": st.sampled_from(people), "after": days, "before": days,
        "has_reactions": st.booleans(), "is_pinned": st.booleans(), "top_level_only": st.booleans()}))
    result = seeded.call("search_messages", {**filters, "per_page": 100})
    if "after" in filters and "before" in filters and filters["after"] >= filters["before"]:
        assert (result.error or "").startswith("invalid_arguments: after must be earlier than before")
        return
    assert result.ok, result.error
    assert result.data is not None
    expected = [m["id"] for m in everything if matches(m, filters)]
    assert result.data["total"] == len(expected)
    assert [m["id"] for m in result.data["messages"]] == expected[:100]


def test_mentions_say_whether_the_person_answered_in_the_thread(seeded: ToolSession, everything: list[Row]) -> None:
    mine = pages(seeded, "list_mentions", "mentions")
    assert mine and [m["id"] for m in mine] == [m["id"] for m in everything if matches(m, {"mentions_user_id": ME})]
    for mention in mine:
        root = mention["thread_parent_id"] or mention["id"]
        answered = any(m["user_id"] == ME and m["thread_parent_id"] == root and m["created_at"] > mention["created_at"]
                       for m in everything)
        assert mention["replied"] == answered
    unreplied = pages(seeded, "list_mentions", "mentions", {"unreplied_only": True})
    assert [m["id"] for m in unreplied] == [m["id"] for m in mine if not m["replied"]]
    assert any(m["replied"] for m in mine) and unreplied


def test_channel_stats_agree_with_the_history(seeded: ToolSession) -> None:
    sales = channel(seeded, "sales")["id"]
    period = {"after": "2025-02-01T00:00:00Z", "before": "2025-08-01T00:00:00Z"}
    stats = ok(seeded, "channel_stats", {"channel_id": sales, **period, "top_members": 100, "top_days": 100})
    history = [m for m in pages(seeded, "get_channel_history", "messages",
                                {"channel_id": sales, "include_replies": True, "oldest": period["after"],
                                 "latest": period["before"]}) if not m["is_deleted"]]
    assert stats["messages"] == len(history) == stats["top_level_messages"] + stats["replies"]
    assert stats["replies"] == sum(m["thread_parent_id"] is not None for m in history)
    assert stats["reactions"] == sum(r["count"] for m in history for r in m["reactions"])
    per_member = Counter(m["user_id"] for m in history)
    assert {row["user_id"]: row["messages"] for row in stats["per_member"]} == dict(per_member)
    assert stats["posters"] == len(per_member)
    per_day = Counter(m["created_at"][:10] for m in history)
    assert {row["day"]: row["messages"] for row in stats["busiest_days"]} == dict(per_day)
    ranked = [(-row["messages"], row["day"]) for row in stats["busiest_days"]]
    assert ranked == sorted(ranked)
    assert (stats["first_message_at"], stats["last_message_at"]) == (min(m["created_at"] for m in history),
                                                                     max(m["created_at"] for m in history))
    top = ok(seeded, "channel_stats", {"channel_id": sales, **period, "top_members": 3, "top_days": 2})
    assert top["per_member"] == stats["per_member"][:3] and top["busiest_days"] == stats["busiest_days"][:2]


def test_expired_statuses_read_as_none(session: ToolSession) -> None:
    now = now_text(session)
    users = pages(session, "list_users", "users")
    assert any(u["status_text"] for u in users)
    for user in users:
        assert user["status_expires_at"] is None or user["status_expires_at"] > now
        assert bool(user["status_emoji"]) == bool(user["status_text"])
    expired = raw(session, "SELECT id FROM users WHERE status_expires_at IS NOT NULL AND status_expires_at <= ?",
                  (session.context.now.isoformat(sep=" "),))
    assert expired
    assert ok(session, "get_user", {"user_id": expired[0][0]})["status_text"] == ""


# ---------------------------------------------------------------- writes


def test_post_message_with_mentions(session: ToolSession) -> None:
    sales = channel(session, "sales")
    text = "Pipeline review moved to Thursday, <@2> and <@5>. <@2> owns the agenda."
    posted = ok(session, "post_message", {"channel_id": sales["id"], "text": text})
    assert (posted["user_id"], posted["text"], posted["created_at"], posted["thread_parent_id"]) == (ME, text, now_text(session), None)
    assert [m["user_id"] for m in posted["mentions"]] == sorted([2, 5], key=lambda u: ok(session, "get_user", {"user_id": u})["name"])
    assert {(c.table, c.op) for c in session.diff()} == {("messages", "insert"), ("mentions", "insert")}
    assert len(session.diff()) == 3
    assert ok(session, "get_channel_history", {"channel_id": sales["id"], "per_page": 1})["messages"][0] == posted
    assert posted["id"] in {m["id"] for m in ok(session, "list_mentions", {"user_id": 5, "per_page": 5})["mentions"]}
    assert channel(session, "sales")["last_message_at"] == now_text(session)
    error = fails(session, "post_message", {"channel_id": sales["id"], "text": "Ping <@987654> and <@2>"}, "not_found")
    assert "<@987654>" in error
    fails(session, "post_message", {"channel_id": sales["id"], "text": "   \n "}, "invalid_arguments")
    fails(session, "post_message", {"channel_id": sales["id"], "text": ""}, "invalid_arguments")
    fails(session, "post_message", {"channel_id": sales["id"], "text": "x" * 10_001}, "invalid_arguments")


def test_replies_join_the_root_thread(session: ToolSession, everything: list[Row]) -> None:
    sales = channel(session, "sales")["id"]
    root = next(m for m in everything if m["channel_id"] == sales and m["reply_count"] >= 2)
    reply = ok(session, "get_thread_replies", {"message_id": root["id"]})["replies"][0]
    posted = ok(session, "reply_in_thread", {"message_id": reply["id"], "text": "Same here."})
    assert posted["thread_parent_id"] == root["id"]
    thread = ok(session, "get_thread_replies", {"message_id": root["id"]})
    assert thread["root"]["reply_count"] == root["reply_count"] + 1 and thread["replies"][-1]["id"] == posted["id"]
    assert thread["root"]["last_reply_at"] == now_text(session)


def test_edit_and_delete_own_messages(session: ToolSession) -> None:
    message = my_message(session)
    edited = ok(session, "edit_message", {"message_id": message["id"], "text": "Corrected, thanks <@7>."})
    assert edited["edited_at"] == now_text(session) and [m["user_id"] for m in edited["mentions"]] == [7]
    assert ok(session, "edit_message", {"message_id": message["id"], "text": "No mentions now."})["mentions"] == []
    changed = {(c.table, c.op) for c in session.diff()}
    assert ("messages", "update") in changed
    assert message["id"] not in {m["id"] for m in pages(session, "search_messages", "messages", {"mentions_user_id": 7})}

    plain = next(m for m in pages(session, "search_messages", "messages", {"from_user_id": ME, "top_level_only": True})
                 if m["reply_count"] == 0 and m["channel_name"] and not channel(session, m["channel_name"])["is_archived"])
    gone = ok(session, "delete_message", {"message_id": plain["id"]})
    assert gone == {"message_id": plain["id"], "channel_id": plain["channel_id"], "replies_kept": 0}
    assert f"no message with id {plain['id']}" in fails(session, "get_thread_replies", {"message_id": plain["id"]},
                                                        "not_found")

    threaded = next(m for m in pages(session, "search_messages", "messages", {"from_user_id": ME, "top_level_only": True})
                    if m["reply_count"] > 0 and m["channel_name"] and not channel(session, m["channel_name"])["is_archived"])
    session.reset()
    kept = ok(session, "delete_message", {"message_id": threaded["id"]})
    assert kept["replies_kept"] == threaded["reply_count"]
    thread = ok(session, "get_thread_replies", {"message_id": threaded["id"]})
    assert thread["root"]["is_deleted"] and thread["root"]["text"] == "" and thread["total"] == threaded["reply_count"]
    assert thread["root"]["reactions"] == [] and not thread["root"]["is_pinned"]
    assert "was deleted" in fails(session, "edit_message", {"message_id": threaded["id"], "text": "x"}, "not_found")
    assert threaded["id"] not in {m["id"] for m in ok(session, "search_messages", {"from_user_id": ME, "per_page": 100})["messages"]}


def test_reactions_add_once_and_come_off(session: ToolSession) -> None:
    message = others_message(session, channel(session, "sales")["id"])
    first = ok(session, "add_reaction", {"message_id": message["id"], "emoji": ":raised_hands:"})
    mine = next(r for r in first["reactions"] if r["emoji"] == "raised_hands")
    assert mine["user_ids"][-1] == ME
    hash_after = session.state_hash()
    assert ok(session, "add_reaction", {"message_id": message["id"], "emoji": "raised_hands"}) == first
    assert session.state_hash() == hash_after
    removed = ok(session, "remove_reaction", {"message_id": message["id"], "emoji": "raised_hands"})
    assert removed["reactions"] == message["reactions"]
    error = fails(session, "remove_reaction", {"message_id": message["id"], "emoji": "raised_hands"}, "invalid_arguments")
    assert "you have not reacted" in error
    fails(session, "add_reaction", {"message_id": message["id"], "emoji": "not an emoji"}, "invalid_arguments")


def test_pin_and_unpin(session: ToolSession) -> None:
    sales = channel(session, "sales")
    message = next(m for m in ok(session, "get_channel_history", {"channel_id": sales["id"], "per_page": 50})["messages"]
                   if not m["is_pinned"])
    pinned = ok(session, "pin_message", {"message_id": message["id"]})
    assert pinned["is_pinned"]
    detail = channel(session, "sales")
    assert detail["pinned_count"] == sales["pinned_count"] + 1
    assert (detail["pins"][0]["message_id"], detail["pins"][0]["pinned_by_id"], detail["pins"][0]["pinned_at"]) == (
        message["id"], ME, now_text(session))
    assert ok(session, "unpin_message", {"message_id": message["id"]})["is_pinned"] is False
    assert channel(session, "sales")["pins"] == sales["pins"]
    assert "not pinned" in fails(session, "unpin_message", {"message_id": message["id"]}, "invalid_arguments")


def test_create_join_leave_and_invite(session: ToolSession) -> None:
    created = ok(session, "create_channel", {"name": "proj-nimbus", "is_private": True, "topic": " Nimbus "})
    assert (created["kind"], created["creator_id"], created["member_count"], created["topic"]) == ("private", ME, 1, "Nimbus")
    invited = ok(session, "invite_to_channel", {"channel_id": created["id"], "user_ids": [7, 8, 7, ME]})
    assert [p["user_id"] for p in invited["invited"]] == [7, 8] and invited["already_members"] == [ME]
    assert invited["member_count"] == 3 == channel(session, "proj-nimbus")["member_count"]
    assert "already a member" in fails(session, "invite_to_channel", {"channel_id": created["id"], "user_ids": [8]},
                                       "invalid_arguments")
    fails(session, "invite_to_channel", {"channel_id": created["id"], "user_ids": [987654]}, "not_found")
    left = ok(session, "leave_channel", {"channel_id": created["id"]})
    assert left["member_count"] == 2
    fails(session, "get_channel", {"channel_id": created["id"]}, "not_found")

    engineering = channel(session, "engineering")
    assert not engineering["is_member"]
    joined = ok(session, "join_channel", {"channel_id": engineering["id"]})
    assert joined["is_member"] and joined["member_count"] == engineering["member_count"] + 1
    before = session.state_hash()
    assert ok(session, "join_channel", {"channel_id": engineering["id"]}) == joined
    assert session.state_hash() == before
    ok(session, "leave_channel", {"channel_id": engineering["id"]})
    assert "not a member" in fails(session, "leave_channel", {"channel_id": engineering["id"]}, "invalid_arguments")
    dm = channels(session, kinds=["dm"])[0]
    fails(session, "leave_channel", {"channel_id": dm["id"]}, "invalid_arguments")
    fails(session, "invite_to_channel", {"channel_id": dm["id"], "user_ids": [9]}, "invalid_arguments")


def test_archive_and_unarchive_a_channel_you_created(session: ToolSession) -> None:
    mine = [c for c in channels(session, state="active") if ok(session, "get_channel", {"channel_id": c["id"]})["creator_id"] == ME]
    assert mine
    archived = ok(session, "archive_channel", {"channel_id": mine[0]["id"]})
    assert (archived["is_archived"], archived["archived_by_id"], archived["archived_at"]) == (True, ME, now_text(session))
    assert archived["member_count"] == mine[0]["member_count"]
    assert "already archived" in fails(session, "archive_channel", {"channel_id": mine[0]["id"]}, "invalid_arguments")
    back = ok(session, "unarchive_channel", {"channel_id": mine[0]["id"]})
    assert not back["is_archived"] and back["archived_at"] is None and back["archived_by_id"] is None
    assert "not archived" in fails(session, "unarchive_channel", {"channel_id": mine[0]["id"]}, "invalid_arguments")
    assert {(c.table, c.key) for c in session.diff()} == set()


def test_direct_messages_open_once(session: ToolSession) -> None:
    existing = channels(session, kinds=["dm"])[0]
    partner = next(m["user_id"] for m in pages(session, "list_channel_members", "members", {"channel_id": existing["id"]})
                   if m["user_id"] != ME)
    before = session.state_hash()
    assert ok(session, "open_dm", {"user_ids": [partner, ME]})["id"] == existing["id"]
    assert session.state_hash() == before
    sent = ok(session, "send_dm", {"user_ids": [partner], "text": "Got a minute?"})
    assert sent["channel_id"] == existing["id"] and sent["channel_name"] is None
    assert {(c.table, c.op) for c in session.diff()} == {("messages", "insert")}

    talked_to = {m["user_id"] for c in channels(session, kinds=["dm", "group_dm"])
                 for m in pages(session, "list_channel_members", "members", {"channel_id": c["id"]})}
    a, b = [u for u in range(5, 40) if u not in talked_to][:2]
    group = ok(session, "open_dm", {"user_ids": [a, b, a]})
    assert (group["kind"], group["member_count"], group["creator_id"]) == ("group_dm", 3, ME)
    assert ok(session, "open_dm", {"user_ids": [b, a]})["id"] == group["id"]
    single = ok(session, "send_dm", {"user_ids": [a], "text": "Hi!"})
    assert single["channel_id"] not in (group["id"], existing["id"])
    assert ok(session, "get_channel", {"channel_id": single["channel_id"]})["kind"] == "dm"
    fails(session, "open_dm", {"user_ids": [ME]}, "invalid_arguments")
    fails(session, "open_dm", {"user_ids": list(range(2, 11))}, "invalid_arguments")
    fails(session, "send_dm", {"user_ids": [987654], "text": "Hi"}, "not_found")


def test_set_my_status(session: ToolSession) -> None:
    later = format_timestamp(session.context.now + timedelta(days=3))
    me = ok(session, "set_my_status", {"status_text": "At the offsite", "status_emoji": "tent", "expires_at": later})
    assert (me["status_text"], me["status_emoji"], me["status_expires_at"]) == ("At the offsite", ":tent:", later)
    assert ok(session, "get_user", {"user_id": ME}) == me
    away = ok(session, "set_my_status", {"presence": "away"})
    assert (away["presence"], away["status_text"]) == ("away", "At the offsite")
    text_only = ok(session, "set_my_status", {"status_text": "Heads down"})
    assert (text_only["status_emoji"], text_only["status_expires_at"]) == (":speech_balloon:", None)
    cleared = ok(session, "set_my_status", {"status_text": ""})
    assert (cleared["status_text"], cleared["status_emoji"], cleared["status_expires_at"]) == ("", "", None)
    fails(session, "set_my_status", {}, "invalid_arguments")
    fails(session, "set_my_status", {"status_text": "Back soon", "expires_at": "2020-01-01"}, "invalid_arguments")
    fails(session, "set_my_status", {"expires_at": later}, "invalid_arguments")
    fails(session, "set_my_status", {"status_text": "x" * 101}, "invalid_arguments")


# ---------------------------------------------------------------- policy: each rule refuses and changes nothing


def test_archived_channels_are_read_only(session: ToolSession) -> None:
    archived = next(c for c in channels(session, state="archived", member_only=True))
    history = ok(session, "get_channel_history", {"channel_id": archived["id"], "include_replies": True, "per_page": 100})
    theirs = next(m for m in history["messages"] if m["user_id"] != ME)
    attempts: list[tuple[str, dict[str, Any]]] = [
        ("post_message", {"channel_id": archived["id"], "text": "Anyone here?"}),
        ("reply_in_thread", {"message_id": theirs["id"], "text": "Late reply"}),
        ("add_reaction", {"message_id": theirs["id"], "emoji": "eyes"}),
        ("pin_message", {"message_id": theirs["id"]}),
        ("invite_to_channel", {"channel_id": archived["id"], "user_ids": [9]}),
        ("leave_channel", {"channel_id": archived["id"]}),
    ]
    mine = [m for m in history["messages"] if m["user_id"] == ME and not m["is_deleted"]]
    if mine:
        attempts += [("edit_message", {"message_id": mine[0]["id"], "text": "edit"}),
                     ("delete_message", {"message_id": mine[0]["id"]})]
    for tool, args in attempts:
        assert "archived channels are read-only" in fails(session, tool, args, "forbidden"), tool
    other = next(c for c in channels(session, state="archived") if not c["is_member"])
    assert "read-only" in fails(session, "join_channel", {"channel_id": other["id"]}, "forbidden")
    assert ok(session, "get_channel", {"channel_id": archived["id"]})["is_archived"]


def test_only_members_write_in_a_channel(session: ToolSession) -> None:
    engineering = channel(session, "engineering")
    message = others_message(session, engineering["id"])
    for tool, args in [("post_message", {"channel_id": engineering["id"], "text": "hello"}),
                       ("reply_in_thread", {"message_id": message["id"], "text": "hi"}),
                       ("add_reaction", {"message_id": message["id"], "emoji": "eyes"}),
                       ("pin_message", {"message_id": message["id"]}),
                       ("invite_to_channel", {"channel_id": engineering["id"], "user_ids": [9]})]:
        error = fails(session, tool, args, "forbidden")
        assert "not a member of #engineering" in error and "join_channel" in error, tool


def test_only_the_author_edits_or_deletes(session: ToolSession) -> None:
    theirs = others_message(session, channel(session, "sales")["id"])
    for tool, args in [("edit_message", {"message_id": theirs["id"], "text": "changed"}),
                       ("delete_message", {"message_id": theirs["id"]})]:
        error = fails(session, tool, args, "forbidden")
        assert "only the author of a message" in error and theirs["user_name"] in error


def test_only_the_creator_or_an_admin_archives(session: ToolSession) -> None:
    theirs = next(c for c in channels(session, state="active", member_only=True)
                  if ok(session, "get_channel", {"channel_id": c["id"]})["creator_id"] != ME and c["name"] != "general")
    creator = ok(session, "get_channel", {"channel_id": theirs["id"]})["creator_name"]
    error = fails(session, "archive_channel", {"channel_id": theirs["id"]}, "forbidden")
    assert "only the creator" in error and creator in error
    archived = next(c for c in channels(session, state="archived")
                    if ok(session, "get_channel", {"channel_id": c["id"]})["creator_id"] != ME)
    assert "only the creator" in fails(session, "unarchive_channel", {"channel_id": archived["id"]}, "forbidden")
    general = channel(session, "general")["id"]
    assert "general channel" in fails(session, "archive_channel", {"channel_id": general}, "forbidden")
    assert "cannot be left" in fails(session, "leave_channel", {"channel_id": general}, "forbidden")


def test_an_admin_may_archive_any_channel() -> None:
    promoted = RowPatch.model_validate([{"op": "update", "table": "users", "key": {"id": ME}, "values": {"role": "admin"}}])
    with ToolSession(SERVER, 0, state=promoted) as session:
        theirs = next(c for c in channels(session, state="active")
                      if ok(session, "get_channel", {"channel_id": c["id"]})["creator_id"] != ME and c["name"] != "general")
        assert ok(session, "archive_channel", {"channel_id": theirs["id"]})["is_archived"]
        assert "general channel" in fails(session, "archive_channel", {"channel_id": channel(session, "general")["id"]},
                                          "forbidden")


@pytest.mark.parametrize(("name", "rule"), [
    ("Q4 Launch", "lowercase"), ("launch plan", "lowercase"), ("café", "lowercase"), ("#", "cannot be empty"),
    ("a" * 81, "at most 80 characters"), ("sales", "already taken"), ("offsite-2024", "already taken"),
    ("board-prep", "already taken"),
])
def test_channel_names_follow_the_rules(session: ToolSession, name: str, rule: str) -> None:
    error = fails(session, "create_channel", {"name": name}, "forbidden")
    assert rule in error
    if name == "Q4 Launch":
        assert "'q4-launch'" in error


def test_names_within_the_rules_are_accepted(session: ToolSession) -> None:
    for name in ("#" + "a" * 80, "q4_launch-2"):
        created = ok(session, "create_channel", {"name": name})
        assert created["name"] == name.removeprefix("#") and channel(session, name)["id"] == created["id"]
    assert "already taken" in fails(session, "create_channel", {"name": "q4_launch-2", "is_private": True}, "forbidden")


def test_guests_join_only_shared_channels(session: ToolSession) -> None:
    shared = channels(session, shared_only=True, member_only=True)[0]
    guests = pages(session, "list_users", "users", {"role": "guest"})
    outsider = next(g for g in guests if g["id"] not in {m["user_id"] for m in pages(
        session, "list_channel_members", "members", {"channel_id": shared["id"]})})
    sales = channel(session, "sales")["id"]
    error = fails(session, "invite_to_channel", {"channel_id": sales, "user_ids": [7, outsider["id"]]}, "forbidden")
    assert outsider["name"] in error and "shared customer channels" in error
    assert ok(session, "invite_to_channel", {"channel_id": shared["id"], "user_ids": [outsider["id"]]})["invited"]


def test_a_channel_holds_at_most_100_pins(session: ToolSession) -> None:
    sales = channel(session, "sales")
    history = pages(session, "get_channel_history", "messages", {"channel_id": sales["id"], "include_replies": True})
    unpinned = [m for m in history if not m["is_pinned"]]
    for message in unpinned[: 100 - sales["pinned_count"]]:
        ok(session, "pin_message", {"message_id": message["id"]})
    assert channel(session, "sales")["pinned_count"] == 100
    error = fails(session, "pin_message", {"message_id": unpinned[100 - sales["pinned_count"]]["id"]}, "forbidden")
    assert "already has 100 pinned messages, the most a channel may hold" in error


# ---------------------------------------------------------------- bad input


BadCall = tuple[str, Callable[[ToolSession], dict[str, Any]], str]

BAD_INPUT: list[BadCall] = [
    ("get_channel", lambda s: {"channel_id": 987654}, "not_found"),
    ("get_user", lambda s: {"user_id": 987654}, "not_found"),
    ("get_user_by_email", lambda s: {"email": "nobody@example.com"}, "not_found"),
    ("get_thread_replies", lambda s: {"message_id": 987654}, "not_found"),
    ("list_mentions", lambda s: {"user_id": 987654}, "not_found"),
    ("search_messages", lambda s: {"from_user_id": 987654}, "not_found"),
    ("search_messages", lambda s: {"after": "2025-05-01", "before": "2025-04-01"}, "invalid_arguments"),
    ("search_messages", lambda s: {"query": "x" * 201}, "invalid_arguments"),
    ("search_messages", lambda s: {"per_page": 101}, "invalid_arguments"),
    ("list_channels", lambda s: {"kinds": ["channel"]}, "invalid_arguments"),
    ("channel_stats", lambda s: {"channel_id": 10, "top_days": 0}, "invalid_arguments"),
    ("post_message", lambda s: {"channel_id": 10, "text": True}, "invalid_arguments"),
    ("post_message", lambda s: {"channel_id": "ten", "text": "hi"}, "invalid_arguments"),
    ("add_reaction", lambda s: {"message_id": my_message(s)["id"], "emoji": ":two words:"}, "invalid_arguments"),
    ("invite_to_channel", lambda s: {"channel_id": 10, "user_ids": []}, "invalid_arguments"),
    ("open_dm", lambda s: {"user_ids": []}, "invalid_arguments"),
    ("create_channel", lambda s: {"name": ""}, "invalid_arguments"),
    ("create_channel", lambda s: {"name": "ok-name", "topic": "t" * 251}, "invalid_arguments"),
    ("edit_message", lambda s: {"message_id": 987654, "text": "x"}, "not_found"),
    ("delete_message", lambda s: {"message_id": 987654}, "not_found"),
]


@pytest.mark.parametrize(("tool", "args", "code"), BAD_INPUT, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(BAD_INPUT)])
def test_bad_input_is_a_clear_error_and_changes_nothing(session: ToolSession, tool: str,
                                                        args: Callable[[ToolSession], dict[str, Any]], code: str) -> None:
    error = fails(session, tool, args(session), code)
    assert len(error) < 600 and "Traceback" not in error
