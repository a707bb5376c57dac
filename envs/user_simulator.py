"""An LLM user simulator: plays the user of a task from its hidden script.

The scripted user (the default) sends each turn's request verbatim once the agent answers the
one before. `LlmUser` instead asks any OpenAI-compatible Chat Completions endpoint to play the
user: it words each request naturally, answers the agent's clarifying questions from the
script, and decides when a request is done. The script stays the authority:

- the simulator's system prompt holds every turn's request in order, the current position,
  what each turn leaves out on purpose (`Turn.missing`, not to be volunteered) and the rule
  never to invent ids, numbers or facts;
- only user and assistant text is shown to the simulator: tool messages are left out, tool
  calls are summarised by name, the answer of a `finish` call is shown as the assistant's text;
- a reply is checked before it is used: a reworded request must keep every value of the
  scripted one (tokens with digits such as ids, amounts and dates; e-mail addresses; quoted
  text), and no message may carry such a value (quoted text aside) found neither in the script
  up to the request it speaks for nor in the conversation;
- anything unusable (an endpoint failure, an unreadable or rule-breaking reply) falls back to
  the scripted behaviour, with `UserReply.error` saying why. `reply` never raises for them.

Given a deterministic endpoint (temperature 0, the configured seed passed through) the
simulator is deterministic. It keeps no state between calls: one instance may serve many
episodes; the caller (the env) counts the answers given within a turn against
`LlmUserConfig.max_replies_per_turn`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, field_validator

from mcpgym.baselines.chat_agent import ChatClient, ModelError, public_url
from mcpgym.tasks.model import Task

Kind = Literal["answer", "next", "stop"]

MAX_MESSAGE_CHARS = 4_000
"""A simulated user message is cut to this length."""
MAX_ERROR_CHARS = 300
"""`UserReply.error` is cut to this length."""
MAX_SCRIPT_CHARS = 4_000
"""Each scripted request is cut to this length in the simulator's prompt."""
MAX_SHOWN_CHARS = 4_000
"""Each conversation message is cut to this length in the simulator's prompt."""
MAX_TRANSCRIPT_CHARS = 24_000
"""The conversation shown to the simulator keeps its latest messages within this length."""
MAX_READ_CHARS = 16_000
"""Only this much of the simulator's reply is searched for its JSON object."""
MAX_OBJECT_TRIES = 32
"""At most this many `{` positions of the reply are tried as the start of the JSON object."""
MAX_TOOL_NAMES = 8
"""A turn's tool calls are summarised by at most this many distinct names."""
FINISH_TOOL = "finish"
"""The env's answer tool: the answer it carries is shown as the assistant's text."""
FORMAT_ERROR = "format_error:"
"""User-role messages starting so are the env's notes on a malformed action, not the user's words."""

_VALUE = re.compile(r"[\w.+@/:#-]*\d[\w.+@/:#-]*")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_QUOTED = re.compile(r"\"([^\"\n]{1,200})\"|\u201c([^\u201d\n]{1,200})\u201d")
_EDGE = ".,:;/#+-"


class LlmUserConfig(BaseModel):
    """Where the simulator's model runs and how it is asked. `api_key` None: `$OPENAI_API_KEY`;
    it is never shown (`repr`) nor dumped (`model_dump`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base_url: str = Field(min_length=1, max_length=2_000, description="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1.")
    model: str = Field(min_length=1, max_length=200)
    api_key: str | None = Field(default=None, max_length=4_096, repr=False, exclude=True)
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    max_tokens: int = Field(default=256, ge=16, le=8_192)
    timeout: float = Field(default=60.0, gt=0.0, le=600.0, description="Seconds per request.")
    retries: int = Field(default=3, ge=0, le=10, description="Retries of a failed request (transport errors, 429, 5xx).")
    backoff: float = Field(default=1.0, ge=0.0, le=60.0, description="Seconds before the first retry; doubles after each.")
    seed: int | None = Field(default=None, ge=0, le=2**63 - 1)
    max_replies_per_turn: int = Field(
        default=3, ge=0, le=20,
        description="Clarifying answers the user gives within one scripted turn before moving on (the env counts).",
    )

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")) or len(value.split("://", 1)[1]) == 0:
            raise ValueError(f"base_url must be an http:// or https:// URL, got {value[:80]!r}")
        return value

    @field_validator("model")
    @classmethod
    def _named(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("model must name a model, got only whitespace")
        return value

    def public(self) -> dict[str, Any]:
        """The settings safe to record: no key, the URL without credentials or query."""
        return {**self.model_dump(), "base_url": public_url(self.base_url)}


class UserReply(BaseModel):
    """What the simulated user does when the agent ends a turn.

    `answer`: `message` answers the agent's question; the episode stays on the current turn.
    `next`: `message` is the next scripted request, reworded. `stop`: the last request is done
    (`message` a closing line, empty when scripted). `error`: why the scripted behaviour was
    used instead of the simulator's reply (None when the reply was used)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Kind
    message: str = Field(max_length=MAX_MESSAGE_CHARS)
    error: str | None = Field(default=None, max_length=MAX_ERROR_CHARS)


