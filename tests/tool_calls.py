"""Helpers for server tests that call tools on a `ToolSession`."""

from __future__ import annotations

import os
from typing import Any

from mcpgym.servers.kernel.session import ToolSession


def ok(session: ToolSession, tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    """Call a tool that must succeed; its result object."""
    result = session.call(tool, args or {})
    assert result.ok, result.error
    assert result.data is not None
    return result.data


def fails(session: ToolSession, tool: str, args: dict[str, Any], code: str) -> str:
    """Call a tool that must fail with `code` (`not_found`, `invalid_arguments`, `forbidden`, ...) and leave the state
    unchanged (by the session's change log, which costs what changed, not the size of the
    world; tests/test_kernel_speed_paths.py checks it against a full comparison); its error text."""
    before = session.diff()
    result = session.call(tool, args)
    assert not result.ok, f"{tool} unexpectedly succeeded: {result.data}"
    assert result.error is not None and result.error.startswith(f"{code}: "), result.error
    assert session.diff() == before
    return result.error


def uncached_env(**extra: str) -> dict[str, str]:
    """The environment for a subprocess that must build its seeded worlds afresh (the disk
    cache off), e.g. to check that another process builds the same bytes."""
    return {**os.environ, "MCPGYM_CACHE_DIR": "off", **extra}
