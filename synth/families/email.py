"""Email task families: label volume between months, a monthly series, the first or last
attachment of a month, a company's most active contact, the mailbox and a label at a glance, a
contact known by address, filing and forwarding a message the user names, a conditional
follow-up flag, a refused permanent deletion outside the trash, and two-turn tasks: "who wrote
last, then reply to that one", "how long is that thread, then file it", "label counts, then
rename, delete and create labels", "history with a contact, then a new email", "draft, then
edit and send", "which drafts, then send one and discard another", "what's in the trash, then
restore one and purge another" and "that unread email, then mark its thread read (and
archive it)"."""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from typing import Any

from mcpgym.synth.family import Draft, Family, WorldView, month_name, month_window, previous_month

SERVER = "email"

GROUPS = {
    "Invoices": "emails labelled Invoices",
    "Meetings": "emails labelled Meetings",
    "Renewals": "emails labelled Renewals",
    "Internal": "emails labelled Internal",
    "Newsletters": "newsletter emails (label Newsletters)",
    "IMPORTANT": "emails marked important",
    "SENT": "emails I sent",
}
"""Label -> how a user names the messages carrying it."""

ATTACHMENT_LABELS = ("Invoices", "Meetings", "Renewals", "Internal")
REPLY_BODIES = (
    "Thanks for your message. I'll look into it and get back to you by Friday.",
    "Thanks, got it. Let's discuss this on our next call.",
    "Thank you! I've shared this with the team and will follow up shortly.",
    "Appreciate the update. Could you send over any remaining details when you have them?",
)
FORWARD_NOTES = (
    "FYI, can you take a look at this?",
    "Forwarding for your records.",
    "Could you handle this one? Thanks!",
    "Please review before our next sync.",
)


def _full_months(view: WorldView) -> list[tuple[int, int]]:
    """Complete months with mail, oldest first (the first month with mail is partial)."""
    first = view.read(SERVER, "search_messages", sort_order="asc", per_page=1)["messages"][0]["date"]
    start = (int(first[:4]), int(first[5:7]))
    months = []
    back = 1
    while True:
        year, month = previous_month(view.now.year, view.now.month, back)
        if (year, month) <= start:
            break
        months.append((year, month))
        back += 1
    return months[::-1]


def _day(stamp: str) -> date:
    return datetime.strptime(stamp[:10], "%Y-%m-%d").date()


def _spoken(day: date) -> str:
    return f"{day:%B} {day.day}, {day.year}"


def _owner_email(view: WorldView) -> str:
    return str(view.read(SERVER, "get_profile")["email"])


