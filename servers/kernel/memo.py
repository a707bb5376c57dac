"""A thread-safe LRU cache bounded by the total size of its values, that builds each key once."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class BoundedCache(Generic[V]):
    """Keeps the most recently used values while their sizes add up to at most `capacity`.

    `get(key, build)` returns the cached value or builds it; concurrent callers of one missing
    key wait for a single build. The newest value is kept even when it alone is larger than
    the capacity. Locks are renewed in a forked child, so a fork never inherits a held lock.
    """

    def __init__(self, capacity: int, size_of: Callable[[V], int] = lambda _: 1) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self._size_of = size_of
        self._values: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self._total = 0
        self._renew_locks()
        os.register_at_fork(after_in_child=self._renew_locks)

    def _renew_locks(self) -> None:
        self._lock = threading.Lock()
        self._building: dict[Hashable, threading.Lock] = {}

    def get(self, key: Hashable, build: Callable[[], V]) -> V:
        """The value of `key`, built with `build()` on a miss."""
        with self._lock:
            found = self._values.get(key)
            if found is not None:
                self._values.move_to_end(key)
                return found[0]
            key_lock = self._building.setdefault(key, threading.Lock())
        with key_lock:
            with self._lock:
                found = self._values.get(key)
                if found is not None:
                    return found[0]
            try:
                value = build()
                self._put(key, value)
            finally:
                with self._lock:
                    self._building.pop(key, None)
            return value

    def _put(self, key: Hashable, value: V) -> None:
        size = self._size_of(value)
        with self._lock:
            self._values[key] = (value, size)
            self._total += size
            while self._total > self.capacity and len(self._values) > 1:
                _, (_, dropped) = self._values.popitem(last=False)
                self._total -= dropped

    @property
    def total(self) -> int:
        """The sum of the sizes of the values held."""
        return self._total

    def __len__(self) -> int:
        return len(self._values)

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
            self._total = 0
