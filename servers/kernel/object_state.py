"""The initial state of an object server: its backend's own configuration, as JSON.

A database server's task state is a patch of rows (`initial_state.RowPatch`); an object
server (`object_server.ObjectServerSpec`), whose state is a Python object, takes the
configuration its backend loads instead. The server checks what the keys mean; here it is
bounded in size and named by a digest, so equal configurations share caches.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import ConfigDict, JsonValue, RootModel, model_validator

from mcpgym.servers.kernel.digested import Digested

MAX_OBJECT_STATE_BYTES = 1 << 20
"""Size of one server's configuration as compact JSON."""


class ObjectState(Digested, RootModel[dict[str, JsonValue]]):
    """One object server's configuration before a task starts (a JSON object)."""

    model_config = ConfigDict(frozen=True)
    max_bytes: ClassVar[int] = MAX_OBJECT_STATE_BYTES
    what: ClassVar[str] = "the state"

    @model_validator(mode="after")
    def _bounded(self) -> ObjectState:
        return self.check_size()  # type: ignore[no-any-return]
