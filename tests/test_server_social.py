"""Domain behaviour of the social server, through the same call path an agent uses."""

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

from mcpgym.servers.kernel.fields import format_timestamp
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.spec import build_seeded
from mcpgym.servers.kernel.sql import bind
from mcpgym.servers.kernel.world import build_world
from mcpgym.servers.social import SERVER
from mcpgym.servers.social.seed import _stored
from mcpgym.servers.social.text import hashtags, mentioned_handles
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


def raw(session: ToolSession, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Rows of the session's database, read past the tools."""
    return session._connection.execute(sql, params).fetchall()  # noqa: SLF001


def when(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture(scope="module")
def users(seeded: ToolSession) -> list[Row]:
    return pages(seeded, "search_users", "users")


@pytest.fixture(scope="module")
def posts(seeded: ToolSession) -> list[Row]:
    """Every live post, newest first."""
    return pages(seeded, "search_posts", "posts")


def person(users: list[Row], keep: Callable[[Row], bool]) -> Row:
    return next(u for u in users if u["kind"] == "person" and u["id"] != ME and keep(u))


def clear(user: Row) -> bool:
    return not user["blocking"] and not user["blocked_by"]


def refused(session: ToolSession, tool: str, args: dict[str, Any]) -> str:
    """The forbidden answer of a call (the caller compares the state once, after several)."""
    result = session.call(tool, args)
    assert (result.error or "").startswith("forbidden: "), (tool, result.text[:200])
    return result.error or ""


def latest_post(session: ToolSession, user_id: int) -> Row:
    return ok(session, "search_posts", {"author_id": user_id, "type": "post", "per_page": 1})["posts"][0]


def my_latest(session: ToolSession) -> Row:
    return latest_post(session, ME)


# ---------------------------------------------------------------- the seeded network


def test_accounts_are_the_worlds_people_and_companies(seeded: ToolSession, users: list[Row]) -> None:
    world = build_world(0)
    organizations = {o.id: o.name for o in world.organizations}
    by_email = {u["email"]: u for u in users}
    people = [p for p in world.people if p.email in by_email]
    assert len(people) > 0.7 * len(world.people)
    for p in people:
        account = by_email[p.email]
        assert (account["name"], account["organization_name"], account["kind"]) == (
            p.name, organizations[p.organization_id], "person")
    brands = [u for u in users if u["kind"] == "brand"]
    assert len(brands) > 25 and all(u["email"].startswith("social@") and u["name"] == u["organization_name"] for u in brands)
    me = ok(seeded, "get_user", {"user_id": ME})
    assert (me["handle"], me["name"], me["kind"]) == ("NorthwindSys", world.home.name, "brand")
    assert len({u["handle"].lower() for u in users}) == len(users)
    for account in users[:40]:
        assert ok(seeded, "get_user_by_email", {"email": account["email"].upper()})["id"] == account["id"]
        assert ok(seeded, "get_user_by_handle", {"handle": "@" + account["handle"].upper()})["id"] == account["id"]


def test_the_network_spans_more_than_a_year_of_varied_activity(seeded: ToolSession, posts: list[Row]) -> None:
    now = seeded.context.now
    times = [when(p["created_at"]) for p in posts]
    assert len(posts) > 3000 and max(times) <= now and min(times) < now - timedelta(days=400)
    kinds = Counter("reply" if p["in_reply_to_post_id"] else "quote" if p["quoted_post_id"] else "post" for p in posts)
    assert kinds["reply"] > 500 and kinds["quote"] > 100 and kinds["post"] > 2000
    assert sum(p["like_count"] for p in posts) > 5000 and sum(p["repost_count"] for p in posts) > 1000
    assert sum(p["author_id"] == ME for p in posts) > 150 and sum(p["edited_at"] is not None for p in posts) > 50
    mentions_me = [p for p in posts if "NorthwindSys" in p["mentions"]]
    assert len(mentions_me) > 40 and all("@NorthwindSys" in p["text"] for p in mentions_me)
    for p in posts[:300]:
        assert p["hashtags"] == sorted(hashtags(p["text"]))
    deleted = raw(seeded, "SELECT count(*) FROM posts WHERE deleted_at IS NOT NULL")[0][0]
    assert deleted > 10 and len(posts) + deleted == raw(seeded, "SELECT count(*) FROM posts")[0][0]


@pytest.mark.slow  # every server's seeded bytes across two processes: test_kernel, in the default suite
def test_same_seed_same_bytes_whatever_the_hash_seed() -> None:
    code = ("import hashlib; from mcpgym.servers.social import SERVER; from mcpgym.servers.kernel.spec import build_seeded; "
            "print(hashlib.sha256(build_seeded(SERVER, 2)).hexdigest())")
    here = hashlib.sha256(build_seeded(SERVER, 2)).hexdigest()
    there = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONHASHSEED": "12345"}, check=True,
                           capture_output=True, text=True).stdout.strip()
    assert there == here and build_seeded(SERVER, 3) != build_seeded(SERVER, 2)


@given(st.datetimes(datetime(1971, 1, 1), datetime(9998, 12, 31)))
def test_seeded_times_are_stored_as_the_orm_stores_them(value: datetime) -> None:
    assert _stored(value) == bind(value)


@given(st.text(alphabet="@#ab_1 .,", max_size=40))
def test_mentions_and_hashtags_are_read_once_each_and_lowercased(text: str) -> None:
    for found in (mentioned_handles(text), hashtags(text)):
        assert len(found) == len(set(found)) and all(item == item.lower() and item for item in found)


# ---------------------------------------------------------------- reads


def test_followers_and_following_agree(seeded: ToolSession, users: list[Row]) -> None:
    for user in [ok(seeded, "get_user", {"user_id": ME}), *users[:15]]:
        followers = pages(seeded, "list_followers", "users", {"user_id": user["id"]})
        following = pages(seeded, "list_following", "users", {"user_id": user["id"]})
        assert (len(followers), len(following)) == (user["followers_count"], user["following_count"])
        assert [f["followed_at"] for f in followers] == sorted((f["followed_at"] for f in followers), reverse=True)
        for other in followers[:5]:
            assert user["id"] in {u["id"] for u in pages(seeded, "list_following", "users", {"user_id": other["id"]})}
    mine = {u["id"] for u in pages(seeded, "list_followers", "users")}
    assert all(u["followed_by"] == (u["id"] in mine) for u in users)


def test_blocks_end_follows_and_show_both_ways(users: list[Row]) -> None:
    blocking = [u for u in users if u["blocking"]]
    blocked_by = [u for u in users if u["blocked_by"]]
    assert len(blocking) >= 3 and len(blocked_by) >= 3
    assert not any(u["following"] or u["followed_by"] for u in blocking + blocked_by)
    assert sum(u["muting"] for u in users) >= 3


FILTERS = st.fixed_dictionaries({}, optional={
    "query": st.sampled_from(["the", "team", "exports", "northwind cloud", "zzzz"]),
    "author_id": st.sampled_from([1, 10, 45]),
    "hashtag": st.sampled_from(["#NorthwindCloud", "ai", "hiring"]),
    "mentions_user_id": st.just(1),
    "type": st.sampled_from(["any", "post", "reply", "quote"]),
    "after": st.sampled_from(["2025-01-01", "2025-09-15T12:00:00Z"]),
    "before": st.sampled_from(["2025-10-01", "2025-11-12T12:00:00Z"]),
    "min_likes": st.integers(0, 8),
})


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(filters=FILTERS)
def test_each_search_filter_keeps_exactly_the_matching_posts(seeded: ToolSession, posts: list[Row],
                                                             filters: dict[str, Any]) -> None:
    if "after" in filters and "before" in filters and filters["after"] >= filters["before"]:
        return
    found = ok(seeded, "search_posts", {**filters, "per_page": 100})
    handle = {1: "NorthwindSys"}

    def keep(p: Row) -> bool:
        words = filters.get("query", "").lower().split()
        kind = "reply" if p["in_reply_to_post_id"] else "quote" if p["quoted_post_id"] else "post"
        return (all(w in p["text"].lower() for w in words)
                and p["author_id"] == filters.get("author_id", p["author_id"])
                and ("hashtag" not in filters or filters["hashtag"].lstrip("#").lower() in p["hashtags"])
                and ("mentions_user_id" not in filters or handle[1] in p["mentions"])
                and filters.get("type", "any") in ("any", kind)
                and p["created_at"] >= format_timestamp(datetime.fromisoformat(filters.get("after", "2000-01-01").rstrip("Z")))
                and p["created_at"] < format_timestamp(datetime.fromisoformat(filters.get("before", "2100-01-01").rstrip("Z")))
                and p["like_count"] >= filters.get("min_likes", 0))

    expected = [p for p in posts if keep(p)]
    assert found["total"] == len(expected)
    assert [p["id"] for p in found["posts"]] == [p["id"] for p in expected[:100]]


def test_search_sorts_by_likes(seeded: ToolSession) -> None:
    top = ok(seeded, "search_posts", {"sort_by": "like_count", "per_page": 50})["posts"]
    assert [p["like_count"] for p in top] == sorted((p["like_count"] for p in top), reverse=True)


def test_replies_and_quotes_point_at_live_posts(seeded: ToolSession, posts: list[Row]) -> None:
    live = {p["id"]: p for p in posts}
    for post in [p for p in posts if p["reply_count"]][:20]:
        thread = ok(seeded, "get_post_replies", {"post_id": post["id"], "per_page": 100})
        assert thread["total"] == post["reply_count"] == len(thread["replies"])
        assert all(r["in_reply_to_post_id"] == post["id"] and r["in_reply_to_handle"] == post["author_handle"]
                   for r in thread["replies"])
    quotes = [p for p in posts if p["quoted_post_id"] in live]
    assert quotes and all(live[q["quoted_post_id"]]["quote_count"] >= 1 for q in quotes)


def test_home_timeline_is_you_and_whom_you_follow_without_mutes(seeded: ToolSession, users: list[Row]) -> None:
    followed = {u["id"] for u in users if u["following"]} | {ME}
    muted = {u["id"] for u in users if u["muting"]}
    timeline = pages(seeded, "get_home_timeline", "posts")
    assert len(timeline) > 300
    assert all(p["author_id"] in followed - muted and p["in_reply_to_post_id"] is None for p in timeline)
    assert [p["created_at"] for p in timeline] == sorted((p["created_at"] for p in timeline), reverse=True)


def test_trends_count_the_window(seeded: ToolSession, posts: list[Row]) -> None:
    now = seeded.context.now
    trends = ok(seeded, "trending_hashtags", {"hours": 72, "limit": 5})
    start = format_timestamp(now - timedelta(hours=72))
    recent = [p for p in posts if p["created_at"] >= start]
    counts = Counter(tag for p in recent for tag in p["hashtags"])
    assert trends["hashtags"][0]["post_count"] == max(counts.values()) >= 5
    for trend in trends["hashtags"]:
        assert trend["post_count"] == counts[trend["hashtag"]]
        assert trend["account_count"] == len({p["author_id"] for p in recent if trend["hashtag"] in p["hashtags"]})


def test_account_stats_agree_with_search(seeded: ToolSession) -> None:
    window = {"after": "2025-09-01", "before": "2025-11-01"}
    stats = ok(seeded, "account_stats", {"user_id": ME, **window})
    mine = pages(seeded, "search_posts", "posts", {"author_id": ME, **window})
    assert stats["posts"] + stats["replies"] + stats["quotes"] == len(mine)
    assert stats["likes_received"] == sum(p["like_count"] for p in mine)
    assert stats["top_post"]["like_count"] == max(p["like_count"] for p in mine)
    assert ok(seeded, "account_stats", {"user_id": ME})["posts"] >= stats["posts"]


def test_notifications_and_inbox(seeded: ToolSession, users: list[Row]) -> None:
    muted = {u["id"] for u in users if u["muting"]}
    notes = pages(seeded, "list_notifications", "notifications")
    assert len(notes) > 200 and not any(n["actor_id"] in muted for n in notes)
    assert {n["kind"] for n in notes} >= {"like", "follow", "mention", "reply"}
    unread = ok(seeded, "list_notifications", {"unread_only": True, "per_page": 100})
    assert unread["total"] == unread["unread"] == sum(not n["read"] for n in notes) > 0
    inbox = pages(seeded, "list_conversations", "conversations")
    assert len(inbox) >= 20
    for conversation in inbox[:8]:
        thread = ok(seeded, "get_conversation", {"user_id": conversation["user_id"], "per_page": 100})
        assert thread["total"] == conversation["message_count"] and thread["unread_count"] == conversation["unread_count"]
        assert thread["messages"][0]["text"] == conversation["last_message_text"]
    assert ok(seeded, "list_conversations", {"unread_only": True})["total"] == sum(c["unread_count"] > 0 for c in inbox)
    stranger = person(users, lambda u: u["id"] not in {c["user_id"] for c in inbox})
    assert ok(seeded, "get_conversation", {"user_id": stranger["id"]})["total"] == 0


# ---------------------------------------------------------------- writes


def test_post_reply_and_quote_with_mentions_and_hashtags(session: ToolSession, users: list[Row]) -> None:
    friend = person(users, clear)
    created = ok(session, "create_post", {"text": f"Welcome @{friend['handle'].upper()} to #NorthwindCloud! @nobody_here_x"})
    assert created["mentions"] == [friend["handle"]] and created["hashtags"] == ["northwindcloud"]
    assert created["created_at"] == format_timestamp(session.context.now)
    assert ok(session, "search_posts", {"mentions_user_id": friend["id"], "per_page": 1})["posts"][0]["id"] == created["id"]
    target = latest_post(session, friend["id"]) if friend["post_count"] else created
    reply = ok(session, "reply_to_post", {"post_id": target["id"], "text": "Thanks for this!"})
    assert reply["in_reply_to_post_id"] == target["id"]
    assert ok(session, "get_post", {"post_id": target["id"]})["reply_count"] == target["reply_count"] + 1
    quote = ok(session, "quote_post", {"post_id": target["id"], "text": "Worth a read."})
    assert quote["quoted_post_id"] == target["id"]
    assert ok(session, "get_post", {"post_id": target["id"]})["quote_count"] == target["quote_count"] + 1
    assert ok(session, "get_home_timeline", {"per_page": 1})["posts"][0]["id"] == quote["id"]


def test_edit_within_the_window_and_delete_own_posts(session: ToolSession) -> None:
    latest = my_latest(session)
    edited = ok(session, "edit_post", {"post_id": latest["id"], "text": "Questions welcome until 18:00 UTC! #ama"})
    assert edited["edited_at"] == format_timestamp(session.context.now) and edited["hashtags"] == ["ama"]
    assert ok(session, "search_posts", {"hashtag": "northwindcloud", "author_id": ME, "per_page": 1})["posts"][0]["id"] != latest["id"]
    threaded = next(p for p in pages(session, "search_posts", "posts", {"author_id": ME}) if p["reply_count"])
    gone = ok(session, "delete_post", {"post_id": threaded["id"]})
    assert gone == {"post_id": threaded["id"], "replies_kept": threaded["reply_count"]}
    assert "was deleted" in fails(session, "get_post", {"post_id": threaded["id"]}, "not_found")
    assert raw(session, "SELECT count(*) FROM likes WHERE post_id = ?", (threaded["id"],))[0][0] == 0
    assert raw(session, "SELECT count(*) FROM posts WHERE in_reply_to_post_id = ?", (threaded["id"],))[0][0] == threaded["reply_count"]


def test_likes_and_reposts(session: ToolSession, posts: list[Row], users: list[Row]) -> None:
    ok_authors = {u["id"] for u in users if clear(u)}
    post = next(p for p in posts if not p["liked_by_me"] and not p["reposted_by_me"] and p["author_id"] in ok_authors)
    liked = ok(session, "like_post", {"post_id": post["id"]})
    assert liked["liked_by_me"] and liked["like_count"] == post["like_count"] + 1
    unliked = ok(session, "unlike_post", {"post_id": post["id"]})
    assert not unliked["liked_by_me"] and unliked["like_count"] == post["like_count"]
    assert "have not liked" in fails(session, "unlike_post", {"post_id": post["id"]}, "invalid_arguments")
    reposted = ok(session, "repost", {"post_id": post["id"]})
    assert reposted["reposted_by_me"] and reposted["repost_count"] == post["repost_count"] + 1


def test_follow_block_and_mute(session: ToolSession, users: list[Row]) -> None:
    fan = person(users, lambda u: u["followed_by"] and not u["following"] and clear(u) and not u["muting"])
    followed = ok(session, "follow_user", {"user_id": fan["id"]})
    assert followed["following"] and followed["user"]["followers_count"] == fan["followers_count"] + 1
    assert "already follow" in fails(session, "follow_user", {"user_id": fan["id"]}, "invalid_arguments")
    muted = ok(session, "mute_user", {"user_id": fan["id"]})
    assert muted["muting"] and muted["following"]
    assert fan["id"] not in {p["author_id"] for p in pages(session, "get_home_timeline", "posts")}
    assert not ok(session, "unmute_user", {"user_id": fan["id"]})["muting"]
    blocked = ok(session, "block_user", {"user_id": fan["id"]})
    assert blocked["blocking"] and not blocked["following"] and not blocked["followed_by"]
    unblocked = ok(session, "unblock_user", {"user_id": fan["id"]})
    assert not unblocked["blocking"] and not unblocked["following"]
    friend = person(users, lambda u: u["following"] and clear(u))
    assert not ok(session, "unfollow_user", {"user_id": friend["id"]})["following"]
    assert "do not follow" in fails(session, "unfollow_user", {"user_id": friend["id"]}, "invalid_arguments")
    assert "yourself" in fails(session, "follow_user", {"user_id": ME}, "invalid_arguments")


def test_direct_messages_mark_the_conversation_read(session: ToolSession) -> None:
    unread = ok(session, "list_conversations", {"unread_only": True})["conversations"][0]
    sent = ok(session, "send_direct_message", {"user_id": unread["user_id"], "text": "  Thanks, looking into it now.  "})
    assert (sent["sender_id"], sent["recipient_id"], sent["text"], sent["read_at"]) == (
        ME, unread["user_id"], "Thanks, looking into it now.", None)
    thread = ok(session, "get_conversation", {"user_id": unread["user_id"]})
    assert thread["unread_count"] == 0 and thread["messages"][0]["id"] == sent["id"]


def test_update_profile(session: ToolSession) -> None:
    changed = ok(session, "update_profile", {"bio": "Support 24/7.", "dm_policy": "followers", "website": " https://nw.example "})
    assert (changed["bio"], changed["dm_policy"], changed["website"]) == ("Support 24/7.", "followers", "https://nw.example")
    fails(session, "update_profile", {}, "invalid_arguments")
    fails(session, "update_profile", {"name": "   "}, "invalid_arguments")
    fails(session, "update_profile", {"bio": "x" * 161}, "invalid_arguments")


# ---------------------------------------------------------------- policy: each rule refuses and changes nothing


def test_blocked_accounts_cannot_be_followed_mentioned_messaged_or_engaged(session: ToolSession, users: list[Row]) -> None:
    before = session.state_hash()
    for relation, words in (("blocking", "you have blocked"), ("blocked_by", "has blocked you")):
        other = next(u for u in users if u[relation])
        post = latest_post(session, other["id"]) if other["post_count"] else None
        attempts: list[tuple[str, dict[str, Any]]] = [
            ("follow_user", {"user_id": other["id"]}),
            ("send_direct_message", {"user_id": other["id"], "text": "hello"}),
            ("create_post", {"text": f"Hello @{other['handle']}"}),
        ]
        if post:
            attempts += [("reply_to_post", {"post_id": post["id"], "text": "hi"}),
                         ("quote_post", {"post_id": post["id"], "text": "hi"}),
                         ("like_post", {"post_id": post["id"]}), ("repost", {"post_id": post["id"]})]
        for tool, args in attempts:
            error = refused(session, tool, args)
            assert words in error and other["handle"] in error, (tool, error)
    assert session.state_hash() == before


def test_posts_are_at_most_280_characters(session: ToolSession) -> None:
    post = latest_post(session, ME)
    before = session.state_hash()
    for tool, args in (("create_post", {}), ("reply_to_post", {"post_id": post["id"]}), ("quote_post", {"post_id": post["id"]}),
                       ("edit_post", {"post_id": post["id"]})):
        error = refused(session, tool, {**args, "text": "x" * 281})
        assert "limited to 280 characters" in error and "1 too many" in error
    assert session.state_hash() == before
    assert len(ok(session, "create_post", {"text": "y" * 280})["text"]) == 280


def test_only_the_author_edits_or_deletes(session: ToolSession, posts: list[Row]) -> None:
    theirs = next(p for p in posts if p["author_id"] != ME)
    for tool, args in (("edit_post", {"post_id": theirs["id"], "text": "changed"}), ("delete_post", {"post_id": theirs["id"]})):
        error = fails(session, tool, args, "forbidden")
        assert "only the author of a post" in error and theirs["author_handle"] in error


def test_edits_only_within_60_minutes(session: ToolSession) -> None:
    old = ok(session, "search_posts", {"author_id": ME, "type": "post", "per_page": 2})["posts"][1]
    assert session.context.now - when(old["created_at"]) > timedelta(minutes=60)
    assert "within 60 minutes" in fails(session, "edit_post", {"post_id": old["id"], "text": "changed"}, "forbidden")
    fresh = ok(session, "create_post", {"text": "A fresh post"})
    assert ok(session, "edit_post", {"post_id": fresh["id"], "text": "A fresh post, edited"})["edited_at"]


def test_a_post_is_liked_and_reposted_once(session: ToolSession, posts: list[Row]) -> None:
    liked = next(p for p in posts if p["liked_by_me"])
    assert "liked only once" in fails(session, "like_post", {"post_id": liked["id"]}, "forbidden")
    reposted = next(p for p in posts if p["reposted_by_me"]) if any(p["reposted_by_me"] for p in posts) else None
    if reposted is None:
        reposted = ok(session, "repost", {"post_id": liked["id"]})
    assert "reposted only once" in fails(session, "repost", {"post_id": reposted["id"]}, "forbidden")


def test_direct_messages_need_a_follow_or_open_dms(session: ToolSession, users: list[Row]) -> None:
    closed = person(users, lambda u: clear(u) and not u["followed_by"] and u["dm_policy"] == "followers")
    error = fails(session, "send_direct_message", {"user_id": closed["id"], "text": "hi"}, "forbidden")
    assert "only from accounts it follows" in error
    open_dms = person(users, lambda u: clear(u) and not u["followed_by"] and u["dm_policy"] == "everyone")
    assert ok(session, "send_direct_message", {"user_id": open_dms["id"], "text": "hi"})["recipient_id"] == open_dms["id"]
    fan = person(users, lambda u: clear(u) and u["followed_by"] and u["dm_policy"] == "followers")
    assert ok(session, "send_direct_message", {"user_id": fan["id"], "text": "hi"})["recipient_id"] == fan["id"]


def test_the_same_text_cannot_be_posted_twice_within_24_hours(session: ToolSession) -> None:
    today = ok(session, "search_posts", {"author_id": ME, "type": "post", "per_page": 2})["posts"][1]
    error = fails(session, "create_post", {"text": f"  {today['text']} "}, "forbidden")
    assert "duplicate posts are not allowed" in error and str(today["id"]) in error
    week_old = next(p for p in pages(session, "search_posts", "posts", {"author_id": ME, "type": "post"})
                    if session.context.now - when(p["created_at"]) > timedelta(days=2))
    assert ok(session, "create_post", {"text": week_old["text"]})["text"] == week_old["text"]


# ---------------------------------------------------------------- bad input


BadCall = tuple[str, dict[str, Any], str]

BAD_INPUT: list[BadCall] = [
    ("get_user", {"user_id": 987654}, "not_found"),
    ("get_user_by_handle", {"handle": "@no_such_handle"}, "not_found"),
    ("get_user_by_handle", {"handle": "not a handle"}, "invalid_arguments"),
    ("get_user_by_email", {"email": "nobody@example.com"}, "not_found"),
    ("get_user_by_email", {"email": "nobody"}, "invalid_arguments"),
    ("get_post", {"post_id": 987654}, "not_found"),
    ("get_post_replies", {"post_id": 987654}, "not_found"),
    ("search_posts", {"author_id": 987654}, "not_found"),
    ("search_posts", {"after": "2025-05-01", "before": "2025-04-01"}, "invalid_arguments"),
    ("search_posts", {"hashtag": "#"}, "invalid_arguments"),
    ("search_posts", {"query": "x" * 201}, "invalid_arguments"),
    ("search_posts", {"type": "thread"}, "invalid_arguments"),
    ("trending_hashtags", {"hours": 0}, "invalid_arguments"),
    ("account_stats", {"user_id": 987654}, "not_found"),
    ("list_followers", {"user_id": 987654}, "not_found"),
    ("create_post", {"text": ""}, "invalid_arguments"),
    ("create_post", {"text": "   "}, "invalid_arguments"),
    ("create_post", {"text": True}, "invalid_arguments"),
    ("reply_to_post", {"post_id": "ten", "text": "hi"}, "invalid_arguments"),
    ("reply_to_post", {"post_id": 987654, "text": "hi"}, "not_found"),
    ("like_post", {"post_id": 987654}, "not_found"),
    ("follow_user", {"user_id": 987654}, "not_found"),
    ("block_user", {"user_id": 1}, "invalid_arguments"),
    ("unblock_user", {"user_id": 10}, "invalid_arguments"),
    ("unmute_user", {"user_id": 10}, "invalid_arguments"),
    ("send_direct_message", {"user_id": 1, "text": "hi"}, "invalid_arguments"),
    ("send_direct_message", {"user_id": 10, "text": " "}, "invalid_arguments"),
    ("get_conversation", {"user_id": 987654}, "not_found"),
    ("list_notifications", {"kind": "poke"}, "invalid_arguments"),
]


@pytest.mark.parametrize(("tool", "args", "code"), BAD_INPUT, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(BAD_INPUT)])
def test_bad_input_is_a_clear_error_and_changes_nothing(seeded: ToolSession, tool: str, args: dict[str, Any], code: str) -> None:
    error = fails(seeded, tool, args, code)
    assert len(error) < 600 and "Traceback" not in error
