"""The chat tools: find channels and people, read and search conversations, and post, react,
pin and manage channels as user 1 does, within the workspace's rules."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from mcpgym.servers.chat.models import (
    ACTING_USER_ID,
    ADMIN_ROLES,
    MAX_GROUP_DM_MEMBERS,
    MAX_NAME_CHARS,
    MAX_PINS,
    MAX_STATUS_TEXT_CHARS,
    MAX_TOPIC_CHARS,
    Channel,
    ChannelKind,
    Membership,
    Message,
    Pin,
    Presence,
    Role,
    User,
)
from mcpgym.servers.chat.text import EMOJI_ARGUMENT, emoji_name, mentioned_ids, name_problem
from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import Body, DateTimeArg, Page, PerPage, Timestamp
from mcpgym.servers.kernel.lookup import missing
from mcpgym.servers.kernel.query import search_words
from mcpgym.servers.kernel.sql import Row, contains_pattern
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry

tools = ToolRegistry()

ME = ACTING_USER_ID
"""The user on whose behalf every tool acts (an account manager, a regular member)."""

Emoji = Annotated[str, Field(pattern=EMOJI_ARGUMENT, description="An emoji name such as 'thumbsup' or ':tada:'.")]
ChannelId = Annotated[int, Field(description="The channel's or direct message's id (find_channel finds a channel by name).")]
MessageId = Annotated[int, Field(description="The message's id (search_messages or get_channel_history finds it).")]
UserId = Annotated[int, Field(description="The user's id (list_users or get_user_by_email finds it).")]
Text = Annotated[Body, Field(min_length=1, description="The message text; mention someone by writing <@USER_ID>.")]
SortOrder = Annotated[Literal["asc", "desc"], Field(description="Oldest first (asc) or newest first (desc).")]
After = Annotated[DateTimeArg | None, Field(description="Only messages posted at or after this time (ISO 8601, UTC).")]
Before = Annotated[DateTimeArg | None, Field(description="Only messages posted strictly before this time (ISO 8601, UTC).")]

CHANNEL_HINT = ("Use find_channel to look a channel up by name or list_channels to browse them; private channels "
                "and direct messages exist only for their members.")
MESSAGE_HINT = "Use search_messages or get_channel_history to find messages in conversations you can see."
USER_HINT = "Use list_users to find people by name, or get_user_by_email."


# ---------------------------------------------------------------- result models


class UserOut(BaseModel):
    id: int
    name: str
    display_name: str
    email: str
    title: str
    organization_name: str = Field(description="Northwind Systems for employees; the customer's company for guests.")
    role: str = Field(description="owner, admin, member or guest (a person outside Northwind).")
    timezone: str
    status_emoji: str = Field(description="Empty when no status is set (or it has expired).")
    status_text: str
    status_expires_at: Timestamp | None
    presence: str = Field(description="active or away.")
    created_at: Timestamp = Field(description="When they joined the workspace.")


class UserPage(BaseModel):
    users: list[UserOut]
    total: int
    page: int
    next_page: int | None


class ChannelSummary(BaseModel):
    id: int
    name: str | None = Field(description="The channel's name without '#'; null for direct messages.")
    kind: str = Field(description="public, private, dm or group_dm.")
    is_archived: bool
    is_member: bool = Field(description="Whether you (user 1) are a member.")
    is_shared: bool = Field(description="A shared customer channel, with guests from the customer.")
    crm_account_id: int | None = Field(description="The CRM account a shared customer channel is about.")
    topic: str
    purpose: str
    member_count: int
    created_at: Timestamp
    last_message_at: Timestamp | None
    participant_names: list[str] = Field(description="For direct messages: the other members' names; empty for channels.")


class PinOut(BaseModel):
    message_id: int
    user_id: int = Field(description="The message's author.")
    user_name: str
    text: str
    posted_at: Timestamp
    pinned_by_id: int
    pinned_by_name: str
    pinned_at: Timestamp


class ChannelDetail(ChannelSummary):
    creator_id: int
    creator_name: str
    archived_at: Timestamp | None
    archived_by_id: int | None
    archived_by_name: str | None
    message_count: int = Field(description="Messages in the conversation, thread replies included.")
    pinned_count: int
    pins: list[PinOut] = Field(description="Pinned messages, most recently pinned first.")


class ChannelPage(BaseModel):
    channels: list[ChannelSummary]
    total: int
    page: int
    next_page: int | None


class MemberOut(BaseModel):
    user_id: int
    name: str
    display_name: str
    title: str
    role: str
    organization_name: str
    joined_at: Timestamp


class MemberPage(BaseModel):
    channel_id: int
    members: list[MemberOut]
    total: int
    page: int
    next_page: int | None


class ReactionOut(BaseModel):
    emoji: str
    count: int
    user_ids: list[int] = Field(description="Who reacted, in the order they did.")


class MentionOut(BaseModel):
    user_id: int
    name: str


class MessageOut(BaseModel):
    id: int
    channel_id: int
    channel_name: str | None = Field(description="Null for direct messages.")
    user_id: int = Field(description="The author.")
    user_name: str
    text: str
    created_at: Timestamp
    edited_at: Timestamp | None
    thread_parent_id: int | None = Field(description="The thread's top-level message, for a reply; null otherwise.")
    reply_count: int
    last_reply_at: Timestamp | None
    is_pinned: bool
    is_deleted: bool = Field(description="A deleted thread starter whose replies remain; its text is gone.")
    reactions: list[ReactionOut]
    mentions: list[MentionOut]


class MessagePage(BaseModel):
    messages: list[MessageOut]
    total: int = Field(description="Messages matching, over all pages.")
    page: int
    next_page: int | None


class ThreadOut(BaseModel):
    root: MessageOut
    replies: list[MessageOut] = Field(description="One page of replies, oldest first.")
    total: int = Field(description="Replies in the thread.")
    page: int
    next_page: int | None


class MentionItem(MessageOut):
    replied: bool = Field(description="Whether the mentioned person has since posted in the message's thread.")


class MentionPage(BaseModel):
    user_id: int
    mentions: list[MentionItem]
    total: int
    page: int
    next_page: int | None


class MemberCount(BaseModel):
    user_id: int
    name: str
    messages: int


class DayCount(BaseModel):
    day: str = Field(description="A UTC date, YYYY-MM-DD.")
    messages: int


class ChannelStats(BaseModel):
    channel_id: int
    channel_name: str | None
    messages: int = Field(description="Messages in the period, thread replies included.")
    top_level_messages: int
    replies: int
    posters: int = Field(description="Distinct people who posted.")
    reactions: int = Field(description="Reactions on the period's messages.")
    first_message_at: Timestamp | None
    last_message_at: Timestamp | None
    per_member: list[MemberCount] = Field(description="The most active posters, most messages first.")
    busiest_days: list[DayCount] = Field(description="The days with the most messages, busiest first.")


class DeletedMessage(BaseModel):
    message_id: int
    channel_id: int
    replies_kept: int = Field(description="Replies left in the thread (the message stays as a deleted placeholder).")


class LeftChannel(BaseModel):
    channel_id: int
    channel_name: str | None
    member_count: int


class Invitation(BaseModel):
    channel_id: int
    channel_name: str | None
    invited: list[MentionOut] = Field(description="People added to the channel.")
    already_members: list[int] = Field(description="User ids that were members already.")
    member_count: int


# ---------------------------------------------------------------- reading conversations

VISIBLE = "(channels.kind = 'public' OR EXISTS (SELECT 1 FROM memberships AS mine WHERE mine.channel_id = channels.id AND mine.user_id = ?))"
"""Conversations user 1 can see (one parameter: ME). Everything else does not exist for them."""

SUMMARY_COLUMNS = (
    "channels.id, channels.name, channels.kind, channels.is_archived, channels.crm_account_id, channels.topic, "
    "channels.purpose, channels.created_at, channels.creator_id, channels.archived_at, channels.archived_by_id, "
    "channels.is_general, "
    "EXISTS (SELECT 1 FROM memberships AS me WHERE me.channel_id = channels.id AND me.user_id = ?) AS is_member, "
    "(SELECT count(*) FROM memberships AS m WHERE m.channel_id = channels.id) AS member_count, "
    "(SELECT max(x.created_at) FROM messages AS x WHERE x.channel_id = channels.id AND x.deleted_at IS NULL) "
    "AS last_message_at"
)
"""A channel's columns and its counts (one parameter: ME)."""

