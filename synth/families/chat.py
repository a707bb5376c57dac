"""Chat task families: who made a channel and who is in it, threads, mentions, busy days and
account chatter; posting, replying, reacting, pinning, editing and deleting; channels made,
joined, left, archived and brought back; DMs and status; refusals the workspace's rules call
for; two-turn follow-ups; the CRM account behind a shared customer channel and the help-desk
tickets of a colleague found by email.

A user names a channel by name (#sales), a person by name or email, and a message by its
channel, day, author and a few of its words, never by an id.
"""

from __future__ import annotations

import random
import re
from datetime import date, timedelta
from typing import Any

from mcpgym.synth.family import Draft, Family, WorldView, month_name, month_window, previous_month

SERVER = "chat"
ME = 1
HISTORY_MONTHS = 14
"""Whole months back from now that the seeded messages cover (they start 450 days ago)."""

Row = dict[str, Any]
Call = dict[str, Any]

ANNOUNCEMENTS = (
    "Reminder: pipeline review moves to Thursday at 15:00 UTC.",
    "The Q4 pricing sheet is updated in the shared drive.",
    "I am out on Friday; ping me by email for anything urgent.",
    "Great work on the renewals this month, everyone!",
    "Please log your customer calls in the CRM before Monday.",
    "New case study draft is ready for review.",
    "Heads up: the demo environment is down for maintenance tonight.",
)
REPLIES = (
    "Thanks, I will follow up with them today.",
    "I can take this one.",
    "Let's discuss it at the next sync.",
    "Good point, adding it to the agenda.",
    "Done, the customer has been informed.",
)
CORRECTIONS = (
    "Correction: the call is on Thursday, not Wednesday.",
    "Update: the quote has been sent.",
    "Edit: the review moved to next week.",
)
EMOJI = ("eyes", "white_check_mark", "tada", "pray", "rocket", "raised_hands")
STATUSES = (("In customer workshops", ":handshake:"), ("On vacation", ":palm_tree:"), ("Working remotely", ":house:"),
            ("At the offsite", ":tent:"), ("Focus time, slow to answer", ":headphones:"))
PROJECTS = ("nimbus", "aurora", "atlas-2", "horizon", "polaris", "zephyr", "orbit", "summit")
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]")


# ---------------------------------------------------------------- sampling helpers


def _channels(view: WorldView, **filters: Any) -> list[Row]:
    """Named channels user 1 can see (active and archived unless `state` says)."""
    return view.read(SERVER, "list_channels", **{"state": "all", "per_page": 100, **filters})["channels"]


def _detail(view: WorldView, channel: Row) -> Row:
    return view.read(SERVER, "get_channel", channel_id=channel["id"])


def _writable(view: WorldView) -> list[Row]:
    """Active channels user 1 is a member of."""
    return _channels(view, state="active", member_only=True)


def _messages(view: WorldView, rng: random.Random, channel: Row, **filters: Any) -> list[Row]:
    """One random page of a channel's messages (top-level unless `include_replies`)."""
    args = {"channel_id": channel["id"], **filters}
    total = view.read(SERVER, "get_channel_history", **args, per_page=1)["total"]
    if not total:
        return []
    page = rng.randint(1, -(-total // 50))
    return [m for m in view.read(SERVER, "get_channel_history", **args, per_page=50, page=page)["messages"]
            if not m["is_deleted"]]


def _phrase(text: str, rng: random.Random) -> str | None:
    """Two to four consecutive words of a message, exactly as it writes them (no punctuation
    inside), at least ten characters long: what a user quotes to name it."""
    runs: list[list[str]] = []
    current: list[str] = []
    for token in text.split():
        word = token.rstrip(".,!?:;")
        if WORD.fullmatch(word):
            current.append(word)
            if word != token:  # punctuation ends the run after this word
                runs.append(current)
                current = []
        else:
            runs.append(current)
            current = []
    runs.append(current)
    options = [run[i:i + size] for run in runs for size in (2, 3, 4) for i in range(len(run) - size + 1)]
    options = [words for words in options if len(" ".join(words)) >= 10]
    return " ".join(rng.choice(options)) if options else None


def _day(message: Row) -> tuple[str, str, str]:
    """The UTC day of a message, and the window [day, next day) as ISO times."""
    day = date.fromisoformat(message["created_at"][:10])
    return str(day), f"{day}T00:00:00Z", f"{day + timedelta(days=1)}T00:00:00Z"


def _find(call_id: str, channel: Row) -> Call:
    return {"id": call_id, "tool": "find_channel", "arguments": {"name": channel["name"]}}


def _search(call_id: str, channel_call: str, message: Row, phrase: str, **extra: Any) -> Call:
    """The search that finds `message` from its channel, its day and the quoted words."""
    _, start, end = _day(message)
    return {"id": call_id, "tool": "search_messages", "arguments": {"query": phrase, "after": start, "before": end, **extra},
            "bind": {"channel_id": f"{{{channel_call}.id}}"}}


def _described(message: Row, phrase: str) -> str:
    """How a user names a message: its author (or 'my'), channel, day and words."""
    day, _, _ = _day(message)
    who = "my" if message["user_id"] == ME else f"{message['user_name']}'s"
    return f"{who} message in #{message['channel_name']} on {day} (UTC) that says \"{phrase}\""


def _pick(view: WorldView, rng: random.Random, channels: list[Row], keep: Any = None,
          **filters: Any) -> tuple[Row, Row, str] | None:
    """A channel, a message of it that `keep` accepts, and words to quote from it."""
    if not channels:
        return None
    channel = rng.choice(channels)
    candidates = [m for m in _messages(view, rng, channel, **filters) if keep is None or keep(m)]
    if not candidates:
        return None
    message = rng.choice(candidates)
    phrase = _phrase(message["text"], rng)
    return None if phrase is None else (channel, message, phrase)


def _user_named(call_id: str, name: str) -> Call:
    return {"id": call_id, "tool": "list_users", "arguments": {"query": name, "per_page": 2}}


def _employees(view: WorldView) -> list[Row]:
    """Northwind's people other than user 1."""
    return [u for u in view.read(SERVER, "list_users", per_page=100)["users"] if u["role"] != "guest" and u["id"] != ME]


def _members(view: WorldView, channel: Row) -> set[int]:
    return {m["user_id"] for m in view.read(SERVER, "list_channel_members", channel_id=channel["id"], per_page=100)["members"]}


def _months(view: WorldView) -> list[tuple[int, int]]:
    return [previous_month(view.now.year, view.now.month, back) for back in range(HISTORY_MONTHS, 0, -1)]


# ---------------------------------------------------------------- lookups and reports


class ChannelCreator(Family):
    """Who created a channel and what their job is."""

    name = "chat.channel-creator"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        channel = rng.choice(_channels(view))
        name = channel["name"]
        user = [
            f"Who created the #{name} channel, and what is their job title?",
            f"I'd like to know who set up #{name} in Slack. Name and title, please.",
            f"Find out who created #{name} and what that person does (their title).",
        ]
        return Draft(family=self.name, key=f"channel:{name}", turns=[{"user": user, "calls": [
            _find("c1", channel),
            {"id": "c2", "tool": "get_user", "bind": {"user_id": "{c1.creator_id}"}},
        ], "facts": [
            {"name": "creator", "expr": "{c1.creator_name}", "value": None},
            {"name": "creator's title", "expr": "{c2.title}", "value": None},
        ]}])


def members_turn(channel: Row, user: list[str]) -> dict[str, Any]:
    """A turn that counts a channel's members and names the one who joined last (c1, c2)."""
    return {"user": user, "calls": [
        _find("c1", channel),
        {"id": "c2", "tool": "list_channel_members", "arguments": {"sort_by": "joined_at", "sort_order": "desc", "per_page": 2},
         "bind": {"channel_id": "{c1.id}"}},
    ], "facts": [
        {"name": "members", "expr": "{c2.total}", "value": None},
        {"name": "newest member", "expr": "{c2.members.0.name}", "value": None},
    ]}


MEMBERS_CHECK = "{c2.total} == 1 or {c2.members.0.joined_at} != {c2.members.1.joined_at}"


class ChannelMembers(Family):
    """How many people are in a channel and who joined it last."""

    name = "chat.channel-members"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        channel = rng.choice(_channels(view))
        name = channel["name"]
        user = [
            f"How many members does #{name} have, and who joined it most recently?",
            f"Who is the newest member of #{name}, and how many people are in the channel?",
            f"Tell me the member count of #{name} and the name of the last person to join.",
        ]
        return Draft(family=self.name, key=f"channel:{name}", turns=[members_turn(channel, user)], checks=[MEMBERS_CHECK])


class UserStatus(Family):
    """A colleague's title, time zone and current status, found by email."""

    name = "chat.user-status"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        people = [u for u in view.read(SERVER, "list_users", per_page=100)["users"] if u["status_text"] and u["id"] != ME]
        if not people:
            return None
        person = rng.choice(people)
        email = person["email"]
        user = [
            f"What's the Slack status of {email} right now, and what time zone are they in?",
            f"Check {email} in Slack: current status text and time zone?",
            f"Is {email} available? Tell me their status and their time zone.",
        ]
        return Draft(family=self.name, key=f"user:{email}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_user_by_email", "arguments": {"email": email}},
        ], "facts": [
            {"name": "status", "expr": "{c1.status_text}", "value": None},
            {"name": "time zone", "expr": "{c1.timezone}", "value": None},
        ]}])


