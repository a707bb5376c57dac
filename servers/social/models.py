"""The social schema: accounts, posts (with replies and quotes), likes, reposts, follows,
mentions, hashtags, blocks and mutes, direct messages and notifications.

Linking rules with the shared world (`mcpgym.servers.kernel.world`):
- a person's account carries the person's name, registered email and organisation name
  unchanged, and the person id in `external_id` (`per_0007`); a brand account is an
  organisation's (`org_012`), registered with `social@<domain>`;
- account 1 is Northwind Systems' own brand account, the one every tool acts as.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

ACTING_USER_ID = 1
"""The account every tool acts as: Northwind Systems' brand account."""
MAX_POST_CHARS = 280
"""The longest post, reply or quote, in characters."""
EDIT_WINDOW_MINUTES = 60
"""How long after posting a post may be edited."""
DUPLICATE_WINDOW_HOURS = 24
"""An account may not publish the same text twice within this many hours."""
MAX_HANDLE_CHARS = 15
MAX_BIO_CHARS = 160
MAX_DM_CHARS = 10_000

KINDS = ("person", "brand")
DM_POLICIES = ("everyone", "followers")
"""Who may send an account direct messages: anyone (open DMs), or only the accounts it follows."""
NOTIFICATION_KINDS = ("like", "repost", "reply", "mention", "quote", "follow")


class Base(DeclarativeBase):
    """Declarative base of the social schema."""


class User(Base):
    """An account: a person's or an organisation's (brand)."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str] = mapped_column(String(16), unique=True)
    handle: Mapped[str] = mapped_column(String(MAX_HANDLE_CHARS, collation="NOCASE"), unique=True)
    name: Mapped[str] = mapped_column(String(120), index=True)
    email: Mapped[str] = mapped_column(String(160, collation="NOCASE"), unique=True)
    organization_name: Mapped[str] = mapped_column(String(120))
    kind: Mapped[str] = mapped_column(String(16))
    bio: Mapped[str] = mapped_column(String(MAX_BIO_CHARS), default="")
    location: Mapped[str] = mapped_column(String(80), default="")
    website: Mapped[str] = mapped_column(String(120), default="")
    verified: Mapped[bool] = mapped_column(default=False)
    dm_policy: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime]


class Post(Base):
    """A post; a reply names the post it answers, a quote the post it quotes. A deleted post
    keeps its row (so that replies still know their thread) but loses its text."""

    __tablename__ = "posts"
    __table_args__ = (Index("ix_posts_author_created", "author_id", "created_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(index=True)
    edited_at: Mapped[datetime | None]
    in_reply_to_post_id: Mapped[int | None] = mapped_column(ForeignKey("posts.id"), index=True)
    quoted_post_id: Mapped[int | None] = mapped_column(ForeignKey("posts.id"), index=True)
    deleted_at: Mapped[datetime | None]


class Like(Base):
    __tablename__ = "likes"

    post_id: Mapped[int] = mapped_column(ForeignKey("posts.id"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True, index=True)
    created_at: Mapped[datetime]


class Repost(Base):
    __tablename__ = "reposts"

    post_id: Mapped[int] = mapped_column(ForeignKey("posts.id"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True, index=True)
    created_at: Mapped[datetime]


class Follow(Base):
    __tablename__ = "follows"
    __table_args__ = (Index("ix_follows_followee", "followee_id", "follower_id"),)

    follower_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    followee_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    created_at: Mapped[datetime]


class Block(Base):
    __tablename__ = "blocks"

    blocker_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    blocked_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True, index=True)
    created_at: Mapped[datetime]


class Mute(Base):
    __tablename__ = "mutes"

    muter_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    muted_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    created_at: Mapped[datetime]


class Mention(Base):
    __tablename__ = "mentions"

    post_id: Mapped[int] = mapped_column(ForeignKey("posts.id"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True, index=True)


class Hashtag(Base):
    """A hashtag of a post, lowercased, without '#'."""

    __tablename__ = "hashtags"

    post_id: Mapped[int] = mapped_column(ForeignKey("posts.id"), primary_key=True)
    tag: Mapped[str] = mapped_column(String(60), primary_key=True, index=True)


class DirectMessage(Base):
    """A direct message between two accounts."""

    __tablename__ = "direct_messages"
    __table_args__ = (Index("ix_dms_pair", "sender_id", "recipient_id", "created_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    sender_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    recipient_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime]
    read_at: Mapped[datetime | None]


class Notification(Base):
    """Something that happened to an account: a like, repost, reply, mention, quote or follow."""

    __tablename__ = "notifications"
    __table_args__ = (Index("ix_notifications_user_created", "user_id", "created_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    kind: Mapped[str] = mapped_column(String(16))
    actor_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    post_id: Mapped[int | None] = mapped_column(ForeignKey("posts.id"))
    created_at: Mapped[datetime]
    read: Mapped[bool] = mapped_column(default=False)
