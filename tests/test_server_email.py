"""Domain behaviour of the email server, through ToolSession calls as an agent makes them."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpgym.servers.email import SERVER
from mcpgym.servers.kernel import ToolSession
from tool_calls import fails, ok, uncached_env


@pytest.fixture
def session() -> ToolSession:
    return ToolSession(SERVER, 0)


def all_messages(session: ToolSession, **filters: Any) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    page: int | None = 1
    while page is not None:
        data = ok(session, "search_messages", {**filters, "page": page, "per_page": 100})
        messages.extend(data["messages"])
        page = data["next_page"]
    return messages


def time_of(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")


def incoming_with_cc(session: ToolSession) -> dict[str, Any]:
    """A received inbox message that has cc recipients, in full."""
    owner = ok(session, "get_profile")["email"]
    for summary in all_messages(session, label="INBOX"):
        message = ok(session, "get_message", {"message_id": summary["id"]})
        if message["sender"]["email"] != owner and message["cc"]:
            return message
    raise AssertionError("no received message with cc in the inbox")


def test_profile_and_contacts_agree_with_the_world(session: ToolSession) -> None:
    world = session.context.world
    owner = world.employees[0]
    profile = ok(session, "get_profile")
    assert (profile["name"], profile["email"], profile["organization_name"]) == (
        owner.name, owner.email, world.home.name)
    organizations = {org.id: org.name for org in world.organizations}
    for person in (world.customers[0], world.customers[-1], world.employees[1]):
        contact = ok(session, "lookup_contact", {"email": person.email.upper()})
        assert contact["name"] == person.name
        assert contact["email"] == person.email
        assert contact["organization_name"] == organizations[person.organization_id]
        assert contact["kind"] == ("colleague" if person.is_employee else "customer")
        assert contact["message_count"] > 0


def test_search_filters_only_return_matching_messages(session: ToolSession) -> None:
    customer = session.context.world.customers[3]
    from_customer = all_messages(session, sender=customer.email)
    assert from_customer and all(m["sender"]["email"] == customer.email for m in from_customer)
    to_customer = all_messages(session, recipient=customer.email)
    for summary in to_customer[:5]:
        message = ok(session, "get_message", {"message_id": summary["id"]})
        assert customer.email in [a["email"] for a in message["to"] + message["cc"] + message["bcc"]]
    attached = ok(session, "search_messages", {"has_attachment": True, "per_page": 50})
    assert attached["total"] > 0 and all(m["attachment_count"] > 0 for m in attached["messages"])
    unread_inbox = all_messages(session, label="INBOX", is_unread=True)
    assert unread_inbox and all(not m["is_read"] and "INBOX" in m["labels"] for m in unread_inbox)
    invoices = ok(session, "search_messages", {"subject": "invoice", "body": "invoice", "per_page": 50})
    assert invoices["total"] > 0
    for m in invoices["messages"]:
        assert "invoice" in m["subject"].lower()


def test_date_range_and_history_span_more_than_a_year(session: ToolSession) -> None:
    now = session.context.now
    oldest = ok(session, "search_messages", {"sort_order": "asc", "per_page": 1})["messages"][0]
    assert time_of(oldest["date"]) < now - timedelta(days=365)
    after, before = now - timedelta(days=400), now - timedelta(days=365)
    window = all_messages(session, after=after.isoformat(), before=before.isoformat())
    assert window and all(after <= time_of(m["date"]) < before for m in window)
    assert "after must be earlier" in fails(session, "search_messages", {"after": "2025-02-01", "before": "2025-01-01"},
                                            "invalid_arguments")


def test_pages_partition_the_results(session: ToolSession) -> None:
    first = ok(session, "search_messages", {"label": "STARRED", "per_page": 100})
    assert 7 < first["total"] <= 100
    ids: list[int] = []
    page: int | None = 1
    while page is not None:
        data = ok(session, "search_messages", {"label": "STARRED", "page": page, "per_page": 7})
        assert data["total"] == first["total"]
        ids.extend(m["id"] for m in data["messages"])
        page = data["next_page"]
    assert ids == [m["id"] for m in first["messages"]]
    dates = [m["date"] for m in first["messages"]]
    assert dates == sorted(dates, reverse=True)


def assert_label_counts_match_search(session: ToolSession) -> list[dict[str, Any]]:
    """Every label's counts in list_labels are those of search_messages with that label; the labels."""
    labels = ok(session, "list_labels")["labels"]
    for label in labels:
        matching = all_messages(session, label=label["name"])
        assert label["messages_total"] == len(matching), label
        assert label["messages_unread"] == sum(1 for m in matching if not m["is_read"]), label
        assert label["threads_total"] == len({m["thread_id"] for m in matching}), label
    inbox = next(label for label in labels if label["name"] == "INBOX")
    assert ok(session, "get_profile")["inbox_unread"] == inbox["messages_unread"]
    return labels


