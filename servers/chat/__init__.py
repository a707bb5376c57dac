"""Chat: a Slack-like workspace of channels, threads, direct messages, mentions, reactions and pins."""

from mcpgym.servers.chat.models import Base
from mcpgym.servers.chat.seed import populate
from mcpgym.servers.chat.tools import tools
from mcpgym.servers.kernel.spec import ServerSpec

SERVER = ServerSpec(
    name="chat",
    title="Slack-like team chat",
    instructions=(
        "You are signed in to the Slack workspace of Northwind Systems as user 1, an account manager and a "
        "regular member (not an admin); get_user with user_id 1 says who you are. Messages you post, reply, "
        "edit or react with are yours, and so are the channels you create and your status. Conversations are "
        "channels (public or private, with a name such as #sales: find_channel finds one by name) and direct "
        "messages (dm: two people; group_dm: up to nine), each with an integer id; messages and users have "
        "integer ids too. A message mentions someone by writing <@USER_ID> in its text. Shared customer "
        "channels (#acct-...) include guests from the customer and carry the customer's CRM account id "
        "(crm_account_id). Times are UTC, ISO 8601 (e.g. 2025-11-12T17:00:00Z).\n"
        "Rules:\n"
        "- Archived channels are read-only: no posting, replying, editing, deleting, reacting, pinning, "
        "inviting, joining or leaving until the channel is unarchived.\n"
        "- You post, reply, react, pin and invite only in conversations you are a member of; join a public "
        "channel first.\n"
        "- A private channel or a DM exists only for its members: to anyone else it is not found.\n"
        "- Only a message's author may edit or delete it.\n"
        "- Only a channel's creator or a workspace admin may archive or unarchive it; #general can be "
        "neither archived nor left.\n"
        "- Channel names are unique, lowercase letters a-z, digits, hyphens and underscores, at most 80 "
        "characters.\n"
        "- Guests (people outside Northwind) can be invited only to shared customer channels.\n"
        "- A channel holds at most 100 pinned messages."
    ),
    base=Base,
    populate=populate,
    tools=tools,
    links=("crm",),
)

__all__ = ["SERVER"]
