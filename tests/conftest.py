"""Shared fixtures: server specs and fresh sessions of the seed-0 world."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mcpgym.servers.catalog import load_server, server_names
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.spec import ServerSpec

SERVERS = server_names()


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
