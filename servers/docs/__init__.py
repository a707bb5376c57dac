"""Docs: the wiki of Northwind Systems (like Confluence or Notion): spaces, page trees, page
versions, comments, labels and page restrictions."""

from mcpgym.servers.docs.models import Base
from mcpgym.servers.docs.seed import populate
from mcpgym.servers.docs.tools import tools
from mcpgym.servers.kernel.spec import ServerSpec

SERVER = ServerSpec(
    name="docs",
    title="Docs wiki",
    instructions=(
        "You are user 1 (an employee of Northwind Systems, in Support) in the company wiki. Spaces (keys such as "
        "ENG, SUP, SALES, HR, PROD, IT) hold pages in trees; every edit of a page makes a new version. Page ids come "
        "from search_pages or get_page_tree; people from search_users or get_user_by_email. Times are UTC, ISO 8601.\n"
        "Rules:\n"
        "- A page with a view restriction (its own or an ancestor's) is visible only to the people listed; a page "
        "you cannot view never appears and answers not_found.\n"
        "- A page with an edit restriction may be edited, renamed, moved, relabelled, restored, re-restricted or "
        "deleted only by its listed editors; anyone else who can view it is refused (forbidden) and should ask an editor.\n"
        "- Page titles are unique within a space (ignoring case).\n"
        "- A page with child pages cannot be deleted: move or delete its children first.\n"
        "- Editing, renaming and restoring make a new version; old versions are never lost, and restoring an old "
        "version makes a new current version with its title and text.\n"
        "- An edit that names a base_version older than the current version is refused: re-read the page first.\n"
        "- Only inline comments can be resolved.\n"
        "- Restrictions you set must keep you (user 1) among the viewers and editors, and editors must be viewers."
    ),
    base=Base,
    populate=populate,
    tools=tools,
    links=("zendesk",),
)

__all__ = ["SERVER"]
