"""Docs (wiki) task families: page lookups, space overviews and rankings, contributor reports,
version diffs, page trees, comments, the writes an editor does (create, append, rename, move,
relabel, restore, resolve, restrict, delete), refusals the wiki's rules call for, and links to
the help desk (the known-issue article of a ticket, the wiki work of a ticket's agent).

Requests name pages by title and space, people by name or email, tickets by subject and day;
never by id.
"""

from __future__ import annotations

import random
from abc import abstractmethod
from typing import Any

from mcpgym.synth.family import Draft, Family, WorldView, month_name, month_window, previous_month

SERVER = "docs"
ME = 1
"""The acting user of the docs server (its instructions say so)."""

NOTES = (
    "Reviewed during the quarterly docs clean-up; still accurate.",
    "Owner changes go through the team lead first.",
    "See the related pages in this space for the background.",
    "Ask in #help before changing this procedure.",
)
REPLIES = (
    "Addressed in the latest version, thanks!",
    "Fixed, thanks for flagging it.",
    "Updated the page; resolving this.",
)
NEW_LABELS = ("needs-review", "reviewed", "archived", "outdated", "faq")


# ---------------------------------------------------------------- sampling helpers


def _spaces(view: WorldView) -> list[dict[str, Any]]:
    return view.read(SERVER, "list_spaces")["spaces"]


def _space_pages(view: WorldView, key: str) -> list[dict[str, Any]]:
    """Every page of a space you can view, by title."""
    pages: list[dict[str, Any]] = []
    page: int | None = 1
    while page is not None:
        found = view.read(SERVER, "search_pages", space_key=key, sort_by="title", sort_order="asc", per_page=100, page=page)
        pages += found["pages"]
        page = found["next_page"]
    return pages


def _detail(view: WorldView, page_id: int) -> dict[str, Any]:
    return view.read(SERVER, "get_page", page_id=page_id)


def _pick(view: WorldView, rng: random.Random, keep: Any = lambda page: True,
          spaces: tuple[str, ...] | None = None) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """A random page (summary) of a random space for which `keep(page)` holds, and its space."""
    space = rng.choice([s for s in _spaces(view) if spaces is None or s["key"] in spaces])
    candidates = [page for page in _space_pages(view, space["key"]) if keep(page)]
    return (space, rng.choice(candidates)) if candidates else None


def _where(space: dict[str, Any]) -> str:
    return f"the {space['name']} space ({space['key']})"


def _find(call_id: str, title: str, space: dict[str, Any]) -> dict[str, Any]:
    """The call that finds a page by its title and space."""
    return {"id": call_id, "tool": "search_pages", "arguments": {"title": title, "space_key": space["key"]}}


def _editable(view: WorldView, page: dict[str, Any]) -> dict[str, Any] | None:
    """The page's detail when you may edit it, else None."""
    detail = _detail(view, page["id"])
    return detail if detail["can_edit"] else None


class _Retrying(Family):
    """A family whose samples sometimes ground nothing: it tries a few before giving up."""

    tries = 4

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        for _ in range(self.tries):
            found = self.attempt(view, rng)
            if found is not None:
                return found
        return None

    @abstractmethod
    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        """One sample: a grounded draft, or None to try again."""


# ---------------------------------------------------------------- reads


class PageLookup(_Retrying):
    """Who created a page the user names, who edited it last, when, and its version."""

    name = "docs.page-lookup"
    servers = (SERVER,)
    kind = "lookup"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _pick(view, rng)
        if picked is None:
            return None
        space, page = picked
        title, where = page["title"], _where(space)
        user = [
            f"Who created the page \"{title}\" in {where}, who edited it last and when, and what version is it at now?",
            f"For the wiki page \"{title}\" ({space['name']}, key {space['key']}): tell me its author, its last editor, the time of the last edit and the current version number.",
            f"I need the history basics of \"{title}\" in {where}: created by whom, last changed by whom and when, and how many versions it has.",
        ]
        return Draft(family=self.name, key=f"page:{page['id']}", turns=[{"user": user, "calls": [
            _find("c1", title, space),
            {"id": "c2", "tool": "get_page", "bind": {"page_id": "{c1.pages.0.id}"}},
        ], "facts": [
            {"name": "created by", "expr": "{c2.author_name}", "value": None},
            {"name": "last edited by", "expr": "{c2.updated_by_name}", "value": None},
            {"name": "last edited at", "expr": "{c2.updated_at}", "value": None},
            {"name": "current version", "expr": "{c2.version}", "value": None},
        ]}], checks=["{c1.total} == 1"])


class SpaceOverview(Family):
    """A space's owner, page count, contributors and most used label."""

    name = "docs.space-overview"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        space = rng.choice(_spaces(view))
        where = _where(space)
        user = [
            f"Give me an overview of {where}: who owns it, how many pages it has, how many people have written in it, and which label is used most.",
            f"For the {space['name']} wiki space ({space['key']}), I need the owner, the number of pages, the number of contributors and the most common label.",
            f"Summarise {where} for me: owner, page count, contributor count and top label.",
        ]
        return Draft(family=self.name, key=f"space:{space['key']}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_space", "arguments": {"space_key": space["key"]}},
        ], "facts": [
            {"name": "owner", "expr": "{c1.owner_name}", "value": None},
            {"name": "pages", "expr": "{c1.page_count}", "value": None},
            {"name": "contributors", "expr": "{c1.contributor_count}", "value": None},
            {"name": "most used label", "expr": "{c1.top_labels.0.label}", "value": None},
        ]}], checks=["{c1.top_labels.0.count} != {c1.top_labels.1.count}"])