def _contacts(view: WorldView, rng: random.Random, kind: str, per_page: int = 10) -> list[dict[str, Any]]:
    """One random page of contacts of a kind."""
    total = view.read(SERVER, "list_contacts", kind=kind, per_page=1)["total"]
    pages = max(1, -(-total // per_page))
    return list(view.read(SERVER, "list_contacts", kind=kind, per_page=per_page, page=rng.randint(1, pages))["contacts"])


def _named_contact(view: WorldView, rng: random.Random, kind: str, tries: int = 4) -> dict[str, Any] | None:
    """A random contact of a kind that has a name no other contact's name or email contains."""
    for _ in range(tries):
        people = [c for c in _contacts(view, rng, kind) if c["name"] and c["message_count"] >= 1]
        if not people:
            continue
        person = rng.choice(people)
        if view.read(SERVER, "list_contacts", query=person["name"], per_page=1)["total"] == 1:
            return person
    return None


def _lookup_arguments(message: dict[str, Any]) -> dict[str, Any]:
    """Search arguments that find a message by its sender's name, subject and day."""
    day = _day(message["date"])
    return {"sender": message["sender"]["name"], "subject": message["subject"], "after": day.isoformat(),
            "before": (day + timedelta(days=1)).isoformat(), "per_page": 2}


def _incoming_message(view: WorldView, rng: random.Random, tries: int = 6, **filters: Any) -> dict[str, Any] | None:
    """A random message someone else sent (not spam, trash or a draft) that its sender's name,
    subject and day single out."""
    owner = _owner_email(view)
    total = view.read(SERVER, "search_messages", per_page=1, **filters)["total"]
    if total == 0:
        return None
    page = view.read(SERVER, "search_messages", per_page=50, page=rng.randint(1, -(-total // 50)), **filters)
    received = [m for m in page["messages"] if m["sender"]["email"] != owner and m["sender"]["name"]]
    for message in rng.sample(received, min(tries, len(received))):
        if view.read(SERVER, "search_messages", **_lookup_arguments(message))["total"] == 1:
            return message
    return None


class LabelMonthChange(Family):
    """How many messages of a group (a label, or mail sent) fell in one month against another,
    the difference and the percentage change."""

    name = "email.label-month-change"
    servers = (SERVER,)
    kind = "comparison"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        label = rng.choice(sorted(GROUPS))
        group = GROUPS[label]
        months = _full_months(view)
        gap = rng.choice((1, 1, 3, 6, 12))
        if len(months) <= gap:
            return None
        i = rng.randrange(gap, len(months))
        (y0, m0), (y1, m1) = months[i - gap], months[i]
        first, second = month_name(y0, m0), month_name(y1, m1)
        (a0, b0), (a1, b1) = month_window(y0, m0), month_window(y1, m1)
        user = [
            f"How many {group} were there in {first} and how many in {second}? Give me the difference and the percentage change from {first} to {second} (one decimal).",
            f"Compare the number of {group} in {second} with {first}: both counts, {second} minus {first}, and the change in percent, rounded to one decimal.",
            f"I'm looking at mail volume: {group} in {first} versus {second}. What are the two counts, how much did it go up or down, and by what percentage (one decimal place)?",
        ]
        return Draft(
            family=self.name,
            key=f"{label}|{first}|{second}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "search_messages", "arguments": {"label": label, "after": a0[:10], "before": b0[:10], "per_page": 1}},
                    {"id": "c2", "tool": "search_messages", "arguments": {"label": label, "after": a1[:10], "before": b1[:10], "per_page": 1}},
                ],
                "facts": [
                    {"name": f"{group} in {first}", "expr": "{c1.total}", "value": None},
                    {"name": f"{group} in {second}", "expr": "{c2.total}", "value": None},
                    {"name": f"difference ({second} minus {first})", "expr": "{c2.total} - {c1.total}", "value": None},
                    {"name": "percentage change", "expr": "round(100 * ({c2.total} - {c1.total}) / {c1.total}, 1)", "value": None},
                ],
            }],
            checks=["{c1.total} > 0", "{c1.total} != {c2.total}"],
        )


class MonthlySeries(Family):
    """Messages of a group per month over 6 to 12 consecutive months: the total, the busiest
    and quietest month's count, and the monthly average."""

    name = "email.monthly-series"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        label = rng.choice(sorted(GROUPS))
        group = GROUPS[label]
        months = _full_months(view)
        span = rng.randint(6, min(12, len(months)))
        end = rng.randrange(span - 1, len(months))
        chosen = months[end - span + 1:end + 1]
        first, last = month_name(*chosen[0]), month_name(*chosen[-1])
        calls = []
        for i, (year, month) in enumerate(chosen, start=1):
            start, stop = month_window(year, month)
            calls.append({"id": f"c{i}", "tool": "search_messages",
                          "arguments": {"label": label, "after": start[:10], "before": stop[:10], "per_page": 1}})
        totals = [f"{{c{i}.total}}" for i in range(1, span + 1)]
        total = " + ".join(totals)
        user = [
            f"Count the {group} in each month from {first} through {last}. What's the total over those {span} months, the highest and lowest monthly count, and the average per month (one decimal)?",
            f"For every month between {first} and {last} (inclusive), how many {group} were there? I need the {span}-month total, the count in the busiest month, the count in the quietest month and the monthly average rounded to one decimal.",
            f"Give me a month-by-month tally of {group} from {first} to {last}, then sum it up: total, busiest month's count, quietest month's count, and average per month to one decimal place.",
        ]
        return Draft(
            family=self.name,
            key=f"{label}|{first}|{last}",
            turns=[{
                "user": user,
                "calls": calls,
                "facts": [
                    *[{"name": f"{group} in {month_name(*ym)}", "expr": totals[i], "value": None} for i, ym in enumerate(chosen)],
                    {"name": f"total from {first} through {last}", "expr": total, "value": None},
                    {"name": "highest monthly count", "expr": f"max({', '.join(totals)})", "value": None},
                    {"name": "lowest monthly count", "expr": f"min({', '.join(totals)})", "value": None},
                    {"name": "average per month", "expr": f"round(({total}) / {span}, 1)", "value": None},
                ],
            }],
            checks=[f"({total}) > 0"],
        )


class AttachmentDrillDown(Family):
    """The first or last message with an attachment under a label in a month: its subject,
    file and size, then its conversation's length and who started it."""

    name = "email.attachment-drill-down"
    servers = (SERVER,)
    kind = "drill-down"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        months = _full_months(view)
        for _ in range(4):
            label = rng.choice(ATTACHMENT_LABELS)
            year, month = rng.choice(months)
            start, stop = month_window(year, month)
            if view.read(SERVER, "search_messages", label=label, has_attachment=True, after=start[:10],
                         before=stop[:10], per_page=1)["total"] > 0:
                break
        else:
            return None
        when = month_name(year, month)
        order = rng.choice(("asc", "desc"))
        which = "first" if order == "asc" else "last"
        earliest = "earliest" if order == "asc" else "most recent"
        user = [
            f"Of the emails labelled {label} in {when} that have an attachment, which one was the {which}? Tell me its subject, the attachment's file name and size in bytes, how many messages its conversation has now, and who started that conversation.",
            f"Find the {earliest} {label} email from {when} with a file attached. What's the subject, what's the file called and how big is it (bytes)? Also, how many messages are in that thread and who sent the first one?",
            f"In {when}, look at the {label}-labelled messages carrying attachments and take the {which} one by date. I need its subject, the attachment name and size in bytes, the number of messages in its thread, and the name of whoever opened the thread.",
        ]
        search = {"label": label, "has_attachment": True, "after": start[:10], "before": stop[:10],
                  "sort_order": order, "per_page": 2}
        return Draft(
            family=self.name,
            key=f"{label}|{when}|{order}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "search_messages", "arguments": search},
                    {"id": "c2", "tool": "get_message", "bind": {"message_id": "{c1.messages.0.id}"}},
                    {"id": "c3", "tool": "get_thread", "bind": {"thread_id": "{c2.thread_id}"}},
                ],
                "facts": [
                    {"name": "subject", "expr": "{c2.subject}", "value": None},
                    {"name": "attachment file name", "expr": "{c2.attachments.0.filename}", "value": None},
                    {"name": "attachment size in bytes", "expr": "{c2.attachments.0.size_bytes}", "value": None},
                    {"name": "messages in the conversation", "expr": "{c3.message_count}", "value": None},
                    {"name": "who started the conversation", "expr": "{c3.messages.0.sender.name}", "value": None},
                ],
            }],
            checks=["{c1.total} == 1 or {c1.messages.0.date} != {c1.messages.1.date}", "{c2.attachment_count} == 1"],
        )


