"""A toolbox: the live sessions of the servers one environment mounts, under one tool namespace.

With one server the agent sees the server's own tool names; with several, each name is
prefixed with its server (`zendesk_get_ticket`), as MCP hosts do.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from mcpgym.servers.catalog import load_server
from mcpgym.servers.kernel.database import RowChange
from mcpgym.servers.kernel.errors import UnknownToolError
from mcpgym.servers.kernel.initial_state import RowPatch
from mcpgym.servers.kernel.object_server import ObjectSession
from mcpgym.servers.kernel.object_state import ObjectState
from mcpgym.servers.kernel.session import ToolResult, ToolSession
from mcpgym.servers.kernel.tools import ToolSpec


Session = ToolSession | ObjectSession
"""A server's live state: a database session or an object server's session."""


def public_tool_name(server: str, tool: str, prefixed: bool) -> str:
    """The name an agent sees for `tool` of `server`: `server_tool` when several servers are
    mounted together (`prefixed`), else the tool's own name."""
    return f"{server}_{tool}" if prefixed else tool


class Toolbox:
    """Sessions of several servers, reset together, called by (possibly prefixed) tool name."""

    def __init__(self, servers: Sequence[str], seed: int = 0, tools: Sequence[str] | None = None) -> None:
        """`tools`: public names to expose (default all); the others answer `unknown_tool`."""
        if not servers:
            raise ValueError("a toolbox needs at least one server")
        if len(set(servers)) != len(servers):
            raise ValueError(f"servers listed twice: {list(servers)}")
        self.servers = tuple(servers)
        self.sessions: dict[str, Session] = {name: load_server(name).open(seed) for name in self.servers}
        self.prefixed = len(self.servers) > 1
        self._routes: dict[str, tuple[str, ToolSpec]] = {}
        for server, session in self.sessions.items():
            for tool in session.tools:
                self._routes[self.public_name(server, tool.name)] = (server, tool)
        if tools is not None:
            unknown = sorted(set(tools) - set(self._routes))
            if unknown:
                raise ValueError(f"no tools named {unknown} on servers {list(self.servers)}")
            self._routes = {name: route for name, route in self._routes.items() if name in set(tools)}

    def public_name(self, server: str, tool: str) -> str:
        """The name the agent sees for `tool` of `server`."""
        return public_tool_name(server, tool, self.prefixed)

    def route(self, name: str) -> tuple[str, str] | None:
        """(server, tool) behind a public name, or None."""
        found = self._routes.get(name)
        return (found[0], found[1].name) if found else None

    def routes(self) -> list[tuple[str, tuple[str, str]]]:
        """Every public name with its (server, tool), in a stable order."""
        return [(name, (server, tool.name)) for name, (server, tool) in self._routes.items()]

    def schemas(self, names: Collection[str] | None = None) -> list[dict[str, Any]]:
        """OpenAI-style function schemas of every tool (or of those in `names`), in a stable order."""
        return [tool.openai_schema(name) for name, (_, tool) in self._routes.items() if names is None or name in names]

    def reset(
        self, seed: int, servers: Sequence[str] | None = None, states: Mapping[str, RowPatch | ObjectState] | None = None
    ) -> None:
        """Restore the initial state of every server (or only of `servers`): the seeded world
        of `seed`, patched by `states[server]` where given. Every patch is checked (or found)
        before any session changes, so a patch that does not fit (`InitialStateError`) leaves
        every session as it was."""
        states = dict(states or {})
        chosen = [name for name in self.sessions if servers is None or name in servers]
        unknown = sorted(set(states) - set(chosen))
        if unknown:
            raise ValueError(f"initial states given for servers {unknown}, not among those reset: {chosen}")
        for name, state in states.items():
            self.sessions[name].spec.prepare_state(seed, state)
        for name in chosen:
            self.sessions[name].reset(seed, states.get(name))

    def call(self, name: str, arguments: Any, shown: Collection[str] | None = None) -> ToolResult:
        """Call a tool by its public name; unknown names (and, given `shown`, the names not in
        it) answer with an `unknown_tool` error listing the tools there are."""
        route = self.route(name) if shown is None or name in shown else None
        return self.call_at(route, name, arguments, shown if shown is not None else self._routes)

    def call_at(self, route: tuple[str, str] | None, name: str, arguments: Any, shown: Collection[str]) -> ToolResult:
        """Call the tool `route` (server, tool) names; with no route, `name` is unknown: the
        `unknown_tool` error lists the names in `shown`."""
        if route is None:
            error = UnknownToolError(f"no tool named {name!r}. Tools: {', '.join(shown)}")
            return ToolResult(tool=name, ok=False, error=error.render())
        server, tool = route
        return self.sessions[server].call(tool, arguments)

    def diff(self, servers: Sequence[str] | None = None) -> dict[str, list[RowChange]]:
        """Row changes since the initial state, per server (of `servers` if given; servers with
        none are left out)."""
        changes = {name: s.diff() for name, s in self.sessions.items() if servers is None or name in servers}
        return {name: rows for name, rows in changes.items() if rows}

    def state_hash(self) -> str:
        return "/".join(self.sessions[name].state_hash() for name in self.servers)

    def close(self) -> None:
        for session in self.sessions.values():
            session.close()
