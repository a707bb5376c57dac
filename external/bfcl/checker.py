"""Scoring an episode with BFCL's own multi-turn checker, and replaying calls on BFCL's backends.

`check_episode` does what BFCL's eval runner does for one multi-turn entry: a turn count
that differs from the entry's is a forced termination; otherwise the calls, written as
BFCL's decoder writes them, go to BFCL's `multi_turn_checker`, which replays them and the
ground truth on fresh backends and compares states and results turn by turn. The calls of
one turn form one step (BFCL joins a turn's steps in order, so the grouping does not change
the verdict).

BFCL evaluates call strings, so only calls of the entry's tools with literal JSON arguments
are written as they are; anything else (an unknown or unsafe name, a bad argument name or
value) is written as a call of an undefined name, which BFCL records as a failed call, as
it would the original. BFCL keeps backend instances in the module globals of
`multi_turn_utils` under names made of a model name and the entry id: each check uses its
own model name and removes exactly the names it created, so checks are independent.
"""

from __future__ import annotations

import copy
import re
import uuid
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from mcpgym.external.bfcl.calls import CallError, call_text, parse_call
from mcpgym.external.bfcl.package import BfclEntry, bfcl_module, class_tools, entry_by_id
from mcpgym.tasks.model import Task

MAX_MESSAGE = 2_000
"""Characters of a verdict's error message."""
MAX_TURNS = 256
MAX_CALLS_PER_TURN = 1_000
UNDEFINED_CALL = "mcpgym_invalid_call()"
"""What a call that cannot be written safely is written as: BFCL records it as failed."""

ExecutedCall = tuple[str, dict[str, Any]]


class BfclVerdict(BaseModel):
    """BFCL's verdict on an episode: valid, or the first error and the turn it is in."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    valid: bool
    error_type: str | None = None
    error_message: str | None = None
    turn: int | None = None


def _utils() -> Any:
    return bfcl_module("eval_checker.multi_turn_eval.multi_turn_utils")


def _checker() -> Any:
    return bfcl_module("eval_checker.multi_turn_eval.multi_turn_checker")


def _entry_of(source: Task | BfclEntry | str) -> BfclEntry:
    if isinstance(source, BfclEntry):
        return source
    return entry_by_id(source.id if isinstance(source, Task) else source)


def _tools(entry: BfclEntry) -> frozenset[str]:
    return frozenset().union(*(class_tools(name) for name in entry.involved_classes))


def _written(call: Any, tools: frozenset[str]) -> str:
    """The BFCL text of one executed call, or the undefined call when it cannot be written."""
    try:
        name, arguments = call
        if name not in tools:
            return UNDEFINED_CALL
        return call_text(name, arguments)
    except (CallError, TypeError, ValueError):
        return UNDEFINED_CALL


def _bounded_turns(calls_per_turn: Any) -> list[list[Any]]:
    if not isinstance(calls_per_turn, Sequence) or isinstance(calls_per_turn, (str, bytes)):
        raise TypeError("calls must be a list of turns, each a list of (tool, arguments) calls")
    if len(calls_per_turn) > MAX_TURNS:
        raise ValueError(f"{len(calls_per_turn)} turns, over the limit of {MAX_TURNS}")
    turns = []
    for index, turn in enumerate(calls_per_turn):
        if not isinstance(turn, Sequence) or isinstance(turn, (str, bytes)):
            raise TypeError(f"turn {index}: a turn must be a list of (tool, arguments) calls")
        if len(turn) > MAX_CALLS_PER_TURN:
            raise ValueError(f"turn {index}: {len(turn)} calls, over the limit of {MAX_CALLS_PER_TURN}")
        turns.append(list(turn))
    return turns


def _instance_names(model_name: str, entry: BfclEntry) -> list[str]:
    """The globals BFCL's executor creates for `model_name` on `entry` in an eval run."""
    return [
        re.sub(r"[-./:]", "_", f"{model_name}{suffix}_eval_{entry.id}_{class_name}_instance")
        for suffix in ("", "_ground_truth")
        for class_name in entry.involved_classes
    ]


def _short(text: Any) -> str:
    text = str(text)
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


