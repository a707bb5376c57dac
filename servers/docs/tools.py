"""The wiki tools: browse spaces and page trees, search, read pages and their history, and
write pages as the acting user (user 1), within the page restrictions and the wiki's rules."""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from mcpgym.servers.docs.models import ACTING_USER_ID, Comment, Page, PageVersion, Space, User
from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import Body, DateTimeArg, Page as PageNumber, PerPage, Timestamp
from mcpgym.servers.kernel.lookup import missing
from mcpgym.servers.kernel.query import search_words
from mcpgym.servers.kernel.sql import Row, contains_pattern
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry

tools = ToolRegistry()

PAGE_BODY_CHARS = 20_000
"""Longest body a page may have (an append that would make it longer is refused)."""

MAX_TREE_DEPTH = 5
"""Most levels get_page_tree lists at once."""

MAX_PAGE_DEPTH = 10
"""Most levels pages nest (a top-level page is at level 1)."""

SpaceKey = Annotated[str, Field(min_length=1, max_length=10, pattern=r"^[A-Za-z][A-Za-z0-9]*$",
                                description="The space's key, e.g. ENG (see list_spaces); any case.")]
Title = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[^\x00-\x1f\x7f]*\S[^\x00-\x1f\x7f]*$",
                             description="A page title: one line, unique within its space.")]
Label = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[a-z0-9][a-z0-9_\-]*$")]
Message = Annotated[str | None, Field(max_length=200, pattern=r"^[^\x00-\x1f\x7f]*$",
                                      description="A change message stored with the new version.")]
PageId = Annotated[int, Field(description="The page's id (see search_pages or get_page_tree).")]

PAGE_HINT = "Use search_pages (by title, words, space or label) or get_page_tree to find pages you can view."
SPACE_HINT = "Use list_spaces to see the spaces and their keys."
USER_HINT = "Use search_users or get_user_by_email to find users."
COMMENT_HINT = "Use list_page_comments to see a page's comments."


# ---------------------------------------------------------------- result models


class UserOut(BaseModel):
    id: int
    name: str
    email: str
    job_title: str
    department: str
    timezone: str
    organization_name: str
    created_at: Timestamp


class UserPage(BaseModel):
    users: list[UserOut]
    total: int
    page: int
    next_page: int | None


class UserBrief(BaseModel):
    id: int
    name: str


class SpaceOut(BaseModel):
    key: str
    name: str
    description: str
    owner_id: int
    owner_name: str
    created_at: Timestamp
    page_count: int = Field(description="Pages you can view in the space.")
    updated_at: Timestamp | None = Field(description="The latest edit of a page you can view.")


class SpaceList(BaseModel):
    spaces: list[SpaceOut]


class LabelCount(BaseModel):
    label: str
    count: int


class SpaceDetail(SpaceOut):
    home_page_id: int | None = Field(description="The space's first top-level page.")
    contributor_count: int = Field(description="People who wrote a version of a page you can view.")
    top_labels: list[LabelCount] = Field(description="The ten labels on most pages, most used first.")


class PageBrief(BaseModel):
    id: int
    title: str


class PageSummary(BaseModel):
    id: int
    space_key: str
    title: str
    parent_id: int | None
    position: int = Field(description="1-based place among the pages of the same parent.")
    version: int = Field(description="The current version's number.")
    author_id: int = Field(description="Who created the page.")
    author_name: str
    created_at: Timestamp
    updated_by_id: int = Field(description="Who wrote the current version.")
    updated_by_name: str
    updated_at: Timestamp
    labels: list[str]
    source_ticket_id: int | None = Field(description="The help-desk ticket a known-issue article was written from.")


class PageHit(PageSummary):
    excerpt: str = Field(description="A piece of the current text, around the first search word when there is one.")


class PageSearchResult(BaseModel):
    pages: list[PageHit]
    total: int = Field(description="Pages matching the filters, over all pages of results.")
    page: int
    next_page: int | None


class VersionOut(BaseModel):
    number: int
    title: str
    author_id: int
    author_name: str
    created_at: Timestamp
    message: str


class PageDetail(PageSummary):
    ancestors: list[PageBrief] = Field(description="The pages above this one, from the top of the tree down.")
    child_count: int = Field(description="Child pages you can view.")
    comment_count: int
    open_comment_count: int = Field(description="Inline comments not yet resolved.")
    view_restricted: bool = Field(description="Only listed people may view it (its own or an ancestor's restriction).")
    viewers: list[UserBrief] = Field(description="The page's own view restriction (empty: none).")
    editors: list[UserBrief] = Field(description="The page's own edit restriction (empty: anyone who can view may edit).")
    can_edit: bool = Field(description="Whether you may edit, rename, move, relabel, restrict or delete it.")
    shown_version: VersionOut = Field(description="The version whose title and body are shown.")
    body: str


class PageItem(BaseModel):
    """A page in a tree, with its children down to the depth asked for."""

    id: int
    title: str
    position: int
    child_count: int = Field(description="Child pages you can view (listed in children within the depth).")
    children: list[PageItem]


class PageTree(BaseModel):
    space_key: str
    root: PageBrief | None = Field(description="The page whose subtree is shown; null for the whole space.")
    depth: int
    pages: list[PageItem]
    page_count: int = Field(description="Pages listed in this tree, at every level.")


class VersionPage(BaseModel):
    page_id: int
    versions: list[VersionOut] = Field(description="Newest first.")
    total: int
    page: int
    next_page: int | None


class DiffLine(BaseModel):
    change: Literal["added", "removed"]
    text: str


class VersionDiff(BaseModel):
    page_id: int
    from_version: int
    to_version: int
    title_before: str
    title_after: str
    lines_added: int
    lines_removed: int
    changes: list[DiffLine] = Field(description="Removed and added lines, in the order of the text.")


class CommentOut(BaseModel):
    id: int
    page_id: int
    author_id: int
    author_name: str
    body: str
    inline_text: str | None = Field(description="The text an inline comment quotes; null for a page comment.")
    resolved: bool
    resolved_by_id: int | None
    resolved_at: Timestamp | None
    created_at: Timestamp


class CommentPage(BaseModel):
    comments: list[CommentOut]
    total: int
    page: int
    next_page: int | None


class ChangeItem(BaseModel):
    page_id: int
    page_title: str = Field(description="The page's current title.")
    space_key: str
    version: int
    title: str = Field(description="The title this version gave the page.")
    author_id: int
    author_name: str
    created_at: Timestamp
    message: str


class ChangePage(BaseModel):
    changes: list[ChangeItem] = Field(description="Newest first.")
    total: int
    page: int
    next_page: int | None


class ContributorRow(BaseModel):
    user_id: int
    name: str
    edits: int = Field(description="Versions written (a page's creation counts as one).")
    pages_created: int
    comments: int


class ContributorStats(BaseModel):
    space_key: str
    total_edits: int
    contributor_count: int
    contributors: list[ContributorRow] = Field(description="Most edits first, then most comments, then by name.")