class SpaceRanking(Family):
    """Which space has the most and the fewest pages, or was edited most recently."""

    name = "docs.space-ranking"
    servers = (SERVER,)
    kind = "comparison"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        if rng.random() < 0.6:
            user = [
                "Which wiki space has the most pages and how many, and which has the fewest and how many?",
                "Rank our wiki spaces by size: tell me the biggest and the smallest space with their page counts.",
                "Across the wiki, which space holds the most pages, which the fewest, and what are the two counts?",
            ]
            return Draft(family=self.name, key="page_count", turns=[{"user": user, "calls": [
                {"id": "c1", "tool": "list_spaces", "arguments": {"sort_by": "page_count"}},
            ], "facts": [
                {"name": "largest space", "expr": "{c1.spaces.0.name}", "value": None},
                {"name": "its pages", "expr": "{c1.spaces.0.page_count}", "value": None},
                {"name": "smallest space", "expr": "{c1.spaces.-1.name}", "value": None},
                {"name": "its pages", "expr": "{c1.spaces.-1.page_count}", "value": None},
            ]}], checks=["{c1.spaces.0.page_count} != {c1.spaces.1.page_count}",
                         "{c1.spaces.-1.page_count} != {c1.spaces.-2.page_count}"])
        user = [
            "Which wiki space was edited most recently, and when was that edit?",
            "Where did the latest wiki edit happen? Give me the space and the time.",
            "Of all our wiki spaces, which one has the most recent change, and at what time?",
        ]
        return Draft(family=self.name, key="updated_at", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_spaces", "arguments": {"sort_by": "updated_at"}},
        ], "facts": [
            {"name": "space", "expr": "{c1.spaces.0.name}", "value": None},
            {"name": "latest edit", "expr": "{c1.spaces.0.updated_at}", "value": None},
        ]}], checks=["{c1.spaces.0.updated_at} != {c1.spaces.1.updated_at}"])


class TopContributor(_Retrying):
    """Who wrote the most versions in a space in a month or a quarter, how many, and the total."""

    name = "docs.top-contributor"
    servers = (SERVER,)
    kind = "aggregation"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        space = rng.choice(_spaces(view))
        months = rng.choice((1, 3))
        last = previous_month(view.now.year, view.now.month, rng.randint(1, 12))
        first = previous_month(*last, months - 1)
        since, until = month_window(*first)[0], month_window(*last)[1]
        period = month_name(*last) if months == 1 else f"{month_name(*first)} through {month_name(*last)}"
        where = _where(space)
        user = [
            f"Who contributed the most edits to {where} in {period}, how many edits did they make, and how many edits did the space get in total?",
            f"In {period}, which person wrote the most page versions in the {space['name']} space ({space['key']})? Give their edit count and the space's total.",
            f"Top contributor of {where} for {period}: name, number of edits, and the total number of edits in that period.",
        ]
        return Draft(family=self.name, key=f"{space['key']}|{period}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "contributor_stats", "arguments": {"space_key": space["key"], "since": since, "until": until, "limit": 3}},
        ], "facts": [
            {"name": "top contributor", "expr": "{c1.contributors.0.name}", "value": None},
            {"name": "their edits", "expr": "{c1.contributors.0.edits}", "value": None},
            {"name": "total edits", "expr": "{c1.total_edits}", "value": None},
        ]}], checks=["{c1.total_edits} > 0",
                     "{c1.contributor_count} == 1 or {c1.contributors.0.edits} != {c1.contributors.1.edits}"])


class VersionDiff(_Retrying):
    """What changed between two versions of a page: lines added and removed, and who wrote the later one."""

    name = "docs.version-diff"
    servers = (SERVER,)
    kind = "drill-down"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _pick(view, rng, lambda page: 3 <= page["version"] <= 100)
        if picked is None:
            return None
        space, page = picked
        newer = rng.randint(2, page["version"])
        older = newer - 1 if rng.random() < 0.6 else rng.randint(1, newer - 1)
        title, where = page["title"], _where(space)
        user = [
            f"On the page \"{title}\" in {where}, what changed between version {older} and version {newer}? How many lines were added and removed, and who wrote version {newer}?",
            f"Compare versions {older} and {newer} of \"{title}\" ({space['name']}, {space['key']}): lines added, lines removed, and the author of version {newer}.",
            f"For \"{title}\" in {where}: diff version {older} against {newer} and tell me the added and removed line counts and who made version {newer}.",
        ]
        return Draft(family=self.name, key=f"page:{page['id']}|{older}|{newer}", turns=[{"user": user, "calls": [
            _find("c1", title, space),
            {"id": "c2", "tool": "list_page_versions", "arguments": {"per_page": 100}, "bind": {"page_id": "{c1.pages.0.id}"}},
            {"id": "c3", "tool": "diff_page_versions", "arguments": {"from_version": older, "to_version": newer},
             "bind": {"page_id": "{c1.pages.0.id}"}},
        ], "facts": [
            {"name": "lines added", "expr": "{c3.lines_added}", "value": None},
            {"name": "lines removed", "expr": "{c3.lines_removed}", "value": None},
            {"name": f"author of version {newer}", "expr": f"{{c2.versions.{page['version'] - newer}.author_name}}", "value": None},
        ]}], checks=["{c1.total} == 1", f"{{c2.versions.{page['version'] - newer}.number}} == {newer}"])


