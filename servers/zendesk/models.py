"""The Zendesk schema: organisations, users, groups, tickets, tags, comments, ratings, macros."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

TICKET_STATUSES = ("new", "open", "pending", "hold", "solved", "closed")
PRIORITIES = ("low", "normal", "high", "urgent")
TICKET_TYPES = ("question", "incident", "problem", "task")
CHANNELS = ("email", "web", "chat", "phone", "api")
ROLES = ("end-user", "agent", "admin")


class Base(DeclarativeBase):
    """Declarative base of the Zendesk schema."""


class Organization(Base):
    __tablename__ = "organizations"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str | None] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(120), unique=True)
    domain: Mapped[str] = mapped_column(String(120))
    industry: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime]


class Group(Base):
    __tablename__ = "groups"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    description: Mapped[str] = mapped_column(String(200))


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str | None] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(120), index=True)
    email: Mapped[str] = mapped_column(String(160), unique=True)
    role: Mapped[str] = mapped_column(String(16))
    phone: Mapped[str | None] = mapped_column(String(32))
    timezone: Mapped[str] = mapped_column(String(40))
    organization_id: Mapped[int | None] = mapped_column(ForeignKey("organizations.id"))
    default_group_id: Mapped[int | None] = mapped_column(ForeignKey("groups.id"))
    created_at: Mapped[datetime]
    last_login_at: Mapped[datetime | None]
    suspended: Mapped[bool] = mapped_column(default=False)


class Ticket(Base):
    __tablename__ = "tickets"
    __table_args__ = (Index("ix_tickets_created", "created_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    subject: Mapped[str] = mapped_column(String(200))
    description: Mapped[str]
    status: Mapped[str] = mapped_column(String(16), index=True)
    priority: Mapped[str] = mapped_column(String(16))
    type: Mapped[str] = mapped_column(String(16))
    channel: Mapped[str] = mapped_column(String(16))
    requester_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    assignee_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)
    group_id: Mapped[int | None] = mapped_column(ForeignKey("groups.id"))
    organization_id: Mapped[int | None] = mapped_column(ForeignKey("organizations.id"))
    merged_into_id: Mapped[int | None] = mapped_column(ForeignKey("tickets.id"))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    solved_at: Mapped[datetime | None]

    tags: Mapped[list[TicketTag]] = relationship(
        cascade="all, delete-orphan", order_by="TicketTag.tag", lazy="selectin"
    )


class TicketTag(Base):
    __tablename__ = "ticket_tags"

    ticket_id: Mapped[int] = mapped_column(ForeignKey("tickets.id"), primary_key=True)
    tag: Mapped[str] = mapped_column(String(40), primary_key=True, index=True)


class Comment(Base):
    __tablename__ = "comments"

    id: Mapped[int] = mapped_column(primary_key=True)
    ticket_id: Mapped[int] = mapped_column(ForeignKey("tickets.id"), index=True)
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    body: Mapped[str]
    public: Mapped[bool]
    created_at: Mapped[datetime]


class SatisfactionRating(Base):
    __tablename__ = "satisfaction_ratings"
    __table_args__ = (UniqueConstraint("ticket_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    ticket_id: Mapped[int] = mapped_column(ForeignKey("tickets.id"))
    score: Mapped[int]
    comment: Mapped[str | None]
    created_at: Mapped[datetime]


class Macro(Base):
    __tablename__ = "macros"

    id: Mapped[int] = mapped_column(primary_key=True)
    title: Mapped[str] = mapped_column(String(120), unique=True)
    description: Mapped[str] = mapped_column(String(240))
    actions: Mapped[dict[str, object]] = mapped_column(JSON)
    active: Mapped[bool] = mapped_column(default=True)
