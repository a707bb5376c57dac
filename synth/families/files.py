"""Files task families: where a file is, who edited it last, what a folder holds, who uses how
much storage (and more than whom), what colleagues worked on, what a customer can open, how
much room a file's owner has; uploading, making folders, renaming, moving, copying, starring
and describing files; sharing, changing and removing access, handing files over; the trash;
refusals the drive's rules call for; two-turn follow-ups; and, with the CRM, a key account's
contract and who can open it, a contact's reach, and sharing an account's deck with a contact.

A user names a file or folder by its name (and a folder by its path), a person by name or
email, never by an id.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from mcpgym.synth.family import Draft, Family, WorldView, month_name, month_window, previous_month

SERVER = "files"
ME = 1

Row = dict[str, Any]
Call = dict[str, Any]

KIND_WORDS = {"pdf": "PDFs", "spreadsheet": "spreadsheets", "presentation": "presentations", "document": "documents",
              "image": "images", "video": "videos", "archive": "zip archives"}

UPLOADS: tuple[tuple[str, str, str, int, int], ...] = (
    ("Signed order form {day}", ".pdf", "application/pdf", 80_000, 3_000_000),
    ("Meeting notes {day}", ".docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", 20_000, 400_000),
    ("Pipeline export {day}", ".csv", "text/csv", 5_000, 2_000_000),
    ("Whiteboard photo {day}", ".jpg", "image/jpeg", 300_000, 6_000_000),
    ("Customer call recording {day}", ".mp4", "video/mp4", 40_000_000, 400_000_000),
    ("Pricing model {day}", ".xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", 30_000, 2_000_000),
    ("Workshop photos {day}", ".zip", "application/zip", 5_000_000, 90_000_000),
)
"""Files a user uploads: name (with the day), extension, MIME type and a size range in bytes."""

NEW_FOLDERS = ("Q1 2026 planning", "Renewals 2026", "Archive 2024", "Customer references", "Board prep",
               "Signed contracts", "Drafts", "Competitive intel", "Onboarding kits", "Webinar follow-ups")
DESCRIPTIONS = ("Final version, approved by the customer.", "Draft: do not share outside the team yet.",
                "Source of truth for the quarterly numbers.", "Superseded by the newer version; kept for reference.",
                "Shared with the customer for review.")
RENAME_SUFFIXES = (" (final)", " (approved)", " - old", " v2", " (archived)")
RECORDINGS = ("All-hands recording", "Customer summit keynote", "Product launch livestream", "Team offsite video")
ROLE_WORDS = {"viewer": "view-only access", "commenter": "comment access", "editor": "edit access"}


# ---------------------------------------------------------------- sampling helpers


def _search(view: WorldView, **filters: Any) -> Row:
    return view.read(SERVER, "search_files", **filters)


def _random_items(view: WorldView, rng: random.Random, files_only: bool = True, **filters: Any) -> list[Row]:
    """One random page of search results (not in the trash unless `trashed`), files only unless told."""
    total = _search(view, **filters, per_page=1)["total"]
    if not total:
        return []
    page = rng.randint(1, -(-total // 50))
    items = _search(view, **filters, per_page=50, page=page)["files"]
    return [i for i in items if i["kind"] != "folder"] if files_only else items


def _unique(view: WorldView, item: Row, trashed: bool = False) -> bool:
    """Whether searching the item's name (in the drive, or in the trash) finds it alone."""
    found = _search(view, query=item["name"], trashed=trashed, per_page=2, **({"kind": "folder"} if item["kind"] == "folder" else {}))
    return found["total"] == 1 and found["files"][0]["id"] == item["id"]


def _detail(view: WorldView, item: Row) -> Row:
    return view.read(SERVER, "get_file", file_id=item["id"])


def _path(view: WorldView, item: Row) -> str:
    return view.read(SERVER, "get_file_path", file_id=item["id"])["path"]


def _top(view: WorldView) -> dict[str, Row]:
    return {i["name"]: i for i in view.read(SERVER, "list_folder_contents", per_page=100)["items"]}


def _pick(view: WorldView, rng: random.Random, items: list[Row], test: Callable[[Row], bool],
          tries: int = 12) -> Row | None:
    """A random item of `items` that is unique by name and passes `test`."""
    for item in rng.sample(items, min(tries, len(items))):
        if _unique(view, item, trashed=item["trashed"]) and test(item):
            return item
    return None


def _editable(view: WorldView, item: Row) -> bool:
    return _detail(view, item)["your_role"] in ("owner", "editor")


def _sales_items(view: WorldView, rng: random.Random, files_only: bool = True) -> list[Row]:
    """Items of the Sales folder, which you edit."""
    return _random_items(view, rng, files_only, folder_id=_top(view)["Sales"]["id"])


def _sales_folders(view: WorldView) -> list[Row]:
    """The folders inside Sales (which you edit)."""
    return _search(view, kind="folder", folder_id=_top(view)["Sales"]["id"], per_page=100)["files"]


def _my_files(view: WorldView, rng: random.Random) -> list[Row]:
    return _random_items(view, rng, owner_id=ME)


def _folders_i_edit(view: WorldView, rng: random.Random) -> list[Row]:
    return [f for f in _random_items(view, rng, False, kind="folder", shared_with_id=ME) if f["kind"] == "folder"]


def _employees(view: WorldView) -> list[Row]:
    return view.read(SERVER, "search_users", is_internal=True, per_page=100)["users"]


def _unique_person(view: WorldView, person: Row) -> bool:
    found = view.read(SERVER, "search_users", query=person["name"], per_page=2)
    return found["total"] == 1


def _colleague(view: WorldView, rng: random.Random, item: Row | None = None) -> Row | None:
    """An employee other than you (unique by name), with no access to `item` beyond everyone's."""
    holders = set() if item is None else {p["user_id"] for p in view.read(SERVER, "list_permissions", file_id=item["id"])["permissions"]}
    people = [u for u in _employees(view) if u["id"] != ME and u["id"] not in holders]
    rng.shuffle(people)
    return next((p for p in people if _unique_person(view, p)), None)


def _customer_with_access(view: WorldView, rng: random.Random) -> Row | None:
    """A customer's contact something in Sales is shared with (as a directory user)."""
    items = _sales_items(view, rng)
    for item in rng.sample(items, min(12, len(items))):
        outside = [p for p in view.read(SERVER, "list_permissions", file_id=item["id"])["permissions"] if not p["is_internal"]]
        if outside:
            return view.read(SERVER, "get_user_by_email", email=rng.choice(outside)["email"])
    return None