MESSAGE_COLUMNS = (
    "messages.id, messages.channel_id, channels.name AS channel_name, messages.user_id, users.name AS user_name, "
    "messages.text, messages.created_at, messages.edited_at, messages.thread_parent_id, messages.deleted_at, "
    "(SELECT count(*) FROM messages AS r WHERE r.thread_parent_id = messages.id) AS reply_count, "
    "(SELECT max(r.created_at) FROM messages AS r WHERE r.thread_parent_id = messages.id) AS last_reply_at, "
    "EXISTS (SELECT 1 FROM pins WHERE pins.message_id = messages.id) AS is_pinned"
)
MESSAGE_FROM = ("FROM messages JOIN channels ON channels.id = messages.channel_id "
                "JOIN users ON users.id = messages.user_id")


def _label(channel: Row) -> str:
    return f"#{channel['name']}" if channel["name"] else "this direct message"


def _channel_row(ctx: ToolContext, channel_id: int) -> Row:
    """A conversation user 1 can see, with its counts; `NotFoundError` for any other."""
    row = ctx.sql.one(f"SELECT {SUMMARY_COLUMNS} FROM channels WHERE channels.id = ? AND {VISIBLE}",
                      [ME, channel_id, ME], Channel)
    if row is None:
        raise missing("channel", channel_id, CHANNEL_HINT)
    return row


def _participants(ctx: ToolContext, rows: Sequence[Row]) -> dict[int, list[str]]:
    """The other members' names of the direct messages among `rows`, by conversation."""
    ids = [row["id"] for row in rows if row["kind"] in ("dm", "group_dm")]
    names: defaultdict[int, list[str]] = defaultdict(list)
    if ids:
        for row in ctx.sql.all(
                "SELECT memberships.channel_id, users.name FROM memberships JOIN users ON users.id = memberships.user_id "
                "WHERE memberships.channel_id IN (SELECT value FROM json_each(?)) AND memberships.user_id != ? "
                "ORDER BY users.name, users.id", [ids, ME]):
            names[row["channel_id"]].append(row["name"])
    return names


def _summary_fields(row: Row, participants: dict[int, list[str]]) -> Row:
    """A channel row with the summary's derived fields."""
    return {**row, "is_shared": row["crm_account_id"] is not None, "participant_names": participants.get(row["id"], [])}


def _summaries(ctx: ToolContext, rows: Sequence[Row]) -> list[ChannelSummary]:
    participants = _participants(ctx, rows)
    return [ChannelSummary(**_summary_fields(row, participants)) for row in rows]


def _detail(ctx: ToolContext, channel: Row) -> ChannelDetail:
    """A conversation's detail from its summary row: creator, archiver, counts and pins."""
    people = ctx.sql.all(
        "SELECT id, name FROM users WHERE id IN (?, ?)", [channel["creator_id"], channel["archived_by_id"]])
    names = {row["id"]: row["name"] for row in people}
    message_count = ctx.sql.scalar("SELECT count(*) FROM messages WHERE channel_id = ? AND deleted_at IS NULL",
                                   [channel["id"]])
    pins = ctx.sql.all(
        "SELECT pins.message_id, messages.user_id, author.name AS user_name, messages.text, "
        "messages.created_at AS posted_at, pins.pinned_by_id, pinner.name AS pinned_by_name, pins.pinned_at "
        "FROM pins JOIN messages ON messages.id = pins.message_id JOIN users AS author ON author.id = messages.user_id "
        "JOIN users AS pinner ON pinner.id = pins.pinned_by_id WHERE pins.channel_id = ? "
        "ORDER BY pins.pinned_at DESC, pins.message_id DESC", [channel["id"]], Pin)
    return ChannelDetail(
        **_summary_fields(channel, _participants(ctx, [channel])), creator_name=names[channel["creator_id"]],
        archived_by_name=names.get(channel["archived_by_id"]), message_count=message_count,
        pinned_count=len(pins), pins=[PinOut(**pin) for pin in pins],
    )


def _messages(ctx: ToolContext, rows: Sequence[Row]) -> list[MessageOut]:
    """Messages from their rows, with reactions and mentions read in one statement each."""
    ids = [row["id"] for row in rows]
    reactions: defaultdict[int, dict[str, list[int]]] = defaultdict(dict)
    mentions: defaultdict[int, list[MentionOut]] = defaultdict(list)
    if ids:
        for row in ctx.sql.all(
                "SELECT message_id, emoji, user_id FROM reactions WHERE message_id IN (SELECT value FROM json_each(?)) "
                "ORDER BY message_id, (SELECT min(first.created_at) FROM reactions AS first "
                "WHERE first.message_id = reactions.message_id AND first.emoji = reactions.emoji), emoji, "
                "created_at, user_id", [ids]):
            reactions[row["message_id"]].setdefault(row["emoji"], []).append(row["user_id"])
        for row in ctx.sql.all(
                "SELECT mentions.message_id, mentions.user_id, users.name FROM mentions "
                "JOIN users ON users.id = mentions.user_id WHERE mentions.message_id IN (SELECT value FROM json_each(?)) "
                "ORDER BY mentions.message_id, users.name, users.id", [ids]):
            mentions[row["message_id"]].append(MentionOut(user_id=row["user_id"], name=row["name"]))
    return [MessageOut(
        **row, is_deleted=row["deleted_at"] is not None,
        reactions=[ReactionOut(emoji=emoji, count=len(users), user_ids=users)
                   for emoji, users in reactions[row["id"]].items()],
        mentions=mentions[row["id"]]) for row in rows]


