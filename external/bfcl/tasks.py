"""BFCL multi-turn entries as mcpgym tasks.

One task per entry: the involved classes' servers, each started from the entry's scenario;
one turn per BFCL turn, with the tools BFCL adds at that turn (miss_func) revealed there and
the turn's ground-truth calls as literal calls. miss_param turns that lack information have
no ground truth; they are marked `missing` (the agent should ask, and mcpgym's own rewards
count calls there as guesses), and BFCL scores them only by the state and results of the
later turns.

A ground-truth call of a tool that BFCL reveals only at a later turn is left out of its
turn (the model is not shown the tool then, so the task could not ask for it). In
bfcl-eval 2026.3.23 this is one read-only call: `tail` in turn 1 of multi_turn_miss_func_49
(see `premature_calls`); BFCL's checker, which scores with BFCL's own ground truth, still
expects its result there.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any, Literal

from mcpgym.external.bfcl.calls import parse_call
from mcpgym.external.bfcl.package import (
    CATEGORIES,
    CLASSES,
    SERVERS,
    BfclEntry,
    Category,
    bfcl_module,
    load_entries,
    tool_owner,
)
from mcpgym.tasks.model import GroundTruthCall, Task, ToolRef, Turn

class BfclTaskError(ValueError):
    """An entry that does not convert; the message names it."""


def initial_state(entry: BfclEntry, class_name: str) -> dict[str, Any]:
    """The initial state of one class's server for an entry."""
    scenario = copy.deepcopy(entry.initial_config.get(class_name, {}))
    return {"scenario": scenario, "long_context": entry.long_context}


def _added_tools_prompt() -> str:
    return str(bfcl_module("constants.default_prompts").DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC)


def _owner(entry: BfclEntry, tool: str) -> str:
    owner = tool_owner(tool, entry.involved_classes)
    if owner is None:
        raise BfclTaskError(f"{entry.id}: no involved class {entry.involved_classes} has the tool {tool!r}")
    return owner


def _parsed(entry: BfclEntry, index: int, text: str) -> tuple[str, dict[str, Any]]:
    try:
        return parse_call(text, entry.involved_classes)
    except ValueError as err:
        raise BfclTaskError(f"{entry.id}, turn {index}: {err}") from None


def _revealed_at(entry: BfclEntry) -> dict[str, int]:
    return {tool: turn for turn, tools in entry.missed_function.items() for tool in tools}


def premature_calls(entry: BfclEntry) -> list[tuple[int, str]]:
    """(turn, call text) of the ground-truth calls of tools revealed only at a later turn."""
    revealed = _revealed_at(entry)
    return [
        (index, text)
        for index, turn in enumerate(entry.ground_truth)
        for text in turn
        if revealed.get(_parsed(entry, index, text)[0], 0) > index
    ]


def _turn(entry: BfclEntry, index: int) -> Turn:
    user = "\n".join(entry.turns[index]) or _added_tools_prompt()
    reveals = [ToolRef(server=SERVERS[_owner(entry, tool)], tool=tool) for tool in entry.missed_function.get(index, [])]
    revealed = _revealed_at(entry)
    calls = []
    for number, text in enumerate(entry.ground_truth[index]):
        tool, arguments = _parsed(entry, index, text)
        if revealed.get(tool, 0) > index:
            continue
        calls.append(GroundTruthCall(
            id=f"t{index}_c{number}", server=SERVERS[_owner(entry, tool)], tool=tool, arguments=arguments, bound={},
        ))
    return Turn(user=user, reveals=reveals, calls=calls, missing=[MISSING] if _lacks_a_value(entry, index) else [])


MISSING = "detail this request leaves out"
"""What a miss_param turn lacks, in words (BFCL does not say which parameter it is)."""


def _lacks_a_value(entry: BfclEntry, index: int) -> bool:
    """A miss_param turn with no ground truth, followed by one that has some: the request
    left out a value, which the next turn gives."""
    truth = entry.ground_truth
    return entry.category == "miss_param" and not truth[index] and index + 1 < len(truth) and bool(truth[index + 1])


def entry_task(entry: BfclEntry) -> Task:
    """The mcpgym task of one BFCL entry."""
    involved = set(entry.involved_classes)
    servers = [server for server, class_name in CLASSES.items() if class_name in involved]
    return Task(
        id=entry.id,
        servers=servers,
        initial_state={server: initial_state(entry, CLASSES[server]) for server in servers},
        tool_names="own",
        turns=[_turn(entry, index) for index in range(len(entry.turns))],
        tags=["bfcl", f"bfcl:{entry.category}"],
    )


@cache
def _tasks(category: Category) -> tuple[Task, ...]:
    return tuple(entry_task(entry) for entry in load_entries(category))


def bfcl_tasks(category: Category | Literal["all"] = "all") -> list[Task]:
    """The tasks of one BFCL multi-turn category, or of all four (800), in BFCL's order.
    Converted once per process; treat them as read-only."""
    if category == "all":
        return [task for name in CATEGORIES for task in _tasks(name)]
    if category not in CATEGORIES:
        raise KeyError(f"no BFCL multi-turn category {category!r}; categories: {', '.join(CATEGORIES)} or all")
    return list(_tasks(category))
