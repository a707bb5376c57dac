"""Gymnasium's async vector env with its default `shared_memory=True`, for our spaces.

`AsyncVectorEnv` moves observations through "shared memory" made by the single-dispatch
functions `create_shared_memory`, `write_to_shared_memory` and `read_from_shared_memory`;
custom spaces must register their own. A conversation has no fixed size, so ours is a
channel per env instead of a buffer:

- the worker puts only the messages added since its last write on a queue (a
  conversation only grows within an episode; a new episode sends it whole), then bumps the
  env's write counter, a shared integer, before it answers the step;
- the main process reads lazily: `read_from_shared_memory` returns a `SharedConversations`,
  a sequence that, when read (or deep-copied, as `AsyncVectorEnv` does with `copy=True`),
  takes from each queue the writes its counter says are pending. A step's traffic is then
  its new messages, however long the episode.

The tool list changes only between episodes, and an env hands out the same list object for
the same tools: the worker sends a list only when it is another object than the last it sent,
whole, on a channel of its own (`ToolChannels`).
"""

from __future__ import annotations

import queue
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any

from gymnasium.vector.utils import create_shared_memory, read_from_shared_memory, write_to_shared_memory

from mcpgym.envs.frozen import FrozenList
from mcpgym.envs.spaces import Conversation, ToolList

READ_TIMEOUT_S = 60.0
"""How long the main process waits for a write its counter announced (a worker that died
between the two)."""


class ConversationChannels:
    """One queue and one write counter per env; lives in the main process and, copied, in
    every worker, each of which writes only its own index."""

    def __init__(self, n: int, ctx: ModuleType) -> None:
        self.queues = [ctx.Queue() for _ in range(n)]
        self.counters = ctx.RawArray("q", n)
        self._sent: dict[int, FrozenList] = {}

    def write(self, index: int, conversation: Sequence[Any]) -> None:
        """Send `conversation` (worker side): its new messages, or all of it."""
        last = self._sent.get(index)
        if last is None:
            self.queues[index].cancel_join_thread()  # a worker never waits on unread data to exit
        frozen = conversation if isinstance(conversation, FrozenList) else FrozenList(conversation)
        grows = last is not None and len(frozen) >= len(last) > 0 and frozen[len(last) - 1] is last[-1]
        self.queues[index].put((len(last), frozen[len(last) :]) if grows and last is not None else (0, frozen))
        self._sent[index] = frozen
        self.counters[index] += 1

    def __getstate__(self) -> dict[str, Any]:
        return {"queues": self.queues, "counters": self.counters}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.queues, self.counters, self._sent = state["queues"], state["counters"], {}


class SharedConversations(Sequence[FrozenList]):
    """The current conversation of every env (main process side), read from the channels
    on access; a deep copy is a plain tuple of them (free: conversations are read-only)."""

    def __init__(self, channels: ConversationChannels) -> None:
        self._channels = channels
        self._read = [0] * len(channels.queues)
        self._current: list[FrozenList] = [FrozenList() for _ in channels.queues]

    def latest(self) -> tuple[FrozenList, ...]:
        """Every env's conversation as of its last write."""
        for index, channel in enumerate(self._channels.queues):
            while self._read[index] < self._channels.counters[index]:
                try:
                    kept, new = channel.get(timeout=READ_TIMEOUT_S)
                except queue.Empty:
                    raise RuntimeError(f"env {index} announced an observation that never arrived") from None
                self._current[index] = FrozenList([*self._current[index][:kept], *new]) if kept else new
                self._read[index] += 1
        return tuple(self._current)

    def __getitem__(self, index: Any) -> Any:
        return self.latest()[index]

    def __len__(self) -> int:
        return len(self._current)

    def __iter__(self) -> Iterator[FrozenList]:
        return iter(self.latest())

    def __eq__(self, other: object) -> bool:
        return self.latest() == (tuple(other) if isinstance(other, Sequence) else other)

    def __deepcopy__(self, memo: dict[int, Any]) -> tuple[FrozenList, ...]:
        return self.latest()

    def __repr__(self) -> str:
        return repr(self.latest())


@create_shared_memory.register(Conversation)
def _create_conversation_channels(space: Conversation, n: int = 1, ctx: ModuleType | None = None) -> ConversationChannels:
    import multiprocessing

    return ConversationChannels(n, ctx or multiprocessing)


@write_to_shared_memory.register(Conversation)
def _write_conversation(space: Conversation, index: int, value: Sequence[Any], shared_memory: ConversationChannels) -> None:
    shared_memory.write(index, value)


@read_from_shared_memory.register(Conversation)
def _read_conversations(space: Conversation, shared_memory: ConversationChannels, n: int = 1) -> SharedConversations:
    return SharedConversations(shared_memory)


class ToolChannels(ConversationChannels):
    """The tool list of every env: sent whole when it is another list than the last one sent,
    else not at all (the reader keeps what it has)."""

    def write(self, index: int, tools: Sequence[Any]) -> None:
        last = self._sent.get(index)
        if last is tools:
            return
        if last is None:
            self.queues[index].cancel_join_thread()
        frozen = tools if isinstance(tools, FrozenList) else FrozenList(tools)
        self.queues[index].put((0, frozen))
        self._sent[index] = frozen
        self.counters[index] += 1


@create_shared_memory.register(ToolList)
def _create_tool_channels(space: ToolList, n: int = 1, ctx: ModuleType | None = None) -> ToolChannels:
    import multiprocessing

    return ToolChannels(n, ctx or multiprocessing)


@write_to_shared_memory.register(ToolList)
def _write_tools(space: ToolList, index: int, value: Sequence[Any], shared_memory: ToolChannels) -> None:
    shared_memory.write(index, value)


@read_from_shared_memory.register(ToolList)
def _read_tools(space: ToolList, shared_memory: ToolChannels, n: int = 1) -> SharedConversations:
    return SharedConversations(shared_memory)