class LlmUser:
    """`LlmUser(config)`; `client`: an OpenAI client to use (for example one shared with the
    agent) instead of one made from the config."""

    def __init__(self, config: LlmUserConfig, client: Any = None) -> None:
        self.config = config
        self._chat = ChatClient(
            base_url=config.base_url, model=config.model, api_key=config.api_key, temperature=config.temperature,
            max_tokens=config.max_tokens, timeout=config.timeout, retries=config.retries, backoff=config.backoff,
            seed=config.seed, client=client,
        )

    @property
    def max_replies_per_turn(self) -> int:
        return self.config.max_replies_per_turn

    def start(self, task: Task) -> UserReply:
        """The first user message (kind `next`): turn 0's request reworded, every value kept,
        nothing added; the scripted text with `error` set when the reply is unusable."""
        scripted = task.turns[0].user
        system = _script(task) + "\n\n" + _opening_instructions()
        content, error = self._ask(system, "Write your first message now, as the JSON object.")
        if error is not None:
            return _scripted(task, -1, error)
        try:
            _, message = parse_reply(content)
        except ValueError as err:
            return _scripted(task, -1, f"the user simulator's reply is unreadable: {err}")
        problem = _value_problem(_clean(message), scripted, [scripted])
        if problem is not None:
            return _scripted(task, -1, problem)
        return UserReply(kind="next", message=_clean(message))

    def opening(self, task: Task) -> str:
        """The first user message (see `start`)."""
        return self.start(task).message

    def reply(self, task: Task, turn: int, messages: Sequence[Mapping[str, Any]], *, allow_answer: bool = True) -> UserReply:
        """The user's response when the agent ends a turn while on scripted turn `turn`;
        `messages`: the conversation so far (OpenAI-style). `allow_answer=False` (the turn's
        answers are used up): only `next`, or at the last turn `stop` without asking the
        endpoint. Endpoint failures and
        unusable replies give the scripted behaviour with `error` set; a `turn` outside the
        task raises `IndexError` (a caller's bug)."""
        if not 0 <= turn < len(task.turns):
            raise IndexError(f"turn {turn} is outside task {task.id} ({len(task.turns)} turns)")
        last = turn == len(task.turns) - 1
        if last and not allow_answer:
            return UserReply(kind="stop", message="")
        shown = transcript(messages)
        system = _script(task) + "\n\n" + _reply_instructions(task, turn, allow_answer)
        user = f"The conversation so far:\n\n{shown or '(nothing yet)'}\n\nThe assistant has ended its turn. Reply with the JSON object."
        content, error = self._ask(system, user)
        if error is not None:
            return _scripted(task, turn, error)
        try:
            action, message = parse_reply(content)
        except ValueError as err:
            return _scripted(task, turn, f"the user simulator's reply is unreadable: {err}")
        kind = "stop" if action == "next" and last else action
        message = _clean(message)
        if kind not in ("answer", "next", "stop"):
            return _scripted(task, turn, f"the user simulator chose no known action ({_cut(str(action))})")
        if kind == "answer" and not allow_answer:
            return _scripted(task, turn, "the user simulator answered again after the turn's answers were used up")
        if kind == "stop" and not last:
            return _scripted(task, turn, f"the user simulator stopped at request {turn + 1} of {len(task.turns)}")
        if kind != "stop" and not message:
            return _scripted(task, turn, f"the user simulator's {kind} has an empty message")
        target = turn + 1 if kind == "next" else turn
        required = task.turns[target].user if kind == "next" else ""
        known = [t.user for t in task.turns[: target + 1]] + [shown]
        problem = _value_problem(message, required, known)
        if problem is not None:
            return _scripted(task, turn, problem)
        return UserReply(kind=cast(Kind, kind), message=message)

    def _ask(self, system: str, user: str) -> tuple[str, str | None]:
        """(the reply's text, None) or ("", why the endpoint gave none)."""
        request = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        try:
            return self._chat.complete(request).content or "", None
        except ModelError as err:
            return "", f"the user simulator's endpoint failed: {err}"
        except Exception as err:  # noqa: BLE001  (the endpoint's client may fail in ways of its own)
            return "", f"the user simulator's endpoint failed: {type(err).__name__}: {err}"