class RecentEdits(_Retrying):
    """The latest edits of a space (pages and authors), or the page a person edited last."""

    name = "docs.recent-edits"
    servers = (SERVER,)
    kind = "lookup"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        if rng.random() < 0.5:
            space = rng.choice(_spaces(view))
            where = _where(space)
            user = [
                f"What were the three most recent edits in {where}? Which pages, and who made each edit?",
                f"Show me the last three changes in the {space['name']} wiki space ({space['key']}): the pages and their editors.",
                f"List the three latest page edits in {where} with who made them.",
            ]
            return Draft(family=self.name, key=f"space:{space['key']}", turns=[{"user": user, "calls": [
                {"id": "c1", "tool": "list_recent_changes", "arguments": {"space_key": space["key"], "per_page": 3}},
            ], "facts": [
                {"name": "pages", "expr": "[{c1.changes.0.page_title}, {c1.changes.1.page_title}, {c1.changes.2.page_title}]", "value": None},
                {"name": "editors", "expr": "[{c1.changes.0.author_name}, {c1.changes.1.author_name}, {c1.changes.2.author_name}]", "value": None},
            ]}], checks=["{c1.total} >= 3"])
        person = rng.choice(view.read(SERVER, "search_users", per_page=100)["users"])
        if view.read(SERVER, "search_users", query=person["name"])["total"] != 1:
            return None
        latest = view.read(SERVER, "list_recent_changes", author_id=person["id"], per_page=1)["changes"]
        if not latest or not latest[0]["message"]:
            return None
        name = person["name"]
        user = [
            f"Which wiki page did {name} edit most recently, when, and with what change message?",
            f"What was {name}'s latest change in the wiki? I need the page title, the time and the change message.",
            f"Find the last page {name} edited in the wiki: title, time of the edit and its change message.",
        ]
        return Draft(family=self.name, key=f"person:{person['id']}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_users", "arguments": {"query": name}},
            {"id": "c2", "tool": "list_recent_changes", "arguments": {"per_page": 1}, "bind": {"author_id": "{c1.users.0.id}"}},
        ], "facts": [
            {"name": "page", "expr": "{c2.changes.0.page_title}", "value": None},
            {"name": "edited at", "expr": "{c2.changes.0.created_at}", "value": None},
            {"name": "change message", "expr": "{c2.changes.0.message}", "value": None},
        ]}], checks=["{c1.total} == 1"])


class SectionChildren(_Retrying):
    """The pages directly under a section the user names, in their order."""

    name = "docs.section-children"
    servers = (SERVER,)
    kind = "lookup"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        space = rng.choice(_spaces(view))
        pages = _space_pages(view, space["key"])
        children: dict[int, int] = {}
        for page in pages:
            if page["parent_id"] is not None:
                children[page["parent_id"]] = children.get(page["parent_id"], 0) + 1
        sections = [page for page in pages if 2 <= children.get(page["id"], 0) <= 8]
        if not sections:
            return None
        section = rng.choice(sections)
        count = children[section["id"]]
        title, where = section["title"], _where(space)
        user = [
            f"Which pages sit directly under \"{title}\" in {where}, in the order they appear?",
            f"List the child pages of \"{title}\" ({space['name']}, {space['key']}) in their tree order, and how many there are.",
            f"What's directly below the page \"{title}\" in {where}? Give me the titles in order and the count.",
        ]
        titles = ", ".join(f"{{c2.pages.{i}.title}}" for i in range(count))
        return Draft(family=self.name, key=f"page:{section['id']}", turns=[{"user": user, "calls": [
            _find("c1", title, space),
            {"id": "c2", "tool": "get_page_tree", "arguments": {"space_key": space["key"], "depth": 1},
             "bind": {"root_page_id": "{c1.pages.0.id}"}},
        ], "facts": [
            {"name": "child pages", "expr": f"[{titles}]", "value": None},
            {"name": "how many", "expr": "{c2.page_count}", "value": None},
        ]}], checks=["{c1.total} == 1", f"{{c2.page_count}} == {count}"])


class OpenComments(_Retrying):
    """How many open inline comments a page has, and who wrote the oldest one, about which text."""

    name = "docs.open-comments"
    servers = (SERVER,)
    kind = "drill-down"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _pick(view, rng)
        if picked is None:
            return None
        space, page = picked
        if not _detail(view, page["id"])["open_comment_count"]:
            return None
        title, where = page["title"], _where(space)
        user = [
            f"How many unresolved inline comments are there on \"{title}\" in {where}? Who wrote the oldest one, and which text does it point at?",
            f"Check the open inline comments on the page \"{title}\" ({space['name']}, {space['key']}): how many, the author of the oldest, and the quoted text it refers to.",
            f"On \"{title}\" in {where}: count the inline comments not yet resolved, and tell me who left the oldest open one and on what text.",
        ]
        return Draft(family=self.name, key=f"page:{page['id']}", turns=[{"user": user, "calls": [
            _find("c1", title, space),
            {"id": "c2", "tool": "list_page_comments", "arguments": {"status": "open", "kind": "inline", "per_page": 2},
             "bind": {"page_id": "{c1.pages.0.id}"}},
        ], "facts": [
            {"name": "open inline comments", "expr": "{c2.total}", "value": None},
            {"name": "oldest open comment by", "expr": "{c2.comments.0.author_name}", "value": None},
            {"name": "quoted text", "expr": "{c2.comments.0.inline_text}", "value": None},
        ]}], checks=["{c1.total} == 1", "{c2.total} == 1 or {c2.comments.0.created_at} != {c2.comments.1.created_at}"])


