"""The initial state of an object server: its backend's own configuration, as JSON.

A database server's task state is a patch of rows (`initial_state.RowPatch`); an object
server (`object_server.ObjectServerSpec`), whose state is a Python object, takes the
configuration its backend loads instead. The server checks what the keys mean; here it is
bounded in size and named by a digest, so equal configurations share caches.
"""

from __future__ import annotations

import hashlib
import json
from functools import cached_property

from pydantic import ConfigDict, JsonValue, RootModel, model_validator

MAX_OBJECT_STATE_BYTES = 1 << 20
"""Size of one server's configuration as compact JSON."""


class ObjectState(RootModel[dict[str, JsonValue]]):
    """One object server's configuration before a task starts (a JSON object)."""

    model_config = ConfigDict(frozen=True)

    @model_validator(mode="after")
    def _bounded(self) -> ObjectState:
        if len(self.canonical) > MAX_OBJECT_STATE_BYTES:
            raise ValueError(
                f"the state is {len(self.canonical):,} bytes as JSON, over the limit of {MAX_OBJECT_STATE_BYTES:,}"
            )
        return self

    @cached_property
    def canonical(self) -> bytes:
        """Compact JSON with sorted keys: what the digest is taken of."""
        return json.dumps(self.root, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()

    @cached_property
    def digest(self) -> str:
        return hashlib.sha256(self.canonical).hexdigest()[:32]
