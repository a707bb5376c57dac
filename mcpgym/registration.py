"""The Gymnasium ids of mcpgym: `mcp/<server>-v0` per server and `mcp/<group>-v0` per group."""

from __future__ import annotations

from mcpgym.servers.catalog import SERVER_GROUPS, server_names

ENTRY_POINT = "mcpgym.envs.mcp_env:McpEnv"


def env_ids() -> dict[str, tuple[str, ...]]:
    """Every env id and the servers it mounts."""
    ids = {f"mcp/{name}-v0": (name,) for name in server_names()}
    ids.update({f"mcp/{group}-v0": servers for group, servers in SERVER_GROUPS.items()})
    return ids


def register_envs() -> None:
    """Register every id with Gymnasium; calling it again changes nothing."""
    from gymnasium.envs.registration import register, registry

    for env_id, servers in env_ids().items():
        if env_id not in registry:
            register(id=env_id, entry_point=ENTRY_POINT, kwargs={"servers": list(servers)})