class PageLabels(BaseModel):
    page_id: int
    title: str
    labels: list[str]


class DeletedPage(BaseModel):
    page_id: int
    title: str
    space_key: str
    versions_deleted: int
    comments_deleted: int


# ---------------------------------------------------------------- visibility and lookups

OWN_VIEW_OK = ("(NOT EXISTS (SELECT 1 FROM page_restrictions AS vr WHERE vr.page_id = {page}.id AND vr.operation = 'view') "
               "OR EXISTS (SELECT 1 FROM page_restrictions AS vr WHERE vr.page_id = {page}.id AND vr.operation = 'view' "
               "AND vr.user_id = ?))")
"""Whether the acting user passes a page's own view restriction (one `?`: the acting user)."""

VISIBLE = ("pages.id NOT IN (WITH RECURSIVE hidden(id) AS (SELECT page_id FROM page_restrictions WHERE operation = 'view' "
           "GROUP BY page_id HAVING max(user_id = ?) = 0 UNION SELECT pages.id FROM pages JOIN hidden "
           "ON pages.parent_id = hidden.id) SELECT id FROM hidden)")
"""Pages the acting user may view: neither they nor an ancestor restricts viewing to others
(one `?`: the acting user)."""

CHAIN = ("WITH RECURSIVE chain(id, parent_id, space_id, title, depth) AS ("
         "SELECT id, parent_id, space_id, title, 0 FROM pages WHERE id = ? UNION ALL "
         "SELECT pages.id, pages.parent_id, pages.space_id, pages.title, chain.depth + 1 FROM pages "
         "JOIN chain ON pages.id = chain.parent_id WHERE chain.depth < ?) "
         f"SELECT id, space_id, title, depth, {OWN_VIEW_OK.format(page='chain')} AS viewable, "
         "EXISTS (SELECT 1 FROM page_restrictions AS vr WHERE vr.page_id = chain.id AND vr.operation = 'view') "
         "AS view_restricted FROM chain ORDER BY depth DESC")
"""A page and its ancestors, top first, each with whether it has a view restriction and whether
the acting user passes it."""


def _chain(ctx: ToolContext, page_id: int) -> list[Row]:
    """The page and its ancestors (top first), or `not_found` when it is missing or hidden."""
    chain = ctx.sql.all(CHAIN, [page_id, MAX_PAGE_DEPTH, ACTING_USER_ID])
    if not chain or not all(row["viewable"] for row in chain):
        raise missing("page", page_id, PAGE_HINT)
    return chain


def _page(ctx: ToolContext, page_id: int) -> Row:
    """A page you may view, with its space's key, its number of children (all of them) and
    its edit restriction (`editor_ids`)."""
    _chain(ctx, page_id)
    page = ctx.sql.one(
        "SELECT pages.*, spaces.key AS space_key, "
        "(SELECT count(*) FROM pages AS children WHERE children.parent_id = pages.id) AS child_total, "
        "(SELECT json_group_array(user_id) FROM page_restrictions WHERE page_id = pages.id AND operation = 'edit') "
        "AS editor_ids FROM pages JOIN spaces ON spaces.id = pages.space_id WHERE pages.id = ?", [page_id], Page)
    assert page is not None
    page["editor_ids"] = sorted(json.loads(page["editor_ids"]))
    return page


def _editable(ctx: ToolContext, page_id: int, action: str) -> Row:
    """A page you may view and edit; `forbidden` naming its editors when it is edit-restricted to others."""
    page = _page(ctx, page_id)
    editors = page["editor_ids"]
    if editors and ACTING_USER_ID not in editors:
        names = ctx.sql.column("SELECT name FROM users WHERE id IN (SELECT value FROM json_each(?)) ORDER BY name, id",
                               [editors])
        raise ForbiddenError(f"cannot {action} page {page_id} ('{page['title']}'): it is edit-restricted to "
                             f"{', '.join(names)}; you may view it but only they may change it")
    return page


def _space(ctx: ToolContext, key: str) -> Row:
    space = ctx.sql.one("SELECT * FROM spaces WHERE key = ?", [key.upper()], Space)
    if space is None:
        raise NotFoundError(f"no space with key {key.upper()}. {SPACE_HINT}")
    return space


def _known_users(ctx: ToolContext, *user_ids: int | None) -> None:
    """`not_found` for the first id (of those given) that names no user."""
    wanted = [user for user in user_ids if user is not None]
    if wanted:
        known = set(ctx.sql.column("SELECT id FROM users WHERE id IN (SELECT value FROM json_each(?))", [wanted]))
        for user in wanted:
            if user not in known:
                raise missing("user", user, USER_HINT)


def _user_out(ctx: ToolContext, row: Row) -> UserOut:
    return UserOut(**row, organization_name=ctx.world.home.name)


def _title_taken(ctx: ToolContext, space_id: int, title: str, page_id: int | None = None) -> None:
    """`forbidden` when another page of the space has this title (case-insensitively)."""
    other = ctx.sql.one("SELECT id, title FROM pages WHERE space_id = ? AND lower(title) = lower(?) AND id IS NOT ? "
                        "ORDER BY id", [space_id, title, page_id])
    if other is not None:
        raise ForbiddenError(f"page titles are unique within a space: page {other['id']} is already titled "
                             f"'{other['title']}'; choose another title")


def _labels(ctx: ToolContext, page_ids: Sequence[int]) -> dict[int, list[str]]:
    """The labels of pages, A-Z, read in one statement."""
    labels: dict[int, list[str]] = {page_id: [] for page_id in page_ids}
    if page_ids:
        for row in ctx.sql.all("SELECT page_id, label FROM page_labels WHERE page_id IN (SELECT value FROM json_each(?)) "
                               "ORDER BY label", [list(page_ids)]):
            labels[row["page_id"]].append(row["label"])
    return labels


SUMMARY = ("pages.id, spaces.key AS space_key, pages.title, pages.parent_id, pages.position, pages.version, "
           "pages.author_id, authors.name AS author_name, pages.created_at, pages.updated_by_id, "
           "updaters.name AS updated_by_name, pages.updated_at, pages.source_ticket_id")
SUMMARY_FROM = ("FROM pages JOIN spaces ON spaces.id = pages.space_id JOIN users AS authors ON authors.id = pages.author_id "
                "JOIN users AS updaters ON updaters.id = pages.updated_by_id")


