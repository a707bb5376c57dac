"""The email tools: search, read, label, file and write mail as the signed-in Gmail user."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, Field
from sqlalchemy import ColumnElement, case, func, or_, select, union
from sqlalchemy.orm import Session

from mcpgym.servers.email.models import (
    SYSTEM_LABELS,
    Attachment,
    Contact,
    Label,
    Mailbox,
    Message,
    Recipient,
    Thread,
    message_labels,
)
from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import (
    Body,
    DateTimeArg,
    Page,
    PerPage,
    Timestamp,
    format_timestamp,
)
from mcpgym.servers.kernel.lookup import get_or_raise
from mcpgym.servers.kernel.query import fetch_page, search_words
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry
from mcpgym.servers.kernel.world import Person

tools = ToolRegistry()

OWNER_MAILBOX_ID = 1
"""The signed-in user's mailbox: every tool acts on its mail."""

MESSAGE_HINT = "Use search_messages to find messages by sender, recipient, subject, label or date."
THREAD_HINT = "Use search_messages to find messages; each result carries its thread_id."
DRAFT_HINT = "Use search_messages with label 'DRAFT' to list the drafts."
LABEL_HINT = "Use list_labels to see every label with its id and name."
CONTACT_HINT = "Use list_contacts to find contacts by name, email or organisation."
HIDDEN_LABELS = ("TRASH", "SPAM")
RESERVED_LABELS = ("SENT", "DRAFT", "TRASH")
EMAIL_RE = re.compile(r"^[a-z0-9._%+\-]+@[a-z0-9\-]+(\.[a-z0-9\-]+)*\.[a-z]{2,}$")
ADDRESS_RE = re.compile(r'^\s*(?:"?(?P<name>[^"<>]*?)"?\s*<(?P<angle>[^<>]*)>|(?P<bare>[^<>\s]+))\s*$')

Addresses = Annotated[list[str], Field(
    max_length=100,
    description="Email addresses, each 'name@example.com' or 'Name <name@example.com>'.",
)]
MessageIdArg = Annotated[int, Field(description="The message's id.")]
DraftIdArg = Annotated[int, Field(description="The draft's message id (a message carrying the DRAFT label).")]
LabelIdArg = Annotated[int, Field(description="The label's id (see list_labels).")]
LabelNameArg = Annotated[str, Field(
    min_length=1, max_length=100, description="Label name; '/' nests it, e.g. 'Projects/Atlas'.")]
TargetMessage = Annotated[int | None, Field(
    description="Act on this message. Give message_id or thread_id, not both.")]
TargetThread = Annotated[int | None, Field(
    description="Act on every message of this thread except drafts. Give message_id or thread_id, not both.")]
LabelNames = Annotated[list[Annotated[str, Field(min_length=1, max_length=100)]], Field(
    max_length=20, description="Label names as shown by list_labels (case-insensitive).")]


# Filters of search_messages.
QueryF = Annotated[str | None, Field(description="Words that must each appear in the subject or body (case-insensitive).")]
SenderF = Annotated[str | None, Field(
    description="The From address: a whole email matches exactly, other text matches part of the sender's "
                "name or email (e.g. 'acme.com', 'Jane').")]
RecipientF = Annotated[str | None, Field(description="A to, cc or bcc address, matched like sender.")]
SubjectF = Annotated[str | None, Field(description="Words that must each appear in the subject.")]
BodyF = Annotated[str | None, Field(description="Words that must each appear in the body.")]
LabelF = Annotated[str | None, Field(
    description="Only messages with this label name (see list_labels), e.g. 'INBOX', 'STARRED', 'Invoices'.")]
UnreadF = Annotated[bool | None, Field(description="True for unread messages only, False for read ones only.")]
AttachmentF = Annotated[bool | None, Field(
    description="True for messages with attachments only, False for those without.")]
AfterF = Annotated[DateTimeArg | None, Field(
    description="Only messages dated at or after this time (ISO 8601 date or date-time, UTC).")]
BeforeF = Annotated[DateTimeArg | None, Field(
    description="Only messages dated strictly before this time (ISO 8601 date or date-time, UTC).")]
SpamTrashF = Annotated[bool, Field(
    description="Also search the trash and spam (otherwise they are searched only with label 'TRASH' or 'SPAM').")]

# ---------------------------------------------------------------- result models


class Address(BaseModel):
    name: str | None = Field(description="Display name; null when unknown.")
    email: str


class AttachmentOut(BaseModel):
    id: int
    filename: str
    mime_type: str
    size_bytes: int = Field(description="Size in bytes.")


class MessageSummary(BaseModel):
    id: int
    thread_id: int
    sender: Address = Field(description="The From header.")
    to: list[Address]
    subject: str
    snippet: str = Field(description="The start of the body, at most 120 characters.")
    date: Timestamp = Field(description="When it was sent or received; for a draft, when it was last saved.")
    labels: list[str] = Field(description="Label names: system labels first, then user labels A-Z.")
    is_read: bool
    is_starred: bool
    is_draft: bool
    attachment_count: int


class MessageDetail(MessageSummary):
    cc: list[Address]
    bcc: list[Address] = Field(description="Blind copies; only known for mail you sent.")
    body: str
    attachments: list[AttachmentOut]
    header_message_id: str = Field(description="The Message-ID header.")
    in_reply_to: str | None = Field(description="The Message-ID header of the message this one answers or forwards.")


class MessagePage(BaseModel):
    messages: list[MessageSummary]
    total: int = Field(description="Messages matching the filters, over all pages.")
    page: int
    next_page: int | None