def _customer(view: WorldView, rng: random.Random) -> Row:
    total = view.read(SERVER, "search_users", is_internal=False, per_page=1)["total"]
    page = view.read(SERVER, "search_users", is_internal=False, per_page=50, page=rng.randint(1, -(-total // 50)))
    return rng.choice(page["users"])


def _find(call_id: str, item: Row, trashed: bool = False) -> Call:
    """The search that finds an item by its name."""
    arguments: dict[str, Any] = {"query": item["name"]}
    if item["kind"] == "folder":
        arguments["kind"] = "folder"
    if trashed:
        arguments["trashed"] = True
    return {"id": call_id, "tool": "search_files", "arguments": arguments}


def _person(call_id: str, person: Row) -> Call:
    return {"id": call_id, "tool": "search_users", "arguments": {"query": person["name"]}}


def _upload(view: WorldView, rng: random.Random) -> tuple[str, str, int]:
    """A file to upload: its name, MIME type and size."""
    stem, extension, mime, low, high = rng.choice(UPLOADS)
    day = (view.now - timedelta(days=rng.randint(0, 20))).date()
    return stem.format(day=day) + extension, mime, rng.randint(low // 1000, high // 1000) * 1000


def _renamed(name: str, suffix: str) -> str:
    """`name` with `suffix` before its extension (`Plan.pdf` -> `Plan (final).pdf`)."""
    stem, dot, extension = name.rpartition(".")
    if dot and stem and 1 <= len(extension) <= 4 and extension.isalnum():
        return f"{stem}{suffix}.{extension}"
    return name + suffix


def _storage(view: WorldView, user_id: int = ME) -> Row:
    return view.read(SERVER, "get_storage_usage", user_id=user_id)


# ---------------------------------------------------------------- reads


class FileLocation(Family):
    """Where a file is kept (its path) and who owns it."""

    name = "files.file-location"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        item = _pick(view, rng, _random_items(view, rng), lambda i: True)
        if item is None:
            return None
        name = item["name"]
        user = [f"Where is \"{name}\" kept in the drive? Give me its full folder path and who owns it.",
                f"I can't find \"{name}\". What's its path, and whose file is it?",
                f"Which folder holds \"{name}\" (full path please), and who is the owner?"]
        return Draft(family=self.name, key=f"file:{item['id']}", turns=[{"user": user, "calls": [
            _find("c1", item),
            {"id": "c2", "tool": "get_file_path", "bind": {"file_id": "{c1.files.0.id}"}},
        ], "facts": [{"name": "path", "expr": "{c2.path}", "value": None},
                     {"name": "owner", "expr": "{c1.files.0.owner_name}", "value": None}]}],
            checks=["{c1.total} == 1"])


class LastEditor(Family):
    """Who saved the latest version of a file, when, and how many versions it has."""

    name = "files.last-editor"
    servers = (SERVER,)
    kind = "drill-down"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        items = _random_items(view, rng, kind=rng.choice(("document", "spreadsheet", "presentation")))
        item = _pick(view, rng, items, lambda i: _detail(view, i)["revision_count"] >= 2)
        if item is None:
            return None
        name = item["name"]
        user = [f"Who saved the latest version of \"{name}\", when was that, and how many versions does it have?",
                f"For \"{name}\": how many saved versions are there, and who made the most recent one (and when)?"]
        return Draft(family=self.name, key=f"file:{item['id']}", turns=[{"user": user, "calls": [
            _find("c1", item),
            {"id": "c2", "tool": "list_file_revisions", "bind": {"file_id": "{c1.files.0.id}"}},
        ], "facts": [{"name": "last saved by", "expr": "{c2.revisions.-1.modified_by_name}", "value": None},
                     {"name": "last saved at", "expr": "{c2.revisions.-1.modified_at}", "value": None},
                     {"name": "versions", "expr": "len({c2.revisions})", "value": None}]}],
            checks=["{c1.total} == 1"])


class FolderLargest(Family):
    """How many items a folder holds, and its largest file with the size."""

    name = "files.folder-largest"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        folders = _random_items(view, rng, False, kind="folder")
        folder = _pick(view, rng, folders, lambda f: _detail(view, f)["child_count"] >= 3)
        if folder is None:
            return None
        listing = view.read(SERVER, "list_folder_contents", folder_id=folder["id"], sort_by="size_bytes",
                            sort_order="desc", folders_first=False, per_page=2)
        if listing["items"][0]["kind"] == "folder" or listing["items"][0]["size_bytes"] == listing["items"][1]["size_bytes"]:
            return None
        path = _path(view, folder)
        user = [f"How many items are in the folder {path} (not counting the trash), and which is the largest file there and how big is it in bytes?",
                f"Look at {path}: what's the item count, and what's its biggest file (name and size in bytes)?"]
        return Draft(family=self.name, key=f"folder:{folder['id']}", turns=[{"user": user, "calls": [
            _find("c1", folder),
            {"id": "c2", "tool": "list_folder_contents", "arguments": {
                "sort_by": "size_bytes", "sort_order": "desc", "folders_first": False, "per_page": 2},
             "bind": {"folder_id": "{c1.files.0.id}"}},
        ], "facts": [{"name": "items", "expr": "{c2.total}", "value": None},
                     {"name": "largest file", "expr": "{c2.items.0.name}", "value": None},
                     {"name": "its size in bytes", "expr": "{c2.items.0.size_bytes}", "value": None}]}],
            checks=["{c1.total} == 1", "{c2.items.0.size_bytes} != {c2.items.1.size_bytes}"])


class StorageCheck(Family):
    """How much of a colleague's storage quota is used."""

    name = "files.storage-check"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = _colleague(view, rng)
        if person is None:
            return None
        name = person["name"]
        user = [f"How much drive storage is {name} using? Give me the bytes used, their quota in bytes, and the percentage.",
                f"Is {name} close to their storage quota? I need used bytes, the quota and the percent used.",
                f"Check {name}'s storage: used, limit (both in bytes) and percent used."]
        return Draft(family=self.name, key=f"user:{person['id']}", turns=[{"user": user, "calls": [
            _person("c1", person),
            {"id": "c2", "tool": "get_storage_usage", "bind": {"user_id": "{c1.users.0.id}"}},
        ], "facts": [{"name": "used bytes", "expr": "{c2.used_bytes}", "value": None},
                     {"name": "quota bytes", "expr": "{c2.limit_bytes}", "value": None},
                     {"name": "percent used", "expr": "{c2.percent_used}", "value": None}]}],
            checks=["{c1.total} == 1"])


class RecentWork(Family):
    """What a colleague edited most recently, and how many files they edited lately."""

    name = "files.recent-work"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = _colleague(view, rng)
        days = rng.choice((14, 30, 60, 90))
        if person is None:
            return None
        recent = view.read(SERVER, "list_recent_files", user_id=person["id"], days=days, per_page=2)
        if recent["total"] < 2 or recent["files"][0]["last_edited_at"] == recent["files"][1]["last_edited_at"]:
            return None
        name = person["name"]
        user = [f"What has {name} been working on? Which file did they edit most recently, and how many files did they edit in the last {days} days?",
                f"How many files has {name} saved changes to in the past {days} days, and which one did they touch last?"]
        return Draft(family=self.name, key=f"user:{person['id']}|{days}", turns=[{"user": user, "calls": [
            _person("c1", person),
            {"id": "c2", "tool": "list_recent_files", "arguments": {"days": days, "per_page": 2},
             "bind": {"user_id": "{c1.users.0.id}"}},
        ], "facts": [{"name": "last edited file", "expr": "{c2.files.0.name}", "value": None},
                     {"name": f"files edited in {days} days", "expr": "{c2.total}", "value": None}]}],
            checks=["{c1.total} == 1", "{c2.files.0.last_edited_at} != {c2.files.1.last_edited_at}"])


class OwnerKindCount(Family):
    """How many files of a kind a colleague owns (modified in a month, or at all), and the latest."""

    name = "files.owner-kind-count"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = rng.choice([u for u in _employees(view) if _unique_person(view, u)])
        kind = rng.choice(sorted(KIND_WORDS))
        arguments: dict[str, Any] = {"kind": kind, "per_page": 2}
        when = ""
        if rng.random() < 0.5:
            year, month = previous_month(view.now.year, view.now.month, rng.randint(0, 10))
            arguments["modified_after"], arguments["modified_before"] = month_window(year, month)
            when = f" last modified in {month_name(year, month)}"
        found = _search(view, owner_id=person["id"], **arguments)
        if not found["total"] or (found["total"] > 1 and found["files"][0]["modified_at"] == found["files"][1]["modified_at"]):
            return None
        who = "I" if person["id"] == ME else person["name"]
        owns = "own" if who == "I" else "owns"
        words = KIND_WORDS[kind]
        user = [f"How many {words}{when} do{'es' if who != 'I' else ''} {who} own in the drive (not counting the trash), and which of them was modified most recently?",
                f"Count the {words} {who} {owns}{when}, and tell me the most recently modified one."]
        return Draft(family=self.name, key=f"user:{person['id']}|{kind}|{when}", turns=[{"user": user, "calls": [
            _person("c1", person),
            {"id": "c2", "tool": "search_files", "arguments": arguments, "bind": {"owner_id": "{c1.users.0.id}"}},
        ], "facts": [{"name": f"{words} owned", "expr": "{c2.total}", "value": None},
                     {"name": "most recently modified", "expr": "{c2.files.0.name}", "value": None}]}],
            checks=["{c1.total} == 1", "{c2.total} == 1 or {c2.files.0.modified_at} != {c2.files.1.modified_at}"])


class TrashReview(Family):
    """What a person has in the trash: files, bytes, and the largest one."""

    name = "files.trash-review"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = rng.choice([u for u in _employees(view) if _unique_person(view, u)])
        largest = _search(view, trashed=True, owner_id=person["id"], sort_by="size_bytes", per_page=2)
        if not largest["total"] or (largest["total"] > 1 and largest["files"][0]["size_bytes"] == largest["files"][1]["size_bytes"]):
            return None
        whose = "my" if person["id"] == ME else f"{person['name']}'s"
        user = [f"What's in {whose} trash? How many files, how many bytes they take up, and which is the largest item there?",
                f"Give me a summary of {whose} trash: file count, total bytes, and the biggest item."]
        return Draft(family=self.name, key=f"user:{person['id']}", turns=[{"user": user, "calls": [
            _person("c1", person),
            {"id": "c2", "tool": "get_storage_usage", "bind": {"user_id": "{c1.users.0.id}"}},
            {"id": "c3", "tool": "search_files", "arguments": {"trashed": True, "sort_by": "size_bytes", "per_page": 2},
             "bind": {"owner_id": "{c1.users.0.id}"}},
        ], "facts": [{"name": "files in the trash", "expr": "{c2.trashed_count}", "value": None},
                     {"name": "bytes in the trash", "expr": "{c2.trashed_bytes}", "value": None},
                     {"name": "largest item", "expr": "{c3.files.0.name}", "value": None}]}],
            checks=["{c1.total} == 1", "{c3.total} == 1 or {c3.files.0.size_bytes} != {c3.files.1.size_bytes}"])


class CustomerReach(Family):
    """How many items a customer's contact can open, and the most recently modified one."""

    name = "files.customer-reach"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = _customer_with_access(view, rng)
        if person is None:
            return None
        found = _search(view, shared_with_id=person["id"], per_page=2)
        if not _unique_person(view, person) or (
                found["total"] > 1 and found["files"][0]["modified_at"] == found["files"][1]["modified_at"]):
            return None
        name, company = person["name"], person["organization_name"]
        user = [f"How many items in our drive can {name} from {company} open, and which of them changed most recently?",
                f"{name} ({company}) has access to some of our files. How many items, and which one was modified last?"]
        return Draft(family=self.name, key=f"user:{person['id']}", turns=[{"user": user, "calls": [
            _person("c1", person),
            {"id": "c2", "tool": "search_files", "arguments": {"per_page": 2}, "bind": {"shared_with_id": "{c1.users.0.id}"}},
        ], "facts": [{"name": "items they can open", "expr": "{c2.total}", "value": None},
                     {"name": "most recently modified", "expr": "{c2.files.0.name}", "value": None}]}],
            checks=["{c1.total} == 1", "{c2.total} == 1 or {c2.files.0.modified_at} != {c2.files.1.modified_at}"])


class StorageComparison(Family):
    """Which of two colleagues uses more storage, and by how many bytes."""

    name = "files.storage-comparison"
    servers = (SERVER,)
    kind = "comparison"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        people = [u for u in _employees(view) if _unique_person(view, u)]
        first, second = rng.sample(people, 2)
        used = {p["id"]: _storage(view, p["id"])["used_bytes"] for p in (first, second)}
        if used[first["id"]] == used[second["id"]]:
            return None
        more, less = ("c3", "c4") if used[first["id"]] > used[second["id"]] else ("c4", "c3")
        user = [f"Who uses more drive storage, {first['name']} or {second['name']}, and by how many bytes?",
                f"Compare the storage used by {first['name']} and {second['name']}: who uses more, and what's the difference in bytes?"]
        return Draft(family=self.name, key="|".join(sorted((str(first["id"]), str(second["id"])))), turns=[{"user": user, "calls": [
            _person("c1", first),
            _person("c2", second),
            {"id": "c3", "tool": "get_storage_usage", "bind": {"user_id": "{c1.users.0.id}"}},
            {"id": "c4", "tool": "get_storage_usage", "bind": {"user_id": "{c2.users.0.id}"}},
        ], "facts": [{"name": "uses more", "expr": f"{{{more}.name}}", "value": None},
                     {"name": "difference in bytes", "expr": f"{{{more}.used_bytes}} - {{{less}.used_bytes}}", "value": None}]}],
            checks=["{c1.total} == 1", "{c2.total} == 1"])


class OwnerRoom(Family):
    """From a file to its owner to the owner's storage: how much room the owner of a file has."""

    name = "files.owner-room"
    servers = (SERVER,)
    kind = "chain"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        item = _pick(view, rng, _random_items(view, rng), lambda i: i["owner_id"] != ME)
        if item is None:
            return None
        user = [f"Who owns \"{item['name']}\", and how many bytes of storage do they have available?",
                f"Find the owner of \"{item['name']}\" and tell me how much free storage (in bytes) they have left."]
        return Draft(family=self.name, key=f"file:{item['id']}", turns=[{"user": user, "calls": [
            _find("c1", item),
            {"id": "c2", "tool": "get_file", "bind": {"file_id": "{c1.files.0.id}"}},
            {"id": "c3", "tool": "get_storage_usage", "bind": {"user_id": "{c2.owner_id}"}},
        ], "facts": [{"name": "owner", "expr": "{c2.owner_name}", "value": None},
                     {"name": "available bytes", "expr": "{c3.available_bytes}", "value": None}]}],
            checks=["{c1.total} == 1"])


# ---------------------------------------------------------------- writes


def _destination(view: WorldView, rng: random.Random) -> Row | None:
    """A folder you can add to, unique by name."""
    return _pick(view, rng, _sales_folders(view) if rng.random() < 0.7 else _folders_i_edit(view, rng),
                 lambda f: _editable(view, f))


class UploadFile(Family):
    """Upload a file into a folder named by its path."""

    name = "files.upload-file"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        folder = _destination(view, rng)
        if folder is None:
            return None
        name, mime, size = _upload(view, rng)
        if size > _storage(view)["available_bytes"]:
            return None
        path = _path(view, folder)
        user = [f"Upload \"{name}\" ({size:,} bytes, MIME type {mime}) into the folder {path}.",
                f"Please put a new file \"{name}\" in {path}: it is {size:,} bytes, type {mime}."]
        return Draft(family=self.name, key=f"{folder['id']}|{name}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", folder),
            {"id": "c2", "tool": "upload_file", "arguments": {"name": name, "mime_type": mime, "size_bytes": size},
             "bind": {"folder_id": "{c1.files.0.id}"}},
        ], "facts": []}], checks=["{c1.total} == 1"])