def thread_turn(channel: Row, message: Row, phrase: str, user: list[str]) -> dict[str, Any]:
    """A turn that finds a message (c1, c2) and reads its thread (c3): replies and last replier."""
    return {"user": user, "calls": [
        _find("c1", channel),
        _search("c2", "c1", message, phrase),
        {"id": "c3", "tool": "get_thread_replies", "arguments": {"per_page": 50}, "bind": {"message_id": "{c2.messages.0.id}"}},
    ], "facts": [
        {"name": "replies", "expr": "{c3.total}", "value": None},
        {"name": "last to reply", "expr": "{c3.replies.-1.user_name}", "value": None},
    ]}


class ThreadSummary(Family):
    """How many replies a message's thread got and who replied last."""

    name = "chat.thread-summary"
    servers = (SERVER,)
    kind = "drill-down"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _pick(view, rng, _channels(view), lambda m: m["reply_count"] >= 2)
        if picked is None:
            return None
        channel, message, phrase = picked
        what = _described(message, phrase)
        user = [
            f"How many replies did {what} get, and who replied last?",
            f"Look at the thread under {what}: number of replies and the name of the latest replier.",
            f"For {what}: how many people answered in the thread (count the replies) and who wrote the last reply?",
        ]
        return Draft(family=self.name, key=f"message:{message['id']}", turns=[thread_turn(channel, message, phrase, user)],
                     checks=["{c2.total} == 1"])


class MonthlyChannelVolume(Family):
    """Top-level messages of a channel in a month, and who posted the first of them."""

    name = "chat.monthly-channel-volume"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        channel = rng.choice(_channels(view))
        year, month = rng.choice(_months(view))
        start, end = month_window(year, month)
        if not view.read(SERVER, "get_channel_history", channel_id=channel["id"], oldest=start, latest=end, per_page=1)["total"]:
            return None
        when = month_name(year, month)
        name = channel["name"]
        user = [
            f"How many messages (not counting thread replies) were posted in #{name} in {when}, and who posted the first one that month?",
            f"Count the top-level posts in #{name} during {when} and tell me who wrote the earliest of them.",
            f"In {when}, how many new messages went into #{name} (threads excluded), and who started the month off?",
        ]
        return Draft(family=self.name, key=f"{name}|{when}", turns=[{"user": user, "calls": [
            _find("c1", channel),
            {"id": "c2", "tool": "get_channel_history", "arguments": {"oldest": start, "latest": end, "sort_order": "asc", "per_page": 1},
             "bind": {"channel_id": "{c1.id}"}},
        ], "facts": [
            {"name": "top-level messages", "expr": "{c2.total}", "value": None},
            {"name": "first poster", "expr": "{c2.messages.0.user_name}", "value": None},
        ]}], checks=["{c2.total} > 0"])


class BusiestDay(Family):
    """The busiest day of a channel over a quarter, its count, and the most active poster."""

    name = "chat.busiest-day"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        channel = rng.choice(_channels(view))
        months = _months(view)
        index = rng.randrange(len(months) - 2)
        (y0, m0), (y1, m1) = months[index], months[index + 2]
        start, _ = month_window(y0, m0)
        _, end = month_window(y1, m1)
        span = f"{month_name(y0, m0)} through {month_name(y1, m1)}"
        if not view.read(SERVER, "channel_stats", channel_id=channel["id"], after=start, before=end, top_days=1)["messages"]:
            return None
        name = channel["name"]
        user = [
            f"From {span}, which day was busiest in #{name}, how many messages were posted that day, and who posted the most overall?",
            f"Activity report for #{name}, {span}: the busiest day (UTC) with its message count, and the top poster.",
            f"In #{name} between {span}: on which date were the most messages posted, how many, and who was the most active member?",
        ]
        return Draft(family=self.name, key=f"{name}|{span}", turns=[{"user": user, "calls": [
            _find("c1", channel),
            {"id": "c2", "tool": "channel_stats", "arguments": {"after": start, "before": end, "top_members": 2, "top_days": 2},
             "bind": {"channel_id": "{c1.id}"}},
        ], "facts": [
            {"name": "busiest day", "expr": "{c2.busiest_days.0.day}", "value": None},
            {"name": "messages that day", "expr": "{c2.busiest_days.0.messages}", "value": None},
            {"name": "most active poster", "expr": "{c2.per_member.0.name}", "value": None},
        ]}], checks=["{c2.messages} > 0",
                     "len({c2.busiest_days}) == 1 or {c2.busiest_days.0.messages} != {c2.busiest_days.1.messages}",
                     "len({c2.per_member}) == 1 or {c2.per_member.0.messages} != {c2.per_member.1.messages}"])


class AccountChatter(Family):
    """How often a customer account came up in a sales or success channel over some months."""

    name = "chat.account-chatter"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        channels = [c for c in _channels(view, state="active") if c["name"] in ("sales", "deal-desk", "customer-success",
                                                                                 "support", "support-escalations")]
        if not channels:
            return None
        channel = rng.choice(channels)
        sample = _messages(view, rng, channel)
        accounts = sorted({a for m in sample for a in _accounts_in(view, m["text"])})
        if not accounts:
            return None
        account = rng.choice(accounts)
        months = _months(view)
        first = rng.randrange(len(months) - 5)
        (y0, m0), (y1, m1) = months[first], months[first + rng.randint(2, 5)]
        start, _ = month_window(y0, m0)
        _, end = month_window(y1, m1)
        span = f"{month_name(y0, m0)} to {month_name(y1, m1)}"
        if not view.read(SERVER, "search_messages", query=account, channel_id=channel["id"], after=start, before=end,
                         per_page=1)["total"]:
            return None
        name = channel["name"]
        user = [
            f"How many messages in #{name} mentioned {account} from {span}?",
            f"Count the #{name} messages (replies included) that talk about {account} between {span}.",
            f"{account} came up in #{name} how many times from {span}?",
        ]
        return Draft(family=self.name, key=f"{name}|{account}|{span}", turns=[{"user": user, "calls": [
            _find("c1", channel),
            {"id": "c2", "tool": "search_messages", "arguments": {"query": account, "after": start, "before": end, "per_page": 1},
             "bind": {"channel_id": "{c1.id}"}},
        ], "facts": [{"name": f"messages about {account}", "expr": "{c2.total}", "value": None}]}],
            checks=["{c2.total} > 0"])


def _accounts_in(view: WorldView, text: str) -> list[str]:
    """The shared-channel customer names and other account names a message names."""
    names = {c["topic"].removeprefix("Shared channel with ") for c in _channels(view, shared_only=True)}
    return [name for name in names if name in text]