def _detail(ctx: ToolContext, page_id: int, version: int | None = None) -> PageDetail:
    """A page as you see it: where it sits, its restrictions and counts, and the body of
    `version` (default: the current one)."""
    chain = _chain(ctx, page_id)
    page = ctx.sql.one(
        f"SELECT {SUMMARY}, "
        f"(SELECT count(*) FROM pages AS children WHERE children.parent_id = pages.id AND {OWN_VIEW_OK.format(page='children')}) "
        "AS child_count, (SELECT count(*) FROM comments WHERE comments.page_id = pages.id) AS comment_count, "
        "(SELECT count(*) FROM comments WHERE comments.page_id = pages.id AND comments.inline_text IS NOT NULL "
        "AND NOT comments.resolved) AS open_comment_count, "
        "(SELECT json_group_array(json_array(r.operation, users.id, users.name)) FROM page_restrictions AS r "
        "JOIN users ON users.id = r.user_id WHERE r.page_id = pages.id) AS restrictions, "
        "(SELECT json_group_array(label) FROM page_labels WHERE page_labels.page_id = pages.id) AS label_list "
        f"{SUMMARY_FROM} WHERE pages.id = ?", [ACTING_USER_ID, page_id], Page)
    assert page is not None
    number = page["version"] if version is None else version
    shown = ctx.sql.one("SELECT page_versions.*, users.name AS author_name FROM page_versions JOIN users "
                        "ON users.id = page_versions.author_id WHERE page_versions.page_id = ? AND page_versions.number = ?",
                        [page_id, number], PageVersion)
    if shown is None:
        raise NotFoundError(f"page {page_id} has no version {number}; its versions are 1 to {page['version']}")
    restrictions = sorted(json.loads(page["restrictions"]), key=lambda r: (r[2], r[1]))
    viewers = [UserBrief(id=r[1], name=r[2]) for r in restrictions if r[0] == "view"]
    editors = [UserBrief(id=r[1], name=r[2]) for r in restrictions if r[0] == "edit"]
    return PageDetail(
        **page, labels=sorted(json.loads(page["label_list"])), body=shown["body"],
        ancestors=[PageBrief(id=row["id"], title=row["title"]) for row in chain[:-1]],
        viewers=viewers, editors=editors, view_restricted=any(row["view_restricted"] for row in chain),
        can_edit=not editors or any(e.id == ACTING_USER_ID for e in editors),
        shown_version=VersionOut(**shown))


def _new_version(ctx: ToolContext, page: Row, title: str, body: str, message: str) -> Row:
    """Store the next version of a page and make it current; the page as it is after."""
    if len(body) > PAGE_BODY_CHARS:
        raise InvalidArgumentError(f"the page's text would be {len(body):,} characters, over the limit of "
                                   f"{PAGE_BODY_CHARS:,}; shorten it")
    after = {**page, "title": title, "version": page["version"] + 1, "updated_by_id": ACTING_USER_ID,
             "updated_at": ctx.now}
    ctx.sql.execute("INSERT INTO page_versions (page_id, number, title, body, author_id, created_at, message) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)", [page["id"], after["version"], title, body, ACTING_USER_ID, ctx.now,
                                                     message])
    ctx.sql.update_row(Page, page, after)
    return after


def _current_body(ctx: ToolContext, page: Row) -> str:
    body: str = ctx.sql.scalar("SELECT body FROM page_versions WHERE page_id = ? AND number = ?",
                               [page["id"], page["version"]])
    return body


def _check_range(after: datetime | None, before: datetime | None, name: str) -> None:
    if after is not None and before is not None and after >= before:
        raise InvalidArgumentError(f"{name}_after must be earlier than {name}_before")


def _excerpt(body: str, words: list[str], width: int = 160) -> str:
    """About `width` characters of `body`, starting a little before the first of `words` found."""
    text = " ".join(body.split())
    lowered = text.lower()
    found = [index for word in words if (index := lowered.find(word)) >= 0]
    start = max(0, min(found) - 40) if found else 0
    piece = text[start:start + width]
    return ("..." if start else "") + piece + ("..." if start + width < len(text) else "")


def _line_changes(before: list[str], after: list[str]) -> list[DiffLine]:
    """The lines removed from `before` and added in `after`, in text order (each changed block's
    removed lines before its added ones)."""
    changes = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after).get_opcodes():
        changes += [DiffLine(change="removed", text=line) for line in before[i1:i2] if tag in ("replace", "delete")]
        changes += [DiffLine(change="added", text=line) for line in after[j1:j2] if tag in ("replace", "insert")]
    return changes


# ---------------------------------------------------------------- spaces and people


SPACE_SORT = {"key": "spaces.key", "name": "spaces.name", "page_count": "page_count DESC, spaces.key",
              "updated_at": "updated_at IS NULL, updated_at DESC, spaces.key"}


def _space_rows(ctx: ToolContext, where: str, params: list[Any], order: str) -> list[Row]:
    return ctx.sql.all(
        "SELECT spaces.*, users.name AS owner_name, count(pages.id) AS page_count, max(pages.updated_at) AS updated_at "
        f"FROM spaces JOIN users ON users.id = spaces.owner_id LEFT JOIN pages ON pages.space_id = spaces.id AND {VISIBLE} "
        f"WHERE {where} GROUP BY spaces.id ORDER BY {order}, spaces.id", [ACTING_USER_ID, *params], (Space, Page))


@tools.tool(examples=[{}, {"sort_by": "page_count"}])
def list_spaces(
    ctx: ToolContext,
    sort_by: Annotated[Literal["key", "name", "page_count", "updated_at"],
                       Field(description="Order: by key or name (A-Z), most pages first, or most recently edited first.")] = "key",
) -> SpaceList:
    """List the wiki's spaces (Engineering, Support, Sales, ...) with their keys, owners and
    how many pages you can view in each. Space keys are what the other tools take."""
    return SpaceList(spaces=[SpaceOut(**row) for row in _space_rows(ctx, "1", [], SPACE_SORT[sort_by])])


@tools.tool(examples=[{"space_key": "ENG"}])
def get_space(ctx: ToolContext, space_key: SpaceKey) -> SpaceDetail:
    """Get one space: its owner, description, page count, home page, number of contributors
    and the labels used most on its pages."""
    rows = _space_rows(ctx, "spaces.key = ?", [space_key.upper()], "spaces.key")
    if not rows:
        raise NotFoundError(f"no space with key {space_key.upper()}. {SPACE_HINT}")
    space = rows[0]
    home = ctx.sql.scalar(f"SELECT id FROM pages WHERE space_id = ? AND parent_id IS NULL AND {VISIBLE} "
                          "ORDER BY position, id LIMIT 1", [space["id"], ACTING_USER_ID])
    contributors = ctx.sql.scalar(
        "SELECT count(DISTINCT page_versions.author_id) FROM page_versions JOIN pages ON pages.id = page_versions.page_id "
        f"WHERE pages.space_id = ? AND {VISIBLE}", [space["id"], ACTING_USER_ID])
    labels = ctx.sql.all(
        "SELECT page_labels.label AS label, count(*) AS count FROM page_labels JOIN pages ON pages.id = page_labels.page_id "
        f"WHERE pages.space_id = ? AND {VISIBLE} GROUP BY page_labels.label ORDER BY count DESC, label LIMIT 10",
        [space["id"], ACTING_USER_ID])
    return SpaceDetail(**space, home_page_id=home, contributor_count=contributors,
                       top_labels=[LabelCount(**row) for row in labels])


