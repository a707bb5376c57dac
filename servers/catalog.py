"""The names of the domain servers and where each one lives; loading is lazy.

This module imports nothing heavy, so env registration can read the server names cheaply.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcpgym.servers.kernel.spec import ServerSpec

SERVER_MODULES: dict[str, str] = {
    "zendesk": "mcpgym.servers.zendesk",
    "crm": "mcpgym.servers.crm",
    "calendar": "mcpgym.servers.calendar",
    "email": "mcpgym.servers.email",
    "finance": "mcpgym.servers.finance",
    "flights": "mcpgym.servers.flights",
}

SERVER_GROUPS: dict[str, tuple[str, ...]] = {
    "workspace": ("zendesk", "crm", "calendar", "email", "finance", "flights"),
}
"""Named sets of servers mounted together in one environment (`mcp/<group>-v0`)."""


def server_names() -> list[str]:
    return list(SERVER_MODULES)


def load_server(name: str) -> ServerSpec:
    """The `ServerSpec` of server `name`; a clear error names the servers there are."""
    module = SERVER_MODULES.get(name)
    if module is None:
        raise KeyError(f"unknown server {name!r}; servers: {', '.join(SERVER_MODULES)}")
    spec: ServerSpec = importlib.import_module(module).SERVER
    return spec