def test_label_counts_match_search(session: ToolSession) -> None:
    labels = assert_label_counts_match_search(session)
    assert [label["name"] for label in labels[:7]] == ["INBOX", "SENT", "DRAFT", "TRASH", "SPAM", "STARRED", "IMPORTANT"]


def test_label_counts_match_search_for_mail_with_several_hidden_labels(session: ToolSession) -> None:
    inbox = ok(session, "search_messages", {"label": "INBOX", "is_unread": True, "per_page": 3})["messages"]
    spam_and_trash, starred_spam, trashed_thread = inbox[0]["id"], inbox[1]["id"], inbox[2]["thread_id"]
    ok(session, "trash_messages", {"message_id": spam_and_trash})
    ok(session, "modify_labels", {"message_id": spam_and_trash, "add_labels": ["SPAM"]})
    ok(session, "modify_labels", {"message_id": starred_spam, "add_labels": ["spam", "starred"]})
    ok(session, "trash_messages", {"thread_id": trashed_thread})
    labels = {label["name"]: label for label in assert_label_counts_match_search(session)}
    assert spam_and_trash not in [m["id"] for m in all_messages(session, label="TRASH")]
    assert spam_and_trash in [m["id"] for m in all_messages(session, include_spam_trash=True)]
    assert starred_spam in [m["id"] for m in all_messages(session, label="SPAM")]
    assert labels["SPAM"]["messages_total"] > 0 and labels["TRASH"]["messages_total"] > 0


def test_contact_message_count_matches_search(session: ToolSession) -> None:
    contact = ok(session, "list_contacts", {"kind": "customer", "per_page": 1})["contacts"][0]
    exchanged = {m["id"]: m["date"] for m in all_messages(session, sender=contact["email"])}
    exchanged.update({m["id"]: m["date"] for m in all_messages(session, recipient=contact["email"])})
    assert contact["message_count"] == len(exchanged)
    assert contact["last_message_at"] == max(exchanged.values())


def test_reply_all_stays_in_thread_and_reaches_everyone(session: ToolSession) -> None:
    owner = ok(session, "get_profile")["email"]
    original = incoming_with_cc(session)
    reply = ok(session, "reply_to_message", {"message_id": original["id"], "body": "Thanks, on it.", "reply_all": True})
    assert reply["thread_id"] == original["thread_id"]
    assert reply["subject"] == "Re: " + original["subject"].removeprefix("Re: ")
    assert reply["in_reply_to"] == original["header_message_id"]
    assert reply["labels"] == ["SENT"]
    reached = [a["email"] for a in reply["to"] + reply["cc"]]
    expected = [a["email"] for a in [original["sender"], *original["to"], *original["cc"]] if a["email"] != owner]
    assert sorted(reached) == sorted(expected)
    assert reply["to"][0]["email"] == original["sender"]["email"]
    thread = ok(session, "get_thread", {"thread_id": original["thread_id"]})
    assert thread["messages"][-1]["id"] == reply["id"]
    assert thread["message_count"] == len(thread["messages"])
    sender_only = ok(session, "reply_to_message", {"message_id": original["id"], "body": "Only you."})
    assert [a["email"] for a in sender_only["to"]] == [original["sender"]["email"]] and sender_only["cc"] == []