class ThreadOut(BaseModel):
    id: int
    subject: str
    message_count: int
    labels: list[str] = Field(description="Every label carried by at least one message of the thread.")
    messages: list[MessageDetail] = Field(description="Oldest first, drafts and trashed messages included.")


class LabelOut(BaseModel):
    id: int
    name: str
    type: Literal["system", "user"]
    messages_total: int = Field(description="Messages that search_messages finds with this label.")
    messages_unread: int
    threads_total: int


class LabelList(BaseModel):
    labels: list[LabelOut]


class LabelDeleted(BaseModel):
    id: int
    name: str
    messages_affected: int = Field(description="Messages the label was removed from.")


class MessagesChanged(BaseModel):
    changed: int = Field(description="Messages whose state this call changed.")
    messages: list[MessageSummary] = Field(description="Every message acted on, after the change.")


class Deleted(BaseModel):
    message_ids: list[int] = Field(description="Messages deleted for good.")
    thread_ids: list[int] = Field(description="Threads deleted because no message was left in them.")


class ContactOut(BaseModel):
    id: int
    name: str | None
    email: str
    organization_name: str | None
    kind: Literal["colleague", "customer", "external"] = Field(
        description="colleague: works at your company; customer: a person at another organisation; "
                    "external: any other sender, such as a newsletter.")
    message_count: int = Field(description="Messages from or to this address, not counting drafts, spam or trash.")
    last_message_at: Timestamp | None
    first_seen_at: Timestamp


class ContactPage(BaseModel):
    contacts: list[ContactOut]
    total: int
    page: int
    next_page: int | None


class Profile(BaseModel):
    name: str
    email: str
    organization_name: str
    job_title: str
    messages_total: int = Field(description="Every message in the mailbox, drafts, spam and trash included.")
    threads_total: int
    inbox_unread: int = Field(description="Unread messages in the inbox.")


# ---------------------------------------------------------------- helpers


def _owner(ctx: ToolContext) -> Mailbox:
    return get_or_raise(ctx, Mailbox, OWNER_MAILBOX_ID, "mailbox", "The signed-in mailbox is missing.")


def _message(ctx: ToolContext, message_id: int) -> Message:
    return get_or_raise(ctx, Message, message_id, "message", MESSAGE_HINT)


def _thread(ctx: ToolContext, thread_id: int) -> Thread:
    return get_or_raise(ctx, Thread, thread_id, "thread", THREAD_HINT)


def _label(ctx: ToolContext, label_id: int) -> Label:
    return get_or_raise(ctx, Label, label_id, "label", LABEL_HINT)


def _label_named(db: Session, name: str) -> Label:
    label = db.scalar(select(Label).where(func.lower(Label.name) == name.strip().lower()))
    if label is None:
        raise NotFoundError(f"no label named {name!r}. {LABEL_HINT}")
    return label


def _has(message: Message, name: str) -> bool:
    return any(label.name == name for label in message.labels)


def _add_label(message: Message, label: Label) -> bool:
    if label in message.labels:
        return False
    message.labels.append(label)
    return True


def _remove_label(message: Message, label: Label) -> bool:
    if label not in message.labels:
        return False
    message.labels.remove(label)
    return True


class LabelLike(Protocol):
    """A label's fields that ordering and naming read: a `Label` or a row of them."""

    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def type(self) -> str: ...


def _label_order(label: LabelLike) -> tuple[int, int, str]:
    return (0, label.id, "") if label.type == "system" else (1, 0, label.name.lower())


def _label_names(labels: Sequence[LabelLike]) -> list[str]:
    return [label.name for label in sorted(labels, key=_label_order)]


def _recipients(message: Message, kind: str) -> list[Address]:
    return [Address(name=r.name, email=r.email) for r in message.recipients if r.kind == kind]


SUMMARY_COLUMNS = (Message.id, Message.thread_id, Message.from_name, Message.from_email, Message.subject,
                   Message.body, Message.date, Message.is_read)
"""The message columns a summary shows, in the order `_summary_of` takes them."""


def _summary_of(fields: Sequence[Any], to: list[Address], labels: Sequence[LabelLike],
                attachment_count: int) -> MessageSummary:
    """A summary from a message's `SUMMARY_COLUMNS` values, its 'to' recipients (in id order), its
    labels and its number of attachments."""
    message_id, thread_id, from_name, from_email, subject, body, date, is_read = fields
    names = _label_names(labels)
    return MessageSummary(
        id=message_id, thread_id=thread_id, sender=Address(name=from_name, email=from_email), to=to,
        subject=subject, snippet=" ".join(body.split())[:120], date=date, labels=names, is_read=is_read,
        is_starred="STARRED" in names, is_draft="DRAFT" in names, attachment_count=attachment_count,
    )


def _summary(m: Message) -> MessageSummary:
    return _summary_of([getattr(m, column.key) for column in SUMMARY_COLUMNS], _recipients(m, "to"),
                       m.labels, len(m.attachments))


