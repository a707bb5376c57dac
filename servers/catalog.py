"""The domain servers, found through the `mcpgym.servers` entry-point group; loading is lazy.

A server is an entry point `<name> = "<module>:<attribute>"` naming a `ServerSpec`, declared
by whichever installed distribution provides it: mcpgym's own servers are declared in its
pyproject.toml exactly as an outside package declares its own (docs/adding-a-server.md).
Discovery reads only the installed distributions' metadata, so env registration can list the
names at start-up without importing a server.
"""

from __future__ import annotations

import importlib
import re
import warnings
from dataclasses import dataclass
from functools import cache
from importlib.metadata import distributions
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpgym.servers.kernel.object_server import ObjectServerSpec
    from mcpgym.servers.kernel.spec import ServerSpec

    AnySpec = ServerSpec | ObjectServerSpec

ENTRY_POINT_GROUP = "mcpgym.servers"
"""The entry-point group a distribution declares its servers in."""

BENCHMARK_GROUP = "mcpgym.benchmark_servers"
"""The entry-point group of servers that serve another benchmark's backends (BFCL's): they
are loaded by name like any server, but are not part of the seeded world, so `server_names`
leaves them out (`benchmark_server_names` lists them)."""

SERVER_NAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
"""What a server name may be: it prefixes public tool names and makes env ids."""

SERVER_GROUPS: dict[str, tuple[str, ...]] = {
    "workspace": ("zendesk", "crm", "calendar", "email", "finance", "flights"),
    "workplace": ("zendesk", "chat", "docs", "files", "projects", "code"),
    "commerce": ("zendesk", "crm", "retail", "payments", "shipping"),
    "people": ("hr", "expenses", "calendar", "chat", "flights", "hotels", "todo"),
    "care": ("zendesk", "crm", "telecom", "social"),
    "world": (
        "zendesk", "crm", "calendar", "email", "finance", "flights", "chat", "docs", "files", "projects",
        "code", "retail", "payments", "shipping", "hr", "expenses", "hotels", "telecom", "todo", "social",
    ),
}
"""Named sets of servers mounted together in one environment (`mcp/<group>-v0`): the
workspace, the workplace around the help desk, the shop's commerce, the company's people and
travel, customer care across channels, and the whole world of twenty servers."""


class ServerNotFound(KeyError):
    """No installed server has this name."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class Declaration:
    """One entry point: its name, `module:attribute`, and the distribution declaring it."""

    name: str
    target: str
    distribution: str

    def load(self) -> Any:
        """The object the target names (a missing attribute names `SERVER`)."""
        module, _, attribute = self.target.partition(":")
        return getattr(importlib.import_module(module), attribute or "SERVER")


def declarations(group: str) -> list[Declaration]:
    """Every entry point of `group` in every distribution on the path, not only the first of
    each name, so that a stale copy of a distribution's metadata (an old `*.egg-info` in the
    working folder) cannot hide what the installed one declares; copies agree on targets."""
    found: list[Declaration] = []
    for dist in distributions():
        points = dist.entry_points.select(group=group)
        if points:
            found += [Declaration(point.name, point.value, dist.metadata["Name"] or "?") for point in points]
    return found


@cache
def discovered(group: str = ENTRY_POINT_GROUP) -> dict[str, Declaration]:
    """Every installed server of `group` by name: mcpgym's own first, then the other
    distributions', each by name. A malformed name, or a name two distributions both claim,
    is left out with a warning (one broken plugin never hides the other servers)."""
    found: dict[str, Declaration] = {}
    for entry in sorted(declarations(group), key=lambda e: (e.distribution != "mcpgym", e.name)):
        if not SERVER_NAME.match(entry.name):
            warnings.warn(f"mcpgym: ignoring server {entry.name!r} of {entry.distribution}: a server name is "
                          f"lowercase letters, digits and _ (at most 32), starting with a letter", stacklevel=2)
        elif entry.name in found and found[entry.name].target != entry.target:
            warnings.warn(f"mcpgym: ignoring server {entry.name!r} of {entry.distribution}: "
                          f"{found[entry.name].distribution} already provides it", stacklevel=2)
        else:
            found.setdefault(entry.name, entry)
    return found


def server_names() -> list[str]:
    """The names of every installed server."""
    return list(discovered())


def benchmark_server_names() -> list[str]:
    """The names of the installed servers of other benchmarks (`BENCHMARK_GROUP`)."""
    return [name for name in discovered(BENCHMARK_GROUP) if name not in discovered()]


def load_server(name: str) -> AnySpec:
    """The spec of server `name` (a `ServerSpec`, or an `ObjectServerSpec` for an object
    server), a world server or a benchmark's; a clear error names the servers there are."""
    entry = discovered().get(name) or discovered(BENCHMARK_GROUP).get(name)
    if entry is None:
        raise ServerNotFound(f"unknown server {name!r}; servers: {', '.join([*discovered(), *benchmark_server_names()])}")
    return _load(entry)


@cache
def _load(entry: Declaration) -> AnySpec:
    from mcpgym.servers.kernel.object_server import ObjectServerSpec
    from mcpgym.servers.kernel.spec import ServerSpec

    spec = entry.load()
    if not isinstance(spec, ServerSpec | ObjectServerSpec):
        raise TypeError(f"server {entry.name!r} ({entry.target}, from {entry.distribution}) is not a ServerSpec")
    if spec.name != entry.name:
        raise ValueError(f"server {entry.name!r} ({entry.target}, from {entry.distribution}) "
                         f"is named {spec.name!r}; the entry point and ServerSpec.name must agree")
    return spec
