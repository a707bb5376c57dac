"""The kernel every domain server is built on: world, tools, sessions, errors, MCP adapter."""

from mcpgym.servers.kernel.errors import (
    ForbiddenError,
    InvalidArgumentError,
    NotFoundError,
    ToolError,
    UnknownToolError,
)
from mcpgym.servers.kernel.session import ToolResult, ToolSession
from mcpgym.servers.kernel.spec import ServerSpec
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry, ToolSpec
from mcpgym.servers.kernel.world import World, build_world

__all__ = [
    "ForbiddenError",
    "InvalidArgumentError",
    "NotFoundError",
    "ServerSpec",
    "ToolContext",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "ToolSession",
    "ToolSpec",
    "UnknownToolError",
    "World",
    "build_world",
]