class AuthorPageCount(_Retrying):
    """How many pages of a space a person (named by email) created."""

    name = "docs.author-page-count"
    servers = (SERVER,)
    kind = "lookup"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        space = rng.choice(_spaces(view))
        authors = sorted({page["author_id"] for page in _space_pages(view, space["key"])})
        people = {user["id"]: user for user in view.read(SERVER, "search_users", per_page=100)["users"]}
        person = people[rng.choice(authors)]
        email, where = person["email"], _where(space)
        user = [
            f"How many pages in {where} were created by {email}, and what is that person's name?",
            f"Count the pages {email} has created in the {space['name']} space ({space['key']}), and tell me who that is.",
            f"Whose address is {email}, and how many pages of {where} did they create?",
        ]
        return Draft(family=self.name, key=f"{email}|{space['key']}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_user_by_email", "arguments": {"email": email}},
            {"id": "c2", "tool": "search_pages", "arguments": {"space_key": space["key"], "per_page": 1},
             "bind": {"author_id": "{c1.id}"}},
        ], "facts": [
            {"name": "name", "expr": "{c1.name}", "value": None},
            {"name": "pages created", "expr": "{c2.total}", "value": None},
        ]}], checks=["{c2.total} > 0", f"{{c1.id}} == {person['id']}"])


# ---------------------------------------------------------------- writes


class CreatePage(_Retrying):
    """Create a page under a section the user names, with a body and labels."""

    name = "docs.create-page"
    servers = (SERVER,)
    kind = "write"

    TOPICS = (
        ("How to request a staging environment", "1. Open the IT portal.\n2. Choose Staging environment.\n3. Add the project name and the end date.", ["how-to"]),
        ("Checklist for quarterly access reviews", "- Export the access list.\n- Ask each manager to confirm.\n- Remove stale accounts.", ["checklist", "access"]),
        ("Glossary of team terms", "- SLO: service level objective.\n- RCA: root cause analysis.\n- P1: the highest incident priority.", ["glossary"]),
        ("Team contacts", "- Team lead: see the space home page.\n- On-call: see the rotation in PagerDuty.", ["contacts"]),
        ("Retrospective template", "## What went well\n\n## What did not\n\n## Actions", ["template"]),
        ("Frequently asked questions", "Q: Where do I start?\nA: Read the home page of this space.", ["faq"]),
    )

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _pick(view, rng, lambda page: page["parent_id"] is not None)
        if picked is None:
            return None
        space, child = picked
        section = _detail(view, child["parent_id"])
        title, body, labels = rng.choice(self.TOPICS)
        taken = {page["title"].lower() for page in _space_pages(view, space["key"])}
        if title.lower() in taken:
            return None
        where = _where(space)
        shown = body.replace("\n", " / ")
        label_words = " and ".join(labels)
        user = [
            f"Create a page called \"{title}\" under \"{section['title']}\" in {where}, labelled {label_words}, with this text: {shown}",
            f"Please add a new page \"{title}\" as a child of \"{section['title']}\" ({space['name']}, {space['key']}). Text: {shown}. Labels: {label_words}.",
            f"Under \"{section['title']}\" in {where}, start a page \"{title}\" with the labels {label_words} and the content: {shown}",
        ]
        return Draft(family=self.name, key=f"{space['key']}|{section['id']}|{title}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", section["title"], space),
            {"id": "c2", "tool": "create_page", "arguments": {"space_key": space["key"], "title": title, "body": body,
                                                               "labels": labels}, "bind": {"parent_id": "{c1.pages.0.id}"}},
        ], "facts": []}], checks=["{c1.total} == 1"])


class AppendNote(_Retrying):
    """Add a line at the end of a page, with a change message."""

    name = "docs.append-note"
    servers = (SERVER,)
    kind = "write"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _pick(view, rng)
        if picked is None or _editable(view, picked[1]) is None:
            return None
        space, page = picked
        note, message = rng.choice(NOTES), rng.choice(("Added a note", "Quarterly review", "Clarified ownership"))
        title, where = page["title"], _where(space)
        user = [
            f"Add this line at the end of \"{title}\" in {where}: \"{note}\" Use the change message \"{message}\".",
            f"Please append \"{note}\" to the page \"{title}\" ({space['name']}, {space['key']}), with \"{message}\" as the change message.",
            f"On \"{title}\" in {where}, add the sentence \"{note}\" at the bottom (change message: \"{message}\").",
        ]
        return Draft(family=self.name, key=f"page:{page['id']}|{note}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", title, space),
            {"id": "c2", "tool": "update_page", "arguments": {"body": note, "append": True, "message": message},
             "bind": {"page_id": "{c1.pages.0.id}"}},
        ], "facts": [{"name": "new version", "expr": "{c2.version}", "value": None}]}], checks=["{c1.total} == 1"])