def _message_row(ctx: ToolContext, message_id: int, live: bool = True) -> Row:
    """A message in a conversation user 1 can see (not a deleted one, when `live`)."""
    row = ctx.sql.one(f"SELECT {MESSAGE_COLUMNS} {MESSAGE_FROM} WHERE messages.id = ? AND {VISIBLE}",
                      [message_id, ME], Message)
    if row is None:
        raise missing("message", message_id, MESSAGE_HINT)
    if live and row["deleted_at"] is not None:
        raise NotFoundError(f"message {message_id} was deleted. {MESSAGE_HINT}")
    return row


def _message(ctx: ToolContext, message_id: int) -> MessageOut:
    return _messages(ctx, [_message_row(ctx, message_id, live=False)])[0]


def _check_range(after: datetime | None, before: datetime | None, names: tuple[str, str] = ("after", "before")) -> None:
    if after is not None and before is not None and after >= before:
        raise InvalidArgumentError(f"{names[0]} must be earlier than {names[1]}")


def _user_exists(ctx: ToolContext, user_id: int) -> None:
    if ctx.sql.scalar("SELECT 1 FROM users WHERE id = ?", [user_id]) is None:
        raise missing("user", user_id, USER_HINT)


def _message_clauses(
    query: str | None = None, channel_id: int | None = None, from_user_id: int | None = None,
    mentions_user_id: int | None = None, after: datetime | None = None, before: datetime | None = None,
    has_reactions: bool | None = None, is_pinned: bool | None = None, top_level_only: bool = False,
) -> tuple[str, list[Any]]:
    """Filters on visible, not deleted messages as an SQL condition and its parameters."""
    clauses = [VISIBLE, "messages.deleted_at IS NULL"]
    params: list[Any] = [ME]
    for word in search_words(query):
        clauses.append("lower(messages.text) LIKE ? ESCAPE '/'")
        params.append(contains_pattern(word))
    for condition, value in (("messages.channel_id = ?", channel_id), ("messages.user_id = ?", from_user_id),
                             ("messages.id IN (SELECT message_id FROM mentions WHERE user_id = ?)", mentions_user_id),
                             ("messages.created_at >= ?", after), ("messages.created_at < ?", before)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    for condition, value in (("EXISTS (SELECT 1 FROM reactions WHERE reactions.message_id = messages.id)", has_reactions),
                             ("EXISTS (SELECT 1 FROM pins WHERE pins.message_id = messages.id)", is_pinned)):
        if value is not None:
            clauses.append(condition if value else f"NOT {condition}")
    if top_level_only:
        clauses.append("messages.thread_parent_id IS NULL")
    return " AND ".join(clauses), params


def _direction(sort_order: str) -> str:
    return "ASC" if sort_order == "asc" else "DESC"


@tools.tool(examples=[{"query": "sales"}, {"state": "archived", "sort_by": "created_at"},
                      {"kinds": ["dm", "group_dm"], "per_page": 5}])
def list_channels(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Words that must appear in the name, topic or purpose (case-insensitive).")] = None,
    kinds: Annotated[list[ChannelKind] | None, Field(description="Kinds of conversation; default public and private channels.")] = None,
    state: Annotated[Literal["active", "archived", "all"], Field(description="Active channels, archived ones, or both.")] = "active",
    member_only: Annotated[bool, Field(description="Only conversations you are a member of.")] = False,
    shared_only: Annotated[bool, Field(description="Only shared customer channels.")] = False,
    sort_by: Annotated[Literal["name", "created_at", "member_count", "last_message_at"], Field(description="Sort key.")] = "name",
    sort_order: Annotated[Literal["asc", "desc"], Field(description="Sort direction.")] = "asc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> ChannelPage:
    """Browse or search the channels (and, with `kinds`, your direct messages) you can see.

    Private channels and direct messages appear only to their members. Use find_channel when
    you know a channel's exact name.
    """
    clauses = [VISIBLE, "channels.kind IN (SELECT value FROM json_each(?))"]
    params: list[Any] = [ME, kinds or ["public", "private"]]
    for word in search_words(query):
        clauses.append("(lower(coalesce(channels.name, '')) LIKE ? ESCAPE '/' OR lower(channels.topic) LIKE ? ESCAPE '/' "
                       "OR lower(channels.purpose) LIKE ? ESCAPE '/')")
        params += [contains_pattern(word)] * 3
    if state != "all":
        clauses.append("channels.is_archived = ?")
        params.append(state == "archived")
    if member_only:
        clauses.append("EXISTS (SELECT 1 FROM memberships AS mine WHERE mine.channel_id = channels.id AND mine.user_id = ?)")
        params.append(ME)
    if shared_only:
        clauses.append("channels.crm_account_id IS NOT NULL")
    key = {"name": "channels.name", "created_at": "channels.created_at", "member_count": "member_count",
           "last_message_at": "last_message_at"}[sort_by]
    order = f"{key} IS NULL, {key} {_direction(sort_order)}, channels.id ASC"
    found = ctx.sql.page(SUMMARY_COLUMNS, f"FROM channels WHERE {' AND '.join(clauses)} ORDER BY {order}",
                         [ME, *params], page, per_page, Channel)
    return ChannelPage(channels=_summaries(ctx, found.rows), total=found.total, page=page, next_page=found.next_page)


@tools.tool(examples=[{"name": "sales"}, {"name": "#general"}])
def find_channel(
    ctx: ToolContext,
    name: Annotated[str, Field(min_length=1, description="The channel's exact name, with or without '#' (case-insensitive).")],
) -> ChannelDetail:
    """Look up a channel by its name: details, creator, counts and pinned messages.

    Archived channels are found too; private channels only by their members.
    """
    wanted = name.strip().removeprefix("#").lower()
    if not wanted:
        raise InvalidArgumentError("give the channel's name, e.g. 'sales' or '#sales'")
    row = ctx.sql.one(f"SELECT {SUMMARY_COLUMNS} FROM channels WHERE channels.name = ? AND {VISIBLE}",
                      [ME, wanted, ME], Channel)
    if row is None:
        raise NotFoundError(f"no channel named #{wanted[:MAX_NAME_CHARS]} that you can see. {CHANNEL_HINT}")
    return _detail(ctx, row)


@tools.tool(examples=[{"channel_id": 1}])
def get_channel(ctx: ToolContext, channel_id: ChannelId) -> ChannelDetail:
    """Get a channel or direct message by id: topic, purpose, creator, whether it is archived
    and by whom, member and message counts, and its pinned messages."""
    return _detail(ctx, _channel_row(ctx, channel_id))


@tools.tool(examples=[{"channel_id": 10, "sort_by": "joined_at", "sort_order": "desc"}])
def list_channel_members(
    ctx: ToolContext,
    channel_id: ChannelId,
    role: Annotated[Role | None, Field(description="Only members with this workspace role.")] = None,
    sort_by: Annotated[Literal["name", "joined_at"], Field(description="Sort by name or by when they joined.")] = "name",
    sort_order: Annotated[Literal["asc", "desc"], Field(description="Sort direction.")] = "asc",
    page: Page = 1,
    per_page: PerPage = 50,
) -> MemberPage:
    """List the members of a channel or direct message with their title and when they joined."""
    _channel_row(ctx, channel_id)
    clauses, params = ["memberships.channel_id = ?"], [channel_id]
    if role is not None:
        clauses.append("users.role = ?")
        params.append(role)
    key = "users.name" if sort_by == "name" else "memberships.joined_at"
    found = ctx.sql.page(
        "users.id AS user_id, users.name, users.display_name, users.title, users.role, users.organization_name, "
        "memberships.joined_at",
        f"FROM memberships JOIN users ON users.id = memberships.user_id WHERE {' AND '.join(clauses)} "
        f"ORDER BY {key} {_direction(sort_order)}, users.id ASC", params, page, per_page, Membership)
    return MemberPage(channel_id=channel_id, members=[MemberOut(**row) for row in found.rows], total=found.total,
                      page=page, next_page=found.next_page)


@tools.tool(examples=[{"channel_id": 10, "oldest": "2025-09-01", "latest": "2025-10-01"}])
def get_channel_history(
    ctx: ToolContext,
    channel_id: ChannelId,
    oldest: Annotated[DateTimeArg | None, Field(description="Only messages posted at or after this time (ISO 8601, UTC).")] = None,
    latest: Annotated[DateTimeArg | None, Field(description="Only messages posted strictly before this time.")] = None,
    include_replies: Annotated[bool, Field(description="Also list thread replies; by default only top-level messages, each with its reply count.")] = False,
    sort_order: SortOrder = "desc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> MessagePage:
    """Read a conversation's messages in time order (newest first by default), optionally
    within a time range. Deleted thread starters show as placeholders."""
    _check_range(oldest, latest, ("oldest", "latest"))
    _channel_row(ctx, channel_id)
    clauses, params = ["messages.channel_id = ?"], [channel_id]
    for condition, value in (("messages.created_at >= ?", oldest), ("messages.created_at < ?", latest)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    if not include_replies:
        clauses.append("messages.thread_parent_id IS NULL")
    direction = _direction(sort_order)
    found = ctx.sql.page(MESSAGE_COLUMNS, f"{MESSAGE_FROM} WHERE {' AND '.join(clauses)} "
                         f"ORDER BY messages.created_at {direction}, messages.id {direction}", params, page, per_page, Message)
    return MessagePage(messages=_messages(ctx, found.rows), total=found.total, page=page, next_page=found.next_page)


@tools.tool(examples=[{"message_id": 4319}])
def get_thread_replies(
    ctx: ToolContext,
    message_id: Annotated[int, Field(description="A message of the thread: its top-level message or any reply.")],
    page: Page = 1,
    per_page: PerPage = 50,
) -> ThreadOut:
    """Read a thread: its top-level message and one page of its replies, oldest first."""
    row = _message_row(ctx, message_id, live=False)
    root_id = row["thread_parent_id"] or row["id"]
    root = row if root_id == row["id"] else _message_row(ctx, root_id, live=False)
    found = ctx.sql.page(MESSAGE_COLUMNS, f"{MESSAGE_FROM} WHERE messages.thread_parent_id = ? "
                         "ORDER BY messages.created_at, messages.id", [root_id], page, per_page, Message)
    outs = _messages(ctx, [root, *found.rows])
    return ThreadOut(root=outs[0], replies=outs[1:], total=found.total, page=page, next_page=found.next_page)


@tools.tool(examples=[{"query": "renewal", "after": "2025-06-01", "per_page": 10},
                      {"channel_id": 10, "from_user_id": 1, "has_reactions": True}])
def search_messages(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Words that must all appear in the message (case-insensitive).")] = None,
    channel_id: Annotated[int | None, Field(description="Only messages in this conversation.")] = None,
    from_user_id: Annotated[int | None, Field(description="Only messages written by this user.")] = None,
    mentions_user_id: Annotated[int | None, Field(description="Only messages that mention this user.")] = None,
    after: After = None,
    before: Before = None,
    has_reactions: Annotated[bool | None, Field(description="True: only messages with reactions; false: only without.")] = None,
    is_pinned: Annotated[bool | None, Field(description="True: only pinned messages; false: only unpinned ones.")] = None,
    top_level_only: Annotated[bool, Field(description="Leave out thread replies.")] = False,
    sort_order: SortOrder = "desc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> MessagePage:
    """Search messages, replies included, in every conversation you can see: by words,
    conversation, author, mention, time range, reactions and pins; newest first by default."""
    _check_range(after, before)
    if channel_id is not None:
        _channel_row(ctx, channel_id)
    for user_id in (from_user_id, mentions_user_id):
        if user_id is not None:
            _user_exists(ctx, user_id)
    where, params = _message_clauses(query, channel_id, from_user_id, mentions_user_id, after, before,
                                     has_reactions, is_pinned, top_level_only)
    direction = _direction(sort_order)
    found = ctx.sql.page(MESSAGE_COLUMNS, f"{MESSAGE_FROM} WHERE {where} "
                         f"ORDER BY messages.created_at {direction}, messages.id {direction}", params, page, per_page, Message)
    return MessagePage(messages=_messages(ctx, found.rows), total=found.total, page=page, next_page=found.next_page)


@tools.tool(examples=[{}, {"user_id": 5, "after": "2025-01-01", "unreplied_only": True}])
def list_mentions(
    ctx: ToolContext,
    user_id: Annotated[int, Field(description="Whose mentions; default you (user 1).")] = ME,
    channel_id: Annotated[int | None, Field(description="Only mentions in this conversation.")] = None,
    after: After = None,
    before: Before = None,
    unreplied_only: Annotated[bool, Field(description="Only mentions the person has not answered in the message's thread since.")] = False,
    page: Page = 1,
    per_page: PerPage = 25,
) -> MentionPage:
    """Messages that mention a person (you by default), newest first, in conversations you
    can see; each says whether that person has since posted in the message's thread."""
    _check_range(after, before)
    _user_exists(ctx, user_id)
    if channel_id is not None:
        _channel_row(ctx, channel_id)
    where, params = _message_clauses(channel_id=channel_id, mentions_user_id=user_id, after=after, before=before)
    replied = ("EXISTS (SELECT 1 FROM messages AS answer WHERE answer.user_id = ? AND answer.deleted_at IS NULL "
               "AND answer.created_at > messages.created_at "
               "AND answer.thread_parent_id = coalesce(messages.thread_parent_id, messages.id))")
    if unreplied_only:
        where += f" AND NOT {replied}"
        params.append(user_id)
    found = ctx.sql.page(f"{MESSAGE_COLUMNS}, {replied} AS replied",
                         f"{MESSAGE_FROM} WHERE {where} ORDER BY messages.created_at DESC, messages.id DESC",
                         [user_id, *params], page, per_page, Message)
    outs = _messages(ctx, found.rows)
    return MentionPage(user_id=user_id, mentions=[MentionItem(**out.model_dump(), replied=row["replied"])
                                                  for out, row in zip(outs, found.rows)],
                       total=found.total, page=page, next_page=found.next_page)


# ---------------------------------------------------------------- people


def _user_out(ctx: ToolContext, row: Row) -> UserOut:
    """A user as seen now: a status past its expiry reads as no status."""
    expires = row["status_expires_at"]
    if expires is not None and expires <= ctx.now:
        row = {**row, "status_emoji": "", "status_text": "", "status_expires_at": None}
    return UserOut(**row)


def _user_row(ctx: ToolContext, user_id: int) -> Row:
    row = ctx.sql.one("SELECT * FROM users WHERE id = ?", [user_id], User)
    if row is None:
        raise missing("user", user_id, USER_HINT)
    return row


@tools.tool(examples=[{"user_id": 1}, {"user_id": 45}])
def get_user(ctx: ToolContext, user_id: UserId) -> UserOut:
    """Get a person's profile: name, display name, email, title, company, role, time zone,
    status and presence. User 1 is you."""
    return _user_out(ctx, _user_row(ctx, user_id))


@tools.tool(title="Get a user by email", examples=[{"email": "ann.olson@northwindsystems.com"}])
def get_user_by_email(
    ctx: ToolContext,
    email: Annotated[str, Field(min_length=3, description="The exact email address (case-insensitive).")],
) -> UserOut:
    """Look a person up by their exact email address."""
    wanted = email.strip().lower()
    if "@" not in wanted:
        raise InvalidArgumentError(f"{wanted[:160]!r} is not an email address")
    row = ctx.sql.one("SELECT * FROM users WHERE email = ?", [wanted], User)
    if row is None:
        raise NotFoundError(f"no user with email {email.strip()[:160]} in this workspace. {USER_HINT}")
    return _user_out(ctx, row)


@tools.tool(examples=[{"query": "miller"}, {"role": "guest", "per_page": 10}])
def list_users(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Words that must appear in the name, display name, email, title or company.")] = None,
    role: Annotated[Role | None, Field(description="Only people with this role.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> UserPage:
    """Find people in the workspace by name, email, title or company, sorted by name."""
    clauses, params = ["1"], []
    for word in search_words(query):
        clauses.append("(lower(name) LIKE ? ESCAPE '/' OR lower(display_name) LIKE ? ESCAPE '/' OR lower(email) LIKE ? "
                       "ESCAPE '/' OR lower(title) LIKE ? ESCAPE '/' OR lower(organization_name) LIKE ? ESCAPE '/')")
        params += [contains_pattern(word)] * 5
    if role is not None:
        clauses.append("role = ?")
        params.append(role)
    found = ctx.sql.page("*", f"FROM users WHERE {' AND '.join(clauses)} ORDER BY name, id", params, page, per_page, User)
    return UserPage(users=[_user_out(ctx, row) for row in found.rows], total=found.total, page=page,
                    next_page=found.next_page)


@tools.tool(examples=[{"channel_id": 10, "after": "2025-01-01", "before": "2025-07-01"}])
def channel_stats(
    ctx: ToolContext,
    channel_id: ChannelId,
    after: After = None,
    before: Before = None,
    top_members: Annotated[int, Field(ge=1, le=100, description="How many of the most active posters to list.")] = 10,
    top_days: Annotated[int, Field(ge=1, le=100, description="How many of the busiest days to list.")] = 5,
) -> ChannelStats:
    """Activity of a conversation over a period: message, reply and reaction counts, posts
    per member and the busiest days (UTC). Deleted messages are not counted."""
    _check_range(after, before)
    channel = _channel_row(ctx, channel_id)
    clauses, params = ["messages.channel_id = ?", "messages.deleted_at IS NULL"], [channel_id]
    for condition, value in (("messages.created_at >= ?", after), ("messages.created_at < ?", before)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    where = " AND ".join(clauses)
    totals = ctx.sql.one(
        "SELECT count(*) AS messages, count(*) - count(messages.thread_parent_id) AS top_level_messages, "
        "count(messages.thread_parent_id) AS replies, count(DISTINCT messages.user_id) AS posters, "
        "min(messages.created_at) AS first_message_at, max(messages.created_at) AS last_message_at, "
        "(SELECT count(*) FROM reactions WHERE reactions.message_id IN "
        f"(SELECT messages.id FROM messages WHERE {where})) AS reactions FROM messages WHERE {where}", params * 2)
    assert totals is not None
    members = ctx.sql.all(
        f"SELECT messages.user_id, users.name, count(*) AS messages FROM messages JOIN users ON users.id = messages.user_id "
        f"WHERE {where} GROUP BY messages.user_id ORDER BY messages DESC, users.name, messages.user_id LIMIT ?",
        [*params, top_members])
    days = ctx.sql.all(
        f"SELECT substr(messages.created_at, 1, 10) AS day, count(*) AS messages FROM messages WHERE {where} "
        "GROUP BY day ORDER BY messages DESC, day LIMIT ?", [*params, top_days])
    return ChannelStats(channel_id=channel_id, channel_name=channel["name"], **totals,
                        per_member=[MemberCount(**row) for row in members], busiest_days=[DayCount(**row) for row in days])


# ---------------------------------------------------------------- writing


def _writable(channel: Row, action: str) -> None:
    """Refuse changes to an archived channel."""
    if channel["is_archived"]:
        raise ForbiddenError(f"{_label(channel)} is archived, and archived channels are read-only: you cannot {action} "
                             "there until its creator or a workspace admin unarchives it")


def _member_of(channel: Row, action: str) -> None:
    """Refuse writes by a non-member (the channel is public: others never see it)."""
    if not channel["is_member"]:
        raise ForbiddenError(f"you are not a member of {_label(channel)}, and only members {action} in a channel; "
                             "join it first with join_channel")


def _active_member(ctx: ToolContext, channel_id: int, action: str) -> Row:
    """A conversation user 1 may write in: visible, not archived, a member of it."""
    channel = _channel_row(ctx, channel_id)
    _writable(channel, action)
    _member_of(channel, action)
    return channel


def _own(ctx: ToolContext, message: Row, action: str) -> None:
    if message["user_id"] != ME:
        raise ForbiddenError(f"only the author of a message may {action} it; message {message['id']} was written by "
                             f"{message['user_name']} (user {message['user_id']})")


def _text(text: str) -> str:
    if not text.strip():
        raise InvalidArgumentError("the message text is empty; write something")
    return text


def _mentions(ctx: ToolContext, text: str) -> list[int]:
    """The users `text` mentions; `NotFoundError` naming any id that is no user."""
    ids = mentioned_ids(text)
    if len(ids) > 100:
        raise InvalidArgumentError(f"a message may mention at most 100 people; this one mentions {len(ids)}")
    if ids:
        known = set(ctx.sql.column("SELECT id FROM users WHERE id IN (SELECT value FROM json_each(?))", [ids]))
        unknown = [str(user_id) for user_id in ids if user_id not in known]
        if unknown:
            raise NotFoundError(f"the text mentions <@{'>, <@'.join(unknown[:10])}>, which {'is' if len(unknown) == 1 else 'are'} "
                                f"no user. {USER_HINT}")
    return ids


def _set_mentions(ctx: ToolContext, message_id: int, ids: list[int]) -> None:
    if ids:
        ctx.sql.execute("INSERT INTO mentions (message_id, user_id) SELECT ?, value FROM json_each(?)", [message_id, ids])


def _post(ctx: ToolContext, channel_id: int, text: str, parent_id: int | None = None) -> MessageOut:
    """Insert a message by user 1 (checked already) with its mentions, and render it."""
    ids = _mentions(ctx, text)
    message_id = ctx.sql.insert(
        "INSERT INTO messages (channel_id, user_id, text, created_at, edited_at, thread_parent_id, deleted_at) "
        "VALUES (?, ?, ?, ?, NULL, ?, NULL)", [channel_id, ME, text, ctx.now, parent_id])
    _set_mentions(ctx, message_id, ids)
    return _message(ctx, message_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Set my status",
            examples=[{"status_text": "On vacation", "status_emoji": ":palm_tree:", "expires_at": "2025-11-20T09:00:00Z"},
                      {"presence": "active"}])
def set_my_status(
    ctx: ToolContext,
    status_text: Annotated[str | None, Field(max_length=MAX_STATUS_TEXT_CHARS, description="What you are up to; an empty text (with no emoji) clears your status; leave out to keep the status as it is.")] = None,
    status_emoji: Annotated[str | None, Field(pattern=EMOJI_ARGUMENT, description="The status emoji, e.g. ':palm_tree:'; default :speech_balloon: for a status with text.")] = None,
    expires_at: Annotated[DateTimeArg | None, Field(description="When the new status clears itself (ISO 8601, UTC, in the future); default never.")] = None,
    presence: Annotated[Presence | None, Field(description="Your presence; leave out to keep it.")] = None,
) -> UserOut:
    """Set, change or clear your own status (text, emoji, expiry), and set your presence."""
    changes_status = status_text is not None or status_emoji is not None
    if not changes_status and presence is None:
        raise InvalidArgumentError("give a status (status_text, status_emoji) or a presence to set")
    if expires_at is not None and not (status_text or "").strip() and not status_emoji:
        raise InvalidArgumentError("expires_at belongs to a status: give status_text or status_emoji with it")
    if expires_at is not None and expires_at <= ctx.now:
        raise InvalidArgumentError(f"expires_at must be in the future (it is now {ctx.now:%Y-%m-%dT%H:%M:%SZ})")
    before = _user_row(ctx, ME)
    user = dict(before)
    if changes_status:
        text = (status_text or "").strip()
        emoji = f":{emoji_name(status_emoji)}:" if status_emoji else ":speech_balloon:" if text else ""
        user.update(status_text=text, status_emoji=emoji, status_expires_at=expires_at if emoji else None)
    if presence is not None:
        user["presence"] = presence
    ctx.sql.update_row(User, before, user)
    return _user_out(ctx, user)


@tools.tool(writes=True, destructive=False, idempotent=False, title="Post a message", examples=[{"channel_id": 10, "text": "Pipeline review moved to Thursday. <@2> FYI."}])
def post_message(ctx: ToolContext, channel_id: ChannelId, text: Text) -> MessageOut:
    """Post a top-level message in a channel or direct message you are a member of."""
    _active_member(ctx, channel_id, "post")
    return _post(ctx, channel_id, _text(text))


@tools.tool(writes=True, destructive=False, idempotent=False, title="Reply in a thread", examples=[{"message_id": 4319, "text": "Thanks, I will follow up."}])
def reply_in_thread(
    ctx: ToolContext,
    message_id: Annotated[int, Field(description="The thread's top-level message, or any reply in it.")],
    text: Text,
) -> MessageOut:
    """Reply in the thread of a message (a reply to a reply joins the same thread)."""
    row = _message_row(ctx, message_id, live=False)
    _active_member(ctx, row["channel_id"], "reply")
    return _post(ctx, row["channel_id"], _text(text), parent_id=row["thread_parent_id"] or row["id"])


@tools.tool(writes=True, destructive=True, idempotent=True, title="Edit a message", examples=[{"message_id": 4189, "text": "Corrected: the call is on Friday. <@12> FYI."}])
def edit_message(
    ctx: ToolContext,
    message_id: Annotated[int, Field(description="Your message to change.")],
    text: Text,
) -> MessageOut:
    """Replace the text of one of your own messages (marked as edited; mentions follow the new text)."""
    before = _message_row(ctx, message_id)
    _own(ctx, before, "edit")
    _writable(_channel_row(ctx, before["channel_id"]), "edit messages")
    text = _text(text)
    if text != before["text"]:
        ids = _mentions(ctx, text)
        ctx.sql.execute("UPDATE messages SET text = ?, edited_at = ? WHERE id = ?", [text, ctx.now, message_id])
        ctx.sql.execute("DELETE FROM mentions WHERE message_id = ?", [message_id])
        _set_mentions(ctx, message_id, ids)
    return _message(ctx, message_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Delete a message", examples=[{"message_id": 4189}, {"message_id": 4283}])
def delete_message(ctx: ToolContext, message_id: Annotated[int, Field(description="Your message to delete.")]) -> DeletedMessage:
    """Delete one of your own messages with its reactions, mentions and pin. A thread starter
    with replies stays as a deleted placeholder so that the replies remain."""
    message = _message_row(ctx, message_id)
    _own(ctx, message, "delete")
    _writable(_channel_row(ctx, message["channel_id"]), "delete messages")
    for table in ("reactions", "mentions", "pins"):
        ctx.sql.execute(f"DELETE FROM {table} WHERE message_id = ?", [message_id])
    if message["reply_count"]:
        ctx.sql.execute("UPDATE messages SET text = '', deleted_at = ? WHERE id = ?", [ctx.now, message_id])
    else:
        ctx.sql.execute("DELETE FROM messages WHERE id = ?", [message_id])
    return DeletedMessage(message_id=message_id, channel_id=message["channel_id"], replies_kept=message["reply_count"])


@tools.tool(writes=True, destructive=False, idempotent=True, title="React to a message", examples=[{"message_id": 4319, "emoji": ":rocket:"}])
def add_reaction(ctx: ToolContext, message_id: MessageId, emoji: Emoji) -> MessageOut:
    """React to a message with an emoji (reacting again with the same emoji changes nothing)."""
    message = _message_row(ctx, message_id)
    _active_member(ctx, message["channel_id"], "react")
    ctx.sql.execute("INSERT OR IGNORE INTO reactions (message_id, user_id, emoji, created_at) VALUES (?, ?, ?, ?)",
                    [message_id, ME, emoji_name(emoji), ctx.now])
    return _message(ctx, message_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Remove a reaction", examples=[{"message_id": 4424, "emoji": "white_check_mark"}])
def remove_reaction(ctx: ToolContext, message_id: MessageId, emoji: Emoji) -> MessageOut:
    """Take back one of your reactions to a message."""
    message = _message_row(ctx, message_id)
    _writable(_channel_row(ctx, message["channel_id"]), "remove reactions")
    removed = ctx.sql.execute("DELETE FROM reactions WHERE message_id = ? AND user_id = ? AND emoji = ?",
                              [message_id, ME, emoji_name(emoji)])
    if not removed:
        raise InvalidArgumentError(f"you have not reacted to message {message_id} with :{emoji_name(emoji)}:")
    return _message(ctx, message_id)


@tools.tool(writes=True, destructive=False, idempotent=True, title="Pin a message", examples=[{"message_id": 4319}])
def pin_message(ctx: ToolContext, message_id: MessageId) -> MessageOut:
    """Pin a message to its channel, where everyone in it sees the pins (pinning again changes nothing)."""
    message = _message_row(ctx, message_id)
    channel = _active_member(ctx, message["channel_id"], "pin messages")
    if not message["is_pinned"]:
        pinned = ctx.sql.scalar("SELECT count(*) FROM pins WHERE channel_id = ?", [channel["id"]])
        if pinned >= MAX_PINS:
            raise ForbiddenError(f"{_label(channel)} already has {MAX_PINS} pinned messages, the most a channel may "
                                 "hold; unpin one first")
        ctx.sql.execute("INSERT INTO pins (message_id, channel_id, pinned_by_id, pinned_at) VALUES (?, ?, ?, ?)",
                        [message_id, channel["id"], ME, ctx.now])
    return _message(ctx, message_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Unpin a message", examples=[{"message_id": 3827}])
def unpin_message(ctx: ToolContext, message_id: MessageId) -> MessageOut:
    """Unpin a pinned message from its channel."""
    message = _message_row(ctx, message_id)
    _active_member(ctx, message["channel_id"], "unpin messages")
    if not message["is_pinned"]:
        raise InvalidArgumentError(f"message {message_id} is not pinned; get_channel lists a channel's pins")
    ctx.sql.execute("DELETE FROM pins WHERE message_id = ?", [message_id])
    return _message(ctx, message_id)


@tools.tool(writes=True, destructive=False, idempotent=True, title="Create a channel", examples=[{"name": "proj-nimbus", "is_private": True, "topic": "Project Nimbus kickoff"}])
def create_channel(
    ctx: ToolContext,
    name: Annotated[str, Field(min_length=1, description=f"The new channel's name: unique, lowercase letters a-z, digits, '-' and '_', at most {MAX_NAME_CHARS} characters.")],
    is_private: Annotated[bool, Field(description="A private channel, visible to its members only.")] = False,
    topic: Annotated[str, Field(max_length=MAX_TOPIC_CHARS, description="The channel's topic.")] = "",
    purpose: Annotated[str, Field(max_length=MAX_TOPIC_CHARS, description="What the channel is for.")] = "",
) -> ChannelDetail:
    """Create a public or private channel; you become its creator and first member."""
    wanted = name.removeprefix("#")
    problem = name_problem(wanted)
    if problem is not None:
        raise ForbiddenError(f"'{wanted[:MAX_NAME_CHARS]}' cannot be a channel name: {problem}")
    if ctx.sql.scalar("SELECT 1 FROM channels WHERE name = ?", [wanted]) is not None:
        raise ForbiddenError(f"channel names are unique, and #{wanted} is already taken; choose another name")
    channel_id = ctx.sql.insert(
        "INSERT INTO channels (name, kind, is_general, topic, purpose, creator_id, created_at, is_archived, archived_at, "
        "archived_by_id, crm_account_id) VALUES (?, ?, 0, ?, ?, ?, ?, 0, NULL, NULL, NULL)",
        [wanted, "private" if is_private else "public", topic.strip(), purpose.strip(), ME, ctx.now])
    ctx.sql.execute("INSERT INTO memberships (channel_id, user_id, joined_at) VALUES (?, ?, ?)", [channel_id, ME, ctx.now])
    return _detail(ctx, _channel_row(ctx, channel_id))


def _channel_only(channel: Row, action: str) -> None:
    if channel["kind"] not in ("public", "private"):
        raise InvalidArgumentError(f"channel {channel['id']} is a direct message, which you cannot {action}")


@tools.tool(writes=True, destructive=False, idempotent=True, title="Join a channel", examples=[{"channel_id": 3}])
def join_channel(ctx: ToolContext, channel_id: ChannelId) -> ChannelDetail:
    """Join a public channel (joining one you are in changes nothing)."""
    channel = _channel_row(ctx, channel_id)
    _channel_only(channel, "join")
    _writable(channel, "join")
    if not channel["is_member"]:
        ctx.sql.execute("INSERT INTO memberships (channel_id, user_id, joined_at) VALUES (?, ?, ?)", [channel_id, ME, ctx.now])
    return _detail(ctx, _channel_row(ctx, channel_id))


@tools.tool(writes=True, destructive=True, idempotent=True, title="Leave a channel", examples=[{"channel_id": 10}])
def leave_channel(ctx: ToolContext, channel_id: ChannelId) -> LeftChannel:
    """Leave a channel you are a member of. Leaving a private channel hides it from you."""
    channel = _channel_row(ctx, channel_id)
    _channel_only(channel, "leave")
    if channel["is_general"]:
        raise ForbiddenError(f"{_label(channel)} is the workspace's general channel: everyone stays in it, so it cannot be left")
    _writable(channel, "leave")
    if not channel["is_member"]:
        raise InvalidArgumentError(f"you are not a member of {_label(channel)}")
    ctx.sql.execute("DELETE FROM memberships WHERE channel_id = ? AND user_id = ?", [channel_id, ME])
    return LeftChannel(channel_id=channel_id, channel_name=channel["name"], member_count=channel["member_count"] - 1)


@tools.tool(writes=True, destructive=False, idempotent=True, title="Invite people to a channel", examples=[{"channel_id": 10, "user_ids": [7, 8]}])
def invite_to_channel(
    ctx: ToolContext,
    channel_id: ChannelId,
    user_ids: Annotated[list[int], Field(min_length=1, description="The people to add.")],
) -> Invitation:
    """Add people to a channel you are a member of. Guests can join shared customer channels only."""
    channel = _channel_row(ctx, channel_id)
    if channel["kind"] not in ("public", "private"):
        raise InvalidArgumentError("people cannot be added to a direct message; open a group DM with open_dm instead")
    _writable(channel, "invite people")
    _member_of(channel, "invite people")
    wanted = list(dict.fromkeys(user_ids))
    rows = ctx.sql.all(
        "SELECT users.id, users.name, users.role, EXISTS (SELECT 1 FROM memberships WHERE memberships.channel_id = ? "
        "AND memberships.user_id = users.id) AS is_member FROM users WHERE users.id IN (SELECT value FROM json_each(?))",
        [channel_id, wanted])
    found = {row["id"]: row for row in rows}
    unknown = [user_id for user_id in wanted if user_id not in found]
    if unknown:
        raise missing("user", unknown[0], USER_HINT)
    guests = [found[u]["name"] for u in wanted if found[u]["role"] == "guest" and not found[u]["is_member"]]
    if guests and channel["crm_account_id"] is None:
        raise ForbiddenError(f"{', '.join(guests)} {'is a guest' if len(guests) == 1 else 'are guests'} from outside "
                             f"Northwind, and guests can be invited only to shared customer channels; {_label(channel)} is not one")
    new = [u for u in wanted if not found[u]["is_member"]]
    if not new:
        raise InvalidArgumentError(f"everyone named is already a member of {_label(channel)}")
    ctx.sql.execute("INSERT INTO memberships (channel_id, user_id, joined_at) SELECT ?, value, ? FROM json_each(?)",
                    [channel_id, ctx.now, new])
    return Invitation(channel_id=channel_id, channel_name=channel["name"],
                      invited=[MentionOut(user_id=u, name=found[u]["name"]) for u in new],
                      already_members=[u for u in wanted if found[u]["is_member"]],
                      member_count=channel["member_count"] + len(new))


def _may_archive(ctx: ToolContext, channel: Row, action: str) -> None:
    """Refuse (un)archiving by anyone but the channel's creator or an admin; #general never."""
    _channel_only(channel, action)
    if channel["is_general"]:
        raise ForbiddenError(f"{_label(channel)} is the workspace's general channel and cannot be archived")
    if channel["creator_id"] != ME and ctx.sql.scalar("SELECT role FROM users WHERE id = ?", [ME]) not in ADMIN_ROLES:
        creator = ctx.sql.scalar("SELECT name FROM users WHERE id = ?", [channel["creator_id"]])
        raise ForbiddenError(f"only the creator of {_label(channel)} ({creator}) or a workspace admin may {action} it")


@tools.tool(writes=True, destructive=True, idempotent=True, title="Archive a channel", examples=[{"channel_id": 16}])
def archive_channel(ctx: ToolContext, channel_id: ChannelId) -> ChannelDetail:
    """Archive a channel you created: it becomes read-only, keeps its history and members,
    and can be unarchived later."""
    before = _channel_row(ctx, channel_id)
    _may_archive(ctx, before, "archive")
    if before["is_archived"]:
        raise InvalidArgumentError(f"{_label(before)} is already archived")
    ctx.sql.execute("UPDATE channels SET is_archived = 1, archived_at = ?, archived_by_id = ? WHERE id = ?",
                    [ctx.now, ME, channel_id])
    return _detail(ctx, _channel_row(ctx, channel_id))


@tools.tool(writes=True, destructive=True, idempotent=True, title="Unarchive a channel", examples=[{"channel_id": 30}])
def unarchive_channel(ctx: ToolContext, channel_id: ChannelId) -> ChannelDetail:
    """Bring an archived channel you created back into use."""
    before = _channel_row(ctx, channel_id)
    _may_archive(ctx, before, "unarchive")
    if not before["is_archived"]:
        raise InvalidArgumentError(f"{_label(before)} is not archived")
    ctx.sql.execute("UPDATE channels SET is_archived = 0, archived_at = NULL, archived_by_id = NULL WHERE id = ?",
                    [channel_id])
    return _detail(ctx, _channel_row(ctx, channel_id))


def _open_dm(ctx: ToolContext, user_ids: list[int]) -> int:
    """The direct message between user 1 and `user_ids`, made if there is none yet."""
    others = [user_id for user_id in dict.fromkeys(user_ids) if user_id != ME]
    if not others:
        raise InvalidArgumentError("name at least one person other than yourself")
    if len(others) >= MAX_GROUP_DM_MEMBERS:
        raise InvalidArgumentError(f"a group DM holds at most {MAX_GROUP_DM_MEMBERS} people, you included")
    known = set(ctx.sql.column("SELECT id FROM users WHERE id IN (SELECT value FROM json_each(?))", [others]))
    unknown = [user_id for user_id in others if user_id not in known]
    if unknown:
        raise missing("user", unknown[0], USER_HINT)
    members = [ME, *others]
    existing = ctx.sql.scalar(
        "SELECT channels.id FROM channels JOIN memberships ON memberships.channel_id = channels.id "
        "WHERE channels.kind IN ('dm', 'group_dm') GROUP BY channels.id "
        "HAVING count(*) = ? AND sum(memberships.user_id IN (SELECT value FROM json_each(?))) = ? ORDER BY channels.id LIMIT 1",
        [len(members), members, len(members)])
    if existing is not None:
        return int(existing)
    channel_id = ctx.sql.insert(
        "INSERT INTO channels (name, kind, is_general, topic, purpose, creator_id, created_at, is_archived, archived_at, "
        "archived_by_id, crm_account_id) VALUES (NULL, ?, 0, '', '', ?, ?, 0, NULL, NULL, NULL)",
        ["dm" if len(others) == 1 else "group_dm", ME, ctx.now])
    ctx.sql.execute("INSERT INTO memberships (channel_id, user_id, joined_at) SELECT ?, value, ? FROM json_each(?)",
                    [channel_id, ctx.now, members])
    return channel_id


DmPeople = Annotated[list[int], Field(min_length=1, max_length=MAX_GROUP_DM_MEMBERS - 1,
                                      description="The other people in the conversation (one for a DM, up to eight for a group DM).")]


@tools.tool(writes=True, destructive=False, idempotent=True, title="Open a direct message", examples=[{"user_ids": [30, 31]}])
def open_dm(ctx: ToolContext, user_ids: DmPeople) -> ChannelDetail:
    """Open the direct message (one person) or group DM (several) with these people: the
    existing conversation if there is one, else a new one. Post in it with post_message."""
    return _detail(ctx, _channel_row(ctx, _open_dm(ctx, user_ids)))


@tools.tool(writes=True, destructive=False, idempotent=False, title="Send a direct message", examples=[{"user_ids": [7], "text": "Do you have a minute for the renewal?"}])
def send_dm(ctx: ToolContext, user_ids: DmPeople, text: Text) -> MessageOut:
    """Send a direct message to one person, or to a group DM of several, opening the
    conversation if needed."""
    text = _text(text)
    return _post(ctx, _open_dm(ctx, user_ids), text)
