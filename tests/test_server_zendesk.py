"""Domain behaviour of the Zendesk server, through the same call path an agent uses."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from mcpgym.servers.kernel.fields import format_timestamp
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.zendesk import SERVER
from tool_calls import fails, ok

ACTING_AGENT_ID = 1


@pytest.fixture
def session() -> ToolSession:
    return ToolSession(SERVER, 0)


def all_tickets(session: ToolSession, args: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    page: int | None = 1
    while page is not None:
        data = ok(session, "search_tickets", {**(args or {}), "page": page, "per_page": 100})
        rows += data["tickets"]
        page = data["next_page"]
    return rows


def all_comments(session: ToolSession, ticket_id: int) -> list[dict[str, Any]]:
    return ok(session, "list_ticket_comments", {"ticket_id": ticket_id, "per_page": 100})["comments"]


def now_text(session: ToolSession) -> str:
    return format_timestamp(session.context.now)


def time_of(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")


def first(session: ToolSession, **filters: Any) -> dict[str, Any]:
    """The most recent ticket matching `filters`."""
    found = ok(session, "search_tickets", {**filters, "per_page": 1})["tickets"]
    assert found, f"no ticket matches {filters}"
    return found[0]


def fresh_ticket(session: ToolSession, **extra: Any) -> dict[str, Any]:
    """A new ticket from a seeded end-user who belongs to an organisation."""
    requester = ok(session, "search_users", {"role": "end-user", "per_page": 1})["users"][0]
    return ok(session, "create_ticket", {"subject": "Printer on fire", "description": "It is on fire.",
                                         "requester_id": requester["id"], **extra})


# ---------------------------------------------------------------- search filters and pages


Predicate = Callable[[dict[str, Any]], bool]


def test_each_filter_keeps_exactly_the_matching_tickets(session: ToolSession) -> None:
    everything = all_tickets(session)
    assert len(everything) == len({t["id"] for t in everything}) == ok(session, "search_tickets")["total"]
    sample = next(t for t in everything if t["assignee_id"] is not None and t["status"] == "closed")
    cases: list[tuple[dict[str, Any], Predicate]] = [
        ({"status": ["pending", "hold"]}, lambda t: t["status"] in ("pending", "hold")),
        ({"status": ["new"]}, lambda t: t["status"] == "new"),
        ({"tags": ["billing", "refund"]}, lambda t: {"billing", "refund"} <= set(t["tags"])),
        ({"tags": ["access", "vip"]}, lambda t: {"access", "vip"} <= set(t["tags"])),
        ({"requester_id": sample["requester_id"]}, lambda t: t["requester_id"] == sample["requester_id"]),
        ({"assignee_id": sample["assignee_id"]}, lambda t: t["assignee_id"] == sample["assignee_id"]),
        ({"priority": ["urgent"], "type": "incident"}, lambda t: t["priority"] == "urgent" and t["type"] == "incident"),
        ({"organization_id": sample["organization_id"], "status": ["closed"]},
         lambda t: t["organization_id"] == sample["organization_id"] and t["status"] == "closed"),
    ]
    for args, keep in cases:
        expected = [t["id"] for t in everything if keep(t)]
        found = all_tickets(session, args)
        assert expected, args
        # each filter narrows, and keeps every match in the same order
        assert [t["id"] for t in found] == expected, args
    billing = {t["id"] for t in all_tickets(session, {"tags": ["billing"]})}
    refund = {t["id"] for t in all_tickets(session, {"tags": ["refund"]})}
    both = {t["id"] for t in all_tickets(session, {"tags": ["billing", "refund"]})}
    assert both == billing & refund and both < billing


def test_date_filters_include_after_and_exclude_before(session: ToolSession) -> None:
    everything = all_tickets(session)
    ticket = everything[len(everything) // 2]
    at = ticket["created_at"]
    one_second_later = format_timestamp(time_of(at) + timedelta(seconds=1))

    def ids(args: dict[str, Any]) -> set[int]:
        return {t["id"] for t in all_tickets(session, args)}

    assert ticket["id"] in ids({"created_after": at})
    assert ticket["id"] not in ids({"created_before": at})
    assert ids({"created_after": at, "created_before": one_second_later}) == {
        t["id"] for t in everything if t["created_at"] == at}
    assert ids({"created_after": at}) | ids({"created_before": at}) == {t["id"] for t in everything}
    assert not ids({"created_after": at}) & ids({"created_before": at})

    solved = next(t for t in everything if t["solved_at"] is not None)
    done = solved["solved_at"]
    assert solved["id"] in ids({"solved_after": done})
    assert solved["id"] not in ids({"solved_before": done})
    window = ids({"solved_after": done, "solved_before": format_timestamp(time_of(done) + timedelta(seconds=1))})
    assert window == {t["id"] for t in everything if t["solved_at"] == done}
    # a solved-time filter drops unsolved tickets
    assert all(t["solved_at"] is not None for t in all_tickets(session, {"solved_before": now_text(session)}))

    # a month window agrees with the timestamps, and an offset is converted to UTC
    month = ids({"created_after": "2025-06-01", "created_before": "2025-07-01"})
    assert month == {t["id"] for t in everything if "2025-06-01T00:00:00Z" <= t["created_at"] < "2025-07-01T00:00:00Z"}
    assert month == ids({"created_after": "2025-06-01T02:00:00+02:00", "created_before": "2025-06-30T20:00:00-04:00"})
    error = fails(session, "search_tickets", {"created_after": at, "created_before": at}, "invalid_arguments")
    assert "created_after must be earlier than created_before" in error
    fails(session, "ticket_stats", {"solved_after": done, "solved_before": "2020-01-01"}, "invalid_arguments")


@pytest.mark.parametrize(("sort_by", "sort_order"), [
    ("updated_at", "asc"), ("solved_at", "desc"), ("solved_at", "asc"), ("id", "asc")])
def test_pages_concatenate_to_the_full_ordered_result(session: ToolSession, sort_by: str, sort_order: str) -> None:
    args = {"tags": ["billing"], "sort_by": sort_by, "sort_order": sort_order}
    full = all_tickets(session, args)
    per_page = 7
    first_page = ok(session, "search_tickets", {**args, "per_page": per_page})
    total = first_page["total"]
    assert total == len(full) == len({t["id"] for t in full}) > per_page
    pages: list[dict[str, Any]] = []
    page: int | None = 1
    while page is not None:
        data = ok(session, "search_tickets", {**args, "page": page, "per_page": per_page})
        assert data["total"] == total and data["page"] == page
        assert data["next_page"] == (page + 1 if page * per_page < total else None)
        pages += data["tickets"]
        page = data["next_page"]
    assert [t["id"] for t in pages] == [t["id"] for t in full]
    assert len(data["tickets"]) == total - per_page * ((total - 1) // per_page)
    beyond = ok(session, "search_tickets", {**args, "page": (total // per_page) + 2, "per_page": per_page})
    assert beyond["tickets"] == [] and beyond["next_page"] is None and beyond["total"] == total

    solved = [t[sort_by] for t in full if t[sort_by] is not None]
    assert solved == sorted(solved, reverse=sort_order == "desc")
    if sort_by == "solved_at":  # not yet solved tickets come last
        unsolved = [i for i, t in enumerate(full) if t["solved_at"] is None]
        assert unsolved and unsolved == list(range(len(full) - len(unsolved), len(full)))


# ---------------------------------------------------------------- derived numbers


@pytest.mark.parametrize("group_by", ["status", "priority", "type", "assignee_id", "group_id", "channel", "tag"])
def test_ticket_stats_agree_with_search(session: ToolSession, group_by: str) -> None:
    filters = {"created_after": "2025-03-01", "priority": ["high", "urgent"]}
    stats = ok(session, "ticket_stats", {**filters, "group_by": group_by})
    tickets = all_tickets(session, filters)
    assert stats["total"] == len(tickets) == ok(session, "ticket_stats", filters)["total"]
    assert stats["group_by"] == group_by
    counts = list(stats["counts"].items())
    assert counts == sorted(counts, key=lambda kv: (-kv[1], kv[0]))
    if group_by == "tag":
        expected = Counter(tag for t in tickets for tag in t["tags"])
        assert sum(stats["counts"].values()) >= stats["total"]
    elif group_by == "channel":
        expected = Counter(ok(session, "get_ticket", {"ticket_id": t["id"]})["channel"] for t in tickets)
    else:
        expected = Counter("none" if t[group_by] is None else str(t[group_by]) for t in tickets)
    if group_by != "tag":
        assert sum(stats["counts"].values()) == stats["total"]
    assert stats["counts"] == dict(expected)
    # each group's count is what a search narrowed to that value finds
    narrow: dict[str, Callable[[str], dict[str, Any]]] = {
        "status": lambda k: {"status": [k]}, "priority": lambda k: {"priority": [k]}, "type": lambda k: {"type": k},
        "assignee_id": lambda k: {"assignee_id": int(k)}, "group_id": lambda k: {"group_id": int(k)},
        "tag": lambda k: {"tags": [k]},
    }
    if group_by in narrow:
        for key, count in stats["counts"].items():
            if key != "none":
                assert ok(session, "search_tickets", {**filters, **narrow[group_by](key), "per_page": 1})["total"] == count


@pytest.mark.parametrize("filters", [{}, {"tags": ["refund"]}, {"solved_after": "2025-08-01", "solved_before": "2025-10-01"},
                                     {"status": ["open"]}])
def test_satisfaction_summary_is_the_mean_of_the_ticket_ratings(session: ToolSession, filters: dict[str, Any]) -> None:
    summary = ok(session, "satisfaction_summary", filters)
    scores = []
    for t in all_tickets(session, filters):
        rating = ok(session, "get_ticket", {"ticket_id": t["id"]})["satisfaction"]
        if rating is not None:
            assert 1 <= rating["score"] <= 5
            scores.append(rating["score"])
    assert summary["rated_tickets"] == len(scores)
    assert summary["distribution"] == {str(s): scores.count(s) for s in range(1, 6)}
    if scores:
        assert summary["average_score"] == round(sum(scores) / len(scores), 2)
    else:
        assert summary["average_score"] is None


def test_ticket_metrics_agree_with_the_comments(session: ToolSession) -> None:
    roles: dict[int, str] = {}
    tickets = [first(session, status=["new"]), first(session, status=["pending"]), first(session, status=["solved"])]
    tickets += all_tickets(session, {"tags": ["escalated"], "created_after": "2025-08-01"})[:20]
    with_private = 0
    for t in tickets:
        detail = ok(session, "get_ticket", {"ticket_id": t["id"]})
        comments = all_comments(session, t["id"])
        metrics = ok(session, "get_ticket_metrics", {"ticket_id": t["id"]})
        for c in comments:
            if c["author_id"] not in roles:
                roles[c["author_id"]] = ok(session, "get_user", {"user_id": c["author_id"]})["role"]
        assert detail["comment_count"] == len(comments) == metrics["public_comments"] + metrics["private_comments"]
        assert metrics["public_comments"] == sum(c["public"] for c in comments)
        assert metrics["public_comments"] == ok(session, "list_ticket_comments",
                                                {"ticket_id": t["id"], "include_private": False})["total"]
        assert metrics["agent_replies"] == sum(roles[c["author_id"]] != "end-user" for c in comments)
        replies = [c["created_at"] for c in comments if c["public"] and roles[c["author_id"]] != "end-user"]
        assert metrics["first_reply_at"] == (replies[0] if replies else None)
        created = time_of(detail["created_at"])
        if replies:
            assert metrics["first_reply_minutes"] == int((time_of(replies[0]) - created).total_seconds() // 60)
        else:
            assert metrics["first_reply_minutes"] is None
        if detail["solved_at"] is None:
            assert metrics["resolution_minutes"] is None
        else:
            assert metrics["resolution_minutes"] == int((time_of(detail["solved_at"]) - created).total_seconds() // 60)
        assert [c["created_at"] for c in comments] == sorted(c["created_at"] for c in comments)
        with_private += metrics["private_comments"] > 0
    assert with_private > 0


def test_list_tags_counts_agree_with_searches_by_tag(session: ToolSession) -> None:
    tags = ok(session, "list_tags", {"limit": 200})["tags"]
    assert tags == sorted(tags, key=lambda t: (-t["count"], t["tag"]))
    everything = all_tickets(session)
    in_use = Counter(tag for t in everything for tag in t["tags"])
    assert {t["tag"]: t["count"] for t in tags} == dict(in_use)
    for t in tags:
        assert ok(session, "search_tickets", {"tags": [t["tag"]], "per_page": 1})["total"] == t["count"]
    assert ok(session, "list_tags", {"limit": 3})["tags"] == tags[:3]
    prefixed = ok(session, "list_tags", {"prefix": "Bil"})["tags"]
    assert prefixed == [t for t in tags if t["tag"].startswith("bil")] and prefixed


def test_list_tags_prefix_is_taken_literally(session: ToolSession) -> None:
    tags = ok(session, "list_tags", {"limit": 200})["tags"]
    for prefix in ("a_i", "%", "follow_"):
        assert ok(session, "list_tags", {"prefix": prefix, "limit": 200})["tags"] == [
            t for t in tags if t["tag"].startswith(prefix)]


# ---------------------------------------------------------------- writes


def test_create_ticket_defaults_and_requester_organisation(session: ToolSession) -> None:
    requester = ok(session, "search_users", {"role": "end-user", "query": "a", "per_page": 1})["users"][0]
    assert requester["organization_id"] is not None
    before = ok(session, "search_tickets", {"requester_id": requester["id"], "per_page": 1})["total"]
    created = ok(session, "create_ticket", {"subject": "Export is slow", "description": "Exports take an hour.",
                                            "requester_id": requester["id"], "tags": ["vip", "bug", "vip"]})
    assert (created["status"], created["priority"], created["type"], created["channel"]) == (
        "new", "normal", "question", "api")
    assert created["assignee_id"] is None and created["group_id"] is None and created["solved_at"] is None
    assert created["organization_id"] == requester["organization_id"]
    # the write's own answer lists tags in the order added; reads list them alphabetically
    assert sorted(created["tags"]) == ["bug", "vip"]
    assert ok(session, "get_ticket", {"ticket_id": created["id"]})["tags"] == ["bug", "vip"]
    assert created["created_at"] == created["updated_at"] == now_text(session)
    assert created["comment_count"] == 1 and created["merged_into_id"] is None
    [comment] = all_comments(session, created["id"])
    assert (comment["author_id"], comment["body"], comment["public"]) == (requester["id"], "Exports take an hour.", True)
    found = ok(session, "search_tickets", {"requester_id": requester["id"], "tags": ["vip", "bug"]})["tickets"]
    assert found[0]["id"] == created["id"]
    assert ok(session, "search_tickets", {"requester_id": requester["id"], "per_page": 1})["total"] == before + 1

    agent = ok(session, "search_users", {"role": "agent", "per_page": 1})["users"][0]
    assigned = ok(session, "create_ticket", {"subject": "S", "description": "D", "requester_id": requester["id"],
                                             "assignee_id": agent["id"], "group_id": 2, "priority": "urgent",
                                             "type": "incident"})
    assert (assigned["status"], assigned["assignee_id"], assigned["group_id"]) == ("open", agent["id"], 2)
    assert (assigned["priority"], assigned["type"]) == ("urgent", "incident")
    base = {"subject": "S", "description": "D", "requester_id": requester["id"]}
    fails(session, "create_ticket", {**base, "assignee_id": requester["id"]}, "invalid_arguments")
    fails(session, "create_ticket", {**base, "tags": ["Not A Tag"]}, "invalid_arguments")
    fails(session, "create_ticket", {**base, "requester_id": 999999}, "not_found")
    fails(session, "create_ticket", {**base, "group_id": 99}, "not_found")


def test_update_ticket_status_transitions(session: ToolSession) -> None:
    ticket = fresh_ticket(session)
    tid = ticket["id"]
    error = fails(session, "update_ticket", {"ticket_id": tid, "status": "solved"}, "forbidden")
    assert "assign" in error
    fails(session, "update_ticket", {"ticket_id": tid}, "invalid_arguments")
    fails(session, "update_ticket", {"ticket_id": tid, "status": "closed"}, "invalid_arguments")
    fails(session, "update_ticket", {"ticket_id": tid, "status": "new"}, "invalid_arguments")
    fails(session, "update_ticket", {"ticket_id": tid, "assignee_id": ticket["requester_id"]}, "invalid_arguments")
    fails(session, "update_ticket", {"ticket_id": tid, "assignee_id": 999999}, "not_found")
    assert "list_groups" in fails(session, "update_ticket", {"ticket_id": tid, "group_id": 99}, "not_found")

    agent = ok(session, "search_users", {"role": "agent", "per_page": 1})["users"][0]
    assigned = ok(session, "update_ticket", {"ticket_id": tid, "assignee_id": agent["id"]})
    assert (assigned["status"], assigned["assignee_id"]) == ("open", agent["id"])
    pending = ok(session, "update_ticket", {"ticket_id": tid, "status": "pending", "priority": "high"})
    assert (pending["status"], pending["priority"], pending["solved_at"]) == ("pending", "high", None)
    solved = ok(session, "update_ticket", {"ticket_id": tid, "status": "solved"})
    assert solved["status"] == "solved" and solved["solved_at"] == now_text(session)
    assert ok(session, "get_ticket_metrics", {"ticket_id": tid})["resolution_minutes"] == 0
    assert tid in {t["id"] for t in all_tickets(session, {"status": ["solved"], "solved_after": now_text(session)})}
    reopened = ok(session, "update_ticket", {"ticket_id": tid, "status": "open"})
    assert reopened["status"] == "open" and reopened["solved_at"] is None

    # assigning and solving in one call is allowed: the assignee is set first
    other = fresh_ticket(session)
    both = ok(session, "update_ticket", {"ticket_id": other["id"], "assignee_id": agent["id"], "status": "solved"})
    assert (both["status"], both["assignee_id"], both["solved_at"]) == ("solved", agent["id"], now_text(session))


def test_closed_tickets_are_forbidden_to_change(session: ToolSession) -> None:
    closed = first(session, status=["closed"])
    tid = closed["id"]
    open_ = first(session, status=["open"])
    attempts: list[tuple[str, dict[str, Any]]] = [
        ("update_ticket", {"ticket_id": tid, "priority": "low"}),
        ("update_ticket", {"ticket_id": tid, "status": "open"}),
        ("add_ticket_tags", {"ticket_id": tid, "tags": ["vip"]}),
        ("remove_ticket_tags", {"ticket_id": tid, "tags": [closed["tags"][0]]}),
        ("add_comment", {"ticket_id": tid, "body": "Any news?"}),
        ("apply_macro", {"ticket_id": tid, "macro_id": 2}),
        ("merge_tickets", {"source_ticket_id": tid, "target_ticket_id": open_["id"]}),
        ("merge_tickets", {"source_ticket_id": open_["id"], "target_ticket_id": tid}),
    ]
    for tool, args in attempts:
        assert "closed" in fails(session, tool, args, "forbidden")
    assert ok(session, "get_ticket", {"ticket_id": tid})["updated_at"] == closed["updated_at"]


def test_add_and_remove_tags(session: ToolSession) -> None:
    ticket = first(session, status=["open"])
    tid = ticket["id"]
    counts = {t["tag"]: t["count"] for t in ok(session, "list_tags", {"limit": 200})["tags"]}
    new_tag = "needs_review"
    assert new_tag not in counts and "vip" not in ticket["tags"]
    added = ok(session, "add_ticket_tags", {"ticket_id": tid, "tags": [new_tag, "vip", new_tag, ticket["tags"][0]]})
    assert sorted(added["tags"]) == sorted(set(ticket["tags"]) | {new_tag, "vip"})
    assert ok(session, "get_ticket", {"ticket_id": tid})["tags"] == sorted(added["tags"])
    assert added["updated_at"] == now_text(session)
    after = {t["tag"]: t["count"] for t in ok(session, "list_tags", {"limit": 200})["tags"]}
    assert after[new_tag] == 1 and after["vip"] == counts["vip"] + 1
    assert [t["id"] for t in all_tickets(session, {"tags": [new_tag]})] == [tid]

    error = fails(session, "remove_ticket_tags", {"ticket_id": tid, "tags": ["vip", "spam"]}, "invalid_arguments")
    assert "spam" in error and ", ".join(sorted(added["tags"])) in error
    removed = ok(session, "remove_ticket_tags", {"ticket_id": tid, "tags": [new_tag, ticket["tags"][0]]})
    assert sorted(removed["tags"]) == sorted((set(ticket["tags"]) | {"vip"}) - {new_tag, ticket["tags"][0]})
    assert ok(session, "search_tickets", {"tags": [new_tag]})["total"] == 0
    fails(session, "add_ticket_tags", {"ticket_id": tid, "tags": ["two words"]}, "invalid_arguments")
    fails(session, "add_ticket_tags", {"ticket_id": tid, "tags": []}, "invalid_arguments")


def test_add_comment_public_private_and_default_author(session: ToolSession) -> None:
    ticket = first(session, status=["pending"])
    tid = ticket["id"]
    assert ticket["updated_at"] < now_text(session)
    metrics = ok(session, "get_ticket_metrics", {"ticket_id": tid})
    reply = ok(session, "add_comment", {"ticket_id": tid, "body": "We are on it."})
    me = ok(session, "get_user", {"user_id": ACTING_AGENT_ID})
    assert (reply["author_id"], reply["author_name"], reply["public"]) == (ACTING_AGENT_ID, me["name"], True)
    assert reply["created_at"] == now_text(session)
    assert ok(session, "get_ticket", {"ticket_id": tid})["updated_at"] == now_text(session)
    note = ok(session, "add_comment", {"ticket_id": tid, "body": "Internal only.", "public": False})
    customer = ok(session, "add_comment", {"ticket_id": tid, "body": "Thanks!", "author_id": ticket["requester_id"]})
    assert customer["public"] and customer["author_id"] == ticket["requester_id"]

    comments = all_comments(session, tid)
    assert [c["id"] for c in comments[-3:]] == [reply["id"], note["id"], customer["id"]]
    public_only = ok(session, "list_ticket_comments", {"ticket_id": tid, "include_private": False, "per_page": 100})
    assert note["id"] not in {c["id"] for c in public_only["comments"]} and reply["id"] in {
        c["id"] for c in public_only["comments"]}
    newest = ok(session, "list_ticket_comments", {"ticket_id": tid, "sort_order": "desc", "per_page": 1})
    assert newest["comments"][0]["id"] == customer["id"]
    updated = ok(session, "get_ticket_metrics", {"ticket_id": tid})
    assert updated["public_comments"] == metrics["public_comments"] + 2
    assert updated["private_comments"] == metrics["private_comments"] + 1
    assert updated["agent_replies"] == metrics["agent_replies"] + 2

    error = fails(session, "add_comment", {"ticket_id": tid, "body": "x", "public": False,
                                           "author_id": ticket["requester_id"]}, "forbidden")
    assert "end-users" in error
    fails(session, "add_comment", {"ticket_id": tid, "body": "x", "author_id": 999999}, "not_found")
    fails(session, "add_comment", {"ticket_id": tid, "body": ""}, "invalid_arguments")


def test_merge_tickets_closes_the_source_and_notes_the_target(session: ToolSession) -> None:
    target = first(session, status=["open"])
    source = fresh_ticket(session, tags=["merge_me"])
    counts = {t["tag"]: t["count"] for t in ok(session, "list_tags", {"limit": 200})["tags"]}
    target_comments = all_comments(session, target["id"])
    result = ok(session, "merge_tickets", {"source_ticket_id": source["id"], "target_ticket_id": target["id"]})
    now = now_text(session)
    assert result["source"]["status"] == "closed" and result["source"]["solved_at"] == now
    assert result["source"]["assignee_id"] == ACTING_AGENT_ID  # it had none
    assert result["target"]["status"] == target["status"] and result["target"]["updated_at"] == now
    merged = ok(session, "get_ticket", {"ticket_id": source["id"]})
    assert merged["merged_into_id"] == target["id"] and merged["status"] == "closed"
    assert ok(session, "get_ticket", {"ticket_id": target["id"]})["merged_into_id"] is None

    [note] = all_comments(session, target["id"])[len(target_comments):]
    assert (note["author_id"], note["public"], note["created_at"]) == (ACTING_AGENT_ID, False, now)
    assert f"#{source['id']}" in note["body"] and source["subject"] in note["body"]
    source_note = all_comments(session, source["id"])[-1]
    assert not source_note["public"] and f"#{target['id']}" in source_note["body"]

    # merged-away tickets leave searches, stats and tag counts
    assert source["id"] not in {t["id"] for t in all_tickets(session, {"requester_id": source["requester_id"]})}
    assert "merge_me" not in {t["tag"] for t in ok(session, "list_tags", {"limit": 200})["tags"]}
    assert counts["merge_me"] == 1
    assert ok(session, "ticket_stats", {"requester_id": source["requester_id"]})["total"] == len(
        all_tickets(session, {"requester_id": source["requester_id"]}))

    other = fresh_ticket(session)
    assert "itself" in fails(session, "merge_tickets", {"source_ticket_id": other["id"],
                                                        "target_ticket_id": other["id"]}, "invalid_arguments")
    fails(session, "merge_tickets", {"source_ticket_id": other["id"], "target_ticket_id": source["id"]}, "forbidden")
    fails(session, "merge_tickets", {"source_ticket_id": source["id"], "target_ticket_id": other["id"]}, "forbidden")
    fails(session, "merge_tickets", {"source_ticket_id": other["id"], "target_ticket_id": 999999}, "not_found")


def test_apply_macro_applies_its_actions(session: ToolSession) -> None:
    macros = {m["id"]: m for m in ok(session, "list_macros", {"include_inactive": True})["macros"]}
    active = {m["id"] for m in ok(session, "list_macros")["macros"]}
    assert active == {i for i, m in macros.items() if m["active"]} and active < set(macros)
    groups = {g["name"]: g["id"] for g in ok(session, "list_groups")["groups"]}

    ticket = first(session, status=["open"])
    escalate = macros[2]["actions"]
    escalated = ok(session, "apply_macro", {"ticket_id": ticket["id"], "macro_id": 2})
    assert escalated["group_id"] == groups[escalate["group"]]
    assert escalated["priority"] == escalate["priority"]
    assert sorted(escalated["tags"]) == sorted(set(ticket["tags"]) | set(escalate["add_tags"]))
    assert escalated["status"] == ticket["status"] and escalated["updated_at"] == now_text(session)

    new = first(session, status=["new"])
    assert new["assignee_id"] is None
    resolve = macros[1]["actions"]
    solved = ok(session, "apply_macro", {"ticket_id": new["id"], "macro_id": 1})
    assert (solved["status"], solved["solved_at"]) == (resolve["status"], now_text(session))
    assert solved["assignee_id"] == ACTING_AGENT_ID  # a status macro assigns an unassigned ticket
    reply = all_comments(session, new["id"])[-1]
    assert (reply["body"], reply["public"], reply["author_id"]) == (resolve["comment"], True, ACTING_AGENT_ID)

    info = macros[3]["actions"]
    pending = ok(session, "apply_macro", {"ticket_id": new["id"], "macro_id": 3})
    assert (pending["status"], pending["solved_at"]) == (info["status"], None)
    assert all_comments(session, new["id"])[-1]["body"] == info["comment"]

    inactive = next(i for i, m in macros.items() if not m["active"])
    assert "inactive" in fails(session, "apply_macro", {"ticket_id": ticket["id"], "macro_id": inactive}, "forbidden")
    fails(session, "apply_macro", {"ticket_id": ticket["id"], "macro_id": 999}, "not_found")


def test_create_user_and_suspend_user(session: ToolSession) -> None:
    org = ok(session, "search_organizations", {"per_page": 1})["organizations"][0]
    user = ok(session, "create_user", {"name": "Jamie Rivera", "email": "Jamie.Rivera@Example.org",
                                       "organization_id": org["id"], "phone": "+1 555 0100"})
    assert (user["role"], user["email"], user["organization_id"], user["suspended"]) == (
        "end-user", "jamie.rivera@example.org", org["id"], False)
    assert user["created_at"] == now_text(session) and user["last_login_at"] is None
    assert ok(session, "get_organization", {"organization_id": org["id"]})["user_count"] == org["user_count"] + 1
    assert [u["id"] for u in ok(session, "search_users", {"query": "jamie.rivera"})["users"]] == [user["id"]]

    existing = ok(session, "search_users", {"role": "end-user", "per_page": 1})["users"][0]
    assert f"user {existing['id']}" in fails(session, "create_user", {"name": "X", "email": existing["email"].upper()},
                                             "invalid_arguments")
    fails(session, "create_user", {"name": "X", "email": "JAMIE.rivera@example.org"}, "invalid_arguments")
    fails(session, "create_user", {"name": "X", "email": "not-an-email"}, "invalid_arguments")
    fails(session, "create_user", {"name": "X", "email": "x@new.example", "organization_id": 99999}, "not_found")

    ticket = ok(session, "create_ticket", {"subject": "Hi", "description": "Hello", "requester_id": user["id"]})
    assert ticket["organization_id"] == org["id"]
    assert ok(session, "suspend_user", {"user_id": user["id"]})["suspended"]
    assert ok(session, "get_user", {"user_id": user["id"]})["suspended"]
    error = fails(session, "create_ticket", {"subject": "Hi", "description": "Again", "requester_id": user["id"]},
                  "forbidden")
    assert "suspended" in error
    assert not ok(session, "suspend_user", {"user_id": user["id"], "suspended": False})["suspended"]
    ok(session, "create_ticket", {"subject": "Hi", "description": "Again", "requester_id": user["id"]})
    agent = ok(session, "search_users", {"role": "agent", "per_page": 1})["users"][0]
    fails(session, "suspend_user", {"user_id": agent["id"]}, "forbidden")
    fails(session, "suspend_user", {"user_id": ACTING_AGENT_ID}, "forbidden")
    fails(session, "suspend_user", {"user_id": 999999}, "not_found")


@pytest.mark.parametrize(("tool", "args", "hint"), [
    ("get_ticket", {"ticket_id": 999999}, "search_tickets"),
    ("list_ticket_comments", {"ticket_id": 999999}, "search_tickets"),
    ("get_ticket_metrics", {"ticket_id": 999999}, "search_tickets"),
    ("update_ticket", {"ticket_id": 999999, "priority": "low"}, "search_tickets"),
    ("add_ticket_tags", {"ticket_id": 999999, "tags": ["vip"]}, "search_tickets"),
    ("remove_ticket_tags", {"ticket_id": 999999, "tags": ["vip"]}, "search_tickets"),
    ("add_comment", {"ticket_id": 999999, "body": "x"}, "search_tickets"),
    ("merge_tickets", {"source_ticket_id": 999999, "target_ticket_id": 1}, "search_tickets"),
    ("apply_macro", {"ticket_id": 999999, "macro_id": 1}, "search_tickets"),
    ("get_user", {"user_id": 999999}, "search_users"),
    ("get_organization", {"organization_id": 999999}, "search_organizations"),
])
def test_unknown_ids_are_not_found_and_change_nothing(session: ToolSession, tool: str, args: dict[str, Any],
                                                      hint: str) -> None:
    assert hint in fails(session, tool, args, "not_found")


def test_reset_restores_the_seeded_state(session: ToolSession) -> None:
    seeded = session.state_hash()
    fresh_ticket(session)
    assert session.state_hash() != seeded
    session.reset()
    assert session.state_hash() == seeded


@pytest.mark.parametrize(("filters", "per_page"), [({"tags": ["billing"]}, 7), ({"status": ["open", "pending"]}, 25),
                                                   ({"query": "refund"}, 3), ({}, 50)])
def test_search_pages_partition_the_results_and_match_get_ticket(
    session: ToolSession, filters: dict[str, Any], per_page: int,
) -> None:
    first = ok(session, "search_tickets", {**filters, "per_page": per_page})
    assert first["total"] > 0
    seen: list[dict[str, Any]] = []
    page: int | None = 1
    while page is not None:
        data = ok(session, "search_tickets", {**filters, "page": page, "per_page": per_page})
        assert data["total"] == first["total"]
        seen.extend(data["tickets"])
        page = data["next_page"]
    assert len(seen) == first["total"] == len({t["id"] for t in seen})
    beyond = ok(session, "search_tickets", {**filters, "per_page": per_page, "page": first["total"] // per_page + 2})
    assert beyond["tickets"] == [] and beyond["total"] == first["total"] and beyond["next_page"] is None
    for summary in seen[:per_page]:
        full = ok(session, "get_ticket", {"ticket_id": summary["id"]})
        assert {key: full[key] for key in summary} == summary
        assert summary["tags"] == sorted(summary["tags"])