class CompanyTopContact(Family):
    """Which contact at a customer company exchanged the most mail with the user (argmax over
    the company's contacts), then that person's latest message and its conversation."""

    name = "email.company-top-contact"
    servers = (SERVER,)
    kind = "drill-down"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        for _ in range(3):
            org = rng.choice(_contacts(view, rng, "customer"))["organization_name"]
            listing = view.read(SERVER, "list_contacts", organization=org, per_page=50)
            contacts = listing["contacts"]
            if not contacts or listing["total"] > 50 or any(c["organization_name"] != org for c in contacts):
                continue
            counts = [c["message_count"] for c in contacts]
            top = max(range(len(counts)), key=lambda i: counts[i])
            if counts.count(counts[top]) == 1:
                break
        else:
            return None
        order = rng.choice(("asc", "desc"))
        latest = "latest" if order == "desc" else "first"
        newest = "most recent" if order == "desc" else "very first"
        others = [f"{{c1.contacts.{i}.message_count}}" for i in range(len(contacts)) if i != top]
        best = f"{{c1.contacts.{top}.message_count}}"
        unique = ("{c1.total} == 1" if not others else f"{best} > {others[0]}" if len(others) == 1
                  else f"{best} > max({', '.join(others)})")
        email = f"{{c1.contacts.{top}.email}}"
        user = [
            f"Which of my contacts at {org} have I exchanged the most emails with, and how many? What was the {latest} email that person sent me (subject and date), and how many messages are in that conversation now?",
            f"Among the {org} people in my contacts, who do I email with most? Give me their name and message count, then the subject and date of the {latest} message they sent me and the number of messages in that thread.",
            f"Look up everyone from {org} in my contacts and find the one with the highest message count with me (name and count). Then find the {newest} email from them: subject, date, and how long that conversation is in messages.",
        ]
        return Draft(
            family=self.name,
            key=f"org:{org}|{order}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "list_contacts", "arguments": {"organization": org, "per_page": 50}},
                    {"id": "c2", "tool": "search_messages", "arguments": {"sort_order": order, "per_page": 2},
                     "bind": {"sender": email}},
                    {"id": "c3", "tool": "get_thread", "bind": {"thread_id": "{c2.messages.0.thread_id}"}},
                ],
                "facts": [
                    {"name": "most active contact", "expr": f"{{c1.contacts.{top}.name}}", "value": None},
                    {"name": "messages exchanged with them", "expr": best, "value": None},
                    {"name": f"subject of their {latest} email", "expr": "{c2.messages.0.subject}", "value": None},
                    {"name": f"date of their {latest} email", "expr": "{c2.messages.0.date}", "value": None},
                    {"name": "messages in that conversation", "expr": "{c3.message_count}", "value": None},
                ],
            }],
            checks=[unique, "{c2.total} == 1 or {c2.messages.0.date} != {c2.messages.1.date}"],
        )


ACTIONS: dict[str, tuple[str, ...]] = {
    "star": ("star it", "add a star to it", "mark it with a star"),
    "unread": ("mark it as unread", "set it back to unread", "flag it unread again"),
    "archive": ("archive it", "take it out of my inbox (archive it)", "archive that email"),
    "trash": ("move it to the trash", "trash it", "delete it (to the trash, not permanently)"),
    "label": ("label it {label}", "add the {label} label to it", "put the {label} label on it"),
}
FILING_LABELS = ("Follow-up", "Meetings", "Invoices", "Renewals", "Receipts")


def _filing_call(action: str, label: str | None) -> dict[str, Any]:
    target = {"message_id": "{c1.messages.0.id}"}
    if action == "star":
        return {"id": "c2", "tool": "modify_labels", "arguments": {"add_labels": ["STARRED"]}, "bind": target}
    if action == "label":
        return {"id": "c2", "tool": "modify_labels", "arguments": {"add_labels": [label]}, "bind": target}
    if action == "unread":
        return {"id": "c2", "tool": "mark_read", "arguments": {"read": False}, "bind": target}
    if action == "archive":
        return {"id": "c2", "tool": "archive_messages", "bind": target}
    return {"id": "c2", "tool": "trash_messages", "bind": target}


def _lookup_call(message: dict[str, Any]) -> dict[str, Any]:
    """Find a message by its sender's name, subject and day."""
    return {"id": "c1", "tool": "search_messages", "arguments": _lookup_arguments(message)}


class FileNamedMessage(Family):
    """Star, label, archive, trash or mark unread a message the user names by sender, subject
    and day, found by a search first."""

    name = "email.file-named-message"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        message = _incoming_message(view, rng)
        if message is None:
            return None
        labels = message["labels"]
        options = [a for a, ok in (
            ("star", not message["is_starred"]), ("unread", message["is_read"]),
            ("archive", "INBOX" in labels), ("trash", True), ("label", True),
        ) if ok]
        action = rng.choice(options)
        label = rng.choice([name for name in FILING_LABELS if name not in labels]) if action == "label" else None
        doing = rng.choice(ACTIONS[action]).format(label=label)
        who, subject, day = message["sender"]["name"], message["subject"], _spoken(_day(message["date"]))
        user = [
            f"{who} emailed me on {day} with the subject \"{subject}\". Please {doing}.",
            f"Find the email \"{subject}\" that {who} sent me on {day} and {doing}.",
            f"There's a message from {who} dated {day}, subject \"{subject}\" - can you {doing}?",
        ]
        return Draft(
            family=self.name,
            key=f"message:{message['id']}",
            turns=[{"user": user, "calls": [_lookup_call(message), _filing_call(action, label)], "facts": []}],
            writes=True,
            checks=["{c1.total} == 1"],
        )