def _summaries(db: Session, rows: Sequence[Sequence[Any]]) -> list[MessageSummary]:
    """Summaries of message rows of `SUMMARY_COLUMNS`, with their recipients, labels and
    attachment counts read in one statement each (no ORM objects: a listing leaves the
    session's identity map as it was)."""
    ids = [row[0] for row in rows]
    if not ids:
        return []
    to: defaultdict[int, list[Address]] = defaultdict(list)
    for message_id, name, email in db.execute(
        select(Recipient.message_id, Recipient.name, Recipient.email)
        .where(Recipient.message_id.in_(ids), Recipient.kind == "to").order_by(Recipient.id)
    ):
        to[message_id].append(Address(name=name, email=email))
    labels: defaultdict[int, list[Any]] = defaultdict(list)
    for row in db.execute(
        select(message_labels.c.message_id, Label.id, Label.name, Label.type)
        .join(Label, Label.id == message_labels.c.label_id)
        .where(message_labels.c.message_id.in_(ids)).order_by(Label.id)
    ):
        labels[row.message_id].append(row)
    attachments = dict(db.execute(
        select(Attachment.message_id, func.count()).where(Attachment.message_id.in_(ids))
        .group_by(Attachment.message_id)
    ).all())
    return [_summary_of(row, to[row[0]], labels[row[0]], attachments.get(row[0], 0)) for row in rows]


def _detail(m: Message) -> MessageDetail:
    return MessageDetail(
        **_summary(m).model_dump(), cc=_recipients(m, "cc"), bcc=_recipients(m, "bcc"), body=m.body,
        attachments=[AttachmentOut(id=a.id, filename=a.filename, mime_type=a.mime_type, size_bytes=a.size_bytes)
                     for a in m.attachments],
        header_message_id=m.header_id, in_reply_to=m.in_reply_to,
    )


def _tagged(*names: str) -> ColumnElement[bool]:
    """Messages carrying any of the labels called `names`."""
    return Message.id.in_(
        select(message_labels.c.message_id).join(Label, Label.id == message_labels.c.label_id)
        .where(Label.name.in_(names) if len(names) > 1 else Label.name == names[0])
    )


def _visible(label: str | None, include_spam_trash: bool) -> list[ColumnElement[bool]]:
    """Drafts show only under DRAFT; trash and spam only under their own label or when asked."""
    clauses = [] if label is None else [_tagged(label)]
    hidden = [name for name in ("DRAFT", *([] if include_spam_trash else HIDDEN_LABELS)) if name != label]
    if hidden:
        clauses.append(~_tagged(*hidden))
    return clauses


def _address_match(name: ColumnElement[str | None], email: ColumnElement[str], value: str) -> ColumnElement[bool]:
    """A whole address matches exactly; anything else is a case-insensitive part of the name or email."""
    text = value.strip().lower()
    if EMAIL_RE.match(text):
        return func.lower(email) == text
    return or_(func.lower(name).contains(text, autoescape=True), func.lower(email).contains(text, autoescape=True))


def _words(column: ColumnElement[str], text: str) -> list[ColumnElement[bool]]:
    return [func.lower(column).contains(word, autoescape=True) for word in search_words(text)]


def _count(db: Session, clauses: list[ColumnElement[bool]], column: ColumnElement[int] | None = None) -> int:
    counted = func.count() if column is None else func.count(func.distinct(column))
    return db.scalar(select(counted).select_from(Message).where(*clauses)) or 0


def _targets(ctx: ToolContext, message_id: int | None, thread_id: int | None) -> list[Message]:
    """The messages a filing tool acts on: one message, or a thread's messages without its drafts."""
    if message_id is not None and thread_id is None:
        message = _message(ctx, message_id)
        if _has(message, "DRAFT"):
            raise ForbiddenError(f"message {message_id} is a draft; use update_draft, send_draft or delete_draft")
        return [message]
    if thread_id is None or message_id is not None:
        raise InvalidArgumentError("give exactly one of message_id or thread_id")
    thread = _thread(ctx, thread_id)
    messages = [m for m in thread.messages if not _has(m, "DRAFT")]
    if not messages:
        raise ForbiddenError(f"thread {thread_id} holds only drafts; use update_draft, send_draft or delete_draft")
    return messages


def _what(message_id: int | None, thread_id: int | None) -> str:
    return f"message {message_id}" if message_id is not None else f"thread {thread_id}"


def _changed(messages: list[Message], changed: int) -> MessagesChanged:
    return MessagesChanged(changed=changed, messages=[_summary(m) for m in messages])


def _parse_address(value: str) -> tuple[str | None, str]:
    """`(display name, email)` of 'name@example.com' or 'Name <name@example.com>'."""
    match = ADDRESS_RE.match(value)
    email = ((match.group("angle") or match.group("bare") or "") if match else "").strip().lower()
    if not EMAIL_RE.match(email):
        raise InvalidArgumentError(
            f"{value!r} is not a valid email address; write 'name@example.com' or 'Name <name@example.com>'")
    name = (match.group("name") or "").strip() if match else ""
    return (name or None, email)


def _organization_name(ctx: ToolContext, organization_id: str) -> str:
    return next(o.name for o in ctx.world.organizations if o.id == organization_id)


def _world_person(ctx: ToolContext, email: str) -> Person | None:
    """The world's first person with this email address, if any."""
    return next((p for p in ctx.world.people if p.email == email), None)


def _recipient_rows(ctx: ToolContext, entries: list[tuple[str, str | None, str]]) -> list[Recipient]:
    """Recipient rows of `(kind, name, email)` entries: each address once (its first kind),
    with the name the mailbox already knows (contact, then world person), else the one given.
    Mailboxes and contacts are read in one statement each, whatever the number of addresses."""
    home = ctx.world.home
    unique: dict[str, tuple[str, str | None]] = {}
    for kind, name, email in entries:
        unique.setdefault(email, (kind, name))
    colleagues = [email for email in unique if email.endswith("@" + home.domain)]
    mailboxes = set(ctx.db.scalars(select(Mailbox.email).where(Mailbox.email.in_(colleagues)))) if colleagues else set()
    for email in colleagues:
        if email not in mailboxes:
            raise NotFoundError(f"{email} is not a mailbox at {home.name}; "
                                "list_contacts with kind 'colleague' lists your colleagues' addresses")
    known = {c.email: c.name for c in ctx.db.scalars(select(Contact).where(Contact.email.in_(list(unique))))}
    rows = []
    for email, (kind, given) in unique.items():
        name = known.get(email)
        if not name:
            person = _world_person(ctx, email)
            name = person.name if person is not None else given
        rows.append(Recipient(kind=kind, name=name, email=email))
    return rows


