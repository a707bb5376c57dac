"""The email tools: search, read, label, file and write mail as the signed-in Gmail user."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from mcpgym.servers.email.models import (
    SYSTEM_LABELS,
    Contact,
    Label,
    Mailbox,
    Message,
    Thread,
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
from mcpgym.servers.kernel.lookup import missing, row_or_raise
from mcpgym.servers.kernel.query import search_words
from mcpgym.servers.kernel.sql import Row, contains_pattern
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

MESSAGE_ROWS = (
    "SELECT messages.*, EXISTS (SELECT 1 FROM message_labels JOIN labels ON labels.id = message_labels.label_id "
    "WHERE message_labels.message_id = messages.id AND labels.name = 'DRAFT') AS draft FROM messages"
)
"""Every column of `messages`, and `draft`: 1 when the message carries the DRAFT label."""

SUMMARY_COLUMNS = ("messages.id, messages.thread_id, messages.from_name, messages.from_email, messages.subject, "
                   "messages.body, messages.date, messages.is_read")
"""The message columns a summary shows, besides its recipients, labels and attachments."""

LISTED = "SELECT value FROM json_each(?)"
"""The values of one list parameter, for `column IN (...)`."""

TAGGED = ("SELECT message_labels.message_id FROM message_labels JOIN labels ON labels.id = message_labels.label_id "
          f"WHERE labels.name IN ({LISTED})")
"""The messages carrying any of the labels named in one list parameter."""

MAX_VARIABLES = 999
"""Most parameters one statement binds: the limit of every SQLite build (later ones allow more)."""


def _owner(ctx: ToolContext) -> Row:
    return row_or_raise(ctx, Mailbox, OWNER_MAILBOX_ID, "mailbox", "The signed-in mailbox is missing.")


def _message(ctx: ToolContext, message_id: int, label: str = "message", hint: str = MESSAGE_HINT) -> Row:
    """A message's row (`MESSAGE_ROWS`), or `NotFoundError` naming it as `label`."""
    message = ctx.sql.one(f"{MESSAGE_ROWS} WHERE messages.id = ?", [message_id], Message)
    if message is None:
        raise missing(label, message_id, hint)
    return message


def _thread(ctx: ToolContext, thread_id: int) -> Row:
    return row_or_raise(ctx, Thread, thread_id, "thread", THREAD_HINT)


def _thread_messages(ctx: ToolContext, thread_id: int) -> list[Row]:
    """A thread's message rows (`MESSAGE_ROWS`), oldest first."""
    return ctx.sql.all(f"{MESSAGE_ROWS} WHERE messages.thread_id = ? ORDER BY messages.date, messages.id",
                       [thread_id], Message)


def _label(ctx: ToolContext, label_id: int) -> Row:
    return row_or_raise(ctx, Label, label_id, "label", LABEL_HINT)


def _labels_named(ctx: ToolContext, names: Sequence[str]) -> list[Row]:
    """The labels called `names` (case-insensitive, in Python's sense: SQLite's `lower` folds
    only ASCII), in the order given, read in one statement; `NotFoundError` for the first name
    that no label has."""
    keys = [name.strip().lower() for name in names]
    found: dict[str, Row] = {}
    for label in _all_labels(ctx):
        found.setdefault(label["name"].lower(), label)
    for name, key in zip(names, keys):
        if key not in found:
            raise NotFoundError(f"no label named {name!r}. {LABEL_HINT}")
    return [found[key] for key in keys]


def _all_labels(ctx: ToolContext) -> list[Row]:
    """Every label (id, name, type) in id order: a mailbox has a few dozen."""
    return ctx.sql.all("SELECT id, name, type FROM labels ORDER BY id")


def _label_named(ctx: ToolContext, name: str) -> Row:
    return _labels_named(ctx, [name])[0]


def _labels(ctx: ToolContext, message_ids: Sequence[int]) -> defaultdict[int, list[Row]]:
    """The label rows (id, name, type) of each message, in id order, read in one statement."""
    labels: defaultdict[int, list[Row]] = defaultdict(list)
    if message_ids:
        for row in ctx.sql.all(
            "SELECT message_labels.message_id, labels.id, labels.name, labels.type FROM message_labels "
            f"JOIN labels ON labels.id = message_labels.label_id WHERE message_labels.message_id IN ({LISTED}) "
            "ORDER BY message_labels.message_id, labels.id", [list(message_ids)],
        ):
            labels[row["message_id"]].append(row)
    return labels


def _has(labels: Sequence[Row], name: str) -> bool:
    return any(label["name"] == name for label in labels)


def _label_order(label: Row) -> tuple[int, int, str]:
    return (0, label["id"], "") if label["type"] == "system" else (1, 0, label["name"].lower())


def _label_names(labels: Iterable[Row]) -> list[str]:
    return [label["name"] for label in sorted(labels, key=_label_order)]


def _recipients(ctx: ToolContext, message_ids: Sequence[int], kind: str | None = None) -> defaultdict[int, list[Row]]:
    """The recipient rows (id, kind, name, email) of each message, of `kind` or all, in id order."""
    recipients: defaultdict[int, list[Row]] = defaultdict(list)
    if message_ids:
        sql = f"SELECT message_id, id, kind, name, email FROM recipients WHERE message_id IN ({LISTED})"
        params: list[Any] = [list(message_ids)]
        if kind is not None:
            sql += " AND kind = ?"
            params.append(kind)
        for row in ctx.sql.all(sql + " ORDER BY id", params):
            recipients[row["message_id"]].append(row)
    return recipients


