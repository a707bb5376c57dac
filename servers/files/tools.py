"""The drive tools: browse, search and read files and folders, share them, move them around, and
manage the trash and storage, as an employee of Northwind Systems does."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field

from mcpgym.servers.files.models import (
    ACTING_USER_ID,
    FOLDER_MIME,
    KINDS,
    ROLES,
    File,
    Permission,
    Revision,
    User,
    kind_of,
)
from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import DateTimeArg, Page, PerPage, Timestamp
from mcpgym.servers.kernel.lookup import missing, row_or_raise
from mcpgym.servers.kernel.query import search_words
from mcpgym.servers.kernel.sql import Row, contains_pattern
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry

tools = ToolRegistry()

MAX_DEPTH = 20
"""Most levels of folders, the top level included, that an item may sit under."""

MAX_FILE_BYTES = 5_000_000_000_000
"""The largest file the drive stores (5 TB)."""

RANK = {role: rank for rank, role in enumerate(ROLES, start=1)}
"""viewer 1, commenter 2, editor 3, owner 4."""

EDITOR = RANK["editor"]
OWNER = RANK["owner"]

FILE_HINT = "Use search_files to find files and folders by name, or list_folder_contents to browse a folder."
USER_HINT = "Use search_users to find people by name, or get_user_by_email."


def _valid_name(name: str) -> str:
    """A file or folder name: trimmed, not blank, without '/' or control characters."""
    name = name.strip()
    if not name:
        raise ValueError("a name cannot be blank")
    if "/" in name:
        raise ValueError("a name cannot contain '/' (it separates folders in a path)")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        raise ValueError("a name cannot contain control characters (tabs, line breaks, NUL)")
    if name in (".", ".."):
        raise ValueError("'.' and '..' are not names")
    return name


Name = Annotated[str, Field(min_length=1, max_length=255), AfterValidator(_valid_name)]
Email = Annotated[str, Field(min_length=3, max_length=160, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")]
MimeType = Annotated[str, Field(max_length=100, pattern=r"^[a-z0-9][a-z0-9.+-]*/[a-z0-9][a-z0-9.+-]*$")]
ShareRole = Literal["viewer", "commenter", "editor"]
Kind = Literal["folder", "document", "spreadsheet", "presentation", "pdf", "image", "video", "archive", "other"]
SortOrder = Annotated[Literal["asc", "desc"], Field(description="Sort direction.")]

FileIdArg = Annotated[int, Field(description="The id of the file or folder.")]
EmailArg = Annotated[Email, Field(description="The person's email address (case-insensitive).")]


# ---------------------------------------------------------------- result models


class UserOut(BaseModel):
    id: int
    name: str
    email: str
    organization_name: str
    is_internal: bool = Field(description="True for Northwind Systems employees, False for people of customer organisations.")
    department: str | None
    title: str
    timezone: str


class UserPage(BaseModel):
    users: list[UserOut]
    total: int
    page: int
    next_page: int | None


class FileSummary(BaseModel):
    id: int
    name: str
    kind: str = Field(description="folder, document, spreadsheet, presentation, pdf, image, video, archive or other.")
    mime_type: str
    size_bytes: int = Field(description="Size in bytes; 0 for folders.")
    folder_id: int | None = Field(description="The folder it is in; null for a top-level folder.")
    owner_id: int
    owner_name: str
    created_at: Timestamp
    modified_at: Timestamp
    starred: bool
    trashed: bool
    trashed_at: Timestamp | None = Field(description="When it went to the trash; null when it is not there.")


class FileDetail(FileSummary):
    description: str | None
    owner_email: str
    modified_by_id: int
    modified_by_name: str
    explicitly_trashed: bool = Field(
        description="True when the item itself was moved to the trash; False for an item that went with its folder.")
    revision_count: int
    child_count: int | None = Field(description="Items directly inside a folder (not in the trash); null for files.")
    direct_shares: int = Field(description="People given access on this item itself (not through a folder).")
    crm_account_id: int | None = Field(description="For a key account's folder: the account's id in the CRM.")
    your_role: str = Field(description="Your access: owner, editor, commenter or viewer.")


class FilePage(BaseModel):
    files: list[FileSummary]
    total: int
    page: int
    next_page: int | None


class FolderBrief(BaseModel):
    id: int
    name: str


class FolderContents(BaseModel):
    folder: FolderBrief | None = Field(description="The folder listed; null for the top level.")
    items: list[FileSummary]
    total: int
    page: int
    next_page: int | None


class FilePath(BaseModel):
    file_id: int
    name: str
    path: str = Field(description="Folder names from the top level down to the item, joined by '/'.")
    folders: list[FolderBrief] = Field(description="The folders above the item, from the top level down.")


class PermissionOut(BaseModel):
    user_id: int
    name: str
    email: str
    is_internal: bool
    role: str = Field(description="owner, editor, commenter or viewer: the strongest access the person has here.")
    inherited_from_id: int | None = Field(description="The folder the access comes from; null when given on this item.")
    inherited_from_name: str | None
    granted_at: Timestamp | None = Field(description="When the share was made; null for ownership.")


class PermissionList(BaseModel):
    file_id: int
    file_name: str
    permissions: list[PermissionOut] = Field(description="The owner first, then by role (strongest first) and name.")


class RevisionOut(BaseModel):
    number: int
    size_bytes: int
    modified_by_id: int
    modified_by_name: str
    modified_at: Timestamp


class RevisionList(BaseModel):
    file_id: int
    file_name: str
    revisions: list[RevisionOut] = Field(description="Oldest first; the last is the current version.")


class StorageUsage(BaseModel):
    user_id: int
    name: str
    email: str
    limit_bytes: int
    used_bytes: int = Field(description="Total size of the files the person owns, those in the trash included.")
    available_bytes: int
    percent_used: float = Field(description="used / limit, in percent, rounded to 1 decimal.")
    file_count: int
    trashed_bytes: int
    trashed_count: int
    by_kind: dict[str, int] = Field(description="Bytes used per kind of file, largest first.")


class RecentFile(FileSummary):
    last_edited_at: Timestamp = Field(description="When the person last saved a version of the file.")


class RecentFilePage(BaseModel):
    user_id: int
    files: list[RecentFile]
    total: int
    page: int
    next_page: int | None


class TrashChange(BaseModel):
    file_id: int
    name: str
    trashed: bool
    trashed_at: Timestamp | None
    items: int = Field(description="Items moved to (or back from) the trash: the item and what went with it.")


class Deletion(BaseModel):
    deleted_items: int = Field(description="Files and folders deleted forever.")
    freed_bytes: int = Field(description="The size of what was deleted, whoever owned it.")
    owner_id: int = Field(description="You: the owner of what was deleted (a folder may also have held others' files).")
    available_bytes: int = Field(description="Your storage left afterwards.")


# ---------------------------------------------------------------- reading rows

SUMMARY_COLUMNS = ("files.id, files.name, files.mime_type, files.size_bytes, files.folder_id, files.owner_id, "
                   "owner.name AS owner_name, files.created_at, files.modified_at, files.starred, files.trashed_at")
"""The columns a summary shows (with the owner joined as `owner`)."""

SUMMARY_FROM = "FROM files JOIN users AS owner ON owner.id = files.owner_id"

SORT_KEYS = {"name": "lower(files.name)", "modified_at": "files.modified_at", "size_bytes": "files.size_bytes",
             "created_at": "files.created_at", "trashed_at": "files.trashed_at"}

CHAIN = ("WITH RECURSIVE chain(id, depth) AS (SELECT ?, 0 UNION ALL SELECT files.folder_id, chain.depth + 1 "
         "FROM chain JOIN files ON files.id = chain.id WHERE files.folder_id IS NOT NULL AND chain.depth <= ?) ")
"""The item and the folders above it (`depth` 0 is the item), given the item id and `MAX_DEPTH`."""

SUBTREE = ("WITH RECURSIVE tree(id) AS (SELECT ? UNION ALL SELECT files.id FROM files JOIN tree "
           "ON files.folder_id = tree.id) ")
"""An item and everything below it, given the item id (a subquery's prefix: the sqlite3 module
counts the rows a statement changed only when the statement starts with its verb)."""


def _summary(row: Row) -> FileSummary:
    return FileSummary(**row, kind=kind_of(row["mime_type"]), trashed=row["trashed_at"] is not None)


def _item(ctx: ToolContext, file_id: int) -> Row:
    return row_or_raise(ctx, File, file_id, "file or folder", FILE_HINT)


def _user(ctx: ToolContext, user_id: int) -> Row:
    return row_or_raise(ctx, User, user_id, "user", USER_HINT)


def _user_by_email(ctx: ToolContext, email: str) -> Row:
    user = ctx.sql.one("SELECT * FROM users WHERE email = ?", [email.strip().lower()], User)
    if user is None:
        raise NotFoundError(f"no one with email {email} is in Northwind's directory (employees and the people of "
                            f"customer organisations). {USER_HINT}")
    return user


def _chain(ctx: ToolContext, file_id: int) -> list[Row]:
    """The item (first) and the folders above it, nearest first, each with your share on it."""
    rows = ctx.sql.all(
        CHAIN + "SELECT chain.depth, files.id, files.name, files.folder_id, files.mime_type, files.owner_id, "
        "files.trashed_at, files.explicitly_trashed, permissions.role FROM chain JOIN files ON files.id = chain.id "
        "LEFT JOIN permissions ON permissions.file_id = files.id AND permissions.user_id = ? ORDER BY chain.depth",
        [file_id, MAX_DEPTH, ACTING_USER_ID], File)
    if not rows:
        raise missing("file or folder", file_id, FILE_HINT)
    return rows


def _rank(chain: Sequence[Row]) -> int:
    """Your access to the first item of `chain`: its owner, an editor of everything inside the
    folders you own, the strongest share on it or on a folder above it, and at least a viewer
    (every employee may view the company's drive)."""
    best = RANK["viewer"]
    for row in chain:
        if row["owner_id"] == ACTING_USER_ID:
            best = max(best, OWNER if row["depth"] == 0 else EDITOR)
        if row["role"] is not None:
            best = max(best, RANK[row["role"]])
    return best


def _role_name(rank: int) -> str:
    return ROLES[rank - 1]


def _detail(ctx: ToolContext, file_id: int, rank: int | None = None) -> FileDetail:
    """An item's detail as stored now, with your role on it (`rank` when already known)."""
    row = ctx.sql.one(
        "SELECT files.*, owner.name AS owner_name, owner.email AS owner_email, modifier.name AS modified_by_name, "
        "(SELECT count(*) FROM revisions WHERE revisions.file_id = files.id) AS revision_count, "
        "(SELECT count(*) FROM files AS child WHERE child.folder_id = files.id AND child.trashed_at IS NULL) AS child_count, "
        "(SELECT count(*) FROM permissions WHERE permissions.file_id = files.id) AS direct_shares "
        "FROM files JOIN users AS owner ON owner.id = files.owner_id JOIN users AS modifier ON modifier.id = files.modified_by_id "
        "WHERE files.id = ?", [file_id], File)
    if row is None:
        raise missing("file or folder", file_id, FILE_HINT)
    if rank is None:
        rank = _rank(_chain(ctx, file_id))
    folder = row["mime_type"] == FOLDER_MIME
    return FileDetail(**{**row, "child_count": row["child_count"] if folder else None}, kind=kind_of(row["mime_type"]),
                      trashed=row["trashed_at"] is not None, your_role=_role_name(rank))


def _owner_text(ctx: ToolContext, item: Row) -> str:
    owner = ctx.sql.one("SELECT name, email FROM users WHERE id = ?", [item["owner_id"]])
    assert owner is not None
    return f"{owner['name']} ({owner['email']})"


def _require(ctx: ToolContext, item: Row, chain: Sequence[Row], needed: int, action: str) -> int:
    """Your rank on `item`, or `ForbiddenError` naming the rule when it is below `needed`."""
    rank = _rank(chain)
    if rank >= needed:
        return rank
    kind = "folder" if item["mime_type"] == FOLDER_MIME else "file"
    who = "only its owner" if needed == OWNER else "only its owner and editors"
    role = _role_name(rank)
    raise ForbiddenError(f"{who} can {action} this {kind}: you are {'an' if role[0] in 'aeiou' else 'a'} {role} of "
                         f"'{item['name']}', which is owned by {_owner_text(ctx, item)}")


def _live(item: Row, action: str) -> None:
    """`ForbiddenError` for an item in the trash: nothing there can be changed, shared or moved."""
    if item["trashed_at"] is not None:
        raise ForbiddenError(f"'{item['name']}' is in the trash, and items in the trash cannot be {action}; "
                             "restore it first (restore_file)")


def _folder(ctx: ToolContext, folder_id: int | None) -> list[Row]:
    """The chain of a folder you may add items to: you own or edit it, and it is not in the trash."""
    if folder_id is None:
        raise InvalidArgumentError("give folder_id: files are kept in folders")
    chain = _chain(ctx, folder_id)
    folder = chain[0]
    if folder["mime_type"] != FOLDER_MIME:
        raise InvalidArgumentError(f"item {folder_id} ('{folder['name']}') is a file, not a folder")
    if folder["trashed_at"] is not None:
        raise ForbiddenError(f"folder '{folder['name']}' is in the trash, and items in the trash cannot be changed; "
                             "restore it first (restore_file)")
    _require(ctx, folder, chain, EDITOR, "add items to")
    return chain


def _check_name_free(ctx: ToolContext, folder_id: int | None, name: str, except_id: int | None = None) -> None:
    """Names are unique (ignoring case) among the items of a folder that are not in the trash."""
    clash = ctx.sql.one(
        "SELECT id, name FROM files WHERE folder_id IS ? AND lower(name) = ? AND trashed_at IS NULL AND id IS NOT ?",
        [folder_id, name.lower(), except_id])
    if clash is not None:
        where = "at the top level" if folder_id is None else "in that folder"
        raise InvalidArgumentError(f"an item named '{clash['name']}' (id {clash['id']}) is already {where}; "
                                   "names are unique within a folder: choose another name")


def _check_depth(ctx: ToolContext, chain: Sequence[Row], folder_id: int | None = None) -> None:
    """Folders nest at most `MAX_DEPTH` levels (a top-level folder is level 1): the levels above
    the destination (`chain`, the destination included) plus the folder levels that come in, one
    for a new folder or those of the folder `folder_id` and the folders inside it."""
    height = 1
    if folder_id is not None:
        height = ctx.sql.scalar(
            "WITH RECURSIVE tree(id, level) AS (SELECT ?, 1 UNION ALL SELECT files.id, tree.level + 1 FROM files "
            "JOIN tree ON files.folder_id = tree.id WHERE files.mime_type = ? AND tree.level <= ?) SELECT max(level) FROM tree",
            [folder_id, FOLDER_MIME, MAX_DEPTH]) or 1
    if len(chain) + height > MAX_DEPTH:
        raise InvalidArgumentError(f"folders nest at most {MAX_DEPTH} levels deep; this would make "
                                   f"{len(chain) + height} levels")


def _check_quota(ctx: ToolContext, user_id: int, extra: int, what: str) -> None:
    """`ForbiddenError` with the numbers when `extra` more bytes would take a person past their quota."""
    user = ctx.sql.one("SELECT name, quota_bytes, (SELECT coalesce(sum(size_bytes), 0) FROM files WHERE owner_id = users.id) "
                       "AS used FROM users WHERE id = ?", [user_id])
    assert user is not None
    if user["quota_bytes"] is None:
        raise InvalidArgumentError(f"{user['name']} has no storage in this drive, so cannot own files")
    used, limit = user["used"], user["quota_bytes"]
    if used + extra > limit:
        raise ForbiddenError(
            f"{what} ({extra:,} bytes) would bring {user['name']}'s storage to {used + extra:,} bytes, over their "
            f"quota of {limit:,} bytes ({used:,} used, {max(limit - used, 0):,} available); files in the trash still "
            "count until they are deleted forever")


def _new_file(ctx: ToolContext, name: str, mime_type: str, size: int, folder_id: int | None,
              description: str | None) -> int:
    """Insert an item you own, made now; a file gets its first revision."""
    file_id = ctx.sql.insert(
        "INSERT INTO files (name, mime_type, size_bytes, folder_id, owner_id, description, starred, crm_account_id, "
        "created_at, modified_at, modified_by_id, trashed_at, explicitly_trashed) "
        "VALUES (?, ?, ?, ?, ?, ?, 0, NULL, ?, ?, ?, NULL, 0)",
        [name, mime_type, size, folder_id, ACTING_USER_ID, description, ctx.now, ctx.now, ACTING_USER_ID])
    if mime_type != FOLDER_MIME:
        ctx.sql.execute("INSERT INTO revisions (file_id, number, size_bytes, modified_by_id, modified_at) "
                        "VALUES (?, 1, ?, ?, ?)", [file_id, size, ACTING_USER_ID, ctx.now])
    return file_id


def _permissions(ctx: ToolContext, file_id: int) -> PermissionList:
    """Everyone with access to an item: its owner, the owners of the folders above it (editors of
    what they hold), and the shares on it and on those folders; the strongest access per person,
    the nearest source on a tie."""
    rows = ctx.sql.all(
        CHAIN + "SELECT chain.depth, files.id AS source_id, files.name AS source_name, files.owner_id, "
        "permissions.user_id, permissions.role, permissions.granted_at FROM chain JOIN files ON files.id = chain.id "
        "LEFT JOIN permissions ON permissions.file_id = files.id ORDER BY chain.depth, permissions.id",
        [file_id, MAX_DEPTH], Permission)
    if not rows:
        raise missing("file or folder", file_id, FILE_HINT)
    best: dict[int, tuple[int, int, Row, str]] = {}

    def grant(user_id: int, role: str, row: Row) -> None:
        held = best.get(user_id)
        if held is None or RANK[role] > held[0]:
            best[user_id] = (RANK[role], row["depth"], row, role)

    for row in rows:
        grant(row["owner_id"], "owner" if row["depth"] == 0 else "editor", {**row, "granted_at": None})
        if row["user_id"] is not None:
            grant(row["user_id"], row["role"], row)
    people = {user["id"]: user for user in ctx.sql.all(
        f"SELECT id, name, email, is_internal FROM users WHERE id IN ({_marks(len(best))})", list(best), User)}
    entries = [
        PermissionOut(user_id=user_id, name=people[user_id]["name"], email=people[user_id]["email"],
                      is_internal=people[user_id]["is_internal"], role=role,
                      inherited_from_id=row["source_id"] if depth else None,
                      inherited_from_name=row["source_name"] if depth else None, granted_at=row["granted_at"])
        for user_id, (_, depth, row, role) in best.items()
    ]
    entries.sort(key=lambda p: (-RANK[p.role], p.name, p.user_id))
    return PermissionList(file_id=file_id, file_name=rows[0]["source_name"], permissions=entries)


def _check_external_role(user: Row, role: str) -> None:
    if not user["is_internal"] and RANK[role] >= EDITOR:
        raise ForbiddenError(f"{user['name']} ({user['email']}) is outside Northwind Systems ({user['organization_name']}); "
                             "people outside the company may be given viewer or commenter access only, never editor")


def _direct_permission(ctx: ToolContext, item: Row, user: Row) -> Row:
    """The share given to `user` on the item itself, or `InvalidArgumentError` saying where their
    access comes from."""
    permission = ctx.sql.one("SELECT * FROM permissions WHERE file_id = ? AND user_id = ?", [item["id"], user["id"]],
                             Permission)
    if permission is not None:
        return permission
    if user["id"] == item["owner_id"]:
        raise InvalidArgumentError(f"{user['name']} owns '{item['name']}'; an owner's access cannot be changed or "
                                   "removed: transfer ownership first (transfer_ownership)")
    held = next((p for p in _permissions(ctx, item["id"]).permissions if p.user_id == user["id"]), None)
    if held is not None:
        raise InvalidArgumentError(f"{user['name']} has {held.role} access to '{item['name']}' through the folder "
                                   f"'{held.inherited_from_name}' (id {held.inherited_from_id}); change it on that folder")
    raise InvalidArgumentError(f"{user['name']} has no share on '{item['name']}'; use share_file to give them access")


def _delete(ctx: ToolContext, roots: str, params: list[Any]) -> Deletion:
    """Delete forever the items that `roots` (a SELECT of ids) selects and everything below them,
    with their shares and revisions, each in one statement whatever the size of the tree.

    Sets of ids are passed as subqueries, never as `json_each` of a list: SQLite 3.40 can read
    freed memory preparing a statement that uses a table-valued function after the
    connection's database was replaced by `deserialize`, which every reset to another seed does."""
    tree = (f"(WITH RECURSIVE tree(id) AS ({roots} UNION SELECT files.id FROM files JOIN tree "
            "ON files.folder_id = tree.id) SELECT id FROM tree)")
    found = ctx.sql.one(f"SELECT count(*) AS items, coalesce(sum(size_bytes), 0) AS bytes FROM files WHERE id IN {tree}", params)
    assert found is not None
    if found["items"]:
        for table, key in (("permissions", "file_id"), ("revisions", "file_id"), ("files", "id")):
            ctx.sql.execute(f"DELETE FROM {table} WHERE {key} IN {tree}", params)
    available = ctx.sql.scalar("SELECT quota_bytes - (SELECT coalesce(sum(size_bytes), 0) FROM files WHERE owner_id = "
                               "users.id) FROM users WHERE id = ?", [ACTING_USER_ID])
    return Deletion(deleted_items=found["items"], freed_bytes=found["bytes"], owner_id=ACTING_USER_ID,
                    available_bytes=max(available or 0, 0))


# ---------------------------------------------------------------- people


@tools.tool(title="Get a user by email", examples=[{"email": "ann.olson@northwindsystems.com"}])
def get_user_by_email(ctx: ToolContext, email: EmailArg) -> UserOut:
    """Find a person of Northwind's directory (an employee or a customer's contact) by email:
    their user id, name, organisation and whether they are internal."""
    return UserOut(**_user_by_email(ctx, email))


@tools.tool(title="Search people", examples=[{"query": "miller", "is_internal": True}])
def search_users(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Part of the name or email (case-insensitive).")] = None,
    is_internal: Annotated[bool | None, Field(description="True: employees only; False: people of customer organisations only.")] = None,
    department: Annotated[str | None, Field(max_length=40, description="Only employees of this department (e.g. Sales, Engineering).")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> UserPage:
    """Find people to share with or ask about by name, email, department or whether they work at
    Northwind; sorted by name."""
    clauses = ["1"]
    params: list[Any] = []
    if query and query.strip():
        clauses.append("(lower(name) LIKE ? ESCAPE '/' OR lower(email) LIKE ? ESCAPE '/')")
        params += [contains_pattern(query.strip().lower())] * 2
    if is_internal is not None:
        clauses.append("is_internal = ?")
        params.append(is_internal)
    if department:
        clauses.append("lower(department) = ?")
        params.append(department.strip().lower())
    found = ctx.sql.page("*", f"FROM users WHERE {' AND '.join(clauses)} ORDER BY name, id", params, page, per_page, User)
    return UserPage(users=[UserOut(**row) for row in found.rows], total=found.total, page=page, next_page=found.next_page)


# ---------------------------------------------------------------- reading the drive


@tools.tool(title="Get a file or folder", examples=[{"file_id": 57}, {"file_id": 2802}])
def get_file(ctx: ToolContext, file_id: FileIdArg) -> FileDetail:
    """Get a file's or folder's metadata: name, type, size, owner, times, who last modified it,
    description, star, trash state, number of revisions and shares, and your role on it."""
    return _detail(ctx, file_id)


@tools.tool(title="List a folder's contents", examples=[{"folder_id": 3, "sort_by": "size_bytes", "sort_order": "desc", "per_page": 10}, {}])
def list_folder_contents(
    ctx: ToolContext,
    folder_id: Annotated[int | None, Field(description="The folder to list; omit it to list the top-level folders.")] = None,
    kind: Annotated[Kind | None, Field(description="Only items of this kind.")] = None,
    sort_by: Annotated[Literal["name", "modified_at", "size_bytes", "created_at"], Field(description="Sort key.")] = "name",
    sort_order: SortOrder = "asc",
    folders_first: Annotated[bool, Field(description="List folders before files, as the drive shows them.")] = True,
    page: Page = 1,
    per_page: PerPage = 50,
) -> FolderContents:
    """List what is directly inside a folder (not in the trash), one page at a time, sorted by
    name, modified time, size or creation time."""
    brief = None
    if folder_id is not None:
        folder = _item(ctx, folder_id)
        if folder["mime_type"] != FOLDER_MIME:
            raise InvalidArgumentError(f"item {folder_id} ('{folder['name']}') is a file, not a folder; use get_file")
        if folder["trashed_at"] is not None:
            raise InvalidArgumentError(f"folder '{folder['name']}' is in the trash; restore it to open it, or "
                                       "search the trash with search_files(trashed=true)")
        brief = FolderBrief(id=folder["id"], name=folder["name"])
    clauses, params = ["files.folder_id IS ?", "files.trashed_at IS NULL"], [folder_id]
    if kind is not None:
        mimes = _kind_mimes(kind)
        clauses.append(_kind_clause(kind, len(mimes)))
        params += mimes
    direction = "ASC" if sort_order == "asc" else "DESC"
    order = f"{SORT_KEYS[sort_by]} {direction}, files.id {direction}"
    if folders_first:
        order = f"files.mime_type = '{FOLDER_MIME}' DESC, {order}"
    found = ctx.sql.page(SUMMARY_COLUMNS, f"{SUMMARY_FROM} WHERE {' AND '.join(clauses)} ORDER BY {order}",
                         params, page, per_page, File)
    return FolderContents(folder=brief, items=[_summary(row) for row in found.rows], total=found.total, page=page,
                          next_page=found.next_page)


def _kind_mimes(kind: str) -> list[str]:
    """The MIME types of a kind; for `other`, those of every named kind (to exclude)."""
    if kind == "other":
        return [mime for mimes in KINDS.values() for mime in mimes]
    return list(KINDS[kind])


def _kind_clause(kind: str, count: int) -> str:
    """The condition on `count` MIME types (`_kind_mimes`, a closed set) that keeps a kind."""
    negate = "NOT " if kind == "other" else ""
    return f"files.mime_type {negate}IN ({_marks(count)})"


def _marks(count: int) -> str:
    """`count` parameter markers for an `IN (...)` list: sets of values are passed this way or as
    subqueries, never through `json_each` (see `_delete`)."""
    return ", ".join("?" * count)


@tools.tool(title="Search files and folders", examples=[{"query": "order form", "kind": "pdf", "sort_by": "name", "sort_order": "asc"},
                      {"owner_id": 1, "modified_after": "2025-09-01", "per_page": 5},
                      {"trashed": True, "owner_id": 1}])
def search_files(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Words that must all appear in the name (case-insensitive).")] = None,
    kind: Annotated[Kind | None, Field(description="Only items of this kind (folder, pdf, spreadsheet, ...).")] = None,
    mime_type: Annotated[MimeType | None, Field(description="Only items of exactly this MIME type (e.g. application/pdf).")] = None,
    owner_id: Annotated[int | None, Field(description="Only items owned by this user id.")] = None,
    shared_with_id: Annotated[int | None, Field(
        description="Only items this user id can open through a share on the item or on a folder above it.")] = None,
    folder_id: Annotated[int | None, Field(description="Only items inside this folder, at any depth.")] = None,
    modified_after: Annotated[DateTimeArg | None, Field(description="Only items modified at or after this time (ISO 8601, UTC).")] = None,
    modified_before: Annotated[DateTimeArg | None, Field(description="Only items modified strictly before this time.")] = None,
    starred: Annotated[bool | None, Field(description="True: only items you starred; False: only items you did not.")] = None,
    trashed: Annotated[bool, Field(description="True: search the trash instead of the drive.")] = False,
    sort_by: Annotated[Literal["name", "modified_at", "size_bytes", "created_at", "trashed_at"], Field(
        description="Sort key (trashed_at: when items went to the trash, for a search of the trash).")] = "modified_at",
    sort_order: SortOrder = "desc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> FilePage:
    """Search files and folders with filters; returns one page of summaries and the total count.

    Items in the trash are left out unless trashed is true, which searches only the trash."""
    if modified_after is not None and modified_before is not None and modified_after >= modified_before:
        raise InvalidArgumentError("modified_after must be earlier than modified_before")
    clauses: list[str] = ["files.trashed_at IS NOT NULL" if trashed else "files.trashed_at IS NULL"]
    params: list[Any] = []
    for word in search_words(query):
        clauses.append("lower(files.name) LIKE ? ESCAPE '/'")
        params.append(contains_pattern(word))
    if kind is not None:
        mimes = _kind_mimes(kind)
        clauses.append(_kind_clause(kind, len(mimes)))
        params += mimes
    if mime_type is not None:
        clauses.append("files.mime_type = ?")
        params.append(mime_type)
    for user_id in (owner_id, shared_with_id):
        if user_id is not None:
            _user(ctx, user_id)
    if owner_id is not None:
        clauses.append("files.owner_id = ?")
        params.append(owner_id)
    if shared_with_id is not None:
        clauses.append("files.id IN (WITH RECURSIVE reach(id) AS (SELECT file_id FROM permissions WHERE user_id = ? "
                       "UNION SELECT files.id FROM files JOIN reach ON files.folder_id = reach.id) SELECT id FROM reach)")
        params.append(shared_with_id)
    if folder_id is not None:
        folder = _item(ctx, folder_id)
        if folder["mime_type"] != FOLDER_MIME:
            raise InvalidArgumentError(f"item {folder_id} ('{folder['name']}') is a file, not a folder")
        clauses.append("files.id IN (WITH RECURSIVE inside(id) AS (SELECT id FROM files WHERE folder_id = ? "
                       "UNION ALL SELECT files.id FROM files JOIN inside ON files.folder_id = inside.id) SELECT id FROM inside)")
        params.append(folder_id)
    for condition, value in (("files.modified_at >= ?", modified_after), ("files.modified_at < ?", modified_before),
                             ("files.starred = ?", starred)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    direction = "ASC" if sort_order == "asc" else "DESC"
    order = f"{SORT_KEYS[sort_by]} {direction}, files.id {direction}"
    found = ctx.sql.page(SUMMARY_COLUMNS, f"{SUMMARY_FROM} WHERE {' AND '.join(clauses)} ORDER BY {order}",
                         params, page, per_page, File)
    return FilePage(files=[_summary(row) for row in found.rows], total=found.total, page=page, next_page=found.next_page)


@tools.tool(title="Get the path of a file", examples=[{"file_id": 2804}])
def get_file_path(ctx: ToolContext, file_id: FileIdArg) -> FilePath:
    """Where an item is: the folders above it from the top level down, and its path as text
    (e.g. Customers/Acme Corp/Contracts/Acme Corp - Master Services Agreement.pdf)."""
    chain = _chain(ctx, file_id)
    folders = [FolderBrief(id=row["id"], name=row["name"]) for row in reversed(chain[1:])]
    return FilePath(file_id=file_id, name=chain[0]["name"], folders=folders,
                    path="/".join([*(f.name for f in folders), chain[0]["name"]]))


@tools.tool(title="List who has access", examples=[{"file_id": 2804}])
def list_permissions(ctx: ToolContext, file_id: FileIdArg) -> PermissionList:
    """Who has access to a file or folder and how: the owner, and everyone it is shared with,
    directly or through a folder above it (with that folder), employees and customers alike."""
    return _permissions(ctx, file_id)


@tools.tool(title="List the revisions of a file", examples=[{"file_id": 57}])
def list_file_revisions(ctx: ToolContext, file_id: FileIdArg) -> RevisionList:
    """The saved versions of a file, oldest first: who saved each, when, and its size."""
    item = _item(ctx, file_id)
    if item["mime_type"] == FOLDER_MIME:
        raise InvalidArgumentError(f"'{item['name']}' is a folder; only files have revisions")
    rows = ctx.sql.all(
        "SELECT revisions.number, revisions.size_bytes, revisions.modified_by_id, users.name AS modified_by_name, "
        "revisions.modified_at FROM revisions JOIN users ON users.id = revisions.modified_by_id "
        "WHERE revisions.file_id = ? ORDER BY revisions.number, revisions.id", [file_id], Revision)
    return RevisionList(file_id=file_id, file_name=item["name"], revisions=[RevisionOut(**row) for row in rows])


@tools.tool(title="Get a person's storage use", examples=[{"user_id": 1}])
def get_storage_usage(
    ctx: ToolContext,
    user_id: Annotated[int, Field(description="The employee's user id (yours is 1).")],
) -> StorageUsage:
    """An employee's storage: quota, bytes used (files in the trash count until deleted
    forever), bytes available, and use per kind of file."""
    user = _user(ctx, user_id)
    if user["quota_bytes"] is None:
        raise InvalidArgumentError(f"{user['name']} is outside Northwind Systems ({user['organization_name']}) and "
                                   "stores nothing in this drive")
    rows = ctx.sql.all("SELECT mime_type, trashed_at IS NOT NULL AS trashed, count(*) AS n, sum(size_bytes) AS bytes "
                       "FROM files WHERE owner_id = ? AND mime_type != ? GROUP BY mime_type, trashed ORDER BY mime_type, trashed",
                       [user_id, FOLDER_MIME])
    by_kind: dict[str, int] = {}
    for row in rows:
        kind = kind_of(row["mime_type"])
        by_kind[kind] = by_kind.get(kind, 0) + row["bytes"]
    used = sum(row["bytes"] for row in rows)
    limit = user["quota_bytes"]
    return StorageUsage(
        user_id=user_id, name=user["name"], email=user["email"], limit_bytes=limit, used_bytes=used,
        available_bytes=max(limit - used, 0), percent_used=round(100 * used / limit, 1) if limit else 100.0,
        file_count=sum(row["n"] for row in rows), trashed_bytes=sum(row["bytes"] for row in rows if row["trashed"]),
        trashed_count=sum(row["n"] for row in rows if row["trashed"]),
        by_kind=dict(sorted(by_kind.items(), key=lambda kv: (-kv[1], kv[0]))),
    )


@tools.tool(title="List a person's recent files", examples=[{"days": 60, "per_page": 10}])
def list_recent_files(
    ctx: ToolContext,
    user_id: Annotated[int, Field(description="Whose recent files; defaults to you.")] = ACTING_USER_ID,
    days: Annotated[int, Field(ge=1, le=365, description="How many days back to look.")] = 30,
    page: Page = 1,
    per_page: PerPage = 25,
) -> RecentFilePage:
    """The files a person saved a version of in the last `days` days (not in the trash), the most
    recently edited first: what they have been working on."""
    _user(ctx, user_id)
    since = ctx.now - timedelta(days=days)
    found = ctx.sql.page(
        f"{SUMMARY_COLUMNS}, edits.last_edited_at",
        f"FROM (SELECT file_id, max(modified_at) AS last_edited_at FROM revisions WHERE modified_by_id = ? "
        f"AND modified_at >= ? GROUP BY file_id) AS edits JOIN files ON files.id = edits.file_id "
        f"JOIN users AS owner ON owner.id = files.owner_id WHERE files.trashed_at IS NULL "
        f"ORDER BY edits.last_edited_at DESC, files.id DESC",
        [user_id, since], page, per_page, File)
    files = []
    for row in found.rows:
        summary = _summary(row)
        files.append(RecentFile(**summary.model_dump(), last_edited_at=_parse_time(row["last_edited_at"])))
    return RecentFilePage(user_id=user_id, files=files, total=found.total, page=page, next_page=found.next_page)


def _parse_time(value: str | datetime) -> datetime:
    """A time read back from an SQL expression, which no column type converts."""
    return value if isinstance(value, datetime) else datetime.fromisoformat(value)


# ---------------------------------------------------------------- writes: new items


@tools.tool(title="Create a folder", writes=True, destructive=False, idempotent=True, examples=[{"name": "Q1 2026 planning", "folder_id": 2}])
def create_folder(
    ctx: ToolContext,
    name: Annotated[Name, Field(description="The folder's name (unique in its folder, no '/').")],
    folder_id: Annotated[int | None, Field(description="The folder to create it in; omit for a new top-level folder.")] = None,
    description: Annotated[str | None, Field(max_length=1000, description="What the folder is for.")] = None,
) -> FileDetail:
    """Create a folder, owned by you, inside a folder you own or edit (or at the top level)."""
    chain: list[Row] = []
    if folder_id is not None:
        chain = _folder(ctx, folder_id)
    _check_depth(ctx, chain)
    _check_name_free(ctx, folder_id, name)
    return _detail(ctx, _new_file(ctx, name, FOLDER_MIME, 0, folder_id, description or None), OWNER)


@tools.tool(title="Upload a file", writes=True, destructive=False, idempotent=True, examples=[{"name": "Pipeline review 2025-11-12.pdf", "folder_id": 79,
                                    "mime_type": "application/pdf", "size_bytes": 250000}])
def upload_file(
    ctx: ToolContext,
    name: Annotated[Name, Field(description="The file's name with its extension (unique in its folder, no '/').")],
    folder_id: Annotated[int, Field(description="The folder to upload into.")],
    mime_type: Annotated[MimeType, Field(description="The file's MIME type, lowercase (e.g. application/pdf, image/png).")],
    size_bytes: Annotated[int, Field(ge=0, le=MAX_FILE_BYTES, description="The file's size in bytes.")],
    description: Annotated[str | None, Field(max_length=1000, description="What the file is.")] = None,
) -> FileDetail:
    """Upload a file into a folder you own or edit; you own it and its size counts against your
    storage quota (an upload that would exceed it is refused)."""
    if mime_type == FOLDER_MIME:
        raise InvalidArgumentError("that is the folder type; use create_folder to make a folder")
    _folder(ctx, folder_id)
    _check_name_free(ctx, folder_id, name)
    _check_quota(ctx, ACTING_USER_ID, size_bytes, f"uploading '{name}'")
    return _detail(ctx, _new_file(ctx, name, mime_type, size_bytes, folder_id, description or None), OWNER)


@tools.tool(title="Copy a file", writes=True, destructive=False, idempotent=True, examples=[{"file_id": 57, "folder_id": 79}])
def copy_file(
    ctx: ToolContext,
    file_id: Annotated[int, Field(description="The file to copy.")],
    folder_id: Annotated[int | None, Field(description="The folder to put the copy in; omit for the file's own folder.")] = None,
    name: Annotated[Name | None, Field(description="The copy's name; defaults to 'Copy of <name>'.")] = None,
) -> FileDetail:
    """Copy a file (not a folder) into a folder you own or edit. You own the copy, which counts
    against your storage quota; shares and revisions are not copied."""
    source = _item(ctx, file_id)
    if source["mime_type"] == FOLDER_MIME:
        raise InvalidArgumentError(f"'{source['name']}' is a folder; folders cannot be copied, only files")
    _live(source, "copied")
    destination = source["folder_id"] if folder_id is None else folder_id
    _folder(ctx, destination)
    assert destination is not None
    copy_name = name or f"Copy of {source['name']}"[:255]
    _check_name_free(ctx, destination, copy_name)
    _check_quota(ctx, ACTING_USER_ID, source["size_bytes"], f"copying '{source['name']}'")
    return _detail(ctx, _new_file(ctx, copy_name, source["mime_type"], source["size_bytes"], destination,
                                  source["description"]), OWNER)


# ---------------------------------------------------------------- writes: changing items


@tools.tool(title="Rename a file or folder", writes=True, destructive=True, idempotent=True,
            examples=[{"file_id": 57, "name": "Griffin LLC proposal November 2024 (signed).pdf"}])
def rename_file(
    ctx: ToolContext,
    file_id: FileIdArg,
    name: Annotated[Name, Field(description="The new name (unique in its folder, no '/').")],
) -> FileDetail:
    """Rename a file or folder you own or edit."""
    chain = _chain(ctx, file_id)
    before = _item(ctx, file_id)
    _live(before, "renamed")
    rank = _require(ctx, before, chain, EDITOR, "rename")
    if name != before["name"]:
        _check_name_free(ctx, before["folder_id"], name, file_id)
    ctx.sql.update_row(File, before, {**before, "name": name})
    return _detail(ctx, file_id, rank)


@tools.tool(title="Move a file or folder", writes=True, destructive=True, idempotent=True, examples=[{"file_id": 57, "folder_id": 79}])
def move_file(
    ctx: ToolContext,
    file_id: FileIdArg,
    folder_id: Annotated[int, Field(description="The folder to move it into.")],
) -> FileDetail:
    """Move a file or folder (with everything in it) into another folder. You must own or edit
    both the item and the destination; a folder cannot go inside itself."""
    chain = _chain(ctx, file_id)
    before = _item(ctx, file_id)
    _live(before, "moved")
    rank = _require(ctx, before, chain, EDITOR, "move")
    if before["folder_id"] == folder_id:
        return _detail(ctx, file_id, rank)
    destination = _folder(ctx, folder_id)
    if any(row["id"] == file_id for row in destination):
        raise InvalidArgumentError(f"'{before['name']}' cannot be moved into itself or into a folder inside it")
    _check_depth(ctx, destination, file_id if before["mime_type"] == FOLDER_MIME else None)
    _check_name_free(ctx, folder_id, before["name"], file_id)
    ctx.sql.update_row(File, before, {**before, "folder_id": folder_id})
    return _detail(ctx, file_id, _rank(_chain(ctx, file_id)))


@tools.tool(title="Star or describe a file or folder", writes=True, destructive=True, idempotent=True, examples=[{"file_id": 57, "starred": True},
                                                    {"file_id": 57, "description": "Signed by the customer."}])
def update_file(
    ctx: ToolContext,
    file_id: FileIdArg,
    description: Annotated[str | None, Field(max_length=1000, description="New description; an empty text clears it.")] = None,
    starred: Annotated[bool | None, Field(description="True to star it for yourself, False to unstar it.")] = None,
) -> FileDetail:
    """Star or unstar a file or folder for yourself (any access will do), or change its
    description (owners and editors only)."""
    if description is None and starred is None:
        raise InvalidArgumentError("give a description or starred (or both)")
    chain = _chain(ctx, file_id)
    before = _item(ctx, file_id)
    _live(before, "changed")
    rank = _rank(chain)
    after = dict(before)
    if description is not None:
        rank = _require(ctx, before, chain, EDITOR, "change the description of")
        after["description"] = description.strip() or None
    if starred is not None:
        after["starred"] = starred
    ctx.sql.update_row(File, before, after)
    return _detail(ctx, file_id, rank)


# ---------------------------------------------------------------- writes: sharing


@tools.tool(title="Share a file or folder", writes=True, destructive=False, idempotent=True,
            examples=[{"file_id": 57, "email": "david.wilson@northwindsystems.com", "role": "commenter"}])
def share_file(
    ctx: ToolContext,
    file_id: FileIdArg,
    email: Annotated[Email, Field(description="The email of the person to share with.")],
    role: Annotated[ShareRole, Field(description="viewer, commenter or editor (people outside Northwind: viewer or commenter).")],
) -> PermissionList:
    """Share a file or folder with a person (a folder's share covers everything in it). Only
    owners and editors share; people outside Northwind may view or comment, never edit."""
    chain = _chain(ctx, file_id)
    item = _item(ctx, file_id)
    _live(item, "shared")
    _require(ctx, item, chain, EDITOR, "share")
    user = _user_by_email(ctx, email)
    if user["id"] == item["owner_id"]:
        raise InvalidArgumentError(f"{user['name']} owns '{item['name']}' already")
    _check_external_role(user, role)
    existing = ctx.sql.one("SELECT role FROM permissions WHERE file_id = ? AND user_id = ?", [file_id, user["id"]])
    if existing is not None:
        raise InvalidArgumentError(f"'{item['name']}' is already shared with {user['name']} as {existing['role']}; "
                                   "use update_permission to change the role")
    ctx.sql.execute("INSERT INTO permissions (file_id, user_id, role, granted_by_id, granted_at) VALUES (?, ?, ?, ?, ?)",
                    [file_id, user["id"], role, ACTING_USER_ID, ctx.now])
    return _permissions(ctx, file_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Change a person's role",
            examples=[{"file_id": 2, "email": "kristina.klein@northwindsystems.com", "role": "viewer"}])
def update_permission(
    ctx: ToolContext,
    file_id: FileIdArg,
    email: Annotated[Email, Field(description="The email of the person whose share changes.")],
    role: Annotated[ShareRole, Field(description="The new role: viewer, commenter or editor.")],
) -> PermissionList:
    """Change the role of a person a file or folder is shared with (the share on the item itself;
    access that comes from a folder above is changed on that folder). Owners and editors only."""
    chain = _chain(ctx, file_id)
    item = _item(ctx, file_id)
    _live(item, "shared")
    _require(ctx, item, chain, EDITOR, "change the shares of")
    user = _user_by_email(ctx, email)
    permission = _direct_permission(ctx, item, user)
    _check_external_role(user, role)
    if permission["role"] != role:
        ctx.sql.execute("UPDATE permissions SET role = ? WHERE id = ?", [role, permission["id"]])
    return _permissions(ctx, file_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Remove a person's access",
            examples=[{"file_id": 2, "email": "natalie.simpson@northwindsystems.com"}])
def remove_permission(
    ctx: ToolContext,
    file_id: FileIdArg,
    email: Annotated[Email, Field(description="The email of the person to stop sharing with.")],
) -> PermissionList:
    """Stop sharing a file or folder with a person (the share on the item itself; access that
    comes from a folder above is removed on that folder). Owners and editors only."""
    chain = _chain(ctx, file_id)
    item = _item(ctx, file_id)
    _live(item, "shared")
    _require(ctx, item, chain, EDITOR, "change the shares of")
    user = _user_by_email(ctx, email)
    permission = _direct_permission(ctx, item, user)
    ctx.sql.execute("DELETE FROM permissions WHERE id = ?", [permission["id"]])
    return _permissions(ctx, file_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Transfer a file's ownership", examples=[{"file_id": 57, "email": "mary.cherry@northwindsystems.com"}])
def transfer_ownership(
    ctx: ToolContext,
    file_id: FileIdArg,
    email: Annotated[Email, Field(description="The email of the new owner, a Northwind Systems employee.")],
) -> PermissionList:
    """Make another employee the owner of a file or folder you own (a folder's contents keep
    their owners). You stay on as an editor; the size counts against the new owner's quota."""
    chain = _chain(ctx, file_id)
    item = _item(ctx, file_id)
    _live(item, "shared")
    _require(ctx, item, chain, OWNER, "transfer ownership of")
    user = _user_by_email(ctx, email)
    if user["id"] == item["owner_id"]:
        return _permissions(ctx, file_id)
    domain = ctx.world.home.domain
    if not user["is_internal"] or not user["email"].endswith(f"@{domain}"):
        raise ForbiddenError(f"ownership can be transferred only to people of Northwind Systems (@{domain}); "
                             f"{user['name']} ({user['email']}) is with {user['organization_name']}")
    _check_quota(ctx, user["id"], item["size_bytes"], f"taking over '{item['name']}'")
    ctx.sql.execute("DELETE FROM permissions WHERE file_id = ? AND user_id = ?", [file_id, user["id"]])
    ctx.sql.execute("INSERT INTO permissions (file_id, user_id, role, granted_by_id, granted_at) VALUES (?, ?, 'editor', ?, ?)",
                    [file_id, item["owner_id"], ACTING_USER_ID, ctx.now])
    ctx.sql.update_row(File, item, {**item, "owner_id": user["id"]})
    return _permissions(ctx, file_id)


# ---------------------------------------------------------------- writes: the trash


@tools.tool(writes=True, destructive=True, idempotent=True, title="Move to the trash", examples=[{"file_id": 57}])
def trash_file(ctx: ToolContext, file_id: FileIdArg) -> TrashChange:
    """Move a file or folder you own to the trash (a folder with everything in it). It is hidden
    from listings and searches, still counts against storage, and can be restored."""
    chain = _chain(ctx, file_id)
    item = _item(ctx, file_id)
    if item["trashed_at"] is not None:
        raise InvalidArgumentError(f"'{item['name']}' is already in the trash (since {item['trashed_at']:%Y-%m-%d %H:%M} UTC)")
    _require(ctx, item, chain, OWNER, "move to the trash")
    moved = ctx.sql.execute(
        f"UPDATE files SET trashed_at = ?, explicitly_trashed = (id = ?) WHERE id IN ({SUBTREE}SELECT id FROM tree) "
        "AND trashed_at IS NULL", [ctx.now, file_id, file_id])
    return TrashChange(file_id=file_id, name=item["name"], trashed=True, trashed_at=ctx.now, items=moved)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Restore from the trash", examples=[{"file_id": 262}, {"file_id": 613}])
def restore_file(ctx: ToolContext, file_id: FileIdArg) -> TrashChange:
    """Bring a file or folder you own back from the trash, into the folder it was in (a folder
    comes back with what went to the trash with it)."""
    chain = _chain(ctx, file_id)
    item = _item(ctx, file_id)
    if item["trashed_at"] is None:
        raise InvalidArgumentError(f"'{item['name']}' is not in the trash")
    if not item["explicitly_trashed"]:
        folder = next(row for row in chain[1:] if row["explicitly_trashed"])
        raise InvalidArgumentError(f"'{item['name']}' went to the trash with the folder '{folder['name']}' "
                                   f"(id {folder['id']}); restore that folder")
    _require(ctx, item, chain, OWNER, "restore")
    parent = chain[1] if len(chain) > 1 else None
    if parent is not None and parent["trashed_at"] is not None:
        raise InvalidArgumentError(f"the folder '{parent['name']}' (id {parent['id']}) it was in is in the trash too; "
                                   "restore that folder first")
    _check_name_free(ctx, item["folder_id"], item["name"], file_id)
    restored = ctx.sql.execute(
        "UPDATE files SET trashed_at = NULL, explicitly_trashed = 0 WHERE id IN (WITH RECURSIVE tree(id) AS "
        "(SELECT ? UNION ALL SELECT files.id FROM files JOIN tree ON files.folder_id = tree.id "
        "WHERE NOT files.explicitly_trashed) SELECT id FROM tree)", [file_id])
    return TrashChange(file_id=file_id, name=item["name"], trashed=False, trashed_at=None, items=restored)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Delete a file forever", examples=[{"file_id": 262}])
def delete_forever(ctx: ToolContext, file_id: FileIdArg) -> Deletion:
    """Delete a file or folder you own from the trash forever (a folder with everything in it),
    which frees its storage. Only items in the trash can be deleted; this cannot be undone."""
    chain = _chain(ctx, file_id)
    item = _item(ctx, file_id)
    _require(ctx, item, chain, OWNER, "delete")
    if item["trashed_at"] is None:
        raise ForbiddenError(f"'{item['name']}' is not in the trash, and only items in the trash can be deleted "
                             "forever; move it to the trash first (trash_file)")
    if not item["explicitly_trashed"]:
        folder = next(row for row in chain[1:] if row["explicitly_trashed"])
        raise InvalidArgumentError(f"'{item['name']}' went to the trash with the folder '{folder['name']}' "
                                   f"(id {folder['id']}); it goes with that folder")
    return _delete(ctx, "SELECT ?", [file_id])


@tools.tool(title="Empty your trash", writes=True, destructive=True, idempotent=True, examples=[{}])
def empty_trash(ctx: ToolContext) -> Deletion:
    """Delete forever everything you own in the trash (folders with what went with them), which
    frees its storage; others' items in the trash are left alone. This cannot be undone."""
    return _delete(ctx, "SELECT id FROM files WHERE owner_id = ? AND explicitly_trashed AND trashed_at IS NOT NULL",
                   [ACTING_USER_ID])
