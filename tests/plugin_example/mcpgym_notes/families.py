"""Task families of the notes server, found by `mcpgym synth` through the `mcpgym.families`
entry point."""

from __future__ import annotations

import random

from mcpgym.synth.family import Draft, Family, WorldView

SERVER = "notes"


class NotebookSize(Family):
    """How many notes a notebook the user names holds."""

    name = "notes.notebook-size"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        notebook = rng.choice(view.read(SERVER, "list_notebooks")["notebooks"])
        user = [f"How many notes are in the {notebook['name']} notebook?",
                f"Count the notes we keep in {notebook['name']}."]
        return Draft(
            family=self.name, key=f"notebook:{notebook['id']}",
            turns=[{"user": user, "calls": [{"id": "c1", "tool": "list_notebooks"}],
                    "facts": [{"name": "notes", "expr": f"{{c1.notebooks.{notebook['id'] - 1}.note_count}}", "value": None}]}],
            checks=[f"{{c1.notebooks.{notebook['id'] - 1}.id}} == {notebook['id']}"],
        )


class DeleteNote(Family):
    """Delete a note the user names by title; a pinned one must be unpinned first."""

    name = "notes.delete"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        note = rng.choice(view.read(SERVER, "search_notes", per_page=50)["notes"])
        calls = [{"id": "c1", "tool": "search_notes", "arguments": {"query": note["title"], "per_page": 5}}]
        if note["pinned"]:
            calls.append({"id": "c2", "tool": "set_pinned", "arguments": {"pinned": False}, "bind": {"note_id": "{c1.notes.0.id}"}})
        calls.append({"id": "c3", "tool": "delete_note", "bind": {"note_id": "{c1.notes.0.id}"}})
        user = [f"Delete the note \"{note['title']}\", even if it is pinned.",
                f"Remove our \"{note['title']}\" note for good (unpin it if you must)."]
        return Draft(family=self.name, key=f"note:{note['id']}", writes=True,
                     turns=[{"user": user, "calls": calls, "facts": []}], checks=["{c1.total} == 1"])


FAMILIES = (NotebookSize(), DeleteNote())