class RenamePage(_Retrying):
    """Give a page a new title."""

    name = "docs.rename-page"
    servers = (SERVER,)
    kind = "write"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _pick(view, rng, lambda page: len(page["title"]) < 170)
        if picked is None or _editable(view, picked[1]) is None:
            return None
        space, page = picked
        title = page["title"]
        new = f"{title} ({rng.choice(('archived', 'outdated', 'draft', 'to review'))})"
        if new.lower() in {p["title"].lower() for p in _space_pages(view, space["key"])}:
            return None
        where = _where(space)
        user = [
            f"Rename the page \"{title}\" in {where} to \"{new}\".",
            f"Please change the title of \"{title}\" ({space['name']}, {space['key']}) to \"{new}\".",
            f"In {where}, retitle \"{title}\" as \"{new}\".",
        ]
        return Draft(family=self.name, key=f"page:{page['id']}|{new}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", title, space),
            {"id": "c2", "tool": "rename_page", "arguments": {"title": new}, "bind": {"page_id": "{c1.pages.0.id}"}},
        ], "facts": []}], checks=["{c1.total} == 1"])


class MovePage(_Retrying):
    """Move a page (without children) under another section of its space, as its first child."""

    name = "docs.move-page"
    servers = (SERVER,)
    kind = "write"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        space = rng.choice(_spaces(view))
        pages = _space_pages(view, space["key"])
        parents = {page["parent_id"] for page in pages}
        leaves = [page for page in pages if page["id"] not in parents and page["parent_id"] is not None]
        if not leaves:
            return None
        page = rng.choice(leaves)
        sections = [p for p in pages if p["id"] in parents and p["id"] != page["parent_id"]]
        if not sections or _editable(view, page) is None:
            return None
        section = rng.choice(sections)
        where = _where(space)
        user = [
            f"Move the page \"{page['title']}\" under \"{section['title']}\" in {where}, as its first child page.",
            f"Please put \"{page['title']}\" ({space['name']}, {space['key']}) under the page \"{section['title']}\", at the top of its children.",
            f"In {where}, relocate \"{page['title']}\" so it becomes the first page below \"{section['title']}\".",
        ]
        return Draft(family=self.name, key=f"page:{page['id']}|{section['id']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", page["title"], space),
            _find("c2", section["title"], space),
            {"id": "c3", "tool": "move_page", "arguments": {"position": 1},
             "bind": {"page_id": "{c1.pages.0.id}", "parent_id": "{c2.pages.0.id}"}},
        ], "facts": []}], checks=["{c1.total} == 1", "{c2.total} == 1"])


class Relabel(_Retrying):
    """Replace one label of a page with another."""

    name = "docs.relabel"
    servers = (SERVER,)
    kind = "write"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _pick(view, rng, lambda page: bool(page["labels"]))
        if picked is None or _editable(view, picked[1]) is None:
            return None
        space, page = picked
        old = rng.choice(page["labels"])
        new = rng.choice([label for label in NEW_LABELS if label not in page["labels"]])
        title, where = page["title"], _where(space)
        user = [
            f"On \"{title}\" in {where}, replace the label \"{old}\" with \"{new}\".",
            f"Please relabel the page \"{title}\" ({space['name']}, {space['key']}): remove \"{old}\" and add \"{new}\".",
            f"Swap the label {old} for {new} on \"{title}\" in {where}.",
        ]
        return Draft(family=self.name, key=f"page:{page['id']}|{old}|{new}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", title, space),
            {"id": "c2", "tool": "add_page_labels", "arguments": {"labels": [new]}, "bind": {"page_id": "{c1.pages.0.id}"}},
            {"id": "c3", "tool": "remove_page_labels", "arguments": {"labels": [old]}, "bind": {"page_id": "{c1.pages.0.id}"}},
        ], "facts": []}], checks=["{c1.total} == 1"])


class RestrictEditors(_Retrying):
    """Make a page editable only by the user and a colleague named by email."""

    name = "docs.restrict-editors"
    servers = (SERVER,)
    kind = "write"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _pick(view, rng)
        if picked is None:
            return None
        space, page = picked
        detail = _editable(view, page)
        if detail is None or detail["editors"] or detail["viewers"]:
            return None
        colleague = rng.choice([u for u in view.read(SERVER, "search_users", per_page=100)["users"] if u["id"] != ME])
        title, where, email = page["title"], _where(space), colleague["email"]
        user = [
            f"Restrict editing of \"{title}\" in {where} to me and {email}; everyone else should only be able to read it.",
            f"Lock down \"{title}\" ({space['name']}, {space['key']}) so that only I and {colleague['name']} ({email}) can edit it.",
            f"Set edit restrictions on the page \"{title}\" in {where}: editors are me and {email}, nobody else.",
        ]
        return Draft(family=self.name, key=f"page:{page['id']}|{email}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", title, space),
            {"id": "c2", "tool": "get_user_by_email", "arguments": {"email": email}},
            {"id": "c3", "tool": "set_page_restrictions", "bind": {"page_id": "{c1.pages.0.id}", "editor_ids": f"[{ME}, {{c2.id}}]"}},
        ], "facts": []}], checks=["{c1.total} == 1"])