class ForwardNamedMessage(Family):
    """Forward a message the user names (sender, subject, day) to a colleague named by name,
    with a note the user dictates."""

    name = "email.forward-named-message"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        message = _incoming_message(view, rng, has_attachment=rng.random() < 0.5)
        if message is None:
            return None
        colleague = _named_contact(view, rng, "colleague")
        if colleague is None or colleague["email"] == message["sender"]["email"]:
            return None
        note = rng.choice(FORWARD_NOTES)
        who, subject, day = message["sender"]["name"], message["subject"], _spoken(_day(message["date"]))
        mate = colleague["name"]
        user = [
            f"Please forward the email \"{subject}\" that {who} sent me on {day} to my colleague {mate}, with the note: {note}",
            f"{who} wrote to me on {day} (subject \"{subject}\"). Forward it to {mate} from our team and add this note on top: \"{note}\"",
            f"Can you send {mate} (a colleague) the message from {who} dated {day} with the subject \"{subject}\"? Forward it with the note \"{note}\"",
        ]
        return Draft(
            family=self.name,
            key=f"message:{message['id']}",
            turns=[{
                "user": user,
                "calls": [
                    _lookup_call(message),
                    {"id": "c2", "tool": "list_contacts", "arguments": {"query": mate, "kind": "colleague"}},
                    {"id": "c3", "tool": "forward_message", "arguments": {"note": note},
                     "bind": {"message_id": "{c1.messages.0.id}", "to": "[{c2.contacts.0.email}]"}},
                ],
                "facts": [],
            }],
            writes=True,
            checks=["{c1.total} == 1", "{c2.total} == 1"],
        )


class ConditionalFollowUp(Family):
    """Count a contact's emails since a date; if over a threshold, flag their latest one
    (Follow-up label or star), otherwise just report the count."""

    name = "email.conditional-follow-up"
    servers = (SERVER,)
    kind = "conditional-write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        year, month = rng.choice(_full_months(view)[-9:])
        since = date(year, month, 1)
        for _ in range(3):
            message = _incoming_message(view, rng, after=since.isoformat())
            if message is None or "Newsletters" in message["labels"]:
                continue
            person = view.read(SERVER, "lookup_contact", email=message["sender"]["email"])
            if person["kind"] != "external" and person["name"] and \
                    view.read(SERVER, "list_contacts", query=person["name"], per_page=1)["total"] == 1:
                break
        else:
            return None
        found = view.read(SERVER, "search_messages", sender=person["email"], after=since.isoformat(), per_page=1)
        count = found["total"]
        if count >= 2 and rng.random() < 0.5:
            threshold = rng.randint(max(1, count - 3), count - 1)
        else:
            threshold = rng.randint(max(1, count), max(1, count) + 2)
        flag = rng.choice(("Follow-up", "STARRED"))
        holds = count > threshold
        if holds and flag in found["messages"][0]["labels"]:
            return None
        name = person["name"]
        who = f"my colleague {name}" if person["kind"] == "colleague" else f"{name} from {person['organization_name']}"
        doing = "add the Follow-up label to" if flag == "Follow-up" else "star"
        user = [
            f"How many emails has {who} sent me since {_spoken(since)}? If it's more than {threshold}, {doing} the most recent one; if not, just tell me the number.",
            f"Check how many messages {who} has sent me since {_spoken(since)}. More than {threshold}? Then {doing} their latest email. Otherwise leave everything as is and give me the count.",
            f"Count the emails from {who} since {_spoken(since)}. Only if there are more than {threshold}, {doing} the newest of them; either way, tell me how many there were.",
        ]
        calls: list[dict[str, Any]] = [
            {"id": "c1", "tool": "list_contacts", "arguments": {"query": name}},
            {"id": "c2", "tool": "search_messages", "arguments": {"after": since.isoformat(), "per_page": 1},
             "bind": {"sender": "{c1.contacts.0.email}"}},
        ]
        if holds:
            calls.append({"id": "c3", "tool": "modify_labels", "arguments": {"add_labels": [flag]},
                          "bind": {"message_id": "{c2.messages.0.id}"}})
        return Draft(
            family=self.name,
            key=f"{person['email']}|{since}",
            turns=[{
                "user": user,
                "calls": calls,
                "facts": [{"name": f"emails from {name} since {_spoken(since)}", "expr": "{c2.total}", "value": None}],
            }],
            writes=holds,
            checks=["{c1.total} == 1"],
        )


class LatestThenReply(Family):
    """Two turns: the latest email from a person (subject, date), then a reply to "that one"
    with a body the user dictates, to the sender or to everyone on it."""

    name = "email.latest-then-reply"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        kind = rng.choice(("customer", "customer", "colleague"))
        for _ in range(3):
            person = _named_contact(view, rng, kind)
            if person is not None and view.read(SERVER, "search_messages", sender=person["email"], per_page=1)["total"]:
                break
        else:
            return None
        name, org = person["name"], person["organization_name"]
        who = f"{name} from {org}" if kind == "customer" else f"my colleague {name}"
        body = rng.choice(REPLY_BODIES)
        reply_all = rng.random() < 0.3
        first = [
            f"What's the most recent email {who} sent me? Give me its subject and when it arrived.",
            f"When did {who} last email me, and what was the subject?",
            f"Find the latest message from {who}: subject and date, please.",
        ]
        if reply_all:
            second = [
                f"Reply to everyone on that one with: \"{body}\"",
                f"Please reply-all to that email saying \"{body}\"",
                f"Send a reply to all recipients of that message: \"{body}\"",
            ]
        else:
            second = [
                f"Reply to that one with: \"{body}\"",
                f"Please answer that email (just to {name}) saying \"{body}\"",
                f"Send {name} a reply to that message: \"{body}\"",
            ]
        return Draft(
            family=self.name,
            key=f"contact:{person['email']}",
            turns=[
                {
                    "user": first,
                    "calls": [
                        {"id": "c1", "tool": "list_contacts", "arguments": {"query": name}},
                        {"id": "c2", "tool": "search_messages", "arguments": {"per_page": 2},
                         "bind": {"sender": "{c1.contacts.0.email}"}},
                    ],
                    "facts": [
                        {"name": "subject of the latest email", "expr": "{c2.messages.0.subject}", "value": None},
                        {"name": "when it arrived", "expr": "{c2.messages.0.date}", "value": None},
                    ],
                },
                {
                    "user": second,
                    "calls": [
                        {"id": "c3", "tool": "reply_to_message", "arguments": {"body": body, "reply_all": reply_all},
                         "bind": {"message_id": "{c2.messages.0.id}"}},
                    ],
                    "facts": [],
                },
            ],
            writes=True,
            checks=["{c1.total} == 1", "{c2.total} == 1 or {c2.messages.0.date} != {c2.messages.1.date}"],
        )