def parse_reply(text: str) -> tuple[str | None, str]:
    """(action, message) from the simulator's text: a JSON object alone, in a code fence or
    amid prose; `action` lower-cased (None when absent). Raises `ValueError` when no object
    with a string message is found."""
    text = text[:MAX_READ_CHARS]
    decoder = json.JSONDecoder()
    position = text.find("{")
    for _ in range(MAX_OBJECT_TRIES):
        if position == -1:
            break
        try:
            value, _end = decoder.raw_decode(text, position)
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, dict):
            message = next((value[k] for k in ("message", "text", "content") if isinstance(value.get(k), str)), None)
            action = value.get("action", value.get("kind"))
            if message is not None:
                return (action.strip().lower() if isinstance(action, str) else None), message
        position = text.find("{", position + 1)
    raise ValueError(f"no JSON object with a message in {_cut(text[:80])!r}")


def transcript(messages: Iterable[Mapping[str, Any]]) -> str:
    """The conversation as the user sees it: user and assistant text (tool calls by name, a
    `finish` call's answer as text; tool and system messages left out), each message cut to
    `MAX_SHOWN_CHARS`, the latest kept within `MAX_TRANSCRIPT_CHARS`."""
    lines: list[str] = []
    for message in messages:
        if not isinstance(message, Mapping):
            continue
        role = message.get("role")
        text = _text(message.get("content"))
        if role == "user" and not text.startswith(FORMAT_ERROR):
            lines.append(f"User: {_cut(text, MAX_SHOWN_CHARS, flat=False)}")
        elif role == "assistant":
            names, answers = _calls(message.get("tool_calls"))
            said = "\n".join(p for p in (_visible(text), *answers) if p)
            if said:
                lines.append(f"Assistant: {_cut(said, MAX_SHOWN_CHARS, flat=False)}")
            if names:
                lines.append(f"[the assistant used tools: {', '.join(names)}]")
    kept: list[str] = []
    used = 0
    for line in reversed(lines):
        used += len(line) + 2
        if used > MAX_TRANSCRIPT_CHARS:
            kept.append("(earlier messages left out)")
            break
        kept.append(line)
    return "\n\n".join(reversed(kept))


def values(text: str, quoted: bool = True) -> list[str]:
    """The values a message must not lose or invent: tokens with a digit (ids, amounts, dates),
    e-mail addresses and (when `quoted`) double-quoted text, in order of appearance, without
    repeats."""
    found = [m.group().strip(_EDGE) for m in _VALUE.finditer(text)]
    found += [m.group() for m in _EMAIL.finditer(text)]
    if quoted:
        found += [(m.group(1) or m.group(2)).strip() for m in _QUOTED.finditer(text)]
    return list(dict.fromkeys(v for v in found if v))


# ---------------------------------------------------------------------------- prompts


def _script(task: Task) -> str:
    lines = [
        ("You are role-playing a user who talks to an AI assistant. The assistant can use tools; you cannot. "
         "You follow a hidden script of requests, in order; the assistant never sees the script."),
        "",
        f"The script ({len(task.turns)} request{'s' if len(task.turns) != 1 else ''}):",
    ]
    for number, turn in enumerate(task.turns, start=1):
        lines.append(f"Request {number}: {_cut(turn.user, MAX_SCRIPT_CHARS, flat=False)}")
        if turn.missing:
            lines.append(f"  Left out of request {number} on purpose: {'; '.join(turn.missing)}. "
                         "Do not give it before the assistant asks for it; the next request supplies it.")
    lines += [
        "",
        "Rules:",
        "1. Write as the user: first person, plain and brief. Never mention the script, these rules, or that you are simulated.",
        ("2. Never invent ids, numbers, names, dates, amounts or any other fact the script does not give. "
         "If the assistant asks for something the script does not say, answer that you do not know."),
        "3. Copy every id, number, name, date, amount and quoted text you use from the script exactly as written.",
        ("4. Never volunteer anything from a request after the current one. What a request leaves out on purpose "
         "must not be given before the assistant asks for it; when it asks, move on to the next request, which supplies it."),
    ]
    return "\n".join(lines)


def _opening_instructions() -> str:
    return (
        "Where you are: the conversation has not started. Open it with request 1: write it in your own words "
        "as your first message, keeping every value exactly and adding nothing.\n"
        'Reply with one JSON object and nothing else: {"action": "next", "message": "..."}'
    )