class NewFolder(Family):
    """Create a folder inside a folder named by its path."""

    name = "files.new-folder"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        folder = _destination(view, rng)
        if folder is None:
            return None
        name = rng.choice(NEW_FOLDERS)
        inside = view.read(SERVER, "list_folder_contents", folder_id=folder["id"], kind="folder", per_page=100)["items"]
        if any(i["name"].lower() == name.lower() for i in inside):
            return None
        path = _path(view, folder)
        user = [f"Create a folder called \"{name}\" inside {path}.", f"Make a new \"{name}\" folder in {path}, please."]
        return Draft(family=self.name, key=f"{folder['id']}|{name}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", folder),
            {"id": "c2", "tool": "create_folder", "arguments": {"name": name}, "bind": {"folder_id": "{c1.files.0.id}"}},
        ], "facts": []}], checks=["{c1.total} == 1"])


class RenameFile(Family):
    """Rename a file you can edit."""

    name = "files.rename-file"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        item = _pick(view, rng, _sales_items(view, rng), lambda i: _editable(view, i))
        if item is None:
            return None
        new = _renamed(item["name"], rng.choice(RENAME_SUFFIXES))
        user = [f"Rename \"{item['name']}\" to \"{new}\".", f"Please change the name of \"{item['name']}\" to \"{new}\"."]
        return Draft(family=self.name, key=f"file:{item['id']}|{new}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", item),
            {"id": "c2", "tool": "rename_file", "arguments": {"name": new}, "bind": {"file_id": "{c1.files.0.id}"}},
        ], "facts": []}], checks=["{c1.total} == 1"])


class MoveFile(Family):
    """Move a file you can edit into another folder you can edit."""

    name = "files.move-file"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        item = _pick(view, rng, _sales_items(view, rng), lambda i: _editable(view, i))
        folder = _destination(view, rng)
        if item is None or folder is None or folder["id"] == item["folder_id"]:
            return None
        inside = view.read(SERVER, "search_files", query=item["name"], folder_id=folder["id"], per_page=1)["total"]
        if inside:
            return None
        path = _path(view, folder)
        user = [f"Move \"{item['name']}\" into the folder {path}.", f"\"{item['name']}\" belongs in {path}; please move it there."]
        return Draft(family=self.name, key=f"file:{item['id']}|{folder['id']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", item),
            _find("c2", folder),
            {"id": "c3", "tool": "move_file", "bind": {"file_id": "{c1.files.0.id}", "folder_id": "{c2.files.0.id}"}},
        ], "facts": []}], checks=["{c1.total} == 1", "{c2.total} == 1"])


