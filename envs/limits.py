"""Bounds on what an agent may send: an action's size, and the shape of JSON values in it.

Every check here is linear in its input and iterative (no recursion on the agent's nesting),
so a hostile action costs at most a scan of itself.
"""

from __future__ import annotations

import json
import sys
from typing import Any

DEFAULT_MAX_ACTION_CHARS = 64_000
"""Default bound on an action: the characters of a text action, or about the characters of a
message dict written as JSON (every string, key and number counted)."""

MAX_CALLS_PER_TURN = 128
"""Most tool calls one action may hold (the default budget of a whole episode is 48): a turn
with more is refused unread, so no action multiplies into thousands of answers."""

MAX_JSON_DEPTH = 16
"""Deepest nesting of objects and arrays in a call's arguments (the shipped tasks use 3)."""

MAX_MESSAGE_DEPTH = MAX_JSON_DEPTH + 4
"""Deepest nesting of a message dict action: message, tool_calls, call, function, arguments."""

MAX_NUMBER_DIGITS = 1_000
"""Longest integer accepted anywhere in an action (Python refuses to print those of more than
4,300 digits; tools take ids and counts of at most 19)."""

_MAX_INT = 10**MAX_NUMBER_DIGITS


def json_problem(value: Any, max_depth: int, max_chars: int, where: str = "the value") -> str | None:
    """Why `value` is not a bounded JSON value, or None when it is.

    A bounded JSON value is made of dicts with string keys, lists (or tuples), strings,
    numbers, booleans and None, nested at most `max_depth` deep, about `max_chars`
    characters long as JSON, with integers of at most `MAX_NUMBER_DIGITS` digits.
    """
    size = 0
    stack: list[tuple[Any, int, str]] = [(value, 0, where)]
    while stack:
        item, depth, path = stack.pop()
        if isinstance(item, str):
            size += len(item) + 2
        elif item is None or isinstance(item, bool):
            size += 5
        elif isinstance(item, int):
            if abs(item) >= _MAX_INT:
                return f"a number in {path} has more than {MAX_NUMBER_DIGITS} digits"
            size += 20
        elif isinstance(item, float):
            size += 24
        elif isinstance(item, dict | list | tuple):
            if depth >= max_depth:
                return f"{path} is nested more than {max_depth} levels deep"
            size += 2 + 2 * len(item)
            if isinstance(item, dict):
                for key, inner in item.items():
                    if not isinstance(key, str):
                        return f"{path} has a key of type {type(key).__name__}; JSON keys are strings"
                    size += len(key) + 3
                    stack.append((inner, depth + 1, f"{path}.{key[:40]}"))
            else:
                stack.extend((inner, depth + 1, f"{path}[{index}]") for index, inner in enumerate(item))
        else:
            return f"{path} holds a value of type {type(item).__name__}, which is not JSON"
        if size > max_chars:
            return f"{where} is longer than {max_chars:,} characters"
    return None


def load_json(text: str, max_depth: int) -> Any:
    """`json.loads(text)` within `max_depth` levels of nesting and `MAX_NUMBER_DIGITS`;
    raises `json.JSONDecodeError` for bad syntax and `ValueError` with a readable message
    for the bounds. Linear in `text` (its length is bounded by the caller)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError(f"it is nested more than {max_depth} levels deep") from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # an integer beyond Python's conversion limit
        raise ValueError(f"a number in it has more than {MAX_NUMBER_DIGITS} digits") from None
    problem = json_problem(value, max_depth, sys.maxsize, "it")
    if problem is not None:
        raise ValueError(problem)
    return value