class UnansweredMentions(Family):
    """How many mentions of you since a date you have not answered, who sent the latest, and
    how big that conversation is."""

    name = "chat.unanswered-mentions"
    servers = (SERVER,)
    kind = "drill-down"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        year, month = rng.choice(_months(view)[-8:])
        start, _ = month_window(year, month)
        since = month_name(year, month)
        found = view.read(SERVER, "list_mentions", after=start, unreplied_only=True, per_page=1)
        if not found["total"]:
            return None
        user = [
            f"Since the start of {since}, how many times was I mentioned without replying in the thread? Who sent the latest of those, and how many members does that conversation have?",
            f"Unanswered mentions of me since {since} began: how many, who is the most recent from, and the member count of the channel it was in?",
        ]
        return Draft(family=self.name, key=f"since:{start}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_mentions", "arguments": {"after": start, "unreplied_only": True, "per_page": 1}},
            {"id": "c2", "tool": "get_channel", "bind": {"channel_id": "{c1.mentions.0.channel_id}"}},
        ], "facts": [
            {"name": "unanswered mentions", "expr": "{c1.total}", "value": None},
            {"name": "latest from", "expr": "{c1.mentions.0.user_name}", "value": None},
            {"name": "members of that conversation", "expr": "{c2.member_count}", "value": None},
        ]}])


class ColleagueMentions(Family):
    """How often a colleague was mentioned in a month, in the conversations you can see."""

    name = "chat.colleague-mentions"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = rng.choice(_employees(view))
        year, month = rng.choice(_months(view))
        start, end = month_window(year, month)
        if not view.read(SERVER, "list_mentions", user_id=person["id"], after=start, before=end, per_page=1)["total"]:
            return None
        when = month_name(year, month)
        name = person["name"]
        user = [
            f"How many times was {name} @-mentioned in {when}, in the conversations I can see?",
            f"Count the messages from {when} that mention {name}.",
        ]
        return Draft(family=self.name, key=f"{name}|{when}", turns=[{"user": user, "calls": [
            _user_named("c1", name),
            {"id": "c2", "tool": "list_mentions", "arguments": {"after": start, "before": end, "per_page": 1},
             "bind": {"user_id": "{c1.users.0.id}"}},
        ], "facts": [{"name": f"mentions of {name}", "expr": "{c2.total}", "value": None}]}],
            checks=["{c1.total} == 1", "{c2.total} > 0"])


class ArchivedChannels(Family):
    """How many archived channels there are and which of them is the oldest or the newest."""

    name = "chat.archived-channels"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        order = rng.choice(("asc", "desc"))
        which = "oldest" if order == "asc" else "most recently created"
        user = [
            f"How many archived channels can I see, and which one is the {which}?",
            f"List-wise: count the archived channels visible to me and name the {which} of them.",
        ]
        return Draft(family=self.name, key=f"archived|{order}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_channels", "arguments": {"state": "archived", "sort_by": "created_at", "sort_order": order, "per_page": 2}},
        ], "facts": [
            {"name": "archived channels", "expr": "{c1.total}", "value": None},
            {"name": f"{which} archived channel", "expr": "{c1.channels.0.name}", "value": None},
        ]}], checks=["{c1.total} > 0"])


class CustomerGuests(Family):
    """Which people of a customer company are guests in the workspace."""

    name = "chat.customer-guests"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        guests = view.read(SERVER, "list_users", role="guest", per_page=100)["users"]
        companies = sorted({g["organization_name"] for g in guests})
        if not companies:
            return None
        company = rng.choice(companies)
        count = sum(g["organization_name"] == company for g in guests)
        names = ", ".join(f"{{c1.users.{i}.name}}" for i in range(count))
        user = [
            f"Which people from {company} are guests in our Slack workspace?",
            f"Name everyone from {company} who has guest access to our workspace.",
        ]
        return Draft(family=self.name, key=f"company:{company}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_users", "arguments": {"query": company, "role": "guest", "per_page": 10}},
        ], "facts": [{"name": f"guests from {company}", "expr": f"[{names}]", "value": None}]}],
            checks=[f"{{c1.total}} == {count}"])


# ---------------------------------------------------------------- writes


class PostInChannel(Family):
    """Post an announcement in a channel you are in."""

    name = "chat.post-in-channel"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        channel = rng.choice(_writable(view))
        text = rng.choice(ANNOUNCEMENTS)
        name = channel["name"]
        user = [
            f"Post this in #{name}: \"{text}\"",
            f"Please share the following message in the #{name} channel: \"{text}\"",
            f"Send \"{text}\" to #{name}.",
        ]
        return Draft(family=self.name, key=f"{name}|{text}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", channel),
            {"id": "c2", "tool": "post_message", "arguments": {"text": text}, "bind": {"channel_id": "{c1.id}"}},
        ], "facts": []}])


class JoinAndPost(Family):
    """Post in a public channel you are not in yet: join it first."""

    name = "chat.join-and-post"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        outside = [c for c in _channels(view, state="active", kinds=["public"]) if not c["is_member"]]
        if not outside:
            return None
        channel = rng.choice(outside)
        text = rng.choice(ANNOUNCEMENTS)
        name = channel["name"]
        user = [
            f"Join #{name} and post: \"{text}\"",
            f"I'm not in #{name} yet. Get me in there and share this: \"{text}\"",
            f"Post \"{text}\" in #{name} (I am not a member of it).",
        ]
        return Draft(family=self.name, key=f"{name}|{text}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", channel),
            {"id": "c2", "tool": "join_channel", "bind": {"channel_id": "{c1.id}"}},
            {"id": "c3", "tool": "post_message", "arguments": {"text": text}, "bind": {"channel_id": "{c1.id}"}},
        ], "facts": []}])


class ReplyToMessage(Family):
    """Reply in the thread of a message the user describes."""

    name = "chat.reply-to-message"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _pick(view, rng, _writable(view), lambda m: m["user_id"] != ME)
        if picked is None:
            return None
        channel, message, phrase = picked
        text = rng.choice(REPLIES)
        what = _described(message, phrase)
        user = [
            f"Reply in the thread of {what}: \"{text}\"",
            f"Answer {what} in its thread with \"{text}\"",
        ]
        return Draft(family=self.name, key=f"message:{message['id']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", channel),
            _search("c2", "c1", message, phrase),
            {"id": "c3", "tool": "reply_in_thread", "arguments": {"text": text}, "bind": {"message_id": "{c2.messages.0.id}"}},
        ], "facts": []}], checks=["{c2.total} == 1"])


class ReactToMessage(Family):
    """React to a message with an emoji."""

    name = "chat.react-to-message"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        emoji = rng.choice(EMOJI)
        picked = _pick(view, rng, _writable(view), lambda m: m["user_id"] != ME and not any(
            r["emoji"] == emoji and ME in r["user_ids"] for r in m["reactions"]))
        if picked is None:
            return None
        channel, message, phrase = picked
        what = _described(message, phrase)
        user = [
            f"React with :{emoji}: to {what}.",
            f"Add a :{emoji}: reaction to {what}.",
        ]
        return Draft(family=self.name, key=f"message:{message['id']}|{emoji}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", channel),
            _search("c2", "c1", message, phrase),
            {"id": "c3", "tool": "add_reaction", "arguments": {"emoji": emoji}, "bind": {"message_id": "{c2.messages.0.id}"}},
        ], "facts": []}], checks=["{c2.total} == 1"])


class TakeBackReaction(Family):
    """Remove a reaction you put on a message."""

    name = "chat.take-back-reaction"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        channels = [c for c in _channels(view, state="active", kinds=["public", "private"]) if c["is_member"]]
        picked = _pick(view, rng, channels, lambda m: any(ME in r["user_ids"] for r in m["reactions"]), include_replies=True)
        if picked is None:
            return None
        channel, message, phrase = picked
        emoji = rng.choice([r["emoji"] for r in message["reactions"] if ME in r["user_ids"]])
        what = _described(message, phrase)
        user = [
            f"Remove my :{emoji}: reaction from {what}.",
            f"I reacted with :{emoji}: to {what} by mistake. Take it back, please.",
        ]
        return Draft(family=self.name, key=f"message:{message['id']}|{emoji}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", channel),
            _search("c2", "c1", message, phrase),
            {"id": "c3", "tool": "remove_reaction", "arguments": {"emoji": emoji}, "bind": {"message_id": "{c2.messages.0.id}"}},
        ], "facts": []}], checks=["{c2.total} == 1"])