def _parse_all(to: list[str], cc: list[str], bcc: list[str]) -> list[tuple[str, str | None, str]]:
    return [(kind, *_parse_address(value)) for kind, values in (("to", to), ("cc", cc), ("bcc", bcc))
            for value in values]


def _remember(ctx: ToolContext, recipients: list[Recipient]) -> None:
    """Add the recipients of sent mail to the contacts, as Gmail does."""
    emails = [r.email for r in recipients]
    known = set(ctx.db.scalars(select(Contact.email).where(Contact.email.in_(emails)))) if emails else set()
    for r in recipients:
        if r.email in known:
            continue
        known.add(r.email)
        person = _world_person(ctx, r.email)
        if person is None:
            contact = Contact(name=r.name, email=r.email, kind="external", created_at=ctx.now)
        else:
            contact = Contact(person_id=person.id, name=person.name, email=r.email, created_at=ctx.now,
                              organization_name=_organization_name(ctx, person.organization_id),
                              kind="colleague" if person.is_employee else "customer")
        ctx.db.add(contact)


def _deliver(ctx: ToolContext, message: Message) -> None:
    """Mark a composed message as sent now: SENT (and INBOX when sent to yourself), contacts kept."""
    owner = _owner(ctx)
    if not message.recipients:
        raise ForbiddenError("a message needs at least one recipient in to, cc or bcc")
    message.labels.append(_label_named(ctx.db, "SENT"))
    if any(r.email == owner.email for r in message.recipients):
        message.labels.append(_label_named(ctx.db, "INBOX"))
    message.date = ctx.now
    _remember(ctx, message.recipients)


def _compose(
    ctx: ToolContext, thread: Thread, subject: str, body: str, recipients: list[Recipient],
    in_reply_to: str | None = None, attachments: list[Attachment] | None = None,
) -> Message:
    """A new message from the signed-in user in `thread`, not yet labelled."""
    owner = _owner(ctx)
    message_id = (ctx.db.scalar(select(func.max(Message.id))) or 0) + 1
    message = Message(
        id=message_id, thread=thread, header_id=f"<{ctx.now:%Y%m%d%H%M%S}.{message_id}@{owner.email.split('@')[1]}>",
        in_reply_to=in_reply_to, from_name=owner.name, from_email=owner.email, subject=subject, body=body,
        date=ctx.now, is_read=True, recipients=recipients, attachments=attachments or [], labels=[],
    )
    ctx.db.add(message)
    return message


def _prefixed(prefix: str, subject: str) -> str:
    return subject if subject.lower().startswith(prefix.lower()) else f"{prefix} {subject}"


def _sendable(ctx: ToolContext, message_id: int) -> Message:
    message = _message(ctx, message_id)
    if _has(message, "DRAFT"):
        raise ForbiddenError(f"message {message_id} is a draft; send it with send_draft or edit it with update_draft")
    return message


def _draft(ctx: ToolContext, draft_id: int) -> Message:
    message = get_or_raise(ctx, Message, draft_id, "draft", DRAFT_HINT)
    if not _has(message, "DRAFT"):
        raise ForbiddenError(f"message {draft_id} is not a draft (it was already sent or received) and cannot be "
                             "edited, sent again or discarded; reply_to_message or forward_message it, or "
                             "trash_messages to remove it")
    return message


def _discard(ctx: ToolContext, messages: list[Message]) -> Deleted:
    """Delete messages for good, and the threads they leave empty."""
    emptied: list[int] = []
    for message in messages:
        thread = message.thread
        thread.messages.remove(message)
        ctx.db.delete(message)
        if not thread.messages:
            emptied.append(thread.id)
            ctx.db.delete(thread)
    ctx.db.flush()
    return Deleted(message_ids=[m.id for m in messages], thread_ids=emptied)


def _label_outs(db: Session, labels: list[Label]) -> list[LabelOut]:
    """Each label with its counts, as search_messages with that label would count them, all
    found in one grouped statement: a message counts under a label unless it also carries
    DRAFT, TRASH or SPAM and that is not the label itself."""
    visible = [or_(Label.name == name, ~_tagged(name)) for name in ("DRAFT", *HIDDEN_LABELS)]
    unread = func.sum(case((Message.is_read.is_(False), 1), else_=0))
    statement = (
        select(Label.id, func.count(), unread, func.count(func.distinct(Message.thread_id)))
        .select_from(message_labels)
        .join(Label, Label.id == message_labels.c.label_id)
        .join(Message, Message.id == message_labels.c.message_id)
        .where(Label.id.in_([label.id for label in labels]), *visible)
        .group_by(Label.id)
    )
    counts = {label_id: (total, unread_count, threads) for label_id, total, unread_count, threads in db.execute(statement)}
    return [
        LabelOut(id=label.id, name=label.name, type=label.type, messages_total=total,
                 messages_unread=unread_count, threads_total=threads)
        for label in labels
        for total, unread_count, threads in [counts.get(label.id, (0, 0, 0))]
    ]


def _label_out(db: Session, label: Label) -> LabelOut:
    return _label_outs(db, [label])[0]


