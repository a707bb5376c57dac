"""The installed `bfcl-eval` package: its multi-turn entries, function docs and backend classes.

Only BFCL's light modules are imported (constants, the multi-turn checker and the backends),
which need the standard library and mpmath; nothing of BFCL is copied here.
"""

from __future__ import annotations

import copy
import importlib
import json
from functools import cache
from importlib import metadata, resources
from types import ModuleType
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, model_validator

INSTALL_LINE = "pip install --no-deps bfcl-eval==2026.3.23 mpmath"
"""How to install the BFCL version these modules are written against."""

Category = Literal["base", "miss_func", "miss_param", "long_context"]
CATEGORIES: tuple[Category, ...] = get_args(Category)

CLASSES: dict[str, str] = {
    "bfcl_files": "GorillaFileSystem",
    "bfcl_math": "MathAPI",
    "bfcl_message": "MessageAPI",
    "bfcl_posting": "TwitterAPI",
    "bfcl_ticket": "TicketAPI",
    "bfcl_trading": "TradingBot",
    "bfcl_travel": "TravelAPI",
    "bfcl_vehicle": "VehicleControlAPI",
}
"""mcpgym server name -> the BFCL backend class it serves."""

SERVERS: dict[str, str] = {class_name: server for server, class_name in CLASSES.items()}
"""BFCL backend class -> its mcpgym server name."""

ENTRY_PREFIX = "multi_turn_"


class BfclMissing(ImportError):
    """The `bfcl-eval` package (or mpmath, which its backends need) is not installed."""


def require_bfcl() -> ModuleType:
    """The `bfcl_eval` package, with the modules the adapter uses importable."""
    try:
        importlib.import_module("mpmath")  # MathAPI needs it
        importlib.import_module("bfcl_eval.constants.executable_backend_config")
        return importlib.import_module("bfcl_eval")
    except ImportError as err:
        raise BfclMissing(INSTALL_LINE) from err


def bfcl_version() -> str:
    """The installed version of `bfcl-eval`."""
    require_bfcl()
    return metadata.version("bfcl-eval")


def bfcl_module(name: str) -> ModuleType:
    """A light module of `bfcl_eval` (`eval_checker.multi_turn_eval.multi_turn_utils`, ...),
    imported once the package is known to be there."""
    require_bfcl()
    return importlib.import_module(f"bfcl_eval.{name}")


def _config() -> ModuleType:
    return bfcl_module("constants.executable_backend_config")


def _known_class(class_name: str) -> str:
    if class_name not in SERVERS:
        raise KeyError(f"{class_name!r} is not a BFCL multi-turn class; classes: {', '.join(SERVERS)}")
    return class_name


def backend_module(class_name: str) -> str:
    """The module path of a backend class, as BFCL's configuration gives it."""
    return str(_config().CLASS_FILE_PATH_MAPPING[_known_class(class_name)])


@cache
def backend_class(class_name: str) -> type:
    """The BFCL backend class (e.g. `GorillaFileSystem`)."""
    return getattr(importlib.import_module(backend_module(class_name)), class_name)


def _data() -> Any:
    require_bfcl()
    return resources.files("bfcl_eval") / "data"


def _jsonl(resource: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in resource.read_text(encoding="utf-8").splitlines() if line.strip()]


@cache
def _docs(class_name: str) -> tuple[dict[str, Any], ...]:
    file_name = _config().MULTI_TURN_FUNC_DOC_FILE_MAPPING[_known_class(class_name)]
    return tuple(_jsonl(_data() / "multi_turn_func_doc" / file_name))


def function_docs(class_name: str) -> list[dict[str, Any]]:
    """The function docs BFCL shows a model for one class (a fresh copy)."""
    return copy.deepcopy(list(_docs(class_name)))


@cache
def class_tools(class_name: str) -> frozenset[str]:
    """The tool names of one class (its documented public methods)."""
    return frozenset(doc["name"] for doc in _docs(class_name))


def tool_owner(tool: str, involved_classes: list[str] | tuple[str, ...]) -> str | None:
    """The involved class that has `tool`; the last one when several do, as BFCL resolves it."""
    owner = None
    for class_name in involved_classes:
        if class_name in SERVERS and tool in class_tools(class_name):
            owner = class_name
    return owner


