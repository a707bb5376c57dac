"""The social tools: find accounts and posts, read timelines, threads, trends, notifications
and the direct-message inbox, and post, reply, quote, like, repost, follow, block, mute and
message as Northwind Systems' brand account (user 1), within the network's rules."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import DateTimeArg, Page, PerPage, Timestamp
from mcpgym.servers.kernel.lookup import missing
from mcpgym.servers.kernel.query import search_words
from mcpgym.servers.kernel.sql import Row, contains_pattern
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry
from mcpgym.servers.social.models import (
    ACTING_USER_ID,
    DUPLICATE_WINDOW_HOURS,
    EDIT_WINDOW_MINUTES,
    MAX_BIO_CHARS,
    MAX_DM_CHARS,
    MAX_POST_CHARS,
    DirectMessage,
    Notification,
    Post,
    User,
)
from mcpgym.servers.social.text import bare_handle, hashtags, mentioned_handles

tools = ToolRegistry()

ME = ACTING_USER_ID
"""The account every tool acts as: Northwind Systems' brand account, @NorthwindSys."""

UserId = Annotated[int, Field(description="The account's id (get_user_by_handle or search_users finds it).")]
PostId = Annotated[int, Field(description="The post's id (search_posts or get_home_timeline finds it).")]
PostText = Annotated[str, Field(min_length=1, max_length=2000, description=(
    f"The text, at most {MAX_POST_CHARS} characters; mention an account with @handle and tag a topic with #hashtag."))]
Handle = Annotated[str, Field(min_length=1, max_length=16, pattern=r"^\s*@?[A-Za-z0-9_]{1,15}\s*$",
                              description="The account's handle, with or without '@' (case-insensitive).")]
After = Annotated[DateTimeArg | None, Field(description="Only at or after this time (ISO 8601, UTC).")]
Before = Annotated[DateTimeArg | None, Field(description="Only strictly before this time (ISO 8601, UTC).")]
SortOrder = Annotated[Literal["asc", "desc"], Field(description="Oldest first (asc) or newest first (desc).")]

USER_HINT = "Use get_user_by_handle, get_user_by_email or search_users to find an account."
POST_HINT = "Use search_posts or get_home_timeline to find posts."


# ---------------------------------------------------------------- result models


class UserOut(BaseModel):
    id: int
    handle: str = Field(description="The account's @handle, without '@'.")
    name: str = Field(description="The person's or company's name.")
    email: str = Field(description="The email address the account is registered with.")
    organization_name: str = Field(description="The company the person works for (a brand account: the company itself).")
    kind: str = Field(description="person or brand (a company's account).")
    bio: str
    location: str
    website: str
    verified: bool
    dm_policy: str = Field(description="Who may message the account: everyone (open DMs), or followers (only accounts it follows).")
    created_at: Timestamp = Field(description="When the account was created.")
    followers_count: int
    following_count: int
    post_count: int = Field(description="Posts, replies and quotes, deleted ones aside.")
    following: bool = Field(description="Whether you follow this account.")
    followed_by: bool = Field(description="Whether this account follows you.")
    blocking: bool = Field(description="Whether you have blocked this account.")
    blocked_by: bool = Field(description="Whether this account has blocked you.")
    muting: bool = Field(description="Whether you have muted this account.")


class UserItem(UserOut):
    followed_at: Timestamp | None = Field(default=None, description="In follower and following lists: when the follow began.")


class UserPage(BaseModel):
    users: list[UserItem]
    total: int
    page: int
    next_page: int | None


class PostOut(BaseModel):
    id: int
    author_id: int
    author_handle: str
    author_name: str
    text: str
    created_at: Timestamp
    edited_at: Timestamp | None
    in_reply_to_post_id: int | None = Field(description="The post this one replies to; null for a post or quote.")
    in_reply_to_handle: str | None = Field(description="The handle of the author of the post replied to.")
    quoted_post_id: int | None = Field(description="The post this one quotes; null otherwise.")
    like_count: int
    repost_count: int
    reply_count: int
    quote_count: int
    liked_by_me: bool = Field(description="Whether you have liked it.")
    reposted_by_me: bool = Field(description="Whether you have reposted it.")
    hashtags: list[str] = Field(description="Its hashtags, lowercased, without '#'.")
    mentions: list[str] = Field(description="Handles of the accounts it mentions.")


class PostPage(BaseModel):
    posts: list[PostOut]
    total: int = Field(description="Posts matching, over all pages.")
    page: int
    next_page: int | None


class ThreadOut(BaseModel):
    post: PostOut
    replies: list[PostOut] = Field(description="One page of its direct replies, oldest first.")
    total: int = Field(description="Direct replies to the post.")
    page: int
    next_page: int | None


class DeletedPost(BaseModel):
    post_id: int
    replies_kept: int = Field(description="Replies that stay, under a deleted placeholder.")


class NotificationOut(BaseModel):
    id: int
    kind: str = Field(description="like, repost, reply, mention, quote or follow.")
    actor_id: int = Field(description="The account that acted.")
    actor_handle: str
    actor_name: str
    post_id: int | None = Field(description="The post concerned: yours liked, reposted or replied to, or the reply, quote or mention itself.")
    post_text: str | None
    created_at: Timestamp
    read: bool


class NotificationPage(BaseModel):
    notifications: list[NotificationOut]
    total: int
    unread: int = Field(description="Unread notifications matching the filters, over all pages.")
    page: int
    next_page: int | None


class TrendingTag(BaseModel):
    hashtag: str = Field(description="Lowercased, without '#'.")
    post_count: int
    account_count: int = Field(description="Distinct accounts that used it.")


class Trends(BaseModel):
    window_start: Timestamp
    window_end: Timestamp
    hashtags: list[TrendingTag] = Field(description="Most used first (ties: more accounts, then by name).")


class AccountStats(BaseModel):
    user_id: int
    handle: str
    window_start: Timestamp | None
    window_end: Timestamp | None
    posts: int = Field(description="Top-level posts published in the period.")
    replies: int
    quotes: int
    likes_received: int = Field(description="Likes on the period's posts, replies and quotes.")
    reposts_received: int
    replies_received: int = Field(description="Replies by others to the period's posts.")
    new_followers: int = Field(description="Current followers who followed in the period.")
    top_post: PostOut | None = Field(description="The period's most liked post (ties: the earliest).")