class CopyFile(Family):
    """Copy any file (a template, a playbook) into a folder you edit, under a new name."""

    name = "files.copy-file"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        source = _pick(view, rng, _random_items(view, rng, kind=rng.choice(("document", "spreadsheet", "pdf"))), lambda i: True)
        folder = _destination(view, rng)
        if source is None or folder is None or source["size_bytes"] > _storage(view)["available_bytes"]:
            return None
        new = _renamed(source["name"], " - working copy")
        path = _path(view, folder)
        user = [f"Make a copy of \"{source['name']}\" in {path} and name it \"{new}\".",
                f"I need my own copy of \"{source['name']}\": put it in {path} as \"{new}\"."]
        return Draft(family=self.name, key=f"file:{source['id']}|{folder['id']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", source),
            _find("c2", folder),
            {"id": "c3", "tool": "copy_file", "arguments": {"name": new},
             "bind": {"file_id": "{c1.files.0.id}", "folder_id": "{c2.files.0.id}"}},
        ], "facts": []}], checks=["{c1.total} == 1", "{c2.total} == 1"])


class StarOrDescribe(Family):
    """Star (or unstar) any file, or set the description of a file you edit."""

    name = "files.star-or-describe"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        if rng.random() < 0.5:
            item = _pick(view, rng, _random_items(view, rng), lambda i: True)
            if item is None:
                return None
            starred = not item["starred"]
            verb = "Star" if starred else "Unstar"
            user = [f"{verb} \"{item['name']}\" for me.",
                    f"Please {'add a star to' if starred else 'remove the star from'} \"{item['name']}\"."]
            arguments: dict[str, Any] = {"starred": starred}
            key = f"file:{item['id']}|star"
        else:
            item = _pick(view, rng, _sales_items(view, rng), lambda i: _editable(view, i))
            if item is None:
                return None
            text = rng.choice(DESCRIPTIONS)
            if _detail(view, item)["description"] == text:
                return None
            user = [f"Set the description of \"{item['name']}\" to: {text}",
                    f"Add this description to \"{item['name']}\": \"{text}\""]
            arguments = {"description": text}
            key = f"file:{item['id']}|{text}"
        return Draft(family=self.name, key=key, writes=True, turns=[{"user": user, "calls": [
            _find("c1", item),
            {"id": "c2", "tool": "update_file", "arguments": arguments, "bind": {"file_id": "{c1.files.0.id}"}},
        ], "facts": []}], checks=["{c1.total} == 1"])


class ShareWithColleague(Family):
    """Share a file you edit with a colleague, with a role."""

    name = "files.share-with-colleague"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        item = _pick(view, rng, _sales_items(view, rng), lambda i: _editable(view, i))
        if item is None:
            return None
        person = _colleague(view, rng, item)
        if person is None:
            return None
        role = rng.choice(("viewer", "commenter", "editor"))
        user = [f"Share \"{item['name']}\" with {person['name']} so they have {ROLE_WORDS[role]}.",
                f"Give {person['name']} {ROLE_WORDS[role]} to \"{item['name']}\"."]
        return Draft(family=self.name, key=f"file:{item['id']}|{person['id']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", item),
            _person("c2", person),
            {"id": "c3", "tool": "share_file", "arguments": {"role": role},
             "bind": {"file_id": "{c1.files.0.id}", "email": "{c2.users.0.email}"}},
        ], "facts": []}], checks=["{c1.total} == 1", "{c2.total} == 1"])


def _direct_share(view: WorldView, rng: random.Random) -> tuple[Row, Row, int] | None:
    """A file you edit, a person it is shared with directly (not its owner), and that person's
    place in its permission list."""
    items = _sales_items(view, rng)
    for item in rng.sample(items, min(12, len(items))):
        listed = view.read(SERVER, "list_permissions", file_id=item["id"])["permissions"]
        direct = [(i, p) for i, p in enumerate(listed) if p["inherited_from_id"] is None and p["role"] != "owner"]
        if direct and _unique(view, item) and _editable(view, item):
            index, person = rng.choice(direct)
            return item, person, index
    return None


class ChangeAccess(Family):
    """Change the role of someone a file is shared with."""

    name = "files.change-access"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        found = _direct_share(view, rng)
        if found is None:
            return None
        item, person, index = found
        roles = [r for r in ("viewer", "commenter", "editor") if r != person["role"] and (person["is_internal"] or r != "editor")]
        role = rng.choice(roles)
        user = [f"Change {person['name']}'s access to \"{item['name']}\" to {ROLE_WORDS[role]}.",
                f"{person['name']} should only have {ROLE_WORDS[role]} on \"{item['name']}\"; please update it."
                if role != "editor" else f"Upgrade {person['name']} to {ROLE_WORDS[role]} on \"{item['name']}\"."]
        return Draft(family=self.name, key=f"file:{item['id']}|{person['user_id']}|{role}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", item),
            {"id": "c2", "tool": "list_permissions", "bind": {"file_id": "{c1.files.0.id}"}},
            {"id": "c3", "tool": "update_permission", "arguments": {"role": role},
             "bind": {"file_id": "{c1.files.0.id}", "email": f"{{c2.permissions.{index}.email}}"}},
        ], "facts": []}], checks=["{c1.total} == 1"])


class RevokeAccess(Family):
    """Stop sharing a file with someone."""

    name = "files.revoke-access"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        found = _direct_share(view, rng)
        if found is None:
            return None
        item, person, index = found
        who = person["name"] if person["is_internal"] else f"{person['name']} ({person['email']})"
        user = [f"Stop sharing \"{item['name']}\" with {who}.", f"Remove {who}'s access to \"{item['name']}\"."]
        return Draft(family=self.name, key=f"file:{item['id']}|{person['user_id']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", item),
            {"id": "c2", "tool": "list_permissions", "bind": {"file_id": "{c1.files.0.id}"}},
            {"id": "c3", "tool": "remove_permission", "bind": {"file_id": "{c1.files.0.id}", "email": f"{{c2.permissions.{index}.email}}"}},
        ], "facts": []}], checks=["{c1.total} == 1"])


class HandOver(Family):
    """Make a colleague the owner of a file of yours."""

    name = "files.hand-over"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        item = _pick(view, rng, _my_files(view, rng), lambda i: True)
        person = _colleague(view, rng)
        if item is None or person is None or item["size_bytes"] > _storage(view, person["id"])["available_bytes"]:
            return None
        user = [f"I'm handing \"{item['name']}\" over to {person['name']}: make them its owner.",
                f"Transfer ownership of \"{item['name']}\" to {person['name']}."]
        return Draft(family=self.name, key=f"file:{item['id']}|{person['id']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", item),
            _person("c2", person),
            {"id": "c3", "tool": "transfer_ownership", "bind": {"file_id": "{c1.files.0.id}", "email": "{c2.users.0.email}"}},
        ], "facts": []}], checks=["{c1.total} == 1", "{c2.total} == 1"])


class TrashFile(Family):
    """Move a file of yours to the trash."""

    name = "files.trash-file"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        item = _pick(view, rng, _my_files(view, rng), lambda i: True)
        if item is None:
            return None
        user = [f"Move \"{item['name']}\" to the trash.", f"I don't need \"{item['name']}\" anymore; trash it."]
        return Draft(family=self.name, key=f"file:{item['id']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", item),
            {"id": "c2", "tool": "trash_file", "bind": {"file_id": "{c1.files.0.id}"}},
        ], "facts": []}], checks=["{c1.total} == 1"])


def _my_trash(view: WorldView, rng: random.Random) -> Row | None:
    """An item you put in the trash yourself, unique by name there."""
    items = _search(view, trashed=True, owner_id=ME, per_page=100)["files"]
    candidates = [i for i in items if _detail(view, i)["explicitly_trashed"]]
    return _pick(view, rng, candidates, lambda i: True)


class RestoreFile(Family):
    """Bring an item of yours back from the trash."""

    name = "files.restore-file"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        item = _my_trash(view, rng)
        if item is None:
            return None
        user = [f"Restore \"{item['name']}\" from the trash.", f"I trashed \"{item['name']}\" by mistake; bring it back."]
        return Draft(family=self.name, key=f"file:{item['id']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", item, trashed=True),
            {"id": "c2", "tool": "restore_file", "bind": {"file_id": "{c1.files.0.id}"}},
        ], "facts": []}], checks=["{c1.total} == 1"])


