"""Parsing an assistant turn into tool calls, and the formats the environment accepts.

Text (what Qwen/Hermes-style chat templates emit): any prose, plus zero or more blocks

    <tool_call>{"name": "get_ticket", "arguments": {"ticket_id": 42}}</tool_call>

Structured (OpenAI chat format): a dict `{"role": "assistant", "content": ..., "tool_calls":
[{"id": ..., "type": "function", "function": {"name": ..., "arguments": "<JSON>"}}]}`.

Nothing here raises on bad input: problems come back as `errors`, which the environment
answers in the observation. Parsing is linear in the action, whose length is bounded
(`max_chars`), and every JSON value in it is bounded in depth and size (`mcpgym.envs.limits`).
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from mcpgym.envs.limits import (
    DEFAULT_MAX_ACTION_CHARS,
    MAX_CALLS_PER_TURN,
    MAX_JSON_DEPTH,
    MAX_MESSAGE_DEPTH,
    json_problem,
    load_json,
)

CALL_OPEN, CALL_CLOSE = "<tool_call>", "</tool_call>"
THINK_OPEN, THINK_CLOSE = "<think>", "</think>"
FORMAT_HINT = 'Write each call as <tool_call>{"name": "<tool>", "arguments": {...}}</tool_call>.'


def tagged_spans(text: str, opener: str, closer: str) -> Iterator[tuple[int, int]]:
    """(start, end) of every `opener ... closer` block, leftmost first, each closed by the
    first `closer` after its opener, without overlaps (what the regex `opener(.*?)closer`
    with DOTALL finds), in one left-to-right scan: once an opener has no closer after it,
    no later one has either."""
    position = 0
    while (start := text.find(opener, position)) != -1:
        close = text.find(closer, start + len(opener))
        if close == -1:
            return
        position = close + len(closer)
        yield start, position


def strip_spans(text: str, opener: str, closer: str) -> str:
    """`text` without its `opener ... closer` blocks (see `tagged_spans`)."""
    kept, position = [], 0
    for start, end in tagged_spans(text, opener, closer):
        kept.append(text[position:start])
        position = end
    kept.append(text[position:])
    return "".join(kept)


@dataclass(frozen=True)
class ToolCall:
    """One well-formed call: an id to answer it under, the tool name and the arguments."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class CallError:
    """A call that could not be read; `call_id` is set when the call had an id to answer."""

    message: str
    call_id: str | None = None


@dataclass
class ParsedTurn:
    """An assistant turn taken apart: its text, its calls, and what was malformed."""

    content: str
    calls: list[ToolCall] = field(default_factory=list)
    errors: list[CallError] = field(default_factory=list)
    message: dict[str, Any] = field(default_factory=dict)

    @property
    def answer(self) -> str:
        """The visible text of the turn, without `<think>` blocks."""
        return strip_spans(self.content, THINK_OPEN, THINK_CLOSE).strip()


def parse_action(
    action: Any, new_id: Callable[[], str], max_chars: int = DEFAULT_MAX_ACTION_CHARS
) -> ParsedTurn:
    """Read an action in either documented form; `new_id` mints ids for text tool calls.

    An action longer than `max_chars` (see `mcpgym.envs.limits.DEFAULT_MAX_ACTION_CHARS`)
    is not read: it comes back as one error and no calls, its text cut to `max_chars`.
    """
    if isinstance(action, str):
        if len(action) > max_chars:
            return _refused(
                f"format_error: the action has {len(action):,} characters, more than the limit of {max_chars:,}; "
                "it was not executed. Send shorter turns.",
                action[:max_chars] + f"... [cut: {len(action) - max_chars:,} characters over the limit]",
            )
        return _parse_text(action, new_id)
    if isinstance(action, dict):
        problem = json_problem(action, MAX_MESSAGE_DEPTH, max_chars, "the action")
        if problem is not None:
            return _refused(f"format_error: {problem}; it was not executed.")
        return _parse_message(action, new_id)
    return _refused(
        f"format_error: an action must be a string or an assistant message dict, got {type(action).__name__}"
    )


def _refused(error: str, content: str = "") -> ParsedTurn:
    """A turn that is not read at all: one error, no calls."""
    return ParsedTurn(content="", errors=[CallError(error)], message={"role": "assistant", "content": content})


