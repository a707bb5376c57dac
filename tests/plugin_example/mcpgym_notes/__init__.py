"""Notes: a team's shared notebooks, an example of a server added to mcpgym as a plugin."""

from mcpgym.servers.kernel.spec import ServerSpec
from mcpgym_notes.models import Base
from mcpgym_notes.seed import populate
from mcpgym_notes.tools import tools

SERVER = ServerSpec(
    name="notes",
    title="Team notes",
    instructions=(
        "You manage the shared notebooks of Northwind Systems' employees. Notes belong to a notebook "
        "and have an author. Policy: a pinned note cannot be deleted (unpin it first); note titles are "
        "unique within a notebook. Times are UTC, ISO 8601."
    ),
    base=Base,
    populate=populate,
    tools=tools,
)

__all__ = ["SERVER"]