def test_forward_carries_attachments_and_remembers_the_contact(session: ToolSession) -> None:
    summary = ok(session, "search_messages", {"has_attachment": True, "per_page": 1})["messages"][0]
    original = ok(session, "get_message", {"message_id": summary["id"]})
    fails(session, "lookup_contact", {"email": "auditor@example.org"}, "not_found")
    forward = ok(session, "forward_message", {
        "message_id": original["id"], "to": ["Pat Auditor <auditor@example.org>"], "note": "See below."})
    assert forward["subject"].startswith("Fwd: ")
    assert forward["body"].startswith("See below.") and original["body"] in forward["body"]
    assert [(a["filename"], a["mime_type"], a["size_bytes"]) for a in forward["attachments"]] == [
        (a["filename"], a["mime_type"], a["size_bytes"]) for a in original["attachments"]]
    assert {a["id"] for a in forward["attachments"]}.isdisjoint(a["id"] for a in original["attachments"])
    contact = ok(session, "lookup_contact", {"email": "auditor@example.org"})
    assert (contact["name"], contact["kind"], contact["message_count"]) == ("Pat Auditor", "external", 1)


def test_sending_rules(session: ToolSession) -> None:
    before = session.state_hash()
    fails(session, "send_message", {"to": [], "subject": "Hi", "body": "x"}, "forbidden")
    fails(session, "send_message", {"to": ["not-an-address"], "subject": "Hi", "body": "x"}, "invalid_arguments")
    home = session.context.world.home.domain
    fails(session, "send_message", {"to": [f"nobody.here@{home}"], "subject": "Hi", "body": "x"}, "not_found")
    assert session.state_hash() == before
    customer = session.context.world.customers[10]
    sent = ok(session, "send_message", {"to": [f"Wrong Name <{customer.email}>"], "subject": "Hello", "body": "Hi!"})
    assert sent["to"] == [{"name": customer.name, "email": customer.email}]
    assert ok(session, "search_messages", {"label": "SENT", "per_page": 1})["messages"][0]["id"] == sent["id"]
    assert ok(session, "get_thread", {"thread_id": sent["thread_id"]})["message_count"] == 1


def test_user_label_lifecycle(session: ToolSession) -> None:
    thread_id = ok(session, "search_messages", {"label": "Invoices", "per_page": 1})["messages"][0]["thread_id"]
    label = ok(session, "create_label", {"name": "Clients/Priority"})
    changed = ok(session, "modify_labels", {"thread_id": thread_id, "add_labels": ["clients/priority"]})
    tagged = all_messages(session, label="Clients/Priority")
    assert changed["changed"] == len(tagged) > 0 and {m["thread_id"] for m in tagged} == {thread_id}
    renamed = ok(session, "rename_label", {"label_id": label["id"], "name": "VIP"})
    assert renamed["messages_total"] == len(tagged)
    deleted = ok(session, "delete_label", {"label_id": label["id"]})
    assert deleted["messages_affected"] == len(tagged)
    fails(session, "search_messages", {"label": "VIP"}, "not_found")
    assert all("VIP" not in m["labels"] for m in ok(session, "get_thread", {"thread_id": thread_id})["messages"])


def test_system_labels_are_protected(session: ToolSession) -> None:
    before = session.state_hash()
    labels = {label["name"]: label for label in ok(session, "list_labels")["labels"]}
    fails(session, "rename_label", {"label_id": labels["INBOX"]["id"], "name": "Mail"}, "forbidden")
    fails(session, "delete_label", {"label_id": labels["SENT"]["id"]}, "forbidden")
    fails(session, "create_label", {"name": "starred"}, "forbidden")
    fails(session, "create_label", {"name": "invoices"}, "invalid_arguments")
    message_id = ok(session, "search_messages", {"per_page": 1})["messages"][0]["id"]
    fails(session, "modify_labels", {"message_id": message_id, "add_labels": ["SENT"]}, "forbidden")
    fails(session, "modify_labels", {"message_id": message_id, "add_labels": ["TRASH"]}, "forbidden")
    assert session.state_hash() == before