class ThreadThenFile(Family):
    """Two turns: a conversation the user names (subject, other party, start day) - its length
    and who wrote last - then file "that whole conversation" under a label, and maybe archive it."""

    name = "email.thread-then-file"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        owner = _owner_email(view)
        total = view.read(SERVER, "search_messages", per_page=1)["total"]
        page = view.read(SERVER, "search_messages", per_page=50, page=rng.randint(1, -(-total // 50)))["messages"]
        for message in rng.sample(page, min(4, len(page))):
            if "Newsletters" in message["labels"]:
                continue
            thread = view.read(SERVER, "get_thread", thread_id=message["thread_id"])
            opener = thread["messages"][0]
            if any(m["is_draft"] or "TRASH" in m["labels"] for m in thread["messages"]):
                continue
            other = opener["to"][0] if opener["sender"]["email"] == owner else opener["sender"]
            if not other["name"] or other["email"] == owner:
                continue
            day = _day(opener["date"])
            search = {"subject": opener["subject"], "after": day.isoformat(),
                      "before": (day + timedelta(days=1)).isoformat(), "sort_order": "asc", "per_page": 1}
            found = view.read(SERVER, "search_messages", **{**search, "per_page": 100})["messages"]
            if found and found[0]["id"] == opener["id"] and all(m["thread_id"] == thread["id"] for m in found):
                break
        else:
            return None
        labels = [name for name in FILING_LABELS if name not in thread["labels"]]
        label = rng.choice(labels)
        archive = "INBOX" in thread["labels"] and rng.random() < 0.5
        subject, who, when = opener["subject"], other["name"], _spoken(day)
        first = [
            f"I had an email conversation with {who} called \"{subject}\" that started on {when}. How many messages are in it now, and who sent the last one?",
            f"Find the thread \"{subject}\" with {who}, started {when}: how many messages does it have and who wrote the most recent one?",
            f"There's a conversation titled \"{subject}\" between me and {who} that began on {when}. Tell me how long it is (number of messages) and who had the last word.",
        ]
        also = " and archive it" if archive else ""
        second = [
            f"Thanks. Put that whole conversation under the {label} label{also}.",
            f"OK, please add the {label} label to every message in that thread{also}.",
            f"Label that entire thread {label}{also}, please.",
        ]
        calls: list[dict[str, Any]] = [
            {"id": "c3", "tool": "modify_labels", "arguments": {"add_labels": [label]}, "bind": {"thread_id": "{c2.id}"}},
        ]
        if archive:
            calls.append({"id": "c4", "tool": "archive_messages", "bind": {"thread_id": "{c2.id}"}})
        return Draft(
            family=self.name,
            key=f"thread:{thread['id']}",
            turns=[
                {
                    "user": first,
                    "calls": [
                        {"id": "c1", "tool": "search_messages", "arguments": search},
                        {"id": "c2", "tool": "get_thread", "bind": {"thread_id": "{c1.messages.0.thread_id}"}},
                    ],
                    "facts": [
                        {"name": "messages in the conversation", "expr": "{c2.message_count}", "value": None},
                        {"name": "sender of the last message", "expr": "{c2.messages.-1.sender.name}", "value": None},
                    ],
                },
                {"user": second, "calls": calls, "facts": []},
            ],
            writes=True,
        )


class MailboxOverview(Family):
    """Who the mailbox belongs to, how many unread messages wait in the inbox, and how many
    messages carry a label (total and unread)."""

    name = "email.mailbox-overview"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        labels = view.read(SERVER, "list_labels")["labels"]
        index = rng.choice([i for i, label in enumerate(labels) if label["type"] == "user" and label["messages_total"]])
        label = labels[index]["name"]
        user = [
            f"Which address am I signed in with, how many unread emails are in my inbox, and how many messages carry the {label} label (and how many of those are unread)?",
            f"Quick mailbox check: my email address, the number of unread messages in the inbox, and the total and unread counts under {label}.",
            f"Tell me the account I'm using, my inbox's unread count, and for the label {label}: how many messages, how many unread?",
        ]
        return Draft(family=self.name, key=f"label:{label}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_profile", "arguments": {}},
            {"id": "c2", "tool": "list_labels", "arguments": {}},
        ], "facts": [
            {"name": "my address", "expr": "{c1.email}", "value": None},
            {"name": "unread in the inbox", "expr": "{c1.inbox_unread}", "value": None},
            {"name": f"messages labelled {label}", "expr": f"{{c2.labels.{index}.messages_total}}", "value": None},
            {"name": f"unread messages labelled {label}", "expr": f"{{c2.labels.{index}.messages_unread}}", "value": None},
        ]}], checks=[f"{{c2.labels.{index}.name}} == {label!r}"])


NEW_LABELS = ("Projects/Harbor", "Legal", "Travel", "Partners", "Board", "Hiring", "Projects/Phoenix")
RENAMES = {"Follow-up": "To do", "Receipts": "Expenses", "Newsletters": "Reading", "Internal": "Team",
           "Meetings": "Calendar", "Projects/Atlas": "Projects/Atlas (done)", "Projects/Migration": "Archive/Migration",
           "Renewals": "Contracts/Renewals", "Invoices": "Billing"}