class PurgeFile(Family):
    """Delete an item of yours from the trash forever, and say how much it frees."""

    name = "files.purge-file"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        item = _my_trash(view, rng)
        if item is None:
            return None
        user = [f"Permanently delete \"{item['name']}\" from my trash. How many bytes does that free?",
                f"Get rid of \"{item['name']}\" in the trash for good, and tell me how much space it frees (in bytes)."]
        return Draft(family=self.name, key=f"file:{item['id']}", writes=True, turns=[{"user": user, "calls": [
            _find("c1", item, trashed=True),
            {"id": "c2", "tool": "delete_forever", "bind": {"file_id": "{c1.files.0.id}"}},
        ], "facts": [{"name": "freed bytes", "expr": "{c2.freed_bytes}", "value": None}]}], checks=["{c1.total} == 1"])


class EmptyTrash(Family):
    """Empty your trash: what it frees and what is left."""

    name = "files.empty-trash"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        if not _storage(view)["trashed_count"]:
            return None
        user = ["Empty my trash. How many bytes did that free, and how much storage do I have available now?",
                "Clear out my trash for good, then tell me the bytes freed and my available space in bytes.",
                "Please empty the trash (my items) and report the space freed and how much room I have left."]
        return Draft(family=self.name, key="trash", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "empty_trash", "arguments": {}},
        ], "facts": [{"name": "freed bytes", "expr": "{c1.freed_bytes}", "value": None},
                     {"name": "available bytes", "expr": "{c1.available_bytes}", "value": None}]}])


class MakeRoomThenUpload(Family):
    """Upload a recording; if it does not fit, empty your trash first. Say what is left."""

    name = "files.make-room-then-upload"
    servers = (SERVER,)
    kind = "conditional-write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        folder = _destination(view, rng)
        usage = _storage(view)
        if folder is None:
            return None
        available, trashed = usage["available_bytes"], usage["trashed_bytes"]
        needs_room = rng.random() < 0.5 and trashed > 2_000_000
        if needs_room:
            size = available + rng.randint(1, trashed // 1_000_000) * 1_000_000 - 500_000
        else:
            size = rng.randint(10, max(11, available // 2_000_000)) * 1_000_000
        if not 0 < size <= available + (trashed if needs_room else 0) or (size <= available) == needs_room:
            return None
        day = (view.now - timedelta(days=rng.randint(0, 10))).date()
        name = f"{rng.choice(RECORDINGS)} {day}.mp4"
        path = _path(view, folder)
        user = [f"I need to upload \"{name}\" ({size:,} bytes, video/mp4) into {path}. If it doesn't fit in my storage, empty my trash first. Then tell me how many bytes I have left.",
                f"Put the video \"{name}\" ({size:,} bytes, MIME type video/mp4) in {path}; should my quota be too tight, clear my trash before uploading. How much space remains afterwards?"]
        calls: list[Call] = [{"id": "c1", "tool": "get_storage_usage", "arguments": {"user_id": ME}}]
        if needs_room:
            calls.append({"id": "c2", "tool": "empty_trash", "arguments": {}})
        calls += [
            _find("c3", folder),
            {"id": "c4", "tool": "upload_file", "arguments": {"name": name, "mime_type": "video/mp4", "size_bytes": size},
             "bind": {"folder_id": "{c3.files.0.id}"}},
        ]
        room = "{c2.available_bytes}" if needs_room else "{c1.available_bytes}"
        return Draft(family=self.name, key=f"{folder['id']}|{size}", writes=True, turns=[{"user": user, "calls": calls, "facts": [
            {"name": "bytes left", "expr": f"{room} - {size}", "value": None}]}], checks=["{c3.total} == 1"])


# ---------------------------------------------------------------- refusals


ACTIONS = (
    ("rename", "Rename \"{name}\" to \"{name} (old)\""),
    ("move", "Move \"{name}\" into my Sales folder"),
    ("share", "Share \"{name}\" with {colleague} as an editor"),
    ("trash", "Move \"{name}\" to the trash"),
    ("describe", "Set the description of \"{name}\" to \"Out of date\""),
)


class ForbiddenChange(Family):
    """Asked to rename, move, share, trash or describe a file you only view or comment on:
    refuse, and say who owns it and what your access is."""

    name = "files.forbidden-change"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        item = _pick(view, rng, _random_items(view, rng), lambda i: _detail(view, i)["your_role"] in ("viewer", "commenter"))
        person = _colleague(view, rng, item) if item is not None else None
        if item is None or person is None:
            return None
        action, text = rng.choice(ACTIONS)
        ask = text.format(name=item["name"], colleague=person["name"])
        user = [f"{ask}. If I'm not allowed to, tell me who owns it and what access I have.",
                f"{ask}; if that isn't permitted, who is the owner and what's my role on it?"]
        return Draft(family=self.name, key=f"file:{item['id']}|{action}", turns=[{"user": user, "calls": [
            _find("c1", item),
            {"id": "c2", "tool": "get_file", "bind": {"file_id": "{c1.files.0.id}"}},
        ], "facts": [{"name": "owner", "expr": "{c2.owner_name}", "value": None},
                     {"name": "your role", "expr": "{c2.your_role}", "value": None}]}], checks=["{c1.total} == 1"])


class CustomerAsEditor(Family):
    """Asked to give a customer's contact edit access: refuse (customers view or comment), and
    say which company they are with."""

    name = "files.customer-as-editor"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        item = _pick(view, rng, _sales_items(view, rng), lambda i: _editable(view, i))
        person = _customer(view, rng)
        if item is None:
            return None
        user = [f"Give {person['email']} edit access to \"{item['name']}\". If that isn't allowed, tell me which company they're with.",
                f"Let {person['email']} edit \"{item['name']}\"; if the rules forbid it, say what organisation they belong to."]
        return Draft(family=self.name, key=f"file:{item['id']}|{person['id']}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_user_by_email", "arguments": {"email": person["email"]}},
        ], "facts": [{"name": "their company", "expr": "{c1.organization_name}", "value": None}]}])


class OwnerOutsideCompany(Family):
    """Asked to make a customer's contact the owner of your file: refuse (ownership stays in
    the company), and say which company they are with."""

    name = "files.owner-outside-company"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        item = _pick(view, rng, _my_files(view, rng), lambda i: True)
        person = _customer(view, rng)
        if item is None:
            return None
        user = [f"Transfer ownership of \"{item['name']}\" to {person['email']}. If that's not possible, tell me which organisation they're with.",
                f"Make {person['email']} the owner of \"{item['name']}\"; if you can't, what company are they at?"]
        return Draft(family=self.name, key=f"file:{item['id']}|{person['id']}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_user_by_email", "arguments": {"email": person["email"]}},
        ], "facts": [{"name": "their organisation", "expr": "{c1.organization_name}", "value": None}]}])


class UploadOverQuota(Family):
    """Asked to upload a file larger than your room, even with the trash emptied, without
    deleting anything: refuse, and say how many bytes are available."""

    name = "files.upload-over-quota"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        folder = _destination(view, rng)
        if folder is None:
            return None
        usage = _storage(view)
        size = (usage["available_bytes"] + usage["trashed_bytes"]) // 1_000_000 * 1_000_000 + rng.randint(1, 40) * 100_000_000
        day = (view.now - timedelta(days=rng.randint(0, 10))).date()
        name = f"{rng.choice(RECORDINGS)} {day} (full).mp4"
        path = _path(view, folder)
        user = [f"Upload \"{name}\" ({size:,} bytes, video/mp4) into {path}. Don't delete anything to make room: if it doesn't fit, just tell me how many bytes I have available.",
                f"Put \"{name}\" ({size:,} bytes, MIME video/mp4) in {path}. If my quota can't take it, leave everything as is and tell me my available space in bytes."]
        return Draft(family=self.name, key=f"{folder['id']}|{size}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_storage_usage", "arguments": {"user_id": ME}},
        ], "facts": [{"name": "available bytes", "expr": "{c1.available_bytes}", "value": None}]}])


