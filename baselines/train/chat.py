"""The conversation as tokens: what the model reads, what it wrote, and how its text becomes an action.

An episode is one growing token sequence: the prompt (system, tools, first user turn, from the
tokenizer's chat template), then for every assistant turn the tokens the model sampled, then
the tokens of what the environment answered (tool results, the next user turn, the next
generation prompt). Sampled tokens are kept exactly as sampled, never re-tokenized, so the
trainer scores the very tokens the policy chose; the mask marks them (1) apart from
everything else (0).

The environment's answer is rendered with the chat template as the text that follows the
assistant's turn: the template applied to the conversation with and without the new
messages, the difference taken. Templates that rewrite earlier turns (dropping old
reasoning, say) break that prefix property; then the difference is taken over a stand-in
conversation of one user and one assistant turn, which gives the same text for the new
messages in every template we know.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal

ToolParser = Literal["hermes", "json"]

_STAND_IN = [{"role": "user", "content": "."}, {"role": "assistant", "content": "."}]


NO_TURN = -1
"""`TokenSequence.turn` of a token the model did not sample."""


@dataclass
class TokenSequence:
    """Token ids and same-length lists: `mask` 1 for tokens the model sampled, 0 for the rest;
    `turn` the index of the assistant turn that sampled each token (`NO_TURN` for the rest);
    `logprobs` the sampler's log-probability of each sampled token, NaN where not known."""

    ids: list[int] = field(default_factory=list)
    mask: list[int] = field(default_factory=list)
    turn: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)

    def extend(self, ids: list[int], sampled: bool, turn: int = NO_TURN, logprobs: list[float] | None = None) -> None:
        """Append `ids`; `turn` and `logprobs` (one per id) only count for sampled tokens."""
        if logprobs is not None and len(logprobs) != len(ids):
            raise ValueError(f"{len(logprobs)} log-probabilities for {len(ids)} tokens")
        self.ids.extend(ids)
        self.mask.extend([int(sampled)] * len(ids))
        self.turn.extend([turn if sampled else NO_TURN] * len(ids))
        if logprobs is not None and sampled:
            self.logprobs.extend(float(v) for v in logprobs)
        else:
            self.logprobs.extend([math.nan] * len(ids))

    @property
    def has_logprobs(self) -> bool:
        """Whether the sampler's log-probability is known for every sampled token."""
        sampled = [v for v, m in zip(self.logprobs, self.mask, strict=True) if m]
        return bool(sampled) and not any(math.isnan(v) for v in sampled)

    def __len__(self) -> int:
        return len(self.ids)


class ChatFormat:
    """A tokenizer's chat template, seen as prompt tokens and per-turn continuations."""

    def __init__(self, tokenizer: Any, tool_parser: ToolParser = "hermes") -> None:
        if tokenizer.chat_template is None:
            raise ValueError("the tokenizer has no chat template; pass a chat model or build one (mcpgym train build-model)")
        if tokenizer.eos_token is None:
            raise ValueError("the tokenizer has no eos token: the end of an assistant turn cannot be told")
        self.tokenizer = tokenizer
        self.tool_parser = tool_parser
        self.eos_id: int = tokenizer.eos_token_id
        self.eos_text: str = tokenizer.eos_token

    def render(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, prompt: bool) -> str:
        return self.tokenizer.apply_chat_template(
            messages, tools=tools or None, add_generation_prompt=prompt, tokenize=False
        )

    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def prompt(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> list[int]:
        """Tokens of the conversation so far, ending in the generation prompt."""
        return self.encode(self.render(messages, tools, prompt=True))

    def continuation(
        self, before: list[dict[str, Any]], after: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> list[int]:
        """Tokens that follow an assistant turn's end-of-turn token: `before` ends with that
        assistant message, `after` is `before` plus the environment's new messages."""
        new = after[len(before) :]
        head = self.render(before, tools, prompt=False)
        full = self.render(after, tools, prompt=True)
        if not full.startswith(head):
            head = self.render(_STAND_IN, tools, prompt=False)
            full = self.render(_STAND_IN + new, tools, prompt=True)
        cut = head.rfind(self.eos_text)
        tail = head[cut + len(self.eos_text) :] if cut >= 0 else ""
        return self.encode(tail + full[len(head) :])

    def text_of(self, generated: list[int]) -> str:
        """The text of a turn's sampled tokens, without the end-of-turn token."""
        if generated and generated[-1] == self.eos_id:
            generated = generated[:-1]
        return self.tokenizer.decode(generated, skip_special_tokens=False)

    def action(self, text: str) -> str | dict[str, Any]:
        """The env action for a turn's text, in the tool-call format this model writes."""
        return parse_tool_calls(text, self.tool_parser)


_JSON_LINE = re.compile(r"^\s*(\{.*\})\s*$", re.MULTILINE)


def parse_tool_calls(text: str, parser: ToolParser) -> str | dict[str, Any]:
    """`hermes`: the text as is (the env reads `<tool_call>` blocks itself). `json`: each line
    that is a JSON object with `name` and `arguments` (or `parameters`) becomes a tool call of
    an OpenAI-style assistant message; the other lines stay its content."""
    if parser == "hermes":
        return text
    calls, kept = [], []
    for line in text.splitlines():
        match = _JSON_LINE.match(line)
        parsed: Any = None
        if match:
            try:
                parsed = json.loads(match.group(1))
            except json.JSONDecodeError:
                parsed = None
        if isinstance(parsed, dict) and "name" in parsed and ("arguments" in parsed or "parameters" in parsed):
            arguments = parsed.get("arguments", parsed.get("parameters"))
            calls.append(
                {
                    "id": f"call_{len(calls) + 1}",
                    "type": "function",
                    "function": {
                        "name": parsed["name"],
                        "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
                    },
                }
            )
        else:
            kept.append(line)
    if not calls:
        return text
    return {"role": "assistant", "content": "\n".join(kept).strip(), "tool_calls": calls}


__all__ = ["NO_TURN", "ChatFormat", "TokenSequence", "parse_tool_calls"]
