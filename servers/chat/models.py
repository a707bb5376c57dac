"""The chat schema: users, channels and direct conversations, memberships, messages with
threads, mentions, reactions and pins.

Linking rules with the shared world (`mcpgym.servers.kernel.world`) and the CRM:
- users are the employees of the home organisation (`org_000`, Northwind Systems), in world
  order (user 1 is the first employee), then guests: people of key customer organisations
  invited to their shared channel. `external_id` is the person id (`per_0007`); name, email,
  title (the world's job title), timezone and organisation name are the world's, unchanged;
- a shared customer channel (`#acct-<account>`) carries the CRM account it is about in
  `crm_account_id` (`accounts.id` of the CRM's seeded database of the same seed); it is
  created by the account's CRM owner, and its guests are people of the account's organisation;
- direct messages are channels of kind `dm` (two members) or `group_dm` (three to nine), with
  no name.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

ACTING_USER_ID = 1
"""The user every tool acts as: the first employee, an account manager and a regular member."""
Role = Literal["owner", "admin", "member", "guest"]
"""Workspace roles: owners and admins administer the workspace; guests are outside Northwind."""
ADMIN_ROLES: tuple[Role, ...] = ("owner", "admin")
ChannelKind = Literal["public", "private", "dm", "group_dm"]
"""Public and private channels have a name; direct messages (dm, group_dm) have none."""
Presence = Literal["active", "away"]

MAX_NAME_CHARS = 80
MAX_TOPIC_CHARS = 250
MAX_STATUS_TEXT_CHARS = 100
MAX_GROUP_DM_MEMBERS = 9
"""Members of a group DM, you included (Slack's limit)."""
MAX_PINS = 100
"""Pinned messages a channel may hold."""


class Base(DeclarativeBase):
    """Declarative base of the chat schema."""


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(120), index=True)
    display_name: Mapped[str] = mapped_column(String(80))
    email: Mapped[str] = mapped_column(String(160), unique=True)
    title: Mapped[str] = mapped_column(String(120))
    organization_name: Mapped[str] = mapped_column(String(120))
    role: Mapped[str] = mapped_column(String(16))
    timezone: Mapped[str] = mapped_column(String(40))
    status_emoji: Mapped[str] = mapped_column(String(60), default="")
    status_text: Mapped[str] = mapped_column(String(MAX_STATUS_TEXT_CHARS), default="")
    status_expires_at: Mapped[datetime | None]
    presence: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime]


class Channel(Base):
    """A conversation: a public or private channel, a DM or a group DM."""

    __tablename__ = "channels"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str | None] = mapped_column(String(MAX_NAME_CHARS), unique=True)
    kind: Mapped[str] = mapped_column(String(16), index=True)
    is_general: Mapped[bool] = mapped_column(default=False)
    topic: Mapped[str] = mapped_column(String(MAX_TOPIC_CHARS), default="")
    purpose: Mapped[str] = mapped_column(String(MAX_TOPIC_CHARS), default="")
    creator_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime]
    is_archived: Mapped[bool] = mapped_column(default=False)
    archived_at: Mapped[datetime | None]
    archived_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    crm_account_id: Mapped[int | None] = mapped_column(index=True)
    """The CRM account a shared customer channel is about (`accounts.id` in the CRM)."""


class Membership(Base):
    __tablename__ = "memberships"
    __table_args__ = (Index("ix_memberships_user", "user_id", "channel_id"),)

    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    joined_at: Mapped[datetime]


class Message(Base):
    """A message in a conversation; a reply names the top-level message of its thread."""

    __tablename__ = "messages"
    __table_args__ = (Index("ix_messages_channel_created", "channel_id", "created_at", "deleted_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(index=True)
    edited_at: Mapped[datetime | None]
    thread_parent_id: Mapped[int | None] = mapped_column(ForeignKey("messages.id"), index=True)
    deleted_at: Mapped[datetime | None]
    """Set when a thread's top-level message is deleted: its replies stay, its text is gone."""


class Mention(Base):
    __tablename__ = "mentions"

    message_id: Mapped[int] = mapped_column(ForeignKey("messages.id"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True, index=True)


class Reaction(Base):
    __tablename__ = "reactions"

    message_id: Mapped[int] = mapped_column(ForeignKey("messages.id"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    emoji: Mapped[str] = mapped_column(String(60), primary_key=True)
    created_at: Mapped[datetime]


class Pin(Base):
    __tablename__ = "pins"

    message_id: Mapped[int] = mapped_column(ForeignKey("messages.id"), primary_key=True)
    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id"), index=True)
    pinned_by_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    pinned_at: Mapped[datetime]