def _addresses(recipients: Sequence[Row], kind: str) -> list[Address]:
    return [Address(name=r["name"], email=r["email"]) for r in recipients if r["kind"] == kind]


def _summary_fields(message: Row, recipients: Sequence[Row], labels: Sequence[Row],
                    attachment_count: int) -> dict[str, Any]:
    """The fields of a message's summary: its `SUMMARY_COLUMNS`, its 'to' recipients (of
    `recipients`, in id order), labels and number of attachments."""
    names = _label_names(labels)
    return dict(
        id=message["id"], thread_id=message["thread_id"],
        sender=Address(name=message["from_name"], email=message["from_email"]), to=_addresses(recipients, "to"),
        subject=message["subject"], snippet=" ".join(message["body"].split())[:120], date=message["date"],
        labels=names, is_read=message["is_read"], is_starred="STARRED" in names, is_draft="DRAFT" in names,
        attachment_count=attachment_count,
    )


def _summaries(ctx: ToolContext, messages: Sequence[Row],
               labels: Mapping[int, list[Row]] | None = None) -> list[MessageSummary]:
    """Summaries of message rows (at least `SUMMARY_COLUMNS`), their 'to' recipients and
    attachment counts read in one statement each, and their labels too unless given."""
    ids = [m["id"] for m in messages]
    if not ids:
        return []
    if labels is None:
        labels = _labels(ctx, ids)
    to = _recipients(ctx, ids, "to")
    attachments = {row["message_id"]: row["n"] for row in ctx.sql.all(
        f"SELECT message_id, count(*) AS n FROM attachments WHERE message_id IN ({LISTED}) GROUP BY message_id", [ids])}
    return [MessageSummary(**_summary_fields(m, to[m["id"]], labels.get(m["id"], []), attachments.get(m["id"], 0)))
            for m in messages]


def _details(ctx: ToolContext, messages: Sequence[Row], labels: Mapping[int, list[Row]] | None = None,
             recipients: Mapping[int, list[Row]] | None = None) -> list[MessageDetail]:
    """Message rows in full, their attachments read in one statement, and so are their labels
    and recipients (kind, name, email; in id order) unless given."""
    ids = [m["id"] for m in messages]
    if not ids:
        return []
    if labels is None:
        labels = _labels(ctx, ids)
    if recipients is None:
        recipients = _recipients(ctx, ids)
    attachments: defaultdict[int, list[Row]] = defaultdict(list)
    for row in ctx.sql.all("SELECT message_id, id, filename, mime_type, size_bytes FROM attachments "
                           f"WHERE message_id IN ({LISTED}) ORDER BY id", [ids]):
        attachments[row["message_id"]].append(row)
    details = []
    for m in messages:
        mine, files = recipients.get(m["id"], []), attachments[m["id"]]
        details.append(MessageDetail(
            **_summary_fields(m, mine, labels.get(m["id"], []), len(files)),
            cc=_addresses(mine, "cc"), bcc=_addresses(mine, "bcc"), body=m["body"],
            attachments=[AttachmentOut(**a) for a in files], header_message_id=m["header_id"],
            in_reply_to=m["in_reply_to"],
        ))
    return details


def _detail(ctx: ToolContext, message: Row, labels: Sequence[Row] | None = None,
            recipients: Sequence[Row] | None = None) -> MessageDetail:
    """One message in full, as `_details` renders it."""
    key = message["id"]
    return _details(ctx, [message], None if labels is None else {key: list(labels)},
                    None if recipients is None else {key: list(recipients)})[0]


def _visible(label: str | None, include_spam_trash: bool) -> tuple[list[str], list[Any]]:
    """Conditions on `messages` and their parameters: drafts show only under DRAFT; trash and
    spam only under their own label or when asked."""
    clauses: list[str] = []
    params: list[Any] = []
    if label is not None:
        clauses.append(f"messages.id IN ({TAGGED})")
        params.append([label])
    hidden = [name for name in ("DRAFT", *([] if include_spam_trash else HIDDEN_LABELS)) if name != label]
    if hidden:
        clauses.append(f"messages.id NOT IN ({TAGGED})")
        params.append(hidden)
    return clauses, params


def _address_match(name: str, email: str, value: str) -> tuple[str, list[Any]]:
    """A whole address matches `email` exactly; anything else is a case-insensitive part of the
    `name` or `email` column."""
    text = value.strip().lower()
    if EMAIL_RE.match(text):
        return f"lower({email}) = ?", [text]
    return f"(lower({name}) LIKE ? ESCAPE '/' OR lower({email}) LIKE ? ESCAPE '/')", [contains_pattern(text)] * 2


def _words(column: str, text: str | None) -> tuple[list[str], list[Any]]:
    """One condition per word of `text`: `column` contains it (case-insensitive)."""
    words = search_words(text)
    return [f"lower({column}) LIKE ? ESCAPE '/'"] * len(words), [contains_pattern(word) for word in words]


