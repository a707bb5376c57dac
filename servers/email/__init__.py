"""Email: a Gmail-like mailbox of threads, messages, labels, drafts and contacts."""

from mcpgym.servers.email.models import Base
from mcpgym.servers.email.seed import populate
from mcpgym.servers.email.tools import tools
from mcpgym.servers.kernel.spec import ServerSpec

SERVER = ServerSpec(
    name="email",
    title="Gmail mailbox",
    instructions=(
        "You are signed in to the Gmail mailbox of an account manager at Northwind Systems "
        "(get_profile says who you are); every tool acts on this mailbox and mail you send is from "
        "you. Messages, threads, labels and contacts have integer ids; drafts are messages carrying "
        "the DRAFT label. System labels are INBOX, SENT, DRAFT, TRASH, SPAM, STARRED and IMPORTANT; "
        "user labels are named by you. Addresses are written 'name@example.com' or "
        "'Name <name@example.com>'. Times are UTC, ISO 8601."
    ),
    base=Base,
    populate=populate,
    tools=tools,
)

__all__ = ["SERVER"]
