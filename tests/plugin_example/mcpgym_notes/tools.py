"""The notes tools: find, read, write and delete notes in plain SQL through `ctx.sql`."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import Body, Page, PerPage, Timestamp
from mcpgym.servers.kernel.lookup import row_or_raise
from mcpgym.servers.kernel.sql import contains_pattern
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry
from mcpgym_notes.models import Note, Notebook

tools = ToolRegistry()

ACTING_PERSON_ID = 1
"""The employee on whose behalf notes are written."""

NOTE_HINT = "Find notes with search_notes."
NoteId = Annotated[int, Field(description="The note's id, from search_notes.")]
Title = Annotated[str, Field(min_length=1, max_length=200, description="The note's title, unique within its notebook.")]


class NotebookOut(BaseModel):
    id: int
    name: str
    note_count: int


class NotebookList(BaseModel):
    notebooks: list[NotebookOut]


class NoteOut(BaseModel):
    id: int
    notebook_id: int
    author_id: int
    author_email: str
    title: str
    body: str
    pinned: bool
    updated_at: Timestamp


class NotePage(BaseModel):
    notes: list[NoteOut]
    total: int
    page: int
    next_page: int | None


class Deleted(BaseModel):
    id: int
    deleted: bool


NOTE_COLUMNS = ("notes.id, notes.notebook_id, notes.author_id, people.email AS author_email, notes.title, "
                "notes.body, notes.pinned, notes.updated_at")
NOTE_FROM = "FROM notes JOIN people ON people.id = notes.author_id"


def _note(ctx: ToolContext, note_id: int) -> NoteOut:
    row = ctx.sql.one(f"SELECT {NOTE_COLUMNS} {NOTE_FROM} WHERE notes.id = ?", [note_id], Note)
    if row is None:
        raise NotFoundError(f"no note with id {note_id}. {NOTE_HINT}")
    return NoteOut(**row)


@tools.tool(examples=[{}])
def list_notebooks(ctx: ToolContext) -> NotebookList:
    """Every notebook with its number of notes."""
    rows = ctx.sql.all("SELECT notebooks.id, notebooks.name, count(notes.id) AS note_count FROM notebooks "
                       "LEFT JOIN notes ON notes.notebook_id = notebooks.id GROUP BY notebooks.id ORDER BY notebooks.id")
    return NotebookList(notebooks=[NotebookOut(**row) for row in rows])


@tools.tool(examples=[{"note_id": 3}])
def get_note(ctx: ToolContext, note_id: NoteId) -> NoteOut:
    """One note with its body."""
    return _note(ctx, note_id)


@tools.tool(examples=[{"query": "runbooks", "per_page": 5}])
def search_notes(
    ctx: ToolContext,
    query: Annotated[str | None, Field(max_length=200, description="Text the title must contain (case-insensitive).")] = None,
    notebook_id: Annotated[int | None, Field(description="Only notes of this notebook.")] = None,
    author_email: Annotated[str | None, Field(max_length=200, description="Only notes written by this person.")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> NotePage:
    """Notes whose title contains the query, newest first, one page at a time."""
    where, params = ["1 = 1"], []
    if query:
        where.append("lower(notes.title) LIKE ? ESCAPE '/'")
        params.append(contains_pattern(query.lower()))
    if notebook_id is not None:
        where.append("notes.notebook_id = ?")
        params.append(notebook_id)
    if author_email is not None:
        where.append("people.email = ?")
        params.append(author_email)
    found = ctx.sql.page(NOTE_COLUMNS, f"{NOTE_FROM} WHERE {' AND '.join(where)} ORDER BY notes.updated_at DESC, notes.id",
                         params, page, per_page, Note)
    return NotePage(notes=[NoteOut(**row) for row in found.rows], total=found.total, page=page, next_page=found.next_page)


@tools.tool(writes=True, examples=[{"notebook_id": 2, "title": "Failover drill", "body": "Steps we rehearsed."}])
def create_note(
    ctx: ToolContext,
    notebook_id: Annotated[int, Field(description="The notebook's id, from list_notebooks.")],
    title: Title,
    body: Annotated[Body, Field(description="The note's text.")],
) -> NoteOut:
    """Write a new note in a notebook, as the acting employee."""
    row_or_raise(ctx, Notebook, notebook_id, "notebook", "List notebooks with list_notebooks.")
    if ctx.sql.scalar("SELECT 1 FROM notes WHERE notebook_id = ? AND title = ?", [notebook_id, title]):
        raise InvalidArgumentError(f"notebook {notebook_id} already has a note titled {title!r}; choose another title")
    note_id = ctx.sql.insert(
        "INSERT INTO notes (notebook_id, author_id, title, body, pinned, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
        [notebook_id, ACTING_PERSON_ID, title, body, False, ctx.now])
    return _note(ctx, note_id)


@tools.tool(writes=True, idempotent=True, destructive=True, examples=[{"note_id": 3, "pinned": False}])
def set_pinned(ctx: ToolContext, note_id: NoteId,
               pinned: Annotated[bool, Field(description="True to pin the note, false to unpin it.")]) -> NoteOut:
    """Pin or unpin a note (pinned notes are kept: they cannot be deleted)."""
    _note(ctx, note_id)
    ctx.sql.execute("UPDATE notes SET pinned = ?, updated_at = ? WHERE id = ?", [pinned, ctx.now, note_id])
    return _note(ctx, note_id)


@tools.tool(writes=True, destructive=True, examples=[{"note_id": 4}])
def delete_note(ctx: ToolContext, note_id: NoteId) -> Deleted:
    """Delete a note for good. A pinned note must be unpinned first."""
    note = _note(ctx, note_id)
    if note.pinned:
        raise ForbiddenError(f"note {note_id} is pinned, and pinned notes cannot be deleted; unpin it first")
    ctx.sql.execute("DELETE FROM notes WHERE id = ?", [note_id])
    return Deleted(id=note_id, deleted=True)
