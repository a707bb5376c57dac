"""mcpgym: stateful MCP tool servers as Gymnasium multi-turn environments.

Importing this package is cheap: it only arranges for the `mcp/...` environment ids to be
registered with Gymnasium, now if Gymnasium is already imported, otherwise the moment it is.
A `.pth` file installed with the package (by a regular or an editable install) imports it
at interpreter start-up, so `gym.make("mcp/zendesk-v0")` works in a fresh interpreter without
`import mcpgym`; `gym.make("mcpgym:mcp/zendesk-v0")` works even where it is not run.
"""

from mcpgym._hook import register_when_gymnasium_loads

__version__ = "0.1.0"

register_when_gymnasium_loads()

__all__ = ["__version__"]