class PinMessage(Family):
    """Pin a message to its channel."""

    name = "chat.pin-message"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _pick(view, rng, _writable(view), lambda m: not m["is_pinned"])
        if picked is None:
            return None
        channel, message, phrase = picked
        what = _described(message, phrase)
        user = [
            f"Pin {what} to the channel.",
            f"Please pin {what} so the team can find it.",
        ]
        return Draft(family=self.name, key=f"message:{message['id']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", channel),
            _search("c2", "c1", message, phrase),
            {"id": "c3", "tool": "pin_message", "bind": {"message_id": "{c2.messages.0.id}"}},
        ], "facts": []}], checks=["{c2.total} == 1"])


class UnpinOldest(Family):
    """Unpin the longest-pinned message of a channel and say who wrote it."""

    name = "chat.unpin-oldest"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        pinned = [c for c in _writable(view) if _detail(view, c)["pinned_count"] > 0]
        if not pinned:
            return None
        channel = rng.choice(pinned)
        name = channel["name"]
        user = [
            f"Unpin the message that has been pinned longest in #{name}, and tell me who wrote it.",
            f"In #{name}, take down the oldest pin. Whose message was it?",
        ]
        return Draft(family=self.name, key=f"channel:{name}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", channel),
            {"id": "c2", "tool": "unpin_message", "bind": {"message_id": "{c1.pins.-1.message_id}"}},
        ], "facts": [{"name": "author of the unpinned message", "expr": "{c1.pins.-1.user_name}", "value": None}]}],
            checks=["{c1.pinned_count} == 1 or {c1.pins.-1.pinned_at} != {c1.pins.-2.pinned_at}"])


def _mine(view: WorldView, rng: random.Random) -> tuple[Row, Row, str] | None:
    return _pick(view, rng, _writable(view), lambda m: m["user_id"] == ME, include_replies=True)


class EditMyMessage(Family):
    """Replace the text of one of your messages."""

    name = "chat.edit-my-message"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _mine(view, rng)
        if picked is None:
            return None
        channel, message, phrase = picked
        text = rng.choice(CORRECTIONS)
        what = _described(message, phrase)
        user = [
            f"Edit {what} so it reads: \"{text}\"",
            f"Change the text of {what} to \"{text}\"",
        ]
        return Draft(family=self.name, key=f"message:{message['id']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", channel),
            _search("c2", "c1", message, phrase, from_user_id=ME),
            {"id": "c3", "tool": "edit_message", "arguments": {"text": text}, "bind": {"message_id": "{c2.messages.0.id}"}},
        ], "facts": []}], checks=["{c2.total} == 1"])


class DeleteMyMessage(Family):
    """Delete one of your messages."""

    name = "chat.delete-my-message"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _mine(view, rng)
        if picked is None:
            return None
        channel, message, phrase = picked
        what = _described(message, phrase)
        user = [
            f"Delete {what}.",
            f"Please remove {what}; it was posted by mistake.",
        ]
        return Draft(family=self.name, key=f"message:{message['id']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", channel),
            _search("c2", "c1", message, phrase, from_user_id=ME),
            {"id": "c3", "tool": "delete_message", "bind": {"message_id": "{c2.messages.0.id}"}},
        ], "facts": []}], checks=["{c2.total} == 1"])


class NewProjectChannel(Family):
    """Create a channel and bring two colleagues into it."""

    name = "chat.new-project-channel"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        name = f"proj-{rng.choice(PROJECTS)}-{rng.randint(2, 99)}"
        if view.lookup(SERVER, "find_channel", name=name) is not None:
            return None
        first, second = rng.sample(_employees(view), 2)
        private = rng.random() < 0.5
        kind = "private" if private else "public"
        topic = f"Project {name.split('-')[1].capitalize()}: planning and updates"
        user = [
            f"Create a {kind} channel #{name} with the topic \"{topic}\" and add {first['name']} and {second['name']} to it.",
            f"Set up a new {kind} channel called {name} (topic: \"{topic}\"), then invite {first['name']} and {second['name']}.",
        ]
        return Draft(family=self.name, key=f"{name}|{first['id']}|{second['id']}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "create_channel", "arguments": {"name": name, "is_private": private, "topic": topic}},
            _user_named("c2", first["name"]),
            _user_named("c3", second["name"]),
            {"id": "c4", "tool": "invite_to_channel", "bind": {"channel_id": "{c1.id}", "user_ids": "[{c2.users.0.id}, {c3.users.0.id}]"}},
        ], "facts": []}], checks=["{c2.total} == 1", "{c3.total} == 1"])


class LeaveChannel(Family):
    """Leave a channel you are in."""

    name = "chat.leave-channel"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        channels = [c for c in _writable(view) if c["name"] != "general"]
        if not channels:
            return None
        channel = rng.choice(channels)
        name = channel["name"]
        user = [
            f"Take me out of #{name}.",
            f"Leave the #{name} channel for me.",
            f"I don't need #{name} anymore; leave it.",
        ]
        return Draft(family=self.name, key=f"channel:{name}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", channel),
            {"id": "c2", "tool": "leave_channel", "bind": {"channel_id": "{c1.id}"}},
        ], "facts": []}])


class ArchiveIfQuiet(Family):
    """Archive a channel you created if nobody has posted since a date; either way say when
    the last message was."""

    name = "chat.archive-if-quiet"
    servers = (SERVER,)
    kind = "conditional-write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        mine = [c for c in _channels(view, state="active") if _detail(view, c)["creator_id"] == ME and c["last_message_at"]]
        if not mine:
            return None
        channel = rng.choice(mine)
        last = date.fromisoformat(channel["last_message_at"][:10])
        cutoff = last + timedelta(days=rng.randint(1, 20)) if rng.random() < 0.5 else last - timedelta(days=rng.randint(1, 20))
        quiet = date.fromisoformat(channel["last_message_at"][:10]) < cutoff
        name = channel["name"]
        user = [
            f"If nobody has posted in #{name} since {cutoff}, archive it. Either way, tell me when its last message was posted.",
            f"Check #{name}: when was the last message? If it was before {cutoff}, archive the channel.",
        ]
        calls: list[Call] = [_find("c1", channel)]
        if quiet:
            calls.append({"id": "c2", "tool": "archive_channel", "bind": {"channel_id": "{c1.id}"}})
        return Draft(family=self.name, key=f"{name}|{cutoff}", writes=quiet, turns=[{"user": user, "calls": calls, "facts": [
            {"name": "last message", "expr": "{c1.last_message_at}", "value": None}]}])


class ReviveChannel(Family):
    """Unarchive a channel you created and post in it."""

    name = "chat.revive-channel"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        mine = [c for c in _channels(view, state="archived") if _detail(view, c)["creator_id"] == ME]
        if not mine:
            return None
        channel = rng.choice(mine)
        text = rng.choice(("This channel is back for the new round.", "Reopening this for the follow-up work."))
        name = channel["name"]
        user = [
            f"Unarchive #{name} and post \"{text}\" in it.",
            f"Bring #{name} back from the archive, then write \"{text}\" there.",
        ]
        return Draft(family=self.name, key=f"channel:{name}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", channel),
            {"id": "c2", "tool": "unarchive_channel", "bind": {"channel_id": "{c1.id}"}},
            {"id": "c3", "tool": "post_message", "arguments": {"text": text}, "bind": {"channel_id": "{c1.id}"}},
        ], "facts": []}])


class DirectMessage(Family):
    """Send a colleague a direct message."""

    name = "chat.direct-message"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = rng.choice(_employees(view))
        text = rng.choice(("Do you have 15 minutes today to go over the renewal?", "Thanks for your help with the demo!",
                           "Can you send me the latest numbers before the call?"))
        user = [
            f"Send {person['name']} a direct message: \"{text}\"",
            f"DM {person['name']} on Slack: \"{text}\"",
        ]
        return Draft(family=self.name, key=f"{person['id']}|{text}", writes=True, turns=[{"user": user, "calls": [
            _user_named("c1", person["name"]),
            {"id": "c2", "tool": "send_dm", "arguments": {"text": text}, "bind": {"user_ids": "[{c1.users.0.id}]"}},
        ], "facts": []}], checks=["{c1.total} == 1"])


