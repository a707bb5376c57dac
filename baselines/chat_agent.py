"""An agent backed by any OpenAI-compatible Chat Completions endpoint, and `ChatClient`, the
request/retry/parse code it uses (the LLM user simulator uses it too).

Two modes:
- `tools`: the conversation goes out as chat messages and the tool schemas as the `tools`
  parameter; the reply's `tool_calls` come back to the env as a structured message;
- `text`: for models without native tool calling: tool schemas are described in the system
  message, tool results come back as `<tool_response>` user messages, and the model's text
  (with `<tool_call>` blocks) is the action.

`strict_tools=True` (tools mode) sends the schemas in OpenAI's strict form, `"strict": true`
on each function: every argument required, a null for an optional one meaning "not given".

Transport errors, 429s and 5xx answers are retried with exponential backoff; a call that
still fails, any other error status (401, 404, ...), and a reply that is not a chat completion
(a non-JSON page, JSON of another shape, a body over `MAX_REPLY_BYTES`) raise `ModelError`,
whose message names the endpoint; the evaluator records it for that episode.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ValidationError

from mcpgym.servers.kernel.tools import strict_function
from mcpgym.tasks.model import Task

Mode = Literal["tools", "text"]
MAX_REPLY_BYTES = 8 * 2**20
"""A reply body longer than this is refused (and not read further)."""
MAX_ERROR_CHARS = 300
"""Error messages quoted from the endpoint are cut to this length."""


class ModelError(RuntimeError):
    """The endpoint gave no usable reply after every retry."""


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0
    retries: int = 0


class FunctionCall(BaseModel):
    name: str = ""
    arguments: str | dict[str, Any] | None = None


class ToolCall(BaseModel):
    id: str | None = None
    function: FunctionCall


class ReplyMessage(BaseModel):
    """The assistant message of a reply: what the agent turns into an action."""

    content: str | None = None
    tool_calls: list[ToolCall] | None = None


class Choice(BaseModel):
    message: ReplyMessage


class TokenUsage(BaseModel):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class Completion(BaseModel):
    """The fields of a Chat Completions reply that the agent reads (others are ignored)."""

    choices: list[Choice]
    usage: TokenUsage | None = None


@dataclass
class ChatClient:
    """`ChatClient(base_url, model).complete(messages)`: one Chat Completions request with the
    retries, size bound and reply checks described above; shared by `ChatAgent` and the user
    simulator (`mcpgym.envs.user_simulator`). Raises `ModelError` when no usable reply comes."""

    base_url: str
    model: str
    api_key: str | None = None
    temperature: float = 0.0
    max_tokens: int = 1024
    timeout: float = 60.0
    retries: int = 3
    backoff: float = 1.0
    seed: int | None = None
    client: Any = field(default=None, repr=False)
    """The OpenAI client (made from the settings above when not given); may be shared."""

    def __post_init__(self) -> None:
        import openai

        self._retryable = (
            openai.APIConnectionError, openai.APITimeoutError, openai.RateLimitError, openai.InternalServerError,
            _transport_error(),
        )
        self.endpoint = public_url(self.base_url)

        self._openai = openai
        if self.client is None:
            self.client = openai.OpenAI(
                base_url=self.base_url,
                api_key=self.api_key or os.environ.get("OPENAI_API_KEY") or "none",
                timeout=self.timeout,
                max_retries=0,
            )
        self._jitter = random.Random(self.seed)

    def complete(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, usage: Usage | None = None
    ) -> ReplyMessage:
        """The assistant message of one completion; requests, retries and tokens are added to
        `usage` when given."""
        usage = usage if usage is not None else Usage()
        request: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if tools:
            request["tools"] = tools
        if self.seed is not None:
            request["seed"] = self.seed
        for attempt in range(self.retries + 1):
            try:
                with self.client.chat.completions.with_streaming_response.create(**request) as response:
                    content_type = response.headers.get("content-type", "")
                    body = self._read_bounded(response.iter_bytes())
            except self._retryable as err:
                if attempt == self.retries:
                    raise ModelError(f"{type(err).__name__} from {self.endpoint} after {attempt + 1} attempts: {_cut(err)}") from None
                usage.retries += 1
                time.sleep(self.backoff * 2**attempt * (0.5 + self._jitter.random()))
                continue
            except self._openai.APIError as err:
                raise ModelError(f"{type(err).__name__} from {self.endpoint}: {_cut(err)}") from None
            usage.requests += 1
            completion = self._parse(body, content_type)
            if completion.usage is not None:
                usage.prompt_tokens += completion.usage.prompt_tokens or 0
                usage.completion_tokens += completion.usage.completion_tokens or 0
            if not completion.choices:
                raise ModelError(f"{self.endpoint} answered with no choices")
            return completion.choices[0].message
        raise ModelError("unreachable")

    def _read_bounded(self, chunks: Iterator[bytes]) -> bytes:
        body = bytearray()
        for chunk in chunks:
            body += chunk
            if len(body) > MAX_REPLY_BYTES:
                raise ModelError(f"{self.endpoint} sent a reply over {MAX_REPLY_BYTES} bytes")
        return bytes(body)

    def _parse(self, body: bytes, content_type: str) -> Completion:
        try:
            return Completion.model_validate_json(body)
        except ValidationError as err:
            first = err.errors()[0]
            if first["type"] == "json_invalid":
                raise ModelError(
                    f"{self.endpoint} answered with a body that is not JSON "
                    f"({content_type or 'no content type'}, {len(body)} bytes: {_cut(body[:80])})"
                ) from None
            where = ".".join(str(part) for part in first["loc"]) or "the reply"
            raise ModelError(f"{self.endpoint} answered with JSON that is not a chat completion ({where}: {first['msg']})") from None


@dataclass
class ChatAgent:
    """`ChatAgent(base_url, model)`: one episode at a time; `sibling(seed)` makes the next one."""

    base_url: str
    model: str
    api_key: str | None = None
    mode: Mode = "tools"
    temperature: float = 0.0
    max_tokens: int = 1024
    timeout: float = 60.0
    retries: int = 3
    backoff: float = 1.0
    seed: int | None = None
    strict_tools: bool = False
    """Send the tool schemas in strict form (`mcpgym.servers.kernel.tools.strict_function`)."""
    usage: Usage = field(default_factory=Usage)
    client: Any = field(default=None, repr=False)
    """The OpenAI client (made from the settings above when not given); agents may share one."""
    remote: ClassVar[bool] = True
    """Its turns wait on the network: the evaluator runs them in parallel."""

    def __post_init__(self) -> None:
        self._chat = ChatClient(
            base_url=self.base_url, model=self.model, api_key=self.api_key, temperature=self.temperature,
            max_tokens=self.max_tokens, timeout=self.timeout, retries=self.retries, backoff=self.backoff,
            seed=self.seed, client=self.client,
        )
        self.client = self._chat.client
        self.endpoint = self._chat.endpoint

    def sibling(self, seed: int | None) -> ChatAgent:
        """A fresh agent for another episode, sharing this one's client (and its connection pool:
        no new TLS setup per episode)."""
        return replace(self, seed=seed, usage=Usage(), client=self.client)

    def reset(self, task: Task, observation: dict[str, Any]) -> None:
        self.usage = Usage()

    def act(self, observation: dict[str, Any]) -> Any:
        if self.mode == "tools":
            tools = observation["tools"]
            if self.strict_tools:
                tools = [strict_function(tool) for tool in tools]
            reply = self._complete(observation["messages"], tools)
            message: dict[str, Any] = {"role": "assistant", "content": reply.content or ""}
            if reply.tool_calls:
                message["tool_calls"] = [
                    {"id": c.id, "type": "function", "function": {"name": c.function.name, "arguments": _arguments_text(c.function.arguments)}}
                    for c in reply.tool_calls
                ]
            return message
        reply = self._complete(text_messages(observation["messages"], observation["tools"]), None)
        return reply.content or ""

    def _complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> ReplyMessage:
        return self._chat.complete(messages, tools, self.usage)


def public_url(url: str) -> str:
    """`url` without credentials, query or fragment: safe to print and to record."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host + (f":{port}" if port is not None else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _transport_error() -> type[Exception]:
    """The HTTP library's base error of a failed connection or read (the body of a reply is
    read outside the client's own error wrapping): httpx2 for openai 3, httpx before."""
    import importlib

    for name in ("httpx2", "httpx"):
        try:
            return importlib.import_module(name).TransportError  # type: ignore[no-any-return]
        except ImportError:
            continue
    raise ImportError("openai's HTTP library (httpx2 or httpx) is missing")


