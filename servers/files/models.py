"""The drive schema: users, files and folders (one table, as in Google Drive), permissions and
revisions.

Linking rules with the shared world (`mcpgym.servers.kernel.world`):
- users are the world's people: `external_id` is the person id (`per_0007`); name, email,
  job title, timezone and organisation name are the world's, unchanged. Employees of the
  home organisation (`org_000`, Northwind Systems) are internal, own files and have a storage
  quota; people of customer organisations are external: files can be shared with them, and
  they own nothing here. User ids are the world's order: user `i + 1` is person `per_{i:04d}`;
- the "Customers" folder holds a folder per key CRM account (`crm_account_id` is the
  account's id in the CRM server), named as the account, owned by the account's CRM owner
  and shared with contacts of the account (world customers of that organisation).

A folder is a file whose `mime_type` is `FOLDER_MIME`; `folder_id` is the folder an item is
in (None for top-level folders). An item in the trash has `trashed_at`; `explicitly_trashed`
tells an item trashed on its own from one trashed along with a folder above it.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

FOLDER_MIME = "application/vnd.google-apps.folder"

ACTING_USER_ID = 1
"""The employee the tools act as: the world's first person, a member of the Sales team."""

ROLES = ("viewer", "commenter", "editor", "owner")
"""Access levels, weakest first; `owner` is held by the file's owner only (a permission row
grants one of the other three)."""

KINDS: dict[str, tuple[str, ...]] = {
    "folder": (FOLDER_MIME,),
    "document": ("application/vnd.google-apps.document",
                 "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "text/plain"),
    "spreadsheet": ("application/vnd.google-apps.spreadsheet",
                    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "text/csv"),
    "presentation": ("application/vnd.google-apps.presentation",
                     "application/vnd.openxmlformats-officedocument.presentationml.presentation"),
    "pdf": ("application/pdf",),
    "image": ("image/png", "image/jpeg", "image/svg+xml"),
    "video": ("video/mp4", "video/quicktime"),
    "archive": ("application/zip",),
}
"""The kinds a search filters by, and the MIME types of each; any other type is `other`."""

KIND_OF_MIME: dict[str, str] = {mime: kind for kind, mimes in KINDS.items() for mime in mimes}


def kind_of(mime_type: str) -> str:
    """The kind of a MIME type (`pdf`, `spreadsheet`, ...), `other` when it is none of `KINDS`."""
    return KIND_OF_MIME.get(mime_type, "other")


class Base(DeclarativeBase):
    """Declarative base of the drive schema."""


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(120), index=True)
    email: Mapped[str] = mapped_column(String(160), unique=True)
    organization_name: Mapped[str] = mapped_column(String(120))
    is_internal: Mapped[bool]
    department: Mapped[str | None] = mapped_column(String(40))
    title: Mapped[str] = mapped_column(String(120))
    timezone: Mapped[str] = mapped_column(String(40))
    quota_bytes: Mapped[int | None] = mapped_column(doc="Storage limit of an internal user; None for external people.")
    created_at: Mapped[datetime]


class File(Base):
    __tablename__ = "files"
    __table_args__ = (
        Index("ix_files_folder", "folder_id"),
        Index("ix_files_owner", "owner_id"),
        Index("ix_files_modified", "modified_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(255))
    mime_type: Mapped[str] = mapped_column(String(100))
    size_bytes: Mapped[int] = mapped_column(default=0)
    folder_id: Mapped[int | None] = mapped_column(ForeignKey("files.id"))
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    description: Mapped[str | None] = mapped_column(String(1000))
    starred: Mapped[bool] = mapped_column(default=False)
    crm_account_id: Mapped[int | None] = mapped_column(doc="The CRM account a customer folder is for.")
    created_at: Mapped[datetime]
    modified_at: Mapped[datetime]
    modified_by_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    trashed_at: Mapped[datetime | None]
    explicitly_trashed: Mapped[bool] = mapped_column(default=False)


class Permission(Base):
    __tablename__ = "permissions"
    __table_args__ = (UniqueConstraint("file_id", "user_id"), Index("ix_permissions_user", "user_id"))

    id: Mapped[int] = mapped_column(primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    role: Mapped[str] = mapped_column(String(16))
    granted_by_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    granted_at: Mapped[datetime]


class Revision(Base):
    __tablename__ = "revisions"
    __table_args__ = (UniqueConstraint("file_id", "number"), Index("ix_revisions_modifier", "modified_by_id"))

    id: Mapped[int] = mapped_column(primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    number: Mapped[int]
    size_bytes: Mapped[int]
    modified_by_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    modified_at: Mapped[datetime]