class DeleteIfLeaf(_Retrying):
    """Delete a page if it has no child pages; otherwise say how many it has."""

    name = "docs.delete-if-leaf"
    servers = (SERVER,)
    kind = "conditional-write"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _pick(view, rng)
        if picked is None:
            return None
        space, page = picked
        detail = _editable(view, page)
        if detail is None:
            return None
        leaf = detail["child_count"] == 0
        title, where = page["title"], _where(space)
        user = [
            f"If the page \"{title}\" in {where} has no child pages, delete it. Either way, tell me how many child pages it has.",
            f"Check \"{title}\" ({space['name']}, {space['key']}): how many pages are under it? If none, delete the page.",
            f"Delete \"{title}\" in {where}, but only if nothing is nested under it; tell me its number of child pages.",
        ]
        calls: list[dict[str, Any]] = [_find("c1", title, space),
                                       {"id": "c2", "tool": "get_page", "bind": {"page_id": "{c1.pages.0.id}"}}]
        if leaf:
            calls.append({"id": "c3", "tool": "delete_page", "bind": {"page_id": "{c1.pages.0.id}"}})
        return Draft(family=self.name, key=f"page:{page['id']}", writes=leaf, turns=[{"user": user, "calls": calls, "facts": [
            {"name": "child pages", "expr": "{c2.child_count}", "value": None},
        ]}], checks=["{c1.total} == 1"])


# ---------------------------------------------------------------- two turns


class RevertLatestEdit(_Retrying):
    """Two turns: who made the latest change to a page and why; then restore the version before it."""

    name = "docs.revert-latest-edit"
    servers = (SERVER,)
    kind = "multi-turn"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _pick(view, rng, lambda page: page["version"] >= 2)
        if picked is None or _editable(view, picked[1]) is None:
            return None
        space, page = picked
        latest = view.read(SERVER, "list_page_versions", page_id=page["id"], per_page=2)["versions"]
        if not latest[0]["message"] or latest[0]["title"] != latest[1]["title"]:
            return None
        title, where = page["title"], _where(space)
        first = [
            f"Who made the latest change to \"{title}\" in {where}, and what was its change message?",
            f"The page \"{title}\" ({space['name']}, {space['key']}) changed recently: who edited it last, and with which change message?",
        ]
        second = [
            "That edit was a mistake. Restore the version just before it.",
            "Please revert it: bring back the previous version of the page.",
        ]
        return Draft(family=self.name, key=f"page:{page['id']}", writes=True, turns=[
            {"user": first, "calls": [
                _find("c1", title, space),
                {"id": "c2", "tool": "list_page_versions", "arguments": {"per_page": 2}, "bind": {"page_id": "{c1.pages.0.id}"}},
            ], "facts": [
                {"name": "last editor", "expr": "{c2.versions.0.author_name}", "value": None},
                {"name": "change message", "expr": "{c2.versions.0.message}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c3", "tool": "restore_page_version", "bind": {"page_id": "{c1.pages.0.id}", "version": "{c2.versions.1.number}"}},
            ], "facts": []},
        ], checks=["{c1.total} == 1"])


class ResolveOldestComment(_Retrying):
    """Two turns: the open inline comments of a page and the oldest one's text; then resolve it
    and reply with a page comment."""

    name = "docs.resolve-oldest-comment"
    servers = (SERVER,)
    kind = "multi-turn"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _pick(view, rng)
        if picked is None:
            return None
        space, page = picked
        if not _detail(view, page["id"])["open_comment_count"]:
            return None
        title, where, reply = page["title"], _where(space), rng.choice(REPLIES)
        first = [
            f"How many open inline comments does \"{title}\" in {where} have, and what does the oldest one say?",
            f"On the page \"{title}\" ({space['name']}, {space['key']}), count the unresolved inline comments and read me the oldest.",
        ]
        second = [
            f"Resolve that oldest comment, then leave a page comment saying \"{reply}\"",
            f"Mark it as resolved and add a comment on the page: \"{reply}\"",
        ]
        return Draft(family=self.name, key=f"page:{page['id']}", writes=True, turns=[
            {"user": first, "calls": [
                _find("c1", title, space),
                {"id": "c2", "tool": "list_page_comments", "arguments": {"status": "open", "kind": "inline", "per_page": 2},
                 "bind": {"page_id": "{c1.pages.0.id}"}},
            ], "facts": [
                {"name": "open inline comments", "expr": "{c2.total}", "value": None},
                {"name": "oldest comment", "expr": "{c2.comments.0.body}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c3", "tool": "resolve_comment", "bind": {"comment_id": "{c2.comments.0.id}"}},
                {"id": "c4", "tool": "add_comment", "arguments": {"body": reply}, "bind": {"page_id": "{c1.pages.0.id}"}},
            ], "facts": []},
        ], checks=["{c1.total} == 1", "{c2.total} == 1 or {c2.comments.0.created_at} != {c2.comments.1.created_at}"])


# ---------------------------------------------------------------- refusals the rules call for


