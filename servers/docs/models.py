"""The wiki schema: users, spaces, pages in a tree, page versions, comments, labels and
page restrictions.

Links to the shared world and to other servers:
- `users` are the employees of the home company, in world order (user id = index + 1), with
  their world id in `external_id` and their name, email, job title and timezone copied exactly;
- `pages.source_ticket_id` is the id of the Zendesk ticket (`zendesk.tickets.id`, same seed) a
  known-issue article of the Support space was written from.

A page's title and version number are those of its current (latest) version; every version's
title, body, author and change message stay in `page_versions`.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

RESTRICTION_OPERATIONS = ("view", "edit")

ACTING_USER_ID = 1
"""The user every tool acts as (the first employee of the world, in Support): what they may
view and edit decides what the tools show and allow."""


class Base(DeclarativeBase):
    """Declarative base of the wiki schema."""


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(120), index=True)
    email: Mapped[str] = mapped_column(String(160), unique=True)
    job_title: Mapped[str] = mapped_column(String(120))
    department: Mapped[str] = mapped_column(String(40))
    timezone: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime]


class Space(Base):
    __tablename__ = "spaces"

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(10), unique=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    description: Mapped[str] = mapped_column(String(300))
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime]


class Page(Base):
    __tablename__ = "pages"
    __table_args__ = (
        UniqueConstraint("space_id", "title"),
        Index("ix_pages_parent", "space_id", "parent_id", "position"),
        Index("ix_pages_updated", "updated_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    space_id: Mapped[int] = mapped_column(ForeignKey("spaces.id"))
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("pages.id"), index=True)
    position: Mapped[int] = mapped_column(doc="1-based place among the pages of the same parent.")
    title: Mapped[str] = mapped_column(String(200))
    version: Mapped[int] = mapped_column(doc="Number of the current version.")
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    created_at: Mapped[datetime]
    updated_by_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    updated_at: Mapped[datetime]
    source_ticket_id: Mapped[int | None] = mapped_column(index=True)


class PageVersion(Base):
    __tablename__ = "page_versions"
    __table_args__ = (
        UniqueConstraint("page_id", "number"),
        Index("ix_page_versions_created", "created_at"),
        Index("ix_page_versions_page_author", "page_id", "author_id", "created_at", "number"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    page_id: Mapped[int] = mapped_column(ForeignKey("pages.id"))
    number: Mapped[int]
    title: Mapped[str] = mapped_column(String(200))
    body: Mapped[str]
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime]
    message: Mapped[str] = mapped_column(String(200))


class Comment(Base):
    __tablename__ = "comments"

    id: Mapped[int] = mapped_column(primary_key=True)
    page_id: Mapped[int] = mapped_column(ForeignKey("pages.id"), index=True)
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    body: Mapped[str]
    inline_text: Mapped[str | None] = mapped_column(String(200), doc="The quoted text of an inline comment.")
    resolved: Mapped[bool] = mapped_column(default=False)
    resolved_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    resolved_at: Mapped[datetime | None]
    created_at: Mapped[datetime]


class PageLabel(Base):
    __tablename__ = "page_labels"

    page_id: Mapped[int] = mapped_column(ForeignKey("pages.id"), primary_key=True)
    label: Mapped[str] = mapped_column(String(40), primary_key=True, index=True)


class PageRestriction(Base):
    __tablename__ = "page_restrictions"

    page_id: Mapped[int] = mapped_column(ForeignKey("pages.id"), primary_key=True)
    operation: Mapped[str] = mapped_column(String(8), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