"""User label -> the new name a user gives it."""


class LabelCleanup(Family):
    """Two turns: the mailbox's size and two user labels' message counts; then rename the one,
    delete the other (its messages stay) and create a new label."""

    name = "email.label-cleanup"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        labels = view.read(SERVER, "list_labels")["labels"]
        taken = {label["name"].lower() for label in labels}
        renamable = [i for i, label in enumerate(labels) if label["type"] == "user" and label["name"] in RENAMES
                     and RENAMES[label["name"]].lower() not in taken]
        users = [i for i, label in enumerate(labels) if label["type"] == "user"]
        fresh = [name for name in NEW_LABELS if name.lower() not in taken]
        if not renamable or len(users) < 2 or not fresh:
            return None
        kept = rng.choice(renamable)
        dropped = rng.choice([i for i in users if i != kept])
        old, gone, created = labels[kept]["name"], labels[dropped]["name"], rng.choice(fresh)
        new = RENAMES[old]
        first = [
            f"How many messages are in my mailbox altogether, and how many carry the {old} label and the {gone} label?",
            f"Give me the total number of messages in my mailbox and the message counts of my labels {old} and {gone}.",
            f"I'm tidying my labels. First: total messages in the mailbox, and how many are under {old} and under {gone}?",
        ]
        second = [
            f"OK. Rename {old} to \"{new}\", delete the {gone} label (keep the emails themselves), and create a new label \"{created}\".",
            f"Please call the {old} label \"{new}\" from now on, remove the label {gone} but not its messages, and add a label named \"{created}\".",
            f"Go ahead: {old} becomes \"{new}\", {gone} goes away (messages stay), and I want a new \"{created}\" label.",
        ]
        return Draft(
            family=self.name,
            key=f"{old}|{gone}|{created}",
            writes=True,
            turns=[
                {"user": first, "calls": [
                    {"id": "c1", "tool": "get_profile", "arguments": {}},
                    {"id": "c2", "tool": "list_labels", "arguments": {}},
                ], "facts": [
                    {"name": "messages in the mailbox", "expr": "{c1.messages_total}", "value": None},
                    {"name": f"messages labelled {old}", "expr": f"{{c2.labels.{kept}.messages_total}}", "value": None},
                    {"name": f"messages labelled {gone}", "expr": f"{{c2.labels.{dropped}.messages_total}}", "value": None},
                ]},
                {"user": second, "calls": [
                    {"id": "c3", "tool": "rename_label", "arguments": {"name": new}, "bind": {"label_id": f"{{c2.labels.{kept}.id}}"}},
                    {"id": "c4", "tool": "delete_label", "bind": {"label_id": f"{{c2.labels.{dropped}.id}}"}},
                    {"id": "c5", "tool": "create_label", "arguments": {"name": created}},
                ], "facts": []},
            ],
            checks=[f"{{c2.labels.{kept}.name}} == {old!r}", f"{{c2.labels.{dropped}.name}} == {gone!r}"],
        )


NEW_SUBJECTS = ("Catch-up next week", "Quick question about the proposal", "Follow-up on our call", "Agenda for Thursday",
                "Updated timeline")
NEW_BODIES = ("Hi, do you have 30 minutes next week to go over the open points?",
              "Hello, could you send me the latest version when you get a chance? Thanks.",
              "Thanks for the call today. I'll share the notes by tomorrow.",
              "Hi, here is the plan we discussed; let me know if anything is missing.")


def _contact_named(person: dict[str, Any], kind: str) -> str:
    return f"{person['name']} from {person['organization_name']}" if kind == "customer" else f"my colleague {person['name']}"


class ContactThenEmail(Family):
    """Two turns: how much mail was exchanged with a contact and when the latest was; then a
    new email to them with a subject and text the user dictates."""

    name = "email.contact-then-email"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        kind = rng.choice(("customer", "customer", "colleague"))
        person = _named_contact(view, rng, kind)
        if person is None:
            return None
        subject, body = rng.choice(NEW_SUBJECTS), rng.choice(NEW_BODIES)
        who = _contact_named(person, kind)
        first = [
            f"How many emails have {who} and I exchanged, and when was the latest one?",
            f"When did I last exchange mail with {who}, and how many messages have gone between us?",
            f"Check my history with {who}: number of emails between us and the date of the most recent.",
        ]
        second = [
            f"Send them a new email with the subject \"{subject}\" saying: \"{body}\"",
            f"Please write to them. Subject: \"{subject}\". Text: \"{body}\"",
            f"Email them now - subject \"{subject}\", body \"{body}\"",
        ]
        return Draft(family=self.name, key=f"contact:{person['email']}|{subject}", writes=True, checks=["{c1.total} == 1"],
                     turns=[
                         {"user": first, "calls": [
                             {"id": "c1", "tool": "list_contacts", "arguments": {"query": person["name"]}},
                         ], "facts": [
                             {"name": "emails exchanged", "expr": "{c1.contacts.0.message_count}", "value": None},
                             {"name": "latest email", "expr": "{c1.contacts.0.last_message_at}", "value": None},
                         ]},
                         {"user": second, "calls": [
                             {"id": "c2", "tool": "send_message", "arguments": {"subject": subject, "body": body},
                              "bind": {"to": "[{c1.contacts.0.email}]"}},
                         ], "facts": []},
                     ])


