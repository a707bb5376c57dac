"""Gymnasium environments over the servers: `McpEnv` and `make_env` for any set of servers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpgym.envs.mcp_env import McpEnv


def make_env(servers: list[str] | tuple[str, ...], **kwargs: Any) -> McpEnv:
    """An environment mounting exactly `servers` (any set, in the given order)."""
    from mcpgym.envs.mcp_env import McpEnv

    return McpEnv(servers=servers, **kwargs)


__all__ = ["make_env"]