class ShareFromTrash(Family):
    """Asked to share a file that is in the trash, without restoring it: refuse, and say when
    it was trashed."""

    name = "files.share-from-trash"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        item = _my_trash(view, rng)
        person = _colleague(view, rng)
        if item is None or person is None:
            return None
        user = [f"Share \"{item['name']}\" with {person['name']} as a viewer. If it's in the trash, leave it there and tell me when it was trashed.",
                f"Send {person['name']} view access to \"{item['name']}\" — but if it's sitting in the trash, don't restore it; just tell me when it went there."]
        return Draft(family=self.name, key=f"file:{item['id']}|{person['id']}", turns=[{"user": user, "calls": [
            _find("c1", item, trashed=True),
            {"id": "c2", "tool": "get_file", "bind": {"file_id": "{c1.files.0.id}"}},
        ], "facts": [{"name": "trashed at", "expr": "{c2.trashed_at}", "value": None}]}], checks=["{c1.total} == 1"])


# ---------------------------------------------------------------- two turns


def _location_turn(item: Row, user: list[str]) -> dict[str, Any]:
    """Finds the item by name (c1) and its path (c2); later turns refer to it as {c1.files.0.id}."""
    return {"user": user, "calls": [
        _find("c1", item),
        {"id": "c2", "tool": "get_file_path", "bind": {"file_id": "{c1.files.0.id}"}},
    ], "facts": [{"name": "path", "expr": "{c2.path}", "value": None},
                 {"name": "owner", "expr": "{c1.files.0.owner_name}", "value": None}]}


class FindThenAct(Family):
    """Two turns: where a file is and who owns it, then share, move, copy, rename, trash or hand
    it over."""

    name = "files.find-then-act"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        action = rng.choice(("share", "move", "copy", "rename", "trash", "hand over"))
        mine = action in ("trash", "hand over")
        item = _pick(view, rng, _my_files(view, rng) if mine else _sales_items(view, rng), lambda i: _editable(view, i))
        if item is None:
            return None
        first = [f"Where is \"{item['name']}\" and who owns it?", f"Find \"{item['name']}\" for me: its path and its owner."]
        target = "{c1.files.0.id}"
        if action in ("share", "hand over"):
            person = _colleague(view, rng, item)
            if person is None or (action == "hand over" and item["size_bytes"] > _storage(view, person["id"])["available_bytes"]):
                return None
            role = rng.choice(("viewer", "commenter", "editor"))
            second = ([f"Share it with {person['name']}: {ROLE_WORDS[role]}.", f"Give {person['name']} {ROLE_WORDS[role]} to it."]
                      if action == "share" else
                      [f"Make {person['name']} its owner.", f"Hand it over to {person['name']}: transfer the ownership."])
            last: Call = ({"id": "c4", "tool": "share_file", "arguments": {"role": role},
                           "bind": {"file_id": target, "email": "{c3.users.0.email}"}} if action == "share" else
                          {"id": "c4", "tool": "transfer_ownership", "bind": {"file_id": target, "email": "{c3.users.0.email}"}})
            calls, key, checks = [_person("c3", person), last], f"{person['id']}", ["{c3.total} == 1"]
        elif action in ("move", "copy"):
            folder = _destination(view, rng)
            if folder is None or folder["id"] == item["folder_id"] or (
                    action == "copy" and item["size_bytes"] > _storage(view)["available_bytes"]):
                return None
            if _search(view, query=item["name"], folder_id=folder["id"], per_page=1)["total"]:
                return None
            path = _path(view, folder)
            second = ([f"Move it into {path}.", f"It belongs in {path}; move it there."] if action == "move" else
                      [f"Put a copy of it in {path}, named \"Copy of {item['name']}\".", f"Copy it into {path} (the copy's name can be the default \"Copy of ...\")."])
            tool = "move_file" if action == "move" else "copy_file"
            calls = [_find("c3", folder), {"id": "c4", "tool": tool, "bind": {"file_id": target, "folder_id": "{c3.files.0.id}"}}]
            key, checks = f"{folder['id']}", ["{c3.total} == 1"]
        elif action == "rename":
            new = _renamed(item["name"], rng.choice(RENAME_SUFFIXES))
            second = [f"Rename it to \"{new}\".", f"Change its name to \"{new}\"."]
            calls, key, checks = [{"id": "c4", "tool": "rename_file", "arguments": {"name": new}, "bind": {"file_id": target}}], new, []
        else:
            second = ["I don't need it anymore: move it to the trash.", "Trash it, please."]
            calls, key, checks = [{"id": "c4", "tool": "trash_file", "bind": {"file_id": target}}], "", []
        return Draft(family=self.name, key=f"file:{item['id']}|{action}|{key}", writes=True, turns=[
            _location_turn(item, first),
            {"user": second, "calls": calls, "facts": []},
        ], checks=["{c1.total} == 1", *checks])


class OutsidersThenChange(Family):
    """Two turns: which customers can open a file, then remove one of them or change their role."""

    name = "files.outsiders-then-change"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        items = _sales_items(view, rng)
        for item in rng.sample(items, min(12, len(items))):
            listed = view.read(SERVER, "list_permissions", file_id=item["id"])["permissions"]
            outside = [(i, p) for i, p in enumerate(listed) if not p["is_internal"]]
            direct = [(i, p) for i, p in outside if p["inherited_from_id"] is None]
            if direct and _unique(view, item) and _editable(view, item):
                break
        else:
            return None
        index, person = rng.choice(direct)
        first = [f"Which people outside Northwind can open \"{item['name']}\"?",
                 f"Is \"{item['name']}\" shared with anyone outside the company? Who?"]
        email = f"{{c2.permissions.{index}.email}}"
        if rng.random() < 0.5:
            second = [f"Remove {person['name']}'s access to it.", f"Take away {person['name']}'s access, please."]
            last: Call = {"id": "c3", "tool": "remove_permission", "bind": {"file_id": "{c1.files.0.id}", "email": email}}
            change = "remove"
        else:
            change = "viewer" if person["role"] == "commenter" else "commenter"
            second = [f"Change {person['name']} to {ROLE_WORDS[change]} on it.", f"{person['name']} should have {ROLE_WORDS[change]} instead."]
            last = {"id": "c3", "tool": "update_permission", "arguments": {"role": change},
                    "bind": {"file_id": "{c1.files.0.id}", "email": email}}
        names = ", ".join(f"{{c2.permissions.{i}.name}}" for i, _ in outside)
        return Draft(family=self.name, key=f"file:{item['id']}|{person['user_id']}|{change}", writes=True, turns=[
            {"user": first, "calls": [
                _find("c1", item),
                {"id": "c2", "tool": "list_permissions", "bind": {"file_id": "{c1.files.0.id}"}},
            ], "facts": [{"name": "people outside Northwind", "expr": f"[{names}]", "value": None}]},
            {"user": second, "calls": [last], "facts": []},
        ], checks=["{c1.total} == 1"])


class TrashedThenDecide(Family):
    """Two turns: what you trashed most recently and when, then restore it or delete it forever."""

    name = "files.trashed-then-decide"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        latest = _search(view, trashed=True, owner_id=ME, sort_by="trashed_at", per_page=2)
        if latest["total"] < 2 or latest["files"][0]["trashed_at"] == latest["files"][1]["trashed_at"]:
            return None
        first = ["What's the last thing I moved to the trash, and when did I trash it?",
                 "Which of my items went to the trash most recently, and at what time?"]
        restore = rng.random() < 0.5
        if restore:
            second = ["Restore it.", "Bring that one back, please."]
            last: Call = {"id": "c2", "tool": "restore_file", "bind": {"file_id": "{c1.files.0.id}"}}
            facts = []
        else:
            second = ["Delete it forever. How many bytes does that free?", "Get rid of it for good and tell me the space freed in bytes."]
            last = {"id": "c2", "tool": "delete_forever", "bind": {"file_id": "{c1.files.0.id}"}}
            facts = [{"name": "freed bytes", "expr": "{c2.freed_bytes}", "value": None}]
        return Draft(family=self.name, key=f"file:{latest['files'][0]['id']}|{restore}", writes=True, turns=[
            {"user": first, "calls": [
                {"id": "c1", "tool": "search_files", "arguments": {"trashed": True, "owner_id": ME, "sort_by": "trashed_at", "per_page": 2}},
            ], "facts": [{"name": "last trashed", "expr": "{c1.files.0.name}", "value": None},
                         {"name": "trashed at", "expr": "{c1.files.0.trashed_at}", "value": None}]},
            {"user": second, "calls": [last], "facts": facts},
        ], checks=["{c1.files.0.trashed_at} != {c1.files.1.trashed_at}"])