class GroupConversation(Family):
    """Open a group DM with two colleagues and post in it."""

    name = "chat.group-conversation"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        first, second = rng.sample(_employees(view), 2)
        text = rng.choice(("Let's use this thread to plan the customer workshop.", "Quick sync on the renewal plan here?"))
        user = [
            f"Start a group conversation with {first['name']} and {second['name']} and post: \"{text}\"",
            f"Open a group DM with {first['name']} and {second['name']}, then write \"{text}\" in it.",
        ]
        return Draft(family=self.name, key=f"{min(first['id'], second['id'])}|{max(first['id'], second['id'])}", writes=True,
                     turns=[{"user": user, "calls": [
                         _user_named("c1", first["name"]),
                         _user_named("c2", second["name"]),
                         {"id": "c3", "tool": "open_dm", "bind": {"user_ids": "[{c1.users.0.id}, {c2.users.0.id}]"}},
                         {"id": "c4", "tool": "post_message", "arguments": {"text": text}, "bind": {"channel_id": "{c3.id}"}},
                     ], "facts": []}], checks=["{c1.total} == 1", "{c2.total} == 1"])


class SetStatus(Family):
    """Set your own status until a date."""

    name = "chat.set-status"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        text, emoji = rng.choice(STATUSES)
        until = view.now.date() + timedelta(days=rng.randint(1, 14))
        presence = rng.choice((None, "away"))
        arguments: dict[str, Any] = {"status_text": text, "status_emoji": emoji, "expires_at": f"{until}T00:00:00Z"}
        away = ""
        if presence:
            arguments["presence"] = presence
            away = " and show me as away"
        user = [
            f"Set my Slack status to {emoji} \"{text}\" until {until} (00:00 UTC){away}.",
            f"Update my status: \"{text}\" with {emoji}, clearing itself at the start of {until} UTC{away}.",
        ]
        return Draft(family=self.name, key=f"{text}|{until}|{presence}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "set_my_status", "arguments": arguments}], "facts": []}])


# ---------------------------------------------------------------- refusals


class PostInArchived(Family):
    """Asked to post in an archived channel: refuse, and say who archived it."""

    name = "chat.post-in-archived"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        channel = rng.choice(_channels(view, state="archived"))
        text = rng.choice(ANNOUNCEMENTS)
        name = channel["name"]
        user = [
            f"Post \"{text}\" in #{name}. If that isn't possible, tell me why and who archived it.",
            f"Share \"{text}\" in #{name}; if you can't, let me know who archived the channel.",
        ]
        return Draft(family=self.name, key=f"{name}|{text}", turns=[{"user": user, "calls": [_find("c1", channel)], "facts": [
            {"name": "archived by", "expr": "{c1.archived_by_name}", "value": None}]}])


class ArchiveOthersChannel(Family):
    """Asked to archive a channel someone else created: refuse, and say who may."""

    name = "chat.archive-others-channel"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        theirs = [c for c in _channels(view, state="active") if c["name"] != "general"
                  and _detail(view, c)["creator_id"] != ME]
        channel = rng.choice(theirs)
        name = channel["name"]
        user = [
            f"Archive #{name}. If you're not allowed to, tell me who created it so I can ask them.",
            f"Please archive the #{name} channel, or if that's not permitted, name its creator.",
        ]
        return Draft(family=self.name, key=f"channel:{name}", turns=[{"user": user, "calls": [_find("c1", channel)], "facts": [
            {"name": "creator", "expr": "{c1.creator_name}", "value": None}]}])


class EditOthersPin(Family):
    """Asked to fix the text of a pinned message someone else wrote: refuse, and name the author."""

    name = "chat.edit-others-pin"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        candidates = [c for c in _writable(view) if (d := _detail(view, c))["pins"] and d["pins"][0]["user_id"] != ME]
        if not candidates:
            return None
        channel = rng.choice(candidates)
        name = channel["name"]
        text = rng.choice(CORRECTIONS)
        user = [
            f"Change the most recently pinned message in #{name} to say \"{text}\". If you can't, tell me who wrote it.",
            f"Edit the latest pin in #{name} so it reads \"{text}\"; if that's not allowed, who is its author?",
        ]
        return Draft(family=self.name, key=f"channel:{name}", turns=[{"user": user, "calls": [_find("c1", channel)], "facts": [
            {"name": "author", "expr": "{c1.pins.0.user_name}", "value": None}]}],
            checks=["{c1.pinned_count} == 1 or {c1.pins.0.pinned_at} != {c1.pins.1.pinned_at}"])


class InviteGuestToInternal(Family):
    """Asked to add a customer's guest to an internal channel: refuse, and say whom they are with."""

    name = "chat.invite-guest-to-internal"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        guests = view.read(SERVER, "list_users", role="guest", per_page=100)["users"]
        internal = [c for c in _writable(view) if not c["is_shared"]]
        if not guests or not internal:
            return None
        guest, channel = rng.choice(guests), rng.choice(internal)
        name = channel["name"]
        user = [
            f"Add {guest['name']} to #{name}. If that's not possible, tell me which company they're with.",
            f"Invite {guest['name']} into #{name}; if you can't, say what organization they belong to.",
        ]
        return Draft(family=self.name, key=f"{guest['id']}|{name}", turns=[{"user": user, "calls": [
            _user_named("c1", guest["name"]),
        ], "facts": [{"name": "their company", "expr": "{c1.users.0.organization_name}", "value": None}]}],
            checks=["{c1.total} == 1"])


# ---------------------------------------------------------------- two turns


class ThreadThenReply(Family):
    """Two turns: a thread's replies and last replier, then a reply in that thread."""

    name = "chat.thread-then-reply"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _pick(view, rng, _writable(view), lambda m: m["reply_count"] >= 2)
        if picked is None:
            return None
        channel, message, phrase = picked
        what = _described(message, phrase)
        text = rng.choice(REPLIES)
        first = [
            f"How many replies are there under {what}, and who answered last?",
            f"Check the thread of {what}: reply count and the latest replier.",
        ]
        second = [f"Reply in that thread: \"{text}\"", f"Add my answer to that thread: \"{text}\""]
        return Draft(family=self.name, key=f"message:{message['id']}", writes=True, turns=[
            thread_turn(channel, message, phrase, first),
            {"user": second, "calls": [
                {"id": "c4", "tool": "reply_in_thread", "arguments": {"text": text}, "bind": {"message_id": "{c2.messages.0.id}"}},
            ], "facts": []},
        ], checks=["{c2.total} == 1"])


class MembersThenInvite(Family):
    """Two turns: who is in a channel, then add a colleague to it."""

    name = "chat.members-then-invite"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        channel = rng.choice([c for c in _writable(view) if c["name"] != "general"])
        outside = [u for u in _employees(view) if u["id"] not in _members(view, channel)]
        if not outside:
            return None
        person = rng.choice(outside)
        name = channel["name"]
        first = [f"How many people are in #{name}, and who joined last?",
                 f"Who was the most recent person to join #{name}, and what's the member count?"]
        second = [f"Add {person['name']} to that channel.", f"Please invite {person['name']} to it as well."]
        return Draft(family=self.name, key=f"{name}|{person['id']}", writes=True, turns=[
            members_turn(channel, first),
            {"user": second, "calls": [
                _user_named("c3", person["name"]),
                {"id": "c4", "tool": "invite_to_channel", "bind": {"channel_id": "{c1.id}", "user_ids": "[{c3.users.0.id}]"}},
            ], "facts": []},
        ], checks=[MEMBERS_CHECK, "{c3.total} == 1"])


class MentionThenReact(Family):
    """Two turns: who mentioned you last in a channel, then react to that message."""

    name = "chat.mention-then-react"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        emoji = rng.choice(EMOJI)
        options = []
        for channel in _writable(view):
            found = view.read(SERVER, "list_mentions", channel_id=channel["id"], per_page=1)["mentions"]
            if found and not any(r["emoji"] == emoji and ME in r["user_ids"] for r in found[0]["reactions"]):
                options.append(channel)
        if not options:
            return None
        channel = rng.choice(options)
        name = channel["name"]
        first = [f"Who mentioned me most recently in #{name}?",
                 f"Who sent the latest message in #{name} that @-mentions me?"]
        second = [f"React to that message with :{emoji}:.", f"Put a :{emoji}: on it."]
        return Draft(family=self.name, key=f"{name}|{emoji}", writes=True, turns=[
            {"user": first, "calls": [
                _find("c1", channel),
                {"id": "c2", "tool": "list_mentions", "arguments": {"per_page": 1}, "bind": {"channel_id": "{c1.id}"}},
            ], "facts": [{"name": "mentioned by", "expr": "{c2.mentions.0.user_name}", "value": None}]},
            {"user": second, "calls": [
                {"id": "c3", "tool": "add_reaction", "arguments": {"emoji": emoji}, "bind": {"message_id": "{c2.mentions.0.id}"}},
            ], "facts": []},
        ])


class ThreadThenPin(Family):
    """Two turns: a thread's replies and last replier, then pin its first message."""

    name = "chat.thread-then-pin"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _pick(view, rng, _writable(view), lambda m: m["reply_count"] >= 2 and not m["is_pinned"])
        if picked is None:
            return None
        channel, message, phrase = picked
        what = _described(message, phrase)
        first = [f"How many replies did {what} get, and who wrote the last one?",
                 f"Tell me the reply count and the last replier for {what}."]
        second = ["Pin that message to the channel.", "That one matters: pin it."]
        return Draft(family=self.name, key=f"message:{message['id']}", writes=True, turns=[
            thread_turn(channel, message, phrase, first),
            {"user": second, "calls": [
                {"id": "c4", "tool": "pin_message", "bind": {"message_id": "{c2.messages.0.id}"}},
            ], "facts": []},
        ], checks=["{c2.total} == 1"])


class MyMessageThenEdit(Family):
    """Two turns: the reactions on one of your messages, then a correction of its text."""

    name = "chat.my-message-then-edit"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _mine(view, rng)
        if picked is None:
            return None
        channel, message, phrase = picked
        what = _described(message, phrase)
        text = rng.choice(CORRECTIONS)
        first = [f"How many replies has {what} received, and when exactly did I post it?",
                 f"When did I post {what}, and how many replies are under it?"]
        second = [f"Edit it to say \"{text}\"", f"Please change its text to \"{text}\""]
        return Draft(family=self.name, key=f"message:{message['id']}", writes=True, turns=[
            {"user": first, "calls": [
                _find("c1", channel),
                _search("c2", "c1", message, phrase, from_user_id=ME),
            ], "facts": [
                {"name": "replies", "expr": "{c2.messages.0.reply_count}", "value": None},
                {"name": "posted at", "expr": "{c2.messages.0.created_at}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c3", "tool": "edit_message", "arguments": {"text": text}, "bind": {"message_id": "{c2.messages.0.id}"}},
            ], "facts": []},
        ], checks=["{c2.total} == 1"])


class PinsThenUnpin(Family):
    """Two turns: who pinned the oldest pin of a channel and whose message it is, then unpin it."""

    name = "chat.pins-then-unpin"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        pinned = [c for c in _writable(view) if _detail(view, c)["pinned_count"] > 0]
        if not pinned:
            return None
        channel = rng.choice(pinned)
        name = channel["name"]
        first = [f"What is the oldest pinned message in #{name}: who wrote it and who pinned it?",
                 f"In #{name}, whose message has been pinned the longest, and who pinned it?"]
        second = ["It's outdated; unpin it.", "Please unpin that one."]
        return Draft(family=self.name, key=f"channel:{name}", writes=True, turns=[
            {"user": first, "calls": [_find("c1", channel)], "facts": [
                {"name": "author", "expr": "{c1.pins.-1.user_name}", "value": None},
                {"name": "pinned by", "expr": "{c1.pins.-1.pinned_by_name}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c2", "tool": "unpin_message", "bind": {"message_id": "{c1.pins.-1.message_id}"}},
            ], "facts": []},
        ], checks=["{c1.pinned_count} == 1 or {c1.pins.-1.pinned_at} != {c1.pins.-2.pinned_at}"])


class MembersThenLeave(Family):
    """Two turns: who is in a channel, then leave it."""

    name = "chat.members-then-leave"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        channel = rng.choice([c for c in _writable(view) if c["name"] != "general"])
        name = channel["name"]
        first = [f"How big is #{name} these days, and who joined it last?",
                 f"Member count of #{name}, and its newest member?"]
        second = ["OK, I don't need to be in it anymore. Leave it for me.", "Then take me out of that channel."]
        return Draft(family=self.name, key=f"channel:{name}", writes=True, turns=[
            members_turn(channel, first),
            {"user": second, "calls": [{"id": "c3", "tool": "leave_channel", "bind": {"channel_id": "{c1.id}"}}], "facts": []},
        ], checks=[MEMBERS_CHECK])


class CreateThenPost(Family):
    """Two turns: create a channel, then post its first message."""

    name = "chat.create-then-post"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        project = rng.choice(PROJECTS)
        name = f"{rng.choice(('proj', 'team', 'launch'))}-{project}"
        if view.lookup(SERVER, "find_channel", name=name) is not None:
            return None
        purpose = f"Everything about {project.capitalize()}."
        text = f"Welcome to #{name}! Agenda and notes go here."
        first = [f"Create a public channel named {name} with the purpose \"{purpose}\"",
                 f"Set up #{name} (public), purpose: \"{purpose}\""]
        second = [f"Now post the first message there: \"{text}\"", f"Kick it off with: \"{text}\""]
        return Draft(family=self.name, key=f"channel:{name}", writes=True, turns=[
            {"user": first, "calls": [
                {"id": "c1", "tool": "create_channel", "arguments": {"name": name, "purpose": purpose}}], "facts": []},
            {"user": second, "calls": [
                {"id": "c2", "tool": "post_message", "arguments": {"text": text}, "bind": {"channel_id": "{c1.id}"}}], "facts": []},
        ])


class TrimPins(Family):
    """If a channel has more than N pinned messages, unpin the oldest; either way say how many
    there are."""

    name = "chat.trim-pins"
    servers = (SERVER,)
    kind = "conditional-write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        pinned = [(c, d) for c in _writable(view) if (d := _detail(view, c))["pinned_count"] > 0]
        if not pinned:
            return None
        channel, detail = rng.choice(pinned)
        count = detail["pinned_count"]
        threshold = rng.choice([t for t in (count - 1, count, count + 1) if t >= 1])
        trim = count > threshold
        name = channel["name"]
        user = [
            f"If #{name} has more than {threshold} pinned messages, unpin the oldest one. Either way, tell me how many messages are pinned there.",
            f"How many pins does #{name} have? If it's over {threshold}, remove the longest-standing pin.",
        ]
        calls: list[Call] = [_find("c1", channel)]
        if trim:
            calls.append({"id": "c2", "tool": "unpin_message", "bind": {"message_id": "{c1.pins.-1.message_id}"}})
        return Draft(family=self.name, key=f"{name}|{threshold}", writes=trim, turns=[{"user": user, "calls": calls, "facts": [
            {"name": "pinned messages", "expr": "{c1.pinned_count}", "value": None}]}],
            checks=["{c1.pinned_count} == 1 or {c1.pins.-1.pinned_at} != {c1.pins.-2.pinned_at}"])


class ChannelThenJoin(Family):
    """Two turns: what a public channel you are not in is about, then join it."""

    name = "chat.channel-then-join"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        outside = [c for c in _channels(view, state="active", kinds=["public"]) if not c["is_member"] and c["topic"]]
        if not outside:
            return None
        channel = rng.choice(outside)
        name = channel["name"]
        first = [f"What is #{name} about (its topic), and who created it?",
                 f"Tell me the topic of #{name} and the name of its creator."]
        second = ["Sounds useful. Join it for me.", "Add me to that channel."]
        return Draft(family=self.name, key=f"channel:{name}", writes=True, turns=[
            {"user": first, "calls": [_find("c1", channel)], "facts": [
                {"name": "topic", "expr": "{c1.topic}", "value": None},
                {"name": "creator", "expr": "{c1.creator_name}", "value": None},
            ]},
            {"user": second, "calls": [{"id": "c2", "tool": "join_channel", "bind": {"channel_id": "{c1.id}"}}], "facts": []},
        ])


class QuietThenArchive(Family):
    """Two turns: when a channel you created last saw a message, then archive it."""

    name = "chat.quiet-then-archive"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        mine = [c for c in _channels(view, state="active") if _detail(view, c)["creator_id"] == ME and c["last_message_at"]]
        if not mine:
            return None
        channel = rng.choice(mine)
        name = channel["name"]
        first = [f"When was the last message posted in #{name}, and how many members does it have?",
                 f"How many people are in #{name}, and when did anyone last post there?"]
        second = ["We're done with it. Archive the channel.", "Please archive it."]
        return Draft(family=self.name, key=f"channel:{name}", writes=True, turns=[
            {"user": first, "calls": [_find("c1", channel)], "facts": [
                {"name": "last message", "expr": "{c1.last_message_at}", "value": None},
                {"name": "members", "expr": "{c1.member_count}", "value": None},
            ]},
            {"user": second, "calls": [{"id": "c2", "tool": "archive_channel", "bind": {"channel_id": "{c1.id}"}}], "facts": []},
        ])


class StatusThenCover(Family):
    """Two turns: a colleague's status and when it ends, then your own status covering for
    them until the same time."""

    name = "chat.status-then-cover"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        away = [u for u in _employees(view) if u["status_text"] and u["status_expires_at"]]
        if not away:
            return None
        person = rng.choice(away)
        first_name = person["name"].split()[0]
        text = f"Covering for {first_name}"
        first = [f"What's {person['name']}'s Slack status, and when does it end?",
                 f"Is {person['name']} around? Tell me their status and when it expires."]
        second = [f"Set my status to \"{text}\" with :busts_in_silhouette: until that same time.",
                  f"Then make my status :busts_in_silhouette: \"{text}\", expiring when theirs does."]
        return Draft(family=self.name, key=f"user:{person['id']}", writes=True, turns=[
            {"user": first, "calls": [_user_named("c1", person["name"])], "facts": [
                {"name": "status", "expr": "{c1.users.0.status_text}", "value": None},
                {"name": "ends", "expr": "{c1.users.0.status_expires_at}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c2", "tool": "set_my_status", "arguments": {"status_text": text, "status_emoji": ":busts_in_silhouette:"},
                 "bind": {"expires_at": "{c1.users.0.status_expires_at}"}},
            ], "facts": []},
        ], checks=["{c1.total} == 1"])


class MyReactionsThenRemove(Family):
    """Two turns: which reactions you put on a message, then take them back."""

    name = "chat.my-reactions-then-remove"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        channels = [c for c in _channels(view, state="active", kinds=["public", "private"]) if c["is_member"]]
        picked = _pick(view, rng, channels, lambda m: [r["emoji"] for r in m["reactions"] if ME in r["user_ids"]] != [],
                       include_replies=True)
        if picked is None:
            return None
        channel, message, phrase = picked
        mine = [r["emoji"] for r in message["reactions"] if ME in r["user_ids"]]
        if len(mine) != 1:
            return None
        what = _described(message, phrase)
        first = [f"How many reactions does {what} have in all, counting every emoji?",
                 f"Count all the emoji reactions on {what}."]
        second = ["Remove my own reaction from it.", "Take back the reaction I put on it."]
        return Draft(family=self.name, key=f"message:{message['id']}", writes=True, turns=[
            {"user": first, "calls": [_find("c1", channel), _search("c2", "c1", message, phrase)], "facts": [
                {"name": "reactions", "expr": " + ".join(f"{{c2.messages.0.reactions.{i}.count}}"
                                                         for i in range(len(message["reactions"]))), "value": None}]},
            {"user": second, "calls": [
                {"id": "c3", "tool": "remove_reaction", "arguments": {"emoji": mine[0]}, "bind": {"message_id": "{c2.messages.0.id}"}},
            ], "facts": []},
        ], checks=["{c2.total} == 1"])


class MyMessageThenDelete(Family):
    """Two turns: when you posted a message and its reply count, then delete it."""

    name = "chat.my-message-then-delete"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _mine(view, rng)
        if picked is None:
            return None
        channel, message, phrase = picked
        what = _described(message, phrase)
        first = [f"When exactly did I post {what}, and has anyone replied to it?",
                 f"Find {what}: the exact time I posted it and its number of replies."]
        second = ["Delete it.", "Please remove that message."]
        return Draft(family=self.name, key=f"message:{message['id']}", writes=True, turns=[
            {"user": first, "calls": [_find("c1", channel), _search("c2", "c1", message, phrase, from_user_id=ME)], "facts": [
                {"name": "posted at", "expr": "{c2.messages.0.created_at}", "value": None},
                {"name": "replies", "expr": "{c2.messages.0.reply_count}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c3", "tool": "delete_message", "bind": {"message_id": "{c2.messages.0.id}"}}], "facts": []},
        ], checks=["{c2.total} == 1"])


class ArchivedThenRevive(Family):
    """Two turns: who archived a channel you created, then unarchive it."""

    name = "chat.archived-then-revive"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        mine = [c for c in _channels(view, state="archived") if _detail(view, c)["creator_id"] == ME]
        if not mine:
            return None
        channel = rng.choice(mine)
        name = channel["name"]
        first = [f"Who archived #{name}, and how many messages does it hold?",
                 f"#{name} is archived: by whom, and how many messages are in it?"]
        second = ["We need it again. Unarchive it.", "Bring it back, please."]
        return Draft(family=self.name, key=f"channel:{name}", writes=True, turns=[
            {"user": first, "calls": [_find("c1", channel)], "facts": [
                {"name": "archived by", "expr": "{c1.archived_by_name}", "value": None},
                {"name": "messages", "expr": "{c1.message_count}", "value": None},
            ]},
            {"user": second, "calls": [{"id": "c2", "tool": "unarchive_channel", "bind": {"channel_id": "{c1.id}"}}], "facts": []},
        ])


class ChannelPeopleThenGroup(Family):
    """Two turns: who created a channel and who joined it last, then a group DM with both."""

    name = "chat.channel-people-then-group"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        channel = rng.choice(_channels(view, state="active"))
        creator = _detail(view, channel)["creator_id"]
        newest = view.read(SERVER, "list_channel_members", channel_id=channel["id"], sort_by="joined_at", sort_order="desc",
                           per_page=2)["members"]
        if ME in (creator, newest[0]["user_id"]) or creator == newest[0]["user_id"]:
            return None
        name = channel["name"]
        text = f"Hi both! Quick question about #{name} when you have a minute."
        first = [f"Who created #{name}, and who is its newest member?",
                 f"Tell me the creator of #{name} and the last person who joined it."]
        second = [f"Start a group DM with the two of them and write: \"{text}\"",
                  f"Open a group conversation with both and post \"{text}\""]
        return Draft(family=self.name, key=f"channel:{name}", writes=True, turns=[
            {"user": first, "calls": [
                _find("c1", channel),
                {"id": "c2", "tool": "list_channel_members", "arguments": {"sort_by": "joined_at", "sort_order": "desc", "per_page": 2},
                 "bind": {"channel_id": "{c1.id}"}},
            ], "facts": [
                {"name": "creator", "expr": "{c1.creator_name}", "value": None},
                {"name": "newest member", "expr": "{c2.members.0.name}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c3", "tool": "open_dm", "bind": {"user_ids": "[{c1.creator_id}, {c2.members.0.user_id}]"}},
                {"id": "c4", "tool": "post_message", "arguments": {"text": text}, "bind": {"channel_id": "{c3.id}"}},
            ], "facts": []},
        ], checks=[MEMBERS_CHECK])


class NudgeIfQuiet(Family):
    """If a colleague has not posted in a channel since a date, DM them a nudge; either way
    say how many messages they posted there since."""

    name = "chat.nudge-if-quiet"
    servers = (SERVER,)
    kind = "conditional-write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        channel = rng.choice(_writable(view))
        people = [u for u in _employees(view) if u["id"] in _members(view, channel)]
        if not people:
            return None
        person = rng.choice(people)
        year, month = rng.choice(_months(view)[-6:])
        start, _ = month_window(year, month)
        since = month_name(year, month)
        posted = view.read(SERVER, "search_messages", channel_id=channel["id"], from_user_id=person["id"], after=start,
                           per_page=1)["total"]
        name = channel["name"]
        text = f"Hi! Could you share a quick update in #{name} when you get a chance?"
        user = [
            f"How many messages has {person['name']} posted in #{name} since the start of {since}? If none, DM them: \"{text}\"",
            f"Check whether {person['name']} has written anything in #{name} since {since} began (give me the count); if not, send them \"{text}\" as a DM.",
        ]
        calls: list[Call] = [
            _find("c1", channel),
            _user_named("c2", person["name"]),
            {"id": "c3", "tool": "search_messages", "arguments": {"after": start, "per_page": 1},
             "bind": {"channel_id": "{c1.id}", "from_user_id": "{c2.users.0.id}"}},
        ]
        if not posted:
            calls.append({"id": "c4", "tool": "send_dm", "arguments": {"text": text}, "bind": {"user_ids": "[{c2.users.0.id}]"}})
        return Draft(family=self.name, key=f"{name}|{person['id']}|{since}", writes=not posted, turns=[
            {"user": user, "calls": calls, "facts": [{"name": "their messages since", "expr": "{c3.total}", "value": None}]}],
            checks=["{c2.total} == 1"])


# ---------------------------------------------------------------- with the CRM


class SharedChannelAccount(Family):
    """The CRM account behind a shared customer channel: its owner and open pipeline."""

    name = "cross.chat-shared-channel-account"
    servers = (SERVER, "crm")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        channel = rng.choice(_channels(view, shared_only=True))
        name = channel["name"]
        user = [
            f"#{name} is one of our shared customer channels. In the CRM, who owns that customer's account, and how much open pipeline does it have?",
            f"For the customer in #{name}: who is the account owner in the CRM, and what is the account's open pipeline amount?",
        ]
        return Draft(family=self.name, key=f"channel:{name}", turns=[{"user": user, "calls": [
            {**_find("c1", channel), "server": SERVER},
            {"id": "c2", "server": "crm", "tool": "get_account", "bind": {"account_id": "{c1.crm_account_id}"}},
        ], "facts": [
            {"name": "account owner", "expr": "{c2.owner_name}", "value": None},
            {"name": "open pipeline", "expr": "{c2.open_pipeline_amount}", "value": None},
        ]}])


class MessageAccountOwner(Family):
    """DM the CRM owner of a customer account."""

    name = "cross.chat-message-account-owner"
    servers = (SERVER, "crm")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        accounts = view.read("crm", "search_accounts", type="customer", per_page=100)["accounts"]
        account = rng.choice(accounts)
        if account["owner_name"] == view.read(SERVER, "get_user", user_id=ME)["name"]:
            return None  # the owner is you
        text = f"Heads up: {account['name']} asked about their renewal in Slack today."
        user = [
            f"Send the CRM owner of the {account['name']} account a Slack DM: \"{text}\"",
            f"Whoever owns {account['name']} in the CRM: DM them on Slack with \"{text}\"",
        ]
        return Draft(family=self.name, key=f"account:{account['id']}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "server": "crm", "tool": "search_accounts", "arguments": {"query": account["name"]}},
            {"id": "c2", "server": SERVER, "tool": "list_users", "arguments": {"per_page": 2}, "bind": {"query": "{c1.accounts.0.owner_name}"}},
            {"id": "c3", "server": SERVER, "tool": "send_dm", "arguments": {"text": text}, "bind": {"user_ids": "[{c2.users.0.id}]"}},
        ], "facts": []}], checks=["{c1.total} == 1", "{c2.total} == 1"])