def test_archive_trash_untrash_and_permanent_delete(session: ToolSession) -> None:
    inbox_total = ok(session, "search_messages", {"label": "INBOX"})["total"]
    message = ok(session, "search_messages", {"label": "INBOX", "per_page": 1})["messages"][0]
    labels_before = message["labels"]
    trashed = ok(session, "trash_messages", {"message_id": message["id"]})
    assert trashed["changed"] == 1 and "TRASH" in trashed["messages"][0]["labels"]
    assert ok(session, "search_messages", {"label": "INBOX"})["total"] == inbox_total - 1
    assert message["id"] in [m["id"] for m in all_messages(session, label="TRASH")]
    restored = ok(session, "untrash_messages", {"message_id": message["id"]})["messages"][0]
    assert restored["labels"] == labels_before
    fails(session, "untrash_messages", {"message_id": message["id"]}, "forbidden")

    archived = ok(session, "archive_messages", {"message_id": message["id"]})["messages"][0]
    assert "INBOX" not in archived["labels"]
    assert ok(session, "search_messages", {"label": "INBOX"})["total"] == inbox_total - 1
    before = session.state_hash()
    fails(session, "archive_messages", {"message_id": message["id"]}, "forbidden")
    fails(session, "delete_permanently", {"message_id": message["id"]}, "forbidden")
    assert session.state_hash() == before

    ok(session, "trash_messages", {"message_id": message["id"]})
    fails(session, "trash_messages", {"message_id": message["id"]}, "forbidden")
    deleted = ok(session, "delete_permanently", {"message_id": message["id"]})
    assert deleted["message_ids"] == [message["id"]]
    fails(session, "get_message", {"message_id": message["id"]}, "not_found")


def test_deleting_a_whole_thread_removes_it(session: ToolSession) -> None:
    thread = ok(session, "get_thread", {"thread_id": 1})
    ok(session, "trash_messages", {"thread_id": 1})
    deleted = ok(session, "delete_permanently", {"thread_id": 1})
    assert deleted == {"message_ids": [m["id"] for m in thread["messages"]], "thread_ids": [1]}
    changes = session.diff()
    assert all(change.op == "delete" for change in changes)
    recipients = sum(len(m["to"]) + len(m["cc"]) + len(m["bcc"]) for m in thread["messages"])
    assert sum(1 for change in changes if change.table == "recipients") == recipients
    assert sum(1 for change in changes if change.table == "messages") == thread["message_count"]
    assert "search_messages" in fails(session, "get_thread", {"thread_id": 1}, "not_found")


def test_deleting_the_mail_of_a_thread_keeps_its_drafts_and_the_thread(session: ToolSession) -> None:
    threads = (ok(session, "get_thread", {"thread_id": d["thread_id"]}) for d in all_messages(session, label="DRAFT"))
    thread = next(t for t in threads if any(not m["is_draft"] for m in t["messages"]))
    mail = [m["id"] for m in thread["messages"] if not m["is_draft"]]
    drafts = [m["id"] for m in thread["messages"] if m["is_draft"]]
    ok(session, "trash_messages", {"thread_id": thread["id"]})
    assert ok(session, "delete_permanently", {"thread_id": thread["id"]}) == {"message_ids": mail, "thread_ids": []}
    left = ok(session, "get_thread", {"thread_id": thread["id"]})
    assert [m["id"] for m in left["messages"]] == drafts and left["message_count"] == len(drafts)
    changes = session.diff()
    assert all(change.op == "delete" for change in changes) and "threads" not in {change.table for change in changes}