def _clean_label_name(db: Session, name: str, keep: Label | None = None) -> str:
    clean = name.strip()
    if not clean:
        raise InvalidArgumentError("a label name cannot be blank")
    if clean.upper() in SYSTEM_LABELS:
        raise ForbiddenError(f"{clean!r} is the name of a system label and cannot be used for a user label")
    existing = db.scalar(select(Label).where(func.lower(Label.name) == clean.lower()))
    if existing is not None and existing is not keep:
        raise InvalidArgumentError(f"a label named {existing.name!r} already exists (id {existing.id})")
    return clean


def _user_label(ctx: ToolContext, label_id: int, action: str) -> Label:
    label = _label(ctx, label_id)
    if label.type == "system":
        raise ForbiddenError(f"{label.name} is a system label and cannot be {action}; only user labels can")
    return label


def _contact_outs(db: Session, contacts: list[Contact]) -> list[ContactOut]:
    """Each contact with the number and latest date of the visible messages from or to them,
    all counted in one grouped statement."""
    emails = [c.email for c in contacts]
    involved = union(
        select(Message.id.label("message_id"), Message.from_email.label("email")).where(Message.from_email.in_(emails)),
        select(Recipient.message_id, Recipient.email).where(Recipient.email.in_(emails)),
    ).subquery()
    statement = (
        select(involved.c.email, func.count(func.distinct(Message.id)), func.max(Message.date))
        .join(Message, Message.id == involved.c.message_id)
        .where(*_visible(None, include_spam_trash=False))
        .group_by(involved.c.email)
    )
    seen = {email: (count, last) for email, count, last in db.execute(statement)}
    return [
        ContactOut(
            id=c.id, name=c.name, email=c.email, organization_name=c.organization_name, kind=c.kind,
            message_count=count, last_message_at=last, first_seen_at=c.created_at,
        )
        for c in contacts
        for count, last in [seen.get(c.email, (0, None))]
    ]


def _contact_out(db: Session, c: Contact) -> ContactOut:
    return _contact_outs(db, [c])[0]


def _check_range(after: datetime | None, before: datetime | None) -> None:
    if after is not None and before is not None and after >= before:
        raise InvalidArgumentError("after must be earlier than before")


# ---------------------------------------------------------------- reads


@tools.tool(examples=[{}])
def get_profile(ctx: ToolContext) -> Profile:
    """Who you are signed in as (name, email, organisation, job title) and the size of the mailbox."""
    owner = _owner(ctx)
    inbox = [*_visible("INBOX", include_spam_trash=False), Message.is_read.is_(False)]
    return Profile(
        name=owner.name, email=owner.email, organization_name=ctx.world.home.name, job_title=owner.job_title,
        messages_total=_count(ctx.db, []), threads_total=ctx.db.scalar(select(func.count()).select_from(Thread)) or 0,
        inbox_unread=_count(ctx.db, inbox),
    )


@tools.tool(examples=[{"label": "Invoices", "has_attachment": True, "after": "2025-09-01", "per_page": 5}])
def search_messages(
    ctx: ToolContext,
    query: QueryF = None,
    sender: SenderF = None,
    recipient: RecipientF = None,
    subject: SubjectF = None,
    body: BodyF = None,
    label: LabelF = None,
    is_unread: UnreadF = None,
    has_attachment: AttachmentF = None,
    after: AfterF = None,
    before: BeforeF = None,
    include_spam_trash: SpamTrashF = False,
    sort_order: Annotated[Literal["desc", "asc"], Field(description="desc: newest first; asc: oldest first.")] = "desc",
    page: Page = 1,
    per_page: PerPage = 20,
) -> MessagePage:
    """Search the mailbox like Gmail's search box; returns one page of message summaries and the total.

    Drafts are found only with label 'DRAFT'; trash and spam only with their label or include_spam_trash.
    """
    _check_range(after, before)
    label_name = None if label is None else _label_named(ctx.db, label).name
    clauses = _visible(label_name, include_spam_trash)
    if query:
        clauses.extend(or_(a, b) for a, b in zip(_words(Message.subject, query), _words(Message.body, query)))
    if sender:
        clauses.append(_address_match(Message.from_name, Message.from_email, sender))
    if recipient:
        clauses.append(Message.id.in_(
            select(Recipient.message_id).where(_address_match(Recipient.name, Recipient.email, recipient))))
    clauses.extend(_words(Message.subject, subject or ""))
    clauses.extend(_words(Message.body, body or ""))
    if is_unread is not None:
        clauses.append(Message.is_read.is_(not is_unread))
    if has_attachment is not None:
        attached = Message.id.in_(select(Attachment.message_id))
        clauses.append(attached if has_attachment else ~attached)
    if after is not None:
        clauses.append(Message.date >= after)
    if before is not None:
        clauses.append(Message.date < before)
    order = [Message.date.desc(), Message.id.desc()] if sort_order == "desc" else [Message.date, Message.id]
    statement = select(*SUMMARY_COLUMNS).where(*clauses).order_by(*order)
    rows, total, following = fetch_page(ctx.db, statement, page, per_page)
    return MessagePage(messages=_summaries(ctx.db, rows), total=total, page=page, next_page=following)


@tools.tool(examples=[{"message_id": 2696}])
def get_message(ctx: ToolContext, message_id: MessageIdArg) -> MessageDetail:
    """Get one message in full: headers (from, to, cc, bcc, Message-ID, In-Reply-To), body, labels, attachments."""
    return _detail(_message(ctx, message_id))