@tools.tool(examples=[{"email": "ann.olson@northwindsystems.com"}])
def get_user_by_email(
    ctx: ToolContext,
    email: Annotated[str, Field(min_length=3, max_length=160, description="The person's email address (any case).")],
) -> UserOut:
    """Find a wiki user (an employee of Northwind Systems) by email address: their user id,
    name, job title and department."""
    row = ctx.sql.one("SELECT * FROM users WHERE email = ?", [email.strip().lower()], User)
    if row is None:
        raise NotFoundError(f"no wiki user with email {email.strip().lower()}; only Northwind Systems employees "
                            f"have wiki accounts. {USER_HINT}")
    return _user_out(ctx, row)


@tools.tool(examples=[{"query": "an", "department": "Engineering"}])
def search_users(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Part of the name or email (case-insensitive).")] = None,
    department: Annotated[Literal["Engineering", "Support", "Sales", "Product", "HR", "IT"] | None,
                          Field(description="Only users of this department.")] = None,
    page: PageNumber = 1,
    per_page: PerPage = 25,
) -> UserPage:
    """Find wiki users by name, email or department, sorted by name; use their ids for the
    author and editor filters and for page restrictions."""
    clauses, params = ["1"], []
    if query and query.strip():
        clauses.append("(lower(name) LIKE ? ESCAPE '/' OR lower(email) LIKE ? ESCAPE '/')")
        params += [contains_pattern(query.strip().lower())] * 2
    if department:
        clauses.append("department = ?")
        params.append(department)
    found = ctx.sql.page("*", f"FROM users WHERE {' AND '.join(clauses)} ORDER BY name, id", params, page, per_page, User)
    return UserPage(users=[_user_out(ctx, row) for row in found.rows], total=found.total, page=page,
                    next_page=found.next_page)


# ---------------------------------------------------------------- pages: read


@tools.tool(examples=[{"space_key": "ENG", "depth": 2}])
def get_page_tree(
    ctx: ToolContext,
    space_key: SpaceKey,
    root_page_id: Annotated[int | None, Field(description="Show only the subtree under this page; omit for the whole space.")] = None,
    depth: Annotated[int, Field(ge=1, le=MAX_TREE_DEPTH, description="Levels of children to list (1-5).")] = 2,
) -> PageTree:
    """The page tree of a space (or of one page's subtree), each level in its order, down to
    `depth` levels; deeper pages are counted in child_count but not listed."""
    space = _space(ctx, space_key)
    root = None
    if root_page_id is not None:
        chain = _chain(ctx, root_page_id)
        if chain[-1]["space_id"] != space["id"]:
            raise InvalidArgumentError(f"page {root_page_id} is not in space {space['key']}")
        root = PageBrief(id=root_page_id, title=chain[-1]["title"])
    rows = ctx.sql.all(f"SELECT id, parent_id, position, title FROM pages WHERE space_id = ? AND {VISIBLE} "
                       "ORDER BY position, id", [space["id"], ACTING_USER_ID])
    children: dict[int | None, list[Row]] = {}
    for row in rows:
        children.setdefault(row["parent_id"], []).append(row)
    listed = 0

    def level(parent: int | None, remaining: int) -> list[PageItem]:
        nonlocal listed
        items = []
        for row in children.get(parent, []):
            listed += 1
            below = level(row["id"], remaining - 1) if remaining > 1 else []
            items.append(PageItem(id=row["id"], title=row["title"], position=row["position"],
                                  child_count=len(children.get(row["id"], [])), children=below))
        return items

    return PageTree(space_key=space["key"], root=root, depth=depth, pages=level(root_page_id, depth), page_count=listed)


@tools.tool(examples=[{"page_id": 153}, {"page_id": 153, "version": 1}])
def get_page(
    ctx: ToolContext,
    page_id: PageId,
    version: Annotated[int | None, Field(ge=1, description="A version number to read instead of the current one.")] = None,
) -> PageDetail:
    """Get a page: its body (current version, or the version asked for), labels, place in the
    tree, who created and last edited it, comment counts, restrictions and whether you may edit it."""
    return _detail(ctx, page_id, version)


PAGE_SORT_KEYS = {"updated_at": "pages.updated_at", "created_at": "pages.created_at", "title": "lower(pages.title)"}


@tools.tool(examples=[{"query": "rollback", "space_key": "ENG", "per_page": 5},
                      {"labels": ["known-issue"], "updated_after": "2025-06-01", "sort_by": "title", "sort_order": "asc"}])