class DirectMessageOut(BaseModel):
    id: int
    sender_id: int
    sender_handle: str
    recipient_id: int
    recipient_handle: str
    text: str
    created_at: Timestamp
    read_at: Timestamp | None


class ConversationSummary(BaseModel):
    user_id: int = Field(description="The other account.")
    handle: str
    name: str
    message_count: int
    unread_count: int = Field(description="Messages to you not yet read.")
    last_message_at: Timestamp
    last_message_text: str
    last_sender_id: int


class ConversationPage(BaseModel):
    conversations: list[ConversationSummary]
    total: int
    page: int
    next_page: int | None


class ConversationOut(BaseModel):
    user_id: int
    handle: str
    name: str
    messages: list[DirectMessageOut]
    total: int = Field(description="Messages in the conversation.")
    unread_count: int
    page: int
    next_page: int | None


class FollowOut(BaseModel):
    user: UserOut
    following: bool = Field(description="Whether you follow the account after the call.")


# ---------------------------------------------------------------- accounts

USER_COLUMNS = (
    "users.*, "
    "(SELECT count(*) FROM follows AS f WHERE f.followee_id = users.id) AS followers_count, "
    "(SELECT count(*) FROM follows AS f WHERE f.follower_id = users.id) AS following_count, "
    "(SELECT count(*) FROM posts AS p WHERE p.author_id = users.id AND p.deleted_at IS NULL) AS post_count, "
    "EXISTS (SELECT 1 FROM follows AS f WHERE f.follower_id = ? AND f.followee_id = users.id) AS following, "
    "EXISTS (SELECT 1 FROM follows AS f WHERE f.follower_id = users.id AND f.followee_id = ?) AS followed_by, "
    "EXISTS (SELECT 1 FROM blocks AS b WHERE b.blocker_id = ? AND b.blocked_id = users.id) AS blocking, "
    "EXISTS (SELECT 1 FROM blocks AS b WHERE b.blocker_id = users.id AND b.blocked_id = ?) AS blocked_by, "
    "EXISTS (SELECT 1 FROM mutes AS m WHERE m.muter_id = ? AND m.muted_id = users.id) AS muting"
)
"""An account's columns, counts and relation to you (five parameters: ME)."""
USER_PARAMS = [ME] * 5


def _user_row(ctx: ToolContext, user_id: int) -> Row:
    row = ctx.sql.one(f"SELECT {USER_COLUMNS} FROM users WHERE users.id = ?", [*USER_PARAMS, user_id], User)
    if row is None:
        raise missing("account", user_id, USER_HINT)
    return row


def _other(ctx: ToolContext, user_id: int, action: str) -> Row:
    """An account other than yours, for `action`."""
    if user_id == ME:
        raise InvalidArgumentError(f"account {ME} is you (@NorthwindSys): you cannot {action} yourself")
    return _user_row(ctx, user_id)


def _not_blocked(user: Row, action: str) -> None:
    """Refuse `action` toward an account blocked either way."""
    if user["blocking"]:
        raise ForbiddenError(f"you have blocked @{user['handle']}, and a blocked account cannot be {action}; "
                             "unblock it first (unblock_user)")
    if user["blocked_by"]:
        raise ForbiddenError(f"@{user['handle']} has blocked you, and an account that blocked you cannot be {action}")


@tools.tool(examples=[{"user_id": 1}, {"user_id": 10}])
def get_user(ctx: ToolContext, user_id: UserId) -> UserOut:
    """Get an account's profile: handle, name, company, bio, counts, DM setting, and whether
    you follow, block or mute it and it follows or blocks you. Account 1 is you."""
    return UserOut(**_user_row(ctx, user_id))


@tools.tool(examples=[{"handle": "@NorthwindSys"}])
def get_user_by_handle(ctx: ToolContext, handle: Handle) -> UserOut:
    """Look an account up by its @handle (case-insensitive)."""
    wanted = bare_handle(handle)
    row = ctx.sql.one(f"SELECT {USER_COLUMNS} FROM users WHERE users.handle = ?", [*USER_PARAMS, wanted], User)
    if row is None:
        raise NotFoundError(f"no account with handle @{wanted}. {USER_HINT}")
    return UserOut(**row)


@tools.tool(title="Get a user by email", examples=[{"email": "social@northwindsystems.com"}])
def get_user_by_email(
    ctx: ToolContext,
    email: Annotated[str, Field(min_length=3, description="The exact email address the account is registered with (case-insensitive).")],
) -> UserOut:
    """Look an account up by the email address it is registered with: a person's work email,
    or a company's social@ address."""
    wanted = email.strip()
    if "@" not in wanted:
        raise InvalidArgumentError(f"{wanted[:160]!r} is not an email address")
    row = ctx.sql.one(f"SELECT {USER_COLUMNS} FROM users WHERE users.email = ?", [*USER_PARAMS, wanted], User)
    if row is None:
        raise NotFoundError(f"no account registered with {wanted[:160]}. {USER_HINT}")
    return UserOut(**row)