def _arguments_text(arguments: str | dict[str, Any] | None) -> str:
    """Tool-call arguments as the JSON text the environment parses (some servers send an object)."""
    if arguments is None:
        return "{}"
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def _cut(value: object) -> str:
    """`value` as one line of at most `MAX_ERROR_CHARS` characters (bytes shown as a literal)."""
    text = " ".join((repr(value) if isinstance(value, bytes) else str(value)).split())
    return text if len(text) <= MAX_ERROR_CHARS else text[:MAX_ERROR_CHARS] + "..."


def text_messages(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation for a model without native tools: schemas in the system message,
    tool results as `<tool_response>` user messages, assistant turns as the text they were."""
    catalog = "\n".join(json.dumps(t["function"], ensure_ascii=False) for t in tools)
    out: list[dict[str, Any]] = []
    for message in messages:
        role, content = message["role"], message.get("content") or ""
        if role == "system":
            out.append({"role": "system", "content": f"{content}\n\nTools (JSON schemas):\n{catalog}"})
        elif role == "tool":
            text = f"<tool_response>\n{content}\n</tool_response>"
            if out and out[-1]["role"] == "user" and out[-1]["content"].startswith("<tool_response>"):
                out[-1]["content"] += "\n" + text
            else:
                out.append({"role": "user", "content": text})
        else:
            out.append({"role": role, "content": content})
    return out