def search_pages(
    ctx: ToolContext,
    query: Annotated[str | None, Field(
        description="Words that must all appear in the title or the current text (case-insensitive).")] = None,
    title: Annotated[str | None, Field(
        max_length=200, description="Only the page with exactly this title (case-insensitive).")] = None,
    space_key: Annotated[str | None, Field(max_length=10, description="Only pages of this space (its key, e.g. ENG).")] = None,
    labels: Annotated[list[Label] | None, Field(max_length=20, description="Only pages carrying all of these labels.")] = None,
    author_id: Annotated[int | None, Field(description="Only pages created by this user id.")] = None,
    editor_id: Annotated[int | None, Field(
        description="Only pages this user id wrote a version of (creation included).")] = None,
    parent_id: Annotated[int | None, Field(description="Only the direct children of this page.")] = None,
    source_ticket_id: Annotated[int | None, Field(
        description="Only the known-issue article written from this help-desk ticket id.")] = None,
    updated_after: Annotated[DateTimeArg | None, Field(
        description="Only pages last edited at or after this time (ISO 8601, UTC).")] = None,
    updated_before: Annotated[DateTimeArg | None, Field(description="Only pages last edited strictly before this time.")] = None,
    sort_by: Annotated[Literal["updated_at", "created_at", "title"], Field(description="Sort key.")] = "updated_at",
    sort_order: Annotated[Literal["asc", "desc"], Field(description="Sort direction.")] = "desc",
    page: PageNumber = 1,
    per_page: PerPage = 20,
) -> PageSearchResult:
    """Search the pages you can view by words, exact title, space, labels, creator, editor,
    parent, source ticket and last-edit time; one page of results with an excerpt each, and
    the total. Pages you cannot view never appear."""
    _check_range(updated_after, updated_before, "updated")
    _known_users(ctx, author_id, editor_id)
    if parent_id is not None:
        _chain(ctx, parent_id)
    clauses, params = [VISIBLE], [ACTING_USER_ID]
    words = search_words(query)
    for word in words:
        clauses.append("(lower(pages.title) LIKE ? ESCAPE '/' OR lower(current.body) LIKE ? ESCAPE '/')")
        params += [contains_pattern(word)] * 2
    if title is not None:
        clauses.append("lower(pages.title) = lower(?)")
        params.append(title.strip())
    if space_key is not None:
        clauses.append("spaces.key = ?")
        params.append(space_key.strip().upper())
    for label in dict.fromkeys(labels or ()):
        clauses.append("pages.id IN (SELECT page_id FROM page_labels WHERE label = ?)")
        params.append(label)
    if editor_id is not None:
        clauses.append("pages.id IN (SELECT page_id FROM page_versions WHERE author_id = ?)")
        params.append(editor_id)
    for condition, value in (("pages.author_id = ?", author_id), ("pages.parent_id = ?", parent_id),
                             ("pages.source_ticket_id = ?", source_ticket_id),
                             ("pages.updated_at >= ?", updated_after), ("pages.updated_at < ?", updated_before)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    key = PAGE_SORT_KEYS[sort_by]
    direction = "ASC" if sort_order == "asc" else "DESC"
    found = ctx.sql.page(
        f"{SUMMARY}, current.body AS body",
        f"{SUMMARY_FROM} JOIN page_versions AS current ON current.page_id = pages.id AND current.number = pages.version "
        f"WHERE {' AND '.join(clauses)} ORDER BY {key} {direction}, pages.id {direction}", params, page, per_page, Page)
    labels_of = _labels(ctx, [row["id"] for row in found.rows])
    hits = [PageHit(**row, labels=labels_of[row["id"]], excerpt=_excerpt(row["body"], words)) for row in found.rows]
    return PageSearchResult(pages=hits, total=found.total, page=page, next_page=found.next_page)


@tools.tool(examples=[{"page_id": 153, "per_page": 5}])
def list_page_versions(
    ctx: ToolContext,
    page_id: PageId,
    page: PageNumber = 1,
    per_page: PerPage = 25,
) -> VersionPage:
    """A page's history: every version, newest first, with its title, author, time and change message."""
    _chain(ctx, page_id)
    found = ctx.sql.page(
        "page_versions.number, page_versions.title, page_versions.author_id, users.name AS author_name, "
        "page_versions.created_at, page_versions.message",
        "FROM page_versions JOIN users ON users.id = page_versions.author_id WHERE page_versions.page_id = ? "
        "ORDER BY page_versions.number DESC", [page_id], page, per_page, PageVersion)
    return VersionPage(page_id=page_id, versions=[VersionOut(**row) for row in found.rows], total=found.total,
                       page=page, next_page=found.next_page)


@tools.tool(examples=[{"page_id": 153, "from_version": 1, "to_version": 2}])
def diff_page_versions(
    ctx: ToolContext,
    page_id: PageId,
    from_version: Annotated[int, Field(ge=1, description="The older version (the text before).")],
    to_version: Annotated[int | None, Field(ge=1, description="The newer version (the text after); default: the current one.")] = None,
) -> VersionDiff:
    """Compare two versions of a page line by line: the lines removed and added (in text order),
    their counts, and the titles before and after."""
    _chain(ctx, page_id)
    rows = {row["number"]: row for row in ctx.sql.all(
        "SELECT number, title, body FROM page_versions WHERE page_id = ? AND (number IN (?, ?) OR "
        "(? IS NULL AND number = (SELECT version FROM pages WHERE id = ?)))",
        [page_id, from_version, to_version, to_version, page_id])}
    target = to_version if to_version is not None else max(rows)
    for number in (from_version, target):
        if number not in rows:
            latest = ctx.sql.scalar("SELECT version FROM pages WHERE id = ?", [page_id])
            raise NotFoundError(f"page {page_id} has no version {number}; its versions are 1 to {latest}")
    if from_version == target:
        raise InvalidArgumentError(f"from_version and to_version are both {target}; compare two different versions")
    before, after = rows[from_version], rows[target]
    changes = _line_changes(before["body"].splitlines(), after["body"].splitlines())
    return VersionDiff(page_id=page_id, from_version=from_version, to_version=target, title_before=before["title"],
                       title_after=after["title"], lines_added=sum(c.change == "added" for c in changes),
                       lines_removed=sum(c.change == "removed" for c in changes), changes=changes)


@tools.tool(examples=[{"page_id": 153}, {"page_id": 153, "status": "open", "kind": "inline"}])
def list_page_comments(
    ctx: ToolContext,
    page_id: PageId,
    status: Annotated[Literal["all", "open", "resolved"], Field(
        description="open: inline comments not resolved and every page comment; resolved: resolved inline comments.",
    )] = "all",
    kind: Annotated[Literal["all", "inline", "page"], Field(
        description="inline: comments on a piece of the text; page: comments on the whole page.")] = "all",
    page: PageNumber = 1,
    per_page: PerPage = 25,
) -> CommentPage:
    """A page's comments, oldest first, with authors and whether inline ones are resolved."""
    _chain(ctx, page_id)
    clauses = ["comments.page_id = ?"]
    if status != "all":
        clauses.append("NOT comments.resolved" if status == "open" else "comments.resolved")
    if kind != "all":
        clauses.append("comments.inline_text IS NOT NULL" if kind == "inline" else "comments.inline_text IS NULL")
    found = ctx.sql.page(
        "comments.*, users.name AS author_name",
        f"FROM comments JOIN users ON users.id = comments.author_id WHERE {' AND '.join(clauses)} "
        "ORDER BY comments.created_at, comments.id", [page_id], page, per_page, Comment)
    return CommentPage(comments=[CommentOut(**row) for row in found.rows], total=found.total, page=page,
                       next_page=found.next_page)


@tools.tool(examples=[{"space_key": "SUP", "per_page": 5}, {"author_id": 2, "since": "2025-09-01"}])
def list_recent_changes(
    ctx: ToolContext,
    space_key: Annotated[str | None, Field(max_length=10, description="Only changes in this space (its key).")] = None,
    author_id: Annotated[int | None, Field(description="Only versions written by this user id.")] = None,
    since: Annotated[DateTimeArg | None, Field(description="Only changes at or after this time (ISO 8601, UTC).")] = None,
    page: PageNumber = 1,
    per_page: PerPage = 25,
) -> ChangePage:
    """The wiki's activity feed: page versions (creations and edits), newest first, on pages you
    can view, with the page, who wrote the version and its change message."""
    _known_users(ctx, author_id)
    clauses, params = [VISIBLE], [ACTING_USER_ID]
    for condition, value in (("spaces.key = ?", space_key.strip().upper() if space_key else None),
                             ("page_versions.author_id = ?", author_id), ("page_versions.created_at >= ?", since)):
        if value is not None:
            clauses.append(condition)
            params.append(value)
    found = ctx.sql.page(
        "page_versions.page_id, pages.title AS page_title, spaces.key AS space_key, page_versions.number AS version, "
        "page_versions.title, page_versions.author_id, users.name AS author_name, page_versions.created_at, "
        "page_versions.message",
        "FROM page_versions JOIN pages ON pages.id = page_versions.page_id JOIN spaces ON spaces.id = pages.space_id "
        f"JOIN users ON users.id = page_versions.author_id WHERE {' AND '.join(clauses)} "
        "ORDER BY page_versions.created_at DESC, page_versions.id DESC", params, page, per_page, PageVersion)
    return ChangePage(changes=[ChangeItem(**row) for row in found.rows], total=found.total, page=page,
                      next_page=found.next_page)


@tools.tool(examples=[{"space_key": "ENG", "since": "2025-01-01", "until": "2025-07-01", "limit": 5}])
def contributor_stats(
    ctx: ToolContext,
    space_key: SpaceKey,
    since: Annotated[DateTimeArg | None, Field(description="Count activity at or after this time (ISO 8601, UTC).")] = None,
    until: Annotated[DateTimeArg | None, Field(description="Count activity strictly before this time.")] = None,
    limit: Annotated[int, Field(ge=1, le=50, description="Most contributors to list.")] = 10,
) -> ContributorStats:
    """Who contributes to a space: per person, the versions they wrote (edits, creations
    included), pages they created and comments they left, on pages you can view, optionally
    within a time window; the most active first."""
    if since is not None and until is not None and since >= until:
        raise InvalidArgumentError("since must be earlier than until")
    space = _space(ctx, space_key)
    window, window_params = "", []
    for condition, value in ((" AND {t}.created_at >= ?", since), (" AND {t}.created_at < ?", until)):
        if value is not None:
            window += condition
            window_params.append(value)
    edits = ctx.sql.all(
        "SELECT page_versions.author_id AS user_id, count(*) AS edits, sum(page_versions.number = 1) AS created "
        f"FROM page_versions JOIN pages ON pages.id = page_versions.page_id WHERE pages.space_id = ? AND {VISIBLE}"
        f"{window.format(t='page_versions')} GROUP BY page_versions.author_id",
        [space["id"], ACTING_USER_ID, *window_params])
    comments = ctx.sql.all(
        "SELECT comments.author_id AS user_id, count(*) AS comments FROM comments JOIN pages ON pages.id = comments.page_id "
        f"WHERE pages.space_id = ? AND {VISIBLE}{window.format(t='comments')} GROUP BY comments.author_id",
        [space["id"], ACTING_USER_ID, *window_params])
    people: dict[int, dict[str, int]] = {}
    for row in edits:
        people[row["user_id"]] = {"edits": row["edits"], "pages_created": row["created"], "comments": 0}
    for row in comments:
        people.setdefault(row["user_id"], {"edits": 0, "pages_created": 0, "comments": 0})["comments"] = row["comments"]
    names = {row["id"]: row["name"] for row in ctx.sql.all(
        "SELECT id, name FROM users WHERE id IN (SELECT value FROM json_each(?))", [list(people)])}
    rows = sorted((ContributorRow(user_id=user, name=names[user], **counts) for user, counts in people.items()),
                  key=lambda r: (-r.edits, -r.comments, r.name, r.user_id))
    return ContributorStats(space_key=space["key"], total_edits=sum(r.edits for r in rows),
                            contributor_count=sum(r.edits > 0 for r in rows), contributors=rows[:limit])


# ---------------------------------------------------------------- pages: write


SUBTREE_HEIGHT = ("WITH RECURSIVE below(id, level) AS (SELECT ?, 0 UNION ALL SELECT pages.id, below.level + 1 FROM pages "
                  "JOIN below ON pages.parent_id = below.id WHERE below.level <= ?) SELECT max(level) FROM below")
"""How many levels of pages lie below a page (0 for a page without children)."""


def _check_depth(level: int) -> None:
    if level > MAX_PAGE_DEPTH:
        raise InvalidArgumentError(f"pages nest at most {MAX_PAGE_DEPTH} levels deep; this would put a page at level "
                                   f"{level}: choose a parent higher up the tree")


def _siblings(ctx: ToolContext, space_id: int, parent_id: int | None) -> int:
    count: int = ctx.sql.scalar("SELECT count(*) FROM pages WHERE space_id = ? AND parent_id IS ?", [space_id, parent_id])
    return count


def _place(position: int | None, siblings: int) -> int:
    """The 1-based position a page takes among `siblings` other pages (default: last)."""
    if position is None:
        return siblings + 1
    if position > siblings + 1:
        raise InvalidArgumentError(f"position {position} is beyond the end: there {'is' if siblings == 1 else 'are'} "
                                   f"{siblings} other page{'' if siblings == 1 else 's'} at that level; "
                                   f"use 1 to {siblings + 1}")
    return position


def _shift(ctx: ToolContext, space_id: int, parent_id: int | None, start: int, step: int, moving: int | None = None) -> None:
    """Move the pages of one level at positions >= `start` by `step` (all but the page `moving`)."""
    ctx.sql.execute("UPDATE pages SET position = position + ? WHERE space_id = ? AND parent_id IS ? AND position >= ? "
                    "AND id IS NOT ?", [step, space_id, parent_id, start, moving])


@tools.tool(writes=True, destructive=False, idempotent=True, title="Create a wiki page", examples=[{"space_key": "ENG", "title": "How to rotate database passwords",
                                    "body": "1. Generate a new password in Vault.\n2. Update the service secret.",
                                    "parent_id": 34, "labels": ["how-to", "security"]}])
def create_page(
    ctx: ToolContext,
    space_key: SpaceKey,
    title: Title,
    body: Annotated[Body, Field(min_length=1, description="The page's text (Markdown).")],
    parent_id: Annotated[int | None, Field(description="The page to put it under (same space); omit for the top level.")] = None,
    position: Annotated[int | None, Field(ge=1, description="1-based place among its siblings; default: last.")] = None,
    labels: Annotated[list[Label], Field(max_length=20, description="Labels to put on it (lowercase, no spaces).")] = [],
    message: Message = None,
) -> PageDetail:
    """Create a page (its version 1) in a space, under a parent page or at the top level.
    Titles are unique within a space."""
    space = _space(ctx, space_key)
    if parent_id is not None:
        chain = _chain(ctx, parent_id)
        if chain[-1]["space_id"] != space["id"]:
            raise InvalidArgumentError(f"parent page {parent_id} is not in space {space['key']}; "
                                       "a page's parent is in its own space")
        _check_depth(len(chain) + 1)
    title = title.strip()
    _title_taken(ctx, space["id"], title)
    place = _place(position, _siblings(ctx, space["id"], parent_id))
    _shift(ctx, space["id"], parent_id, place, 1)
    page_id = ctx.sql.insert(
        "INSERT INTO pages (space_id, parent_id, position, title, version, author_id, created_at, updated_by_id, "
        "updated_at, source_ticket_id) VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, NULL)",
        [space["id"], parent_id, place, title, ACTING_USER_ID, ctx.now, ACTING_USER_ID, ctx.now])
    ctx.sql.execute("INSERT INTO page_versions (page_id, number, title, body, author_id, created_at, message) "
                    "VALUES (?, 1, ?, ?, ?, ?, ?)", [page_id, title, body, ACTING_USER_ID, ctx.now, message or "Created page"])
    if labels:
        ctx.sql.execute("INSERT INTO page_labels (page_id, label) SELECT DISTINCT ?, value FROM json_each(?)",
                        [page_id, labels])
    return _detail(ctx, page_id)


@tools.tool(writes=True, destructive=False, idempotent=False, title="Edit a wiki page", examples=[{"page_id": 153, "body": "Checked the steps again after the October release.",
                                    "append": True, "message": "Reviewed after release"}])
def update_page(
    ctx: ToolContext,
    page_id: PageId,
    body: Annotated[Body, Field(min_length=1, description="The new text of the page, or the text to add when append is true.")],
    append: Annotated[bool, Field(description="Add body at the end of the current text instead of replacing it.")] = False,
    message: Message = None,
    base_version: Annotated[int | None, Field(
        ge=1, description="The version your change starts from; refused if the page has changed since.")] = None,
) -> PageDetail:
    """Edit a page's text: this makes a new version (you as its author) and keeps every old one.
    Use rename_page to change the title."""
    page = _editable(ctx, page_id, "edit")
    if base_version is not None and base_version != page["version"]:
        raise ForbiddenError(f"page {page_id} is at version {page['version']}, not {base_version}: it changed since "
                             "you read it; read it again with get_page and apply your change to the current version")
    current = _current_body(ctx, page)
    text = f"{current.rstrip()}\n\n{body}" if append else body
    if text == current:
        raise InvalidArgumentError(f"the text is the same as version {page['version']}; nothing to save")
    _new_version(ctx, page, page["title"], text, message or ("Added text" if append else "Edited page"))
    return _detail(ctx, page_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Rename a wiki page", examples=[{"page_id": 153, "title": "Billing Service: restart stuck queue workers"}])
def rename_page(
    ctx: ToolContext,
    page_id: PageId,
    title: Title,
    message: Message = None,
) -> PageDetail:
    """Give a page a new title (a new version with the same text). Titles are unique within a space."""
    page = _editable(ctx, page_id, "rename")
    title = title.strip()
    if title == page["title"]:
        raise InvalidArgumentError(f"page {page_id} is already titled '{title}'")
    _title_taken(ctx, page["space_id"], title, page_id)
    _new_version(ctx, page, title, _current_body(ctx, page), message or f"Renamed from \"{page['title']}\"")
    return _detail(ctx, page_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Move a wiki page", examples=[{"page_id": 153, "parent_id": 34, "position": 1}])
def move_page(
    ctx: ToolContext,
    page_id: PageId,
    parent_id: Annotated[int | None, Field(description="The new parent page, in the same space.")] = None,
    top_level: Annotated[bool, Field(description="Move it to the top level of its space (no parent).")] = False,
    position: Annotated[int | None, Field(ge=1, description="1-based place among its new siblings; default: last.")] = None,
) -> PageDetail:
    """Move a page (with its subtree) under another page of its space, to the top level, or to
    another position among its siblings. Moving makes no new version."""
    page = _editable(ctx, page_id, "move")
    if parent_id is not None and top_level:
        raise InvalidArgumentError("give either parent_id or top_level, not both")
    if parent_id is None and not top_level and position is None:
        raise InvalidArgumentError("give a new parent_id, top_level or a position")
    target = page["parent_id"] if parent_id is None and not top_level else parent_id
    if parent_id is not None:
        chain = _chain(ctx, parent_id)
        if chain[-1]["space_id"] != page["space_id"]:
            raise InvalidArgumentError(f"page {parent_id} is in another space; pages move within their space")
        if any(row["id"] == page_id for row in chain):
            raise InvalidArgumentError(f"page {parent_id} is page {page_id} itself or one of its descendants; "
                                       "a page cannot go under its own subtree")
        _check_depth(len(chain) + 1 + ctx.sql.scalar(SUBTREE_HEIGHT, [page_id, MAX_PAGE_DEPTH]))
    same_level = target == page["parent_id"]
    siblings = _siblings(ctx, page["space_id"], target) - (1 if same_level else 0)
    place = _place(position, siblings)
    if same_level and place == page["position"]:
        raise InvalidArgumentError(f"page {page_id} is already at position {place} there")
    _shift(ctx, page["space_id"], page["parent_id"], page["position"] + 1, -1, page_id)
    _shift(ctx, page["space_id"], target, place, 1, page_id)
    ctx.sql.execute("UPDATE pages SET parent_id = ?, position = ? WHERE id = ?", [target, place, page_id])
    return _detail(ctx, page_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Delete a wiki page", examples=[{"page_id": 93}])
def delete_page(ctx: ToolContext, page_id: PageId) -> DeletedPage:
    """Delete a page with its versions, comments, labels and restrictions. A page with child
    pages cannot be deleted: move or delete its children first."""
    page = _editable(ctx, page_id, "delete")
    if page["child_total"]:
        raise ForbiddenError(f"page {page_id} ('{page['title']}') has {page['child_total']} child "
                             f"page{'' if page['child_total'] == 1 else 's'}; a page with children cannot be deleted: "
                             "move or delete its children first")
    comments = ctx.sql.execute("DELETE FROM comments WHERE page_id = ?", [page_id])
    ctx.sql.execute("DELETE FROM page_labels WHERE page_id = ?", [page_id])
    ctx.sql.execute("DELETE FROM page_restrictions WHERE page_id = ?", [page_id])
    versions = ctx.sql.execute("DELETE FROM page_versions WHERE page_id = ?", [page_id])
    ctx.sql.execute("DELETE FROM pages WHERE id = ?", [page_id])
    _shift(ctx, page["space_id"], page["parent_id"], page["position"] + 1, -1)
    return DeletedPage(page_id=page_id, title=page["title"], space_key=page["space_key"], versions_deleted=versions,
                       comments_deleted=comments)


@tools.tool(writes=True, destructive=False, idempotent=False, title="Restore an earlier page version", examples=[{"page_id": 153, "version": 1}])
def restore_page_version(
    ctx: ToolContext,
    page_id: PageId,
    version: Annotated[int, Field(ge=1, description="The old version whose title and text come back.")],
    message: Message = None,
) -> PageDetail:
    """Bring back an old version: its title and text become a new, current version; the
    versions in between are kept."""
    page = _editable(ctx, page_id, "restore")
    old = ctx.sql.one("SELECT title, body FROM page_versions WHERE page_id = ? AND number = ?", [page_id, version])
    if old is None:
        raise NotFoundError(f"page {page_id} has no version {version}; its versions are 1 to {page['version']}")
    if version == page["version"]:
        raise InvalidArgumentError(f"version {version} is already the current version of page {page_id}")
    if old["title"] != page["title"]:
        _title_taken(ctx, page["space_id"], old["title"], page_id)
    _new_version(ctx, page, old["title"], old["body"], message or f"Restored version {version}")
    return _detail(ctx, page_id)


@tools.tool(writes=True, destructive=False, idempotent=True, title="Add labels to a page",
            examples=[{"page_id": 153, "labels": ["needs-review"]}])
def add_page_labels(
    ctx: ToolContext,
    page_id: PageId,
    labels: Annotated[list[Label], Field(min_length=1, max_length=20, description="Labels to add (lowercase, no spaces).")],
) -> PageLabels:
    """Add labels to a page; labels it already has are kept once. Labels make no new version."""
    page = _editable(ctx, page_id, "relabel")
    ctx.sql.execute("INSERT OR IGNORE INTO page_labels (page_id, label) SELECT ?, value FROM json_each(?)", [page_id, labels])
    return PageLabels(page_id=page_id, title=page["title"], labels=_labels(ctx, [page_id])[page_id])


@tools.tool(writes=True, destructive=True, idempotent=True, title="Remove labels from a page",
            examples=[{"page_id": 153, "labels": ["runbook"]}])
def remove_page_labels(
    ctx: ToolContext,
    page_id: PageId,
    labels: Annotated[list[Label], Field(min_length=1, max_length=20, description="Labels to remove; each must be on the page.")],
) -> PageLabels:
    """Remove labels from a page; every label named must be on it."""
    page = _editable(ctx, page_id, "relabel")
    have = _labels(ctx, [page_id])[page_id]
    absent = [label for label in dict.fromkeys(labels) if label not in have]
    if absent:
        raise InvalidArgumentError(f"page {page_id} has no label {', '.join(absent)}; its labels are: "
                                   f"{', '.join(have) or 'none'}")
    ctx.sql.execute("DELETE FROM page_labels WHERE page_id = ? AND label IN (SELECT value FROM json_each(?))",
                    [page_id, labels])
    return PageLabels(page_id=page_id, title=page["title"], labels=[label for label in have if label not in set(labels)])


@tools.tool(writes=True, destructive=False, idempotent=False, title="Comment on a page", examples=[{"page_id": 153, "body": "Can we add the Grafana link here?"}])
def add_comment(
    ctx: ToolContext,
    page_id: PageId,
    body: Annotated[Body, Field(min_length=1, description="The comment's text.")],
    inline_text: Annotated[str | None, Field(
        min_length=1, max_length=200, pattern=r"\S",
        description="For an inline comment: the exact piece of the page's current text it is about.")] = None,
) -> CommentOut:
    """Comment on a page you can view: a page comment, or an inline comment on a piece of its
    current text (which can later be resolved)."""
    page = _page(ctx, page_id)
    if inline_text is not None and inline_text not in _current_body(ctx, page):
        raise InvalidArgumentError("inline_text must be an exact piece of the page's current text; read it with get_page")
    comment_id = ctx.sql.insert(
        "INSERT INTO comments (page_id, author_id, body, inline_text, resolved, resolved_by_id, resolved_at, created_at) "
        "VALUES (?, ?, ?, ?, 0, NULL, NULL, ?)", [page_id, ACTING_USER_ID, body, inline_text, ctx.now])
    return _comment(ctx, comment_id)


def _comment(ctx: ToolContext, comment_id: int) -> CommentOut:
    row = ctx.sql.one("SELECT comments.*, users.name AS author_name FROM comments JOIN users ON users.id = comments.author_id "
                      "WHERE comments.id = ?", [comment_id], Comment)
    assert row is not None
    return CommentOut(**row)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Resolve a page comment", examples=[{"comment_id": 295}])
def resolve_comment(
    ctx: ToolContext,
    comment_id: Annotated[int, Field(description="The inline comment's id (see list_page_comments).")],
    resolved: Annotated[bool, Field(description="True to resolve it, False to reopen it.")] = True,
) -> CommentOut:
    """Resolve an inline comment (or reopen it). Page comments cannot be resolved."""
    comment = ctx.sql.one("SELECT * FROM comments WHERE id = ?", [comment_id], Comment)
    if comment is None:
        raise missing("comment", comment_id, COMMENT_HINT)
    try:
        _chain(ctx, comment["page_id"])
    except NotFoundError:
        raise missing("comment", comment_id, COMMENT_HINT) from None
    if comment["inline_text"] is None:
        raise ForbiddenError(f"comment {comment_id} is a page comment; only inline comments can be resolved")
    if comment["resolved"] != resolved:
        ctx.sql.execute("UPDATE comments SET resolved = ?, resolved_by_id = ?, resolved_at = ? WHERE id = ?",
                        [resolved, ACTING_USER_ID if resolved else None, ctx.now if resolved else None, comment_id])
    return _comment(ctx, comment_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Set page restrictions",
            examples=[{"page_id": 153, "editor_ids": [1, 2]}])
def set_page_restrictions(
    ctx: ToolContext,
    page_id: PageId,
    viewer_ids: Annotated[list[int] | None, Field(
        max_length=50,
        description="User ids who alone may view the page (and its subtree); [] lifts the view restriction; omit to keep it.",
    )] = None,
    editor_ids: Annotated[list[int] | None, Field(
        max_length=50, description="User ids who alone may edit the page; [] lifts the edit restriction; omit to keep it.",
    )] = None,
) -> PageDetail:
    """Replace who may view and who may edit a page. You must stay able to view and edit it
    (include your own user id, 1, in any list you set), and every editor must be a viewer."""
    if viewer_ids is None and editor_ids is None:
        raise InvalidArgumentError("give viewer_ids, editor_ids or both")
    page = _editable(ctx, page_id, "change the restrictions of")
    current = {row["operation"]: row["ids"] for row in ctx.sql.all(
        "SELECT operation, json_group_array(user_id) AS ids FROM page_restrictions WHERE page_id = ? GROUP BY operation",
        [page_id])}
    viewers = sorted(set(viewer_ids)) if viewer_ids is not None else sorted(json.loads(current.get("view", "[]")))
    editors = sorted(set(editor_ids)) if editor_ids is not None else page["editor_ids"]
    named = sorted(set(viewers) | set(editors))
    known = set(ctx.sql.column("SELECT id FROM users WHERE id IN (SELECT value FROM json_each(?))", [named]))
    unknown = [user for user in named if user not in known]
    if unknown:
        raise NotFoundError(f"no user with id {', '.join(map(str, unknown))}. {USER_HINT}")
    for operation, people in (("view", viewers), ("edit", editors)):
        if people and ACTING_USER_ID not in people:
            raise ForbiddenError(f"you would lose the right to {operation} page {page_id}: include your own user id "
                                 f"({ACTING_USER_ID}) in the {operation} restriction")
    if viewers and not set(editors) <= set(viewers):
        outside = sorted(set(editors) - set(viewers))
        raise InvalidArgumentError(f"every editor must also be a viewer: add {', '.join(map(str, outside))} to viewer_ids")
    if (viewers, editors) != (sorted(json.loads(current.get("view", "[]"))), page["editor_ids"]):
        ctx.sql.execute("DELETE FROM page_restrictions WHERE page_id = ?", [page_id])
        ctx.sql.execute("INSERT INTO page_restrictions (page_id, operation, user_id) "
                        "SELECT ?, 'view', value FROM json_each(?) UNION ALL SELECT ?, 'edit', value FROM json_each(?)",
                        [page_id, viewers, page_id, editors])
    return _detail(ctx, page_id)
