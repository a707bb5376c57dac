"""Shared fixtures: server specs and fresh sessions of the seed-0 world."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator

import pytest

from mcpgym.servers.catalog import load_server, server_names
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.spec import ServerSpec

SERVERS = server_names()


def pytest_configure(config: pytest.Config) -> None:
    """Seeded worlds cached on disk go to pytest's cache folder, never the user's (unless
    MCPGYM_CACHE_DIR says otherwise); subprocesses inherit the setting."""
    cache = getattr(config, "cache", None)
    folder = cache.mkdir("mcpgym-worlds") if cache is not None else tempfile.mkdtemp(prefix="mcpgym-")
    os.environ.setdefault("MCPGYM_CACHE_DIR", str(folder))


@pytest.fixture(scope="session")
def zendesk() -> ServerSpec:
    return load_server("zendesk")


@pytest.fixture
def session(zendesk: ServerSpec) -> Iterator[ToolSession]:
    with ToolSession(zendesk, 0) as fresh:
        yield fresh


@pytest.fixture(params=SERVERS)
def spec(request: pytest.FixtureRequest) -> ServerSpec:
    return load_server(request.param)
