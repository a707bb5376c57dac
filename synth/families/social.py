"""Social task families: profiles, followers, threads, quotes, trends, monthly activity, the
notifications and DM inbox of @NorthwindSys; posting, replying, quoting, liking, reposting,
editing and deleting; following, blocking and muting; direct messages and the profile;
refusals the network's rules call for; two-turn follow-ups; a customer's public complaint
matched to their help-desk ticket, and a company's brand account matched to its CRM account.

A user names an account by its @handle or a person's name, and a post by its author, its day
and a few of its words, never by an id.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from mcpgym.synth.family import Draft, Family, WorldView, month_name, month_window, previous_month

SERVER = "social"
ME = 1
HISTORY_MONTHS = 14

Row = dict[str, Any]
Call = dict[str, Any]

ANNOUNCEMENTS = (
    "Big news: Northwind Cloud now supports scheduled exports to your own storage. #NorthwindCloud",
    "Join our live Q&A on Thursday at 17:00 UTC. Bring your questions! #NorthwindCloud",
    "We are hiring support engineers in three time zones. #hiring",
    "Thank you to all 300+ customers who joined our user conference this year!",
    "New guide: five ways to speed up your weekly reporting. #productivity",
    "Maintenance window tonight 02:00-03:00 UTC; no downtime expected. #NorthwindCloud",
)
REPLIES = (
    "Thanks for the feedback! We have shared it with the team.",
    "Sorry about this. Our support team is on it and will follow up today.",
    "Great to hear, thank you!",
    "We appreciate you flagging this. Please check your inbox for an update.",
)
QUOTE_COMMENTS = ("Congratulations to the team!", "Great news from our partners.", "Worth a read.", "Love to see it.")
DMS = (
    "Hi! Thanks for reaching out. Could you share your account email so we can help?",
    "Hello from Northwind! Our team has an update on your request.",
    "Thanks for your patience; the fix is rolling out today.",
)
EDITS = (
    "Our team is answering questions about the new release until 18:00 UTC. Ask away! #NorthwindCloud",
    "Ask us anything about the new release here until the end of the day! #NorthwindCloud",
)
BIOS = (
    "Official account of Northwind Systems. Product news and support, 24/7.",
    "Northwind Systems: cloud reporting for modern teams. Support hours 7am-9pm ET.",
    "News, tips and help from the Northwind Systems team.",
)
LONG = ("We are thrilled to announce that Northwind Cloud now supports scheduled exports, audit log filters, "
        "single sign-on for every plan, a brand new dark mode, faster search across all of your workspaces, and "
        "webhooks for every event type. Thank you to every customer who asked for these features over the past year! "
        "#NorthwindCloud")


# ---------------------------------------------------------------- sampling helpers


def _people(view: WorldView, rng: random.Random, **filters: Any) -> list[Row]:
    """One random page of people's accounts (not yours)."""
    total = view.read(SERVER, "search_users", kind="person", per_page=1, **filters)["total"]
    page = rng.randint(1, max(1, -(-total // 100)))
    return view.read(SERVER, "search_users", kind="person", per_page=100, page=page, **filters)["users"]


def _brands(view: WorldView) -> list[Row]:
    return [u for u in view.read(SERVER, "search_users", kind="brand", per_page=100)["users"] if u["id"] != ME]


def _clear(user: Row) -> bool:
    """Not blocked either way."""
    return not user["blocking"] and not user["blocked_by"]


def _by_handle(call_id: str, user: Row) -> Call:
    return {"id": call_id, "tool": "get_user_by_handle", "arguments": {"handle": f"@{user['handle']}"}}


def _named(call_id: str, user: Row) -> Call:
    return {"id": call_id, "tool": "search_users", "arguments": {"query": user["name"], "per_page": 2}}


def _latest(view: WorldView, user: Row, **filters: Any) -> Row | None:
    """The latest post of `user` matching `filters`, or None."""
    posts = view.read(SERVER, "search_posts", author_id=user["id"], per_page=1, **filters)["posts"]
    return posts[0] if posts else None


def _day(post: Row) -> tuple[str, str, str]:
    day = date.fromisoformat(post["created_at"][:10])
    return str(day), f"{day}T00:00:00Z", f"{day + timedelta(days=1)}T00:00:00Z"


def _phrase(text: str, rng: random.Random) -> str | None:
    """Three or four consecutive words of a post, as written, without hashtags or mentions."""
    words = text.split()
    runs = [words[i:i + n] for n in (3, 4) for i in range(len(words) - n + 1)]
    runs = [run for run in runs if not any(w[0] in "#@" for w in run) and len(" ".join(run)) >= 12]
    return " ".join(rng.choice(runs)) if runs else None


def _my_post(view: WorldView, rng: random.Random, **filters: Any) -> tuple[Row, str] | None:
    """One of your posts, from a random page, and words to quote from it."""
    total = view.read(SERVER, "search_posts", author_id=ME, per_page=1, **filters)["total"]
    if not total:
        return None
    page = rng.randint(1, -(-total // 50))
    posts = view.read(SERVER, "search_posts", author_id=ME, per_page=50, page=page, **filters)["posts"]
    post = rng.choice(posts)
    phrase = _phrase(post["text"], rng)
    return None if phrase is None else (post, phrase)


def _find_mine(call_id: str, post: Row, phrase: str, **extra: Any) -> Call:
    """The search that finds one of your posts from its day and words."""
    _, start, end = _day(post)
    return {"id": call_id, "tool": "search_posts",
            "arguments": {"author_id": ME, "query": phrase, "after": start, "before": end, **extra}}


def _months(view: WorldView) -> list[tuple[int, int]]:
    return [previous_month(view.now.year, view.now.month, back) for back in range(HISTORY_MONTHS, 0, -1)]


def _draft(family: Family, key: str, calls: list[Call], facts: list[tuple[str, str]], user: list[str],
           writes: bool = False, checks: list[str] | None = None) -> Draft:
    return Draft(family=family.name, key=key, writes=writes, checks=checks or [], turns=[{
        "user": user, "calls": calls, "facts": [{"name": n, "expr": e, "value": None} for n, e in facts]}])


# ---------------------------------------------------------------- lookups and reports


class Profile(Family):
    """Who is behind a handle, their company and follower count."""

    name = "social.profile"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        user = rng.choice(_people(view, rng))
        h = user["handle"]
        return _draft(self, f"user:{h}", [_by_handle("c1", user)],
                      [("name", "{c1.name}"), ("company", "{c1.organization_name}"), ("followers", "{c1.followers_count}")], [
            f"Who is behind @{h}? Give me their name, the company they work for and how many followers they have.",
            f"Look up the account @{h}: the person's name, their employer and their follower count.",
        ])


class AccountByEmail(Family):
    """The handle registered with an email address, and whether it follows you."""

    name = "social.account-by-email"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        user = rng.choice(_people(view, rng))
        email = user["email"]
        return _draft(self, f"email:{email}", [{"id": "c1", "tool": "get_user_by_email", "arguments": {"email": email}}],
                      [("handle", "{c1.handle}"), ("follows us", "{c1.followed_by}")], [
            f"A customer wrote from {email}. What's their handle on the network, and do they follow us?",
            f"Which account is registered with {email}? I need the handle and whether it follows @NorthwindSys.",
        ])


class FindPerson(Family):
    """A person's account found by name: handle and posts."""

    name = "social.find-person"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        user = rng.choice(_people(view, rng))
        return _draft(self, f"name:{user['name']}", [_named("c1", user)],
                      [("handle", "{c1.users.0.handle}"), ("posts", "{c1.users.0.post_count}")], [
            f"Is {user['name']} on the network? Tell me their handle and how many posts they have.",
            f"Find {user['name']}'s account: handle and number of posts.",
        ], checks=["{c1.total} == 1"])


class LatestFollower(Family):
    """The account that most recently followed someone."""

    name = "social.latest-follower"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        user = rng.choice([u for u in _people(view, rng) if u["followers_count"] >= 2])
        h = user["handle"]
        return _draft(self, f"user:{h}", [_by_handle("c1", user), {
            "id": "c2", "tool": "list_followers", "arguments": {"per_page": 2}, "bind": {"user_id": "{c1.id}"}}],
            [("followers", "{c2.total}"), ("newest follower", "{c2.users.0.name}")], [
            f"How many followers does @{h} have, and who followed them most recently?",
            f"Who is the newest follower of @{h}? Also give me their total follower count.",
        ], checks=["{c2.users.0.followed_at} != {c2.users.1.followed_at}"])


class LatestFollowing(Family):
    """How many accounts someone follows, and whom they followed last."""

    name = "social.latest-following"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        user = rng.choice([u for u in _people(view, rng) if u["following_count"] >= 2])
        h = user["handle"]
        return _draft(self, f"user:{h}", [_by_handle("c1", user), {
            "id": "c2", "tool": "list_following", "arguments": {"per_page": 2}, "bind": {"user_id": "{c1.id}"}}],
            [("following", "{c2.total}"), ("latest followed", "{c2.users.0.handle}")], [
            f"How many accounts does @{h} follow, and which one did they follow most recently?",
            f"Give me @{h}'s following count and the handle of the last account they followed.",
        ], checks=["{c2.users.0.followed_at} != {c2.users.1.followed_at}"])


class ThreadReplies(Family):
    """How many replies one of your posts got, and who replied first."""

    name = "social.thread-replies"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _my_post(view, rng, type="post")
        if picked is None or not picked[0]["reply_count"]:
            return None
        post, phrase = picked
        day, _, _ = _day(post)
        return _draft(self, f"post:{post['id']}", [_find_mine("c1", post, phrase, per_page=2), {
            "id": "c2", "tool": "get_post_replies", "arguments": {"per_page": 2}, "bind": {"post_id": "{c1.posts.0.id}"}}],
            [("replies", "{c2.total}"), ("first replier", "{c2.replies.0.author_handle}")], [
            f"Our post from {day} (UTC) that says \"{phrase}\": how many replies did it get, and who replied first?",
            f"Find our {day} post containing \"{phrase}\". Count its replies and tell me the handle of the first person to reply.",
        ], checks=["{c1.total} == 1", "{c2.total} == 1 or {c2.replies.0.created_at} != {c2.replies.1.created_at}"])


class QuotedAuthor(Family):
    """Whose post someone quoted on a day, and how many likes the original has."""

    name = "social.quoted-author"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        quotes = view.read(SERVER, "search_posts", type="quote", per_page=100, page=rng.randint(1, 2))["posts"]
        quote = rng.choice([q for q in quotes if q["author_id"] != ME] or [None])
        if quote is None:
            return None
        day, start, end = _day(quote)
        h = quote["author_handle"]
        return _draft(self, f"post:{quote['id']}", [
            {"id": "c1", "tool": "get_user_by_handle", "arguments": {"handle": f"@{h}"}},
            {"id": "c2", "tool": "search_posts", "arguments": {"type": "quote", "after": start, "before": end, "per_page": 2},
             "bind": {"author_id": "{c1.id}"}},
            {"id": "c3", "tool": "get_post", "bind": {"post_id": "{c2.posts.0.quoted_post_id}"}}],
            [("original author", "{c3.author_handle}"), ("likes", "{c3.like_count}")], [
            f"@{h} quoted someone's post on {day} (UTC). Whose post was it, and how many likes does the original have?",
            f"On {day}, @{h} posted a quote. Who wrote the quoted post and how many likes has it got?",
        ], checks=["{c2.total} == 1"])


class TimelineTop(Family):
    """The newest post on your home timeline from someone else."""

    name = "social.timeline-latest"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        replies = rng.random() < 0.5
        return _draft(self, f"replies:{replies}", [
            {"id": "c1", "tool": "get_home_timeline", "arguments": {"include_replies": replies, "per_page": 1}}],
            [("author", "{c1.posts.0.author_handle}"), ("text", "{c1.posts.0.text}")], [
            f"What is the newest {'post or reply' if replies else 'post'} on our home timeline? Who posted it and what does it say?",
            f"Check our home timeline{' (replies included)' if replies else ''}: who wrote the top item and what does it say?",
        ])


class Trending(Family):
    """The most used hashtag over the last hours."""

    name = "social.trending"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        hours = rng.choice((24, 48, 72, 168))
        span = {24: "24 hours", 48: "two days", 72: "three days", 168: "week"}[hours]
        return _draft(self, f"hours:{hours}", [
            {"id": "c1", "tool": "trending_hashtags", "arguments": {"hours": hours, "limit": 3}}],
            [("top hashtag", "{c1.hashtags.0.hashtag}"), ("posts", "{c1.hashtags.0.post_count}")], [
            f"What's trending? Which hashtag was used most in the last {span}, and in how many posts?",
            f"Top hashtag over the past {span} and its post count, please.",
        ], checks=["{c1.hashtags.0.post_count} != {c1.hashtags.1.post_count}"])


class MonthlyActivity(Family):
    """An account's posts and likes received in a month."""

    name = "social.monthly-activity"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        user = rng.choice(_brands(view) + [view.read(SERVER, "get_user", user_id=ME)])
        year, month = rng.choice(_months(view))
        start, end = month_window(year, month)
        when, h = month_name(year, month), user["handle"]
        return _draft(self, f"{h}|{when}", [_by_handle("c1", user), {
            "id": "c2", "tool": "account_stats", "arguments": {"after": start, "before": end}, "bind": {"user_id": "{c1.id}"}}],
            [("posts", "{c2.posts}"), ("likes received", "{c2.likes_received}")], [
            f"How many top-level posts did @{h} publish in {when}, and how many likes did its posts, replies and quotes from that month get?",
            f"@{h} in {when}: number of posts (not replies or quotes) and the likes received on everything it published that month.",
        ])


class NewestFollowerNotification(Family):
    """Your unread notifications, and who followed you last (with their follower count)."""

    name = "social.newest-follower"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        return _draft(self, "me", [
            {"id": "c1", "tool": "list_notifications", "arguments": {"kind": "follow", "per_page": 2}},
            {"id": "c2", "tool": "get_user", "bind": {"user_id": "{c1.notifications.0.actor_id}"}}],
            [("newest follower", "{c2.handle}"), ("their followers", "{c2.followers_count}")], [
            "Who is our newest follower according to the notifications, and how many followers do they have themselves?",
            "Check the follow notifications: who followed us most recently, and how big is their own following (followers)?",
        ], checks=["{c1.notifications.0.created_at} != {c1.notifications.1.created_at}"])


class UnreadMessages(Family):
    """DM conversations with unread messages."""

    name = "social.unread-messages"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        if not view.read(SERVER, "list_conversations", unread_only=True, per_page=1)["total"]:
            return None
        return _draft(self, "me", [{"id": "c1", "tool": "list_conversations", "arguments": {"unread_only": True}}],
                      [("conversations", "{c1.total}"), ("most recent", "{c1.conversations.0.name}")], [
            "How many DM conversations have unread messages, and who sent the most recent one?",
            "Check our inbox: number of conversations with unread DMs, and the name of the person in the latest one.",
        ])


class LastMessage(Family):
    """The last direct message exchanged with a person, and who sent it."""

    name = "social.last-message"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        conversation = rng.choice(view.read(SERVER, "list_conversations", per_page=100)["conversations"])
        name = conversation["name"]
        return _draft(self, f"dm:{conversation['user_id']}", [
            {"id": "c1", "tool": "search_users", "arguments": {"query": name, "per_page": 2}},
            {"id": "c2", "tool": "get_conversation", "arguments": {"per_page": 1}, "bind": {"user_id": "{c1.users.0.id}"}}],
            [("last message", "{c2.messages.0.text}"), ("sent by", "{c2.messages.0.sender_handle}")], [
            f"What was the last direct message in our conversation with {name}, and who sent it?",
            f"Open our DMs with {name}: what does the latest message say and which handle sent it?",
        ], checks=["{c1.total} == 1"])


class MentionsInMonth(Family):
    """How many posts mentioned you in a month, and the most liked one's author."""

    name = "social.mentions-in-month"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        year, month = rng.choice(_months(view)[-10:])
        start, end = month_window(year, month)
        when = month_name(year, month)
        return _draft(self, when, [{"id": "c1", "tool": "search_posts", "arguments": {
            "mentions_user_id": ME, "after": start, "before": end, "sort_by": "like_count", "per_page": 2}}],
            [("mentions", "{c1.total}"), ("most liked by", "{c1.posts.0.author_handle}")], [
            f"How many posts mentioned @NorthwindSys in {when}, and who wrote the most liked of them?",
            f"Mentions of us in {when}: the count, and the handle behind the one with the most likes.",
        ], checks=["{c1.total} > 0", "{c1.total} == 1 or {c1.posts.0.like_count} != {c1.posts.1.like_count}"])


# ---------------------------------------------------------------- writes


class PublishPost(Family):
    """Publish an announcement."""

    name = "social.publish-post"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        text = rng.choice(ANNOUNCEMENTS)
        return _draft(self, text, [{"id": "c1", "tool": "create_post", "arguments": {"text": text}}], [], [
            f"Post this from our account: \"{text}\"",
            f"Please publish the following on @NorthwindSys: \"{text}\"",
        ], writes=True)


def _complainer(view: WorldView, rng: random.Random) -> tuple[Row, Row] | None:
    """A person and their latest post mentioning you, neither blocked."""
    posts = view.read(SERVER, "search_posts", mentions_user_id=ME, type="post", per_page=100)["posts"]
    post = rng.choice(posts)
    user = view.read(SERVER, "get_user", user_id=post["author_id"])
    latest = _latest(view, user, mentions_user_id=ME, type="post")
    if user["kind"] != "person" or not _clear(user) or latest is None or latest["id"] != post["id"]:
        return None
    return user, post


def _latest_mention_calls(user: Row) -> list[Call]:
    return [_by_handle("c1", user), {"id": "c2", "tool": "search_posts", "arguments": {
        "mentions_user_id": ME, "type": "post", "per_page": 1}, "bind": {"author_id": "{c1.id}"}}]


class ReplyToMention(Family):
    """Reply to someone's latest post mentioning you."""

    name = "social.reply-to-mention"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        found = _complainer(view, rng)
        if found is None:
            return None
        user, _ = found
        text, h = rng.choice(REPLIES), user["handle"]
        return _draft(self, f"{h}|{text}", [*_latest_mention_calls(user), {
            "id": "c3", "tool": "reply_to_post", "arguments": {"text": text}, "bind": {"post_id": "{c2.posts.0.id}"}}], [], [
            f"Reply to @{h}'s latest post mentioning us with: \"{text}\"",
            f"@{h} mentioned us recently. Answer their most recent post that mentions us: \"{text}\"",
        ], writes=True)


def _brand_post(view: WorldView, rng: random.Random) -> tuple[Row, Row] | None:
    brand = rng.choice(_brands(view))
    post = _latest(view, brand, type="post")
    return None if post is None else (brand, post)


class QuoteBrand(Family):
    """Quote a partner company's latest post with a comment."""

    name = "social.quote-brand"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        found = _brand_post(view, rng)
        if found is None:
            return None
        brand, _ = found
        text, h = rng.choice(QUOTE_COMMENTS), brand["handle"]
        return _draft(self, f"{h}|{text}", [_by_handle("c1", brand), {
            "id": "c2", "tool": "search_posts", "arguments": {"type": "post", "per_page": 1}, "bind": {"author_id": "{c1.id}"}}, {
            "id": "c3", "tool": "quote_post", "arguments": {"text": text}, "bind": {"post_id": "{c2.posts.0.id}"}}], [], [
            f"Quote @{h}'s latest post (not a reply) and add: \"{text}\"",
            f"Share @{h}'s most recent post as a quote with the comment \"{text}\"",
        ], writes=True)


class LikeLatest(Family):
    """Like someone's latest post."""

    name = "social.like-latest"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        user = rng.choice([u for u in _people(view, rng) if _clear(u) and u["post_count"]])
        post = _latest(view, user, type="post")
        if post is None or post["liked_by_me"]:
            return None
        h = user["handle"]
        return _draft(self, f"user:{h}", [_by_handle("c1", user), {
            "id": "c2", "tool": "search_posts", "arguments": {"type": "post", "per_page": 1}, "bind": {"author_id": "{c1.id}"}}, {
            "id": "c3", "tool": "like_post", "bind": {"post_id": "{c2.posts.0.id}"}}], [], [
            f"Like @{h}'s most recent post (not a reply or quote).",
            f"Give @{h}'s latest original post a like from our account.",
        ], writes=True)


class RepostBrand(Family):
    """Repost a company's latest post."""

    name = "social.repost-brand"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        found = _brand_post(view, rng)
        if found is None or found[1]["reposted_by_me"]:
            return None
        brand, _ = found
        h = brand["handle"]
        return _draft(self, f"user:{h}", [_by_handle("c1", brand), {
            "id": "c2", "tool": "search_posts", "arguments": {"type": "post", "per_page": 1}, "bind": {"author_id": "{c1.id}"}}, {
            "id": "c3", "tool": "repost", "bind": {"post_id": "{c2.posts.0.id}"}}], [], [
            f"Repost @{h}'s latest post.",
            f"Share @{h}'s most recent post with our followers (a plain repost).",
        ], writes=True)


class TakeBackLike(Family):
    """Unlike a post you liked, named by its author, day and words."""

    name = "social.take-back-like"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        found = _complainer(view, rng)
        if found is None:
            return None
        user, post = found
        if not post["liked_by_me"]:
            return None
        h = user["handle"]
        return _draft(self, f"post:{post['id']}", [*_latest_mention_calls(user), {
            "id": "c3", "tool": "unlike_post", "bind": {"post_id": "{c2.posts.0.id}"}}], [], [
            f"We liked @{h}'s latest post mentioning us by mistake. Take the like back.",
            f"Remove our like from the most recent post in which @{h} mentions us.",
        ], writes=True)


class DeleteMyPost(Family):
    """Delete one of your posts, named by day and words."""

    name = "social.delete-my-post"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _my_post(view, rng, type="post")
        if picked is None:
            return None
        post, phrase = picked
        day, _, _ = _day(post)
        return _draft(self, f"post:{post['id']}", [_find_mine("c1", post, phrase, per_page=2), {
            "id": "c2", "tool": "delete_post", "bind": {"post_id": "{c1.posts.0.id}"}}], [], [
            f"Delete our post from {day} (UTC) that says \"{phrase}\".",
            f"Please remove the post we published on {day} containing \"{phrase}\".",
        ], writes=True, checks=["{c1.total} == 1"])


class EditLatest(Family):
    """Fix the text of your latest post, still within the edit window."""

    name = "social.edit-latest"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        text = rng.choice(EDITS)
        return _draft(self, text, [
            {"id": "c1", "tool": "search_posts", "arguments": {"author_id": ME, "type": "post", "per_page": 1}},
            {"id": "c2", "tool": "edit_post", "arguments": {"text": text}, "bind": {"post_id": "{c1.posts.0.id}"}}], [], [
            f"Edit our most recent post (not a reply) so it reads: \"{text}\"",
            f"Change the text of the post we just published to \"{text}\"",
        ], writes=True)


class FollowBack(Family):
    """Follow someone back if they follow you; either way, their follower count."""

    name = "social.follow-back"
    servers = (SERVER,)
    kind = "conditional-write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        user = rng.choice([u for u in _people(view, rng) if _clear(u) and not u["following"]])
        h = user["handle"]
        calls: list[Call] = [_by_handle("c1", user)]
        if user["followed_by"]:
            calls.append({"id": "c2", "tool": "follow_user", "bind": {"user_id": "{c1.id}"}})
        return _draft(self, f"user:{h}", calls, [("their followers", "{c1.followers_count}")], [
            f"If @{h} follows us, follow them back. Either way, tell me how many followers they have.",
            f"Check whether @{h} follows @NorthwindSys; if so, follow back. Also give me their follower count.",
        ], writes=user["followed_by"])


class Unfollow(Family):
    """Stop following an account."""

    name = "social.unfollow"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        following = view.read(SERVER, "list_following", per_page=100)["users"]
        user = rng.choice(following)
        h = user["handle"]
        return _draft(self, f"user:{h}", [_by_handle("c1", user), {
            "id": "c2", "tool": "unfollow_user", "bind": {"user_id": "{c1.id}"}}], [], [
            f"Unfollow @{h}.",
            f"We no longer need to follow @{h}; please unfollow them.",
        ], writes=True)


class BlockSpammer(Family):
    """Block an account."""

    name = "social.block"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        user = rng.choice([u for u in _people(view, rng) if not u["blocking"]])
        h = user["handle"]
        return _draft(self, f"user:{h}", [_by_handle("c1", user), {
            "id": "c2", "tool": "block_user", "bind": {"user_id": "{c1.id}"}}], [], [
            f"@{h} keeps spamming our replies. Block them.",
            f"Please block the account @{h}.",
        ], writes=True)


class UnblockAndFollow(Family):
    """Unblock an account you blocked and follow it."""

    name = "social.unblock-and-follow"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        blocked = [u for u in view.read(SERVER, "search_users", per_page=100, page=rng.randint(1, 5))["users"]
                   if u["blocking"] and not u["blocked_by"]]
        if not blocked:
            return None
        user = rng.choice(blocked)
        h = user["handle"]
        return _draft(self, f"user:{h}", [_by_handle("c1", user), {
            "id": "c2", "tool": "unblock_user", "bind": {"user_id": "{c1.id}"}}, {
            "id": "c3", "tool": "follow_user", "bind": {"user_id": "{c1.id}"}}], [], [
            f"We blocked @{h} by mistake. Unblock them and follow them.",
            f"Lift our block on @{h}, then follow the account.",
        ], writes=True)


class Mute(Family):
    """Mute an account you follow."""

    name = "social.mute"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        user = rng.choice([u for u in view.read(SERVER, "list_following", per_page=100)["users"] if not u["muting"]])
        h = user["handle"]
        return _draft(self, f"user:{h}", [_by_handle("c1", user), {
            "id": "c2", "tool": "mute_user", "bind": {"user_id": "{c1.id}"}}], [], [
            f"Mute @{h}; their posts are flooding our timeline. Keep following them.",
            f"Please mute @{h} without unfollowing.",
        ], writes=True)


class Unmute(Family):
    """Unmute an account you muted."""

    name = "social.unmute"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        muted = [u for u in view.read(SERVER, "search_users", per_page=100, page=rng.randint(1, 6))["users"] if u["muting"]]
        if not muted:
            return None
        user = rng.choice(muted)
        h = user["handle"]
        return _draft(self, f"user:{h}", [_by_handle("c1", user), {
            "id": "c2", "tool": "unmute_user", "bind": {"user_id": "{c1.id}"}}], [], [
            f"Unmute @{h}.",
            f"We muted @{h} a while ago; please unmute them.",
        ], writes=True)


class DirectMessageFollower(Family):
    """Send a direct message to a person who can receive it."""

    name = "social.direct-message"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        user = rng.choice([u for u in _people(view, rng) if _clear(u) and (u["followed_by"] or u["dm_policy"] == "everyone")])
        text = rng.choice(DMS)
        return _draft(self, f"{user['id']}|{text}", [_named("c1", user), {
            "id": "c2", "tool": "send_direct_message", "arguments": {"text": text}, "bind": {"user_id": "{c1.users.0.id}"}}],
            [], [
            f"Send {user['name']} a direct message: \"{text}\"",
            f"DM {user['name']} from our account: \"{text}\"",
        ], writes=True, checks=["{c1.total} == 1"])


class UpdateBio(Family):
    """Change the brand account's bio (and sometimes who may DM it)."""

    name = "social.update-bio"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        bio = rng.choice(BIOS)
        closed = rng.random() < 0.4
        arguments: dict[str, Any] = {"bio": bio}
        extra = ""
        if closed:
            arguments["dm_policy"] = "followers"
            extra = " and only accept direct messages from accounts we follow"
        return _draft(self, f"{bio}|{closed}", [{"id": "c1", "tool": "update_profile", "arguments": arguments}], [], [
            f"Change our bio to \"{bio}\"{extra}.",
            f"Update the @NorthwindSys profile: bio \"{bio}\"{extra}.",
        ], writes=True)


# ---------------------------------------------------------------- refusals


class DmBlocked(Family):
    """Asked to DM an account blocked either way: refuse, and say who blocked whom."""

    name = "social.dm-blocked"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        blocked = [u for u in view.read(SERVER, "search_users", per_page=100, page=rng.randint(1, 6))["users"]
                   if u["blocking"] or u["blocked_by"]]
        if not blocked:
            return None
        user = rng.choice(blocked)
        text, h = rng.choice(DMS), user["handle"]
        return _draft(self, f"user:{h}", [_by_handle("c1", user)],
                      [("we blocked them", "{c1.blocking}"), ("they blocked us", "{c1.blocked_by}")], [
            f"DM @{h}: \"{text}\" If you can't, tell me whether we blocked them or they blocked us.",
            f"Send @{h} this direct message: \"{text}\" If it's not possible, explain who blocked whom.",
        ])


class MentionBlocked(Family):
    """Asked to post a mention of an account blocked either way: refuse, and give its name."""

    name = "social.mention-blocked"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        blocked = [u for u in view.read(SERVER, "search_users", per_page=100, page=rng.randint(1, 6))["users"]
                   if u["blocking"] or u["blocked_by"]]
        if not blocked:
            return None
        user = rng.choice(blocked)
        h = user["handle"]
        return _draft(self, f"user:{h}", [_by_handle("c1", user)], [("their name", "{c1.name}")], [
            f"Post \"Thanks @{h} for the great feedback on our new release!\" If that's not allowed, tell me who is behind @{h}.",
            f"Publish: \"Thanks @{h} for the great feedback on our new release!\" If you can't, give me the name of the person behind that handle.",
        ])


class TooLong(Family):
    """Asked to reply with a text over 280 characters: refuse, and give the post's likes."""

    name = "social.too-long"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        found = _complainer(view, rng)
        if found is None:
            return None
        user, _ = found
        h = user["handle"]
        return _draft(self, f"user:{h}", _latest_mention_calls(user), [("likes", "{c2.posts.0.like_count}")], [
            f"Reply to @{h}'s latest post mentioning us with exactly this: \"{LONG}\" If it can't go out as is, tell me how many likes their post has.",
            f"Answer the most recent post in which @{h} mentions us with: \"{LONG}\" If that fails, how many likes does their post have?",
        ])


class DeleteOthers(Family):
    """Asked to delete someone else's post: refuse, and say when it was posted."""

    name = "social.delete-others-post"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        found = _complainer(view, rng)
        if found is None:
            return None
        user, _ = found
        h = user["handle"]
        return _draft(self, f"user:{h}", _latest_mention_calls(user), [("posted at", "{c2.posts.0.created_at}")], [
            f"Delete @{h}'s latest post mentioning us. If we can't, tell me when it was posted.",
            f"Remove the most recent post where @{h} mentions us; if that's not possible, when did they post it?",
        ])


class EditOld(Family):
    """Asked to edit one of your posts past the edit window: refuse, and give its likes."""

    name = "social.edit-old-post"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _my_post(view, rng, type="post", before=f"{view.now.date() - timedelta(days=1)}T00:00:00Z")
        if picked is None:
            return None
        post, phrase = picked
        day, _, _ = _day(post)
        text = rng.choice(EDITS)
        return _draft(self, f"post:{post['id']}", [_find_mine("c1", post, phrase, per_page=2)],
                      [("likes", "{c1.posts.0.like_count}")], [
            f"Edit our post from {day} (UTC) that says \"{phrase}\" to read \"{text}\". If you can't, tell me how many likes it has.",
            f"Change our {day} post containing \"{phrase}\" so it says \"{text}\"; if editing isn't possible, give me its like count.",
        ], checks=["{c1.total} == 1"])


class LikeAgain(Family):
    """Asked to like a post you already liked: refuse, and give its likes."""

    name = "social.like-again"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        found = _complainer(view, rng)
        if found is None or not found[1]["liked_by_me"]:
            return None
        user, _ = found
        h = user["handle"]
        return _draft(self, f"user:{h}", _latest_mention_calls(user), [("likes", "{c2.posts.0.like_count}")], [
            f"Like @{h}'s latest post mentioning us. If we already did, tell me how many likes it has.",
            f"Give a like to the most recent post where @{h} mentions us; if that's not possible, what is its like count?",
        ])


class DmClosed(Family):
    """Asked to DM someone who neither follows you nor has open DMs: refuse, and give their
    follower count."""

    name = "social.dm-closed"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        closed = [u for u in _people(view, rng) if _clear(u) and not u["followed_by"] and u["dm_policy"] == "followers"]
        if not closed:
            return None
        user = rng.choice(closed)
        text, h = rng.choice(DMS), user["handle"]
        return _draft(self, f"user:{h}", [_by_handle("c1", user)],
                      [("follows us", "{c1.followed_by}"), ("their followers", "{c1.followers_count}")], [
            f"DM @{h}: \"{text}\" If that doesn't work, tell me whether they follow us and how many followers they have.",
            f"Send @{h} a direct message saying \"{text}\" If you can't, say whether they follow us and give their follower count.",
        ])


class PostAgain(Family):
    """Asked to publish again the text of today's post: refuse, and say when it went out."""

    name = "social.post-again"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        since = f"{view.now - timedelta(hours=20):%Y-%m-%dT%H:%M:%SZ}"
        posts = view.read(SERVER, "search_posts", author_id=ME, type="post", after=since, per_page=10)["posts"]
        if not posts:
            return None
        post = rng.choice(posts)
        text = post["text"]
        return _draft(self, f"post:{post['id']}", [
            {"id": "c1", "tool": "search_posts", "arguments": {"author_id": ME, "query": text, "per_page": 2}}],
            [("posted at", "{c1.posts.0.created_at}")], [
            f"Post this again: \"{text}\" If it can't be posted, tell me when we posted it.",
            f"Publish \"{text}\" once more. If that's refused, when did that post go out?",
        ], checks=["{c1.total} == 1"])


# ---------------------------------------------------------------- two turns


class PostThenEdit(Family):
    """Two turns: publish a post, then fix its wording."""

    name = "social.post-then-edit"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        text = rng.choice(ANNOUNCEMENTS)
        fixed = text.replace("!", ".") if "!" in text else f"{text} Details on our blog."
        if len(fixed) > 280:
            return None
        return Draft(family=self.name, key=text, writes=True, turns=[
            {"user": [f"Post: \"{text}\"", f"Publish this on our account: \"{text}\""],
             "calls": [{"id": "c1", "tool": "create_post", "arguments": {"text": text}}], "facts": []},
            {"user": [f"Actually, edit that post to read: \"{fixed}\"", f"Please change the post you just made to \"{fixed}\""],
             "calls": [{"id": "c2", "tool": "edit_post", "arguments": {"text": fixed}, "bind": {"post_id": "{c1.id}"}}],
             "facts": []},
        ])


class ThreadThenReply(Family):
    """Two turns: the replies to one of your posts, then a reply to the first replier."""

    name = "social.thread-then-reply"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _my_post(view, rng, type="post")
        if picked is None or not picked[0]["reply_count"]:
            return None
        post, phrase = picked
        replies = view.read(SERVER, "get_post_replies", post_id=post["id"], per_page=1)["replies"]
        if not replies or replies[0]["author_id"] == ME:
            return None
        author = view.read(SERVER, "get_user", user_id=replies[0]["author_id"])
        if not _clear(author):
            return None
        day, _, _ = _day(post)
        text = rng.choice(REPLIES)
        return Draft(family=self.name, key=f"post:{post['id']}", writes=True, checks=["{c1.total} == 1"], turns=[
            {"user": [f"Who replied first to our {day} (UTC) post that says \"{phrase}\"?",
                      f"Find our post from {day} containing \"{phrase}\" and tell me who wrote its first reply."],
             "calls": [_find_mine("c1", post, phrase, per_page=2),
                       {"id": "c2", "tool": "get_post_replies", "arguments": {"per_page": 2}, "bind": {"post_id": "{c1.posts.0.id}"}}],
             "facts": [{"name": "first replier", "expr": "{c2.replies.0.author_handle}", "value": None}]},
            {"user": [f"Answer that reply with: \"{text}\"", f"Reply to their reply: \"{text}\""],
             "calls": [{"id": "c3", "tool": "reply_to_post", "arguments": {"text": text}, "bind": {"post_id": "{c2.replies.0.id}"}}],
             "facts": []},
        ])


# ---------------------------------------------------------------- with the help desk and the CRM


class ComplaintTicket(Family):
    """A customer's latest public post mentioning you, matched to their newest Zendesk ticket
    by email: report the ticket and answer the post."""

    name = "cross.social-complaint-ticket"
    servers = (SERVER, "zendesk")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        found = _complainer(view, rng)
        if found is None:
            return None
        user, _ = found
        requester = view.read("zendesk", "search_users", query=user["email"], role="end-user")
        if requester["total"] != 1:
            return None
        tickets = view.read("zendesk", "search_tickets", requester_id=requester["users"][0]["id"], per_page=1)
        if not tickets["total"]:
            return None
        h, text = user["handle"], rng.choice(REPLIES)
        return _draft(self, f"user:{h}", [
            {**_by_handle("c1", user), "server": SERVER},
            {"id": "c2", "server": SERVER, "tool": "search_posts", "arguments": {
                "mentions_user_id": ME, "type": "post", "per_page": 1}, "bind": {"author_id": "{c1.id}"}},
            {"id": "c3", "server": "zendesk", "tool": "search_users", "arguments": {"role": "end-user"}, "bind": {"query": "{c1.email}"}},
            {"id": "c4", "server": "zendesk", "tool": "search_tickets", "arguments": {"per_page": 1},
             "bind": {"requester_id": "{c3.users.0.id}"}},
            {"id": "c5", "server": SERVER, "tool": "reply_to_post", "arguments": {"text": text}, "bind": {"post_id": "{c2.posts.0.id}"}},
        ], [("ticket subject", "{c4.tickets.0.subject}"), ("ticket status", "{c4.tickets.0.status}")], [
            f"@{h} mentioned us publicly. Find their most recent Zendesk ticket (by the email on their account) and tell me its subject and status, then reply to their latest post mentioning us with: \"{text}\"",
            f"Look up @{h}'s newest help-desk ticket using their account email: subject and status, please. Then answer their most recent post that mentions us: \"{text}\"",
        ], writes=True, checks=["{c3.total} == 1"])


class BrandAccountOwner(Family):
    """The CRM account behind a company's brand account: its owner and industry."""

    name = "cross.social-brand-crm-owner"
    servers = (SERVER, "crm")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        brand = rng.choice(_brands(view))
        accounts = view.read("crm", "search_accounts", query=brand["name"], per_page=2)
        if accounts["total"] != 1 or accounts["accounts"][0]["name"] != brand["name"]:
            return None
        h = brand["handle"]
        return _draft(self, f"user:{h}", [
            {**_by_handle("c1", brand), "server": SERVER},
            {"id": "c2", "server": "crm", "tool": "search_accounts", "arguments": {"per_page": 2}, "bind": {"query": "{c1.name}"}},
        ], [("company", "{c1.name}"), ("account owner", "{c2.accounts.0.owner_name}")], [
            f"Which company runs the @{h} account, and who owns that company's account in our CRM?",
            f"@{h} is a brand account. Name the company and its CRM account owner.",
        ], checks=["{c2.total} == 1"])


SOCIAL_FAMILIES: tuple[Family, ...] = (
    Profile(), AccountByEmail(), FindPerson(), LatestFollower(), LatestFollowing(), ThreadReplies(), QuotedAuthor(),
    TimelineTop(), Trending(), MonthlyActivity(), NewestFollowerNotification(), UnreadMessages(), LastMessage(),
    MentionsInMonth(),
    PublishPost(), ReplyToMention(), QuoteBrand(), LikeLatest(), RepostBrand(), TakeBackLike(), DeleteMyPost(),
    EditLatest(), FollowBack(), Unfollow(), BlockSpammer(), UnblockAndFollow(), Mute(), Unmute(),
    DirectMessageFollower(), UpdateBio(),
    DmBlocked(), MentionBlocked(), TooLong(), DeleteOthers(), EditOld(), LikeAgain(), DmClosed(), PostAgain(),
    PostThenEdit(), ThreadThenReply(),
    ComplaintTicket(), BrandAccountOwner(),
)
"""Every social family, the cross-server ones (with the help desk and the CRM) last."""
