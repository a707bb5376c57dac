"""An agent backed by any OpenAI-compatible Chat Completions endpoint.

Two modes:
- `tools`: the conversation goes out as chat messages and the tool schemas as the `tools`
  parameter; the reply's `tool_calls` come back to the env as a structured message;
- `text`: for models without native tool calling: tool schemas are described in the system
  message, tool results come back as `<tool_response>` user messages, and the model's text
  (with `<tool_call>` blocks) is the action.

Transport errors and 5xx answers are retried with exponential backoff; a call that still
fails raises `ModelError`, which the evaluator records for that episode.
"""

from __future__ import annotations

import json
import os
import random
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from mcpgym.tasks.model import Task

Mode = Literal["tools", "text"]


class ModelError(RuntimeError):
    """The endpoint gave no usable reply after every retry."""


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0
    retries: int = 0


@dataclass
class ChatAgent:
    """`ChatAgent(base_url, model)`: one episode at a time; make one per worker."""

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
    usage: Usage = field(default_factory=Usage)

    def __post_init__(self) -> None:
        import openai

        self._openai = openai
        self.client = openai.OpenAI(
            base_url=self.base_url,
            api_key=self.api_key or os.environ.get("OPENAI_API_KEY") or "none",
            timeout=self.timeout,
            max_retries=0,
        )
        self._jitter = random.Random(self.seed)

    def reset(self, task: Task, observation: dict[str, Any]) -> None:
        self.usage = Usage()

    def act(self, observation: dict[str, Any]) -> Any:
        if self.mode == "tools":
            reply = self._complete(observation["messages"], observation["tools"])
            message: dict[str, Any] = {"role": "assistant", "content": reply.content or ""}
            if reply.tool_calls:
                message["tool_calls"] = [
                    {"id": c.id, "type": "function", "function": {"name": c.function.name, "arguments": c.function.arguments}}
                    for c in reply.tool_calls
                ]
            return message
        reply = self._complete(text_messages(observation["messages"], observation["tools"]), None)
        return reply.content or ""

    def _complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> Any:
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
                response = self.client.chat.completions.create(**request)
            except (self._openai.APIConnectionError, self._openai.APITimeoutError, self._openai.RateLimitError, self._openai.InternalServerError) as err:
                if attempt == self.retries:
                    raise ModelError(f"{type(err).__name__} after {attempt + 1} attempts: {err}") from None
                self.usage.retries += 1
                time.sleep(self.backoff * 2**attempt * (0.5 + self._jitter.random()))
                continue
            except self._openai.APIError as err:
                raise ModelError(f"{type(err).__name__}: {err}") from None
            self.usage.requests += 1
            if response.usage is not None:
                self.usage.prompt_tokens += response.usage.prompt_tokens or 0
                self.usage.completion_tokens += response.usage.completion_tokens or 0
            if not response.choices:
                raise ModelError("the endpoint answered with no choices")
            return response.choices[0].message
        raise ModelError("unreachable")


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