def test_a_draft_without_recipients_cannot_be_sent_and_stays_a_draft(session: ToolSession) -> None:
    draft = ok(session, "create_draft", {"subject": "Half-written", "body": "To whom?"})
    assert draft["labels"] == ["DRAFT"] and draft["to"] == draft["cc"] == draft["bcc"] == []
    assert "at least one recipient" in fails(session, "send_draft", {"draft_id": draft["id"]}, "forbidden")
    assert ok(session, "get_message", {"message_id": draft["id"]}) == draft


def test_replaced_draft_recipients_get_new_ids(session: ToolSession) -> None:
    draft = ok(session, "create_draft", {"to": ["one@example.org"], "cc": ["two@example.org"], "subject": "Plan"})
    first = [int(c.key) for c in session.diff() if c.table == "recipients"]
    updated = ok(session, "update_draft", {"draft_id": draft["id"], "to": ["Three <three@example.org>"]})
    assert updated["to"] == [{"name": "Three", "email": "three@example.org"}]
    assert updated["cc"] == [{"name": None, "email": "two@example.org"}]
    now = sorted((int(c.key), c.after["kind"]) for c in session.diff() if c.table == "recipients")
    assert [kind for _, kind in now] == ["to", "cc"] and min(key for key, _ in now) > max(first)


def test_label_names_match_whatever_their_characters(session: ToolSession) -> None:
    message_id = ok(session, "search_messages", {"label": "INBOX", "per_page": 1})["messages"][0]["id"]
    name = 'Q "%_\\/ été 😀'
    odd = ok(session, "create_label", {"name": name})
    assert odd["name"] == name
    fails(session, "search_messages", {"label": "Q"}, "not_found")
    ok(session, "modify_labels", {"message_id": message_id, "add_labels": [name.lower()]})
    plain = ok(session, "create_label", {"name": "Q"})
    assert name in ok(session, "get_message", {"message_id": message_id})["labels"]
    assert [m["id"] for m in all_messages(session, label=name)] == [message_id]
    assert ok(session, "search_messages", {"label": "q"})["total"] == 0
    counts = {label["id"]: label["messages_total"] for label in ok(session, "list_labels")["labels"]}
    assert (counts[odd["id"]], counts[plain["id"]]) == (1, 0)
    assert str(odd["id"]) in fails(session, "create_label", {"name": f" {name.upper()} "}, "invalid_arguments")


def test_a_message_to_hundreds_of_addresses_keeps_them_in_order(session: ToolSession) -> None:
    addresses = [f"reader.{n:03}@example.org" for n in range(300)]
    to, cc, bcc = addresses[:100], addresses[100:200], addresses[200:][::-1]
    sent = ok(session, "send_message", {"to": to, "cc": cc, "bcc": bcc, "subject": "Newsletter", "body": "Hello"})
    assert [[a["email"] for a in sent[kind]] for kind in ("to", "cc", "bcc")] == [to, cc, bcc]
    inserted = sorted((int(c.key), c.after["email"]) for c in session.diff() if c.table == "recipients")
    assert [email for _, email in inserted] == to + cc + bcc
    assert ok(session, "list_contacts", {"query": "reader.", "per_page": 100})["total"] == 300
    assert ok(session, "lookup_contact", {"email": bcc[-1]})["message_count"] == 1