@tools.tool(examples=[{"query": "smith"}, {"kind": "brand", "sort_by": "followers_count", "per_page": 5}])
def search_users(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Words that must all appear in the handle, name, bio or company (case-insensitive).")] = None,
    kind: Annotated[Literal["person", "brand"] | None, Field(description="Only people's or only companies' accounts.")] = None,
    verified: Annotated[bool | None, Field(description="Only verified (true) or unverified (false) accounts.")] = None,
    sort_by: Annotated[Literal["name", "followers_count", "created_at"], Field(description="Sort key.")] = "name",
    sort_order: Annotated[Literal["asc", "desc"], Field(description="Sort direction.")] = "asc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> UserPage:
    """Find accounts by name, handle, bio or company, optionally only people or brands."""
    clauses, params = ["1"], []
    for word in search_words(query):
        clauses.append("(lower(users.handle) LIKE ? ESCAPE '/' OR lower(users.name) LIKE ? ESCAPE '/' "
                       "OR lower(users.bio) LIKE ? ESCAPE '/' OR lower(users.organization_name) LIKE ? ESCAPE '/')")
        params += [contains_pattern(word.removeprefix("@"))] * 4
    for condition, value in (("users.kind = ?", kind), ("users.verified = ?", verified)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    key = {"name": "users.name", "followers_count": "followers_count", "created_at": "users.created_at"}[sort_by]
    direction = "ASC" if sort_order == "asc" else "DESC"
    found = ctx.sql.page(USER_COLUMNS, f"FROM users WHERE {' AND '.join(clauses)} ORDER BY {key} {direction}, users.id",
                         [*USER_PARAMS, *params], page, per_page, User)
    return UserPage(users=[UserItem(**row) for row in found.rows], total=found.total, page=page, next_page=found.next_page)


def _follow_page(ctx: ToolContext, user_id: int, column: str, other: str, page: int, per_page: int) -> UserPage:
    _user_row(ctx, user_id)
    found = ctx.sql.page(
        f"{USER_COLUMNS}, follows.created_at AS followed_at",
        f"FROM follows JOIN users ON users.id = follows.{other} WHERE follows.{column} = ? "
        "ORDER BY follows.created_at DESC, users.id", [*USER_PARAMS, user_id], page, per_page, User)
    return UserPage(users=[UserItem(**row) for row in found.rows], total=found.total, page=page, next_page=found.next_page)


@tools.tool(examples=[{}, {"user_id": 10, "per_page": 5}])
def list_followers(
    ctx: ToolContext,
    user_id: Annotated[int, Field(description="Whose followers; default you (account 1).")] = ME,
    page: Page = 1,
    per_page: PerPage = 25,
) -> UserPage:
    """The accounts that follow an account (you by default), most recent follow first."""
    return _follow_page(ctx, user_id, "followee_id", "follower_id", page, per_page)


@tools.tool(examples=[{}, {"user_id": 10}])
def list_following(
    ctx: ToolContext,
    user_id: Annotated[int, Field(description="Whose follows; default you (account 1).")] = ME,
    page: Page = 1,
    per_page: PerPage = 25,
) -> UserPage:
    """The accounts an account (you by default) follows, most recent follow first."""
    return _follow_page(ctx, user_id, "follower_id", "followee_id", page, per_page)


# ---------------------------------------------------------------- posts

POST_COLUMNS = (
    "posts.id, posts.author_id, author.handle AS author_handle, author.name AS author_name, posts.text, "
    "posts.created_at, posts.edited_at, posts.in_reply_to_post_id, parent_author.handle AS in_reply_to_handle, "
    "posts.quoted_post_id, posts.deleted_at, "
    "(SELECT count(*) FROM likes WHERE likes.post_id = posts.id) AS like_count, "
    "(SELECT count(*) FROM reposts WHERE reposts.post_id = posts.id) AS repost_count, "
    "(SELECT count(*) FROM posts AS r WHERE r.in_reply_to_post_id = posts.id AND r.deleted_at IS NULL) AS reply_count, "
    "(SELECT count(*) FROM posts AS q WHERE q.quoted_post_id = posts.id AND q.deleted_at IS NULL) AS quote_count, "
    "EXISTS (SELECT 1 FROM likes WHERE likes.post_id = posts.id AND likes.user_id = ?) AS liked_by_me, "
    "EXISTS (SELECT 1 FROM reposts WHERE reposts.post_id = posts.id AND reposts.user_id = ?) AS reposted_by_me"
)
"""A post's columns and counts (two parameters: ME)."""
POST_FROM = ("FROM posts JOIN users AS author ON author.id = posts.author_id "
             "LEFT JOIN posts AS parent ON parent.id = posts.in_reply_to_post_id "
             "LEFT JOIN users AS parent_author ON parent_author.id = parent.author_id")
POST_PARAMS = [ME, ME]
RELATION_COLUMNS = (
    "EXISTS (SELECT 1 FROM blocks WHERE blocker_id = ? AND blocked_id = posts.author_id) AS blocking, "
    "EXISTS (SELECT 1 FROM blocks WHERE blocker_id = posts.author_id AND blocked_id = ?) AS blocked_by"
)


def _post_row(ctx: ToolContext, post_id: int) -> Row:
    """A live post, with its author's relation to you (`blocking`, `blocked_by`)."""
    row = ctx.sql.one(f"SELECT {POST_COLUMNS}, {RELATION_COLUMNS}, author.handle AS handle {POST_FROM} WHERE posts.id = ?",
                      [*POST_PARAMS, ME, ME, post_id], Post)
    if row is None:
        raise missing("post", post_id, POST_HINT)
    if row["deleted_at"] is not None:
        raise NotFoundError(f"post {post_id} was deleted. {POST_HINT}")
    return row


def _posts(ctx: ToolContext, rows: Sequence[Row]) -> list[PostOut]:
    """Posts from their rows, hashtags and mentions read in one statement each."""
    ids = [row["id"] for row in rows]
    tags: defaultdict[int, list[str]] = defaultdict(list)
    mentions: defaultdict[int, list[str]] = defaultdict(list)
    if ids:
        for row in ctx.sql.all("SELECT post_id, tag FROM hashtags WHERE post_id IN (SELECT value FROM json_each(?)) "
                               "ORDER BY post_id, tag", [ids]):
            tags[row["post_id"]].append(row["tag"])
        for row in ctx.sql.all("SELECT mentions.post_id, users.handle FROM mentions JOIN users ON users.id = mentions.user_id "
                               "WHERE mentions.post_id IN (SELECT value FROM json_each(?)) "
                               "ORDER BY mentions.post_id, lower(users.handle)", [ids]):
            mentions[row["post_id"]].append(row["handle"])
    return [PostOut(**row, hashtags=tags[row["id"]], mentions=mentions[row["id"]]) for row in rows]


def _post(ctx: ToolContext, post_id: int) -> PostOut:
    return _posts(ctx, [_post_row(ctx, post_id)])[0]


def _check_range(after: datetime | None, before: datetime | None) -> None:
    if after is not None and before is not None and after >= before:
        raise InvalidArgumentError("after must be earlier than before")


def _tag(value: str) -> str:
    tag = value.strip().removeprefix("#").lower()
    if not tag:
        raise InvalidArgumentError("give a hashtag, e.g. '#devops' or 'devops'")
    return tag


@tools.tool(examples=[{"post_id": 80}])
def get_post(ctx: ToolContext, post_id: PostId) -> PostOut:
    """Get a post (or reply, or quote) with its counts, hashtags and mentions, and whether you
    liked or reposted it."""
    return _post(ctx, post_id)


@tools.tool(examples=[{"query": "exports"}, {"hashtag": "#NorthwindCloud", "author_id": 1, "per_page": 5},
                      {"mentions_user_id": 1, "type": "post", "after": "2025-06-01", "sort_by": "like_count"}])
def search_posts(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Words that must all appear in the text (case-insensitive).")] = None,
    author_id: Annotated[int | None, Field(description="Only posts by this account.")] = None,
    hashtag: Annotated[str | None, Field(max_length=61, description="Only posts with this hashtag (with or without '#').")] = None,
    mentions_user_id: Annotated[int | None, Field(description="Only posts that mention this account.")] = None,
    type: Annotated[Literal["any", "post", "reply", "quote"], Field(description="Only top-level posts, replies or quotes; any by default.")] = "any",
    after: After = None,
    before: Before = None,
    min_likes: Annotated[int | None, Field(ge=0, description="Only posts with at least this many likes.")] = None,
    sort_by: Annotated[Literal["created_at", "like_count", "repost_count"], Field(description="Sort key.")] = "created_at",
    sort_order: SortOrder = "desc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> PostPage:
    """Search posts, replies and quotes by words, author, hashtag, mention, type, time range and
    likes; newest first by default. Deleted posts are never found."""
    _check_range(after, before)
    for user_id in (author_id, mentions_user_id):
        if user_id is not None:
            _user_row(ctx, user_id)
    clauses, params = ["posts.deleted_at IS NULL"], []
    for word in search_words(query):
        clauses.append("lower(posts.text) LIKE ? ESCAPE '/'")
        params.append(contains_pattern(word))
    for condition, value in (
        ("posts.author_id = ?", author_id),
        ("posts.id IN (SELECT post_id FROM hashtags WHERE tag = ?)", None if hashtag is None else _tag(hashtag)),
        ("posts.id IN (SELECT post_id FROM mentions WHERE user_id = ?)", mentions_user_id),
        ("posts.created_at >= ?", after), ("posts.created_at < ?", before),
        ("(SELECT count(*) FROM likes WHERE likes.post_id = posts.id) >= ?", min_likes),
    ):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    clauses.append({"any": "1", "post": "posts.in_reply_to_post_id IS NULL AND posts.quoted_post_id IS NULL",
                    "reply": "posts.in_reply_to_post_id IS NOT NULL", "quote": "posts.quoted_post_id IS NOT NULL"}[type])
    direction = "ASC" if sort_order == "asc" else "DESC"
    key = {"created_at": "posts.created_at", "like_count": "like_count", "repost_count": "repost_count"}[sort_by]
    order = f"{key} {direction}, posts.created_at {direction}, posts.id {direction}"
    found = ctx.sql.page(POST_COLUMNS, f"{POST_FROM} WHERE {' AND '.join(clauses)} ORDER BY {order}",
                         [*POST_PARAMS, *params], page, per_page, Post)
    return PostPage(posts=_posts(ctx, found.rows), total=found.total, page=page, next_page=found.next_page)


@tools.tool(examples=[{"post_id": 80}])
def get_post_replies(ctx: ToolContext, post_id: PostId, page: Page = 1, per_page: PerPage = 25) -> ThreadOut:
    """Read a post and one page of its direct replies, oldest first (a reply's own replies
    are read with this tool on the reply)."""
    root = _post_row(ctx, post_id)
    found = ctx.sql.page(POST_COLUMNS, f"{POST_FROM} WHERE posts.in_reply_to_post_id = ? AND posts.deleted_at IS NULL "
                         "ORDER BY posts.created_at, posts.id", [*POST_PARAMS, post_id], page, per_page, Post)
    outs = _posts(ctx, [root, *found.rows])
    return ThreadOut(post=outs[0], replies=outs[1:], total=found.total, page=page, next_page=found.next_page)


@tools.tool(examples=[{}, {"include_replies": True, "per_page": 10}])
def get_home_timeline(
    ctx: ToolContext,
    include_replies: Annotated[bool, Field(description="Also show replies; by default only posts and quotes.")] = False,
    page: Page = 1,
    per_page: PerPage = 25,
) -> PostPage:
    """Your home timeline: posts by you and the accounts you follow, newest first, without
    accounts you have muted."""
    clauses = ["posts.deleted_at IS NULL",
               "(posts.author_id = ? OR posts.author_id IN (SELECT followee_id FROM follows WHERE follower_id = ?))",
               "posts.author_id NOT IN (SELECT muted_id FROM mutes WHERE muter_id = ?)"]
    if not include_replies:
        clauses.append("posts.in_reply_to_post_id IS NULL")
    found = ctx.sql.page(POST_COLUMNS, f"{POST_FROM} WHERE {' AND '.join(clauses)} "
                         "ORDER BY posts.created_at DESC, posts.id DESC", [*POST_PARAMS, ME, ME, ME], page, per_page, Post)
    return PostPage(posts=_posts(ctx, found.rows), total=found.total, page=page, next_page=found.next_page)


@tools.tool(examples=[{}, {"hours": 72, "limit": 5}])
def trending_hashtags(
    ctx: ToolContext,
    hours: Annotated[int, Field(ge=1, le=720, description="How far back to count, in hours (1-720).")] = 24,
    limit: Annotated[int, Field(ge=1, le=50, description="How many hashtags to list (1-50).")] = 10,
) -> Trends:
    """The hashtags used most in the last hours (posts, replies and quotes alike), with how
    many posts and distinct accounts used each."""
    start = ctx.now - timedelta(hours=hours)
    rows = ctx.sql.all(
        "SELECT hashtags.tag AS hashtag, count(*) AS post_count, count(DISTINCT posts.author_id) AS account_count "
        "FROM hashtags JOIN posts ON posts.id = hashtags.post_id WHERE posts.deleted_at IS NULL "
        "AND posts.created_at >= ? AND posts.created_at <= ? GROUP BY hashtags.tag "
        "ORDER BY post_count DESC, account_count DESC, hashtags.tag LIMIT ?", [start, ctx.now, limit])
    return Trends(window_start=start, window_end=ctx.now, hashtags=[TrendingTag(**row) for row in rows])


@tools.tool(examples=[{"user_id": 1, "after": "2025-10-01", "before": "2025-11-01"}, {"user_id": 10}])
def account_stats(ctx: ToolContext, user_id: UserId, after: After = None, before: Before = None) -> AccountStats:
    """An account's activity in a period (all time by default): posts, replies and quotes it
    published, the likes, reposts and replies they received, new followers, and its most
    liked post."""
    _check_range(after, before)
    user = _user_row(ctx, user_id)
    window = "posts.author_id = ? AND posts.deleted_at IS NULL AND posts.created_at >= ? AND posts.created_at < ?"
    bounds = [user_id, after or datetime(1970, 1, 1), before or datetime(9999, 1, 1)]
    counts = ctx.sql.one(
        "SELECT coalesce(sum(posts.in_reply_to_post_id IS NULL AND posts.quoted_post_id IS NULL), 0) AS posts, "
        "coalesce(sum(posts.in_reply_to_post_id IS NOT NULL), 0) AS replies, "
        "coalesce(sum(posts.quoted_post_id IS NOT NULL), 0) AS quotes, "
        "coalesce(sum((SELECT count(*) FROM likes WHERE likes.post_id = posts.id)), 0) AS likes_received, "
        "coalesce(sum((SELECT count(*) FROM reposts WHERE reposts.post_id = posts.id)), 0) AS reposts_received, "
        "coalesce(sum((SELECT count(*) FROM posts AS r WHERE r.in_reply_to_post_id = posts.id AND r.deleted_at IS NULL "
        "AND r.author_id != posts.author_id)), 0) AS replies_received, "
        "(SELECT count(*) FROM follows WHERE followee_id = ? AND created_at >= ? AND created_at < ?) AS new_followers "
        f"FROM posts WHERE {window}", [*bounds, *bounds])
    top = ctx.sql.one(f"SELECT {POST_COLUMNS} {POST_FROM} WHERE {window} ORDER BY like_count DESC, posts.created_at, posts.id "
                      "LIMIT 1", [*POST_PARAMS, *bounds], Post)
    return AccountStats(user_id=user_id, handle=user["handle"], window_start=after, window_end=before, **counts,  # type: ignore[arg-type]
                        top_post=_posts(ctx, [top])[0] if top else None)


# ---------------------------------------------------------------- writing posts


def _checked_text(ctx: ToolContext, text: str, duplicates: bool = True) -> str:
    """Post text within the length limit, and (with `duplicates`) not one of your posts of
    the last 24 hours."""
    text = text.strip()
    if not text:
        raise InvalidArgumentError("a post needs some text")
    if len(text) > MAX_POST_CHARS:
        raise ForbiddenError(f"posts are limited to {MAX_POST_CHARS} characters and this text has {len(text)} "
                             f"({len(text) - MAX_POST_CHARS} too many); shorten it")
    if duplicates:
        earlier = ctx.sql.scalar(
            "SELECT id FROM posts WHERE author_id = ? AND text = ? AND deleted_at IS NULL AND created_at >= ? "
            "ORDER BY created_at DESC, id DESC LIMIT 1", [ME, text, ctx.now - timedelta(hours=DUPLICATE_WINDOW_HOURS)])
        if earlier is not None:
            raise ForbiddenError(f"you already posted this exact text within the last {DUPLICATE_WINDOW_HOURS} hours "
                                 f"(post {earlier}), and duplicate posts are not allowed; change the wording")
    return text


def _mentioned(ctx: ToolContext, text: str) -> list[int]:
    """The accounts a text mentions (unknown handles stay plain text); refuses a mention of an
    account blocked either way."""
    handles = mentioned_handles(text)
    if not handles:
        return []
    rows = ctx.sql.all(
        "SELECT users.id, users.handle, "
        "EXISTS (SELECT 1 FROM blocks WHERE blocker_id = ? AND blocked_id = users.id) AS blocking, "
        "EXISTS (SELECT 1 FROM blocks WHERE blocker_id = users.id AND blocked_id = ?) AS blocked_by "
        "FROM users WHERE lower(users.handle) IN (SELECT value FROM json_each(?)) ORDER BY users.id", [ME, ME, handles])
    for row in rows:
        _not_blocked(row, "mentioned")
    return [row["id"] for row in rows]


def _publish(ctx: ToolContext, text: str, reply_to: int | None = None, quoted: int | None = None) -> PostOut:
    mentioned = _mentioned(ctx, text)
    post_id = ctx.sql.insert(
        "INSERT INTO posts (author_id, text, created_at, edited_at, in_reply_to_post_id, quoted_post_id, deleted_at) "
        "VALUES (?, ?, ?, NULL, ?, ?, NULL)", [ME, text, ctx.now, reply_to, quoted])
    _index(ctx, post_id, text, mentioned)
    return _post(ctx, post_id)


def _index(ctx: ToolContext, post_id: int, text: str, mentioned: list[int]) -> None:
    """Store a post's mentions and hashtags."""
    if mentioned:
        ctx.sql.execute("INSERT INTO mentions (post_id, user_id) SELECT ?, value FROM json_each(?)", [post_id, mentioned])
    tags = hashtags(text)
    if tags:
        ctx.sql.execute("INSERT INTO hashtags (post_id, tag) SELECT ?, value FROM json_each(?)", [post_id, tags])


@tools.tool(writes=True, destructive=False, idempotent=False, title="Publish a post",
            examples=[{"text": "Our new reporting features are live! #NorthwindCloud"}])
def create_post(ctx: ToolContext, text: PostText) -> PostOut:
    """Publish a post as @NorthwindSys. Mention accounts with @handle, tag topics with
    #hashtag. To answer or quote a post, use reply_to_post or quote_post."""
    return _publish(ctx, _checked_text(ctx, text))


@tools.tool(writes=True, destructive=False, idempotent=False, title="Reply to a post", examples=[{"post_id": 80, "text": "Thanks for sharing this!"}])
def reply_to_post(ctx: ToolContext, post_id: Annotated[int, Field(description="The post to reply to.")], text: PostText) -> PostOut:
    """Reply to a post (or to a reply); the reply joins the post's thread."""
    target = _post_row(ctx, post_id)
    _not_blocked(target, "replied to")
    return _publish(ctx, _checked_text(ctx, text), reply_to=post_id)


@tools.tool(writes=True, destructive=False, idempotent=False, title="Quote a post", examples=[{"post_id": 80, "text": "Worth a read for every ops team."}])
def quote_post(ctx: ToolContext, post_id: Annotated[int, Field(description="The post to quote.")], text: PostText) -> PostOut:
    """Publish a post that quotes another one, with your comment on it."""
    target = _post_row(ctx, post_id)
    _not_blocked(target, "quoted")
    return _publish(ctx, _checked_text(ctx, text), quoted=post_id)


def _own(post: Row, action: str) -> None:
    if post["author_id"] != ME:
        raise ForbiddenError(f"only the author of a post may {action} it, and post {post['id']} is "
                             f"@{post['author_handle']}'s")


@tools.tool(writes=True, destructive=True, idempotent=True, title="Edit a post", examples=[{"post_id": 3914, "text": "Our team is answering questions about the new release in the replies until 6pm UTC. Ask away! #NorthwindCloud"}])
def edit_post(
    ctx: ToolContext,
    post_id: Annotated[int, Field(description="Your post to change.")],
    text: PostText,
) -> PostOut:
    """Replace the text of one of your posts within 60 minutes of posting it (it shows as
    edited; mentions and hashtags follow the new text)."""
    post = _post_row(ctx, post_id)
    _own(post, "edit")
    if ctx.now - post["created_at"] > timedelta(minutes=EDIT_WINDOW_MINUTES):
        raise ForbiddenError(f"a post can be edited only within {EDIT_WINDOW_MINUTES} minutes of posting, and post "
                             f"{post_id} was posted at {post['created_at']:%Y-%m-%d %H:%M} UTC; delete it and post again instead")
    text = _checked_text(ctx, text, duplicates=False)
    if text != post["text"]:
        mentioned = _mentioned(ctx, text)
        ctx.sql.execute("UPDATE posts SET text = ?, edited_at = ? WHERE id = ?", [text, ctx.now, post_id])
        ctx.sql.execute("DELETE FROM mentions WHERE post_id = ?", [post_id])
        ctx.sql.execute("DELETE FROM hashtags WHERE post_id = ?", [post_id])
        _index(ctx, post_id, text, mentioned)
    return _post(ctx, post_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Delete a post", examples=[{"post_id": 5}])
def delete_post(ctx: ToolContext, post_id: Annotated[int, Field(description="Your post to delete.")]) -> DeletedPost:
    """Delete one of your posts (or replies, or quotes) with its likes, reposts, mentions and
    hashtags. Replies to it stay, under a deleted placeholder."""
    post = _post_row(ctx, post_id)
    _own(post, "delete")
    for table in ("likes", "reposts", "mentions", "hashtags", "notifications"):
        ctx.sql.execute(f"DELETE FROM {table} WHERE post_id = ?", [post_id])
    ctx.sql.execute("UPDATE posts SET text = '', deleted_at = ? WHERE id = ?", [ctx.now, post_id])
    return DeletedPost(post_id=post_id, replies_kept=post["reply_count"])


# ---------------------------------------------------------------- likes and reposts


@tools.tool(writes=True, destructive=False, idempotent=True, title="Like a post", examples=[{"post_id": 80}])
def like_post(ctx: ToolContext, post_id: PostId) -> PostOut:
    """Like a post. A post can be liked once: liking it again is refused."""
    post = _post_row(ctx, post_id)
    _not_blocked(post, "liked")
    if post["liked_by_me"]:
        raise ForbiddenError(f"you already like post {post_id}, and a post can be liked only once; "
                             "unlike_post takes the like back")
    ctx.sql.execute("INSERT INTO likes (post_id, user_id, created_at) VALUES (?, ?, ?)", [post_id, ME, ctx.now])
    return _post(ctx, post_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Unlike a post", examples=[{"post_id": 29}])
def unlike_post(ctx: ToolContext, post_id: PostId) -> PostOut:
    """Take back your like of a post."""
    post = _post_row(ctx, post_id)
    if not post["liked_by_me"]:
        raise InvalidArgumentError(f"you have not liked post {post_id}")
    ctx.sql.execute("DELETE FROM likes WHERE post_id = ? AND user_id = ?", [post_id, ME])
    return _post(ctx, post_id)


@tools.tool(writes=True, destructive=False, idempotent=True, title="Repost a post", examples=[{"post_id": 80}])
def repost(ctx: ToolContext, post_id: PostId) -> PostOut:
    """Repost a post to your followers. A post can be reposted once: reposting it again is
    refused."""
    post = _post_row(ctx, post_id)
    _not_blocked(post, "reposted")
    if post["reposted_by_me"]:
        raise ForbiddenError(f"you already reposted post {post_id}, and a post can be reposted only once")
    ctx.sql.execute("INSERT INTO reposts (post_id, user_id, created_at) VALUES (?, ?, ?)", [post_id, ME, ctx.now])
    return _post(ctx, post_id)


# ---------------------------------------------------------------- follows, blocks and mutes


@tools.tool(writes=True, destructive=False, idempotent=True, title="Follow an account", examples=[{"user_id": 2}])
def follow_user(ctx: ToolContext, user_id: UserId) -> FollowOut:
    """Follow an account: its posts join your home timeline."""
    user = _other(ctx, user_id, "follow")
    _not_blocked(user, "followed")
    if user["following"]:
        raise InvalidArgumentError(f"you already follow @{user['handle']}")
    ctx.sql.execute("INSERT INTO follows (follower_id, followee_id, created_at) VALUES (?, ?, ?)", [ME, user_id, ctx.now])
    return FollowOut(user=UserOut(**_user_row(ctx, user_id)), following=True)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Unfollow an account", examples=[{"user_id": 10}])
def unfollow_user(ctx: ToolContext, user_id: UserId) -> FollowOut:
    """Stop following an account."""
    user = _other(ctx, user_id, "unfollow")
    if not user["following"]:
        raise InvalidArgumentError(f"you do not follow @{user['handle']}")
    ctx.sql.execute("DELETE FROM follows WHERE follower_id = ? AND followee_id = ?", [ME, user_id])
    return FollowOut(user=UserOut(**_user_row(ctx, user_id)), following=False)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Block an account", examples=[{"user_id": 10}])
def block_user(ctx: ToolContext, user_id: UserId) -> UserOut:
    """Block an account: any follow between you ends, and neither of you can follow, mention,
    message, reply to, quote, like or repost the other until you unblock it."""
    user = _other(ctx, user_id, "block")
    if user["blocking"]:
        raise InvalidArgumentError(f"you have already blocked @{user['handle']}")
    ctx.sql.execute("DELETE FROM follows WHERE (follower_id = ? AND followee_id = ?) OR (follower_id = ? AND followee_id = ?)",
                    [ME, user_id, user_id, ME])
    ctx.sql.execute("INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES (?, ?, ?)", [ME, user_id, ctx.now])
    return UserOut(**_user_row(ctx, user_id))


@tools.tool(writes=True, destructive=True, idempotent=True, title="Unblock an account", examples=[{"user_id": 45}])
def unblock_user(ctx: ToolContext, user_id: UserId) -> UserOut:
    """Unblock an account you blocked (follows ended by the block do not come back)."""
    user = _other(ctx, user_id, "unblock")
    if not user["blocking"]:
        raise InvalidArgumentError(f"you have not blocked @{user['handle']}")
    ctx.sql.execute("DELETE FROM blocks WHERE blocker_id = ? AND blocked_id = ?", [ME, user_id])
    return UserOut(**_user_row(ctx, user_id))


@tools.tool(writes=True, destructive=False, idempotent=True, title="Mute an account", examples=[{"user_id": 10}])
def mute_user(ctx: ToolContext, user_id: UserId) -> UserOut:
    """Mute an account: its posts leave your home timeline and it sends you no notifications,
    without it knowing; you still follow it if you did."""
    user = _other(ctx, user_id, "mute")
    if user["muting"]:
        raise InvalidArgumentError(f"you have already muted @{user['handle']}")
    ctx.sql.execute("INSERT INTO mutes (muter_id, muted_id, created_at) VALUES (?, ?, ?)", [ME, user_id, ctx.now])
    return UserOut(**_user_row(ctx, user_id))


@tools.tool(writes=True, destructive=True, idempotent=True, title="Unmute an account", examples=[{"user_id": 101}])
def unmute_user(ctx: ToolContext, user_id: UserId) -> UserOut:
    """Unmute an account you muted: its posts and notifications reach you again."""
    user = _other(ctx, user_id, "unmute")
    if not user["muting"]:
        raise InvalidArgumentError(f"you have not muted @{user['handle']}")
    ctx.sql.execute("DELETE FROM mutes WHERE muter_id = ? AND muted_id = ?", [ME, user_id])
    return UserOut(**_user_row(ctx, user_id))


@tools.tool(writes=True, destructive=True, idempotent=True, title="Edit your profile", examples=[{"bio": "Northwind Systems: product news and support, 24/7.", "dm_policy": "followers"}])
def update_profile(
    ctx: ToolContext,
    name: Annotated[str | None, Field(min_length=1, max_length=50, description="The name shown on the profile.")] = None,
    bio: Annotated[str | None, Field(max_length=MAX_BIO_CHARS, description=f"The bio, at most {MAX_BIO_CHARS} characters.")] = None,
    location: Annotated[str | None, Field(max_length=80, description="The location shown on the profile.")] = None,
    website: Annotated[str | None, Field(max_length=120, description="The website shown on the profile.")] = None,
    dm_policy: Annotated[Literal["everyone", "followers"] | None, Field(description="Who may message you: everyone, or only accounts you follow.")] = None,
) -> UserOut:
    """Change your profile: name, bio, location, website, and who may send you direct messages."""
    given = {k: v.strip() if isinstance(v, str) else v for k, v in
             {"name": name, "bio": bio, "location": location, "website": website, "dm_policy": dm_policy}.items() if v is not None}
    if not given:
        raise InvalidArgumentError("give at least one of name, bio, location, website or dm_policy")
    if given.get("name") == "":
        raise InvalidArgumentError("the profile name cannot be blank")
    before = ctx.sql.one("SELECT * FROM users WHERE id = ?", [ME], User)
    assert before is not None
    ctx.sql.update_row(User, before, {**before, **given})
    return UserOut(**_user_row(ctx, ME))


# ---------------------------------------------------------------- notifications and direct messages


@tools.tool(examples=[{}, {"kind": "mention", "unread_only": True}])
def list_notifications(
    ctx: ToolContext,
    kind: Annotated[Literal["like", "repost", "reply", "mention", "quote", "follow"] | None, Field(description="Only this kind.")] = None,
    unread_only: Annotated[bool, Field(description="Only notifications not yet read.")] = False,
    page: Page = 1,
    per_page: PerPage = 25,
) -> NotificationPage:
    """Your notifications of the last 60 days, newest first: likes, reposts, replies, mentions,
    quotes and new followers, without accounts you have muted."""
    clauses = ["notifications.user_id = ?", "notifications.actor_id NOT IN (SELECT muted_id FROM mutes WHERE muter_id = ?)"]
    params: list[Any] = [ME, ME]
    if kind is not None:
        clauses.append("notifications.kind = ?")
        params.append(kind)
    where = " AND ".join(clauses)
    unread_clause = " AND notifications.read = 0" if unread_only else ""
    found = ctx.sql.page(
        "notifications.*, actor.handle AS actor_handle, actor.name AS actor_name, posts.text AS post_text, "
        f"(SELECT count(*) FROM notifications WHERE {where} AND notifications.read = 0) AS unread",
        f"FROM notifications JOIN users AS actor ON actor.id = notifications.actor_id "
        f"LEFT JOIN posts ON posts.id = notifications.post_id WHERE {where}{unread_clause} "
        "ORDER BY notifications.created_at DESC, notifications.id DESC", [*params, *params], page, per_page, Notification)
    unread = found.rows[0]["unread"] if found.rows else ctx.sql.scalar(
        f"SELECT count(*) FROM notifications WHERE {where} AND notifications.read = 0", params)
    return NotificationPage(notifications=[NotificationOut(**row) for row in found.rows], total=found.total, unread=unread,
                            page=page, next_page=found.next_page)


CONVERSATIONS = (
    "FROM (SELECT CASE WHEN sender_id = ? THEN recipient_id ELSE sender_id END AS other_id, direct_messages.* "
    "FROM direct_messages WHERE sender_id = ? OR recipient_id = ?) AS dm JOIN users ON users.id = dm.other_id"
)


@tools.tool(examples=[{}, {"unread_only": True}])
def list_conversations(
    ctx: ToolContext,
    unread_only: Annotated[bool, Field(description="Only conversations with messages to you not yet read.")] = False,
    page: Page = 1,
    per_page: PerPage = 25,
) -> ConversationPage:
    """Your direct-message inbox: one entry per account you have exchanged messages with,
    the most recent conversation first, with unread counts and the last message."""
    having = " HAVING unread_count > 0" if unread_only else ""
    found = ctx.sql.page(
        "dm.other_id AS user_id, users.handle, users.name, count(*) AS message_count, "
        "sum(dm.recipient_id = ? AND dm.read_at IS NULL) AS unread_count, max(dm.created_at) AS last_message_at, "
        "(SELECT x.text FROM direct_messages AS x WHERE (x.sender_id = ? AND x.recipient_id = dm.other_id) OR "
        "(x.sender_id = dm.other_id AND x.recipient_id = ?) ORDER BY x.created_at DESC, x.id DESC LIMIT 1) AS last_message_text, "
        "(SELECT x.sender_id FROM direct_messages AS x WHERE (x.sender_id = ? AND x.recipient_id = dm.other_id) OR "
        "(x.sender_id = dm.other_id AND x.recipient_id = ?) ORDER BY x.created_at DESC, x.id DESC LIMIT 1) AS last_sender_id",
        f"{CONVERSATIONS} GROUP BY dm.other_id{having} ORDER BY last_message_at DESC, dm.other_id",
        [ME] * 8, page, per_page)
    return ConversationPage(conversations=[ConversationSummary(**row) for row in found.rows], total=found.total, page=page,
                            next_page=found.next_page)


DM_COLUMNS = ("direct_messages.*, sender.handle AS sender_handle, recipient.handle AS recipient_handle")
DM_FROM = ("FROM direct_messages JOIN users AS sender ON sender.id = direct_messages.sender_id "
           "JOIN users AS recipient ON recipient.id = direct_messages.recipient_id")


@tools.tool(examples=[{"user_id": 10}])
def get_conversation(
    ctx: ToolContext,
    user_id: Annotated[int, Field(description="The other account of the conversation.")],
    sort_order: SortOrder = "desc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> ConversationOut:
    """Read your direct messages with one account, newest first by default (empty if you
    have never exchanged any). Reading does not mark them read."""
    user = _other(ctx, user_id, "message")
    direction = "ASC" if sort_order == "asc" else "DESC"
    found = ctx.sql.page(
        f"{DM_COLUMNS}, (SELECT count(*) FROM direct_messages AS u WHERE u.sender_id = ? AND u.recipient_id = ? "
        "AND u.read_at IS NULL) AS unread",
        f"{DM_FROM} WHERE (direct_messages.sender_id = ? AND direct_messages.recipient_id = ?) OR "
        f"(direct_messages.sender_id = ? AND direct_messages.recipient_id = ?) "
        f"ORDER BY direct_messages.created_at {direction}, direct_messages.id {direction}",
        [user_id, ME, ME, user_id, user_id, ME], page, per_page, DirectMessage)
    unread = found.rows[0]["unread"] if found.rows else ctx.sql.scalar(
        "SELECT count(*) FROM direct_messages WHERE sender_id = ? AND recipient_id = ? AND read_at IS NULL", [user_id, ME])
    return ConversationOut(user_id=user_id, handle=user["handle"], name=user["name"],
                           messages=[DirectMessageOut(**row) for row in found.rows], total=found.total,
                           unread_count=unread, page=page, next_page=found.next_page)


@tools.tool(writes=True, destructive=False, idempotent=False, title="Send a direct message", examples=[{"user_id": 9, "text": "Thanks for reaching out! How can we help?"}])
def send_direct_message(
    ctx: ToolContext,
    user_id: Annotated[int, Field(description="The account to message.")],
    text: Annotated[str, Field(min_length=1, max_length=MAX_DM_CHARS, description="The message.")],
) -> DirectMessageOut:
    """Send a direct message to an account that follows you or accepts messages from everyone.
    Sending also marks the conversation's messages to you as read."""
    user = _other(ctx, user_id, "message")
    _not_blocked(user, "messaged")
    if not user["followed_by"] and user["dm_policy"] != "everyone":
        raise ForbiddenError(f"@{user['handle']} accepts direct messages only from accounts it follows, and it does not "
                             "follow you; mention or reply to it publicly instead")
    text = text.strip()
    if not text:
        raise InvalidArgumentError("a message needs some text")
    ctx.sql.execute("UPDATE direct_messages SET read_at = ? WHERE sender_id = ? AND recipient_id = ? AND read_at IS NULL",
                    [ctx.now, user_id, ME])
    message_id = ctx.sql.insert("INSERT INTO direct_messages (sender_id, recipient_id, text, created_at, read_at) "
                                "VALUES (?, ?, ?, ?, NULL)", [ME, user_id, text, ctx.now])
    row = ctx.sql.one(f"SELECT {DM_COLUMNS} {DM_FROM} WHERE direct_messages.id = ?", [message_id], DirectMessage)
    assert row is not None
    return DirectMessageOut(**row)
