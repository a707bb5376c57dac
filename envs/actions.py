"""Parsing an assistant turn into tool calls, and the formats the environment accepts.

Text (what Qwen/Hermes-style chat templates emit): any prose, plus zero or more blocks

    <tool_call>{"name": "get_ticket", "arguments": {"ticket_id": 42}}</tool_call>

Structured (OpenAI chat format): a dict `{"role": "assistant", "content": ..., "tool_calls":
[{"id": ..., "type": "function", "function": {"name": ..., "arguments": "<JSON>"}}]}`.

Nothing here raises on bad input: problems come back as `errors`, which the environment
answers in the observation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

TOOL_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
THINKING = re.compile(r"<think>.*?</think>", re.DOTALL)
FORMAT_HINT = 'Write each call as <tool_call>{"name": "<tool>", "arguments": {...}}</tool_call>.'


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
        return THINKING.sub("", self.content).strip()


def parse_action(action: Any, new_id: Callable[[], str]) -> ParsedTurn:
    """Read an action in either documented form; `new_id` mints ids for text tool calls."""
    if isinstance(action, str):
        return _parse_text(action, new_id)
    if isinstance(action, dict):
        return _parse_message(action, new_id)
    error = CallError(
        f"format_error: an action must be a string or an assistant message dict, got {type(action).__name__}"
    )
    return ParsedTurn(content="", errors=[error], message={"role": "assistant", "content": ""})


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
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as err:
            return f"format_error: arguments of {name} are not valid JSON ({err.msg} at char {err.pos})."
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return f"format_error: arguments of {name} must be a JSON object, got {type(arguments).__name__}."
    return name, arguments


def _parse_text(text: str, new_id: Callable[[], str]) -> ParsedTurn:
    calls: list[ToolCall] = []
    errors: list[CallError] = []
    for number, block in enumerate(TOOL_CALL.findall(text), start=1):
        where = f"tool call {number}"
        try:
            decoded = _decode_call(json.loads(block), where)
        except json.JSONDecodeError as err:
            decoded = f"format_error: {where} is not valid JSON ({err.msg} at char {err.pos}). {FORMAT_HINT}"
        if isinstance(decoded, str):
            errors.append(CallError(decoded))
        else:
            calls.append(ToolCall(id=new_id(), name=decoded[0], arguments=decoded[1]))
    content = TOOL_CALL.sub("", text)
    if "<tool_call>" in content or "</tool_call>" in content:
        errors.append(CallError(f"format_error: a <tool_call> tag is not closed or not opened. {FORMAT_HINT}"))
        content = content.replace("<tool_call>", "").replace("</tool_call>", "")
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [_openai_call(call) for call in calls]
    return ParsedTurn(content=content.strip(), calls=calls, errors=errors, message=message)


def _parse_message(action: dict[str, Any], new_id: Callable[[], str]) -> ParsedTurn:
    content = action.get("content") or ""
    if not isinstance(content, str):
        content = json.dumps(content)
    calls: list[ToolCall] = []
    errors: list[CallError] = []
    if action.get("role", "assistant") != "assistant":
        errors.append(CallError(f"format_error: the action's role must be 'assistant', got {action.get('role')!r}"))
    raw_calls = action.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        errors.append(CallError("format_error: 'tool_calls' must be a list"))
        raw_calls = []
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