class GuestInCrm(Family):
    """A customer guest of the workspace as the CRM knows them: their contact owner and phone."""

    name = "cross.chat-guest-in-crm"
    servers = (SERVER, "crm")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        guests = view.read(SERVER, "list_users", role="guest", per_page=100)["users"]
        guest = rng.choice(guests)
        if view.lookup("crm", "find_contact_by_email", email=guest["email"]) is None:
            return None
        user = [
            f"{guest['name']} from {guest['organization_name']} is a guest in our Slack. Who owns them as a contact in the CRM, and what's their phone number?",
            f"Look up our Slack guest {guest['name']} in the CRM: the contact's owner and phone, please.",
        ]
        return Draft(family=self.name, key=f"guest:{guest['id']}", turns=[{"user": user, "calls": [
            {**_user_named("c1", guest["name"]), "server": SERVER},
            {"id": "c2", "server": "crm", "tool": "find_contact_by_email", "bind": {"email": "{c1.users.0.email}"}},
        ], "facts": [
            {"name": "contact owner", "expr": "{c2.owner_name}", "value": None},
            {"name": "phone", "expr": "{c2.phone}", "value": None},
        ]}], checks=["{c1.total} == 1"])


class PosterOpenTickets(Family):
    """The colleague who posted last in a support channel, and their open Zendesk tickets
    (found by email)."""

    name = "cross.chat-poster-open-tickets"
    servers = (SERVER, "zendesk")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        channels = [c for c in _channels(view, state="active") if c["name"] in ("support", "support-escalations", "incidents")]
        if not channels:
            return None
        channel = rng.choice(channels)
        year, month = rng.choice(_months(view))
        start, end = month_window(year, month)
        latest = view.read(SERVER, "get_channel_history", channel_id=channel["id"], oldest=start, latest=end, per_page=1)
        if not latest["messages"] or latest["messages"][0]["user_id"] == ME:
            return None
        when, name = month_name(year, month), channel["name"]
        user = [
            f"Who posted the last top-level message in #{name} in {when}, and how many open Zendesk tickets are assigned to them now?",
            f"Find the author of the final #{name} post of {when} (threads aside), then count their tickets in Zendesk with status open.",
        ]
        return Draft(family=self.name, key=f"{name}|{when}", turns=[{"user": user, "calls": [
            {**_find("c1", channel), "server": SERVER},
            {"id": "c2", "server": SERVER, "tool": "get_channel_history", "arguments": {"oldest": start, "latest": end, "per_page": 1},
             "bind": {"channel_id": "{c1.id}"}},
            {"id": "c3", "server": SERVER, "tool": "get_user", "bind": {"user_id": "{c2.messages.0.user_id}"}},
            {"id": "c4", "server": "zendesk", "tool": "search_users", "arguments": {"role": "agent"}, "bind": {"query": "{c3.email}"}},
            {"id": "c5", "server": "zendesk", "tool": "search_tickets", "arguments": {"status": ["open"], "per_page": 1},
             "bind": {"assignee_id": "{c4.users.0.id}"}},
        ], "facts": [
            {"name": "last poster", "expr": "{c3.name}", "value": None},
            {"name": "their open tickets", "expr": "{c5.total}", "value": None},
        ]}], checks=["{c4.total} == 1", "len({c2.messages}) == 1"])