class FolderThenFile(Family):
    """Two turns: how many items a folder holds and its newest, then a new subfolder there with
    a file uploaded into it."""

    name = "files.folder-then-file"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        folder = _destination(view, rng)
        if folder is None:
            return None
        listing = view.read(SERVER, "list_folder_contents", folder_id=folder["id"], sort_by="created_at",
                            sort_order="desc", folders_first=False, per_page=2)
        sub = rng.choice(NEW_FOLDERS)
        if listing["total"] < 2 or listing["items"][0]["created_at"] == listing["items"][1]["created_at"] or any(
                i["name"].lower() == sub.lower() for i in view.read(SERVER, "list_folder_contents", folder_id=folder["id"],
                                                                     kind="folder", per_page=100)["items"]):
            return None
        name, mime, size = _upload(view, rng)
        if size > _storage(view)["available_bytes"]:
            return None
        path = _path(view, folder)
        first = [f"How many items are in {path}, and which one was added most recently?",
                 f"What's the newest item in {path}, and how many items does it hold?"]
        second = [f"Create a folder \"{sub}\" in there and upload \"{name}\" ({size:,} bytes, {mime}) into the new folder.",
                  f"Make a subfolder \"{sub}\" there, then put \"{name}\" (type {mime}, {size:,} bytes) in it."]
        return Draft(family=self.name, key=f"{folder['id']}|{sub}", writes=True, turns=[
            {"user": first, "calls": [
                _find("c1", folder),
                {"id": "c2", "tool": "list_folder_contents", "arguments": {
                    "sort_by": "created_at", "sort_order": "desc", "folders_first": False, "per_page": 2},
                 "bind": {"folder_id": "{c1.files.0.id}"}},
            ], "facts": [{"name": "items", "expr": "{c2.total}", "value": None},
                         {"name": "newest item", "expr": "{c2.items.0.name}", "value": None}]},
            {"user": second, "calls": [
                {"id": "c3", "tool": "create_folder", "arguments": {"name": sub}, "bind": {"folder_id": "{c1.files.0.id}"}},
                {"id": "c4", "tool": "upload_file", "arguments": {"name": name, "mime_type": mime, "size_bytes": size},
                 "bind": {"folder_id": "{c3.id}"}},
            ], "facts": []},
        ], checks=["{c1.total} == 1", "{c2.items.0.created_at} != {c2.items.1.created_at}"])


class LargestThenHandOver(Family):
    """Two turns: your largest file of a kind, then hand it over to a colleague."""

    name = "files.largest-then-hand-over"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        kind = rng.choice(("presentation", "video", "spreadsheet", "document", "pdf"))
        largest = _search(view, owner_id=ME, kind=kind, sort_by="size_bytes", per_page=2)
        person = _colleague(view, rng)
        if person is None or largest["total"] < 2 or largest["files"][0]["size_bytes"] == largest["files"][1]["size_bytes"] or (
                largest["files"][0]["size_bytes"] > _storage(view, person["id"])["available_bytes"]):
            return None
        words = KIND_WORDS[kind]
        first = [f"Which is the largest of my {words}, and how big is it in bytes?",
                 f"Find my biggest file among my {words}: its name and size in bytes."]
        second = [f"Hand that one over to {person['name']}: make them the owner.", f"Transfer its ownership to {person['name']}."]
        return Draft(family=self.name, key=f"{kind}|{person['id']}", writes=True, turns=[
            {"user": first, "calls": [
                {"id": "c1", "tool": "search_files", "arguments": {"owner_id": ME, "kind": kind, "sort_by": "size_bytes", "per_page": 2}},
            ], "facts": [{"name": "largest file", "expr": "{c1.files.0.name}", "value": None},
                         {"name": "size in bytes", "expr": "{c1.files.0.size_bytes}", "value": None}]},
            {"user": second, "calls": [
                _person("c2", person),
                {"id": "c3", "tool": "transfer_ownership", "bind": {"file_id": "{c1.files.0.id}", "email": "{c2.users.0.email}"}},
            ], "facts": []},
        ], checks=["{c1.files.0.size_bytes} != {c1.files.1.size_bytes}", "{c2.total} == 1"])


class StaleThenTrash(Family):
    """Two turns: your document, spreadsheet or presentation in a folder untouched the longest,
    then trash it (or delete it for good)."""

    name = "files.stale-then-trash"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        folder = _pick(view, rng, _sales_folders(view), lambda f: True)
        if folder is None:
            return None
        kind = rng.choice(("document", "spreadsheet", "presentation"))
        stale = _search(view, owner_id=ME, kind=kind, folder_id=folder["id"], sort_by="modified_at", sort_order="asc", per_page=2)
        if stale["total"] < 2 or stale["files"][0]["modified_at"] == stale["files"][1]["modified_at"]:
            return None
        path, words = _path(view, folder), KIND_WORDS[kind]
        first = [f"Which of my {words} in {path} (at any depth) has gone longest without changes, and when was it last modified?",
                 f"In {path}, which of my {words} was modified least recently, and when?"]
        forever = rng.random() < 0.5
        calls: list[Call] = [{"id": "c3", "tool": "trash_file", "bind": {"file_id": "{c2.files.0.id}"}}]
        facts = []
        if forever:
            second = ["Delete it for good: trash it and then delete it from the trash forever. How many bytes does that free?",
                      "Get rid of it permanently (trash, then delete forever) and tell me the bytes freed."]
            calls.append({"id": "c4", "tool": "delete_forever", "bind": {"file_id": "{c3.file_id}"}})
            facts = [{"name": "freed bytes", "expr": "{c4.freed_bytes}", "value": None}]
        else:
            second = ["Move it to the trash.", "Trash it, please."]
        return Draft(family=self.name, key=f"folder:{folder['id']}|{kind}|{forever}", writes=True, turns=[
            {"user": first, "calls": [
                _find("c1", folder),
                {"id": "c2", "tool": "search_files", "arguments": {
                    "owner_id": ME, "kind": kind, "sort_by": "modified_at", "sort_order": "asc", "per_page": 2},
                 "bind": {"folder_id": "{c1.files.0.id}"}},
            ], "facts": [{"name": "stalest file", "expr": "{c2.files.0.name}", "value": None},
                         {"name": "last modified", "expr": "{c2.files.0.modified_at}", "value": None}]},
            {"user": second, "calls": calls, "facts": facts},
        ], checks=["{c1.total} == 1", "{c2.files.0.modified_at} != {c2.files.1.modified_at}"])


class TemplateThenCopy(Family):
    """Two turns: the newest template of a kind in Legal, then a copy of it in a folder you edit."""

    name = "files.template-then-copy"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        templates = _search(view, query="template", folder_id=_top(view)["Legal"]["id"], per_page=100)["files"]
        words = sorted({" ".join(t["name"].split(" template")[0].split()[:3]) for t in templates if " template" in t["name"]})
        if not words:
            return None
        what = rng.choice(words)
        newest = _search(view, query=f"{what} template", sort_by="modified_at", per_page=2)
        folder = _destination(view, rng)
        if folder is None or not newest["total"] or (newest["total"] > 1 and newest["files"][0]["modified_at"] == newest["files"][1]["modified_at"]):
            return None
        if newest["files"][0]["size_bytes"] > _storage(view)["available_bytes"]:
            return None
        day = view.now.date()
        new = _renamed(newest["files"][0]["name"], f" - draft {day}")
        path = _path(view, folder)
        first = [f"Which is the most recently updated \"{what}\" template in the drive, and who owns it?",
                 f"Find the latest-modified {what} template: its name and owner."]
        second = [f"Make a copy of it in {path} named \"{new}\".", f"Copy it into {path} as \"{new}\"."]
        return Draft(family=self.name, key=f"{what}|{folder['id']}", writes=True, turns=[
            {"user": first, "calls": [
                {"id": "c1", "tool": "search_files", "arguments": {"query": f"{what} template", "sort_by": "modified_at", "per_page": 2}},
            ], "facts": [{"name": "template", "expr": "{c1.files.0.name}", "value": None},
                         {"name": "owner", "expr": "{c1.files.0.owner_name}", "value": None}]},
            {"user": second, "calls": [
                _find("c2", folder),
                {"id": "c3", "tool": "copy_file", "arguments": {"name": new},
                 "bind": {"file_id": "{c1.files.0.id}", "folder_id": "{c2.files.0.id}"}},
            ], "facts": []},
        ], checks=["{c1.total} == 1 or {c1.files.0.modified_at} != {c1.files.1.modified_at}", "{c2.total} == 1"])


