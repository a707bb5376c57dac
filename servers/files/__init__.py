"""Files: a Google Drive-like drive of nested folders and files, shared with employees and
customers, with revisions, a trash and storage quotas."""

from mcpgym.servers.files.models import Base
from mcpgym.servers.files.seed import populate
from mcpgym.servers.files.tools import tools
from mcpgym.servers.kernel.spec import ServerSpec

SERVER = ServerSpec(
    name="files",
    title="Google Drive-like file storage",
    instructions=(
        "You are signed in to the company drive of Northwind Systems as user 1, a member of the Sales team "
        "(get_storage_usage with user_id 1 says who you are). Files and folders share one kind of integer id; a "
        "folder holds files and folders, and top-level folders belong to departments (Sales, Engineering, ...) "
        "and to Customers, which holds a folder per key customer account (named as the account in the CRM). "
        "People are the company's employees and the contacts of its customers, found by name (search_users) or "
        "email (get_user_by_email). Sizes are in bytes (1 GB = 1,000,000,000 bytes); times are UTC, ISO 8601.\n"
        "Access: every employee can find and view every item that is not in the trash. Beyond that, your role "
        "on an item (get_file's your_role) is owner if you own it; editor on everything inside a folder you own; "
        "otherwise the strongest role shared with you on the item or on a folder above it (viewer, commenter or "
        "editor).\n"
        "Rules:\n"
        "- Only owners and editors may rename, move, share, change or remove shares, change a description, or "
        "add items (create, upload, copy) to a folder; viewers and commenters may not. Starring needs only view "
        "access.\n"
        "- Only an item's owner may transfer its ownership, move it to the trash, restore it, or delete it "
        "forever.\n"
        "- Ownership can be transferred only to an employee of Northwind Systems (an @northwindsystems.com "
        "address); the previous owner stays on as an editor.\n"
        "- People outside Northwind (customers) may be given viewer or commenter access, never editor.\n"
        "- Nothing in the trash can be shared, moved, renamed, copied or changed; restore it first. The trash is "
        "hidden from listings and searches unless you search it (search_files with trashed=true).\n"
        "- Only items in the trash can be deleted forever (move them to the trash first); an item that went to "
        "the trash with its folder is restored or deleted with that folder.\n"
        "- Each employee has a storage quota; every file they own counts, files in the trash included, until "
        "deleted forever. An upload or a copy (you own it) that would exceed your quota is refused, and so is "
        "a transfer that would exceed the new owner's.\n"
        "- Names are unique within a folder (ignoring case) and cannot contain '/'; folders nest at most 20 "
        "levels deep and cannot be copied."
    ),
    base=Base,
    populate=populate,
    tools=tools,
    links=("crm",),
)

__all__ = ["SERVER"]