def _targets(ctx: ToolContext, message_id: int | None, thread_id: int | None) -> list[Row]:
    """The message rows a filing tool acts on: one message, or a thread's messages without its drafts."""
    if message_id is not None and thread_id is None:
        message = _message(ctx, message_id)
        if message["draft"]:
            raise ForbiddenError(f"message {message_id} is a draft; use update_draft, send_draft or delete_draft")
        return [message]
    if thread_id is None or message_id is not None:
        raise InvalidArgumentError("give exactly one of message_id or thread_id")
    _thread(ctx, thread_id)
    messages = [m for m in _thread_messages(ctx, thread_id) if not m["draft"]]
    if not messages:
        raise ForbiddenError(f"thread {thread_id} holds only drafts; use update_draft, send_draft or delete_draft")
    return messages


def _what(message_id: int | None, thread_id: int | None) -> str:
    return f"message {message_id}" if message_id is not None else f"thread {thread_id}"


def _relabel(ctx: ToolContext, messages: Sequence[Row], labels: dict[int, list[Row]],
             adding: Sequence[Row] = (), removing: Sequence[Row] = ()) -> int:
    """Add and remove labels on messages whose labels are `labels` (kept up to date); returns
    how many messages changed."""
    inserted: list[tuple[int, int]] = []
    removed = False
    changed = 0
    for message in messages:
        mine = labels.setdefault(message["id"], [])
        flags = []
        for label in adding:
            new = all(have["id"] != label["id"] for have in mine)
            if new:
                mine.append(label)
                inserted.append((message["id"], label["id"]))
            flags.append(new)
        for label in removing:
            had = any(have["id"] == label["id"] for have in mine)
            if had:
                mine[:] = [have for have in mine if have["id"] != label["id"]]
                removed = True
            flags.append(had)
        changed += any(flags)
    if removed:
        ctx.sql.execute(f"DELETE FROM message_labels WHERE message_id IN ({LISTED}) AND label_id IN ({LISTED})",
                        [[m["id"] for m in messages], [label["id"] for label in removing]])
    _insert_rows(ctx, "message_labels", ("message_id", "label_id"), inserted)
    return changed


def _changed(ctx: ToolContext, messages: list[Row], labels: dict[int, list[Row]], changed: int) -> MessagesChanged:
    return MessagesChanged(changed=changed, messages=_summaries(ctx, messages, labels))