class EditRestrictedRefusal(_Retrying):
    """A change to a page edit-restricted to others: the right answer is a refusal naming who may edit it."""

    name = "docs.edit-restricted-refusal"
    servers = (SERVER,)
    kind = "policy"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        picked = _pick(view, rng, lambda page: bool({"policy", "spec", "on-call"} & set(page["labels"])))
        if picked is None:
            return None
        space, page = picked
        detail = _detail(view, page["id"])
        if detail["can_edit"]:
            return None
        title, where, note = page["title"], _where(space), rng.choice(NOTES)
        user = [
            f"Add \"{note}\" at the end of \"{title}\" in {where}. If you are not allowed to, tell me who can edit it.",
            f"Please append the line \"{note}\" to the page \"{title}\" ({space['name']}, {space['key']}); if that is not permitted, who may edit the page?",
            f"Update \"{title}\" in {where} with the note \"{note}\" at the bottom, or, if the page is locked for me, name the people who can change it.",
        ]
        names = ", ".join(f"{{c2.editors.{i}.name}}" for i in range(len(detail["editors"])))
        return Draft(family=self.name, key=f"page:{page['id']}", turns=[{"user": user, "calls": [
            _find("c1", title, space),
            {"id": "c2", "tool": "get_page", "bind": {"page_id": "{c1.pages.0.id}"}},
        ], "facts": [{"name": "people who may edit it", "expr": f"[{names}]", "value": None}]}],
            checks=["{c1.total} == 1", "{c2.can_edit} == False"])


class DuplicateTitleRefusal(_Retrying):
    """Renaming a page to the title of another page of its space: refused, naming that page's author."""

    name = "docs.duplicate-title-refusal"
    servers = (SERVER,)
    kind = "policy"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        space = rng.choice(_spaces(view))
        pages = _space_pages(view, space["key"])
        if len(pages) < 2:
            return None
        page, other = rng.sample(pages, 2)
        if _editable(view, page) is None:
            return None
        where = _where(space)
        user = [
            f"Rename \"{page['title']}\" in {where} to \"{other['title']}\". If that can't be done, tell me why and who created the page that is in the way.",
            f"Please retitle the page \"{page['title']}\" ({space['name']}, {space['key']}) as \"{other['title']}\"; if it is not possible, who wrote the conflicting page?",
            f"Change the title of \"{page['title']}\" in {where} to \"{other['title']}\", or explain why not and name the creator of the page with that title.",
        ]
        return Draft(family=self.name, key=f"page:{page['id']}|{other['id']}", turns=[{"user": user, "calls": [
            _find("c1", page["title"], space),
            _find("c2", other["title"], space),
        ], "facts": [{"name": "creator of the page already titled so", "expr": "{c2.pages.0.author_name}", "value": None}]}],
            checks=["{c1.total} == 1", "{c2.total} == 1"])


class DeleteParentRefusal(_Retrying):
    """Deleting a page that has child pages: refused, with how many children and which."""

    name = "docs.delete-parent-refusal"
    servers = (SERVER,)
    kind = "policy"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        space = rng.choice(_spaces(view))
        pages = _space_pages(view, space["key"])
        children: dict[int, int] = {}
        for page in pages:
            if page["parent_id"] is not None:
                children[page["parent_id"]] = children.get(page["parent_id"], 0) + 1
        parents = [page for page in pages if 1 <= children.get(page["id"], 0) <= 5]
        if not parents:
            return None
        page = rng.choice(parents)
        if _editable(view, page) is None:
            return None
        count = children[page["id"]]
        where = _where(space)
        user = [
            f"Delete the page \"{page['title']}\" in {where}. If it can't be deleted, tell me which pages are in the way.",
            f"Please remove \"{page['title']}\" ({space['name']}, {space['key']}) from the wiki; if something prevents it, list what.",
            f"Get rid of the page \"{page['title']}\" in {where}, or tell me which child pages block the deletion.",
        ]
        titles = ", ".join(f"{{c2.pages.{i}.title}}" for i in range(count))
        return Draft(family=self.name, key=f"page:{page['id']}", turns=[{"user": user, "calls": [
            _find("c1", page["title"], space),
            {"id": "c2", "tool": "get_page_tree", "arguments": {"space_key": space["key"], "depth": 1},
             "bind": {"root_page_id": "{c1.pages.0.id}"}},
        ], "facts": [{"name": "child pages in the way", "expr": f"[{titles}]", "value": None}]}],
            checks=["{c1.total} == 1", f"{{c2.page_count}} == {count}"])


# ---------------------------------------------------------------- with the help desk