class DraftThenSend(Family):
    """Two turns: save a draft to a contact, then change its text and send it."""

    name = "email.draft-then-send"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        kind = rng.choice(("customer", "colleague"))
        person = _named_contact(view, rng, kind)
        if person is None:
            return None
        subject = rng.choice(NEW_SUBJECTS)
        body, final = rng.sample(NEW_BODIES, 2)
        who = _contact_named(person, kind)
        first = [
            f"Draft an email to {who} with the subject \"{subject}\" and the text \"{body}\", but don't send it yet.",
            f"Prepare (don't send) a message to {who}: subject \"{subject}\", body \"{body}\".",
            f"Save a draft for {who}, subject \"{subject}\", saying \"{body}\". I'll check it before it goes out.",
        ]
        second = [
            f"Change the text of that draft to \"{final}\" and send it.",
            f"Actually, replace the body with \"{final}\", then send the draft.",
            f"Update that draft so it reads \"{final}\" and send it off.",
        ]
        return Draft(family=self.name, key=f"contact:{person['email']}|{subject}", writes=True, checks=["{c1.total} == 1"],
                     turns=[
                         {"user": first, "calls": [
                             {"id": "c1", "tool": "list_contacts", "arguments": {"query": person["name"]}},
                             {"id": "c2", "tool": "create_draft", "arguments": {"subject": subject, "body": body},
                              "bind": {"to": "[{c1.contacts.0.email}]"}},
                         ], "facts": []},
                         {"user": second, "calls": [
                             {"id": "c3", "tool": "update_draft", "arguments": {"body": final}, "bind": {"draft_id": "{c2.id}"}},
                             {"id": "c4", "tool": "send_draft", "bind": {"draft_id": "{c2.id}"}},
                         ], "facts": []},
                     ])


def _single(view: WorldView, search: dict[str, Any]) -> bool:
    """Whether a search finds exactly one message."""
    return bool(view.read(SERVER, "search_messages", **search)["total"] == 1)


class DraftsReview(Family):
    """Two turns: how many unsent drafts there are and the newest one's subject; then send one
    draft and discard another, both named by subject."""

    name = "email.drafts-review"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        drafts = [d for d in view.read(SERVER, "search_messages", label="DRAFT", per_page=100)["messages"] if d["subject"]]
        ready = [d for d in drafts if d["to"]]
        if not ready or len(drafts) < 2:
            return None
        sent = rng.choice(ready)
        dropped = rng.choice([d for d in drafts if d["id"] != sent["id"]])
        send, drop = ({"label": "DRAFT", "subject": d["subject"], "per_page": 2} for d in (sent, dropped))
        if not (_single(view, send) and _single(view, drop)):
            return None
        first = [
            "How many unsent drafts do I have, and what's the subject of the most recent one?",
            "Do I have drafts lying around? Give me the count and the newest one's subject.",
            "Count my drafts and tell me the subject of the latest.",
        ]
        second = [
            f"Send the draft \"{sent['subject']}\" as it is, and throw away the draft \"{dropped['subject']}\".",
            f"Please send \"{sent['subject']}\" unchanged and discard \"{dropped['subject']}\".",
            f"\"{sent['subject']}\" can go out as written; delete the \"{dropped['subject']}\" draft.",
        ]
        return Draft(
            family=self.name,
            key=f"send:{sent['id']}|drop:{dropped['id']}",
            writes=True,
            turns=[
                {"user": first, "calls": [
                    {"id": "c1", "tool": "search_messages", "arguments": {"label": "DRAFT", "per_page": 2}},
                ], "facts": [
                    {"name": "drafts", "expr": "{c1.total}", "value": None},
                    {"name": "newest draft's subject", "expr": "{c1.messages.0.subject}", "value": None},
                ]},
                {"user": second, "calls": [
                    {"id": "c2", "tool": "search_messages", "arguments": send},
                    {"id": "c3", "tool": "send_draft", "bind": {"draft_id": "{c2.messages.0.id}"}},
                    {"id": "c4", "tool": "search_messages", "arguments": drop},
                    {"id": "c5", "tool": "delete_draft", "bind": {"draft_id": "{c4.messages.0.id}"}},
                ], "facts": []},
            ],
            checks=["{c1.total} == 1 or {c1.messages.0.date} != {c1.messages.1.date}", "{c1.messages.0.subject} != ''"],
        )


class TrashReview(Family):
    """Two turns: how many messages are in the trash and who sent the newest; then restore one
    trashed message and delete another for good, both named by sender, subject and day."""

    name = "email.trash-review"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        trashed = [m for m in view.read(SERVER, "search_messages", label="TRASH", per_page=100)["messages"]
                   if m["sender"]["name"]]
        named = [m for m in trashed if _single(view, {**_lookup_arguments(m), "label": "TRASH"})]
        if len(named) < 2:
            return None
        restored, purged = rng.sample(named, 2)
        first = [
            "How many emails are in my trash, and who sent the most recent one?",
            "What's in the trash? Give me the number of messages and the sender of the newest.",
            "Count the messages in my trash and tell me who sent the latest of them.",
        ]

        owner = _owner_email(view)

        def named_as(m: dict[str, Any]) -> str:
            whose = "my" if m["sender"]["email"] == owner else f"{m['sender']['name']}'s"
            return f"{whose} \"{m['subject']}\" from {_spoken(_day(m['date']))}"

        second = [
            f"Restore {named_as(restored)}; it was trashed by mistake. And delete {named_as(purged)} permanently.",
            f"Please take {named_as(restored)} back out of the trash, and erase {named_as(purged)} for good.",
            f"Two things: un-trash {named_as(restored)}, and permanently delete {named_as(purged)}.",
        ]
        return Draft(
            family=self.name,
            key=f"restore:{restored['id']}|purge:{purged['id']}",
            writes=True,
            turns=[
                {"user": first, "calls": [
                    {"id": "c1", "tool": "search_messages", "arguments": {"label": "TRASH", "per_page": 2}},
                ], "facts": [
                    {"name": "messages in the trash", "expr": "{c1.total}", "value": None},
                    {"name": "sender of the newest", "expr": "{c1.messages.0.sender.name}", "value": None},
                ]},
                {"user": second, "calls": [
                    {"id": "c2", "tool": "search_messages", "arguments": {**_lookup_arguments(restored), "label": "TRASH"}},
                    {"id": "c3", "tool": "untrash_messages", "bind": {"message_id": "{c2.messages.0.id}"}},
                    {"id": "c4", "tool": "search_messages", "arguments": {**_lookup_arguments(purged), "label": "TRASH"}},
                    {"id": "c5", "tool": "delete_permanently", "bind": {"message_id": "{c4.messages.0.id}"}},
                ], "facts": []},
            ],
            checks=["{c1.total} == 1 or {c1.messages.0.date} != {c1.messages.1.date}"],
        )


