"""The email schema: the company's mailboxes and the signed-in user's mail, modelled on Gmail.

The database holds the mail of one mailbox, the signed-in user's (mailbox 1): its threads,
messages, recipients, attachments, labels and the contacts seen in its mail. The other
mailboxes are the company directory: the addresses at the home domain that can receive mail.

Linking rules with the shared world:
- a mailbox is a home-company employee (`world.employees`): `person_id` is the world person's
  id (`per_0000`), `name` and `email` are exactly the world's; mailbox 1 is the first employee;
- a contact is an address seen in the mail; when it belongs to a world person, `person_id`,
  `name`, `email` and `organization_name` are exactly the world's (employees are colleagues of
  "Northwind Systems", customers belong to the other organisations); other senders (newsletters)
  have no `person_id`;
- message headers carry the same names and addresses (`Name <email>`) as the world.

Labels are `system` (the fixed Gmail labels) or `user`; a recipient is `to`, `cc` or `bcc`; a
contact is a `colleague`, a `customer` or `external`. Drafts are messages with the DRAFT label.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, ForeignKey, Index, String, Table
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

SYSTEM_LABELS = ("INBOX", "SENT", "DRAFT", "TRASH", "SPAM", "STARRED", "IMPORTANT")


class Base(DeclarativeBase):
    """Declarative base of the email schema."""


message_labels = Table(
    "message_labels",
    Base.metadata,
    Column("message_id", ForeignKey("messages.id"), primary_key=True),
    Column("label_id", ForeignKey("labels.id"), primary_key=True, index=True),
)


class Mailbox(Base):
    __tablename__ = "mailboxes"

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[str] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(120))
    email: Mapped[str] = mapped_column(String(160), unique=True)
    job_title: Mapped[str] = mapped_column(String(120))
    created_at: Mapped[datetime]


class Contact(Base):
    __tablename__ = "contacts"

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[str | None] = mapped_column(String(16))
    name: Mapped[str | None] = mapped_column(String(120), index=True)
    email: Mapped[str] = mapped_column(String(160), unique=True)
    organization_name: Mapped[str | None] = mapped_column(String(120))
    kind: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime]


class Label(Base):
    __tablename__ = "labels"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    type: Mapped[str] = mapped_column(String(8))

    messages: Mapped[list[Message]] = relationship(
        secondary=message_labels, back_populates="labels", order_by="Message.id"
    )


class Thread(Base):
    __tablename__ = "threads"

    id: Mapped[int] = mapped_column(primary_key=True)
    subject: Mapped[str] = mapped_column(String(250))

    messages: Mapped[list[Message]] = relationship(
        back_populates="thread", cascade="all, delete-orphan", order_by="[Message.date, Message.id]"
    )


class Message(Base):
    __tablename__ = "messages"
    __table_args__ = (Index("ix_messages_date", "date"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    thread_id: Mapped[int] = mapped_column(ForeignKey("threads.id"), index=True)
    header_id: Mapped[str] = mapped_column(String(200), unique=True)
    in_reply_to: Mapped[str | None] = mapped_column(String(200))
    from_name: Mapped[str | None] = mapped_column(String(120))
    from_email: Mapped[str] = mapped_column(String(160), index=True)
    subject: Mapped[str] = mapped_column(String(250))
    body: Mapped[str]
    date: Mapped[datetime]
    is_read: Mapped[bool]

    thread: Mapped[Thread] = relationship(back_populates="messages")
    recipients: Mapped[list[Recipient]] = relationship(
        cascade="all, delete-orphan", order_by="Recipient.id", lazy="selectin"
    )
    attachments: Mapped[list[Attachment]] = relationship(
        cascade="all, delete-orphan", order_by="Attachment.id", lazy="selectin"
    )
    labels: Mapped[list[Label]] = relationship(
        secondary=message_labels, back_populates="messages", order_by="Label.id", lazy="selectin"
    )


class Recipient(Base):
    __tablename__ = "recipients"

    id: Mapped[int] = mapped_column(primary_key=True)
    message_id: Mapped[int] = mapped_column(ForeignKey("messages.id"), index=True)
    kind: Mapped[str] = mapped_column(String(3))
    name: Mapped[str | None] = mapped_column(String(120))
    email: Mapped[str] = mapped_column(String(160), index=True)


class Attachment(Base):
    __tablename__ = "attachments"

    id: Mapped[int] = mapped_column(primary_key=True)
    message_id: Mapped[int] = mapped_column(ForeignKey("messages.id"), index=True)
    filename: Mapped[str] = mapped_column(String(200))
    mime_type: Mapped[str] = mapped_column(String(120))
    size_bytes: Mapped[int]