SETTABLE = ["INBOX", "STARRED", "IMPORTANT", "SPAM", "Follow-up", "Invoices", "Meetings", "Projects/Atlas"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(thread_index=st.integers(0, 40), add=st.lists(st.sampled_from(SETTABLE), max_size=4),
       remove=st.lists(st.sampled_from(SETTABLE), max_size=3), lowercase=st.booleans())
def test_modify_labels_on_a_thread_adds_and_removes_exactly(
    session: ToolSession, thread_index: int, add: list[str], remove: list[str], lowercase: bool,
) -> None:
    session.reset()
    thread_id = sorted({m["thread_id"] for m in all_messages(session, label="INBOX")})[thread_index]
    before = ok(session, "get_thread", {"thread_id": thread_id})["messages"]
    arguments = {"thread_id": thread_id, "add_labels": [n.lower() if lowercase else n for n in add],
                 "remove_labels": [n.lower() if lowercase else n for n in remove]}
    if not add and not remove:
        fails(session, "modify_labels", arguments, "invalid_arguments")
        return
    if set(add) & set(remove):
        assert "both added and removed" in fails(session, "modify_labels", arguments, "invalid_arguments")
        return
    result = ok(session, "modify_labels", arguments)
    expected = {m["id"]: (set(m["labels"]) | set(add)) - set(remove) for m in before if not m["is_draft"]}
    assert {m["id"]: set(m["labels"]) for m in result["messages"]} == expected
    assert result["changed"] == sum(1 for m in before if m["id"] in expected and set(m["labels"]) != expected[m["id"]])
    after = ok(session, "get_thread", {"thread_id": thread_id})["messages"]
    assert {m["id"]: set(m["labels"]) for m in after if m["id"] in expected} == expected
    assert [m for m in after if m["id"] not in expected] == [m for m in before if m["id"] not in expected]


def test_mark_thread_unread_updates_counts(session: ToolSession) -> None:
    read = next(m for m in all_messages(session, label="INBOX", is_unread=False))
    unread_before = ok(session, "get_profile")["inbox_unread"]
    thread = ok(session, "get_thread", {"thread_id": read["thread_id"]})
    in_inbox_read = sum(1 for m in thread["messages"] if "INBOX" in m["labels"] and m["is_read"] and not m["is_draft"])
    result = ok(session, "mark_read", {"thread_id": read["thread_id"], "read": False})
    assert all(not m["is_read"] for m in result["messages"])
    assert ok(session, "get_profile")["inbox_unread"] == unread_before + in_inbox_read
    assert ok(session, "mark_read", {"message_id": read["id"]})["changed"] == 1


def test_draft_lifecycle(session: ToolSession) -> None:
    original = incoming_with_cc(session)
    draft = ok(session, "create_draft", {"reply_to_message_id": original["id"], "body": "Draft text"})
    assert draft["is_draft"] and draft["thread_id"] == original["thread_id"]
    assert draft["subject"].startswith("Re: ") and draft["in_reply_to"] == original["header_message_id"]
    assert draft["id"] not in [m["id"] for m in all_messages(session, sender=draft["sender"]["email"])]
    assert draft["id"] in [m["id"] for m in all_messages(session, label="DRAFT")]
    fails(session, "send_draft", {"draft_id": draft["id"]}, "forbidden")
    fails(session, "trash_messages", {"message_id": draft["id"]}, "forbidden")
    updated = ok(session, "update_draft", {"draft_id": draft["id"], "to": [original["sender"]["email"]], "body": "Final"})
    assert updated["body"] == "Final" and updated["to"][0]["email"] == original["sender"]["email"]
    sent = ok(session, "send_draft", {"draft_id": draft["id"]})
    assert sent["labels"] == ["SENT"] and not sent["is_draft"]
    before = session.state_hash()
    fails(session, "update_draft", {"draft_id": draft["id"], "body": "x"}, "forbidden")
    fails(session, "delete_draft", {"draft_id": draft["id"]}, "forbidden")
    assert session.state_hash() == before


def test_deleting_a_new_draft_removes_its_thread(session: ToolSession) -> None:
    drafts_before = ok(session, "search_messages", {"label": "DRAFT"})["total"]
    draft = ok(session, "create_draft", {"to": ["someone@example.com"], "subject": "Idea"})
    assert ok(session, "search_messages", {"label": "DRAFT"})["total"] == drafts_before + 1
    assert ok(session, "delete_draft", {"draft_id": draft["id"]}) == {
        "message_ids": [draft["id"]], "thread_ids": [draft["thread_id"]]}
    assert ok(session, "search_messages", {"label": "DRAFT"})["total"] == drafts_before
    fails(session, "lookup_contact", {"email": "someone@example.com"}, "not_found")


def test_bad_ids_name_the_search_tool(session: ToolSession) -> None:
    assert "search_messages" in fails(session, "get_message", {"message_id": 10**6}, "not_found")
    assert "list_labels" in fails(session, "delete_label", {"label_id": 10**6}, "not_found")
    assert "list_labels" in fails(session, "modify_labels", {"message_id": 1, "add_labels": ["No Such Label"]},
                                  "not_found")
    assert "DRAFT" in fails(session, "update_draft", {"draft_id": 10**6, "body": "x"}, "not_found")
    assert "list_contacts" in fails(session, "lookup_contact", {"email": "ghost@example.com"}, "not_found")


@pytest.mark.slow  # every server's seeded bytes across two processes: test_kernel, in the default suite
def test_same_state_hash_in_two_processes(session: ToolSession, tmp_path: Path) -> None:
    code = "from mcpgym.servers.email import SERVER\nfrom mcpgym.servers.kernel import ToolSession\n" \
           "print(ToolSession(SERVER, 0).state_hash())"
    hashes = []
    for hash_seed in ("1", "2"):
        env = uncached_env(PYTHONHASHSEED=hash_seed)
        out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True,
                             text=True, check=True)
        hashes.append(out.stdout.strip())
    assert hashes[0] == hashes[1] == session.state_hash()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(label=st.sampled_from(["INBOX", "SENT", "DRAFT", "TRASH", "SPAM", "STARRED", "IMPORTANT", None]),
       include_spam_trash=st.booleans(), per_page=st.integers(1, 30), page=st.integers(1, 4))