def _too_many_calls(content: str) -> ParsedTurn:
    return _refused(
        f"format_error: the action holds more than {MAX_CALLS_PER_TURN} tool calls; it was not executed. "
        "Make fewer calls per turn.",
        content,
    )


def _decode_call(raw: Any, where: str) -> tuple[str, dict[str, Any]] | str:
    """(name, arguments) from a decoded call object, or an error message."""
    if not isinstance(raw, dict):
        return f"format_error: {where} must be a JSON object with 'name' and 'arguments'. {FORMAT_HINT}"
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        return f"format_error: {where} has no tool 'name'. {FORMAT_HINT}"
    arguments = raw.get("arguments", raw.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = load_json(arguments, MAX_JSON_DEPTH) if arguments.strip() else {}
        except json.JSONDecodeError as err:
            return f"format_error: arguments of {name} are not valid JSON ({err.msg} at char {err.pos})."
        except ValueError as err:
            return f"format_error: arguments of {name} are refused: {err}."
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return f"format_error: arguments of {name} must be a JSON object, got {type(arguments).__name__}."
    problem = json_problem(arguments, MAX_JSON_DEPTH, sys.maxsize, f"the arguments of {name}")
    if problem is not None:
        return f"format_error: {problem}."
    return name, arguments


def _parse_text(text: str, new_id: Callable[[], str]) -> ParsedTurn:
    spans = list(itertools.islice(tagged_spans(text, CALL_OPEN, CALL_CLOSE), MAX_CALLS_PER_TURN + 1))
    if len(spans) > MAX_CALLS_PER_TURN:
        return _too_many_calls(text)
    calls: list[ToolCall] = []
    errors: list[CallError] = []
    for number, (start, end) in enumerate(spans, start=1):
        where = f"tool call {number}"
        block = text[start + len(CALL_OPEN) : end - len(CALL_CLOSE)]
        try:
            decoded = _decode_call(load_json(block, MAX_JSON_DEPTH + 1), where)
        except json.JSONDecodeError as err:
            decoded = f"format_error: {where} is not valid JSON ({err.msg} at char {err.pos}). {FORMAT_HINT}"
        except ValueError as err:
            decoded = f"format_error: {where} is refused: {err}. {FORMAT_HINT}"
        if isinstance(decoded, str):
            errors.append(CallError(decoded))
        else:
            calls.append(ToolCall(id=new_id(), name=decoded[0], arguments=decoded[1]))
    content = strip_spans(text, CALL_OPEN, CALL_CLOSE) if spans else text
    if CALL_OPEN in content or CALL_CLOSE in content:
        errors.append(CallError(f"format_error: a <tool_call> tag is not closed or not opened. {FORMAT_HINT}"))
        content = content.replace(CALL_OPEN, "").replace(CALL_CLOSE, "")
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [_openai_call(call) for call in calls]
    return ParsedTurn(content=content.strip(), calls=calls, errors=errors, message=message)


def _parse_message(action: dict[str, Any], new_id: Callable[[], str]) -> ParsedTurn:
    """A message dict whose values `json_problem` has bounded."""
    content = action.get("content") or ""
    if not isinstance(content, str):
        content = json.dumps(content)
    if action.get("role", "assistant") != "assistant":
        return _refused(f"format_error: the action's role must be 'assistant', got {action.get('role')!r}", content)
    calls: list[ToolCall] = []
    errors: list[CallError] = []
    raw_calls = action.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        errors.append(CallError("format_error: 'tool_calls' must be a list"))
        raw_calls = []
    if len(raw_calls) > MAX_CALLS_PER_TURN:
        return _too_many_calls(content)
    recorded: list[dict[str, Any]] = []
    for number, raw in enumerate(raw_calls, start=1):
        call_id = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else None
        function = raw.get("function", raw) if isinstance(raw, dict) else raw
        decoded = _decode_call(function, f"tool call {number}")
        if isinstance(decoded, str):
            errors.append(CallError(decoded, call_id))
            if call_id is not None:
                recorded.append(raw)
        else:
            call = ToolCall(id=call_id or new_id(), name=decoded[0], arguments=decoded[1])
            calls.append(call)
            recorded.append(_openai_call(call))
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if recorded:
        message["tool_calls"] = recorded
    return ParsedTurn(content=content.strip(), calls=calls, errors=errors, message=message)


def _openai_call(call: ToolCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)},
    }