def _article_ticket(view: WorldView, rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """A known-issue article and the help-desk ticket it was written from."""
    articles = [page for page in _space_pages(view, "SUP") if page["source_ticket_id"] is not None]
    if not articles:
        return None
    article = rng.choice(articles)
    ticket = view.lookup("zendesk", "get_ticket", ticket_id=article["source_ticket_id"])
    return None if ticket is None else (article, ticket)


def _ticket_search(ticket: dict[str, Any]) -> dict[str, Any]:
    day = ticket["created_at"][:10]
    return {"id": "c1", "server": "zendesk", "tool": "search_tickets", "arguments": {
        "query": ticket["subject"], "created_after": f"{day}T00:00:00Z", "created_before": f"{day}T23:59:59Z", "per_page": 5}}


class TicketArticle(_Retrying):
    """The known-issue article written from a ticket the user names, who last edited it and when."""

    name = "cross.docs-ticket-article"
    servers = ("zendesk", SERVER)
    kind = "cross-server"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        found = _article_ticket(view, rng)
        if found is None:
            return None
        article, ticket = found
        subject, day = ticket["subject"], ticket["created_at"][:10]
        user = [
            f"The ticket \"{subject}\" filed on {day}: is there a known-issue article about it in the wiki? Give me its title, who last edited it and when.",
            f"Find the wiki's known-issue article written from the help-desk ticket \"{subject}\" ({day}), and tell me its title, its last editor and the time of that edit.",
            f"Which wiki article covers the ticket \"{subject}\" opened on {day}? I need the title, the last editor and the last edit time.",
        ]
        return Draft(family=self.name, key=f"ticket:{ticket['id']}", turns=[{"user": user, "calls": [
            _ticket_search(ticket),
            {"id": "c2", "server": SERVER, "tool": "search_pages", "bind": {"source_ticket_id": "{c1.tickets.0.id}"}},
        ], "facts": [
            {"name": "article", "expr": "{c2.pages.0.title}", "value": None},
            {"name": "last edited by", "expr": "{c2.pages.0.updated_by_name}", "value": None},
            {"name": "last edited at", "expr": "{c2.pages.0.updated_at}", "value": None},
        ]}], checks=["{c1.total} == 1", "{c2.total} == 1"])


class AgentWikiWork(_Retrying):
    """How many Support wiki pages the agent of a ticket has worked on (people matched by email)."""

    name = "cross.docs-agent-pages"
    servers = ("zendesk", SERVER)
    kind = "cross-server"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        page = view.read("zendesk", "search_tickets", status=["solved", "closed"], per_page=50, page=rng.randint(1, 20))
        if not page["tickets"]:
            return None
        ticket = rng.choice(page["tickets"])
        if ticket["assignee_id"] is None:
            return None
        subject, day = ticket["subject"], ticket["created_at"][:10]
        user = [
            f"Who handled the ticket \"{subject}\" from {day}, and on how many pages of the wiki's Customer Support space (SUP) have they written a version?",
            f"The agent assigned to \"{subject}\" (filed {day}): what's their name, and how many Customer Support wiki pages (SUP) have they created or edited?",
            f"For the ticket \"{subject}\" opened on {day}, find the assigned agent and count the pages in the SUP wiki space they contributed to.",
        ]
        return Draft(family=self.name, key=f"ticket:{ticket['id']}", turns=[{"user": user, "calls": [
            _ticket_search(ticket),
            {"id": "c2", "server": "zendesk", "tool": "get_user", "bind": {"user_id": "{c1.tickets.0.assignee_id}"}},
            {"id": "c3", "server": SERVER, "tool": "get_user_by_email", "bind": {"email": "{c2.email}"}},
            {"id": "c4", "server": SERVER, "tool": "search_pages", "arguments": {"space_key": "SUP", "per_page": 1},
             "bind": {"editor_id": "{c3.id}"}},
        ], "facts": [
            {"name": "agent", "expr": "{c2.name}", "value": None},
            {"name": "Support pages they wrote in", "expr": "{c4.total}", "value": None},
        ]}], checks=["{c1.total} == 1", "{c4.total} > 0"])


class ArticleTicketStatus(_Retrying):
    """The status of the ticket a known-issue article came from, and who reported it."""

    name = "cross.docs-article-ticket"
    servers = ("zendesk", SERVER)
    kind = "cross-server"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        found = _article_ticket(view, rng)
        if found is None:
            return None
        article = found[0]
        title = article["title"]
        user = [
            f"The wiki article \"{title}\" in the Customer Support space (SUP) came from a help-desk ticket. What is that ticket's status now, and which customer reported it?",
            f"Look up the ticket behind the known-issue page \"{title}\" (SUP): its current status and its requester.",
            f"For the SUP wiki page \"{title}\", find the source ticket in the help desk and tell me its status and who filed it.",
        ]
        return Draft(family=self.name, key=f"page:{article['id']}", turns=[{"user": user, "calls": [
            {"id": "c1", "server": SERVER, "tool": "search_pages", "arguments": {"title": title, "space_key": "SUP"}},
            {"id": "c2", "server": "zendesk", "tool": "get_ticket", "bind": {"ticket_id": "{c1.pages.0.source_ticket_id}"}},
            {"id": "c3", "server": "zendesk", "tool": "get_user", "bind": {"user_id": "{c2.requester_id}"}},
        ], "facts": [
            {"name": "ticket status", "expr": "{c2.status}", "value": None},
            {"name": "reported by", "expr": "{c3.name}", "value": None},
        ]}], checks=["{c1.total} == 1"])


DOCS_FAMILIES = (
    PageLookup(),
    SpaceOverview(),
    SpaceRanking(),
    TopContributor(),
    VersionDiff(),
    RecentEdits(),
    SectionChildren(),
    OpenComments(),
    AuthorPageCount(),
    CreatePage(),
    AppendNote(),
    RenamePage(),
    MovePage(),
    Relabel(),
    RestrictEditors(),
    DeleteIfLeaf(),
    RevertLatestEdit(),
    ResolveOldestComment(),
    EditRestrictedRefusal(),
    DuplicateTitleRefusal(),
    DeleteParentRefusal(),
    TicketArticle(),
    AgentWikiWork(),
    ArticleTicketStatus(),
)