class BfclEntry(BaseModel):
    """One BFCL multi-turn entry with its ground truth."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    category: Category
    turns: list[list[str]]
    """The user messages of each turn; empty for a turn that only adds functions (miss_func)."""
    initial_config: dict[str, dict[str, Any]]
    involved_classes: list[str]
    missed_function: dict[int, list[str]] = {}
    """Turn index -> functions held back until that turn (miss_func)."""
    excluded_function: list[str] = []
    """Listed by the data; BFCL's inference and checker do not act on it."""
    ground_truth: list[list[str]]
    """The calls of each turn as BFCL writes them (`cd(folder='x')`)."""

    @model_validator(mode="after")
    def _consistent(self) -> BfclEntry:
        if len(self.turns) != len(self.ground_truth):
            raise ValueError(f"{self.id}: {len(self.turns)} turns but {len(self.ground_truth)} ground-truth turns")
        unknown = [name for name in self.involved_classes if name not in SERVERS]
        if unknown:
            raise ValueError(f"{self.id}: unknown classes {unknown}")
        for turn in self.missed_function:
            if not 0 <= turn < len(self.turns):
                raise ValueError(f"{self.id}: missed_function names turn {turn} of {len(self.turns)}")
        return self

    @property
    def long_context(self) -> bool:
        return self.category == "long_context"

    def checker_entry(self) -> dict[str, Any]:
        """The fields of the entry that BFCL's multi-turn checker reads (a fresh copy)."""
        return {
            "id": self.id,
            "initial_config": copy.deepcopy(self.initial_config),
            "involved_classes": list(self.involved_classes),
        }


def _entry(raw: dict[str, Any], truth: dict[str, Any], category: Category) -> BfclEntry:
    if raw["id"] != truth["id"]:
        raise ValueError(f"BFCL data out of step: entry {raw['id']} next to answer {truth['id']}")
    return BfclEntry(
        id=raw["id"],
        category=category,
        turns=[[message["content"] for message in turn if message.get("role") == "user"] for turn in raw["question"]],
        initial_config=raw.get("initial_config") or {},
        involved_classes=raw["involved_classes"],
        missed_function={int(turn): names for turn, names in (raw.get("missed_function") or {}).items()},
        excluded_function=raw.get("excluded_function") or [],
        ground_truth=truth["ground_truth"],
    )


@cache
def _entries(category: Category) -> tuple[BfclEntry, ...]:
    if category not in CATEGORIES:
        raise KeyError(f"no BFCL multi-turn category {category!r}; categories: {', '.join(CATEGORIES)}")
    name = f"BFCL_v4_multi_turn_{category}.json"
    raws = _jsonl(_data() / name)
    truths = _jsonl(_data() / "possible_answer" / name)
    if len(raws) != len(truths):
        raise ValueError(f"BFCL data: {len(raws)} entries but {len(truths)} answers in {name}")
    return tuple(_entry(raw, truth, category) for raw, truth in zip(raws, truths))


def load_entries(category: Category) -> list[BfclEntry]:
    """The entries of one multi-turn category, in BFCL's order."""
    return list(_entries(category))


def entry_category(entry_id: str) -> Category:
    """The category named by an entry id (`multi_turn_miss_func_3` -> `miss_func`)."""
    head, _, number = entry_id.rpartition("_")
    category = head.removeprefix(ENTRY_PREFIX)
    if not head.startswith(ENTRY_PREFIX) or not number.isdigit() or category not in CATEGORIES:
        raise KeyError(f"{entry_id[:200]!r} is not a BFCL multi-turn entry id (multi_turn_<category>_<n>)")
    return category  # type: ignore[return-value]


@cache
def _by_id(category: Category) -> dict[str, BfclEntry]:
    return {entry.id: entry for entry in _entries(category)}


def entry_by_id(entry_id: str) -> BfclEntry:
    """One entry by its BFCL id."""
    entry = _by_id(entry_category(entry_id)).get(entry_id)
    if entry is None:
        raise KeyError(f"no BFCL entry {entry_id!r}")
    return entry