class RecentThenStar(Family):
    """Two turns: what you edited most recently, then star it."""

    name = "files.recent-then-star"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        days = rng.choice((7, 14, 30))
        recent = view.read(SERVER, "list_recent_files", user_id=ME, days=days, per_page=2)
        if recent["total"] < 2 or recent["files"][0]["starred"] or (
                recent["files"][0]["last_edited_at"] == recent["files"][1]["last_edited_at"]):
            return None
        first = [f"Which file did I edit most recently, and how many files have I edited in the last {days} days?",
                 f"What was the last file I saved changes to, and how many did I work on over the past {days} days?"]
        second = ["Star that file for me.", "Please star it so I can find it again."]
        return Draft(family=self.name, key=f"recent|{days}", writes=True, turns=[
            {"user": first, "calls": [
                {"id": "c1", "tool": "list_recent_files", "arguments": {"user_id": ME, "days": days, "per_page": 2}},
            ], "facts": [{"name": "last edited file", "expr": "{c1.files.0.name}", "value": None},
                         {"name": f"files edited in {days} days", "expr": "{c1.total}", "value": None}]},
            {"user": second, "calls": [
                {"id": "c2", "tool": "update_file", "arguments": {"starred": True}, "bind": {"file_id": "{c1.files.0.id}"}},
            ], "facts": []},
        ], checks=["{c1.files.0.last_edited_at} != {c1.files.1.last_edited_at}"])


# ---------------------------------------------------------------- with the CRM


def _account_folders(view: WorldView) -> list[Row]:
    return view.read(SERVER, "list_folder_contents", folder_id=_top(view)["Customers"]["id"], per_page=100)["items"]


class AccountContract(Family):
    """A key account's CRM owner, where its signed agreement is in the drive, and which of the
    customer's people can open it."""

    name = "cross.files-account-contract"
    servers = (SERVER, "crm")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        folder = rng.choice(_account_folders(view))
        account = folder["name"]
        query = f"{account} Master Services Agreement"
        contract = _search(view, query=query, per_page=2)
        if contract["total"] != 1:
            return None
        listed = view.read(SERVER, "list_permissions", file_id=contract["files"][0]["id"])["permissions"]
        outside = [i for i, p in enumerate(listed) if not p["is_internal"]]
        if not outside:
            return None
        names = ", ".join(f"{{c4.permissions.{i}.name}}" for i in outside)
        user = [f"For our customer {account}: who owns the account in the CRM, where is their signed master services agreement in the drive, and which of their people can open it?",
                f"I need three things about {account}: the CRM account owner, the drive path of the signed MSA, and the customer contacts who have access to it."]
        return Draft(family=self.name, key=f"folder:{folder['id']}", turns=[{"user": user, "calls": [
            {"id": "c1", "server": "crm", "tool": "search_accounts", "arguments": {"query": account}},
            {"id": "c2", "server": SERVER, "tool": "search_files", "arguments": {"query": query}},
            {"id": "c3", "server": SERVER, "tool": "get_file_path", "bind": {"file_id": "{c2.files.0.id}"}},
            {"id": "c4", "server": SERVER, "tool": "list_permissions", "bind": {"file_id": "{c2.files.0.id}"}},
        ], "facts": [{"name": "account owner", "expr": "{c1.accounts.0.owner_name}", "value": None},
                     {"name": "contract path", "expr": "{c3.path}", "value": None},
                     {"name": "customer people with access", "expr": f"[{names}]", "value": None}]}],
            checks=["{c1.total} == 1", "{c2.total} == 1"])


class ContactReach(Family):
    """A CRM contact's account, and how many drive items they can open (people match by email)."""

    name = "cross.files-contact-reach"
    servers = (SERVER, "crm")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = _customer_with_access(view, rng)
        if person is None or view.lookup("crm", "find_contact_by_email", email=person["email"]) is None:
            return None
        email = person["email"]
        user = [f"{email} is one of our CRM contacts. Which account are they on, and how many items in our drive can they open?",
                f"Look up {email} in the CRM (which account?) and tell me how many drive files and folders are shared with them."]
        return Draft(family=self.name, key=f"person:{person['id']}", turns=[{"user": user, "calls": [
            {"id": "c1", "server": "crm", "tool": "find_contact_by_email", "arguments": {"email": email}},
            {"id": "c2", "server": SERVER, "tool": "get_user_by_email", "arguments": {"email": email}},
            {"id": "c3", "server": SERVER, "tool": "search_files", "arguments": {"per_page": 1}, "bind": {"shared_with_id": "{c2.id}"}},
        ], "facts": [{"name": "account", "expr": "{c1.account_name}", "value": None},
                     {"name": "items they can open", "expr": "{c3.total}", "value": None}]}])


class ShareDeckWithContact(Family):
    """Share a key account's newest QBR deck with one of the account's CRM contacts."""

    name = "cross.files-share-deck-with-contact"
    servers = (SERVER, "crm")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        folders = [f for f in _account_folders(view) if _detail(view, f)["your_role"] in ("owner", "editor")]
        if not folders:
            return None
        folder = rng.choice(folders)
        account = folder["name"]
        decks = _search(view, query=f"{account} QBR", kind="presentation", sort_by="created_at", per_page=2)
        if not decks["total"] or (decks["total"] > 1 and decks["files"][0]["created_at"] == decks["files"][1]["created_at"]):
            return None
        crm_account = view.read("crm", "search_accounts", query=account)
        if crm_account["total"] != 1:
            return None
        contacts = view.read("crm", "search_contacts", account_id=crm_account["accounts"][0]["id"], per_page=100)["contacts"]
        holders = {p["email"] for p in view.read(SERVER, "list_permissions", file_id=decks["files"][0]["id"])["permissions"]}
        contacts = [c for c in contacts if c["email"] not in holders]
        rng.shuffle(contacts)
        contact = next((c for c in contacts if view.read("crm", "search_contacts", query=c["name"], account_id=c["account_id"])["total"] == 1
                        and view.lookup(SERVER, "get_user_by_email", email=c["email"]) is not None), None)
        if contact is None:
            return None
        user = [f"Share the newest QBR deck of {account} with {contact['name']}, their contact in our CRM, as a commenter.",
                f"{contact['name']} at {account} (see the CRM) should be able to comment on {account}'s latest QBR deck. Please share it."]
        return Draft(family=self.name, key=f"deck:{decks['files'][0]['id']}|{contact['id']}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "server": "crm", "tool": "search_accounts", "arguments": {"query": account}},
            {"id": "c2", "server": "crm", "tool": "search_contacts", "arguments": {"query": contact["name"]},
             "bind": {"account_id": "{c1.accounts.0.id}"}},
            {"id": "c3", "server": SERVER, "tool": "search_files", "arguments": {
                "query": f"{account} QBR", "kind": "presentation", "sort_by": "created_at", "per_page": 2}},
            {"id": "c4", "server": SERVER, "tool": "share_file", "arguments": {"role": "commenter"},
             "bind": {"file_id": "{c3.files.0.id}", "email": "{c2.contacts.0.email}"}},
        ], "facts": []}], checks=["{c1.total} == 1", "{c2.total} == 1",
                                  "{c3.total} == 1 or {c3.files.0.created_at} != {c3.files.1.created_at}"])


FILES_FAMILIES: tuple[Family, ...] = (
    FileLocation(), LastEditor(), FolderLargest(), StorageCheck(), RecentWork(), OwnerKindCount(), TrashReview(),
    CustomerReach(), StorageComparison(), OwnerRoom(),
    UploadFile(), NewFolder(), RenameFile(), MoveFile(), CopyFile(), StarOrDescribe(), ShareWithColleague(),
    ChangeAccess(), RevokeAccess(), HandOver(), TrashFile(), RestoreFile(), PurgeFile(), EmptyTrash(),
    MakeRoomThenUpload(),
    ForbiddenChange(), CustomerAsEditor(), OwnerOutsideCompany(), UploadOverQuota(), ShareFromTrash(),
    FindThenAct(), OutsidersThenChange(), TrashedThenDecide(), FolderThenFile(), RecentThenStar(),
    LargestThenHandOver(), StaleThenTrash(), TemplateThenCopy(),
    AccountContract(), ContactReach(), ShareDeckWithContact(),
)
"""Every files family, the cross-server ones (with the CRM) last."""
