"""Zendesk: a help desk of tickets, comments, users, organisations, groups, tags and ratings."""

from mcpgym.servers.kernel.spec import ServerSpec
from mcpgym.servers.zendesk.models import Base
from mcpgym.servers.zendesk.seed import populate
from mcpgym.servers.zendesk.tools import tools

SERVER = ServerSpec(
    name="zendesk",
    title="Zendesk help desk",
    instructions=(
        "You are a support agent (user id 1, an admin) in the Zendesk help desk of Northwind Systems. "
        "Tickets have ids, statuses (new, open, pending, hold, solved, closed), priorities, tags, "
        "requesters (end-users) and assignees (agents). Times are UTC, ISO 8601."
    ),
    base=Base,
    populate=populate,
    tools=tools,
)

__all__ = ["SERVER"]