def _failed_turn(result: dict[str, Any]) -> int | None:
    found = re.search(r"for turn (\d+)", str(result.get("error_message", "")))
    if found:
        return int(found.group(1))
    executed = result.get("execution_result") or (result.get("details") or {}).get("execution_result")
    return len(executed) - 1 if isinstance(executed, list) and executed else None


def check_episode(task_or_entry_id: Task | BfclEntry | str, executed_calls_per_turn: Sequence[Sequence[ExecutedCall]]) -> BfclVerdict:
    """BFCL's verdict on the calls an episode made, turn by turn, for one multi-turn entry."""
    entry = _entry_of(task_or_entry_id)
    turns = _bounded_turns(executed_calls_per_turn)
    if len(turns) != len(entry.ground_truth):
        return BfclVerdict(
            valid=False,
            error_type="multi_turn:force_terminated",
            error_message="Model was force-terminated during inference phase. The length of the model result "
            f"turns ({len(turns)}) does not match the length of the ground truth turns ({len(entry.ground_truth)}).",
        )
    tools = _tools(entry)
    decoded = [[[_written(call, tools) for call in turn]] if turn else [] for turn in turns]
    model_name = f"mcpgym_{uuid.uuid4().hex}"
    space = vars(_utils())
    try:
        result = _checker().multi_turn_checker(
            decoded,
            copy.deepcopy(entry.ground_truth),
            entry.checker_entry(),
            f"multi_turn_{entry.category}",
            model_name,
        )
    except Exception as err:  # BFCL's own assertions; never seen with well-formed entries
        return BfclVerdict(valid=False, error_type="mcpgym:checker_error", error_message=_short(f"{type(err).__name__}: {err}"))
    finally:
        for name in _instance_names(model_name, entry):
            space.pop(name, None)
    if result.get("valid"):
        return BfclVerdict(valid=True)
    return BfclVerdict(
        valid=False,
        error_type=_short(result.get("error_type", "multi_turn:unknown")),
        error_message=_short(result.get("error_message", "")),
        turn=_failed_turn(result),
    )


def _as_text(call: Any, entry: BfclEntry, tools: frozenset[str]) -> str:
    if isinstance(call, str):
        return _written(parse_call(call, entry.involved_classes), tools)
    return _written(call, tools)


def _replay(entry: BfclEntry, calls_per_turn: Sequence[Sequence[ExecutedCall | str]]) -> tuple[list[list[str]], dict[str, Any]]:
    utils = _utils()
    tools = _tools(entry)
    model_name = f"mcpgym_{uuid.uuid4().hex}"
    results: list[list[str]] = []
    instances: dict[str, Any] = {}
    try:
        for turn in _bounded_turns(calls_per_turn):
            texts = [_as_text(call, entry, tools) for call in turn]
            outputs, instances = utils.execute_multi_turn_func_call(
                texts, entry.checker_entry()["initial_config"], entry.involved_classes, model_name, entry.id,
                long_context=entry.long_context, is_evaL_run=True,
            )
            results.append(list(outputs))
        if not instances:
            _, instances = utils.execute_multi_turn_func_call(
                [], entry.checker_entry()["initial_config"], entry.involved_classes, model_name, entry.id,
                long_context=entry.long_context, is_evaL_run=True,
            )
        states = {
            name: copy.deepcopy({key: value for key, value in vars(instance).items() if not key.startswith("_")})
            for name, instance in instances.items()
        }
    finally:
        space = vars(utils)
        for name in _instance_names(model_name, entry)[: len(entry.involved_classes)]:
            space.pop(name, None)
    return results, states


def replay_states(
    entry: BfclEntry | Task | str, calls_per_turn: Sequence[Sequence[ExecutedCall | str]]
) -> dict[str, dict[str, Any]]:
    """Class name -> the public attributes of its BFCL backend after running the calls (tool
    and arguments, or BFCL call strings) turn by turn: what BFCL's state checker compares."""
    return _replay(_entry_of(entry), calls_per_turn)[1]


def replay_results(entry: BfclEntry | Task | str, calls_per_turn: Sequence[Sequence[ExecutedCall | str]]) -> list[list[str]]:
    """The result strings BFCL's executor gives for the calls, turn by turn."""
    return _replay(_entry_of(entry), calls_per_turn)[0]