def test_a_page_of_summaries_matches_the_messages_in_full(
    session: ToolSession, label: str | None, include_spam_trash: bool, per_page: int, page: int,
) -> None:
    arguments = {"label": label, "include_spam_trash": include_spam_trash, "page": page, "per_page": per_page}
    data = ok(session, "search_messages", arguments)
    everything = all_messages(session, label=label, include_spam_trash=include_spam_trash)
    assert data["total"] == len(everything)
    assert data["messages"] == everything[(page - 1) * per_page:page * per_page]
    assert data["next_page"] == (page + 1 if page * per_page < len(everything) else None)
    for summary in data["messages"]:
        full = ok(session, "get_message", {"message_id": summary["id"]})
        assert {key: full[key] for key in summary} == summary
        assert summary["attachment_count"] == len(full["attachments"])
        assert summary["is_draft"] == ("DRAFT" in summary["labels"])


def test_a_page_past_the_end_is_empty_and_keeps_the_total(session: ToolSession) -> None:
    first = ok(session, "search_messages", {"label": "STARRED", "per_page": 5})
    beyond = ok(session, "search_messages", {"label": "STARRED", "per_page": 5, "page": first["total"] // 5 + 2})
    assert beyond["messages"] == [] and beyond["next_page"] is None
    assert beyond["total"] == first["total"] > 0
    drafts = ok(session, "search_messages", {"label": "DRAFT", "include_spam_trash": True, "per_page": 100})
    assert drafts["total"] == len(drafts["messages"]) > 0 and all(m["is_draft"] for m in drafts["messages"])
    nothing = ok(session, "search_messages", {"subject": "no-such-word-anywhere"})
    assert nothing == {"messages": [], "total": 0, "page": 1, "next_page": None}


def test_label_names_match_without_case_beyond_ascii(session: ToolSession) -> None:
    created = ok(session, "create_label", {"name": "Été 2025"})
    fails(session, "create_label", {"name": "été 2025"}, "invalid_arguments")
    found = ok(session, "search_messages", {"label": "ÉTÉ 2025"})
    assert found["total"] == 0
    renamed = ok(session, "rename_label", {"label_id": created["id"], "name": "ÉTÉ 2025"})
    assert renamed["name"] == "ÉTÉ 2025"