def _insert_rows(ctx: ToolContext, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Insert `rows` (values in the order of `columns`), as many per statement as `MAX_VARIABLES`
    allows; their ids ascend in the order given."""
    per_statement = MAX_VARIABLES // len(columns)
    for start in range(0, len(rows), per_statement):
        chunk = rows[start:start + per_statement]
        values = ", ".join([f"({', '.join('?' * len(columns))})"] * len(chunk))
        ctx.sql.execute(f"INSERT INTO {table} ({', '.join(columns)}) VALUES {values}",
                        [value for row in chunk for value in row])



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


def _recipient_rows(ctx: ToolContext, entries: list[tuple[str, str | None, str]]) -> list[Row]:
    """Recipients (kind, name, email) of `(kind, name, email)` entries: each address once (its
    first kind), with the name the mailbox already knows (contact, then world person), else the
    one given. Mailboxes and contacts are read in one statement each, whatever the number of
    addresses."""
    home = ctx.world.home
    unique: dict[str, tuple[str, str | None]] = {}
    for kind, name, email in entries:
        unique.setdefault(email, (kind, name))
    colleagues = [email for email in unique if email.endswith("@" + home.domain)]
    if colleagues:
        mailboxes = set(ctx.sql.column(f"SELECT email FROM mailboxes WHERE email IN ({LISTED})", [colleagues]))
        for email in colleagues:
            if email not in mailboxes:
                raise NotFoundError(f"{email} is not a mailbox at {home.name}; "
                                    "list_contacts with kind 'colleague' lists your colleagues' addresses")
    emails = list(unique)
    known = {c["email"]: c["name"] for c in ctx.sql.all(
        f"SELECT email, name FROM contacts WHERE email IN ({LISTED})", [emails])} if emails else {}
    rows = []
    for email, (kind, given) in unique.items():
        name = known.get(email)
        if not name:
            person = _world_person(ctx, email)
            name = person.name if person is not None else given
        rows.append({"kind": kind, "name": name, "email": email})
    return rows


def _parse_all(to: list[str], cc: list[str], bcc: list[str]) -> list[tuple[str, str | None, str]]:
    return [(kind, *_parse_address(value)) for kind, values in (("to", to), ("cc", cc), ("bcc", bcc))
            for value in values]


def _remember(ctx: ToolContext, recipients: Sequence[Row]) -> None:
    """Add the recipients of sent mail to the contacts, as Gmail does."""
    emails = [r["email"] for r in recipients]
    known = set(ctx.sql.column(f"SELECT email FROM contacts WHERE email IN ({LISTED})", [emails]))
    contacts = []
    for r in recipients:
        if r["email"] in known:
            continue
        known.add(r["email"])
        person = _world_person(ctx, r["email"])
        if person is None:
            contacts.append((None, r["name"], r["email"], None, "external", ctx.now))
        else:
            contacts.append((person.id, person.name, r["email"], _organization_name(ctx, person.organization_id),
                             "colleague" if person.is_employee else "customer", ctx.now))
    _insert_rows(ctx, "contacts", ("person_id", "name", "email", "organization_name", "kind", "created_at"), contacts)


def _deliver(ctx: ToolContext, owner: Row, message: Row, recipients: Sequence[Row]) -> list[Row]:
    """Mark a composed message as sent now (its row's date too): SENT (and INBOX when sent to
    yourself), contacts kept; returns the labels it gained."""
    if not recipients:
        raise ForbiddenError("a message needs at least one recipient in to, cc or bcc")
    to_self = any(r["email"] == owner["email"] for r in recipients)
    labels = _labels_named(ctx, ["SENT", "INBOX"] if to_self else ["SENT"])
    _insert_rows(ctx, "message_labels", ("message_id", "label_id"), [(message["id"], label["id"]) for label in labels])
    if message["date"] != ctx.now:
        ctx.sql.execute("UPDATE messages SET date = ? WHERE id = ?", [ctx.now, message["id"]])
        message["date"] = ctx.now
    _remember(ctx, recipients)
    return labels


def _new_thread(ctx: ToolContext, subject: str) -> int:
    return ctx.sql.insert("INSERT INTO threads (subject) VALUES (?)", [subject])


def _compose(
    ctx: ToolContext, owner: Row, thread_id: int, subject: str, body: str, recipients: Sequence[Row],
    in_reply_to: str | None = None, attachments_of: int | None = None,
) -> Row:
    """A new message from the signed-in user in a thread, not yet labelled, with copies of the
    attachments of message `attachments_of`; returns its row."""
    message_id = (ctx.sql.scalar("SELECT max(id) FROM messages") or 0) + 1
    message: Row = {
        "id": message_id, "thread_id": thread_id,
        "header_id": f"<{ctx.now:%Y%m%d%H%M%S}.{message_id}@{owner['email'].split('@')[1]}>",
        "in_reply_to": in_reply_to, "from_name": owner["name"], "from_email": owner["email"], "subject": subject,
        "body": body, "date": ctx.now, "is_read": True,
    }
    _insert_rows(ctx, "messages", tuple(message), [tuple(message.values())])
    _insert_rows(ctx, "recipients", ("message_id", "kind", "name", "email"),
                 [(message_id, r["kind"], r["name"], r["email"]) for r in recipients])
    if attachments_of is not None:
        ctx.sql.execute("INSERT INTO attachments (message_id, filename, mime_type, size_bytes) "
                        "SELECT ?, filename, mime_type, size_bytes FROM attachments WHERE message_id = ? ORDER BY id",
                        [message_id, attachments_of])
    return message


def _prefixed(prefix: str, subject: str) -> str:
    return subject if subject.lower().startswith(prefix.lower()) else f"{prefix} {subject}"


def _sendable(ctx: ToolContext, message_id: int) -> Row:
    message = _message(ctx, message_id)
    if message["draft"]:
        raise ForbiddenError(f"message {message_id} is a draft; send it with send_draft or edit it with update_draft")
    return message


def _draft(ctx: ToolContext, draft_id: int) -> Row:
    message = _message(ctx, draft_id, "draft", DRAFT_HINT)
    if not message["draft"]:
        raise ForbiddenError(f"message {draft_id} is not a draft (it was already sent or received) and cannot be "
                             "edited, sent again or discarded; reply_to_message or forward_message it, or "
                             "trash_messages to remove it")
    return message


def _discard(ctx: ToolContext, messages: Sequence[Row]) -> Deleted:
    """Delete messages for good, with their recipients, attachments and labels, and the
    threads they leave empty."""
    ids = [m["id"] for m in messages]
    for table in ("message_labels", "recipients", "attachments"):
        ctx.sql.execute(f"DELETE FROM {table} WHERE message_id IN ({LISTED})", [ids])
    ctx.sql.execute(f"DELETE FROM messages WHERE id IN ({LISTED})", [ids])
    threads = list(dict.fromkeys(m["thread_id"] for m in messages))
    emptied = set(ctx.sql.column(f"SELECT id FROM threads WHERE id IN ({LISTED}) AND NOT EXISTS "
                                 "(SELECT 1 FROM messages WHERE messages.thread_id = threads.id)", [threads]))
    if emptied:
        ctx.sql.execute(f"DELETE FROM threads WHERE id IN ({LISTED})", [sorted(emptied)])
    return Deleted(message_ids=ids, thread_ids=[t for t in threads if t in emptied])


def _label_outs(ctx: ToolContext, labels: Sequence[Row]) -> list[LabelOut]:
    """Each label with its counts, as search_messages with that label would count them, all
    found in one grouped statement: a message counts under a label unless it also carries
    another of DRAFT, TRASH and SPAM (`hiding`: how many of them a message carries and, when
    one, which)."""
    counts = {row.pop("id"): row for row in ctx.sql.all(
        "SELECT message_labels.label_id AS id, count(*) AS messages_total, "
        "sum(messages.is_read = 0) AS messages_unread, count(DISTINCT messages.thread_id) AS threads_total "
        "FROM message_labels JOIN messages ON messages.id = message_labels.message_id LEFT JOIN ("
        "SELECT message_labels.message_id, count(*) AS n, min(message_labels.label_id) AS label_id FROM message_labels "
        f"JOIN labels ON labels.id = message_labels.label_id WHERE labels.name IN ({LISTED}) "
        "GROUP BY message_labels.message_id) AS hiding ON hiding.message_id = message_labels.message_id "
        f"WHERE message_labels.label_id IN ({LISTED}) "
        "AND (hiding.n IS NULL OR (hiding.n = 1 AND hiding.label_id = message_labels.label_id)) "
        "GROUP BY message_labels.label_id", [["DRAFT", *HIDDEN_LABELS], [label["id"] for label in labels]])}
    unused = {"messages_total": 0, "messages_unread": 0, "threads_total": 0}
    return [LabelOut(**label, **counts.get(label["id"], unused)) for label in labels]


def _label_out(ctx: ToolContext, label: Row) -> LabelOut:
    return _label_outs(ctx, [label])[0]


def _clean_label_name(ctx: ToolContext, name: str, keep: int | None = None) -> str:
    """`name` stripped, checked to be a free user label name (the label `keep` may hold it)."""
    clean = name.strip()
    if not clean:
        raise InvalidArgumentError("a label name cannot be blank")
    if clean.upper() in SYSTEM_LABELS:
        raise ForbiddenError(f"{clean!r} is the name of a system label and cannot be used for a user label")
    existing = next((label for label in _all_labels(ctx) if label["name"].lower() == clean.lower()), None)
    if existing is not None and existing["id"] != keep:
        raise InvalidArgumentError(f"a label named {existing['name']!r} already exists (id {existing['id']})")
    return clean


def _user_label(ctx: ToolContext, label_id: int, action: str) -> Row:
    label = _label(ctx, label_id)
    if label["type"] == "system":
        raise ForbiddenError(f"{label['name']} is a system label and cannot be {action}; only user labels can")
    return label


def _contact_outs(ctx: ToolContext, contacts: Sequence[Row]) -> list[ContactOut]:
    """Each contact with the number and latest date of the visible messages from or to them,
    all counted in one grouped statement."""
    emails = [c["email"] for c in contacts]
    if not emails:
        return []
    visible, params = _visible(None, include_spam_trash=False)
    rows = ctx.sql.all(
        "SELECT involved.email, count(DISTINCT messages.id) AS message_count, max(messages.date) AS date FROM ("
        f"SELECT id AS message_id, from_email AS email FROM messages WHERE from_email IN ({LISTED}) UNION "
        f"SELECT message_id, email FROM recipients WHERE email IN ({LISTED})"
        f") AS involved JOIN messages ON messages.id = involved.message_id WHERE {' AND '.join(visible)} "
        "GROUP BY involved.email", [emails, emails, *params], Message)
    seen = {row["email"]: {"message_count": row["message_count"], "last_message_at": row["date"]} for row in rows}
    unseen = {"message_count": 0, "last_message_at": None}
    return [ContactOut(**c, **seen.get(c["email"], unseen), first_seen_at=c["created_at"]) for c in contacts]


def _check_range(after: datetime | None, before: datetime | None) -> None:
    if after is not None and before is not None and after >= before:
        raise InvalidArgumentError("after must be earlier than before")

# ---------------------------------------------------------------- reads


@tools.tool(examples=[{}])
def get_profile(ctx: ToolContext) -> Profile:
    """Who you are signed in as (name, email, organisation, job title) and the size of the mailbox."""
    visible, params = _visible("INBOX", include_spam_trash=False)
    profile = ctx.sql.one(
        "SELECT name, email, job_title, (SELECT count(*) FROM messages) AS messages_total, "
        "(SELECT count(*) FROM threads) AS threads_total, "
        f"(SELECT count(*) FROM messages WHERE {' AND '.join(visible)} AND messages.is_read = 0) AS inbox_unread "
        "FROM mailboxes WHERE id = ?", [*params, OWNER_MAILBOX_ID])
    if profile is None:
        raise missing("mailbox", OWNER_MAILBOX_ID, "The signed-in mailbox is missing.")
    return Profile(**profile, organization_name=ctx.world.home.name)


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
    label_name = None if label is None else _label_named(ctx, label)["name"]
    clauses, params = _visible(label_name, include_spam_trash)
    for word in search_words(query):
        clauses.append("(lower(messages.subject) LIKE ? ESCAPE '/' OR lower(messages.body) LIKE ? ESCAPE '/')")
        params += [contains_pattern(word)] * 2
    if sender:
        condition, values = _address_match("messages.from_name", "messages.from_email", sender)
        clauses.append(condition)
        params += values
    if recipient:
        condition, values = _address_match("recipients.name", "recipients.email", recipient)
        clauses.append(f"messages.id IN (SELECT recipients.message_id FROM recipients WHERE {condition})")
        params += values
    for column, text in (("messages.subject", subject), ("messages.body", body)):
        conditions, values = _words(column, text)
        clauses += conditions
        params += values
    if is_unread is not None:
        clauses.append("messages.is_read = ?")
        params.append(not is_unread)
    if has_attachment is not None:
        clauses.append(f"messages.id {'' if has_attachment else 'NOT '}IN (SELECT message_id FROM attachments)")
    for condition, value in (("messages.date >= ?", after), ("messages.date < ?", before)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    direction = "DESC" if sort_order == "desc" else "ASC"
    order = f"messages.date {direction}, messages.id {direction}"
    found = ctx.sql.page(SUMMARY_COLUMNS, f"FROM messages WHERE {' AND '.join(clauses) or '1'} ORDER BY {order}",
                         params, page, per_page, Message)
    return MessagePage(messages=_summaries(ctx, found.rows), total=found.total, page=page, next_page=found.next_page)


@tools.tool(examples=[{"message_id": 2696}])
def get_message(ctx: ToolContext, message_id: MessageIdArg) -> MessageDetail:
    """Get one message in full: headers (from, to, cc, bcc, Message-ID, In-Reply-To), body, labels, attachments."""
    return _detail(ctx, _message(ctx, message_id))


@tools.tool(examples=[{"thread_id": 1028}])
def get_thread(ctx: ToolContext, thread_id: Annotated[int, Field(description="The thread's id.")]) -> ThreadOut:
    """Get a conversation: every message of the thread in full, oldest first."""
    thread = _thread(ctx, thread_id)
    messages = _thread_messages(ctx, thread_id)
    labels = _labels(ctx, [m["id"] for m in messages])
    carried = {label["id"]: label for m in messages for label in labels[m["id"]]}
    return ThreadOut(id=thread["id"], subject=thread["subject"], message_count=len(messages),
                     labels=_label_names(carried.values()), messages=_details(ctx, messages, labels))


@tools.tool(examples=[{}])
def list_labels(ctx: ToolContext) -> LabelList:
    """List system and user labels with their message, unread and thread counts.

    Counts match search_messages with that label: drafts count only under DRAFT, and trash and
    spam only under TRASH and SPAM.
    """
    labels = sorted(ctx.sql.all("SELECT id, name, type FROM labels ORDER BY id"), key=_label_order)
    return LabelList(labels=_label_outs(ctx, labels))


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
    clauses = ["1"]
    params: list[Any] = []
    if query:
        clauses.append("(lower(name) LIKE ? ESCAPE '/' OR lower(email) LIKE ? ESCAPE '/')")
        params += [contains_pattern(query.strip().lower())] * 2
    if organization:
        clauses.append("lower(organization_name) LIKE ? ESCAPE '/'")
        params.append(contains_pattern(organization.strip().lower()))
    if kind:
        clauses.append("kind = ?")
        params.append(kind)
    found = ctx.sql.page("*", f"FROM contacts WHERE {' AND '.join(clauses)} ORDER BY name IS NULL, name, email, id",
                         params, page, per_page, Contact)
    return ContactPage(contacts=_contact_outs(ctx, found.rows), total=found.total, page=page, next_page=found.next_page)


@tools.tool(examples=[{"email": "amy.velazquez@northwindsystems.com"}])
def lookup_contact(
    ctx: ToolContext,
    email: Annotated[str, Field(min_length=3, max_length=160, description="The exact email address, e.g. 'jane.doe@acme.com'.")],
) -> ContactOut:
    """Look up a person by email address: their name, organisation and how much mail you exchanged."""
    address = email.strip().lower()
    contact = ctx.sql.one("SELECT * FROM contacts WHERE email = ?", [address], Contact)
    if contact is None:
        raise NotFoundError(f"no contact with email {address}. {CONTACT_HINT}")
    return _contact_outs(ctx, [contact])[0]


# ---------------------------------------------------------------- labels


@tools.tool(writes=True, destructive=False, idempotent=True, title="Create a mail label", examples=[{"name": "Projects/Harbor"}])
def create_label(ctx: ToolContext, name: LabelNameArg) -> LabelOut:
    """Create a user label. Names are unique (case-insensitive) and cannot be a system label's name."""
    clean = _clean_label_name(ctx, name)
    label_id = ctx.sql.insert("INSERT INTO labels (name, type) VALUES (?, 'user')", [clean])
    return _label_out(ctx, {"id": label_id, "name": clean, "type": "user"})


@tools.tool(writes=True, destructive=True, idempotent=True, title="Rename a mail label", examples=[{"label_id": 15, "name": "Receipts/2025"}])
def rename_label(ctx: ToolContext, label_id: LabelIdArg, name: LabelNameArg) -> LabelOut:
    """Rename a user label; its messages keep it. System labels cannot be renamed."""
    before = _user_label(ctx, label_id, "renamed")
    label = {**before, "name": _clean_label_name(ctx, name, keep=label_id)}
    ctx.sql.update_row(Label, before, label)
    return _label_out(ctx, label)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Delete a mail label", examples=[{"label_id": 15}])
def delete_label(ctx: ToolContext, label_id: LabelIdArg) -> LabelDeleted:
    """Delete a user label and remove it from every message; the messages themselves stay."""
    label = _user_label(ctx, label_id, "deleted")
    affected = ctx.sql.execute("DELETE FROM message_labels WHERE label_id = ?", [label_id])
    ctx.sql.execute("DELETE FROM labels WHERE id = ?", [label_id])
    return LabelDeleted(id=label["id"], name=label["name"], messages_affected=affected)


# ---------------------------------------------------------------- filing


@tools.tool(writes=True, destructive=True, idempotent=True, title="Change the labels of messages", examples=[
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
    named = _labels_named(ctx, [*add_labels, *remove_labels])
    adding, removing = named[:len(add_labels)], named[len(add_labels):]
    for label in named:
        if label["name"] in RESERVED_LABELS:
            raise ForbiddenError(f"the {label['name']} label cannot be set by hand; "
                                 "SENT and DRAFT come from sending and drafting, TRASH from trash_messages/untrash_messages")
    removed = {label["id"] for label in removing}
    both = [label["name"] for label in adding if label["id"] in removed]
    if both:
        raise InvalidArgumentError(f"label(s) {', '.join(both)} are both added and removed")
    labels = _labels(ctx, [m["id"] for m in messages])
    changed = _relabel(ctx, messages, labels, adding, removing)
    return _changed(ctx, messages, labels, changed)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Mark messages read or unread", examples=[{"thread_id": 1028, "read": True}])
def mark_read(
    ctx: ToolContext,
    message_id: TargetMessage = None,
    thread_id: TargetThread = None,
    read: Annotated[bool, Field(description="True to mark as read, False to mark as unread.")] = True,
) -> MessagesChanged:
    """Mark a message or a whole thread as read or unread."""
    messages = _targets(ctx, message_id, thread_id)
    flipped = [m["id"] for m in messages if m["is_read"] != read]
    if flipped:
        ctx.sql.execute(f"UPDATE messages SET is_read = ? WHERE id IN ({LISTED})", [read, flipped])
    messages = [{**m, "is_read": read} for m in messages]
    return _changed(ctx, messages, _labels(ctx, [m["id"] for m in messages]), len(flipped))


@tools.tool(writes=True, destructive=True, idempotent=True, title="Archive messages", examples=[{"thread_id": 1030}])
def archive_messages(ctx: ToolContext, message_id: TargetMessage = None, thread_id: TargetThread = None) -> MessagesChanged:
    """Archive a message or thread: remove it from the inbox, keeping every other label."""
    messages = _targets(ctx, message_id, thread_id)
    inbox = _label_named(ctx, "INBOX")
    labels = _labels(ctx, [m["id"] for m in messages])
    changed = _relabel(ctx, messages, labels, removing=[inbox])
    if not changed:
        raise ForbiddenError(f"{_what(message_id, thread_id)} is not in the inbox (already archived)")
    return _changed(ctx, messages, labels, changed)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Move messages to the trash", examples=[{"message_id": 2710}])
def trash_messages(ctx: ToolContext, message_id: TargetMessage = None, thread_id: TargetThread = None) -> MessagesChanged:
    """Move a message or thread to the trash (adds TRASH, keeps its other labels).

    Trashed mail is hidden from search_messages unless label is 'TRASH'; untrash_messages restores it.
    """
    messages = _targets(ctx, message_id, thread_id)
    trash = _label_named(ctx, "TRASH")
    labels = _labels(ctx, [m["id"] for m in messages])
    changed = _relabel(ctx, messages, labels, adding=[trash])
    if not changed:
        raise ForbiddenError(f"{_what(message_id, thread_id)} is already in the trash; "
                             "delete_permanently removes it for good")
    return _changed(ctx, messages, labels, changed)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Take messages out of the trash", examples=[{"thread_id": 1027}])
def untrash_messages(ctx: ToolContext, message_id: TargetMessage = None, thread_id: TargetThread = None) -> MessagesChanged:
    """Take a message or thread out of the trash, back where it was."""
    messages = _targets(ctx, message_id, thread_id)
    trash = _label_named(ctx, "TRASH")
    labels = _labels(ctx, [m["id"] for m in messages])
    changed = _relabel(ctx, messages, labels, removing=[trash])
    if not changed:
        raise ForbiddenError(f"{_what(message_id, thread_id)} is not in the trash")
    return _changed(ctx, messages, labels, changed)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Delete messages permanently", examples=[{"thread_id": 1016}])
def delete_permanently(ctx: ToolContext, message_id: TargetMessage = None, thread_id: TargetThread = None) -> Deleted:
    """Delete a message or thread for good. Only messages in the trash can be deleted; this cannot be undone."""
    messages = _targets(ctx, message_id, thread_id)
    labels = _labels(ctx, [m["id"] for m in messages])
    outside = [m["id"] for m in messages if not _has(labels[m["id"]], "TRASH")]
    if outside:
        raise ForbiddenError(f"message(s) {', '.join(map(str, outside))} are not in the trash; "
                             "move them there with trash_messages first")
    return _discard(ctx, messages)


# ---------------------------------------------------------------- writing


@tools.tool(writes=True, destructive=False, idempotent=False, title="Send an email", examples=[
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
    owner = _owner(ctx)
    message = _compose(ctx, owner, _new_thread(ctx, subject), subject, body, recipients)
    return _detail(ctx, message, _deliver(ctx, owner, message, recipients), recipients)


@tools.tool(writes=True, destructive=False, idempotent=False, title="Reply to an email", examples=[{"message_id": 2703, "body": "Thursday at 14:00 works for me.", "reply_all": True}])
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
    originals = [(r["kind"], r["name"], r["email"]) for r in _recipients(ctx, [message_id])[message_id]
                 if r["email"] != owner["email"] and r["kind"] != "bcc"]
    if original["from_email"] == owner["email"]:
        entries = [e for e in originals if e[0] == "to" or reply_all]
    else:
        entries = [("to", original["from_name"], original["from_email"])] + (originals if reply_all else [])
    recipients = _recipient_rows(ctx, entries)
    message = _compose(ctx, owner, original["thread_id"], _prefixed("Re:", original["subject"]), body, recipients,
                       in_reply_to=original["header_id"])
    return _detail(ctx, message, _deliver(ctx, owner, message, recipients), recipients)


@tools.tool(writes=True, destructive=False, idempotent=False, title="Forward an email", examples=[
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
    sender = original["from_email"] if original["from_name"] is None else f"{original['from_name']} <{original['from_email']}>"
    addressed = _recipients(ctx, [message_id], "to")[message_id]
    quoted = (f"---------- Forwarded message ---------\nFrom: {sender}\nDate: {format_timestamp(original['date'])}\n"
              f"Subject: {original['subject']}\nTo: {', '.join(r['email'] for r in addressed)}\n\n"
              f"{original['body']}")
    owner = _owner(ctx)
    message = _compose(ctx, owner, original["thread_id"], _prefixed("Fwd:", original["subject"]),
                       f"{note}\n\n{quoted}" if note else quoted, recipients,
                       in_reply_to=original["header_id"], attachments_of=message_id)
    return _detail(ctx, message, _deliver(ctx, owner, message, recipients), recipients)


# ---------------------------------------------------------------- drafts


@tools.tool(writes=True, destructive=False, idempotent=False, title="Save a draft", examples=[
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
        thread_id, title, in_reply_to = _new_thread(ctx, subject or ""), subject or "", None
    else:
        original = _sendable(ctx, reply_to_message_id)
        thread_id, in_reply_to = original["thread_id"], original["header_id"]
        title = subject or _prefixed("Re:", original["subject"])
    message = _compose(ctx, _owner(ctx), thread_id, title, body, recipients, in_reply_to=in_reply_to)
    draft = _label_named(ctx, "DRAFT")
    _insert_rows(ctx, "message_labels", ("message_id", "label_id"), [(message["id"], draft["id"])])
    return _detail(ctx, message, [draft], recipients)


@tools.tool(writes=True, destructive=True, idempotent=False, title="Edit a draft", examples=[
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
    before = _draft(ctx, draft_id)
    if all(v is None for v in (to, cc, bcc, subject, body)):
        raise InvalidArgumentError("give at least one of to, cc, bcc, subject or body to change")
    draft = dict(before)
    new: list[Row] | None = None
    if to is not None or cc is not None or bcc is not None:
        old = _recipients(ctx, [draft_id])[draft_id]
        given = {"to": to, "cc": cc, "bcc": bcc}
        entries = []
        for kind, values in given.items():
            if values is None:
                entries.extend((kind, r["name"], r["email"]) for r in old if r["kind"] == kind)
            else:
                entries.extend((kind, *_parse_address(value)) for value in values)
        new = _recipient_rows(ctx, entries)
        # The new recipients are written before the old ones go, so they never reuse their ids.
        _insert_rows(ctx, "recipients", ("message_id", "kind", "name", "email"),
                     [(draft_id, r["kind"], r["name"], r["email"]) for r in new])
        if old:
            ctx.sql.execute(f"DELETE FROM recipients WHERE id IN ({LISTED})", [[r["id"] for r in old]])
    if subject is not None:
        draft["subject"] = subject
        if ctx.sql.scalar("SELECT count(*) FROM messages WHERE thread_id = ?", [draft["thread_id"]]) == 1:
            ctx.sql.execute("UPDATE threads SET subject = ? WHERE id = ? AND subject != ?",
                            [subject, draft["thread_id"], subject])
    if body is not None:
        draft["body"] = body
    draft["date"] = ctx.now
    ctx.sql.update_row(Message, before, draft)
    return _detail(ctx, draft, recipients=new)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Send a draft", examples=[{"draft_id": 2711}])
def send_draft(ctx: ToolContext, draft_id: DraftIdArg) -> MessageDetail:
    """Send a draft as it is; it loses the DRAFT label and gets SENT. It needs at least one recipient."""
    draft = _draft(ctx, draft_id)
    label = _label_named(ctx, "DRAFT")
    ctx.sql.execute("DELETE FROM message_labels WHERE message_id = ? AND label_id = ?", [draft_id, label["id"]])
    recipients = _recipients(ctx, [draft_id])[draft_id]
    _deliver(ctx, _owner(ctx), draft, recipients)
    return _detail(ctx, draft, recipients=recipients)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Discard a draft", examples=[{"draft_id": 2719}])
def delete_draft(ctx: ToolContext, draft_id: DraftIdArg) -> Deleted:
    """Discard a draft for good (and its thread, if nothing else is in it)."""
    return _discard(ctx, [_draft(ctx, draft_id)])