@tools.tool(examples=[{"thread_id": 1028}])
def get_thread(ctx: ToolContext, thread_id: Annotated[int, Field(description="The thread's id.")]) -> ThreadOut:
    """Get a conversation: every message of the thread in full, oldest first."""
    thread = _thread(ctx, thread_id)
    labels: list[Label] = []
    for message in thread.messages:
        labels.extend(label for label in message.labels if label not in labels)
    return ThreadOut(id=thread.id, subject=thread.subject, message_count=len(thread.messages),
                     labels=_label_names(labels), messages=[_detail(m) for m in thread.messages])


@tools.tool(examples=[{}])
def list_labels(ctx: ToolContext) -> LabelList:
    """List system and user labels with their message, unread and thread counts.

    Counts match search_messages with that label: drafts count only under DRAFT, and trash and
    spam only under TRASH and SPAM.
    """
    labels = sorted(ctx.db.scalars(select(Label)), key=_label_order)
    return LabelList(labels=_label_outs(ctx.db, labels))


@tools.tool(examples=[{"kind": "customer", "organization": "ward", "per_page": 10}])
def list_contacts(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Part of the name or email (case-insensitive).")] = None,
    organization: Annotated[str | None, Field(description="Part of the organisation name (case-insensitive).")] = None,
    kind: Annotated[Literal["colleague", "customer", "external"] | None, Field(description="Only contacts of this kind.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> ContactPage:
    """List the people seen in your mail (name, email, organisation, message count), sorted by name."""
    clauses: list[ColumnElement[bool]] = []
    if query:
        text = query.strip().lower()
        clauses.append(or_(func.lower(Contact.name).contains(text, autoescape=True),
                           func.lower(Contact.email).contains(text, autoescape=True)))
    if organization:
        clauses.append(func.lower(Contact.organization_name).contains(organization.strip().lower(), autoescape=True))
    if kind:
        clauses.append(Contact.kind == kind)
    statement = select(Contact).where(*clauses).order_by(Contact.name.is_(None), Contact.name, Contact.email)
    rows, total, following = fetch_page(ctx.db, statement, page, per_page)
    return ContactPage(contacts=_contact_outs(ctx.db, rows), total=total, page=page, next_page=following)


@tools.tool(examples=[{"email": "amy.velazquez@northwindsystems.com"}])
def lookup_contact(
    ctx: ToolContext,
    email: Annotated[str, Field(min_length=3, max_length=160, description="The exact email address, e.g. 'jane.doe@acme.com'.")],
) -> ContactOut:
    """Look up a person by email address: their name, organisation and how much mail you exchanged."""
    address = email.strip().lower()
    contact = ctx.db.scalar(select(Contact).where(Contact.email == address))
    if contact is None:
        raise NotFoundError(f"no contact with email {address}. {CONTACT_HINT}")
    return _contact_out(ctx.db, contact)


# ---------------------------------------------------------------- labels


@tools.tool(writes=True, examples=[{"name": "Projects/Harbor"}])
def create_label(ctx: ToolContext, name: LabelNameArg) -> LabelOut:
    """Create a user label. Names are unique (case-insensitive) and cannot be a system label's name."""
    label = Label(name=_clean_label_name(ctx.db, name), type="user")
    ctx.db.add(label)
    ctx.db.flush()
    return _label_out(ctx.db, label)


@tools.tool(writes=True, examples=[{"label_id": 15, "name": "Receipts/2025"}])
def rename_label(ctx: ToolContext, label_id: LabelIdArg, name: LabelNameArg) -> LabelOut:
    """Rename a user label; its messages keep it. System labels cannot be renamed."""
    label = _user_label(ctx, label_id, "renamed")
    label.name = _clean_label_name(ctx.db, name, keep=label)
    ctx.db.flush()
    return _label_out(ctx.db, label)


@tools.tool(writes=True, examples=[{"label_id": 15}])
def delete_label(ctx: ToolContext, label_id: LabelIdArg) -> LabelDeleted:
    """Delete a user label and remove it from every message; the messages themselves stay."""
    label = _user_label(ctx, label_id, "deleted")
    messages = list(label.messages)
    for message in messages:
        message.labels.remove(label)
    result = LabelDeleted(id=label.id, name=label.name, messages_affected=len(messages))
    ctx.db.delete(label)
    ctx.db.flush()
    return result


# ---------------------------------------------------------------- filing


@tools.tool(writes=True, examples=[
    {"message_id": 2703, "add_labels": ["STARRED", "Follow-up"], "remove_labels": ["INBOX"]},
])
def modify_labels(
    ctx: ToolContext,
    message_id: TargetMessage = None,
    thread_id: TargetThread = None,
    add_labels: LabelNames = [],
    remove_labels: LabelNames = [],
) -> MessagesChanged:
    """Add and remove labels on a message or on a whole thread (its drafts excepted).

    User labels and INBOX, STARRED, IMPORTANT and SPAM can be set; SENT and DRAFT come from
    sending and drafting, TRASH from trash_messages and untrash_messages.
    """
    messages = _targets(ctx, message_id, thread_id)
    if not add_labels and not remove_labels:
        raise InvalidArgumentError("give at least one label in add_labels or remove_labels")
    adding = [_label_named(ctx.db, name) for name in add_labels]
    removing = [_label_named(ctx.db, name) for name in remove_labels]
    for label in adding + removing:
        if label.name in RESERVED_LABELS:
            raise ForbiddenError(f"the {label.name} label cannot be set by hand; "
                                 "SENT and DRAFT come from sending and drafting, TRASH from trash_messages/untrash_messages")
    both = [label.name for label in adding if label in removing]
    if both:
        raise InvalidArgumentError(f"label(s) {', '.join(both)} are both added and removed")
    changed = 0
    for message in messages:
        flags = [_add_label(message, label) for label in adding] + [_remove_label(message, label) for label in removing]
        changed += any(flags)
    ctx.db.flush()
    return _changed(messages, changed)


@tools.tool(writes=True, examples=[{"thread_id": 1028, "read": True}])
def mark_read(
    ctx: ToolContext,
    message_id: TargetMessage = None,
    thread_id: TargetThread = None,
    read: Annotated[bool, Field(description="True to mark as read, False to mark as unread.")] = True,
) -> MessagesChanged:
    """Mark a message or a whole thread as read or unread."""
    messages = _targets(ctx, message_id, thread_id)
    changed = sum(1 for m in messages if m.is_read != read)
    for message in messages:
        message.is_read = read
    ctx.db.flush()
    return _changed(messages, changed)


@tools.tool(writes=True, examples=[{"thread_id": 1030}])
def archive_messages(ctx: ToolContext, message_id: TargetMessage = None, thread_id: TargetThread = None) -> MessagesChanged:
    """Archive a message or thread: remove it from the inbox, keeping every other label."""
    messages = _targets(ctx, message_id, thread_id)
    inbox = _label_named(ctx.db, "INBOX")
    changed = sum(_remove_label(m, inbox) for m in messages)
    if not changed:
        raise ForbiddenError(f"{_what(message_id, thread_id)} is not in the inbox (already archived)")
    ctx.db.flush()
    return _changed(messages, changed)


@tools.tool(writes=True, examples=[{"message_id": 2710}])
def trash_messages(ctx: ToolContext, message_id: TargetMessage = None, thread_id: TargetThread = None) -> MessagesChanged:
    """Move a message or thread to the trash (adds TRASH, keeps its other labels).

    Trashed mail is hidden from search_messages unless label is 'TRASH'; untrash_messages restores it.
    """
    messages = _targets(ctx, message_id, thread_id)
    trash = _label_named(ctx.db, "TRASH")
    changed = sum(_add_label(m, trash) for m in messages)
    if not changed:
        raise ForbiddenError(f"{_what(message_id, thread_id)} is already in the trash; "
                             "delete_permanently removes it for good")
    ctx.db.flush()
    return _changed(messages, changed)


@tools.tool(writes=True, examples=[{"thread_id": 1027}])
def untrash_messages(ctx: ToolContext, message_id: TargetMessage = None, thread_id: TargetThread = None) -> MessagesChanged:
    """Take a message or thread out of the trash, back where it was."""
    messages = _targets(ctx, message_id, thread_id)
    trash = _label_named(ctx.db, "TRASH")
    changed = sum(_remove_label(m, trash) for m in messages)
    if not changed:
        raise ForbiddenError(f"{_what(message_id, thread_id)} is not in the trash")
    ctx.db.flush()
    return _changed(messages, changed)


@tools.tool(writes=True, examples=[{"thread_id": 1016}])
def delete_permanently(ctx: ToolContext, message_id: TargetMessage = None, thread_id: TargetThread = None) -> Deleted:
    """Delete a message or thread for good. Only messages in the trash can be deleted; this cannot be undone."""
    messages = _targets(ctx, message_id, thread_id)
    outside = [m.id for m in messages if not _has(m, "TRASH")]
    if outside:
        raise ForbiddenError(f"message(s) {', '.join(map(str, outside))} are not in the trash; "
                             "move them there with trash_messages first")
    return _discard(ctx, messages)


# ---------------------------------------------------------------- writing


@tools.tool(writes=True, examples=[
    {"to": ["sophia.davis@crossltd.com"], "cc": ["amy.velazquez@northwindsystems.com"],
     "subject": "Catch-up call next week", "body": "Hi Sophia, does Tuesday at 10:00 suit you?"},
])
def send_message(
    ctx: ToolContext,
    to: Addresses,
    subject: Annotated[str, Field(max_length=250, description="Subject line.")],
    body: Annotated[Body, Field(description="Plain-text body.")],
    cc: Addresses = [],
    bcc: Addresses = [],
) -> MessageDetail:
    """Send a new message from you, starting a new thread. At least one recipient is needed."""
    recipients = _recipient_rows(ctx, _parse_all(to, cc, bcc))
    message = _compose(ctx, Thread(subject=subject), subject, body, recipients)
    _deliver(ctx, message)
    ctx.db.flush()
    return _detail(message)


@tools.tool(writes=True, examples=[{"message_id": 2703, "body": "Thursday at 14:00 works for me.", "reply_all": True}])
def reply_to_message(
    ctx: ToolContext,
    message_id: MessageIdArg,
    body: Annotated[Body, Field(min_length=1, description="Plain-text body of the reply.")],
    reply_all: Annotated[bool, Field(
        description="False: reply to the sender only; True: also to everyone in to and cc, except you.")] = False,
) -> MessageDetail:
    """Reply in the same thread with 'Re: <subject>' and In-Reply-To set to the original's Message-ID.

    Replying to a message you sent goes to its original recipients.
    """
    original = _sendable(ctx, message_id)
    owner = _owner(ctx)
    originals = [(r.kind, r.name, r.email) for r in original.recipients if r.email != owner.email and r.kind != "bcc"]
    if original.from_email == owner.email:
        entries = [e for e in originals if e[0] == "to" or reply_all]
    else:
        entries = [("to", original.from_name, original.from_email)] + (originals if reply_all else [])
    recipients = _recipient_rows(ctx, entries)
    message = _compose(ctx, original.thread, _prefixed("Re:", original.subject), body, recipients,
                       in_reply_to=original.header_id)
    _deliver(ctx, message)
    ctx.db.flush()
    return _detail(message)


@tools.tool(writes=True, examples=[
    {"message_id": 2161, "to": ["amy.velazquez@northwindsystems.com"], "note": "FYI, notes attached."},
])
def forward_message(
    ctx: ToolContext,
    message_id: MessageIdArg,
    to: Addresses,
    note: Annotated[Body, Field(description="Text written above the forwarded message.")] = "",
    cc: Addresses = [],
    bcc: Addresses = [],
) -> MessageDetail:
    """Forward a message with 'Fwd: <subject>', its body quoted below your note and its attachments carried over."""
    original = _sendable(ctx, message_id)
    recipients = _recipient_rows(ctx, _parse_all(to, cc, bcc))
    sender = original.from_email if original.from_name is None else f"{original.from_name} <{original.from_email}>"
    quoted = (f"---------- Forwarded message ---------\nFrom: {sender}\nDate: {format_timestamp(original.date)}\n"
              f"Subject: {original.subject}\nTo: {', '.join(r.email for r in original.recipients if r.kind == 'to')}\n\n"
              f"{original.body}")
    copies = [Attachment(filename=a.filename, mime_type=a.mime_type, size_bytes=a.size_bytes) for a in original.attachments]
    message = _compose(ctx, original.thread, _prefixed("Fwd:", original.subject),
                       f"{note}\n\n{quoted}" if note else quoted, recipients,
                       in_reply_to=original.header_id, attachments=copies)
    _deliver(ctx, message)
    ctx.db.flush()
    return _detail(message)


# ---------------------------------------------------------------- drafts


@tools.tool(writes=True, examples=[
    {"to": ["anthony.miller@wardhays.com"], "subject": "Renewal terms", "body": "Hi Anthony, draft terms below."},
    {"reply_to_message_id": 2696, "body": "Thanks Amy, I will review the budget today."},
])
def create_draft(
    ctx: ToolContext,
    to: Addresses = [],
    subject: Annotated[str | None, Field(
        max_length=250, description="Subject line; for a reply draft defaults to 'Re: <original subject>'.")] = None,
    body: Annotated[Body, Field(description="Plain-text body.")] = "",
    cc: Addresses = [],
    bcc: Addresses = [],
    reply_to_message_id: Annotated[int | None, Field(description="Make this a reply draft in that message's thread.")] = None,
) -> MessageDetail:
    """Save a draft (a message with the DRAFT label) without sending it; recipients may be added later."""
    recipients = _recipient_rows(ctx, _parse_all(to, cc, bcc))
    if reply_to_message_id is None:
        message = _compose(ctx, Thread(subject=subject or ""), subject or "", body, recipients)
    else:
        original = _sendable(ctx, reply_to_message_id)
        message = _compose(ctx, original.thread, subject or _prefixed("Re:", original.subject), body, recipients,
                           in_reply_to=original.header_id)
    message.labels.append(_label_named(ctx.db, "DRAFT"))
    ctx.db.flush()
    return _detail(message)


@tools.tool(writes=True, examples=[
    {"draft_id": 2713, "to": ["anthony.miller@wardhays.com"], "body": "Talking points for the QBR."},
])
def update_draft(
    ctx: ToolContext,
    draft_id: DraftIdArg,
    to: Annotated[list[str] | None, Field(max_length=100, description="New To addresses, replacing the old ones.")] = None,
    cc: Annotated[list[str] | None, Field(max_length=100, description="New Cc addresses, replacing the old ones.")] = None,
    bcc: Annotated[list[str] | None, Field(max_length=100, description="New Bcc addresses, replacing the old ones.")] = None,
    subject: Annotated[str | None, Field(max_length=250, description="New subject.")] = None,
    body: Annotated[Body | None, Field(description="New body, replacing the old one.")] = None,
) -> MessageDetail:
    """Change a draft's recipients, subject or body (only the fields given). Sent mail cannot be edited."""
    draft = _draft(ctx, draft_id)
    if all(v is None for v in (to, cc, bcc, subject, body)):
        raise InvalidArgumentError("give at least one of to, cc, bcc, subject or body to change")
    if to is not None or cc is not None or bcc is not None:
        given = {"to": to, "cc": cc, "bcc": bcc}
        entries = []
        for kind, values in given.items():
            if values is None:
                entries.extend((kind, r.name, r.email) for r in draft.recipients if r.kind == kind)
            else:
                entries.extend((kind, *_parse_address(value)) for value in values)
        draft.recipients = _recipient_rows(ctx, entries)
    if subject is not None:
        draft.subject = subject
        if draft.thread.messages == [draft]:
            draft.thread.subject = subject
    if body is not None:
        draft.body = body
    draft.date = ctx.now
    ctx.db.flush()
    return _detail(draft)


@tools.tool(writes=True, examples=[{"draft_id": 2711}])
def send_draft(ctx: ToolContext, draft_id: DraftIdArg) -> MessageDetail:
    """Send a draft as it is; it loses the DRAFT label and gets SENT. It needs at least one recipient."""
    draft = _draft(ctx, draft_id)
    draft.labels.remove(_label_named(ctx.db, "DRAFT"))
    _deliver(ctx, draft)
    ctx.db.flush()
    return _detail(draft)


@tools.tool(writes=True, examples=[{"draft_id": 2719}])
def delete_draft(ctx: ToolContext, draft_id: DraftIdArg) -> Deleted:
    """Discard a draft for good (and its thread, if nothing else is in it)."""
    return _discard(ctx, [_draft(ctx, draft_id)])