CHAT_FAMILIES: tuple[Family, ...] = (
    ChannelCreator(), ChannelMembers(), UserStatus(), ThreadSummary(), MonthlyChannelVolume(), BusiestDay(),
    AccountChatter(), UnansweredMentions(), ColleagueMentions(), ArchivedChannels(), CustomerGuests(),
    PostInChannel(), JoinAndPost(), ReplyToMessage(), ReactToMessage(), TakeBackReaction(), PinMessage(), UnpinOldest(),
    EditMyMessage(), DeleteMyMessage(), NewProjectChannel(), LeaveChannel(), ArchiveIfQuiet(), ReviveChannel(),
    DirectMessage(), GroupConversation(), SetStatus(),
    PostInArchived(), ArchiveOthersChannel(), EditOthersPin(), InviteGuestToInternal(),
    TrimPins(), NudgeIfQuiet(), ThreadThenReply(), MembersThenInvite(), MentionThenReact(), ThreadThenPin(), MyMessageThenEdit(),
    PinsThenUnpin(), MembersThenLeave(), CreateThenPost(), ChannelThenJoin(), QuietThenArchive(), StatusThenCover(),
    MyReactionsThenRemove(), MyMessageThenDelete(), ArchivedThenRevive(), ChannelPeopleThenGroup(),
    SharedChannelAccount(), MessageAccountOwner(), GuestInCrm(), PosterOpenTickets(),
)
"""Every chat family, the cross-server ones (with the CRM and the help desk) last."""