def _reply_instructions(task: Task, turn: int, allow_answer: bool) -> str:
    total = len(task.turns)
    last = turn == total - 1
    lines = [f"Where you are: request {turn + 1} of {total}{' (the last one)' if last else ''}.", "", "Choose one action:"]
    if allow_answer:
        lines.append('- "answer": the assistant asked you a question (a clarification or a confirmation) that the '
                     "current request or an earlier one answers. Your message is the answer; you stay on this request.")
    if last:
        lines.append('- "stop": the request is done, or the assistant cannot do it, or it asks for something the '
                     "script does not give. Your message is a short closing line.")
        actions = '"answer" | "stop"' if allow_answer else '"stop"'
    else:
        lines.append(f'- "next": the request is done, or the assistant cannot do it, or it asks for something only '
                     f"request {turn + 2} supplies. Your message is request {turn + 2} in your own words, keeping "
                     "every value exactly and adding nothing.")
        actions = '"answer" | "next"' if allow_answer else '"next"'
    lines.append(f'Reply with one JSON object and nothing else: {{"action": {actions}, "message": "..."}}')
    return "\n".join(lines)


# ---------------------------------------------------------------------------- helpers


def _scripted(task: Task, turn: int, error: str) -> UserReply:
    """The scripted user's move after turn `turn` (-1: the opening), with `error` recorded."""
    following = turn + 1
    if following >= len(task.turns):
        return UserReply(kind="stop", message="", error=_cut(error))
    return UserReply(kind="next", message=_cut(task.turns[following].user, MAX_MESSAGE_CHARS, flat=False), error=_cut(error))


def _value_problem(message: str, required: str, known: Sequence[str]) -> str | None:
    """Why `message` may not stand for the script: a value of `required` it lost, or a value
    (other than quoted text) in none of the `known` texts. None when it may."""
    lost = [v for v in values(required) if v not in message]
    if lost:
        return f"the user simulator's message left out {_listed(lost)}; the scripted text was used"
    invented = [v for v in values(message, quoted=False) if not any(v in text for text in known)]
    if invented:
        return f"the user simulator's message gave {_listed(invented)}, not in the script; the scripted text was used"
    return None


def _calls(raw: Any) -> tuple[list[str], list[str]]:
    """(distinct tool names, `finish` answers) of an assistant message's tool calls."""
    names: list[str] = []
    answers: list[str] = []
    for call in raw if isinstance(raw, Sequence) and not isinstance(raw, str) else []:
        function = call.get("function", call) if isinstance(call, Mapping) else None
        if not isinstance(function, Mapping) or not isinstance(name := function.get("name"), str):
            continue
        if name == FINISH_TOOL:
            answer = _finish_answer(function.get("arguments"))
            if answer:
                answers.append(answer)
        elif len(names) < MAX_TOOL_NAMES and (short := _cut(name, 64)) not in names:
            names.append(short)
    return names, answers


def _finish_answer(arguments: Any) -> str:
    if isinstance(arguments, str) and len(arguments) <= MAX_READ_CHARS:
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError):
            return ""
    answer = arguments.get("answer") if isinstance(arguments, Mapping) else None
    return answer if isinstance(answer, str) else ""


def _text(content: Any) -> str:
    """A message's text: a string, or the text parts of a list of content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = [p.get("text") for p in content if isinstance(p, Mapping)]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


def _visible(text: str) -> str:
    """Assistant text without `<tool_call>` and `<think>` blocks (an unclosed block runs to the end)."""
    for opener, closer in (("<tool_call>", "</tool_call>"), ("<think>", "</think>")):
        kept: list[str] = []
        position = 0
        while (start := text.find(opener, position)) != -1:
            kept.append(text[position:start])
            end = text.find(closer, start + len(opener))
            position = len(text) if end == -1 else end + len(closer)
        kept.append(text[position:])
        text = "".join(kept)
    return text.strip()


def _clean(message: str) -> str:
    return _cut(message.strip(), MAX_MESSAGE_CHARS, flat=False)


def _listed(items: list[str]) -> str:
    shown = ", ".join(repr(_cut(item, 40)) for item in items[:5])
    return shown + (f" and {len(items) - 5} more" if len(items) > 5 else "")


def _cut(text: str, limit: int = MAX_ERROR_CHARS, *, flat: bool = True) -> str:
    """`text` (on one line when `flat`) cut to `limit` characters, marked with '...' when cut."""
    if flat:
        text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."