class PurgeOutsideTrash(Family):
    """Asked to delete for good a message that is not in the trash: permanent deletion only
    empties the trash, so the right outcome is a refusal, no change, and the message's details."""

    name = "email.purge-outside-trash"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        message = _incoming_message(view, rng)
        if message is None:
            return None
        who, subject, day = message["sender"]["name"], message["subject"], _spoken(_day(message["date"]))
        user = [
            f"Permanently delete the email \"{subject}\" that {who} sent me on {day}, skipping the trash. If that isn't possible, tell me how many messages its conversation has.",
            f"Erase {who}'s message \"{subject}\" from {day} for good right away (not via the trash). If you can't, just tell me how long its thread is.",
        ]
        return Draft(family=self.name, key=f"message:{message['id']}", checks=["{c1.total} == 1"], turns=[{"user": user, "calls": [
            _lookup_call(message),
            {"id": "c2", "tool": "get_thread", "bind": {"thread_id": "{c1.messages.0.thread_id}"}},
        ], "facts": [{"name": "messages in the conversation", "expr": "{c2.message_count}", "value": None}]}])


class ReadThenMarkRead(Family):
    """Two turns: an unread email the user names (sender, subject, day) - what it says, its
    attachments and its conversation's length; then mark that whole conversation read, and
    archive it when it is in the inbox and the user asks."""

    name = "email.read-then-mark-read"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        message = _incoming_message(view, rng, is_unread=True)
        if message is None:
            return None
        who, subject, day = message["sender"]["name"], message["subject"], _spoken(_day(message["date"]))
        archive = "INBOX" in message["labels"] and rng.random() < 0.5
        first = [
            f"I haven't opened the email \"{subject}\" that {who} sent me on {day}. How many files are attached to it, and how many messages are in its conversation?",
            f"{who}'s message \"{subject}\" from {day} is still unread. Does it carry attachments (how many), and how long is that thread?",
            f"Open the unread \"{subject}\" email from {who} ({day}) for me: number of attachments and number of messages in the conversation.",
        ]
        also = " Then archive it." if archive else ""
        second = [
            f"Thanks. Mark that whole conversation as read. How many messages did that change?{also}",
            f"Please mark every message in that thread read and tell me how many were still unread.{also}",
            f"Set that conversation to read, all of it, and say how many messages it changed.{also}",
        ]
        calls: list[dict[str, Any]] = [
            {"id": "c4", "tool": "mark_read", "arguments": {"read": True}, "bind": {"thread_id": "{c3.id}"}},
        ]
        if archive:
            calls.append({"id": "c5", "tool": "archive_messages", "bind": {"thread_id": "{c3.id}"}})
        return Draft(
            family=self.name,
            key=f"thread:{message['thread_id']}|{archive}",
            writes=True,
            turns=[
                {"user": first, "calls": [
                    _lookup_call(message),
                    {"id": "c2", "tool": "get_message", "bind": {"message_id": "{c1.messages.0.id}"}},
                    {"id": "c3", "tool": "get_thread", "bind": {"thread_id": "{c2.thread_id}"}},
                ], "facts": [
                    {"name": "attachments", "expr": "{c2.attachment_count}", "value": None},
                    {"name": "messages in the conversation", "expr": "{c3.message_count}", "value": None},
                ]},
                {"user": second, "calls": calls, "facts": [
                    {"name": "messages marked read", "expr": "{c4.changed}", "value": None},
                ]},
            ],
            checks=["{c1.total} == 1"],
        )

class ContactByAddress(Family):
    """A contact known only by email address: who they are, their company, how many messages
    were exchanged and when the latest was."""

    name = "email.contact-by-address"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        people = [c for c in _contacts(view, rng, rng.choice(("customer", "colleague"))) if c["name"] and c["message_count"]]
        if not people:
            return None
        email = rng.choice(people)["email"]
        user = [
            f"Who is {email}? Give me their name and company, how many emails we've exchanged, and when the latest one was.",
            f"Look up {email} in my contacts: name, organisation, number of messages between us and the date of the most recent.",
            f"I got a note from {email}. Who's that (name, company), how much have we emailed (message count) and when did we last exchange mail?",
        ]
        return Draft(family=self.name, key=f"contact:{email}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "lookup_contact", "arguments": {"email": email}},
        ], "facts": [
            {"name": "name", "expr": "{c1.name}", "value": None},
            {"name": "company", "expr": "{c1.organization_name}", "value": None},
            {"name": "messages exchanged", "expr": "{c1.message_count}", "value": None},
            {"name": "latest message", "expr": "{c1.last_message_at}", "value": None},
        ]}])


EMAIL_FAMILIES = (
    LabelMonthChange(),
    MonthlySeries(),
    AttachmentDrillDown(),
    CompanyTopContact(),
    FileNamedMessage(),
    ForwardNamedMessage(),
    ConditionalFollowUp(),
    LatestThenReply(),
    ThreadThenFile(),
    MailboxOverview(),
    ContactByAddress(),
    PurgeOutsideTrash(),
    LabelCleanup(),
    ContactThenEmail(),
    DraftThenSend(),
    DraftsReview(),
    TrashReview(),
    ReadThenMarkRead(),
)
