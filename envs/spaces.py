"""Gymnasium spaces for conversations: the observation is a chat, the action an assistant turn.

Both are custom `gymnasium.Space`s: `contains` checks the structure, `sample` draws seeded
examples, and vector envs batch them as tuples (Gymnasium's rule for custom spaces). The async
vector env moves them between processes through `mcpgym.envs.shared_memory`.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from gymnasium import spaces

ROLES = ("system", "user", "assistant", "tool")
_WORDS = ("ticket", "billing", "refund", "status", "open", "the", "of", "42", "yes", "no", "done")


class Conversation(spaces.Space[list[dict[str, Any]]]):
    """A list of chat messages: dicts with a `role` and a string `content`.

    Assistant messages may carry OpenAI-style `tool_calls`; tool messages a `tool_call_id`
    and `name`.
    """

    def __init__(self, seed: int | np.random.Generator | None = None) -> None:
        super().__init__(shape=None, dtype=None, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def contains(self, x: Any) -> bool:
        return isinstance(x, list) and all(_is_message(m) for m in x)

    def sample(self, mask: Any = None, probability: Any = None) -> list[dict[str, Any]]:
        count = int(self.np_random.integers(1, 5))
        return [
            {"role": str(self.np_random.choice(ROLES)), "content": _words(self.np_random)}
            for _ in range(count)
        ]

    def __repr__(self) -> str:
        return "Conversation()"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Conversation)


class ToolList(spaces.Space[list[dict[str, Any]]]):
    """The tool schemas an episode shows (OpenAI function format): a sub-list, in order, of
    `tools`, every tool the environment may show."""

    def __init__(self, tools: list[dict[str, Any]], seed: int | np.random.Generator | None = None) -> None:
        super().__init__(shape=None, dtype=None, seed=seed)
        self.tools = tools
        self._position = {tool["function"]["name"]: i for i, tool in enumerate(tools)}

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def contains(self, x: Any) -> bool:
        if not isinstance(x, list | tuple) or not x:
            return False
        positions = []
        for tool in x:
            name = tool.get("function", {}).get("name") if isinstance(tool, dict) else None
            position = self._position.get(name) if isinstance(name, str) else None
            if position is None or tool != self.tools[position]:
                return False
            positions.append(position)
        return positions == sorted(set(positions))

    def sample(self, mask: Any = None, probability: Any = None) -> list[dict[str, Any]]:
        return self.tools

    def __repr__(self) -> str:
        return f"ToolList({len(self.tools)} tools)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToolList) and other.tools == self.tools


class AssistantTurn(spaces.Space[Any]):
    """An assistant turn: text (with `<tool_call>` blocks) or an OpenAI-style message dict.

    Any value is accepted by the environment (malformed ones are answered with an error), but
    `contains` is true only for the two documented forms. `sample` draws text answers and
    text tool calls to the given tool names, some with wrong arguments.
    """

    def __init__(self, tool_names: list[str], seed: int | np.random.Generator | None = None) -> None:
        super().__init__(shape=None, dtype=None, seed=seed)
        self.tool_names = tool_names

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def contains(self, x: Any) -> bool:
        if isinstance(x, str):
            return True
        return isinstance(x, dict) and x.get("role", "assistant") == "assistant" and (
            isinstance(x.get("content"), str | None) and isinstance(x.get("tool_calls", []), list | None)
        )

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        if not self.tool_names or self.np_random.random() < 0.3:
            return _words(self.np_random)
        name = str(self.np_random.choice(self.tool_names))
        arguments = {"id": int(self.np_random.integers(1, 1000))} if self.np_random.random() < 0.5 else {}
        return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"

    def __repr__(self) -> str:
        return f"AssistantTurn({len(self.tool_names)} tools)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AssistantTurn) and other.tool_names == self.tool_names


def _is_message(message: Any) -> bool:
    return (
        isinstance(message, dict)
        and message.get("role") in ROLES
        and isinstance(message.get("content"), str)
    )


def _words(rng: np.random.Generator) -> str:
    return " ".join(str(rng.choice(_WORDS)) for _ in range(int(rng.integers(1, 8))))
